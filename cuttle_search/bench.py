"""Benchmarks: rollout throughput, search speed, memory per node, start-up times.

Used by ``cuttle-search bench`` and by the scripts in ``benchmarks/``. Every figure is a
median of repeated runs measured in one process, so ratios compare like with like.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from . import __version__
from .engine import kernels as K
from .position import Position
from .rules import PRESETS, get_ruleset

ROOT = Path(__file__).resolve().parent.parent
POSITIONS = ROOT / "positions"
SEARCH_POSITIONS = ("opening-p0", "midgame-main-p0", "kings-race-p1", "scuttle-or-lose-p0", "four-victim-p1")

_FIRST_CALL = """
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


def warm_up() -> None:
    """Compile or load every kernel the commands use."""
    from .perft import perft
    from .search import analyse

    pos = Position.deal("cuttle-cards", seed=1)
    perft(pos, 2)
    r = get_ruleset("cuttle-cards").to_array()
    s = np.zeros(K.STATE_SIZE, np.int64)
    buf = np.zeros(K.MAX_MOVES, np.int64)
    K.random_games(r, 1, 0, 1, s, buf, np.zeros((1, 3), np.int64))
    K.checked_random_games(r, 1, 0, 1, s, buf, np.zeros((1, 6), np.int64))
    analyse(pos.view_of(0), iterations=200, seed=1)
    analyse(pos.view_of(0), iterations=200, seed=1, rollout="random")
    from .search.solve import solve

    solve(POSITIONS / "deck-out-endgame.json")  # the exact solver


def _median_runs(fn, repeats: int) -> float:
    return statistics.median(fn() for _ in range(repeats))


def rollout_throughput(spec: str, games: int, repeats: int) -> dict[str, float]:
    r = get_ruleset(spec).to_array()
    s = np.zeros(K.STATE_SIZE, np.int64)
    buf = np.zeros(K.MAX_MOVES, np.int64)
    res = np.zeros((games, 3), np.int64)
    K.random_games(r, 0, 0, 10, s, buf, res)
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
    }


