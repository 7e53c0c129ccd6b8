"""The engine's one ``njit``: Numba's, with on-disk caching when a cache place is writable,
without reference counting unless a kernel asks for it, and a registry of every kernel so
the commands can tell when a first run will compile.

Kernels write ``@njit(cache=True)`` as usual; ``CACHE`` (set by the engine package before
any kernel module loads) turns the on-disk cache off where nothing is writable, so a
read-only install compiles in memory instead of failing with "no locator".

Reference counting (Numba's runtime, NRT) is off by default: the engine's kernels take
their arrays from the caller, make views of them and hand them on, and with NRT each view
and each call that passes one costs an atomic increment and decrement, out of line. In
the exact solver that was half the time (``perf``: ``NRT_incref`` and ``NRT_decref`` 49%
of the samples). A kernel that allocates an array or assigns an array to a slice says
``@njit(cache=True, nrt=True)`` (without it Numba refuses to compile one), and so does a
kernel that calls one. A kernel compiled without NRT must not return an array: an NRT
kernel calling it would later release a reference it was never given and corrupt the
heap. Numba refuses to return a view without NRT, and a test checks the return type of
every kernel for the rest. Where the installed Numba has no ``_nrt`` option every kernel
keeps NRT (correct, only slower).

Start-up (docs/search.md): a command compiles on a first run only the kernels it reaches
(``reachable``, ``warn_if_compiling``'s ``part``); a kernel called from kernels with constant
integers compiles once for their type (``_one_specialisation``); a warm start makes a
kernel's on-disk cache only when the kernel is first used (``_LazyCache``) and loads its
machine code without Numba's full refresh first (``_light_load``), without setting up
reference counting for a kernel that does not use it, and without parsing the LLVM module
Numba keeps for linking it until later code links with it (``_defer_linking_modules``)."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, TextIO

import numba
from numba.core.cpu import CPUTargetOptions

CACHE = True
KERNELS: list[Any] = []  # every dispatcher made by njit, in definition order
COUNTED: set[str] = set()  # the qualified names of the kernels compiled with reference counting


NRT_OPTIONAL = hasattr(CPUTargetOptions, "_nrt")  # Numba's (private) switch for reference counting


def njit(*args, cache: bool = True, nrt: bool = False, **kwargs):
    """``numba.njit`` with ``cache`` honoured only where a cache directory is writable and
    reference counting only with ``nrt`` (see the module docstring), and without the C
    wrapper Numba makes for every kernel (``no_cfunc_wrapper``: for use as a first-class
    function or from C, which nothing here does; it cost 6% of a first run's compile).

    ``inline="always"`` (Numba's) has the callers' code take in the kernel's, so the kernel
    has no compiled code of its own unless Python calls it: for a kernel called from one
    place on the search's path that carries rules, one copy of them fewer to optimize. Only
    for kernels Python never calls (one that it does would compile alone at its first call,
    uncounted and, in a timed decision, on the clock; tests/test_first_run.py checks). Such
    a kernel is left out of ``reachable`` and ``uncached_kernels``: it never compiles for a
    kernel that calls it."""
    if NRT_OPTIONAL:
        kwargs["_nrt"] = nrt
    kwargs.setdefault("no_cfunc_wrapper", True)
    cached = cache and CACHE
    made = numba.njit(*args, cache=False, **kwargs)  # the cache is attached below, when first used
    if args and callable(args[0]):  # used bare: @njit
        KERNELS.append(_kernel(made, cached))
        if nrt:
            COUNTED.add(_name(args[0]))
        return made

    def register(func):
        dispatcher = _kernel(made(func), cached)
        KERNELS.append(dispatcher)
        if nrt:
            COUNTED.add(_name(func))
        return dispatcher

    return register


def _kernel(dispatcher: Any, cached: bool) -> Any:
    if cached:
        dispatcher._cache = _LazyCache(dispatcher)
    return _at_opt_level(_one_specialisation(dispatcher))


OPT_LEVEL = 2  # LLVM's optimization level for the engine's kernels (Numba's default: 3)


def _at_opt_level(dispatcher: Any) -> Any:
    """Make a kernel compile at ``OPT_LEVEL``, and the kernels it calls with it, by setting
    Numba's optimization level (``numba.core.config.OPT``, which its pass pipelines read at
    each compile) for the compile only, under Numba's compiler lock, and putting it back
    after: other Numba code in the same process compiles at its own level. LLVM's level 3
    over level 2 cost a tenth of a first run's compile and bought nothing measurable in
    the search (docs/search.md, Start-up). Where ``NUMBA_OPT`` is set, or Numba has no
    ``config.OPT`` (another version), the kernel compiles at Numba's level."""
    from numba.core import config
    from numba.core.compiler_lock import global_compiler_lock

    level = getattr(config, "OPT", None)
    if "NUMBA_OPT" in os.environ or not isinstance(level, int):
        return dispatcher
    make_level = type(level)
    plain = dispatcher.compile

    def compile(sig: Any) -> Any:
        with global_compiler_lock:
            saved = config.OPT
            config.OPT = make_level(OPT_LEVEL)
            try:
                return plain(sig)
            finally:
                config.OPT = saved

    dispatcher.compile = compile
    return dispatcher


class _LazyCache:
    """A kernel's on-disk cache, made when the kernel first compiles or loads. Numba makes
    it when the kernel is defined, and making one finds the cache directory and writes and
    deletes a file there to see that it is writable: for the 198 kernels of the engine, a
    fifth of a warm command's imports, most of them for kernels the command never calls."""

    def __init__(self, dispatcher: Any) -> None:
        self._dispatcher = dispatcher

    def __getattr__(self, name: str) -> Any:
        if name == "_dispatcher" or name.startswith("__"):  # (not set yet: a copy being made)
            raise AttributeError(name)
        from numba.core.caching import FunctionCache

        func = self._dispatcher.py_func
        real = _light_load(FunctionCache(func), counted=_name(func) in COUNTED)
        self._dispatcher._cache = real
        return getattr(real, name)


def _one_specialisation(dispatcher: Any) -> Any:
    """Make a kernel that another kernel calls with a constant integer compile for the
    integer's type, not for the constant's value. Numba types a constant argument as a
    literal (``Literal[int](0)``) and compiles the callee once per distinct literal, so
    ``make_move`` compiled twelve times and the search path 180 times for its 137 kernels:
    a quarter of a cold compile. The code is the same either way (LLVM folds the
    constant once the callee is inlined); booleans keep their literals, which the solver
    uses to prune branches at typing time."""
    from numba.core import types

    def plain(t: Any) -> Any:
        return types.unliteral(t) if isinstance(t, types.IntegerLiteral) else t

    generic = dispatcher.get_call_template

    def get_call_template(args: Any, kws: Any) -> Any:
        return generic(tuple(plain(a) for a in args), {k: plain(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


def _light_load(cache: Any, counted: bool = True) -> Any:
    """Make a kernel's on-disk ``cache`` load machine code without first loading the whole
    of Numba's compiler. Numba's ``load_overload`` refreshes the target context before every
    load: the first time, that imports and registers every implementation Numba has
    (NumPy's, the typed containers', the extensions'), a third of a warm command's time,
    none of which machine code that is already compiled needs. Only a kernel with
    reference counting (``counted``) sets up its runtime first, which it links to: setting
    it up compiles the runtime's own functions with LLVM, a twentieth of a warm command,
    and a kernel without it never calls them. Compiling still refreshes it all (Numba's
    compiler does so itself), and a load that fails without the refresh is retried with
    it, as Numba does."""
    if not all(hasattr(cache, a) for a in ("load_overload", "_load_overload", "_guard_against_spurious_io_errors")):
        return cache  # another Numba: its own load
    from numba.core.runtime import rtsys

    full = cache.load_overload

    def load_overload(sig: Any, target_context: Any) -> Any:
        try:
            if counted:
                rtsys.initialize(target_context)
            with cache._guard_against_spurious_io_errors(), _linking_module_on_demand():
                return cache._load_overload(sig, target_context)
        except Exception:
            return full(sig, target_context)

    cache.load_overload = load_overload
    return cache


_ON_DEMAND = [0]  # > 0 while an engine kernel loads (``_linking_module_on_demand``)
# libraries loaded with their linking module deferred, counted (never decreased: once one
# has been, the execution engine answers for the symbols it holds)
_DEFERRED = [0]
# the Numba versions whose code library ``_defer_linking_modules`` was written against and
# tested with (its "object" load is the one it copies); any other keeps Numba's own load
DEFER_TESTED_NUMBA = ("0.68.",)


class _linking_module_on_demand:
    """While an engine kernel's machine code loads, leave the copy of its LLVM module that
    Numba keeps for linking it into code compiled later unparsed until such code asks for
    it (``_defer_linking_modules``): a warm command that compiles nothing never parses it.
    Parsing it, and listing its symbols from it, were more than half of a warm
    ``analyse``'s kernel loading."""

    def __enter__(self) -> None:
        _ON_DEMAND[0] += 1

    def __exit__(self, *exc: Any) -> None:
        _ON_DEMAND[0] -= 1


def _defer_linking_modules() -> None:
    """Teach Numba's code library (``numba.core.codegen``) to defer the linking module of
    an engine kernel loaded from the cache, then parse it the first time code compiled
    later links with it. Until then the execution engine, which holds the loaded machine
    code, says which symbols are defined (for every library, once one was deferred: the
    same answer for those Numba listed itself). Only in the Numba versions of
    ``DEFER_TESTED_NUMBA``, and only once; any other runs Numba's own load."""
    if not numba.__version__.startswith(DEFER_TESTED_NUMBA):
        return
    from numba.core import codegen
    import llvmlite.binding as ll

    library, engine = codegen.CPUCodeLibrary, codegen.JitEngine
    if getattr(library, "_engine_defers_linking", False):
        return
    unserialize = library._unserialize.__func__
    for_linking = library._get_module_for_linking
    defined = engine.is_symbol_defined

    def _unserialize(cls: Any, codegen_: Any, state: Any) -> Any:
        name, kind, data = state
        if not _ON_DEMAND[0] or kind != "object":
            return unserialize(cls, codegen_, state)
        self = codegen_.create_library(name)  # Numba's "object" load, but for the parse
        assert isinstance(self, cls)
        object_code, shared_bitcode = data
        self.enable_object_caching()
        self._set_compiled_object(object_code)
        self._deferred_bitcode = shared_bitcode
        self._finalize_final_module()
        _DEFERRED[0] += 1
        return self

    def _get_module_for_linking(self: Any) -> Any:
        bitcode = self.__dict__.get("_deferred_bitcode")
        if bitcode is not None:  # (removed only once parsed: a failed parse is tried again)
            module = ll.parse_bitcode(bitcode)
            self._codegen._engine._load_defined_symbols(module)
            self._shared_module = module
            del self._deferred_bitcode
        return for_linking(self)

    def is_symbol_defined(self: Any, name: str) -> bool:
        return defined(self, name) or bool(_DEFERRED[0]) and self._ee.get_function_address(name) != 0

    library._unserialize = classmethod(_unserialize)
    library._get_module_for_linking = _get_module_for_linking
    library._engine_defers_linking = True
    engine.is_symbol_defined = is_symbol_defined


_defer_linking_modules()


def _name(func: Any) -> str:
    return f"{func.__module__}.{func.__qualname__}"


def _cached(dispatcher: Any) -> bool:
    try:
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except AttributeError:  # not cached (in-memory compilation) or other Numba internals
        return False


def _resolve(entries: list[str]) -> list[Any]:
    """The kernels named ``module.function``."""
    import importlib

    found = []
    for entry in entries:
        module, _, name = entry.rpartition(".")
        found.append(getattr(importlib.import_module(module), name))
    return found


def uncached_kernels() -> list[str]:
    """Names of the kernels with no compiled code on disk yet (all of them in memory-only
    mode): a command that calls one will compile it first."""
    return [d.py_func.__name__ for d in KERNELS if not (_inlined(d) or CACHE and _cached(d))]


def _inlined(dispatcher: Any) -> bool:
    """Whether callers take in the kernel's code (``inline="always"``): it compiles only if
    Python calls it."""
    return dispatcher.targetoptions.get("inline") == "always"


def reachable(entries: list[str]) -> list[Any]:
    """The kernels that compiling ``entries`` (qualified names, ``module.function``)
    compiles: each entry and every kernel its code names, directly or through a module
    (``L.make_move``), and theirs in turn, in the registry's order. Numba types a kernel's
    whole body, so every kernel named in it compiles with it, whichever branch runs. An
    inlined kernel is followed but not listed: its callers take in its code."""
    import types as pytypes

    known = {id(d): d for d in KERNELS}
    todo, seen = _resolve(entries), set()
    while todo:
        d = todo.pop()
        if id(d) in seen:
            continue
        seen.add(id(d))
        func = d.py_func
        names: set[str] = set()
        codes = [func.__code__]
        while codes:  # the function's code and any nested function's
            code = codes.pop()
            names.update(code.co_names)
            codes.extend(c for c in code.co_consts if isinstance(c, pytypes.CodeType))
        for name in names:
            obj = func.__globals__.get(name)
            if isinstance(obj, pytypes.ModuleType):
                todo.extend(getattr(obj, n) for n in names if id(getattr(obj, n, None)) in known)
            elif id(obj) in known:
                todo.append(obj)
    return [d for d in KERNELS if id(d) in seen and not _inlined(d)]


_warned = False
_parts_done: set[str] = set()

# A cold compile of every kernel: about 55-60 s of CPU on the 2-core machine, minutes of
# wall time under load; of what the search needs alone (132 kernels), 27-29 s of CPU
# (docs/search.md, Start-up).
ESTIMATE = "about a minute of CPU time; a few minutes on a slow or busy machine"
PART_ESTIMATE = "about 30 s of CPU time; longer on a slow or busy machine"


def warn_if_compiling(stream: TextIO | None = None, compile_all: Callable[[], Any] | None = None,
                      part: tuple[str, list[str]] | None = None) -> bool:
    """Say once per process, on ``stream``, that the engine is about to compile; returns
    whether it said so. With ``compile_all`` (a function that calls every kernel: the
    command line passes its warm-up), compile the whole engine now, before the command
    runs, showing each kernel as it is done (``CompileProgress``), so no later command
    compiles again. Without a cache directory (compiling in memory on every run) only what
    the command needs compiles, counted as it goes.

    With ``part`` (a name and the qualified names of the kernels ``compile_all`` calls),
    only that part of the engine compiles: the kernels ``reachable`` from those, the
    total counted among them (``analyse`` needs about three quarters of the engine, and not
    the costliest third: the exact solver, the baselines, the harness)."""
    global _warned
    if part is not None and CACHE and compile_all is not None:
        name, entries = part
        if name in _parts_done:
            return False
        _parts_done.add(name)
        if all(_cached(d) for d in _resolve(entries)):  # (a warm start: a look at the entries' index files only)
            return False
        todo = [d.py_func.__name__ for d in reachable(entries) if not _cached(d)]
        if not todo:
            return False
        out = stream or sys.stderr
        n = len(set(todo))
        print(f"compiling the engine: {n} kernel{'s' * (n != 1)} for {name}, first run only ({PART_ESTIMATE})…",
              file=out, flush=True)
        with CompileProgress(todo, out):
            compile_all()
        return True
    if _warned or not uncached_kernels():
        return False
    _warned = True
    out = stream or sys.stderr
    if compile_all is not None and CACHE:
        _import_every_kernel()
        todo = uncached_kernels()
        n = len(set(todo))
        print(f"compiling the engine: {n} kernel{'s' * (n != 1)}, first run only ({ESTIMATE})…", file=out, flush=True)
        with CompileProgress(todo, out):
            compile_all()
        return True
    where = "first run only" if CACHE else "no writable cache directory, so on every run"
    print(f"compiling the engine ({where}; {ESTIMATE})…", file=out, flush=True)
    if compile_all is not None:  # in memory: what this command needs, kernel by kernel, as it goes
        CompileProgress(None, out, bar=False).start()
    return True


def _import_every_kernel() -> None:
    """Import every module of the engine, so that the registry holds every kernel."""
    import importlib
    import pkgutil

    from . import __path__ as here

    for info in pkgutil.iter_modules(here):
        importlib.import_module(f"{__package__}.{info.name}")


class CompileProgress:
    """Shows the kernels Numba compiles, one by one, on ``stream``: a tqdm bar (kernels
    done / total) when the stream is a terminal, else a plain line per kernel. ``names``
    are the kernels expected (``None``: count whatever compiles, with no total). It listens
    to Numba's compile events (``numba:compile``, sent only when a kernel really
    compiles, not when it loads from the cache); ``done`` is what a listener calls, and
    what a test calls with a fake list of kernels. Use it as a context manager, or
    ``start()`` to listen for the rest of the process."""

    def __init__(self, names: list[str] | None, stream: TextIO | None = None, bar: bool | None = None) -> None:
        self.total = None if names is None else len(set(names))
        self.expected = None if names is None else set(names)
        self.stream = stream or sys.stderr
        self.finished: list[str] = []
        if bar is None:
            bar = bool(getattr(self.stream, "isatty", lambda: False)())
        self._bar = None
        if bar:
            from tqdm import tqdm

            self._bar = tqdm(total=self.total, desc="compiling the engine", unit="kernel", file=self.stream,
                             leave=False)
        self._listener: Any = None

    def done(self, name: str) -> None:
        """Kernel ``name`` finished compiling: count it (once) and report."""
        if name in self.finished or (self.expected is not None and name not in self.expected):
            return
        self.finished.append(name)
        if self._bar is not None:
            self._bar.update(1)
            self._bar.set_postfix_str(name)
            return
        count = f"kernel {len(self.finished)}" if self.total is None else f"{len(self.finished)}/{self.total} kernels"
        print(f"compiling the engine: {count} ({name})", file=self.stream, flush=True)

    def start(self) -> "CompileProgress":
        from numba.core import event

        progress = self

        class _Listener(event.Listener):
            def on_start(self, ev: Any) -> None:
                pass

            def on_end(self, ev: Any) -> None:
                func = getattr((ev.data or {}).get("dispatcher"), "py_func", None)
                if func is not None:
                    progress.done(func.__name__)

        self._listener = _Listener()
        event.register("numba:compile", self._listener)
        return self

    def stop(self) -> None:
        from numba.core import event

        if self._listener is not None:
            event.unregister("numba:compile", self._listener)
            self._listener = None
        if self._bar is not None:
            self._bar.close()

    def __enter__(self) -> "CompileProgress":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
