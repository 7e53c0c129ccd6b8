"""The ``cuttle-search`` command line: thin commands over the modules of the package.

Data goes to stdout, diagnostics and progress bars to stderr, so ``| jq`` always works.
Bad input (a malformed position, an unknown ruleset) exits with code 2 and one line.
"""

from __future__ import annotations

from . import startup  # noqa: F401  (first: pauses the collector during the heavy imports)

import json
import sys
import time
from typing import Any, Callable

import click


from .version import __version__
from .display import describe_decision, line_text, render
from .engine import jit
from .game.errors import CuttleError
from .analysis.limits import (
    DEFAULT_EXPLORATION,
    DEFAULT_WIDEN,
    DEFAULT_ITERATIONS,
    DEFAULT_MODEL,
    MAX_EXPLORATION,
    MAX_WIDEN,
    MAX_ITERATIONS,
    MAX_NODES,
    MAX_SECONDS,
    MAX_SEED,
    MAX_THREADS,
    MODEL_NAMES,
    ROLLOUT_NAMES,
    WIDEN_BY_RULESET,
    widen_error,
)
from .game.position import Position, PositionError
from .game.seats import seat_name, seat_number
from .game.formats import load_position
from .game.rules import OPTION_NAMES, RULESETS, RulesError, get_ruleset


class InputError(click.ClickException):
    """Bad input from the user: one line on stderr, exit code 2 (a line break in what the
    message quotes, a file name say, is written as ``\\n``)."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


def one_line(text: str) -> str:
    """``text`` with its line breaks (and other control characters) escaped."""
    return "".join(c if c.isprintable() or c == "\t" else repr(c)[1:-1] for c in text)


class _Group(click.Group):
    """The command group, and the one error boundary of the command line: any input error
    (a ``CuttleError``) becomes one line and exit code 2; anything unexpected becomes one
    line and exit code 1 (``CUTTLE_DEBUG=1`` shows the traceback); Ctrl-C exits with 130,
    and an output its reader closed (``| head``) quietly with 141, as SIGPIPE would."""

    def invoke(self, ctx: click.Context) -> Any:
        import os

        try:
            return super().invoke(ctx)
        except CuttleError as e:
            raise InputError(str(e)) from None
        except KeyboardInterrupt:  # Ctrl-C: the shell's exit code for it, not click's "Aborted!" and 1
            click.echo("interrupted", err=True)
            raise click.exceptions.Exit(130) from None
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except BrokenPipeError as e:
            if not _output_gone():  # another pipe than the output's: a defect, as below
                if os.environ.get("CUTTLE_DEBUG"):
                    raise
                raise _internal_error(e) from None
            # the output was closed (`... | head`): stop quietly, as SIGPIPE would
            _silence_stdout()
            raise click.exceptions.Exit(141) from None
        except Exception as e:
            if os.environ.get("CUTTLE_DEBUG"):
                raise
            raise _internal_error(e) from None


def _internal_error(e: Exception) -> click.ClickException:
    """The one line of an unexpected exception: a defect of the program, not of the input."""
    return click.ClickException(
        f"internal error: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''} "
        "(a defect; rerun with CUTTLE_DEBUG=1 for the traceback and report it)"
    )


def _silence_stdout() -> None:
    """Point stdout at /dev/null once its reader has gone, so that the exit's flush of what
    is left does not fail again."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # a closed stream, or none: nothing left to flush
        pass


def _output_gone() -> bool:
    """Whether standard output is a pipe whose reader has closed it (poll sees an error on
    it): a BrokenPipeError there is the reader's choice, not a defect."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLERR)
        return any(events & select.POLLERR for _fd, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll here, or no real file behind stdout
        return False


class _Number(click.ParamType):
    """A finite number in a range (click's FloatRange lets nan and inf through)."""

    name = "number"

    def __init__(self, low: float, high: float, low_open: bool = False,
                 check: Callable[[float], str | None] | None = None) -> None:
        self.low, self.high, self.low_open, self.check = low, high, low_open, check

    def convert(self, value: Any, param: Any, ctx: Any) -> float:
        import math

        try:
            x = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        above = x > self.low if self.low_open else x >= self.low
        if not math.isfinite(x) or not above or x > self.high:
            high = f"{self.high:,.0f}" if self.high == int(self.high) else f"{self.high:g}"
            span = f"above {self.low:g} and at most {high}" if self.low_open else f"from {self.low:g} to {high}"
            self.fail(f"{value!r} is not a finite number {span}", param, ctx)
        problem = self.check(x) if self.check is not None else None
        if problem is not None:  # the option's own rule (a widening's gap between 0 and its least)
            self.fail(problem.partition(": ")[2], param, ctx)
        return x


class WholeRange(click.IntRange):
    """``click.IntRange`` whose refusal says "not a valid whole number" (click's says
    "integer range", which reads as if a range were asked for)."""

    name = "whole number"

    def get_metavar(self, *args: Any, **kwargs: Any) -> str:  # (click's own in --help: not two words)
        return "INTEGER RANGE"


class EnvOption(click.Option):
    """An option that an environment variable may give: a value refused there is named by
    the variable too (``'--seed' (from CUTTLE_SEED)``), since nobody typed the option."""

    def get_error_hint(self, ctx: click.Context | None) -> str:
        hint = super().get_error_hint(ctx)
        if ctx is not None and self.name and ctx.get_parameter_source(self.name) == click.core.ParameterSource.ENVIRONMENT:
            return f"{hint} (from {self.envvar})"
        return hint


def _check_writable(path: str | None, option: str, reads: tuple[str, ...] = ()) -> None:
    """``game.inputs.check_writable`` for an option's path, before the work (exit 2); and
    never one of the files the command ``reads`` (through a link too): writing it would
    destroy the input, which nothing can make again."""
    import os

    from .game.inputs import check_writable

    if path is None:
        return
    check_writable(path, CuttleError, option)
    for source in reads:
        try:
            same = os.path.samefile(path, source)
        except (OSError, ValueError):  # (one of them is not there yet, or no path)
            same = False
        if same:
            raise click.BadParameter(f"{path!r} is the file this reads ({source!r}); name another", param_hint=option)


def warn_if_compiling() -> None:
    """On a first run (kernels not compiled yet) say so, then compile the whole engine with
    progress per kernel before the command runs (``jit.warn_if_compiling``)."""
    jit.warn_if_compiling(compile_all=_warm_up)


def _warm_up() -> None:
    from .warmup import warm_up  # (imported only on a first run: a warm start does without it)

    warm_up()


# The kernels ``_warm_search`` calls from Python (a position's checks, its moves, the search
# and its tree's growth); what they call compiles with them (``jit.reachable``).
# tests/test_first_run.py checks that the warm-up calls these and nothing they do not reach.
SEARCH_KERNELS = [f"cuttle_search.engine.{name}" for name in (
    "setup.setup_pending", "setup._table_error", "info.sees_hand", "movegen.generate_moves", "movegen.moves_overflowed",
    "rng.seed_rng_into", "ismcts.breadth_first_order", "ismcts.pack_indexes", "ismcts.index_pool_room",
    "ismcts.pack_indexes_in_place", "ismcts.ismcts_iterate")]
# p0's view of an opening (positions/opening-p0.json): what the warm-up searches
_WARM_POSITION = {"format": "cuttle-search/position", "version": 1, "rules": "cuttle-cards", "view": "p0",
                  "phase": "main", "p0Hand": ["5H", "7C", "9D", "TD", "QC"], "p1Hand": ["??"] * 6, "deck": ["??"] * 41}


def warn_if_compiling_search() -> None:
    """On a first run, compile (with progress) only what a search of a position needs:
    about three quarters of the engine's kernels and half its compile time; the rest (the
    exact solver, the agents, the harness) compiles when a command first needs it."""
    jit.warn_if_compiling(compile_all=_warm_search, part=("the search", SEARCH_KERNELS))


def _warm_search() -> None:
    """A small search of a position read from a file's dictionary: every kernel of
    ``SEARCH_KERNELS`` called once (and so compiled or loaded, with all it calls)."""
    from .analysis import analyse

    analyse(_WARM_POSITION, iterations=64, seed=1)


def _load(path: str, rules: str | None = None, search: bool = False) -> Position:
    if search:
        warn_if_compiling_search()
    else:
        warn_if_compiling()
    try:
        return load_position(path, rules=rules)
    except CuttleError as e:
        raise InputError(f"{path}: {e}") from None


def _emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=2))


