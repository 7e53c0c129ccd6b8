"""The arena: agent against agent on paired deals, with intervals, Elo and game logs.

Deals are paired: deal ``d`` is shuffled from ``(seed, d)`` and played twice, once with A
in seat p0 and once with A in seat p1, so the luck of the deal cancels. A match format
(Board Game Arena's quick, short, best of 3, best of 5) plays matches instead of games;
its rounds use fresh deals and alternate the seats, and the paired match swaps them.

A ruleset of more seats (``cutthroat``: three) plays each deal once per seat rotation: A in
seat 0, then 1, then 2, with a copy of B in every other seat, so the deal's luck cancels
again. A's score in a game is its share (a win 1, a stalemate 1/n, a loss 0), and the
interval is over deals. With a match format A keeps its seat through the match, the dealer
rotates round by round (the seat after the dealer starts), and the rotation plays the same
rounds with A in each seat. The pentanomial statistics and the SPRT are two-seat only.

Everything a game does follows from the seed, so a seed reproduces a whole run, whatever
the number of worker processes.
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from ..version import __version__
from .agent import win_share
from .agents import Agent, make_agent
from .backends import make_backend
from ..engine import layout as L
from ..engine import state as S
from ..engine.apply import apply_move
from ..engine.rng import game_seed
from ..engine.seats import next_seat
from ..game.errors import CuttleError
from ..game.gamelog import check_game_log, deal_position, replay as replay_log
from ..game.moves import Move
from ..game.position import Position
from ..game.seats import seat_name
from ..game.rules import Ruleset, find_ruleset
from .statistics import (
    Z95,
    Sprt,
    _num,
    elo,
    pair_report,
    pentanomial,
    report_text,
    require_two_seats,
    share_report_text,
    trinomial,
    trinomial_estimate,
)

MATCH_WINS = {"quick": None, "short": 1, "bo3": 2, "bo5": 3}
MAX_ROUNDS = 25  # a match of nothing but drawn rounds stops here, drawn
MAX_GAMES = 10_000_000  # the most games (with a match format, matches) one run may be asked for (cli: --games)


# ---------------------------------------------------------------- one game
class ArenaError(CuttleError):
    """Bad arena input (a log directory, a results file, an option): one line for the user."""


def deal_seed(seed: int, deal: int) -> int:
    return int(game_seed(np.uint64(seed), deal))


def dealers(rules: Ruleset, rounds: int) -> list[int]:
    """The dealer of each of ``rounds`` rounds: the engine's default dealer first, then the
    next seat in turn order each round."""
    s = Position.deal(rules, seed=0).state
    out = [S.get(s, "dealer")]
    while len(out) < rounds:
        out.append(int(next_seat(s, out[-1])))
    return out


def _start_form(start: Position) -> dict[str, Any] | None:
    """The start as a position file, if the file form holds every card of this ruleset's
    positions (it reads back as the same state); None otherwise, and the log then names the
    deal (seed and dealer) for replay to re-deal."""
    try:
        form = start.to_dict()
        back = Position.from_dict(form)
    except CuttleError:
        return None
    return form if np.array_equal(back.state, start.state) else None


@dataclass
class GameRecord:
    """A finished game: the deal, the players by seat, the moves in text, the result, each
    seat's share of it and the time per move."""

    rules: str
    deal_seed: int
    players: tuple[str, ...]
    moves: list[str]
    winner: int | None  # seat, or None for a stalemate
    status: str
    seconds: list[float] = field(default_factory=list)  # thinking time per seat
    decisions: list[int] = field(default_factory=lambda: [0, 0])
    dealer: int | None = None  # the seat that dealt, when not the engine's default deal
    shares: list[float] = field(default_factory=list)  # each seat's share (win_share)
    start: Position | None = None  # the position the game started from, when not the deal itself

    def to_json(self) -> dict[str, Any]:
        start = self.start if self.start is not None else deal_position(find_ruleset(self.rules), self.deal_seed,
                                                                         self.dealer)
        log: dict[str, Any] = {
            "format": "cuttle-search/game",
            "version": 1,
            "engineVersion": __version__,
            "rules": self.rules,
            "dealSeed": self.deal_seed,
            "players": {seat_name(q): name for q, name in enumerate(self.players)},
        }
        if self.dealer is not None:
            log["dealer"] = seat_name(self.dealer)
        form = _start_form(start)
        if form is not None:
            log["start"] = form
        elif self.start is not None:  # the deal would not give this start back
            raise ArenaError("start: this start position has no position-file form; its game cannot be logged")
        log["moves"] = self.moves
        log["result"] = {"status": self.status, "winner": None if self.winner is None else seat_name(self.winner)}
        return log


