"""The ``cuttle-search`` command line: thin commands over the modules of the package.

Data goes to stdout, diagnostics and progress bars to stderr, so ``| jq`` always works.
Bad input (a malformed position, an unknown ruleset) exits with code 2 and one line.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import click
import numpy as np

from . import __version__
from .display import describe_decision, render
from .position import Position, PositionError, load_position, seat_name
from .rules import PRESETS, RulesError, get_ruleset


class InputError(click.ClickException):
    """Bad input from the user: one line on stderr, exit code 2."""

    exit_code = 2


def _load(path: str, rules: str | None = None) -> Position:
    try:
        return load_position(path, rules=rules)
    except (PositionError, RulesError) as e:
        raise InputError(f"{path}: {e}") from None


def _emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=2))


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON on stdout instead of text.")
rules_option = click.option(
    "--rules",
    "rules",
    default=None,
    envvar="CUTTLE_RULES",
    help=f"Ruleset, optionally with options: NAME[:opt=value,...]. Names: {', '.join(PRESETS)}.",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "show_default": True})
@click.version_option(__version__, prog_name="cuttle-search")
def main() -> None:
    """Analyse Cuttle positions: show boards, list legal moves, count move trees, play games."""


@main.command()
@click.argument("position", type=click.Path(dir_okay=False))
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
@click.argument("position", type=click.Path(dir_okay=False))
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
@click.argument("position", type=click.Path(dir_okay=False))
@click.option("--depth", "-d", type=click.IntRange(0, 12), required=True, help="Number of plies.")
@click.option("--divide", is_flag=True, help="Also print the count below each legal move.")
@rules_option
@json_option
def perft(position: str, depth: int, divide: bool, rules: str | None, as_json: bool) -> None:
    """Count the move sequences of length DEPTH from a full-information POSITION.

    Draws and 7 reveals follow the file's deck order; each chance outcome of a
    four=random 4 counts as one move."""
    from .perft import perft as run_perft, perft_divide

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
@click.option("--games", "-n", type=click.IntRange(1, None), default=1000, help="Number of games.")
@click.option("--seed", "-s", type=click.IntRange(0, 2**63 - 1), default=0, envvar="CUTTLE_SEED", help="Random seed.")
@click.option("--rules", "rules", default="cuttle-cards", envvar="CUTTLE_RULES", help=f"Ruleset NAME[:opt=value,...]; names: {', '.join(PRESETS)}.")
@json_option
def selfplay(games: int, seed: int, rules: str, as_json: bool) -> None:
    """Play random games from fresh deals and summarise the results."""
    from .selfplay import run_selfplay

    try:
        rs = get_ruleset(rules)
    except RulesError as e:
        raise click.BadParameter(str(e), param_hint="--rules") from None
    summary = run_selfplay(rs, games, seed, progress=True)
    if as_json:
        _emit_json(summary)
        return
    w = summary["wins"]
    click.echo(f"{games} random games, rules {rs.spec}, seed {seed}")
    click.echo(f"  p0 wins {w['p0']} ({100 * w['p0'] / games:.1f}%)   p1 wins {w['p1']} ({100 * w['p1'] / games:.1f}%)")
    click.echo(
        f"  draws {summary['draws']} (three passes {summary['stalemates']['passes']}, action limit {summary['stalemates']['actionLimit']})"
    )
    click.echo(f"  mean length {summary['meanPlies']:.1f} plies; {summary['pliesPerSecond']:,.0f} plies/s")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
