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


class Retrograde:
    """Exact values of the game graph by retrograde analysis, written apart from the
    solver to check it where lines can cycle (a 3 that takes a 3 back) and the plain
    minimax would have to follow every cycle to the 1,000-action cap.

    A node is a position up to the fields no rule reads (the action count, the turn
    counter, which hand cards are public, how many deck cards are known). The analysis
    works backwards from the ends of the game: a node is won in ``d`` plies when a move
    reaches a node its seat has won in ``d - 1`` (or ends the game with its win), lost in
    ``d`` when every move reaches a node its seat has lost, the longest in ``d - 1``;
    nodes never reached this way are drawn however long the game goes. With the cap, a
    node that ``r`` actions separate from it is won (lost) in ``d`` plies if ``d <= r``
    and drawn otherwise: a win that takes more actions than are left cannot be forced.
    No chance (``four=random``)."""

    IGNORED = (L.F_ACTIONS, L.F_TURN_COUNT, L.F_DECK_KNOWN) + tuple(L.F_PUBLIC + p for p in range(L.MAX_PLAYERS))

    def __init__(self, rules: np.ndarray, limit: int = 20_000) -> None:
        assert not rules[L.R_FOUR_RANDOM]
        self.r = rules
        self.limit = limit

    def _key(self, s: np.ndarray) -> bytes:
        t = s.copy()
        t[list(self.IGNORED)] = 0
        return t.tobytes()

    def root_values(self, s: np.ndarray) -> dict[int, tuple[float, float]]:
        r = self.r
        buf = np.zeros(L.MAX_MOVES, dtype=np.int64)
        index: dict[bytes, int] = {}
        states: list[np.ndarray] = []
        children: list[list[tuple[str, int, bool]]] = []  # ("end", +1/-1/0 for the seat, _) or ("node", i, flip)

        def node(c: np.ndarray) -> int:
            k = self._key(c)
            if k not in index:
                if len(states) >= self.limit:
                    raise RuntimeError("retrograde reference: too many states")
                index[k] = len(states)
                states.append(c)
                children.append([])
            return index[k]

        def edges(st: np.ndarray) -> list[tuple[int, tuple]]:
            n = generate_moves(st, r, buf)
            seat = _seat(st)
            out = []
            for m in buf[:n]:
                c = st.copy()
                c[L.F_ACTIONS] = 0  # the cap is applied afterwards
                apply_move(c, r, np.int64(m))
                if int(c[L.F_PHASE]) == L.PH_OVER:
                    won = int(c[L.F_STATUS]) == L.ST_WIN
                    out.append((int(m), ("end", (1 if int(c[L.F_WINNER]) == seat else -1) if won else 0, False)))
                else:
                    out.append((int(m), ("node", node(c), _seat(c) != seat)))
            return out

        root_edges = edges(s)
        i = 0
        while i < len(states):  # every position the root's moves can lead to
            children[i] = [e for _m, e in edges(states[i])]
            i += 1
        # retrograde: results (+1 won, -1 lost for the node's seat) by increasing plies
        result = [0] * len(states)
        plies = [0] * len(states)
        parents: list[list[tuple[int, bool]]] = [[] for _ in states]
        left = [0] * len(states)  # moves not yet known to lose
        layer = []
        for j, ch in enumerate(children):
            for kind, v, flip in ch:
                if kind == "node":
                    parents[v].append((j, flip))
                    left[j] += 1
                elif v < 0:
                    pass
                else:
                    left[j] += 1
            if any(kind == "end" and v > 0 for kind, v, _f in ch):
                result[j], plies[j] = 1, 1
                layer.append(j)
            elif left[j] == 0:
                result[j], plies[j] = -1, 1
                layer.append(j)
        d = 1
        while layer:
            nxt = []
            for j in layer:
                for p, flip in parents[j]:
                    if result[p] != 0:
                        continue
                    if (result[j] > 0) != flip:  # a move to j wins for p's seat
                        result[p], plies[p] = 1, d + 1
                        nxt.append(p)
                    else:
                        left[p] -= 1
                        if left[p] == 0:
                            result[p], plies[p] = -1, d + 1
                            nxt.append(p)
            layer = nxt
            d += 1
        # whether a line can come back to a position (some node's moves lead back to it)
        indegree = [0] * len(states)
        for ch in children:
            for kind, v, _f in ch:
                if kind == "node":
                    indegree[v] += 1
        queue = [j for j in range(len(states)) if indegree[j] == 0]
        seen = 0
        while queue:
            j = queue.pop()
            seen += 1
            for kind, v, _f in children[j]:
                if kind == "node":
                    indegree[v] -= 1
                    if indegree[v] == 0:
                        queue.append(v)
        self.cyclic = seen < len(states)
        self.states = len(states)
        # the root's moves, with the cap
        actions = int(s[L.F_ACTIONS])
        cap = int(r[L.R_ACTION_LIMIT])
        out = {}
        for m, (kind, v, flip) in root_edges:
            if kind == "end":
                out[m] = (v * WIN, v * (WIN - (actions + 1)))
                continue
            res, d = result[v], plies[v]
            if res == 0 or d > cap - (actions + 1):
                out[m] = (0.0, 0.0)
                continue
            sign = -res if flip else res
            out[m] = (sign * WIN, sign * (WIN - (actions + 1 + d)))
        return out
