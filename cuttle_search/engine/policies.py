"""Rollout policies and the material scores they and the greedy agent share: uniform
random, heuristic and greedy (epsilon-greedy on material), plus ``wins_now``, the cheap
test that a main-phase move meets its player's goal at once (built on ``table.goal``).
"""

import numpy as np

from .jit import njit
from .apply import apply_move
from .layout import (
    ACTOR_CHANCE,
    bit,
    copy_into,
    EIGHTS,
    F_ACTIONS,
    F_DECK_N,
    F_ACTOR,
    F_FACE,
    F_HAND,
    F_JACK_BY,
    F_JACK_ON,
    F_JOKER_ON,
    JOKER_1,
    F_NPLAYERS,
    F_OWNED,
    F_PASSES,
    F_PHASE,
    F_POINTS,
    F_RESPONSE,
    F_STATUS,
    F_TURN_COUNT,
    F_WINNER,
    FROM_SEVEN,
    HL_BLOCK,
    KINGS,
    lowest,
    make_move,
    move_card,
    move_receiver,
    move_target,
    MT_DRAW,
    MT_JACK,
    MT_JOKER,
    MT_MASK,
    MT_ONE_OFF,
    MT_PASS,
    MT_POINTS,
    MT_RESOLVE,
    MT_ROYAL,
    MT_SCUTTLE,
    MT_SEVEN_SCRAP,
    NINE_DECK_TOP,
    NO_CARD,
    PH_COUNTER,
    PH_MAIN,
    PH_OVER,
    PH_SCUTTLE_COUNTER,
    PH_SEVEN,
    popcount,
    QUEENS,
    R_ACTION_LIMIT,
    R_FIVE_DISCARD,
    R_FIVE_DRAW,
    R_GIFT,
    R_HAND_LIMIT,
    R_HAND_LIMIT_STYLE,
    R_JACK_SWITCH,
    R_JOKERS,
    R_NINE_MODE,
    R_PASS_LIMIT,
    R_RESHUFFLE,
    R_TEN_COUNTERS_SCUTTLE,
    RANK_ACE,
    RANK_EIGHT,
    RANK_FIVE,
    RANK_FOUR,
    RANK_JACK,
    RANK_KING,
    RANK_NINE,
    RANK_QUEEN,
    RANK_SEVEN,
    RANK_SIX,
    RANK_TEN,
    RANK_THREE,
    RANK_TWO,
    ST_STALEMATE_ACTIONS,
    ST_WIN,
)
from .movegen import generate_moves
from .noref import borrow
from .rng import rng_below
from .seats import opponent, opponents, partner, same_side, seat_after
from .value import settle_by_value, value_holds
from .table import (controller_of_point, face_controller, goal, goal_with_kings, jack_height, owner_of, points_of,
                    points_total, reshuffle_brings)


ROLLOUT_RANDOM = 0
ROLLOUT_HEURISTIC = 1
ROLLOUT_GREEDY = 2
ROLLOUT_GREEDY_CUT = 3  # greedy, cut off after CUT_ROUNDS rounds and adjudicated (``adjudicate``)
ROLLOUT_VALUE = 4  # two seats and Team: greedy to the next main decision, then settled by the learned value (engine/value.py)
# rounds of turns (every seat's turn once) a cut-off playout plays: 3 was as strong as full
# playouts at equal time with four seats, 2 weaker (docs/search.md, "Third pass")
CUT_ROUNDS = 3
GREEDY_EPSILON_QUARTERS = 1  # a greedy rollout plays a uniform move this many quarters of the time


@njit(cache=True)
def wins_now(s, r, p, m):
    """Whether main-phase move ``m`` of seat ``p`` brings p's side to a goal at once (cheap
    test): p's own, or with Team's gifts that of the partner who receives the card. (Where
    the rules open an answer window after a royal or a Jack, as in Team, an opponent's 9
    could still undo it: the test does not look at that.)"""
    mt = m & MT_MASK
    c = move_card(m)
    pts = points_total(s, p)
    if mt == MT_POINTS:
        return pts + (c >> 2) + 1 >= goal(s, r, p)
    if mt == MT_ROYAL and (c >> 2) == 12:
        return pts >= goal_with_kings(r, popcount(s[F_FACE + p] & KINGS) + 1)
    # a Jack or Joker hands its card to its receiver (p; with gifts any other seat): it wins
    # for p when the receiver is on p's side and meets its own goal (a gift that brings an
    # opponent to its goal is no win for p)
    if mt == MT_JACK:
        t = move_target(m)
        q = move_receiver(m, p)
        if (s[F_POINTS + q] >> t) & 1 or not same_side(s, r, p, q):
            return False
        return points_total(s, q) + (t >> 2) + 1 >= goal(s, r, q)
    if mt == MT_JOKER:
        t = move_target(m)
        q = move_receiver(m, p)
        if not same_side(s, r, p, q):
            return False
        if t >= 40 and t < 44:  # the point card under that Jack comes along
            return points_total(s, q) + (s[F_JACK_ON + t - 40] >> 2) + 1 >= goal(s, r, q)
        if (t >> 2) == RANK_KING:
            return points_total(s, q) >= goal_with_kings(r, popcount(s[F_FACE + q] & KINGS) + 1)
    return False


