"""The Starlette application of ``cuttle-search serve``: the page and its websocket.

``GET /`` is the page (``static/index.html``, with ``app.js`` and ``style.css``: no
external assets). ``GET /api/meta`` names the rulesets, agents and caps. Everything else
goes over one websocket, ``/ws``: JSON messages with a ``type`` (docs/web.md lists them).
A client has at most one job at a time (a search, a solve, a review, an agent's reply):
a new request stops the running one first, and closing the socket stops it. Searches run
on worker threads (the kernels release the GIL) and stream partial answers to the page.

Every message is untrusted: it is capped at ``ServerLimits.max_request_bytes``, budgets are
checked with the hint protocol's checks (``hint.request_limit``), positions and games go
through the same loaders as files, and a bad one is answered with one JSON error object
``{"type": "error", "error", "field"}``. Nothing is written to disk: uploads arrive as text
over the socket and stay in memory.
"""

from __future__ import annotations

import asyncio
import errno
import json
import re
import socket
import sys
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from .. import __version__
from ..game.errors import CuttleError, brief
from ..game.inputs import parse_json
from ..game.formats.fields import check_keys
from ..game.rules import RulesError, game_choices, get_ruleset
from ..hint import MIN_REPORT_EVERY, MAX_RUNNERS_UP, RequestError, ServerLimits, answers, error_object, request_limit
from . import views

STATIC = {"index.html": "text/html; charset=utf-8", "app.js": "text/javascript; charset=utf-8",
          "style.css": "text/css; charset=utf-8"}
REPORT_EVERY = MIN_REPORT_EVERY  # seconds between partial answers of a search (the first comes as soon)
DEFAULT_HINT_ITERATIONS = 10_000
DEFAULT_REVIEW_ITERATIONS = 300  # a decision (a review searches every decision, luck too)
LOOPBACK_NAMES = ("127.0.0.1", "localhost")
MAX_CLIENTS = 32  # pages connected at once (each may run one job)
MAX_OUTBOX = 64  # answers waiting for a page before the server reads no more of its messages
# The socket's frame limit over the request limit: a frame a little over the limit gets the
# request's error object, not a closed socket (a file's text grows when JSON escapes it)
FRAME_ALLOWANCE = 6
MAX_REVIEW_DECISIONS = 400  # a game has at most this many reviewed decisions here
DEFAULT_SOLVE_SECONDS = 10.0
_FIELD_RE = re.compile(r"^([A-Za-z][\w.\[\]]*): ")
MESSAGE_TYPES = ("new", "resume", "play", "undo", "hint", "stop", "log", "load", "analyse", "solve", "review", "ping")
# the fields each message reads besides "type" and "id" (docs/web.md): any other is refused
MESSAGE_FIELDS: dict[str, tuple[str, ...]] = {
    "new": ("rules", "seat", "opponents", "seed"), "resume": ("game", "seed"), "play": ("move",), "hint": ("iterations", "time"),
    "load": ("position",), "analyse": ("position", "iterations", "time"), "solve": ("position", "time"),
    "review": ("game", "iterations", "time"),
}


_PARTIAL = "_partial"  # an outbox entry standing for the newest partial answer of a request


class Cancelled(Exception):
    """A job stopped because the client asked for something else or went away."""


def _echoable_id(value: Any) -> Any:
    """A request's ``id`` when it is short enough to echo in every answer (a string of up to
    200 characters, a whole number of 64 bits), else None."""
    if isinstance(value, str) and len(value) <= 200:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63:
        return value
    return None


def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def _text_field(msg: Mapping[str, Any], key: str, default: str | None = None) -> str:
    value = msg.get(key, default)
    if not isinstance(value, str) or not value.strip() or len(value) > 1000:
        raise RequestError(f"{key}: expected a non-empty string, got {brief(value)}")
    return value


