"""Untrusted input: one regression test (or more) for each defect of the hardening issue.

Every bad input must end in one line naming the field (exit 2 from the command line, an
error object from ``hint``), never a traceback, a crash of compiled code or a wrong answer.
"""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from cuttle_search import hint as H
from cuttle_search.cli import main
from cuttle_search.engine import jit
from cuttle_search.engine import layout as L
from cuttle_search.engine.apply import apply_move
from cuttle_search.engine.movegen import generate_moves, moves_overflowed
from cuttle_search.engine.setup import BLANK_STATE, position_error
from cuttle_search.engine.table import hand_cap
from cuttle_search.game.cards import parse_card
from cuttle_search.game.errors import CuttleError
from cuttle_search.game.gamelog import GameLogError, check_game_log, replay
from cuttle_search.game.position import Position, PositionError
from cuttle_search.game.rules import get_ruleset

ROOT = Path(__file__).parent.parent
POS = ROOT / "positions"


def position(name: str) -> dict:
    return json.loads((POS / f"{name}.json").read_text())


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def refused(result, *fragments):
    """Exit 2 with one line on stderr holding every fragment, and no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.stderr)
    lines = [x for x in result.stderr.strip().splitlines() if not x.startswith("compiling the engine")]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    return lines[0]


def write(tmp_path, data, name="p.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def big_hand_position(cards: int, phase: str = "discardingToHandLimit") -> dict:
    """A full-information cuttle-cards position whose turn player holds ``cards`` cards."""
    pos = Position.deal("cuttle-cards", seed=3)
    d = pos.to_dict()
    deck = d["deck"]
    while len(d["p0Hand"]) < cards:
        d["p0Hand"].append(deck.pop())
    d["phase"] = phase
    return d


# ---------------------------------------------------------------- 1. compiled code in bounds
def test_the_generator_never_writes_past_its_buffer():
    # a 14-card hand discarding 6 has C(14, 6) = 3,003 choices: more than a buffer holds
    s = BLANK_STATE.copy()
    s[L.F_NPLAYERS] = 2
    s[L.F_HAND] = (1 << 14) - 1
    s[L.F_PHASE] = L.PH_HAND_LIMIT
    s[L.F_DISCARDS] = 6
    r = get_ruleset("cuttle-cards").array
    out = np.full(L.MAX_MOVES + 8, -7, np.int64)
    view = out[: L.MAX_MOVES]
    n = generate_moves(s, r, view)
    assert n == L.MAX_MOVES and moves_overflowed(view, n)
    assert (out[L.MAX_MOVES - 1 :] == -7).all()  # the reserved last slot and beyond untouched
    # driven to the edge with a small buffer: a 3-move decision fits in 4 slots, not in 3
    s[L.F_HAND] = 0b111
    s[L.F_DISCARDS] = 1
    small = np.full(4, -7, np.int64)
    assert generate_moves(s, r, small) == 3 and not moves_overflowed(small, 3) and small[3] == -7
    tiny = np.full(3, -7, np.int64)
    n = generate_moves(s, r, tiny)
    assert n == 3 and moves_overflowed(tiny, n) and tiny[2] == -7


@pytest.mark.parametrize("rules,cap", [("cuttle-cards", 10), ("cuttle-cards-2", 9), ("bga-balanced", 16), ("classic", 52)])
def test_hand_caps_follow_the_hand_limit(rules, cap):
    s = Position.deal(rules, seed=1).state.copy()
    s[L.F_PHASE] = L.PH_HAND_LIMIT if rules.startswith("cuttle") else L.PH_COUNTER
    assert hand_cap(s, get_ruleset(rules).array, 0) == cap


def test_moves_on_a_fourteen_card_discard_is_refused_not_a_crash(tmp_path):
    line = refused(run("moves", write(tmp_path, big_hand_position(14))), "p0Hand: 14 cards", "can hold more than 10")
    assert "hand limit: discard" in line


def test_analyse_on_a_thirteen_card_main_hand_is_refused(tmp_path):
    d = big_hand_position(13, "main")
    refused(run("analyse", write(tmp_path, d), "-n", "100"), "p0Hand: 13 cards", "can hold more than 9")


def test_fourteen_unknown_opponent_cards_are_refused(tmp_path):
    d = Position.deal("cuttle-cards", seed=3).to_dict()
    d["p1Hand"] += d["deck"][:8]
    d["deck"] = d["deck"][8:]
    d["view"] = "p0"
    d["p1Hand"] = ["??"] * 14
    d["deck"] = ["??"] * len(d["deck"])
    d.pop("deckKnown", None)
    refused(run("analyse", write(tmp_path, d), "-n", "100"), "p1Hand: 14 cards")


def test_the_hint_server_answers_an_oversized_hand_and_keeps_serving():
    good = json.dumps({"id": 2, "iterations": 50, "position": position("win-in-one-p0")})
    lines = json.dumps({"id": 1, "position": big_hand_position(14)}) + "\n" + good + "\n"
    out = io.StringIO()
    assert H.serve(io.StringIO(lines), out, {}) == 2
    first, second = (json.loads(x) for x in out.getvalue().splitlines())
    assert first["id"] == 1 and first["field"] == "p0Hand" and "14 cards" in first["error"]
    assert second["id"] == 2 and second["move"] == "royal KD"


# ---------------------------------------------------------------- 2. no tracebacks
@pytest.mark.parametrize(
    "text,fragment",
    [
        ("[" * 100000 + "]" * 100000, "nested deeper than 64"),
        ('{"turn": ' + "9" * 5000 + "}", "turn: a number of 5,000 digits; no field takes one longer than 100"),
        ({"turn": 2**63}, "turn: expected a whole number from 0 to 1,000,000"),
        ({"actions": 2**63}, "actions: expected a whole number"),
        ({"passes": 10**20}, "passes: expected a whole number"),
        ({"deckKnown": -(2**70)}, "deckKnown: expected a whole number"),
        ('{"p0": {"hand": 5}}', "p0.hand: expected a list of cards, got int"),
        ('{"p0": {"points": "7H"}}', "p0.points: expected a list of cards, got str"),
        ('{"p1": {"faceCards": {"a": 1}}}', "p1.faceCards: expected a list of cards, got dict"),
        ('{"p0": {"points": [{"id": "7H", "attachments": 3}]}}', "p0.points[0].attachments: expected a list"),
        ('{"p0": 7}', "p0: expected an object"),
        ('{"p0Hand": [' + ",".join(['"AC"'] * 60) + "]}", "p0Hand: 60 entries"),
    ],
)
def test_hostile_files_get_one_line(tmp_path, text, fragment):
    if isinstance(text, dict):  # a hostile field in an otherwise sound position
        text = position("opening-full") | text
    refused(run("show", write(tmp_path, text)), fragment)


def test_a_non_utf8_file_gets_one_line(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes('{"about": "caf\xe9"}'.encode("latin-1"))
    refused(run("moves", path), "is not UTF-8 text")


# ---------------------------------------------------------------- 3. caps in hint
@pytest.mark.parametrize(
    "fields,field,fragment",
    [
        ({"iterations": 1e30}, "iterations", "expected a whole number"),
        ({"iterations": 10**30}, "iterations", "from 1 to 10,000,000"),
        ({"time": float("inf")}, "time", "at most 60"),
        ({"time": 1e308}, "time", "at most 60"),
        ({"threads": 100000}, "threads", "expected a whole number from 1"),
        ({"runnersUp": -1}, "runnersUp", "from 0 to 64"),
        ({"seed": 2**64}, "seed", "from 0 to 9,223,372,036,854,775,807"),
        ({"iterations": 2, "threads": 2 if (os.cpu_count() or 1) < 3 else 3}, "threads", None),
        ({"rules": ["classic"]}, "rules", "expected a ruleset name"),
        ({"rules": " "}, "rules", "expected a ruleset name"),
        ({"id": [1, 2]}, "id", "expected a string, a number or null"),
    ],
)
def test_hint_caps(fields, field, fragment):
    req = {"id": 9, "position": position("win-in-one-p0"), **fields}
    text = json.dumps(req, allow_nan=True)
    limits = H.ServerLimits(max_threads=max(2, os.cpu_count() or 1))
    if field == "threads" and fragment is None:
        req["threads"] = 3
        req["iterations"] = 2
        limits = H.ServerLimits(max_threads=4)
        text = json.dumps(req)
        fragment = "3 threads for 2 iterations"
    ans = H.answer(text, {}, limits)
    assert ans["field"] == field and fragment in ans["error"], ans


def test_a_request_time_may_exceed_the_server_default_iterations():
    # a timed search runs in chunks of 256 iterations and looks at the clock after each, so
    # more than the default's 100 ran however slow the machine
    req = json.dumps({"id": 1, "time": 0.3, "position": position("opening-p0")})
    ans = H.answer(req, {"iterations": 100})
    assert "error" not in ans and ans["iterations"] > 100 and ans["stopReason"] == "time"


def test_an_oversized_request_line_is_refused_and_the_next_answered():
    big = '{"id": 1, "about": "' + "x" * 5000 + '"}'
    good = json.dumps({"id": 2, "iterations": 50, "position": position("win-in-one-p0")})
    out = io.StringIO()
    H.serve(io.StringIO(big + "\n" + good + "\n"), out, {}, H.ServerLimits(max_request_bytes=2000))
    first, second = (json.loads(x) for x in out.getvalue().splitlines())
    assert first["field"] == "request" and "longer than" in first["error"] and second["move"] == "royal KD"


def test_a_non_utf8_request_line_is_refused_on_a_binary_stream():
    good = json.dumps({"id": 2, "iterations": 50, "position": position("win-in-one-p0")}).encode()
    out = io.StringIO()
    H.serve(io.BytesIO(b'{"id": "\xff"}\n' + good + b"\n"), out, {})
    first, second = (json.loads(x) for x in out.getvalue().splitlines())
    assert "not UTF-8" in first["error"] and second["id"] == 2


def test_an_unexpected_failure_is_an_internal_error_and_the_server_goes_on(monkeypatch, capsys):
    calls = []

    def broken(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise ZeroDivisionError("boom")
        return real(*args, **kwargs)

    real = H.best_move
    monkeypatch.setattr(H, "best_move", broken)
    req = json.dumps({"id": 5, "iterations": 50, "position": position("win-in-one-p0")})
    out = io.StringIO()
    H.serve(io.StringIO(req + "\n" + req + "\n"), out, {})
    first, second = (json.loads(x) for x in out.getvalue().splitlines())
    assert first == {"id": 5, "error": "internal: ZeroDivisionError (the server logged it and goes on)", "field": "internal"}
    assert second["move"] == "royal KD"
    assert "ZeroDivisionError" in capsys.readouterr().err


# ---------------------------------------------------------------- 4. impossible positions
def _changed(name, **changes):
    """A shipped position with fields replaced (None: taken out)."""
    d = position(name)
    for k, v in changes.items():
        if v is None:
            d.pop(k, None)
        else:
            d[k] = v
    return d


@pytest.mark.parametrize(
    "data,fragment",
    [
        (_changed("midgame-main-p0", actions=1000), "actions: 1000 actions reach the limit of 1000"),
        (_changed("scuttle-block", scuttle={"cardId": "9S", "targetId": "X1"}), "scuttle: 9S on X1"),
        (_changed("scuttle-block", scuttle={"cardId": "9S", "targetId": "QC"}), "scuttle: 9S on QC"),
        (_changed("scuttle-block", scuttle={"cardId": "9S", "targetId": "7S"}), "scuttle: 9S on 7S"),
        (_changed("scuttle-block", scuttle={"cardId": "KD", "targetId": "8H"}, p0Hand=["3C", "9S"]), "scuttle: KD on 8H"),
        (_changed("frozen-queen-p1", rules="bga-traditional"), "frozen: "),
        (_changed("midgame-main-p0", passes=2), "passes: passes are counted but the deck is not empty"),
    ],
)
def test_impossible_positions_are_refused(tmp_path, data, fragment):
    refused(run("show", write(tmp_path, data)), fragment)


def _oneoff(card, target, player_points=("5C",)):
    """A countering position of p0's one-off ``card`` on ``target``."""
    d = Position.deal("cuttle-cards", seed=5).to_dict()
    for c in (card, target, "QH", "8S") + tuple(player_points):
        for zone in ("p0Hand", "p1Hand", "deck"):
            if c in d[zone]:
                d[zone].remove(c)
    d["p0Points"] = list(player_points)
    d["p1FaceCards"] = ["QH"]
    d["p1Points"] = ["8S"]
    d.update(phase="countering", oneOff=card, oneOffTarget=target, turn=4, actions=5)  # (4 turns, then the one-off)
    d["scrap"] = [target] if target not in ("QH", "8S") + tuple(player_points) else []
    return d