MAX_POINTS_GAIN = RANK_TEN + 1  # the most points one move brings p (a Ten, played or taken)


@njit(cache=True)
def _could_meet_goal(s, r, q):
    """Whether one move could bring seat ``q`` to its goal: it gains at most
    ``MAX_POINTS_GAIN`` points or one more King."""
    pts = points_total(s, q)
    kings = popcount(s[F_FACE + q] & KINGS)
    if pts + MAX_POINTS_GAIN >= goal_with_kings(r, kings):
        return True
    return kings < 4 and pts >= goal_with_kings(r, kings + 1)


@njit(cache=True, inline="always")
def could_win_now(s, r, p):
    """Whether any move could pass ``wins_now`` for ``p``: when neither ``p`` nor (where a
    Jack or Joker can hand its card to a partner) p's partner is within one move of its
    goal, no move wins and the scan can be skipped (most decisions, far from the goal)."""
    if _could_meet_goal(s, r, p):
        return True
    q = partner(s, r, p)
    return r[R_GIFT] != 0 and q >= 0 and _could_meet_goal(s, r, q)


@njit(cache=True)
def first_win(s, r, p, buf, n):
    """The index of the first of the ``n`` moves in ``buf`` that meets p's goal at once, or -1."""
    if not could_win_now(s, r, p):
        return -1
    for i in range(n):
        if wins_now(s, r, p, buf[i]):
            return i
    return -1


@njit(cache=True)
def _closest_opponent(s, r, p):
    """The opponent of ``p`` nearest its goal (the first in turn order on a tie)."""
    best = -1
    best_gap = 1 << 30
    for k in range(1, s[F_NPLAYERS]):
        q = seat_after(s, p, k)
        if not same_side(s, r, p, q):
            gap = goal(s, r, q) - points_total(s, q)
            if gap < best_gap:
                best_gap = gap
                best = q
    return best


@njit(cache=True, inline="always")
def _heuristic_pick(s, r, buf, n, rng):
    """The heuristic rollout policy in a main or 7 decision with no win on the spot: when
    the opponent is within reach of their goal, scuttle or steal their biggest card;
    otherwise prefer developing plays (points, royals, scuttles, jacks) to drawing half
    of the time."""
    p = s[F_ACTOR]
    o = _closest_opponent(s, r, p)
    opp_gap = goal(s, r, o) - points_total(s, o)
    if opp_gap <= 10:
        best = -1
        best_t = -1
        for i in range(n):
            mt = buf[i] & MT_MASK
            if mt == MT_SCUTTLE or mt == MT_JACK:
                t = move_target(buf[i])
                if (s[F_POINTS + o] >> t) & 1 and t > best_t:
                    best_t = t
                    best = i
        if best >= 0:
            return buf[best]
    if rng_below(rng, 2) == 0:
        k = 0
        for i in range(n):
            mt = buf[i] & MT_MASK
            if mt == MT_POINTS or mt == MT_ROYAL or mt == MT_SCUTTLE or mt == MT_JACK:
                k += 1
        if k > 0:
            pick = rng_below(rng, k)
            for i in range(n):
                mt = buf[i] & MT_MASK
                if mt == MT_POINTS or mt == MT_ROYAL or mt == MT_SCUTTLE or mt == MT_JACK:
                    if pick == 0:
                        return buf[i]
                    pick -= 1
    return buf[rng_below(rng, n)]


@njit(cache=True)
def _standing(pts, goal_pts, kings, queens, eights, hand):
    """The material formula on counts: the one place it is written, so that scoring a move
    from the masks and scoring the state after applying it give the same bits."""
    pts = float(pts)
    gap = goal_pts - pts
    return pts - 0.5 * gap + 3.0 * kings + 2.0 * queens + 1.0 * eights + 0.4 * hand


@njit(cache=True)
def material(s, r, q):
    """One side's standing, as the ``greedy`` agent and the greedy rollouts judge it:
    points, less half the distance to the goal, Kings 3, Queens 2, glasses 1, and 0.4 a
    card in hand."""
    face = s[F_FACE + q]
    return _standing(points_total(s, q), goal(s, r, q), popcount(face & KINGS), popcount(face & QUEENS),
                     popcount(face & EIGHTS), popcount(s[F_HAND + q]))


