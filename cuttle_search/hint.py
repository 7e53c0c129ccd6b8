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

from .game.errors import CuttleError, brief, did_you_mean
from .game.inputs import parse_json
from .analysis.limits import is_finite_number
from .game.moves import Move
from .game.position import Position
from .game.seats import whole
from .game.formats import TOP_LEVEL_KEYS, from_cuttle_cards, is_position_key, load_position
from .analysis import DEFAULT_EXPLORATION, DEFAULT_ITERATIONS, Hint, Limit, SearchError, best_move
from .analysis.analyser import MAX_RUNNERS_UP
from .analysis.ismcts import best_reply_refusal, root_restriction, threads_refusal
from .analysis.solve_first import solver_applies
from .analysis.limits import MAX_EXPLORATION

REQUEST_KEYS = ("id", "iterations", "time", "seed", "threads", "rules", "position", "runnersUp",
                "reportDuringSearchEvery", "stop", "action", "terminateId", "allowMoves", "avoidMoves",
                "moves", "analyzeTurns", "rollout", "exploration", "widen", "bestReply")
ACTIONS = ("query_version", "terminate", "terminate_all")
PROTOCOL_VERSION = 4  # 4: winrate, drawrate and seatWinrates may be null (value rollouts)
MIN_REPORT_EVERY = 0.05
MAX_HISTORY_MOVES = 1000  # the engine's action cap: no game is longer
MAX_ANALYZE_TURNS = 64  # answers to one request
_FIELD = re.compile(r"^([A-Za-z][\w.\[\]]*): ")


@dataclass(frozen=True)
class ServerLimits:
    """What one request may ask of the server (set by the ``hint`` command's flags)."""

    max_iterations: int = 10_000_000
    max_time: float = 60.0
    max_threads: int = os.cpu_count() or 1
    max_request_bytes: int = 1 << 20
    max_exploration: float = MAX_EXPLORATION


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
    return whole(value, key, low, high, SearchError)


def _seconds(req: Mapping[str, Any], key: str, default: Any, high: float) -> Any:
    value = req.get(key, default)
    if value is None:
        return None
    if not is_finite_number(value) or not 0 < value <= high:
        raise SearchError(f"{key}: expected a number of seconds above 0 and at most {high:g}, got {brief(value)}")
    return float(value)


def _id_value(value: Any, field: str, null: bool = True) -> Any:
    """``value`` when it can serve as a request id: a string, a finite number or (where
    ``null``) null."""
    if (value is None and null) or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if isinstance(value, float) and is_finite_number(value):
        return value
    raise RequestError(f"{field}: expected {'a string, a number or null' if null else 'a string or a number'}, "
                       f"got {brief(value)}")


def _request_id(req: Mapping[str, Any]) -> Any:
    """The request's ``id`` when it can be echoed as JSON: a string, a finite number, null."""
    return _id_value(req.get("id"), "id")


def salvaged_id(line: str | bytes | Mapping[str, Any] | None) -> Any:
    """The id of a line refused as a whole (a key given twice, a lone surrogate, nesting or a
    number this reader refuses, a field of the wrong kind) when it can still be read without
    doubt: the top-level object's one ``id``, a string that is text or a finite number, so
    that the client waiting for that id gets its refusal. None otherwise."""
    if isinstance(line, Mapping):
        return _safe_id(line.get("id"))
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if not isinstance(line, str):
        return None
    objects: list[list[tuple[str, Any]]] = []
    try:
        json.loads(line, object_pairs_hook=lambda pairs: objects.append(pairs) or dict(pairs))
    except (ValueError, RecursionError):
        lead = _LEADING_ID.match(line)  # too broken to read whole: an id written first
        if lead is None:
            return None
        try:
            return _safe_id(json.loads(lead.group(1)))
        except ValueError:
            return None
    if not objects or not line.lstrip().startswith("{"):
        return None
    ids = [v for k, v in objects[-1] if k == "id"]  # (the top-level object is read last)
    return _safe_id(ids[0]) if len(ids) == 1 else None


