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
    """``repr(value)`` cut to ``limit`` characters, so a hostile input cannot flood a
    one-line message (a 10,000-digit number, a megabyte string, a deep list)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"a {value.bit_length()}-bit number"
    try:
        text = repr(value)
    except (RecursionError, ValueError):
        return f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def did_you_mean(key: object, names: Iterable[str]) -> str:
    """`` (did you mean 'name'?)`` naming the closest of ``names`` to a key nobody knows, or
    "" when none is close (difflib loads only here: a refusal's cost, not every start's)."""
    import difflib

    close = difflib.get_close_matches(str(key), list(names), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""
