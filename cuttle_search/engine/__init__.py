"""The engine layer: the only home of Numba kernels and the only home of the rules.

Modules, lowest first (each imports only those above it in this list)::

    jit        the njit wrapper and the registry of compiled kernels
    noref      borrow(): array views without reference counting, for the hot kernels
    layout     the state layout, rules array and move encoding (the one layout document)
    state      the state's fields by name, for the code above the engine (no kernels)
    rng        splitmix64 random numbers
    seats      next seat, opponent(s), partner
    table      queries about the table: points, goals, control, targets, hand caps
    movegen    legal moves
    apply      playing a move: every zone change, the counter chain, the win check
    setup      the deal, the pending state a position implies, the invariants
    harness    random games, perft
    value      the learned value of a two-seat or Team state (weights: value_weights, value_team_weights)
    policies   rollout policies, material, the win-now test
    info       what a seat sees, determinization, winning cards
    ismcts     the information-set MCTS iteration
    baselines  cuttle.cards' AI and PIMC
    solver     the exact solver for perfect-information positions

Numba's on-disk cache checks only the file that defines a function, so a change in one
engine file would not recompile the cached kernels of another that call into it. On import
this package therefore stamps every source file of the engine (every ``*.py`` here, found
by globbing) and, when any changed, clears the engine's cached machine code before anything
loads it.

Where no cache directory is writable (a read-only install with no writable home or
temporary directory), the kernels compile in memory instead: ``jit.CACHE`` is then off.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def _sources() -> list[Path]:
    """Every Python file of the engine, so a new kernel file is stamped without a list."""
    return sorted(_HERE.glob("*.py"))


def _cache_dirs() -> list[Path]:
    dirs = [_HERE / "__pycache__"]
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root:
        # Numba's place for this folder's kernels there: the folder's name and the SHA-1 of
        # its path (numba.core.caching: UserProvidedCacheLocator), or, in older Numbas, the
        # folder's path repeated under the root
        here = os.path.dirname(os.path.abspath(__file__))
        dirs.append(Path(root) / f"{os.path.basename(here)}_{hashlib.sha1(here.encode()).hexdigest()}")
        dirs += [p for p in Path(root).glob("**/") if p.name == "engine" and "cuttle_search" in str(p)]
    return dirs


def _refresh_cache_stamp() -> None:
    digest = hashlib.sha256()
    for path in _sources():
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    stamp = digest.hexdigest()
    for d in _cache_dirs():
        marker = d / "cuttle_engine.stamp"
        try:
            if marker.exists() and marker.read_text() == stamp:
                continue
            if d.exists():
                for f in d.iterdir():
                    if f.suffix in (".nbi", ".nbc"):  # every kernel of the engine, old files included
                        f.unlink()
            d.mkdir(parents=True, exist_ok=True)
            marker.write_text(stamp)
        except OSError:
            pass  # not writable here: jit.choose_cache picks another place or compiles in memory


def _writable(d: Path) -> bool:
    try:
        d.mkdir(parents=True, exist_ok=True)
        probe = d / f".cuttle-write-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
        return True
    except OSError:
        return False


def _private(d: Path) -> bool:
    """Whether ``d`` (in the shared temporary directory) is, or can be made, this user's
    alone: created with mode 0700, or already owned by this user and not writable by others."""
    try:
        d.mkdir(mode=0o700, exist_ok=True)
        st = d.stat()
    except OSError:
        return False
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return False
    return not st.st_mode & 0o022


def _choose_cache() -> bool:
    """Find a writable place for Numba's cache; False means compile in memory only.

    Numba writes next to the sources (``__pycache__``) unless ``NUMBA_CACHE_DIR`` is set.
    When neither is writable, point ``NUMBA_CACHE_DIR`` at the user's cache directory or,
    failing that, the temporary directory, before Numba reads its configuration."""
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root:
        return _writable(Path(root))
    if _writable(_HERE / "__pycache__"):
        return True
    import tempfile

    home_cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    shared = Path(tempfile.gettempdir()) / f"cuttle_search-numba-{os.getuid() if hasattr(os, 'getuid') else 0}"
    for candidate in (Path(home_cache) / "cuttle_search" / "numba", shared):
        if candidate == shared and not _private(candidate):
            continue  # someone else's directory: compiled code loaded from it could be theirs
        if _writable(candidate):
            os.environ["NUMBA_CACHE_DIR"] = str(candidate)
            try:
                from numba.core import config

                config.CACHE_DIR = str(candidate)
            except ImportError:  # pragma: no cover
                pass
            return True
    return False


from . import jit  # noqa: E402  (after the cache directory is chosen above)

jit.CACHE = _choose_cache()
_refresh_cache_stamp()
