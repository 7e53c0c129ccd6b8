"""The selection's child lookup: a scan of the legal moves for a few, a hashed table of them
for many, and for a node with many children an index of them by move. All must grow
exactly the same tree, whichever the search takes.

The kernel chooses by a module constant, so the test runs the kernel's Python body
(``py_func``, with the compiled engine below it) once with every visit hashed and once with
every visit scanned, on positions where the moves number from one to a few dozen."""

import json
from pathlib import Path

import numpy as np
import pytest

from cuttle_search.analysis.ismcts import _ALL_ROOT_MOVES, _Worker, search_viewer
from cuttle_search.analysis.limits import DEFAULT_WIDEN
from cuttle_search.analysis.tree import FIELDS, POOL_CAPACITY
from cuttle_search.engine import ismcts as kernel
from cuttle_search.engine.policies import ROLLOUT_GREEDY
from cuttle_search.game.position import Position

POS = Path(__file__).parent.parent / "positions"


def _grow(pos: Position, iterations: int, scan_max: int, monkeypatch, indexed: bool = True) -> tuple[dict, int]:
    """The tree that ``iterations`` iterations of the kernel's Python body grow, with
    visits of more than ``scan_max`` legal moves hashed (and with no node indexed by move
    unless ``indexed``); and how many visits were hashed."""
    monkeypatch.setattr(kernel, "LOOKUP_SCAN_MAX", scan_max)
    if not indexed:
        monkeypatch.setattr(kernel, "_index_child", lambda *args: None)
    monkeypatch.setattr(kernel, "borrow", lambda a: a)  # intrinsics: compiled code only
    monkeypatch.setattr(kernel, "prefetch", lambda a, i: None)
    w = _Worker(seed=3, index=0, capacity=1 << 14)
    deal = (np.int64(pos.unknown_cards if pos.hidden is not None else 0), np.int64(0), np.int64(0))
    game = (pos.state.copy(), pos.rules_array, search_viewer(pos))
    with np.errstate(over="ignore"):  # the hash multiplies with wraparound, as the kernel does
        done = kernel.ismcts_iterate.py_func(game, deal, w.tree.kernel_args(), w.work, iterations, w.rng, 0.7,
                                             ROLLOUT_GREEDY, _ALL_ROOT_MOVES, np.int64(1), np.int64(kernel.MODEL_MAXN),
                                             np.float64(0.0))
    assert done == iterations
    return _fields(w.tree), int(w.work[9][0])


def _fields(tree) -> dict:
    """The tree's node fields, with ``first`` the first child also where a node has an index
    (its field then points into the pool), and ``indexed`` whether it has one."""
    n = tree.nodes
    out = {name: tree.arrays[name][:n].copy() for name, _ in FIELDS}
    out["indexed"] = out["first"] < -1
    out["first"] = np.array([kids[0] if kids else -1 for kids in (tree.children(k) for k in range(n))], np.int32)
    return out


def _search(pos: Position, iterations: int, capacity: int, seed: int, work=None, model=kernel.MODEL_MAXN,
            widen: float = DEFAULT_WIDEN, reserve: int = 0) -> _Worker:
    """One compiled search's worker after ``iterations`` (with the scratch ``work`` given)."""
    w = _Worker(seed=seed, index=0, capacity=capacity, widen=widen, reserve=reserve)
    if work is not None:
        w.work = work(w.work)
    deal = (np.int64(pos.unknown_cards), np.int64(0), np.int64(0))
    w.run(pos.state.copy(), pos.rules_array, search_viewer(pos), deal, iterations, 0.7, ROLLOUT_GREEDY, model=model)
    return w


@pytest.mark.parametrize("name", ["midgame-main-p0", "four-victim-p1", "opening-p0"])
def test_hashed_and_scanned_lookups_grow_the_same_tree(name, monkeypatch):
    pos = Position.load(POS / f"{name}.json")
    # no node indexed by move, so that every visit takes one of the two lookups
    hashed, stamps = _grow(pos, 150, 0, monkeypatch, indexed=False)
    scanned, none = _grow(pos, 150, 10**9, monkeypatch, indexed=False)
    assert stamps > 150 and none == 0  # every visit of the first run hashed, none of the second
    assert hashed.keys() == scanned.keys()
    for field in hashed:
        assert np.array_equal(hashed[field], scanned[field]), field
    assert len(hashed["move"]) > 150  # a real tree, with nodes below the root's children


