"""The arena's games: one game between agents (``play_game``, its ``GameRecord`` and log),
a paired deal or paired match of two seats, and a seat rotation of more seats (``_play_unit``,
what a worker runs). Everything follows from the seed (docs/arena.md)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..version import __version__
from .agent import decide, show_move, win_share
from .agents import Agent, make_agent
from ..engine import layout as L
from ..engine import state as S
from ..engine.apply import apply_move
from ..engine.rng import game_seed
from ..engine.seats import next_seat
from ..game.errors import CuttleError, brief
from ..game.gamelog import GAME_VERSION, check_game_log, deal_position, replay as replay_log
from ..game.moves import Move
from ..game.position import Position
from ..game.seats import parse_seat, seat_name, whole
from ..game.rules import Ruleset, find_ruleset

MATCH_WINS = {"quick": None, "short": 1, "bo3": 2, "bo5": 3}
MAX_ROUNDS = 25  # a match of nothing but drawn rounds stops here, drawn
MAX_GAMES = 10_000_000  # the most games (with a match format, matches) one run may be asked for (cli: --games)

# ---------------------------------------------------------------- one game
class ArenaError(CuttleError):
    """Bad arena input (a log directory, a results file, an option): one line for the user."""


def unit_deals(seed: int, index: int, match: str) -> list[int]:
    """The deal seeds of unit ``index`` (a pair, or a seat rotation): its one deal, or with a
    match format a deal for each round it may take."""
    if MATCH_WINS[match] is None:
        return [deal_seed(seed, index)]
    return [deal_seed(seed, index * 1000 + k) for k in range(MAX_ROUNDS)]


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
    rng_seed: int | None = None  # the seed of the game's generator (chance, the agents' draws): play_game's

    def to_json(self) -> dict[str, Any]:
        start = self.start if self.start is not None else deal_position(find_ruleset(self.rules), self.deal_seed,
                                                                         self.dealer)
        log: dict[str, Any] = {
            "format": "cuttle-search/game",
            "version": GAME_VERSION,
            "engineVersion": __version__,
            "rules": self.rules,
            "dealSeed": self.deal_seed,
            "players": {seat_name(q): name for q, name in enumerate(self.players)},
        }
        if self.dealer is not None:
            log["dealer"] = seat_name(self.dealer)
        if self.rng_seed is not None:  # with dealSeed, what plays the game again (docs/arena.md)
            log["rngSeed"] = self.rng_seed
        form = _start_form(start)
        if form is not None:
            log["start"] = form
        elif self.start is not None:  # the deal would not give this start back
            raise ArenaError("start: this start position has no position-file form; its game cannot be logged")
        log["moves"] = self.moves
        log["result"] = {"status": self.status, "winner": None if self.winner is None else seat_name(self.winner)}
        return log


def play_game(rules: Ruleset | str, deal: int, agents: Sequence[Agent], rng_seed: int, dealer: int | None = None,
              start: Position | None = None) -> GameRecord:
    """Play one game on deal seed ``deal``, ``agents[q]`` in seat ``q`` (one agent a seat),
    dealt by ``dealer`` (the engine's default deal when None), or from ``start`` (a full
    position of ``rules``, not changed) when given: the game then goes on from there."""
    rules = find_ruleset(rules) if isinstance(rules, str) else rules
    if not isinstance(rules, Ruleset):
        raise ArenaError(f"rules: expected a ruleset or its name, got {brief(rules)}")
    deal = whole(deal, "deal", 0, 2**64 - 1, ArenaError)
    rng_seed = whole(rng_seed, "rng_seed", 0, 2**64 - 1, ArenaError)
    if start is not None and (not isinstance(start, Position) or start.rules != rules):
        got = start.rules.spec if isinstance(start, Position) else brief(start)
        raise ArenaError(f"start: expected a position of {rules.spec}, got {got}")
    seats = rules.players
    if dealer is not None:  # (the game log writes it as a seat; replay refuses any other)
        dealer = parse_seat(dealer, "dealer", seats, ArenaError)
    if len(agents) != seats:
        raise ArenaError(f"agents: {rules.spec} has {seats} seats, one agent each, but {len(agents)} agents were given")
    for agent in agents:
        agent.check_game(rules)
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
            code = decide(agents[actor], pos, actor, rng)
            seconds[actor] += time.perf_counter() - t0
            decisions[actor] += 1
        show_move(agents, pos, actor, code)
        moves.append(Move.from_code(code).text())
        apply_move(pos.state, pos.rules_array, np.int64(code))
    res = pos.result()
    winner = None if res["winner"] is None else pos.winner
    shares = [win_share(pos.state, pos.rules_array, q) for q in range(seats)]
    return GameRecord(rules.spec, deal, tuple(a.name for a in agents), moves, winner, res["status"], seconds, decisions,
                      dealer, shares, start, int(rng_seed))


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
        deals = unit_deals(seed, index, match)
        a_wins = b_wins = 0
        need = MATCH_WINS[match]
        for k, d in enumerate(deals):
            a_first = (k % 2 == 0) != swap
            agents = (a, b) if a_first else (b, a)
            rec = play_game(rules, d, agents, rng_seed=game_rng_seed(d, 1 if swap else 0))
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


ROTATION_SALT = 0x5DEECE66D


def game_rng_seed(deal: int, k: int) -> int:
    """The seed of an arena game's generator (chance's moves and the agents' own draws): its
    deal's seed salted by ``k``, the game's place among the games of its deal (two seats: 0
    for the pair's first game or match, 1 for the second, whose seats are swapped; more
    seats: the seat A sits in), so that those games do not share their draws. Each log
    writes the result as ``rngSeed``."""
    return (deal ^ (k * ROTATION_SALT)) & (2**64 - 1)


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
    deals = unit_deals(seed, index, match)
    by_round = dealers(rules, len(deals))
    out: dict[str, Any] = {"index": index, "games": [], "logs": []}
    for a_seat in range(n):
        agents = list(others)
        agents.insert(a_seat, a)
        rounds_won = [0] * n
        for k, d in enumerate(deals):
            rec = play_game(rules, d, agents, rng_seed=game_rng_seed(d, a_seat), dealer=by_round[k])
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


def _pair_outcomes(unit: dict[str, Any], match: str) -> list[float]:
    """A's scores in a pair (or rotation): its games, or with a match format its matches."""
    return list(unit["matches"]) if match != "quick" else [g["score"] for g in unit["games"]]
