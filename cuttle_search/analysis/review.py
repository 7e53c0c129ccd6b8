"""Game review: every decision of a game analysed from the deciding player's information set.

A game (a log of this project or a cuttle.cards history) is replayed; before each unforced
decision of the chosen players, the position is masked to the decider's view
(``Position.view_of``: what the engine records that seat knows) and analysed. The move
played is compared with the best move, and the loss is labelled only where the intervals
prove it: ``sure_loss`` is the best move's lower bound minus the played move's upper bound,
so a move the search barely looked at is never called a blunder on noise.
"""

from __future__ import annotations

import functools
import html
import statistics
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

from ..engine.rng import game_seed
from ..engine.seats import same_side
from ..game.errors import CuttleError
from ..game.moves import Move
from ..game.position import Position
from ..game.seats import seat_name
from .limits import DEFAULT_EXPLORATION, DEFAULT_ITERATIONS, CancelEvent, Limit, check_cancel
from .result import MoveStat

LABELS = (("blunder", 0.20), ("mistake", 0.10), ("inaccuracy", 0.05))  # by sure loss in score
RANDOM_DISCARD_SAMPLES = 6  # other discards a random 4's luck compares with, at most


class ReviewError(CuttleError):
    """Review options that cannot be used; the message names the option."""


class ReviewStopped(Exception):
    """A review's ``cancel`` was set (not an input error): no review is returned."""


def label_for(sure_loss: float) -> str | None:
    """The label of a decision that surely lost ``sure_loss`` of score, or None."""
    for name, threshold in LABELS:
        if sure_loss >= threshold:
            return name
    return None


def _r(x: float) -> float:
    return round(x, 6)


@dataclass(frozen=True)
class Candidate:
    """One move the search looked at, from the decider's side."""

    move: Move
    visits: int
    score: float
    interval: tuple[float, float]
    gap: float  # the best move's score minus this one's (negative: a move of fewer visits scored higher)
    proven: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"move": self.move.text(), "visits": self.visits, "score": _r(self.score),
                "interval": [_r(x) for x in self.interval], "gap": _r(self.gap),
                **({"proven": self.proven} if self.proven is not None else {})}


@dataclass(frozen=True)
class Luck:
    """What chance did for a player. For the player's own move that brought deck cards to
    light (a draw, a 5's draws, a 7's reveal; ``move`` is that move): ``before`` is the
    move's score with those cards unknown, ``after`` with them known, each from an equal
    search of that one move (same budget, same seed). For a random 4's discards from the
    player's hand (``move`` is the chance outcome): ``after`` is the player's best score at
    its next decision, ``before`` the mean of the same over the discards chance could have
    made (this one among them). ``luck`` is the difference."""

    ply: int
    seat: int
    move: Move
    cards: tuple[str, ...]
    before: float
    after: float

    @property
    def luck(self) -> float:
        return self.after - self.before

    def to_json(self) -> dict[str, Any]:
        return {"ply": self.ply, "player": seat_name(self.seat), "move": self.move.text(), "cards": list(self.cards),
                "before": _r(self.before), "after": _r(self.after), "luck": _r(self.luck)}


