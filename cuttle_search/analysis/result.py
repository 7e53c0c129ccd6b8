"""Analysis results: per-move statistics with intervals, and the overall figures."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..game.moves import Move
from ..game.seats import seat_name

Z95 = 1.959963984540054


@dataclass(frozen=True)
class MoveStat:
    """One root move of the viewer, from the viewer's point of view.

    ``score`` counts a draw as half a win; ``interval`` is its 95% confidence interval
    (normal approximation with the observed spread, each side at least z²/(n + z²) wide),
    ``lcb`` its lower end. A move the search never visited (``visits`` 0: the one move of
    a forced position among them) has ``score``, ``win_rate`` and ``draw_rate`` 0, not an
    estimate: read ``visits`` first."""

    rank: int
    move: Move
    visits: int
    wins: int
    draws: int
    availability: int
    score: float
    # None where the search cannot tell them apart: its rollout settles playouts with
    # stalemates that are not the game's (analysis.limits.ROLLOUT_SETTLES); a proven move's
    # are exact
    win_rate: float | None
    draw_rate: float | None
    interval: tuple[float, float]
    gap: float
    pv: list[Move] = field(default_factory=list)
    # how many moves of ``pv`` come before the first that shows a card the viewer cannot
    # see (from there the line is one the search's guessed deals played); None: all of them
    pv_known: int | None = None
    # set when the exact solver ran on the position (nothing hidden): its value for the
    # move ("win", "draw", "loss", or "expected" through a random 4), None if unproven
    solved: bool = False
    proven: str | None = None
    plies: int | None = None
    # every seat's share of the games below this move, seat by seat: ``seat_scores`` counts a
    # stalemate as 1/sides of a win (they sum to 1 with every seat playing for itself; with
    # teams each seat's is its team's), ``seat_win_rates`` counts wins only (its side's)
    seat_scores: tuple[float, ...] | None = None
    seat_win_rates: tuple[float, ...] | None = None
    # the score recalibrated on self-play (analysis/calibration.py), where the map applies,
    # and the ends of ``interval`` through the same map (it is monotone)
    calibrated_score: float | None = None
    calibrated_interval: tuple[float, float] | None = None
    # the score with the opponent's best replies backed up (Tree.best_reply_score), when
    # asked for (``analyse(..., best_reply=True)``, two sides: two seats, Team)
    best_reply_score: float | None = None

    @property
    def lcb(self) -> float:
        return self.interval[0]

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "move": self.move.text(),
            "moveJson": self.move.to_json(),
            "visits": self.visits,
            "score": round(self.score, 6),
            "winrate": rounded_or_none(self.win_rate),
            "drawrate": rounded_or_none(self.draw_rate),
            "lcb": round(self.interval[0], 6),
            "ucb": round(self.interval[1], 6),
            "gap": round(self.gap, 6),
            "pv": [m.text() for m in self.pv],
            "pvKnown": len(self.pv) if self.pv_known is None else self.pv_known,
            **({"proven": self.proven, "plies": self.plies} if self.solved else {}),
            **({"calibratedScore": round(self.calibrated_score, 6)} if self.calibrated_score is not None else {}),
            **({"calibratedLcb": round(self.calibrated_interval[0], 6), "calibratedUcb": round(self.calibrated_interval[1], 6)}
               if self.calibrated_interval is not None else {}),
            **({"bestReplyScore": round(self.best_reply_score, 6)} if self.best_reply_score is not None else {}),
            **({"seatScores": {seat_name(q): round(x, 6) for q, x in enumerate(self.seat_scores)}}
               if self.seat_scores is not None else {}),
            **({"seatWinrates": {seat_name(q): round(x, 6) for q, x in enumerate(self.seat_win_rates)}}
               if self.seat_win_rates is not None else {}),
        }


def rounded_or_none(x: float | None) -> float | None:
    """``x`` to six places for JSON, or None (an unknown rate) as it is."""
    return None if x is None else round(x, 6)


def score_interval(visits: int, wins: int, draws: int, draw_share: float = 0.5) -> tuple[float, float, float]:
    """(score, low, high) of outcomes worth 1, ``draw_share`` and 0: a stalemate shares the
    game among the seats, 1/2 of two seats (the default), 1/n of n (as the engine's ISMCTS
    scores it)."""
    if visits <= 0:
        return 0.0, 0.0, 1.0
    mean = (wins + draw_share * draws) / visits
    second = (wins + draw_share * draw_share * draws) / visits
    var = max(second - mean * mean, 0.0)
    # a floor keeps identical outcomes from claiming certainty: Wilson's interval for n
    # wins in n (its low end n / (n + z^2)), about four times the half-width of the floor
    # before (a variance of 1 / 4(n + 1)), which claimed 0.997 after 323 wins in 323
    half = max(Z95 * math.sqrt(var / visits), Z95 * Z95 / (visits + Z95 * Z95))
    return mean, max(0.0, mean - half), min(1.0, mean + half)


@dataclass
class AnalysisResult:
    """What ``analyse`` returns; ``to_json`` gives the stable JSON form."""

    viewer: int
    phase: str
    rules: str
    moves: list[MoveStat]
    iterations: int
    determinizations: int
    nodes: int
    seconds: float
    threads: int
    seed: int
    rollout: str
    exploration: float
    engine_version: str
    position: str = ""
    compile_seconds: float = 0.0  # loading (or first compiling) the kernels, not in ``seconds``
    # budget | time | confident | cancelled | proven | forced (one legal move); None while the
    # search goes on (a partial result: during_search)
    stop_reason: str | None = "budget"
    during_search: bool = False  # a partial result, taken while the search goes on
    solver: dict[str, Any] | None = None  # the exact solver's figures, when it ran first
    seats: int = 2
    sides: int = 2  # a stalemate is worth 1/sides to each side (a seat, or a team of two)
    partner: int = -1  # the viewer's partner in a team game, whose wins are the viewer's
    model: str = "maxn"  # the opponent model (analysis.limits.MODEL_NAMES)
    widen: float = 0.0  # the progressive widening's visit scale below the root (0.0: off)

    def score_note(self) -> str:
        """Whose win rates these are and what a stalemate counts for."""
        if self.partner >= 0:
            a, b = sorted((self.viewer, self.partner))
            return (f"win rates are those of {seat_name(self.viewer)}'s team, {seat_name(a)}+{seat_name(b)}; "
                    "score counts a stalemate as half a win")
        if self.sides == 2:
            return f"win rates are {seat_name(self.viewer)}'s; score counts a draw as half a win"
        return f"win rates are {seat_name(self.viewer)}'s; score counts a stalemate as 1/{self.sides} of a win"

    def separated(self) -> bool:
        """Whether the best move's lower bound clears every other move's upper bound."""
        return len(self.moves) == 1 or all(self.moves[0].interval[0] > m.interval[1] for m in self.moves[1:])

    @property
    def best(self) -> MoveStat:
        return self.moves[0]

    @property
    def iterations_per_second(self) -> float:
        return self.iterations / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "pointOfView": seat_name(self.viewer),
            "note": self.score_note(),
            "phase": self.phase,
            "rules": self.rules,
            "moves": [m.to_json() for m in self.moves],
            "rootInfo": {
                "iterations": self.iterations,
                "determinizations": self.determinizations,
                "nodes": self.nodes,
                "seconds": round(self.seconds, 6),
                "iterationsPerSecond": round(self.iterations_per_second, 1),
                "compileSeconds": round(self.compile_seconds, 6),
                "threads": self.threads,
                "seed": self.seed,
                "rollout": self.rollout,
                "exploration": self.exploration,
                "model": self.model,
                "widen": self.widen,
                "engineVersion": self.engine_version,
                # as the hint protocol marks them: a partial result has no reason to stop yet
                **({"isDuringSearch": True} if self.during_search else {"stopReason": self.stop_reason}),
                **({"solver": self.solver} if self.solver is not None else {}),
            },
        }

    def deterministic_json(self) -> dict[str, Any]:
        """``to_json`` without the wall-clock figures (for reproducibility checks)."""
        d = self.to_json()
        for k in ("seconds", "iterationsPerSecond", "compileSeconds"):
            d["rootInfo"].pop(k)
        if "solver" in d["rootInfo"]:
            d["rootInfo"]["solver"] = {k: v for k, v in d["rootInfo"]["solver"].items() if k not in ("seconds", "nodesPerSecond")}
        return d

