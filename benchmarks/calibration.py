"""Are the analyser's win rates honest? Self-play in which every seat follows the analyser,
every decision's predicted score recorded against that seat's final result.

    python benchmarks/calibration.py                          # two seats, 600 games, 10,000 iterations
    python benchmarks/calibration.py --rules cutthroat --games 200
    python benchmarks/calibration.py --games 60 --iterations 2000 --json out.json

Each decision of each seat is analysed from that seat's view (``analyse`` on
``Position.view_of``), the best move is played, and the best move's score (a win 1, a
stalemate the equal share) is the prediction; the outcome is the seat's share of the
finished game. Forced decisions (one legal move: nothing is predicted) and chance are
skipped. Reported: observed minus predicted, the reliability table (ten bins), the expected
calibration error (ECE) beside its noise floor (the ECE a perfectly calibrated forecaster
with the same predictions shows on the same number of decisions, by simulation), the Brier
score, the logit slope and intercept (a logistic fit of the outcome on the prediction's
logit: slope below 1 is overconfidence, intercept below 0 optimism), each with a 95%
interval from resampling whole games; split by stage (the opening, plies 0-9; then by the
deck: more than 30 cards, 11 to 30, 10 or fewer) and by seat. Games of more seats score
shares (a two-seat stalemate is 1/2, a Cutthroat one 1/3), so the same figures apply.

The seeds (default 7100) are not ones the search was tuned on. Text on stdout, ``--json
FILE`` for the numbers; games run on ``--workers`` processes and the result does not
depend on how many.

The recalibration layer (``cuttle_search/analysis/calibration.py``) is fitted and checked
from saved runs, each on its own seeds:

    python benchmarks/calibration.py --fit run-7100.json             # print the fitted map
    python benchmarks/calibration.py --evaluate run-7300.json        # the figures, raw and calibrated

With two sides (two seats, Team) every decision also records the best-reply back-up of the
search's tree (``analyse(..., best_reply=True)``), and ``--evaluate`` gives its figures too.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BINS = 10
MIN_FIT = 200  # decisions a stage needs for a map of its own
STAGES = (("opening (plies 0-9)", lambda d: d["ply"] <= 9),
          ("deck > 30", lambda d: d["ply"] > 9 and d["deck"] > 30),
          ("deck 11-30", lambda d: d["ply"] > 9 and 11 <= d["deck"] <= 30),
          ("deck <= 10", lambda d: d["ply"] > 9 and d["deck"] <= 10))


def play_one(job: tuple[str, int, int, int, float | None, str | None]) -> list[dict[str, Any]]:
    """One self-play game (runs in a worker): its decisions, each with the prediction and
    the deciding seat's final share."""
    from cuttle_search.analysis import analyse
    from cuttle_search.game.position import Position
    from cuttle_search.game.rules import get_ruleset
    from cuttle_search.play.arena import deal_seed

    rules_spec, seed, game, iterations, widen, rollout = job
    options: dict[str, Any] = {} if widen is None else {"widen": widen}
    if rollout is not None:
        options["rollout"] = rollout
    rules = get_ruleset(rules_spec)
    pos = Position.deal(rules, seed=deal_seed(seed, game))
    rng = np.random.default_rng([seed, game])
    decisions = []
    ply = 0
    while not pos.is_over:
        seat = pos.actor
        legal = pos.legal_moves()
        if seat < 0:
            pos.push(legal[int(rng.integers(len(legal)))])
        elif len(legal) == 1:
            pos.push(legal[0])
        else:
            view = pos.view_of(seat)
            result = analyse(view, iterations=iterations, seed=int(rng.integers(0, 2**62)), best_reply=True,
                             **options)
            best = result.best
            decisions.append({"game": game, "ply": ply, "seat": seat, "deck": pos.deck_size,
                              "predicted": best.score, "proven": best.proven is not None,
                              "bestReply": best.best_reply_score})
            pos.push(best.move)
        ply += 1
    for d in decisions:
        d["outcome"] = pos.share_of(d["seat"])
    return decisions


