"""The exact solver: agreement with a plain minimax and, where lines cycle, with a retrograde
analysis; its bound, twin moves and repetitions; hand-made scenarios, budgets, refusals, the
solve command and the analyser's use of it."""

import json
import re
from pathlib import Path

import numpy as np
import pytest

from cuttle_search.engine import layout as L
from cuttle_search.engine import solver as V
from cuttle_search.engine.movegen import generate_moves
from cuttle_search.game.position import Position
from cuttle_search.game.rules import get_ruleset
from cuttle_search.analysis import SearchError
from cuttle_search.analysis.solve import is_single_state, solve

from .helpers import build
from .minimax import Minimax, Retrograde, _seat, expected_answer, random_deck_out
from .test_properties import ALL_RULES

CI_POSITIONS = 100
SLOW_POSITIONS = 1000


def _positions(count: int, max_hand: int = 3, states: int = 20_000):
    """``count`` random deck-out positions, the rulesets in turn (every two-seat one), each
    with the reference's root values. Every other position, and every one where 3s can take
    3s back (a line can then cycle to the cap), starts near the action cap, so the plain
    reference finishes. Seeds where the game ends first or the reference needs more than
    ``states`` states are passed over, deterministically."""
    seed = 0
    out = []
    while len(out) < count:
        spec = ALL_RULES[len(out) % len(ALL_RULES)]
        for _ in range(500):
            seed += 1
            near = seed % 2 == 1 or get_ruleset(spec).three_takes_three
            pos = random_deck_out(spec, seed, max_hand=max_hand, near_cap=near)
            if pos is None:
                continue
            try:
                ref = Minimax(pos.rules_array, limit=states).root_values(pos.state)
            except RuntimeError:
                continue
            out.append((pos, ref))
            break
        else:
            raise AssertionError(f"no deck-out position of {spec} in 500 seeds")
    return out


def _agree(pos, res, ref):
    """Every root move: the value, score and plies the reference's values imply."""
    assert res.proven
    assert sorted(m.move.code() for m in res.moves) == sorted(ref)
    for m in res.moves:
        value, score, plies = expected_answer(pos, *ref[m.move.code()])
        assert m.value == value, (m.move.text(), pos.to_json())
        if value != "draw":  # a draw has no tie-break: its plies are only the length of the line shown
            assert m.plies == plies, (m.move.text(), pos.to_json())
        assert m.score == pytest.approx(score, abs=1e-12)


def _check_agreement(cases):
    for pos, ref in cases:
        _agree(pos, solve(pos, tt_bits=16), ref)


def _coverage(cases):
    phases = {pos.phase_name for pos, _ in cases}
    passes = {int(pos.state[L.F_PASSES]) for pos, _ in cases}
    rules = {pos.rules.spec for pos, _ in cases}
    near_cap = sum(int(pos.rules_array[L.R_ACTION_LIMIT]) - int(pos.state[L.F_ACTIONS]) < 30 for pos, _ in cases)
    return phases, passes, rules, near_cap


def test_solver_agrees_with_plain_minimax_on_random_deck_outs():
    cases = _positions(CI_POSITIONS)
    phases, passes, rules, near_cap = _coverage(cases)
    assert {"main", "countering"} <= phases
    assert {0, 1, 2} <= passes
    assert len(rules) == len(ALL_RULES)
    assert near_cap >= CI_POSITIONS // 3
    _check_agreement(cases)


@pytest.mark.slow
def test_solver_agrees_with_plain_minimax_on_many_deck_outs():
    cases = _positions(SLOW_POSITIONS, max_hand=4)
    phases, passes, _rules, _near = _coverage(cases)
    assert {"main", "countering", "resolvingThree"} <= phases and {0, 1, 2} <= passes
    _check_agreement(cases)


# ---------------------------------------------------------------- cycles, the bound, twins
CYCLE_RULES = ("classic", "cuttle-cards:three-takes-three", "bga-traditional:three-takes-three",
               "cuttle-cards-2:three-takes-three")


def _cycling_positions(count: int, max_hand: int, states: int = 20_000):
    """``count`` random deck-out positions of rulesets where a 3 takes a 3 back, far from the
    action cap, whose positions can come back (a cycle in the game graph), each with the
    retrograde analysis's root values; deterministic."""
    out = []
    seed = 0
    while len(out) < count:
        seed += 1
        spec = CYCLE_RULES[seed % len(CYCLE_RULES)]
        pos = random_deck_out(spec, seed, max_hand=max_hand)
        if pos is None:
            continue
        ref = Retrograde(pos.rules_array, limit=states)
        try:
            values = ref.root_values(pos.state)
        except RuntimeError:
            continue
        if ref.cyclic:
            out.append((pos, values))
    return out


