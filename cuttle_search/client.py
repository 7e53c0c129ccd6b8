"""A client for the hint server, in the spirit of python-chess's ``SimpleEngine``.

    from cuttle_search.client import HintEngine

    with HintEngine.popen() as engine:
        answer = engine.analyse("positions/midgame-main-p0.json", iterations=20_000)
        print(answer["move"], answer["score"])
        with engine.analysis(position, time=5, every=0.25) as stream:
            for partial in stream:           # partial answers while the search runs
                if partial["moveInfos"][0]["visits"] > 50_000:
                    stream.stop()            # a terminate: the final answer follows
        print(stream.final["move"])

It starts ``cuttle-search hint`` as a child process and speaks the JSON-lines protocol of
docs/hint-protocol.md: every request gets its own ``id``, one reader thread hands each answer
to the request it belongs to, so analyses and actions may be in flight at once. An error
answer is raised as :class:`HintError`, whose ``field`` names the request field at fault; a
server that dies is :class:`EngineTerminated`. Answers are the protocol's JSON objects.
"""

from __future__ import annotations

import itertools
import json
import queue
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from typing import IO, Any, Iterator, Mapping, Sequence

from .game.errors import CuttleError
from .game.inputs import parse_json, read_text_file
from .game.moves import Move
from .game.position import Position

PositionLike = Position | Mapping[str, Any] | str | Path
_DONE = object()
_DEFAULT = object()  # an argument left to its default


