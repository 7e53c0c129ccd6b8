"""Run the ISMCTS: budgets, root parallelism over threads, progress, merging results."""

from __future__ import annotations

import dataclasses
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..version import __version__
from ..engine import layout as L
from ..engine.ismcts import (
    ismcts_iterate,
    LOG_TABLE_SIZE,
    LOOKUP_SLOTS,
    MAX_PATH,
    MODEL_MAXN,
    MODEL_PARANOID,
    MODEL_RANDOM,
    ROOT_ALL,
    ROOT_AVOID,
    ROOT_ONLY,
)
from ..engine.policies import ROLLOUT_GREEDY, ROLLOUT_GREEDY_CUT, ROLLOUT_HEURISTIC, ROLLOUT_RANDOM, ROLLOUT_VALUE
from ..engine.seats import partner, same_side
from ..engine.rng import seed_rng
from ..game.errors import CuttleError, brief
from .limits import (
    CancelEvent,
    check_cancel,
    check_every,
    DEFAULT_EXPLORATION,
    DEFAULT_WIDEN,
    DEFAULT_MODEL,
    MAX_EXPLORATION,
    MAX_SEED,
    MAX_THREADS,
    MODEL_NAMES,
    ROLLOUT_NAMES,
    ROLLOUT_SETTLES,
    Limit,
    SearchError,
    default_rollout,
    default_widen,
    rollout_refusal,
    is_finite_number,
    widen_error,
)
from ..game.moves import Move
from ..game.position import Position
from ..game.seats import plain_number, seat_name
from .calibration import stage_of
from .result import AnalysisResult, MoveStat, score_interval
from .solve_first import solve_first
from .tree import (BEST_REPLY_DEPTH, BEST_REPLY_LATE_DEPTH, BEST_REPLY_MIN_VISITS, BEST_REPLY_OPENING_MIN_VISITS, Tree,
                   load_growth_kernels)

ROLLOUTS = {"greedy": ROLLOUT_GREEDY, "heuristic": ROLLOUT_HEURISTIC, "random": ROLLOUT_RANDOM,
            "greedy-cut": ROLLOUT_GREEDY_CUT, "value": ROLLOUT_VALUE}
assert tuple(ROLLOUTS) == ROLLOUT_NAMES
# the opponent models (engine/ismcts.py): what the other seats' nodes maximise
MODELS = {"maxn": MODEL_MAXN, "paranoid": MODEL_PARANOID, "random": MODEL_RANDOM}
assert tuple(MODELS) == MODEL_NAMES


def _whole(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


_number = is_finite_number


@dataclass(frozen=True)
class HandInference:
    """What the viewer has inferred about the opponent's hidden hand: it holds none of the
    cards of the mask ``excluded``, except perhaps among its ``fresh`` cards drawn since.
    (The ``ismcts`` agent infers this from an opponent that passed up a win on the spot.)"""

    excluded: int
    fresh: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.excluded, int) or not 0 <= self.excluded < 1 << 52:
            raise SearchError(f"inference: excluded must be a 52-bit card mask, got {brief(self.excluded)}")
        if not isinstance(self.fresh, int) or self.fresh < 0:
            raise SearchError(f"inference: fresh must be a whole number >= 0, got {brief(self.fresh)}")


_ALL_ROOT_MOVES = (np.zeros(0, np.int64), np.int64(ROOT_ALL))


