"""Inference from the moves of a game: what one seat can rule out about its opponent's hand.

An opponent that plays on in the main phase without winning on the spot holds no card that
would have won then (the engine's ``winning_cards``); every card it gains afterwards (hand
sizes are public) is fresh, and may be one of them. The ``ismcts`` agent with ``infer=1``
and ``analyse(..., history=...)`` both keep one :class:`InferenceTracker`."""

from __future__ import annotations

import numpy as np

from ..engine import layout as L
from ..engine.seats import opponent
from ..engine.info import winning_cards
from ..game.position import Position
from .ismcts import HandInference


class InferenceTracker:
    """Follows a game for ``seat`` and yields the :class:`HandInference` it supports."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.excluded: int | None = None  # cards the opponent showed it lacks, or None
        self.fresh = 0  # cards the opponent has gained since
        self.opp_hand = 0  # the opponent's hand size when last looked at (public)

    def _opponent(self, game: Position) -> int:
        return int(opponent(game.state, self.seat))

    def _count_gains(self, game: Position) -> None:
        size = game.hand(self._opponent(game)).bit_count()
        if self.excluded is not None and size > self.opp_hand:
            self.fresh += size - self.opp_hand
        self.opp_hand = size

    def observe(self, game: Position, mover: int) -> None:
        """``mover`` is about to make a move in the full-information ``game``."""
        self._count_gains(game)
        if mover != self._opponent(game) or game.phase != L.PH_MAIN:
            return
        view = game.view_of(self.seat)
        self.excluded = None
        if view.guessed_cards:
            self.excluded = int(winning_cards(
                view.state, view.rules_array, mover, np.int64(view.guessed_cards),
                np.zeros(L.STATE_SIZE, np.int64), np.zeros(L.MAX_MOVES, np.int64),
            ))
            self.fresh = 0

    def inference(self, game: Position, view: Position) -> HandInference | None:
        """The inference for ``seat`` deciding in ``game`` (``view`` is its view), or None."""
        if self.excluded is None:
            return None
        self._count_gains(game)
        return HandInference(self.excluded & view.unknown_cards, self.fresh)
