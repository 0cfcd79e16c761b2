"""The camera's threads end before Python finalizes (web/services/exit_stop.py).

A daemon thread still inside OpenCV or onnxruntime when Python 3.11 finalizes is ended with
``pthread_exit`` and libstdc++ aborts the process ("terminate called without an active
exception"): CI once failed that way after every test had passed. A dashboard that was never
closed (a test's app, a script's) must not leave one running.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import cv2
import numpy as np

from web.services.exit_stop import stop_all, stop_at_exit

ROOT = Path(__file__).resolve().parents[1]

# The check is registered before the dashboard is imported, so it runs after every exit
# handler the dashboard registers, and finds whatever camera thread they left running.
SCRIPT = textwrap.dedent(
    """
    import atexit, os, sys, threading, time

    def threads_left():
        names = {"web-camera", "camera-referee"}
        alive = sorted(t.name for t in threading.enumerate() if t.name in names and t.is_alive())
        print("camera threads at finalization:", alive or "none", flush=True)
        if alive:
            os._exit(3)

    atexit.register(threads_left)

    from web.app import create_app
    from web.config import WebConfig

    app = create_app(WebConfig(db_path=sys.argv[1], camera=sys.argv[2], testing=True))
    services = app.extensions["tabletop"]
    assert services.camera.latest() is not None, services.camera.error
    services.referee.start()
    deadline = time.monotonic() + 20
    while services.referee.status()["state"] == "starting" and time.monotonic() < deadline:
        time.sleep(0.05)
    print("referee:", services.referee.status()["state"], flush=True)
    # no close(): the script ends with both threads reading the video
    """
)


def video(path: Path, frames: int = 200) -> Path:
    """A looping recording OpenCV decodes in the feed's thread (its read frees the GIL)."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 30, (320, 240))
    for i in range(frames):
        img = np.full((240, 320, 3), 40 + i % 200, np.uint8)
        writer.write(img)
    writer.release()
    return path


def test_a_dashboard_never_closed_stops_its_camera_threads_at_exit(tmp_path: Path) -> None:
    clip = video(tmp_path / "table.avi")
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "t.db"), str(clip)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "referee: " in run.stdout and "referee: starting" not in run.stdout, run.stdout
    assert "camera threads at finalization: none" in run.stdout, run.stdout + run.stderr
    assert run.returncode == 0, run.stderr
    assert "terminate called" not in run.stderr


# Eight recordings played as fast as OpenCV decodes them: before the threads were stopped at
# exit, every one of 20 runs of this aborted ("terminate called without an active exception"
# or "FATAL: exception not rethrown").
BUSY = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from web.services.camera import FileFeed

    feeds = [FileFeed(Path(sys.argv[1]), fps=1000) for _ in range(8)]
    for feed in feeds:
        assert feed.latest() is not None, feed.error
    time.sleep(0.3)
    """
)


def test_busy_feeds_never_closed_let_the_process_exit_cleanly(tmp_path: Path) -> None:
    clip = video(tmp_path / "table.avi", frames=60)
    for _ in range(3):
        run = subprocess.run(
            [sys.executable, "-c", BUSY, str(clip)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert (run.returncode, run.stderr) == (0, "")


class Owner:
    def __init__(self, name: str, calls: list[str]) -> None:
        self.name, self.calls = name, calls

    def close(self) -> None:
        self.calls.append(self.name)


class Failing:
    def close(self) -> None:
        raise RuntimeError("the camera would not close")


def test_stops_run_readers_first_once_each_and_one_failing_does_not_stop_the_rest() -> None:
    """``tabletop serve``'s order: the referee starts first, and its thread starts the feed
    it reads; the referee still stops first."""
    calls: list[str] = []
    referee, feed, other = Owner("referee", calls), Owner("feed", calls), Owner("other", calls)
    broken = Failing()
    stop_at_exit(referee.close, reads_frames=True)
    stop_at_exit(feed.close)
    stop_at_exit(broken.close)
    stop_at_exit(other.close)
    stop_at_exit(feed.close)  # a second start of the same feed
    stop_all()
    assert calls == ["referee", "other", "feed"]
    stop_all()  # nothing is left to stop
    assert calls == ["referee", "other", "feed"]


def test_an_owner_already_gone_is_not_kept_alive_or_called() -> None:
    calls: list[str] = []
    gone = Owner("gone", calls)
    stop_at_exit(gone.close)
    del gone
    stop_all()
    assert calls == []
