"""Exact answers for perfect-information positions: the Python side of the engine's solver.

``solve(position)`` gives every legal move of the player to act its exact value (win, draw
or loss for that player, and the plies to the end under best play), the principal line and
the search figures. It needs a position with no hidden card: a full-information position
(the deck order known), or a one-seat view once the deck is empty (both hands are then
visible, and the loader already refuses ``??`` in them). The kernel and the meaning of its
values are documented in ``cuttle_search/engine/solver.py``.
"""

from __future__ import annotations

import threading
import time as _time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..engine import layout as L
from ..engine import state as S
from ..engine.apply import apply_move
from ..engine import solver as V
from ..game.moves import Move
from ..game.position import Position
from ..game.seats import seat_name
from ..game.formats import as_position
from .limits import Limit, SearchError

DEFAULT_TT_BITS = 20  # 2**20 table slots of 64 bytes in pairs (pages are touched only as used)
VALUES = ("win", "draw", "loss", "expected")


@dataclass(frozen=True)
class SolvedMove:
    """One root move. ``value`` is "win", "draw" or "loss" for the player to act, "expected"
    when a ``four=random`` 4 leaves the result to chance (``score`` is then the expected
    score), or ``None`` when the budget ran out before the move was solved."""

    rank: int
    move: Move
    value: str | None
    score: float | None  # 1 a win, 1/2 a draw, 0 a loss (an expectation through chance)
    plies: int | None  # plies to the end under best play (the move included)
    pv: list[Move] = field(default_factory=list)
    raw: float = 0.0  # the kernel's value (see engine/solver.py)

    @property
    def proven(self) -> bool:
        return self.value is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "move": self.move.text(),
            "moveJson": self.move.to_json(),
            "proven": self.proven,
            "value": self.value,
            "score": None if self.score is None else round(self.score, 6),
            "plies": self.plies,
            "pv": [m.text() for m in self.pv],
        }


@dataclass
class SolveResult:
    """What ``solve`` returns; ``to_json`` gives the stable JSON form."""

    actor: int
    phase: str
    rules: str
    moves: list[SolvedMove]
    nodes: int
    seconds: float
    node_budget: int | None
    time_budget: float | None
    position: str = ""
    stop_reason: str = "complete"  # complete | nodes | time | interrupted
    compile_seconds: float = 0.0  # loading (or first compiling) the kernels, not in ``seconds``

    @property
    def proven(self) -> bool:
        """Whether every move got its exact value."""
        return all(m.proven for m in self.moves)

    @property
    def value(self) -> str | None:
        """The value of the position for the player to act, once every move is solved
        (or once a move is a proven win: nothing can beat it but a shorter win, so the
        best move is known only when all are solved)."""
        return self.moves[0].value if self.proven else None

    @property
    def nodes_per_second(self) -> float:
        """The search's rate: ``seconds`` is the search alone, the kernels' load is not in it."""
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        solved = sum(m.proven for m in self.moves)
        return {
            "position": self.position,
            "pointOfView": seat_name(self.actor),
            "note": f"values are {seat_name(self.actor)}'s (the player to act); plies count to the end of the game",
            "phase": self.phase,
            "rules": self.rules,
            "proven": self.proven,
            "value": self.value,
            "solvedMoves": solved,
            "moves": [m.to_json() for m in self.moves],
            "nodes": self.nodes,
            "nodesPerSecond": round(self.nodes_per_second, 1),
            "seconds": round(self.seconds, 6),
            "compileSeconds": round(self.compile_seconds, 6),
            "budget": {"nodes": self.node_budget, "time": self.time_budget},
            "stopReason": self.stop_reason,
        }


def check_solvable(pos: Position) -> None:
    """Raise ``SearchError`` unless ``pos`` is a decision with nothing hidden."""
    if pos.is_over:
        raise SearchError("phase: the game is over; there is nothing to solve")
    if pos.actor == L.ACTOR_CHANCE:
        raise SearchError("phase: the next event is chance (a random 4), not a player's decision")
    if pos.rules.players != 2:
        raise SearchError(f"rules: the exact solver plays two seats; {pos.rules.name} has {pos.rules.players}")
    if not pos.rules.exact_solvable:
        raise SearchError(f"rules: {pos.rules.name} reshuffles its scrap into the draw pile, a chance event the exact "
                          "solver does not play")
    if not is_single_state(pos):
        h = pos.hidden
        assert h is not None  # a position with hidden cards is a view with its Hidden
        where = []
        hand = sum(h.hand_unknown.values())
        if hand:
            where.append(f"{hand} in a hand")
        if h.deck_unknown:
            where.append(f"{h.deck_unknown} in the deck")
        raise SearchError(
            f"view: {seat_name(h.viewer)}'s view hides cards ({', '.join(where)}); the solver needs a position "
            "with every card known (a full view, or an empty deck)"
        )


