"""Team Cuttle (RULES.md 3.0 and 3.2, docs/rules.md "Team Cuttle"): a scenario test for
every rule and ruling, written from the rules text. Partners sit opposite: p0+p2 against
p1+p3. Each scenario sets a table in the seat-list form (tests/seat_table.py), plays
moves by their text (each must be legal) and asserts the exact zones, the seat to act
and the result."""

from __future__ import annotations

import numpy as np
import pytest

from cuttle_search.engine import layout as L
from cuttle_search.engine.info import sees_hand
from cuttle_search.engine.rng import game_seed
from cuttle_search.engine.setup import BLANK_STATE, check_invariants, deal, deal_by
from cuttle_search.game.position import Position
from cuttle_search.game.rules import get_ruleset
from cuttle_search.play.agent import win_share

from .reference import cards_of
from .seat_table import SeatTable

RULES = get_ruleset("team")
R = RULES.array
EMPTY = ((), (), (), ())


def T(hands=EMPTY, points=None, royals=None, **kw) -> SeatTable:
    return SeatTable("team", hands, points, royals, **kw)


# ====================================================================== deal and turns
def test_deal_gives_five_each_from_54_and_the_seat_after_the_dealer_starts():
    s = BLANK_STATE.copy()
    jokers_dealt = 0
    for g in range(40):
        deal(s, R, np.array([game_seed(13, g)], np.uint64))
        assert check_invariants(s, R) == 0
        assert s[L.F_NPLAYERS] == 4
        assert [len(cards_of(s[L.F_HAND + p])) for p in range(4)] == [5, 5, 5, 5]
        assert s[L.F_DECK_N] == 54 - 20
        assert s[L.F_DEALER] == 3 and s[L.F_TURN] == 0 and s[L.F_ACTOR] == 0
        held = 0
        for p in range(4):
            held |= int(s[L.F_HAND + p])
        jokers_dealt += bin(held >> 52).count("1")
        deck = {int(s[L.F_DECK + i]) for i in range(int(s[L.F_DECK_N]))}
        assert deck | set(cards_of(held)) == set(range(54))
    assert jokers_dealt > 0  # the two Jokers are in the game
    for dealer in range(4):
        deal_by(s, R, np.array([5], np.uint64), dealer)
        assert s[L.F_TURN] == (dealer + 1) % 4 and s[L.F_ACTOR] == (dealer + 1) % 4


def test_play_passes_round_the_table_to_the_left():
    t = T((["9C"], ["9D"], ["9H"], ["9S"]), deck_top=["AC", "AD", "AH", "AS", "2C"])
    for p in range(4):
        assert t.turn == p and t.actor == p
        t.play("draw")
    assert [t.hand(p) for p in range(4)] == [["AC", "9C"], ["AD", "9D"], ["AH", "9H"], ["AS", "9S"]]
    assert t.turn == 0 and t.deck()[0] == "2C"


# ====================================================================== goals and the team win
@pytest.mark.parametrize("kings,goal", [(0, 21), (1, 14), (2, 10), (3, 5)])
def test_each_players_goal_comes_from_their_own_kings(kings, goal):
    t = T((["9C"], ["9D"], ["9H"], ["9S"]), royals={0: ["KC", "KD", "KH"][:kings]})
    assert [t.goal(p) for p in range(4)] == [goal, 21, 21, 21]  # the partner's goal is its own


def test_a_fourth_king_wins_at_once():
    t = T((["KS", "3C"], ["9D"], ["9H"], ["9S"]), royals={0: ["KC", "KD", "KH"]})
    t.play("royal KS", "resolve", "resolve")  # p1 and p3 let it stand
    assert t.result() == (L.ST_WIN, 0)


def test_a_team_wins_when_the_partner_meets_their_own_goal():
    t = T((["9C"], ["9D"], ["TH", "5H"], ["9S"]), points={0: ["TC", "TD"], 2: ["6H", "5S"]})
    t.play("draw", "draw")
    assert not t.over and t.score(0) + t.score(2) >= 21  # the partners' points are not pooled
    t.play("points TH")
    assert t.result() == (L.ST_WIN, 2)
    for seat, share in ((0, 1.0), (2, 1.0), (1, 0.0), (3, 0.0)):
        assert win_share(t.s, R, seat) == share


