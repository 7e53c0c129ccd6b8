"""Start-up: what a first run compiles and what a warm command costs, old against new in one
session (each figure a fresh process; only ratios measured side by side count on a shared
machine). Text, then JSON.

* **Cold:** ``cuttle-search analyse positions/opening-p0.json -n 1000 --json`` with an empty
  Numba cache (a fresh ``NUMBA_CACHE_DIR``): the processor time (user + system) of the
  whole command, and each kernel's own compile time from Numba's compile events (a
  kernel's time less that of the kernels compiled inside it), the 15 costliest listed,
  with the kernels compiled for more than one set of argument types.
* **Warm:** the processor time of ``analyse ... -n 1000 --json``, of ``hint`` answering one
  request on stdin (1,000 iterations on ``opening-p0``) and of ``--help``, medians of
  ``--rounds`` runs, old and new interleaved (old then new, then new then old).

    python benchmarks/startup.py --old /path/to/old/.venv/bin/python --new .venv/bin/python [--rounds 9]
        [--no-cold] [--no-warm]

With no ``--old`` only the new checkout is measured.
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

ROOT = Path(__file__).resolve().parent.parent
POSITION = str(ROOT / "positions" / "opening-p0.json")
ANALYSE = ["analyse", POSITION, "-n", "1000", "--json"]

# Runs the command line in this process with a listener on Numba's compile events, then
# writes each compile (kernel, argument types, own and total processor seconds) as JSON.
_COLD = r"""
import json, sys, time
from numba.core import event
from cuttle_search.cli import main

stack, compiles = [], []

class Listener(event.Listener):
    def on_start(self, ev):
        stack.append([time.process_time(), 0.0])
    def on_end(self, ev):
        t0, inner = stack.pop()
        total = time.process_time() - t0
        if stack:
            stack[-1][1] += total
        data = ev.data or {}
        d = data.get("dispatcher")
        compiles.append({"kernel": getattr(getattr(d, "py_func", None), "__qualname__", "?"),
                         "module": getattr(getattr(d, "py_func", None), "__module__", "?"),
                         "args": str(data.get("args")), "own": total - inner, "total": total})

event.register("numba:compile", Listener())
try:
    main(sys.argv[2:], standalone_mode=False)
finally:
    with open(sys.argv[1], "w") as f:
        json.dump(compiles, f)
"""

# a warm start as a user's shell has it (see cuttle_search.bench.user_environment)
_USER_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _hint_request() -> bytes:
    position = json.loads(Path(POSITION).read_text())
    return (json.dumps({"id": 1, "position": position, "iterations": 1000, "seed": 1}) + "\n").encode()


def _run_cpu(argv: list[str], stdin: bytes | None = None, env: dict | None = None) -> tuple[float, float, str]:
    """Wall seconds, processor seconds (user + system, from ``wait4``) and stderr of one run."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT, env=env or _USER_ENV)
    if stdin is not None:
        proc.stdin.write(stdin)
        proc.stdin.close()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = status
    if status != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({status}): {err.decode()[-800:]}")
    return wall, usage.ru_utime + usage.ru_stime, err.decode()


def cli(python: str) -> list[str]:
    exe = Path(python).with_name("cuttle-search")
    return [str(exe)] if exe.exists() else [python, "-m", "cuttle_search.cli"]


