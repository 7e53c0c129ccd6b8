"""Players for the arena, each selectable by a spec like ``ismcts:iterations=20000``.

==================  ==========================================================================
``random``          uniform over the legal moves
``greedy``          rule-based (see :class:`Greedy`)
``cuttlebot``       cuttle.cards' AI as publicly described: depth-2 minimax on the true state
``pimc``            determinized flat Monte Carlo (``iterations`` rollouts per decision;
                    ``greedy`` rollouts unless ``rollout`` names another)
``ismcts``          the analyser (``iterations`` or ``time`` per decision; the analyser's
                    default rollout unless ``rollout`` names one; ``infer=1``
                    infers the cards an opponent lacks from the wins it passed up;
                    ``model=maxn|paranoid|random`` the opponent model, see search.md)
``oracle``          the analyser on the true full state: a ceiling, not a fair player
``pimc-solver``     near the deck's end (at most ``unseen`` cards it cannot see), the exact
                    solver on ``worlds`` sampled deals; elsewhere ``ismcts`` (two seats)
``openspiel-ismcts``  OpenSpiel's IS-MCTS bot through the adapter (needs the openspiel extra)
==================  ==========================================================================

Agents of the layers above this one (``openspiel-ismcts``, from ``interop/openspiel.py``)
register themselves as entry points of the group ``cuttle_search.agents`` (pyproject.toml):
this layer finds them by name in the installed metadata and never names their module, so
every process (the arena's workers, Ray's) finds them the same way. Such a class gives its
parameters in ``PARAMS``.

Every agent but ``cuttlebot`` and ``oracle`` sees only its own view of the game; those two
see both hands and the deck order (``cuttlebot`` as the cuttle.cards AI does). Agents draw
random numbers only from the generator the arena hands them, so a seed reproduces a match.
Every agent but ``cuttlebot`` and ``pimc-solver`` (and ``ismcts:infer=1``) plays games of
any number of seats, each scoring a finished game as its seat's share
(:func:`.agent.win_share`: a win 1, a stalemate 1/n of n seats); :meth:`Agent.check_game`
refuses a game an agent cannot play.
"""

from __future__ import annotations

import time as _time
from importlib.metadata import entry_points
from typing import Any

import numpy as np

from ..game.errors import brief
from ..analysis.limits import (MAX_EXPLORATION, MAX_ITERATIONS, MAX_SECONDS, is_finite_number,
                               rollout_refusal, widen_error)
from ..engine import layout as L
from ..engine import state as S
from ..engine.layout import move_card, move_mask
from ..engine.baselines import cuttlebot_move, pimc_move
from ..engine.info import determinize
from ..engine.policies import apply_unopposed, keep_value, material_balance
from ..engine.seats import opponents, same_side
from ..engine.table import goal, points_total
from .agent import Agent, AgentError
from ..analysis.inference import InferenceTracker
from ..analysis.solve import Solver, solve
from ..analysis.solve_first import NODES_PER_ITERATION
from ..analysis.limits import DEFAULT_ROLLOUT
from ..game.position import Position
from ..game.rules import Ruleset
from ..analysis.ismcts import (
    DEFAULT_EXPLORATION,
    DEFAULT_MODEL,
    MODELS,
    ROLLOUTS,
    Limit,
    run_search,
)


def _rng_state(rng: np.random.Generator) -> np.ndarray:
    """A kernel generator state drawn from the arena's generator."""
    return np.array([rng.integers(0, 2**63)], dtype=np.uint64)


class RandomAgent(Agent):
    def choose(self, game, seat, rng):
        codes = game.legal_codes()  # the legal moves never depend on hidden cards
        return int(codes[rng.integers(len(codes))])


