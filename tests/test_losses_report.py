"""benchmarks/losses.py: where an agent's games are lost, read back from arena logs."""

import json

import pytest

from cuttle_search.play.arena import run_arena

from .helpers import load_benchmark


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
         "endgame": [{"ply": 70, "deck": 0, "played": "pass", "proven": False, "loss": None}]},
    ]


def test_the_summary_counts_drops_by_stage_and_the_endgame_against_the_solver():
    s = load_benchmark("losses").summarise(_games())
    assert (s["games"], s["won"], s["lost"], s["drawn"]) == (3, 1, 1, 1)
    assert s["dropsByStage"] == pytest.approx([0.4, 0.4, 0.1, 0.2])
    assert s["largestDropAt"] == [1, 1, 0, 0]  # the loss's largest drop at deck > 30, the draw's in the opening
    assert s["behindFromTheStart"] == 1  # the loss started at 0.2
    assert (s["nothingHidden"], s["proven"], s["leftToTheTree"], s["solvedAfter"]) == (3, 1, 2, 1)
    assert s["lossToTheSolver"] == pytest.approx(0.5)
    assert [c["game"] for c in s["costly"]] == ["pair00000-game1.json"]


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


@pytest.mark.parametrize("args, message", [
    (["{missing}"], "is not a directory of arena game logs"),
    (["{logs}", "--iterations", "0"], "--iterations: expected a whole number of at least 1, got 0"),
    (["{logs}", "--solve-seconds", "-1"], "--solve-seconds: expected a positive number of seconds"),
    (["{logs}", "--agent", "nobody"], "--agent: no game has a player 'nobody'"),
    (["{broken}"], "pair00009-game0.json: "),
])
def test_a_bad_input_is_one_line_and_exit_status_2(tmp_path, capsys, args, message):
    logs = tmp_path / "logs"
    run_arena("greedy", "random", 2, seed=1, log_dir=logs)
    if "{broken}" in args[0]:
        (logs / "pair00009-game0.json").write_text('{"format": "cuttle-search/game", "moves": [')
    argv = [a.format(missing=tmp_path / "none", logs=logs, broken=logs) for a in args]
    with pytest.raises(SystemExit) as e:
        load_benchmark("losses").main(argv)
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and message in err and len(err.splitlines()) == 1
