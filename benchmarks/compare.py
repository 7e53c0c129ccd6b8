"""Old against new, in one session: two checkouts run back to back and interleaved (round
after round, old then new, then new then old), so that the noise of a shared machine falls
on both alike. Text, then JSON; the ratio is new / old of the medians.

The one-thread ISMCTS rate (each figure a fresh process: load the kernels, a 500-iteration
warm-up, then one timed search at the budget), with the memory a tree node costs in that
process (the peak resident size's growth over the warm-up's, divided by the nodes: growth
copies and the index pool included) and, per position, the rate at the largest budget over
the rate at the smallest; the same rates per second of processor time (which a busy machine disturbs less); then issue
28's targets for the new side: at most ``TARGET_BYTES``
bytes a node at every budget from 1 M on, a rate at the largest budget at least
``TARGET_SCALING`` of the rate at the smallest, and (when ``opening-p0`` is among the
positions) each opening of more seats at the smallest budget at least its ``TARGET_SHARE``
of ``opening-p0``'s rate, per CPU second, each with its own default search::

    python benchmarks/compare.py --old /path/to/old/.venv/bin/python --new .venv/bin/python \
        [--positions opening-p0,midgame-main-p0] [--budgets 100000,1000000,3000000] [--rounds 3] [--widen W]
        [--search-rollout greedy]
    python benchmarks/compare.py --old ... --new ... --budgets 100000 \
        --positions opening-p0,cutthroat-opening-p0,team-opening-p0,multiplayer-4-opening-p0

Since the learned value became the two-seat default, a checkout from before it searches a
two-seat position with greedy rollouts and one after it with the value: give
``--search-rollout greedy`` to compare the same search.

A command's warm start (the wall time of ``cuttle-search ARGS`` next to each interpreter, and
the processor time it used, which a busy machine disturbs less)::

    python benchmarks/compare.py --old ... --new ... --command "analyse positions/opening-p0.json -n 1000 --json"

Random playouts, plies a second (each figure a fresh process: the median of three runs of
20,000 seeded games after a warm-up; the games must come out the same on both sides)::

    python benchmarks/compare.py --old ... --new ... --rollout cuttle-cards --rounds 8

A warm ``cuttle-search hint`` server's round trip (one server per checkout, started once,
the same request sent to each in turn; wall time as the client sees it)::

    python benchmarks/compare.py --old ... --new ... --hint opening-p0 --iterations 10000 --rounds 200

Only ``cuttle_search.analysis.analyse`` and the command line are used, so any checkout since
they existed can be the old one.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import time
from pathlib import Path

POSITIONS = Path(__file__).resolve().parent.parent / "positions"
TARGET_BYTES = 40.0  # bytes a node (peak) at 1 M iterations and more
TARGET_SCALING = 0.9  # the rate at the largest budget over the rate at the smallest
# item 3: an opening of more seats at the smallest budget (the 100,000), as a share
# of the two-seat opening's rate
TWO_SEAT_OPENING = "opening-p0"
TARGET_SHARE = {"cutthroat-opening-p0": 0.9, "team-opening-p0": 0.6, "multiplayer-4-opening-p0": 0.6}

_PROBE = """
import sys
from cuttle_search.analysis import analyse
analyse(sys.argv[1], iterations=500, seed=1)
def rss(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024
base = rss("VmRSS:")
import inspect, time
kw = {}
if sys.argv[3]:  # a widening: where the checkout has none, its one search is widen 0
    if "widen" in inspect.signature(analyse).parameters:
        kw["widen"] = float(sys.argv[3])
    elif float(sys.argv[3]) != 0:
        sys.exit("this checkout has no widening: compare it with --widen 0")
if sys.argv[4]:  # a rollout policy (every checkout has greedy, the two-seat default before the value)
    kw["rollout"] = sys.argv[4]
cpu = time.process_time()
r = analyse(sys.argv[1], iterations=int(sys.argv[2]), seed=1, **kw)
cpu = time.process_time() - cpu
print(r.iterations / r.seconds, r.nodes, (rss("VmHWM:") - base) / max(r.nodes, 1), r.iterations / cpu)
"""


def rate(python: str, position: str, budget: int, widen: str = "", rollout: str = "") -> tuple[float, float, float]:
    """Iterations a second (wall time), peak bytes a node, and iterations a second of
    processor time (which a busy machine disturbs less) of one fresh process's search
    (at the widening ``widen`` and with the rollout ``rollout``, or the checkout's defaults)."""
    out = subprocess.run([python, "-c", _PROBE, str(POSITIONS / f"{position}.json"), str(budget), widen, rollout],
                         capture_output=True, text=True, check=True, cwd="/").stdout.split()
    return float(out[0]), float(out[2]), float(out[3])


_ROLLOUT_PROBE = """
import sys, time, numpy as np
from cuttle_search.engine import layout as L
from cuttle_search.engine.harness import random_games
from cuttle_search.game.rules import get_ruleset
r = get_ruleset(sys.argv[1]).to_array()
s = np.zeros(L.STATE_SIZE, np.int64); buf = np.zeros(L.MAX_MOVES, np.int64); out = np.zeros((20000, 3), np.int64)
random_games(r, 0, 0, 10, s, buf, out)
rates = []
for rep in range(3):
    t0 = time.perf_counter()
    plies = random_games(r, 1000 + rep, 0, 20000, s, buf, out)
    rates.append(plies / (time.perf_counter() - t0))
print(sorted(rates)[1], int(out.sum()))
"""


def compare_rollout(args) -> None:
    rates: dict[str, list[float]] = {"old": [], "new": []}
    games = {}
    for rnd in range(args.rounds):
        for side in (("old", "new") if rnd % 2 == 0 else ("new", "old")):
            out = subprocess.run([getattr(args, side), "-c", _ROLLOUT_PROBE, args.rollout], capture_output=True,
                                 text=True, check=True, cwd="/").stdout.split()
            rates[side].append(float(out[0]))
            games[side] = out[1]
    old, new = statistics.median(rates["old"]), statistics.median(rates["new"])
    summary = {"rules": args.rollout, "same_games": games["old"] == games["new"], "old_median": old,
               "new_median": new, "ratio": new / old, "old": rates["old"], "new": rates["new"]}
    print(f"random playouts, {args.rollout}: old {old / 1e6:.2f} M plies/s  new {new / 1e6:.2f} M plies/s  "
          f"x{new / old:.3f}  (same games: {summary['same_games']})")
    print(json.dumps(summary, indent=2))


# a warm start as a user's shell has it: some sandboxes set PYTHONDONTWRITEBYTECODE, which
# makes every run compile the package's source again (see cuttle_search.bench.user_environment)
_USER_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def command_run(python: str, args: list[str]) -> tuple[float, float]:
    """Wall seconds and processor seconds (user + system) of one run of the command."""
    exe = Path(python).with_name("cuttle-search")
    t0 = time.perf_counter()
    proc = subprocess.Popen([str(exe)] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            cwd=POSITIONS.parent, env=_USER_ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        raise RuntimeError(f"{exe} {' '.join(args)} failed with status {status}")
    return wall, usage.ru_utime + usage.ru_stime


def compare_command(args) -> None:
    cmd = shlex.split(args.command)
    for side in ("old", "new"):
        command_run(getattr(args, side), cmd)  # warm: kernels loaded from the cache after this
    runs: dict[str, dict[str, list[float]]] = {"old": {"wall": [], "cpu": []}, "new": {"wall": [], "cpu": []}}
    for rnd in range(args.rounds):
        for side in (("old", "new") if rnd % 2 == 0 else ("new", "old")):
            wall, cpu = command_run(getattr(args, side), cmd)
            runs[side]["wall"].append(wall)
            runs[side]["cpu"].append(cpu)
    summary = {"command": args.command}
    for kind in ("wall", "cpu"):
        old, new = statistics.median(runs["old"][kind]), statistics.median(runs["new"][kind])
        summary[kind] = {"old_median": old, "new_median": new, "ratio": new / old,
                         "old": runs["old"][kind], "new": runs["new"][kind]}
        print(f"cuttle-search {args.command}: {kind:<4} old {old:.3f} s  new {new:.3f} s  x{new / old:.3f}")
    print(json.dumps(summary, indent=2))


def compare_hint(args) -> None:
    position = json.loads((POSITIONS / f"{args.hint}.json").read_text())
    line = json.dumps({"position": position, "iterations": args.iterations, "seed": 1}) + "\n"
    servers = {}
    for side in ("old", "new"):
        exe = Path(getattr(args, side)).with_name("cuttle-search")
        servers[side] = subprocess.Popen([str(exe), "hint"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         text=True, bufsize=1, cwd=POSITIONS.parent)
    times: dict[str, list[float]] = {"old": [], "new": []}
    answers = {}
    try:
        for rnd in range(args.rounds + 3):  # the first three load the kernels and settle
            for side in (("old", "new") if rnd % 2 == 0 else ("new", "old")):
                proc = servers[side]
                t0 = time.perf_counter()
                proc.stdin.write(line)
                proc.stdin.flush()
                answer = proc.stdout.readline()
                dt = time.perf_counter() - t0
                if not answer:
                    raise RuntimeError(f"the {side} hint server stopped answering")
                if rnd >= 3:
                    times[side].append(dt)
                answers[side] = json.loads(answer)
    finally:
        for proc in servers.values():
            proc.stdin.close()
            proc.wait(timeout=30)
    summary = {"position": args.hint, "iterations": args.iterations,
               "same_best_move": answers["old"].get("move") == answers["new"].get("move")}
    for side in ("old", "new"):
        t = sorted(times[side])
        summary[side] = {"median_ms": 1000 * statistics.median(t), "p90_ms": 1000 * t[int(0.9 * (len(t) - 1))]}
    ratio = summary["new"]["median_ms"] / summary["old"]["median_ms"]
    summary["ratio"] = ratio
    print(f"hint {args.hint} at {args.iterations:,} iterations: old median {summary['old']['median_ms']:.1f} ms, "
          f"new median {summary['new']['median_ms']:.1f} ms, x{ratio:.3f}")
    print(json.dumps(summary, indent=2))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True, help="the old checkout's Python interpreter")
    ap.add_argument("--new", required=True, help="the new checkout's Python interpreter")
    ap.add_argument("--positions", default="opening-p0,midgame-main-p0")
    ap.add_argument("--budgets", default="100000,1000000,3000000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--widen", default="", help="the search's widening on both sides (0: none, the only search of a "
                    "checkout from before widening existed); default: each checkout's own default")
    ap.add_argument("--search-rollout", default="", metavar="NAME",
                    help="the search's rollout on both sides (greedy: the two-seat default of a checkout from "
                         "before the learned value became it); default: each checkout's own default")
    ap.add_argument("--command", help="compare this command's warm start instead of the search rate")
    ap.add_argument("--hint", metavar="POSITION", help="compare hint round trips on this shipped position instead")
    ap.add_argument("--iterations", type=int, default=10_000, help="with --hint: the request's iterations")
    ap.add_argument("--rollout", metavar="RULES", help="compare random playouts in this ruleset instead")
    args = ap.parse_args()
    if args.widen:
        try:
            if float(args.widen) < 0:
                raise ValueError
        except ValueError:
            ap.error(f"--widen: expected 0 or a positive number, got {args.widen!r}")
    args.old, args.new = os.path.abspath(args.old), os.path.abspath(args.new)  # not resolved: keep the venv
    if args.rollout:
        compare_rollout(args)
        return
    if args.hint:
        compare_hint(args)
        return
    if args.command:
        compare_command(args)
        return
    runs: dict[str, dict[str, list[float]]] = {}
    memory: dict[str, dict[str, list[float]]] = {}
    cpu: dict[str, dict[str, list[float]]] = {}
    for rnd in range(args.rounds):
        for position in args.positions.split(","):
            for budget in (int(b) for b in args.budgets.split(",")):
                key = f"{position}@{budget}"
                row = runs.setdefault(key, {"old": [], "new": []})
                mem = memory.setdefault(key, {"old": [], "new": []})
                per_cpu = cpu.setdefault(key, {"old": [], "new": []})
                order = ("old", "new") if rnd % 2 == 0 else ("new", "old")
                for side in order:
                    speed, per_node, cpu_speed = rate(getattr(args, side), position, budget, args.widen,
                                                      args.search_rollout)
                    row[side].append(speed)
                    mem[side].append(per_node)
                    per_cpu[side].append(cpu_speed)
                print(f"round {rnd + 1} {key}: old {row['old'][-1]:,.0f} new {row['new'][-1]:,.0f} it/s "
                      f"(per CPU second: old {per_cpu['old'][-1]:,.0f} new {per_cpu['new'][-1]:,.0f}), "
                      f"old {mem['old'][-1]:.0f} new {mem['new'][-1]:.0f} bytes a node", flush=True)
    summary = {}
    for key, row in runs.items():
        old, new = statistics.median(row["old"]), statistics.median(row["new"])
        b_old, b_new = statistics.median(memory[key]["old"]), statistics.median(memory[key]["new"])
        summary[key] = {"old_median": old, "new_median": new, "ratio": new / old, "old": row["old"], "new": row["new"],
                        "bytes_per_node": {"old_median": b_old, "new_median": b_new, "old": memory[key]["old"],
                                           "new": memory[key]["new"]}}
        c_old, c_new = statistics.median(cpu[key]["old"]), statistics.median(cpu[key]["new"])
        summary[key]["per_cpu_second"] = {"old_median": c_old, "new_median": c_new, "ratio": c_new / c_old,
                                          "old": cpu[key]["old"], "new": cpu[key]["new"]}
        print(f"{key:<28} old {old:10,.0f} it/s  new {new:10,.0f} it/s  x{new / old:.3f}   "
              f"per CPU second x{c_new / c_old:.3f}   bytes a node: old {b_old:5.1f} new {b_new:5.1f}")
    budgets = [int(b) for b in args.budgets.split(",")]
    if len(budgets) > 1:
        for position in args.positions.split(","):
            big, small = summary[f"{position}@{max(budgets)}"], summary[f"{position}@{min(budgets)}"]
            scale = {side: big[f"{side}_median"] / small[f"{side}_median"] for side in ("old", "new")}
            for side in ("old", "new"):  # the same per CPU second
                scale[f"{side}_per_cpu_second"] = (big["per_cpu_second"][f"{side}_median"]
                                                   / small["per_cpu_second"][f"{side}_median"])
            summary[f"{position}:largest/smallest"] = scale
            print(f"{position:<28} rate at {max(budgets):,} / at {min(budgets):,}: old {scale['old']:.2f} "
                  f"new {scale['new']:.2f} (per CPU second: old {scale['old_per_cpu_second']:.2f} "
                  f"new {scale['new_per_cpu_second']:.2f})")
    summary["targets"] = targets(summary, args.positions.split(","), budgets)
    print(json.dumps(summary, indent=2))


def targets(summary: dict, positions: list[str], budgets: list[int]) -> dict[str, dict]:
    """Issue 28's memory, scaling and seat targets, met or not, for the new side (printed too)."""
    out = {}
    smallest = min(budgets)
    two_seat = summary.get(f"{TWO_SEAT_OPENING}@{smallest}")
    for position in positions:
        big = [b for b in budgets if b >= 1_000_000]
        per_node = {b: summary[f"{position}@{b}"]["bytes_per_node"]["new_median"] for b in big}
        row: dict = {"bytes_per_node": per_node}
        if per_node:  # the target speaks of budgets from 1 M on: without one, it is not judged
            row["bytes_met"] = all(v <= TARGET_BYTES for v in per_node.values())
        text = ", ".join(f"{v:.1f} at {b:,}" for b, v in per_node.items())
        line = f"target {position}: bytes a node (<= {TARGET_BYTES:g}) {text or 'no budget of 1 M or more'}"
        if f"{position}:largest/smallest" in summary:
            scale = summary[f"{position}:largest/smallest"]["new_per_cpu_second"]
            row.update(scaling=scale, scaling_met=scale >= TARGET_SCALING)
            line += f"; rate per CPU second largest/smallest (>= {TARGET_SCALING:g}) {scale:.2f}"
        if two_seat is not None and position in TARGET_SHARE:
            share = (summary[f"{position}@{smallest}"]["per_cpu_second"]["new_median"]
                     / two_seat["per_cpu_second"]["new_median"])
            row.update(share_of_two_seat=share, share_met=share >= TARGET_SHARE[position])
            line += (f"; rate per CPU second at {smallest:,} over {TWO_SEAT_OPENING}'s "
                     f"(>= {TARGET_SHARE[position]:.0%}) {share:.0%}")
        out[position] = row
        judged = [v for k, v in row.items() if k.endswith("_met")]
        print(line + ("" if not judged else "  met" if all(judged) else "  not met"))
    return out


if __name__ == "__main__":
    main()
