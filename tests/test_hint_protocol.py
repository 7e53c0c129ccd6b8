"""Hint protocol 3 (docs/hint-protocol.md): moveInfos, warnings for unknown fields, ids on
every error, game history with analyzeTurns, per-request rollout and exploration, actions
that never wait behind searches, and the Python client against a real server process."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cuttle_search.analysis import analyse
from cuttle_search.cli import main
from cuttle_search.client import EngineTerminated, HintEngine, HintError
from cuttle_search.game.position import Position
from cuttle_search.hint import PROTOCOL_VERSION, ServerLimits, answer, answers, unknown_fields

POS = Path(__file__).parent.parent / "positions"
MIDGAME = json.loads((POS / "midgame-main-p0.json").read_text())


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("cuttle-search")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "cuttle_search.cli"]


def test_move_infos_list_every_searched_move_best_first_in_one_shape():
    a = answer(json.dumps({"id": 1, "position": MIDGAME, "iterations": 2000, "seed": 4, "runnersUp": 0}), {})
    infos = a["moveInfos"]
    legal = Position.from_dict(MIDGAME).legal_moves()
    assert a["runnersUp"] == [] and len(infos) == len(legal)
    assert [m["order"] for m in infos] == list(range(len(infos)))
    assert infos[0]["move"] == a["move"] and infos[0]["winrate"] == a["winrate"]
    assert sorted(m["move"] for m in infos) == sorted(m.text() for m in legal)
    assert sum(m["visits"] for m in infos) == 2000
    for m in infos:
        assert {"order", "move", "moveJson", "visits", "winrate", "score", "lcb", "ucb", "pv", "seatScores"} <= set(m)
        assert m["lcb"] <= m["score"] <= m["ucb"]


def test_proven_moves_carry_their_value_in_move_infos():
    a = answer(json.dumps({"id": 1, "position": json.loads((POS / "deck-out-endgame.json").read_text())}), {})
    assert a["stopReason"] == "proven"
    assert all(m["proven"] in ("win", "draw", "loss") and isinstance(m["plies"], int) for m in a["moveInfos"])


def test_unknown_fields_get_a_warning_that_names_them():
    mixed = answer(json.dumps({"id": 2, **MIDGAME, "iteratoins": 300, "iterations": 200}), {})
    assert mixed["warning"] == "unknown request field ignored: 'iteratoins' (did you mean 'iterations'?)"
    assert mixed["iterations"] == 200
    nested = answer(json.dumps({"id": 3, "position": MIDGAME, "iterations": 200, "sede": 4, "colour": 1}), {})
    assert "'sede' (did you mean 'seed'?)" in nested["warning"] and "'colour'" in nested["warning"]
    clean = answer(json.dumps({"id": 4, "position": MIDGAME, "iterations": 200}), {})
    assert "warning" not in clean
    for path in POS.glob("*.json"):  # every shipped position, mixed into a request, is clean
        assert unknown_fields(json.loads(path.read_text())) == [], path.name


def test_per_request_rollout_and_exploration_within_the_caps():
    base = {"id": 5, "position": MIDGAME, "iterations": 1500, "seed": 9}
    got = answer(json.dumps({**base, "rollout": "random", "exploration": 1.5}), {})
    want = analyse(Position.from_dict(MIDGAME), iterations=1500, seed=9, rollout="random", exploration=1.5)
    assert [(m["move"], m["visits"]) for m in got["moveInfos"]] == [(m.move.text(), m.visits) for m in want.moves]
    default = answer(json.dumps(base), {})
    assert [m["visits"] for m in default["moveInfos"]] != [m["visits"] for m in got["moveInfos"]]
    capped = answer(json.dumps({**base, "exploration": 3.0}), {}, ServerLimits(max_exploration=2.0))
    assert capped == {"id": 5, "error": "exploration: expected a finite number from 0 to 2, got 3.0", "field": "exploration"}
    bad = answer(json.dumps({**base, "rollout": "smart"}), {})
    assert bad["field"] == "rollout" and bad["id"] == 5


def test_errors_quote_a_requests_values_as_json_writes_them():
    # a client sent JSON: its true, null, lists and objects come back in JSON, not Python, spelling
    base = {"id": 6, "position": MIDGAME, "iterations": 100}
    for extra, field, quoted in (({"runnersUp": True}, "runnersUp", "got true"),
                                 ({"seed": [None, False]}, "seed", "got [null, false]"),
                                 ({"iterations": [1, "a"]}, "iterations", 'got [1, "a"]'),
                                 ({"exploration": {"x": 1}}, "exploration", 'got {"x": 1}')):
        got = answer(json.dumps({**base, **extra}), {})
        assert got["field"] == field and got["error"].endswith(quoted), got
    big = answer(json.dumps({**base, "exploration": 5000}), {})
    assert big["error"] == "exploration: expected a finite number from 0 to 1,000, got 5000"


def test_per_request_widening_is_the_api_search_and_is_checked():
    base = {"id": 6, "position": MIDGAME, "iterations": 1500, "seed": 9}
    got = answer(json.dumps({**base, "widen": 0}), {})
    want = analyse(Position.from_dict(MIDGAME), iterations=1500, seed=9, widen=0.0)
    assert [(m["move"], m["visits"]) for m in got["moveInfos"]] == [(m.move.text(), m.visits) for m in want.moves]
    default = answer(json.dumps(base), {})
    assert [m["visits"] for m in default["moveInfos"]] != [m["visits"] for m in got["moveInfos"]]
    for bad in (-1, "4", True, 1e7, 5e-324):
        err = answer(json.dumps({**base, "widen": bad}), {})
        assert err["field"] == "widen" and err["id"] == 6 and "widen" in err["error"]
    assert "warning" not in default


def test_best_reply_is_asked_per_request_and_refused_where_it_is_not_given():
    base = {"id": 7, "position": MIDGAME, "iterations": 1500, "seed": 9}
    got = answer(json.dumps({**base, "bestReply": True}), {})
    want = analyse(Position.from_dict(MIDGAME), iterations=1500, seed=9, best_reply=True)
    assert got["bestReplyScore"] == pytest.approx(want.best.best_reply_score, abs=1e-6)
    assert got["moveInfos"][0]["bestReplyScore"] == got["bestReplyScore"] and "bestReplyScore" in got["runnersUp"][0]
    plain = answer(json.dumps({**base, "bestReply": None}), {})  # null: the default, off
    assert "bestReplyScore" not in plain and "bestReplyScore" not in plain["moveInfos"][0]
    assert [m["score"] for m in plain["moveInfos"]] == [m["score"] for m in got["moveInfos"]]  # the same search
    assert answer(json.dumps({**base, "bestReply": 1}), {}) == {
        "id": 7, "error": "bestReply: expected true or false, got 1", "field": "bestReply"}
    three = Position.load(POS / "cutthroat-opening-p0.json").to_dict()
    refused = answer(json.dumps({"id": 8, "position": three, "iterations": 100, "bestReply": True}), {})
    assert refused == {"id": 8, "field": "bestReply",
                       "error": "bestReply: given where two sides play (two seats, or Team), not 3 (cutthroat)"}
    partial = []
    answer(json.dumps({**base, "iterations": 100_000, "bestReply": True, "reportDuringSearchEvery": 0.05}), {},
           emit=partial.append)
    assert partial and not any("bestReplyScore" in a for a in partial)  # the final answer only (its walk costs)


def _game(seed: int = 3, plies: int = 8) -> tuple[Position, list[str]]:
    game = Position.deal("cuttle-cards", seed=seed)
    start, moves = game.copy(), []
    for _ in range(plies):
        move = game.legal_moves()[0]
        moves.append(move.text())
        game.play(move)
    return start, moves


def test_a_game_history_is_analysed_turn_by_turn_from_each_deciders_view():
    start, moves = _game()
    req = {"id": "g", "position": start.to_dict(), "moves": moves, "analyzeTurns": [0, 5, 8], "iterations": 600, "seed": 1}
    out = answers(json.dumps(req), {})
    assert [a["turnNumber"] for a in out] == [0, 5, 8] and all(a["id"] == "g" for a in out)
    for a in out:
        game = start.copy()
        for m in moves[: a["turnNumber"]]:
            game.play(m)
        seat = game.actor
        assert a["pointOfView"] == f"p{seat}"
        want = analyse(game.view_of(seat), iterations=600, seed=1, history=(start, moves[: a["turnNumber"]]))
        assert a["move"] == want.best.move.text() and a["moveInfos"][0]["visits"] == want.best.visits
    last = answer(json.dumps({**req, "analyzeTurns": None}), {})  # default: the last turn
    assert last["turnNumber"] == len(moves)


@pytest.mark.parametrize("extra, field, fragment", [
    ({"analyzeTurns": [1]}, "analyzeTurns", "give the game's moves too"),
    ({"moves": ["draw"], "analyzeTurns": [2]}, "analyzeTurns[0]", "from 0 to 1"),
    ({"moves": ["draw"], "analyzeTurns": [True]}, "analyzeTurns[0]", "whole number"),
    ({"moves": ["draw"], "analyzeTurns": []}, "analyzeTurns", "list of 1 to"),
    ({"moves": "draw"}, "moves", "list of at most"),
    ({"moves": ["royal KZ"]}, "moves[0]", "KZ"),
    ({"moves": [5]}, "moves[0]", "expected a move in text or as a JSON body"),
    ({"moves": [None]}, "moves[0]", "expected a move in text or as a JSON body"),
    ({"moves": [{"moveType": "scuttle"}]}, "moves[0]", ""),
    # a move after the last turn asked about is checked too
    ({"moves": ["draw", "draw", "points ZZ"], "analyzeTurns": [0]}, "moves[2]", "ZZ"),
])
def test_bad_histories_are_refused_naming_the_field(extra, field, fragment):
    start, _ = _game(plies=0)
    a = answer(json.dumps({"id": 7, "position": start.to_dict(), "iterations": 100, **extra}), {})
    assert a["id"] == 7 and a["field"] == field and fragment in a["error"], a


def test_history_moves_may_be_json_bodies():
    start, moves = _game(plies=3)
    body = [Position.from_dict(start.to_dict()).legal_moves()[0].to_json()] + moves[1:]
    as_text = answer(json.dumps({"id": 1, "position": start.to_dict(), "moves": moves, "iterations": 300, "seed": 2}), {})
    as_json = answer(json.dumps({"id": 1, "position": start.to_dict(), "moves": body, "iterations": 300, "seed": 2}), {})
    same = lambda a: {k: v for k, v in a.items() if k != "seconds"}  # noqa: E731
    assert same(as_json) == same(as_text) and "error" not in as_text


def test_history_needs_a_full_information_start():
    a = answer(json.dumps({"id": 8, "position": MIDGAME, "moves": []}), {})
    assert a["field"] == "position" and "full-information start" in a["error"] and a["id"] == 8


def _server(*args: str) -> subprocess.Popen:
    return subprocess.Popen(_cli() + ["hint", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)


def test_actions_overtake_a_full_queue_and_errors_echo_the_id():
    """Seven long searches wait with one worker (more than the old read-ahead of four a
    worker); query_version, a bad terminate and terminate_all are answered before any of
    them, and terminate_all cancels them all. The order of the answers is the proof: no clock."""
    position = json.loads((POS / "opening-p0.json").read_text())
    proc = _server("--max-time", "60")
    try:
        for i in range(7):
            proc.stdin.write(json.dumps({"id": i, "position": position, "time": 60, "reportDuringSearchEvery": 0.5}) + "\n")
        proc.stdin.write(json.dumps({"id": "v", "action": "query_version", "iterations": 5}) + "\n")
        proc.stdin.write('{"id": "bad", "action": "terminate", "terminateId": 1e400}\n')
        proc.stdin.write(json.dumps({"id": "nope", "action": "rewind"}) + "\n")
        proc.stdin.write(json.dumps({"id": "all", "action": "terminate_all"}) + "\n")
        proc.stdin.flush()
        replies = []
        while len([r for r in replies if "stopReason" in r]) < 7:
            replies.append(json.loads(proc.stdout.readline()))
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    actions = [r for r in replies if r["id"] in ("v", "bad", "nope", "all")]
    first_final = next(i for i, r in enumerate(replies) if "stopReason" in r)
    assert all(replies.index(a) < first_final for a in actions)  # none waited for a search
    version, bad, nope, everything = actions
    assert version["protocol"] == PROTOCOL_VERSION and "terminate_all" in version["actions"]
    assert version["warning"] == "field the query_version action does not read, ignored: 'iterations'"
    assert {"cutthroat", "team", "multiplayer"} <= set(version["rules"]) and "players" in version["options"]
    assert bad == {"id": "bad", "error": "terminateId: expected a string or a number, got inf", "field": "terminateId"}
    assert nope["id"] == "nope" and nope["field"] == "action"
    assert everything == {"id": "all", "action": "terminate_all", "cancelled": 7}
    finals = [r for r in replies if "stopReason" in r]
    assert sorted(r["id"] for r in finals) == list(range(7)) and {r["stopReason"] for r in finals} == {"cancelled"}
    assert all("stopReason" not in r for r in replies if r.get("isDuringSearch"))


def test_rules_help_lists_every_ruleset_and_option():
    for command in ("show", "analyse", "selfplay"):
        text = "".join(CliRunner().invoke(main, [command, "--help"]).output.split())  # click wraps at hyphens
        for name in ("cuttle-cards", "classic", "cutthroat", "team", "multiplayer", "players", "remove-ace-six"):
            assert name in text, (command, name)


# ---------------------------------------------------------------- the Python client
def test_client_analyses_streams_stops_and_cleans_up():
    with HintEngine.popen(workers=2) as engine:
        assert engine.version()["protocol"] == PROTOCOL_VERSION
        final = engine.analyse(POS / "midgame-main-p0.json", iterations=1500, seed=9)
        direct = answer(json.dumps({"id": 0, "position": MIDGAME, "iterations": 1500, "seed": 9}), {})
        assert final["moveInfos"] == direct["moveInfos"] and final["stopReason"] == "budget"
        with engine.analysis(Position.from_dict(MIDGAME), time=60, every=0.1, seed=2) as stream:
            for partial in stream:
                assert partial["isDuringSearch"] and "stopReason" not in partial
                if stream.partials == 2:
                    stream.stop()
        assert stream.final["stopReason"] == "cancelled" and stream.partials >= 2
        with pytest.raises(HintError) as err:
            engine.analyse(MIDGAME, iterations=0)
        assert err.value.field == "iterations" and "from 1" in str(err.value)
        with pytest.raises(HintError) as err:
            engine.analyse(MIDGAME, iterations=10, runners_up=99)
        assert err.value.field == "runnersUp"
        with pytest.raises(HintError) as err:  # refused as a whole line: it waited forever for id null
            engine.analyse(MIDGAME, iterations=10, rules="\ud800")
        assert err.value.field == "request" and "surrogate" in str(err.value)
        process = engine.process
    assert process.returncode == 0


def test_client_says_when_the_server_is_gone():
    engine = HintEngine.popen()
    try:
        engine.process.kill()
        engine.process.wait()
        with pytest.raises(EngineTerminated):
            engine.analyse(MIDGAME, iterations=10)
    finally:
        engine.close()


def test_a_server_refusing_its_options_says_why_when_asked():
    engine = HintEngine.popen(workers=0)
    try:
        with pytest.raises(EngineTerminated, match=r"exit status 2: Error: Invalid value for '--workers'"):
            engine.analyse(MIDGAME, iterations=10)
    finally:
        engine.close()


def test_client_refuses_arguments_it_cannot_send_naming_the_field():
    with HintEngine.popen() as engine:
        for kwargs, field, message in (
                ({"allow_moves": {"draw"}}, "allowMoves", "cannot be sent as JSON"),
                ({"seed": object()}, "seed", "cannot be sent as JSON"),
                ({"runners_up": 1, "runnersUp": 3}, "runnersUp", "given twice, as runners_up and as runnersUp")):
            with pytest.raises(HintError, match=message) as err:
                engine.analyse(MIDGAME, iterations=10, **kwargs)
            assert err.value.field == field
        # the field spelt out takes the place of every's default, not of an every given
        assert engine.analysis(MIDGAME, iterations=50, report_during_search_every=0.5).wait()["iterations"] == 50
        with pytest.raises(HintError, match="reportDuringSearchEvery: given twice, as every and as report_during_search_every"):
            engine.analysis(MIDGAME, iterations=50, every=1, report_during_search_every=0.5)
        with pytest.raises(HintError, match="position: expected a Position") as err:
            engine.analyse(5, iterations=10)  # type: ignore[arg-type]
        # the project's own moves are sent as their text
        pos = Position.from_dict(MIDGAME)
        first = pos.legal_moves()[0]
        assert engine.analyse(pos, iterations=50, allow_moves=(first,))["move"] == first.text()


def test_client_keeps_streaming_when_the_server_queue_is_full():
    """More requests than the server reads ahead (a small --max-request-bytes makes its queue
    short) with answers that outgrow a pipe's buffer: the client's reader drains answers
    while its writer waits for the server to read, so every request is answered."""
    with HintEngine.popen(max_request_bytes=2048) as engine:
        streams = [engine.analysis(MIDGAME, iterations=300, seed=k, every=None) for k in range(40)]
        finals = [s.wait() for s in streams]
    assert [f["id"] for f in finals] == [s.id for s in streams] and all(f["stopReason"] == "budget" for f in finals)


def test_client_analyse_turns_and_refuses_what_the_server_would():
    start, moves = _game(plies=4)
    with HintEngine.popen(max_request_bytes=4096) as engine:
        turns = engine.analyse(start, iterations=200, moves=moves, analyze_turns=[0, 2, 4])
        assert [t["turnNumber"] for t in turns] == [0, 2, 4]
        with pytest.raises(HintError) as err:
            engine.analyse({**MIDGAME, "about": "x" * 5000}, iterations=10)
        assert err.value.field == "request" and "longer than the server's limit of 4,096" in str(err.value)
        assert engine.analyse(MIDGAME, iterations=50)["iterations"] == 50  # still serving
    # the limit given in a command line of one's own is known too (a longer line was sent,
    # refused with id null, and waited for)
    command = [sys.executable, "-m", "cuttle_search.cli", "hint", "--max-request-bytes=4096"]
    with HintEngine.popen(command) as engine:
        with pytest.raises(HintError, match="longer than the server's limit of 4,096"):
            engine.analyse({**MIDGAME, "about": "x" * 5000}, iterations=10)


FAKE_SERVER = """
import json, os, sys
mode = sys.argv[1]
out = sys.stdout.buffer
for line in sys.stdin:
    req = json.loads(line)
    if mode == "garbage":
        out.write(b"\\xff\\xfe not an answer\\n")
        out.flush()
    if mode == "closes":
        os.close(1)
        continue
    out.write((json.dumps({"id": req.get("id"), "version": "x", "protocol": 4}) + "\\n").encode())
    out.flush()
