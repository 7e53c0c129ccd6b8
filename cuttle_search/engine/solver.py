"""An exact solver for perfect-information positions: negamax with alpha-beta pruning and a
transposition table, over the engine's own ``generate_moves`` / ``apply_move`` and win check.

Nothing of the rules is written here: a node's moves come from ``generate_moves``, its
children from ``apply_move`` on a copy, and the end of the game (a win, three passes, the
action cap) from the status ``apply_move`` sets. The caller (``cuttle_search.analysis.solve``)
checks that the position has no hidden cards and allocates every buffer.

Values and the two passes
=========================
A value is a float from the point of view of one seat, the node's *seat*: the actor of a
decision, or the turn player at a chance node. Negamax negates a child's value only when
the seat changes: in counter phases the actor is not the turn player, so a 2 answered by a
2 keeps the same seat two levels down. Values come in two scorings, one per pass (``tb``):

- ``tb = 0``, win/draw/loss: a won game is worth ``WIN`` to its winner, ``-WIN`` to the
  loser, ``0`` for a draw (three passes or the action cap). ``solve`` proves every root
  move with this scoring first, by two null-window tests (can it win; if not, can it avoid
  losing): three values prune far better than exact lengths.
- ``tb = 1``, with the tie-break: a game that ends with ``F_ACTIONS == a`` is worth
  ``WIN - a`` to its winner and ``-(WIN - a)`` to the loser, so a sooner win is worth more
  and a later loss less. ``solve`` then finds the plies of each won (lost) root move like a
  mate search: null-window tests "does the winner win by action ``a``?" for an ``a``
  counting down from the action cap. Here a node's value is at most ``WIN - (F_ACTIONS + 1)`` either way (a game ends
  one action later at the soonest: the horizon that bounds each test), and the first
  pass's entries, whose key has no action count, still say who cannot win at all. The
  value of a line depends only on where it ends, not where the search started, so the
  table stores values as they are. ``WIN = 2**44`` keeps the action count exact in a double.

A ``four=random`` 4 is a chance node (``PH_FOUR_RANDOM``, actor ``ACTOR_CHANCE``): its value
is the mean over its equally likely outcomes, each searched with the full window. With
``tb = 0`` that mean is exact: ``WIN`` only when every outcome wins, ``-WIN`` only when
every outcome loses, otherwise ``(P(win) - P(loss)) * WIN`` (``solve`` reports it as an
expected score, and searches such rules with one full window).

Transposition table and the two stalemates
==========================================
The table has ``2**k`` slots indexed by the low bits of a 64-bit Zobrist-style key; each
slot is one row: the full key, both bounds of the value (equal when it is exact), the best
move, the pass it belongs to (a generation: entries of the other pass are ignored, so the
table is never cleared), the action count it was found at, the depth of the search
behind it (the longest line searched below it) and its work (the nodes it took). Slots go
in pairs, a bucket per key: a result replaces the entry of the same position and pass
(and keeps its other bound when the action count is the same too: the two null-window
tests of a draw leave an exact entry); a result takes the even slot when it took at
least as much work (an entry it grows included) as the entry there, which moves to the
odd slot, and else its own slot or the odd one (so a draw's entry, grown by its second
test, does not stay in the slot every new position takes). (With one slot always
replaced, the big searches lost their costly entries to leaves: a draw test of the
hardest benchmark position took 10.1 million nodes, against 6.5 million with the pairs.)
The key mixes every state field a rule reads, each with its
own random constant, and XORs them: the phase, turn, actor, the pending one-off and
counter chain, discards, revealed cards, the pending scuttle, the scrap, the deck (count
and order), the jacks, each seat's hand, points, royals, owned cards and frozen cards, and
the consecutive passes (``F_PASSES``: the three-pass stalemate depends on them). Left out
are the fields no rule reads: the turn counter, which hand cards are public and how many
deck cards are known.

The action count (``F_ACTIONS``, for the 1,000-action cap) is handled per pass:

- With the tie-break (``tb = 1``) the key includes it: the scores depend on the absolute
  count, so an entry is exact only at its own count. Two lines of different lengths never
  share an entry; the usual transpositions (the same moves in another order) have the same
  count, since every move adds exactly one action, and still meet.
- Without it (``tb = 0``) the key leaves it out, and an entry found at count ``a`` with
  search depth ``d`` is trusted at count ``a'`` when ``a' == a``, or when
  ``max(a, a') + d < R_ACTION_LIMIT``: then no line it searched reached the cap from either
  count, every one of them ends the same way, and so the value or bound holds at both.

Repetitions
===========
Where a 3 may take a 3 back (``three-takes-three``) a line can come back to a position, and
only the cap would end it. (Elsewhere no line can: the scrap never shrinks, a 3's pick
puts one more 3 in it, and between such steps every action moves a card for good: from a
hand to the table or a pending one-off, or from the deck to a hand, or counts a pass.) A
node that is the same position as an earlier node of the current line (the action count
aside; ``_repetition``), counting from the node the search started at (``ply0``: a root
move's result, not the root itself), is scored a draw. This keeps every value exact, the
plies too, cap included:

- a win never needs a repetition: the winner's shortest forcing line strictly shortens the
  distance to the win at every ply, so it never meets a position twice, and it fits in
  the actions left exactly when the game (with its cap) is a win;
- a win found with repetitions is a win of the game: its lines end in real wins (or
  table entries, themselves the game's values), never in a repetition's draw. So the
  search from ``ply0`` with repetition draws has the game's value (and its plies: the
  shortest win, the longest loss), though a node inside may not.

A node's value depends on the line above it only through repetitions of nodes above it
(the graph-history interaction problem): each frame keeps the lowest ply of a repeated
node in its subtree (``FR_REF``), and a node stores its result only when that ply is not
above its own; the argument above, with the node as the start, makes that result the
game's value at its action count. A value that rests on an earlier node is passed up but
never stored. With a random 4 a value is an expectation, and a line that comes back
through chance is no draw: the rule is off there.

What a seat can never win
=========================
``potential`` bounds how far past its goal a seat can ever get, by the one strategy of a
*passive* opponent (see its docstring): a negative bound means the seat can never win, so
its value is at most a draw and the other seat's at least one. At every node where it
applies, a seat that cannot win bounds the window, and when neither can the node is a
draw at once. The same bound prunes and orders the moves: a seat that only needs a draw
stops at the first move after which the opponent can never win (the node fails high with
the bound 0 before its other moves are ordered), a seat that needs a win leaves out the
moves after which it can never win (each would fail low with the bound 0, so the node
counts one such 0 instead), and a seat that defends tries first the moves that leave the
opponent the least potential. Elsewhere the two *killers* of a ply
(the last two moves that cut off there) come right after the table's move; a defender
keeps to the potential order, where a killer counts as 8 points less of the opponent's
potential (4 for the older one): first in line, killers cost nodes there (3.5 million
became 9.4 million on one benchmark position), as a bonus they save them (2.5 million).

Forced moves
============
A decision with one legal move (a pass from an empty hand, a counter phase with no 2) has
its child's value. ``play_forced`` plays such moves through before a child is opened, so
they cost a move generation each and no table probe, bound, order or entry; their plies
count in the depth behind an entry, and the principal line plays them too.

Twin moves
==========
``drop_twins`` keeps one move of each set whose results are the same position up to two
cards whose swap no rule can see (two Kings, Queens or Jacks; two point cards of one rank
and neighbouring suits in the scrap once no 3 can take another card): their values are
equal. (At the root every move is reported; ``solve`` searches one of each royal twin set.)

Budgets
=======
``ctl`` holds the node count, the node budget, an abort flag and a stop flag. The search
checks the budget and the stop flag every ``CHECK_EVERY`` nodes; the Python layer sets the
stop flag from a timer thread for a time budget (the kernel releases the GIL). An aborted
search stores nothing more and unwinds; root moves solved before the abort keep their
exact values.
"""
import numpy as np

