"""Agents and the arena: legality, pairing, reproducibility, statistics, logs."""

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from cuttle_search.play.agent import Agent
from cuttle_search.play.agents import AgentError, make_agent
from cuttle_search.game.cards import parse_card
from cuttle_search.play.arena import _play_unit, elo, match_score_interval, play_game, replay, run_arena
from cuttle_search.play.arena_games import ArenaError
from cuttle_search.cli import main
from cuttle_search.game.position import Position
from cuttle_search.game.rules import PRESETS, get_ruleset

from .helpers import build


def test_elo_and_interval_arithmetic():
    assert elo(0.5) == 0.0
    assert elo(0.75) == pytest.approx(190.848, abs=1e-3)
    assert elo(0.25) == pytest.approx(-190.848, abs=1e-3)
    assert elo(0.9) == pytest.approx(381.697, abs=1e-3)
    assert elo(1.0) == math.inf and elo(0.0) == -math.inf
    mean, lo, hi = match_score_interval([1.0, 0.5, 0.5, 1.0])
    assert mean == 0.75
    # sample sd sqrt(1/12); half width 1.959964 * 0.288675 / 2
    assert lo == pytest.approx(0.75 - 1.959964 * math.sqrt(1 / 12) / 2, abs=1e-6) and hi == 1.0
    assert match_score_interval([0.5] * 10)[1:] == pytest.approx((0.5, 0.5))


def test_paired_deals_swap_seats_on_the_same_deck():
    out = _play_unit(("cuttle-cards", "random", "greedy", 7, 3, "quick", True))
    first, second = out["logs"]
    assert first["start"] == second["start"]  # the same shuffled deck
    assert first["players"] == {"p0": "random", "p1": "greedy"}
    assert second["players"] == {"p0": "greedy", "p1": "random"}
    assert [g["aSeat"] for g in out["games"]] == [0, 1]


def test_a_seed_reproduces_a_match_with_any_number_of_workers():
    a = run_arena("greedy", "cuttlebot", 12, seed=5).to_json()
    b = run_arena("greedy", "cuttlebot", 12, seed=5, workers=2).to_json()
    for key in ("wins", "draws", "losses", "score", "scoreInterval", "elo", "meanPlies"):
        assert a[key] == b[key]
    c = run_arena("greedy", "cuttlebot", 12, seed=6).to_json()
    assert (c["meanPlies"], c["score"]) != (a["meanPlies"], a["score"])


AGENT_SPECS = [
    "random", "greedy", "cuttlebot", "pimc:iterations=300", "ismcts:iterations=300",
    "ismcts:iterations=300,rollout=heuristic", "ismcts:iterations=300,infer=1", "pimc:iterations=300,rollout=random",
    "oracle:iterations=300", "pimc-solver:iterations=300",
]


@pytest.mark.parametrize("rules", list(PRESETS) + ["cuttle-cards:four=random,ten-counters-scuttle,eight-one-off"])
def test_every_agent_plays_only_legal_moves(rules):
    """play_game refuses an illegal move; each agent meets every other on two deals."""
    rs = get_ruleset(rules)
    agents = [make_agent(s) for s in AGENT_SPECS]
    for i, a in enumerate(agents):
        b = agents[(i + 1) % len(agents)]
        for d in range(2):
            rec = play_game(rs, 1000 + 10 * i + d, (a, b), rng_seed=d)
            assert rec.status != "ongoing" and len(rec.moves) > 0


@pytest.mark.slow
@pytest.mark.parametrize("rules", list(PRESETS))
def test_every_agent_plays_only_legal_moves_long(rules):
    rs = get_ruleset(rules)
    agents = [make_agent(s) for s in ["random", "greedy", "cuttlebot", "pimc:iterations=200", "ismcts:iterations=200",
                                      "ismcts:iterations=200,rollout=heuristic", "ismcts:iterations=200,infer=1",
                                      "oracle:iterations=200"]]
    for i, a in enumerate(agents):
        for j, b in enumerate(agents):
            for d in range(10):
                play_game(rs, 7 * i + 101 * j + d, (a, b), rng_seed=d)


def test_cuttlebot_takes_the_immediate_win():
    pos = build(p0Points=["TH", "4C"], p0Hand=["KD", "4S", "3D", "5H"], p1Points=["9S"], p1Hand=["2C", "QH"])
    bot = make_agent("cuttlebot")
    for seed in range(5):
        code = bot.choose(pos, 0, np.random.default_rng(seed))
        assert code == next(m.code() for m in pos.legal_moves() if m.text() == "royal KD")


