"""Vision II table logic: frame sources, zones, motion gating, stability, the watcher."""

import json

import cv2
import numpy as np
import pytest

from vision.table.frames import (
    CameraError,
    Frame,
    ImageFolderSource,
    ReconnectingSource,
    VideoFileSource,
    frames,
    open_source,
)
from vision.table.motion import MotionGate
from vision.table.stability import StabilityTracker, ZoneReading
from vision.table.watcher import Sighting, TableWatcher, read_zone
from vision.table.zones import TableLayout, Zone, ZoneError, ZoneKind, rectangle

MS = 1_000_000


def blank(value=40):
    return np.full((120, 160, 3), value, np.uint8)


def test_video_file_frames_carry_monotonic_times(tmp_path):
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (160, 120))
    for i in range(5):
        writer.write(blank(20 * i))
    writer.release()
    got = list(frames(VideoFileSource(path, start_ns=7)))
    assert [f.index for f in got] == [0, 1, 2, 3, 4]
    assert [f.t_ns for f in got] == [7 + i * 100 * MS for i in range(5)]
    assert got[0].image.shape == (120, 160, 3)


def test_image_folder_skips_unreadable_files(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), blank())
    (tmp_path / "b.png").write_bytes(b"not an image")
    cv2.imwrite(str(tmp_path / "c.png"), blank(90))
    got = list(frames(ImageFolderSource(tmp_path, fps=20)))
    assert [f.index for f in got] == [0, 2]
    assert got[1].t_ns == 100 * MS


def test_open_source_refuses_what_does_not_exist(tmp_path):
    with pytest.raises(CameraError, match="no camera, video or image folder"):
        open_source(str(tmp_path / "nope.mp4"))
    with pytest.raises(CameraError, match="cam:N"):
        open_source("cam:x")


class FlakyCamera:
    """A camera that delivers two frames and then drops, as a pulled cable does."""

    opened = 0

    def __init__(self):
        FlakyCamera.opened += 1
        self.left = 2

    def read(self):
        if self.left == 0:
            raise CameraError("cable pulled")
        self.left -= 1
        return Frame(blank(), FlakyCamera.opened * 1000 + self.left, 0)

    def close(self):
        pass


def test_dropped_camera_reconnects_and_keeps_delivering():
    FlakyCamera.opened = 0
    pauses = []
    source = ReconnectingSource(FlakyCamera, retry_s=0.5, sleep=pauses.append)
    got = [source.read() for _ in range(5)]
    assert all(f is not None for f in got)
    assert FlakyCamera.opened == 3 and source.reconnects == 2
    assert pauses == [0.5, 0.5] and source.status == "ok"


def test_a_reconnecting_camera_reports_each_change_of_status_once():
    """`vision watch` prints these: a camera lost (or not there yet) says so once, not once
    per retry, and says so again when it is back."""
    FlakyCamera.opened = 0
    told = []
    source = ReconnectingSource(FlakyCamera, sleep=lambda s: None, on_status=told.append)
    for _ in range(5):
        source.read()
    assert told == ["ok", "camera lost: cable pulled", "ok", "camera lost: cable pulled", "ok"]

    def never():
        raise CameraError("no camera at cam:9")

    told.clear()
    dead = ReconnectingSource(never, max_retries=3, sleep=lambda s: None, on_status=told.append)
    with pytest.raises(CameraError):
        dead.read()
    assert told == ["no camera yet: no camera at cam:9 (trying again until it is there)"]

    tries = []

    def plugged_in_on_the_third_try():
        tries.append(1)
        if len(tries) < 3:
            raise CameraError("no camera at cam:0")
        return FlakyCamera()

    told.clear()
    late = ReconnectingSource(
        plugged_in_on_the_third_try, sleep=lambda s: None, on_status=told.append
    )
    assert late.read() is not None and late.reconnects == 0  # found, not reconnected
    assert told == ["no camera yet: no camera at cam:0 (trying again until it is there)", "ok"]


def test_a_missing_camera_or_video_is_said_in_our_one_line_not_in_opencvs(capfd, tmp_path):
    """OpenCV's backends printed a dozen lines (warnings, exception text) for a missing
    camera on every reconnection try; they are silenced while a source opens, and OpenCV's
    log level is what it was afterwards."""
    import cv2

    from vision.table.frames import OpenCVCameraSource, VideoFileSource

    before = cv2.utils.logging.getLogLevel()
    with pytest.raises(CameraError, match="cannot open camera 63"):
        OpenCVCameraSource(63)
    not_a_video = tmp_path / "notes.avi"
    not_a_video.write_text("not a video")
    with pytest.raises(CameraError, match="cannot open video"):
        VideoFileSource(not_a_video)
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")
    assert cv2.utils.logging.getLogLevel() == before


