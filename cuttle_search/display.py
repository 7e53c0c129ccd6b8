"""The board as a person reads it."""

from __future__ import annotations

import textwrap

from .game.cards import card_str, cards_in
from .engine import layout as L
from .engine.seats import partner, seat_after
from .game.formats import taken_stacks
from .game.position import Position
from .game.seats import seat_name


WIDTH = 100  # the board fits a terminal this wide, whatever the seats

# the decision pending, in plain words to the seat deciding, by the phase name Position.phase_name
# gives (the terminal's move list and the page's status say it)
PHASE_WORDS = {
    "main": "your turn",
    "countering": "a one-off waits: counter it or not",
    "resolvingThree": "your 3: take a card from the scrap",
    "resolvingFour": "a 4 makes you discard",
    "resolvingFourRandom": "a 4's discards, drawn at random",
    "resolvingFive": "your 5: discard, then draw",
    "discardingToHandLimit": "discard down to the hand limit",
    "resolvingSeven": "your 7: play a card it turned up",
    "counteringScuttle": "a scuttle waits: block it or let it stand",
    "answeringRoyal": "a royal waits: send it back with a 9 or let it stand",
    "gameOver": "the game is over",
}


def _who(pos: Position, p: int, you: int | None) -> str:
    tag = seat_name(p)
    mate = int(partner(pos.state, pos.rules_array, p))
    if mate >= 0:
        tag += f" [team {seat_name(min(p, mate))}+{seat_name(max(p, mate))}]"
    if you == p:
        tag += " (you)"
    return tag


def line_text(line: list, known: int | None) -> str:
    """A principal variation for a person: its moves, with those from the first that shows
    a card the viewer cannot see (``known``, None for none) in brackets, since they follow
    the deals the search guessed (``MoveStat.pv_known``)."""
    moves = [m.text() for m in line]
    if known is None or known >= len(moves):
        return ", ".join(moves)
    seen, guessed = ", ".join(moves[:known]), "[" + ", ".join(moves[known:]) + "]"
    return f"{seen}, {guessed}" if seen else guessed


def result_text(pos: Position) -> str:
    """``won, p1 and p3 win`` (both partners of a Team win), ``stalemate (three passes)``."""
    winners = [seat_name(q) for q in pos.winners()]
    return pos.result()["status"] + (f", {' and '.join(winners)} win{'s' * (len(winners) == 1)}" if winners else "")


def describe_decision(pos: Position) -> str:
    """``p1 to act: countering`` and the like."""
    if pos.is_over:
        return f"game over: {result_text(pos)}"
    actor = "chance" if pos.actor == L.ACTOR_CHANCE else seat_name(pos.actor)
    return f"{actor} to act ({pos.phase_name})"


def _seat_cards(d: dict, p: int) -> tuple[list[str], list[str], list[str]]:
    """(points, royals, hand) of seat ``p`` as the file form writes them (either form)."""
    if "seats" in d:
        seat = d["seats"][p]
        return seat["points"], seat["royals"], seat["hand"]
    return d[f"{seat_name(p)}Points"], d[f"{seat_name(p)}FaceCards"], d[f"{seat_name(p)}Hand"]


def board_order(pos: Position, you: int | None = None) -> list[int]:
    """The seats from the top of a board to the bottom: the others in turn order after the
    seat at the bottom, which is ``you`` (the person's seat, on a full-information board such
    as a game's end), else the view's seat, else p0. Every front end draws them so."""
    bottom = pos.seat(you, "you") if you is not None else pos.view if pos.view is not None else 0
    return [int(seat_after(pos.state, bottom, k)) for k in range(1, pos.players)] + [bottom]


def render(pos: Position, you: int | None = None) -> str:
    """A plain-text board: the other seats on top in turn order after the viewer (the
    viewer's opponent, with two seats), the viewer at the bottom, hidden cards as ``??``.
    ``you``: the person's seat, kept at the bottom and marked ``(you)`` on a full-information
    board too (a game's end); by default the view's seat. With more seats, stacks are listed
    under the seat that played them and show who holds each Jack or Joker, and the seat that
    controls a stack another seat played lists it again (``controls:``)."""
    d = pos.to_dict()
    *tops, bottom = board_order(pos, you)
    you = pos.view if you is None else bottom
    view = "full information" if pos.view is None else f"{seat_name(pos.view)}'s view"
    whose = "" if pos.is_over else f"{seat_name(pos.turn_player)}'s turn · "  # (nobody's once the game is over)
    header = f"{pos.rules.spec} · turn {pos.turn_count} · {whose}{describe_decision(pos)} · {view}"
    lines = textwrap.wrap(header, WIDTH, subsequent_indent="  ") + [""]

    def side(p: int) -> list[str]:
        kings = bin(pos.face(p) & L.KINGS).count("1")
        points, royals, hand = _seat_cards(d, p)
        out = [f"{_who(pos, p, you)}  {pos.points(p)}/{pos.goal(p)} points" + (f" ({kings} king{'s' * (kings != 1)})" if kings else "")]
        out.append("  points:  " + (" ".join(points) or "-"))
        out.append("  royals:  " + (" ".join(royals) or "-"))
        taken = taken_stacks(pos, p)
        if taken:
            out.append("  controls: " + " ".join(f"{card} (played by {seat_name(q)})" for card, q in taken))
        fz = pos.frozen(p)
        extra = f"   frozen: {' '.join(card_str(c) for c in cards_in(fz))}" if fz else ""
        out.append(f"  hand ({len(hand)}): " + (" ".join(hand) or "-") + extra)
        if pos.spent(p):
            waiting = " ".join(card_str(c) for c in range(L.N_CARDS) if (pos.spent(p) >> c) & 1)
            out.append(f"  countered out of turn: {waiting} (its next turn discards them)")
        return out

    for top in tops:
        lines += side(top)
        lines.append("")
    deck = d["deck"]
    known = [c for c in deck if c != "??"] if pos.view is not None else deck[: pos.deck_known]
    deck_line = f"deck: {len(deck)} cards"
    if pos.view is None and deck:
        deck_line += f", top first: {' '.join(deck[:8])}{' …' if len(deck) > 8 else ''}"
    elif known:
        deck_line += f", known on top: {' '.join(known)}"
    lines.append(deck_line)
    lines += textwrap.wrap(f"scrap ({len(d['scrap'])}): " + (" ".join(d["scrap"]) or "-"), WIDTH, subsequent_indent="  ")
    if d.get("removed"):
        lines.append("out of the game: " + " ".join(d["removed"]))
    if d.get("response"):
        lines.append(f"answer window: {d['response']} may be sent back by an opponent's 9")
    if d["oneOff"]:
        pending = f"pending one-off: {d['oneOff']}" + (f" -> {d['oneOffTarget']}" if d["oneOffTarget"] else "")
        if d.get("oneOffBy"):
            pending += f" (played by {d['oneOffBy']})"
        if d["twos"]:
            pending += f", countered by {' '.join(d['twos'])}"
        lines.append(pending)
    if d.get("revealed"):
        lines.append("revealed by a 7: " + " ".join(d["revealed"]))
    if d.get("scuttle"):
        lines.append(f"pending scuttle: {d['scuttle']['cardId']} onto {d['scuttle']['targetId']}")
    if pos.passes:
        lines.append(f"consecutive passes: {pos.passes}")
    lines.append("")
    lines += side(bottom)
    return "\n".join(lines)

