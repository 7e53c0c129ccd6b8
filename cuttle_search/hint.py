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
import traceback
from dataclasses import dataclass
from typing import IO, Any, Iterator, Mapping

from .errors import CuttleError, brief
from .inputs import parse_json
from .limits import is_finite_number
from .position import load_position
from .search import DEFAULT_EXPLORATION, DEFAULT_ITERATIONS, DEFAULT_ROLLOUT, Limit, SearchError, best_move

REQUEST_KEYS = ("id", "iterations", "time", "seed", "threads", "rules", "position", "runnersUp")
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


def answer(line: str | bytes, defaults: Mapping[str, Any], limits: ServerLimits = ServerLimits()) -> dict[str, Any]:
    """The JSON answer to one request line (never raises)."""
    req_id = None
    try:
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as e:
                raise RequestError(f"request: not UTF-8 text (byte {e.start})") from None
        req = parse_json(line, RequestError, "request")
        if not isinstance(req, dict):
            raise RequestError("request: expected a JSON object")
        req_id = _request_id(req)
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
        pos = load_position(data, rules=rules)
        hint = best_move(
            pos,
            iterations=limit.iterations,
            time=limit.time,
            threads=threads,
            seed=seed,
            runners_up=runners_up,
            rollout=defaults.get("rollout", DEFAULT_ROLLOUT),
            exploration=defaults.get("exploration", DEFAULT_EXPLORATION),
        )
    except CuttleError as e:
        field = "request" if str(e).startswith("request:") else None
        return _error(req_id, str(e), field)
    except Exception as e:  # a defect, not the client's fault: say so, log it, keep serving
        print(f"hint: internal error on request id {brief(req_id)}:", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        return _error(req_id, f"internal: {type(e).__name__} (the server logged it and goes on)", "internal")
    return {"id": req_id, **hint.to_json()}


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


def serve(stdin: IO[Any], stdout: IO[str], defaults: Mapping[str, Any], limits: ServerLimits = ServerLimits()) -> int:
    """Answer every non-empty line of ``stdin`` in order; return the number of requests.
    ``stdin`` may be binary (bytes that are not UTF-8 are then refused per line)."""
    count = 0
    for line in request_lines(stdin, limits.max_request_bytes):
        if line is None:
            reply = _error(None, f"request: longer than the server's limit of {limits.max_request_bytes:,} bytes", "request")
        elif not line.strip():
            continue
        else:
            reply = answer(line, defaults, limits)
        count += 1
        try:
            text = json.dumps(reply, allow_nan=False)
        except ValueError:  # a non-finite figure would not be JSON: a defect, reported as one
            print(f"hint: answer to request id {brief(reply.get('id'))} held a non-finite number", file=sys.stderr)
            text = json.dumps(_error(reply.get("id"), "internal: the answer held a non-finite number", "internal"))
        stdout.write(text + "\n")
        stdout.flush()
    return count
