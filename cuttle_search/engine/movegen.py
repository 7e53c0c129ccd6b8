"""Legal move generation: ``generate_moves`` writes every legal move of the pending
decision into a buffer and returns how many.

Move buffers
============
Every move buffer holds ``MAX_MOVES`` (2,048) moves, which no reachable decision fills:

* a main action (or a 7's pick): a hand of ``h`` cards facing ``t <= 52 - h`` cards on
  the table gives each card at most ``2 + 2t`` moves (points, a scuttle or a jack per
  target, a one-off per target), so at most ``2h(53 - h) + 1 <= 1,405`` with the draw;
* the 4's discards: 2 of at most 52 cards, ``C(52, 2) = 1,326``; the 5's: one card;
* the hand-limit discard (``hand-limit=discard`` only): no hand exceeds the limit by more
  than 2 (``hand_cap``), so ``C(10, 2) = 45`` with the limit of 8;
* counters, the 3's pick, the scuttle block: one move per card, at most 52.

``hand_cap`` is the proven largest hand of each seat and ruleset, and the loader refuses
any position beyond it (``position_error``). The generator still checks every write:
``generate_moves`` never writes at or past the buffer's last slot, and a decision that
would need it returns ``len(out)`` (see ``moves_overflowed``), which the Python layer
treats as an error.
"""

import numpy as np

from .jit import njit
from .noref import borrow
from .layout import (
    bit,
    EIGHTS,
    F_ACTOR,
    F_CHAIN_TOP,
    F_DECK_N,
    F_DISCARDS,
    F_FACE,
    F_FROZEN,
    F_HAND,
    F_NPLAYERS,
    F_PHASE,
    F_RESPONSE,
    F_REVEALED,
    F_SPENT,
    F_VICTIM,
    FROM_SEVEN,
    GIFT_SEATS,
    HL_BLOCK,
    JACKS,
    JOKER_1,
    JOKERS,
    lowest,
    make_gift,
    make_move,
    MAX_PLAYERS,
    MT_COUNTER,
    MT_DISCARD,
    MT_DRAW,
    MT_FORFEIT,
    MT_JACK,
    MT_JOKER,
    MT_MASK,
    MT_ONE_OFF,
    MT_PASS,
    MT_POINTS,
    MT_RANDOM_DISCARD,
    MT_RESOLVE,
    MT_ROYAL,
    MT_SCUTTLE,
    MT_SEVEN_SCRAP,
    MT_TAKE,
    MT_TEN_COUNTER,
    N_CARDS,
    NINES,
    NO_CARD,
    PH_COUNTER,
    PH_FIVE,
    PH_FOUR,
    PH_FOUR_RANDOM,
    PH_HAND_LIMIT,
    PH_MAIN,
    PH_RESPONSE,
    PH_SCUTTLE_COUNTER,
    PH_SEVEN,
    PH_THREE,
    popcount,
    R_ALWAYS_PLAYABLE,
    R_DISCARD_SINGLY,
    R_EIGHT_ONE_OFF,
    R_FOUR_EVERYONE,
    R_GIFT,
    R_HAND_LIMIT,
    R_HAND_LIMIT_STYLE,
    R_NO_SCUTTLE,
    R_QUEEN_STOPS_COUNTERS,
    R_RESHUFFLE,
    R_SEVEN_SCRAPS_EACH,
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
    TARGET_SEAT,
    TENS,
    TWOS,
)
from .seats import opponent, same_side
from .table import (
    controller_of_target,
    has_queen,
    jack_targets,
    joker_targets,
    nine_targets,
    opponents_points,
    permanent_targets,
    reshuffle_brings,
    targetable,
    three_pool,
)


@njit(cache=True)
def _put(out, n, m):
    """Write move ``m`` at ``out[n]`` when it fits before the buffer's last slot; a full
    buffer saturates the count at ``len(out)`` (an overflow) and writes nothing."""
    if n < out.shape[0] - 1:
        out[n] = m
        return n + 1
    return out.shape[0]