RULES_HELP = (f"Ruleset, optionally with options: NAME[:opt=value,...]. Names: {', '.join(RULESETS)}. "
              f"Options: {', '.join(OPTION_NAMES)} (docs/rules.md).")
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout instead of text.")
RULES_HINT = "--rules (or CUTTLE_RULES)"  # where a ruleset given to a command comes from


def _checked_rules(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A ``--rules`` value, refused at once naming the option (not the file it would be read
    with, nor only ``--rules`` when it came from ``CUTTLE_RULES``)."""
    if value is not None:
        try:
            get_ruleset(value)
        except RulesError as e:
            raise click.BadParameter(str(e), param_hint=RULES_HINT) from None
    return value


def _rules_option(default: str | None) -> Callable[[Any], Any]:
    return click.option("--rules", "rules", default=default, envvar="CUTTLE_RULES", help=RULES_HELP,
                        callback=_checked_rules)


rules_option = _rules_option(None)  # None: the file's own ruleset


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "show_default": True})
@click.version_option(__version__, prog_name="cuttle-search")
def main() -> None:
    """Analyse Cuttle positions: show boards, list legal moves, count move trees, play games."""


@main.command()
@click.argument("position")
@rules_option
@json_option
def show(position: str, rules: str | None, as_json: bool) -> None:
    """Print the board of POSITION as a person reads it (hidden cards as ??)."""
    pos = _load(position, rules)
    if as_json:
        _emit_json(pos.to_dict())
    else:
        click.echo(render(pos))


@main.command()
@click.argument("position")
@rules_option
@json_option
def moves(position: str, rules: str | None, as_json: bool) -> None:
    """List every legal move of the player to act, in text and JSON notation."""
    pos = _load(position, rules)
    decision = describe_decision(pos)
    if pos.is_over:
        own = False
    elif pos.view is None:
        own = True
    else:
        own = pos.actor == pos.view
    legal = pos.legal_moves() if own else []
    if as_json:
        _emit_json(
            {
                "position": pos.name or position,
                "rules": pos.rules.spec,
                "phase": pos.phase_name,
                "actor": None if pos.actor < 0 or pos.is_over else seat_name(pos.actor),
                "view": "full" if pos.view is None else seat_name(pos.view),
                "moves": [{"text": m.text(), "json": m.to_json()} for m in legal],
                "note": None if own else _not_yours(pos),
            }
        )
        return
    click.echo(decision)
    if not own:
        click.echo(_not_yours(pos))
        return
    width = max((len(m.text()) for m in legal), default=0)
    click.echo(f"{len(legal)} legal move{'s' * (len(legal) != 1)}:")
    for m in legal:
        click.echo(f"  {m.text():<{width}}  {json.dumps(m.to_json())}")


def _not_yours(pos: Position) -> str:
    if pos.is_over:
        return "The game is over; there are no moves."
    who = "chance" if pos.actor < 0 else seat_name(pos.actor)
    return (
        f"It is {who}'s decision ({pos.phase_name}); this file is {seat_name(pos.view)}'s view, "
        f"so {who}'s options depend on cards {seat_name(pos.view)} cannot see."
    )


@main.command()
@click.argument("position")
@click.option("--depth", "-d", type=WholeRange(0, 12), required=True, help="Number of plies.")
@click.option("--divide", is_flag=True, help="Also print the count below each legal move.")
@rules_option
@json_option
def perft(position: str, depth: int, divide: bool, rules: str | None, as_json: bool) -> None:
    """Count the move sequences of length DEPTH from a full-information POSITION.

    Draws and 7 reveals follow the file's deck order; each chance outcome of a
    four=random 4 counts as one move."""
    from .game.perft import perft as run_perft, perft_divide

    pos = _load(position, rules)
    if pos.view is not None:
        raise InputError(
            f"{position}: perft needs a full-information position, but this file is {seat_name(pos.view)}'s view "
            f"with hidden cards (set \"view\": \"full\" and name every card)"
        )
    start = time.perf_counter()
    if divide:
        rows = perft_divide(pos, depth, progress=not as_json)
        total = sum(n for _, n in rows)
    else:
        rows = []
        total = run_perft(pos, depth)
    elapsed = time.perf_counter() - start
    if as_json:
        out: dict[str, Any] = {"position": pos.name or position, "depth": depth, "nodes": total, "seconds": round(elapsed, 6)}
        if divide:
            out["divide"] = {m.text(): n for m, n in rows}
        _emit_json(out)
        return
    for m, n in rows:
        click.echo(f"{m.text()}: {n}")
    click.echo(f"perft {depth}: {total}  ({elapsed:.3f} s)")


@main.command()
@click.option("--games", "-n", type=WholeRange(1, 10_000_000), default=1000,
              help="Number of games (at most 10,000,000).")
@click.option("--seed", "-s", type=WholeRange(0, MAX_SEED), default=0, envvar="CUTTLE_SEED", cls=EnvOption, help="Random seed.")
@_rules_option("cuttle-cards")
@json_option
def selfplay(games: int, seed: int, rules: str, as_json: bool) -> None:
    """Play random games from fresh deals and summarise the results."""
    from .play.selfplay import run_selfplay

    rs = get_ruleset(rules)  # (checked by --rules' callback)
    warn_if_compiling()
    summary = run_selfplay(rs, games, seed, progress=True)
    if as_json:
        _emit_json(summary)
        return
    w = summary["wins"]
    click.echo(f"{games} random games, rules {rs.spec}, seed {seed}")
    click.echo("  " + "   ".join(f"{seat} wins {n} ({100 * n / games:.1f}%)" for seat, n in w.items()))
    if "teamWins" in summary:
        click.echo("  " + "   ".join(f"team {team} wins {n} ({100 * n / games:.1f}%)" for team, n in summary["teamWins"].items()))
    click.echo(
        f"  draws {summary['draws']} (passes {summary['stalemates']['passes']}, action limit {summary['stalemates']['actionLimit']})"
    )
    click.echo(f"  mean length {summary['meanPlies']:.1f} plies; {summary['pliesPerSecond']:,.0f} plies/s")


# ---------------------------------------------------------------- analysis
def _search_options(f):
    f = click.option("--exploration", "-c", type=_Number(0, MAX_EXPLORATION), default=DEFAULT_EXPLORATION, help="UCB exploration constant.")(f)
    f = click.option("--rollout", type=click.Choice(ROLLOUT_NAMES), default=None,
                     help="Rollout policy [default: value, the learned value, in the five two-seat rulesets "
                          "and team; greedy in cutthroat and multiplayer].")(f)
    f = click.option("--seed", type=WholeRange(0, MAX_SEED), default=0, envvar="CUTTLE_SEED", cls=EnvOption, help="Random seed.")(f)
    f = click.option(
        "--threads", "-j", type=WholeRange(1, MAX_THREADS), default=1, envvar="CUTTLE_THREADS", cls=EnvOption, help="Search threads (root parallelism)."
    )(f)
    f = click.option("--time", "-t", "seconds", type=_Number(0, MAX_SECONDS, low_open=True), default=None, help="Time budget in seconds.")(f)
    f = click.option(
        "--iterations", "-n", type=WholeRange(1, MAX_ITERATIONS), default=None, help=f"Iteration budget [default: {DEFAULT_ITERATIONS:,} without --time]."
    )(f)
    return f


def _terminal_bar(**options):
    """A tqdm bar on stderr, or None when stderr is not a terminal (no bar in a pipe or a log)."""
    if not sys.stderr.isatty():
        return None  # (before importing tqdm: a warm command in a pipe does not pay for it)
    from tqdm import tqdm

    return tqdm(unit_scale=True, file=sys.stderr, leave=False, **options)


def _live_progress(total: int | None):
    """A tqdm bar on stderr with the live best move (silent when stderr is not a terminal)."""
    bar = _terminal_bar(total=total, desc="analyse", unit="it")
    if bar is None:
        return None, None

    def update(done: int, snap) -> None:
        bar.update(done - bar.n)
        best = snap.best()
        if best:
            bar.set_postfix_str(f"best {best[0]} {best[1]:.3f}")

    return bar, update


@main.command()
@click.argument("position")
@_search_options
@click.option("--top", "-k", type=WholeRange(1, None), default=None, help="Show only the K best moves.")
@click.option("--model", type=click.Choice(MODEL_NAMES), default=DEFAULT_MODEL,
              help="Opponent model with more seats: maxn (each seat for itself), paranoid (every opponent "
                   "against you) or random (opponents play at random).")
@click.option("--widen", type=_Number(0, MAX_WIDEN, check=widen_error), default=None,
              help=f"Progressive widening below the root: a node opens the greedy policy's best moves one "
                   f"by one as its visits grow, more slowly for a larger value; 0 opens every move at once "
                   f"(docs/search.md) [default: {DEFAULT_WIDEN:g}; "
                   + "; ".join(f"{w:,.0f} in {name}" for name, w in WIDEN_BY_RULESET.items()) + "].")
@click.option("--best-reply", is_flag=True,
              help="Also give each move's score with the opponent's best replies backed up (two sides: "
                   "two seats or Team; docs/search.md, 'The result').")
@rules_option
@json_option
def analyse(position, iterations, seconds, threads, seed, rollout, exploration, top, model, widen, best_reply, rules,
            as_json):
    """Rank the legal moves of the player whose view POSITION is, with win rates.

    Win rates are from that player's point of view; a draw counts half in the score
    (a stalemate 1/n with n seats). With more than two seats every seat's share is shown."""
    from .analysis import Limit, SearchError, calibration, run_search, search_viewer
    from .analysis.ismcts import best_reply_refusal, check_search_options
    from .analysis.solve_first import solver_applies
    from .analysis.solve_threads import searched_until_interrupted

    pos = _load(position, rules, search=True)
    if solver_applies(pos):  # nothing hidden: the exact solver answers first (compiled with the rest)
        warn_if_compiling()
    try:
        search_viewer(pos)
    except SearchError as e:
        raise InputError(f"{position}: {e}") from None
    try:  # (an option's problem, not the file's)
        limit = Limit(iterations, seconds)
        check_search_options(limit, threads, seed, rollout, exploration, model, widen)
    except SearchError as e:
        raise InputError(str(e)) from None
    refusal = best_reply_refusal(pos) if best_reply else None
    if refusal is not None:
        raise InputError(f"--best-reply: {refusal}")
    bar, update = _live_progress(limit.effective_iterations)
    try:  # Ctrl-C stops the search at its next check and keeps what it found
        found, interrupted = searched_until_interrupted(
            lambda cancel: run_search(pos, limit, threads, seed, rollout, exploration, progress=update, cancel=cancel,
                                      model=model, widen=widen, best_reply=best_reply))
    finally:
        if bar is not None:
            bar.close()
    result = calibration.annotate(found, pos)
    result.position = pos.name or position
    if top is not None:
        result.moves = result.moves[:top]
    if as_json:
        _emit_json(result.to_json())
    else:
        click.echo(_analysis_table(result))
    if interrupted:
        click.echo(f"interrupted: the search stopped after {result.iterations:,} iterations (shown above)", err=True)
        sys.exit(130)


def _analysis_table(result) -> str:
    pov = seat_name(result.viewer)
    if result.stop_reason == "forced":  # one legal move: nothing was searched
        searched = "only legal move: answered at once without a search (visits 0, score not estimated)"
    else:
        searched = (f"{result.iterations:,} iterations in {result.seconds:.2f} s ({result.iterations_per_second:,.0f}/s), "
                    f"{result.threads} thread{'s' * (result.threads != 1)}, seed {result.seed}, {result.rollout} rollouts, "
                    + (f"widening {result.widen:g}" if result.widen else "no widening"))
    lines = [
        f"{result.position}: {pov} to act ({result.phase}), rules {result.rules}",
        searched,
        result.score_note() + "; gap = best score - score",
        "",
    ]
    per_seat = result.seats > 2 and all(m.seat_scores is not None for m in result.moves)
    if per_seat:  # every seat's share below the move (a stalemate 1/sides each)
        whose = "its team's share" if result.partner >= 0 else "its share"
        lines.insert(-1, "p0 .. p" + f"{result.seats - 1}: each seat's column is {whose} of the games below the "
                     f"move (wins, and a stalemate as 1/{result.sides}); the {result.model} opponent model")
    if result.solver is not None:  # the exact solver ran first (nothing hidden)
        s = result.solver
        verdict = f"proven {s['value']}" if s["proven"] else f"{s['solvedMoves']} of {len(result.moves)} moves proven"
        lines.insert(-1, f"exact solver first: {verdict}, {s['nodes']:,} nodes in {s['seconds']:.3f} s")
    header = ("#", "move", "visits", "score", "win", "draw", "95% interval", "gap", "principal variation")
    # a move's proof: by the exact solver run first, or inside the tree (MCTS-Solver)
    proven_column = result.solver is not None or any(m.proven is not None for m in result.moves)
    rows = []
    for m in result.moves:
        rows.append(
            (
                str(m.rank),
                m.move.text(),
                f"{m.visits:,}",
                f"{m.score:.3f}",
                "-" if m.win_rate is None else f"{m.win_rate:.3f}",
                "-" if m.draw_rate is None else f"{m.draw_rate:.3f}",
                f"{m.interval[0]:.3f}-{m.interval[1]:.3f}",
                "-" if m.rank == 1 else f"{m.gap:.3f}",
                line_text(m.pv[:8], m.pv_known),
            )
        )
        if proven_column:
            proven = "-" if m.proven is None else m.proven + ("" if m.plies is None else f" in {m.plies}")
            rows[-1] = rows[-1][:-1] + (proven,) + rows[-1][-1:]
        if per_seat:
            rows[-1] = rows[-1][:-1] + tuple(f"{x:.3f}" for x in m.seat_scores) + rows[-1][-1:]
    if any(m.win_rate is None for m in result.moves):
        lines.insert(-1, f"{result.rollout} rollouts estimate the score, not the win and draw rates apart "
                     "(docs/search.md, 'The result')")
    if any(m.pv_known is not None and m.pv_known < min(len(m.pv), 8) for m in result.moves):
        lines.insert(-1, "[...] in a line: moves past a card you cannot see, as the search's guessed deals "
                     "played them (docs/search.md, 'The result')")
    calibrated = any(m.calibrated_score is not None for m in result.moves)
    if calibrated:  # the recalibrated score beside the search's (analysis/calibration.py)
        rows = [r[:4] + ("-" if m.calibrated_score is None else f"{m.calibrated_score:.3f}",) + r[4:]
                for r, m in zip(rows, result.moves)]
        header = header[:4] + ("calibrated",) + header[4:]
        lines.insert(-1, "calibrated = the score mapped to what self-play at this budget went on to win "
                     "(docs/strength.md, 'Calibration')")
    if any(m.best_reply_score is not None for m in result.moves):  # analyse --best-reply
        at = 5 if calibrated else 4  # after the score (and the calibrated score)
        rows = [r[:at] + ("-" if m.best_reply_score is None else f"{m.best_reply_score:.3f}",) + r[at:]
                for r, m in zip(rows, result.moves)]
        header = header[:at] + ("best reply",) + header[at:]
        lines.insert(-1, "best reply = the score with the opponent's best replies backed up "
                     "(docs/search.md, 'The result')")
    if proven_column:
        header = header[:-1] + ("proven",) + header[-1:]
    numeric = {"#", "visits", "score", "calibrated", "best reply", "win", "draw", "gap"}
    right = {i for i, name in enumerate(header) if name in numeric}
    if per_seat:
        first = len(header) - 1
        header = header[:-1] + tuple(seat_name(q) for q in range(result.seats)) + header[-1:]
        right |= set(range(first, first + result.seats))
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    for r in [header] + rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


@main.command()
@click.argument("position", type=click.Path(dir_okay=False))
@click.option("--nodes", "-n", type=WholeRange(1, MAX_NODES), default=None, help="Node budget [default: none].")
@click.option("--time", "-t", "seconds", type=_Number(0, MAX_SECONDS, low_open=True), default=None,
              help="Time budget in seconds [default: none].")
@rules_option
@json_option
def solve(position, nodes, seconds, rules, as_json):
    """Solve POSITION exactly: every legal move with its value (win, draw or loss for the
    player to act), the plies to the end under best play and the principal line.

    POSITION must hide nothing: a full-information file, or a one-seat view once the deck
    is empty. When a budget runs out, the moves not yet solved are marked not proven;
    Ctrl-C does the same at once (then the exit code is 130)."""
    from .analysis import SearchError
    from .analysis.solve import solve as run_solve, solve_table

    pos = _load(position, rules)
    bar, update = _solve_progress()
    try:
        result = run_solve(pos, nodes=nodes, time=seconds, progress=update, interruptible=True)
    except SearchError as e:
        raise InputError(f"{position}: {e}") from None
    finally:
        if bar is not None:
            bar.close()
    result.position = pos.name or position
    if as_json:
        _emit_json(result.to_json())
    else:
        click.echo(solve_table(result))
    if result.stop_reason == "interrupted":
        solved = sum(m.proven for m in result.moves)
        click.echo(f"interrupted: {solved} of {len(result.moves)} moves proven (shown above)", err=True)
        sys.exit(130)


def _solve_progress():
    """A tqdm bar on stderr with the solver's nodes and stage (silent when stderr is not a terminal)."""
    bar = _terminal_bar(desc="solve", unit="node")
    if bar is None:
        return None, None
    stages = {"values": "win, draw or loss", "plies": "plies"}

    def update(p) -> None:
        bar.update(p.nodes - bar.n)
        bar.set_postfix_str(f"{stages.get(p.stage, p.stage)} {p.done}/{p.total} moves")

    return bar, update


@main.command()
@_search_options
@click.option("--runners-up", type=WholeRange(0, 64), default=2, help="Runners-up to include.")
@click.option("--max-iterations", type=WholeRange(1, MAX_ITERATIONS), default=10_000_000,
              help="The most iterations one request may ask for.")
@click.option("--max-time", type=_Number(0, MAX_SECONDS, low_open=True), default=60.0,
              help="The most seconds one request may ask for.")
@click.option("--max-threads", type=WholeRange(1, MAX_THREADS), default=None,
              help="The most threads one request may ask for [default: the machine's cores].")
@click.option("--max-request-bytes", type=WholeRange(1024, 1 << 30), default=1 << 20,
              help="The longest request line; a longer one is refused.")
@click.option("--workers", "-w", type=WholeRange(1, 64), default=1,
              help="Requests analysed at once; with more than one, answers may come out of order (match them by id).")
def hint(iterations, seconds, threads, seed, rollout, exploration, runners_up, max_iterations, max_time,
         max_threads, max_request_bytes, workers):
    """Serve hints: one JSON request per line on stdin, one JSON answer per line on stdout.

    A request is a position (our format or a cuttle.cards GameState, hidden cards as ??),
    either as the whole line or under "position", with optional "id", "iterations",
    "time", "seed", "threads", "rules", "runnersUp", "reportDuringSearchEvery", "stop",
    "allowMoves", "avoidMoves", "rollout", "exploration", "widen", "bestReply", and a game's "moves" with
    "analyzeTurns"; {"action": "query_version"}, {"action": "terminate", "terminateId": ID}
    and {"action": "terminate_all"} are answered at once. The options set the defaults and, with --max-*, the caps. A bad request gets
    {"id", "error", "field"} and the server keeps going. See docs/hint-protocol.md."""
    import os

    from .hint import OutputGone, ServerLimits, serve
    from .analysis import Limit
    from .analysis.ismcts import check_search_options

    limits = ServerLimits(max_iterations, max_time, max_threads or os.cpu_count() or 1, max_request_bytes)
    if iterations is not None and iterations > limits.max_iterations:
        raise click.BadParameter(f"{iterations} is above --max-iterations {limits.max_iterations}", param_hint="--iterations")
    if seconds is not None and seconds > limits.max_time:
        raise click.BadParameter(f"{seconds:g} is above --max-time {limits.max_time:g}", param_hint="--time")
    if threads > limits.max_threads:
        raise click.BadParameter(f"{threads} is above --max-threads {limits.max_threads}", param_hint="--threads")
    try:
        check_search_options(Limit(iterations, seconds), threads, seed, rollout, exploration)
    except CuttleError as e:
        raise InputError(str(e)) from None
    if sys.stdout is None:  # started with its output closed (1>&-): no answer could be written, so no search
        click.echo("hint: cannot write the answers: the standard output is closed", err=True)
        sys.exit(1)
    # load (or compile, with a notice) the search before the first request, so that
    # every answer's "seconds" is search time; what a request needs beyond it (the exact
    # solver, for a position with nothing hidden) compiles when first asked, a line a kernel
    if jit.warn_if_compiling(compile_all=_warm_search, part=("the search", SEARCH_KERNELS)) and jit.CACHE:
        jit.CompileProgress(None, sys.stderr, bar=False).start()
    _warm_search()
    defaults = dict(iterations=iterations, time=seconds, threads=threads, seed=seed, rollout=rollout,
                    exploration=exploration, runners_up=runners_up)
    try:
        serve(getattr(sys.stdin, "buffer", sys.stdin), sys.stdout, defaults, limits, workers)
    except OutputGone as e:  # the searches were cancelled; nothing more can be said on stdout
        _silence_stdout()
        if not isinstance(e.args[0], BrokenPipeError):  # a reader that closed the pipe wanted no more
            click.echo(f"hint: cannot write the answers: {getattr(e.args[0], 'strerror', None) or e.args[0]}", err=True)
        sys.exit(1)


@main.command()
def warmup() -> None:
    """Compile (or load from the cache) every engine kernel now, so later commands start fast."""
    from .warmup import warm_up

    start = time.perf_counter()
    warn_if_compiling()
    warm_up()
    click.echo(f"engine ready ({time.perf_counter() - start:.1f} s)")


@main.command()
@click.option("--quick", is_flag=True,
              help="Smaller budgets: a rough figure in about half a minute, most of it the cold compile it times.")
@json_option
def bench(quick: bool, as_json: bool) -> None:
    """Run the rollout and search benchmarks and print one summary."""
    from .bench import run_all, summary_text

    figures = run_all(quick=quick, progress=not as_json)
    if as_json:
        _emit_json(figures)
    else:
        click.echo(summary_text(figures))


# ---------------------------------------------------------------- arena
@main.command()
@click.argument("agent_a")
@click.argument("agent_b")
@click.option("--games", "-n", type=WholeRange(1, 10_000_000), default=100,
              help="Games, played in pairs on the same deal (with --match: matches, in pairs); with --sprt, the most to play.")
@_rules_option("cuttle-cards")
@click.option("--seed", "-s", type=WholeRange(0, MAX_SEED), default=0, envvar="CUTTLE_SEED", cls=EnvOption, help="Random seed.")
@click.option("--workers", "-w", type=WholeRange(1, 256), default=1,
              help="Worker processes (--backend ray: the CPUs of the local Ray instance it starts).")
@click.option("--match", type=click.Choice(["quick", "short", "bo3", "bo5"]), default="quick",
              help="Board Game Arena match format: quick plays single games; the others play matches (drawn rounds do not count).")
@click.option("--log-dir", type=click.Path(file_okay=False), default=None, help="Save every game as a JSON log here, as it finishes.")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local",
              help="Where pairs run: local worker processes, or Ray tasks (needs the ray extra).")
