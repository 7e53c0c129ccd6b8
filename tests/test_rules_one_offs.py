"""Scenario tests for one-offs and counters (RULES.md section 1, cuttle-cards)."""

import pytest

from .helpers import after, build, texts

# cards for a hand that only has to be there: with few cards named, the deck would hold
# more than the deal leaves it and build's filler would go to the scrap, where a 3 sees it
BYSTANDERS = ["4D", "5D", "6D", "8D", "9C", "TC", "4H", "5H"]


# ---------------------------------------------------------------- counters
def _chain(n_counters, p0_twos=("2C", "2H"), p1_twos=("2D", "2S"), **extra):
    """p0 plays a 6 against p1's King; the players trade n counters, then one declines."""
    pos = build(p0Hand=["6C", *p0_twos], p1Hand=["AD", *p1_twos], p1FaceCards=["KS"], **extra)
    after(pos, "one-off 6C")
    order = [p1_twos[0], p0_twos[0], p1_twos[1], p0_twos[1]]
    for k in range(n_counters):
        after(pos, f"counter {order[k]}")
    return pos, order[:n_counters]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4])
def test_counter_chains_of_zero_to_four_twos(n):
    pos, played = _chain(n)
    decider = 1 if n % 2 == 0 else 0
    assert pos.actor == decider and pos.phase_name == "countering"
    d = after(pos, "resolve")
    assert sorted(d["scrap"]) == sorted(["6C", *played] + (["KS"] if n % 2 == 0 else []))
    assert d["p1FaceCards"] == ([] if n % 2 == 0 else ["KS"])
    assert d["twos"] == [] and d["oneOff"] is None and d["turn"] == 1


def test_counter_twos_leave_the_hand_at_once():
    pos, _ = _chain(2)
    d = pos.to_dict()
    assert d["twos"] == ["2C", "2D"] and d["p0Hand"] == ["2H"] and d["p1Hand"] == ["AD", "2S"]


def test_queen_stops_counters_to_your_one_off():
    pos = build(p0Hand=["6C"], p0FaceCards=["QH"], p1Hand=["2D"], p1FaceCards=["KS"])
    after(pos, "one-off 6C")
    assert texts(pos) == {"resolve"}


def test_queen_of_the_counterer_makes_their_counter_final():
    pos = build(p0Hand=["9C", "2H"], p1Hand=["2D"], p1FaceCards=["QS"])
    after(pos, "one-off 9C QS")  # one queen: only the queen can be targeted
    assert "counter 2D" in texts(pos)
    after(pos, "counter 2D")
    assert texts(pos) == {"resolve"}  # p1 has a Queen: the 2 cannot be countered
    d = after(pos, "resolve")
    assert d["p1FaceCards"] == ["QS"] and sorted(d["scrap"]) == ["2D", "9C"]


def test_decline_with_twos_in_hand_is_a_real_choice():
    pos = build(p0Hand=["AC"], p0Points=["3C"], p1Hand=["2D", "2S"], p1Points=["TH"])
    after(pos, "one-off AC")
    assert texts(pos) == {"resolve", "counter 2D", "counter 2S"}


# ---------------------------------------------------------------- ace
def test_ace_scraps_every_point_card_with_jacks():
    pos = build(p0Hand=["AC"], p0Points=["3C", "9D(JH-p0)"], p1Points=["TH"], p1Hand=["AS"])
    d = after(pos, "one-off AC", "resolve")
    assert d["p0Points"] == [] and d["p1Points"] == []
    assert sorted(d["scrap"]) == sorted(["AC", "3C", "9D", "JH", "TH"])


# ---------------------------------------------------------------- two
def test_two_scraps_a_royal():
    pos = build(p0Hand=["2C"], p1FaceCards=["KH", "8S"], p1Hand=["AS"])
    assert {m for m in texts(pos) if m.startswith("one-off")} == {"one-off 2C KH", "one-off 2C 8S"}
    d = after(pos, "one-off 2C 8S", "resolve")
    assert d["p1FaceCards"] == ["KH"] and sorted(d["scrap"]) == ["2C", "8S"]


