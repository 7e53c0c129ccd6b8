"""The engine's seat layer for two to eight seats: turn order, opponents and partners, the
returns at the end of a game, the deal order and the determinization of every hidden seat.
Only two-seat rulesets are playable today; these tests hold the N-seat groundwork to its
word before the Cutthroat, Team and Multiplayer rules are built on it."""

import numpy as np
import pytest

from cuttle_search.engine import info as I
from cuttle_search.engine import layout as L
from cuttle_search.engine.movegen import action_space, random_discard_outcomes
from cuttle_search.engine.rng import seed_rng
from cuttle_search.engine.seats import next_rival, next_seat, opponent, opponents, partner, same_side, seat_after
from cuttle_search.engine.setup import BLANK_STATE, deal, deal_size, dealt_to
from cuttle_search.engine.table import seat_returns
from cuttle_search.game.rules import get_ruleset

SEATS = range(2, L.MAX_PLAYERS + 1)


def _state(seats: int) -> np.ndarray:
    s = BLANK_STATE.copy()
    s[L.F_NPLAYERS] = seats
    return s


def _rules(seats: int, teams: int = 0) -> np.ndarray:
    r = get_ruleset("cuttle-cards").to_array()
    r[L.R_NPLAYERS] = seats
    r[L.R_TEAMS] = teams
    r[L.R_DEAL_FIRST] = 6
    r[L.R_DEAL_OTHER] = 5
    r[L.R_DEAL_DEALER] = 5
    return r


@pytest.mark.parametrize("seats", SEATS)
def test_turn_order_visits_every_seat_once_per_round(seats):
    s = _state(seats)
    for p in range(seats):
        order = [p]
        for _ in range(seats - 1):
            order.append(int(next_seat(s, order[-1])))
        assert sorted(order) == list(range(seats))
        assert int(next_seat(s, order[-1])) == p
        assert [int(seat_after(s, p, k)) for k in range(seats)] == order
        assert int(seat_after(s, p, seats + 1)) == order[1]


@pytest.mark.parametrize("seats", SEATS)
def test_everyone_else_is_an_opponent_without_teams(seats):
    s, r = _state(seats), _rules(seats)
    for p in range(seats):
        assert int(partner(s, r, p)) == -1
        assert int(opponents(s, r, p)) == ((1 << seats) - 1) & ~(1 << p)
        assert same_side(s, r, p, p)
        assert not any(same_side(s, r, p, q) for q in range(seats) if q != p)


def test_the_two_seat_opponent_is_the_other_seat():
    s = _state(2)
    assert int(opponent(s, 0)) == 1 and int(opponent(s, 1)) == 0
    assert int(partner(s, _rules(2, teams=2), 0)) == -1  # two seats make no teams


