"""Game logs (``arena --log-dir``): reading one as untrusted input, and replaying it.

A log is ``{"format": "cuttle-search/game", "rules", "start" (a full-information
position), "moves" (text notation), "players" (every seat's), "dealSeed", "result"}``; replay
checks every move for legality against the position it is played in, and the ``result``
(``status``, ``winner``), when written, against the end the moves reach. A deal the
position file cannot hold whole (Cuttle Multiplayer's: the seed of its later reshuffles is
in no file) is logged with no ``start``: its ``dealSeed`` and ``dealer`` (the seat that
dealt; the engine's default deal without one) are dealt again by the engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ..engine import layout as L
from ..engine.seats import opponent
from ..engine.setup import deal_by
from .errors import CuttleError, brief
from .inputs import parse_json, read_text_file
from .formats.fields import GAME_FORMAT, check_keys, read_card
from .moves import Move, fields_read
from .position import Position, PositionError
from .rules import Ruleset, RulesError, find_ruleset
from .seats import seat_name

GAME_VERSION = 1  # written by the arena; a log without one is read as this version
# every key a log may hold (GameRecord.to_json writes them): any other is refused, so that a
# misspelt one ("result" as "resutl") is not skipped with the check it would have asked for
LOG_KEYS = ("format", "version", "engineVersion", "rules", "dealSeed", "players", "dealer", "rngSeed", "start",
            "moves", "result")


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
    if isinstance(data, list):
        raise GameLogError("log: expected a game log (a JSON object, as arena --log-dir and play --save write), "
                           "got a list: a cuttle.cards history, which review reads, not replay")
    if not isinstance(data, Mapping):
        raise GameLogError(f"log: expected a JSON object, got {type(data).__name__}")
    if data.get("format") != GAME_FORMAT:
        raise GameLogError(f"format: expected {GAME_FORMAT!r}, got {brief(data.get('format'))}")
    if data.get("version", GAME_VERSION) != GAME_VERSION or isinstance(data.get("version"), bool):
        raise GameLogError(f"version: expected {GAME_VERSION} (the only version of the log format), got {brief(data.get('version'))}")
    check_keys(data, LOG_KEYS, what="game log", error=GameLogError)  # (after the version: a later one may add keys)
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
    for key in ("dealSeed", "rngSeed"):
        seed = data.get(key)
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64):
            raise GameLogError(f"{key}: expected a whole number from 0 to 2^64 - 1, got {brief(seed)}")
    result = data.get("result", {})
    if not isinstance(result, Mapping):
        raise GameLogError(f"result: expected an object like {{\"status\": \"won\", \"winner\": \"p0\"}}, got {brief(result)}")
    check_keys(result, ("status", "winner"), where="result.", what="game log's result", error=GameLogError)
    dealer = data.get("dealer")
    if dealer is not None and not (isinstance(dealer, str) and len(dealer) == 2 and dealer[0] == "p"
                                   and dealer[1] in "0123456789"):
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
        rules = find_ruleset(log.get("rules"))  # type: ignore[arg-type]  # untrusted: anything else is a RulesError
    except RulesError as e:
        raise GameLogError(f"rules: {e}") from None
    dealer = log.get("dealer")
    seat = None if dealer is None else int(dealer[1])
    if seat is not None and seat >= rules.players:
        raise GameLogError(f"dealer: {dealer} is not a seat of {rules.spec} (p0-{seat_name(rules.players - 1)})")
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
            raise GameLogError(f"dealer: {dealer} is not a seat of {start.rules.spec} (p0-{seat_name(start.rules.players - 1)})")
        if seat != start.dealer:
            raise GameLogError(f"dealer: the log says {dealer} but its start was dealt by {seat_name(start.dealer)}")


def replay(log: Mapping[str, Any], upto: int | None = None) -> Position:
    """The position of a checked game log after its first ``upto`` moves (all of them by
    default), every move checked for legality."""
    pos, _played = _play_log(log, upto)
    return pos


def _play_log(log: Mapping[str, Any], upto: int | None) -> tuple[Position, list[Move]]:
    """Play a checked log from its start: the position after its first ``upto`` moves (all
    by default) and every move as played. Every move is checked for legality (errors name
    the move) and the recorded ``result`` against the end the moves reach, whatever ``upto``."""
    full = "start.view: a game log starts from a full-information position"
    if "start" not in log:
        pos = _dealt_start(log)
    else:
        if log["start"].get("view") not in (None, "full"):  # said first: a view's other fields would be refused first
            raise GameLogError(full)
        try:
            pos = Position.from_dict(log["start"])
        except PositionError as e:
            raise GameLogError(f"start.{e}") from None
    if pos.view is not None:
        raise GameLogError(full)
    if "start" in log:
        _check_start_agrees(log, pos)
    seats = [seat_name(q) for q in range(pos.players)]
    for key in log.get("players") or {}:
        if key not in seats:
            raise GameLogError(f"players: {brief(key)} is not a seat of {pos.rules.spec} ({', '.join(seats)})")
    moves = log["moves"]
    if len(moves) > int(pos.rules_array[L.R_ACTION_LIMIT]):
        raise GameLogError(f"moves: {len(moves):,} moves, more than a game of {pos.rules.spec} can last")
    if upto is not None and not 0 <= upto <= len(moves):
        raise GameLogError(f"ply: the game has {len(moves)} moves, so the ply must be 0-{len(moves)}")
    played = []
    at = pos.copy() if upto == 0 else None
    for i, text in enumerate(moves):  # every move, whatever ``upto``: the whole log is checked
        if pos.is_over:
            raise GameLogError(f"moves[{i}]: the game was already over")
        try:
            played.append(pos.play(text))
        except CuttleError as e:
            raise GameLogError(f"moves[{i}]: {e}") from None
        if i + 1 == upto:
            at = pos.copy()
    _check_result(log, pos)
    return (pos if at is None else at), played


def _check_result(log: Mapping[str, Any], end: Position) -> None:
    """A log's recorded ``result`` (optional) must be the one its moves reach."""
    if "result" not in log:
        return
    ruled = end.result()
    for key in ("status", "winner"):
        said = log["result"].get(key)
        if said != ruled[key] or type(said) is not type(ruled[key]):
            raise GameLogError(f"result.{key}: the log says {brief(said)}, but its moves end the game "
                               f"{ruled['status']}" + (f" by {ruled['winner']}" if ruled["winner"] else "")
                               + f" ({key} {brief(ruled[key])})")


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


