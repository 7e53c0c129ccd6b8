"""The recalibration layer (analysis/calibration.py) and the calibration benchmark's figures."""

from pathlib import Path

import numpy as np
import pytest

from cuttle_search import Position, analyse
from cuttle_search.analysis import calibration as cal
from cuttle_search.game.rules import get_ruleset

from .helpers import load_benchmark

ROOT = Path(__file__).resolve().parent.parent
POS = ROOT / "positions"


def _bench():
    return load_benchmark("calibration")


def test_the_map_is_given_where_it_was_fitted_and_nowhere_else():
    pos = Position.load(POS / "midgame-main-p0.json")
    fitted = analyse(pos, iterations=10_000, seed=1)
    assert all(m.calibrated_score is not None for m in fitted.moves)
    best = fitted.best
    assert fitted.rollout == "value"  # the two-seat default, which has its own map
    assert best.calibrated_score == pytest.approx(cal.calibrate("cuttle-cards", pos.actions, pos.deck_size, best.score,
                                                                "value"))
    greedy = analyse(pos, iterations=10_000, seed=1, rollout="greedy")  # its own map
    assert greedy.best.calibrated_score == pytest.approx(
        cal.calibrate("cuttle-cards", pos.actions, pos.deck_size, greedy.best.score, "greedy"))
    assert greedy.best.calibrated_score != pytest.approx(
        cal.calibrate("cuttle-cards", pos.actions, pos.deck_size, greedy.best.score, "value"))
    assert "calibratedScore" in fitted.to_json()["moves"][0]
    for m in fitted.moves:  # the interval's ends through the same map, around the calibrated score
        lo, hi = m.calibrated_interval
        assert lo == pytest.approx(cal.calibrate("cuttle-cards", pos.actions, pos.deck_size, m.interval[0], "value"))
        assert hi == pytest.approx(cal.calibrate("cuttle-cards", pos.actions, pos.deck_size, m.interval[1], "value"))
        assert lo <= m.calibrated_score <= hi and (lo, hi) != m.interval
    from cuttle_search.analysis import best_move
    hint = best_move(pos, iterations=10_000, seed=1).to_json()  # the same search: its top level too
    assert hint["calibratedLcb"] == round(fitted.best.calibrated_interval[0], 6) and hint["lcb"] == round(best.lcb, 6)
    row = fitted.to_json()["moves"][0]
    assert (row["calibratedLcb"], row["calibratedUcb"]) == (round(fitted.best.calibrated_interval[0], 6),
                                                            round(fitted.best.calibrated_interval[1], 6))
    for options in ({"iterations": 30_000}, {"iterations": 10_000, "rollout": "random"},
                    {"iterations": 10_000, "exploration": 1.0}, {"iterations": 2_000}):
        other = analyse(pos, seed=1, **options)
        assert all(m.calibrated_score is None and m.calibrated_interval is None for m in other.moves), options
        assert "calibratedScore" not in other.to_json()["moves"][0] and "calibratedLcb" not in other.to_json()["moves"][0]
    option = analyse(Position.load(POS / "midgame-main-p0.json", rules="cuttle-cards:four=random"), iterations=10_000)
    assert all(m.calibrated_score is None for m in option.moves)  # a ruleset with options was not fitted
    proven = analyse(Position.load(POS / "deck-out-endgame.json"), iterations=10_000)
    assert proven.stop_reason == "proven" and all(m.calibrated_score is None for m in proven.moves)


def _mapped_by_default(name: str, rules: str, rollout: str) -> Position:
    """The default search of the shipped position ``name`` carries the map of ``rules`` and
    its default ``rollout`` on every move; the position, for more checks."""
    pos = Position.load(POS / f"{name}.json")
    fitted = analyse(pos, iterations=5_000, seed=2)
    assert fitted.rollout == rollout and all(m.calibrated_score is not None for m in fitted.moves)
    assert fitted.best.calibrated_score == pytest.approx(
        cal.calibrate(rules, pos.actions, pos.deck_size, fitted.best.score, rollout))
    assert fitted.best.calibrated_score != pytest.approx(fitted.best.score)
    return pos


