"""One game between a person and agents: the state behind ``cuttle-search play``.

A :class:`GameSession` holds the game (a full-information :class:`Position` dealt from the
seed), the person's seat, an agent in every other seat (from the registry, ``agents.py``),
the moves played, the undo marks and the narration. It does no input or output, so the
terminal front end (``terminal.py``) and a later browser board drive the same object:
``advance`` plays the agents and chance up to the person's next decision, ``play`` takes
the person's move, ``undo`` goes back to their previous decision, ``hint`` asks the
analyser, ``log`` is the game log ``replay`` and ``review`` read.

The person sees only their seat's view: :meth:`GameSession.view` is ``Position.view_of``,
and every move is narrated with the cards that seat cannot see (``engine.info``'s
``unseen_cards`` once the move is played) written ``??``.

Reproducible: the deal is ``arena``'s first deal of the seed (``deal_seed(seed, 0)``), and
chance and the agents draw from one generator seeded from that deal, as in ``arena``; a
hint never draws from it. The same seed and the same moves give the same game. ``undo``
restores the generator as it was at that decision, so the same move played again meets
the same replies.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from ..analysis import AnalysisResult, analyse
from ..analysis.limits import MAX_SEED, CancelEvent
from ..display import result_text
from ..engine import layout as L
from ..engine.info import unseen_cards
from ..game.cards import card_str, cards_in
from ..game.inputs import check_writable, whole_number, write_whole
from ..game.errors import CuttleError, brief
from ..game.gamelog import GameLogError, deal_position, read_game
from ..game.moves import Move
from ..game.position import Position, PositionError
from ..game.seats import parse_seat as read_seat, plain_number, seat_name, seat_number, whole
from ..game.rules import Ruleset, find_ruleset
from .agent import Agent, AgentError, decide, show_move, win_share
from .agents import make_agent
from .arena_games import GameRecord, deal_seed

HUMAN = "human"  # the person's name in the game log's "players"


class PlayError(CuttleError):
    """Bad input to a game session (a seat, the opponents, a move number, a file):
    one line naming the field."""


def parse_seat(text: str, rules: Ruleset) -> int:
    """The seat ``pN`` of a game of ``rules``."""
    q = seat_number(text, rules.players) if isinstance(text, str) else None
    if q is not None:
        return q
    raise PlayError(f"seat: {brief(text)} is not a seat of {rules.spec} (p0-{seat_name(rules.players - 1)})")


def split_specs(text: str) -> list[str]:
    """Agent specs in a list: ``;`` separates them; so does ``,`` except before a
    ``param=value`` or an empty part (which belong to the spec before it, as the arena
    reads one spec: ``greedy,ismcts:iterations=500,c=1`` is two specs)."""
    if ";" in text:
        return [p.strip() for p in text.split(";")]
    specs: list[str] = []
    for part in text.split(","):
        if specs and (("=" in part and ":" not in part) or not part.strip()):
            specs[-1] += "," + part
        else:
            specs.append(part)
    return [p.strip() for p in specs]


def opponent_specs(text: str, rules: Ruleset, seat: int) -> dict[int, str]:
    """The agent spec of every seat but ``seat``: one spec for all of them, or one a seat
    in seat order. Each is checked by building it (``make_agent``) and asking whether it
    plays a game of this many seats."""
    others = [q for q in range(rules.players) if q != seat]
    specs = split_specs(text if isinstance(text, str) else "")
    if any(not s for s in specs):
        raise PlayError(f"opponents: an empty agent spec in {brief(text)}")
    if len(specs) == 1:
        specs = specs * len(others)
    if len(specs) != len(others):
        names = ", ".join(seat_name(q) for q in others)
        raise PlayError(f"opponents: {rules.spec} has {len(others)} other seat{'s' * (len(others) != 1)} ({names}), "
                        f"so give one agent spec or {len(others)}, not {len(specs)}")
    out = {}
    for q, spec in zip(others, specs):
        try:
            make_agent(spec).check_game(rules)
        except AgentError as e:
            raise PlayError(f"opponents: {e}") from None
        out[q] = spec
    return out


class Stopped(Exception):
    """The session's ``cancel`` was set while the agents played (not an input error)."""


