"""Agents, the arena and game logs with three seats (cutthroat): legal play, seat rotation,
win shares, reproducibility, results files and log round trips."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from cuttle_search.cli import main
from cuttle_search.engine import layout as L
from cuttle_search.engine.policies import apply_unopposed
from cuttle_search.game.gamelog import LOG_KEYS, GameLogError, check_game_log, read_game, replay
from cuttle_search.game.moves import Move
from cuttle_search.game.position import Position
from cuttle_search.game.rules import N_SEAT_RULESETS, RulesError, find_ruleset, get_ruleset
from cuttle_search.play.agent import win_share
from cuttle_search.engine.policies import keep_value
from cuttle_search.play.agents import AgentError, Greedy, make_agent
from cuttle_search.play.arena import ArenaError, _check_unit, _play_unit, dealers, play_game, run_arena
from cuttle_search.play.statistics import SprtError, pair_report

CT = N_SEAT_RULESETS["cutthroat"]
SEATS = CT.players


class Checked:
    """An agent wrapper that asserts every move it makes is legal where it makes it, and
    records the seats it was asked to play."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.seats: set[int] = set()

    def check_game(self, rules):
        self.inner.check_game(rules)

    def start_game(self, seat):
        self.inner.start_game(seat)

    def observe(self, game, mover, code):
        self.inner.observe(game, mover, code)

    def choose(self, game, seat, rng):
        assert game.actor == seat
        code = self.inner.choose(game, seat, rng)
        assert code in {int(c) for c in game.legal_codes()}
        self.seats.add(seat)
        return code


def test_find_ruleset_knows_the_seat_rulesets_and_refuses_the_rest():
    assert find_ruleset("cutthroat") == CT and find_ruleset(" Cutthroat ") == CT and find_ruleset(CT) is CT
    assert find_ruleset("cuttle-cards:four=random") == get_ruleset("cuttle-cards:four=random")
    assert find_ruleset("cutthroat:four=random").four == "random"
    with pytest.raises(RulesError, match="unknown ruleset 'nope'.*cutthroat"):
        find_ruleset("nope")


@pytest.mark.parametrize("spec", ["random", "greedy", "pimc:iterations=60", "ismcts:iterations=60",
                                  "ismcts:iterations=60,rollout=random", "oracle:iterations=60"])
def test_every_agent_plays_only_legal_moves_in_three_seats(spec):
    """Each agent plays every seat of a 3-seat game against random and greedy seats; every
    move it makes is legal, the game ends, and the seats' shares add up to one game."""
    for d in range(2):
        for seat in range(SEATS):
            me = Checked(make_agent(spec))
            agents = [make_agent("random" if q % 2 else "greedy") for q in range(SEATS)]
            agents[seat] = me
            rec = play_game(CT, 300 + d, agents, rng_seed=d)
            assert rec.status != "ongoing" and len(rec.players) == SEATS
            assert sum(rec.shares) == pytest.approx(1.0)
            assert set(rec.shares) <= {0.0, 1 / SEATS, 1.0}
            assert rec.winner is None or rec.shares[rec.winner] == 1.0
            assert me.seats == ({seat} if rec.decisions[seat] else set())


def test_win_share_counts_a_win_for_its_seat_and_shares_a_stalemate():
    for rules in (CT, get_ruleset("cuttle-cards")):
        n = rules.players
        for d in range(6):
            rec = play_game(rules, 40 + d, [make_agent("random") for _ in range(n)], rng_seed=d)
            if rec.winner is None:
                assert rec.shares == [1 / n] * n
            else:
                assert rec.shares == [float(q == rec.winner) for q in range(n)]
    end = Position.deal(CT, 3)
    end.state[L.F_PHASE] = L.PH_OVER
    end.state[L.F_STATUS] = L.ST_STALEMATE_PASSES
    assert [win_share(end.state, end.rules_array, q) for q in range(SEATS)] == [1 / 3] * 3


def test_greedy_takes_a_win_on_the_spot_in_three_seats():
    """Wherever a seat's view offers a move that wins outright (every opponent declining
    to counter), greedy plays a winning move."""
    greedy = Greedy("greedy")
    rng = np.random.default_rng(0)
    found = 0
    for d in range(40):
        pos = Position.deal(CT, 900 + d)
        while not pos.is_over:
            seat = pos.actor
            if seat != L.ACTOR_CHANCE and pos.phase == L.PH_MAIN:
                view = pos.view_of(seat)
                wins = []
                for code in view.legal_codes():
                    child = view.state.copy()
                    apply_unopposed(child, view.rules_array, np.int64(code))
                    if child[L.F_STATUS] == L.ST_WIN and child[L.F_WINNER] == seat:
                        wins.append(int(code))
                if wins:
                    found += 1
                    assert greedy.choose(pos, seat, rng) in wins
            codes = pos.legal_codes()
            pos.push(Move.from_code(int(codes[rng.integers(len(codes))])))
    assert found > 5