@click.option("--address", default=None, help="With --backend ray: join the Ray cluster at ADDR (host:port, or auto).")
@click.option("--save", type=click.Path(dir_okay=False), default=None,
              help="Write every pair to this results file as it finishes (a new file).")
@click.option("--resume", type=click.Path(dir_okay=False, exists=False), default=None,
              help="Continue a match saved with --save (same agents, rules, seed, match); goes on saving to it.")
@click.option("--sprt", default=None, metavar="ELO0,ELO1[,ALPHA,BETA]",
              help="Sequential test of H0 Elo=ELO0 against H1 Elo=ELO1 (alpha, beta 0.05 by default); stops when it decides.")
@click.option("--sprt-model", type=click.Choice(["logistic", "normalized"]), default="logistic",
              help="Units of the SPRT bounds: logistic Elo or normalised Elo.")
@json_option
def arena(agent_a, agent_b, games, rules, seed, workers, match, log_dir, backend, address, save, resume, sprt, sprt_model,
          as_json):
    """Play AGENT_A against AGENT_B on paired deals and report A's score.

    Agents: random, greedy, cuttlebot, pimc[:iterations=N,rollout=R],
    ismcts[:iterations=N,time=S,c=X,rollout=R,infer=1,model=M,widen=W,solver=0] (solver=0: no exact
    solver first, nor in the tree; exploration=X is c=X), oracle[:...] (ismcts's parameters but infer;
    it sees every card: a ceiling, not a fair player), pimc-solver[:iterations=N,time=S,worlds=W,unseen=U,c=X,rollout=R,widen=V] (the exact
    solver on W sampled deals when at most U cards are unseen, else ismcts with c, rollout and widen;
    two seats),
    openspiel-ismcts[:iterations=N,c=X] (needs the openspiel extra). Rollouts R: greedy,
    heuristic, random, greedy-cut or value (two seats, Team); pimc plays greedy unless told,
    the others the analyser's default (value with two seats and in Team, else greedy). See
    docs/arena.md."""
    from .play.agents import AgentError
    from .play.arena import ArenaError, run_arena
    from .play.backends import BackendError
    from .play.statistics import SprtError

    try:
        result = run_arena(agent_a, agent_b, games, rules, seed, workers, match, log_dir, progress=not as_json,
                           backend=backend, address=address, save=save, resume=resume, sprt=sprt, sprt_model=sprt_model)
    except (AgentError, RulesError, ArenaError, BackendError, SprtError) as e:
        raise InputError(str(e)) from None
    except KeyboardInterrupt:
        kept = save or resume
        click.echo("interrupted; " + (f"finished pairs are in {kept}: continue with --resume {kept}" if kept
                                       else "nothing saved (use --save FILE to keep finished pairs)"), err=True)
        sys.exit(130)
    if as_json:
        _emit_json(result.to_json())
        return
    j = result.to_json()
    unit = "matches" if match != "quick" else "games"
    one = result.pairs == 1
    dealt = ("paired deal" if one else "paired deals") if result.seats == 2 else \
        ("deal" if one else "deals") + " (every seat rotation)"
    if result.rounding:
        click.echo(result.rounding)
    click.echo(f"{agent_a} vs {agent_b}: {result.pairs} {dealt}, {result.games} games, rules {result.rules}, seed {seed}"
               + (f" ({result.resumed} {'pair' if result.resumed == 1 else 'pairs'} from {resume})" if result.resumed
                  else ""))
    if result.saved_beyond:
        kind = "pairs" if result.seats == 2 else "deals"
        click.echo(f"  note: {resume} holds {result.saved_beyond} more {kind} past the {result.pairs} this --games "
                   "plans; they are not counted (a larger --games counts them)")
    click.echo(f"  games: A won {result.wins}, drew {result.draws}, lost {result.losses} of {result.games}")
    if result.matches:
        m = result.matches
        click.echo(f"  matches ({match}): A won {m['won']}, drew {m['drawn']}, lost {m['lost']} of {m['played']}")
    lo, hi = j["scoreInterval"]
    over = dealt.split(" (")[0]
    click.echo(f"  score ({unit}) {result.score:.3f}  (95% interval {lo:.3f}-{hi:.3f} over the {result.pairs} {over})")
    if result.seats == 2:  # (a game of more seats scores win shares, with no Elo)
        click.echo(f"  Elo difference {j['elo']}  (95% interval {j['eloInterval'][0]} to {j['eloInterval'][1]})")
    click.echo(f"  mean length {result.mean_plies:.1f} plies; time per move A {result.seconds_per_move['A'] * 1000:.2f} ms, "
               f"B {result.seconds_per_move['B'] * 1000:.2f} ms; {result.elapsed:.1f} s ({result.backend} backend)")
    click.echo("")
    for line in result.report_lines():
        click.echo(line)