def is_single_state(pos: Position) -> bool:
    """Whether the viewer's information set is one state: nothing hidden."""
    h = pos.hidden
    return h is None or (not any(h.hand_unknown.values()) and h.deck_unknown == 0)


def _check_budget(nodes: int | None, seconds: float | None) -> None:
    if nodes is not None and (not isinstance(nodes, int) or isinstance(nodes, bool) or nodes < 1):
        raise SearchError(f"nodes: expected a whole number >= 1, got {nodes!r}")
    if seconds is not None and (not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not seconds > 0):
        raise SearchError(f"time: expected a number of seconds > 0, got {seconds!r}")


class Solver:
    """The solver's buffers for one position, kept so that repeated solves reuse them."""

    def __init__(self, pos: Position, tt_bits: int = DEFAULT_TT_BITS) -> None:
        if not isinstance(tt_bits, int) or not 4 <= tt_bits <= 30:
            raise SearchError(f"tt_bits: expected a whole number from 4 to 30, got {tt_bits!r}")
        r = pos.rules_array
        # every move adds one action and the cap ends the game: this bounds the depth
        depth = int(r[L.R_ACTION_LIMIT]) - pos.actions + 2
        depth = max(depth, 2)
        self.states = np.zeros((depth + 1, L.STATE_SIZE), dtype=np.int64)
        self.bufs = np.zeros((depth + 1, L.MAX_MOVES), dtype=np.int64)
        self.orders = np.zeros((depth + 1, L.MAX_MOVES), dtype=np.int64)
        self.table = np.zeros((1 << tt_bits, V.TT_WORDS), dtype=np.int64)  # zero: empty slots
        self.ctl = np.zeros(V.CTL_SIZE, dtype=np.int64)
        self.ff = np.zeros((depth + 1, V.FR_FLOATS), dtype=np.float64)
        self.fi = np.zeros((depth + 1, V.FR_INTS), dtype=np.int64)
        self.fkey = np.zeros(depth + 1, dtype=np.uint64)
        self.rkey = np.zeros(depth + 1, dtype=np.uint64)

    def tt(self) -> tuple[np.ndarray, ...]:
        """The table as the kernels take it: three views of one buffer."""
        return self.table.view(np.uint64), self.table.view(np.float64), self.table


@dataclass(frozen=True)
class SolveProgress:
    """What a running solve has done (``solve``'s ``progress`` callback gets one about
    every ``PROGRESS_EVERY`` seconds): the nodes so far, the seconds, the stage ("win": can
    each move win; "values": each move's win, draw or loss; "plies": the plies of the wins
    and losses) and how many of the root moves that stage has finished (a draw counts as
    finished in the plies stage: it has none), out of ``total``, every legal move."""

    nodes: int
    seconds: float
    stage: str
    done: int
    total: int


PROGRESS_EVERY = 0.25


class _Stage:
    """The stage a solve is in and the array in which its kernel marks the root moves it
    has finished (read from another thread for the progress display: a racy read of a
    count is fine there)."""

    def __init__(self) -> None:
        self.now: tuple[str, np.ndarray] = ("win", np.zeros(0, dtype=np.int64))

    def enter(self, name: str, done: np.ndarray) -> None:
        self.now = (name, done)  # one store: a reader never sees one stage's name with another's array


