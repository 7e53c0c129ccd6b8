"""Seat names and the checks of untrusted whole numbers: the one home of the ``pN`` notation
(seat ``N`` is written ``pN`` everywhere: files, moves, messages, options) and of the
"expected a whole number from lo to hi" check every input reader makes.

Which seats a game has is the engine's answer (``engine.seats.seat_count``, or
``Position.players``); this module only spells and reads their names.
"""

from __future__ import annotations

import sys
from typing import Any

from .errors import CuttleError, brief

MAX_SEATS = 8  # engine/layout.py's MAX_PLAYERS: every seat name is p0 .. p7


def seat_name(p: int) -> str:
    """Seat ``p`` as written: ``p0``, ``p1`` ..."""
    return f"p{p}"


def seat_number(value: Any, seats: int) -> int | None:
    """The seat ``value`` names in a game of ``seats`` seats: ``pN`` (any case, spaces
    around) or the number ``N`` itself (not a bool, a NumPy integer too); None when it names
    none of them."""
    value = plain_number(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 0 <= value < seats else None
    if isinstance(value, str):
        v = value.strip().lower()
        if len(v) == 2 and v[0] == "p" and v[1] in "01234567" and int(v[1]) < seats:
            return int(v[1])
    return None


def parse_seat(value: Any, field: str, seats: int, error: type[CuttleError] = CuttleError) -> int:
    """:func:`seat_number`, or ``error`` naming ``field`` and the seats there are."""
    q = seat_number(value, seats)
    if q is None:
        raise error(f"{field}: expected a seat p0 to p{seats - 1}, got {brief(value)}")
    return q


def plain_number(value: Any) -> Any:
    """A NumPy integer or float as Python's ``int`` or ``float`` (a researcher's budgets
    and seeds often come from NumPy); anything else unchanged, for the checks to judge."""
    if value is None or isinstance(value, (int, float, str)):
        return value
    np = sys.modules.get("numpy")  # (not imported here: without NumPy loaded there is no NumPy number)
    if np is None:
        return value
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def is_whole(value: Any) -> bool:
    """An ``int`` that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def whole(value: Any, field: str, lo: int, hi: int, error: type[CuttleError] = CuttleError) -> int:
    """``value`` as an ``int`` when it is a whole number from ``lo`` to ``hi`` (a NumPy
    integer too); else ``error`` naming ``field``, the range and (cut short) what it got."""
    value = plain_number(value)
    if not is_whole(value) or not lo <= value <= hi:
        raise error(f"{field}: expected a whole number from {lo:,} to {hi:,}, got {brief(value)}")
    return value
