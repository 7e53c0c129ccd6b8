"""Baseline players in the engine: cuttle.cards' own AI (``cuttlebot_move``, one-ply
scoring as the site does) and perfect-information Monte Carlo (``pimc_move``).
"""

from .jit import njit
from .apply import apply_move
from .info import determinize
from .layout import (
    ACTOR_CHANCE,
    copy_into,
    EIGHTS,
    F_ACTOR,
    F_FACE,
    F_HAND,
    F_NPLAYERS,
    F_PHASE,
    F_POINTS,
    F_STATUS,
    F_WINNER,
    KINGS,
    PH_OVER,
    popcount,
    QUEENS,
    ST_WIN,
)
from .movegen import generate_moves
from .policies import keep_best, rollout
from .seats import opponent, same_side


BOT_WIN = 1000.0


@njit(cache=True)
def _bot_side(s, q):
    """cuttle.cards' AI leaf value of one side: cards in hand + 2 x point cards + 2 x royals,
    less small penalties for Queens beyond 2, glasses beyond 1 and a third King."""
    face = s[F_FACE + q]
    v = popcount(s[F_HAND + q]) + 2.0 * popcount(s[F_POINTS + q]) + 2.0 * popcount(face)
    queens = popcount(face & QUEENS)
    glasses = popcount(face & EIGHTS)
    kings = popcount(face & KINGS)
    if queens > 2:
        v -= 0.5 * (queens - 2)
    if glasses > 1:
        v -= 0.5 * (glasses - 1)
    if kings >= 3:
        v -= 0.5
    return v


@njit(cache=True)
def bot_score(s, me):
    if s[F_PHASE] == PH_OVER:
        if s[F_STATUS] == ST_WIN:
            return BOT_WIN if s[F_WINNER] == me else -BOT_WIN
        return 0.0
    return _bot_side(s, me) - _bot_side(s, opponent(s, me))


@njit(nogil=True, cache=True)
def cuttlebot_move(s, r, rng, buf0, buf1, c1, c2):
    """Depth-2 minimax on the true state (both hands and the deck order are seen): each
    move of the seat to act, then every reply of whoever decides next (the mean over a
    chance event). Ties are broken uniformly at random."""
    me = s[F_ACTOR]
    n = generate_moves(s, r, buf0)
    best = -1e18
    pick = 0
    ties = 0
    for i in range(n):
        copy_into(c1, s)
        apply_move(c1, r, buf0[i])
        if c1[F_PHASE] == PH_OVER:
            v = bot_score(c1, me)
        else:
            m = generate_moves(c1, r, buf1)
            actor = c1[F_ACTOR]
            if actor == ACTOR_CHANCE:
                v = 0.0
            elif actor == me:
                v = -1e18
            else:
                v = 1e18
            for j in range(m):
                copy_into(c2, c1)
                apply_move(c2, r, buf1[j])
                w = bot_score(c2, me)
                if actor == ACTOR_CHANCE:
                    v += w / m
                elif actor == me:
                    if w > v:
                        v = w
                elif w < v:
                    v = w
        best, pick, ties = keep_best(v, i, best, pick, ties, rng)
    return buf0[pick]


@njit(nogil=True, cache=True)
def pimc_move(root, r, viewer, unknown, worlds, rng, policy, s, child, buf, moves, scores, cards, scratch):
    """Determinized flat Monte Carlo: in each of ``worlds`` determinizations, one rollout
    after every legal move of the viewer; the move with the best total score wins (a win
    for the viewer's side 1, a stalemate shared among the seats)."""
    draw_share = 1.0 / root[F_NPLAYERS]
    n = generate_moves(root, r, moves)
    for i in range(n):
        scores[i] = 0.0
    for _ in range(worlds):
        determinize(root, s, unknown, viewer, rng, cards, 0, 0)
        for i in range(n):
            copy_into(child, s)
            apply_move(child, r, moves[i])
            rollout(child, r, rng, buf, policy, scratch, -1)
            if child[F_STATUS] == ST_WIN:
                if same_side(child, r, viewer, child[F_WINNER]):
                    scores[i] += 1.0
            else:
                scores[i] += draw_share
    best = 0
    for i in range(1, n):
        if scores[i] > scores[best]:
            best = i
    return moves[best]
