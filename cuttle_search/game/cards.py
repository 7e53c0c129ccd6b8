"""Cards: ids, masks and the cuttle.cards notation.

A card id is ``rank * 4 + suit`` with ranks ``A 2 3 4 5 6 7 8 9 T J Q K`` (0-12) and suits
``C D H S`` (0-3, clubs lowest), so comparing ids is the scuttle order. A set of cards is
a mask: an ``int`` with bit ``id`` set for each card. Jokers (``X1``, ``X2``, ids 52 and 53)
exist only for the multi-player rulesets still to come.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from .errors import CuttleError, brief
from ..engine import layout as L

Card = int
Mask = int

RANKS = "A23456789TJQK"
SUITS = "CDHS"
N_CARDS = 52
JOKERS = (52, 53)
UNKNOWN = "??"

# the ranks: the engine's (engine/layout.py), the one set of rank numbers
ACE, TWO, THREE, FOUR, FIVE, SIX = L.RANK_ACE, L.RANK_TWO, L.RANK_THREE, L.RANK_FOUR, L.RANK_FIVE, L.RANK_SIX
SEVEN, EIGHT, NINE, TEN = L.RANK_SEVEN, L.RANK_EIGHT, L.RANK_NINE, L.RANK_TEN
JACK, QUEEN, KING = L.RANK_JACK, L.RANK_QUEEN, L.RANK_KING


class CardError(CuttleError):
    """A card string that is not a card."""


def card_id(rank: int, suit: int) -> Card:
    return rank * 4 + suit


def rank_of(card: Card) -> int:
    return card >> 2


def suit_of(card: Card) -> int:
    return card & 3


def card_str(card: Card) -> str:
    """``7H``, ``TS``, ``X1``."""
    if card in JOKERS:
        return f"X{card - 51}"
    if not 0 <= card < N_CARDS:
        raise CardError(f"no card has id {card}")
    return RANKS[card >> 2] + SUITS[card & 3]


def parse_card(text: str) -> Card:
    """Parse ``7H``, ``th``, ``10H`` or ``X1``; raise :class:`CardError` otherwise."""
    if not isinstance(text, str):
        raise CardError(f"expected a card string, got {brief(text)}")
    t = text.strip().upper()
    if t in ("X1", "X2"):
        return 51 + int(t[1])
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise CardError(f"unknown card {brief(text)} (expected rank A23456789TJQK and suit CDHS, e.g. 'TH')")
    return card_id(RANKS.index(t[0]), SUITS.index(t[1]))


def bit(card: Card) -> Mask:
    return 1 << card


def mask_of(cards: Iterable[Card]) -> Mask:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_in(mask: Mask) -> Iterator[Card]:
    """The cards of a mask in id order (scan_forward)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def rank_mask(rank: int) -> Mask:
    return 0xF << (rank * 4)


ALL_CARDS: Mask = (1 << N_CARDS) - 1
POINT_CARDS: Mask = (1 << 40) - 1
JACKS: Mask = rank_mask(JACK)
QUEENS: Mask = rank_mask(QUEEN)
KINGS: Mask = rank_mask(KING)
EIGHTS: Mask = rank_mask(EIGHT)
FACE_CARD_RANKS: Mask = EIGHTS | QUEENS | KINGS


def cards_str(mask: Mask) -> str:
    return " ".join(card_str(c) for c in cards_in(mask))