def test_team_has_a_map_for_its_default_value_search_only():
    pos = _mapped_by_default("team-opening-p0", "team", "value")
    greedy = analyse(pos, iterations=5_000, seed=2, rollout="greedy")  # never fitted: no map
    assert all(m.calibrated_score is None for m in greedy.moves)


def test_multiplayer_has_a_map_for_four_seats_with_its_default_search_only():
    pos = _mapped_by_default("multiplayer-4-opening-p0", "multiplayer", "greedy")
    assert cal.calibrate("multiplayer", 0, 40, 0.35, "greedy") < 0.3  # the search is optimistic at its mean
    for other in (analyse(pos, iterations=5_000, seed=2, rollout="greedy-cut"),
                  analyse(Position.deal("multiplayer:players=3", seed=2), iterations=5_000, seed=2),
                  analyse(Position.deal("multiplayer:players=4", seed=2).view_of(0), iterations=5_000, seed=2)):
        assert all(m.calibrated_score is None for m in other.moves)  # never fitted


def test_every_map_keeps_the_order_of_moves():
    for (rules, rollout), stages in cal.MAPS.items():
        assert len(stages) == len(cal.STAGES)
        for k, (_a, b) in enumerate(stages):
            assert b > 0, (rules, k)
            ply, deck = [(0, 40), (12, 35), (20, 20), (30, 5)][k]
            assert cal.stage_of(ply, deck) == k
            values = [cal.calibrate(rules, ply, deck, p, rollout) for p in np.linspace(0.01, 0.99, 25)]
            assert values == sorted(values) and 0 < values[0] < values[-1] < 1


def test_the_fit_recovers_a_known_map_and_the_figures_see_calibration():
    bench = _bench()
    rng = np.random.default_rng(5)
    pred = rng.uniform(0.05, 0.95, 20_000)
    truth = 1 / (1 + np.exp(-(-0.3 + 0.8 * np.log(pred / (1 - pred)))))
    outcome = (rng.random(len(pred)) < truth).astype(float)
    slope, intercept = bench.logit_fit(pred, outcome)
    assert slope == pytest.approx(0.8, abs=0.05) and intercept == pytest.approx(-0.3, abs=0.05)
    honest = (rng.random(len(pred)) < pred).astype(float)
    f = bench.figures(pred, honest)
    assert abs(f["bias"]) < 0.01 and f["slope"] == pytest.approx(1.0, abs=0.06) and f["ece"] < 0.02
    skewed = bench.figures(pred, outcome)
    assert skewed["bias"] < -0.03 and skewed["ece"] > 0.04
    decisions = [{"game": i // 20, "ply": 3, "deck": 40, "seat": 0, "predicted": float(p), "outcome": float(o),
                  "proven": False} for i, (p, o) in enumerate(zip(pred, outcome))]
    (a, b), *_ = bench.fit(decisions)
    assert a == pytest.approx(-0.3, abs=0.05) and b == pytest.approx(0.8, abs=0.05)


def test_a_fit_that_runs_away_is_not_a_figure():
    """Outcomes the prediction separates (every win above 0.5, every loss below) have no
    finite logistic fit: the benchmark says so (NaN, and no interval where resamples fail)
    instead of printing a runaway slope."""
    bench = _bench()
    pred = np.array([0.2, 0.3, 0.4, 0.6, 0.7, 0.8])
    outcome = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    slope, intercept = bench.logit_fit(pred, outcome)
    assert np.isnan(slope) and np.isnan(intercept)
    rng = np.random.default_rng(3)
    p = rng.uniform(0.1, 0.9, 400)
    assert np.isfinite(bench.logit_fit(p, (rng.random(400) < p).astype(float))[0])
    decisions = [{"game": g, "predicted": float(pred[g]), "outcome": float(outcome[g]), "seat": 0, "ply": 20,
                  "deck": 20, "proven": False} for g in range(6)]
    line = bench._line("overall", bench.summarise(decisions, resamples=40)["overall"])
    assert "slope nan [n/a]" in line


