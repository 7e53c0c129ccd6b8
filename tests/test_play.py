"""``cuttle-search play``: whole games through stdin, the session under it, and bad input.

Opponents are cheap agents (random, greedy) so every game takes a moment once compiled."""

import json
import re

import pytest
from click.testing import CliRunner

from cuttle_search.cli import main
from cuttle_search.engine import layout as L
from cuttle_search.engine.info import unseen_cards
from cuttle_search.game.cards import card_str, cards_in
from cuttle_search.game.gamelog import read_game_log, replay
from cuttle_search.game.rules import get_ruleset
from cuttle_search.game.position import PHASE_NAMES
from cuttle_search.play.session import GameSession, PlayError, new_session, opponent_specs, split_specs
from cuttle_search.play.terminal import Terminal

ONES = "1\n" * 600  # answer every decision with the first legal move


def play(*args, input=ONES):
    return CliRunner().invoke(main, ["play", *[str(a) for a in args]], input=input)


def prompts(out: str, seat: str = "p0") -> int:
    return len(re.findall(rf"^{seat}> ", out, re.M))


# ---------------------------------------------------------------- whole games
def test_two_seat_game_to_the_end_saves_a_log_that_replays_to_the_same_end(tmp_path):
    log = tmp_path / "g.json"
    r = play("--seed", 3, "--opponents", "random", "--save", log)
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert out.startswith("cuttle-search play: cuttle-cards, seed 3; you are p0; p1 random")
    assert "p1 (random): " in out and "p0 (you): " in out
    assert re.search(r"^game over: (won, p[01] wins|stalemate.*): (you win|you lose|nobody wins)$", out, re.M)
    assert f"review the game with: cuttle-search review {log} --player p0" in out
    data = read_game_log(log)
    assert data["players"] == {"p0": "human", "p1": "random"}
    end = replay(data)
    assert end.is_over and end.result() == data["result"]
    assert f"game over: {end.result()['status']}" in out
    won = end.result()["winner"]
    assert ("you win" in out) == (won == "p0") and ("you lose" in out) == (won == "p1")


def test_cutthroat_with_one_agent_a_seat():
    r = play("--rules", "cutthroat", "--seat", "p1", "--opponents", "random;greedy", "--seed", 5)
    assert r.exit_code == 0, r.output
    assert "you are p1; p0 random, p2 greedy" in r.stdout
    assert "p0 (random): " in r.stdout and prompts(r.stdout, "p1") >= 1
    assert re.search(r"^game over: .*: (you win|you lose|nobody wins)$", r.stdout, re.M)


def test_team_game_reports_the_team_result(tmp_path):
    log = tmp_path / "team.json"
    r = play("--rules", "team", "--seat", "p2", "--opponents", "random", "--seed", 5, "--save", log)
    assert r.exit_code == 0, r.output
    assert "you are p2; p0 random, p1 random, p3 random" in r.stdout
    end = replay(read_game_log(log))
    rules = get_ruleset("team")
    winner = end.result()["winner"]
    if winner is None:
        assert "nobody wins" in r.stdout
    elif rules.side_of(int(winner[1])) == rules.side_of(2):
        assert "your team wins" in r.stdout
    else:
        assert "your team loses" in r.stdout
    assert f"review the game with: cuttle-search review {log} --player p2" in r.stdout  # any seat: review takes it


def test_moves_by_number_and_by_notation_play_the_same_game():
    by_number = play("--seed", 8, "--opponents", "greedy", input="1\nquit\n").stdout
    by_text = play("--seed", 8, "--opponents", "greedy", input="draw\nquit\n").stdout
    assert by_number.replace("p0> 1\n", "p0> draw\n") == by_text


def test_same_seed_and_inputs_give_the_same_transcript():
    inputs = "2\n1\nboard\n1\nundo\n3\n" + ONES
    a = play("--seed", 11, "--opponents", "greedy", input=inputs)
    b = play("--seed", 11, "--opponents", "greedy", input=inputs)
    assert a.exit_code == b.exit_code == 0
    assert a.stdout == b.stdout
    assert play("--seed", 12, "--opponents", "greedy", input=inputs).stdout != a.stdout


def test_no_seed_picks_one_and_prints_it():
    r = play("--opponents", "random", input="quit\n")
    assert r.exit_code == 0 and re.search(r"^cuttle-search play: cuttle-cards, seed \d+;", r.stdout)


