"""The ISMCTS analyser: tactics it must find, determinization, reproducibility, errors."""

import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import cuttle_search
from cuttle_search.cli import main
from cuttle_search.engine import layout as L
from cuttle_search.engine.apply import apply_move
from cuttle_search.engine.info import determinize, unseen_cards, winning_cards
from cuttle_search.engine.movegen import generate_moves
from cuttle_search.engine.policies import (apply_unopposed, could_win_now, first_win, material, policy_pick, quick_balance,
                                           quick_oneoff_balance, ROLLOUT_GREEDY, wins_now)
from cuttle_search.engine.rng import rng_below, seed_rng
from cuttle_search.engine.setup import check_invariants, deal
from cuttle_search.engine.table import points_total
from cuttle_search.game.moves import Move
from cuttle_search.game.position import Position
from cuttle_search.game.cards import parse_card
from cuttle_search.analysis import HandInference, SearchError, analyse, best_move
from cuttle_search.analysis.ismcts import Limit, run_search

from .helpers import build

POS = Path(__file__).parent.parent / "positions"


def best_text(result):
    return result.best.move.text()


# ---------------------------------------------------------------- tactics
def test_finds_the_king_that_meets_the_goal():
    r = analyse(POS / "win-in-one-p0.json", iterations=5000, seed=1)
    assert best_text(r) == "royal KD" and r.best.score == 1.0


def test_finds_the_jack_that_steals_the_winning_points():
    pos = build(p0Points=["TH", "5S"], p0Hand=["JC", "4D", "QS"], p1Points=["6D", "2H"], p1Hand=["AS", "3C"]).view_of(0)
    r = analyse(pos, iterations=5000, seed=2)
    assert best_text(r) == "jack JC 6D" and r.best.score == 1.0


def scuttle_or_lose():
    # p1 holds a King: with 19 points and one King (goal 14) p1 wins next turn, unless the Ten goes
    return build(
        p0Hand=["TS", "6D", "7H"], p0Points=["5C"], p1Points=["TH", "5D", "4S"], p1Hand=["KC"],
        deck_top=["8C", "QD", "9H", "9D"],  # a 7 reveals nothing that helps
    )


def test_finds_the_only_scuttle_that_stops_the_next_turn_win():
    r = analyse(scuttle_or_lose(), iterations=20000, seed=3, rollout="heuristic")
    assert best_text(r) == "scuttle TS TH"
    for m in r.moves[1:]:
        assert m.score < 0.1 and m.score < r.best.score - 0.2, m


@pytest.mark.parametrize("rollout", ["random", "greedy"])
def test_every_rollout_policy_finds_the_scuttle(rollout):
    """The other policies value the position differently (greedy rollouts let p1 play on
    well, so even the scuttle wins only about one game in sixteen) but rank the same move
    first, with more visits than all the others together, and every other move loses."""
    r = analyse(scuttle_or_lose(), iterations=20000, seed=3, rollout=rollout)
    assert best_text(r) == "scuttle TS TH"
    assert r.best.visits > 0.5 * r.iterations
    for m in r.moves[1:]:
        assert m.score < 0.01 < r.best.score, m


def greedy_picks(pos, times, seed):
    s, r = pos.state, pos.rules_array
    buf = np.zeros(L.MAX_MOVES, np.int64)
    n = generate_moves(s, r, buf)
    scratch = np.zeros(L.STATE_SIZE, np.int64)
    rng = seed_rng(np.uint64(seed), 0)
    before = s.copy()
    picks = [policy_pick(s, r, buf, n, rng, ROLLOUT_GREEDY, scratch) for _ in range(times)]
    assert (s == before).all()  # the policy tries moves on the scratch copy only
    return n, [next(m.text() for m in pos.legal_moves() if m.code() == c) for c in picks]


def test_greedy_rollout_policy_always_takes_a_win():
    pos = build(p0Points=["TH", "4C"], p0Hand=["KD", "4S", "3D", "5H"], p1Points=["9S"], p1Hand=["2C", "QH"])
    _, picks = greedy_picks(pos, 500, 9)
    assert set(picks) == {"royal KD"}


def test_greedy_rollout_policy_prefers_material_and_else_plays_uniformly():
    """No win in reach: points with the Ten are the best balance, played 3/4 of the time
    plus its share of the uniform quarter; the uniform quarter reaches every move."""
    pos = build(p0Hand=["TS", "3D", "4C"], p1Points=["2S"], p1Hand=["5C", "6C"])
    n, picks = greedy_picks(pos, 4000, 3)
    expected = 0.75 + 0.25 / n
    assert abs(picks.count("points TS") / len(picks) - expected) < 0.03, (picks.count("points TS"), n)
    assert len(set(picks)) == n