def test_two_on_the_top_jack_sends_the_card_back_one_level():
    pos = build(p0Hand=["2C"], p1Points=["9D(JS-p1,JH-p0,JC-p1)"], p1Hand=["AS"])
    assert "one-off 2C JC" in texts(pos)
    assert "one-off 2C JS" not in texts(pos)  # only the top jack
    d = after(pos, "one-off 2C JC", "resolve")
    assert d["p0Points"] == ["9D(JS-p1,JH-p0)"] and d["p1Points"] == []
    assert sorted(d["scrap"]) == ["2C", "JC"]


def test_two_never_targets_point_cards():
    pos = build(p0Hand=["2C"], p1Points=["9D"], p1Hand=["AS"])
    assert not any(m.startswith("one-off 2C") for m in texts(pos))


def test_queens_limit_targets():
    pos = build(p0Hand=["2C", "9C"], p1FaceCards=["QH", "KD"], p1Points=["7S"], p1Hand=["AS"])
    assert {m for m in texts(pos) if m.startswith("one-off")} == {"one-off 2C QH", "one-off 9C QH"}
    pos = build(p0Hand=["2C", "9C"], p1FaceCards=["QH", "QD", "KD"], p1Hand=["AS"])
    assert not any(m.startswith("one-off") for m in texts(pos))


def test_queens_protect_queens_off_makes_every_queen_a_target():
    pos = build("cuttle-cards:queens-protect-queens=off", p0Hand=["2C"], p1FaceCards=["QH", "QD", "KD"], p1Hand=["AS"])
    assert {m for m in texts(pos) if m.startswith("one-off")} == {"one-off 2C QH", "one-off 2C QD"}


# ---------------------------------------------------------------- three
def test_three_takes_a_card_from_the_scrap():
    pos = build(p0Hand=["3C"], p1Hand=["AS", *BYSTANDERS[:6]], scrap=["KH", "3D", "2S"])
    d = after(pos, "one-off 3C", "resolve")
    assert d["phase"] == "resolvingThree" and texts(pos) == {"take KH", "take 2S"}
    d = after(pos, "take KH")
    assert d["p0Hand"] == ["KH"] and sorted(d["scrap"]) == ["2S", "3C", "3D"]
    assert d["known"] == {"p0": ["KH"]}  # the taken card is public


def test_three_needs_a_card_other_than_a_three():
    pos = build(p0Hand=["3C"], p1Hand=["AS", *BYSTANDERS[:7]], scrap=["3D", "3H"])
    assert "one-off 3C" not in texts(pos)
    pos = build("cuttle-cards:three-takes-three", p0Hand=["3C"], p1Hand=["AS", *BYSTANDERS[:7]], scrap=["3D", "3H"])
    assert "one-off 3C" in texts(pos)


def test_three_may_take_the_counter_twos():
    pos = build(p0Hand=["3C", "2H"], p1Hand=["2D", *BYSTANDERS[:6]], scrap=["3D", "KH"])
    after(pos, "one-off 3C", "counter 2D", "counter 2H", "resolve")
    assert texts(pos) == {"take 2D", "take 2H", "take KH"}


# ---------------------------------------------------------------- four
def test_four_victim_chooses_two_discards():
    pos = build(p0Hand=["4C"], p1Hand=["AS", "KD", "9H"])
    d = after(pos, "one-off 4C", "resolve")
    assert d["phase"] == "resolvingFour" and pos.actor == 1
    assert texts(pos) == {"discard AS KD", "discard AS 9H", "discard 9H KD"}
    d = after(pos, "discard AS 9H")
    assert d["p1Hand"] == ["KD"] and sorted(d["scrap"]) == ["4C", "9H", "AS"] and d["turn"] == 1