@pytest.mark.parametrize("seats", [4, 6, 8])
def test_partners_sit_opposite(seats):
    s, r = _state(seats), _rules(seats, teams=2)
    for p in range(seats):
        q = int(partner(s, r, p))
        assert q == (p + seats // 2) % seats and int(partner(s, r, q)) == p
        assert same_side(s, r, p, q) and same_side(s, r, q, p)
        assert int(opponents(s, r, p)) == ((1 << seats) - 1) & ~(1 << p) & ~(1 << q)
    if seats == 4:  # Team Cuttle: p0 with p2 against p1 and p3
        assert int(opponents(s, r, 0)) == 0b1010


@pytest.mark.parametrize("seats", SEATS)
@pytest.mark.parametrize("teams", [0, 2])
def test_the_next_rival_is_the_first_seat_of_another_side_in_turn_order(seats, teams):
    s, r = _state(seats), _rules(seats, teams)
    for p in range(seats):
        rivals = [q for q in (int(seat_after(s, p, k)) for k in range(1, seats)) if not same_side(s, r, p, q)]
        assert int(next_rival(s, r, p)) == rivals[0]
        assert int(next_rival(s, r, p)) == int(next_seat(s, p))  # with partners opposite, the next seat


@pytest.mark.parametrize("seats", SEATS)
@pytest.mark.parametrize("teams", [0, 2])
def test_returns_sum_to_zero_and_reward_the_winners_side(seats, teams):
    if teams and (seats % 2 or seats < 4):
        pytest.skip("teams need an even number of seats, four or more")
    s, r = _state(seats), _rules(seats, teams)
    out = np.full(L.MAX_PLAYERS, 9.0)
    s[L.F_PHASE] = L.PH_MAIN
    seat_returns(s, r, out)
    assert list(out[:seats]) == [0.0] * seats  # not over
    s[L.F_PHASE] = L.PH_OVER
    s[L.F_STATUS] = L.ST_STALEMATE_PASSES
    seat_returns(s, r, out)
    assert list(out[:seats]) == [0.0] * seats  # a stalemate
    s[L.F_STATUS] = L.ST_WIN
    for w in range(seats):
        s[L.F_WINNER] = w
        seat_returns(s, r, out)
        assert abs(out[:seats].sum()) < 1e-12
        for q in range(seats):
            if same_side(s, r, w, q):
                assert out[q] == 1.0
            else:
                assert out[q] < 0
    if seats == 2:
        s[L.F_WINNER] = 1
        seat_returns(s, r, out)
        assert list(out[:2]) == [-1.0, 1.0]


@pytest.mark.parametrize("seats", SEATS)
def test_deal_order_matches_the_deal(seats):
    r = _rules(seats)
    s = np.zeros(L.STATE_SIZE, np.int64)
    deal(s, r, np.array([seats], np.uint64))
    sizes = [bin(int(s[L.F_HAND + q])).count("1") for q in range(seats)]
    assert sum(sizes) == int(deal_size(r)) == 6 + 5 * (seats - 1)
    got = [0] * seats
    for k in range(int(deal_size(r))):
        got[int(dealt_to(r, k))] += 1
    assert got == sizes


@pytest.mark.parametrize("seats", SEATS)
def test_determinize_deals_every_hidden_hand_and_keeps_what_the_viewer_knows(seats):
    r = _rules(seats)
    s = np.zeros(L.STATE_SIZE, np.int64)
    deal(s, r, np.array([100 + seats], np.uint64))
    s[L.F_DECK_KNOWN] = 1
    for q in range(seats):  # each seat has one card everybody knows
        s[L.F_PUBLIC + q] = int(s[L.F_HAND + q]) & -int(s[L.F_HAND + q])
    viewer = seats - 1
    unknown = int(I.unseen_cards(s, r, viewer))
    rng = seed_rng(np.uint64(7), 0)
    out = np.empty_like(s)
    cards = np.zeros(64, np.int64)
    where = {}  # unknown card -> how often it landed in each seat's hand (or the deck, -1)
    for _ in range(300):
        I.determinize(s, out, unknown, viewer, rng, cards, 0, 0)
        union = 0
        for q in range(seats):
            hand = int(out[L.F_HAND + q])
            assert bin(hand).count("1") == bin(int(s[L.F_HAND + q])).count("1")
            assert hand & ~unknown == int(s[L.F_HAND + q]) & ~unknown  # known cards stay
            assert union & hand == 0
            union |= hand
        n = int(s[L.F_DECK_N])
        deck = [int(out[L.F_DECK + i]) for i in range(n)]
        assert deck[-1] == int(s[L.F_DECK + n - 1])  # the known top stays
        for c in deck:
            assert not union >> c & 1
            union |= 1 << c
        assert union == (1 << 52) - 1
        assert out[L.F_HAND + viewer] == s[L.F_HAND + viewer]
        for q in range(seats):
            for c in range(52):
                if unknown >> c & 1 and int(out[L.F_HAND + q]) >> c & 1:
                    where.setdefault(c, set()).add(q)
    hidden_seats = {q for q in range(seats) if q != viewer}
    # over 300 deals, unknown cards reach every hidden hand and never the viewer's
    reached = set().union(*where.values())
    assert reached == hidden_seats


def test_the_action_space_lists_every_move_once():
    out = np.zeros(L.ACTION_SPACE_SIZE, np.int64)
    n = int(action_space(out))
    assert n == L.ACTION_SPACE_SIZE
    assert len(set(out.tolist())) == n
    chance = np.zeros(L.ACTION_SPACE_SIZE, np.int64)
    k = int(random_discard_outcomes(chance))
    assert k == 52 + 52 * 51 // 2 + 2 + 52 + 53  # with a Joker: alone, or with one other card
    assert all(int(m) & L.MT_MASK == L.MT_RANDOM_DISCARD for m in chance[:k])
    # every move of random games of every preset and of cutthroat is in the action space
    from cuttle_search.engine.apply import apply_move
    from cuttle_search.engine.movegen import generate_moves
    from cuttle_search.game.rules import PRESETS

    space = set(out.tolist())
    buf = np.zeros(L.MAX_MOVES, np.int64)
    from cuttle_search.game.rules import N_SEAT_RULESETS

    for spec in list(PRESETS) + list(N_SEAT_RULESETS):
        ra = (PRESETS.get(spec) or N_SEAT_RULESETS[spec]).to_array()
        for seed in range(6):
            s = np.zeros(L.STATE_SIZE, np.int64)
            rng = np.random.default_rng(seed)
            deal(s, ra, np.array([seed], np.uint64))
            while s[L.F_PHASE] != L.PH_OVER:
                m = int(generate_moves(s, ra, buf))
                for code in buf[:m]:
                    if int(code) & L.MT_MASK != L.MT_RANDOM_DISCARD:
                        assert int(code) in space, (spec, int(code))
                apply_move(s, ra, buf[rng.integers(m)])


def test_the_action_space_holds_the_moves_of_more_seats():
    """A 2 or a 9 on a Joker, a Joker on a royal or a Jack, a 4 naming each seat."""
    out = np.zeros(L.ACTION_SPACE_SIZE, np.int64)
    space = set(out[: int(action_space(out))].tolist())
    for card in (4, 5, 32, 35):  # 2C, 2D, 9C, 9S
        for joker in (L.JOKER_1, L.JOKER_2):
            assert int(L.make_move(L.MT_ONE_OFF, card, joker)) in space
            assert int(L.make_move(L.MT_ONE_OFF | L.FROM_SEVEN, card, joker)) in space
    assert int(L.make_move(L.MT_JOKER, L.JOKER_2, 41)) in space  # X2 on JD
    assert all(int(L.make_move(L.MT_ONE_OFF, 12, L.TARGET_SEAT + q)) in space for q in range(L.MAX_PLAYERS))