@njit(cache=True)
def moves_overflowed(out, n):
    """Whether a move count from ``generate_moves`` says the buffer was too small."""
    return n >= out.shape[0]


@njit(cache=True)
def _push_each(out, n, mt, card, targets):
    while targets:
        t = lowest(targets)
        targets &= targets - 1
        n = _put(out, n, make_move(mt, card, t))
    return n


@njit(cache=True)
def _push_gifts(out, n, mt, card, targets, s):
    """``R_GIFT``: each target once for every seat the card may hand it to (any seat but
    the one in control already)."""
    while targets:
        t = lowest(targets)
        targets &= targets - 1
        ctrl = controller_of_target(s, t)
        for q in range(s[F_NPLAYERS]):
            if q != ctrl:
                n = _put(out, n, make_gift(mt, card, t, q))
    return n


@njit(cache=True)
def _push_playable(out, n, s, a, rank_cards, mt, target):
    """One ``mt`` move (aimed at ``target``) for each card of ``rank_cards`` in seat
    ``a``'s hand that is not frozen: the answers out of turn (a counter 2, an answering 9,
    a blocking 10)."""
    cards = s[F_HAND + a] & rank_cards & ~s[F_FROZEN + a]
    while cards:
        c = lowest(cards)
        cards &= cards - 1
        n = _put(out, n, make_move(mt, c, target))
    return n


@njit(cache=True)
def generate_plays(s, r, out, n, p, cards, flag, deck_after):
    """Every way to play each card of ``cards`` as a main action."""
    scuttlable = opponents_points(s, r, p, False)
    if r[R_NO_SCUTTLE]:
        scuttlable = 0
    always = r[R_ALWAYS_PLAYABLE] != 0
    gift = r[R_GIFT] != 0
    while cards:
        c = lowest(cards)
        cards &= cards - 1
        if c >= JOKER_1:
            if gift:
                n = _push_gifts(out, n, MT_JOKER | flag, c, joker_targets(s, r, p), s)
            else:
                n = _push_each(out, n, MT_JOKER | flag, c, joker_targets(s, r, p))
            continue
        rk = c >> 2
        if rk <= RANK_TEN:
            n = _put(out, n, make_move(MT_POINTS | flag, c, NO_CARD))
            n = _push_each(out, n, MT_SCUTTLE | flag, c, scuttlable & (bit(c) - 1))
        if rk == RANK_EIGHT or rk == RANK_QUEEN or rk == RANK_KING:
            n = _put(out, n, make_move(MT_ROYAL | flag, c, NO_CARD))
        if rk == RANK_JACK:
            if gift:
                n = _push_gifts(out, n, MT_JACK | flag, c, jack_targets(s, r, p), s)
            else:
                n = _push_each(out, n, MT_JACK | flag, c, jack_targets(s, r, p))
        elif rk == RANK_ACE or rk == RANK_SIX:
            n = _put(out, n, make_move(MT_ONE_OFF | flag, c, NO_CARD))
        elif rk == RANK_TWO:
            n = _push_each(out, n, MT_ONE_OFF | flag, c, permanent_targets(s, r, p))
        elif rk == RANK_NINE:
            n = _push_each(out, n, MT_ONE_OFF | flag, c, nine_targets(s, r, p))
        elif rk == RANK_THREE:
            if always or three_pool(s, r) != 0:
                n = _put(out, n, make_move(MT_ONE_OFF | flag, c, NO_CARD))
        elif rk == RANK_FOUR:
            if s[F_NPLAYERS] == 2:
                if always or s[F_HAND + opponent(s, p)] != 0:
                    n = _put(out, n, make_move(MT_ONE_OFF | flag, c, NO_CARD))
            elif r[R_FOUR_EVERYONE]:  # every other seat discards
                n = _put(out, n, make_move(MT_ONE_OFF | flag, c, NO_CARD))
            else:  # the 4's player names its victim
                for q in range(s[F_NPLAYERS]):
                    if not same_side(s, r, p, q) and (always or s[F_HAND + q] != 0):
                        n = _put(out, n, make_move(MT_ONE_OFF | flag, c, TARGET_SEAT + q))
        elif rk == RANK_FIVE or rk == RANK_SEVEN:
            if always or deck_after >= 1:
                n = _put(out, n, make_move(MT_ONE_OFF | flag, c, NO_CARD))
        elif rk == RANK_EIGHT and r[R_EIGHT_ONE_OFF]:
            t = np.int64(0)
            for q in range(s[F_NPLAYERS]):
                if q != p:
                    t |= s[F_FACE + q] & EIGHTS & targetable(s, r, q)
            n = _push_each(out, n, MT_ONE_OFF | flag, c, t)
    return n