@dataclass(frozen=True)
class Event:
    """One move as the person saw it: ``mover`` (a seat, or -1 for chance), ``text`` (the
    move with the cards they cannot see as ``??``) and ``drawn`` (cards that came into
    their own hand with it). ``phase`` is the phase it was decided in
    (``Position.phase_name``); a ``resolve`` keeps in ``answered`` what it let stand (the
    one-off and its counter 2s, the royal, or the scuttle's card and target: all on the
    table), and a chance discard in ``victim`` the seat whose cards it took."""

    ply: int
    mover: int
    text: str
    drawn: tuple[str, ...] = ()
    forced: bool = False  # the person's only legal move, played for them
    from_seven: bool = False  # a card a 7 turned up from the deck, played from there
    phase: str = ""
    answered: tuple[str, ...] = ()
    victim: int | None = None

    def told(self, who: Callable[[int], str]) -> str:
        """The move in plain words, the same in every front end: a decline says what it lets
        stand (``does not counter the 5C``), a chance discard whose cards it took (``who``
        names a seat); any other move is its notation."""
        kind, *words = self.text.split()
        if kind == "resolve" and self.phase in DECLINE_WORDS and self.answered:
            first, *rest = self.answered
            if self.phase == "countering" and rest:
                return COUNTER_BACK_WORDS.format(first, rest=" ".join(rest), last=rest[-1])
            return DECLINE_WORDS[self.phase].format(*self.answered)
        if kind == "random-discard" and self.victim is not None:
            return f"{who(self.victim)} discards {' '.join(words)} at random"
        return self.text

    def notes(self) -> str:
        """What the narration adds after the move, the same in every front end: ``(your only
        move)``, the 7's reveal, ``(you get 9S)``; cards the move names already (a 3's
        ``take AH``) are not repeated, and cards a decline lets come (the person's 5 drawing
        once the last seat declines) say which one-off brought them."""
        named = set(self.text.split())
        got = [c for c in self.drawn if c not in named]
        cause = f"the {self.answered[0]} resolves: " if self.answered and self.phase == "countering" else ""
        return (" (your only move)" * self.forced + SEVEN_NOTE * self.from_seven
                + (f" ({cause}you get {' '.join(got)})" if got else ""))


SEVEN_NOTE = " (a card its 7 turned up from the deck)"  # a move played from a 7's reveal

# what a decline (``resolve``) means, by the phase it was made in: {0} is what it lets
# stand (Event.answered), {rest} the counter 2s on a one-off
DECLINE_WORDS = {
    "countering": "does not counter the {0}",
    "answeringRoyal": "lets the {0} stand",
    "counteringScuttle": "lets the scuttle {0} onto {1} stand",
}
COUNTER_BACK_WORDS = "does not counter the {last} ({0} countered by {rest})"


@dataclass
class _Mark:
    """A decision of the person's, to undo back to: the moves before it, the generator then."""

    ply: int
    rng_state: Mapping[str, Any]