@dataclass(frozen=True)
class Decision:
    """One reviewed decision: the move played against the best move, from the decider's
    side and view (``seat``). When the search gave the played move fewer visits than the
    best, the played move's figures come from a second search of that move alone with as
    many iterations as the best move got (``played_researched``), so a label never rests
    on a starved estimate."""

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
    candidates: tuple[Candidate, ...] = ()
    played_researched: bool = False
    luck: Luck | None = None
    # the two scores recalibrated on self-play where a map applies (analysis/calibration.py)
    played_calibrated: float | None = None
    best_calibrated: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "ply": self.ply, "player": seat_name(self.seat), "view": seat_name(self.seat), "phase": self.phase,
            "played": self.played.text(), "best": self.best.text(),
            "playedScore": _r(self.played_score), "playedInterval": [_r(x) for x in self.played_interval],
            "playedVisits": self.played_visits, "playedResearched": self.played_researched,
            "bestScore": _r(self.best_score), "bestInterval": [_r(x) for x in self.best_interval],
            **({"playedCalibratedScore": _r(self.played_calibrated), "bestCalibratedScore": _r(self.best_calibrated)}
               if self.played_calibrated is not None and self.best_calibrated is not None else {}),
            "loss": _r(self.loss), "sureLoss": _r(self.sure_loss), "label": self.label,
            "candidates": [c.to_json() for c in self.candidates],
            **({"luck": self.luck.to_json()} if self.luck is not None else {}),
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
    shares: dict[int, float | None] = field(default_factory=dict)  # each seat's share of the result
    chance_luck: list[Luck] = field(default_factory=list)  # chance events (a random 4's discards)
    forced_luck: list[Luck] = field(default_factory=list)  # cards a forced move of a reviewed seat drew
    winners: tuple[int, ...] = ()  # every seat whose side won (a Team win names both partners)
    side_of: tuple[int, ...] = (0, 1)  # each seat's side, named by its first seat (Team: 0, 1, 0, 1)
    luck_measured: bool = True  # False under ``luck=False``: the summary's luck figures are then None

    @property
    def seat_count(self) -> int:
        """The game's seats."""
        return len(self.side_of)

    @property
    def sides(self) -> int:
        """The sides that play for the win (two in Team)."""
        return len(set(self.side_of))

    @property
    def p0_side(self) -> tuple[int, ...]:
        """The seats of p0's side (the chart's line, with two sides)."""
        return tuple(q for q, side in enumerate(self.side_of) if side == self.side_of[0])

    def __post_init__(self) -> None:
        totals = {}
        for seat in self.seats:
            totals[seat] = sum(x.luck for x in self._luck_of(seat))
        every = len(self.seats) == self.seat_count and self.sides > 1
        by_side: dict[int, float] = {}  # each side's luck (partners' added), with every seat reviewed
        if every:
            for seat in self.seats:
                by_side[self.side_of[seat]] = by_side.get(self.side_of[seat], 0.0) + totals[seat]
        for seat in self.seats:
            mine = [d for d in self.decisions if d.seat == seat]
            counts = {name: sum(d.label == name for d in mine) for name, _ in LABELS}
            swings = sorted(mine, key=lambda d: -d.sure_loss)[:3]
            luck = self._luck_of(seat)
            total = totals[seat]
            share = self.shares.get(seat)
            # as GNU Backgammon nets the dice: one's side's luck less the other sides' (their
            # mean), so that the adjusted results share out the game as the results do
            mine_side = self.side_of[seat]
            net = (by_side[mine_side] - statistics.fmean(v for k, v in by_side.items() if k != mine_side)) if every else None
            self.summary[seat_name(seat)] = {
                "decisions": len(mine),
                "forcedSkipped": self.forced.get(seat, 0),
                "accuracy": round(100 * (1 - statistics.fmean(d.loss for d in mine)), 1) if mine else None,
                **counts,
                "biggestSwings": [{"ply": d.ply, "played": d.played.text(), "best": d.best.text(),
                                   "sureLoss": round(d.sure_loss, 6)} for d in swings if d.sure_loss > 0],
                "luck": _r(total) if self.luck_measured else None,
                "luckEvents": len(luck) if self.luck_measured else None,
                "result": share,
                "luckAdjustedResult": None if share is None or net is None or not self.luck_measured else _r(share - net),
            }

    def _luck_of(self, seat: int) -> list[Luck]:
        """Every luck event of ``seat``: its decisions', its forced moves' and chance's."""
        return ([d.luck for d in self.decisions if d.seat == seat and d.luck is not None]
                + [x for x in self.forced_luck + self.chance_luck if x.seat == seat])

    @property
    def winner(self) -> str | None:
        return self.result.get("winner")

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules, "players": self.players, "plies": self.plies, "result": self.result,
            "winner": self.winner, "winners": [seat_name(q) for q in self.winners],
            "reviewed": [seat_name(q) for q in self.seats], "luckMeasured": self.luck_measured,
            "iterationsPerDecision": self.iterations, "timePerDecision": self.time, "seed": self.seed,
            "labels": {name: threshold for name, threshold in LABELS},
            "summary": self.summary, "decisions": [d.to_json() for d in self.decisions],
            "chanceLuck": [x.to_json() for x in self.chance_luck],
            "forcedLuck": [x.to_json() for x in self.forced_luck],
            "seconds": round(self.seconds, 3), "source": self.source,
        }


def decision_seed(seed: int, ply: int) -> int:
    """The search seed of the decision before move ``ply``: any decision re-runs alone."""
    return int(game_seed(np.uint64(seed), ply)) & (2**63 - 1)


def _one_move(view: Position, move: Move, iterations: int, seed: int, rollout: str | None,
              cancel: CancelEvent | None = None) -> MoveStat:
    """The figures of ``move`` alone: a search whose root may only play it."""
    from .analyser import analyse

    return analyse(view, iterations=iterations, seed=seed, rollout=rollout, allow_moves=[move.text()],
                   cancel=cancel).moves[0]