def root_restriction(pos: Position, allow: object = None, avoid: object = None) -> tuple[np.ndarray, np.int64]:
    """The kernel's root restriction for ``allow`` (search only these moves) or ``avoid``
    (never these), each a list of moves in text or JSON notation, checked against the
    legal moves; at least one move must remain."""
    if allow is None and avoid is None:
        return _ALL_ROOT_MOVES
    if allow is not None and avoid is not None:
        raise SearchError("allowMoves: give allowMoves or avoidMoves, not both")
    key, listed = ("allowMoves", allow) if allow is not None else ("avoidMoves", avoid)
    if not isinstance(listed, (list, tuple)) or not listed:
        raise SearchError(f"{key}: expected a non-empty list of moves, got {brief(listed)}")
    if len(listed) > L.MAX_MOVES:
        raise SearchError(f"{key}: expected at most {L.MAX_MOVES:,} moves, got {len(listed):,}")
    legal = pos.legal_moves()
    codes = set()
    for i, item in enumerate(listed):
        try:
            move = (item if isinstance(item, Move) else Move.from_json(item) if isinstance(item, dict)
                    else Move.parse(item, None) if isinstance(item, str) else None)
            if move is None:
                raise SearchError(f"expected a move like 'points 7H', got {brief(item)}")
            codes.add(move.resolve_against(legal).code())
        except CuttleError as e:
            raise SearchError(f"{key}[{i}]: {e}") from None
    remaining = len(codes) if allow is not None else len({m.code() for m in legal} - codes)
    if remaining == 0:
        raise SearchError(f"{key}: no legal move would be left to search")
    return np.array(sorted(codes), np.int64), np.int64(ROOT_ONLY if allow is not None else ROOT_AVOID)


def _searchable(roots: tuple) -> Callable[[int], bool]:
    """Whether the root restriction ``roots`` lets the search look at a move code."""
    mode, listed = int(roots[1]), {int(c) for c in roots[0]}
    return lambda code: mode == ROOT_ALL or (code in listed) == (mode == ROOT_ONLY)


def _restricted(result: AnalysisResult, roots: tuple) -> AnalysisResult:
    """A solved analysis with only the moves the root restriction lets through, re-ranked."""
    if int(roots[1]) == ROOT_ALL:
        return result
    searchable = _searchable(roots)
    kept = [m for m in result.moves if searchable(m.move.code())]
    best = kept[0].score
    result.moves = [dataclasses.replace(m, rank=i, gap=best - m.score) for i, m in enumerate(kept, 1)]
    return result


class _Worker:
    """One thread's tree, generator and scratch buffers."""

    def __init__(self, seed: int, index: int, capacity: int, solver: bool = True, widen: float = DEFAULT_WIDEN,
                 reserve: int = 0) -> None:
        self.solver = solver  # the MCTS-Solver where nothing is hidden
        self.widen = widen  # progressive widening below the root (0.0: off)
        self.tree = Tree(capacity, reserve)  # reserve: the nodes its budget can make, when known
        self.rng = seed_rng(np.uint64(seed & (2**64 - 1)), index)
        # the kernel's scratch record: state, moves, seen flags, path, card list, second state,
        # then the move lookup's slots (move, index, stamp) and its stamp counter, then the
        # legal children of a node and their moves' indices, the table of logs, then the
        # widening's move values and flags
        self.work = (
            np.zeros(L.STATE_SIZE, dtype=np.int64),
            np.zeros(L.MAX_MOVES, dtype=np.int64),
            np.zeros(L.MAX_MOVES, dtype=np.bool_),
            np.zeros(MAX_PATH, dtype=np.int32),
            np.zeros(64, dtype=np.int64),
            np.zeros(L.STATE_SIZE, dtype=np.int64),
            np.zeros(LOOKUP_SLOTS, dtype=np.int64),
            np.zeros(LOOKUP_SLOTS, dtype=np.int32),
            np.zeros(LOOKUP_SLOTS, dtype=np.int64),
            np.zeros(1, dtype=np.int64),
            np.zeros(L.MAX_MOVES, dtype=np.int32),
            np.zeros(L.MAX_MOVES, dtype=np.int32),
            np.zeros(LOG_TABLE_SIZE, dtype=np.float64),
            np.zeros(L.MAX_MOVES, dtype=np.float64),
            np.zeros(L.MAX_MOVES, dtype=np.bool_),
        )

    def _iterate(self, root, r, viewer, deal, n, exploration, policy, roots, model) -> int:
        return ismcts_iterate(
            (root, r, viewer), deal, self.tree.kernel_args(), self.work, n, self.rng, exploration, policy,
            roots, np.int64(self.solver), np.int64(model), np.float64(self.widen),
        )

    def run(self, root, r, viewer, deal, n, exploration, policy, roots=None, model=MODEL_MAXN) -> int:
        """Run ``n`` iterations, growing the tree whenever it fills (n = 0 only loads the
        compiled kernel). ``roots`` is ``(moves, mode)``, the root restriction; ``model``
        the opponent model's number."""
        roots = roots or _ALL_ROOT_MOVES
        if n == 0:
            load_growth_kernels()
        done = self._iterate(root, r, viewer, deal, n, exploration, policy, roots, model)
        while done < n:
            self.tree.grow()
            done += self._iterate(root, r, viewer, deal, n - done, exploration, policy, roots, model)
        return done


