"""benchmarks/losses.py: where an agent's games are lost, read back from arena logs."""

import json
import random
from pathlib import Path

import pytest

from cuttle_search import Position
from cuttle_search.analysis.solve import solve
from cuttle_search.play.arena import run_arena

from .helpers import load_benchmark

POS = Path(__file__).resolve().parent.parent / "positions"


def _games():
    """Three games as ``examine`` returns them: a win, a loss, a draw."""
    def drop(ply, deck, d, first=0.5):
        return {"ply": ply, "deck": deck, "stage": 0 if ply <= 9 else (1 if deck > 30 else (2 if deck > 10 else 3)),
                "played": "draw", "fullBest": "draw", "fullBestScore": first, "drop": d}
    return [
        {"game": "pair00000-game0.json", "seat": 0, "share": 1.0, "drops": [],
         "endgame": [{"ply": 80, "deck": 0, "played": "pass", "proven": True, "loss": None}]},
        {"game": "pair00000-game1.json", "seat": 1, "share": 0.0,
         "drops": [drop(1, 40, 0.1, first=0.2), drop(12, 35, 0.4), drop(40, 5, 0.2)],
         "endgame": [{"ply": 90, "deck": 0, "played": "discard 8D QS", "proven": False, "loss": 0.5}]},
        {"game": "pair00001-game0.json", "seat": 0, "share": 0.5, "drops": [drop(3, 41, 0.3), drop(20, 25, 0.1)],
         "endgame": [{"ply": 70, "deck": 0, "played": "pass", "proven": False, "loss": None},
                     {"ply": 72, "deck": 0, "played": "pass", "proven": True, "loss": 0.5}]},
    ]


def test_the_summary_counts_drops_by_stage_and_the_endgame_against_the_solver():
    s = load_benchmark("losses").summarise(_games())
    assert (s["games"], s["won"], s["lost"], s["drawn"]) == (3, 1, 1, 1)
    assert s["dropsByStage"] == pytest.approx([0.4, 0.4, 0.1, 0.2])
    assert s["largestDropAt"] == [1, 1, 0, 0]  # the loss's largest drop at deck > 30, the draw's in the opening
    assert s["behindFromTheStart"] == 1  # the loss started at 0.2
    assert (s["nothingHidden"], s["proven"], s["leftToTheTree"], s["solvedAfter"]) == (4, 2, 2, 1)
    assert s["lossToTheSolver"] == pytest.approx(1.0)  # proven by the search or by the solver after
    assert [(c["game"], c["ply"]) for c in s["costly"]] == [("pair00000-game1.json", 90), ("pair00001-game0.json", 72)]


def test_the_agent_is_found_by_its_spec_and_by_the_log_name_in_self_play():
    seat = load_benchmark("losses").agent_seat
    log = {"players": {"p0": "greedy", "p1": "cuttlebot"}}
    assert seat(log, "pair00003-game1.json", "cuttlebot") == 1
    assert seat(log, "pair00003-game1.json", "random") is None
    same = {"players": {"p0": "greedy", "p1": "greedy"}}
    assert seat(same, "pair00003-game1.json", "greedy") == 1 and seat(same, "pair00003-game0.json", "greedy") == 0


def test_a_run_on_arena_logs_reports_every_game_of_the_agent(tmp_path, capsys):
    logs = tmp_path / "logs"
    run_arena("greedy", "cuttlebot", 4, seed=3, log_dir=logs)
    out = tmp_path / "losses.json"
    load_benchmark("losses").main([str(logs), "--full-iterations", "300", "--iterations", "300",
                                   "--solve-seconds", "0.2", "--workers", "1", "--json", str(out)])
    data = json.loads(out.read_text())
    assert data["agent"] == "greedy"  # the arena's A by default
    s = data["summary"]
    assert s["games"] == 4 and s["won"] + s["lost"] + s["drawn"] == 4
    for g in data["games"]:
        if g["share"] == 1.0:  # only the games not won are searched with every card seen
            assert g["drops"] == []
        assert all(d["drop"] >= 0.0 for d in g["drops"])
        log = json.loads((logs / g["game"]).read_text())
        assert log["players"][f"p{g['seat']}"] == "greedy"
    assert s["won"] < 4 and any(g["drops"] for g in data["games"])  # (seed 3: cuttlebot wins some)
    assert f"greedy: 4 games, won {s['won']}" in capsys.readouterr().out


def test_the_end_of_the_deck_is_scored_against_the_proven_best(tmp_path):
    """A game from an empty deck (nothing hidden), its moves chosen at random: each of the
    agent's decisions is checked, and its loss is the solver's best score less the move's."""
    pos = Position.load(POS / "deck-out-endgame.json")
    start, rng, moves, expected = pos.to_dict(), random.Random(3), [], []
    while not pos.is_over:
        legal = pos.legal_moves()
        move = rng.choice(legal)
        if pos.actor == 0 and len(legal) > 1:
            truth = {str(m.move): m.score for m in solve(pos.view_of(0)).moves}
            expected.append(max(truth.values()) - truth[str(move)])
        moves.append(str(pos.play(move)))
    log = {"format": "cuttle-search/game", "version": 1, "rules": "cuttle-cards", "start": start,
           "players": {"p0": "random", "p1": "greedy"}, "moves": moves, "result": pos.result()}
    path = tmp_path / "pair00000-game0.json"
    path.write_text(json.dumps(log))
    game = load_benchmark("losses").examine((str(path), "random", 300, 300, 2.0))
    assert game["seat"] == 0 and game["share"] == pos.share_of(0) < 1.0 and len(expected) >= 2
    assert [row["loss"] for row in game["endgame"]] == pytest.approx(expected)
    assert len(game["drops"]) == len(expected) and all(d["stage"] == 3 for d in game["drops"])  # deck <= 10


@pytest.mark.parametrize("args, message", [
    (["{missing}"], "is not a directory of arena game logs"),
    (["{logs}", "--iterations", "0"], "--iterations: expected a whole number of at least 1, got 0"),
    (["{logs}", "--solve-seconds", "-1"], "--solve-seconds: expected a positive number of seconds"),
    (["{logs}", "--agent", "nobody"], "--agent: no game has a player 'nobody'"),
    (["{broken}"], "pair00009-game0.json: "),
    (["{unfinished}"], "pair00000-game1.json: moves: the game is not finished"),
    (["{logs}", "--iterations", "many"], "argument --iterations: invalid int value: 'many'"),
])
def test_a_bad_input_is_one_line_and_exit_status_2(tmp_path, capsys, args, message):
    logs = tmp_path / "logs"
    run_arena("greedy", "random", 2, seed=1, log_dir=logs)
    if "{broken}" in args[0]:
        (logs / "pair00009-game0.json").write_text('{"format": "cuttle-search/game", "moves": [')
    if "{unfinished}" in args[0]:
        log = json.loads((logs / "pair00000-game1.json").read_text())
        log["moves"] = log["moves"][:3]
        del log["result"]
        (logs / "pair00000-game1.json").write_text(json.dumps(log))
    argv = [a.format(missing=tmp_path / "none", logs=logs, broken=logs, unfinished=logs) for a in args]
    with pytest.raises(SystemExit) as e:
        load_benchmark("losses").main(argv)
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and message in err and len(err.splitlines()) == 1
