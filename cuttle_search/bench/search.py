"""The search benchmark: ISMCTS iterations a second on the benchmark positions, on one
thread and on all, memory per node and the rate at growing budgets (issue 28's targets),
and the ``analyse`` warm start."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from typing import Any

from tqdm import tqdm

from ..analysis.limits import MAX_THREADS
from ..game.position import Position
from .common import POSITIONS, _median_runs, command_seconds

SCALING_POSITIONS = ("opening-p0", "midgame-main-p0")  # issue 28's memory and scaling targets
SEARCH_POSITIONS = ("opening-p0", "midgame-main-p0", "kings-race-p1", "scuttle-or-lose-p0", "four-victim-p1",
                    "cutthroat-opening-p0", "team-opening-p0", "multiplayer-4-opening-p0", "multiplayer-8-opening-p0")


def search_speed(name: str, iterations: int, threads: int, repeats: int) -> float:
    from ..analysis import analyse

    pos = Position.load(POSITIONS / f"{name}.json")
    analyse(pos, iterations=min(iterations, 500), seed=1)  # (loads the kernels; one thread: the budget is small)

    def once() -> float:
        res = analyse(pos, iterations=iterations, threads=threads, seed=1)
        return res.iterations / res.seconds

    return _median_runs(once, repeats)


_MEMORY_PROBE = """
import sys
from cuttle_search.analysis import analyse
analyse(sys.argv[1], iterations=500, seed=1)
def rss(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024
base = rss("VmRSS:")
r = analyse(sys.argv[1], iterations=int(sys.argv[2]), seed=1)
print(r.nodes, rss("VmHWM:") - base, r.iterations / r.seconds)
"""


def search_scaling(name: str, budgets: tuple[int, ...]) -> dict[str, Any]:
    """The one-thread rate at growing budgets (each in a fresh process, so one run's tree
    does not crowd the next), and the memory a node really costs: the peak resident size
    over the warmed-up process, divided by the nodes (tree growth copies included)."""
    rows = []
    for n in budgets:
        out = subprocess.run([sys.executable, "-c", _MEMORY_PROBE, str(POSITIONS / f"{name}.json"), str(n)],
                             capture_output=True, text=True, check=True)
        nodes, peak, rate = out.stdout.split()
        rows.append({"iterations": n, "iterations_per_second": float(rate), "nodes": int(nodes),
                     "peak_bytes_per_node": int(peak) / max(int(nodes), 1)})
    return {"position": name, "runs": rows,
            "largest_vs_smallest_rate": rows[-1]["iterations_per_second"] / rows[0]["iterations_per_second"]}


def run_search_benchmark(quick: bool = False, progress: bool = False) -> dict[str, Any]:
    from ..analysis import default_rollout
    from ..analysis.tree import BYTES_PER_NODE

    iterations, repeats = (20_000, 3) if quick else (100_000, 5)
    cores = min(os.cpu_count() or 1, MAX_THREADS)
    bar = tqdm(total=2 * len(SEARCH_POSITIONS) + 1 + len(SCALING_POSITIONS), desc="search benchmark", disable=not progress or None, file=sys.stderr)
    per_position = {}
    for name in SEARCH_POSITIONS:
        one = search_speed(name, iterations, 1, repeats)
        bar.update()
        many = search_speed(name, iterations, cores, repeats)
        bar.update()
        per_position[name] = {"one_thread": one, "all_threads": many, "speedup": many / one}
    start = command_seconds(["analyse", str(POSITIONS / "opening-p0.json"), "-n", "1000", "--json"], repeats)
    bar.update()
    scaling = []
    for name in SCALING_POSITIONS:
        scaling.append(search_scaling(name, (20_000, 200_000) if quick else (100_000, 1_000_000, 3_000_000)))
        bar.update()
    bar.close()
    one = statistics.median(p["one_thread"] for p in per_position.values())
    many = statistics.median(p["all_threads"] for p in per_position.values())
    return {
        "iterations_per_run": iterations,
        "repeats": repeats,
        "rollout": {name: default_rollout(pos.rules)  # the analyser's default, by position
                    for name in SEARCH_POSITIONS for pos in [Position.load(POSITIONS / f"{name}.json")]},
        "threads_all": cores,
        "positions": per_position,
        "median_iterations_per_second_one_thread": one,
        "median_iterations_per_second_all_threads": many,
        "median_speedup": statistics.median(p["speedup"] for p in per_position.values()),
        "bytes_per_node": BYTES_PER_NODE,
        "scaling": scaling,
        "analyse_warm_start_seconds": start,
        # peak bytes a node at 1 M iterations and more; the rate at 3 M over the rate at 100,000
        "targets": {"iterations_per_second_per_core": 50_000, "speedup_two_threads": 1.9, "peak_bytes_per_node": 40,
                    "largest_vs_smallest_rate": 0.9},
    }


def search_text(fig: dict[str, Any]) -> list[str]:
    # each position's own default: "value rollouts (greedy: cutthroat-opening-p0)"
    kinds: dict[str, list[str]] = {}
    for name, kind in fig["rollout"].items():
        kinds.setdefault(kind, []).append(name)
    common_kind = max(kinds, key=lambda k: len(kinds[k]))
    rest = "; ".join(f"{kind}: {', '.join(names)}" for kind, names in kinds.items() if kind != common_kind)
    rollout = common_kind + (f" rollouts ({rest})" if rest else " rollouts")
    lines = [
        f"search (ISMCTS, {rollout}, median of {fig['repeats']} runs of {fig['iterations_per_run']:,} iterations)"
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
    lines.append(f"  memory per tree node: {fig['bytes_per_node']} bytes in the node arrays (the index pool and growth "
                 "come on top: the peaks below)")
    for sc in fig["scaling"]:
        for row in sc["runs"]:
            lines.append(f"  {sc['position']} at {row['iterations']:>9,} iterations: {row['iterations_per_second']:10,.0f} "
                         f"it/s, {row['nodes']:,} nodes, {row['peak_bytes_per_node']:.1f} bytes a node at the peak "
                         "(process memory)")
        lines.append(f"  {sc['position']}: rate at the largest budget / at the smallest: "
                     f"{sc['largest_vs_smallest_rate']:.2f}")
    lines.append(f"  analyse warm start (1,000 iterations): {fig['analyse_warm_start_seconds']:.2f} s")
    return lines
