"""The package's face: the public names at its root, one version, type information."""

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

import cuttle_search


def test_public_names_are_importable_from_the_root():
    from cuttle_search import Limit, Move, Position, analyse, best_move, solve

    pos = Position.load(Path(__file__).parent.parent / "positions" / "win-in-one-p0.json")
    result = analyse(pos, iterations=500, seed=1)
    assert isinstance(result.best.move, Move) and best_move(pos, iterations=500, seed=1).best.move == result.best.move
    assert Limit(iterations=10).iterations == 10 and callable(solve)
    assert set(cuttle_search.__all__) <= set(dir(cuttle_search))
    assert set(cuttle_search.__all__) == {"__version__"} | set(cuttle_search._PUBLIC)


def test_every_name_the_readme_uses_is_at_the_root():
    """The README writes the results and errors bare under ``import cuttle_search``."""
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    for name in ("analyse_stream", "AnalysisResult", "MoveStat", "SolveResult", "SolveProgress",
                 "SearchError", "PositionError", "MoveError"):
        assert f"`{name}" in readme and name in cuttle_search.__all__
        assert getattr(cuttle_search, name).__name__ == name
    for error in (cuttle_search.SearchError, cuttle_search.PositionError, cuttle_search.MoveError):
        assert issubclass(error, ValueError)
    with pytest.raises(cuttle_search.PositionError, match="view"):
        cuttle_search.Position.from_json('{"view": 3}')


def test_importing_the_package_does_not_load_the_engine():
    code = "import sys, cuttle_search; print('numba' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


def test_one_version_and_type_information():
    assert importlib.metadata.version("cuttle-search") == cuttle_search.__version__
    assert (Path(cuttle_search.__file__).parent / "py.typed").exists()
