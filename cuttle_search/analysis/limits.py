"""The ranges and defaults of every search option, shared by the API, the command line and
the hint server (which may set tighter caps of its own, see ``hint.ServerLimits``). Plain
constants: the command line reads them without loading the engine."""

import math

MAX_ITERATIONS = 1_000_000_000  # about 37 GB of tree: more than any machine here holds
MAX_SECONDS = 7 * 24 * 3600.0
MAX_THREADS = 256
MAX_SEED = 2**63 - 1
MAX_EXPLORATION = 1000.0

DEFAULT_ITERATIONS = 10_000  # with neither an iteration nor a time budget
DEFAULT_EXPLORATION = 0.7
ROLLOUT_NAMES = ("greedy", "heuristic", "random")  # the rollout policies, by name
DEFAULT_ROLLOUT = "greedy"
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