def test_oracle_plays_on_the_true_state_and_the_others_on_their_view():
    """Only the deck order differs: the oracle sees the Ten on top and plays the 7 that
    reveals it (11 + 10 = 21 points); over junk it plays the 7 as points. The fair search
    cannot tell the two decks apart and plays the same move on both."""
    def position(top):
        return build(p0Hand=["7H", "4C"], p0Points=["9C", "2D"], p1Points=["6H"], p1Hand=["5C", "6C"],
                     deck_top=top)

    ten_on_top, junk_on_top = position(["TH", "TS", "4D", "5D"]), position(["3S", "3C", "4D", "5D"])
    oracle, fair = make_agent("oracle:iterations=5000"), make_agent("ismcts:iterations=5000")
    assert oracle.view(ten_on_top, 0) is ten_on_top and fair.view(ten_on_top, 0).view == 0

    def text(agent, pos):
        code = agent.choose(pos, 0, np.random.default_rng(0))
        return next(m.text() for m in pos.legal_moves() if m.code() == code)

    assert text(oracle, ten_on_top) == "one-off 7H"
    assert text(oracle, junk_on_top) == "points 7H"
    assert text(fair, ten_on_top) == text(fair, junk_on_top)


def test_ismcts_infers_the_opponent_lacks_the_winners_it_passed_up(monkeypatch):
    """p1, on 15 points of 21, draws instead of winning: an ``infer=1`` search then deals
    p1 no card that would have won (a 6-10, a Jack on p0's 7, a King), except its fresh draw."""
    from cuttle_search.play import agents
    from cuttle_search.engine import layout as L
    from cuttle_search.engine.info import winning_cards

    seen = []
    real = agents.run_search

    def spy(*args, inference=None, **kw):
        seen.append(inference)
        return real(*args, inference=inference, **kw)

    monkeypatch.setattr(agents, "run_search", spy)
    game = build(p0Points=["7C"], p1Points=["TH", "5D"], p0Hand=["2C", "3H"], p1Hand=["AS", "4H"], turn=1,
                 scrap=["2D", "3D", "4D", "5H"])  # (a deck of at most 41: the deal's)
    view = game.view_of(0)
    winners = int(winning_cards(view.state, view.rules_array, 1, np.int64(view.unknown_cards),
                                  np.zeros(L.STATE_SIZE, np.int64), np.zeros(L.MAX_MOVES, np.int64)))
    for spec, expect in (("ismcts:iterations=300,infer=1", True), ("ismcts:iterations=300", False)):
        g = game.copy()
        agent = make_agent(spec)
        agent.start_game(0)
        draw = next(m for m in g.legal_moves() if m.text() == "draw")
        agent.observe(g, 1, draw.code())
        g.push(draw)
        agent.choose(g, 0, np.random.default_rng(0))
        if expect:
            assert seen[-1].excluded == winners & g.view_of(0).unknown_cards and seen[-1].fresh == 1
            assert all(winners >> parse_card(c) & 1 for c in ("TC", "TD", "TS", "KC", "KD", "KH", "KS", "JC", "6S"))
            assert not any(winners >> parse_card(c) & 1 for c in ("5C", "AH", "QD"))
        else:
            assert seen[-1] is None


def _pimc_solver_position():
    """p0 on 14 points with a King in hand (a goal of 14: a win at once) and five cards it
    cannot see: p1's two and the three in the deck."""
    return build(p0Points=["TH", "4C"], p0Hand=["KD", "4S", "3D"], p1Points=["9S"], p1Hand=["2C", "QH"],
                 deck_top=["5D", "6D", "7D"], rest="scrap")


# (a time budget's worlds depend on the machine's speed and load: that case runs with -m slow)
@pytest.mark.parametrize("budget", ["iterations=2000", pytest.param("time=0.5", marks=pytest.mark.slow)])
def test_pimc_solver_solves_each_sampled_deal_near_the_end_of_the_deck(budget):
    pos = _pimc_solver_position()
    view = pos.view_of(0)
    assert bin(view.unknown_cards).count("1") == 5
    agent = make_agent(f"pimc-solver:{budget},worlds=8")
    code = agent.choose(pos, 0, np.random.default_rng(0))
    assert code == next(m.code() for m in pos.legal_moves() if m.text() == "royal KD")
    assert agent.stats["solved"] == 1 and agent.stats["searched"] == 0 and agent.stats["fallback"] == 0
    assert agent.stats["worldsProven"] == agent.stats["worldsTried"] == 8