from . import layout as L
from .jit import njit
from .apply import apply_move
from .layout import (
    ACTOR_CHANCE,
    F_ACTIONS,
    F_ACTOR,
    F_CHAIN_TOP,
    F_DECK,
    F_DECK_N,
    F_DISCARDS,
    F_FACE,
    F_FROZEN,
    F_HAND,
    F_JACK_BY,
    F_JACK_LEVEL,
    F_JACK_ON,
    F_NPLAYERS,
    F_NTWOS,
    F_ONEOFF,
    F_ONEOFF_PLAYER,
    F_ONEOFF_TARGET,
    F_OWNED,
    F_PASSES,
    F_PHASE,
    F_POINTS,
    F_REVEALED,
    F_SCRAP,
    F_SCUTTLE_CARD,
    F_SCUTTLE_TARGET,
    F_STATUS,
    F_TURN,
    F_TWOS,
    F_WINNER,
    FROM_SEVEN,
    HL_BLOCK,
    JACKS,
    KINGS,
    lowest,
    move_card,
    move_mask,
    move_target,
    MT_DRAW,
    MT_JACK,
    MT_MASK,
    MT_ONE_OFF,
    MT_PASS,
    MT_RESOLVE,
    MT_ROYAL,
    N_CARDS,
    NINE_DECK_TOP,
    NO_CARD,
    PH_FIVE,
    PH_FOUR,
    PH_HAND_LIMIT,
    PH_MAIN,
    PH_OVER,
    PH_SEVEN,
    PH_THREE,
    POINT_RANKS,
    popcount,
    R_ACTION_LIMIT,
    R_FOUR_RANDOM,
    R_HAND_LIMIT_STYLE,
    R_NINE_MODE,
    R_TARGET_ANY_SIDE,
    R_THREE_TAKES_THREE,
    RANK_JACK,
    RANK_KING,
    RANK_NINE,
    RANK_QUEEN,
    RANK_SEVEN,
    RANK_THREE,
    ST_WIN,
    THREES,
)
from .movegen import generate_moves
from .table import goal_with_kings, points_total, three_pool

WIN = float(2**44)
INF = float(2**50)

# table entries: one row of eight 64-bit words per slot (one cache line), seen through
# three views of the same buffer (tt_u: uint64, tt_f: float64, tt_i: int64); slots go in
# pairs (a bucket): the even one keeps the entry with the most work behind it, the odd one
# the latest other entry, so a probe touches two neighbouring rows
TT_KEY, TT_LO, TT_MOVE, TT_GEN, TT_ACTIONS, TT_DEPTH, TT_HI, TT_WORK = 0, 1, 2, 3, 4, 5, 6, 7
TT_WORDS = 8
# an entry holds both bounds of its value (TT_LO <= value <= TT_HI; equal when exact) and
# the pass it belongs to, its generation (1 or 2); a zero generation is an empty slot, and
# an entry of the other pass is ignored, so no pass clears the table
TT_EXACT = 1
TT_LOWER = 2
TT_UPPER = 3

# ctl slots
CTL_NODES = 0
CTL_BUDGET = 1  # node budget; <= 0 for none
CTL_ABORTED = 2
CTL_STOP = 3  # set by another thread to stop (a time budget)
CTL_SIZE = 4
CHECK_EVERY = 1023  # nodes between two looks at the budget (a mask: 2**k - 1)

KILLER_BONUS = 2048  # a defender's killer: worth 8 points less of the opponent's potential (256 a point)
SORT_LIMIT = 256  # order the moves of a node with at most this many (larger: the TT move first only)

# the state fields a rule reads (two seats)
HASH_FIELDS = np.array(
    [F_PHASE, F_TURN, F_ACTOR, F_PASSES, F_ONEOFF, F_ONEOFF_TARGET, F_ONEOFF_PLAYER, F_TWOS, F_NTWOS,
     F_CHAIN_TOP, F_DISCARDS, F_REVEALED, F_SCUTTLE_CARD, F_SCUTTLE_TARGET, F_SCRAP, F_DECK_N]
    + [F_JACK_ON + j for j in range(4)] + [F_JACK_BY + j for j in range(4)] + [F_JACK_LEVEL + j for j in range(4)]
    + [f + p for f in (F_HAND, F_POINTS, F_FACE, F_OWNED, F_FROZEN) for p in range(2)],
    dtype=np.int64,
)
_ZRNG = np.random.default_rng(0x5EED_C0DE)
HASH_KEYS = _ZRNG.integers(0, 2**63, size=len(HASH_FIELDS), dtype=np.int64).astype(np.uint64)
DECK_KEYS = _ZRNG.integers(0, 2**63, size=64, dtype=np.int64).astype(np.uint64)
ACTIONS_KEY = np.uint64(_ZRNG.integers(0, 2**63, dtype=np.int64))


@njit(cache=True)
def _mix(x):
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xFF51AFD7ED558CCD)
    x ^= x >> np.uint64(29)
    x *= np.uint64(0xC4CEB9FE1A85EC53)
    x ^= x >> np.uint64(32)
    return x


@njit(cache=True)
def state_key(s, with_actions):
    """The 64-bit transposition key of a state (see the module docstring); the action
    count is part of it only ``with_actions``."""
    h = np.uint64(0)
    if with_actions:
        h = _mix(np.uint64(s[F_ACTIONS]) ^ ACTIONS_KEY)
    for i in range(HASH_FIELDS.shape[0]):
        h ^= _mix(np.uint64(s[HASH_FIELDS[i]]) ^ HASH_KEYS[i])
    for i in range(s[F_DECK_N]):
        h ^= _mix(np.uint64(s[F_DECK + i]) ^ DECK_KEYS[i])
    return h


@njit(cache=True)
def copy_state(dst, src):
    """``dst[:] = src`` up to the deck's last card: the solver's states never read a deck
    slot past ``F_DECK_N`` (a card put on the deck writes its slot first)."""
    for i in range(F_DECK + src[F_DECK_N]):
        dst[i] = src[i]


