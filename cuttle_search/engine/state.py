"""The state's fields by name, for the Python above the engine: the one place code outside
``engine/`` reads or writes a state array (the layout itself, and what each field means, is
``layout.py``'s document). Plain Python, no kernels: the kernels index the state directly.

Above the engine nothing indexes a state by an ``F_*`` constant (``tests/test_layers.py``
checks it). ``Position`` (game/position.py) answers the common questions (phase, actor,
hands, points, the deck) through these functions; code holding a bare state array (the
agents' look-ahead, the arena's game loop, deck-out endgames) calls them directly; the
position file forms (game/formats/) and the OpenSpiel adapter (interop/openspiel.py), which
write whole states, use the same names: the tables below are the set of fields they touch.

- ``get(s, name)`` / ``put(s, name, v)`` / ``add(s, name, mask)``: a game field of ``GAME``
  (``add`` sets the cards of ``mask`` in a card-mask field);
- ``seat_get(s, name, p)`` / ``seat_put`` / ``seat_add``: seat ``p``'s field of ``SEAT``;
- ``jack_get(s, name, j)`` / ``jack_put``: a field of ``JACK`` for the Jack of suit ``j``;
  ``joker_get(s, name, k)`` / ``joker_put``: a field of ``JOKER`` for Joker ``k``;
- ``two_by(s, i)`` / ``set_two_by``: who played the counter 2 of suit ``i``;
- ``deck(s)`` (bottom first) / ``set_deck(s, cards)``, ``deck_slot`` / ``set_deck_slot``;
- ``empty_state(players)``: a zeroed state of a seat count, for the seat queries of
  ``engine/seats`` (who partners whom) where no game exists yet.
"""

from typing import Literal

import numpy as np

from .layout import (
    DECK_SLOTS,
    F_ACTIONS,
    F_ACTOR,
    F_CHAIN_TOP,
    F_DEALER,
    F_DECK,
    F_DECK_KNOWN,
    F_DECK_N,
    F_DECLINES,
    F_DISCARDS,
    F_FACE,
    F_FROZEN,
    F_HAND,
    F_JACK_BY,
    F_JACK_LEVEL,
    F_JACK_ON,
    F_JACK_TO,
    F_JOKER_BY,
    F_JOKER_FROM,
    F_JOKER_LEVEL,
    F_JOKER_ON,
    F_JOKER_TO,
    F_NPLAYERS,
    F_NTWOS,
    F_ONEOFF,
    F_ONEOFF_PLAYER,
    F_ONEOFF_TARGET,
    F_OWNED,
    F_PASSES,
    F_PHASE,
    F_POINTS,
    F_PUBLIC,
    F_REMOVED,
    F_RESPONSE,
    F_REVEALED,
    F_SCRAP,
    F_SCUTTLE_CARD,
    F_SCUTTLE_TARGET,
    F_SEVEN,
    F_SHUFFLE_SEED,
    F_SPENT,
    F_STATUS,
    F_TOP_SEEN_BY,
    F_TURN,
    F_TURN_COUNT,
    F_TWO_BY,
    F_TWOS,
    F_VICTIM,
    F_WINNER,
    STATE_SIZE,
)

GameField = Literal[
    "players", "dealer", "phase", "turn", "actor", "turn_count", "actions", "passes", "status", "winner",
    "oneoff", "oneoff_target", "oneoff_player", "twos", "ntwos", "chain_top", "declines", "victim", "discards",
    "revealed", "scuttle_card", "scuttle_target", "scrap", "deck_size", "deck_known", "top_seen_by", "seven",
    "response", "removed", "shuffle_seed",
]
SeatField = Literal["hand", "points", "face", "owned", "public", "frozen", "spent"]
JackField = Literal["on", "by", "level", "to"]
JokerField = Literal["on", "by", "level", "from", "to"]

