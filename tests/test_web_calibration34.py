"""The Calibrate page in real headless Chromium says what would otherwise go unseen: zones
drawn but not saved yet (marked in the list, a line under "Save zones", and leaving the page
asks first), a camera that sends no picture (the server's reason, asked again until one
comes) and a picture too dark to draw zones on.

The live camera is a fake OpenCV camera (``cam:0``) on a switch, as in test_camera_drop.py."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import vision.table.frames as frames
from tests.page_wait import wait_until
from tests.serving import ServedApp
from tests.test_web_browser import Screen, unlock
from vision.table.frames import CameraError, Frame
from web import create_app
from web.config import WebConfig
from web.services.camera import LiveFeed

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SQUARE = [[0.2, 0.2], [0.6, 0.2], [0.6, 0.7], [0.2, 0.7]]
NOT_SAVED = "Not saved yet"
NEARLY_BLACK = "The picture is nearly black: is the lens covered or the light off?"
LONG_WAIT_MS = 15_000  # the page asks a missing camera again every few seconds


class Camera:
    """The switches a test flips: the camera plugged in, and how bright its picture is."""

    def __init__(self, plugged: bool, level: int) -> None:
        self.plugged = plugged
        self.level = level


@pytest.fixture
def camera(monkeypatch: pytest.MonkeyPatch) -> Camera:
    """``cam:0`` is a fake OpenCV camera: unplugged it cannot be opened, plugged in it sends
    a 64 x 48 picture of one grey level."""
    state = Camera(plugged=False, level=200)

    class FakeCam:
        def __init__(self, device: int = 0, width: int = 640, height: int = 480) -> None:
            if not state.plugged:
                raise CameraError(f"cannot open camera {device}")
            self.reads = 0

        def read(self) -> Frame:
            time.sleep(0.02)
            self.reads += 1
            image = np.full((48, 64, 3), state.level, np.uint8)
            return Frame(image, time.monotonic_ns(), self.reads)

        def close(self) -> None:
            pass

    monkeypatch.setattr(frames, "OpenCVCameraSource", FakeCam)
    return state


def serve(tmp_path: Any, **extra: Any) -> ServedApp:
    cfg = WebConfig(db_path=tmp_path / "tabletop.db", race_timer=False, **extra)
    app = create_app(cfg)
    server = ServedApp(app, threads=8)
    server.app = app  # type: ignore[attr-defined]  # for the tests' look at its zones
    return server


@pytest.fixture
def with_camera(tmp_path, camera) -> Iterator[tuple[ServedApp, Camera]]:
    """A dashboard on the fake live camera (no camera referee: the page alone is tested)."""
    feed = LiveFeed("cam:0", fps=20, retry_s=0.05)
    server = serve(tmp_path, camera_feed=feed, camera_referee=False)
    try:
        yield server, camera
    finally:
        server.stop()
        feed.close()


@pytest.fixture
def without_camera(tmp_path) -> Iterator[ServedApp]:
    server = serve(tmp_path)
    try:
        yield server
    finally:
        server.stop()


def calibrate(browser: Any, server: ServedApp) -> Screen:
    """The referee's Calibrate page, its saved zones loaded."""
    screen = Screen(browser, server.url)
    unlock(screen, server.app)
    screen.go("/calibration")
    wait_until(screen.page, "document.getElementById('zone-list') !== null")
    return screen


def tap_zone(page: Any, name: str, corners: list[list[float]]) -> None:
    """Draw ``name`` by clicking its corners (0..1 of the picture), then "Close zone"."""
    page.select_option("#zone-name", name)
    box = page.locator("#calib").bounding_box()
    for x, y in corners:
        page.click("#calib", position={"x": box["width"] * x, "y": box["height"] * y})
    page.click("#close-zone")


def zones_on_server(server: ServedApp) -> list[str]:
    zones = server.app.extensions["tabletop"].zones.load()["zones"]
    return [z["name"] for z in zones]


