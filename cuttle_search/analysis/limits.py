"""The ranges and defaults of every search option, shared by the API, the command line and
the hint server (which may set tighter caps of its own, see ``hint.ServerLimits``), the search
budget (``Limit``) and the search's error (``SearchError``): the leaf of the analysis layer
(it imports no module of it), so the driver (``ismcts``) and the solver (``solve``) share
them without importing each other."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..engine.value import value_holds_for
from ..game.errors import CuttleError, brief
from ..game.seats import plain_number, whole

if TYPE_CHECKING:
    from ..game.rules import Ruleset

class CancelEvent(Protocol):
    """What a search's ``cancel`` is: anything whose ``is_set()`` says stop (a ``threading.Event``)."""

    def is_set(self) -> bool: ...


def check_cancel(cancel: object) -> None:
    """A search's ``cancel``: None, or anything with ``is_set()``."""
    if cancel is not None and not callable(getattr(cancel, "is_set", None)):
        raise SearchError(f"cancel: expected a threading.Event (anything with is_set()), got {brief(cancel)}")


def check_every(every: object) -> None:
    """The seconds between a search's progress reports."""
    if not is_finite_number(every) or not MIN_EVERY <= every <= MAX_EVERY:  # type: ignore[operator]
        raise SearchError(f"every: expected a number of seconds from {MIN_EVERY} to {MAX_EVERY:g}, got {brief(every)}")


MAX_ITERATIONS = 1_000_000_000  # about 37 GB of tree: more than any machine here holds
MAX_SECONDS = 7 * 24 * 3600.0
MIN_EVERY, MAX_EVERY = 0.01, 3600.0  # seconds between progress reports (analyse's every=)
MAX_NODES = 2**62  # the exact solver's node budget: its counter is an int64
MAX_THREADS = 256
MAX_SEED = 2**63 - 1
MAX_EXPLORATION = 1000.0
MAX_WIDEN = 1_000_000.0
MIN_WIDEN = 0.001  # the smallest widening but 0 (off): below it every move opens at once anyway

DEFAULT_ITERATIONS = 10_000  # with neither an iteration nor a time budget
DEFAULT_EXPLORATION = 0.7
DEFAULT_WIDEN = 4.0  # progressive widening below the root (docs/search.md; 0.0 turns it off)
# A game whose search widens on another scale. In Cutthroat the nodes below the root keep to
# the greedy policy's pick for the actor's dealt hand until they have 1,000 visits: at equal
# time it beat the scale of 4 against two `pimc` seats and head to head against two of it
# (docs/strength.md, "Cutthroat: a narrower tree").
WIDEN_BY_RULESET = {"cutthroat": 1000.0}
ROLLOUT_NAMES = ("greedy", "heuristic", "random", "greedy-cut", "value")  # the rollout policies, by name
DEFAULT_ROLLOUT = "greedy"  # the search's rollout where the learned value is not the default
# The learned value is the search's default rollout in the two-seat rulesets and in Team,
# where it was measured against greedy rollouts at equal time (docs/strength.md, "A learned
# value"); not in multiplayer with two seats (its Jokers were never in the value's games).
VALUE_DEFAULT_RULESETS = ("cuttle-cards", "cuttle-cards-2", "bga-balanced", "bga-traditional", "classic", "team")
# rollout policies that end a playout early with an outcome drawn to the learned value's
# mean: the stalemates they settle with are not the game's, so a search with one estimates
# each move's score but not its win and stalemate rates (reported as unknown, None)
ROLLOUT_SETTLES = ("value",)


def rollout_refusal(rollout: str | None, rules: Ruleset) -> str | None:
    """Why ``rollout`` cannot search games of ``rules``, or None when it can (None, the
    game's default, always can): ``value`` needs a network learned for the game
    (``engine.value.value_holds_for``: two seats, or Team); the engine would play it as
    ``greedy`` anywhere else."""
    # the kernel's Python body: a check needs no compiled code (nor a first run's compile)
    if rollout == "value" and not value_holds_for.py_func(rules.players, rules.teams):
        return f"'value' is learned for two seats and for Team, not for {rules.spec} ({rules.players} seats)"
    return None


def default_rollout(rules: Ruleset) -> str:
    """The rollout a search of a game of ``rules`` uses when none is named: ``value`` in
    ``VALUE_DEFAULT_RULESETS`` where it holds, else ``DEFAULT_ROLLOUT``."""
    if rules.name in VALUE_DEFAULT_RULESETS and rollout_refusal("value", rules) is None:
        return "value"
    return DEFAULT_ROLLOUT


def default_widen(name: str) -> float:
    """The widening a search of a game of the ruleset named ``name`` (``Ruleset.name``, its
    options aside) uses when none is named: ``WIDEN_BY_RULESET``'s, else ``DEFAULT_WIDEN``."""
    return WIDEN_BY_RULESET.get(name, DEFAULT_WIDEN)


MODEL_NAMES = ("maxn", "paranoid", "random")  # the opponent models (engine/ismcts.py)
DEFAULT_MODEL = "maxn"


def is_finite_number(x: object) -> bool:
    """A real number (not a bool) that is finite, and small enough to be a float."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:  # an int too large for a float
        return False


def widen_error(value: object) -> str | None:
    """What is wrong with a widening (``None`` when nothing is): 0 (off), or a finite number
    from ``MIN_WIDEN`` to ``MAX_WIDEN``. The one check every entry point uses."""
    if is_finite_number(value) and (value == 0 or MIN_WIDEN <= value <= MAX_WIDEN):  # type: ignore[operator]
        return None
    return f"widen: expected 0 (off) or a number from {MIN_WIDEN:g} to {MAX_WIDEN:,.0f}, got {brief(value)}"


class SearchError(CuttleError):
    """A position or budget the search cannot work with; the message says why."""


@dataclass(frozen=True)
class Limit:
    """A search budget: iterations, seconds, or both (whichever runs out first)."""

    iterations: int | None = None
    time: float | None = None

    def __post_init__(self) -> None:
        if self.iterations is not None:
            object.__setattr__(self, "iterations", whole(self.iterations, "iterations", 1, MAX_ITERATIONS, SearchError))
        object.__setattr__(self, "time", plain_number(self.time))
        t = self.time
        if t is not None and (not is_finite_number(t) or not 0 < t <= MAX_SECONDS):
            raise SearchError(f"time: expected a number of seconds above 0 and at most {MAX_SECONDS:,.0f}, got {brief(t)}")

    @property
    def effective_iterations(self) -> int | None:
        if self.iterations is None and self.time is None:
            return DEFAULT_ITERATIONS
        return self.iterations
