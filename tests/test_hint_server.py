"""The hint server under abuse: a real `cuttle-search hint` process fed bad, hostile and
good requests must answer every one, in order, with flat memory, within its caps."""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

POS = Path(__file__).parent.parent / "positions"
# a test's wall-clock checks (how soon an answer comes) run only with -m slow: on a loaded
# machine they fail for reasons that are not the server's; what they check by count runs always
TIMED = [False, pytest.param(True, marks=pytest.mark.slow, id="timed")]


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("cuttle-search")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "cuttle_search.cli"]


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _requests(position: dict) -> list[tuple[bytes, str]]:
    """One round of requests: (line, what the answer must be: move | error field)."""
    good = {"position": position, "iterations": 20}
    return [
        (json.dumps(good).encode(), "move"),
        (b"not json at all", "request"),
        (b"[" * 50000 + b"]" * 50000, "request"),
        (b'{"id": "\xff\xfe"}', "request"),
        (json.dumps({**good, "iterations": 10**30}).encode(), "iterations"),
        (json.dumps({**good, "iterations": None, "time": 1e308}).encode(), "time"),
        (b'{"time": Infinity, "position": {}}', "time"),
        (json.dumps({**good, "threads": 100000}).encode(), "threads"),
        (json.dumps({**good, "runnersUp": -3}).encode(), "runnersUp"),
        (json.dumps({**good, "seed": 2**64}).encode(), "seed"),
        (json.dumps({"position": {**position, "turn": 2**63}}).encode(), "turn"),
        (json.dumps({"position": {**position, "p0Hand": 7}}).encode(), "p0Hand"),
        (b'{"turn": ' + b"7" * 5000 + b"}", "turn"),  # named by its key
        (json.dumps({**good, "about": "x" * 70000}).encode(), "request"),  # over --max-request-bytes
        (json.dumps({**good, "runnersUp": 1, "seed": 3}).encode(), "move"),
    ]