def _win_draw_loss(sv: Solver, r: np.ndarray, moves: np.ndarray, n: int, wdl: np.ndarray, proven: np.ndarray,
                   stage: _Stage) -> None:
    """The first pass: every root move's value without the tie-break into ``wdl`` (``WIN``,
    0, ``-WIN``), ``proven`` set for the moves it reached before a budget ran out.

    Without chance a value is one of three, found by two null-window tests (most hard
    positions are draws, and a test prunes far better than a full window): can the move
    win (a window around ``WIN``), and for the moves that cannot, can it avoid losing (a
    window around 0). Through a random 4 values are expectations: one full-window search."""
    if r[L.R_FOUR_RANDOM]:
        inf = np.full(n, V.INF)
        stage.enter("values", proven)
        V.solve_moves(sv.states, sv.bufs, sv.orders, r, moves, n, -inf, inf, 0, wdl, proven, *sv.tt(), sv.ctl,
                      sv.ff, sv.fi, sv.fkey, sv.rkey)
        return
    tested = np.zeros(n, dtype=np.int64)
    first = np.zeros(n, dtype=np.float64)
    stage.enter("win", tested)
    V.solve_moves(sv.states, sv.bufs, sv.orders, r, moves, n, np.zeros(n), np.full(n, V.WIN), 0, first, tested,
                  *sv.tt(), sv.ctl, sv.ff, sv.fi, sv.fkey, sv.rkey)
    for i in range(n):
        if tested[i] and first[i] >= V.WIN:
            wdl[i] = V.WIN
            proven[i] = 1
    if sv.ctl[V.CTL_ABORTED]:
        return
    proven_before = proven.copy()
    stage.enter("values", proven)
    V.solve_moves(sv.states, sv.bufs, sv.orders, r, moves, n, np.full(n, -V.WIN), np.zeros(n), 0, wdl, proven,
                  *sv.tt(), sv.ctl, sv.ff, sv.fi, sv.fkey, sv.rkey)
    for i in range(n):
        if proven[i] and not proven_before[i]:
            wdl[i] = -V.WIN if wdl[i] <= -V.WIN else 0.0


def _plies(sv: Solver, r: np.ndarray, moves: np.ndarray, n: int, wdl: np.ndarray, exact: np.ndarray,
           refined: np.ndarray, actions: int, stage: _Stage) -> None:
    """The second pass: the plies of every won or lost root move under best play (the
    shortest win, the longest loss), as its tie-break value into ``exact`` (``refined``
    set), until a budget runs out. Draws and expectations have none.

    Like a mate search, by null-window tests "does the winner win within L plies?", but
    from above: the first pass proved that the game ends (before the action cap), so the
    first test asks for one ply less than the cap, and each test that holds asks next for
    one ply less than the win its fail-soft value shows; the first that fails, with the
    last that held, gives the plies. (Counting up from 1 instead, every test below the
    answer must refute every line to its horizon, and the deeper ones cost the most: on
    the slowest benchmark position the pass took 123 million nodes that way and 47 million
    this way.) A test of L stops every line at its horizon (a game that ends does so after
    one more action at the soonest) and cuts wherever the first pass found that the winner
    cannot win at all."""
    refined[:] = (np.abs(wdl) != V.WIN).astype(np.int64)  # draws and expectations have no plies
    stage.enter("plies", refined)
    low = np.ones(n, dtype=np.int64)  # plies: no fewer than this (the root move included)
    high = np.full(n, int(r[L.R_ACTION_LIMIT]) - actions, dtype=np.int64)  # and no more than this
    values = np.zeros(n, dtype=np.float64)
    while not refined.all() and not sv.ctl[V.CTL_ABORTED]:
        lo = np.full(n, -V.INF)
        hi = np.full(n, V.INF)
        done = refined.copy()
        for i in range(n):
            if not refined[i]:
                end = float(actions + high[i] - 1)  # does the winner win by this action count?
                if wdl[i] == V.WIN:
                    lo[i], hi[i] = V.WIN - end - 1, V.WIN - end
                else:
                    lo[i], hi[i] = -(V.WIN - end), -(V.WIN - end) + 1
        V.solve_moves(sv.states, sv.bufs, sv.orders, r, moves, n, lo, hi, 1, values, done, *sv.tt(), sv.ctl,
                      sv.ff, sv.fi, sv.fkey, sv.rkey)
        for i in range(n):
            if refined[i] or not done[i]:
                continue
            plies = high[i] - 1
            # the fail-soft value bounds the plies: a win by this many, or none before
            shown = int(round(V.WIN - abs(float(values[i])))) - actions
            won = values[i] >= hi[i] if wdl[i] == V.WIN else values[i] <= lo[i]
            if won:
                high[i] = min(plies, shown)
            else:
                low[i] = max(plies + 1, shown)
            if low[i] >= high[i]:
                end = actions + high[i]
                exact[i], refined[i] = (V.WIN - end) if wdl[i] == V.WIN else -(V.WIN - end), 1


