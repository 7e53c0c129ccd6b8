"""Train a learned value of engine/value.py and write its weights: two seats
(cuttle_search/engine/value_weights.py) or, with ``--rules team``, Team
(value_team_weights.py).

    python benchmarks/train_value.py [--rules cuttle-cards|team] [--games 200000] [--seed 11]
                                     [--hidden 32] [--epochs 8] [--search-games 16000 (team: 8000)]
                                     [--search-seed 21] [--iterations 1000] [--search-epochs 12]
                                     [--search-rounds 1] [--workers 2]

Two stages; the defaults give the shipped weights of each game.

1. Greedy self-play. Games of ``--rules`` with the ``greedy`` rollout policy in every
   seat, from fresh deals of the engine's seeded generator; about one main decision in
   three is kept, with its features for the seat to act (``value_features``) and that
   seat's result (a win of its side 1, a stalemate 1/2, a loss 0). Held-out games of
   seed + 1 give the log loss printed beside a constant's and a logistic regression's.
   About 30 s (a minute for Team).
2. Search self-play (skipped with ``--search-games 0``). The first stage's weights are
   written into a temporary copy of the package, and ``ismcts`` with the ``value`` rollout
   plays ``--search-games`` games against itself on that copy
   (benchmarks/value_search_play.py, in blocks of 8,000 deals, 2,000 in Team, spread over
   ``--workers`` processes); every main decision is kept with the seat's final share. A
   network trained on these decisions (the last tenth held out) is the one written. It
   predicts the results of strong play rather than greedy play, and it is the stronger
   evaluation (docs/strength.md, "A learned value"). About 10 minutes on two cores for the
   defaults (15 for Team). ``--search-rounds R`` repeats this stage R times, each round's
   games played with the last round's network (round k's deals are those of
   ``--search-seed`` + k - 1).

Model: one ReLU layer of ``--hidden`` units and a logistic output, trained on the log loss
with Adam (NumPy only, the CPU). The same arguments give the same weights on the same
machine (seeded generators throughout; the sums are BLAS's, so another machine may differ
in the last bits).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from numba import njit  # noqa: E402

from cuttle_search.engine.apply import apply_move  # noqa: E402
from cuttle_search.engine.layout import F_ACTOR, F_PHASE, MAX_MOVES, PH_MAIN, PH_OVER, STATE_SIZE  # noqa: E402
from cuttle_search.engine.movegen import generate_moves  # noqa: E402
from cuttle_search.engine.policies import ROLLOUT_GREEDY, policy_pick  # noqa: E402
from cuttle_search.engine.rng import game_seed, rng_below  # noqa: E402
from cuttle_search.engine.setup import deal  # noqa: E402
from cuttle_search.engine.table import seat_returns  # noqa: E402
from cuttle_search.engine.value import VALUE_ONE, feature_count, value_features  # noqa: E402
from cuttle_search.game.rules import get_ruleset  # noqa: E402

PACKAGE = ROOT / "cuttle_search"
WEIGHTS = {"cuttle-cards": "value_weights.py", "team": "value_team_weights.py"}  # in engine/, by --rules
SEARCH_PLAY = Path(__file__).resolve().parent / "value_search_play.py"
SEARCH_GAMES = {"cuttle-cards": 16_000, "team": 8_000}  # the second stage's games by default (a Team game is longer)
BLOCK = {"cuttle-cards": 8_000, "team": 2_000}  # deals a block of search self-play; the data does not depend on --workers


@njit
def _self_play(r, seed, first, games, every, X, y):
    """Play games ``first ..`` of ``seed``; record about one main decision in ``every``."""
    s = np.zeros(STATE_SIZE, np.int64)
    scratch = np.zeros(STATE_SIZE, np.int64)
    buf = np.zeros(MAX_MOVES, np.int64)
    seats = np.zeros(X.shape[0], np.int64)
    returns = np.zeros(8)
    rng = np.empty(1, dtype=np.uint64)
    n = 0
    for g in range(games):
        rng[0] = game_seed(seed, first + g)
        deal(s, r, rng)
        start = n
        while s[F_PHASE] != PH_OVER:
            if s[F_PHASE] == PH_MAIN and n < X.shape[0] and rng_below(rng, every) == 0:
                value_features(s, r, s[F_ACTOR], X[n])
                seats[n] = s[F_ACTOR]
                n += 1
            m = generate_moves(s, r, buf)
            apply_move(s, r, policy_pick(s, r, buf, m, rng, ROLLOUT_GREEDY, scratch))
        seat_returns(s, r, returns)  # +1 for the winner's side, -1 for the other, 0 each for a stalemate
        for i in range(start, n):
            y[i] = (returns[seats[i]] + 1.0) / 2.0
    return n


def games_data(seed: int, games: int, rules_name: str = "cuttle-cards",
               every: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rules = get_ruleset(rules_name)
    cap = games * 12 * rules.players
    X = np.zeros((cap, feature_count(rules.players)), np.int64)
    y = np.zeros(cap)
    n = _self_play(rules.array, seed, 0, games, every, X, y)
    if n == cap:
        sys.exit(f"train_value: {games:,} games of {rules_name} filled the buffer of {cap:,} decisions")
    return X[:n] / VALUE_ONE, y[:n]


def log_loss(z: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(1.0 / (1.0 + np.exp(-z)), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def logistic(X: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """A logistic regression by Newton's method: the baseline the network must beat."""
    w = np.zeros(X.shape[1])
    for _ in range(25):
        p = 1.0 / (1.0 + np.exp(-(X @ w)))
        g = X.T @ (p - y) / len(y) + l2 * w
        H = (X * (p * (1 - p))[:, None]).T @ X / len(y) + l2 * np.eye(len(w))
        w -= np.linalg.solve(H, g)
    return w


