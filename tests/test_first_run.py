"""What a first run shows and measures (issue 26, items 13 and 15): the compile notice and
its progress per kernel, and a solver rate that leaves the kernels' load out."""

import json
import re
import time as real_time
from pathlib import Path

from click.testing import CliRunner

import cuttle_search.analysis.solve as S
from cuttle_search.cli import main

POS = Path(__file__).parent.parent / "positions"


# ---------------------------------------------------------------- item 15: the solver's rate
class _Clock:
    """``time`` as ``solve`` reads it, with ``skew`` seconds added from the moment the
    kernels' load adds them (a load that "took" 1,000 seconds, without waiting)."""

    def __init__(self) -> None:
        self.skew = 0.0

    def perf_counter(self) -> float:
        return real_time.perf_counter() + self.skew


def test_the_solvers_seconds_and_rate_leave_the_kernels_load_out(monkeypatch):
    clock = _Clock()
    real_load = S.load_kernels

    def slow_load(*args):
        real_load(*args)
        clock.skew += 1000.0

    monkeypatch.setattr(S, "_time", clock)
    monkeypatch.setattr(S, "load_kernels", slow_load)
    res = S.solve(POS / "deck-out-endgame.json")
    assert res.proven and res.nodes == 159  # (166 before the root moves took turns)
    assert res.compile_seconds >= 1000.0 and res.seconds < 1000.0
    assert res.nodes_per_second == res.nodes / res.seconds
    j = res.to_json()
    assert j["compileSeconds"] >= 1000.0 and j["seconds"] < 1000.0 and j["nodesPerSecond"] > 159 / 1000.0


def test_the_solve_command_shows_the_load_apart_from_the_rate():
    r = CliRunner().invoke(main, ["solve", str(POS / "deck-out-endgame.json")])
    assert r.exit_code == 0, r.output
    # (on a cold cache the compile's notice comes first: the line is found by its start)
    line = next((x for x in r.output.splitlines() if x.startswith("proven: ")), "")
    assert line, r.output
    assert line.startswith("proven: win for p0; 159 nodes in ") and "nodes/s; loading the engine " in line
    assert line.endswith(" s, not counted)")
    j = json.loads(CliRunner().invoke(main, ["solve", str(POS / "deck-out-endgame.json"), "--json"]).output)
    assert {"seconds", "compileSeconds", "nodesPerSecond"} <= set(j)


def test_every_kernel_a_solve_calls_is_loaded_before_its_clock_starts(monkeypatch):
    """Once ``load_kernels`` has run, the solve calls no kernel it has not called: every
    kernel the timed part uses was compiled or loaded for the same argument types."""
    from cuttle_search.engine import jit

    calls: list[tuple[str, tuple]] = []
    loading = [False]
    seen_in_load: set[tuple[str, tuple]] = set()
    real_load = S.load_kernels

    def load(*args):
        loading[0] = True
        try:
            real_load(*args)
        finally:
            loading[0] = False

    def typed(args):
        import numba

        return tuple(numba.typeof(a) for a in args)

    kernels = {id(k) for k in jit.KERNELS}
    for module in (S.V, S):
        for name in dir(module):
            obj = getattr(module, name)
            if id(obj) in kernels:
                def spy(*args, _k=obj, _n=name):
                    key = (_n, typed(args))
                    (seen_in_load.add if loading[0] else calls.append)(key)
                    return _k(*args)
                monkeypatch.setattr(module, name, spy)
    monkeypatch.setattr(S, "load_kernels", load)
    S.solve(POS / "deck-out-endgame.json")
    timed = {c for c in calls if c[0] != "root_moves"}  # (root_moves runs before the load)
    assert timed and timed <= seen_in_load


# ---------------------------------------------------------------- item 13: the compile notice and its progress
import io  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import numba  # noqa: E402
import pytest  # noqa: E402

from cuttle_search.engine import jit  # noqa: E402
from cuttle_search.engine.jit import CompileProgress  # noqa: E402