class GameSession:
    """A game of ``rules`` with the person in ``seat`` and ``opponents[q]`` (an agent spec)
    in every other seat ``q``, dealt from ``seed``."""

    def __init__(self, rules: Ruleset | str, seat: int | str, opponents: dict[int, str], seed: int,
                 auto_forced: bool = True, *, deal: int | None = None, start: Position | None = None,
                 rng_seed: int | None = None) -> None:
        try:
            rules = find_ruleset(rules) if isinstance(rules, str) else rules
        except CuttleError as e:
            raise PlayError(f"rules: {e}") from None
        if not isinstance(rules, Ruleset):
            raise PlayError(f"rules: expected a ruleset or its name, got {brief(rules)}")
        seat = read_seat(seat, "seat", rules.players, PlayError)
        seed = whole(seed, "seed", 0, MAX_SEED, PlayError)
        if sorted(opponents) != [q for q in range(rules.players) if q != seat]:
            raise PlayError(f"opponents: expected one agent for every seat but {seat_name(seat)}")
        self.rules = rules
        self.seat = seat
        self.seed = seed
        self.specs = dict(opponents)
        self.auto_forced = auto_forced
        self.deal = deal_seed(seed, 0) if deal is None else deal  # (given with start: a saved game's)
        self.start = deal_position(rules, self.deal) if start is None else start
        self.dealer: int | None = None  # the seat that dealt, where a resumed log names it
        self.start_written = False  # whether the log writes its start (a resumed log that did)
        self.resumed = 0  # the moves a resumed game had when it was loaded (undo stops there)
        self.moves: list[Move] = []
        self.events: list[Event] = []
        self._marks: list[_Mark] = []
        self._restart(0, np.random.default_rng(self.deal if rng_seed is None else rng_seed).bit_generator.state)

    def who(self, seat: int) -> str:
        """A seat as the narration names it: ``p0 (you)``, ``p1 (greedy)``, or ``chance``."""
        if seat < 0:
            return "chance"
        return f"{seat_name(seat)} ({'you' if seat == self.seat else self.specs[seat]})"

    # ------------------------------------------------------------ state
    def _restart(self, ply: int, rng_state: Mapping[str, Any]) -> None:
        """The game after its first ``ply`` moves, with fresh agents that watched them and
        the generator as it was then."""
        self.agents: dict[int, Agent] = {q: make_agent(spec) for q, spec in self.specs.items()}
        for q, agent in self.agents.items():
            agent.start_game(q)
        self.position = self.start.copy()
        for move in self.moves[:ply]:
            show_move(self.agents.values(), self.position, self.position.actor, move.code())
            self.position.push(move)
        del self.moves[ply:]
        del self.events[ply:]
        self.rng = np.random.default_rng()
        self.rng.bit_generator.state = rng_state

    @property
    def players(self) -> tuple[str, ...]:
        """Every seat's player: ``human`` or the agent spec."""
        return tuple(HUMAN if q == self.seat else self.specs[q] for q in range(self.rules.players))

    @property
    def is_over(self) -> bool:
        return self.position.is_over

    @property
    def my_turn(self) -> bool:
        """Whether the pending decision is the person's."""
        return not self.is_over and self.position.actor == self.seat

    def view(self) -> Position:
        """What the person sees now (their seat's view); the full position once the game is over."""
        return self.position.copy() if self.is_over else self.position.view_of(self.seat)

    def legal_moves(self) -> list[Move]:
        """The person's legal moves (empty when the decision is not theirs)."""
        return self.position.legal_moves() if self.my_turn else []

    def result(self) -> dict[str, Any]:
        """The game's status and winner (``Position.result``), every seat of the winning side
        (``winners``: both partners of a Team win) and the person's share of it: 1 when their
        side won, 0 when another did, an equal share in a stalemate."""
        out = self.position.result()
        out["winners"] = [seat_name(q) for q in self.position.winners()]
        if self.is_over:
            out["share"] = win_share(self.position.state, self.position.rules_array, self.seat)
        return out

    # ------------------------------------------------------------ moves
    def _apply(self, code: int, forced: bool = False) -> Event:
        """Play ``code`` for whoever decides, showing it to every agent first, and narrate it."""
        pos = self.position
        mover = pos.actor
        before = pos.hand(self.seat)
        show_move(self.agents.values(), pos, mover, code)
        move = Move.from_code(code)
        phase = pos.phase_name
        answered = tuple(card_str(c) for c in pos.pending_cards()) if move.kind == "resolve" else ()
        victim = pos.victim if move.kind == "random-discard" else None
        pos.push(move)
        self.moves.append(move)
        hidden = {card_str(c) for c in cards_in(int(unseen_cards(pos.state, pos.rules_array, self.seat)))}
        words = ["??" if w in hidden else w for w in move.text().split()]
        drawn = tuple(card_str(c) for c in cards_in(pos.hand(self.seat) & ~before))
        event = Event(len(self.moves), mover, " ".join(words), drawn, forced, move.from_seven, phase, answered, victim)
        self.events.append(event)
        return event

    def advance(self, each: Callable[[Event], None] | None = None, cancel: CancelEvent | None = None) -> list[Event]:
        """Play chance and the agents until the person decides or the game ends (and, with
        ``auto_forced``, the person's only legal move when they have one choice). ``each``
        is called with every event as it happens (a terminal shows each opponent's move
        while the next one thinks). Once ``cancel`` is set (a page that went away) it
        raises :class:`Stopped` at once: an agent's search in progress is cut short and its
        move not played."""
        out: list[Event] = []

        def step(event: Event) -> None:
            out.append(event)
            if each is not None:
                each(event)

        while not self.is_over:
            if cancel is not None and cancel.is_set():
                raise Stopped()
            pos = self.position
            actor = pos.actor
            if actor == self.seat:
                codes = pos.legal_codes()
                if not (self.auto_forced and len(codes) == 1):
                    break
                step(self._apply(int(codes[0]), forced=True))
            elif actor == L.ACTOR_CHANCE:
                codes = pos.legal_codes()
                step(self._apply(int(codes[self.rng.integers(len(codes))])))
            else:
                agent = self.agents[actor]
                agent.cancel = cancel  # (a searching agent ends its search when it is set)
                try:
                    code = decide(agent, pos, actor, self.rng)
                finally:
                    agent.cancel = None
                if cancel is not None and cancel.is_set():
                    raise Stopped()
                step(self._apply(code))
        return out

    def choose(self, choice: str | int | Move) -> Move:
        """The person's move from a number (1-based, in ``legal_moves`` order), its text
        notation or a Move; raises :class:`PlayError` or a ``MoveError`` naming the problem."""
        legal = self.legal_moves()
        if not legal:
            raise PlayError("move: it is not your decision" + (" (the game is over)" if self.is_over else ""))
        if isinstance(choice, Move):
            return choice.resolve_against(legal)
        choice = plain_number(choice)
        if isinstance(choice, bool) or not isinstance(choice, (int, str)):
            raise PlayError(f"move: expected a move number, text or Move, got {brief(choice)}")
        minus = isinstance(choice, str) and choice.strip()[:1] == "-" and choice.strip()[1:].isdecimal()  # -1
        if isinstance(choice, int) or choice.strip().isdecimal() or minus:
            k = choice if isinstance(choice, int) else whole_number(choice.strip().lstrip("-"))
            k = -k if minus and k is not None else k
            if k is None or not 1 <= k <= len(legal):
                shown = brief(choice) if k is None else k
                raise PlayError(f"move: there is no move {shown}; choose 1-{len(legal)}")
            return legal[k - 1]
        return Move.parse(choice, legal)

    def play(self, choice: str | int | Move, each: Callable[[Event], None] | None = None,
             cancel: CancelEvent | None = None) -> list[Event]:
        """Play the person's move (see :meth:`choose`), then :meth:`advance`; the events
        narrated, the person's move first (each also handed to ``each`` as it happens).
        Stopped by ``cancel``, the game goes back to before the person's move (as
        :meth:`undo`) and :class:`Stopped` is raised."""
        move = self.choose(choice)
        self._marks.append(_Mark(len(self.moves), self.rng.bit_generator.state))
        mine = self._apply(move.code())
        if each is not None:
            each(mine)
        try:
            return [mine] + self.advance(each, cancel)
        except Stopped:
            self.undo()
            raise

    @property
    def can_undo(self) -> bool:
        return bool(self._marks)

    def undo(self) -> bool:
        """Back to the person's previous decision, the agents' replies and chance since
        undone; False when there is none."""
        if not self._marks:
            return False
        mark = self._marks.pop()
        self._restart(mark.ply, mark.rng_state)
        return True

    # ------------------------------------------------------------ the analyser
    def hint(self, iterations: int | None = None, progress: Callable[..., None] | None = None,
             time: float | None = None, cancel: threading.Event | None = None, every: float = 0.1) -> AnalysisResult:
        """The analyser's ranking of the person's moves, from their view (with two seats it
        also reads what the game so far tells about the opponent's hand). Seeded by the
        game's seed, and drawing nothing from the game's generator. ``time`` bounds it in
        seconds too; ``cancel`` ends it early (a browser that went away); ``progress`` is
        called about every ``every`` seconds. Where two sides play, each move also carries its
        score with the opponent's best replies backed up (``best_reply_score``)."""
        if not self.my_turn:
            raise PlayError("hint: it is not your decision")
        history = (self.start, list(self.moves)) if self.rules.players == 2 else None
        result = analyse(self.view(), iterations=iterations, time=time, seed=self.seed, progress=progress,
                         history=history, cancel=cancel, every=every, best_reply=True)
        result.position = f"move {len(self.moves) + 1}"
        return result

    # ------------------------------------------------------------ the log
    def log(self) -> dict[str, Any]:
        """The game so far as a game log (``gamelog``'s format, as ``arena --log-dir`` writes it)."""
        res = self.position.result()
        winner = None if res["winner"] is None else int(res["winner"][1:])
        record = GameRecord(self.rules.spec, self.deal, self.players, [m.text() for m in self.moves], winner,
                            res["status"], dealer=self.dealer, start=self.start if self.start_written else None)
        return record.to_json()

    def log_text(self) -> str:
        """:meth:`log` as the text of a log file (what :meth:`save` writes, and the web page's
        download: its 64-bit ``dealSeed`` stays exact, which a JavaScript number would not)."""
        import json

        return json.dumps(self.log()) + "\n"

    def save(self, path: str | Path, replace: bool = False) -> Path:
        """Write :meth:`log` to ``path``; a file that cannot be written raises :class:`PlayError`,
        and so does one that exists, unless ``replace`` (nothing the person wrote before is
        lost: the terminal replaces only this game's own file)."""
        p = Path(path).expanduser()
        check_writable(p, PlayError, "save")  # (a named pipe nobody reads would wait forever)
        if p.is_file() and not replace:
            raise PlayError(f"save: {brief(str(path))} already exists; give a new name (only this game's own file "
                            "is replaced)")
        try:
            write_whole(p, self.log_text())  # (a failed write keeps the file as it was: a resumed game's)
        except OSError as e:
            raise PlayError(f"save: cannot write {brief(str(path))}: {e.strerror or e}") from None
        except ValueError:  # a NUL in the name
            raise PlayError(f"save: {brief(str(path))} is not a file name") from None
        return p