def test_solver_agrees_with_retrograde_analysis_where_lines_cycle():
    # far from the cap, where the plain minimax would follow every 3-for-3 cycle to it
    cases = _cycling_positions(20, max_hand=3)  # (150 with -m slow)
    assert min(int(p.rules_array[L.R_ACTION_LIMIT]) - int(p.state[L.F_ACTIONS]) for p, _ in cases) > 500
    assert len({p.rules.spec for p, _ in cases}) == len(CYCLE_RULES)
    _check_agreement(cases)


@pytest.mark.slow
def test_solver_agrees_with_retrograde_analysis_on_many_cycling_positions():
    _check_agreement(_cycling_positions(150, max_hand=4, states=30_000))


@pytest.mark.parametrize("seed", [20261232, 20261292, 20261302, 20261372])
def test_classic_benchmark_endgames_that_cycled_to_the_cap_are_solved(seed):
    # seeds of benchmarks/solve.py that the solver without repetition draws left unproven
    # after 10 s (30 million nodes): now a few thousand nodes, every move as the retrograde
    # analysis says
    pos = random_deck_out("classic", seed, max_hand=5)
    res = solve(pos, nodes=200_000)
    _agree(pos, res, Retrograde(pos.rules_array, limit=300_000).root_values(pos.state))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [20261177, 20261297])
def test_more_classic_benchmark_endgames_that_cycled_to_the_cap(seed):
    pos = random_deck_out("classic", seed, max_hand=5)
    res = solve(pos, nodes=500_000)
    _agree(pos, res, Retrograde(pos.rules_array, limit=300_000).root_values(pos.state))


@pytest.mark.parametrize("actions,values", [
    (996, {"points 9H": ("win", 3), "points 2H": ("win", 3), "pass": ("draw", None)}),
    (997, {"points 9H": ("win", 3), "points 2H": ("win", 3), "pass": ("draw", None)}),
    (998, {"points 9H": ("draw", None), "points 2H": ("draw", None), "pass": ("draw", None)}),
])
def test_a_win_that_needs_more_actions_than_are_left_is_a_draw(actions, values):
    # p0 needs two plays (10 + 9 + 2 = 21) around p1's forced pass: a win in 3 plies, which
    # the 1,000-action cap allows from 997 actions but not from 998
    pos = build(p0Points=["TC"], p0Hand=["9H", "2H"], rest="scrap", actions=actions)
    res = solve(pos)
    got = {m.move.text(): (m.value, m.plies if m.value != "draw" else None) for m in res.moves}
    assert got == values
    _agrees_with_minimax(pos, res)


def test_cannot_win_counts_what_a_seat_can_ever_gain():
    # p0 has 9 points and one 3: one card back from the scrap (a ten: 19; a King: a goal of
    # 14) cannot reach a goal, so p0 can never win; with a second 3 it can (9 + 10 + 10)
    one = build(p0Points=["9C"], p0Hand=["3C"], p1Hand=["4D"], rest="scrap")
    two = build(p0Points=["9C"], p0Hand=["3C", "3D"], p1Hand=["4D"], rest="scrap")
    r = one.rules_array
    assert V.passive_applies(one.state, r)
    assert V.cannot_win(one.state, r, 0) and V.cannot_win(one.state, r, 1)
    assert not V.cannot_win(two.state, r, 0) and V.cannot_win(two.state, r, 1)
    assert _values(solve(one)) == {m.text(): "draw" for m in one.legal_moves()}
    assert solve(one).nodes < 100  # the bound settles every move at once
    _agrees_with_minimax(two, solve(two))


def _reachable(count: int, max_hand: int, seed0: int = 0):
    """Every state the plain minimax reaches from ``count`` random deck-out positions (the
    rulesets in turn, far from the cap where lines cannot cycle), with its values."""
    seed = seed0
    done = 0
    while done < count:
        seed += 1
        spec = ALL_RULES[seed % len(ALL_RULES)]
        if get_ruleset(spec).three_takes_three:
            continue
        pos = random_deck_out(spec, seed, max_hand=max_hand)
        if pos is None:
            continue
        mm = Minimax(pos.rules_array, limit=20_000)
        try:
            mm.root_values(pos.state)
        except RuntimeError:
            continue
        done += 1
        for key, (wdl, _tb) in mm.memo.items():
            yield pos, np.frombuffer(key, dtype=np.int64).copy(), wdl, mm


