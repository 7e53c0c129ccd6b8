"""Positions some game can reach load, and load back as themselves; positions no game can
reach are refused with a line naming the field (issue 26: 54-card lists, the largest deck,
turn and action counts, the deal's hand sizes, private deck knowledge, remove-ace-six).

The games are the engine's seeded random games (``harness.random_games`` numbering): the
same deal and the same uniform choices, replayed here one state at a time."""

from __future__ import annotations

from typing import Iterator

import numpy as np
import pytest

from cuttle_search.engine import layout as L
from cuttle_search.engine.apply import apply_move
from cuttle_search.engine.movegen import generate_moves
from cuttle_search.engine.rng import game_seed, rng_below
from cuttle_search.engine.setup import deal
from cuttle_search.game.position import Position, PositionError
from cuttle_search.game.rules import get_ruleset
from cuttle_search.hint import answer


def seeded_game(spec: str, seed: int, g: int) -> Iterator[Position]:
    """Every state before the end of game ``g`` of the engine's random games seeded
    ``seed`` (the deal and the moves of ``harness.random_games``), as full positions."""
    rules = get_ruleset(spec)
    r = rules.array
    s = np.zeros(L.STATE_SIZE, np.int64)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    rng = np.array([game_seed(seed, g)], np.uint64)
    deal(s, r, rng)
    while s[L.F_PHASE] != L.PH_OVER:
        yield Position(rules, s.copy())
        n = generate_moves(s, r, buf)
        apply_move(s, r, buf[rng_below(rng, n)])


def _scrap_size(pos: Position) -> int:
    return bin(int(pos.state[L.F_SCRAP])).count("1")


# ---------------------------------------------------------------- 54-card lists
@pytest.mark.parametrize("spec, g, scrap", [("cutthroat", 3320, 53), ("team", 22, 54)])
def test_a_54_card_game_with_a_full_scrap_loads_back_and_gets_a_hint(spec, g, scrap):
    """RULES.md 3.0: in a 54-card preset every card list, the scrap included, may hold up
    to 54 cards. The late state of a seeded random game is written, read back and analysed."""
    pos = max(seeded_game(spec, 26, g), key=_scrap_size)
    assert _scrap_size(pos) == scrap
    for view in [pos] + [pos.view_of(q) for q in range(pos.rules.players)]:
        text = view.to_json()
        back = Position.from_json(text)
        assert back.to_json() == text
    for view in (pos, pos.view_of(pos.actor)):  # the full position and the decider's view
        reply = answer({"id": 1, "position": view.to_dict(), "iterations": 50}, {})
        assert "error" not in reply and reply["move"], reply


def test_a_card_list_longer_than_the_deck_is_refused():
    pos = max(seeded_game("team", 26, 22), key=_scrap_size)
    d = pos.to_dict()
    d["scrap"] = d["scrap"] + ["AS"]
    with pytest.raises(PositionError, match=r"^scrap: 55 entries, but a deck has 54 cards$"):
        Position.from_dict(d)
    two = Position.deal("cuttle-cards", seed=1).to_dict()
    two["scrap"] = ["AS"] * 53
    with pytest.raises(PositionError, match=r"^scrap: 53 entries, but a deck has 52 cards$"):
        Position.from_dict(two)


# ---------------------------------------------------------------- what loads back
SPECS = [
    "cuttle-cards", "cuttle-cards-2", "bga-balanced", "bga-traditional", "classic",
    "cuttle-cards:four=random", "cuttle-cards:eight-one-off,ten-counters-scuttle",
    "cuttle-cards:nine=deck-top,hand-limit=block", "classic:four=random,eight-one-off",
    "cutthroat", "team", "multiplayer:players=2", "multiplayer:players=3", "multiplayer",
    "multiplayer:players=8", "multiplayer:players=4,remove-ace-six",
]
NOT_CARRIED = [L.F_SHUFFLE_SEED]  # a loaded position gets a fresh chance stream (docs/position-format.md)


def assert_same(back: Position, pos: Position) -> None:
    """``back`` is ``pos``: the same state (but its chance stream), view and knowledge."""
    a, b = pos.state.copy(), back.state.copy()
    a[NOT_CARRIED] = b[NOT_CARRIED] = 0
    assert np.array_equal(a, b), [i for i in range(L.STATE_SIZE) if a[i] != b[i]]
    assert (back.view, back.hidden, back.unknown_cards) == (pos.view, pos.hidden, pos.unknown_cards)


