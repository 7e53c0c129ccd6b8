"""Where a search spends its time, by kernel and by instruction, with Linux ``perf``.

Numba's compiled kernels carry no symbols, so ``perf`` alone puts every sample of a search in
one anonymous block. ``run`` compiles the engine afresh (into a temporary cache: about 30 s
of CPU), writes ``/tmp/perf-PID.map`` (perf's map of JIT code: each function's address,
size and name, read from the compiled libraries; a size is the distance to the next function,
at most 1 MB), then runs the search; ``report`` reads
the samples back by kernel and, for one kernel whose machine code ``run`` saved, by
instruction (the hottest windows, disassembled with ``objdump``). Text, then JSON.

    perf record -F 2000 -o perf.data python benchmarks/profile.py run positions/opening-p0.json \\
        --iterations 3000000 [--repeat 1] [--dump ismcts_iterate]
    python benchmarks/profile.py report perf.data [--dump ismcts_iterate] [--top 25] [--windows 6]

A kernel's share counts its own code, with whatever LLVM inlined into it; the shares are of
the engine's samples only (the compile and Python are left out).
"""

from __future__ import annotations

import argparse
import atexit
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NoReturn

DUMP_DIR = Path(tempfile.gettempdir())
_ENGINE = "_ZN13cuttle_search"


def _fail(message: str) -> NoReturn:
    """A one-line error on stderr, exit status 2 (a bad input, a missing tool)."""
    print(f"profile.py: {message}", file=sys.stderr)
    sys.exit(2)


