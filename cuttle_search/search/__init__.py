"""Information-set MCTS analysis: rank the viewer's moves with trustworthy win rates."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ..position import Position, load_position
from .ismcts import (
    DEFAULT_EXPLORATION,
    DEFAULT_ITERATIONS,
    DEFAULT_ROLLOUT,
    HandInference,
    Limit,
    SearchError,
    run_search,
    search_viewer,
)
from .result import AnalysisResult, MoveStat

PositionSource = Position | str | Path | Mapping[str, Any]


def _position(source: PositionSource) -> Position:
    return source if isinstance(source, Position) else load_position(source)


def analyse(
    position: PositionSource,
    iterations: int | None = None,
    time: float | None = None,
    threads: int = 1,
    seed: int = 0,
    rollout: str = DEFAULT_ROLLOUT,
    exploration: float = DEFAULT_EXPLORATION,
    progress=None,
    inference: HandInference | None = None,
) -> AnalysisResult:
    """Search ``position`` (a Position, a file path, a dict or a JSON string) for the
    player whose view it is and rank that player's legal moves.

    With neither ``iterations`` nor ``time`` the budget is 10,000 iterations. A seed and a
    thread count reproduce an iteration-budget result exactly. ``inference`` (what the
    caller knows the opponent does not hold, from the game so far) narrows the deals."""
    pos = _position(position)
    return run_search(pos, Limit(iterations, time), threads, seed, rollout, exploration, progress,
                      inference=inference)


@dataclass(frozen=True)
class Hint:
    """The answer to a hint request: the best move and the runners-up."""

    best: MoveStat
    runners_up: list[MoveStat]
    result: AnalysisResult

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.best.move.text(),
            "moveJson": self.best.move.to_json(),
            "score": round(self.best.score, 6),
            "winrate": round(self.best.win_rate, 6),
            "drawrate": round(self.best.draw_rate, 6),
            "lcb": round(self.best.lcb, 6),
            **({"proven": self.best.proven, "plies": self.best.plies} if self.best.solved else {}),
            "pointOfView": f"p{self.result.viewer}",
            "runnersUp": [m.to_json() for m in self.runners_up],
            "iterations": self.result.iterations,
            "seconds": round(self.result.seconds, 6),
        }


def best_move(position: PositionSource, iterations: int | None = None, time: float | None = None,
              threads: int = 1, seed: int = 0, runners_up: int = 2, **options: Any) -> Hint:
    """``analyse`` for a hint button: the best move, its win rate and the runners-up."""
    result = analyse(position, iterations=iterations, time=time, threads=threads, seed=seed, **options)
    return Hint(result.moves[0], result.moves[1 : 1 + runners_up], result)


__all__ = ["analyse", "best_move", "AnalysisResult", "MoveStat", "Hint", "HandInference", "Limit", "SearchError",
           "search_viewer",
           "DEFAULT_ITERATIONS", "DEFAULT_EXPLORATION", "DEFAULT_ROLLOUT"]
