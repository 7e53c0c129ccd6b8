"""Information-set MCTS analysis: rank the viewer's moves with trustworthy win rates.

The names of the analysis API, from the modules that hold them (``analyser``: analyse and
best_move; ``ismcts``: the tree driver; ``limits``: the budget and the search's error;
``result``: what a search returns). No module of this package imports the package itself.
"""

from .analyser import Hint, analyse, analyse_stream, best_move, confidence_stop, inference_from_history
from .ismcts import HandInference, Snapshot, run_search, search_viewer
from .limits import (DEFAULT_EXPLORATION, DEFAULT_ITERATIONS, DEFAULT_MODEL, DEFAULT_ROLLOUT, Limit, SearchError,
                     default_rollout)
from .result import AnalysisResult, MoveStat

__all__ = ["analyse", "analyse_stream", "confidence_stop", "best_move", "AnalysisResult", "MoveStat", "Hint",
           "HandInference", "Limit", "SearchError", "search_viewer", "inference_from_history", "run_search",
           "Snapshot", "DEFAULT_ITERATIONS", "DEFAULT_EXPLORATION", "DEFAULT_ROLLOUT", "DEFAULT_MODEL",
           "default_rollout"]