def play_game(rules: Ruleset, deal: int, agents: Sequence[Agent], rng_seed: int, dealer: int | None = None,
              start: Position | None = None) -> GameRecord:
    """Play one game on deal seed ``deal``, ``agents[q]`` in seat ``q`` (one agent a seat),
    dealt by ``dealer`` (the engine's default deal when None), or from ``start`` (a full
    position of ``rules``, not changed) when given: the game then goes on from there."""
    seats = rules.players
    if len(agents) != seats:
        raise ArenaError(f"agents: {rules.spec} has {seats} seats, one agent each, but {len(agents)} agents were given")
    for agent in agents:
        agent.check_seats(seats, rules.spec)
    pos = deal_position(rules, deal, dealer) if start is None else start.copy()
    rng = np.random.default_rng(rng_seed)
    moves: list[str] = []
    seconds = [0.0] * seats
    decisions = [0] * seats
    for seat, agent in enumerate(agents):
        agent.start_game(seat)
    while not pos.is_over:
        actor = pos.actor
        if actor == L.ACTOR_CHANCE:
            codes = pos.legal_codes()
            code = int(codes[rng.integers(len(codes))])
        else:
            t0 = time.perf_counter()
            code = agents[actor].choose(pos, actor, rng)
            seconds[actor] += time.perf_counter() - t0
            decisions[actor] += 1
            if code not in set(int(c) for c in pos.legal_codes()):
                raise RuntimeError(f"agent {agents[actor].name} chose an illegal move {Move.from_code(code).text()}")
        for agent in agents:
            agent.observe(pos, actor, code)
        moves.append(Move.from_code(code).text())
        apply_move(pos.state, pos.rules_array, np.int64(code))
    res = pos.result()
    winner = None if res["winner"] is None else pos.winner
    shares = [win_share(pos.state, pos.rules_array, q) for q in range(seats)]
    return GameRecord(rules.spec, deal, tuple(a.name for a in agents), moves, winner, res["status"], seconds, decisions,
                      dealer, shares, start)


def replay(log: dict[str, Any], upto: int | None = None) -> Position:
    """The position of a game log after its first ``upto`` moves (all of them by default),
    every move checked for legality: ``gamelog.replay`` of the checked log (any seat count;
    errors are ``GameLogError``, naming the field)."""
    return replay_log(check_game_log(log), upto)


# ---------------------------------------------------------------- a pair of games or matches
def _play_unit(args: tuple) -> dict[str, Any]:
    """One paired deal (or paired match), or with more seats one seat rotation: A's results
    from every seat. Runs in a worker."""
    rules_spec, spec_a, spec_b, seed, index, match, keep_logs = args
    rules = find_ruleset(rules_spec)
    if rules.players != 2:
        return _play_rotation(rules, spec_a, spec_b, seed, index, match, keep_logs)
    a, b = make_agent(spec_a), make_agent(spec_b)
    out: dict[str, Any] = {"index": index, "games": [], "logs": []}
    for swap in (False, True):
        if match == "quick":
            deals = [deal_seed(seed, index)]
        else:
            deals = [deal_seed(seed, index * 1000 + k) for k in range(MAX_ROUNDS)]
        a_wins = b_wins = 0
        need = MATCH_WINS[match]
        for k, d in enumerate(deals):
            a_first = (k % 2 == 0) != swap
            agents = (a, b) if a_first else (b, a)
            rec = play_game(rules, d, agents, rng_seed=d ^ (0x5DEECE66D if swap else 0))
            a_seat, b_seat = (0, 1) if a_first else (1, 0)
            score = rec.shares[a_seat]
            out["games"].append(
                {"score": score, "plies": len(rec.moves), "aSeconds": rec.seconds[a_seat], "aDecisions": rec.decisions[a_seat],
                 "bSeconds": rec.seconds[b_seat], "bDecisions": rec.decisions[b_seat], "aSeat": a_seat}
            )
            if keep_logs:
                out["logs"].append(rec.to_json())
            if need is None:
                break
            a_wins += score == 1.0
            b_wins += score == 0.0
            if a_wins >= need or b_wins >= need:
                break
        if need is not None:
            out.setdefault("matches", []).append(1.0 if a_wins > b_wins else 0.0 if b_wins > a_wins else 0.5)
    return out


ROTATION_SALT = 0x5DEECE66D  # with A in seat k, a game draws its chance moves from seed deal ^ (k x salt)


def _play_rotation(rules: Ruleset, spec_a: str, spec_b: str, seed: int, index: int, match: str,
                   keep_logs: bool) -> dict[str, Any]:
    """One deal (or one match's rounds) of a game of n seats, played n times: A in seat k of
    game k, a copy of B in every other seat. A scores its share of each game; with a match
    format A keeps its seat through the match, the dealer rotates each round, and A scores
    its share of the match (the first seat to win ``MATCH_WINS`` rounds takes it; a match
    with no winner after ``MAX_ROUNDS`` rounds is shared)."""
    n = rules.players
    a = make_agent(spec_a)
    others = [make_agent(spec_b) for _ in range(n - 1)]
    need = MATCH_WINS[match]
    if need is None:
        deals = [deal_seed(seed, index)]
    else:
        deals = [deal_seed(seed, index * 1000 + k) for k in range(MAX_ROUNDS)]
    by_round = dealers(rules, len(deals))
    out: dict[str, Any] = {"index": index, "games": [], "logs": []}
    for a_seat in range(n):
        agents = list(others)
        agents.insert(a_seat, a)
        rounds_won = [0] * n
        for k, d in enumerate(deals):
            rec = play_game(rules, d, agents, rng_seed=(d ^ (a_seat * ROTATION_SALT)) & (2**64 - 1), dealer=by_round[k])
            b_seats = [q for q in range(n) if q != a_seat]
            out["games"].append(
                {"score": rec.shares[a_seat], "plies": len(rec.moves), "aSeconds": rec.seconds[a_seat],
                 "aDecisions": rec.decisions[a_seat], "bSeconds": sum(rec.seconds[q] for q in b_seats),
                 "bDecisions": sum(rec.decisions[q] for q in b_seats), "aSeat": a_seat, "dealer": by_round[k]}
            )
            if keep_logs:
                out["logs"].append(rec.to_json())
            if need is None:
                break
            if rec.winner is not None:
                rounds_won[rules.side_of(rec.winner)] += 1  # (a team's rounds count for both partners)
            if max(rounds_won) >= need:
                break
        if need is not None:
            leader = max(rounds_won)
            share = 1.0 / rules.sides if leader < need else float(rounds_won[rules.side_of(a_seat)] == leader)
            out.setdefault("matches", []).append(share)
    return out