def test_a_partners_own_kings_set_the_goal_a_jack_gift_is_measured_against():
    # p0 hands its 7C to p2, who has one King (goal 14) and 7 points: p2 wins
    t = T((["JH"], ["9D"], ["3H"], ["9S"]), points={0: ["7C"], 2: ["7H"]}, royals={2: ["KH"]})
    t.play("jack JH 7C p2")
    assert t.points(2) == ["7C", "7H"] and not t.over  # the answer window is open
    t.play("resolve", "resolve")
    assert t.result() == (L.ST_WIN, 2)


def _wins_now(t: SeatTable, text: str) -> bool:
    from cuttle_search.engine.policies import wins_now

    code = next(m.code() for m in t.pos.legal_moves() if m.text() == text)
    return bool(wins_now(t.s, R, t.actor, np.int64(code)))


def test_the_win_now_test_reads_a_jack_gift_by_its_receivers_goal():
    # the search's cheap test that a move wins (decisive moves, rollouts, inference) measures
    # a gift against the receiver: p2 (one King, goal 14, 7 points) wins with p1's 7C, p0
    # (no points) does not
    t = T((["JH"], ["9D"], ["3H"], ["9S"]), points={1: ["7C"], 2: ["7H"]}, royals={2: ["KH"]})
    assert _wins_now(t, "jack JH 7C p2") and not _wins_now(t, "jack JH 7C p0")
    from cuttle_search.engine.policies import could_win_now

    assert could_win_now(t.s, R, 0)  # p0 is far from its goal, its partner is not
    t.play("jack JH 7C p2", "resolve", "resolve")
    assert t.result() == (L.ST_WIN, 2)
    # and the other way round: p0 on 16 wins by keeping the 5D, not by handing it to p2
    u = T((["JH"], ["9D"], ["3H"], ["9S"]), points={0: ["9C", "7S"], 1: ["5D"]})
    assert _wins_now(u, "jack JH 5D p0") and not _wins_now(u, "jack JH 5D p2")
    u.play("jack JH 5D p2", "resolve", "resolve")
    assert not u.over
    # a gift that brings an opponent to its goal wins for the opponent, never for the giver
    v = T((["JH"], ["9D"], ["3H"], ["9S"]), points={0: ["9C", "3C"], 1: ["7H"], 3: ["7C"]}, royals={1: ["KH"]})
    assert not _wins_now(v, "jack JH 7C p1")
    v.play("jack JH 7C p1")
    assert v.result() == (L.ST_WIN, 1)


@pytest.mark.parametrize("also,winner", [(1, 0), (3, 3)])
def test_several_seats_at_their_goal_the_deciding_seat_first_else_the_next_in_turn_order(also, winner):
    # p0's 6 sends stolen point cards home: p0 and seat `also` each get back to 21 at once.
    # The chain ends with p3's decline: p3 wins if it is among them, else p0 (next after p3).
    owned = {0: ["TC(JH-p2)", "9C", "2C"], also: ["TD(JD-p2)", "9D", "2D"]}  # p2 holds 20
    t = T((["6S"], ["9H"], ["3H"], ["3S"]), points=owned)
    assert t.score(0) == 11 and t.score(also) == 11
    t.play("one-off 6S", "resolve", "resolve", "resolve")
    assert t.score(0) == 21 and t.score(also) == 21
    assert t.result() == (L.ST_WIN, winner)


# ====================================================================== Jacks name a receiver
def test_a_jack_hands_your_own_point_card_to_your_partner():
    t = T((["JH"], ["9D"], ["9H"], ["9S"]), points={0: ["7C"]})
    assert t.with_prefix("jack") == {"jack JH 7C p1", "jack JH 7C p2", "jack JH 7C p3"}  # never p0 itself
    t.play("jack JH 7C p2")
    assert t.stacks(0) == ["7C(JH-p0>p2)"] and t.points(2) == ["7C"] and t.points(0) == []
    assert t.phase == "answeringRoyal" and t.actor == 1
    t.play("resolve")
    assert t.actor == 3
    t.play("resolve")
    assert t.phase == "main" and t.turn == 1 and t.hand(0) == []


