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
    """Per-address wrong-PIN counter: after MAX_FAILURES, wait LOCKOUT_S seconds.

    A guess is reserved with ``begin`` *before* the slow hash and settled with ``failed``,
    ``succeeded`` or ``release`` after it: guesses still being checked count against the
    limit, so a burst of parallel requests gets no more than MAX_FAILURES checked (checking
    the count first and counting the failure after the hash let all of a burst through).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fails: dict[str, tuple[int, float]] = {}  # addr -> (failures, last failure)
        self._pending: dict[str, int] = {}  # addr -> guesses begun and not yet settled

    def _failures(self, addr: str, now: float) -> tuple[int, float]:
        """Failures still counting (a lockout that has run out forgets them); under the lock."""
        count, since = self._fails.get(addr, (0, 0.0))
        if count >= MAX_FAILURES and now - since >= LOCKOUT_S:
            self._fails.pop(addr, None)
            return 0, 0.0
        return count, since

    def begin(self, addr: str) -> float:
        """Reserve one guess for ``addr``: 0 when reserved (settle it with ``failed``,
        ``succeeded`` or ``release``), else the seconds to wait and nothing is reserved."""
        with self._lock:
            now = time.monotonic()
            count, since = self._failures(addr, now)
            if count >= MAX_FAILURES:
                return LOCKOUT_S - (now - since)
            pending = self._pending.get(addr, 0)
            if count + pending >= MAX_FAILURES:
                return LOCKOUT_S
            self._pending[addr] = pending + 1
            return 0.0

    def _settle(self, addr: str) -> None:
        pending = self._pending.get(addr, 0) - 1
        if pending > 0:
            self._pending[addr] = pending
        else:
            self._pending.pop(addr, None)

    def failed(self, addr: str) -> None:
        """A wrong guess: it stays counted, and the lockout runs from now."""
        with self._lock:
            self._settle(addr)
            count, _ = self._failures(addr, time.monotonic())
            self._fails[addr] = (count + 1, time.monotonic())

    def succeeded(self, addr: str) -> None:
        """The right PIN or code: ``addr``'s wrong guesses are forgotten."""
        with self._lock:
            self._settle(addr)
            self._fails.pop(addr, None)

    def release(self, addr: str) -> None:
        """The request guessed nothing (malformed, two PINs differ): it does not count."""
        with self._lock:
            self._settle(addr)