def test_a_two_aimed_at_a_point_card_or_at_its_own_side_is_refused(tmp_path):
    refused(run("show", write(tmp_path, _oneoff("2C", "8S"))), "oneOff: 2C on 8S")
    refused(run("show", write(tmp_path, _oneoff("9D", "5C"))), "oneOff: 9D on 5C")
    assert run("show", write(tmp_path, _oneoff("2C", "QH"))).exit_code == 0  # the lawful one loads


def test_a_seven_that_revealed_too_few_cards_is_refused(tmp_path):
    d = position("seven-reveal-p0")
    d["revealed"] = d["revealed"][:1]
    d["deck"] = d["deck"] + ["??"]
    refused(run("show", write(tmp_path, d)), "revealed: the 7 revealed fewer cards")


# ---------------------------------------------------------------- 5. options
@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_exploration_must_be_finite(value):
    r = run("analyse", POS / "win-in-one-p0.json", "-n", "100", "--exploration", value)
    assert r.exit_code == 2 and "--exploration" in r.stderr and "Traceback" not in r.output


@pytest.mark.parametrize("value", ["inf", "nan", "1e308"])
def test_time_must_be_finite(value):
    r = run("analyse", POS / "win-in-one-p0.json", "--time", value)
    assert r.exit_code == 2 and "--time" in r.stderr


# ---------------------------------------------------------------- 7. replay
def _log(tmp_path):
    logs = tmp_path / "logs"
    assert run("arena", "greedy", "random", "--games", "2", "--seed", "4", "--log-dir", logs).exit_code == 0
    return json.loads(sorted(logs.glob("*.json"))[0].read_text())


def test_replay_refuses_malformed_logs(tmp_path):
    log = _log(tmp_path)
    cases = [
        ([log], "log: expected a game log (a JSON object, as arena --log-dir and play --save write), got a list"),
        (log | {"moves": [7]}, "moves[0]: expected a move in text notation"),
        (log | {"players": None}, None),  # optional: replays, described without names
        (log | {"players": {"p0": 3}}, "players: expected an object"),
        ({k: v for k, v in log.items() if k != "dealSeed"}, None),
        (log | {"start": log["start"] | {"turn": 2**70}}, "start.turn: expected a whole number"),
        (log | {"moves": ["royal KZ"]}, "moves[0]:"),
        (log | {"format": "chess"}, "format: expected 'cuttle-search/game'"),
        (log | {"movez": log["moves"]}, "movez: not a field of a game log (did you mean 'moves'?)"),
        # a view's start: said as such, not as the deckKnown a view's deck then fails
        (log | {"start": log["start"] | {"view": "p0"}}, "start.view: a game log starts from a full-information"),
    ]
    for data, fragment in cases:
        path = write(tmp_path, data, "log.json")
        r = run("replay", path)
        if fragment is None:
            assert r.exit_code == 0, r.output
        else:
            refused(r, fragment)
    bad = tmp_path / "bytes.json"
    bad.write_bytes(b"\xff\xfe{}")
    refused(run("replay", bad), "not UTF-8")
    path = write(tmp_path, log, "log.json")
    refused(run("replay", path, "--export", tmp_path / "missing" / "dir" / "x.json"), "--export: cannot write")


