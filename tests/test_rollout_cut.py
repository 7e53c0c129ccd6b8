"""The cut-off rollout (``greedy-cut``): the greedy playout for a few rounds of turns, then
the engine's adjudication, and the option that selects it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cuttle_search.analysis import SearchError, analyse
from cuttle_search.engine import layout as L
from cuttle_search.engine.apply import apply_move
from cuttle_search.engine.movegen import generate_moves
from cuttle_search.engine.policies import (
    CUT_ROUNDS,
    ROLLOUT_GREEDY,
    ROLLOUT_GREEDY_CUT,
    adjudicate,
    material,
    rollout,
)
from cuttle_search.engine.rng import rng_below
from cuttle_search.engine.seats import same_side
from cuttle_search.engine.setup import deal
from cuttle_search.game.rules import get_ruleset

POS = Path(__file__).resolve().parent.parent / "positions"


def _dealt(rules: str, seed: int):
    r = get_ruleset(rules).to_array()
    s = np.zeros(L.STATE_SIZE, np.int64)
    deal(s, r, np.array([seed], np.uint64))
    return s, r


def test_adjudication_gives_the_game_to_the_side_of_the_best_standing():
    """Team: seat 1 with 19 points on the table stands best, so its team (1 and 3) wins."""
    s, r = _dealt("team", 3)
    for q in range(4):
        s[L.F_POINTS + q] = 0
        s[L.F_FACE + q] = 0
    nine, ten = 4 * L.RANK_NINE, 4 * L.RANK_TEN
    s[L.F_POINTS + 1] = (1 << nine) | (1 << ten)
    adjudicate(s, r)
    assert s[L.F_PHASE] == L.PH_OVER and s[L.F_STATUS] == L.ST_WIN and s[L.F_WINNER] == 1
    assert same_side(s, r, 3, s[L.F_WINNER]) and not same_side(s, r, 0, s[L.F_WINNER])


def test_adjudication_of_a_standing_shared_across_sides_is_a_stalemate():
    """Four seats of Multiplayer with nothing on the table and equal hands: every seat
    stands alike, so no side wins; partners sharing the best standing is still a win."""
    s, r = _dealt("multiplayer", 4)
    hands = [int(s[L.F_HAND + q]) for q in range(4)]
    for q in range(4):
        s[L.F_POINTS + q] = 0
        s[L.F_FACE + q] = 0
        s[L.F_HAND + q] = hands[0]
    adjudicate(s, r)
    assert s[L.F_PHASE] == L.PH_OVER and s[L.F_STATUS] == L.ST_STALEMATE_ACTIONS and s[L.F_WINNER] == -1
    t, rt = _dealt("team", 4)
    for q in range(4):
        t[L.F_POINTS + q] = 0
        t[L.F_FACE + q] = 0
        t[L.F_HAND + q] = hands[0] if q % 2 == 0 else 0  # seats 0 and 2, partners, stand best
    assert material(t, rt, 0) == material(t, rt, 2) > material(t, rt, 1)
    adjudicate(t, rt)
    assert t[L.F_STATUS] == L.ST_WIN and t[L.F_WINNER] == 0


@pytest.mark.parametrize("rules", ["cuttle-cards", "cutthroat", "team", "multiplayer"])
def test_the_cut_playout_is_the_greedy_playout_until_the_cut(rules):
    """From the same state (a deal, or some uniform moves later) and generator, the cut-off
    playout plays the greedy playout's moves: a game the greedy playout ends within
    ``CUT_ROUNDS`` rounds ends the same way
    (same state, same plies); a longer one stops at the first main decision of round
    ``CUT_ROUNDS + 1`` with the adjudicated result."""
    buf = np.zeros(L.MAX_MOVES, np.int64)
    scratch = np.zeros(L.STATE_SIZE, np.int64)
    finished = cut = 0
    for seed in range(80):
        s, r = _dealt(rules, 100 + seed)
        walk = np.array([seed], np.uint64)
        for _ in range(seed % 80):  # from the deal or later on: some games end before the cut
            if s[L.F_PHASE] == L.PH_OVER:
                break
            apply_move(s, r, buf[rng_below(walk, generate_moves(s, r, buf))])
        if s[L.F_PHASE] == L.PH_OVER:
            continue
        end = s[L.F_TURN_COUNT] + CUT_ROUNDS * s[L.F_NPLAYERS]
        full, short = s.copy(), s.copy()
        plies = rollout(full, r, np.array([seed], np.uint64), buf, ROLLOUT_GREEDY, scratch, -1)
        cut_plies = rollout(short, r, np.array([seed], np.uint64), buf, ROLLOUT_GREEDY_CUT, scratch, -1)
        assert short[L.F_PHASE] == L.PH_OVER
        if full[L.F_TURN_COUNT] < end:
            assert np.array_equal(full, short) and plies == cut_plies
            finished += 1
        else:
            assert short[L.F_TURN_COUNT] == end and cut_plies < plies
            judged = short.copy()
            judged[L.F_PHASE] = L.PH_MAIN
            adjudicate(judged, r)
            assert (short[L.F_STATUS], short[L.F_WINNER]) == (judged[L.F_STATUS], judged[L.F_WINNER])
            cut += 1
    assert cut >= 5 and finished >= 5


@pytest.mark.parametrize("rules", ["cuttle-cards", "team"])
def test_against_random_opponents_every_playout_runs_to_the_end(rules):
    """With a ``policy_side`` (the search's ``random`` opponent model) neither the cut-off nor
    the learned value stops a playout: the side plays the greedy policy, every seat of
    another side a uniform move, to the end of the game, the same moves for every policy of
    the greedy kind."""
    from cuttle_search.engine.policies import ROLLOUT_VALUE, policy_pick

    buf = np.zeros(L.MAX_MOVES, np.int64)
    scratch = np.zeros(L.STATE_SIZE, np.int64)
    for seed in range(12):
        s, r = _dealt(rules, 300 + seed)
        side = seed % 2
        walk, rng = s.copy(), np.array([seed], np.uint64)
        plies = 0
        while walk[L.F_PHASE] != L.PH_OVER:
            n = generate_moves(walk, r, buf)
            actor = walk[L.F_ACTOR]
            if actor != L.ACTOR_CHANCE and not same_side(walk, r, actor, side):
                m = buf[rng_below(rng, n)]
            else:
                m = policy_pick(walk, r, buf, n, rng, ROLLOUT_GREEDY, scratch)
            apply_move(walk, r, m)
            plies += 1
        for policy in (ROLLOUT_GREEDY, ROLLOUT_GREEDY_CUT, ROLLOUT_VALUE):
            played = s.copy()
            assert rollout(played, r, np.array([seed], np.uint64), buf, policy, scratch, side) == plies
            assert np.array_equal(played, walk), (rules, seed, policy)


def test_the_search_takes_the_cut_rollout_by_name_and_repeats_itself():
    """``rollout="greedy-cut"`` runs the search with cut-off playouts; the same seed gives
    the same result, and an unknown name is still refused by name."""
    a = analyse(POS / "team-opening-p0.json", iterations=3000, seed=5, rollout="greedy-cut")
    b = analyse(POS / "team-opening-p0.json", iterations=3000, seed=5, rollout="greedy-cut")
    assert a.deterministic_json() == b.deterministic_json()
    assert a.iterations == 3000
    with pytest.raises(SearchError, match="rollout"):
        analyse(POS / "team-opening-p0.json", iterations=100, seed=5, rollout="greedy-cut2")
