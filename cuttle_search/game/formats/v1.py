"""The v1 position form: two seats, ``p0Hand`` .. ``p1FaceCards`` (``docs/position-format.md``),
read (a cuttle.cards GameState arrives here normalised) and written. The only place but the
display that spells two seats."""

from __future__ import annotations

import re
from typing import Any, Mapping

import numpy as np

from .. import cards as C
from ..cards import Card, card_str, cards_in
from ..errors import brief
from ...engine import layout as L
from ...engine import state as S
from ...engine.info import sees_hand
from ...engine.setup import BLANK_STATE, position_error
from ...engine.table import stack_owner
from ..position import Hidden, Position, PositionError
from ..rules import Ruleset
from ..seats import seat_name, seat_number
from .fields import (
    FORMAT_NAME, FORMAT_VERSION, SeenCards, check_view_deck_known, count_error, match_stack, card_list, default_actions,
    frozen_cards, impossible, int_field,
    parse_phase, read_about, read_card, read_deck, read_hand, read_pending, read_twos, set_phase,
)

_JACK_RE = re.compile(r"^\s*([^-\s]+)\s*-\s*p(\d)\s*$", re.IGNORECASE)



def _seat(value: Any, field: str) -> int:
    q = seat_number(value, 2)
    if q is not None:
        return q
    raise PositionError(f"{field}: expected 'p0' or 'p1', got {brief(value)}")



def v1_dict(pos: Position) -> dict[str, Any]:
    """The v1 file form of a two-seat position (hidden cards written ``??``)."""
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
    d["turn"] = S.get(s, "turn_count")
    d["phase"] = pos.phase_name
    for p in range(2):
        d[f"{seat_name(p)}Hand"] = _hand_strings(pos, p)
        d[f"{seat_name(p)}Points"] = [_stack_str(pos, c) for c in cards_in(S.seat_get(s, "points", p))]
        d[f"{seat_name(p)}FaceCards"] = [card_str(c) for c in cards_in(S.seat_get(s, "face", p))]
    d["deck"] = _deck_strings(pos, )
    d["scrap"] = [card_str(c) for c in cards_in(S.get(s, "scrap"))]
    pending = S.get(s, "oneoff") if S.get(s, "oneoff") >= 0 else S.get(s, "seven")  # a 7 waits as cuttle.cards' oneOff
    d["oneOff"] = card_str(pending) if pending >= 0 else None
    d["oneOffTarget"] = card_str(S.get(s, "oneoff_target")) if S.get(s, "oneoff_target") >= 0 else None
    d["twos"] = [card_str(c) for c in cards_in(S.get(s, "twos"))]
    if S.get(s, "revealed"):
        d["revealed"] = [card_str(c) for c in cards_in(S.get(s, "revealed"))]
    if S.get(s, "scuttle_card") >= 0:
        d["scuttle"] = {"cardId": card_str(S.get(s, "scuttle_card")), "targetId": card_str(S.get(s, "scuttle_target"))}
    d["frozen"] = [card_str(c) for c in cards_in(S.seat_get(s, "frozen", 0) | S.seat_get(s, "frozen", 1))]
    d["passes"] = S.get(s, "passes")
    d["actions"] = S.get(s, "actions")
    if pos.view is None:
        d["deckKnown"] = S.get(s, "deck_known")
    known = {}
    for p in range(2):
        pub = S.seat_get(s, "public", p)
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
    top_first = pos.deck_top_first()
    if pos.hidden is None:
        return [card_str(c) for c in top_first]
    known = S.get(s, "deck_known")
    return [card_str(c) if i < known else C.UNKNOWN for i, c in enumerate(top_first)]


def _stack_str(pos: Position, card: Card) -> str:
    s = pos.state
    jacks = sorted(
        (S.jack_get(s, "level", j), C.card_id(C.JACK, j), S.jack_get(s, "by", j)) for j in range(L.N_JACKS) if S.jack_get(s, "on", j) == card
    )
    if not jacks:
        return card_str(card)
    return card_str(card) + "(" + ",".join(f"{card_str(j)}-{seat_name(by)}" for _, j, by in jacks) + ")"



