"""benchmarks/strength.py's report: a target is met only when the interval's low end reaches it."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _ladder():
    spec = importlib.util.spec_from_file_location("strength_bench", ROOT / "benchmarks" / "strength.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_met_is_judged_at_the_low_end():
    met = _ladder().met_at_low_end
    assert met(0.95, 0.91, 0.90) == "yes"
    assert met(0.90, 0.90, 0.90) == "yes"
    assert met(0.92, 0.88, 0.90) == "not at the low end (-0.02)"
    assert met(0.85, 0.80, 0.90) == "no (-0.05)"
