"""What a seat sees that ``info.py`` does not answer yet: the cards a private 7 reveals.

A stopgap for the layers above (the OpenSpiel observation strings), kept apart so the
engine's owners can move it into ``info.py`` (next to ``sees_hand``) and teach ``view_state``,
``unseen_cards`` and ``determinize`` the same rule. Plain Python, not a kernel, so the
registry of kernels (and ``warmup``) is unchanged until then.
"""

from .layout import F_ACTOR, F_PHASE, F_REVEALED, PH_SEVEN, R_SEVEN_PRIVATE


def revealed_seen_by(s, r, viewer: int) -> int:
    """The mask of the cards a 7 has revealed (``F_REVEALED``, set only while its player
    picks, ``PH_SEVEN``) that ``viewer`` sees: every seat sees them, or with
    ``R_SEVEN_PRIVATE`` only the 7's player, the seat deciding the pick."""
    if r[R_SEVEN_PRIVATE] == 0 or (s[F_PHASE] == PH_SEVEN and s[F_ACTOR] == viewer):
        return int(s[F_REVEALED])
    return 0