@njit(cache=True)
def material_balance(s, r, p):
    """The best ``material`` of p's side (p, or its partner: either one's goal wins for
    both) less the best among p's opponents (in a two-seat game, the opponent's): how the
    ``greedy`` agent scores a state for ``p``."""
    best = -1e300
    against = opponents(s, r, p)
    for q in range(s[F_NPLAYERS]):
        if (against >> q) & 1:
            v = material(s, r, q)
            if v > best:
                best = v
    own = material(s, r, p)
    mate = partner(s, r, p)
    if mate >= 0:
        own = max(own, material(s, r, mate))
    return own - best


# How much the ``greedy`` agent values keeping a card of each rank when it must give
# cards up (a 4's or 5's discard, the hand limit) or pick one (the 3): ranks A..K, then the
# Jokers (ids 52-53, "rank" 13), valued as the best rank.
KEEP_VALUE_BY_RANK = np.array([1.0, 8.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 9.0, 12.0, 13.0, 13.0])


@njit(cache=True)
def keep_value(cards):
    """The total ``KEEP_VALUE_BY_RANK`` of a card mask."""
    v = 0.0
    x = cards
    while x:
        c = lowest(x)
        x &= x - 1
        v += KEEP_VALUE_BY_RANK[c >> 2]
    return v


@njit(cache=True)
def quick_balance(s, r, m, p, o, pts_p, pts_o):
    """``material(p) - material(o)`` after move ``m`` of ``p`` and the opponent's declines,
    worked out from the masks for a draw, a pass, points, a royal, a scuttle, a jack or a
    7's scrap that does not win for ``p`` (the rollout takes any win first): 0.0 when the
    move ends the game in a stalemate, -1e17 when it hands the opponent the game, else
    exactly what applying the move on a copy would score."""
    mt = m & MT_MASK
    plies = 2 if (mt == MT_SCUTTLE and r[R_TEN_COUNTERS_SCUTTLE]) else 1  # a scuttle block declined
    if s[F_ACTIONS] + plies >= r[R_ACTION_LIMIT]:
        return 0.0
    if mt == MT_PASS and s[F_PASSES] + 1 >= r[R_PASS_LIMIT]:
        return 0.0
    face_p = s[F_FACE + p]
    kings = popcount(face_p & KINGS)
    queens = popcount(face_p & QUEENS)
    eights = popcount(face_p & EIGHTS)
    hand = popcount(s[F_HAND + p])
    if mt != MT_PASS and mt != MT_DRAW and mt != MT_SEVEN_SCRAP and not (m & FROM_SEVEN):
        hand -= 1  # the card leaves the hand (a 7's card comes from the reveal)
    c = move_card(m)
    if mt == MT_DRAW:
        hand += 1
    elif mt == MT_POINTS:
        pts_p += (c >> 2) + 1
    elif mt == MT_ROYAL:
        rk = c >> 2
        if rk == RANK_KING:
            kings += 1
        elif rk == RANK_QUEEN:
            queens += 1
        else:
            eights += 1
    elif mt == MT_SCUTTLE:
        pts_o -= (move_target(m) >> 2) + 1
    elif mt == MT_JACK:
        t = move_target(m)
        before = controller_of_point(s, t)
        if r[R_JACK_SWITCH]:
            owner = owner_of(s, t)
            after = owner if (jack_height(s, t) + 1) % 2 == 0 else opponent(s, owner)
        else:
            after = p
        value = (t >> 2) + 1
        if before != after:
            if before == p:
                pts_p -= value
            else:
                pts_o -= value
            if after == p:
                pts_p += value
            else:
                pts_o += value
    face_o = s[F_FACE + o]
    goal_o = goal(s, r, o)
    if pts_o >= goal_o:  # a classic jack on one's own card can hand the opponent its goal
        return -1e17
    mine = _standing(pts_p, goal_with_kings(r, kings), kings, queens, eights, hand)
    theirs = _standing(pts_o, goal_o, popcount(face_o & KINGS), popcount(face_o & QUEENS),
                       popcount(face_o & EIGHTS), popcount(s[F_HAND + o]))
    return mine - theirs


@njit(cache=True)
def apply_unopposed(s, r, m):
    """Apply move ``m`` of the seat to act, then let the opponent decline every counter or
    block it opens: a one-off or a scuttle judged as if it goes through."""
    p = s[F_ACTOR]
    apply_move(s, r, m)
    resolve = make_move(MT_RESOLVE, NO_CARD, NO_CARD)
    while (s[F_PHASE] == PH_COUNTER or s[F_PHASE] == PH_SCUTTLE_COUNTER) and s[F_ACTOR] != p:
        apply_move(s, r, resolve)


@njit(cache=True)
def keep_best(v, i, best_val, best, ties, rng):
    """One step of an argmax with ties broken uniformly at random (reservoir sampling):
    the new (best value, best index, number of tied bests)."""
    if v > best_val + 1e-9:
        return v, i, 1
    if v > best_val - 1e-9:
        ties += 1
        if rng_below(rng, ties) == 0:
            best = i
    return best_val, best, ties


# the greedy value of a move that wins on the spot when applied (above any material balance)
WIN_VALUE = 1e18


