"""An exact solver for perfect-information positions: negamax with alpha-beta pruning and a
transposition table, over the engine's own ``generate_moves`` / ``apply_move`` and win check.

Nothing of the rules is written here: a node's moves come from ``generate_moves``, its
children from ``apply_move`` on a copy, and the end of the game (a win, three passes, the
action cap) from the status ``apply_move`` sets. The caller (``cuttle_search.analysis.solve``)
checks that the position has no hidden cards and allocates every buffer.

Values and the two passes
=========================
A value is a float from the point of view of one seat, the node's *seat*: the actor of a
decision, or the turn player at a chance node. Negamax negates a child's value only when
the seat changes: in counter phases the actor is not the turn player, so a 2 answered by a
2 keeps the same seat two levels down. Values come in two scorings, one per pass (``tb``):

- ``tb = 0``, win/draw/loss: a won game is worth ``WIN`` to its winner, ``-WIN`` to the
  loser, ``0`` for a draw (three passes or the action cap). ``solve`` proves every root
  move with this scoring first: three values prune far better than exact lengths.
- ``tb = 1``, with the tie-break: a game that ends with ``F_ACTIONS == a`` is worth
  ``WIN - a`` to its winner and ``-(WIN - a)`` to the loser, so a sooner win is worth more
  and a later loss less. ``solve`` then searches each won (lost) root move with a window
  that holds only wins (losses), which finds its plies under best play. The value of a
  line depends only on where it ends, not where the search started, so the table stores
  values as they are. ``WIN = 2**44`` keeps the action count exact in a double.

A ``four=random`` 4 is a chance node (``PH_FOUR_RANDOM``, actor ``ACTOR_CHANCE``): its value
is the mean over its equally likely outcomes, each searched with the full window. With
``tb = 0`` that mean is exact: ``WIN`` only when every outcome wins, ``-WIN`` only when
every outcome loses, otherwise ``(P(win) - P(loss)) * WIN`` (``solve`` reports it as an
expected score).

Transposition table and the two stalemates
==========================================
The table has ``2**k`` slots indexed by the low bits of a 64-bit Zobrist-style key; each
slot is one row: the full key, the value, the best move, the bound (exact, lower, upper)
with the pass it belongs to (a generation: entries of the other pass are ignored, so the
table is never cleared), the action count it was found at and the depth of the search
behind it (the longest line searched below it). A new result always replaces the old one.
The key mixes every state field a rule reads, each with its own random constant, and XORs
them: the phase, turn, actor, the pending one-off and counter chain, discards, revealed
cards, the pending scuttle, the scrap, the deck (count and order), the jacks, each seat's
hand, points, royals, owned cards and frozen card, and the consecutive passes
(``F_PASSES``: the three-pass stalemate depends on them). Left out are the fields no rule
reads: the turn counter, which hand cards are public and how many deck cards are known.

The action count (``F_ACTIONS``, for the 1,000-action cap) is handled per pass:

- With the tie-break (``tb = 1``) the key includes it: the scores depend on the absolute
  count, so an entry is exact only at its own count. Two lines of different lengths never
  share an entry; the usual transpositions (the same moves in another order) have the same
  count, since every move adds exactly one action, and still meet.
- Without it (``tb = 0``) the key leaves it out, and an entry found at count ``a`` with
  search depth ``d`` is trusted at count ``a'`` when ``a' == a``, or when
  ``max(a, a') + d < R_ACTION_LIMIT``: then no line it searched reached the cap from either
  count, every one of them ends the same way, and so the value or bound holds at both.

Positions with a cycle (a 3 that takes a 3 back, ``three-takes-three``) are still solved
exactly: the cycle ends at the cap, which the search follows; the depth is bounded by
``R_ACTION_LIMIT - F_ACTIONS``, which sizes the per-ply buffers. Such positions can be slow.

Budgets
=======
``ctl`` holds the node count, the node budget, an abort flag and a stop flag. The search
checks the budget and the stop flag every ``CHECK_EVERY`` nodes; the Python layer sets the
stop flag from a timer thread for a time budget (the kernel releases the GIL). An aborted
search stores nothing more and unwinds; root moves solved before the abort keep their
exact values.
"""

import numpy as np

