"""An arena run's result: ``ArenaResult`` (its JSON and its fastchess-style report), built
once by ``summarise`` from the units played (pairs, or seat rotations of more seats), and the
score interval over pairs."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from ..version import __version__
from ..game.seats import seat_name
from .arena_games import _pair_outcomes
from .statistics import (
    Z95,
    Sprt,
    _num,
    elo,
    pair_report,
    pentanomial,
    report_text,
    share_report_text,
    trinomial,
    trinomial_estimate,
)

# ---------------------------------------------------------------- statistics
def match_score_interval(pair_scores: Iterable[float]) -> tuple[float, float, float]:
    """Mean score and its 95% interval from per-pair scores (the pair is the unit, so the
    interval reflects the pairing; sample standard deviation)."""
    x = np.asarray(list(pair_scores), dtype=float)
    n = len(x)
    if n == 0:
        return 0.5, 0.0, 1.0
    mean = float(x.mean())
    sd = float(x.std(ddof=1)) if n > 1 else 0.5
    half = Z95 * sd / math.sqrt(n)  # (every pair alike: no width, and an Elo interval of one value)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


# ---------------------------------------------------------------- the match
@dataclass
class ArenaResult:
    agent_a: str
    agent_b: str
    rules: str
    seed: int
    match: str
    pairs: int
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    interval: tuple[float, float]
    mean_plies: float
    seconds_per_move: dict[str, float]
    elapsed: float
    matches: dict[str, int] | None = None
    pentanomial: dict[str, Any] = field(default_factory=dict)
    trinomial: dict[str, Any] = field(default_factory=dict)
    sprt: dict[str, Any] | None = None
    backend: str = "local"
    workers: int = 1
    resumed: int = 0  # pairs taken from the results file rather than played
    saved_beyond: int = 0  # pairs of the results file past the match's planned ones (not counted)
    pool_restarts: int | None = None  # local backend: pools rebuilt after a worker died (their pairs replayed)
    units: list[dict[str, Any]] = field(default_factory=list, repr=False)  # per pair, by index
    seats: int = 2  # more seats: units are seat rotations, scores are shares (1/sides is even)
    sides: int | None = None  # with teams, 2 (a stalemate is half a win); else the seats
    by_seat: dict[str, dict[str, Any]] | None = None  # more seats: A's games and mean share by seat
    games_asked: int | None = None  # --games (with a match format, matches)
    games_planned: int | None = None  # rounded up to whole pairs or rotations (planned_games)
    rounding: str | None = None  # the sentence saying so, when it rounds

    @property
    def elo(self) -> float:
        return elo(self.score)

    @property
    def elo_interval(self) -> tuple[float, float]:
        return elo(self.interval[0]), elo(self.interval[1])

    def pair_results(self) -> list[tuple[int, list[float], list[int]]]:
        """Per pair: its index, A's scores and the game lengths (what a seed must reproduce)."""
        return [(u["index"], [g["score"] for g in u["games"]] + list(u.get("matches", [])),
                 [g["plies"] for g in u["games"]]) for u in self.units]

    def to_json(self) -> dict[str, Any]:
        if self.seats != 2:
            return self._shares_json()

        def num(x: float) -> float | str:
            return round(x, 1) if math.isfinite(x) else ("inf" if x > 0 else "-inf")

        return {
            "agentA": self.agent_a,
            "agentB": self.agent_b,
            "rules": self.rules,
            "seed": self.seed,
            "match": self.match,
            "pairedDeals": self.pairs,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": round(self.score, 4),
            "scoreInterval": [round(self.interval[0], 4), round(self.interval[1], 4)],
            "elo": num(self.elo),
            "eloInterval": [num(self.elo_interval[0]), num(self.elo_interval[1])],
            "meanPlies": round(self.mean_plies, 2),
            "secondsPerMove": {k: round(v, 5) for k, v in self.seconds_per_move.items()},
            "matches": self.matches,
            "seconds": round(self.elapsed, 3),
            "engineVersion": __version__,
            "pentanomial": self.pentanomial,
            "trinomial": self.trinomial,
            "sprt": self.sprt,
            "backend": self.backend,
            "workers": self.workers,
            "pairsResumed": self.resumed,
            "pairsSavedBeyond": self.saved_beyond,
            "poolRestarts": self.pool_restarts,
            "gamesAsked": self.games_asked,
            "gamesPlanned": self.games_planned,
            "rounding": self.rounding,
        }

    def _shares_json(self) -> dict[str, Any]:
        """The JSON of a game of more seats: A's share with its interval over deals, by
        seat; no Elo, pentanomial or SPRT (they are two-seat figures: null)."""
        return {
            "agentA": self.agent_a,
            "agentB": self.agent_b,
            "rules": self.rules,
            "seats": self.seats,
            "seed": self.seed,
            "match": self.match,
            "deals": self.pairs,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": round(self.score, 4),
            "scoreInterval": [round(self.interval[0], 4), round(self.interval[1], 4)],
            "evenShare": round(1 / (self.sides or self.seats), 4),
            "bySeat": self.by_seat,
            "elo": None,
            "eloInterval": [None, None],
            "meanPlies": round(self.mean_plies, 2),
            "secondsPerMove": {k: round(v, 5) for k, v in self.seconds_per_move.items()},
            "matches": self.matches,
            "seconds": round(self.elapsed, 3),
            "engineVersion": __version__,
            "pentanomial": None,
            "trinomial": None,
            "sprt": None,
            "backend": self.backend,
            "workers": self.workers,
            "dealsResumed": self.resumed,
            "dealsSavedBeyond": self.saved_beyond,
            "poolRestarts": self.pool_restarts,
            "gamesAsked": self.games_asked,
            "gamesPlanned": self.games_planned,
            "rounding": self.rounding,
        }

    def report_lines(self) -> list[str]:
        """The fastchess-style block (pentanomial Elo, nElo, LOS, Ptnml, LLR); with more
        seats, the win shares by seat and over deals."""
        if self.seats != 2:
            w, d, l = (self.matches["won"], self.matches["drawn"], self.matches["lost"]) if self.matches else \
                (self.wins, self.draws, self.losses)
            return share_report_text(f"{self.agent_a} vs {self.agent_b} ({self.rules}, seed {self.seed})", self.seats,
                                     (w, l, d), self.score, self.interval, self.pairs, self.by_seat or {},
                                     unit="matches" if self.matches else "games", sides=self.sides)
        w, d, l = (self.matches["won"], self.matches["drawn"], self.matches["lost"]) if self.matches else \
            (self.wins, self.draws, self.losses)
        sprt = None
        if self.sprt:
            sprt = Sprt(self.sprt["elo0"], self.sprt["elo1"], self.sprt["alpha"], self.sprt["beta"], self.sprt["model"])
        pairs = [u["matches"] if self.match != "quick" else [g["score"] for g in u["games"]] for u in self.units]
        return report_text(f"{self.agent_a} vs {self.agent_b} ({self.rules}, seed {self.seed})", (w, l, d), pairs, sprt,
                           unit="matches" if self.matches else "games")