def test_four_against_one_card_discards_it():
    pos = build(p0Hand=["4C"], p1Hand=["KD"])
    after(pos, "one-off 4C", "resolve")
    assert texts(pos) == {"discard KD"}
    d = after(pos, "discard KD")
    assert d["p1Hand"] == []


def test_four_cannot_be_played_against_an_empty_hand():
    pos = build(p0Hand=["4C"], p1Hand=[])
    assert "one-off 4C" not in texts(pos)


def test_four_against_a_hand_emptied_by_counters_does_nothing():
    pos = build(p0Hand=["4C", "2H"], p1Hand=["2D"])
    d = after(pos, "one-off 4C", "counter 2D", "counter 2H", "resolve")
    assert d["phase"] == "main" and d["turn"] == 1 and d["p1Hand"] == []


def test_four_random_is_a_chance_event():
    pos = build("cuttle-cards:four=random", p0Hand=["4C"], p1Hand=["AS", "KD", "9H"])
    d = after(pos, "one-off 4C", "resolve")
    assert d["phase"] == "resolvingFourRandom" and pos.actor == -1
    assert texts(pos) == {"random-discard AS KD", "random-discard AS 9H", "random-discard 9H KD"}
    d = after(pos, "random-discard 9H KD")
    assert d["p1Hand"] == ["AS"]


# ---------------------------------------------------------------- five
def test_five_discards_then_draws_three():
    pos = build(p0Hand=["5C", "KH", "7D"], p1Hand=["AS"], deck_top=["2S", "3S", "4S", "6S"])
    d = after(pos, "one-off 5C", "resolve")
    assert d["phase"] == "resolvingFive" and texts(pos) == {"discard KH", "discard 7D"}
    d = after(pos, "discard KH")
    assert sorted(d["p0Hand"]) == sorted(["7D", "2S", "3S", "4S"]) and d["deck"][0] == "6S"
    assert sorted(d["scrap"]) == ["5C", "KH"]


def test_five_with_an_otherwise_empty_hand_just_draws():
    pos = build(p0Hand=["5C"], p1Hand=["AS"], deck_top=["2S", "3S", "4S"])
    d = after(pos, "one-off 5C", "resolve")
    assert sorted(d["p0Hand"]) == ["2S", "3S", "4S"] and d["turn"] == 1


def test_five_with_a_near_empty_deck_draws_what_is_there():
    pos = build(p0Hand=["5C", "KH"], p1Hand=["AS"], deck_top=["2S"], rest="scrap")
    d = after(pos, "one-off 5C", "resolve", "discard KH")
    assert d["p0Hand"] == ["2S"] and d["deck"] == []


def test_five_needs_a_card_in_the_deck():
    pos = build(p0Hand=["5C"], p1Hand=["AS"], rest="scrap")
    assert "one-off 5C" not in texts(pos)


def test_five_in_block_style_draws_only_up_to_eight():
    hand = ["5C", "AC", "2C", "3C", "4C", "6C", "7C", "8C"]
    pos = build("bga-balanced", p0Hand=hand, p1Hand=["AS"], deck_top=["2S", "3S", "4S"])
    d = after(pos, "one-off 5C", "resolve", "discard AC")
    assert len(d["p0Hand"]) == 8 and d["deck"][0] == "4S"  # 8 - 5 - discard = 6, then 2 drawn


@pytest.mark.parametrize("rules", ["bga-traditional", "classic"])
def test_five_draws_two_without_discarding(rules):
    pos = build(rules, p0Hand=["5C", "KH"], p1Hand=["AS"], deck_top=["2S", "3S", "4S"])
    d = after(pos, "one-off 5C", "resolve")
    assert sorted(d["p0Hand"]) == ["2S", "3S", "KH"] and d["phase"] == "main"


