"""The strength ladder: each agent against each other on paired deals; writes docs/strength.md.

    python benchmarks/strength.py                      # the full ladder: 200 paired deals a pairing
    python benchmarks/strength.py --deals 50 --only cuttlebot
    python benchmarks/strength.py --missing             # only the pairings not saved yet
    python benchmarks/strength.py --report-only        # rebuild docs/strength.md from the saved results
    python benchmarks/strength.py --backend ray --address auto   # on a Ray cluster (docs/arena.md)

Every finished pairing is saved at once to benchmarks/strength-results.json, so a long run
that stops early loses nothing, and docs/strength.md is rebuilt from whatever is saved. The
reported seed (2026) is not one the search was tuned on. A pairing gives the same result on
either backend (local worker processes or a Ray cluster) and with any number of workers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from cuttle_search.play.arena import run_arena
from cuttle_search.play.backends import make_backend

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "strength-results.json"
REPORT = ROOT / "docs" / "strength.md"
SEED = 2026

# (A, B, target score for A or None, note)
LADDER = [
    ("ismcts:iterations=10000", "random", 0.99, "ISMCTS at 10,000 iterations a move, greedy rollouts (the default)"),
    ("ismcts:iterations=10000", "greedy", 0.85, ""),
    ("ismcts:iterations=10000", "cuttlebot", 0.70, "cuttlebot sees both hands and the deck order"),
    ("ismcts:iterations=10000", "pimc:iterations=10000", None, "determinized flat Monte Carlo, equal rollouts, the same policy"),
    ("ismcts:time=EQUAL", "openspiel-ismcts:iterations=1000", 0.90,
     "equal time: ours gets OpenSpiel's mean time a move in an equal-iteration pairing"),
    ("ismcts:iterations=1000", "openspiel-ismcts:iterations=1000", 0.55,
     "equal iterations; about 50 times fewer iterations than at equal time, for a score only 0.05 lower"),
    ("greedy", "random", None, "baselines"),
    ("cuttlebot", "greedy", None, ""),
    ("pimc:iterations=10000", "cuttlebot", None, ""),
    ("ismcts:iterations=10000", "ismcts:iterations=10000,rollout=heuristic", None,
     "greedy against heuristic rollouts, head to head"),
    ("ismcts:iterations=10000,rollout=heuristic", "random", 0.99,
     "heuristic rollouts (the default before greedy rollouts), for comparison"),
    ("ismcts:iterations=10000,rollout=heuristic", "greedy", 0.85, ""),
    ("ismcts:iterations=10000,rollout=heuristic", "cuttlebot", 0.70, ""),
    ("ismcts:iterations=10000,rollout=heuristic", "pimc:iterations=10000,rollout=heuristic", None, ""),
    ("ismcts:iterations=1000,rollout=heuristic", "openspiel-ismcts:iterations=1000", 0.55, ""),
    ("ismcts:time=0.520,rollout=heuristic", "openspiel-ismcts:iterations=1000", 0.90, ""),
    ("ismcts:iterations=40000,rollout=heuristic", "greedy", None,
     "four times the budget: the score moves by less than its interval, so budget is not the limit"),
    ("oracle:iterations=10000,rollout=heuristic", "random", None,
     "oracle: the same search on the true full state (sees both hands and the deck); a ceiling, not a fair player"),
    ("oracle:iterations=10000,rollout=heuristic", "greedy", None, ""),
    ("oracle:iterations=10000,rollout=heuristic", "cuttlebot", None, ""),
    ("oracle:iterations=10000,rollout=heuristic", "openspiel-ismcts:iterations=1000", None,
     "what perfect information scores against OpenSpiel's IS-MCTS: a bound on the equal-time target"),
    ("ismcts:iterations=1000", "ismcts:iterations=1000,solver=0", None,
     "the exact solver (first answer at deck-out, MCTS-Solver in the tree) against the same search without it; "
     "measured again after the solver's speed work (table slots in pairs, killers): the same 190 wins, 1 draw and "
     "209 losses (1 worker, 5.8 ms a move each on a loaded machine)"),
]


def load_results() -> dict:
    if RESULTS.exists():
        return json.loads(RESULTS.read_text())
    return {}


def save_results(results: dict) -> None:
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")


def key(a: str, b: str) -> str:
    return f"{a} vs {b}"


def met_at_low_end(score: float, low: float, target: float) -> str:
    """Whether a target is met, judged at the interval's low end: "yes" when even the low end
    reaches it, "not at the low end" when only the score does, else "no" and the shortfall."""
    if low >= target:
        return "yes"
    if score >= target:
        return f"not at the low end ({low - target:+.2f})"
    return f"no ({score - target:+.2f})"


def write_report(results: dict) -> None:
    lines = [
        "# Playing strength",
        "",
        "Each row is a match on paired deals: every shuffled deck is played twice with the seats",
        "swapped, so the luck of the deal cancels. The score is A's (a draw counts half), with its 95%",
        "interval over the paired deals; Elo is the rating difference the score implies. Budgets",
        "are per decision. Rules: cuttle-cards. Seed: 2026 (the search was tuned on other seeds).",
        "Regenerate with `python benchmarks/strength.py`; each row's command reproduces it.",
        "\"met\" is judged at the interval's low end.",
        "",
        "**Rollouts:** since the learned value became the search's default with two seats and in",
        "Team (\"A learned value\" below), `ismcts` in such a row means `value` rollouts. Every row",
        "measured before that, which names no rollout, used `greedy` rollouts: add `rollout=greedy`",
        "to its `ismcts` specs to run it again.",
        "",
        "**These rows were measured with the 0.3.x search**, before progressive widening (what is",
        "now `widen=0`); the default search since 0.4.0 has its own rows, on fresh seeds, in",
        "\"Progressive widening (0.4.0)\" below, and \"Targets\" right after this table says where",
        "today's default search stands against each target. A full run of this ladder takes most",
        "of a day on the project's 2-core machine; `--missing` after clearing a row reruns just",
        "that row.",
        "",
        "The `oracle` rows run the same search on the true full state (it sees both hands and the",
        "deck order). No fair player can expect to beat them, so they bound what a target can ask:",
        "the gap between `ismcts` and `oracle` against one opponent is the price of hidden",
        "information plus what the search still leaves on the table.",
        "",
        "The pentanomial column counts each deal pair as one observation (0, 1/2, 1, 3/2 or 2",
        "points): Elo ± its 95% half-width, normalised Elo and the likelihood of superiority (LOS),",
        "as fastchess reports them (docs/arena.md, \"Statistics\").",
        "",
        "| A | B | deals (games) | A's score ± 95% | Elo [95%] | pentanomial Elo ± 95%, nElo, LOS | target | met | time/move A, B | command |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for a, b, target, _note in LADDER:
        r = results.get(key(a, b))
        if r is None:
            lines.append(f"| `{a}` | `{b}` | not run yet | | | | {'' if target is None else f'{target:.2f}'} | | | |")
            continue
        lo, hi = r["scoreInterval"]
        half = max(r["score"] - lo, hi - r["score"])
        elo_lo, elo_hi = r["eloInterval"]
        met = "" if target is None else met_at_low_end(r["score"], lo, target)
        tpm = f"{r['secondsPerMove']['A'] * 1000:.0f} ms, {r['secondsPerMove']['B'] * 1000:.0f} ms"
        p = r.get("pentanomial")
        penta = (f"{p['elo']} ± {p['eloError']}, nElo {p['nElo']}, LOS {100 * p['los']:.1f}%" if p
                 else "(saved before pentanomial reports)")
        lines.append(
            f"| `{r['agentA']}` | `{b}` | {r['pairedDeals']} ({r['games']}) | {r['score']:.3f} ± {half:.3f} | "
            f"{r['elo']} [{elo_lo}, {elo_hi}] | {penta} | {'' if target is None else f'{target:.2f}'} | {met} | {tpm} | "
            f"`{r['command']}` |"
        )
    lines += ["", "Notes:", ""] + [f"- {a} vs {b}: {n}" for a, b, _, n in LADDER if n]
    # the sections after the ladder (other benchmarks' results, written by hand) stay
    kept = ""
    if REPORT.exists():
        old = REPORT.read_text()
        at = old.find("\n## ")
        kept = old[at:] if at >= 0 else ""
    REPORT.write_text("\n".join(lines) + "\n" + kept)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200, help="paired deals per pairing")
    ap.add_argument("--workers", type=int, default=2, help="worker processes, or the CPUs of a local Ray instance")
    ap.add_argument("--backend", choices=["local", "ray"], default="local")
    ap.add_argument("--address", default=None, help="with --backend ray: the cluster to join (host:port or auto)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--only", default=None, help="run only pairings whose text contains this")
    ap.add_argument("--missing", action="store_true", help="run only pairings with no saved result")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    results = load_results()
    # one Ray connection for the whole ladder: each run_arena finds it and leaves it running
    keeper = make_backend(args.backend, args.workers, args.address) if args.backend == "ray" and not args.report_only else None
    try:
        run_ladder(args, results)
    finally:
        if keeper is not None:
            keeper.close()
    write_report(results)


def run_ladder(args, results: dict) -> None:
    if not args.report_only:
        for a, b, _target, _note in LADDER:
            if args.only and args.only not in key(a, b):
                continue
            if args.missing and key(a, b) in results:
                continue
            spec_a = a
            if "EQUAL" in a:
                # OpenSpiel's mean time a move, from a pairing at equal iterations (ours, any rollout)
                base = next((r for r in results.values() if r["agentA"].startswith("ismcts:iterations=1000")
                             and r["agentB"] == b), None)
                if base is None:
                    print(f"skip {key(a, b)}: run the equal-iteration pairing first", file=sys.stderr)
                    continue
                spec_a = a.replace("EQUAL", f"{base['secondsPerMove']['B']:.3f}")
            start = time.perf_counter()
            res = run_arena(spec_a, b, 2 * args.deals, "cuttle-cards", args.seed, args.workers, progress=True,
                            backend=args.backend, address=args.address).to_json()
            res["command"] = f"cuttle-search arena {spec_a} {b} --games {2 * args.deals} --seed {args.seed} --workers {args.workers}"
            res["wallSeconds"] = round(time.perf_counter() - start, 1)
            results[key(a, b)] = res
            save_results(results)
            write_report(results)
            p = res["pentanomial"]
            print(f"{key(spec_a, b)}: score {res['score']:.3f} {res['scoreInterval']} Elo {p['elo']} +/- {p['eloError']} "
                  f"Ptnml(0-2) {p['counts']} ({res['wallSeconds']} s, {args.backend})")


if __name__ == "__main__":
    main()
