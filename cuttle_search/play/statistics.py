"""Statistics for paired games: pentanomial counts, Elo with its interval, LOS, normalised
Elo and the sequential probability ratio test, the way engine testers (fishtest, fastchess)
report them.

A *pair* is one deal played twice with the seats swapped (or, with a match format, one
pair of matches). Each game scores 0, 1/2 or 1 for A, so a pair scores 0, 1/2, 1, 3/2 or 2
points: the five *pentanomial* outcomes. Treating the pair as the unit of observation keeps
the correlation between the two games of a deal (the luck of the cards mostly cancels),
which the trinomial model (games as independent) ignores and so overstates the variance.

The pentanomial figures and the SPRT are two-seat statistics (a pair is one deal with the
two seats swapped); :func:`require_two_seats` refuses them for a ruleset of more seats. A
game of n seats is scored by seat rotation instead: each deal played n times, A taking a
share of each game (1, 1/n for a stalemate, 0), reported by :func:`share_report_text` with
the mean share, its interval over deals, and the share from each seat (docs/arena.md).

The SPRT is the generalised SPRT of fishtest and fastchess (M. Van den Bergh, "Comments on
Normalized Elo"): the log-likelihood ratio of the two maximum-likelihood pentanomial
distributions whose expected scores are those of ``elo0`` and ``elo1`` (logistic Elo),
given the observed frequencies. Empty outcomes count 0.001, as fastchess does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from ..game.errors import CuttleError

Z95 = 1.959963984540054  # the two-sided 95% normal quantile
NELO_SCALE = 800.0 / math.log(10.0)
PENTA_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])  # a pair's mean score per game, by outcome
TRI_SCORES = np.array([0.0, 0.5, 1.0])
SPRT_MODELS = ("logistic", "normalized")


class SprtError(CuttleError):
    """A malformed ``--sprt`` specification."""


# ---------------------------------------------------------------- conversions
def elo(score: float) -> float:
    """Logistic Elo difference implied by an expected score (±inf at 1 and 0)."""
    if not score > 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_to_score(e: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-e / 400.0))


def normal_cdf(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


# ---------------------------------------------------------------- pentanomial counts
def pentanomial(pair_points: Iterable[float]) -> list[int]:
    """Counts of pairs scoring 0, 1/2, 1, 3/2 and 2 points (A's points over the two games)."""
    counts = [0] * 5
    for p in pair_points:
        k = round(2 * p)
        if not 0 <= k <= 4 or abs(2 * p - k) > 1e-9:
            raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points, not {p!r}")
        counts[k] += 1
    return counts


def trinomial(game_scores: Iterable[float]) -> list[int]:
    """Counts of games lost, drawn and won (A's score 0, 1/2, 1)."""
    counts = [0] * 3
    for s in game_scores:
        k = round(2 * s)
        if not 0 <= k <= 2 or abs(2 * s - k) > 1e-9:
            raise ValueError(f"a game scores 0, 0.5 or 1, not {s!r}")
        counts[k] += 1
    return counts


def _mean_var(counts: Sequence[int], support: np.ndarray) -> tuple[float, float, int]:
    n = int(sum(counts))
    if n == 0:
        return 0.5, 0.0, 0
    p = np.asarray(counts, dtype=float) / n
    mu = float(p @ support)
    var = float(p @ (support - mu) ** 2)
    return mu, var, n


@dataclass
class Estimate:
    """A score estimate from counts over a support: the mean score per game, the variance of
    one observation (a pair, or a game), and what follows from them."""

    counts: list[int]
    score: float
    variance: float  # of one observation (ddof 0, as fastchess)
    n: int

    @property
    def standard_error(self) -> float:
        return math.sqrt(self.variance / self.n) if self.n else math.inf

    @property
    def interval(self) -> tuple[float, float]:
        h = Z95 * self.standard_error
        return max(0.0, self.score - h), min(1.0, self.score + h)

    @property
    def elo(self) -> float:
        return elo(self.score)

    @property
    def elo_interval(self) -> tuple[float, float]:
        lo, hi = self.interval
        return elo(lo), elo(hi)

    @property
    def elo_error(self) -> float:
        """Half the width of the Elo interval (fastchess's ``+/-``)."""
        lo, hi = self.elo_interval
        return (hi - lo) / 2 if math.isfinite(lo) and math.isfinite(hi) else math.inf

    @property
    def los(self) -> float:
        """Likelihood of superiority: the probability that A is the stronger, 1 - Φ(-(s - 1/2) / se)."""
        if self.n == 0:
            return 0.5
        if self.variance == 0.0:
            return 0.5 if self.score == 0.5 else float(self.score > 0.5)
        return normal_cdf((self.score - 0.5) / self.standard_error)


def pentanomial_estimate(counts: Sequence[int]) -> Estimate:
    mu, var, n = _mean_var(counts, PENTA_SCORES)
    return Estimate(list(map(int, counts)), mu, var, n)


def trinomial_estimate(counts: Sequence[int]) -> Estimate:
    mu, var, n = _mean_var(counts, TRI_SCORES)
    return Estimate(list(map(int, counts)), mu, var, n)


def normalized_elo(est: Estimate, pairs: bool = True) -> tuple[float, float, float]:
    """Normalised Elo and its 95% interval: (score - 1/2) / sigma * 800 / ln 10, sigma the
    standard deviation of one game's score (for pairs, sqrt(2) times the pair's)."""
    sigma = math.sqrt((2.0 if pairs else 1.0) * est.variance)
    if est.n == 0:
        return 0.0, -math.inf, math.inf
    if sigma == 0.0:  # every pair alike: no spread to normalise by
        x = 0.0 if est.score == 0.5 else math.copysign(math.inf, est.score - 0.5)
        return x, x, x

    def f(s: float) -> float:
        return (s - 0.5) / sigma * NELO_SCALE

    return f(est.score), f(est.score - Z95 * est.standard_error), f(est.score + Z95 * est.standard_error)


# ---------------------------------------------------------------- SPRT
@dataclass(frozen=True)
class Sprt:
    """H0: A's logistic Elo advantage is ``elo0``; H1: it is ``elo1`` (elo0 < elo1)."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"  # or "normalized": elo0 and elo1 in normalised Elo

    def __post_init__(self) -> None:
        if self.model not in SPRT_MODELS:
            raise SprtError(f"sprt: model must be one of {', '.join(SPRT_MODELS)}, not {self.model!r}")
        for name in ("elo0", "elo1", "alpha", "beta"):
            if not math.isfinite(getattr(self, name)):
                raise SprtError(f"sprt: {name} must be a finite number")
        if not self.elo0 < self.elo1:
            raise SprtError(f"sprt: elo0 ({self.elo0:g}) must be below elo1 ({self.elo1:g})")
        if not (-1000 <= self.elo0 and self.elo1 <= 1000):
            raise SprtError("sprt: elo0 and elo1 must lie within -1000..1000")
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(self, name) < 0.5:
                raise SprtError(f"sprt: {name} must lie strictly between 0 and 0.5, not {getattr(self, name):g}")

    @classmethod
    def parse(cls, text: str, model: str = "logistic") -> "Sprt":
        """``elo0,elo1[,alpha,beta]``."""
        parts = [p.strip() for p in str(text).split(",")]
        if len(parts) not in (2, 4):
            raise SprtError(f"sprt: expected elo0,elo1[,alpha,beta], got {text!r}")
        try:
            values = [float(p) for p in parts]
        except ValueError:
            raise SprtError(f"sprt: expected numbers elo0,elo1[,alpha,beta], got {text!r}") from None
        return cls(*values, model=model)  # type: ignore[misc, arg-type]  # elo0, elo1 and maybe alpha, beta: floats

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[int]) -> float:
        return float(llr_pentanomial(counts, self.elo0, self.elo1, self.model))

    def decide(self, llr: float) -> str | None:
        """'H1' (A is ``elo1`` better), 'H0' (A is no more than ``elo0`` better) or None (go on)."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None

    def to_json(self, counts: Sequence[int]) -> dict[str, Any]:
        value = self.llr(counts)
        return {
            "elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta, "model": self.model,
            "llr": round(value, 4), "lower": round(self.lower, 4), "upper": round(self.upper, 4),
            "result": self.decide(value), "pairs": int(sum(counts)),
        }


def _tilt(probs: np.ndarray, phi: np.ndarray) -> np.ndarray:
    """p_i = probs_i / (1 + θ phi_i), θ solving Σ probs_i phi_i / (1 + θ phi_i) = 0 by
    bisection (the sum falls from +inf to -inf between the poles). Batched over leading
    dimensions; ``phi`` must take both signs in each row."""
    a = -1.0 / phi.max(-1)
    b = -1.0 / phi.min(-1)
    for _ in range(64):  # to double precision: the bracket is at most 8 wide
        m = 0.5 * (a + b)
        g = (probs * phi / (1.0 + m[..., None] * phi)).sum(-1)
        pos = g > 0
        a = np.where(pos, m, a)
        b = np.where(pos, b, m)
    theta = 0.5 * (a + b)
    return probs / (1.0 + theta[..., None] * phi)


def mle_distribution(probs: np.ndarray, support: np.ndarray, s: float) -> np.ndarray:
    """The distribution most likely to give the observed frequencies ``probs`` among those
    whose expected score is ``s`` (Van den Bergh, proposition 1.1): probs tilted by x_i - s."""
    return _tilt(probs, np.broadcast_to(support - s, probs.shape))


def mle_distribution_normalized(probs: np.ndarray, support: np.ndarray, t: float) -> np.ndarray:
    """The same among the distributions with normalised score (mu - 1/2) / sigma = t
    (Van den Bergh, section 4.1), by fixed-point iteration from the uniform distribution."""
    p = np.full(probs.shape, 1.0 / probs.shape[-1])
    for _ in range(10):
        mu = (p * support).sum(-1, keepdims=True)
        sd = np.sqrt((p * (support - mu) ** 2).sum(-1, keepdims=True))
        phi = support - 0.5 - 0.5 * t * sd * (1.0 + ((support - mu) / sd) ** 2)
        new = _tilt(probs, phi)
        done = np.abs(new - p).max() < 1e-9
        p = new
        if done:
            break
    return p


def _probs(counts) -> tuple[np.ndarray, np.ndarray]:
    c = np.asarray(counts, dtype=float)
    c = np.where(c == 0, 1e-3, c)  # an outcome not seen yet counts 0.001, as in fastchess
    n = c.sum(-1)
    return c / n[..., None], n


def llr_from_counts(counts, support: np.ndarray, s0: float, s1: float) -> np.ndarray | float:
    """Generalised log-likelihood ratio of expected score s1 against s0 (``counts`` may be a
    batch, shape (..., k))."""
    probs, n = _probs(counts)
    p0 = mle_distribution(probs, support, s0)
    p1 = mle_distribution(probs, support, s1)
    out = n * (probs * (np.log(p1) - np.log(p0))).sum(-1)
    return float(out) if np.ndim(out) == 0 else out


def llr_pentanomial(counts, elo0: float, elo1: float, model: str = "logistic") -> np.ndarray | float:
    """The GSPRT log-likelihood ratio of pentanomial counts (one row, or a batch of rows) for
    Elo ``elo1`` against ``elo0``: logistic Elo, or normalised Elo with ``model="normalized"``."""
    counts = np.asarray(counts)
    if model == "normalized":
        probs, n = _probs(counts)
        t0, t1 = (math.sqrt(2.0) * e / NELO_SCALE for e in (elo0, elo1))
        p0 = mle_distribution_normalized(probs, PENTA_SCORES, t0)
        p1 = mle_distribution_normalized(probs, PENTA_SCORES, t1)
        out = n * (probs * (np.log(p1) - np.log(p0))).sum(-1)
    else:
        out = llr_from_counts(counts, PENTA_SCORES, elo_to_score(elo0), elo_to_score(elo1))
    out = np.where(counts.sum(-1) == 0, 0.0, out)
    return float(out) if np.ndim(out) == 0 else out


def llr_normal_approximation(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """The quadratic approximation of the same ratio: N (s1 - s0)(2 s - s0 - s1) / (2 var),
    s and var the pair mean score per game and its variance (fishtest's first GSPRT)."""
    est = pentanomial_estimate(counts)
    if est.n == 0 or est.variance == 0.0:
        return 0.0
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    return est.n * (s1 - s0) * (2 * est.score - s0 - s1) / (2 * est.variance)


# ---------------------------------------------------------------- reports
def _num(x: float, digits: int = 2) -> float | str | None:
    """A number for JSON: rounded, or "inf"/"-inf" (None for an undefined one)."""
    if math.isnan(x):
        return None
    if math.isfinite(x):
        return round(x, digits)
    return "inf" if x > 0 else "-inf"


def require_two_seats(seats: int, rules: str, what: str = "sprt") -> None:
    """Refuse the two-seat statistics (``what``: the SPRT, the pentanomial figures) for a
    ruleset of more seats, naming the option."""
    if seats != 2:
        raise SprtError(f"{what}: the SPRT and the pentanomial statistics compare two seats (a deal played with the "
                        f"seats swapped); {rules} has {seats} seats, scored as win shares with an interval over deals")


def pair_report(pair_games: Sequence[Sequence[float]], sprt: Sprt | None = None) -> dict[str, Any]:
    """The pentanomial figures for pairs of game (or match) scores, A's point of view.
    Returns the JSON object the arena prints under ``pentanomial``. Two seats only: a pair
    is two scores."""
    for p in pair_games:
        if len(p) != 2:
            raise ValueError(f"a pair holds the two scores of a deal played with the seats swapped, not {len(p)}: "
                             "the pentanomial statistics are two-seat")
    counts = pentanomial(sum(p) for p in pair_games)
    est = pentanomial_estimate(counts)
    nelo, nlo, nhi = normalized_elo(est)
    lo, hi = est.interval
    wl = sum(1 for p in pair_games if sorted(p) == [0.0, 1.0])
    dd = sum(1 for p in pair_games if list(p) == [0.5, 0.5])
    out: dict[str, Any] = {
        "counts": counts,
        "pairs": est.n,
        "score": round(est.score, 4),
        "variance": round(est.variance, 6),
        "scoreInterval": [round(lo, 4), round(hi, 4)],
        "elo": _num(est.elo),
        "eloError": _num(est.elo_error),
        "eloInterval": [_num(x) for x in est.elo_interval],
        "nElo": _num(nelo),
        "nEloInterval": [_num(nlo), _num(nhi)],
        "los": round(est.los, 4),
        "drawRatio": round(counts[2] / est.n, 4) if est.n else 0.0,
        "pairsRatio": _num((counts[3] + counts[4]) / (counts[0] + counts[1]) if counts[0] + counts[1]
                           else (math.inf if counts[3] + counts[4] else math.nan)),
        "wlDdRatio": _num(wl / dd if dd else (math.inf if wl else math.nan)),
    }
    if sprt is not None:
        out["sprt"] = sprt.to_json(counts)
    return out


def report_text(title: str, games: Sequence[int], pair_games: Sequence[Sequence[float]], sprt: Sprt | None = None,
                unit: str = "games") -> list[str]:
    """fastchess-style lines: Elo and nElo, LOS and ratios, W/L/D, Ptnml(0-2) and the LLR.
    ``games`` is A's (wins, losses, draws) in ``unit``. The pentanomial figures count pairs
    (a deal's two ``unit`` with the seats swapped), the W/L/D line counts ``unit``: each
    line says which, since fastchess's DrawRatio (pairs) beside Draws (games) reads as a
    contradiction otherwise."""
    j = pair_report(pair_games, sprt)
    w, l, d = games
    n = w + l + d
    points = w + d / 2
    pairs = len(pair_games)
    lines = [
        f"Results of {title}, by pairs of {unit} (a pair: {'one deal' if unit == 'games' else 'the same deals'}"
        f" played twice, the seats swapped):",
        f"Elo: {_fmt(j['elo'])} +/- {_fmt(j['eloError'])}, nElo: {_fmt(j['nElo'])} +/- "
        f"{_fmt((_f(j['nEloInterval'][1]) - _f(j['nEloInterval'][0])) / 2)}",
        f"LOS: {100 * j['los']:.2f} %, DrawRatio: {100 * j['drawRatio']:.2f} % of pairs (1 point of 2), "
        f"PairsRatio: {_fmt(j['pairsRatio'])} (pairs won / lost)",
        f"{unit.capitalize()}: {n}, Wins: {w}, Losses: {l}, Draws: {d}, Points: {points:.1f} ({100 * points / max(n, 1):.2f} %)",
        f"Ptnml(0-2): [{', '.join(map(str, j['counts']))}] of {pairs} pairs, WL/DD Ratio: {_fmt(j['wlDdRatio'])}",
    ]
    if sprt is not None:
        s = j["sprt"]
        frac = s["llr"] / s["upper"] if s["llr"] >= 0 else s["llr"] / s["lower"]
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "no decision yet"}[s["result"]]
        lines.append(f"LLR: {s['llr']:.2f} ({100 * frac:.1f}%) ({s['lower']:.2f}, {s['upper']:.2f}) "
                     f"[{sprt.elo0:.2f}, {sprt.elo1:.2f}]: {verdict}")
    return lines


def _f(x: float | str | None) -> float:
    if x is None:
        return math.nan
    return float(x) if not isinstance(x, str) else (math.inf if x == "inf" else -math.inf)


def _fmt(x: float | str | None) -> str:
    x = _f(x)
    return f"{x:.2f}" if math.isfinite(x) else ("-" if math.isnan(x) else ("inf" if x > 0 else "-inf"))


def share_report_text(title: str, seats: int, games: Sequence[int], score: float, interval: tuple[float, float],
                      deals: int, by_seat: dict[str, dict[str, Any]], unit: str = "games",
                      sides: int | None = None) -> list[str]:
    """The report of a game of ``seats`` seats played by seat rotation: A's mean share
    ``score`` with its 95% ``interval`` over the ``deals`` rotations, its share from each
    seat, and its wins, losses and stalemates (``games``: A's wins, losses and drawn games
    or matches in ``unit``). With two teams (``sides`` 2) A's share is its team's."""
    w, l, d = games
    even = 1 / (sides or seats)
    seat_text = ", ".join(f"{q} {_fmt(v.get('score'))}" for q, v in by_seat.items())
    return [
        f"Results of {title}:",
        f"Share: {score:.4f}, 95% interval {interval[0]:.4f}-{interval[1]:.4f} over deals, even share {even:.4f}",
        f"Deals: {deals}, each played {seats} times with A in every seat; share by A's seat: {seat_text}",
        f"{unit.capitalize()}: {w + l + d}, Wins: {w}, Losses: {l}, Stalemates: {d}",
    ]