def test_progress_lines_count_each_expected_kernel_once():
    out = io.StringIO()
    progress = CompileProgress(["deal", "generate_moves", "apply_move"], out, bar=False)
    for name in ("deal", "not_expected", "deal", "apply_move"):
        progress.done(name)
    assert out.getvalue().splitlines() == ["compiling the engine: 1/3 kernels (deal)",
                                           "compiling the engine: 2/3 kernels (apply_move)"]
    assert progress.finished == ["deal", "apply_move"]


def test_progress_without_a_total_counts_whatever_compiles():
    out = io.StringIO()
    progress = CompileProgress(None, out, bar=False)
    progress.done("deal")
    progress.done("deal")
    progress.done("solve_moves")
    assert out.getvalue().splitlines() == ["compiling the engine: kernel 1 (deal)",
                                           "compiling the engine: kernel 2 (solve_moves)"]


def test_progress_is_a_bar_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Terminal()
    with CompileProgress(["a", "b"], out) as progress:
        assert progress._bar is not None
        progress.done("a")
        assert progress._bar.n == 1
    assert "1/2" in out.getvalue() and "\n" not in out.getvalue().rstrip("\n")  # one bar, redrawn


def _fresh_kernels(njit=numba.njit):
    """Two small kernels, new in every call (so Numba compiles them), the first calling the
    second; made by ``njit`` (Numba's, or the engine's)."""
    @njit(cache=False)
    def inner_kernel(x):
        return x + 1

    @njit(cache=False)
    def outer_kernel(x):
        return inner_kernel(x) * 2

    return outer_kernel


def test_progress_follows_numbas_real_compiles():
    out = io.StringIO()
    outer = _fresh_kernels()
    with CompileProgress(["outer_kernel", "inner_kernel"], out, bar=False):
        assert outer(1) == 4
        assert outer(2) == 6  # compiled already: nothing more to report
    assert out.getvalue().splitlines() == ["compiling the engine: 1/2 kernels (inner_kernel)",
                                           "compiling the engine: 2/2 kernels (outer_kernel)"]
    outer = _fresh_kernels()
    outer(1)  # the listener is gone once the block ends
    assert len(out.getvalue().splitlines()) == 2


def test_the_notice_gives_an_honest_estimate_then_compiles_with_progress(monkeypatch):
    monkeypatch.setattr(jit, "_warned", False)
    monkeypatch.setattr(jit, "uncached_kernels", lambda: ["outer_kernel", "inner_kernel"])
    monkeypatch.setattr(jit, "_import_every_kernel", lambda: None)
    out = io.StringIO()
    outer = _fresh_kernels()
    assert jit.warn_if_compiling(out, compile_all=lambda: outer(1))
    assert out.getvalue().splitlines() == [
        "compiling the engine: 2 kernels, first run only (about a minute of CPU time; a few minutes on a slow or "
        "busy machine)…",
        "compiling the engine: 1/2 kernels (inner_kernel)",
        "compiling the engine: 2/2 kernels (outer_kernel)",
    ]
    assert not jit.warn_if_compiling(out, compile_all=lambda: outer(1))  # once per process


def test_without_a_cache_the_notice_says_every_run(monkeypatch):
    monkeypatch.setattr(jit, "_warned", False)
    monkeypatch.setattr(jit, "CACHE", False)
    monkeypatch.setattr(jit, "uncached_kernels", lambda: ["outer_kernel"])
    out = io.StringIO()
    assert jit.warn_if_compiling(out)
    assert out.getvalue() == ("compiling the engine (no writable cache directory, so on every run; about a minute of "
                              "CPU time; a few minutes on a slow or busy machine)…\n")


