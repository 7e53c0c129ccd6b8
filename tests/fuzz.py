"""A seeded, structure-aware mutation fuzzer for everything the project reads.

Seeds are the shipped positions, hint requests built on them, and a game log. Each input
is one seed with a few mutations: a card moved to another zone, duplicated or removed,
a value of the wrong type, a huge or non-finite number, deep nesting, a field dropped or
renamed; at the text level, a cut, a bad byte or a stray character. ``fuzz_inputs`` yields
``(kind, bytes)`` pairs reproducibly for a seed.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).parent.parent
CARDS = [r + s for r in "A23456789TJQK" for s in "CDHS"] + ["X1", "X2", "??", "ZZ", "10H", "th"]
WEIRD = [None, True, False, 0, -1, 1, 2, 7, 52, 999, 1000, 2**31, 2**63, 2**64, -(2**63), 10**400, 1e308, 0.5, -0.0,
         float("inf"), float("-inf"), float("nan"), "", "p0", "p1", "p7", "full", "??", "main", "countering",
         [], {}, [[[]]], {"id": "7H"}, ["7H"], "x" * 300]
CARD_FIELDS = ("p0Hand", "p1Hand", "p0Points", "p1Points", "p0FaceCards", "p1FaceCards", "deck", "scrap", "twos",
               "revealed")


def seed_positions() -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted((ROOT / "positions").glob("*.json"))]


def seed_game_log() -> dict[str, Any]:
    """A short greedy-vs-random game as the arena logs it."""
    from cuttle_search.play.agents import make_agent
    from cuttle_search.play.arena import play_game
    from cuttle_search.game.rules import get_ruleset

    record = play_game(get_ruleset("cuttle-cards"), 11, (make_agent("greedy"), make_agent("random")), 11)
    return record.to_json()


def seed_history(log: dict[str, Any]) -> list[dict[str, Any]]:
    """The game of ``log`` as a cuttle.cards history: GameStateRow objects, the deal first,
    every row with every GameState field (so mutations reach deck, turn, phase...)."""
    from cuttle_search.game.position import Position

    pos = Position.from_dict(log["start"])
    rows = [{"gameId": 1, "playedBy": None, "moveType": "initialize", "turn": 0, "phase": 1, **pos.to_gamestate()}]
    zones = ("p0Hand", "p1Hand", "p0Points", "p1Points", "p0FaceCards", "p1FaceCards", "scrap")
    for text in log["moves"]:
        by = pos.actor
        body = pos.play(text).to_json()
        d = pos.to_dict()
        state = pos.to_gamestate() if not pos.is_over else {
            **{k: d[k] for k in zones}, "deck": d["deck"], "turn": d["turn"], "phase": 1, "oneOff": None,
            "oneOffTarget": None, "twos": []}
        rows.append({"gameId": 1, "playedBy": by, "moveType": body["moveType"], "playedCard": body.get("cardId"),
                     "targetCard": body.get("targetId"), "discardedCards": body.get("cardIds", []), **state})
    return rows


def _weird(rng: random.Random) -> Any:
    if rng.random() < 0.2:
        return rng.choice(CARDS)
    return rng.choice(WEIRD)


def _nest(rng: random.Random) -> Any:
    depth = rng.choice([5, 63, 64, 65, 200, 800])  # deeper: mutate_text
    value: Any = rng.choice([1, "7H", None])
    for _ in range(depth):
        value = [value] if rng.random() < 0.5 else {"a": value}
    return value


def mutate_position(d: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    d = json.loads(json.dumps(d))
    for _ in range(rng.choice([1, 1, 2, 3])):
        op = rng.random()
        lists = [k for k in CARD_FIELDS if isinstance(d.get(k), list)]
        if op < 0.3 and lists:  # a card moves between zones
            src, dst = rng.choice(lists), rng.choice(CARD_FIELDS)
            if d[src]:
                card = d[src].pop(rng.randrange(len(d[src])))
                target = d.get(dst)
                if not isinstance(target, list):
                    target = d[dst] = []
                target.insert(rng.randint(0, len(target)), card)
        elif op < 0.4 and lists:  # a card duplicated
            src = rng.choice(lists)
            if d[src]:
                d[rng.choice(lists)].append(rng.choice(d[src]))
        elif op < 0.5 and lists:  # a card removed or replaced
            src = rng.choice(lists)
            if d[src]:
                i = rng.randrange(len(d[src]))
                if rng.random() < 0.5:
                    d[src].pop(i)
                else:
                    d[src][i] = rng.choice(CARDS)
        elif op < 0.75:  # a field gets a value of the wrong type or size
            key = rng.choice(list(d) + ["turn", "actions", "passes", "phase", "view", "oneOff", "oneOffTarget",
                                        "frozen", "scuttle", "known", "deckKnown", "rules", "options", "p0", "p1",
                                        "turnPlayer", "resolving", "format", "version"])
            d[key] = _weird(rng)
        elif op < 0.8:
            d[rng.choice(list(d) or ["x"])] = _nest(rng)
        elif op < 0.9 and d:  # a field dropped
            d.pop(rng.choice(list(d)))
        else:  # a jack stack, a pending one-off or scuttle, a hand of unknowns
            choice = rng.random()
            if choice < 0.3:
                d[rng.choice(["p0Points", "p1Points"])] = [f"{rng.choice(CARDS)}({rng.choice(CARDS)}-p{rng.randint(0, 3)})"]
            elif choice < 0.6:
                d.update(phase="countering", oneOff=rng.choice(CARDS), oneOffTarget=rng.choice(CARDS + [None]))
            elif choice < 0.8:
                d.update(phase="counteringScuttle", scuttle={"cardId": rng.choice(CARDS), "targetId": rng.choice(CARDS)})
            else:
                d[rng.choice(["p0Hand", "p1Hand"])] = ["??"] * rng.choice([0, 5, 9, 10, 11, 14, 30])
    return d


def mutate_text(text: str, rng: random.Random) -> bytes:
    data = text.encode("utf-8")
    op = rng.random()
    if op < 0.3 and data:
        return data[: rng.randrange(len(data))]
    if op < 0.6 and data:
        i = rng.randrange(len(data))
        return data[:i] + bytes([rng.choice([0xFF, 0xC3, 0x00, 0x80, 0x7B, 0x5B, 0x22])]) + data[i + 1 :]
    if op < 0.7:  # nesting far past what json.dumps can write
        depth = rng.choice([65, 1000, 100000])
        return b'{"x": ' + b"[" * depth + data + b"]" * depth + b"}"
    if op < 0.8:
        i = rng.randrange(len(data) + 1)
        return data[:i] + rng.choice([b"[", b"{", b'"', b",", b"9" * 5000, b"NaN", b"\\u0000"]) + data[i:]
    return data


def _hint_request(position: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    req: dict[str, Any] = {"id": rng.randrange(10**6), "position": position, "iterations": rng.choice([20, 50])}
    for key in ("iterations", "time", "seed", "threads", "runnersUp", "rules", "id", "stop", "allowMoves",
                "avoidMoves", "reportDuringSearchEvery", "bestReply"):
        if rng.random() < 0.15:
            req[key] = _weird(rng)
    if rng.random() < 0.1:
        req[rng.choice(["allowMoves", "avoidMoves"])] = rng.choice([["draw"], ["pass", "draw"], [{"moveType": "points"}],
                                                                    ["points " + rng.choice(CARDS)], ["resolve"]])
    if rng.random() < 0.1:  # asked for where it may be given or refused (more than two sides)
        req["bestReply"] = True
    if rng.random() < 0.05:
        req["stop"] = rng.choice([{"minIterations": rng.choice([1, 10, 0, -5, 2**70])}, {"x": 1}, "yes"])
    if req.get("time") is not None and not isinstance(req.get("iterations"), int):
        req["iterations"] = 20
    if rng.random() < 0.2:  # the position's fields inline, as the protocol allows
        inline = dict(position)
        inline.update({k: v for k, v in req.items() if k != "position"})
        req = inline
    return req


def fuzz_inputs(seed: int, count: int) -> Iterator[tuple[str, bytes]]:
    """``count`` inputs: ``("position" | "hint" | "log" | "history", bytes)``, reproducible
    for ``seed`` (a history is a cuttle.cards game history)."""
    rng = random.Random(seed)
    positions = seed_positions()
    log = seed_game_log()
    history = seed_history(log)
    for _ in range(count):
        kind = rng.choices(["position", "hint", "log", "history"], weights=[5, 3, 2, 1])[0]
        if kind == "history":
            rows = json.loads(json.dumps(history))
            for _ in range(rng.choice([1, 2])):
                op = rng.random()
                i = rng.randrange(len(rows))
                if op < 0.3 and isinstance(rows[i], dict) and rows[i]:
                    rows[i][rng.choice(list(rows[i]))] = _weird(rng)
                elif op < 0.5:
                    rows[i] = _weird(rng)
                elif op < 0.6 and len(rows) > 2:
                    rows.pop(rng.randrange(1, len(rows)))
                elif op < 0.8 and isinstance(rows[0], dict):
                    rows[0] = mutate_position(rows[0], rng)
                elif isinstance(rows[i], dict):
                    rows[i]["playedCard"] = rng.choice(CARDS)
            text = json.dumps(rows, allow_nan=True)
            yield kind, (mutate_text(text, rng) if rng.random() < 0.1 else text.encode("utf-8"))
            continue
        if kind == "position":
            data: Any = mutate_position(rng.choice(positions), rng)
        elif kind == "hint":
            data = _hint_request(mutate_position(rng.choice(positions), rng) if rng.random() < 0.7 else rng.choice(positions), rng)
        else:
            data = json.loads(json.dumps(log))
            op = rng.random()
            if op < 0.3:
                data["start"] = mutate_position(data["start"], rng)
            elif op < 0.6 and data["moves"]:
                i = rng.randrange(len(data["moves"]))
                data["moves"][i] = rng.choice([_weird(rng), "pass", "draw", "royal KZ", data["moves"][-1]])
            else:
                data[rng.choice(list(data) + ["players", "dealSeed"])] = _weird(rng)
        text = json.dumps(data, allow_nan=True)
        yield kind, (mutate_text(text, rng) if rng.random() < 0.15 else text.encode("utf-8"))