def _card_key(text: str) -> str:
    """A card or jack-stack string in one spelling: 'th(jh-p0)' and '10H(JH-p0)' -> 'TH(JH-P0)'."""
    return "".join(text.split()).upper().replace("10", "T")


def _row_cards(items: Any, where: str, owner: int | None = None, other: int | None = None) -> list[str]:
    """The cards of a row's list field, each in one spelling (:func:`_card_key`). A card
    object's jacks (``attachments``, bottom first) alternate seats, the top one ``owner``'s
    and the one below it ``other``'s."""
    if not isinstance(items, list) or len(items) > 60:
        raise GameLogError(f"{where}: expected a list of cards, got {brief(items)}")
    out = []
    for k, item in enumerate(items):
        text = item.get("id") if isinstance(item, Mapping) else item
        if not isinstance(text, str):
            raise GameLogError(f"{where}[{k}]: expected a card string, got {brief(text)}")
        jacks = item.get("attachments") if isinstance(item, Mapping) and owner is not None else None
        if jacks:
            if not isinstance(jacks, list) or not all(isinstance(j, Mapping) and isinstance(j.get("id"), str)
                                                      for j in jacks):
                raise GameLogError(f"{where}[{k}].attachments: expected a list of jack cards, got {brief(jacks)}")
            n = len(jacks)
            text += "(" + ",".join(f"{j['id']}-p{owner if (n - 1 - a) % 2 == 0 else other}"
                                   for a, j in enumerate(jacks)) + ")"
        out.append(_card_key(text))
    return out