def test_counters_a_lethal_one_off():
    # p0's 2 on p1's jack would hand p0 back the Ten: 21 points
    pos = build(
        phase="countering", oneOff="2H", oneOffTarget="JS", p0Points=["9C", "2D"], p0Hand=["5H"],
        p1Points=["TH(JS-p1)"], p1Hand=["2S", "5C"],
    ).view_of(1)
    r = analyse(pos, iterations=5000, seed=4)
    assert best_text(r) == "counter 2S"
    assert next(m for m in r.moves if m.move.text() == "resolve").score == 0.0


def test_declines_a_counter_that_loses():
    # p0's 6 would scrap p0's own two Kings; countering it lets p0 win next turn with the Ace
    pos = build(
        phase="countering", oneOff="6C", p0FaceCards=["KH", "KD"], p0Points=["9S"], p0Hand=["AH", "3C"],
        p1Hand=["2S", "KC"],
    )
    r = analyse(pos, iterations=10000, seed=5)
    assert best_text(r) == "resolve"
    counter = next(m for m in r.moves if m.move.text() == "counter 2S")
    # the search leaves a losing line after a few visits, so judge it by its gap to the best
    assert counter.score < 0.1 and counter.gap > 0.3


def test_forced_win_scores_one_and_the_rest_zero():
    # full information: only the King wins now; anything else lets p1's King win
    pos = build(
        p0Points=["TH", "4H"], p0Hand=["KD", "QS", "5D"], p1Points=["TC", "9H"], p1FaceCards=["QH"], p1Hand=["KC"],
        deck_top=["4C", "5C"],
    )
    r = analyse(pos, iterations=20000, seed=6)
    assert best_text(r) == "royal KD" and r.best.score == 1.0
    for m in r.moves[1:]:
        assert m.score < 0.06, m


# ---------------------------------------------------------------- determinization
def test_determinization_keeps_known_cards_and_deals_the_rest_uniformly():
    full = build(
        p0Hand=["9C", "AH"], p1Hand=["KH", "4D", "5D", "6D"], p1FaceCards=["QS"], p0Points=["7C"],
        deck_top=["8H"], scrap=["3C"],
    )
    full.play("one-off 9C QS")
    full.play("resolve")  # p1 now holds QS publicly
    view = full.view_of(0)
    d = view.to_dict()
    assert d["p1Hand"].count("??") == 4 and "QS" in d["p1Hand"]
    root = view.state
    unknown = view.unknown_cards
    rng = seed_rng(np.uint64(9), 0)
    s = np.zeros_like(root)
    cards = np.zeros(64, dtype=np.int64)
    n_unknown = bin(unknown).count("1")
    hidden_deck = int(root[L.F_DECK_N] - root[L.F_DECK_KNOWN])
    trials = 6000
    in_hand = np.zeros(52)
    bottom = np.zeros(52)
    fixed = [L.F_HAND + 0, L.F_POINTS + 0, L.F_POINTS + 1, L.F_FACE + 0, L.F_FACE + 1, L.F_SCRAP, L.F_PUBLIC + 1]
    for _ in range(trials):
        determinize(root, s, unknown, 0, rng, cards, 0, 0)
        for f in fixed:
            assert s[f] == root[f]
        assert s[L.F_HAND + 1] & ~unknown == root[L.F_HAND + 1] & ~unknown  # QS stays in p1's hand
        assert bin(int(s[L.F_HAND + 1])).count("1") == bin(int(root[L.F_HAND + 1])).count("1")
        known_top = int(root[L.F_DECK_KNOWN])
        n = int(root[L.F_DECK_N])
        assert np.array_equal(s[L.F_DECK + n - known_top : L.F_DECK + n], root[L.F_DECK + n - known_top : L.F_DECK + n])
        assert check_invariants(s, full.rules_array) == 0
        h = int(s[L.F_HAND + 1]) & unknown
        while h:
            c = (h & -h).bit_length() - 1
            in_hand[c] += 1
            h &= h - 1
        bottom[int(s[L.F_DECK + 0])] += 1
    slots_in_hand = n_unknown - hidden_deck
    for c in range(52):
        if (unknown >> c) & 1:
            p_hand = slots_in_hand / n_unknown
            p_bottom = 1 / n_unknown
            # within 5 standard deviations of the binomial expectation
            assert abs(in_hand[c] - trials * p_hand) < 5 * np.sqrt(trials * p_hand * (1 - p_hand))
            assert abs(bottom[c] - trials * p_bottom) < 5 * np.sqrt(trials * p_bottom * (1 - p_bottom)) + 1
        else:
            assert in_hand[c] == 0 and bottom[c] == 0


