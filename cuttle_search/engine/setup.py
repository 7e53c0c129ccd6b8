"""Setting a state up and checking it: the blank state, the deal, the pending state a
loaded position implies (``setup_pending``), and the invariants a reachable position
keeps (``position_error`` for the loader, ``check_invariants`` for the property tests).

Error codes are numbers (kernels do not raise); ``POSITION_ERRORS`` and ``SETUP_ERRORS``
turn them into the one-line messages the loader shows.
"""

import numpy as np

from .jit import njit
from .apply import deck_pop_top
from .layout import (
    ACTOR_CHANCE,
    ALL_CARDS,
    bit,
    copy_into,
    DECK_SLOTS,
    EIGHTS,
    F_ACTIONS,
    F_ACTOR,
    F_CHAIN_TOP,
    F_DEALER,
    F_DECK,
    F_DECK_KNOWN,
    F_DECK_N,
    F_DECLINES,
    F_DISCARDS,
    F_FACE,
    F_FROZEN,
    F_HAND,
    F_JACK_BY,
    F_JACK_LEVEL,
    F_JACK_ON,
    F_JACK_TO,
    F_JOKER_BY,
    F_JOKER_FROM,
    F_JOKER_LEVEL,
    F_JOKER_ON,
    F_JOKER_TO,
    F_NPLAYERS,
    F_NTWOS,
    F_ONEOFF,
    F_ONEOFF_PLAYER,
    F_ONEOFF_TARGET,
    F_OWNED,
    F_PASSES,
    F_PHASE,
    F_POINTS,
    F_PUBLIC,
    F_REMOVED,
    F_RESPONSE,
    F_REVEALED,
    F_SCRAP,
    F_SCUTTLE_CARD,
    F_SCUTTLE_TARGET,
    F_SEVEN,
    F_SHUFFLE_SEED,
    F_SPENT,
    F_TOP_SEEN_BY,
    F_TURN,
    F_TURN_COUNT,
    F_TWO_BY,
    F_TWOS,
    F_VICTIM,
    F_WINNER,
    HL_BLOCK,
    HL_DISCARD,
    JOKER_1,
    JOKERS,
    KINGS,
    lowest,
    make_move,
    MAX_MOVES,
    MT_ONE_OFF,
    MT_SCUTTLE,
    N_CARDS,
    NINE_DECK_TOP,
    NINE_FROZEN,
    NO_CARD,
    PH_COUNTER,
    PH_FIVE,
    PH_FOUR,
    PH_FOUR_RANDOM,
    PH_HAND_LIMIT,
    PH_MAIN,
    PH_OVER,
    PH_RESPONSE,
    PH_SCUTTLE_COUNTER,
    PH_SEVEN,
    PH_THREE,
    POINT_RANKS,
    popcount,
    QUEENS,
    R_ACTION_LIMIT,
    R_DEAL_DEALER,
    R_DEAL_FIRST,
    R_DEAL_OTHER,
    R_FIVE_DISCARD,
    R_FIVE_DRAW,
    R_FREEZE_UNTIL_TURN_ENDS,
    R_FOUR_RANDOM,
    R_GIFT,
    R_HAND_LIMIT,
    R_HAND_LIMIT_STYLE,
    R_JACK_SWITCH,
    R_JOKERS,
    R_NINE_MODE,
    R_NINE_POINTS,
    R_NPLAYERS,
    R_PASS_LIMIT,
    R_REMOVE_ACE_SIX,
    R_RESHUFFLE,
    R_RESPONSE_NINE,
    R_SEVEN_PRIVATE,
    R_SEVEN_REVEAL,
    R_TARGET_ANY_SIDE,
    R_TEN_COUNTERS_SCUTTLE,
    RANK_ACE,
    RANK_NINE,
    RANK_SEVEN,
    RANK_SIX,
    RANK_THREE,
    STATE_SIZE,
    TWOS,
)
from .movegen import generate_plays
from .rng import rng_below, rng_next
from .seats import opponent, same_side
from .table import controller_of_point, goal, hand_cap, nine_targets, points_total, reshuffle_brings, three_pool
from .table import ace_and_six  # (remove-ace-six: what a shuffle takes out)


