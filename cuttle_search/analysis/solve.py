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
from typing import Callable

import numpy as np

from ..engine import layout as L
from ..engine import state as S
from ..engine.apply import apply_move
from ..engine import solver as V
from ..game.moves import Move
from ..game.position import Position
from ..game.seats import plain_number, seat_name, whole
from ..game.formats import as_position
from .limits import MAX_NODES, CancelEvent, Limit, SearchError, check_cancel
from .solve_result import VALUES, SolvedMove, SolveResult, solve_table
from .solve_threads import PROGRESS_EVERY, SolveProgress, _Stage, watched

# the solver's names, wherever they live (solve_result: the answer and its table;
# solve_threads: the worker thread and its progress): callers import them from here
__all__ = ["DEFAULT_TT_BITS", "PROGRESS_EVERY", "VALUES", "SolveProgress", "SolveResult", "SolvedMove", "Solver",
           "check_solvable", "is_single_state", "load_kernels", "root_twins", "solve", "solve_table"]

DEFAULT_TT_BITS = 20  # 2**20 table slots of 64 bytes in pairs (pages are touched only as used)
FIRST_ALLOWANCE = 1 << 12  # nodes each root move may take in a stage's first round (``_in_rounds``)
ALLOWANCE_GROWTH = 4  # and how much more in each round after
FIRST_HORIZON = 8  # plies of a root move's first short look for a win or a loss (``_RootMoves._value``)


def _in_rounds(sv: Solver, search: Callable[[int], bool], done: np.ndarray) -> None:
    """Run ``search(i)`` (root move ``i`` goes on from where it stopped; True once it is
    finished) on the moves not yet ``done``, one at a time, in rounds: in each round every such move may take an allowance of nodes, which grows
    ``ALLOWANCE_GROWTH``-fold from ``FIRST_ALLOWANCE`` a round, until every move is done or
    the caller's own budget (nodes, time, an interrupt) runs out, which leaves
    ``ctl[CTL_ABORTED]`` set. So a move that settles quickly is proven before a hard one
    takes the whole budget: searched in turn to the end, one hard move's search could
    spend a minute while a loss in two plies behind it waited unproven. A search stopped by
    its allowance stores nothing of the node it was in (``negamax``), so its table entries
    stay exact and the next round starts from them."""
    budget = int(sv.ctl[V.CTL_BUDGET])
    allowance = FIRST_ALLOWANCE
    try:
        while not done.all():
            for i in np.flatnonzero(done == 0):
                cap = int(sv.ctl[V.CTL_NODES]) + allowance
                sv.ctl[V.CTL_BUDGET] = cap if budget <= 0 else min(cap, budget)
                done[i] = search(int(i))
                if sv.ctl[V.CTL_ABORTED]:
                    if sv.ctl[V.CTL_STOP] or 0 < budget <= sv.ctl[V.CTL_NODES]:
                        return  # the caller's budget: the solve stops here
                    sv.ctl[V.CTL_ABORTED] = 0  # only this move's allowance: the next move
            allowance *= ALLOWANCE_GROWTH
    finally:
        sv.ctl[V.CTL_BUDGET] = budget


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
    if nodes is not None:
        whole(nodes, "nodes", 1, MAX_NODES, SearchError)
    Limit(time=seconds)  # the search's own check of a time budget


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


