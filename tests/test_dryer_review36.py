"""Review 36: the family's undo of a camera dryer answer stands while the dryer shows it.

The dashboard's dryer referee (``web/services/referee_dryer.py``) with the reader double of
``tests/test_web_camera_dryer.py`` (each picture reads as what the test says). Before, an
undo of the camera's ``dryer`` (judging a ``done``) or of its ``done`` (naming a held press,
WD-21) left the claim or press waiting, and the next frame sent the same event again.
"""

from __future__ import annotations

from typing import Any

from referee.washdash.dryer import Dryer
from tests.test_washdash_press_camera import (
    MS,
    PANTS_BAR_2,
    camera_events,
    claims,
    hold,
    press,
    questions,
    ready,
)
from tests.test_web_camera_dryer import T01
from tests.test_web_routes import Tablet

MISREAD = Dryer.parse("pants:yellow / - / -")  # the red pin read as yellow, for sure


def kinds(tablet: Tablet, game_id: int) -> list[tuple[int, str]]:
    return [(e["seq"], e["event"]["kind"]) for e in camera_events(tablet, game_id)]


def misjudged(tmp_path: Any) -> tuple[Any, Tablet, Any, int, int]:
    """Ana taps T01; the camera's misread ``dryer`` judges it a mistake: (…, its seq)."""
    table, tablet, referee, game_id = ready(tmp_path, "T01", "T03")
    hold(referee, table, MISREAD, n=5)  # sent as Ana's dryer while the round runs
    tap = {"kind": "done", "seat": 0, "payload": {"card": "T01"}}
    assert tablet.send(game_id, tap).status_code == 201
    hold(referee, table, MISREAD, n=2)
    assert claims(tablet, game_id) == [(0, "T01", None, "wrong")]
    judged = camera_events(tablet, game_id)[-1]
    assert judged["event"]["kind"] == "dryer"
    return table, tablet, referee, game_id, int(judged["seq"])


def test_ruling_wd21_dryer_undo_a_claims_reading_is_not_sent_again_while_the_dryer_shows_it(
    tmp_path,
):
    table, tablet, referee, game_id, seq = misjudged(tmp_path)
    before = kinds(tablet, game_id)
    assert tablet.post(f"/api/games/{game_id}/undo", {"target": seq}).status_code == 201
    assert claims(tablet, game_id) == [(0, "T01", None, "unchecked")]
    hold(referee, table, MISREAD, n=4)
    assert kinds(tablet, game_id) == before  # the family's word stands
    assert claims(tablet, game_id) == [(0, "T01", None, "unchecked")]
    assert questions(tablet, game_id) == []


def test_ruling_wd21_dryer_undo_ends_when_the_dryer_changes_then_it_is_answered_anew(tmp_path):
    table, tablet, referee, game_id, seq = misjudged(tmp_path)
    assert tablet.post(f"/api/games/{game_id}/undo", {"target": seq}).status_code == 201
    hold(referee, table, MISREAD, n=3)
    hold(referee, table, T01, n=5)  # the pin re-clipped: a new reading answers the claim
    last = camera_events(tablet, game_id)[-1]
    assert last["seq"] > seq and last["event"]["payload"]["dryer"] == T01.to_dict()
    assert claims(tablet, game_id) == [(0, "T01", None, "ok")]


def test_ruling_wd21_dryer_undo_an_overrule_of_the_cameras_reading_still_judges(tmp_path):
    table, tablet, referee, game_id, seq = misjudged(tmp_path)
    before = kinds(tablet, game_id)
    fixed = {"kind": "dryer", "seat": 0, "payload": {"dryer": T01.to_dict()}}
    r = tablet.post(f"/api/games/{game_id}/overrule", {"target": seq, "event": fixed})
    assert r.status_code == 201
    hold(referee, table, MISREAD, n=4)
    assert claims(tablet, game_id) == [(0, "T01", None, "ok")]
    assert kinds(tablet, game_id) == before


def named(tmp_path: Any) -> tuple[Any, Tablet, Any, int, int, int]:
    """Ana's pad press named T01 by the camera (WD-21): (…, the press's time, done's seq)."""
    table, tablet, referee, game_id = ready(tmp_path, "T01", "T03")
    hold(referee, table, T01, n=5)
    pressed = table.t_ns + 50 * MS
    press(tablet, game_id, 0, pressed)
    hold(referee, table, T01, n=2)
    done = camera_events(tablet, game_id)[-1]
    assert done["event"]["kind"] == "done" and done["event"]["payload"]["card"] == "T01"
    return table, tablet, referee, game_id, pressed, int(done["seq"])


def test_ruling_wd21_dryer_undo_a_press_the_camera_named_is_asked_not_named_again(tmp_path):
    table, tablet, referee, game_id, pressed, seq = named(tmp_path)
    before = kinds(tablet, game_id)
    assert tablet.post(f"/api/games/{game_id}/undo", {"target": seq}).status_code == 201
    hold(referee, table, T01, n=4)
    assert kinds(tablet, game_id) == before  # the same done is not logged again
    assert tablet.snapshot(game_id)["view"]["presses"] == [{"seat": 0, "t_ns": pressed}]
    (question,) = questions(tablet, game_id)  # still held: which card, the family says
    assert question["prompt"] == "which_card" and question["t_ns"] == pressed
    assert "the card it named was undone on the tablet" in question["message"]
    assert [a["name"] for a in question["answers"]] == ["T01", "T03"]
    url = f"/api/games/{game_id}/prompts/{question['id']}/accept"
    assert tablet.post(url, {"answer": "T03"}).status_code == 201
    assert [(c[0], c[1], c[2]) for c in claims(tablet, game_id)] == [(0, "T03", pressed)]


def test_ruling_wd21_dryer_undo_a_changed_dryer_may_name_the_press_again(tmp_path):
    table, tablet, referee, game_id, pressed, seq = named(tmp_path)
    assert tablet.post(f"/api/games/{game_id}/undo", {"target": seq}).status_code == 201
    hold(referee, table, T01, n=3)
    hold(referee, table, PANTS_BAR_2, n=5)  # re-hung: a new sure reading names the card
    last = camera_events(tablet, game_id)[-1]
    assert last["seq"] > seq and last["event"]["kind"] == "done"
    assert last["event"]["payload"] == {"card": "T01", "dryer": PANTS_BAR_2.to_dict()}
    assert claims(tablet, game_id) == [(0, "T01", pressed, "ok")]
    assert questions(tablet, game_id) == []
