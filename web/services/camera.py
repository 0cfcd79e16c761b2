"""The camera picture for the Live and Calibration pages.

``CameraFeed`` is what the dashboard needs from any camera: the latest JPEG frame, its
source time (monotonic ns, the pads' clock) and the detections drawn on it. ``FileFeed``
plays a video file or a folder of images (a laptop demo, tests); the vision pipeline
supplies the live implementation. Annotated JPEGs are encoded once per frame and shared by
every viewer, so eight tablets cost one encode, not eight.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from web.services.exit_stop import stop_at_exit

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
FIRST_FRAME_S = 3.0  # the first viewers wait this long for the source to open

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Detection:
    """One thing the camera recognised; ``box`` is (x1, y1, x2, y2) normalised to 0..1."""

    label: str
    confidence: float
    box: tuple[float, float, float, float]
    zone: str | None = None


@dataclass(frozen=True)
class Frame:
    jpeg: bytes
    t_ns: int
    width: int
    height: int
    seq: int
    detections: tuple[Detection, ...] = field(default=())


class CameraFeed(Protocol):
    def latest(self) -> Frame | None:
        """The newest frame; None before the first one, or when there is no current one (a
        camera lost: ``error`` says why)."""
        ...

    def describe(self) -> str: ...

    def close(self) -> None: ...


def _same_time(t_ns: int) -> int:
    return t_ns


class FeedError(ValueError):
    """The camera source cannot be opened; the message names it."""


class FileFeed:
    """Frames from a video file (looped) or an image folder (cycled), paced to ``fps``.

    A background thread decodes lazily (it starts with the first viewer), keeps only the
    newest frame, and stamps each with ``time.monotonic_ns()`` when it is read (then on the
    log's time line: ``stamp``).

    A recording that never gave a frame is a mistake to fix: ``error`` says so and the
    thread ends. One that played and then went away (the folder emptied, the video moved)
    is waited for like a dropped camera: ``error`` says it is lost, ``latest()`` is None,
    and it is opened again every ``retry_s`` until it plays (``reconnects`` counts that).
    """

    def __init__(
        self, source: str | Path, fps: float = 10.0, quality: int = 80, retry_s: float = 1.0
    ) -> None:
        self.source = Path(source)
        if not self.source.exists():
            raise FeedError(f"camera source {self.source} does not exist")
        self._folder = self.source.is_dir()
        if self._folder and not self._image_paths():
            raise FeedError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in {self.source}")
        self.retry_s = retry_s
        self.reconnects = 0  # how often the recording played again after it was lost
        self._played = False  # a frame was read once: a failure now is a recording lost
        self._init_stream(fps, quality)

    def _image_paths(self) -> list[Path]:
        """The folder's images as they are now (a folder moved away has none)."""
        try:
            return sorted(p for p in self.source.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        except OSError:
            return []

    def _init_stream(self, fps: float, quality: int) -> None:
        self.fps = fps
        self.quality = quality
        self._lock = threading.Lock()
        self._latest: Frame | None = None
        self._stop = threading.Event()
        self._first = threading.Event()
        self._thread: threading.Thread | None = None
        self._seq = 0
        self.error: str | None = None  # why no frame comes (the thread has ended)
        # monotonic ns -> the log's time line (``LogClock.from_monotonic``, set by the app)
        self.stamp: Callable[[int], int] = _same_time
        self._listeners: list[Callable[[Any, int], None]] = []
        # the current frame's place in one pass of a recording (0 = it starts again);
        # None for a live camera
        self.position: int | None = None
        self._fresh_at: float | None = None  # time.monotonic() of the newest frame

    def subscribe(self, listener: Callable[[Any, int], None]) -> Callable[[], None]:
        """Call ``listener(image_bgr, t_ns)`` on the feed's thread for every decoded frame
        (the camera referee reads the same frames the tablets see: a live camera opens once).
        Starts the feed; returns an unsubscribe. A listener must be quick: it delays the feed.
        """
        self._listeners.append(listener)
        self._start()

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def describe(self) -> str:
        kind = "image folder" if self._folder else "video file"
        return f"{kind} {self.source}"

    def _start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="web-camera", daemon=True)
                stop_at_exit(self.close)
                self._thread.start()

    def latest(self) -> Frame | None:
        """The newest frame; the first viewers wait (up to 3 s) for the source to open, or
        to say why it cannot (a live camera's status can change without an event: polled).
        None while ``error`` says there is no current frame: a frozen picture is never
        shown as live."""
        if self._thread is None:
            self._start()
        deadline = time.monotonic() + FIRST_FRAME_S
        while self._latest is None and self.error is None and time.monotonic() < deadline:
            self._first.wait(timeout=0.05)
        frame = self._latest
        return None if self.error is not None else frame

    @property
    def ended(self) -> bool:
        """The feed's thread has ended: no frame will come again (its ``error`` says why)."""
        thread = self._thread
        return thread is not None and not thread.is_alive()

    def _frames(self) -> Any:
        """Each pass of the recording, ``position`` counting its frames from 0."""
        read_pass = self._folder_pass if self._folder else self._video_pass
        while not self._stop.is_set():
            frames = 0
            for img in read_pass():
                if self.error is not None:  # it plays again after it was lost
                    self.error = None
                    self.reconnects += 1
                self.position, self._played = frames, True
                frames += 1
                yield img
                if self._stop.is_set():
                    return
            if frames:
                continue
            why = self._unplayable()
            if not self._played:  # never played (HEIC photos named .jpg): say so, do not spin
                self.error = why
                return
            self.error = f"camera lost: {why} (trying again)"
            self._first.set()
            self._stop.wait(self.retry_s)

    def _unplayable(self) -> str:
        if self._folder:
            return f"no readable images in {self.source}"
        if not self.source.exists():
            return f"cannot open video {self.source}"
        return f"no frames in video {self.source}"

    def _folder_pass(self) -> Any:
        from vision.images import imread

        for path in self._image_paths():  # listed again each pass: files come and go
            img = imread(path)  # no OpenCV exception or warning for a bad or missing file
            if img is not None:
                yield img
            if self._stop.is_set():
                return

    def _video_pass(self) -> Any:
        import cv2

        from vision.table.frames import opencv_quiet

        with opencv_quiet():
            cap = cv2.VideoCapture(str(self.source))
        try:
            while cap.isOpened() and not self._stop.is_set():
                ok, img = cap.read()
                if not ok:
                    return
                yield img
        finally:
            cap.release()

    def _run(self) -> None:
        """The feed's thread: whatever ends it is said on ``error`` (and logged when it is
        a bug), so the pages show why the picture stopped instead of a thread dying quietly."""
        try:
            self._play()
        except Exception as exc:
            self.error = f"the camera stopped: {type(exc).__name__}: {exc}"
            log.exception("camera thread failed (%s)", self.describe())
        finally:
            self._first.set()  # a viewer waiting for a first frame need not wait longer

    def _play(self) -> None:
        import cv2

        period = 1.0 / self.fps
        next_t = time.monotonic()
        for item in self._frames():
            # a live camera yields (image, t_ns) with its own timestamp; files get arrival time
            img, t_ns = item if isinstance(item, tuple) else (item, time.monotonic_ns())
            t_ns = self.stamp(t_ns)
            for listener in list(self._listeners):
                listener(img, t_ns)
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
            if ok:
                self._seq += 1
                h, w = img.shape[:2]
                self._latest = Frame(buf.tobytes(), t_ns, w, h, self._seq)
                self._fresh_at = time.monotonic()
                self._first.set()
            next_t += period
            delay = next_t - time.monotonic()
            if delay > 0:
                self._stop.wait(delay)
            else:
                next_t = time.monotonic()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)


