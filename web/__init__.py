"""The tablet dashboard (Flask). ``create_app`` is imported lazily so the CLI stays light."""

from __future__ import annotations

from typing import Any


def create_app(config: Any = None) -> Any:
    """Build the Flask app; see ``web.app.create_app``."""
    from web.app import create_app as _create_app

    return _create_app(config)
