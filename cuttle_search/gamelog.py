"""Game logs (``arena --log-dir``): reading one as untrusted input, and replaying it.

A log is ``{"format": "cuttle-search/game", "rules", "start" (a full-information
position), "moves" (text notation), "players", "dealSeed", "result"}``; replay checks
every move for legality against the position it is played in."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from .engine import kernels as K
from .errors import CuttleError, brief
from .inputs import parse_json, read_text_file
from .position import Position, PositionError

GAME_FORMAT = "cuttle-search/game"


class GameLogError(CuttleError):
    """A game log that cannot be read or replayed; the message names the field."""


def read_game_log(path: str | Path) -> dict[str, Any]:
    """The checked game log in the file ``path``."""
    return check_game_log(parse_json(read_text_file(path, GameLogError), GameLogError, "log"))


def check_game_log(data: Any) -> dict[str, Any]:
    """``data`` if it has the shape of a game log (the moves are checked by :func:`replay`)."""
    if not isinstance(data, Mapping):
        raise GameLogError(f"log: expected a JSON object, got {type(data).__name__}")
    if data.get("format") != GAME_FORMAT:
        raise GameLogError(f"format: expected {GAME_FORMAT!r}, got {brief(data.get('format'))}")
    if not isinstance(data.get("start"), Mapping):
        raise GameLogError("start: expected the starting position as an object")
    moves = data.get("moves")
    if not isinstance(moves, list):
        raise GameLogError(f"moves: expected a list of moves, got {type(moves).__name__}")
    for i, m in enumerate(moves):
        if not isinstance(m, str):
            raise GameLogError(f"moves[{i}]: expected a move in text notation, got {brief(m)}")
    players = data.get("players")
    if players is not None:
        if not isinstance(players, Mapping) or not all(isinstance(v, str) for v in players.values()):
            raise GameLogError(f"players: expected an object like {{\"p0\": \"greedy\", \"p1\": \"random\"}}, got {brief(players)}")
    seed = data.get("dealSeed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64):
        raise GameLogError(f"dealSeed: expected a whole number from 0 to 2^64 - 1, got {brief(seed)}")
    return dict(data)


def replay(log: Mapping[str, Any], upto: int | None = None) -> Position:
    """The position of a checked game log after its first ``upto`` moves (all of them by
    default), every move checked for legality."""
    try:
        pos = Position.from_dict(log["start"])
    except PositionError as e:
        raise GameLogError(f"start.{e}") from None
    if pos.view is not None:
        raise GameLogError("start.view: a game log starts from a full-information position")
    moves = log["moves"]
    if len(moves) > int(pos.rules_array[K.R_ACTION_LIMIT]):
        raise GameLogError(f"moves: {len(moves):,} moves, more than a game of {pos.rules.spec} can last")
    if upto is not None and not 0 <= upto <= len(moves):
        raise GameLogError(f"ply: the game has {len(moves)} moves, so the ply must be 0-{len(moves)}")
    for i, text in enumerate(moves[:upto]):
        if pos.is_over:
            raise GameLogError(f"moves[{i}]: the game was already over")
        try:
            pos.play(text)
        except CuttleError as e:
            raise GameLogError(f"moves[{i}]: {e}") from None
    return pos


def describe(log: Mapping[str, Any], played: int) -> str:
    """One line about a log's moment: who played, the deal, how many moves in."""
    players = log.get("players") or {}
    names = " vs ".join(f"{name} ({seat})" for seat, name in sorted(players.items())) or "a game"
    seed = log.get("dealSeed")
    deal = f", deal seed {seed}" if seed is not None else ""
    return f"{names}{deal}, after {played} moves"

