"""The review benchmark: the wall time of reviewing a whole game on every core."""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from tqdm import tqdm

from ..game.rules import get_ruleset

def _review_game(target: int):
    """The first cuttlebot-vs-greedy deal whose game has ``target`` or more unforced decisions."""
    from ..play.agents import make_agent
    from ..play.arena import play_game
    from ..game.gamelog import read_game

    rules = get_ruleset("cuttle-cards")
    for deal in range(1000):
        log = play_game(rules, deal, (make_agent("cuttlebot"), make_agent("greedy")), deal).to_json()
        start, moves, _ = read_game(log)
        pos, unforced = start.copy(), 0
        for m in moves:
            unforced += pos.actor >= 0 and len(pos.legal_codes()) > 1
            pos.push(m)
        if unforced >= target:
            return deal, start, moves, unforced
    raise RuntimeError("no game long enough")


def run_review(quick: bool = False, progress: bool = False) -> dict[str, Any]:
    """Wall time to review a game of about 60 unforced decisions at 10,000 iterations a
    decision, both players, with one worker process per core."""
    from ..analysis.review import review_game
    from ..play.backends import make_backend

    iterations = 2_000 if quick else 10_000
    workers = os.cpu_count() or 1
    deal, start, moves, unforced = _review_game(60)
    bar = tqdm(total=unforced, desc="review benchmark", disable=not progress or None, file=sys.stderr)
    t0 = time.perf_counter()
    review = review_game(start, moves, iterations=iterations, seed=1, workers=workers,
                         runner=lambda n: make_backend("local", n),
                         progress=lambda done, total: bar.update(done - bar.n))
    wall = time.perf_counter() - t0
    bar.close()
    return {"deal": deal, "moves": len(moves), "decisions": len(review.decisions), "iterations_per_decision": iterations,
            "workers": workers, "wall_seconds": wall, "decisions_per_second": len(review.decisions) / wall,
            "target_seconds": 30.0}


def review_bench_text(fig: dict[str, Any]) -> list[str]:
    return [f"review: {fig['decisions']} decisions ({fig['moves']} moves, deal {fig['deal']}) at "
            f"{fig['iterations_per_decision']:,} iterations a decision on {fig['workers']} workers: "
            f"{fig['wall_seconds']:.1f} s ({fig['decisions_per_second']:.1f} decisions/s; target under "
            f"{fig['target_seconds']:.0f} s)"]
