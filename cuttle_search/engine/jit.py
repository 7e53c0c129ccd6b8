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
keeps NRT (correct, only slower)."""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

import numba
from numba.core.cpu import CPUTargetOptions

CACHE = True
KERNELS: list[Any] = []  # every dispatcher made by njit, in definition order
COUNTED: set[str] = set()  # the qualified names of the kernels compiled with reference counting


NRT_OPTIONAL = hasattr(CPUTargetOptions, "_nrt")  # Numba's (private) switch for reference counting


def njit(*args, cache: bool = True, nrt: bool = False, **kwargs):
    """``numba.njit`` with ``cache`` honoured only where a cache directory is writable and
    reference counting only with ``nrt`` (see the module docstring)."""
    if NRT_OPTIONAL:
        kwargs["_nrt"] = nrt
    made = numba.njit(*args, cache=cache and CACHE, **kwargs)
    if args and callable(args[0]):  # used bare: @njit
        KERNELS.append(made)
        if nrt:
            COUNTED.add(_name(args[0]))
        return made

    def register(func):
        dispatcher = made(func)
        KERNELS.append(dispatcher)
        if nrt:
            COUNTED.add(_name(func))
        return dispatcher

    return register


def _name(func: Any) -> str:
    return f"{func.__module__}.{func.__qualname__}"


def _cached(dispatcher: Any) -> bool:
    try:
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except AttributeError:  # not cached (in-memory compilation) or other Numba internals
        return False


def uncached_kernels() -> list[str]:
    """Names of the kernels with no compiled code on disk yet (all of them in memory-only
    mode): a command that calls one will compile it first."""
    return [d.py_func.__name__ for d in KERNELS if not (CACHE and _cached(d))]


_warned = False


def warn_if_compiling(stream: TextIO | None = None) -> bool:
    """Say once per process, on ``stream``, that the engine is about to compile; returns
    whether it said so."""
    global _warned
    if _warned or not uncached_kernels():
        return False
    _warned = True
    where = "first run only" if CACHE else "no writable cache directory, so on every run"
    print(f"compiling the engine ({where}; up to a minute)…", file=stream or sys.stderr, flush=True)
    return True
