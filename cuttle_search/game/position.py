"""Positions: the JSON position format, cuttle.cards GameStates, validation, engine state.

A :class:`Position` is an engine state plus the ruleset and whose view it is. In a view
of one seat, the cards that seat cannot see are ``??`` in the file; the engine state then
holds them in a canonical placement (unseen cards in id order), and :attr:`Position.hidden`
records which slots are unknown so a search can re-deal them. The format is documented
in ``docs/position-format.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from . import cards as C
from .errors import CuttleError, brief
from .inputs import check_writable, write_whole
from ..engine import info as I
from ..engine import layout as L
from ..engine import state as S
from ..engine.apply import apply_move
from ..engine.movegen import generate_moves, moves_overflowed
from ..engine.setup import deal, fewest_actions
from ..engine.seats import seat_count, sides
from ..engine.table import goal, points_total, seat_returns
from .moves import Move, MoveError
from .rules import Ruleset, RulesError, get_ruleset
from .seats import parse_seat, seat_name, whole

def share_of_state(s: np.ndarray, r: np.ndarray, seat: int, out: np.ndarray | None = None) -> float:
    """``seat``'s share of the finished game ``s``: 1 when its side won, 0 when another did,
    and an equal share (1/n of n seats, 1/2 with two teams) when nobody won, from the
    engine's returns (``table.seat_returns``). ``out`` is an optional scratch array of
    ``MAX_PLAYERS`` floats."""
    if out is None:
        out = np.zeros(L.MAX_PLAYERS, np.float64)
    seat_returns(s, r, out)
    if not out[: int(seat_count(s))].any():
        return 1.0 / int(sides(s, r))
    return 1.0 if out[seat] > 0 else 0.0


class PositionError(CuttleError):
    """A malformed or impossible position. The message names the field and the problem."""


PHASE_NAMES = {
    L.PH_MAIN: "main",
    L.PH_COUNTER: "countering",
    L.PH_THREE: "resolvingThree",
    L.PH_FOUR: "resolvingFour",
    L.PH_FOUR_RANDOM: "resolvingFourRandom",
    L.PH_FIVE: "resolvingFive",
    L.PH_HAND_LIMIT: "discardingToHandLimit",
    L.PH_SEVEN: "resolvingSeven",
    L.PH_SCUTTLE_COUNTER: "counteringScuttle",
    L.PH_OVER: "gameOver",
    L.PH_RESPONSE: "answeringRoyal",
}
PHASE_OF_NAME = {v.lower(): k for k, v in PHASE_NAMES.items()}
# cuttle.cards' GamePhase numbers
STATUS_NAMES = {
    L.ST_ONGOING: "ongoing",
    L.ST_WIN: "won",
    L.ST_STALEMATE_PASSES: "stalemate ({passes} passes)",  # the ruleset's pass limit (N + 1 with N seats)
    L.ST_STALEMATE_ACTIONS: "stalemate (action limit)",
}
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def number_word(k: int) -> str:
    """``k`` in words up to ten (the pass limits of 2 to 8 seats are 3 to 9), else digits."""
    return _NUMBER_WORDS[k] if 0 <= k < len(_NUMBER_WORDS) else str(k)


@dataclass(frozen=True)
class _Formats:
    """The position file forms' readers and writers, registered by ``game/formats`` (which
    the package ``cuttle_search.game`` imports): this module imports none of them."""

    from_dict: Callable[[Mapping[str, Any], "str | Ruleset | None"], "Position"]
    from_json: Callable[[str, "str | Ruleset | None"], "Position"]
    load: Callable[["str | Path", "str | Ruleset | None"], "Position"]
    to_dict: Callable[["Position"], dict[str, Any]]
    dump: Callable[[Mapping[str, Any], bool], str]
    to_gamestate: Callable[["Position"], dict[str, Any]]


_registered: list[_Formats] = []


def register_formats(from_dict: Callable, from_json: Callable, load: Callable, to_dict: Callable, dump: Callable,
                     to_gamestate: Callable) -> None:
    """Called once by ``game/formats`` on import: the functions behind ``Position.from_dict``,
    ``from_json``, ``load``, ``to_dict``, ``to_json`` and ``to_gamestate``."""
    _registered[:] = [_Formats(from_dict, from_json, load, to_dict, dump, to_gamestate)]


def _formats() -> _Formats:
    return _registered[0]


@dataclass(frozen=True)
class Hidden:
    """What the viewer of a one-seat view cannot see: the unknown slots to re-deal (never
    changed once made, so copies of a view share it)."""

    viewer: int
    hand_unknown: dict[int, int]  # seat -> number of unknown cards in that hand
    deck_unknown: int  # unknown cards at the bottom of the deck (below the known top)
    revealed_unknown: int = 0  # cards another seat's private 7 revealed (cutthroat)


@dataclass(eq=False)
class Position:
    """A game state with its ruleset and point of view. ``view`` is a seat or ``None``
    (full information).

    Two positions are equal when their rules, point of view, state and hidden slots are
    (the name and the description are labels, not part of the game). A position changes
    as moves are pushed, so it is not hashable: ``key()`` is a hashable snapshot."""

    rules: Ruleset
    state: np.ndarray
    view: int | None = None
    hidden: Hidden | None = None
    unknown_cards: int = 0  # mask of the cards placed canonically into hidden slots
    name: str = field(default="")
    about: str = field(default="")  # a free-text description kept from the file

    def __post_init__(self) -> None:
        # the kernels take one flat, writable, contiguous int64 array of STATE_SIZE slots:
        # anything else would recompile them for its type, or cut the card masks short
        if not isinstance(self.rules, Ruleset):
            raise PositionError(f"rules: expected a Ruleset (get_ruleset), got {brief(self.rules)}")
        state = self.state
        if not isinstance(state, np.ndarray) or state.dtype != np.int64 or state.shape != (L.STATE_SIZE,):
            what = (f"an array of {state.dtype} and shape {state.shape}" if isinstance(state, np.ndarray)
                    else brief(state))
            raise PositionError(f"state: expected an int64 array of {L.STATE_SIZE} slots (an engine state), got {what}")
        if not (state.flags.writeable and state.flags.c_contiguous):
            self.state = np.ascontiguousarray(state).copy()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (self.rules == other.rules and self.view == other.view and self.hidden == other.hidden
                and self.unknown_cards == other.unknown_cards and np.array_equal(self.state, other.state))

    __hash__ = None  # type: ignore[assignment]  # mutable: see key()

    def key(self) -> tuple:
        """A hashable snapshot of what ``==`` compares, for sets, dicts and
        transposition tables (it does not follow later moves)."""
        hidden = None if self.hidden is None else (self.hidden.viewer, tuple(sorted(self.hidden.hand_unknown.items())),
                                                   self.hidden.deck_unknown, self.hidden.revealed_unknown)
        return (self.rules, self.view, hidden, self.unknown_cards, self.state.tobytes())

    # ------------------------------------------------------------ basic queries
    @property
    def rules_array(self) -> np.ndarray:
        return self.rules.array

    @property
    def phase(self) -> int:
        return S.get(self.state, "phase")

    @property
    def guessed_cards(self) -> int:
        """The mask of the cards a search of this position must guess at (and re-deals every
        iteration): the placeholders in a one-seat view's hidden slots; none in a full view,
        where every card is where the position puts it."""
        return int(self.unknown_cards) if self.hidden is not None else 0

    @property
    def sides(self) -> int:
        """How many sides play for the win: the seats, or two when they play in teams."""
        return int(sides(self.state, self.rules_array))

    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    @property
    def players(self) -> int:
        """The number of seats (``engine.seats.seat_count``: the state's, the one truth)."""
        return int(seat_count(self.state))

    @property
    def actor(self) -> int:
        """Seat making the pending decision; ``-1`` for chance."""
        return S.get(self.state, "actor")

    @property
    def turn_player(self) -> int:
        return S.get(self.state, "turn")

    @property
    def is_over(self) -> bool:
        return self.phase == L.PH_OVER

    @property
    def status(self) -> int:
        """How the game stands: ``layout.ST_*`` (ongoing, won, a stalemate)."""
        return S.get(self.state, "status")

    @property
    def winner(self) -> int:
        """The seat that won, or -1."""
        return S.get(self.state, "winner")

    @property
    def dealer(self) -> int:
        """The seat that dealt."""
        return S.get(self.state, "dealer")

    @property
    def turn_count(self) -> int:
        """Completed turns (cuttle.cards' ``turn``)."""
        return S.get(self.state, "turn_count")

    @property
    def passes(self) -> int:
        """Consecutive passes so far."""
        return S.get(self.state, "passes")

    @property
    def scrap(self) -> int:
        """The scrap, a card mask."""
        return S.get(self.state, "scrap")

    @property
    def victim(self) -> int:
        """The seat a 4 makes discard, while its discards are pending; -1 otherwise."""
        return S.get(self.state, "victim") if self.phase in (L.PH_FOUR, L.PH_FOUR_RANDOM) else -1

    def pending_cards(self) -> tuple[int, ...]:
        """What a decline (``resolve``) lets stand now, all of it on the table: the pending
        one-off then the 2s countering it (in card order), the royal an answering 9 may
        send back, or a scuttle's card then its target; () where nothing waits."""
        s, phase = self.state, self.phase
        if phase == L.PH_SCUTTLE_COUNTER:
            return S.get(s, "scuttle_card"), S.get(s, "scuttle_target")
        if phase == L.PH_COUNTER and S.get(s, "oneoff") >= 0:
            return (S.get(s, "oneoff"), *C.cards_in(S.get(s, "twos")))
        if phase == L.PH_RESPONSE and S.get(s, "response") >= 0:
            return (S.get(s, "response"),)
        return ()

    @property
    def deck_known(self) -> int:
        """How many cards on top of the deck every seat knows."""
        return S.get(self.state, "deck_known")

    def copy(self) -> "Position":
        return Position(self.rules, self.state.copy(), self.view, self.hidden, self.unknown_cards, self.name, self.about)

    def seat(self, p: Any, field: str = "seat") -> int:
        """``p`` as one of this game's seats (an int, a NumPy integer or ``pN``), else a
        ``PositionError`` naming ``field``: every per-seat query checks its seat here, since
        the state's arrays are indexed by it."""
        return parse_seat(p, field, self.players, PositionError)

    def hand(self, p: int) -> int:
        """Seat ``p``'s hand, a card mask. In a one-seat view the cards the viewer cannot
        see are placeholders (the mask ``unknown_cards`` marks them)."""
        return S.seat_get(self.state, "hand", self.seat(p))

    def face(self, p: int) -> int:
        """The royals seat ``p`` controls (Kings, Queens, glasses 8s), a card mask."""
        return S.seat_get(self.state, "face", self.seat(p))

    def frozen(self, p: int) -> int:
        """The cards of ``p``'s hand it may not play yet (a 9 returned them), a card mask."""
        return S.seat_get(self.state, "frozen", self.seat(p))

    def spent(self, p: int) -> int:
        """The 2s ``p`` countered with out of turn, waiting before its next turn, a card mask."""
        return S.seat_get(self.state, "spent", self.seat(p))

    def points(self, p: int) -> int:
        """Seat ``p``'s points: the total of the point cards it controls."""
        return int(points_total(self.state, self.seat(p)))

    def goal(self, p: int) -> int:
        """The points seat ``p`` needs to win now (its Kings lower it)."""
        return int(goal(self.state, self.rules_array, self.seat(p)))

    def legal_codes(self) -> np.ndarray:
        """The engine codes of the pending decision's legal moves (see :meth:`legal_moves`)."""
        if self.view is not None and self.actor != self.view and not self.is_over:
            decider = "chance" if self.actor == L.ACTOR_CHANCE else seat_name(self.actor)
            raise PositionError(f"view: {decider} decides here; {seat_name(self.view)}'s view cannot list those moves "
                                "(they may hold cards it cannot see): ask the full-information position")
        buf = np.zeros(L.MAX_MOVES, dtype=np.int64)
        n = generate_moves(self.state, self.rules_array, buf)
        if moves_overflowed(buf, n):  # unreachable from a loaded position (hand_cap)
            raise PositionError(f"phase: more than {L.MAX_MOVES - 1:,} legal moves; this position cannot be played")
        return buf[:n].copy()

    def legal_moves(self) -> list[Move]:
        """The legal moves of the pending decision.

        A one-seat view lists them only when its viewer decides (the viewer's moves never
        depend on cards it cannot see); otherwise it raises ``PositionError``."""
        return [Move.from_code(c) for c in self.legal_codes()]

    def push(self, move: Move) -> None:
        """Apply a move without a legality check (use :meth:`play` for a checked one).
        Full-information positions only: a one-seat view holds placeholders for the cards
        its seat cannot see, which a move would draw or play as if they were known."""
        self._refuse_view()
        if not isinstance(move, Move):
            raise MoveError(f"move: expected a Move, got {brief(move)}")
        apply_move(self.state, self.rules_array, np.int64(move.code()))

    def _refuse_view(self) -> None:
        if self.view is not None:
            raise PositionError(f"view: moves are played on the full-information position, not on {seat_name(self.view)}'s "
                                "view (its hidden cards are placeholders); play them there and take view_of again")

    def play(self, move: Move | str | Mapping[str, Any]) -> Move:
        """Apply a move after checking it is legal; text (``points 7H``) is parsed against
        the position, and a JSON move body (a dict, as cuttle.cards writes them) is read too.
        Full-information positions only (:meth:`push`)."""
        self._refuse_view()
        legal = self.legal_moves()
        if isinstance(move, str):
            move = Move.parse(move, legal)
        elif isinstance(move, Mapping):
            move = Move.from_json(move).resolve_against(legal)
        elif isinstance(move, Move):
            move = move.resolve_against(legal)
        else:
            raise MoveError(f"move: expected a Move, move text or a JSON move body, got {brief(move)}")
        self.push(move)
        return move

    def share_of(self, p: int) -> float | None:
        """Seat ``p``'s share of the finished game: 1 when its side won, 0 when another did,
        an equal share (1/sides) for a stalemate; None while the game goes on."""
        p = self.seat(p)
        return share_of_state(self.state, self.rules_array, p) if self.is_over else None

    def winners(self) -> list[int]:
        """Every seat of the side that won (both partners of a Team win); none while the
        game goes on or after a stalemate."""
        if self.status != L.ST_WIN:
            return []
        return [q for q in range(self.players) if self.share_of(q) == 1]

    def result(self) -> dict[str, Any]:
        st = self.status
        w = self.winner
        status = STATUS_NAMES[st].format(passes=number_word(int(self.rules_array[L.R_PASS_LIMIT])))
        return {"status": status, "winner": seat_name(w) if w >= 0 else None}

    # ------------------------------------------------------------ the file forms (game/formats)
    def to_dict(self) -> dict[str, Any]:
        """The position file form (hidden cards written ``??``); see ``game/formats``."""
        return _formats().to_dict(self)

    def to_json(self, compact: bool = False) -> str:
        """The position file text: one field per line with card lists inline (or, with
        ``compact``, a single line)."""
        return _formats().dump(self.to_dict(), compact)

    def save(self, path: str | Path) -> None:
        """Write the position file (its JSON form); a ``PositionError`` naming ``path`` when
        it cannot be written. A finished game is written with its ``status`` and ``winner``,
        for the record: such a file does not load again (there is nothing left to decide)."""
        if not isinstance(path, (str, Path)):
            raise PositionError(f"path: expected a file name, got {brief(path)}")
        check_writable(path, PositionError, "path")
        try:
            write_whole(path, self.to_json() + "\n")
        except OSError as e:  # (a name that is no file name was refused above)
            raise PositionError(f"path: cannot write {str(path)!r}: {e.strerror or e}") from None

    def to_gamestate(self) -> dict[str, Any]:
        """A cuttle.cards GameState (row form) for a full-information position."""
        return _formats().to_gamestate(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, rules: str | Ruleset | None = None) -> "Position":
        return _formats().from_dict(data, rules)

    @classmethod
    def from_json(cls, text: str, *, rules: str | Ruleset | None = None) -> "Position":
        return _formats().from_json(text, rules)

    @classmethod
    def load(cls, path: str | Path, *, rules: str | Ruleset | None = None) -> "Position":
        return _formats().load(path, rules)

    @classmethod
    def deal(cls, rules: str | Ruleset = "cuttle-cards", seed: int = 0) -> "Position":
        """A freshly shuffled and dealt full-information game; ``seed`` is a whole number
        from 0 to 2^64 - 1 (a NumPy integer too)."""
        if isinstance(seed, np.integer) and not isinstance(seed, np.bool_):
            seed = int(seed)
        whole(seed, "seed", 0, 2**64 - 1, PositionError)
        try:
            rs = rules if isinstance(rules, Ruleset) else get_ruleset(rules)
        except RulesError as e:
            raise RulesError(f"rules: {e}") from None
        s = np.zeros(L.STATE_SIZE, dtype=np.int64)
        rng = np.array([seed], dtype=np.uint64)
        deal(s, rs.array, rng)
        return cls(rs, s)

    def view_of(self, p: int) -> "Position":
        """What seat ``p`` sees of this full-information position, as a one-seat view:
        other hands are hidden but for the cards ``p`` knows (all of them with glasses or
        an empty deck), and the deck but for its known top (``engine.info``). The view
        is the position a file with ``??`` in those places loads as."""
        p = self.seat(p, "view")
        if self.view is not None:
            raise PositionError(f"view: this position is already {seat_name(self.view)}'s view")
        if self.is_over:
            raise PositionError("phase: the game is already over; there is nothing to analyse")
        state = np.empty_like(self.state)
        in_hand = np.zeros(L.MAX_PLAYERS, np.int64)
        unknown = int(I.view_state(self.state, self.rules_array, p, state, in_hand))
        hands = {q: int(n) for q, n in enumerate(in_hand[: self.players]) if n}
        deck_unknown = self.deck_size - int(I.deck_known_to(self.state, p))
        revealed = bin(int(I.hidden_revealed(self.state, self.rules_array, p))).count("1")
        return Position(self.rules, state, p, Hidden(p, hands, deck_unknown, revealed), unknown, self.name, self.about)

    # ------------------------------------------------------------ the deck, for review's luck
    @property
    def actions(self) -> int:
        """Moves played so far (chance and forced ones included)."""
        return S.get(self.state, "actions")

    @property
    def deck_size(self) -> int:
        """Cards in the deck."""
        return S.get(self.state, "deck_size")

    def deck_top_first(self) -> list[int]:
        """The deck's cards, top first (a full-information position: a view's deck holds
        placeholders for the cards its seat cannot see)."""
        return S.deck(self.state)[::-1]

    def deck_known_to(self, p: int) -> int:
        """How many cards on top of the deck seat ``p`` knows."""
        return int(I.deck_known_to(self.state, self.seat(p)))

    def known_to(self, p: int) -> int:
        """The mask of cards seat ``p`` can name in this full-information position (every
        card but those its view hides)."""
        return ~self.view_of(p).unknown_cards & ((1 << 64) - 1)

    def with_discard_replaced(self, seat: int, actual: tuple[int, ...], other: tuple[int, ...]) -> "Position":
        """This full-information position as if ``seat`` had discarded ``other`` instead of
        ``actual`` (cards of its hand that went to the scrap): the cards of ``actual`` not in
        ``other`` come back to the hand and those of ``other`` not in ``actual`` go to the
        scrap (for review's luck of a random discard). Nobody knows the moved cards in hand."""
        seat = self.seat(seat)
        if self.view is not None:
            raise PositionError("view: a discard is replaced in a full-information position")
        back = C.mask_of(actual) & ~C.mask_of(other)
        out = C.mask_of(other) & ~C.mask_of(actual)
        s = self.state
        if S.get(s, "scrap") & back != back or S.seat_get(s, "hand", seat) & out != out:
            raise PositionError("discard: the actual discards must be in the scrap and the others in the hand")
        pos = self.copy()
        t = pos.state
        S.put(t, "scrap", (S.get(t, "scrap") & ~back) | out)
        S.seat_put(t, "hand", seat, (S.seat_get(t, "hand", seat) & ~out) | back)
        S.seat_put(t, "public", seat, S.seat_get(t, "public", seat) & ~(back | out))
        return pos

    def with_deck_top_known(self, count: int) -> "Position":
        """This full-information position with the top ``count`` cards of the deck known to
        every seat (as after a 7 puts a card back): what a seat's view of it then names.
        Its action count is raised, where needed, to the fewest that reach such a position
        (``engine.setup.fewest_actions``): the deal with a known top is no deal, and the
        file forms refuse it as one. ``count`` is a whole number up to the deck's size."""
        if self.view is not None:
            raise PositionError("view: the deck's known top is set on a full-information position")
        count = whole(count, "count", 0, self.deck_size, PositionError)
        pos = self.copy()
        S.put(pos.state, "deck_known", max(S.get(pos.state, "deck_known"), count))
        S.put(pos.state, "actions", max(pos.actions, int(fewest_actions(pos.state, pos.rules_array))))
        return pos