# ---------------------------------------------------------------- twin root moves
def root_twins(pos: Position, moves: np.ndarray, n: int) -> tuple[list[int], list[list[int] | None]]:
    """For each root move, the index of the first move whose result is the same position
    up to the suits of a royal rank (itself when none is), and the map of cards from that
    move's line to this one's (None for itself): ``engine/solver.root_twins``."""
    return V.root_twins(pos.state, pos.rules_array, moves, n)


def _line(pos: Position, sv: Solver, code: int, gen: int, draw: bool = False) -> tuple[list[Move], bool]:
    """The principal line after the root move ``code`` (a ``draw`` when so proven) from the
    table, and whether it reaches the end of the game."""
    child = pos.state.copy()
    apply_move(child, pos.rules_array, np.int64(code))
    out = np.zeros(256, dtype=np.int64)
    k = int(V.principal_line(child, pos.rules_array, sv.bufs[0], *sv.tt(), gen, draw, out))
    return [Move.from_code(code)] + [Move.from_code(int(c)) for c in out[:k]], S.get(child, "phase") == L.PH_OVER


def _classify(wdl: float, pos: Position) -> tuple[str, float]:
    """(value, score) of a win/draw/loss value (``WIN``, 0, ``-WIN``, or a mean of them
    through a chance node) for the player to act."""
    if wdl == V.WIN:
        return "win", 1.0
    if wdl == -V.WIN:
        return "loss", 0.0
    if wdl == 0.0 and not pos.rules_array[L.R_FOUR_RANDOM]:
        return "draw", 0.5
    return "expected", 0.5 + wdl / (2 * V.WIN)