# ---------------------------------------------------------------- statistics
def match_score_interval(pair_scores: Iterable[float]) -> tuple[float, float, float]:
    """Mean score and its 95% interval from per-pair scores (the pair is the unit, so the
    interval reflects the pairing; sample standard deviation)."""
    x = np.asarray(list(pair_scores), dtype=float)
    n = len(x)
    if n == 0:
        return 0.5, 0.0, 1.0
    mean = float(x.mean())
    sd = float(x.std(ddof=1)) if n > 1 else 0.5
    half = Z95 * max(sd, 1e-12) / math.sqrt(n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def _pair_outcomes(unit: dict[str, Any], match: str) -> list[float]:
    """A's scores in a pair (or rotation): its games, or with a match format its matches."""
    return list(unit["matches"]) if match != "quick" else [g["score"] for g in unit["games"]]


# ---------------------------------------------------------------- the results file
RESULTS_FORMAT = "cuttle-search/arena-results"
MAX_LINE = 1 << 20  # the longest line a results file may have (a header's agent specs included)


def _header(spec_a: str, spec_b: str, rules: str, seed: int, match: str) -> dict[str, Any]:
    return {"format": RESULTS_FORMAT, "version": 1, "engineVersion": __version__, "agentA": spec_a, "agentB": spec_b,
            "rules": rules, "seed": seed, "match": match}


def _is_int(x: Any, lo: int, hi: int) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and lo <= x <= hi


def _is_score(x: Any, sides: int = 2) -> bool:
    """A game's or match's share for one of ``sides`` sides (seats, or two teams): 0, 1/sides or 1."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x in (0, 1 / sides, 1)


def _share_names(sides: int) -> str:
    return "0, 0.5 or 1" if sides == 2 else f"0, 1/{sides} or 1"


def _check_unit(u: Any, match: str, seats: int = 2, sides: int | None = None,
                rules: Ruleset | None = None) -> dict[str, Any]:
    """A saved pair (or, with more seats, seat rotation), checked field by field against
    what the match can produce (the file is untrusted); raises ValueError.

    Each game: 1 to the ruleset's action limit of plies, at most as many decisions as
    plies, no thinking time without a decision. The games: A's seats in the order the
    unit plays them (two seats: p0 then p1, a match's rounds alternating; more seats: 0,
    1, ... with every round of a match in a row), a match's rounds ending exactly when a
    side has the rounds it needs (or after ``MAX_ROUNDS``), each round dealt by the seat
    the rotation gives it (``dealers``), and the match scores those rounds give. Without
    ``rules`` the action limit is taken as 100,000 and the dealers are not compared."""
    unit = "a pair" if seats == 2 else "a rotation"
    sides = seats if sides is None else sides
    if not isinstance(u, dict):
        raise ValueError(f"{unit} must be a JSON object")
    if not _is_int(u.get("index"), 0, 2**31):
        raise ValueError("index: must be a whole number 0-2^31")
    games = u.get("games")
    size = (seats, seats) if match == "quick" else (seats, seats * MAX_ROUNDS)
    if not isinstance(games, list) or not size[0] <= len(games) <= size[1]:
        many = str(seats) if size[0] == size[1] else f"{size[0]}-{size[1]}"
        raise ValueError(f"games: must be a list of {many} games")
    keys: tuple[str, ...] = ("score", "plies", "aSeconds", "aDecisions", "bSeconds", "bDecisions", "aSeat")
    if seats != 2:
        keys += ("dealer",)
    max_plies = int(rules.array[L.R_ACTION_LIMIT]) if rules is not None else 100_000
    clean = []
    for k, g in enumerate(games):
        if not isinstance(g, dict):
            raise ValueError(f"games[{k}]: must be an object")
        if not _is_score(g.get("score"), sides):
            raise ValueError(f"games[{k}].score: must be {_share_names(sides)}")
        if not _is_int(g.get("plies"), 1, max_plies):
            raise ValueError(f"games[{k}].plies: must be a whole number 1-{max_plies} (a game's moves, at most the "
                             f"action limit)")
        ints = [("aSeat", seats - 1), ("aDecisions", max_plies), ("bDecisions", max_plies)]
        if seats != 2:
            ints.append(("dealer", seats - 1))
        for key, hi in ints:
            if not _is_int(g.get(key), 0, hi):
                raise ValueError(f"games[{k}].{key}: must be a whole number 0-{hi}")
        if g["aDecisions"] + g["bDecisions"] > g["plies"]:
            raise ValueError(f"games[{k}].aDecisions: {g['aDecisions']} decisions for A and {g['bDecisions']} for B, "
                             f"more than the game's {g['plies']} plies")
        for key in ("aSeconds", "bSeconds"):
            x = g.get(key)
            if not (isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and 0 <= x < 1e9):
                raise ValueError(f"games[{k}].{key}: must be a number of seconds")
            if x > 0 and g[key[0] + "Decisions"] == 0:
                raise ValueError(f"games[{k}].{key}: {x} seconds of thinking over 0 decisions")
        clean.append({key: g[key] for key in keys})
    if seats != 2 and sorted({g["aSeat"] for g in clean}) != list(range(seats)):
        raise ValueError(f"games: A must sit in every seat 0-{seats - 1} of a rotation")
    shares = _check_rounds(clean, match, seats, sides, dealers(rules, MAX_ROUNDS) if rules and seats != 2 else None)
    out: dict[str, Any] = {"index": u["index"], "games": clean, "logs": []}
    if match != "quick":
        m = u.get("matches")
        if not isinstance(m, list) or len(m) != seats or not all(_is_score(x, sides) for x in m):
            raise ValueError(f"matches: must be a list of {seats} match scores ({_share_names(sides)})")
        for q, (x, can) in enumerate(zip(m, shares)):
            if x not in can:
                said = " or ".join(f"{c:g}" for c in sorted(can))
                raise ValueError(f"matches[{q}]: {x:g}, but its rounds' scores give {said}")
        out["matches"] = [float(x) for x in m]
    return out


def _check_rounds(games: list[dict[str, Any]], match: str, seats: int, sides: int,
                  by_round: list[int] | None) -> list[set[float]]:
    """Walk a checked unit's games as the unit plays them (``_play_unit``,
    ``_play_rotation``): A's seat in every game, the dealer of every round (when
    ``by_round`` is given), and where each match ends. The match scores its rounds allow,
    one set a match (empty for quick play); raises ValueError naming the game."""
    need = MATCH_WINS[match]
    shares: list[set[float]] = []
    at = 0
    for m in range(seats):  # two seats: the pair's two matches (swapped); more: A in seat m
        wins = losses = 0
        for k in range(1 if need is None else MAX_ROUNDS):
            if at == len(games):
                raise ValueError(f"games: {len(games)} games, but match {m}'s rounds are missing")
            g = games[at]
            seat = (k + m) % 2 if seats == 2 else m
            if g["aSeat"] != seat:
                raise ValueError(f"games[{at}].aSeat: {g['aSeat']}, but A sits in seat {seat} in "
                                 + (f"game {at} of {'a pair' if seats == 2 else 'a rotation'}" if need is None
                                    else f"round {k} of match {m}"))
            if by_round is not None and g["dealer"] != by_round[k]:
                raise ValueError(f"games[{at}].dealer: {g['dealer']}, but round {k} of a rotation is dealt by seat "
                                 f"{by_round[k]}")
            at += 1
            wins += g["score"] == 1
            losses += g["score"] == 0
            if need is None:
                break
            # two sides (two seats, or teams): a loss is a round won by the other side
            other_done = losses >= need if sides == 2 else losses > (sides - 1) * (need - 1)
            other_may = losses >= need
            last = k == MAX_ROUNDS - 1 or wins >= need or other_done
            if seats != 2:  # A's losses may have given another seat the rounds it needs: the next game tells
                more = at < len(games) and games[at]["aSeat"] == m
                if last and more:
                    raise ValueError(f"games[{at}]: round {k + 1} of match {m}, but the match was over after "
                                     f"round {k}")
                last = last or (other_may and not more)
            if last:
                if wins >= need:
                    shares.append({1.0})
                elif other_done:
                    shares.append({0.0})
                elif seats == 2:  # MAX_ROUNDS rounds without a winner: a pair's rounds won decide
                    shares.append({1.0 if wins > losses else 0.0 if losses > wins else 0.5})
                elif sides == 2 or not other_may:  # a rotation's match without a winner is shared
                    shares.append({1 / sides})
                elif k < MAX_ROUNDS - 1:  # over early: another seat had the rounds it needs
                    shares.append({0.0})
                else:
                    shares.append({0.0, 1 / sides})
                break
    if at != len(games):
        raise ValueError(f"games: {len(games)} games, but the unit's "
                         + ("games" if need is None else "matches") + f" end after {at}")
    return shares


def max_unit_line(rules: Ruleset, match: str) -> int:
    """The longest line (newline included) a results file of ``rules`` and ``match`` can
    hold for one unit: every round of every match played, every number at its longest
    (index 2^31, plies and decisions at the action limit, seconds with 17 digits and an
    exponent, scores 1/sides)."""
    seats, sides = rules.players, rules.sides
    limit = int(rules.array[L.R_ACTION_LIMIT])
    longest = 1.2345678901234567e-300  # the longest repr a number of seconds can have (23 characters)
    game = {"score": 1 / sides, "plies": limit, "aSeconds": longest, "aDecisions": limit, "bSeconds": longest,
            "bDecisions": limit, "aSeat": seats - 1}
    if seats != 2:
        game["dealer"] = seats - 1
    unit: dict[str, Any] = {"index": 2**31, "games": [game] * (seats * (1 if match == "quick" else MAX_ROUNDS))}
    if match != "quick":
        unit["matches"] = [1 / sides] * seats
    return len(json.dumps(unit, separators=(",", ":"))) + 1


def max_results_bytes(rules: Ruleset, match: str) -> int:
    """The largest results file an arena of ``rules`` and ``match`` can write: a header line
    (at most ``MAX_LINE``) and one line for each of the most units a run can play
    (``MAX_GAMES`` games or matches, ``rules.players`` a unit), each at its longest."""
    return MAX_LINE + math.ceil(MAX_GAMES / rules.players) * max_unit_line(rules, match)


class ResultsFile:
    """JSON lines: a header naming the match, then one line per finished pair, flushed as
    each pair finishes, so a stopped run loses at most the pairs still being played."""

    def __init__(self, path: str | Path, header: dict[str, Any], resume: bool, seats: int = 2,
                 sides: int | None = None, rules: Ruleset | None = None) -> None:
        self.path = Path(path)
        self.seats = seats
        self.sides = seats if sides is None else sides
        self.rules = rules
        self.units: dict[int, dict[str, Any]] = {}
        opt = "resume" if resume else "save"
        try:
            if resume:
                self._load(header)
                self.file = self.path.open("a", encoding="utf-8")
            else:
                if self.path.exists() and (self.path.is_dir() or self.path.stat().st_size > 0):
                    raise ArenaError(f"save: {self.path} already exists; continue it with --resume {self.path}, "
                                     f"or name a new file")
                self.file = self.path.open("w", encoding="utf-8")
                self._write(header)
        except OSError as e:
            raise ArenaError(f"{opt}: cannot {'read' if resume else 'write'} {self.path}: {e.strerror or e}") from None

    def _load(self, header: dict[str, Any]) -> None:
        """Read the file line by line, each line checked as it is read (the header, then every
        unit against what the match can produce); a file larger than the largest one such a
        match can write is refused before reading (``max_results_bytes``)."""
        where = f"resume: {self.path}"
        if self.path.is_dir():
            raise ArenaError(f"{where}: is a directory, not an arena results file")
        if self.rules is not None:
            cap = max_results_bytes(self.rules, header["match"])
            size = self.path.stat().st_size
            if size > cap:
                raise ArenaError(f"{where}: {size:,} bytes, more than the largest results file a {self.rules.spec} "
                                 f"arena with --match {header['match']} can write ({cap:,} bytes)")
        kind = "pair" if self.seats == 2 else "rotation"
        valid_end = 0  # where appending starts; a cut last line is truncated away
        self._needs_newline = False
        head = None
        with self.path.open("rb") as f:
            n = 0
            while True:
                raw = f.readline(MAX_LINE + 2)  # a line, its newline, and one byte to tell a longer one
                if not raw:
                    break
                n += 1
                body = raw[:-1] if raw.endswith(b"\n") else raw
                if len(body) > MAX_LINE:
                    raise ArenaError(f"{where}: line {n} is longer than {MAX_LINE} bytes")
                if body is raw:  # the last line lacks its newline: a write the stop cut short?
                    try:
                        json.loads(body)
                        self._needs_newline = True  # whole after all; only the newline is missing
                    except (ValueError, RecursionError):
                        break
                if not body.strip():
                    raise ArenaError(f"{where}: line {n} is blank; an arena results file has none")
                try:
                    row = json.loads(body.decode("utf-8"))
                except UnicodeDecodeError:
                    raise ArenaError(f"{where}: line {n} is not UTF-8 text") from None
                except (ValueError, RecursionError):
                    raise ArenaError(f"{where}: line {n} is not valid JSON") from None
                valid_end += len(raw)
                if head is None:
                    head = row
                    self._check_header(head, header, where)
                    continue
                try:
                    unit = _check_unit(row, header["match"], self.seats, self.sides, self.rules)
                except ValueError as e:
                    raise ArenaError(f"{where}: line {n}: {e}") from None
                if unit["index"] in self.units:
                    raise ArenaError(f"{where}: line {n}: {kind} {unit['index']} appears twice")
                self.units[unit["index"]] = unit
        if head is None:
            raise ArenaError(f"{where}: empty; not an arena results file")
        if valid_end < self.path.stat().st_size:
            with self.path.open("r+b") as f:
                f.truncate(valid_end)
        if self._needs_newline:
            with self.path.open("ab") as f:
                f.write(b"\n")

    @staticmethod
    def _check_header(head: Any, header: dict[str, Any], where: str) -> None:
        """The file's header must name this very match."""
        if not isinstance(head, dict) or head.get("format") != RESULTS_FORMAT:
            raise ArenaError(f"{where}: format: not an arena results file (saved by --save)")
        if head.get("version") != 1:
            raise ArenaError(f"{where}: version: expected 1, got {head.get('version')!r}")
        names = {"agentA": "AGENT_A", "agentB": "AGENT_B", "rules": "--rules", "seed": "--seed", "match": "--match",
                 "engineVersion": "the engine version"}
        for key, opt in names.items():
            if head.get(key) != header[key] or type(head.get(key)) is not type(header[key]):
                raise ArenaError(f"{where}: {key}: the file's match has {head.get(key)!r}, but this one has "
                                 f"{header[key]!r} ({opt}); resume with the command that started it")

    def _write(self, obj: dict[str, Any]) -> None:
        self.file.write(json.dumps(obj, separators=(",", ":")) + "\n")
        self.file.flush()

    def add(self, unit: dict[str, Any]) -> None:
        try:
            self._write({k: v for k, v in unit.items() if k != "logs"})
        except OSError as e:
            raise ArenaError(f"save: cannot write {self.path}: {e.strerror or e}") from None

    def close(self) -> None:
        self.file.close()