def test_the_command_line_compiles_the_whole_engine_before_the_command(monkeypatch):
    from cuttle_search import warmup

    ran = []
    monkeypatch.setattr(jit, "_warned", False)
    monkeypatch.setattr(jit, "uncached_kernels", lambda: ["generate_moves"])
    monkeypatch.setattr(warmup, "warm_up", lambda: ran.append("warm_up"))
    r = CliRunner().invoke(main, ["moves", str(POS / "win-in-one-p0.json")])
    assert r.exit_code == 0 and ran == ["warm_up"]
    assert r.stderr.startswith("compiling the engine: 1 kernel, first run only (about a minute of CPU time")


@pytest.mark.slow  # a cold compile of the whole engine: a minute or more of CPU
def test_a_cold_start_shows_progress_per_kernel_then_never_compiles_again(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    cli = [sys.executable, "-m", "cuttle_search.cli", "moves", str(POS / "win-in-one-p0.json")]
    first = subprocess.run(cli, env=env, capture_output=True, text=True, timeout=1800)
    assert first.returncode == 0, first.stderr[-2000:]
    lines = first.stderr.splitlines()
    total = int(lines[0].split(": ")[1].split()[0])
    assert lines[0].startswith(f"compiling the engine: {total} kernels, first run only")
    counts = [int(line.split(": ")[1].split("/")[0]) for line in lines[1:]]
    assert counts == list(range(1, len(counts) + 1)) and len(counts) == total
    assert all(line.endswith(f"/{total} kernels ({line.split('(')[-1]}") for line in lines[1:])
    again = subprocess.run(cli, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and again.stderr == "" and again.stdout == first.stdout


# ---------------------------------------------------------------- issue 28, item 4: compile only what a command needs
from cuttle_search import cli  # noqa: E402


def _qualified(d) -> str:
    return f"{d.py_func.__module__}.{d.py_func.__name__}"


def test_the_search_reaches_no_solver_baseline_or_harness_kernel():
    """What ``analyse`` compiles on a first run: the search and a position's checks, none
    of the exact solver, the baselines (cuttlebot, PIMC) or the harness (perft, playouts)."""
    reached = {_qualified(d) for d in jit.reachable(cli.SEARCH_KERNELS)}
    assert "cuttle_search.engine.ismcts.ismcts_iterate" in reached
    assert "cuttle_search.engine.apply.apply_move" in reached and "cuttle_search.engine.policies.rollout" in reached
    for module in ("solver", "baselines", "harness"):
        assert not any(name.startswith(f"cuttle_search.engine.{module}.") for name in reached), module
    assert len(reached) < len(jit.KERNELS)


def test_reachable_follows_kernels_named_directly_and_through_a_module(monkeypatch):
    import types

    reached = {_qualified(d) for d in jit.reachable(["cuttle_search.engine.movegen.generate_moves"])}
    assert "cuttle_search.engine.movegen.generate_plays" in reached  # named directly
    assert "cuttle_search.engine.layout.make_move" in reached  # and what that calls
    assert "cuttle_search.engine.apply.apply_move" not in reached  # generating moves plays none

    helpers = types.ModuleType("reach_helpers")
    exec("from cuttle_search.engine.jit import njit\n@njit(cache=False)\ndef leaf(x):\n    return x\n", vars(helpers))
    here = types.ModuleType("reach_test")
    here.helpers = helpers  # type: ignore[attr-defined]
    exec("from cuttle_search.engine.jit import njit\n@njit(cache=False)\ndef through(x):\n    return helpers.leaf(x)\n",
         vars(here))
    monkeypatch.setitem(sys.modules, "reach_test", here)
    try:
        assert jit.reachable(["reach_test.through"]) == [helpers.leaf, here.through]  # type: ignore[attr-defined]
    finally:
        jit.KERNELS.remove(helpers.leaf)  # type: ignore[attr-defined]
        jit.KERNELS.remove(here.through)  # type: ignore[attr-defined]


def test_an_inlined_kernel_is_followed_but_neither_counted_nor_awaited(monkeypatch):
    """A kernel with ``inline="always"`` has its callers take in its code: what it calls
    still compiles with them, but it never compiles itself for them, so a first run's
    total and the whole engine's list of uncached kernels leave it out."""
    import types

    here = types.ModuleType("inline_test")
    exec("from cuttle_search.engine.jit import njit\n"
         "@njit(cache=False)\ndef leaf(x):\n    return x + 1\n"
         "@njit(cache=False, inline='always')\ndef middle(x):\n    return leaf(x) * 2\n"
         "@njit(cache=False)\ndef top(x):\n    return middle(x) - 1\n", vars(here))
    monkeypatch.setitem(sys.modules, "inline_test", here)
    try:
        assert jit.reachable(["inline_test.top"]) == [here.leaf, here.top]  # type: ignore[attr-defined]
        assert here.top(3) == 7  # type: ignore[attr-defined]
        assert here.top.signatures and here.leaf.signatures and not here.middle.signatures  # type: ignore[attr-defined]
        monkeypatch.setattr(jit, "CACHE", False)
        assert "middle" not in jit.uncached_kernels() and {"leaf", "top"} <= set(jit.uncached_kernels())
    finally:
        for name in ("leaf", "middle", "top"):
            jit.KERNELS.remove(getattr(here, name))


def test_nothing_the_package_calls_from_python_is_inlined_and_no_kernel_has_a_c_wrapper():
    """An inlined kernel has no code of its own: one that Python calls compiles on its own
    at its first call, outside the warm-ups' count (in a timed search, on the clock). So no
    entry of ``SEARCH_KERNELS`` is inlined, nor any kernel the package calls from outside
    the engine; no engine kernel carries Numba's C wrapper, which nothing here calls."""
    entries = {d.py_func.__name__ for d in jit._resolve(cli.SEARCH_KERNELS)}
    inlined = {d.py_func.__name__ for d in jit.KERNELS if jit._inlined(d)}
    assert {"policy_pick", "greedy_values", "_resolve_oneoff"} <= inlined and not entries & inlined
    package = Path(jit.__file__).resolve().parent.parent
    outside = "\n".join(p.read_text() for p in package.rglob("*.py") if "engine" not in p.relative_to(package).parts)
    assert not [name for name in inlined if re.search(rf"\b{name}\(", outside)]
    assert all(d.targetoptions.get("no_cfunc_wrapper") for d in jit.KERNELS)


_CALLED = """
import json, sys
from cuttle_search.engine import jit
from cuttle_search import cli
cli._warm_search()
print(json.dumps(sorted(f"{d.py_func.__module__}.{d.py_func.__name__}" for d in jit.KERNELS if d.signatures)))
"""


def test_the_search_warm_up_calls_only_kernels_its_list_reaches():
    """In a fresh process with the kernels cached, the kernels that have code after
    ``_warm_search`` are the ones it called from Python (a kernel called from a kernel is
    part of its caller's code): every kernel of ``SEARCH_KERNELS``, and others only among
    what those reach, so a first run's total counts everything the warm-up compiles."""
    out = subprocess.run([sys.executable, "-c", _CALLED], capture_output=True, text=True, timeout=600, check=True)
    called = set(json.loads(out.stdout.splitlines()[-1]))
    assert set(cli.SEARCH_KERNELS) <= called
    assert called <= {_qualified(d) for d in jit.reachable(cli.SEARCH_KERNELS)}


def test_the_docs_count_the_kernels_a_first_search_compiles():
    """docs/search.md's "Budgets" says how many kernels the first ``analyse`` compiles: the
    notice's own total (``jit.reachable`` of ``SEARCH_KERNELS``), kept true as kernels come and go."""
    text = (POS.parent / "docs" / "search.md").read_text()
    said = re.search(r"The first `analyse` or `hint` on a machine compiles the search \((\d+) kernels", text)
    assert said is not None
    assert int(said.group(1)) == len(jit.reachable(cli.SEARCH_KERNELS))


def test_a_part_compiles_once_with_its_own_total(monkeypatch):
    monkeypatch.setattr(jit, "_parts_done", set())
    monkeypatch.setattr(jit, "_cached", lambda d: d.py_func.__name__ != "popcount")
    out = io.StringIO()
    ran = []
    part = ("a test", ["cuttle_search.engine.layout.popcount"])
    assert jit.warn_if_compiling(out, compile_all=lambda: ran.append(1), part=part)
    assert out.getvalue().splitlines() == [
        "compiling the engine: 1 kernel for a test, first run only (about 30 s of CPU time; longer on a slow "
        "or busy machine)…"]
    assert ran == [1]
    assert not jit.warn_if_compiling(out, compile_all=lambda: ran.append(2), part=part)  # once per process
    assert ran == [1]


def test_a_warm_part_says_nothing_and_looks_only_at_its_entries(monkeypatch):
    looked = []
    monkeypatch.setattr(jit, "_parts_done", set())
    monkeypatch.setattr(jit, "_cached", lambda d: looked.append(d.py_func.__name__) or True)
    out = io.StringIO()
    assert not jit.warn_if_compiling(out, compile_all=lambda: None, part=("the search", cli.SEARCH_KERNELS))
    assert out.getvalue() == "" and len(looked) == len(cli.SEARCH_KERNELS)


def test_analyse_compiles_the_search_part_and_not_the_whole_engine(monkeypatch):
    parts, whole = [], []
    monkeypatch.setattr(jit, "_parts_done", set())
    monkeypatch.setattr(jit, "_warned", False)
    monkeypatch.setattr(jit, "_cached", lambda d: d.py_func.__name__ != "ismcts_iterate")
    monkeypatch.setattr(jit, "uncached_kernels", lambda: ["ismcts_iterate"])
    monkeypatch.setattr(cli, "_warm_search", lambda: parts.append(1))
    monkeypatch.setattr(cli, "_warm_up", lambda: whole.append(1))
    r = CliRunner().invoke(main, ["analyse", str(POS / "opening-p0.json"), "-n", "100", "--json"])
    assert r.exit_code == 0, r.output
    assert parts == [1] and whole == []
    assert r.stderr.startswith("compiling the engine: 1 kernel for the search, first run only")
    # nothing hidden: the exact solver answers first, so the rest of the engine compiles too
    monkeypatch.setattr(jit, "_parts_done", set())
    r = CliRunner().invoke(main, ["analyse", str(POS / "deck-out-endgame.json"), "-n", "100", "--json"])
    assert r.exit_code == 0, r.output
    assert parts == [1, 1] and whole == [1]


def test_a_constant_integer_argument_compiles_once_for_its_type():
    """A kernel called from kernels with different constant integers compiles once, for
    int64 (Numba would compile it once for each constant)."""
    @jit.njit(cache=False)
    def add(x, y):
        return x + y

    @jit.njit(cache=False)
    def caller(x):
        return add(x, 1) + add(x, 2) + add(3, x)

    assert caller(10) == 11 + 12 + 13
    assert [str(s) for s in add.signatures] == ["(int64, int64)"]
    jit.KERNELS.remove(add)
    jit.KERNELS.remove(caller)


def test_kernels_compile_at_the_engines_level_and_other_numba_code_at_numbas(monkeypatch):
    """LLVM's pass pipelines run at ``jit.OPT_LEVEL`` for a kernel and the kernels it calls
    (compiled inside it), and at Numba's own level for a function the engine did not make,
    compiled after: the level is Numba's again once a kernel's compile ends."""
    from numba.core import codegen, config

    levels: list[int] = []
    make = codegen.create_pass_builder

    def recording(tm, opt, **kwargs):
        levels.append(int(opt))
        return make(tm, opt=opt, **kwargs)

    monkeypatch.setattr(codegen, "create_pass_builder", recording)
    numbas = int(config.OPT)
    ours = numbas if "NUMBA_OPT" in os.environ else jit.OPT_LEVEL

    top = _fresh_kernels(jit.njit)
    made = [d for d in jit.KERNELS if d.py_func.__name__ in ("inner_kernel", "outer_kernel")]
    try:
        assert top(1) == 4
        assert max(levels) == ours and all(d.signatures for d in made)  # (level 0: Numba's cheap first pass)
        levels.clear()

        @numba.njit
        def foreign(x):
            return x - 1

        assert foreign(1) == 0
        assert max(levels) == numbas and int(config.OPT) == numbas
    finally:
        for d in made:
            jit.KERNELS.remove(d)


def test_numbas_cache_folder_for_the_engine_is_stamped(monkeypatch, tmp_path):
    """With NUMBA_CACHE_DIR set, the folder Numba keeps the engine's kernels in is among
    those the engine stamps (and clears when a source changes)."""
    from numba.core.caching import UserProvidedCacheLocator

    import cuttle_search.engine as engine
    from cuttle_search.engine import apply

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    numbas = tmp_path / UserProvidedCacheLocator.get_suitable_cache_subpath(apply.__file__)
    assert numbas in engine._cache_dirs()


def test_kernels_make_their_cache_when_first_used():
    """Defining a kernel leaves its on-disk cache unmade (Numba would find the cache folder
    and write a file there for each of them); the first look at it makes it."""
    @jit.njit
    def lazily_cached(x):
        return x + 1

    try:
        if not jit.CACHE:
            pytest.skip("no writable cache directory here")
        assert isinstance(lazily_cached._cache, jit._LazyCache)
        assert lazily_cached._cache.cache_path  # made now
        assert not isinstance(lazily_cached._cache, jit._LazyCache)
    finally:
        jit.KERNELS.remove(lazily_cached)


def test_no_kernel_without_reference_counting_reaches_one_with_it():
    """A cached kernel loads without Numba's reference-counting runtime unless it uses it
    (``jit._light_load``), so its machine code must not call one that does: a kernel with
    reference counting is called only from Python or from kernels that have it too."""
    jit._import_every_kernel()  # (the harness and the baselines too, whatever ran before)
    counted = [d for d in jit.KERNELS if jit._name(d.py_func) in jit.COUNTED]
    assert counted  # (the harness and the solver's entry keep it)
    for d in jit.KERNELS:
        if jit._name(d.py_func) in jit.COUNTED:
            continue
        reached = jit.reachable([jit._name(d.py_func)])
        assert not [k for k in reached if jit._name(k.py_func) in jit.COUNTED], jit._name(d.py_func)


def _warm_run(code: str, *args: str) -> str:
    """``code``'s output in a fresh process whose kernels load from the cache: run once
    first (a cold cache compiles, which sets up everything Numba has)."""
    if not jit.CACHE:
        pytest.skip("no writable cache directory here: every run compiles")
    for timeout in (1800, 600):
        run = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout)
        assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout


def test_a_warm_search_loads_its_kernels_without_setting_up_reference_counting():
    """What a warm ``analyse`` pays: not the reference-counting runtime, whose set-up
    compiles its functions with LLVM (none of the search's kernels uses it)."""
    code = ("import sys, json; from cuttle_search import analyse; from numba.core.runtime import rtsys; "
            "r = analyse(sys.argv[1], iterations=300, seed=4); print(json.dumps([rtsys._init, str(r.best.move)]))")
    initialised, move = json.loads(_warm_run(code, str(POS / "opening-p0.json")))
    assert initialised is False and move


def test_loaded_kernels_defer_their_linking_module_until_code_compiled_later_links_them():
    """A warm search leaves the LLVM module Numba keeps for linking each loaded kernel
    unparsed (``jit._defer_linking_modules``); a kernel compiled afterwards that calls one
    of them (``generate_moves``, loaded by the search) parses it then, links and agrees
    with it, and a parse that fails leaves it to be parsed again by the next compile."""
    if not numba.__version__.startswith(jit.DEFER_TESTED_NUMBA):
        pytest.skip(f"Numba {numba.__version__} loads its own way")
    code = """
import json, sys, numpy as np
import llvmlite.binding as ll
from cuttle_search import Position, analyse
from cuttle_search.engine import jit
from cuttle_search.engine.layout import MAX_MOVES
from cuttle_search.engine.movegen import generate_moves
pos = Position.load(sys.argv[1])
analyse(pos, iterations=300, seed=4)
deferred = jit._DEFERRED[0]

def compile_count_twice():
    @jit.njit(cache=False)
    def count_twice(s, r, buf):
        return 2 * generate_moves(s, r, buf)
    return int(count_twice(pos.state, pos.rules_array, np.zeros(MAX_MOVES, np.int64)))

parse = ll.parse_bitcode
def failing(*args):
    raise MemoryError("a parse that fails")
ll.parse_bitcode = failing
try:
    compile_count_twice()
    failed = False
except MemoryError:
    failed = True
ll.parse_bitcode = parse
print(json.dumps([deferred, failed, compile_count_twice(), len(pos.legal_codes())]))
"""
    deferred, failed, twice, moves = json.loads(_warm_run(code, str(POS / "opening-p0.json")))
    assert deferred >= 5 and failed and twice == 2 * moves > 0


@pytest.mark.slow  # a cold compile of the search: about 30 s of CPU
def test_a_cold_analyse_compiles_the_search_only_with_an_honest_total(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    cli_args = [sys.executable, "-m", "cuttle_search.cli", "analyse", str(POS / "opening-p0.json"), "-n", "300", "--json"]
    first = subprocess.run(cli_args, env=env, capture_output=True, text=True, timeout=1800)
    assert first.returncode == 0, first.stderr[-2000:]
    lines = first.stderr.splitlines()
    total = int(lines[0].split(": ")[1].split()[0])
    assert lines[0].startswith(f"compiling the engine: {total} kernels for the search, first run only")
    assert total == len(jit.reachable(cli.SEARCH_KERNELS))
    assert [line.split("/")[0] for line in lines[1:]] == [f"compiling the engine: {i}" for i in range(1, total + 1)]
    compiled = {line.rsplit("(", 1)[1].rstrip(")") for line in lines[1:]}
    elsewhere = {d.py_func.__name__ for d in jit.KERNELS
                 if d.py_func.__module__.rsplit(".", 1)[1] in ("solver", "baselines", "harness")}
    elsewhere -= {d.py_func.__name__ for d in jit.reachable(cli.SEARCH_KERNELS)}  # (a name both places have)
    assert elsewhere
    assert not compiled & elsewhere
    again = subprocess.run(cli_args, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and again.stderr == ""
    assert json.loads(again.stdout)["moves"] == json.loads(first.stdout)["moves"]


# --- the command line's start-up: NumPy's BLAS threads ---

def _after_startup(env_extra: dict[str, str]) -> tuple[str | None, int]:
    """OPENBLAS_NUM_THREADS and the process's thread count once ``startup`` has imported NumPy."""
    from cuttle_search.startup import BLAS_THREAD_VARIABLES
    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_VARIABLES}
    env.update(env_extra)
    code = ("import os, cuttle_search.startup; "
            "print(os.environ.get('OPENBLAS_NUM_THREADS'), len(os.listdir('/proc/self/task')))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    value, threads = out.stdout.split()
    return (None if value == "None" else value), int(threads)


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_the_command_line_starts_no_blas_threads_it_never_uses():
    assert _after_startup({}) == ("1", 1)


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_a_users_own_blas_thread_count_is_left_alone():
    assert _after_startup({"OMP_NUM_THREADS": "2"}) == (None, 2)
    assert _after_startup({"OPENBLAS_NUM_THREADS": "2"}) == ("2", 2)