# ---------------------------------------------------------------- prompt commands
def test_undo_goes_back_to_the_previous_decision_with_the_replies():
    r = play("--seed", 3, "--opponents", "greedy", input="1\nundo\nundo\nquit\n")
    out = r.stdout
    boards = out.split("p0> ")
    # the board after undo is the board of the first decision again
    first = out[: out.index("p0> 1")]
    after_undo = out[out.index("back to your decision at move 1"):]
    assert first[first.index("cuttle-cards · turn 0"):] in after_undo
    assert "undo: nothing to undo (this is your first decision)" in out
    assert len(boards) == 5


def test_session_undo_restores_the_game_and_its_generator():
    rules = get_ruleset("cuttle-cards")
    s = GameSession(rules, 0, {1: "random"}, seed=4)
    s.advance()
    state0, moves0 = s.position.state.copy(), list(s.moves)
    s.play(1)
    state1, moves1 = s.position.state.copy(), list(s.moves)
    s.play(1)
    assert s.undo() and s.undo() and not s.undo()
    assert (s.position.state == state0).all() and s.moves == moves0
    s.play(1)  # the same move meets the same (random) replies
    assert (s.position.state == state1).all() and s.moves == moves1


def test_save_mid_game_then_the_log_replays_to_the_same_position(tmp_path):
    path = tmp_path / "mid.json"
    r = play("--rules", "cutthroat", "--seed", 2, "--opponents", "random", input=f"1\n1\nsave {path}\nquit\n")
    assert r.exit_code == 0, r.output
    assert f"wrote {path}; review it with: cuttle-search review {path}" in r.stdout
    data = read_game_log(path)
    assert data["rules"] == "cutthroat" and data["players"] == {"p0": "human", "p1": "random", "p2": "random"}
    s = new_session(get_ruleset("cutthroat"), "p0", "random", 2)
    s.advance()
    s.play(1)
    s.play(1)
    assert (replay(data).state == s.position.state).all()
    assert data["moves"] == [m.text() for m in s.moves]
    assert "the game stops at move" in r.stdout


def test_hint_ranks_the_moves_with_intervals():
    r = play("--seed", 3, "--opponents", "greedy", input="hint 300\nquit\n")
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "move 1: p0 to act (main), rules cuttle-cards" in out
    assert "300 iterations in" in out and "95% interval" in out and "principal variation" in out
    table = out[out.index("p0> hint 300"):out.index("p0> quit")]
    rows = re.findall(r"^ *\d+  (draw|points|glasses|royal|jack|scuttle|one-off) .*\d\.\d{3}-\d\.\d{3}", table, re.M)
    assert 1 <= len(rows) <= 10
    best = re.search(r"^best: (.+), number (\d+) of your moves", out, re.M)
    listed = re.search(rf"^ +{best[2]}  (.+)$", out, re.M)
    assert best and listed[1] == best[1] and re.search(rf"^1  {best[1]} ", table, re.M)
    # two seats: the best-reply back-up as a column (300 iterations: outside the calibration map)
    assert "best reply = the score with the opponent's best replies backed up" in table
    header = next(line for line in table.splitlines() if line.startswith("#"))
    assert "best reply" in header and "calibrated" not in header


def test_hint_does_not_change_the_game():
    plain = play("--seed", 6, "--opponents", "random", input="1\n1\n1\nquit\n").stdout
    hinted = play("--seed", 6, "--opponents", "random", input="hint 100\n1\n1\nhint 100\n1\nquit\n").stdout
    strip = re.compile(r"^p0> hint 100\n(.*\n)*?(?=p0> )", re.M)
    assert strip.sub("", hinted) == plain


def test_hints_off_refuses_the_hint():
    r = play("--seed", 3, "--hints", "off", input="hint\nquit\n")
    assert "hint: hints are off in this game (--hints off)" in r.stdout and "95% interval" not in r.stdout


def test_help_moves_board_and_end_of_input():
    r = play("--seed", 3, input="help\nmoves\nboard\n")
    out = r.stdout
    assert r.exit_code == 0
    assert "undo          back to your previous decision" in out
    assert out.count("your moves (your turn):") == 2 and out.count("cuttle-cards · turn 0") == 2
    assert out.rstrip().endswith("end of input: the game stops at move 1")


def test_commands_typed_after_spaces_are_read_as_commands(tmp_path):
    # "  board" was read as board with the argument "rd", and " save g.json" saved to "e g.json"
    save = tmp_path / "g.json"
    r = play("--seed", 3, input=f"  board\n save {save}\n  quit\n")
    assert r.exit_code == 0 and "takes nothing" not in r.stdout
    assert r.stdout.count("cuttle-cards · turn 0") == 2 and save.exists()
    assert r.stdout.rstrip().endswith("you left the game: the game stops at move 1")