def solve(position, nodes: int | None = None, time: float | None = None, tt_bits: int = DEFAULT_TT_BITS,
          solver: Solver | None = None, progress: Callable[[SolveProgress], None] | None = None,
          interruptible: bool = False) -> SolveResult:
    """Solve ``position`` (a Position, a path, a dict or JSON text) exactly within the budgets:
    ``nodes`` (a node count, looked at every 1,024 nodes) and ``time`` (seconds), whichever
    runs out first; with neither, to the end.

    Two passes: the first proves every move a win, draw or loss (the values the search
    prunes best with), by two null-window tests; the second finds the plies of each win
    and loss under best play (the shortest win, the longest loss) like a mate search.
    Moves whose results are the same position up to the suits of a royal rank share one
    search. A move the first pass did not reach is unproven (``value`` None); a proven
    move the second pass did not reach has ``plies`` None.

    With ``progress`` or ``interruptible`` the search runs on a worker thread (the kernels
    release the GIL) while this thread calls ``progress`` with a ``SolveProgress`` about
    every ``PROGRESS_EVERY`` seconds and stays responsive to Ctrl-C: a ``KeyboardInterrupt``
    stops the search at once and, with ``interruptible``, the result is what was proven so
    far (``stop_reason`` "interrupted"); without it the interrupt is raised again."""
    pos = as_position(position)
    check_solvable(pos)
    _check_budget(nodes, time)
    sv = solver if solver is not None else Solver(pos, tt_bits)
    r = pos.rules_array
    sv.states[0] = pos.state
    sv.ctl[:] = 0
    sv.ctl[V.CTL_BUDGET] = 0 if nodes is None else nodes
    moves = np.zeros(L.MAX_MOVES, dtype=np.int64)
    timer = None
    if time is not None:
        timer = threading.Timer(time, lambda: sv.ctl.__setitem__(V.CTL_STOP, 1))
        timer.daemon = True
    load_start = _time.perf_counter()
    n = int(V.root_moves(sv.states, sv.orders, r, moves))
    load_kernels(pos, sv, moves, n)  # compile or load every kernel of the solve, not timed
    start = _time.perf_counter()
    # twin moves (the same position up to the suits of a royal rank) share one search
    rep, maps = root_twins(pos, moves, n)
    own = [i for i in range(n) if rep[i] == i]
    at = {i: j for j, i in enumerate(own)}
    index = np.array([at[rep[i]] for i in range(n)], dtype=np.int64)  # each move's search
    m = len(own)
    searched = moves[own].copy()
    wdl = np.zeros(m, dtype=np.float64)
    proven = np.zeros(m, dtype=np.int64)
    exact = np.zeros(m, dtype=np.float64)
    refined = np.zeros(m, dtype=np.int64)
    stage = _Stage()
    lines: dict[int, tuple[list[Move], bool]] = {}

    def work() -> None:
        _win_draw_loss(sv, r, searched, m, wdl, proven, stage)
        draws = proven.astype(bool) & (wdl == 0.0) & (not r[L.R_FOUR_RANDOM])
        lines.update({j: _line(pos, sv, int(searched[j]), 1, bool(draws[j])) for j in range(m) if proven[j]})
        if not sv.ctl[V.CTL_ABORTED]:
            _plies(sv, r, searched, m, wdl, exact, refined, pos.actions, stage)

    if timer is not None:
        timer.start()
    interrupted = False
    try:
        if progress is None and not interruptible:
            work()
        else:
            def report() -> None:
                if progress is not None:
                    name, done = stage.now
                    progress(SolveProgress(int(sv.ctl[V.CTL_NODES]), _time.perf_counter() - start, name,
                                           int(done[index].sum()), n))

            interrupted = _watched(work, sv, report, interruptible)
    finally:
        if timer is not None:
            timer.cancel()
    elapsed = _time.perf_counter() - start
    if not sv.ctl[V.CTL_ABORTED]:  # (an interrupt after the last search stopped nothing)
        reason = "complete"
    elif interrupted:
        reason = "interrupted"
    elif nodes is not None and sv.ctl[V.CTL_NODES] >= nodes:
        reason = "nodes"
    else:
        reason = "time"
    relabel = [(lambda line, lab=lab: line) if lab is None
               else (lambda line, lab=lab: [Move.from_code(V.relabel_move(x.code(), lab)) for x in line])
               for lab in maps]
    actions = pos.actions
    rows = []
    for i in range(n):
        j = int(index[i])
        move = Move.from_code(int(moves[i]))
        if not proven[j]:
            rows.append(((-2.0, 0.0), i, move, None, None, None, [move], 0.0))
            continue
        value, score = _classify(float(wdl[j]), pos)
        plies = None
        pv, ended = lines[j]
        raw = float(wdl[j])
        if value in ("win", "loss") and refined[j]:
            plies = int(round(V.WIN - abs(float(exact[j])))) - actions
            pv, _ended = _line(pos, sv, int(searched[j]), 2)
            raw = float(exact[j])
        elif value == "draw" and ended:
            plies = len(pv)  # a draw has no tie-break: the length of the line shown
        # rank: the score, then the sooner win or the later loss
        tie = 0.0 if plies is None else (-plies if value == "win" else plies)
        rows.append(((score, tie), i, move, value, score, plies, relabel[i](pv), raw))  # type: ignore[arg-type]  # rows holds proven and unproven moves
    rows.sort(key=lambda row: (-row[0][0], -row[0][1], row[1]))
    result_moves = [
        SolvedMove(rank, move, value, score, plies, pv, raw)
        for rank, (_key, i, move, value, score, plies, pv, raw) in enumerate(rows, 1)
    ]
    return SolveResult(
        actor=pos.actor,
        phase=pos.phase_name,
        rules=pos.rules.spec,
        moves=result_moves,
        nodes=int(sv.ctl[V.CTL_NODES]),
        seconds=elapsed,
        node_budget=nodes,
        time_budget=time,
        position=pos.name,
        stop_reason=reason,
        compile_seconds=start - load_start,
    )


def load_kernels(pos: Position, sv: Solver, moves: np.ndarray, n: int) -> None:
    """Load (or compile, on a first run) every kernel ``solve`` calls, so that its clock
    times the search alone: the search (run on no move), a move's application (the twin
    moves and the lines use it) and the principal line (of no length)."""
    r = pos.rules_array
    empty = np.zeros(0, dtype=np.float64)
    none = np.zeros(0, dtype=np.int64)
    V.solve_moves(sv.states, sv.bufs, sv.orders, r, moves, 0, empty, empty, 0, empty, none, *sv.tt(), sv.ctl, sv.ff,
                  sv.fi, sv.fkey, sv.rkey)
    child = pos.state.copy()
    if n:
        apply_move(child, r, np.int64(moves[0]))
    V.principal_line(child, r, sv.bufs[0], *sv.tt(), 1, False, none)


