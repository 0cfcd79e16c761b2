"""A camera referee that starts on a Deck Dash round already under way (a server restart,
new zones saved, camera refereeing turned on mid-game), or whose seat areas the family
filled on the tablet: the Dashes and handoffs the game already has are not proposed again
(TBL-4), and what the camera sees added later still is.

The frames are painted (one grey level per scene over the zones, 30 levels apart: more than
the motion gate's ``pixel_delta``, so it sees each change) and the detector reads each scene
back: these tests check the wiring from the game's table groups to the watcher, not the card
models."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.test_web_camera_referee import FPS, camera_events, watch_to_the_end
from tests.test_web_routes import Tablet, make_app
from vision.table.frames import Frame
from vision.table.sequences import table_layout
from vision.table.watcher import Sighting
from web.services.referee_camera import seat_areas

SEAT_AREAS = {0: (0.05, 0.76, 0.45, 0.98), 1: (0.55, 0.76, 0.95, 0.98)}
DEAL = {"kind": "deal", "payload": {"dealer": 1, "hands": [12, 12], "start": "G5"}}
BEA_DASH = ["R1", "Y1", "R2", "Y2", "R3", "Y3"]
BEA_LAYS = {"kind": "lay", "seat": 1, "payload": {"cards": BEA_DASH}}
# Ana on turn, having drawn; on her last turn Bea laid her Dash (three pairs) and handed G1
# off onto her pair of 1s
BEA_LAID = [
    DEAL,
    {"kind": "draw", "seat": 0},
    {"kind": "discard", "seat": 0, "payload": {"card": "G7"}},
    {"kind": "draw", "seat": 1},
    BEA_LAYS,
    {"kind": "handoff", "seat": 1, "payload": {"card": "G1", "group": 0}},
    {"kind": "discard", "seat": 1, "payload": {"card": "B9"}},
    {"kind": "draw", "seat": 0},
]
BEA_AREA = sorted([*BEA_DASH, "G1"])
ANA_DASH = ["B4", "G4", "B6", "G6", "B8", "G8"]

Scene = tuple[str, dict[int, list[str]]]  # the discard pile's top, each seat area's cards


def zones_doc() -> dict[str, Any]:
    """The calibration: the draw and discard piles of ``table_layout`` and both seat areas."""
    layout = table_layout()
    boxes = {name: layout.box(name) for name in ("draw_pile", "discard_1")}
    boxes |= {f"seat_{s}_area": box for s, box in SEAT_AREAS.items()}
    zones = [
        {"name": name, "points": [[x1, y1], [x2, y1], [x2, y2], [x1, y2]]}
        for name, (x1, y1, x2, y2) in boxes.items()
    ]
    return {"frame": {"width": 160, "height": 120}, "zones": zones}


class PaintedTable:
    """Rendered frames, each scene held for 8 frames at 30 FPS; ``before``: frame index ->
    what the family does on the tablet before the camera sees that frame.

    Each scene's grey steps 30 levels from the last: a step of 20 (the gate's ``pixel_delta``,
    which a pixel must exceed) left every scene change unseen, and the detector never ran on
    it (the watcher re-fed its last reading), as a card laid never would on a real table."""

    def __init__(
        self, scenes: list[Scene], before: dict[int, Callable[[], None]] | None = None
    ) -> None:
        import numpy as np

        self.scenes = scenes
        self.frames = []
        boxes = [table_layout().box("discard_1"), *SEAT_AREAS.values()]
        for k in range(len(scenes)):
            img = np.full((120, 160, 3), 40, np.uint8)
            for x1, y1, x2, y2 in boxes:
                img[int(y1 * 120) : int(y2 * 120), int(x1 * 160) : int(x2 * 160)] = 60 + 30 * k
            self.frames += [(k, img)] * 8
        self.i = 0
        self.before = before or {}

    def read(self) -> Frame | None:
        if self.i >= len(self.frames):
            return None
        if self.i in self.before:
            self.before[self.i]()
        frame = Frame(self.frames[self.i][1], round(self.i * 1e9 / FPS), self.i)
        self.i += 1
        return frame

    def close(self) -> None:
        self.i = len(self.frames)

    def detect(self, image: Any) -> list[Sighting]:
        top, areas = self.scenes[self.frames[self.i - 1][0]]
        x1, y1, x2, y2 = table_layout().box("discard_1")
        out = [Sighting(top, 0.95, (x1 + 0.02, y1 + 0.02, x2 - 0.02, y2 - 0.02))]
        for seat, cards in areas.items():
            ax1, ay1, ax2, ay2 = SEAT_AREAS[seat]
            w = (ax2 - ax1) / max(len(cards), 1)
            for j, card in enumerate(cards):
                box = (ax1 + j * w + 0.002, ay1 + 0.01, ax1 + (j + 1) * w - 0.002, ay2 - 0.01)
                out.append(Sighting(card, 0.95, box))
        return out


def typed(tablet: Tablet, game_id: int, events: list[dict[str, Any]]) -> None:
    for event in events:
        r = tablet.send(game_id, event)
        assert r.status_code == 201 and r.json["verdicts"][0]["outcome"] == "legal", r.json


def restarted(tmp_path: Path, scenes: list[Scene]) -> tuple[Tablet, int]:
    """BEA_LAID typed on a dashboard without a camera; the server is restarted (the same
    database and zones) with a camera that watches ``scenes``."""
    first = Tablet(make_app(tmp_path))
    first.set_pin()
    first.services.zones.save(zones_doc())
    game_id = first.new_game("deck-dash", ("Ana", "Bea"))
    typed(first, game_id, BEA_LAID)
    table = PaintedTable(scenes)
    app = make_app(tmp_path, referee_source=lambda: table, referee_detector=lambda g: table.detect)
    tablet = Tablet(app)
    watch_to_the_end(tablet)
    return tablet, game_id


def watched(
    tmp_path: Path,
    events: list[dict[str, Any]],
    scenes: list[Scene],
    family: dict[int, Callable[[Tablet, int], None]] | None = None,
) -> tuple[Tablet, int]:
    """``events`` typed, then the camera watches ``scenes`` while the family does
    ``family`` (frame index -> what is done on the tablet before that frame is seen)."""
    game: list[Any] = []
    hooks = {i: (lambda act=act: act(*game)) for i, act in (family or {}).items()}
    table = PaintedTable(scenes, hooks)
    app = make_app(tmp_path, referee_source=lambda: table, referee_detector=lambda g: table.detect)
    tablet = Tablet(app)
    tablet.set_pin()
    tablet.services.zones.save(zones_doc())
    game_id = tablet.new_game("deck-dash", ("Ana", "Bea"))
    typed(tablet, game_id, events)
    game += [tablet, game_id]
    watch_to_the_end(tablet)
    return tablet, game_id


def questions(tablet: Tablet, game_id: int) -> list[tuple[str, str]]:
    prompts = tablet.client.get(f"/api/games/{game_id}/prompts").json["prompts"]
    return [(p["prompt"], p["message"]) for p in prompts]


def test_ruling_tbl4_a_dash_laid_before_a_restart_is_not_laid_again(tmp_path):
    """The server restarts mid-round: Bea's Dash, with the G1 handed off onto it, already
    lies in her area. The camera logs nothing and asks nothing about it (it used to log
    Bea's ``lay`` of all seven cards, refused: not her turn, and she had laid already);
    Ana's Dash, then her handoff onto Bea's pair, are still read as usual."""
    scenes: list[Scene] = [
        ("B9", {1: BEA_AREA}),
        ("B9", {0: ANA_DASH, 1: BEA_AREA}),  # Ana lays her Dash
        ("B9", {0: ANA_DASH, 1: [*BEA_AREA, "B1"]}),  # and hands B1 off onto Bea's 1s
    ]
    tablet, game_id = restarted(tmp_path, scenes)
    got = camera_events(tablet, game_id)
    assert [(i["event"]["kind"], i["event"]["seat"]) for i in got] == [("lay", 0)]
    assert got[0]["event"]["payload"] == {"cards": sorted(ANA_DASH)}
    assert [v["outcome"] for v in got[0]["verdicts"]] == ["legal"]
    assert questions(tablet, game_id) == [
        ("which_group", "Seat 0 handed off B1 to seat 1's groups: onto which group?")
    ]


def test_ruling_tbl4_a_dash_typed_on_the_tablet_is_not_laid_again_by_the_camera(tmp_path):
    """Bea types her lay on the tablet as she lays it (the camera saw her area empty): when
    the camera sees the cards, it logs nothing more; a card added later is a handoff."""
    bea_on_turn = [*BEA_LAID[:3], {"kind": "draw", "seat": 1}]
    scenes: list[Scene] = [
        ("G7", {}),
        ("G7", {1: BEA_DASH}),
        ("G7", {1: [*BEA_DASH, "B2"]}),
    ]
    family = {8: lambda tablet, game_id: typed(tablet, game_id, [BEA_LAYS])}
    tablet, game_id = watched(tmp_path, bea_on_turn, scenes, family)
    assert camera_events(tablet, game_id) == []
    assert tablet.snapshot(game_id)["head"] == 5  # the deal … Bea's typed lay, nothing more
    assert questions(tablet, game_id) == [
        ("which_group", "Seat 1 handed off B2 to seat 1's groups: onto which group?")
    ]


def test_ruling_tbl4_a_misread_dash_is_asked_about_once_and_not_again(tmp_path):
    """After a restart the camera reads Bea's Y3 as Y8: one question (it cannot tell a
    misread from a card handed off), then nothing more: not when Ana's Dash and her handoff
    typed on the tablet change the table, nor when a hand hides the card handed off and it
    shows again."""
    misread = sorted(["Y8" if c == "Y3" else c for c in BEA_AREA])
    scenes: list[Scene] = [
        ("B9", {1: misread}),
        ("B9", {0: ANA_DASH, 1: [*misread, "B1"]}),
        ("B9", {0: ANA_DASH, 1: misread}),
        ("B9", {0: ANA_DASH, 1: [*misread, "B1"]}),
    ]
    ana = [
        {"kind": "lay", "seat": 0, "payload": {"cards": ANA_DASH}},
        {"kind": "handoff", "seat": 0, "payload": {"card": "B1", "group": 0}},
    ]
    family = {8: lambda tablet, game_id: typed(tablet, game_id, ana)}
    tablet, game_id = watched(tmp_path, BEA_LAID, scenes, family)
    assert camera_events(tablet, game_id) == []
    assert questions(tablet, game_id) == [
        ("which_group", "Seat 0 handed off Y8 to seat 1's groups: onto which group?")
    ]


def test_ruling_tbl4_a_camera_lay_the_family_undid_is_not_laid_again_while_it_lies_there(
    tmp_path,
):
    """The camera logs Ana's Dash; the family undoes it while the cards still lie there:
    the game's area is empty again, but the camera keeps what it saw (cards are only ever
    added to its reading from the game), so it does not lay them again."""

    def undo_the_lay(tablet: Tablet, game_id: int) -> None:
        (lay,) = camera_events(tablet, game_id)
        assert tablet.post(f"/api/games/{game_id}/undo", {"target": lay["seq"]}).status_code == 201

    scenes: list[Scene] = [("B9", {1: BEA_AREA})] + [("B9", {0: ANA_DASH, 1: BEA_AREA})] * 4
    tablet, game_id = watched(tmp_path, BEA_LAID, scenes, {24: undo_the_lay})
    snap = tablet.snapshot(game_id)
    assert [i["status"] for i in snap["feed"]][-2:] == ["undone", "meta"]
    assert [i["event"]["kind"] for i in camera_events(tablet, game_id)] == ["lay"]
    assert questions(tablet, game_id) == []


def test_seat_areas_are_each_seats_groups_in_deck_dash_only():
    table = [
        {"owner": 1, "cards": ["R1", "Y1", "W"]},
        {"owner": 0, "cards": ["G4", "B4"]},
        {"owner": 1, "cards": ["R2", "Y2"]},
    ]
    view = {"round": {"table": table}}
    areas = [("seat_0_area", 0), ("seat_1_area", 1), ("seat_2_area", 2)]
    assert seat_areas("deck-dash", view, areas) == {
        "seat_0_area": ("B4", "G4"),
        "seat_1_area": ("R1", "R2", "W", "Y1", "Y2"),
        "seat_2_area": (),
    }
    assert seat_areas("deck-dash", {"round": None}, areas[:1]) == {"seat_0_area": ()}
    # two zones for one seat: which of them holds which group is not known
    assert seat_areas("deck-dash", view, [("a", 1), ("b", 1), *areas[:1]]) == {
        "seat_0_area": ("B4", "G4")
    }
    assert seat_areas("dos", view, areas) == {}