def _check_bound(count, max_hand, seed0=0):
    checked = fired = 0
    for pos, s, wdl, _mm in _reachable(count, max_hand, seed0):
        r = pos.rules_array
        if not V.passive_applies(s, r):
            continue
        for x in (0, 1):
            checked += 1
            if V.cannot_win(s, r, x):
                fired += 1
                assert (wdl if x == _seat(s) else -wdl) <= 0, (pos.name, x, s.tolist())
    return checked, fired


def test_cannot_win_never_says_so_of_a_seat_that_can_win():
    # over every state reachable from random deck-outs: the reference's value agrees
    checked, fired = _check_bound(60, max_hand=3)
    assert checked > 20_000 and fired > checked // 2


@pytest.mark.slow
def test_cannot_win_on_many_reachable_states():
    checked, fired = _check_bound(500, max_hand=4, seed0=10_000)
    assert fired > checked // 2


def _check_twins(count, max_hand, seed0=0):
    dropped = 0
    buf = np.zeros(L.MAX_MOVES, dtype=np.int64)
    for pos, s, _wdl, mm in _reachable(count, max_hand, seed0):
        r = pos.rules_array
        if int(s[L.F_ACTOR]) == L.ACTOR_CHANCE:
            continue
        n = generate_moves(s, r, buf)
        every = [int(m) for m in buf[:n]]
        kept = {int(m) for m in buf[: V.drop_twins(s, r, buf, n)]}
        assert kept <= set(every)
        seat = _seat(s)
        kept_values = {mm.child_value(s, m, seat) for m in kept}
        for m in every:
            if m not in kept:
                dropped += 1
                assert mm.child_value(s, m, seat) in kept_values, (pos.name, m, s.tolist())
    return dropped


def test_dropped_twin_moves_have_the_value_of_a_kept_one():
    assert _check_twins(60, max_hand=3) > 100


@pytest.mark.slow
def test_dropped_twin_moves_on_many_reachable_states():
    assert _check_twins(400, max_hand=4, seed0=20_000) > 1000


# ---------------------------------------------------------------- scenarios
def _values(res):
    return {m.move.text(): m.value for m in res.moves}


def _agrees_with_minimax(pos, res):
    _agree(pos, res, Minimax(pos.rules_array).root_values(pos.state))


def test_a_king_that_wins_at_once():
    pos = build(p0Hand=["KS", "3C"], p0Points=["TC", "9C"], p1Hand=["TS"], p1Points=["TD"], rest="scrap")
    res = solve(pos)
    best = res.moves[0]
    assert best.move.text() == "royal KS" and best.value == "win" and best.plies == 1
    assert res.value == "win" and res.proven
    assert [m.text() for m in best.pv] == ["royal KS"]
    _agrees_with_minimax(pos, res)


def test_pass_pass_pass_draws():
    pos = build(p0Points=["TC"], p1Points=["TD"], rest="scrap")
    res = solve(pos)
    assert _values(res) == {"pass": "draw"}
    assert res.moves[0].plies == 3 and [m.text() for m in res.moves[0].pv] == ["pass"] * 3
    two = build(p0Points=["TC"], p1Points=["TD"], rest="scrap", passes=2)
    res = solve(two)
    assert res.moves[0].value == "draw" and res.moves[0].plies == 1


def test_a_countered_ace_that_keeps_a_win():
    # p1 countered p0's Ace with 2D; re-countering with 2C wipes p1's 20 points for good
    pos = build(
        phase="countering", oneOff="AS", twos=["2D"], p0Hand=["2C", "TS", "8S", "3S"],
        p1Hand=["7D"], p1Points=["TD", "TH"], rest="scrap",
    )
    assert pos.actor == 0
    res = solve(pos)
    assert _values(res) == {"counter 2C": "win", "resolve": "loss"}
    assert res.moves[0].move.text() == "counter 2C"
    _agrees_with_minimax(pos, res)


def test_a_queen_forbids_the_counter():
    fields = dict(p0Hand=["AS", "TS", "8S", "3S"], p1Hand=["2D", "7D"], p1Points=["TD", "TH"], rest="scrap")
    with_queen = build(p0FaceCards=["QS"], **fields)
    res = solve(with_queen)
    assert _values(res)["one-off AS"] == "win"
    without = build(**fields)
    assert _values(solve(without))["one-off AS"] == "loss"  # p1 counters, then plays 7D
    # and after the Ace, p1's only move is to let it resolve
    with_queen.play("one-off AS")
    res = solve(with_queen)
    assert [m.move.text() for m in res.moves] == ["resolve"] and res.moves[0].value == "loss"


