"""Numba kernels of the information-set MCTS (single observer, Cowling, Powley and
Whitehouse 2012).

One tree of the viewer's information sets, stored as flat arrays (a ``Tree``, see
``cuttle_search.analysis.tree``), one entry per node; a node is reached by one move from its
parent. Every iteration draws a fresh determinization of the root (the cards the viewer
cannot see dealt at random into the slots they could be in, narrowed by an inference
when the caller has one), then selects with UCB over the moves legal in that
determinization, using availability counts, expands one node, rolls out to the end of
the game and backs up the result. Below the root, a move that
wins on the spot (points, a King or a Jack that meets the goal) is always taken when it is
legal: a "decisive move", true in every determinization, which lets a losing line read as
lost from its first visits.

Node fields (one array each, indexed by node), 34 bytes a node::

    move      int64   the move that leads here from the parent
    mover     int8    seat that chose the move (-1 for a chance outcome)
    visits    int32
    avail     int32   iterations in which the move was legal when the parent was visited
    wins      int32   rollouts the mover (or its partner) won
    draws     int32   rollouts that ended in a stalemate
    first     int32   first (newest) child, or -1; ``-2 - at`` when the node has an index
                      at pool slot ``at`` (its first child then sits in the index's header)
    sibling   int32   next sibling, or -1
    proven    int8    MCTS-Solver: 1 a proven win for the mover, -1 a proven loss, 0 unknown

A node with ``INDEX_MIN_CHILDREN`` children or more (an opponent's node, whose children
are the moves of every hand the determinizations dealt it) also gets an index of them by
move: an open-addressing table in a shared int32 pool (``pool``, after the node arrays):
a header (the size's bits, the entries, the first child) and slots that hold only a child
(a probe compares the child's own ``move``), at most ``INDEX_LOAD_QUARTERS`` full. So the
selection finds the legal children with one probe a legal move instead of walking every
child, and a draw (chance, a seat played at random) finds its child with one probe. It
gives exactly the choices of the walk (ties go to the newest child either way); the
children's list stays (``first_child`` reads its head either way), so a node the pool had
no room for just walks. Outgrown indexes lie unused until the tree grows or the pool is
short, when the pool is packed.

``meta`` holds [nodes in use, iterations done, pool slots in use, the largest index]. A
kernel call stops early when the node arrays or the pool are nearly full; the caller grows
them and calls again, and the search goes on exactly as if nothing had happened.

``seat_wins`` (``MAX_MOVES`` x ``MAX_PLAYERS`` int32, after ``meta``) is the one root-only
statistic: row ``i`` is the root's ``i``-th child in order of creation (the oldest is row 0;
the children's list runs newest first, and growing the tree keeps their order), column
``q`` the rollouts below it that seat ``q``'s side won. Kept with more than two seats only
(with two, the viewer's wins and the opponent's are ``wins`` and ``visits - wins - draws``).

The opponent model (``model``) says what every seat's node maximises:

* ``MODEL_MAXN`` (the default): each seat its own result (max-n); a stalemate is worth
  1/n to every seat;
* ``MODEL_PARANOID``: every seat not on the viewer's side minimises the viewer's result
  (Sturtevant's paranoid search): an opponent's node counts the viewer's losses as its wins
  and a stalemate as ``1 - 1/n``. With two seats it is the same search as max-n;
* ``MODEL_RANDOM``: the viewer's opponents play uniformly random moves, in the tree (their
  nodes are drawn like chance, never chosen by UCB) and in the rollouts. A model for a
  known random opponent, and a way to measure what such opponents leave to luck.
"""

import numpy as np

from .jit import njit
from .noref import borrow, prefetch
from .apply import apply_move
from .info import determinize
from .layout import (
    ACTOR_CHANCE,
    F_ACTOR,
    F_NPLAYERS,
    F_PHASE,
    F_STATUS,
    F_WINNER,
    MAX_MOVES,
    PH_MAIN,
    PH_OVER,
    PH_SEVEN,
    R_RESHUFFLE,
    ST_WIN,
)
from .movegen import generate_moves
from .policies import first_win, greedy_values, rollout
from .rng import rng_below
from .seats import opponent, same_side, sides