def _seed_field(msg: Mapping[str, Any]) -> int:
    """The message's ``seed`` (digits as typed, or a number), or a new one when it has none."""
    seed = msg.get("seed")
    if seed is None:
        import secrets

        return secrets.randbelow(1 << 31)
    if isinstance(seed, str) and seed.isascii() and seed.isdigit() and len(seed) <= 19:
        seed = int(seed)  # the page sends the digits typed: a JavaScript number rounds above 2^53
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise RequestError(f"seed: expected a whole number from 0 to 2^63 - 1, got {brief(seed)}")
    return seed


def _json_field(msg: Mapping[str, Any], key: str) -> Any:
    """A document the page sends as an object, a list or the text of an uploaded file."""
    if key not in msg:
        raise RequestError(f"{key}: missing")
    value = msg[key]
    if isinstance(value, str):
        value = parse_json(value, RequestError, key)
    return value


class Client:
    """One page's websocket: its game session, its running job and its outbox."""

    def __init__(self, ws: WebSocket, limits: ServerLimits, defaults: Mapping[str, Any],
                 executor: ThreadPoolExecutor | None = None) -> None:
        self.ws = ws
        self.executor = executor  # where its jobs run (None: asyncio's default threads)
        self.gone = threading.Event()  # set once the page has left (or the server stops)
        self.limits = limits
        self.defaults = defaults
        self.session: Any = None
        self.job: asyncio.Task | None = None
        self.cancel = threading.Event()
        self.loop = asyncio.get_running_loop()
        self.outbox: asyncio.Queue = asyncio.Queue()
        self.partials: dict[str, dict[str, Any]] = {}  # the newest partial answer of each request, not yet sent
        self.partial_lock = threading.Lock()

    # ------------------------------------------------------------ sending
    def post(self, message: dict[str, Any]) -> None:
        """Queue a message for the page (from any thread). A partial answer waiting to be
        sent is replaced by a newer one, so a page that reads slowly costs no memory."""
        if message.get("partial"):
            key = f"{message['type']} {message.get('id')!r}"  # the request's own answers only
            with self.partial_lock:
                queued = key in self.partials
                self.partials[key] = message
            if queued:
                return
            message = {"type": _PARTIAL, "of": key}
        self.loop.call_soon_threadsafe(self.outbox.put_nowait, message)

    async def sender(self) -> None:
        while not self.gone.is_set():
            message = await self.outbox.get()
            if message["type"] == _PARTIAL:
                with self.partial_lock:
                    message = self.partials.pop(message["of"])
            try:
                text = json.dumps(message, allow_nan=False)
            except ValueError:  # (a defect: the pane the answer was for hears of it, as of any error)
                text = json.dumps({"type": "error", "for": _KIND_OF_ANSWER.get(message["type"], "request"),
                                   "id": message.get("id"), "error": "internal: a non-finite number",
                                   "field": "internal"})
            try:
                await self.ws.send_text(text)
            except Exception:  # the page went away: nothing more can reach it
                self.gone.set()
                return

    async def room_to_answer(self) -> None:
        """Wait until the outbox holds fewer than ``MAX_OUTBOX`` answers: a page that sends
        faster than it reads is read no further meanwhile, so its answers cannot pile up."""
        await asyncio.sleep(0)  # (the answers just posted reach the outbox first: call_soon_threadsafe)
        while self.outbox.qsize() >= MAX_OUTBOX and not self.gone.is_set():
            await asyncio.sleep(0.01)

    def error(self, req_id: Any, kind: str, e: CuttleError | str, field: str | None = None) -> None:
        self.post({"type": "error", "for": kind, **error_object(req_id, e, field)})

    # ------------------------------------------------------------ jobs
    async def stop(self) -> None:
        """Stop the running job and wait until it has ended (one search per client)."""
        if self.job is not None and not self.job.done():
            self.cancel.set()
            try:
                await self.job
            except BaseException:
                pass
        self.job = None
        self.cancel = threading.Event()

    def start(self, req_id: Any, kind: str, work: Callable[[threading.Event], None]) -> None:
        """Run ``work(cancel)`` on a worker thread as the client's job; its errors become
        error objects naming the field."""
        cancel = self.cancel

        def run() -> None:
            try:
                work(cancel)
            except Cancelled:
                self.post({"type": "stopped", "for": kind, "id": req_id})
            except CuttleError as e:
                self.error(req_id, kind, e, _field(e, kind))
            except Exception as e:  # a defect: logged, answered, the server goes on
                print(f"serve: internal error on a {kind} request:", file=sys.stderr)
                traceback.print_exc(file=sys.stderr)
                self.error(req_id, kind, f"internal: {type(e).__name__} (the server logged it and goes on)", "internal")

        self.job = asyncio.ensure_future(self.loop.run_in_executor(self.executor, run))

    # ------------------------------------------------------------ messages
    async def handle(self, text: str) -> None:
        req_id = None
        kind = "request"
        try:
            if len(text.encode("utf-8", "surrogatepass")) > self.limits.max_request_bytes:
                raise RequestError(f"request: longer than the server's limit of {self.limits.max_request_bytes:,} bytes")
            msg = parse_json(text, RequestError, "request")
            if not isinstance(msg, dict):
                raise RequestError("request: expected a JSON object")
            req_id = _echoable_id(msg.get("id"))
            if msg.get("type") not in MESSAGE_TYPES:
                raise RequestError(f"type: expected one of {', '.join(MESSAGE_TYPES)}, got {brief(msg.get('type'))}")
            kind = msg["type"]
            check_keys(msg, ("type", "id") + MESSAGE_FIELDS.get(kind, ()), what=f"message of type {kind}", error=RequestError)
            if kind == "ping":
                self.post({"type": "pong", "id": req_id})
                return
            await self.stop()
            if kind == "stop":
                return
            getattr(self, "on_" + kind)(req_id, msg)
        except CuttleError as e:
            self.error(req_id, kind, e, _field(e, kind))

    def _session(self) -> Any:
        if self.session is None:
            raise RequestError("game: no game yet; start one (\"new\")")
        return self.session

    def _game(self, req_id: Any) -> None:
        self.post({**views.session_json(self.session), "id": req_id})

    def _moves_as_made(self, session: Any, req_id: Any) -> Callable[[Any], None]:
        """A session's ``each``: the board after each move, as a partial ``game`` answer,
        while the next seat thinks (not once the person decides or the game ends: the final
        answer follows at once)."""
        def each(_event: Any) -> None:
            if not (session.my_turn or session.is_over):
                self.post({**views.session_json(session), "id": req_id, "partial": True})

        return each

    def on_new(self, req_id: Any, msg: Mapping[str, Any]) -> None:
        from ..play.session import new_session

        try:
            rules = get_ruleset(_text_field(msg, "rules", "cuttle-cards").strip())
        except RulesError as e:
            raise RequestError(f"rules: {e}") from None
        seat = _text_field(msg, "seat", "p0")
        opponents = _text_field(msg, "opponents", "greedy")
        seed = _seed_field(msg)
        _check_agents(opponents, self.limits)
        self._begin(req_id, "new", lambda: new_session(rules, seat, opponents, seed))

    def on_resume(self, req_id: Any, msg: Mapping[str, Any]) -> None:
        """Go on with a saved game (a log the page downloaded, or ``play --save`` wrote)."""
        from ..play.session import HUMAN, resume_session

        data = _json_field(msg, "game")
        seed = _seed_field(msg)
        players = data.get("players") if isinstance(data, Mapping) else None
        if isinstance(players, Mapping):  # its agents ask no more than a request may
            for spec in players.values():
                if isinstance(spec, str) and spec != HUMAN:
                    _check_agents(spec, self.limits, "players")
        self._begin(req_id, "resume", lambda: resume_session(data, seed, "open it in the Review tab"))

    def _begin(self, req_id: Any, kind: str, make: Callable[[], Any]) -> None:
        """Start the session ``make`` builds and play the agents up to the person's decision."""
        def work(cancel: threading.Event) -> None:
            from ..play.session import Stopped

            session = make()
            try:  # (the replies play out on a new request; they end only when the page leaves)
                session.advance(each=self._moves_as_made(session, req_id), cancel=self.gone)
            except Stopped:
                raise Cancelled() from None
            self.session = session
            self._game(req_id)

        self.start(req_id, kind, work)

    def on_play(self, req_id: Any, msg: Mapping[str, Any]) -> None:
        session = self._session()
        move = msg.get("move")
        if (not isinstance(move, (str, int)) or isinstance(move, bool) or (isinstance(move, str) and len(move) > 200)
                or (isinstance(move, int) and not 1 <= move <= 100_000)):
            raise RequestError(f"move: expected a move's notation or its number in the list, got {brief(move)}")

        def work(cancel: threading.Event) -> None:
            from ..play.session import Stopped

            try:
                session.play(move, each=self._moves_as_made(session, req_id), cancel=self.gone)
            except Stopped:  # (the move is taken back)
                raise Cancelled() from None
            self._game(req_id)

        self.start(req_id, "play", work)

    def on_undo(self, req_id: Any, msg: Mapping[str, Any]) -> None:
        session = self._session()
        if not session.undo():
            raise RequestError("undo: there is no earlier decision of yours to go back to")
        self._game(req_id)

    def on_log(self, req_id: Any, msg: Mapping[str, Any]) -> None:
        session = self._session()
        self.post({"type": "log", "id": req_id, "log": session.log(), "text": session.log_text(),
                   "filename": f"cuttle-{session.rules.name}-seed{session.seed}-ply{len(session.moves)}.json"})

    def on_hint(self, req_id: Any, msg: Mapping[str, Any]) -> None:
        session = self._session()
        if not session.my_turn:
            raise RequestError("hint: it is not your decision")
        limit = request_limit(msg, {"iterations": DEFAULT_HINT_ITERATIONS}, self.limits)

        view = session.view()

        def work(cancel: threading.Event) -> None:
            def progress(_done: int, snap: Any) -> None:
                self.post({**views.analysis_json(snap.partial(), view), "type": "hint", "id": req_id})

            result = session.hint(limit.iterations, progress, time=limit.time, cancel=cancel, every=REPORT_EVERY)
            self.post({**views.analysis_json(result, view), "type": "hint", "id": req_id})

        self.start(req_id, "hint", work)

    def on_load(self, req_id: Any, msg: Mapping[str, Any]) -> None:
        from ..game.formats import load_position

        data = _json_field(msg, "position")
        if not isinstance(data, dict):
            raise RequestError(f"position: expected a JSON object, got {type(data).__name__}")
        pos = load_position(data)
        self.post({**views.position_json(pos), "id": req_id})

    def on_analyse(self, req_id: Any, msg: Mapping[str, Any]) -> None:
        data = _json_field(msg, "position")
        limit = request_limit(msg, {"iterations": DEFAULT_HINT_ITERATIONS}, self.limits)
        request = {"id": req_id, "position": data, "iterations": limit.iterations, "time": limit.time,
                   "runnersUp": MAX_RUNNERS_UP, "reportDuringSearchEvery": REPORT_EVERY}
        request = {k: v for k, v in request.items() if v is not None}

        def work(cancel: threading.Event) -> None:
            from ..analysis.ismcts import best_reply_applies
            from ..game.formats import load_position

            try:  # the position's sides, for the shares (a bad position: answers() names the field)
                pos = load_position(data) if isinstance(data, dict) else None
            except CuttleError:
                pos = None
            if pos is not None and best_reply_applies(pos):  # two sides: the back-up beside the score
                request["bestReply"] = True

            def emit(answer: dict[str, Any]) -> None:
                self.post({**answer, "moveInfos": views.with_side_shares(answer["moveInfos"], pos),
                           "type": "analysis", "partial": True})

            final = answers(request, self.defaults, self.limits, emit=emit, cancel=cancel)[-1]
            if "error" in final:
                self.post({**final, "type": "error", "for": "analyse"})
            else:
                self.post({**final, "moveInfos": views.with_side_shares(final["moveInfos"], pos),
                           "type": "analysis", "partial": False})

        self.start(req_id, "analyse", work)

    def on_solve(self, req_id: Any, msg: Mapping[str, Any]) -> None:
        from ..analysis.solve import solve
        from ..game.formats import load_position

        data = _json_field(msg, "position")
        if not isinstance(data, dict):
            raise RequestError(f"position: expected a JSON object, got {type(data).__name__}")
        seconds = msg.get("time")
        if seconds is None:  # absent or null: the default, never an unlimited solve
            seconds = min(DEFAULT_SOLVE_SECONDS, self.limits.max_time)
        limit = request_limit({"time": seconds}, {}, self.limits)
        pos = load_position(data)

        def work(cancel: threading.Event) -> None:
            def progress(p: Any) -> None:
                if cancel.is_set():
                    raise Cancelled()
                self.post({"type": "solveProgress", "id": req_id, "nodes": p.nodes, "stage": p.stage,
                           "done": p.done, "total": p.total})

            result = solve(pos, time=limit.time, progress=progress)
            self.post({**result.to_json(), "type": "solve", "id": req_id})

        self.start(req_id, "solve", work)

    def on_review(self, req_id: Any, msg: Mapping[str, Any]) -> None:
        from ..analysis.review import ReviewStopped, decision_views, review_game
        from ..game.gamelog import read_game

        data = _json_field(msg, "game")
        limit = request_limit(msg, {"iterations": DEFAULT_REVIEW_ITERATIONS}, self.limits)

        def work(cancel: threading.Event) -> None:
            start, moves, about = read_game(data)
            if len(moves) > MAX_REVIEW_DECISIONS:
                raise RequestError(f"game: {len(moves):,} moves; the board reviews games of at most "
                                   f"{MAX_REVIEW_DECISIONS} moves (use cuttle-search review)")

            def progress(done: int, total: int) -> None:
                if cancel.is_set():
                    raise Cancelled()
                self.post({"type": "reviewProgress", "id": req_id, "done": done, "total": total})

            try:
                review = review_game(start, moves, iterations=limit.iterations, time=limit.time,
                                     seed=self.defaults.get("seed") or 0, progress=progress,
                                     players=about.get("players") or {}, cancel=cancel)
            except ReviewStopped:
                raise Cancelled() from None
            review.source = about["source"]
            self.post({**views.review_json(review, decision_views(start, moves, review)), "id": req_id})

        self.start(req_id, "review", work)

    # ------------------------------------------------------------ the connection
    async def run(self) -> None:
        sender = asyncio.ensure_future(self.sender())
        try:
            while True:
                message = await self.ws.receive()
                if message["type"] == "websocket.disconnect" or self.gone.is_set():
                    break
                text = message.get("text")
                if text is None:
                    data = message.get("bytes") or b""
                    try:
                        text = data.decode("utf-8")
                    except UnicodeDecodeError:
                        self.error(None, "request", "request: not UTF-8 text", "request")
                        continue
                await self.handle(text)
                await self.room_to_answer()
        except WebSocketDisconnect:
            pass
        finally:
            self.gone.set()  # the page went away: stop its job, the opponents' replies too
            self.cancel.set()
            if self.job is not None:
                try:
                    await self.job
                except BaseException:
                    pass
            sender.cancel()


