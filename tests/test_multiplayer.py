"""Cuttle Multiplayer v1.25 (RULES.md 3.0 and 3.3, docs/rules.md "Cuttle Multiplayer"):
a scenario test for every rule and ruling, written from the rules text, for 2 to 8 seats
(``multiplayer:players=N``, 4 by default). Scenarios use the seat-list form
(tests/seat_table.py): set a table, play moves by text, assert the exact zones, the seat
to act and the result."""

from __future__ import annotations

import numpy as np
import pytest

from cuttle_search.engine import layout as L
from cuttle_search.engine.info import sees_hand
from cuttle_search.engine.rng import game_seed
from cuttle_search.engine.setup import BLANK_STATE, check_invariants, deal
from cuttle_search.game.errors import CuttleError
from cuttle_search.game.position import Position
from cuttle_search.game.rules import get_ruleset
from cuttle_search.play.agent import win_share

from .reference import cards_of
from .seat_table import SeatTable, piles_empty

MP = "multiplayer"


def T(hands, points=None, royals=None, rules=MP, **kw) -> SeatTable:
    return SeatTable(rules, hands, points, royals, **kw)


def four(*hands, **kw):
    return T(tuple(hands) + ((),) * (4 - len(hands)), **kw)


# hands that only have to be there: with few cards named, the deck would hold more than the
# deal leaves it and the table's filler would go to the scrap, where a 3 sees it
HANDS = (["4C", "4D", "4H", "4S", "5C", "5D"], ["5H", "5S", "6C", "6D", "6H", "6S", "7C"],
         ["7D", "7H", "7S", "8C", "8D", "8H", "8S"])


# ====================================================================== deal
@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_deal_gives_the_dealer_six_the_others_five_and_the_seat_after_the_dealer_starts(n):
    r = get_ruleset(f"multiplayer:players={n}").array
    s = BLANK_STATE.copy()
    for g in range(30):
        deal(s, r, np.array([game_seed(5, g)], np.uint64))
        assert check_invariants(s, r) == 0
        dealer = int(s[L.F_DEALER])
        sizes = [len(cards_of(s[L.F_HAND + p])) for p in range(n)]
        assert sizes == [6 if p == dealer else 5 for p in range(n)]
        assert s[L.F_TURN] == (dealer + 1) % n and s[L.F_ACTOR] == s[L.F_TURN]
        assert s[L.F_DECK_N] == 52 - 5 * n - 1
        held = set()
        for p in range(n):
            held |= set(cards_of(s[L.F_HAND + p]))
        deck = {int(s[L.F_DECK + i]) for i in range(int(s[L.F_DECK_N]))}
        assert held | deck == set(range(52)) and not held & deck  # 52 cards, no Jokers


def test_players_option_takes_two_to_eight_seats():
    assert get_ruleset(MP).players == 4
    for n in (2, 8):
        assert get_ruleset(f"multiplayer:players={n}").players == n
    for bad in ("1", "9", "x"):
        with pytest.raises(CuttleError):
            get_ruleset(f"multiplayer:players={bad}")


# ====================================================================== goal
@pytest.mark.parametrize("kings,goal,points", [(0, 21, ["TC", "TD"]), (1, 14, ["TC", "3C"]), (2, 10, ["9C"]),
                                               (3, 7, ["6C"]), (4, 5, ["4C"])])
def test_goal_is_21_14_10_7_5_by_kings(kings, goal, points):
    t = four(["AH"], ["9D"], royals={0: ["KC", "KD", "KH", "KS"][:kings]}, points={0: points})
    assert t.goal(0) == goal and t.goal(1) == 21 and t.score(0) == goal - 1 and not t.over
    t.play("points AH")
    assert t.result() == (L.ST_WIN, 0)


def test_a_fourth_king_with_five_points_wins_at_once():
    t = four(["KS"], ["9D"], royals={0: ["KC", "KD", "KH"]}, points={0: ["3C", "2C"]})
    assert t.goal(0) == 7 and not t.over
    t.play("royal KS")
    assert t.result() == (L.ST_WIN, 0)


