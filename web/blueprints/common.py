"""Helpers shared by the blueprints."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from flask import current_app, request

from referee.events import shown_number
from referee.jsonlines import DuplicateKeyError, json_problem, unique_keys
from web.app import Services
from web.errors import BadInput

# deeper than any event, answer or zones document; json.loads stops near 1000 levels with a
# RecursionError (not a ValueError)
MAX_JSON_DEPTH = 32
_SURROGATE = re.compile("[\ud800-\udfff]")
_WHOLE = re.compile(r"-?[0-9]{1,11}")  # ASCII digits only: str.isdigit() takes "²", int() not
# the whole numbers a body may hold: what 64 bits hold, as the log's clock and SQLite do (one
# more, 2**63, still reads, so that a number just past every id is "no such event", a 404)
MAX_WHOLE = 2**63
NUMBER_RANGE = "whole numbers must lie within ±2**63"


def services() -> Services:
    return current_app.extensions["tabletop"]


def json_body(*, whole_numbers_bounded: bool = True) -> dict[str, Any]:
    """The request's JSON object, checked (``_check_json``). ``whole_numbers_bounded=False``:
    the route checks its numbers itself, with a message of its own (a zone's corner)."""
    data = _parsed_body()
    if not isinstance(data, dict):
        raise BadInput("send a JSON object (Content-Type: application/json)")
    _check_json(data, MAX_WHOLE if whole_numbers_bounded else None)
    return data


def _parsed_body() -> Any:
    """The body read as JSON, None when it is not JSON (or not sent as JSON). Read here, not
    with ``request.get_json``: that keeps the last of a key given twice without a word, and
    its ``silent=True`` turns every ValueError into None, so a number of more than 4 300
    digits (which Python refuses to read) answered "send a JSON object"."""
    if not request.is_json:
        return None
    try:
        return current_app.json.loads(request.get_data(cache=True), object_pairs_hook=unique_keys)
    except RecursionError:
        raise BadInput(f"the JSON is nested too deeply (at most {MAX_JSON_DEPTH} levels)") from None
    except DuplicateKeyError as exc:
        raise BadInput(str(exc)) from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None  # not JSON, not UTF-8: "send a JSON object" is the true answer
    except ValueError as exc:
        raise BadInput(
            f"a number in the JSON is too long to read ({json_problem(exc)}); {NUMBER_RANGE}"
        ) from None


def _check_json(data: Any, max_whole: int | None) -> None:
    """Refuse what Python's ``json.loads`` takes but nothing downstream should store: text
    with a lone surrogate (``"\\ud800"``: not UTF-8, so every page showing it would fail),
    NaN/Infinity (not JSON to a browser: the game's snapshot could no longer be read), whole
    numbers past ±``max_whole`` when given (a time or count no table has; one of 4 300 digits
    stored as a ``t_ns`` or an option made every read of its game a 500), and nesting deeper
    than ``MAX_JSON_DEPTH``."""
    todo: list[tuple[Any, int]] = [(data, 0)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                raise BadInput("text must be valid Unicode (a lone surrogate was sent)")
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise BadInput("numbers must be finite: NaN and Infinity are not JSON")
        elif isinstance(value, int) and not isinstance(value, bool):
            if max_whole is not None and not -max_whole <= value <= max_whole:
                raise BadInput(f"{NUMBER_RANGE}, got {shown_number(value)}")
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
