"""The hint protocol: JSON lines in, JSON lines out (documented in docs/hint-protocol.md).

Every request is untrusted. A bad one is answered with ``{"id", "error", "field"}``; the
server's own limits (:class:`ServerLimits`) cap what a request may ask for; anything
unexpected is answered as an ``internal`` error, logged to stderr, and the server goes on.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import IO, Any, Callable, Iterator, Mapping

from .game.errors import CuttleError, brief
from .game.inputs import parse_json
from .analysis.limits import is_finite_number
from .game.position_file import load_position
from .analysis import DEFAULT_EXPLORATION, DEFAULT_ITERATIONS, DEFAULT_ROLLOUT, Hint, Limit, SearchError, best_move

REQUEST_KEYS = ("id", "iterations", "time", "seed", "threads", "rules", "position", "runnersUp",
                "reportDuringSearchEvery", "stop", "action", "terminateId", "allowMoves", "avoidMoves")
PROTOCOL_VERSION = 2
MIN_REPORT_EVERY = 0.05
MAX_RUNNERS_UP = 64
_FIELD = re.compile(r"^([A-Za-z][\w.\[\]]*): ")


@dataclass(frozen=True)
class ServerLimits:
    """What one request may ask of the server (set by the ``hint`` command's flags)."""

    max_iterations: int = 10_000_000
    max_time: float = 60.0
    max_threads: int = os.cpu_count() or 1
    max_request_bytes: int = 1 << 20


class RequestError(CuttleError):
    """A request that is not a well-formed hint request."""


def _error(req_id: Any, message: str, field: str | None = None) -> dict[str, Any]:
    if field is None:
        m = _FIELD.match(message)
        field = m.group(1) if m else "position"
    return {"id": req_id, "error": message, "field": field}


def _whole(req: Mapping[str, Any], key: str, default: Any, low: int, high: int) -> Any:
    value = req.get(key)
    if value is None:  # absent or null: the default
        value = default
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise SearchError(f"{key}: expected a whole number from {low:,} to {high:,}, got {brief(value)}")
    return value


def _seconds(req: Mapping[str, Any], key: str, default: Any, high: float) -> Any:
    value = req.get(key, default)
    if value is None:
        return None
    if not is_finite_number(value) or not 0 < value <= high:
        raise SearchError(f"{key}: expected a number of seconds above 0 and at most {high:g}, got {brief(value)}")
    return float(value)


def _request_id(req: Mapping[str, Any]) -> Any:
    """The request's ``id`` when it can be echoed as JSON: a string, a finite number, null."""
    rid = req.get("id")
    if rid is None or isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)):
        return rid
    if isinstance(rid, float) and is_finite_number(rid):
        return rid
    raise RequestError(f"id: expected a string, a number or null, got {brief(rid)}")


def _budget(req: Mapping[str, Any], defaults: Mapping[str, Any], limits: ServerLimits) -> Limit:
    """The request's own budget when it names one (``iterations`` and/or ``time``), else the
    server's defaults; either way within the server's caps."""
    source = req if ("iterations" in req or "time" in req) else defaults
    iterations = _whole(source, "iterations", None, 1, limits.max_iterations)
    seconds = _seconds(source, "time", None, limits.max_time)
    if iterations is None and seconds is None:
        iterations = min(DEFAULT_ITERATIONS, limits.max_iterations)
    return Limit(iterations, seconds)