def _analyse_decision(job: tuple, cancel: CancelEvent | None = None) -> tuple[int, Decision]:
    """Analyse one masked decision (runs in a worker process): (game index, decision)."""
    from ..game.rules import get_ruleset
    from .analyser import analyse

    (game, view_dict, rules_spec, ply, seat, played_code, iterations, seconds, seed, rollout,
     luck_dict, luck_cards) = job
    rules = get_ruleset(rules_spec)
    view = Position.from_dict(view_dict, rules=rules)
    dseed = decision_seed(seed, ply)
    result = analyse(view, iterations=iterations, time=seconds, seed=dseed, rollout=rollout, cancel=cancel)
    stats = {m.move.code(): m for m in result.moves}
    best = result.moves[0]
    played = stats[played_code]
    searched = result.stop_reason != "proven" and not best.solved
    again = (dseed + 1) & (2**63 - 1)
    equal = max(best.visits, 1)
    alone = None
    if searched and (luck_dict is not None or (played is not best and played.visits < best.visits)):
        alone = _one_move(view, played.move, equal, again, rollout, cancel)
    resecond = alone is not None and played is not best and played.visits < best.visits
    p_stat = alone if resecond else played
    assert p_stat is not None
    p_score, p_interval, p_visits = p_stat.score, p_stat.interval, p_stat.visits
    loss = max(0.0, best.score - p_score)
    sure = 0.0 if played is best else max(0.0, best.interval[0] - p_interval[1])
    luck = None
    if luck_dict is not None and alone is not None:
        known = Position.from_dict(luck_dict, rules=rules)
        after = _one_move(known, played.move, equal, again, rollout, cancel)
        luck = Luck(ply, seat, played.move, tuple(luck_cards), alone.score, after.score)
    candidates = tuple(Candidate(m.move, m.visits, m.score, m.interval, best.score - m.score, m.proven)
                       for m in result.moves)
    return game, Decision(ply, seat, view.phase_name, played.move, best.move, p_score, p_interval,
                          p_visits, best.score, best.interval, loss, sure, label_for(sure), result.seconds,
                          candidates, resecond, luck, p_stat.calibrated_score, best.calibrated_score)


def _run_job(job: tuple, cancel: CancelEvent | None = None) -> tuple[str, int, Any]:
    """One job of a review (runs in a worker): a decision, the luck of a forced move, or
    the luck of a chance event. ``cancel`` (in this process only) ends its searches."""
    if job[0] == "chance":
        return ("chance", *_chance_luck(job[1:], cancel))
    if job[0] == "forced":
        return ("forced", *_forced_luck(job[1:], cancel))
    return ("decision", *_analyse_decision(job[1:], cancel))


def _forced_luck(job: tuple, cancel: CancelEvent | None = None) -> tuple[int, Luck]:
    """The luck of the cards a forced move (one legal move, not reviewed) brought to its
    player's knowledge: its one move searched with those cards unknown and known, with the
    decision's budget and seed (``Luck``)."""
    from ..game.rules import get_ruleset
    from .analyser import analyse

    game, view_dict, luck_dict, cards, rules_spec, ply, seat, move_text, iterations, seconds, seed, rollout = job
    rules = get_ruleset(rules_spec)
    dseed = decision_seed(seed, ply)

    def score(view_dict: dict[str, Any]) -> float:
        return analyse(Position.from_dict(view_dict, rules=rules), iterations=iterations, time=seconds, seed=dseed,
                       rollout=rollout, estimate_only_move=True, cancel=cancel).moves[0].score

    return game, Luck(ply, seat, Move.parse(move_text, None), tuple(cards), score(view_dict), score(luck_dict))


def _chance_luck(job: tuple, cancel: CancelEvent | None = None) -> tuple[int, Luck | None]:
    """The luck of a random 4's discards for its victim (see ``Luck``), or None where the
    victim's next decision is forced (its score is not estimated)."""
    from ..game.rules import get_ruleset
    from . import analyse

    game, ply, seat, move_text, rules_spec, actual_dict, other_dicts, cards, iterations, seconds, seed, rollout = job
    rules = get_ruleset(rules_spec)
    dseed = decision_seed(seed, ply) ^ (0x9E3779B97F4A7C15 & (2**63 - 1))  # apart from the decision's own seed

    def best(view_dict: dict[str, Any]) -> float | None:
        """The best score at the decision, None for a forced one (one legal move: not estimated)."""
        result = analyse(Position.from_dict(view_dict, rules=rules), iterations=iterations, time=seconds, seed=dseed,
                         rollout=rollout, cancel=cancel)
        return None if result.stop_reason == "forced" else result.best.score

    after = best(actual_dict)
    others = [x for x in (best(d) for d in other_dicts) if x is not None]
    if after is None or not others:
        return game, None
    return game, Luck(ply, seat, Move.parse(move_text, None), tuple(cards), statistics.fmean(others), after)


