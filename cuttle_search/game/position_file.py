"""The position file formats: the v1 two-seat JSON form (``docs/position-format.md``) and
cuttle.cards' GameState, read and written. Reading validates everything a stranger's file
could get wrong and names the field; whether the position could happen is the engine's
question (``engine.setup.position_error`` and ``setup_pending``), asked here.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from . import cards as C
from .cards import Card, CardError, card_str, cards_in, parse_card
from .errors import brief
from ..engine import layout as L
from ..engine.info import sees_hand
from ..engine.setup import BLANK_STATE, position_error, POSITION_ERRORS, SETUP_ERRORS, SETUP_LIMITS, setup_pending
from ..engine.setup import dealt_deck, fewest_actions, frozen_capacity, opening_hand
from ..engine.table import hand_cap, stack_owner
from .position import PHASE_NAMES, PHASE_OF_NAME, Hidden, Position, PositionError, seat_name
from .rules import Ruleset, RulesError, get_ruleset

FORMAT_NAME = "cuttle-search/position"
FORMAT_VERSION = 1


CUTTLE_CARDS_PHASE = {
    L.PH_MAIN: 1,
    L.PH_COUNTER: 2,
    L.PH_THREE: 3,
    L.PH_FOUR: 4,
    L.PH_FIVE: 5,
    L.PH_HAND_LIMIT: 6,
    L.PH_SEVEN: 7,
}
PHASE_OF_CUTTLE_CARDS = {v: k for k, v in CUTTLE_CARDS_PHASE.items()}
_STACK_RE = re.compile(r"^\s*([^()\s]+)\s*(?:\((.*)\))?\s*$")
_JACK_RE = re.compile(r"^\s*([^-\s]+)\s*-\s*p(\d)\s*$", re.IGNORECASE)


def _seat(value: Any, field: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
        return value
    if isinstance(value, str) and value.lower() in ("p0", "p1"):
        return int(value[1])
    raise PositionError(f"{field}: expected 'p0' or 'p1', got {brief(value)}")


def position_to_dict(pos: Position) -> dict[str, Any]:
    """The position file form (hidden cards written ``??``): v1 for two seats, the
    seat-list form (``seat_file``) for more."""
    if pos.rules.seat_list_form:
        from .seat_file import seat_list_dict

        return seat_list_dict(pos)
    s = pos.state
    d: dict[str, Any] = {"about": pos.about} if pos.about else {}
    d.update({
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "rules": pos.rules.name,
    })
    if pos.rules.overrides:
        d["options"] = pos.rules.options()
    d["view"] = "full" if pos.view is None else seat_name(pos.view)
    d["turn"] = int(s[L.F_TURN_COUNT])
    d["phase"] = pos.phase_name
    for p in range(2):
        d[f"p{p}Hand"] = _hand_strings(pos, p)
        d[f"p{p}Points"] = [_stack_str(pos, c) for c in cards_in(int(s[L.F_POINTS + p]))]
        d[f"p{p}FaceCards"] = [card_str(c) for c in cards_in(int(s[L.F_FACE + p]))]
    d["deck"] = _deck_strings(pos, )
    d["scrap"] = [card_str(c) for c in cards_in(int(s[L.F_SCRAP]))]
    pending = int(s[L.F_ONEOFF]) if s[L.F_ONEOFF] >= 0 else int(s[L.F_SEVEN])  # a 7 waits as cuttle.cards' oneOff
    d["oneOff"] = card_str(pending) if pending >= 0 else None
    d["oneOffTarget"] = card_str(int(s[L.F_ONEOFF_TARGET])) if s[L.F_ONEOFF_TARGET] >= 0 else None
    d["twos"] = [card_str(c) for c in cards_in(int(s[L.F_TWOS]))]
    if s[L.F_REVEALED]:
        d["revealed"] = [card_str(c) for c in cards_in(int(s[L.F_REVEALED]))]
    if s[L.F_SCUTTLE_CARD] >= 0:
        d["scuttle"] = {"cardId": card_str(int(s[L.F_SCUTTLE_CARD])), "targetId": card_str(int(s[L.F_SCUTTLE_TARGET]))}
    d["frozen"] = [card_str(c) for c in cards_in(int(s[L.F_FROZEN]) | int(s[L.F_FROZEN + 1]))]
    d["passes"] = int(s[L.F_PASSES])
    d["actions"] = int(s[L.F_ACTIONS])
    if pos.view is None:
        d["deckKnown"] = int(s[L.F_DECK_KNOWN])
    known = {}
    for p in range(2):
        pub = int(s[L.F_PUBLIC + p])
        if pos.view is not None and p != pos.view:
            continue  # the viewer's named opponent cards are known by definition
        if pub:
            known[seat_name(p)] = [card_str(c) for c in cards_in(pub)]
    if known:
        d["known"] = known
    if pos.is_over:
        d.update(pos.result())
    return d


def _visible_in_hand(pos: Position, p: int) -> int:
    """Cards of seat p's hand that the file names."""
    hand = pos.hand(p)
    if pos.hidden is None or pos.hidden.hand_unknown.get(p, 0) == 0:
        return hand
    return hand & ~pos.unknown_cards