@njit(cache=True)
def node_seat(s):
    """The seat a node's value is seen from: the actor, or the turn player at chance."""
    a = s[F_ACTOR]
    return s[F_TURN] if a == ACTOR_CHANCE else a


@njit(cache=True)
def terminal_value(s, seat, tb):
    """The value of a finished game for ``seat``; ``tb`` 1 with the tie-break, 0 without."""
    if s[F_STATUS] == ST_WIN:
        v = WIN - s[F_ACTIONS] * tb
        return v if s[F_WINNER] == seat else -v
    return 0.0


@njit(cache=True)
def _material(s, seat):
    o = 1 - seat
    return 16 * (points_total(s, seat) - points_total(s, o)) + 4 * (popcount(s[F_FACE + seat]) - popcount(s[F_FACE + o]))


@njit(cache=True)
def passive_applies(s, r):
    """Whether ``cannot_win`` may judge ``s``: a two-seat game, no 7 waiting or pending
    (its player must play a revealed card), and a seat can always pass, draw, resolve or
    discard as told: the deck is empty and stays so, or no hand limit blocks a draw."""
    ph = s[F_PHASE]
    if ph == PH_OVER or ph == PH_SEVEN or s[F_REVEALED] != 0 or s[F_NPLAYERS] != 2:
        return False
    if s[F_ONEOFF] >= 0 and (s[F_ONEOFF] >> 2) == RANK_SEVEN:
        return False
    if r[R_HAND_LIMIT_STYLE] != HL_BLOCK:
        return True
    return s[F_DECK_N] == 0 and r[R_NINE_MODE] != NINE_DECK_TOP


@njit(cache=True)
def _top_points(mask, n):
    """The points of the ``n`` highest point cards of ``mask``."""
    got = 0
    rank = 9
    while n > 0 and rank >= 0:
        take = min(popcount(mask & (np.int64(0xF) << (4 * rank))), n)
        got += take * (rank + 1)
        n -= take
        rank -= 1
    return got


@njit(cache=True)
def potential(s, r, x):
    """``_potential`` in full: the bound itself."""
    return _potential(s, r, x, False)


@njit(cache=True)
def _potential(s, r, x, sign_only):
    """An upper bound on how far past its goal seat ``x`` can ever get from ``s`` (where
    ``passive_applies``), whatever either seat does: negative when ``x`` can never win.

    The bound is what ``x`` reaches against the *passive* opponent, who passes (or draws
    when the deck holds cards), lets every one-off and scuttle resolve, and picks and
    discards anything when told to: if ``x`` cannot win against that one strategy, it
    cannot win at all. The passive opponent gives ``x`` nothing (a card a deck-top 9 puts
    on the deck is the next card it draws), so a point ``x`` can ever hold is

    - a point card ``x`` controls or holds now (an 8 among its royals too: a 9 can send
      it back to the hand), or a card on the table ``x`` owns or that carries a jack (a
      2, a 9 or a 6 can hand it back);
    - one card stolen per jack ``x`` plays: one in hand, one a pending 9 hands back, one
      gained (below), and without limit where 2s and 9s reach both sides and ``x`` has a
      jack on the table (its own 9 hands it back);
    - or one of at most ``g`` cards it gains: one per 3 it holds, can draw or has pending
      (a 3 gains one card from the scrap and is spent; taking a 3 back gains nothing;
      a pending 9 may hand back a 3 of its points) and one per card in the deck (draws,
      5s and 7s take only deck cards). They come from the scrap, the other hand (a 4
      discards it), the table (a scuttle or an Ace scraps it), the cards on their way to
      the scrap (a pending one-off, its counters, a pending scuttle) or the deck.

    Each gain is a point card, a King (which lowers the goal) or a jack (one more steal);
    the bound is the best split. Queens are ignored (they only protect). With ``sign_only``
    the first split that reaches the goal is returned (the bound is then not negative)."""
    y = 1 - x
    hand = s[F_HAND + x]
    deck = np.int64(0)
    for i in range(s[F_DECK_N]):
        deck |= np.int64(1) << s[F_DECK + i]
    k = popcount((hand | deck) & THREES)
    pending = s[F_TWOS]
    c = s[F_ONEOFF]
    if c >= 0:
        pending |= np.int64(1) << c
        if (c >> 2) == RANK_THREE and s[F_ONEOFF_PLAYER] == x:
            k += 1
    if s[F_SCUTTLE_CARD] >= 0:
        pending |= np.int64(1) << s[F_SCUTTLE_CARD]
    table = s[F_POINTS] | s[F_POINTS + 1]
    jacked = np.int64(0)
    own_jack = False
    for j in range(4):
        on = s[F_JACK_ON + j]
        if on >= 0:
            jacked |= np.int64(1) << on
            if s[F_JACK_BY + j] == x:
                own_jack = True
    jacks = popcount(hand & JACKS)
    # a pending 9 hands its target back to x (to the hand, or to the deck top that x
    # draws from next): a 3 of x's points then gains a card, a jack x played steals again
    if c >= 0 and (c >> 2) == RANK_NINE:
        t = s[F_ONEOFF_TARGET]
        if t >= 0 and (t >> 2) == RANK_THREE and (s[F_POINTS + x] >> t) & 1:
            k += 1
        if t >= 0 and (t >> 2) == RANK_JACK and s[F_JACK_BY + (t - 40)] == x:
            jacks += 1
    if own_jack and r[R_TARGET_ANY_SIDE]:
        jacks = N_CARDS
    g = k + s[F_DECK_N]
    # a 3 in hand is a card to gain or 3 points, not both
    threes = popcount(hand & THREES)
    base = s[F_POINTS + x] | (table & (s[F_OWNED + x] | jacked)) | (((hand & ~THREES) | s[F_FACE + x]) & POINT_RANKS)
    have = 0
    m = base
    while m:
        c = lowest(m)
        m &= m - 1
        have += (c >> 2) + 1
    steal = table & ~base
    kings = popcount((s[F_FACE + x] | hand) & KINGS)
    elsewhere = s[F_SCRAP] | s[F_HAND + y] | deck | pending
    gain_kings = min(g, popcount((elsewhere | s[F_FACE + y]) & KINGS), 4 - kings)
    gain_jacks = popcount(JACKS & ~hand)
    pool = (elsewhere | table | s[F_FACE + y]) & POINT_RANKS & ~base
    best = -(1 << 30)
    for u in range(threes + 1):  # u of the 3s in hand played as points
        gu = g - u
        for j in range(min(gain_kings, gu) + 1):
            for i in range(min(gu - j, gain_jacks) + 1):
                got = (have + 3 * u + _top_points(steal, jacks + i) + _top_points(pool, gu - j - i)
                       - goal_with_kings(r, kings + j))
                if got > best:
                    best = got
                    if sign_only and got >= 0:
                        return got
    return best


