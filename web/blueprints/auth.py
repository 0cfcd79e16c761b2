"""Referee PIN: first-time setup (with the code printed in the terminal), unlock, lock.

Every guess at a secret (the PIN at /login, the current PIN at /pin/change, the setup code at
/pin/setup) goes through one per-address throttle, reserved before the slow hash (WEB rulings
in docs/RULINGS.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar
from urllib.parse import unquote

from flask import Blueprint, Response, current_app, redirect, render_template, request, url_for
from werkzeug.exceptions import HTTPException

from web.blueprints.common import services
from web.security import Refusal, is_referee, login_referee, logout_referee, referee_required
from web.services.settings import (
    PIN_MAX,
    PIN_MIN,
    PinError,
    WrongSecret,
    as_digits,
    check_pin_format,
)

bp = Blueprint("auth", __name__)
T = TypeVar("T")

# A local path (no "//" that a browser reads as another host, no "\" or control characters
# that browsers drop or that break the Location header), then an optional query.
_SAFE_NEXT = re.compile(r"/(?!/)[A-Za-z0-9_.~%/-]*(?:\?[A-Za-z0-9_.~%/=&+,:;@!*'()-]*)?")
_NEXT_MAX = 512


def _is_a_page(target: str) -> bool:
    """Whether ``target``'s path is a page this dashboard serves to a GET."""
    adapter = current_app.url_map.bind_to_environ(request.environ)
    try:
        adapter.match(target.split("?", 1)[0], method="GET")
    except HTTPException:  # NotFound, MethodNotAllowed, RequestRedirect
        return False
    return True


def _next() -> str:
    """Where to go after unlocking: one of this dashboard's pages, else the console.

    ``next`` comes from a link anyone can craft, so it is checked both when the form is
    rendered and when it is posted: an outside site (``/\\t/evil.example`` became
    ``//evil.example``) would receive a tablet that has just been unlocked.
    """
    target = request.values.get("next", "")
    if (
        len(target) <= _NEXT_MAX
        and _SAFE_NEXT.fullmatch(target)
        and "//" not in (path := target.split("?", 1)[0])
        and "/." not in unquote(path)  # no dot segments, %2e%2e included: a browser
        # resolves those too; the page is named as the dashboard names it
        and _is_a_page(target)
    ):
        return target
    return url_for("pages.console")


def _wait_message(refusal: Refusal, what: str = "tries") -> str:
    """Why a guess is refused, and for how long: the referee's own tablet may be refused for
    guesses made elsewhere, so the shared limit says so."""
    where = " on this dashboard (from all devices)" if refusal.everyone else ""
    return f"too many wrong {what}{where}: try again in {refusal.in_words()}"


def _not_a_pin(typed: str) -> str | None:
    """Why ``typed`` cannot be any PIN (so checking it tests no secret), or None."""
    if not as_digits(typed):  # OK tapped with nothing typed: "digits only" would puzzle
        return f"the PIN must have {PIN_MIN} to {PIN_MAX} digits"
    try:
        check_pin_format(typed)
    except PinError as exc:
        return str(exc)
    return None


def _guess(addr: str, attempt: Callable[[], T]) -> T:
    """Run one guess already reserved with ``throttle.begin(addr)`` and settle it: WrongSecret
    counts as a failure, success forgets ``addr``'s failures, anything else (a storage error
    included) is released. Everything between ``begin`` and here must run inside ``attempt``:
    an exception outside it would hold the reservation for ever."""
    throttle = services().throttle
    try:
        result = attempt()
    except WrongSecret:
        throttle.failed(addr)
        raise
    except BaseException:
        throttle.release(addr)
        raise
    throttle.succeeded(addr)
    return result


@bp.get("/login")
def login() -> str | Response:
    if not services().settings.pin_is_set:
        return redirect(url_for("auth.pin_setup"))  # type: ignore[return-value]
    return render_template("login.html", next=_next(), error=None, page="login")


@bp.post("/login")
def login_post() -> tuple[str, int] | Response:
    s = services()
    addr = request.remote_addr or "?"
    if not s.settings.pin_is_set:
        return redirect(url_for("auth.pin_setup"))  # type: ignore[return-value]
    pin = request.form.get("pin", "")
    if why := _not_a_pin(pin):  # tests no secret, so it is no guess (WEB-9)
        return render_template("login.html", next=_next(), error=why, page="login"), 400
    refused = s.throttle.begin(addr)
    if refused:
        msg = _wait_message(refused, "PINs")
        return render_template("login.html", next=_next(), error=msg, page="login"), 429

    def attempt() -> str:
        """The PIN's epoch, read before its check: a change meanwhile unlocks nothing."""
        epoch = s.settings.pin_epoch()
        if not s.settings.check_pin(pin):
            raise WrongSecret("wrong PIN")
        return epoch

    try:
        epoch = _guess(addr, attempt)
    except WrongSecret as exc:
        return render_template("login.html", next=_next(), error=str(exc), page="login"), 403
    login_referee(epoch)
    return redirect(_next())  # type: ignore[return-value]


@bp.post("/logout")
def logout() -> Response:
    logout_referee()  # ends the session on the server: a copied cookie is locked too
    return redirect(url_for("pages.scoreboard"))  # type: ignore[return-value]


@bp.get("/pin/setup")
def pin_setup() -> str | Response:
    if services().settings.pin_is_set:
        return redirect(url_for("auth.login"))  # type: ignore[return-value]
    return render_template("pin_setup.html", error=None, page="login")


@bp.post("/pin/setup")
def pin_setup_post() -> tuple[str, int] | Response:
    s = services()
    addr = request.remote_addr or "?"
    refused = s.throttle.begin(addr)
    if refused:
        return render_template("pin_setup.html", error=_wait_message(refused), page="login"), 429

    def attempt() -> None:  # the form is read here: a request too large to read releases
        pin, again = request.form.get("pin", ""), request.form.get("pin2", "")
        if as_digits(pin) != as_digits(again):
            raise PinError("the two PINs differ")
        s.settings.set_first_pin(pin, request.form.get("setup_code", ""))

    try:
        _guess(addr, attempt)
    except PinError as exc:
        status = 409 if s.settings.pin_is_set else 400
        return render_template("pin_setup.html", error=str(exc), page="login"), status
    login_referee()
    return redirect(url_for("pages.setup"))  # type: ignore[return-value]


@bp.get("/pin/change")
def pin_change() -> str | Response:
    if not is_referee():
        return redirect(url_for("auth.login", next="/pin/change"))  # type: ignore[return-value]
    return render_template("pin_change.html", error=None, page="login")


@bp.post("/pin/change")
@referee_required
def pin_change_post() -> tuple[str, int] | Response:
    s = services()
    addr = request.remote_addr or "?"
    refused = s.throttle.begin(addr)  # an unlocked tablet must not guess the PIN at full speed
    if refused:
        msg = _wait_message(refused, "PINs")
        return render_template("pin_change.html", error=msg, page="login"), 429

    def attempt() -> None:  # the form is read here: a request too large to read releases
        pin, again = request.form.get("pin", ""), request.form.get("pin2", "")
        if as_digits(pin) != as_digits(again):
            raise PinError("the two new PINs differ")
        if why := _not_a_pin(request.form.get("old", "")):  # tests no secret: not counted
            raise PinError(f"current PIN: {why}")
        s.settings.change_pin(request.form.get("old", ""), pin)

    try:
        _guess(addr, attempt)
    except PinError as exc:
        return render_template("pin_change.html", error=str(exc), page="login"), 400
    login_referee()
    return redirect(url_for("pages.console"))  # type: ignore[return-value]
