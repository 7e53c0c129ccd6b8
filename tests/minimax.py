"""A plain memoised minimax, written apart from the engine's solver, to check it.

It walks the game with the Position API's kernels (``generate_moves``/``apply_move``)
and nothing else: no pruning, no move ordering, a dict keyed by the whole state. A value
is seen from the node's seat (the actor, or the turn player at a chance node) and comes in
two scorings: win/draw/loss as ``WIN``, 0, ``-WIN``; and with the tie-break, a game that
ends after ``a`` actions worth ``WIN - a`` to the winner, minus that to the loser, 0 for a
draw. A chance node is the plain mean of its outcomes.

The random deck-out positions come from ``cuttle_search.analysis.endgames`` (shared with the
solver benchmark).
"""

from __future__ import annotations

import sys

import numpy as np

from cuttle_search.engine import layout as L
from cuttle_search.engine.apply import apply_move
from cuttle_search.engine.movegen import generate_moves
from cuttle_search.game.position import Position
from cuttle_search.analysis.endgames import random_deck_out  # noqa: F401  (re-exported for the tests)

WIN = 2.0**44


def _seat(s: np.ndarray) -> int:
    a = int(s[L.F_ACTOR])
    return int(s[L.F_TURN]) if a < 0 else a


def _end_value(s: np.ndarray, seat: int) -> tuple[float, float]:
    if int(s[L.F_STATUS]) == L.ST_WIN:
        sign = 1.0 if int(s[L.F_WINNER]) == seat else -1.0
        return sign * WIN, sign * (WIN - int(s[L.F_ACTIONS]))
    return 0.0, 0.0


class Minimax:
    """Values come in pairs: (win/draw/loss as WIN, 0, -WIN; the same with the tie-break
    ``WIN - actions``), each the plain minimax value of its own scoring."""

    def __init__(self, rules: np.ndarray, limit: int = 2_000_000) -> None:
        self.r = rules
        self.memo: dict[bytes, tuple[float, float]] = {}
        self.limit = limit

    def value(self, s: np.ndarray) -> tuple[float, float]:
        """The values of a position that is not over, for its seat."""
        key = s.tobytes()
        if key in self.memo:
            return self.memo[key]
        if len(self.memo) > self.limit:
            raise RuntimeError("reference minimax: too many states")
        buf = np.zeros(L.MAX_MOVES, dtype=np.int64)
        n = generate_moves(s, self.r, buf)
        seat = _seat(s)
        vals = [self.child_value(s, m, seat) for m in buf[:n]]
        if int(s[L.F_ACTOR]) == L.ACTOR_CHANCE:
            v = (sum(a for a, _ in vals) / n, sum(b for _, b in vals) / n)
        else:
            v = (max(a for a, _ in vals), max(b for _, b in vals))
        self.memo[key] = v
        return v

    def child_value(self, s: np.ndarray, m: int, seat: int) -> tuple[float, float]:
        c = s.copy()
        apply_move(c, self.r, np.int64(m))
        if int(c[L.F_PHASE]) == L.PH_OVER:
            return _end_value(c, seat)
        a, b = self.value(c)
        return (a, b) if _seat(c) == seat else (-a, -b)

    def root_values(self, s: np.ndarray) -> dict[int, tuple[float, float]]:
        buf = np.zeros(L.MAX_MOVES, dtype=np.int64)
        n = generate_moves(s, self.r, buf)
        seat = _seat(s)
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 20000))
        try:
            return {int(m): self.child_value(s, m, seat) for m in buf[:n]}
        finally:
            sys.setrecursionlimit(old)


def expected_answer(pos: Position, wdl: float, tb: float) -> tuple[str, float, int | None]:
    """(value, score, plies) that ``solve`` should report for a move with these values."""
    actions = int(pos.state[L.F_ACTIONS])
    if wdl == WIN:
        return "win", 1.0, int(round(WIN - tb)) - actions
    if wdl == -WIN:
        return "loss", 0.0, int(round(WIN + tb)) - actions
    if wdl == 0.0 and not pos.rules_array[L.R_FOUR_RANDOM]:
        return "draw", 0.5, None
    return "expected", 0.5 + wdl / (2 * WIN), None