# ---------------------------------------------------------------- reproducibility and growth
def test_same_seed_and_threads_give_identical_json():
    a = analyse(POS / "midgame-main-p0.json", iterations=6000, seed=11, threads=2)
    b = analyse(POS / "midgame-main-p0.json", iterations=6000, seed=11, threads=2)
    assert a.deterministic_json() == b.deterministic_json()
    c = analyse(POS / "midgame-main-p0.json", iterations=6000, seed=12, threads=2)
    assert c.deterministic_json() != a.deterministic_json()


def test_thread_counts_agree_within_the_intervals():
    one = analyse(POS / "should-i-counter-p1.json", iterations=20000, seed=1, threads=1)
    two = analyse(POS / "should-i-counter-p1.json", iterations=20000, seed=1, threads=2)
    assert best_text(one) == best_text(two)
    lo1, hi1 = one.best.interval
    lo2, hi2 = two.best.interval
    assert lo1 <= hi2 and lo2 <= hi1  # the intervals overlap


def test_a_full_tree_grows_and_the_search_is_unchanged():
    pos = Position.load(POS / "opening-p0.json")
    small = run_search(pos, Limit(3000), seed=3, node_capacity=64)
    big = run_search(pos, Limit(3000), seed=3)
    assert small.nodes > 64
    assert small.deterministic_json() == big.deterministic_json()


def test_time_budget_stops():
    r = analyse(POS / "opening-p0.json", time=0.3, seed=1)
    assert r.stop_reason == "time" and r.iterations > 0


@pytest.mark.slow  # wall clock: how close to its budget a timed search stops
def test_time_budget_stops_near_the_budget():
    r = analyse(POS / "opening-p0.json", time=0.3, seed=1)
    assert 0.25 < r.seconds < 3 and r.iterations > 0


def test_result_reports_the_search():
    r = analyse(POS / "kings-race-p1.json", iterations=3000, seed=1)
    j = r.to_json()
    assert j["pointOfView"] == "p1" and "p1's" in j["note"]
    info = j["rootInfo"]
    assert info["iterations"] == 3000 and info["determinizations"] == 3000 and info["seed"] == 1
    assert info["threads"] == 1 and info["engineVersion"] == cuttle_search.__version__
    assert sum(m["visits"] for m in j["moves"]) == 3000
    assert {m["move"] for m in j["moves"]} == {m.text() for m in Position.load(POS / "kings-race-p1.json").legal_moves()}
    for m in j["moves"]:
        assert 0 <= m["lcb"] <= m["score"] <= m["ucb"] <= 1 and m["pv"][0] == m["move"]
    assert j["moves"][0]["gap"] == 0


def test_api_accepts_path_dict_and_json_string():
    text = (POS / "win-in-one-p0.json").read_text()
    for source in (POS / "win-in-one-p0.json", json.loads(text), text):
        assert best_move(source, iterations=2000, seed=1).best.move.text() == "royal KD"
    assert cuttle_search.best_move(str(POS / "win-in-one-p0.json"), iterations=500).best.move.text() == "royal KD"


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"iterations": 0}, "iterations: expected a whole number from 1 to 1,000,000,000, got 0"),
        ({"iterations": 10**30}, "iterations: expected a whole number from 1 to"),
        ({"time": -1}, "time: expected a number of seconds above 0"),
        ({"time": float("inf")}, "time: expected a number of seconds above 0 and at most"),
        ({"time": float("nan")}, "time: expected a number of seconds"),
        ({"threads": 0}, "threads: expected a whole number from 1 to 256"),
        ({"threads": 8, "iterations": 4}, "threads: 8 threads for 4 iterations"),
        ({"rollout": "smart"}, "rollout: expected one of"),
        ({"exploration": float("nan")}, "exploration: expected a finite number"),
        ({"exploration": float("inf")}, "exploration: expected a finite number"),
        ({"seed": 2**64}, "seed: expected a whole number from 0 to 2\\^63 - 1"),
        ({"seed": -1}, "seed: expected a whole number"),
    ],
)
def test_bad_budgets(kwargs, message):
    with pytest.raises(SearchError, match=message):
        analyse(POS / "win-in-one-p0.json", **kwargs)


def test_analyse_refuses_a_view_where_the_other_seat_decides():
    pos = Position.load(POS / "counter-chain-full.json").view_of(0)
    with pytest.raises(SearchError, match="it is p1's decision"):
        analyse(pos, iterations=100)


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def test_cli_analyse_table_and_json():
    r = run("analyse", POS / "win-in-one-p0.json", "-n", "3000", "--seed", "2")
    assert r.exit_code == 0, r.output
    assert "win rates are p0's" in r.output
    assert re.search(r"^ *1  royal KD", r.output, re.MULTILINE)
    j = json.loads(run("analyse", POS / "win-in-one-p0.json", "-n", "3000", "--top", "2", "--json").output)
    assert len(j["moves"]) == 2 and j["moves"][0]["move"] == "royal KD"


