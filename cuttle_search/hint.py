"""The hint protocol: JSON lines in, JSON lines out (documented in docs/hint-protocol.md)."""

from __future__ import annotations

import json
import re
from typing import IO, Any, Mapping

from .position import PositionError, load_position
from .rules import RulesError
from .search import DEFAULT_EXPLORATION, DEFAULT_ROLLOUT, Limit, SearchError, best_move

REQUEST_KEYS = ("id", "iterations", "time", "seed", "threads", "rules", "position", "runnersUp")
_FIELD = re.compile(r"^([A-Za-z][\w.\[\]]*): ")


def _error(req_id: Any, message: str, field: str | None = None) -> dict[str, Any]:
    if field is None:
        m = _FIELD.match(message)
        field = m.group(1) if m else "position"
    return {"id": req_id, "error": message, "field": field}


def _budget(req: Mapping[str, Any], key: str, default: Any, kind: type) -> Any:
    value = req.get(key, default)
    if value is None:
        return None
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise SearchError(f"{key}: expected a {'whole number' if kind is int else 'number'}, got {value!r}")
    return value


def answer(line: str, defaults: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON answer to one request line (never raises for a bad request)."""
    try:
        req = json.loads(line)
    except json.JSONDecodeError as e:
        return _error(None, f"request: not valid JSON ({e.msg} at column {e.colno})", "request")
    if not isinstance(req, dict):
        return _error(None, "request: expected a JSON object", "request")
    req_id = req.get("id")
    try:
        if "position" in req:
            data = req["position"]
            if not isinstance(data, dict):
                return _error(req_id, "position: expected a JSON object", "position")
        else:
            data = {k: v for k, v in req.items() if k not in REQUEST_KEYS}
        iterations = _budget(req, "iterations", defaults.get("iterations"), int)
        seconds = _budget(req, "time", defaults.get("time"), float)
        seed = _budget(req, "seed", defaults.get("seed", 0), int)
        threads = _budget(req, "threads", defaults.get("threads", 1), int)
        runners_up = _budget(req, "runnersUp", defaults.get("runners_up", 2), int)
        Limit(iterations, seconds)
        pos = load_position(data, rules=req.get("rules"))
        hint = best_move(
            pos,
            iterations=iterations,
            time=seconds,
            threads=threads,
            seed=seed,
            runners_up=runners_up,
            rollout=defaults.get("rollout", DEFAULT_ROLLOUT),
            exploration=defaults.get("exploration", DEFAULT_EXPLORATION),
        )
    except (PositionError, RulesError, SearchError) as e:
        return _error(req_id, str(e))
    return {"id": req_id, **hint.to_json()}


def serve(stdin: IO[str], stdout: IO[str], defaults: Mapping[str, Any]) -> int:
    """Answer every non-empty line of ``stdin``; return the number of requests."""
    count = 0
    for line in stdin:
        if not line.strip():
            continue
        count += 1
        stdout.write(json.dumps(answer(line, defaults)) + "\n")
        stdout.flush()
    return count