def _differ(logged: list[str], ruled: list[str], ordered: bool) -> str | None:
    """How a row's cards differ from the replay's (None if they agree): the cards one has
    and the other lacks, or for an ordered field the first place the order differs."""
    extra, missing = list(logged), list(ruled)
    for c in ruled:
        if c in extra:
            extra.remove(c)
            missing.remove(c)
    if extra or missing:
        parts = ([f"the log has {brief(sorted(extra), 120)} the rules do not"] if extra else []) + \
                ([f"the rules give {brief(sorted(missing), 120)} the log lacks"] if missing else [])
        return "; ".join(parts)
    if ordered and logged != ruled:
        k = next(k for k, (a, b) in enumerate(zip(logged, ruled)) if a != b)
        return f"the log has {logged[k]} at [{k}] (top first), the rules give {ruled[k]}"
    return None


def _check_row(row: Mapping[str, Any], i: int, pos: Position, move: Move) -> None:
    """Every GameState field of history row ``i`` agrees with the replay ``pos`` reached by
    ``move``; a field may be left out, never written wrong. A finished game has no
    cuttle.cards phase and the engine stops counting turns, so the row that ends it needs
    only a cuttle.cards phase, and the replay's turn count or one more (the last turn
    counted as complete)."""
    from .formats import CUTTLE_CARDS_PHASE, parse_phase

    mine = pos.to_dict()
    after = f"after {move.text()}"
    expected: dict[str, tuple[list[str], bool]] = {
        key: ([_card_key(c) for c in mine[key]], False) for key in HISTORY_ZONES}
    expected["deck"] = ([_card_key(c) for c in (mine.get("revealed") or []) + mine["deck"]], True)
    expected["twos"] = ([_card_key(c) for c in mine["twos"]], False)
    for key, (ruled, ordered) in expected.items():
        if key not in row:
            continue
        owner = int(key[1]) if key.endswith("Points") else None
        other = None if owner is None else int(opponent(pos.state, owner))
        logged = _row_cards(row[key], f"rows[{i}].{key}", owner, other)
        why = _differ(logged if ordered else sorted(logged), ruled if ordered else sorted(ruled), ordered)
        if why:
            raise GameLogError(f"rows[{i}].{key}: {after} {why}")
    for key in ("oneOff", "oneOffTarget"):
        if key not in row:
            continue
        value = row[key].get("id") if isinstance(row[key], Mapping) else row[key]
        if value is not None and not isinstance(value, str):
            raise GameLogError(f"rows[{i}].{key}: expected a card or null, got {brief(value)}")
        logged_card = None if value is None else _card_key(value)
        ruled_card = None if mine[key] is None else _card_key(mine[key])
        if logged_card != ruled_card:
            raise GameLogError(f"rows[{i}].{key}: {after} the log has {brief(value)}, the rules give {brief(mine[key])}")
    turn = pos.turn_count
    if "turn" in row:
        v = row["turn"]
        if not isinstance(v, int) or isinstance(v, bool):
            raise GameLogError(f"rows[{i}].turn: expected a whole number, got {brief(v)}")
        if not (v == turn or (pos.is_over and v == turn + 1)):
            raise GameLogError(f"rows[{i}].turn: {after} the log has {brief(v)}, the rules give {turn}")
    if "phase" in row:
        v = row["phase"]
        try:
            if v is None:
                raise PositionError("phase: expected a cuttle.cards phase number, got null")
            phase = parse_phase(v)
        except PositionError as e:
            raise GameLogError(f"rows[{i}].{e}") from None
        if not pos.is_over and phase != pos.phase:
            ruled_phase = CUTTLE_CARDS_PHASE.get(pos.phase, pos.phase_name)
            raise GameLogError(f"rows[{i}].phase: {after} the log has {brief(v)}, the rules give {ruled_phase} "
                               f"({pos.phase_name})")


