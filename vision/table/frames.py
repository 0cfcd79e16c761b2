"""Frame sources behind one interface: picamera2, an OpenCV camera, a video file, a folder.

Every frame carries ``t_ns``: nanoseconds on the monotonic clock, the same clock the
pads use (``time.monotonic_ns`` / the kernel's CLOCK_MONOTONIC), so a slap and the card
that caused it can be ordered. Recorded sources (video, folder) use a synthetic clock
that starts at ``start_ns`` and advances by the frame interval.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")

log = logging.getLogger(__name__)


class CameraError(RuntimeError):
    """The camera could not be opened or stopped delivering frames."""


class CameraSoftwareMissing(CameraError):
    """The camera's software cannot be loaded (picamera2 not installed for this Python): no
    retry can help, unlike a camera not plugged in yet, so ``ReconnectingSource`` gives up."""


# what to do when picamera2 cannot be imported: it needs libcamera's Python bindings, which
# only Raspberry Pi OS's apt packages provide (docs/HARDWARE.md, "The Pi camera")
PICAMERA2_HINT = (
    "on the Pi, `sudo apt install python3-picamera2` and a virtualenv made with"
    " `python3 -m venv --system-site-packages .venv` (docs/HARDWARE.md, 'The Pi camera')"
)


# FFmpeg's own log level (AV_LOG_QUIET). FFmpeg prints straight to stderr, past OpenCV's log
# ("[png @ 0x…] Invalid PNG signature" for a file that is no video, "[mjpeg @ 0x…] overread
# 8" while a cut one is read); OpenCV reads this variable once per process, the first time
# it uses FFmpeg, so it is set before every capture opens (a later change does nothing).
FFMPEG_LOGLEVEL = ("OPENCV_FFMPEG_LOGLEVEL", "-8")


@contextmanager
def opencv_quiet() -> Iterator[None]:
    """OpenCV's own log silenced while a camera or video is opened: a missing camera made
    its backends print a dozen lines of warnings and exception text on every reconnection
    try; our ``CameraError`` says it once, in one line. FFmpeg is silenced for good (it
    also speaks while frames are read), unless the variable is set already (to debug)."""
    import cv2

    os.environ.setdefault(*FFMPEG_LOGLEVEL)
    log = cv2.utils.logging
    before = log.getLogLevel()
    log.setLogLevel(log.LOG_LEVEL_SILENT)
    try:
        yield
    finally:
        log.setLogLevel(before)


@dataclass(frozen=True)
class Frame:
    image: np.ndarray  # H×W×3 BGR, uint8
    t_ns: int  # monotonic nanoseconds when the frame was exposed (or recorded)
    index: int  # 0-based position in its source
    # the source lost the camera before this frame (it reconnected): whatever changed on
    # the table meanwhile was not seen happen, so it has no time (TBL-10)
    after_gap: bool = False


class FrameSource(Protocol):
    def read(self) -> Frame | None:
        """The next frame; None at the end of a recording. Raises CameraError when lost."""
        ...

    def close(self) -> None: ...


def frames(source: FrameSource) -> Iterator[Frame]:
    """Iterate a source until it ends (recordings) or fails (cameras)."""
    try:
        while (frame := source.read()) is not None:
            yield frame
    finally:
        source.close()


class VideoFileSource:
    """A recorded video; time advances by 1/fps from ``start_ns``."""

    def __init__(self, path: str | Path, start_ns: int = 0, fps: float | None = None) -> None:
        import cv2

        self.path = Path(path)
        if not self.path.is_file():
            raise CameraError(f"no video file {self.path}")
        with opencv_quiet():
            self._cap = cv2.VideoCapture(str(self.path))
        if not self._cap.isOpened():
            raise CameraError(f"cannot open video {self.path}")
        self.fps = fps or self._cap.get(cv2.CAP_PROP_FPS) or 30.0
        self._start_ns = start_ns
        self._index = 0

    def read(self) -> Frame | None:
        ok, image = self._cap.read()
        if not ok:
            return None
        frame = Frame(image, self._start_ns + round(self._index * 1e9 / self.fps), self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        self._cap.release()


class ImageFolderSource:
    """A folder of still images in name order, played at ``fps``."""

    def __init__(self, folder: str | Path, fps: float = 30.0, start_ns: int = 0) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise CameraError(f"no image folder {self.folder}")
        self._paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        self.fps = fps
        self._start_ns = start_ns
        self._index = 0

    def read(self) -> Frame | None:
        from vision.images import imread

        while self._index < len(self._paths):
            path = self._paths[self._index]
            index = self._index
            self._index += 1
            image = imread(path)  # an unreadable image is skipped, a too-large one too
            if image is not None:
                return Frame(image, self._start_ns + round(index * 1e9 / self.fps), index)
        return None

    def close(self) -> None:
        self._index = len(self._paths)


class OpenCVCameraSource:
    """A USB/V4L2 camera through OpenCV. ``t_ns`` is taken right after ``grab()`` returns,
    which is at most one frame interval after exposure; picamera2 does better."""

    def __init__(self, device: int = 0, width: int = 640, height: int = 480) -> None:
        import cv2

        self._cv2 = cv2
        with opencv_quiet():
            self._cap = cv2.VideoCapture(device)
        if not self._cap.isOpened():
            raise CameraError(f"cannot open camera {device}")
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self.device = device
        self._index = 0

    def read(self) -> Frame | None:
        if not self._cap.grab():
            raise CameraError(f"camera {self.device} stopped delivering frames")
        t_ns = time.monotonic_ns()
        ok, image = self._cap.retrieve()
        if not ok:
            raise CameraError(f"camera {self.device} returned an empty frame")
        frame = Frame(image, t_ns, self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        self._cap.release()


class Picamera2Source:
    """The Pi camera. picamera2 only installs on a Pi, so it is imported here, not above;
    when it cannot be, that is ``CameraSoftwareMissing``, never retried.

    ``SensorTimestamp`` in the request metadata is the frame's start of exposure on the
    kernel's monotonic clock, the same clock as ``time.monotonic_ns()`` and the pads.
    """

    def __init__(self, width: int = 640, height: int = 480) -> None:
        camera_class = _picamera2()
        self._cam: Any = None
        self._index = 0
        try:  # with no camera detected picamera2 raises IndexError; libcamera RuntimeErrors
            self._cam = camera_class()
            config = self._cam.create_video_configuration(
                main={"size": (width, height), "format": "RGB888"}
            )
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:
            self.close()  # a half-opened camera stays acquired: the next try would be "busy"
            raise CameraError(f"cannot open the Pi camera: {exc}") from exc

    def read(self) -> Frame | None:
        if self._cam is None:
            raise CameraError("the Pi camera is closed")
        try:
            request = self._cam.capture_request()
        except Exception as exc:  # libcamera raises assorted errors when the cable is pulled
            raise CameraError(f"Pi camera stopped: {exc}") from exc
        try:
            image = request.make_array("main")
            t_ns = int(request.get_metadata().get("SensorTimestamp", time.monotonic_ns()))
        finally:
            request.release()
        frame = Frame(np.ascontiguousarray(image), t_ns, self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        """Release the camera; never raises (a lost camera fails to stop, and must still
        be released so that it can be opened again)."""
        cam, self._cam = self._cam, None
        if cam is None:
            return
        for step in (cam.stop, cam.close):
            try:
                step()
            except Exception as exc:  # closing a lost camera: say so, go on
                log.warning("Pi camera: %s failed while closing: %s", step.__name__, exc)


def _picamera2() -> Any:
    """picamera2's ``Picamera2`` class, or ``CameraSoftwareMissing``: any failure of the
    import is one. No module (or no libcamera bindings under it) is an ImportError; Debian's
    simplejpeg, built for numpy 1, refuses the virtualenv's numpy 2 with a ValueError
    ("numpy.dtype size changed")."""
    try:
        from picamera2 import Picamera2  # type: ignore[import-not-found]
    except ImportError as exc:
        raise CameraSoftwareMissing(
            f"picamera2 is not installed for this Python ({exc}): {PICAMERA2_HINT}"
        ) from exc
    except Exception as exc:
        raise CameraSoftwareMissing(
            f"picamera2 cannot be loaded ({type(exc).__name__}: {exc}):"
            " see docs/HARDWARE.md, 'The Pi camera'"
        ) from exc
    return Picamera2


class ReconnectingSource:
    """Keeps a live camera going: when it fails, reopen it after a pause.

    A dropped camera must not end a game: frames simply stop until it is back, and
    ``status`` says what is happening so the dashboard can show it. Missing software
    (``CameraSoftwareMissing``) is raised at once: it never appears by waiting. ``stop()`` (or
    ``close()``) ends the retries from another thread: ``read()`` then returns None.
    """

    def __init__(
        self,
        open_source: Callable[[], FrameSource],
        retry_s: float = 1.0,
        max_retries: int | None = None,
        sleep: Callable[[float], None] | None = None,
        on_status: Callable[[str], None] | None = None,
    ) -> None:
        self._open = open_source
        self.retry_s = retry_s
        self._max_retries = max_retries
        self._stopped = threading.Event()
        # the pause between tries; woken by stop(), so a closed camera is not reopened
        self._sleep = sleep or self._stopped.wait
        self._lock = threading.Lock()  # the source in hand, between read() and close()
        self._source: FrameSource | None = None
        # told each *change* of status (not every retry), so a command line can say that a
        # camera is lost, or never opened, instead of going quiet while it retries
        self.on_status = on_status
        self._status = "starting"
        self._delivered = False  # a frame was read once: a failure now is a camera lost
        self.reconnects = 0

    @property
    def status(self) -> str:
        return self._status

    @status.setter
    def status(self, value: str) -> None:
        changed = value != self._status
        self._status = value
        if changed and self.on_status is not None:
            self.on_status(value)

    def read(self) -> Frame | None:
        """The next frame, reopening the camera as often as it takes; the first frame after
        a reconnect is marked ``after_gap`` so the watcher knows it saw nothing meanwhile.
        None once stopped."""
        failures = 0
        while not self._stopped.is_set():
            try:
                return self._read_once()
            except CameraSoftwareMissing as exc:
                self._give_up(exc)
                raise
            except CameraError as exc:
                # before its first frame the camera may not be plugged in yet: it is waited for
                self.status = (
                    f"camera lost: {exc}"
                    if self._delivered
                    else f"no camera yet: {exc} (trying again until it is there)"
                )
                self._drop()
                failures += 1
                if self._max_retries is not None and failures > self._max_retries:
                    raise
                self._sleep(self.retry_s)
        return None

    def _read_once(self) -> Frame | None:
        reopened = False
        source = self._source
        if source is None:
            source = self._open()
            with self._lock:
                if self._stopped.is_set():  # closed while it opened: nobody will read it
                    source.close()
                    return None
                self._source = source
            reopened = self._delivered
            if reopened:
                self.reconnects += 1
        frame = source.read()
        if reopened and frame is not None:
            frame = replace(frame, after_gap=True)
        self._delivered = True
        self.status = "ok"
        return frame

    def _give_up(self, exc: CameraSoftwareMissing) -> None:
        """A camera that can never open: no retry. Its status says why, without telling
        ``on_status``: the caller is handed the error and says it, once."""
        self._status = str(exc)
        self._drop()

    def _drop(self) -> None:
        with self._lock:
            source, self._source = self._source, None
        if source is not None:
            source.close()

    def stop(self) -> None:
        """End the retries (safe from any thread): ``read()`` returns None from now on."""
        self._stopped.set()

    def close(self) -> None:
        self.stop()
        self._drop()


# Two digits: far more cameras than a table has, and below 200, where OpenCV reads an index
# as a backend plus a camera (200 = V4L2's camera 0).
MAX_CAMERA_INDEX = 99


def _camera_index(spec: str) -> int:
    """N of ``cam:N``, ASCII digits 0..MAX_CAMERA_INDEX only: ``int()`` also takes "-1"
    (OpenCV's "any camera", which crashes the process in some builds), " 1", "+1", "²"
    and numbers past a C int (an OverflowError inside the capture thread)."""
    text = spec[4:]
    digits = text.lstrip("0") or "0"  # a thousand zeros is 0, not int()'s digit limit
    number = text.isascii() and text.isdigit() and len(digits) <= 2
    if not number or int(digits) > MAX_CAMERA_INDEX:
        raise CameraError(
            f"bad camera spec {spec!r}: expected cam:N, N = 0, 1, … {MAX_CAMERA_INDEX}"
        )
    return int(digits)


def open_source(spec: str, retry_s: float = 1.0) -> FrameSource:
    """``picamera2``, ``cam:N`` (OpenCV device N), a video file, or a folder of images;
    a live camera is tried again every ``retry_s`` while it is missing."""
    if spec == "picamera2":
        return ReconnectingSource(Picamera2Source, retry_s=retry_s)
    if spec.startswith("cam:"):
        device = _camera_index(spec)
        return ReconnectingSource(lambda: OpenCVCameraSource(device), retry_s=retry_s)
    path = Path(spec)
    if path.is_dir():
        return ImageFolderSource(path)
    if path.is_file():
        return VideoFileSource(path)
    raise CameraError(f"no camera, video or image folder called {spec!r}")
