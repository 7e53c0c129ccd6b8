"""A learned value of a two-seat state: the chance that the seat to act wins, from a small
network trained on greedy self-play (``benchmarks/train_value.py``; the weights are in
``value_weights.py``). The ``value`` rollout (engine/policies.py) plays greedily to the
next main decision and lets ``settle_by_value`` end the game there.

The features are counts a state shows any seat that sees both hands (rollouts and
determinizations do): for the seat ``p`` to act and then its opponent, the distance to the
goal (scaled, its log, and whether it is within 5 and within 10), Kings, Queens and glasses
on the table, cards in hand and the hand's cards of each rank (a Joker counts only in the
hand's size); then the deck's size.
They are written in fixed point (``VALUE_ONE`` is 1.0) into an int64 scratch array, so
that no kernel allocates: the training script reads the same function's output.
"""

import numpy as np

from .jit import njit
from .layout import (
    EIGHTS,
    F_DECK_N,
    F_FACE,
    F_HAND,
    F_PHASE,
    F_STATUS,
    F_WINNER,
    KINGS,
    PH_OVER,
    QUEENS,
    ST_STALEMATE_ACTIONS,
    ST_WIN,
    popcount,
)
from .rng import rng_below
from .seats import opponent
from .table import goal, points_total
from . import value_weights as VW

VALUE_ONE = 1 << 20  # a feature's 1.0 in the fixed point of ``value_features``
VALUE_FEATURES = 1 + 2 * (8 + 13) + 1  # a constant input, each seat's 8 counts and 13 ranks, the deck
RANK_CARDS = np.int64(15)  # the four cards of rank 0 (ids 0-3); rank k's are these << 4k

# The network: features (standardised) -> ReLU hidden layer -> logit. The standardisation
# and the fixed point are folded into the first layer once, here.
_W1 = np.ascontiguousarray(VW.W1 / VW.SD[:, None] / float(VALUE_ONE))
_B1 = np.ascontiguousarray(VW.B1 - (VW.MU / VW.SD) @ VW.W1)
_W2 = np.ascontiguousarray(VW.W2)
_B2 = float(VW.B2)
_HIDDEN = _W1.shape[1]
assert _W1.shape[0] == VALUE_FEATURES


@njit(cache=True)
def _fixed(x):
    return np.int64(round(x * VALUE_ONE))


@njit(cache=True)
def value_features(s, r, p, out):
    """Write the ``VALUE_FEATURES`` features of ``s`` for seat ``p`` (two seats) into
    ``out[:VALUE_FEATURES]``, each times ``VALUE_ONE``."""
    k = 0
    out[k] = VALUE_ONE
    k += 1
    for i in range(2):
        q = p if i == 0 else opponent(s, p)
        gap = max(goal(s, r, q) - points_total(s, q), 0)
        out[k] = _fixed(gap / 21.0)
        out[k + 1] = _fixed(np.log1p(gap))
        out[k + 2] = VALUE_ONE if gap <= 5 else 0
        out[k + 3] = VALUE_ONE if gap <= 10 else 0
        face = s[F_FACE + q]
        out[k + 4] = popcount(face & KINGS) * VALUE_ONE
        out[k + 5] = popcount(face & QUEENS) * VALUE_ONE
        out[k + 6] = popcount(face & EIGHTS) * VALUE_ONE
        hand = s[F_HAND + q]
        out[k + 7] = popcount(hand) * VALUE_ONE
        k += 8
        for rank in range(13):
            out[k] = popcount(hand & (RANK_CARDS << (4 * rank))) * VALUE_ONE
            k += 1
    out[k] = _fixed(s[F_DECK_N] / 52.0)


@njit(cache=True)
def value_logit(s, r, p, scratch):
    """The network's logit that seat ``p`` wins ``s`` (two seats); ``scratch`` is an int64
    array of at least ``VALUE_FEATURES`` entries it may overwrite."""
    value_features(s, r, p, scratch)
    z = _B2
    for j in range(_HIDDEN):
        a = _B1[j]
        for i in range(VALUE_FEATURES):
            a += scratch[i] * _W1[i, j]
        if a > 0.0:
            z += a * _W2[j]
    return z


@njit(cache=True)
def win_chance(s, r, p, scratch):
    """The learned chance, from 0 to 1, that seat ``p`` wins ``s`` (two seats)."""
    return 1.0 / (1.0 + np.exp(-value_logit(s, r, p, scratch)))


@njit(cache=True)
def settle_by_value(s, r, p, rng, scratch):
    """End ``s`` with an outcome drawn so that ``p``'s expected score is ``win_chance``
    (two seats): with v that chance, the side ahead (p when v > 1/2) wins with probability
    |2v - 1| and the game is otherwise a stalemate. That is the least noisy draw of wins,
    stalemates (1/2) and losses with mean v; a search backs it up as any other outcome."""
    v = win_chance(s, r, p, scratch)
    lead = 2.0 * v - 1.0
    s[F_PHASE] = PH_OVER
    if rng_below(rng, 1 << 30) < abs(lead) * (1 << 30):
        s[F_STATUS] = ST_WIN
        s[F_WINNER] = p if lead > 0.0 else opponent(s, p)
    else:
        s[F_STATUS] = ST_STALEMATE_ACTIONS
        s[F_WINNER] = -1
