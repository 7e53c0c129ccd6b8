"""A slow, plain reference move generator written straight from RULES.md.

Two seats (``reference_moves``, sections 1-2): it reads the position file form (lists of
card strings), shares no code with the kernels, and returns the legal moves as text. The
property tests compare it with the fast generator on every decision of many random games.

N seats (``reference_moves_n``, sections 3.0-3.1, ``cutthroat``): see the second half.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from cuttle_search.engine import layout as L

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
    frozen = d.get("frozen") or []  # the cards 9s froze (one card in the older form)
    if isinstance(frozen, str):
        frozen = [frozen]
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
        out |= plays(t, [c for c in hands[t] if c not in frozen], len(deck))
        return out or {"pass"}
    if phase == "countering":
        n = len(d["twos"])
        decider = o if n % 2 == 0 else t
        chain_top = 1 - decider
        out = {"resolve"}
        if not queens(chain_top):
            out |= {f"counter {c}" for c in hands[decider] if rank(c) == "2" and c not in frozen}
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
        return {"resolve"} | {f"block {c}" for c in hands[o] if rank(c) == "T" and c not in frozen}
    if phase == "gameOver":
        return set()
    raise AssertionError(f"unknown phase {phase}")


__all__ = ["reference_moves", "card_str"]


# ====================================================================== N seats
# RULES.md section 3.0 and 3.1 (``cutthroat``). The position file has no seat-list form yet,
# so this part reads the raw engine state, field by field as engine/layout.py documents it,
# rebuilds the table (who controls what) from the Jack and Joker stacks itself, and writes
# the legal moves in the layout's move encoding. It shares no code with the kernels.

JOKER_IDS = (52, 53)
POINT_RANK_MAX = 9  # A..T
R_JACK, R_QUEEN, R_KING, R_EIGHT = 10, 11, 12, 7
R_TWO, R_THREE, R_FOUR, R_FIVE, R_SIX, R_SEVEN, R_NINE, R_ACE = 1, 2, 3, 4, 5, 6, 8, 0
NONE = 63


def cards_of(mask: int) -> list[int]:
    return [c for c in range(54) if (int(mask) >> c) & 1]


def rank_id(c: int) -> int:
    return 13 if c in JOKER_IDS else c >> 2


def move(mt: int, card: int = NONE, target: int = NONE, seven: bool = False) -> int:
    return mt | (L.FROM_SEVEN if seven else 0) | (card << 5) | (target << 11)


def discard_move(cards, mt: int = L.MT_DISCARD) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mt | (mask << 5)


def move_text(m: int) -> str:
    """A readable form of an encoded move, for failure messages."""
    m = int(m)
    names = {v: k[3:].lower() for k, v in vars(L).items() if k.startswith("MT_") and k != "MT_MASK"}
    mt = m & 15
    head = ("7:" if m & L.FROM_SEVEN else "") + names.get(mt, str(mt))
    if mt in (L.MT_DISCARD, L.MT_RANDOM_DISCARD):
        return head + " " + " ".join(card_str(c) for c in cards_of(m >> 5))
    c, t = (m >> 5) & 63, (m >> 11) & 63
    out = [head]
    if c != NONE:
        out.append(card_str(c))
    if t != NONE:
        out.append(f"p{t - L.TARGET_SEAT}" if t >= L.TARGET_SEAT else card_str(t))
    return " ".join(out)


@dataclass
class Table:
    """The table of an N-seat state, with control worked out from the stacks."""

    n: int
    phase: int
    turn: int
    actor: int
    hands: list[list[int]]
    owner: dict[int, int]  # point card on the table -> the seat that played it
    jacks: dict[int, list[tuple[int, int]]]  # point card -> [(jack, seat that played it)], bottom first
    jokers: dict[int, list[tuple[int, int, int]]]  # royal or jack -> [(joker, by, from)], bottom first
    face_seat: dict[int, int]  # royal on the table -> the seat whose royal zone holds it
    scrap: list[int]
    deck: list[int]  # bottom first; deck[-1] is the top
    frozen: list[list[int]]  # each seat's frozen cards (several 9s may hit one seat)
    victim: int
    revealed: list[int]
    twos: list[int]
    point_zone: dict[int, int] = field(default_factory=dict)  # point card -> seat whose F_POINTS holds it
    given_to: dict[int, int] = field(default_factory=dict)  # Jack or Joker -> the seat it gave control to
    spent: list[list[int]] = field(default_factory=list)  # multiplayer: the 2s waiting before each seat
    removed: list[int] = field(default_factory=list)  # remove-ace-six: cards out of the game

    def point_controller(self, c: int) -> int:
        stack = self.jacks.get(c, [])
        if not stack:
            return self.owner[c]
        top_jack, by = stack[-1]
        jk = self.jokers.get(top_jack, [])
        if jk:
            return self.given_to.get(jk[-1][0], jk[-1][1])
        return self.given_to.get(top_jack, by)

    def royal_controller(self, f: int) -> int:
        jk = self.jokers.get(f, [])
        return self.given_to.get(jk[-1][0], jk[-1][1]) if jk else self.face_seat[f]

    def points_of(self, q: int) -> list[int]:
        return sorted(c for c in self.owner if self.point_controller(c) == q)

    def royals_of(self, q: int) -> list[int]:
        return sorted(f for f in self.face_seat if self.royal_controller(f) == q)

    def queens(self, q: int) -> list[int]:
        return [f for f in self.royals_of(q) if rank_id(f) == R_QUEEN]

    def kings(self, q: int) -> int:
        return sum(1 for f in self.royals_of(q) if rank_id(f) == R_KING)

    def score(self, q: int) -> int:
        return sum(rank_id(c) + 1 for c in self.points_of(q))

    def top_jacks(self, q: int) -> list[int]:
        """Top Jacks of q's point stacks that carry no Joker (a 2 or a 9 may take them)."""
        out = []
        for c in self.points_of(q):
            stack = self.jacks.get(c, [])
            if stack and not self.jokers.get(stack[-1][0]):
                out.append(stack[-1][0])
        return out

    def joker_bases(self, q: int) -> list[int]:
        """Cards a Joker may go on against q: q's royals and the top Jacks of q's point stacks."""
        out = list(self.royals_of(q))
        for c in self.points_of(q):
            stack = self.jacks.get(c, [])
            if stack:
                out.append(stack[-1][0])
        return out

    def top_jokers(self, q: int) -> list[int]:
        """The top Joker of every stack q controls through it."""
        jack_tops = {st[-1][0] for st in self.jacks.values() if st}
        return [jk[-1][0] for base, jk in self.jokers.items()
                if jk and jk[-1][1] == q and (base in self.face_seat or base in jack_tops)]


