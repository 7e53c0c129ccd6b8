"""Game review: every decision of a game analysed from the deciding player's information set.

A game (a log of this project or a cuttle.cards history) is replayed; before each unforced
decision of the chosen players, the position is masked to the decider's view
(``Position.view_of``: what the engine records that seat knows) and analysed. The move
played is compared with the best move, and the loss is labelled only where the intervals
prove it: ``sure_loss`` is the best move's lower bound minus the played move's upper bound,
so a move the search barely looked at is never called a blunder on noise.
"""

from __future__ import annotations

import html
import statistics
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

from ..engine.rng import game_seed
from ..game.errors import CuttleError
from ..game.moves import Move
from ..game.position import Position, seat_name

LABELS = (("blunder", 0.20), ("mistake", 0.10), ("inaccuracy", 0.05))  # by sure loss in score


class ReviewError(CuttleError):
    """Review options that cannot be used; the message names the option."""


def label_for(sure_loss: float) -> str | None:
    """The label of a decision that surely lost ``sure_loss`` of score, or None."""
    for name, threshold in LABELS:
        if sure_loss >= threshold:
            return name
    return None


@dataclass(frozen=True)
class Decision:
    """One reviewed decision: the move played against the best move, from the decider's side."""

    ply: int  # moves played before it
    seat: int
    phase: str
    played: Move
    best: Move
    played_score: float
    played_interval: tuple[float, float]
    played_visits: int
    best_score: float
    best_interval: tuple[float, float]
    loss: float  # best score - played score, at least 0
    sure_loss: float  # best lower bound - played upper bound, at least 0
    label: str | None
    seconds: float

    def to_json(self) -> dict[str, Any]:
        r = lambda x: round(x, 6)  # noqa: E731
        return {
            "ply": self.ply, "player": seat_name(self.seat), "phase": self.phase,
            "played": self.played.text(), "best": self.best.text(),
            "playedScore": r(self.played_score), "playedInterval": [r(x) for x in self.played_interval],
            "playedVisits": self.played_visits,
            "bestScore": r(self.best_score), "bestInterval": [r(x) for x in self.best_interval],
            "loss": r(self.loss), "sureLoss": r(self.sure_loss), "label": self.label,
        }


@dataclass
class Review:
    """A reviewed game: the decisions in order and a summary per player."""

    rules: str
    players: dict[str, str]
    plies: int
    result: dict[str, Any]
    decisions: list[Decision]
    forced: dict[int, int]  # forced decisions skipped, per seat
    seats: tuple[int, ...]
    iterations: int | None
    time: float | None
    seed: int
    seconds: float = 0.0
    source: str = ""
    summary: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for seat in self.seats:
            mine = [d for d in self.decisions if d.seat == seat]
            counts = {name: sum(d.label == name for d in mine) for name, _ in LABELS}
            swings = sorted(mine, key=lambda d: -d.sure_loss)[:3]
            self.summary[seat_name(seat)] = {
                "decisions": len(mine),
                "forcedSkipped": self.forced.get(seat, 0),
                "accuracy": round(100 * (1 - statistics.fmean(d.loss for d in mine)), 1) if mine else None,
                **counts,
                "biggestSwings": [{"ply": d.ply, "played": d.played.text(), "best": d.best.text(),
                                   "sureLoss": round(d.sure_loss, 6)} for d in swings if d.sure_loss > 0],
            }

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules, "players": self.players, "plies": self.plies, "result": self.result,
            "iterationsPerDecision": self.iterations, "timePerDecision": self.time, "seed": self.seed,
            "labels": {name: threshold for name, threshold in LABELS},
            "summary": self.summary, "decisions": [d.to_json() for d in self.decisions],
            "seconds": round(self.seconds, 3), "source": self.source,
        }


def decision_seed(seed: int, ply: int) -> int:
    """The search seed of the decision before move ``ply``: any decision re-runs alone."""
    return int(game_seed(np.uint64(seed), ply)) & (2**63 - 1)


def _analyse_decision(job: tuple) -> tuple[int, Decision]:
    """Analyse one masked decision (runs in a worker process): (game index, decision)."""
    from ..game.rules import get_ruleset
    from . import analyse

    game, view_dict, rules_spec, ply, seat, played_code, iterations, seconds, seed, rollout = job
    view = Position.from_dict(view_dict, rules=get_ruleset(rules_spec))
    result = analyse(view, iterations=iterations, time=seconds, seed=decision_seed(seed, ply), rollout=rollout)
    stats = {m.move.code(): m for m in result.moves}
    best = result.moves[0]
    played = stats[played_code]
    loss = max(0.0, best.score - played.score)
    sure = 0.0 if played is best else max(0.0, best.interval[0] - played.interval[1])
    return game, Decision(ply, seat, view.phase_name, played.move, best.move, played.score, played.interval,
                          played.visits, best.score, best.interval, loss, sure, label_for(sure), result.seconds)