from .jit import njit
from .apply import apply_move
from .layout import (
    ACTOR_CHANCE,
    F_ACTIONS,
    F_ACTOR,
    F_CHAIN_TOP,
    F_DECK,
    F_DECK_N,
    F_DISCARDS,
    F_FACE,
    F_FROZEN,
    F_HAND,
    F_JACK_BY,
    F_JACK_LEVEL,
    F_JACK_ON,
    F_NTWOS,
    F_ONEOFF,
    F_ONEOFF_PLAYER,
    F_ONEOFF_TARGET,
    F_OWNED,
    F_PASSES,
    F_PHASE,
    F_POINTS,
    F_REVEALED,
    F_SCRAP,
    F_SCUTTLE_CARD,
    F_SCUTTLE_TARGET,
    F_STATUS,
    F_TURN,
    F_TWOS,
    F_WINNER,
    MT_MASK,
    MT_PASS,
    PH_OVER,
    popcount,
    R_ACTION_LIMIT,
    ST_WIN,
)
from .movegen import generate_moves
from .table import points_total

WIN = float(2**44)
INF = float(2**50)

# table entries: one row of four 64-bit words per slot, seen through three views of the
# same buffer (tt_u: uint64, tt_f: float64, tt_i: int64), so a probe touches one place
TT_KEY, TT_VALUE, TT_MOVE, TT_FLAG, TT_ACTIONS, TT_DEPTH = 0, 1, 2, 3, 4, 5
TT_WORDS = 6
# the flag word is generation * 4 + bound; a zero word is an empty slot, and an entry of
# another generation (the other pass of solve) is ignored, so no pass clears the table
TT_EXACT = 1
TT_LOWER = 2
TT_UPPER = 3

# ctl slots
CTL_NODES = 0
CTL_BUDGET = 1  # node budget; <= 0 for none
CTL_ABORTED = 2
CTL_STOP = 3  # set by another thread to stop (a time budget)
CTL_SIZE = 4
CHECK_EVERY = 1023  # nodes between two looks at the budget (a mask: 2**k - 1)

SORT_LIMIT = 256  # order the moves of a node with at most this many (larger: the TT move first only)

# the state fields a rule reads (two seats)
HASH_FIELDS = np.array(
    [F_PHASE, F_TURN, F_ACTOR, F_PASSES, F_ONEOFF, F_ONEOFF_TARGET, F_ONEOFF_PLAYER, F_TWOS, F_NTWOS,
     F_CHAIN_TOP, F_DISCARDS, F_REVEALED, F_SCUTTLE_CARD, F_SCUTTLE_TARGET, F_SCRAP, F_DECK_N]
    + [F_JACK_ON + j for j in range(4)] + [F_JACK_BY + j for j in range(4)] + [F_JACK_LEVEL + j for j in range(4)]
    + [f + p for f in (F_HAND, F_POINTS, F_FACE, F_OWNED, F_FROZEN) for p in range(2)],
    dtype=np.int64,
)
_ZRNG = np.random.default_rng(0x5EED_C0DE)
HASH_KEYS = _ZRNG.integers(0, 2**63, size=len(HASH_FIELDS), dtype=np.int64).astype(np.uint64)
DECK_KEYS = _ZRNG.integers(0, 2**63, size=64, dtype=np.int64).astype(np.uint64)
ACTIONS_KEY = np.uint64(_ZRNG.integers(0, 2**63, dtype=np.int64))


@njit(cache=True)
def _mix(x):
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xFF51AFD7ED558CCD)
    x ^= x >> np.uint64(29)
    x *= np.uint64(0xC4CEB9FE1A85EC53)
    x ^= x >> np.uint64(32)
    return x


@njit(cache=True)
def state_key(s, with_actions):
    """The 64-bit transposition key of a state (see the module docstring); the action
    count is part of it only ``with_actions``."""
    h = np.uint64(0)
    if with_actions:
        h = _mix(np.uint64(s[F_ACTIONS]) ^ ACTIONS_KEY)
    for i in range(HASH_FIELDS.shape[0]):
        h ^= _mix(np.uint64(s[HASH_FIELDS[i]]) ^ HASH_KEYS[i])
    for i in range(s[F_DECK_N]):
        h ^= _mix(np.uint64(s[F_DECK + i]) ^ DECK_KEYS[i])
    return h


@njit(cache=True)
def node_seat(s):
    """The seat a node's value is seen from: the actor, or the turn player at chance."""
    a = s[F_ACTOR]
    return s[F_TURN] if a == ACTOR_CHANCE else a