@njit(cache=True)
def cannot_win(s, r, x):
    """Whether seat ``x`` can never win from ``s`` (where ``passive_applies``): its ``potential`` is negative."""
    return _potential(s, r, x, True) < 0


@njit(cache=True)
def _lowest_of(h, k):
    """The ``k`` lowest cards of the mask ``h``."""
    out = np.int64(0)
    while k > 0 and h:
        b = h & -h
        out |= b
        h &= h - 1
        k -= 1
    return out


@njit(cache=True)
def drop_twins(s, r, moves, n):
    """Remove from ``moves[:n]`` (a player's decision) the moves that have a *twin*, an
    earlier move whose result is the same position with two cards swapped, where the
    swap changes no rule; returns the new count. Kings, Queens and Jacks of one rank are
    such cards wherever they lie together (no rule reads their suits): a 3 takes the
    lowest of a rank in the scrap, a royal or a jack is played from the hand as the
    lowest of its rank there, a one-off targets the lowest of a rank on a side, discards
    keep to the lowest of each rank. Two point cards of one rank and neighbouring suits
    are such cards in the scrap when no further 3 can ever take a card (every other 3 is
    in the scrap): their order matters only once both are in play."""
    ph = s[F_PHASE]
    a = s[F_ACTOR]
    k = 0
    if ph == PH_THREE:
        pool = three_pool(s, r)
        others = THREES & ~s[F_SCRAP]
        if s[F_ONEOFF] >= 0:
            others &= ~(np.int64(1) << s[F_ONEOFF])
        last = others == 0
        for i in range(n):
            c = move_card(moves[i])
            rk = c >> 2
            if rk >= RANK_JACK:
                if pool & (np.int64(0xF) << (4 * rk)) & ((np.int64(1) << c) - 1):
                    continue
            elif last and rk != RANK_THREE and (c & 3) != 0 and (pool >> (c - 1)) & 1:
                continue
            moves[k] = moves[i]
            k += 1
        return k
    if ph == PH_MAIN:
        hand = s[F_HAND + a]
        hand &= ~s[F_FROZEN + a]
        for i in range(n):
            m = moves[i]
            mt = m & MT_MASK
            if (m & FROM_SEVEN) == 0 and (mt == MT_ROYAL or mt == MT_JACK or mt == MT_ONE_OFF):
                c = move_card(m)
                rk = c >> 2
                if rk >= RANK_JACK and hand & (np.int64(0xF) << (4 * rk)) & ((np.int64(1) << c) - 1):
                    continue
                if mt == MT_ONE_OFF:
                    t = move_target(m)
                    if t != NO_CARD and (t >> 2) >= RANK_QUEEN:
                        same = np.int64(0xF) << (4 * (t >> 2))
                        for q in range(2):
                            face = s[F_FACE + q]
                            if (face >> t) & 1 and face & same & ((np.int64(1) << t) - 1):
                                same = -1
                        if same == -1:
                            continue
            moves[k] = m
            k += 1
        return k
    if ph == PH_FOUR or ph == PH_FIVE or ph == PH_HAND_LIMIT:
        hand = s[F_HAND + a]
        for i in range(n):
            mask = move_mask(moves[i])
            keep = True
            for rk in range(RANK_JACK, RANK_KING + 1):
                same = np.int64(0xF) << (4 * rk)
                d = mask & same
                if d != _lowest_of(hand & same, popcount(d)):
                    keep = False
            if keep:
                moves[k] = moves[i]
                k += 1
        return k
    return n


# ---------------------------------------------------------------- the suit symmetry of royals, in Python
# The exact solver's Python side (analysis/solve.py) merges root moves whose results are the
# same position up to the suits of a royal rank (Jacks, Queens, Kings: no rule reads their
# suits), as drop_twins does inside the search; these read the state's fields, so they live
# here, beside drop_twins, rather than above the engine.
_MASK_FIELDS = [L.F_TWOS, L.F_REVEALED, L.F_SCRAP] + [
    f + p for f in (L.F_HAND, L.F_POINTS, L.F_FACE, L.F_OWNED, L.F_FROZEN) for p in range(2)]
_CARD_FIELDS = [L.F_ONEOFF, L.F_ONEOFF_TARGET, L.F_SCUTTLE_CARD, L.F_SCUTTLE_TARGET, L.F_SEVEN]
_MASK_MOVES = (L.MT_DISCARD, L.MT_RANDOM_DISCARD)


def royal_relabel(s: np.ndarray) -> tuple[bytes, list[int]]:
    """The position ``s`` with the suits of each royal rank (Jacks, Queens, Kings: no rule
    reads them) put in a canonical order, as bytes of the fields a rule reads, and the map
    from each card to its canonical card. Two positions with the same bytes are the same
    up to such a relabelling, so they have the same value and the same plies."""
    deck = [int(c) for c in s[L.F_DECK: L.F_DECK + int(s[L.F_DECK_N])]]
    label = list(range(L.N_CARDS))
    for rank in (L.RANK_JACK, L.RANK_QUEEN, L.RANK_KING):
        def where(c, rank=rank):
            u = c & 3
            return (tuple((int(s[f]) >> c) & 1 for f in _MASK_FIELDS), deck.index(c) if c in deck else -1,
                    tuple(int(s[f]) == c for f in _CARD_FIELDS),
                    tuple(int(s[f + u]) for f in (L.F_JACK_ON, L.F_JACK_BY, L.F_JACK_LEVEL)) if rank == L.RANK_JACK
                    else ())
        for new, old in enumerate(sorted(range(4 * rank, 4 * rank + 4), key=where)):
            label[old] = 4 * rank + new
    t = s.copy()
    for f in _MASK_FIELDS:
        x = int(s[f])
        t[f] = sum(1 << label[c] for c in range(L.N_CARDS) if (x >> c) & 1)
    for f in _CARD_FIELDS:
        if s[f] >= 0:
            t[f] = label[int(s[f])]
    for i, c in enumerate(deck):
        t[L.F_DECK + i] = label[c]
    for u in range(4):  # a jack's slots follow the jack
        for f in (L.F_JACK_ON, L.F_JACK_BY, L.F_JACK_LEVEL):
            t[f + label[40 + u] - 40] = s[f + u]
    keep = list(HASH_FIELDS) + [L.F_ACTIONS] + list(range(L.F_DECK, L.F_DECK + len(deck)))
    return t[keep].tobytes(), label


def relabel_move(code: int, label: list[int]) -> int:
    """A move's code with its cards relabelled by ``label``."""
    mt = code & L.MT_MASK
    if mt in _MASK_MOVES:
        mask = code >> 5
        return (code & 31) | (sum(1 << label[c] for c in range(L.N_CARDS) if (mask >> c) & 1) << 5)
    card, target = (code >> 5) & 63, (code >> 11) & 63
    card = label[card] if card < L.N_CARDS else card
    target = label[target] if target < L.N_CARDS else target
    return (code & 31) | (card << 5) | (target << 11)