@njit(cache=True)
def _changed_material(s, r, q, pts):
    """``material(s, r, q)`` with seat q's points ``pts`` instead of its own."""
    face = s[F_FACE + q]
    return _standing(pts, goal(s, r, q), popcount(face & KINGS), popcount(face & QUEENS), popcount(face & EIGHTS),
                     popcount(s[F_HAND + q]))


@njit(cache=True)
def quick_balance_n(s, r, m, p, mate, against, pts_p, best_opp, mate_val):
    """``material_balance(p)`` after main-phase move ``m`` of ``p`` and the other seats'
    declines, with any number of seats, worked out from the masks for a draw, points, a
    royal, a scuttle, a jack (a gift of p's own card too) or a Joker (``quick_joker_balance_n``)
    from the hand: ``(True, value)``, exactly what applying the
    move on a copy scores (0.0 for a stalemate), or ``(False, 0.0)`` for any other move and
    for one after which some seat meets its goal (the caller applies those). ``best_opp`` is
    the best ``material`` of p's opponents and ``mate_val`` the partner's, before the move."""
    mt = m & MT_MASK
    if mt == MT_JOKER and not m & FROM_SEVEN:
        return quick_joker_balance_n(s, r, m, p, mate, against)
    if m & FROM_SEVEN or not (mt == MT_DRAW or mt == MT_POINTS or mt == MT_ROYAL or mt == MT_SCUTTLE or mt == MT_JACK):
        return False, 0.0
    face_p = s[F_FACE + p]
    kings = popcount(face_p & KINGS)
    queens = popcount(face_p & QUEENS)
    eights = popcount(face_p & EIGHTS)
    hand = popcount(s[F_HAND + p])
    pts = pts_p
    lose = -1  # the seat that loses a point card, and the one that gains it (not p)
    gain = -1
    value = 0
    if mt == MT_DRAW:  # as apply's _draw: nothing when blocked by the hand limit or no card comes
        if r[R_HAND_LIMIT_STYLE] == HL_BLOCK and r[R_HAND_LIMIT] - hand < 1:
            pass
        elif s[F_DECK_N] == 0 and not (r[R_RESHUFFLE] and reshuffle_brings(s, r) != 0):
            pass
        else:
            hand += 1
    else:
        hand -= 1
        c = move_card(m)
        if mt == MT_POINTS:
            pts += (c >> 2) + 1
        elif mt == MT_ROYAL:
            rk = c >> 2
            if rk == RANK_KING:
                kings += 1
            elif rk == RANK_QUEEN:
                queens += 1
            elif rk == RANK_EIGHT:
                eights += 1
            else:
                return False, 0.0
        else:
            if mt == MT_JACK and r[R_JACK_SWITCH]:
                return False, 0.0
            t = move_target(m)
            lose = controller_of_point(s, t)
            if lose < 0 or (lose == p and mt != MT_JACK):
                return False, 0.0
            value = (t >> 2) + 1
            if mt == MT_JACK:
                to = move_receiver(m, p)
                if to == lose:
                    return False, 0.0
                if lose == p:  # a gift of p's own card (R_GIFT): p gives, the receiver gains
                    pts -= value
                    lose = -1
                    gain = to
                elif to == p:
                    pts += value
                else:
                    gain = to
    if pts >= goal_with_kings(r, kings):
        return False, 0.0
    pts_lose = points_total(s, lose) - value if lose >= 0 else 0
    pts_gain = points_total(s, gain) + value if gain >= 0 else 0
    if gain >= 0 and pts_gain >= goal(s, r, gain):
        return False, 0.0
    plies = 2 if (mt == MT_SCUTTLE and r[R_TEN_COUNTERS_SCUTTLE]) else 1  # a scuttle block declined
    if s[F_ACTIONS] + plies >= r[R_ACTION_LIMIT]:
        return True, 0.0
    best = best_opp
    if lose >= 0 and (against >> lose) & 1 or gain >= 0 and (against >> gain) & 1:
        best = -1e300
        for q in range(s[F_NPLAYERS]):
            if (against >> q) & 1:
                if q == lose:
                    v = _changed_material(s, r, q, pts_lose)
                elif q == gain:
                    v = _changed_material(s, r, q, pts_gain)
                else:
                    v = material(s, r, q)
                if v > best:
                    best = v
    own = _standing(pts, goal_with_kings(r, kings), kings, queens, eights, hand)
    if mate >= 0:
        if mate == lose:
            own = max(own, _changed_material(s, r, mate, pts_lose))
        elif mate == gain:
            own = max(own, _changed_material(s, r, mate, pts_gain))
        else:
            own = max(own, mate_val)
    return True, own - best


@njit(cache=True)
def _tally(q, v, p, mate, against, own, mine, best):
    """Seat ``q``'s standing ``v`` into a side's running figures: ``own`` (p's), ``mine``
    (p's partner's) and ``best`` (the best of the seats in the mask ``against``)."""
    if q == p:
        own = v
    elif q == mate:
        mine = v
    if (against >> q) & 1 and v > best:
        best = v
    return own, mine, best