def _blank_state() -> np.ndarray:
    """An empty table: no cards anywhere, every "none" field at -1 (for two seats)."""
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    s[F_NPLAYERS] = 2
    for f in (F_WINNER, F_ONEOFF, F_ONEOFF_TARGET, F_ONEOFF_PLAYER, F_CHAIN_TOP, F_SCUTTLE_CARD, F_SCUTTLE_TARGET, F_SEVEN):
        s[f] = -1
    s[F_JACK_ON : F_JACK_ON + 4] = -1
    s[F_JACK_BY : F_JACK_BY + 4] = -1
    s[F_JACK_TO : F_JACK_TO + 4] = -1
    s[F_TWO_BY : F_TWO_BY + 4] = -1
    s[F_JACK_LEVEL : F_JACK_LEVEL + 4] = -1
    s[F_JOKER_ON : F_JOKER_ON + 2] = -1
    s[F_JOKER_BY : F_JOKER_BY + 2] = -1
    s[F_JOKER_TO : F_JOKER_TO + 2] = -1
    s[F_JOKER_LEVEL : F_JOKER_LEVEL + 2] = -1
    s[F_JOKER_FROM : F_JOKER_FROM + 2] = -1
    s[F_DEALER] = 1
    s[F_VICTIM] = -1
    s[F_RESPONSE] = -1
    s[F_TOP_SEEN_BY] = -1
    s[F_DECK : F_DECK + DECK_SLOTS] = -1
    return s


BLANK_STATE = _blank_state()  # Python copies it; kernels see it as a compile-time constant


@njit(cache=True)
def clear_state(s, nplayers):
    copy_into(s, BLANK_STATE)
    s[F_NPLAYERS] = nplayers
    s[F_DEALER] = nplayers - 1


@njit(cache=True)
def deal(s, r, rng):
    """Shuffle a fresh deck with ``rng`` and deal with the last seat dealing, so seat 0
    moves first (``deal_by``)."""
    deal_by(s, r, rng, r[R_NPLAYERS] - 1)


@njit(cache=True)
def deal_by(s, r, rng, dealer):
    """Shuffle a fresh deck with ``rng`` and deal: the seat after ``dealer`` moves first.
    Each seat in turn order from it takes its whole hand from the top (``R_DEAL_FIRST``
    cards for the first, ``R_DEAL_DEALER`` for the dealer, ``R_DEAL_OTHER`` for the seats
    between); dealing one card at a time round the table instead would give the same
    distribution of hands. Games that reshuffle their scrap get their own chance stream
    (``F_SHUFFLE_SEED``) from ``rng``; ``R_REMOVE_ACE_SIX`` takes an Ace and a Six out."""
    n = r[R_NPLAYERS]
    clear_state(s, n)
    cards = N_CARDS + 2 if r[R_JOKERS] else N_CARDS  # ids 0 .. cards-1 (deck_cards)
    for i in range(cards):
        s[F_DECK + i] = i
    for i in range(cards - 1, 0, -1):  # Fisher-Yates
        j = rng_below(rng, i + 1)
        tmp = s[F_DECK + i]
        s[F_DECK + i] = s[F_DECK + j]
        s[F_DECK + j] = tmp
    s[F_DECK_N] = cards
    if r[R_REMOVE_ACE_SIX]:  # after the shuffle, the first Ace and Six from the top leave
        for rank in (RANK_ACE, RANK_SIX):
            for i in range(s[F_DECK_N] - 1, -1, -1):
                c = s[F_DECK + i]
                if c >> 2 == rank:
                    s[F_REMOVED] |= bit(c)
                    for j in range(i, s[F_DECK_N] - 1):
                        s[F_DECK + j] = s[F_DECK + j + 1]
                    s[F_DECK_N] -= 1
                    s[F_DECK + s[F_DECK_N]] = -1
                    break
    if r[R_RESHUFFLE]:
        s[F_SHUFFLE_SEED] = np.int64(rng_next(rng))
    first = (dealer + 1) % n
    for k in range(n):
        p = (first + k) % n
        take = deal_count(r, k)
        for _ in range(take):
            c, _known = deck_pop_top(s)
            s[F_HAND + p] |= bit(c)
    s[F_DEALER] = dealer
    s[F_PHASE] = PH_MAIN
    s[F_TURN] = first
    s[F_ACTOR] = first


@njit(cache=True)
def deal_count(r, k):
    """The opening hand of the seat ``k`` places after the dealer's (the dealer is the last)."""
    if k == 0:
        return r[R_DEAL_FIRST]
    if k == r[R_NPLAYERS] - 1:
        return r[R_DEAL_DEALER]
    return r[R_DEAL_OTHER]


