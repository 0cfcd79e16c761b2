"""The referee PIN after the day-35 security review: wrong guesses slowed down more each round
and for all devices together, Lock ending the session wherever its cookie was copied, idle
sessions ending, and unsafe requests to no route answered 404/405, not a CSRF error."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

import web.security
from tests.test_web_routes import PIN, Tablet, make_app
from web.security import (
    MAX_FAILURES,
    MAX_LOCKOUT_S,
    SHARED_MAX_FAILURES,
    SHARED_WINDOW_S,
    Refusal,
    Throttle,
)
from web.services.settings import REFEREE_IDLE_S

COOKIE = "tabletop_session"
HOUR = 3600.0


class Clock:
    """A clock the test moves: no test waits for a real lockout."""

    def __init__(self, now: float = 1_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(tmp_path: Any, clock: Clock) -> Any:
    app = make_app(tmp_path)
    app.extensions["tabletop"].throttle = Throttle(clock=clock)
    return app


@pytest.fixture
def referee(app: Any) -> Tablet:
    t = Tablet(app)
    assert t.set_pin().status_code == 302
    return t


def fail_round(throttle: Throttle, addr: str) -> Refusal:
    """MAX_FAILURES wrong guesses from ``addr``; then the refusal that follows."""
    for _ in range(MAX_FAILURES):
        assert throttle.begin(addr) is None
        throttle.failed(addr)
    refused = throttle.begin(addr)
    assert refused is not None
    return refused


def whoami(tablet: Tablet) -> bool:
    return bool(tablet.client.get("/api/whoami").json["referee"])


# -- wrong guesses: longer each round, and for all devices together ---------------------------


def test_ruling_web9_each_further_round_of_wrong_pins_doubles_the_wait(
    referee: Tablet, clock: Clock
) -> None:
    guesser = Tablet(referee.app)
    for wait, says in ((30, "30 seconds"), (60, "1 minute"), (120, "2 minutes")):
        for guess in range(MAX_FAILURES):
            assert guesser.login(f"{9000 + guess}").status_code == 403
        r = guesser.login(PIN)  # refused even with the right PIN
        assert r.status_code == 429
        assert f"too many wrong PINs: try again in {says}".encode() in r.data
        clock.advance(wait - 1)
        assert guesser.login(PIN).status_code == 429  # before: 30 s every round, for ever
        clock.advance(1)
    assert guesser.login(PIN).status_code == 302


def test_ruling_web9_the_lockout_stops_growing_at_an_hour(clock: Clock) -> None:
    throttle = Throttle(clock=clock)
    waits = []
    for _ in range(10):
        refused = fail_round(throttle, "10.0.0.7")
        waits.append(refused.wait_s)
        clock.advance(refused.wait_s)
    assert waits == [30, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600]
    assert MAX_LOCKOUT_S == HOUR


def test_ruling_web9_rounds_are_forgotten_only_after_a_success_or_a_quiet_day(
    clock: Clock,
) -> None:
    throttle = Throttle(clock=clock)
    addr = "10.0.0.8"
    for _ in range(2):
        clock.advance(fail_round(throttle, addr).wait_s)
    clock.advance(23 * HOUR)  # a quiet night is not enough
    assert fail_round(throttle, addr).wait_s == 120
    clock.advance(25 * HOUR)  # a quiet day is
    assert fail_round(throttle, addr).wait_s == 30
    clock.advance(30)
    assert throttle.begin(addr) is None
    throttle.succeeded(addr)  # and so is the right PIN
    assert fail_round(throttle, addr).wait_s == 30


def test_ruling_web9_all_devices_together_get_a_limited_number_of_wrong_guesses(
    clock: Clock,
) -> None:
    throttle = Throttle(clock=clock)

    def wrong(addr: str) -> None:
        assert throttle.begin(addr) is None
        throttle.failed(addr)
        clock.advance(1)

    for i in range(SHARED_MAX_FAILURES - 1):  # one wrong guess from each of many devices
        wrong(f"10.0.1.{i}")
    assert throttle.begin("10.0.2.1") is None
    throttle.succeeded("10.0.2.1")  # one device's success forgets no one else's guesses
    wrong("10.0.2.2")
    refused = throttle.begin("10.0.2.3")  # a device that never guessed wrong waits too
    assert refused is not None and refused.everyone  # before: 5 guesses for every address
    assert refused.wait_s == SHARED_WINDOW_S - SHARED_MAX_FAILURES
    clock.advance(refused.wait_s)  # the oldest wrong guess is an hour old: one more guess
    assert throttle.begin("10.0.2.3") is None


def test_ruling_web9_guesses_in_flight_count_against_the_shared_limit(clock: Clock) -> None:
    throttle = Throttle(clock=clock)
    for i in range(SHARED_MAX_FAILURES):  # a parallel burst, none of them settled yet
        assert throttle.begin(f"10.0.3.{i}") is None
    refused = throttle.begin("10.0.4.1")
    assert refused is not None and refused.everyone
    throttle.release("10.0.3.0")  # a guess that guessed nothing frees its place
    assert throttle.begin("10.0.4.1") is None


def test_ruling_web9_a_device_refused_for_others_guesses_is_told_so(
    referee: Tablet, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web.security, "SHARED_MAX_FAILURES", 3)  # fewer slow hashes
    for i in range(3):
        r = referee.client.post(
            "/login",
            data={"csrf_token": referee.token, "pin": "1357"},
            environ_base={"REMOTE_ADDR": f"10.0.5.{i}"},
        )
        assert r.status_code == 403
    r = Tablet(referee.app).login(PIN)
    assert r.status_code == 429
    assert b"too many wrong PINs on this dashboard (from all devices): try again in" in r.data


def test_refusals_say_the_wait_as_a_person_does() -> None:
    assert Refusal(0.2).in_words() == "1 second"
    assert Refusal(29.1).in_words() == "30 seconds"
    assert Refusal(60).in_words() == "1 minute"
    assert Refusal(61).in_words() == "2 minutes"
    assert Refusal(3600).in_words() == "60 minutes"


# -- referee sessions: ended on the server ----------------------------------------------------


def copy_of(tablet: Tablet) -> Tablet:
    """Another browser holding a copy of ``tablet``'s session cookie."""
    cookie = tablet.client.get_cookie(COOKIE)
    assert cookie is not None
    thief = Tablet(tablet.app)
    thief.client.set_cookie(COOKIE, cookie.value)
    thief.refresh_token()
    return thief