@njit(cache=True)
def terminal_value(s, seat, tb):
    """The value of a finished game for ``seat``; ``tb`` 1 with the tie-break, 0 without."""
    if s[F_STATUS] == ST_WIN:
        v = WIN - s[F_ACTIONS] * tb
        return v if s[F_WINNER] == seat else -v
    return 0.0


@njit(cache=True)
def _material(s, seat):
    o = 1 - seat
    return 16 * (points_total(s, seat) - points_total(s, o)) + 4 * (popcount(s[F_FACE + seat]) - popcount(s[F_FACE + o]))


@njit(cache=True)
def order_moves(s, r, moves, n, order, child, seat, first, stop_at_win):
    """Fill ``order[:n]`` with move indices, best first: the move ``first`` (the table's),
    then by the material after the move, a pass last. Returns the index of a move that
    wins on the spot when ``stop_at_win`` (then nothing is ordered), else -1."""
    for i in range(n):
        m = moves[i]
        child[:] = s
        apply_move(child, r, m)
        if child[F_PHASE] == PH_OVER:
            if child[F_STATUS] == ST_WIN and child[F_WINNER] == seat:
                if stop_at_win:
                    return i
                key = 1 << 21
            else:
                key = -(1 << 20) if child[F_STATUS] == ST_WIN else -(1 << 18)
        elif m == first:
            key = 1 << 21
        elif (m & MT_MASK) == MT_PASS:
            key = -(1 << 16)
        else:
            key = _material(child, seat)
        order[i] = ((key + (1 << 22)) << 12) | i
    if n <= SORT_LIMIT:
        for i in range(1, n):  # insertion sort, descending
            x = order[i]
            j = i - 1
            while j >= 0 and order[j] < x:
                order[j + 1] = order[j]
                j -= 1
            order[j + 1] = x
    else:
        for i in range(n):
            if (order[i] >> 12) - (1 << 22) == 1 << 21:
                x = order[i]
                order[i] = order[0]
                order[0] = x
                break
    for i in range(n):
        order[i] &= 4095
    return -1


# frame slots of the explicit search stack (one row per ply)
FR_ALPHA, FR_BETA, FR_ALPHA0, FR_BEST, FR_TOTAL = 0, 1, 2, 3, 4
FR_FLOATS = 5
FR_BESTMOVE, FR_K, FR_N, FR_SEAT, FR_SLOT, FR_FLIP, FR_CHANCE, FR_DEPTH = 0, 1, 2, 3, 4, 5, 6, 7
FR_INTS = 8


@njit(cache=True)
def _store(tt_u, tt_f, tt_i, slot, key, v, flag, m, gen, actions, depth):
    tt_i[slot, TT_ACTIONS] = actions
    tt_i[slot, TT_DEPTH] = depth
    tt_u[slot, TT_KEY] = key
    tt_f[slot, TT_VALUE] = v
    tt_i[slot, TT_MOVE] = m
    tt_i[slot, TT_FLAG] = gen * 4 + flag