def root_twins(s: np.ndarray, r: np.ndarray, moves: np.ndarray, n: int) -> tuple[list[int], list[list[int] | None]]:
    """For each root move of the position ``s`` under rules ``r``, the index of the first
    move whose result is the same position up to the suits of a royal rank (itself when none
    is), and the map of cards from that move's line to this one's (None for itself)."""
    first: dict[bytes, tuple[int, list[int]]] = {}
    rep, maps = [], []
    royal = (L.JACKS | L.QUEENS | L.KINGS) << 5
    for i in range(n):
        code = int(moves[i])
        if code & L.MT_MASK in _MASK_MOVES:
            named = code & royal
        else:
            named = 40 <= (code >> 5) & 63 < L.N_CARDS or 40 <= (code >> 11) & 63 < L.N_CARDS
        if not named:  # only moves that name a royal card can have a royal twin
            rep.append(i)
            maps.append(None)
            continue
        child = s.copy()
        apply_move(child, r, np.int64(moves[i]))
        key, label = royal_relabel(child)
        if key in first:
            j, lab_j = first[key]
            inverse = [0] * L.N_CARDS
            for c, lc in enumerate(label):
                inverse[lc] = c
            rep.append(j)
            maps.append([inverse[lab_j[c]] for c in range(L.N_CARDS)])
        else:
            first[key] = (i, label)
            rep.append(i)
            maps.append(None)
    return rep, maps


SETTLE_WIN = -1  # order_moves: order[0] wins on the spot
SETTLE_SAFE = -2  # order_moves: after order[0] the opponent can never win


@njit(cache=True)
def order_moves(s, r, moves, n, order, child, seat, first, settle, safe_first, drop_hopeless, killer, killer2):
    """Fill ``order`` with the indices of the moves of ``moves[:n]`` worth searching, best
    first, and return how many: a move after which the opponent can never win when
    ``safe_first`` (a seat that needs only a draw), the move ``first`` (the table's), then,
    unless ``safe_first``, the two *killers* (the last two moves that cut off at this ply,
    ``killer`` the latest), then by the opponent's potential (``safe_first``, where the
    killers count as 8 and 4 points less of it) and the material after the move, a pass
    last. With ``drop_hopeless`` (a seat that needs a win) a move after which the seat can
    never win is left out: searched, it would fail low with the bound 0 (the caller counts
    that bound in when ``n`` moves came in and fewer go out). With ``settle`` a move that
    settles the node stops the ordering, its index in ``order[0]``: ``SETTLE_WIN`` when it
    wins on the spot, ``SETTLE_SAFE`` when the opponent can never win after it and
    ``safe_first`` (the node then fails high with the bound 0)."""
    kept = 0
    for i in range(n):
        m = moves[i]
        copy_state(child, s)
        apply_move(child, r, m)
        if child[F_PHASE] == PH_OVER:
            if child[F_STATUS] == ST_WIN and child[F_WINNER] == seat:
                if settle:
                    order[0] = i
                    return SETTLE_WIN
                key = 1 << 21
            else:
                key = -(1 << 20) if child[F_STATUS] == ST_WIN else -(1 << 18)
        else:
            app = (safe_first or drop_hopeless) and passive_applies(child, r)
            po = potential(child, r, 1 - seat) if app and safe_first else 0
            if app and safe_first and po < 0:
                if settle:
                    order[0] = i
                    return SETTLE_SAFE
                key = (1 << 21) + 1
            elif app and drop_hopeless and cannot_win(child, r, seat):
                continue
            elif m == first:
                key = 1 << 21
            elif m == killer and not safe_first:  # (a defender keeps to the potential order)
                key = (1 << 21) - 1
            elif m == killer2 and not safe_first:
                key = (1 << 21) - 2
            elif (m & MT_MASK) == MT_PASS:
                key = -(1 << 16)
            elif app and safe_first:
                key = max(-60000, min(1 << 20, -po * 256 + _material(child, seat)))
                if m == killer:
                    key += KILLER_BONUS
                elif m == killer2:
                    key += KILLER_BONUS // 2
            else:
                key = _material(child, seat)
        order[kept] = ((key + (1 << 22)) << 12) | i
        kept += 1
    if kept <= SORT_LIMIT:
        for i in range(1, kept):  # insertion sort, descending
            x = order[i]
            j = i - 1
            while j >= 0 and order[j] < x:
                order[j + 1] = order[j]
                j -= 1
            order[j + 1] = x
    elif kept > 0:  # too many to sort: the best first only
        b = 0
        for i in range(1, kept):
            if order[i] > order[b]:
                b = i
        x = order[b]
        order[b] = order[0]
        order[0] = x
    for i in range(kept):
        order[i] &= 4095
    return kept


# frame slots of the explicit search stack (one row per ply)
FR_ALPHA, FR_BETA, FR_ALPHA0, FR_BEST, FR_TOTAL = 0, 1, 2, 3, 4
FR_FLOATS = 5
FR_BESTMOVE, FR_K, FR_N, FR_SEAT, FR_NODES, FR_FLIP, FR_CHANCE, FR_DEPTH, FR_REF, FR_STAGE = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
FR_KILLER = 10  # the last move that cut off at this ply (not reset by a new node)
FR_KILLER2 = 11
FR_FORCED = 12  # the forced plies played through to reach the child being searched (see play_forced)
FR_INTS = 13
NO_REF = 1 << 30  # a value that rests on no repetition (see _repetition)


@njit(cache=True)
def play_forced(s, r, buf, ctl):
    """Play through, in place, every decision of ``s`` that has one legal move (a pass from
    an empty hand, a counter phase with no 2 to answer with), each counted as a node, and
    return how many: such a node's value is its child's, so it needs no table entry, bound
    or order of its own. Only a main decision of an empty hand and the other phases are
    asked for their moves (a main decision with cards in hand has more than one move
    almost always, and asking would cost a second move generation)."""
    k = 0
    while s[F_PHASE] != PH_OVER and s[F_ACTOR] != ACTOR_CHANCE:
        if s[F_PHASE] == PH_MAIN and s[F_HAND + s[F_ACTOR]] != 0:
            break
        if generate_moves(s, r, buf) != 1:
            break
        apply_move(s, r, buf[0])
        ctl[CTL_NODES] += 1
        k += 1
    return k


@njit(cache=True)
def _probe(tt_u, tt_i, key, gen):
    """The slot of ``key``'s entry of pass ``gen`` in its bucket, or -1."""
    b = np.int64(key & np.uint64(tt_u.shape[0] - 2))
    if tt_u[b, TT_KEY] == key and tt_i[b, TT_GEN] == gen:
        return b
    if tt_u[b + 1, TT_KEY] == key and tt_i[b + 1, TT_GEN] == gen:
        return b + 1
    return np.int64(-1)