def test_replay_api_checks_every_move(tmp_path):
    log = _log(tmp_path)
    with pytest.raises(GameLogError, match=r"moves\[0\]"):
        replay(check_game_log(log | {"moves": ["pass"] + log["moves"]}))
    assert replay(check_game_log(log)).is_over


def test_a_log_whose_result_contradicts_its_moves_is_refused(tmp_path):
    """Issue 26 item 10: the recorded result (winner, status) must be the end the moves
    reach, for replay (at any ply) and review; a log without a result still replays."""
    log = _log(tmp_path)
    other = "p1" if log["result"]["winner"] == "p0" else "p0"
    cases = [
        (log | {"result": {"status": "won", "winner": other}}, "result.winner: the log says"),
        (log | {"result": {"status": "stalemate (three passes)", "winner": None}}, "result.status: the log says"),
        (log | {"result": {"status": "ongoing", "winner": None}}, "result.status: the log says 'ongoing'"),
        (log | {"result": {"winner": log["result"]["winner"]}}, "result.status: the log says null"),
        (log | {"result": None}, "result: expected an object"),
        (log | {"result": "p0"}, "result: expected an object"),
        (log | {"moves": log["moves"][:-1]}, "result.status: the log says 'won', but its moves end the game ongoing"),
    ]
    for data, fragment in cases:
        path = write(tmp_path, data, "log.json")
        refused(run("replay", path), fragment)
        refused(run("replay", path, "--ply", "1"), fragment)
        refused(run("review", path, "-n", "10"), fragment)
        with pytest.raises(GameLogError, match="result"):
            replay(check_game_log(data), 0)
    no_result = {k: v for k, v in log.items() if k != "result"}
    assert replay(check_game_log(no_result)).is_over
    shortened = log | {"moves": log["moves"][:-1], "result": {"status": "ongoing", "winner": None}}
    assert not replay(check_game_log(shortened)).is_over


# ---------------------------------------------------------------- 8. paths
def test_a_directory_as_position_is_one_line(tmp_path):
    refused(run("show", tmp_path), "is a directory")
    refused(run("analyse", tmp_path), "is a directory")


def test_one_base_class_for_input_errors():
    from cuttle_search.play.agents import AgentError
    from cuttle_search.game.moves import IllegalMoveError, MoveError
    from cuttle_search.game.rules import RulesError
    from cuttle_search.analysis import SearchError

    for cls in (PositionError, MoveError, SearchError, RulesError, AgentError, GameLogError):
        assert issubclass(cls, CuttleError)
    assert issubclass(IllegalMoveError, MoveError)


# ---------------------------------------------------------------- 9. read-only installs
def test_no_writable_cache_directory_compiles_in_memory(tmp_path):
    """A copy of the package whose cache directory cannot be created, with no writable
    home or temporary directory, still answers (compiling in memory)."""
    pkg = tmp_path / "ro"
    import shutil

    shutil.copytree(ROOT / "cuttle_search", pkg / "cuttle_search", ignore=shutil.ignore_patterns("__pycache__"))
    (pkg / "cuttle_search" / "engine" / "__pycache__").write_text("not a directory")
    blocked = tmp_path / "file"
    blocked.write_text("")
    code = (
        "import os; from cuttle_search.engine import jit; from cuttle_search.game.position import Position;"
        "print(jit.CACHE, os.environ['NUMBA_CACHE_DIR'], len(Position.deal('cuttle-cards', seed=1).legal_moves()))"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(PYTHONPATH=str(pkg), HOME=str(blocked / "home"), XDG_CACHE_HOME=str(blocked / "cache"),
               TMPDIR=str(blocked / "tmp"), PYTHONDONTWRITEBYTECODE="1")
    import tempfile

    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600,
                         cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr[-2000:]
    cache_flag, cache_dir, moves = out.stdout.split()
    assert int(moves) == len(Position.deal("cuttle-cards", seed=1).legal_moves())
    # the package's own directory and the home cache are refused; the system temporary
    # directory (Python's fallback for a bad TMPDIR) takes the cache
    assert cache_flag == "True" and cache_dir.endswith(f"cuttle_search-numba-{os.getuid()}")
    assert Path(cache_dir).parent == Path(tempfile.gettempdir())


def test_hands_never_pass_their_cap_in_play():
    """The proof of ``hand_cap`` checked in play: random games that favour draws and 9s (the
    ways a hand grows) in every hand-limit style; every state stays loadable."""
    import random

    for spec in ("cuttle-cards", "cuttle-cards-2", "bga-balanced", "cuttle-cards:hand-limit=block",
                 "classic:hand-limit=discard"):
        for g in range(12):
            pos = Position.deal(spec, seed=g)
            rng = random.Random(g)
            s, r = pos.state, pos.rules_array
            while not pos.is_over:
                for q in range(2):
                    assert bin(int(s[L.F_HAND + q])).count("1") <= hand_cap(s, r, q), (spec, g)
                assert position_error(s, r) == (0, 0), (spec, g)
                codes = list(pos.legal_codes())
                grow = [c for c in codes if c & 15 == L.MT_DRAW or (c & 15 == L.MT_ONE_OFF and (c >> 7) & 15 == 8)]
                apply_move(s, r, np.int64(rng.choice(grow) if grow and rng.random() < 0.7 else rng.choice(codes)))


def test_the_cache_choice_falls_back_to_memory(monkeypatch):
    import cuttle_search.engine as E

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(E, "_writable", lambda d: False)
    assert E._choose_cache() is False
    made = jit.njit(cache=True)(lambda x: x + 1)
    assert made(1) == 2  # compiled, nothing written


# ---------------------------------------------------------------- 10. warm-up and notices
def test_warmup_compiles_every_kernel():
    from cuttle_search.warmup import warm_up

    warm_up()
    assert jit.uncached_kernels() == []


def test_warmup_needs_nothing_outside_the_package(monkeypatch):
    """An installed wheel has no positions/ folder: warm_up reads no file there (its solver
    position is written in the module, the same as positions/deck-out-endgame.json)."""
    import builtins

    from cuttle_search import warmup

    assert warmup.DECK_OUT_ENDGAME == json.loads((POS / "deck-out-endgame.json").read_text())
    outside = Path(__file__).resolve().parent.parent / "positions"
    read = []

    def guard(real):
        def opened(path, *args, **kwargs):
            if isinstance(path, (str, Path)) and Path(path).resolve().is_relative_to(outside):
                read.append(str(path))
                raise FileNotFoundError(path)
            return real(path, *args, **kwargs)
        return opened

    monkeypatch.setattr(builtins, "open", guard(builtins.open))
    monkeypatch.setattr(io, "open", guard(io.open))
    monkeypatch.setattr(Path, "open", lambda self, *a, **k: guard(io.open)(self, *a, **k))
    warmup.warm_up()
    assert read == []


def _arrays_returned_without_reference_counting() -> tuple[list[str], int]:
    """The kernels compiled without Numba's reference counting that return an array (or a
    list), among those with compiled code in this process, and how many were looked at."""
    from numba.core import types

    def holds_a_buffer(t) -> bool:  # an array or list, at any depth of tuples and optionals
        if isinstance(t, (types.Array, types.List, types.ListType)):
            return True
        if isinstance(t, types.BaseTuple):
            return any(holds_a_buffer(u) for u in t.types)
        if isinstance(t, types.Optional):
            return holds_a_buffer(t.type)
        return not isinstance(t, (types.Number, types.Boolean, types.NoneType))

    bad, checked = [], 0
    for d in jit.KERNELS:
        if jit._name(d.py_func) in jit.COUNTED:
            continue
        for cres in d.overloads.values():
            if holds_a_buffer(cres.signature.return_type):
                bad.append(jit._name(d.py_func))
            checked += 1
    return bad, checked


def test_no_kernel_without_reference_counting_returns_an_array():
    """A kernel compiled without Numba's reference counting hands back no new reference, so
    the caller of one that returned an array would free a buffer still in use (see jit).
    Loaded from the cache, only the kernels called from Python have compiled code here;
    the slow test below compiles every kernel afresh."""
    from cuttle_search.warmup import warm_up

    warm_up()
    bad, checked = _arrays_returned_without_reference_counting()
    assert bad == [] and checked >= 20


def test_the_reference_counting_check_finds_a_kernel_that_returns_an_array(monkeypatch):
    monkeypatch.setattr(jit, "KERNELS", [])
    monkeypatch.setattr(jit, "COUNTED", set())

    def same(a):  # (Numba refuses to compile a view returned without reference counting)
        return a

    made = jit.njit(cache=False)(same)
    made(np.zeros(3, np.int64))
    bad, checked = _arrays_returned_without_reference_counting()
    assert checked == 1 and bad == [jit._name(same)]


@pytest.mark.slow
def test_no_kernel_without_reference_counting_returns_an_array_when_compiled_afresh(tmp_path):
    code = ("from cuttle_search.warmup import warm_up; warm_up(); "
            "import json; from tests.test_untrusted import _arrays_returned_without_reference_counting as f; "
            "print(json.dumps(f()))")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=900,
                         cwd=Path(__file__).parent.parent)
    assert out.returncode == 0, out.stderr[-2000:]
    bad, checked = json.loads(out.stdout.strip().splitlines()[-1])
    assert bad == [] and checked >= 150, (bad, checked)