@njit(cache=True)
def _gen_subsets(out, n, mt, hand, k):
    """Every k-card subset of ``hand`` as one mask move (all of it if k >= size)."""
    m = popcount(hand)
    if k >= m:
        return _put(out, n, mt | (hand << 5))
    if k <= 0:
        return n
    # Gosper's hack over the index space of the hand's cards
    sel = (np.int64(1) << k) - 1
    limit = np.int64(1) << m
    while sel < limit:
        mask = np.int64(0)
        h = hand
        i = 0
        while h:
            c = lowest(h)
            h &= h - 1
            if (sel >> i) & 1:
                mask |= bit(c)
            i += 1
        n = _put(out, n, mt | (mask << 5))
        if n >= out.shape[0]:
            return n  # overflow: stop enumerating
        lo = sel & -sel
        ripple = sel + lo
        sel = (((ripple ^ sel) >> 2) // lo) | ripple
    return n


@njit(cache=True)
def generate_moves(s, r, out):
    """Write every legal move of the pending decision into ``out``; return the count."""
    s, r, out = borrow(s), borrow(r), borrow(out)  # no reference counting below (noref.py)
    ph = s[F_PHASE]
    a = s[F_ACTOR]
    n = 0
    if ph == PH_MAIN:
        hand = s[F_HAND + a]
        if s[F_SPENT + a] != 0:  # R_COUNTER_COSTS_TURN: this turn only discards those 2s
            return _put(out, n, make_move(MT_FORFEIT, NO_CARD, NO_CARD))
        deck_n = s[F_DECK_N]
        if deck_n > 0 or (r[R_RESHUFFLE] and reshuffle_brings(s, r) != 0):
            if r[R_HAND_LIMIT_STYLE] != HL_BLOCK or popcount(hand) < r[R_HAND_LIMIT]:
                n = _put(out, n, make_move(MT_DRAW, NO_CARD, NO_CARD))
        else:
            n = _put(out, n, make_move(MT_PASS, NO_CARD, NO_CARD))
        hand &= ~s[F_FROZEN + a]
        n = generate_plays(s, r, out, n, a, hand, 0, deck_n)
        if n == 0:  # nothing legal at all (never in reachable play): let the seat pass
            n = _put(out, n, make_move(MT_PASS, NO_CARD, NO_CARD))
    elif ph == PH_COUNTER:
        n = _put(out, n, make_move(MT_RESOLVE, NO_CARD, NO_CARD))
        if not (r[R_QUEEN_STOPS_COUNTERS] and has_queen(s, s[F_CHAIN_TOP])):
            n = _push_playable(out, n, s, a, TWOS, MT_COUNTER, NO_CARD)
    elif ph == PH_THREE:
        pool = three_pool(s, r)
        while pool:
            c = lowest(pool)
            pool &= pool - 1
            n = _put(out, n, make_move(MT_TAKE, c, NO_CARD))
    elif ph == PH_FOUR or ph == PH_FIVE:
        n = _gen_subsets(out, n, MT_DISCARD, s[F_HAND + a], s[F_DISCARDS])
    elif ph == PH_HAND_LIMIT:
        k = 1 if r[R_DISCARD_SINGLY] else s[F_DISCARDS]
        n = _gen_subsets(out, n, MT_DISCARD, s[F_HAND + a], k)
    elif ph == PH_RESPONSE:  # answer the royal with a 9, or let it stand
        n = _put(out, n, make_move(MT_RESOLVE, NO_CARD, NO_CARD))
        n = _push_playable(out, n, s, a, NINES, MT_ONE_OFF, s[F_RESPONSE])
    elif ph == PH_FOUR_RANDOM:
        n = _gen_subsets(out, n, MT_RANDOM_DISCARD, s[F_HAND + s[F_VICTIM]], s[F_DISCARDS])
    elif ph == PH_SEVEN:
        rev = s[F_REVEALED]
        deck_after = s[F_DECK_N] + popcount(rev) - 1
        n = generate_plays(s, r, out, n, a, rev, FROM_SEVEN, deck_after)
        if r[R_SEVEN_SCRAPS_EACH]:
            # a revealed Jack or Joker with nowhere to go may be scrapped instead, card by card
            stuck = rev & (JACKS | JOKERS)
            if jack_targets(s, r, a) != 0:
                stuck &= ~JACKS
            if joker_targets(s, r, a) != 0:
                stuck &= ~JOKERS
            while stuck:  # (number cards are always points and royals always play: n > 0)
                c = lowest(stuck)
                stuck &= stuck - 1
                n = _put(out, n, make_move(MT_SEVEN_SCRAP, c, NO_CARD))
        elif n == 0:
            while rev:
                c = lowest(rev)
                rev &= rev - 1
                n = _put(out, n, make_move(MT_SEVEN_SCRAP, c, NO_CARD))
    elif ph == PH_SCUTTLE_COUNTER:
        n = _put(out, n, make_move(MT_RESOLVE, NO_CARD, NO_CARD))
        n = _push_playable(out, n, s, a, TENS, MT_TEN_COUNTER, NO_CARD)
    return n


@njit(cache=True)
def _push_card_sets(out, n):
    """Every set of one or two cards, as discard moves: {a}, {a, b > a}, in card order."""
    for a in range(N_CARDS):
        out[n] = MT_DISCARD | (bit(a) << 5)
        n += 1
        for b in range(a + 1, N_CARDS):
            out[n] = MT_DISCARD | ((bit(a) | bit(b)) << 5)
            n += 1
    return n


@njit(cache=True)
def _push_joker_sets(out, n):
    """Every set of one or two cards with a Joker in it, as discard moves."""
    for k in range(2):
        out[n] = MT_DISCARD | (bit(JOKER_1 + k) << 5)
        n += 1
        for a in range(N_CARDS + k):
            out[n] = MT_DISCARD | ((bit(a) | bit(JOKER_1 + k)) << 5)
            n += 1
    return n


@njit(cache=True)
def action_space(out):
    """Every move a player can make in some game under some ruleset, in a fixed order (the
    OpenSpiel action ids): for two seats, draw, pass, resolve; then, plain and from a 7, every
    points play and scuttle, royal, jack and one-off by card; counters, the 3's picks, a
    7's scraps, the ten-counters; and every discard of one or two cards. ``out`` needs
    ``ACTION_SPACE_SIZE`` slots; returns how many were written."""
    n = 0
    out[n] = make_move(MT_DRAW, NO_CARD, NO_CARD)
    out[n + 1] = make_move(MT_PASS, NO_CARD, NO_CARD)
    out[n + 2] = make_move(MT_RESOLVE, NO_CARD, NO_CARD)
    n += 3
    for flag in (0, FROM_SEVEN):
        for c in range(40):
            out[n] = make_move(MT_POINTS | flag, c, NO_CARD)
            n += 1
            for t in range(c):
                out[n] = make_move(MT_SCUTTLE | flag, c, t)
                n += 1
        for c in range(N_CARDS):
            rank = c >> 2
            if rank == RANK_EIGHT or rank == RANK_QUEEN or rank == RANK_KING:
                out[n] = make_move(MT_ROYAL | flag, c, NO_CARD)
                n += 1
            if rank == RANK_JACK:
                for t in range(40):
                    out[n] = make_move(MT_JACK | flag, c, t)
                    n += 1
            if rank == RANK_ACE or rank == RANK_THREE or rank == RANK_FOUR or rank == RANK_FIVE or rank == RANK_SIX or rank == RANK_SEVEN:
                out[n] = make_move(MT_ONE_OFF | flag, c, NO_CARD)
                n += 1
            if rank == RANK_TWO or rank == RANK_EIGHT or rank == RANK_NINE:
                for t in range(N_CARDS):
                    out[n] = make_move(MT_ONE_OFF | flag, c, t)
                    n += 1
    for c in range(RANK_TWO * 4, RANK_TWO * 4 + 4):
        out[n] = make_move(MT_COUNTER, c, NO_CARD)
        n += 1
    for c in range(N_CARDS):
        out[n] = make_move(MT_TAKE, c, NO_CARD)
        n += 1
    for c in range(N_CARDS):
        out[n] = make_move(MT_SEVEN_SCRAP, c, NO_CARD)
        n += 1
    for c in range(RANK_TEN * 4, RANK_TEN * 4 + 4):
        out[n] = make_move(MT_TEN_COUNTER, c, NO_CARD)
        n += 1
    n = _push_card_sets(out, n)
    # the games of more seats add, after every two-seat move (whose ids stay put): Jokers
    # onto royals and Jacks, a 4 naming its victim, the 3 taking a Joker, a 7's Joker
    # scrapped, discards with a Joker in them, and a 2 or a 9 on a Joker
    for flag in (0, FROM_SEVEN):
        for k in range(2):
            for t in range(N_CARDS):
                rank = t >> 2
                if rank == RANK_EIGHT or rank == RANK_QUEEN or rank == RANK_KING or rank == RANK_JACK:
                    out[n] = make_move(MT_JOKER | flag, JOKER_1 + k, t)
                    n += 1
        for c in range(RANK_FOUR * 4, RANK_FOUR * 4 + 4):
            for q in range(MAX_PLAYERS):
                out[n] = make_move(MT_ONE_OFF | flag, c, TARGET_SEAT + q)
                n += 1
    for k in range(2):
        out[n] = make_move(MT_TAKE, JOKER_1 + k, NO_CARD)
        out[n + 1] = make_move(MT_SEVEN_SCRAP, JOKER_1 + k, NO_CARD)
        n += 2
    n = _push_joker_sets(out, n)
    for flag in (0, FROM_SEVEN):  # a 2 or a 9 on a top Joker
        for rank in (RANK_TWO, RANK_NINE):
            for c in range(rank * 4, rank * 4 + 4):
                for k in range(2):
                    out[n] = make_move(MT_ONE_OFF | flag, c, JOKER_1 + k)
                    n += 1
    # then Team Cuttle's Jacks and Jokers naming the seat they give control to, and the
    # turn a counter out of turn costs (Cuttle Multiplayer)
    for flag in (0, FROM_SEVEN):
        for c in range(RANK_JACK * 4, RANK_JACK * 4 + 4):
            for t in range(40):
                for q in range(GIFT_SEATS):
                    out[n] = make_gift(MT_JACK | flag, c, t, q)
                    n += 1
        for k in range(2):
            for t in range(N_CARDS):
                rank = t >> 2
                if rank == RANK_EIGHT or rank == RANK_QUEEN or rank == RANK_KING or rank == RANK_JACK:
                    for q in range(GIFT_SEATS):
                        out[n] = make_gift(MT_JOKER | flag, JOKER_1 + k, t, q)
                        n += 1
    out[n] = make_move(MT_FORFEIT, NO_CARD, NO_CARD)
    n += 1
    return n


@njit(cache=True)
def random_discard_outcomes(out):
    """Every chance outcome of a ``four=random`` 4 (one or two cards, as masks in
    ``MT_RANDOM_DISCARD`` moves; Jokers last), in the order of ``action_space``'s discards."""
    n = _push_joker_sets(out, _push_card_sets(out, 0))
    for i in range(n):
        out[i] = (out[i] & ~MT_MASK) | MT_RANDOM_DISCARD
    return n
