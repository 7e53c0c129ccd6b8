"""Build small scenario positions: name the cards that matter, the rest fill the deck."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType
from typing import Any, Iterable

import numpy as np

from cuttle_search.engine import layout as L
from cuttle_search.engine.setup import largest_deck
from cuttle_search.game.cards import N_CARDS, card_str, parse_card
from cuttle_search.game.position import Position
from cuttle_search.game.rules import get_ruleset

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
    deck in id order (``rest="deck"``), or into the scrap (``rest="scrap"``). The deck never
    holds more than the deal leaves (``engine.setup.largest_deck``: a position with more
    could not happen): the last of the unnamed cards that do not fit go to the scrap."""
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
        room = _deck_room(data) - len(deck_top) - len(fields.get("revealed") or [])
        keep = max(0, min(len(remaining), room))
        data["deck"] = deck_top + remaining[:keep]
        filler = remaining[keep:]
        if filler:
            data["scrap"] = list(fields.get("scrap", [])) + filler
    else:
        data["deck"] = deck_top
        data["scrap"] = list(fields.get("scrap", [])) + remaining
    pos = Position.from_dict(data)
    pos.filler = frozenset(filler) if rest == "deck" else frozenset()  # type: ignore[attr-defined]
    return pos


def _deck_room(data: dict[str, Any]) -> int:
    """The most cards the deck of the position ``data`` describes may hold."""
    rs = get_ruleset(data["rules"], data.get("options"))
    s = np.zeros(L.STATE_SIZE, np.int64)
    s[L.F_ACTIONS] = data.get("actions") or 0
    return int(largest_deck(s, rs.array))


def after(pos: Position, *moves: str) -> dict[str, Any]:
    """Play ``moves`` (text, legality checked) and return the position file dict. Its
    ``scrap`` leaves out the cards ``build`` put there only to keep the deck reachable
    (``filler``), so a test names the cards its scenario moved."""
    for m in moves:
        pos.play(m)
    d = pos.to_dict()
    filler = getattr(pos, "filler", frozenset())
    d["scrap"] = [c for c in d["scrap"] if c not in filler]
    return d


def texts(pos: Position) -> set[str]:
    return {m.text() for m in pos.legal_moves()}


def load_benchmark(name: str) -> ModuleType:
    """The script ``benchmarks/<name>.py`` as a module (the benchmarks are not a package)."""
    path = Path(__file__).resolve().parent.parent / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
