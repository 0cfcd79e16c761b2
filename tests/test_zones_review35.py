"""Day 35's review of the table zones (server side): one slip in zones.json (a hand edit's
misspelt name) cost the whole calibration silently, and the next save wrote only the new zone;
a pile tapped in reading order (TL, TR, BL, BR) was saved as an hourglass; card zones drawn
over each other read one card in each; and zones drawn on a 4:3 picture were used unchanged on
a 16:9 one. The browser side is tests/test_web_calibration35.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.cli import main
from tests.test_web_routes import Tablet, make_app
from vision.table.zones import TableLayout, ZoneError
from web.errors import BadInput
from web.services.zones import ZoneStore, validate

FRAME = {"width": 640, "height": 480}
NAMES = ["draw_pile", "discard_1", "discard_2", "seat_0_area", "seat_1_area"]
TYPO = (
    "zones.json: entry 5 of 5 is left out: unknown zone name 'seat_1_aera'; "
    "e.g. draw_pile, discard_1, seat_0_dryer_bar_2"
)
CROSSED = "zone 'discard_1' crosses itself: tap the corners going round the zone, not across it"


def square(x: float, y: float = 0.3, side: float = 0.1) -> list[list[float]]:
    return [[x, y], [x + side, y], [x + side, y + side], [x, y + side]]


def five_zones() -> dict[str, Any]:
    """A table's five card zones side by side, as the Calibrate page saves them."""
    zones = [{"name": n, "points": square(0.05 + 0.15 * i)} for i, n in enumerate(NAMES)]
    return {"frame": FRAME, "zones": zones}


def misspelt(store: ZoneStore) -> bytes:
    """The five zones saved, then seat_1_area renamed by hand to 'seat_1_aera'; the bytes."""
    store.save(five_zones())
    doc = json.loads(store.path.read_text())
    doc["zones"][4]["name"] = "seat_1_aera"
    store.path.write_text(json.dumps(doc, indent=1))
    return store.path.read_bytes()


@pytest.fixture
def referee(tmp_path: Path) -> Tablet:
    t = Tablet(make_app(tmp_path))
    assert t.set_pin().status_code == 302
    return t


def names(doc: dict[str, Any]) -> list[str]:
    return [z["name"] for z in doc["zones"]]


# -- one bad entry costs that entry, and is named --------------------------------------------
def test_a_misspelt_entry_costs_that_zone_alone_and_is_named(referee: Tablet) -> None:
    """Before: {'zones': [], 'error': True}, no word of why."""
    misspelt(referee.services.zones)
    doc = referee.client.get("/api/zones").json
    assert names(doc) == NAMES[:4]
    assert doc["problems"] == [TYPO]
    assert doc["read_whole"] is False
    assert doc["frame"] == FRAME  # the rest of the file is read too