@njit(cache=True)
def deal_size(r):
    """How many cards the deal hands out (every seat's opening hand)."""
    total = 0
    for k in range(r[R_NPLAYERS]):
        total += deal_count(r, k)
    return total


@njit(cache=True)
def dealt_to(r, k):
    """The seat that receives the ``k``-th card of ``deal`` (0-based; seat 0 first): the
    first seat's whole hand, then each other seat's in turn."""
    for q in range(r[R_NPLAYERS]):
        k -= deal_count(r, q)
        if k < 0:
            return q
    return r[R_NPLAYERS] - 1


@njit(cache=True, inline="always")
def zone_union_count(s):
    """(mask of every card in some zone, number of zone memberships). A sound state has
    every card of the deck exactly once (``deck_cards``)."""
    u = np.int64(0)
    cnt = 0
    n = s[F_NPLAYERS]
    for q in range(n):
        for f in (F_HAND, F_POINTS, F_FACE, F_SPENT):
            u |= s[f + q]
            cnt += popcount(s[f + q])
    u |= s[F_SCRAP] | s[F_REMOVED]
    cnt += popcount(s[F_SCRAP]) + popcount(s[F_REMOVED])
    u |= s[F_TWOS] | s[F_REVEALED]
    cnt += popcount(s[F_TWOS]) + popcount(s[F_REVEALED])
    for j in range(4):
        if s[F_JACK_ON + j] >= 0:
            u |= bit(40 + j)
            cnt += 1
    for k in range(2):
        if s[F_JOKER_ON + k] >= 0:
            u |= bit(JOKER_1 + k)
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
def deck_cards(r):
    """Mask of every card the game is played with (the 52, and the Jokers with ``R_JOKERS``)."""
    if r[R_JOKERS]:
        return np.int64(ALL_CARDS | JOKERS)
    return np.int64(ALL_CARDS)


@njit(cache=True)
def opening_hand(s, r, q):
    """How many cards the deal gives seat ``q`` (the seat after ``F_DEALER`` is dealt first)."""
    n = s[F_NPLAYERS]
    return deal_count(r, (q - s[F_DEALER] - 1 + n) % n)


@njit(cache=True)
def dealt_deck(r):
    """The deck the deal leaves: every card of the game but the opening hands and, with
    ``R_REMOVE_ACE_SIX``, the Ace and the Six the deal's shuffle takes out."""
    return popcount(deck_cards(r)) - deal_size(r) - (2 if r[R_REMOVE_ACE_SIX] else 0)


@njit(cache=True, inline="always")
def largest_deck(s, r):
    """The most cards the deck (with a 7's revealed cards, which came off its top) can hold
    after ``F_ACTIONS`` actions. The deal leaves ``dealt_deck`` and the deck only shrinks,
    but for two moves: a 9 that sends its target to the deck top (``NINE_DECK_TOP``) adds
    one card, in one action; a reshuffle (``R_RESHUFFLE``) refills it from the scrap, once
    draws have emptied it (an action takes at most ``R_FIVE_DRAW`` or ``R_SEVEN_REVEAL``
    cards off the deck, or one)."""
    a = s[F_ACTIONS]
    top = dealt_deck(r)
    if r[R_RESHUFFLE] and a * max(1, r[R_FIVE_DRAW], r[R_SEVEN_REVEAL]) > top:
        return popcount(deck_cards(r))
    if r[R_NINE_MODE] == NINE_DECK_TOP:
        top += a
    return top


@njit(cache=True)
def fewest_actions(s, r):
    """The fewest actions (``F_ACTIONS``) that reach this position: one for every completed
    turn, one more once the turn's player has acted (any phase but ``main``), one for every
    counter 2 of the pending chain, one for every pass of the run, and one at least for
    anything but the deal itself (``deal_error``)."""
    m = s[F_TURN_COUNT] + s[F_NTWOS]
    if s[F_PHASE] != PH_MAIN:
        m += 1
    m = max(m, s[F_PASSES])
    if m == 0 and deal_error(s, r)[0] != 0:
        m = 1
    return m