def _chance_job(line: list[Position], moves: list[Move], ply: int, g: int, seats: tuple[int, ...] | None,
                rules_spec: str, limit: Any, seed: int, rollout: str | None) -> tuple | None:
    """The job for the luck of the random discard played at ``ply``, or None: for its victim
    (when reviewed), at the victim's next decision if no other seat decides first; the other
    discards are every set chance could have drawn from the victim's hand, or
    ``RANDOM_DISCARD_SAMPLES`` of them drawn with the decision's seed."""
    from itertools import combinations

    from ..game.cards import card_str, cards_in

    move, here = moves[ply], line[ply]
    victims = [q for q in range(here.rules.players) if all(here.hand(q) >> c & 1 for c in move.cards)]
    if len(victims) != 1 or (seats is not None and victims[0] not in seats):
        return None
    seat = victims[0]
    k = ply + 1
    while k < len(line) and not line[k].is_over and line[k].actor != seat and line[k].actor < 0:
        k += 1
    if k >= len(line) or line[k].is_over or line[k].actor != seat:
        return None
    hand = sorted(cards_in(here.hand(seat)))
    sets = list(combinations(hand, len(move.cards)))
    if len(sets) < 2:  # chance had no choice
        return None
    if len(sets) > RANDOM_DISCARD_SAMPLES:
        rng = np.random.default_rng(decision_seed(seed, ply))
        sets = [sets[i] for i in sorted(rng.choice(len(sets), RANDOM_DISCARD_SAMPLES, replace=False))]
    others = [line[k].with_discard_replaced(seat, move.cards, other).view_of(seat).to_dict() for other in sets]
    return ("chance", g, ply, seat, move.text(), rules_spec, line[k].view_of(seat).to_dict(), others,
            [card_str(c) for c in move.cards], limit.iterations, limit.time, seed, rollout)


def _luck_view(line: list[Position], ply: int, seat: int) -> tuple[dict[str, Any] | None, list[str]]:
    """The view for the luck of the move played at ``ply`` by ``seat``: its position with
    the deck cards that move brought to ``seat``'s knowledge named (None when it brought
    none). Those cards are the top of the deck, counted down from the top, that ``seat``
    knows once the move has played out: at its own next decision, or the next main
    decision of another seat, whichever comes first (after a draw, the card drawn; after a
    7, the cards it revealed; after a 5, the cards drawn)."""
    here = line[ply]
    if here.rules.players < 2:
        return None, []
    for later in line[ply + 1:]:
        if later.is_over:
            return None, []
        if later.actor == seat or (later.actor >= 0 and later.phase_name == "main"):
            break
    else:
        return None, []
    known = later.known_to(seat)
    before = here.deck_known_to(seat)
    deck = here.deck_top_first()
    after = before
    while after < len(deck) and known >> deck[after] & 1:
        after += 1
    if after == before:
        return None, []
    from ..game.cards import card_str

    return here.with_deck_top_known(after).view_of(seat).to_dict(), [card_str(c) for c in deck[before:after]]