def test_cli_defaults_are_the_api_defaults():
    """The CLI spells its defaults out (it imports the engine late, to start fast)."""
    from cuttle_search.analysis import DEFAULT_EXPLORATION

    j = json.loads(run("analyse", POS / "win-in-one-p0.json", "-n", "100", "--json").output)
    assert (j["rootInfo"]["rollout"], j["rootInfo"]["exploration"]) == ("value", DEFAULT_EXPLORATION)
    api = analyse(POS / "win-in-one-p0.json", iterations=100).to_json()
    assert api["moves"] == j["moves"]


@pytest.mark.parametrize("name, rollout", [("opening-p0", "value"), ("classic-jacks", "value"),
                                           ("cutthroat-opening-p0", "greedy"), ("team-opening-p0", "value"),
                                           ("multiplayer-4-opening-p0", "greedy")])
def test_the_default_rollout_is_the_learned_value_with_two_seats_and_in_team(name, rollout):
    """The same search as naming that rollout: the learned value with two seats and in Team
    (docs/strength.md, "A learned value"), greedy in Cutthroat and Multiplayer."""
    from cuttle_search.analysis import default_rollout

    pos = Position.load(POS / f"{name}.json")
    assert default_rollout(pos.rules) == rollout
    by_default = analyse(pos, iterations=300, seed=3)
    assert by_default.rollout == rollout
    assert by_default.to_json()["moves"] == analyse(pos, iterations=300, seed=3, rollout=rollout).to_json()["moves"]
    j = json.loads(run("analyse", POS / f"{name}.json", "-n", "300", "--seed", "3", "--json").output)
    assert j["rootInfo"]["rollout"] == rollout and j["moves"] == by_default.to_json()["moves"]


def test_multiplayer_with_two_seats_keeps_greedy_rollouts():
    from cuttle_search.analysis import default_rollout

    from cuttle_search.game.rules import get_ruleset

    assert default_rollout(get_ruleset("multiplayer:players=2")) == "greedy"
    assert default_rollout(get_ruleset("cuttle-cards")) == "value"


@pytest.mark.parametrize(
    "args,message",
    [
        (["-n", "0"], "Invalid value for '--iterations'"),
        (["--threads", "0"], "Invalid value for '--threads'"),
        (["--time", "0"], "Invalid value for '--time'"),
    ],
)
def test_cli_analyse_bad_options_exit_2(args, message):
    r = run("analyse", POS / "win-in-one-p0.json", *args)
    assert r.exit_code == 2 and message in r.output


def test_cli_analyse_wrong_viewer_exits_2(tmp_path):
    Position.load(POS / "counter-chain-full.json").view_of(0).save(tmp_path / "v.json")
    r = run("analyse", tmp_path / "v.json")
    assert r.exit_code == 2 and "it is p1's decision" in r.output and "Traceback" not in r.output


def test_hint_protocol_answers_each_line_and_survives_bad_ones():
    good = json.loads((POS / "win-in-one-p0.json").read_text())
    lines = [
        json.dumps({"id": 1, "position": good, "iterations": 2000, "seed": 1}),
        "this is not json",
        json.dumps({"id": "b", "position": {**good, "p0Hand": ["KD", "KD", "3D"]}}),
        json.dumps({"id": 3, "position": good, "iterations": -5}),
        "",
        json.dumps({"id": 4, **good, "iterations": 1000}),
    ]
    r = run("hint", "-n", "1500", input="\n".join(lines) + "\n")
    assert r.exit_code == 0
    out = [json.loads(x) for x in r.output.strip().splitlines()]
    assert len(out) == 5
    assert out[0]["id"] == 1 and out[0]["move"] == "royal KD" and out[0]["iterations"] == 2000
    assert out[0]["moveJson"] == {"moveType": "faceCard", "cardId": "KD"} and len(out[0]["runnersUp"]) == 2
    assert out[1]["field"] == "request" and "not valid JSON" in out[1]["error"]
    assert out[2]["id"] == "b" and out[2]["field"] == "p0Hand[1]" and "appears twice" in out[2]["error"]
    assert out[3]["id"] == 3 and out[3]["field"] == "iterations"
    assert out[4]["id"] == 4 and out[4]["move"] == "royal KD" and out[4]["iterations"] == 1000


def test_hint_takes_a_cuttle_cards_gamestate_with_hidden_cards():
    gs = json.loads((POS / "gamestate-cuttle-cards.json").read_text())
    gs["p1Hand"] = ["??"] * len(gs["p1Hand"])
    gs["deck"] = ["??"] * len(gs["deck"])
    gs["view"] = "p0"
    r = run("hint", "-n", "500", input=json.dumps({"id": 7, "position": gs}) + "\n")
    out = json.loads(r.output)
    assert out["id"] == 7 and "move" in out and out["pointOfView"] == "p0"