# ---------------------------------------------------------------- six
def test_six_scraps_royals_and_jacks_and_returns_stolen_points():
    pos = build(
        p0Hand=["6C"],
        p0FaceCards=["KH", "8D"],
        p0Points=["9S(JH-p0)"],
        p1Points=["TD(JC-p1,JD-p0,JS-p1)"],
        p1FaceCards=["QS"],
        p1Hand=["AS"],
    )
    d = after(pos, "one-off 6C", "resolve")
    assert d["p0FaceCards"] == [] and d["p1FaceCards"] == []
    assert d["p0Points"] == ["TD"] and d["p1Points"] == ["9S"]
    assert sorted(d["scrap"]) == sorted(["6C", "KH", "8D", "JH", "JC", "JD", "JS", "QS"])


# ---------------------------------------------------------------- seven
def test_seven_plays_one_revealed_card_and_leaves_the_other_on_top():
    pos = build(p0Hand=["7C"], p1Hand=["AS"], p1Points=["4D"], deck_top=["9H", "KS", "2D"])
    d = after(pos, "one-off 7C", "resolve")
    assert d["phase"] == "resolvingSeven" and sorted(d["revealed"]) == ["9H", "KS"]
    assert {"points 9H", "scuttle 9H 4D", "royal KS"} <= texts(pos)
    d = after(pos, "royal KS")
    assert d["p0FaceCards"] == ["KS"] and d["deck"][:2] == ["9H", "2D"] and d["deckKnown"] == 1
    d = after(pos, "draw")  # p1 draws the known 9H: it is public in p1's hand
    assert d["known"] == {"p1": ["9H"]}


def test_a_seven_is_not_in_the_scrap_while_it_resolves():
    """cuttle.cards: the 7 reaches the scrap only once a revealed card is played, so a
    revealed 3 is a one-off only if the scrap holds a card other than a 3 without the 7."""
    pos = build(p0Hand=["7C"], p1Hand=["AS", *BYSTANDERS[:8]], scrap=["3D"], deck_top=["3H", "KS", "2D"])
    d = after(pos, "one-off 7C", "resolve")
    assert d["phase"] == "resolvingSeven" and d["oneOff"] == "7C" and d["scrap"] == ["3D"]
    assert "one-off 3H" not in texts(pos) and "points 3H" in texts(pos)
    d = after(pos, "points 3H")
    assert sorted(d["scrap"]) == ["3D", "7C"] and d["oneOff"] is None
    # with another card in the scrap the revealed 3 may be played, and may then take the 7
    pos = build(p0Hand=["7C"], p1Hand=["AS", *BYSTANDERS[:8]], scrap=["5S"], deck_top=["3H", "KS", "2D"])
    after(pos, "one-off 7C", "resolve", "one-off 3H", "resolve")
    assert texts(pos) == {"take 5S", "take 7C"}


def test_seven_with_only_jacks_and_no_target_may_scrap_one():
    pos = build(p0Hand=["7C"], p1Hand=["AS"], deck_top=["JH", "JD", "2D"])
    after(pos, "one-off 7C", "resolve")
    assert texts(pos) == {"scrap JD", "scrap JH"}
    d = after(pos, "scrap JH")
    assert "JH" in d["scrap"] and d["deck"][0] == "JD" and d["deckKnown"] == 1


def test_seven_double_jack_with_a_target_must_play_a_jack():
    pos = build(p0Hand=["7C"], p1Hand=["AS"], p1Points=["5S"], deck_top=["JH", "JD"])
    after(pos, "one-off 7C", "resolve")
    assert texts(pos) == {"jack JH 5S", "jack JD 5S"}


def test_seven_revealing_the_last_card_cannot_play_it_as_a_one_off():
    pos = build(p0Hand=["7C"], p1Hand=["AS"], p1FaceCards=["KD"], deck_top=["7D"], rest="scrap")
    after(pos, "one-off 7C", "resolve")
    assert texts(pos) == {"points 7D"}