def _tree(rows):
    """A hand-built search tree: ``rows`` are (node, parent, move, mover, visits, wins,
    draws, availability), parents before children; a parent's children listed newest first."""
    from cuttle_search.analysis.tree import Tree

    tree = Tree(capacity=16)
    a = tree.arrays
    for name in ("first", "sibling"):
        a[name][: len(rows) + 1] = -1
    for node, parent, move, mover, visits, wins, draws, avail in rows:
        a["move"][node], a["mover"][node], a["visits"][node] = move, mover, visits
        a["wins"][node], a["draws"][node], a["avail"][node] = wins, draws, avail
        a["sibling"][node] = a["first"][parent]
        a["first"][parent] = node
    tree.meta[0] = len(rows) + 1
    return tree


def test_the_best_reply_backup_weighs_each_reply_by_the_chance_it_is_the_best_held():
    """The viewer (seat 0) played move 101 (100 visits, 60 wins: 0.6 by the search's mean).
    Below it the opponent tried 201 (40 visits, 30 wins, 10 stalemates: 0.125 for the
    viewer), legal in half the visits; 202 (50 visits, 20 wins: 0.6), legal always, and below
    202 the viewer's 301 (40 visits, 36 wins: 0.9), so 202 is worth (40 x 0.9 + 10 x 0.6) / 50
    = 0.84; and 203, too few visits to count. Best for the opponent first: 201 with chance
    0.5, then 202 with the other 0.5: 0.5 x 0.125 + 0.5 x 0.84."""
    tree = _tree([
        (1, 0, 101, 0, 100, 60, 0, 100),
        (2, 1, 201, 1, 40, 30, 10, 50),
        (3, 1, 202, 1, 50, 20, 0, 100),
        (4, 1, 203, 1, 3, 0, 0, 100),
        (5, 3, 301, 0, 40, 36, 0, 50),
    ])
    mine = lambda seat: seat == 0  # noqa: E731
    assert tree.best_reply_score(101, mine, 0.5) == pytest.approx(0.5 * 0.125 + 0.5 * 0.84)
    # a reply legal in a fifth of the visits, the only one counted, leaves the other four
    # fifths to the node's own mean (the viewer's 0.6)
    rare = _tree([(1, 0, 101, 0, 100, 60, 0, 100), (2, 1, 201, 1, 40, 40, 0, 20)])
    assert rare.best_reply_score(101, mine, 0.5) == pytest.approx(0.2 * 0.0 + 0.8 * 0.6)
    assert tree.best_reply_score(999, mine, 0.5) is None  # not a root move
    # a reply with 3 visits, all won by the opponent and legal always: left out at 5 visits
    # (201 half the time, the node's own 0.6 the rest), the opponent's certain best at 3
    thin = _tree([(1, 0, 101, 0, 100, 60, 0, 100), (2, 1, 201, 1, 40, 30, 0, 50), (3, 1, 203, 1, 3, 3, 0, 100)])
    assert thin.best_reply_score(101, mine, 0.5) == pytest.approx(0.5 * 0.25 + 0.5 * 0.6)
    assert thin.best_reply_score(101, mine, 0.5, min_visits=3) == pytest.approx(0.0)
    # one level read: 202 is its own mean for the viewer (0.6), not the viewer's 301 below it
    assert tree.best_reply_score(101, mine, 0.5, depth=1) == pytest.approx(0.5 * 0.125 + 0.5 * 0.6)


def test_the_best_reply_backup_reads_the_tree_by_the_stage_of_a_two_seat_game(monkeypatch):
    """Thinner children count in a two-seat opening, two levels are read at 10 cards or
    fewer in the deck, and Team keeps the defaults; ``analyse`` reads each tree so."""
    from cuttle_search.analysis import tree as tree_module
    from cuttle_search.analysis.ismcts import best_reply_setting
    from cuttle_search.play.arena import deal_seed

    # a greedy game rarely lasts this long: the 66th deal of seed 2026 does, to a decision
    # of four legal moves with the opponent's hand hidden
    late = load_benchmark("late_arena").late_start(get_ruleset("cuttle-cards"), deal_seed(2026, 65), 10)
    assert late is not None and late.deck_size <= 10 and late.actions > 9
    assert best_reply_setting(Position.load(POS / "opening-p0.json")) == (3, 3)
    assert best_reply_setting(Position.load(POS / "midgame-main-p0.json")) == (5, 3)
    assert best_reply_setting(late) == (5, 2)
    assert best_reply_setting(Position.load(POS / "team-opening-p0.json")) == (5, 3)  # Team: as measured
    seen = []
    read = tree_module.Tree.best_reply_score

    def recording(self, move, viewer_side, share, min_visits=5, depth=3):
        seen.append((min_visits, depth))
        return read(self, move, viewer_side, share, min_visits, depth)

    monkeypatch.setattr(tree_module.Tree, "best_reply_score", recording)
    result = analyse(late.view_of(late.actor), iterations=2_000, seed=3, best_reply=True)
    assert seen and set(seen) == {(5, 2)}
    assert any(m.best_reply_score is not None for m in result.moves)


