"""Views: what one seat sees of a full position (engine.info), for any number of seats."""

import numpy as np
import pytest

from cuttle_search.engine import info as I
from cuttle_search.engine import layout as L
from cuttle_search.engine.apply import apply_move
from cuttle_search.engine.movegen import generate_moves
from cuttle_search.engine.setup import BLANK_STATE
from cuttle_search.game.position import Position
from cuttle_search.game.rules import get_ruleset


def _via_file(pos: Position, seat: int) -> Position:
    """The view as a position file would give it: the full position written with ``??`` in
    every place the seat cannot see, and loaded back (the oracle for ``view_of``)."""
    d = pos.to_dict()
    s = pos.state
    for q in range(2):
        if q == seat:
            continue
        visible = int(I.visible_in_hand(s, pos.rules_array, seat, q))
        hidden = int(s[L.F_HAND + q]) & ~visible
        d[f"p{q}Hand"] = [c for c in d[f"p{q}Hand"] if L.bit(_id(c)) & visible] + ["??"] * bin(hidden).count("1")
    known = int(s[L.F_DECK_KNOWN])
    d["deck"] = d["deck"][:known] + ["??"] * (len(d["deck"]) - known)
    d["view"] = f"p{seat}"
    d.pop("deckKnown", None)
    own = d.get("known", {}).get(f"p{seat}")
    d["known"] = {f"p{seat}": own} if own else {}
    return Position.from_dict(d, rules=pos.rules)


def _id(text: str) -> int:
    from cuttle_search.game.cards import parse_card

    return parse_card(text)


@pytest.mark.parametrize("rules", ["cuttle-cards", "classic", "cuttle-cards-2", "bga-balanced", "bga-traditional",
                                   "cuttle-cards:four=random"])
def test_view_of_equals_the_view_a_file_gives(rules):
    rs = get_ruleset(rules)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    compared = 0
    for seed in range(25):
        pos = Position.deal(rs, seed=seed)
        rng = np.random.default_rng(seed)
        while not pos.is_over:
            for seat in (0, 1):
                fast, slow = pos.view_of(seat), _via_file(pos, seat)
                assert np.array_equal(fast.state, slow.state), (rules, seed, seat)
                assert fast.hidden == slow.hidden and fast.unknown_cards == slow.unknown_cards
                assert fast.to_dict() == slow.to_dict()
                compared += 1
            n = generate_moves(pos.state, pos.rules_array, buf)
            apply_move(pos.state, pos.rules_array, buf[rng.integers(n)])
    assert compared > 1000


@pytest.mark.parametrize("seats", range(2, 9))
def test_views_and_unseen_cards_for_two_to_eight_seats(seats):
    """Seat helpers for N seats: each seat sees its own hand, public cards of the others,
    everything with glasses, and the deck's known top; unseen cards are re-placed
    canonically and counted per seat."""
    R = get_ruleset("cuttle-cards").to_array()
    R[L.R_NPLAYERS] = seats
    rng = np.random.default_rng(seats)
    s = BLANK_STATE.copy()
    s[L.F_NPLAYERS] = seats
    cards = rng.permutation(52)
    per = 4
    for q in range(seats):
        hand = cards[q * per : (q + 1) * per]
        s[L.F_HAND + q] = sum(1 << int(c) for c in hand)
        s[L.F_PUBLIC + q] = 1 << int(hand[0])  # each seat has one known card
    deck = cards[seats * per :]
    s[L.F_DECK_N] = len(deck)
    s[L.F_DECK : L.F_DECK + len(deck)] = deck
    s[L.F_DECK_KNOWN] = 2
    for viewer in range(seats):
        out = np.empty_like(s)
        counts = np.zeros(L.MAX_PLAYERS, np.int64)
        unknown = int(I.view_state(s, R, viewer, out, counts))
        others = [q for q in range(seats) if q != viewer]
        expect = 0
        for q in others:
            expect |= int(s[L.F_HAND + q]) & ~int(s[L.F_PUBLIC + q])
        for i in range(len(deck) - 2):
            expect |= 1 << int(s[L.F_DECK + i])
        assert unknown == expect
        assert counts[viewer] == 0 and all(counts[q] == per - 1 for q in others)
        assert out[L.F_HAND + viewer] == s[L.F_HAND + viewer]
        for q in others:  # the known card stays, the hidden ones are replaced, the count kept
            assert out[L.F_HAND + q] & s[L.F_PUBLIC + q] == s[L.F_PUBLIC + q]
            assert bin(int(out[L.F_HAND + q])).count("1") == per
        placed = 0
        for q in range(seats):
            placed |= int(out[L.F_HAND + q])
        placed |= sum(1 << int(out[L.F_DECK + i]) for i in range(len(deck)))
        assert placed == (1 << 52) - 1  # still every card exactly once
        assert [int(out[L.F_DECK + len(deck) - 1 - i]) for i in range(2)] == [int(deck[-1]), int(deck[-2])]
        s2 = s.copy()
        s2[L.F_FACE + viewer] = 1 << 28  # glasses (8C) show every hand
        assert int(I.unseen_cards(s2, R, viewer)) == expect & ~sum(int(s[L.F_HAND + q]) for q in others)


