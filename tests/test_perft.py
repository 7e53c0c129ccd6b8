"""Perft regression values (tests/data/perft.json) and agreement with the reference."""

import json
from pathlib import Path

import pytest

from cuttle_search.game.moves import Move
from cuttle_search.game.perft import perft, perft_divide
from cuttle_search.game.position import Position

from .reference import reference_moves

ROOT = Path(__file__).parent.parent
DATA = json.loads((Path(__file__).parent / "data" / "perft.json").read_text())["perft"]


def _load(name: str) -> Position:
    return Position.load(ROOT / "positions" / f"{name}.json")


@pytest.mark.parametrize("name", sorted(DATA))
def test_perft_regression(name):
    pos = _load(name)
    assert [perft(pos, d) for d in range(1, len(DATA[name]) + 1)] == DATA[name]
    assert perft(pos, 0) == 1


def _reference_perft(pos: Position, depth: int) -> int:
    if depth == 0:
        return 1
    if pos.is_over:
        return 0
    moves = reference_moves(pos.to_dict(), pos.rules)
    if depth == 1:
        return len(moves)
    legal = pos.legal_moves()
    total = 0
    for text in moves:
        child = pos.copy()
        child.push(Move.parse(text, legal))
        total += _reference_perft(child, depth - 1)
    return total


@pytest.mark.parametrize("name", sorted(DATA))
def test_perft_agrees_with_the_reference_generator(name):
    pos = _load(name)
    assert _reference_perft(pos, 4) == DATA[name][3]


def test_divide_sums_to_perft():
    pos = _load("jack-war-full")
    rows = perft_divide(pos, 3)
    assert sum(n for _, n in rows) == DATA["jack-war-full"][2]
    assert len(rows) == DATA["jack-war-full"][0]