class HintError(CuttleError):
    """The server refused a request; ``field`` names the field at fault."""

    def __init__(self, message: str, field: str | None = None, answer: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.answer = dict(answer or {})


class HintWarning(UserWarning):
    """The server answered but ignored something the request held (a field it does not
    read: often a misspelt keyword); the answer's ``warning`` names it."""


class EngineTerminated(RuntimeError):
    """The hint server exited (or was closed) before it answered."""


def _position_json(position: PositionLike) -> dict[str, Any]:
    """A position as the request's ``position`` object."""
    if isinstance(position, Position):
        return position.to_dict()
    if isinstance(position, Mapping):
        return dict(position)
    if not isinstance(position, (str, Path)):
        raise HintError(f"position: expected a Position, a JSON object, JSON text or a file path, "
                        f"got {type(position).__name__}", "position")
    text = position if isinstance(position, str) and position.lstrip().startswith("{") else \
        read_text_file(position, HintError)
    return parse_json(text, HintError, "position")  # (a key twice refused here, as the server would)


CLIENT_FIELDS = ("id", "action", "terminateId")  # the client's own: routing answers, actions
DEFAULT_EVERY = 0.25  # seconds between partial answers, unless ``every`` or the field says otherwise


def _wire(value: Any) -> Any:
    """A request field's value as JSON takes it: a :class:`Move` as its text, a tuple as a
    list (a list's items likewise); anything else as it is (``json`` refuses what it cannot
    write, and ``_send`` names the field)."""
    if isinstance(value, Move):
        return value.text()
    if isinstance(value, (list, tuple)):
        return [_wire(v) for v in value]
    return value


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


class AnalysisStream:
    """The answers to one request as they come: partial answers while the search runs
    (iterate over them), then the final one (:attr:`final`, or :meth:`wait`). ``stop()``
    asks the server to end the search now; the final answer still comes."""

    def __init__(self, engine: "HintEngine", request_id: str, finals: int = 1) -> None:
        self._engine = engine
        self.id = request_id
        self._answers: queue.Queue = queue.Queue()
        self.final: dict[str, Any] | None = None
        self.finals: list[dict[str, Any]] = []  # one a turn of analyzeTurns (else one)
        self.expected = finals
        self.routed = 0
        self.partials = 0

    def _put(self, answer: Any) -> None:
        self._answers.put(answer)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        while self.final is None:
            answer = self._answers.get()
            if answer is _DONE:
                raise self._engine._terminated("the hint server exited before its final answer")
            if "error" in answer:
                self.final = answer
                raise HintError(answer["error"], answer.get("field"), answer)
            if answer.get("isDuringSearch"):
                self.partials += 1
                yield answer
                continue
            if "warning" in answer and not self.finals:  # (a misspelt keyword: said once, not only in the dict)
                warnings.warn(f"hint request {self.id}: {answer['warning']}", HintWarning, stacklevel=2)
            self.finals.append(answer)
            if len(self.finals) >= self.expected:
                self.final = answer

    def wait(self) -> dict[str, Any]:
        """The final answer (skipping any partial answers still to come)."""
        for _ in self:
            pass
        assert self.final is not None
        return self.final

    def stop(self) -> None:
        """End the search early (a ``terminate`` for this request)."""
        if self.final is None:
            self._engine._action({"action": "terminate", "terminateId": self.id})

    def __enter__(self) -> "AnalysisStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.final is None:
            try:
                self.stop()
                self.wait()
            except (HintError, EngineTerminated):
                pass


def _flag_value(argv: Sequence[str], flag: str) -> str | None:
    """The value ``argv`` gives ``flag`` (``--flag V`` or ``--flag=V``; the last one), or None."""
    value = None
    for i, word in enumerate(argv):
        if word == flag and i + 1 < len(argv):
            value = argv[i + 1]
        elif word.startswith(flag + "="):
            value = word[len(flag) + 1:]
    return value


class HintEngine:
    """A running ``cuttle-search hint`` process. Use :meth:`popen` and a ``with`` block (or
    call :meth:`close`)."""

    max_request_bytes = 1 << 20  # the server's --max-request-bytes: longer requests are refused here

    def __init__(self, process: subprocess.Popen) -> None:
        self.process = process
        self._last_error = ""  # the server's last line on stderr (passed on to this process's stderr)
        self._stderr_reader: threading.Thread | None = None
        if process.stderr is not None:
            self._stderr_reader = threading.Thread(target=self._pass_stderr, daemon=True, name="hint-client-stderr")
            self._stderr_reader.start()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()  # the map of waiting streams: never held during I/O
        self._write_lock = threading.Lock()  # one request line at a time on the server's input
        self._waiting: dict[str, AnalysisStream] = {}
        self._closed = False
        self._reading = True  # until the server's output ends
        self._reader = threading.Thread(target=self._read, daemon=True, name="hint-client-reader")
        self._reader.start()

    @classmethod
    def popen(cls, command: Sequence[str] | None = None, **options: Any) -> "HintEngine":
        """Start a hint server: ``command`` (default: this Python's ``cuttle-search hint``)
        with ``options`` as its flags (``workers=2`` becomes ``--workers 2``)."""
        argv = list(command) if command is not None else [sys.executable, "-m", "cuttle_search.cli", "hint"]
        for key, value in options.items():
            flag = f"--{key.replace('_', '-')}"
            if value is True:
                argv.append(flag)
            elif value is not False and value is not None:
                argv += [flag, str(value)]
        process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, bufsize=1, encoding="utf-8",
                                   errors="replace")  # a garbled line is skipped, not fatal
        engine = cls(process)
        engine.max_request_bytes = int(options.get("max_request_bytes", _flag_value(argv, "--max-request-bytes")
                                                   or engine.max_request_bytes))
        return engine

    # ------------------------------------------------------------ the wire
    def _pass_stderr(self) -> None:
        """Pass the server's stderr on to ours, keeping its last line: why it exited, if it did."""
        for line in self.process.stderr:  # type: ignore[union-attr]
            if line.strip():
                self._last_error = line.strip()
            sys.stderr.write(line)

    def _terminated(self, message: str) -> EngineTerminated:
        """``message``, with the server's exit status and last error line once it has exited."""
        try:
            status = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return EngineTerminated(message)
        if self._stderr_reader is not None:
            self._stderr_reader.join(timeout=5)
        why = f": {self._last_error}" if self._last_error and status != 0 else ""
        return EngineTerminated(f"{message} (exit status {status}{why})")

    def _read(self) -> None:
        stdout: IO[str] = self.process.stdout  # type: ignore[assignment]
        try:
            for line in stdout:
                try:
                    answer = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(answer, dict) or not isinstance(answer.get("id"), (str, type(None))):
                    continue  # not an answer to this client's requests (its ids are strings)
                with self._lock:
                    stream = self._waiting.get(answer.get("id"))  # type: ignore[arg-type]
                    if stream is not None and not answer.get("isDuringSearch"):
                        stream.routed += 1  # final answers handed over (only this thread counts)
                        if "error" in answer or stream.routed >= stream.expected:
                            self._waiting.pop(stream.id, None)
                if stream is not None:
                    stream._put(answer)
        finally:  # the server's output ended: nothing more will be answered
            with self._lock:
                self._reading = False
                streams, self._waiting = list(self._waiting.values()), {}
            for stream in streams:
                stream._put(_DONE)

    def _send(self, request: dict[str, Any], finals: int = 1) -> AnalysisStream:
        request_id = f"c{next(self._ids)}"
        stream = AnalysisStream(self, request_id, finals)
        try:
            text = json.dumps({"id": request_id, **request}) + "\n"
        except (TypeError, ValueError):  # a value JSON cannot write: named, and nothing is sent
            for key, value in request.items():
                try:
                    json.dumps(value)
                except (TypeError, ValueError) as e:
                    raise HintError(f"{key}: cannot be sent as JSON ({e})", key) from None
            raise
        if len(text.encode("utf-8")) > self.max_request_bytes:
            raise HintError(f"request: {len(text.encode('utf-8')):,} bytes, longer than the server's limit of "
                            f"{self.max_request_bytes:,}", "request")
        with self._lock:
            closed, reading, running = self._closed, self._reading, self.process.poll() is None
            if not closed and reading and running:
                self._waiting[request_id] = stream
        if closed:
            raise EngineTerminated("the hint server is closed")
        if not running:
            raise self._terminated("the hint server is not running")
        if not reading:
            raise EngineTerminated("the hint server's output has ended; it answers nothing more")
        try:
            with self._write_lock:
                self.process.stdin.write(text)  # type: ignore[union-attr]
                self.process.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError, ValueError):
            with self._lock:
                self._waiting.pop(request_id, None)
            raise self._terminated("the hint server is not running") from None
        return stream

    def _action(self, request: dict[str, Any]) -> dict[str, Any]:
        return self._send(request).wait()

    # ------------------------------------------------------------ the API
    def analysis(self, position: PositionLike, iterations: int | None = None, time: float | None = None,
                 every: Any = _DEFAULT, **fields: Any) -> AnalysisStream:
        """Start analysing ``position``; partial answers about every ``every`` seconds
        (``DEFAULT_EVERY`` unless given; None: none). ``fields`` are further request fields,
        in Python or protocol spelling (``runners_up=5``, ``seed=3``, ``allow_moves=[...]``,
        ``moves=[...]``)."""
        request: dict[str, Any] = {"position": _position_json(position)}
        given = {"position": "position"}  # each request field and the argument that gave it
        if every is _DEFAULT:  # (a default gives way to the field spelt out)
            request["reportDuringSearchEvery"] = DEFAULT_EVERY
            every = None
        for name, value, argument in (("iterations", iterations, "iterations"), ("time", time, "time"),
                                      ("reportDuringSearchEvery", every, "every")):
            if value is not None:
                request[name] = value
                given[name] = argument
        for key in fields:
            name = _camel(key)
            if name in CLIENT_FIELDS:
                raise HintError(f"{name}: set by the client itself, not a field of an analysis", name)
            if name in given:
                raise HintError(f"{name}: given twice, as {given[name]} and as {key}", name)
            given[name] = key
            request[name] = _wire(fields[key])
        turns = request.get("analyzeTurns")
        return self._send(request, len(turns) if isinstance(turns, list) and turns else 1)

    def analyse(self, position: PositionLike, iterations: int | None = None, time: float | None = None,
                **fields: Any) -> dict[str, Any] | list[dict[str, Any]]:
        """The final answer for ``position`` (see :meth:`analysis` for ``fields``); with
        ``analyze_turns``, the list of answers, one a turn."""
        stream = self.analysis(position, iterations, time, every=None, **fields)
        stream.wait()
        return stream.finals if "analyze_turns" in fields or "analyzeTurns" in fields else stream.finals[-1]

    def version(self) -> dict[str, Any]:
        """The server's ``query_version`` answer: version, protocol, rulesets, options."""
        return self._action({"action": "query_version"})

    def stop_all(self) -> int:
        """End every running or waiting search; how many were cancelled."""
        return int(self._action({"action": "terminate_all"})["cancelled"])

    def close(self, timeout: float = 30.0) -> None:
        """Stop every search, close the server's input and wait for it to exit."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            busy = bool(self._waiting)
        try:
            with self._write_lock:
                if busy and self.process.poll() is None:
                    self.process.stdin.write(json.dumps({"id": None, "action": "terminate_all"}) + "\n")  # type: ignore[union-attr]
                    self.process.stdin.flush()  # type: ignore[union-attr]
                self.process.stdin.close()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError, ValueError):
            pass
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._reader.join(timeout=timeout)

    def __enter__(self) -> "HintEngine":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


__all__ = ["HintEngine", "AnalysisStream", "HintError", "EngineTerminated"]
