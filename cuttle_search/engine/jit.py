"""The engine's one ``njit``: Numba's, with on-disk caching when a cache place is writable.

Kernels write ``@njit(cache=True)`` as usual; ``CACHE`` (set by the engine package before
any kernel module loads) turns the on-disk cache off where nothing is writable, so a
read-only install compiles in memory instead of failing with "no locator"."""

from __future__ import annotations

import numba

CACHE = True


def njit(*args, cache: bool = True, **kwargs):
    """``numba.njit`` with ``cache`` honoured only where a cache directory is writable."""
    return numba.njit(*args, cache=cache and CACHE, **kwargs)
