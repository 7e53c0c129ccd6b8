"""The fuzz suite: mutated positions, hint requests and game logs through the API and the
command line. Every input must be refused with a ``CuttleError`` (one line, naming a field)
or accepted as a position the engine can play: legal moves, a search, a random playout
with the invariants checked after every move, and a write-read round trip.

CI runs 2,000 inputs through the API and a sample through the CLI; ``-m slow`` 20,000."""

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from cuttle_search import hint as H
from cuttle_search.display import render
from cuttle_search.engine import layout as L
from cuttle_search.engine.apply import apply_move
from cuttle_search.engine.movegen import generate_moves
from cuttle_search.engine.setup import check_invariants, POSITION_ERRORS
from cuttle_search.game.errors import CuttleError
from cuttle_search.game.gamelog import replay
from cuttle_search.game.position import Position
from cuttle_search.analysis import analyse, search_viewer

from .fuzz import fuzz_inputs

BUF = np.zeros(L.MAX_MOVES, np.int64)


def _playable(pos: Position, rng: np.random.Generator) -> None:
    """An accepted position must play like a reachable one."""
    render(pos)
    if pos.is_over:  # a finished game is refused as a position: nothing to write back
        return
    again = Position.from_dict(pos.to_dict(), rules=pos.rules)  # what it writes, it reads
    assert again.to_dict() == pos.to_dict()
    try:
        search_viewer(pos)
    except CuttleError:
        pass
    else:
        analyse(pos, iterations=30, seed=1)
    s, r = pos.state.copy(), pos.rules_array
    for ply in range(400):
        if s[L.F_PHASE] == L.PH_OVER:
            return
        n = generate_moves(s, r, BUF)
        assert 0 < n < L.MAX_MOVES - 1, f"{n} moves at ply {ply}"
        apply_move(s, r, BUF[rng.integers(n)])
        err = check_invariants(s, r)
        assert err == 0, f"{POSITION_ERRORS[err]} at ply {ply}"


def check_input(kind: str, raw: bytes, tmp: Path, rng: np.random.Generator) -> str:
    """'accepted' or 'refused'; anything else is an assertion error or an exception."""
    if kind == "hint":
        ans = H.answer(raw, {}, H.ServerLimits(max_threads=2))
        json.dumps(ans, allow_nan=False)
        assert ans.get("field") != "internal", ans
        if "error" in ans:
            assert isinstance(ans["field"], str) and "\n" not in ans["error"] and len(ans["error"]) < 400
            return "refused"
        assert ans["move"] and 0 <= ans["score"] <= 1
        return "accepted"
    path = tmp / "input.json"
    path.write_bytes(raw)
    try:
        if kind == "position":
            pos = Position.load(path)
        elif kind == "history":
            from cuttle_search.game.gamelog import read_game, read_json_file

            start, moves, _ = read_game(read_json_file(path))
            pos = start.copy()
            for m in moves:
                pos.push(m)
        else:
            from cuttle_search.game.gamelog import read_game_log

            pos = replay(read_game_log(path))
    except CuttleError as e:
        message = str(e)
        assert "\n" not in message and len(message) < 400, message
        return "refused"
    _playable(pos, rng)
    return "accepted"


def run_fuzz(seed: int, count: int, tmp: Path) -> Counter:
    counts: Counter = Counter()
    rng = np.random.default_rng(seed)
    for i, (kind, raw) in enumerate(fuzz_inputs(seed, count)):
        try:
            outcome = check_input(kind, raw, tmp, rng)
        except Exception as e:  # report the input that broke it
            raise AssertionError(f"fuzz input {i} ({kind}, seed {seed}): {type(e).__name__}: {e}\n{raw[:600]!r}") from e
        counts[kind, outcome] += 1
    return counts


def _report(counts: Counter) -> str:
    total = sum(counts.values())
    refused = sum(v for (k, o), v in counts.items() if o == "refused")
    kinds = ", ".join(f"{k} {counts[k, 'accepted']}+{counts[k, 'refused']}" for k in ("position", "hint", "log", "history"))
    return f"{total} inputs: {refused} refused cleanly, {total - refused} accepted and played ({kinds}, accepted+refused)"


def test_fuzz_api(tmp_path, capsys):
    counts = run_fuzz(2026, 2000, tmp_path)
    with capsys.disabled():
        print("\nfuzz (API):", _report(counts))
    # the corpus exercises both sides of every reader
    for kind in ("position", "hint", "log", "history"):
        assert counts[kind, "accepted"] > 0 and counts[kind, "refused"] > 0


@pytest.mark.slow
def test_fuzz_api_long(tmp_path, capsys):
    counts = run_fuzz(7, 20000, tmp_path)
    with capsys.disabled():
        print("\nfuzz (API, long):", _report(counts))
    assert sum(counts.values()) == 20000


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("cuttle-search")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "cuttle_search.cli"]


def run_cli_sample(seed: int, count: int, tmp: Path) -> Counter:
    """Mutated files through the real command line in a subprocess: exit 0 or 2, never a
    traceback, never a crash of compiled code, never past the timeout."""
    counts: Counter = Counter()
    for i, (kind, raw) in enumerate(fuzz_inputs(seed, count)):
        path = tmp / f"in{i}.json"
        path.write_bytes(raw)
        if kind == "log":
            cmd = ["replay", str(path)]
        elif kind == "history":
            cmd = ["review", str(path), "-n", "20"]
        elif kind == "hint":
            cmd = ["hint", "--max-threads", "2"]
        else:
            cmd = ["analyse", str(path), "-n", "50"] if i % 2 else ["moves", str(path), "--json"]
        out = subprocess.run(_cli() + cmd, input=raw + b"\n" if kind == "hint" else None, capture_output=True,
                             timeout=120, env=dict(os.environ, CUTTLE_DEBUG=""))
        err = out.stderr.decode("utf-8", "replace")
        assert out.returncode in (0, 2), f"input {i} ({kind}): exit {out.returncode}\n{err[-1500:]}"
        assert "Traceback" not in err, f"input {i} ({kind}):\n{err[-1500:]}"
        if kind == "hint":
            answer = json.loads(out.stdout)
            assert answer.get("field") != "internal", answer
        counts[kind, "refused" if out.returncode == 2 or b'"error"' in out.stdout else "accepted"] += 1
    return counts


def test_fuzz_cli_sample(tmp_path, capsys):
    counts = run_cli_sample(99, 16, tmp_path)  # every kind of input; 300 with -m slow
    assert {kind for kind, _ in counts} == {"position", "history", "log", "hint"}
    with capsys.disabled():
        print("\nfuzz (CLI):", _report(counts))


@pytest.mark.slow
def test_fuzz_cli_long(tmp_path, capsys):
    counts = run_cli_sample(100, 300, tmp_path)
    with capsys.disabled():
        print("\nfuzz (CLI, long):", _report(counts))


def test_fuzz_is_reproducible():
    first = list(fuzz_inputs(5, 30))
    assert first == list(fuzz_inputs(5, 30)) and first != list(fuzz_inputs(6, 30))