def test_seven_revealed_five_needs_a_card_left_to_draw():
    pos = build(p0Hand=["7C"], p1Hand=["AS"], deck_top=["5D"], rest="scrap")
    after(pos, "one-off 7C", "resolve")
    assert "one-off 5D" not in texts(pos)
    pos = build(p0Hand=["7C"], p1Hand=["AS"], deck_top=["5D", "KH"], rest="scrap")
    after(pos, "one-off 7C", "resolve")
    assert "one-off 5D" in texts(pos)  # KH goes back on top and is drawn


def test_seven_revealed_one_off_can_be_countered():
    pos = build(p0Hand=["7C"], p1Hand=["2S"], p1FaceCards=["KD"], deck_top=["2H", "8S"])
    after(pos, "one-off 7C", "resolve")
    move = pos.play("one-off 2H KD")
    assert move.from_seven and move.to_json()["moveType"] == "sevenTargetedOneOff"
    d = pos.to_dict()
    assert d["phase"] == "countering" and pos.actor == 1 and d["deck"][0] == "8S"
    d = after(pos, "counter 2S", "resolve")
    assert d["p1FaceCards"] == ["KD"] and sorted(d["scrap"]) == ["2H", "2S", "7C"]


@pytest.mark.parametrize("rules", ["bga-traditional", "classic"])
def test_must_play_seven_reveals_one_card(rules):
    pos = build(rules, p0Hand=["7C"], p1Hand=["AS"], deck_top=["9H", "KS"])
    d = after(pos, "one-off 7C", "resolve")
    assert d["revealed"] == ["9H"] and texts(pos) == {"points 9H"}
    pos = build(rules, p0Hand=["7C"], p1Hand=["AS"], deck_top=["JH", "KS"])
    after(pos, "one-off 7C", "resolve")
    assert texts(pos) == {"scrap JH"}


def test_classic_seven_jack_must_go_on_your_own_card():
    pos = build("classic", p0Hand=["7C"], p0Points=["6D"], p1Hand=["AS"], deck_top=["JH", "KS"])
    after(pos, "one-off 7C", "resolve")
    assert texts(pos) == {"jack JH 6D"}
    d = after(pos, "jack JH 6D")
    assert d["p1Points"] == ["6D(JH-p0)"]


# ---------------------------------------------------------------- nine
def test_nine_returns_a_royal_frozen():
    pos = build(p0Hand=["9C"], p1FaceCards=["KH"], p1Hand=["AS"])
    d = after(pos, "one-off 9C KH", "resolve")
    assert d["p1Hand"] == ["AS", "KH"] and d["frozen"] == ["KH"] and d["known"] == {"p1": ["KH"]}
    assert "royal KH" not in texts(pos)
    d = after(pos, "draw")
    assert d["frozen"] == []
    after(pos, "draw")  # p0
    assert "royal KH" in texts(pos)


def test_frozen_card_thaws_within_the_same_turn_as_a_counter():
    pos = build(p0Hand=["9C", "2H"], p1Points=["2D"], p1Hand=["6S"])
    d = after(pos, "one-off 9C 2D", "resolve")
    assert d["frozen"] == ["2D"] and "points 2D" not in texts(pos)
    after(pos, "one-off 6S", "counter 2H")  # p1 acted (the 6): the 2 is free again
    assert pos.to_dict()["frozen"] == [] and "counter 2D" in texts(pos)


def test_nine_returns_a_jack_to_whoever_played_it_frozen():
    pos = build(p0Hand=["9C", "AH"], p1Hand=["TS"], p1Points=["2S(JD-p1)"], p0Points=["5C"])
    d = after(pos, "one-off 9C JD", "resolve")
    assert d["frozen"] == ["JD"] and d["p0Points"] == ["2S", "5C"] and "JD" in d["p1Hand"]
    assert not any(m.startswith("jack JD") for m in texts(pos))


def test_nine_on_a_point_card_scraps_its_jacks():
    pos = build(p0Hand=["9C"], p1Points=["8D(JC-p1)"], p1Hand=["AS"])
    d = after(pos, "one-off 9C 8D", "resolve")
    assert d["p1Hand"] == ["AS", "8D"] and d["p0Points"] == [] and d["p1Points"] == []
    assert sorted(d["scrap"]) == ["9C", "JC"]


