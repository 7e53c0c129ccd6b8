"""A position with one legal move is answered at once (the command line, the Python API and
the hint server), and moves print as their notation (issue 26, item 17)."""

import glob
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import cuttle_search
from cuttle_search.analysis import ismcts
from cuttle_search.cli import main
from cuttle_search.game.moves import Move, MoveError
from cuttle_search.game.formats import load_position
from cuttle_search.hint import answer

POS = Path(__file__).parent.parent / "positions"
FORFEIT = POS / "multiplayer-4-counter-costs-turn-p3.json"  # p3's only move: forfeit
RESOLVE = POS / "team-answer-countered-p2.json"  # p2's only move: resolve


@pytest.fixture
def no_search(monkeypatch):
    """Fail if a search starts: an only move must be answered without one."""
    def refuse(*args, **kwargs):
        raise AssertionError("a search started for a position with one legal move")

    monkeypatch.setattr(ismcts, "_Worker", refuse)


@pytest.mark.parametrize("path, move", [(FORFEIT, "forfeit"), (RESOLVE, "resolve")])
def test_analyse_answers_an_only_move_at_once(no_search, path, move):
    assert [m.text() for m in load_position(path).legal_moves()] == [move]
    result = cuttle_search.analyse(path, iterations=10_000_000, seed=3)
    assert result.stop_reason == "forced"
    assert [m.move.text() for m in result.moves] == [move]
    best = result.best
    assert (best.rank, best.visits, best.interval, best.gap) == (1, 0, (0.0, 1.0), 0.0)
    assert result.iterations == 0 and result.seconds == 0.0
    timed = cuttle_search.analyse(path, time=3600.0)
    assert timed.stop_reason == "forced" and timed.best.move.text() == move


def test_an_only_move_keeps_the_json_shape(no_search):
    forced = cuttle_search.analyse(FORFEIT, iterations=500).to_json()
    assert forced["rootInfo"]["stopReason"] == "forced" and forced["rootInfo"]["iterations"] == 0
    json.dumps(forced, allow_nan=False)  # valid JSON: no NaN or infinity


def test_an_only_move_has_the_keys_of_a_searched_move():
    other = cuttle_search.analyse(POS / "multiplayer-4-opening-p0.json", iterations=200).to_json()
    forced = cuttle_search.analyse(FORFEIT, iterations=200).to_json()
    assert set(forced) == set(other) and set(forced["rootInfo"]) == set(other["rootInfo"])
    assert set(forced["moves"][0]) == set(other["moves"][0])


def test_best_move_and_the_hint_server_answer_an_only_move(no_search):
    hint = cuttle_search.best_move(RESOLVE, iterations=10_000_000)
    assert hint.best.move.text() == "resolve" and hint.runners_up == []
    out = answer({"id": 7, "position": json.loads(RESOLVE.read_text()), "iterations": 10_000_000}, {})
    assert out["id"] == 7 and out["move"] == "resolve" and out["stopReason"] == "forced"
    assert out["iterations"] == 0 and out["runnersUp"] == []


def test_the_command_line_says_only_legal_move(no_search):
    r = CliRunner().invoke(main, ["analyse", str(FORFEIT), "--iterations", "10000000"])
    assert r.exit_code == 0, r.output
    assert "only legal move: answered at once without a search" in r.output
    row = [line for line in r.output.splitlines() if line.startswith("1 ")]
    assert row and row[0].split()[1:3] == ["forfeit", "0"]
    r = CliRunner().invoke(main, ["analyse", str(FORFEIT), "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["rootInfo"]["stopReason"] == "forced"


def test_a_restricted_root_of_several_legal_moves_is_still_searched():
    result = cuttle_search.analyse(POS / "should-i-counter-p1.json", iterations=300, allow_moves=["resolve"])
    assert result.stop_reason == "budget" and result.iterations == 300


# ---------------------------------------------------------------- notation
def _all_legal_moves():
    for f in sorted(glob.glob(str(POS / "*.json"))):
        pos = load_position(f)
        if pos.is_over or pos.actor < 0 or (pos.view is not None and pos.actor != pos.view):
            continue
        yield from pos.legal_moves()


def test_str_is_the_text_notation_and_repr_is_executable():
    moves = list(_all_legal_moves())
    assert len(moves) > 300 and any(m.from_seven for m in moves) and any(m.receiver is not None for m in moves)
    for m in moves:
        assert str(m) == m.text()
        assert eval(repr(m), {"Move": Move}) == m
    assert repr(Move.parse("scuttle 9S 7H")) == "Move.parse('scuttle 9S 7H')"
    assert repr(Move.parse("points 7H", from_seven=True)) == "Move.parse('points 7H', from_seven=True)"
    with pytest.raises(MoveError, match="never played from a 7's reveal"):
        Move.parse("draw", from_seven=True)


def test_result_reprs_show_moves_in_notation():
    result = cuttle_search.analyse(POS / "win-in-one-p0.json", iterations=500, seed=1)
    runner_up = result.moves[1]
    assert f"move=Move.parse('{runner_up.move.text()}')" in repr(runner_up)
    assert "kind=" not in repr(result) and "Move.parse('royal KD')" in repr(result)
    solved = cuttle_search.analysis.solve.solve(POS / "deck-out-endgame.json")
    assert "kind=" not in repr(solved) and "Move.parse(" in repr(solved)