def _seat_choice(value: str | None, field: str, seats: int, allow: tuple[str, ...] = ()) -> int | None:
    """A seat option ``pN`` checked against a game of ``seats`` seats (None for a word in ``allow``)."""
    if value is None or value in allow:
        return None
    seat = seat_number(value, seats) if value.strip().lower().startswith("p") else None
    if seat is not None:
        return seat
    words = "".join(f", {w}" for w in allow)
    raise click.BadParameter(f"{value!r} is not a seat of this {seats}-seat game (p0 to {seat_name(seats - 1)}{words})",
                             param_hint=field)


@main.command()
@click.argument("games", nargs=-1, required=True, metavar="GAME...")
@click.option("--player", default="all", help="Whose decisions to review: a seat pN, seats p1,p3, or all (also: both).")
@click.option("--iterations", "-n", type=WholeRange(1, MAX_ITERATIONS), default=None,
              help=f"Iterations a decision [default: {DEFAULT_ITERATIONS:,} without --time].")
@click.option("--time", "-t", "seconds", type=_Number(0, MAX_SECONDS, low_open=True), default=None, help="Seconds a decision.")
@click.option("--workers", "-w", type=WholeRange(1, 256), default=1, help="Worker processes (decisions are independent).")
@click.option("--seed", type=WholeRange(0, MAX_SEED), default=0, envvar="CUTTLE_SEED", cls=EnvOption, help="Random seed.")
@click.option("--html", "html_file", default=None, metavar="FILE",
              help="Also write a self-contained HTML report (win-rate chart) here (an existing file is replaced).")
