"""The learned value (engine/value.py): its shipped weights, its features, the outcome it
settles a playout with, and the ``value`` rollout that uses it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from cuttle_search.analysis import SearchError, analyse
from cuttle_search.cli import main
from cuttle_search.engine import layout as L
from cuttle_search.engine.apply import apply_move
from cuttle_search.engine.movegen import generate_moves
from cuttle_search.engine.policies import ROLLOUT_GREEDY, ROLLOUT_VALUE, policy_pick, rollout
from cuttle_search.engine.rng import rng_below
from cuttle_search.engine.setup import deal
from cuttle_search.engine.table import goal, points_total
from cuttle_search.engine.table import seat_returns
from cuttle_search.engine.value import (MAX_VALUE_FEATURES, TEAM_VALUE_FEATURES, VALUE_FEATURES, VALUE_ONE, feature_count,
                                       settle_by_value, value_features, value_holds, value_holds_for, win_chance)
from cuttle_search.game.rules import get_ruleset
from cuttle_search.play.agent import AgentError
from cuttle_search.play.agents import make_agent

ROOT = Path(__file__).resolve().parent.parent
POS = ROOT / "positions"


def _walked(rules: str, seed: int, plies: int):
    """A deal of ``rules`` and up to ``plies`` uniform moves of the generator ``seed``."""
    r = get_ruleset(rules).to_array()
    s = np.zeros(L.STATE_SIZE, np.int64)
    deal(s, r, np.array([seed], np.uint64))
    buf = np.zeros(L.MAX_MOVES, np.int64)
    walk = np.array([seed], np.uint64)
    for _ in range(plies):
        if s[L.F_PHASE] == L.PH_OVER:
            break
        apply_move(s, r, buf[rng_below(walk, generate_moves(s, r, buf))])
    return s, r


# Recorded with the shipped weights (value_weights.py): a deal of cuttle-cards, 12 uniform
# moves of the same seed, and the chance that the seat then to act wins.
RECORDED = {1: 0.6626100192258774, 2: 0.1918355780926749, 3: 0.9308967789215953, 4: 0.30814026459260524}


# The same with the shipped Team weights (value_team_weights.py): a deal of team, 12 uniform
# moves, the chance that the side of the seat then to act wins.
RECORDED_TEAM = {1: 0.45396239395507815, 2: 0.5631976594023084, 3: 0.2687517156239679, 4: 0.5213723232728349}


@pytest.mark.parametrize("rules, seed", [("cuttle-cards", k) for k in sorted(RECORDED)]
                         + [("team", k) for k in sorted(RECORDED_TEAM)])
def test_the_shipped_weights_give_the_recorded_values(rules, seed):
    s, r = _walked(rules, seed, 12)
    scratch = np.zeros(L.STATE_SIZE, np.int64)
    recorded = (RECORDED if rules == "cuttle-cards" else RECORDED_TEAM)[seed]
    assert win_chance(s, r, s[L.F_ACTOR], scratch) == pytest.approx(recorded, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("rules, seats", [("cuttle-cards", 2), ("team", 4)])
def test_the_features_are_the_states_counts(rules, seats):
    """Each seat's distance to its goal, its table and hand counts in turn order from the
    seat to act, then the deck, in fixed point."""
    s, r = _walked(rules, 9, 30)
    p = int(s[L.F_ACTOR])
    out = np.full(L.STATE_SIZE, -7, np.int64)
    value_features(s, r, p, out)
    width = feature_count(seats)
    assert width == (VALUE_FEATURES if seats == 2 else TEAM_VALUE_FEATURES) <= MAX_VALUE_FEATURES
    assert np.all(out[width:] == -7)  # nothing written past the features
    f = out[:width] / VALUE_ONE
    assert f[0] == 1.0
    for i, q in enumerate((p + k) % seats for k in range(seats)):
        k = 1 + 21 * i
        gap = max(int(goal(s, r, q)) - int(points_total(s, q)), 0)
        assert f[k] == pytest.approx(gap / 21.0, abs=1e-6)
        assert f[k + 1] == pytest.approx(np.log1p(gap), abs=1e-6)
        assert (f[k + 2], f[k + 3]) == (float(gap <= 5), float(gap <= 10))
        face, hand = int(s[L.F_FACE + q]), int(s[L.F_HAND + q])
        assert f[k + 4] == bin(face & L.KINGS).count("1")
        assert f[k + 5] == bin(face & L.QUEENS).count("1")
        assert f[k + 6] == bin(face & L.EIGHTS).count("1")
        assert f[k + 7] == bin(hand).count("1")
        ranks = [sum(1 for c in range(52) if hand >> c & 1 and c >> 2 == rank) for rank in range(13)]
        assert list(f[k + 8:k + 21]) == ranks
    assert f[-1] == pytest.approx(s[L.F_DECK_N] / 52.0, abs=1e-6)


@pytest.mark.parametrize("rules", ["cuttle-cards", "team"])
def test_a_settled_game_scores_the_learned_chance_on_average(rules):
    """Over many settlings of one state, the seat's mean share (a win of its side 1, a
    stalemate 1/2) is its learned chance; the side behind never wins."""
    s, r = _walked(rules, 3, 20)
    p = int(s[L.F_ACTOR])
    returns = np.zeros(8)
    scratch = np.zeros(L.STATE_SIZE, np.int64)
    v = win_chance(s, r, p, scratch)
    rng = np.array([77], np.uint64)
    total, n = 0.0, 20_000
    for _ in range(n):
        t = s.copy()
        settle_by_value(t, r, p, rng, scratch)
        assert t[L.F_PHASE] == L.PH_OVER
        if t[L.F_STATUS] == L.ST_WIN:
            assert (t[L.F_WINNER] == p) == (v > 0.5)
            if t[L.F_WINNER] != p:  # the winner is the next seat, on the other side
                assert t[L.F_WINNER] == (p + 1) % t[L.F_NPLAYERS]
        else:
            assert t[L.F_STATUS] == L.ST_STALEMATE_ACTIONS and t[L.F_WINNER] == -1
        seat_returns(t, r, returns)
        total += (returns[p] + 1) / 2
    assert total / n == pytest.approx(v, abs=0.01)


@pytest.mark.parametrize("rules", ["cuttle-cards", "team"])
def test_the_value_playout_is_greedy_up_to_the_next_main_decision(rules):
    """From a main decision it settles at once; from any other decision it plays the
    greedy playout's moves to the next main decision and settles there."""
    buf = np.zeros(L.MAX_MOVES, np.int64)
    scratch = np.zeros(L.STATE_SIZE, np.int64)
    at_main = elsewhere = 0
    for seed in range(200):
        s, r = _walked(rules, 500 + seed, seed % 40)
        if s[L.F_PHASE] == L.PH_OVER:
            continue
        short = s.copy()
        plies = rollout(short, r, np.array([seed], np.uint64), buf, ROLLOUT_VALUE, scratch, -1)
        assert short[L.F_PHASE] == L.PH_OVER
        if s[L.F_PHASE] == L.PH_MAIN:
            assert plies == 0
            at_main += 1
            continue
        elsewhere += 1
        walk, rng = s.copy(), np.array([seed], np.uint64)  # the greedy playout, move by move
        while walk[L.F_PHASE] not in (L.PH_MAIN, L.PH_OVER):
            n = generate_moves(walk, r, buf)
            apply_move(walk, r, policy_pick(walk, r, buf, n, rng, ROLLOUT_GREEDY, scratch))
            plies -= 1
        assert plies == 0
        if walk[L.F_PHASE] == L.PH_OVER:  # the game ended on the way: the same end
            assert np.array_equal(walk, short)
        else:  # settled at that main decision by the same generator
            settle_by_value(walk, r, walk[L.F_ACTOR], rng, scratch)
            assert np.array_equal(walk, short)
    assert at_main >= 20 and elsewhere >= 20