@pytest.mark.parametrize("line, message", [
    ("foo", "unknown command or move 'foo' (type help for the commands)"),
    ("board 2", "board: takes nothing after it, not '2'; type board"),  # it was read as board
    ("quit now", "quit: takes nothing after it, not 'now'; type quit"),
    ("99", "move: there is no move 99; choose 1-"),
    ("0", "move: there is no move 0; choose 1-"),
    ("-1", "move: there is no move -1; choose 1-"),  # (it was an unknown command)
    ("points ZZ", "'points ZZ': "),
    ("scuttle 8H 8C", "'scuttle 8H 8C' is not legal here"),
    ("hint abc", "hint: N must be a whole number of iterations from 1 to"),
    ("hint 0", "hint: N must be a whole number of iterations from 1 to"),
    ("save", "save: name the file, as in: save game.json"),
    ("save /nonexistent-dir/x/g.json", "save: cannot write '/nonexistent-dir/x/g.json'"),
])
def test_bad_input_at_the_prompt_is_one_line_and_the_prompt_again(line, message):
    r = play("--seed", 3, input=f"{line}\nquit\n")
    assert r.exit_code == 0 and "Traceback" not in r.output
    out = r.stdout
    after = out[out.index(f"p0> {line}\n") + len(f"p0> {line}\n"):]
    said, rest = after.split("\n", 1)
    assert message in said
    assert rest.startswith("p0> quit")


# ---------------------------------------------------------------- options
@pytest.mark.parametrize("args, option, words", [
    (["--seat", "p2"], "--seat", "'p2' is not a seat of cuttle-cards (p0-p1)"),
    (["--seat", "north"], "--seat", "'north' is not a seat"),
    (["--rules", "cutthroat", "--seat", "p3"], "--seat", "(p0-p2)"),
    (["--opponents", "nobody"], "--opponents", "unknown agent 'nobody'"),
    (["--opponents", "random;greedy"], "--opponents", "1 other seat (p1), so give one agent spec or 1, not 2"),
    (["--rules", "team", "--opponents", "random,greedy"], "--opponents", "3 other seats (p1, p2, p3)"),
    (["--opponents", "random;"], "--opponents", "an empty agent spec"),
    (["--rules", "cutthroat", "--opponents", "cuttlebot"], "--opponents", "plays games of at most 2 seats"),
    (["--opponents", "ismcts:iterations=-5"], "--opponents", "iterations must be > 0"),
    (["--rules", "nosuch"], "--rules", "nosuch"),
    (["--hints", "maybe"], "--hints", "maybe"),
    (["--seed", "-1"], "--seed", "-1"),
])
def test_bad_options_are_one_line_and_exit_2(args, option, words):
    r = play(*args, input="quit\n")
    assert r.exit_code == 2, r.output
    assert option in r.output and words in r.output and "Traceback" not in r.output
    assert "p0> " not in r.stdout


def test_opponent_lists_split_on_semicolons_or_commas_between_specs():
    assert split_specs("greedy,ismcts:iterations=500,c=1") == ["greedy", "ismcts:iterations=500,c=1"]
    assert split_specs("ismcts:iterations=5,,c=1") == ["ismcts:iterations=5,,c=1"]  # one spec, as the arena reads it
    assert split_specs("ismcts:iterations=500,c=1;random") == ["ismcts:iterations=500,c=1", "random"]
    rules = get_ruleset("team")
    assert opponent_specs("random, greedy ,pimc:iterations=50", rules, 1) == {0: "random", 2: "greedy", 3: "pimc:iterations=50"}
    with pytest.raises(PlayError, match="opponents: "):
        opponent_specs("random,greedy", rules, 0)


# ---------------------------------------------------------------- what the person sees
def test_narration_never_names_a_card_the_seat_cannot_see():
    """Every move is told with the cards the person cannot see after it (the engine's
    unseen_cards) as ??; an opponent's draw is just "draw"; only the person's own draws
    name the card drawn, and that card is in their hand."""
    draws = 0
    for rules, seed in (("cuttle-cards", 1), ("cutthroat", 3), ("team", 2), ("multiplayer:players=5", 4)):
        rs = get_ruleset(rules)
        s = GameSession(rs, 1, {q: "random" for q in range(rs.players) if q != 1}, seed=seed)
        events = s.advance()
        while not s.is_over:
            events += s.play(1)
        replayed = s.start.copy()
        terminal = Terminal(s)
        for e, move in zip(s.events, s.moves):
            replayed.push(move)
            hidden = {card_str(c) for c in cards_in(int(unseen_cards(replayed.state, replayed.rules_array, 1)))}
            assert not hidden & set(e.text.split()), (rules, e)
            assert not hidden & set(re.split(r"[\s():,]+", terminal.line(e))), (rules, e)  # the words told too
            if e.mover != 1:
                assert not e.drawn
                if move.kind == "draw":
                    draws += 1
                    assert e.text == "draw"
            for c in e.drawn:
                assert c not in hidden
        assert len(events) == len(s.events)
    assert draws > 0