# ====================================================================== turn
def test_there_is_no_scuttle():
    t = four(["TC", "9C"], ["9D"], points={1: ["2D"], 2: ["3H"], 3: ["AS"]})
    assert not t.with_prefix("scuttle")
    assert t.moves() == {"draw", "points TC", "points 9C"}  # (a 9 only aims at permanents)


def test_hand_limit_seven_discards_one_card_a_decision_at_the_end_of_the_turn():
    # p0 holds 8 (a 9 pushed it over during another seat's turn); it draws to 9, then
    # discards down to 7, one card a decision
    t = four(["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C"], ["9D"], deck_top=["TC"])
    t.play("draw")
    assert t.phase == "discardingToHandLimit" and t.actor == 0 and t.turn == 0
    assert t.moves() == {f"discard {c}" for c in t.hand(0)}
    t.play("discard AC")
    assert t.phase == "discardingToHandLimit" and len(t.hand(0)) == 8
    t.play("discard TC")
    assert t.phase == "main" and t.turn == 1 and len(t.hand(0)) == 7 and t.scrap() == ["AC", "TC"]


def test_drawing_at_seven_is_allowed():
    t = four(["AC", "2C", "3C", "4C", "5C", "6C", "7C"], ["9D"], deck_top=["TC"])
    assert "draw" in t.moves()
    t.play("draw", "discard 7C")
    assert len(t.hand(0)) == 7 and t.turn == 1


def test_a_seat_pushed_over_seven_out_of_turn_discards_only_at_the_end_of_its_own_turn():
    t = four(["9C"], ["AD", "2D", "3D", "4D", "5D", "6D", "7D"], royals={1: ["KD"]}, deck_top=["TC", "TH"])
    t.play("one-off 9C KD", "resolve", "resolve", "resolve")
    assert len(t.hand(1)) == 8 and t.turn == 1 and t.phase == "main" and t.frozen(1) == []
    t.play("royal KD")
    assert t.turn == 2 and len(t.hand(1)) == 7  # its own action brought it back to 7


# ====================================================================== the reshuffle
def test_a_draw_from_an_empty_pile_shuffles_the_scrap_into_a_new_pile():
    t = four(["9C"], ["9D"], ["9H"], ["9S"], rest="scrap")
    scrap_before = t.scrap()
    assert len(scrap_before) == 48 and t.deck() == []
    assert "draw" in t.moves() and "pass" not in t.moves()
    t.play("draw")
    assert t.scrap() == [] and len(t.deck()) == 47 and len(t.hand(0)) == 2
    assert sorted(t.deck() + t.hand(0)[:0] + [c for c in t.hand(0) if c != "9C"], key=scrap_before.index) \
        == scrap_before
    assert t.card_count() == 52 and int(t.s[L.F_DECK_KNOWN]) == 0
    for viewer in range(4):  # nobody knows the new order
        if viewer:
            assert set(t.pos.view_of(viewer).to_dict()["deck"]) == {"??"}


def test_the_same_chance_stream_gives_the_same_shuffle_and_another_stream_another():
    orders = set()
    for seed in range(1, 6):
        runs = []
        for _ in range(2):
            t = four(["9C"], ["9D"], ["9H"], ["9S"], rest="scrap")
            t.s[L.F_SHUFFLE_SEED] = seed
            t.play("draw")
            runs.append(tuple(t.hand(0) + t.deck()))
        assert runs[0] == runs[1]
        orders.add(runs[0])
    assert len(orders) == 5


def test_a_seeded_game_reproduces_its_reshuffles():
    def game(seed):
        pos = Position.deal("multiplayer:players=8", seed=seed)
        rng = np.random.default_rng(seed)
        shuffled = False
        while not pos.is_over:
            before = int(pos.state[L.F_DECK_N])
            moves = pos.legal_moves()
            pos.push(moves[int(rng.integers(len(moves)))])
            shuffled |= int(pos.state[L.F_DECK_N]) > before
        return pos.to_json(), shuffled

    results = [game(s) for s in range(12)]
    assert any(shuffled for _, shuffled in results)
    assert [game(s) for s in range(12)] == results


