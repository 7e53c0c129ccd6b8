"""The browser analysis board behind ``cuttle-search serve`` (docs/web.md).

``views`` turns positions, game sessions, analyses and reviews into the JSON the page
draws (no web framework needed, so it is tested without one); ``app`` is the Starlette
application that serves the page (``static/``) and answers its websocket. The web layer
asks the engine's questions through ``Position``, ``GameSession`` and ``analysis``: the
page never applies a rule, it draws what the server sends and sends back a move's notation.
"""

from __future__ import annotations

MISSING_EXTRA = "the web board needs the web extra: pip install 'cuttle-search[web]'"


def missing_dependency() -> str | None:
    """None when Starlette, uvicorn and websockets import, else the one-line message saying what to install."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
        import websockets  # noqa: F401  (uvicorn serves the page without it, but no websocket)
    except ImportError:
        return MISSING_EXTRA
    return None