def test_the_board_shows_only_the_persons_view():
    r = play("--seed", 3, input="quit\n")
    out = r.stdout
    s = new_session(get_ruleset("cuttle-cards"), "p0", "greedy", 3)
    s.advance()
    theirs = [card_str(c) for c in cards_in(s.position.hand(1))]
    board = out[: out.index("p0> ")]
    assert f"hand ({len(theirs)}): " + " ".join(["??"] * len(theirs)) in board
    for c in theirs:
        assert not re.search(rf"\b{c}\b", board)
    assert "p0 (you)" in board and "p0's view" in board


def test_game_over_shows_the_whole_board_and_the_review_offer():
    r = play("--seed", 3, "--opponents", "random")
    out = r.stdout
    last = re.findall(r"^cuttle-cards · turn .*$", out, re.M)[-1]
    assert "game over" in last and last.endswith("· full information")
    assert "to review a game, keep its log: --save FILE, or save FILE at the prompt" in out


def test_hint_gives_proven_values_once_nothing_is_hidden():
    """With the deck empty both hands are in sight (cuttle-cards), so the exact solver answers first."""
    s = GameSession(get_ruleset("cuttle-cards"), 0, {1: "random"}, seed=8)
    s.advance()
    answers = 0
    while not s.is_over and s.position.state[L.F_DECK_N] > 0:
        s.play(1)
        answers += 1
    assert not s.is_over
    r = play("--seed", 8, "--opponents", "random", input="1\n" * answers + "hint 200\nquit\n")
    table = r.stdout[r.stdout.index("p0> hint 200"):]
    assert "exact solver first: proven " in table
    assert re.search(r"^ *# +move .*gap +proven +principal variation$", table, re.M)
    assert re.search(r"^ *1  .*(win|draw|loss)( in \d+)?  ", table, re.M)


def test_chance_events_are_narrated_as_what_happened():
    """A four=random 4's discards say whose cards went (they go to the scrap: in sight);
    they were told as ``chance: random-discard 4H 9C``."""
    r = play("--rules", "cuttle-cards:four=random", "--seed", 0, "--opponents", "random")
    told = re.findall(r"^chance: (p[01]) \((you|random)\) discards((?: [2-9TJQKA][CDHS])+) at random$", r.stdout, re.M)
    assert told and "random-discard" not in r.stdout
    s = GameSession(get_ruleset("cuttle-cards:four=random"), 0, {1: "random"}, seed=11)
    s.advance()
    for k in (8, 5, 2, 2):
        s.play(k)
    lines = [Terminal(s).line(e) for e in s.events if e.mover == L.ACTOR_CHANCE]
    assert lines == ["chance: p0 (you) discards 6S JC at random", "chance: p1 (random) discards AD 7H at random"]


def test_hostile_lines_at_the_prompt_never_crash():
    nasty = ["\x00", "save \x00x", "9" * 5000, "²", "p²", "hint ²", "hint " + "9" * 5000, "jack", "one-off",
             "discard", "p1", "x" * 100_000, "points 7H 7H 7H", "draw draw", "undo now", "moves please", "\x1b[2J",
             "save " + "d" * 5000]
    r = play("--seed", 3, input="\n".join(nasty) + "\nquit\n")
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output and "internal error" not in r.output
    assert prompts(r.stdout) == len(nasty) + 1
    for line in r.stdout.splitlines():
        assert len(line) < 300 or line.startswith("p0> ")


def test_a_line_that_is_not_text_is_refused():
    r = CliRunner().invoke(main, ["play", "--seed", "3"], input=b"\xff\xfe\n1\nquit\n")
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output


def test_save_never_replaces_a_file_it_did_not_write(tmp_path):
    earlier = tmp_path / "earlier.json"
    earlier.write_text("a finished game\n")
    for name in (str(earlier), f"{earlier}/"):  # (a slash after it names the same file)
        r = play("--seed", 4, "--opponents", "random", "--save", name, input="quit\n")
        assert r.exit_code == 2 and "already exists; give a new name" in r.output
        assert earlier.read_text() == "a finished game\n"
    mine = tmp_path / "mine.json"
    r = play("--seed", 4, "--opponents", "random", input=f"save {earlier}\nsave {mine}\n1\nsave {mine}\nquit\n")
    assert r.exit_code == 0, r.output
    assert "already exists; give a new name (only this game's own file is replaced)" in r.stdout
    assert earlier.read_text() == "a finished game\n"  # kept
    assert r.stdout.count(f"wrote {mine}") == 2  # this game's own file, saved again
    assert len(read_game_log(mine)["moves"]) >= 1