def test_a_five_that_empties_the_pile_goes_on_drawing_from_the_reshuffled_scrap():
    t = four(["5C", "3C"], ["9D"], deck_top=["TH"], scrap=["AD"], rest="scrap")
    # the deck is ["TH"]; the scrap holds AD and every unnamed card
    t.play("one-off 5C", "resolve", "resolve", "resolve")
    hand = t.hand(0)
    assert len(hand) == 3 and "TH" in hand and "3C" in hand
    assert t.card_count() == 52
    # a one-off reaches the scrap once it has resolved: the reshuffle its own draws set off
    # took the rest of the scrap but not the 5, which is now the scrap's only card
    assert t.scrap() == ["5C"] and "5C" not in t.deck() + hand


def test_a_five_on_both_empty_piles_draws_nothing_and_is_not_drawn_back():
    t = piles_empty(MP, ["5C", "3C"])
    before = t.hand(0)
    assert t.deck() == [] and t.scrap() == [] and "5C" in before
    t.play("one-off 5C", "resolve", "resolve", "resolve")
    assert t.hand(0) == [c for c in before if c != "5C"] and t.deck() == [] and t.scrap() == ["5C"]
    assert t.card_count() == 52


def test_a_five_whose_draws_reshuffle_a_one_card_scrap_draws_that_card_only():
    t = piles_empty(MP, ["5C", "3C"], scrap=["TC"])
    before = t.hand(0)
    t.play("one-off 5C", "resolve", "resolve", "resolve")
    assert sorted(t.hand(0)) == sorted([c for c in before if c != "5C"] + ["TC"])
    assert t.deck() == [] and t.scrap() == ["5C"]
    assert t.card_count() == 52


def test_a_seven_on_an_empty_pile_reshuffles_and_draws():
    t = piles_empty(MP, ["7C"], scrap=["TC"])
    assert t.deck() == [] and t.scrap() == ["TC"]
    t.play("one-off 7C", "resolve", "resolve", "resolve")
    assert t.phase == "resolvingSeven" and t.moves() == {"points TC"}  # the scrap's only card
    t.play("points TC")
    assert "TC" in t.points(0) and t.scrap() == ["7C"] and t.card_count() == 52


def test_a_seven_with_both_piles_empty_does_nothing():
    t = piles_empty(MP, ["7C"])
    hand = t.hand(0)
    assert t.deck() == [] and t.scrap() == []
    t.play("one-off 7C", "resolve", "resolve", "resolve")
    assert t.scrap() == ["7C"] and t.hand(0) == [c for c in hand if c != "7C"] and t.turn == 1 and t.phase == "main"


def test_pass_only_when_both_piles_are_empty():
    t = four(["9C"], ["9D"], ["9H"], ["9S"], rest="scrap")
    assert "pass" not in t.moves() and "draw" in t.moves()
    t = piles_empty(MP, ["9C"])
    assert "pass" in t.moves() and "draw" not in t.moves()


def test_the_pass_limit_is_n_plus_one():
    for n in range(2, 9):
        assert get_ruleset(f"multiplayer:players={n}").array[L.R_PASS_LIMIT] == n + 1


@pytest.mark.parametrize("n", [3, 4, 8])
def test_n_plus_one_consecutive_passes_end_in_a_stalemate(n):
    t = piles_empty(f"multiplayer:players={n}", ["9C"])
    for _ in range(n):
        t.play("pass")
        assert not t.over
    t.play("pass")
    assert t.result() == (L.ST_STALEMATE_PASSES, -1)
    assert all(win_share(t.s, t.rules.array, p) == pytest.approx(1 / n) for p in range(n))
    words = {3: "four", 4: "five", 8: "nine"}[n]
    assert t.pos.result() == {"status": f"stalemate ({words} passes)", "winner": None}  # the game's own count


# ====================================================================== remove-ace-six
@pytest.mark.parametrize("n", [4, 8])
def test_remove_ace_six_takes_an_ace_and_a_six_out_at_the_deal(n):
    r = get_ruleset(f"multiplayer:players={n},remove-ace-six").array
    s = BLANK_STATE.copy()
    for g in range(30):
        deal(s, r, np.array([game_seed(9, g)], np.uint64))
        assert check_invariants(s, r) == 0
        removed = cards_of(s[L.F_REMOVED])
        assert sorted(c >> 2 for c in removed) == [0, 5]
        held = set()
        for p in range(n):
            held |= set(cards_of(s[L.F_HAND + p]))
        deck = {int(s[L.F_DECK + i]) for i in range(int(s[L.F_DECK_N]))}
        assert len(held) == 5 * n + 1 and len(held) + len(deck) == 50
        assert held | deck | set(removed) == set(range(52))