@njit(cache=True, inline="always")
def quick_joker_balance_n(s, r, m, p, mate, against):
    """``material_balance(p)`` after Joker move ``m`` of ``p`` from the hand in the main
    phase, with any number of seats, from the masks: the royal it lands on (a King, Queen
    or glasses) or the point card under the top Jack it lands on goes from its controller
    to the receiver. ``(True, value)``, exactly what applying it on a copy scores (0.0 for
    a stalemate; an answer window it opens changes no material), or ``(False, 0.0)`` for
    another target and when the receiver meets its goal (the caller applies those)."""
    t = move_target(m)
    to = move_receiver(m, p)
    if t >= 40 and t < 44:  # a top Jack: the point card under it changes hands
        if r[R_JACK_SWITCH]:
            return False, 0.0
        card = s[F_JACK_ON + t - 40]
        if card < 0:
            return False, 0.0
        lose = controller_of_point(s, card)
        value = (card >> 2) + 1
        royal = np.int64(0)
    else:
        rk = t >> 2
        if t >= JOKER_1 or not (rk == RANK_KING or rk == RANK_QUEEN or rk == RANK_EIGHT):
            return False, 0.0
        lose = face_controller(s, t)
        value = 0
        royal = bit(t)
    if lose < 0 or lose == to:
        return False, 0.0
    face_to = s[F_FACE + to] | royal
    if points_total(s, to) + value >= goal_with_kings(r, popcount(face_to & KINGS)):
        return False, 0.0
    if s[F_ACTIONS] + 1 >= r[R_ACTION_LIMIT]:
        return True, 0.0
    return True, _balance_after(s, r, p, mate, against, lose, value, royal, to, -1)


@njit(cache=True)
def _balance_after(s, r, p, mate, against, lose, value, royal, to, back):
    """``material_balance(p)`` once ``p`` has played a card from its hand, seat ``lose``
    has given up ``value`` points and the royals of mask ``royal``, seat ``to`` (or none,
    -1) has received them, and seat ``back`` (or none, -1) has taken a card into its hand."""
    best = -1e300
    own = 0.0
    mine = -1e300
    for q in range(s[F_NPLAYERS]):
        pts = points_total(s, q)
        face = s[F_FACE + q]
        hand = popcount(s[F_HAND + q])
        if q == p:
            hand -= 1
        if q == back:
            hand += 1
        if q == lose:
            pts -= value
            face &= ~royal
        elif q == to:
            pts += value
            face |= royal
        kings = popcount(face & KINGS)
        v = _standing(pts, goal_with_kings(r, kings), kings, popcount(face & QUEENS), popcount(face & EIGHTS), hand)
        own, mine, best = _tally(q, v, p, mate, against, own, mine, best)
    if mate >= 0:
        own = max(own, mine)
    return own - best


@njit(cache=True, inline="always")
def quick_removal_balance(s, r, m, p, mate, against):
    """``material_balance(p)`` after main-phase one-off ``m`` of ``p``, a Two or a Nine,
    resolves with every other seat declining, from the masks: ``(True, value)`` with
    exactly the bits applying it on a copy gives (0.0 for a stalemate), else ``(False,
    0.0)`` and the caller applies it.

    Scored here: a Two that scraps a King, Queen or glasses, and a Nine that sends one (or a
    point card, its Jacks scrapped) back to its controller's hand (or the deck top), after
    which no seat gains; and a 2 or 9 on the one Jack of a point card (no Joker on it),
    which gives the card back to its owner (and a 9 the Jack to the seat that played it),
    unless the owner then meets its goal. Left to the caller: a Joker as the target, a Jack
    over another Jack (control goes back down the stack) and a 9 answering a royal."""
    t = move_target(m)
    if t == NO_CARD or t >= JOKER_1 or s[F_RESPONSE] >= 0:
        return False, 0.0
    rk = move_card(m) >> 2
    trk = t >> 2
    value = 0
    royal = np.int64(0)
    lose = -1
    to = -1
    back = -1
    if trk == RANK_KING or trk == RANK_QUEEN or trk == RANK_EIGHT:
        lose = face_controller(s, t)
        royal = bit(t)
        back = lose
    if lose < 0 and rk == RANK_NINE and trk <= RANK_TEN:  # (an 8 as points)
        lose = controller_of_point(s, t)
        value = trk + 1
        royal = np.int64(0)
        back = lose
    if trk == RANK_JACK:
        if r[R_JACK_SWITCH] or (r[R_JOKERS] and (s[F_JOKER_ON] == t or s[F_JOKER_ON + 1] == t)):
            return False, 0.0
        card = s[F_JACK_ON + t - 40]
        if card < 0 or jack_height(s, card) != 1:
            return False, 0.0
        lose = controller_of_point(s, card)
        to = owner_of(s, card)
        if lose < 0 or to < 0:
            return False, 0.0
        if to != lose:
            value = (card >> 2) + 1
            if points_total(s, to) + value >= goal(s, r, to):
                return False, 0.0
        back = s[F_JACK_BY + t - 40]
    if lose < 0:
        return False, 0.0
    if rk != RANK_NINE or r[R_NINE_MODE] == NINE_DECK_TOP:
        back = -1
    if s[F_ACTIONS] + s[F_NPLAYERS] >= r[R_ACTION_LIMIT]:  # the one-off and every decline
        return True, 0.0
    return True, _balance_after(s, r, p, mate, against, lose, value, royal, to, back)