def test_a_jack_may_take_an_opponents_card_for_the_partner_or_any_seat_but_its_controller():
    t = T((["JH"], ["9D"], ["9H"], ["9S"]), points={1: ["8D"], 2: ["5H"]})
    assert t.with_prefix("jack") == {
        "jack JH 8D p0", "jack JH 8D p2", "jack JH 8D p3",  # p1 controls 8D
        "jack JH 5H p0", "jack JH 5H p1", "jack JH 5H p3",  # p2 controls 5H
    }
    t.play("jack JH 8D p2", "resolve", "resolve")
    assert t.points(2) == ["5H", "8D"] and t.points(1) == [] and t.stacks(1) == ["8D(JH-p0>p2)"]


def test_an_opponents_queen_stops_a_jack_but_a_partners_queen_does_not():
    t = T((["JH"], ["9D"], ["9H"], ["9S"]), points={1: ["8D"], 2: ["5H"]}, royals={1: ["QD"], 2: ["QH"]})
    assert t.with_prefix("jack") == {"jack JH 5H p0", "jack JH 5H p1", "jack JH 5H p3"}


def test_a_jack_on_a_stack_goes_on_top_and_its_receiver_controls():
    t = T((["JS"], ["9D"], ["9H"], ["9S"]), points={0: ["7C(JH-p1>p3)"]})
    assert t.points(3) == ["7C"]
    t.play("jack JS 7C p0", "resolve", "resolve")
    assert t.stacks(0) == ["7C(JH-p1>p3,JS-p0)"] and t.points(0) == ["7C"] and t.points(3) == []


# ====================================================================== Jokers name a receiver
def test_a_joker_goes_on_any_royal_naming_any_receiver_but_its_controller():
    t = T((["X1"], ["9D"], ["9H"], ["9S"]), royals={0: ["KC"], 1: ["KH"], 2: ["8H"]})
    assert t.with_prefix("joker") == {
        "joker X1 KC p1", "joker X1 KC p2", "joker X1 KC p3",
        "joker X1 KH p0", "joker X1 KH p2", "joker X1 KH p3",
        "joker X1 8H p0", "joker X1 8H p1", "joker X1 8H p3",
    }
    t.play("joker X1 KH p2")
    assert t.royals(2) == ["8H", "KH"] and t.royals(1) == [] and t.royal_stacks(1) == ["KH(X1-p0>p2)"]
    assert [t.goal(p) for p in range(4)] == [14, 21, 14, 21]
    t.play("resolve", "resolve")
    assert t.turn == 1 and t.phase == "main"


def test_a_joker_goes_on_a_top_jack_and_takes_the_point_card():
    t = T((["X2"], ["9D"], ["9H"], ["9S"]), points={0: ["9C(JH-p1)"]})
    assert "joker X2 JH p0" in t.moves() and "joker X2 JH p2" in t.moves() and "joker X2 JH p1" not in t.moves()
    t.play("joker X2 JH p2", "resolve", "resolve")
    assert t.points(2) == ["9C"] and t.stacks(0) == ["9C(JH-p1,X2-p0>p2)"]


def test_queens_shield_royals_from_jokers_one_queen_only_itself():
    t = T((["X1"], ["9D"], ["9H"], ["9S"]), royals={1: ["QD", "KD"], 3: ["QS", "QH", "KS"]})
    assert t.with_prefix("joker") == {"joker X1 QD p0", "joker X1 QD p2", "joker X1 QD p3"}


def test_a_nine_on_your_own_turn_sends_a_gifted_jack_to_its_player_frozen():
    # p1 took p0's 7C and gave it to p3; p0's 9 sends JH to p1's hand, frozen, 7C comes home
    t = T((["9C"], ["3D"], ["3H"], ["3S"]), points={0: ["7C(JH-p1>p3)"]})
    t.play("one-off 9C JH", "resolve", "resolve", "resolve")
    assert t.hand(1) == ["3D", "JH"] and t.frozen(1) == ["JH"]
    assert t.points(0) == ["7C"] and t.points(3) == [] and t.scrap() == ["9C"]
    assert t.turn == 1 and "jack JH 7C p1" not in t.moves()  # frozen until p1's own turn ends
    t.play("draw")
    assert t.frozen(1) == []


