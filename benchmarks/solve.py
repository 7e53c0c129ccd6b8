"""Solver benchmark: the exact solver's nodes per second and the time to solve deck-out
endgames (up to 5 cards in each hand) over a fixed seeded set of positions from random
games of every preset ruleset: median, p90 and max, and how many a per-position time cap
left unproven. One thread, one process, kernels warm; each solve builds a fresh table.
Text, then the same figures as JSON.

    python benchmarks/solve.py [--quick] [--json]
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

import numpy as np
from tqdm import tqdm

from cuttle_search.bench import script_main
from cuttle_search.analysis.endgames import random_deck_out
from cuttle_search.game.rules import PRESETS
from cuttle_search.analysis.solve import solve

SEED_BASE = 20261123
MAX_HAND = 5
CAP_SECONDS = 10.0  # a position still unsolved after this counts as unproven (its time is the cap)


def endgames(count: int) -> list:
    """``count`` deck-out endgames, the same every run: presets in turn, seeds counted up."""
    out = []
    i = 0
    specs = list(PRESETS)
    while len(out) < count:
        spec = specs[i % len(specs)]
        pos = random_deck_out(spec, SEED_BASE + i, max_hand=MAX_HAND)
        i += 1
        if pos is not None:
            out.append(pos)
    return out


def run_solve(quick: bool = False, progress: bool = False) -> dict[str, Any]:
    count = 60 if quick else 240
    positions = endgames(count)
    solve(positions[0])  # load the kernels
    times, nodes, kernel_seconds, rates = [], 0, 0.0, []
    unproven = []
    slow = []  # (name, seconds, nodes) of every solve of 1 s or more
    per_rules: dict[str, list[float]] = {}
    for pos in tqdm(positions, desc="solve benchmark", disable=not progress or None, file=sys.stderr):
        start = time.perf_counter()
        res = solve(pos, time=CAP_SECONDS)
        wall = time.perf_counter() - start
        times.append(wall)
        per_rules.setdefault(pos.rules.name, []).append(wall)
        nodes += res.nodes
        kernel_seconds += res.seconds
        if res.nodes >= 100_000:
            rates.append(res.nodes_per_second)
        if not res.proven:
            unproven.append(pos.name)
        if wall >= 1.0:
            slow.append((pos.name, round(wall, 3), res.nodes))
    t = np.array(times)
    return {
        "positions": len(positions),
        "max_hand": MAX_HAND,
        "seed_base": SEED_BASE,
        "cap_seconds": CAP_SECONDS,
        "median_ms": float(np.median(t) * 1e3),
        "p90_ms": float(np.percentile(t, 90) * 1e3),
        "max_ms": float(t.max() * 1e3),
        "under_1s": int(np.sum(t < 1.0)),
        "unproven": unproven,
        "over_1s": slow,
        "nodes_per_second_overall": nodes / kernel_seconds if kernel_seconds else 0.0,
        "nodes_per_second_median_large": statistics.median(rates) if rates else None,
        "per_ruleset_median_ms": {k: float(np.median(v) * 1e3) for k, v in per_rules.items()},
        "per_ruleset_max_ms": {k: float(np.max(v) * 1e3) for k, v in per_rules.items()},
        "targets": {"median_ms": 20, "max_ms": 1000, "nodes_per_second": 1_000_000},
    }


def solve_text(fig: dict[str, Any]) -> list[str]:
    lines = [
        f"solver (one thread) on {fig['positions']} deck-out endgames, up to {fig['max_hand']} cards in each hand, "
        f"seeds from {fig['seed_base']}",
        f"  time to solve: median {fig['median_ms']:.1f} ms, p90 {fig['p90_ms']:.1f} ms, max {fig['max_ms']:.0f} ms; "
        f"{fig['under_1s']} of {fig['positions']} under 1 s",
        f"  unproven after {fig['cap_seconds']:.0f} s: {len(fig['unproven'])} {fig['unproven']}",
        "  1 s or more: " + (", ".join(f"{n} ({t:.2f} s, {k:,} nodes)" for n, t, k in fig.get("over_1s", [])) or "none"),
        f"  nodes/s: {fig['nodes_per_second_overall']:,.0f} overall"
        + ("" if fig["nodes_per_second_median_large"] is None
           else f", median {fig['nodes_per_second_median_large']:,.0f} on solves of 100,000+ nodes"),
    ]
    for k, v in fig["per_ruleset_median_ms"].items():
        lines.append(f"  {k:<16} median {v:7.1f} ms  max {fig['per_ruleset_max_ms'][k]:8.0f} ms")
    return lines


if __name__ == "__main__":
    script_main(__doc__, run_solve, solve_text)