@pytest.mark.parametrize("rules", ["cutthroat", "multiplayer:players=4"])
def test_without_a_network_the_engine_plays_the_greedy_playout(rules):
    s, r = _walked(rules, 4, 10)
    assert not value_holds(s, r) and value_holds_for(2, 0) and value_holds_for(4, 2) and not value_holds_for(4, 0)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    scratch = np.zeros(L.STATE_SIZE, np.int64)
    a, b = s.copy(), s.copy()
    pa = rollout(a, r, np.array([3], np.uint64), buf, ROLLOUT_VALUE, scratch, -1)
    pb = rollout(b, r, np.array([3], np.uint64), buf, ROLLOUT_GREEDY, scratch, -1)
    assert pa == pb and np.array_equal(a, b)


def test_the_search_takes_the_value_rollout_by_name_where_it_has_a_network():
    a = analyse(POS / "opening-p0.json", iterations=2000, seed=5, rollout="value")
    b = analyse(POS / "opening-p0.json", iterations=2000, seed=5, rollout="value")
    assert a.deterministic_json() == b.deterministic_json()
    assert a.iterations == 2000 and 0.0 < a.moves[0].score < 1.0
    # settled playouts end in stalemates often; full greedy playouts of this deal never do
    greedy = analyse(POS / "opening-p0.json", iterations=2000, seed=5, rollout="greedy")
    assert a.moves[0].draws > 0.2 * a.moves[0].visits and greedy.moves[0].draws == 0
    # so the value's search reports the score alone, greedy rollouts the rates too
    assert (a.moves[0].win_rate, a.moves[0].draw_rate, a.moves[0].seat_win_rates) == (None, None, None)
    assert greedy.moves[0].win_rate == pytest.approx(greedy.moves[0].score) and greedy.moves[0].draw_rate == 0.0
    j = a.to_json()["moves"][0]
    assert j["winrate"] is None and j["drawrate"] is None and "seatWinrates" not in j
    team = analyse(POS / "team-opening-p0.json", iterations=2000, seed=5, rollout="value")
    assert team.rollout == "value" and team.moves[0].win_rate is None and 0.0 < team.moves[0].score < 1.0
    assert team.moves[0].draws > 0.2 * team.moves[0].visits  # settled playouts
    with pytest.raises(SearchError, match=re.escape("rollout: 'value' is learned for two seats and for Team, "
                                                    "not for cutthroat (3 seats)")):
        analyse(POS / "cutthroat-opening-p0.json", iterations=100, seed=5, rollout="value")