"""


def test_client_survives_a_garbled_or_silent_server(tmp_path):
    fake = tmp_path / "fake.py"
    fake.write_text(FAKE_SERVER)
    with HintEngine.popen([sys.executable, str(fake), "garbage"]) as engine:  # bytes that are not UTF-8: skipped
        assert [engine.version()["id"] for _ in range(3)] == ["c1", "c2", "c3"]
    engine = HintEngine.popen([sys.executable, str(fake), "closes"])
    try:  # its output ends while it runs: every request says so, none waits forever
        for _ in range(3):
            with pytest.raises(EngineTerminated):
                engine.version()
    finally:
        engine.close()


def test_client_fields_are_not_the_clients_own():
    with HintEngine.popen() as engine:
        for field in ("id", "action", "terminate_id"):
            with pytest.raises(HintError) as err:
                engine.analyse(MIDGAME, iterations=10, **{field: "x"})
            assert "set by the client itself" in str(err.value)
        assert engine.analyse(MIDGAME, iterations=10)["move"]
        with pytest.raises(HintError, match="position: the key 'view' appears twice"):  # refused here, not collapsed
            engine.analyse('{"view": "p0", "view": "p1"}', iterations=10)


def test_a_line_refused_whole_still_echoes_an_id_it_can_read():
    """The client waits for its id: a refusal with id null would never reach it."""
    from cuttle_search import hint as H

    cases = [('{"id": "a", "iterations": 5, "iterations": 6}', "a"), ('{"id": "b", "rules": "\\ud800"}', "b"),
             ('{"id": 3, "position": ' + "[" * 100 + "]" * 100 + "}", 3),
             ('{"id": "c", "seed": ' + "7" * 5000 + "}", "c"),
             ('{"id": "f", "position": ' + "[" * 5000 + "]" * 5000 + "}", "f"),
             ('{"id": "d", "id": "e"}', None), ("not json", None), ('{"id": "\\ud800"}', None),
             ('{"x": {"id": "inner"}, "iterations": 0}', None)]
    for line, expected in cases:
        out = H.answer(line, {})
        assert "error" in out and out["id"] == expected, (line[:40], out)
        served = io.StringIO()
        H.serve(io.StringIO(line + "\n"), served, {})
        assert json.loads(served.getvalue())["id"] == expected, line[:40]


def test_an_action_sent_as_null_is_no_action_and_terminate_needs_an_id():
    from cuttle_search import hint as H

    lines = [json.dumps({"id": 1, "action": None, "position": MIDGAME, "iterations": 10}),
             json.dumps({"id": 2, "action": "terminate", "terminateId": None})]
    out = io.StringIO()
    H.serve(io.StringIO("\n".join(lines) + "\n"), out, {})
    first, second = sorted((json.loads(x) for x in out.getvalue().splitlines()), key=lambda a: a["id"])
    assert "move" in first and "error" not in first
    assert second["field"] == "terminateId" and "got null" in second["error"]


def test_a_stop_rule_with_a_null_minimum_takes_the_default():
    from cuttle_search.analysis.analyser import confidence_stop

    assert confidence_stop({"minIterations": None}) is not None
    out = answer(json.dumps({"id": 5, "position": MIDGAME, "iterations": 50, "stop": {"minIterations": None}}), {})
    assert "error" not in out and out["iterations"] == 50  # (the default minimum, 1,000, is never reached)


def test_blank_lines_and_a_byte_order_mark_never_leave_the_reader():
    """Blank lines are dropped where they are read (one handoff each cost 54 µs: 3 MB of
    newlines kept the server busy 160 s), and a byte order mark before the first line goes
    with them, in a binary stream and a text one."""
    from cuttle_search.hint import request_lines

    data = b'\xef\xbb\xbf{"id": "a"}\n' + b"\n" * 50 + b"  \t\r\n" + b'{"id": "b"}\n\n'
    assert list(request_lines(io.BytesIO(data), 1024)) == [b'{"id": "a"}\n', b'{"id": "b"}\n']
    assert list(request_lines(io.StringIO(data.decode("utf-8")), 1024)) == ['{"id": "a"}\n', '{"id": "b"}\n']


def test_a_long_first_line_with_a_byte_order_mark_is_refused_whole():
    """A byte order mark dropped from a first line past the limit left its head short of the
    limit: the head went out as a request and the rest of the line as another."""
    from cuttle_search.hint import request_lines

    data = b"\xef\xbb\xbf" + b'{"id": "x", "about": "' + b"y" * 2000 + b'"}\n{"id": "next"}\n'
    assert list(request_lines(io.BytesIO(data), 1024)) == [None, b'{"id": "next"}\n']
    assert list(request_lines(io.BytesIO(b"\xef\xbb\xbf" + b" " * 2000 + b'{"id": "x"}\n'), 1024)) == [None]


def test_an_output_closed_or_missing_is_an_output_gone():
    """A closed stream (ValueError) or none at all (AttributeError) is an output that went
    away, as a closed pipe is: not a defect raised from the write."""
    from cuttle_search import hint as H

    closed = io.StringIO()
    closed.close()
    for out in (closed, None):
        with pytest.raises(H.OutputGone):
            H.serve(io.StringIO('{"id": 1, "action": "query_version"}\n'), out, {})  # type: ignore[arg-type]
        with pytest.raises(H.OutputGone):  # answered by a search thread
            H.serve(io.StringIO("not json\n"), out, {})  # type: ignore[arg-type]


def test_a_defect_in_a_search_thread_stops_the_server_and_is_raised(monkeypatch):
    """An exception no request caused, in a search thread (here the output's write), stops
    the server (the other search cancelled) and reaches ``serve``'s caller: the pool's
    future kept it unseen, and the server exited 0 with every search run to its budget."""
    import threading

    from cuttle_search import hint as H
    from cuttle_search.analysis import SearchError

    cancels: list[threading.Event] = []

    def search(*args, cancel=None, **kwargs):
        cancels.append(cancel)
        assert cancel.wait(60)  # a guard: set as soon as the defect stops the server
        raise SearchError("iterations: answered at once")

    class Gremlin(io.StringIO):
        def write(self, text):
            raise RuntimeError("a gremlin in the output")

    monkeypatch.setattr(H, "best_move", search)
    lines = json.dumps({"id": 0, "position": MIDGAME, "time": 30}) + "\nnot json\n"
    with pytest.raises(RuntimeError, match="gremlin"):
        H.serve(io.StringIO(lines), Gremlin(), {}, workers=2)
    assert len(cancels) == 1 and cancels[0].is_set()