def round_trip_every_state(spec: str, games: range) -> int:
    """Every state of the seeded random games ``games``, whole and as each seat's view,
    written and read back: accepted, the same position, the same text. Returns the count."""
    n = 0
    for g in games:
        for pos in seeded_game(spec, 26, g):
            for view in [pos] + [pos.view_of(q) for q in range(pos.rules.players)]:
                text = view.to_json()
                back = Position.from_json(text)
                assert_same(back, view)
                assert back.to_json() == text
                n += 1
    return n


@pytest.mark.parametrize("spec", SPECS)
def test_every_reachable_state_and_view_loads_back_as_itself(spec):
    """Issue 26 items 6 and 9: no state a game reaches is refused (turns, actions, the
    deal's hands, the deck's size), and ``from_json(to_json())`` loses nothing."""
    assert round_trip_every_state(spec, range(3)) > 100


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS)
def test_every_reachable_state_and_view_loads_back_as_itself_long(spec):
    round_trip_every_state(spec, range(3, 60))


# ---------------------------------------------------------------- the largest deck (item 5)
def _dealt(spec: str, seed: int = 3) -> dict:
    return Position.deal(spec, seed=seed).to_dict()


def _refused(d: dict, message: str) -> None:
    with pytest.raises(PositionError) as e:
        Position.from_dict(d)
    assert str(e.value) == message and "\n" not in str(e.value)


def test_every_card_in_the_deck_at_turn_5_is_refused():
    d = _dealt("cuttle-cards")
    d["deck"] = d["deck"] + d["p0Hand"] + d["p1Hand"]
    d.update(p0Hand=[], p1Hand=[], turn=5, actions=5)
    _refused(d, "deck: 52 cards, but at most 41 can be there after 5 actions "
                "(the deal leaves 41; the deck only shrinks)")


def test_the_deck_of_a_deck_top_nine_ruleset_grows_one_card_an_action_at_most():
    d = _dealt("cuttle-cards-2")
    d["deck"] = d["deck"] + d["p1Hand"][:2]
    d["p1Hand"] = d["p1Hand"][2:]
    d.update(turn=1, actions=1)
    _refused(d, "deck: 43 cards, but at most 42 can be there after 1 action "
                "(the deal leaves 41; the deck only shrinks, but for a 9 sending a card to its top)")
    Position.from_dict({**d, "turn": 2, "actions": 2})


def test_a_reshuffling_game_refills_its_deck_only_once_draws_could_have_emptied_it():
    d = _dealt("multiplayer")  # 4 seats: the deal leaves 31; an action draws 2 at most
    seat = d["seats"][1]
    d["deck"] = d["deck"] + seat["hand"][:3]
    seat["hand"] = seat["hand"][3:]
    d.update(turn=15, actions=15)
    _refused(d, "deck: 34 cards, but at most 31 can be there after 15 actions "
                "(the deal leaves 31; the deck only shrinks, until a reshuffle refills it)")
    Position.from_dict({**d, "turn": 16, "actions": 16})


def test_the_shipped_examples_that_held_too_big_a_deck_are_reachable_now():
    for name, turn, actions, old in (("scuttle-block", 6, 10, "deck: 44 cards, but at most 41"),
                                     ("traditional-seven", 6, 8, "deck: 43 cards and 1 revealed, but at most 41")):
        d = Position.load(f"positions/{name}.json").to_dict()
        assert len(d["deck"]) + len(d.get("revealed", [])) == 41
        d["deck"] = d["deck"] + d["scrap"]  # the file before the fix: nothing in the scrap
        d.update(scrap=[], turn=turn, actions=actions)
        with pytest.raises(PositionError, match="^" + old):
            Position.from_dict(d)


# ---------------------------------------------------------------- turns, actions, the deal (item 6)
def test_more_turns_than_actions_is_refused():
    d = _dealt("cuttle-cards")
    d["p0Points"] = [d["p0Hand"].pop()]
    d.update(turn=998, actions=2)
    _refused(d, "actions: 2 actions cannot reach turn 998 in phase 'main' "
                "(it takes at least 998: one a turn, one for the turn's action, one a counter)")


def test_no_action_yet_with_a_card_played_is_refused():
    d = _dealt("cuttle-cards")
    d["p0Points"] = [d["p0Hand"].pop()]
    _refused(d, "actions: 0 actions, but cards have left the hands and the deck (or are known): that is not the deal")
    d = _dealt("cutthroat")
    d["scrap"] = [d["deck"].pop()]
    _refused(d, "actions: 0 actions, but cards have left the hands and the deck (or are known): that is not the deal")


