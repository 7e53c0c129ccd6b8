"""The browser board (``cuttle-search serve``), driven in headless Chromium by Playwright.

A server runs on a free loopback port in a thread; the page is driven by clicks and keys
as a person would: whole games of two seats and of Cutthroat played by clicking cards,
a hint whose partial answers reach the page, a review whose chart is clicked, a game
played with the keyboard alone, a position analysed and solved. Skipped without the web
extra, Playwright or a ``chromium`` executable (no browser is downloaded).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import shutil
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
websockets = pytest.importorskip("websockets")

from cuttle_search.hint import ServerLimits  # noqa: E402
from cuttle_search.web import views  # noqa: E402
from cuttle_search.web.app import MAX_OUTBOX, MESSAGE_FIELDS, create_app, frame_limit  # noqa: E402

LIMITS = ServerLimits(max_iterations=300_000, max_time=20.0, max_threads=1, max_request_bytes=64 * 1024)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
APP = None  # the application the server fixture runs


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    """The board on a free loopback port, in a thread; yields its base URL. The kernels are
    compiled (or loaded) first, so that no browser wait has a first compile inside it: on a
    busy machine with an empty cache that took longer than the waits allow."""
    from cuttle_search.analysis import analyse
    from cuttle_search.game.position import Position
    from cuttle_search.game.rules import get_ruleset
    from cuttle_search.warmup import warm_up

    warm_up()
    analyse(Position.deal(get_ruleset("cuttle-cards"), seed=1).view_of(0), iterations=200, seed=1, best_reply=True)
    port = _free_port()
    config = uvicorn.Config(create_app(LIMITS, {"seed": 1}), host="127.0.0.1", port=port, log_level="warning",
                            ws_max_size=frame_limit(LIMITS), lifespan="off")
    global APP
    APP = config.app
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if CHROMIUM is None:
        pytest.skip("no chromium executable (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(server + "/")
    pg.wait_for_selector("body[data-ready='1'][data-connected='1']")
    yield pg
    context.close()
    assert not errors, f"the page raised: {errors}"


def _new_game(page, rules: str, seat: str, opponents: str, seed: int) -> None:
    page.select_option("#rules", rules)
    page.fill("#seat", seat)
    page.fill("#opponents", opponents)
    page.fill("#seed", str(seed))
    page.evaluate("() => { window.gameBefore = state.game; }")  # the same seed may be played twice: wait for a new game
    page.click("#new")
    page.wait_for_function(
        f"() => state.game && state.game !== window.gameBefore && state.game.seed === {seed} && !state.game.partial")


def _hint_by_key(page, iterations: int) -> None:
    """Ask for a hint of ``iterations`` with the ``h`` key and wait for its final answer."""
    page.fill("#hint-iterations", str(iterations))
    page.evaluate("() => document.activeElement.blur()")  # keys typed into a field are the field's
    page.keyboard.press("h")
    page.wait_for_selector("#hint-status[data-final='1']", timeout=60_000)


def _game(page) -> dict:
    return page.evaluate("() => state.game")


def _wait_played(page, ply: int) -> None:
    page.wait_for_function("(ply) => !state.game.partial && (state.game.ply > ply || state.game.over)", arg=ply)


def _click_move(page, move: dict) -> None:
    """Play ``move`` by clicking: its card, then its target (or the card again when it is
    that card's only move); a move of no card, or a card with several moves of that target,
    from the list."""
    cards = move["touches"]
    board = "#play-board svg.card[data-card='%s']"
    if cards and page.locator(board % cards[0]).count():
        page.click(board % cards[0])
        assert page.locator(board % cards[0]).get_attribute("class").split().count("selected") == 1
        dimmed = page.locator("#play-moves li.dim").count()
        others = [m for m in _game(page)["moves"] if cards[0] not in m["touches"]]
        assert dimmed == len(others)  # the page shows only the clicked card's moves
        mine = [m for m in _game(page)["moves"] if cards[0] in m["touches"]]
        if len(cards) > 1 and page.locator(board % cards[1]).count():
            both = [m for m in mine if cards[1] in m["touches"]]
            page.click(board % cards[1])
            if len(both) == 1:
                return
        elif len(mine) == 1:
            page.click(board % cards[0])
            return
    page.click(f"#play-moves li[data-n='{move['n']}']")


def _play_out(page, seed: int, most: int = 400) -> int:
    """Play the person's side of the game to its end by clicking; the decisions made."""
    rng = random.Random(seed)
    made = 0
    while not _game(page)["over"]:
        game = _game(page)
        assert game["myTurn"] and game["moves"], game["board"]["decision"]
        move = rng.choice(game["moves"])
        _click_move(page, move)
        _wait_played(page, game["ply"])
        made += 1
        assert made < most
    return made


def test_play_a_two_seat_game_by_clicking(page):
    _new_game(page, "cuttle-cards", "p0", "random", 11)
    made = _play_out(page, 11)
    assert made > 3
    game = _game(page)
    assert page.text_content("#play-status").startswith("game over")
    assert page.get_attribute("#play-status", "data-over") == "1"
    assert game["result"]["share"] in (0, 0.5, 1)
    assert page.locator("#events li").count() == game["ply"]
    # a decline is said in words, as the terminal says it (never a bare "resolve")
    said = page.locator("#events li").all_text_contents()
    declines = [e for e in game["events"] if e["text"] == "resolve"]
    assert declines and not any(line.endswith(": resolve") for line in said)
    assert [line.split(": ", 1)[1] for line, e in zip(said, game["events"]) if e["text"] == "resolve"] == \
        [e["told"] + e["notes"] for e in declines]
    assert any("does not counter" in e["told"] or "stand" in e["told"] for e in declines)
    with page.expect_download() as info:
        page.click("#download")
    log = json.loads(open(info.value.path(), encoding="utf-8").read())
    assert log["format"] == "cuttle-search/game" and len(log["moves"]) == game["ply"]
    assert log["players"]["p0"] == "human" and log["players"]["p1"] == "random"


def test_a_downloaded_game_is_continued_from_its_file(page, server, browser, tmp_path):
    _new_game(page, "cuttle-cards", "p0", "random", 11)
    for _ in range(2):
        game = _game(page)
        _click_move(page, game["moves"][0])
        _wait_played(page, game["ply"])
    game = _game(page)
    with page.expect_download() as info:
        page.click("#download")
    saved = tmp_path / "game.json"
    saved.write_text(open(info.value.path(), encoding="utf-8").read())
    # another page, later: the file chosen in "continue a saved game"
    other = browser.new_context().new_page()
    try:
        _resume_on_another_page(other, server, saved, game)
    finally:  # (left open, its client would stay on the server for the tests after this one)
        other.context.close()


def _resume_on_another_page(other, server: str, saved: Path, game: dict) -> None:
    other.goto(server + "/")
    other.wait_for_selector("body[data-ready='1'][data-connected='1']")
    other.fill("#seed", "5")
    other.set_input_files("#resume-file", str(saved))
    other.wait_for_function("() => state.game && !state.game.partial")
    again = _game(other)
    assert again["ply"] >= game["ply"] and again["myTurn"]
    assert [e["text"] for e in again["events"][:game["ply"]]] == [e["text"] for e in game["events"]]
    assert other.locator("#events li").count() == again["ply"]
    assert other.input_value("#seat") == "p0" and other.input_value("#opponents") == "random"  # the form: the log's
    assert _play_out(other, 5) >= 1 and _game(other)["over"]
    # a log whose agents ask more than the server allows is refused, naming the field
    data = json.loads(saved.read_text())
    data["players"]["p1"] = "ismcts:iterations=999999999"
    saved.write_text(json.dumps(data))
    other.set_input_files("#resume-file", str(saved))
    other.wait_for_function("() => !document.getElementById('error').hidden"
                            " && document.getElementById('error').dataset.field === 'players'")
    assert "above the server's limit" in other.text_content("#error")


def test_a_seed_past_what_a_javascript_number_holds_keeps_its_deal_and_its_log(page):
    """The seed typed and the log downloaded keep every digit: a 64-bit seed read as a
    JavaScript number rounds, and Multiplayer's log rebuilds its deal from ``dealSeed``."""
    from cuttle_search.game.gamelog import check_game_log, replay
    from cuttle_search.game.rules import get_ruleset
    from cuttle_search.play.session import new_session

    seed = 2**53 + 1
    _new_game(page, "multiplayer", "p0", "random", seed)
    assert f"seed {seed}" in page.text_content("#play-board")  # its digits (seedText), not the rounded number
    rng = random.Random(seed)
    for _ in range(3):
        game = _game(page)
        if game["over"]:
            break
        _click_move(page, rng.choice(game["moves"]))
        _wait_played(page, game["ply"])
    with page.expect_download() as info:
        page.click("#download")
    log = json.loads(open(info.value.path(), encoding="utf-8").read())
    expected = new_session(get_ruleset("multiplayer"), "p0", "random", seed)
    expected.advance()
    assert log["dealSeed"] == expected.log()["dealSeed"]
    assert len(log["moves"]) >= 3
    replay(check_game_log(log))  # the deal rebuilt from dealSeed: each logged move legal in it


def test_play_a_cutthroat_game_by_clicking(page):
    _new_game(page, "cutthroat", "p1", "random", 5)
    board = _game(page)["board"]
    assert board["order"][-1] == "p1" and len(board["seats"]) == 3
    assert page.locator("#play-board .seat").count() == 3
    made = _play_out(page, 5)
    assert made > 3
    assert page.text_content("#play-status").startswith("game over")
    # the whole board at the end, the person still at the bottom
    assert _game(page)["board"]["view"] == "full" and _game(page)["board"]["order"][-1] == "p1"
    assert "(you)" in page.text_content("#play-board .seat[data-seat='p1'] .who")


def test_a_hint_streams_partial_answers_to_the_page(page):
    _new_game(page, "cuttle-cards", "p0", "random", 3)
    page.fill("#hint-iterations", "250000")
    # the page as the second partial answer left it, noted as it is drawn (read afterwards,
    # the search may have ended in between)
    page.evaluate("""() => { const status = document.getElementById('hint-status');
      new MutationObserver((_, seen) => { if (Number(status.dataset.updates) >= 2) {
        window.atSecond = {final: status.dataset.final, text: status.textContent,
                           rows: document.querySelectorAll('#hint-table tr.row').length};
        seen.disconnect(); } }).observe(status, {attributes: true, childList: true, subtree: true}); }""")
    page.click("#hint")
    at_second = page.wait_for_function("() => window.atSecond", timeout=60_000).json_value()
    assert at_second["rows"] >= 1
    assert at_second["final"] == "0"
    assert "searching" in at_second["text"]
    page.wait_for_selector("#hint-status[data-final='1']", timeout=60_000)
    assert "250,000 iterations" in page.text_content("#hint-status")
    rows = page.locator("#hint-table tr.row")
    assert rows.count() == len(_game(page)["moves"])  # every legal move ranked
    assert rows.first.locator("svg.bar").count() == 1
    # two sides: the best-reply back-up beside the score and its interval
    headers = page.locator("#hint-table th").all_text_contents()
    assert headers.index("best reply") == headers.index("95% interval") + 1
    assert 0.0 <= float(rows.first.locator("td.best-reply").text_content()) <= 1.0
    assert "calibrated" not in headers  # 250,000 iterations: outside the map's 5,000 to 20,000
    assert "proven" not in headers  # cards are hidden: the solver did not run
    # a line's moves from the first that shows a card p0 cannot see are in brackets (at the
    # first move the board shows p0's hand alone)
    shown = set(page.locator("#play-board svg.card[data-card]").evaluate_all("els => els.map(e => e.dataset.card)"))
    card = re.compile(r"\b(?:[2-9TJQKA][CDHS]|X[12])\b")
    bracketed = 0
    for line in page.locator("#hint-table td.pv").all_text_contents():
        seen, _, guessed = line.partition("[")
        assert set(card.findall(seen)) <= shown, line
        if guessed:
            bracketed += 1
            assert guessed.endswith("]") and not set(card.findall(guessed.split(" · ")[0])) <= shown, line
    assert bracketed >= 1
    assert "guessed deals" in page.get_attribute("#hint-table td.pv >> nth=0", "title")
    # a click on a row's figures or line plays nothing; its move's button plays that move
    ply = _game(page)["ply"]
    page.evaluate("""() => {  // every message the page sends from now on, by type
      window.sentTypes = [];
      const send = state.ws.send.bind(state.ws);
      state.ws.send = (text) => { window.sentTypes.push(JSON.parse(text).type); send(text); };
    }""")
    rows.nth(1).locator("td.pv").click()
    rows.nth(1).locator("td.num").first.click()
    assert page.evaluate("() => window.sentTypes") == [] and _game(page)["ply"] == ply  # (a click sends at once)
    chosen = rows.nth(1).get_attribute("data-move")
    rows.nth(1).locator("button.pick").click()
    assert page.evaluate("() => window.sentTypes") == ["play"]
    _wait_played(page, ply)
    assert page.locator("#events li").nth(ply).text_content().endswith(chosen)


def test_cutthroat_hint_shows_every_seats_share(page):
    _new_game(page, "cutthroat", "p0", "random", 8)
    _hint_by_key(page, 2000)
    assert page.text_content("#hint-table th:nth-child(3)") == "shares by side"
    assert "best reply" not in page.locator("#hint-table th").all_text_contents()  # a two-sided figure
    first_bar = page.locator("#hint-table tr.row").first.locator("svg.bar rect")
    assert first_bar.count() == 1 + 3  # the background and one share per seat
    widths = [float(first_bar.nth(k).get_attribute("width")) for k in range(1, 4)]
    assert abs(sum(widths) - float(first_bar.nth(0).get_attribute("width"))) < 1  # the shares fill the bar


def test_a_team_game_stacks_each_teams_share_once(page):
    _new_game(page, "team", "p0", "random", 8)
    _hint_by_key(page, 2000)
    hint = page.evaluate("() => state.game")  # the seats' partners come from the engine
    assert {s["seat"]: s["partner"] for s in hint["board"]["seats"]} == {"p0": "p2", "p1": "p3", "p2": "p0", "p3": "p1"}
    first_bar = page.locator("#hint-table tr.row").first.locator("svg.bar rect")
    assert first_bar.count() == 1 + 2  # two teams
    widths = [float(first_bar.nth(k).get_attribute("width")) for k in range(1, 3)]
    assert abs(sum(widths) - float(first_bar.nth(0).get_attribute("width"))) < 1
    assert "p0+p2" in page.text_content("#hint-table caption")


def test_play_with_the_keyboard_alone(page):
    page.select_option("#rules", "cuttle-cards")
    page.fill("#opponents", "random")
    page.fill("#seed", "23")
    page.locator("#new").blur()
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press("n")
    page.wait_for_function("() => state.game && state.game.seed === 23 && !state.game.partial")
    first = _game(page)
    # digits pick a move, Enter plays it
    page.keyboard.press("2")
    assert page.locator("#play-moves li.cursor").get_attribute("data-n") == "2"
    page.keyboard.press("Enter")
    _wait_played(page, first["ply"])
    assert _game(page)["events"][first["ply"]]["text"] == first["moves"][1]["text"]
    # h asks for a hint, u undoes the move
    page.fill("#hint-iterations", "500")
    page.evaluate("() => document.activeElement.blur()")
    page.keyboard.press("h")
    page.wait_for_selector("#hint-status[data-final='1']", timeout=60_000)
    page.keyboard.press("u")
    page.wait_for_function("(ply) => state.game.ply === ply", arg=first["ply"])
    # and the arrows: the whole game
    rng = random.Random(23)
    two_digits = False
    while not _game(page)["over"]:
        game = _game(page)
        if len(game["moves"]) >= 12 and not two_digits:  # two digits in a row make one number
            # two keys in one task: the page joins digits typed within 0.9 s
            page.evaluate("() => ['1', '2'].forEach((key) => document.dispatchEvent("
                          "new KeyboardEvent('keydown', {key, bubbles: true})))")
            assert page.locator("#play-moves li.cursor").get_attribute("data-n") == "12"
            page.keyboard.press("Escape")
            two_digits = True
        k = rng.randrange(len(game["moves"]))
        page.keyboard.press("1")
        for _ in range(k):
            page.keyboard.press("ArrowDown")
        assert page.locator("#play-moves li.cursor").get_attribute("data-n") == str(k + 1)
        page.keyboard.press("Enter")
        _wait_played(page, game["ply"])
    assert page.text_content("#play-status").startswith("game over")
    assert two_digits  # the game had a decision of 12 moves or more


def _game_log(seed: int, rules: str = "cuttle-cards") -> dict:
    """A finished game log (random against random)."""
    from cuttle_search.game.rules import get_ruleset
    from cuttle_search.play.session import new_session

    session = new_session(get_ruleset(rules), "p0", "random", seed)
    session.advance()
    rng = random.Random(seed)
    while not session.is_over:
        session.play(rng.randrange(len(session.legal_moves())) + 1)
    return session.log()


def test_review_a_game_and_click_the_chart(page, tmp_path):
    log = _game_log(4)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    page.click("#tab-review")
    page.fill("#rv-iterations", "40")
    page.set_input_files("#rv-file", str(path))
    page.wait_for_selector("#rv-status[data-done='1']", timeout=90_000)
    review = page.evaluate("() => state.review")
    decisions = review["decisions"]
    assert len(decisions) >= 3 and set(review["summary"]) == {"p0", "p1"}
    assert all("candidates" in d for d in decisions)
    marks = page.locator("#rv-chart circle.mark")
    assert marks.count() == len(decisions)
    assert page.get_attribute("#rv-detail", "data-ply") == str(decisions[0]["ply"])
    k = len(decisions) - 1
    marks.nth(k).click()
    assert page.get_attribute("#rv-detail", "data-ply") == str(decisions[k]["ply"])
    assert page.locator("#rv-rows tr.decision.chosen").get_attribute("data-i") == str(k)
    detail = page.text_content("#rv-detail")
    assert decisions[k]["played"] in detail and decisions[k]["best"] in detail
    assert page.locator("#rv-candidates tr").count() == 1 + len(decisions[k]["candidates"])
    assert page.locator("#rv-board .seat").count() == 2
    # the log's "human" is whoever played that game, not the person reviewing it
    who = " ".join(page.locator("#rv-board .seat .who").all_text_contents())
    assert "(human)" in who and "(you)" not in who
    page.keyboard.press("ArrowLeft")
    assert page.get_attribute("#rv-detail", "data-ply") == str(decisions[k - 1]["ply"])
    assert "accuracy" in page.text_content("#rv-summary")
    assert page.locator("#rv-luck li").count() == len(review["forcedLuck"]) + len(review["chanceLuck"])
    page.focus("#rv-iterations")  # Escape leaves a field, and the keys move through the game again
    page.keyboard.press("Escape")
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#rv-detail", "data-ply") == str(decisions[k]["ply"])


def test_review_a_cuttle_cards_history_and_a_cutthroat_game(server):
    from tests.test_review import _history

    history = _history(_game_log(12))
    cutthroat = _game_log(5, "cutthroat")
    replies = _ask(server, [{"type": "review", "game": json.dumps(history), "iterations": 30},
                            {"type": "review", "game": cutthroat, "iterations": 30}], until=("review", "error"))
    assert [r["type"] for r in replies] == ["review", "review"], replies
    first, second = replies[0]["review"], replies[1]["review"]
    assert first["source"] == "cuttle.cards history" and set(first["summary"]) == {"p0", "p1"}
    assert second["rules"] == "cutthroat" and set(second["summary"]) == {"p0", "p1", "p2"}
    for review in (first, second):
        for d in review["decisions"]:
            assert d["board"]["view"] == d["player"] and d["board"]["actor"] == d["player"]
            assert d["played"] in [c["move"] for c in d["candidates"]] or d["playedResearched"]


def _analyse_on_the_page(page, name: str, iterations: int = 3000, before_run=None) -> None:
    """Paste the shipped position ``name`` into the Analyse page, load it, run the analysis
    (``before_run(page)`` first, if given) and wait for the final answer."""
    from pathlib import Path

    text = (Path(__file__).parent.parent / "positions" / f"{name}.json").read_text()
    page.click("#tab-analyse")
    page.fill("#pos-text", text)
    page.evaluate("() => { window.positionBefore = state.position; }")  # (a board may be shown already)
    page.click("#pos-load")
    page.wait_for_function("() => state.position && state.position !== window.positionBefore")
    page.wait_for_selector("#an-board .seat")
    if before_run is not None:
        before_run(page)
    page.fill("#an-iterations", str(iterations))
    page.click("#an-run")
    page.wait_for_selector("#an-result-status[data-final='1']", timeout=60_000)


def _bar_fills(page) -> list[float]:
    """Each row's bar fill as a share of the bar's width."""
    return [float(w) / 90 for w in page.eval_on_selector_all("#an-table svg.bar rect.fill", "rs => rs.map(r => r.getAttribute('width'))")]


def _column(page, header: str) -> list[float]:
    """The numbers of the Analyse table's column ``header``, row by row."""
    at = page.locator("#an-table th").all_text_contents().index(header) + 1
    return [float(t) for t in page.locator(f"#an-table tr.row td:nth-child({at})").all_text_contents()]


def test_analyse_and_solve_a_position(page):
    def solvable(page):
        assert not page.is_disabled("#an-solve")  # nothing hidden

    _analyse_on_the_page(page, "deck-out-endgame", before_run=solvable)
    assert page.locator("#an-table tr.row").count() >= 2
    status = page.text_content("#an-result-status")  # a quick answer in milliseconds, never "0.00 s"
    assert re.search(r"iterations in (\d+ ms|\d+\.\d+ s) ", status) and "0.00 s" not in status, status
    assert page.text_content("#an-table caption").startswith("the search")
    proven = page.locator("#an-table td.proven").all_text_contents()  # the deck is empty: solved first
    assert proven and all(v.split()[0] in ("win", "draw", "loss") for v in proven)
    page.click("#an-solve")
    page.wait_for_selector("#solve-table tr >> nth=1", timeout=60_000)
    values = page.locator("#solve-table td.proven").all_text_contents()
    assert page.text_content("#solve-table caption").startswith("the exact solver")
    assert values and all(v in ("win", "draw", "loss", "expected", "not proven") for v in values)


def test_analyse_and_solve_work_on_the_position_in_the_box(page):
    """Text pasted over a loaded position is loaded before it is analysed: the board, the
    table and Solve's state are all about it, never the board's old position."""
    from pathlib import Path

    from cuttle_search.game.position import Position

    _analyse_on_the_page(page, "win-in-one-full", iterations=500)
    assert not page.is_disabled("#an-solve")
    other = Path(__file__).parent.parent / "positions" / "cutthroat-opening-p0.json"
    page.fill("#pos-text", other.read_text())  # not loaded: Analyse loads it
    page.fill("#an-iterations", "600")
    page.click("#an-run")
    page.wait_for_selector("#an-result-status[data-final='1']", timeout=60_000)
    assert page.locator("#an-board .seat").count() == 3
    assert page.text_content("#an-table th:nth-child(3)") == "shares by side"
    assert page.text_content("#an-table caption").startswith("the search, each move estimated; shares of the games")
    legal = {m.text() for m in Position.load(other).legal_moves()}
    shown = page.locator("#an-table tr.row").evaluate_all("rows => rows.map(r => r.dataset.move)")
    assert shown and set(shown) <= legal
    assert page.is_disabled("#an-solve")  # hidden cards: nothing to solve


def test_stop_ends_a_solve_and_a_review_and_their_panes_say_so(page, tmp_path):
    from pathlib import Path

    page.click("#tab-analyse")
    assert page.is_disabled("#an-stop") and page.is_disabled("#rv-stop")  # nothing runs
    page.fill("#pos-text", (Path(__file__).parent.parent / "positions" / "opening-full.json").read_text())
    page.click("#pos-load")
    page.wait_for_selector("#an-board .seat")
    page.click("#an-solve")
    page.wait_for_function("() => document.getElementById('an-result-status').textContent.startsWith('solving')",
                           timeout=60_000)
    page.click("#an-stop")
    page.wait_for_function("() => document.getElementById('an-result-status').textContent === 'stopped'")
    assert page.is_disabled("#an-stop")
    path = tmp_path / "game.json"
    path.write_text(json.dumps(_game_log(4)), encoding="utf-8")
    page.click("#tab-review")
    page.fill("#rv-iterations", "200000")
    page.set_input_files("#rv-file", str(path))
    page.wait_for_function("() => !document.getElementById('rv-stop').disabled")
    page.click("#tab-play")  # a new game stops the review: its pane says so
    _new_game(page, "cuttle-cards", "p0", "random", 3)
    page.wait_for_function("() => document.getElementById('rv-status').textContent === 'stopped'")
    assert page.is_disabled("#rv-stop")


def test_the_ranked_table_fits_beside_the_board_and_a_phone_page_never_scrolls_sideways(page, tmp_path):
    page.set_viewport_size({"width": 1400, "height": 900})
    _new_game(page, "cuttle-cards", "p0", "random", 21)
    page.fill("#hint-iterations", "6000")
    page.click("#hint")
    page.wait_for_selector("#hint-status[data-final='1']", timeout=60_000)
    assert "calibrated" in page.locator("#hint-table th").all_text_contents()
    table = page.eval_on_selector("#hint-table", "t => [t.scrollWidth, t.clientWidth]")
    assert table[0] <= table[1], table  # every column in view, the line wrapped in its cell
    wide = "() => document.documentElement.scrollWidth"
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate(wide) <= 390
    _analyse_on_the_page(page, "team-opening-p0", iterations=300)
    assert page.evaluate(wide) <= 390
    path = tmp_path / "game.json"
    path.write_text(json.dumps(_game_log(4)), encoding="utf-8")
    page.click("#tab-review")
    page.fill("#rv-iterations", "30")
    page.set_input_files("#rv-file", str(path))
    page.wait_for_selector("#rv-status[data-done='1']", timeout=90_000)
    assert page.evaluate(wide) <= 390  # the chart scales to the screen


def test_the_shares_bar_draws_the_interval_over_the_viewers_own_segment(page):
    _new_game(page, "cutthroat", "p2", "random", 8)
    _hint_by_key(page, 2000)
    bar = page.locator("#hint-table tr.row").first.locator("svg.bar")
    first = bar.locator("rect").nth(1)  # (after the background)
    assert "p2" in first.locator("title").text_content()
    width = float(first.get_attribute("width"))
    whisker = bar.locator("line").first
    low, high = float(whisker.get_attribute("x1")), float(whisker.get_attribute("x2"))
    assert low - 1 <= width <= high + 1, (low, width, high)  # p2's interval over p2's share


def test_a_resumed_game_puts_its_own_seat_and_opponents_in_the_form(page, browser, server, tmp_path):
    _new_game(page, "cuttle-cards", "p0", "greedy", 31)
    game = _game(page)
    _click_move(page, game["moves"][0])
    _wait_played(page, game["ply"])
    with page.expect_download() as info:
        page.click("#download")
    saved = tmp_path / "game.json"
    saved.write_text(open(info.value.path(), encoding="utf-8").read())
    _new_game(page, "cuttle-cards", "p1", "random", 31)  # the same seed and rules, another game
    page.set_input_files("#resume-file", str(saved))
    page.wait_for_function("() => state.game.seat === 'p0' && !state.game.partial")
    assert page.input_value("#seat") == "p0" and page.input_value("#opponents") == "greedy"


def test_multiplayer_at_any_seat_count_is_on_the_menu(page):
    offered = page.eval_on_selector_all("#rules option", "os => os.map(o => o.value)")
    assert {"multiplayer", "multiplayer:players=2", "multiplayer:players=8"} <= set(offered)
    agents = page.eval_on_selector_all("#agents option", "os => os.map(o => o.value)")
    from cuttle_search.play.agents import agent_names

    assert agents == agent_names()  # every agent the server takes, its plugins' too
    _new_game(page, "multiplayer:players=3", "p1", "random", 4)
    assert page.locator("#play-board .seat").count() == 3
    assert page.text_content("#play-status") == "your decision: your turn"  # in words, not the engine's phase name


def test_a_team_game_over_names_both_winners(page):
    for seed in range(6, 12):  # (until a game is won: a stalemate names nobody)
        _new_game(page, "team", "p0", "random", seed)
        _play_out(page, seed)
        result = _game(page)["result"]
        status = page.text_content("#play-status")
        if result["status"] != "won":
            assert "nobody wins" in status
            continue
        assert len(result["winners"]) == 2 and f"{result['winners'][0]} and {result['winners'][1]} win" in status
        break
    else:
        pytest.fail("no Team game of six was won")


def test_one_stray_n_does_not_end_a_game_under_way(page):
    _new_game(page, "cuttle-cards", "p0", "random", 23)
    game = _game(page)
    _click_move(page, game["moves"][0])
    _wait_played(page, game["ply"])
    played = _game(page)["ply"]
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press("n")
    assert "press n again" in page.text_content("#play-status") and _game(page)["ply"] == played
    page.keyboard.press("n")
    page.wait_for_function("() => state.game.ply === 0 && !state.game.partial")


def test_a_preempted_search_leaves_the_new_one_its_stop_button(page):
    _analyse_on_the_page(page, "midgame-main-p0", iterations=300)
    page.fill("#an-iterations", "300000")
    page.click("#an-run")
    page.wait_for_function("() => document.getElementById('an-result-status').textContent.startsWith('searching… ')")
    first = page.evaluate("() => state.jobs.analyse")
    page.click("#an-run")  # again: the first is stopped and its last answer is stale
    # Stop is checked and clicked in the task that sees the second search under way (from the
    # test's side the search could end between the check and the click)
    seen = page.wait_for_function("""(first) => {
      if (!(state.jobs.analyse > first && state.analysisUpdates >= 2)) return false;
      const stop = document.getElementById('an-stop');
      const seen = {disabled: stop.disabled, final: document.getElementById('an-result-status').dataset.final};
      stop.click();
      return seen; }""", arg=first).json_value()
    assert not seen["disabled"]
    assert seen["final"] == "0"
    page.wait_for_selector("#an-result-status[data-final='1']")
    assert page.is_disabled("#an-stop") and "(cancelled)" in page.text_content("#an-result-status")


def test_a_taken_stack_is_drawn_under_the_seat_that_controls_it_too(page):
    from pathlib import Path

    from cuttle_search.game.position import Position

    data = Position.load(Path(__file__).parent.parent / "positions" / "cutthroat-joker-steals-king-p2.json").to_dict()
    data["seats"][1]["royals"] = ["KD(X1-p2)"]  # p2's Joker took p1's King
    data["seats"][2]["hand"].remove("X1")
    page.click("#tab-analyse")
    page.fill("#pos-text", json.dumps(data))
    page.click("#pos-load")
    page.wait_for_selector("#an-board .seat")
    assert page.locator("#an-board .seat[data-seat='p2'] .zone.taken svg[data-card='KD']").count() == 1
    assert "of p1" in page.text_content("#an-board .seat[data-seat='p2'] .zone.taken")
    assert page.locator("#an-board .seat[data-seat='p1'] .zone.taken").count() == 0


def test_the_analyse_page_shows_the_honest_figures_where_they_are_given(page):
    _analyse_on_the_page(page, "midgame-main-p0", iterations=5000)  # inside the map's 5,000 to 20,000
    headers = page.locator("#an-table th").all_text_contents()
    assert headers[headers.index("95% interval") + 1: headers.index("95% interval") + 3] == ["calibrated", "best reply"]
    for cls in ("calibrated", "best-reply"):
        values = page.locator(f"#an-table tr.row td.{cls}").all_text_contents()
        assert values and 0.0 <= float(values[0]) <= 1.0, cls
    # the bar draws the honest figure: each row's fill is its calibrated score, not its own
    assert "win rate (calibrated)" in headers
    assert _bar_fills(page) == pytest.approx(_column(page, "calibrated"), abs=0.0051)
    assert _bar_fills(page) != pytest.approx(_column(page, "score"), abs=0.0051)
    _analyse_on_the_page(page, "midgame-main-p0", iterations=1000)  # outside the map: the search's own score
    headers = page.locator("#an-table th").all_text_contents()
    assert "calibrated" not in headers and "win rate" in headers
    assert _bar_fills(page) == pytest.approx(_column(page, "score"), abs=0.0051)
    _analyse_on_the_page(page, "cutthroat-opening-p0", iterations=1000)  # three sides: not asked, no error
    assert page.locator("#an-table tr.row").count() >= 2
    headers = page.locator("#an-table th").all_text_contents()
    assert "best reply" not in headers and "calibrated" not in headers  # two-sided; 1,000 is outside the map
    _analyse_on_the_page(page, "cutthroat-opening-p0", iterations=5000)  # Cutthroat's map, not the back-up
    headers = page.locator("#an-table th").all_text_contents()
    assert "calibrated" in headers and "best reply" not in headers


@pytest.mark.parametrize("name", ["seven-reveal-p0", "counter-chain-full", "scuttle-block", "four-victim-p1",
                                  "cutthroat-joker-steals-king-p2", "multiplayer-4-counter-costs-turn-p3",
                                  "multiplayer-8-remove-ace-six-p0", "gamestate-cuttle-cards"])
def test_the_page_draws_every_kind_of_board(page, name):
    from pathlib import Path

    text = (Path(__file__).parent.parent / "positions" / f"{name}.json").read_text()
    page.click("#tab-analyse")
    page.fill("#pos-text", text)
    page.click("#pos-load")
    page.wait_for_selector("#an-board .seat")
    board = page.evaluate("() => state.position.board")
    assert page.locator("#an-board .seat").count() == len(board["seats"])
    named = sum(1 for s in board["seats"] for zone in ("hand", "points", "royals") for c in s[zone] if c["card"] != "??")
    assert page.locator("#an-board .seat svg.card[data-card]").count() >= named
    assert page.locator("#an-board .seat").last.get_attribute("data-seat") == board["order"][-1]


def test_a_bad_position_gets_one_line_naming_the_field(page):
    page.click("#tab-analyse")
    page.fill("#pos-text", '{"p0Hand": ["7H", "7H"]}')
    page.click("#pos-load")
    page.wait_for_selector("#error:not([hidden])")
    assert page.get_attribute("#error", "data-field") == "p0Hand[1]" or "7H" in page.text_content("#error")
    assert "\n" not in page.text_content("#error").strip()



def test_text_over_the_limit_is_refused_by_the_page_before_it_is_sent(page):
    """Text JSON escapes past the server's limit (a newline costs two bytes in the message):
    the page says so and keeps its socket, where the server used to close it."""
    page.click("#tab-analyse")
    page.evaluate("(n) => { document.querySelector('#pos-text').value = '\\n'.repeat(n); }",
                  LIMITS.max_request_bytes // 2 + 100)  # under the limit as text
    page.click("#pos-load")
    page.wait_for_selector("#error:not([hidden])")
    assert "above the server's limit" in page.text_content("#error")
    assert page.evaluate("() => state.ws.readyState") == 1  # still open
    page.fill("#pos-text", '{"p0Hand": ["7H", "7H"]}')
    page.click("#pos-load")
    page.wait_for_function("() => document.querySelector('#error').textContent.includes('7H')")


# ---------------------------------------------------------------- the socket, without a browser
def _ask(server: str, messages: list[dict | str], until: tuple[str, ...] = ("game", "error", "hint", "log")) -> list[dict]:
    """Send each message in turn over one websocket; the answer that ends each."""
    async def go() -> list[dict]:
        out = []
        async with websockets.connect(server.replace("http", "ws") + "/ws", max_size=None) as ws:
            for m in messages:
                await ws.send(m if isinstance(m, str) else json.dumps(m))
                while True:
                    reply = json.loads(await asyncio.wait_for(ws.recv(), 60))
                    if reply["type"] in until and not reply.get("partial"):
                        out.append(reply)
                        break
        return out

    return _run(go())


def _run(coroutine):
    """Run ``coroutine`` on a thread of its own (Playwright's sync API keeps a loop running here)."""
    out: list = []
    thread = threading.Thread(target=lambda: out.append(asyncio.run(coroutine)))
    thread.start()
    thread.join(120)
    assert out, "the websocket exchange did not finish"
    return out[0]


def test_requests_are_untrusted(server):
    replies = _ask(server, [
        "not json",
        "[1, 2]",
        {"type": "launch"},
        {"type": ["x" * 1000] * 50, "id": "y" * 5000},
        {"type": "play", "move": "draw"},
        {"type": "new", "rules": "cuttle-cards", "seat": "p9", "opponents": "random"},
        {"type": "new", "rules": "no-such-rules"},
        {"type": "new", "opponents": "ismcts:iterations=99999999"},
        {"type": "new", "opponents": "random", "seed": 2},
        {"type": "play", "move": "scuttle 8H 8C"},
        {"type": "play", "move": 999},
        {"type": "play", "move": int("9" * 4000)},
        {"type": "hint", "iterations": 10**9},
        {"type": "hint", "time": "soon"},
        {"type": "load", "position": "{"},
        {"type": "review", "game": {"format": "cuttle-search/game", "moves": "draw"}},
        "x" * (LIMITS.max_request_bytes + 10),
    ])
    errors = [(r["type"], r.get("field")) for r in replies]
    assert errors == [("error", "request"), ("error", "request"), ("error", "type"), ("error", "type"), ("error", "game"),
                      ("error", "seat"), ("error", "rules"), ("error", "opponents"), ("game", None),
                      ("error", "move"), ("error", "move"), ("error", "move"), ("error", "iterations"), ("error", "time"),
                      ("error", "position"), ("error", "start"), ("error", "request")]
    assert all("\n" not in r["error"] and len(json.dumps(r)) < 500 for r in replies if r["type"] == "error")


def test_a_small_cap_holds_the_default_budgets_and_the_opponents_defaults():
    """Under ``serve --max-iterations 500`` a blank budget is the default lowered to the cap,
    not a refusal of a number nobody typed; and an opponent's own default budget counts as
    much as one it is given (``ismcts`` searches 10,000 iterations a move unless told)."""
    from cuttle_search.hint import RequestError, SearchError, request_limit
    from cuttle_search.web.app import _check_agents

    small = ServerLimits(max_iterations=500, max_time=1.0, max_threads=1, max_request_bytes=4096)
    assert request_limit({}, {"iterations": 10_000}, small).iterations == 500
    assert request_limit({"iterations": 200}, {"iterations": 10_000}, small).iterations == 200
    with pytest.raises(SearchError, match="^iterations: "):
        request_limit({"iterations": 501}, {"iterations": 10_000}, small)
    for spec in ("ismcts", "pimc", "pimc-solver", "greedy;oracle"):
        with pytest.raises(RequestError, match=r"searches iterations=10000 by default, above the server's limit of "
                                               r"500 \(give it iterations=N within the limit\)"):
            _check_agents(spec, small)
    with pytest.raises(RequestError, match=r"^opponents: 'ismcts:time=5' asks for time=5\.0, above .* of 1 s$"):
        _check_agents("ismcts:time=5", small)
    with pytest.raises(RequestError, match="asks for worlds=600"):
        _check_agents("pimc-solver:iterations=100,worlds=600", small)
    _check_agents("ismcts:iterations=500;greedy;random;ismcts:time=1", small)  # within the caps
    with pytest.raises(RequestError, match="above the server's limit of 1,000,000$"):
        _check_agents("ismcts:iterations=5000000", ServerLimits(1_000_000, 20.0, 1, 4096))


def test_a_refused_request_leaves_no_pane_searching(page):
    from pathlib import Path

    _new_game(page, "cuttle-cards", "p0", "random", 3)
    for typed, words in (("99999999", "from 1 to 300,000"), ("5k", "'5k'")):
        page.fill("#hint-iterations", typed)
        page.click("#hint")
        page.wait_for_function("() => !document.getElementById('error').hidden")
        assert page.get_attribute("#error", "data-field") == "iterations"
        assert words in page.text_content("#error")
        assert page.text_content("#hint-status") == "not done: see the error message"
        assert page.is_disabled("#hint-stop")
    page.click("#tab-analyse")
    page.fill("#pos-text", (Path(__file__).parent.parent / "positions" / "midgame-main-p0.json").read_text())
    page.click("#pos-load")
    page.wait_for_selector("#an-board .seat")
    page.fill("#an-iterations", "abc")
    page.click("#an-run")
    page.wait_for_function("() => document.getElementById('an-result-status').textContent.startsWith('not done')")
    assert page.get_attribute("#error", "data-field") == "iterations"


def test_a_refused_first_load_shows_the_error_and_no_empty_board(page):
    page.click("#tab-analyse")
    assert not page.is_visible("#an-board")
    page.fill("#pos-text", '{"format": "cuttle-search/position", "rules": "nope"}')
    page.click("#pos-load")
    page.wait_for_function("() => !document.getElementById('error').hidden")
    assert "unknown ruleset 'nope'" in page.text_content("#error")
    assert not page.is_visible("#an-board") and page.is_disabled("#an-run")


HOSTILE = [None, True, -1, 0, 1, 3, 2**64, 1.5, float("nan"), float("inf"), "", " ", "x", "p0", "p9", "random",
           "greedy;random", "cutthroat", "team", "draw", "points 7H", "1", "\u0000", "é" * 300, [], [1], {}, {"a": 1},
           {"p0Hand": ["7H"]}, "{", "[]", {"format": "cuttle-search/game", "dealSeed": 1, "moves": ["draw"] * 3},
           json.loads((Path(__file__).parent.parent / "positions" / "deck-out-endgame.json").read_text())]
FIELDS = ["rules", "seat", "opponents", "seed", "move", "iterations", "time", "position", "game", "id"]


def test_hostile_messages_get_one_answer_each_and_never_an_internal_error(server):
    """A seeded fuzz of the socket: every message type with hostile values in its fields;
    each is answered (an error naming a field, or the answer), never as an internal error,
    and the socket keeps serving."""
    rng = random.Random(2024)
    kinds = ["new", "play", "undo", "hint", "log", "load", "analyse", "solve", "review", "ping", "stop"]
    messages = []
    for _ in range(150):
        msg = {"type": rng.choice(kinds)}
        own = [f for f in FIELDS if f in MESSAGE_FIELDS.get(msg["type"], ()) + ("id",)]
        pool = own if rng.random() < 0.8 else FIELDS  # mostly the fields a message reads; any other is refused
        for field in rng.sample(pool, rng.randrange(0 if len(pool) == 1 else 1, min(4, len(pool) + 1))):
            msg[field] = rng.choice(HOSTILE)
        if msg["type"] in ("load", "analyse", "solve") and rng.random() < 0.4:
            msg["position"] = HOSTILE[-1]  # a good position, with hostile other fields
        if msg["type"] in ("hint", "analyse", "review") and isinstance(msg.get("iterations"), int):
            msg["iterations"] = min(abs(msg["iterations"]), 50) or 1 if rng.random() < 0.5 else msg["iterations"]
        messages.append(msg)
    more = random.Random(2025)  # resuming a game: hostile logs and seeds
    for _ in range(25):
        messages.append({"type": "resume", **{f: more.choice(HOSTILE) for f in more.sample(["game", "seed", "id"], 2)}})

    async def go() -> list[dict]:
        out = []
        async with websockets.connect(server.replace("http", "ws") + "/ws", max_size=None) as ws:
            for msg in messages:
                await ws.send(json.dumps(msg))
                if msg["type"] == "stop":
                    continue
                while True:
                    reply = json.loads(await asyncio.wait_for(ws.recv(), 60))
                    if reply.get("partial") or reply["type"] in ("reviewProgress", "solveProgress"):
                        continue
                    out.append((msg, reply))
                    break
        return out

    kinds_answered = set()
    for msg, reply in _run(go()):
        assert reply.get("field") != "internal", (msg, reply)
        if reply["type"] == "error":
            assert reply["field"] and "\n" not in reply["error"], (msg, reply)
        else:
            kinds_answered.add(reply["type"])
    assert {"game", "pong", "position", "analysis"} <= kinds_answered  # not every message was refused


def test_a_field_a_message_does_not_read_is_refused_naming_it(server):
    async def go() -> list[dict]:
        async with websockets.connect(server.replace("http", "ws") + "/ws", max_size=None) as ws:
            out = []
            for msg in ({"type": "analyse", "position": {}, "allowMoves": ["draw"]}, {"type": "hint", "iteratons": 5},
                        {"type": "ping", "seed": 1}):
                await ws.send(json.dumps(msg))
                out.append(json.loads(await asyncio.wait_for(ws.recv(), 60)))
            return out

    allow, typo, ping = _run(go())
    assert allow["type"] == "error" and allow["field"] == "allowMoves"
    assert allow["error"] == "allowMoves: not a field of a message of type analyse"  # (it was ignored)
    assert typo["error"] == "iteratons: not a field of a message of type hint (did you mean 'iterations'?)"
    assert ping["error"] == "seed: not a field of a message of type ping" and ping["field"] == "seed"


def test_the_board_follows_each_opponents_move_before_the_persons_turn(server):
    """Several opponents: after a move the page gets the board after each of their moves
    (``partial``), then the final one with the person's next decision."""
    async def go() -> list[dict]:
        seen = []
        async with websockets.connect(server.replace("http", "ws") + "/ws", max_size=None) as ws:
            await ws.send(json.dumps({"type": "new", "rules": "multiplayer:players=5", "opponents": "random",
                                      "seed": 6}))
            first = json.loads(await asyncio.wait_for(ws.recv(), 60))
            await ws.send(json.dumps({"type": "play", "move": first["moves"][0]["text"]}))
            while True:
                reply = json.loads(await asyncio.wait_for(ws.recv(), 60))
                seen.append(reply)
                if reply["type"] != "game" or not reply.get("partial"):
                    return [first, *seen]

    first, *partials, final = _run(go())
    assert first["myTurn"] and final["type"] == "game" and not final.get("partial")
    assert final["myTurn"] or final["over"]
    assert partials and all(p["type"] == "game" and p["partial"] and not p["myTurn"] for p in partials)
    plies = [p["ply"] for p in partials] + [final["ply"]]
    assert plies == sorted(plies) and plies[0] > first["ply"]

    async def new_game_late_in_the_order() -> list[dict]:  # the seats before the person's move first
        seen = []
        async with websockets.connect(server.replace("http", "ws") + "/ws", max_size=None) as ws:
            await ws.send(json.dumps({"type": "new", "rules": "multiplayer:players=5", "seat": "p4",
                                      "opponents": "random", "seed": 6}))
            while True:
                seen.append(json.loads(await asyncio.wait_for(ws.recv(), 60)))
                if not seen[-1].get("partial"):
                    return seen

    *partials, final = _run(new_game_late_in_the_order())
    assert final["type"] == "game" and (final["myTurn"] or final["over"]) and partials
    assert all(p["type"] == "game" and p["partial"] and not p["myTurn"] for p in partials)


def test_a_new_request_stops_the_running_search(server):
    async def go() -> list[dict]:
        async with websockets.connect(server.replace("http", "ws") + "/ws") as ws:
            await ws.send(json.dumps({"type": "new", "opponents": "random", "seed": 9}))
            while json.loads(await ws.recv())["type"] != "game":
                pass
            await ws.send(json.dumps({"type": "hint", "time": 15}))
            while True:  # the search runs
                reply = json.loads(await ws.recv())
                if reply["type"] == "hint" and reply["partial"]:
                    break
            await ws.send(json.dumps({"type": "log"}))
            seen = []
            while True:
                reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
                seen.append(reply)
                if reply["type"] == "log":
                    return seen

    seen = _run(go())
    final = [r for r in seen if r["type"] == "hint" and not r["partial"]]
    assert final and final[0]["rootInfo"]["stopReason"] == "cancelled"


def test_closing_the_page_stops_its_search(server):
    async def go() -> None:
        ws = await websockets.connect(server.replace("http", "ws") + "/ws")
        await ws.send(json.dumps({"type": "new", "opponents": "random", "seed": 9}))
        while json.loads(await ws.recv())["type"] != "game":
            pass
        await ws.send(json.dumps({"type": "hint", "time": LIMITS.max_time}))
        while not json.loads(await ws.recv()).get("partial"):
            pass
        await ws.close()

    began = time.monotonic()
    _run(go())
    # not a speed check: the search asked for the server's whole time cap, so a page that is
    # gone only once that ran out would take all of it; a cancelled one leaves long before
    while APP.state.clients and time.monotonic() - began < LIMITS.max_time:
        time.sleep(0.05)
    assert not APP.state.clients, "the search went on after the page closed"


def _leave_during(server: str, message: dict) -> None:
    """Send ``message`` (a job that asks for the server's whole time cap), leave half a
    second later, and check the page's job has ended. Not a speed check: a job that ended
    only once its cap ran out would keep the page listed all that time."""
    async def go() -> None:
        ws = await websockets.connect(server.replace("http", "ws") + "/ws", max_size=None)
        await ws.send(json.dumps(message))
        await asyncio.sleep(0.5)
        await ws.close()

    began = time.monotonic()
    _run(go())
    while APP.state.clients and time.monotonic() - began < LIMITS.max_time:
        time.sleep(0.05)
    assert not APP.state.clients, f"the {message['type']} went on after the page closed"


def test_closing_the_page_stops_the_opponents_replies(server):
    """Opponents that search their whole time cap a move: the page leaves while the first
    thinks, and its job ends at once (it ran to the end of the replies before)."""
    _leave_during(server, {"type": "new", "rules": "cutthroat", "seat": "p2", "seed": 4,
                           "opponents": f"ismcts:time={LIMITS.max_time:g}"})


def test_closing_the_page_stops_a_review_within_a_decision(server):
    _leave_during(server, {"type": "review", "game": _game_log(3), "time": LIMITS.max_time})


def test_a_message_over_the_limit_is_answered_and_the_socket_stays_open(server):
    """A file's text grows when JSON escapes it: a message a little over the limit gets its
    error object, not a closed socket (which lost the page's game)."""
    async def go() -> list[dict]:
        async with websockets.connect(server.replace("http", "ws") + "/ws", max_size=None) as ws:
            await ws.send(json.dumps({"type": "load", "position": '"\n' * LIMITS.max_request_bytes}))
            await ws.send(json.dumps({"type": "ping", "id": "after"}))
            return [json.loads(await asyncio.wait_for(ws.recv(), 30)) for _ in range(2)]

    refused, pong = _run(go())
    assert refused["type"] == "error" and refused["field"] == "request"
    assert "longer than the server's limit" in refused["error"]
    assert pong == {"type": "pong", "id": "after"}


def test_a_page_that_does_not_read_is_read_no_further():
    """Final answers are not replaced as partial ones are: once ``MAX_OUTBOX`` wait for a
    page, the server reads none of its messages until the page takes some."""
    from cuttle_search.web.app import Client

    async def go() -> None:
        client = Client(object(), LIMITS, {})  # (no socket: nothing is sent)
        for k in range(MAX_OUTBOX):
            client.post({"type": "log", "id": k})
        with pytest.raises(asyncio.TimeoutError):  # (it would wait for ever: 0.2 s is a sample)
            await asyncio.wait_for(client.room_to_answer(), 0.2)
        client.outbox.get_nowait()
        await asyncio.wait_for(client.room_to_answer(), 5)

    _run(go())


def test_another_sites_page_cannot_use_the_board(server):
    """A websocket is not bound by CORS: a page of another site open in the same browser
    could reach the loopback. The board answers its own page only, and only to the
    loopback names (DNS rebinding)."""
    import urllib.error
    import urllib.request

    async def go(headers: dict) -> str:
        try:
            async with websockets.connect(server.replace("http", "ws") + "/ws", additional_headers=headers) as ws:
                await ws.send(json.dumps({"type": "ping"}))
                return json.loads(await asyncio.wait_for(ws.recv(), 10))["type"]
        except (websockets.exceptions.InvalidStatus, websockets.exceptions.ConnectionClosed) as e:
            return type(e).__name__

    assert _run(go({"Origin": server})) == "pong"
    assert _run(go({})) == "pong"  # not a browser: no Origin
    assert _run(go({"Origin": "http://evil.example"})) in ("ConnectionClosedError", "InvalidStatus")
    request = urllib.request.Request(server + "/api/meta", headers={"Host": "evil.example"})
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(request, timeout=10)
    assert e.value.code == 400
    with urllib.request.urlopen(server + "/api/meta", timeout=10) as r:
        assert json.loads(r.read())["limits"]["maxRequestBytes"] == LIMITS.max_request_bytes


def test_a_page_that_reads_slowly_gets_the_newest_partial_answer_only():
    from cuttle_search.web.app import Client

    class Socket:
        def __init__(self) -> None:
            self.sent: list[dict] = []

        async def send_text(self, text: str) -> None:
            self.sent.append(json.loads(text))

    async def go() -> list[dict]:
        ws = Socket()
        client = Client(ws, LIMITS, {})
        for k in range(100):  # a search's partial answers while the page is not reading
            client.post({"type": "hint", "id": 7, "partial": True, "k": k})
        client.post({"type": "hint", "id": 7, "partial": False, "k": "final"})
        await asyncio.sleep(0)
        assert client.outbox.qsize() == 2  # one partial answer waits, however many came
        sender = asyncio.ensure_future(client.sender())
        while len(ws.sent) < 2:
            await asyncio.sleep(0.01)
        sender.cancel()
        return ws.sent

    sent = _run(go())
    assert [m["k"] for m in sent] == [99, "final"]


def test_allowed_hosts():
    from cuttle_search.web.app import allowed_hosts_for

    assert allowed_hosts_for("127.0.0.1") == ["127.0.0.1", "localhost"]
    assert "board.lan" in allowed_hosts_for("board.lan")
    assert allowed_hosts_for("0.0.0.0") == ["*"]


def test_moves_name_the_cards_they_touch():
    from cuttle_search.game.moves import Move

    assert views.move_json(Move.parse("jack JS 7H"), 3) == {"n": 3, "text": "jack JS 7H", "kind": "jack",
                                                            "touches": ["JS", "7H"], "seat": None}
    assert views.move_json(Move.parse("discard 4H 9C"), 1)["touches"] == ["4H", "9C"]
    assert views.move_json(Move.parse("one-off 4C p2"), 1)["touches"] == ["4C"]
    assert views.move_json(Move.parse("one-off 4C p2"), 1)["seat"] == "p2"
    assert views.move_json(Move.parse("draw"), 1)["touches"] == []
    assert views.card_item("TH(JH-p0,JC-p1)") == {"card": "TH", "on": [{"card": "JH", "by": "p0"},
                                                                      {"card": "JC", "by": "p1"}]}
    assert views.card_item("JH-p0>p2") == {"card": "JH", "by": "p0", "to": "p2"}


def test_every_shipped_position_has_a_board():
    """Every position file loads into a board the page can draw: each seat's zones, the
    viewer at the bottom, and every card of the position in one place (hidden ones as ??),
    so every position of a ruleset shows as many cards."""
    from pathlib import Path

    from cuttle_search.game.formats import load_position

    files = sorted((Path(__file__).parent.parent / "positions").glob("*.json"))
    assert files
    totals: dict[str, set[int]] = {}
    for f in files:
        pos = load_position(f)
        out = json.loads(json.dumps(views.position_json(pos), allow_nan=False))
        board = out["board"]
        assert board["order"][-1] == (board["view"] if board["view"] != "full" else "p0"), f.name
        assert sorted(board["order"]) == sorted(s["seat"] for s in board["seats"]), f.name

        def count(items: list) -> int:
            return sum(1 + count(i.get("on", [])) for i in items)

        on_table = sum(count(s["hand"]) + count(s["points"]) + count(s["royals"]) + count(s["counters"])
                       for s in board["seats"])
        total = (on_table + board["deckCount"] + count(board["scrap"]) + count(board["twos"])
                 + count(board["revealed"]) + len(board["removed"]) + bool(board["pending"].get("oneOff"))
                 + bool(board["pending"].get("scuttle")))
        totals.setdefault(pos.rules.name, set()).add(total)
        if out["moves"]:
            assert [m["text"] for m in out["moves"]] == [m.text() for m in pos.legal_moves()]
    assert all(len(t) == 1 for t in totals.values()), totals  # no card lost: every position of a ruleset holds its whole pack
    assert totals["cuttle-cards"] == {52}


def test_side_shares_count_a_team_once():
    from cuttle_search.game.formats import load_position
    from pathlib import Path

    root = Path(__file__).parent.parent / "positions"
    team = load_position(root / "team-opening-p0.json")
    assert views.sides_of(team) == [[0, 2], [1, 3]]
    moves = [{"seatScores": {"p0": 0.6, "p1": 0.4, "p2": 0.6, "p3": 0.4}}]
    assert views.with_side_shares(moves, team)[0]["sideShares"] == [{"seats": ["p0", "p2"], "share": 0.6},
                                                                     {"seats": ["p1", "p3"], "share": 0.4}]
    assert views.sides_of(load_position(root / "cutthroat-opening-p0.json")) == [[0], [1], [2]]


def test_the_serve_command_serves_the_page():
    import os
    import re
    import subprocess
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "cuttle_search.cli", "serve", "--port", "0"],
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + 120
        url = None
        while url is None:
            line = proc.stderr.readline()
            assert line and time.monotonic() < deadline, "serve did not say where it listens"
            m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
            url = m.group(1) if m else None
        with urllib.request.urlopen(url, timeout=10) as r:
            page = r.read().decode()
        assert "<script src=\"/static/app.js\">" in page and "http" not in page.replace("http-equiv", "")
        with urllib.request.urlopen(url + "static/app.js", timeout=10) as r:
            assert b"new WebSocket" in r.read()
    finally:
        proc.terminate()
        proc.wait(20)


def test_serve_without_the_extra_says_what_to_install(monkeypatch):
    from click.testing import CliRunner

    from cuttle_search.cli import main

    monkeypatch.setitem(sys.modules, "starlette", None)
    result = CliRunner().invoke(main, ["serve"])
    assert result.exit_code == 2
    assert "pip install 'cuttle-search[web]'" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_frozen_cards_are_drawn_where_they_are():
    """The board's seats carry their own frozen cards in both file forms (a list each)."""
    from cuttle_search.game.position import Position
    from cuttle_search.web.views import board_json

    from .helpers import build

    two = board_json(build(p0Hand=["KH", "3C"], p1Hand=["4D"], frozen=["KH"], turn=2, actions=3))
    assert [s["frozen"] for s in two["seats"]] == [["KH"], []]
    cut = Position.deal("cutthroat", seed=4).to_dict()
    cut["turn"], cut["actions"] = 5, 5
    for seat in cut["seats"]:
        seat["frozen"] = []
    card = cut["seats"][2]["hand"][0]
    cut["seats"][2]["frozen"] = [card]
    three = board_json(Position.from_dict(cut))
    assert [s["frozen"] for s in three["seats"]] == [[], [], [card]]


def test_serve_refuses_an_ipv6_host():
    from click.testing import CliRunner

    from cuttle_search.cli import main

    r = CliRunner().invoke(main, ["serve", "--host", "::1"])
    assert r.exit_code == 2 and "IPv6 literals are not supported" in r.stderr


def test_the_static_review_report_selects_decisions_by_click_and_key(browser, tmp_path):
    """review --html writes a page of its own (no server): a click on a chart mark or a row,
    or the arrow keys, shows that decision's panel and no other."""
    from click.testing import CliRunner

    from cuttle_search.cli import main
    from cuttle_search.game.rules import get_ruleset
    from cuttle_search.play.agents import make_agent
    from cuttle_search.play.arena import play_game

    log = play_game(get_ruleset("cuttle-cards"), 5, (make_agent("greedy"), make_agent("random")), 5).to_json()
    game, report = tmp_path / "g.json", tmp_path / "r.html"
    game.write_text(json.dumps(log))
    r = CliRunner().invoke(main, ["review", str(game), "-n", "300", "--html", str(report), "--no-luck"])
    assert r.exit_code == 0, r.output
    pg = browser.new_page()
    try:
        pg.goto(report.as_uri())
        shown = "() => [...document.querySelectorAll('section.decision')].filter(s => !s.hidden).map(s => s.dataset.i)"
        assert pg.evaluate(shown) == ["0"]  # the first decision to begin with
        pg.click("circle.mark[data-i='3']")
        assert pg.evaluate(shown) == ["3"]
        assert pg.get_attribute("circle.mark[data-i='3']", "stroke") == "#000"
        pg.keyboard.press("ArrowRight")
        assert pg.evaluate(shown) == ["4"]
        pg.click("tr.decision[data-i='1']")
        assert pg.evaluate(shown) == ["1"]
        assert "seen from" in pg.inner_text("section.decision[data-i='1'] h2")
    finally:
        pg.close()


def test_serve_says_which_option_keeps_it_from_listening():
    """A host that does not resolve or is not this machine's names --host, a port in use
    names --port: exit 2 with click's one error line, not the web server's own message."""
    from click.testing import CliRunner

    from cuttle_search.cli import main
    from cuttle_search.web.app import ListenError, listening_socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        for args, option, says in ((["--host", "no.such.host.invalid"], "--host", "cannot resolve"),
                                   (["--host", "192.0.2.1"], "--host", "cannot listen on 192.0.2.1"),
                                   (["--port", str(port)], "--port", f"{port} on 127.0.0.1")):
            r = CliRunner().invoke(main, ["serve", *args])
            errors = [x for x in r.stderr.splitlines() if x.startswith("Error: ")]
            assert r.exit_code == 2 and len(errors) == 1, r.stderr
            assert f"Invalid value for {option}" in errors[0] and says in errors[0], errors
        with pytest.raises(ListenError) as e:
            listening_socket("127.0.0.1", port)
        assert e.value.param == "port"
    sock = listening_socket("127.0.0.1", 0)  # a free port: bound, for uvicorn to listen on
    try:
        assert sock.getsockname()[0] == "127.0.0.1" and sock.getsockname()[1] > 0
    finally:
        sock.close()


def test_an_answer_that_json_cannot_carry_reaches_its_pane_as_an_error(server, monkeypatch):
    """A defect that puts a NaN in an answer: the page hears of it as an error of the pane
    that asked (with the request's id), not as JSON it cannot parse, and the connection lives."""
    real = views.position_json
    monkeypatch.setattr(views, "position_json", lambda pos: {**real(pos), "broken": float("nan")})
    text = (Path(__file__).parent.parent / "positions" / "midgame-main-p0.json").read_text()

    async def go() -> list[dict]:
        async with websockets.connect(server.replace("http", "ws") + "/ws", max_size=None) as ws:
            out = []
            for msg in ({"type": "load", "id": 7, "position": text}, {"type": "ping", "id": 8}):
                await ws.send(json.dumps(msg))
                out.append(json.loads(await asyncio.wait_for(ws.recv(), 60)))
            return out

    load, pong = _run(go())
    assert load == {"type": "error", "for": "load", "id": 7, "error": "internal: a non-finite number", "field": "internal"}
    assert pong == {"type": "pong", "id": 8}