def test_hint_server_survives_abuse():
    position = json.loads((POS / "midgame-main-p0.json").read_text())
    rounds = _requests(position)
    proc = subprocess.Popen(_cli() + ["hint", "--max-request-bytes", "65536", "--max-time", "0.5"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    rss = []
    sent = 0
    try:
        for r in range(134):  # 2,010 requests
            for line, expect in rounds:
                rid = sent
                if line.startswith(b"{") and b'"id"' not in line[:20] and expect != "request":
                    line = b'{"id": %d, ' % rid + line[1:]
                proc.stdin.write(line + b"\n")
                proc.stdin.flush()
                answer = json.loads(proc.stdout.readline())
                sent += 1
                if expect == "move":
                    assert answer["id"] == rid and "move" in answer, answer
                else:
                    assert answer.get("field") == expect, (expect, answer)
                    if expect not in ("request",):
                        assert answer["id"] == rid, answer
            if r in (20, 133):
                rss.append(_rss_kib(proc.pid))
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert proc.returncode == 0 and sent >= 2000
    assert rss[1] - rss[0] < 20 * 1024, f"memory grew from {rss[0]} to {rss[1]} KiB"
    assert b"Traceback" not in proc.stderr.read()


@pytest.mark.slow  # wall clock
def test_a_capped_time_request_returns_within_its_cap():
    position = json.loads((POS / "midgame-main-p0.json").read_text())
    proc = _server("--max-time", "0.5")
    try:
        _send(proc, {"id": 0, "position": position, "iterations": 10})
        assert _read(proc)["id"] == 0  # the server is up (its start-up time is not what this tests)
        t0 = time.perf_counter()
        _send(proc, {"id": "t", "time": 0.5, "position": position})
        answer = _read(proc)
        assert answer["id"] == "t" and answer["seconds"] <= 0.6 and time.perf_counter() - t0 < 2.0
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


def _server(*flags):
    # (Ctrl-C back to its default in the server: a shell starts a background job, such as
    # a test run, with it ignored, and the server would inherit that)
    return subprocess.Popen(_cli() + ["hint", *flags], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _send(proc, obj):
    proc.stdin.write(json.dumps(obj) + "\n")
    proc.stdin.flush()


def _read(proc):
    return json.loads(proc.stdout.readline())


@pytest.mark.parametrize("timed", TIMED)
def test_partial_answers_then_the_same_final_answer(timed):
    position = json.loads((POS / "midgame-main-p0.json").read_text())
    proc = _server()
    # untimed: a partial answer every 0.05 s (the shortest allowed) of a search of 300,000
    # iterations, which takes some 20 times that on any machine today: at least one comes
    every = 0.1 if timed else 0.05
    iterations = 300000
    try:
        _send(proc, {"id": "plain", "position": position, "iterations": iterations, "seed": 4})
        plain = _read(proc)
        t0 = time.perf_counter()
        _send(proc, {"id": "live", "position": position, "iterations": iterations, "seed": 4,
                     "reportDuringSearchEvery": every})
        partials, stamps = [], []
        while True:
            a = _read(proc)
            stamps.append(time.perf_counter() - t0)
            if not a.get("isDuringSearch"):
                final = a
                break
            partials.append(a)
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert len(partials) >= (3 if timed else 1) and all(p["id"] == "live" for p in partials)
    its = [p["iterations"] for p in partials]
    assert its == sorted(its) and its[-1] <= iterations
    if timed:
        gaps = [b - a for a, b in zip(stamps, stamps[1:len(partials)])]
        assert sorted(gaps)[len(gaps) // 2] < 0.5  # roughly the requested cadence
    strip = lambda a: {k: v for k, v in a.items() if k not in ("id", "seconds")}  # noqa: E731
    assert strip(final) == strip(plain) and final["stopReason"] == "budget"


def test_confidence_stop_ends_early_and_says_why():
    position = json.loads((POS / "win-in-one-p0.json").read_text())
    proc = _server()
    try:
        _send(proc, {"id": 1, "position": position, "iterations": 500000, "stop": {"minIterations": 1000}})
        a = _read(proc)
        _send(proc, {"id": 2, "position": position, "stop": {"minIterations": 0}})
        bad = _read(proc)
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert a["stopReason"] == "confident" and 1000 <= a["iterations"] < 500000 and a["move"] == "royal KD"
    assert bad["field"] == "stop.minIterations"


@pytest.mark.parametrize("timed", TIMED)
def test_workers_answer_out_of_order_and_terminate_cancels(timed):
    position = json.loads((POS / "opening-p0.json").read_text())
    proc = _server("--workers", "2", "--max-time", "30")
    try:
        _send(proc, {"id": "long", "position": position, "time": 20})
        _send(proc, {"id": "short", "position": position, "iterations": 200})
        first = _read(proc)
        _send(proc, {"id": "v", "action": "query_version"})
        version = _read(proc)
        t0 = time.perf_counter()
        _send(proc, {"id": "t", "action": "terminate", "terminateId": "long"})
        replies = [_read(proc), _read(proc)]
        waited = time.perf_counter() - t0
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert first["id"] == "short" and "move" in first  # the short one overtook the long one
    assert version["protocol"] == 4 and {"cuttle-cards", "cutthroat", "team", "multiplayer"} <= set(version["rules"])
    ack = next(r for r in replies if r["id"] == "t")
    cancelled = next(r for r in replies if r["id"] == "long")
    assert ack == {"id": "t", "action": "terminate", "terminateId": "long", "cancelled": 1}
    assert cancelled["stopReason"] == "cancelled" and "move" in cancelled  # (before its 20 s ran out)
    assert waited < 5 or not timed


def test_hint_server_survives_abuse_with_two_workers():
    position = json.loads((POS / "midgame-main-p0.json").read_text())
    rounds = _requests(position)
    proc = subprocess.Popen(_cli() + ["hint", "--workers", "2", "--max-request-bytes", "65536"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    expected = {}
    lines = []
    n = 0
    for _ in range(20):
        for line, expect in rounds:
            if line.startswith(b"{") and expect != "request":
                line = b'{"id": %d, ' % n + line[1:]
                expected[n] = expect
            lines.append(line + b"\n")
            n += 1
    try:  # (written and read at once: the server stops reading while its answers are not read)
        out = proc.communicate(b"".join(lines), timeout=600)[0].decode().splitlines()
    finally:
        proc.kill()
    answers = [json.loads(x) for x in out]
    assert len(answers) == n and proc.returncode == 0
    by_id = {a["id"]: a for a in answers if a.get("id") is not None}
    for rid, expect in expected.items():
        a = by_id[rid]
        assert ("move" in a) if expect == "move" else a.get("field") == expect, (expect, a)


def test_allow_and_avoid_moves_restrict_the_root():
    from cuttle_search.hint import answer

    position = json.loads((POS / "midgame-main-p0.json").read_text())
    base = {"id": 1, "position": position, "iterations": 3000, "seed": 2}
    allowed = answer(json.dumps({**base, "allowMoves": ["draw", {"moveType": "scuttle", "cardId": "9S", "targetId": "8H"}]}), {})
    assert {allowed["move"]} | {m["move"] for m in allowed["runnersUp"]} == {"draw", "scuttle 9S 8H"}
    free = answer(json.dumps(base), {})
    avoided = answer(json.dumps({**base, "avoidMoves": [free["move"]]}), {})
    assert avoided["move"] != free["move"] and free["move"] not in [m["move"] for m in avoided["runnersUp"]]
    for extra, field, fragment in [
        ({"allowMoves": ["royal KZ"]}, "allowMoves[0]", "unknown card"),
        ({"allowMoves": ["royal KH"]}, "allowMoves[0]", "not legal here"),
        ({"allowMoves": []}, "allowMoves", "non-empty list"),
        ({"allowMoves": ["draw"], "avoidMoves": ["draw"]}, "allowMoves", "not both"),
        ({"avoidMoves": [m["text"] for m in _legal(position)]}, "avoidMoves", "no legal move would be left"),
    ]:
        a = answer(json.dumps({**base, **extra}), {})
        assert a["field"] == field and fragment in a["error"], a


def _legal(position):
    from click.testing import CliRunner

    from cuttle_search.cli import main

    return json.loads(CliRunner().invoke(main, ["moves", str(POS / "midgame-main-p0.json"), "--json"]).stdout)["moves"]


@pytest.mark.parametrize("timed", TIMED)
def test_actions_are_answered_while_a_search_runs_with_one_worker(timed):
    position = json.loads((POS / "opening-p0.json").read_text())
    proc = _server("--max-time", "30")
    try:
        _send(proc, {"id": 17, "position": position, "time": 20})
        time.sleep(0.5)
        t0 = time.perf_counter()
        _send(proc, {"id": "t", "action": "terminate", "terminateId": 17})
        first, second = _read(proc), _read(proc)
        waited = time.perf_counter() - t0
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert first == {"id": "t", "action": "terminate", "terminateId": 17, "cancelled": 1}
    assert second["id"] == 17 and second["stopReason"] == "cancelled"  # (before its 20 s ran out)
    assert waited < 5 or not timed


@pytest.mark.parametrize("timed", TIMED)
def test_an_interrupted_server_stops_at_once(timed):
    position = json.loads((POS / "opening-p0.json").read_text())
    proc = _server("--max-time", "30")
    _send(proc, {"id": 0, "position": position, "iterations": 10})
    assert _read(proc)["id"] == 0  # the server is up (its start-up time is not what this tests)
    _send(proc, {"id": 1, "position": position, "time": 20})
    time.sleep(0.5)
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
    assert json.loads(out.splitlines()[0])["stopReason"] == "cancelled"  # (before its 20 s ran out)
    assert time.perf_counter() - t0 < 5 or not timed


def test_a_server_whose_reader_went_away_exits_though_its_input_stays_open():
    """The front end closed its end of our output but not of our input: the next answer's
    write fails, and the server stops then (status 1, quietly for a closed pipe), without
    waiting for another line that may never come."""
    position = json.loads((POS / "opening-p0.json").read_text())
    proc = _server()
    _send(proc, {"id": 0, "position": position, "iterations": 10})
    assert _read(proc)["id"] == 0  # up
    _send(proc, {"id": 1, "position": position, "time": 2, "reportDuringSearchEvery": 0.1})
    proc.stdout.close()  # stdin stays open
    try:
        code = proc.wait(timeout=60)  # a guard: it exits after its next write, within the second
    finally:
        proc.kill()
        proc.stdin.close()
    assert code == 1 and proc.stderr.read() == ""


def test_a_server_started_with_its_output_closed_says_so_and_searches_nothing():
    """No standard output at all (``1>&-``): one line and status 1 at once, where before
    every search ran to its budget and the server exited 0, silently."""
    request = json.dumps({"id": 0, "position": json.loads((POS / "opening-p0.json").read_text()),
                          "iterations": 10**8}) + "\n"
    proc = subprocess.run([*_cli(), "hint"], input=request.encode(), stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, timeout=120, preexec_fn=lambda: __import__("os").close(1))
    assert proc.returncode == 1
    assert proc.stderr.decode().strip() == "hint: cannot write the answers: the standard output is closed"


def test_a_byte_order_mark_and_blank_lines_are_not_requests():
    """An editor's UTF-8 byte order mark before the first line is dropped, so that line's
    id is answered; blank lines between requests get no answer and cost no request."""
    lines = (b'\xef\xbb\xbf{"action": "query_version", "id": "first"}\n' + b"\n" * 1000 + b"  \r\n"
             + b'{"action": "query_version", "id": "second"}\n')
    proc = subprocess.run([*_cli(), "hint"], input=lines, capture_output=True, timeout=120)
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [a["id"] for a in answers] == ["first", "second"] and "error" not in answers[0]


@pytest.mark.slow
def test_an_interrupted_review_with_workers_stops_at_once(tmp_path):
    """Ctrl-C while worker processes search (each for minutes at this budget): the review
    stops at once, its workers terminated, where it waited for every search in flight."""
    from cuttle_search.play.arena import make_agent, play_game

    log = tmp_path / "game.json"
    log.write_text(json.dumps(play_game("cuttle-cards", 5, [make_agent("greedy"), make_agent("greedy")], 5).to_json()))
    proc = subprocess.Popen([*_cli(), "review", str(log), "-n", "30000000", "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    time.sleep(8)  # the workers are searching (a slow first start only delays the test)
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=120)
    assert proc.returncode == 130 and time.perf_counter() - t0 < 20


def test_a_blank_run_past_the_limit_is_a_long_line_not_blank_lines():
    """Spaces past ``--max-request-bytes`` before a request on the same line: the line is
    refused as too long, never read from the middle as a request of its own."""
    line = b" " * 2000 + b'{"action": "query_version", "id": "x"}\n' + b'{"action": "query_version", "id": "y"}\n'
    proc = subprocess.run([*_cli(), "hint", "--max-request-bytes", "1024"], input=line, capture_output=True, timeout=120)
    first, second = (json.loads(x) for x in proc.stdout.splitlines())
    assert first["field"] == "request" and first["id"] is None and second["id"] == "y"


def _pid_or_wait_for(path: str | None) -> int:
    """A worker's job: its process id at once, or (given a path) wait until the file exists,
    as a compiled search that does not see Ctrl-C runs on."""
    import os

    while path is not None and not os.path.exists(path):
        time.sleep(0.02)
    return os.getpid()


def test_an_interrupt_ends_the_local_workers_without_waiting_for_their_jobs(tmp_path):
    """Ctrl-C in the process that reads the backend's results: the worker processes are
    terminated and the interrupt goes on, where the pool's shutdown waited for every job in
    flight (a review at 3 million iterations took 25 to 60 s to stop)."""
    import os
    import threading

    from cuttle_search.play.backends import LocalBackend

    release = tmp_path / "release"
    results = LocalBackend(2).imap_unordered(_pid_or_wait_for, [None, str(release), str(release)])
    pid = next(results)
    raised: list[BaseException] = []

    def interrupt() -> None:
        try:
            results.throw(KeyboardInterrupt)
        except BaseException as e:  # noqa: B036  (the interrupt, passed on)
            raised.append(e)

    thread = threading.Thread(target=interrupt)
    thread.start()
    thread.join(60)  # a guard: the jobs wait for the file for ever
    stopped = not thread.is_alive()
    release.touch()  # (lets a pool that waits for its jobs end)
    thread.join(60)
    assert stopped and len(raised) == 1 and isinstance(raised[0], KeyboardInterrupt)
    with pytest.raises(ProcessLookupError):  # the worker was ended, not left waiting
        os.kill(pid, 0)
