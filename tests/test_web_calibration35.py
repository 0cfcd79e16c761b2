"""Day 35's review of the Calibrate page, in real headless Chromium: a zones file with one bad
entry shows its other zones and names the bad one (saving keeps the old file beside it); a
zone tapped across (TL, TR, BL, BR: an hourglass) is refused when closed; zones drawn on a
picture of another shape than the camera's now ask to be drawn again, here and on the Live
page. The server side is tests/test_zones_review35.py.

The camera is an image folder of one constant picture: every frame the page or the server
sees is the same size, so nothing waits on the feed's thread."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tests.page_wait import wait_until
from tests.serving import ServedApp
from tests.test_web_calibration34 import SQUARE, calibrate, serve, tap_zone, zones_on_server
from tests.test_zones_review35 import NAMES, TYPO, misspelt

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FRAME_4_3 = {"width": 640, "height": 480}
SHAPE = "The zones were drawn on a 640×480 picture; the camera now sends 1280×720, another shape"
HOURGLASS = [[0.44, 0.35], [0.56, 0.35], [0.44, 0.65], [0.565, 0.66]]  # TL, TR, BL, BR
CROSSED = "The zone's sides cross: tap the corners going round the zone, not across it"


@pytest.fixture
def without_camera(tmp_path: Path) -> Iterator[ServedApp]:
    server = serve(tmp_path)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def wide_camera(tmp_path: Path) -> Iterator[ServedApp]:
    """A dashboard whose camera sends 1280×720 (16:9), its zones saved on a 640×480 picture."""
    folder = tmp_path / "cam"
    folder.mkdir()
    for i in range(2):
        cv2.imwrite(str(folder / f"{i:03d}.png"), np.full((720, 1280, 3), 120, np.uint8))
    server = serve(tmp_path, camera=str(folder), camera_referee=False)
    services: Any = server.app.extensions["tabletop"]  # type: ignore[attr-defined]
    services.zones.save({"frame": FRAME_4_3, "zones": [{"name": "draw_pile", "points": SQUARE}]})
    try:
        yield server
    finally:
        server.stop()
        services.camera.close()


def test_a_file_read_in_part_shows_its_zones_names_the_bad_entry_and_is_kept(
    browser: Any, without_camera: ServedApp
) -> None:
    """Before: 0 zones listed, no word of why, and "Save zones" wrote only the new zone."""
    from playwright.sync_api import expect

    server = without_camera
    store = server.app.extensions["tabletop"].zones  # type: ignore[attr-defined]
    original = misspelt(store)
    screen = calibrate(browser, server)
    page = screen.page
    problems = page.locator("#calib-problems")
    expect(problems.locator("li")).to_have_text([TYPO])
    expect(problems).to_contain_text("keeps the old file beside it as a copy")
    expect(page.locator("#zone-list li")).to_have_count(4)
    page.click("#save-zones")
    kept = store.path.with_name("zones.json.bad")
    expect(page.locator("#calib-msg")).to_have_text(
        f"Saved 4 zones. The old zones file did not read whole: it is kept as {kept}."
    )
    expect(problems).to_be_hidden()
    assert kept.read_bytes() == original
    assert zones_on_server(server) == NAMES[:4]
    screen.close()


def test_ruling_tbl29_corners_tapped_across_a_zone_are_refused_when_it_is_closed(
    browser: Any, without_camera: ServedApp
) -> None:
    """Before: "Close zone" took the hourglass, and "Save zones" saved it."""
    from playwright.sync_api import expect

    screen = calibrate(browser, without_camera)
    page = screen.page
    tap_zone(page, "discard_1", HOURGLASS)
    expect(page.locator("#toast")).to_have_text(CROSSED)
    expect(page.locator("#zone-list li")).to_have_count(0)
    page.evaluate("document.getElementById('toast').textContent = ''")
    for _ in HOURGLASS:
        page.click("#undo-point")
    tap_zone(page, "discard_1", [HOURGLASS[i] for i in (0, 1, 3, 2)])  # going round
    expect(page.locator("#zone-list li")).to_contain_text("Discard pile")
    assert page.locator("#toast").text_content() == ""
    screen.close()


def test_ruling_tbl29_a_picture_of_another_shape_asks_to_calibrate_again_here_and_on_live(
    browser: Any, wide_camera: ServedApp
) -> None:
    """Before: neither page said anything, and the zones were used where they no longer lay.
    Saving on the camera's picture records its size, and both lines go."""
    from playwright.sync_api import expect

    screen = calibrate(browser, wide_camera)
    page = screen.page
    expect(page.locator("#calib-shape")).to_contain_text(SHAPE)
    page.goto(wide_camera.url + "/live")
    note = page.locator("#zones-note")
    expect(note).to_contain_text(SHAPE)
    expect(note.locator("a")).to_have_attribute("href", "/calibration")

    page.goto(wide_camera.url + "/calibration")
    expect(page.locator("#calib-shape")).to_contain_text(SHAPE)
    page.click("#save-zones")
    expect(page.locator("#calib-msg")).to_have_text("Saved 1 zone.")
    expect(page.locator("#calib-shape")).to_be_hidden()
    saved = json.loads(wide_camera.app.extensions["tabletop"].zones.path.read_text())  # type: ignore[attr-defined]
    assert saved["frame"] == {"width": 1280, "height": 720}
    page.goto(wide_camera.url + "/live")
    wait_until(page, "document.getElementById('zones-note').dataset.text !== undefined")
    expect(note).to_be_hidden()
    screen.close()


def test_saving_without_a_picture_keeps_the_size_the_zones_were_drawn_on(
    browser: Any, without_camera: ServedApp
) -> None:
    """Before: the page sent 640×480 whatever it drew on; now that the size is compared with
    the camera's, a made-up one would ask a 16:9 camera to calibrate again for nothing."""
    from playwright.sync_api import expect

    store = without_camera.app.extensions["tabletop"].zones  # type: ignore[attr-defined]
    wide = {"width": 1280, "height": 720}
    store.save({"frame": wide, "zones": [{"name": "draw_pile", "points": SQUARE}]})
    screen = calibrate(browser, without_camera)
    page = screen.page
    expect(page.locator("#zone-list li")).to_have_count(1)
    page.select_option("#zone-name", "draw_pile")
    page.click("#delete-zone")
    page.click("#save-zones")
    expect(page.locator("#calib-msg")).to_have_text("Saved 0 zones.")
    assert json.loads(store.path.read_text())["frame"] == wide
    screen.close()
