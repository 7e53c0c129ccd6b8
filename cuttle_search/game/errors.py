"""One base class for every error a user's input can cause, and a safe way to quote input.

Each error is a ``ValueError`` whose message starts with the field at fault
(``p0Hand[3]: ...``, ``iterations: ...``), so the command line prints it as one line
with exit code 2 and the hint server answers it as ``{"error", "field"}``.
"""

from __future__ import annotations

from typing import Any, Iterable

QUOTE_LIMIT = 40


class CuttleError(ValueError):
    """Bad input: a position, a move, a ruleset, a budget, an agent spec or a game log."""


def brief(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """``value`` quoted for a one-line message, cut to ``limit`` characters so that a hostile
    input cannot flood it (a 10,000-digit number, a megabyte string, a deep list). Most bad
    input arrives as JSON (files, hint requests, game logs), so a true, a null, a list or an
    object reads as JSON writes it (``true``, ``null``, ``{"x": 1}``); a string and a number
    as Python writes them (``'p0'``, ``1.5``)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"a {value.bit_length()}-bit number"
    try:
        text = _as_json(value) if value is None or isinstance(value, (bool, list, tuple, dict)) else repr(value)
    except (RecursionError, ValueError):
        return f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _as_json(value: Any) -> str:
    """``value`` as JSON writes it, where it can (else ``repr``: a set, a NumPy number or a
    key that is not a string inside a list or an object)."""
    import json

    try:
        return json.dumps(value, allow_nan=True)
    except (TypeError, ValueError):
        return repr(value)


def did_you_mean(key: object, names: Iterable[str]) -> str:
    """`` (did you mean 'name'?)`` naming the closest of ``names`` to a key nobody knows, or
    "" when none is close (difflib loads only here: a refusal's cost, not every start's)."""
    import difflib

    close = difflib.get_close_matches(str(key), list(names), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""