@click.option("--candidates", is_flag=True, help="List every decision's candidate moves (default: the labelled ones').")
@click.option("--luck/--no-luck", default=True, help="Measure what the cards did for each player (a search more per draw).")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local",
              help="Where decisions run: local worker processes, or Ray tasks (needs the ray extra).")
@click.option("--address", default=None, help="With --backend ray: the cluster to join (host:port or auto).")
@json_option
def review(games, player, iterations, seconds, workers, seed, html_file, candidates, luck, backend, address, as_json):
    """Review each GAME (an arena game log or a cuttle.cards history): every unforced
    decision analysed from the deciding player's view, the move played against the best
    move (the played move searched as long as the best), inaccuracies, mistakes and
    blunders labelled where the intervals prove them, and the luck of the draws.
    The decisions of all the games share the workers (or the Ray cluster)."""
    from tqdm import tqdm

    from .game.gamelog import read_game, read_json_file
    from .analysis.review import decision_views, review_games, review_html, review_text
    from .play.backends import make_backend

    _check_writable(html_file, "--html", tuple(games))
    warn_if_compiling()
    loaded, sources = [], []
    for game in games:
        try:
            start, moves, about = read_game(read_json_file(game))
        except CuttleError as e:
            raise InputError(f"{game}: {e}") from None
        loaded.append((start, moves, about.get("players") or {}))
        sources.append(about["source"])
    if html_file and len(games) > 1:
        raise click.BadParameter("one game at a time (it is one page)", param_hint="--html")
    fewest = min(start.rules.players for start, _, _ in loaded)
    if "," in player:  # several seats (a Team side: p1,p3), each once
        chosen = [_seat_choice(part, "--player", fewest) for part in player.split(",")]
        if len(set(chosen)) != len(chosen):
            raise click.BadParameter(f"{player!r} names a seat twice", param_hint="--player")
        seats: tuple[int, ...] | None = tuple(sorted(q for q in chosen if q is not None))
    else:
        seat = _seat_choice(player, "--player", fewest, ("all", "both"))
        seats = None if seat is None else (seat,)
    bar = tqdm(desc="review", unit="decision", file=sys.stderr, disable=not sys.stderr.isatty() or None, leave=False)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)

    try:
        results = review_games(loaded, seats, iterations, seconds, seed, workers, progress=progress,
                               runner=lambda n: make_backend(backend, n, address), luck=luck)
    finally:
        bar.close()
    for result, source in zip(results, sources):
        result.source = source
    if html_file:
        start, moves, _ = loaded[0]
        boards = {ply: render(view) for ply, view in decision_views(start, moves, results[0]).items()}
        try:
            with open(html_file, "w", encoding="utf-8") as f:
                f.write(review_html(results[0], games[0], boards))
        except OSError as e:
            raise InputError(f"--html: cannot write {html_file!r}: {e.strerror or e}") from None
    if as_json:
        _emit_json(results[0].to_json() if len(results) == 1 else
                   {"games": [dict(r.to_json(), game=g) for r, g in zip(results, games)]})
    else:
        click.echo("\n\n".join(review_text(r, g, candidates) for r, g in zip(results, games)))


