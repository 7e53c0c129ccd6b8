"""A slow, plain reference move generator written straight from RULES.md.

It reads the position file form (lists of card strings), shares no code with the
kernels, and returns the legal moves as text. The property tests compare it with the
fast generator on every decision of many random games.
"""

from __future__ import annotations

from itertools import combinations

from cuttle_search.game.cards import card_str, parse_card
from cuttle_search.game.rules import Ruleset

RANK = "A23456789TJQK"


def rank(card: str) -> str:
    return card[0]


def _stack(text: str) -> tuple[str, list[tuple[str, int]]]:
    if "(" not in text:
        return text, []
    base, rest = text.split("(", 1)
    jacks = [(j.split("-")[0], int(j.split("-p")[1])) for j in rest.rstrip(")").split(",")]
    return base, jacks


def _cid(card: str) -> int:
    return parse_card(card)


def _sorted(cards) -> list[str]:
    return sorted(cards, key=_cid)


def reference_moves(d: dict, rules: Ruleset) -> set[str]:
    phase = d["phase"]
    t = d["turn"] % 2
    o = 1 - t
    hands = {p: list(d[f"p{p}Hand"]) for p in (0, 1)}
    points = {p: [_stack(x) for x in d[f"p{p}Points"]] for p in (0, 1)}
    faces = {p: list(d[f"p{p}FaceCards"]) for p in (0, 1)}
    deck = d["deck"]
    scrap = d["scrap"]
    frozen = d.get("frozen")
    limit = rules.hand_limit_size

    def queens(p):
        return [c for c in faces[p] if rank(c) == "Q"]

    def may_target(p, card):
        """Can the player opposite p target p's card with a 2, 9 or jack?"""
        q = queens(p)
        if not q:
            return True
        if rank(card) == "Q":
            return len(q) == 1 or not rules.queens_protect_queens
        return False

    def top_jacks(p):
        return [jacks[-1][0] for _, jacks in points[p] if jacks]

    def plays(me: int, cards: list[str], cards_left_to_draw: int) -> set[str]:
        opp = 1 - me
        out = set()
        for c in cards:
            r = rank(c)
            if r in "A23456789T":
                out.add(f"points {c}")
                for base, _ in points[opp]:
                    if _cid(base) < _cid(c):
                        out.add(f"scuttle {c} {base}")
            if r == "8":
                out.add(f"glasses {c}")
            if r in "QK":
                out.add(f"royal {c}")
            if r == "J":
                targets = [b for b, _ in points[opp] if may_target(opp, b)]
                if rules.jack_on_own:
                    targets += [b for b, _ in points[me]]
                out |= {f"jack {c} {x}" for x in targets}
            perm = [x for x in faces[opp] + top_jacks(opp) if may_target(opp, x)]
            if rules.target_any_side:
                perm += faces[me] + top_jacks(me)
            if r in "A6":
                out.add(f"one-off {c}")
            elif r == "2":
                out |= {f"one-off {c} {x}" for x in perm}
            elif r == "9":
                targets = list(perm)
                if rules.nine_targets_points:
                    targets += [b for b, _ in points[opp] if may_target(opp, b)]
                out |= {f"one-off {c} {x}" for x in targets}
            elif r == "3":
                if any(rules.three_takes_three or rank(x) != "3" for x in scrap):
                    out.add(f"one-off {c}")
            elif r == "4":
                if hands[opp]:
                    out.add(f"one-off {c}")
            elif r in "57":
                if cards_left_to_draw >= 1:
                    out.add(f"one-off {c}")
            elif r == "8" and rules.eight_one_off:
                out |= {f"one-off {c} {x}" for x in faces[opp] if rank(x) == "8" and may_target(opp, x)}
        return out

    def discards(kind: str, hand: list[str], k: int) -> set[str]:
        k = min(k, len(hand))
        return {kind + " " + " ".join(_sorted(combo)) for combo in combinations(hand, k)}

    if phase == "main":
        out = set()
        if deck:
            if rules.hand_limit != "block" or len(hands[t]) < limit:
                out.add("draw")
        else:
            out.add("pass")
        out |= plays(t, [c for c in hands[t] if c != frozen], len(deck))
        return out or {"pass"}
    if phase == "countering":
        n = len(d["twos"])
        decider = o if n % 2 == 0 else t
        chain_top = 1 - decider
        out = {"resolve"}
        if not queens(chain_top):
            out |= {f"counter {c}" for c in hands[decider] if rank(c) == "2" and c != frozen}
        return out
    if phase == "resolvingThree":
        return {f"take {c}" for c in scrap if rules.three_takes_three or rank(c) != "3"}
    if phase == "resolvingFour":
        return discards("discard", hands[o], 2)
    if phase == "resolvingFourRandom":
        return discards("random-discard", hands[o], 2)
    if phase == "resolvingFive":
        return discards("discard", hands[t], 1)
    if phase == "discardingToHandLimit":
        return discards("discard", hands[t], len(hands[t]) - limit)
    if phase == "resolvingSeven":
        rev = d["revealed"]
        out = plays(t, rev, len(deck) + len(rev) - 1)
        return out or {f"scrap {c}" for c in rev}
    if phase == "counteringScuttle":
        return {"resolve"} | {f"block {c}" for c in hands[o] if rank(c) == "T" and c != frozen}
    if phase == "gameOver":
        return set()
    raise AssertionError(f"unknown phase {phase}")


__all__ = ["reference_moves", "card_str"]