def _prepare_log_dir(log_dir: str | Path) -> Path:
    """Create the log directory and prove it writable before any game is played."""
    d = Path(log_dir)
    try:
        d.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=d, prefix=".write-test-"):
            pass
    except OSError as e:
        raise ArenaError(f"log-dir: cannot create or write {log_dir}: {e.strerror or e}") from None
    return d


def _write_logs(d: Path, unit: dict[str, Any], seats: int = 2) -> None:
    kind = "pair" if seats == 2 else "deal"
    for k, log in enumerate(unit["logs"]):
        path = d / f"{kind}{unit['index']:05d}-game{k}.json"
        try:
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(log) + "\n")
            tmp.replace(path)  # a log is whole or absent, never half written
        except OSError as e:
            raise ArenaError(f"log-dir: cannot write {path}: {e.strerror or e}") from None


# ---------------------------------------------------------------- the match
@dataclass
class ArenaResult:
    agent_a: str
    agent_b: str
    rules: str
    seed: int
    match: str
    pairs: int
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    interval: tuple[float, float]
    mean_plies: float
    seconds_per_move: dict[str, float]
    elapsed: float
    matches: dict[str, int] | None = None
    pentanomial: dict[str, Any] = field(default_factory=dict)
    trinomial: dict[str, Any] = field(default_factory=dict)
    sprt: dict[str, Any] | None = None
    backend: str = "local"
    workers: int = 1
    resumed: int = 0  # pairs taken from the results file rather than played
    pool_restarts: int | None = None  # local backend: pools rebuilt after a worker died (their pairs replayed)
    units: list[dict[str, Any]] = field(default_factory=list, repr=False)  # per pair, by index
    seats: int = 2  # more seats: units are seat rotations, scores are shares (1/sides is even)
    sides: int | None = None  # with teams, 2 (a stalemate is half a win); else the seats
    by_seat: dict[str, dict[str, Any]] | None = None  # more seats: A's games and mean share by seat
    games_asked: int | None = None  # --games (with a match format, matches)
    games_planned: int | None = None  # rounded up to whole pairs or rotations (planned_games)
    rounding: str | None = None  # the sentence saying so, when it rounds

    @property
    def elo(self) -> float:
        return elo(self.score)

    @property
    def elo_interval(self) -> tuple[float, float]:
        return elo(self.interval[0]), elo(self.interval[1])

    def pair_results(self) -> list[tuple[int, list[float], list[int]]]:
        """Per pair: its index, A's scores and the game lengths (what a seed must reproduce)."""
        return [(u["index"], [g["score"] for g in u["games"]] + list(u.get("matches", [])),
                 [g["plies"] for g in u["games"]]) for u in self.units]

    def to_json(self) -> dict[str, Any]:
        if self.seats != 2:
            return self._shares_json()

        def num(x: float) -> float | str:
            return round(x, 1) if math.isfinite(x) else ("inf" if x > 0 else "-inf")

        return {
            "agentA": self.agent_a,
            "agentB": self.agent_b,
            "rules": self.rules,
            "seed": self.seed,
            "match": self.match,
            "pairedDeals": self.pairs,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": round(self.score, 4),
            "scoreInterval": [round(self.interval[0], 4), round(self.interval[1], 4)],
            "elo": num(self.elo),
            "eloInterval": [num(self.elo_interval[0]), num(self.elo_interval[1])],
            "meanPlies": round(self.mean_plies, 2),
            "secondsPerMove": {k: round(v, 5) for k, v in self.seconds_per_move.items()},
            "matches": self.matches,
            "seconds": round(self.elapsed, 3),
            "engineVersion": __version__,
            "pentanomial": self.pentanomial,
            "trinomial": self.trinomial,
            "sprt": self.sprt,
            "backend": self.backend,
            "workers": self.workers,
            "pairsResumed": self.resumed,
            "poolRestarts": self.pool_restarts,
            "gamesAsked": self.games_asked,
            "gamesPlanned": self.games_planned,
            "rounding": self.rounding,
        }

    def _shares_json(self) -> dict[str, Any]:
        """The JSON of a game of more seats: A's share with its interval over deals, by
        seat; no Elo, pentanomial or SPRT (they are two-seat figures: null)."""
        return {
            "agentA": self.agent_a,
            "agentB": self.agent_b,
            "rules": self.rules,
            "seats": self.seats,
            "seed": self.seed,
            "match": self.match,
            "deals": self.pairs,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": round(self.score, 4),
            "scoreInterval": [round(self.interval[0], 4), round(self.interval[1], 4)],
            "evenShare": round(1 / (self.sides or self.seats), 4),
            "bySeat": self.by_seat,
            "elo": None,
            "eloInterval": [None, None],
            "meanPlies": round(self.mean_plies, 2),
            "secondsPerMove": {k: round(v, 5) for k, v in self.seconds_per_move.items()},
            "matches": self.matches,
            "seconds": round(self.elapsed, 3),
            "engineVersion": __version__,
            "pentanomial": None,
            "trinomial": None,
            "sprt": None,
            "backend": self.backend,
            "workers": self.workers,
            "dealsResumed": self.resumed,
            "poolRestarts": self.pool_restarts,
            "gamesAsked": self.games_asked,
            "gamesPlanned": self.games_planned,
            "rounding": self.rounding,
        }

    def report_lines(self) -> list[str]:
        """The fastchess-style block (pentanomial Elo, nElo, LOS, Ptnml, LLR); with more
        seats, the win shares by seat and over deals."""
        if self.seats != 2:
            w, d, l = (self.matches["won"], self.matches["drawn"], self.matches["lost"]) if self.matches else \
                (self.wins, self.draws, self.losses)
            return share_report_text(f"{self.agent_a} vs {self.agent_b} ({self.rules}, seed {self.seed})", self.seats,
                                     (w, l, d), self.score, self.interval, self.pairs, self.by_seat or {},
                                     unit="matches" if self.matches else "games", sides=self.sides)
        w, d, l = (self.matches["won"], self.matches["drawn"], self.matches["lost"]) if self.matches else \
            (self.wins, self.draws, self.losses)
        sprt = None
        if self.sprt:
            sprt = Sprt(self.sprt["elo0"], self.sprt["elo1"], self.sprt["alpha"], self.sprt["beta"], self.sprt["model"])
        pairs = [u["matches"] if self.match != "quick" else [g["score"] for g in u["games"]] for u in self.units]
        return report_text(f"{self.agent_a} vs {self.agent_b} ({self.rules}, seed {self.seed})", (w, l, d), pairs, sprt,
                           unit="matches" if self.matches else "games")