@main.command()
@click.argument("log")
@click.option("--ply", type=WholeRange(0, None), default=None, help="Stop after this many moves [default: the end].")
@click.option("--export", "export", type=click.Path(dir_okay=False), default=None, help="Write that moment as a position file (an existing file is replaced).")
@click.option("--view", default="full", help="Whose view: full, or a seat pN of the game.")
def replay(log, ply, export, view):
    """Replay a game log (from arena --log-dir): the moves played, then the board (or
    export any moment as a position file)."""
    from .game.gamelog import describe, read_game_log, replay as replay_log

    _check_writable(export, "--export", (log,))
    warn_if_compiling()
    try:
        data = read_game_log(log)
        pos = replay_log(data, ply)
    except CuttleError as e:
        raise InputError(f"{log}: {e}") from None
    seat = _seat_choice(view, "--view", pos.rules.players, ("full",))
    played = len(data["moves"]) if ply is None else ply
    if seat is not None:
        if pos.is_over:  # a view is what a seat sees while it still has decisions to make
            raise InputError(f"--view: the game is over after {played} moves, and a seat's view is of a game "
                             "still going: give --ply to stop earlier, or omit --view")
        try:
            pos = pos.view_of(seat)
        except CuttleError as e:
            raise InputError(f"--view: {e}") from None
    pos.about = describe(data, played)
    if export:
        try:
            pos.save(export)
        except PositionError as e:  # ("path: cannot write ...": the path is this option's)
            raise InputError(f"--export: {str(e).removeprefix('path: ')}") from None
        click.echo(f"wrote {export}: {pos.about}")
        if seat is not None and not pos.is_over and pos.actor != seat:  # (analyse answers the seat to act)
            who = "chance" if pos.actor < 0 else seat_name(pos.actor)
            click.echo(f"note: it is {who}'s decision there, so analyse and hint refuse {seat_name(seat)}'s view; "
                       + (f"export --view {seat_name(pos.actor)} to analyse it" if pos.actor >= 0 else
                          "export another ply to analyse it"), err=True)
    else:
        click.echo(_moves_played(data, played))
        click.echo("")
        click.echo(render(pos))