def test_a_frozen_card_cannot_be_played():
    fields = dict(p0Hand=["TH"], p0Points=["9C", "2C"], p1Hand=["2D"], p1Points=["TD", "9D"], rest="scrap")
    frozen = build(frozen="TH", turn=2, **fields)  # (a card frozen in p1's turn: not the game's first)
    res = solve(frozen)
    assert _values(res) == {"pass": "loss"}  # TH would reach 21 but is frozen; p1 plays 2D
    assert res.moves[0].plies == 2
    assert _values(solve(build(**fields)))["points TH"] == "win"


def test_the_three_must_pick_one_exact_card():
    # p0 has 11 points and needs 10 more: only TS (the one ten in the scrap) wins; p1's jacks
    # cannot pass p0's Queen, so p1 can only pass
    pos = build(
        phase="resolvingThree", oneOff="3C", p0Points=["TC", "AC"], p0FaceCards=["QC"],
        p1Hand=["JC", "JD", "JH", "JS"], p1Points=["TD", "TH"], rest="scrap",
    )
    res = solve(pos)
    values = _values(res)
    assert len(values) >= 30
    assert [t for t, v in values.items() if v == "win"] == ["take TS"]
    assert set(values.values()) == {"win", "draw"}
    assert res.moves[0].move.text() == "take TS" and res.moves[0].plies == 3
    _agrees_with_minimax(pos, res)


def test_shipped_deck_out_endgame():
    res = solve("positions/deck-out-endgame.json")
    assert res.proven and res.value == "win"
    assert all(m.plies == 1 for m in res.moves if m.value == "win")
    assert {m.value for m in res.moves} == {"win", "draw", "loss"}


def test_every_line_shown_is_legal_and_ends_as_its_value_says():
    """The principal lines, a draw's included (it follows the table's lower bounds of 0 and
    the forced moves the search plays through): every move legal, and a line that reaches
    the end finishes a win or a loss in its plies, a draw with no winner."""
    ended = {"win": 0, "loss": 0, "draw": 0}
    for seed in range(1, 121):
        pos = random_deck_out(ALL_RULES[seed % len(ALL_RULES)], seed, max_hand=4)
        if pos is None:
            continue
        for m in solve(pos, nodes=200_000).moves:
            line = pos.copy()
            for move in m.pv:
                line.play(move)
            if line.is_over and m.value in ended and (m.plies is not None or m.value == "draw"):  # (a budget)
                ended[m.value] += 1
                assert m.plies == len(m.pv), (m.move.text(), pos.to_json())
                won = int(line.state[L.F_STATUS]) == L.ST_WIN
                assert won == (m.value != "draw"), (m.move.text(), pos.to_json())
                if won:
                    assert (int(line.state[L.F_WINNER]) == pos.actor) == (m.value == "win")
    assert min(ended.values()) >= 10, ended


# ---------------------------------------------------------------- budgets, refusals, chance
def _budget_position():
    """A deck-out endgame that takes the solver tens of thousands of nodes (2 wins and 5
    losses among its 10 moves; a 1,024-node budget proves some of them), for the budget
    tests."""
    return random_deck_out("cuttle-cards", 45, max_hand=5)


def test_a_node_budget_leaves_moves_unproven():
    pos = _budget_position()
    full = solve(pos)
    assert full.proven and full.nodes > 3000
    cut = solve(pos, nodes=1024)
    assert not cut.proven and cut.value is None
    assert cut.nodes < full.nodes
    unproven = [m for m in cut.moves if not m.proven]
    assert unproven and all(m.value is None and m.score is None for m in unproven)
    exact = {m.move.code(): (m.value, m.plies) for m in full.moves}
    for m in cut.moves:
        if m.proven:  # what was proven before the budget ran out is exact
            assert m.value == exact[m.move.code()][0]
            assert m.plies in (None, exact[m.move.code()][1])
    # proven moves rank above the unproven ones
    assert [m.proven for m in cut.moves] == sorted((m.proven for m in cut.moves), reverse=True)


@pytest.mark.slow  # wall clock: test_the_stop_reason_says_what_ended_the_solve checks the time budget by default
def test_a_time_budget_stops_the_search():
    pos = _budget_position()
    res = solve(pos, time=1e-4)
    assert res.seconds < 0.5


def test_the_stop_reason_says_what_ended_the_solve():
    pos = _budget_position()
    assert solve(pos).stop_reason == "complete"
    assert solve(pos, nodes=1024).stop_reason == "nodes"
    assert solve(pos, nodes=1024).to_json()["stopReason"] == "nodes"
    assert solve(_long_position(), time=0.05).stop_reason == "time"  # (the budget position may finish first)


