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
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from .. import __version__
from .agents import Agent, make_agent
from .backends import make_backend
from ..engine import layout as L
from ..engine.apply import apply_move
from ..engine.rng import game_seed
from ..game.errors import CuttleError
from ..game.moves import Move
from ..game.position import Position, PositionError
from ..game.rules import Ruleset, get_ruleset
from .statistics import (
    Z95,
    Sprt,
    _num,
    elo,
    pair_report,
    pentanomial,
    report_text,
    trinomial,
    trinomial_estimate,
)

MATCH_WINS = {"quick": None, "short": 1, "bo3": 2, "bo5": 3}
MAX_ROUNDS = 25  # a match of nothing but drawn rounds stops here, drawn


# ---------------------------------------------------------------- one game
def deal_seed(seed: int, deal: int) -> int:
    return int(game_seed(np.uint64(seed), deal))


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
            a_seat, b_seat = (0, 1) if a_first else (1, 0)
            score = 0.5 if rec.winner is None else float(rec.winner == a_seat)
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
    """A's two scores in a pair: the two games, or with a match format the two matches."""
    return list(unit["matches"]) if match != "quick" else [g["score"] for g in unit["games"]]


# ---------------------------------------------------------------- the results file
RESULTS_FORMAT = "cuttle-search/arena-results"
MAX_LINE = 1 << 20


class ArenaError(CuttleError):
    """Bad arena input (a log directory, a results file, an option): one line for the user."""


def _header(spec_a: str, spec_b: str, rules: str, seed: int, match: str) -> dict[str, Any]:
    return {"format": RESULTS_FORMAT, "version": 1, "engineVersion": __version__, "agentA": spec_a, "agentB": spec_b,
            "rules": rules, "seed": seed, "match": match}


def _is_int(x: Any, lo: int, hi: int) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and lo <= x <= hi