def _short(symbol: str) -> str:
    """``engine.ismcts.ismcts_iterate`` from a Numba symbol (its length-prefixed path)."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts, rest = [], symbol[3:]
    while rest and rest[0].isdigit():
        m = re.match(r"(\d+)", rest)
        size = int(m.group(1))
        rest = rest[m.end():]
        parts.append(rest[:size])
        rest = rest[size:]
    return ".".join(p for p in parts if p != "cuttle_search") or symbol


def run(args: argparse.Namespace) -> None:
    cache = tempfile.mkdtemp(prefix="cuttle-profile-")
    atexit.register(shutil.rmtree, cache, True)
    os.environ["NUMBA_CACHE_DIR"] = cache  # a fresh compile: every library in memory
    from cuttle_search.analysis import analyse
    from cuttle_search.engine import jit

    try:
        analyse(args.position, iterations=500, seed=1)
    except Exception as e:  # a bad path or position: one line, no traceback
        _fail(f"position: {e}")
    functions: dict[int, str] = {}
    for kernel in jit.KERNELS:
        for compiled in kernel.overloads.values():
            module = getattr(compiled.library, "_final_module", None)
            for fn in module.functions if module is not None else ():
                if not fn.is_declaration:
                    address = compiled.library.get_pointer_to_function(fn.name)
                    if address:
                        functions.setdefault(address, fn.name)
    starts = sorted(functions)
    if not starts:
        _fail("no compiled code found to map (this Numba keeps no libraries in memory)")
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for start, end in zip(starts, starts[1:] + [starts[-1] + 4096]):
            out.write(f"{start:x} {min(end - start, 1 << 20):x} {functions[start]}\n")
    if args.dump:
        import ctypes

        for start, end in zip(starts, starts[1:]):
            if _short(functions[start]).endswith("." + args.dump):
                (DUMP_DIR / f"{args.dump}.bin").write_bytes(ctypes.string_at(start, end - start))
                (DUMP_DIR / f"{args.dump}.addr").write_text(f"{start:x}\n")
                break
        else:
            _fail(f"--dump: no compiled kernel named {args.dump}")
    t0 = time.process_time()
    for rep in range(args.repeat):
        analyse(args.position, iterations=args.iterations, seed=2 + rep)
    cpu = time.process_time() - t0
    fig = {"functions_mapped": len(starts), "map": f"/tmp/perf-{os.getpid()}.map", "search_cpu_seconds": cpu,
           "iterations_per_cpu_second": args.iterations * args.repeat / cpu}
    print(f"{len(starts)} compiled functions in {fig['map']}; the search: {cpu:.2f} s of CPU, "
          f"{fig['iterations_per_cpu_second']:,.0f} iterations a CPU second")
    print(json.dumps(fig))


def _tool(argv: list[str]) -> str:
    """The output of ``argv`` (perf, objdump), or a one-line exit saying why there is none."""
    try:
        return subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    except FileNotFoundError:
        _fail(f"{argv[0]}: not found (install it: Debian's linux-perf or binutils)")
    except subprocess.CalledProcessError as e:
        _fail(f"{' '.join(argv[:2])}: {e.stderr.strip().splitlines()[-1] if e.stderr.strip() else e}")


def report(args: argparse.Namespace) -> None:
    lines = _tool(["perf", "script", "-i", args.data, "-F", "ip,sym"]).splitlines()
    by_kernel: collections.Counter[str] = collections.Counter()
    ips: collections.Counter[int] = collections.Counter()
    for line in lines:
        fields = line.split(None, 1)
        if len(fields) == 2 and fields[1].startswith(_ENGINE):
            name = _short(fields[1].split("+")[0].strip())
            by_kernel[name] += 1
            if args.dump and name.endswith("." + args.dump):
                ips[int(fields[0], 16)] += 1
    total = sum(by_kernel.values())
    if not total:
        _fail(f"{args.data}: no samples in the engine's kernels (was it recorded with `profile.py run`?)")
    fig: dict = {"engine_samples": total,
                 "kernels": {k: round(n / total, 4) for k, n in by_kernel.most_common(args.top)}}
    print(f"{total} samples in the engine's kernels")
    for name, share in fig["kernels"].items():
        print(f"  {100 * share:5.1f}%  {name}")
    if args.dump:
        fig["windows"] = _windows(args, ips)
    print(json.dumps(fig, indent=2))


def _windows(args: argparse.Namespace, ips: collections.Counter) -> list[dict]:
    """The hottest runs of ``WINDOW`` instructions of the dumped kernel, disassembled."""
    saved = DUMP_DIR / f"{args.dump}.addr"
    if not saved.exists():
        _fail(f"--dump: no machine code saved for {args.dump} (give `run` the same --dump)")
    start = saved.read_text().strip()
    asm = _tool(["objdump", "-D", "-b", "binary", "-mi386:x86-64", f"--adjust-vma=0x{start}",
                 str(DUMP_DIR / f"{args.dump}.bin")])
    code = []
    for line in asm.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(.*)", line)
        if m and m.group(2):
            code.append((int(m.group(1), 16), m.group(2).strip()))
    kernel_total = sum(ips.values()) or 1
    window = 24
    sums = sorted(((sum(ips[a] for a, _ in code[i:i + window]), i) for i in range(0, len(code), 4)), reverse=True)
    shown: list[int] = []
    out = []
    for hits, i in sums:
        if len(shown) == args.windows:
            break
        if any(abs(i - j) < window for j in shown):
            continue
        shown.append(i)
        rows = [{"address": f"{a:x}", "share": round(ips[a] / kernel_total, 4), "instruction": ins}
                for a, ins in code[i:i + window]]
        out.append({"share": round(hits / kernel_total, 4), "instructions": rows})
        print(f"=== {100 * hits / kernel_total:.1f}% of {args.dump}'s samples, from {code[i][0]:x}")
        for row in rows:
            print(f"  {100 * row['share']:5.1f}  {row['address']}  {row['instruction']}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    r = sub.add_parser("run", help="compile afresh, write perf's map, run the search (under `perf record`)")
    r.add_argument("position")
    r.add_argument("--iterations", type=int, default=1_000_000)
    r.add_argument("--repeat", type=int, default=1, help="searches in a row (for short ones)")
    r.add_argument("--dump", metavar="KERNEL", help="save this kernel's machine code for `report --dump`")
    p = sub.add_parser("report", help="samples by kernel, and by instruction for a dumped kernel")
    p.add_argument("data", help="perf's data file")
    p.add_argument("--dump", metavar="KERNEL")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--windows", type=int, default=6)
    args = ap.parse_args()
    run(args) if args.mode == "run" else report(args)


if __name__ == "__main__":
    main()
