"""The board as a person reads it."""

from __future__ import annotations

from .game.cards import card_str
from .engine import layout as L
from .game.position import Position, seat_name


def _who(pos: Position, p: int) -> str:
    tag = seat_name(p)
    if pos.view == p:
        tag += " (you)"
    return tag


def describe_decision(pos: Position) -> str:
    """``p1 to act: countering`` and the like."""
    if pos.is_over:
        res = pos.result()
        return f"game over: {res['status']}" + (f", {res['winner']} wins" if res["winner"] else "")
    actor = "chance" if pos.actor == L.ACTOR_CHANCE else seat_name(pos.actor)
    return f"{actor} to act ({pos.phase_name})"


def render(pos: Position) -> str:
    """A plain-text board: the opponent of the viewer on top, hidden cards as ``??``."""
    s = pos.state
    d = pos.to_dict()
    bottom = pos.view if pos.view is not None else 0
    top = 1 - bottom
    view = "full information" if pos.view is None else f"{seat_name(pos.view)}'s view"
    lines = [
        f"{pos.rules.spec} · turn {int(s[L.F_TURN_COUNT])} · {seat_name(pos.turn_player)}'s turn · {describe_decision(pos)} · {view}",
        "",
    ]

    def side(p: int) -> list[str]:
        kings = bin(int(s[L.F_FACE + p]) & L.KINGS).count("1")
        out = [f"{_who(pos, p)}  {pos.points(p)}/{pos.goal(p)} points" + (f" ({kings} king{'s' * (kings != 1)})" if kings else "")]
        out.append("  points:  " + (" ".join(d[f"p{p}Points"]) or "-"))
        out.append("  royals:  " + (" ".join(d[f"p{p}FaceCards"]) or "-"))
        hand = d[f"p{p}Hand"]
        fz = int(s[L.F_FROZEN + p])
        extra = f"   frozen: {card_str(fz)}" if fz >= 0 else ""
        out.append(f"  hand ({len(hand)}): " + (" ".join(hand) or "-") + extra)
        return out

    lines += side(top)
    lines.append("")
    deck = d["deck"]
    known = [c for c in deck if c != "??"] if pos.view is not None else deck[: int(s[L.F_DECK_KNOWN])]
    deck_line = f"deck: {len(deck)} cards"
    if pos.view is None and deck:
        deck_line += f", top first: {' '.join(deck[:8])}{' …' if len(deck) > 8 else ''}"
    elif known:
        deck_line += f", known on top: {' '.join(known)}"
    lines.append(deck_line)
    lines.append(f"scrap ({len(d['scrap'])}): " + (" ".join(d["scrap"]) or "-"))
    if d["oneOff"]:
        pending = f"pending one-off: {d['oneOff']}" + (f" -> {d['oneOffTarget']}" if d["oneOffTarget"] else "")
        if d["twos"]:
            pending += f", countered by {' '.join(d['twos'])}"
        lines.append(pending)
    if d.get("revealed"):
        lines.append("revealed by a 7: " + " ".join(d["revealed"]))
    if d.get("scuttle"):
        lines.append(f"pending scuttle: {d['scuttle']['cardId']} onto {d['scuttle']['targetId']}")
    if int(s[L.F_PASSES]):
        lines.append(f"consecutive passes: {int(s[L.F_PASSES])}")
    lines.append("")
    lines += side(bottom)
    return "\n".join(lines)