def read_table(s) -> Table:
    s = [int(x) for x in s]
    n = s[L.F_NPLAYERS]
    owner = {}
    point_zone = {}
    face_seat = {}
    for p in range(n):
        for c in cards_of(s[L.F_OWNED + p]):
            owner[c] = p
        for c in cards_of(s[L.F_POINTS + p]):
            point_zone[c] = p
        for c in cards_of(s[L.F_FACE + p]):
            face_seat[c] = p
    jacks: dict[int, list] = {}
    given_to = {}
    for j in range(4):
        on = s[L.F_JACK_ON + j]
        if on >= 0:
            jacks.setdefault(on, []).append((s[L.F_JACK_LEVEL + j], 40 + j, s[L.F_JACK_BY + j]))
            given_to[40 + j] = s[L.F_JACK_TO + j]
    jacks = {c: [(jk, by) for _, jk, by in sorted(v)] for c, v in jacks.items()}
    jokers: dict[int, list] = {}
    for k in range(2):
        on = s[L.F_JOKER_ON + k]
        if on >= 0:
            jokers.setdefault(on, []).append((s[L.F_JOKER_LEVEL + k], 52 + k, s[L.F_JOKER_BY + k], s[L.F_JOKER_FROM + k]))
            given_to[52 + k] = s[L.F_JOKER_TO + k]
    jokers = {c: [(x, by, fr) for _, x, by, fr in sorted(v)] for c, v in jokers.items()}
    return Table(
        n=n,
        phase=s[L.F_PHASE],
        turn=s[L.F_TURN],
        actor=s[L.F_ACTOR],
        hands=[cards_of(s[L.F_HAND + p]) for p in range(n)],
        owner=owner,
        jacks=jacks,
        jokers=jokers,
        face_seat=face_seat,
        scrap=cards_of(s[L.F_SCRAP]),
        deck=[s[L.F_DECK + i] for i in range(s[L.F_DECK_N])],
        frozen=[cards_of(s[L.F_FROZEN + p]) for p in range(n)],
        victim=s[L.F_VICTIM],
        revealed=cards_of(s[L.F_REVEALED]),
        twos=cards_of(s[L.F_TWOS]),
        point_zone=point_zone,
        given_to=given_to,
        spent=[cards_of(s[L.F_SPENT + p]) for p in range(n)],
        removed=cards_of(s[L.F_REMOVED]),
    )


