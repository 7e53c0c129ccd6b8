"""A solve on a worker thread: the progress it reports (``SolveProgress``, every
``PROGRESS_EVERY`` seconds), the stage it is in, and the wait that keeps the calling thread
responsive to Ctrl-C and stops the search on an interrupt (``watched``: the command
line's ``analyse`` waits on its search the same way)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, TypeVar

import numpy as np

T = TypeVar("T")


@dataclass(frozen=True)
class SolveProgress:
    """What a running solve has done (``solve``'s ``progress`` callback gets one about
    every ``PROGRESS_EVERY`` seconds): the nodes so far, the seconds, the stage ("values":
    each move's win, draw or loss; "plies": the plies of the wins and losses) and how many
    of the root moves that stage has finished (a draw counts as finished in the plies
    stage: it has none), out of ``total``, every legal move."""

    nodes: int
    seconds: float
    stage: str
    done: int
    total: int


PROGRESS_EVERY = 0.25


class _Stage:
    """The stage a solve is in and the array in which its kernel marks the root moves it
    has finished (read from another thread for the progress display: a racy read of a
    count is fine there)."""

    def __init__(self) -> None:
        self.now: tuple[str, np.ndarray] = ("values", np.zeros(0, dtype=np.int64))

    def enter(self, name: str, done: np.ndarray) -> None:
        self.now = (name, done)  # one store: a reader never sees one stage's name with another's array


def watched(work: Callable[[], None], stop: Callable[[], None], report: Callable[[], None],
            interruptible: bool) -> bool:
    """Run ``work`` on a worker thread, calling ``report`` every ``PROGRESS_EVERY`` seconds
    until it ends; returns whether a ``KeyboardInterrupt`` stopped it (raised again unless
    ``interruptible``). Whatever ends the wait early (an interrupt, an exception from
    ``report``) calls ``stop`` (the solver: its kernel's stop flag, which it reads every
    ``CHECK_EVERY`` nodes; a search: its cancel event) and waits for the worker, so no
    search outlives the call; a second interrupt meanwhile is ignored. The worker's own
    exceptions come back to this thread."""
    failure: list[BaseException] = []
    finished = threading.Event()  # (not Thread.join: an interrupted join can return early later)

    def run() -> None:
        try:
            work()
        except BaseException as e:  # handed to the calling thread
            failure.append(e)
        finally:
            finished.set()

    interrupted = False
    try:
        threading.Thread(target=run, name="cuttle-solve", daemon=True).start()
        while not finished.wait(PROGRESS_EVERY):
            report()
    except BaseException as e:
        stop()
        while not finished.is_set():
            try:
                finished.wait(PROGRESS_EVERY)
            except KeyboardInterrupt:
                pass
        if not (interruptible and isinstance(e, KeyboardInterrupt)):
            raise
        interrupted = True
    if failure:
        raise failure[0]
    return interrupted


def searched_until_interrupted(search: Callable[[threading.Event], T]) -> tuple[T, bool]:
    """``search(cancel)`` on a worker thread, with Ctrl-C setting ``cancel`` (a search stops at
    its next check and answers with what it found): that answer, and whether Ctrl-C stopped
    it. What ``analyse`` and the terminal's ``hint`` show on Ctrl-C."""
    cancel = threading.Event()
    found: list[T] = []
    interrupted = watched(lambda: found.append(search(cancel)), cancel.set, lambda: None, interruptible=True)
    return found[0], interrupted