def test_the_table_of_logs_changes_nothing():
    """UCB's logs come from a table as long as the scratch array given (filled as met) and
    from ``np.log`` beyond it: a table of two entries, which takes every log afresh, grows
    exactly the tree the full table does, which it did fill."""
    pos = Position.load(POS / "midgame-main-p0.json")
    trees = []
    for table in (None, np.zeros(2)):
        w = _search(pos, 3000, 1 << 12, seed=5, work=None if table is None else lambda work, table=table: work[:12] + (table,) + work[13:])
        trees.append(_fields(w.tree))
        if table is None:
            assert np.count_nonzero(w.work[12]) > 100  # the logs, after the legal children's buffers
    for field in trees[0]:
        assert np.array_equal(trees[0][field], trees[1][field]), field


@pytest.mark.parametrize("name", ["midgame-main-p0", "opening-p0"])
def test_children_indexed_by_move_grow_the_same_tree(name, monkeypatch):
    """A node with many children is looked up through its index (one probe a legal move,
    in the moves' order, ties to the newest child) instead of a scan of its children
    (newest first): the same tree either way."""
    pos = Position.load(POS / f"{name}.json")
    # enough iterations for ties at indexed nodes: a tie rule that kept the first child in
    # the moves' order differs from 400 iterations on (measured)
    indexed, _ = _grow(pos, 1500, 16, monkeypatch)
    monkeypatch.undo()
    scanned, _ = _grow(pos, 1500, 16, monkeypatch, indexed=False)
    assert np.count_nonzero(indexed["indexed"]) > 0 and not np.any(scanned["indexed"])
    for field in indexed:
        if field != "indexed":
            assert np.array_equal(indexed[field], scanned[field]), field


@pytest.mark.parametrize("name, model", [
    ("midgame-main-p0", kernel.MODEL_MAXN),
    ("midgame-main-p0", kernel.MODEL_RANDOM),  # the opponent's nodes drawn, not decided
    ("opening-p0:four=random", kernel.MODEL_MAXN),  # chance picks a 4's discards
])
def test_every_index_holds_exactly_its_nodes_children(name, model):
    """After a search that grew its tree (renumbered twice) and its index pool, each node's
    index holds every child and nothing else, each where a probe for its move finds it, its
    header the children's count and the first child, and is at most
    ``INDEX_LOAD_QUARTERS`` full, whether the children came through the selection or were
    drawn (chance, a random seat)."""
    name, _, option = name.partition(":")
    data = json.loads((POS / f"{name}.json").read_text())
    if option:
        data["rules"] += ":" + option
    pos = Position.from_json(json.dumps(data))
    w = _search(pos, 20000, 1 << 10, seed=2, model=model)
    t = w.tree
    assert t.capacity >= 1 << 12  # grown, so renumbered
    indexed = 0
    for node in range(t.nodes):
        at = t.index_at(node)
        kids = t.children(node)
        if at < 0:
            assert len(kids) < kernel.INDEX_MIN_CHILDREN
            continue
        indexed += 1
        _check_index(t, node)
        size = 1 << int(t.pool[at])
        assert int(t.pool[at + 1]) == len(kids) and 4 * len(kids) <= kernel.INDEX_LOAD_QUARTERS * size
    assert indexed > 10


def _check_index(t, node: int) -> None:
    """``node``'s index holds exactly its children, each found by the kernel's probe for its
    move, and no move of another finds anything; its header starts the children's list."""
    at = t.index_at(node)
    kids = t.children(node)
    size = 1 << int(t.pool[at])
    slots = t.pool[at + kernel.INDEX_HEADER: at + kernel.INDEX_HEADER + size]
    assert sorted(int(c) for c in slots if c >= 0) == sorted(kids)
    assert int(t.pool[at + kernel.INDEX_FIRST]) == kids[0]
    moves = t.arrays["move"]
    for c in kids:
        assert kernel._index_find(moves, t.pool, at, moves[c]) == c
    for other in sorted({int(moves[k]) for k in range(1, t.nodes)} - {int(moves[c]) for c in kids})[:200]:
        assert kernel._index_find(moves, t.pool, at, np.int64(other)) == -1


def test_the_index_pool_grows_with_the_tree():
    """A tree whose nodes all open every move at once (no widening: many nodes with many
    children, each with an index) outgrows the first pool, which then grows."""
    w = _search(Position.load(POS / "midgame-main-p0.json"), 40000, 1 << 12, seed=2, widen=0.0)
    assert len(w.tree.pool) > POOL_CAPACITY