class _InProcess:
    """Runs review's jobs one after another in this process (no runner handed in)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def imap_unordered(self, fn: Callable[[Any], Any], jobs: Iterable[Any]) -> Iterable[Any]:
        return map(fn, jobs)

    def __enter__(self) -> "_InProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        pass


_in_process = _InProcess


def review_games(
    games: list[tuple[Position, list[Move], dict[str, str]]],
    seats: tuple[int, ...] | None = None,
    iterations: int | None = None,
    time: float | None = None,
    seed: int = 0,
    workers: int = 1,
    rollout: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    runner: Callable[[int], Any] | None = None,
    luck: bool = True,
    cancel: CancelEvent | None = None,
) -> list[Review]:
    """Review several games, each ``(start, moves, players)`` from a full-information start,
    for the decisions of ``seats`` (by default every seat), with a budget of ``iterations``
    and/or ``time`` a decision (neither: ``DEFAULT_ITERATIONS``). ``luck`` also measures
    what chance did for each reviewed player (``Luck``).
    Every decision of every game is one job. ``runner(n)`` opens what runs them with ``n``
    workers (a context manager whose value has ``imap_unordered(fn, jobs)``: the arena's
    backends, ``play.backends.make_backend`` bound to a backend, handed in by the caller);
    without one, ``workers`` must be 1 and the jobs run in this process. The result does not
    depend on which runner, nor on how many workers. ``cancel`` (anything with ``is_set()``;
    in this process only, without a runner) ends the search in progress at once once set,
    and the review raises :class:`ReviewStopped`."""
    import time as clock

    from .ismcts import check_search_options

    if iterations is None and time is None:
        iterations = DEFAULT_ITERATIONS
    limit = Limit(iterations, time)
    check_search_options(limit, 1, seed, rollout, DEFAULT_EXPLORATION)
    if not isinstance(workers, int) or not 1 <= workers <= 256:
        raise ReviewError(f"workers: expected a whole number from 1 to 256, got {workers!r}")
    if runner is None and workers != 1:
        raise ReviewError("workers: more than one worker needs a runner (play.backends.make_backend)")
    check_cancel(cancel)
    if cancel is not None and runner is not None:
        raise ReviewError("cancel: a review is cancelled in this process only (no runner)")
    run_job = _run_job if cancel is None else functools.partial(_run_job, cancel=cancel)
    jobs: list[tuple] = []
    ends, forced = [], []
    for g, (start, moves, _players) in enumerate(games):
        if start.view is not None:
            raise ReviewError("start: a game is reviewed from a full-information start")
        if seats is not None:
            for q in seats:
                if not 0 <= q < start.rules.players:
                    raise ReviewError(f"player: {seat_name(q)} is not a seat of this {start.rules.players}-seat game "
                                      f"(p0 to {seat_name(start.rules.players - 1)})")
        line = [start.copy()]
        for move in moves:
            pos = line[-1].copy()
            pos.push(move)
            line.append(pos)
        skipped: dict[int, int] = {}
        for ply, move in enumerate(moves):
            pos = line[ply]
            seat = pos.actor
            if seat >= 0 and (seats is None or seat in seats):
                if len(pos.legal_codes()) == 1:
                    skipped[seat] = skipped.get(seat, 0) + 1
                    luck_dict, luck_cards = _luck_view(line, ply, seat) if luck else (None, [])
                    if luck_dict is not None:  # a forced draw: not reviewed, but its cards are luck
                        jobs.append(("forced", g, pos.view_of(seat).to_dict(), luck_dict, luck_cards, start.rules.spec,
                                     ply, seat, move.text(), limit.iterations, limit.time, seed, rollout))
                else:
                    luck_dict, luck_cards = _luck_view(line, ply, seat) if luck else (None, [])
                    jobs.append(("decision", g, pos.view_of(seat).to_dict(), start.rules.spec, ply, seat, move.code(),
                                 limit.iterations, limit.time, seed, rollout, luck_dict, luck_cards))
            elif seat < 0 and luck and move.kind == "random-discard":
                job = _chance_job(line, moves, ply, g, seats, start.rules.spec, limit, seed, rollout)
                if job is not None:
                    jobs.append(job)
        ends.append(line[-1])
        forced.append(skipped)
    began = clock.perf_counter()
    found: list[list[Decision]] = [[] for _ in games]
    chance: list[list[Luck]] = [[] for _ in games]
    forced_luck: list[list[Luck]] = [[] for _ in games]
    done = 0
    with (runner or _in_process)(workers if len(jobs) > 1 else 1) as run:
        for kind, g, item in run.imap_unordered(run_job, jobs):
            if cancel is not None and cancel.is_set():
                raise ReviewStopped()
            if item is not None:
                if kind == "decision":
                    found[g].append(item)
                else:
                    (chance if kind == "chance" else forced_luck)[g].append(item)
            done += 1
            if progress:
                progress(done, len(jobs))
    seconds = clock.perf_counter() - began
    reviews = []
    for (start, moves, players), end, decisions, skipped, events, drawn in zip(games, ends, found, forced, chance,
                                                                               forced_luck):
        result = end.result() if end.is_over else {"status": "unfinished", "winner": None}
        reviewed = tuple(range(start.rules.players)) if seats is None else tuple(seats)
        reviews.append(Review(start.rules.spec, dict(players or {}), len(moves), result,
                              sorted(decisions, key=lambda d: d.ply), skipped, reviewed, limit.iterations,
                              limit.time, seed, seconds, shares={q: end.share_of(q) for q in reviewed},
                              chance_luck=sorted(events, key=lambda x: x.ply),
                              forced_luck=sorted(drawn, key=lambda x: x.ply),
                              winners=tuple(end.winners()), luck_measured=luck,
                              side_of=tuple(next(p for p in range(q + 1) if same_side(start.state, start.rules_array, p, q))
                                            for q in range(start.rules.players))))
    return reviews


def review_game(start: Position, moves: Iterable[Move], seats: tuple[int, ...] | None = None, iterations: int | None = None,
                time: float | None = None, seed: int = 0, workers: int = 1, rollout: str | None = None,
                progress: Callable[[int, int], None] | None = None, players: dict[str, str] | None = None,
                runner: Callable[[int], Any] | None = None, luck: bool = True,
                cancel: CancelEvent | None = None) -> Review:
    """Review one game that plays ``moves`` from the full-information ``start``."""
    return review_games([(start, list(moves), players or {})], seats, iterations, time, seed, workers, rollout,
                        progress, runner, luck, cancel)[0]


def decision_views(start: Position, moves: Iterable[Move], review: Review) -> dict[int, Position]:
    """Each reviewed decision's position as its decider saw it, by ply (for boards)."""
    wanted = {d.ply: d.seat for d in review.decisions}
    pos, views = start.copy(), {}
    for ply, move in enumerate(moves):
        if ply in wanted:
            views[ply] = pos.view_of(wanted[ply])
        pos.push(move)
    return views