@pytest.mark.parametrize(
    "text, why",
    [
        ('{"zones": [', "zones.json cannot be read: it is not JSON (Expecting value, line 1)"),
        ('{"zone": []}', "zones.json holds no 'zones' list: no zone could be read"),
    ],
)
def test_a_file_with_no_zones_to_read_says_why(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "zones.json"
    path.write_text(text)
    doc = ZoneStore(path).load()
    assert doc["zones"] == [] and doc["problems"] == [why] and doc["read_whole"] is False


def test_a_whole_file_has_no_problems(tmp_path: Path) -> None:
    store = ZoneStore(tmp_path / "zones.json")
    assert store.load()["problems"] == []  # no file yet: no zones, nothing wrong
    store.save(five_zones())
    doc = store.load()
    assert names(doc) == NAMES and doc["problems"] == [] and doc["read_whole"] is True


def test_saving_over_a_file_read_in_part_keeps_it_beside_and_says_so(referee: Tablet) -> None:
    """Before: the next save replaced the file with the page's zones, the slip's zone gone
    with no copy anywhere."""
    store = referee.services.zones
    original = misspelt(store)
    page = referee.client.get("/api/zones").json
    r = referee.post("/api/zones", {"frame": FRAME, "zones": page["zones"]})
    assert r.status_code == 200, r.json
    kept = store.path.with_name("zones.json.bad")
    assert r.json["kept_as"] == str(kept)
    assert kept.read_bytes() == original
    assert names(store.load()) == NAMES[:4] and store.load()["problems"] == []
    again = referee.post("/api/zones", {"frame": FRAME, "zones": page["zones"]})
    assert "kept_as" not in again.json  # the file reads whole now: no second copy
    assert sorted(p.name for p in store.path.parent.glob("zones.json.bad*")) == [kept.name]
    misspelt(store)  # another slip later: the first copy stays, the new one goes beside it
    r = referee.post("/api/zones", {"frame": FRAME, "zones": page["zones"]})
    assert r.json["kept_as"] == str(store.path.with_name("zones.json.bad.2"))
    assert kept.read_bytes() == original


def test_a_file_read_in_part_that_cannot_be_copied_is_not_replaced(
    referee: Tablet, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    store = referee.services.zones
    original = misspelt(store)
    real_open = Path.open

    def full_card(self: Path, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if mode == "xb":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(self, mode, *args, **kwargs)

    monkeypatch.setattr(Path, "open", full_card)
    r = referee.post("/api/zones", five_zones())
    assert r.status_code == 503
    assert r.json["error"] == (
        f"{store.path} did not read whole and could not be copied aside (No space left on "
        "device), so it is not replaced: nothing was saved"
    )
    assert store.path.read_bytes() == original


def test_the_cli_names_the_entry_the_dashboard_leaves_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`vision watch` reads the dashboard's names as the dashboard does: before, it took
    'seat_1_aera' for a seat area the Calibrate page never shows."""
    store = ZoneStore(tmp_path / "zones.json")
    misspelt(store)
    with pytest.raises(ZoneError, match=r"zone 'seat_1_aera': a seat_area zone of the dashboard"):
        TableLayout.load(store.path)
    frames = tmp_path / "frames"
    frames.mkdir()
    rc = main(["vision", "watch", str(frames), "--game", "dos", "--zones", str(store.path)])
    assert rc == 2
    assert "seat_1_aera" in capsys.readouterr().err


def test_a_layout_names_every_bad_entry(tmp_path: Path) -> None:
    doc = validate(five_zones())
    doc["zones"][0]["kind"] = "moon"
    doc["zones"][3]["points"] = [[0, 0]]
    with pytest.raises(ZoneError) as err:
        TableLayout.from_dict(doc)
    assert "zone 'draw_pile': kind must be one of" in str(err.value)
    assert "zone 'seat_0_area': needs at least 3 points" in str(err.value)


# -- a zone whose sides cross ----------------------------------------------------------------
@pytest.mark.parametrize(
    "points",
    [
        pytest.param([[0.44, 0.35], [0.56, 0.35], [0.44, 0.65], [0.565, 0.66]], id="hourglass"),
        pytest.param([[0.4, 0.3], [0.6, 0.3], [0.4, 0.5], [0.6, 0.5]], id="exact-Z"),
    ],
)
def test_ruling_tbl29_a_zone_whose_sides_cross_is_refused(referee: Tablet, points: list) -> None:
    """Corners tapped in reading order: before, the hourglass was saved (a card a little left
    of the pile's centre lay outside it), and an exact Z was called 'corners on top of each
    other or in one line'."""
    r = referee.post(
        "/api/zones", {"frame": FRAME, "zones": [{"name": "discard_1", "points": points}]}
    )
    assert r.status_code == 400
    assert r.json["error"] == CROSSED


def test_corners_going_round_a_zone_are_kept_and_a_dryer_bar_may_cross(referee: Tablet) -> None:
    """Sides that only meet (a corner tapped twice) are no crossing; a dryer bar is read as the
    line between its ends, so a thin one tapped a little off (its corners swapped) is kept."""
    twice = [[0.4, 0.3], [0.6, 0.3], [0.6, 0.3], [0.6, 0.5], [0.4, 0.5]]
    bar = [[0.1, 0.6], [0.9, 0.63], [0.9, 0.6], [0.1, 0.62]]
    zones = [{"name": "discard_1", "points": twice}, {"name": "seat_0_dryer_bar_1", "points": bar}]
    r = referee.post("/api/zones", {"frame": FRAME, "zones": zones})
    assert r.status_code == 200, r.json


# -- card zones over each other --------------------------------------------------------------
def test_ruling_tbl29_card_zones_over_each_other_are_refused_naming_both(referee: Tablet) -> None:
    """Before: DOS's two piles and a seat area drawn over each other were saved, and one R7
    settled as three observations."""
    pile = square(0.4, 0.3, 0.2)
    zones = [{"name": "discard_1", "points": pile}, {"name": "discard_2", "points": pile}]
    r = referee.post("/api/zones", {"frame": FRAME, "zones": zones})
    assert r.status_code == 400
    assert r.json["error"] == (
        "zones 'discard_1' and 'discard_2' overlap (100% of the smaller one): a card there "
        "would count in both; move them apart"
    )
    around = [[0.3, 0.25], [0.7, 0.25], [0.7, 0.6], [0.3, 0.6]]
    zones = [{"name": "discard_1", "points": pile}, {"name": "seat_0_area", "points": around}]
    r = referee.post("/api/zones", {"frame": FRAME, "zones": zones})
    assert r.status_code == 400 and "'discard_1' and 'seat_0_area' overlap" in r.json["error"]


def test_zones_that_only_touch_and_a_dryer_over_a_seat_area_are_kept() -> None:
    """A shared edge drawn sloppily overlaps a little (10 % here); dryers are not card zones."""
    zones = [
        {"name": "discard_1", "points": square(0.4, 0.3, 0.2)},
        {"name": "discard_2", "points": square(0.58, 0.3, 0.2)},  # 10 % over discard_1
        {"name": "seat_0_area", "points": square(0.0, 0.6, 0.4)},
        {"name": "seat_0_dryer", "points": square(0.05, 0.65, 0.3)},
    ]
    assert names(validate({"frame": FRAME, "zones": zones})) == [z["name"] for z in zones]
    bad = [*zones[:1], {"name": "draw_pile", "points": square(0.52, 0.3, 0.2)}]  # 40 %
    with pytest.raises(BadInput, match="'discard_1' and 'draw_pile' overlap \\(40% of"):
        validate({"frame": FRAME, "zones": bad})


def test_a_file_saved_before_these_checks_still_loads_and_says_what_to_redraw(tmp_path):
    """Like a flat zone (WEB-5): the zones are kept as saved, and the page says what saving
    will ask to be redrawn."""
    pile = square(0.4, 0.3, 0.2)
    hourglass = [[0.1, 0.1], [0.2, 0.1], [0.1, 0.2], [0.2, 0.2]]
    zones = [
        {"name": "discard_1", "points": pile},
        {"name": "discard_2", "points": pile},
        {"name": "draw_pile", "points": hourglass},
    ]
    path = tmp_path / "zones.json"
    path.write_text(json.dumps({"version": 1, "frame": FRAME, "zones": zones}))
    doc = ZoneStore(path).load()
    assert names(doc) == ["discard_1", "discard_2", "draw_pile"]
    assert doc["read_whole"] is True
    assert [p.split(":")[0] for p in doc["problems"]] == [
        "zone 'draw_pile' crosses itself",
        "zones 'discard_1' and 'discard_2' overlap (100% of the smaller one)",
    ]


# -- zones drawn on a picture of another shape -----------------------------------------------
def camera_folder(tmp_path: Path, width: int, height: int) -> str:
    folder = tmp_path / f"cam{width}x{height}"
    folder.mkdir()
    for i in range(3):
        cv2.imwrite(str(folder / f"{i:03d}.png"), np.full((height, width, 3), 90, np.uint8))
    return str(folder)


@pytest.mark.parametrize(
    "size, changed",
    [
        pytest.param(
            (1280, 720),
            "The zones were drawn on a 640×480 picture; the camera now sends 1280×720, "
            "another shape, so they no longer lie where they were drawn: calibrate again",
            id="16:9",
        ),
        pytest.param((1280, 960), None, id="4:3-larger"),
    ],
)
def test_ruling_tbl29_a_camera_picture_of_another_shape_asks_to_calibrate_again(
    tmp_path: Path, size: tuple[int, int], changed: str | None
) -> None:
    """Before: the saved frame was never read, and zones drawn on 640×480 were used on 1280×720
    unchanged. Corners are shares of the picture, so only another shape moves them."""
    app = make_app(tmp_path, camera=camera_folder(tmp_path, *size), camera_referee=False)
    try:
        t = Tablet(app)
        t.services.zones.save(five_zones())
        doc = t.client.get("/api/zones").json
        assert doc["camera_frame"] == {"width": size[0], "height": size[1]}
        assert doc["frame_changed"] == changed
    finally:
        app.extensions["tabletop"].camera.close()


def test_without_a_camera_picture_nothing_is_compared(referee: Tablet) -> None:
    referee.services.zones.save(five_zones())
    doc = referee.client.get("/api/zones").json
    assert doc["camera_frame"] is None and doc["frame_changed"] is None