def build_v1_position(data: Mapping[str, Any], rs: Ruleset) -> Position:
    """A two-seat position from the v1 form (or a cuttle.cards GameState, normalised)
    under ruleset ``rs``."""
    r = rs.array
    # ---- view
    raw_view = data.get("view", "full")
    if raw_view in ("full", None):
        view = None
    else:
        view = _seat(raw_view, "view")

    seen = SeenCards()
    s = BLANK_STATE.copy()
    unknown_in_hand = {0: 0, 1: 0}

    # ---- hands
    for p in (0, 1):
        key = f"{seat_name(p)}Hand"
        unknown_in_hand[p] = read_hand(s, seen, card_list(data, key), p, view, key)

    # ---- face cards
    for p in (0, 1):
        key = f"{seat_name(p)}FaceCards"
        for i, item in enumerate(card_list(data, key)):
            where = f"{key}[{i}]"
            if item == C.UNKNOWN:
                raise PositionError(f"{where}: '??' on the table (cards on the table are always visible)")
            text = item.get("id") if isinstance(item, Mapping) else item
            if isinstance(text, str) and "(" in text:
                raise PositionError(f"{where}: {brief(text)}: jacks attach only to point cards (A-T), not to royals")
            c = read_card(item, where)
            if not (C.bit(c) & C.FACE_CARD_RANKS):
                raise PositionError(f"{where}: {card_str(c)} cannot be a royal (royals are Kings, Queens and glasses 8s)")
            seen.add(c, where)
            S.seat_add(s, "face", p, 1 << c)

    # ---- point cards with jack stacks
    for p in (0, 1):
        key = f"{seat_name(p)}Points"
        for i, item in enumerate(card_list(data, key)):
            where = f"{key}[{i}]"
            _add_point_stack(s, rs, seen, item, p, where)

    # ---- scrap, twos, revealed, scuttle, one-off
    for i, item in enumerate(card_list(data, "scrap")):
        where = f"scrap[{i}]"
        if item == C.UNKNOWN:
            raise PositionError(f"{where}: '??' in the scrap (the scrap is public)")
        c = read_card(item, where)
        seen.add(c, where)
        S.add(s, "scrap", 1 << c)

    phase = parse_phase(data.get("phase"))
    turn_count = int_field(data, "turn", 0)
    turn = turn_count % 2
    if "turnPlayer" in data:
        turn = _seat(data["turnPlayer"], "turnPlayer")
    S.put(s, "turn_count", turn_count)
    S.put(s, "turn", turn)

    twos = card_list(data, "twos")
    read_twos(s, seen, twos)
    one_off = data.get("oneOff")
    if one_off is None and phase == L.PH_THREE:
        one_off = data.get("resolving")
    read_pending(s, seen, one_off, phase, turn)
    target = data.get("oneOffTarget")
    if target is not None:
        if one_off is None:
            raise PositionError("oneOffTarget: set but there is no oneOff")
        S.put(s, "oneoff_target", read_card(target, "oneOffTarget"))

    revealed = card_list(data, "revealed")
    deck_items = list(card_list(data, "deck"))
    if phase == L.PH_SEVEN and not revealed:
        # cuttle.cards keeps a 7's revealed cards as the top of the deck
        n_rev = min(int(r[L.R_SEVEN_REVEAL]), len(deck_items))
        revealed, deck_items = deck_items[:n_rev], deck_items[n_rev:]
    for i, item in enumerate(revealed):
        where = f"revealed[{i}]"
        c = read_card(item, where)
        seen.add(c, where)
        S.add(s, "revealed", 1 << c)

    scuttle = data.get("scuttle")
    if scuttle is not None:
        if not isinstance(scuttle, Mapping):
            raise PositionError("scuttle: expected an object with cardId and targetId")
        c = read_card(scuttle.get("cardId"), "scuttle.cardId")
        seen.add(c, "scuttle.cardId")
        S.put(s, "scuttle_card", c)
        S.put(s, "scuttle_target", read_card(scuttle.get("targetId"), "scuttle.targetId"))

    # ---- deck: top first in the file; the engine keeps the top at the end
    deck_cards, deck_known = read_deck(deck_items, view, seen)
    if view is not None:
        check_view_deck_known(data, deck_known)
    if view is None:
        deck_known = int_field(data, "deckKnown", 0)
        if deck_known > len(deck_cards):
            raise PositionError(f"deckKnown: {deck_known} known cards but the deck holds {len(deck_cards)}")

    # ---- count every card
    unknown_total = unknown_in_hand[0] + unknown_in_hand[1] + sum(1 for x in deck_cards if x is None)
    total = len(seen.where) + unknown_total
    if total != C.N_CARDS:
        raise PositionError(count_error(total, list(range(C.N_CARDS)), seen, unknown_total, f"a deck has {C.N_CARDS}"))

    # canonical placement of unseen cards: hidden hand slots first, then the deck bottom
    unseen = [c for c in range(C.N_CARDS) if c not in seen.where]
    unknown_mask = C.mask_of(unseen)
    it = iter(unseen)
    for p in (0, 1):
        for _ in range(unknown_in_hand[p]):
            S.seat_add(s, "hand", p, 1 << next(it))
    filled = [x if x is not None else next(it) for x in deck_cards]
    S.set_deck(s, filled[::-1])
    S.put(s, "deck_known", deck_known)

    # ---- public hand cards, frozen card, counters
    known = data.get("known") or {}
    if not isinstance(known, Mapping):
        raise PositionError("known: expected an object like {\"p0\": [\"KH\"]}")
    for key, items in known.items():
        p = _seat(key, "known")
        if not isinstance(items, list):
            raise PositionError(f"known.{key}: expected a list of cards")
        for i, item in enumerate(items):
            c = read_card(item, f"known.{key}[{i}]")
            if not (S.seat_get(s, "hand", p) >> c) & 1 or (unknown_mask >> c) & 1:
                raise PositionError(f"known.{key}[{i}]: {card_str(c)} is not a named card in {seat_name(p)}Hand")
            S.seat_add(s, "public", p, 1 << c)
    if view is not None:
        o = 1 - view
        S.seat_add(s, "public", o, S.seat_get(s, "hand", o) & ~unknown_mask)

    for c, where in frozen_cards(data.get("frozen"), "frozen"):
        holders = [p for p in (0, 1) if (S.seat_get(s, "hand", p) >> c) & 1 and not (unknown_mask >> c) & 1]
        if not holders:
            raise PositionError(f"{where}: {card_str(c)} is not in a hand (a frozen card is a card a 9 returned to a hand)")
        S.seat_add(s, "frozen", holders[0], 1 << c)
        S.seat_add(s, "public", holders[0], 1 << c)  # a card a 9 returns is seen by every seat
    S.put(s, "passes", int_field(data, "passes", 0))
    S.put(s, "actions", int_field(data, "actions", 0))

    # ---- phase and decider
    set_phase(s, r, phase)
    default_actions(s, r, data)
    hidden = None
    if view is not None:
        for o, hidden_cards in unknown_in_hand.items():
            if hidden_cards and sees_hand(s, r, view, o):  # the engine says this hand is in plain sight
                why = "the deck is empty" if not deck_cards else f"{seat_name(view)} has glasses"
                raise PositionError(f"{seat_name(o)}Hand: {why}, so every card of {seat_name(o)}'s hand is visible; '??' is not allowed")
        hidden = Hidden(view, {p: n for p, n in unknown_in_hand.items() if n}, sum(1 for x in deck_cards if x is None))
    pos = Position(rs, s, view, hidden, unknown_mask, about=read_about(data))
    code, detail = (int(x) for x in position_error(s, r))
    if code:
        raise PositionError(impossible(pos, code, detail))
    return pos