# ---------------------------------------------------------------- the figures
# a logistic fit's coefficient beyond this is a fit running away (separated outcomes), not a figure
MAX_LOGIT_COEFFICIENT = 100.0


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def logit_fit(pred: np.ndarray, outcome: np.ndarray) -> tuple[float, float]:
    """(slope, intercept) of a logistic regression of the outcome (a share in [0, 1]) on the
    prediction's logit, by Newton's method; (1, 0) for a calibrated forecaster. NaN when the
    fit has no finite answer (outcomes that the prediction separates, as in a small resample
    of few decisions): Newton's steps then run away instead of settling."""
    x = _logit(pred)
    X = np.stack([x, np.ones_like(x)], axis=1)
    w = np.array([1.0, 0.0])
    for _ in range(50):
        p = 1 / (1 + np.exp(-np.clip(X @ w, -30, 30)))
        grad = X.T @ (outcome - p)
        hess = (X * (p * (1 - p))[:, None]).T @ X + 1e-9 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        w = w + step
        if np.abs(step).max() < 1e-10:
            break
    else:
        return float("nan"), float("nan")
    if not np.isfinite(w).all() or np.abs(w).max() > MAX_LOGIT_COEFFICIENT:
        return float("nan"), float("nan")
    return float(w[0]), float(w[1])


def ece(pred: np.ndarray, outcome: np.ndarray, bins: int = BINS) -> float:
    """Expected calibration error: the decisions' weighted mean of |observed - predicted|
    over equal-width bins of the prediction."""
    idx = np.minimum((pred * bins).astype(int), bins - 1)
    total = 0.0
    for b in range(bins):
        mask = idx == b
        if mask.any():
            total += mask.sum() * abs(outcome[mask].mean() - pred[mask].mean())
    return total / len(pred)


def figures(pred: np.ndarray, outcome: np.ndarray) -> dict[str, float]:
    slope, intercept = logit_fit(pred, outcome) if len(pred) > 2 else (float("nan"), float("nan"))
    return {"n": int(len(pred)), "predicted": float(pred.mean()), "observed": float(outcome.mean()),
            "bias": float(outcome.mean() - pred.mean()), "ece": ece(pred, outcome),
            "brier": float(((pred - outcome) ** 2).mean()), "slope": slope, "intercept": intercept}


def noise_floor(pred: np.ndarray, draws: int, rng: np.random.Generator) -> float:
    """The mean ECE of a calibrated forecaster with these predictions (outcomes drawn as
    wins with the predicted probability)."""
    return float(np.mean([ece(pred, (rng.random(len(pred)) < pred).astype(float)) for _ in range(draws)]))


def summarise(decisions: Sequence[dict[str, Any]], resamples: int = 400, seed: int = 1) -> dict[str, Any]:
    """Every figure, overall, by stage and by seat, with 95% intervals from resampling whole games."""
    rng = np.random.default_rng(seed)
    games = sorted({d["game"] for d in decisions})
    by_game = {g: [d for d in decisions if d["game"] == g] for g in games}

    def group(select) -> dict[str, Any]:
        rows = [d for d in decisions if select(d)]
        if not rows:
            return {"n": 0}
        pred = np.array([d["predicted"] for d in rows])
        out = np.array([d["outcome"] for d in rows])
        main = figures(pred, out)
        boot = {k: [] for k in ("bias", "ece", "brier", "slope", "intercept")}
        for _ in range(resamples):
            picked = rng.choice(len(games), len(games))
            sample = [d for i in picked for d in by_game[games[i]] if select(d)]
            if len(sample) < 3:
                continue
            f = figures(np.array([d["predicted"] for d in sample]), np.array([d["outcome"] for d in sample]))
            for k in boot:
                boot[k].append(f[k])
        # a figure whose fit failed in more than one resample in twenty gets no interval (shown n/a)
        finite = {k: [x for x in v if np.isfinite(x)] for k, v in boot.items()}
        main["intervals"] = {k: [float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))]
                             for k, v in finite.items() if v and len(v) >= 0.95 * len(boot[k])}
        main["eceNoiseFloor"] = noise_floor(pred, 100, rng)
        return main

    seats = sorted({d["seat"] for d in decisions})
    pred = np.array([d["predicted"] for d in decisions])
    out = np.array([d["outcome"] for d in decisions])
    idx = np.minimum((pred * BINS).astype(int), BINS - 1)
    table = [{"bin": f"{b / BINS:.1f}-{(b + 1) / BINS:.1f}", "n": int((idx == b).sum()),
              "predicted": float(pred[idx == b].mean()) if (idx == b).any() else None,
              "observed": float(out[idx == b].mean()) if (idx == b).any() else None} for b in range(BINS)]
    return {
        "games": len(games), "decisions": len(decisions),
        "overall": group(lambda d: True),
        "stages": {name: group(test) for name, test in STAGES},
        "seats": {f"p{q}": group(lambda d, q=q: d["seat"] == q) for q in seats},
        "firstDecisionOfP0": group(lambda d: d["seat"] == 0 and d["ply"] == min(
            x["ply"] for x in by_game[d["game"]] if x["seat"] == 0)),
        "unproven": group(lambda d: not d["proven"]),
        "reliability": table,
    }