def test_warmup_command():
    r = run("warmup")
    assert r.exit_code == 0 and "engine ready" in r.output


@pytest.mark.slow
def test_bench_quick_json():
    r = run("bench", "--quick", "--json")
    assert r.exit_code == 0, r.output
    fig = json.loads(r.output[r.output.index("{"):])
    assert fig["search"]["bytes_per_node"] <= 200
    assert fig["rollout"]["rulesets"]["cuttle-cards"]["plies_per_second"] > 0


# ---------------------------------------------------------------- inference
def _hidden_hand_view():
    full = build(p0Hand=["9C", "AH"], p1Hand=["KH", "4D", "5D", "6D", "7S"], p0Points=["7C"], deck_top=["8H"])
    return full.view_of(0)


def _hand_cards(s, view):
    return int(s[L.F_HAND + 1]) & view.unknown_cards


def test_determinization_deals_no_excluded_card_into_the_hand_but_fresh_ones():
    view = _hidden_hand_view()
    unknown = view.unknown_cards
    excluded = sum(1 << c for c in range(52) if (unknown >> c) & 1 and c % 2 == 0)  # half the unseen cards
    s = np.zeros_like(view.state)
    cards = np.zeros(64, dtype=np.int64)
    rng = seed_rng(np.uint64(4), 0)
    allowed_seen = np.zeros(52)
    excluded_in_hand = []
    for fresh in (0, 1):
        for _ in range(3000):
            determinize(view.state, s, unknown, 0, rng, cards, excluded, fresh)
            assert check_invariants(s, view.rules_array) == 0
            hand = _hand_cards(s, view)
            assert hand.bit_count() == 5
            excluded_in_hand.append((fresh, (hand & excluded).bit_count()))
            if fresh == 0:
                for c in range(52):
                    allowed_seen[c] += (hand >> c) & 1
    assert all(n == 0 for f, n in excluded_in_hand if f == 0)
    with_fresh = [n for f, n in excluded_in_hand if f == 1]
    assert max(with_fresh) == 1 and 0.3 < np.mean(with_fresh) < 0.7  # the fresh card is any unseen card
    allowed = [c for c in range(52) if (unknown >> c) & 1 and not (excluded >> c) & 1]
    expected = 3000 * 5 / len(allowed)
    for c in allowed:
        assert abs(allowed_seen[c] - expected) < 5 * np.sqrt(expected), (c, allowed_seen[c], expected)


def test_an_inference_that_cannot_hold_is_ignored():
    view = _hidden_hand_view()
    unknown = view.unknown_cards
    a, b = np.zeros_like(view.state), np.zeros_like(view.state)
    cards = np.zeros(64, dtype=np.int64)
    rng_a, rng_b = seed_rng(np.uint64(5), 0), seed_rng(np.uint64(5), 0)
    for _ in range(50):
        determinize(view.state, a, unknown, 0, rng_a, cards, unknown, 0)  # every unseen card excluded
        determinize(view.state, b, unknown, 0, rng_b, cards, 0, 0)
        assert np.array_equal(a, b)


def test_winning_cards_are_those_that_would_meet_the_goal_now():
    # p1 to act with 15 points (goal 21): a 6-10 in points, a King (goal 14) or a Jack on
    # p0's 7 would win; an Ace-5 or a Queen would not
    pos = build(p0Points=["7C"], p1Points=["TH", "5D"], p0Hand=["2C"], p1Hand=["AS"], turn=1)
    view = pos.view_of(0)
    t = np.zeros(L.STATE_SIZE, np.int64)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    won = int(winning_cards(view.state, view.rules_array, 1, np.int64(view.unknown_cards), t, buf))
    expected = {c for c in range(52) if (view.unknown_cards >> c) & 1 and (5 <= c >> 2 <= 9 or c >> 2 in (10, 12))}
    assert {c for c in range(52) if (won >> c) & 1} == expected
    guarded = build(p0Points=["7C"], p0FaceCards=["QS"], p1Points=["TH", "5D"], p0Hand=["2C"], p1Hand=["AS"], turn=1)
    view = guarded.view_of(0)
    won = int(winning_cards(view.state, view.rules_array, 1, np.int64(view.unknown_cards), t, buf))
    assert not any((won >> c) & 1 for c in range(40, 44))  # p0's Queen protects the 7 from Jacks