def _long_position():
    """A deck-out endgame that takes the solver about 77 million nodes (20 s or more):
    every move a draw or a loss, a 9 that puts a card back on the deck, three 3s in hands."""
    pos = random_deck_out("cuttle-cards-2", 20261209, max_hand=5)
    solve(pos, nodes=1024)  # kernels loaded before any timer starts
    return pos


def _interrupt_after(seconds):
    import _thread
    import threading

    timer = threading.Timer(seconds, _thread.interrupt_main)
    timer.start()
    return timer


FULL_SOLVE_NODES = 77_000_000  # what the long position takes to solve (see _long_position)


@pytest.fixture
def ctrl_c_during_the_search(monkeypatch):
    """Press Ctrl-C half a second after the solver's search has started (not while the
    command still loads: under load that can take longer than any fixed delay). Python's
    own Ctrl-C handler is put in place for the test: a shell starts a background job with
    Ctrl-C ignored, and then no simulated Ctrl-C would arrive."""
    import signal

    import cuttle_search.analysis.solve as S

    was = signal.signal(signal.SIGINT, signal.default_int_handler)
    monkeypatch.setattr(S, "watched", _with_ctrl_c_after_half_a_second(S.watched))
    yield
    signal.signal(signal.SIGINT, was)


def _with_ctrl_c_after_half_a_second(real):
    """``watched`` (the solver's wait for its worker thread) with a Ctrl-C half a second in."""
    def watched(*args, **kwargs):
        timer = _interrupt_after(0.5)
        try:
            return real(*args, **kwargs)
        finally:
            timer.cancel()

    return watched


def test_progress_is_reported_while_the_solver_runs(monkeypatch):
    import cuttle_search.analysis.solve_threads as T

    monkeypatch.setattr(T, "PROGRESS_EVERY", 0.01)  # reports even on a machine that runs 6 M nodes in a blink
    seen = []
    res = solve(_long_position(), nodes=6_000_000, progress=seen.append)
    assert res.stop_reason == "nodes" and not res.proven
    assert seen, "no progress report in 6 million nodes of search"
    assert [p.nodes for p in seen] == sorted(p.nodes for p in seen) and seen[-1].nodes <= res.nodes
    assert all(p.stage in ("win", "values", "plies") and 0 <= p.done <= p.total == len(res.moves) for p in seen)
    assert any(p.done > 0 for p in seen)  # the win tests of some moves are done within 6 M nodes


def test_ctrl_c_stops_the_solver_and_keeps_what_was_proven():
    at = []

    def ctrl_c_once_two_values_are_in(p):  # (the progress display is where an interrupt lands too)
        if p.stage == "values" and p.done >= 2:
            at.append(p.nodes)
            raise KeyboardInterrupt

    pos = _long_position()
    res = solve(pos, interruptible=True, progress=ctrl_c_once_two_values_are_in)
    # it stopped soon after the interrupt, counted in nodes (not seconds: the machine's load varies)
    assert at and res.nodes - at[0] < FULL_SOLVE_NODES // 4
    assert res.stop_reason == "interrupted" and not res.proven
    assert sum(m.proven for m in res.moves) >= 2 and any(not m.proven for m in res.moves)
    # what it proved before the interrupt is exact (the values of the full solve)
    losses = {"one-off 9S 5D", "one-off AH", "points 3S", "scuttle 3S 2H", "points AH", "one-off 9S 2H"}
    assert all(m.value == ("loss" if m.move.text() in losses else "draw") for m in res.moves if m.proven)


def test_ctrl_c_without_interruptible_is_raised_at_once(ctrl_c_during_the_search):
    import threading

    from cuttle_search.analysis.solve import Solver

    pos = _long_position()
    sv = Solver(pos)
    with pytest.raises(KeyboardInterrupt):
        solve(pos, progress=lambda p: None, solver=sv)
    # the search stopped long before the full solve's nodes (counted, not timed), and its thread is gone
    assert sv.ctl[V.CTL_NODES] < FULL_SOLVE_NODES // 4 and sv.ctl[V.CTL_STOP]
    assert not any(t.name == "cuttle-solve" and t.is_alive() for t in threading.enumerate())


def test_a_failing_progress_callback_stops_the_search_too():
    import threading

    def broken(p):
        raise ValueError("the display broke")

    with pytest.raises(ValueError, match="the display broke"):
        solve(_long_position(), progress=broken)
    assert not any(t.name == "cuttle-solve" and t.is_alive() for t in threading.enumerate())


