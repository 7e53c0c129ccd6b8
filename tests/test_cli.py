"""The command line: output, JSON shape and exit codes."""

import json
import re
from pathlib import Path

from click.testing import CliRunner

from cuttle_search.cli import main

POS = Path(__file__).parent.parent / "positions"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_show_prints_the_board_with_hidden_cards():
    r = run("show", POS / "seven-reveal-p0.json")
    assert r.exit_code == 0
    assert "hand (4): ?? ?? ?? ??" in r.output and "revealed by a 7: 5D JC" in r.output
    assert "p0 (you)  11/14 points" in r.output


def test_show_json_is_the_position_file():
    r = run("show", POS / "jack-war-full.json", "--json")
    d = json.loads(r.output)
    assert d["p1Points"] == ["3C", "TH(JC-p1,JD-p0,JH-p1)"] and d["view"] == "full"


def test_moves_lists_both_notations():
    r = run("moves", POS / "win-in-one-p0.json")
    assert r.exit_code == 0 and "6 legal moves" in r.output
    assert re.search(r'royal KD +\{"moveType": "faceCard", "cardId": "KD"\}', r.output)
    d = json.loads(run("moves", POS / "win-in-one-p0.json", "--json").output)
    assert d["actor"] == "p0" and len(d["moves"]) == 6
    assert {"text": "draw", "json": {"moveType": "draw"}} in d["moves"]


def test_moves_of_the_hidden_opponent_say_whose_decision_it_is():
    r = run("moves", POS / "seven-double-jack.json")  # full information: listed
    assert "scrap JH" in r.output
    r = run("moves", POS / "cuttle-cards-2-deck-top.json", "--json")
    assert json.loads(r.output)["moves"]
    # a p1 view where p0 decides
    r = run("moves", POS / "four-victim-p1.json", "--json")
    assert json.loads(r.output)["actor"] == "p1"


def test_moves_on_a_view_where_the_other_seat_decides(tmp_path):
    from cuttle_search.game.position import Position

    pos = Position.load(POS / "counter-chain-full.json").view_of(0)  # p1 decides
    pos.save(tmp_path / "v.json")
    r = run("moves", tmp_path / "v.json")
    assert r.exit_code == 0 and "It is p1's decision (countering)" in r.output


def test_perft_and_divide():
    r = run("perft", POS / "counter-chain-full.json", "--depth", "3")
    assert r.exit_code == 0 and "perft 3: 37" in r.output
    d = json.loads(run("perft", POS / "counter-chain-full.json", "-d", "2", "--divide", "--json").output)
    assert d["nodes"] == 7 and sum(d["divide"].values()) == 7


def test_perft_refuses_hidden_information():
    r = run("perft", POS / "opening-p0.json", "--depth", "2")
    assert r.exit_code == 2 and "needs a full-information position" in r.output


def test_bad_position_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"p0Hand": ["7H", "7H"]}')
    r = run("show", bad)
    assert r.exit_code == 2
    assert "p0Hand[1]: card 7H appears twice" in r.output and "Traceback" not in r.output
    r = run("show", tmp_path / "missing.json")
    assert r.exit_code == 2 and "cannot read" in r.output


def test_selfplay_summary_is_reproducible():
    a = json.loads(run("selfplay", "--games", "500", "--seed", "3", "--json").output)
    b = json.loads(run("selfplay", "--games", "500", "--seed", "3", "--json").output)
    assert a["wins"] == b["wins"] and a["meanPlies"] == b["meanPlies"]
    assert a["wins"]["p0"] + a["wins"]["p1"] + a["draws"] == 500
    r = run("selfplay", "--games", "50", "--rules", "classic:four=random")
    assert r.exit_code == 0 and "50 random games, rules classic:four=random" in r.output


def test_selfplay_bad_rules_exit_2():
    r = run("selfplay", "--games", "5", "--rules", "chess")
    assert r.exit_code == 2 and "unknown ruleset 'chess'" in r.output


def test_bench_without_the_repositorys_positions_exits_2_with_one_line(tmp_path, monkeypatch):
    """An installed wheel has no positions/ folder: `bench` says so in one line (`warmup`
    needs none: tests/test_untrusted.py)."""
    from cuttle_search.bench import common

    monkeypatch.setattr(common, "POSITIONS", tmp_path / "positions")
    r = CliRunner().invoke(main, ["bench", "--quick"])
    assert r.exit_code == 2 and r.output.startswith("Error: positions: the benchmarks read the repository's positions/")
    assert len(r.output.strip().splitlines()) == 1