@njit(cache=True)
def _enter(states, bufs, orders, r, ply, alpha, beta, tb, tt_u, tt_f, tt_i, ctl, ff, fi, fkey, out):
    """Open the node ``states[ply]`` with the window (alpha, beta). Returns True when its
    value is already known (a table hit or a win on the spot), written to ``out[0]`` with
    the depth of the search behind it in ``out[1]``; otherwise sets up its frame and
    returns False."""
    s = states[ply]
    seat = node_seat(s)
    key = state_key(s, tb)
    slot = np.int64(key & np.uint64(tt_u.shape[0] - 1))
    first = np.int64(-1)
    gen = tb + 1
    a = s[F_ACTIONS]
    if tt_u[slot, TT_KEY] == key and (tt_i[slot, TT_FLAG] >> 2) == gen and (
        tb or a == tt_i[slot, TT_ACTIONS] or max(a, tt_i[slot, TT_ACTIONS]) + tt_i[slot, TT_DEPTH] < r[R_ACTION_LIMIT]
    ):
        v = tt_f[slot, TT_VALUE]
        f = tt_i[slot, TT_FLAG] & 3
        if f == TT_EXACT or (f == TT_LOWER and v >= beta) or (f == TT_UPPER and v <= alpha):
            out[0] = v
            out[1] = tt_i[slot, TT_DEPTH]
            return True
        first = tt_i[slot, TT_MOVE]
    moves = bufs[ply]
    n = generate_moves(s, r, moves)
    order = orders[ply]
    chance = s[F_ACTOR] == ACTOR_CHANCE
    if chance:
        for i in range(n):
            order[i] = i
    else:
        win = order_moves(s, r, moves, n, order, states[ply + 1], seat, first, True)
        if win >= 0:  # no line can end sooner than a win on the spot
            v = WIN - (s[F_ACTIONS] + 1) * tb
            _store(tt_u, tt_f, tt_i, slot, key, v, TT_EXACT, moves[win], gen, a, 1)
            out[0] = v
            out[1] = 1
            return True
    ff[ply, FR_ALPHA] = alpha
    ff[ply, FR_BETA] = beta
    ff[ply, FR_ALPHA0] = alpha
    ff[ply, FR_BEST] = -INF
    ff[ply, FR_TOTAL] = 0.0
    fi[ply, FR_BESTMOVE] = moves[order[0]]
    fi[ply, FR_K] = 0
    fi[ply, FR_N] = n
    fi[ply, FR_SEAT] = seat
    fi[ply, FR_SLOT] = slot
    fi[ply, FR_CHANCE] = 1 if chance else 0
    fi[ply, FR_DEPTH] = 0
    fkey[ply] = key
    return False


@njit(cache=True, nogil=True)
def negamax(states, bufs, orders, r, ply0, alpha, beta, tb, tt_u, tt_f, tt_i, ctl, ff, fi, fkey):
    """The value of ``states[ply0]`` (a position that is not over) for its seat: exact when
    strictly inside (alpha, beta), otherwise a bound on the side it fell (fail-soft).

    An explicit stack (``ff``/``fi``/``fkey``, one row per ply) instead of recursion: Numba's
    cache does not load recursive functions safely, and the depth can reach the action cap.
    A chance node searches every outcome with the full window and takes the mean."""
    out = np.zeros(2, dtype=np.float64)
    ply = ply0
    ctl[CTL_NODES] += 1
    if _enter(states, bufs, orders, r, ply, alpha, beta, tb, tt_u, tt_f, tt_i, ctl, ff, fi, fkey, out):
        return out[0]
    have = False  # a child's value (for this frame's seat) waits in ``res``, its depth in ``resd``
    res = 0.0
    resd = 0
    while True:
        done = False
        if have:
            have = False
            if resd + 1 > fi[ply, FR_DEPTH]:
                fi[ply, FR_DEPTH] = resd + 1
            if fi[ply, FR_CHANCE]:
                ff[ply, FR_TOTAL] += res
            elif res > ff[ply, FR_BEST]:
                ff[ply, FR_BEST] = res
                fi[ply, FR_BESTMOVE] = bufs[ply][orders[ply][fi[ply, FR_K] - 1]]
                if res > ff[ply, FR_ALPHA]:
                    ff[ply, FR_ALPHA] = res
                    if res >= ff[ply, FR_BETA]:
                        done = True
        if done or fi[ply, FR_K] == fi[ply, FR_N]:
            # the node is finished: its value, stored, goes to the parent
            slot = fi[ply, FR_SLOT]
            if fi[ply, FR_CHANCE]:
                v = ff[ply, FR_TOTAL] / fi[ply, FR_N]
                _store(tt_u, tt_f, tt_i, slot, fkey[ply], v, TT_EXACT, -1, tb + 1, states[ply][F_ACTIONS],
                       fi[ply, FR_DEPTH])
            else:
                v = ff[ply, FR_BEST]
                if v <= ff[ply, FR_ALPHA0]:
                    flag = TT_UPPER
                elif v >= ff[ply, FR_BETA]:
                    flag = TT_LOWER
                else:
                    flag = TT_EXACT
                _store(tt_u, tt_f, tt_i, slot, fkey[ply], v, flag, fi[ply, FR_BESTMOVE], tb + 1, states[ply][F_ACTIONS],
                       fi[ply, FR_DEPTH])
            if ply == ply0:
                return v
            resd = fi[ply, FR_DEPTH]
            ply -= 1
            res = -v if fi[ply, FR_FLIP] else v
            have = True
            continue
        # the next child
        s = states[ply]
        k = fi[ply, FR_K]
        fi[ply, FR_K] = k + 1
        m = bufs[ply][orders[ply][k]]
        child = states[ply + 1]
        child[:] = s
        apply_move(child, r, m)
        ctl[CTL_NODES] += 1
        if (ctl[CTL_NODES] & CHECK_EVERY) == 0:
            if ctl[CTL_STOP] != 0 or (ctl[CTL_BUDGET] > 0 and ctl[CTL_NODES] >= ctl[CTL_BUDGET]):
                ctl[CTL_ABORTED] = 1
                return 0.0  # nothing more is stored; the caller sees the flag
        seat = fi[ply, FR_SEAT]
        if child[F_PHASE] == PH_OVER:
            res = terminal_value(child, seat, tb)
            resd = 0
            have = True
            continue
        flip = node_seat(child) != seat
        fi[ply, FR_FLIP] = 1 if flip else 0
        if fi[ply, FR_CHANCE]:
            ca, cb = -INF, INF
        elif flip:
            ca, cb = -ff[ply, FR_BETA], -ff[ply, FR_ALPHA]
        else:
            ca, cb = ff[ply, FR_ALPHA], ff[ply, FR_BETA]
        if _enter(states, bufs, orders, r, ply + 1, ca, cb, tb, tt_u, tt_f, tt_i, ctl, ff, fi, fkey, out):
            res = -out[0] if flip else out[0]
            resd = np.int64(out[1])
            have = True
            continue
        ply += 1