def test_hidden_cards_are_refused_but_an_empty_deck_view_is_solved():
    with pytest.raises(SearchError, match=r"^view: p0's view hides cards"):
        solve("positions/opening-p0.json")
    full = Position.load("positions/deck-out-endgame.json")
    view = full.view_of(0)
    assert view.hidden is not None and is_single_state(view)
    a, b = solve(view), solve(full)
    assert [(m.move.code(), m.value, m.plies) for m in a.moves] == [(m.move.code(), m.value, m.plies) for m in b.moves]


@pytest.mark.parametrize("nodes,time,field", [(0, None, "nodes"), (None, -1.0, "time"), (1.5, None, "nodes")])
def test_bad_budgets_name_the_field(nodes, time, field):
    with pytest.raises(SearchError, match=f"^{field}: "):
        solve("positions/deck-out-endgame.json", nodes=nodes, time=time)


def test_chance_root_is_refused_and_chance_inside_is_an_expectation():
    pos = build("cuttle-cards:four=random", phase="resolvingFourRandom", p0Hand=["TS"], p1Hand=["2D", "9D", "TD"],
                p0Points=["9C", "2C"], rest="scrap")
    with pytest.raises(SearchError, match="^phase: "):
        solve(pos)
    # one step earlier p1 decides whether to let p0's 4 resolve: the outcomes are averaged
    pos = build("cuttle-cards:four=random", phase="countering", oneOff="4C", p0Hand=["TS"], p1Hand=["2D", "9D", "TD"],
                p0Points=["9C", "2C"], p1Points=["8D"], rest="scrap")
    res = solve(pos)
    _agrees_with_minimax(pos, res)
    assert res.proven


# ---------------------------------------------------------------- the CLI and the analyser
def _cli(*args):
    from click.testing import CliRunner

    from cuttle_search.cli import main

    return CliRunner().invoke(main, [str(a) for a in args])


def test_cli_solve_table_and_json():
    r = _cli("solve", "positions/deck-out-endgame.json")
    assert r.exit_code == 0, r.output
    assert "proven: win for p0" in r.output and "nodes/s" in r.output
    assert re.search(r"^ 1  \S+ \S+ \S+\s+win\s+1  ", r.output, re.M)
    j = json.loads(_cli("solve", "positions/deck-out-endgame.json", "--json").output)
    assert j["proven"] and j["value"] == "win" and j["nodes"] > 0 and j["nodesPerSecond"] > 0
    assert len(j["moves"]) == len(Position.load("positions/deck-out-endgame.json").legal_moves())
    first = j["moves"][0]
    assert first["value"] == "win" and first["plies"] == 1 and first["pv"] == [first["move"]]
    assert {m["value"] for m in j["moves"]} == {"win", "draw", "loss"}


def test_cli_solve_budget_says_not_proven(tmp_path):
    path = tmp_path / "endgame.json"
    _budget_position().save(path)
    j = json.loads(_cli("solve", path, "--nodes", "1024", "--json").output)
    assert j["proven"] is False and j["value"] is None and j["budget"]["nodes"] == 1024
    assert any(m["value"] is None for m in j["moves"])
    r = _cli("solve", path, "--nodes", "1024")
    assert "not proven" in r.output


def test_cli_solve_ctrl_c_prints_what_was_proven_and_exits_130(tmp_path, ctrl_c_during_the_search):
    path = tmp_path / "long.json"
    _long_position().save(path)
    r = _cli("solve", path)
    assert r.exit_code == 130, r.output
    assert "not proven: interrupted with" in r.output and "moves proven (shown above)" in r.output


def test_cli_solve_refuses_hidden_cards_in_one_line():
    r = _cli("solve", "positions/opening-p0.json")
    assert r.exit_code == 2
    assert r.output.strip().count("\n") == 0 and "hides cards" in r.output


def test_analyse_answers_a_deck_out_with_the_proof():
    from cuttle_search.analysis import analyse, best_move

    r = analyse("positions/deck-out-endgame.json", iterations=1000, seed=1)
    assert r.solver is not None and r.solver["proven"] and r.iterations == 0
    assert r.best.proven == "win" and r.best.plies == 1 and r.best.score == 1.0
    j = r.to_json()
    assert all(set(m) >= {"proven", "plies", "visits", "score", "pv"} for m in j["moves"])
    assert j["rootInfo"]["solver"]["value"] == "win"
    losses = [m for m in r.moves if m.proven == "loss"]
    assert losses and all(m.rank > 5 for m in losses)
    assert best_move("positions/deck-out-endgame.json", iterations=1000).to_json()["move"] == r.best.move.text()


