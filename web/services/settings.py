"""The dashboard's own table in the installation's SQLite file: the referee PIN (hashed),
the session secret, and which verdicts a referee accepted.

The event log (``referee.eventlog``) stays untouched: accepting a verdict changes no game,
it only marks the verdict as reviewed in the console.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import threading
import time
from pathlib import Path

from werkzeug.security import check_password_hash, generate_password_hash

from referee.eventlog import check_schema

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
"""

PIN_MIN, PIN_MAX = 4, 12


class PinError(ValueError):
    """A PIN is malformed, wrong, or may not be set now."""


def check_pin_format(pin: object) -> str:
    if not isinstance(pin, str) or not pin.isascii() or not pin.isdigit():
        raise PinError("the PIN must be digits only")
    if not PIN_MIN <= len(pin) <= PIN_MAX:
        raise PinError(f"the PIN must have {PIN_MIN} to {PIN_MAX} digits")
    return pin


class Settings:
    """Thread-safe: one SQLite connection per thread, like the event log."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
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
        """Changes whenever the PIN changes, so old referee sessions stop working."""
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
        referee session ends with it (``pin_epoch``). Returns the new setup code."""
        with self._lock:
            self._conn().execute("DELETE FROM web_settings WHERE key = 'pin_hash'")
        return self.new_setup_code()

    def set_first_pin(self, pin: str, setup_code: str) -> None:
        check_pin_format(pin)
        if self.pin_is_set:
            raise PinError("the referee PIN is already set")
        expected = self.setup_code
        if not expected or not secrets.compare_digest(str(setup_code).strip(), expected):
            raise PinError(
                "wrong setup code: use the code printed where `tabletop serve` runs "
                "(or by `tabletop pin reset`)"
            )
        with self._lock:
            if self.pin_is_set:
                raise PinError("the referee PIN is already set")
            self._put("pin_hash", generate_password_hash(pin))
            self._conn().execute("DELETE FROM web_settings WHERE key = 'setup_code'")  # used

    def change_pin(self, old: str, new: str) -> None:
        check_pin_format(new)
        if not self.check_pin(old):
            raise PinError("the current PIN is wrong")
        with self._lock:
            self._put("pin_hash", generate_password_hash(new))

    def check_pin(self, pin: object) -> bool:
        stored = self.get("pin_hash")
        if stored is None or not isinstance(pin, str) or len(pin) > 64:
            return False
        return check_password_hash(stored, pin)

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
