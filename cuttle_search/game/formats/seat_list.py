"""The seat-list position form (format version 2): one entry per seat, for games of any
number of seats (docs/position-format.md). Two-seat files keep the v1 form
(``v1.py``); a version-2 file names its seats in a list::

    {"format": "cuttle-search/position", "version": 2, "rules": "cutthroat",
     "view": "p0", "dealer": "p2", "turn": 4, "phase": "main",
     "seats": [{"hand": ["7H", "??"], "points": ["9C(JH-p1,X1-p2)"], "royals": ["KS(X2-p1)"],
                "frozen": [], "known": []}, ...],
     "deck": ["??", ...], "deckSeenBy": null, "scrap": [...], "passes": 0, "actions": 17}

Stacks are listed under the seat that played their base card (its owner), attachments from
the bottom up, each Jack or Joker with the seat that played it; a Joker sits on the Jack
listed just before it, or on the royal itself. Who controls each stack follows from the
rules (the engine replays the attachments). A pending counter chain gives ``oneOff``,
``oneOffTarget`` (a card, or a seat for a 4), ``twos``, ``chainTop`` (the seat whose card
tops the chain) and ``asked`` (the seat deciding now); a 4 waiting for its discards gives
``victim``. Reading validates like the v1 reader and names the field; the engine decides
whether the position can happen.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

import numpy as np

from .. import cards as C
from ..cards import Card, card_str, cards_in
from ..errors import brief
from ..position import Hidden, Position, PositionError
from ..rules import Ruleset
from ..seats import parse_seat, seat_name
from ...engine import layout as L
from ...engine import state as S
from ...engine.apply import attach
from ...engine.info import sees_hand, visible_in_hand
from ...engine.seats import seat_count
from ...engine.setup import BLANK_STATE, clear_state, deck_cards, position_error
from .fields import (
    FORMAT_NAME, SeenCards, check_view_deck_known, count_error, match_stack, card_list, default_actions, frozen_cards,
    impossible, int_field, list_field, check_keys, SEAT_ENTRY_KEYS,
    parse_phase, read_about, read_card, read_deck, read_hand, read_pending, read_twos, set_phase,
)

SEAT_LIST_VERSION = 2
_ATTACHED_RE = re.compile(r"^\s*([^-\s]+)\s*-\s*p(\d)\s*(?:>\s*p(\d)\s*)?$", re.IGNORECASE)


# the fields that name a seat only in some phases: those phases, and what that seat is there
PHASE_FIELDS = {"chainTop": ((L.PH_COUNTER,), "on top of a counter chain"),
                "asked": ((L.PH_COUNTER, L.PH_RESPONSE), "asked to counter or answer"),
                "victim": ((L.PH_FOUR, L.PH_FOUR_RANDOM), "discarding to a 4")}


def seat_of(value: Any, field: str, seats: int) -> int:
    """``p0`` .. ``p(seats-1)`` (or the number) as a seat; else a PositionError naming ``field``."""
    return parse_seat(value, field, seats, PositionError)


# ---------------------------------------------------------------- writing
def _attachments_text(s: np.ndarray, base: Card, royal: bool) -> list[str]:
    """The Jacks (point cards) or Jokers (royals) on ``base``, bottom up, with the Jokers on
    each Jack right after it."""
    out = []
    if not royal:
        jacks = sorted((S.jack_get(s, "level", j), C.card_id(C.JACK, j)) for j in range(L.N_JACKS) if S.jack_get(s, "on", j) == base)
        for _, jack in jacks:
            slot = C.suit_of(jack)  # (a Jack's slot is its suit's)
            out.append(card_str(jack) + _played_by(S.jack_get(s, "by", slot), S.jack_get(s, "to", slot)))
            out += _jokers_text(s, jack)
    else:
        out += _jokers_text(s, base)
    return out


def _jokers_text(s: np.ndarray, card: Card) -> list[str]:
    jokers = sorted((S.joker_get(s, "level", k), k) for k in range(L.N_JOKERS) if S.joker_get(s, "on", k) == card)
    return [card_str(L.JOKER_1 + k) + _played_by(S.joker_get(s, "by", k), S.joker_get(s, "to", k)) for _, k in jokers]


def _played_by(by: int, to: int) -> str:
    """``-p1`` (played by p1, who controls the stack), or ``-p1>p2`` (given to p2)."""
    return f"-{seat_name(by)}" if to == by else f"-{seat_name(by)}>{seat_name(to)}"


def _stack_text(s: np.ndarray, base: Card, royal: bool) -> str:
    att = _attachments_text(s, base, royal)
    return card_str(base) + (f"({','.join(att)})" if att else "")


def royal_owner(s: np.ndarray, card: Card) -> int:
    """Who played royal ``card``: the seat its bottom Joker took it from, else its controller."""
    bottom = [k for k in range(L.N_JOKERS) if S.joker_get(s, "on", k) == card and S.joker_get(s, "level", k) == 0]
    if bottom:
        return S.joker_get(s, "from", bottom[0])
    return next(q for q in range(int(seat_count(s))) if (S.seat_get(s, "face", q) >> card) & 1)


def taken_stacks(pos: Position, p: int) -> list[tuple[str, int]]:
    """The stacks seat ``p`` controls that the seat-list form lists under another seat, the
    one that played their base card: ``(base card, that seat)``, point cards then royals.
    Empty for a position of the two-seat form, which lists each stack under its controller."""
    if not pos.rules.seat_list_form:
        return []
    s = pos.state
    q = pos.seat(p)
    out = []
    for c in cards_in(S.seat_get(s, "points", q) & ~S.seat_get(s, "owned", q)):
        owner = next(o for o in range(pos.players) if (S.seat_get(s, "owned", o) >> c) & 1)
        out.append((card_str(c), owner))
    for c in cards_in(S.seat_get(s, "face", q)):
        owner = royal_owner(s, c)
        if owner != q:
            out.append((card_str(c), owner))
    return out


def seat_list_dict(pos: Position) -> dict[str, Any]:
    """The seat-list file form of ``pos`` (hidden cards written ``??``)."""
    s, r = pos.state, pos.rules_array
    n = pos.players
    d: dict[str, Any] = {"about": pos.about} if pos.about else {}
    d.update({"format": FORMAT_NAME, "version": SEAT_LIST_VERSION, "rules": pos.rules.name})
    if pos.rules.overrides:
        d["options"] = pos.rules.options()
    d["view"] = "full" if pos.view is None else seat_name(pos.view)
    d["dealer"] = seat_name(S.get(s, "dealer"))
    d["turn"] = S.get(s, "turn_count")
    d["phase"] = pos.phase_name
    royals = [0] * n
    for q in range(n):
        for c in cards_in(S.seat_get(s, "face", q)):
            royals[royal_owner(s, c)] |= 1 << c
    seats = []
    for q in range(n):
        hand = S.seat_get(s, "hand", q)
        shown = hand if pos.view is None or q == pos.view else int(visible_in_hand(s, r, pos.view, q))
        if pos.hidden is not None and pos.hidden.hand_unknown.get(q, 0):
            shown &= ~pos.unknown_cards
        seat: dict[str, Any] = {
            "hand": [card_str(c) for c in cards_in(shown)] + [C.UNKNOWN] * bin(hand & ~shown).count("1"),
            "points": [_stack_text(s, c, False) for c in cards_in(S.seat_get(s, "owned", q))],
            "royals": [_stack_text(s, c, True) for c in cards_in(royals[q])],
            "frozen": [card_str(c) for c in cards_in(S.seat_get(s, "frozen", q))],
        }
        public = S.seat_get(s, "public", q)
        if public and (pos.view is None or q == pos.view):
            seat["known"] = [card_str(c) for c in cards_in(public)]
        if S.seat_get(s, "spent", q):
            seat["counters"] = [card_str(c) for c in cards_in(S.seat_get(s, "spent", q))]
        seats.append(seat)
    d["seats"] = seats
    top_first = pos.deck_top_first()
    known = S.get(s, "deck_known")
    seen_by = S.get(s, "top_seen_by")
    if pos.view is not None and seen_by == pos.view:
        known = max(known, 1)
    if pos.hidden is None:
        d["deck"] = [card_str(c) for c in top_first]
    else:
        d["deck"] = [card_str(c) if i < known else C.UNKNOWN for i, c in enumerate(top_first)]
    if pos.view is None:
        d["deckKnown"] = S.get(s, "deck_known")
    d["deckSeenBy"] = seat_name(seen_by) if seen_by >= 0 and (pos.view is None or seen_by == pos.view) else None
    d["scrap"] = [card_str(c) for c in cards_in(S.get(s, "scrap"))]
    if S.get(s, "removed"):
        d["removed"] = [card_str(c) for c in cards_in(S.get(s, "removed"))]
    pending = S.get(s, "oneoff") if S.get(s, "oneoff") >= 0 else S.get(s, "seven")
    d["oneOff"] = card_str(pending) if pending >= 0 else None
    t = S.get(s, "oneoff_target")
    d["oneOffTarget"] = None if t < 0 else (seat_name(t - L.TARGET_SEAT) if t >= L.TARGET_SEAT else card_str(t))
    if S.get(s, "oneoff") >= 0 and S.get(s, "oneoff_player") != S.get(s, "turn"):
        d["oneOffBy"] = seat_name(S.get(s, "oneoff_player"))
    twos = cards_in(S.get(s, "twos"))
    if pos.rules.counter_costs_turn:
        d["twos"] = [f"{card_str(c)}-{seat_name(S.two_by(s, c & 3))}" for c in twos]
    else:
        d["twos"] = [card_str(c) for c in twos]
    if S.get(s, "response") >= 0:
        d["response"] = card_str(S.get(s, "response"))
    if pos.phase in (L.PH_COUNTER, L.PH_RESPONSE):
        if pos.phase == L.PH_COUNTER:
            d["chainTop"] = seat_name(S.get(s, "chain_top"))
        d["asked"] = seat_name(S.get(s, "actor"))
    if pos.phase in (L.PH_FOUR, L.PH_FOUR_RANDOM):
        d["victim"] = seat_name(S.get(s, "victim"))
    if S.get(s, "revealed"):
        hidden_rev = pos.hidden.revealed_unknown if pos.hidden is not None else 0
        shown_rev = [card_str(c) for c in cards_in(S.get(s, "revealed"))] if not hidden_rev else []
        d["revealed"] = shown_rev + [C.UNKNOWN] * hidden_rev
    d["passes"] = S.get(s, "passes")
    d["actions"] = S.get(s, "actions")
    if pos.is_over:
        d.update(pos.result())
    return d


# ---------------------------------------------------------------- reading
def build_seat_position(data: Mapping[str, Any], rs: Ruleset) -> Position:
    """A position from the seat-list form under ruleset ``rs``."""
    r = rs.array
    n = rs.players
    cards = rs.cards  # the longest a card list may be: every card of the deck (54 with Jokers)
    raw = data.get("seats")
    if not isinstance(raw, list) or len(raw) != n:
        got = f"{len(raw)} entries" if isinstance(raw, list) else brief(raw)
        raise PositionError(f"seats: {rs.name} has {n} seats, so 'seats' must list {n} entries (got {got})")
    raw_view = data.get("view", "full")
    view = None if raw_view in ("full", None) else seat_of(raw_view, "view", n)
    s = BLANK_STATE.copy()
    clear_state(s, n)
    S.put(s, "dealer", seat_of(data.get("dealer", seat_name(n - 1)), "dealer", n))
    seen = SeenCards(jokers=rs.jokers)
    unknown_in_hand = [0] * n

    for q, entry in enumerate(raw):
        where = f"seats[{q}]"
        if not isinstance(entry, Mapping):
            raise PositionError(f"{where}: expected an object with hand, points and royals")
        check_keys(entry, SEAT_ENTRY_KEYS, f"{where}.")
        hand = f"{where}.hand"
        unknown_in_hand[q] = read_hand(s, seen, list_field(entry.get("hand"), hand, cards), q, view, hand)
    # base cards first (every stack's owner), then the attachments bottom up
    stacks: list[tuple[Card, list[tuple[Card, int, int]], str]] = []
    for q, entry in enumerate(raw):
        for key, royal in (("points", False), ("royals", True)):
            for i, item in enumerate(list_field(entry.get(key), f"seats[{q}].{key}", cards)):
                w = f"seats[{q}].{key}[{i}]"
                base, attached = _parse_stack(item, w, n)
                if not (C.bit(base) & C.FACE_CARD_RANKS if royal else C.rank_of(base) <= C.TEN):
                    kind = "a royal (K, Q or glasses 8)" if royal else "a point card (A-T)"
                    raise PositionError(f"{w}: {card_str(base)} is not {kind}")
                seen.add(base, w)
                for card, _, _ in attached:
                    seen.add(card, w)
                if royal:
                    S.seat_add(s, "face", q, 1 << base)
                else:
                    S.seat_add(s, "points", q, 1 << base)
                    S.seat_add(s, "owned", q, 1 << base)
                stacks.append((base, attached, w))
    for base, attached, w in stacks:
        below = base
        for card, by, to in attached:
            if card >= L.JOKER_1:
                if not (C.bit(below) & C.FACE_CARD_RANKS or C.rank_of(below) == C.JACK):
                    raise PositionError(f"{w}: Joker {card_str(card)} must sit on a royal or a Jack")
                if not rs.jokers:
                    raise PositionError(f"{w}: {rs.name} is played without Jokers")
                target = below
            else:
                if C.rank_of(card) != C.JACK or C.rank_of(base) > C.TEN:
                    raise PositionError(f"{w}: only Jacks attach to point cards and only Jokers to royals")
                target = base
                below = card
            if to != by and not rs.gift:
                raise PositionError(f"{w}: {card_str(card)}-{seat_name(by)}>{seat_name(to)}: in {rs.name} a Jack or Joker goes to its player")
            if attach(s, r, by, to, card, target):
                raise PositionError(f"{w}: {seat_name(to)} already controls {card_str(base)} when {card_str(card)} goes on it")

    for i, item in enumerate(card_list(data, "scrap", cards)):
        w = f"scrap[{i}]"
        if item == C.UNKNOWN:
            raise PositionError(f"{w}: '??' in the scrap (the scrap is public)")
        c = read_card(item, w)
        seen.add(c, w)
        S.add(s, "scrap", 1 << c)
    for i, item in enumerate(card_list(data, "removed", cards)):
        w = f"removed[{i}]"
        if not rs.remove_ace_six:
            raise PositionError(f"{w}: cards leave the game only with the option remove-ace-six")
        c = read_card(item, w) if item != C.UNKNOWN else None  # type: ignore[assignment]  # None: '??', refused below
        if c is None or C.rank_of(c) not in (C.ACE, C.SIX):
            raise PositionError(f"{w}: only Aces and Sixes leave the game (remove-ace-six), not {brief(item)}")
        seen.add(c, w)
        S.add(s, "removed", 1 << c)
    for q, entry in enumerate(raw):
        for i, item in enumerate(list_field(entry.get("counters"), f"seats[{q}].counters", cards)):
            w = f"seats[{q}].counters[{i}]"
            if not rs.counter_costs_turn:
                raise PositionError(f"{w}: in {rs.name} a counter does not wait before its player")
            c = read_card(item, w) if item != C.UNKNOWN else None  # type: ignore[assignment]  # None: '??', refused below
            if c is None or C.rank_of(c) != C.TWO:
                raise PositionError(f"{w}: only 2s wait before a seat that countered, not {brief(item)}")
            seen.add(c, w)
            S.seat_add(s, "spent", q, 1 << c)
    if rs.reshuffle:
        S.put(s, "shuffle_seed", 1)  # later reshuffles are chance: a search re-seeds them

    phase = parse_phase(data.get("phase"))
    turn_count = int_field(data, "turn", 0)
    S.put(s, "turn_count", turn_count)
    turn = (S.get(s, "dealer") + 1 + turn_count) % n
    S.put(s, "turn", turn)
    S.put(s, "actor", turn)

    twos = []
    for i, item in enumerate(card_list(data, "twos", cards)):
        m = _ATTACHED_RE.match(item) if isinstance(item, str) else None
        if rs.counter_costs_turn:
            if not m or m.group(3) is not None:
                raise PositionError(f"twos[{i}]: in {rs.name} each counter names its player, like '2C-p1'")
            c = read_card(m.group(1), f"twos[{i}]")
            S.set_two_by(s, c & 3, seat_of(f"p{m.group(2)}", f"twos[{i}]", n))
            twos.append(m.group(1))
        else:
            twos.append(item)
    read_twos(s, seen, twos)
    one_off = data.get("oneOff")
    read_pending(s, seen, one_off, phase, turn)
    if data.get("oneOffBy") is not None:
        if one_off is None or phase == L.PH_SEVEN:
            raise PositionError("oneOffBy: set but there is no pending one-off")
        S.put(s, "oneoff_player", seat_of(data.get("oneOffBy"), "oneOffBy", n))
    if data.get("response") is not None:
        if not rs.response_nine:
            raise PositionError(f"response: {rs.name} has no answer to a royal")
        S.put(s, "response", read_card(data.get("response"), "response"))
    if phase == L.PH_RESPONSE:
        S.put(s, "actor", seat_of(data.get("asked"), "asked", n))
    target = data.get("oneOffTarget")  # type: ignore[assignment]  # untrusted: read as a card or a seat below
    if target is not None:
        if one_off is None:
            raise PositionError("oneOffTarget: set but there is no oneOff")
        if isinstance(target, str) and target.strip().lower().startswith("p"):
            S.put(s, "oneoff_target", L.TARGET_SEAT + seat_of(target, "oneOffTarget", n))
        else:
            S.put(s, "oneoff_target", read_card(target, "oneOffTarget"))
    if phase == L.PH_COUNTER:
        S.put(s, "chain_top", seat_of(data.get("chainTop", seat_name(turn)), "chainTop", n))
        S.put(s, "actor", seat_of(data.get("asked"), "asked", n))
    if phase in (L.PH_FOUR, L.PH_FOUR_RANDOM):
        S.put(s, "victim", seat_of(data.get("victim"), "victim", n))
    for key, (phases, role) in PHASE_FIELDS.items():  # written only where they mean something: never wrong
        if data.get(key) is not None and phase not in phases:
            raise PositionError(f"{key}: set in phase {brief(data.get('phase'))}, where no seat is {role}")
    revealed_unknown = 0
    for i, item in enumerate(card_list(data, "revealed", cards)):
        if item == C.UNKNOWN:
            if view is None or view == turn or not rs.seven_private:
                raise PositionError(f"revealed[{i}]: '??' only where a 7 showed its cards to its player alone")
            revealed_unknown += 1
            continue
        c = read_card(item, f"revealed[{i}]")
        seen.add(c, f"revealed[{i}]")
        S.add(s, "revealed", 1 << c)
    if revealed_unknown and S.get(s, "revealed"):
        raise PositionError("revealed: a view sees all of another seat's revealed cards or none")

    deck, deck_known = read_deck(card_list(data, "deck", cards), view, seen)
    if view is not None:
        check_view_deck_known(data, deck_known)
    seen_by = data.get("deckSeenBy")
    if seen_by is not None:
        S.put(s, "top_seen_by", seat_of(seen_by, "deckSeenBy", n))
        if not deck:
            raise PositionError("deckSeenBy: the deck is empty")
        if view is not None and S.get(s, "top_seen_by") != view:
            raise PositionError("deckSeenBy: a view knows only its own private knowledge of the deck")
    if view is None:
        deck_known = int_field(data, "deckKnown", 0)
        if deck_known > len(deck):
            raise PositionError(f"deckKnown: {deck_known} known cards but the deck holds {len(deck)}")
    elif S.get(s, "top_seen_by") == view:
        if not deck_known:
            raise PositionError("deckSeenBy: the viewer knows the top card, so the deck's first card must be named")
        deck_known -= 1  # the named top card is the viewer's private knowledge

    every = int(deck_cards(r))
    unknown_total = sum(unknown_in_hand) + revealed_unknown + sum(1 for x in deck if x is None)
    total = len(seen.where) + unknown_total
    if total != bin(every).count("1"):
        raise PositionError(count_error(total, list(cards_in(every)), seen, unknown_total,
                                        f"{rs.name} is played with {bin(every).count('1')}"))
    unseen = [c for c in cards_in(every) if c not in seen.where]
    unknown_mask = C.mask_of(unseen)
    it = iter(unseen)
    for q in range(n):
        for _ in range(unknown_in_hand[q]):
            S.seat_add(s, "hand", q, 1 << next(it))
    for _ in range(revealed_unknown):
        S.add(s, "revealed", 1 << next(it))
    filled = [x if x is not None else next(it) for x in deck]
    S.set_deck(s, filled[::-1])
    S.put(s, "deck_known", deck_known)

    for q, entry in enumerate(raw):
        for i, item in enumerate(list_field(entry.get("known"), f"seats[{q}].known", cards)):
            c = read_card(item, f"seats[{q}].known[{i}]")
            if not (S.seat_get(s, "hand", q) >> c) & 1 or (unknown_mask >> c) & 1:
                raise PositionError(f"seats[{q}].known[{i}]: {card_str(c)} is not a named card of that hand")
            S.seat_add(s, "public", q, 1 << c)
        for c, where in frozen_cards(entry.get("frozen"), f"seats[{q}].frozen"):
            if not (S.seat_get(s, "hand", q) >> c) & 1 or (unknown_mask >> c) & 1:
                raise PositionError(f"{where}: {card_str(c)} is not in that hand")
            S.seat_add(s, "frozen", q, 1 << c)
            S.seat_add(s, "public", q, 1 << c)  # a card a 9 returns is seen by every seat
        if view is not None and q != view:
            S.seat_add(s, "public", q, S.seat_get(s, "hand", q) & ~unknown_mask)
    S.put(s, "passes", int_field(data, "passes", 0))
    S.put(s, "actions", int_field(data, "actions", 0))

    set_phase(s, r, phase)
    default_actions(s, r, data)
    hidden = None
    if view is not None:
        for q in range(n):
            if unknown_in_hand[q] and sees_hand(s, r, view, q):
                raise PositionError(f"seats[{q}].hand: {seat_name(view)} sees this hand (glasses), so '??' is not allowed")
        hidden = Hidden(view, {q: k for q, k in enumerate(unknown_in_hand) if k}, sum(1 for x in deck if x is None),
                        revealed_unknown)
    pos = Position(rs, s, view, hidden, unknown_mask, about=read_about(data))
    code, detail = (int(x) for x in position_error(s, r))
    if code:
        raise PositionError(impossible(pos, code, detail))
    return pos


def _parse_stack(item: Any, where: str, seats: int) -> tuple[Card, list[tuple[Card, int, int]]]:
    """``'9C(JH-p1,X1-p2>p0)'`` -> (9C, [(JH, 1, 1), (X1, 2, 0)]): each attachment's player
    and the seat it gave control to (Team Cuttle's ``>``; its player otherwise)."""
    m = match_stack(item, where, "a card or a stack like '9C(JH-p1,X1-p2)'",
                    "a card or a stack like '9C(JH-p1,X1-p2)'")
    base = read_card(m.group(1), where)
    attached = []
    if m.group(2) is not None:
        for part in m.group(2).split(","):
            am = _ATTACHED_RE.match(part)
            if not am:
                raise PositionError(f"{where}: {brief(part.strip())} should look like 'JH-p1', 'X1-p2' or 'JH-p1>p3'")
            card = read_card(am.group(1), where)
            by = int(am.group(2))
            to = by if am.group(3) is None else int(am.group(3))
            if max(by, to) >= seats:
                raise PositionError(f"{where}: {card_str(card)} names {seat_name(max(by, to))}, but the game has {seats} seats")
            attached.append((card, by, to))
    return base, attached
