"""Positions some game can reach load, and load back as themselves; positions no game can
reach are refused with a line naming the field (issue 26: 54-card lists, the largest deck,
turn and action counts, the deal's hand sizes, private deck knowledge, remove-ace-six).

The games are the engine's seeded random games (``harness.random_games`` numbering): the
same deal and the same uniform choices, replayed here one state at a time."""

from __future__ import annotations

from typing import Iterator

import numpy as np
import pytest

from cuttle_search.engine import layout as L
from cuttle_search.engine.apply import apply_move
from cuttle_search.engine.movegen import generate_moves
from cuttle_search.engine.rng import game_seed, rng_below
from cuttle_search.engine.setup import deal
from cuttle_search.game.position import Position, PositionError
from cuttle_search.game.rules import Ruleset, get_ruleset
from cuttle_search.hint import answer


def seeded_game(spec: str, seed: int, g: int) -> Iterator[Position]:
    """Every state before the end of game ``g`` of the engine's random games seeded
    ``seed`` (the deal and the moves of ``harness.random_games``), as full positions."""
    rules = get_ruleset(spec)
    r = rules.array
    s = np.zeros(L.STATE_SIZE, np.int64)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    rng = np.array([game_seed(seed, g)], np.uint64)
    deal(s, r, rng)
    while s[L.F_PHASE] != L.PH_OVER:
        yield Position(rules, s.copy())
        n = generate_moves(s, r, buf)
        apply_move(s, r, buf[rng_below(rng, n)])


def _scrap_size(pos: Position) -> int:
    return bin(int(pos.state[L.F_SCRAP])).count("1")


# ---------------------------------------------------------------- 54-card lists
@pytest.mark.parametrize("spec, g, scrap", [("cutthroat", 3320, 53), ("team", 22, 54)])
def test_a_54_card_game_with_a_full_scrap_loads_back_and_gets_a_hint(spec, g, scrap):
    """RULES.md 3.0: in a 54-card preset every card list, the scrap included, may hold up
    to 54 cards. The late state of a seeded random game is written, read back and analysed."""
    pos = max(seeded_game(spec, 26, g), key=_scrap_size)
    assert _scrap_size(pos) == scrap
    for view in [pos] + [pos.view_of(q) for q in range(pos.rules.players)]:
        text = view.to_json()
        back = Position.from_json(text)
        assert back.to_json() == text
    for view in (pos, pos.view_of(pos.actor)):  # the full position and the decider's view
        reply = answer({"id": 1, "position": view.to_dict(), "iterations": 50}, {})
        assert "error" not in reply and reply["move"], reply


def test_a_card_list_longer_than_the_deck_is_refused():
    pos = max(seeded_game("team", 26, 22), key=_scrap_size)
    d = pos.to_dict()
    d["scrap"] = d["scrap"] + ["AS"]
    with pytest.raises(PositionError, match=r"^scrap: 55 entries, but a deck has 54 cards$"):
        Position.from_dict(d)
    two = Position.deal("cuttle-cards", seed=1).to_dict()
    two["scrap"] = ["AS"] * 53
    with pytest.raises(PositionError, match=r"^scrap: 53 entries, but a deck has 52 cards$"):
        Position.from_dict(two)


# ---------------------------------------------------------------- what loads back
SPECS = [
    "cuttle-cards", "cuttle-cards-2", "bga-balanced", "bga-traditional", "classic",
    "cuttle-cards:four=random", "cuttle-cards:eight-one-off,ten-counters-scuttle",
    "cuttle-cards:nine=deck-top,hand-limit=block", "classic:four=random,eight-one-off",
    "cutthroat", "team", "multiplayer:players=2", "multiplayer:players=3", "multiplayer",
    "multiplayer:players=8", "multiplayer:players=4,remove-ace-six",
]
NOT_CARRIED = [L.F_SHUFFLE_SEED]  # a loaded position gets a fresh chance stream (docs/position-format.md)


def assert_same(back: Position, pos: Position) -> None:
    """``back`` is ``pos``: the same state (but its chance stream), view and knowledge."""
    a, b = pos.state.copy(), back.state.copy()
    a[NOT_CARRIED] = b[NOT_CARRIED] = 0
    assert np.array_equal(a, b), [i for i in range(L.STATE_SIZE) if a[i] != b[i]]
    assert (back.view, back.hidden, back.unknown_cards) == (pos.view, pos.hidden, pos.unknown_cards)


def round_trip_every_state(spec: str, games: range) -> int:
    """Every state of the seeded random games ``games``, whole and as each seat's view,
    written and read back: accepted, the same position, the same text. Returns the count."""
    n = 0
    for g in games:
        for pos in seeded_game(spec, 26, g):
            for view in [pos] + [pos.view_of(q) for q in range(pos.rules.players)]:
                text = view.to_json()
                back = Position.from_json(text)
                assert_same(back, view)
                assert back.to_json() == text
                n += 1
    return n


@pytest.mark.parametrize("spec", SPECS)
def test_every_reachable_state_and_view_loads_back_as_itself(spec):
    """Issue 26 items 6 and 9: no state a game reaches is refused (turns, actions, the
    deal's hands, the deck's size), and ``from_json(to_json())`` loses nothing."""
    assert round_trip_every_state(spec, range(3)) > 100


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS)
def test_every_reachable_state_and_view_loads_back_as_itself_long(spec):
    round_trip_every_state(spec, range(3, 60))
