"""Run the ISMCTS: budgets, root parallelism over threads, progress, merging results."""

from __future__ import annotations

import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import __version__
from ..engine import kernels as K
from ..engine import search as S
from ..moves import Move
from ..position import Position, seat_name
from .result import AnalysisResult, MoveStat, score_interval
from .tree import Tree

ROLLOUTS = {"greedy": S.ROLLOUT_GREEDY, "heuristic": S.ROLLOUT_HEURISTIC, "random": S.ROLLOUT_RANDOM}
DEFAULT_ROLLOUT = "greedy"
DEFAULT_ITERATIONS = 10_000
DEFAULT_EXPLORATION = 0.7


class SearchError(ValueError):
    """A position or budget the search cannot work with; the message says why."""


@dataclass(frozen=True)
class Limit:
    """A search budget: iterations, seconds, or both (whichever runs out first)."""

    iterations: int | None = None
    time: float | None = None

    def __post_init__(self) -> None:
        if self.iterations is not None and (not isinstance(self.iterations, int) or self.iterations < 1):
            raise SearchError(f"iterations: expected a whole number >= 1, got {self.iterations!r}")
        if self.time is not None and (not isinstance(self.time, (int, float)) or not self.time > 0):
            raise SearchError(f"time: expected a number of seconds > 0, got {self.time!r}")

    @property
    def effective_iterations(self) -> int | None:
        if self.iterations is None and self.time is None:
            return DEFAULT_ITERATIONS
        return self.iterations


@dataclass(frozen=True)
class HandInference:
    """What the viewer has inferred about the opponent's hidden hand: it holds none of the
    cards of the mask ``excluded``, except perhaps among its ``fresh`` cards drawn since.
    (The ``ismcts`` agent infers this from an opponent that passed up a win on the spot.)"""

    excluded: int
    fresh: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.excluded, int) or not 0 <= self.excluded < 1 << 52:
            raise SearchError(f"inference: excluded must be a 52-bit card mask, got {self.excluded!r}")
        if not isinstance(self.fresh, int) or self.fresh < 0:
            raise SearchError(f"inference: fresh must be a whole number >= 0, got {self.fresh!r}")


class _Worker:
    """One thread's tree, generator and scratch buffers."""

    def __init__(self, seed: int, index: int, capacity: int) -> None:
        self.tree = Tree(capacity)
        self.rng = S.seed_rng(np.uint64(seed & (2**64 - 1)), index)
        self.s = np.zeros(K.STATE_SIZE, dtype=np.int64)
        self.buf = np.zeros(K.MAX_MOVES, dtype=np.int64)
        self.seen = np.zeros(K.MAX_MOVES, dtype=np.bool_)
        self.path = np.zeros(S.MAX_PATH, dtype=np.int32)
        self.cards = np.zeros(64, dtype=np.int64)
        self.scratch = np.zeros(K.STATE_SIZE, dtype=np.int64)

    def _iterate(self, root, r, viewer, deal, n, exploration, policy) -> int:
        return S.ismcts_iterate(
            root, r, viewer, *deal, n, self.rng, exploration, policy,
            *self.tree.kernel_args(), self.s, self.buf, self.seen, self.path, self.cards, self.scratch,
        )

    def run(self, root, r, viewer, deal, n, exploration, policy) -> int:
        """Run ``n`` iterations, growing the tree whenever it fills (n = 0 only loads the
        compiled kernel)."""
        done = self._iterate(root, r, viewer, deal, n, exploration, policy)
        while done < n:
            self.tree.grow()
            done += self._iterate(root, r, viewer, deal, n - done, exploration, policy)
        return done


