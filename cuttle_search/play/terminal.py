"""``cuttle-search play`` in a terminal: a thin front end over :class:`.session.GameSession`.

Everything the game decides (legal moves, turn order, what the person may see, the
result) comes from the session; this module only reads lines and prints. The analysis
table and its progress bar are handed in by the command line (``cli.py``), so ``hint``
prints exactly what ``analyse`` prints.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, TextIO

import click

from ..analysis.limits import DEFAULT_ITERATIONS, MAX_ITERATIONS
from ..analysis.solve_threads import searched_until_interrupted
from ..display import PHASE_WORDS, describe_decision, render
from ..game.errors import CuttleError, brief
from ..game.moves import TYPE_OF_KIND, IllegalMoveError, Move, MoveError
from ..game.position import number_word
from ..game.seats import seat_name
from ..game.inputs import whole_number
from .session import Event, GameSession, PlayError

HINT_ROWS = 10  # a hint lists the best moves, at most this many
COMPLETIONS = 6  # a move typed short lists at most this many of the legal moves it begins

HELP = """\
commands:
  N or a move   play move N of your list, or type it ("points 7H", "jack JS 7H", "draw")
  hint [N]      the analyser's ranking of your moves: win rates, 95% intervals ({default:,} iterations, or N)
  undo          back to your previous decision (the replies since are taken back too)
  save FILE     write the game so far as a game log (cuttle-search replay and review read it)
  moves         list your moves again
  board         show the board again
  history       the moves so far, as you saw them
  help          this list
  quit          leave the game"""

GAME_OVER_HELP = {  # the game-over prompt's commands (undo only where there is a decision to go back to)
    "save": "save FILE     write the game as a game log (cuttle-search replay and review read it)",
    "undo": "undo          back to your last decision, into the game again",
    "board": "board         show the final board again",
    "history": "history       the moves of the game, as you saw them",
    "help": "help          this list",
    "quit": "quit          leave",
}

COMMANDS = ("hint", "undo", "save", "moves", "board", "history", "help", "quit", "exit")


def _no_argument(cmd: str, arg: str) -> None:
    """Refuse words after a prompt command that takes none (``board 2`` was read as ``board``)."""
    if arg:
        raise PlayError(f"{cmd}: takes nothing after it, not {brief(arg)}; type {cmd}")


def _says_more(m: Move, typed: Move) -> bool:
    """Whether ``m`` is ``typed`` with more said: its kind and card, each field typed the
    same, and a field more (a receiver seat, a target or victim, more discards)."""
    return (m.kind == typed.kind and m.card == typed.card and typed.target in (None, m.target)
            and typed.receiver in (None, m.receiver) and set(typed.cards) <= set(m.cards)
            and (m.target, m.receiver, len(m.cards)) != (typed.target, typed.receiver, len(typed.cards)))


class Terminal:
    """Plays ``session`` with a person on a text stream. ``table`` formats an analysis
    (the ``analyse`` command's table); ``progress(total)`` gives a (bar, update) pair for
    the search's live line, or (None, None); ``save_path`` is written when the game ends
    or the person leaves (replaced when ``save_path_is_ours``: the file a resumed game
    came from)."""

    def __init__(self, session: GameSession, *, hints: bool = True, save_path: str | None = None,
                 table: Callable[..., str] = str, progress: Callable[..., tuple] | None = None,
                 stdin: TextIO | None = None, save_path_is_ours: bool = False) -> None:
        self.session = session
        self.hints = hints
        self.save_path = save_path
        self.finished_log: Path | None = None  # --save's file, once it holds this game's end
        # the files this game has written (--save's, and each save FILE): saved again, they
        # are replaced; any other file is refused
        self.own_files: set[Path] = {self._where(save_path)} if save_path and save_path_is_ours else set()
        self.table = table
        self.progress = progress
        self.stdin = stdin if stdin is not None else sys.stdin
        self.interactive = bool(getattr(self.stdin, "isatty", lambda: False)())
        self.save_failed = False  # --save's file could not be written: the exit code says so

    # ------------------------------------------------------------ output
    def say(self, text: str = "") -> None:
        click.echo(text)

    def who(self, seat: int) -> str:
        return self.session.who(seat)

    def line(self, e: Event) -> str:
        """One narrated move: who made it, the move in words (``Event.told``), its notes."""
        return f"{self.who(e.mover)}: {e.told(self.who)}{e.notes()}"

    def narrate(self, events: list[Event]) -> None:
        for e in events:
            self.say(self.line(e))

    def history(self) -> None:
        """Every move so far, numbered, as it was narrated (hidden cards stay ``??``)."""
        events = self.session.events
        if not events:
            self.say("history: no moves yet")
            return
        width = len(str(events[-1].ply))
        for e in events:
            self.say(f"  {e.ply:>{width}}  {self.line(e)}")

    def show_board(self) -> None:
        self.say(render(self.session.view(), you=self.session.seat))

    def show_moves(self) -> None:
        legal = self.session.legal_moves()
        width = len(str(len(legal)))
        phase = self.session.position.phase_name
        self.say(f"your moves ({PHASE_WORDS.get(phase, phase)}):")
        for k, m in enumerate(legal, 1):
            self.say(f"  {k:>{width}}  {m.text()}")

    # ------------------------------------------------------------ input
    def read(self, prompt: str) -> str | None:
        """One line from the person, or None at the end of the input (a line that is not
        text is refused and read again)."""
        while True:
            try:
                line = self._read(prompt)
                if line is not None:
                    line.encode("utf-8")  # (a stream read with surrogate escapes keeps the bytes)
                return line
            except (UnicodeDecodeError, UnicodeEncodeError):
                self.say("input: that line is not UTF-8 text; type it again")

    def _read(self, prompt: str) -> str | None:
        if self.interactive:
            try:
                import readline  # noqa: F401  (line editing and history at a terminal)
            except ImportError:  # pragma: no cover
                pass
            try:
                return input(prompt)
            except EOFError:
                self.say()
                return None
        click.echo(prompt, nl=False)
        line = self.stdin.readline()
        if not line:
            self.say()
            return None
        line = line.rstrip("\r\n")
        self.say(line)  # the transcript shows what was typed
        return line

    # ------------------------------------------------------------ the game
    def run(self) -> int:
        """Play to the end (or until the person leaves); the exit code."""
        s = self.session
        players = ", ".join(f"{seat_name(q)} {s.specs[q]}" for q in sorted(s.specs))
        self.say(f"cuttle-search play: {s.rules.spec}, seed {s.seed}; you are {seat_name(s.seat)}; {players}")
        if s.resumed:
            self.say(f"resumed after move {s.resumed}: the saved game's deal and moves; seed {s.seed} draws what "
                     "comes next (history lists the moves so far)")
        self.say("type a move's number or its notation; help lists the commands")
        self.say()
        try:
            s.advance(each=lambda e: self.narrate([e]))
            while True:
                if s.is_over:
                    if not self.finish():
                        return 2 if self.save_failed else 0
                    continue
                self.say()
                self.show_board()
                self.say()
                self.show_moves()
                if not self.decide():
                    return 2 if self.save_failed else 0
        except KeyboardInterrupt:
            self.say()
            self.leave("interrupted")
            return 130

    def decide(self) -> bool:
        """Prompt until the person plays a move (True) or leaves (False)."""
        s = self.session
        while True:
            line = self.read(f"{seat_name(s.seat)}> ")
            if line is None:
                self.leave("end of input")
                return False
            words = line.split(None, 1)
            if not words:
                continue
            cmd, arg = words[0].lower(), words[1].strip() if len(words) > 1 else ""
            try:
                if cmd in ("quit", "exit"):
                    _no_argument(cmd, arg)
                    self.leave("you left the game")
                    return False
                if cmd in COMMANDS:
                    if self.command(cmd, arg):
                        return True
                    continue
                try:
                    move = s.choose(line)
                except IllegalMoveError:
                    self.incomplete(line)
                    raise
                except MoveError:
                    if cmd not in TYPE_OF_KIND and cmd not in ("oneoff", "one_off") and not cmd.isdecimal():
                        raise PlayError(f"unknown command or move {brief(words[0])} (type help for the commands)") from None
                    raise
                self.say()
                s.play(move, each=lambda e: self.narrate([e]))
                return True
            except CuttleError as e:
                self.say(str(e))

    def incomplete(self, line: str) -> None:
        """Raise a PlayError naming what ``line`` leaves out when legal moves say more than
        it (a Jack's receiver seat, a 4's victim, every discard), and listing them; return
        when none does (it is not legal, full stop)."""
        typed = Move.parse(line)
        more = [(k, m) for k, m in enumerate(self.session.legal_moves(), 1) if _says_more(m, typed)]
        if not more:
            return
        first = more[0][1]
        if typed.receiver is None and first.receiver is not None:
            need = "the seat it hands the card to"
        elif typed.target is None and first.target is not None:
            need = "the seat it aims at" if first.target_seat is not None else "its target"
        else:
            sizes = {len(m.cards) for _, m in more}
            need = f"{number_word(sizes.pop())} cards to discard" if len(sizes) == 1 else "more cards to discard"
        shown = ", ".join(f"{m.text()} (move {k})" for k, m in more[:COMPLETIONS])
        left = len(more) - COMPLETIONS
        shown += f" and {left} more (moves lists them)" if left > 0 else ""
        raise PlayError(f"{brief(typed.text())} needs {need}: {shown}")

    def command(self, cmd: str, arg: str) -> bool:
        """Run a prompt command; True when the game moved on (an undo)."""
        s = self.session
        if cmd not in ("save", "hint"):
            _no_argument(cmd, arg)
        if cmd == "help":
            over = "\n".join(f"  {GAME_OVER_HELP[c]}" for c in self.over_commands())
            self.say(f"the game is over:\n{over}" if s.is_over else HELP.format(default=DEFAULT_ITERATIONS))
        elif cmd == "moves":
            if s.is_over:
                self.say("the game is over; there are no moves")
            else:
                self.show_moves()
        elif cmd == "board":
            self.show_board()
        elif cmd == "history":
            self.history()
        elif cmd == "save":
            if not arg:
                raise PlayError("save: name the file, as in: save game.json")
            path = self.save(arg)
            self.wrote(path)
            if not s.is_over:  # a game log starts from the deal: every hand and the deck order
                self.say("note: the log holds the whole deal (every hand and the deck order); "
                         "opening it before the game ends shows cards you cannot see")
        elif cmd == "undo":
            if not s.undo():
                first = ("your first decision since the game was resumed: the saved moves stay"
                         if s.resumed else "this is your first decision")
                self.say(f"undo: nothing to undo ({first})")
                return False
            self.say(f"back to your decision at move {len(s.moves) + 1}")
            return True
        elif cmd == "hint":
            self.hint(arg)
        return False

    def hint(self, arg: str) -> None:
        s = self.session
        if not self.hints:
            raise PlayError("hint: hints are off in this game (--hints off)")
        if s.is_over:
            raise PlayError("hint: the game is over")
        iterations = None
        if arg:
            iterations = whole_number(arg, MAX_ITERATIONS)
            if not iterations:
                raise PlayError(f"hint: N must be a whole number of iterations from 1 to {MAX_ITERATIONS:,}, not {brief(arg)}")
        bar, update = self.progress(iterations or DEFAULT_ITERATIONS) if self.progress else (None, None)
        try:  # Ctrl-C stops the search at its next check and keeps what it found
            result, interrupted = searched_until_interrupted(
                lambda cancel: s.hint(iterations, progress=update, cancel=cancel))
        finally:
            if bar is not None:
                bar.close()
        if interrupted and result.iterations == 0:
            self.say("hint stopped before its first iteration")
            return
        best = result.moves[0].move
        legal = s.legal_moves()
        where = f", number {legal.index(best) + 1} of your moves (the table's # is its rank)" if best in legal else ""
        more = len(result.moves) - HINT_ROWS
        if more > 0:
            result.moves = result.moves[:HINT_ROWS]
        self.say(self.table(result))
        if more > 0:
            self.say(f"(and {more} more move{'s' * (more != 1)})")
        self.say(f"best: {best.text()}{where}")
        if interrupted:
            self.say(f"hint stopped after {result.iterations:,} iterations (the table above is what it found)")

    # ------------------------------------------------------------ the end
    def review_command(self, path: str) -> str:
        import shlex

        return f"cuttle-search review {shlex.quote(path)} --player {seat_name(self.session.seat)}"

    def outcome(self) -> str:
        res = self.session.result()
        share = res["share"]
        mine = "you win" if share == 1 else "you lose" if share == 0 else "nobody wins"
        if share in (0, 1) and self.session.rules.teams:
            mine = "your team wins" if share == 1 else "your team loses"
        return f"{describe_decision(self.session.position)}: {mine}"

    def finish(self) -> bool:
        """The result, the final board (every card shown) and the offer to review; at a
        terminal, a prompt for save, undo and board after it. True when an undo goes back
        into the game."""
        s = self.session
        self.say()
        self.say(render(s.view(), you=s.seat))
        self.say()
        self.say(self.outcome())
        if self.save_path:
            try:
                path = self.save(self.save_path)
                self.wrote(path, "the game")
                self.finished_log = self._where(str(path))
            except PlayError as e:
                self.save_error(e)
        elif not self.interactive:
            self.say("to review a game, keep its log: --save FILE, or save FILE at the prompt; "
                     "then cuttle-search review FILE")
        if not self.interactive:
            return False
        here = ", ".join(("save FILE" if c == "save" else c) for c in self.over_commands())
        self.say(f"at this prompt: {here}" if self.save_path else
                 f"to review the game: save FILE, then cuttle-search review FILE; at this prompt: {here}")
        while True:
            line = self.read("game over> ")
            if line is None:
                return False
            words = line.split(None, 1)
            if not words:
                continue
            cmd, arg = words[0].lower(), words[1].strip() if len(words) > 1 else ""
            try:
                if cmd in ("quit", "exit"):
                    _no_argument(cmd, arg)
                    return False
                if cmd in self.over_commands() or cmd in ("moves", "hint", "undo"):
                    if self.command(cmd, arg):
                        return True
                else:
                    raise PlayError(f"the game is over: {brief(words[0])} is not one of "
                                    f"{', '.join(self.over_commands())}")
            except CuttleError as e:
                self.say(str(e))

    def over_commands(self) -> list[str]:
        """The game-over prompt's commands: undo only when there is a decision to go back to."""
        return [c for c in GAME_OVER_HELP if c != "undo" or self.session.can_undo]

    @staticmethod
    def _where(path: str) -> Path:
        try:
            return Path(path).expanduser().resolve()
        except (OSError, ValueError, RuntimeError):  # (a NUL in the name, a loop of links: save says so)
            return Path(path)

    def save(self, path: str) -> Path:
        """The game's log to ``path``: a file this game wrote is replaced, any other refused."""
        where = self._where(path)
        written = self.session.save(path, replace=where in self.own_files)
        self.own_files.add(where)
        return written

    def leave(self, why: str) -> None:
        """The person leaves before the end: say so, and write --save's file."""
        s = self.session
        if s.is_over:  # (its result was shown, and --save's file written, when it ended)
            self.say(f"{why}: the game was over")
            return
        self.say(f"{why}: the game stops at move {len(s.moves) + 1}")
        if self.save_path and self._where(self.save_path) == self.finished_log:  # an undo after the end
            self.say(f"{self.save_path} keeps the finished game; this line of play is not saved "
                     "(save FILE at the prompt keeps it)")
        elif self.save_path:
            try:
                path = self.save(self.save_path)
            except PlayError as e:
                self.save_error(e)
                return
            self.wrote(path)

    def wrote(self, path: Path, what: str = "it") -> None:
        """Say where the log went, and how to review it when it is a file one can read back
        (not ``/dev/null`` or a pipe)."""
        if path.is_file():
            self.say(f"wrote {path}; review {what} with: {self.review_command(str(path))}")
        else:
            self.say(f"wrote the log to {path} (not a regular file: nothing there to review later)")

    def save_error(self, e: PlayError) -> None:
        """--save's file could not be written: one line on stderr, and exit status 2."""
        click.echo(f"Error: {e}", err=True)
        self.save_failed = True
