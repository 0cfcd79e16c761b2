"""The HTML pages. They are thin shells; live data comes from the JSON API and SSE."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, redirect, render_template, request, url_for
from werkzeug.exceptions import BadHost

from web.blueprints.common import game_arg, services
from web.errors import BadInput
from web.services import history as hist
from web.services.zones import zone_label, zone_names

bp = Blueprint("pages", __name__)

NAV = (
    ("pages.scoreboard", "Scoreboard"),
    ("pages.console", "Referee"),
    ("pages.live", "Live"),
    ("pages.setup", "Setup"),
    ("pages.history", "History"),
    ("pages.calibration", "Calibrate"),
    ("pages.hardware", "Pads"),
)


@bp.before_app_request  # registered before web.security's CSRF check, so it runs first
def bad_host() -> tuple[Response, int] | None:
    """A Host header IDNA refuses (``x..``, a label over 63 letters) leaves the request without
    URL building: every error page (its links are ``url_for``) would fail into a bare 500."""
    if not isinstance(request.routing_exception, BadHost):
        return None
    message = "the Host header is not a valid host name"
    if request.path.startswith("/api/"):
        return jsonify(error=message, status=400), 400
    return Response(message + "\n", mimetype="text/plain"), 400


@bp.get("/")
def index() -> Response:
    return redirect(url_for("pages.scoreboard"))  # type: ignore[return-value]


@bp.get("/j")
def join() -> Response:
    """The short URL printed under the QR code."""
    return redirect(url_for("pages.scoreboard"))  # type: ignore[return-value]


@bp.get("/scoreboard")
def scoreboard() -> str:
    return render_template("scoreboard.html", game_id=game_arg(), page="scoreboard")


@bp.get("/console")
def console() -> str:
    return render_template("console.html", game_id=game_arg(), page="console")


@bp.get("/live")
def live() -> str:
    s = services()
    return render_template(
        "live.html",
        game_id=game_arg(),
        page="live",
        camera=s.camera.describe() if s.camera else None,
        camera_error=s.camera_error,
    )


@bp.get("/setup")
def setup() -> str:
    return render_template("setup.html", game_id=services().games.current_id(), page="setup")


@bp.get("/rulings/<rid>")
def ruling(rid: str) -> str:
    """One ruling, as docs/RULINGS.md words it: what a game option's tag on Setup stands for."""
    from web.services.rulings import paragraphs, rulings

    found = rulings().get(rid.upper())
    if found is None:
        known = bool(rulings())
        raise BadInput(
            f"there is no ruling {rid[:20]!r}" if known else "the rulings file is not installed",
            404,
        )
    return render_template("ruling.html", ruling=found, paragraphs=paragraphs(found), page="")


@bp.get("/history")
def history() -> str:
    games = services().games
    summaries = hist.all_summaries(games)
    return render_template(
        "history.html",
        summaries=summaries,
        stats=hist.player_stats(summaries),
        page="history",
    )


@bp.get("/history/<int:game_id>")
def history_game(game_id: int) -> str:
    s = services()
    summary = hist.summary(s.games, game_id)
    snap = s.games.snapshot(game_id)
    return render_template(
        "history_game.html",
        s=summary,
        feed=snap["feed"],
        page="history",
        describe=hist.describe,
    )


@bp.get("/calibration")
def calibration() -> str:
    s = services()
    return render_template(
        "calibration.html",
        page="calibration",
        camera=s.camera.describe() if s.camera else None,
        camera_error=s.camera_error,
        names=[(name, zone_label(name)) for name in zone_names(s.config.seats)],
    )


@bp.get("/hardware")
def hardware() -> str:
    s = services()
    return render_template(
        "hardware.html",
        page="hardware",
        seats=list(s.pads.seats()),
        devices=list(s.pads.devices()),
        virtual=bool(getattr(s.pads, "virtual", False)),
        players=_running_players(),
    )


def _running_players() -> dict[int, str]:
    """Seat → name in the game the pads play in (the latest, while it runs: ``current_id``,
    as ``web.app._bridge_pads``), so a pad is labelled by who sits there."""
    games = services().games
    game_id = games.current_id()
    record = games.record(game_id) if game_id is not None else None
    return dict(enumerate(record.players)) if record and record.ended_at is None else {}
