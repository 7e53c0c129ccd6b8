"""Where an agent's games are lost: the two-seat game logs of an arena run, read back.

    cuttle-search arena ismcts:iterations=10000 cuttlebot --games 400 --seed 21500 --log-dir DIR
    python benchmarks/losses.py DIR [--agent SPEC] [--full-iterations N] [--iterations N]
        [--solve-seconds S] [--workers W] [--json FILE]

Two questions, each answered by searching the agent's decisions again:

* **When did the games it did not win go wrong?** Each of the agent's decisions with a
  choice, in every game it lost or drew, is searched with every card seen (the analyser on
  the true position, as ``oracle`` plays: ``--full-iterations`` each). The *drop* of the
  move played is that search's best score less the played move's. Reported by stage (the
  calibration's: plies 0-9, then deck > 30, 11-30, <= 10): the drops summed, and in how
  many games the largest drop came there; and how many games the full view scored below
  0.3 (its best move's score) at the agent's first decision with a choice. The full view
  knows the deck order, so a drop can be a card the agent could not know: it says when a
  game went wrong, not whose fault.
* **Did the end of the deck cost anything?** Every decision of the agent, in every game,
  where nothing was hidden from it (the analyser solves first there,
  ``solve_first.solver_applies``) is searched again from its view with ``--iterations``:
  proven within the budget, or left to the tree. Each one left to the tree is solved
  (``--solve-seconds``); the played move's loss against the best proven score, from the
  search's proof or the solver's, is summed (an agent other than the analyser at that
  budget may lose points where the search proves its answer).

The agent is ``--agent`` (a player spec as the logs write it), by default the arena's A (the
spec in seat p0 of a ``-game0`` log); in a game where both seats have that spec it is the
seat the log's name gives (``pair00007-game1``: p1). Text on stdout, ``--json FILE`` for
the figures, one line and exit status 2 for a bad input.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, NoReturn

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cuttle_search.analysis.analyser import analyse  # noqa: E402
from cuttle_search.analysis.calibration import STAGES, stage_of  # noqa: E402
from cuttle_search.analysis.solve import solve  # noqa: E402
from cuttle_search.analysis.solve_first import solver_applies  # noqa: E402
from cuttle_search.game.errors import CuttleError  # noqa: E402
from cuttle_search.game.gamelog import read_game_log, replay  # noqa: E402

LOG_NAME = re.compile(r"(?:pair|deal)(\d+)-game(\d+)\.json$")
BEHIND_FROM_THE_START = 0.3  # a first decision the full view scores below this: the deal was against the agent


def _fail(message: str) -> NoReturn:
    print(f"losses.py: {message}", file=sys.stderr)
    raise SystemExit(2)


class _Arguments(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, as for every other bad input
        _fail(message)


def agent_seat(log: dict[str, Any], name: str, agent: str) -> int | None:
    """The agent's seat in this game: the seat whose spec is ``agent``, the one the log's
    name gives when both are, None when neither is."""
    seats = [i for i in range(2) if log["players"].get(f"p{i}") == agent]
    if len(seats) == 2:
        m = LOG_NAME.search(name)
        return int(m.group(2)) if m else None
    return seats[0] if seats else None


def examine(job: tuple[str, str, int, int, float]) -> dict[str, Any]:
    """One game (runs in a worker): the agent's result, its decisions' drops (games it did
    not win only) and its decisions where nothing was hidden from it."""
    path, agent, full_iterations, iterations, solve_seconds = job
    log = read_game_log(path)
    seat = agent_seat(log, Path(path).name, agent)
    pos = replay(log, 0)  # (its start, or its deal)
    share = replay(log).share_of(seat)
    drops, endgame = [], []
    for ply, text in enumerate(log["moves"]):
        if pos.actor == seat and len(pos.legal_moves()) > 1:
            played = str(pos.copy().play(text))
            if share < 1.0:
                full = analyse(pos, iterations=full_iterations, seed=ply)
                scores = {str(m.move): m.score for m in full.moves}
                best = full.moves[0].score  # the search's best move: its most visited
                if played in scores:  # (every legal move is searched at the root)
                    drops.append({"ply": ply, "deck": pos.deck_size, "stage": stage_of(pos.actions, pos.deck_size),
                                  "played": played, "fullBest": str(full.moves[0].move), "fullBestScore": best,
                                  "drop": max(0.0, best - scores[played])})
            view = pos.view_of(seat)
            if solver_applies(view):
                searched = analyse(view, iterations=iterations, seed=ply)
                row: dict[str, Any] = {"ply": ply, "deck": pos.deck_size, "played": played,
                                       "proven": searched.stop_reason == "proven", "loss": None}
                if row["proven"]:  # every move's score is exact
                    truth = {str(m.move): m.score for m in searched.moves}
                else:
                    truth = {str(m.move): m.score for m in solve(view, time=solve_seconds).moves}
                known = [v for v in truth.values() if v is not None]
                if known and truth.get(played) is not None:
                    row["loss"] = max(known) - truth[played]
                endgame.append(row)
        pos.play(text)
    return {"game": Path(path).name, "seat": seat, "share": share, "drops": drops, "endgame": endgame}


def summarise(games: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of the text report, from ``examine``'s games."""
    not_won = [g for g in games if g["share"] < 1.0]
    by_stage = [0.0] * len(STAGES)
    largest_at = [0] * len(STAGES)
    behind = 0
    for g in not_won:
        for d in g["drops"]:
            by_stage[d["stage"]] += d["drop"]
        if g["drops"]:
            largest_at[max(g["drops"], key=lambda d: d["drop"])["stage"]] += 1
            behind += g["drops"][0]["fullBestScore"] < BEHIND_FROM_THE_START
    endgame = [row for g in games for row in g["endgame"]]
    unproven = [row for row in endgame if not row["proven"]]
    return {
        "games": len(games), "won": len(games) - len(not_won),
        "lost": sum(g["share"] == 0.0 for g in games), "drawn": sum(0.0 < g["share"] < 1.0 for g in games),
        "stages": list(STAGES), "dropsByStage": by_stage, "largestDropAt": largest_at,
        "behindFromTheStart": behind, "withDecisions": sum(bool(g["drops"]) for g in not_won),
        "nothingHidden": len(endgame), "proven": len(endgame) - len(unproven), "leftToTheTree": len(unproven),
        "solvedAfter": sum(row["loss"] is not None for row in unproven),
        "lossToTheSolver": sum(row["loss"] or 0.0 for row in endgame),
        "costly": [dict(game=g["game"], **row) for g in games for row in g["endgame"] if row["loss"]],
    }