class LiveFeed(FileFeed):
    """A live camera (``picamera2`` or ``cam:N``) through Vision II's frame sources.

    The source reconnects by itself when the camera drops (frames pause, the page says
    so); each frame keeps the time the camera stamped on it. While the camera is missing,
    lost, or has sent nothing new for ``stale_s`` (a read that hangs raises nothing),
    ``error`` says so and ``latest()`` is None: a frozen picture is never shown as live.
    """

    LIVE_PREFIXES = ("picamera2", "cam:")

    def __init__(
        self,
        spec: str,
        fps: float = 10.0,
        quality: int = 80,
        *,
        retry_s: float = 1.0,
        stale_s: float = 3.0,
    ) -> None:
        from vision.table.frames import CameraError, open_source

        self.spec = spec
        try:
            self._source = open_source(spec, retry_s=retry_s)
        except CameraError as exc:
            raise FeedError(str(exc)) from None
        self.source = Path(spec)
        self.stale_s = stale_s
        self._failed: str | None = None
        self._init_stream(fps, quality)

    @classmethod
    def handles(cls, spec: str) -> bool:
        return spec.startswith(cls.LIVE_PREFIXES)

    def describe(self) -> str:
        return f"live camera {self.spec}"

    @property  # type: ignore[override]
    def error(self) -> str | None:
        """Why there is no current frame: the thread ended, the camera is not there (yet),
        was lost (``ReconnectingSource.status``), or its newest frame is stale."""
        if self._failed is not None:
            return self._failed
        status = getattr(self._source, "status", "ok")
        if status not in ("ok", "starting"):
            return str(status)
        fresh_at = self._fresh_at
        stale_s = max(self.stale_s, 3.0 / self.fps)  # a slow feed's pause is no loss
        if fresh_at is not None and (age := time.monotonic() - fresh_at) > stale_s:
            return f"camera lost: no new frame for {age:.0f} s"
        return None

    @error.setter
    def error(self, value: str | None) -> None:
        self._failed = value

    @property
    def reconnects(self) -> int:
        """How often the camera has been reopened after a drop: the camera referee marks
        the frame after one as following a gap (TBL-10)."""
        return int(getattr(self._source, "reconnects", 0))

    def _frames(self) -> Any:
        from vision.table.frames import CameraError

        while not self._stop.is_set():
            try:
                frame = self._source.read()
            except CameraError as exc:
                self.error = str(exc)
                return
            if frame is None:
                return
            yield frame.image, frame.t_ns

    def close(self) -> None:
        """Stop the thread, then the camera: its retries end at once (``stop``), and it is
        closed once nothing reads it."""
        stop = getattr(self._source, "stop", None)
        if callable(stop):
            stop()
        super().close()
        self._source.close()