def search_viewer(pos: Position) -> int:
    """The seat the search speaks for: the file's viewer, or the seat to act."""
    if pos.is_over:
        raise SearchError("phase: the game is over; there is nothing to analyse")
    if pos.actor == L.ACTOR_CHANCE:
        raise SearchError("phase: the next event is chance (a random 4), not a player's decision")
    if pos.view is not None and pos.actor != pos.view:
        raise SearchError(
            f"view: it is {seat_name(pos.actor)}'s decision ({pos.phase_name}), but this file is "
            f"{seat_name(pos.view)}'s view; analyse a position where {seat_name(pos.view)} decides"
        )
    return pos.actor


def check_search_options(limit: Limit, threads: object, seed: object, rollout: object, exploration: object,
                         model: object = DEFAULT_MODEL, widen: object = None) -> None:
    """Refuse search options out of range, naming the option (the command line, the hint
    server and the API share these checks). A ``rollout`` or ``widen`` of None is the
    game's default (``limits.default_rollout``, ``limits.default_widen``)."""
    if not isinstance(limit, Limit):
        raise SearchError(f"limit: expected a Limit, got {brief(limit)}")
    if not _whole(threads) or not 1 <= threads <= MAX_THREADS:
        raise SearchError(f"threads: expected a whole number from 1 to {MAX_THREADS}, got {brief(threads)}")
    n = limit.effective_iterations
    if n is not None and threads > n:
        raise SearchError(f"threads: {threads} threads for {n:,} iterations; give every thread at least one iteration")
    if rollout is not None and (not isinstance(rollout, str) or rollout not in ROLLOUTS):
        raise SearchError(f"rollout: expected one of {', '.join(ROLLOUTS)}, got {brief(rollout)}")
    if not isinstance(model, str) or model not in MODELS:
        raise SearchError(f"model: expected one of {', '.join(MODELS)}, got {brief(model)}")
    problem = None if widen is None else widen_error(widen)
    if problem is not None:
        raise SearchError(problem)
    if not _number(exploration) or not 0 <= exploration <= MAX_EXPLORATION:
        raise SearchError(f"exploration: expected a finite number from 0 to {MAX_EXPLORATION:,g}, got {brief(exploration)}")
    if not _whole(seed) or not 0 <= seed <= MAX_SEED:
        raise SearchError(f"seed: expected a whole number from 0 to 2^63 - 1, got {brief(seed)}")


