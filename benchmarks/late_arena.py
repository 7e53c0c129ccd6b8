"""Late-deal arena: agent A against agent B on paired deals that start near the end of the deck.

Deal ``d`` is shuffled from ``(seed, d)`` like the arena's, and played by ``greedy`` in both
seats (chance from the same seed) up to the first main-phase decision with at most
``--deck`` cards left in the deck; a deal whose game ends first is passed over (so the
set of starts is fixed by the seed). From that position A and B play the game out twice,
A in p0 and then in p1, each seeing only its own view; both games draw chance moves from
one seed. Reports A's score with its 95% interval over the pairs (pentanomial, as the
arena), the mean thinking time per decision of each, and for a ``pimc-solver`` its
decisions by kind. One process, one thread: the agents' budgets are per decision.

    python benchmarks/late_arena.py A B [--pairs N] [--deck K] [--seed S] [--rules R] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cuttle_search.engine import layout as L  # noqa: E402
from cuttle_search.engine.apply import apply_move  # noqa: E402
from cuttle_search.game.gamelog import deal_position  # noqa: E402
from cuttle_search.game.position import Position  # noqa: E402
from cuttle_search.game.rules import get_ruleset  # noqa: E402
from cuttle_search.play.agents import make_agent  # noqa: E402
from cuttle_search.play.arena import deal_seed, play_game  # noqa: E402
from cuttle_search.play.statistics import pentanomial, pentanomial_estimate  # noqa: E402

SWAP_SALT = 0x5DEECE66D


def late_start(rules, deal: int, deck: int) -> Position | None:
    """The game of ``deal`` played by ``greedy`` in both seats up to the first main-phase
    decision with at most ``deck`` cards in the deck, or None when it ends first."""
    pos = deal_position(rules, deal)
    greedy = make_agent("greedy")
    rng = np.random.default_rng(deal)
    while not pos.is_over:
        actor = pos.actor
        if actor >= 0 and int(pos.state[L.F_PHASE]) == L.PH_MAIN and int(pos.state[L.F_DECK_N]) <= deck:
            return pos
        if actor == L.ACTOR_CHANCE:
            codes = pos.legal_codes()
            code = int(codes[rng.integers(len(codes))])
        else:
            code = greedy.choose(pos, actor, rng)
        apply_move(pos.state, pos.rules_array, np.int64(code))
    return None


def run(spec_a: str, spec_b: str, pairs: int, deck: int, seed: int, rules_spec: str, progress: bool = True) -> dict[str, Any]:
    rules = get_ruleset(rules_spec)
    a, b = make_agent(spec_a), make_agent(spec_b)
    points, plies = [], []
    seconds = {"a": 0.0, "b": 0.0}
    decisions = {"a": 0, "b": 0}
    index = 0
    bar = tqdm(total=pairs, desc="late arena", disable=not progress or None, file=sys.stderr)
    while len(points) < pairs:
        d = deal_seed(seed, index)
        index += 1
        start = late_start(rules, d, deck)
        if start is None:
            continue
        pair = 0.0
        for a_seat in (0, 1):
            agents = (a, b) if a_seat == 0 else (b, a)
            rec = play_game(rules, d, agents, rng_seed=d ^ SWAP_SALT, start=start)
            pair += rec.shares[a_seat]
            plies.append(len(rec.moves))
            seconds["a"] += rec.seconds[a_seat]
            seconds["b"] += rec.seconds[1 - a_seat]
            decisions["a"] += rec.decisions[a_seat]
            decisions["b"] += rec.decisions[1 - a_seat]
        points.append(pair)
        bar.update(1)
    bar.close()
    est = pentanomial_estimate(pentanomial(points))
    lo, hi = est.interval
    out = {
        "a": spec_a, "b": spec_b, "rules": rules.spec, "seed": seed, "deck": deck,
        "pairs": len(points), "games": 2 * len(points), "dealsTried": index,
        "score": est.score, "interval": [lo, hi], "pentanomial": est.counts,
        "meanPlies": float(np.mean(plies)),
        "msPerDecision": {k: 1e3 * seconds[k] / max(1, decisions[k]) for k in seconds},
        "decisions": decisions,
    }
    for key, agent in (("aStats", a), ("bStats", b)):
        if hasattr(agent, "stats"):
            out[key] = dict(agent.stats)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--deck", type=int, default=4, help="start at the first main decision with at most this many deck cards")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--rules", default="cuttle-cards")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    fig = run(args.a, args.b, args.pairs, args.deck, args.seed, args.rules)
    fig["seconds"] = time.perf_counter() - t0
    if not args.json:
        lo, hi = fig["interval"]
        print(f"{fig['a']} vs {fig['b']} ({fig['rules']}, starts with <= {fig['deck']} deck cards, seed {fig['seed']}): "
              f"{fig['pairs']} pairs ({fig['games']} games), A's score {fig['score']:.3f} [{lo:.3f}, {hi:.3f}], "
              f"pentanomial {fig['pentanomial']}, {fig['msPerDecision']['a']:.0f} and "
              f"{fig['msPerDecision']['b']:.0f} ms a decision, {fig['meanPlies']:.1f} plies a game")
    print(json.dumps(fig, indent=2))


if __name__ == "__main__":
    main()