def train(X, y, Xv, yv, hidden, epochs, seed, lr=3e-3, batch=1024):
    rng = np.random.default_rng(seed)
    mu = X.mean(0)
    sd = X.std(0) + 1e-6
    mu[0], sd[0] = 0.0, 1.0  # the bias feature stays 1
    Xn, Xvn = (X - mu) / sd, (Xv - mu) / sd
    d = X.shape[1]
    params = [rng.normal(0, 1 / np.sqrt(d), (d, hidden)), np.zeros(hidden),
              rng.normal(0, 1 / np.sqrt(hidden), hidden), np.zeros(1)]
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]

    def forward(A):
        h = np.maximum(A @ params[0] + params[1], 0.0)
        return h, h @ params[2] + params[3][0]

    step = 0
    for epoch in range(epochs):
        order = rng.permutation(len(y))
        for i in range(0, len(y), batch):
            b = order[i:i + batch]
            h, z = forward(Xn[b])
            gz = (1.0 / (1.0 + np.exp(-z)) - y[b]) / len(b)
            gh = np.outer(gz, params[2]) * (h > 0)
            grads = [Xn[b].T @ gh + 1e-5 * params[0], gh.sum(0), h.T @ gz + 1e-5 * params[2], np.array([gz.sum()])]
            step += 1
            for k in range(4):
                m1[k] = 0.9 * m1[k] + 0.1 * grads[k]
                m2[k] = 0.999 * m2[k] + 0.001 * grads[k] ** 2
                params[k] -= lr * (m1[k] / (1 - 0.9 ** step)) / (np.sqrt(m2[k] / (1 - 0.999 ** step)) + 1e-8)
        print(f"epoch {epoch + 1}: held-out log loss {log_loss(forward(Xvn)[1], yv):.4f}", flush=True)
    return mu, sd, params


def _array(name: str, a: np.ndarray) -> str:
    flat = ", ".join(repr(float(x)) for x in a.ravel())
    return f"{name} = np.array([{flat}]).reshape({a.shape})\n"


def weights_module(header: str, mu: np.ndarray, sd: np.ndarray, p: list[np.ndarray]) -> str:
    return (f'"""The learned value\'s weights (engine/value.py), written by benchmarks/train_value.py\n'
            f'{header}. Do not edit."""\n\n'
            "import numpy as np\n\n"
            + _array("MU", mu) + _array("SD", sd) + _array("W1", p[0]) + _array("B1", p[1])
            + _array("W2", p[2]) + f"B2 = {float(p[3][0])!r}\n")