def test_an_inference_changes_what_the_search_fears():
    """p1 sits on 19 of 21 points with two hidden cards; p0 can scuttle the Ten. Without
    inference p1 almost surely holds a winner, so the scuttle is the best of bad moves;
    told that p1 holds no winner (it passed one up and drew nothing since), p0 plays points."""
    pos = build(p0Hand=["TS", "6D", "7H"], p0Points=["5C"], p1Points=["TH", "5D", "4S"], p1Hand=["AC", "QD"])
    view = pos.view_of(0)
    lacks = view.unknown_cards & ~sum(1 << parse_card(c) for c in ("AD", "AH", "AS", "QC", "QH", "QS", "AC", "QD"))
    plain = analyse(view, iterations=6000, seed=4)
    told = analyse(view, iterations=6000, seed=4, inference=HandInference(lacks))
    assert best_text(plain) == "scuttle TS TH"
    assert {m.move.text(): m for m in plain.moves}["points 7H"].score < 0.25
    assert best_text(told).startswith("points") and told.best.score > 0.75
    with pytest.raises(SearchError, match="inference"):
        analyse(view, iterations=10, inference=lacks)


@pytest.mark.parametrize("rules", ["cuttle-cards", "classic", "bga-traditional", "bga-balanced", "cuttle-cards-2"])
def test_wins_now_agrees_with_applying_the_move(rules):
    """The search's cheap "wins on the spot" test is the engine's win rule: for every main
    or 7 move of random games, it says win exactly when applying the move wins; and the
    bound that lets ``first_win`` skip its scan never skips a decision with a winning move."""
    from cuttle_search.game.rules import get_ruleset

    r = get_ruleset(rules).array
    s = np.zeros(L.STATE_SIZE, np.int64)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    rng = np.array([7], np.uint64)
    checked = wins = skipped = 0
    for game in range(150):
        deal(s, r, rng)
        while s[L.F_PHASE] != L.PH_OVER:
            n = generate_moves(s, r, buf)
            if s[L.F_PHASE] in (L.PH_MAIN, L.PH_SEVEN):
                p = int(s[L.F_ACTOR])
                could = could_win_now(s, r, p)
                skipped += not could
                for m in buf[:n]:
                    child = s.copy()
                    apply_move(child, r, m)
                    won = child[L.F_STATUS] == L.ST_WIN and child[L.F_WINNER] == p
                    assert bool(wins_now(s, r, p, m)) == won, (rules, game, int(m))
                    assert could or not won, (rules, game, int(m))
                    checked += 1
                    wins += won
            apply_move(s, r, buf[rng_below(rng, n)])
    assert checked > 10000 and wins > 20 and skipped > 500


def test_classic_fourth_king_is_no_win_on_the_spot_below_five_points():
    pos = build("classic", p0FaceCards=["KC", "KD", "KH"], p0Hand=["KS"], p0Points=["2C"], p1Hand=["AD"])
    codes = pos.legal_codes()
    king = next(i for i, c in enumerate(codes) if Move.from_code(int(c)).text() == "royal KS")
    assert first_win(pos.state, pos.rules_array, 0, codes, len(codes)) == -1
    pos = build("classic", p0FaceCards=["KC", "KD", "KH"], p0Hand=["KS"], p0Points=["5C"], p1Hand=["AD"])
    codes = pos.legal_codes()
    assert first_win(pos.state, pos.rules_array, 0, codes, len(codes)) == king


def test_analyse_uses_the_inference_a_history_supports():
    """The game so far (p1 on 15 points drew instead of winning) gives the same inference
    the infer=1 agent keeps; a history that does not lead to the position is refused."""
    from cuttle_search.analysis import inference_from_history

    start = build(p0Points=["7C"], p1Points=["TH", "5D"], p0Hand=["2C", "3H"], p1Hand=["AS", "4H"], turn=1)
    view0 = start.view_of(0)
    winners = int(winning_cards(view0.state, view0.rules_array, 1, np.int64(view0.unknown_cards),
                                  np.zeros(L.STATE_SIZE, np.int64), np.zeros(L.MAX_MOVES, np.int64)))
    game = start.copy()
    game.play("draw")
    view = game.view_of(0)
    inf = inference_from_history(view, (start, ["draw"]))
    assert inf == HandInference(winners & view.unknown_cards, 1)
    told = analyse(view, iterations=3000, seed=2, history=(start, ["draw"]))
    assert told.deterministic_json() == analyse(view, iterations=3000, seed=2, inference=inf).deterministic_json()
    with pytest.raises(SearchError, match="history: the moves do not lead"):
        analyse(view, iterations=10, history=(start, []))
    with pytest.raises(SearchError, match=r"history\[0\]"):
        analyse(view, iterations=10, history=(start, ["royal KZ"]))


@pytest.mark.parametrize("rules", ["cuttle-cards", "classic", "bga-balanced", "cuttle-cards:ten-counters-scuttle",
                                   "cuttle-cards-2", "bga-traditional"])