@pytest.mark.parametrize("args", [("moves", POS / "win-in-one-p0.json"), ("perft", POS / "opening-full.json", "-d", "1"),
                                  ("selfplay", "--games", "2"), ("show", POS / "win-in-one-p0.json")])
def test_every_engine_command_says_when_it_compiles(monkeypatch, args):
    monkeypatch.setattr(jit, "_warned", False)
    monkeypatch.setattr(jit, "uncached_kernels", lambda: ["generate_moves"])
    r = run(*args)
    assert r.exit_code == 0 and "compiling the engine" in r.stderr


def test_the_hint_server_loads_the_search_before_the_first_request(monkeypatch):
    import cuttle_search.analysis as A

    calls = []
    real_analyse, real_serve = A.analyse, H.serve
    monkeypatch.setattr(A, "analyse", lambda *a, **k: calls.append("search") or real_analyse(*a, **k))
    monkeypatch.setattr(H, "serve", lambda *a, **k: calls.append("serve") or real_serve(*a, **k))
    req = json.dumps({"id": 1, "iterations": 200, "seed": 1, "position": position("midgame-main-p0")})
    r = run("hint", input=req + "\n")
    ans = json.loads(r.stdout)
    assert r.exit_code == 0 and ans["iterations"] == 200
    assert calls[:2] == ["search", "serve"]  # a search ran (loading the kernels) before the first request


@pytest.mark.slow  # wall clock
def test_the_first_hint_answer_is_search_time_only():
    req = json.dumps({"id": 1, "iterations": 200, "seed": 1, "position": position("midgame-main-p0")})
    r = run("hint", input=req + "\n")
    ans = json.loads(r.stdout)
    assert r.exit_code == 0 and ans["iterations"] == 200 and ans["seconds"] < 1.0


@pytest.mark.parametrize(
    "spec,fragment",
    [
        ("pimc:iterations=99999999999999999999", "iterations must be a finite number at most 1,000,000,000"),
        ("ismcts:c=inf", "c must be a finite number at most 1,000"),
        ("ismcts:time=nan", "time must be a finite number"),
        ("ismcts:iterations=" + "9" * 5000, "iterations must be at most 1,000,000,000"),
    ],
)
def test_agent_specs_are_checked_before_any_game(spec, fragment):
    refused(run("arena", spec, "random", "--games", "2"), fragment)


# ---------------------------------------------------------------- issue 26 item 11: arena results files
def _saved(tmp_path, *args, name="m.jsonl"):
    """A results file the arena wrote (``--save``), as its header and unit lines."""
    path = tmp_path / name
    r = run("arena", "greedy", "random", "--seed", "3", "--save", path, *args)
    assert r.exit_code == 0, r.output
    head, *units = path.read_text().splitlines()
    return path, head, [json.loads(u) for u in units]


def _resume_refused(path, head, units, args, *fragments):
    path.write_text("\n".join([head] + [u if isinstance(u, str) else json.dumps(u) for u in units]) + "\n")
    return refused(run("arena", "greedy", "random", "--seed", "3", "--resume", path, *args), *fragments)


def _edit(unit, game=None, **changes):
    out = json.loads(json.dumps(unit))
    if game is None:
        out.update(changes)
    else:
        out["games"][game].update(changes)
    return out


def test_resume_refuses_pairs_no_match_can_produce(tmp_path):
    args = ("-n", "4")
    path, head, units = _saved(tmp_path, *args)
    u = units[0]
    assert [g["aSeat"] for g in u["games"]] == [0, 1]
    cases = [
        (_edit(u, 1, aSeat=0), "line 2: games[1].aSeat: 0, but A sits in seat 1"),
        (_edit(u, 0, plies=0), "line 2: games[0].plies: must be a whole number 1-1000"),
        (_edit(u, 0, plies=1001), "line 2: games[0].plies: must be a whole number 1-1000"),
        (_edit(u, 0, aDecisions=u["games"][0]["plies"]), "line 2: games[0].aDecisions:"),
        (_edit(u, 1, aDecisions=0, aSeconds=0.5), "line 2: games[1].aSeconds: 0.5 seconds of thinking over 0 decisions"),
        (_edit(u, 1, bDecisions=0, bSeconds=0.5), "line 2: games[1].bSeconds: 0.5 seconds of thinking over 0 decisions"),
    ]
    for bad, fragment in cases:
        _resume_refused(path, head, [bad] + units[1:], args, fragment)
    _resume_refused(path, head, [units[0], "", units[1]], args, "line 3 is blank")
    path.write_text("\n".join([head] + [json.dumps(x) for x in units]) + "\n")  # the file as saved still resumes
    assert run("arena", "greedy", "random", "--seed", "3", "--resume", path, *args).exit_code == 0


def test_resume_refuses_matches_their_rounds_do_not_give(tmp_path):
    args = ("-n", "2", "--match", "bo3")
    path, head, units = _saved(tmp_path, *args)
    u = units[0]
    games, matches = u["games"], u["matches"]
    flipped = [1.0 - m if m != 0.5 else 1.0 for m in matches]
    _resume_refused(path, head, [_edit(u, matches=flipped)], args, "line 2: matches[0]:", "its rounds' scores give")
    _resume_refused(path, head, [_edit(u, games=games + games[-1:])], args,
                    f"line 2: games: {len(games) + 1} games, but the unit's matches end after {len(games)}")
    _resume_refused(path, head, [_edit(u, games=games[:-1])], args, "line 2: games")
    seats = [(g["aSeat"] + 1) % 2 for g in games]
    _resume_refused(path, head, [_edit(u, games=[dict(g, aSeat=s) for g, s in zip(games, seats)])], args,
                    "line 2: games[0].aSeat: 1, but A sits in seat 0 in round 0 of match 0")


def test_resume_refuses_rotations_no_match_can_produce(tmp_path):
    args = ("-n", "3", "--rules", "cutthroat")
    path, head, units = _saved(tmp_path, *args)
    u = units[0]
    dealer = u["games"][0]["dealer"]
    assert {g["dealer"] for g in u["games"]} == {dealer}  # quick: every game of a rotation on the one deal
    other = (dealer + 1) % 3
    _resume_refused(path, head, [_edit(u, 2, dealer=other)], args,
                    f"line 2: games[2].dealer: {other}, but round 0 of a rotation is dealt by seat {dealer}")
    order = [u["games"][1], u["games"][0], u["games"][2]]
    _resume_refused(path, head, [_edit(u, games=order)], args, "line 2: games[0].aSeat: 1, but A sits in seat 0")
    args = ("-n", "3", "--rules", "cutthroat", "--match", "short")
    path, head, units = _saved(tmp_path, *args, name="short.jsonl")
    u = units[0]
    won = next(k for k, g in enumerate(u["games"]) if g["score"] == 1)  # a match A took in one round
    again = u["games"][:won + 1] + [u["games"][won]] + u["games"][won + 1:]
    _resume_refused(path, head, [_edit(u, games=again)], args, f"line 2: games[{won + 1}]: round 1 of match",
                    "the match was over after round 0")