@njit(cache=True)
def quick_oneoff_balance(s, r, m, p, mate, against, best_opp, mate_val):
    """``material_balance(p)`` after main-phase one-off ``m`` of ``p`` resolves with every
    other seat declining, from the masks, for an Ace, a Three, a Four, a Five, a Six or a
    Seven, and a Two or a Nine on a royal or a Nine on a point card (``quick_removal_balance``):
    ``(True, value)`` with exactly the bits applying it on a copy gives (0.0 for a
    stalemate), or ``(False, 0.0)`` for another one-off, a Five that draws past the deck,
    or one after which a seat meets its goal (the caller applies those)."""
    c = move_card(m)
    rk = c >> 2
    n_seats = s[F_NPLAYERS]
    if s[F_PHASE] != PH_MAIN or m & FROM_SEVEN:
        return False, 0.0
    if rk == RANK_TWO or rk == RANK_NINE:
        return quick_removal_balance(s, r, m, p, mate, against)
    if not (rk == RANK_ACE or rk == RANK_THREE or rk == RANK_FOUR or rk == RANK_FIVE or rk == RANK_SIX
            or rk == RANK_SEVEN):
        return False, 0.0
    hand_p = popcount(s[F_HAND + p]) - 1
    if rk == RANK_FIVE and not (r[R_FIVE_DISCARD] and s[F_HAND + p] & ~bit(c) != 0):
        k = r[R_FIVE_DRAW]  # as apply's _draw
        if r[R_HAND_LIMIT_STYLE] == HL_BLOCK and r[R_HAND_LIMIT] - hand_p < k:
            k = r[R_HAND_LIMIT] - hand_p
        if k > s[F_DECK_N]:
            return False, 0.0
        if k > 0:
            hand_p += k
    on_table = np.int64(0)
    if rk == RANK_SIX:
        for q in range(n_seats):
            on_table |= s[F_POINTS + q]
    if rk == RANK_ACE or rk == RANK_SIX:  # every seat's standing changes
        best = -1e300
        own = 0.0
        mine = 0.0
        for q in range(n_seats):
            face = s[F_FACE + q]
            hand = hand_p if q == p else popcount(s[F_HAND + q])
            if rk == RANK_ACE:
                kings = popcount(face & KINGS)
                pts = 0
                g = goal_with_kings(r, kings)
                v = _standing(pts, g, kings, popcount(face & QUEENS), popcount(face & EIGHTS), hand)
            else:
                pts = points_of(s[F_OWNED + q] & on_table)
                g = goal_with_kings(r, 0)
                if pts >= g:
                    return False, 0.0
                v = _standing(pts, g, 0, 0, 0, hand)
            own, mine, best = _tally(q, v, p, mate, against, own, mine, best)
        if s[F_ACTIONS] + n_seats >= r[R_ACTION_LIMIT]:  # the one-off and every decline
            return True, 0.0
        if mate >= 0:
            own = max(own, mine)
        return True, own - best
    if s[F_ACTIONS] + n_seats >= r[R_ACTION_LIMIT]:
        return True, 0.0
    face_p = s[F_FACE + p]
    kings = popcount(face_p & KINGS)
    own = _standing(points_total(s, p), goal_with_kings(r, kings), kings, popcount(face_p & QUEENS),
                    popcount(face_p & EIGHTS), hand_p)
    if mate >= 0:
        own = max(own, mate_val)
    return True, own - best_opp


@njit(cache=True)
def _seat_setup(s, r, p):
    """What the greedy policy needs of a decision of ``p`` with more than two seats to score
    its moves (``policy_pick``, ``greedy_values``): (quick, mate, against, pts_p, best_opp,
    mate_val)."""
    quick = s[F_PHASE] == PH_MAIN
    mate = partner(s, r, p)
    against = opponents(s, r, p)
    best_opp = -1e300
    mate_val = 0.0
    pts_p = 0
    if quick:
        for q in range(s[F_NPLAYERS]):
            if (against >> q) & 1:
                v = material(s, r, q)
                if v > best_opp:
                    best_opp = v
        if mate >= 0:
            mate_val = material(s, r, mate)
        pts_p = points_total(s, p)
    return quick, mate, against, pts_p, best_opp, mate_val