def _add_point_stack(s: np.ndarray, rs: Ruleset, seen: SeenCards, item: Any, p: int, where: str) -> None:
    m = match_stack(item, where, "a card string like 'TH' or 'TH(JH-p0)'",
                    "a card or a jack stack like 'TH(JH-p0,JC-p1)'")
    c = read_card(m.group(1), where)
    if C.rank_of(c) > C.TEN:
        raise PositionError(f"{where}: {card_str(c)} cannot be a point card (point cards are A-T)")
    seen.add(c, where)
    jacks: list[tuple[Card, int]] = []
    if m.group(2) is not None:
        for part in m.group(2).split(","):
            jm = _JACK_RE.match(part)
            if not jm:
                raise PositionError(f"{where}: jack {brief(part.strip())} should look like 'JH-p0'")
            j = read_card(jm.group(1), where)
            if C.rank_of(j) != C.JACK:
                raise PositionError(f"{where}: {card_str(j)} is attached to {card_str(c)} but only jacks attach to point cards")
            by = int(jm.group(2))
            if by not in (0, 1):
                raise PositionError(f"{where}: jack {card_str(j)} played by {seat_name(by)}, but only p0 and p1 play")
            seen.add(j, where)
            jacks.append((j, by))
    for level, (j, by) in enumerate(jacks):
        idx = C.suit_of(j)  # (a Jack's slot is its suit's)
        S.jack_put(s, "on", idx, c)
        S.jack_put(s, "by", idx, by)
        S.jack_put(s, "to", idx, by)
        S.jack_put(s, "level", idx, level)
    # who owns (played) the card: the engine replays the stack (stack_owner)
    owner = int(stack_owner(s, rs.array, c, p))
    if owner == -1:
        j, by = jacks[-1]
        raise PositionError(f"{where}: the top jack {card_str(j)} is {seat_name(by)}'s, so the card belongs in {seat_name(by)}Points")
    if owner < 0:
        twice = next((b1 for (_, b1), (_, b2) in zip(jacks, jacks[1:]) if b1 == b2), None)
        who = f"{seat_name(twice)} played two jacks in a row on {card_str(c)}" if twice is not None else \
            f"a jack on {card_str(c)} sits on its own player's card"
        raise PositionError(f"{where}: {who} (a jack only goes on an opponent's card here)")
    S.seat_add(s, "points", p, 1 << c)
    S.seat_add(s, "owned", owner, 1 << c)

