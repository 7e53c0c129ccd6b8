"""Cards and moves: parse and print both notations, round trips, clear errors."""

import pytest

from cuttle_search.game.cards import CardError, card_str, parse_card
from cuttle_search.game.moves import IllegalMoveError, Move, MoveError
from cuttle_search.game.position import Position, PositionError
from cuttle_search.game.rules import RulesError, get_ruleset

from .helpers import build


def test_card_ids_follow_scuttle_order():
    assert parse_card("AC") == 0 and parse_card("AS") == 3 and parse_card("KS") == 51
    assert parse_card("10H") == parse_card("TH") == parse_card("th")
    assert all(parse_card(card_str(c)) == c for c in range(52))
    assert parse_card("9C") < parse_card("9D") < parse_card("TC")


@pytest.mark.parametrize("text", ["", "1H", "TX", "JJ", "10", "AHH"])
def test_bad_cards(text):
    with pytest.raises(CardError):
        parse_card(text)


EXAMPLES = {
    "points 7H": {"moveType": "points", "cardId": "7H"},
    "scuttle 9S 7H": {"moveType": "scuttle", "cardId": "9S", "targetId": "7H"},
    "one-off 2C KH": {"moveType": "targetOneOff", "cardId": "2C", "targetId": "KH"},
    "one-off AC": {"moveType": "untargetedOneOff", "cardId": "AC"},
    "jack JS 7H": {"moveType": "jack", "cardId": "JS", "targetId": "7H"},
    "royal KH": {"moveType": "faceCard", "cardId": "KH"},
    "glasses 8C": {"moveType": "faceCard", "cardId": "8C"},
    "counter 2D": {"moveType": "counter", "cardId": "2D"},
    "resolve": {"moveType": "resolve"},
    "draw": {"moveType": "draw"},
    "pass": {"moveType": "pass"},
    "take 5H": {"moveType": "resolveThree", "cardId": "5H"},
    "discard 4H 9C": {"moveType": "discard", "cardIds": ["4H", "9C"]},
    "scrap JH": {"moveType": "sevenScrap", "cardId": "JH"},
    "block TS": {"moveType": "tenCounter", "cardId": "TS"},
    "random-discard 4H 9C": {"moveType": "randomDiscard", "cardIds": ["4H", "9C"]},
}


@pytest.mark.parametrize("text", EXAMPLES)
def test_text_and_json_round_trip(text):
    m = Move.parse(text)
    assert m.text() == text
    assert m.to_json() == EXAMPLES[text]
    assert Move.from_json(m.to_json()) == m
    assert Move.from_code(m.code()) == m


@pytest.mark.parametrize("text", ["one-off 4C p²", "jack JH 9C p²", "one-off 4C p٣"])
def test_a_seat_written_with_a_non_ascii_digit_is_a_move_error(text):
    """Regression: a seat word like 'p²' passed str.isdigit and then crashed int() with a
    ValueError; seat names are read by game/seats.py (ASCII digits 0-7 only)."""
    with pytest.raises(MoveError):
        Move.parse(text, None)


def test_text_input_is_forgiving_about_case_and_tens():
    assert Move.parse("Scuttle 10s 7h") == Move.parse("scuttle TS 7H")
    assert Move.parse("royal 8C") == Move.parse("glasses 8C")
    assert Move.parse("discard 9C 4H") == Move.parse("discard 4H 9C")


def test_cuttle_cards_discard_bodies_are_accepted():
    assert Move.from_json({"moveType": "resolveFour", "cardId1": "9C", "cardId2": "4H"}).text() == "discard 4H 9C"
    assert Move.from_json({"moveType": "resolveFive", "cardId": "9C"}).text() == "discard 9C"


def test_seven_moves_round_trip_through_json_and_resolve_from_text():
    m = Move.from_json({"moveType": "sevenJack", "cardId": "JC", "targetId": "TS"})
    assert m.from_seven and m.text() == "jack JC TS"
    assert Move.from_json(m.to_json()) == m
    assert Move.parse("jack JC TS", [m]) == m


