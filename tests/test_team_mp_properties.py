"""Property tests for `team` and `multiplayer` (2, 3, 4 and 8 seats) at kernel speed, and
position and notation round-trips for both: every card conserved (54 with Jokers, 52
otherwise, removed cards and waiting 2s included), every generated move legal and applying
cleanly, every game ending, the same seed giving the same game."""

from __future__ import annotations

import numpy as np
import pytest

from cuttle_search.engine import layout as L
from cuttle_search.engine.harness import checked_random_games
from cuttle_search.engine.setup import POSITION_ERRORS
from cuttle_search.game.moves import Move
from cuttle_search.game.position import Position
from cuttle_search.game.rules import get_ruleset

from .reference import table_errors

SPECS = ["team", "multiplayer:players=2", "multiplayer:players=3", "multiplayer", "multiplayer:players=8"]
GAMES = 10_000


def _run(spec, seed, first, games):
    r = get_ruleset(spec).array
    s = np.zeros(L.STATE_SIZE, dtype=np.int64)
    buf = np.zeros(L.MAX_MOVES, dtype=np.int64)
    res = np.zeros((games, 6), dtype=np.int64)
    bad = checked_random_games(r, seed, first, games, s, buf, res)
    return bad, res


@pytest.mark.parametrize("spec", SPECS + ["multiplayer:players=8,remove-ace-six"])
def test_random_games_keep_every_invariant_and_end(spec):
    games = GAMES if "remove" not in spec else 2000
    bad, res = _run(spec, 1313, 0, games)
    if bad:
        g = int(np.nonzero(res[:, 3])[0][0])
        pytest.fail(f"game {g}: {POSITION_ERRORS.get(int(res[g, 3]), res[g, 3])} at ply {int(res[g, 4])}")
    assert np.all(res[:, 1] != L.ST_ONGOING) and res[:, 0].min() > 0
    n = get_ruleset(spec).players
    for q in range(n):  # every seat wins sometimes
        assert np.sum((res[:, 1] == L.ST_WIN) & (res[:, 2] == q)) > 0
    # same seed, same games; one game replayed alone is the same game
    _, again = _run(spec, 1313, 0, 200)
    assert np.array_equal(again, res[:200])
    _, one = _run(spec, 1313, 77, 1)
    assert np.array_equal(one[0], res[77])
    _, other = _run(spec, 1314, 0, 200)
    assert len(set(other[:, 5]) & set(res[:200, 5])) < 5


def _every_card_once(pos: Position) -> None:
    assert table_errors(pos.state, pos.rules) == [], pos.to_json()


@pytest.mark.parametrize("spec", SPECS + ["multiplayer:players=4,remove-ace-six"])
def test_positions_and_moves_round_trip_at_every_decision(spec):
    rules = get_ruleset(spec)
    rng = np.random.default_rng(5)
    for g in range(2 if rules.players == 8 else 6):
        pos = Position.deal(rules, seed=1000 + g)
        while not pos.is_over:
            _every_card_once(pos)
            text = pos.to_json()
            back = Position.from_json(text)
            assert back.to_json() == text
            assert back.legal_moves() == pos.legal_moves()
            for seat in range(rules.players):
                view = pos.view_of(seat)
                vt = view.to_json()
                assert Position.from_json(vt).to_json() == vt, f"p{seat}'s view\n{vt}"
            moves = pos.legal_moves()
            assert len(set(moves)) == len(moves)
            for m in moves:
                assert Move.parse(m.text(), moves) == m
                assert Move.from_json(m.to_json()) == m
                assert Move.from_code(m.code()) == m
            pos.push(moves[int(rng.integers(len(moves)))])


def test_new_move_notations_round_trip():
    for text in ("jack JH 7C p2", "joker X1 KH p0", "forfeit", "discard 4H", "one-off 9C KH", "one-off 4C p1"):
        m = Move.parse(text)
        assert m.text() == text
        assert Move.from_json(m.to_json()) == m and Move.from_code(m.code()) == m
    assert Move.parse("jack JH 7C p2").receiver == 2


# ====================================================================== the reference generator
def _compare(spec: str, games: int, seed: int) -> int:
    from cuttle_search.engine.apply import apply_move
    from cuttle_search.engine.harness import game_seed
    from cuttle_search.engine.movegen import generate_moves
    from cuttle_search.engine.setup import deal

    from .reference import move_text, reference_moves_tm

    rules = get_ruleset(spec)
    r = rules.array
    s = np.zeros(L.STATE_SIZE, dtype=np.int64)
    buf = np.zeros(L.MAX_MOVES, dtype=np.int64)
    rng = np.random.default_rng(seed)
    compared = 0
    for g in range(games):
        deal(s, r, np.array([game_seed(seed, g)], np.uint64))
        while s[L.F_PHASE] != L.PH_OVER:
            k = generate_moves(s, r, buf)
            got = [int(m) for m in buf[:k]]
            assert len(set(got)) == len(got)
            want = reference_moves_tm(s, rules)
            if set(got) != want:
                extra = sorted(move_text(m) for m in set(got) - want)
                missing = sorted(move_text(m) for m in want - set(got))
                pytest.fail(f"{spec} game {g} phase {int(s[L.F_PHASE])}: extra {extra} missing {missing}")
            compared += 1
            apply_move(s, r, got[int(rng.integers(k))])
    return compared


@pytest.mark.parametrize("spec", SPECS)
def test_generator_matches_the_reference(spec):
    assert _compare(spec, 25, 3) > 500


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS + ["multiplayer:players=6,remove-ace-six"])
def test_generator_matches_the_reference_long(spec):
    assert _compare(spec, 1500, 11) > 20000