_LEADING_ID = re.compile(r'\s*\{\s*"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,30}(?:\.\d{1,30})?(?:[eE][+-]?\d{1,3})?)\s*[,}]')


def _safe_id(value: Any) -> Any:
    """``value`` as an id to echo, or None: a number that is finite, a string that is text."""
    try:
        value = _id_value(value, "id")
        if isinstance(value, str):
            value.encode("utf-8")  # (a lone surrogate cannot be written back)
        return value
    except (RequestError, UnicodeEncodeError):
        return None


def unknown_fields(req: Mapping[str, Any]) -> list[str]:
    """The request's top-level keys that neither the protocol nor (when the position is
    mixed into the request) a position form knows: most likely typos, answered with a
    ``warning``. A cuttle.cards GameState mixed into the request is not checked (it carries
    fields of its own that the analyser does not read)."""
    nested = "position" in req
    if not nested and from_cuttle_cards(req):
        return []
    return [k for k in req if k not in REQUEST_KEYS and (nested or not is_position_key(str(k)))]


def _warning(unknown: list[str], mixed: bool) -> str:
    """The warning naming ``unknown`` fields, each with the closest field of the request (or,
    with the position ``mixed`` into it, of either)."""
    names = list(REQUEST_KEYS) + (list(TOP_LEVEL_KEYS) if mixed else [])
    parts = []
    for key in unknown:
        parts.append(f"{key!r}" + did_you_mean(key, names))
    return f"unknown request field{'s' if len(parts) > 1 else ''} ignored: {', '.join(parts)}"


def _budget(req: Mapping[str, Any], defaults: Mapping[str, Any], limits: ServerLimits) -> Limit:
    """The request's own budget when it names one (``iterations`` and/or ``time``: refused
    above the server's caps), else the server's defaults, lowered to its caps."""
    if "iterations" in req or "time" in req:
        iterations = _whole(req, "iterations", None, 1, limits.max_iterations)
        seconds = _seconds(req, "time", None, limits.max_time)
    else:  # the server's own defaults, held within its caps: the request asked for nothing to refuse
        iterations = defaults.get("iterations")
        seconds = defaults.get("time")
        iterations = None if iterations is None else min(int(iterations), limits.max_iterations)
        seconds = None if seconds is None else min(float(seconds), limits.max_time)
    if iterations is None and seconds is None:
        iterations = min(DEFAULT_ITERATIONS, limits.max_iterations)
    return Limit(iterations, seconds)


def request_limit(req: Mapping[str, Any], defaults: Mapping[str, Any], limits: ServerLimits) -> Limit:
    """The search budget a request asks for (``iterations`` and/or ``time``), checked
    against the server's caps as every hint request is (raises ``SearchError`` naming the
    field); other front ends (the browser board) use it for their searches."""
    return _budget(req, defaults, limits)


def error_object(req_id: Any, error: CuttleError | str, field: str | None = None) -> dict[str, Any]:
    """The protocol's error answer ``{"id", "error", "field"}`` (the field read from the
    message's ``field: ...`` prefix when not given)."""
    return _error(req_id, str(error), field)


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


def without_nulls(req: Mapping[str, Any]) -> Mapping[str, Any]:
    """The request without its protocol fields sent as ``null``: each takes its default, as
    if absent (``id`` keeps its null, which is echoed; a position's own fields mixed into
    the request keep theirs, where null has meanings of its own)."""
    if not any(req.get(k, 0) is None for k in REQUEST_KEYS if k != "id"):
        return req
    return {k: v for k, v in req.items() if not (v is None and k in REQUEST_KEYS and k != "id")}


def _hint_json(req_id: Any, hint: Hint, extra: Mapping[str, Any]) -> dict[str, Any]:
    """One answer: the hint's keys, ``moveInfos`` (every searched move, best first, in one
    shape), and either ``stopReason`` (a final answer) or ``isDuringSearch`` (a partial one)."""
    out = {"id": req_id, **extra, **hint.to_json(),
           "moveInfos": [{"order": m.rank - 1, **m.to_json()} for m in hint.result.moves]}
    if hint.result.during_search:  # (a final answer's stopReason comes with the hint's keys)
        out["isDuringSearch"] = True
    return out


