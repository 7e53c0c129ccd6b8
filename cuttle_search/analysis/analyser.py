"""The analysis API: ``analyse``, ``analyse_stream`` and ``best_move`` rank the viewer's moves
with trustworthy win rates (the tree search of ``ismcts``), and what a game's history lets
the viewer infer. Re-exported by the package ``cuttle_search.analysis``."""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence

from ..game.errors import CuttleError, brief
from ..game.moves import Move
from ..game.position import Position
from ..game.seats import whole
from ..game.formats import PositionSource, as_position
from . import calibration
from .ismcts import HandInference, Snapshot, run_search, search_viewer
from .limits import DEFAULT_EXPLORATION, DEFAULT_MODEL, CancelEvent, Limit, SearchError, check_cancel
from .inference import InferenceTracker
from .result import AnalysisResult, MoveStat, rounded_or_none
from ..game.seats import seat_name

MAX_RUNNERS_UP = 64  # best_move's runners-up at most (the hint protocol's cap too)


def analyse(
    position: PositionSource,
    iterations: int | None = None,
    time: float | None = None,
    threads: int = 1,
    seed: int = 0,
    rollout: str | None = None,
    exploration: float = DEFAULT_EXPLORATION,
    progress=None,
    inference: HandInference | None = None,
    stop: Mapping[str, Any] | None = None,
    cancel: CancelEvent | None = None,
    every: float = 0.1,
    history: tuple[PositionSource, Sequence[Move | str]] | None = None,
    allow_moves: Sequence[Any] | None = None,
    avoid_moves: Sequence[Any] | None = None,
    model: str = DEFAULT_MODEL,
    widen: float | None = None,
    best_reply: bool = False,
    estimate_only_move: bool = False,
) -> AnalysisResult:
    """Search ``position`` (a Position, a file path, a dict or a JSON string) for the
    player whose view it is and rank that player's legal moves. A full-information
    position is searched with every card known (no determinizations: a ceiling, not a
    player's answer); give ``position.view_of(seat)`` for what a player sees.

    With neither ``iterations`` nor ``time`` the budget is 10,000 iterations. A seed and a
    thread count reproduce an iteration-budget result exactly. ``inference`` (what the
    caller knows the opponent does not hold, from the game so far) narrows the deals.
    ``stop={"minIterations": N}`` ends the search early once the best move's lower bound
    clears every other move's upper bound (after at least N iterations); ``cancel`` ends it
    when set. The result's ``stop_reason`` says which ended it. ``history`` is ``(start,
    moves)``: the full-information start of the game and the moves that led to ``position``;
    the search then uses what the viewer can infer from them (see ``search.inference``).
    ``allow_moves`` / ``avoid_moves`` (moves in text or JSON notation) restrict the root.
    ``model`` is the opponent model of a game of more seats (``maxn``, ``paranoid`` or
    ``random``; see ``search.md``). ``widen`` is the progressive widening's visit scale
    below the root (0.0 turns it off; see ``search.md``); None (the default) is the game's: 4, and
    1,000 in Cutthroat (``limits.default_widen``). ``rollout`` names the rollout
    policy; None (the default) is the game's: the learned value (``value``) in the two-seat
    rulesets and Team, ``greedy`` elsewhere (``limits.default_rollout``). The result's ``rollout``
    names the one used. ``best_reply=True`` (two sides: two seats, Team) adds each searched move's
    ``best_reply_score``: its score with the opponent's best replies backed up, a figure
    measured to be honest without a map (docs/strength.md, "The cause, measured").
    ``estimate_only_move=True`` searches a position with one legal move too (it is answered
    at once otherwise, with no score)."""
    pos = as_position(position)
    if history is not None:
        if inference is not None:
            raise SearchError("history: give a history or an inference, not both")
        inference = inference_from_history(pos, history)
    result = run_search(pos, Limit(iterations, time), threads, seed, rollout, exploration, progress,
                        inference=inference, cancel=cancel, stop_rule=confidence_stop(stop), every=every,
                        allow_moves=allow_moves, avoid_moves=avoid_moves, model=model, widen=widen,
                        best_reply=best_reply, estimate_only_move=estimate_only_move)
    return calibration.annotate(result, pos)