# ---------------------------------------------------------------- greedy
class Greedy(Agent):
    """Take a win when there is one; when an opponent is within reach of their goal
    (10 points or fewer to go), play the move that leaves the nearest opponent furthest
    from theirs; otherwise play the move with the best immediate material change (the
    engine's ``material_balance``: points, the race to the goal, royals, cards in hand,
    against the strongest opponent), and draw when nothing improves on drawing. A one-off is
    judged as if every opponent lets it resolve. Discards give up the least valuable cards."""

    def choose(self, game, seat, rng):
        view = self.view(game, seat)
        r = view.rules_array
        codes = view.legal_codes()
        if len(codes) == 1:
            return int(codes[0])
        s0 = view.state
        against = int(opponents(s0, r, seat))
        rivals = [q for q in range(view.players) if (against >> q) & 1]
        results = []
        for code in codes:
            child = s0.copy()
            apply_unopposed(child, r, np.int64(code))  # every opponent lets a one-off resolve
            if (S.get(child, "phase") == L.PH_OVER and S.get(child, "status") == L.ST_WIN
                    and same_side(child, r, S.get(child, "winner"), seat)):
                return int(code)
            results.append((int(code), child))
        phase = S.get(s0, "phase")
        if phase in (L.PH_FOUR, L.PH_FIVE, L.PH_HAND_LIMIT):
            return min(codes, key=lambda c: (keep_value(move_mask(c)), int(c)))
        if phase == L.PH_THREE:
            return max(codes, key=lambda c: (keep_value(1 << int(move_card(c))), -int(c)))

        def nearest_gap(state) -> float:
            """How far the opponent nearest its goal is from it."""
            return float(min(goal(state, r, q) - points_total(state, q) for q in rivals))

        gap_now = nearest_gap(s0)

        def opp_gap(child):
            if S.get(child, "phase") == L.PH_OVER:
                winner = S.get(child, "winner")
                return -100.0 if winner >= 0 and (against >> winner) & 1 else 100.0
            return nearest_gap(child)

        if gap_now <= 10:
            best = max(results, key=lambda cr: (opp_gap(cr[1]), material_balance(cr[1], r, seat)))
            if opp_gap(best[1]) > gap_now:
                return best[0]
        base = material_balance(s0, r, seat)
        scored = [(material_balance(child, r, seat) - base, code) for code, child in results]
        best_delta = max(d for d, _ in scored)
        draw = L.make_move(L.MT_DRAW, L.NO_CARD, L.NO_CARD)
        if draw in codes and best_delta <= 0.4:  # drawing is worth one card in hand
            return draw
        top = [c for d, c in scored if d >= best_delta - 1e-9]
        return int(top[rng.integers(len(top))])


# ---------------------------------------------------------------- search-based
class CuttleBot(Agent):
    """cuttle.cards' AI: a two-seat minimax (its leaf score is one side less the other)."""

    sees_everything = True
    max_seats = 2

    def seat_limit(self):
        return self.max_seats, "cuttle.cards' AI is a two-player minimax"

    def __post_init__(self) -> None:
        self._bufs = [np.zeros(L.MAX_MOVES, np.int64) for _ in range(2)]
        self._states = [np.zeros(L.STATE_SIZE, np.int64) for _ in range(2)]

    def choose(self, game, seat, rng):
        return int(
            cuttlebot_move(game.state, game.rules_array, _rng_state(rng), *self._bufs, *self._states)
        )


class _RolloutSearcher(Agent):
    """An agent whose search plays out with a rollout policy, which may not hold for every game."""

    rollout: str | None = None  # the policy's name; None: the game's default (limits.default_rollout)

    def refusal(self, rules: Ruleset) -> str | None:
        refusal = rollout_refusal(self.rollout, rules)
        return None if refusal is None else f"rollout {refusal}"


