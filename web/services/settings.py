"""The dashboard's own tables in the installation's SQLite file: the referee PIN (hashed),
the session secret, the referee sessions now unlocked, and which verdicts a referee accepted.

The event log (``referee.eventlog``) stays untouched: accepting a verdict changes no game,
it only marks the verdict as reviewed in the console.
"""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path

from werkzeug.security import check_password_hash, generate_password_hash

from referee.eventlog import check_schema

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS web_settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS web_reviews (
    game_id     INTEGER NOT NULL,
    seq         INTEGER NOT NULL,
    action      TEXT NOT NULL,
    reviewed_at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS web_referee_sessions (
    id_hash    TEXT PRIMARY KEY,
    pin_epoch  TEXT NOT NULL,
    expires_at REAL NOT NULL
);
"""

PIN_MIN, PIN_MAX = 4, 12
MAX_TYPED = 64  # longer input is no PIN or setup code: refused before it is normalised
REFEREE_IDLE_S = 12 * 3600.0  # an unlocked tablet left alone this long is locked again
# A session's expiry is pushed back at most this often: not a write to the SD card per request.
TOUCH_EVERY_S = 600.0


class PinError(ValueError):
    """A PIN is malformed, wrong, or may not be set now."""


class WrongSecret(PinError):
    """The current PIN or the setup code is wrong: a guess, which the throttle counts."""


def as_digits(typed: object) -> str:
    """What was typed, with any keyboard's digits as ASCII digits ("１２３" from a CJK keyboard,
    "١٢٣" from an Arabic one → "123") and surrounding spaces dropped.

    PINs have always been stored hashed from ASCII digits, so a PIN typed either way matches
    the stored hash. Anything that is not a string (or is longer than ``MAX_TYPED``) is "".
    """
    if not isinstance(typed, str) or len(typed) > MAX_TYPED:
        return ""
    text = unicodedata.normalize("NFKC", typed).strip()
    return "".join(
        str(digit) if (digit := unicodedata.decimal(ch, None)) is not None else ch for ch in text
    )


def is_pin_shaped(text: str) -> bool:
    """ASCII digits of a PIN's length: the only strings a stored PIN hash can match."""
    return text.isascii() and text.isdigit() and PIN_MIN <= len(text) <= PIN_MAX


def check_pin_format(pin: object) -> str:
    """The PIN as ASCII digits (what is hashed), or PinError saying what is wrong with it."""
    digits = as_digits(pin)
    if not digits.isascii() or not digits.isdigit():
        if isinstance(pin, str) and len(pin) > MAX_TYPED:
            raise PinError(f"the PIN must have {PIN_MIN} to {PIN_MAX} digits")
        raise PinError("the PIN must be digits only")
    if not PIN_MIN <= len(digits) <= PIN_MAX:
        raise PinError(f"the PIN must have {PIN_MIN} to {PIN_MAX} digits")
    return digits


def _setting_text(data: bytes) -> str:
    """A TEXT cell as text even where it is not UTF-8 (a flipped bit, a hand edit): sqlite3's
    own decoding fails the whole read, and ``serve`` would not start over one damaged setting
    (LOG-3). The settings are the dashboard's own: a damaged one reads as a wrong one (a PIN
    that matches nothing, which ``tabletop pin reset`` replaces)."""
    return data.decode("utf-8", "replace")


def _seconds(value: object) -> float | None:
    """A stored expiry as seconds; None when a flipped bit or a hand edit left no number."""
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return seconds if math.isfinite(seconds) else None


def _id_hash(sid: str) -> str:
    return hashlib.sha256(sid.encode("utf-8", "replace")).hexdigest()


