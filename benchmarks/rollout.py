"""Rollout benchmark: random-playout throughput from the deal, compile and start-up times.

    python benchmarks/rollout.py            # text, then the same figures as JSON
    python benchmarks/rollout.py --json     # JSON only

Figures (one thread):
- plies/s and games/s of uniformly random games from fresh deals, median of repeats,
  per ruleset;
- cold compile: a fresh process with an empty Numba cache, import to first game done;
- warm first call: the same in a process that finds the cache filled;
- CLI warm start: wall time of ``cuttle-search moves`` on a shipped position, cache warm.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FIRST_CALL = """
import time, numpy as np
t0 = time.perf_counter()
from cuttle_search.engine import kernels as K
from cuttle_search.rules import get_ruleset
r = get_ruleset("cuttle-cards").to_array()
s = np.zeros(K.STATE_SIZE, np.int64); buf = np.zeros(K.MAX_MOVES, np.int64)
res = np.zeros((1, 3), np.int64)
K.random_games(r, 1, 0, 1, s, buf, res)
print(time.perf_counter() - t0)
"""


def first_call_seconds(cache_dir: str) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", FIRST_CALL], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def throughput(spec: str, games: int, repeats: int) -> dict[str, float]:
    from cuttle_search.engine import kernels as K
    from cuttle_search.rules import get_ruleset

    r = get_ruleset(spec).to_array()
    s = np.zeros(K.STATE_SIZE, np.int64)
    buf = np.zeros(K.MAX_MOVES, np.int64)
    res = np.zeros((games, 3), np.int64)
    K.random_games(r, 0, 0, 10, s, buf, res)  # compiled or loaded before timing
    plies_s, games_s = [], []
    for rep in range(repeats):
        t0 = time.perf_counter()
        plies = K.random_games(r, 1000 + rep, 0, games, s, buf, res)
        dt = time.perf_counter() - t0
        plies_s.append(plies / dt)
        games_s.append(games / dt)
    return {
        "plies_per_second": statistics.median(plies_s),
        "games_per_second": statistics.median(games_s),
        "mean_plies_per_game": float(res[:, 0].mean()),
        "repeats": repeats,
        "games_per_repeat": games,
    }


def cli_warm_start(repeats: int) -> float:
    exe = Path(sys.executable).with_name("cuttle-search")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "cuttle_search.cli"]
    cmd += ["moves", str(ROOT / "positions" / "opening-full.json")]
    subprocess.run(cmd, capture_output=True, check=True)  # fill the cache
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def run(games: int, repeats: int) -> dict:
    from cuttle_search import __version__
    from cuttle_search.rules import PRESETS

    with tempfile.TemporaryDirectory() as cache:
        cold = first_call_seconds(cache)
        warm = first_call_seconds(cache)
    rulesets = {spec: throughput(spec, games, repeats) for spec in PRESETS}
    return {
        "benchmark": "rollout",
        "version": __version__,
        "threads": 1,
        "cold_compile_seconds": cold,
        "warm_first_call_seconds": warm,
        "cli_warm_start_seconds": cli_warm_start(repeats),
        "rulesets": rulesets,
        "target_plies_per_second": 5_000_000,
    }


def text_report(fig: dict) -> str:
    lines = [f"rollout benchmark (cuttle_search {fig['version']}, one thread, median of {fig['rulesets']['cuttle-cards']['repeats']} runs)"]
    for spec, f in fig["rulesets"].items():
        lines.append(
            f"  {spec:<16} {f['plies_per_second'] / 1e6:6.2f} M plies/s  {f['games_per_second']:10,.0f} games/s  "
            f"({f['mean_plies_per_game']:.1f} plies/game)"
        )
    lines.append(f"  cold compile (empty cache, import to first game): {fig['cold_compile_seconds']:.2f} s")
    lines.append(f"  warm first call (cache filled):                  {fig['warm_first_call_seconds']:.2f} s")
    lines.append(f"  CLI warm start (cuttle-search moves):            {fig['cli_warm_start_seconds']:.2f} s")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20000, help="games per timed run")
    ap.add_argument("--repeats", type=int, default=5, help="timed runs; the median is reported")
    ap.add_argument("--json", action="store_true", help="print only the JSON figures")
    args = ap.parse_args()
    fig = run(args.games, args.repeats)
    if not args.json:
        print(text_report(fig))
    print(json.dumps(fig, indent=2))


if __name__ == "__main__":
    main()
