"""The referee PIN's pages after a review: where unlocking leads, how many guesses get checked
(in parallel, at /pin/change, at /pin/setup), and digits typed on any keyboard."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

import pytest
from werkzeug.security import generate_password_hash

from tests.test_web_routes import PIN, Tablet, make_app
from web.security import MAX_FAILURES
from web.services.settings import Settings

FULL_WIDTH = str.maketrans("0123456789", "０１２３４５６７８９")
ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


@pytest.fixture
def app(tmp_path: Any) -> Any:
    return make_app(tmp_path)


@pytest.fixture
def referee(app: Any) -> Tablet:
    t = Tablet(app)
    assert t.set_pin().status_code == 302
    return t


def hidden_next(html: str) -> str:
    m = re.search(r'name="next" value="([^"]*)"', html)
    assert m, "the login form carries where to go next"
    return m.group(1)


# -- where unlocking leads --------------------------------------------------------------------


@pytest.mark.parametrize(
    "target", ["/\t/evil.example", "/\t\t/evil.example/x", "/\n/evil.example", "/console\r\n"]
)
def test_ruling_web8_unlocking_never_leads_to_another_site(referee: Tablet, target: str) -> None:
    viewer = Tablet(referee.app)
    r = viewer.client.post("/login", data={"csrf_token": viewer.token, "pin": PIN, "next": target})
    # before: "/\t/evil.example" left as Location "//evil.example"; a newline was a 500
    assert r.status_code == 302
    assert r.headers["Location"] == "/console"
    assert viewer.client.get("/api/whoami").json["referee"] is True


def test_ruling_web8_the_login_form_carries_only_a_page_of_the_dashboard(referee: Tablet) -> None:
    viewer = Tablet(referee.app)
    bad = (
        "/%09/evil.example",
        "/\t/evil.example",
        "/\\evil.example",
        "/static/../x",
        "/static/%2e%2e/%2e%2e/x",
        "/static/%2E./x",
        "/nope",
        "/logout",
    )
    for target in bad:
        page = viewer.client.get("/login", query_string={"next": target}).get_data(as_text=True)
        assert hidden_next(page) == "/console", target
    for target in ("/setup", "/console?game=3", "/calibration?", "/pin/change"):
        page = viewer.client.get("/login", query_string={"next": target}).get_data(as_text=True)
        assert hidden_next(page) == target
    r = viewer.client.post(
        "/login", data={"csrf_token": viewer.token, "pin": PIN, "next": "/setup"}
    )
    assert r.headers["Location"] == "/setup"


# -- how many guesses get checked -------------------------------------------------------------


class Gate:
    """Holds every call of a Settings method until all requests have been answered or reached
    it, so the old check-then-count throttle lets the whole burst through deterministically."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.entered = 0
        self.answered = 0
        self.cond = threading.Condition()
        self.open = False

    def wrap(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def held(*args: Any, **kwargs: Any) -> Any:
            with self.cond:
                self.entered += 1
                self.cond.notify_all()
                assert self.cond.wait_for(lambda: self.open, timeout=20), "gate never opened"
            return original(*args, **kwargs)

        return held

    def done(self) -> None:
        with self.cond:
            self.answered += 1
            self.cond.notify_all()

    def open_when_all_arrived(self) -> None:
        with self.cond:
            arrived = self.cond.wait_for(lambda: self.entered + self.answered >= self.total, 20)
            self.open = True
            self.cond.notify_all()
        assert arrived, "the burst never arrived"


def burst(tablets: list[Tablet], url: str, form: Callable[[int], dict[str, str]], gate: Gate):
    codes: list[int] = []

    def go(i: int) -> None:
        t = tablets[i]
        try:
            r = t.client.post(url, data={"csrf_token": t.token, **form(i)})
            codes.append(r.status_code)
        finally:
            gate.done()

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(tablets))]
    for th in threads:
        th.start()
    gate.open_when_all_arrived()
    for th in threads:
        th.join(20)
    return sorted(codes)


def test_ruling_web9_parallel_wrong_pins_get_no_more_checked_than_one_by_one(
    referee: Tablet, monkeypatch: pytest.MonkeyPatch
) -> None:
    n = 12
    tablets = [Tablet(referee.app) for _ in range(n)]
    gate = Gate(n)
    monkeypatch.setattr(Settings, "check_pin", gate.wrap(Settings.check_pin))
    codes = burst(tablets, "/login", lambda i: {"pin": f"{1000 + i:04d}"}, gate)
    assert gate.entered == MAX_FAILURES  # before: all 12 were checked
    assert codes == [403] * MAX_FAILURES + [429] * (n - MAX_FAILURES)
    assert tablets[0].login(PIN).status_code == 429  # and the lockout follows