MAX_PATH = 2100  # longer than any game (the 1,000-action limit) plus the root
# the per-visit move lookup: a scan up to this many legal moves, else a table of 2^bits
# slots, at least twice the moves (measured in isolation: the scan is as fast up to about a
# dozen moves, and the table several times faster beyond)
LOOKUP_SCAN_MAX = 16
LOOKUP_SLOTS = 2 * MAX_MOVES
LOOKUP_MIN_BITS = 5
LOOKUP_MULTIPLIER = -7046029254386353131  # 0x9E3779B97F4A7C15 (Fibonacci hashing) as an int64
# UCB's log of a child's availability, remembered for counts below this (filled as met: 0.0
# is "not yet", log(1) being 0 anyway); a table lookup instead of a call to log
LOG_TABLE_SIZE = 1 << 16
META_NODES = 0
META_ITERATIONS = 1
META_POOL = 2  # slots of the index pool in use
META_POOL_LARGEST = 3  # the largest index (header included) so far
# a node with this many children gets an index of them by move, in the pool: a header (its
# size's bits, its entries, its first child) then open-addressing slots holding children,
# at most INDEX_LOAD_QUARTERS full (rebuilt twice the size when it would pass that); 14, not
# 12: 1.8 bytes a node less at 1 M iterations of opening-p0 (40.5 -> 38.7), the rate the same
# within 1.5% (docs/search.md, "More seats again")
INDEX_MIN_CHILDREN = 14
INDEX_HEADER = 3
INDEX_FIRST = 2  # the header's slot of the node's first child
INDEX_FIRST_BITS = 5  # 32 slots: room for 24 children
# an index holds at most this many quarters of its slots (three quarters: 2 bytes a node less
# than half, x0.97-0.98 of the rate, the longer probes each loading a child's move)
INDEX_LOAD_QUARTERS = 3
MODEL_MAXN = 0
MODEL_PARANOID = 1
MODEL_RANDOM = 2


@njit(cache=True)
def _new_node(move, parent, mover, t_move, t_mover, t_visits, t_avail, t_wins, t_draws, t_first, t_sibling, pool, meta):
    k = meta[META_NODES]
    meta[META_NODES] = k + 1
    t_move[k] = move
    t_mover[k] = mover
    t_visits[k] = 0
    t_avail[k] = 1
    t_wins[k] = 0
    t_draws[k] = 0
    t_first[k] = -1
    f = t_first[parent]
    if f < -1:  # an indexed parent: its first child is in the index's header
        at = -2 - f
        t_sibling[k] = pool[at + INDEX_FIRST]
        pool[at + INDEX_FIRST] = k
    else:
        t_sibling[k] = f
        t_first[parent] = k
    return k


@njit(cache=True)
def first_child(node, t_first, pool):
    """``node``'s first (newest) child, or -1, indexed or not."""
    f = t_first[node]
    return pool[-2 - f + INDEX_FIRST] if f < -1 else f


@njit(cache=True)
def index_pool_room(meta):
    """The pool slots a kernel call needs free before an iteration: it builds at most one
    index, a first one or one twice the size of the largest so far."""
    return 2 * max(meta[META_POOL_LARGEST], INDEX_HEADER + (1 << INDEX_FIRST_BITS))


@njit(cache=True)
def _index_start(pool, at, move):
    """Where ``move``'s probe starts in the index at pool slot ``at``: (the index's first
    slot, its slot mask, the home slot)."""
    bits = pool[at]
    mask = (1 << bits) - 1
    return at + INDEX_HEADER, mask, ((move * LOOKUP_MULTIPLIER) >> (64 - bits)) & mask


@njit(cache=True)
def _index_put(pool, at, move, child):
    """Enter ``child`` (whose move is ``move``) in the index that starts at pool slot
    ``at`` (which has an empty slot: an index is never full). A node's children have
    distinct moves, so no slot needs comparing."""
    base, mask, h = _index_start(pool, at, move)
    while pool[base + h] >= 0:
        h = (h + 1) & mask
    pool[base + h] = child
    pool[at + 1] += 1