@njit(cache=True)
def deal_error(s, r):
    """Whether the state is a deal, before any action, as ``(code, seat)``: every card in a
    hand, the deck or (``R_REMOVE_ACE_SIX``: the deal's one Ace and one Six) out of the
    game, nothing known, and each hand the size the deal gives its seat (``opening_hand``).
    ``(0, 0)`` for a deal."""
    n = s[F_NPLAYERS]
    dealt = s[F_REMOVED]
    for q in range(n):
        dealt |= s[F_HAND + q]
    for i in range(s[F_DECK_N]):
        dealt |= bit(s[F_DECK + i])
    known = s[F_DECK_KNOWN] != 0 or s[F_TOP_SEEN_BY] >= 0
    for q in range(n):
        known = known or s[F_PUBLIC + q] != 0
    removed = popcount(s[F_REMOVED])
    if dealt != deck_cards(r) or known or removed != (2 if r[R_REMOVE_ACE_SIX] else 0):
        return 71, 0
    for q in range(n):
        if popcount(s[F_HAND + q]) != opening_hand(s, r, q):
            return 72, q
    return 0, 0


@njit(cache=True)
def check_invariants(s, r):
    """0 when the state is sound, otherwise a positive error code (see ``POSITION_ERRORS``)."""
    u, cnt = zone_union_count(s)
    every = deck_cards(r)
    if u != every or cnt != popcount(every):
        return 1
    n = s[F_NPLAYERS]
    pts = np.int64(0)
    own = np.int64(0)
    for q in range(n):
        if s[F_POINTS + q] & ~POINT_RANKS or s[F_FACE + q] & ~(EIGHTS | QUEENS | KINGS):
            return 2
        if s[F_PUBLIC + q] & ~s[F_HAND + q]:
            return 3
        if s[F_FROZEN + q] & ~s[F_PUBLIC + q]:  # a card a 9 returns is in the hand, seen by all
            return 15
        if s[F_SPENT + q] & ~TWOS:
            return 2
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
    faces = np.int64(0)
    for q in range(n):
        faces |= s[F_FACE + q]
    for k in range(2):
        on = s[F_JOKER_ON + k]
        if on < 0:
            continue
        if on >= 40 and on < 44:
            if s[F_JACK_ON + on - 40] < 0:
                return 20
        elif not (faces >> on) & 1:
            return 20
    if s[F_TOP_SEEN_BY] >= 0 and s[F_DECK_N] == 0:
        return 6
    return 0


def _was_offered(s, r, p, card, move) -> bool:
    """Whether a pending ``move`` (a main action of seat ``p`` with ``card``) is one the
    generator offers ``p`` on this table with ``card`` back in hand. A pending one-off's
    counter 2s go back into every other seat's hand too (who played which is not always
    kept, and more cards in other hands only add moves of p's), so a 4 sees a hand its
    victim emptied by countering. A seat out of range (the loaders never give one) offers
    nothing, rather than reading another field."""
    seats = s[F_NPLAYERS]
    if not 0 <= p < seats:
        return False
    t = s.copy()
    t[F_HAND + p] |= bit(card)
    for q in range(seats):
        if q != p:
            t[F_HAND + q] |= t[F_TWOS]
    out = np.empty(MAX_MOVES, np.int64)
    n = generate_plays(t, r, out, 0, p, bit(card), 0, t[F_DECK_N] + popcount(t[F_REVEALED]))
    return bool(np.any(out[:min(n, MAX_MOVES - 1)] == move))


@njit(cache=True)
def frozen_capacity(s, r, q):
    """How many frozen cards seat ``q`` can hold in this state: one for each 9 that can have
    hit it since its frozen cards last thawed (one 9 a turn: the main action or a 7's card).

    - Thawing when the holder's own turn ends (``R_FREEZE_UNTIL_TURN_ENDS``): the turns since
      q's last one, that is of the seats after q up to the turn's seat (all n - 1 others
      while it is q's turn), no more than the turns played; q's own last turn, where a 9
      may return a card to its own player (its card stays frozen through q's next turn);
      and the current turn's 9 once it has resolved (the turn is at its hand-limit discard).
      At q's own hand-limit discard only that turn's own 9 can have left q a frozen card:
      the cards frozen before it thawed as the discard began.
    - Thawing at the holder's next decision, two seats: the opponent's 9 freezes q's card
      as its turn's action, and q's next decision is its main action (the 9's player is not
      over the hand limit after it: its hand only shrank). So q holds one only at its own
      main decision, and not in the game's first turn.
    A 9 returns a card to its own player only where it may target either side, Jacks switch
    control or a Jack or Joker may be given away (``R_TARGET_ANY_SIDE``, ``R_JACK_SWITCH``,
    ``R_GIFT``); with two seats those are not derived (any number), nor with more seats
    thawing at the next decision, nor once the game is over."""
    n = s[F_NPLAYERS]
    ph = s[F_PHASE]
    t = s[F_TURN]
    own = r[R_TARGET_ANY_SIDE] != 0 or r[R_JACK_SWITCH] != 0 or r[R_GIFT] != 0
    if ph == PH_OVER:
        return 64
    if r[R_FREEZE_UNTIL_TURN_ENDS]:
        if ph == PH_HAND_LIMIT and t == q:
            return 1 if own else 0
        prior = n - 1 if t == q else (t - q - 1 + n) % n
        prior = min(prior, s[F_TURN_COUNT])
        if own and s[F_TURN_COUNT] > prior:
            prior += 1
        if ph == PH_HAND_LIMIT:
            prior += 1
        return prior
    if n != 2 or own:
        return 64
    return 1 if t == q and ph == PH_MAIN and s[F_TURN_COUNT] > 0 else 0