class Settings:
    """Thread-safe: one SQLite connection per thread, like the event log."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.clock = clock  # wall-clock seconds: referee sessions outlive a restart
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._lock = threading.Lock()
        check_schema(self._conn())  # another program's file is refused before it is changed
        self._conn().executescript(SCHEMA)
        if not self.pin_is_set:
            self.new_setup_code()  # shown in the terminal at start: whoever started it sets the PIN

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=10, isolation_level=None)
            conn.text_factory = _setting_text
            conn.execute("PRAGMA journal_mode=WAL")
            self._local.conn = conn
        return conn

    def get(self, key: str) -> str | None:
        row = (
            self._conn().execute("SELECT value FROM web_settings WHERE key = ?", (key,)).fetchone()
        )
        return None if row is None else str(row[0])

    def _put(self, key: str, value: str) -> None:
        self._conn().execute(
            "INSERT INTO web_settings (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # -- secret key ----------------------------------------------------------------------
    def secret_key(self) -> str:
        """The session-signing key, created once so sessions survive a restart."""
        with self._lock:
            key = self.get("secret_key")
            if key is None:
                key = secrets.token_hex(32)
                self._put("secret_key", key)
            return key

    # -- PIN -------------------------------------------------------------------------------
    @property
    def pin_is_set(self) -> bool:
        return self.get("pin_hash") is not None

    def pin_epoch(self) -> str:
        """Changes whenever the PIN changes: a referee session of another PIN is no session, even
        where the PIN was changed behind the sessions table's back (a restored backup)."""
        stored = self.get("pin_hash") or ""
        return hashlib.sha256(stored.encode()).hexdigest()[:16]

    # -- the setup code ------------------------------------------------------------------
    @property
    def setup_code(self) -> str:
        """The one-time code that lets a tablet choose the first PIN ("" once it is set)."""
        return self.get("setup_code") or ""

    def new_setup_code(self) -> str:
        """A fresh setup code, kept in the database (not the process) so that ``tabletop pin
        reset`` can hand one to a server that is already running."""
        code = f"{secrets.randbelow(1_000_000):06d}"
        with self._lock:
            self._put("setup_code", code)
        return code

    def clear_pin(self) -> str:
        """Forget the PIN (a family that forgot it; only someone at the Pi can do this): every
        referee session ends with it. Returns the new setup code."""
        with self._lock:
            self._conn().execute("DELETE FROM web_settings WHERE key = 'pin_hash'")
            self.end_referee_sessions()
        return self.new_setup_code()

    def set_first_pin(self, pin: str, setup_code: str) -> None:
        """Raises WrongSecret for a wrong setup code (a guess), PinError for anything else."""
        pin = check_pin_format(pin)
        if self.pin_is_set:
            raise PinError("the referee PIN is already set")
        expected = self.setup_code
        # bytes: compare_digest refuses a non-ASCII str (a TypeError, so a 500, before)
        given = as_digits(setup_code).encode("utf-8", "replace")
        if not expected or not secrets.compare_digest(given, expected.encode()):
            raise WrongSecret(
                "wrong setup code: use the code printed where `tabletop serve` runs "
                "(or by `tabletop pin reset`)"
            )
        with self._lock:
            if self.pin_is_set:
                raise PinError("the referee PIN is already set")
            self._put("pin_hash", generate_password_hash(pin))
            self._conn().execute("DELETE FROM web_settings WHERE key = 'setup_code'")  # used
            self.end_referee_sessions()

    def change_pin(self, old: str, new: str) -> None:
        """Raises WrongSecret for a wrong current PIN (a guess), PinError for a bad new one."""
        new = check_pin_format(new)
        if not self.check_pin(old):
            raise WrongSecret("the current PIN is wrong")
        with self._lock:
            self._put("pin_hash", generate_password_hash(new))
            self.end_referee_sessions()  # every tablet locks: the changer unlocks again

    def check_pin(self, pin: object) -> bool:
        """Whether ``pin`` is the referee PIN, typed with any keyboard's digits."""
        stored = self.get("pin_hash")
        digits = as_digits(pin)
        if stored is None or not is_pin_shaped(digits):
            return False
        try:
            return check_password_hash(stored, digits)
        except (ValueError, TypeError):  # a damaged hash (its method, or not ASCII): no PIN
            log.warning(
                "the stored referee PIN cannot be checked (a damaged database): "
                "run `tabletop pin reset` at the Pi to choose a new one"
            )
            return False

    # -- referee sessions -----------------------------------------------------------------
    # A session cookie is only signed, so a copy of it works wherever it is sent: the cookie
    # carries a random id, and the id counts only while its row is here (Lock deletes it).
    # Rows hold the id's hash, so a copy of the database file unlocks no tablet.

    def start_referee_session(self, epoch: str | None = None) -> str:
        """A new referee session for the PIN of ``epoch`` (read before that PIN was checked:
        a PIN changed meanwhile must not be the one it unlocks; default the current PIN's):
        the id to keep in the cookie."""
        sid = secrets.token_urlsafe(32)
        now = self.clock()
        conn = self._conn()
        conn.execute("DELETE FROM web_referee_sessions WHERE expires_at <= ?", (now,))
        conn.execute(
            "INSERT INTO web_referee_sessions (id_hash, pin_epoch, expires_at) VALUES (?, ?, ?)",
            (_id_hash(sid), epoch or self.pin_epoch(), now + REFEREE_IDLE_S),
        )
        return sid

    def referee_session_alive(self, sid: object) -> bool:
        """Whether ``sid`` is a session of the current PIN, neither ended nor idle too long;
        being asked counts as use. Anything else (an old cookie's PIN epoch) is no session."""
        if not isinstance(sid, str) or not sid or not self.pin_is_set:
            return False
        row = (
            self._conn()
            .execute(
                "SELECT pin_epoch, expires_at FROM web_referee_sessions WHERE id_hash = ?",
                (_id_hash(sid),),
            )
            .fetchone()
        )
        now = self.clock()
        expires = _seconds(row[1]) if row is not None else None
        if row is None or row[0] != self.pin_epoch() or expires is None or not now < expires:
            return False  # a damaged row (LOG-3) reads as no session, not a 500
        if expires - now < REFEREE_IDLE_S - TOUCH_EVERY_S:
            self._touch(sid, now)
        return True

    def _touch(self, sid: str, now: float) -> None:
        """Push the session's expiry back; a storage that takes no write (a full or read-only
        card) must not stop the referee from viewing, so that failure is only logged."""
        try:
            self._conn().execute(
                "UPDATE web_referee_sessions SET expires_at = ? WHERE id_hash = ?",
                (now + REFEREE_IDLE_S, _id_hash(sid)),
            )
        except sqlite3.Error as exc:
            log.warning("a referee session could not be kept alive: %s", exc)

    def end_referee_session(self, sid: object) -> None:
        """Lock: ``sid`` stops counting, in every browser holding a copy of the cookie."""
        if isinstance(sid, str) and sid:
            self._conn().execute(
                "DELETE FROM web_referee_sessions WHERE id_hash = ?", (_id_hash(sid),)
            )

    def end_referee_sessions(self) -> None:
        """Every tablet is locked (the PIN changed or was forgotten)."""
        self._conn().execute("DELETE FROM web_referee_sessions")

    # -- reviews ---------------------------------------------------------------------------
    def review(self, game_id: int, seq: int, action: str) -> None:
        self._conn().execute(
            "INSERT INTO web_reviews (game_id, seq, action, reviewed_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(game_id, seq) DO UPDATE SET action = excluded.action, "
            "reviewed_at = excluded.reviewed_at",
            (game_id, seq, action, time.time()),
        )

    def reviews(self, game_id: int) -> dict[int, str]:
        rows = self._conn().execute(
            "SELECT seq, action FROM web_reviews WHERE game_id = ?", (game_id,)
        )
        return {int(seq): str(action) for seq, action in rows}

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