@njit(cache=True, inline="always")
def greedy_values(s, r, buf, n, values, scratch):
    """The greedy policy's value of each of the ``n`` moves in ``buf`` for the seat to act
    in a main or 7 decision, into ``values``: what its argmax weighs (``WIN_VALUE`` for a
    move found to win when applied; -1e17 for one that hands the game to another side, 0.0
    for a stalemate): from the masks where it can be, else applied on a copy with every
    other seat declining. No randomness: the tree search orders moves by it. The rollout's
    greedy policy (``policy_pick``) scores the same way in loops of its own (routing its
    pick through a shared scoring kernel cost 5-8% of the greedy playout rate);
    tests/test_widening.py checks that both agree with applying each move."""
    p = s[F_ACTOR]
    two = s[F_NPLAYERS] == 2
    o = opponent(s, p)
    pts_o = 0
    mat_o = 0.0
    if two:  # (quick, best_opp and mate_val unread with two seats: set for Numba's typing)
        quick, mate, against, pts_p, best_opp, mate_val = True, -1, 1 << o, points_total(s, p), 0.0, 0.0
        pts_o = points_total(s, o)
        mat_o = material(s, r, o)
    else:
        quick, mate, against, pts_p, best_opp, mate_val = _seat_setup(s, r, p)
    for i in range(n):
        m = buf[i]
        ok = False
        v = 0.0
        if two and m & MT_MASK != MT_ONE_OFF:  # from the masks where it can be
            ok, v = True, quick_balance(s, r, m, p, o, pts_p, pts_o)
        elif two:
            ok, v = quick_oneoff_balance(s, r, m, p, -1, against, mat_o, 0.0)
        elif quick:  # more seats: in the main phase
            if m & MT_MASK == MT_ONE_OFF:
                ok, v = quick_oneoff_balance(s, r, m, p, mate, against, best_opp, mate_val)
            else:
                ok, v = quick_balance_n(s, r, m, p, mate, against, pts_p, best_opp, mate_val)
        if not ok:  # else applied on a copy, every other seat declining
            copy_into(scratch, s)
            apply_unopposed(scratch, r, m)
            if scratch[F_PHASE] == PH_OVER:
                if scratch[F_STATUS] == ST_WIN and same_side(s, r, p, scratch[F_WINNER]):
                    v = WIN_VALUE
                else:
                    v = -1e17 if scratch[F_STATUS] == ST_WIN else 0.0
            elif two:
                v = material(scratch, r, p) - material(scratch, r, o)
            else:
                v = material_balance(scratch, r, p)
        values[i] = v


@njit(cache=True)
def adjudicate(s, r):
    """End a cut-off playout: the seat of the highest ``material`` wins for its side (the
    greedy policy's own judgement of a standing, with any number of seats), or, when seats
    of different sides share it, the game reads as a stalemate."""
    best = -1e300
    winner = -1
    tie = False
    for q in range(s[F_NPLAYERS]):
        v = material(s, r, q)
        if v > best + 1e-9:
            best = v
            winner = q
            tie = False
        elif v > best - 1e-9 and not same_side(s, r, winner, q):
            tie = True
    s[F_PHASE] = PH_OVER
    if tie:
        s[F_STATUS] = ST_STALEMATE_ACTIONS
        s[F_WINNER] = -1
    else:
        s[F_STATUS] = ST_WIN
        s[F_WINNER] = winner


# the turn a playout with no cut-off never reaches
NO_CUT = 1 << 62


@njit(cache=True)
def rollout(s, r, rng, buf, policy, scratch, policy_side):
    """Play on with the chosen policy; return the number of plies. ``scratch`` is a
    state-sized array the greedy policy tries moves on.

    * ``ROLLOUT_GREEDY_CUT``: the greedy playout for ``CUT_ROUNDS`` rounds of turns
      (``CUT_ROUNDS`` turns of every seat), then ``adjudicate``d at the next main decision;
    * ``ROLLOUT_VALUE``, where a value was learned (``value_holds``): the greedy playout up to
      the next main decision (where it starts, if it starts at one), which
      ``settle_by_value`` ends with an outcome of the learned value's mean; elsewhere it is
      ``greedy``;
    * otherwise, to the end of the game.

    ``policy_side`` is -1, or a seat: then its side plays ``policy`` and every seat of
    another side a uniform move, to the end of the game (the search's ``MODEL_RANDOM``). One kernel
    for every kind of playout: Numba compiles and optimizes everything a kernel calls
    along with it, so each separate playout loop cost its own copy of the move generator
    and the rules on a first run."""
    s, r, rng, buf, scratch = borrow(s), borrow(r), borrow(rng), borrow(buf), borrow(scratch)
    end = NO_CUT
    if policy_side < 0:
        if policy == ROLLOUT_GREEDY_CUT:
            end = s[F_TURN_COUNT] + CUT_ROUNDS * s[F_NPLAYERS]
        elif policy == ROLLOUT_VALUE and value_holds(s, r):
            end = s[F_TURN_COUNT]
    plies = 0
    while s[F_PHASE] != PH_OVER and not (s[F_TURN_COUNT] >= end and s[F_PHASE] == PH_MAIN):
        n = generate_moves(s, r, buf)
        actor = s[F_ACTOR]
        if policy_side >= 0 and actor != ACTOR_CHANCE and not same_side(s, r, actor, policy_side):
            m = buf[rng_below(rng, n)]
        else:
            m = policy_pick(s, r, buf, n, rng, policy, scratch)
        apply_move(s, r, m)
        plies += 1
    if s[F_PHASE] != PH_OVER:
        if policy == ROLLOUT_GREEDY_CUT:
            adjudicate(s, r)
        else:
            settle_by_value(s, r, s[F_ACTOR], rng, scratch)
    return plies


