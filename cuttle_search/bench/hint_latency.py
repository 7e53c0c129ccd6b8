"""The hint benchmark: round-trip latency of ``cuttle-search hint`` on a warm server."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from typing import Any

from tqdm import tqdm

from .common import POSITIONS, _cli

HINT_POSITION = "midgame-main-p0"


HINT_FULL_POSITION = "opening-p0"  # a default-size request: 10,000 iterations


def run_hint(quick: bool = False, progress: bool = False) -> dict[str, Any]:
    """Round-trip latency of `cuttle-search hint`, one request at a time, measured by a
    client on a warm server: a 100-iteration search and a refused (malformed) request (the
    server's own cost), and a 10,000-iteration search on the opening (what a user waits for)."""
    import json

    requests = 60 if quick else 400
    position = json.loads((POSITIONS / f"{HINT_POSITION}.json").read_text())
    opening = json.loads((POSITIONS / f"{HINT_FULL_POSITION}.json").read_text())
    kinds = {
        "search_100_iterations": json.dumps({"position": position, "iterations": 100, "seed": 1}),
        "refused_request": '{"position": {"p0Hand": ["ZZ"]}}',
        "search_10000_iterations_opening": json.dumps({"position": opening, "iterations": 10_000, "seed": 1}),
    }
    counts = {kind: requests // 4 if kind.startswith("search_10000") else requests for kind in kinds}
    proc = subprocess.Popen(_cli() + ["hint"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    bar = tqdm(total=sum(counts.values()), desc="hint benchmark", disable=not progress or None, file=sys.stderr)
    figures: dict[str, Any] = {}
    try:
        for line in kinds.values():  # the first answer may load compiled code
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            proc.stdout.readline()
        for kind, line in kinds.items():
            times = []
            for _ in range(counts[kind]):
                t0 = time.perf_counter()
                proc.stdin.write(line + "\n")
                proc.stdin.flush()
                answer = proc.stdout.readline()
                times.append(time.perf_counter() - t0)
                bar.update()
                if not answer:
                    raise RuntimeError("the hint server stopped answering")
            times.sort()
            figures[kind] = {
                "median_ms": 1000 * statistics.median(times),
                "p99_ms": 1000 * times[min(len(times) - 1, int(0.99 * len(times)))],
                "max_ms": 1000 * times[-1],
            }
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
        bar.close()
    return {"requests_per_kind": requests, "requests": counts, "position": HINT_POSITION,
            "full_position": HINT_FULL_POSITION, "latency": figures, "target_10000_iterations_ms": 60.0}


def hint_text(fig: dict[str, Any]) -> list[str]:
    lines = [f"hint server round trip ({fig['requests_per_kind']} sequential requests per kind, a quarter of that "
             f"at 10,000 iterations; warm server; {fig['position']}, and {fig['full_position']} at 10,000)"]
    for kind, f in fig["latency"].items():
        lines.append(
            f"  {kind:<32} median {f['median_ms']:7.2f} ms   p99 {f['p99_ms']:7.2f} ms   max {f['max_ms']:7.2f} ms"
        )
    return lines
