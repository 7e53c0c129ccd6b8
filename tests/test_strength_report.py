"""benchmarks/strength.py's report: a target is met only when the interval's low end reaches it."""

from .helpers import load_benchmark


def test_met_is_judged_at_the_low_end():
    met = load_benchmark("strength").met_at_low_end
    assert met(0.95, 0.91, 0.90) == "yes"
    assert met(0.90, 0.90, 0.90) == "yes"
    assert met(0.92, 0.88, 0.90) == "not at the low end (-0.02)"
    assert met(0.85, 0.80, 0.90) == "no (-0.05)"


def test_a_separate_low_end_is_judged_with_the_score():
    met = load_benchmark("strength").met_at_low_end
    assert met(0.91, 0.87, 0.90, 0.85) == "yes"
    assert met(0.91, 0.84, 0.90, 0.85) == "not at the low end (-0.01)"
    assert met(0.89, 0.87, 0.90, 0.85) == "no (-0.01)"


def test_every_row_that_runs_at_equal_time_names_a_row_that_gives_the_time():
    strength = load_benchmark("strength")
    keys = {row.key for row in strength.LADDER}
    for row in strength.LADDER:
        assert ("EQUAL" in row.a) == (row.equal_time_of is not None), row.key
        if row.equal_time_of is not None:
            assert row.equal_time_of in keys, row.key
            earlier = [r.key for r in strength.LADDER[:strength.LADDER.index(row)]]
            assert row.equal_time_of in earlier, f"{row.key} runs before the row that gives its time"