def _line(name: str, f: dict[str, Any]) -> str:
    if not f.get("n"):
        return f"{name:<22} (no decisions)"
    iv = f.get("intervals", {})

    def ci(key: str) -> str:
        if key not in iv:
            return "[n/a]"
        lo, hi = iv[key]
        return f"[{lo:+.3f}, {hi:+.3f}]" if key in ("bias", "intercept") else f"[{lo:.3f}, {hi:.3f}]"

    return (f"{name:<22} {f['n']:>6}  pred {f['predicted']:.3f}  obs {f['observed']:.3f}  "
            f"obs-pred {f['bias']:+.3f} {ci('bias')}  ECE {f['ece']:.3f} (floor {f['eceNoiseFloor']:.3f})  "
            f"Brier {f['brier']:.3f}  slope {f['slope']:.2f} {ci('slope')}  intercept {f['intercept']:+.2f} {ci('intercept')}")


def report(summary: dict[str, Any], args: argparse.Namespace, seconds: float) -> str:
    lines = [f"calibration: rules {args.rules}, {summary['games']} games, {summary['decisions']:,} decisions, "
             f"{args.iterations:,} iterations a decision, {_rollout(getattr(args, 'rollout', None))} rollouts, "
             f"seed {args.seed}, {seconds:.0f} s",
             "", _line("overall", summary["overall"]), _line("unproven only", summary["unproven"]),
             _line("p0's first decision", summary["firstDecisionOfP0"])]
    lines += [_line(name, f) for name, f in summary["stages"].items()]
    lines += [_line(seat, f) for seat, f in summary["seats"].items()]
    lines += ["", "reliability (predicted bin: decisions, mean predicted, observed)"]
    for row in summary["reliability"]:
        if row["n"]:
            lines.append(f"  {row['bin']}: {row['n']:>6}  {row['predicted']:.3f}  {row['observed']:.3f}")
    return "\n".join(lines)


def fit(decisions: Sequence[dict[str, Any]]) -> tuple[tuple[float, float], ...]:
    """The map's (a, b) for each stage: a logistic fit of the outcome on the score's logit."""
    from cuttle_search.analysis.calibration import STAGES, stage_of

    out = []
    for k in range(len(STAGES)):
        rows = [d for d in decisions if stage_of(d["ply"], d["deck"]) == k and not d["proven"]]
        if len(rows) < MIN_FIT:  # too few to fit: borrow the previous stage's map
            out.append(out[-1] if out else (0.0, 1.0))
            continue
        slope, intercept = logit_fit(np.array([d["predicted"] for d in rows]), np.array([d["outcome"] for d in rows]))
        out.append((round(intercept, 3), round(slope, 3)))
    return tuple(out)


def with_calibration(decisions: Sequence[dict[str, Any]], rules: str, rollout: str | None = None) -> list[dict[str, Any]]:
    """The decisions with the calibrated prediction in place of the search's."""
    from cuttle_search.analysis.calibration import calibrate

    ro = _rollout(rollout)
    return [dict(d, predicted=d["predicted"] if d["proven"] else calibrate(rules, d["ply"], d["deck"], d["predicted"], ro))
            for d in decisions]


