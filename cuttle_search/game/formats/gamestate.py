"""cuttle.cards' GameState: written from a full-information two-seat position (the row
form), and read by rewriting its unpacked form (``p0: {hand, points, faceCards}`` with card
objects) into the row form the v1 reader takes."""

from __future__ import annotations

from typing import Any, Mapping

from ..errors import brief
from ..position import Position, PositionError
from ..seats import seat_name
from .fields import CUTTLE_CARDS_PHASE, card_text, list_field
from .v1 import v1_dict


def position_to_gamestate(pos: Position) -> dict[str, Any]:
    """A cuttle.cards GameState (row form) for a full-information two-seat position. It has
    no place for the ruleset: it loads back as ``cuttle-cards``."""
    if pos.view is not None:
        raise PositionError("view: only a full-information position can be written as a cuttle.cards GameState")
    if pos.rules.seat_list_form or pos.rules.jokers:  # (more seats, or a game of their rules)
        raise PositionError(f"rules: a cuttle.cards GameState holds a two-seat game of 52 cards; {pos.rules.spec} "
                            "positions are written in the seat-list form (save the position file instead)")
    if pos.phase not in CUTTLE_CARDS_PHASE:
        raise PositionError(f"phase: {pos.phase_name!r} has no cuttle.cards GameState equivalent")
    d = v1_dict(pos)
    out = {k: d[k] for k in ("p0Hand", "p0Points", "p0FaceCards", "p1Hand", "p1Points", "p1FaceCards", "scrap")}
    deck = d["deck"]
    if d.get("revealed"):
        deck = d["revealed"] + deck  # cuttle.cards keeps a 7's cards on top of the deck
    out.update(
        deck=deck,
        phase=CUTTLE_CARDS_PHASE[pos.phase],
        turn=pos.turn_count,
        oneOff=d["oneOff"],
        oneOffTarget=d["oneOffTarget"],
        twos=d["twos"],
    )
    return out



def normalise_gamestate(data: Mapping[str, Any]) -> dict[str, Any]:
    """Accept cuttle.cards' unpacked GameState (``p0: {hand, points, faceCards}`` with card
    objects) by rewriting it into the row form with card strings."""
    d = dict(data)
    for p in (0, 1):
        player = d.get(seat_name(p))
        if player is None:
            continue
        if not isinstance(player, Mapping):
            raise PositionError(f"{seat_name(p)}: expected an object with hand, points and faceCards, got {type(player).__name__}")
        both = [f"{seat_name(p)}{dst}" for dst in ("Hand", "Points", "FaceCards") if f"{seat_name(p)}{dst}" in d]
        if both:
            raise PositionError(f"{seat_name(p)}: given as an object and as {both[0]} too; write the seat in one form")
        for src, dst in (("hand", "Hand"), ("points", "Points"), ("faceCards", "FaceCards")):
            out = []
            for i, item in enumerate(list_field(player.get(src), f"{seat_name(p)}.{src}")):
                where = f"{seat_name(p)}.{src}[{i}]"
                if not isinstance(item, Mapping):
                    out.append(item)
                    continue
                text = card_text(item, where)
                if not isinstance(text, str):
                    raise PositionError(f"{where}.id: expected a card string, got {brief(text)}")
                att = list_field(item.get("attachments"), f"{where}.attachments")
                if att:
                    n = len(att)
                    names = []
                    for k, a in enumerate(att):
                        jack = card_text(a, f"{where}.attachments[{k}]")
                        if not isinstance(jack, str):
                            raise PositionError(f"{where}.attachments[{k}]: expected a jack, got {brief(jack)}")
                        # jacks alternate; the top one belongs to the controller
                        by = p if (n - 1 - k) % 2 == 0 else 1 - p
                        names.append(f"{jack}-{seat_name(by)}")
                    text += "(" + ",".join(names) + ")"
                frozen = item.get("isFrozen")
                if frozen not in (None, True, False):  # (1 is True and 0 False to Python: both mean what they say)
                    raise PositionError(f"{where}.isFrozen: expected true or false, got {brief(frozen)}")
                if frozen:  # beside any top-level ``frozen``: a list, one card or null
                    listed = d.get("frozen")
                    listed = [] if listed is None else listed if isinstance(listed, list) else [listed]
                    d["frozen"] = [*listed, card_text(item, where)]
                out.append(text)
            d[f"{seat_name(p)}{dst}"] = out
    for key in ("oneOff", "oneOffTarget", "resolving"):
        d[key] = card_text(d.get(key), key)
    for key in ("deck", "scrap", "twos"):
        if isinstance(d.get(key), list):
            d[key] = [card_text(x, key) for x in d[key]]
    return d