def test_analyse_falls_back_to_the_tree_and_ranks_proven_moves():
    from cuttle_search.analysis import analyse

    pos = _budget_position()
    full = solve(pos)
    r = analyse(pos, iterations=20, seed=1)  # 800 nodes: the solver stops early
    assert r.solver is not None and not r.solver["proven"] and r.iterations == 20
    exact = {m.move.code(): m.value for m in full.moves}
    for m in r.moves:
        assert m.solved and m.proven in (None, exact[m.move.code()])
    groups = [{"win": 0, "draw": 1, None: 2, "loss": 3}[m.proven] for m in r.moves]
    assert groups == sorted(groups)
    assert [m.rank for m in r.moves] == list(range(1, len(r.moves) + 1))


def test_a_move_the_first_solve_proves_carries_its_exact_figures_whatever_its_visits():
    """Proven by the solver before the tree searched it much (or at all): its score is the
    proven value, its interval has no width, its rates say the value, and the gap to a
    proven win beside it is 0 (an unvisited proven win read 0.0 with the interval 0-1)."""
    from cuttle_search.analysis import analyse

    pos = Position.load(Path(__file__).parent / "data" / "deck-out-eight-each.json")
    r = analyse(pos, iterations=5000, seed=1, best_reply=True)
    exact = {"win": 1.0, "draw": 0.5, "loss": 0.0}
    proven = [m for m in r.moves if m.proven in exact]
    assert any(m.visits == 0 for m in proven) and any(m.proven == "win" for m in proven)
    for m in proven:
        assert m.score == exact[m.proven] and m.interval == (m.score, m.score)
        assert (m.win_rate, m.draw_rate) == {"win": (1.0, 0.0), "draw": (0.0, 1.0), "loss": (0.0, 0.0)}[m.proven]
        assert m.seat_scores[r.viewer] == m.score and sum(m.seat_scores) == 1.0 and m.best_reply_score is None
        if m.proven == "win":
            assert m.gap == 0.0


def test_analyse_keeps_its_keys_when_cards_are_hidden():
    from cuttle_search.analysis import analyse

    j = analyse("positions/win-in-one-p0.json", iterations=200, seed=1).to_json()
    assert "solver" not in j["rootInfo"] and all("proven" not in m for m in j["moves"])


def test_hint_protocol_reports_proven_moves():
    from cuttle_search.hint import answer

    data = json.loads(Path("positions/deck-out-endgame.json").read_text())
    out = answer(json.dumps({"id": 7, "position": data, "iterations": 500}), {})
    assert out["id"] == 7 and out["score"] == 1.0 and out["proven"] == "win" and out["plies"] == 1
    assert all("proven" in m for m in out["runnersUp"])


# ---------------------------------------------------------------- MCTS-Solver in the tree
def test_tree_solver_proves_a_win_on_the_spot_and_the_losses_around_it():
    from cuttle_search.analysis import analyse

    # full information with a long known deck (no exact solve first): only the King wins
    # now, and every other move lets p1's King win at once
    pos = build(
        p0Points=["TH", "4H"], p0Hand=["KD", "QS", "5D"], p1Points=["TC", "9H"], p1FaceCards=["QH"], p1Hand=["KC"],
        deck_top=["4C", "5C"],
    )
    r = analyse(pos, iterations=3000, seed=6)
    assert r.solver is None and r.iterations == 3000
    assert r.best.move.text() == "royal KD" and r.best.proven == "win" and r.best.score == 1.0
    assert r.best.visits > 0.9 * r.iterations  # a proven win takes every later visit
    assert all(m.visits < 50 and m.proven in (None, "loss") for m in r.moves[1:])
    assert r.best.to_json()["proven"] == "win"


def test_tree_solver_never_picks_a_proven_losing_move_again():
    from cuttle_search.analysis import analyse

    pos = build(
        p0Hand=["TS", "6D", "7H"], p0Points=["5C"], p1Points=["TH", "5D", "4S"], p1Hand=["KC"],
        deck_top=["8C", "QD", "9H", "9D"],
    )
    small = analyse(pos, iterations=2000, seed=3)
    big = analyse(pos, iterations=20000, seed=3)
    assert big.best.move.text() == "scuttle TS TH"
    lost = {m.move.code(): m.visits for m in small.moves if m.proven == "loss"}
    assert lost
    for m in big.moves:
        if m.move.code() in lost:  # proven by 2,000 iterations: no visit after that
            assert m.proven == "loss" and m.visits == lost[m.move.code()] and m.score == 0.0