def test_a_taken_stack_shows_under_its_controller_and_the_person_stays_at_the_bottom():
    """With more seats a stack is listed under the seat that played it; the seat that took it
    lists it too (``controls:``), in the terminal and in the page's board. A game's end shows
    the full board with the person still at the bottom and marked ``(you)``."""
    from pathlib import Path

    from cuttle_search.display import render
    from cuttle_search.game.position import Position
    from cuttle_search.web.views import board_json

    data = Position.load(Path(__file__).parent.parent / "positions" / "cutthroat-joker-steals-king-p2.json").to_dict()
    data["seats"][1]["royals"] = ["KD(X1-p2)"]  # p2's Joker took p1's King
    data["seats"][2]["hand"].remove("X1")
    pos = Position.from_dict(data)
    board = render(pos)
    p1, p2 = board.split("\np1 ")[1].split("\n\n")[0], board.split("\np2 (you) ")[1]
    assert "royals:  KD(X1-p2)" in p1 and "controls:" not in p1
    assert "controls: KD (played by p1)" in p2 and "(1 king)" in p2.splitlines()[0]
    seats = {s["seat"]: s for s in board_json(pos)["seats"]}
    assert seats["p2"]["controls"] == [{"card": "KD", "from": "p1"}] and seats["p1"]["controls"] == []
    # the whole board, as at a game's end: the person (p2) stays at the bottom, marked
    whole = render(Position.deal("cutthroat", seed=3), you=2)
    assert whole.rstrip().split("\n\n")[-1].startswith("p2 (you) ") and "p0 (you)" not in whole
    assert board_json(Position.deal("cutthroat", seed=3), you=2)["order"][-1] == "p2"
    # two seats list each stack under its controller already: no "controls:" line
    assert "controls:" not in render(Position.load(Path(__file__).parent.parent / "positions" / "jack-war-full.json"))


def _random_game(rules: str, seed: int) -> GameSession:
    """A whole game with the person in p0 playing at random (``random.Random(seed)``)
    against random agents: the same game every time."""
    import random

    rs, pick = get_ruleset(rules), random.Random(seed)
    s = GameSession(rs, 0, {q: "random" for q in range(1, rs.players)}, seed=seed)
    s.advance()
    while not s.is_over:
        s.play(pick.randint(1, len(s.legal_moves())))
    return s


def _told(s: GameSession) -> dict[int, str]:
    """Each event's narrated line by its ply."""
    terminal = Terminal(s)
    return {e.ply: terminal.line(e) for e in s.events}


def test_a_decline_says_what_it_lets_stand():
    """A ``resolve`` was told as a bare ``resolve``; it now says what it means: the one-off
    not countered (or the chain not countered back), the royal or the scuttle let stand."""
    r = play("--rules", "team", "--seed", 4, "--opponents", "random")
    out = r.stdout
    assert not re.search(r"^(p\d|chance) .*: resolve\b", out, re.M)
    for said in ("p2 (random): does not counter the 7D", "p0 (you): does not counter the 7D (your only move)",
                 "p3 (random): lets the KC stand"):
        assert f"\n{said}\n" in out
    assert _told(_random_game("multiplayer", 7))[10] == "p2 (random): does not counter the 2H (3H countered by 2H)"
    scuttle = _told(_random_game("cuttle-cards:ten-counters-scuttle", 2))
    assert scuttle[8] == "p0 (you): lets the scuttle TH onto 2C stand (your only move)"


def test_cards_a_decline_lets_come_name_their_one_off_and_a_take_is_not_repeated():
    """The person's own 5 drawing once the last seat declines was told as that seat's
    ``resolve (you get ...)``; a 3's ``take AC`` said ``(you get AC)`` again."""
    assert _told(_random_game("team", 4))[46] == "p3 (random): does not counter the 5D (the 5D resolves: you get AS 5C 7C)"
    assert _told(_random_game("multiplayer", 7))[16] == "p3 (random): does not counter the 5C (the 5C resolves: you get 4C 6D)"
    assert _told(_random_game("team", 2))[13] == "p2 (random): does not counter the 9S (the 9S resolves: you get QS)"
    assert _told(_random_game("cuttle-cards", 7))[28] == "p0 (you): take AC"


