"""Who may change a game: the referee, proven by PIN → session cookie, plus a CSRF token.

Viewing is open to the LAN. Every POST carries the session's CSRF token (a form field
``csrf_token`` or the ``X-CSRF-Token`` header for JSON calls); changes additionally need
a referee session whose PIN epoch is current (changing the PIN logs everyone out).
Repeated wrong PINs from one address are slowed down.
"""

from __future__ import annotations

import functools
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from flask import abort, current_app, request, session

F = TypeVar("F", bound=Callable[..., Any])

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_FAILURES = 5
LOCKOUT_S = 30.0


def csrf_token() -> str:
    token = session.get("csrf")
    if not isinstance(token, str) or len(token) < 20:
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def check_csrf() -> None:
    """Before every unsafe request: the token must match the session's."""
    if request.method not in UNSAFE_METHODS:
        return
    expected = session.get("csrf")
    given = request.headers.get("X-CSRF-Token")
    if given is None:
        given = request.form.get("csrf_token") if request.mimetype != "application/json" else None
    if not isinstance(expected, str) or not isinstance(given, str):
        abort(403, "missing CSRF token: reload the page and try again")
    if not secrets.compare_digest(expected.encode(), given.encode()):
        abort(403, "wrong CSRF token: reload the page and try again")


def is_referee() -> bool:
    settings = current_app.extensions["tabletop"].settings
    epoch = session.get("referee")
    return isinstance(epoch, str) and settings.pin_is_set and epoch == settings.pin_epoch()


def login_referee() -> None:
    settings = current_app.extensions["tabletop"].settings
    session["referee"] = settings.pin_epoch()
    session["csrf"] = secrets.token_urlsafe(32)  # a fresh token after a privilege change


def logout_referee() -> None:
    session.pop("referee", None)


def referee_required(view: F) -> F:
    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not is_referee():
            abort(401, "only the referee may do this: unlock with the referee PIN")
        return view(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


class Throttle:
    """Per-address wrong-PIN counter: after MAX_FAILURES, wait LOCKOUT_S seconds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fails: dict[str, tuple[int, float]] = {}

    def check(self, addr: str) -> float:
        """Seconds left before ``addr`` may try again (0 when it may)."""
        with self._lock:
            count, since = self._fails.get(addr, (0, 0.0))
            if count < MAX_FAILURES:
                return 0.0
            left = LOCKOUT_S - (time.monotonic() - since)
            if left <= 0:
                self._fails.pop(addr, None)
                return 0.0
            return left

    def failed(self, addr: str) -> None:
        with self._lock:
            count, _ = self._fails.get(addr, (0, 0.0))
            self._fails[addr] = (count + 1, time.monotonic())

    def succeeded(self, addr: str) -> None:
        with self._lock:
            self._fails.pop(addr, None)