def test_resume_caps_the_file_size_before_reading_it(tmp_path):
    from cuttle_search.game.rules import find_ruleset
    from cuttle_search.play.arena import MAX_GAMES, MAX_LINE, max_results_bytes, max_unit_line

    rs = find_ruleset("cuttle-cards")
    line = max_unit_line(rs, "quick")
    assert max_results_bytes(rs, "quick") == MAX_LINE + MAX_GAMES // 2 * line
    assert max_unit_line(rs, "bo5") > 20 * line  # up to 25 rounds a match
    path, head, _units = _saved(tmp_path, "-n", "2")
    with path.open("r+b") as f:  # sparse: as large as the cap allows, plus one byte
        f.truncate(max_results_bytes(rs, "quick") + 1)
    refused(run("arena", "greedy", "random", "--seed", "3", "--resume", path, "-n", "2"),
            "more than the largest results file a cuttle-cards arena with --match quick can write")
    # blank lines (30 MB of them took 54 s) are refused at the first, read line by line
    path.write_text(head + "\n" + "\n" * 3_000_000)
    refused(run("arena", "greedy", "random", "--seed", "3", "--resume", path, "-n", "2"), "line 2 is blank")
    # an over-long line is refused where it is, never taken for a cut last line and cut away
    text = head + "\n" + "[" + " " * MAX_LINE + "]\n" + json.dumps(_units[0]) + "\n"
    path.write_text(text)
    refused(run("arena", "greedy", "random", "--seed", "3", "--resume", path, "-n", "2"),
            f"line 2 is longer than {MAX_LINE} bytes")
    assert path.read_text() == text


# ---------------------------------------------------------------- the review of session 17
def _gamestate_with_frozen(frozen) -> dict:
    """An unpacked cuttle.cards GameState whose p0 holds a card marked ``isFrozen``."""
    data = {"gameId": 1, "phase": 1, "turn": 20, "frozen": frozen,
            "p0": {"hand": [{"id": "3D", "isFrozen": True}, {"id": "JS"}], "points": [{"id": "5H"}], "faceCards": []},
            "p1": {"hand": [{"id": "AD"}, {"id": "2D"}, {"id": "4S"}, {"id": "9C"}], "points": [{"id": "3C"}],
                   "faceCards": []},
            "scrap": ["2H", "6D", "QS"], "oneOff": None, "oneOffTarget": None, "twos": []}
    used = {"3D", "JS", "5H", "AD", "2D", "4S", "9C", "3C", "2H", "6D", "QS"}
    data["deck"] = [f"{r}{s}" for r in "A23456789TJQK" for s in "CDHS" if f"{r}{s}" not in used]
    return data


def test_a_gamestate_frozen_card_beside_any_frozen_field(tmp_path):
    for frozen in (None, []):  # the older null, the list: both read, the marked card frozen
        pos = Position.from_dict(_gamestate_with_frozen(frozen))
        assert pos.frozen(0) == 1 << parse_card("3D")
    path = tmp_path / "gs.json"
    path.write_text(json.dumps(_gamestate_with_frozen({"a": 1})))
    refused(run("show", path), "frozen[0]: expected a card string or a card object", '{"a": 1}')
    path.write_text(json.dumps(_gamestate_with_frozen("JS")))  # the older single card, then the marked one
    refused(run("show", path), "frozen: p0 holds 2 frozen cards (3D JS)")


def test_json_with_a_key_twice_or_a_lone_surrogate_is_refused(tmp_path):
    text = json.dumps({k: v for k, v in position("opening-p0").items() if k != "about"})
    path = tmp_path / "twice.json"
    path.write_text(text.replace('{', '{"about": "a", "about": "b",', 1))
    refused(run("show", path), "the key 'about' appears twice in one object")
    out = H.answer('{"id": 1, "id": 2}', {})
    assert out["field"] == "request" and "appears twice" in out["error"]
    assert Position.from_json(text.replace('{', '{"about": "\\ud83d\\ude00",', 1)).about == "\U0001F600"  # a pair
    for where in ('"about": "x\\ud800"', '"\\udc00": 1'):
        with pytest.raises(PositionError, match="lone UTF-16 surrogate"):
            Position.from_json(text.replace('{', '{' + where + ',', 1))
    log = tmp_path / "log.json"
    result = run("arena", "random", "random", "--games", "1", "--log-dir", tmp_path / "logs")
    assert result.exit_code == 0, result.output
    data = (tmp_path / "logs" / "pair00000-game0.json").read_text()
    log.write_text(data.replace('"random"', '"random\\ud800"', 1))
    refused(run("review", log, "-n", "20", "--no-luck"), "lone UTF-16 surrogate")
    refused(run("replay", log), "lone UTF-16 surrogate")


def option_refused(result, option, *fragments):
    """A command-line option out of its range: exit 2, click's usage and one error line
    naming the option, no traceback."""
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), (result.exit_code, result.stderr)
    errors = [x for x in result.stderr.splitlines() if x.startswith("Error: ")]
    assert len(errors) == 1 and f"Invalid value for '{option}'" in errors[0], result.stderr
    assert "Traceback" not in result.stderr and all(f in errors[0] for f in fragments), result.stderr


def test_solve_and_selfplay_budgets_have_bounds():
    import cuttle_search

    endgame = POS / "deck-out-endgame.json"
    option_refused(run("solve", endgame, "--nodes", 2**63), "--nodes")
    for t in ("inf", "nan", "1e308"):
        option_refused(run("solve", endgame, "--time", t), "--time", "is not a finite number")
    option_refused(run("selfplay", "--games", 10**20), "--games")
    pos = Position.load(endgame)
    for kw in ({"time": float("inf")}, {"time": float("nan")}, {"nodes": 2**70}, {"nodes": True}):
        with pytest.raises(cuttle_search.SearchError, match="nodes|time"):
            cuttle_search.solve(pos, **kw)
    from cuttle_search.play.selfplay import run_selfplay

    with pytest.raises(CuttleError, match="games: expected a whole number from 1 to 10,000,000"):
        run_selfplay(get_ruleset("cuttle-cards"), 10**12, 0)


def test_hint_fields_sent_as_null_take_their_defaults():
    base = position("opening-p0")
    plain = H.answer(json.dumps({**base, "id": 1, "iterations": 300, "seed": 4}), {})
    nulls = H.answer(json.dumps({**base, "id": 1, "iterations": 300, "seed": 4, "moves": None,
                                 "analyzeTurns": None, "position": None, "rules": None}), {})
    assert "error" not in nulls and nulls["move"] == plain["move"] and nulls["score"] == plain["score"]
    nested = H.answer(json.dumps({"id": None, "position": base, "iterations": 300, "seed": 4,
                                  "moves": None, "threads": None}), {})
    assert nested["id"] is None and nested["move"] == plain["move"]


def test_an_agent_parameter_given_twice_or_without_a_value_is_refused():
    for spec, says in (("ismcts:iterations=10,iterations=20", "iterations is given twice"),
                       ("ismcts:iterations", "iterations needs a value (iterations=...)")):
        refused(run("arena", spec, "random", "--games", "2"), says)


def test_a_game_log_names_only_its_seats_and_its_version(tmp_path):
    result = run("arena", "random", "random", "--games", "1", "--log-dir", tmp_path)
    assert result.exit_code == 0, result.output
    path = tmp_path / "pair00000-game0.json"
    data = json.loads(path.read_text())
    assert data["version"] == 1 and replay(check_game_log(data)).is_over
    for edit, says in (({"players": {"p0": "random", "p5": "random"}}, "players: 'p5' is not a seat of cuttle-cards (p0, p1)"),
                       ({"version": 99}, "version: expected 1"), ({"version": "1"}, "version: expected 1"),
                       ({"version": None}, "version: expected 1")):
        path.write_text(json.dumps({**data, **edit}))
        refused(run("replay", path), says)
    del data["version"]  # a log without one is read as version 1
    path.write_text(json.dumps(data))
    assert run("replay", path).exit_code == 0
    refused(run("replay", path, "--view", "p1"), "--view: the game is over after", "give --ply")
    assert run("replay", path, "--view", "p1", "--ply", "3").exit_code == 0


