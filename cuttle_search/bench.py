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

from .version import __version__
from .engine import layout as L
from .engine.apply import attach
from .engine.movegen import action_space, random_discard_outcomes
from .engine.setup import deal_size, dealt_to
from .engine.table import seat_returns
from .engine.harness import checked_random_games, random_games
from .game.position import Position
from .game.rules import N_SEAT_RULESETS, PRESETS, get_ruleset

ROOT = Path(__file__).resolve().parent.parent
POSITIONS = ROOT / "positions"
SEARCH_POSITIONS = ("opening-p0", "midgame-main-p0", "kings-race-p1", "scuttle-or-lose-p0", "four-victim-p1",
                    "cutthroat-opening-p0", "team-opening-p0", "multiplayer-4-opening-p0", "multiplayer-8-opening-p0")
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


def warm_up() -> None:
    """Compile or load every kernel the commands use: the game, perft, the checks, the
    search with each rollout policy, and every built-in agent (greedy, cuttlebot, pimc)."""
    from .play.agents import make_agent
    from .play.arena import play_game
    from .game.perft import perft
    from .analysis import analyse
    from .analysis.ismcts import ROLLOUTS

    rules = get_ruleset("cuttle-cards")
    pos = Position.deal(rules, seed=1)
    perft(pos, 2)
    r = rules.to_array()
    s = np.zeros(L.STATE_SIZE, np.int64)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    random_games(r, 1, 0, 1, s, buf, np.zeros((1, 3), np.int64))
    checked_random_games(r, 1, 0, 1, s, buf, np.zeros((1, 6), np.int64))
    seat_returns(pos.state, r, np.zeros(L.MAX_PLAYERS))  # outcomes, the seat helpers
    dealt_to(r, deal_size(r) - 1)  # the deal order (the OpenSpiel game deals card by card)
    space = np.zeros(L.ACTION_SPACE_SIZE, np.int64)
    action_space(space)  # every move of some game (the OpenSpiel action ids)
    random_discard_outcomes(space)
    three = get_ruleset("cutthroat")
    table = Position.deal(three, seed=1)
    attach(table.state.copy(), three.array, 0, 0, 40, 0)  # a stack being set up (the seat-list reader)
    analyse(table.view_of(0), iterations=200, seed=1)  # the search with more seats
    for rollout in ROLLOUTS:
        analyse(pos.view_of(0), iterations=200, seed=1, rollout=rollout)
    agents = [make_agent(spec) for spec in ("greedy", "cuttlebot", "pimc:iterations=40", "ismcts:iterations=40,infer=1")]
    play_game(rules, 1, (agents[0], agents[1]), 1)
    play_game(rules, 2, (agents[2], agents[3]), 2)
    from .analysis.solve import solve
    from .analysis.tree import load_growth_kernels
    from .engine.policies import keep_value

    solve(POSITIONS / "deck-out-endgame.json")  # the exact solver
    load_growth_kernels()  # the breadth-first renumbering of a tree that fills
    keep_value(np.int64(1))  # the greedy agent's discards


def _median_runs(fn, repeats: int) -> float:
    return statistics.median(fn() for _ in range(repeats))


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


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("cuttle-search")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "cuttle_search.cli"]