def test_a_move_typed_short_names_what_it_needs_and_the_moves_that_say_it():
    out = play("--rules", "team", "--seed", 4, "--opponents", "random", input="1\njack JD 6D\none-off 4D\nquit\n").stdout
    assert ("\n'jack JD 6D' needs the seat it hands the card to: jack JD 6D p0 (move 14), jack JD 6D p2 (move 15), "
            "jack JD 6D p3 (move 16)\n") in out
    assert "\n'one-off 4D' needs the seat it aims at: one-off 4D p1 (move 3), one-off 4D p3 (move 4)\n" in out
    out = play("--seed", 8, "--opponents", "random", input="1\ndiscard 6C\ndiscard 4D 6C 7S\nquit\n").stdout
    assert ("\n'discard 6C' needs two cards to discard: discard 4D 6C (move 1), discard 6C 7S (move 3), "
            "discard 6C TC (move 5), discard 6C KD (move 8), discard 6C KH (move 12)\n") in out
    assert "\n'discard 4D 6C 7S' is not legal here\n" in out  # (more than it takes: no list)


def test_the_moves_list_names_the_decision_in_plain_words():
    """``your moves (answeringRoyal):`` showed the engine's phase name."""
    from cuttle_search.display import PHASE_WORDS

    assert set(PHASE_WORDS) == set(PHASE_NAMES.values())
    out = play("--rules", "team", "--seed", 4, "--opponents", "random").stdout
    shown = set(re.findall(r"^your moves \((.*)\):$", out, re.M))
    assert shown <= set(PHASE_WORDS.values()) and "a royal waits: send it back with a 9 or let it stand" in shown
    assert "your turn" in shown


def test_history_prints_the_moves_as_they_were_told():
    r = play("--rules", "cutthroat", "--seed", 2, "--opponents", "random", input="history\n1\n1\nhistory\nhelp\nquit\n")
    out = r.stdout
    assert r.exit_code == 0 and "\np0> history\nhistory: no moves yet\n" in out
    before, listed = out.split("p0> history\n")[1:]
    told = re.findall(r"^((?:p\d \([^)]*\)|chance): .*)$", before + listed.split("p0> ")[0], re.M)
    numbered = re.findall(r"^ +(\d+)  (.*)$", listed.split("p0> ")[0], re.M)
    assert told and [line for _, line in numbered] == told
    assert [int(k) for k, _ in numbered] == list(range(1, len(told) + 1))
    assert "  history       the moves so far, as you saw them" in out


# ---------------------------------------------------------------- at a terminal
class _Keyboard:
    """A person at a terminal: ``input`` answers each prompt from ``answer(prompt)`` (a
    string, or an exception to raise, as Ctrl-C raises KeyboardInterrupt)."""

    def __init__(self, answer):
        self.answer = answer
        self.prompts: list[str] = []

    def __call__(self, prompt: str = "") -> str:
        self.prompts.append(prompt)
        reply = self.answer(prompt)
        if isinstance(reply, BaseException):
            raise reply
        return reply


class _TTY:
    def isatty(self) -> bool:
        return True


def _at_terminal(monkeypatch, answer, save=None, seed=5):
    from cuttle_search.play.terminal import Terminal

    keyboard = _Keyboard(answer)
    monkeypatch.setattr("builtins.input", keyboard)
    session = GameSession(get_ruleset("cuttle-cards"), 0, {1: "random"}, seed=seed)
    code = Terminal(session, hints=False, save_path=save, stdin=_TTY()).run()
    return code, keyboard, session


def test_at_a_terminal_the_game_over_prompt_offers_what_it_can_do_and_a_ctrl_c_there_ends_quietly(monkeypatch, capsys):
    over = iter(["help", KeyboardInterrupt()])
    code, keyboard, session = _at_terminal(monkeypatch, lambda p: "1" if p == "p0> " else next(over))
    out = capsys.readouterr().out
    assert session.is_over and code == 130 and keyboard.prompts[-2:] == ["game over> ", "game over> "]
    help_text = out[out.rindex("the game is over:"):]
    assert "undo" in help_text and "save FILE" in help_text and "hint" not in help_text and "N or a move" not in help_text
    assert out.rstrip().endswith("interrupted: the game was over") and "the game stops at move" not in out


def test_at_a_terminal_save_writes_the_log_and_the_game_over_prompt_stays(monkeypatch, capsys, tmp_path):
    log = tmp_path / "game.json"
    code, keyboard, session = _at_terminal(monkeypatch, lambda p: "1" if p == "p0> " else "quit", save=str(log))
    out = capsys.readouterr().out
    assert code == 0 and keyboard.prompts[-1] == "game over> " and log.is_file()
    assert f"wrote {log}" in out and replay(read_game_log(log)).is_over