def test_reconnect_gives_up_after_max_retries():
    def never():
        raise CameraError("no camera")

    source = ReconnectingSource(never, max_retries=2, sleep=lambda s: None)
    with pytest.raises(CameraError):
        source.read()
    assert source.status.startswith("no camera yet") and source.reconnects == 0


def test_zone_geometry_and_smallest_zone_wins():
    dryer = rectangle("dryer-0", ZoneKind.DRYER, (0.0, 0.0, 0.5, 0.5), seat=0)
    bar = rectangle("bar-0-1", ZoneKind.BAR, (0.0, 0.0, 0.5, 0.1), seat=0, bar=1)
    tri = Zone("tri", ZoneKind.DISCARD, ((0.6, 0.6), (0.9, 0.6), (0.6, 0.9)))
    layout = TableLayout((dryer, bar, tri))
    assert layout.zone_at(0.2, 0.05).name == "bar-0-1"
    assert layout.zone_at(0.2, 0.3).name == "dryer-0"
    assert layout.zone_at(0.65, 0.65).name == "tri"
    assert layout.zone_at(0.85, 0.85) is None  # outside the triangle's hypotenuse
    assert layout.zone_at(0.5, 0.3).name == "dryer-0"  # on the edge counts


def test_layout_round_trips_and_rejects_bad_zones(tmp_path):
    layout = TableLayout(
        (
            rectangle("discard", ZoneKind.DISCARD, (0.4, 0.4, 0.6, 0.6)),
            rectangle("seat-1", ZoneKind.SEAT, (0.0, 0.7, 0.5, 1.0), seat=1),
        )
    )
    layout.save(tmp_path / "zones.json")
    assert TableLayout.load(tmp_path / "zones.json") == layout
    bad = [
        ({"zones": [{"name": "x", "kind": "moon", "points": [[0, 0], [1, 0], [1, 1]]}]}, "kind"),
        ({"zones": [{"name": "x", "kind": "discard", "points": [[0, 0], [1, 0]]}]}, "3 points"),
        (
            {"zones": [{"name": "x", "kind": "discard", "points": [[0, 0], [2, 0], [1, 1]]}]},
            "0 and 1",
        ),
        ({"zones": [{"name": "x", "kind": "seat", "points": [[0, 0], [1, 0], [1, 1]]}]}, "seat"),
        (
            {
                "zones": [
                    {"name": "x", "kind": "bar", "seat": 0, "points": [[0, 0], [1, 0], [1, 1]]}
                ]
            },
            "bar",
        ),
        ({"zones": "all"}, "'zones' list"),
    ]
    for data, fragment in bad:
        with pytest.raises(ZoneError, match=fragment):
            TableLayout.from_dict(data)
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(ZoneError, match="not JSON"):
        TableLayout.load(tmp_path / "broken.json")
    square = [[0, 0], [1, 0], [1, 1]]
    twice = {"zones": [{"name": "a", "kind": "discard", "points": square}] * 2}
    with pytest.raises(ZoneError, match="unique"):
        TableLayout.from_dict(json.loads(json.dumps(twice)))


def test_motion_gate_skips_a_still_table_and_wakes_on_change():
    gate = MotionGate(settle_frames=1)
    still = blank()
    decisions = [gate.should_detect(still) for _ in range(4)]
    assert decisions == [True, True, False, False]  # first frame, one settling frame, skip
    moved = still.copy()
    cv2.rectangle(moved, (60, 40), (100, 90), (255, 255, 255), -1)
    assert gate.should_detect(moved) is True  # motion
    assert gate.should_detect(moved) is True  # settling frame
    assert gate.should_detect(moved) is False  # still again, already detected
    noisy = still.copy()
    noisy[0, 0] = 255  # one hot pixel is not a change
    assert [gate.should_detect(noisy) for _ in range(3)][-1] is False


def test_stability_needs_frames_and_time():
    tracker = StabilityTracker(min_frames=3, min_ns=80 * MS)
    r7 = {"discard": ZoneReading(("R7",), 0.9)}
    assert tracker.update(0, r7) == []
    assert tracker.update(33 * MS, r7) == []
    assert tracker.update(50 * MS, r7) == []  # 3 frames but only 50 ms
    (obs,) = tracker.update(90 * MS, r7)
    assert (obs.before, obs.after, obs.t_ns, obs.confirmed_ns) == ((), ("R7",), 0, 90 * MS)
    assert tracker.update(120 * MS, r7) == []  # already committed


