"""Who may change a game: the referee, proven by PIN → session cookie, plus a CSRF token.

Viewing is open to the LAN. Every POST carries the session's CSRF token (a form field
``csrf_token`` or the ``X-CSRF-Token`` header for JSON calls); changes additionally need
a referee session: a random id in the cookie that counts while the settings database holds
it (Lock deletes it, changing the PIN deletes them all, 12 h unused ends it).
Wrong PINs are slowed down per address, longer each round, and for all addresses together.
"""

from __future__ import annotations

import functools
import math
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from flask import abort, current_app, request, session

F = TypeVar("F", bound=Callable[..., Any])

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_FAILURES = 5  # wrong guesses in one round from one address
LOCKOUT_S = 30.0  # the wait after the first round; each further round doubles it ...
MAX_LOCKOUT_S = 3600.0  # ... up to this
FORGET_S = 86400.0  # an address's rounds are forgotten after a success or a quiet day
# However many devices guess: at most this many wrong guesses in SHARED_WINDOW_S, all together.
SHARED_MAX_FAILURES = 50
SHARED_WINDOW_S = 3600.0


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
    if request.routing_exception is not None:  # no route runs: let its 404/405 be the answer
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
    """Whether this request's session id is a live referee session. A cookie from before
    day 35 holds the PIN's epoch instead, which is no session id: it must unlock again."""
    settings = current_app.extensions["tabletop"].settings
    return settings.referee_session_alive(session.get("referee"))


def login_referee(epoch: str | None = None) -> None:
    """``epoch``: the PIN's as read before it was checked (``Settings.start_referee_session``)."""
    settings = current_app.extensions["tabletop"].settings
    settings.end_referee_session(session.get("referee"))  # unlocking again: one session
    session["referee"] = settings.start_referee_session(epoch)
    session["csrf"] = secrets.token_urlsafe(32)  # a fresh token after a privilege change


def logout_referee() -> None:
    """Lock: the session ends on the server first, so a copy of this cookie is locked too
    (and a storage that takes no write leaves this tablet unlocked, not falsely locked)."""
    current_app.extensions["tabletop"].settings.end_referee_session(session.get("referee"))
    session.pop("referee", None)


def referee_required(view: F) -> F:
    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not is_referee():
            abort(401, "only the referee may do this: unlock with the referee PIN")
        return view(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


@dataclass(frozen=True)
class Refusal:
    """A guess not allowed now: wait ``wait_s`` seconds; ``everyone`` when the limit shared by
    all addresses refused it (this device may have guessed nothing wrong)."""

    wait_s: float
    everyone: bool = False

    def in_words(self) -> str:
        """The wait rounded up, as a person says it: "30 seconds", "2 minutes"."""
        seconds = max(math.ceil(self.wait_s), 1)
        if seconds < 60:
            return f"{seconds} second{'s' if seconds != 1 else ''}"
        minutes = math.ceil(seconds / 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"


@dataclass
class _Record:
    """One address's wrong guesses."""

    failures: int = 0  # in the round now running
    rounds: int = 0  # rounds that ended in a lockout, since the last success or quiet day
    locked_until: float = 0.0
    last: float = 0.0  # the last wrong guess


def lockout_s(rounds: int) -> float:
    """The wait after ``rounds`` earlier lockouts: 30 s, 1 min, 2 min, … at most an hour."""
    return min(LOCKOUT_S * 2 ** min(rounds, 32), MAX_LOCKOUT_S)


class Throttle:
    """Wrong-guess limits: per address, MAX_FAILURES a round and a lockout that doubles each
    round; for all addresses together, SHARED_MAX_FAILURES in SHARED_WINDOW_S.

    A fixed 30 s lockout let one device try ~10 PINs a minute for ever (every 4-digit PIN in
    ~17 h); the doubling leaves it ~5 an hour, and the shared limit keeps several devices
    (or addresses) from multiplying that.

    A guess is reserved with ``begin`` *before* the slow hash and settled with ``failed``,
    ``succeeded`` or ``release`` after it: guesses still being checked count against the
    limits, so a burst of parallel requests gets no more checked than one sent one by one.
    ``clock`` (monotonic seconds) is injectable so tests need not wait.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._fails: dict[str, _Record] = {}
        self._pending: dict[str, int] = {}  # addr -> guesses begun and not yet settled
        self._shared: deque[float] = deque()  # when each recent wrong guess was made

    def _record(self, addr: str, now: float) -> _Record | None:
        """``addr``'s record, unless it is out of lockout and FORGET_S have passed since its
        last wrong guess (then it is forgotten); under the lock."""
        rec = self._fails.get(addr)
        if rec is not None and now >= rec.locked_until and now - rec.last >= FORGET_S:
            del self._fails[addr]
            return None
        return rec

    def _shared_wait(self, now: float) -> float:
        """Seconds until the shared limit allows one more guess (0: now); under the lock."""
        while self._shared and now - self._shared[0] >= SHARED_WINDOW_S:
            self._shared.popleft()
        if len(self._shared) + sum(self._pending.values()) < SHARED_MAX_FAILURES:
            return 0.0
        return self._shared[0] + SHARED_WINDOW_S - now if self._shared else SHARED_WINDOW_S

    def begin(self, addr: str) -> Refusal | None:
        """Reserve one guess for ``addr``: None when reserved (settle it with ``failed``,
        ``succeeded`` or ``release``), else how long to wait, and nothing is reserved."""
        with self._lock:
            now = self._clock()
            rec = self._record(addr, now) or _Record()
            if now < rec.locked_until:
                return Refusal(rec.locked_until - now)
            pending = self._pending.get(addr, 0)
            if rec.failures + pending >= MAX_FAILURES:  # the round is used up by guesses in flight
                return Refusal(lockout_s(rec.rounds))
            shared = self._shared_wait(now)
            if shared > 0:
                return Refusal(shared, everyone=True)
            self._pending[addr] = pending + 1
            return None

    def _settle(self, addr: str) -> None:
        pending = self._pending.get(addr, 0) - 1
        if pending > 0:
            self._pending[addr] = pending
        else:
            self._pending.pop(addr, None)

    def failed(self, addr: str) -> None:
        """A wrong guess: it stays counted; the round's last one starts the next lockout."""
        with self._lock:
            self._settle(addr)
            now = self._clock()
            rec = self._record(addr, now) or self._fails.setdefault(addr, _Record())
            rec.failures += 1
            rec.last = now
            if rec.failures >= MAX_FAILURES:
                rec.locked_until = now + lockout_s(rec.rounds)
                rec.rounds += 1
                rec.failures = 0
            self._shared.append(now)
            self._forget_quiet(now)

    def _forget_quiet(self, now: float) -> None:
        """Drop every address quiet for FORGET_S, so the table stays small; under the lock."""
        for addr in [a for a, r in self._fails.items() if now - r.last >= FORGET_S]:
            self._record(addr, now)

    def succeeded(self, addr: str) -> None:
        """The right PIN or code: ``addr``'s wrong guesses are forgotten (the shared count is
        not: one device's success says nothing of the guesses made from others)."""
        with self._lock:
            self._settle(addr)
            self._fails.pop(addr, None)

    def release(self, addr: str) -> None:
        """The request guessed nothing (malformed, two PINs differ): it does not count."""
        with self._lock:
            self._settle(addr)
