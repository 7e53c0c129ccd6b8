"""Scenario tests for turns, points, scuttles, royals, jacks, goals and the hand limit
(RULES.md section 1, cuttle-cards unless a test names another ruleset)."""

import pytest

from cuttle_search.game.moves import IllegalMoveError

from .helpers import after, build, texts


def test_points_move_to_own_side_and_turn_passes():
    pos = build(p0Hand=["7H", "2C"], p1Hand=["3D"])
    d = after(pos, "points 7H")
    assert d["p0Points"] == ["7H"] and d["p0Hand"] == ["2C"]
    assert d["turn"] == 1 and d["phase"] == "main" and pos.actor == 1


def test_draw_takes_the_top_card():
    pos = build(p0Hand=["7H"], p1Hand=["3D"], deck_top=["KS", "4C"])
    d = after(pos, "draw")
    assert d["p0Hand"] == ["7H", "KS"] and d["deck"][0] == "4C"


def test_scuttle_needs_higher_rank_or_same_rank_higher_suit():
    pos = build(p0Hand=["9H", "9C", "3S"], p1Points=["9D", "2S"], p1Hand=["AD"])
    moves = texts(pos)
    assert "scuttle 9H 9D" in moves and "scuttle 9H 2S" in moves
    assert "scuttle 9C 9D" not in moves  # same rank, lower suit
    assert "scuttle 3S 9D" not in moves
    d = after(pos, "scuttle 9H 9D")
    assert d["p1Points"] == ["2S"] and sorted(d["scrap"]) == ["9D", "9H"]
    assert d["p0Points"] == []


def test_scuttle_scraps_the_jacks_on_the_target():
    pos = build(p0Hand=["TS"], p0Points=[], p1Points=["8D(JS-p1)"], p1Hand=["AD"])
    d = after(pos, "scuttle TS 8D")
    assert d["p1Points"] == [] and sorted(d["scrap"]) == ["8D", "JS", "TS"]


def test_royals_and_glasses_go_to_face_cards():
    pos = build(p0Hand=["KH", "QC", "8D"], p1Hand=["AD"])
    assert {"royal KH", "royal QC", "glasses 8D", "points 8D"} <= texts(pos)
    d = after(pos, "glasses 8D")
    assert d["p0FaceCards"] == ["8D"] and d["p0Points"] == []


@pytest.mark.parametrize(
    "rules,goals",
    [
        ("cuttle-cards", [21, 14, 10, 5, 0]),
        ("cuttle-cards-2", [21, 14, 10, 5, 0]),
        ("bga-balanced", [21, 14, 10, 5, 0]),
        ("bga-traditional", [21, 14, 10, 7, 4]),
        ("classic", [21, 14, 10, 7, 5]),
    ],
)
def test_king_goals_per_ruleset(rules, goals):
    kings = ["KC", "KD", "KH", "KS"]
    for k in range(4):
        pos = build(rules, p0FaceCards=kings[:k], p0Hand=["AS"], p1Hand=["AD"])
        assert pos.goal(0) == goals[k]


def test_a_king_that_meets_the_goal_wins_at_once():
    pos = build(p0Points=["TH", "4C"], p0Hand=["KD"], p1Hand=["AD"])  # 14 points
    after(pos, "royal KD")
    assert pos.result() == {"status": "won", "winner": "p0"} and pos.is_over


def test_four_kings_win_at_once_with_no_points():
    pos = build(p0FaceCards=["KC", "KD", "KH"], p0Hand=["KS"], p1Hand=["AD"])
    after(pos, "royal KS")
    assert pos.result()["winner"] == "p0"


def test_classic_four_kings_still_need_five_points():
    pos = build("classic", p0FaceCards=["KC", "KD", "KH"], p0Hand=["KS"], p0Points=["4C"], p1Hand=["AD"])
    after(pos, "royal KS")
    assert not pos.is_over and pos.goal(0) == 5


def test_points_reaching_21_win():
    pos = build(p0Points=["TH", "9S"], p0Hand=["2C"], p1Hand=["AD"])
    after(pos, "points 2C")
    assert pos.result()["winner"] == "p0"


