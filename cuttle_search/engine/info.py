"""What a seat sees: the one home of visibility, for any number of seats.

A seat sees its own hand, the table, the scrap, the pending chain and the known top of the
deck. Of another seat's hand it sees the cards marked public (taken with a 3, returned by
a 9, drawn from a known deck top), or the whole hand while it has glasses or once the deck
is empty. ``view_state`` turns a full state into the state of one seat's view: every card
that seat cannot see is placed canonically (unseen cards in id order, into the hidden hand
slots seat by seat, then into the hidden deck slots from the top down), which is exactly
the placement a position file with ``??`` in those places loads into.
"""

import numpy as np

from .jit import njit
from .layout import (
    bit,
    copy_into,
    EIGHTS,
    F_DECK,
    F_DECK_KNOWN,
    F_DECK_N,
    F_FACE,
    F_HAND,
    F_NPLAYERS,
    F_PUBLIC,
    F_REVEALED,
    F_SHUFFLE_SEED,
    F_TOP_SEEN_BY,
    F_TURN,
    lowest,
    move_card,
    popcount,
    R_DECKOUT_REVEALS,
    R_EIGHT_SHOWS_ALL,
    R_SEVEN_PRIVATE,
)
from .movegen import generate_moves
from .policies import wins_now
from .rng import rng_below, rng_next
from .seats import next_seat, same_side, seat_after


@njit(cache=True)
def sees_hand(s, r, viewer, q):
    """Whether ``viewer`` sees every card of seat ``q``'s hand: its own, every opponent's
    while it controls glasses (a partner's never), every hand once the deck is empty where
    the rules say so (``R_DECKOUT_REVEALS``; not while a 7's revealed cards, the deck's
    last, wait for its pick: they are still the deck's, as cuttle.cards keeps them), and
    with ``R_EIGHT_SHOWS_ALL`` every hand but an 8's player's own, face up for every seat."""
    if q == viewer:
        return True
    if s[F_DECK_N] == 0 and s[F_REVEALED] == 0 and r[R_DECKOUT_REVEALS] != 0:
        return True
    if r[R_EIGHT_SHOWS_ALL]:
        for o in range(s[F_NPLAYERS]):
            if o != q and (s[F_FACE + o] & EIGHTS) != 0:
                return True
        return False
    return (s[F_FACE + viewer] & EIGHTS) != 0 and not same_side(s, r, viewer, q)


@njit(cache=True)
def deck_known_to(s, viewer):
    """How many cards on top of the deck ``viewer`` knows: those every seat knows, or the
    one top card a private 7 showed it alone."""
    if s[F_TOP_SEEN_BY] == viewer and s[F_DECK_N] > 0:
        return max(s[F_DECK_KNOWN], 1)
    return s[F_DECK_KNOWN]


@njit(cache=True)
def hidden_revealed(s, r, viewer):
    """The cards a 7 revealed that ``viewer`` cannot see (``R_SEVEN_PRIVATE``: all of them,
    unless it played the 7)."""
    if r[R_SEVEN_PRIVATE] and viewer != s[F_TURN]:
        return s[F_REVEALED]
    return np.int64(0)


@njit(cache=True)
def visible_in_hand(s, r, viewer, q):
    """The cards of seat ``q``'s hand that ``viewer`` sees."""
    if sees_hand(s, r, viewer, q):
        return s[F_HAND + q]
    return s[F_HAND + q] & s[F_PUBLIC + q]


@njit(cache=True)
def unseen_cards(s, r, viewer):
    """The mask of every card ``viewer`` cannot see: hidden hand cards of the other seats
    and the deck below the top it knows."""
    u = np.int64(0)
    for q in range(s[F_NPLAYERS]):
        u |= s[F_HAND + q] & ~visible_in_hand(s, r, viewer, q)
    u |= hidden_revealed(s, r, viewer)
    for i in range(s[F_DECK_N] - deck_known_to(s, viewer)):
        u |= bit(s[F_DECK + i])
    return u