# the request kind an answer of each type is for (the page finds the pane by it)
_KIND_OF_ANSWER = {"game": "play", "hint": "hint", "position": "load", "analysis": "analyse", "solve": "solve",
                   "solveProgress": "solve", "review": "review", "reviewProgress": "review"}
_FIELD_OF_KIND = {"play": "move", "review": "game", "analyse": "position", "solve": "position", "load": "position",
                  "hint": "hint", "new": "rules", "resume": "game"}


def _field(e: CuttleError, kind: str) -> str:
    """The field an error names (its ``field: ...`` prefix), else the request's main field."""
    m = _FIELD_RE.match(str(e))
    return m.group(1) if m else _FIELD_OF_KIND.get(kind, "request")


def _check_agents(opponents: str, limits: ServerLimits, field: str = "opponents") -> None:
    """Opponents whose own searches ask more than a request may: refused, naming them. Each
    agent is built and asked its budget, so a default (``ismcts`` searches 10,000 iterations a
    move unless told otherwise) counts as much as a number given."""
    from ..play.agents import AgentError, make_agent
    from ..play.session import split_specs

    for spec in split_specs(opponents):
        try:
            agent = make_agent(spec)
        except AgentError:
            continue  # (the session names what is wrong with it)
        for key, cap, unit in (("iterations", limits.max_iterations, ""), ("worlds", limits.max_iterations, ""),
                               ("time", limits.max_time, " s")):
            limit = f"{cap:g}" if key == "time" else f"{cap:,}"
            value = getattr(agent, key, None)
            if value is None or value <= cap:
                continue
            given = key in agent.params
            asks = f"asks for {key}={agent.params[key]}" if given else f"searches {key}={value:g} by default"
            raise RequestError(f"{field}: {brief(spec)} {asks}, above the server's limit of {limit}{unit}"
                               + ("" if given else f" (give it {key}=N within the limit)"))