@njit(cache=True)
def _store(tt_u, tt_f, tt_i, key, v, flag, m, gen, actions, depth, work):
    """Store a result: ``v`` exact, a lower bound or an upper bound (``flag``), found at
    ``actions`` with a search ``depth`` behind it that took ``work`` nodes. An entry of the
    same position and pass is replaced in its slot, and one of the same action count too
    keeps its other bound (and its move, for an upper bound: the best move of a node that
    failed low is only the best of the refuted). The even slot of the bucket takes the
    result when it has at least as much work behind it (its entry's included) as the entry
    there, which moves to the odd slot; else its own slot or the odd one takes it (so an
    entry that grows with a second search, as a draw's two tests, is not left in the slot
    every new position takes)."""
    b = np.int64(key & np.uint64(tt_u.shape[0] - 2))
    slot = _probe(tt_u, tt_i, key, gen)
    lo = -INF
    hi = INF
    if slot >= 0 and tt_i[slot, TT_ACTIONS] == actions and flag != TT_EXACT:
        lo = tt_f[slot, TT_LO]
        hi = tt_f[slot, TT_HI]
        if depth < tt_i[slot, TT_DEPTH]:
            depth = tt_i[slot, TT_DEPTH]
        work += tt_i[slot, TT_WORK]
        if flag == TT_UPPER and tt_i[slot, TT_MOVE] >= 0:
            m = tt_i[slot, TT_MOVE]
    if slot != b and work >= tt_i[b, TT_WORK]:
        for w in range(TT_WORDS):
            tt_i[b + 1, w] = tt_i[b, w]
        slot = b
    elif slot < 0:
        slot = b + 1
    if flag != TT_UPPER and v > lo:
        lo = v
    if flag != TT_LOWER and v < hi:
        hi = v
    if lo > hi:  # bounds of two results that disagree (cannot happen): keep the new one
        lo = v if flag != TT_UPPER else -INF
        hi = v if flag != TT_LOWER else INF
    tt_i[slot, TT_ACTIONS] = actions
    tt_i[slot, TT_DEPTH] = depth
    tt_u[slot, TT_KEY] = key
    tt_f[slot, TT_LO] = lo
    tt_f[slot, TT_HI] = hi
    tt_i[slot, TT_MOVE] = m
    tt_i[slot, TT_GEN] = gen
    tt_i[slot, TT_WORK] = work


@njit(cache=True)
def _same_position(s, t):
    """Whether two states are the same position for every rule (the action count aside)."""
    for i in range(HASH_FIELDS.shape[0]):
        if s[HASH_FIELDS[i]] != t[HASH_FIELDS[i]]:
            return False
    for i in range(s[F_DECK_N]):
        if s[F_DECK + i] != t[F_DECK + i]:
            return False
    return True


@njit(cache=True)
def _repetition(states, rkey, ply0, ply):
    """The ply of an earlier node of the current line, from ``ply0`` on, that is the same
    position as ``states[ply]`` (the action count aside), or -1. The scrap never shrinks
    along a line (only a 3's pick takes a card out, and the 3 goes in), so the scan stops at
    the first earlier node with fewer cards in the scrap."""
    s = states[ply]
    c = popcount(s[F_SCRAP])
    key = rkey[ply]
    q = ply - 1
    while q >= ply0:
        t = states[q]
        if popcount(t[F_SCRAP]) != c:
            break
        if rkey[q] == key and _same_position(s, t):
            return q
        q -= 1
    return -1


@njit(cache=True)
def _enter(states, bufs, orders, r, ply0, ply, alpha, beta, tb, tt_u, tt_f, tt_i, ctl, ff, fi, fkey, rkey, out):
    """Open the node ``states[ply]`` with the window (alpha, beta). Returns True when its
    value is already known or bounded outside the window (the horizon and the first pass's
    entries with the tie-break, a table hit, a seat that cannot win, a repetition of an
    earlier node of the line, a win on the spot), written to ``out[0]``, with the depth of
    the search behind it in ``out[1]`` and the ply of the repeated node in ``out[2]``
    (``NO_REF`` if none); otherwise narrows the window to what is known, sets up its frame
    (with the table's move alone first, when there is one) and returns False."""
    s = states[ply]
    seat = node_seat(s)
    k0 = state_key(s, 0)
    rkey[ply] = k0
    key = k0
    if tb:
        key = k0 ^ _mix(np.uint64(s[F_ACTIONS]) ^ ACTIONS_KEY)
    first = np.int64(-1)
    gen = tb + 1
    a = s[F_ACTIONS]
    out[2] = NO_REF
    out[1] = 0
    if tb:
        # with the tie-break, a game that ends does so after one more action at the
        # soonest, and the first pass's entries (no action count in their key) still say
        # who can win at all
        lo = -(WIN - (a + 1))
        hi = WIN - (a + 1)
        s1 = _probe(tt_u, tt_i, k0, 1)
        if s1 >= 0 and (
            a == tt_i[s1, TT_ACTIONS] or max(a, tt_i[s1, TT_ACTIONS]) + tt_i[s1, TT_DEPTH] < r[R_ACTION_LIMIT]
        ):
            # (through a random 4 only a sure result says so: an expectation of 0 may
            # mix a soon win with a late loss)
            if tt_f[s1, TT_HI] <= -WIN:
                hi = -(WIN - r[R_ACTION_LIMIT])
            elif tt_f[s1, TT_HI] <= 0.0 and not r[R_FOUR_RANDOM]:
                hi = 0.0
            if tt_f[s1, TT_LO] >= WIN:
                lo = WIN - r[R_ACTION_LIMIT]
            elif tt_f[s1, TT_LO] >= 0.0 and not r[R_FOUR_RANDOM]:
                lo = 0.0
        if lo >= beta or hi <= alpha or lo == hi:
            out[0] = lo if lo >= beta or lo == hi else hi
            return True
        alpha = max(alpha, lo)
        beta = min(beta, hi)
    slot = _probe(tt_u, tt_i, key, gen)
    if slot >= 0 and (
        tb or a == tt_i[slot, TT_ACTIONS] or max(a, tt_i[slot, TT_ACTIONS]) + tt_i[slot, TT_DEPTH] < r[R_ACTION_LIMIT]
    ):
        lo = tt_f[slot, TT_LO]
        hi = tt_f[slot, TT_HI]
        if lo == hi or lo >= beta or hi <= alpha:
            out[0] = lo if lo >= beta or lo == hi else hi
            out[1] = tt_i[slot, TT_DEPTH]
            return True
        first = tt_i[slot, TT_MOVE]
    if passive_applies(s, r):
        # what neither seat can ever win bounds the value (see cannot_win)
        lo = 0.0 if cannot_win(s, r, 1 - seat) else -INF
        hi = 0.0 if cannot_win(s, r, seat) else INF
        if lo >= beta or hi <= alpha or lo == hi:
            out[0] = lo if lo >= beta else hi
            out[1] = 0
            return True
        alpha = max(alpha, lo)
        beta = min(beta, hi)
    if r[R_THREE_TAKES_THREE] and not r[R_FOUR_RANDOM]:
        q = _repetition(states, rkey, ply0, ply)
        if q >= 0:  # a draw, exact for the search from ply0 (see the module docstring)
            out[0] = 0.0
            out[1] = 0
            out[2] = q
            return True
    moves = bufs[ply]
    order = orders[ply]
    chance = s[F_ACTOR] == ACTOR_CHANCE
    stage = 0
    hopeless = False
    if first >= 0 and not chance:
        # the table's move first, alone: the rest are generated only if it does not settle
        # the node (see negamax)
        moves[0] = first
        order[0] = 0
        n = 1
        stage = 1
    else:
        n = generate_moves(s, r, moves)
        if not chance:
            n = drop_twins(s, r, moves, n)
        if chance or n == 1:  # (one move: no order, and a win on the spot is its child's value)
            for i in range(n):
                order[i] = i
        else:
            kept = order_moves(s, r, moves, n, order, states[ply + 1], seat, first, True, beta <= 0.0, alpha >= 0.0,
                               fi[ply, FR_KILLER], fi[ply, FR_KILLER2])
            if kept < 0:  # a win on the spot (no line ends sooner), or a move after which the
                # opponent can never win (at least a draw, all a seat that needs a draw asks)
                won = kept == SETTLE_WIN
                v = WIN - (a + 1) * tb if won else 0.0
                _store(tt_u, tt_f, tt_i, key, v, TT_EXACT if won else TT_LOWER, moves[order[0]], gen, a, 1, 1)
                out[0] = v
                out[1] = 1
                return True
            hopeless = n > kept
            n = kept
    ff[ply, FR_ALPHA] = alpha
    ff[ply, FR_BETA] = beta
    ff[ply, FR_ALPHA0] = alpha
    # (the moves order_moves left out, each worth at most 0 <= alpha, count as one child of value 0)
    ff[ply, FR_BEST] = 0.0 if hopeless else -INF
    ff[ply, FR_TOTAL] = 0.0
    fi[ply, FR_BESTMOVE] = moves[order[0]] if n > 0 else -1
    fi[ply, FR_K] = 0
    fi[ply, FR_N] = n
    fi[ply, FR_SEAT] = seat
    fi[ply, FR_NODES] = ctl[CTL_NODES]
    fi[ply, FR_CHANCE] = 1 if chance else 0
    fi[ply, FR_DEPTH] = 1 if hopeless else 0
    fi[ply, FR_REF] = NO_REF
    fi[ply, FR_STAGE] = stage
    fkey[ply] = key
    return False