# ---------------------------------------------------------------- output
def _players_line(review: Review) -> str:
    names = [f"{seat} {spec}" for seat, spec in sorted(review.players.items())]
    return " vs ".join(names) or "players not recorded"


def _result_line(review: Review) -> str:
    text = f"result {review.result['status']}"
    winners = [seat_name(q) for q in review.winners] or ([review.winner] if review.winner else [])
    if winners:
        specs = [review.players[w] for w in winners if w in review.players]
        text += (f", winner{'s' * (len(winners) > 1)} {' and '.join(winners)}"
                 + (f" ({', '.join(specs)})" if specs else ""))
    return text


def _counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 blunder``, ``2 blunders``."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def _candidates_lines(d: Decision, indent: str = "      ") -> list[str]:
    rows = [(c.move.text(), f"{c.visits:,}", f"{c.score:.3f}", f"{c.interval[0]:.2f}-{c.interval[1]:.2f}",
             "-" if c.move == d.best else f"{c.gap:.3f}", c.proven or "") for c in d.candidates]
    rows.insert(0, ("candidate (first search)", "visits", "score", "interval", "gap", ""))
    widths = [max(len(r[i]) for r in rows) for i in range(6)]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def review_text(review: Review, title: str, candidates: bool = False) -> str:
    """The review as text: a header naming the players and the winner, a row per decision
    (from its decider's view), the candidates of the labelled decisions (of every decision
    with ``candidates``), and a summary per reviewed player with luck."""
    budget = (f"{review.iterations:,} iteration{'s' * (review.iterations != 1)}" if review.iterations
              else f"{review.time:g} s")
    lines = [
        f"review of {title}: {_players_line(review)}",
        f"rules {review.rules}, {review.plies} moves, {_result_line(review)}; "
        f"reviewed: {', '.join(seat_name(q) for q in review.seats)} (each row from its player's view)",
        f"{budget} a decision, seed {review.seed}, {_counted(len(review.decisions), 'decision')} in {review.seconds:.1f} s",
        "labels by sure loss = best's lower bound - played's upper bound: "
        + ", ".join(f"{n} >= {t:g}" for n, t in LABELS)
        + "; * = the played move searched again alone with the best move's visits",
        "",
    ]
    header: tuple[str, ...] = ("ply", "player", "played", "best", "played score", "best score", "loss", "sure loss",
                               "label", "luck")
    if not review.luck_measured:
        header = header[:-1]
    table = [header] + [
        (str(d.ply), seat_name(d.seat), d.played.text(), "=" if d.played == d.best else d.best.text(),
         f"{d.played_score:.3f} ({d.played_interval[0]:.2f}-{d.played_interval[1]:.2f})" + ("*" if d.played_researched else ""),
         f"{d.best_score:.3f} ({d.best_interval[0]:.2f}-{d.best_interval[1]:.2f})",
         f"{d.loss:.3f}", f"{d.sure_loss:.3f}", d.label or "",
         "" if d.luck is None else f"{d.luck.luck:+.3f} {' '.join(d.luck.cards)}")[:len(header)]
        for d in review.decisions
    ]
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    lines.append("  ".join(c.ljust(w) for c, w in zip(header, widths)).rstrip())
    for d, r in zip(review.decisions, table[1:]):
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if candidates or d.label:
            lines += _candidates_lines(d)
    lines.append("")
    for x in review.forced_luck:
        lines.append(f"forced at ply {x.ply}: {seat_name(x.seat)}'s only move {x.move.text()} brought "
                     f"{' '.join(x.cards)}: luck {x.luck:+.3f}")
    if review.forced_luck:
        lines.append("")
    for x in review.chance_luck:
        lines.append(f"chance at ply {x.ply}: {x.move.text()} from {seat_name(x.seat)}'s hand: luck {x.luck:+.3f} "
                     f"({seat_name(x.seat)}'s best {x.after:.3f} as drawn, {x.before:.3f} over the discards chance could make)")
    if review.chance_luck:
        lines.append("")
    for seat, s in review.summary.items():
        acc = "-" if s["accuracy"] is None else f"{s['accuracy']:.1f}%"
        swings = ", ".join(f"ply {x['ply']} {x['played']} (best {x['best']}, sure loss {x['sureLoss']:.3f})"
                           for x in s["biggestSwings"])
        luck = _luck_words(s)
        lines.append(f"{seat}: {_counted(s['decisions'], 'decision')} reviewed "
                     f"({s['forcedSkipped']} forced skipped), accuracy {acc}, {_counted(s['blunder'], 'blunder')}, "
                     f"{_counted(s['mistake'], 'mistake')}, {_counted(s['inaccuracy'], 'inaccuracy', 'inaccuracies')}; {luck}"
                     + (f"; largest sure losses: {swings}" if swings else ""))
    return "\n".join(lines)