def inference_from_history(position: Position, history: Any) -> HandInference | None:
    """What ``position``'s viewer infers from the game ``history`` = ``(start, moves)``
    that led to it; None when there is nothing to infer."""
    if not isinstance(history, (tuple, list)) or len(history) != 2 or not isinstance(history[1], (tuple, list)):
        raise SearchError("history: expected (start, moves): a full-information start and the moves played")
    start, moves = as_position(history[0]), list(history[1])
    if start.rules.players != 2 or position.rules.players != 2:
        raise SearchError("history: inference from a game's moves is for two seats (it reads the one opponent)")
    if start.view is not None:
        raise SearchError("history: the start must be a full-information position (\"view\": \"full\")")
    viewer = search_viewer(position)
    game = start.copy()
    tracker = InferenceTracker(viewer)
    for i, move in enumerate(moves):
        if game.is_over:
            raise SearchError(f"history[{i}]: the game was already over")
        tracker.observe(game, game.actor)
        try:
            game.play(move)
        except CuttleError as e:
            raise SearchError(f"history[{i}]: {e}") from None
    mine = {k: v for k, v in game.view_of(viewer).to_dict().items() if k != "about"}
    theirs = {k: v for k, v in position.to_dict().items() if k != "about"}
    if mine != theirs:
        raise SearchError("history: the moves do not lead to this position (as its viewer sees it)")
    return tracker.inference(game, position)


def confidence_stop(stop: Mapping[str, Any] | None) -> Callable[[Snapshot], bool] | None:
    """The stop rule of a ``stop`` option: ``{"minIterations": N}`` (N >= 1, default 1,000)."""
    if stop is None:
        return None
    if not isinstance(stop, Mapping) or set(stop) - {"minIterations"}:
        raise SearchError(f"stop: expected an object like {{\"minIterations\": 1000}}, got {brief(stop)}")
    low = stop.get("minIterations")
    low = 1000 if low is None else low  # (null, as any field sent as null: the default)
    whole(low, "stop.minIterations", 1, 10**9, SearchError)
    return lambda snap: snap.iterations >= low and snap.result().separated()


def analyse_stream(position: PositionSource, every: float = 0.5, **options: Any) -> Iterator[AnalysisResult]:
    """``analyse`` as a stream, like python-chess's ``analysis()``: partial results (marked
    ``during_search``) about every ``every`` seconds while the search runs, then the final
    result. The final result is the one ``analyse`` gives for the same options. Closing
    the stream early (``close()``, or dropping it) stops its search, as ``cancel`` does."""
    out: queue.Queue = queue.Queue()
    pos = as_position(position)
    theirs = options.pop("cancel", None)
    check_cancel(theirs)
    closed = threading.Event()
    cancel = closed if theirs is None else _EitherSet(closed, theirs)

    def report(_done: int, snap: Snapshot) -> None:
        out.put(snap.partial())

    def run() -> None:
        try:
            out.put(analyse(pos, progress=report, every=every, cancel=cancel, **options))
        except BaseException as e:  # handed to the reader, raised there
            out.put(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        while True:
            item = out.get()
            if isinstance(item, BaseException):
                raise item
            yield item
            if not item.during_search:
                thread.join()
                return
    finally:  # the reader is done, or gone (close, garbage): the search stops
        closed.set()


class _EitherSet:
    """Set when either of two events is (the stream's own, the caller's ``cancel``)."""

    def __init__(self, mine: threading.Event, theirs: Any) -> None:
        self.mine, self.theirs = mine, theirs

    def is_set(self) -> bool:
        return self.mine.is_set() or bool(self.theirs.is_set())


@dataclass(frozen=True)
class Hint:
    """The answer to a hint request: the best move and the runners-up."""

    best: MoveStat
    runners_up: list[MoveStat]
    result: AnalysisResult

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.best.move.text(),
            "moveJson": self.best.move.to_json(),
            "score": round(self.best.score, 6),
            "winrate": rounded_or_none(self.best.win_rate),
            "drawrate": rounded_or_none(self.best.draw_rate),
            "lcb": round(self.best.lcb, 6),
            **({"calibratedScore": round(self.best.calibrated_score, 6)} if self.best.calibrated_score is not None else {}),
            **({"calibratedLcb": round(self.best.calibrated_interval[0], 6)} if self.best.calibrated_interval is not None else {}),
            **({"bestReplyScore": round(self.best.best_reply_score, 6)} if self.best.best_reply_score is not None else {}),
            **({"proven": self.best.proven, "plies": self.best.plies} if self.best.solved else {}),
            "pointOfView": seat_name(self.result.viewer),
            "runnersUp": [m.to_json() for m in self.runners_up],
            "iterations": self.result.iterations,
            "seconds": round(self.result.seconds, 6),
            # why the search ended: "cancelled" with 0 iterations is a move never searched
            **({"stopReason": self.result.stop_reason} if not self.result.during_search else {}),
        }


def best_move(position: PositionSource, iterations: int | None = None, time: float | None = None,
              threads: int = 1, seed: int = 0, runners_up: int = 2, **options: Any) -> Hint:
    """``analyse`` for a hint button: the best move, its win rate and the runners-up."""
    whole(runners_up, "runners_up", 0, MAX_RUNNERS_UP, SearchError)
    result = analyse(position, iterations=iterations, time=time, threads=threads, seed=seed, **options)
    return Hint(result.moves[0], result.moves[1 : 1 + runners_up], result)
