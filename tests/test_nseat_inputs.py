"""Untrusted input for Team Cuttle and Cuttle Multiplayer: rule options, the seat-list
fields these games add, and the new notation. Each bad input is refused with one line
naming the field; each good one round-trips."""

import json

import pytest

from cuttle_search.game.moves import Move
from cuttle_search.game.position import Position, PositionError
from cuttle_search.game.rules import RulesError, get_ruleset


@pytest.mark.parametrize("spec, message", [
    ("multiplayer:players=9", "option players takes a number of seats from 2 to 8, not '9'"),
    ("multiplayer:players=1", "option players takes a number of seats from 2 to 8, not '1'"),
    ("multiplayer:players=four", "option players takes a number of seats from 2 to 8, not 'four'"),
    ("team:players=4", "option players: team is played by 4 seats, always"),
    ("cuttle-cards:players=3", "option players: cuttle-cards is played by 2 seats, always"),
    ("multiplayer:players=3,remove-ace-six", "option remove-ace-six is for 4 to 8 seats, not 3"),
    # a bare name switches a flag on, but a choice or a count needs its value (it was read as "on")
    ("multiplayer:players", "option players needs a value: players=N, a number of seats from 2 to 8"),
    ("cuttle-cards:four", "option 'four' needs a value: four=choose or four=random"),
    ("classic: Nine ", "option 'nine' needs a value: nine=frozen, nine=unfrozen or nine=deck-top"),
])
def test_bad_rule_options_are_refused_naming_the_option(spec, message):
    with pytest.raises(RulesError) as e:
        get_ruleset(spec)
    assert str(e.value) == message


def test_players_sets_the_seats_and_the_stalemate():
    rs = get_ruleset("multiplayer:players=6,remove-ace-six")
    assert (rs.players, rs.pass_limit, rs.remove_ace_six, rs.sides) == (6, 7, True, 6)
    assert rs.spec == "multiplayer:players=6,remove-ace-six=on"
    assert get_ruleset(rs.spec) == rs
    team = get_ruleset("team")
    assert (team.players, team.pass_limit, team.sides, team.side_of(2), team.side_of(3)) == (4, 5, 2, 0, 1)


def _file(name: str) -> dict:
    with open(f"positions/{name}.json") as f:
        return json.load(f)


@pytest.mark.parametrize("name, edit, message", [
    ("multiplayer-4-counter-costs-turn-p3", lambda d: d["seats"][3].update(counters=["3C"]),
     "seats[3].counters[0]: only 2s wait before a seat that countered, not '3C'"),
    ("team-opening-p0", lambda d: d["seats"][1].update(counters=["2C"]),
     "seats[1].counters[0]: in team a counter does not wait before its player"),
    ("multiplayer-8-remove-ace-six-p0", lambda d: d.update(removed=d["removed"] + ["KC"]),
     "only Aces and Sixes leave the game (remove-ace-six), not 'KC'"),
    ("multiplayer-4-opening-p0", lambda d: d.update(removed=["AC"]),
     "removed[0]: cards leave the game only with the option remove-ace-six"),
    ("multiplayer-4-opening-p0", lambda d: d.update(response="KH"), "response: multiplayer has no answer to a royal"),
    ("team-answer-window-p2", lambda d: d.update(asked="p3"), "asked: p3 cannot answer that royal"),
    ("team-opening-p0", lambda d: d.update(oneOffBy="p2"), "oneOffBy: set but there is no pending one-off"),
])
def test_bad_seat_list_fields_are_refused_naming_the_field(name, edit, message):
    d = _file(name)
    edit(d)
    with pytest.raises(PositionError) as e:
        Position.from_dict(d)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_multiplayer_counters_name_their_player():
    d = _file("multiplayer-4-opening-p0")
    d.update(phase="countering", oneOff="AC", twos=["2C"], chainTop="p1", asked="p2")
    with pytest.raises(PositionError, match=r"twos\[0\]: in multiplayer each counter names its player, like '2C-p1'"):
        Position.from_dict(d)


def test_a_jack_names_a_receiver_only_in_team():
    d = _file("cutthroat-opening-full")
    d["seats"][0]["points"] = ["9C(JH-p1>p2)"]
    with pytest.raises(PositionError, match="in cutthroat a Jack or Joker goes to its player"):
        Position.from_dict(d)


@pytest.mark.parametrize("text, body", [
    ("jack JH 7C p2", {"moveType": "jack", "cardId": "JH", "targetId": "7C", "receiverSeat": "p2"}),
    ("joker X1 KH p0", {"moveType": "joker", "cardId": "X1", "targetId": "KH", "receiverSeat": "p0"}),
    ("forfeit", {"moveType": "forfeit"}),
])
def test_new_moves_round_trip_in_text_json_and_code(text, body):
    m = Move.parse(text)
    assert m.text() == text and m.to_json() == body
    assert Move.from_json(body) == m and Move.from_code(m.code()) == m


def test_a_bad_receiver_seat_is_refused():
    with pytest.raises(Exception, match="receiverSeat: expected a seat like 'p2', got 'p9'"):
        Move.from_json({"moveType": "jack", "cardId": "JH", "targetId": "7C", "receiverSeat": "p9"})


@pytest.mark.parametrize("name", ["team-answer-window-p2", "team-answer-countered-p2", "team-jack-to-partner-wins-p1",
                                  "multiplayer-4-counter-costs-turn-p3", "multiplayer-8-remove-ace-six-p0",
                                  "multiplayer-3-hand-limit-p2", "multiplayer-4-four-everyone-p0"])
def test_shipped_positions_round_trip(name):
    pos = Position.load(f"positions/{name}.json")
    assert Position.from_json(pos.to_json()).to_json() == pos.to_json()
    assert pos.legal_moves()


@pytest.mark.parametrize("source", [None, 7, 3.5, ["opening-p0"]])
def test_a_position_source_of_the_wrong_type_is_refused_in_one_line(source):
    from cuttle_search.analysis import analyse
    from cuttle_search.analysis.solve import solve

    for call in (analyse, solve):
        with pytest.raises(PositionError, match="position: expected a Position, a file path, JSON text or a dict"):
            call(source)