def parse_request(line: str | bytes) -> dict[str, Any]:
    """A request line as a JSON object (raises RequestError)."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as e:
            raise RequestError(f"request: not UTF-8 text (byte {e.start})") from None
    req = parse_json(line, RequestError, "request")
    if not isinstance(req, dict):
        raise RequestError("request: expected a JSON object")
    return req


def _hint_json(req_id: Any, hint: Hint) -> dict[str, Any]:
    out = {"id": req_id, **hint.to_json(), "stopReason": hint.result.stop_reason}
    if hint.result.during_search:
        out["isDuringSearch"] = True
    return out


def answer(line: str | bytes | Mapping[str, Any], defaults: Mapping[str, Any], limits: ServerLimits = ServerLimits(),
           emit: Callable[[dict[str, Any]], None] | None = None, cancel: threading.Event | None = None) -> dict[str, Any]:
    """The final JSON answer to one hint request (never raises). Partial answers, when the
    request asks for them, go to ``emit`` first; ``cancel`` ends the search early."""
    req_id = None
    try:
        req = line if isinstance(line, Mapping) else parse_request(line)
        req_id = _request_id(req)
        if "action" in req:
            raise RequestError("action: actions are answered by the server loop, not as hint requests")
        if "position" in req:
            data = req["position"]
            if not isinstance(data, dict):
                raise RequestError(f"position: expected a JSON object, got {type(data).__name__}")
        else:
            data = {k: v for k, v in req.items() if k not in REQUEST_KEYS}
        limit = _budget(req, defaults, limits)
        seed = _whole(req, "seed", defaults.get("seed") or 0, 0, 2**63 - 1)
        threads = _whole(req, "threads", defaults.get("threads") or 1, 1, limits.max_threads)
        runners_up = _whole(req, "runnersUp", defaults.get("runners_up", 2), 0, MAX_RUNNERS_UP)
        if runners_up is None:
            runners_up = 2
        rules = req.get("rules")
        if rules is not None and not isinstance(rules, str):
            raise RequestError(f"rules: expected a ruleset name like 'cuttle-cards', got {brief(rules)}")
        every = _seconds(req, "reportDuringSearchEvery", None, limits.max_time)
        if every is not None and every < MIN_REPORT_EVERY:
            raise SearchError(f"reportDuringSearchEvery: expected at least {MIN_REPORT_EVERY} seconds, got {brief(every)}")
        pos = load_position(data, rules=rules)
        def report(_done: int, snap: Any) -> None:
            partial = snap.partial()
            emit(_hint_json(req_id, Hint(partial.moves[0], partial.moves[1 : 1 + runners_up], partial)))

        hint = best_move(
            pos,
            iterations=limit.iterations,
            time=limit.time,
            threads=threads,
            seed=seed,
            runners_up=runners_up,
            rollout=defaults.get("rollout", DEFAULT_ROLLOUT),
            exploration=defaults.get("exploration", DEFAULT_EXPLORATION),
            stop=req.get("stop"),
            cancel=cancel,
            allow_moves=req.get("allowMoves"),
            avoid_moves=req.get("avoidMoves"),
            progress=report if every is not None and emit is not None else None,
            every=every or 0.1,
        )
    except CuttleError as e:
        field = "request" if str(e).startswith("request:") else None
        return _error(req_id, str(e), field)
    except Exception as e:  # a defect, not the client's fault: say so, log it, keep serving
        print(f"hint: internal error on request id {brief(req_id)}:", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        return _error(req_id, f"internal: {type(e).__name__} (the server logged it and goes on)", "internal")
    return _hint_json(req_id, hint)


def request_lines(stream: IO[Any], max_bytes: int) -> Iterator[str | bytes | None]:
    """The request lines of ``stream`` (text or binary), each cut off at ``max_bytes``:
    a longer line is read to its end and given as ``None``, so memory stays bounded."""
    while True:
        chunk = stream.readline(max_bytes + 1)
        if not chunk:
            return
        newline = "\n" if isinstance(chunk, str) else b"\n"
        if len(chunk) > max_bytes and not chunk.endswith(newline):
            while chunk and not chunk.endswith(newline):  # skip the rest of the long line
                chunk = stream.readline(max_bytes + 1)
            yield None
            continue
        yield chunk


def _dumps(reply: dict[str, Any]) -> str:
    try:
        return json.dumps(reply, allow_nan=False)
    except ValueError:  # a non-finite figure would not be JSON: a defect, reported as one
        print(f"hint: answer to request id {brief(reply.get('id'))} held a non-finite number", file=sys.stderr)
        return json.dumps(_error(reply.get("id"), "internal: the answer held a non-finite number", "internal"))


QUEUE_PER_WORKER = 4  # requests read ahead of the searches, per worker: memory stays bounded


class Server:
    """The request loop. Searches run on ``workers`` threads: with one, answers come in the
    order of the requests; with more, up to ``workers`` at once, and answers carry their
    ``id`` and may come out of order. The reading loop answers actions at once, even while
    a search runs: ``query_version``, and ``terminate`` (cancels the requests with
    ``terminateId``). At most ``QUEUE_PER_WORKER`` requests a worker wait to be searched;
    past that the reader waits, so a client streaming requests cannot fill the memory."""

    def __init__(self, stdout: IO[str], defaults: Mapping[str, Any], limits: ServerLimits, workers: int = 1) -> None:
        self.stdout = stdout
        self.defaults = defaults
        self.limits = limits
        self.workers = workers
        self.lock = threading.Lock()
        self.active: dict[int, tuple[Any, threading.Event]] = {}  # ticket -> (id, cancel)
        self.ticket = 0
        self.pool = ThreadPoolExecutor(max_workers=workers)
        self.room = threading.BoundedSemaphore(workers * (1 + QUEUE_PER_WORKER))

    def write(self, reply: dict[str, Any]) -> None:
        text = _dumps(reply)
        with self.lock:
            self.stdout.write(text + "\n")
            self.stdout.flush()

    def _action(self, req: Mapping[str, Any]) -> dict[str, Any]:
        req_id = _request_id(req)
        action = req.get("action")
        if action == "query_version":
            from . import __version__
            from .game.rules import OPTION_NAMES, PRESETS

            return {"id": req_id, "action": action, "version": __version__, "protocol": PROTOCOL_VERSION,
                    "rules": list(PRESETS), "options": list(OPTION_NAMES)}
        if action == "terminate":
            if "terminateId" not in req:
                raise RequestError("terminateId: the id of the request to cancel is required")
            target = req["terminateId"]
            with self.lock:
                hits = [ev for rid, ev in self.active.values() if rid == target and rid is not None]
            for ev in hits:
                ev.set()
            return {"id": req_id, "action": action, "terminateId": target, "cancelled": len(hits)}
        raise RequestError(f"action: expected 'query_version' or 'terminate', got {brief(action)}")

    def _run(self, ticket: int, req: Mapping[str, Any] | None, cancel: threading.Event,
             refusal: dict[str, Any] | None) -> None:
        try:
            self.write(refusal if refusal is not None else
                       answer(req, self.defaults, self.limits, emit=self.write, cancel=cancel))
        finally:
            with self.lock:
                self.active.pop(ticket, None)
            self.room.release()

    def handle(self, line: str | bytes | None) -> None:
        """Answer an action now; queue anything else (a refusal too, so that with one
        worker every answer keeps the order of the requests)."""
        req, req_id, refusal = None, None, None
        if line is None:
            refusal = _error(None, f"request: longer than the server's limit of {self.limits.max_request_bytes:,} bytes",
                             "request")
        else:
            try:
                req = parse_request(line)
                if "action" in req:
                    self.write(self._action(req))
                    return
                req_id = _request_id(req)
            except CuttleError as e:
                refusal = _error(None, str(e), "request" if str(e).startswith("request:") else None)
        cancel = threading.Event()
        self.room.acquire()  # wait while the queue is full
        with self.lock:
            self.ticket += 1
            ticket = self.ticket
            if refusal is None:
                self.active[ticket] = (req_id, cancel)
        self.pool.submit(self._run, ticket, req, cancel, refusal)

    def cancel_all(self) -> None:
        with self.lock:
            for _rid, cancel in self.active.values():
                cancel.set()

    def close(self) -> None:
        """Wait for every request read so far to be answered."""
        self.pool.shutdown(wait=True)


def serve(stdin: IO[Any], stdout: IO[str], defaults: Mapping[str, Any], limits: ServerLimits = ServerLimits(),
          workers: int = 1) -> int:
    """Answer every non-empty line of ``stdin``; return the number of requests. With one
    worker the answers come in order; ``stdin`` may be binary (bytes that are not UTF-8
    are then refused per line)."""
    server = Server(stdout, defaults, limits, workers)
    count = 0
    try:
        for line in request_lines(stdin, limits.max_request_bytes):
            if line is not None and not line.strip():
                continue
            count += 1
            server.handle(line)
    except BaseException:  # interrupted: cancel what runs, so the server stops at once
        server.cancel_all()
        raise
    finally:
        server.close()
    return count
