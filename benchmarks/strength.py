"""The strength ladder: today's default search against each opponent on paired deals, one
row per target of issue 23 (and the Team and Multiplayer targets); writes the table at the
top of docs/strength.md.

    python benchmarks/strength.py                      # the whole ladder (about 45 minutes on 2 cores)
    python benchmarks/strength.py --only cuttlebot     # only the rows whose text contains this
    python benchmarks/strength.py --missing            # only the rows not saved yet
    python benchmarks/strength.py --report-only        # rebuild the table from the saved results
    python benchmarks/strength.py --backend ray --address auto   # on a Ray cluster (docs/arena.md)
    python benchmarks/strength.py --only cuttlebot --results /tmp/r.json --report /tmp/s.md
                                                       # reproduce rows without touching the committed files

Every finished row is saved at once to benchmarks/strength-results.json, so a long run that
stops early loses nothing, and the table is rebuilt from whatever is saved. Every row plays
the deals of one seed (17100), which no search setting was tuned on; a row gives the same
result on either backend and with any number of workers, but for the rows at equal time,
whose budgets are seconds. The ladder measured with the 0.3.x search (seed 2026) is kept,
as it came, in benchmarks/strength-results-0.3.json and in the report's last section.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import NamedTuple
from pathlib import Path

from cuttle_search.game.rules import find_ruleset
from cuttle_search.play.arena import run_arena
from cuttle_search.play.backends import make_backend

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "strength-results.json"
REPORT = ROOT / "docs" / "strength.md"
SEED = 17100
DEFAULT_DEALS = 200


class Row(NamedTuple):
    """One pairing of the ladder. ``target`` is A's score it asks for and ``low`` the low end
    of the 95% interval it asks for (the target itself when the issue names no other).
    ``equal_time_of`` names the row at equal iterations whose B's mean time a move becomes
    A's budget (``time=EQUAL`` in ``a``)."""

    a: str
    b: str
    rules: str = "cuttle-cards"
    deals: int = DEFAULT_DEALS
    target: float | None = None
    low: float | None = None
    note: str = ""
    equal_time_of: str | None = None

    @property
    def key(self) -> str:
        return key(self.a, self.b, self.rules)


def key(a: str, b: str, rules: str = "cuttle-cards") -> str:
    return f"{a} vs {b}" + ("" if rules == "cuttle-cards" else f" ({rules})")


LADDER = [
    Row("ismcts:iterations=10000", "greedy", target=0.90, low=0.85,
        note="the default search (`value` rollouts with two seats and in Team, `greedy` in Cutthroat and Multiplayer)"),
    Row("ismcts:iterations=10000", "cuttlebot", target=0.95, low=0.92,
        note="`cuttlebot` sees both hands and the deck order"),
    Row("ismcts:iterations=10000", "random", target=0.99),
    Row("ismcts:iterations=10000", "pimc:iterations=10000",
        note="flat Monte Carlo over determinizations with `greedy` rollouts, at equal iterations: "
             "gives `pimc`'s time a move for the next row"),
    Row("ismcts:time=EQUAL", "pimc:iterations=10000", target=0.60, low=0.55,
        equal_time_of=key("ismcts:iterations=10000", "pimc:iterations=10000"),
        note="equal time: A's budget a move is `pimc`'s mean time a move in the row above"),
    Row("oracle:iterations=10000", "greedy",
        note="`oracle` is the same search on the true full state (every hand and the deck order): a ceiling, not a fair player"),
    Row("oracle:iterations=10000", "cuttlebot"),
    Row("greedy", "random", note="baselines"),
    Row("cuttlebot", "greedy"),
    Row("ismcts:iterations=10000", "pimc:iterations=10000", rules="cutthroat", deals=100,
        note="Cutthroat: each deal three times, A in each seat and copies of B in the two others; A's share (even 1/3)"),
    Row("ismcts:time=EQUAL", "pimc:iterations=10000", rules="cutthroat", deals=100, target=0.40,
        equal_time_of=key("ismcts:iterations=10000", "pimc:iterations=10000", "cutthroat"),
        note="Cutthroat at equal time"),
    Row("ismcts:iterations=10000", "greedy", rules="team", deals=100, target=0.65,
        note="Team: each deal four times, A in each seat with a B partner against two Bs; its side's share (even 1/2)"),
    Row("ismcts:iterations=10000", "greedy", rules="multiplayer", deals=100, target=0.45,
        note="Multiplayer with four seats, A against three Bs (even 1/4)"),
    Row("ismcts:iterations=100000", "greedy", target=0.90, low=0.85, note="ten times the budget"),
    Row("ismcts:iterations=100000", "cuttlebot", target=0.95, low=0.92),
    Row("ismcts:iterations=1000", "openspiel-ismcts:iterations=1000", deals=100,
        note="OpenSpiel's IS-MCTS (the `openspiel` extra) at equal iterations: gives its time a move for the next row"),
    Row("ismcts:time=EQUAL", "openspiel-ismcts:iterations=1000", deals=100, target=0.90,
        equal_time_of=key("ismcts:iterations=1000", "openspiel-ismcts:iterations=1000"),
        note="equal time against OpenSpiel's IS-MCTS"),
]


