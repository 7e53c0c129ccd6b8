"""Typed Python over the engine: cards, rulesets, moves, positions and their file forms, game
logs. Importing the package registers the position file forms (``formats``) behind
``Position.load`` and ``Position.to_dict``: ``position.py`` itself imports none of them."""

from . import formats  # noqa: F401  (registers Position's readers and writers)
