"""The player interface every agent implements (the registry of agents is ``agents.py``;
adapters in ``interop/`` implement this too, so nothing imports in a circle)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..game.position import Position


@dataclass
class Agent:
    """A player. ``choose`` gets the full game and the seat, and looks only at what that
    seat may see (unless ``sees_everything``)."""

    spec: str
    params: dict[str, Any] = field(default_factory=dict)
    sees_everything = False

    def __post_init__(self) -> None:
        """Subclasses set up their parameters and scratch buffers here."""

    @property
    def name(self) -> str:
        return self.spec

    def view(self, game: Position, seat: int) -> Position:
        return game if self.sees_everything else game.view_of(seat)

    def choose(self, game: Position, seat: int, rng: np.random.Generator) -> int:
        raise NotImplementedError

    def start_game(self, seat: int) -> None:
        """A new game begins, with this agent in ``seat``."""

    def observe(self, game: Position, mover: int, code: int) -> None:
        """Move ``code`` of ``mover`` is about to be played in ``game`` (every move of the
        game, either seat's or chance's, is shown here before it is applied)."""
