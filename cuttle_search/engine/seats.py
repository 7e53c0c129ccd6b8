"""Seats: who comes next, who is an opponent, who is a partner. The one home of seat
arithmetic, for any number of seats (``F_NPLAYERS``, 2 to ``MAX_PLAYERS``).

Two words that two-player code used to share are kept apart here: ``next_seat`` is turn
order (the turn passes, the next seat is asked to counter), ``opponent`` is the one seat
against ``p`` in a two-seat game (the targets of a card, the victim of a 4). Games of more
seats ask ``opponents`` (a mask of seats) and ``partner`` instead.

Teams (``R_TEAMS``): 0 every seat for itself; 2 two teams of partners sitting opposite
(seat ``p`` and ``p + n/2``, with four seats or more), as in Team Cuttle.
"""

from .jit import njit
from .layout import F_NPLAYERS, R_TEAMS


@njit(cache=True)
def seat_count(s):
    """The number of seats of a game: the state's ``F_NPLAYERS``, the one truth once a state
    exists. The ruleset's ``R_NPLAYERS`` is only what the deal and ``setup.clear_state``
    write there; code above the engine asks this (or ``Position.players``)."""
    return s[F_NPLAYERS]


@njit(cache=True)
def next_seat(s, p):
    """The seat after ``p`` in turn order."""
    return (p + 1) % s[F_NPLAYERS]


@njit(cache=True)
def seat_after(s, p, k):
    """The seat ``k`` places after ``p`` in turn order (``k`` may exceed the seat count)."""
    return (p + k) % s[F_NPLAYERS]


@njit(cache=True)
def opponent(s, p):
    """The seat against ``p`` in a two-seat game (every ruleset played today)."""
    return (p + 1) % s[F_NPLAYERS]


@njit(cache=True)
def partner(s, r, p):
    """``p``'s partner, or -1 when every seat plays for itself."""
    n = s[F_NPLAYERS]
    if r[R_TEAMS] == 2 and n >= 4:
        return (p + n // 2) % n
    return -1


@njit(cache=True)
def same_side(s, r, p, q):
    """Whether seats ``p`` and ``q`` win and lose together (the same seat, or partners)."""
    return p == q or partner(s, r, p) == q


@njit(cache=True)
def opponents(s, r, p):
    """Mask of the seats playing against ``p`` (bit ``q`` for seat ``q``)."""
    out = 0
    for q in range(s[F_NPLAYERS]):
        if not same_side(s, r, p, q):
            out |= 1 << q
    return out


@njit(cache=True)
def next_rival(s, r, p):
    """The first seat after ``p`` in turn order that plays against it (in Team the next
    seat, partners sitting opposite), or -1 when there is none."""
    n = s[F_NPLAYERS]
    for k in range(1, n):
        q = (p + k) % n
        if not same_side(s, r, p, q):
            return q
    return -1


@njit(cache=True)
def sides(s, r):
    """How many sides play: every seat for itself, or two teams. A stalemate shares the game
    equally among the sides (1/n each, or 1/2 to each team)."""
    if r[R_TEAMS] == 2 and s[F_NPLAYERS] >= 4:
        return 2
    return s[F_NPLAYERS]
