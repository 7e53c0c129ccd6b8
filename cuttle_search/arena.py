"""The arena: agent against agent on paired deals, with intervals, Elo and game logs.

Deals are paired: deal ``d`` is shuffled from ``(seed, d)`` and played twice, once with A
in seat p0 and once with A in seat p1, so the luck of the deal cancels. A match format
(Board Game Arena's quick, short, best of 3, best of 5) plays matches instead of games;
its rounds use fresh deals and alternate the seats, and the paired match swaps them.
Everything a game does follows from the seed, so a seed reproduces a whole run, whatever
the number of worker processes.
"""

from __future__ import annotations

import json
import math
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from . import __version__
from .agents import Agent, make_agent
from .engine import kernels as K
from .moves import Move
from .position import Position, PositionError
from .rules import Ruleset, get_ruleset
from .search.result import Z95

MATCH_WINS = {"quick": None, "short": 1, "bo3": 2, "bo5": 3}
MAX_ROUNDS = 25  # a match of nothing but drawn rounds stops here, drawn


# ---------------------------------------------------------------- one game
def deal_seed(seed: int, deal: int) -> int:
    return int(K.game_seed(np.uint64(seed), deal))


@dataclass
class GameRecord:
    """A finished game: the deal, the moves in text, the result and the time per move."""

    rules: str
    deal_seed: int
    players: tuple[str, str]
    moves: list[str]
    winner: int | None  # seat, or None for a stalemate
    status: str
    seconds: list[float] = field(default_factory=list)  # thinking time per seat
    decisions: list[int] = field(default_factory=lambda: [0, 0])

    def to_json(self) -> dict[str, Any]:
        start = Position.deal(get_ruleset(self.rules), seed=self.deal_seed)
        return {
            "format": "cuttle-search/game",
            "version": 1,
            "engineVersion": __version__,
            "rules": self.rules,
            "dealSeed": self.deal_seed,
            "players": {"p0": self.players[0], "p1": self.players[1]},
            "start": start.to_dict(),
            "moves": self.moves,
            "result": {"status": self.status, "winner": None if self.winner is None else f"p{self.winner}"},
        }


def play_game(rules: Ruleset, deal: int, agents: tuple[Agent, Agent], rng_seed: int) -> GameRecord:
    """Play one game on deal seed ``deal`` (agents[0] in seat p0)."""
    pos = Position.deal(rules, seed=deal)
    rng = np.random.default_rng(rng_seed)
    moves: list[str] = []
    seconds = [0.0, 0.0]
    decisions = [0, 0]
    for seat, agent in enumerate(agents):
        agent.start_game(seat)
    while not pos.is_over:
        actor = pos.actor
        if actor == K.ACTOR_CHANCE:
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
        K.apply_move(pos.state, pos.rules_array, np.int64(code))
    res = pos.result()
    winner = None if res["winner"] is None else int(res["winner"][1])
    return GameRecord(rules.spec, deal, (agents[0].name, agents[1].name), moves, winner, res["status"], seconds, decisions)


def replay(log: dict[str, Any], upto: int | None = None) -> Position:
    """The position of a game log after its first ``upto`` moves (all of them by default),
    every move checked for legality."""
    if log.get("format") != "cuttle-search/game":
        raise PositionError("format: not a cuttle-search game log")
    pos = Position.from_dict(log["start"])
    moves = log.get("moves", [])
    if upto is not None and not 0 <= upto <= len(moves):
        raise PositionError(f"ply: the game has {len(moves)} moves, so the ply must be 0-{len(moves)}")
    for i, text in enumerate(moves[:upto]):
        try:
            pos.play(text)
        except ValueError as e:
            raise PositionError(f"moves[{i}]: {e}") from None
    return pos


