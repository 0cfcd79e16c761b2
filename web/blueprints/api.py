"""The JSON API the pages use. Reads are open; every change is referee-only (+ CSRF)."""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Blueprint, Response, jsonify, request

from referee.events import Event, EventError, Source
from web.blueprints.common import int_field, json_body, services
from web.errors import BadInput
from web.security import is_referee, referee_required
from web.services import history as hist

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.get("/whoami")
def whoami() -> Response:
    s = services()
    return jsonify(referee=is_referee(), pin_is_set=s.settings.pin_is_set)


@bp.get("/catalogue")
def catalogue() -> Response:
    return jsonify(games=services().games.catalogue())


@bp.get("/games")
def games() -> Response:
    s = services()
    return jsonify(
        current=s.games.current_id(),
        games=[
            {
                "id": g.id,
                "game": g.game,
                "players": list(g.players),
                "created_at": g.created_at,
                "ended_at": g.ended_at,
            }
            for g in s.games.log.games()
        ],
    )


@bp.get("/games/current")
def current() -> Response:
    return jsonify(id=services().games.current_id())


@bp.post("/games")
@referee_required
def create() -> tuple[Response, int]:
    data = json_body()
    game_id = services().games.create(data.get("game"), data.get("players"), data.get("options"))
    return jsonify(id=game_id), 201


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> Response:
    return jsonify(services().games.snapshot(game_id))


def _event(data: Any) -> Event:
    if not isinstance(data, dict):
        raise BadInput("send the event as a JSON object")
    data = dict(data)
    data.setdefault("source", Source.MANUAL.value)
    if data.get("seat") == "":
        data.pop("seat")
    if data.get("t_ns") == "now":  # a tap on the tablet: stamped on arrival, pads' clock
        data["t_ns"] = services().clock.now_ns()
    try:
        return Event.from_dict(data)
    except EventError as exc:
        raise BadInput(str(exc)) from None


# A send's key (LOG-4): printable ASCII, as a header's value may hold
_SEND_KEY = re.compile(r"[\x20-\x7e]{1,100}")
BAD_SEND_KEY = "a send key must be 1 to 100 printable ASCII characters"


def _send_key(data: dict[str, Any]) -> str | None:
    """The send's key, from the ``Idempotency-Key`` header or the body's ``send_key`` (taken
    out of ``data``: it is no part of the event); 400 when it is no such key."""
    header = request.headers.get("Idempotency-Key")
    field = data.pop("send_key", None)
    key = header if header is not None else field
    if key is None:
        return None
    if not isinstance(key, str) or not _SEND_KEY.fullmatch(key):
        raise BadInput(BAD_SEND_KEY)
    if header is not None and field is not None and field != header:
        raise BadInput("the send key of the header and of the body differ")
    return key


@bp.post("/games/<int:game_id>/events")
@referee_required
def append(game_id: int) -> tuple[Response, int]:
    data = json_body()
    key = _send_key(data)
    event = _event(data)
    out = services().games.append(game_id, event, key)
    return jsonify(out), 200 if out.get("duplicate") else 201


@bp.post("/games/<int:game_id>/undo")
@referee_required
def undo(game_id: int) -> tuple[Response, int]:
    target = int_field(json_body(), "target")
    return jsonify(services().games.undo(game_id, target)), 201


@bp.post("/games/<int:game_id>/overrule")
@referee_required
def overrule(game_id: int) -> tuple[Response, int]:
    """``replaces`` (optional): the overrule in force on ``target`` that this one corrects;
    its undo is stored with this overrule, or neither is (WEB-11)."""
    data = json_body()
    target = int_field(data, "target")
    replaces = None if data.get("replaces") is None else int_field(data, "replaces")
    replacement = _event(data.get("event"))
    out = services().games.overrule(game_id, target, replacement.to_dict(), replaces)
    return jsonify(out), 201


@bp.post("/games/<int:game_id>/accept")
@referee_required
def accept(game_id: int) -> Response:
    seq = int_field(json_body(), "seq")
    services().games.accept(game_id, seq)
    return jsonify(ok=True, seq=seq)


