"""Search self-play for the value's second stage (benchmarks/train_value.py runs this).

    python benchmarks/value_search_play.py --seed 21 --first 0 --games 8000 --iterations 1000 --out block.npz
                                           [--rules cuttle-cards|team]

``ismcts`` with the ``value`` rollout plays every seat of games of ``--rules`` (two-seat
cuttle-cards, or Team), each seat seeing only its own view, at ``--iterations`` a decision;
every main decision is kept with its features for the seat to act (``value_features``) and
that seat's final share (a win of its side 1, a stalemate 1/2, a loss 0). The games are
the arena's deals ``first ..`` of ``--seed``; one generator seeded by ``(seed, first)``
draws the search seeds and chance moves of the whole block, so a block always gives the
same data.

It uses whichever ``cuttle_search`` Python imports (it does not put the repository on the
path): train_value.py runs it on a copy of the package holding the first stage's weights.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def play_block(seed: int, first: int, games: int, iterations: int, progress: bool = False,
               rules_name: str = "cuttle-cards") -> tuple[np.ndarray, np.ndarray]:
    """Features (in units, not fixed point) and shares of every main decision of the block."""
    from cuttle_search.analysis import analyse
    from cuttle_search.engine.layout import STATE_SIZE
    from cuttle_search.engine.value import VALUE_ONE, feature_count, value_features
    from cuttle_search.game.position import Position
    from cuttle_search.game.rules import get_ruleset
    from cuttle_search.play.arena import deal_seed

    rules = get_ruleset(rules_name)
    r = rules.array
    width = feature_count(rules.players)
    rng = np.random.default_rng([seed, first])
    buf = np.zeros(STATE_SIZE, np.int64)
    X: list[np.ndarray] = []
    y: list[float] = []
    for g in range(first, first + games):
        pos = Position.deal(rules, seed=deal_seed(seed, g))
        rows = []
        while not pos.is_over:
            seat = pos.actor
            legal = pos.legal_moves()
            if seat < 0:  # chance
                pos.push(legal[int(rng.integers(len(legal)))])
                continue
            if pos.phase_name == "main":
                value_features(pos.state, r, seat, buf)
                rows.append((buf[:width].copy(), seat))
            if len(legal) == 1:
                pos.push(legal[0])
                continue
            res = analyse(pos.view_of(seat), iterations=iterations,
                          seed=int(rng.integers(0, 2**62)), rollout="value")
            pos.push(res.best.move)
        for f, seat in rows:
            X.append(f)
            y.append(pos.share_of(seat))
        if progress and (g - first + 1) % 200 == 0:
            print(f"  block {first}: {g - first + 1} of {games} games", file=sys.stderr, flush=True)
    features = np.array(X, dtype=np.float64).reshape(-1, width) / VALUE_ONE
    return features, np.array(y, dtype=np.float64)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--first", type=int, required=True, help="the block's first deal")
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--iterations", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True, help="an .npz file for X and y")
    ap.add_argument("--rules", choices=("cuttle-cards", "team"), default="cuttle-cards")
    ap.add_argument("--package", type=Path, help="refuse to run unless cuttle_search is imported from here")
    a = ap.parse_args()
    if a.games < 1 or a.iterations < 1 or a.first < 0:
        ap.error("--games and --iterations must be at least 1, --first at least 0")
    import cuttle_search
    if a.package is not None and not Path(cuttle_search.__file__).resolve().is_relative_to(a.package.resolve()):
        sys.exit(f"value_search_play: cuttle_search was imported from {cuttle_search.__file__}, not {a.package}")
    X, y = play_block(a.seed, a.first, a.games, a.iterations, progress=True, rules_name=a.rules)
    np.savez(a.out, X=X, y=y)


if __name__ == "__main__":
    main()