def test_ruling_web9_parallel_wrong_setup_codes_get_no_more_checked_than_one_by_one(
    app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    n = 12
    tablets = [Tablet(app) for _ in range(n)]
    code = tablets[0].services.settings.setup_code
    wrong = [f"{(int(code) + 1 + i) % 1_000_000:06d}" for i in range(n)]
    gate = Gate(n)
    monkeypatch.setattr(Settings, "set_first_pin", gate.wrap(Settings.set_first_pin))
    form = lambda i: {"setup_code": wrong[i], "pin": PIN, "pin2": PIN}  # noqa: E731
    codes = burst(tablets, "/pin/setup", form, gate)
    assert gate.entered == MAX_FAILURES
    assert codes == [400] * MAX_FAILURES + [429] * (n - MAX_FAILURES)
    assert tablets[0].set_pin().status_code == 429
    assert not app.extensions["tabletop"].settings.pin_is_set


def test_ruling_web9_changing_the_pin_is_throttled_like_unlocking(referee: Tablet) -> None:
    def change(old: str, new: str = "1111", again: str = "1111") -> int:
        form = {"csrf_token": referee.token, "old": old, "pin": new, "pin2": again}
        return referee.client.post("/pin/change", data=form).status_code

    for _ in range(2 * MAX_FAILURES):  # typos in the new PIN guess nothing: not counted
        assert change(PIN, "1111", "2222") == 400
        assert change(PIN, "12", "12") == 400
    for guess in range(MAX_FAILURES):
        assert change(f"{9000 + guess}") == 400
    assert change(PIN) == 429  # before: the 6th guess was checked, and this one changed it
    settings = referee.services.settings
    assert settings.check_pin(PIN) and not settings.check_pin("1111")
    assert Tablet(referee.app).login(PIN).status_code == 429  # one counter per address


def test_ruling_web9_a_setup_typo_guesses_nothing_and_is_not_counted(app: Any) -> None:
    tablet = Tablet(app)
    code = tablet.services.settings.setup_code
    for _ in range(2 * MAX_FAILURES):
        form = {"csrf_token": tablet.token, "setup_code": code, "pin": PIN, "pin2": "1357"}
        r = tablet.client.post("/pin/setup", data=form)
        assert r.status_code == 400 and b"the two PINs differ" in r.data
    assert tablet.set_pin().status_code == 302  # before: locked out by the typos


# -- digits typed on any keyboard ------------------------------------------------------------


def test_ruling_web10_a_setup_code_in_full_width_digits_is_the_code(app: Any) -> None:
    tablet = Tablet(app)
    settings = tablet.services.settings
    code = settings.setup_code.translate(FULL_WIDTH)
    pin = PIN.translate(FULL_WIDTH)
    form = {"csrf_token": tablet.token, "setup_code": code, "pin": pin, "pin2": pin}
    r = tablet.client.post("/pin/setup", data=form)
    assert r.status_code == 302  # before: a 500 (compare_digest on a non-ASCII str)
    assert settings.check_pin(PIN)
    assert Tablet(app).login(PIN).status_code == 302


def test_ruling_web10_a_setup_code_with_other_letters_is_a_counted_wrong_guess(app: Any) -> None:
    tablet = Tablet(app)
    for typed in ["12345é", "é", "１２３４５x", "\u00a0" * 6, "٠" * 200][:MAX_FAILURES]:
        form = {"csrf_token": tablet.token, "setup_code": typed, "pin": PIN, "pin2": PIN}
        r = tablet.client.post("/pin/setup", data=form)
        assert r.status_code == 400 and b"wrong setup code" in r.data, typed  # before: 500
    assert tablet.set_pin().status_code == 429


def test_ruling_web10_a_pin_typed_with_another_keyboards_digits_unlocks(referee: Tablet) -> None:
    settings = referee.services.settings
    settings._put("pin_hash", generate_password_hash(PIN))  # a hash stored by an older version
    assert settings.check_pin(PIN)
    for typed in (PIN.translate(FULL_WIDTH), PIN.translate(ARABIC_INDIC), f" {PIN} "):
        assert Tablet(referee.app).login(typed).status_code == 302, typed  # before: 403
    for wrong in ("1357", "1357".translate(FULL_WIDTH), "²⁴⁶⁸x", PIN + "\u0663"):
        assert not settings.check_pin(wrong)


def test_ruling_web9_a_request_too_large_to_read_does_not_hold_a_guess(app: Any) -> None:
    """A reserved guess whose form could not be read (over the size limit, the CSRF token in
    a header so nothing parsed the form before) was never settled: five such requests locked
    the address out for good, the right setup code included (review of day 31)."""
    tablet = Tablet(app)
    for _ in range(MAX_FAILURES):
        r = tablet.client.post(
            "/pin/setup",
            data={"pin": "1" * 300_000, "pin2": "1"},
            headers={"X-CSRF-Token": tablet.token},
        )
        assert r.status_code == 413
    assert app.extensions["tabletop"].throttle._pending == {}
    code = app.extensions["tabletop"].settings.setup_code
    form = {"csrf_token": tablet.token, "setup_code": code, "pin": PIN, "pin2": PIN}
    assert tablet.client.post("/pin/setup", data=form).status_code == 302