def _luck_words(s: dict[str, Any]) -> str:
    """A summary's luck and result in words (text and HTML alike): "luck +0.120 over 3
    events, result 1.00, luck-adjusted 0.88", or "luck not measured" under ``--no-luck``."""
    words = ("luck not measured" if s["luck"] is None
             else f"luck {s['luck']:+.3f} over {_counted(s['luckEvents'], 'event')}")
    if s["result"] is not None:
        words += f", result {s['result']:.2f}"
    if s["luckAdjustedResult"] is not None:
        words += f", luck-adjusted {s['luckAdjustedResult'] + 0.0:.2f}"
    return words


_COLOURS = {"blunder": "#c0392b", "mistake": "#e67e22", "inaccuracy": "#f1c40f", None: "#2c3e50"}

_SCRIPT = """
const rows = document.querySelectorAll('tr.decision');
const panels = document.querySelectorAll('section.decision');
function pick(i) {
  rows.forEach(r => r.classList.toggle('chosen', r.dataset.i === String(i)));
  panels.forEach(p => p.hidden = p.dataset.i !== String(i));
  document.querySelectorAll('circle.mark').forEach(c => c.setAttribute('stroke', c.dataset.i === String(i) ? '#000' : 'none'));
}
document.querySelectorAll('[data-i]').forEach(el => el.addEventListener('click', () => pick(el.dataset.i)));
document.addEventListener('keydown', e => {
  const cur = document.querySelector('tr.decision.chosen');
  const i = cur ? Number(cur.dataset.i) : -1;
  if (e.key === 'ArrowRight' || e.key === 'j') pick(Math.min(i + 1, rows.length - 1));
  if (e.key === 'ArrowLeft' || e.key === 'k') pick(Math.max(i - 1, 0));
});
if (rows.length) pick(0);
"""