def resume_session(data: Any, seed: int = 0, review: str = "review it: cuttle-search review FILE") -> GameSession:
    """The game of a saved log (``play --save``, ``save FILE`` at the prompt) going on: its
    rules, deal and players (the one ``human`` seat is the person's), its moves replayed and
    narrated, the agents watching them. ``seed`` seeds the hints and the agents' draws from
    here. A finished game, a log with no human seat or several, and a cuttle.cards history
    (no agents named) are refused with a PlayError naming the field (``review``: how the
    message sends such a game to be reviewed instead, a command or the page's tab)."""
    if isinstance(data, list):
        raise PlayError(f"log: a cuttle.cards history names no agents to play on; {review}")
    try:
        start, moves, about = read_game(data)
    except (GameLogError, PositionError) as e:
        raise PlayError(str(e)) from None
    if about.get("dealSeed") is None:
        raise PlayError("dealSeed: the log names no deal (play and arena logs do)")
    players = about["players"]
    humans = [key for key, spec in players.items() if spec == HUMAN]
    if len(humans) != 1:
        raise PlayError(f"players: expected one seat played by {HUMAN!r} (yours), got {len(humans)}: {brief(players)}")
    seat = parse_seat(humans[0], start.rules)
    specs = {}
    for q in range(start.players):
        if q != seat:
            if seat_name(q) not in players:
                raise PlayError(f"players: the log names no agent for {seat_name(q)}")
            specs[q] = players[seat_name(q)]
    try:  # (the generator, what comes next, is seed's)
        session = GameSession(start.rules, seat, specs, seed, deal=data["dealSeed"], start=start, rng_seed=seed)
    except AgentError as e:
        raise PlayError(f"players: {e}") from None
    session.dealer = start.dealer if "dealer" in data else None
    session.start_written = "start" in data
    for move in moves:
        if session.is_over:
            break
        forced = session.my_turn and len(session.position.legal_codes()) == 1
        session._apply(move.code(), forced=forced)
    if session.is_over:
        raise PlayError(f"log: the game is over ({result_text(session.position)}); {review}")
    session.resumed = len(session.moves)
    return session


def new_session(rules: Ruleset, seat: str, opponents: str, seed: int) -> GameSession:
    """A session from the command line's words: ``seat`` like ``p1``, ``opponents`` one
    agent spec or a list (see :func:`opponent_specs`)."""
    q = parse_seat(seat, rules)
    return GameSession(rules, q, opponent_specs(opponents, rules, q), seed)


__all__ = ["GameSession", "Event", "PlayError", "Stopped", "new_session", "resume_session", "opponent_specs", "parse_seat", "split_specs", "HUMAN"]