@pytest.mark.parametrize(
    "text,message",
    [
        ("fly 7H", "unknown move 'fly'"),
        ("points", "takes exactly one card"),
        ("scuttle 9S", "takes a card and a target"),
        ("points 7Z", "unknown card"),
        ("draw 7H", "takes no card"),
        ("discard 7H 7H", "listed twice"),
    ],
)
def test_bad_move_text(text, message):
    with pytest.raises(MoveError, match=message):
        Move.parse(text)


@pytest.mark.parametrize(
    "body,message",
    [
        ({"cardId": "7H"}, "moveType: missing"),
        ({"moveType": "points"}, "cardId: missing"),
        ({"moveType": "points", "cardId": "QQ"}, "cardId: unknown card"),
        ({"moveType": "teleport"}, "unknown move type"),
        ({"moveType": "seven"}, "moveType: unknown move type 'seven'"),
        ({"moveType": "draw", "cardId": "5H"}, "cardId: moveType 'draw' takes no cardId"),
        ({"moveType": "points", "cardId": "5H", "targetId": "4C"}, "targetId: moveType 'points' takes no targetId"),
        ({"moveType": "scuttle", "cardId": "5H", "targetId": "4C", "receiverSeat": "p1"},
         "receiverSeat: moveType 'scuttle' takes no receiverSeat"),
        ({"moveType": "untargetedOneOff", "cardId": "AH", "targetId": "4C"}, "targetId: moveType 'untargetedOneOff' takes no"),
        ({"moveType": "targetOneOff", "cardId": "4H", "targetSeat": "p1", "targetId": "4C"}, "targetSeat: give targetSeat or targetId"),
        ({"moveType": "discard", "cardIds": ["4H"], "cardId1": "5C"}, "cardIds: give cardIds or cardId1, cardId2"),
        ({"moveType": "sevenDraw"}, "moveType: unknown move type 'sevenDraw'"),  # it was read as a draw
        ({"moveType": "sevenForfeit"}, "moveType: unknown move type 'sevenForfeit'"),
        ("not json", "move JSON: not valid JSON"),
        ('{"moveType": "draw", "moveType": "pass"}', "move JSON: the key 'moveType' appears twice"),
        ("[" * 100_000, "move JSON: JSON nested deeper than 64 levels"),
    ],
)
def test_bad_move_json(body, message):
    with pytest.raises(MoveError, match=message):
        Move.from_json(body)


def test_a_number_that_is_no_move_code_is_refused():
    assert Move.from_code(Move.parse("draw").code()).text() == "draw"
    for code, message in ((-1, "expected an engine move code, got -1"), (2**70, "expected an engine move code"),
                          ("x", "expected an engine move code"), (True, "expected an engine move code"),
                          (2**40, "1099511627776 is not an engine move code")):  # -1 read as forfeit, 2**40 as draw
        with pytest.raises(MoveError, match=message):
            Move.from_code(code)  # type: ignore[arg-type]


def test_loading_something_that_is_no_path_names_it():
    for path in (None, 5):
        with pytest.raises(PositionError, match=f"path: expected a file path, got {type(path).__name__}"):
            Position.load(path)  # type: ignore[arg-type]


def test_illegal_move_names_itself():
    pos = build(p0Hand=["7H"], p1Hand=["3D"])
    with pytest.raises(IllegalMoveError, match="'points 3D' is not legal here"):
        pos.play("points 3D")


def test_ruleset_specs():
    rs = get_ruleset("cuttle-cards:four=random,eight-one-off")
    assert rs.four == "random" and rs.eight_one_off
    assert get_ruleset(rs.spec) == rs
    assert get_ruleset("classic", {"hand-limit": "block"}).hand_limit == "block"
    with pytest.raises(RulesError, match="unknown rule option"):
        get_ruleset("cuttle-cards:fours=random")
    # an option named twice with two values is refused, not settled by the last one
    assert get_ruleset("cuttle-cards:four=random", {"four": "random"}).four == "random"
    for spec, options in (("cuttle-cards:four=random,four=choose", None), ("cuttle-cards:four=random", {"four": "choose"}),
                          ("multiplayer:players=2,players=8", None)):
        with pytest.raises(RulesError, match=r"option (four|players) is given twice, as \w+ and as \w+: give it once"):
            get_ruleset(spec, options)
    with pytest.raises(RulesError, match="unknown ruleset"):
        get_ruleset("uno")
