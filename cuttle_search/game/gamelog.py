"""Game logs (``arena --log-dir``): reading one as untrusted input, and replaying it.

A log is ``{"format": "cuttle-search/game", "rules", "start" (a full-information
position), "moves" (text notation), "players" (every seat's), "dealSeed", "result"}``; replay
checks every move for legality against the position it is played in. A ruleset whose
positions have no file form yet (``cutthroat``) logs no ``start``: its deal, ``dealSeed``
and ``dealer`` (the seat that dealt; the engine's default deal without one), is dealt again
by the engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ..engine import layout as L
from ..engine.setup import deal_by
from .errors import CuttleError, brief
from .inputs import parse_json, read_text_file
from .moves import Move
from .position import Position, PositionError
from .rules import Ruleset, RulesError, find_ruleset

GAME_FORMAT = "cuttle-search/game"


class GameLogError(CuttleError):
    """A game log that cannot be read or replayed; the message names the field."""


def read_game_log(path: str | Path) -> dict[str, Any]:
    """The checked game log in the file ``path``."""
    return check_game_log(read_json_file(path))


def read_json_file(path: str | Path) -> Any:
    """The JSON of a game file (a log or a cuttle.cards history), unchecked."""
    return parse_json(read_text_file(path, GameLogError), GameLogError, "log")


def check_game_log(data: Any) -> dict[str, Any]:
    """``data`` if it has the shape of a game log (the moves are checked by :func:`replay`)."""
    if not isinstance(data, Mapping):
        raise GameLogError(f"log: expected a JSON object, got {type(data).__name__}")
    if data.get("format") != GAME_FORMAT:
        raise GameLogError(f"format: expected {GAME_FORMAT!r}, got {brief(data.get('format'))}")
    if "start" in data or "dealSeed" not in data:
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
    dealer = data.get("dealer")
    if dealer is not None and not (isinstance(dealer, str) and len(dealer) == 2 and dealer[0] == "p"
                                   and dealer[1].isdigit()):
        raise GameLogError(f"dealer: expected a seat like \"p2\", got {brief(dealer)}")
    return dict(data)


def deal_position(rules: Ruleset, deal_seed: int, dealer: int | None = None) -> Position:
    """The game dealt from ``deal_seed``: the engine's deal (``Position.deal``), or with a
    ``dealer`` the engine's deal by that seat (``setup.deal_by``: the seat after it starts)."""
    if dealer is None:
        return Position.deal(rules, seed=deal_seed)
    s = np.zeros(L.STATE_SIZE, dtype=np.int64)
    deal_by(s, rules.array, np.array([deal_seed & (2**64 - 1)], dtype=np.uint64), np.int64(dealer))
    return Position(rules, s)


def _dealt_start(log: Mapping[str, Any]) -> Position:
    """The start of a log that names its deal rather than writing the position."""
    try:
        rules = find_ruleset(log.get("rules"))
    except RulesError as e:
        raise GameLogError(f"rules: {e}") from None
    dealer = log.get("dealer")
    seat = None if dealer is None else int(dealer[1])
    if seat is not None and seat >= rules.players:
        raise GameLogError(f"dealer: {dealer} is not a seat of {rules.spec} (p0-p{rules.players - 1})")
    return deal_position(rules, log["dealSeed"], seat)


def _check_start_agrees(log: Mapping[str, Any], start: Position) -> None:
    """A log that writes its start and also names its rules or dealer must agree with it."""
    if log.get("rules") is not None:
        try:
            rules = find_ruleset(log["rules"])
        except RulesError as e:
            raise GameLogError(f"rules: {e}") from None
        if rules != start.rules:
            raise GameLogError(f"rules: the log says {rules.spec} but its start is played under {start.rules.spec}")
    dealer = log.get("dealer")
    if dealer is not None:
        seat = int(dealer[1])
        if seat >= start.rules.players:
            raise GameLogError(f"dealer: {dealer} is not a seat of {start.rules.spec} (p0-p{start.rules.players - 1})")
        if seat != int(start.state[L.F_DEALER]):
            raise GameLogError(f"dealer: the log says {dealer} but its start was dealt by p{int(start.state[L.F_DEALER])}")


def replay(log: Mapping[str, Any], upto: int | None = None) -> Position:
    """The position of a checked game log after its first ``upto`` moves (all of them by
    default), every move checked for legality."""
    pos, _played = _play_log(log, upto)
    return pos


def _play_log(log: Mapping[str, Any], upto: int | None) -> tuple[Position, list[Move]]:
    """Play a checked log's first ``upto`` moves from its start: the position reached and
    the moves as played (each checked for legality, errors naming the move)."""
    if "start" not in log:
        pos = _dealt_start(log)
    else:
        try:
            pos = Position.from_dict(log["start"])
        except PositionError as e:
            raise GameLogError(f"start.{e}") from None
    if pos.view is not None:
        raise GameLogError("start.view: a game log starts from a full-information position")
    if "start" in log:
        _check_start_agrees(log, pos)
    moves = log["moves"]
    if len(moves) > int(pos.rules_array[L.R_ACTION_LIMIT]):
        raise GameLogError(f"moves: {len(moves):,} moves, more than a game of {pos.rules.spec} can last")
    if upto is not None and not 0 <= upto <= len(moves):
        raise GameLogError(f"ply: the game has {len(moves)} moves, so the ply must be 0-{len(moves)}")
    played = []
    for i, text in enumerate(moves[:upto]):
        if pos.is_over:
            raise GameLogError(f"moves[{i}]: the game was already over")
        try:
            played.append(pos.play(text))
        except CuttleError as e:
            raise GameLogError(f"moves[{i}]: {e}") from None
    return pos, played


