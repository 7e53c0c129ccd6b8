"""A recalibration of the search's scores, fitted on self-play: the ``calibrated_score``
field beside ``score`` (which stays the search's own figure).

The search's win rates are optimistic (docs/strength.md, "Calibration"): a determinized
search plays each sampled deal as if it were known, and its opponents cannot act on their
own hands, so it overrates its chances most where the most is hidden. Until those causes are
removed, this layer maps a score to the share the deciding seat went on to get in
self-play, by stage of the game: a logistic map ``sigmoid(a + b * logit(score))`` per stage
(the opening, plies 0-9; then by the deck: more than 30 cards, 11 to 30, 10 or fewer),
fitted by ``benchmarks/calibration.py --fit`` on the seeds recorded in ``FITTED`` and
checked on another (7300; docs/strength.md has both sets of figures). It holds only where it was fitted: the rulesets and
rollout policies in ``MAPS`` (the rulesets as they come, no options), the default exploration,
widening and opponent model, and a budget of 5,000 to 20,000 iterations. Anywhere else the field is absent (None), not a
guess. A proven score is exact: it is not mapped.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

from .limits import DEFAULT_EXPLORATION, DEFAULT_MODEL, default_widen

if TYPE_CHECKING:  # pragma: no cover
    from ..game.position import Position
    from .result import AnalysisResult

STAGES = ("opening (plies 0-9)", "deck > 30", "deck 11-30", "deck <= 10")
MIN_ITERATIONS, MAX_ITERATIONS = 5_000, 20_000
FITTED = {"iterations": 10_000, "widen": "the game's default (limits.default_widen)", "checkedOn": 7300,
          "games": {("cuttle-cards", "greedy"): 600, ("cutthroat", "greedy"): 1800, ("cuttle-cards", "value"): 1200,
                    ("team", "value"): 480, ("multiplayer", "greedy"): 1200},
          "seeds": {("cuttle-cards", "greedy"): (7100,), ("cutthroat", "greedy"): (7100, 7500, 7900),
                    ("cuttle-cards", "value"): (7100, 7500), ("team", "value"): (7100, 7500),
                    ("multiplayer", "greedy"): (7100, 7500)}}

# (ruleset, rollout) -> (a, b) for each stage, in the order of STAGES (benchmarks/calibration.py --fit)
MAPS: dict[tuple[str, str], tuple[tuple[float, float], ...]] = {
    ("cuttle-cards", "greedy"): ((-0.37, 0.782), (-0.408, 0.975), (-0.208, 1.13), (-0.208, 1.13)),  # 13,048 decisions; few late ones
    ("cutthroat", "greedy"): ((-0.369, 0.874), (-0.463, 0.647), (-0.512, 0.517), (-0.512, 0.517)),  # 16,246 (widen 1,000); few late ones
    ("cuttle-cards", "value"): ((-0.393, 1.117), (-0.33, 1.248), (-0.262, 1.195), (-0.11, 0.791)),  # 34,660
    ("team", "value"): ((-0.125, 1.057), (-0.196, 1.397), (-0.181, 1.165), (-0.103, 1.044)),  # 35,376
    ("multiplayer", "greedy"): ((-0.651, 0.611), (-0.692, 0.75), (-0.675, 0.716), (-0.675, 0.533)),  # 31,922 (four seats)
}


def stage_of(ply: int, deck: int) -> int:
    """The stage of a decision after ``ply`` moves with ``deck`` cards in the deck."""
    if ply <= 9:
        return 0
    if deck > 30:
        return 1
    return 2 if deck > 10 else 3


def calibrate(rules: str, ply: int, deck: int, score: float, rollout: str) -> float:
    """The map fitted for ``rules`` and ``rollout`` applied to ``score`` at this stage."""
    a, b = MAPS[rules, rollout][stage_of(ply, deck)]
    x = min(max(score, 1e-4), 1 - 1e-4)
    return 1.0 / (1.0 + math.exp(-(a + b * math.log(x / (1 - x)))))


def applies(rules: str, rollout: str, exploration: float, model: str, iterations: int,
            widen: float | None = None) -> bool:
    """Whether the map was fitted for a search like this one (``rules`` a ruleset as it
    comes, whose spec is its name; ``widen`` None is its default)."""
    return ((rules, rollout) in MAPS and exploration == DEFAULT_EXPLORATION and model == DEFAULT_MODEL
            and (widen is None or widen == default_widen(rules)) and MIN_ITERATIONS <= iterations <= MAX_ITERATIONS)


def annotate(result: "AnalysisResult", pos: "Position") -> "AnalysisResult":
    """``result`` with every move's ``calibrated_score`` where the map applies, and its
    ``calibrated_interval``: the ends of the score's interval through the same map, which
    is monotone, so the interval holds the calibrated score (a move the solver proved keeps
    its exact score and interval); unchanged elsewhere, and for a fully proven or forced
    answer (nothing to calibrate)."""
    if result.stop_reason in ("forced", "proven"):
        return result
    if not applies(result.rules, result.rollout, result.exploration, result.model, result.iterations, result.widen):
        return result
    ply, deck = pos.actions, pos.deck_size

    def mapped(x: float) -> float:
        return calibrate(result.rules, ply, deck, x, result.rollout)

    result.moves = [replace(m, calibrated_score=m.score, calibrated_interval=m.interval) if m.proven is not None else
                    replace(m, calibrated_score=mapped(m.score), calibrated_interval=(mapped(m.interval[0]), mapped(m.interval[1])))
                    for m in result.moves]
    return result