def position_error(s, r) -> tuple[int, int]:
    """Why a loaded position cannot happen under rules ``r``, as ``(code, detail)``;
    ``(0, 0)`` when it can. Codes are ``POSITION_ERRORS`` (1-8 are the invariants of
    ``check_invariants``); ``detail`` is the seat or card concerned. The checks run in
    ``_table_error``'s two parts, and the two that ask the move generator whether a pending
    card was playable (codes 16 and 17) run between them from here: the checks' kernel does
    not carry the generator, which a first run then compiles once instead of twice."""
    code, detail = _table_error(s, r, 0)
    if code:
        return int(code), int(detail)
    c = s[F_ONEOFF]
    if c >= 0:
        t = s[F_ONEOFF_TARGET]
        m = make_move(MT_ONE_OFF, c, NO_CARD if t < 0 else t)
        if not _was_offered(s, r, s[F_ONEOFF_PLAYER], c, m):
            return 16, int(c)
    c = s[F_SCUTTLE_CARD]
    if c >= 0:
        if not _was_offered(s, r, s[F_TURN], c, make_move(MT_SCUTTLE, c, s[F_SCUTTLE_TARGET])):
            return 17, int(c)
    code, detail = _table_error(s, r, 1)
    return int(code), int(detail)


@njit(cache=True)
def _table_error(s, r, part):
    """``position_error``'s checks that need no move generator: ``part`` 0 those before the
    pending one-off's and scuttle's (codes 1-15 and 20-22), 1 those after (18, 19, 70 on)."""
    if part == 0:
        err = check_invariants(s, r)
        if err:
            detail = 0
            for q in range(s[F_NPLAYERS]):
                if err == 15 and s[F_FROZEN + q] & ~s[F_PUBLIC + q]:
                    detail = lowest(s[F_FROZEN + q] & ~s[F_PUBLIC + q])
            return err, detail
        n = s[F_NPLAYERS]
        for q in range(n):
            if points_total(s, q) >= goal(s, r, q) and s[F_RESPONSE] < 0:  # (a royal being answered
                return 9, q  # takes effect, and the win is checked, only once the answers are in)
            if popcount(s[F_HAND + q]) > hand_cap(s, r, q):
                return 10, q
        if s[F_ACTIONS] >= r[R_ACTION_LIMIT]:
            return 11, 0
        if s[F_PASSES] >= r[R_PASS_LIMIT]:
            return 12, 0
        if s[F_PASSES] > 0 and (s[F_DECK_N] > 0 or (r[R_RESHUFFLE] and reshuffle_brings(s, r) != 0)) and r[R_HAND_LIMIT_STYLE] != HL_BLOCK:
            return 13, 0  # (a seat stuck at a blocking hand limit may pass with cards in the deck)
        for q in range(n):
            fz = s[F_FROZEN + q]
            if fz != 0:
                if r[R_NINE_MODE] != NINE_FROZEN:
                    return 14, lowest(fz)
                if not r[R_NINE_POINTS] and fz & POINT_RANKS & ~EIGHTS:
                    return 21, lowest(fz & POINT_RANKS & ~EIGHTS)
                if popcount(fz) > frozen_capacity(s, r, q):
                    return 22, q
        return 0, 0
    rev = popcount(s[F_REVEALED])
    if rev > 0 and rev != min(r[R_SEVEN_REVEAL], rev + s[F_DECK_N]):
        return 18, rev
    if (s[F_SEVEN] >= 0) != (s[F_PHASE] == PH_SEVEN) or (s[F_SEVEN] >= 0 and s[F_SEVEN] >> 2 != RANK_SEVEN):
        return 19, s[F_SEVEN]
    seer = s[F_TOP_SEEN_BY]
    if seer >= 0 and not r[R_SEVEN_PRIVATE]:
        return 74, seer  # only a private 7's returned card is one seat's knowledge
    if seer >= 0 and s[F_DECK_KNOWN] != 0:
        return 75, seer  # (that return made the known top private: F_DECK_KNOWN 0)
    if r[R_REMOVE_ACE_SIX] and popcount(ace_and_six(s[F_REMOVED])) != 2:
        return 76, 0  # the deal's shuffle took one of each
    if s[F_ACTIONS] == 0 and s[F_TURN_COUNT] == 0 and s[F_PHASE] == PH_MAIN:
        err, q = deal_error(s, r)
        if err:
            return err, q
    least = fewest_actions(s, r)
    if s[F_ACTIONS] < least:
        return 70, least
    most = largest_deck(s, r)
    if s[F_DECK_N] + popcount(s[F_REVEALED]) > most:
        return 73, most
    return 0, 0