def planned_games(games: int, seats: int, match: str = "quick") -> tuple[int, str | None]:
    """The games (with a match format, matches) a run asked for ``games`` plays: whole
    pairs (two seats), or whole seat rotations, so that every deal is played from every
    seat; and when that rounds ``games`` up, the sentence that says so."""
    planned = max(1, math.ceil(games / seats)) * seats
    if planned == games:
        return planned, None
    unit = "game" if match == "quick" else "match"
    asked = f"{games} {unit if games == 1 else unit + ('es' if unit == 'match' else 's')} asked"
    each = "each deal" if match == "quick" else "each match's deals"
    if seats == 2:
        why = f"whole pairs, {each} played twice with the seats swapped"
    else:
        why = f"whole rotations of {seats} seats, {each} played {seats} times with A in each seat"
    return planned, f"{asked}; playing {planned}: {why}"


def run_arena(
    spec_a: str,
    spec_b: str,
    games: int,
    rules: str = "cuttle-cards",
    seed: int = 0,
    workers: int = 1,
    match: str = "quick",
    log_dir: str | Path | None = None,
    progress: bool = False,
    backend: str = "local",
    address: str | None = None,
    save: str | Path | None = None,
    resume: str | Path | None = None,
    sprt: Sprt | str | None = None,
    sprt_model: str = "logistic",
) -> ArenaResult:
    """Play ``games`` games or, with a match format, that many matches, rounded up to whole
    pairs or seat rotations (:func:`planned_games`; the result's ``rounding`` says so); A's
    score counts a draw as half.

    ``backend`` ``local`` runs ``workers`` processes; ``ray`` runs Ray tasks (a local Ray
    instance with ``workers`` CPUs, or the cluster at ``address``). ``save`` writes every
    pair to a results file as it finishes; ``resume`` continues such a file (same agents,
    rules, seed and match), playing only the pairs it lacks. ``sprt`` (``elo0,elo1[,alpha,
    beta]`` or a :class:`Sprt`) stops as soon as the test decides; pairs count in index
    order, so the decision, like every figure, depends on the seed alone."""
    from tqdm import tqdm

    rs = find_ruleset(rules)
    seats = rs.players
    for spec in (spec_a, spec_b):  # fail early on a bad spec, or an agent that cannot play these seats
        make_agent(spec).check_seats(seats, rs.spec)
    if match not in MATCH_WINS:
        raise ArenaError(f"match: expected one of {', '.join(MATCH_WINS)}, got {match!r}")
    if sprt is not None:
        require_two_seats(seats, rs.spec, "sprt")
    if isinstance(sprt, str):
        sprt = Sprt.parse(sprt, sprt_model)
    if save is not None and resume is not None:
        raise ArenaError("save: --resume FILE goes on saving to FILE; give --save or --resume, not both")
    if not _is_int(games, 1, MAX_GAMES):
        raise ArenaError(f"games: expected a whole number 1-{MAX_GAMES:,}, got {games!r}")
    pairs = max(1, math.ceil(games / seats))  # pairs, or with more seats rotations
    planned, rounding = planned_games(games, seats, match)
    if progress and rounding and sys.stderr.isatty():
        tqdm.write(rounding, file=sys.stderr)  # said above the progress bar, before the first game
    keep_logs = log_dir is not None
    logs = _prepare_log_dir(log_dir) if keep_logs else None  # type: ignore[arg-type]  # keep_logs: a log_dir was given
    be = make_backend(backend, workers, address)  # fails now if ray is missing or the cluster unreachable
    results_file = None
    bar = None
    try:
        if save is not None or resume is not None:
            results_file = ResultsFile(save if save is not None else resume, _header(spec_a, spec_b, rs.spec, seed, match),  # type: ignore[arg-type]  # one of them is set
                                       resume=resume is not None, seats=seats, sides=rs.sides, rules=rs)
        done: dict[int, dict[str, Any]] = {}
        if results_file is not None:
            done = {i: u for i, u in results_file.units.items() if i < pairs}
        resumed = len(done)
        # the sequential test folds pairs in index order, whatever order they finish in
        counts = [0] * 5
        nxt = 0
        decided_at: int | None = None
        llr = 0.0

        def fold() -> None:
            nonlocal nxt, decided_at, llr
            if seats != 2:
                return  # no pentanomial counts or SPRT with more seats
            while decided_at is None and nxt in done:
                counts[round(2 * sum(_pair_outcomes(done[nxt], match)))] += 1
                if sprt is not None:
                    llr = sprt.llr(counts)
                    if sprt.decide(llr) is not None:
                        decided_at = nxt
                nxt += 1

        fold()
        todo = [i for i in range(pairs) if i not in done]
        jobs = ((rs.spec, spec_a, spec_b, seed, i, match, keep_logs) for i in todo)
        start = time.perf_counter()
        bar = tqdm(total=pairs, initial=resumed, desc=f"{spec_a} vs {spec_b}", unit="pair" if seats == 2 else "deal",
                   disable=not progress or None)
        total_score = sum(sum(_pair_outcomes(u, match)) for u in done.values())
        if decided_at is None and todo:
            results = be.imap_unordered(_play_unit, jobs)
            try:
                for u in results:
                    if logs is not None:
                        _write_logs(logs, u, seats)
                    if results_file is not None:
                        results_file.add(u)
                    done[u["index"]] = u
                    fold()
                    total_score += sum(_pair_outcomes(u, match))
                    bar.update()
                    post = f"score {total_score / (seats * len(done)):.3f}"
                    if sprt is not None:
                        post += f" LLR {llr:.2f} ({sprt.lower:.2f}, {sprt.upper:.2f})"
                    bar.set_postfix_str(post)
                    if decided_at is not None:
                        break
            finally:
                results.close()  # type: ignore[attr-defined]  # a generator
        elapsed = time.perf_counter() - start
    finally:
        if bar is not None:
            bar.close()
        if results_file is not None:
            results_file.close()
        be.close()
    used = decided_at + 1 if decided_at is not None else pairs
    units = [done[i] for i in range(used)]
    if seats == 2:
        result = _summarise(units, spec_a, spec_b, rs.spec, seed, match, sprt, elapsed, be.name, workers, resumed)
    else:
        result = _summarise_shares(units, spec_a, spec_b, rs.spec, seats, seed, match, elapsed, be.name, workers, resumed,
                                   rs.sides)
    result.pool_restarts = getattr(be, "restarts", None)
    result.games_asked, result.games_planned, result.rounding = games, planned, rounding
    return result


