"""cuttle_search: a fast Cuttle engine and information-set MCTS analyser.

    import cuttle_search
    result = cuttle_search.analyse("positions/win-in-one-p0.json", iterations=20000, seed=1)
    print(result.best.move, result.best.score)
"""

__version__ = "0.2.0"


def analyse(*args, **kwargs):
    """See :func:`cuttle_search.analysis.analyse` (imported lazily: the CLI starts faster)."""
    from .analysis import analyse as _analyse

    return _analyse(*args, **kwargs)


def best_move(*args, **kwargs):
    """See :func:`cuttle_search.analysis.best_move`."""
    from .analysis import best_move as _best_move

    return _best_move(*args, **kwargs)


__all__ = ["analyse", "best_move", "__version__"]
