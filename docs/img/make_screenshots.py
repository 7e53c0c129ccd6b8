"""Take the README's and docs/web.md's screenshots of the board with headless Chromium.

    python docs/img/make_screenshots.py     (needs the webtest extra and a chromium executable)

A server runs on a free loopback port in a thread; the pages are driven as in
tests/test_web.py and saved as docs/img/web-*.png.
"""

from __future__ import annotations

import json
import random
import shutil
import socket
import sys
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import sync_playwright

from cuttle_search.hint import ServerLimits
from cuttle_search.web.app import create_app

HERE = Path(__file__).parent
ROOT = HERE.parent.parent


def main() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(ServerLimits(max_threads=1), {"seed": 0}), host="127.0.0.1",
                                        port=port, log_level="warning", lifespan="off"))
    threading.Thread(target=srv.run, daemon=True).start()
    while not srv.started:
        time.sleep(0.05)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_selector("body[data-ready='1'][data-connected='1']")

        def new(rules: str, seed: int, opponents: str = "greedy") -> None:
            page.select_option("#rules", rules)
            page.fill("#opponents", opponents)
            page.fill("#seed", str(seed))
            page.click("#new")
            page.wait_for_function("(s) => state.game && state.game.seed === s && !state.game.partial", arg=seed)

        def play(decisions: int, seed: int) -> None:
            rng = random.Random(seed)
            for _ in range(decisions):
                game = page.evaluate("() => state.game")
                if game["over"]:
                    return
                points = [m for m in game["moves"] if m["kind"] == "points"] or game["moves"]
                move = rng.choice(points)
                page.click(f"#play-moves li[data-n='{move['n']}']")
                page.wait_for_function("(ply) => state.game.ply > ply || state.game.over", arg=game["ply"])

        def hint(iterations: int) -> None:
            game = page.evaluate("() => state.game")
            assert game["myTurn"], (game["board"]["decision"], game["events"][-3:])
            page.fill("#hint-iterations", str(iterations))
            page.click("#hint")
            page.wait_for_selector("#hint-status[data-final='1']", timeout=120_000)

        new("cuttle-cards", 15)
        play(2, 15)
        hint(10_000)  # the default budget: the calibrated and best-reply columns show
        game = page.evaluate("() => state.game")
        card = next((m["touches"][0] for m in game["moves"] if len(m["touches"]) > 0), None)
        if card:
            page.click(f"#play-board svg.card[data-card='{card}']")
        page.screenshot(path=str(HERE / "web-play.png"))

        new("cutthroat", 4, "random")
        play(1, 4)
        hint(20_000)
        page.screenshot(path=str(HERE / "web-cutthroat.png"))

        page.click("#tab-analyse")
        page.fill("#pos-text", (ROOT / "positions" / "deck-out-endgame.json").read_text())
        page.click("#pos-load")
        page.wait_for_selector("#an-board .seat")
        page.fill("#an-iterations", "20000")
        page.click("#an-run")
        page.wait_for_selector("#an-result-status[data-final='1']", timeout=120_000)
        page.click("#an-solve")
        page.wait_for_selector("#solve-table tr >> nth=1", timeout=120_000)
        page.screenshot(path=str(HERE / "web-analyse.png"))

        from cuttle_search.game.rules import get_ruleset
        from cuttle_search.play.session import new_session

        session = new_session(get_ruleset("cuttle-cards"), "p0", "greedy", 6)
        session.advance()
        rng = random.Random(6)
        while not session.is_over:
            session.play(rng.randrange(len(session.legal_moves())) + 1)
        page.click("#tab-review")
        page.fill("#rv-iterations", "1000")
        page.fill("#rv-text", json.dumps(session.log()))
        page.click("#rv-run")
        page.wait_for_selector("#rv-status[data-done='1']", timeout=300_000)
        labelled = page.evaluate("() => state.review.decisions.findIndex((d) => d.label)")
        page.locator("#rv-chart circle.mark").nth(max(labelled, 0)).click()
        page.screenshot(path=str(HERE / "web-review.png"))
        browser.close()
    srv.should_exit = True


if __name__ == "__main__":
    sys.exit(main())
