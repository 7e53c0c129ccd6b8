"""What ``solve`` returns: each root move's exact value (``SolvedMove``), the whole answer
(``SolveResult``, with its stable JSON form) and its text table (``solve_table``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..game.moves import Move
from ..game.seats import seat_name

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
    stop_reason: str = "complete"  # complete | nodes | time | interrupted | cancelled
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


def solve_table(result: SolveResult) -> str:
    """The text form of a solve: a header and one row per move."""
    pov = seat_name(result.actor)
    solved = sum(m.proven for m in result.moves)
    why = {"interrupted": "interrupted", "cancelled": "cancelled", "nodes": "the node budget ran out",
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
