"""What a first run shows and measures (issue 26, items 13 and 15): the compile notice and
its progress per kernel, and a solver rate that leaves the kernels' load out."""

import json
import time as real_time
from pathlib import Path

from click.testing import CliRunner

import cuttle_search.analysis.solve as S
from cuttle_search.cli import main

POS = Path(__file__).parent.parent / "positions"


# ---------------------------------------------------------------- item 15: the solver's rate
class _Clock:
    """``time`` as ``solve`` reads it, with ``skew`` seconds added from the moment the
    kernels' load adds them (a load that "took" 1,000 seconds, without waiting)."""

    def __init__(self) -> None:
        self.skew = 0.0

    def perf_counter(self) -> float:
        return real_time.perf_counter() + self.skew


def test_the_solvers_seconds_and_rate_leave_the_kernels_load_out(monkeypatch):
    clock = _Clock()
    real_load = S.load_kernels

    def slow_load(*args):
        real_load(*args)
        clock.skew += 1000.0

    monkeypatch.setattr(S, "_time", clock)
    monkeypatch.setattr(S, "load_kernels", slow_load)
    res = S.solve(POS / "deck-out-endgame.json")
    assert res.proven and res.nodes == 166
    assert res.compile_seconds >= 1000.0 and res.seconds < 1000.0
    assert res.nodes_per_second == res.nodes / res.seconds
    j = res.to_json()
    assert j["compileSeconds"] >= 1000.0 and j["seconds"] < 1000.0 and j["nodesPerSecond"] > 166 / 1000.0


def test_the_solve_command_shows_the_load_apart_from_the_rate():
    r = CliRunner().invoke(main, ["solve", str(POS / "deck-out-endgame.json")])
    assert r.exit_code == 0, r.output
    line = r.output.splitlines()[1]
    assert line.startswith("proven: win for p0; 166 nodes in ") and "nodes/s; loading the engine " in line
    assert line.endswith(" s, not counted)")
    j = json.loads(CliRunner().invoke(main, ["solve", str(POS / "deck-out-endgame.json"), "--json"]).output)
    assert {"seconds", "compileSeconds", "nodesPerSecond"} <= set(j)


def test_every_kernel_a_solve_calls_is_loaded_before_its_clock_starts(monkeypatch):
    """Once ``load_kernels`` has run, the solve calls no kernel it has not called: every
    kernel the timed part uses was compiled or loaded for the same argument types."""
    from cuttle_search.engine import jit

    calls: list[tuple[str, tuple]] = []
    loading = [False]
    seen_in_load: set[tuple[str, tuple]] = set()
    real_load = S.load_kernels

    def load(*args):
        loading[0] = True
        try:
            real_load(*args)
        finally:
            loading[0] = False

    def typed(args):
        import numba

        return tuple(numba.typeof(a) for a in args)

    kernels = {id(k) for k in jit.KERNELS}
    for module in (S.V, S):
        for name in dir(module):
            obj = getattr(module, name)
            if id(obj) in kernels:
                def spy(*args, _k=obj, _n=name):
                    key = (_n, typed(args))
                    (seen_in_load.add if loading[0] else calls.append)(key)
                    return _k(*args)
                monkeypatch.setattr(module, name, spy)
    monkeypatch.setattr(S, "load_kernels", load)
    S.solve(POS / "deck-out-endgame.json")
    timed = {c for c in calls if c[0] != "root_moves"}  # (root_moves runs before the load)
    assert timed and timed <= seen_in_load