def test_a_jack_your_own_nine_returns_to_you_stays_frozen_through_your_next_turn():
    # p0 gave p1's 7D to p3 with JH; p0's own 9 sends JH back to p0, frozen until p0's own
    # *next* turn ends (RULES.md 3.0), not thawed as the turn it came back in ends
    t = T((["9C", "3C"], ["3D"], ["3H"], ["3S"]), points={1: ["7D(JH-p0>p3)"]})
    t.play("one-off 9C JH", "resolve", "resolve", "resolve")
    assert t.hand(0) == ["3C", "JH"] and t.frozen(0) == ["JH"] and t.points(1) == ["7D"]
    assert t.turn == 1
    t.play("draw", "draw", "draw")
    assert t.turn == 0 and t.frozen(0) == ["JH"]
    assert not t.with_prefix("jack JH")  # still frozen in p0's next turn
    t.play("draw")
    assert t.frozen(0) == [] and t.turn == 1
    t.play("draw", "draw", "draw")
    assert t.with_prefix("jack JH")  # thawed once that turn ended


def test_at_a_hand_limit_discard_the_cards_frozen_before_thaw_and_the_own_nines_stays_frozen():
    # team with discards at the hand limit: p3's 9 froze p0's QC last turn; p0's own 9 then
    # brings JH back, which puts p0 over 7. The discard ends the turn: QC thaws, JH stays
    # frozen through p0's next turn
    hand = ["9C", "3C", "4C", "5C", "6C", "7C", "8C"]
    t = SeatTable("team:hand-limit=discard", (hand, ["3D"], ["3H"], ["9S", "3S"]), points={1: ["7D(JH-p0>p3)"]},
                  royals={0: ["QC"]}, turn=3)
    t.play("one-off 9S QC", "resolve", "resolve", "resolve")
    assert t.turn == 0 and t.frozen(0) == ["QC"] and len(t.hand(0)) == 8
    t.play("one-off 9C JH", "resolve", "resolve", "resolve")
    assert t.phase == "discardingToHandLimit" and t.actor == 0 and t.frozen(0) == ["JH"]
    t.play("discard 3C")
    assert t.turn == 1 and t.frozen(0) == ["JH"]
    t.play("draw", "draw", "draw")
    assert t.turn == 0 and not t.with_prefix("jack JH") and t.with_prefix("royal QC")
    t.play("draw")
    assert t.phase == "discardingToHandLimit"
    t.play("discard 4C")
    assert t.frozen(0) == [] and t.turn == 1


def test_both_opponents_nines_freeze_a_card_each_of_one_seat_until_its_own_turn_ends():
    # RULES.md 3.0: p1's 9 and then p3's each return one of p0's royals; both stay frozen
    t = T((["3C"], ["9D", "3D"], ["3H"], ["9S", "3S"]), royals={0: ["KC", "QC"]}, turn=1)
    t.play("one-off 9D QC", "resolve", "resolve", "resolve")  # asked: p2, p3, p0
    assert t.frozen(0) == ["QC"] and t.turn == 2
    t.play("draw")
    t.play("one-off 9S KC", "resolve", "resolve", "resolve")
    assert t.turn == 0 and t.frozen(0) == ["QC", "KC"] and t.hand(0) == ["3C", "QC", "KC"]
    assert "royal KC" not in t.moves() and "royal QC" not in t.moves()
    t.play("draw")
    assert t.frozen(0) == []


# ====================================================================== the other team only
def test_scuttles_twos_nines_and_fours_aim_at_the_other_team_only():
    t = T(
        (["TC", "2C", "9C", "4C"], ["5D"], ["3H"], ["3S"]),
        points={1: ["8D"], 2: ["8H"], 3: ["8S"]},
        royals={1: ["KD"], 2: ["KH"], 3: ["KS"]},
    )
    moves = t.moves()
    assert t.with_prefix("scuttle") == {"scuttle TC 8D", "scuttle TC 8S", "scuttle 9C 8D", "scuttle 9C 8S"}
    assert t.with_prefix("one-off 2C") == {"one-off 2C KD", "one-off 2C KS"}
    assert t.with_prefix("one-off 9C") == {"one-off 9C KD", "one-off 9C KS", "one-off 9C 8D", "one-off 9C 8S"}
    assert t.with_prefix("one-off 4C") == {"one-off 4C p1", "one-off 4C p3"}
    assert "scuttle TC 8H" not in moves and "one-off 4C p2" not in moves


def test_a_four_cannot_name_an_opponent_with_an_empty_hand():
    t = T((["4C"], [], ["3H"], ["3S", "5S"]))
    assert t.with_prefix("one-off 4C") == {"one-off 4C p3"}
    t.play("one-off 4C p3", "resolve", "resolve", "resolve")
    assert t.phase == "resolvingFour" and t.actor == 3
    t.play("discard 3S 5S")
    assert t.hand(3) == [] and t.scrap() == ["3S", "4C", "5S"] and t.turn == 1


