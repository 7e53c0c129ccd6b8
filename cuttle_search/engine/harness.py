"""Whole games at kernel speed: uniform random playouts, seeded batches of random games
(with or without the invariant checks at every ply) and perft.
"""

import numpy as np

from .jit import njit
from .apply import apply_move
from .layout import F_PHASE, F_STATUS, F_WINNER, PH_OVER, R_ACTION_LIMIT, copy_into
from .movegen import generate_moves, moves_overflowed
from .rng import game_seed, rng_below
from .setup import check_invariants, deal


@njit(cache=True)
def playout(s, r, rng, buf):
    """Play uniformly random moves until the game ends; return the number of plies."""
    plies = 0
    while s[F_PHASE] != PH_OVER:
        n = generate_moves(s, r, buf)
        apply_move(s, r, buf[rng_below(rng, n)])
        plies += 1
    return plies


@njit(cache=True, nrt=True)
def random_games(r, seed, first, games, s, buf, results):
    """Deal and play games ``first .. first + games - 1`` of the run seeded ``seed``; fill
    results[g] = (plies, status, winner). Returns the total number of plies."""
    rng = np.empty(1, dtype=np.uint64)
    total = 0
    for g in range(games):
        rng[0] = game_seed(seed, first + g)
        deal(s, r, rng)
        plies = playout(s, r, rng, buf)
        results[g, 0] = plies
        results[g, 1] = s[F_STATUS]
        results[g, 2] = s[F_WINNER]
        total += plies
    return total


@njit(cache=True)
def perft(states, bufs, r, depth, level):
    """Number of move sequences of length ``depth - level`` from ``states[level]``."""
    s = states[level]
    if level == depth:
        return 1
    if s[F_PHASE] == PH_OVER:
        return 0
    n = generate_moves(s, r, bufs[level])
    if level + 1 == depth:
        return n
    total = 0
    child = states[level + 1]
    for i in range(n):
        copy_into(child, s)
        apply_move(child, r, bufs[level][i])
        total += perft(states, bufs, r, depth, level + 1)
    return total


@njit(cache=True, nrt=True)
def checked_random_games(r, seed, first, games, s, buf, results):
    """Random games (numbered as in ``random_games``) that check the state after every
    move. results[g] = (plies, status, winner, first error code, error ply, a hash of the
    game). Returns the number of games with an error."""
    rng = np.empty(1, dtype=np.uint64)
    bad = 0
    for g in range(games):
        rng[0] = game_seed(seed, first + g)
        deal(s, r, rng)
        h = np.uint64(1469598103934665603)
        plies = 0
        err = check_invariants(s, r)
        err_ply = -1 if err == 0 else 0
        while s[F_PHASE] != PH_OVER and err == 0:
            n = generate_moves(s, r, buf)
            if n <= 0 or moves_overflowed(buf, n):
                err = 7
                err_ply = plies
                break
            m = buf[rng_below(rng, n)]
            h = (h ^ np.uint64(m)) * np.uint64(1099511628211)
            apply_move(s, r, m)
            plies += 1
            err = check_invariants(s, r)
            if err:
                err_ply = plies
            if plies > 2 * r[R_ACTION_LIMIT]:
                err = 8
                err_ply = plies
        results[g, 0] = plies
        results[g, 1] = s[F_STATUS]
        results[g, 2] = s[F_WINNER]
        results[g, 3] = err
        results[g, 4] = err_ply
        results[g, 5] = np.int64(h >> np.uint64(1))
        if err:
            bad += 1
    return bad
