"""Random numbers for the kernels: splitmix64 on an explicit one-slot ``uint64`` array, so a
seed reproduces a game, a search and a deal exactly, on any thread.
"""

import numpy as np

from .jit import njit


@njit(cache=True)
def rng_next(rng):
    """splitmix64 step on an explicit one-slot uint64 state array."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def rng_below(rng, n):
    """Uniform integer in [0, n) (n < 2**32), by multiply-shift."""
    return np.int64(((rng_next(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, nrt=True)
def game_seed(seed, index):
    """The seed of game ``index`` of a run seeded ``seed``: one splitmix64 mix of both, so
    any game of a run can be replayed on its own."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed) ^ (np.uint64(index) * np.uint64(0xD1B54A32D192ED03))
    return rng_next(rng)


@njit(cache=True)
def seed_rng_into(rng, seed, stream):
    """Set the one-slot ``rng`` to the generator state of stream ``stream`` of the user's
    ``seed``. It writes into the caller's array rather than making one: a kernel that
    makes an array needs Numba's reference counting, whose set-up costs a warm start more
    than all the rest of this kernel's loading."""
    rng[0] = np.uint64(seed) ^ (np.uint64(stream + 1) * np.uint64(0x9E3779B97F4A7C15))
    rng_next(rng)


def seed_rng(seed, stream):
    """A generator state for stream ``stream`` of the user's ``seed`` (a ``np.uint64``; one
    stream per thread)."""
    rng = np.empty(1, dtype=np.uint64)
    seed_rng_into(rng, np.uint64(seed), np.int64(stream))
    return rng