def test_remove_ace_six_at_a_reshuffle_takes_one_ace_and_one_six_of_the_scrap():
    scrap = ["AC", "AD", "6H", "9C"]
    dealt = ["AS", "6S"]  # the deal's shuffle took these out
    t = piles_empty("multiplayer:remove-ace-six", ["TS"], scrap=scrap, removed=dealt)
    assert t.deck() == [] and t.removed() == dealt
    before = t.hand(0)
    t.play("draw")
    drawn = [c for c in t.hand(0) if c not in before]
    now = set(t.removed()) - set(dealt)
    assert len(now) == 2 and {c[0] for c in now} == {"A", "6"} and "6H" in now
    assert len(drawn) == 1 and sorted(t.deck() + drawn) == sorted(set(scrap) - now)
    assert t.card_count() == 52


def test_with_remove_ace_six_a_scrap_of_only_an_ace_and_a_six_brings_nothing_back_so_the_seat_passes():
    t = piles_empty("multiplayer:remove-ace-six", ["TS"], scrap=["AC", "6D"], removed=["AS", "6S"])
    assert "draw" not in t.moves() and "pass" in t.moves()
    t2 = piles_empty("multiplayer:remove-ace-six", ["TS"], scrap=["AC", "AD"], removed=["AS", "6S"])  # the second Ace stays
    assert "draw" in t2.moves() and "pass" not in t2.moves()


@pytest.mark.parametrize("n", [2, 3])
def test_remove_ace_six_is_refused_for_fewer_than_four_seats(n):
    with pytest.raises(CuttleError):
        get_ruleset(f"multiplayer:players={n},remove-ace-six")


# ====================================================================== one-offs
def test_the_ace_scraps_every_point_card_its_players_too():
    t = four(["AC"], ["9D"], points={0: ["9C"], 1: ["TD(JH-p2)"], 3: ["2S"]}, royals={1: ["QD"]})
    t.play("one-off AC", "resolve", "resolve", "resolve")
    assert [t.points(p) for p in range(4)] == [[], [], [], []]
    assert t.scrap() == ["AC", "9C", "2S", "TD", "JH"] or sorted(t.scrap()) == sorted(["AC", "9C", "2S", "TD", "JH"])
    assert t.royals(1) == ["QD"]


def test_the_two_scraps_a_permanent_of_another_player_only():
    t = four(["2C"], ["9D"], points={0: ["TC(JD-p1)"], 1: ["5D"]}, royals={0: ["KC"], 1: ["8D"], 2: ["KH"]})
    assert t.with_prefix("one-off 2C") == {"one-off 2C 8D", "one-off 2C KH", "one-off 2C JD"}
    t.play("one-off 2C JD", "resolve", "resolve", "resolve")
    assert t.points(0) == ["TC"] and sorted(t.scrap()) == ["2C", "JD"]


def test_the_three_takes_any_card_of_the_scrap_a_three_too_shown_to_all():
    t = four(["3C"], ["9D", *HANDS[0]], HANDS[1], HANDS[2], scrap=["3D", "KH"])
    t.play("one-off 3C", "resolve", "resolve", "resolve")
    assert t.moves() == {"take 3D", "take KH"}  # (the 3 itself goes after its pick)
    t.play("take 3D")
    assert t.hand(0) == ["3D"] and t.public(0) == ["3D"] and t.scrap() == ["3C", "KH"]
    assert t.pos.view_of(1).to_dict()["seats"][0]["hand"] == ["3D"]


def test_the_three_with_an_empty_scrap_is_playable_and_does_nothing():
    t = four(["3C"], ["9D", *HANDS[0]], HANDS[1], HANDS[2])
    t.play("one-off 3C", "resolve", "resolve", "resolve")
    assert t.scrap() == ["3C"] and t.turn == 1 and t.phase == "main"