def cold(python: str) -> dict:
    """The analyse command on an empty cache: processor time and every compile."""
    with tempfile.TemporaryDirectory(prefix="cuttle-cold-") as tmp:
        env = dict(_USER_ENV, NUMBA_CACHE_DIR=str(Path(tmp) / "cache"))
        out = Path(tmp) / "compiles.json"
        wall, cpu, err = _run_cpu([python, "-I", "-c", _COLD, str(out)] + ANALYSE, env=env)
        compiles = json.loads(out.read_text())
        again_wall, again_cpu, _ = _run_cpu(cli(python) + ANALYSE, env=env)  # the second run: warm
    by_kernel: dict[str, dict] = {}
    for c in compiles:
        k = by_kernel.setdefault(f"{c['module'].rsplit('.', 1)[-1]}.{c['kernel']}", {"own": 0.0, "signatures": []})
        k["own"] += c["own"]
        k["signatures"].append(c["args"])
    top = sorted(by_kernel.items(), key=lambda kv: -kv[1]["own"])
    return {
        "cpu_seconds": cpu, "wall_seconds": wall, "second_run_cpu_seconds": again_cpu,
        "compile_cpu_seconds": sum(c["own"] for c in compiles),
        "kernels": len(by_kernel), "compilations": len(compiles),
        "notice": err.splitlines()[:1],
        "top": [{"kernel": name, "own_cpu_seconds": round(k["own"], 3), "compilations": len(k["signatures"])}
                for name, k in top[:15]],
        "several_signatures": {name: k["signatures"] for name, k in top if len(k["signatures"]) > 1},
        "by_module": {m: round(sum(k["own"] for name, k in top if name.split(".")[0] == m), 2)
                      for m in sorted({name.split(".")[0] for name, _ in top})},
    }


WARM = {
    "analyse -n 1000": (ANALYSE, None),
    "hint (one request)": (["hint"], "hint"),
    "--help": (["--help"], None),
}


def warm(sides: dict[str, str], rounds: int) -> dict:
    request = _hint_request()
    results: dict[str, dict] = {}
    for label, (args, stdin) in WARM.items():
        body = request if stdin == "hint" else None
        for python in sides.values():
            _run_cpu(cli(python) + args, body)  # load (or compile) once: warm after this
        cpu: dict[str, list[float]] = {side: [] for side in sides}
        names = list(sides)
        for rnd in range(rounds):
            for side in (names if rnd % 2 == 0 else names[::-1]):
                cpu[side].append(_run_cpu(cli(sides[side]) + args, body)[1])
        results[label] = {side: {"median_cpu_seconds": statistics.median(v), "runs": v} for side, v in cpu.items()}
        if "old" in sides:
            results[label]["ratio"] = results[label]["new"]["median_cpu_seconds"] / results[label]["old"]["median_cpu_seconds"]
    return results


def text(fig: dict) -> list[str]:
    lines = []
    for side, c in fig.get("cold", {}).items():
        lines.append(f"cold analyse -n 1000 ({side}): {c['cpu_seconds']:.1f} s CPU ({c['wall_seconds']:.1f} s wall), "
                     f"{c['kernels']} kernels in {c['compilations']} compilations, {c['compile_cpu_seconds']:.1f} s of "
                     f"it compiling; the second run {c['second_run_cpu_seconds']:.2f} s CPU")
        for t in c["top"]:
            lines.append(f"    {t['kernel']:<40} {t['own_cpu_seconds']:6.2f} s  x{t['compilations']}")
        lines.append("    by module: " + ", ".join(f"{m} {t:.1f} s" for m, t in c["by_module"].items()))
        for name, sigs in c["several_signatures"].items():
            lines.append(f"    compiled {len(sigs)} times: {name}: " + " | ".join(sigs))
    for label, r in fig.get("warm", {}).items():
        row = "  ".join(f"{side} {r[side]['median_cpu_seconds']:.3f} s" for side in ("old", "new") if side in r)
        lines.append(f"warm {label:<20} CPU {row}" + (f"  x{r['ratio']:.2f}" if "ratio" in r else ""))
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", help="the old checkout's Python interpreter (its venv's bin/python)")
    ap.add_argument("--new", default=sys.executable, help="the new checkout's Python interpreter")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--no-cold", action="store_true", help="skip the cold compiles (a minute or more of CPU each)")
    ap.add_argument("--no-warm", action="store_true")
    args = ap.parse_args()
    sides = {"old": os.path.abspath(args.old)} if args.old else {}
    sides["new"] = os.path.abspath(args.new)  # not resolved: keep the venv
    fig: dict = {"command": "analyse positions/opening-p0.json -n 1000 --json"}
    if not args.no_cold:
        fig["cold"] = {side: cold(python) for side, python in sides.items()}
    if not args.no_warm:
        fig["warm"] = warm(sides, args.rounds)
    print("\n".join(text(fig)))
    print(json.dumps(fig, indent=2))


if __name__ == "__main__":
    main()