def test_the_game_over_line_names_the_prompts_commands(monkeypatch, capsys, tmp_path):
    """It said ``undo, board, quit`` (no save, help or history); history works there too."""
    over = iter(["history", "quit"])
    _at_terminal(monkeypatch, lambda p: "1" if p == "p0> " else next(over))
    out = capsys.readouterr().out
    assert ("\nto review the game: save FILE, then cuttle-search review FILE; "
            "at this prompt: save FILE, undo, board, history, help, quit\n") in out
    assert re.search(r"^ +1  p0 \(you\): ", out, re.M)  # (history: the narration is not numbered)
    _at_terminal(monkeypatch, lambda p: "1" if p == "p0> " else "quit", save=str(tmp_path / "g.json"))
    assert "\nat this prompt: save FILE, undo, board, history, help, quit\n" in capsys.readouterr().out


def test_a_line_that_is_not_utf8_is_asked_again():
    r = CliRunner().invoke(main, ["play", "--seed", "1", "--opponents", "random"], input=b"\xff\xfe\nquit\n")
    assert r.exit_code == 0 and "input: that line is not UTF-8 text; type it again" in r.stdout
    assert "unknown command" not in r.stdout


def test_ctrl_c_during_a_hint_shows_what_the_search_found(capsys):
    import _thread

    from cuttle_search.play.terminal import Terminal

    session = GameSession(get_ruleset("cuttle-cards"), 0, {1: "random"}, seed=2)
    session.advance()
    calls = []

    def progress(total):  # the live line's update: the third one presses Ctrl-C
        def update(*args, **kwargs):
            calls.append(1)
            if len(calls) == 3:
                _thread.interrupt_main()
        return None, update

    terminal = Terminal(session, table=lambda result: f"TABLE {len(result.moves)} moves", progress=progress)
    terminal.hint("50000000")
    out = capsys.readouterr().out
    found = re.search(r"hint stopped after ([\d,]+) iterations \(the table above is what it found\)", out)
    assert found and 0 < int(found[1].replace(",", "")) < 50_000_000 and "TABLE" in out and "best: " in out


def test_a_card_played_from_a_sevens_reveal_is_told_as_such(capsys):
    from cuttle_search.play.session import SEVEN_NOTE
    from cuttle_search.play.terminal import Terminal

    for seed in range(200):
        session = GameSession(get_ruleset("cuttle-cards"), 0, {1: "random"}, seed=seed)
        session.advance()
        while not session.is_over:
            session.play(1)
        sevens = [e for e in session.events if e.from_seven]
        if sevens:
            break
    assert sevens, "no 7 played from a reveal in 200 games"
    assert all(e.text.split()[1] != "??" for e in sevens)  # a card played from the reveal is seen
    Terminal(session).narrate(session.events)
    told = capsys.readouterr().out.splitlines()
    assert len([line for line in told if line.endswith(SEVEN_NOTE)]) == len(sevens) > 0
    assert SEVEN_NOTE == " (a card its 7 turned up from the deck)"


def test_an_undo_after_the_end_does_not_overwrite_the_finished_log(monkeypatch, capsys, tmp_path):
    """--save's file holds the finished game; the person undoes at the game-over prompt and
    quits: the finished log stays (it was overwritten by the unfinished line of play)."""
    log = tmp_path / "game.json"
    ended: list[str] = []

    def answer(prompt: str) -> str:
        if prompt == "game over> ":
            ended.append(prompt)
            return "undo"
        return "quit" if ended else "1"

    code, _keyboard, session = _at_terminal(monkeypatch, answer, save=str(log))
    out = capsys.readouterr().out
    assert code == 0 and ended and not session.is_over and replay(read_game_log(log)).is_over
    assert f"{log} keeps the finished game; this line of play is not saved" in out


def test_the_game_over_prompt_names_what_it_takes_and_save_names_no_review_for_a_device(monkeypatch, capsys):
    over = iter(["dance", "save /dev/null", "quit"])
    code, _keyboard, _session = _at_terminal(monkeypatch, lambda p: "1" if p == "p0> " else next(over))
    out = capsys.readouterr().out
    assert "the game is over: 'dance' is not one of save, undo, board, history, help, quit" in out
    assert "wrote the log to /dev/null (not a regular file: nothing there to review later)" in out
    assert "review /dev/null" not in out