def test_the_four_makes_every_other_seat_discard_two_in_turn_order_skipping_empty_hands():
    t = four(["4C"], ["AD", "2D", "3D"], [], ["AS"], turn=0)
    t.play("one-off 4C", "resolve", "resolve", "resolve")
    assert t.phase == "resolvingFour" and t.actor == 1
    assert t.moves() == {"discard AD 2D", "discard AD 3D", "discard 2D 3D"}
    t.play("discard AD 3D")
    assert t.actor == 3 and t.moves() == {"discard AS"}  # p2 skipped; p3 gives its one card
    t.play("discard AS")
    assert t.hand(1) == ["2D"] and t.hand(3) == [] and sorted(t.scrap()) == sorted(["4C", "AD", "3D", "AS"])
    assert t.phase == "main" and t.turn == 1


def test_the_four_starts_from_the_seat_after_its_player():
    t = four(["AC", "2C"], ["AD", "2D"], ["4H"], ["AS", "2S"], turn=2)
    t.play("one-off 4H", "resolve", "resolve", "resolve")
    order = []
    while t.phase == "resolvingFour":
        order.append(t.actor)
        t.play(sorted(t.moves())[0])
    assert order == [3, 0, 1] and t.turn == 3


def test_the_five_draws_two_without_a_discard():
    t = four(["5C", "9C"], ["9D"], deck_top=["AH", "2H", "3H"])
    t.play("one-off 5C", "resolve", "resolve", "resolve")
    assert t.hand(0) == ["AH", "2H", "9C"] and t.deck()[0] == "3H" and t.turn == 1


def test_the_six_scraps_every_permanent_and_stolen_points_go_home():
    t = four(["6C"], ["9D"], points={0: ["TC(JD-p1)"], 2: ["5H"]}, royals={1: ["KD", "QD"], 3: ["8S"]})
    t.play("one-off 6C", "resolve", "resolve", "resolve")
    assert t.points(0) == ["TC"] and t.points(1) == [] and all(t.royals(p) == [] for p in range(4))
    assert sorted(t.scrap()) == sorted(["6C", "JD", "KD", "QD", "8S"])


def test_the_seven_draws_one_card_seen_by_all_that_must_be_played():
    t = four(["7C"], ["9D"], deck_top=["TH", "AS"])
    t.play("one-off 7C", "resolve", "resolve", "resolve")
    assert t.phase == "resolvingSeven" and t.moves() == {"points TH"}
    assert t.pos.view_of(2).to_dict()["revealed"] == ["TH"]
    t.play("points TH")
    assert t.points(0) == ["TH"] and t.deck()[0] == "AS" and t.scrap() == ["7C"] and t.turn == 1


def test_the_sevens_jack_with_no_target_is_discarded():
    t = four(["7C"], ["9D"], deck_top=["JH"])
    t.play("one-off 7C", "resolve", "resolve", "resolve")
    assert t.moves() == {"scrap JH"}
    t.play("scrap JH")
    assert sorted(t.scrap()) == ["7C", "JH"] and t.turn == 1


def test_the_sevens_card_may_be_played_to_its_players_disadvantage():
    # the revealed Ace must be played: as points or as a one-off scrapping p0's own 10
    t = four(["7C"], ["9D"], points={0: ["TC"]}, deck_top=["AH"])
    t.play("one-off 7C", "resolve", "resolve", "resolve")
    assert t.moves() == {"points AH", "one-off AH"}


def test_the_nine_returns_a_permanent_to_its_players_hand_unfrozen_never_a_point_card():
    t = four(["9C"], ["3D"], points={1: ["8D"], 2: ["4H(JD-p1)"]}, royals={1: ["KD"]})
    assert t.with_prefix("one-off 9C") == {"one-off 9C KD", "one-off 9C JD"}
    t.play("one-off 9C JD", "resolve", "resolve", "resolve")
    assert t.hand(1) == ["3D", "JD"] and t.frozen(1) == [] and t.points(2) == ["4H"]
    t.play("jack JD 4H")  # p1 may play it again at once
    assert t.points(1) == ["4H", "8D"]