def test_a_history_row_writes_cards_where_it_writes_them():
    from cuttle_search.game.gamelog import read_game

    from .test_review import _game, _history

    rows = _history(_game(12))
    draw = next(i for i, r in enumerate(rows) if r["moveType"] == "draw")
    points = next(i for i, r in enumerate(rows) if r["moveType"] == "points")
    for i, edit, says in ((draw, {"targetCard": "ZZ"}, f"rows[{draw}].targetCard: unknown card 'ZZ'"),
                          (points, {"discardedCards": "6S"}, f"rows[{points}].discardedCards: expected a list of cards"),
                          (points, {"discardedCards": ["KS", 7]}, f"rows[{points}].discardedCards[1]"),
                          (0, {"moveType": "points"}, "rows[0].moveType: expected 'initialize'")):
        bad = [dict(r) for r in rows]
        bad[i].update(edit)
        with pytest.raises(GameLogError) as e:
            read_game(bad)
        assert says in str(e.value)
    read_game(rows)  # the untouched history still loads


def test_fields_that_mean_nothing_where_they_are_written_are_refused():
    two = position("opening-p0")  # a view of p0: its deck names no card on top
    assert Position.from_dict({**two, "deckKnown": 0}).deck_known == 0  # may be given, if it counts them
    for bad in (2, 1.5, "3", -1):
        with pytest.raises(PositionError, match="deckKnown"):
            Position.from_dict({**two, "deckKnown": bad})
    seats = Position.deal("cutthroat", seed=3).view_of(0).to_dict()  # phase main
    for key, says in (("chainTop", "on top of a counter chain"), ("asked", "asked to counter or answer"),
                      ("victim", "discarding to a 4")):
        assert Position.from_dict({**seats, key: None}).phase == L.PH_MAIN
        with pytest.raises(PositionError, match=f"{key}: set in phase 'main', where no seat is {says}"):
            Position.from_dict({**seats, key: "p1"})


# ---------------------------------------------------------------- the second review of session 17
def test_a_seat_out_of_range_is_refused_not_a_crash():
    pos = Position.deal(seed=3)
    for method, seat in (("view_of", 2**40), ("points", 2**40), ("goal", -2**40), ("hand", 100), ("face", 2),
                         ("view_of", -1), ("view_of", None), ("view_of", True), ("view_of", 1.0), ("share_of", 9),
                         ("deck_known_to", 5)):
        with pytest.raises(PositionError, match="expected a seat p0 to p1"):
            getattr(pos, method)(seat)
    assert pos.view_of(np.int64(1)).view == 1 and pos.view_of("p1").view == 1
    with pytest.raises(PositionError, match="view: expected a seat p0 to p2"):
        Position.deal("cutthroat").view_of(2**33)


def test_moves_are_played_on_the_full_position_not_on_a_view():
    view = Position.load(POS / "midgame-main-p0.json")
    before = view.state.copy()
    for move in ("draw", view.legal_moves()[0], {"moveType": "draw"}):
        with pytest.raises(PositionError, match="view: moves are played on the full-information position"):
            view.play(move)
        with pytest.raises(PositionError, match="view: moves are played"):
            view.push(view.legal_moves()[0])
    assert (view.state == before).all()
    full = Position.deal(seed=3)
    for bad in (None, 1, b"draw", 2.5):
        with pytest.raises(CuttleError, match="move: expected a Move, move text or a JSON move body"):
            full.copy().play(bad)
    assert full.copy().play({"moveType": "draw"}).text() == "draw"  # a JSON body, as cuttle.cards writes it


def test_the_deal_with_its_top_known_is_a_position_the_files_take():
    """Review's luck of a first-move draw builds the deal with the drawn card known: it
    must load back (it was refused as 'not the deal')."""
    start = Position.deal(seed=3)
    known = start.with_deck_top_known(1)
    assert known.deck_known == 1 and known.actions >= 1 and start.actions == 0
    again = Position.from_dict(known.view_of(0).to_dict())
    assert again.unknown_cards == known.view_of(0).unknown_cards


def test_the_search_options_are_checked_before_it_runs():
    import threading

    import cuttle_search
    from cuttle_search.analysis.analyser import best_move

    pos = Position.load(POS / "opening-p0.json")
    for options, says in (({"cancel": True}, "cancel: expected a threading.Event"),
                          ({"every": float("inf"), "progress": print}, "every: expected a number of seconds"),
                          ({"every": "0.1", "progress": print}, "every: expected a number of seconds"),
                          ({"progress": 3}, "progress: expected a function"),
                          ({"history": (Position.deal(seed=3), None)}, "history: expected \\(start, moves\\)"),
                          ({"history": (Position.deal(seed=3), [1])}, r"history\[0\]: move: expected a Move")):
        with pytest.raises(cuttle_search.SearchError, match=says):
            cuttle_search.analyse(pos, iterations=200, **options)
    for runners_up in (-1, "x", None, 1.5, 65):
        with pytest.raises(cuttle_search.SearchError, match="runners_up: expected a whole number from 0 to 64"):
            best_move(pos, iterations=200, runners_up=runners_up)
    for seed in (None, 1.5, "1", -1, 2**64, True):
        with pytest.raises(PositionError, match="seed: expected a whole number from 0 to"):
            Position.deal(seed=seed)
    assert Position.deal(seed=np.uint64(2**64 - 1)).actor >= 0
    stopped = threading.Event()
    stopped.set()  # before the search: no iteration, and the answer says so
    hint = best_move(pos, iterations=200, cancel=stopped).to_json()
    assert hint["stopReason"] == "cancelled" and hint["iterations"] == 0
    assert best_move(pos, iterations=200).to_json()["stopReason"] == "budget"


def test_closing_a_stream_stops_its_search():
    import threading

    import cuttle_search

    pos = Position.load(POS / "opening-p0.json")
    before = set(threading.enumerate())
    stream = cuttle_search.analyse_stream(pos, every=0.05, time=600)
    assert next(stream).during_search
    searching = [t for t in threading.enumerate() if t not in before]
    stream.close()
    for t in searching:
        t.join(60)  # a guard: the search stops at its next chunk, long before 600 s
        assert not t.is_alive()