@njit(cache=True)
def setup_pending(s, r):
    """Derive what a loaded position implies about its pending decision: the deciding seat,
    the counter chain's top, how many cards a discard takes. ``s`` holds the zones, the
    phase, the turn and the pending cards. Returns ``(code, seat)``: 0 when the phase and
    the pending fields agree, else a ``SETUP_ERRORS`` code and the seat concerned."""
    ph = s[F_PHASE]
    turn = s[F_TURN]
    opp = opponent(s, turn)
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
    if s[F_RESPONSE] >= 0 and ph != PH_RESPONSE and not (ph == PH_COUNTER and s[F_ONEOFF_PLAYER] != turn):
        return 53, turn
    if has_oneoff and s[F_ONEOFF_PLAYER] != turn and s[F_RESPONSE] < 0:
        return 54, s[F_ONEOFF_PLAYER]
    if has_oneoff and s[F_ONEOFF_PLAYER] != turn and (s[F_ONEOFF] >> 2 != RANK_NINE or s[F_ONEOFF_TARGET] != s[F_RESPONSE]):
        return 57, s[F_ONEOFF_PLAYER]
    if s[F_SPENT + turn] != 0 and ph != PH_MAIN:
        return 58, turn
    if ph == PH_OVER:
        return 34, turn
    actor = turn
    n = s[F_NPLAYERS]
    if ph == PH_COUNTER:
        if not has_oneoff:
            return 35, turn
        if n == 2:
            # counters alternate, starting with the opponent of the one-off's player
            actor = opp if ntwos % 2 == 0 else turn
            s[F_CHAIN_TOP] = turn if ntwos % 2 == 0 else opp
        else:
            # the position names the chain's top (anchor) and the seat asked; the seats
            # between them in turn order have declined
            anchor = s[F_CHAIN_TOP]
            actor = s[F_ACTOR]
            if ntwos == 0 and anchor != s[F_ONEOFF_PLAYER]:
                return 50, anchor
            if ntwos == 1 and anchor == s[F_ONEOFF_PLAYER]:  # (no seat counters its own card)
                return 60, anchor
            if anchor < 0 or anchor >= n or actor < 0 or actor >= n or actor == anchor:
                return 51, actor
            s[F_DECLINES] = (actor - anchor - 1 + n) % n
    elif ph == PH_THREE:
        if not has_oneoff or s[F_ONEOFF] >> 2 != RANK_THREE:
            return 36, turn
        if three_pool(s, r) == 0:
            return 37, turn
    elif ph == PH_FOUR or ph == PH_FOUR_RANDOM:
        if n != 2:  # the position names the victim
            opp = s[F_VICTIM]
            if opp < 0 or opp >= n or opp == turn:
                return 52, opp
        k = min(2, popcount(s[F_HAND + opp]))
        if k == 0:
            return 38, opp
        if ph == PH_FOUR and r[R_FOUR_RANDOM]:
            return 39, turn
        if ph == PH_FOUR_RANDOM and not r[R_FOUR_RANDOM]:
            return 59, turn
        s[F_DISCARDS] = k
        s[F_VICTIM] = opp
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
    elif ph == PH_RESPONSE:
        actor = s[F_ACTOR]
        card = s[F_RESPONSE]
        if card < 0 or not r[R_RESPONSE_NINE]:
            return 55, turn
        if actor < 0 or actor >= n or same_side(s, r, turn, actor) or not (nine_targets(s, r, actor) >> card) & 1:
            return 56, actor
    elif ph == PH_SCUTTLE_COUNTER:
        if s[F_SCUTTLE_CARD] < 0:
            return 47, turn
        if not r[R_TEN_COUNTERS_SCUTTLE]:
            return 48, turn
        actor = controller_of_point(s, s[F_SCUTTLE_TARGET])  # the scuttled seat may block
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
    59: "phase: 'resolvingFourRandom' needs the four=random option (in this ruleset the 4's victim chooses: "
        "'resolvingFour')",
    40: "phase: in this ruleset a 5 does not discard, so 'resolvingFive' cannot happen",
    41: "{seat}Hand: a 5 is resolving but {seat} has no card to discard",
    42: "phase: this ruleset has no discard-style hand limit",
    43: "{seat}Hand: phase 'discardingToHandLimit' but {seat} holds no more than {limit} cards",
    44: "oneOff: phase 'resolvingSeven' needs the 7 being resolved (it reaches the scrap only once a revealed card "
        "is played or scrapped)",
    45: "revealed: phase 'resolvingSeven' needs the revealed cards",
    46: "revealed: more cards than a 7 reveals in this ruleset (at most {limit})",
    47: "scuttle: phase 'counteringScuttle' needs the pending scuttle",
    48: "phase: 'counteringScuttle' needs the ten-counters-scuttle option",
    49: "oneOffTarget: a target but no pending one-off in phase '{phase}' (a 7 resolving takes none)",
    50: "chainTop: with no counter played yet, the chain's top is the one-off's player ({seat} is not)",
    51: "asked: the seat asked to counter must be a seat other than the chain's top, not {seat}",
    60: "chainTop: with one 2 played, the chain's top is the seat that countered, never the one-off's player ({seat})",
    52: "victim: a 4's victim must be another seat of the game, not {seat}",
    53: "response: a royal waits for an answer only in phase 'answeringRoyal' (or while an answering 9 is "
        "countered), not in '{phase}'",
    54: "oneOffBy: only a 9 answering a royal ('response') is another seat's one-off during {seat}'s turn",
    55: "response: phase 'answeringRoyal' needs the royal card being answered, in a ruleset with answering 9s",
    56: "asked: {seat} cannot answer that royal (an opponent of the turn's player, for whom it is a 9's target)",
    57: "oneOff: another seat's one-off during {seat}'s turn can only be a 9 answering the royal named in 'response'",
    58: "counters: {seat}'s waiting 2s take its whole turn, so its turn cannot be past the main phase",
}