def test_tree_solver_settles_a_node_whose_every_move_is_lost():
    """A node of the viewer's tree whose every legal move is proven lost is proven lost in
    turn (through its most visited move). The search once left such a node with no move
    chosen and went on from slot -1 (the arrays' last slot: a move that was never made,
    statistics written outside the tree); the last slot must stay untouched."""
    from cuttle_search.analysis.ismcts import _Worker, search_viewer
    from cuttle_search.engine.policies import ROLLOUT_GREEDY

    pos = Position.load(Path(__file__).parent.parent / "positions" / "bga-balanced-blocked.json")
    assert pos.unknown_cards == 0  # full information: the MCTS-Solver runs
    w = _Worker(seed=7, index=0, capacity=1 << 15)
    deal = (np.int64(0), np.int64(0), np.int64(0))
    w.run(pos.state.copy(), pos.rules_array, search_viewer(pos), deal, 3000, 0.7, ROLLOUT_GREEDY)
    a = w.tree.arrays
    assert w.tree.nodes < w.tree.capacity - 1
    assert a["visits"][-1] == 0 and a["move"][-1] == 0 and a["wins"][-1] == 0
    settled = 0
    for k in range(w.tree.nodes):
        kids = w.tree.children(k)
        if kids and all(a["proven"][c] == -1 for c in kids) and a["mover"][k] >= 0:
            settled += a["proven"][k] != 0
    assert settled > 0


def test_a_budget_proves_the_quick_moves_before_a_hard_one_takes_it_all():
    # a 36-card deck: p1 holds 9C and wins whatever p0 plays, some lines soon, some later.
    # Searched one root move at a time to the end, ten seconds proved none of p0's nine moves;
    # the moves take turns with a growing allowance, each first looking for a win or a loss
    # within a short horizon, so a small budget proves the quick ones, and 200,000 nodes all
    pos = Position.load(Path(__file__).resolve().parent.parent / "positions" / "gamestate-cuttle-cards.json")
    losses = {"jack JS TH": 9, "scuttle 8C 3C": 8, "scuttle 3D 3C": 7, "jack JS 3C": 6, "one-off 3D": 4,
              "points 8C": 2, "points 3D": 2, "glasses 8C": 2, "draw": 2}
    whole = solve(pos, nodes=200_000)
    assert whole.stop_reason == "complete" and whole.proven
    assert {m.move.text(): (m.value, m.plies) for m in whole.moves} == {k: ("loss", v) for k, v in losses.items()}
    assert [m.move.text() for m in whole.moves][0] == "jack JS TH"  # the longest loss first
    line = [x.text() for x in next(m for m in whole.moves if m.move.text() == "one-off 3D").pv]
    assert line == ["one-off 3D", "counter 2D", "resolve", "points 9C"]
    part = solve(pos, nodes=10_000)
    assert part.stop_reason == "nodes"
    assert {m.move.text(): (m.value, m.plies) for m in part.moves if m.value} == {
        k: ("loss", v) for k, v in losses.items() if k != "jack JS TH"}


def test_a_cancel_stops_a_solve():
    import threading

    hard = Path(__file__).resolve().parent / "data" / "deck-out-eight-each.json"
    cancel = threading.Event()
    timer = threading.Timer(0.3, cancel.set)
    timer.start()
    try:
        res = solve(hard, nodes=200_000_000, cancel=cancel)
    finally:
        timer.cancel()
    assert res.stop_reason == "cancelled" and not res.proven and res.nodes < 200_000_000
    already = threading.Event()
    already.set()
    assert solve(hard, cancel=already).stop_reason == "cancelled"
    with pytest.raises(SearchError, match="cancel: expected a threading.Event"):
        solve(hard, cancel=True)


def test_a_hints_seconds_count_the_first_solve_once():
    """An answer's time is the solver's and then the tree's: counted once when the solver
    proves the position alone, and included when the tree goes on after it."""
    from cuttle_search.analysis import best_move

    partly = best_move(Path(__file__).parent / "data" / "deck-out-eight-each.json", iterations=3000, seed=1)
    assert partly.result.solver is not None and not partly.result.solver["proven"] and partly.result.iterations > 0
    assert partly.result.seconds >= partly.result.solver["seconds"] > 0
    assert partly.to_json()["seconds"] == round(partly.result.seconds, 6)
    whole = best_move(Path("positions/deck-out-endgame.json"), iterations=3000, seed=1)
    assert whole.result.stop_reason == "proven" and whole.result.iterations == 0
    assert whole.to_json()["seconds"] == pytest.approx(whole.result.solver["seconds"], abs=1e-5)