def test_the_text_table_shows_no_rates_for_value_rollouts_and_says_why():
    done = CliRunner().invoke(main, ["analyse", str(POS / "opening-p0.json"), "-n", "500"])
    assert done.exit_code == 0, done.output
    assert "value rollouts estimate the score, not the win and draw rates apart" in done.output
    first = next(line for line in done.output.splitlines() if line.startswith("1  "))
    assert re.match(r"1  \S.* [\d,]+  0\.\d{3} +- +-  0\.\d{3}-0\.\d{3} ", first), first
    greedy = CliRunner().invoke(main, ["analyse", str(POS / "opening-p0.json"), "-n", "500", "--rollout", "greedy"])
    assert "estimate the score" not in greedy.output and "greedy rollouts" in greedy.output


def test_the_cli_refuses_the_value_rollout_without_a_network_in_one_line():
    done = CliRunner().invoke(main, ["analyse", str(POS / "cutthroat-opening-p0.json"), "-n", "100",
                                     "--rollout", "value"])
    assert done.exit_code == 2 and "Traceback" not in done.output
    assert done.output.strip() == ("Error: rollout: 'value' is learned for two seats and for Team, "
                                   "not for cutthroat (3 seats)")


def _train(out: Path, *extra: str) -> str:
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "train_value.py"), "--games", "300",
                    "--epochs", "1", "--out", str(out), *extra], check=True, capture_output=True)
    return out.read_text()


def test_the_training_script_repeats_itself(tmp_path):
    """The same arguments write the same weights (a small run of the first stage)."""
    a = _train(tmp_path / "a.py", "--search-games", "0")
    assert a == _train(tmp_path / "b.py", "--search-games", "0") and "W1 = np.array(" in a
    team = _train(tmp_path / "team.py", "--rules", "team", "--search-games", "0")
    assert team == _train(tmp_path / "team2.py", "--rules", "team", "--search-games", "0")
    assert "--rules team --games 300" in team and f".reshape(({TEAM_VALUE_FEATURES}, 32))" in team


def test_the_search_self_play_repeats_itself_and_labels_each_main_decision():
    """The second stage's data: the same block gives the same decisions, each with a share."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from value_search_play import play_block
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    X, y = play_block(5, 3, 2, 60)
    X2, y2 = play_block(5, 3, 2, 60)
    assert np.array_equal(X, X2) and np.array_equal(y, y2)
    assert X.shape == (len(y), VALUE_FEATURES) and len(y) > 10
    assert set(np.unique(y)) <= {0.0, 0.5, 1.0} and np.all(X[:, 0] == 1.0)


@pytest.mark.slow
def test_the_two_stage_training_repeats_itself(tmp_path):
    """Both stages, small: the search games run on a copy of the package with the first
    stage's weights, in worker processes, and give the same weights twice."""
    extra = ("--search-games", "3", "--iterations", "40", "--search-epochs", "1", "--workers", "1")
    a = _train(tmp_path / "a.py", *extra)
    assert a == _train(tmp_path / "b.py", *extra) and "--search-games 3" in a and "--search-rounds" not in a
    assert a != _train(tmp_path / "c.py", "--search-games", "0")
    two = _train(tmp_path / "d.py", *extra, "--search-rounds", "2")  # a second round, with a's network
    assert "--search-rounds 2" in two and two.split('"""')[2] != a.split('"""')[2]
    team = _train(tmp_path / "t.py", "--rules", "team", *extra)  # Team's search games, on its own network
    assert team == _train(tmp_path / "t2.py", "--rules", "team", *extra) and "--search-games 3" in team


@pytest.mark.parametrize("spec", ["ismcts:iterations=100,rollout=value", "pimc:iterations=100,rollout=value"])
def test_agents_with_the_value_rollout_refuse_games_without_a_network_by_name(spec):
    agent = make_agent(spec)
    agent.check_game(get_ruleset("cuttle-cards"))
    agent.check_game(get_ruleset("team"))
    for rules, seats in (("cutthroat", 3), ("multiplayer:players=4", 4)):
        with pytest.raises(AgentError, match=re.escape(f"rollout 'value' is learned for two seats and for Team, "
                                                       f"not for {rules} ({seats} seats)")):
            agent.check_game(get_ruleset(rules))