# ====================================================================== counters
def test_anyone_may_counter_in_turn_order_from_the_seat_after_the_one_offs_player():
    t = four(["6C"], ["2D"], ["2H"], ["2S"], turn=0)
    t.play("one-off 6C")
    assert t.actor == 1 and t.moves() == {"resolve", "counter 2D"}
    t.play("resolve")
    assert t.actor == 2 and t.moves() == {"resolve", "counter 2H"}
    t.play("resolve")
    assert t.actor == 3 and t.moves() == {"resolve", "counter 2S"}


def test_a_counter_out_of_turn_waits_before_its_player_and_costs_its_next_turn():
    t = four(["6C", "3C"], ["3D"], ["2H", "9H"], ["3S"], royals={1: ["KD"]}, deck_top=["AC", "AD", "AH", "AS"])
    t.play("one-off 6C", "resolve", "counter 2H", "resolve", "resolve", "resolve")
    assert t.royals(1) == ["KD"] and t.scrap() == ["6C"]  # cancelled: the 6 to the scrap, the 2 waits
    assert t.counters(2) == ["2H"] and t.hand(2) == ["9H"]
    assert t.turn == 1 and t.phase == "main"
    t.play("draw")
    assert t.turn == 2 and t.moves() == {"forfeit"}
    t.play("forfeit")
    assert t.counters(2) == [] and t.scrap() == ["2H", "6C"] and t.hand(2) == ["9H"] and t.turn == 3


def test_a_counter_on_your_own_turn_goes_to_the_scrap():
    t = four(["6C", "2C"], ["2D"], ["3H"], ["3S"], royals={1: ["KD"]})
    t.play("one-off 6C", "counter 2D")
    assert t.actor == 2
    t.play("resolve", "resolve", "counter 2C", "resolve", "resolve", "resolve")
    assert t.royals(1) == [] and t.counters(0) == [] and t.counters(1) == ["2D"]
    assert sorted(t.scrap()) == ["2C", "6C", "KD"] and t.turn == 1 and t.moves() == {"forfeit"}