class _RootMoves:
    """The searches of the root moves, one move at a time (``_in_rounds`` gives each its
    turn): a move's value first, then, for a win or a loss, its plies.

    The value without the tie-break (``WIN``, 0, ``-WIN`` into ``wdl``, ``proven`` set):
    without chance a value is one of three, found by two null-window tests (most hard
    positions are draws, and a test prunes far better than a full window): can the move
    win (a window around ``WIN``), and if it cannot, can it avoid losing (a window around
    0). Through a random 4 values are expectations: one full-window search.

    The plies of a won or lost move under best play (the shortest win, the longest loss),
    as its tie-break value into ``exact`` (``refined`` set; draws and expectations have
    none). Like a mate search, by null-window tests "does the winner win within L plies?",
    but from above: the value proved that the game ends (before the action cap), so the
    first test asks for one ply less than the cap, and each test that holds asks next for
    one ply less than the win its fail-soft value shows; the first that fails, with the
    last that held, gives the plies. (Counting up from 1 instead, every test below the
    answer must refute every line to its horizon, and the deeper ones cost the most: on
    the slowest benchmark position the pass took 123 million nodes that way and 47 million
    this way.) A test of L stops every line at its horizon (a game that ends does so after
    one more action at the soonest) and cuts wherever the value's search found that the
    winner cannot win at all.

    Each move's principal line is read from the table as soon as its value (then its
    plies) is known, before other moves' searches can replace the entries it follows."""

    def __init__(self, pos: Position, sv: Solver, moves: np.ndarray) -> None:
        self.pos, self.sv, self.moves = pos, sv, moves
        self.r = pos.rules_array
        n = self.n = len(moves)
        self.wdl = np.zeros(n, dtype=np.float64)
        self.proven = np.zeros(n, dtype=np.int64)
        self.exact = np.zeros(n, dtype=np.float64)
        self.refined = np.zeros(n, dtype=np.int64)  # value, line and plies all known: the move is finished
        self.lines: dict[int, tuple[list[Move], bool]] = {}  # a proven move's line (table pass 1)
        self.ply_lines: dict[int, list[Move]] = {}  # a refined move's line (pass 2)
        self._tested = np.zeros(n, dtype=np.int64)  # the moves whose win test is done
        self._first = np.zeros(n, dtype=np.float64)  # and its value
        self._low = np.ones(n, dtype=np.int64)  # plies: no fewer than this (the root move included)
        self._high = np.full(n, int(self.r[L.R_ACTION_LIMIT]) - pos.actions, dtype=np.int64)  # nor more
        self._values = np.zeros(n, dtype=np.float64)
        self._horizon = np.full(n, FIRST_HORIZON, dtype=np.int64)  # plies of the next short look (``_value``)
        # the short looks pay where the deck is long; once it is out the full tests do better
        self._looks = pos.deck_size > 0
        self._lo = np.full(n, -V.INF)
        self._hi = np.full(n, V.INF)

    def _search(self, i: int, lo: np.ndarray, hi: np.ndarray, tb: int, values: np.ndarray) -> bool:
        """One search of root move ``i`` with the window (lo[i], hi[i]); False when a budget
        stopped it."""
        sv = self.sv
        mask = np.ones(self.n, dtype=np.int64)
        mask[i] = 0
        V.solve_moves(sv.states, sv.bufs, sv.orders, self.r, self.moves, self.n, lo, hi, tb, values, mask,
                      *sv.tt(), sv.ctl, sv.ff, sv.fi, sv.fkey, sv.rkey)
        return bool(mask[i])

    def _decided_within(self, i: int, plies: int) -> bool | None:
        """Whether root move ``i`` wins, or loses, within ``plies`` plies (itself included):
        two tests of the plies pass's kind, each cut at that horizon, so cheap where the
        game is long. True when one holds (the value and a bound on the plies are then
        known), False when neither does, None when a budget stopped them."""
        actions, n = self.pos.actions, self.n
        end = float(actions + plies)
        lo, hi, values = np.full(n, -V.INF), np.full(n, V.INF), self._values
        for sign in (1.0, -1.0):  # a win by then, then a loss by then
            if sign > 0:
                lo[i], hi[i] = V.WIN - end - 1, V.WIN - end
            else:
                lo[i], hi[i] = -(V.WIN - end), -(V.WIN - end) + 1
            if not self._search(i, lo, hi, 1, values):
                return None
            if (values[i] >= hi[i]) if sign > 0 else (values[i] <= lo[i]):
                self.wdl[i] = sign * V.WIN
                shown = int(round(V.WIN - abs(float(values[i])))) - actions
                self._high[i] = min(int(self._high[i]), shown)
                return True
        return False

    def _value(self, i: int) -> bool:
        n, wdl = self.n, self.wdl
        if self.r[L.R_FOUR_RANDOM]:
            return self._search(i, np.full(n, -V.INF), np.full(n, V.INF), 0, wdl)
        if self._looks and not self._tested[i] and 0 < self._horizon[i] < self._high[i]:
            # first a short look: a move that wins or loses soon is settled before the full
            # tests search the whole game (the horizon doubles each turn the move takes)
            decided = self._decided_within(i, int(self._horizon[i]))
            if decided is None:
                return False
            if decided:
                return True
            self._horizon[i] *= 2
        if not self._tested[i]:
            if not self._search(i, np.zeros(n), np.full(n, V.WIN), 0, self._first):
                return False
            self._tested[i] = 1
            if self._first[i] >= V.WIN:
                wdl[i] = V.WIN
                return True
        if not self._search(i, np.full(n, -V.WIN), np.zeros(n), 0, wdl):
            return False
        wdl[i] = -V.WIN if wdl[i] <= -V.WIN else 0.0
        return True

    def _plies(self, i: int) -> bool:
        actions = self.pos.actions
        low, high, lo, hi, values, wdl = self._low, self._high, self._lo, self._hi, self._values, self.wdl
        while True:
            end = float(actions + high[i] - 1)  # does the winner win by this action count?
            if wdl[i] == V.WIN:
                lo[i], hi[i] = V.WIN - end - 1, V.WIN - end
            else:
                lo[i], hi[i] = -(V.WIN - end), -(V.WIN - end) + 1
            if not self._search(i, lo, hi, 1, values):
                return False
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
                self.exact[i] = (V.WIN - end) if wdl[i] == V.WIN else -(V.WIN - end)
                return True

    def turn(self, i: int) -> bool:
        """Root move ``i`` goes on from where it stopped: its value, its line, its plies;
        True once all are known."""
        if not self.proven[i]:
            if not self._value(i):
                return False
            self.proven[i] = 1
            draw = self.wdl[i] == 0.0 and not self.r[L.R_FOUR_RANDOM]
            self.lines[i] = _line(self.pos, self.sv, int(self.moves[i]), 1, bool(draw))
            self.refined[i] = abs(self.wdl[i]) != V.WIN  # draws and expectations have no plies
        if not self.refined[i]:
            if not self._plies(i):
                return False
            self.refined[i] = 1
            self.ply_lines[i] = _line(self.pos, self.sv, int(self.moves[i]), 2)[0]
        return True


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
          interruptible: bool = False, cancel: CancelEvent | None = None) -> SolveResult:
    """Solve ``position`` (a Position, a path, a dict or JSON text) exactly within the budgets:
    ``nodes`` (a node count, looked at every 1,024 nodes) and ``time`` (seconds), whichever
    runs out first; with neither, to the end.

    Each root move in turn (``_in_rounds``, ``_RootMoves``): a short look for a win or a
    loss, then its value (win, draw or loss: the values the search prunes best with) by
    two null-window tests, then the plies of a win or loss under best play (the shortest
    win, the longest loss) like a mate search. Moves whose results are the same position
    up to the suits of a royal rank share one search. A move whose value was not reached
    is unproven (``value`` None); a proven move whose plies were not is ``plies`` None.

    With ``progress`` or ``interruptible`` the search runs on a worker thread (the kernels
    release the GIL) while this thread calls ``progress`` with a ``SolveProgress`` about
    every ``PROGRESS_EVERY`` seconds and stays responsive to Ctrl-C: a ``KeyboardInterrupt``
    stops the search at once and, with ``interruptible``, the result is what was proven so
    far (``stop_reason`` "interrupted"); without it the interrupt is raised again. With
    ``cancel`` (anything with ``is_set()``) the search runs on a worker thread too, and this
    thread looks at it every ``PROGRESS_EVERY`` seconds: once set, the search stops with
    what was proven so far (``stop_reason`` "cancelled")."""
    pos = as_position(position)
    check_solvable(pos)
    nodes, time, tt_bits = (plain_number(x) for x in (nodes, time, tt_bits))
    _check_budget(nodes, time)
    check_cancel(cancel)
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
    searched = moves[own].copy()
    root = _RootMoves(pos, sv, searched)
    wdl, proven, exact, refined, lines = root.wdl, root.proven, root.exact, root.refined, root.lines
    stage = _Stage()
    stage.enter("values", proven)

    def work() -> None:
        def turn(i: int) -> bool:
            finished = root.turn(i)
            if proven.all():  # every value is known: what is left is plies
                stage.enter("plies", refined)
            return finished

        _in_rounds(sv, turn, refined)

    if timer is not None:
        timer.start()
    interrupted = False
    cancelled = False

    def stop() -> None:
        sv.ctl[V.CTL_STOP] = 1

    try:
        if progress is None and not interruptible and cancel is None:
            work()
        else:
            def report() -> None:  # (every PROGRESS_EVERY seconds, from this thread)
                nonlocal cancelled
                if cancel is not None and cancel.is_set():
                    cancelled = True
                    stop()
                if progress is not None:
                    name, done = stage.now
                    progress(SolveProgress(int(sv.ctl[V.CTL_NODES]), _time.perf_counter() - start, name,
                                           int(done[index].sum()), n))

            if cancel is not None and cancel.is_set():  # (set already: no search at all)
                cancelled = True
                stop()
            interrupted = watched(work, stop, report, interruptible)
    finally:
        if timer is not None:
            timer.cancel()
    elapsed = _time.perf_counter() - start
    if not sv.ctl[V.CTL_ABORTED]:  # (an interrupt after the last search stopped nothing)
        reason = "complete"
    elif interrupted:
        reason = "interrupted"
    elif cancelled:
        reason = "cancelled"
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
            pv = root.ply_lines[j]
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
