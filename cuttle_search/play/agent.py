"""The player interface every agent implements (the registry of agents is ``agents.py``;
adapters in ``interop/`` implement this too, so nothing imports in a circle), and the
share of a finished game a seat takes, which the agents and the arena both score by."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable

import numpy as np

from ..game.errors import CuttleError, brief
from ..game.moves import Move
from ..game.position import Position, share_of_state
from ..game.rules import Ruleset
from ..game.seats import plain_number, seat_name


class AgentError(CuttleError):
    """An unknown agent or agent parameter, or an agent asked to play a game it cannot."""


def win_share(s: np.ndarray, r: np.ndarray, seat: int, out: np.ndarray | None = None) -> float:
    """``seat``'s share of the finished game ``s`` (``Position.share_of`` on raw arrays,
    for the arena's game loop): 1 when its side won, 0 when another did, an equal share
    when nobody won; two seats score 1, 1/2 and 0."""
    return share_of_state(s, r, seat, out)


@dataclass
class Agent:
    """A player. ``choose`` gets the full game and the seat, and looks only at what that
    seat may see (unless ``sees_everything``). An agent may keep scratch buffers between
    calls: use one agent a thread (a process pool, the arena's workers, gives each its own)."""

    spec: str
    params: dict[str, Any] = field(default_factory=dict)
    sees_everything = False
    max_seats: ClassVar[int | None] = None  # the most seats of a game this agent can play (None: any)
    # the parameters ``name:key=value`` may give an agent registered as a plugin (the entry
    # point group ``cuttle_search.agents``), each key's type (int, float, str): none by default
    PARAMS: ClassVar[dict[str, Any]] = {}
    # set by a front end while ``choose`` runs (anything with ``is_set()``): a searching
    # agent ends its search once it is set (the page that asked went away)
    cancel: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Subclasses set up their parameters and scratch buffers here."""

    @property
    def name(self) -> str:
        return self.spec

    def seat_limit(self) -> tuple[int | None, str]:
        """The most seats this agent (with its parameters) plays, and why (for the error)."""
        return self.max_seats, "it is a two-seat player"

    def refusal(self, rules: Ruleset) -> str | None:
        """Why this agent (with its parameters) cannot play games of ``rules`` beyond its seat
        limit, or None (for the error)."""
        return None

    def check_game(self, rules: Ruleset) -> None:
        """Raise :class:`AgentError` unless this agent can play games of ``rules``."""
        most, why = self.seat_limit()
        if most is not None and rules.players > most:
            raise AgentError(f"agent {self.spec}: plays games of at most {most} seats ({why}); "
                             f"{rules.spec} has {rules.players}")
        refusal = self.refusal(rules)
        if refusal is not None:
            raise AgentError(f"agent {self.spec}: {refusal}")

    def view(self, game: Position, seat: int) -> Position:
        return game if self.sees_everything else game.view_of(seat)

    def choose(self, game: Position, seat: int, rng: np.random.Generator) -> int | Move:
        """The move of ``seat`` (the seat to act in ``game``, a full-information position):
        a legal move's engine code (``Position.legal_codes``) or a ``Move``. ``rng`` is the
        game's generator, for the agent's own randomness. ``game`` is the agent's to use
        (the arena and the terminal game pass a copy)."""
        raise NotImplementedError

    def start_game(self, seat: int) -> None:
        """A new game begins, with this agent in ``seat``."""

    def observe(self, game: Position, mover: int, code: int) -> None:
        """Move ``code`` of ``mover`` is about to be played in ``game`` (every move of the
        game, any seat's or chance's, is shown here before it is applied)."""


def show_move(agents: Iterable[Any], game: Position, mover: int, code: int) -> None:
    """``observe`` of every agent that watches the game (one whose class has its own
    ``observe``; any object that is no ``Agent``), each on a copy of ``game``: one agent's
    use of it cannot change the game or what the next one sees."""
    for agent in agents:
        if not isinstance(agent, Agent) or type(agent).observe is not Agent.observe:
            agent.observe(game.copy(), mover, code)


def decide(agent: Any, game: Position, seat: int, rng: np.random.Generator) -> int:
    """``agent.choose`` on a copy of ``game`` (an agent may look ahead on what it is given),
    checked: the legal move code it chose (it may answer a code or a ``Move``), else an
    :class:`AgentError` naming the agent and what it chose (an agent's defect is named,
    never played). Any object with ``choose`` and ``name`` is an agent here."""
    choice = agent.choose(game.copy(), seat, rng)
    shown = None
    if isinstance(choice, Move):
        shown = choice.text()
        try:
            choice = choice.resolve_against(game.legal_moves()).code()
        except CuttleError:
            pass
    else:
        choice = plain_number(choice)
    if isinstance(choice, int) and not isinstance(choice, bool) and choice in {int(c) for c in game.legal_codes()}:
        return choice
    if shown is None:
        try:
            shown = Move.from_code(choice).text()  # (from_code checks it)
        except CuttleError:
            shown = brief(choice)
    raise AgentError(f"agent {agent.name}: chose {shown}, not a legal move of {seat_name(seat)} here")