def test_pimc_solver_searches_where_more_cards_are_unseen():
    pos = _pimc_solver_position()
    agent = make_agent("pimc-solver:iterations=300,unseen=4")
    code = agent.choose(pos, 0, np.random.default_rng(0))
    assert code in {m.code() for m in pos.legal_moves()}
    assert agent.stats["searched"] == 1 and agent.stats["solved"] == 0 and agent.stats["worldsTried"] == 0


def test_pimc_solver_searches_where_the_rules_reshuffle():
    # two seats of Cuttle Multiplayer: the scrap goes back into the deck, a chance event
    # the exact solver does not play, so every decision is the tree's
    rs = get_ruleset("multiplayer:players=2")
    agent = make_agent("pimc-solver:iterations=200,unseen=52")
    rec = play_game(rs, 11, (agent, make_agent("random")), rng_seed=0)
    assert rec.status != "ongoing"
    assert agent.stats["searched"] > 0 and agent.stats["solved"] == agent.stats["worldsTried"] == 0


def test_pimc_solver_falls_back_to_the_search_when_no_deal_is_proven():
    # a node budget far too small for a deal with cards in the deck: every deal is left out
    pos = Position.deal(get_ruleset("cuttle-cards"), seed=3)
    agent = make_agent("pimc-solver:iterations=1,worlds=2,unseen=52")
    code = agent.choose(pos, pos.actor, np.random.default_rng(0))
    assert code in {m.code() for m in pos.legal_moves()}
    assert agent.stats["fallback"] == 1 and agent.stats["worldsProven"] == 0 and agent.stats["worldsTried"] == 2


def test_pimc_solver_options_and_seats():
    for spec, message in [("pimc-solver:worlds=0", "worlds must be > 0"), ("pimc-solver:unseen=many", "unseen must be a whole number"),
                          ("pimc-solver:worlds=100000", "worlds must be a finite number at most 10,000"),
                          ("pimc-solver:unseen=60", "unseen must be a finite number at most 54"),
                          ("pimc-solver:infer=1", "unknown parameter")]:
        with pytest.raises(AgentError, match=message):
            make_agent(spec)
    agent = make_agent("pimc-solver")
    assert (agent.worlds, agent.unseen, agent.iterations) == (16, 8, 10_000)
    with pytest.raises(AgentError):
        agent.check_game(get_ruleset("cutthroat"))


def test_a_game_can_start_from_a_position_and_its_log_replays():
    start = _pimc_solver_position()
    before = start.state.copy()
    rec = play_game(start.rules, 5, (make_agent("greedy"), make_agent("random")), rng_seed=1, start=start)
    assert np.array_equal(start.state, before) and rec.moves[0] == "royal KD" and rec.winner == 0
    log = rec.to_json()
    assert replay(log).is_over and Position.from_dict(log["start"]).state.tolist() == before.tolist()


def test_greedy_takes_a_win_and_blocks_a_threat():
    pos = build(p0Points=["TH", "4C"], p0Hand=["KD", "4S", "3D"], p1Points=["9S"], p1Hand=["2C", "QH"])
    g = make_agent("greedy")
    assert g.choose(pos, 0, np.random.default_rng(0)) == next(m.code() for m in pos.legal_moves() if m.text() == "royal KD")
    # p1 sits on 19 points: greedy scuttles the Ten rather than playing points
    pos = build(p0Hand=["TS", "6D", "7H"], p0Points=["5C"], p1Points=["TH", "5D", "4S"], p1Hand=["KC"])
    assert g.choose(pos, 0, np.random.default_rng(0)) == next(m.code() for m in pos.legal_moves() if m.text() == "scuttle TS TH")


def test_match_formats_play_matches():
    r = run_arena("greedy", "random", 6, seed=2, match="bo3")
    assert r.matches["played"] == 6 and r.games >= 12
    assert r.matches["won"] + r.matches["drawn"] + r.matches["lost"] == 6


