"""Helpers shared by the blueprints."""

from __future__ import annotations

from typing import Any

from flask import current_app, request

from web.app import Services
from web.errors import BadInput


def services() -> Services:
    return current_app.extensions["tabletop"]


def json_body() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadInput("send a JSON object (Content-Type: application/json)")
    return data


def int_field(data: dict[str, Any], name: str) -> int:
    value = data.get(name)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value) < 12:
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadInput(f"{name!r} must be a whole number")
    return value


def game_arg() -> int | None:
    """``?game=ID`` or the current game."""
    raw = request.args.get("game")
    if raw in (None, "", "current"):
        return services().games.current_id()
    if not raw.isdigit() or len(raw) > 12:
        raise BadInput("?game= must be a game number")
    return int(raw)
