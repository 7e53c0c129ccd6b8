"""The ISMCTS tree: flat node arrays that grow when a long search fills them."""

from __future__ import annotations

import functools
import mmap
import threading
from typing import Any, Callable, TypeVar, cast

import numpy as np

from ..engine.ismcts import (INDEX_FIRST, META_POOL, breadth_first_order, index_pool_room, pack_indexes,
                             pack_indexes_in_place)
from ..engine.layout import MAX_MOVES, MAX_PLAYERS

FIELDS = (
    ("move", np.int64),
    ("mover", np.int8),
    ("visits", np.int32),
    ("avail", np.int32),
    ("wins", np.int32),
    ("draws", np.int32),
    ("first", np.int32),  # the first child, -1 for none, -2 - at for an index at pool slot at
    ("sibling", np.int32),
    ("proven", np.int8),  # MCTS-Solver: 1 a proven win for the mover, -1 a proven loss, 0 unknown
)
BYTES_PER_NODE = sum(np.dtype(t).itemsize for _, t in FIELDS)
LINKS = ("first", "sibling")  # fields that hold node numbers (and, below -1, index places)
POOL_CAPACITY = 1 << 14  # the index pool's first size (slots)
RELINK_CHUNK = 1 << 14  # nodes renumbered at a time (bounded temporaries, which the C heap keeps)
RENUMBER_BELOW = 1 << 19  # a tree this large grows without renumbering (experiment)
# the most nodes a tree reserves up front (address space only: a page costs memory once written)
RESERVE_MAX = 1 << 24


_growth_loaded = False


# arrays from this size on get pages of their own (``_zeros``): every array a growing tree
# frees, so that none stays behind in the C heap (below 1 MB they did: 10 bytes a node at 1 M)
MAPPED_BYTES = 1 << 16


# the best-reply back-up (Tree.best_reply_score): children with fewer visits are left out,
# and this many levels below the root move a node is its own mean (both chosen on seed 7100
# of the calibration benchmark: docs/strength.md, "The cause, measured"). In a two-seat game
# (analysis.ismcts.best_reply_setting) fewer visits count in the opening (chosen on seed 7100,
# checked on 16100), and near the end of the deck two levels are read, not three (chosen on
# seed 7100, checked on 7300, 16100 and 18700)
BEST_REPLY_MIN_VISITS = 5
BEST_REPLY_OPENING_MIN_VISITS = 3
BEST_REPLY_DEPTH = 3
BEST_REPLY_LATE_DEPTH = 2


def _zeros(size: int, dtype) -> np.ndarray:
    """``np.zeros(size, dtype)``; a large one in an anonymous memory map of its own, whose
    pages cost memory only once written and go back to the system when the array dies.
    (The C heap keeps what a tree's growth frees, and glibc raises its threshold for
    mapping a block to the size of the last one freed: a grown tree then held the old
    copies' memory too.)"""
    dtype = np.dtype(dtype)
    if size * dtype.itemsize < MAPPED_BYTES:
        return np.zeros(size, dtype)
    block = mmap.mmap(-1, size * dtype.itemsize)
    if hasattr(mmap, "MADV_HUGEPAGE"):  # as NumPy asks for its large arrays: fewer TLB misses in a big tree
        block.madvise(mmap.MADV_HUGEPAGE)
    return np.frombuffer(block, dtype=dtype)


def _grown(a: np.ndarray, size: int, used: int) -> np.ndarray:
    """``a``'s first ``used`` entries in zeros of ``size``, the rest left unwritten (so
    not yet in memory)."""
    out = _zeros(size, a.dtype)
    out[:used] = a[:used]
    return out