class Pimc(_RolloutSearcher):
    """Determinized flat Monte Carlo: about ``iterations`` rollouts a decision, one after
    every legal move in each sampled world; the move with the best total share wins."""

    def __post_init__(self) -> None:
        self.iterations = int(self.params.get("iterations", 10_000))
        self.rollout = str(self.params.get("rollout", DEFAULT_ROLLOUT))
        self._s = np.zeros(L.STATE_SIZE, np.int64)
        self._child = np.zeros(L.STATE_SIZE, np.int64)
        self._buf = np.zeros(L.MAX_MOVES, np.int64)
        self._moves = np.zeros(L.MAX_MOVES, np.int64)
        self._scores = np.zeros(L.MAX_MOVES, np.float64)
        self._cards = np.zeros(64, np.int64)
        self._scratch = np.zeros(L.STATE_SIZE, np.int64)

    def choose(self, game, seat, rng):
        view = self.view(game, seat)
        codes = view.legal_codes()
        if len(codes) == 1:
            return int(codes[0])
        worlds = max(1, self.iterations // len(codes))
        unknown = np.int64(view.guessed_cards)
        policy = ROLLOUTS[self.rollout]
        return int(
            pimc_move(view.state, view.rules_array, seat, unknown, worlds, _rng_state(rng), policy,
                        self._s, self._child, self._buf, self._moves, self._scores, self._cards, self._scratch)
        )


class Ismcts(_RolloutSearcher):
    def __post_init__(self) -> None:
        self.iterations = self.params.get("iterations")
        self.time = self.params.get("time")
        if self.iterations is None and self.time is None:
            self.iterations = 10_000
        self.exploration = float(self.params.get("c", self.params.get("exploration", DEFAULT_EXPLORATION)))
        rollout = self.params.get("rollout")  # None: the game's default (analysis.limits.default_rollout)
        self.rollout = None if rollout is None else str(rollout)
        self.infer = bool(self.params.get("infer", False))
        self.solver = bool(self.params.get("solver", True))
        self.model = str(self.params.get("model", DEFAULT_MODEL))
        widen = self.params.get("widen")  # None: the game's (analysis.limits.default_widen)
        self.widen = None if widen is None else float(widen) + 0.0  # -0.0 is 0.0
        self._tracker: InferenceTracker | None = None

    def seat_limit(self):
        if self.infer and not self.sees_everything:
            return 2, "infer=1 infers the hand of the one opponent of a two-seat game"
        return None, ""

    def start_game(self, seat):
        self._tracker = InferenceTracker(seat) if self.infer and not self.sees_everything else None

    def observe(self, game, mover, code):
        """Inference (``infer=1``): see :class:`cuttle_search.analysis.inference.InferenceTracker`."""
        if self._tracker is not None:
            self._tracker.observe(game, mover)

    def choose(self, game, seat, rng):
        view = self.view(game, seat)
        codes = view.legal_codes()
        if len(codes) == 1:
            return int(codes[0])
        seed = int(rng.integers(0, 2**62))
        limit = Limit(None if self.iterations is None else int(self.iterations), self.time)
        inference = None
        if self._tracker is not None and self._tracker.seat == seat:
            inference = self._tracker.inference(game, view)
        # the exact solver that answers first where nothing is hidden is a two-seat negamax
        # (analysis/solve.py), so games of more seats search without it
        solver = self.solver and view.rules.exact_solvable
        result = run_search(view, limit, 1, seed, self.rollout, self.exploration, inference=inference,
                            solver=solver, model=self.model, widen=self.widen, cancel=self.cancel)
        return result.best.move.code()


class Oracle(Ismcts):
    """The same search on the true full state: it sees the opponent's hand and the deck
    order, so every iteration plays the one real world. Not a fair player; an upper bound
    on what the search could do with perfect information, to tell luck from skill."""

    sees_everything = True


class PimcSolver(Ismcts):
    """Perfect-information Monte Carlo with a perfect solver near the end of the deck.

    When the player to act cannot see at most ``unseen`` cards (the opponent's hand and the
    deck below its known top), it deals them ``worlds`` times at random (the engine's
    ``determinize``, as the tree search does), solves each deal exactly with every card
    known (``analysis.solve``) and plays the move with the best mean score over the deals
    it proved (a win 1, a draw 1/2, a loss 0; the solver's rank breaks ties). The budget
    (``time`` or ``iterations``, as for ``ismcts``) is shared by the deals: ``time`` split
    evenly, or ``iterations`` x 40 solver nodes in all. A deal not proven within its share
    is left out; when none is proven, and wherever more cards are unseen, it is ``ismcts``
    with the same budget (half of it after a failed try under ``time``), as it is where
    the rules reshuffle the scrap into the deck (the exact solver does not play that
    chance). PIMC's known
    flaw: each deal is solved as if the player could see it (strategy fusion), so it may
    count on a guess it cannot make. ``stats`` counts its decisions by kind."""

    max_seats = 2

    def __post_init__(self) -> None:
        super().__post_init__()
        self.worlds = int(self.params.get("worlds", 16))
        self.unseen = int(self.params.get("unseen", 8))
        self.stats = {"searched": 0, "solved": 0, "fallback": 0, "worldsTried": 0, "worldsProven": 0}
        self._cards = np.zeros(64, np.int64)

    def seat_limit(self):
        return 2, "the exact solver is a two-seat negamax"

    def choose(self, game, seat, rng):
        view = self.view(game, seat)
        codes = view.legal_codes()
        if len(codes) == 1:
            return int(codes[0])
        unknown = view.guessed_cards
        if bin(unknown).count("1") > self.unseen or not view.rules.exact_solvable:
            self.stats["searched"] += 1
            return super().choose(game, seat, rng)
        worlds = 1 if unknown == 0 else self.worlds
        start = _time.perf_counter()
        nodes = None
        if self.iterations is not None:
            nodes = max(1024, int(self.iterations) * NODES_PER_ITERATION // worlds)
        total: dict[int, float] = {}
        count: dict[int, int] = {}
        rank: dict[int, int] = {}
        state = np.zeros(L.STATE_SIZE, np.int64)
        kernel_rng = _rng_state(rng)
        sv = None
        for k in range(worlds):
            if self.cancel is not None and self.cancel.is_set():
                break
            seconds = None
            if self.time is not None:
                left = float(self.time) - (_time.perf_counter() - start)
                if left <= 1e-3:
                    break
                seconds = left / (worlds - k)
            determinize(view.state, state, np.int64(unknown), np.int64(seat), kernel_rng, self._cards, np.int64(0),
                        np.int64(0))
            world = Position(view.rules, state.copy())
            if sv is None:
                sv = Solver(world)
            res = solve(world, nodes=nodes, time=seconds, solver=sv, cancel=self.cancel)
            self.stats["worldsTried"] += 1
            if not res.proven:
                continue
            self.stats["worldsProven"] += 1
            for m in res.moves:
                c = m.move.code()
                total[c] = total.get(c, 0.0) + float(m.score)
                count[c] = count.get(c, 0) + 1
                rank[c] = rank.get(c, 0) + m.rank
        if not total:
            self.stats["fallback"] += 1
            if self.time is None:
                return super().choose(game, seat, rng)
            half = Ismcts(self.spec, {**self.params, "time": max(1e-3, float(self.time) / 2)})
            half.cancel = self.cancel
            return half.choose(game, seat, rng)
        self.stats["solved"] += 1
        legal = {int(c) for c in codes}
        best = max((c for c in total if c in legal), key=lambda c: (total[c] / count[c], -rank[c] / count[c], -c))
        return int(best)


def _flag(value: str) -> bool:
    """A 0/1 agent parameter."""
    if value not in ("0", "1"):
        raise ValueError(value)
    return value == "1"


MAX_WORLDS = 10_000
_PARAM_CAPS = {"iterations": MAX_ITERATIONS, "time": MAX_SECONDS, "c": MAX_EXPLORATION, "exploration": MAX_EXPLORATION,
               "worlds": MAX_WORLDS, "unseen": L.N_CARDS + 2}
_SEARCH_PARAMS = {"iterations": int, "time": float, "c": float, "exploration": float, "rollout": str, "infer": _flag,
                  "solver": _flag, "model": str, "widen": float}
# numeric parameters with a rule of their own (the search's check, one-line message or None),
# instead of "> 0" and a cap
_OWN_CHECKS = {"widen": widen_error}
AGENTS: dict[str, tuple[type[Agent], dict[str, Any]]] = {
    "random": (RandomAgent, {}),
    "greedy": (Greedy, {}),
    "cuttlebot": (CuttleBot, {}),
    "pimc": (Pimc, {"iterations": int, "rollout": str}),
    "ismcts": (Ismcts, _SEARCH_PARAMS),
    "oracle": (Oracle, {k: v for k, v in _SEARCH_PARAMS.items() if k != "infer"}),  # (it sees the hands)
    "pimc-solver": (PimcSolver, {"iterations": int, "time": float, "c": float, "exploration": float, "rollout": str,
                                 "widen": float, "worlds": int, "unseen": int}),
}
AGENT_PLUGINS = "cuttle_search.agents"  # the entry-point group of the agents other layers register


def _registered(name: str) -> Any:
    """The entry point a layer above registered for agent ``name`` (pyproject.toml), or None."""
    found = [ep for ep in entry_points(group=AGENT_PLUGINS) if ep.name == name]
    return found[0] if found else None


def agent_names() -> list[str]:
    """Every agent name: this layer's, then the registered ones."""
    return list(AGENTS) + sorted({ep.name for ep in entry_points(group=AGENT_PLUGINS)} - set(AGENTS))


def make_agent(spec: str) -> Agent:
    """An agent from ``name`` or ``name:param=value,...``."""
    if not isinstance(spec, str):
        raise AgentError(f"agent: expected a name like 'ismcts:iterations=1000', got {brief(spec)}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    plugin = None if name in AGENTS else _registered(name)
    if name not in AGENTS and plugin is None:
        raise AgentError(f"unknown agent {brief(name)} (known: {', '.join(agent_names())})")
    if plugin is not None:
        try:
            cls = plugin.load()
        except ImportError as e:
            if plugin.value.startswith("cuttle_search.interop.openspiel"):  # this project's own plugin
                raise AgentError(f"agent {brief(name)} needs the openspiel extra: pip install 'cuttle-search[openspiel]'") from None
            raise AgentError(f"agent {brief(name)}: its plugin {brief(plugin.value)} cannot be imported "
                             f"({type(e).__name__}: {brief(str(e))})") from None
        if not (isinstance(cls, type) and issubclass(cls, Agent)):
            raise AgentError(f"agent {brief(name)}: its plugin {brief(plugin.value)} is not an Agent class")
        schema = cls.PARAMS
    else:
        cls, schema = AGENTS[name]
    params: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip()
        if key not in schema:
            known = ", ".join(schema) or "none"
            raise AgentError(f"agent {brief(name)}: unknown parameter {brief(part)} (parameters: {known})")
        if not eq:
            raise AgentError(f"agent {brief(name)}: {key} needs a value ({key}=...)")
        if key in params:
            raise AgentError(f"agent {brief(name)}: {key} is given twice")
        try:
            params[key] = schema[key](value.strip())
        except ValueError:
            digits = value.strip()
            if schema[key] is int and digits.isascii() and digits.isdigit():  # (too long for Python to convert)
                high = _PARAM_CAPS.get(key)
                limit = f"at most {high:,.0f}" if high is not None else "shorter"
                raise AgentError(f"agent {brief(name)}: {key} must be {limit}, not {brief(value)}") from None
            kind = {int: "whole number", float: "number", _flag: "0 or 1"}.get(schema[key], "word")
            raise AgentError(f"agent {brief(name)}: {key} must be a {kind}, not {brief(value)}") from None
        if key in _OWN_CHECKS:
            problem = _OWN_CHECKS[key](params[key])
            if problem is not None:
                raise AgentError(f"agent {brief(name)}: {problem}")
            continue
        if schema[key] in (int, float) and params[key] <= 0:
            raise AgentError(f"agent {brief(name)}: {key} must be > 0, not {brief(value)}")
        high = _PARAM_CAPS.get(key)
        if high is not None and not (is_finite_number(params[key]) and params[key] <= high):
            raise AgentError(f"agent {brief(name)}: {key} must be a finite number at most {high:,.0f}, not {brief(value)}")
    if "c" in params and "exploration" in params:
        raise AgentError(f"agent {brief(name)}: c and exploration are one parameter (exploration=X is c=X); give one")
    if "rollout" in params and params["rollout"] not in ROLLOUTS:
        raise AgentError(f"agent {brief(name)}: rollout must be one of {', '.join(ROLLOUTS)}, not {brief(params['rollout'])}")
    if "model" in params and params["model"] not in MODELS:
        raise AgentError(f"agent {brief(name)}: model must be one of {', '.join(MODELS)}, not {brief(params['model'])}")
    return cls(spec.strip(), params)