def load_results(path: Path = RESULTS) -> dict:
    if path.exists():
        return json.loads(path.read_text())
    return {}


def save_results(results: dict, path: Path = RESULTS) -> None:
    path.write_text(json.dumps(results, indent=1) + "\n")


def met_at_low_end(score: float, low: float, target: float, low_target: float | None = None) -> str:
    """Whether a target is met, judged at the interval's low end: "yes" when the score reaches
    ``target`` and the low end reaches ``low_target`` (the target itself when not given),
    "not at the low end" when only the score does, else "no" and the shortfall."""
    floor = target if low_target is None else low_target
    if score >= target and low >= floor:
        return "yes"
    if score >= target:
        return f"not at the low end ({low - floor:+.2f})"
    return f"no ({score - target:+.2f})"


def _target_text(row: Row) -> str:
    if row.target is None:
        return ""
    if row.low is None or row.low == row.target:
        return f"{row.target:.2f} at the low end"
    return f"{row.target:.2f}, low end {row.low:.2f}"


def _row_line(row: Row, r: dict | None) -> str:
    head = f"| `{row.a if r is None else r['agentA']}` | `{row.b}` | {row.rules} |"
    if r is None:
        return f"{head} not run yet | | | {_target_text(row)} | | | |"
    lo, hi = r["scoreInterval"]
    met = "" if row.target is None else met_at_low_end(r["score"], lo, row.target, row.low)
    tpm = f"{r['secondsPerMove']['A'] * 1000:.0f} ms, {r['secondsPerMove']['B'] * 1000:.0f} ms"
    if r.get("pentanomial"):
        p = r["pentanomial"]
        deals = f"{r['pairedDeals']} ({r['games']})"
        elo = f"{p['elo']} ± {p['eloError']} (LOS {100 * p['los']:.1f}%)"
    else:
        deals = f"{r['deals']} x {r['seats']} seats ({r['games']})"
        elo = f"even share {r['evenShare']:.3f}"
    return (f"{head} {deals} | **{r['score']:.3f}** [{lo:.3f}, {hi:.3f}] | {elo} | {_target_text(row)} | {met} | "
            f"{tpm} | `{r['command']}` |")


