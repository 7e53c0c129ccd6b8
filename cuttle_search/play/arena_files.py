"""The files an arena run writes: the results file (JSON lines, resumable, read back as
untrusted input and checked field by field) and the directory of game logs."""

from __future__ import annotations

import json
import math
import re
import tempfile
from pathlib import Path
from typing import Any

from ..version import __version__
from ..engine import layout as L
from ..game.inputs import check_writable, parse_json, write_whole
from ..game.rules import Ruleset
from .arena_games import MATCH_WINS, MAX_GAMES, MAX_ROUNDS, ArenaError, dealers, unit_deals

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
        if not resume or self.path.exists():  # (a missing --resume file: the read says so)
            check_writable(self.path, ArenaError, opt)
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
                    row = parse_json(body.decode("utf-8"), ArenaError, f"{where}: line {n}")
                except UnicodeDecodeError:
                    raise ArenaError(f"{where}: line {n} is not UTF-8 text") from None
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


_LOG_NAME = re.compile(r"^(pair|deal)(\d{5,})-game(\d+)\.json$")  # the arena's game logs (``_write_logs``)


def _prepare_log_dir(log_dir: str | Path, resuming: tuple[str, int, str, tuple[str, str]] | None = None) -> Path:
    """Create the log directory and prove it writable before any game is played. A new
    match refuses a directory that already holds game logs: it would replace some of them
    and leave the others, mixing two matches. A match ``resuming`` (its rules, seed,
    format and agents) takes one whose first log is of that match: the same rules, the
    deal of that pair and its agents."""
    d = Path(log_dir)
    earlier = sorted((p.name for p in d.iterdir() if _LOG_NAME.match(p.name)),
                     key=lambda name: tuple(map(int, _LOG_NAME.match(name).group(2, 3)))) if d.is_dir() else []  # type: ignore[union-attr]  # (matched above)
    if earlier and resuming is None:
        raise ArenaError(f"log-dir: {log_dir} already holds game logs ({earlier[0]}, ...): give a new or empty "
                         "folder, so that two matches' logs are not mixed (--resume writes on into its match's)")
    if earlier and resuming is not None:
        _check_match_log(d / earlier[0], *resuming)
    try:
        d.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=d, prefix=".write-test-"):
            pass
    except OSError as e:
        raise ArenaError(f"log-dir: cannot create or write {log_dir}: {e.strerror or e}") from None
    return d


def _check_match_log(path: Path, rules: str, seed: int, match: str, agents: tuple[str, str]) -> None:
    """A log the resumed match wrote into its folder: a game of its rules, between its
    agents, on the deal its pair (or rotation) index and seed give (the first round of a
    match format)."""
    index = int(_LOG_NAME.match(path.name).group(2))  # type: ignore[union-attr]  # (listed by that pattern)
    try:
        log = parse_json(path.read_text(encoding="utf-8"), ArenaError, "log")
    except (OSError, UnicodeDecodeError):
        raise ArenaError(f"log-dir: cannot read {path} to check it is of this match") from None
    deal = unit_deals(seed, index, match)[0]
    players = log.get("players") if isinstance(log, dict) else None
    if (not isinstance(log, dict) or log.get("rules") != rules or log.get("dealSeed", deal) != deal
            or not isinstance(players, dict) or not set(players.values()) <= set(agents)):
        raise ArenaError(f"log-dir: {path} is not of the match --resume continues ({agents[0]} against "
                         f"{agents[1]}, rules {rules}, seed {seed}): give that match's folder, or a new one")


def _write_logs(d: Path, unit: dict[str, Any], seats: int = 2) -> None:
    kind = "pair" if seats == 2 else "deal"
    for k, log in enumerate(unit["logs"]):
        path = d / f"{kind}{unit['index']:05d}-game{k}.json"
        try:
            write_whole(path, json.dumps(log) + "\n")  # a log is whole or absent, never half written
        except OSError as e:
            raise ArenaError(f"log-dir: cannot write {path}: {e.strerror or e}") from None