def test_a_private_top_card_and_hands_at_deck_out_in_cutthroat():
    """Cutthroat: the top card a 7 put back is known to its player alone, and an empty deck
    reveals no hand (two-seat rulesets reveal every hand then)."""
    from cuttle_search.game.rules import N_SEAT_RULESETS

    r = N_SEAT_RULESETS["cutthroat"].to_array()
    s = BLANK_STATE.copy()
    s[L.F_NPLAYERS] = 3
    s[L.F_HAND + 0], s[L.F_HAND + 1], s[L.F_HAND + 2] = 0b111, 0b111 << 3, 0b111 << 6
    deck = [20, 21, 22]
    s[L.F_DECK : L.F_DECK + 3] = deck
    s[L.F_DECK_N] = 3
    s[L.F_TOP_SEEN_BY] = 1
    assert int(I.unseen_cards(s, r, 1)) & (1 << 22) == 0  # p1 knows the top card
    assert int(I.unseen_cards(s, r, 0)) & (1 << 22) and int(I.unseen_cards(s, r, 2)) & (1 << 22)
    out = np.empty_like(s)
    counts = np.zeros(L.MAX_PLAYERS, np.int64)
    I.view_state(s, r, 0, out, counts)
    assert out[L.F_TOP_SEEN_BY] == -1  # p1's private knowledge is not in p0's view
    I.view_state(s, r, 1, out, counts)
    assert out[L.F_TOP_SEEN_BY] == 1 and out[L.F_DECK + 2] == 22
    s[L.F_DECK_N] = 0
    s[L.F_DECK : L.F_DECK + 3] = -1
    s[L.F_TOP_SEEN_BY] = -1
    s[L.F_SCRAP] = (1 << 20) | (1 << 21) | (1 << 22)
    assert not I.sees_hand(s, r, 0, 1)
    two = get_ruleset("cuttle-cards").to_array()
    s2 = s.copy()
    s2[L.F_NPLAYERS] = 2
    assert I.sees_hand(s2, two, 0, 1)


@pytest.mark.parametrize("rules", ["cuttle-cards", "classic"])
def test_a_seven_that_turns_up_the_last_cards_shows_no_hand_until_its_pick(rules):
    # the revealed cards are still the deck's (cuttle.cards keeps them in its deck): the hands
    # show once the pick leaves the deck empty, and not before
    from .helpers import build

    pos = build(rules, p0Hand=["7C", "AC", "QH"], p1Hand=["AD", "5H", "KD"], deck_top=["KS", "4C"][:2 if rules ==
                "cuttle-cards" else 1], rest="scrap", actions=60, turn=30)
    pos.play("one-off 7C")
    pos.play("resolve")
    assert pos.phase_name == "resolvingSeven" and pos.to_dict()["deck"] == []
    assert set(pos.view_of(0).to_dict()["p1Hand"]) == {"??"} and set(pos.view_of(1).to_dict()["p0Hand"]) == {"??"}
    back = _via_file(pos, 0)  # the honest view of that moment loads (it was refused: "the deck is empty")
    assert set(back.to_dict()["p1Hand"]) == {"??"}
    pos.play(next(m for m in pos.legal_moves() if m.text() == "royal KS"))
    empty = pos.to_dict()["deck"] == []
    assert (set(pos.view_of(1).to_dict()["p0Hand"]) != {"??"}) == empty  # shown once the deck is out


def test_a_view_does_not_carry_the_reshuffles_chance_stream():
    # the seed of Cuttle Multiplayer's later reshuffles is no seat's knowledge: a view holds 1,
    # as a loaded position does (the true one let play on a view predict a reshuffle's order)
    rng = np.random.default_rng(5)
    pos = Position.deal("multiplayer:players=3", seed=157)
    while pos.state[L.F_DECK_N] > 0 or pos.state[L.F_SCRAP] == 0:
        codes = pos.legal_codes()
        apply_move(pos.state, pos.rules_array, np.int64(codes[rng.integers(len(codes))]))
        assert not pos.is_over
    assert pos.state[L.F_SHUFFLE_SEED] not in (0, 1)
    for q in range(3):
        view = pos.view_of(q)
        assert view.state[L.F_SHUFFLE_SEED] == 1
        assert Position.from_dict(view.to_dict(), rules=pos.rules).state[L.F_SHUFFLE_SEED] == 1
