"""The engine layer: the only home of Numba kernels (see ``kernels.py`` for the state layout)."""

from . import kernels

__all__ = ["kernels"]
