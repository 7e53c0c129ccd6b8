"""The JSON the browser board draws: boards, legal moves, game sessions, analyses, reviews.

Everything here reads a :class:`Position` (its file form, ``to_dict``, and its queries),
a :class:`GameSession` or an analysis result; nothing decides a rule. A board is the
position file's zones seat by seat, with each stack written out as cards (the notation
``TH(JH-p0,JC-p1)`` split into the base card and what sits on it), the engine's point
totals and goals, and who decides. A legal move carries its notation and the cards it
touches (the played card, its target, a discard set), so the page can highlight the moves
of a clicked card without knowing what any card does.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ..display import PHASE_WORDS, board_order, describe_decision
from ..engine.seats import partner
from ..game.cards import card_str
from ..game.formats import taken_stacks
from ..game.moves import Move
from ..game.position import Position, seat_name

HIDDEN = "??"


def card_item(text: str) -> dict[str, Any]:
    """One written card with its marks: ``JH-p0>p2`` is JH played by p0 giving control to
    p2; ``TH(JH-p0,JC-p1)`` is TH with JH then JC on it (``on``, bottom first)."""
    base, _, rest = text.partition("(")
    head, _, by = base.partition("-")
    by, _, to = by.partition(">")
    out: dict[str, Any] = {"card": head.strip()}
    if by:
        out["by"] = by.strip()
    if to:
        out["to"] = to.strip()
    if rest:
        out["on"] = [card_item(part) for part in rest.rstrip(")").split(",") if part.strip()]
    return out


def _zones(d: Mapping[str, Any], p: int) -> tuple[list[str], list[str], list[str], Any, list[str]]:
    """(hand, points, royals, frozen cards, known) of seat ``p`` in either file form."""
    if "seats" in d:
        seat = d["seats"][p]
        return seat["hand"], seat["points"], seat["royals"], list(seat.get("frozen") or []), list(seat.get("known") or [])
    known = (d.get("known") or {}).get(seat_name(p), [])
    hand = d[f"p{p}Hand"]  # the two-seat form lists every seat's frozen cards together
    frozen = [c for c in (d.get("frozen") or []) if c in hand]
    return hand, d[f"p{p}Points"], d[f"p{p}FaceCards"], frozen, list(known)


def board_json(pos: Position, players: tuple[str, ...] | None = None, you: int | None = None) -> dict[str, Any]:
    """The board of ``pos`` as the page draws it, seats in seat order, and ``order`` from the
    top down: the viewer (or ``you``, the person's seat, on a full-information board such as
    a game's end) at the bottom."""
    s = pos.state
    d = pos.to_dict()
    seats = []
    for p in range(pos.rules.players):
        hand, points, royals, frozen, known = _zones(d, p)
        mate = int(partner(s, pos.rules_array, p))
        seats.append({
            "seat": seat_name(p),
            "player": players[p] if players else None,
            "partner": seat_name(mate) if mate >= 0 else None,
            "hand": [card_item(c) for c in hand],
            "points": [card_item(c) for c in points],
            "royals": [card_item(c) for c in royals],
            # the stacks it controls that are listed under the seat that played them
            "controls": [{"card": card, "from": seat_name(q)} for card, q in taken_stacks(pos, p)],
            "frozen": frozen,
            "known": known,
            # Cuttle Multiplayer: the 2s this seat countered with out of turn, waiting before it
            "counters": [card_item(c) for c in (d["seats"][p].get("counters") or [] if "seats" in d else [])],
            "pointsTotal": pos.points(p),
            "goal": pos.goal(p),
        })
    deck = list(d["deck"])
    if pos.view is None:
        shown = deck[: int(d.get("deckKnown") or 0)]
    else:
        shown = [c for c in deck if c != HIDDEN]
    order = board_order(pos, you)
    pending = {k: d.get(k) for k in ("oneOff", "oneOffTarget", "oneOffBy", "response", "scuttle") if d.get(k)}
    return {
        "rules": pos.rules.spec,
        "view": "full" if pos.view is None else seat_name(pos.view),
        "turn": d["turn"],
        "turnPlayer": seat_name(pos.turn_player),
        "actor": None if pos.is_over else ("chance" if pos.actor < 0 else seat_name(pos.actor)),
        "phase": pos.phase_name,
        "phaseWords": PHASE_WORDS[pos.phase_name],  # (to the seat deciding)
        "decision": describe_decision(pos),
        "over": pos.is_over,
        "result": pos.result(),
        "seats": seats,
        "order": [seat_name(q) for q in order],  # top of the board to the bottom (the viewer)
        "deckCount": len(deck),
        "deckShown": shown,
        "scrap": [card_item(c) for c in d["scrap"]],
        "removed": list(d.get("removed") or []),
        "revealed": [card_item(c) for c in d.get("revealed") or []],
        "twos": [card_item(c) for c in d.get("twos") or []],
        "pending": pending,
        "passes": int(d.get("passes") or 0),
    }


def move_json(move: Move, number: int) -> dict[str, Any]:
    """A legal move: its number in the list, its notation and the cards it touches."""
    touches = [] if move.card is None else [card_str(move.card)]
    if move.target is not None and move.target_seat is None:
        touches.append(card_str(move.target))
    touches += [card_str(c) for c in move.cards]
    seat = move.target_seat if move.target_seat is not None else move.receiver
    return {"n": number, "text": move.text(), "kind": move.kind, "touches": touches,
            "seat": None if seat is None else seat_name(seat)}


def moves_json(moves: list[Move]) -> list[dict[str, Any]]:
    return [move_json(m, i) for i, m in enumerate(moves, 1)]


def event_json(event: Any, players: tuple[str, ...], who: Callable[[int], str]) -> dict[str, Any]:
    """One narrated move of a game session (``session.Event``), seats named by ``who``."""
    mover = "chance" if event.mover < 0 else seat_name(event.mover)
    return {"ply": event.ply, "mover": mover, "player": None if event.mover < 0 else players[event.mover],
            "text": event.text, "told": event.told(who), "drawn": list(event.drawn), "forced": event.forced,
            "fromSeven": event.from_seven,
            "notes": event.notes()}  # (what the page prints after the move: as the terminal does)


def session_json(session: Any) -> dict[str, Any]:
    """The state of a ``GameSession`` the play page draws: the person's board, their legal
    moves (when they decide), the narration and the result."""
    players = session.players
    out = {
        "type": "game",
        "rules": session.rules.spec,
        "seat": seat_name(session.seat),
        "seed": session.seed,
        "seedText": str(session.seed),  # (a JavaScript number rounds a seed above 2^53)
        "players": {seat_name(q): name for q, name in enumerate(players)},
        "board": board_json(session.view(), players, session.seat),
        "moves": moves_json(session.legal_moves()),
        "myTurn": session.my_turn,
        "over": session.is_over,
        "result": session.result(),
        "canUndo": session.can_undo,
        "ply": len(session.moves),
        "events": [event_json(e, players, session.who) for e in session.events],
    }
    return out


def sides_of(pos: Position) -> list[list[int]]:
    """The sides of the game, each a list of seats (a seat alone, or a team with its
    partner, as the engine pairs them), in seat order."""
    out: list[list[int]] = []
    for p in range(pos.rules.players):
        mate = int(partner(pos.state, pos.rules_array, p))
        if mate < p:
            out.append([p] if mate < 0 else [mate, p])
    return sorted(out)


def with_side_shares(moves: list[dict[str, Any]], pos: Position | None) -> list[dict[str, Any]]:
    """Each move's ``seatScores`` summed up side by side as ``sideShares`` (a team's seats
    each carry the team's share, so the shares of a side are counted once): what the
    page's bar stacks. Moves without per-seat figures (or no position) are left as they are."""
    if pos is None:
        return moves
    sides = sides_of(pos)
    for m in moves:
        scores = m.get("seatScores")
        if scores:
            m["sideShares"] = [{"seats": [seat_name(q) for q in side], "share": scores[seat_name(side[0])]}
                               for side in sides]
    return moves


def analysis_json(result: Any, pos: Position) -> dict[str, Any]:
    """An ``AnalysisResult`` (partial or final) of ``pos`` for the hint panel: the ranked
    moves with win rates, intervals, every side's share and proven values, and the
    search's figures."""
    out = result.to_json()
    with_side_shares(out["moves"], pos)
    out["partial"] = bool(result.during_search)
    out["seats"] = result.seats
    return out


def position_json(pos: Position) -> dict[str, Any]:
    """A loaded position for the analyse page: its board, the legal moves when a seat
    decides that the file can speak for (its viewer, or anyone in a full view), and
    whether the exact solver takes it (nothing hidden) or why not."""
    from ..analysis import SearchError
    from ..analysis.solve import check_solvable

    try:
        check_solvable(pos)
        solvable, why = True, None
    except SearchError as e:
        solvable, why = False, str(e)
    decides = not pos.is_over and pos.actor >= 0 and (pos.view is None or pos.view == pos.actor)
    return {"type": "position", "board": board_json(pos), "moves": moves_json(pos.legal_moves()) if decides else [],
            "solvable": solvable, "whyNotSolvable": why}


def review_json(review: Any, boards: Mapping[int, Position]) -> dict[str, Any]:
    """A review (``Review.to_json``) with each decision's board as its decider saw it."""
    out = review.to_json()
    players = None
    for d in out["decisions"]:
        view = boards.get(d["ply"])
        d["board"] = None if view is None else board_json(view, players)
    return {"type": "review", "review": out}