_VIEW_START = "position: with \"moves\" the position is the game's full-information start (\"view\": \"full\")"


def _turns(req: Mapping[str, Any], start: Position) -> list[tuple[int, Position, tuple[Position, list[Any]] | None]]:
    """The turns a request asks about: ``[(turn, position, history)]``. Without ``moves``,
    the position itself. With ``moves`` (the game's moves from a full-information start),
    each turn in ``analyzeTurns`` (default: the last), seen by the seat deciding there;
    ``history`` lets the search infer what that seat can from the game (two seats)."""
    if "analyzeTurns" in req and "moves" not in req:
        raise RequestError("analyzeTurns: give the game's moves too (a start position plus \"moves\")")
    if "moves" not in req:
        return [(-1, start, None)]
    moves = req["moves"]
    if not isinstance(moves, list) or len(moves) > MAX_HISTORY_MOVES:
        raise RequestError(f"moves: expected a list of at most {MAX_HISTORY_MOVES:,} moves, got {brief(moves)}")
    if start.view is not None:
        raise RequestError(_VIEW_START)
    turns = req.get("analyzeTurns")
    if turns is None:
        turns = [len(moves)]
    if not isinstance(turns, list) or not 1 <= len(turns) <= MAX_ANALYZE_TURNS:
        raise RequestError(f"analyzeTurns: expected a list of 1 to {MAX_ANALYZE_TURNS} turn numbers, got {brief(turns)}")
    for i, t in enumerate(turns):
        if not isinstance(t, int) or isinstance(t, bool) or not 0 <= t <= len(moves):
            raise RequestError(f"analyzeTurns[{i}]: expected a whole number from 0 to {len(moves)} (the moves given), got {brief(t)}")
    wanted = set(turns)
    game, positions, played = start.copy(), {}, []
    for k in range(len(moves) + 1):
        if k in wanted:
            if game.is_over:
                raise RequestError(f"analyzeTurns: the game is over after {k} moves; there is nothing to decide")
            seat = game.actor
            if seat < 0:
                raise RequestError(f"analyzeTurns: after {k} moves chance decides (a random event), not a seat")
            history = (start, list(played)) if start.rules.players == 2 else None
            positions[k] = (game.view_of(seat), history)
        if k == len(moves):  # (every move is checked, those after the last turn asked about too)
            break
        if game.is_over:
            raise RequestError(f"moves[{k}]: the game was already over")
        item = moves[k]
        try:
            if isinstance(item, dict):
                item = Move.from_json(item)
            elif not isinstance(item, str):
                raise RequestError(f"expected a move in text or as a JSON body, got {brief(item)}")
            played.append(game.play(item))
        except CuttleError as e:
            raise RequestError(f"moves[{k}]: {e}") from None
    return [(t, *positions[t]) for t in turns]