def _watched(work: Callable[[], None], sv: Solver, report: Callable[[], None], interruptible: bool) -> bool:
    """Run ``work`` on a worker thread, calling ``report`` every ``PROGRESS_EVERY`` seconds
    until it ends; returns whether a ``KeyboardInterrupt`` stopped it (raised again unless
    ``interruptible``). Whatever ends the wait early (an interrupt, an exception from
    ``report``) sets the kernel's stop flag and waits for the worker, which ends within
    ``CHECK_EVERY`` nodes, so no search outlives the call; a second interrupt meanwhile is
    ignored. The worker's own exceptions come back to this thread."""
    failure: list[BaseException] = []
    finished = threading.Event()  # (not Thread.join: an interrupted join can return early later)

    def run() -> None:
        try:
            work()
        except BaseException as e:  # handed to the calling thread
            failure.append(e)
        finally:
            finished.set()

    interrupted = False
    try:
        threading.Thread(target=run, name="cuttle-solve", daemon=True).start()
        while not finished.wait(PROGRESS_EVERY):
            report()
    except BaseException as e:
        sv.ctl[V.CTL_STOP] = 1
        while not finished.is_set():
            try:
                finished.wait(PROGRESS_EVERY)
            except KeyboardInterrupt:
                pass
        if not (interruptible and isinstance(e, KeyboardInterrupt)):
            raise
        interrupted = True
    if failure:
        raise failure[0]
    return interrupted


