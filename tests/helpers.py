"""Build small scenario positions: name the cards that matter, the rest fill the deck."""

from __future__ import annotations

import re
from typing import Any, Iterable

from cuttle_search.game.cards import N_CARDS, card_str, parse_card
from cuttle_search.game.position import Position

ZONES = ("p0Hand", "p1Hand", "p0Points", "p1Points", "p0FaceCards", "p1FaceCards", "scrap", "twos", "revealed")


def _named(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        for token in re.split(r"[(),\s]+", value):
            token = re.sub(r"-p\d$", "", token)
            if token:
                yield token
    elif isinstance(value, dict):
        for v in value.values():
            yield from _named(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _named(v)


def build(rules: str = "cuttle-cards", *, deck_top: Iterable[str] = (), rest: str = "deck", **fields: Any) -> Position:
    """A full-information position. Cards not named anywhere go below ``deck_top`` in the
    deck in id order (``rest="deck"``), or into the scrap (``rest="scrap"``)."""
    data: dict[str, Any] = {"rules": rules, "view": fields.pop("view", "full")}
    data.update(fields)
    named = set()
    for key in ZONES + ("oneOff", "oneOffTarget", "scuttle"):
        if key in fields and fields[key] is not None:
            for text in _named(fields[key]):
                if text != "??":
                    named.add(parse_card(text))
    deck_top = list(deck_top)
    named.update(parse_card(c) for c in deck_top)
    remaining = [card_str(c) for c in range(N_CARDS) if c not in named]
    if rest == "deck":
        data["deck"] = deck_top + remaining
    else:
        data["deck"] = deck_top
        data["scrap"] = list(fields.get("scrap", [])) + remaining
    return Position.from_dict(data)


def after(pos: Position, *moves: str) -> dict[str, Any]:
    """Play ``moves`` (text, legality checked) and return the position file dict."""
    for m in moves:
        pos.play(m)
    return pos.to_dict()


def texts(pos: Position) -> set[str]:
    return {m.text() for m in pos.legal_moves()}