@njit(cache=True, nogil=True)
def negamax(states, bufs, orders, r, ply0, alpha, beta, tb, tt_u, tt_f, tt_i, ctl, ff, fi, fkey, rkey, out):
    """The value of ``states[ply0]`` (a position that is not over) for its seat: exact when
    strictly inside (alpha, beta), otherwise a bound on the side it fell (fail-soft). A
    repetition of a node of the line from ``ply0`` on is a draw.

    An explicit stack (``ff``/``fi``/``fkey``/``rkey``, one row per ply) instead of
    recursion: Numba's cache does not load recursive functions safely, and the depth can
    reach the action cap. A chance node searches every outcome with the full window and
    takes the mean. A node whose value rests on a repetition of an earlier node (its
    ``FR_REF`` below its own ply) is not stored: that value holds only on this line. A node
    opened with the table's move alone (``FR_STAGE`` 1) generates, drops the twins of and
    orders its other moves only when that move does not settle it. A child's forced moves
    are played through before it is opened (``play_forced``; their plies count in the
    depth): a repetition is then seen at the end of the forced moves, where the earlier
    node's forced moves ended too. ``out`` is a scratch array of three floats (``_enter``'s
    answer), allocated by the caller: this kernel runs without reference counting."""
    ply = ply0
    ctl[CTL_NODES] += 1
    if _enter(states, bufs, orders, r, ply0, ply, alpha, beta, tb, tt_u, tt_f, tt_i, ctl, ff, fi, fkey, rkey, out):
        return out[0]
    have = False  # a child's value (for this frame's seat) waits in ``res``, its depth in ``resd``
    res = 0.0
    resd = 0
    resref = NO_REF  # and the ply of the earliest repeated node it rests on
    while True:
        done = False
        if have:
            have = False
            if resd + 1 + fi[ply, FR_FORCED] > fi[ply, FR_DEPTH]:
                fi[ply, FR_DEPTH] = resd + 1 + fi[ply, FR_FORCED]
            if resref < fi[ply, FR_REF]:
                fi[ply, FR_REF] = resref
            if fi[ply, FR_CHANCE]:
                ff[ply, FR_TOTAL] += res
            elif res > ff[ply, FR_BEST]:
                ff[ply, FR_BEST] = res
                fi[ply, FR_BESTMOVE] = bufs[ply][orders[ply][fi[ply, FR_K] - 1]]
                if res > ff[ply, FR_ALPHA]:
                    ff[ply, FR_ALPHA] = res
                    if res >= ff[ply, FR_BETA]:
                        done = True
                        if fi[ply, FR_KILLER] != fi[ply, FR_BESTMOVE]:
                            fi[ply, FR_KILLER2] = fi[ply, FR_KILLER]
                            fi[ply, FR_KILLER] = fi[ply, FR_BESTMOVE]
        if not done and fi[ply, FR_K] == fi[ply, FR_N] and fi[ply, FR_STAGE] == 1:
            # the table's move did not settle the node: the other moves, ordered
            s = states[ply]
            moves = bufs[ply]
            first = moves[0]
            n = drop_twins(s, r, moves, generate_moves(s, r, moves))
            j = 0
            for i in range(n):
                if moves[i] != first:
                    moves[j] = moves[i]
                    j += 1
            kept = order_moves(s, r, moves, j, orders[ply], states[ply + 1], fi[ply, FR_SEAT], -1, False,
                               ff[ply, FR_BETA] <= 0.0, ff[ply, FR_ALPHA] >= 0.0, fi[ply, FR_KILLER],
                               fi[ply, FR_KILLER2])
            if kept < j:  # the moves left out, worth at most 0 <= alpha (see _enter)
                ff[ply, FR_BEST] = max(ff[ply, FR_BEST], 0.0)
                fi[ply, FR_DEPTH] = max(fi[ply, FR_DEPTH], 1)
            fi[ply, FR_N] = kept
            fi[ply, FR_K] = 0
            fi[ply, FR_STAGE] = 0
            continue
        if done or fi[ply, FR_K] == fi[ply, FR_N]:
            # the node is finished: its value, stored unless it rests on a repetition of
            # an earlier node, goes to the parent
            work = ctl[CTL_NODES] - fi[ply, FR_NODES]
            clean = fi[ply, FR_REF] >= ply
            if fi[ply, FR_CHANCE]:
                v = ff[ply, FR_TOTAL] / fi[ply, FR_N]
                if clean:
                    _store(tt_u, tt_f, tt_i, fkey[ply], v, TT_EXACT, -1, tb + 1, states[ply][F_ACTIONS],
                           fi[ply, FR_DEPTH], work)
            else:
                v = ff[ply, FR_BEST]
                if v <= ff[ply, FR_ALPHA0]:
                    flag = TT_UPPER
                elif v >= ff[ply, FR_BETA]:
                    flag = TT_LOWER
                else:
                    flag = TT_EXACT
                if clean:
                    _store(tt_u, tt_f, tt_i, fkey[ply], v, flag, fi[ply, FR_BESTMOVE], tb + 1,
                           states[ply][F_ACTIONS], fi[ply, FR_DEPTH], work)
            if ply == ply0:
                return v
            resd = fi[ply, FR_DEPTH]
            resref = fi[ply, FR_REF]
            ply -= 1
            res = -v if fi[ply, FR_FLIP] else v
            have = True
            continue
        # the next child
        s = states[ply]
        k = fi[ply, FR_K]
        fi[ply, FR_K] = k + 1
        m = bufs[ply][orders[ply][k]]
        child = states[ply + 1]
        copy_state(child, s)
        apply_move(child, r, m)
        before = ctl[CTL_NODES]
        ctl[CTL_NODES] += 1
        fi[ply, FR_FORCED] = play_forced(child, r, bufs[ply + 1], ctl)
        if (before | CHECK_EVERY) < ctl[CTL_NODES]:  # a multiple of CHECK_EVERY + 1 was passed
            if ctl[CTL_STOP] != 0 or (ctl[CTL_BUDGET] > 0 and ctl[CTL_NODES] >= ctl[CTL_BUDGET]):
                ctl[CTL_ABORTED] = 1
                return 0.0  # nothing more is stored; the caller sees the flag
        seat = fi[ply, FR_SEAT]
        if child[F_PHASE] == PH_OVER:
            res = terminal_value(child, seat, tb)
            resd = 0
            resref = NO_REF
            have = True
            continue
        flip = node_seat(child) != seat
        fi[ply, FR_FLIP] = 1 if flip else 0
        if fi[ply, FR_CHANCE]:
            ca, cb = -INF, INF
        elif flip:
            ca, cb = -ff[ply, FR_BETA], -ff[ply, FR_ALPHA]
        else:
            ca, cb = ff[ply, FR_ALPHA], ff[ply, FR_BETA]
        if _enter(states, bufs, orders, r, ply0, ply + 1, ca, cb, tb, tt_u, tt_f, tt_i, ctl, ff, fi, fkey, rkey, out):
            res = -out[0] if flip else out[0]
            resd = np.int64(out[1])
            resref = np.int64(out[2])
            have = True
            continue
        ply += 1


