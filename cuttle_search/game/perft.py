"""Perft: the number of move sequences of a given length, as in chess engine testing."""

from __future__ import annotations

import numpy as np
from tqdm import tqdm

from ..engine import layout as L
from ..engine.apply import apply_move
from ..engine.harness import perft as perft_kernel
from .moves import Move
from .position import Position


def _buffers(depth: int) -> tuple[np.ndarray, np.ndarray]:
    states = np.zeros((depth + 1, L.STATE_SIZE), dtype=np.int64)
    bufs = np.zeros((max(depth, 1), L.MAX_MOVES), dtype=np.int64)
    return states, bufs


def perft(pos: Position, depth: int) -> int:
    """Move sequences of length ``depth`` from ``pos`` (a game that ends early stops)."""
    states, bufs = _buffers(depth)
    states[0] = pos.state
    return int(perft_kernel(states, bufs, pos.rules_array, depth, 0))


def perft_divide(pos: Position, depth: int, progress: bool = False) -> list[tuple[Move, int]]:
    """Perft below each legal move, for finding where two move generators disagree."""
    if depth == 0:
        return []
    rows = []
    r = pos.rules_array
    states, bufs = _buffers(depth - 1)
    codes = pos.legal_codes()
    for code in tqdm(codes, desc="perft", unit="move", disable=not progress or None, leave=False, file=None):
        child = pos.state.copy()
        apply_move(child, r, np.int64(code))
        states[0] = child
        rows.append((Move.from_code(code), int(perft_kernel(states, bufs, r, depth - 1, 0))))
    return rows
