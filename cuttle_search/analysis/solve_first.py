"""The solver as the analyser's first step: where nothing is hidden from the player to act
and the deck is short, ``analyse`` solves first (``solve_first``) and the tree search gets
the time left; ``FirstSolve`` turns the solver's answer into an ``AnalysisResult`` or adds
its proven values to the tree's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine import layout as L
from ..game.position import Position
from .limits import DEFAULT_MODEL, DEFAULT_WIDEN, CancelEvent, Limit
from .solve import is_single_state, solve
from .solve_result import SolveResult

# ---------------------------------------------------------------- the analyser's first step
# the solver's node budget per tree iteration: a proof is worth more than the iterations' time
# (at an empty deck 400,000 nodes take about 0.3 s, 10,000 iterations 4 ms: docs/search.md)
NODES_PER_ITERATION = 40
SOLVE_FIRST_DECK = 4  # with more cards in a known deck the exact search rarely finishes in a hint's budget
_RANK_GROUP = {"win": 0, "draw": 1, "expected": 1}  # proven losses go below every unproven move


def solver_applies(pos: Position) -> bool:
    """Whether ``analyse`` solves first: two seats (the solver's values are two-sided),
    nothing hidden from the player to act (the deck is empty, or a full view) and at most
    ``SOLVE_FIRST_DECK`` cards in the deck."""
    return (pos.rules.exact_solvable and not pos.is_over and pos.actor != L.ACTOR_CHANCE and is_single_state(pos)
            and pos.deck_size <= SOLVE_FIRST_DECK)


@dataclass
class FirstSolve:
    """The solver's answer before the tree search: all of it, or what it proved in time."""

    result: SolveResult

    @property
    def proven(self) -> bool:
        return self.result.proven

    def info(self) -> dict[str, Any]:
        r = self.result
        return {"proven": r.proven, "value": r.value, "solvedMoves": sum(m.proven for m in r.moves),
                "nodes": r.nodes, "seconds": round(r.seconds, 6), "nodesPerSecond": round(r.nodes_per_second, 1),
                "nodeBudget": r.node_budget}

    def remaining(self, limit):
        """The tree's budget: the time the solver left (the iterations are unchanged)."""
        if limit.time is None:
            return limit
        return Limit(limit.iterations, max(limit.time - self.result.seconds, 0.01))

    def analysis(self, pos: Position, threads: int, seed: int, rollout: str, exploration: float,
                 model: str = DEFAULT_MODEL, widen: float = DEFAULT_WIDEN):
        """An ``AnalysisResult`` that is the solver's answer (no tree search)."""
        from ..version import __version__
        from .result import AnalysisResult, MoveStat

        best = self.result.moves[0].score
        stats = [
            MoveStat(rank=m.rank, move=m.move, visits=0, wins=0, draws=0, availability=0,
                     gap=best - m.score, pv=m.pv, solved=True, proven=m.value, plies=m.plies,  # type: ignore[operator]  # every move here is proven: it has a score
                     **proven_figures(m.score, m.value, pos.actor, pos.rules.players))  # type: ignore[arg-type]
            for m in self.result.moves
        ]
        return AnalysisResult(
            viewer=pos.actor, phase=pos.phase_name, rules=pos.rules.spec, moves=stats, iterations=0,
            determinizations=0, nodes=0, seconds=self.result.seconds, threads=threads, seed=seed, rollout=rollout,
            exploration=float(exploration), engine_version=__version__, position=pos.name, solver=self.info(),
            model=model, widen=widen,
        )

    def annotate(self, tree):
        """The tree's result with the proven values added: proven wins (the shortest first),
        then proven draws, then the unproven moves in the tree's order, then proven losses
        (the longest first). A proven value is exact; an unproven move may still be anything."""
        from dataclasses import replace

        solved = {m.move.code(): m for m in self.result.moves}
        rows = []
        for i, ms in enumerate(tree.moves):
            sm = solved.get(ms.move.code())
            value = sm.value if sm is not None else None
            if value is None and ms.proven is not None:  # the tree's MCTS-Solver proved it
                value = ms.proven
            group = 2 if value is None else _RANK_GROUP.get(value, 3)
            exact = sm is not None and sm.value is not None
            order = (group, -(sm.score or 0.0) if exact else 0.0,
                     (sm.plies or 0) * (1 if value == "win" else -1) if exact and value in ("win", "loss") else 0, i)
            pv = sm.pv if exact and len(sm.pv) > 1 else ms.pv
            plies = sm.plies if sm is not None and sm.value is not None else None
            row = replace(ms, solved=True, proven=value, plies=plies, pv=pv)
            if exact and sm.score is not None:  # the solver's value, not the visits' (a proven move may have none)
                row = replace(row, best_reply_score=None,  # (exact already: nothing to back up)
                              **proven_figures(sm.score, value, tree.viewer, 2))  # (the solver's games: two seats)
            rows.append((order, row))
        rows.sort(key=lambda row: row[0])
        tree.moves = [replace(ms, rank=rank) for rank, (_o, ms) in enumerate(rows, 1)]
        best = tree.moves[0].score
        tree.moves = [replace(ms, gap=best - ms.score) for ms in tree.moves]
        tree.solver = self.info()
        tree.seconds += self.result.seconds  # the answer's time: the solver's, then the tree's
        return tree


def proven_figures(score: float, value: str | None, viewer: int, seats: int) -> dict[str, Any]:
    """A proven move's ``MoveStat`` figures: its exact ``score`` for ``viewer`` (1 a win, 1/2
    a draw, 0 a loss, or an expectation over chance) with an interval of no width, the win and
    draw rates its value says, and each seat's share and win rate (the solver's games have
    two seats). The one place they are written: the solver's own answer and a tree's
    proven moves both take them."""
    def by_seat(mine: float, theirs: float) -> tuple[float, ...]:
        return tuple(mine if q == viewer else theirs for q in range(seats))

    return {"score": score, "interval": (score, score), "win_rate": float(value == "win"),
            "draw_rate": float(value == "draw"), "seat_scores": by_seat(score, 1.0 - score),
            "seat_win_rates": by_seat(float(value == "win"), float(value == "loss"))}


def solve_first(pos: Position, limit, cancel: CancelEvent | None = None) -> FirstSolve | None:
    """Run the solver within ``limit`` (a search ``Limit``) when it applies, else None;
    ``cancel`` (the search's) stops it too."""
    if not solver_applies(pos):
        return None
    iterations = limit.effective_iterations
    nodes = None if iterations is None else iterations * NODES_PER_ITERATION
    seconds = None if limit.time is None else limit.time / 2
    return FirstSolve(solve(pos, nodes=nodes, time=seconds, cancel=cancel))