def review_games(
    games: list[tuple[Position, list[Move], dict[str, str]]],
    seats: tuple[int, ...] | None = None,
    iterations: int | None = None,
    time: float | None = None,
    seed: int = 0,
    workers: int = 1,
    rollout: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    backend: str = "local",
    address: str | None = None,
) -> list[Review]:
    """Review several games, each ``(start, moves, players)`` from a full-information start,
    for the decisions of ``seats`` (by default every seat).
    Every decision of every game is one job on the arena's backends: ``workers`` local
    processes, or Ray tasks (``backend="ray"``, ``address`` of a cluster); the result does
    not depend on which, nor on how many."""
    import time as clock

    from ..play.backends import make_backend
    from . import DEFAULT_EXPLORATION, DEFAULT_ROLLOUT, Limit
    from .ismcts import check_search_options

    limit = Limit(iterations, time)
    rollout = rollout or DEFAULT_ROLLOUT
    check_search_options(limit, 1, seed, rollout, DEFAULT_EXPLORATION)
    if not isinstance(workers, int) or not 1 <= workers <= 256:
        raise ReviewError(f"workers: expected a whole number from 1 to 256, got {workers!r}")
    jobs = []
    ends, forced = [], []
    for g, (start, moves, _players) in enumerate(games):
        if start.view is not None:
            raise ReviewError("start: a game is reviewed from a full-information start")
        pos = start.copy()
        skipped: dict[int, int] = {}
        for ply, move in enumerate(moves):
            seat = pos.actor
            if seat >= 0 and (seats is None or seat in seats):
                if len(pos.legal_codes()) == 1:
                    skipped[seat] = skipped.get(seat, 0) + 1
                else:
                    jobs.append((g, pos.view_of(seat).to_dict(), start.rules.spec, ply, seat, move.code(),
                                 limit.iterations, limit.time, seed, rollout))
            pos.push(move)
        ends.append(pos)
        forced.append(skipped)
    began = clock.perf_counter()
    found: list[list[Decision]] = [[] for _ in games]
    done = 0
    with make_backend(backend, workers if len(jobs) > 1 else 1, address) as runner:
        for g, d in runner.imap_unordered(_analyse_decision, jobs):
            found[g].append(d)
            done += 1
            if progress:
                progress(done, len(jobs))
    seconds = clock.perf_counter() - began
    reviews = []
    for (start, moves, players), end, decisions, skipped in zip(games, ends, found, forced):
        result = end.result() if end.is_over else {"status": "unfinished", "winner": None}
        reviews.append(Review(start.rules.spec, dict(players or {}), len(moves), result,
                              sorted(decisions, key=lambda d: d.ply), skipped,
                              tuple(range(start.rules.players)) if seats is None else tuple(seats), limit.iterations,
                              limit.time, seed, seconds))
    return reviews


def review_game(start: Position, moves: Iterable[Move], seats: tuple[int, ...] | None = None, iterations: int | None = None,
                time: float | None = None, seed: int = 0, workers: int = 1, rollout: str | None = None,
                progress: Callable[[int, int], None] | None = None, players: dict[str, str] | None = None,
                backend: str = "local", address: str | None = None) -> Review:
    """Review one game that plays ``moves`` from the full-information ``start``."""
    return review_games([(start, list(moves), players or {})], seats, iterations, time, seed, workers, rollout,
                        progress, backend, address)[0]


