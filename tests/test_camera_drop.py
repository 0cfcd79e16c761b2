"""A dropped or missing camera is said, not hidden, and refereeing resumes when it is back.

Fake cameras stand in for OpenCV's and the Pi's (read() and open failures on a switch);
retry intervals are short, so each test waits for a behaviour, never for a clock.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import vision.table.frames as frames
from tests.test_web_camera_referee import DEAL, zones_doc
from tests.test_web_routes import Tablet, make_app
from vision.table.frames import CameraError, Frame, Picamera2Source
from web.services.camera import FileFeed, LiveFeed

FAST = {"retry_s": 0.02, "stale_s": 0.5}


def until(check: Callable[[], Any], timeout: float = 10.0) -> Any:
    """Poll ``check`` until it is truthy; its value (fails after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while not (value := check()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)
    return value


class Cable:
    """The switches a test flips: the camera plugged in, and a read that hangs."""

    def __init__(self) -> None:
        self.plugged = True
        self.flowing = threading.Event()
        self.flowing.set()
        self.opens = 0
        self.reads = 0


@pytest.fixture
def cable(monkeypatch: pytest.MonkeyPatch) -> Cable:
    """``cam:0`` is a fake OpenCV camera on this cable."""
    state = Cable()

    class FakeCam:
        def __init__(self, device: int = 0, width: int = 640, height: int = 480) -> None:
            state.opens += 1
            if not state.plugged:
                raise CameraError(f"cannot open camera {device}")

        def read(self) -> Frame:
            state.flowing.wait(5)
            if not state.plugged:
                raise CameraError("camera 0 stopped delivering frames")
            state.reads += 1
            image = np.full((48, 64, 3), state.reads % 255, np.uint8)
            return Frame(image, time.monotonic_ns(), state.reads)

        def close(self) -> None:
            pass

    monkeypatch.setattr(frames, "OpenCVCameraSource", FakeCam)
    yield state
    state.flowing.set()


@pytest.fixture
def live(cable: Cable) -> Iterator[LiveFeed]:
    feed = LiveFeed("cam:0", fps=50, **FAST)
    yield feed
    feed.close()


def test_a_dropped_camera_is_said_and_its_last_frame_is_not_served_as_live(tmp_path, cable, live):
    app = make_app(tmp_path, camera_feed=live, race_timer=False)
    client = app.test_client()
    assert live.latest() is not None and live.error is None
    cable.plugged = False
    status = until(lambda: (s := client.get("/api/camera/status").json)["error"] and s)
    assert status["error"].startswith("camera lost: ") and status["t_ns"] is None
    assert live.latest() is None
    frame = client.get("/api/camera/frame.jpg")
    assert frame.status_code == 503 and frame.json["error"].startswith("camera lost: ")
    cable.plugged = True  # it resumes by itself
    until(lambda: live.latest() is not None)
    assert live.error is None and live.reconnects == 1
    assert client.get("/api/camera/frame.jpg").status_code == 200


def test_a_camera_that_stops_without_an_error_reads_as_lost_once_its_frame_is_stale(cable, live):
    """A read that hangs raises nothing: the frame's age gives the camera away."""
    assert live.latest() is not None
    cable.flowing.clear()
    until(lambda: live.error)
    assert live.error.startswith("camera lost: no new frame for") and live.latest() is None
    cable.flowing.set()
    until(lambda: live.latest() is not None)
    assert live.error is None


def test_a_camera_never_found_says_why_at_once(tmp_path, cable):
    cable.plugged = False
    feed = LiveFeed("cam:0", **FAST)
    try:
        started = time.monotonic()
        assert feed.latest() is None
        assert time.monotonic() - started < 2.5  # not the 3 s wait for a first frame
        app = make_app(tmp_path, camera_feed=feed, race_timer=False)
        status = app.test_client().get("/api/camera/status").json
        assert status["error"].startswith("no camera yet: cannot open camera 0")
    finally:
        feed.close()


def test_picamera2_not_installed_is_said_on_the_camera_status(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import picamera2: ImportError
    app = make_app(tmp_path, camera="picamera2", race_timer=False)
    feed = app.extensions["tabletop"].camera
    try:
        status = app.test_client().get("/api/camera/status").json  # its first viewer
        assert "picamera2 is not installed" in status["error"] and status["t_ns"] is None
    finally:
        feed.close()


def test_closing_a_lost_camera_stops_its_retries(cable, live):
    assert live.latest() is not None
    cable.plugged = False
    until(lambda: live.error)
    live.close()
    assert not live._thread.is_alive()
    opens = cable.opens
    cable.plugged = True
    time.sleep(10 * FAST["retry_s"])
    assert cable.opens == opens  # no orphan thread reopening the camera


def test_a_closed_reconnecting_source_wakes_from_its_pause_and_ends():
    def never() -> Any:
        raise CameraError("no camera")

    source = frames.ReconnectingSource(never, retry_s=30)
    got: list[Any] = ["not yet"]
    reader = threading.Thread(target=lambda: got.__setitem__(0, source.read()))
    reader.start()
    until(lambda: source.status.startswith("no camera yet"))
    source.close()
    reader.join(timeout=5)
    assert not reader.is_alive() and got == [None]


def test_the_referee_says_the_camera_is_lost_and_resumes_when_it_is_back(tmp_path, cable, live):
    """The production wiring: LiveFeed → FeedSource → CameraReferee."""
    app = make_app(
        tmp_path, camera_feed=live, race_timer=False, referee_detector=lambda g: lambda i: []
    )
    tablet = Tablet(app)
    tablet.set_pin()
    tablet.services.zones.save(zones_doc())
    game_id = tablet.new_game("deck-dash", ("Ana", "Bea"))
    assert tablet.send(game_id, DEAL).status_code == 201
    referee = tablet.services.referee
    referee.retry_s = 0.02

    def state() -> str:
        return tablet.client.get("/api/camera/status").json["referee"]["state"]

    referee.start()
    try:
        until(lambda: state() == "watching")
        cable.plugged = False
        until(lambda: state() == "camera lost")
        status = referee.status()
        assert "camera lost" in status["message"] and status["reconnects"] == 1
        cable.plugged = True
        until(lambda: state() == "watching")
        assert referee.status()["reconnects"] == 1  # one drop, however many retries
    finally:
        referee.stop()


# -- the Pi camera -----------------------------------------------------------------------


class PiCam:
    """What picamera2 does without a camera (IndexError from ``Picamera2()``) or with a
    start that fails; counts the handles held."""

    present = True
    start_fails = 0
    stop_fails = False
    held = 0
    made = 0

    def __init__(self) -> None:
        PiCam.made += 1
        if not PiCam.present:
            [][0]  # picamera2's own IndexError with no camera detected
        PiCam.held += 1

    def create_video_configuration(self, **kw: Any) -> Any:
        return kw

    def configure(self, config: Any) -> None:
        pass

    def start(self) -> None:
        if PiCam.start_fails:
            PiCam.start_fails -= 1
            raise RuntimeError("Failed to start camera: Broken pipe")

    def capture_request(self) -> Any:
        time.sleep(0.005)
        return types.SimpleNamespace(
            make_array=lambda name: np.zeros((48, 64, 3), np.uint8),
            get_metadata=lambda: {"SensorTimestamp": time.monotonic_ns()},
            release=lambda: None,
        )

    def stop(self) -> None:
        if PiCam.stop_fails:
            raise RuntimeError("Camera frontend has timed out!")

    def close(self) -> None:
        PiCam.held -= 1


@pytest.fixture
def picam(monkeypatch: pytest.MonkeyPatch) -> type[PiCam]:
    for name, value in (("present", True), ("start_fails", 0), ("stop_fails", False)):
        setattr(PiCam, name, value)
    PiCam.held = PiCam.made = 0
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=PiCam))
    return PiCam