def test_greedy_scores_from_the_masks_equal_applying_the_move(rules):
    """Every draw, pass, points, royal, scuttle, jack, 7-scrap and one-off (an Ace, 3, 4,
    5, 6 or 7, and a 2 or 9 on a royal or a lone Jack, a 9 on a point card:
    ``quick_oneoff_balance``) of random games scores the
    same bits from the masks as on a copy the move was applied to (the greedy rollout's
    one-ply material), including moves that hit the action or the pass limit."""
    from cuttle_search.game.rules import get_ruleset

    rs = get_ruleset(rules)
    s = np.zeros(L.STATE_SIZE, np.int64)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    rng = np.array([11], np.uint64)
    checked = oneoffs = removals = 0
    for game in range(120):
        r = rs.to_array()
        if game % 3 == 0:
            r[L.R_ACTION_LIMIT] = 40  # games that end at the action limit
        deal(s, r, rng)
        while s[L.F_PHASE] != L.PH_OVER:
            n = generate_moves(s, r, buf)
            if s[L.F_PHASE] in (L.PH_MAIN, L.PH_SEVEN):
                p = int(s[L.F_ACTOR])
                o = 1 - p
                for m in buf[:n]:
                    if wins_now(s, r, p, m):
                        continue
                    child = s.copy()
                    apply_unopposed(child, r, m)
                    if child[L.F_PHASE] == L.PH_OVER:
                        slow = -1e17 if child[L.F_STATUS] == L.ST_WIN else 0.0
                    else:
                        slow = material(child, r, p) - material(child, r, o)
                    if m & L.MT_MASK == L.MT_ONE_OFF:  # an Ace, 3, 4, 5, 6 or 7, unless a seat meets its goal
                        ok, fast = quick_oneoff_balance(s, r, m, p, -1, 1 << o, material(s, r, o), 0.0)
                        if not ok:
                            continue
                        oneoffs += 1
                        removals += L.move_card(m) >> 2 in (L.RANK_TWO, L.RANK_NINE)
                    else:
                        fast = quick_balance(s, r, m, p, o, points_total(s, p), points_total(s, o))
                    assert fast == slow, (rules, game, int(m), fast, slow)
                    checked += 1
            apply_move(s, r, buf[rng_below(rng, n)])
    assert checked > 5000 and oneoffs > 300 and removals > 30


@pytest.mark.parametrize("rules", ["cutthroat", "team", "multiplayer", "multiplayer:players=3",
                                   "multiplayer:players=6,remove-ace-six", "multiplayer:players=8"])
def test_greedy_scores_from_the_masks_equal_applying_the_move_with_more_seats(rules):
    """With more than two seats, every main-phase move ``quick_balance_n`` scores from the
    masks (draws, points, royals, scuttles, jacks, a gift of one's own card, Jokers; and
    ``quick_oneoff_balance`` an Ace, 3, 4, 5, 6 or 7, a 2 or 9 on a royal or a lone Jack, a
    9 on a point card) gets the same bits as ``material_balance``
    on a copy the move was applied to (the greedy rollout's one-ply material), including
    moves that hit the action limit and jacks that move a card between two other seats;
    the moves it leaves to a copy are only the others and those after which a seat meets
    its goal."""
    from cuttle_search.engine.policies import material_balance, quick_balance_n
    from cuttle_search.engine.seats import opponents, partner
    from cuttle_search.engine.table import goal
    from cuttle_search.game.rules import get_ruleset

    rs = get_ruleset(rules)
    s = np.zeros(L.STATE_SIZE, np.int64)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    rng = np.array([13], np.uint64)
    checked = left = removals = on_jacks = 0
    kinds, offered = set(), set()
    for game in range(60):
        r = rs.to_array()
        if game % 3 == 0:
            r[L.R_ACTION_LIMIT] = 60  # games that end at the action limit
        deal(s, r, rng)
        while s[L.F_PHASE] != L.PH_OVER:
            n = generate_moves(s, r, buf)
            if s[L.F_PHASE] == L.PH_MAIN:
                p = int(s[L.F_ACTOR])
                mate, against = partner(s, r, p), opponents(s, r, p)
                best_opp = max(material(s, r, q) for q in range(int(s[L.F_NPLAYERS])) if (against >> q) & 1)
                mate_val = material(s, r, mate) if mate >= 0 else 0.0
                for m in buf[:n]:
                    offered.add(int(m & L.MT_MASK))
                    if m & L.MT_MASK == L.MT_ONE_OFF:
                        ok, fast = quick_oneoff_balance(s, r, m, p, mate, against, best_opp, mate_val)
                    else:
                        ok, fast = quick_balance_n(s, r, m, p, mate, against, points_total(s, p), best_opp, mate_val)
                    child = s.copy()
                    apply_unopposed(child, r, m)
                    if not ok:
                        left += 1
                        meets_goal = any(points_total(child, q) >= goal(child, r, q) for q in range(int(s[L.F_NPLAYERS])))
                        simple = (m & L.MT_MASK) in (L.MT_DRAW, L.MT_POINTS, L.MT_ROYAL) and not m & L.FROM_SEVEN
                        assert not simple or meets_goal, (rules, game, int(m))
                        continue
                    if child[L.F_PHASE] == L.PH_OVER:
                        assert child[L.F_STATUS] != L.ST_WIN, (rules, game, int(m))
                        slow = 0.0
                    else:
                        slow = material_balance(child, r, p)
                    assert fast == slow, (rules, game, int(m), fast, slow)
                    checked += 1
                    kinds.add(int(m & L.MT_MASK))
                    if m & L.MT_MASK == L.MT_ONE_OFF and L.move_card(m) >> 2 in (L.RANK_TWO, L.RANK_NINE):
                        removals += 1
                        on_jacks += L.move_target(m) >> 2 == L.RANK_JACK
            apply_move(s, r, buf[rng_below(rng, n)])
    assert checked > 3000 and removals > 20 and on_jacks > 0
    assert {L.MT_DRAW, L.MT_POINTS, L.MT_ROYAL, L.MT_SCUTTLE, L.MT_JACK, L.MT_JOKER} & offered <= kinds
    assert {L.MT_DRAW, L.MT_POINTS, L.MT_ROYAL, L.MT_JACK, L.MT_ONE_OFF} <= kinds


