"""Helpers shared by the blueprints."""

from __future__ import annotations

import math
import re
from typing import Any

from flask import current_app, request

from web.app import Services
from web.errors import BadInput

# deeper than any event, answer or zones document; json.loads stops near 1000 levels with a
# RecursionError (not the ValueError ``get_json(silent=True)`` swallows)
MAX_JSON_DEPTH = 32
_SURROGATE = re.compile("[\ud800-\udfff]")
_WHOLE = re.compile(r"-?[0-9]{1,11}")  # ASCII digits only: str.isdigit() takes "²", int() not


def services() -> Services:
    return current_app.extensions["tabletop"]


def json_body() -> dict[str, Any]:
    try:
        data = request.get_json(silent=True)
    except RecursionError:
        raise BadInput(f"the JSON is nested too deeply (at most {MAX_JSON_DEPTH} levels)") from None
    if not isinstance(data, dict):
        raise BadInput("send a JSON object (Content-Type: application/json)")
    _check_json(data)
    return data


def _check_json(data: Any) -> None:
    """Refuse what Python's ``json.loads`` takes but nothing downstream should store: text
    with a lone surrogate (``"\\ud800"``: not UTF-8, so every page showing it would fail),
    NaN/Infinity (not JSON to a browser: the game's snapshot could no longer be read), and
    nesting deeper than ``MAX_JSON_DEPTH``."""
    todo: list[tuple[Any, int]] = [(data, 0)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                raise BadInput("text must be valid Unicode (a lone surrogate was sent)")
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise BadInput("numbers must be finite: NaN and Infinity are not JSON")
        elif isinstance(value, dict | list):
            if depth >= MAX_JSON_DEPTH:
                raise BadInput(f"the JSON is nested too deeply (at most {MAX_JSON_DEPTH} levels)")
            items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
            todo.extend((item, depth + 1) for item in items)


def int_field(data: dict[str, Any], name: str) -> int:
    value = data.get(name)
    if isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadInput(f"{name!r} must be a whole number")
    return value


def game_arg() -> int | None:
    """``?game=ID`` or the current game."""
    raw = request.args.get("game")
    if raw in (None, "", "current"):
        return services().games.current_id()
    if not raw.isascii() or not raw.isdigit() or len(raw) > 12:
        raise BadInput("?game= must be a game number")
    return int(raw)
