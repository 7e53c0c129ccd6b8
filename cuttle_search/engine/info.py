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
from .kernels import EIGHTS, F_DECK, F_DECK_KNOWN, F_DECK_N, F_FACE, F_HAND, F_NPLAYERS, F_PUBLIC, bit, lowest, popcount


@njit(cache=True)
def sees_hand(s, viewer, q):
    """Whether ``viewer`` sees every card of seat ``q``'s hand."""
    return q == viewer or (s[F_FACE + viewer] & EIGHTS) != 0 or s[F_DECK_N] == 0


@njit(cache=True)
def visible_in_hand(s, viewer, q):
    """The cards of seat ``q``'s hand that ``viewer`` sees."""
    if sees_hand(s, viewer, q):
        return s[F_HAND + q]
    return s[F_HAND + q] & s[F_PUBLIC + q]


@njit(cache=True)
def unseen_cards(s, viewer):
    """The mask of every card ``viewer`` cannot see: hidden hand cards of the other seats
    and the deck below its known top."""
    u = np.int64(0)
    for q in range(s[F_NPLAYERS]):
        u |= s[F_HAND + q] & ~visible_in_hand(s, viewer, q)
    for i in range(s[F_DECK_N] - s[F_DECK_KNOWN]):
        u |= bit(s[F_DECK + i])
    return u


@njit(cache=True)
def view_state(s, viewer, out, hidden_in_hand):
    """Write ``viewer``'s view of the full state ``s`` into ``out`` and the number of hidden
    cards of each seat's hand into ``hidden_in_hand``; return the mask of unseen cards.
    Another seat's visible hand cards become public in the view (the viewer knows them)."""
    out[:] = s
    unknown = unseen_cards(s, viewer)
    pool = unknown
    for q in range(s[F_NPLAYERS]):
        visible = visible_in_hand(s, viewer, q)
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
    top = s[F_DECK_N] - s[F_DECK_KNOWN]  # the hidden deck slots, filled from the top down
    for i in range(top - 1, -1, -1):
        c = lowest(pool)
        pool &= pool - 1
        out[F_DECK + i] = c
    return unknown
