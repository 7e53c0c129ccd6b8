"""The engine layer: the only home of Numba kernels.

``kernels.py`` holds the game (its docstring documents the state layout) and ``search.py``
the ISMCTS. Numba's on-disk cache checks only the file that defines a function, so a change
in ``kernels.py`` would not recompile the cached search kernels that call into it. On import
this module therefore stamps the engine's sources and, when they changed, clears the
engine's cached machine code before anything loads it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_SOURCES = ("kernels.py", "search.py")


def _cache_dirs() -> list[Path]:
    dirs = [_HERE / "__pycache__"]
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root:
        dirs += [p for p in Path(root).glob("**/") if p.name == "engine" and "cuttle_search" in str(p)]
    return dirs


def _refresh_cache_stamp() -> None:
    digest = hashlib.sha256()
    for name in _SOURCES:
        digest.update((_HERE / name).read_bytes())
    stamp = digest.hexdigest()
    for d in _cache_dirs():
        marker = d / "cuttle_engine.stamp"
        try:
            if marker.exists() and marker.read_text() == stamp:
                continue
            if d.exists():
                for f in d.iterdir():
                    if f.suffix in (".nbi", ".nbc") and f.name.split(".")[0] in ("kernels", "search"):
                        f.unlink()
            d.mkdir(parents=True, exist_ok=True)
            marker.write_text(stamp)
        except OSError:
            pass  # a read-only install: Numba then falls back to compiling in memory


_refresh_cache_stamp()

from . import kernels, search  # noqa: E402

__all__ = ["kernels", "search"]
