"""The Numba kernels: state layout, move generation, move application, playouts.

This file is the only home of ``@njit`` code in cuttle_search. Everything lives in one
file on purpose: Numba's on-disk cache does not notice when a function in *another*
file changes, so splitting the kernels would risk stale compiled code.

State layout
============
A game state is one flat ``int64`` array of ``STATE_SIZE`` slots, so cloning a state
is ``s.copy()``. Cards are ids ``rank * 4 + suit`` (ranks A=0 .. K=12, suits C<D<H<S),
so id order is scuttle order. A zone is a 64-bit mask with bit ``id`` set per card.

Game fields (one slot each)::

    F_NPLAYERS      number of seats (2 for every ruleset offered today)
    F_PHASE         PH_* below: what kind of decision is pending
    F_TURN          seat whose turn it is
    F_ACTOR         seat that makes the pending decision (ACTOR_CHANCE for chance)
    F_TURN_COUNT    completed turns (cuttle.cards' ``turn``)
    F_ACTIONS       moves applied so far (the 1,000-action safety stalemate)
    F_PASSES        consecutive passes
    F_STATUS        ST_* below
    F_WINNER        winning seat, or -1
    F_ONEOFF        pending one-off card, or -1 (it is in no zone while pending)
    F_ONEOFF_TARGET its target card, or -1
    F_ONEOFF_PLAYER seat that played it
    F_TWOS          mask of counter 2s played in the current chain
    F_NTWOS         how many counters are in the chain
    F_CHAIN_TOP     seat whose card is on top of the chain (the one being countered)
    F_DISCARDS      cards still to discard in a discard phase
    F_REVEALED      mask of cards a 7 revealed, waiting for the pick
    F_SCUTTLE_CARD  pending scuttling card (ten-counters-scuttle option), or -1
    F_SCUTTLE_TARGET its target, or -1
    F_SCRAP         scrap mask
    F_DECK_N        cards in the deck
    F_DECK_KNOWN    how many cards on top of the deck both players know (7, 9-to-deck)
    F_SEVEN         the 7 whose revealed cards wait for the pick, or -1 (it reaches the
                    scrap only once a revealed card is played or scrapped)

Jack fields, four slots each, indexed by jack suit (jack id = 40 + j)::

    F_JACK_ON + j    point card the jack sits on, or -1
    F_JACK_BY + j    seat that played it
    F_JACK_LEVEL + j height in its stack (0 = bottom)

Per-seat fields, ``MAX_PLAYERS`` slots each, indexed by seat::

    F_HAND + p      hand mask
    F_POINTS + p    point cards p controls (stolen ones included)
    F_FACE + p      royals p controls: Kings, Queens, glasses 8s
    F_OWNED + p     point cards on the table that p played (who gets them back)
    F_PUBLIC + p    cards in p's hand that every player knows
    F_FROZEN + p    card p may not play as their next action, or -1

The deck occupies ``F_DECK .. F_DECK + 53``; ``s[F_DECK + F_DECK_N - 1]`` is the top.

Rules are a second ``int64`` array of ``RULES_SIZE`` slots (``R_*`` below), built by
``cuttle_search.rules``.

Moves are ``int64``: bits 0-3 the move type (MT_*), bit 4 ``FROM_SEVEN`` (the card
comes from a 7's reveal), then either a card (bits 5-10) and a target (bits 11-16),
with 63 meaning none, or, for discards, a card mask from bit 5.

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

# ---------------------------------------------------------------- cards
N_CARDS = 52
NO_CARD = 63
RANK_ACE, RANK_TWO, RANK_THREE, RANK_FOUR, RANK_FIVE, RANK_SIX = 0, 1, 2, 3, 4, 5
RANK_SEVEN, RANK_EIGHT, RANK_NINE, RANK_TEN = 6, 7, 8, 9
RANK_JACK, RANK_QUEEN, RANK_KING = 10, 11, 12
ALL_CARDS = (1 << 52) - 1
POINT_RANKS = (1 << 40) - 1  # A..T
TWOS = 0xF << 4
THREES = 0xF << 8
EIGHTS = 0xF << 28
TENS = 0xF << 36
JACKS = 0xF << 40
QUEENS = 0xF << 44
KINGS = 0xF << 48

# ---------------------------------------------------------------- layout
MAX_PLAYERS = 8
F_NPLAYERS = 0
F_PHASE = 1
F_TURN = 2
F_ACTOR = 3
F_TURN_COUNT = 4
F_ACTIONS = 5
F_PASSES = 6
F_STATUS = 7
F_WINNER = 8
F_ONEOFF = 9
F_ONEOFF_TARGET = 10
F_ONEOFF_PLAYER = 11
F_TWOS = 12
F_NTWOS = 13
F_CHAIN_TOP = 14
F_DISCARDS = 15
F_REVEALED = 16
F_SCUTTLE_CARD = 17
F_SCUTTLE_TARGET = 18
F_SCRAP = 19
F_DECK_N = 20
F_DECK_KNOWN = 21
F_SEVEN = 22
F_JACK_ON = 24
F_JACK_BY = 28
F_JACK_LEVEL = 32
F_HAND = 40
F_POINTS = F_HAND + MAX_PLAYERS
F_FACE = F_POINTS + MAX_PLAYERS
F_OWNED = F_FACE + MAX_PLAYERS
F_PUBLIC = F_OWNED + MAX_PLAYERS
F_FROZEN = F_PUBLIC + MAX_PLAYERS
F_DECK = F_FROZEN + MAX_PLAYERS
DECK_SLOTS = 54
STATE_SIZE = F_DECK + DECK_SLOTS

# phases
PH_MAIN = 0
PH_COUNTER = 1  # a one-off waits: counter with a 2, or resolve
PH_THREE = 2  # the 3's player picks a card from the scrap
PH_FOUR = 3  # the 4's victim chooses discards
PH_FOUR_RANDOM = 4  # chance: the 4's victim discards at random (four=random)
PH_FIVE = 5  # the 5's player discards one card before drawing
PH_HAND_LIMIT = 6  # the turn player discards down to the hand limit
PH_SEVEN = 7  # the 7's player plays (or scraps) a revealed card
PH_SCUTTLE_COUNTER = 8  # ten-counters-scuttle: block with a 10, or resolve
PH_OVER = 9

ACTOR_CHANCE = -1

# status
ST_ONGOING = 0
ST_WIN = 1
ST_STALEMATE_PASSES = 2
ST_STALEMATE_ACTIONS = 3

# ---------------------------------------------------------------- rules array
R_NPLAYERS = 0
R_HAND_LIMIT_STYLE = 1  # HL_*
R_HAND_LIMIT = 2
R_DEAL_FIRST = 3  # cards for the seat that moves first
R_DEAL_OTHER = 4  # cards for every other seat (the dealer)
R_GOAL = 5  # 5 slots: goal with 0..4 Kings
R_FOUR_RANDOM = 10
R_NINE_MODE = 11  # NINE_*
R_NINE_POINTS = 12  # a 9 may target point cards
R_TARGET_ANY_SIDE = 13  # 2 and 9 may target permanents on either side (classic)
R_JACK_SWITCH = 14  # each jack switches control (classic) instead of top-jack control
R_JACK_OWN = 15  # a jack may go on your own point card (classic)
R_QUEENS_PROTECT_QUEENS = 16
R_THREE_TAKES_THREE = 17
R_EIGHT_ONE_OFF = 18
R_TEN_COUNTERS_SCUTTLE = 19
R_FIVE_DISCARD = 20  # the 5 discards one card before drawing
R_FIVE_DRAW = 21
R_SEVEN_REVEAL = 22  # cards a 7 reveals (2, or 1 for the must-play 7)
R_ACTION_LIMIT = 23
R_PASS_LIMIT = 24
RULES_SIZE = 32

HL_NONE = 0
HL_DISCARD = 1
HL_BLOCK = 2
NINE_FROZEN = 0
NINE_UNFROZEN = 1
NINE_DECK_TOP = 2

# ---------------------------------------------------------------- moves
MT_DRAW = 0
MT_PASS = 1
MT_POINTS = 2
MT_SCUTTLE = 3
MT_ROYAL = 4  # King, Queen, or an 8 as glasses
MT_JACK = 5
MT_ONE_OFF = 6
MT_COUNTER = 7
MT_RESOLVE = 8  # decline to counter (one-off chain or scuttle block)
MT_TAKE = 9  # the 3's pick from the scrap
MT_DISCARD = 10  # a card mask: the 4's victim, the 5, the hand limit
MT_SEVEN_SCRAP = 11  # scrap an unplayable revealed card
MT_TEN_COUNTER = 12  # ten-counters-scuttle
MT_RANDOM_DISCARD = 13  # chance outcome of four=random: a card mask
MT_MASK = 15
FROM_SEVEN = 16
MAX_MOVES = 2048

# de Bruijn table for the index of the lowest set bit
_DEBRUIJN = 0x03F79D71B4CB0A89
_DEBRUIJN_TABLE = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_TABLE[(((1 << _i) * _DEBRUIJN) & ((1 << 64) - 1)) >> 58] = _i


# ================================================================ bit helpers
@njit(cache=True)
def bit(c):
    return np.int64(1) << c


@njit(cache=True)
def lowest(x):
    """Index of the lowest set bit of a non-zero mask."""
    return _DEBRUIJN_TABLE[(((x & -x) * _DEBRUIJN) >> 58) & 63]


@njit(cache=True)
def popcount(x):
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0xFF


@njit(cache=True)
def make_move(mt, card, target):
    return mt | (card << 5) | (target << 11)


@njit(cache=True)
def move_card(m):
    return (m >> 5) & 63


@njit(cache=True)
def move_target(m):
    return (m >> 11) & 63


@njit(cache=True)
def move_mask(m):
    return m >> 5


# ================================================================ random numbers
@njit(cache=True)
def rng_next(rng):
    """splitmix64 step on an explicit one-slot uint64 state array."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def rng_below(rng, n):
    """Uniform integer in [0, n) (n < 2**32), by multiply-shift."""
    return np.int64(((rng_next(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


# ================================================================ small queries
@njit(cache=True)
def other(s, p):
    """The next seat; in a two-player game, the opponent."""
    return (p + 1) % s[F_NPLAYERS]


@njit(cache=True)
def points_total(s, p):
    total = 0
    x = s[F_POINTS + p]
    while x:
        c = lowest(x)
        x &= x - 1
        total += (c >> 2) + 1
    return total


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
def targetable(s, r, q):
    """Cards of seat ``q`` that an opponent's single-target effect may target (Queens)."""
    qs = s[F_FACE + q] & QUEENS
    if qs == 0:
        return np.int64(ALL_CARDS)
    if r[R_QUEENS_PROTECT_QUEENS] and popcount(qs) >= 2:
        return np.int64(0)
    return qs


@njit(cache=True)
def permanent_targets(s, r, p):
    """Targets of a 2 (and the permanent part of a 9's): royals, glasses, top jacks."""
    o = other(s, p)
    t = (s[F_FACE + o] | top_jacks_on(s, s[F_POINTS + o])) & targetable(s, r, o)
    if r[R_TARGET_ANY_SIDE]:
        t |= s[F_FACE + p] | top_jacks_on(s, s[F_POINTS + p])
    return t


@njit(cache=True)
def nine_targets(s, r, p):
    t = permanent_targets(s, r, p)
    if r[R_NINE_POINTS]:
        o = other(s, p)
        t |= s[F_POINTS + o] & targetable(s, r, o)
    return t


@njit(cache=True)
def jack_targets(s, r, p):
    o = other(s, p)
    t = s[F_POINTS + o] & targetable(s, r, o)
    if r[R_JACK_OWN]:
        t |= s[F_POINTS + p]
    return t


@njit(cache=True)
def three_pool(s, r):
    if r[R_THREE_TAKES_THREE]:
        return s[F_SCRAP]
    return s[F_SCRAP] & ~THREES


@njit(cache=True)
def has_queen(s, p):
    return (s[F_FACE + p] & QUEENS) != 0


# ================================================================ move generation
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
def _gen_plays(s, r, out, n, p, cards, flag, deck_after):
    """Every way to play each card of ``cards`` as a main action."""
    o = other(s, p)
    while cards:
        c = lowest(cards)
        cards &= cards - 1
        rk = c >> 2
        if rk <= RANK_TEN:
            n = _put(out, n, make_move(MT_POINTS | flag, c, NO_CARD))
            n = _push_each(out, n, MT_SCUTTLE | flag, c, s[F_POINTS + o] & (bit(c) - 1))
        if rk == RANK_EIGHT or rk == RANK_QUEEN or rk == RANK_KING:
            n = _put(out, n, make_move(MT_ROYAL | flag, c, NO_CARD))
        if rk == RANK_JACK:
            n = _push_each(out, n, MT_JACK | flag, c, jack_targets(s, r, p))
        elif rk == RANK_ACE or rk == RANK_SIX:
            n = _put(out, n, make_move(MT_ONE_OFF | flag, c, NO_CARD))
        elif rk == RANK_TWO:
            n = _push_each(out, n, MT_ONE_OFF | flag, c, permanent_targets(s, r, p))
        elif rk == RANK_NINE:
            n = _push_each(out, n, MT_ONE_OFF | flag, c, nine_targets(s, r, p))
        elif rk == RANK_THREE:
            if three_pool(s, r) != 0:
                n = _put(out, n, make_move(MT_ONE_OFF | flag, c, NO_CARD))
        elif rk == RANK_FOUR:
            if s[F_HAND + o] != 0:
                n = _put(out, n, make_move(MT_ONE_OFF | flag, c, NO_CARD))
        elif rk == RANK_FIVE or rk == RANK_SEVEN:
            if deck_after >= 1:
                n = _put(out, n, make_move(MT_ONE_OFF | flag, c, NO_CARD))
        elif rk == RANK_EIGHT and r[R_EIGHT_ONE_OFF]:
            t = s[F_FACE + o] & EIGHTS & targetable(s, r, o)
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
    ph = s[F_PHASE]
    a = s[F_ACTOR]
    n = 0
    if ph == PH_MAIN:
        hand = s[F_HAND + a]
        deck_n = s[F_DECK_N]
        if deck_n > 0:
            if r[R_HAND_LIMIT_STYLE] != HL_BLOCK or popcount(hand) < r[R_HAND_LIMIT]:
                n = _put(out, n, make_move(MT_DRAW, NO_CARD, NO_CARD))
        else:
            n = _put(out, n, make_move(MT_PASS, NO_CARD, NO_CARD))
        fz = s[F_FROZEN + a]
        if fz >= 0:
            hand &= ~bit(fz)
        n = _gen_plays(s, r, out, n, a, hand, 0, deck_n)
        if n == 0:  # nothing legal at all (never in reachable play): let the seat pass
            n = _put(out, n, make_move(MT_PASS, NO_CARD, NO_CARD))
    elif ph == PH_COUNTER:
        n = _put(out, n, make_move(MT_RESOLVE, NO_CARD, NO_CARD))
        if not has_queen(s, s[F_CHAIN_TOP]):
            twos = s[F_HAND + a] & TWOS
            fz = s[F_FROZEN + a]
            if fz >= 0:
                twos &= ~bit(fz)
            while twos:
                c = lowest(twos)
                twos &= twos - 1
                n = _put(out, n, make_move(MT_COUNTER, c, NO_CARD))
    elif ph == PH_THREE:
        pool = three_pool(s, r)
        while pool:
            c = lowest(pool)
            pool &= pool - 1
            n = _put(out, n, make_move(MT_TAKE, c, NO_CARD))
    elif ph == PH_FOUR or ph == PH_FIVE or ph == PH_HAND_LIMIT:
        n = _gen_subsets(out, n, MT_DISCARD, s[F_HAND + a], s[F_DISCARDS])
    elif ph == PH_FOUR_RANDOM:
        victim = other(s, s[F_TURN])
        n = _gen_subsets(out, n, MT_RANDOM_DISCARD, s[F_HAND + victim], s[F_DISCARDS])
    elif ph == PH_SEVEN:
        rev = s[F_REVEALED]
        deck_after = s[F_DECK_N] + popcount(rev) - 1
        n = _gen_plays(s, r, out, n, a, rev, FROM_SEVEN, deck_after)
        if n == 0:
            while rev:
                c = lowest(rev)
                rev &= rev - 1
                n = _put(out, n, make_move(MT_SEVEN_SCRAP, c, NO_CARD))
    elif ph == PH_SCUTTLE_COUNTER:
        n = _put(out, n, make_move(MT_RESOLVE, NO_CARD, NO_CARD))
        tens = s[F_HAND + a] & TENS
        fz = s[F_FROZEN + a]
        if fz >= 0:
            tens &= ~bit(fz)
        while tens:
            c = lowest(tens)
            tens &= tens - 1
            n = _put(out, n, make_move(MT_TEN_COUNTER, c, NO_CARD))
    return n


# ================================================================ zone changes
@njit(cache=True)
def _deck_push_top(s, c, known):
    s[F_DECK + s[F_DECK_N]] = c
    s[F_DECK_N] += 1
    if known:
        s[F_DECK_KNOWN] += 1


@njit(cache=True)
def _deck_pop_top(s):
    s[F_DECK_N] -= 1
    c = s[F_DECK + s[F_DECK_N]]
    s[F_DECK + s[F_DECK_N]] = -1
    was_known = s[F_DECK_KNOWN] > 0
    if was_known:
        s[F_DECK_KNOWN] -= 1
    return c, was_known


@njit(cache=True)
def _draw(s, r, p, k):
    """Draw up to ``k`` cards (fewer if the deck is short or the block-style limit bites)."""
    if r[R_HAND_LIMIT_STYLE] == HL_BLOCK:
        room = r[R_HAND_LIMIT] - popcount(s[F_HAND + p])
        if room < k:
            k = room
    for _ in range(k):
        if s[F_DECK_N] == 0:
            break
        c, known = _deck_pop_top(s)
        s[F_HAND + p] |= bit(c)
        if known:
            s[F_PUBLIC + p] |= bit(c)


@njit(cache=True)
def _leave_hand(s, p, c):
    s[F_HAND + p] &= ~bit(c)
    s[F_PUBLIC + p] &= ~bit(c)


@njit(cache=True)
def _set_control(s, r, card):
    """Give ``card`` (a point card on the table) to whoever controls it now."""
    owner = owner_of(s, card)
    if r[R_JACK_SWITCH]:
        ctrl = owner
        if jack_height(s, card) % 2 == 1:
            ctrl = other(s, owner)
    else:
        j = top_jack(s, card)
        ctrl = owner if j < 0 else s[F_JACK_BY + j]
    for q in range(s[F_NPLAYERS]):
        s[F_POINTS + q] &= ~bit(card)
    s[F_POINTS + ctrl] |= bit(card)


@njit(cache=True)
def _clear_jack(s, j):
    """Jack ``j`` leaves the table: its slots go back to "none", so equal positions are
    equal arrays."""
    s[F_JACK_ON + j] = -1
    s[F_JACK_BY + j] = -1
    s[F_JACK_LEVEL + j] = -1


@njit(cache=True)
def _lift_point_card(s, card):
    """Take a point card off the table: its jacks go to the scrap, it goes nowhere yet."""
    for j in range(4):
        if s[F_JACK_ON + j] == card:
            _clear_jack(s, j)
            s[F_SCRAP] |= bit(40 + j)
    for q in range(s[F_NPLAYERS]):
        s[F_POINTS + q] &= ~bit(card)
        s[F_OWNED + q] &= ~bit(card)


@njit(cache=True)
def _lift_jack(s, r, jack):
    """Take a (top) jack off its stack; the card goes back one level. Returns who played it."""
    j = jack - 40
    card = s[F_JACK_ON + j]
    lvl = s[F_JACK_LEVEL + j]
    by = s[F_JACK_BY + j]
    _clear_jack(s, j)
    for k in range(4):  # close the gap if it was not the top (kept general)
        if s[F_JACK_ON + k] == card and s[F_JACK_LEVEL + k] > lvl:
            s[F_JACK_LEVEL + k] -= 1
    _set_control(s, r, card)
    return by


@njit(cache=True)
def _face_controller(s, card):
    for q in range(s[F_NPLAYERS]):
        if (s[F_FACE + q] >> card) & 1:
            return q
    return -1


@njit(cache=True)
def _scrap_target(s, r, t):
    """The 2's effect (and the 8's one-off): scrap a royal, glasses or top jack."""
    if (t >> 2) == RANK_JACK:
        _lift_jack(s, r, t)
    else:
        q = _face_controller(s, t)
        if q >= 0:
            s[F_FACE + q] &= ~bit(t)
    s[F_SCRAP] |= bit(t)


@njit(cache=True)
def _nine(s, r, t):
    """The 9's effect: return the target to a hand (frozen or not), or to the deck top."""
    rk = t >> 2
    if rk == RANK_JACK:
        receiver = _lift_jack(s, r, t)
    elif rk <= RANK_TEN and controller_of_point(s, t) >= 0:
        receiver = controller_of_point(s, t)
        _lift_point_card(s, t)
    else:
        receiver = _face_controller(s, t)
        if receiver < 0:
            return
        s[F_FACE + receiver] &= ~bit(t)
    mode = r[R_NINE_MODE]
    if mode == NINE_DECK_TOP:
        _deck_push_top(s, t, True)
    else:
        s[F_HAND + receiver] |= bit(t)
        s[F_PUBLIC + receiver] |= bit(t)
        if mode == NINE_FROZEN:
            s[F_FROZEN + receiver] = t


@njit(cache=True)
def _return_revealed(s):
    """After a 7's pick, the other revealed card goes back on top, known to both, and the
    7 itself goes to the scrap."""
    rev = s[F_REVEALED]
    while rev:
        c = lowest(rev)
        rev &= rev - 1
        _deck_push_top(s, c, True)
    s[F_REVEALED] = 0
    s[F_SCRAP] |= bit(s[F_SEVEN])
    s[F_SEVEN] = -1


# ================================================================ turn flow
@njit(cache=True)
def _check_win(s, r):
    """Win check for every seat; the turn player wins a tie. Returns True if the game ended."""
    n = s[F_NPLAYERS]
    t = s[F_TURN]
    for i in range(n):
        q = (t + i) % n
        if points_total(s, q) >= goal(s, r, q):
            s[F_STATUS] = ST_WIN
            s[F_WINNER] = q
            s[F_PHASE] = PH_OVER
            return True
    return False


@njit(cache=True)
def _pass_turn(s):
    t = other(s, s[F_TURN])
    s[F_TURN] = t
    s[F_ACTOR] = t
    s[F_TURN_COUNT] += 1
    s[F_PHASE] = PH_MAIN


@njit(cache=True)
def _finish_action(s, r):
    """The turn's action is complete: win check, hand limit, then the next turn."""
    if _check_win(s, r):
        return
    p = s[F_TURN]
    if r[R_HAND_LIMIT_STYLE] == HL_DISCARD:
        over = popcount(s[F_HAND + p]) - r[R_HAND_LIMIT]
        if over > 0:
            s[F_PHASE] = PH_HAND_LIMIT
            s[F_ACTOR] = p
            s[F_DISCARDS] = over
            return
    _pass_turn(s)


@njit(cache=True)
def _clear_oneoff(s):
    s[F_ONEOFF] = -1
    s[F_ONEOFF_TARGET] = -1
    s[F_ONEOFF_PLAYER] = -1
    s[F_TWOS] = 0
    s[F_NTWOS] = 0
    s[F_CHAIN_TOP] = -1


@njit(cache=True)
def _resolve_oneoff(s, r):
    """The chain ended with the one-off standing: apply its effect."""
    c = s[F_ONEOFF]
    t = s[F_ONEOFF_TARGET]
    p = s[F_ONEOFF_PLAYER]
    o = other(s, p)
    rk = c >> 2
    if rk == RANK_THREE:
        if three_pool(s, r) != 0:  # the 3 waits for its pick; the chain is over
            s[F_TWOS] = 0
            s[F_NTWOS] = 0
            s[F_CHAIN_TOP] = -1
            s[F_PHASE] = PH_THREE
            s[F_ACTOR] = p
            return
        s[F_SCRAP] |= bit(c)
        _clear_oneoff(s)
        _finish_action(s, r)
        return
    _clear_oneoff(s)
    if rk == RANK_SEVEN and s[F_DECK_N] > 0:
        # the 7 stays out of the scrap until a revealed card is played or scrapped
        for _ in range(min(r[R_SEVEN_REVEAL], s[F_DECK_N])):
            rc, _known = _deck_pop_top(s)
            s[F_REVEALED] |= bit(rc)
        s[F_SEVEN] = c
        s[F_PHASE] = PH_SEVEN
        s[F_ACTOR] = p
        return
    s[F_SCRAP] |= bit(c)
    if rk == RANK_ACE:
        for q in range(s[F_NPLAYERS]):
            x = s[F_POINTS + q]
            while x:
                pc = lowest(x)
                x &= x - 1
                _lift_point_card(s, pc)
                s[F_SCRAP] |= bit(pc)
    elif rk == RANK_TWO or rk == RANK_EIGHT:
        _scrap_target(s, r, t)
    elif rk == RANK_FOUR:
        k = min(2, popcount(s[F_HAND + o]))
        if k > 0:
            s[F_DISCARDS] = k
            if r[R_FOUR_RANDOM]:
                s[F_PHASE] = PH_FOUR_RANDOM
                s[F_ACTOR] = ACTOR_CHANCE
            else:
                s[F_PHASE] = PH_FOUR
                s[F_ACTOR] = o
            return
    elif rk == RANK_FIVE:
        if r[R_FIVE_DISCARD] and s[F_HAND + p] != 0:
            s[F_PHASE] = PH_FIVE
            s[F_ACTOR] = p
            s[F_DISCARDS] = 1
            return
        _draw(s, r, p, r[R_FIVE_DRAW])
    elif rk == RANK_SIX:
        for q in range(s[F_NPLAYERS]):
            s[F_SCRAP] |= s[F_FACE + q]
            s[F_FACE + q] = 0
        for j in range(4):
            if s[F_JACK_ON + j] >= 0:
                _clear_jack(s, j)
                s[F_SCRAP] |= bit(40 + j)
        on_table = np.int64(0)
        for q in range(s[F_NPLAYERS]):
            on_table |= s[F_POINTS + q]
        for q in range(s[F_NPLAYERS]):
            s[F_POINTS + q] = s[F_OWNED + q] & on_table
    elif rk == RANK_NINE:
        _nine(s, r, t)
    _finish_action(s, r)


@njit(cache=True)
def _do_scuttle(s, c, t):
    _lift_point_card(s, t)
    s[F_SCRAP] |= bit(t) | bit(c)


@njit(cache=True)
def apply_move(s, r, m):
    """Apply a move that ``generate_moves`` produced. Unchecked, like python-chess's push."""
    a = s[F_ACTOR]
    s[F_ACTIONS] += 1
    if a >= 0:
        s[F_FROZEN + a] = -1  # a frozen card thaws once its holder has acted
    mt = m & MT_MASK
    ph = s[F_PHASE]
    if ph == PH_MAIN or ph == PH_SEVEN:
        if mt == MT_PASS:
            s[F_PASSES] += 1
            if s[F_PASSES] >= r[R_PASS_LIMIT]:
                s[F_STATUS] = ST_STALEMATE_PASSES
                s[F_PHASE] = PH_OVER
            else:
                _finish_action(s, r)  # a pass is an action: the hand limit still applies
        elif mt == MT_DRAW:
            s[F_PASSES] = 0
            _draw(s, r, a, 1)
            _finish_action(s, r)
        elif mt == MT_SEVEN_SCRAP:
            c = move_card(m)
            s[F_REVEALED] &= ~bit(c)
            s[F_SCRAP] |= bit(c)
            _return_revealed(s)
            _finish_action(s, r)
        else:
            s[F_PASSES] = 0
            c = move_card(m)
            t = move_target(m)
            if m & FROM_SEVEN:
                s[F_REVEALED] &= ~bit(c)
                _return_revealed(s)
            else:
                _leave_hand(s, a, c)
            if mt == MT_POINTS:
                s[F_POINTS + a] |= bit(c)
                s[F_OWNED + a] |= bit(c)
                _finish_action(s, r)
            elif mt == MT_SCUTTLE:
                if r[R_TEN_COUNTERS_SCUTTLE]:
                    s[F_SCUTTLE_CARD] = c
                    s[F_SCUTTLE_TARGET] = t
                    s[F_PHASE] = PH_SCUTTLE_COUNTER
                    s[F_ACTOR] = controller_of_point(s, t)
                else:
                    _do_scuttle(s, c, t)
                    _finish_action(s, r)
            elif mt == MT_ROYAL:
                s[F_FACE + a] |= bit(c)
                _finish_action(s, r)
            elif mt == MT_JACK:
                j = c - 40
                s[F_JACK_LEVEL + j] = jack_height(s, t)
                s[F_JACK_ON + j] = t
                s[F_JACK_BY + j] = a
                _set_control(s, r, t)
                _finish_action(s, r)
            elif mt == MT_ONE_OFF:
                s[F_ONEOFF] = c
                s[F_ONEOFF_TARGET] = -1 if t == NO_CARD else t
                s[F_ONEOFF_PLAYER] = a
                s[F_TWOS] = 0
                s[F_NTWOS] = 0
                s[F_CHAIN_TOP] = a
                s[F_PHASE] = PH_COUNTER
                s[F_ACTOR] = other(s, a)
    elif ph == PH_COUNTER:
        if mt == MT_COUNTER:
            c = move_card(m)
            _leave_hand(s, a, c)
            s[F_TWOS] |= bit(c)
            s[F_NTWOS] += 1
            s[F_CHAIN_TOP] = a
            s[F_ACTOR] = other(s, a)
        else:
            s[F_SCRAP] |= s[F_TWOS]
            if s[F_NTWOS] % 2 == 1:
                s[F_SCRAP] |= bit(s[F_ONEOFF])
                _clear_oneoff(s)
                _finish_action(s, r)
            else:
                s[F_TWOS] = 0
                _resolve_oneoff(s, r)
    elif ph == PH_THREE:
        c = move_card(m)
        s[F_SCRAP] &= ~bit(c)
        s[F_HAND + a] |= bit(c)
        s[F_PUBLIC + a] |= bit(c)
        s[F_SCRAP] |= bit(s[F_ONEOFF])
        _clear_oneoff(s)
        _finish_action(s, r)
    elif ph == PH_FOUR or ph == PH_FOUR_RANDOM:
        victim = other(s, s[F_TURN])
        mask = move_mask(m)
        s[F_HAND + victim] &= ~mask
        s[F_PUBLIC + victim] &= ~mask
        s[F_SCRAP] |= mask
        s[F_DISCARDS] = 0
        _finish_action(s, r)
    elif ph == PH_FIVE:
        mask = move_mask(m)
        s[F_HAND + a] &= ~mask
        s[F_PUBLIC + a] &= ~mask
        s[F_SCRAP] |= mask
        s[F_DISCARDS] = 0
        _draw(s, r, a, r[R_FIVE_DRAW])
        _finish_action(s, r)
    elif ph == PH_HAND_LIMIT:
        mask = move_mask(m)
        s[F_HAND + a] &= ~mask
        s[F_PUBLIC + a] &= ~mask
        s[F_SCRAP] |= mask
        s[F_DISCARDS] = 0
        s[F_PASSES] = 0  # a discard is an action: it breaks a run of passes
        _pass_turn(s)
    elif ph == PH_SCUTTLE_COUNTER:
        c = s[F_SCUTTLE_CARD]
        t = s[F_SCUTTLE_TARGET]
        s[F_SCUTTLE_CARD] = -1
        s[F_SCUTTLE_TARGET] = -1
        if mt == MT_TEN_COUNTER:
            ten = move_card(m)
            _leave_hand(s, a, ten)
            s[F_SCRAP] |= bit(ten) | bit(c)
        else:
            _do_scuttle(s, c, t)
        s[F_ACTOR] = s[F_TURN]
        _finish_action(s, r)
    if s[F_STATUS] == ST_ONGOING and s[F_ACTIONS] >= r[R_ACTION_LIMIT]:
        s[F_STATUS] = ST_STALEMATE_ACTIONS
        s[F_PHASE] = PH_OVER


# ================================================================ deal and playout
def _blank_state() -> np.ndarray:
    """An empty table: no cards anywhere, every "none" field at -1 (for two seats)."""
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    s[F_NPLAYERS] = 2
    for f in (F_WINNER, F_ONEOFF, F_ONEOFF_TARGET, F_ONEOFF_PLAYER, F_CHAIN_TOP, F_SCUTTLE_CARD, F_SCUTTLE_TARGET, F_SEVEN):
        s[f] = -1
    s[F_JACK_ON : F_JACK_ON + 4] = -1
    s[F_JACK_BY : F_JACK_BY + 4] = -1
    s[F_JACK_LEVEL : F_JACK_LEVEL + 4] = -1
    s[F_FROZEN : F_FROZEN + MAX_PLAYERS] = -1
    s[F_DECK : F_DECK + DECK_SLOTS] = -1
    return s


BLANK_STATE = _blank_state()  # Python copies it; kernels see it as a compile-time constant


@njit(cache=True)
def clear_state(s, nplayers):
    s[:] = BLANK_STATE
    s[F_NPLAYERS] = nplayers


@njit(cache=True)
def deal(s, r, rng):
    """Shuffle a fresh deck with ``rng`` and deal: seat 0 moves first."""
    n = r[R_NPLAYERS]
    clear_state(s, n)
    for i in range(N_CARDS):
        s[F_DECK + i] = i
    for i in range(N_CARDS - 1, 0, -1):  # Fisher-Yates
        j = rng_below(rng, i + 1)
        tmp = s[F_DECK + i]
        s[F_DECK + i] = s[F_DECK + j]
        s[F_DECK + j] = tmp
    s[F_DECK_N] = N_CARDS
    for p in range(n):
        k = r[R_DEAL_FIRST] if p == 0 else r[R_DEAL_OTHER]
        for _ in range(k):
            c, _known = _deck_pop_top(s)
            s[F_HAND + p] |= bit(c)
    s[F_PHASE] = PH_MAIN
    s[F_TURN] = 0
    s[F_ACTOR] = 0


@njit(cache=True)
def playout(s, r, rng, buf):
    """Play uniformly random moves until the game ends; return the number of plies."""
    plies = 0
    while s[F_PHASE] != PH_OVER:
        n = generate_moves(s, r, buf)
        apply_move(s, r, buf[rng_below(rng, n)])
        plies += 1
    return plies


@njit(cache=True)
def game_seed(seed, index):
    """The seed of game ``index`` of a run seeded ``seed``: one splitmix64 mix of both, so
    any game of a run can be replayed on its own."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed) ^ (np.uint64(index) * np.uint64(0xD1B54A32D192ED03))
    return rng_next(rng)


@njit(cache=True)
def random_games(r, seed, first, games, s, buf, results):
    """Deal and play games ``first .. first + games - 1`` of the run seeded ``seed``; fill
    results[g] = (plies, status, winner). Returns the total number of plies."""
    rng = np.empty(1, dtype=np.uint64)
    total = 0
    for g in range(games):
        rng[0] = game_seed(seed, first + g)
        deal(s, r, rng)
        plies = playout(s, r, rng, buf)
        results[g, 0] = plies
        results[g, 1] = s[F_STATUS]
        results[g, 2] = s[F_WINNER]
        total += plies
    return total


# ================================================================ perft and checks
@njit(cache=True)
def perft(states, bufs, r, depth, level):
    """Number of move sequences of length ``depth - level`` from ``states[level]``."""
    s = states[level]
    if level == depth:
        return 1
    if s[F_PHASE] == PH_OVER:
        return 0
    n = generate_moves(s, r, bufs[level])
    if level + 1 == depth:
        return n
    total = 0
    child = states[level + 1]
    for i in range(n):
        child[:] = s
        apply_move(child, r, bufs[level][i])
        total += perft(states, bufs, r, depth, level + 1)
    return total


@njit(cache=True)
def zone_union_count(s):
    """(mask of every card in some zone, number of zone memberships). A sound state has
    every card exactly once: the mask is ALL_CARDS and the count is 52."""
    u = np.int64(0)
    cnt = 0
    n = s[F_NPLAYERS]
    for q in range(n):
        for f in (F_HAND, F_POINTS, F_FACE):
            u |= s[f + q]
            cnt += popcount(s[f + q])
    u |= s[F_SCRAP]
    cnt += popcount(s[F_SCRAP])
    u |= s[F_TWOS] | s[F_REVEALED]
    cnt += popcount(s[F_TWOS]) + popcount(s[F_REVEALED])
    for j in range(4):
        if s[F_JACK_ON + j] >= 0:
            u |= bit(40 + j)
            cnt += 1
    for sl in (F_ONEOFF, F_SCUTTLE_CARD, F_SEVEN):
        if s[sl] >= 0:
            u |= bit(s[sl])
            cnt += 1
    for i in range(s[F_DECK_N]):
        u |= bit(s[F_DECK + i])
        cnt += 1
    return u, cnt


@njit(cache=True)
def check_invariants(s):
    """0 when the state is sound, otherwise a positive error code (see ``POSITION_ERRORS``)."""
    u, cnt = zone_union_count(s)
    if u != ALL_CARDS or cnt != N_CARDS:
        return 1
    n = s[F_NPLAYERS]
    pts = np.int64(0)
    own = np.int64(0)
    for q in range(n):
        if s[F_POINTS + q] & ~POINT_RANKS or s[F_FACE + q] & ~(EIGHTS | QUEENS | KINGS):
            return 2
        if s[F_PUBLIC + q] & ~s[F_HAND + q]:
            return 3
        pts |= s[F_POINTS + q]
        own |= s[F_OWNED + q]
    if pts != own:
        return 4
    for j in range(4):
        on = s[F_JACK_ON + j]
        if on >= 0 and not (pts >> on) & 1:
            return 5
    if s[F_DECK_KNOWN] > s[F_DECK_N] or s[F_DECK_KNOWN] < 0:
        return 6
    return 0


@njit(cache=True)
def checked_random_games(r, seed, first, games, s, buf, results):
    """Random games (numbered as in ``random_games``) that check the state after every
    move. results[g] = (plies, status, winner, first error code, error ply, a hash of the
    game). Returns the number of games with an error."""
    rng = np.empty(1, dtype=np.uint64)
    bad = 0
    for g in range(games):
        rng[0] = game_seed(seed, first + g)
        deal(s, r, rng)
        h = np.uint64(1469598103934665603)
        plies = 0
        err = check_invariants(s)
        err_ply = -1 if err == 0 else 0
        while s[F_PHASE] != PH_OVER and err == 0:
            n = generate_moves(s, r, buf)
            if n <= 0 or moves_overflowed(buf, n):
                err = 7
                err_ply = plies
                break
            m = buf[rng_below(rng, n)]
            h = (h ^ np.uint64(m)) * np.uint64(1099511628211)
            apply_move(s, r, m)
            plies += 1
            err = check_invariants(s)
            if err:
                err_ply = plies
            if plies > 2 * r[R_ACTION_LIMIT]:
                err = 8
                err_ply = plies
        results[g, 0] = plies
        results[g, 1] = s[F_STATUS]
        results[g, 2] = s[F_WINNER]
        results[g, 3] = err
        results[g, 4] = err_ply
        results[g, 5] = np.int64(h >> np.uint64(1))
        if err:
            bad += 1
    return bad


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
    if style == HL_BLOCK:
        if gain and r[R_THREE_TAKES_THREE]:
            return N_CARDS
        return r[R_HAND_LIMIT] + 8 * gain
    if q == s[F_TURN] and s[F_PHASE] != PH_MAIN:
        return r[R_HAND_LIMIT] + gain + 1
    return r[R_HAND_LIMIT] + gain


@njit(cache=True)
def _was_offered(s, r, p, card, move):
    """Whether a pending ``move`` (a main action of seat ``p`` with ``card``) is one the
    generator offers ``p`` on this table with ``card`` back in hand. A pending one-off's
    counter 2s go back to the hand of the seat it targets' opponent too, so a 4 sees the
    hand it was played against."""
    t = s.copy()
    t[F_HAND + p] |= bit(card)
    t[F_HAND + other(t, p)] |= t[F_TWOS]
    out = np.empty(MAX_MOVES, np.int64)
    n = _gen_plays(t, r, out, 0, p, bit(card), 0, t[F_DECK_N] + popcount(t[F_REVEALED]))
    for i in range(min(n, MAX_MOVES - 1)):
        if out[i] == move:
            return True
    return False


@njit(cache=True)
def position_error(s, r):
    """Why a loaded position cannot happen under rules ``r``, as ``(code, detail)``;
    ``(0, 0)`` when it can. Codes are ``POSITION_ERRORS`` (1-8 are the invariants of
    ``check_invariants``); ``detail`` is the seat or card concerned."""
    err = check_invariants(s)
    if err:
        return err, 0
    n = s[F_NPLAYERS]
    for q in range(n):
        if points_total(s, q) >= goal(s, r, q):
            return 9, q
        if popcount(s[F_HAND + q]) > hand_cap(s, r, q):
            return 10, q
    if s[F_ACTIONS] >= r[R_ACTION_LIMIT]:
        return 11, 0
    if s[F_PASSES] >= r[R_PASS_LIMIT]:
        return 12, 0
    if s[F_PASSES] > 0 and s[F_DECK_N] > 0:
        return 13, 0
    for q in range(n):
        if s[F_FROZEN + q] >= 0:
            if r[R_NINE_MODE] != NINE_FROZEN:
                return 14, s[F_FROZEN + q]
            if not (s[F_HAND + q] >> s[F_FROZEN + q]) & 1:
                return 15, s[F_FROZEN + q]
    c = s[F_ONEOFF]
    if c >= 0:
        t = s[F_ONEOFF_TARGET]
        m = make_move(MT_ONE_OFF, c, NO_CARD if t < 0 else t)
        if not _was_offered(s, r, s[F_ONEOFF_PLAYER], c, m):
            return 16, c
    c = s[F_SCUTTLE_CARD]
    if c >= 0:
        if not _was_offered(s, r, s[F_TURN], c, make_move(MT_SCUTTLE, c, s[F_SCUTTLE_TARGET])):
            return 17, c
    rev = popcount(s[F_REVEALED])
    if rev > 0 and rev != min(r[R_SEVEN_REVEAL], rev + s[F_DECK_N]):
        return 18, rev
    if (s[F_SEVEN] >= 0) != (s[F_PHASE] == PH_SEVEN) or (s[F_SEVEN] >= 0 and s[F_SEVEN] >> 2 != RANK_SEVEN):
        return 19, s[F_SEVEN]
    return 0, 0


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
                    by = s[F_JACK_BY + j]
            if by == ctrl and not r[R_JACK_OWN]:
                ok = False
                break
            if r[R_JACK_SWITCH]:
                ctrl = q if (level + 1) % 2 == 0 else other(s, q)
            else:
                ctrl = by
        if ok and ctrl == controller:
            return q
    if not r[R_JACK_SWITCH] and h > 0 and s[F_JACK_BY + top_jack(s, card)] != controller:
        return -1
    return -2


@njit(cache=True)
def setup_pending(s, r):
    """Derive what a loaded position implies about its pending decision: the deciding seat,
    the counter chain's top, how many cards a discard takes. ``s`` holds the zones, the
    phase, the turn and the pending cards. Returns ``(code, seat)``: 0 when the phase and
    the pending fields agree, else a ``SETUP_ERRORS`` code and the seat concerned."""
    ph = s[F_PHASE]
    turn = s[F_TURN]
    opp = other(s, turn)
    has_oneoff = s[F_ONEOFF] >= 0
    ntwos = s[F_NTWOS]
    if ph != PH_COUNTER and ntwos:
        return 30, turn
    if ph != PH_COUNTER and ph != PH_THREE and has_oneoff:
        return 31, turn
    if ph != PH_SEVEN and s[F_REVEALED]:
        return 32, turn
    if ph != PH_SCUTTLE_COUNTER and s[F_SCUTTLE_CARD] >= 0:
        return 33, turn
    if s[F_ONEOFF_TARGET] >= 0 and not has_oneoff:
        return 49, turn
    if ph == PH_OVER:
        return 34, turn
    actor = turn
    if ph == PH_COUNTER:
        if not has_oneoff:
            return 35, turn
        # counters alternate, starting with the opponent of the one-off's player
        actor = opp if ntwos % 2 == 0 else turn
        s[F_CHAIN_TOP] = turn if ntwos % 2 == 0 else opp
    elif ph == PH_THREE:
        if not has_oneoff or s[F_ONEOFF] >> 2 != RANK_THREE:
            return 36, turn
        if three_pool(s, r) == 0:
            return 37, turn
    elif ph == PH_FOUR or ph == PH_FOUR_RANDOM:
        k = min(2, popcount(s[F_HAND + opp]))
        if k == 0:
            return 38, opp
        if ph == PH_FOUR and r[R_FOUR_RANDOM]:
            return 39, turn
        s[F_DISCARDS] = k
        actor = ACTOR_CHANCE if ph == PH_FOUR_RANDOM else opp
    elif ph == PH_FIVE:
        if not r[R_FIVE_DISCARD]:
            return 40, turn
        if s[F_HAND + turn] == 0:
            return 41, turn
        s[F_DISCARDS] = 1
    elif ph == PH_HAND_LIMIT:
        if r[R_HAND_LIMIT_STYLE] != HL_DISCARD:
            return 42, turn
        over = popcount(s[F_HAND + turn]) - r[R_HAND_LIMIT]
        if over <= 0:
            return 43, turn
        s[F_DISCARDS] = over
    elif ph == PH_SEVEN:
        if s[F_SEVEN] < 0:
            return 44, turn
        n = popcount(s[F_REVEALED])
        if n == 0:
            return 45, turn
        if n > r[R_SEVEN_REVEAL]:
            return 46, turn
    elif ph == PH_SCUTTLE_COUNTER:
        if s[F_SCUTTLE_CARD] < 0:
            return 47, turn
        if not r[R_TEN_COUNTERS_SCUTTLE]:
            return 48, turn
        actor = opp
    s[F_ACTOR] = actor
    return 0, 0


SETUP_ERRORS = {  # message templates: {phase} the phase's name, {seat} p0/p1, {limit} a rules number
    30: "twos: counter 2s are only pending while countering, not in phase '{phase}'",
    31: "oneOff: a pending one-off needs phase 'countering' (or 'resolvingThree' for a 3, 'resolvingSeven' for a 7), "
        "not '{phase}'",
    32: "revealed: a 7's revealed cards need phase 'resolvingSeven', not '{phase}'",
    33: "scuttle: a pending scuttle needs phase 'counteringScuttle', not '{phase}'",
    34: "phase: the game is already over; there is nothing to analyse",
    35: "oneOff: phase 'countering' needs the pending one-off card",
    36: "oneOff: phase 'resolvingThree' needs the 3 being resolved as oneOff",
    37: "scrap: a 3 is resolving but the scrap holds nothing it may take",
    38: "{seat}Hand: a 4 is resolving but {seat} has no card to discard",
    39: "phase: with four=random the 4 resolves in phase 'resolvingFourRandom'",
    40: "phase: in this ruleset a 5 does not discard, so 'resolvingFive' cannot happen",
    41: "{seat}Hand: a 5 is resolving but {seat} has no card to discard",
    42: "phase: this ruleset has no discard-style hand limit",
    43: "{seat}Hand: phase 'discardingToHandLimit' but {seat} holds no more than {limit} cards",
    44: "oneOff: phase 'resolvingSeven' needs the 7 being resolved (it reaches the scrap only once a revealed card "
        "is played or scrapped)",
    45: "revealed: phase 'resolvingSeven' needs the revealed cards",
    46: "revealed: a 7 reveals at most {limit} cards in this ruleset",
    47: "scuttle: phase 'counteringScuttle' needs the pending scuttle",
    48: "phase: 'counteringScuttle' needs the ten-counters-scuttle option",
    49: "oneOffTarget: a target but no pending one-off in phase '{phase}' (a 7 resolving takes none)",
}
SETUP_LIMITS = {43: R_HAND_LIMIT, 46: R_SEVEN_REVEAL}  # which rules slot {limit} reads


POSITION_ERRORS = {
    1: "the 52 cards are not each in exactly one zone",
    2: "a card is in a zone its rank cannot be in",
    3: "a card marked public is not in that hand",
    4: "point cards on the table and their owners disagree",
    5: "a jack sits on a card that is not on the table",
    6: "more known deck cards than deck cards",
    7: "a decision with no legal move (or too many)",
    8: "the game did not end",
    9: "a seat already meets its goal (the game would be over)",
    10: "a hand holds more cards than this ruleset lets a hand reach",
    11: "the action count has reached the action limit (the game would be over)",
    12: "the passes already end the game in a stalemate",
    13: "passes are counted but the deck is not empty (a seat passes only once it is)",
    14: "a frozen card, but a 9 does not freeze cards in this ruleset",
    15: "the frozen card is not in that seat's hand",
    16: "the pending one-off could not have been played on this table (card or target)",
    17: "the pending scuttle could not have been played (a point card scuttles a lower opponent point card)",
    18: "the 7 revealed fewer cards than it must while the deck still holds more",
    19: "a 7 resolves exactly while its revealed cards wait (phase 'resolvingSeven'), and it must be a 7",
}
