"""What the benchmarks share: the repository's positions, the CLI in a subprocess, the
median of repeated runs and the command line of a ``benchmarks/`` script."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ..game.errors import CuttleError

ROOT = Path(__file__).resolve().parent.parent.parent
POSITIONS = ROOT / "positions"


class BenchError(CuttleError):
    """A benchmark that cannot run here: one line for the user."""


def require_positions() -> None:
    """The benchmarks analyse the repository's positions: refuse in one line where there are
    none (an installed wheel has no ``positions/`` folder; ``warmup`` needs none)."""
    if not POSITIONS.is_dir():
        raise BenchError(f"positions: the benchmarks read the repository's positions/ folder, not found at "
                         f"{POSITIONS}; run them from a checkout of the source")


def _median_runs(fn, repeats: int) -> float:
    return statistics.median(fn() for _ in range(repeats))


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


def script_main(doc: str, run, text) -> None:
    """The command line of a benchmarks/ script: ``--quick``, ``--json``; text then JSON."""
    import argparse
    import json

    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller runs for a rough figure")
    ap.add_argument("--json", action="store_true", help="print only the JSON figures")
    args = ap.parse_args()
    fig = run(args.quick, progress=True)
    if not args.json:
        print("\n".join(text(fig)))
    print(json.dumps(fig, indent=2))