def _hand_strings(pos: Position, p: int) -> list[str]:
    named = _visible_in_hand(pos, p)
    unknown = C.cards_in(pos.hand(p) & ~named)
    return [card_str(c) for c in cards_in(named)] + [C.UNKNOWN for _ in unknown]


def _deck_strings(pos: Position) -> list[str]:
    s = pos.state
    n = int(s[L.F_DECK_N])
    top_first = [int(s[L.F_DECK + i]) for i in range(n - 1, -1, -1)]
    if pos.hidden is None:
        return [card_str(c) for c in top_first]
    known = int(s[L.F_DECK_KNOWN])
    return [card_str(c) if i < known else C.UNKNOWN for i, c in enumerate(top_first)]


def _stack_str(pos: Position, card: Card) -> str:
    s = pos.state
    jacks = sorted(
        (int(s[L.F_JACK_LEVEL + j]), 40 + j, int(s[L.F_JACK_BY + j])) for j in range(4) if s[L.F_JACK_ON + j] == card
    )
    if not jacks:
        return card_str(card)
    return card_str(card) + "(" + ",".join(f"{card_str(j)}-p{by}" for _, j, by in jacks) + ")"


def position_to_gamestate(pos: Position) -> dict[str, Any]:
    """A cuttle.cards GameState (row form) for a full-information position."""
    if pos.view is not None:
        raise PositionError("view: only a full-information position can be written as a cuttle.cards GameState")
    if pos.phase not in CUTTLE_CARDS_PHASE:
        raise PositionError(f"phase: {pos.phase_name!r} has no cuttle.cards GameState equivalent")
    d = pos.to_dict()
    s = pos.state
    out = {k: d[k] for k in ("p0Hand", "p0Points", "p0FaceCards", "p1Hand", "p1Points", "p1FaceCards", "scrap")}
    deck = d["deck"]
    if d.get("revealed"):
        deck = d["revealed"] + deck  # cuttle.cards keeps a 7's cards on top of the deck
    out.update(
        deck=deck,
        phase=CUTTLE_CARDS_PHASE[pos.phase],
        turn=int(s[L.F_TURN_COUNT]),
        oneOff=d["oneOff"],
        oneOffTarget=d["oneOffTarget"],
        twos=d["twos"],
    )
    return out


def dump_position_dict(d: Mapping[str, Any], compact: bool = False) -> str:
    """JSON text for a position dict: one field per line, values on the same line."""
    if compact:
        return json.dumps(d, separators=(",", ":"))
    return "{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in d.items()) + "\n}"


def load_position(source: str | Path | Mapping[str, Any], rules: str | Ruleset | None = None) -> Position:
    """A position from a file path, a JSON string or a dict."""
    if isinstance(source, Mapping):
        return Position.from_dict(source, rules=rules)
    if isinstance(source, str) and source.lstrip().startswith("{"):
        return Position.from_json(source, rules=rules)
    if not isinstance(source, (str, os.PathLike)):
        raise PositionError(f"position: expected a Position, a file path, JSON text or a dict, got {brief(source)}")
    return Position.load(source, rules=rules)


PositionSource = Position | str | Path | Mapping[str, Any]


def as_position(source: PositionSource) -> Position:
    """``source`` itself when it is a Position, else the position it names (``load_position``)."""
    return source if isinstance(source, Position) else load_position(source)