# ====================================================================== the answering 9
def test_every_opponent_is_asked_in_turn_order_from_the_royals_player_whether_or_not_it_holds_a_9():
    t = T((["KH"], ["3D"], ["9H"], ["9S"]), turn=0)
    t.play("royal KH")
    assert t.phase == "answeringRoyal" and t.actor == 1 and t.moves() == {"resolve"}  # p1 holds no 9
    t.play("resolve")
    assert t.actor == 3 and t.moves() == {"resolve", "one-off 9S KH"}  # the partner p2 is not asked
    t.play("resolve")
    assert t.phase == "main" and t.turn == 1 and t.royals(0) == ["KH"]


def test_the_window_asks_from_the_seat_after_the_royals_player():
    t = T((["9C"], ["9D"], ["3H"], ["QS"]), turn=3)
    t.play("royal QS")  # p3's only Queen is open to a 9
    assert t.actor == 0
    t.play("resolve")
    assert t.actor == 2 and t.moves() == {"resolve"}
    t.play("resolve")
    assert t.turn == 0 and t.phase == "main"


def test_a_royal_a_queen_shields_opens_no_window():
    t = T((["KH"], ["9D"], ["9H"], ["9S"]), royals={0: ["QC"]})
    t.play("royal KH")
    assert t.phase == "main" and t.turn == 1 and t.royals(0) == ["QC", "KH"]


def test_the_answer_sends_the_royal_back_to_its_players_hand_unfrozen_and_ends_its_turn():
    t = T((["KH", "3C"], ["9D", "5D"], ["2H"], ["3S"]))
    t.play("royal KH")
    t.play("one-off 9D KH")  # p1 answers, out of turn
    assert t.phase == "countering" and t.actor == 2  # an ordinary chain, from the seat after p1
    t.play("resolve", "resolve", "resolve")  # p2, p3, p0
    assert t.hand(0) == ["3C", "KH"] and t.frozen(0) == [] and t.royals(0) == []
    assert t.scrap() == ["9D"] and t.hand(1) == ["5D"]
    assert t.phase == "main" and t.turn == 1  # p1's own turn comes as usual: the answer cost nothing
    assert "draw" in t.moves()
    t.play("draw", "draw", "draw")
    assert t.turn == 0 and "royal KH" in t.moves()  # not frozen


def test_an_answer_countered_lets_the_next_opponent_answer():
    t = T((["KH", "3C"], ["9D"], ["2H"], ["9S"]))
    t.play("royal KH", "one-off 9D KH", "counter 2H")
    assert t.phase == "countering" and t.actor == 3
    t.play("resolve", "resolve", "resolve")  # p3, p0, p1: one counter cancels the 9
    assert t.scrap() == ["2H", "9D"] and t.royals(0) == ["KH"]
    assert t.phase == "answeringRoyal" and t.actor == 3
    t.play("one-off 9S KH", "resolve", "resolve", "resolve")  # p0, p1, p2
    assert t.hand(0) == ["3C", "KH"] and t.scrap() == ["2H", "9D", "9S"] and t.turn == 1


def test_an_answered_jack_goes_back_to_its_player_and_the_card_to_its_controller():
    t = T((["JH"], ["9D"], ["3H"], ["3S"]), points={1: ["8D"]})
    t.play("jack JH 8D p2", "one-off 9D JH", "resolve", "resolve", "resolve")
    assert t.hand(0) == ["JH"] and t.frozen(0) == [] and t.points(1) == ["8D"] and t.stacks(1) == ["8D"]
    assert t.turn == 1


def test_an_answered_joker_goes_back_and_the_royal_to_its_controller():
    t = T((["X1"], ["3D"], ["3H"], ["9S"]), royals={1: ["KD"]})
    t.play("joker X1 KD p0", "resolve")
    assert t.actor == 3
    t.play("one-off 9S X1", "resolve", "resolve", "resolve")
    assert t.hand(0) == ["X1"] and t.royals(1) == ["KD"] and t.royals(0) == [] and t.turn == 1


