"""Moves: the engine's integer encoding, a short text notation and a JSON notation.

Text notation (what a person types)::

    draw | pass | resolve
    points 7H            scuttle 9S 7H         royal KH       glasses 8C
    jack JS 7H           one-off AC            one-off 2C KH  counter 2D
    take 5H              (the 3's pick from the scrap)
    discard 4H 9C        (a 4's victim, a 5, or the hand limit: the whole set at once)
    scrap JH             (a 7's revealed Jack or Joker with nowhere to go: scrap it)
    joker X1 KH          (a Joker onto a royal or a top Jack: it takes the stack)
    one-off 4C p2        (with more than two seats, a 4 names its victim)
    jack JS 7H p2        (Team Cuttle: a Jack or Joker names the seat it gives control to)
    joker X1 KH p0
    forfeit              (Cuttle Multiplayer: the turn spent discarding one's out-of-turn 2s)
    block TS             (ten-counters-scuttle: a 10 cancels the scuttle)
    random-discard 4H 9C (chance: the outcome of a four=random 4)

A card played from a 7's reveal prints like one played from hand; parsing text against a
position's legal moves (``Move.parse(text, legal)``) finds the right one. The JSON form
mirrors cuttle.cards move bodies (``moveType``, ``cardId``, ``targetId``) and names 7 plays
``sevenPoints``, ``sevenScuttle`` and so on, so it round-trips without a position.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import total_ordering
from numbers import Integral
from typing import Any, Iterable, Mapping

from .errors import CuttleError, brief
from .inputs import parse_json
from .cards import EIGHT, Card, CardError, card_str, cards_in, mask_of, parse_card, rank_of
from ..engine import layout as L
from .seats import seat_name, seat_number


class MoveError(CuttleError):
    """Text or JSON that is not a move."""


class IllegalMoveError(MoveError):
    """A well-formed move that is not legal in the position."""


KIND_OF_TYPE = {
    L.MT_DRAW: "draw",
    L.MT_PASS: "pass",
    L.MT_POINTS: "points",
    L.MT_SCUTTLE: "scuttle",
    L.MT_ROYAL: "royal",
    L.MT_JACK: "jack",
    L.MT_ONE_OFF: "one-off",
    L.MT_COUNTER: "counter",
    L.MT_RESOLVE: "resolve",
    L.MT_TAKE: "take",
    L.MT_DISCARD: "discard",
    L.MT_SEVEN_SCRAP: "scrap",
    L.MT_TEN_COUNTER: "block",
    L.MT_RANDOM_DISCARD: "random-discard",
    L.MT_JOKER: "joker",
    L.MT_FORFEIT: "forfeit",
}
TYPE_OF_KIND = {v: k for k, v in KIND_OF_TYPE.items()}
TYPE_OF_KIND["glasses"] = L.MT_ROYAL

NO_CARD_KINDS = {"draw", "pass", "resolve", "forfeit"}
GIFT_KINDS = {"jack", "joker"}  # may name a receiving seat (R_GIFT)
ONE_CARD_KINDS = {"points", "royal", "counter", "take", "scrap", "block"}
TARGET_KINDS = {"scuttle", "jack", "joker"}
SET_KINDS = {"discard", "random-discard"}
SEVEN_KINDS = {"points", "scuttle", "royal", "jack", "one-off", "joker"}

_JSON_NAME = {
    "draw": "draw",
    "pass": "pass",
    "resolve": "resolve",
    "points": "points",
    "scuttle": "scuttle",
    "royal": "faceCard",
    "jack": "jack",
    "counter": "counter",
    "take": "resolveThree",
    "discard": "discard",
    "scrap": "sevenScrap",
    "block": "tenCounter",
    "random-discard": "randomDiscard",
    "forfeit": "forfeit",
    "joker": "joker",
}
_SEVEN_JSON = {"points": "sevenPoints", "scuttle": "sevenScuttle", "royal": "sevenFaceCard", "jack": "sevenJack",
               "joker": "sevenJoker"}


def _seat_word(word: str) -> int | None:
    """``p0`` .. ``p7`` as a seat number, else None."""
    return seat_number(word, L.MAX_PLAYERS) if isinstance(word, str) else None


def _target_str(target: int) -> str:
    return seat_name(target - L.TARGET_SEAT) if L.TARGET_SEAT <= target < L.NO_CARD else card_str(target)


# the fields of a JSON move body that some move type reads (``Move.from_json``)
MOVE_FIELDS = ("cardId", "targetId", "targetSeat", "receiverSeat", "cardIds", "cardId1", "cardId2")
_DISCARD_TYPES = ("discard", "randomDiscard", "resolveFour", "resolveFive")


# the move types a 7's revealed card may be played as: ``seven`` and one of these
# (``sevenPoints``); any other name with the prefix (``sevenScrap`` is a type of its own)
# is read whole, so ``sevenDraw`` is no move rather than a draw
_SEVEN_PLAYS = ("points", "scuttle", "faceCard", "jack", "joker", "untargetedOneOff", "targetOneOff",
                "targetedOneOff")


def _seven_base(name: str) -> tuple[bool, str]:
    """Whether a JSON ``moveType`` plays a 7's revealed card, and its type without the
    ``seven`` prefix (``sevenPoints`` -> ``points``)."""
    base = name[5:6].lower() + name[6:]
    if name.startswith("seven") and base in _SEVEN_PLAYS:
        return True, base
    return False, name


def fields_read(name: str, body: Mapping[str, Any]) -> tuple[str, ...]:
    """The ``MOVE_FIELDS`` a JSON move of type ``name`` reads (its one-off's target given
    as ``body`` gives it)."""
    base = _seven_base(name)[1]
    if base in ("points", "counter", "faceCard", "untargetedOneOff", "resolveThree", "sevenScrap", "tenCounter"):
        return ("cardId",)
    if base == "scuttle":
        return ("cardId", "targetId")
    if base in ("jack", "joker"):
        return ("cardId", "targetId", "receiverSeat")
    if base in ("targetOneOff", "targetedOneOff"):
        return ("cardId", "targetSeat") if body.get("targetSeat") is not None else ("cardId", "targetId")
    if name in _DISCARD_TYPES:
        return ("cardIds",) if body.get("cardIds") is not None else ("cardId", "cardId1", "cardId2")
    return ()


def _is_card(value: Any, most: int = L.JOKER_2) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= most


@total_ordering
@dataclass(frozen=True)
class Move:
    """One decision. ``cards`` holds a discard set; ``from_seven`` marks a 7-reveal play;
    ``receiver`` is the seat a Jack or Joker gives control to where the rules name one.
    Built checked (a ``MoveError`` names the field); a ``royal`` 8 is ``glasses``. Moves
    sort by kind, then card, target, discards, 7-reveal and receiver (absent fields first)."""

    kind: str
    card: Card | None = None
    target: Card | None = None
    cards: tuple[Card, ...] = ()
    from_seven: bool = False
    receiver: int | None = None

    def __post_init__(self) -> None:
        kind = self.kind
        if not isinstance(kind, str) or kind not in TYPE_OF_KIND:
            raise MoveError(f"kind: expected one of {', '.join(sorted(TYPE_OF_KIND))}, got {brief(kind)}")
        needs_card = kind not in NO_CARD_KINDS and kind not in SET_KINDS
        if not (_is_card(self.card) if needs_card else self.card is None):
            raise MoveError(f"card: a {kind!r} move takes " + ("a card (0-53)" if needs_card else "no card") +
                            f", got {brief(self.card)}")
        needs_target = kind in TARGET_KINDS
        takes_target = needs_target or kind == "one-off"
        if not (_is_card(self.target, L.NO_CARD - 1) if needs_target else
                self.target is None or (takes_target and _is_card(self.target, L.NO_CARD - 1))):
            raise MoveError(f"target: a {kind!r} move takes " + ("a target" if takes_target else "no target") +
                            f", got {brief(self.target)}")
        if not isinstance(self.cards, tuple) or (kind in SET_KINDS) != bool(self.cards) or \
                not all(_is_card(c) for c in self.cards):
            raise MoveError(f"cards: a {kind!r} move takes " + ("a tuple of cards" if kind in SET_KINDS else "none") +
                            f", got {brief(self.cards)}")
        if not isinstance(self.from_seven, bool):
            raise MoveError(f"from_seven: expected True or False, got {brief(self.from_seven)}")
        if not (self.receiver is None or (kind in GIFT_KINDS and _is_card(self.receiver, L.MAX_PLAYERS - 1))):
            raise MoveError(f"receiver: a seat 0-{L.MAX_PLAYERS - 1} of a jack or joker move, got {brief(self.receiver)}")
        if kind == "royal" and rank_of(self.card) == EIGHT:  # type: ignore[arg-type]  # checked above
            object.__setattr__(self, "kind", "glasses")

    def _order(self) -> tuple:
        return (self.kind, -1 if self.card is None else self.card, -1 if self.target is None else self.target,
                self.cards, self.from_seven, -1 if self.receiver is None else self.receiver)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return self._order() < other._order()

    # ------------------------------------------------------------ engine encoding
    @classmethod
    def from_code(cls, code: int) -> "Move":
        """The move of an engine move code; a number that is no move's code is refused
        (``MoveError``), not read as some move."""
        if isinstance(code, bool) or not isinstance(code, Integral) or not 0 <= code < 1 << 62:
            raise MoveError(f"code: expected an engine move code, got {brief(code)}")
        code = int(code)
        try:
            move = cls._decode(code)
        except MoveError:  # fields no move has
            move = None
        if move is None or move.code() != code:
            raise MoveError(f"code: {code} is not an engine move code")
        return move

    @classmethod
    def _decode(cls, code: int) -> "Move":
        mt = code & L.MT_MASK
        kind = KIND_OF_TYPE[mt]
        seven = bool(code & L.FROM_SEVEN)
        if kind in SET_KINDS:
            return cls(kind, cards=tuple(cards_in(int(L.move_mask(code)))))
        card = int(L.move_card(code))
        target = int(L.move_target(code))
        if kind == "royal" and rank_of(card) == EIGHT:
            kind = "glasses"
        to = (code >> L.RECEIVER_SHIFT) & 15
        return cls(
            kind,
            None if card == L.NO_CARD else card,
            None if target == L.NO_CARD else target,
            from_seven=seven,
            receiver=to - 1 if to and kind in GIFT_KINDS else None,
        )

    def code(self) -> int:
        mt = TYPE_OF_KIND[self.kind] | (L.FROM_SEVEN if self.from_seven else 0)
        if self.kind in SET_KINDS:
            return mt | (mask_of(self.cards) << 5)
        card = L.NO_CARD if self.card is None else self.card
        target = L.NO_CARD if self.target is None else self.target
        to = 0 if self.receiver is None else (self.receiver + 1) << L.RECEIVER_SHIFT
        return mt | (card << 5) | (target << 11) | to

    # ------------------------------------------------------------ text
    def text(self) -> str:
        if self.kind in NO_CARD_KINDS:
            return self.kind
        if self.kind in SET_KINDS:
            return " ".join([self.kind, *(card_str(c) for c in self.cards)])
        parts = [self.kind, card_str(self.card)]  # type: ignore[arg-type]  # a one-card kind has its card
        if self.target is not None:
            parts.append(_target_str(self.target))
        if self.receiver is not None:
            parts.append(seat_name(self.receiver))
        return " ".join(parts)

    @property
    def target_seat(self) -> int | None:
        """The seat a move names (a 4's victim with more than two seats), or None."""
        if self.target is not None and L.TARGET_SEAT <= self.target < L.NO_CARD:
            return self.target - L.TARGET_SEAT
        return None

    __str__ = text  # str(move) is its text notation

    def __repr__(self) -> str:
        """Readable and executable, like python-chess's ``Move.from_uci('e2e4')``:
        ``Move.parse('scuttle 9S 7H')``, with ``from_seven=True`` for a card played from a
        7's reveal (the text notation does not show it)."""
        return f"Move.parse({self.text()!r}{', from_seven=True' if self.from_seven else ''})"

    @classmethod
    def parse(cls, text: str, legal: Iterable["Move"] | None = None, *, from_seven: bool = False) -> "Move":
        """Parse the text notation. With ``legal`` given, also check legality and find
        the 7-reveal form of a card played from a reveal; ``from_seven`` asks for that form
        without a position (what ``repr`` writes)."""
        if not isinstance(text, str):
            raise MoveError(f"move: expected move text like 'points 7H', got {brief(text)}")
        if not text.strip():
            raise MoveError("empty move text")
        words = text.strip().lower().replace(",", " ").split()
        kind, args = words[0], words[1:]
        if kind in ("oneoff", "one_off"):
            kind = "one-off"
        if kind not in TYPE_OF_KIND:
            raise MoveError(f"unknown move {brief(words[0])} in {brief(text)} (known: {', '.join(sorted(TYPE_OF_KIND))})")
        seat = _seat_word(args[-1]) if kind == "one-off" and len(args) == 2 else None
        if seat is not None:
            args = args[:-1]
        receiver = _seat_word(args[-1]) if kind in GIFT_KINDS and len(args) == 3 else None
        if receiver is not None:
            args = args[:-1]
        try:
            cards = [parse_card(a) for a in args]
        except CardError as e:
            raise MoveError(f"{brief(text)}: {e}") from None
        move = cls._build(kind, cards, text)
        if seat is not None:
            move = cls(kind, move.card, L.TARGET_SEAT + seat)
        if receiver is not None:
            move = cls(kind, move.card, move.target, receiver=receiver)
        if from_seven:
            if move.kind not in SEVEN_KINDS and move.kind != "glasses":
                raise MoveError(f"{brief(text)}: a {move.kind!r} move is never played from a 7's reveal")
            move = cls(move.kind, move.card, move.target, move.cards, True, move.receiver)
        return move if legal is None else move.resolve_against(legal)

    @classmethod
    def _build(cls, kind: str, cards: list[Card], source: str) -> "Move":
        if kind in NO_CARD_KINDS:
            if cards:
                raise MoveError(f"{brief(source)}: {kind!r} takes no card")
            return cls(kind)
        if kind in SET_KINDS:
            if not cards:
                raise MoveError(f"{brief(source)}: {kind!r} needs at least one card")
            if len(set(cards)) != len(cards):
                raise MoveError(f"{brief(source)}: a card is listed twice")
            return cls(kind, cards=tuple(sorted(cards)))
        if kind in ONE_CARD_KINDS or kind == "glasses":
            if len(cards) != 1:
                raise MoveError(f"{brief(source)}: {kind!r} takes exactly one card")
            if kind == "royal" and rank_of(cards[0]) == EIGHT:
                kind = "glasses"
            return cls(kind, cards[0])
        if kind in TARGET_KINDS:
            if len(cards) != 2:
                raise MoveError(f"{brief(source)}: {kind!r} takes a card and a target")
            return cls(kind, cards[0], cards[1])
        # one-off: a card and an optional target
        if len(cards) not in (1, 2):
            raise MoveError(f"{brief(source)}: 'one-off' takes a card and an optional target")
        return cls(kind, cards[0], cards[1] if len(cards) == 2 else None)

    def resolve_against(self, legal: Iterable["Move"]) -> "Move":
        """This move as found among ``legal`` (its 7-reveal twin counts), else raise."""
        legal = list(legal)
        if self in legal:
            return self
        if self.kind in SEVEN_KINDS or self.kind == "glasses":
            twin = Move(self.kind, self.card, self.target, self.cards, not self.from_seven, self.receiver)
            if twin in legal:
                return twin
        raise IllegalMoveError(f"{self.text()!r} is not legal here")

    # ------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        kind = "royal" if self.kind == "glasses" else self.kind
        if kind == "one-off":
            targeted = self.target is not None
            if self.from_seven:
                name = "sevenTargetedOneOff" if targeted else "sevenUntargetedOneOff"
            else:
                name = "targetOneOff" if targeted else "untargetedOneOff"
        elif self.from_seven:
            name = _SEVEN_JSON[kind]
        else:
            name = _JSON_NAME[kind]
        body: dict[str, Any] = {"moveType": name}
        if self.kind in SET_KINDS:
            body["cardIds"] = [card_str(c) for c in self.cards]
        else:
            if self.card is not None:
                body["cardId"] = card_str(self.card)
            if self.target_seat is not None:
                body["targetSeat"] = seat_name(self.target_seat)
            elif self.target is not None:
                body["targetId"] = card_str(self.target)
            if self.receiver is not None:
                body["receiverSeat"] = seat_name(self.receiver)
        return body

    @classmethod
    def from_json(cls, body: Mapping[str, Any] | str) -> "Move":
        """Parse a JSON move body (a dict or a JSON string). Accepts cuttle.cards'
        ``resolveFour`` (``cardId1``, ``cardId2``) and ``resolveFive`` bodies as discards.
        A move field (``MOVE_FIELDS``) that the move type does not read is refused, as is
        a target or a discard given two ways; other keys are left to the caller."""
        if isinstance(body, str):
            body = parse_json(body, MoveError, "move JSON")
        if not isinstance(body, Mapping):
            raise MoveError("a move must be a JSON object with a 'moveType'")
        name = body.get("moveType")
        if not isinstance(name, str):
            raise MoveError("moveType: missing or not a string")
        move = cls._from_body(body, name)
        given = [f for f in MOVE_FIELDS if body.get(f) is not None]
        read = fields_read(name, body)
        for field in given:
            if field not in read:
                raise MoveError(f"{field}: moveType {brief(name)} takes no {field}")
        return move

    @classmethod
    def _from_body(cls, body: Mapping[str, Any], name: str) -> "Move":
        """``from_json``'s move, from the fields its ``moveType`` reads."""

        def card(field: str, required: bool = True) -> Card | None:
            value = body.get(field)
            if value is None:
                if required:
                    raise MoveError(f"{field}: missing for moveType {brief(name)}")
                return None
            try:
                return parse_card(value)
            except CardError as e:
                raise MoveError(f"{field}: {e}") from None

        seven, base = _seven_base(name)
        if base in ("draw", "pass", "resolve", "forfeit"):
            return cls(base)
        if base in ("points", "counter"):
            return cls(base, card("cardId"), from_seven=seven)
        if base == "faceCard":
            c = card("cardId")
            return cls("glasses" if rank_of(c) == EIGHT else "royal", c, from_seven=seven)  # type: ignore[arg-type]  # required: never None
        if base in ("scuttle", "jack", "joker"):
            receiver = None
            if base != "scuttle" and body.get("receiverSeat") is not None:
                raw = body["receiverSeat"]
                receiver = _seat_word(raw) if isinstance(raw, str) else None
                if receiver is None:
                    raise MoveError(f"receiverSeat: expected a seat like 'p2', got {brief(raw)}")
            return cls(base, card("cardId"), card("targetId"), from_seven=seven, receiver=receiver)
        if base in ("untargetedOneOff", "targetOneOff", "targetedOneOff"):
            if base != "untargetedOneOff" and body.get("targetSeat") is not None:
                if body.get("targetId") is not None:
                    raise MoveError("targetSeat: give targetSeat or targetId, not both")
                seat = _seat_word(body["targetSeat"]) if isinstance(body["targetSeat"], str) else None
                if seat is None:
                    raise MoveError(f"targetSeat: expected a seat like 'p2', got {brief(body['targetSeat'])}")
                return cls("one-off", card("cardId"), L.TARGET_SEAT + seat, from_seven=seven)
            target = card("targetId", required=base != "untargetedOneOff")
            return cls("one-off", card("cardId"), target, from_seven=seven)
        if name == "resolveThree":
            return cls("take", card("cardId"))
        if name == "sevenScrap":
            return cls("scrap", card("cardId"))
        if name == "tenCounter":
            return cls("block", card("cardId"))
        if name in _DISCARD_TYPES:
            if body.get("cardIds") is not None:
                raw = body["cardIds"]
                if any(body.get(f) is not None for f in ("cardId", "cardId1", "cardId2")):
                    raise MoveError("cardIds: give cardIds or cardId1, cardId2 (or cardId), not both")
                if not isinstance(raw, list) or not raw:
                    raise MoveError("cardIds: expected a non-empty list of cards")
                try:
                    cards = [parse_card(c) for c in raw]
                except CardError as e:
                    raise MoveError(f"cardIds: {e}") from None
            else:
                cards = [c for c in (card("cardId1", False), card("cardId2", False), card("cardId", False)) if c is not None]
                if not cards:
                    raise MoveError(f"cardIds: missing for moveType {brief(name)}")
            kind = "random-discard" if name == "randomDiscard" else "discard"
            return cls._build(kind, cards, name)
        raise MoveError(f"moveType: unknown move type {brief(name)}")