def review_html(review: Review, title: str, boards: dict[int, str] | None = None) -> str:
    """A self-contained HTML report: the estimated win rate of p0's side over the game (two
    seats, or Team's two sides; with more sides, each decider's own score at its decisions)
    as an inline SVG chart with a tick per move
    and a mark per decision; a click on a mark
    or a row (or the arrow keys) selects that decision and shows its board as its decider
    saw it (``boards``: text by ply), played against best, and the candidates table."""
    esc = html.escape
    boards = boards or {}
    w, h, pad = 760, 260, 36
    plies = max(review.plies, 1)
    pts = []
    two = review.sides == 2  # two sides: one line, p0's side's; more: each decider's own score
    for i, d in enumerate(review.decisions):
        y = (d.best_score if d.seat in review.p0_side else 1 - d.best_score) if two else d.best_score
        pts.append((pad + (w - 2 * pad) * d.ply / plies, h - pad - (h - 2 * pad) * y, d, i))
    path = " ".join(f"{'M' if k == 0 else 'L'}{x:.1f},{y:.1f}" for k, (x, y, _, _) in enumerate(pts)) if two else ""
    side = " and ".join(seat_name(q) for q in review.p0_side)
    label = f"{side} win rate" if two else "the decider's score"
    step = max(1, plies // 20)
    ticks = "".join(
        f'<line x1="{pad + (w - 2 * pad) * t / plies:.1f}" y1="{h - pad}" x2="{pad + (w - 2 * pad) * t / plies:.1f}" '
        f'y2="{h - pad + (6 if t % step == 0 else 3)}" stroke="#888"/>'
        + (f'<text x="{pad + (w - 2 * pad) * t / plies - 6:.1f}" y="{h - pad + 18}" font-size="10">{t}</text>'
           if t % step == 0 else "")
        for t in range(0, review.plies + 1))
    marks = "".join(
        f'<circle class="mark" data-i="{i}" cx="{x:.1f}" cy="{y:.1f}" r="{6 if d.label else 4}" fill="{_COLOURS[d.label]}" '
        f'stroke-width="2" style="cursor:pointer">'
        f"<title>ply {d.ply} {seat_name(d.seat)}: {esc(d.played.text())} (best {esc(d.best.text())})"
        f"{' - ' + d.label if d.label else ''}</title></circle>"
        for x, y, d, i in pts
    )
    mid = h / 2
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" '
           f'aria-label="{label} over the game">'
           f'<rect x="{pad}" y="{pad}" width="{w - 2 * pad}" height="{h - 2 * pad}" fill="#f7f7f7" stroke="#ccc"/>'
           f'<line x1="{pad}" y1="{mid}" x2="{w - pad}" y2="{mid}" stroke="#bbb" stroke-dasharray="4 4"/>'
           f'<text x="4" y="{pad - 8}" font-size="11">{side + " 1.0" if two else "1.0"}</text>'
           f'<text x="4" y="{h - pad + 4}" font-size="11">0.0</text>'
           f'{ticks}<text x="{w / 2 - 20}" y="{h - 2}" font-size="11">ply</text>'
           f'<path d="{path}" fill="none" stroke="#2c3e50" stroke-width="1.5"/>{marks}</svg>')
    rows = "".join(
        f"<tr class='decision' data-i='{i}' style='cursor:pointer;background:"
        f"{'#fdecea' if d.label in ('blunder', 'mistake') else 'white'}'>"
        f"<td>{d.ply}</td><td>{seat_name(d.seat)}</td><td>{esc(d.played.text())}</td>"
        f"<td>{esc(d.best.text())}</td><td>{d.played_score:.3f}{'*' if d.played_researched else ''}</td>"
        f"<td>{d.best_score:.3f}</td><td>{d.loss:.3f}</td><td>{d.sure_loss:.3f}</td><td>{d.label or ''}</td>"
        + ("" if not review.luck_measured else f"<td>{'' if d.luck is None else f'{d.luck.luck:+.3f}'}</td>")
        + "</tr>"
        for i, d in enumerate(review.decisions)
    )
    panels = "".join(
        f"<section class='decision' data-i='{i}' hidden><h2>ply {d.ply}: {seat_name(d.seat)} to decide "
        f"({esc(d.phase)}), seen from {seat_name(d.seat)}'s view</h2>"
        f"<pre>{esc(boards.get(d.ply, ''))}</pre>"
        f"<p>played <b>{esc(d.played.text())}</b> {d.played_score:.3f} "
        f"({d.played_interval[0]:.2f}-{d.played_interval[1]:.2f}), best <b>{esc(d.best.text())}</b> {d.best_score:.3f} "
        f"({d.best_interval[0]:.2f}-{d.best_interval[1]:.2f}); loss {d.loss:.3f}, sure loss {d.sure_loss:.3f}"
        f"{', ' + d.label if d.label else ''}"
        + ("" if d.luck is None else f"; luck {d.luck.luck:+.3f} ({esc(' '.join(d.luck.cards))})")
        + "</p><table class='candidates'><tr><th>candidate (first search)</th><th>visits</th><th>score</th><th>interval</th>"
        "<th>gap</th></tr>"
        + "".join(f"<tr><td>{esc(c.move.text())}</td><td>{c.visits:,}</td><td>{c.score:.3f}</td>"
                  f"<td>{c.interval[0]:.2f}-{c.interval[1]:.2f}</td><td>{'-' if c.move == d.best else f'{c.gap:.3f}'}</td></tr>"
                  for c in d.candidates)
        + "</table></section>"
        for i, d in enumerate(review.decisions)
    )
    summary = "".join(
        f"<li><b>{seat}</b>: accuracy {'-' if s['accuracy'] is None else s['accuracy']}%, "
        f"{_counted(s['blunder'], 'blunder')}, {_counted(s['mistake'], 'mistake')}, "
        f"{_counted(s['inaccuracy'], 'inaccuracy', 'inaccuracies')} ({_counted(s['decisions'], 'decision')} reviewed, "
        f"{s['forcedSkipped']} forced skipped); {_luck_words(s)}</li>"
        for seat, s in review.summary.items()
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>cuttle_search review: {esc(title)}</title>"
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}tr.chosen{outline:2px solid #2c3e50}"
        "pre{background:#f7f7f7;padding:8px;overflow-x:auto}table.candidates{margin-bottom:1.5em}</style></head><body>"
        f"<h1>Review of {esc(title)}</h1><p>{esc(_players_line(review))}; rules {esc(review.rules)}, "
        f"{esc(_result_line(review))}; marks: "
        + ", ".join(f"<span style='color:{_COLOURS[n]}'>&#9679;</span> {n}" for n, _ in LABELS)
        + f". Click a mark or a row (or use the arrow keys) to see the decision.</p>{svg}<ul>{summary}</ul>"
        + "".join(f"<p class='chance'>chance at ply {x.ply}: {esc(x.move.text())} from {seat_name(x.seat)}'s hand: "
                  f"luck {x.luck:+.3f} ({x.after:.3f} as drawn, {x.before:.3f} over the discards chance could make)</p>"
                  for x in review.chance_luck)
        + f"<div id='detail'>{panels}</div>"
        "<table><tr><th>ply</th><th>player (view)</th><th>played</th><th>best</th>"
        f"<th>played score</th><th>best score</th><th>loss</th><th>sure loss</th><th>label</th>"
        f"{'<th>luck</th>' if review.luck_measured else ''}</tr>{rows}</table>"
        f"<script>{_SCRIPT}</script></body></html>\n"
    )
