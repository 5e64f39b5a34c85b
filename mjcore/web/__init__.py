"""The web analyser: a page and a JSON API in one process (``mjcore web``; the ``web`` extra).

``create_app(WebConfig(...))`` is the ASGI app; ``server(config)`` a uvicorn server for it.
"""
from __future__ import annotations

from .app import WebConfig, create_app, server

__all__ = ["WebConfig", "create_app", "server"]