@bp.get("/games/<int:game_id>/prompts")
def prompts(game_id: int) -> Response:
    """The camera's open questions for this game (the live streams push the same list)."""
    s = services()
    s.games.record(game_id)
    return jsonify(s.prompts.payload(game_id))


@bp.post("/games/<int:game_id>/prompts/<int:prompt_id>/accept")
@referee_required
def accept_prompt(game_id: int, prompt_id: int) -> tuple[Response, int]:
    """Send the question's suggested event (optionally with ``seat`` / ``payload`` fields)."""
    s = services()
    s.games.record(game_id)
    return jsonify(s.prompts.accept(s.games, game_id, prompt_id, json_body())), 201


@bp.post("/games/<int:game_id>/prompts/<int:prompt_id>/dismiss")
@referee_required
def dismiss_prompt(game_id: int, prompt_id: int) -> Response:
    s = services()
    s.prompts.dismiss(game_id, prompt_id)
    return jsonify(ok=True, id=prompt_id)


@bp.post("/games/<int:game_id>/end")
@referee_required
def end(game_id: int) -> Response:
    return jsonify(services().games.end(game_id))


@bp.get("/history")
def history() -> Response:
    summaries = hist.all_summaries(services().games)
    return jsonify(games=summaries, players=hist.player_stats(summaries))


@bp.get("/history.json")
def history_json() -> Response:
    """Everything, including each game's options and full event log (an entry that no longer
    decodes marked, with its stored body), for keeping or analysis."""
    body = json.dumps(hist.export(services().games), indent=1, default=str)
    return Response(
        body,
        mimetype="application/json",
        headers={"Content-Disposition": "attachment; filename=tabletop-history.json"},
    )


@bp.get("/history.csv")
def history_csv() -> Response:
    return Response(
        hist.to_csv(hist.all_summaries(services().games)),
        mimetype="text/csv",
        headers={"Content-Disposition": "attachment; filename=tabletop-history.csv"},
    )


@bp.get("/games/<int:game_id>/log.jsonl")
def game_log(game_id: int) -> Response:
    """The game's event log as a file ``tabletop replay`` reads (docs/EVENTS.md): to keep a
    game, share it, or replay it on a computer."""
    name, lines = services().games.log_file(game_id)
    return Response(
        "".join(line + "\n" for line in lines),
        mimetype="application/x-ndjson",
        headers={"Content-Disposition": f"attachment; filename=tabletop-{name}-{game_id}.jsonl"},
    )


@bp.get("/zones")
def zones() -> Response:
    """The saved zones, their ``problems``, and the camera's picture size now with
    ``frame_changed``: one line when it is another shape than the zones were drawn on."""
    from web.services.zones import frame_change

    s = services()
    doc = s.zones.load()
    frame = s.camera.latest() if s.camera else None
    size = {"width": frame.width, "height": frame.height} if frame else None
    changed = frame_change(doc["frame"], **size) if size else None
    return jsonify({**doc, "camera_frame": size, "frame_changed": changed})


@bp.post("/zones")
@referee_required
def save_zones() -> Response:
    # a corner's numbers are the zones' to check (0 ≤ x, y ≤ 1, WEB-5), and to name
    return jsonify(services().zones.save(json_body(whole_numbers_bounded=False)))


@bp.get("/pads")
def pads() -> Response:
    s = services()
    return jsonify(
        seats=list(s.pads.seats()),
        devices=list(s.pads.devices()),
        wired={str(seat): devices for seat, devices in s.pads.wired().items()},
        virtual=bool(getattr(s.pads, "virtual", False)),
        recent=[p.to_dict() for p in s.pads.recent()],
        log=list(s.pad_log),
    )


@bp.post("/pads/press")
@referee_required
def press() -> Response:
    s = services()
    if not getattr(s.pads, "virtual", False):
        raise BadInput("these are real pads: press them at the table", 409)
    data = json_body()
    seat = int_field(data, "seat")
    device = data.get("device", "pad")
    if not isinstance(device, str):
        raise BadInput("'device' must be text")
    try:
        event = s.pads.press(seat, device)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    return jsonify(event.to_dict())