@njit(cache=True)
def _index_find(t_move, pool, at, move):
    """The child under ``move`` in the index that starts at pool slot ``at``, or -1 (a slot
    holds only the child: its move is the child's own)."""
    base, mask, h = _index_start(pool, at, move)
    c = pool[base + h]
    while c >= 0 and t_move[c] != move:
        h = (h + 1) & mask
        c = pool[base + h]
    return c


@njit(cache=True)
def _index_build(node, bits, t_move, t_first, t_sibling, pool, meta):
    """A new index of every child of ``node``: ``2**bits`` slots, or more while the
    children would fill over ``INDEX_LOAD_QUARTERS``. Where the pool has no room the node
    goes without one (the walk of its children finds the same moves). An outgrown index
    lies unused until the tree grows or the pool is packed."""
    first = first_child(node, t_first, pool)
    kids = 0
    c = first
    while c >= 0:
        kids += 1
        c = t_sibling[c]
    while INDEX_LOAD_QUARTERS * (1 << bits) < 4 * kids:
        bits += 1
    size = 1 << bits
    at = meta[META_POOL]
    if at + INDEX_HEADER + size > pool.shape[0]:
        t_first[node] = first
        return
    meta[META_POOL] = at + INDEX_HEADER + size
    if INDEX_HEADER + size > meta[META_POOL_LARGEST]:
        meta[META_POOL_LARGEST] = INDEX_HEADER + size
    pool[at] = bits
    pool[at + 1] = 0
    pool[at + INDEX_FIRST] = first
    for j in range(size):
        pool[at + INDEX_HEADER + j] = -1
    c = first
    while c >= 0:
        _index_put(pool, at, t_move[c], c)
        c = t_sibling[c]
    t_first[node] = -2 - at  # the index complete, then pointed at (a reader sees one or the other)


@njit(cache=True)
def _index_child(node, child, kids, t_move, t_first, t_sibling, pool, meta):
    """``node`` has a new child, its ``kids``-th: enter it in the node's index, starting the
    index when the node has ``INDEX_MIN_CHILDREN`` and doubling it when it would pass
    ``INDEX_LOAD_QUARTERS``."""
    f = t_first[node]
    if f < -1:
        at = -2 - f
        bits = pool[at]
        if 4 * (pool[at + 1] + 1) > INDEX_LOAD_QUARTERS * (1 << bits):
            _index_build(node, bits + 1, t_move, t_first, t_sibling, pool, meta)
        else:
            _index_put(pool, at, t_move[child], child)
    elif kids >= INDEX_MIN_CHILDREN:
        _index_build(node, INDEX_FIRST_BITS, t_move, t_first, t_sibling, pool, meta)


@njit(cache=True)
def pack_indexes(t_first, pool, nodes, rank, new_pool):
    """Copy every node's index into a fresh pool, one after another (dropping the outgrown
    ones), with the children in them renumbered (``rank``: old number to new) and each node
    pointed at its copy; return the slots used. A copy keeps every entry's slot."""
    top = 0
    for k in range(nodes):
        f = t_first[k]
        if f < -1:
            at = -2 - f
            size = 1 << pool[at]
            new_pool[top] = pool[at]
            new_pool[top + 1] = pool[at + 1]
            new_pool[top + INDEX_FIRST] = rank[pool[at + INDEX_FIRST]]
            for j in range(INDEX_HEADER, INDEX_HEADER + size):
                c = pool[at + j]
                new_pool[top + j] = rank[c] if c >= 0 else -1
            t_first[k] = -2 - top
            top += INDEX_HEADER + size
    return top


@njit(cache=True)
def pack_indexes_in_place(t_first, pool, by_start):
    """Move the indexes of the nodes ``by_start`` (every indexed node, in the order of their
    indexes in the pool) down to one after another, dropping the outgrown ones between
    them, and point each node at its index's new place; return the slots used. Each index
    moves to a slot at or below its own, so copying in that order overwrites nothing still
    to be moved, and needs no second pool."""
    top = 0
    for i in range(by_start.shape[0]):
        k = by_start[i]
        at = -2 - t_first[k]
        size = INDEX_HEADER + (1 << pool[at])
        if at != top:
            for j in range(size):
                pool[top + j] = pool[at + j]
            t_first[k] = -2 - top
        top += size
    return top