def _is_score(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x in (0, 0.5, 1)


def _check_unit(u: Any, match: str) -> dict[str, Any]:
    """A saved pair, checked field by field (the file is untrusted); raises ValueError."""
    if not isinstance(u, dict):
        raise ValueError("a pair must be a JSON object")
    if not _is_int(u.get("index"), 0, 2**31):
        raise ValueError("index: must be a whole number 0-2^31")
    games = u.get("games")
    size = (2, 2) if match == "quick" else (2, 2 * MAX_ROUNDS)
    if not isinstance(games, list) or not size[0] <= len(games) <= size[1]:
        many = "2" if size[0] == size[1] else f"{size[0]}-{size[1]}"
        raise ValueError(f"games: must be a list of {many} games")
    clean = []
    for k, g in enumerate(games):
        if not isinstance(g, dict):
            raise ValueError(f"games[{k}]: must be an object")
        if not _is_score(g.get("score")):
            raise ValueError(f"games[{k}].score: must be 0, 0.5 or 1")
        for key, hi in (("plies", 100_000), ("aSeat", 1), ("aDecisions", 100_000), ("bDecisions", 100_000)):
            if not _is_int(g.get(key), 0, hi):
                raise ValueError(f"games[{k}].{key}: must be a whole number 0-{hi}")
        for key in ("aSeconds", "bSeconds"):
            x = g.get(key)
            if not (isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and 0 <= x < 1e9):
                raise ValueError(f"games[{k}].{key}: must be a number of seconds")
        clean.append({key: g[key] for key in ("score", "plies", "aSeconds", "aDecisions", "bSeconds", "bDecisions", "aSeat")})
    out: dict[str, Any] = {"index": u["index"], "games": clean, "logs": []}
    if match != "quick":
        m = u.get("matches")
        if not isinstance(m, list) or len(m) != 2 or not all(_is_score(x) for x in m):
            raise ValueError("matches: must be a list of two match scores (0, 0.5 or 1)")
        out["matches"] = [float(x) for x in m]
    return out


class ResultsFile:
    """JSON lines: a header naming the match, then one line per finished pair, flushed as
    each pair finishes, so a stopped run loses at most the pairs still being played."""

    def __init__(self, path: str | Path, header: dict[str, Any], resume: bool) -> None:
        self.path = Path(path)
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
        where = f"resume: {self.path}"
        data = self.path.read_bytes()
        lines = data.split(b"\n")
        valid_end = len(data)  # where appending starts; a cut last line is truncated away
        self._needs_newline = False
        if lines[-1] != b"":  # the last line lacks its newline: a write the stop cut short?
            try:
                json.loads(lines[-1])
                self._needs_newline = True  # whole after all; only the newline is missing
            except (ValueError, RecursionError):
                valid_end -= len(lines[-1])
                lines = lines[:-1]
        rows = []
        for n, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            if len(raw) > MAX_LINE:
                raise ArenaError(f"{where}: line {n} is longer than {MAX_LINE} bytes")
            try:
                rows.append((n, json.loads(raw.decode("utf-8"))))
            except UnicodeDecodeError:
                raise ArenaError(f"{where}: line {n} is not UTF-8 text") from None
            except (ValueError, RecursionError):
                raise ArenaError(f"{where}: line {n} is not valid JSON") from None
        if not rows:
            raise ArenaError(f"{where}: empty; not an arena results file")
        n, head = rows[0]
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
        for n, row in rows[1:]:
            try:
                unit = _check_unit(row, header["match"])
            except ValueError as e:
                raise ArenaError(f"{where}: line {n}: {e}") from None
            if unit["index"] in self.units:
                raise ArenaError(f"{where}: line {n}: pair {unit['index']} appears twice")
            self.units[unit["index"]] = unit
        if valid_end < len(data):
            with self.path.open("r+b") as f:
                f.truncate(valid_end)
        if self._needs_newline:
            with self.path.open("ab") as f:
                f.write(b"\n")

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


def _write_logs(d: Path, unit: dict[str, Any]) -> None:
    for k, log in enumerate(unit["logs"]):
        path = d / f"pair{unit['index']:05d}-game{k}.json"
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
        }

    def report_lines(self) -> list[str]:
        """The fastchess-style block (pentanomial Elo, nElo, LOS, Ptnml, LLR)."""
        w, d, l = (self.matches["won"], self.matches["drawn"], self.matches["lost"]) if self.matches else \
            (self.wins, self.draws, self.losses)
        sprt = None
        if self.sprt:
            sprt = Sprt(self.sprt["elo0"], self.sprt["elo1"], self.sprt["alpha"], self.sprt["beta"], self.sprt["model"])
        pairs = [u["matches"] if self.match != "quick" else [g["score"] for g in u["games"]] for u in self.units]
        return report_text(f"{self.agent_a} vs {self.agent_b} ({self.rules}, seed {self.seed})", (w, l, d), pairs, sprt,
                           unit="matches" if self.matches else "games")


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
    """Play ``games`` games (rounded up to whole pairs) or, with a match format, that many
    matches; A's score counts a draw as half.

    ``backend`` ``local`` runs ``workers`` processes; ``ray`` runs Ray tasks (a local Ray
    instance with ``workers`` CPUs, or the cluster at ``address``). ``save`` writes every
    pair to a results file as it finishes; ``resume`` continues such a file (same agents,
    rules, seed and match), playing only the pairs it lacks. ``sprt`` (``elo0,elo1[,alpha,
    beta]`` or a :class:`Sprt`) stops as soon as the test decides; pairs count in index
    order, so the decision, like every figure, depends on the seed alone."""
    from tqdm import tqdm

    make_agent(spec_a)
    make_agent(spec_b)  # fail early on a bad spec
    rs = get_ruleset(rules)
    if match not in MATCH_WINS:
        raise ArenaError(f"match: expected one of {', '.join(MATCH_WINS)}, got {match!r}")
    if isinstance(sprt, str):
        sprt = Sprt.parse(sprt, sprt_model)
    if save is not None and resume is not None:
        raise ArenaError("save: --resume FILE goes on saving to FILE; give --save or --resume, not both")
    pairs = max(1, math.ceil(games / 2))
    keep_logs = log_dir is not None
    logs = _prepare_log_dir(log_dir) if keep_logs else None
    be = make_backend(backend, workers, address)  # fails now if ray is missing or the cluster unreachable
    results_file = None
    bar = None
    try:
        if save is not None or resume is not None:
            results_file = ResultsFile(save if save is not None else resume, _header(spec_a, spec_b, rs.spec, seed, match),
                                       resume=resume is not None)
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
        bar = tqdm(total=pairs, initial=resumed, desc=f"{spec_a} vs {spec_b}", unit="pair", disable=not progress or None)
        total_score = sum(sum(_pair_outcomes(u, match)) for u in done.values())
        if decided_at is None and todo:
            results = be.imap_unordered(_play_unit, jobs)
            try:
                for u in results:
                    if logs is not None:
                        _write_logs(logs, u)
                    if results_file is not None:
                        results_file.add(u)
                    done[u["index"]] = u
                    fold()
                    total_score += sum(_pair_outcomes(u, match))
                    bar.update()
                    post = f"score {total_score / (2 * len(done)):.3f}"
                    if sprt is not None:
                        post += f" LLR {llr:.2f} ({sprt.lower:.2f}, {sprt.upper:.2f})"
                    bar.set_postfix_str(post)
                    if decided_at is not None:
                        break
            finally:
                results.close()
        elapsed = time.perf_counter() - start
    finally:
        if bar is not None:
            bar.close()
        if results_file is not None:
            results_file.close()
        be.close()
    used = decided_at + 1 if decided_at is not None else pairs
    units = [done[i] for i in range(used)]
    result = _summarise(units, spec_a, spec_b, rs.spec, seed, match, sprt, elapsed, be.name, workers, resumed)
    result.pool_restarts = getattr(be, "restarts", None)
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
