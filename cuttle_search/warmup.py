"""``cuttle-search warmup``: compile (or load from the cache) every kernel the commands use.

It needs nothing outside the package (an installed wheel has no ``positions/`` folder): the
exact solver's position is written here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .engine import layout as L
from .engine.apply import attach
from .engine.harness import checked_random_games, random_games
from .engine.movegen import action_space, random_discard_outcomes
from .engine.setup import deal_size, dealt_to
from .engine.table import seat_returns
from .game.position import Position
from .game.rules import get_ruleset

# positions/deck-out-endgame.json: a deck-out endgame the exact solver proves in a blink
DECK_OUT_ENDGAME: dict[str, Any] = {
    "about": "The deck is empty and p1 passed: every card is visible; play it out or pass.",
    "format": "cuttle-search/position",
    "version": 1,
    "rules": "cuttle-cards",
    "view": "full",
    "turn": 40,
    "phase": "main",
    "p0Hand": ["4H", "9C", "JS"],
    "p0Points": ["2H", "TD"],
    "p0FaceCards": ["KS"],
    "p1Hand": ["2C", "5D", "QH"],
    "p1Points": ["AC", "3D", "8C"],
    "p1FaceCards": ["KC"],
    "deck": [],
    "scrap": ["AD", "AH", "AS", "2D", "2S", "3C", "3H", "3S", "4C", "4D", "4S", "5C", "5H", "5S", "6C", "6D", "6H", "6S", "7C", "7D", "7H", "7S", "8D", "8H", "8S", "9D", "9H", "9S", "TC", "TH", "TS", "JC", "JD", "JH", "QC", "QD", "QS", "KD", "KH"],
    "oneOff": None,
    "oneOffTarget": None,
    "twos": [],
    "frozen": None,
    "passes": 1,
    "actions": 70,
    "deckKnown": 0,
}


def warm_up() -> None:
    """Compile or load every kernel the commands use: the game, perft, the checks, the
    search with each rollout policy, and every built-in agent (greedy, cuttlebot, pimc)."""
    from .play.agents import make_agent
    from .play.arena import play_game
    from .game.perft import perft
    from .analysis import analyse
    from .analysis.ismcts import ROLLOUTS

    rules = get_ruleset("cuttle-cards")
    pos = Position.deal(rules, seed=1)
    perft(pos, 2)
    r = rules.to_array()
    s = np.zeros(L.STATE_SIZE, np.int64)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    random_games(r, 1, 0, 1, s, buf, np.zeros((1, 3), np.int64))
    checked_random_games(r, 1, 0, 1, s, buf, np.zeros((1, 6), np.int64))
    seat_returns(pos.state, r, np.zeros(L.MAX_PLAYERS))  # outcomes, the seat helpers
    dealt_to(r, deal_size(r) - 1)  # the deal order (the OpenSpiel game deals card by card)
    space = np.zeros(L.ACTION_SPACE_SIZE, np.int64)
    action_space(space)  # every move of some game (the OpenSpiel action ids)
    random_discard_outcomes(space)
    three = get_ruleset("cutthroat")
    table = Position.deal(three, seed=1)
    attach(table.state.copy(), three.array, 0, 0, 40, 0)  # a stack being set up (the seat-list reader)
    analyse(table.view_of(0), iterations=200, seed=1)  # the search with more seats
    for rollout in ROLLOUTS:
        analyse(pos.view_of(0), iterations=200, seed=1, rollout=rollout)
    agents = [make_agent(spec) for spec in ("greedy", "cuttlebot", "pimc:iterations=40", "ismcts:iterations=40,infer=1")]
    play_game(rules, 1, (agents[0], agents[1]), 1)
    play_game(rules, 2, (agents[2], agents[3]), 2)
    from .analysis.solve import solve
    from .analysis.tree import load_growth_kernels
    from .engine.policies import keep_value

    solve(Position.from_dict(DECK_OUT_ENDGAME))  # the exact solver
    load_growth_kernels()  # the breadth-first renumbering of a tree that fills
    keep_value(np.int64(1))  # the greedy agent's discards