ANY_ADDRESS = ("0.0.0.0", "")  # every address of the machine (IPv4; the command line refuses IPv6 literals)


def allowed_hosts_for(host: str) -> list[str]:
    """The Host header names the board answers to when it listens on ``host``: the loopback
    names (a page of another site that renames itself to 127.0.0.1, DNS rebinding, is
    turned away), plus ``host`` itself; any name when it listens on every address."""
    if host in ANY_ADDRESS:
        return ["*"]
    return sorted({*LOOPBACK_NAMES, host.strip("[]").lower()})


DEFAULT_LIMITS = ServerLimits()


def frame_limit(limits: ServerLimits) -> int:
    """The socket's largest frame (``ws_max_size``): ``FRAME_ALLOWANCE`` times the request
    limit, so that a message over the limit is answered with its error object; a larger
    frame closes the socket."""
    return FRAME_ALLOWANCE * limits.max_request_bytes + 1024


def create_app(limits: ServerLimits = DEFAULT_LIMITS, defaults: Mapping[str, Any] | None = None,
               allowed_hosts: list[str] | None = None) -> Starlette:
    """The board's application, with ``limits`` capping every request and ``defaults``
    (``seed``, ``threads``...) as the hint protocol's. It answers requests whose Host is
    one of ``allowed_hosts`` (the loopback names by default), and websockets opened by its
    own page (an ``Origin`` other than the Host is refused)."""
    defaults = dict(defaults or {})
    pages = {name: _static(name) for name in STATIC}
    clients: set[Client] = set()  # the open pages (a page's job ends before it leaves the set)
    # a thread for each page's one job: a page waits for no other page's (asyncio's default
    # pool has a few threads for the whole server)
    executor = ThreadPoolExecutor(max_workers=MAX_CLIENTS, thread_name_prefix="board-job")

    async def index(request: Request) -> Response:
        return Response(pages["index.html"], media_type=STATIC["index.html"])

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in pages:
            return JSONResponse({"error": f"path: no file {brief(name)}", "field": "path"}, status_code=404)
        return Response(pages[name], media_type=STATIC[name], headers={"Cache-Control": "no-cache"})

    async def meta(request: Request) -> Response:
        from ..play.agents import agent_names

        return JSONResponse({"version": __version__, "rules": game_choices(), "agents": agent_names(),
                             "limits": {"maxIterations": limits.max_iterations, "maxTime": limits.max_time,
                                        "maxRequestBytes": limits.max_request_bytes},
                             "defaults": {"hintIterations": min(DEFAULT_HINT_ITERATIONS, limits.max_iterations),
                                          "reviewIterations": min(DEFAULT_REVIEW_ITERATIONS, limits.max_iterations)}})

    async def socket(ws: WebSocket) -> None:
        origin = ws.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc.lower() != (ws.headers.get("host") or "").lower():
            # another site's page in the same browser: a websocket is not bound by CORS
            await ws.close(code=1008, reason="the board answers its own page only (Origin differs from Host)")
            return
        if len(clients) >= MAX_CLIENTS:
            await ws.close(code=1013, reason=f"the board serves at most {MAX_CLIENTS} pages at once")
            return
        await ws.accept()
        client = Client(ws, limits, defaults, executor)
        clients.add(client)
        try:
            await client.run()
        finally:
            clients.discard(client)

    async def no_icon(request: Request) -> Response:
        return Response(status_code=204)

    routes = [Route("/", index), Route("/api/meta", meta), Route("/static/{name}", static), Route("/favicon.ico", no_icon),
              WebSocketRoute("/ws", socket)]
    hosts = list(allowed_hosts) if allowed_hosts is not None else list(LOOPBACK_NAMES)
    app = Starlette(routes=routes, middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)])
    app.state.clients = clients
    return app