def _moves_played(log: dict, played: int) -> str:
    """The first ``played`` moves of a game log, numbered, with who made each."""
    from .game.gamelog import replay as replay_log

    pos = replay_log(log, 0)
    lines = [f"moves played ({played}):"]
    for i, text in enumerate(log["moves"][:played]):
        who = "chance" if pos.actor < 0 else seat_name(pos.actor)
        move = pos.play(text)
        lines.append(f"{i + 1:>4}. {who:<6} {move.text()}")
    return "\n".join(lines)


# ---------------------------------------------------------------- play
@main.command()
@_rules_option("cuttle-cards")
@click.option("--seat", default="p0", help="Your seat: p0, p1, ... (of the game's seats).")
@click.option("--opponents", default="greedy", metavar="SPEC",
              help="The agent in every other seat (team partner too), or one spec a seat in seat order, separated by "
                   "';' or ',' (agents as arena takes them, docs/arena.md).")
@click.option("--seed", "-s", type=WholeRange(0, MAX_SEED), default=None, envvar="CUTTLE_SEED", cls=EnvOption,
              help="Random seed of the deal and of the opponents [default: a new one, printed].")
@click.option("--hints", type=click.Choice(["on", "off"]), default="on", help="Whether the hint command answers.")
@click.option("--save", "save", type=click.Path(dir_okay=False), default=None,
              help="Write the game log here when the game ends or you leave (for replay and review).")