def table_errors(s, rules: Ruleset) -> list[str]:
    """What is wrong with the state as a table of ``rules`` (empty when it is sound): every
    card once, control as the stacks say, Jokers and Jacks only where they may sit."""
    t = read_table(s)
    s = [int(x) for x in s]
    errors = []
    seen: dict[int, int] = {}

    def put(c):
        seen[c] = seen.get(c, 0) + 1

    for p in range(t.n):
        for c in t.hands[p]:
            put(c)
    for c in list(t.point_zone) + list(t.face_seat) + t.scrap + t.deck + t.revealed + t.twos + t.removed:
        put(c)
    for sp in t.spent:
        for c in sp:
            put(c)
    for stack in t.jacks.values():
        for j, _ in stack:
            put(j)
    for stack in t.jokers.values():
        for x, _, _ in stack:
            put(x)
    for f in (L.F_ONEOFF, L.F_SEVEN, L.F_SCUTTLE_CARD):
        if s[f] >= 0:
            put(s[f])
    every = set(range(54 if rules.jokers else 52))
    if set(seen) != every or any(v != 1 for v in seen.values()):
        errors.append(f"cards: missing {sorted(every - set(seen))}, twice {sorted(c for c, v in seen.items() if v > 1)}")
    if set(t.owner) != set(t.point_zone):
        errors.append("point cards and their owners disagree")
    for c, p in t.point_zone.items():
        if rank_id(c) > POINT_RANK_MAX:
            errors.append(f"{card_str(c)} in points")
        elif c in t.owner and t.point_controller(c) != p:
            errors.append(f"{card_str(c)} is in p{p}'s points but the stack gives it to p{t.point_controller(c)}")
    for f, p in t.face_seat.items():
        if rank_id(f) not in (R_EIGHT, R_QUEEN, R_KING):
            errors.append(f"{card_str(f)} among royals")
        elif t.royal_controller(f) != p:
            errors.append(f"{card_str(f)} is in p{p}'s royals but its Jokers give it to p{t.royal_controller(f)}")
    for c, stack in t.jacks.items():
        if c not in t.owner:
            errors.append(f"jacks on {card_str(c)}, not a point card on the table")
        for j, _ in stack:
            if rank_id(j) != R_JACK:
                errors.append(f"{card_str(j)} as a jack")
    jack_ids = {j for st in t.jacks.values() for j, _ in st}
    for base, stack in t.jokers.items():
        if base not in t.face_seat and base not in jack_ids:
            errors.append(f"a Joker on {card_str(base)}, not a royal or a Jack on the table")
        below = None  # a royal's first holder is known only to its bottom Joker
        for st in t.jacks.values():
            for j, by in st:
                if j == base:
                    below = t.given_to.get(j, by)
        for x, by, frm in stack:
            if below is not None and frm != below:
                errors.append(f"{card_str(x)} on {card_str(base)} remembers p{frm}, not p{below}")
            below = t.given_to.get(x, by)
    for p in range(t.n):
        for c in t.frozen[p]:
            if c not in t.hands[p]:
                errors.append(f"p{p}'s frozen {card_str(c)} is not in p{p}'s hand")
    return errors