def load_growth_kernels() -> None:
    """Compile or load, once per process, the kernels a tree that fills calls (the
    breadth-first renumbering and the packing of the index pool, moved or in place), so
    that no timed search pays for them: a tree of two slots fills at once."""
    global _growth_loaded
    if not _growth_loaded:
        tree = Tree(2)
        tree.grow()
        tree._pack_pool()
        tree.children(0)
        _growth_loaded = True


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _locked(method: _Method) -> _Method:
    """``method`` run holding the tree's lock: a reader on another thread never sees half a
    growth (the renumbering replaces one field at a time)."""
    @functools.wraps(method)
    def run(self: Tree, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)
    return cast(_Method, run)


class Tree:
    """Node storage for one search thread (field meanings in ``engine/ismcts.py``).

    ``capacity`` is the node count the kernel may fill before the tree grows; ``reserve``
    (a search's iteration budget plus the root: an iteration adds one node at most) the
    length of the arrays themselves, so that the tree grows in place: growing then
    renumbers within the arrays, never holding two copies of them, and a tree that fits
    its reserve is never copied. Growth points (and so the layout) do not depend on it."""

    def __init__(self, capacity: int = 1 << 16, reserve: int = 0) -> None:
        size = max(capacity, min(reserve, RESERVE_MAX))
        self.arrays = {name: _zeros(size, t) for name, t in FIELDS}
        self._capacity = capacity
        self.meta = np.zeros(4, dtype=np.int64)
        # the indexes of the nodes with many children: headers and children
        self.pool = np.zeros(POOL_CAPACITY, dtype=np.int32)
        # root-only: rollouts below each root child (by order of creation) won by each seat's side
        self.seat_wins = np.zeros((MAX_MOVES, MAX_PLAYERS), dtype=np.int32)
        self.arrays["first"][0] = -1
        self.arrays["sibling"][0] = -1
        self.arrays["mover"][0] = -1
        # held while the tree grows (it renumbers one field at a time) and while a reader on
        # another thread walks it, so that the reader never sees half a renumbering
        self._lock = threading.RLock()
        self.meta[0] = 1  # the root

    @property
    def capacity(self) -> int:
        """The nodes the kernel may fill before the tree grows."""
        return self._capacity

    @property
    def nodes(self) -> int:
        return int(self.meta[0])

    @property
    def iterations(self) -> int:
        return int(self.meta[1])

    @_locked
    def grow(self) -> None:
        """Make room for the next kernel call: when the nodes are full, renumber them
        breadth-first, so that siblings sit together in memory (the selection scans them),
        for twice as many nodes (or up to the reserve, when it is nearer), packing the index pool on the way (a tree of
        ``RENUMBER_BELOW`` nodes or more just gets larger arrays); when the pool is short,
        pack it in place, then double it while it is short (or more than half full). The
        tree itself, and so the search, stays exactly the same. Within the reserve all of
        it happens in place."""
        packed = False
        if self.nodes + 2 > self.capacity:
            capacity = 2 * self.capacity
            reserved = len(self.arrays["move"])
            if self.capacity < reserved < capacity:  # the reserve holds every node the budget makes
                capacity = reserved
            if self.capacity < RENUMBER_BELOW:
                self._renumber(capacity)
                packed = True
            elif capacity > len(self.arrays["move"]):
                self._extend(capacity)
            self._capacity = capacity
        size = len(self.pool)
        if not packed and self.meta[META_POOL] + index_pool_room(self.meta) > size:
            self._pack_pool()
            if 2 * self.meta[META_POOL] > size:  # little was outgrown: grow as well, not pack again soon
                size *= 2
        while self.meta[META_POOL] + index_pool_room(self.meta) > size:
            size *= 2
        if size > len(self.pool):
            self.pool = _grown(self.pool, size, int(self.meta[META_POOL]))

    def index_at(self, node: int) -> int:
        """Where ``node``'s index of its children starts in the pool, or -1 (none)."""
        f = int(self.arrays["first"][node])
        return -2 - f if f < -1 else -1

    def _pack_pool(self) -> None:
        """Drop the outgrown indexes from the pool, in place (the live ones move down)."""
        first = self.arrays["first"][: self.nodes]
        nodes = np.flatnonzero(first < -1)
        by_start = nodes[np.argsort(-first[nodes], kind="stable")]  # -2 - first: the index's place
        self.meta[META_POOL] = pack_indexes_in_place(self.arrays["first"], self.pool, by_start)

    def _extend(self, capacity: int) -> None:
        """Larger arrays, the nodes as they are, one field at a time (a reader on another
        thread sees the same tree in either copy), so that only one field is ever held twice."""
        n = self.nodes
        for name, _ in FIELDS:
            self.arrays[name] = _grown(self.arrays[name], capacity, n)

    def _renumber(self, capacity: int) -> None:
        """Renumber breadth-first for ``capacity`` nodes, one field at a time, the links and
        the pool first (they need ``rank``), then the rest: in place within the arrays'
        length (through one field's worth of scratch), else into larger arrays (each old
        field goes as its new one is made). Either way only one field is ever held twice."""
        n = self.nodes
        order = _zeros(n, np.int32)  # node numbers fit (the node fields that hold them are int32)
        rank = _zeros(n, np.int32)
        breadth_first_order(self.arrays["first"], self.arrays["sibling"], self.pool, n, order, rank)
        in_place = capacity <= len(self.arrays["move"])
        fields = sorted(FIELDS, key=lambda f: f[0] not in LINKS)
        for name, t in fields:
            values = _zeros(n if in_place else capacity, t)  # pages past the nodes cost nothing until written
            old = self.arrays[name]
            for lo in range(0, n, RELINK_CHUNK):  # in chunks: np.take copies its indices (as intp) first
                hi = min(lo + RELINK_CHUNK, n)
                part = values[lo:hi]
                np.take(old, order[lo:hi], out=part, mode="clip")  # ("raise" copies ``out``)
                if name in LINKS:  # node numbers: renumber them too (an index's place stays, for now)
                    linked = part >= 0
                    part[linked] = rank[part[linked]]
            del old
            if in_place:
                self.arrays[name][:n] = values
            else:
                self.arrays[name] = values
            del values
            if name == LINKS[-1]:  # the links done: the indexes into a fresh pool, in the new order
                pool = _zeros(len(self.pool), np.int32)
                self.meta[META_POOL] = pack_indexes(self.arrays["first"], self.pool, n, rank, pool)
                self.pool = pool
                del rank

    def kernel_args(self) -> tuple[np.ndarray, ...]:
        """The kernel's ``tree`` record: the node fields up to the capacity, ``meta``,
        ``seat_wins``, the pool."""
        return tuple(self.arrays[name][: self._capacity] for name, _ in FIELDS) + (self.meta, self.seat_wins, self.pool)

    @_locked
    def children(self, node: int, arrays: dict | None = None) -> list[int]:
        """``node``'s children, newest first."""
        a = arrays or self.arrays
        out = []
        c = int(a["first"][node])
        if c < -1:  # indexed: the list starts in the index's header
            c = int(self.pool[-2 - c + INDEX_FIRST])
        while c >= 0:
            out.append(c)
            c = int(a["sibling"][c])
        return out

    @_locked
    def root_stats(self) -> dict[int, tuple[int, int, int, int]]:
        """Move code -> (visits, wins, draws, availability) for the root's children."""
        a = self.arrays
        return {
            int(a["move"][c]): (int(a["visits"][c]), int(a["wins"][c]), int(a["draws"][c]), int(a["avail"][c]))
            for c in self.children(0, a)
        }

    @_locked
    def root_seat_wins(self, seats: int) -> dict[int, tuple[int, ...]]:
        """Move code -> the rollouts below that root child won by each seat's side (``seats``
        entries). With two seats they follow from the node statistics: the mover's wins, and
        the other seat's the visits that were neither a win nor a stalemate (the root's
        children are all the viewer's moves)."""
        a = self.arrays
        kids = self.children(0, a)
        out = {}
        for i, c in enumerate(kids):
            if seats == 2:
                v, w, d = int(a["visits"][c]), int(a["wins"][c]), int(a["draws"][c])
                split = [v - w - d] * seats  # the other seat's wins
                split[int(a["mover"][c])] = w
                out[int(a["move"][c])] = tuple(split)
            else:
                row = len(kids) - 1 - i  # the list runs newest first; rows are oldest first
                out[int(a["move"][c])] = tuple(int(x) for x in self.seat_wins[row, :seats])
        return out

    @_locked
    def root_proven(self) -> dict[int, int]:
        """Move code -> 1 (a proven win for the viewer) or -1 (a proven loss) for the root's
        children the MCTS-Solver proved (only when nothing is hidden)."""
        a = self.arrays
        return {int(a["move"][c]): int(a["proven"][c]) for c in self.children(0, a) if a["proven"][c] != 0}

    def _root_child(self, move: int, a: dict) -> int | None:
        """The root's child reached by ``move``, or None."""
        return next((c for c in self.children(0, a) if int(a["move"][c]) == move), None)

    @_locked
    def best_reply_score(self, move: int, viewer_side: Callable[[int], bool], share: float,
                         min_visits: int = BEST_REPLY_MIN_VISITS, depth: int = BEST_REPLY_DEPTH) -> float | None:
        """The root move's score for the viewer with the other side's best replies backed up
        (docs/strength.md, "The cause, measured"), or None for a move with no visits.

        The search's own score averages every reply the opponent tried below the move, the
        weak ones its exploration tries included. Here, from the move down: at a node where
        a seat of the other side (``viewer_side(seat)`` false) chooses, its replies from the
        best for it down, each weighted by the chance that it is the best reply the seat
        holds (its availability over the node's visits, times the chance that no better one
        was), what is left at the node's own mean; at any other node the visit-weighted mean
        of its children's values, the node's own mean for the visits no child took. Children
        with fewer than ``min_visits`` visits are left out, and ``depth`` levels below
        the move a node is its own mean. A two-sided figure: a node's wins are
        its mover's side's, and the viewer's are the rest."""
        a = self.arrays
        visits, wins, draws, mover, avail = a["visits"], a["wins"], a["draws"], a["mover"], a["avail"]

        def own(node: int, inherited: float) -> float:
            """The node's mean for the viewer (a chance node has none: its parent's)."""
            seat = int(mover[node])
            if seat < 0:
                return inherited
            mean = (int(wins[node]) + share * int(draws[node])) / int(visits[node])
            return mean if viewer_side(seat) else 1.0 - mean

        def value(node: int, levels: int, inherited: float) -> float:
            mine = own(node, inherited)
            kids = [c for c in self.children(node, a) if int(visits[c]) >= min_visits]
            if levels == 0 or not kids:
                return mine
            seat = int(mover[kids[0]])  # every child of a node was chosen by the one seat to act there
            total = int(visits[node])
            values = [(value(c, levels - 1, mine), c) for c in kids]
            if seat >= 0 and not viewer_side(seat):
                left, out = 1.0, 0.0
                for v, c in sorted(values, key=lambda vc: (vc[0], -vc[1])):  # the best for that seat first
                    p = left * min(1.0, int(avail[c]) / total)
                    out += p * v
                    left -= p
                return out + left * mine
            taken = sum(int(visits[c]) for c in kids)
            return (sum(int(visits[c]) * v for v, c in values) + (total - taken) * mine) / total

        node = self._root_child(move, a)
        if node is None or int(visits[node]) == 0:
            return None
        return value(node, depth, 0.5)

    @_locked
    def principal_variation(self, move: int, max_len: int = 12) -> list[int]:
        """The root move, then the most visited child at each step below it."""
        a = self.arrays
        node = self._root_child(move, a)
        pv = [move]
        while node is not None and len(pv) < max_len:
            kids = self.children(node, a)
            if not kids:
                break
            node = max(kids, key=lambda c: (int(a["visits"][c]), -c))
            if int(a["visits"][node]) < 2:
                break
            pv.append(int(a["move"][node]))
        return pv
