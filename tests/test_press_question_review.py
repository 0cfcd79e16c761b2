"""Review of the Wash Dash held-press questions (WD-17, WD-21, WD-22): snapshots published
late by another writer, the camera's question following the cards still open, a restart
with a press held, the console's card-less ``done``, the wording, and a zones file with a
byte-order mark."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from referee.events import Event, Source
from tests.test_web_camera_dryer import T01, hold
from tests.test_web_pad_press_question import (
    accept,
    camera_table,
    press,
    questions,
    reveal,
    table_with,
)
from tests.test_web_routes import Tablet, make_app
from web.app import PressQuestions
from web.services.zones import ZoneStore

ROOT = Path(__file__).resolve().parents[1]


def press_questions(tablet: Tablet) -> Any:
    """The pad bridge's ``PressQuestions.changed``, as ``GameService`` calls it."""
    (listener,) = [
        f for f in tablet.services.games.listeners if isinstance(f.__self__, PressQuestions)
    ]
    return listener


# -- 1a: an older snapshot published after a newer one -------------------------------------
def test_an_older_snapshot_arriving_late_does_not_drop_a_live_question(tmp_path):
    tablet, game_id = table_with(tmp_path, "T01", "T03", "first-bonus-1")
    press(tablet, game_id, 0)
    old = tablet.services.games.snapshot(game_id)  # Ann's writer, before Bob's append
    press(tablet, game_id, 1)  # Bob's writer publishes first
    assert len(questions(tablet, game_id)) == 2
    press_questions(tablet)(game_id, old)  # Ann's writer publishes late
    assert [q["message"] for q in questions(tablet, game_id)] == [
        "Ann pressed done: which task card did Ann complete?",
        "Bob pressed done: which task card did Bob complete?",
    ]


def test_an_older_snapshot_arriving_late_does_not_ask_about_a_named_press(tmp_path):
    tablet, game_id = table_with(tmp_path, "T01", "T03", "first-bonus-1")
    press(tablet, game_id, 0)
    old = tablet.services.games.snapshot(game_id)
    named = {"kind": "done", "seat": 0, "payload": {"card": "T03"}}
    assert tablet.send(game_id, named).status_code == 201
    assert questions(tablet, game_id) == []
    press_questions(tablet)(game_id, old)
    assert questions(tablet, game_id) == []


def test_the_ended_snapshot_at_the_same_head_wins_over_the_running_one(tmp_path):
    tablet, game_id = table_with(tmp_path, "T01", "T03", "first-bonus-1")
    press(tablet, game_id, 0)
    running = tablet.services.games.snapshot(game_id)
    assert tablet.post(f"/api/games/{game_id}/end").status_code == 200
    assert questions(tablet, game_id) == []
    press_questions(tablet)(game_id, running)  # same head, published late: not yet ended
    assert questions(tablet, game_id) == []


# -- 1b: the camera's question follows the cards still open ---------------------------------
def camera_question_asked(tmp_path) -> tuple[Any, Tablet, Any, int, dict[str, Any]]:
    """Ana's dryer completes T01 and T05; her press is asked about by the camera."""
    table, tablet, referee, game_id = camera_table(tmp_path)
    hold(referee, table, "empty", n=8)
    reveal(tablet, game_id, "T01", "T05")
    hold(referee, table, T01, n=5)
    press(tablet, game_id, 0)
    hold(referee, table, T01, n=3)
    (question,) = questions(tablet, game_id)
    assert question["asker"] == "camera" and question["choices"] == ["T01", "T05"]
    return table, tablet, referee, game_id, question


CY_TAKES_T05 = {"kind": "done", "seat": 2, "payload": {"card": "T05", "dryer": "shirt:red / - / -"}}


def test_the_cameras_question_stops_offering_a_card_another_player_took(tmp_path):
    table, tablet, referee, game_id, asked = camera_question_asked(tmp_path)
    assert "which completes T01 and T05" in asked["message"]
    assert tablet.send(game_id, CY_TAKES_T05).status_code == 201
    hold(referee, table, T01, n=3)
    (question,) = questions(tablet, game_id)
    assert question["id"] == asked["id"]  # changed in place: a tablet's tap still finds it
    assert question["choices"] == ["T01"]
    assert "which completes T01." in question["message"] and "T05" not in question["message"]
    (answer,) = question["answers"]
    assert "dryer" in answer["event"]["payload"]  # the reading still completes T01
    r = accept(tablet, game_id, question, "T01")
    assert r.status_code == 201 and r.json["verdicts"][0]["reason"].startswith("Ana takes T01")
    assert tablet.snapshot(game_id)["view"]["presses"] == []


def test_a_refused_tap_on_a_taken_card_gets_the_press_asked_again_once(tmp_path):
    table, tablet, referee, game_id, asked = camera_question_asked(tmp_path)
    assert tablet.send(game_id, CY_TAKES_T05).status_code == 201
    # a tablet taps T05 before the camera's next frame: the rules refuse it, the press stays
    r = accept(tablet, game_id, asked, "T05")
    assert r.status_code == 201 and r.json["verdicts"][0]["outcome"] == "illegal"
    assert questions(tablet, game_id) == []
    assert [p["seat"] for p in tablet.snapshot(game_id)["view"]["presses"]] == [0]
    hold(referee, table, T01, n=3)
    (again,) = questions(tablet, game_id)  # asked again, about the cards still open
    assert again["choices"] == ["T01"] and again["asker"] == "camera"
    hold(referee, table, T01, n=3)
    assert [q["id"] for q in questions(tablet, game_id)] == [again["id"]]  # not every frame
    # dismissed by the family: not asked again while the open cards stay the same
    assert tablet.post(f"/api/games/{game_id}/prompts/{again['id']}/dismiss").status_code == 200
    hold(referee, table, T01, n=3)
    assert questions(tablet, game_id) == []


