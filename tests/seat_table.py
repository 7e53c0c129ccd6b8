"""Scenario positions for the games of more seats, written in the seat-list position form
(cuttle_search/game/formats/seat_list.py), played by move text and read back zone by zone.

``SeatTable(rules, hands=..., points=..., royals=...)`` names the cards that matter; the
rest fill the deck below ``deck_top`` in card order (``rest="deck"``; those past what the
deal leaves in the deck go to the scrap) or go to the scrap (``rest="scrap"``). ``points`` and ``royals`` are keyed by the seat that played the base
card, stacks written as in a position file (``7C(JH-p0>p2)``). Every move must be legal;
after each the table is checked (every card once, control as the stacks say)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from cuttle_search.engine import layout as L
from cuttle_search.engine.setup import POSITION_ERRORS, check_invariants, largest_deck
from cuttle_search.game.cards import card_str, parse_card
from cuttle_search.game.position import Position
from cuttle_search.game.rules import get_ruleset

from .reference import cards_of, table_errors


def _tokens(text: str) -> list[str]:
    out = []
    for tok in re.split(r"[(),\s]+", text):
        tok = re.sub(r"-p\d(>p\d)?$", "", tok)
        if tok:
            out.append(tok)
    return out


def strs(mask) -> list[str]:
    return [card_str(c) for c in cards_of(int(mask))]


class SeatTable:
    def __init__(self, rules: str, hands, points=None, royals=None, *, scrap=(), deck_top=(), rest="deck",
                 turn: int = 0, frozen=None, counters=None, removed=(), passes: int = 0, **extra: Any):
        self.rules = get_ruleset(rules)
        n = self.rules.players
        assert len(hands) == n
        named: list[str] = []
        seats = []
        for q in range(n):
            seat = {"hand": list(hands[q]), "points": list((points or {}).get(q, [])),
                    "royals": list((royals or {}).get(q, [])), "frozen": (frozen or {}).get(q)}
            if counters and counters.get(q):
                seat["counters"] = list(counters[q])
            for key in ("hand", "points", "royals", "counters"):
                for item in seat.get(key, []):
                    named += _tokens(item)
            seats.append(seat)
        named += list(scrap) + list(removed) + list(deck_top)
        for key in ("oneOff", "response"):
            if extra.get(key):
                named.append(extra[key])
        for item in extra.get("twos", []):
            named += _tokens(item)
        assert len(set(named)) == len(named), f"a card named twice: {named}"
        every = 54 if self.rules.jokers else 52
        others = [card_str(c) for c in range(every) if card_str(c) not in set(named)]
        data: dict[str, Any] = {"format": "cuttle-search/position", "version": 2, "rules": self.rules.name,
                                "view": "full", "dealer": f"p{(turn - 1) % n}", "turn": 0, "phase": "main",
                                "seats": seats, "passes": passes}
        if self.rules.overrides:
            data["options"] = self.rules.options()
        self.filler: list[str] = []
        if rest == "deck":
            # no more in the deck than the deal leaves there (largest_deck): the last of the
            # other cards that do not fit go to the scrap (``scrap()`` leaves them out)
            probe = np.zeros(L.STATE_SIZE, np.int64)
            probe[L.F_ACTIONS] = extra.get("actions") or 0
            room = int(largest_deck(probe, self.rules.array)) - len(deck_top) - len(extra.get("revealed") or [])
            keep = max(0, min(len(others), room))
            others, self.filler = others[:keep], others[keep:]
            data["deck"] = list(deck_top) + others
            data["scrap"] = list(scrap) + self.filler
        else:
            data["deck"] = list(deck_top)
            data["scrap"] = list(scrap) + others
        if removed:
            data["removed"] = list(removed)
        data.update(extra)
        self.pos = Position.from_dict(data)
        self.history: list[str] = []
        self._check()

    # ---------------------------------------------------------------- playing
    def moves(self) -> set[str]:
        return {m.text() for m in self.pos.legal_moves()}

    def with_prefix(self, prefix: str) -> set[str]:
        return {m for m in self.moves() if m.startswith(prefix)}

    def play(self, *texts: str) -> "SeatTable":
        for text in texts:
            legal = self.moves()
            assert text in legal, f"{text!r} is not legal after {self.history}: legal {sorted(legal)}"
            self.pos.play(text)
            self.history.append(text)
            self._check()
        return self

    def _check(self):
        err = int(check_invariants(self.pos.state, self.rules.array))
        assert err == 0, POSITION_ERRORS.get(err)
        assert table_errors(self.pos.state, self.rules) == []

    # ---------------------------------------------------------------- reading
    @property
    def s(self):
        return self.pos.state

    def hand(self, p) -> list[str]:
        return strs(self.s[L.F_HAND + p])

    def points(self, p) -> list[str]:
        """Point cards seat p controls."""
        return strs(self.s[L.F_POINTS + p])

    def royals(self, p) -> list[str]:
        """Royals seat p controls."""
        return strs(self.s[L.F_FACE + p])

    def stacks(self, p) -> list[str]:
        """Seat p's point stacks as the position file writes them (under their owner)."""
        return self.pos.to_dict()["seats"][p]["points"]

    def royal_stacks(self, p) -> list[str]:
        return self.pos.to_dict()["seats"][p]["royals"]

    def counters(self, p) -> list[str]:
        return strs(self.s[L.F_SPENT + p])

    def public(self, p) -> list[str]:
        return strs(self.s[L.F_PUBLIC + p])

    def frozen(self, p) -> list[str]:
        """Seat p's frozen cards."""
        return strs(self.s[L.F_FROZEN + p])

    def scrap(self) -> list[str]:
        """The scrap but for the cards the table put there only to keep the deck reachable."""
        return [c for c in strs(self.s[L.F_SCRAP]) if c not in self.filler]

    def removed(self) -> list[str]:
        return strs(self.s[L.F_REMOVED])

    def deck(self) -> list[str]:
        """Top first."""
        n = int(self.s[L.F_DECK_N])
        return [card_str(int(self.s[L.F_DECK + i])) for i in range(n - 1, -1, -1)]

    def goal(self, p) -> int:
        return self.pos.goal(p)

    def score(self, p) -> int:
        return self.pos.points(p)

    @property
    def phase(self) -> str:
        return self.pos.phase_name

    @property
    def turn(self) -> int:
        return self.pos.turn_player

    @property
    def actor(self) -> int:
        return self.pos.actor

    @property
    def over(self) -> bool:
        return self.pos.is_over

    def result(self) -> tuple[int, int]:
        return int(self.s[L.F_STATUS]), int(self.s[L.F_WINNER])

    def card_count(self) -> int:
        """Cards in every zone, removed ones included."""
        from .reference import read_table

        t = read_table(self.s)
        n = sum(len(h) for h in t.hands) + len(t.point_zone) + len(t.face_seat) + len(t.scrap) + len(t.deck)
        n += len(t.revealed) + len(t.twos) + sum(len(st) for st in t.jacks.values())
        n += sum(len(st) for st in t.jokers.values())
        n += len(cards_of(self.s[L.F_REMOVED])) + sum(len(cards_of(self.s[L.F_SPENT + q])) for q in range(t.n))
        for f in (L.F_ONEOFF, L.F_SEVEN):
            n += int(self.s[f] >= 0)
        return n