def test_a_hint_server_whose_output_goes_away_stops_quietly(capsys, monkeypatch):
    """The first answer's write finds the pipe closed: every other request's search is
    cancelled (each fake search here waits for its cancel), nothing is printed."""
    from cuttle_search.analysis import SearchError

    class Gone(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    import threading

    cancels = []
    second = threading.Event()

    def search(*args, cancel=None, **kwargs):
        cancels.append(cancel)
        if len(cancels) == 1:
            assert second.wait(60)  # (a guard) both workers search before the first answer is written
        else:
            second.set()
            assert cancel.wait(60)  # a guard: set as soon as the output is gone
        raise SearchError("iterations: answered at once")  # an answer to write, into the closed pipe

    monkeypatch.setattr(H, "best_move", search)
    lines = "".join(json.dumps({**position("opening-p0"), "id": i, "time": 30}) + "\n" for i in range(3))
    with pytest.raises(H.OutputGone):
        H.serve(io.StringIO(lines), Gone(), {}, workers=2)
    assert len(cancels) >= 2 and all(c.is_set() for c in cancels[1:])
    assert "Traceback" not in capsys.readouterr().err


def test_paths_that_would_hang_or_cannot_be_written(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    refused(run("show", fifo), "is a named pipe that nobody was writing to")  # read at once, not waited on
    result = run("arena", "random", "random", "--games", "1", "--log-dir", tmp_path / "logs")
    assert result.exit_code == 0, result.output
    log = tmp_path / "logs" / "pair00000-game0.json"
    for value, says in ((fifo, "a named pipe that nobody reads"), ("", "an empty name"),
                        (tmp_path / "none" / "x.json", "its directory is missing")):
        refused(run("replay", log, "--export", value), "--export: cannot write", says)
    refused(run("arena", "random", "random", "--games", "2", "--resume", fifo), "resume:", "named pipe")
    refused(run("show", tmp_path / "no\nsuch.json"), "no\\nsuch.json")  # one line, the break written as \n
    with pytest.raises(PositionError, match="path: cannot write"):
        Position.deal(seed=1).save(tmp_path / "none" / "x.json")
    with pytest.raises(PositionError, match="named pipe"):
        Position.deal(seed=1).save(fifo)


def test_play_save_where_no_file_can_be_written(tmp_path):
    r = run("play", "--opponents", "random", "--hints", "off", "--save", tmp_path / "none" / "g.json", input="quit\n")
    refused(r, "--save: cannot write", "its directory is missing")
    assert "you are p0" not in r.output  # refused before the game
    from cuttle_search.play.session import GameSession, PlayError

    def full(self, path, replace=False):  # the write fails after the early check passed (a full disk)
        raise PlayError(f"save: cannot write {str(path)!r}: No space left on device")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(GameSession, "save", full)
        r = run("play", "--opponents", "random", "--hints", "off", "--save", tmp_path / "g.json", input="quit\n")
    assert r.exit_code == 2 and "No space left on device" in r.stderr and "you left the game" in r.output


def test_arena_names_the_rules_option_and_its_variable():
    r = CliRunner().invoke(main, ["arena", "random", "random", "--games", "2"], env={"CUTTLE_RULES": "nope"})
    assert r.exit_code == 2 and "Invalid value for --rules (or CUTTLE_RULES): unknown ruleset 'nope'" in r.stderr


def test_a_pipe_with_a_reader_is_written_and_one_without_is_refused(tmp_path):
    result = run("arena", "random", "random", "--games", "1", "--log-dir", tmp_path)
    assert result.exit_code == 0, result.output
    log = tmp_path / "pair00000-game0.json"
    out = subprocess.run([sys.executable, "-m", "cuttle_search.cli", "replay", str(log), "--ply", "3", "--export",
                          "/dev/stdout"], capture_output=True, text=True, timeout=600)  # stdout: a pipe read here
    assert out.returncode == 0 and '"format": "cuttle-search/position"' in out.stdout, out.stderr
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    r = run("play", "--opponents", "random", "--hints", "off", "--seed", "1", input=f"save {fifo}\nquit\n")
    assert r.exit_code == 0 and "save: cannot write" in r.output and "nobody reads" in r.output  # at the prompt


def test_a_misspelt_field_is_refused_with_the_closest_name_not_skipped(tmp_path):
    # a skipped "p0FaceCard" would have left its King to be taken for a hidden card
    data = position("midgame-main-p0")
    data["p0FaceCard"] = data.pop("p0FaceCards")
    refused(run("show", write(tmp_path, data)), "p0FaceCard: not a field of a position (did you mean 'p0FaceCards'?)")
    seats = position("cutthroat-opening-p0")
    seats["seats"][1]["royal"] = seats["seats"][1].pop("royals")
    refused(run("analyse", write(tmp_path, seats), "-n", 10), "seats[1].royal: not a field of a seat (did you mean 'royals'?)")
    # the two-seat form's seat fields beside a seat list were skipped, their cards lost
    seats = position("cutthroat-opening-p0")
    seats["p0Hand"] = ["AS"]
    refused(run("moves", write(tmp_path, seats)),
            "p0Hand: a field of the two-seat form (version 1); this position lists its seats under 'seats', each "
            "seat's cards as 'hand' there")
    del seats["p0Hand"]
    seats["p2FaceCards"] = ["KS"]
    refused(run("moves", write(tmp_path, seats)), "p2FaceCards: a field of the two-seat form (version 1); this "
            "position lists its seats under 'seats', each seat's cards as 'royals' there")
    data = position("midgame-main-p0")
    data["p2Hand"] = []  # not "did you mean 'p1Hand'": no two-seat field is meant
    refused(run("moves", write(tmp_path, data)), "p2Hand: the two-seat form (version 1) has seats p0 and p1 only; "
            "a game of more seats lists them under 'seats' (version 2)")
    data = position("midgame-main-p0")
    data["comment\n"] = 1
    with pytest.raises(PositionError, match=r"^'comment\\n': not a field of a position$"):
        Position.from_dict(data)
    # a cuttle.cards GameState keeps fields of its own, as it always did
    game = position("gamestate-cuttle-cards")
    game["status"] = 1
    assert Position.from_dict(game).players == 2
    # in a hint request: the position given apart is refused; fields mixed in beside the
    # request's are warned about and left out, as before
    nested = H.answer(json.dumps({"id": 1, "position": {**position("midgame-main-p0"), "p1Hnad": []},
                                  "iterations": 50}), {})
    assert nested["error"] == "p1Hnad: not a field of a position (did you mean 'p1Hand'?)"
    mixed = H.answer(json.dumps({"id": 2, **position("midgame-main-p0"), "p1Hnad": [], "iterations": 50}), {})
    assert "error" not in mixed and "'p1Hnad'" in mixed["warning"]
    # a required field misspelt in a mixed request: the refusal says which field was left out
    data = position("midgame-main-p0")
    data["p0Hnad"] = data.pop("p0Hand")
    refusal = H.answer(json.dumps({"id": 3, **data, "iterations": 50}), {})
    assert "error" in refusal and refusal["warning"].endswith("'p0Hnad' (did you mean 'p0Hand'?)")
    # p2's fields in a two-seat file, a record field beside a typo, and this project's own
    # form with a numbered phase (read as cuttle.cards' numbers) are refused too
    for extra in ({"id": 7, "p0FaceCard": []}, {"phase": 1, "p0FaceCard": []}, {"p0": None}):
        with pytest.raises(PositionError, match="not a field of a position"):
            Position.from_dict({**position("midgame-main-p0"), **extra})
    with pytest.raises(PositionError, match="^p2Hand: the two-seat form"):
        Position.from_dict({**position("midgame-main-p0"), "id": 7, "p2Hand": []})


def test_a_bad_ruleset_names_the_option_not_the_file_in_every_command():
    for args in (["analyse", POS / "midgame-main-p0.json"], ["show", POS / "opening-p0.json"], ["play"],
                 ["selfplay", "--games", "1"]):
        for env, extra in (({}, ["--rules", "cuttle-card"]), ({"CUTTLE_RULES": "cuttle-card"}, [])):
            r = CliRunner().invoke(main, [str(a) for a in args] + extra, env=env)
            assert r.exit_code == 2, (args, r.output)
            assert "Invalid value for --rules (or CUTTLE_RULES): unknown ruleset 'cuttle-card'" in r.stderr, r.stderr
            assert ".json" not in r.stderr.splitlines()[-1]


def test_a_failed_write_leaves_the_file_as_it_was(tmp_path, monkeypatch):
    """write_whole: a file is replaced whole or not at all (a resumed game's only copy), keeps
    its permissions, is written through a link, and a device is written in place."""
    import os
    import stat

    from cuttle_search.game.inputs import write_whole

    path = tmp_path / "game.json"
    path.write_text("OLD")
    os.chmod(path, 0o600)

    def broken(*args):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr(os, "replace", broken)
        with pytest.raises(OSError):
            write_whole(path, "NEW" * 1000)
    assert path.read_text() == "OLD" and sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]
    write_whole(path, "NEW")
    assert path.read_text() == "NEW" and stat.S_IMODE(path.stat().st_mode) == 0o600
    link = tmp_path / "link.json"
    link.symlink_to(path)
    write_whole(link, "LINKED")
    assert link.is_symlink() and path.read_text() == "LINKED"
    write_whole("/dev/null", "nothing")  # a device: written in place, never renamed over
    assert Path("/dev/null").exists() and not Path("/dev/null").is_file()


# ---------------------------------------------------------------- a fourth review of hostile input
def usage_refused(result, *fragments):
    """An option's value refused by the command line: exit 2, one error line holding every
    fragment (after click's usage lines), no traceback."""
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), (result.exit_code, result.stderr)
    errors = [x for x in result.stderr.splitlines() if x.startswith("Error: ")]
    assert len(errors) == 1 and all(f in errors[0] for f in fragments), result.stderr
    assert "Traceback" not in result.stderr