# ---------------------------------------------------------------- a pair of games or matches
def _play_unit(args: tuple) -> dict[str, Any]:
    """One paired deal (or paired match): A's results from both seats. Runs in a worker."""
    rules_spec, spec_a, spec_b, seed, index, match, keep_logs = args
    rules = get_ruleset(rules_spec)
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
            a_seat = 0 if a_first else 1
            score = 0.5 if rec.winner is None else float(rec.winner == a_seat)
            out["games"].append(
                {"score": score, "plies": len(rec.moves), "aSeconds": rec.seconds[a_seat], "aDecisions": rec.decisions[a_seat],
                 "bSeconds": rec.seconds[1 - a_seat], "bDecisions": rec.decisions[1 - a_seat], "aSeat": a_seat}
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


# ---------------------------------------------------------------- statistics
def score_interval(pair_scores: Iterable[float]) -> tuple[float, float, float]:
    """Mean score and its 95% interval from per-pair scores (the pair is the unit, so the
    interval reflects the pairing)."""
    x = np.asarray(list(pair_scores), dtype=float)
    n = len(x)
    if n == 0:
        return 0.5, 0.0, 1.0
    mean = float(x.mean())
    sd = float(x.std(ddof=1)) if n > 1 else 0.5
    half = Z95 * max(sd, 1e-12) / math.sqrt(n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def elo(score: float) -> float:
    """Elo difference implied by an expected score (±inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


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

    @property
    def elo(self) -> float:
        return elo(self.score)

    @property
    def elo_interval(self) -> tuple[float, float]:
        return elo(self.interval[0]), elo(self.interval[1])

    def to_json(self) -> dict[str, Any]:
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
        }


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
) -> ArenaResult:
    """Play ``games`` games (rounded up to whole pairs) or, with a match format, that many
    matches; A's score counts a draw as half."""
    from tqdm import tqdm

    make_agent(spec_a)
    make_agent(spec_b)  # fail early on a bad spec
    rs = get_ruleset(rules)
    if match not in MATCH_WINS:
        raise ValueError(f"match: expected one of {', '.join(MATCH_WINS)}, got {match!r}")
    pairs = max(1, math.ceil(games / 2))
    keep_logs = log_dir is not None
    jobs = [(rs.spec, spec_a, spec_b, seed, i, match, keep_logs) for i in range(pairs)]
    units: list[dict[str, Any]] = []
    start = time.perf_counter()
    bar = tqdm(total=pairs, desc=f"{spec_a} vs {spec_b}", unit="pair", disable=not progress or None)
    total_score = 0.0
    n_scored = 0

    def take(u: dict[str, Any]) -> None:
        nonlocal total_score, n_scored
        units.append(u)
        for g in u["games"]:
            total_score += g["score"]
            n_scored += 1
        bar.update()
        bar.set_postfix_str(f"score {total_score / max(n_scored, 1):.3f}")

    try:
        if workers <= 1:
            for job in jobs:
                take(_play_unit(job))
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                for fut in as_completed([pool.submit(_play_unit, j) for j in jobs]):
                    take(fut.result())
    finally:
        bar.close()
    units.sort(key=lambda u: u["index"])
    elapsed = time.perf_counter() - start
    if keep_logs:
        d = Path(log_dir)
        d.mkdir(parents=True, exist_ok=True)
        for u in units:
            for k, log in enumerate(u["logs"]):
                (d / f"pair{u['index']:05d}-game{k}.json").write_text(json.dumps(log) + "\n")
    all_games = [g for u in units for g in u["games"]]
    if match == "quick":
        pair_scores = [np.mean([g["score"] for g in u["games"]]) for u in units]
        matches = None
    else:
        pair_scores = [np.mean(u["matches"]) for u in units]
        ms = [m for u in units for m in u["matches"]]
        matches = {"played": len(ms), "won": sum(m == 1.0 for m in ms), "drawn": sum(m == 0.5 for m in ms),
                   "lost": sum(m == 0.0 for m in ms)}
    score, lo, hi = score_interval(pair_scores)
    a_dec = sum(g["aDecisions"] for g in all_games)
    b_dec = sum(g["bDecisions"] for g in all_games)
    return ArenaResult(
        agent_a=spec_a,
        agent_b=spec_b,
        rules=rs.spec,
        seed=seed,
        match=match,
        pairs=pairs,
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
    )
