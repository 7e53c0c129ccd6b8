"""The hint server under abuse: a real `cuttle-search hint` process fed bad, hostile and
good requests must answer every one, in order, with flat memory, within its caps."""

import json
import subprocess
import sys
import time
from pathlib import Path

POS = Path(__file__).parent.parent / "positions"


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
        (b'{"turn": ' + b"7" * 5000 + b"}", "request"),
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
            for i, (line, expect) in enumerate(rounds):
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
        # a capped time request returns within its cap (plus start-up slack)
        t0 = time.perf_counter()
        proc.stdin.write(json.dumps({"id": "t", "time": 0.5, "position": position}).encode() + b"\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        assert answer["id"] == "t" and answer["seconds"] <= 0.6 and time.perf_counter() - t0 < 2.0
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert proc.returncode == 0 and sent >= 2000
    assert rss[1] - rss[0] < 20 * 1024, f"memory grew from {rss[0]} to {rss[1]} KiB"
    assert b"Traceback" not in proc.stderr.read()