def user_environment() -> dict[str, str]:
    """This process's environment as a user's shell would have it for a warm start: without
    ``PYTHONDONTWRITEBYTECODE`` (which some sandboxes set), whose every run compiles the
    package's Python source again (about 45 ms of a warm ``analyse``) where an install keeps
    the compiled bytecode."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def command_seconds(args: list[str], repeats: int) -> float:
    """Median wall time of a CLI command (run once first so the caches are warm)."""
    cmd = _cli() + args
    env = user_environment()
    subprocess.run(cmd, capture_output=True, check=True, env=env)

    def once() -> float:
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True, env=env)
        return time.perf_counter() - t0

    return _median_runs(once, repeats)


def search_speed(name: str, iterations: int, threads: int, repeats: int) -> float:
    from .analysis import analyse

    pos = Position.load(POSITIONS / f"{name}.json")
    analyse(pos, iterations=min(iterations, 500), threads=threads, seed=1)

    def once() -> float:
        res = analyse(pos, iterations=iterations, threads=threads, seed=1)
        return res.iterations / res.seconds

    return _median_runs(once, repeats)


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
    from .analysis import DEFAULT_ROLLOUT
    from .analysis.tree import BYTES_PER_NODE

    iterations, repeats = (20_000, 3) if quick else (100_000, 5)
    cores = os.cpu_count() or 1
    bar = tqdm(total=2 * len(SEARCH_POSITIONS) + 2, desc="search benchmark", disable=not progress or None, file=sys.stderr)
    per_position = {}
    for name in SEARCH_POSITIONS:
        one = search_speed(name, iterations, 1, repeats)
        bar.update()
        many = search_speed(name, iterations, cores, repeats)
        bar.update()
        per_position[name] = {"one_thread": one, "all_threads": many, "speedup": many / one}
    start = command_seconds(["analyse", str(POSITIONS / "opening-p0.json"), "-n", "1000", "--json"], repeats)
    bar.update()
    scaling = search_scaling("opening-p0", (20_000, 200_000) if quick else (100_000, 1_000_000, 3_000_000))
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
        "scaling": scaling,
        "analyse_warm_start_seconds": start,
        "targets": {"iterations_per_second_per_core": 50_000, "speedup_two_threads": 1.8, "bytes_per_node": 200},
    }


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


def _review_game(target: int):
    """The first cuttlebot-vs-greedy deal whose game has ``target`` or more unforced decisions."""
    from .play.agents import make_agent
    from .play.arena import play_game
    from .game.gamelog import read_game

    rules = get_ruleset("cuttle-cards")
    for deal in range(1000):
        log = play_game(rules, deal, (make_agent("cuttlebot"), make_agent("greedy")), deal).to_json()
        start, moves, _ = read_game(log)
        pos, unforced = start.copy(), 0
        for m in moves:
            unforced += pos.actor >= 0 and len(pos.legal_codes()) > 1
            pos.push(m)
        if unforced >= target:
            return deal, start, moves, unforced
    raise RuntimeError("no game long enough")


def run_review(quick: bool = False, progress: bool = False) -> dict[str, Any]:
    """Wall time to review a game of about 60 unforced decisions at 10,000 iterations a
    decision, both players, with one worker process per core."""
    from .analysis.review import review_game
    from .play.backends import make_backend

    iterations = 2_000 if quick else 10_000
    workers = os.cpu_count() or 1
    deal, start, moves, unforced = _review_game(60)
    bar = tqdm(total=unforced, desc="review benchmark", disable=not progress or None, file=sys.stderr)
    t0 = time.perf_counter()
    review = review_game(start, moves, iterations=iterations, seed=1, workers=workers,
                         runner=lambda n: make_backend("local", n),
                         progress=lambda done, total: bar.update(done - bar.n))
    wall = time.perf_counter() - t0
    bar.close()
    return {"deal": deal, "moves": len(moves), "decisions": len(review.decisions), "iterations_per_decision": iterations,
            "workers": workers, "wall_seconds": wall, "decisions_per_second": len(review.decisions) / wall,
            "target_seconds": 30.0}


def review_bench_text(fig: dict[str, Any]) -> list[str]:
    return [f"review: {fig['decisions']} decisions ({fig['moves']} moves, deal {fig['deal']}) at "
            f"{fig['iterations_per_decision']:,} iterations a decision on {fig['workers']} workers: "
            f"{fig['wall_seconds']:.1f} s ({fig['decisions_per_second']:.1f} decisions/s; target under "
            f"{fig['target_seconds']:.0f} s)"]


def run_all(quick: bool = False, progress: bool = False) -> dict[str, Any]:
    return {
        "version": __version__,
        "machine_cores": os.cpu_count(),
        "rollout": run_rollout(quick, progress),
        "search": run_search_benchmark(quick, progress),
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
    lines.append(f"  memory per tree node: {fig['bytes_per_node']} bytes in the node arrays (the index pool and growth "
                 "come on top: the peaks below)")
    sc = fig["scaling"]
    for row in sc["runs"]:
        lines.append(f"  {sc['position']} at {row['iterations']:>9,} iterations: {row['iterations_per_second']:10,.0f} it/s, "
                     f"{row['nodes']:,} nodes, {row['peak_bytes_per_node']:.0f} bytes a node at the peak (process memory)")
    lines.append(f"  rate at the largest budget / at the smallest: {sc['largest_vs_smallest_rate']:.2f}")
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
