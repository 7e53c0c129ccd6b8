"""Random deck-out endgames from random games: test and benchmark material for the solver."""

from __future__ import annotations

import numpy as np

from ..engine import layout as L
from ..engine.apply import apply_move
from ..engine.movegen import generate_moves
from ..engine.setup import check_invariants
from ..game.position import Position
from ..game.rules import get_ruleset


def random_deck_out(spec: str, seed: int, max_hand: int = 4, near_cap: bool = False,
                    draw_bias: float = 0.9) -> Position | None:
    """A full-information deck-out position from a random game of ``spec``: both hands hold
    at most ``max_hand`` cards and a player (not chance) decides.

    The game is uniform random play, except that a draw is taken with probability
    ``draw_bias`` when legal (uniform play rarely empties the deck). At the first main
    decision with the deck out, each hand is cut to a random size of at most ``max_hand``
    (the cut cards go to the scrap), and uniform random play goes on; the position is a
    random decision among the next ones (any phase: counters, 3s, 4s, hand limits, a
    frozen card, passes already made). ``near_cap`` moves the action count close to the
    1,000-action cap. None when the game ends first."""
    rs = get_ruleset(spec)
    r = rs.array
    rng = np.random.default_rng(seed)
    pos = Position.deal(rs, seed)
    s = pos.state
    buf = np.zeros(L.MAX_MOVES, dtype=np.int64)
    while int(s[L.F_PHASE]) != L.PH_OVER and not (int(s[L.F_DECK_N]) == 0 and int(s[L.F_PHASE]) == L.PH_MAIN):
        n = generate_moves(s, r, buf)
        m = buf[rng.integers(n)]
        if int(s[L.F_DECK_N]) > 0 and int(buf[0]) & L.MT_MASK == L.MT_DRAW and rng.random() < draw_bias:
            m = buf[0]
        apply_move(s, r, m)
    if int(s[L.F_PHASE]) == L.PH_OVER:
        return None
    for p in (0, 1):
        cards = [c for c in range(52) if (int(s[L.F_HAND + p]) >> c) & 1]
        keep = int(rng.integers(1, max_hand + 1))
        for c in rng.permutation(cards)[: max(0, len(cards) - keep)]:
            s[L.F_HAND + p] &= ~(1 << int(c))
            s[L.F_PUBLIC + p] &= ~(1 << int(c))
            s[L.F_SCRAP] |= 1 << int(c)
            s[L.F_FROZEN + p] &= ~(1 << int(c))
    s[L.F_ACTIONS] = min(int(s[L.F_ACTIONS]), int(r[L.R_ACTION_LIMIT]) - 50)
    found: list[np.ndarray] = []
    for _ in range(int(rng.integers(1, 12))):
        if int(s[L.F_PHASE]) == L.PH_OVER:
            break
        if int(s[L.F_ACTOR]) >= 0:
            found.append(s.copy())
        n = generate_moves(s, r, buf)
        apply_move(s, r, buf[rng.integers(n)])
    if not found:
        return None
    chosen = found[-1 - int(rng.integers(min(3, len(found))))]
    assert check_invariants(chosen, r) == 0
    if near_cap:
        chosen[L.F_ACTIONS] = int(r[L.R_ACTION_LIMIT]) - int(rng.integers(4, 24))
    return Position(rs, chosen, name=f"{spec}#{seed}")
