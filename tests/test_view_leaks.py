"""Views never leak: a seat's view of a position, in every form (the position file, the
view's state array, its legal moves), is the same in two worlds that differ only in cards
that seat cannot see. Random games of every ruleset; at every state, for every seat, pairs of
its unseen cards (``engine.info.unseen_cards``: other seats' hidden hand cards, the deck
below the top it knows, a private 7's reveal) are exchanged in the full state and the view
is taken again. So no form of a view carries more than the engine says its seat sees;
what a seat sees is checked against the rules by the scenario tests (test_views.py and the
rules' own files). A fuzz of this kind, with a tracker of its own of what each seat may
know, found no leak in 3 million exchanges; playing on a view found that it carried the true
seed of Cuttle Multiplayer's reshuffles (test_views.py)."""

from __future__ import annotations

import numpy as np
import pytest

from cuttle_search.engine import layout as L
from cuttle_search.engine.apply import apply_move
from cuttle_search.engine.info import unseen_cards
from cuttle_search.game.position import Position

RULESETS = ["cuttle-cards", "cuttle-cards-2", "bga-balanced", "bga-traditional", "classic",
            "cuttle-cards:four=random", "classic:nine=deck-top", "cutthroat", "team",
            "multiplayer:players=2", "multiplayer:players=3", "multiplayer"]
# every field that holds a mask of cards, seat by seat where it is per seat
MASKS = [L.F_SCRAP, L.F_TWOS, L.F_REVEALED, L.F_REMOVED] + [
    base + q for base in (L.F_HAND, L.F_POINTS, L.F_FACE, L.F_OWNED, L.F_PUBLIC, L.F_FROZEN, L.F_SPENT)
    for q in range(L.MAX_PLAYERS)]


def _cards(mask: int) -> list[int]:
    return [c for c in range(64) if mask >> c & 1]


def _exchanged(s: np.ndarray, a: int, b: int) -> np.ndarray:
    """The state with cards ``a`` and ``b`` exchanged in every mask and deck slot: both are
    hidden cards (in hands, the deck or a reveal), so no table field names either."""
    t = s.copy()
    both = np.int64(1 << a | 1 << b)  # (cards are 0-53)
    for f in MASKS:
        if bool(t[f] >> a & 1) != bool(t[f] >> b & 1):
            t[f] ^= both
    deck = t[L.F_DECK:L.F_DECK + L.DECK_SLOTS]
    ia, ib = deck == a, deck == b
    deck[ia], deck[ib] = b, a
    return t


def _view(pos: Position, s: np.ndarray, q: int) -> tuple:
    world = Position(pos.rules, s)
    view = world.view_of(q)
    moves = tuple(sorted(m.text() for m in view.legal_moves())) if view.actor == q else ()
    return view.to_json(), view.state.tobytes(), moves


def check_games(spec: str, games: range, swaps: int = 2) -> int:
    """Play ``games`` (uniform random moves, seeded) and check every state's views; the
    number of exchanges checked."""
    checked = 0
    for g in games:
        rng = np.random.default_rng(g)
        pos = Position.deal(spec, seed=g)
        r = pos.rules_array
        while not pos.is_over:
            s = pos.state
            for q in range(pos.rules.players):
                unseen = _cards(int(unseen_cards(s, r, q)))
                if len(unseen) < 2:
                    continue
                here = _view(pos, s, q)
                for _ in range(swaps):
                    a, b = rng.choice(unseen, 2, replace=False)
                    assert _view(pos, _exchanged(s, int(a), int(b)), q) == here, (spec, g, q, a, b)
                    checked += 1
            codes = pos.legal_codes()
            apply_move(pos.state, r, np.int64(codes[rng.integers(len(codes))]))
    return checked


@pytest.mark.parametrize("spec", RULESETS)
def test_no_view_depends_on_a_card_its_seat_cannot_see(spec):
    assert check_games(spec, range(2)) > 50


@pytest.mark.slow
@pytest.mark.parametrize("spec", RULESETS)
def test_no_view_depends_on_a_card_its_seat_cannot_see_long(spec):
    check_games(spec, range(2, 40), swaps=4)


def test_the_check_sees_a_leak():
    """An exchange of two unseen cards is a different world: the full position, which names
    every card, tells the two apart, so a view that named a hidden card would too."""
    pos = Position.deal("cuttle-cards", seed=1)
    s = pos.state
    a, b = _cards(int(unseen_cards(s, pos.rules_array, 0)))[:2]
    full = Position(pos.rules, _exchanged(s, a, b))
    assert full.to_json() != pos.to_json() and _view(pos, full.state, 0) == _view(pos, s, 0)
