"""Progressive widening in the tree search: the greedy values it orders moves by, the tree
it grows, and the checks on its option."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cuttle_search.analysis.ismcts import Limit, SearchError, _Worker, run_search, search_viewer
from cuttle_search.engine import layout as L
from cuttle_search.engine.apply import apply_move
from cuttle_search.engine.movegen import generate_moves
from cuttle_search.engine.policies import (
    ROLLOUT_GREEDY,
    WIN_VALUE,
    apply_unopposed,
    first_win,
    greedy_values,
    material,
    material_balance,
)
from cuttle_search.engine.rng import rng_below
from cuttle_search.engine.seats import opponent, same_side
from cuttle_search.engine.setup import deal
from cuttle_search.game.position import Position
from cuttle_search.game.rules import get_ruleset
from cuttle_search.play.agent import AgentError
from cuttle_search.play.agents import make_agent

POS = Path(__file__).resolve().parent.parent / "positions"


def _slow_value(s, r, m) -> float:
    """What the greedy policy weighs a move at, found by applying it on a copy."""
    p = int(s[L.F_ACTOR])
    child = s.copy()
    apply_unopposed(child, r, m)
    if child[L.F_PHASE] == L.PH_OVER:
        if child[L.F_STATUS] == L.ST_WIN:
            return WIN_VALUE if same_side(s, r, p, child[L.F_WINNER]) else -1e17
        return 0.0
    if s[L.F_NPLAYERS] == 2:
        return material(child, r, p) - material(child, r, opponent(s, p))
    return material_balance(child, r, p)


def _greedy_decisions(rules: str, games: int, seed: int):
    """Every main or 7 decision with no win on the spot in ``games`` random games: yields
    (state, rules array, moves, their count, the greedy values, the generator), the
    state and generator as the game goes on (copy what must not move on)."""
    rs = get_ruleset(rules)
    s = np.zeros(L.STATE_SIZE, np.int64)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    values = np.zeros(L.MAX_MOVES, np.float64)
    scratch = np.zeros(L.STATE_SIZE, np.int64)
    rng = np.array([seed], np.uint64)
    for _ in range(games):
        r = rs.to_array()
        deal(s, r, rng)
        while s[L.F_PHASE] != L.PH_OVER:
            n = generate_moves(s, r, buf)
            if s[L.F_PHASE] in (L.PH_MAIN, L.PH_SEVEN) and first_win(s, r, s[L.F_ACTOR], buf, n) < 0:
                greedy_values(s, r, buf, n, values, scratch)
                yield s, r, buf, n, values, rng
            apply_move(s, r, buf[rng_below(rng, n)])


@pytest.mark.parametrize("rules", ["cuttle-cards", "classic", "cutthroat", "team", "multiplayer"])
def test_greedy_values_are_what_applying_each_move_scores(rules):
    """In every main or 7 decision of random games with no win on the spot, the value
    ``greedy_values`` gives each move is exactly what applying it on a copy scores."""
    checked = 0
    for s, r, buf, n, values, _ in _greedy_decisions(rules, 25, 17):
        for i in range(n):
            assert values[i] == _slow_value(s, r, buf[i]), (rules, int(buf[i]))
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("rules", ["cuttle-cards", "cutthroat", "team"])
def test_the_greedy_rollout_picks_a_move_greedy_values_rates_best(rules):
    """Where the greedy rollout does not play its uniform move (the generator's first draw
    decides), the move it picks is one ``greedy_values`` rates best: the tree and the
    rollout weigh moves alike."""
    from cuttle_search.engine.policies import GREEDY_EPSILON_QUARTERS, ROLLOUT_GREEDY, policy_pick

    scratch = np.zeros(L.STATE_SIZE, np.int64)
    checked = 0
    for s, r, buf, n, values, rng in _greedy_decisions(rules, 30, 23):
        if n > 1 and rng_below(rng.copy(), 4) >= GREEDY_EPSILON_QUARTERS:
            picked = policy_pick(s, r, buf, n, rng.copy(), ROLLOUT_GREEDY, scratch)
            best = max(values[:n])
            assert any(buf[i] == picked and values[i] >= best - 1e-9 for i in range(n)), (rules, int(picked))
            checked += 1
    assert checked > 200


def _children(w: _Worker, node: int) -> list[int]:
    return w.tree.children(node)  # (an indexed node's list starts in the pool)


def test_a_young_node_below_the_root_holds_only_the_greedy_favourite():
    """With nothing hidden and the solver off, a widening so slow that no node opens a
    second move grows a tree in which every main or 7 decision below the root has one
    child: the move ``greedy_values`` rates best (the earliest of equals). The root keeps
    every move."""
    pos = Position.load(POS / "opening-full.json")
    assert pos.hidden is None
    w = _Worker(seed=5, index=0, capacity=1 << 14, solver=False, widen=1e6)
    deal_ = (np.int64(0), np.int64(0), np.int64(0))
    w.run(pos.state.copy(), pos.rules_array, search_viewer(pos), deal_, 600, 0.7, ROLLOUT_GREEDY)
    r = pos.rules_array
    buf = np.zeros(L.MAX_MOVES, np.int64)
    values = np.zeros(L.MAX_MOVES, np.float64)
    scratch = np.zeros(L.STATE_SIZE, np.int64)
    assert len(_children(w, 0)) == len(pos.legal_codes())
    checked = 0
    stack = [(c, pos.state.copy()) for c in _children(w, 0)]
    while stack:
        node, parent_state = stack.pop()
        s = parent_state.copy()
        apply_move(s, r, w.tree.arrays["move"][node])
        kids = _children(w, node)
        if s[L.F_PHASE] in (L.PH_MAIN, L.PH_SEVEN) and kids:
            n = generate_moves(s, r, buf)
            if n > 1 and first_win(s, r, s[L.F_ACTOR], buf, n) < 0:
                greedy_values(s, r, buf, n, values, scratch)
                assert [int(w.tree.arrays["move"][k]) for k in kids] == [int(buf[int(np.argmax(values[:n]))])]
                checked += 1
        stack.extend((k, s) for k in kids)
    assert checked > 50


def test_widening_opens_more_moves_as_visits_grow():
    """The opponent's replies to the root's moves (the nodes two plies down): a widening
    too slow to open a second move keeps the fewest (one favourite a deal), a fast one more,
    and none the most (every legal reply)."""
    pos = Position.load(POS / "opening-p0.json")
    replies = {}
    for widen in (0.0, 1e6, 2.0):
        w = _Worker(seed=5, index=0, capacity=1 << 15, widen=widen)
        deal_ = (np.int64(pos.unknown_cards), np.int64(0), np.int64(0))
        w.run(pos.state.copy(), pos.rules_array, search_viewer(pos), deal_, 3000, 0.7, ROLLOUT_GREEDY)
        replies[widen] = sum(len(_children(w, c)) for c in _children(w, 0))
    assert replies[1e6] < replies[2.0] < replies[0.0]


@pytest.mark.parametrize("bad", [-1.0, float("nan"), 1e7, "4", True, 5e-324, 1e-4])
def test_a_bad_widening_is_refused_by_name(bad):
    pos = Position.load(POS / "opening-p0.json")
    with pytest.raises(SearchError, match="widen"):
        run_search(pos, Limit(100), widen=bad)


def test_minus_zero_is_off_and_reads_as_zero():
    pos = Position.load(POS / "opening-p0.json")
    result = run_search(pos, Limit(300), seed=2, widen=-0.0)
    assert result.to_json()["rootInfo"]["widen"] == 0.0 and str(result.widen) == "0.0"
    assert result.to_json()["moves"] == run_search(pos, Limit(300), seed=2, widen=0.0).to_json()["moves"]


def test_the_kernel_finishes_with_a_widening_whose_width_overflows():
    """A widening so small that visits / widen overflows to infinity opens every move (no
    narrowing at all), and the kernel runs its iterations (the checks above refuse such a
    value first; this is the kernel's own guard)."""
    pos = Position.load(POS / "opening-p0.json")
    deal_ = (np.int64(pos.unknown_cards), np.int64(0), np.int64(0))
    trees = []
    for widen in (5e-324, 0.0):
        w = _Worker(seed=8, index=0, capacity=1 << 14, widen=widen)
        assert w.run(pos.state.copy(), pos.rules_array, search_viewer(pos), deal_, 500, 0.7, ROLLOUT_GREEDY) == 500
        trees.append(w.tree.root_stats())
    assert trees[0] == trees[1]


@pytest.mark.parametrize("spec", ["ismcts:widen=-1", "ismcts:widen=5e-324", "ismcts:widen=nan", "ismcts:widen=2e6",
                                  "oracle:widen=-0.5"])
def test_the_agent_takes_widen_and_refuses_a_bad_one(spec):
    assert make_agent("ismcts:iterations=100,widen=4").widen == 4.0
    assert make_agent("pimc-solver:widen=0").widen == 0.0
    assert str(make_agent("ismcts:widen=-0").widen) == "0.0"
    with pytest.raises(AgentError, match="widen"):
        make_agent(spec)


def test_each_game_searches_with_its_own_default_widening():
    """With no widening named, a Cutthroat search widens on its own scale (1,000) and every
    other game on 4 (``limits.default_widen``): the API, the agents and the hint server
    all leave it to the search, and a widening named is the one used."""
    from cuttle_search.analysis import analyse
    from cuttle_search.analysis.calibration import applies
    from cuttle_search.analysis.limits import DEFAULT_WIDEN, default_widen
    from cuttle_search.hint import answer

    assert default_widen("cutthroat") == 1000.0 and DEFAULT_WIDEN == 4.0
    assert default_widen("cuttle-cards") == default_widen("team") == default_widen("multiplayer") == 4.0
    three = Position.load(POS / "cutthroat-opening-p0.json")
    two = Position.load(POS / "opening-p0.json")
    assert run_search(three, Limit(300), seed=3).widen == 1000.0
    assert run_search(two, Limit(300), seed=3).widen == 4.0
    named = run_search(three, Limit(300), seed=3, widen=4.0)
    assert named.widen == 4.0
    assert analyse(three, iterations=300, seed=3).to_json()["moves"] == \
        run_search(three, Limit(300), seed=3, widen=1000.0).to_json()["moves"]
    assert make_agent("ismcts:iterations=100").widen is None  # the game's, at each search
    reply = answer(json.dumps({"id": 1, "position": three.to_dict(), "iterations": 1500, "seed": 3}), {})
    visits = [(m["move"], m["visits"]) for m in reply["moveInfos"]]
    for widen, same in ((1000.0, True), (4.0, False)):
        want = run_search(three, Limit(1500), seed=3, widen=widen)
        assert (visits == [(m.move.text(), m.visits) for m in want.moves]) == same
    # the Cutthroat map holds for its own default only
    assert applies("cutthroat", "greedy", 0.7, "maxn", 10_000, 1000.0)
    assert not applies("cutthroat", "greedy", 0.7, "maxn", 10_000, 4.0)
    assert applies("cuttle-cards", "value", 0.7, "maxn", 10_000, 4.0)
    assert not applies("cuttle-cards", "value", 0.7, "maxn", 10_000, 1000.0)