def reference_moves_n(s, rules: Ruleset) -> set[int]:
    """The legal moves of the pending decision of an N-seat state (``cutthroat``), encoded
    as the layout encodes moves, written from RULES.md 3.0-3.1. The seat asked in a counter
    chain and the 4's victim are read from the state (the tests check them separately)."""
    unmodelled = (
        rules.hand_limit != "block", rules.four != "choose", rules.nine != "frozen", not rules.nine_targets_points,
        rules.target_any_side, rules.jack_switches, rules.jack_on_own, not rules.queens_protect_queens,
        rules.eight_one_off, rules.ten_counters_scuttle, rules.teams, rules.queen_stops_counters,
        not rules.always_playable, not rules.five_discards, rules.seven_reveals != 2,
    )  # fmt: skip
    assert not any(unmodelled), f"the N-seat reference models cutthroat's options only, not {rules.spec}"
    t = read_table(s)
    n = t.n
    me = t.turn
    limit = rules.hand_limit_size
    opponents = [q for q in range(n) if q != me]

    def may_target(q: int, card: int) -> bool:
        """May a 2 or a 9 aim at ``card``, which seat q controls? (q's Queens only)"""
        qs = t.queens(q)
        if not qs:
            return True
        return len(qs) == 1 and card == qs[0]

    def plays(cards: list[int], seven: bool) -> set[int]:
        out = set()
        for c in cards:
            r = rank_id(c)
            if r <= POINT_RANK_MAX:
                out.add(move(L.MT_POINTS, c, seven=seven))
                for q in opponents:
                    for b in t.points_of(q):
                        if b < c:
                            out.add(move(L.MT_SCUTTLE, c, b, seven))
            if r in (R_EIGHT, R_QUEEN, R_KING):
                out.add(move(L.MT_ROYAL, c, seven=seven))
            if r == R_JACK:
                for q in opponents:
                    if not t.queens(q):
                        out |= {move(L.MT_JACK, c, b, seven) for b in t.points_of(q)}
            if r == 13:  # a Joker onto a royal or a top Jack; a lone Queen is open to it
                for q in opponents:
                    out |= {move(L.MT_JOKER, c, b, seven) for b in t.joker_bases(q) if may_target(q, b)}
            if r in (R_ACE, R_THREE, R_FIVE, R_SIX, R_SEVEN):
                out.add(move(L.MT_ONE_OFF, c, seven=seven))
            elif r == R_FOUR:
                out |= {move(L.MT_ONE_OFF, c, L.TARGET_SEAT + q, seven) for q in opponents}
            elif r in (R_TWO, R_NINE):
                for q in opponents:
                    targets = t.royals_of(q) + t.top_jacks(q) + t.top_jokers(q)
                    if r == R_NINE:
                        targets += t.points_of(q)
                    out |= {move(L.MT_ONE_OFF, c, x, seven) for x in targets if may_target(q, x)}
        return out

    def has_play(c: int) -> bool:
        return bool(plays([c], True))

    def discards(hand: list[int], k: int) -> set[int]:
        k = min(k, len(hand))
        return {discard_move(combo) for combo in combinations(hand, k)}

    if t.phase == L.PH_MAIN:
        hand = t.hands[me]
        out = set()
        can_draw = bool(t.deck) and len(hand) < limit
        if can_draw:
            out.add(move(L.MT_DRAW))
        out |= plays([c for c in hand if c not in t.frozen[me]], False)
        if not t.deck or not out:  # an empty deck, or the no-dead-end pass
            out.add(move(L.MT_PASS))
        return out
    if t.phase == L.PH_COUNTER:
        a = t.actor
        out = {move(L.MT_RESOLVE)}
        out |= {move(L.MT_COUNTER, c) for c in t.hands[a] if rank_id(c) == R_TWO and c not in t.frozen[a]}
        return out
    if t.phase == L.PH_THREE:
        return {move(L.MT_TAKE, c) for c in t.scrap if rules.three_takes_three or rank_id(c) != R_THREE}
    if t.phase == L.PH_FOUR:
        return discards(t.hands[t.victim], 2)
    if t.phase == L.PH_FIVE:
        return discards(t.hands[me], 1)
    if t.phase == L.PH_SEVEN:
        out = plays(t.revealed, True)
        out |= {move(L.MT_SEVEN_SCRAP, c) for c in t.revealed
                if rank_id(c) in (R_JACK, 13) and not has_play(c)}
        return out
    if t.phase == L.PH_OVER:
        return set()
    raise AssertionError(f"phase {t.phase} cannot happen in {rules.name}")


