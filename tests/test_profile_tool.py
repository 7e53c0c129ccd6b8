"""benchmarks/profile.py: perf's map of the engine's compiled code, and its symbol names."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import load_benchmark

ROOT = Path(__file__).resolve().parent.parent
profile = load_benchmark("profile")


def test_a_numba_symbol_reads_as_its_module_path():
    symbol = ("_ZN13cuttle_search6engine6ismcts14ismcts_iterateB3v67B50c8tJTIeFIjxB2IKSgI4CrvSCKg1MMfAwQ4s_"
              "2bqEKklAMW0QQAE5TupleI5ArrayIxLi1E1C7mutable7alignedE")
    assert profile._short(symbol) == "engine.ismcts.ismcts_iterate"
    assert profile._short("_ZN13cuttle_search6engine8policies7rolloutB4v145") == "engine.policies.rollout"
    assert profile._short("__memset_avx512_unaligned_erms") == "__memset_avx512_unaligned_erms"


@pytest.mark.slow  # compiles the search afresh: about 30 s of CPU
def test_run_maps_every_compiled_kernel_the_search_calls():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "profile.py"), "run",
                          str(ROOT / "positions" / "opening-p0.json"), "--iterations", "2000", "--dump", "rollout"],
                         capture_output=True, text=True, check=True)
    fig = json.loads(out.stdout.strip().splitlines()[-1])
    assert fig["functions_mapped"] > 50 and fig["iterations_per_cpu_second"] > 0
    rows = [line.split(" ", 2) for line in Path(fig["map"]).read_text().splitlines()]
    names = {profile._short(name) for _, _, name in rows}
    assert {"engine.ismcts.ismcts_iterate", "engine.policies.rollout", "engine.apply.apply_move"} <= names
    starts = [int(start, 16) for start, _, _ in rows]
    assert starts == sorted(starts) and all(int(size, 16) > 0 for _, size, _ in rows)
    assert all(re.fullmatch(r"[0-9a-f]+", a) for a, _, _ in rows)
    assert (profile.DUMP_DIR / "rollout.bin").stat().st_size > 100
    for left in (Path(fig["map"]), profile.DUMP_DIR / "rollout.bin", profile.DUMP_DIR / "rollout.addr"):
        left.unlink()