def test_greedy_values_a_joker_it_keeps_like_the_best_rank():
    """The engine's keep_value has no Joker entry; the agent's never reads past it."""
    king = keep_value(1 << (4 * L.RANK_KING))
    assert keep_value(1 << L.JOKER_1) == king and keep_value(L.JOKERS) == 2 * king
    assert keep_value(L.JOKERS | 1) == 2 * king + keep_value(1)


def test_two_seat_agents_say_so():
    rs = "cutthroat"
    for spec in ("cuttlebot", "ismcts:iterations=50,infer=1"):
        agent = make_agent(spec)
        agent.check_game(get_ruleset("cuttle-cards"))
        with pytest.raises(AgentError, match=r"at most 2 seats .*cutthroat has 3"):
            agent.check_game(CT)
        with pytest.raises(AgentError, match="at most 2 seats"):
            play_game(CT, 1, [agent, make_agent("random"), make_agent("random")], 1)
        with pytest.raises(AgentError, match="at most 2 seats"):
            run_arena("random", spec, 3, rules=rs)
    for spec in ("random", "greedy", "pimc", "ismcts", "oracle"):
        make_agent(spec).check_game(CT)
    with pytest.raises(ArenaError, match="agents: cutthroat has 3 seats, one agent each, but 2 agents"):
        play_game(CT, 1, [make_agent("random"), make_agent("random")], 1)
    out = CliRunner().invoke(main, ["arena", "cuttlebot", "random", "--rules", "cutthroat", "--games", "3"])
    assert out.exit_code == 2 and "at most 2 seats" in out.output and "Traceback" not in out.output


def test_a_rotation_seats_a_in_every_seat_on_the_same_deal():
    out = _play_unit(("cutthroat", "greedy", "random", 7, 2, "quick", True))
    assert [g["aSeat"] for g in out["games"]] == [0, 1, 2]
    logs = out["logs"]
    assert len({json.dumps([log["dealSeed"], log["dealer"]]) for log in logs}) == 1  # one deal, three games
    for k, log in enumerate(logs):
        assert log["players"] == {f"p{q}": "greedy" if q == k else "random" for q in range(SEATS)}
        assert [g["score"] for g in out["games"]][k] == (
            1.0 if log["result"]["winner"] == f"p{k}" else 1 / 3 if log["result"]["winner"] is None else 0.0)
    again = _play_unit(("cutthroat", "greedy", "random", 7, 2, "quick", True))  # a pure function of its arguments

    def timeless(unit):
        return [{k: v for k, v in g.items() if not k.endswith("Seconds")} for g in unit["games"]], unit["logs"]

    assert timeless(again) == timeless(out)


def test_arena_scores_win_shares_over_rotations_and_a_seed_reproduces_it():
    a = run_arena("greedy", "random", 7, rules="cutthroat", seed=4)
    j = a.to_json()
    assert a.seats == 3 and a.pairs == 3 and a.games == 9  # 7 games round up to whole rotations
    per_deal = [np.mean([g["score"] for g in u["games"]]) for u in a.units]
    assert a.score == pytest.approx(np.mean(per_deal))
    assert j["score"] == round(a.score, 4) and j["evenShare"] == round(1 / 3, 4)
    assert j["wins"] + j["draws"] + j["losses"] == j["games"] == 9
    assert j["wins"] + j["draws"] / 3 == pytest.approx(a.score * 9)
    assert j["scoreInterval"][0] <= j["score"] <= j["scoreInterval"][1]
    assert {k: v["games"] for k, v in j["bySeat"].items()} == {"p0": 3, "p1": 3, "p2": 3}
    assert np.mean([v["score"] for v in j["bySeat"].values()]) == pytest.approx(a.score, abs=1e-4)
    assert j["pentanomial"] is None and j["sprt"] is None and j["elo"] is None
    assert any(line.startswith("Share: ") for line in a.report_lines())
    again = run_arena("greedy", "random", 7, rules="cutthroat", seed=4)
    assert again.pair_results() == a.pair_results()
    other = run_arena("greedy", "random", 7, rules="cutthroat", seed=5)
    assert other.pair_results() != a.pair_results()


def test_match_formats_rotate_the_dealer():
    assert dealers(CT, 5) == [2, 0, 1, 2, 0]
    out = _play_unit(("cutthroat", "greedy", "random", 3, 0, "bo3", True))
    assert len(out["matches"]) == SEATS and set(out["matches"]) <= {0.0, 1 / 3, 1.0}
    for a_seat in range(SEATS):
        games = [g for g in out["games"] if g["aSeat"] == a_seat]
        assert [g["dealer"] for g in games] == dealers(CT, len(games))
    first_to_act = {2: 0, 0: 1, 1: 2}  # the seat after the dealer starts
    for log, game in zip(out["logs"], out["games"]):
        start = replay(check_game_log(log), 0)
        assert log["dealer"] == f"p{game['dealer']}" and start.actor == first_to_act[game["dealer"]]


