"""The position file formats, read and written (``docs/position-format.md``): the v1 two-seat
form (``v1``), the seat-list form for any number of seats (``seat_list``), cuttle.cards'
GameState (``gamestate``), and what they share (``fields``). Reading validates everything
a stranger's file could get wrong and names the field; whether the position could happen
is the engine's question (``engine.setup.position_error`` and ``setup_pending``).

``Position`` is a value type that imports none of this: importing this package (the
package ``cuttle_search.game`` does) registers the readers and writers behind
``Position.load``, ``from_dict``, ``from_json``, ``to_dict``, ``to_json`` and ``to_gamestate``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

from ..errors import brief
from ..inputs import parse_json, read_text_file
from ..position import Position, PositionError, register_formats
from ..rules import Ruleset, RulesError, get_ruleset
from .fields import (
    CUTTLE_CARDS_PHASE, FORMAT_NAME, FORMAT_VERSION, GAME_FORMAT, POSITION_KEYS, TOP_LEVEL_KEYS, check_position_keys, dump_position_dict,
    from_cuttle_cards, is_position_key, parse_phase,
)
from .gamestate import normalise_gamestate, position_to_gamestate
from .seat_list import build_seat_position, seat_list_dict, taken_stacks
from .v1 import build_v1_position, v1_dict


def position_to_dict(pos: Position) -> dict[str, Any]:
    """The position file form (hidden cards written ``??``): v1 for two seats, the
    seat-list form for more."""
    return seat_list_dict(pos) if pos.rules.seat_list_form else v1_dict(pos)


def build_position(data: Any, rules_override: str | Ruleset | None) -> Position:
    """A position from a file's JSON object: the v1 form, the seat-list form (version 2, or
    a ``seats`` list) or a cuttle.cards GameState; ``rules_override`` replaces the file's
    ruleset."""
    if not isinstance(data, Mapping):
        raise PositionError("the position must be a JSON object")
    if data.get("format") == GAME_FORMAT:  # (before its keys, which are a log's)
        raise PositionError(f"format: {GAME_FORMAT!r} is a game log, not a position: review or replay it "
                            "(replay --export writes a moment of it as a position)")
    if not from_cuttle_cards(data):  # (a cuttle.cards GameState carries fields of its own)
        check_position_keys(data)
    data = normalise_gamestate(data)
    fmt = data.get("format")
    if fmt is not None and fmt != FORMAT_NAME:
        raise PositionError(f"format: expected {FORMAT_NAME!r}, got {brief(fmt)}")
    version = data.get("version", FORMAT_VERSION)
    if version not in (FORMAT_VERSION, 2) or isinstance(version, bool):
        raise PositionError(f"version: this cuttle_search reads position formats 1 and 2, not {brief(version)}")
    seat_list = version == 2 or "seats" in data

    # ---- rules
    try:
        if isinstance(rules_override, Ruleset):
            rs = rules_override
        else:
            options = data.get("options")
            if options is None:
                options = {}
            if not isinstance(options, Mapping):
                raise PositionError("options: expected an object of rule options")
            spec = rules_override or data.get("rules")
            rs = get_ruleset("cuttle-cards" if spec is None else spec, options)
    except RulesError as e:
        raise PositionError(f"rules: {e}") from None
    if seat_list:
        return build_seat_position(data, rs)
    if rs.seat_list_form:
        if rules_override is not None:  # (the position is a two-seat one: the ruleset asked for is at fault)
            raise PositionError(f"rules: {rs.name} has {rs.players} seats, and this position is of two "
                                "(the seat-list form holds more: version 2, a 'seats' list)")
        raise PositionError(f"seats: {rs.name} has {rs.players} seats; write the position in the seat-list form "
                            "(version 2, a 'seats' list)")
    return build_v1_position(data, rs)


def position_from_json(text: str, rules: str | Ruleset | None = None) -> Position:
    """A position from the JSON text of a file."""
    return build_position(parse_json(text, PositionError, "position"), rules)


def read_position_file(path: str | Path, rules: str | Ruleset | None = None) -> Position:
    """A position from a file, named after the file."""
    text = read_text_file(path, PositionError)
    pos = position_from_json(text, rules)
    pos.name = Path(path).stem
    return pos


def load_position(source: str | Path | Mapping[str, Any], rules: str | Ruleset | None = None) -> Position:
    """A position from a file path, a JSON string or a dict."""
    if isinstance(source, Mapping):
        return build_position(source, rules)
    if isinstance(source, str) and source.lstrip().startswith("{"):
        return position_from_json(source, rules)
    if not isinstance(source, (str, os.PathLike)):
        raise PositionError(f"position: expected a Position, a file path, JSON text or a dict, got {brief(source)}")
    return read_position_file(source, rules)


PositionSource = Position | str | Path | Mapping[str, Any]


def as_position(source: PositionSource) -> Position:
    """``source`` itself when it is a Position, else the position it names (``load_position``)."""
    return source if isinstance(source, Position) else load_position(source)


register_formats(build_position, position_from_json, read_position_file, position_to_dict, dump_position_dict,
                 position_to_gamestate)

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "CUTTLE_CARDS_PHASE", "POSITION_KEYS", "TOP_LEVEL_KEYS", "PositionSource",
           "as_position", "from_cuttle_cards",
           "build_position", "dump_position_dict", "is_position_key", "load_position", "parse_phase",
           "position_from_json", "position_to_dict", "position_to_gamestate", "read_position_file", "taken_stacks"]