def test_a_tree_grown_without_renumbering_searches_the_same(monkeypatch):
    """A large tree grows into larger arrays with its nodes as they are (``_extend``), a
    smaller one renumbered breadth-first (``_renumber``); both are the same tree, so the same
    search. Here every growth past 2,048 nodes extends, and the root's statistics and every
    node's (in breadth-first order) match the search whose every growth renumbers."""
    import cuttle_search.analysis.tree as tree_module

    pos = Position.load(POS / "midgame-main-p0.json")
    renumbered = _search(pos, 20000, 1 << 10, seed=5)
    monkeypatch.setattr(tree_module, "RENUMBER_BELOW", 1 << 11)
    extended = _search(pos, 20000, 1 << 10, seed=5)
    a, b = renumbered.tree, extended.tree
    assert b.capacity >= 1 << 14 and a.nodes == b.nodes  # grown past the renumbering size
    assert a.root_stats() == b.root_stats()

    assert _walk(a) == _walk(b)


def _walk(t) -> list[tuple[int, ...]]:
    """Every node's statistics, breadth first, children oldest first (the same for a tree
    however its nodes are numbered)."""
    out, queue = [], [0]
    while queue:
        k = queue.pop(0)
        out.append(tuple(int(t.arrays[f][k]) for f in ("move", "mover", "visits", "avail", "wins", "draws", "proven")))
        queue.extend(reversed(t.children(k)))
    return out


@pytest.mark.parametrize("name", ["midgame-main-p0", "opening-p0"])
def test_a_tree_grown_many_times_equals_one_never_grown(name):
    """A tree that starts at 64 nodes and grows (renumbered, its pool packed) across many
    kernel calls is the tree of a search whose arrays never fill: the same statistics at
    every node, and every index holding exactly its node's children."""
    pos = Position.load(POS / f"{name}.json")
    never = _search(pos, 20000, 1 << 16, seed=6)
    grown = _search(pos, 20000, 1 << 6, seed=6)
    assert never.tree.capacity == 1 << 16 and grown.tree.capacity >= 1 << 13  # grown seven times or more
    assert never.tree.nodes == grown.tree.nodes and _walk(never.tree) == _walk(grown.tree)
    for node in range(grown.tree.nodes):
        if grown.tree.index_at(node) >= 0:
            _check_index(grown.tree, node)


def test_packing_the_index_pool_in_place_changes_nothing(monkeypatch):
    """A pool too small for the indexes is packed in place (the outgrown indexes dropped,
    the live ones moved down) before it grows: the same search as with a pool large enough
    never to pack or grow, and every index still holds exactly its node's children."""
    import cuttle_search.analysis.tree as tree_module

    pos = Position.load(POS / "midgame-main-p0.json")
    monkeypatch.setattr(tree_module, "POOL_CAPACITY", 1 << 17)
    roomy = _search(pos, 20000, 1 << 16, seed=4)
    assert roomy.tree.capacity == 1 << 16 and len(roomy.tree.pool) == 1 << 17  # nothing grew
    packs = []
    pack = tree_module.Tree._pack_pool
    monkeypatch.setattr(tree_module.Tree, "_pack_pool", lambda self: (packs.append(int(self.meta[2])), pack(self)))
    monkeypatch.setattr(tree_module, "POOL_CAPACITY", 1 << 11)
    tight = _search(pos, 20000, 1 << 16, seed=4)
    assert len(packs) >= 3 and tight.tree.capacity == 1 << 16  # packed, and never renumbered
    a, b = roomy.tree, tight.tree
    assert a.nodes == b.nodes and a.root_stats() == b.root_stats()
    fa, fb = _fields(a), _fields(b)
    for name in fa:
        assert np.array_equal(fa[name], fb[name]), name
    assert b.meta[kernel.META_POOL] < a.meta[kernel.META_POOL]  # the outgrown indexes are gone
    for node in range(b.nodes):
        if b.index_at(node) >= 0:
            _check_index(b, node)


def test_a_tree_grown_in_place_searches_the_same():
    """A tree that reserves its budget's nodes grows in place (renumbered within its
    arrays, never copied) at the same points as one that starts small and is copied at
    every growth: the same nodes, fields, indexes and search."""
    pos = Position.load(POS / "midgame-main-p0.json")
    copied = _search(pos, 20000, 1 << 10, seed=5)
    w = _Worker(seed=5, index=0, capacity=1 << 10, reserve=20002)
    arrays = dict(w.tree.arrays)
    w.run(pos.state.copy(), pos.rules_array, search_viewer(pos), (np.int64(pos.unknown_cards), np.int64(0), np.int64(0)),
          20000, 0.7, ROLLOUT_GREEDY)
    a, b = copied.tree, w.tree
    assert b.capacity == a.capacity >= 1 << 14 and len(b.arrays["move"]) == 20002  # grown, within the reserve
    assert all(b.arrays[name] is arrays[name] for name in arrays)  # in place: never copied
    assert a.nodes == b.nodes and a.root_stats() == b.root_stats()
    fa, fb = _fields(a), _fields(b)
    for name in fa:
        assert np.array_equal(fa[name], fb[name]), name
    for node in range(b.nodes):
        if b.index_at(node) >= 0:
            _check_index(b, node)


