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
from typing import Any

import numpy as np

from ..engine import kernels as K
from ..engine import solver as V
from ..moves import Move
from ..position import Position, seat_name
from .ismcts import SearchError

DEFAULT_TT_BITS = 20  # 2**20 table slots: about 25 MB
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
            "budget": {"nodes": self.node_budget, "time": self.time_budget},
        }


def check_solvable(pos: Position) -> None:
    """Raise ``SearchError`` unless ``pos`` is a decision with nothing hidden."""
    if pos.is_over:
        raise SearchError("phase: the game is over; there is nothing to solve")
    if pos.actor == K.ACTOR_CHANCE:
        raise SearchError("phase: the next event is chance (a random 4), not a player's decision")
    if not is_single_state(pos):
        h = pos.hidden
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
        depth = int(r[K.R_ACTION_LIMIT]) - int(pos.state[K.F_ACTIONS]) + 2
        depth = max(depth, 2)
        self.states = np.zeros((depth + 1, K.STATE_SIZE), dtype=np.int64)
        self.bufs = np.zeros((depth + 1, K.MAX_MOVES), dtype=np.int64)
        self.orders = np.zeros((depth + 1, K.MAX_MOVES), dtype=np.int64)
        size = 1 << tt_bits
        self.tt_key = np.zeros(size, dtype=np.uint64)
        self.tt_val = np.zeros(size, dtype=np.float64)
        self.tt_flag = np.full(size, V.TT_EMPTY, dtype=np.int8)
        self.tt_move = np.zeros(size, dtype=np.int64)
        self.ctl = np.zeros(V.CTL_SIZE, dtype=np.int64)

    def tt(self) -> tuple[np.ndarray, ...]:
        return self.tt_key, self.tt_val, self.tt_flag, self.tt_move


def _classify(raw: float, pos: Position) -> tuple[str, float, int | None]:
    """(value, score, plies) of a kernel value for the player to act."""
    limit = int(pos.rules_array[K.R_ACTION_LIMIT])
    sure = V.WIN - limit - 1
    actions = int(pos.state[K.F_ACTIONS])
    if raw >= sure:
        return "win", 1.0, int(round(V.WIN - raw)) - actions
    if raw <= -sure:
        return "loss", 0.0, int(round(V.WIN + raw)) - actions
    if raw == 0.0 and not pos.rules_array[K.R_FOUR_RANDOM]:
        return "draw", 0.5, None
    return "expected", 0.5 + raw / (2 * V.WIN), None


def solve(position, nodes: int | None = None, time: float | None = None, tt_bits: int = DEFAULT_TT_BITS,
          solver: Solver | None = None) -> SolveResult:
    """Solve ``position`` (a Position, a path, a dict or JSON text) exactly within the budgets:
    ``nodes`` (a node count) and ``time`` (seconds), whichever runs out first; with neither,
    to the end. Moves the budget did not reach are reported unproven (``value`` None)."""
    from . import _position

    pos = _position(position)
    check_solvable(pos)
    _check_budget(nodes, time)
    sv = solver if solver is not None else Solver(pos, tt_bits)
    r = pos.rules_array
    sv.states[0] = pos.state
    sv.ctl[:] = 0
    sv.ctl[V.CTL_BUDGET] = 0 if nodes is None else nodes
    moves = np.zeros(K.MAX_MOVES, dtype=np.int64)
    values = np.zeros(K.MAX_MOVES, dtype=np.float64)
    done = np.zeros(K.MAX_MOVES, dtype=np.int64)
    timer = None
    if time is not None:
        timer = threading.Timer(time, lambda: sv.ctl.__setitem__(V.CTL_STOP, 1))
        timer.daemon = True
    start = _time.perf_counter()
    if timer is not None:
        timer.start()
    try:
        n = int(V.solve_root(sv.states, sv.bufs, sv.orders, r, moves, values, done, *sv.tt(), sv.ctl))
    finally:
        if timer is not None:
            timer.cancel()
    elapsed = _time.perf_counter() - start
    rows = []
    line = np.zeros(256, dtype=np.int64)
    for i in range(n):
        move = Move.from_code(int(moves[i]))
        if not done[i]:
            rows.append((float("-inf"), i, move, None, None, None, [move]))
            continue
        raw = float(values[i])
        value, score, plies = _classify(raw, pos)
        child = pos.state.copy()
        K.apply_move(child, r, moves[i])
        k = int(V.principal_line(child, r, sv.bufs[0], *sv.tt(), line))
        pv = [move] + [Move.from_code(int(c)) for c in line[:k]]
        if value == "draw" and child[K.F_PHASE] == K.PH_OVER:
            plies = len(pv)  # a draw has no tie-break; say how long the shown line is
        rows.append((raw, i, move, value, score, plies, pv))
    rows.sort(key=lambda row: (-row[0], row[1]))
    result_moves = [
        SolvedMove(rank, move, value, score, plies, pv, raw if value is not None else 0.0)
        for rank, (raw, _i, move, value, score, plies, pv) in enumerate(rows, 1)
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
    )