def _summarise(units, spec_a, spec_b, rules, seed, match, sprt, elapsed, backend, workers, resumed) -> ArenaResult:
    all_games = [g for u in units for g in u["games"]]
    pair_scores = [float(np.mean(_pair_outcomes(u, match))) for u in units]
    matches = None
    if match != "quick":
        ms = [m for u in units for m in u["matches"]]
        matches = {"played": len(ms), "won": sum(m == 1.0 for m in ms), "drawn": sum(m == 0.5 for m in ms),
                   "lost": sum(m == 0.0 for m in ms)}
    score, lo, hi = match_score_interval(pair_scores)
    tri = trinomial_estimate(trinomial(g["score"] for g in all_games))
    a_dec = sum(g["aDecisions"] for g in all_games)
    b_dec = sum(g["bDecisions"] for g in all_games)
    return ArenaResult(
        agent_a=spec_a,
        agent_b=spec_b,
        rules=rules,
        seed=seed,
        match=match,
        pairs=len(units),
        games=len(all_games),
        wins=sum(g["score"] == 1.0 for g in all_games),
        draws=sum(g["score"] == 0.5 for g in all_games),
        losses=sum(g["score"] == 0.0 for g in all_games),
        score=score,
        interval=(lo, hi),
        mean_plies=float(np.mean([g["plies"] for g in all_games])),
        seconds_per_move={
            "A": sum(g["aSeconds"] for g in all_games) / max(a_dec, 1),
            "B": sum(g["bSeconds"] for g in all_games) / max(b_dec, 1),
        },
        elapsed=elapsed,
        matches=matches,
        pentanomial=pair_report([_pair_outcomes(u, match) for u in units]),
        trinomial={"counts": tri.counts, "score": round(tri.score, 4),
                   "scoreInterval": [round(x, 4) for x in tri.interval],
                   "elo": _num(tri.elo), "eloError": _num(tri.elo_error),
                   "eloInterval": [_num(x) for x in tri.elo_interval], "los": round(tri.los, 4)},
        sprt=sprt.to_json(pentanomial(sum(_pair_outcomes(u, match)) for u in units)) if sprt is not None else None,
        backend=backend,
        workers=workers,
        resumed=resumed,
        units=units,
    )


