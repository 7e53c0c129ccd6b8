"""Random deck-out endgames from random games: test and benchmark material for the solver."""

from __future__ import annotations

import numpy as np

from ..engine import layout as L
from ..engine import state as S
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
    while S.get(s, "phase") != L.PH_OVER and not (S.get(s, "deck_size") == 0 and S.get(s, "phase") == L.PH_MAIN):
        n = generate_moves(s, r, buf)
        m = buf[rng.integers(n)]
        if S.get(s, "deck_size") > 0 and int(buf[0]) & L.MT_MASK == L.MT_DRAW and rng.random() < draw_bias:
            m = buf[0]
        apply_move(s, r, m)
    if S.get(s, "phase") == L.PH_OVER:
        return None
    for p in (0, 1):
        cards = [c for c in range(52) if (S.seat_get(s, "hand", p) >> c) & 1]
        keep = int(rng.integers(1, max_hand + 1))
        for c in rng.permutation(cards)[: max(0, len(cards) - keep)]:
            for field in ("hand", "public", "frozen"):
                S.seat_put(s, field, p, S.seat_get(s, field, p) & ~(1 << int(c)))
            S.add(s, "scrap", 1 << int(c))
    S.put(s, "actions", min(S.get(s, "actions"), int(r[L.R_ACTION_LIMIT]) - 50))
    found: list[np.ndarray] = []
    for _ in range(int(rng.integers(1, 12))):
        if S.get(s, "phase") == L.PH_OVER:
            break
        if S.get(s, "actor") >= 0:
            found.append(s.copy())
        n = generate_moves(s, r, buf)
        apply_move(s, r, buf[rng.integers(n)])
    if not found:
        return None
    chosen = found[-1 - int(rng.integers(min(3, len(found))))]
    assert check_invariants(chosen, r) == 0
    if near_cap:
        S.put(chosen, "actions", int(r[L.R_ACTION_LIMIT]) - int(rng.integers(4, 24)))
    return Position(rs, chosen, name=f"{spec}#{seed}")