def test_a_players_option_too_long_to_convert_is_refused_naming_rules(tmp_path):
    many = "9" * 5000  # (Python refuses to convert more than 4,300 digits)
    usage_refused(run("selfplay", "--games", 1, "--rules", f"multiplayer:players={many}"), "--rules", "option players takes")
    data = position("multiplayer-4-opening-p0") | {"options": {"players": many}}
    refused(run("show", write(tmp_path, data)), "rules: option players takes")
    answer = H.answer(json.dumps({"id": 1, "position": position("opening-p0"), "rules": f"multiplayer:players={many}"}), {})
    assert answer["field"] == "rules"
    assert get_ruleset("multiplayer:players=0003").players == 3
    padded = "0" * 5000 + "3"  # (zeros in front are never converted: Python would refuse them all)
    assert get_ruleset(f"multiplayer:players={padded}").players == 3


def test_a_number_too_long_for_any_field_names_its_key(tmp_path):
    refused(run("show", write(tmp_path, '{"p0Hand": [], "actions": ' + "1" * 200 + "}")),
            "actions: a number of 200 digits")
    answer = H.answer('{"id": 7, "seed": ' + "2" * 150 + "}", {})
    assert answer["id"] == 7 and answer["field"] == "seed" and "150 digits" in answer["error"]
    in_list = H.answer('{"id": 7, "deck": [' + "1" * 150 + '], "turn": ' + "2" * 101 + "}", {})
    assert in_list["field"] == "request" and "150 digits" in in_list["error"]  # no key of its own


def test_a_gamestate_card_is_frozen_only_by_true(tmp_path):
    data = _gamestate_with_frozen(None)
    data["p0"]["hand"][0]["isFrozen"] = "false"  # a string, which Python would read as true
    refused(run("show", write(tmp_path, data)), "p0.hand[0].isFrozen: expected true or false, got 'false'")
    data["p0"]["hand"][0]["isFrozen"] = False
    assert Position.from_dict(data).frozen(0) == 0
    both = _gamestate_with_frozen(None) | {"p0Hand": ["3D"]}  # the seat twice, in both forms
    refused(run("show", write(tmp_path, both)), "p0: given as an object and as p0Hand too")


def test_replay_and_review_never_write_over_the_game_they_read(tmp_path):
    log = write(tmp_path, _log(tmp_path), "g.json")
    before = log.read_text()
    usage_refused(run("replay", log, "--ply", 2, "--export", log), "--export", "is the file this reads")
    link = tmp_path / "link.json"
    link.symlink_to(log)
    usage_refused(run("replay", log, "--export", link), "is the file this reads")
    usage_refused(run("review", log, "-n", 50, "--no-luck", "--html", link), "--html", "is the file this reads")
    assert log.read_text() == before


def test_threads_that_leave_each_tree_fewer_iterations_than_root_moves_are_refused():
    pos = POS / "midgame-main-p0.json"
    refused(run("analyse", pos, "-n", 2000, "--threads", 256),
            "threads: 256 threads for 2,000 iterations leave each tree 7, fewer than the 15 moves to search")
    assert run("analyse", pos, "-n", 2000, "--threads", 2, "--json").exit_code == 0
    answer = H.answer(json.dumps({"id": 1, "iterations": 20, "threads": 2, **position("midgame-main-p0")}), {},
                      H.ServerLimits(max_threads=2))
    assert answer["field"] == "threads"
    proven = run("analyse", POS / "deck-out-endgame.json", "-n", 8, "--threads", 4, "--json")  # the solver answers
    assert proven.exit_code == 0 and json.loads(proven.stdout)["rootInfo"]["stopReason"] == "proven"
    # a game's turns: each checked before any is searched, but for those the solver answers first
    start = Position.load(POS / "opening-full.json")
    first = len(start.legal_codes())
    later = start.copy()
    for move in ("draw", "draw"):
        later.play(move)
    assert len(later.legal_codes()) > first
    partials: list = []
    turns = H.answers(json.dumps({"id": 1, "position": position("opening-full"), "moves": ["draw", "draw"],
                                  "analyzeTurns": [0, 2], "iterations": 2 * first, "threads": 2,
                                  "reportDuringSearchEvery": 0.05}), {}, H.ServerLimits(max_threads=2),
                      emit=partials.append)
    assert turns[-1]["field"] == "threads" and turns[-1]["error"].endswith("(at turn 2)") and not partials
    endgame = {"id": 1, "position": position("deck-out-endgame") | {"view": "full"}, "moves": ["pass"],
               "analyzeTurns": [0, 1], "iterations": 8, "threads": 4}
    proven = H.answers(json.dumps(endgame), {}, H.ServerLimits(max_threads=4))
    assert [a.get("error") for a in proven] == [None, None] and all("move" in a for a in proven)


def test_the_search_benchmark_takes_more_threads_than_a_warm_up_gives_root_moves():
    from cuttle_search.bench.search import search_speed

    assert search_speed("midgame-main-p0", 4000, 40, 1) > 0  # (its warm-up: 500 iterations)


@pytest.mark.parametrize(
    "name,changes,fragment",
    [
        ("four-random-full", {"options": None}, "phase: 'resolvingFourRandom' needs the four=random option"),
        ("cutthroat-counter-chain-third-seat-p1", {"chainTop": "p0"},
         "chainTop: with one 2 played, the chain's top is the seat that countered, never the one-off's player (p0)"),
    ],
)
def test_a_phase_or_chain_no_game_reaches_is_refused(tmp_path, name, changes, fragment):
    refused(run("show", write(tmp_path, _changed(name, **changes))), fragment)


def test_environment_values_are_named_by_their_variable_and_numbers_in_words():
    pos = POS / "midgame-main-p0.json"
    r = CliRunner().invoke(main, ["analyse", str(pos), "-n", "100"], env={"CUTTLE_SEED": "abc"})
    usage_refused(r, "'--seed' (from CUTTLE_SEED): 'abc' is not a valid whole number")
    usage_refused(run("analyse", pos, "-n", "1e3"), "'--iterations'", "'1e3' is not a valid whole number")
    refused(run("arena", "ismcts:c=1,exploration=5", "random", "--games", 2), "c and exploration are one parameter")


def test_hint_refusals_name_the_field_at_fault():
    two = position("midgame-main-p0")
    assert H.answer(json.dumps({"id": 1, "position": two, "rules": "cutthroat"}), {})["field"] == "rules"
    missing = H.answer('{"id": 1, "position": null, "iterations": 100}', {})
    assert missing["field"] == "position" and missing["error"].startswith("position: missing")
    view = position("opening-full") | {"view": "p0"}
    started = H.answer(json.dumps({"id": 1, "position": view, "moves": ["draw"]}), {})
    assert "the game's full-information start" in started["error"]
    turns = H.answer(json.dumps({"id": 1, "position": position("opening-full"), "moves": ["points TD", "draw"],
                                 "analyzeTurns": [0, 2], "allowMoves": ["points TD"], "iterations": 100}), {})
    assert turns["error"] == "allowMoves[0]: 'points TD' is not legal here (at turn 2)"


def test_a_file_may_begin_with_a_byte_order_mark(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + (POS / "opening-p0.json").read_bytes())
    assert run("show", path).exit_code == 0


def test_a_game_log_refuses_an_unknown_result_key_and_a_negative_generator_seed(tmp_path):
    log = _log(tmp_path)
    refused(run("replay", write(tmp_path, log | {"result": {**log["result"], "x": 1}})), "result.x: not a field")
    refused(run("replay", write(tmp_path, log | {"rngSeed": -5})), "rngSeed: expected a whole number")
    refused(run("show", write(tmp_path, log)), "format: 'cuttle-search/game' is a game log, not a position")