def test_game_logs_replay_exactly_and_export_positions(tmp_path):
    run_arena("greedy", "cuttlebot", 2, seed=3, log_dir=tmp_path)
    logs = sorted(tmp_path.glob("*.json"))
    assert len(logs) == 2
    log = json.loads(logs[0].read_text())
    final = replay(log)
    assert final.is_over and final.result()["winner"] == log["result"]["winner"]
    mid = replay(log, upto=len(log["moves"]) // 2)
    out = tmp_path / "turning-point.json"
    r = CliRunner().invoke(main, ["replay", str(logs[0]), "--ply", str(len(log["moves"]) // 2), "--export", str(out), "--view", "p0"])
    assert r.exit_code == 0, r.output
    exported = Position.load(out)
    assert exported.view == 0 and exported.phase == mid.phase
    assert exported.to_dict()["p0Hand"] == mid.to_dict()["p0Hand"]


def test_bad_agent_specs():
    with pytest.raises(AgentError, match="unknown agent 'alphazero'"):
        make_agent("alphazero")
    with pytest.raises(AgentError, match="unknown parameter"):
        make_agent("ismcts:depth=3")
    with pytest.raises(AgentError, match="iterations must be a whole number"):
        make_agent("ismcts:iterations=lots")
    with pytest.raises(AgentError, match="infer must be a 0 or 1"):
        make_agent("ismcts:infer=yes")
    assert make_agent("ismcts:infer=0").infer is False and make_agent("ismcts:infer=1").infer is True
    r = CliRunner().invoke(main, ["arena", "random", "nobody", "-n", "2"])
    assert r.exit_code == 2 and "unknown agent 'nobody'" in r.output


def test_cli_arena_smoke():
    r = CliRunner().invoke(main, ["arena", "random", "greedy", "-n", "6", "--seed", "1", "--json"])
    assert r.exit_code == 0, r.output
    j = json.loads(r.output)
    assert j["games"] == 6 and j["wins"] + j["draws"] + j["losses"] == 6 and j["pairedDeals"] == 3
    assert j["scoreInterval"][0] <= j["score"] <= j["scoreInterval"][1]


def test_the_arena_says_when_it_rounds_the_games_and_what_each_figure_counts():
    """Issue 26 item 16: games rounded up to whole pairs or rotations are announced first
    (text and JSON), and the pentanomial ratios say they count pairs, the W/D/L games."""
    from cuttle_search.play.arena import planned_games

    assert planned_games(10, 2) == (10, None)
    assert planned_games(9, 2) == (10, "9 games asked; playing 10: whole pairs, each deal played twice with the "
                                        "seats swapped")
    assert planned_games(10, 3) == (12, "10 games asked; playing 12: whole rotations of 3 seats, each deal played 3 "
                                        "times with A in each seat")
    assert planned_games(1, 3, "bo3") == (3, "1 match asked; playing 3: whole rotations of 3 seats, each match's "
                                             "deals played 3 times with A in each seat")
    r = CliRunner().invoke(main, ["arena", "greedy", "random", "-n", "10", "--rules", "cutthroat", "--seed", "2"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0] == planned_games(10, 3)[1] and lines[1].startswith("greedy vs random: 4 deals (every seat rotation), "
                                                                       "12 games")
    j = json.loads(CliRunner().invoke(main, ["arena", "greedy", "random", "-n", "10", "--rules", "cutthroat", "--json"]).stdout)
    assert (j["gamesAsked"], j["gamesPlanned"], j["games"], j["rounding"]) == (10, 12, 12, planned_games(10, 3)[1])
    j = json.loads(CliRunner().invoke(main, ["arena", "greedy", "random", "-n", "4", "--json"]).stdout)
    assert (j["gamesAsked"], j["gamesPlanned"], j["rounding"]) == (4, 4, None)
    r = CliRunner().invoke(main, ["arena", "greedy", "random", "-n", "9", "--seed", "2"])
    text = r.stdout
    assert text.splitlines()[0] == planned_games(9, 2)[1] and "games: A won " in text and " of 10\n" in text
    assert "% of pairs (1 point of 2)" in text and "(pairs won / lost)" in text and "] of 5 pairs," in text
    assert "by pairs of games (a pair: one deal played twice, the seats swapped)" in text


# ---------------------------------------------------------------- results files, resume, logs, SPRT, workers dying
def _lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_save_writes_every_pair_and_resume_finishes_a_stopped_match(tmp_path):
    full = run_arena("greedy", "cuttlebot", 12, seed=8)
    out = tmp_path / "m.jsonl"
    run_arena("greedy", "cuttlebot", 12, seed=8, save=out)
    rows = _lines(out)
    assert rows[0]["format"] == "cuttle-search/arena-results" and rows[0]["seed"] == 8 and len(rows) == 7
    assert sorted(r["index"] for r in rows[1:]) == list(range(6))
    # stop it after three pairs, the fourth cut off mid-write
    text = out.read_text().splitlines(keepends=True)
    out.write_text("".join(text[:4]) + text[4][:25])
    r = run_arena("greedy", "cuttlebot", 12, seed=8, resume=out)
    assert r.resumed == 3 and r.pair_results() == full.pair_results()
    assert r.to_json()["pentanomial"] == full.to_json()["pentanomial"]
    assert sorted(x["index"] for x in _lines(out)[1:]) == list(range(6))  # the cut line is gone, the pairs complete
    # a last line whole but for its newline is kept, and the next pair goes on a line of its own
    out.write_text(out.read_text().rstrip("\n"))
    assert run_arena("greedy", "cuttlebot", 14, seed=8, resume=out).resumed == 6
    assert sorted(x["index"] for x in _lines(out)[1:]) == list(range(7))
    # a longer match goes on from the same file
    more = run_arena("greedy", "cuttlebot", 16, seed=8, resume=out)
    assert more.resumed == 7 and more.pair_results() == run_arena("greedy", "cuttlebot", 16, seed=8).pair_results()


def _arena_cli(*args):
    return CliRunner().invoke(main, ["arena", *args])


def test_resume_refuses_a_file_of_another_match_or_a_damaged_one(tmp_path):
    f = tmp_path / "m.jsonl"
    assert _arena_cli("greedy", "random", "-n", "4", "--seed", "3", "--save", str(f)).exit_code == 0
    r = _arena_cli("greedy", "random", "-n", "4", "--seed", "3", "--save", str(f))
    assert r.exit_code == 2 and "already exists; continue it with --resume" in r.output
    for args, msg in [(("random", "greedy", "--seed", "3"), "agentA: the file's match has 'greedy'"),
                      (("greedy", "random", "--seed", "4"), "seed: the file's match has 3"),
                      (("greedy", "random", "--seed", "3", "--rules", "classic"), "rules: the file's match has 'cuttle-cards'"),
                      (("greedy", "random", "--seed", "3", "--match", "bo3"), "match: the file's match has 'quick'")]:
        r = _arena_cli(*args, "-n", "4", "--resume", str(f))
        assert r.exit_code == 2 and msg in r.output and len(r.output.strip().splitlines()) == 1, r.output
    head, first, second = f.read_text().splitlines()
    unit = json.loads(first)
    bad_units = [
        ("not valid JSON", "{oops"),
        ("index: must be a whole number", json.dumps({**unit, "index": -1})),
        ("games: must be a list of 2 games", json.dumps({**unit, "games": unit["games"][:1]})),
        ("games[0].score: must be 0, 0.5 or 1", json.dumps({**unit, "games": [{**unit["games"][0], "score": 0.7}, unit["games"][1]]})),
        ("games[1].aSeat", json.dumps({**unit, "games": [unit["games"][0], {**unit["games"][1], "aSeat": True}]})),
        ("games[0].aSeconds", json.dumps({**unit, "games": [{**unit["games"][0], "aSeconds": "1"}, unit["games"][1]]})),
        ("pair 0 appears twice", first),
        ("a pair must be a JSON object", "[1, 2]"),
        ("JSON nested deeper than 64 levels", "[" * 100000 + "]" * 100000),
        ("line 3: the key 'index' appears twice", '{"index": 1, ' + json.dumps({**unit, "index": 5})[1:]),
    ]
    for msg, line in bad_units:
        f.write_text("\n".join([head, first, line]) + "\n")
        r = _arena_cli("greedy", "random", "-n", "4", "--seed", "3", "--resume", str(f))
        assert r.exit_code == 2 and msg in r.output and len(r.output.strip().splitlines()) == 1, (msg, r.output)
    f.write_bytes(b"\xff\xfe\n")
    r = _arena_cli("greedy", "random", "-n", "4", "--seed", "3", "--resume", str(f))
    assert r.exit_code == 2 and "not UTF-8" in r.output
    f.write_text(json.dumps({**json.loads(head), "engineVersion": "0.0.1"}) + "\n")
    r = _arena_cli("greedy", "random", "-n", "4", "--seed", "3", "--resume", str(f))
    assert r.exit_code == 2 and "engineVersion" in r.output
    f.write_text(json.dumps({"format": "cuttle-search/game"}) + "\n")
    r = _arena_cli("greedy", "random", "-n", "4", "--seed", "3", "--resume", str(f))
    assert r.exit_code == 2 and "not an arena results file" in r.output
    r = _arena_cli("greedy", "random", "-n", "4", "--resume", str(tmp_path / "missing.jsonl"))
    assert r.exit_code == 2 and "cannot read" in r.output
    r = _arena_cli("greedy", "random", "-n", "4", "--resume", str(f), "--save", str(tmp_path / "x"))
    assert r.exit_code == 2 and "not both" in r.output


def test_log_dir_is_checked_before_play_and_logs_are_written_as_games_finish(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("x")
    played = []
    import cuttle_search.play.arena as arena_mod

    real = arena_mod._play_unit

    def spy(job):
        played.append(job[4])
        if job[4] == 2:
            raise RuntimeError("the machine went down")
        return real(job)

    monkeypatch.setattr(arena_mod, "_play_unit", spy)
    r = _arena_cli("greedy", "random", "-n", "4", "--log-dir", str(tmp_path / "file" / "logs"))
    assert r.exit_code == 2 and r.output.startswith("Error: log-dir: cannot create or write") and not played
    assert len(r.output.strip().splitlines()) == 1
    with pytest.raises(RuntimeError, match="went down"):
        run_arena("greedy", "random", 10, seed=1, log_dir=tmp_path / "logs", save=tmp_path / "m.jsonl")
    # the two pairs played before the failure are on disk: four logs and two saved pairs
    assert sorted(p.name for p in (tmp_path / "logs").glob("*.json")) == [
        "pair00000-game0.json", "pair00000-game1.json", "pair00001-game0.json", "pair00001-game1.json"]
    assert [u["index"] for u in _lines(tmp_path / "m.jsonl")[1:]] == [0, 1]
    # a new match refuses that folder (it would replace four logs and mix two matches); the
    # interrupted one goes on in it
    monkeypatch.setattr(arena_mod, "_play_unit", real)
    before = (tmp_path / "logs" / "pair00000-game0.json").read_text()
    r = _arena_cli("greedy", "random", "-n", "2", "--seed", "9", "--log-dir", str(tmp_path / "logs"))
    assert r.exit_code == 2 and "already holds game logs (pair00000-game0.json, ...): give a new or empty" in r.output
    assert (tmp_path / "logs" / "pair00000-game0.json").read_text() == before
    done = run_arena("greedy", "random", 10, seed=1, log_dir=tmp_path / "logs", resume=tmp_path / "m.jsonl")
    assert done.pairs == 5 and len(list((tmp_path / "logs").glob("pair*-game*.json"))) >= 6
    # another match resumed into that folder is refused: its first log is of seed 1's deals,
    # or, on the same deals, of other agents
    run_arena("greedy", "random", 2, seed=2, save=tmp_path / "other.jsonl")
    with pytest.raises(ArenaError, match=r"pair00000-game0.json is not of the match --resume continues"):
        run_arena("greedy", "random", 4, seed=2, log_dir=tmp_path / "logs", resume=tmp_path / "other.jsonl")
    run_arena("random", "random", 2, seed=1, save=tmp_path / "agents.jsonl")
    with pytest.raises(ArenaError, match=r"is not of the match --resume continues \(random against random"):
        run_arena("random", "random", 4, seed=1, log_dir=tmp_path / "logs", resume=tmp_path / "agents.jsonl")
    # a wrong --seed is named as the results file's mismatch, before the folder is looked at
    with pytest.raises(ArenaError, match=r"seed: the file's match has 1, but this one has 5"):
        run_arena("greedy", "random", 10, seed=5, log_dir=tmp_path / "logs", resume=tmp_path / "m.jsonl")


def test_sprt_stops_when_it_decides_whatever_the_workers():
    one = run_arena("greedy", "random", 200, seed=4, sprt="0,100")
    two = run_arena("greedy", "random", 200, seed=4, sprt="0,100", workers=2)
    assert one.sprt["result"] == "H1" and one.pairs < 100
    assert one.pairs == two.pairs and one.pair_results() == two.pair_results() and one.sprt == two.sprt
    assert one.sprt["llr"] >= one.sprt["upper"]
    j = one.to_json()
    assert j["pentanomial"]["counts"][4] > 0 and sum(j["pentanomial"]["counts"]) == one.pairs
    r = _arena_cli("random", "greedy", "-n", "200", "--seed", "4", "--sprt", "0,100,0.05,0.05")
    assert r.exit_code == 0 and "H0 accepted" in r.output and "Ptnml(0-2): [" in r.output


def test_cli_options_refused_in_one_line():
    for args, msg in [(("--sprt", "10,0"), "must be below"), (("--sprt", "0"), "expected elo0,elo1"),
                      (("--address", "auto"), "only the ray backend"),
                      (("openspiel-ismcts",), None)]:
        agents = ("greedy", "random") if args[0].startswith("--") else ("openspiel-ismcts", "random")
        extra = args if args[0].startswith("--") else ()
        r = _arena_cli(*agents, "-n", "2", *extra)
        if msg is None:
            try:
                import pyspiel  # noqa: F401
                continue
            except ImportError:
                msg = "needs the openspiel extra: pip install"
        assert r.exit_code == 2 and msg in r.output and len(r.output.strip().splitlines()) == 1, r.output


def test_a_worker_process_killed_mid_match_loses_no_pair(tmp_path):
    import multiprocessing
    import os
    import signal
    import threading
    import time as _time

    spec = "pimc:iterations=2000"
    reference = run_arena(spec, "greedy", 16, seed=12)
    out = tmp_path / "m.jsonl"
    killed = []
    finished = threading.Event()

    def killer():
        while not finished.is_set() and not killed:
            if out.exists() and len(out.read_text().splitlines()) >= 2:  # a pair done: the workers are busy
                for child in multiprocessing.active_children():
                    os.kill(child.pid, signal.SIGKILL)
                    killed.append(child.pid)
                    break
            _time.sleep(0.02)

    t = threading.Thread(target=killer)
    t.start()
    try:
        r = run_arena(spec, "greedy", 16, seed=12, workers=2, save=out)
    finally:
        finished.set()
        t.join()
    assert killed and r.pool_restarts >= 1
    assert r.pair_results() == reference.pair_results()
    assert r.to_json()["pentanomial"] == reference.to_json()["pentanomial"]


def test_ray_backend_without_the_extra_is_one_line(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails, as without the extra
    r = _arena_cli("greedy", "random", "-n", "2", "--backend", "ray")
    assert r.exit_code == 2 and r.output.strip() == (
        "Error: backend: ray is not installed; install the extra: pip install 'cuttle-search[ray]'")


def test_resuming_with_fewer_games_says_what_it_leaves_out(tmp_path):
    saved = tmp_path / "m.jsonl"
    assert _arena_cli("greedy", "random", "-n", "8", "--seed", "3", "--save", str(saved)).exit_code == 0
    r = _arena_cli("greedy", "random", "-n", "4", "--seed", "3", "--resume", str(saved))
    assert r.exit_code == 0 and "(2 pairs from" in r.output
    assert "holds 2 more pairs past the 2 this --games plans; they are not counted" in r.output
    j = json.loads(_arena_cli("greedy", "random", "-n", "4", "--seed", "3", "--resume", str(saved), "--json").output)
    assert j["pairsResumed"] == 2 and j["pairsSavedBeyond"] == 2


class FirstMove(Agent):
    """A plugin agent of the kind docs/arena.md describes: plays the first legal move, and
    declares no PARAMS (the default: none)."""

    def choose(self, game, seat, rng):
        return int(game.view_of(seat).legal_codes()[0])


def test_an_agent_plugin_is_found_and_a_broken_one_is_named(monkeypatch):
    from importlib.metadata import EntryPoint

    import cuttle_search.play.agents as agents
    from cuttle_search.game.rules import get_ruleset

    group = agents.AGENT_PLUGINS
    plugins = [EntryPoint("first", "tests.test_arena:FirstMove", group),
               EntryPoint("broken", "no_such_module_for_cuttle:Agent", group),
               EntryPoint("notanagent", "json:dumps", group)]
    monkeypatch.setattr(agents, "entry_points", lambda group: [e for e in plugins if e.group == group])
    first = make_agent("first")
    assert "first" in agents.agent_names() and first.name == "first"
    rec = play_game(get_ruleset("cuttle-cards"), 5, (first, make_agent("random")), rng_seed=1)
    assert rec.status != "ongoing"
    with pytest.raises(AgentError, match=r"^agent 'first': unknown parameter 'x=1' \(parameters: none\)$"):
        make_agent("first:x=1")
    with pytest.raises(AgentError, match=r"^agent 'broken': its plugin 'no_such_module_for_cuttle:Agent' cannot be "
                                         r"imported \(ModuleNotFoundError: \"No module named"):
        make_agent("broken")
    with pytest.raises(AgentError, match=r"^agent 'notanagent': its plugin 'json:dumps' is not an Agent class$"):
        make_agent("notanagent")


def test_a_logged_game_plays_again_from_its_seeds(tmp_path):
    """docs/arena.md's recipe: a log's dealSeed and rngSeed, and its players in their seats,
    play the logged game again, move for move (two seats, a match, three seats)."""
    from cuttle_search.game.gamelog import read_game_log
    from cuttle_search.game.rules import get_ruleset
    from cuttle_search.play.arena import game_rng_seed

    for rules, games, match in (("cuttle-cards", 2, "quick"), ("cuttle-cards", 2, "bo3"), ("cutthroat", 3, "quick")):
        out = tmp_path / f"{rules}-{match}"
        run_arena("pimc:iterations=60", "random", games, seed=9, rules=rules, log_dir=str(out), match=match)
        logs = sorted(out.glob("*.json"))
        assert len(logs) >= games
        for path in logs:
            log = read_game_log(path)
            players = log["players"]
            agents = [make_agent(players[f"p{q}"]) for q in range(len(players))]
            dealer = int(log["dealer"][1:]) if "dealer" in log else None
            again = play_game(get_ruleset(rules), log["dealSeed"], agents, log["rngSeed"], dealer=dealer)
            assert again.moves == log["moves"], (rules, match, path.name)
            if match == "quick":  # (the rule the arena seeds quick games by)
                a_seat = next(int(q[1:]) for q, name in players.items() if name.startswith("pimc"))
                assert log["rngSeed"] == game_rng_seed(log["dealSeed"], a_seat)

def test_a_score_of_every_pair_alike_has_an_interval_of_one_value_and_oracle_takes_no_inference():
    from cuttle_search.play.arena_summary import match_score_interval

    assert match_score_interval([1.0, 1.0, 1.0]) == (1.0, 1.0, 1.0)
    result = run_arena("greedy", "random", 4, seed=3)  # (greedy wins all four)
    assert result.score == 1.0 and result.to_json()["eloInterval"] == ["inf", "inf"]
    with pytest.raises(AgentError, match="unknown parameter 'infer=1'"):
        make_agent("oracle:infer=1")  # it sees every hand: there is nothing to infer


@pytest.mark.parametrize("dealer", [5, -1, 2, 1.0, True, "x"])
def test_play_game_refuses_a_dealer_that_is_no_seat(dealer):
    # the record wrote any dealer as a seat, and replay then refused the log
    agents = [make_agent("greedy"), make_agent("random")]
    with pytest.raises(ArenaError) as e:
        play_game("cuttle-cards", 1, agents, 0, dealer=dealer)
    assert str(e.value).startswith("dealer: expected a seat p0 to p1, got ")


def test_play_game_takes_a_dealer_as_a_seat_number_or_name():
    agents = [make_agent("random"), make_agent("random")]
    by_name = play_game("cuttle-cards", 1, agents, 0, dealer="p1").to_json()
    by_number = play_game("cuttle-cards", 1, agents, 0, dealer=np.int64(1)).to_json()
    assert by_name["dealer"] == by_number["dealer"] == "p1" and by_name["moves"] == by_number["moves"]
    assert replay(by_name).is_over


@pytest.mark.parametrize("spec", [5, None, ["greedy"]])
def test_make_agent_names_a_spec_that_is_not_text(spec):
    with pytest.raises(AgentError) as e:  # (5 raised AttributeError: no 'strip')
        make_agent(spec)
    assert str(e.value).startswith("agent: expected a name like 'ismcts:iterations=1000', got ")
