"""Queries about the table that the rules ask again and again: points, goals, Jack stacks
and who controls a card, what a card may target, the 3's pool, Queens, the hand caps.
Each answers one question; none changes the state.
"""

import numpy as np

from .jit import njit
from .layout import (
    bit,
    F_FACE,
    F_JACK_LEVEL,
    F_JACK_ON,
    F_JACK_TO,
    F_JOKER_LEVEL,
    F_JOKER_ON,
    F_JOKER_TO,
    F_NPLAYERS,
    F_OWNED,
    F_PHASE,
    F_POINTS,
    F_SCRAP,
    F_STATUS,
    F_TURN,
    F_WINNER,
    HL_BLOCK,
    HL_DISCARD,
    HL_NONE,
    JOKER_1,
    KINGS,
    N_CARDS,
    NINE_DECK_TOP,
    PH_MAIN,
    PH_OVER,
    POINT_RANKS,
    popcount,
    QUEENS,
    R_GIFT,
    R_GOAL,
    R_HAND_LIMIT,
    R_HAND_LIMIT_STYLE,
    R_JACK_OWN,
    R_JACK_SWITCH,
    R_JOKERS,
    R_NINE_MODE,
    R_NINE_POINTS,
    R_QUEEN_STOPS_NINES,
    R_QUEENS_PROTECT_QUEENS,
    R_REMOVE_ACE_SIX,
    R_TARGET_ANY_SIDE,
    R_THREE_TAKES_THREE,
    ST_WIN,
    THREES,
)
from .seats import opponent, same_side


# the point cards (Ace to Ten: rank index k, 4k to 4k + 3) whose rank index has bit b set
_RANK_BIT0 = np.int64(0xF0F0F0F0F0)
_RANK_BIT1 = np.int64(0xFF00FF00)
_RANK_BIT2 = np.int64(0xFFFF0000)
_RANK_BIT3 = np.int64(0xFF00000000)


@njit(cache=True)
def points_of(x):
    """The points of the point-card mask ``x``: the sum of its cards' values, Ace 1 to Ten
    10. A card of rank index k (Ace 0) is worth k + 1: one for the card, plus k written in
    binary, so the sum is the card count plus the counts under the masks of the ranks whose
    index has bit 0, 1, 2 or 3 set, weighed 1, 2, 4 and 8: five popcounts (hot in every
    win check and every greedy score; ten shifted popcounts before)."""
    x &= POINT_RANKS
    return (popcount(x) + popcount(x & _RANK_BIT0) + 2 * popcount(x & _RANK_BIT1)
            + 4 * popcount(x & _RANK_BIT2) + 8 * popcount(x & _RANK_BIT3))


@njit(cache=True)
def points_total(s, p):
    """The points seat ``p`` controls (``points_of`` its point cards)."""
    return points_of(s[F_POINTS + p])


@njit(cache=True)
def goal_with_kings(r, kings):
    """The points a seat needs while controlling ``kings`` Kings (0-4): the one win rule."""
    return r[R_GOAL + kings]


@njit(cache=True)
def goal(s, r, p):
    return goal_with_kings(r, popcount(s[F_FACE + p] & KINGS))


@njit(cache=True)
def jack_height(s, card):
    h = 0
    for j in range(4):
        if s[F_JACK_ON + j] == card:
            h += 1
    return h


@njit(cache=True)
def top_jack(s, card):
    """Index (0-3) of the top jack on ``card``, or -1."""
    best = -1
    lvl = -1
    for j in range(4):
        if s[F_JACK_ON + j] == card and s[F_JACK_LEVEL + j] > lvl:
            lvl = s[F_JACK_LEVEL + j]
            best = j
    return best


@njit(cache=True)
def top_jacks_on(s, points_mask):
    """Mask of the jacks that are on top of a stack whose card is in ``points_mask``."""
    m = np.int64(0)
    for j in range(4):
        on = s[F_JACK_ON + j]
        if on >= 0 and (points_mask >> on) & 1:
            if top_jack(s, on) == j:
                m |= bit(40 + j)
    return m


@njit(cache=True)
def owner_of(s, card):
    for q in range(s[F_NPLAYERS]):
        if (s[F_OWNED + q] >> card) & 1:
            return q
    return -1


@njit(cache=True)
def controller_of_point(s, card):
    for q in range(s[F_NPLAYERS]):
        if (s[F_POINTS + q] >> card) & 1:
            return q
    return -1


@njit(cache=True)
def top_joker(s, card):
    """Index (0-1) of the top Joker on ``card`` (a royal or a Jack), or -1."""
    best = -1
    lvl = -1
    for k in range(2):
        if s[F_JOKER_ON + k] == card and s[F_JOKER_LEVEL + k] > lvl:
            lvl = s[F_JOKER_LEVEL + k]
            best = k
    return best


@njit(cache=True)
def joker_height(s, card):
    h = 0
    for k in range(2):
        if s[F_JOKER_ON + k] == card:
            h += 1
    return h