def report(s: dict[str, Any], agent: str) -> str:
    lines = [f"{agent}: {s['games']} games, won {s['won']}, lost {s['lost']}, drawn {s['drawn']}",
             "",
             f"Games not won, searched with every card seen ({s['withDecisions']} with a decision of the agent):",
             "| stage | drops summed | games whose largest drop came here |", "|---|---|---|"]
    lines += [f"| {name} | {drop:.2f} | {n} |" for name, drop, n in zip(s["stages"], s["dropsByStage"], s["largestDropAt"])]
    lines += [f"Below {BEHIND_FROM_THE_START} at the agent's first decision: {s['behindFromTheStart']} games.",
              "",
              f"Decisions with nothing hidden: {s['nothingHidden']}; proven within the budget {s['proven']}, "
              f"left to the tree {s['leftToTheTree']} (solved after: {s['solvedAfter']}); "
              f"the played moves' loss against the proven best: {s['lossToTheSolver']:.2f} "
              f"({s['lossToTheSolver'] / max(1, s['games']):.4f} a game)"]
    lines += [f"  {c['game']} ply {c['ply']} (deck {c['deck']}): {c['played']} loses {c['loss']:.2f}" for c in s["costly"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = _Arguments(description=__doc__.split("\n\n")[0])
    ap.add_argument("log_dir", help="an arena --log-dir of a two-seat game")
    ap.add_argument("--agent", help="the player spec to examine (default: the arena's A)")
    ap.add_argument("--full-iterations", type=int, default=30_000, metavar="N",
                    help="iterations of the search that sees every card (default 30,000)")
    ap.add_argument("--iterations", type=int, default=10_000, metavar="N",
                    help="iterations of the search again from the agent's view where nothing is hidden (default 10,000)")
    ap.add_argument("--solve-seconds", type=float, default=4.0, metavar="S",
                    help="the solver's time for a decision the search leaves unproven (default 4)")
    ap.add_argument("--workers", type=int, default=2, metavar="W", help="processes (default 2)")
    ap.add_argument("--json", metavar="FILE", help="write the figures and every game's decisions here")
    a = ap.parse_args(argv)
    for name in ("full_iterations", "iterations", "workers"):
        if getattr(a, name) < 1:
            _fail(f"--{name.replace('_', '-')}: expected a whole number of at least 1, got {getattr(a, name)}")
    if not a.solve_seconds > 0:
        _fail(f"--solve-seconds: expected a positive number of seconds, got {a.solve_seconds}")
    paths = sorted(p for p in Path(a.log_dir).glob("*.json") if LOG_NAME.search(p.name)) if Path(a.log_dir).is_dir() else None
    if not paths:
        _fail(f"log_dir: {a.log_dir} is not a directory of arena game logs (pair00000-game0.json and on)")
    logs = {}
    for p in paths:
        try:
            logs[p] = read_game_log(p)
            end = replay(logs[p])  # every move legal, the recorded result the one they reach
        except CuttleError as e:
            _fail(f"{p.name}: {e}")
        players = logs[p].get("players")
        if not isinstance(players, dict) or sorted(players) != ["p0", "p1"]:
            _fail(f"{p.name}: players: expected the two seats' specs, p0 and p1, as an arena writes them")
        if not end.is_over:
            _fail(f"{p.name}: moves: the game is not finished")
    agent = a.agent
    if agent is None:
        first = next((p for p in paths if p.name.endswith("-game0.json")), paths[0])
        agent = logs[first]["players"]["p0"]
    jobs = [(str(p), agent, a.full_iterations, a.iterations, a.solve_seconds) for p in paths
            if agent_seat(logs[p], p.name, agent) is not None]
    if not jobs:
        _fail(f"--agent: no game has a player {agent!r}")
    bar = {"total": len(jobs), "desc": "games", "unit": "game", "file": sys.stderr}
    if a.workers == 1:  # in this process: no worker to start (nor to load the kernels in)
        games = [examine(job) for job in tqdm(jobs, **bar)]
    else:
        with ProcessPoolExecutor(a.workers) as pool:
            games = list(tqdm(pool.map(examine, jobs), **bar))
    summary = summarise(games)
    print(report(summary, agent))
    if a.json:
        Path(a.json).write_text(json.dumps({"agent": agent, "summary": summary, "games": games}, indent=1) + "\n")


if __name__ == "__main__":
    main()