def test_a_tree_that_outgrows_a_power_of_two_below_its_reserve_is_not_copied():
    """The last growth before the reserve is full stops at the reserve instead of doubling
    past it (which would copy every field once more): the arrays stay the same objects, and
    the search is the one a tree copied at every growth makes."""
    pos = Position.load(POS / "opening-p0.json")
    budget = 12_000  # about 11,000 nodes: past 2^13, short of the reserve
    w = _Worker(seed=7, index=0, capacity=1 << 10, reserve=budget + 2)
    arrays = dict(w.tree.arrays)
    w.run(pos.state.copy(), pos.rules_array, search_viewer(pos), (np.int64(pos.unknown_cards), np.int64(0), np.int64(0)),
          budget, 0.7, ROLLOUT_GREEDY)
    b = w.tree
    assert b.nodes > 1 << 13 and b.capacity == budget + 2
    assert all(b.arrays[name] is arrays[name] for name in arrays)  # in place: never copied
    a = _search(pos, budget, 1 << 10, seed=7).tree
    assert a.nodes == b.nodes and a.root_stats() == b.root_stats()
    fa, fb = _fields(a), _fields(b)
    for name in fa:
        assert np.array_equal(fa[name], fb[name]), name


def test_a_search_reserves_its_budget():
    """``run_search`` with an iteration budget reserves one node an iteration (and the
    root) in every thread's tree, so that it grows in place; with a time limit alone it
    reserves nothing beyond the first capacity."""
    from cuttle_search.analysis import ismcts as driver
    from cuttle_search.analysis.limits import Limit

    made = []
    init = driver._Worker.__init__
    pos = Position.load(POS / "midgame-main-p0.json")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(driver._Worker, "__init__",
                   lambda self, *a, **k: (init(self, *a, **k), made.append(len(self.tree.arrays["move"])))[0])
        driver.run_search(pos, Limit(3001), threads=2, seed=1)
        driver.run_search(pos, Limit(200001), threads=2, seed=1)
        driver.run_search(pos, Limit(time=0.01), seed=1)
    assert made == [1 << 16] * 2 + [100003, 100002] + [1 << 16]


def test_a_reader_waits_while_the_tree_grows(monkeypatch):
    """The renumbering replaces one field at a time, so a reader on another thread (a
    progress display's ``root_stats``) waits for the growth to end instead of reading a
    tree half renumbered, and then reads the same statistics as before it."""
    import threading

    import cuttle_search.analysis.tree as tree_module

    pos = Position.load(POS / "midgame-main-p0.json")
    w = _Worker(seed=1, index=0, capacity=1 << 10)
    deal = (np.int64(pos.unknown_cards), np.int64(0), np.int64(0))
    done = w._iterate(pos.state.copy(), pos.rules_array, search_viewer(pos), deal, 5000, 0.7, ROLLOUT_GREEDY,
                      _ALL_ROOT_MOVES, kernel.MODEL_MAXN)
    tree = w.tree
    assert done < 5000 and tree.nodes + 2 > tree.capacity  # stopped full: the next growth renumbers
    expected = tree.root_stats()
    inside, release = threading.Event(), threading.Event()
    renumber = tree_module.Tree._renumber

    def slow(self, capacity):
        inside.set()
        release.wait(10)
        renumber(self, capacity)

    monkeypatch.setattr(tree_module.Tree, "_renumber", slow)
    grower = threading.Thread(target=tree.grow)
    read = []
    reader = threading.Thread(target=lambda: read.append(tree.root_stats()))
    grower.start()
    assert inside.wait(10)
    reader.start()
    reader.join(0.3)
    assert reader.is_alive() and not read  # waiting for the growth
    release.set()
    grower.join(10)
    reader.join(10)
    assert tree.capacity == 1 << 11 and read == [expected]


def test_prefetch_is_a_hint_that_changes_nothing_and_never_faults():
    """``noref.prefetch`` compiles to the processor's prefetch instruction and leaves every
    value as it was, even for an index far outside the array (a prefetch never faults)."""
    from cuttle_search.engine.jit import KERNELS, njit
    from cuttle_search.engine.noref import prefetch

    @njit(cache=False)
    def total(a):
        t = 0
        for i in range(a.shape[0]):
            prefetch(a, i + 8)
            prefetch(a, i + (1 << 40))  # far past the end, unmapped
            t += a[i]
        return t

    try:
        a = np.arange(1000, dtype=np.int32)
        assert total(a) == int(a.sum()) and np.array_equal(a, np.arange(1000, dtype=np.int32))
        assert "prefetch" in total.inspect_asm(total.signatures[0])
    finally:
        KERNELS.remove(total)