def _history_move(row: Mapping[str, Any], i: int) -> Move:
    """The move a cuttle.cards GameStateRow records (``moveType``, ``playedCard``,
    ``targetCard``, ``discardedCards``). Each of those the row writes must be a card (a
    list of cards for ``discardedCards``), whether or not the move reads it: a field may be
    left out, never written wrong."""
    for field in ("playedCard", "targetCard"):
        if row.get(field) is not None:
            _row_card(row[field], f"rows[{i}].{field}")
    discarded = row.get("discardedCards")
    if discarded is not None:
        if not isinstance(discarded, list):
            raise GameLogError(f"rows[{i}].discardedCards: expected a list of cards, got {brief(discarded)}")
        for k, c in enumerate(discarded):
            _row_card(c, f"rows[{i}].discardedCards[{k}]")
    body: dict[str, Any] = {"moveType": row.get("moveType")}
    if row.get("playedCard") is not None:
        body["cardId"] = row["playedCard"]
    if row.get("targetCard") is not None:
        body["targetId"] = row["targetCard"]
    if row.get("discardedCards"):
        body["cardIds"] = row["discardedCards"]
    if body["moveType"] == "resolveThree" and "cardId" not in body and "targetId" in body:
        body["cardId"] = body.pop("targetId")
    if isinstance(body["moveType"], str):  # a row's card fields that its move does not read stay unread
        read = fields_read(body["moveType"], body)
        body = {k: v for k, v in body.items() if k == "moveType" or k in read}
    try:
        return Move.from_json(body)
    except CuttleError as e:
        raise GameLogError(f"rows[{i}]: {e}") from None


def _row_card(value: Any, where: str) -> None:
    """A card string or card object (the position files' reader), else a ``GameLogError``."""
    try:
        read_card(value, where)
    except PositionError as e:
        raise GameLogError(str(e)) from None


def read_history(rows: Any) -> tuple[Position, list[Move]]:
    """The start and the moves of a cuttle.cards game history: the list of GameStateRow
    objects its game-state API returns, each the state after one move. The first row (the
    deal, ``moveType`` "initialize") is the start; every later row's move is played on the
    engine and every field the row writes (``playedBy``, ``gameId``, the zones, ``deck``,
    ``turn``, ``phase``, ``oneOff``, ``oneOffTarget``, ``twos``) must agree with the replay
    (:func:`_check_row`), or the row is refused naming the field."""
    if not isinstance(rows, list) or not rows:
        raise GameLogError("history: expected a non-empty list of GameStateRow objects")
    if len(rows) > 2001:
        raise GameLogError(f"history: {len(rows):,} rows, more than a game can last")
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise GameLogError(f"rows[{i}]: expected a GameStateRow object, got {type(row).__name__}")
    if rows[0].get("moveType", "initialize") != "initialize":
        raise GameLogError(f"rows[0].moveType: expected 'initialize' (the first row is the deal), got {brief(rows[0]['moveType'])}")
    try:
        pos = Position.from_dict({k: rows[0][k] for k in GAMESTATE_KEYS if k in rows[0]})
    except PositionError as e:
        raise GameLogError(f"rows[0].{e}") from None
    moves: list[Move] = []
    for i, row in enumerate(rows[1:], 1):
        if pos.is_over:
            raise GameLogError(f"rows[{i}]: the game was already over")
        move = _history_move(row, i)
        if "playedBy" in row and (not isinstance(row["playedBy"], int) or isinstance(row["playedBy"], bool)
                                  or row["playedBy"] != pos.actor):
            raise GameLogError(f"rows[{i}].playedBy: {brief(row['playedBy'])}, but it is {seat_name(pos.actor)}'s decision "
                               f"({pos.phase_name}): expected {pos.actor}")
        if "gameId" in row and (row["gameId"] != rows[0].get("gameId") or type(row["gameId"]) is not type(rows[0].get("gameId"))):
            raise GameLogError(f"rows[{i}].gameId: {brief(row['gameId'])}, but the history's first row is game "
                               f"{brief(rows[0].get('gameId'))} (a history is one game)")
        try:
            moves.append(pos.play(move))
        except CuttleError as e:
            raise GameLogError(f"rows[{i}]: {e}") from None
        _check_row(row, i, pos, moves[-1])
    start = Position.from_dict({k: rows[0][k] for k in GAMESTATE_KEYS if k in rows[0]})
    return start, moves


def read_game(data: Any) -> tuple[Position, list[Move], dict[str, Any]]:
    """(start, moves, about) of a game log of this project or a cuttle.cards history; every
    move checked for legality in turn."""
    if isinstance(data, list):
        start, moves = read_history(data)
        return start, moves, {"source": "cuttle.cards history", "players": {}}
    log = check_game_log(data)
    start, moves = _play_log(log, 0)
    return start, moves, {"source": "game log", "players": dict(log.get("players") or {}), "dealSeed": log.get("dealSeed")}