def search_viewer(pos: Position) -> int:
    """The seat the search speaks for: the file's viewer, or the seat to act."""
    if pos.is_over:
        raise SearchError("phase: the game is over; there is nothing to analyse")
    if pos.actor == K.ACTOR_CHANCE:
        raise SearchError("phase: the next event is chance (a random 4), not a player's decision")
    if pos.view is not None and pos.actor != pos.view:
        raise SearchError(
            f"view: it is {seat_name(pos.actor)}'s decision ({pos.phase_name}), but this file is "
            f"{seat_name(pos.view)}'s view; analyse a position where {seat_name(pos.view)} decides"
        )
    return pos.actor


def run_search(
    pos: Position,
    limit: Limit,
    threads: int = 1,
    seed: int = 0,
    rollout: str = DEFAULT_ROLLOUT,
    exploration: float = DEFAULT_EXPLORATION,
    progress: Callable[[int, "Snapshot"], None] | None = None,
    node_capacity: int = 1 << 16,
    inference: HandInference | None = None,
) -> AnalysisResult:
    """Search ``pos`` for its viewer and rank the viewer's legal moves. ``inference``
    narrows the deals of the opponent's hidden cards (see :class:`HandInference`)."""
    viewer = search_viewer(pos)
    if not isinstance(threads, int) or threads < 1:
        raise SearchError(f"threads: expected a whole number >= 1, got {threads!r}")
    if rollout not in ROLLOUTS:
        raise SearchError(f"rollout: expected one of {', '.join(ROLLOUTS)}, got {rollout!r}")
    if not isinstance(exploration, (int, float)) or exploration < 0:
        raise SearchError(f"exploration: expected a number >= 0, got {exploration!r}")
    if not isinstance(seed, int) or seed < 0:
        raise SearchError(f"seed: expected a whole number >= 0, got {seed!r}")
    if inference is not None and not isinstance(inference, HandInference):
        raise SearchError(f"inference: expected a HandInference, got {inference!r}")
    policy = ROLLOUTS[rollout]
    from .solve import solve_first

    first = solve_first(pos, limit)  # the exact answer when nothing is hidden, within the budget
    if first is not None and first.proven:
        return first.analysis(pos, threads, seed, rollout, exploration)
    if first is not None:
        limit = first.remaining(limit)
    r = pos.rules_array
    root = pos.state.copy()
    # what every determinization re-deals: the unseen cards, and the inference (excluded, fresh)
    deal = (
        np.int64(pos.unknown_cards if pos.hidden is not None else 0),
        np.int64(0 if inference is None else inference.excluded),
        np.int64(0 if inference is None else inference.fresh),
    )
    workers = [_Worker(seed, i, node_capacity) for i in range(threads)]
    total = limit.effective_iterations
    quotas = [None] * threads if total is None else [total // threads + (i < total % threads) for i in range(threads)]
    deadline = None if limit.time is None else time.perf_counter() + limit.time
    chunk = 256 if deadline is not None else 2048
    stop = threading.Event()
    compile_start = time.perf_counter()
    workers[0].run(root, r, viewer, deal, 0, float(exploration), policy)  # compile or load, not timed
    compile_seconds = time.perf_counter() - compile_start
    start = time.perf_counter()

    def work(i: int) -> None:
        w = workers[i]
        quota = quotas[i]
        while not stop.is_set():
            n = chunk if quota is None else min(chunk, quota - w.tree.iterations)
            if n <= 0:
                return
            w.run(root, r, viewer, deal, n, float(exploration), policy)
            if deadline is not None and time.perf_counter() >= deadline:
                return

    if threads == 1 and progress is None:
        work(0)
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            futures = [pool.submit(work, i) for i in range(threads)]
            try:
                pending = set(futures)
                while pending:
                    _, pending = wait(pending, timeout=0.1)  # returns as soon as all are done
                    if progress is not None:
                        progress(sum(w.tree.iterations for w in workers), Snapshot(workers, pos))
            except KeyboardInterrupt:
                stop.set()
                raise
            finally:
                for f in futures:
                    f.result()
    elapsed = time.perf_counter() - start
    result = _merge(pos, viewer, workers, elapsed, threads, seed, rollout, exploration)
    result.compile_seconds = compile_seconds
    return result if first is None else first.annotate(result)


class Snapshot:
    """A live look at the search for a progress display (racy reads are fine there)."""

    def __init__(self, workers: list[_Worker], pos: Position) -> None:
        self.workers = workers
        self.pos = pos

    def best(self) -> tuple[str, float] | None:
        stats: dict[int, list[int]] = {}
        for w in self.workers:
            for code, (v, wins, draws, _a) in w.tree.root_stats().items():
                acc = stats.setdefault(code, [0, 0, 0])
                acc[0] += v
                acc[1] += wins
                acc[2] += draws
        if not stats:
            return None
        code, (v, wins, draws) = max(stats.items(), key=lambda kv: kv[1][0])
        return Move.from_code(code).text(), (wins + 0.5 * draws) / max(v, 1)


def _merge(pos, viewer, workers, elapsed, threads, seed, rollout, exploration) -> AnalysisResult:
    merged: dict[int, list[int]] = {}
    for w in workers:
        for code, (v, wins, draws, avail) in w.tree.root_stats().items():
            acc = merged.setdefault(code, [0, 0, 0, 0])
            for i, x in enumerate((v, wins, draws, avail)):
                acc[i] += x
    for code in pos.legal_codes():  # a move the budget never reached still gets a row
        merged.setdefault(int(code), [0, 0, 0, 0])
    proven: dict[int, int] = {}  # the MCTS-Solver's proofs at the root (nothing hidden only)
    for w in workers:
        proven.update(w.tree.root_proven())
    order = sorted(merged.items(), key=lambda kv: (-kv[1][0], -(kv[1][1] + 0.5 * kv[1][2]), kv[0]))
    best_score = None
    stats = []
    for rank, (code, (v, wins, draws, avail)) in enumerate(order, 1):
        score, lo, hi = score_interval(v, wins, draws)
        if code in proven:  # exact, whatever the visits before the proof said
            score = lo = hi = 1.0 if proven[code] > 0 else 0.0
        if best_score is None:
            best_score = score
        owner = max(workers, key=lambda w: w.tree.root_stats().get(code, (0,))[0])
        pv = [Move.from_code(c) for c in owner.tree.principal_variation(code)] if v else [Move.from_code(code)]
        stats.append(
            MoveStat(
                rank=rank,
                move=Move.from_code(code),
                visits=v,
                wins=wins,
                draws=draws,
                availability=avail,
                score=score,
                win_rate=(wins / v if v else 0.0) if code not in proven else float(proven[code] > 0),
                draw_rate=(draws / v if v else 0.0) if code not in proven else 0.0,
                interval=(lo, hi),
                gap=best_score - score,
                pv=pv,
                **({"solved": True, "proven": "win" if proven[code] > 0 else "loss"} if code in proven else {}),
            )
        )
    iterations = sum(w.tree.iterations for w in workers)
    return AnalysisResult(
        viewer=viewer,
        phase=pos.phase_name,
        rules=pos.rules.spec,
        moves=stats,
        iterations=iterations,
        determinizations=iterations if pos.hidden is not None else 0,
        nodes=sum(w.tree.nodes for w in workers),
        seconds=elapsed,
        threads=threads,
        seed=seed,
        rollout=rollout,
        exploration=float(exploration),
        engine_version=__version__,
        position=pos.name,
    )


def compile_notice_needed() -> bool:
    """Whether the search kernel has no compiled code cached yet (first run)."""
    try:
        cache = S.ismcts_iterate._cache
        index = cache._cache_file._index_path
        return not os.path.exists(index)
    except AttributeError:  # a Numba without these internals: say nothing
        return False


def warn_if_compiling(stream=sys.stderr) -> None:
    if compile_notice_needed():
        print("compiling the search engine, first run only (about 20 seconds)…", file=stream, flush=True)