def first_call_seconds(cache_dir: str) -> float:
    """Import to first finished game in a fresh process using ``cache_dir`` as Numba's cache."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", _FIRST_CALL], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("cuttle-search")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "cuttle_search.cli"]


def command_seconds(args: list[str], repeats: int) -> float:
    """Median wall time of a CLI command (run once first so the cache is warm)."""
    cmd = _cli() + args
    subprocess.run(cmd, capture_output=True, check=True)

    def once() -> float:
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        return time.perf_counter() - t0

    return _median_runs(once, repeats)


def search_speed(name: str, iterations: int, threads: int, repeats: int) -> float:
    from .search import analyse

    pos = Position.load(POSITIONS / f"{name}.json")
    analyse(pos, iterations=min(iterations, 500), threads=threads, seed=1)

    def once() -> float:
        res = analyse(pos, iterations=iterations, threads=threads, seed=1)
        return res.iterations / res.seconds

    return _median_runs(once, repeats)


def run_rollout(quick: bool = False, progress: bool = False) -> dict[str, Any]:
    games, repeats = (3000, 3) if quick else (20000, 5)
    bar = tqdm(total=len(PRESETS) + 3, desc="rollout benchmark", disable=not progress or None, file=sys.stderr)
    with tempfile.TemporaryDirectory() as cache:
        cold = first_call_seconds(cache)
        bar.update()
        warm = first_call_seconds(cache)
        bar.update()
    rulesets = {}
    for spec in PRESETS:
        rulesets[spec] = rollout_throughput(spec, games, repeats)
        bar.update()
    cli = command_seconds(["moves", str(POSITIONS / "opening-full.json")], repeats)
    bar.update()
    bar.close()
    return {
        "threads": 1,
        "games_per_run": games,
        "repeats": repeats,
        "cold_compile_seconds": cold,
        "warm_first_call_seconds": warm,
        "cli_warm_start_seconds": cli,
        "rulesets": rulesets,
        "target_plies_per_second": 5_000_000,
    }


def run_search(quick: bool = False, progress: bool = False) -> dict[str, Any]:
    from .search import DEFAULT_ROLLOUT
    from .search.tree import BYTES_PER_NODE

    iterations, repeats = (20_000, 3) if quick else (100_000, 5)
    cores = os.cpu_count() or 1
    bar = tqdm(total=2 * len(SEARCH_POSITIONS) + 1, desc="search benchmark", disable=not progress or None, file=sys.stderr)
    per_position = {}
    for name in SEARCH_POSITIONS:
        one = search_speed(name, iterations, 1, repeats)
        bar.update()
        many = search_speed(name, iterations, cores, repeats)
        bar.update()
        per_position[name] = {"one_thread": one, "all_threads": many, "speedup": many / one}
    start = command_seconds(["analyse", str(POSITIONS / "opening-p0.json"), "-n", "1000", "--json"], repeats)
    bar.update()
    bar.close()
    one = statistics.median(p["one_thread"] for p in per_position.values())
    many = statistics.median(p["all_threads"] for p in per_position.values())
    return {
        "iterations_per_run": iterations,
        "repeats": repeats,
        "rollout": DEFAULT_ROLLOUT,
        "threads_all": cores,
        "positions": per_position,
        "median_iterations_per_second_one_thread": one,
        "median_iterations_per_second_all_threads": many,
        "median_speedup": statistics.median(p["speedup"] for p in per_position.values()),
        "bytes_per_node": BYTES_PER_NODE,
        "analyse_warm_start_seconds": start,
        "targets": {"iterations_per_second_per_core": 50_000, "speedup_two_threads": 1.8, "bytes_per_node": 200},
    }


def run_all(quick: bool = False, progress: bool = False) -> dict[str, Any]:
    return {
        "version": __version__,
        "machine_cores": os.cpu_count(),
        "rollout": run_rollout(quick, progress),
        "search": run_search(quick, progress),
    }


def rollout_text(fig: dict[str, Any]) -> list[str]:
    lines = [f"rollout (one thread, median of {fig['repeats']} runs of {fig['games_per_run']:,} games)"]
    for spec, f in fig["rulesets"].items():
        lines.append(
            f"  {spec:<16} {f['plies_per_second'] / 1e6:6.2f} M plies/s  {f['games_per_second']:10,.0f} games/s  "
            f"({f['mean_plies_per_game']:.1f} plies/game)"
        )
    lines.append(f"  cold compile (empty cache, import to first game): {fig['cold_compile_seconds']:.2f} s")
    lines.append(f"  warm first call (cache filled):                  {fig['warm_first_call_seconds']:.2f} s")
    lines.append(f"  CLI warm start (cuttle-search moves):            {fig['cli_warm_start_seconds']:.2f} s")
    return lines


def search_text(fig: dict[str, Any]) -> list[str]:
    lines = [
        f"search (ISMCTS, {fig['rollout']} rollouts, median of {fig['repeats']} runs of "
        f"{fig['iterations_per_run']:,} iterations)"
    ]
    for name, p in fig["positions"].items():
        lines.append(
            f"  {name:<20} {p['one_thread']:10,.0f} it/s on 1 thread  {p['all_threads']:10,.0f} it/s on "
            f"{fig['threads_all']} threads  (x{p['speedup']:.2f})"
        )
    lines.append(
        f"  median: {fig['median_iterations_per_second_one_thread']:,.0f} it/s on 1 thread, "
        f"x{fig['median_speedup']:.2f} on {fig['threads_all']} threads"
    )
    lines.append(f"  memory per tree node: {fig['bytes_per_node']} bytes")
    lines.append(f"  analyse warm start (1,000 iterations): {fig['analyse_warm_start_seconds']:.2f} s")
    return lines


def summary_text(figures: dict[str, Any]) -> str:
    head = f"cuttle_search {figures['version']} benchmarks on {figures['machine_cores']} cores"
    return "\n".join([head, ""] + rollout_text(figures["rollout"]) + [""] + search_text(figures["search"]))



def script_main(doc: str, run, text) -> None:
    """The command line of a benchmarks/ script: ``--quick``, ``--json``; text then JSON."""
    import argparse
    import json

    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller runs for a rough figure")
    ap.add_argument("--json", action="store_true", help="print only the JSON figures")
    args = ap.parse_args()
    fig = run(args.quick, progress=True)
    if not args.json:
        print("\n".join(text(fig)))
    print(json.dumps(fig, indent=2))