def solve_table(result: SolveResult) -> str:
    """The text form of a solve: a header and one row per move."""
    pov = seat_name(result.actor)
    solved = sum(m.proven for m in result.moves)
    why = {"interrupted": "interrupted", "nodes": "the node budget ran out",
           "time": "the time budget ran out"}.get(result.stop_reason, "")
    if result.proven:
        verdict = f"proven: {result.value} for {pov}"
        if why:  # the values are all in, some plies are not
            verdict += f" (plies not all found: {why})"
    else:
        verdict = f"not proven: {why or 'the budget ran out'} with {solved} of {len(result.moves)} moves solved"
    lines = [
        f"{result.position}: {pov} to act ({result.phase}), rules {result.rules}",
        f"{verdict}; {result.nodes:,} nodes in {result.seconds:.3f} s ({result.nodes_per_second:,.0f} nodes/s; "
        f"loading the engine {result.compile_seconds:.3f} s, not counted)",
        f"values are {pov}'s; plies count to the end of the game under best play",
        "",
    ]
    header = ("#", "move", "value", "plies", "principal line")
    rows = []
    for m in result.moves:
        value = "not proven" if m.value is None else m.value
        if m.value == "expected":
            value = f"expected {m.score:.3f}"
        rows.append((str(m.rank), m.move.text(), value, "-" if m.plies is None else str(m.plies),
                     ", ".join(x.text() for x in m.pv[:10]) + (", ..." if len(m.pv) > 10 else "")))
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    for r in [header] + rows:
        cells = [c.rjust(w) if i in (0, 3) else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


# ---------------------------------------------------------------- the analyser's first step
NODES_PER_ITERATION = 40  # the solver's node budget per tree iteration: about the same time
SOLVE_FIRST_DECK = 4  # with more cards in a known deck the exact search rarely finishes in a hint's budget
_RANK_GROUP = {"win": 0, "draw": 1, "expected": 1}  # proven losses go below every unproven move


def solver_applies(pos: Position) -> bool:
    """Whether ``analyse`` solves first: two seats (the solver's values are two-sided),
    nothing hidden from the player to act (the deck is empty, or a full view) and at most
    ``SOLVE_FIRST_DECK`` cards in the deck."""
    return (pos.rules.exact_solvable and not pos.is_over and pos.actor != L.ACTOR_CHANCE and is_single_state(pos)
            and pos.deck_size <= SOLVE_FIRST_DECK)


@dataclass
class FirstSolve:
    """The solver's answer before the tree search: all of it, or what it proved in time."""

    result: SolveResult

    @property
    def proven(self) -> bool:
        return self.result.proven

    def info(self) -> dict[str, Any]:
        r = self.result
        return {"proven": r.proven, "value": r.value, "solvedMoves": sum(m.proven for m in r.moves),
                "nodes": r.nodes, "seconds": round(r.seconds, 6), "nodesPerSecond": round(r.nodes_per_second, 1),
                "nodeBudget": r.node_budget}

    def remaining(self, limit):
        """The tree's budget: the time the solver left (the iterations are unchanged)."""
        if limit.time is None:
            return limit
        return Limit(limit.iterations, max(limit.time - self.result.seconds, 0.01))

    def analysis(self, pos: Position, threads: int, seed: int, rollout: str, exploration: float):
        """An ``AnalysisResult`` that is the solver's answer (no tree search)."""
        from ..version import __version__
        from .result import AnalysisResult, MoveStat

        best = self.result.moves[0].score
        viewer = pos.actor

        def by_seat(mine: float, theirs: float) -> tuple[float, ...]:
            """The viewer's figure and the other seat's, seat by seat (the solver plays two)."""
            return tuple(mine if q == viewer else theirs for q in range(pos.rules.players))

        stats = [
            MoveStat(rank=m.rank, move=m.move, visits=0, wins=0, draws=0, availability=0, score=m.score,  # type: ignore[arg-type]  # every move here is proven: it has a score
                     win_rate=1.0 if m.value == "win" else 0.0, draw_rate=1.0 if m.value == "draw" else 0.0,
                     interval=(m.score, m.score), gap=best - m.score, pv=m.pv, solved=True, proven=m.value,  # type: ignore[arg-type, operator]
                     plies=m.plies, seat_scores=by_seat(m.score, 1.0 - m.score),  # type: ignore[arg-type, operator]
                     seat_win_rates=by_seat(float(m.value == "win"), float(m.value == "loss")))
            for m in self.result.moves
        ]
        return AnalysisResult(
            viewer=pos.actor, phase=pos.phase_name, rules=pos.rules.spec, moves=stats, iterations=0,
            determinizations=0, nodes=0, seconds=self.result.seconds, threads=threads, seed=seed, rollout=rollout,
            exploration=float(exploration), engine_version=__version__, position=pos.name, solver=self.info(),
        )

    def annotate(self, tree):
        """The tree's result with the proven values added: proven wins (the shortest first),
        then proven draws, then the unproven moves in the tree's order, then proven losses
        (the longest first). A proven value is exact; an unproven move may still be anything."""
        from dataclasses import replace

        solved = {m.move.code(): m for m in self.result.moves}
        rows = []
        for i, ms in enumerate(tree.moves):
            sm = solved.get(ms.move.code())
            value = sm.value if sm is not None else None
            if value is None and ms.proven is not None:  # the tree's MCTS-Solver proved it
                value = ms.proven
            group = 2 if value is None else _RANK_GROUP.get(value, 3)
            exact = sm is not None and sm.value is not None
            order = (group, -(sm.score or 0.0) if exact else 0.0,
                     (sm.plies or 0) * (1 if value == "win" else -1) if exact and value in ("win", "loss") else 0, i)
            pv = sm.pv if exact and len(sm.pv) > 1 else ms.pv
            plies = sm.plies if sm is not None and sm.value is not None else None
            rows.append((order, replace(ms, solved=True, proven=value, plies=plies, pv=pv)))
        rows.sort(key=lambda row: row[0])
        tree.moves = [replace(ms, rank=rank) for rank, (_o, ms) in enumerate(rows, 1)]
        best = tree.moves[0].score
        tree.moves = [replace(ms, gap=best - ms.score) for ms in tree.moves]
        tree.solver = self.info()
        return tree


def solve_first(pos: Position, limit) -> FirstSolve | None:
    """Run the solver within ``limit`` (a search ``Limit``) when it applies, else None."""
    if not solver_applies(pos):
        return None
    iterations = limit.effective_iterations
    nodes = None if iterations is None else iterations * NODES_PER_ITERATION
    seconds = None if limit.time is None else limit.time / 2
    return FirstSolve(solve(pos, nodes=nodes, time=seconds))
