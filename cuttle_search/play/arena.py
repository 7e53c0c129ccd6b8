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

This module schedules a run (``run_arena``: the pairs to play, resuming, the SPRT, the
progress bar); the games are ``arena_games``, the files it writes ``arena_files``, its
result ``arena_summary``.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Any

from .agents import make_agent
from .backends import make_backend
from ..game.rules import find_ruleset
from ..analysis.limits import MAX_SEED
from ..game.seats import plain_number, whole
from .statistics import Sprt, elo, require_two_seats
from .arena_games import (
    MATCH_WINS,
    MAX_GAMES,
    MAX_ROUNDS,
    ROTATION_SALT,
    ArenaError,
    GameRecord,
    _pair_outcomes,
    _play_unit,
    deal_seed,
    dealers,
    game_rng_seed,
    play_game,
    replay,
)
from .arena_files import (
    MAX_LINE,
    RESULTS_FORMAT,
    ResultsFile,
    _check_unit,
    _header,
    _is_int,
    _prepare_log_dir,
    _write_logs,
    max_results_bytes,
    max_unit_line,
)
from .arena_summary import ArenaResult, match_score_interval, summarise

# The arena's names, wherever they live (arena_games: the games; arena_files: the results
# file and the logs; arena_summary: the result): callers import them from here.
__all__ = [
    "MATCH_WINS", "MAX_GAMES", "MAX_LINE", "MAX_ROUNDS", "RESULTS_FORMAT", "ROTATION_SALT", "ArenaError",
    "ArenaResult", "GameRecord", "Sprt", "_check_unit", "_play_unit", "deal_seed", "dealers", "elo",
    "game_rng_seed", "match_score_interval", "max_results_bytes", "max_unit_line", "planned_games", "play_game", "replay",
    "run_arena",
]

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

    games, seed = plain_number(games), whole(seed, "seed", 0, MAX_SEED, ArenaError)
    rs = find_ruleset(rules)
    seats = rs.players
    for spec in (spec_a, spec_b):  # fail early on a bad spec, or an agent that cannot play these seats
        make_agent(spec).check_game(rs)
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
    be = make_backend(backend, workers, address)  # fails now if ray is missing or the cluster unreachable
    results_file = None
    bar = None
    try:
        if save is not None or resume is not None:
            results_file = ResultsFile(save if save is not None else resume, _header(spec_a, spec_b, rs.spec, seed, match),  # type: ignore[arg-type]  # one of them is set
                                       resume=resume is not None, seats=seats, sides=rs.sides, rules=rs)
        # the log folder after the results file: a resumed match's own mismatch is named first
        resuming = (rs.spec, seed, match, (spec_a, spec_b)) if resume is not None else None
        logs = _prepare_log_dir(log_dir, resuming) if keep_logs else None  # type: ignore[arg-type]  # keep_logs: a log_dir was given
        done: dict[int, dict[str, Any]] = {}
        if results_file is not None:
            done = {i: u for i, u in results_file.units.items() if i < pairs}
        resumed = len(done)
        beyond = 0 if results_file is None else len(results_file.units) - resumed  # (a smaller --games)
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
    result = summarise(units, spec_a, spec_b, rs.spec, seats, seed, match, sprt, elapsed, be.name, workers, resumed,
                       rs.sides)
    result.pool_restarts = getattr(be, "restarts", None)
    result.saved_beyond = beyond
    result.games_asked, result.games_planned, result.rounding = games, planned, rounding
    return result