def test_analyse_gives_the_best_reply_backup_when_asked_with_two_sides():
    pos = Position.load(POS / "midgame-main-p0.json")
    plain = analyse(pos, iterations=5_000, seed=3)
    asked = analyse(pos, iterations=5_000, seed=3, best_reply=True)
    assert [(m.move, m.visits, m.score) for m in asked.moves] == [(m.move, m.visits, m.score) for m in plain.moves]
    assert all(m.best_reply_score is None for m in plain.moves)
    assert "bestReplyScore" not in plain.to_json()["moves"][0]
    searched = [m for m in asked.moves if m.visits >= 50]
    assert searched and all(0.0 <= m.best_reply_score <= 1.0 for m in searched)
    assert asked.to_json()["moves"][0]["bestReplyScore"] == pytest.approx(asked.best.best_reply_score, abs=1e-6)
    assert any(m.best_reply_score != pytest.approx(m.score) for m in searched)  # it is not the mean
    two = analyse(pos, iterations=5_000, seed=3, threads=2, best_reply=True)  # the threads' trees, pooled
    assert all(0.0 <= m.best_reply_score <= 1.0 for m in two.moves if m.visits >= 50)
    team = analyse(Position.load(POS / "team-opening-p0.json"), iterations=2_000, seed=3, best_reply=True)
    assert 0.0 <= team.best.best_reply_score <= 1.0  # two sides of two seats each
    for name in ("cutthroat-opening-p0.json", "multiplayer-4-opening-p0.json"):  # a two-sided figure only
        free = analyse(Position.load(POS / name), iterations=2_000, seed=3, best_reply=True)
        assert all(m.best_reply_score is None for m in free.moves), name
    proven = analyse(Position.load(POS / "deck-out-endgame.json"), iterations=2_000, best_reply=True)
    assert all(m.best_reply_score is None for m in proven.moves)  # exact already
    from cuttle_search.analysis import SearchError

    with pytest.raises(SearchError, match="best_reply: expected true or false"):
        analyse(pos, iterations=100, best_reply="yes")


def test_the_benchmark_scores_the_backup_in_place_of_the_search():
    bench = _bench()
    decisions = [{"predicted": 0.6, "bestReply": 0.5, "proven": False},
                 {"predicted": 1.0, "bestReply": 0.7, "proven": True},
                 {"predicted": 0.4, "bestReply": None, "proven": False},
                 {"predicted": 0.3, "proven": False}]
    assert [d["predicted"] for d in bench.with_best_reply(decisions)] == [0.5, 1.0, 0.4, 0.3]


def test_the_benchmark_says_when_a_run_is_in_sample_or_outside_the_maps_budget():
    bench = _bench()
    note = bench.fit_note
    assert note({"rules": "cuttle-cards", "seed": 7100, "iterations": 10_000}).startswith("a seed the map was fitted on")
    assert note({"rules": "cutthroat", "seed": 7900, "iterations": 10_000, "rollout": "greedy"}).startswith("a seed")
    assert note({"rules": "cuttle-cards", "seed": 7300, "iterations": 10_000}) == "not used to fit"
    assert "outside the 5,000 to 20,000" in note({"rules": "cuttle-cards", "seed": 7300, "iterations": 300})
    # (cuttle-cards with greedy rollouts was fitted on 7100 alone: 7500 is held out there)
    assert note({"rules": "cuttle-cards", "seed": 7500, "iterations": 10_000, "rollout": "greedy"}) == "not used to fit"
