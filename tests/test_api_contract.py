"""The Python API as a researcher uses it: values that compare, agents that cannot corrupt
a game, NumPy numbers taken as numbers, and plausible mistakes refused with a message that
names the argument (found by an audit of the API, each a case that went wrong before)."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import cuttle_search
from cuttle_search import CuttleError, Limit, Move, MoveError, Position, PositionError, RulesError, analyse, solve
from cuttle_search.client import HintEngine, HintWarning
from cuttle_search.game.cards import card_str
from cuttle_search.game.rules import get_ruleset
from cuttle_search.play.agent import Agent, AgentError
from cuttle_search.play.agents import make_agent
from cuttle_search.play.arena import ArenaError, play_game, replay, run_arena
from cuttle_search.play.session import GameSession, PlayError
from cuttle_search.play.statistics import trinomial

R = get_ruleset("cuttle-cards")


# ---------------------------------------------------------------- Position as a value
def test_positions_compare_by_content_and_are_not_hashable():
    p = Position.load("positions/opening-p0.json")
    q = p.copy()
    assert p == q and not p != q
    q.name = "another label"  # labels are not the game
    assert p == q
    full = Position.deal("cuttle-cards", seed=1)
    after = full.copy()
    after.play(after.legal_moves()[0])
    assert full != after and full.view_of(0) != full
    assert full != "a position"
    with pytest.raises(TypeError):
        hash(full)
    assert {full.key(), full.copy().key()} == {full.key()}  # a hashable snapshot
    assert full.key() != after.key()
    assert pickle.loads(pickle.dumps(full)) == full


def test_a_state_array_the_kernels_cannot_take_is_refused_or_copied():
    p = Position.deal("cuttle-cards", seed=2)
    with pytest.raises(PositionError, match="state: expected an int64 array"):
        Position(p.rules, p.state.astype(np.int32))  # its card masks would be cut short
    with pytest.raises(PositionError, match="state: expected an int64 array"):
        Position(p.rules, list(p.state))  # type: ignore[arg-type]
    with pytest.raises(PositionError, match="rules: expected a Ruleset"):
        Position("cuttle-cards", p.state)  # type: ignore[arg-type]
    frozen = p.state.copy()
    frozen.flags.writeable = False  # shared memory, np.frombuffer: the kernels write
    q = Position(p.rules, frozen)
    assert q.state.flags.writeable and q == p and q.legal_moves() == p.legal_moves()


def test_a_view_does_not_list_another_seats_moves():
    full = Position.deal("cuttle-cards", seed=3)
    full.play("draw")  # p1 decides now
    view = full.view_of(0)
    with pytest.raises(PositionError, match="p1 decides here; p0's view cannot list"):
        view.legal_moves()
    assert full.view_of(1).legal_moves() == full.legal_moves()


def test_a_gamestate_holds_two_seats_and_52_cards():
    for spec in ("cutthroat", "team", "multiplayer:players=2"):
        with pytest.raises(PositionError, match="rules: a cuttle.cards GameState holds a two-seat game of 52 cards"):
            Position.deal(spec, seed=1).to_gamestate()
    assert "p0Hand" in Position.deal("cuttle-cards", seed=1).to_gamestate()


def test_every_input_error_is_a_cuttle_error():
    assert issubclass(RulesError, CuttleError) and issubclass(PositionError, CuttleError)
    with pytest.raises(CuttleError, match="cuttlecards"):
        Position.deal("cuttlecards", seed=1)
    assert {"CuttleError", "RulesError", "get_ruleset"} <= set(cuttle_search.__all__)


# ---------------------------------------------------------------- Move
def test_moves_are_built_checked():
    for args, field in ((("bogus",), "kind"), ((None,), "kind"), (("points",), "card"), (("draw", 3), "card"),
                        (("scuttle", 3), "target"), (("points", 3, 4), "target"), (("discard",), "cards"),
                        (("jack", 1, 2, (), False, 9), "receiver")):
        with pytest.raises(MoveError, match=f"^{field}: "):
            Move(*args)
    eight = Move.parse("glasses 8C")
    assert Move("royal", eight.card) == eight and Move("royal", eight.card).code() == eight.code()
    with pytest.raises(MoveError, match="move: expected move text"):
        Move.parse(5)  # type: ignore[arg-type]


def test_moves_of_one_card_with_and_without_a_target_sort():
    bare, targeted, seat = Move.parse("one-off 9S"), Move.parse("one-off 9S 8H"), Move.parse("one-off 9S p1")
    assert sorted([seat, targeted, bare]) == [bare, targeted, seat]
    assert sorted([Move.parse("jack JS 7H p2"), Move.parse("jack JS 7H")])[0] == Move.parse("jack JS 7H")


# ---------------------------------------------------------------- agents and the arena
class _LooksAhead(Agent):
    """Plays its first move on the game it is given before answering (a look-ahead that
    forgot to copy)."""

    def choose(self, game, seat, rng):
        move = game.legal_moves()[0]
        game.push(move)
        return move


class _Answers(Agent):
    """Answers what ``params["answer"]`` makes of the game."""

    def choose(self, game, seat, rng):
        return self.params["answer"](game)


def test_an_agent_cannot_change_the_arenas_game():
    record = play_game(R, 1, [_LooksAhead("looks-ahead"), make_agent("greedy")], 0)
    assert replay(record.to_json()).is_over  # the log is the game that was played


def test_an_agent_may_answer_a_move_and_a_bad_answer_is_named():
    record = play_game("cuttle-cards", 1, [_Answers("m", {"answer": lambda g: g.legal_moves()[-1]}),
                                           make_agent("greedy")], np.int64(3))
    assert replay(record.to_json()).is_over
    for answer, shown in ((lambda g: 12345678, "12345678"), (lambda g: "draw", "'draw'"),
                          (lambda g: Move.parse("points 10H"), "points TH")):
        with pytest.raises(AgentError, match=f"agent bad: chose {shown}, not a legal move of p0"):
            play_game(R, 1, [_Answers("bad", {"answer": answer}), make_agent("greedy")], 0)


def test_play_game_checks_its_arguments():
    two = [make_agent("greedy"), make_agent("greedy")]
    with pytest.raises(ArenaError, match="rng_seed: expected a whole number"):
        play_game(R, 1, two, None)  # type: ignore[arg-type]
    with pytest.raises(ArenaError, match="rng_seed: expected a whole number"):
        play_game(R, 1, two, -1)
    with pytest.raises(ArenaError, match="start: expected a position of classic, got cuttle-cards"):
        play_game(get_ruleset("classic"), 1, two, 0, start=Position.deal("cuttle-cards", seed=1))
    with pytest.raises(ArenaError, match="rules: expected a ruleset"):
        play_game(5, 1, two, 0)  # type: ignore[arg-type]


def test_trinomial_counts_only_two_seat_scores():
    assert trinomial([0, 0.5, 1, 1]) == [1, 1, 2]
    for bad in (1 / 3, 1.5, -1):
        with pytest.raises(ValueError, match="a game scores 0, 0.5 or 1"):
            trinomial([bad])


# ---------------------------------------------------------------- NumPy numbers
def test_numpy_numbers_are_numbers():
    result = analyse("positions/opening-p0.json", iterations=np.int64(300), seed=np.int64(1), threads=np.int32(1))
    assert result.iterations == 300 and type(result.seed) is int
    assert analyse("positions/opening-p0.json", iterations=300, seed=1).best.move == result.best.move
    assert Limit(np.int64(5), np.float64(1.5)) == Limit(5, 1.5)
    assert solve("positions/deck-out-endgame.json", nodes=np.int64(100_000)).stop_reason
    assert run_arena("greedy", "random", games=np.int64(2), seed=np.int64(1), progress=False).games == 2
    with pytest.raises(ArenaError, match="seed: expected a whole number"):
        run_arena("greedy", "random", games=2, seed=-1, progress=False)
    assert analyse("positions/opening-p0.json", iterations=300, allow_moves=[Move.parse("draw")]).best.move.text() == "draw"


# ---------------------------------------------------------------- the terminal game's session
def test_a_session_reads_its_arguments_as_the_command_line_does():
    session = GameSession("cuttle-cards", "p0", {1: "greedy"}, np.int64(3))
    assert session.seat == 0 and session.choose(np.int64(1)) == session.legal_moves()[0]
    for args, message in ((("cutle", 0, {1: "greedy"}, 1), "rules: unknown ruleset 'cutle'"),
                          ((R, 0, {1: "greedy"}, -1), "seed: expected a whole number"),
                          ((R, "p5", {1: "greedy"}, 1), "seat: expected a seat p0 to p1")):
        with pytest.raises(PlayError, match=message):
            GameSession(*args)
    with pytest.raises(PlayError, match="move: expected a move number, text or Move, got 1.5"):
        session.choose(1.5)  # type: ignore[arg-type]


# ---------------------------------------------------------------- the hint client
def test_the_client_warns_of_a_field_the_server_ignored():
    with HintEngine.popen() as engine:
        with pytest.warns(HintWarning, match="itterations"):
            engine.analyse("positions/opening-p0.json", iterations=50, itterations=5)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            engine.analyse("positions/opening-p0.json", iterations=50)


def test_a_cancelled_reply_takes_the_persons_move_back():
    import threading

    from cuttle_search.play.session import Stopped

    session = GameSession(R, 0, {1: "ismcts:iterations=100000"}, 5)
    session.advance()
    before, plies = session.position.copy(), len(session.moves)
    gone = threading.Event()
    gone.set()  # the page has left: the opponent's search ends at once, its move unplayed
    with pytest.raises(Stopped):
        session.play(1, cancel=gone)
    assert session.position == before and len(session.moves) == plies and not session.can_undo
    session.play(1)  # and the game goes on as if nothing happened
    assert len(session.moves) > plies


@pytest.mark.parametrize("name, phase, cards", [
    ("counter-chain-full", "countering", ["9D", "2C", "2H"]),  # the one-off, then its 2s
    ("scuttle-block", "counteringScuttle", ["9S", "8H"]),  # the scuttle's card, then its target
    ("team-answer-window-p2", "answeringRoyal", ["JH"]),  # the royal (a Jack) a 9 may send back
    ("opening-p0", "main", []),
])
def test_pending_cards_name_what_a_decline_lets_stand(name, phase, cards):
    pos = Position.load(f"positions/{name}.json")
    assert pos.phase_name == phase and [card_str(c) for c in pos.pending_cards()] == cards