@njit(cache=True)
def face_controller(s, card):
    """The seat that controls royal ``card`` on the table, or -1."""
    for q in range(s[F_NPLAYERS]):
        if (s[F_FACE + q] >> card) & 1:
            return q
    return -1


@njit(cache=True)
def targetable(s, r, q):
    """Cards of seat ``q`` that an opponent's single-target effect may target (Queens)."""
    qs = s[F_FACE + q] & QUEENS
    if qs == 0:
        return np.int64(-1)
    if r[R_QUEENS_PROTECT_QUEENS] and popcount(qs) >= 2:
        return np.int64(0)
    return qs


@njit(cache=True)
def _top_attachments(s, q):
    """The top cards of seat ``q``'s stacks that a 2 or a 9 may take off: each Jack on top
    of a point stack q controls (or the top Joker on it), and the top Joker on each royal."""
    t = top_jacks_on(s, s[F_POINTS + q])
    for k in range(2):
        on = s[F_JOKER_ON + k]
        if on >= 0 and s[F_JOKER_TO + k] == q and top_joker(s, on) == k:
            if on >= 40 and on < 44:  # on a Jack: the Jack is no longer the stack's top,
                if top_jack(s, s[F_JACK_ON + on - 40]) != on - 40:
                    continue  # unless a later Jack covers both
                t &= ~bit(on)
            t |= bit(JOKER_1 + k)
    return t


@njit(cache=True)
def permanent_targets(s, r, p):
    """Targets of a 2 (and the permanent part of a 9's): every opponent's royals, glasses
    and the tops of their stacks (top Jacks, top Jokers)."""
    if s[F_NPLAYERS] == 2:
        o = opponent(s, p)
        t = (s[F_FACE + o] | top_jacks_on(s, s[F_POINTS + o])) & targetable(s, r, o)
        if r[R_JOKERS]:
            t |= _top_attachments(s, o) & targetable(s, r, o)
        if r[R_TARGET_ANY_SIDE]:
            t |= s[F_FACE + p] | top_jacks_on(s, s[F_POINTS + p])
        return t
    t = np.int64(0)
    for q in range(s[F_NPLAYERS]):
        if not same_side(s, r, p, q):
            t |= (s[F_FACE + q] | _top_attachments(s, q)) & targetable(s, r, q)
    if r[R_TARGET_ANY_SIDE]:
        t |= s[F_FACE + p] | _top_attachments(s, p)
    return t


@njit(cache=True)
def opponents_points(s, r, p, protected):
    """Point cards every opponent of ``p`` controls; with ``protected``, only those their
    Queens leave open to a single-target effect."""
    if s[F_NPLAYERS] == 2:  # the common case, without the loop
        o = opponent(s, p)
        if protected:
            return s[F_POINTS + o] & targetable(s, r, o)
        return s[F_POINTS + o]
    t = np.int64(0)
    for q in range(s[F_NPLAYERS]):
        if not same_side(s, r, p, q):
            x = s[F_POINTS + q]
            if protected:
                x &= targetable(s, r, q)
            t |= x
    return t


@njit(cache=True)
def nine_targets(s, r, p):
    """Targets of a 9 of ``p``: a 2's, and where a 9 may take them the point cards the
    Queens leave open; with ``R_QUEEN_STOPS_NINES`` nothing of a seat that controls a Queen
    (Cuttle Multiplayer: its Queens included, though a 2 may take them)."""
    t = permanent_targets(s, r, p)
    if r[R_NINE_POINTS]:
        t |= opponents_points(s, r, p, True)
    if r[R_QUEEN_STOPS_NINES]:
        for q in range(s[F_NPLAYERS]):
            if q != p and has_queen(s, q):
                t &= ~(s[F_FACE + q] | _top_attachments(s, q) | s[F_POINTS + q])
    return t


@njit(cache=True)
def jack_targets(s, r, p):
    """Point cards a Jack of ``p`` may go on: an opponent's (Queens protect them), and with
    ``R_JACK_OWN`` its own, or with ``R_GIFT`` any card of its own side."""
    t = opponents_points(s, r, p, True)
    if r[R_JACK_OWN]:
        t |= s[F_POINTS + p]
    if r[R_GIFT]:
        for q in range(s[F_NPLAYERS]):
            if same_side(s, r, p, q):
                t |= s[F_POINTS + q]
    return t


@njit(cache=True)
def joker_targets(s, r, p):
    """Where a Joker of ``p`` may go: any royal an opponent controls, or the top Jack of
    a point stack an opponent controls (Queens protect as for a Jack); with ``R_GIFT``, its
    own side's royals and top Jacks too."""
    t = np.int64(0)
    for q in range(s[F_NPLAYERS]):
        x = s[F_FACE + q] | top_jacks_on(s, s[F_POINTS + q])
        if not same_side(s, r, p, q):
            t |= x & targetable(s, r, q)
        elif r[R_GIFT]:
            t |= x
    return t