def test_ruling_web16_lock_ends_the_session_in_every_copy_of_its_cookie(referee: Tablet) -> None:
    thief = copy_of(referee)
    assert whoami(thief)
    assert referee.client.post("/logout", data={"csrf_token": referee.token}).status_code == 302
    assert not whoami(referee)
    assert not whoami(thief)  # before: the copy kept referee rights until the PIN changed
    r = thief.post("/api/games", {"game": "deck-dash", "players": ["A", "B"]})
    assert r.status_code == 401


def test_changing_the_pin_ends_every_copied_session(referee: Tablet) -> None:
    thief = copy_of(referee)
    form = {"csrf_token": referee.token, "old": PIN, "pin": "13579", "pin2": "13579"}
    assert referee.client.post("/pin/change", data=form).status_code == 302
    assert whoami(referee)  # the changer is unlocked again, with a new session
    assert not whoami(thief)


def test_pin_reset_at_the_pi_ends_every_session(referee: Tablet) -> None:
    referee.services.settings.clear_pin()
    assert not whoami(referee)


def test_ruling_web16_a_referee_session_unused_for_12_hours_ends(
    referee: Tablet, clock: Clock
) -> None:
    referee.services.settings.clock = clock
    assert referee.login().status_code == 302  # a session started on the test's clock
    for _ in range(3):  # in use: each visit keeps it alive
        clock.advance(REFEREE_IDLE_S - HOUR)
        assert whoami(referee)
    clock.advance(REFEREE_IDLE_S)
    assert not whoami(referee)  # before: a referee for 31 days (the cookie's lifetime)
    assert referee.login().status_code == 302 and whoami(referee)