def test_analyse_best_reply_adds_its_column_and_field_where_two_sides_play():
    text = run("analyse", POS / "midgame-main-p0.json", "-n", 5000, "--seed", 2, "--best-reply")
    assert text.exit_code == 0, text.output
    header = next(line.split() for line in text.output.splitlines() if line.lstrip().startswith("#"))
    assert header[:7] == ["#", "move", "visits", "score", "calibrated", "best", "reply"]  # after the scores
    assert "best reply = the score with the opponent's best replies backed up" in text.output
    plain = run("analyse", POS / "midgame-main-p0.json", "-n", 3000, "--seed", 2, "--json")
    asked = run("analyse", POS / "midgame-main-p0.json", "-n", 3000, "--seed", 2, "--json", "--best-reply")
    before, after = json.loads(plain.output), json.loads(asked.output)
    assert "bestReplyScore" not in before["moves"][0] and 0 <= after["moves"][0]["bestReplyScore"] <= 1
    assert [m["score"] for m in before["moves"]] == [m["score"] for m in after["moves"]]  # the same search
    team = run("analyse", POS / "team-opening-p0.json", "-n", 1000, "--best-reply", "--json")
    assert team.exit_code == 0 and "bestReplyScore" in json.loads(team.output)["moves"][0]
    three = run("analyse", POS / "cutthroat-opening-p0.json", "-n", 1000, "--best-reply")
    assert three.exit_code == 2
    assert "--best-reply: given where two sides play (two seats, or Team), not 3 (cutthroat)" in three.output


def test_analyse_moves_proven_in_the_tree_get_a_proven_column_and_keep_their_lines():
    text = run("analyse", POS / "gamestate-cuttle-cards.json", "-n", 1000)
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("#"))
    assert header.split()[-3:] == ["proven", "principal", "variation"]
    data = json.loads(run("analyse", POS / "gamestate-cuttle-cards.json", "-n", 1000, "--json").output)
    rows = lines[lines.index(header) + 1:]
    assert len(rows) == len(data["moves"])
    for row, move in zip(rows, data["moves"]):
        assert move["proven"] == "loss"  # p1 wins whatever p0 plays
        # the proven cell, then the line, shown whole (it was cut off: no header for the cell),
        # its moves past the first card p0 cannot see in brackets
        pv, known = move["pv"][:8], move["pvKnown"]
        line = ", ".join(pv[:known]) + (", [" + ", ".join(pv[known:]) + "]" if known < len(pv) else "")
        assert re.search(r"  loss +" + re.escape(line) + "$", row), row


def _analyse_with_ctrl_c(monkeypatch, *args):
    """``analyse ARGS`` with Ctrl-C pressed half a second after its search started (it waits
    on its worker thread the way solve does)."""
    import _thread
    import signal
    import threading

    import cuttle_search.analysis.solve_threads as T

    real = T.watched

    def pressed(*a, **kw):
        timer = threading.Timer(0.5, _thread.interrupt_main)
        timer.start()
        try:
            return real(*a, **kw)
        finally:
            timer.cancel()

    was = signal.signal(signal.SIGINT, signal.default_int_handler)
    monkeypatch.setattr(T, "watched", pressed)
    try:
        return CliRunner().invoke(main, ["analyse", *map(str, args), "--json"])
    finally:
        signal.signal(signal.SIGINT, was)


def test_analyse_ctrl_c_keeps_the_search_so_far_and_exits_130(monkeypatch):
    # the table of what was searched, a line on stderr, exit 130; it was click's "Aborted!",
    # exit 1, with the search lost
    r = _analyse_with_ctrl_c(monkeypatch, POS / "opening-p0.json", "-n", 100_000_000)
    assert r.exit_code == 130, r.output
    data = json.loads(r.stdout)
    assert data["rootInfo"]["stopReason"] == "cancelled" and data["rootInfo"]["iterations"] < 100_000_000
    assert r.stderr.strip().splitlines()[-1].startswith("interrupted: the search stopped after ")


def test_analyse_ctrl_c_stops_the_exact_solver_that_answers_first(monkeypatch):
    # nothing hidden: the solver runs first with 40 nodes an iteration (20 million here), and
    # Ctrl-C stops it too, not only the tree search after it (it ran its whole budget)
    hard = Path(__file__).parent / "data" / "deck-out-eight-each.json"
    r = _analyse_with_ctrl_c(monkeypatch, hard, "-n", 500_000)
    assert r.exit_code == 130, r.output
    info = json.loads(r.stdout)["rootInfo"]
    assert info["stopReason"] == "cancelled" and info["iterations"] == 0
    assert info["solver"]["nodeBudget"] == 20_000_000 and info["solver"]["nodes"] < 20_000_000