def test_no_win_is_checked_while_the_window_is_open():
    t = T((["KH", "3C"], ["9D"], ["3H"], ["3S"]), points={0: ["TC", "4C"]})  # 14 points
    t.play("royal KH")
    assert t.score(0) >= t.goal(0) and not t.over  # at the goal, the window open
    t.play("one-off 9D KH", "resolve", "resolve", "resolve")
    assert not t.over and t.goal(0) == 21 and t.turn == 1


def test_the_royal_takes_effect_once_the_window_closes():
    t = T((["KH", "3C"], ["9D"], ["3H"], ["3S"]), points={0: ["TC", "4C"]})
    t.play("royal KH", "resolve")
    assert not t.over
    t.play("resolve")
    assert t.result() == (L.ST_WIN, 0)


def test_a_joker_that_hands_a_king_to_an_opponent_is_answered_by_nobody_and_wins_at_once():
    # The card lands on p0's side: not a 9's target for p0 (its own) nor for p2 (its
    # partner's), so no window opens and p0, now at 14 with one King, wins on the spot.
    t = T((["3C"], ["3D"], ["9H"], ["X1"]), points={0: ["TC", "4C"]}, royals={1: ["KD"]}, turn=3)
    t.play("joker X1 KD p0")
    assert t.royals(0) == ["KD"] and t.goal(0) == 14
    assert t.result() == (L.ST_WIN, 0)


def test_a_royal_played_from_a_seven_can_be_answered():
    t = T((["7C"], ["9D"], ["3H"], ["3S"]), deck_top=["KH", "4C"])
    t.play("one-off 7C", "resolve", "resolve", "resolve")
    assert t.phase == "resolvingSeven"
    t.play("royal KH")
    assert t.phase == "answeringRoyal" and t.actor == 1 and t.deck()[0] == "4C"
    t.play("one-off 9D KH", "resolve", "resolve", "resolve")
    assert t.hand(0) == ["KH"] and t.frozen(0) == [] and sorted(t.scrap()) == ["7C", "9D"]
    assert t.turn == 1 and t.deck()[0] == "4C"


def test_a_queen_stops_counters_to_its_players_one_offs_from_anyone():
    t = T((["6C"], ["2D"], ["2H"], ["2S"]), royals={0: ["QC"]})
    t.play("one-off 6C")
    for p in (1, 2, 3):
        assert t.actor == p and t.moves() == {"resolve"}
        t.play("resolve")
    assert t.royals(0) == [] and "QC" in t.scrap()


# ====================================================================== hand limit, passes
def test_hand_limit_seven_by_blocking():
    t = T((["AC", "2C", "3C", "4C", "5C", "6C", "7C"], [], [], []))
    assert "draw" not in t.moves()
    t2 = T((["5C", "AC", "2C", "3C", "4C", "6C", "8C"], [], [], []), deck_top=["AD", "AH", "AS"])
    t2.play("one-off 5C", "resolve", "resolve", "resolve", "discard AC")  # 5 cards, then draws stop at 7
    assert t2.hand(0) == ["AD", "AH", "2C", "3C", "4C", "6C", "8C"] and t2.deck()[0] == "AS"


def test_the_fifth_consecutive_pass_is_a_stalemate_worth_half_to_each_team():
    t = T((["9C"], ["9D"], ["9H"], ["9S"]), rest="scrap")
    for _ in range(4):
        t.play("pass")
        assert not t.over
    t.play("pass")
    assert t.result() == (L.ST_STALEMATE_PASSES, -1)
    assert [win_share(t.s, R, p) for p in range(4)] == [0.5, 0.5, 0.5, 0.5]
    assert t.pos.result() == {"status": "stalemate (five passes)", "winner": None}  # issue 26: not "three"


def test_a_draw_breaks_a_run_of_passes():
    t = T((["9C"], ["9D"], ["9H"], ["9S"]), deck_top=["AC"], rest="scrap", passes=0)
    t.play("draw", "pass", "pass", "pass", "pass")
    assert not t.over
    t.play("pass")
    assert t.over


# ====================================================================== seeing
def test_glasses_show_both_opponents_hands_never_the_partners():
    t = T((["8C", "3C"], ["9D"], ["9H"], ["9S"]))
    t.play("glasses 8C", "resolve", "resolve")
    assert t.royals(0) == ["8C"]
    s = t.s
    assert sees_hand(s, R, 0, 1) and sees_hand(s, R, 0, 3) and not sees_hand(s, R, 0, 2)
    for viewer in (1, 2, 3):  # nobody else sees anything more
        for q in range(4):
            assert bool(sees_hand(s, R, viewer, q)) == (q == viewer)
    seats = t.pos.view_of(0).to_dict()["seats"]
    assert seats[1]["hand"] == ["9D"] and seats[3]["hand"] == ["9S"] and seats[2]["hand"] == ["??"]
    assert t.pos.view_of(2).to_dict()["seats"][1]["hand"] == ["??"]