def _summarise_shares(units, spec_a, spec_b, rules, seats, seed, match, elapsed, backend, workers, resumed,
                      sides=None) -> ArenaResult:
    """The result of a game of more seats: A's mean share per game (or match) with a 95%
    interval over the deals (each rotation's mean is one observation), and by seat. With
    teams, A's share is its team's."""
    all_games = [g for u in units for g in u["games"]]
    even = 1 / (seats if sides is None else sides)
    matches = None
    if match != "quick":
        ms = [m for u in units for m in u["matches"]]
        matches = {"played": len(ms), "won": sum(m == 1.0 for m in ms), "drawn": sum(m == even for m in ms),
                   "lost": sum(m == 0.0 for m in ms)}
    score, lo, hi = match_score_interval(float(np.mean(_pair_outcomes(u, match))) for u in units)
    by_seat = {}
    for q in range(seats):
        if match == "quick":
            mine = [g["score"] for g in all_games if g["aSeat"] == q]
        else:  # the unit's q-th match is the one A played from seat q
            mine = [u["matches"][q] for u in units]
        by_seat[seat_name(q)] = {"games" if match == "quick" else "matches": len(mine),
                                 "score": round(float(np.mean(mine)), 4) if mine else None}
    a_dec = sum(g["aDecisions"] for g in all_games)
    b_dec = sum(g["bDecisions"] for g in all_games)
    return ArenaResult(
        agent_a=spec_a,
        agent_b=spec_b,
        rules=rules,
        seed=seed,
        match=match,
        pairs=len(units),
        games=len(all_games),
        wins=sum(g["score"] == 1.0 for g in all_games),
        draws=sum(g["score"] == even for g in all_games),
        losses=sum(g["score"] == 0.0 for g in all_games),
        score=score,
        interval=(lo, hi),
        mean_plies=float(np.mean([g["plies"] for g in all_games])),
        seconds_per_move={
            "A": sum(g["aSeconds"] for g in all_games) / max(a_dec, 1),
            "B": sum(g["bSeconds"] for g in all_games) / max(b_dec, 1),
        },
        elapsed=elapsed,
        matches=matches,
        pentanomial={},
        trinomial={},
        sprt=None,
        backend=backend,
        workers=workers,
        resumed=resumed,
        units=units,
        seats=seats,
        sides=sides,
        by_seat=by_seat,
    )
