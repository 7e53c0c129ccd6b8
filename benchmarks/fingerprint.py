"""Behaviour fingerprints: what a refactor must leave unchanged, recorded in one JSON file.

Same seed, same result: this records the deterministic outputs of the engine and the
analyser (every shipped position's analysis at a fixed seed and budget, perft counts,
selfplay summaries in every ruleset, a few arena matches, a review), with every wall-clock
figure left out. Record before a change, record after, and compare:

    python benchmarks/fingerprint.py --out before.json
    ... change ...
    python benchmarks/fingerprint.py --out after.json --compare before.json

``--compare`` lists every key whose value differs and exits 1 if any does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CLOCK_KEYS = {"seconds", "iterationsPerSecond", "compileSeconds", "elapsed", "secondsPerMove", "pliesPerSecond",
              "engineVersion", "stopReason"}


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in CLOCK_KEYS}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def record(quick: bool = False) -> dict[str, Any]:
    from cuttle_search.play.arena import run_arena
    from cuttle_search.game.errors import CuttleError
    from cuttle_search.game.gamelog import read_game
    from cuttle_search.game.perft import perft
    from cuttle_search.game.position import Position
    from cuttle_search.analysis.review import review_game
    from cuttle_search.game.rules import PRESETS, get_ruleset
    from cuttle_search.analysis import analyse
    from cuttle_search.play.selfplay import run_selfplay

    iterations = 2_000 if quick else 20_000
    out: dict[str, Any] = {"analyse": {}, "perft": {}, "selfplay": {}, "arena": {}}
    for path in sorted((ROOT / "positions").glob("*.json")):
        pos = Position.load(path)
        # each rollout at the full budget (keyed by its name), then the cut-off playout and the
        # opponent models at a quarter of it (keyed by their options)
        runs = [(rollout, {"rollout": rollout}, iterations) for rollout in ("greedy", "heuristic", "random", "value")]
        runs += [(",".join(f"{k}={v}" for k, v in extra.items()), extra, iterations // 4)
                 for extra in ({"rollout": "greedy-cut"}, {"model": "random"}, {"model": "paranoid", "rollout": "greedy"})]
        for name, options, budget in runs:
            try:
                result = analyse(pos, iterations=budget, seed=7, **options)
                out["analyse"][f"{path.stem}/{name}"] = _strip(result.deterministic_json())
            except CuttleError as e:  # not the viewer's decision: the refusal is behaviour too
                out["analyse"][f"{path.stem}/{name}"] = {"refused": str(e)}
        if pos.view is None and not pos.is_over:
            out["perft"][path.stem] = [perft(pos, d) for d in range(1, 4 if quick else 5)]
    for spec in list(PRESETS) + ["cuttle-cards:four=random", "cuttle-cards:ten-counters-scuttle"]:
        out["selfplay"][spec] = _strip(run_selfplay(get_ruleset(spec), 500 if quick else 3000, 3))
    pairs = [("greedy", "random"), ("cuttlebot", "greedy"), ("pimc:iterations=200", "greedy"),
             ("ismcts:iterations=300", "greedy"), ("ismcts:iterations=300,infer=1", "cuttlebot")]
    for a, b in pairs:
        result = run_arena(a, b, 4 if quick else 10, seed=5)
        out["arena"][f"{a} vs {b}"] = _strip(result.to_json())
    from cuttle_search.play.agents import make_agent
    from cuttle_search.play.arena import play_game

    log = play_game(get_ruleset("cuttle-cards"), 9, (make_agent("cuttlebot"), make_agent("greedy")), 9).to_json()
    start, moves, _ = read_game(log)
    out["review"] = _strip(review_game(start, moves, iterations=500, seed=2).to_json())
    return out


def _flatten(d: Any, prefix: str = "") -> dict[str, str]:
    """Each leaf section (one analysis, one perft row...) as a digest, for a short diff."""
    flat = {}
    for section, items in d.items():
        if isinstance(items, dict) and section != "review":
            for key, value in items.items():
                flat[f"{section}/{key}"] = hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]
        else:
            flat[section] = hashlib.sha256(json.dumps(items, sort_keys=True).encode()).hexdigest()[:16]
    return flat


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="where to write the fingerprints (JSON)")
    ap.add_argument("--compare", help="an earlier fingerprint file to compare with")
    ap.add_argument("--quick", action="store_true", help="smaller budgets (compare quick with quick)")
    args = ap.parse_args()
    data = record(args.quick)
    Path(args.out).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    mine = _flatten(data)
    print(f"{len(mine)} fingerprints written to {args.out}")
    if not args.compare:
        return 0
    theirs = _flatten(json.loads(Path(args.compare).read_text()))
    differ = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
    for key in differ:
        state = "new" if key not in theirs else "gone" if key not in mine else "differs"
        print(f"  {state}: {key}")
    print(f"{len(differ)} of {len(set(mine) | set(theirs))} differ from {args.compare}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