class ListenError(CuttleError):
    """The server cannot listen where it was asked to; ``param`` is ``host`` or ``port``."""

    def __init__(self, message: str, param: str) -> None:
        super().__init__(message)
        self.param = param


def listening_socket(host: str, port: int) -> "socket.socket":
    """A TCP socket bound to ``host:port`` (IPv4), or a ``ListenError`` saying which of the
    two is at fault: a name that does not resolve or an address not of this machine
    (``host``), a port in use or not allowed (``port``)."""
    try:
        address = socket.getaddrinfo(host or "0.0.0.0", port, socket.AF_INET, socket.SOCK_STREAM)[0][4]
    except (socket.gaierror, UnicodeError) as e:
        raise ListenError(f"cannot resolve {host!r} to an IPv4 address ({getattr(e, 'strerror', None) or e})", "host") from None
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as e:
        sock.close()
        if e.errno in (errno.EADDRINUSE, errno.EACCES):
            raise ListenError(f"{port} on {host}: {e.strerror}", "port") from None
        raise ListenError(f"cannot listen on {host} ({e.strerror}; an address of this machine, or 0.0.0.0 for all)",
                          "host") from None
    return sock


def run(host: str = "127.0.0.1", port: int = 8765, limits: ServerLimits = DEFAULT_LIMITS,
        defaults: Mapping[str, Any] | None = None, open_browser: bool = False,
        announce: Callable[[str], None] | None = None) -> None:
    """Serve the board on ``host:port`` until interrupted (uvicorn). Once it listens,
    ``announce`` gets the page's address (the port the system chose, with port 0) and,
    with ``open_browser``, the browser opens it. A ``ListenError`` when it cannot listen
    there."""
    import time

    import uvicorn

    sock = listening_socket(host, port)
    if sock.getsockname()[0] == "0.0.0.0":  # a name for every address ("0"): treated as 0.0.0.0 is
        host = "0.0.0.0"

    config = uvicorn.Config(create_app(limits, defaults, allowed_hosts_for(host)), host=host, port=port,
                            log_level="warning", ws_max_size=frame_limit(limits), lifespan="off")
    server = uvicorn.Server(config)

    def listening() -> None:
        while not server.started:
            if server.should_exit:
                return
            time.sleep(0.05)
        bound = server.servers[0].sockets[0].getsockname()[1] if server.servers else port
        name = "127.0.0.1" if host in ANY_ADDRESS else host
        url = f"http://{name}:{bound}/"
        if announce is not None:
            announce(url)
        if open_browser:
            import webbrowser

            webbrowser.open(url)

    threading.Thread(target=listening, daemon=True).start()
    server.run(sockets=[sock])