def test_jack_steals_a_point_card_and_the_top_jack_controls_it():
    pos = build(p0Hand=["JH"], p1Points=["9C"], p1Hand=["JD", "AS"])
    d = after(pos, "jack JH 9C")
    assert d["p0Points"] == ["9C(JH-p0)"] and d["p1Points"] == []
    d = after(pos, "jack JD 9C")
    assert d["p1Points"] == ["9C(JH-p0,JD-p1)"] and d["p0Points"] == []
    assert pos.points(1) == 9 and pos.points(0) == 0


def test_jack_cannot_target_own_points_or_a_queen_protected_side():
    pos = build(p0Hand=["JH"], p0Points=["5C"], p1Points=["9C"], p1FaceCards=["QD"], p1Hand=["AS"])
    assert not any(m.startswith("jack") for m in texts(pos))
    pos = build(p0Hand=["JH"], p0Points=["5C"], p1Points=["9C"], p1Hand=["AS"])
    assert {m for m in texts(pos) if m.startswith("jack")} == {"jack JH 9C"}


def test_a_jack_that_steals_the_winning_points_wins():
    pos = build(p0Points=["TH", "5S"], p0Hand=["JC"], p1Points=["6D"], p1Hand=["AS"])
    after(pos, "jack JC 6D")
    assert pos.result()["winner"] == "p0"


def test_pass_only_with_an_empty_deck_and_three_passes_stalemate():
    pos = build(p0Hand=["7H"], p1Hand=["3D"], deck_top=["4C"], rest="scrap")
    assert "pass" not in texts(pos)
    after(pos, "draw")  # deck now empty
    assert "pass" in texts(pos) and "draw" not in texts(pos)
    after(pos, "pass", "pass")
    assert not pos.is_over
    after(pos, "pass")
    assert pos.result() == {"status": "stalemate (three passes)", "winner": None}


def test_passes_reset_after_another_action():
    pos = build(p0Hand=["7H"], p1Hand=["3D"], rest="scrap")
    after(pos, "pass", "pass", "points 7H", "pass", "pass")
    assert not pos.is_over
    after(pos, "pass")
    assert pos.is_over


def test_action_limit_stalemate():
    pos = build(p0Hand=["7H"], p1Hand=["3D"], actions=999)
    after(pos, "draw")
    assert pos.result()["status"] == "stalemate (action limit)"


def test_win_check_prefers_the_player_who_acted():
    import numpy as np

    from cuttle_search.engine import layout as L
    from cuttle_search.engine.apply import apply_move

    pos = build(p0Hand=["7H"], p1Hand=["3D"])
    s = pos.state
    # put both seats at their goal behind the loader's back, then let p0 act
    s[L.F_POINTS + 0] |= (1 << 39) | (1 << 38) | (1 << 37)  # TS TH TD
    s[L.F_OWNED + 0] |= (1 << 39) | (1 << 38) | (1 << 37)
    s[L.F_POINTS + 1] |= (1 << 35) | (1 << 34) | (1 << 33)  # 9S 9H 9D
    s[L.F_OWNED + 1] |= (1 << 35) | (1 << 34) | (1 << 33)
    for c in (39, 38, 37, 35, 34, 33):
        idx = [i for i in range(int(s[L.F_DECK_N])) if s[L.F_DECK + i] == c][0]
        s[L.F_DECK + idx : L.F_DECK + s[L.F_DECK_N] - 1] = s[L.F_DECK + idx + 1 : L.F_DECK + s[L.F_DECK_N]]
        s[L.F_DECK_N] -= 1
    apply_move(s, pos.rules_array, np.int64(L.make_move(L.MT_DRAW, L.NO_CARD, L.NO_CARD)))
    assert pos.result()["winner"] == "p0"


# ---------------------------------------------------------------- hand limit
def test_hand_limit_discard_after_drawing_the_ninth_card():
    hand = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C"]
    pos = build(p0Hand=hand, p1Hand=["3D"], deck_top=["KS"])
    assert "draw" in texts(pos)
    d = after(pos, "draw")
    assert d["phase"] == "discardingToHandLimit" and pos.actor == 0
    assert len(pos.legal_moves()) == 9 and all(m.kind == "discard" and len(m.cards) == 1 for m in pos.legal_moves())
    d = after(pos, "discard KS")
    assert d["p0Hand"] == hand and "KS" in d["scrap"] and d["turn"] == 1 and d["phase"] == "main"


