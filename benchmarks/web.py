"""Web board benchmark (`cuttle-search serve`): how soon a hint's first partial answer
reaches the page, how often it updates, and what the web layer adds to an answer.

A server runs on a free loopback port in a thread. In headless Chromium (when Playwright
and a `chromium` executable are there) the page asks for a hint and records, with
`performance.now()`, the request and each answer drawn (targets: the first partial answer
within 150 ms, then at least one every 250 ms). Over a bare websocket the same is timed
from the client, and the web layer's cost is the median of (hint over the websocket -
`GameSession.hint` called directly with the same partial results taken, as
`analyse_stream` takes them), same game, seed and budget, so the same search (target:
under 10 ms); likewise the analyse page against `hint.answers` given the same
request (partial answers every `REPORT_EVERY` seconds included). Text, then JSON.

    python benchmarks/web.py [--quick] [--json]
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import statistics
import threading
import time
from typing import Any

from cuttle_search.bench import script_main

RULES = "cuttle-cards"


def _server():
    import uvicorn

    from cuttle_search.hint import ServerLimits
    from cuttle_search.web.app import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    limits = ServerLimits(max_threads=1)
    srv = uvicorn.Server(uvicorn.Config(create_app(limits, {"seed": 0}), host="127.0.0.1", port=port,
                                        log_level="warning", lifespan="off"))
    threading.Thread(target=srv.run, daemon=True).start()
    while not srv.started:
        time.sleep(0.05)
    return srv, f"127.0.0.1:{port}"


def _browser(address: str, seeds: list[int], iterations: int) -> dict | None:
    """First-partial latency and update gaps as the page records them (None without a browser)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        return None
    firsts, gaps, counts = [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(f"http://{address}/")
        page.wait_for_selector("body[data-ready='1'][data-connected='1']")
        for seed in seeds:
            page.fill("#opponents", "random")
            page.fill("#seed", str(seed))
            page.click("#new")
            page.wait_for_function("(s) => state.game && state.game.seed === s && state.game.myTurn", arg=seed)
            page.fill("#hint-iterations", str(iterations))
            page.click("#hint")
            page.wait_for_selector("#hint-status[data-final='1']", timeout=120_000)
            timing = page.evaluate("() => state.timing")
            stamps = [timing["asked"]] + [t for t, _partial in timing["updates"]]
            partials = [t for t, partial in timing["updates"] if partial]
            if partials:
                firsts.append(partials[0] - timing["asked"])
            gaps.append(max(b - a for a, b in zip(stamps[1:], stamps[2:])) if len(stamps) > 2 else 0.0)
            counts.append(len(partials))
        browser.close()
    return {"firstPartialMs": _summary(firsts), "longestGapMs": _summary(gaps), "partialAnswers": counts}


def _summary(xs: list[float]) -> dict:
    return {"median": round(statistics.median(xs), 1), "max": round(max(xs), 1), "n": len(xs)} if xs else {"n": 0}


class _Socket:
    """A websocket client on a loop thread of its own: ``ask`` sends a message and returns
    (seconds to the final answer, the arrival times of every answer, the final answer)."""

    def __init__(self, address: str) -> None:
        import websockets

        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        async def connect():
            return await websockets.connect(f"ws://{address}/ws", max_size=None)

        self.ws = self._call(connect())

    def _call(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    async def _ask(self, message: dict, kind: str) -> tuple[float, list[float], dict]:
        began = time.perf_counter()
        await self.ws.send(json.dumps(message))
        stamps = []
        while True:
            reply = json.loads(await self.ws.recv())
            if reply["type"] == "error":
                raise RuntimeError(reply["error"])
            if reply["type"] == kind:
                stamps.append(time.perf_counter() - began)
                if not reply.get("partial"):
                    return stamps[-1], stamps, reply

    def ask(self, message: dict, kind: str) -> tuple[float, list[float], dict]:
        return self._call(self._ask(message, kind))

    def close(self) -> None:
        self._call(self.ws.close())
        self.loop.call_soon_threadsafe(self.loop.stop)


def run(quick: bool, progress: bool = False) -> dict:
    from cuttle_search.game.formats import load_position
    from cuttle_search.game.rules import get_ruleset
    from cuttle_search.hint import ServerLimits, answers
    from cuttle_search.play.session import new_session
    from cuttle_search.web.app import REPORT_EVERY

    reps = 3 if quick else 9
    seeds = list(range(101, 101 + reps))
    iterations = 20_000
    stream_iterations = 100_000 if quick else 200_000
    opening = load_position("positions/opening-p0.json").to_dict()
    analyse_request = {"position": opening, "iterations": iterations}
    limits = ServerLimits(max_threads=1)
    # warm: the kernels, a first search
    session = new_session(get_ruleset(RULES), "p0", "random", 1)
    session.advance()
    session.hint(200)
    srv, address = _server()
    try:
        if progress:
            print("browser…", flush=True)
        page = _browser(address, seeds, stream_iterations)
        if progress:
            print("websocket…", flush=True)
        client = _Socket(address)
        firsts, gaps, hint_pairs, analyse_pairs, same = [], [], [], [], True
        for k, seed in enumerate(seeds):
            client.ask({"type": "new", "opponents": "random", "seed": seed, "rules": RULES}, "game")
            _, stamps, _ = client.ask({"type": "hint", "iterations": stream_iterations}, "hint")
            if len(stamps) > 1:
                firsts.append(1000 * stamps[0])
                gaps.append(1000 * max(b - a for a, b in zip(stamps, stamps[1:])))
            direct = new_session(get_ruleset(RULES), "p0", "random", seed)
            direct.advance()

            def web_hint() -> tuple[float, int]:
                seconds, _, reply = client.ask({"type": "hint", "iterations": iterations}, "hint")
                return seconds, reply["rootInfo"]["iterations"]

            def direct_hint(direct: Any = direct) -> tuple[float, int]:
                began = time.perf_counter()
                result = direct.hint(iterations, lambda _done, snap: snap.partial(), every=REPORT_EVERY)
                return time.perf_counter() - began, result.iterations

            def web_analyse() -> float:
                return client.ask({"type": "analyse", **analyse_request}, "analysis")[0]

            def direct_analyse() -> float:
                began = time.perf_counter()
                answers({"id": 1, **analyse_request, "runnersUp": 64, "reportDuringSearchEvery": REPORT_EVERY},
                        {"seed": 0}, limits, emit=lambda partial: None)
                return time.perf_counter() - began

            # interleaved, the order alternating, so the machine's load falls on both alike
            if k % 2:
                d, w = direct_hint(), web_hint()
                da, wa = direct_analyse(), web_analyse()
            else:
                w, d = web_hint(), direct_hint()
                wa, da = web_analyse(), direct_analyse()
            same = same and w[1] == d[1]
            hint_pairs.append((w[0], d[0]))
            analyse_pairs.append((wa, da))
        client.close()
    finally:
        srv.should_exit = True

    def added(pairs: list[tuple[float, float]]) -> float:
        return round(1000 * statistics.median(w - d for w, d in pairs), 1)

    def median_ms(xs) -> float:
        return round(1000 * statistics.median(xs), 1)

    return {
        "rules": RULES,
        "repetitions": reps,
        "streamIterations": stream_iterations,
        "browser": page,
        "websocket": {"firstPartialMs": _summary(firsts), "longestGapMs": _summary(gaps)},
        "overhead": {
            "iterations": iterations,
            "sameSearch": same,
            "hintDirectMs": median_ms(d for _, d in hint_pairs),
            "hintWebMs": median_ms(w for w, _ in hint_pairs),
            "hintAddedMs": added(hint_pairs),
            "analyseDirectMs": median_ms(d for _, d in analyse_pairs),
            "analyseWebMs": median_ms(w for w, _ in analyse_pairs),
            "analyseAddedMs": added(analyse_pairs),
        },
        "targets": {"firstPartialMs": 150, "longestGapMs": 250, "addedMs": 10},
    }


def text(fig: dict) -> list[str]:
    lines = [f"web board, {fig['rules']}, {fig['repetitions']} hints of {fig['streamIterations']:,} iterations each"]
    for where in ("browser", "websocket"):
        f = fig[where]
        if not f:
            lines.append(f"  {where}: skipped (no Playwright or chromium)")
            continue
        first, gap = f["firstPartialMs"], f["longestGapMs"]
        lines.append(f"  {where}: first partial answer median {first['median']} ms, worst {first['max']} ms "
                     f"(target 150); longest gap between answers median {gap['median']} ms, worst {gap['max']} ms "
                     f"(target 250)")
    o = fig["overhead"]
    lines.append(f"  added by the web layer ({o['iterations']:,} iterations, same search: {o['sameSearch']}): "
                 f"hint {o['hintWebMs']} ms vs {o['hintDirectMs']} ms direct, median difference {o['hintAddedMs']} ms; "
                 f"analyse {o['analyseWebMs']} vs {o['analyseDirectMs']} ms, {o['analyseAddedMs']} ms (target under 10)")
    return lines


if __name__ == "__main__":
    script_main(__doc__, run, text)