ROOT_ALL = 0
ROOT_ONLY = 1
ROOT_AVOID = 2


@njit(nogil=True, cache=True)
def _filter_moves(buf, n, listed, keep_listed):
    """Keep, in order, the first ``n`` moves of ``buf`` that are (or, with ``keep_listed``
    false, are not) in ``listed``; return how many remain."""
    k = 0
    for i in range(n):
        found = False
        for j in range(listed.shape[0]):
            if buf[i] == listed[j]:
                found = True
                break
        if found == keep_listed:
            buf[k] = buf[i]
            k += 1
    return k


@njit(nogil=True, cache=True)
def ismcts_iterate(game, deal, tree, work, iterations, rng, exploration, policy, root_filter, solver, model, widen):
    """Run up to ``iterations`` ISMCTS iterations on the tree; return how many ran (fewer
    when the node arrays or the index pool are nearly full). Node 0 is the root.

    The arguments come in records (tuples) so that callers cannot misorder them:

    * ``game``: ``(root, r, viewer)``, the viewer's root state, the rules array, the viewer;
    * ``deal``: ``(unknown, excluded, fresh)``, what ``info.determinize`` re-deals;
    * ``tree``: the node arrays in the order of the node fields above, then ``meta``,
      ``seat_wins`` and ``pool``;
    * ``work``: scratch arrays ``(s, buf, seen, path, cards, scratch, slot_move, slot_index,
      slot_stamp, stamp, legal_child, legal_index, logs)``: a state, a move buffer, a per-move
      flag buffer, a path of ``MAX_PATH`` nodes, a card list, a second state; the move
      lookup: three arrays of ``LOOKUP_SLOTS`` (int64 move, int32 index into the buffer,
      int64 stamp, all zero at first) and a one-slot int64 stamp counter; the legal
      children of the node being visited with their moves' indices (int32, ``MAX_MOVES``);
      float64 zeros (``LOG_TABLE_SIZE`` of them) where the kernel keeps the logs of
      the availability counts below the table's length as it takes them; and the
      widening's buffers, float64 and bool (``MAX_MOVES`` each);
    * ``root_filter``: ``(root_moves, root_mode)`` restricts the viewer's moves at the
      root: ROOT_ALL (every legal move), ROOT_ONLY (only those in ``root_moves``) or
      ROOT_AVOID (all but those); the caller ensures one remains;
    * ``model``: the opponent model, ``MODEL_MAXN``, ``MODEL_PARANOID`` or ``MODEL_RANDOM``
      (see the module's notes);
    * ``widen``: progressive widening below the root (0.0: off). A decision below the root
      whose node has ``v`` visits considers only the ``1 + floor(log2(1 + v / widen))``
      moves the greedy policy values most in this determinization (``greedy_values``); the
      others are neither tried nor counted available. A young node so plays like the
      rollout, conditioned on the hand the determinization dealt its actor, and opens up
      as its visits grow (Chaslot et al.'s progressive unpruning). Off where the solver
      runs, outside main and 7 decisions, and for the viewer's root.

    When nothing is hidden (``unknown == 0``) and ``solver`` is 1, every node is one state and the MCTS-Solver
    (Winands, Bjornsson and Saito 2008) runs on top: ``t_proven[k]`` is 1 when the state
    after move ``k`` is a proven win for its mover, -1 a proven loss, 0 unknown (draws and
    chance are not proven). A move that ends the game is proven when it is made; a node
    with a child proven to win for its actor is proven won, one whose every legal move is
    proven lost is proven lost (found as selection passes through). Selection never picks
    a proven-losing child while another is left, and a proven-winning child ends the
    selection: the iteration scores that result without a rollout. With hidden cards none
    of this runs and the search is exactly the plain ISMCTS."""
    root, r, viewer = game
    unknown, excluded, fresh = deal
    (t_move, t_mover, t_visits, t_avail, t_wins, t_draws, t_first, t_sibling, t_proven, meta, seat_wins,
     pool) = tree
    (s, buf, seen, path, cards, scratch, slot_move, slot_index, slot_stamp, stamp, legal_child, legal_index, logs,
     values, allowed) = work
    root_moves, root_mode = root_filter
    # views that hold no reference: nothing below counts references (noref.py)
    root, r, rng, root_moves = borrow(root), borrow(r), borrow(rng), borrow(root_moves)
    t_move, t_mover, t_visits, pool = borrow(t_move), borrow(t_mover), borrow(t_visits), borrow(pool)
    t_avail, t_wins, t_draws, t_first = borrow(t_avail), borrow(t_wins), borrow(t_draws), borrow(t_first)
    t_sibling, t_proven, meta, seat_wins = borrow(t_sibling), borrow(t_proven), borrow(meta), borrow(seat_wins)
    s, buf, seen, path, cards, scratch = borrow(s), borrow(buf), borrow(seen), borrow(path), borrow(cards), borrow(scratch)
    slot_move, slot_index, slot_stamp, stamp = borrow(slot_move), borrow(slot_index), borrow(slot_stamp), borrow(stamp)
    legal_child, legal_index, logs = borrow(legal_child), borrow(legal_index), borrow(logs)
    values, allowed = borrow(values), borrow(allowed)
    cap = t_move.shape[0]
    pool_cap = pool.shape[0]
    n_logs = logs.shape[0]
    done = 0
    # the MCTS-Solver's proofs are two-sided: a node every move of which loses is won by the
    # one opponent, so it runs with two seats only
    solver_on = unknown == 0 and solver != 0 and root[F_NPLAYERS] == 2 and r[R_RESHUFFLE] == 0
    n_seats = root[F_NPLAYERS]
    draw_share = 1.0 / sides(root, r)  # a stalemate shares the game among the sides
    paranoid = model == MODEL_PARANOID
    while done < iterations:
        if meta[META_NODES] + 2 > cap or meta[META_POOL] + index_pool_room(meta) > pool_cap:
            break
        determinize(root, s, unknown, viewer, rng, cards, excluded, fresh)
        node = 0
        depth = 0
        path[0] = 0
        forced = -1  # with the solver: the winner of a proven node where the selection stopped
        while s[F_PHASE] != PH_OVER:
            # in a large tree the node's children are far from the cache: ask for their
            # lines now, and generate the moves while they come
            c = t_first[node]
            if c >= 0:
                prefetch(t_move, c)
                prefetch(t_sibling, c)
                prefetch(t_visits, c)
                prefetch(t_avail, c)
                prefetch(t_wins, c)
                prefetch(t_draws, c)
            elif c < -1:
                prefetch(pool, -2 - c)
            n = generate_moves(s, r, buf)
            if depth == 0 and root_mode != ROOT_ALL:
                n = _filter_moves(buf, n, root_moves, root_mode == ROOT_ONLY)
            actor = s[F_ACTOR]
            drawn = actor == ACTOR_CHANCE or (model == MODEL_RANDOM and not same_side(s, r, actor, viewer))
            if drawn:  # chance, or a seat the model plays at random: a uniform move
                m = buf[rng_below(rng, n)]
                kids = 0
                c = t_first[node]
                if c < -1:
                    c = _index_find(t_move, pool, -2 - c, m)
                else:
                    while c >= 0 and t_move[c] != m:
                        kids += 1
                        c = t_sibling[c]
                apply_move(s, r, m)
                if c < 0:
                    c = _new_node(m, node, actor, t_move, t_mover, t_visits, t_avail, t_wins, t_draws, t_first, t_sibling, pool, meta)
                    t_proven[c] = 0
                    _index_child(node, c, kids + 1, t_move, t_first, t_sibling, pool, meta)
                    depth += 1
                    path[depth] = c
                    break
                depth += 1
                path[depth] = c
                node = c
                continue
            # decisive moves: below the root, a move that wins on the spot is always taken
            # (the root keeps estimating every move of the viewer)
            decisive = first_win(s, r, actor, buf, n) if depth > 0 else -1
            # progressive widening: the legal moves narrowed, in order, to the greedy
            # policy's favourites, more of them as the node's visits grow
            if widen > 0.0 and depth > 0 and decisive < 0 and not solver_on and n > 1:
                ph = s[F_PHASE]
                if ph == PH_MAIN or ph == PH_SEVEN:
                    # (an overflow to inf is no narrowing, not a cast of inf to an int)
                    grown = np.log2(1.0 + t_visits[node] / widen)
                    if grown < n - 1:
                        width = 1 + int(grown)
                        greedy_values(s, r, buf, n, values, scratch)
                        for i in range(n):
                            allowed[i] = False
                        for _ in range(width):  # the best of the rest, the earliest on ties
                            top = -1
                            for i in range(n):
                                if not allowed[i] and (top < 0 or values[i] > values[top]):
                                    top = i
                            allowed[top] = True
                        kept = 0
                        for i in range(n):
                            if allowed[i]:
                                buf[kept] = buf[i]
                                kept += 1
                        n = kept
            # first, which children are legal in this determinization, and their moves'
            # indices: with few moves, a scan that stops at a sentinel copy of the child's move
            # past them; with many, a small open-addressing table of the moves (stamped per
            # visit, so never cleared), one probe a child: O(children + moves). A repeated move
            # keeps its first index. A node with many children has an index of them by move
            # instead: one probe a legal move, O(moves). Ties go to the newest child.
            k = 0
            kids = 0  # the node's children (counted by the scans; an index keeps its count)
            c = t_first[node]
            if c < -1:  # indexed (the first child is in the index's header)
                at = -2 - c
                kids = pool[at + 1]
                for i in range(n):
                    c = _index_find(t_move, pool, at, buf[i])
                    if c >= 0:
                        legal_child[k] = c
                        legal_index[k] = i
                        k += 1
            elif n <= LOOKUP_SCAN_MAX:  # n < MAX_MOVES, so buf[n] is a free slot
                while c >= 0:
                    kids += 1
                    mv = t_move[c]
                    buf[n] = mv
                    i = 0
                    while buf[i] != mv:
                        i += 1
                    if i < n:
                        legal_child[k] = c
                        legal_index[k] = i
                        k += 1
                    c = t_sibling[c]
            else:
                stamp[0] += 1
                g = stamp[0]
                bits = LOOKUP_MIN_BITS
                while (1 << bits) < 2 * n:
                    bits += 1
                mask = (1 << bits) - 1
                shift = 64 - bits
                for i in range(n):
                    mv = buf[i]
                    h = ((mv * LOOKUP_MULTIPLIER) >> shift) & mask
                    while slot_stamp[h] == g and slot_move[h] != mv:
                        h = (h + 1) & mask
                    if slot_stamp[h] != g:
                        slot_stamp[h] = g
                        slot_move[h] = mv
                        slot_index[h] = i
                while c >= 0:
                    kids += 1
                    mv = t_move[c]
                    h = ((mv * LOOKUP_MULTIPLIER) >> shift) & mask
                    while slot_stamp[h] == g and slot_move[h] != mv:
                        h = (h + 1) & mask
                    if slot_stamp[h] == g:
                        legal_child[k] = c
                        legal_index[k] = slot_index[h]
                        k += 1
                    c = t_sibling[c]
            # then UCB over the legal children, in the children's order
            for i in range(n):
                seen[i] = False
            # what a stalemate is worth to the actor (paranoid: an opponent of the viewer
            # scores the viewer's loss, so what the viewer does not get)
            ds = draw_share
            if paranoid and not same_side(s, r, actor, viewer):
                ds = 1.0 - draw_share
            best = -1
            best_val = -np.inf  # below any value, a proven loss's included (all lost: the most visited)
            lost = 0  # children proven lost for the actor (solver only)
            for j in range(k):
                c = legal_child[j]
                i = legal_index[j]
                seen[i] = True
                t_avail[c] += 1
                v = t_visits[c]
                if decisive >= 0:
                    val = 1.0 if i == decisive else -1.0
                else:
                    a = t_avail[c]
                    if a < n_logs:
                        lg = logs[a]
                        if lg == 0.0:
                            lg = np.log(a)
                            logs[a] = lg
                    else:
                        lg = np.log(a)
                    val = (t_wins[c] + ds * t_draws[c]) / v + exploration * np.sqrt(lg / v)
                if solver_on and t_proven[c] != 0:
                    if t_proven[c] > 0:
                        val = 1e9  # a proven win is always the pick
                    else:
                        val = -1e9 + t_visits[c]  # never, unless every move is lost
                        lost += 1
                if val > best_val or (val == best_val and c > best):  # a tie: the newer child
                    best_val = val
                    best = c
            if decisive >= 0:  # no other move is a candidate, tried or not
                for i in range(n):
                    if i != decisive:
                        seen[i] = True
            untried = 0
            for i in range(n):
                if not seen[i]:
                    untried += 1
            if solver_on and best >= 0 and (t_proven[best] > 0 or (untried == 0 and lost == n)):
                # the node is proven: won through ``best``, or lost whatever the actor plays
                winner = actor if t_proven[best] > 0 else opponent(s, actor)
                if node > 0 and t_mover[node] >= 0:
                    t_proven[node] = 1 if t_mover[node] == winner else -1
                apply_move(s, r, t_move[best])
                depth += 1
                path[depth] = best
                forced = winner
                break
            if untried > 0:
                m = buf[0]
                pick = rng_below(rng, untried)
                for i in range(n):
                    if not seen[i]:
                        if pick == 0:
                            m = buf[i]
                            break
                        pick -= 1
                apply_move(s, r, m)
                c = _new_node(m, node, actor, t_move, t_mover, t_visits, t_avail, t_wins, t_draws, t_first, t_sibling, pool, meta)
                t_proven[c] = 0
                _index_child(node, c, kids + 1, t_move, t_first, t_sibling, pool, meta)
                if solver_on and s[F_PHASE] == PH_OVER and s[F_STATUS] == ST_WIN:
                    t_proven[c] = 1 if s[F_WINNER] == actor else -1
                depth += 1
                path[depth] = c
                break
            prefetch(t_first, best)  # (read at the next node, after the move is played)
            apply_move(s, r, t_move[best])
            depth += 1
            path[depth] = best
            node = best
        if forced >= 0:
            won = True
            winner = forced
        else:
            rollout(s, r, rng, buf, policy, scratch, viewer if model == MODEL_RANDOM else -1)
            won = s[F_STATUS] == ST_WIN
            winner = s[F_WINNER]
        t_visits[0] += 1
        viewer_won = won and same_side(s, r, viewer, winner)
        for d in range(1, depth + 1):
            k = path[d]
            t_visits[k] += 1
            if won:
                mk = t_mover[k]
                if mk >= 0:
                    if paranoid and not same_side(s, r, mk, viewer):
                        if not viewer_won:  # an opponent's node wins whenever the viewer loses
                            t_wins[k] += 1
                    elif same_side(s, r, mk, winner):
                        t_wins[k] += 1
            else:
                t_draws[k] += 1
        if n_seats > 2 and won and depth > 0:
            # the root-only per-seat table: the row of the root child this iteration went through
            row = 0
            c = t_sibling[path[1]]
            while c >= 0:
                row += 1
                c = t_sibling[c]
            for q in range(n_seats):
                if same_side(s, r, q, winner):
                    seat_wins[row, q] += 1
        done += 1
        meta[META_ITERATIONS] += 1
    return done


@njit(cache=True)
def breadth_first_order(t_first, t_sibling, pool, nodes, order, rank):
    """Renumber a tree breadth-first so that each node's children sit together: ``order[i]``
    is the old index of new node ``i`` and ``rank`` the inverse. Siblings keep their
    relative order (older children get lower numbers, as when they were added), so a
    renumbered tree searches exactly as before, only with siblings side by side in memory."""
    order[0] = 0
    head = 0
    tail = 1
    while head < tail:
        node = order[head]
        head += 1
        k = 0
        first = first_child(node, t_first, pool)
        c = first
        while c >= 0:  # the list runs newest first
            k += 1
            c = t_sibling[c]
        j = tail + k - 1
        c = first
        while c >= 0:
            order[j] = c
            j -= 1
            c = t_sibling[c]
        tail += k
    for i in range(nodes):
        rank[order[i]] = i