@click.option("--resume", "resume", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Go on with the game saved in FILE (its rules, deal and players); it is saved there again "
                   "unless --save names a new file.")
@click.pass_context
def play(ctx, rules, seat, opponents, seed, hints, save, resume):
    """Play a game against agents, with the analyser's hints at your prompt.

    Each decision of yours shows the board from your seat and your legal moves, numbered;
    answer with a number or the move's notation. At the prompt: hint [N], undo, save FILE,
    moves, board, history, help, quit. --resume FILE goes on with a saved game. See
    docs/play.md."""
    import os
    import pathlib
    import secrets
    import shlex

    from .game.gamelog import read_json_file
    from .play.session import PlayError, new_session, resume_session
    from .play.terminal import Terminal

    rs = get_ruleset(rules)  # (checked by --rules' callback)
    if seed is None:
        seed = secrets.randbelow(1 << 31)
    if resume is not None:
        for name in ("rules", "seat", "opponents"):
            if ctx.get_parameter_source(name) not in (click.core.ParameterSource.DEFAULT, None):
                raise click.BadParameter(f"the resumed game's {name} come from its log; drop --{name}",
                                         param_hint=f"--{name}")
    warn_if_compiling()
    try:
        if resume is not None:
            try:
                session = resume_session(read_json_file(os.path.expanduser(resume)), seed,
                                         f"review it: cuttle-search review {shlex.quote(resume)}")
            except CuttleError as e:
                raise click.BadParameter(str(e), param_hint="--resume") from None
        else:
            session = new_session(rs, seat, opponents, seed)
    except PlayError as e:
        field, _, message = str(e).partition(": ")
        raise click.BadParameter(message, param_hint=f"--{field}") from None
    _check_writable(save and os.path.expanduser(save), "--save")  # now, not after the game (as play saves it)
    if save and pathlib.Path(save).expanduser().is_file():  # (as Path reads it: "x.json/" is x.json)
        raise click.BadParameter(f"{save!r} already exists; give a new name (play replaces no file but the one "
                                 "a resumed game came from)",
                                 param_hint="--save")
    ours = resume is not None and save is None
    if ours:  # the resumed game goes on in its own file
        _check_writable(os.path.expanduser(resume), "--resume")
        save = resume
    # a hint prints analyse's table, with analyse's live progress bar
    code = Terminal(session, hints=hints == "on", save_path=save, table=_analysis_table, progress=_live_progress,
                    save_path_is_ours=ours).run()
    if code:
        sys.exit(code)


# ---------------------------------------------------------------- serve
@main.command()
@click.option("--host", default="127.0.0.1", help="Address to listen on (the loopback by default: only this machine).")
@click.option("--port", type=WholeRange(0, 65535), default=8765, help="Port to listen on (0: any free port).")
@click.option("--open", "open_browser", is_flag=True, help="Open the board in the browser once it listens.")
@click.option("--seed", type=WholeRange(0, MAX_SEED), default=0, envvar="CUTTLE_SEED", cls=EnvOption,
              help="Seed of the analyse page's searches and of reviews.")
@click.option("--max-iterations", type=WholeRange(1, MAX_ITERATIONS), default=10_000_000,
              help="The most iterations one request may ask for.")
@click.option("--max-time", type=_Number(0, MAX_SECONDS, low_open=True), default=60.0,
              help="The most seconds one request may ask for.")
@click.option("--max-request-bytes", type=WholeRange(1024, 1 << 30), default=1 << 20,
              help="The largest message (an uploaded file included); a larger one is refused.")
def serve(host, port, open_browser, seed, max_iterations, max_time, max_request_bytes):
    """A browser analysis board on http://HOST:PORT/: play against agents with live
    hints, analyse or solve a position file or cuttle.cards GameState, review a game log
    or history with a clickable win-rate chart. Needs the web extra
    (pip install 'cuttle-search[web]'). See docs/web.md."""
    from .web import missing_dependency

    if not host.strip():  # (an empty host listens on every interface, which only 0.0.0.0 should ask)
        raise click.BadParameter("empty: give an address (0.0.0.0 for every interface)", param_hint="--host")
    if ":" in host:  # the Host check reads 'name:port'; an IPv6 literal would never match it
        raise click.BadParameter(f"{host!r}: give an IPv4 address or a name (IPv6 literals are not supported)",
                                 param_hint="--host")
    missing = missing_dependency()
    if missing:
        raise InputError(missing)
    from .hint import ServerLimits
    from .web.app import ListenError, run

    warn_if_compiling()
    limits = ServerLimits(max_iterations, max_time, 1, max_request_bytes)
    try:
        run(host, port, limits, {"seed": seed}, open_browser,
            announce=lambda url: click.echo(f"cuttle-search board on {url} (Ctrl-C stops it)", err=True))
    except ListenError as e:
        raise click.BadParameter(str(e), param_hint=f"--{e.param}") from None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
