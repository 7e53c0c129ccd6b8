"""benchmarks/strength.py's report: a target is met only when the interval's low end reaches it."""

from .helpers import load_benchmark


def test_met_is_judged_at_the_low_end():
    met = load_benchmark("strength").met_at_low_end
    assert met(0.95, 0.91, 0.90) == "yes"
    assert met(0.90, 0.90, 0.90) == "yes"
    assert met(0.92, 0.88, 0.90) == "not at the low end (-0.02)"
    assert met(0.85, 0.80, 0.90) == "no (-0.05)"