def describe(log: Mapping[str, Any], played: int) -> str:
    """One line about a log's moment: who played, the deal, how many moves in."""
    players = log.get("players") or {}
    names = " vs ".join(f"{name} ({seat})" for seat, name in sorted(players.items())) or "a game"
    seed = log.get("dealSeed")
    deal = f", deal seed {seed}" if seed is not None else ""
    return f"{names}{deal}, after {played} moves"



# ---------------------------------------------------------------- cuttle.cards histories
HISTORY_ZONES = ("p0Hand", "p1Hand", "p0Points", "p1Points", "p0FaceCards", "p1FaceCards", "scrap")
GAMESTATE_KEYS = HISTORY_ZONES + ("deck", "phase", "turn", "oneOff", "oneOffTarget", "twos")


def _base_cards(items: Any, where: str) -> set[str]:
    """The cards of a zone list, jack stacks reduced to their point card ('TH(JH-p0)' -> 'TH')
    and the jacks on it."""
    if items is None:
        return set()
    if not isinstance(items, list) or len(items) > 60:
        raise GameLogError(f"{where}: expected a list of cards, got {brief(items)}")
    out: set[str] = set()
    for item in items:
        text = item.get("id") if isinstance(item, Mapping) else item
        if not isinstance(text, str):
            raise GameLogError(f"{where}: expected card strings, got {brief(text)}")
        for part in text.replace("(", ",").replace(")", "").split(","):
            part = part.strip().split("-")[0].upper()
            if part:
                out.add(part)
    return out


def _history_move(row: Mapping[str, Any], i: int) -> Move:
    """The move a cuttle.cards GameStateRow records (``moveType``, ``playedCard``,
    ``targetCard``, ``discardedCards``)."""
    body: dict[str, Any] = {"moveType": row.get("moveType")}
    if row.get("playedCard") is not None:
        body["cardId"] = row["playedCard"]
    if row.get("targetCard") is not None:
        body["targetId"] = row["targetCard"]
    if row.get("discardedCards"):
        body["cardIds"] = row["discardedCards"]
    if body["moveType"] == "resolveThree" and "cardId" not in body and "targetId" in body:
        body["cardId"] = body["targetId"]
    try:
        return Move.from_json(body)
    except CuttleError as e:
        raise GameLogError(f"rows[{i}]: {e}") from None


def read_history(rows: Any) -> tuple[Position, list[Move]]:
    """The start and the moves of a cuttle.cards game history: the list of GameStateRow
    objects its game-state API returns, each the state after one move. The first row (the
    deal, ``moveType`` "initialize") is the start; every later row's move is played on the
    engine and the zones it leaves are checked against the row's."""
    if not isinstance(rows, list) or not rows:
        raise GameLogError("history: expected a non-empty list of GameStateRow objects")
    if len(rows) > 2001:
        raise GameLogError(f"history: {len(rows):,} rows, more than a game can last")
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise GameLogError(f"rows[{i}]: expected a GameStateRow object, got {type(row).__name__}")
    try:
        pos = Position.from_dict({k: rows[0][k] for k in GAMESTATE_KEYS if k in rows[0]})
    except PositionError as e:
        raise GameLogError(f"rows[0].{e}") from None
    moves: list[Move] = []
    for i, row in enumerate(rows[1:], 1):
        if pos.is_over:
            raise GameLogError(f"rows[{i}]: the game was already over")
        move = _history_move(row, i)
        by = row.get("playedBy")
        if by is not None and by != pos.actor:
            raise GameLogError(f"rows[{i}].playedBy: {brief(by)}, but it is p{pos.actor}'s decision ({pos.phase_name})")
        try:
            moves.append(pos.play(move))
        except CuttleError as e:
            raise GameLogError(f"rows[{i}]: {e}") from None
        mine = pos.to_dict()
        for key in HISTORY_ZONES:
            if key not in row:
                continue
            logged, ruled = _base_cards(row[key], f"rows[{i}].{key}"), _base_cards(mine[key], key)
            if logged != ruled:
                raise GameLogError(f"rows[{i}].{key}: after {move.text()} the log has {sorted(logged)}, "
                                   f"the rules give {sorted(ruled)}")
    start = Position.from_dict({k: rows[0][k] for k in GAMESTATE_KEYS if k in rows[0]})
    return start, moves


def read_game(data: Any) -> tuple[Position, list[Move], dict[str, Any]]:
    """(start, moves, about) of a game log of this project or a cuttle.cards history; every
    move checked for legality in turn."""
    if isinstance(data, list):
        start, moves = read_history(data)
        return start, moves, {"source": "cuttle.cards history", "players": {}}
    log = check_game_log(data)
    start = replay(log, 0)
    _end, moves = _play_log(log, None)
    return start, moves, {"source": "game log", "players": dict(log.get("players") or {}), "dealSeed": log.get("dealSeed")}
