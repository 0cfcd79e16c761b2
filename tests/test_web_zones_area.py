"""A zone without area is refused by the server: its corners on top of each other (three "Add
corner" presses on the old Calibrate page) or in one line, it could never hold a card, so a
script cannot store it either. A thin but real zone (a dryer bar) is still kept, and a file
saved before the check still loads."""

from __future__ import annotations

import json
import os

import pytest

from tests.test_web_routes import Tablet, make_app
from web.services.zones import ZoneStore

FRAME = {"width": 640, "height": 480}
KEPT = {"name": "draw_pile", "points": [[0.1, 0.1], [0.2, 0.1], [0.2, 0.3]]}


@pytest.fixture
def referee(tmp_path) -> Tablet:
    t = Tablet(make_app(tmp_path))
    assert t.set_pin().status_code == 302
    return t


@pytest.mark.parametrize(
    "points",
    [
        pytest.param([[0.5, 0.5]] * 3, id="one-point"),
        pytest.param([[0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5]], id="one-point-x4"),
        pytest.param([[0.1, 0.1], [0.5, 0.5], [0.9, 0.9]], id="one-line"),
        pytest.param([[0.3, 0.3], [0.3004, 0.3], [0.3, 0.3004]], id="a-speck"),  # 8e-8
    ],
)
def test_a_flat_zone_is_refused_with_one_line_saying_why(referee, tmp_path, points):
    before = referee.post("/api/zones", {"frame": FRAME, "zones": [KEPT]})
    assert before.status_code == 200
    stored = (tmp_path / "zones.json").read_text()
    flat = {"name": "seat_0_dryer_bar_3", "points": points}
    r = referee.post("/api/zones", {"frame": FRAME, "zones": [KEPT, flat]})
    assert r.status_code == 400
    error = r.json["error"]
    assert error == (
        "zone 'seat_0_dryer_bar_3' has no area: its corners are on top of each other "
        "or in one line; move them apart"
    )
    assert "\n" not in error
    assert (tmp_path / "zones.json").read_text() == stored  # nothing was lost
    assert [z["name"] for z in referee.client.get("/api/zones").json["zones"]] == ["draw_pile"]


def test_a_thin_zone_with_area_is_kept(referee):
    """The smallest triangle the arrow keys make (0.5 % sides: 1.25e-5 of the picture) and a
    thin dryer bar (4e-4) pass: only a zone without area is refused."""
    small = {"name": "seat_0_dryer_bar_1", "points": [[0.5, 0.5], [0.505, 0.5], [0.505, 0.505]]}
    bar = {"name": "seat_0_dryer_bar_2", "points": [[0.1, 0.6], [0.9, 0.6], [0.9, 0.601]]}
    r = referee.post("/api/zones", {"frame": FRAME, "zones": [KEPT, small, bar]})
    assert r.status_code == 200, r.json
    assert len(r.json["zones"]) == 3


def test_a_file_saved_before_the_check_still_loads(tmp_path):
    """A flat zone already on disk does not cost the table its other zones."""
    path = tmp_path / "zones.json"
    flat = {"name": "discard_1", "points": [[0.5, 0.5]] * 3}
    path.write_text(json.dumps({"version": 1, "frame": FRAME, "zones": [KEPT, flat]}))
    doc = ZoneStore(path).load()
    assert "error" not in doc
    assert [z["name"] for z in doc["zones"]] == ["draw_pile", "discard_1"]


def test_ruling_log2_zones_the_card_refuses_are_a_503_and_the_saved_ones_stay(
    referee, tmp_path, monkeypatch
):
    import tempfile

    assert referee.post("/api/zones", {"frame": FRAME, "zones": [KEPT]}).status_code == 200
    saved = sorted(tmp_path.iterdir())

    def on_a_full_card(dir: str, prefix: str) -> tuple[int, str]:
        """The temporary file the zones are written into finds no space."""
        name = f"{dir}/{prefix}full"
        os.symlink("/dev/full", name)
        return os.open(name, os.O_RDONLY), name

    with monkeypatch.context() as patch:
        patch.setattr(tempfile, "mkstemp", on_a_full_card)
        other = {**KEPT, "name": "discard_1"}
        r = referee.post("/api/zones", {"frame": FRAME, "zones": [other]})
    assert r.status_code == 503, r.json
    assert (
        "No space left on device" in r.json["error"] and "saved before are kept" in r.json["error"]
    )
    assert sorted(tmp_path.iterdir()) == saved  # no stray temp file
    assert [z["name"] for z in referee.client.get("/api/zones").json["zones"]] == ["draw_pile"]
    r = referee.post("/api/zones", {"frame": FRAME, "zones": [other]})  # space again: saved
    assert r.status_code == 200


def test_a_frame_that_is_not_an_object_is_refused(referee):
    r = referee.post("/api/zones", {"frame": [], "zones": [KEPT]})
    assert r.status_code == 400 and "'frame' must be an object" in r.json["error"]


def test_zones_renamed_into_place_are_saved_even_when_the_folder_cannot_be_synced(
    tmp_path, monkeypatch
):
    """Some file systems (FUSE, network mounts) refuse to sync a folder: the zones are in
    place once renamed, so the save is said to have worked and the overlays redraw."""
    import errno
    import os
    import stat

    store = ZoneStore(tmp_path / "zones.json")
    store.save({"frame": FRAME, "zones": [KEPT]})
    real = os.fsync

    def fsync(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "Invalid argument")
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    before = store.version
    store.save({"frame": FRAME, "zones": [{**KEPT, "name": "discard_1"}]})
    assert store.version == before + 1
    assert [z["name"] for z in store.load()["zones"]] == ["discard_1"]