SETUP_LIMITS = {43: R_HAND_LIMIT, 46: R_SEVEN_REVEAL}  # which rules slot {limit} reads
POSITION_ERRORS = {
    1: "the cards are not each in exactly one zone",
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
    13: "passes are counted but the deck is not empty (a seat that can draw does not pass)",
    14: "a frozen card, but a 9 does not freeze cards in this ruleset",
    15: "a frozen card must be in its holder's hand, known to every seat (a card a 9 returned)",
    16: "the pending one-off could not have been played on this table (card or target)",
    17: "the pending scuttle could not have been played (a point card scuttles a lower opponent point card)",
    18: "the 7 revealed fewer cards than it must while the deck still holds more",
    19: "a 7 resolves exactly while its revealed cards wait (phase 'resolvingSeven'), and it must be a 7",
    20: "a Joker sits on a card that is not a royal or a Jack on the table",
    21: "a 9 returns no point card to a hand in this ruleset, so it cannot have frozen one",
    22: "more frozen cards than 9s could have returned since they would have thawed",
    70: "fewer actions than the turns and the pending decisions take (each at least one)",
    71: "no action yet, but cards have left the hands and the deck, or cards are known",
    72: "no action yet, but a hand is not the size the deal gives it",
    73: "more cards in the deck than the deal and the actions so far can leave there",
    74: "no seat knows the deck's top card alone in this ruleset (a 7 shows its cards to every seat)",
    75: "a seat knows the deck's top card alone, so no deck card is known to every seat",
    76: "remove-ace-six takes an Ace and a Six out of the game at the deal's shuffle",
}
