"""Random self-play from fresh deals, in chunks so a progress bar can follow."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from tqdm import tqdm

from ..engine import layout as L
from ..engine.harness import random_games
from ..engine.seats import partner
from ..engine.state import empty_state
from ..game.errors import CuttleError
from ..game.seats import seat_name, whole
from ..game.rules import Ruleset

CHUNK = 2000
MAX_GAMES = 10_000_000  # 24 bytes of results a game: 240 MB at most (cli: selfplay --games)


def _team_wins(rules: Ruleset, status: np.ndarray, winner: np.ndarray) -> dict[str, int]:
    """Wins by team (``p0+p2``: either partner met their goal), as the engine pairs seats."""
    r = rules.array
    s = empty_state(rules.players)
    out: dict[str, int] = {}
    for q in range(rules.players):
        mate = int(partner(s, r, q))
        if 0 <= q < mate:
            out[f"{seat_name(q)}+{seat_name(mate)}"] = int(np.sum((status == L.ST_WIN) & ((winner == q) | (winner == mate))))
    return out


def run_selfplay(rules: Ruleset, games: int, seed: int, progress: bool = False) -> dict[str, Any]:
    """Play ``games`` uniformly random games; game ``g`` depends only on (seed, g)."""
    whole(games, "games", 1, MAX_GAMES, CuttleError)
    r = rules.to_array()
    s = np.zeros(L.STATE_SIZE, dtype=np.int64)
    buf = np.zeros(L.MAX_MOVES, dtype=np.int64)
    results = np.zeros((games, 3), dtype=np.int64)
    start = time.perf_counter()
    total = 0
    with tqdm(total=games, desc="selfplay", unit="game", disable=not progress or None) as bar:
        for first in range(0, games, CHUNK):
            n = min(CHUNK, games - first)
            total += int(random_games(r, seed, first, n, s, buf, results[first : first + n]))
            bar.update(n)
    elapsed = time.perf_counter() - start
    status, winner = results[:, 1], results[:, 2]
    return {
        "games": games,
        "seed": seed,
        "rules": rules.spec,
        "wins": {seat_name(q): int(np.sum((status == L.ST_WIN) & (winner == q))) for q in range(rules.players)},
        **({"teamWins": _team_wins(rules, status, winner)} if rules.teams else {}),
        "draws": int(np.sum(status != L.ST_WIN)),
        "stalemates": {
            "passes": int(np.sum(status == L.ST_STALEMATE_PASSES)),
            "actionLimit": int(np.sum(status == L.ST_STALEMATE_ACTIONS)),
        },
        "meanPlies": float(results[:, 0].mean()),
        "plies": total,
        "seconds": round(elapsed, 6),
        "pliesPerSecond": total / elapsed if elapsed > 0 else 0.0,
    }