# -- 1c: a restart with a press held --------------------------------------------------------
def test_a_press_held_before_a_restart_is_asked_about_at_start_up(tmp_path):
    tablet, game_id = table_with(tmp_path, "T01", "T03", players=("Ann", "Bob"))
    pressed = press(tablet, game_id, 0)["event"]["t_ns"]
    assert len(questions(tablet, game_id)) == 1
    again = Tablet(make_app(tmp_path))  # the server restarted (a power cut, an update)
    (question,) = questions(again, game_id)
    assert question["message"] == "Ann pressed done: which task card did Ann complete?"
    assert question["t_ns"] == pressed and question["choices"] == ["T01", "T03"]


# -- 3c: a stale tap on the pads' question --------------------------------------------------
def test_a_stale_tap_on_the_pads_question_does_not_call_it_the_cameras(tmp_path):
    tablet, game_id = table_with(tmp_path, "T01", "T03", "first-bonus-1")
    press(tablet, game_id, 0)
    (question,) = questions(tablet, game_id)
    assert accept(tablet, game_id, question, "T01").status_code == 201
    r = accept(tablet, game_id, question, "T01")  # a second tablet, a moment late
    assert r.status_code == 404
    assert r.json["error"] == (
        f"there is no open question {question['id']} in game {game_id} "
        "(another tablet may have answered it)"
    )


# -- 3d: a card-less done typed in the console -----------------------------------------------
def test_a_console_press_is_answered_with_the_consoles_source_not_a_pads(tmp_path):
    tablet, game_id = table_with(tmp_path, "T01", "T03", "first-bonus-1")
    r = tablet.send(game_id, {"kind": "done", "seat": 0, "payload": {}})
    assert r.status_code == 201 and "which task card" in r.json["verdicts"][0]["reason"]
    press(tablet, game_id, 1)  # Bob's pad
    ann, bob = questions(tablet, game_id)
    assert {source(a["event"]) for a in ann["answers"]} == {Source.MANUAL}
    assert {source(a["event"]) for a in bob["answers"]} == {Source.PAD}
    r = accept(tablet, game_id, ann, "T01")
    assert r.status_code == 201 and source(r.json["event"]) is Source.MANUAL
    assert source(tablet.snapshot(game_id)["feed"][-1]["event"]) is Source.MANUAL


def source(event: dict[str, Any]) -> Source:
    return Event.from_dict(event).source  # "manual" is left out of an event's dict


# -- 3b: the tablets' hint ------------------------------------------------------------------
HARNESS = r"""
const vm = require("vm"), fs = require("fs");
const el = (tag, attrs, ...children) => ({ tag, attrs: attrs || {}, children });
const lists = {};
global.document = { getElementById: (id) => lists[id] || (lists[id] = {
  replaceChildren(...items) { this.items = items; }, classList: { toggle() {} } }) };
global.TT = { el, api: async () => ({}), toast() {}, say() {}, referee: true,
  seatName: (s, i) => "seat " + i };
vm.runInThisContext(fs.readFileSync(process.argv[2], "utf8"));
TT.showPrompts({ game_id: 1, prompts: JSON.parse(process.argv[3]) });
const hints = lists.prompts.items.map((li) => li.children[1].attrs.text);
console.log(JSON.stringify(hints));
"""


def node() -> str:
    """Playwright's own node (a test dependency, so always there), else the system's."""
    import playwright

    bundled = Path(playwright.__file__).parent / "driver" / "node"
    return str(bundled) if bundled.is_file() else shutil.which("node") or "node"


def test_a_question_with_one_tap_answers_shows_no_enter_it_hint(tmp_path):
    tablet, game_id = table_with(tmp_path, "T01", "T03", "first-bonus-1")
    press(tablet, game_id, 0)
    (question,) = questions(tablet, game_id)
    plain = {**question, "id": 99, "answers": [], "choices": []}  # nothing to tap
    script = tmp_path / "harness.js"
    script.write_text(HARNESS)
    out = subprocess.run(
        [
            node(),
            str(script),
            str(ROOT / "web/static/js/prompts.js"),
            json.dumps([question, plain]),
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout
    # newest first: the one without answers still says where to enter it
    assert json.loads(out) == ["pads · enter it on the Referee page", "pads"]


# -- zones.json with a byte-order mark ------------------------------------------------------
def test_a_zones_file_saved_with_a_byte_order_mark_loads(tmp_path):
    path = tmp_path / "zones.json"
    zone = {"name": "draw_pile", "points": [[0.1, 0.1], [0.2, 0.1], [0.2, 0.3]]}
    doc = {"version": 1, "frame": {"width": 640, "height": 480}, "zones": [zone]}
    path.write_text(json.dumps(doc), encoding="utf-8-sig")  # Windows Notepad's UTF-8
    loaded = ZoneStore(path).load()
    assert "error" not in loaded
    assert [z["name"] for z in loaded["zones"]] == ["draw_pile"]
