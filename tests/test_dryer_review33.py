"""Review 33 of the camera's dryer referee (``web/services/referee_dryer.py``): a ``done``
the camera asked about is left to the family while the dryers are emptied (TBL-8), and a
calibrated dryer nobody plays never keeps the referee waiting for the empty dryers.

The dashboard with the tests' reader double (``Table``/``TruthReader`` of
``tests/test_web_camera_dryer.py``); nothing here sleeps."""

from __future__ import annotations

from typing import Any

import numpy as np

from referee.washdash.dryer import Dryer
from tests.test_web_camera_dryer import MS, Table, camera_events, dryer_app, hold, start_round
from vision.table.frames import Frame

BEA = Dryer.parse("- / shirt:yellow / pants:blue")  # T03 done (the pants are a spare, WD-4)
HALF_EMPTIED = Dryer.parse("- / - / pants:blue")  # the shirt taken down first


def test_ruling_tbl8_a_half_emptied_dryer_never_judges_a_done_the_camera_asked_about(tmp_path):
    table = Table()
    tablet, referee, game_id = dryer_app(tmp_path, table)
    hold(referee, table, "empty", "empty", n=8)
    start_round(tablet, game_id)
    hold(referee, table, "empty", BEA, n=6, confidence=0.4)  # the camera is unsure of it
    done = {"kind": "done", "seat": 1, "payload": {"card": "T03"}}
    assert tablet.send(game_id, done).status_code == 201  # 2 players: the round is over
    hold(referee, table, "empty", BEA, n=3, confidence=0.4)
    view = tablet.snapshot(game_id)["view"]
    assert view["phase"] == "between_rounds"
    assert [c["status"] for c in view["claims"]] == ["unchecked"]
    (question,) = tablet.services.prompts.open(game_id)
    assert question["message"].startswith(f"Bea's dryer reads {BEA.to_text()}")
    # the family empties the dryers: Bea's shirt comes down first, the pants still hang
    hold(referee, table, "hand", "hand", n=3)
    hold(referee, table, "empty", HALF_EMPTIED, n=6)
    assert camera_events(tablet, game_id) == []  # nothing judged the claim…
    assert [c["status"] for c in tablet.snapshot(game_id)["view"]["claims"]] == ["unchecked"]
    assert [p["id"] for p in tablet.services.prompts.open(game_id)] == [
        question["id"]
    ]  # …still asked


def test_ruling_tbl8_between_rounds_a_done_given_no_reading_yet_is_still_answered(tmp_path):
    """The other half of TBL-8 holds: a ``done`` the camera has not read for yet is
    answered between rounds by the seat's first settled non-empty reading."""
    table = Table()
    tablet, referee, game_id = dryer_app(tmp_path, table)
    hold(referee, table, "empty", "empty", n=8)
    start_round(tablet, game_id)
    done = {"kind": "done", "seat": 1, "payload": {"card": "T03"}}
    assert tablet.send(game_id, done).status_code == 201
    hold(referee, table, "hand", "hand", n=3)  # covered: no reading answered it yet
    hold(referee, table, "empty", BEA, n=6)
    (sent,) = camera_events(tablet, game_id)
    assert Dryer.from_dict(sent["event"]["payload"]["dryer"]) == BEA
    assert [c["status"] for c in tablet.snapshot(game_id)["view"]["claims"]] == ["ok"]


class ThreeDryers(Table):
    """``Table`` with a third dryer (seat 2) calibrated to the right."""

    def __init__(self) -> None:
        super().__init__()
        self.samples.append(Table(seeds=(9, 9)).samples[0])

    def zones_doc(self) -> dict[str, Any]:
        n = len(self.samples)
        zones = [
            {
                "name": z.name.replace("seat_0", f"seat_{seat}"),
                "points": [[(x + seat) / n, y] for x, y in z.points],
            }
            for seat, sample in enumerate(self.samples)
            for z in sample.layout.zones
        ]
        return {"frame": {"width": 640 * n, "height": 480}, "zones": zones}

    def frame(self, left: Any = "empty", right: Any = "empty", confidence: float = 1.0) -> Frame:
        what = (left, right, "empty")
        image = np.hstack([self.picture(s, w, confidence) for s, w in enumerate(what)])
        self.t_ns += 100 * MS
        self.index += 1
        return Frame(image, self.t_ns, self.index)


def test_a_calibrated_dryer_nobody_plays_never_keeps_the_referee_waiting(tmp_path):
    table = ThreeDryers()
    tablet, referee, game_id = dryer_app(tmp_path, table)  # Ana and Bea: seat 2 unplayed
    start_round(tablet, game_id)  # a round runs: no automatic empty picture
    hold(referee, table, "empty", "empty", n=8)
    assert referee.dryers.seats == [0, 1, 2]
    assert tablet.post("/api/camera/dryers/empty").status_code == 200
    hold(referee, table, "empty", "empty", n=8)
    status = referee.status()
    # seat 2's dryer is not read, so not listed (since day 34)
    assert [s["reference"] for s in status["dryers"]["seats"]] == ["button", "button"]
    assert not status["dryers"]["waiting_for_empty"]
    assert "waiting" not in status["message"] and "no picture" not in status["message"]
    assert status["message"].endswith("reading the dryers of seats 0, 1")


def test_the_missing_empty_picture_line_names_only_seats_someone_plays(tmp_path):
    table = ThreeDryers()
    tablet, referee, game_id = dryer_app(tmp_path, table)  # Ana and Bea: seat 2 unplayed
    start_round(tablet, game_id)  # a round runs: no automatic empty picture
    hold(referee, table, "empty", "empty", n=8)
    assert "seat 0, 1: no picture of the empty dryer yet" in referee.status()["message"]