def test_a_camera_that_cannot_be_opened_says_why_until_its_picture_comes(browser, with_camera):
    """The snapshot's 503 reason is shown over the picture, not a silent black box; the page
    asks again by itself, and the line goes once the camera is plugged in."""
    from playwright.sync_api import expect

    server, camera = with_camera
    screen = calibrate(browser, server)
    page = screen.page
    line = page.locator("#calib-camera")
    expect(line).to_be_visible()
    expect(line).to_contain_text("The camera sends no picture")
    expect(line).to_contain_text("cannot open camera 0")
    camera.plugged = True
    expect(line).to_be_hidden(timeout=LONG_WAIT_MS)
    assert page.evaluate("[calib.width, calib.height]") == [64, 48]  # the camera's picture
    screen.close()


def test_a_nearly_black_picture_asks_about_the_lens_and_zones_still_draw(browser, with_camera):
    from playwright.sync_api import expect

    server, camera = with_camera
    camera.plugged, camera.level = True, 3
    screen = calibrate(browser, server)
    page = screen.page
    expect(page.locator("#calib-camera")).to_have_text(NEARLY_BLACK)
    tap_zone(page, "draw_pile", [[0.2, 0.2], [0.7, 0.2], [0.5, 0.7]])
    expect(page.locator("#zone-list li")).to_contain_text("Draw pile")
    camera.level = 180  # the light is on again: a new snapshot is fine
    line = page.locator("#calib-camera")
    for _ in range(50):  # until the feed's latest frame is a bright one (its thread, 20 fps)
        page.click("#refresh-snap")
        page.wait_for_timeout(100)
        if line.is_hidden():
            break
    expect(line).to_be_hidden()
    screen.close()


def test_a_drawn_zone_is_marked_not_saved_and_leaving_asks_first(browser, without_camera):
    """Close a zone: the list and a line under "Save zones" say it is not saved, and going to
    another page asks first (staying keeps it). After "Save zones" both go, and the page
    leaves without asking."""
    from playwright.sync_api import expect

    server = without_camera
    screen = calibrate(browser, server)
    page = screen.page
    unsaved = page.locator("#calib-unsaved")
    expect(unsaved).to_be_hidden()
    tap_zone(page, "seat_0_area", SQUARE)
    expect(page.locator("#zone-list li")).to_contain_text("(not saved)")
    expect(unsaved).to_be_visible()
    expect(unsaved).to_contain_text(NOT_SAVED)

    asked: list[str] = []
    page.on("dialog", lambda d: (asked.append(d.type), d.dismiss()))
    page.click("nav.main a:has-text('Live')")
    expect(page.locator("#zone-list li")).to_contain_text("(not saved)")
    assert asked == ["beforeunload"] and page.url.endswith("/calibration")

    page.click("#save-zones")
    expect(page.locator("#calib-msg")).to_have_text("Saved 1 zone.")
    expect(unsaved).to_be_hidden()
    expect(page.locator("#zone-list li")).not_to_contain_text("(not saved)")
    assert zones_on_server(server) == ["seat_0_area"]
    page.click("nav.main a:has-text('Live')")
    page.wait_for_url("**/live**")
    assert asked == ["beforeunload"]  # not asked again
    screen.close()


def test_moving_a_saved_corner_or_deleting_a_zone_is_not_saved_until_saved(browser, without_camera):
    from playwright.sync_api import expect

    server = without_camera
    server.app.extensions["tabletop"].zones.save(
        {"frame": {"width": 640, "height": 480}, "zones": [{"name": "draw_pile", "points": SQUARE}]}
    )
    screen = calibrate(browser, server)
    page = screen.page
    unsaved = page.locator("#calib-unsaved")
    expect(page.locator("#zone-list li")).to_have_text("Draw pile 4 points")  # as saved
    expect(unsaved).to_be_hidden()

    page.locator("#handles .handle").first.press("ArrowRight")
    expect(page.locator("#zone-list li")).to_contain_text("(not saved)")
    expect(unsaved).to_be_visible()
    page.locator("#handles .handle").first.press("ArrowLeft")  # back where it was saved
    expect(unsaved).to_be_hidden()

    page.select_option("#zone-name", "draw_pile")
    page.click("#delete-zone")
    expect(page.locator("#zone-list li")).to_have_count(0)
    expect(unsaved).to_be_visible()
    page.click("#save-zones")
    expect(unsaved).to_be_hidden()
    assert zones_on_server(server) == []
    screen.close()
