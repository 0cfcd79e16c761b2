"""Referee PIN: first-time setup (with the code printed in the terminal), unlock, lock."""

from __future__ import annotations

from flask import Blueprint, Response, redirect, render_template, request, url_for

from web.blueprints.common import services
from web.security import is_referee, login_referee, logout_referee, referee_required
from web.services.settings import PinError

bp = Blueprint("auth", __name__)


def _next() -> str:
    """Only same-site relative paths: no open redirect."""
    target = request.values.get("next", "")
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return url_for("pages.console")
    return target


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
    wait = s.throttle.check(addr)
    if wait:
        msg = f"too many wrong PINs: wait {wait:.0f} s"
        return render_template("login.html", next=_next(), error=msg, page="login"), 429
    if not s.settings.check_pin(request.form.get("pin", "")):
        s.throttle.failed(addr)
        msg = "wrong PIN"
        return render_template("login.html", next=_next(), error=msg, page="login"), 403
    s.throttle.succeeded(addr)
    login_referee()
    return redirect(_next())  # type: ignore[return-value]


@bp.post("/logout")
def logout() -> Response:
    logout_referee()
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
    if s.throttle.check(addr):
        return render_template("pin_setup.html", error="too many tries: wait", page="login"), 429
    pin, again = request.form.get("pin", ""), request.form.get("pin2", "")
    try:
        if pin != again:
            raise PinError("the two PINs differ")
        s.settings.set_first_pin(pin, request.form.get("setup_code", ""))
    except PinError as exc:
        s.throttle.failed(addr)
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
    pin, again = request.form.get("pin", ""), request.form.get("pin2", "")
    try:
        if pin != again:
            raise PinError("the two new PINs differ")
        s.settings.change_pin(request.form.get("old", ""), pin)
    except PinError as exc:
        return render_template("pin_change.html", error=str(exc), page="login"), 400
    login_referee()
    return redirect(url_for("pages.console"))  # type: ignore[return-value]