def _by_seat(units: list[dict[str, Any]], all_games: list[dict[str, Any]], seats: int,
             match: str) -> dict[str, dict[str, Any]]:
    """A's games (or matches) and mean share from each seat (games of more seats)."""
    by_seat = {}
    for q in range(seats):
        if match == "quick":
            mine = [g["score"] for g in all_games if g["aSeat"] == q]
        else:  # the unit's q-th match is the one A played from seat q
            mine = [u["matches"][q] for u in units]
        by_seat[seat_name(q)] = {"games" if match == "quick" else "matches": len(mine),
                                 "score": round(float(np.mean(mine)), 4) if mine else None}
    return by_seat


def summarise(units, spec_a, spec_b, rules, seats, seed, match, sprt, elapsed, backend, workers, resumed,
              sides=None) -> ArenaResult:
    """The result of the units played (pairs, or seat rotations of more seats): A's mean
    score per game (or match) with a 95% interval over the units (each unit's mean is one
    observation: the pairing cancels the deal's luck). A draw or a stalemate counts as an
    even share: a half with two seats, 1/sides with more (with teams A's share is its
    team's). Two seats add the pentanomial, trinomial and SPRT figures; more seats, A's
    share from each seat."""
    two = seats == 2
    all_games = [g for u in units for g in u["games"]]
    even = 0.5 if two else 1 / (seats if sides is None else sides)
    matches = None
    if match != "quick":
        ms = [m for u in units for m in u["matches"]]
        matches = {"played": len(ms), "won": sum(m == 1.0 for m in ms), "drawn": sum(m == even for m in ms),
                   "lost": sum(m == 0.0 for m in ms)}
    score, lo, hi = match_score_interval(float(np.mean(_pair_outcomes(u, match))) for u in units)
    a_dec = sum(g["aDecisions"] for g in all_games)
    b_dec = sum(g["bDecisions"] for g in all_games)
    result = ArenaResult(
        agent_a=spec_a,
        agent_b=spec_b,
        rules=rules,
        seed=seed,
        match=match,
        pairs=len(units),
        games=len(all_games),
        wins=sum(g["score"] == 1.0 for g in all_games),
        draws=sum(g["score"] == even for g in all_games),
        losses=sum(g["score"] == 0.0 for g in all_games),
        score=score,
        interval=(lo, hi),
        mean_plies=float(np.mean([g["plies"] for g in all_games])),
        seconds_per_move={
            "A": sum(g["aSeconds"] for g in all_games) / max(a_dec, 1),
            "B": sum(g["bSeconds"] for g in all_games) / max(b_dec, 1),
        },
        elapsed=elapsed,
        matches=matches,
        backend=backend,
        workers=workers,
        resumed=resumed,
        units=units,
        seats=seats,
        sides=None if two else sides,
    )
    if two:
        tri = trinomial_estimate(trinomial(g["score"] for g in all_games))
        result.pentanomial = pair_report([_pair_outcomes(u, match) for u in units])
        result.trinomial = {"counts": tri.counts, "score": round(tri.score, 4),
                            "scoreInterval": [round(x, 4) for x in tri.interval],
                            "elo": _num(tri.elo), "eloError": _num(tri.elo_error),
                            "eloInterval": [_num(x) for x in tri.elo_interval], "los": round(tri.los, 4)}
        result.sprt = sprt.to_json(pentanomial(sum(_pair_outcomes(u, match)) for u in units)) if sprt is not None else None
    else:
        result.by_seat = _by_seat(units, all_games, seats, match)
    return result