def open_feed(spec: str) -> CameraFeed:
    """The feed for a ``--camera`` spec: a live camera, a video file or an image folder."""
    return LiveFeed(spec) if LiveFeed.handles(spec) else FileFeed(spec)


def _color(kind: str) -> tuple[int, int, int]:
    return {
        "draw_pile": (255, 200, 0),
        "discard_pile": (0, 200, 255),
        "seat_area": (0, 220, 0),
        "dryer": (255, 0, 255),
        "dryer_bar": (180, 100, 255),
    }.get(kind, (255, 255, 255))


def annotate(frame: Frame, zones: Sequence[dict[str, Any]], quality: int = 75) -> bytes:
    """The frame's JPEG with zone polygons and detection boxes drawn on it."""
    if not zones and not frame.detections:
        return frame.jpeg
    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(frame.jpeg, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        return frame.jpeg
    h, w = img.shape[:2]
    for zone in zones:
        pts = np.array([[int(x * w), int(y * h)] for x, y in zone["points"]], np.int32)
        color = _color(zone.get("kind", ""))
        cv2.polylines(img, [pts], True, color, 2)
        x, y = pts[0]
        cv2.putText(img, zone["name"], (int(x) + 3, int(y) + 14), 0, 0.45, color, 1)
    for det in frame.detections:
        x1, y1, x2, y2 = det.box
        p1, p2 = (int(x1 * w), int(y1 * h)), (int(x2 * w), int(y2 * h))
        cv2.rectangle(img, p1, p2, (0, 255, 255), 2)
        label = f"{det.label} {det.confidence:.0%}"
        cv2.putText(img, label, (p1[0], max(12, p1[1] - 4)), 0, 0.5, (0, 255, 255), 1)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return buf.tobytes() if ok else frame.jpeg


class Annotator:
    """Caches the annotated JPEG of the newest frame for every viewer."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[int, int] | None = None
        self._jpeg = b""

    def get(self, frame: Frame, zones: Sequence[dict[str, Any]], zones_version: int) -> bytes:
        key = (frame.seq, zones_version)
        with self._lock:
            if key != self._key:
                self._jpeg = annotate(frame, zones)
                self._key = key
            return self._jpeg
