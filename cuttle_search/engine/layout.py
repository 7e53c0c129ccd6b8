"""The state layout, the rules array and the move encoding: every constant the engine
and the layers above it share, and the bit helpers. The one layout document.

State layout
============
A game state is one flat ``int64`` array of ``STATE_SIZE`` slots, so cloning a state
is ``s.copy()``. Cards are ids ``rank * 4 + suit`` (ranks A=0 .. K=12, suits C<D<H<S),
so id order is scuttle order. The two Jokers of the games that use them are ``X1`` = 52
and ``X2`` = 53 (``R_JOKERS``). A zone is a 64-bit mask with bit ``id`` set per card.

Game fields (one slot each)::

    F_NPLAYERS      number of seats (2 to MAX_PLAYERS)
    F_DEALER        the seat that dealt (the seat after it acted first)
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
    F_CHAIN_TOP     seat whose card is on top of the chain (the one being countered):
                    the chain's anchor
    F_DECLINES      seats that declined in a row since the chain's last card; the chain
                    ends when every seat but the anchor has (one decline with two seats)
    F_VICTIM        the seat a 4 makes discard, while its discard is pending, or -1
    F_DISCARDS      cards still to discard in a discard phase
    F_REVEALED      mask of cards a 7 revealed, waiting for the pick
    F_SCUTTLE_CARD  pending scuttling card (ten-counters-scuttle option), or -1
    F_SCUTTLE_TARGET its target, or -1
    F_SCRAP         scrap mask
    F_DECK_N        cards in the deck
    F_DECK_KNOWN    how many cards on top of the deck every seat knows (7, 9-to-deck)
    F_TOP_SEEN_BY   the seat that alone knows the deck's top card (a private 7's returned
                    card, ``R_SEVEN_PRIVATE``), or -1; forgotten once the card is drawn
    F_SEVEN         the 7 whose revealed cards wait for the pick, or -1 (it reaches the
                    scrap only once a revealed card is played or scrapped)
    F_RESPONSE      the royal its player's opponents may still send back with a 9
                    (``R_RESPONSE_NINE``: phase ``PH_RESPONSE``, or an answering 9's
                    counter chain), or -1
    F_TWO_BY + i    who played the counter 2 of suit ``i`` in the current chain
                    (``R_COUNTER_COSTS_TURN``), or -1
    F_REMOVED       mask of the cards out of the game (``R_REMOVE_ACE_SIX``)
    F_SHUFFLE_SEED  the state's own chance stream (``R_RESHUFFLE``): it orders every
                    reshuffle of the scrap; nobody knows it, so a search re-draws it

Jack fields, four slots each, indexed by jack suit (jack id = 40 + j)::

    F_JACK_ON + j    point card the jack sits on, or -1
    F_JACK_BY + j    seat that played it
    F_JACK_LEVEL + j height in its stack (0 = bottom)
    F_JACK_TO + j    seat it gave the card to, which controls it while the Jack is on top
                     (its player, unless ``R_GIFT`` named another)

Joker fields, two slots each, indexed by joker (joker id = 52 + k)::

    F_JOKER_ON + k    the card it sits on: a royal (K, Q, glasses 8) or a Jack, or -1
    F_JOKER_BY + k    seat that played it (it controls the stack while on top)
    F_JOKER_LEVEL + k height among the Jokers on the same card (0 = bottom)
    F_JOKER_FROM + k  seat that controlled the card before it (control returns there
                      when this Joker leaves)
    F_JOKER_TO + k    seat it gave the stack to (its player, unless ``R_GIFT`` named another)

A Joker on a royal takes the royal (``F_FACE`` follows control). A Joker on the top Jack of
a point stack takes the point card: a point card's controller is its top Jack's top Joker's
receiver, else its top Jack's receiver, else its owner (a receiver is the attachment's
player unless Team Cuttle's ``R_GIFT`` named another seat).

Per-seat fields, ``MAX_PLAYERS`` slots each, indexed by seat::

    F_HAND + p      hand mask
    F_POINTS + p    point cards p controls (stolen ones included)
    F_FACE + p      royals p controls: Kings, Queens, glasses 8s
    F_OWNED + p     point cards on the table that p played (who gets them back)
    F_PUBLIC + p    cards in p's hand that every player knows
    F_FROZEN + p    mask of the cards p may not play yet (a 9 returned them: each is frozen
                    on its own, so a seat hit by several 9s holds several), 0 for none
    F_SPENT + p     2s p countered with out of turn, waiting before it: its next turn
                    only discards them (``R_COUNTER_COSTS_TURN``)

The deck occupies ``F_DECK .. F_DECK + 53``; ``s[F_DECK + F_DECK_N - 1]`` is the top.

Rules are a second ``int64`` array of ``RULES_SIZE`` slots (``R_*`` below), built by
``cuttle_search.rules``.

Moves are ``int64``: bits 0-3 the move type (MT_*), bit 4 ``FROM_SEVEN`` (the card
comes from a 7's reveal), then either a card (bits 5-10) and a target (bits 11-16),
or, for a move aimed at a seat (a 4's victim with more than two seats), ``TARGET_SEAT +
seat`` as the target,
with 63 meaning none, or, for discards, a card mask from bit 5. A Jack or Joker move of
Team Cuttle names the receiving seat + 1 in bits 17-20 (``make_gift``; 0 means its player).
"""

import numpy as np

from .jit import njit

