"""Benchmarks: rollout throughput, search speed, memory per node, start-up times.

Used by ``cuttle-search bench`` and by the scripts in ``benchmarks/``. Every figure is a
median of repeated runs measured in one process, so ratios compare like with like.
"""

from __future__ import annotations

import os
from typing import Any

from ..version import __version__
from . import common
from .common import POSITIONS, ROOT, BenchError, command_seconds, script_main, user_environment
from .hint_latency import HINT_FULL_POSITION, HINT_POSITION, hint_text, run_hint
from .review import review_bench_text, run_review
from .rollout import ROLLOUT_RULESETS, first_call_seconds, rollout_text, rollout_throughput, run_rollout
from .search import SEARCH_POSITIONS, run_search_benchmark, search_scaling, search_speed, search_text

# the benchmarks' names, wherever they live: callers (cli, benchmarks/) import them from here
__all__ = [
    "BenchError", "HINT_FULL_POSITION", "HINT_POSITION", "POSITIONS", "ROLLOUT_RULESETS", "ROOT", "SEARCH_POSITIONS",
    "command_seconds", "first_call_seconds", "hint_text", "review_bench_text", "rollout_text", "rollout_throughput",
    "run_all", "run_hint", "run_review", "run_rollout", "run_search_benchmark", "script_main", "search_scaling",
    "search_speed", "search_text", "summary_text", "user_environment",
]


def run_all(quick: bool = False, progress: bool = False) -> dict[str, Any]:
    common.require_positions()
    return {
        "version": __version__,
        "machine_cores": os.cpu_count(),
        "rollout": run_rollout(quick, progress),
        "search": run_search_benchmark(quick, progress),
    }


def summary_text(figures: dict[str, Any]) -> str:
    head = f"cuttle_search {figures['version']} benchmarks on {figures['machine_cores']} cores"
    return "\n".join([head, ""] + rollout_text(figures["rollout"]) + [""] + search_text(figures["search"]))
