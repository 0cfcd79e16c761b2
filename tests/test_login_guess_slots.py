"""Unlocking holds a guess slot only while it tests the PIN (WEB-9): a storage error settles
the slot, and a PIN of the wrong form (OK with nothing typed) takes none."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from tests.test_web_routes import PIN, Tablet, make_app
from web.security import MAX_FAILURES


@pytest.fixture
def referee(tmp_path: Any) -> Tablet:
    t = Tablet(make_app(tmp_path))
    assert t.set_pin().status_code == 302
    return t


def test_ruling_web9_a_storage_error_at_login_does_not_hold_a_guess(
    referee: Tablet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A locked database while the PIN's epoch was read left the reservation unsettled for
    ever: five such errors refused the right PIN (429) from that address for good."""
    settings = referee.services.settings
    tablet = Tablet(referee.app)

    def locked() -> str:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(settings, "pin_epoch", locked)
    for _ in range(MAX_FAILURES):
        assert tablet.login(PIN).status_code == 503
    monkeypatch.undo()
    assert referee.services.throttle._pending == {}
    assert tablet.login(PIN).status_code == 302  # before: 429 "too many wrong PINs"
    assert tablet.client.get("/api/whoami").json["referee"] is True


def test_ruling_web9_a_pin_of_the_wrong_form_at_login_is_not_counted(referee: Tablet) -> None:
    """OK tapped with nothing (or too little) typed tests no PIN: five taps by a child locked
    the tablet for 30 s, the right PIN included."""
    tablet = Tablet(referee.app)
    for typed in ["", "1", "12", "123", " ", "24a8", "1" * 13][: MAX_FAILURES + 2]:
        r = tablet.login(typed)
        assert r.status_code == 400, typed  # before: 403 "wrong PIN", counted
        assert b"wrong PIN" not in r.data
    assert b"the PIN must have 4 to 12 digits" in tablet.login("").data
    throttle = referee.services.throttle
    assert throttle._pending == {} and throttle._fails == {}
    assert tablet.login(PIN).status_code == 302  # before: 429


def test_ruling_web9_a_current_pin_of_the_wrong_form_at_change_is_not_counted(
    referee: Tablet,
) -> None:
    """At "Change the PIN", the current PIN left empty (or too short) tests no secret: it
    answers what a PIN is and costs none of the address's five guesses."""
    assert referee.login(PIN).status_code == 302

    def change(old: str) -> Any:
        form = {"csrf_token": referee.token, "old": old, "pin": "1111", "pin2": "1111"}
        return referee.client.post("/pin/change", data=form)

    for typed in ["", "1", "12", "123", "24a8", "1" * 13]:
        r = change(typed)
        assert r.status_code == 400 and b"current PIN: the PIN must" in r.data, typed
    throttle = referee.services.throttle
    assert throttle._pending == {} and throttle._fails == {}  # before: 5 counted, then 429
    assert change(PIN).status_code == 302
    assert referee.services.settings.check_pin("1111")