HEADER = """# Playing strength

The table below is the ladder of today's default search: each row a match on paired deals
(every shuffled deck played once with A in each seat, so the luck of the deal cancels), all
on the deals of seed {seed}, which no setting of the search was tuned on. The score is A's (a
draw or a stalemate counts as an even share), with its 95% interval over the deals. With two
seats the Elo column is the pentanomial one (each deal pair one observation, as fastchess
reports it; docs/arena.md, "Statistics"). "Met" is judged at the interval's low end: a row
meets its target when the score reaches it and the low end reaches the low end asked (the
target itself where issue 23 names no other). Budgets are per decision; `ismcts` is the
default search (widening 4, c = 0.7; `value` rollouts with two seats and in Team, `greedy`
in Cutthroat and Multiplayer). Rebuild the table with `python benchmarks/strength.py`
(about 45 minutes on the project's 2-core machine; `--only TEXT` runs the matching rows);
each row's command reproduces it alone. The sections after the table hold the other
measurements: every idea tried, the calibration, and the ladder of the 0.3.x search.

| A | B | rules | deals (games) | A's score [95%] | Elo ± 95% (two seats), or the even share | target | met | time a move A, B | command |
|---|---|---|---|---|---|---|---|---|---|"""


def write_report(results: dict, report: Path = REPORT) -> None:
    lines = HEADER.format(seed=SEED).splitlines()
    lines += [_row_line(row, results.get(row.key)) for row in LADDER]
    lines += ["", "Notes:", ""] + [f"- {row.key}: {row.note}" for row in LADDER if row.note]
    # the sections after the ladder (other benchmarks' results, written by hand) stay
    kept = ""
    if report.exists():
        old = report.read_text()
        at = old.find("\n## ")
        kept = old[at:] if at >= 0 else ""
    report.write_text("\n".join(lines) + "\n" + kept)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2, help="worker processes, or the CPUs of a local Ray instance")
    ap.add_argument("--backend", choices=["local", "ray"], default="local")
    ap.add_argument("--address", default=None, help="with --backend ray: the cluster to join (host:port or auto)")
    ap.add_argument("--only", default=None, help="run only rows whose text contains this")
    ap.add_argument("--missing", action="store_true", help="run only rows with no saved result")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--results", type=Path, default=RESULTS,
                    help="the saved rows, read and written (default: benchmarks/strength-results.json; another file "
                         "reproduces rows without touching the committed one)")
    ap.add_argument("--report", type=Path, default=REPORT,
                    help="the report written (default: docs/strength.md; its sections after the ladder are kept)")
    args = ap.parse_args()
    results = load_results(args.results)
    # one Ray connection for the whole ladder: each run_arena finds it and leaves it running
    keeper = make_backend(args.backend, args.workers, args.address) if args.backend == "ray" and not args.report_only else None
    try:
        if not args.report_only:
            run_ladder(args, results)
    finally:
        if keeper is not None:
            keeper.close()
    write_report(results, args.report)


def run_ladder(args, results: dict) -> None:
    for row in LADDER:
        if args.only and args.only not in row.key:
            continue
        if args.missing and row.key in results:
            continue
        spec_a = row.a
        if row.equal_time_of is not None:
            base = results.get(row.equal_time_of)
            if base is None:
                print(f"skip {row.key}: run {row.equal_time_of} first", file=sys.stderr)
                continue
            spec_a = row.a.replace("EQUAL", f"{base['secondsPerMove']['B']:.4f}")
        games = row.deals * find_ruleset(row.rules).players  # every deal once with A in each seat
        start = time.perf_counter()
        res = run_arena(spec_a, row.b, games, row.rules, SEED, args.workers, progress=True,
                        backend=args.backend, address=args.address).to_json()
        rules = "" if row.rules == "cuttle-cards" else f" --rules {row.rules}"
        res["command"] = f"cuttle-search arena {spec_a} {row.b}{rules} --games {res['games']} --seed {SEED} --workers {args.workers}"
        res["wallSeconds"] = round(time.perf_counter() - start, 1)
        results[row.key] = res
        save_results(results, args.results)
        write_report(results, args.report)
        print(f"{row.key}: {spec_a} scored {res['score']:.3f} {res['scoreInterval']} ({res['wallSeconds']} s, {args.backend})")


if __name__ == "__main__":
    main()