__all__ += ["reference_moves_n", "read_table", "table_errors", "move_text", "Table"]


# ====================================================================== team and multiplayer
# RULES.md 3.2 (``team``) and 3.3 (``multiplayer``) with the rulings of docs/rules.md, written
# plainly from the text: who may be targeted, receivers of Jacks and Jokers, the answering 9,
# the waiting counters, the reshuffle that makes drawing possible while the scrap holds cards.


def gift(mt: int, card: int, target: int, receiver: int, seven: bool = False) -> int:
    return move(mt, card, target, seven) | ((receiver + 1) << 17)


def reference_moves_tm(s, rules: Ruleset) -> set[int]:
    """The legal moves of the pending decision of a ``team`` or ``multiplayer`` state."""
    assert rules.name in ("team", "multiplayer"), rules.name
    team = rules.name == "team"
    t = read_table(s)
    sv = [int(x) for x in s]
    n = t.n
    me = t.turn

    def side(a: int, b: int) -> bool:
        return a == b or (team and (a - b) % 4 == 2)

    def opponents_of(a: int) -> list[int]:
        return [q for q in range(n) if not side(a, q)]

    def ctrl_of(x: int) -> int:
        """Who controls the stack a Jack or Joker would go on."""
        if rank_id(x) == R_JACK:
            base = next(c for c, st in t.jacks.items() if any(j == x for j, _ in st))
            return t.point_controller(base)
        if x in t.face_seat:
            return t.royal_controller(x)
        return t.point_controller(x)

    def open_to_single(q: int, x: int, by: int) -> bool:
        """May an opponent of q aim a card of rank ``by`` (a 2, a 9, or 13 for a Joker) at q's card x?"""
        qs = t.queens(q)
        if not qs:
            return True
        if team:  # cuttle-cards: one Queen only itself, two or more nothing
            return len(qs) == 1 and x == qs[0]
        # multiplayer: while q controls a Queen no 9 (and no Jack) may target any of its cards,
        # its Queens included; a 2 may target only its Queens
        return by == R_TWO and rank_id(x) == R_QUEEN

    def tops(q: int) -> list[int]:
        """The tops of q's stacks a 2 or 9 may take off: top Jacks with no Joker, top Jokers."""
        out = []
        for c in t.points_of(q):
            st = t.jacks.get(c, [])
            if st:
                jk = t.jokers.get(st[-1][0], [])
                out.append(jk[-1][0] if jk else st[-1][0])
        for f in t.royals_of(q):
            jk = t.jokers.get(f, [])
            if jk:
                out.append(jk[-1][0])
        return out

    def permanents(q: int) -> list[int]:
        return t.royals_of(q) + tops(q)

    def plays(cards: list[int], seven: bool, deck_after: int) -> set[int]:
        out = set()
        for c in cards:
            r = rank_id(c)
            if r <= POINT_RANK_MAX:
                out.add(move(L.MT_POINTS, c, seven=seven))
                if team:
                    for q in opponents_of(me):
                        out |= {move(L.MT_SCUTTLE, c, b, seven) for b in t.points_of(q) if b < c}
            if r in (R_EIGHT, R_QUEEN, R_KING):
                out.add(move(L.MT_ROYAL, c, seven=seven))
            if r == R_JACK:
                targets = []
                for q in range(n):
                    if side(me, q) and team:
                        targets += t.points_of(q)
                    elif not side(me, q) and not t.queens(q):
                        targets += t.points_of(q)
                for b in targets:
                    if team:
                        out |= {gift(L.MT_JACK, c, b, x, seven) for x in range(n) if x != t.point_controller(b)}
                    else:
                        out.add(move(L.MT_JACK, c, b, seven))
            if r == 13:
                for q in range(n):
                    bases = t.royals_of(q) + [t.jacks[b][-1][0] for b in t.points_of(q) if t.jacks.get(b)]
                    if not side(me, q):
                        bases = [x for x in bases if open_to_single(q, x, 13)]
                    for b in bases:
                        out |= {gift(L.MT_JOKER, c, b, x, seven) for x in range(n) if x != ctrl_of(b)}
            if r in (R_ACE, R_SIX):
                out.add(move(L.MT_ONE_OFF, c, seven=seven))
            elif r == R_THREE:
                if not team or any(rank_id(x) != R_THREE for x in t.scrap):
                    out.add(move(L.MT_ONE_OFF, c, seven=seven))
            elif r == R_FOUR:
                if team:
                    out |= {move(L.MT_ONE_OFF, c, L.TARGET_SEAT + q, seven) for q in opponents_of(me) if t.hands[q]}
                elif n == 2 or True:
                    out.add(move(L.MT_ONE_OFF, c, seven=seven))
            elif r in (R_FIVE, R_SEVEN):
                if not team or deck_after >= 1:
                    out.add(move(L.MT_ONE_OFF, c, seven=seven))
            elif r in (R_TWO, R_NINE):
                for q in opponents_of(me):
                    targets = permanents(q)
                    if r == R_NINE and team:
                        targets += t.points_of(q)
                    out |= {move(L.MT_ONE_OFF, c, x, seven) for x in targets if open_to_single(q, x, r)}
        return out

    if t.phase == L.PH_MAIN:
        if not team and t.spent[me]:
            return {move(L.MT_FORFEIT)}
        hand = t.hands[me]
        out = set()
        if team:
            if t.deck and len(hand) < rules.hand_limit_size:
                out.add(move(L.MT_DRAW))
            if not t.deck:
                out.add(move(L.MT_PASS))
        else:
            # a reshuffle brings the scrap back, but for the Ace and the Six remove-ace-six takes out
            back = list(t.scrap)
            if rules.remove_ace_six:
                for rank in (0, 5):
                    ours = sorted(c for c in back if c >> 2 == rank)
                    if ours:
                        back.remove(ours[0])
            if t.deck or back:
                out.add(move(L.MT_DRAW))
            else:
                out.add(move(L.MT_PASS))
        out |= plays([c for c in hand if c not in t.frozen[me]], False, len(t.deck))
        return out or {move(L.MT_PASS)}
    if t.phase == L.PH_COUNTER:
        a = t.actor
        out = {move(L.MT_RESOLVE)}
        if team and t.queens(sv[L.F_CHAIN_TOP]):
            return out
        return out | {move(L.MT_COUNTER, c) for c in t.hands[a] if rank_id(c) == R_TWO and c not in t.frozen[a]}
    if t.phase == L.PH_RESPONSE:
        a = t.actor
        royal = sv[L.F_RESPONSE]
        return {move(L.MT_RESOLVE)} | {move(L.MT_ONE_OFF, c, royal) for c in t.hands[a]
                                       if rank_id(c) == R_NINE and c not in t.frozen[a]}
    if t.phase == L.PH_THREE:
        return {move(L.MT_TAKE, c) for c in t.scrap if not team or rank_id(c) != R_THREE}
    if t.phase == L.PH_FOUR:
        hand = t.hands[t.victim]
        return {discard_move(x) for x in combinations(hand, min(2, len(hand)))}
    if t.phase == L.PH_FIVE:
        return {discard_move([c]) for c in t.hands[me]}
    if t.phase == L.PH_HAND_LIMIT:
        return {discard_move([c]) for c in t.hands[me]}
    if t.phase == L.PH_SEVEN:
        out = plays(t.revealed, True, len(t.deck) + len(t.revealed) - 1)
        if not out:  # (Team keeps the two-seat rule: a card is scrapped only when none plays)
            out = {move(L.MT_SEVEN_SCRAP, c) for c in t.revealed}
        return out
    if t.phase == L.PH_OVER:
        return set()
    raise AssertionError(f"phase {t.phase} cannot happen in {rules.name}")


__all__ += ["reference_moves_tm"]
