"""What every position form shares (the v1 form, the seat-list form, cuttle.cards'
GameState): the format's name, reading a card, a card list, a whole number or a phase with
an error that names the field, the set of cards seen so far (each card once), the deck,
the counter chain, the phase and what it implies (the engine's ``setup_pending``), and the
message for a position the engine says cannot happen (``position_error``).
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping

import numpy as np

from .. import cards as C
from ..cards import Card, CardError, card_str, cards_in, parse_card
from ..errors import CuttleError, brief, did_you_mean
from ...engine import layout as L
from ...engine import state as S
from ...engine.setup import POSITION_ERRORS, SETUP_ERRORS, SETUP_LIMITS, setup_pending
from ...engine.setup import dealt_deck, fewest_actions, frozen_capacity, opening_hand
from ...engine.table import hand_cap
from ..position import PHASE_NAMES, PHASE_OF_NAME, Position, PositionError
from ..seats import seat_name, whole

FORMAT_NAME = "cuttle-search/position"
GAME_FORMAT = "cuttle-search/game"  # a game log's (game/gamelog.py), named here to tell one from a position
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
STACK_RE = re.compile(r"^\s*([^()\s]+)\s*(?:\((.*)\))?\s*$")


def dump_position_dict(d: Mapping[str, Any], compact: bool = False) -> str:
    """JSON text for a position dict: one field per line, values on the same line."""
    if compact:
        return json.dumps(d, separators=(",", ":"))
    return "{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in d.items()) + "\n}"


class SeenCards:
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


NAMED_MISSING_AT_MOST = 12  # missing cards a count message names (more: the count alone, to keep it one line)


def count_error(total: int, every: list[Card], seen: SeenCards, hidden: int, deck_words: str) -> str:
    """The message for a position of ``total`` cards where the game has the cards ``every``
    (``deck_words``: "a deck has 52", ...): what is missing or extra, said so that the file's
    author can find it. A zone left null or out reads as empty, so a missing hand shows here
    as its cards, named when nothing else is hidden (``hidden``: the ``??`` slots)."""
    unplaced = [c for c in every if c not in seen.where]
    text = f"the position holds {total} cards; {deck_words}"
    if total < len(every):
        short = len(every) - total
        if hidden == 0 and short <= NAMED_MISSING_AT_MOST:
            return f"{text}: {' '.join(card_str(c) for c in unplaced)} {'is' if short == 1 else 'are'} in no zone"
        return f"{text}: {short} card{'s are' if short != 1 else ' is'} neither named nor hidden ('??') in any zone"
    extra = total - len(every)
    left = len(unplaced)
    return (f"{text}: {extra} more hidden card{'s' * (extra != 1)} ('??') than the {left} "
            f"card{'s' * (left != 1)} not named")


def read_card(value: Any, where: str) -> Card:
    if isinstance(value, Mapping):  # cuttle.cards card object
        if not isinstance(value.get("id"), str):
            raise PositionError(f"{where}: expected a card string or a card object with an \"id\", got {brief(value)}")
        value = value["id"]
    try:
        return parse_card(value)
    except CardError as e:
        raise PositionError(f"{where}: {e}") from None


def match_stack(item: Any, where: str, expected: str, like: str) -> "re.Match[str]":
    """The parts of a table stack's text (a card, or a card and its attachments in
    parentheses; a GameState card object gives its id): a one-line error naming ``where``
    for anything else, a hidden card (``??``) included. ``expected`` and ``like`` say in
    the messages what the form takes."""
    item = card_text(item, where)
    if not isinstance(item, str):
        raise PositionError(f"{where}: expected {expected}, got {brief(item)}")
    if item.strip() == C.UNKNOWN:
        raise PositionError(f"{where}: '??' on the table (cards on the table are always visible)")
    m = STACK_RE.match(item)
    if not m:
        raise PositionError(f"{where}: {brief(item)} is not {like}")
    return m


def frozen_cards(value: Any, where: str) -> list[tuple[Card, str]]:
    """The cards of a ``frozen`` field, each with its place for messages: a list of cards
    (several 9s may have frozen cards of one seat), or the older single card, or null."""
    if value is None:
        return []
    if not isinstance(value, list):
        return [(read_card(value, where), where)]
    out: list[tuple[Card, str]] = []
    for i, item in enumerate(list_field(value, where)):
        c = read_card(item, f"{where}[{i}]")
        if any(c == d for d, _ in out):
            raise PositionError(f"{where}[{i}]: {card_str(c)} is listed twice")
        out.append((c, f"{where}[{i}]"))
    return out


def check_view_deck_known(data: Mapping[str, Any], named: int) -> None:
    """A view names the cards it knows on top of its deck list; a ``deckKnown`` beside them
    (not needed) must count them."""
    if data.get("deckKnown") is not None:
        given = int_field(data, "deckKnown", 0)
        if given != named:
            raise PositionError(f"deckKnown: {given}, but this view's deck names {named} card{'s' * (named != 1)} on "
                                "top (a view writes the cards it knows in the deck; deckKnown may be left out)")


def read_hand(s: np.ndarray, seen: SeenCards, items: list[Any], seat: int, view: int | None, field: str) -> int:
    """Seat ``seat``'s hand, the list ``field`` of either form, into ``s``: every named card
    (each checked once against ``seen``); ``??`` only for a hand the view hides. Returns how
    many cards are hidden."""
    hidden = 0
    for i, item in enumerate(items):
        where = f"{field}[{i}]"
        if item == C.UNKNOWN:
            if view is None:
                raise PositionError(f"{where}: '??' (a hidden card) in a full-information position")
            if seat == view:
                raise PositionError(f"{where}: '??' in the viewer's own hand")
            hidden += 1
            continue
        c = read_card(item, where)
        seen.add(c, where)
        S.seat_add(s, "hand", seat, 1 << c)
    return hidden


def card_list(data: Mapping[str, Any], key: str, cards: int = C.N_CARDS) -> list[Any]:
    return list_field(data.get(key, []), key, cards)


def list_field(value: Any, where: str, cards: int = C.N_CARDS) -> list[Any]:
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


def card_text(item: Any, where: str) -> Any:
    """The card string of a GameState card object (``{"id": "7H"}``), or the item itself."""
    if isinstance(item, Mapping):
        return item.get("id")
    return item


def read_twos(s: np.ndarray, seen: SeenCards, twos: list[Any]) -> None:
    """The counter 2s of a pending chain (field ``twos``)."""
    for i, item in enumerate(twos):
        where = f"twos[{i}]"
        c = read_card(item, where)
        if C.rank_of(c) != C.TWO:
            raise PositionError(f"{where}: {card_str(c)} is not a 2 (only 2s counter)")
        seen.add(c, where)
        S.add(s, "twos", 1 << c)
    S.put(s, "ntwos", len(twos))


def read_pending(s: np.ndarray, seen: SeenCards, one_off: Any, phase: int, turn: int) -> None:
    """The pending one-off of seat ``turn`` (field ``oneOff``), or the 7 whose revealed
    cards wait for the pick (kept out of the scrap until then)."""
    if one_off is None:
        return
    c = read_card(one_off, "oneOff")
    seen.add(c, "oneOff")
    if phase == L.PH_SEVEN:
        S.put(s, "seven", c)
    else:
        S.put(s, "oneoff", c)
        S.put(s, "oneoff_player", turn)


def read_deck(items: list[Any], view: int | None, seen: SeenCards) -> tuple[list[Card | None], int]:
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
        c = read_card(item, where)
        seen.add(c, where)
        if view is not None:
            if any(x is None for x in deck):
                raise PositionError(f"{where}: a named deck card below a hidden one (only the top of the deck can be known)")
            known += 1
        deck.append(c)
    return deck, known


def parse_phase(value: Any) -> int:
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


def int_field(data: Mapping[str, Any], key: str, default: int, low: int = 0, high: int = MAX_COUNT) -> int:
    v = data.get(key, default)
    if v is None:
        return default
    return whole(v, key, low, high, PositionError)


def default_actions(s: np.ndarray, r: np.ndarray, data: Mapping[str, Any]) -> None:
    """A file without ``actions`` (a cuttle.cards GameState has none) gets the fewest that
    reach its position (``engine.setup.fewest_actions``), not 0: 0 is only the deal."""
    if data.get("actions") is None:
        S.put(s, "actions", fewest_actions(s, r))


def _hand_field(pos: Position, q: int) -> str:
    return f"seats[{q}].hand" if pos.rules.seat_list_form else f"{seat_name(q)}Hand"


def impossible(pos: Position, code: int, detail: int) -> str:
    """The message for an engine ``position_error`` code, naming the field at fault."""
    s, r = pos.state, pos.rules_array
    why = POSITION_ERRORS[code]
    if code == 9:
        return (f"{seat_name(detail)}Points: {seat_name(detail)} has {pos.points(detail)} points against a goal of "
                f"{pos.goal(detail)}; the game would already be over")
    if code == 10:
        cap = int(hand_cap(s, r, detail))
        return (f"{seat_name(detail)}Hand: {bin(pos.hand(detail)).count('1')} cards, but no hand can hold more than {cap} "
                f"at this point under {pos.rules.spec} (hand limit: {pos.rules.hand_limit})")
    if code == 11:
        return f"actions: {S.get(s, 'actions')} actions reach the limit of {int(r[L.R_ACTION_LIMIT])}; the game would be over"
    if code == 12:
        return f"passes: {S.get(s, 'passes')} passes already end the game in a stalemate"
    if code in (13, 18):
        return f"{'passes' if code == 13 else 'revealed'}: {why}"
    if code in (14, 15, 21, 22):
        return _frozen_problem(pos, code, detail, why)
    if code == 16:
        target = S.get(s, "oneoff_target")
        aimed = seat_name(target - L.TARGET_SEAT) if target >= L.TARGET_SEAT else card_str(target) if target >= 0 else ""
        played = card_str(detail) + (f" on {aimed}" if aimed else " with no target")
        return f"oneOff: {played}: {why}"
    if code == 17:
        return f"scuttle: {card_str(detail)} on {card_str(S.get(s, 'scuttle_target'))}: {why}"
    if code == 70:
        return (f"actions: {S.get(s, 'actions')} actions cannot reach turn {S.get(s, 'turn_count')} in phase "
                f"'{pos.phase_name}' (it takes at least {detail}: one a turn, one for the turn's action, one a counter)")
    if code == 71:
        return "actions: 0 actions, but cards have left the hands and the deck (or are known): that is not the deal"
    if code == 72:
        return (f"{_hand_field(pos, detail)}: {bin(pos.hand(detail)).count('1')} cards before any action, but the deal "
                f"gives {seat_name(detail)} {int(opening_hand(s, r, detail))}")
    if code == 73:
        rev = bin(S.get(s, "revealed")).count("1")
        held = f"{S.get(s, 'deck_size')} cards" + (f" and {rev} revealed" if rev else "")
        acts = S.get(s, "actions")
        return (f"deck: {held}, but at most {detail} can be there after {acts} action{'s' * (acts != 1)} "
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
    n = pos.players
    if code == 22:
        q = detail
    else:
        q = next((p for p in range(n) if (S.seat_get(s, "frozen", p) >> detail) & 1), 0)
    field = f"seats[{q}].frozen" if pos.rules.seat_list_form else "frozen"
    if code != 22:
        return f"{field}: {card_str(detail)}: {why}"
    held = [card_str(c) for c in cards_in(S.seat_get(s, "frozen", q))]
    cap = int(frozen_capacity(s, r, q))
    can = "none" if cap == 0 else f"at most {cap}"
    return (f"{field}: {seat_name(q)} holds {len(held)} frozen card{'s' * (len(held) != 1)} ({' '.join(held)}) in phase "
            f"'{pos.phase_name}' of {seat_name(S.get(s, 'turn'))}'s turn (turn {S.get(s, 'turn_count')}), where it can hold "
            f"{can}: a card a 9 froze thaws {_thaw_rule(pos)}, and a turn freezes one card at most")


def _thaw_rule(pos: Position) -> str:
    if pos.rules.freeze_until_turn_ends:
        return "when its holder's own turn ends"
    return "once its holder has made its next decision"


def set_phase(s: np.ndarray, r: np.ndarray, phase: int) -> None:
    """Set the phase and what it implies (the deciding seat, the chain's top, the discard
    count), as the engine derives it (``setup_pending``); refuse fields that contradict it."""
    S.put(s, "phase", phase)
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

# the top-level keys of a position (the v1 form's seats are p0 and p1; the seat-list form
# has its ``seats`` list, whose entries hold ``SEAT_ENTRY_KEYS``)
TOP_LEVEL_KEYS = (*sorted(POSITION_KEYS), *(f"p{q}{part}" for q in range(2) for part in ("Hand", "Points", "FaceCards")))
SEAT_ENTRY_KEYS = ("hand", "points", "royals", "frozen", "known", "counters")
FINISHED_KEYS = ("status", "winner")  # a finished game's file has them (``Position.result``), and never loads


_TWO_SEAT_KEY = re.compile(r"p(\d+)(Hand|Points|FaceCards)")
_SEAT_ENTRY_OF = {"Hand": "hand", "Points": "points", "FaceCards": "royals"}


def check_position_keys(data: Mapping[str, Any]) -> None:
    """``check_keys`` for the form ``data`` is written in: the two-seat form's ``p0Hand`` ...
    ``p1FaceCards`` beside a ``seats`` list (or in version 2) would be skipped, and a
    ``p2Hand`` has no two-seat form to belong to, so each is refused by what it is."""
    seat_list = "seats" in data or data.get("version") == 2
    for key in FINISHED_KEYS:
        if key in data:  # what saving a finished game adds to its file
            raise PositionError(f"{key}: this file holds a finished game (saved for the record); a position is loaded "
                                "only while the game is in progress, since there is nothing left to decide")
    for key in data:
        match = _TWO_SEAT_KEY.fullmatch(key) if isinstance(key, str) else None
        if match is None:
            continue
        if seat_list:
            raise PositionError(f"{key}: a field of the two-seat form (version 1); this position lists its seats "
                                f"under 'seats', each seat's cards as {_SEAT_ENTRY_OF[match[2]]!r} there")
        if int(match[1]) >= 2:
            raise PositionError(f"{key}: the two-seat form (version 1) has seats p0 and p1 only; a game of more "
                                "seats lists them under 'seats' (version 2)")
    check_keys(data, sorted(POSITION_KEYS) if seat_list else TOP_LEVEL_KEYS)


def is_position_key(key: str) -> bool:
    """Whether a top-level key is one a position form reads; used to name a request's
    unknown fields (a cuttle.cards GameState is not checked: ``from_cuttle_cards``)."""
    return key in TOP_LEVEL_KEYS


def from_cuttle_cards(data: Mapping[str, Any]) -> bool:
    """Whether ``data`` is a cuttle.cards GameState, whose fields the analyser does not all
    read, rather than a position of this project's forms (which carry ``format``,
    ``version`` or ``seats``, and name their phase): the unpacked form (``p0``/``p1`` seat
    objects) or the row form, whose phase is cuttle.cards' number."""
    if any(k in data for k in ("format", "version", "seats")):  # this project's forms name themselves
        return False
    if "p0" in data or "p1" in data:  # (the unpacked form's reader says what is wrong in them)
        return True
    phase = data.get("phase")
    return isinstance(phase, int) and not isinstance(phase, bool)


def read_about(data: Mapping[str, Any]) -> str:
    """A position's ``about`` text ("" when absent or null)."""
    about = data.get("about")
    if about is None:
        return ""
    if not isinstance(about, str):
        raise PositionError(f"about: expected a text description, got {brief(about)}")
    return about


def check_keys(data: Mapping[str, Any], known: Iterable[str], where: str = "", what: str = "",
               error: type[CuttleError] = PositionError) -> None:
    """Refuse a key of ``data`` that is not in ``known``, naming it and the closest known
    key: a misspelt ``p0FaceCard`` would otherwise be skipped, and its cards taken for
    hidden ones. ``what`` names the object (a position's, or with ``where`` a seat's, by
    default); ``error`` is the error raised."""
    names = list(known)
    for key in data:
        if key in names:
            continue
        hint = did_you_mean(key, names)
        name = key if isinstance(key, str) and key.isprintable() and len(key) <= 40 else brief(key)
        raise error(f"{where}{name}: not a field of a {what or ('seat' if where else 'position')}{hint}")