def with_best_reply(decisions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The decisions with the best-reply back-up (``Tree.best_reply_score``) in place of the
    search's score, where a run recorded one (two sides; not for a proven move)."""
    return [dict(d, predicted=d["bestReply"]) if d.get("bestReply") is not None and not d["proven"] else d
            for d in decisions]


def _rollout(rollout: str | None) -> str:
    """A run's rollout policy. A run names it; one that does not was recorded before the
    learned value became the analyser's default, when every search used ``greedy``."""
    return "greedy" if rollout is None else rollout


def has_map(rules: str, rollout: str | None = None) -> bool:
    """Whether analysis/calibration.py has a map for this ruleset and rollout policy."""
    from cuttle_search.analysis.calibration import MAPS

    return (rules, _rollout(rollout)) in MAPS


def fit_note(run: dict[str, Any]) -> str:
    """How a run stands to the map it is read with: on a seed the map was fitted on (its
    calibrated figures are in-sample), outside the iterations the map is given for, or
    held out."""
    from cuttle_search.analysis.calibration import FITTED, MAX_ITERATIONS, MIN_ITERATIONS

    if run["seed"] in FITTED["seeds"].get((run["rules"], _rollout(run.get("rollout"))), ()):
        return "a seed the map was fitted on: its calibrated figures are in-sample"
    if not MIN_ITERATIONS <= run["iterations"] <= MAX_ITERATIONS:
        return (f"not used to fit, but at {run['iterations']:,} iterations, outside the {MIN_ITERATIONS:,} to "
                f"{MAX_ITERATIONS:,} the map is given for")
    return "not used to fit"


def markdown_table(run: dict[str, Any], resamples: int = 300) -> str:
    """docs/strength.md's table of a saved run: the search's figures beside the calibrated
    ones (where the ruleset has a map; else the search's alone)."""
    mapped = has_map(run["rules"], run.get("rollout"))
    raw = summarise(run["decisions"], resamples)
    cal = summarise(with_calibration(run["decisions"], run["rules"], run.get("rollout")), resamples) if mapped else raw

    def cell(f: dict[str, Any], key: str, signed: bool = True) -> str:
        fmt = "{:+.3f}" if signed else "{:.2f}"
        if key not in f["intervals"]:
            return f"{fmt.format(f[key])} [n/a]"
        lo, hi = f["intervals"][key]
        return f"{fmt.format(f[key])} [{fmt.format(lo)}, {fmt.format(hi)}]"

    fitted = fit_note(run) if mapped else "no map for this ruleset"
    lines = [f"**{run['rules']}**, seed {run['seed']} ({fitted}): {run['games']} games, "
             f"{len(run['decisions']):,} decisions, {run['iterations']:,} iterations a decision", "",
             "| decisions | n | observed | predicted: search | obs - pred | slope | ECE (floor) | Brier |"
             + (" predicted: calibrated | obs - pred | slope | ECE | Brier |" if mapped else ""),
             "|---|---|---|---|---|---|---|---|" + ("---|---|---|---|---|" if mapped else "")]
    groups = ([("all", raw["overall"], cal["overall"])] + [(k, raw["stages"][k], cal["stages"][k]) for k in raw["stages"]]
              + [("p0's first decision", raw["firstDecisionOfP0"], cal["firstDecisionOfP0"])]
              + [(k, raw["seats"][k], cal["seats"][k]) for k in raw["seats"]])
    for name, r, c in groups:
        if not r.get("n"):
            lines.append(f"| {name} | 0 |" + " |" * (11 if mapped else 6))
            continue
        line = (f"| {name} | {r['n']:,} | {r['observed']:.3f} | {r['predicted']:.3f} | {cell(r, 'bias')} | "
                f"{cell(r, 'slope', False)} | {r['ece']:.3f} ({r['eceNoiseFloor']:.3f}) | {r['brier']:.3f} |")
        if mapped:
            line += (f" {c['predicted']:.3f} | {cell(c, 'bias')} | {cell(c, 'slope', False)} | {c['ece']:.3f} | "
                     f"{c['brier']:.3f} |")
        lines.append(line)
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    from cuttle_search.analysis.limits import ROLLOUT_NAMES, default_rollout, rollout_refusal
    from cuttle_search.game.rules import get_ruleset

    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--rules", default="cuttle-cards", help="the ruleset of the self-play games (default cuttle-cards)")
    ap.add_argument("--games", type=int, default=600, help="games, one deal each (default 600)")
    ap.add_argument("--iterations", type=int, default=10_000, help="the search's iterations a decision (default 10,000)")
    ap.add_argument("--seed", type=int, default=7100, help="the deals' seed (default 7100)")
    ap.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    ap.add_argument("--widen", type=float, default=None, help="the search's widening (default: the analyser's)")
    ap.add_argument("--rollout", default=None, choices=ROLLOUT_NAMES,
                    help="the search's rollout policy (default: the analyser's)")
    ap.add_argument("--resamples", type=int, default=400, help="resamples of whole games for the intervals (default 400)")
    ap.add_argument("--json", dest="json_out", default=None, help="write the figures (and every decision) here")
    ap.add_argument("--fit", nargs="+", default=None, metavar="RUN", help="fit the map from saved runs (--json files)")
    ap.add_argument("--evaluate", default=None, metavar="RUN", help="the figures of a saved run, raw and calibrated")
    ap.add_argument("--markdown", action="store_true", help="with --evaluate: docs/strength.md's table")
    args = ap.parse_args(argv)
    if args.fit:
        runs = [json.loads(Path(f).read_text()) for f in args.fit]
        for key in sorted({(r["rules"], _rollout(r.get("rollout"))) for r in runs}):
            mine = [r for r in runs if (r["rules"], _rollout(r.get("rollout"))) == key]
            decisions = [d for r in mine for d in r["decisions"]]
            print(f'    {key}: {fit(decisions)},  # {len(decisions):,} decisions, seeds {sorted({r["seed"] for r in mine})}')
        return 0
    if args.evaluate:
        run = json.loads(Path(args.evaluate).read_text())
        if args.markdown:
            print(markdown_table(run, args.resamples))
            return 0
        for key in ("rules", "iterations", "seed"):
            setattr(args, key, run[key])
        args.rollout = run.get("rollout")
        print(report(summarise(run["decisions"], args.resamples), args, run["seconds"]))
        if has_map(run["rules"], run.get("rollout")):
            print()
            print("calibrated (analysis/calibration.py):")
            print(report(summarise(with_calibration(run["decisions"], run["rules"], run.get("rollout")), args.resamples),
                         args, run["seconds"]))
        if any(d.get("bestReply") is not None for d in run["decisions"]):
            print()
            print("the best-reply back-up (Tree.best_reply_score), no map:")
            print(report(summarise(with_best_reply(run["decisions"]), args.resamples), args, run["seconds"]))
        return 0
    game = get_ruleset(args.rules)
    refusal = rollout_refusal(args.rollout, game)
    if refusal is not None:
        ap.error(f"--rollout {refusal}")
    if args.rollout is None:  # the analyser's default for this game, named in the run's file
        args.rollout = default_rollout(game)
    jobs = [(args.rules, args.seed, g, args.iterations, args.widen, args.rollout) for g in range(args.games)]
    began = time.perf_counter()
    decisions: list[dict[str, Any]] = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for rows in tqdm(pool.map(play_one, jobs, chunksize=1), total=args.games, desc="games", unit="game",
                         file=sys.stderr, disable=not sys.stderr.isatty()):
            decisions += rows
    seconds = time.perf_counter() - began
    summary = summarise(decisions, args.resamples)
    print(report(summary, args, seconds))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"rules": args.rules, "games": args.games,
                                                   "iterations": args.iterations, "seed": args.seed, "widen": args.widen, "rollout": args.rollout,
                                                   "seconds": round(seconds, 1), "summary": summary,
                                                   "decisions": decisions}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