@njit(cache=True)
def root_moves(states, orders, r, moves):
    """The legal moves of ``states[0]`` into ``moves``, in search order; returns how many."""
    s = states[0]
    n = generate_moves(s, r, moves)
    order = orders[0]
    order_moves(s, r, moves, n, order, states[1], node_seat(s), np.int64(-1), False, False, False, np.int64(-1),
                np.int64(-1))
    tmp = orders[1]
    for i in range(n):
        tmp[i] = moves[order[i]]
    for i in range(n):
        moves[i] = tmp[i]
    return n


@njit(cache=True, nogil=True, nrt=True)
def solve_moves(states, bufs, orders, r, moves, n, lo, hi, tb, values, done,
                tt_u, tt_f, tt_i, ctl, ff, fi, fkey, rkey):
    """Search every root move ``moves[i]`` of ``states[0]`` not yet ``done`` with the window
    (lo[i], hi[i]) for the actor; ``values[i]`` gets the value (exact when inside the window)
    and ``done[i]`` 1, until a budget runs out (``ctl[CTL_ABORTED]``)."""
    s = states[0]
    seat = node_seat(s)
    child = states[1]
    out = np.zeros(3, dtype=np.float64)
    for i in range(n):
        if done[i]:
            continue
        copy_state(child, s)
        apply_move(child, r, moves[i])
        ctl[CTL_NODES] += 1
        if child[F_PHASE] == PH_OVER:
            v = terminal_value(child, seat, tb)
        elif node_seat(child) == seat:
            v = negamax(states, bufs, orders, r, 1, lo[i], hi[i], tb, tt_u, tt_f, tt_i, ctl, ff, fi, fkey, rkey, out)
        else:
            v = -negamax(states, bufs, orders, r, 1, -hi[i], -lo[i], tb, tt_u, tt_f, tt_i, ctl, ff, fi, fkey, rkey,
                         out)
        if ctl[CTL_ABORTED] != 0:
            break
        values[i] = v
        done[i] = 1


@njit(cache=True)
def principal_line(s, r, buf, tt_u, tt_f, tt_i, gen, draw, out):
    """Follow the table's exact best moves of generation ``gen`` (the pass: 1 without the
    tie-break, 2 with it) from ``s`` (changed in place); write them to ``out`` and return
    how many. On a ``draw``'s line (every node on it is a draw) a lower bound of 0 will do
    too: its move keeps the draw (a defender's node that failed high on a move after which
    the opponent can never win stores only that). A decision of one legal move plays it
    (the search plays those through and stores nothing for them). Where the table has no
    such entry but neither seat can ever win (``cannot_win``), every line is a draw: the
    line goes on with the passive moves (a pass, a draw, letting a one-off resolve, or the
    first move). Stops at the end, a chance node, or a missing entry."""
    k = 0
    while k < out.shape[0] and s[F_PHASE] != PH_OVER and s[F_ACTOR] != ACTOR_CHANCE:
        key = state_key(s, gen - 1)
        slot = _probe(tt_u, tt_i, key, gen)
        n = generate_moves(s, r, buf)
        m = np.int64(-1)
        if slot >= 0 and (tt_f[slot, TT_LO] == tt_f[slot, TT_HI] or (draw and tt_f[slot, TT_LO] >= 0.0)):
            m = tt_i[slot, TT_MOVE]
            legal = False
            for i in range(n):
                if buf[i] == m:
                    legal = True
                    break
            if not legal:
                break
        elif n == 1:  # a forced move (the search keeps no entry for it)
            m = buf[0]
        elif passive_applies(s, r) and cannot_win(s, r, 0) and cannot_win(s, r, 1):
            m = buf[0]
            for i in range(n):
                mt = buf[i] & MT_MASK
                if mt == MT_PASS or mt == MT_DRAW or mt == MT_RESOLVE:
                    m = buf[i]
                    break
        else:
            break
        apply_move(s, r, m)
        out[k] = m
        k += 1
    return k
