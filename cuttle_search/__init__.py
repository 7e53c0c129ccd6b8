"""cuttle_search: a fast Cuttle engine and analyser."""

__version__ = "0.1.0"
