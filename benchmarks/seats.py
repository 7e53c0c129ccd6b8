"""Where an N-seat iteration goes: for each position, a determinization and a playout from
the root with each rollout policy (CPU microseconds a playout, plies a playout), and what
the greedy policy does in those playouts (its decisions, the moves it scores, the moves it
applies on a copy because no rule scores them from the masks, the forced plies).

    python benchmarks/seats.py [--playouts N] [POSITION ...]

Positions are names in positions/ or paths to position files (default: the openings of
two seats, Cutthroat, Team and Multiplayer-4). The counts come from a second pass of the same playouts with the
engine's own scoring functions asked once more, so they do not change the timing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from numba import njit  # noqa: E402

from cuttle_search.engine import layout as L  # noqa: E402
from cuttle_search.engine.apply import apply_move  # noqa: E402
from cuttle_search.engine.info import determinize  # noqa: E402
from cuttle_search.engine.movegen import generate_moves  # noqa: E402
from cuttle_search.engine.policies import (ROLLOUT_GREEDY, ROLLOUT_GREEDY_CUT, ROLLOUT_RANDOM, first_win,  # noqa: E402
                                           policy_pick, quick_balance_n, quick_oneoff_balance, rollout)
from cuttle_search.engine.seats import opponents, partner  # noqa: E402
from cuttle_search.engine.table import points_total  # noqa: E402
from cuttle_search.game.position import Position  # noqa: E402
from cuttle_search.game.errors import CuttleError  # noqa: E402

DEFAULT = ["opening-p0", "cutthroat-opening-p0", "team-opening-p0", "multiplayer-4-opening-p0"]


@njit
def _playouts(root, r, s, unknown, viewer, rng, cards, buf, scratch, count, policy):
    plies = 0
    for _ in range(count):
        determinize(root, s, unknown, viewer, rng, cards, 0, 0)
        plies += rollout(s, r, rng, buf, policy, scratch, -1)
    return plies


@njit
def _counts(root, r, s, unknown, viewer, rng, cards, buf, scratch, count, out):
    """out: plies, forced plies, greedy decisions (main or 7, no win on the spot), moves
    they score, moves with no score from the masks (applied on a copy; counted with the
    N-seat scoring for two seats too, which the two-seat playout does not use)."""
    for _ in range(count):
        determinize(root, s, unknown, viewer, rng, cards, 0, 0)
        while s[L.F_PHASE] != L.PH_OVER:
            n = generate_moves(s, r, buf)
            out[0] += 1
            out[1] += n == 1
            ph = s[L.F_PHASE]
            if (ph == L.PH_MAIN or ph == L.PH_SEVEN) and n > 1 and first_win(s, r, s[L.F_ACTOR], buf, n) < 0:
                p = s[L.F_ACTOR]
                out[2] += 1
                mate = partner(s, r, p)
                against = opponents(s, r, p)
                for i in range(n):
                    out[3] += 1
                    ok = False
                    if ph == L.PH_MAIN:
                        if buf[i] & L.MT_MASK == L.MT_ONE_OFF:
                            ok, _v = quick_oneoff_balance(s, r, buf[i], p, mate, against, 0.0, 0.0)
                        else:
                            ok, _v = quick_balance_n(s, r, buf[i], p, mate, against, points_total(s, p), 0.0, 0.0)
                    out[4] += not ok
            apply_move(s, r, policy_pick(s, r, buf, n, rng, ROLLOUT_GREEDY, scratch))


def position_path(name: str) -> Path:
    """A name in positions/ (``opening-p0``), or a path to a position file."""
    if name.endswith(".json") or "/" in name:
        return Path(name)
    return ROOT / "positions" / f"{name}.json"


def measure(name: str, playouts: int) -> dict[str, float]:
    pos = Position.load(position_path(name))
    r = pos.rules_array
    root = pos.state.copy()
    viewer = int(pos.view) if pos.view is not None else 0
    unknown = np.int64(pos.unknown_cards if pos.hidden is not None else 0)
    s = np.zeros(L.STATE_SIZE, np.int64)
    scratch = np.zeros(L.STATE_SIZE, np.int64)
    buf = np.zeros(L.MAX_MOVES, np.int64)
    cards = np.zeros(64, np.int64)
    out: dict[str, float] = {}
    for label, policy in (("random", ROLLOUT_RANDOM), ("greedy", ROLLOUT_GREEDY), ("greedy-cut", ROLLOUT_GREEDY_CUT)):
        _playouts(root, r, s, unknown, viewer, np.array([1], np.uint64), cards, buf, scratch, 10, policy)
        runs = []
        for rep in range(3):
            rng = np.array([1000 + rep], np.uint64)
            t0 = time.process_time()
            plies = _playouts(root, r, s, unknown, viewer, rng, cards, buf, scratch, playouts, policy)
            runs.append((time.process_time() - t0, plies))
        seconds, plies = sorted(runs)[1]
        out[f"{label} us"] = 1e6 * seconds / playouts
        out[f"{label} plies"] = plies / playouts
    counts = np.zeros(5, np.int64)
    _counts(root, r, s, unknown, viewer, np.array([1000], np.uint64), cards, buf, scratch, playouts, counts)
    for i, key in enumerate(("plies", "forced", "decisions", "scored", "applied")):
        out[f"greedy {key}/playout"] = counts[i] / playouts
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("positions", nargs="*", default=DEFAULT)
    ap.add_argument("--playouts", type=int, default=5000)
    args = ap.parse_args()
    if args.playouts < 1:
        ap.error(f"--playouts: expected a whole number of at least 1, got {args.playouts}")
    print(f"{'position':26s} {'random us/plies':>16s} {'greedy us/plies':>16s} {'cut us/plies':>14s}"
          f" {'forced':>7s} {'decisions':>9s} {'scored':>7s} {'applied':>7s}")
    for name in args.positions:
        try:
            m = measure(name, args.playouts)
        except CuttleError as e:
            ap.error(str(e))
        print(f"{name:26s} {m['random us']:7.2f} {m['random plies']:6.1f}   {m['greedy us']:7.2f} {m['greedy plies']:6.1f}"
              f"   {m['greedy-cut us']:6.2f} {m['greedy-cut plies']:5.1f} {m['greedy forced/playout']:7.1f}"
              f" {m['greedy decisions/playout']:9.1f} {m['greedy scored/playout']:7.1f} {m['greedy applied/playout']:7.2f}",
              flush=True)


if __name__ == "__main__":
    main()