# ---------------------------------------------------------------- cards
N_CARDS = 52
JOKER_1, JOKER_2 = 52, 53
N_JACKS = 4  # a Jack slot a suit (F_JACK_*)
N_JOKERS = 2  # a slot a Joker (F_JOKER_*)
JOKERS = 3 << 52
NO_CARD = 63
TARGET_SEAT = 54  # a move's target field holds TARGET_SEAT + seat when it names a seat
RANK_ACE, RANK_TWO, RANK_THREE, RANK_FOUR, RANK_FIVE, RANK_SIX = 0, 1, 2, 3, 4, 5
RANK_SEVEN, RANK_EIGHT, RANK_NINE, RANK_TEN = 6, 7, 8, 9
RANK_JACK, RANK_QUEEN, RANK_KING = 10, 11, 12
ALL_CARDS = (1 << 52) - 1
POINT_RANKS = (1 << 40) - 1  # A..T
TWOS = 0xF << 4
NINES = 0xF << 32
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
F_DEALER = 23
F_JACK_ON = 24
F_JACK_BY = 28
F_JACK_LEVEL = 32
F_JOKER_ON = 36
F_JOKER_BY = 38
F_JOKER_LEVEL = 40
F_JOKER_FROM = 42
F_DECLINES = 44
F_VICTIM = 45
F_TOP_SEEN_BY = 46
F_JACK_TO = 47
F_JOKER_TO = 51
F_RESPONSE = 53
F_TWO_BY = 54
F_REMOVED = 58
F_SHUFFLE_SEED = 59
F_HAND = 64
F_POINTS = F_HAND + MAX_PLAYERS
F_FACE = F_POINTS + MAX_PLAYERS
F_OWNED = F_FACE + MAX_PLAYERS
F_PUBLIC = F_OWNED + MAX_PLAYERS
F_FROZEN = F_PUBLIC + MAX_PLAYERS
F_SPENT = F_FROZEN + MAX_PLAYERS
F_DECK = F_SPENT + MAX_PLAYERS
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
PH_RESPONSE = 10  # R_RESPONSE_NINE: an opponent of a royal's player may send it back with a 9

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
R_TEAMS = 25  # 0 every seat for itself; 2 partners sit opposite (engine/seats.py)
R_JOKERS = 26  # the deck holds the two Jokers (54 cards)
R_QUEEN_STOPS_COUNTERS = 27  # a 2 may not counter the one-off of a seat with a Queen
R_ALWAYS_PLAYABLE = 28  # 3, 4, 5 and 7 are playable whatever the scrap, hands and deck
R_SEVEN_PRIVATE = 29  # a 7 reveals to its player only
R_DECIDER_WINS_TIES = 30  # several seats at their goal: the deciding seat first, not the turn's
R_FREEZE_UNTIL_TURN_ENDS = 31  # a 9's card thaws when its holder's own turn ends (not at its next decision)
R_DECKOUT_REVEALS = 32  # every hand is visible once the deck is empty (two seats)
R_GIFT = 33  # a Jack (on any point card) or a Joker (on any royal) names the seat it gives control to
R_RESPONSE_NINE = 34  # an opponent may answer a royal with a 9 out of turn (Team Cuttle)
R_NO_SCUTTLE = 35
R_RESHUFFLE = 36  # an empty draw pile is refilled from the shuffled scrap
R_FOUR_EVERYONE = 37  # a 4 makes every other seat discard, in turn order
R_COUNTER_COSTS_TURN = 38  # a 2 countered out of turn waits before its player, costing their next turn
R_EIGHT_SHOWS_ALL = 39  # an 8 shows the other seats' hands to every seat (not only its player)
R_DISCARD_SINGLY = 40  # the hand-limit discard is one card a decision
R_REMOVE_ACE_SIX = 41  # each shuffle takes one Ace and one Six out of the game
R_DEAL_DEALER = 42  # cards for the dealer (R_DEAL_OTHER: the seats between the first and the dealer)
R_QUEEN_STOPS_NINES = 43  # no 9 may target any card of a seat with a Queen, its Queens included (multiplayer)
R_SEVEN_SCRAPS_EACH = 44  # a 7's revealed Jack or Joker with no target may be scrapped on its own, beside the
#   other card's plays (Cutthroat); else a revealed card is scrapped only when none can be played
RULES_SIZE = 48

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
MT_JOKER = 14  # a Joker onto a royal or a top Jack (target: that card)
MT_FORFEIT = 15  # R_COUNTER_COSTS_TURN: the turn spent discarding the 2s waiting before its seat
MT_MASK = 15
FROM_SEVEN = 16
MAX_MOVES = 2048
ACTION_SPACE_SIZE = 6581  # every move of some game (movegen.action_space); two-seat moves first
GIFT_SEATS = 4  # the seats a Jack or Joker may be given to in the action space (Team Cuttle's four)

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
def copy_into(dst, src):
    """``dst[:] = src`` as a loop (assigning an array to a slice needs Numba's reference
    counting, which the engine's kernels go without: see ``jit``); never past the end of
    either array."""
    for i in range(min(dst.shape[0], src.shape[0])):
        dst[i] = src[i]


@njit(cache=True)
def make_move(mt, card, target):
    return mt | (card << 5) | (target << 11)


RECEIVER_SHIFT = 17  # bits 17-20 of a Jack or Joker move: the receiving seat + 1 (0: its player)


@njit(cache=True)
def make_gift(mt, card, target, receiver):
    """A Jack or Joker move that gives the card's control to seat ``receiver`` (``R_GIFT``)."""
    return mt | (card << 5) | (target << 11) | ((receiver + 1) << RECEIVER_SHIFT)


@njit(cache=True)
def move_receiver(m, player):
    """The seat a Jack or Joker move gives control to: the named receiver, else its ``player``."""
    k = (m >> RECEIVER_SHIFT) & 15
    return player if k == 0 else k - 1


@njit(cache=True)
def move_card(m):
    return (m >> 5) & 63


@njit(cache=True)
def move_target(m):
    return (m >> 11) & 63


@njit(cache=True)
def move_mask(m):
    return m >> 5