def test_the_final_boards_header_names_no_seat_to_play():
    from cuttle_search.display import render
    from cuttle_search.game.position import Position

    pos = Position.deal("cuttle-cards", seed=11)
    playing = render(pos).splitlines()[0]
    assert "p0's turn" in playing
    while not pos.is_over:
        pos.push(pos.legal_moves()[0])
    header = render(pos).splitlines()[0]
    assert "'s turn" not in header and "game over" in header, header


# ---------------------------------------------------------------- resuming a saved game
def test_a_resumed_game_is_the_saved_game_with_the_same_narration_and_goes_on(tmp_path):
    from cuttle_search.play.session import resume_session

    s = new_session(get_ruleset("cutthroat"), "p1", "random", 5)
    s.advance()
    for _ in range(3):
        s.play(1)
    again = resume_session(s.log(), seed=9)
    assert (again.position.state == s.position.state).all() and again.moves == s.moves
    assert again.seat == 1 and again.specs == s.specs and again.resumed == len(s.moves)
    assert [(e.text, e.drawn, e.mover) for e in again.events] == [(e.text, e.drawn, e.mover) for e in s.events]
    assert again.log() == s.log()  # saved again before a move: the same file
    assert not again.can_undo  # the saved moves stay: undo reaches back to the resume only
    again.advance()
    again.play(1)
    assert again.log()["moves"][:len(s.moves)] == s.log()["moves"] and again.can_undo
    again.undo()
    assert again.moves == s.moves and not again.can_undo


def test_play_resume_goes_on_in_the_saved_file_and_save_names_another(tmp_path):
    path = tmp_path / "g.json"
    r = play("--seed", 3, "--opponents", "random", input=f"1\n1\nsave {path}\nquit\n")
    saved = read_game_log(path)["moves"]
    r = play("--resume", path, "--seed", 1, input="1\nquit\n")
    assert r.exit_code == 0, r.output
    assert f"resumed after move {len(saved)}: the saved game" in r.stdout
    assert "p1 random" in r.stdout.splitlines()[0] and f"wrote {path}" in r.stdout
    longer = read_game_log(path)["moves"]
    assert longer[:len(saved)] == saved and len(longer) > len(saved)
    other = tmp_path / "other.json"
    r = play("--resume", path, "--seed", 1, "--save", other, input="1\nquit\n")
    assert r.exit_code == 0 and read_game_log(path)["moves"] == longer  # the resumed file kept as it was
    assert read_game_log(other)["moves"][:len(longer)] == longer


@pytest.mark.parametrize("change, words", [
    (lambda d: d["players"].update(p1="human"), "players: expected one seat played by 'human' (yours), got 2"),
    (lambda d: d["players"].update(p0="greedy"), "players: expected one seat played by 'human' (yours), got 0"),
    (lambda d: d["players"].pop("p1"), "players: the log names no agent for p1"),
    (lambda d: d["players"].update(p1="nobot"), "players: "),
    (lambda d: d["moves"].append("points ZZ"), "moves["),
])
def test_a_log_that_cannot_be_resumed_is_one_line_naming_the_field(tmp_path, change, words):
    path = tmp_path / "g.json"
    play("--seed", 3, "--opponents", "random", input=f"1\nsave {path}\nquit\n")
    data = read_game_log(path)
    change(data)
    path.write_text(json.dumps(data))
    r = play("--resume", path, input="quit\n")
    assert r.exit_code == 2 and "Invalid value for --resume: " + words in r.output and "Traceback" not in r.output


def test_a_finished_game_a_history_and_options_the_log_decides_are_refused(tmp_path):
    done = tmp_path / "done.json"
    play("--seed", 3, "--opponents", "random", "--save", done)
    r = play("--resume", done, input="quit\n")
    assert r.exit_code == 2 and "log: the game is over (won" in r.output and "review it" in r.output
    (tmp_path / "h.json").write_text("[]")
    r = play("--resume", tmp_path / "h.json", input="quit\n")
    assert r.exit_code == 2 and "a cuttle.cards history names no agents" in r.output
    r = play("--resume", done, "--opponents", "greedy", input="quit\n")
    assert r.exit_code == 2 and "--opponents: the resumed game's opponents come from its log" in r.output.replace(
        "Invalid value for ", "")


def test_a_resumed_game_goes_on_as_its_seed_draws():
    from cuttle_search.play.session import resume_session

    s = new_session(get_ruleset("cuttle-cards"), "p0", "random", 6)
    s.advance()
    s.play(1)

    def onwards(seed):
        again = resume_session(s.log(), seed=seed)
        again.advance()
        while not again.is_over:
            again.play(1)
        return again.log()["moves"]

    assert onwards(1) == onwards(1) != onwards(2)