@njit(cache=True)
def view_state(s, r, viewer, out, hidden_in_hand):
    """Write ``viewer``'s view of the full state ``s`` into ``out`` and the number of hidden
    cards of each seat's hand into ``hidden_in_hand``; return the mask of unseen cards.
    Another seat's visible hand cards become public in the view (the viewer knows them).
    The chance stream of later reshuffles, which no seat knows, is 1 in a view, as in a
    loaded position (the true one gave a reshuffle's order to whatever played on a view)."""
    copy_into(out, s)
    if s[F_SHUFFLE_SEED] != 0:
        out[F_SHUFFLE_SEED] = 1
    unknown = unseen_cards(s, r, viewer)
    pool = unknown
    for q in range(s[F_NPLAYERS]):
        visible = visible_in_hand(s, r, viewer, q)
        k = popcount(s[F_HAND + q] & ~visible)
        hidden_in_hand[q] = k
        hand = visible
        for _ in range(k):
            c = lowest(pool)
            pool &= pool - 1
            hand |= bit(c)
        out[F_HAND + q] = hand
        if q != viewer:
            out[F_PUBLIC + q] = visible
    rev = s[F_REVEALED] & ~hidden_revealed(s, r, viewer)
    for _ in range(popcount(s[F_REVEALED]) - popcount(rev)):  # the hidden reveal, canonically
        c = lowest(pool)
        pool &= pool - 1
        rev |= bit(c)
    out[F_REVEALED] = rev
    if s[F_TOP_SEEN_BY] != viewer:
        out[F_TOP_SEEN_BY] = -1  # another seat's private knowledge is not part of this view
    top = s[F_DECK_N] - deck_known_to(s, viewer)  # the hidden deck slots, filled from the top down
    for i in range(top - 1, -1, -1):
        c = lowest(pool)
        pool &= pool - 1
        out[F_DECK + i] = c
    return unknown


@njit(cache=True)
def _shuffle_into(cards, x, rng):
    """List the cards of mask ``x`` into ``cards`` in uniformly random order."""
    k = 0
    while x:
        cards[k] = lowest(x)
        x &= x - 1
        k += 1
    for i in range(k - 1, 0, -1):
        j = rng_below(rng, i + 1)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t


@njit(cache=True)
def determinize(root, s, unknown, viewer, rng, cards, excluded, fresh):
    """Copy ``root`` into ``s`` and deal the cards of ``unknown`` (the viewer's unseen
    cards) uniformly into the slots they may occupy: every other seat's unknown hand cards
    (seat by seat in turn order after the viewer) and the deck below its known top.
    Everything the viewer knows stays where it is.

    ``excluded`` is an inference about the opponent of a two-seat game: cards it does not
    hold, except among its ``fresh`` cards drawn since the inference was made. The deal is
    then uniform given that: all but ``fresh`` unknown hand cards come from outside
    ``excluded``. An inference that cannot hold (too few cards outside it) is ignored, and
    so is any inference with more than two seats."""
    copy_into(s, root)
    if root[F_SHUFFLE_SEED] != 0:  # the chance stream of later reshuffles: no seat knows it
        s[F_SHUFFLE_SEED] = np.int64(rng_next(rng)) | 1
    if unknown == 0:
        return
    hidden_deck = root[F_DECK_N] - deck_known_to(root, viewer)
    n_seats = root[F_NPLAYERS]
    if n_seats == 2 and excluded != 0:
        o = next_seat(root, viewer)
        in_hand = popcount(root[F_HAND + o] & unknown)
        hand = root[F_HAND + o] & ~unknown
        held = in_hand - fresh  # hand slots the inference speaks for
        ex = excluded & unknown
        if ex != 0 and held > 0 and popcount(unknown & ~ex) >= held:
            _shuffle_into(cards, unknown & ~ex, rng)
            for i in range(held):
                hand |= bit(cards[i])
            _shuffle_into(cards, unknown & ~hand, rng)
            for i in range(fresh):
                hand |= bit(cards[i])
            s[F_HAND + o] = hand
            for i in range(hidden_deck):
                s[F_DECK + i] = cards[fresh + i]
            return
    _shuffle_into(cards, unknown, rng)
    k = 0
    for step in range(1, n_seats):
        q = seat_after(root, viewer, step)
        hand = root[F_HAND + q] & ~unknown
        for _ in range(popcount(root[F_HAND + q] & unknown)):
            hand |= bit(cards[k])
            k += 1
        s[F_HAND + q] = hand
    if root[F_REVEALED] & unknown:  # a 7's cards the viewer did not see
        rev = root[F_REVEALED] & ~unknown
        for _ in range(popcount(root[F_REVEALED] & unknown)):
            rev |= bit(cards[k])
            k += 1
        s[F_REVEALED] = rev
    for i in range(hidden_deck):
        s[F_DECK + i] = cards[k + i]


@njit(cache=True)
def winning_cards(s, r, p, candidates, t, buf):
    """The cards of ``candidates`` with which seat ``p``, deciding in the main phase of
    ``s``, could win on the spot (points, a King or a Jack that meets the goal), had it
    held them. ``t`` is a state-sized scratch array; only public fields are read, so the
    candidates may be cards p's opponent cannot see."""
    out = 0
    base = s[F_HAND + p] & ~candidates
    x = candidates
    while x:
        c = lowest(x)
        x &= x - 1
        copy_into(t, s)
        t[F_HAND + p] = base | bit(c)
        n = generate_moves(t, r, buf)
        for i in range(n):
            if move_card(buf[i]) == c and wins_now(t, r, p, buf[i]):
                out |= bit(c)
                break
    return out