# ---------------------------------------------------------------- output
def review_text(review: Review, title: str) -> str:
    budget = f"{review.iterations:,} iterations" if review.iterations else f"{review.time:g} s"
    who = " vs ".join(f"{n} ({s})" for s, n in sorted(review.players.items())) or "a game"
    lines = [
        f"review of {title}: {who}, rules {review.rules}, {review.plies} moves, result {review.result['status']}"
        + (f" ({review.result['winner']})" if review.result.get("winner") else ""),
        f"{budget} a decision, seed {review.seed}, {len(review.decisions)} decisions in {review.seconds:.1f} s; "
        f"labels by sure loss (best lower bound - played upper bound): "
        + ", ".join(f"{n} >= {t:g}" for n, t in LABELS),
        "",
    ]
    header = ("ply", "player", "played", "best", "played score", "best score", "loss", "label")
    rows = [header]
    for d in review.decisions:
        rows.append((str(d.ply), seat_name(d.seat), d.played.text(), "=" if d.played == d.best else d.best.text(),
                     f"{d.played_score:.3f} ({d.played_interval[0]:.2f}-{d.played_interval[1]:.2f})",
                     f"{d.best_score:.3f} ({d.best_interval[0]:.2f}-{d.best_interval[1]:.2f})",
                     f"{d.loss:.3f}", d.label or ""))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    lines.append("")
    for seat, s in review.summary.items():
        acc = "-" if s["accuracy"] is None else f"{s['accuracy']:.1f}%"
        swings = ", ".join(f"ply {x['ply']} {x['played']} (best {x['best']}, -{x['sureLoss']:.2f})" for x in s["biggestSwings"])
        lines.append(f"{seat}: {s['decisions']} decisions ({s['forcedSkipped']} forced, skipped), accuracy {acc}, "
                     f"{s['blunder']} blunders, {s['mistake']} mistakes, {s['inaccuracy']} inaccuracies"
                     + (f"; biggest swings: {swings}" if swings else ""))
    return "\n".join(lines)


_COLOURS = {"blunder": "#c0392b", "mistake": "#e67e22", "inaccuracy": "#f1c40f", None: "#2c3e50"}


def review_html(review: Review, title: str) -> str:
    """A self-contained HTML report: p0's estimated win rate over the game as an inline SVG
    line with every labelled decision marked, then the table."""
    w, h, pad = 760, 260, 36
    plies = max(review.plies, 1)
    pts = []
    for d in review.decisions:
        p0 = d.best_score if d.seat == 0 else 1 - d.best_score
        pts.append((pad + (w - 2 * pad) * d.ply / plies, h - pad - (h - 2 * pad) * p0, d))
    path = " ".join(f"{'M' if i == 0 else 'L'}{x:.1f},{y:.1f}" for i, (x, y, _) in enumerate(pts))
    marks = "".join(
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{5 if d.label else 2.5}" fill="{_COLOURS[d.label]}">'
        f"<title>ply {d.ply} {seat_name(d.seat)}: {html.escape(d.played.text())} (best {html.escape(d.best.text())})"
        f"{' - ' + d.label if d.label else ''}</title></circle>"
        for x, y, d in pts
    )
    mid = h / 2
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" '
           f'aria-label="p0 win rate over the game">'
           f'<rect x="{pad}" y="{pad}" width="{w - 2 * pad}" height="{h - 2 * pad}" fill="#f7f7f7" stroke="#ccc"/>'
           f'<line x1="{pad}" y1="{mid}" x2="{w - pad}" y2="{mid}" stroke="#bbb" stroke-dasharray="4 4"/>'
           f'<text x="4" y="{pad + 4}" font-size="11">p0 1.0</text><text x="4" y="{h - pad + 4}" font-size="11">0.0</text>'
           f'<text x="{w / 2 - 20}" y="{h - 8}" font-size="11">move</text>'
           f'<path d="{path}" fill="none" stroke="#2c3e50" stroke-width="1.5"/>{marks}</svg>')
    rows = "".join(
        f"<tr style='background:{'#fdecea' if d.label in ('blunder', 'mistake') else 'white'}'>"
        f"<td>{d.ply}</td><td>{seat_name(d.seat)}</td><td>{html.escape(d.played.text())}</td>"
        f"<td>{html.escape(d.best.text())}</td><td>{d.played_score:.3f}</td><td>{d.best_score:.3f}</td>"
        f"<td>{d.loss:.3f}</td><td>{d.label or ''}</td></tr>"
        for d in review.decisions
    )
    summary = "".join(
        f"<li><b>{seat}</b>: accuracy {'-' if s['accuracy'] is None else s['accuracy']}%, {s['blunder']} blunders, "
        f"{s['mistake']} mistakes, {s['inaccuracy']} inaccuracies ({s['decisions']} decisions)</li>"
        for seat, s in review.summary.items()
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>cuttle_search review: {html.escape(title)}</title>"
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}</style></head><body>"
        f"<h1>Review of {html.escape(title)}</h1><p>rules {html.escape(review.rules)}, result "
        f"{html.escape(str(review.result['status']))}; marks: "
        + ", ".join(f"<span style='color:{_COLOURS[n]}'>&#9679;</span> {n}" for n, _ in LABELS)
        + f"</p>{svg}<ul>{summary}</ul><table><tr><th>ply</th><th>player</th><th>played</th><th>best</th>"
        f"<th>played score</th><th>best score</th><th>loss</th><th>label</th></tr>{rows}</table></body></html>\n"
    )