def test_any_command_stopped_by_ctrl_c_says_so_and_exits_130(monkeypatch):
    import cuttle_search.cli as cli

    def pressed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_load", pressed)
    r = CliRunner().invoke(main, ["show", str(POS / "opening-p0.json")])
    assert r.exit_code == 130 and r.stderr == "interrupted\n" and "Aborted" not in r.output


def test_replay_points_a_history_to_review_and_an_export_to_the_view_analyse_takes(tmp_path):
    (tmp_path / "history.json").write_text("[]")
    r = run("replay", tmp_path / "history.json")
    assert r.exit_code == 2 and "got a list: a cuttle.cards history, which review reads, not replay" in r.output
    assert run("arena", "greedy", "random", "-n", "2", "--seed", "5", "--log-dir", tmp_path / "logs").exit_code == 0
    log = tmp_path / "logs" / "pair00000-game0.json"
    other = run("replay", log, "--ply", "4", "--view", "p1", "--export", tmp_path / "p1.json")
    assert other.exit_code == 0 and (tmp_path / "p1.json").exists()
    assert "note: it is p0's decision there, so analyse and hint refuse p1's view; export --view p0" in other.stderr
    own = run("replay", log, "--ply", "4", "--view", "p0", "--export", tmp_path / "p0.json")
    assert own.exit_code == 0 and "note:" not in own.stderr
    assert run("analyse", tmp_path / "p0.json", "-n", "100").exit_code == 0


def test_an_output_closed_by_its_reader_ends_the_command_quietly():
    # `cuttle-search arena ... | head -0`: the reader closes the pipe; it was "internal error:
    # BrokenPipeError" (the code of a defect)
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "cuttle_search.cli", "arena", "greedy", "random", "-n", "4"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # before the command's first line (it starts in a fraction of a second at best)
    err = proc.stderr.read()
    assert proc.wait() == 141, err  # (stderr may hold a first run's compile notice, nothing else)
    assert b"internal error" not in err and b"Traceback" not in err and b"BrokenPipe" not in err, err


def test_a_broken_pipe_that_is_not_the_output_is_a_defect_with_its_traceback_on_request(monkeypatch):
    import cuttle_search.cli as cli

    def broken(*args, **kwargs):
        raise BrokenPipeError("a pipe of its own")

    monkeypatch.setattr(cli, "_load", broken)
    r = CliRunner().invoke(main, ["show", str(POS / "opening-p0.json")])
    assert r.exit_code == 1 and "internal error: BrokenPipeError: a pipe of its own" in r.output
    r = CliRunner().invoke(main, ["show", str(POS / "opening-p0.json")], env={"CUTTLE_DEBUG": "1"})
    assert isinstance(r.exception, BrokenPipeError)


def test_serve_refuses_an_empty_host():
    # an empty --host listened on every interface while the board announced 127.0.0.1
    r = CliRunner().invoke(main, ["serve", "--host", " "])
    assert r.exit_code == 2 and "Invalid value for --host: empty: give an address" in r.stderr


def test_hint_reports_a_defect_in_a_search_thread_in_one_line(monkeypatch):
    """A defect of the server's own while a search thread writes an answer: one line and
    status 1, where the pool's future kept it unseen (status 0, nothing said)."""
    import cuttle_search.hint as H

    def broken(reply):
        raise TypeError("an answer that is no JSON")

    monkeypatch.setattr(H, "_dumps", broken)
    r = CliRunner().invoke(main, ["hint"], input="not json\n")  # (its refusal is written by a search thread)
    errors = r.stderr.strip().splitlines()
    assert r.exit_code == 1 and len(errors) == 1, r.stderr
    assert errors[0].startswith("Error: internal error: TypeError: an answer that is no JSON (a defect;"), errors


def test_serve_on_host_0_is_every_address_and_announced_on_the_loopback():
    """``--host 0`` binds every address, as 0.0.0.0 does: announced as the loopback's page
    (it said http://0:PORT/) and answering any Host name, as 0.0.0.0 does."""
    import signal
    import subprocess
    import sys
    import threading
    import urllib.request

    import pytest

    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    proc = subprocess.Popen([sys.executable, "-m", "cuttle_search.cli", "serve", "--host", "0", "--port", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    guard = threading.Timer(120, proc.kill)  # a guard: a server that never says where it listens
    guard.start()
    try:
        line = b""
        while b"cuttle-search board on" not in line:
            line = proc.stderr.readline()
            assert line, "the server exited before it listened"
        url = line.decode().split(" on ", 1)[1].split()[0]
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", url), line
        port = url.rsplit(":", 1)[1].strip("/")
        request = urllib.request.Request(url + "api/meta", headers={"Host": f"board.example:{port}"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            assert answer.status == 200 and "version" in json.loads(answer.read())
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        guard.cancel()