def test_a_pi_camera_that_cannot_open_raises_camera_error_and_holds_nothing(picam):
    picam.present = False
    with pytest.raises(CameraError, match="list index out of range"):
        Picamera2Source()
    picam.present, picam.start_fails = True, 1
    with pytest.raises(CameraError, match="Failed to start camera"):
        Picamera2Source()
    assert picam.held == 0  # the half-opened camera was closed
    camera = Picamera2Source()
    picam.stop_fails = True
    camera.close()  # never raises
    assert picam.held == 0


def test_the_pi_camera_plugged_in_late_is_waited_for(picam):
    picam.present = False
    feed = LiveFeed("picamera2", fps=50, **FAST)
    try:
        assert feed.latest() is None
        assert feed.error.startswith("no camera yet: ") and "list index" in feed.error
        picam.present = True
        until(lambda: feed.latest() is not None)
        assert feed.error is None
    finally:
        feed.close()


def test_vision_watch_without_a_pi_camera_says_so_in_one_line(picam, monkeypatch, tmp_path, capsys):
    import json

    from referee.cli import main
    from vision.table.sequences import table_layout

    class Impatient(frames.ReconnectingSource):
        def __init__(self, open_source: Callable[[], Any], **kw: Any) -> None:
            super().__init__(open_source, retry_s=0, max_retries=2)

    monkeypatch.setattr(frames, "ReconnectingSource", Impatient)
    picam.present = False
    zones = tmp_path / "zones.json"
    zones.write_text(json.dumps(table_layout().to_dict()))
    argv = ["vision", "watch", "picamera2", "--game", "dos", "--zones", str(zones)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines()[0].startswith("tabletop vision watch: no camera yet: ")


# -- recordings --------------------------------------------------------------------------


def test_a_folder_of_unreadable_images_is_an_error_not_a_spin(tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    for i in range(3):
        (folder / f"img{i}.jpg").write_bytes(b"not a jpeg")
    feed = FileFeed(folder)
    try:
        assert feed.latest() is None
        assert feed.error == f"no readable images in {folder}"
        until(lambda: not feed._thread.is_alive())
    finally:
        feed.close()


def test_an_unexpected_failure_in_the_camera_thread_is_said_and_logged(tmp_path, caplog):
    def broken(image: Any, t_ns: int) -> None:
        raise ValueError("a bug")

    from tests.test_web_routes import write_images

    feed = FileFeed(write_images(tmp_path / "f", 2), fps=50)
    with caplog.at_level(logging.ERROR):
        feed.subscribe(broken)
        until(lambda: feed.error)
        until(lambda: not feed._thread.is_alive())
    feed.close()
    assert "ValueError: a bug" in feed.error
    assert "camera thread failed" in caplog.text


# -- the referee's switch ----------------------------------------------------------------


def test_off_and_on_again_while_the_referee_is_busy_leaves_it_running(tmp_path, live):
    """Turned off while its thread is in a slow step (loading the card models), then on:
    the referee runs again, as the status says."""
    busy, done = threading.Event(), threading.Event()

    def slow_models(game: str) -> Callable[[Any], list[Any]]:
        busy.set()
        done.wait(10)
        return lambda image: []

    app = make_app(tmp_path, camera_feed=live, race_timer=False, referee_detector=slow_models)
    tablet = Tablet(app)
    tablet.set_pin()
    tablet.services.zones.save(zones_doc())
    game_id = tablet.new_game("deck-dash", ("Ana", "Bea"))
    assert tablet.send(game_id, DEAL).status_code == 201
    referee = tablet.services.referee
    referee.start()
    try:
        busy.wait(10)
        referee.stop(timeout=0.05)  # gives up waiting: the thread is busy
        referee.start()
        done.set()  # the old step ends; the old thread goes
        frames_before = referee.status()["frames"]
        until(lambda: referee.status()["frames"] > frames_before + 3)
        status = referee.status()
        assert status["enabled"] and status["running"]
    finally:
        done.set()
        referee.stop()
