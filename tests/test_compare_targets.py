"""benchmarks/compare.py: issue 28's targets judged from a comparison's summary."""

from .helpers import load_benchmark


def _row(rate, per_node=36.0):
    return {"per_cpu_second": {"new_median": rate}, "bytes_per_node": {"new_median": per_node}}


def test_the_seat_openings_are_judged_against_the_two_seat_opening(capsys):
    compare = load_benchmark("compare")
    positions = ["opening-p0", "cutthroat-opening-p0", "team-opening-p0", "multiplayer-4-opening-p0"]
    rates = {"opening-p0": 200_000, "cutthroat-opening-p0": 181_000, "team-opening-p0": 130_000,
             "multiplayer-4-opening-p0": 110_000}
    summary = {f"{p}@100000": _row(rates[p]) for p in positions}
    out = compare.targets(summary, positions, [100_000])
    assert "share_of_two_seat" not in out["opening-p0"]
    assert out["cutthroat-opening-p0"]["share_of_two_seat"] == 181_000 / 200_000
    assert out["cutthroat-opening-p0"]["share_met"]  # 90.5% >= 90%
    assert out["team-opening-p0"]["share_met"]  # 65% >= 60%
    assert not out["multiplayer-4-opening-p0"]["share_met"]  # 55% < 60%
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("target multiplayer-4-opening-p0") and "55%" in lines[-1]
    assert lines[-1].endswith("not met")


def test_no_two_seat_opening_no_seat_judgement():
    compare = load_benchmark("compare")
    out = compare.targets({"team-opening-p0@100000": _row(130_000)}, ["team-opening-p0"], [100_000])
    assert out["team-opening-p0"] == {"bytes_per_node": {}}