def card(text: str) -> int:
    return parse_card(text)


EVERY_CARD = [f"{r}{s}" for r in "A23456789TJQK" for s in "CDHS"]


def piles_empty(rules: str, first_hand, scrap=(), royal_ranks="Q8", **kw) -> SeatTable:
    """A table of ``rules`` (no Jokers) with both piles empty: Queens and 8s as royals, the
    Jacks and the lowest point cards on the table (each seat under its goal), the rest in
    hands of at most 7 cards; seat 0 holds ``first_hand``."""
    n = get_ruleset(rules).players
    first = list(first_hand)
    pool = [c for c in EVERY_CARD if c not in first and c not in scrap and c not in kw.get("removed", ())]
    royal_cards = [c for c in pool if c[0] in royal_ranks]
    jacks = [c for c in pool if c[0] == "J"]
    low = [c for c in pool if c[0] in "A23456"]
    others = [c for c in pool if c not in royal_cards + jacks + low]
    royals = {q: [] for q in range(n)}
    for i, c in enumerate(royal_cards):
        royals[i % n].append(c)
    points = {q: [] for q in range(n)}
    room = 7 * n - len(first)
    rest = others + low[::-1]  # highest first into hands
    on_table = []
    while len(rest) > room - 0:
        on_table.append(rest.pop())
    for i, c in enumerate(on_table):
        points[i % n].append(c)
    # the Jacks: in hands if there is room, else each on a point card of the next seat
    for j in jacks:
        if len(rest) < room:
            rest.append(j)
        else:
            q = len([x for x in points.values() for y in x if "(" in y]) % n
            k = next(i for i, x in enumerate(points[q]) if "(" not in x)
            points[q][k] = f"{points[q][k]}({j}-p{(q + 1) % n})"
    hands = [first] + [[] for _ in range(n - 1)]
    for i, c in enumerate(rest):
        hands[n - 1 - i % (n - 1)].append(c)
    spill = [c for h in hands[1:] for c in h[7:]]
    for h in hands[1:]:
        del h[7:]
    hands[0] += spill
    return SeatTable(rules, hands, points, royals, rest="deck", scrap=scrap, **kw)
