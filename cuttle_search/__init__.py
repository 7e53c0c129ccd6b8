"""cuttle_search: a fast Cuttle engine and information-set MCTS analyser.

    import cuttle_search
    result = cuttle_search.analyse("positions/win-in-one-p0.json", iterations=20000, seed=1)
    print(result.best.move, result.best.score)

    pos = cuttle_search.Position.load("positions/deck-out-endgame.json")
    print(cuttle_search.solve(pos).moves[0].proven)

The public names (``Position``, ``Move``, ``Limit``, ``analyse``, ``analyse_stream``,
``best_move``, ``solve``, the results ``AnalysisResult``, ``MoveStat``, ``SolveResult`` and
``SolveProgress``, ``get_ruleset``, and the input errors: ``CuttleError``, the base of
every one of them (catch it for any bad input), ``PositionError``, ``MoveError``,
``RulesError`` and ``SearchError``)
are imported on first use, so ``import cuttle_search`` (and the command line's start) stays
fast: the engine loads only when a name that needs it is touched.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .version import __version__

_PUBLIC = {
    "Position": "cuttle_search.game.position",
    "Move": "cuttle_search.game.moves",
    "Limit": "cuttle_search.analysis.limits",
    "analyse": "cuttle_search.analysis",
    "analyse_stream": "cuttle_search.analysis",
    "best_move": "cuttle_search.analysis",
    "solve": "cuttle_search.analysis.solve",
    "AnalysisResult": "cuttle_search.analysis.result",
    "MoveStat": "cuttle_search.analysis.result",
    "SolveResult": "cuttle_search.analysis.solve_result",
    "SolveProgress": "cuttle_search.analysis.solve_threads",
    "get_ruleset": "cuttle_search.game.rules",
    "CuttleError": "cuttle_search.game.errors",
    "RulesError": "cuttle_search.game.rules",
    "PositionError": "cuttle_search.game.position",
    "MoveError": "cuttle_search.game.moves",
    "SearchError": "cuttle_search.analysis.limits",
}

if TYPE_CHECKING:  # pragma: no cover
    from .analysis import analyse, analyse_stream, best_move
    from .analysis.limits import Limit, SearchError
    from .analysis.result import AnalysisResult, MoveStat
    from .analysis.solve import solve
    from .analysis.solve_result import SolveResult
    from .analysis.solve_threads import SolveProgress
    from .game.errors import CuttleError
    from .game.moves import Move, MoveError
    from .game.rules import RulesError, get_ruleset
    from .game.position import Position, PositionError


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        value = getattr(import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cuttle_search' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_PUBLIC))


__all__ = [
    "__version__", "Position", "Move", "Limit", "analyse", "analyse_stream", "best_move", "solve",
    "AnalysisResult", "MoveStat", "SolveResult", "SolveProgress", "get_ruleset", "CuttleError", "RulesError",
    "PositionError", "MoveError", "SearchError",
]