def test_cuttle_cards_2_nine_puts_the_target_on_the_deck():
    pos = build("cuttle-cards-2", p0Hand=["9C"], p1FaceCards=["KH"], p1Hand=["AS"])
    d = after(pos, "one-off 9C KH", "resolve")
    assert d["deck"][0] == "KH" and d["deckKnown"] == 1 and d["frozen"] == []
    assert d["p1Hand"] == ["AS"]


@pytest.mark.parametrize("rules", ["bga-balanced", "bga-traditional"])
def test_bga_nine_cannot_target_point_cards(rules):
    pos = build(rules, p0Hand=["9C"], p1Points=["8D"], p1FaceCards=["KS"], p1Hand=["AS"])
    assert {m for m in texts(pos) if m.startswith("one-off")} == {"one-off 9C KS"}


def test_bga_traditional_nine_does_not_freeze():
    pos = build("bga-traditional", p0Hand=["9C"], p1FaceCards=["KS"], p1Hand=["AS"])
    d = after(pos, "one-off 9C KS", "resolve")
    assert d["frozen"] == [] and "royal KS" in texts(pos)


# ---------------------------------------------------------------- options
def test_eight_one_off_scraps_glasses():
    pos = build("cuttle-cards:eight-one-off", p0Hand=["8C"], p1FaceCards=["8H"], p1Hand=["AS"])
    assert "one-off 8C 8H" in texts(pos)
    d = after(pos, "one-off 8C 8H", "resolve")
    assert d["p1FaceCards"] == [] and sorted(d["scrap"]) == ["8C", "8H"]
    assert "one-off 8C 8H" not in texts(build(p0Hand=["8C"], p1FaceCards=["8H"], p1Hand=["AS"]))


def test_ten_counters_scuttle():
    pos = build("cuttle-cards:ten-counters-scuttle", p0Hand=["9S"], p1Points=["7H"], p1Hand=["TC"])
    d = after(pos, "scuttle 9S 7H")
    assert d["phase"] == "counteringScuttle" and texts(pos) == {"resolve", "block TC"}
    d = after(pos, "block TC")
    assert d["p1Points"] == ["7H"] and sorted(d["scrap"]) == ["9S", "TC"] and d["turn"] == 1
    pos = build("cuttle-cards:ten-counters-scuttle", p0Hand=["9S"], p1Points=["7H"], p1Hand=["TC"])
    d = after(pos, "scuttle 9S 7H", "resolve")
    assert d["p1Points"] == [] and sorted(d["scrap"]) == ["7H", "9S"]


# ---------------------------------------------------------------- classic jacks and targets
def test_classic_jack_switches_control_each_time():
    pos = build("classic", p0Hand=["JH"], p0Points=["6D"], p1Hand=["JC"])
    d = after(pos, "jack JH 6D")  # on your own card: it changes sides
    assert d["p1Points"] == ["6D(JH-p0)"]
    d = after(pos, "jack JC 6D")
    assert d["p0Points"] == ["6D(JH-p0,JC-p1)"]


def test_classic_two_and_nine_reach_either_side():
    pos = build("classic", p0Hand=["2C", "9C"], p0FaceCards=["KH"], p1FaceCards=["QS", "KS"], p1Hand=["AS"])
    oneoffs = {m for m in texts(pos) if m.startswith("one-off")}
    assert oneoffs == {"one-off 2C KH", "one-off 2C QS", "one-off 9C KH", "one-off 9C QS"}


def test_classic_two_on_a_jack_switches_control_back():
    pos = build("classic", p0Hand=["2C"], p0Points=["6D(JH-p1)"], p1Hand=["AS"])
    d = after(pos, "one-off 2C JH", "resolve")
    assert d["p1Points"] == ["6D"]
