"""Where the arena's paired deals run: worker processes on this machine, or Ray tasks on a
local or existing cluster (the optional ``ray`` extra).

A backend maps a function over jobs and yields the results as they finish, in any order,
with a bounded number of jobs in flight, so the caller can stop early (an SPRT decision)
without a queue of work to drain. A worker that dies takes no job with it: the local
backend rebuilds its process pool and resubmits the jobs that were in flight; Ray retries
a task whose worker died. Every job is a pure function of its arguments, so a retried job
gives the same result.
"""

from __future__ import annotations

import logging
import socket
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterable, Iterator

from ..version import __version__
from ..game.errors import CuttleError
from ..game.inputs import whole_number

BACKENDS = ("local", "ray")
MAX_POOL_RESTARTS = 8  # a pool that keeps breaking is a job that kills its worker: stop
RAY_TASK_RETRIES = 4


class BackendError(CuttleError):
    """A backend that cannot run: the ray extra missing, or no cluster at the address."""


class WorkerLost(RuntimeError):
    """Workers kept dying on the same jobs."""


class Backend:
    name = "?"

    def imap_unordered(self, fn: Callable[[Any], Any], jobs: Iterable[Any]) -> Iterator[Any]:
        raise NotImplementedError

    def close(self) -> None:
        """Release the workers (and a Ray instance this backend started)."""

    def __enter__(self) -> "Backend":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class LocalBackend(Backend):
    """``workers`` processes (1: this process, no pool)."""

    name = "local"

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self.restarts = 0  # pools rebuilt after a worker died (for tests and reports)

    def imap_unordered(self, fn, jobs):
        jobs = iter(jobs)
        if self.workers <= 1:
            for job in jobs:
                yield fn(job)
            return
        pool = _pool(self.workers)
        inflight: dict[Any, Any] = {}
        retry: list[Any] = []
        finished = False
        try:
            while True:
                while len(inflight) < 2 * self.workers:
                    if retry:
                        job = retry.pop()
                    else:
                        job = next(jobs, _END)
                        if job is _END:
                            break
                    inflight[pool.submit(fn, job)] = job
                if not inflight:
                    finished = True
                    return
                done, _ = wait(list(inflight), return_when=FIRST_COMPLETED)
                broken = False
                for fut in done:
                    job = inflight.pop(fut)
                    try:
                        result = fut.result()
                    except BrokenProcessPool:
                        retry.append(job)
                        broken = True
                        continue
                    yield result
                if broken:
                    # a worker died: every job still in flight is lost with the pool
                    self.restarts += 1
                    if self.restarts > MAX_POOL_RESTARTS:
                        raise WorkerLost(f"worker processes died {self.restarts} times; giving up")
                    retry.extend(inflight.values())
                    inflight.clear()
                    pool.shutdown(wait=False, cancel_futures=True)
                    pool = _pool(self.workers)
        finally:
            for fut in inflight:
                fut.cancel()
            if finished:
                pool.shutdown(wait=True)
            else:  # interrupted (Ctrl-C), failed or left early: the workers' jobs are not waited for
                _stop_pool(pool)


class RayBackend(Backend):
    """Ray tasks, one CPU each. Without ``address`` a local Ray instance with ``workers``
    CPUs is started (and stopped by :meth:`close`); with one, the driver joins that cluster
    (``auto`` finds a cluster started on this machine by ``ray start``). A Ray instance the
    caller already started (``ray.init``) is used as it is."""

    name = "ray"

    def __init__(self, workers: int = 1, address: str | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise BackendError("backend: ray is not installed; install the extra: pip install 'cuttle-search[ray]'") from None
        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            kwargs: dict[str, Any] = dict(include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
            if address is not None:
                _check_reachable(address)
            try:
                if address is None:  # a private instance on the loopback interface
                    ray.init(address="local", num_cpus=workers, _node_ip_address="127.0.0.1", **kwargs)
                else:
                    ray.init(address=address, **kwargs)
            except Exception as e:  # ConnectionError, ValueError, RuntimeError: all one line
                msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                where = f"the Ray cluster at {address}" if address else "a local Ray instance"
                raise BackendError(f"address: cannot start or join {where}: {msg}") from None
            self._started = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.slots = max(1, 2 * cpus)

    def imap_unordered(self, fn, jobs):
        ray = self._ray
        remote = ray.remote(num_cpus=1, max_retries=RAY_TASK_RETRIES, retry_exceptions=False)(_versioned)
        jobs = iter(jobs)
        inflight: dict[Any, Any] = {}
        try:
            while True:
                while len(inflight) < self.slots:
                    job = next(jobs, _END)
                    if job is _END:
                        break
                    inflight[remote.remote(fn, job)] = job
                if not inflight:
                    return
                ready, _ = ray.wait(list(inflight), num_returns=1)
                for ref in ready:
                    inflight.pop(ref)
                    try:
                        result = ray.get(ref)
                    except ray.exceptions.RayTaskError as e:  # the job itself raised: re-raise its error
                        raise e.as_instanceof_cause() from None
                    except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                            ray.exceptions.ObjectLostError) as e:
                        raise WorkerLost(f"a Ray task failed {RAY_TASK_RETRIES + 1} times: {type(e).__name__}") from None
                    version, result = result
                    if version != __version__:
                        raise BackendError(f"backend: a Ray worker runs cuttle-search {version}, this driver {__version__}; "
                                           f"install the same version on every machine")
                    yield result
        finally:
            for ref in inflight:
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # already finished or gone
                    pass

    def close(self) -> None:
        if self._started and self._ray.is_initialized():
            self._ray.shutdown()
            self._started = False


_END = object()


def _die_with_parent() -> None:
    """In a pool worker (Linux): end when the arena's process dies, even by SIGKILL, rather
    than live on as an orphan."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the pool's own shutdown must do
        pass


def _pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, initializer=_die_with_parent)


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Shut ``pool`` down now: a compiled search in a worker does not see Ctrl-C until it
    returns (seconds, or minutes at a large budget), so its processes are terminated."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(5)


def _versioned(fn: Callable[[Any], Any], job: Any) -> tuple[str, Any]:
    """Runs on a Ray worker: the job's result, with the worker's engine version (every
    machine of a cluster must run the same engine for a seed to mean the same games)."""
    from ..version import __version__ as version

    return version, fn(job)


def _check_reachable(address: str) -> None:
    """Fail in seconds, not minutes, on a ``host:port`` where nothing listens (Ray itself
    retries for a long time). ``auto`` and ``ray://`` addresses go to Ray as they are."""
    if address == "auto" or "://" in address:
        return
    host, sep, port = address.rpartition(":")
    if not sep or not host or not 0 < (whole_number(port, 65535) or 0):
        raise BackendError(f"address: expected HOST:PORT (the head node's GCS address), or auto, got {address!r}")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except OSError as e:
        raise BackendError(f"address: no Ray cluster answers at {address}: {e.strerror or e}") from None


def make_backend(name: str, workers: int = 1, address: str | None = None) -> Backend:
    if name not in BACKENDS:
        raise BackendError(f"backend: expected one of {', '.join(BACKENDS)}, got {name!r}")
    if name == "local":
        if address is not None:
            raise BackendError("address: only the ray backend joins a cluster (add --backend ray)")
        return LocalBackend(workers)
    return RayBackend(workers, address)