@njit(cache=True, inline="always")
def policy_pick(s, r, buf, n, rng, policy, scratch):
    """The move the rollout policy ``policy`` plays among the ``n`` moves in ``buf``. Every
    policy plays a uniform move outside a main or 7 decision; inside one, the heuristic
    and greedy policies take a win on the spot before they weigh anything else.

    The greedy policy then, three times in four, tries every move on a copy (a one-off as if
    the opponents let it resolve) and keeps the best material balance, and else plays a
    uniform move. Most moves are scored from the masks (``quick_balance``,
    ``quick_oneoff_balance``; more seats: ``quick_balance_n``), the rest on a copy. It is
    written out here, not in a kernel of its own: each kernel compiles its own copy of
    everything it calls, the rules included, on a first run."""
    ph = s[F_PHASE]
    forced = policy >= ROLLOUT_GREEDY and n == 1  # greedy does not weigh a lone move
    if policy == ROLLOUT_RANDOM or (ph != PH_MAIN and ph != PH_SEVEN) or forced:
        return buf[rng_below(rng, n)]
    win = first_win(s, r, s[F_ACTOR], buf, n)
    if win >= 0:
        return buf[win]
    if policy == ROLLOUT_HEURISTIC:
        return _heuristic_pick(s, r, buf, n, rng)
    # the greedy policy
    p = s[F_ACTOR]
    o = opponent(s, p)
    if rng_below(rng, 4) < GREEDY_EPSILON_QUARTERS:
        return buf[rng_below(rng, n)]
    best = 0
    best_val = -1e18
    ties = 0
    if s[F_NPLAYERS] != 2:  # any number of seats: scored by ``material_balance`` after the move
        quick, mate, against, pts_p, best_opp, mate_val = _seat_setup(s, r, p)
        for i in range(n):
            if quick:
                if buf[i] & MT_MASK == MT_ONE_OFF:
                    ok, v = quick_oneoff_balance(s, r, buf[i], p, mate, against, best_opp, mate_val)
                else:
                    ok, v = quick_balance_n(s, r, buf[i], p, mate, against, pts_p, best_opp, mate_val)
                if ok:
                    best_val, best, ties = keep_best(v, i, best_val, best, ties, rng)
                    continue
            copy_into(scratch, s)
            apply_unopposed(scratch, r, buf[i])
            if scratch[F_PHASE] == PH_OVER:
                if scratch[F_STATUS] == ST_WIN and same_side(s, r, p, scratch[F_WINNER]):
                    return buf[i]
                v = -1e17 if scratch[F_STATUS] == ST_WIN else 0.0
            else:
                v = material_balance(scratch, r, p)
            best_val, best, ties = keep_best(v, i, best_val, best, ties, rng)
        return buf[best]
    pts_p = points_total(s, p)
    pts_o = points_total(s, o)
    mat_o = 0.0
    mat_o_known = False
    for i in range(n):
        if buf[i] & MT_MASK != MT_ONE_OFF:  # scored from the masks
            v = quick_balance(s, r, buf[i], p, o, pts_p, pts_o)
            best_val, best, ties = keep_best(v, i, best_val, best, ties, rng)
            continue
        if not mat_o_known:
            mat_o = material(s, r, o)
            mat_o_known = True
        ok, v = quick_oneoff_balance(s, r, buf[i], p, -1, 1 << o, mat_o, 0.0)
        if not ok:  # the other one-offs' effects are many: apply it on a copy
            copy_into(scratch, s)
            apply_unopposed(scratch, r, buf[i])
            if scratch[F_PHASE] == PH_OVER:
                if scratch[F_STATUS] == ST_WIN and scratch[F_WINNER] == p:
                    return buf[i]
                v = -1e17 if scratch[F_STATUS] == ST_WIN else 0.0
            else:
                v = material(scratch, r, p) - material(scratch, r, o)
        best_val, best, ties = keep_best(v, i, best_val, best, ties, rng)
    return buf[best]
