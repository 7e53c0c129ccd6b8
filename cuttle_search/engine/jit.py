"""The engine's one ``njit``: Numba's, with on-disk caching when a cache place is writable,
and a registry of every kernel so the commands can tell when a first run will compile.

Kernels write ``@njit(cache=True)`` as usual; ``CACHE`` (set by the engine package before
any kernel module loads) turns the on-disk cache off where nothing is writable, so a
read-only install compiles in memory instead of failing with "no locator"."""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

import numba

CACHE = True
KERNELS: list[Any] = []  # every dispatcher made by njit, in definition order


def njit(*args, cache: bool = True, **kwargs):
    """``numba.njit`` with ``cache`` honoured only where a cache directory is writable."""
    made = numba.njit(*args, cache=cache and CACHE, **kwargs)
    if args and callable(args[0]):  # used bare: @njit
        KERNELS.append(made)
        return made

    def register(func):
        dispatcher = made(func)
        KERNELS.append(dispatcher)
        return dispatcher

    return register


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