@njit(cache=True)
def root_moves(states, orders, r, moves):
    """The legal moves of ``states[0]`` into ``moves``, in search order; returns how many."""
    s = states[0]
    n = generate_moves(s, r, moves)
    order = orders[0]
    order_moves(s, r, moves, n, order, states[1], node_seat(s), -1, False)
    tmp = orders[1]
    for i in range(n):
        tmp[i] = moves[order[i]]
    for i in range(n):
        moves[i] = tmp[i]
    return n


@njit(cache=True, nogil=True)
def solve_moves(states, bufs, orders, r, moves, n, lo, hi, tb, values, done,
                tt_u, tt_f, tt_i, ctl, ff, fi, fkey):
    """Search every root move ``moves[i]`` of ``states[0]`` not yet ``done`` with the window
    (lo[i], hi[i]) for the actor; ``values[i]`` gets the value (exact when inside the window)
    and ``done[i]`` 1, until a budget runs out (``ctl[CTL_ABORTED]``)."""
    s = states[0]
    seat = node_seat(s)
    child = states[1]
    for i in range(n):
        if done[i]:
            continue
        child[:] = s
        apply_move(child, r, moves[i])
        ctl[CTL_NODES] += 1
        if child[F_PHASE] == PH_OVER:
            v = terminal_value(child, seat, tb)
        elif node_seat(child) == seat:
            v = negamax(states, bufs, orders, r, 1, lo[i], hi[i], tb, tt_u, tt_f, tt_i, ctl, ff, fi, fkey)
        else:
            v = -negamax(states, bufs, orders, r, 1, -hi[i], -lo[i], tb, tt_u, tt_f, tt_i, ctl, ff, fi, fkey)
        if ctl[CTL_ABORTED] != 0:
            break
        values[i] = v
        done[i] = 1


@njit(cache=True)
def principal_line(s, r, buf, tt_u, tt_f, tt_i, gen, out):
    """Follow the table's exact best moves of generation ``gen`` (the pass: 1 without the
    tie-break, 2 with it) from ``s`` (changed in place); write them to
    ``out`` and return how many. Stops at the end, a chance node, or a missing entry."""
    k = 0
    while k < out.shape[0] and s[F_PHASE] != PH_OVER and s[F_ACTOR] != ACTOR_CHANCE:
        key = state_key(s, gen - 1)
        slot = np.int64(key & np.uint64(tt_u.shape[0] - 1))
        if tt_u[slot, TT_KEY] != key or tt_i[slot, TT_FLAG] != gen * 4 + TT_EXACT:
            break
        m = tt_i[slot, TT_MOVE]
        n = generate_moves(s, r, buf)
        legal = False
        for i in range(n):
            if buf[i] == m:
                legal = True
                break
        if not legal:
            break
        apply_move(s, r, m)
        out[k] = m
        k += 1
    return k