def test_the_two_seat_statistics_refuse_three_seats():
    with pytest.raises(SprtError, match="sprt: .*cutthroat has 3 seats"):
        run_arena("greedy", "random", 3, rules="cutthroat", sprt="0,10")
    with pytest.raises(ValueError, match="two-seat"):
        pair_report([[1.0, 0.0, 1 / 3]])
    out = CliRunner().invoke(main, ["arena", "greedy", "random", "--rules", "cutthroat", "--sprt", "0,10"])
    assert out.exit_code == 2 and "two seats" in out.output and "Traceback" not in out.output


def test_three_seat_results_file_resumes_and_is_checked(tmp_path):
    path = tmp_path / "m.jsonl"
    first = run_arena("greedy", "random", 3, rules="cutthroat", seed=2, save=path)
    resumed = run_arena("greedy", "random", 6, rules="cutthroat", seed=2, resume=path)
    whole = run_arena("greedy", "random", 6, rules="cutthroat", seed=2)
    assert resumed.resumed == first.pairs == 1 and resumed.pair_results() == whole.pair_results()
    lines = path.read_text().splitlines()
    unit = json.loads(lines[1])
    assert _check_unit(unit, "quick", 3)["games"][0]["aSeat"] == 0
    for bad, message in (({"aSeat": 3}, "aSeat"), ({"score": 0.5}, "score: must be 0, 1/3 or 1"), ({"dealer": -1}, "dealer")):
        broken = json.loads(lines[1])
        broken["games"][0].update(bad)
        with pytest.raises(ValueError, match=message):
            _check_unit(broken, "quick", 3)
    broken = json.loads(lines[1])
    broken["games"][1]["aSeat"] = 0
    with pytest.raises(ValueError, match="every seat"):
        _check_unit(broken, "quick", 3)
    path.write_text("\n".join(lines[:1] + [json.dumps(broken)]) + "\n")
    with pytest.raises(ArenaError, match="line 2: games: A must sit in every seat"):
        run_arena("greedy", "random", 6, rules="cutthroat", seed=2, resume=path)


def test_a_three_seat_game_log_round_trips(tmp_path):
    agents = [make_agent("greedy"), make_agent("pimc:iterations=60"), make_agent("random")]
    rec = play_game(CT, 77, agents, rng_seed=5, dealer=1)
    log = json.loads(json.dumps(rec.to_json()))
    assert log["players"] == {"p0": "greedy", "p1": "pimc:iterations=60", "p2": "random"}
    assert log["rules"] == "cutthroat" and log["dealer"] == "p1" and log["dealSeed"] == 77
    assert set(log) == set(LOG_KEYS)  # every key a log may hold, and no other (the reader refuses others)
    start, moves, about = read_game(log)
    assert start.actor == 2 and int(start.state[L.F_DEALER]) == 1
    assert [m.text() for m in moves] == rec.moves and about["players"] == log["players"]
    end = replay(check_game_log(log))
    assert end.is_over and end.result() == {"status": rec.status, "winner": log["result"]["winner"]}
    (tmp_path / "g.json").write_text(json.dumps(log))
    out = CliRunner().invoke(main, ["replay", str(tmp_path / "g.json")])
    assert out.exit_code == 0, out.output
    # the log is untrusted input
    for key, value, message in (("dealer", "p7", "dealer: p7 is not a seat of cutthroat"),
                                ("dealer", "north", "dealer: expected a seat"),
                                ("dealer", "p\u00b2", "dealer: expected a seat"),  # a digit to isdigit, not to int
                                ("dealer", "p\u0661", "dealer: expected a seat"),  # an Arabic-Indic 1
                                ("resutl", {}, r"resutl: not a field of a game log \(did you mean 'result'\?\)"),
                                ("rules", "cutthroat:four=sometimes", "rules: .*four")):
        with pytest.raises(GameLogError, match=message):
            replay(check_game_log({**log, key: value}))
    with pytest.raises(GameLogError, match=r"moves\[0\]"):
        replay(check_game_log({**log, "moves": ["scuttle 9S 7H"] + log["moves"][1:]}))
    no_deal = {k: v for k, v in log.items() if k not in ("dealSeed", "start")}
    with pytest.raises(GameLogError, match="start: expected the starting position"):
        check_game_log(no_deal)


def test_two_seat_logs_keep_their_start_position():
    rec = play_game(get_ruleset("cuttle-cards"), 12, (make_agent("greedy"), make_agent("random")), 3)
    log = rec.to_json()
    assert "start" in log and "dealer" not in log and list(log["players"]) == ["p0", "p1"]
    assert Position.from_dict(log["start"]).state.tolist() == Position.deal("cuttle-cards", 12).state.tolist()


def test_score_interval_takes_the_stalemate_share():
    from cuttle_search.analysis.result import score_interval

    assert score_interval(10, 3, 4) == score_interval(10, 3, 4, 0.5)
    mean, lo, hi = score_interval(30, 6, 9, 1 / 3)
    assert mean == pytest.approx((6 + 9 / 3) / 30) and lo < mean < hi