def answers(line: str | bytes | Mapping[str, Any], defaults: Mapping[str, Any], limits: ServerLimits = ServerLimits(),
            emit: Callable[[dict[str, Any]], None] | None = None,
            cancel: threading.Event | None = None) -> list[dict[str, Any]]:
    """The final JSON answers to one hint request (never raises): one, or one per turn of
    ``analyzeTurns``. Partial answers, when the request asks for them, go to ``emit``
    first; ``cancel`` ends the search early. An error is the one answer."""
    req_id = None
    unknown: list[str] = []
    req: Mapping[str, Any] = {}
    try:
        req = line if isinstance(line, Mapping) else parse_request(line)
        req_id = _request_id(req)
        req = without_nulls(req)
        if "action" in req:
            raise RequestError("action: actions are answered by the server loop, not as hint requests")
        if "position" in req:
            data = req["position"]
            if not isinstance(data, dict):
                raise RequestError(f"position: expected a JSON object, got {type(data).__name__}")
        unknown = unknown_fields(req)
        if "position" not in req:  # mixed into the request: the warned-about fields are left out
            data = {k: v for k, v in req.items() if k not in REQUEST_KEYS and k not in unknown}
            if not data:
                raise RequestError("position: missing; give it as \"position\" or its fields in the request itself")
        limit = _budget(req, defaults, limits)
        seed = _whole(req, "seed", defaults.get("seed") or 0, 0, 2**63 - 1)
        threads = _whole(req, "threads", defaults.get("threads") or 1, 1, limits.max_threads)
        runners_up = _whole(req, "runnersUp", defaults.get("runners_up", 2), 0, MAX_RUNNERS_UP)
        if runners_up is None:
            runners_up = 2
        rules = req.get("rules")
        if rules is not None and (not isinstance(rules, str) or not rules.strip()):
            raise RequestError(f"rules: expected a ruleset name like 'cuttle-cards', got {brief(rules)}")
        every = _seconds(req, "reportDuringSearchEvery", None, limits.max_time)
        if every is not None and every < MIN_REPORT_EVERY:
            raise SearchError(f"reportDuringSearchEvery: expected at least {MIN_REPORT_EVERY} seconds, got {brief(every)}")
        rollout = req.get("rollout")
        if rollout is None:  # the server's, else the game's (analysis.limits.default_rollout)
            rollout = defaults.get("rollout")
        exploration = req.get("exploration")
        if exploration is None:
            exploration = defaults.get("exploration", DEFAULT_EXPLORATION)
        elif is_finite_number(exploration) and not 0 <= exploration <= limits.max_exploration:
            raise SearchError(f"exploration: expected a finite number from 0 to {limits.max_exploration:,g}, "
                              f"got {brief(exploration)}")
        # None: the game's (analysis.limits.default_widen); the search checks any other value
        widen = req.get("widen")
        best_reply = req.get("bestReply")
        if best_reply is None:
            best_reply = False
        elif not isinstance(best_reply, bool):
            raise RequestError(f"bestReply: expected true or false, got {brief(best_reply)}")
        if "moves" in req and data.get("view") not in (None, "full"):  # (before the view is read: a start holds every card)
            raise RequestError(_VIEW_START)
        turns = _turns(req, load_position(data, rules=rules))
        refusal = best_reply_refusal(turns[0][1]) if best_reply else None  # every turn is of the one game
        if refusal is not None:
            raise RequestError(f"bestReply: {refusal}")
        if len(turns) > 1:  # every turn's root moves checked before any search, naming the turn
            for turn, pos, _ in turns:
                try:
                    roots = root_restriction(pos, req.get("allowMoves"), req.get("avoidMoves"))
                except SearchError as e:
                    raise SearchError(f"{e} (at turn {turn})") from None
                # (where nothing is hidden the solver answers first, and the search checks
                # the threads only if it does not prove the turn: below, naming the turn too)
                refusal = None if solver_applies(pos) else threads_refusal(pos, limit, threads, roots)
                if refusal is not None:
                    raise SearchError(f"{refusal} (at turn {turn})")
        extra: dict[str, Any] = {"warning": _warning(unknown, "position" not in req)} if unknown else {}
        out = []
        for turn, pos, history in turns:
            here = {**extra, **({"turnNumber": turn} if turn >= 0 else {})}

            def report(_done: int, snap: Any, here: dict[str, Any] = here) -> None:
                partial = snap.partial()
                emit(_hint_json(req_id, Hint(partial.moves[0], partial.moves[1 : 1 + runners_up], partial), here))

            try:
                hint = best_move(
                    pos,
                    iterations=limit.iterations,
                    time=limit.time,
                    threads=threads,
                    seed=seed,
                    runners_up=runners_up,
                    rollout=rollout,
                    exploration=exploration,
                    widen=widen,
                    best_reply=best_reply,
                    stop=req.get("stop"),
                    cancel=cancel,
                    allow_moves=req.get("allowMoves"),
                    avoid_moves=req.get("avoidMoves"),
                    progress=report if every is not None and emit is not None else None,
                    every=every or 0.1,
                    history=history,
                )
            except SearchError as e:  # (of one turn of several: which)
                if len(turns) > 1:
                    raise SearchError(f"{e} (at turn {turn})") from None
                raise
            out.append(_hint_json(req_id, hint, here))
        return out
    except CuttleError as e:
        field = "request" if str(e).startswith("request:") else None
        refusal = _error(req_id if req_id is not None else salvaged_id(line), str(e), field)
        if unknown:  # (the cause may be a field the warning names: a misspelt one left out)
            refusal["warning"] = _warning(unknown, "position" not in req)
        return [refusal]
    except Exception as e:  # a defect, not the client's fault: say so, log it, keep serving
        print(f"hint: internal error on request id {brief(req_id)}:", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        return [_error(req_id, f"internal: {type(e).__name__} (the server logged it and goes on)", "internal")]


def answer(line: str | bytes | Mapping[str, Any], defaults: Mapping[str, Any], limits: ServerLimits = ServerLimits(),
           emit: Callable[[dict[str, Any]], None] | None = None, cancel: threading.Event | None = None) -> dict[str, Any]:
    """The final JSON answer to one hint request (never raises): the last of ``answers``."""
    return answers(line, defaults, limits, emit, cancel)[-1]


def request_lines(stream: IO[Any], max_bytes: int) -> Iterator[str | bytes | None]:
    """The request lines of ``stream`` (text or binary), each cut off at ``max_bytes``:
    a longer line is read to its end and given as ``None``, so memory stays bounded. Blank
    lines are skipped here (they are no request), and a UTF-8 byte order mark before the
    first line is dropped (an editor's, not part of the request: its id is read)."""
    first = True
    while True:
        chunk = stream.readline(max_bytes + 1)
        if not chunk:
            return
        newline = "\n" if isinstance(chunk, str) else b"\n"
        if len(chunk) > max_bytes and not chunk.endswith(newline):
            # (a long line is told before the mark is dropped and blanks are skipped: neither
            # may cut it short and let its rest through as a line of its own)
            while chunk and not chunk.endswith(newline):  # skip the rest of the long line
                chunk = stream.readline(max_bytes + 1)
            first = False
            yield None
            continue
        if first:
            first = False
            mark = "\ufeff" if isinstance(chunk, str) else b"\xef\xbb\xbf"
            if chunk.startswith(mark):  # (str with str, bytes with bytes)
                chunk = chunk[len(mark):]
        if not chunk.strip():  # (a blank run past the limit is a long line, above)
            continue
        yield chunk


def _dumps(reply: dict[str, Any]) -> str:
    try:
        return json.dumps(reply, allow_nan=False)
    except ValueError:  # a non-finite figure would not be JSON: a defect, reported as one
        print(f"hint: answer to request id {brief(reply.get('id'))} held a non-finite number", file=sys.stderr)
        return json.dumps(_error(reply.get("id"), "internal: the answer held a non-finite number", "internal"))


MAX_WAITING = 1000  # requests read ahead of the searches, at most
WAITING_LINES = 16  # ... and at most this many longest-possible lines' worth of bytes


class Server:
    """The request loop. Searches run on ``workers`` threads: with one, answers come in the
    order of the requests; with more, up to ``workers`` at once, and answers carry their
    ``id`` and may come out of order. The reading loop answers actions as soon as it reads
    them, whatever is running or waiting: ``query_version``, ``terminate`` (cancels the
    requests with ``terminateId``) and ``terminate_all``; only behind a full queue (below)
    does an action wait. Requests wait as the lines they came in (each
    parsed again when its turn comes, so a waiting request costs its bytes, not a parsed
    tree); the reader stops reading only when ``MAX_WAITING`` requests or
    ``WAITING_LINES`` times the longest request's bytes wait, so memory stays bounded."""

    def __init__(self, stdout: IO[str], defaults: Mapping[str, Any], limits: ServerLimits, workers: int = 1) -> None:
        self.stdout = stdout
        self.defaults = defaults
        self.limits = limits
        self.workers = workers
        self.lock = threading.Lock()
        self.active: dict[int, tuple[Any, threading.Event]] = {}  # ticket -> (id, cancel)
        self.ticket = 0
        self.pool = ThreadPoolExecutor(max_workers=workers)
        self.waiting_bytes = 0
        self.room = threading.Condition(self.lock)
        self.gone: Exception | None = None  # why the answers can no longer be written, once so
        self.defect: Exception | None = None  # a search thread's unexpected exception, which stopped the server

    def write(self, reply: dict[str, Any]) -> None:
        """One answer line. When the output has gone away (a closed pipe, a full disk) nothing
        more can be answered: every search is cancelled, the rest is dropped, and ``serve``
        stops reading (``gone`` says why)."""
        text = _dumps(reply)
        with self.lock:
            if self.gone is not None:
                return
            try:
                self.stdout.write(text + "\n")
                self.stdout.flush()
            except (OSError, ValueError, AttributeError) as e:  # (a closed file: ValueError; none: AttributeError)
                self.gone = e
                cancels = [ev for _rid, ev in self.active.values()]
            else:
                return
        for ev in cancels:
            ev.set()

    def _matching(self, match: Callable[[Any], bool]) -> list[threading.Event]:
        with self.lock:
            return [ev for rid, ev in self.active.values() if match(rid)]

    def _action(self, req: Mapping[str, Any], req_id: Any) -> tuple[dict[str, Any], list[threading.Event]]:
        """An action's answer and the searches it cancels (cancelled once the answer is out,
        so the answer comes before theirs), with a ``warning`` naming fields it does not read."""
        answer, hits = self._act(req, req_id)
        reads = ("id", "action") + (("terminateId",) if req.get("action") == "terminate" else ())
        extra = [repr(k) for k in req if k not in reads and req[k] is not None]  # (null is no field)
        if extra:
            answer["warning"] = (f"field{'s' if len(extra) > 1 else ''} the {req['action']} action does not read, "
                                 f"ignored: {', '.join(extra)}")
        return answer, hits

    def _act(self, req: Mapping[str, Any], req_id: Any) -> tuple[dict[str, Any], list[threading.Event]]:
        action = req.get("action")
        if action == "query_version":
            from .version import __version__
            from .game.rules import OPTION_NAMES, RULESETS

            return {"id": req_id, "action": action, "version": __version__, "protocol": PROTOCOL_VERSION,
                    "rules": list(RULESETS), "options": list(OPTION_NAMES), "actions": list(ACTIONS)}, []
        if action == "terminate":
            if "terminateId" not in req:
                raise RequestError("terminateId: the id of the request to cancel is required")
            if req["terminateId"] is None:  # (no request can be cancelled by a null id: refused, as documented)
                raise RequestError("terminateId: expected the id of the request to cancel, a string or a number, got null")
            target = _id_value(req["terminateId"], "terminateId", null=False)
            hits = self._matching(lambda rid: rid == target and rid is not None)
            return {"id": req_id, "action": action, "terminateId": target, "cancelled": len(hits)}, hits
        if action == "terminate_all":
            hits = self._matching(lambda rid: True)
            return {"id": req_id, "action": action, "cancelled": len(hits)}, hits
        raise RequestError(f"action: expected one of {', '.join(repr(a) for a in ACTIONS)}, got {brief(action)}")

    def _run(self, ticket: int, line: str | bytes | None, cancel: threading.Event, refusal: dict[str, Any] | None,
             size: int) -> None:
        try:
            if refusal is not None:
                self.write(refusal)
            else:
                for reply in answers(line, self.defaults, self.limits, emit=self.write, cancel=cancel):
                    self.write(reply)
        except Exception as e:  # (the pool's future would keep it unseen: the server stops and says so)
            self.fail(e)
        finally:
            with self.lock:
                self.active.pop(ticket, None)
                self.waiting_bytes -= size
                self.room.notify_all()

    def fail(self, defect: Exception) -> None:
        """Stop serving after a defect of the server's own in a search thread (a request's
        own are answered by ``answers``): what it writes can no longer be trusted, so it
        stops as when the output goes (searches cancelled, no more input read), and
        ``serve`` raises ``defect`` (one line and status 1 from the command line)."""
        with self.lock:
            if self.gone is not None:
                return
            self.gone = self.defect = defect
            cancels = [ev for _rid, ev in self.active.values()]
        for ev in cancels:
            ev.set()

    def _full(self, size: int) -> bool:
        return bool(self.active) and (len(self.active) >= MAX_WAITING + self.workers or
                                      self.waiting_bytes + size > WAITING_LINES * self.limits.max_request_bytes)

    def handle(self, line: str | bytes | None) -> None:
        """Answer an action now; queue anything else (a refusal too, so that with one
        worker every answer keeps the order of the requests)."""
        req_id, refusal = None, None
        if line is None:
            refusal = _error(None, f"request: longer than the server's limit of {self.limits.max_request_bytes:,} bytes",
                             "request")
        else:
            try:
                req = parse_request(line)
                req_id = _request_id(req)
                if req.get("action") is not None:  # (null, as any field sent as null: absent)
                    try:
                        reply, cancels = self._action(req, req_id)
                    except CuttleError as e:
                        reply, cancels = _error(req_id, str(e)), []
                    self.write(reply)
                    for ev in cancels:
                        ev.set()
                    return
            except CuttleError as e:
                refusal = _error(req_id if req_id is not None else salvaged_id(line), str(e),
                                 "request" if str(e).startswith("request:") else None)
        size = len(line) if line is not None and refusal is None else 0
        cancel = threading.Event()
        with self.lock:
            while self._full(size):  # wait while too much waits
                self.room.wait()
            self.ticket += 1
            ticket = self.ticket
            self.active[ticket] = (req_id if refusal is None else None, cancel)
            self.waiting_bytes += size
            if self.gone is not None:  # (the output went while this line was read: nothing will be written)
                cancel.set()
        self.pool.submit(self._run, ticket, None if refusal is not None else line, cancel, refusal, size)

    def cancel_all(self) -> None:
        for ev in self._matching(lambda rid: True):
            ev.set()

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
        for line in _lines_until_gone(stdin, limits.max_request_bytes, server):
            if line is not None and not line.strip():
                continue
            count += 1
            server.handle(line)
    except BaseException:  # interrupted: cancel what runs, so the server stops at once
        server.cancel_all()
        raise
    finally:
        server.close()
    if server.defect is not None:  # (a search thread's: raised here, where it is reported)
        raise server.defect
    if server.gone is not None:
        raise OutputGone(server.gone)
    return count


_END = object()  # (the end of the input, from the reading thread)


def _lines_until_gone(stdin: IO[Any], max_bytes: int, server: Server) -> Iterator[str | bytes | None]:
    """``request_lines``, read on a thread of its own, ending as soon as ``server``'s output
    has gone: the read of a line that never comes (a front end that closed its end of our
    output but not of our input) does not keep the server waiting. Two lines are read ahead
    at most (one waiting here, one in the reading thread's hand), so a full server still
    holds its input back."""
    import queue

    lines: queue.Queue = queue.Queue(maxsize=1)
    if stdin is sys.stdin or stdin is getattr(sys.stdin, "buffer", None):
        # sys.stdin's reader holds a lock while its read waits, and the interpreter takes that
        # lock as it exits (a fatal error while our thread waits): read its descriptor apart
        try:
            stdin = open(os.dup(stdin.fileno()), "rb")  # noqa: SIM115  (the reading thread's own, to the end)
        except (OSError, ValueError, AttributeError):
            pass

    def read() -> None:
        try:
            for line in request_lines(stdin, max_bytes):
                lines.put(line)
        except BaseException as e:  # handed to the serving thread
            lines.put(e)
        lines.put(_END)

    threading.Thread(target=read, name="cuttle-hint-input", daemon=True).start()
    while server.gone is None:
        try:
            item = lines.get(timeout=0.25)
        except queue.Empty:
            continue
        if item is _END:
            return
        if isinstance(item, BaseException):
            raise item
        if server.gone is None:
            yield item


class OutputGone(Exception):
    """The answers' output went away (``serve``): a closed pipe, a full disk."""