# The game fields (one slot each), by name: layout.py documents each F_* slot.
GAME: dict[str, int] = {
    "players": F_NPLAYERS, "dealer": F_DEALER, "phase": F_PHASE, "turn": F_TURN, "actor": F_ACTOR,
    "turn_count": F_TURN_COUNT, "actions": F_ACTIONS, "passes": F_PASSES, "status": F_STATUS,
    "winner": F_WINNER, "oneoff": F_ONEOFF, "oneoff_target": F_ONEOFF_TARGET, "oneoff_player": F_ONEOFF_PLAYER,
    "twos": F_TWOS, "ntwos": F_NTWOS, "chain_top": F_CHAIN_TOP, "declines": F_DECLINES, "victim": F_VICTIM,
    "discards": F_DISCARDS, "revealed": F_REVEALED, "scuttle_card": F_SCUTTLE_CARD,
    "scuttle_target": F_SCUTTLE_TARGET, "scrap": F_SCRAP, "deck_size": F_DECK_N, "deck_known": F_DECK_KNOWN,
    "top_seen_by": F_TOP_SEEN_BY, "seven": F_SEVEN, "response": F_RESPONSE, "removed": F_REMOVED,
    "shuffle_seed": F_SHUFFLE_SEED,
}
# The per-seat fields (card masks), by name.
SEAT: dict[str, int] = {
    "hand": F_HAND, "points": F_POINTS, "face": F_FACE, "owned": F_OWNED, "public": F_PUBLIC,
    "frozen": F_FROZEN, "spent": F_SPENT,
}
# The fields of a Jack (by its suit) and of a Joker (0 or 1), by name.
JACK: dict[str, int] = {"on": F_JACK_ON, "by": F_JACK_BY, "level": F_JACK_LEVEL, "to": F_JACK_TO}
JOKER: dict[str, int] = {"on": F_JOKER_ON, "by": F_JOKER_BY, "level": F_JOKER_LEVEL, "from": F_JOKER_FROM,
                         "to": F_JOKER_TO}


def get(s: np.ndarray, name: GameField) -> int:
    """The game field ``name`` of state ``s``."""
    return int(s[GAME[name]])


def put(s: np.ndarray, name: GameField, value: int) -> None:
    """Set the game field ``name``."""
    s[GAME[name]] = value


def add(s: np.ndarray, name: GameField, mask: int) -> None:
    """Add the cards of ``mask`` to the card-mask game field ``name`` (scrap, twos, revealed, removed)."""
    s[GAME[name]] |= mask


def seat_get(s: np.ndarray, name: SeatField, p: int) -> int:
    """Seat ``p``'s field ``name`` (a card mask)."""
    return int(s[SEAT[name] + p])


def seat_put(s: np.ndarray, name: SeatField, p: int, value: int) -> None:
    """Set seat ``p``'s field ``name``."""
    s[SEAT[name] + p] = value


def seat_add(s: np.ndarray, name: SeatField, p: int, mask: int) -> None:
    """Add the cards of ``mask`` to seat ``p``'s field ``name``."""
    s[SEAT[name] + p] |= mask


def jack_get(s: np.ndarray, name: JackField, j: int) -> int:
    """The field ``name`` of the Jack of suit ``j``."""
    return int(s[JACK[name] + j])


def jack_put(s: np.ndarray, name: JackField, j: int, value: int) -> None:
    s[JACK[name] + j] = value


def joker_get(s: np.ndarray, name: JokerField, k: int) -> int:
    """The field ``name`` of Joker ``k`` (0 or 1)."""
    return int(s[JOKER[name] + k])


def joker_put(s: np.ndarray, name: JokerField, k: int, value: int) -> None:
    s[JOKER[name] + k] = value


def two_by(s: np.ndarray, i: int) -> int:
    """The seat that played the counter 2 of suit ``i`` in the current chain, or -1."""
    return int(s[F_TWO_BY + i])


def set_two_by(s: np.ndarray, i: int, seat: int) -> None:
    s[F_TWO_BY + i] = seat


def deck(s: np.ndarray) -> list[int]:
    """The deck's cards, bottom first (the last is the top)."""
    return [int(c) for c in s[F_DECK : F_DECK + int(s[F_DECK_N])]]


def deck_slots(s: np.ndarray) -> np.ndarray:
    """The deck's ``DECK_SLOTS`` slots as a view (bottom first; those from ``deck_size`` up are unused)."""
    return s[F_DECK : F_DECK + DECK_SLOTS]


def set_deck(s: np.ndarray, cards: list[int]) -> None:
    """Put ``cards`` (bottom first) in the deck and set its size."""
    for i, c in enumerate(cards):
        s[F_DECK + i] = c
    s[F_DECK_N] = len(cards)


def empty_state(players: int) -> np.ndarray:
    """A zeroed state of ``players`` seats: enough for the seat queries of ``engine/seats``."""
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    s[F_NPLAYERS] = players
    return s