def search_play_data(weights: str, seed: int, games: int, iterations: int, workers: int,
                     rules_name: str = "cuttle-cards") -> tuple[np.ndarray, np.ndarray]:
    """Search self-play (value_search_play.py) on a copy of the package holding ``weights``."""
    with tempfile.TemporaryDirectory(prefix="train-value-") as tmp:
        copy = Path(tmp) / "cuttle_search"
        shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
        (copy / "engine" / WEIGHTS[rules_name]).write_text(weights)
        env = dict(os.environ, PYTHONPATH=tmp, NUMBA_CACHE_DIR=str(Path(tmp) / "numba-cache"))
        size = BLOCK[rules_name]
        blocks = [(first, min(size, games - first)) for first in range(0, games, size)]
        outs = [Path(tmp) / f"block-{first}.npz" for first, _ in blocks]
        pending = list(zip(blocks, outs))
        running: list[tuple[subprocess.Popen, Path]] = []
        while pending or running:
            while pending and len(running) < workers:
                (first, n), out = pending.pop(0)
                cmd = [sys.executable, str(SEARCH_PLAY), "--seed", str(seed), "--first", str(first),
                       "--games", str(n), "--iterations", str(iterations), "--out", str(out),
                       "--package", tmp, "--rules", rules_name]
                running.append((subprocess.Popen(cmd, env=env, cwd=tmp), out))
            proc, out = running.pop(0)
            if proc.wait() != 0:
                for other, _ in running:
                    other.kill()
                sys.exit(f"train_value: the search self-play for {out.name} failed (exit {proc.returncode})")
        data = [np.load(out) for out in outs]
        return np.concatenate([d["X"] for d in data]), np.concatenate([d["y"] for d in data])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", choices=tuple(WEIGHTS), default="cuttle-cards",
                    help="the game whose value is learned: two seats, or Team (default cuttle-cards)")
    ap.add_argument("--games", type=int, default=200_000, help="greedy self-play games (default 200,000)")
    ap.add_argument("--seed", type=int, default=11, help="seed of the greedy games and the networks (default 11)")
    ap.add_argument("--hidden", type=int, default=32, help="hidden units (default 32)")
    ap.add_argument("--epochs", type=int, default=8, help="passes over the greedy data (default 8)")
    ap.add_argument("--search-games", type=int,
                    help="search self-play games of the second stage; 0 skips it (default 16,000; 8,000 with --rules team)")
    ap.add_argument("--search-seed", type=int, default=21,
                    help="seed of the first round's search games; round k plays seed + k - 1 (default 21)")
    ap.add_argument("--search-rounds", type=int, default=1,
                    help="rounds of search self-play, each with the last round's network (default 1)")
    ap.add_argument("--iterations", type=int, default=1_000, help="ismcts iterations a decision (default 1,000)")
    ap.add_argument("--search-epochs", type=int, default=12, help="passes over the search data (default 12)")
    ap.add_argument("--workers", type=int, default=2, help="processes for the search games (default 2)")
    ap.add_argument("--out", type=Path, help="where to write the weights module (default: the package's, by --rules)")
    a = ap.parse_args()
    for name in ("games", "hidden", "epochs", "iterations", "search_epochs", "search_rounds", "workers"):
        if getattr(a, name) < 1:
            ap.error(f"--{name.replace('_', '-')}: expected at least 1")
    if a.search_games is None:
        a.search_games = SEARCH_GAMES[a.rules]
    if a.search_games < 0:
        ap.error("--search-games: expected 0 or more")
    t0 = time.time()
    out = a.out or PACKAGE / "engine" / WEIGHTS[a.rules]
    X, y = games_data(a.seed, a.games, a.rules)
    Xv, yv = games_data(a.seed + 1, max(a.games // 10, 1), a.rules)
    print(f"{len(y):,} training and {len(yv):,} held-out decisions ({time.time() - t0:.1f} s)")
    print(f"constant: log loss {log_loss(np.full(len(yv), np.log(y.mean() / (1 - y.mean()))), yv):.4f}")
    print(f"logistic regression: log loss {log_loss(Xv @ logistic(X, y), yv):.4f}")
    mu, sd, p = train(X, y, Xv, yv, a.hidden, a.epochs, a.seed)
    header = (f"--rules {a.rules} " if a.rules != "cuttle-cards" else "") + \
        f"--games {a.games} --seed {a.seed} --hidden {a.hidden} --epochs {a.epochs}"
    text = weights_module(header, mu, sd, p)
    for rnd in range(a.search_rounds if a.search_games else 0):
        seed = a.search_seed + rnd
        print(f"stage {rnd + 2}: {a.search_games:,} games of search self-play (seed {seed}) at {a.iterations:,}"
              f" iterations, {a.workers} workers", flush=True)
        X, y = search_play_data(text, seed, a.search_games, a.iterations, a.workers, a.rules)
        cut = int(len(y) * 0.9)
        X, y, Xv, yv = X[:cut], y[:cut], X[cut:], y[cut:]
        print(f"{len(y):,} training and {len(yv):,} held-out decisions ({time.time() - t0:.0f} s)")
        print(f"constant: log loss {log_loss(np.full(len(yv), np.log(y.mean() / (1 - y.mean()))), yv):.4f}")
        print(f"the playing network: log loss {log_loss(_forward(mu, sd, p, Xv), yv):.4f}")
        mu, sd, p = train(X, y, Xv, yv, a.hidden, a.search_epochs, a.seed)
        text = weights_module(header + _search_header(a, rnd + 1), mu, sd, p)
    out.write_text(text)
    print(f"wrote {out} ({time.time() - t0:.0f} s)")


def _search_header(a: argparse.Namespace, rounds: int) -> str:
    return (f"\n--search-games {a.search_games} --search-seed {a.search_seed} --iterations {a.iterations}"
            f" --search-epochs {a.search_epochs}" + (f" --search-rounds {rounds}" if rounds != 1 else ""))


def _forward(mu: np.ndarray, sd: np.ndarray, p: list[np.ndarray], X: np.ndarray) -> np.ndarray:
    """The network's logit for each row of ``X``."""
    return np.maximum(((X - mu) / sd) @ p[0] + p[1], 0.0) @ p[2] + p[3][0]


if __name__ == "__main__":
    main()