def test_hand_passing_over_and_card_taken_back_produce_nothing():
    tracker = StabilityTracker(min_frames=3, min_ns=60 * MS)
    script = (
        [ZoneReading(("R7",), 0.9)] * 4  # R7 settles
        + [ZoneReading((), 0.0, occluded=True)] * 5  # a hand over the pile
        + [ZoneReading(("B2",), 0.8)] * 2  # B2 put down...
        + [ZoneReading(("R7",), 0.9)] * 6  # ...and taken back
        + [ZoneReading(("G5",), 0.4)]  # one blurry misread
        + [ZoneReading(("R7",), 0.9)] * 3
    )
    seen = []
    for i, reading in enumerate(script):
        seen += tracker.update(i * 33 * MS, {"discard": reading})
    assert [(o.before, o.after) for o in seen] == [((), ("R7",))]


def scripted_detector(script):
    """Detector double: returns the sightings scripted for each call, in order."""
    calls = iter(script)

    def detect(image):
        return next(calls)

    return detect


def test_watcher_reports_a_play_once_and_skips_still_frames():
    layout = TableLayout(
        (
            rectangle("discard", ZoneKind.DISCARD, (0.4, 0.4, 0.6, 0.6)),
            rectangle("draw", ZoneKind.DRAW_PILE, (0.1, 0.4, 0.3, 0.6)),
        )
    )
    under = Sighting("B3", 0.9, (0.42, 0.42, 0.5, 0.5))
    top = Sighting("R7", 0.95, (0.41, 0.41, 0.59, 0.59))
    detector = scripted_detector([[under, top]] * 20)
    watcher = TableWatcher(detector, layout, tracker=StabilityTracker(min_frames=3, min_ns=60 * MS))
    image = blank()
    cv2.rectangle(image, (66, 50), (94, 70), (0, 0, 200), -1)
    observations = []
    for i in range(12):
        observations += watcher.process(Frame(image, i * 33 * MS, i))
    assert [(o.zone, o.after) for o in observations] == [("discard", ("R7",))]
    assert watcher.stats.frames == 12
    assert watcher.stats.detections_run < 6  # the still table is not re-detected


def test_read_zone_reads_areas_whole_and_respects_occluders():
    seat = rectangle("seat-0", ZoneKind.SEAT, (0.0, 0.0, 0.5, 0.5), seat=0)
    cards = [Sighting("R1", 0.9, (0.1, 0.1, 0.2, 0.2)), Sighting("W", 0.8, (0.2, 0.1, 0.3, 0.2))]
    faint = Sighting("G9", 0.1, (0.3, 0.3, 0.4, 0.4))
    assert read_zone(seat, [*cards, faint], 0.25) == ZoneReading(("R1", "W"), 0.8)
    hand = Sighting("hand", 0.9, (0.4, 0.4, 0.9, 0.9), occluder=True)
    assert read_zone(seat, [*cards, hand], 0.25).occluded


def test_reader_detector_turns_the_shipped_reader_into_sightings():
    """The one bridge from Vision I's reader to the watcher: a sighting per reported card,
    in the game's notation, with the box normalised to the frame."""
    from vision.decks import load_deck
    from vision.render.faces import TRAIN_STYLES
    from vision.render.scenes import render_scene
    from vision.runtime.reader import CardReader, ReaderConfig
    from vision.table.adapter import reader_detector

    deck = load_deck("deck-dash")
    reader = CardReader(deck=deck, config=ReaderConfig(threads=1))
    detect = reader_detector(reader, "deck-dash")
    rng = np.random.default_rng(8)
    seen = 0
    for _ in range(4):
        image = np.ascontiguousarray(render_scene(deck, rng, TRAIN_STYLES).image[..., ::-1])
        cards, sightings = reader(image).cards(), detect(image)
        assert len(sightings) == len(cards)
        h, w = image.shape[:2]
        for card, s in zip(cards, sightings, strict=True):
            x1, y1, x2, y2 = card["box"]
            assert s.box == pytest.approx(
                (max(x1, 0) / w, max(y1, 0) / h, min(x2 / w, 1), min(y2 / h, 1)), abs=1e-6
            )
            assert s.confidence == pytest.approx(card["confidence"])
            seen += 1
    assert seen > 0