# ================================================================ building and validation
class _Cards:
    """Every named card of a position file, with where it was found, to catch duplicates."""

    def __init__(self, jokers: bool = False) -> None:
        self.where: dict[Card, str] = {}
        self.jokers = jokers

    def add(self, card: Card, where: str) -> None:
        if card in C.JOKERS and not self.jokers:
            raise PositionError(f"{where}: Jokers ({card_str(card)}) are not part of this ruleset")
        if card in self.where:
            raise PositionError(f"{where}: card {card_str(card)} appears twice (also in {self.where[card]})")
        self.where[card] = where


def _card(value: Any, where: str) -> Card:
    if isinstance(value, Mapping):  # cuttle.cards card object
        value = value.get("id")
    try:
        return parse_card(value)
    except CardError as e:
        raise PositionError(f"{where}: {e}") from None


def frozen_cards(value: Any, where: str) -> list[tuple[Card, str]]:
    """The cards of a ``frozen`` field, each with its place for messages: a list of cards
    (several 9s may have frozen cards of one seat), or the older single card, or null."""
    if value is None:
        return []
    if not isinstance(value, list):
        return [(_card(value, where), where)]
    out: list[tuple[Card, str]] = []
    for i, item in enumerate(_list_field(value, where)):
        c = _card(item, f"{where}[{i}]")
        if any(c == d for d, _ in out):
            raise PositionError(f"{where}[{i}]: {card_str(c)} is listed twice")
        out.append((c, f"{where}[{i}]"))
    return out


def _card_list(data: Mapping[str, Any], key: str, cards: int = C.N_CARDS) -> list[Any]:
    return _list_field(data.get(key, []), key, cards)


