"""The typed game layer, with no rule logic of its own: cards, rulesets, moves and their
notation, positions and their file formats, game logs, perft, and the one error base class.
Every rule question goes to the engine."""