def test_hand_limit_only_checks_the_acting_player():
    hand = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C"]
    pos = build(p0Hand=["9D"], p1Hand=hand, p1FaceCards=["KH"])
    d = after(pos, "one-off 9D KH", "resolve")
    assert len(d["p1Hand"]) == 9 and d["phase"] == "main" and pos.actor == 1  # no discard yet
    d = after(pos, "points AC")  # p1 acts: now 8 cards, nothing to discard
    assert d["phase"] == "main" and len(d["p1Hand"]) == 8 and pos.actor == 0


def test_hand_limit_after_own_action_still_over():
    hand = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C"]
    pos = build(p0Hand=["9D"], p1Hand=hand, p1FaceCards=["KH"], deck_top=["TS"])
    after(pos, "one-off 9D KH", "resolve")
    d = after(pos, "draw")  # p1 holds 10 after drawing
    assert d["phase"] == "discardingToHandLimit" and pos.actor == 1
    assert all(len(m.cards) == 2 for m in pos.legal_moves()) and len(pos.legal_moves()) == 45


def test_a_pass_is_an_action_for_the_hand_limit():
    hand = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C"]
    pos = build(p0Hand=["9D"], p1Hand=hand, p1FaceCards=["KH"], rest="scrap")
    after(pos, "one-off 9D KH", "resolve")
    d = after(pos, "pass")  # deck empty: p1 passes holding 9 cards
    assert d["phase"] == "discardingToHandLimit" and pos.actor == 1 and d["passes"] == 1
    d = after(pos, "discard KH")  # the discard is an action: the run of passes is broken
    assert d["phase"] == "main" and pos.actor == 0 and d["passes"] == 0


def test_a_hand_limit_discard_breaks_a_run_of_passes():
    """pass, pass, a discard forced by the second pass, then one more pass: the game goes on
    (three consecutive passes are needed, and the discard was not a pass)."""
    hand = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C"]
    pos = build(p0Hand=["9D", "AD"], p1Hand=hand, p1FaceCards=["KH"], rest="scrap")
    after(pos, "one-off 9D KH", "resolve")  # p1 now holds 9 cards
    d = after(pos, "pass")  # p1 passes: 9 cards, so it must discard first
    assert d["phase"] == "discardingToHandLimit" and d["passes"] == 1
    after(pos, "discard KH")
    d = after(pos, "pass", "pass")  # p0 passes, p1 passes
    assert d["phase"] == "main" and d["passes"] == 2 and not pos.is_over
    d = after(pos, "pass")  # the third consecutive pass ends it
    assert pos.is_over and d["status"] == "stalemate (three passes)"


def test_block_style_hand_limit_forbids_drawing_at_eight():
    hand = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C"]
    pos = build("bga-balanced", p0Hand=hand, p1Hand=["3D"])
    assert "draw" not in texts(pos)
    pos = build("bga-balanced", p0Hand=hand[:7], p1Hand=["3D"])
    assert "draw" in texts(pos)


@pytest.mark.parametrize("rules", ["bga-traditional", "classic"])
def test_no_hand_limit_rulesets_draw_freely(rules):
    hand = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC"]
    pos = build(rules, p0Hand=hand, p1Hand=["3D"])
    d = after(pos, "draw")
    assert len(d["p0Hand"]) == 11 and d["phase"] == "main" and pos.actor == 1


def test_illegal_move_is_refused():
    pos = build(p0Hand=["7H"], p1Hand=["3D"])
    with pytest.raises(IllegalMoveError):
        pos.play("points 3D")


def test_a_seats_points_are_the_sum_of_its_point_cards_values():
    """``table.points_of`` (five masked popcounts) against the plain sum of each
    point card's value, Ace 1 to Ten 10, on random masks; cards above the Tens are not points."""
    import numpy as np

    from cuttle_search.engine.table import points_of

    rng = np.random.default_rng(7)
    for _ in range(2000):
        x = int(rng.integers(0, 1 << 62)) & int(rng.integers(0, 1 << 62))
        expected = sum((c >> 2) + 1 for c in range(40) if x >> c & 1)
        assert points_of(np.int64(x)) == expected, hex(x)
    assert points_of(np.int64((1 << 40) - 1)) == 4 * 55