def threads_refusal(pos: Position, limit: Limit, threads: int, roots: tuple = _ALL_ROOT_MOVES) -> str | None:
    """Why ``threads`` threads may not share ``limit`` on ``pos`` (None when they may): an
    iteration budget that leaves each thread's tree fewer iterations than the moves it
    searches at the root (``roots``: ``root_restriction``'s), where such trees barely visit
    each move once and the summed visits that rank the moves would be noise. A time budget
    is not known ahead; a position with one move is not searched."""
    n = limit.effective_iterations
    if n is None or threads == 1:
        return None
    searchable = _searchable(roots)
    searched = sum(1 for code in pos.legal_codes() if searchable(int(code)))
    if searched < 2 or n // threads >= searched:
        return None
    most = max(1, n // searched)
    return (f"threads: {threads} threads for {n:,} iterations leave each tree {n // threads:,}, fewer than the "
            f"{searched} moves to search; use at most {most} thread{'s' * (most != 1)} or more iterations")


def run_search(
    pos: Position,
    limit: Limit,
    threads: int = 1,
    seed: int = 0,
    rollout: str | None = None,
    exploration: float = DEFAULT_EXPLORATION,
    progress: Callable[[int, "Snapshot"], None] | None = None,
    node_capacity: int = 1 << 16,
    inference: HandInference | None = None,
    cancel: CancelEvent | None = None,
    stop_rule: Callable[["Snapshot"], bool] | None = None,
    every: float = 0.1,
    allow_moves: object = None,
    avoid_moves: object = None,
    solver: bool = True,
    model: str = DEFAULT_MODEL,
    widen: float | None = None,
    best_reply: bool = False,
    estimate_only_move: bool = False,
) -> AnalysisResult:
    """Search ``pos`` for its viewer and rank the viewer's legal moves. ``inference``
    narrows the deals of the opponent's hidden cards (see :class:`HandInference`).

    ``progress`` is called about every ``every`` seconds with the iterations so far and a
    :class:`Snapshot`; setting ``cancel`` stops the search early (``stop_reason``
    "cancelled"); ``stop_rule`` is asked after each chunk of iterations whether to stop
    (``stop_reason`` "confident"). With one thread it is asked at fixed iteration counts,
    so a seed still reproduces the result. ``allow_moves`` / ``avoid_moves`` restrict the
    root moves searched and reported (see :func:`root_restriction`). ``solver=False`` turns
    off the exact solver's first answer and the MCTS-Solver (to measure what they bring).
    ``model`` is the opponent model: ``maxn`` (every seat for itself), ``paranoid`` (every
    opponent against the viewer) or ``random`` (opponents play uniformly at random); with
    two seats ``maxn`` and ``paranoid`` are the same search. ``widen`` is the progressive
    widening's visit scale below the root (0.0: off; see ``engine.ismcts.ismcts_iterate``);
    None is the game's default (``limits.default_widen``).
    ``rollout`` None is the game's default (``limits.default_rollout``: the learned value
    in the two-seat rulesets and Team, ``greedy`` elsewhere); the result names the one used.
    ``best_reply`` adds each searched move's ``best_reply_score`` (two sides; see
    :meth:`Tree.best_reply_score`). A position with one legal move is answered at once
    (``stop_reason`` "forced", no score) unless ``estimate_only_move``: then its one move
    is searched like any (review measures the luck of a forced draw so)."""
    viewer = search_viewer(pos)
    threads, seed, exploration, widen = (plain_number(x) for x in (threads, seed, exploration, widen))
    check_search_options(limit, threads, seed, rollout, exploration, model, widen)
    if not isinstance(best_reply, bool):
        raise SearchError(f"best_reply: expected true or false, got {brief(best_reply)}")
    if rollout is None:
        rollout = default_rollout(pos.rules)
    refusal = rollout_refusal(rollout, pos.rules)
    if refusal is not None:
        raise SearchError(f"rollout: {refusal}")
    widen = default_widen(pos.rules.name) if widen is None else float(widen) + 0.0  # -0.0 is 0.0
    model_id = MODELS[model]
    check_cancel(cancel)
    check_every(every)
    if progress is not None and not callable(progress):
        raise SearchError(f"progress: expected a function of (iterations, snapshot), got {brief(progress)}")
    if inference is not None and not isinstance(inference, HandInference):
        raise SearchError(f"inference: expected a HandInference, got {brief(inference)}")
    policy = ROLLOUTS[rollout]
    roots = root_restriction(pos, allow_moves, avoid_moves)
    legal = pos.legal_codes()
    if not isinstance(estimate_only_move, bool):
        raise SearchError(f"estimate_only_move: expected true or false, got {brief(estimate_only_move)}")
    if len(legal) == 1 and not estimate_only_move:  # nothing to choose: answer at once, whatever the budget
        return only_move(pos, viewer, int(legal[0]), threads, seed, rollout, exploration, model, widen)
    # exact when nothing is hidden, within the budget (a two-sided proof: not under a model of random opponents)
    first = solve_first(pos, limit, cancel) if solver and model_id != MODEL_RANDOM else None
    if first is not None and first.proven:
        solved = first.analysis(pos, threads, seed, rollout, exploration, model, widen)
        solved.stop_reason = "proven"
        return _restricted(solved, roots)
    if first is not None:
        limit = first.remaining(limit)
    refusal = threads_refusal(pos, limit, threads, roots)  # (once the solver has had its say)
    if refusal is not None:
        raise SearchError(refusal)
    r = pos.rules_array
    root = pos.state.copy()
    # what every determinization re-deals: the unseen cards, and the inference (excluded, fresh)
    deal = (
        np.int64(pos.guessed_cards),
        np.int64(0 if inference is None else inference.excluded),
        np.int64(0 if inference is None else inference.fresh),
    )
    total = limit.effective_iterations
    quotas = [None] * threads if total is None else [total // threads + (i < total % threads) for i in range(threads)]
    # a known budget reserves its nodes (one an iteration at most, and the root): the tree then grows in place
    workers = [_Worker(seed, i, node_capacity, solver, float(widen), (quotas[i] or 0) + 2) for i in range(threads)]
    deadline = None if limit.time is None else time.perf_counter() + limit.time
    chunk = 256 if deadline is not None else 2048
    stop = threading.Event()
    reason = ["budget"]
    compile_start = time.perf_counter()
    workers[0].run(root, r, viewer, deal, 0, float(exploration), policy, roots, model_id)  # compile or load, not timed
    compile_seconds = time.perf_counter() - compile_start
    start = time.perf_counter()

    solved_seconds = 0.0 if first is None else first.result.seconds  # (a partial's time counts the solver's too)

    def snapshot() -> Snapshot:
        return Snapshot(workers, pos, viewer, start - solved_seconds, threads, seed, rollout, exploration, roots, model)

    def work(i: int) -> None:
        w = workers[i]
        quota = quotas[i]
        while not stop.is_set():
            if cancel is not None and cancel.is_set():
                reason[0] = "cancelled"
                stop.set()
                return
            n = chunk if quota is None else min(chunk, quota - w.tree.iterations)
            if n <= 0:
                return
            w.run(root, r, viewer, deal, n, float(exploration), policy, roots, model_id)
            if deadline is not None and time.perf_counter() >= deadline:
                reason[0] = "time"
                return
            if stop_rule is not None and threads == 1 and stop_rule(snapshot()):
                reason[0] = "confident"
                stop.set()
                return

    if threads == 1 and progress is None:
        work(0)
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            futures = [pool.submit(work, i) for i in range(threads)]
            try:
                pending = set(futures)
                while pending:
                    _, pending = wait(pending, timeout=every)  # returns as soon as all are done
                    if progress is not None and pending:
                        progress(sum(w.tree.iterations for w in workers), snapshot())
                    if stop_rule is not None and threads > 1 and pending and stop_rule(snapshot()):
                        reason[0] = "confident"
                        stop.set()
            except KeyboardInterrupt:
                stop.set()
                raise
            finally:
                for f in futures:
                    f.result()
    elapsed = time.perf_counter() - start
    result = _merge(pos, viewer, workers, elapsed, threads, seed, rollout, exploration, roots, model, best_reply)
    result.compile_seconds = compile_seconds
    result.stop_reason = reason[0]
    return result if first is None else first.annotate(result)


def only_move(pos: Position, viewer: int, code: int, threads: int, seed: int, rollout: str, exploration: float,
              model: str, widen: float = DEFAULT_WIDEN) -> AnalysisResult:
    """The answer for a position with one legal move: that move, unsearched (visits 0, the
    score not estimated: 0 with the interval 0-1, as for any move the search never reached),
    ``stop_reason`` "forced"."""
    seats = pos.rules.players
    move = Move.from_code(code)
    stat = MoveStat(rank=1, move=move, visits=0, wins=0, draws=0, availability=0, score=0.0, win_rate=0.0,
                    draw_rate=0.0, interval=(0.0, 1.0), gap=0.0, pv=[move], seat_scores=(0.0,) * seats,
                    seat_win_rates=(0.0,) * seats)
    return AnalysisResult(
        viewer=viewer, phase=pos.phase_name, rules=pos.rules.spec, moves=[stat], iterations=0, determinizations=0,
        nodes=0, seconds=0.0, threads=threads, seed=seed, rollout=rollout, exploration=float(exploration),
        engine_version=__version__, position=pos.name, stop_reason="forced", seats=seats,
        sides=pos.sides, partner=int(partner(pos.state, pos.rules_array, viewer)),
        model=model, widen=widen,
    )


class Snapshot:
    """A live look at the search for a progress display or a partial answer (racy reads
    are fine there)."""

    def __init__(self, workers: list[_Worker], pos: Position, viewer: int, start: float, threads: int,
                 seed: int, rollout: str, exploration: float, roots: tuple, model: str) -> None:
        self.workers = workers
        self.pos = pos
        self._args = (viewer, start, threads, seed, rollout, exploration, roots, model)

    @property
    def iterations(self) -> int:
        return sum(w.tree.iterations for w in self.workers)

    def partial(self) -> AnalysisResult:
        """The analysis as it stands now, marked as taken during the search. Without the
        best-reply back-up: taken every 50 ms, its walk of the tree made a 250,000-iteration
        search on ``opening-p0`` 11-16% slower (docs/search.md, "The result")."""
        result = self.result()
        result.during_search = True
        result.stop_reason = None  # (the search has not stopped)
        return result

    def result(self) -> AnalysisResult:
        """The analysis as it stands now."""
        viewer, start, threads, seed, rollout, exploration, roots, model = self._args
        return _merge(self.pos, viewer, self.workers, time.perf_counter() - start, threads, seed, rollout, exploration,
                      roots, model)

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
        return Move.from_code(code).text(), (wins + draw_share(self.pos) * draws) / max(v, 1)


def draw_share(pos: Position) -> float:
    """What a stalemate is worth to each seat: the game shared among the sides (1/2 with two
    seats or two teams)."""
    return 1.0 / pos.sides


def best_reply_applies(pos: Position) -> bool:
    """Whether the best-reply back-up (``Tree.best_reply_score``) is given for ``pos``: where
    two sides play (two seats, or Team), since a node keeps only its mover's side's wins."""
    return pos.sides == 2


def best_reply_refusal(pos: Position) -> str | None:
    """Why the best-reply back-up is not given for ``pos`` (for a caller that asked for it
    by name), or None where it is."""
    if best_reply_applies(pos):
        return None
    return f"given where two sides play (two seats, or Team), not {pos.sides} ({pos.rules.spec})"


def best_reply_setting(pos: Position) -> tuple[int, int]:
    """How the best-reply back-up reads the tree of ``pos``: the visits a child needs to
    count, and the levels below the root move it reads (docs/strength.md, "The cause,
    measured"). In a two-seat game (stages: ``calibration.stage_of``) fewer visits count in
    the opening (plies 0-9), where the tree below the many root moves is thin and 5 left the
    opening optimistic; and at 10 cards or fewer in the deck it reads two levels, where the
    best of the noisy replies a third level down left the figure pessimistic. Team keeps 5
    visits and 3 levels, as measured."""
    if pos.rules.players == 2:
        stage = stage_of(pos.actions, pos.deck_size)
        if stage == 0:
            return BEST_REPLY_OPENING_MIN_VISITS, BEST_REPLY_DEPTH
        if stage == 3:
            return BEST_REPLY_MIN_VISITS, BEST_REPLY_LATE_DEPTH
    return BEST_REPLY_MIN_VISITS, BEST_REPLY_DEPTH


def _best_replies(pos, viewer, workers, root_stats, merged, share) -> dict[int, float]:
    """Each searched root move's ``Tree.best_reply_score``: with more than one thread, the
    visit-weighted mean of the threads' trees (``root_stats``: each tree's, as ``_merge``
    read them)."""
    def viewer_side(seat: int) -> bool:
        return bool(same_side(pos.state, pos.rules_array, seat, viewer))

    min_visits, depth = best_reply_setting(pos)

    out = {}
    for code, (v, *_rest) in merged.items():
        if not v:
            continue
        total, weight = 0.0, 0
        for w, seen in zip(workers, root_stats):
            x = w.tree.best_reply_score(code, viewer_side, share, min_visits, depth)
            if x is not None:
                n = seen.get(code, (0,))[0]
                total += n * x
                weight += n
        if weight:
            out[code] = total / weight
    return out


def known_prefix(line: list[Move], hidden: int) -> int:
    """How many moves of ``line`` come before the first that shows a card in the mask
    ``hidden`` (cards the viewer cannot see: there the line follows the deals the search
    guessed, not anything the viewer knows)."""
    for i, move in enumerate(line):
        shown = (move.card, move.target, *move.cards)
        if any(c is not None and (hidden >> c) & 1 for c in shown):
            return i
    return len(line)


def _merge(pos, viewer, workers, elapsed, threads, seed, rollout, exploration, roots=_ALL_ROOT_MOVES,
           model=DEFAULT_MODEL, best_reply=False) -> AnalysisResult:
    merged: dict[int, list[int]] = {}
    root_stats = [w.tree.root_stats() for w in workers]  # once per worker: each call walks the root
    for stats_w in root_stats:
        for code, (v, wins, draws, avail) in stats_w.items():
            acc = merged.setdefault(code, [0, 0, 0, 0])
            for i, x in enumerate((v, wins, draws, avail)):
                acc[i] += x
    seats = pos.rules.players
    by_seat: dict[int, list[int]] = {}  # each seat's (side's) wins below every root move
    for w in workers:
        for code, split in w.tree.root_seat_wins(seats).items():
            acc = by_seat.setdefault(code, [0] * seats)
            for q, x in enumerate(split):
                acc[q] += x
    searchable = _searchable(roots)
    for code in pos.legal_codes():  # a move the budget never reached still gets a row (if searchable)
        if searchable(int(code)):
            merged.setdefault(int(code), [0, 0, 0, 0])
    proven: dict[int, int] = {}  # the MCTS-Solver's proofs at the root (nothing hidden only)
    for w in workers:
        proven.update(w.tree.root_proven())
    share = draw_share(pos)
    hidden = pos.guessed_cards  # the cards the tree's lines guess at (none in a full view)
    replies = {}  # the best-reply back-up, when asked for and given (best_reply_applies)
    if best_reply and best_reply_applies(pos):
        replies = _best_replies(pos, viewer, workers, root_stats, merged, share)
    order = sorted(merged.items(), key=lambda kv: (-kv[1][0], -(kv[1][1] + share * kv[1][2]), kv[0]))
    best_score = None
    stats = []
    rates = rollout not in ROLLOUT_SETTLES  # settled playouts: the score only (limits.ROLLOUT_SETTLES)
    for rank, (code, (v, wins, draws, avail)) in enumerate(order, 1):
        score, lo, hi = score_interval(v, wins, draws, share)
        seat_wins = by_seat.get(code, [0] * seats)
        seat_scores = tuple((x + share * draws) / v if v else 0.0 for x in seat_wins)
        seat_rates = tuple(x / v if v else 0.0 for x in seat_wins)
        if code in proven:  # exact, whatever the visits before the proof said
            score = lo = hi = 1.0 if proven[code] > 0 else 0.0
            seat_rates = seat_scores = tuple(float((q == viewer) == (proven[code] > 0)) for q in range(seats))
        if best_score is None:
            best_score = score
        owner = workers[max(range(len(workers)), key=lambda i: root_stats[i].get(code, (0,))[0])]
        pv = [Move.from_code(c) for c in owner.tree.principal_variation(code)] if v else [Move.from_code(code)]
        known = known_prefix(pv, hidden)
        stats.append(
            MoveStat(
                rank=rank,
                move=Move.from_code(code),
                visits=v,
                wins=wins,
                draws=draws,
                availability=avail,
                score=score,
                win_rate=float(proven[code] > 0) if code in proven else (wins / v if v else 0.0) if rates else None,
                draw_rate=0.0 if code in proven else (draws / v if v else 0.0) if rates else None,
                interval=(lo, hi),
                gap=best_score - score,
                pv=pv,
                pv_known=None if known == len(pv) else known,
                seat_scores=seat_scores,
                seat_win_rates=seat_rates if rates else None,
                best_reply_score=None if code in proven else replies.get(code),
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
        seats=pos.rules.players,
        widen=workers[0].widen,
        sides=pos.sides,
        partner=int(partner(pos.state, pos.rules_array, viewer)),
        model=model,
    )
