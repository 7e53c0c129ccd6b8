"""The package's face: the public names at its root, one version, type information."""

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import cuttle_search


def test_public_names_are_importable_from_the_root():
    from cuttle_search import Limit, Move, Position, analyse, best_move, solve

    pos = Position.load(Path(__file__).parent.parent / "positions" / "win-in-one-p0.json")
    result = analyse(pos, iterations=500, seed=1)
    assert isinstance(result.best.move, Move) and best_move(pos, iterations=500, seed=1).best.move == result.best.move
    assert Limit(iterations=10).iterations == 10 and callable(solve)
    assert set(cuttle_search.__all__) <= set(dir(cuttle_search))


def test_importing_the_package_does_not_load_the_engine():
    code = "import sys, cuttle_search; print('numba' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


def test_one_version_and_type_information():
    assert importlib.metadata.version("cuttle-search") == cuttle_search.__version__
    assert (Path(cuttle_search.__file__).parent / "py.typed").exists()