def test_hands_are_not_revealed_at_deck_out():
    t = T((["9C"], ["9D"], ["9H"], ["9S"]), rest="scrap")
    for viewer in range(4):
        for q in range(4):
            assert bool(sees_hand(t.s, R, viewer, q)) == (q == viewer)


def test_the_seven_shows_its_cards_to_its_player_only():
    t = T((["7C"], ["3D"], ["3H"], ["3S"]), deck_top=["KH", "4C"])
    t.play("one-off 7C", "resolve", "resolve", "resolve")
    assert t.pos.view_of(0).to_dict()["revealed"] == ["4C", "KH"]
    for p in (1, 2, 3):
        assert t.pos.view_of(p).to_dict()["revealed"] == ["??", "??"]


def test_the_seven_scraps_a_revealed_jack_only_when_no_revealed_card_plays():
    # docs/rules.md, Team: the two-seat 7 but for who sees it. A Jack with no target beside a
    # playable card is not scrapped (Cutthroat's card-by-card scrap is not Team's rule).
    t = T((["7C"], ["3D"], ["3H"], ["3S"]), deck_top=["JC", "4C"])
    t.play("one-off 7C", "resolve", "resolve", "resolve")
    assert t.moves() == {"points 4C", "one-off 4C p1", "one-off 4C p3"}


def test_the_seven_scraps_either_revealed_card_when_neither_plays():
    t = T((["7C"], ["3D"], ["3H"], ["3S"]), deck_top=["JC", "X1", "5S"])
    t.play("one-off 7C", "resolve", "resolve", "resolve")
    assert t.moves() == {"scrap JC", "scrap X1"}
    t.play("scrap X1")
    assert "X1" in t.scrap() and t.deck()[:2] == ["JC", "5S"] and t.turn == 1


def test_a_four_whose_victim_countered_with_its_last_card_loads_back():
    # The pending 4 was legal when played (p1 held a card): the check puts the chain's 2s
    # back into the other hands. It had asked of the table as it is, and refused it.
    t = T((["4C", "3C"], ["2C"], ["3H"], ["3S"]))
    t.play("one-off 4C p1", "counter 2C")
    d = t.pos.to_dict()
    assert d["seats"][1]["hand"] == [] and d["twos"] == ["2C"] and d["oneOff"] == "4C"
    assert Position.from_dict(d).to_dict() == d


def test_a_random_team_deal_is_a_full_information_position_of_54_cards():
    pos = Position.deal("team", seed=3)
    d = pos.to_dict()
    n = sum(len(seat["hand"]) for seat in d["seats"]) + len(d["deck"])
    assert n == 54 and d["dealer"] == "p3"


def test_a_team_win_names_both_partners():
    """``Position.winners`` and the board's words: a Team win is both partners', a
    two-seat win one seat's, and nobody's while the game goes on."""
    import random

    from cuttle_search.display import describe_decision
    from cuttle_search.engine.seats import partner

    rng = random.Random(5)
    for seed in range(40):
        pos = Position.deal(get_ruleset("team"), seed=seed)
        assert pos.winners() == []
        while not pos.is_over:
            pos.play(rng.choice(pos.legal_moves()))
        if pos.result()["status"] == "won":
            break
    else:
        pytest.fail("no random Team game of 40 was won")
    won = pos.winners()
    assert len(won) == 2 and int(partner(pos.state, pos.rules_array, won[0])) == won[1]
    assert pos.result()["winner"] in {f"p{q}" for q in won}
    assert describe_decision(pos) == f"game over: won, p{won[0]} and p{won[1]} win"
    two = Position.deal(get_ruleset("cuttle-cards"), seed=3)
    while not two.is_over:
        two.play(rng.choice(two.legal_moves()))
    if two.result()["status"] == "won":
        assert two.winners() == [int(two.result()["winner"][1])]
        assert describe_decision(two).endswith(f"{two.result()['winner']} wins")