def test_before_any_action_each_hand_is_the_size_the_deal_gives():
    d = _dealt("cuttle-cards")  # p0 5 cards, p1 (the dealer) 6
    d["p0Hand"].append(d["p1Hand"].pop())
    _refused(d, "p0Hand: 6 cards before any action, but the deal gives p0 5")
    d = _dealt("multiplayer")  # the dealer p3 6 cards, the others 5
    assert [len(q["hand"]) for q in d["seats"]] == [5, 5, 5, 6]
    d["seats"][1]["hand"].append(d["seats"][3]["hand"].pop())
    _refused(d, "seats[1].hand: 6 cards before any action, but the deal gives p1 5")
    d = _dealt("multiplayer")
    d["deck"].append(d["seats"][3]["hand"].pop())  # the dealer dealt itself 5
    _refused(d, "seats[3].hand: 5 cards before any action, but the deal gives p3 6")


def test_a_cuttle_cards_gamestate_without_actions_gets_the_fewest_that_reach_it():
    pos = Position.load("positions/gamestate-cuttle-cards.json")  # turn 20, phase main
    assert int(pos.state[L.F_ACTIONS]) == 20
    d = _dealt("cuttle-cards")
    del d["actions"]
    assert int(Position.from_dict(d).state[L.F_ACTIONS]) == 0  # the deal itself


# ---------------------------------------------------------------- private deck knowledge, remove-ace-six (item 8)
def _late(spec: str) -> dict:
    """The full position after 12 actions of seeded random game 0."""
    for ply, pos in enumerate(seeded_game(spec, 26, 0)):
        if ply == 12:
            return pos.to_dict()
    raise AssertionError("the game ended early")


def test_deck_seen_by_one_seat_is_refused_where_every_7_is_public():
    d = _late("multiplayer")
    d["deckSeenBy"] = "p1"
    _refused(d, "deckSeenBy: no seat knows the deck's top card alone in this ruleset "
                "(a 7 shows its cards to every seat)")


def test_remove_ace_six_needs_the_deals_ace_and_six_among_the_removed():
    d = _late("multiplayer:remove-ace-six")
    aces_sixes = d.pop("removed")
    assert sorted(c[0] for c in aces_sixes) == ["6", "A"]
    d["scrap"] = d["scrap"] + aces_sixes
    _refused(d, "removed: remove-ace-six takes an Ace and a Six out of the game at the deal's shuffle, "
                "so it holds at least one of each")
    d["removed"] = [aces_sixes[0]]
    d["scrap"].remove(aces_sixes[0])
    with pytest.raises(PositionError, match="^removed: remove-ace-six takes an Ace and a Six"):
        Position.from_dict(d)


# ---------------------------------------------------------------- the private deck top round trip (item 9)
def _private_top() -> Position:
    """A cutthroat state whose deck top only one seat knows (its 7 put it back)."""
    for g in range(200):
        for pos in seeded_game("cutthroat", 26, g):
            if pos.state[L.F_TOP_SEEN_BY] >= 0 and pos.phase_name == "main":
                return pos
    raise AssertionError("no private deck top in 200 games")


def test_a_private_deck_top_survives_every_save_and_load():
    pos = _private_top()
    seer = int(pos.state[L.F_TOP_SEEN_BY])
    for view in (pos, pos.view_of(seer), pos.view_of((seer + 1) % 3)):
        again = view
        for _ in range(3):  # each load used to forget one known card
            again = Position.from_json(again.to_json())
            assert_same(again, view)
    d = pos.view_of(seer).to_dict()
    assert d["deckSeenBy"] == f"p{seer}" and d["deck"][0] != "??" and d["deck"][1] == "??"


def test_a_private_deck_top_with_cards_every_seat_knows_is_refused():
    pos = _private_top()
    seer = int(pos.state[L.F_TOP_SEEN_BY])
    d = pos.to_dict()
    d["deckKnown"] = 1
    _refused(d, "deckSeenBy: a seat knows the deck's top card alone, so no deck card is known to every seat")
    d = pos.view_of(seer).to_dict()
    d["deck"][1] = pos.to_dict()["deck"][1]  # a second named card under the private top
    _refused(d, "deckSeenBy: a seat knows the deck's top card alone, so no deck card is known to every seat")