def test_a_partial_result_is_marked_as_such_and_names_no_reason_to_stop():
    """``analyse_stream``'s partial results: ``during_search``, no ``stop_reason`` yet, and
    in JSON ``isDuringSearch`` instead of ``stopReason`` (the hint protocol's marks), so a
    logged partial is never taken for a final answer."""
    from cuttle_search import analyse_stream

    results = list(analyse_stream(Position.load(POS / "opening-p0.json"), every=0.05, time=0.5, seed=2))
    *partials, final = results
    assert partials  # (half a second of search, a partial every twentieth)
    assert not final.during_search and final.stop_reason == "time"
    assert final.to_json()["rootInfo"]["stopReason"] == "time" and "isDuringSearch" not in final.to_json()["rootInfo"]
    for p in partials:
        info = p.to_json()["rootInfo"]
        assert p.during_search and p.stop_reason is None and info["isDuringSearch"] is True and "stopReason" not in info


def test_a_line_says_where_it_starts_to_follow_guessed_cards():
    """``pv_known``: the moves of a line before the first that shows a card the viewer
    cannot see; the analyse table brackets the rest."""
    pos = Position.load("positions/opening-p0.json")
    hidden = int(unseen_cards(pos.state, pos.rules_array, pos.actor))
    res = analyse(pos, iterations=20000, seed=3)
    cut = 0
    for m in res.moves:
        known = len(m.pv) if m.pv_known is None else m.pv_known
        assert 1 <= known <= len(m.pv) and m.to_json()["pvKnown"] == known
        for i, move in enumerate(m.pv):
            touches = {c for c in (move.card, move.target, *move.cards) if c is not None}
            assert any((hidden >> c) & 1 for c in touches) == (i == known), (m.pv, known)
            if i == known:
                break
        cut += known < len(m.pv)
    assert cut >= 1  # the opponent's hand is hidden: some line reaches it
    out = CliRunner().invoke(main, ["analyse", "positions/opening-p0.json", "-n", "20000", "--seed", "3"]).output
    assert "[...] in a line: moves past a card you cannot see" in out
    best = res.moves[0]
    if best.pv_known is not None:
        seen = ", ".join(x.text() for x in best.pv[:best.pv_known])
        assert f"{seen}, [{best.pv[best.pv_known].text()}" in out
    # nothing hidden: every line is known
    full = analyse(Position.load("positions/deck-out-endgame.json"), iterations=3000, seed=1)
    assert all(m.pv_known is None and m.to_json()["pvKnown"] == len(m.pv) for m in full.moves)
    # a full view with cards the seat to act could not see at a table: the search deals
    # nothing, so nothing in its lines is guessed (they were bracketed from the seat's view)
    pos = Position.load("positions/opening-full.json")
    assert pos.guessed_cards == 0 and unseen_cards(pos.state, pos.rules_array, pos.actor) != 0
    full = analyse(pos, iterations=3000, seed=1)
    assert all(m.pv_known is None and m.to_json()["pvKnown"] == len(m.pv) for m in full.moves)
    assert sum(len(m.pv) > 2 for m in full.moves) >= 3
    out = CliRunner().invoke(main, ["analyse", "positions/opening-full.json", "-n", "3000", "--seed", "1"]).output
    assert "[" not in out.split("principal variation", 1)[1] and "moves past a card" not in out