@njit(cache=True)
def controller_of_target(s, card):
    """The seat controlling the stack a Jack or Joker would go on: a point card's, a royal's,
    or a Jack's point card's; -1 when ``card`` is not on the table."""
    if card >= 40 and card < 44:
        base = s[F_JACK_ON + card - 40]
        return controller_of_point(s, base) if base >= 0 else -1
    q = face_controller(s, card)  # (an 8 may be a royal, glasses, or points)
    return q if q >= 0 else controller_of_point(s, card)


@njit(cache=True)
def three_pool(s, r):
    if r[R_THREE_TAKES_THREE]:
        return s[F_SCRAP]
    return s[F_SCRAP] & ~THREES


@njit(cache=True)
def ace_and_six(pile):
    """``R_REMOVE_ACE_SIX``: the Ace and the Six of ``pile`` a shuffle takes out of the
    game (the lowest of each: suits matter nowhere in that game)."""
    out = np.int64(0)
    for rank in range(0, 6, 5):  # the Aces (rank 0), then the Sixes (rank 5)
        x = pile & (np.int64(0xF) << (4 * rank))
        if x:
            out |= x & -x
    return out


@njit(cache=True)
def reshuffle_brings(s, r):
    """The cards a reshuffle of the scrap would put in the new draw pile (``R_RESHUFFLE``)."""
    pile = s[F_SCRAP]
    if r[R_REMOVE_ACE_SIX]:
        pile &= ~ace_and_six(pile)
    return pile


@njit(cache=True)
def has_queen(s, p):
    return (s[F_FACE + p] & QUEENS) != 0


@njit(cache=True)
def hand_cap(s, r, q):
    """The largest hand seat ``q`` can hold in this state's phase under rules ``r``.

    ``hand-limit=discard``: every seat ends its own action at or under the limit; during
    another seat's turn it gains at most one card (one 9 per turn returns a card to its
    controller's hand, unless the 9 goes to the deck top), and its own action adds at most
    one more before the discard (a draw, or a 5's draw after its discard).
    ``hand-limit=block``: draws stop at the limit, a 5 draws only up to it and a 3 trades
    the 3 for its pick, so a hand passes the limit only through 9s returning cards: four
    9s, each back once at most through one of the four 3s (8 returns), and without bound
    when a 3 may take a 3. ``hand-limit=none``: any size."""
    style = r[R_HAND_LIMIT_STYLE]
    if style == HL_NONE:
        return N_CARDS
    gain = 0 if r[R_NINE_MODE] == NINE_DECK_TOP else 1
    if style == HL_DISCARD:  # one 9 a turn of each other seat (a 7 plays one card too)
        gain *= s[F_NPLAYERS] - 1
    if style == HL_BLOCK:
        if gain and r[R_THREE_TAKES_THREE]:
            return N_CARDS
        return r[R_HAND_LIMIT] + 8 * gain
    if q == s[F_TURN] and s[F_PHASE] != PH_MAIN:
        return r[R_HAND_LIMIT] + gain + 1
    return r[R_HAND_LIMIT] + gain


@njit(cache=True)
def stack_owner(s, r, card, controller):
    """Who played point card ``card`` (its owner), from who controls it now and the jacks
    on it (already in the jack slots): the seat from which replaying the jacks level by
    level, each a jack play the rules allow, leaves ``controller`` in control. Returns the
    owner; or -1 when the top jack is not the controller's (where the top jack controls),
    -2 when a jack sits on its own player's card where the rules forbid it."""
    h = jack_height(s, card)
    for q in range(s[F_NPLAYERS]):
        ctrl = q
        ok = True
        for level in range(h):
            by = -1
            for j in range(4):
                if s[F_JACK_ON + j] == card and s[F_JACK_LEVEL + j] == level:
                    by = s[F_JACK_TO + j]
            if by == ctrl and not r[R_JACK_OWN]:
                ok = False
                break
            if r[R_JACK_SWITCH]:
                ctrl = q if (level + 1) % 2 == 0 else opponent(s, q)
            else:
                ctrl = by
        if ok and ctrl == controller:
            return q
    if not r[R_JACK_SWITCH] and h > 0 and s[F_JACK_TO + top_jack(s, card)] != controller:
        return -1
    return -2


@njit(cache=True)
def seat_returns(s, r, out):
    """Each seat's return at the end of the game into ``out[:seats]``, summing to zero: a
    stalemate (or a game not over) gives 0 to every seat; a win gives +1 to the winner's
    side (the winner and a partner) and shares -1 per winning seat among the others, so
    two seats score +1 and -1."""
    n = s[F_NPLAYERS]
    for q in range(n):
        out[q] = 0.0
    if s[F_PHASE] != PH_OVER or s[F_STATUS] != ST_WIN:
        return
    w = s[F_WINNER]
    winners = 0
    for q in range(n):
        if same_side(s, r, w, q):
            winners += 1
    for q in range(n):
        out[q] = 1.0 if same_side(s, r, w, q) else -winners / (n - winners)