def test_a_cookie_from_before_the_upgrade_is_not_a_referee_and_breaks_nothing(
    referee: Tablet,
) -> None:
    """Cookies signed before day 35 hold the PIN's epoch: that tablet unlocks again."""
    tablet = Tablet(referee.app)
    settings = referee.services.settings
    for old in (settings.pin_epoch(), "", 7, None, ["x"], {"a": 1}):
        with tablet.client.session_transaction() as sess:
            sess["referee"] = old
        assert not whoami(tablet), old
        assert tablet.client.get("/console").status_code == 200
        assert tablet.client.post("/logout", data={"csrf_token": tablet.token}).status_code == 302
    assert tablet.login().status_code == 302 and whoami(tablet)


def test_the_database_holds_no_session_id_that_would_unlock(referee: Tablet, tmp_path: Any) -> None:
    with referee.client.session_transaction() as sess:
        sid = sess["referee"]
    db = sqlite3.connect(tmp_path / "tabletop.db")
    rows = db.execute("SELECT id_hash FROM web_referee_sessions").fetchall()
    assert len(rows) == 1 and sid not in rows[0][0]
    referee.login()  # unlocking again replaces the session, it does not add one
    assert len(db.execute("SELECT id_hash FROM web_referee_sessions").fetchall()) == 1


# -- unsafe requests to no route --------------------------------------------------------------


def test_an_unsafe_request_to_no_route_gets_its_404_or_405_not_a_csrf_error(app: Any) -> None:
    client = app.test_client()
    r = client.post("/api/nope", json={})
    assert r.status_code == 404 and "CSRF" not in r.json["error"]  # before: 403
    r = client.post("/nope", data={})
    assert r.status_code == 404 and b"CSRF" not in r.data
    assert client.delete("/api/games").status_code == 405
    assert client.post("/scoreboard", data={}).status_code == 405
    assert client.post("/logout").status_code == 403  # a route still needs the token


# -- review of the day's diff --------------------------------------------------------------


def test_ruling_web16_a_restored_backup_brings_no_session_back(
    referee: Tablet, tmp_path: Any
) -> None:
    """A backup taken while a tablet was unlocked holds its session; Lock after the backup,
    then restore it: that tablet stays locked. Before, the restore unlocked it again."""
    from referee.cli import main

    thief = copy_of(referee)
    backup = tmp_path / "backup.db"
    assert main(["backup", "--db", str(tmp_path / "tabletop.db"), "-o", str(backup)]) == 0
    assert referee.client.post("/logout", data={"csrf_token": referee.token}).status_code == 302
    referee.services.settings.close()
    assert main(["restore", "--db", str(tmp_path / "tabletop.db"), str(backup)]) == 0
    restored = Tablet(make_app(tmp_path))
    restored.client.set_cookie(COOKIE, thief.client.get_cookie(COOKIE).value)
    assert not whoami(restored)


def test_ruling_web16_a_login_checked_against_a_pin_changed_meanwhile_unlocks_nothing(
    referee: Tablet,
) -> None:
    """The session is stamped with the PIN read before its check: a PIN changed while the
    slow hash ran does not become the one the old PIN unlocked."""
    settings = referee.services.settings
    before = settings.pin_epoch()
    settings.change_pin(PIN, "13579")
    sid = settings.start_referee_session(before)
    assert not settings.referee_session_alive(sid)
    assert settings.referee_session_alive(settings.start_referee_session())


def test_a_damaged_session_row_reads_as_no_session_not_a_500(
    referee: Tablet, tmp_path: Any
) -> None:
    """LOG-3: a flipped bit or a hand edit in a stored expiry is a locked tablet."""
    db = sqlite3.connect(tmp_path / "tabletop.db")
    with db:
        db.execute("UPDATE web_referee_sessions SET expires_at = 'x'")
    assert referee.client.get("/console").status_code == 200
    assert not whoami(referee)
