"""The rollout benchmark: random playouts a second in every ruleset, the cold and warm
first call, and the CLI's warm start."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np
from tqdm import tqdm

from ..engine import layout as L
from ..engine.harness import random_games
from ..game.rules import N_SEAT_RULESETS, PRESETS, get_ruleset
from .common import POSITIONS, command_seconds

# every two-seat preset, then the games of more seats (multiplayer with 2, 4 and 8 seats)
ROLLOUT_RULESETS = (tuple(PRESETS) + tuple(N_SEAT_RULESETS)
                    + ("multiplayer:players=2", "multiplayer:players=8"))


_FIRST_CALL = """
import time, numpy as np
t0 = time.perf_counter()
from cuttle_search.engine import layout as L
from cuttle_search.engine.harness import random_games
from cuttle_search.game.rules import get_ruleset
r = get_ruleset("cuttle-cards").to_array()
s = np.zeros(L.STATE_SIZE, np.int64); buf = np.zeros(L.MAX_MOVES, np.int64)
res = np.zeros((1, 3), np.int64)
random_games(r, 1, 0, 1, s, buf, res)
print(time.perf_counter() - t0)
"""


def rollout_throughput(spec: str, games: int, repeats: int) -> dict[str, float]:
    r = get_ruleset(spec).to_array()
    s = np.zeros(L.STATE_SIZE, np.int64)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    res = np.zeros((games, 3), np.int64)
    random_games(r, 0, 0, 10, s, buf, res)
    plies_s, games_s = [], []
    for rep in range(repeats):
        t0 = time.perf_counter()
        plies = random_games(r, 1000 + rep, 0, games, s, buf, res)
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


def run_rollout(quick: bool = False, progress: bool = False) -> dict[str, Any]:
    games, repeats = (3000, 3) if quick else (20000, 5)
    bar = tqdm(total=len(ROLLOUT_RULESETS) + 3, desc="rollout benchmark", disable=not progress or None, file=sys.stderr)
    with tempfile.TemporaryDirectory() as cache:
        cold = first_call_seconds(cache)
        bar.update()
        warm = first_call_seconds(cache)
        bar.update()
    rulesets = {}
    for spec in ROLLOUT_RULESETS:
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


def rollout_text(fig: dict[str, Any]) -> list[str]:
    lines = [f"rollout (one thread, median of {fig['repeats']} runs of {fig['games_per_run']:,} games)"]
    for spec, f in fig["rulesets"].items():
        lines.append(
            f"  {spec:<22} {f['plies_per_second'] / 1e6:6.2f} M plies/s  {f['games_per_second']:10,.0f} games/s  "
            f"({f['mean_plies_per_game']:.1f} plies/game)"
        )
    lines.append(f"  cold compile (empty cache, import to first game): {fig['cold_compile_seconds']:.2f} s")
    lines.append(f"  warm first call (cache filled):                  {fig['warm_first_call_seconds']:.2f} s")
    lines.append(f"  CLI warm start (cuttle-search moves):            {fig['cli_warm_start_seconds']:.2f} s")
    return lines