def test_the_forfeit_turn_still_applies_the_hand_limit():
    t = four(["9C"], ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D"], counters={1: ["2S"]}, turn=1)
    assert t.moves() == {"forfeit"}
    t.play("forfeit")
    assert t.phase == "discardingToHandLimit" and t.actor == 1
    t.play("discard 8D")
    assert t.turn == 2 and t.scrap() == ["2S", "8D"]


def test_a_counter_out_of_turn_waits_in_a_two_seat_game_too():
    t = T((["6C"], ["2D", "3D"]), rules="multiplayer:players=2", royals={1: ["KD"]})
    t.play("one-off 6C", "counter 2D", "resolve")
    assert t.royals(1) == ["KD"] and t.counters(1) == ["2D"] and t.turn == 1 and t.moves() == {"forfeit"}


def test_queens_do_not_stop_counters():
    t = four(["6C"], ["2D"], royals={0: ["QC"]})
    t.play("one-off 6C")
    assert "counter 2D" in t.moves()


# ====================================================================== Queens
# RULES.md 3.3: while a seat controls a Queen, no 9 and no Jack may target any of its cards,
# its Queens included, and a 2 may target only its Queens; a 6 scraps them all as usual.
def test_a_queen_protects_its_players_points_and_permanents_from_two_nine_and_jack():
    t = four(["2C", "9C", "JC"], ["9D"], points={1: ["TD"]}, royals={1: ["QD", "KD"]})
    assert t.with_prefix("one-off 2C") == {"one-off 2C QD"}
    assert t.with_prefix("one-off 9C") == set()  # issue 26: the 9 aimed at the Queen
    assert not t.with_prefix("jack")


def test_a_queen_is_open_to_a_two_even_next_to_another_queen_never_to_a_nine():
    t = four(["2C", "9C", "JC"], ["9D"], points={1: ["TD"]}, royals={1: ["QD", "QH", "KD"]})
    assert t.with_prefix("one-off 2C") == {"one-off 2C QD", "one-off 2C QH"}
    assert t.with_prefix("one-off 9C") == set()  # issue 26: the 9 aimed at either Queen
    assert not t.with_prefix("jack")
    t.play("one-off 2C QH", "resolve", "resolve", "resolve")
    assert t.royals(1) == ["QD", "KD"] and t.scrap() == ["2C", "QH"]


def test_a_nine_still_aims_at_the_seats_without_a_queen():
    t = four(["9C", "JC"], ["9D"], ["3H"], points={1: ["TD"], 2: ["7H"]}, royals={1: ["QD"], 2: ["KH", "8H"]})
    assert t.with_prefix("one-off 9C") == {"one-off 9C KH", "one-off 9C 8H"}
    assert t.with_prefix("jack") == {"jack JC 7H"}
    t.play("one-off 9C KH", "resolve", "resolve", "resolve")
    assert t.hand(2) == ["3H", "KH"] and t.royals(2) == ["8H"] and t.royals(1) == ["QD"]


def test_a_seat_whose_jack_holds_a_queens_seats_card_is_shielded_from_nines_too():
    # p1 controls 7H through its Jack and holds a Queen: neither the Jack nor anything of p1 is a 9's
    t = four(["9C", "2C"], ["9D"], points={2: ["7H(JD-p1)"]}, royals={1: ["QD"]})
    assert t.with_prefix("one-off 9C") == set()
    assert t.with_prefix("one-off 2C") == {"one-off 2C QD"}


def test_a_six_scraps_every_queen_and_what_they_protected():
    t = four(["6C"], ["9D"], points={2: ["7H(JD-p1)"]}, royals={1: ["QD", "QH", "KD"]})
    t.play("one-off 6C", "resolve", "resolve", "resolve")
    assert t.royals(1) == [] and t.points(2) == ["7H"] and t.points(1) == []
    assert t.scrap() == ["6C", "JD", "QD", "QH", "KD"]


def test_two_seats_queens_shield_from_nines_as_well():
    t = T((["9C", "2C"], ["3D"]), rules="multiplayer:players=2", royals={1: ["QD", "KD"]})
    assert t.with_prefix("one-off 9C") == set() and t.with_prefix("one-off 2C") == {"one-off 2C QD"}


def test_a_jack_takes_another_players_point_card_and_stacks():
    t = four(["JC"], ["JD"], points={2: ["TH"]})
    assert t.with_prefix("jack") == {"jack JC TH"}
    t.play("jack JC TH", "jack JD TH")
    assert t.points(1) == ["TH"] and t.stacks(2) == ["TH(JC-p0,JD-p1)"]


# ====================================================================== the 8
def test_the_eight_shows_every_other_hand_to_everyone():
    t = four(["8C", "3C"], ["9D"], ["9H"], ["9S"])
    t.play("glasses 8C")
    r = t.rules.array
    for viewer in range(4):
        for q in range(4):
            assert bool(sees_hand(t.s, r, viewer, q)) == (q != 0 or viewer == 0), (viewer, q)
    seats = t.pos.view_of(2).to_dict()["seats"]
    assert seats[1]["hand"] == ["9D"] and seats[3]["hand"] == ["9S"] and seats[0]["hand"] == ["??"]


def test_hands_are_not_revealed_when_the_piles_run_out():
    t = piles_empty(MP, ["9C"], royal_ranks="Q")
    assert t.deck() == [] and t.scrap() == [] and not any(c[0] == "8" for p in range(4) for c in t.royals(p))
    for viewer in range(4):
        for q in range(4):
            assert bool(sees_hand(t.s, t.rules.array, viewer, q)) == (q == viewer)


# ====================================================================== ties
def test_several_seats_at_their_goal_the_deciding_seat_first():
    # p0's 6 scraps the Jacks: p0 and p2 both get back to 21; the chain ends with p3's decline,
    # so the first of them in turn order after p3 (p0) wins
    t = four(["6C"], ["3D"], ["3H"], ["3S"], points={0: ["TC(JD-p1)", "9C", "2C"], 2: ["TH(JS-p3)", "9H", "2H"]})
    t.play("one-off 6C", "resolve", "resolve", "resolve")
    assert t.result() == (L.ST_WIN, 0)
