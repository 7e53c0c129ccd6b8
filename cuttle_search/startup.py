"""Start-up of the command line, imported first by ``cli.py`` for its effects (the Python API
does not import it, so a program that uses the package keeps its collector as it set it).

Most of a warm command's start is Python importing NumPy and Numba and building Numba's
registries, and a surprising share of that is the cyclic garbage collector: it keeps
walking the hundreds of thousands of objects those imports create, all of which live until
the process ends, and walks them all once more when the interpreter shuts down. So:

* the heavy imports run with the collector paused, and what they created is then frozen
  (``gc.freeze``: moved where collections never look; nothing of it is garbage);
* at exit everything is frozen before the interpreter's final collection, which then has
  nothing to walk. The command has finished its work by then; what the final collection
  would have freed, the operating system frees with the process.

The collector runs as usual in between, so a long command (``hint``, ``arena``) collects
its garbage as any Python program does.

NumPy's OpenBLAS also starts a pool of threads when it is imported, one a core, which spin
while they wait for work; the commands never give them any (their only matrix products are
a few small ones loading the learned value), yet the pool cost a third of a warm
``analyse``'s processor time. So it is held to one thread (none started), unless the user
has said how many BLAS threads they want. Child processes (the arena's workers) inherit it.
Measured on ``analyse``: see docs/search.md.
"""

import atexit
import gc
import os

BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
"""What OpenBLAS reads for its thread count, first found wins; if any is set it is left alone."""


def _one_blas_thread() -> None:
    if not any(os.environ.get(name) for name in BLAS_THREAD_VARIABLES):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


def _import_quietly() -> None:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        import numpy  # noqa: F401
        import numba  # noqa: F401
    finally:
        if was_enabled:
            gc.enable()
    gc.freeze()


_one_blas_thread()
_import_quietly()
atexit.register(gc.freeze)
