"""A learned value of a state: the chance that the side of the seat to act wins, from a
small network trained on self-play (``benchmarks/train_value.py``). One network for two
seats (weights in ``value_weights.py``) and one for Team, four seats in two teams of
partners (``value_team_weights.py``); ``value_holds`` says whether a game has one. The
``value`` rollout (engine/policies.py) plays greedily to the next main decision and lets
``settle_by_value`` end the game there.

The features are counts a state shows any seat that sees every hand (rollouts and
determinizations do): for each seat in turn order from the seat ``p`` to act, the distance
to its goal (scaled, its log, and whether it is within 5 and within 10), Kings, Queens and
glasses on the table, cards in hand and the hand's cards of each rank (a Joker counts only
in the hand's size); then the deck's size.
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
    F_NPLAYERS,
    F_PHASE,
    F_STATUS,
    F_WINNER,
    KINGS,
    PH_OVER,
    QUEENS,
    R_TEAMS,
    ST_STALEMATE_ACTIONS,
    ST_WIN,
    popcount,
)
from .rng import rng_below
from .seats import next_rival, seat_after
from .table import goal, points_total
from . import value_team_weights as TW
from . import value_weights as VW

VALUE_ONE = 1 << 20  # a feature's 1.0 in the fixed point of ``value_features``
SEAT_FEATURES = 8 + 13  # a seat's 8 counts and its hand's 13 ranks


def feature_count(players: int) -> int:
    """The features of a ``players``-seat state: a constant input, each seat's, the deck."""
    return 1 + players * SEAT_FEATURES + 1


VALUE_FEATURES = feature_count(2)  # two seats
TEAM_VALUE_FEATURES = feature_count(4)  # Team
MAX_VALUE_FEATURES = TEAM_VALUE_FEATURES  # the scratch ``value_features`` may write
RANK_CARDS = np.int64(15)  # the four cards of rank 0 (ids 0-3); rank k's are these << 4k

# A network: features (standardised) -> ReLU hidden layer -> logit. The standardisation
# and the fixed point are folded into the first layer once, here.


def _folded(w):
    w1 = np.ascontiguousarray(w.W1 / w.SD[:, None] / float(VALUE_ONE))
    b1 = np.ascontiguousarray(w.B1 - (w.MU / w.SD) @ w.W1)
    return w1, b1, np.ascontiguousarray(w.W2), float(w.B2)


_W1, _B1, _W2, _B2 = _folded(VW)
_TW1, _TB1, _TW2, _TB2 = _folded(TW)
assert _W1.shape[0] == VALUE_FEATURES and _TW1.shape[0] == TEAM_VALUE_FEATURES


@njit(cache=True)
def value_holds_for(players, teams):
    """Whether a network was learned for a game of ``players`` seats in ``teams`` teams (0:
    every seat for itself): two seats, or Team (four seats in two teams)."""
    return players == 2 or (players == 4 and teams == 2)


@njit(cache=True)
def value_holds(s, r):
    """``value_holds_for`` this state's game. A ``value`` rollout of any other game is
    ``greedy``."""
    return value_holds_for(s[F_NPLAYERS], r[R_TEAMS])


@njit(cache=True)
def _fixed(x):
    return np.int64(round(x * VALUE_ONE))


@njit(cache=True, inline="always")
def value_features(s, r, p, out):
    """Write the ``feature_count(seats)`` features of ``s`` for seat ``p`` into the start of
    ``out``, each times ``VALUE_ONE``."""
    k = 0
    out[k] = VALUE_ONE
    k += 1
    for i in range(s[F_NPLAYERS]):
        q = seat_after(s, p, i)
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
def _network_logit(x, w1, b1, w2, b2):
    z = b2
    for j in range(w1.shape[1]):
        a = b1[j]
        for i in range(w1.shape[0]):
            a += x[i] * w1[i, j]
        if a > 0.0:
            z += a * w2[j]
    return z


@njit(cache=True, inline="always")
def value_logit(s, r, p, scratch):
    """The network's logit that seat ``p``'s side wins ``s`` (a game ``value_holds`` for);
    ``scratch`` is an int64 array of at least ``MAX_VALUE_FEATURES`` entries it may
    overwrite."""
    value_features(s, r, p, scratch)
    if s[F_NPLAYERS] == 2:
        return _network_logit(scratch, _W1, _B1, _W2, _B2)
    return _network_logit(scratch, _TW1, _TB1, _TW2, _TB2)


@njit(cache=True, inline="always")
def win_chance(s, r, p, scratch):
    """The learned chance, from 0 to 1, that seat ``p``'s side wins ``s`` (a game
    ``value_holds`` for)."""
    return 1.0 / (1.0 + np.exp(-value_logit(s, r, p, scratch)))


@njit(cache=True, inline="always")
def settle_by_value(s, r, p, rng, scratch):
    """End ``s`` with an outcome drawn so that ``p``'s expected score is ``win_chance``
    (a game ``value_holds`` for): with v that chance, the side ahead (p's when v > 1/2) wins with probability
    |2v - 1| and the game is otherwise a stalemate. That is the least noisy draw of wins,
    stalemates (1/2) and losses with mean v; a search backs it up as any other outcome."""
    v = win_chance(s, r, p, scratch)
    lead = 2.0 * v - 1.0
    s[F_PHASE] = PH_OVER
    if rng_below(rng, 1 << 30) < abs(lead) * (1 << 30):
        s[F_STATUS] = ST_WIN
        s[F_WINNER] = p if lead > 0.0 else next_rival(s, r, p)
    else:
        s[F_STATUS] = ST_STALEMATE_ACTIONS
        s[F_WINNER] = -1