def _list_field(value: Any, where: str, cards: int = C.N_CARDS) -> list[Any]:
    """A list of cards (a zone, or a GameState's ``hand``, ``points``, ``attachments``...):
    at most ``cards`` entries, the cards of the ruleset's deck (``Ruleset.cards``: 54 with
    the Jokers, where one zone may hold every card)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise PositionError(f"{where}: expected a list of cards, got {type(value).__name__}")
    if len(value) > cards:
        raise PositionError(f"{where}: {len(value)} entries, but a deck has {cards} cards")
    return value


def _card_text(item: Any, where: str) -> Any:
    """The card string of a GameState card object (``{"id": "7H"}``), or the item itself."""
    if isinstance(item, Mapping):
        return item.get("id")
    return item


def _normalise_gamestate(data: Mapping[str, Any]) -> dict[str, Any]:
    """Accept cuttle.cards' unpacked GameState (``p0: {hand, points, faceCards}`` with card
    objects) by rewriting it into the row form with card strings."""
    d = dict(data)
    for p in (0, 1):
        player = d.get(f"p{p}")
        if player is None:
            continue
        if not isinstance(player, Mapping):
            raise PositionError(f"p{p}: expected an object with hand, points and faceCards, got {type(player).__name__}")
        for src, dst in (("hand", "Hand"), ("points", "Points"), ("faceCards", "FaceCards")):
            out = []
            for i, item in enumerate(_list_field(player.get(src), f"p{p}.{src}")):
                where = f"p{p}.{src}[{i}]"
                if not isinstance(item, Mapping):
                    out.append(item)
                    continue
                text = _card_text(item, where)
                if not isinstance(text, str):
                    raise PositionError(f"{where}.id: expected a card string, got {brief(text)}")
                att = _list_field(item.get("attachments"), f"{where}.attachments")
                if att:
                    n = len(att)
                    names = []
                    for k, a in enumerate(att):
                        jack = _card_text(a, f"{where}.attachments[{k}]")
                        if not isinstance(jack, str):
                            raise PositionError(f"{where}.attachments[{k}]: expected a jack, got {brief(jack)}")
                        # jacks alternate; the top one belongs to the controller
                        by = p if (n - 1 - k) % 2 == 0 else 1 - p
                        names.append(f"{jack}-p{by}")
                    text += "(" + ",".join(names) + ")"
                if item.get("isFrozen"):
                    d.setdefault("frozen", []).append(_card_text(item, where))
                out.append(text)
            d[f"p{p}{dst}"] = out
    for key in ("oneOff", "oneOffTarget", "resolving"):
        d[key] = _card_text(d.get(key), key)
    for key in ("deck", "scrap", "twos"):
        if isinstance(d.get(key), list):
            d[key] = [_card_text(x, key) for x in d[key]]
    return d


def read_twos(s: np.ndarray, seen: _Cards, twos: list[Any]) -> None:
    """The counter 2s of a pending chain (field ``twos``)."""
    for i, item in enumerate(twos):
        where = f"twos[{i}]"
        c = _card(item, where)
        if c >> 2 != C.TWO:
            raise PositionError(f"{where}: {card_str(c)} is not a 2 (only 2s counter)")
        seen.add(c, where)
        s[L.F_TWOS] |= 1 << c
    s[L.F_NTWOS] = len(twos)


def read_pending(s: np.ndarray, seen: _Cards, one_off: Any, phase: int, turn: int) -> None:
    """The pending one-off of seat ``turn`` (field ``oneOff``), or the 7 whose revealed
    cards wait for the pick (kept out of the scrap until then)."""
    if one_off is None:
        return
    c = _card(one_off, "oneOff")
    seen.add(c, "oneOff")
    if phase == L.PH_SEVEN:
        s[L.F_SEVEN] = c
    else:
        s[L.F_ONEOFF] = c
        s[L.F_ONEOFF_PLAYER] = turn


def read_deck(items: list[Any], view: int | None, seen: _Cards) -> tuple[list[Card | None], int]:
    """The deck, top first (None for a hidden card), and how many of its top cards a view
    names; a named card below a hidden one is refused."""
    deck: list[Card | None] = []
    known = 0
    for i, item in enumerate(items):
        where = f"deck[{i}]"
        if item == C.UNKNOWN:
            if view is None:
                raise PositionError(f"{where}: '??' (a hidden card) in a full-information position")
            deck.append(None)
            continue
        c = _card(item, where)
        seen.add(c, where)
        if view is not None:
            if any(x is None for x in deck):
                raise PositionError(f"{where}: a named deck card below a hidden one (only the top of the deck can be known)")
            known += 1
        deck.append(c)
    return deck, known


def _parse_phase(value: Any) -> int:
    if value is None:
        return L.PH_MAIN
    if isinstance(value, bool):
        raise PositionError(f"phase: unknown phase {brief(value)}")
    if isinstance(value, int):
        if value in PHASE_OF_CUTTLE_CARDS:
            return PHASE_OF_CUTTLE_CARDS[value]
        raise PositionError(f"phase: unknown cuttle.cards phase number {brief(value)} (known: 1-7)")
    if isinstance(value, str) and value.strip().lower() in PHASE_OF_NAME:
        return PHASE_OF_NAME[value.strip().lower()]
    raise PositionError(f"phase: unknown phase {brief(value)} (known: {', '.join(PHASE_NAMES.values())})")


MAX_COUNT = 1_000_000  # far above any turn, action or pass count a game can reach


def _int_field(data: Mapping[str, Any], key: str, default: int, low: int = 0, high: int = MAX_COUNT) -> int:
    v = data.get(key, default)
    if v is None:
        return default
    if not isinstance(v, int) or isinstance(v, bool) or not low <= v <= high:
        raise PositionError(f"{key}: expected a whole number from {low} to {high:,}, got {brief(v)}")
    return v


def build_position(data: Any, rules_override: str | Ruleset | None) -> Position:
    if not isinstance(data, Mapping):
        raise PositionError("the position must be a JSON object")
    data = _normalise_gamestate(data)
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
            options = data.get("options") or {}
            if not isinstance(options, Mapping):
                raise PositionError("options: expected an object of rule options")
            rs = get_ruleset(rules_override or data.get("rules") or "cuttle-cards", options)
    except RulesError as e:
        raise PositionError(f"rules: {e}") from None
    r = rs.array
    if seat_list:
        from .seat_file import build_seat_position

        return build_seat_position(data, rs)
    if rs.seat_list_form:
        raise PositionError(f"seats: {rs.name} has {rs.players} seats; write the position in the seat-list form "
                            "(version 2, a 'seats' list)")

    # ---- view
    raw_view = data.get("view", "full")
    if raw_view in ("full", None):
        view = None
    else:
        view = _seat(raw_view, "view")

    seen = _Cards()
    s = BLANK_STATE.copy()
    unknown_in_hand = {0: 0, 1: 0}

    # ---- hands
    for p in (0, 1):
        key = f"p{p}Hand"
        for i, item in enumerate(_card_list(data, key)):
            where = f"{key}[{i}]"
            if item == C.UNKNOWN:
                if view is None:
                    raise PositionError(f"{where}: '??' (a hidden card) in a full-information position")
                if p == view:
                    raise PositionError(f"{where}: '??' in the viewer's own hand")
                unknown_in_hand[p] += 1
                continue
            c = _card(item, where)
            seen.add(c, where)
            s[L.F_HAND + p] |= 1 << c

    # ---- face cards
    for p in (0, 1):
        key = f"p{p}FaceCards"
        for i, item in enumerate(_card_list(data, key)):
            where = f"{key}[{i}]"
            if item == C.UNKNOWN:
                raise PositionError(f"{where}: '??' on the table (cards on the table are always visible)")
            text = item.get("id") if isinstance(item, Mapping) else item
            if isinstance(text, str) and "(" in text:
                raise PositionError(f"{where}: {brief(text)}: jacks attach only to point cards (A-T), not to royals")
            c = _card(item, where)
            if not (C.bit(c) & C.FACE_CARD_RANKS):
                raise PositionError(f"{where}: {card_str(c)} cannot be a royal (royals are Kings, Queens and glasses 8s)")
            seen.add(c, where)
            s[L.F_FACE + p] |= 1 << c

    # ---- point cards with jack stacks
    for p in (0, 1):
        key = f"p{p}Points"
        for i, item in enumerate(_card_list(data, key)):
            where = f"{key}[{i}]"
            _add_point_stack(s, rs, seen, item, p, where)

    # ---- scrap, twos, revealed, scuttle, one-off
    for i, item in enumerate(_card_list(data, "scrap")):
        where = f"scrap[{i}]"
        if item == C.UNKNOWN:
            raise PositionError(f"{where}: '??' in the scrap (the scrap is public)")
        c = _card(item, where)
        seen.add(c, where)
        s[L.F_SCRAP] |= 1 << c

    phase = _parse_phase(data.get("phase"))
    turn_count = _int_field(data, "turn", 0)
    turn = turn_count % 2
    if "turnPlayer" in data:
        turn = _seat(data["turnPlayer"], "turnPlayer")
    s[L.F_TURN_COUNT] = turn_count
    s[L.F_TURN] = turn

    twos = _card_list(data, "twos")
    read_twos(s, seen, twos)
    one_off = data.get("oneOff")
    if one_off is None and phase == L.PH_THREE:
        one_off = data.get("resolving")
    read_pending(s, seen, one_off, phase, turn)
    target = data.get("oneOffTarget")
    if target is not None:
        if one_off is None:
            raise PositionError("oneOffTarget: set but there is no oneOff")
        s[L.F_ONEOFF_TARGET] = _card(target, "oneOffTarget")

    revealed = _card_list(data, "revealed")
    deck_items = list(_card_list(data, "deck"))
    if phase == L.PH_SEVEN and not revealed:
        # cuttle.cards keeps a 7's revealed cards as the top of the deck
        n_rev = min(int(r[L.R_SEVEN_REVEAL]), len(deck_items))
        revealed, deck_items = deck_items[:n_rev], deck_items[n_rev:]
    for i, item in enumerate(revealed):
        where = f"revealed[{i}]"
        c = _card(item, where)
        seen.add(c, where)
        s[L.F_REVEALED] |= 1 << c

    scuttle = data.get("scuttle")
    if scuttle is not None:
        if not isinstance(scuttle, Mapping):
            raise PositionError("scuttle: expected an object with cardId and targetId")
        c = _card(scuttle.get("cardId"), "scuttle.cardId")
        seen.add(c, "scuttle.cardId")
        s[L.F_SCUTTLE_CARD] = c
        s[L.F_SCUTTLE_TARGET] = _card(scuttle.get("targetId"), "scuttle.targetId")

    # ---- deck: top first in the file; the engine keeps the top at the end
    deck_cards, deck_known = read_deck(deck_items, view, seen)
    if view is None:
        deck_known = _int_field(data, "deckKnown", 0)
        if deck_known > len(deck_cards):
            raise PositionError(f"deckKnown: {deck_known} known cards but the deck holds {len(deck_cards)}")

    # ---- count every card
    unknown_total = unknown_in_hand[0] + unknown_in_hand[1] + sum(1 for x in deck_cards if x is None)
    total = len(seen.where) + unknown_total
    if total != C.N_CARDS:
        raise PositionError(f"the position holds {total} cards; a deck has {C.N_CARDS}")

    # canonical placement of unseen cards: hidden hand slots first, then the deck bottom
    unseen = [c for c in range(C.N_CARDS) if c not in seen.where]
    unknown_mask = C.mask_of(unseen)
    it = iter(unseen)
    for p in (0, 1):
        for _ in range(unknown_in_hand[p]):
            s[L.F_HAND + p] |= 1 << next(it)
    filled = [x if x is not None else next(it) for x in deck_cards]
    s[L.F_DECK_N] = len(filled)
    for i, c in enumerate(reversed(filled)):
        s[L.F_DECK + i] = c
    s[L.F_DECK_KNOWN] = deck_known

    # ---- public hand cards, frozen card, counters
    known = data.get("known") or {}
    if not isinstance(known, Mapping):
        raise PositionError("known: expected an object like {\"p0\": [\"KH\"]}")
    for key, items in known.items():
        p = _seat(key, "known")
        if not isinstance(items, list):
            raise PositionError(f"known.{key}: expected a list of cards")
        for i, item in enumerate(items):
            c = _card(item, f"known.{key}[{i}]")
            if not (s[L.F_HAND + p] >> c) & 1 or (unknown_mask >> c) & 1:
                raise PositionError(f"known.{key}[{i}]: {card_str(c)} is not a named card in p{p}Hand")
            s[L.F_PUBLIC + p] |= 1 << c
    if view is not None:
        o = 1 - view
        s[L.F_PUBLIC + o] |= int(s[L.F_HAND + o]) & ~unknown_mask

    for c, where in frozen_cards(data.get("frozen"), "frozen"):
        holders = [p for p in (0, 1) if (s[L.F_HAND + p] >> c) & 1 and not (unknown_mask >> c) & 1]
        if not holders:
            raise PositionError(f"{where}: {card_str(c)} is not in a hand (a frozen card is a card a 9 returned to a hand)")
        s[L.F_FROZEN + holders[0]] |= 1 << c
        s[L.F_PUBLIC + holders[0]] |= 1 << c  # a card a 9 returns is seen by every seat
    s[L.F_PASSES] = _int_field(data, "passes", 0)
    s[L.F_ACTIONS] = _int_field(data, "actions", 0)

    # ---- phase and decider
    _set_phase(s, r, phase)
    default_actions(s, r, data)
    hidden = None
    if view is not None:
        for o, hidden_cards in unknown_in_hand.items():
            if hidden_cards and sees_hand(s, r, view, o):  # the engine says this hand is in plain sight
                why = "the deck is empty" if not deck_cards else f"p{view} has glasses"
                raise PositionError(f"p{o}Hand: {why}, so every card of p{o}'s hand is visible; '??' is not allowed")
        hidden = Hidden(view, {p: n for p, n in unknown_in_hand.items() if n}, sum(1 for x in deck_cards if x is None))
    about = data.get("about") or ""
    if not isinstance(about, str):
        raise PositionError("about: expected a text description")
    pos = Position(rs, s, view, hidden, unknown_mask, about=about)
    code, detail = (int(x) for x in position_error(s, r))
    if code:
        raise PositionError(_impossible(pos, code, detail))
    return pos


def default_actions(s: np.ndarray, r: np.ndarray, data: Mapping[str, Any]) -> None:
    """A file without ``actions`` (a cuttle.cards GameState has none) gets the fewest that
    reach its position (``engine.setup.fewest_actions``), not 0: 0 is only the deal."""
    if data.get("actions") is None:
        s[L.F_ACTIONS] = fewest_actions(s, r)


def _hand_field(pos: Position, q: int) -> str:
    return f"seats[{q}].hand" if pos.rules.seat_list_form else f"p{q}Hand"


def _impossible(pos: Position, code: int, detail: int) -> str:
    """The message for an engine ``position_error`` code, naming the field at fault."""
    s, r = pos.state, pos.rules_array
    why = POSITION_ERRORS[code]
    if code == 9:
        return (f"p{detail}Points: p{detail} has {pos.points(detail)} points against a goal of "
                f"{pos.goal(detail)}; the game would already be over")
    if code == 10:
        cap = int(hand_cap(s, r, detail))
        return (f"p{detail}Hand: {bin(pos.hand(detail)).count('1')} cards, but no hand can hold more than {cap} "
                f"at this point under {pos.rules.spec} (hand limit: {pos.rules.hand_limit})")
    if code == 11:
        return f"actions: {int(s[L.F_ACTIONS])} actions reach the limit of {int(r[L.R_ACTION_LIMIT])}; the game would be over"
    if code == 12:
        return f"passes: {int(s[L.F_PASSES])} passes already end the game in a stalemate"
    if code in (13, 18):
        return f"{'passes' if code == 13 else 'revealed'}: {why}"
    if code in (14, 15, 21, 22):
        return _frozen_problem(pos, code, detail, why)
    if code == 16:
        target = int(s[L.F_ONEOFF_TARGET])
        aimed = f"p{target - L.TARGET_SEAT}" if target >= L.TARGET_SEAT else card_str(target) if target >= 0 else ""
        played = card_str(detail) + (f" on {aimed}" if aimed else " with no target")
        return f"oneOff: {played}: {why}"
    if code == 17:
        return f"scuttle: {card_str(detail)} on {card_str(int(s[L.F_SCUTTLE_TARGET]))}: {why}"
    if code == 70:
        return (f"actions: {int(s[L.F_ACTIONS])} actions cannot reach turn {int(s[L.F_TURN_COUNT])} in phase "
                f"'{pos.phase_name}' (it takes at least {detail}: one a turn, one for the turn's action, one a counter)")
    if code == 71:
        return "actions: 0 actions, but cards have left the hands and the deck (or are known): that is not the deal"
    if code == 72:
        return (f"{_hand_field(pos, detail)}: {bin(pos.hand(detail)).count('1')} cards before any action, but the deal "
                f"gives p{detail} {int(opening_hand(s, r, detail))}")
    if code == 73:
        rev = bin(int(s[L.F_REVEALED])).count("1")
        held = f"{int(s[L.F_DECK_N])} cards" + (f" and {rev} revealed" if rev else "")
        return (f"deck: {held}, but at most {detail} can be there after {int(s[L.F_ACTIONS])} actions "
                f"(the deal leaves {int(dealt_deck(r))}; the deck only shrinks"
                + (", but for a 9 sending a card to its top" if pos.rules.nine == "deck-top" else "")
                + (", until a reshuffle refills it" if pos.rules.reshuffle else "") + ")")
    if code in (74, 75):
        return f"deckSeenBy: {why}"
    if code == 76:
        return f"removed: {why}, so it holds at least one of each"
    return f"the position is inconsistent: {why}"


def _frozen_problem(pos: Position, code: int, detail: int, why: str) -> str:
    """The message for a frozen card the engine refuses (``detail``: the card, or for code 22
    the seat), naming the field: ``frozen`` (two seats) or ``seats[i].frozen``."""
    s, r = pos.state, pos.rules_array
    n = int(s[L.F_NPLAYERS])
    if code == 22:
        q = detail
    else:
        q = next((p for p in range(n) if (int(s[L.F_FROZEN + p]) >> detail) & 1), 0)
    field = f"seats[{q}].frozen" if pos.rules.seat_list_form else "frozen"
    if code != 22:
        return f"{field}: {card_str(detail)}: {why}"
    held = [card_str(c) for c in cards_in(int(s[L.F_FROZEN + q]))]
    cap = int(frozen_capacity(s, r, q))
    can = "none" if cap == 0 else f"at most {cap}"
    return (f"{field}: p{q} holds {len(held)} frozen card{'s' * (len(held) != 1)} ({' '.join(held)}) in phase "
            f"'{pos.phase_name}' of p{int(s[L.F_TURN])}'s turn (turn {int(s[L.F_TURN_COUNT])}), where it can hold "
            f"{can}: a card a 9 froze thaws {_thaw_rule(pos)}, and a turn freezes one card at most")


def _thaw_rule(pos: Position) -> str:
    if pos.rules.freeze_until_turn_ends:
        return "when its holder's own turn ends"
    return "once its holder has made its next decision"


def _add_point_stack(s: np.ndarray, rs: Ruleset, seen: _Cards, item: Any, p: int, where: str) -> None:
    if isinstance(item, Mapping):
        item = item.get("id")
    if not isinstance(item, str):
        raise PositionError(f"{where}: expected a card string like 'TH' or 'TH(JH-p0)', got {brief(item)}")
    if item.strip() == C.UNKNOWN:
        raise PositionError(f"{where}: '??' on the table (cards on the table are always visible)")
    m = _STACK_RE.match(item)
    if not m:
        raise PositionError(f"{where}: {brief(item)} is not a card or a jack stack like 'TH(JH-p0,JC-p1)'")
    c = _card(m.group(1), where)
    if c >> 2 > C.TEN:
        raise PositionError(f"{where}: {card_str(c)} cannot be a point card (point cards are A-T)")
    seen.add(c, where)
    jacks: list[tuple[Card, int]] = []
    if m.group(2) is not None:
        for part in m.group(2).split(","):
            jm = _JACK_RE.match(part)
            if not jm:
                raise PositionError(f"{where}: jack {brief(part.strip())} should look like 'JH-p0'")
            j = _card(jm.group(1), where)
            if j >> 2 != C.JACK:
                raise PositionError(f"{where}: {card_str(j)} is attached to {card_str(c)} but only jacks attach to point cards")
            by = int(jm.group(2))
            if by not in (0, 1):
                raise PositionError(f"{where}: jack {card_str(j)} played by p{by}, but only p0 and p1 play")
            seen.add(j, where)
            jacks.append((j, by))
    for level, (j, by) in enumerate(jacks):
        idx = j - 40
        s[L.F_JACK_ON + idx] = c
        s[L.F_JACK_BY + idx] = by
        s[L.F_JACK_TO + idx] = by
        s[L.F_JACK_LEVEL + idx] = level
    # who owns (played) the card: the engine replays the stack (stack_owner)
    owner = int(stack_owner(s, rs.array, c, p))
    if owner == -1:
        j, by = jacks[-1]
        raise PositionError(f"{where}: the top jack {card_str(j)} is p{by}'s, so the card belongs in p{by}Points")
    if owner < 0:
        twice = next((b1 for (_, b1), (_, b2) in zip(jacks, jacks[1:]) if b1 == b2), None)
        who = f"p{twice} played two jacks in a row on {card_str(c)}" if twice is not None else \
            f"a jack on {card_str(c)} sits on its own player's card"
        raise PositionError(f"{where}: {who} (a jack only goes on an opponent's card here)")
    s[L.F_POINTS + p] |= 1 << c
    s[L.F_OWNED + owner] |= 1 << c


def _set_phase(s: np.ndarray, r: np.ndarray, phase: int) -> None:
    """Set the phase and what it implies (the deciding seat, the chain's top, the discard
    count), as the engine derives it (``setup_pending``); refuse fields that contradict it."""
    s[L.F_PHASE] = phase
    code, seat = (int(x) for x in setup_pending(s, r))
    if code:
        limit = int(r[SETUP_LIMITS[code]]) if code in SETUP_LIMITS else 0
        raise PositionError(SETUP_ERRORS[code].format(phase=PHASE_NAMES[phase], seat=seat_name(seat), limit=limit))


# ================================================================ the keys a position may hold
POSITION_KEYS = frozenset({
    "about", "actions", "asked", "chainTop", "dealer", "deck", "deckKnown", "deckSeenBy", "format", "frozen",
    "known", "name", "oneOff", "oneOffBy", "oneOffTarget", "options", "passes", "phase", "removed", "resolving",
    "response", "revealed", "rules", "scrap", "scuttle", "seats", "turn", "turnPlayer", "twos", "version", "victim",
    "view",
    # a cuttle.cards GameStateRow's record of the move that made it (read by game logs, not here)
    "id", "gameId", "playedBy", "moveType", "playedCard", "targetCard", "discardedCards", "createdAt", "updatedAt",
})
_SEAT_KEY = re.compile(r"^p\d(Hand|Points|FaceCards)?$")


def is_position_key(key: str) -> bool:
    """Whether a top-level key is one a position form reads (the v1 form, the seat-list form
    or a cuttle.cards GameState's seat objects); used to name a request's unknown fields."""
    return key in POSITION_KEYS or bool(_SEAT_KEY.match(key))
