"""Review 33 of the camera referee: DOS's lone right pile (TBL-3), a recording refereed once
(the switch, unreadable files, a first file that cannot be read, the status while armed),
a file feed that survives bad files and a recording that goes away, and a card laid
squarely on one of its colour that the motion gate used to skip.

The dashboard tests play an image folder through the real ``FileFeed`` → ``FeedSource`` →
``CameraReferee``; the detector reads the pile's painted grey level back (a deterministic
double), so they check the wiring, not the card models.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from tests.test_vision_bad_input import huge_png
from tests.test_web_camera_referee import DEAL, camera_events, zones_doc
from tests.test_web_routes import Tablet, make_app
from vision.table.frames import Frame
from vision.table.stability import Observation
from vision.table.to_events import EventMapper
from vision.table.watcher import Sighting, TableWatcher
from vision.table.zones import TableLayout, ZoneKind, rectangle
from web.services.camera import FileFeed
from web.services.referee_camera import ENDED, pile_states, pile_tops

# -- DOS: a lone discard_2 is the right pile (TBL-3) ---------------------------------------

DOS_VIEW = {
    "piles": [
        {"pile": "left", "top": "R7", "cards": 1},
        {"pile": "right", "top": "G2", "cards": 3},
    ]
}


def test_ruling_tbl3_a_lone_discard_2_is_doss_right_pile():
    """Only the Calibrate page's "Second discard pile (DOS: the right one)" drawn (the left
    pile out of view): a card laid there is played on the right pile, and the game's right
    pile is what the camera compares it with."""
    layout = TableLayout((rectangle("discard_2", ZoneKind.DISCARD, (0.5, 0.3, 0.8, 0.7)),))
    mapper = EventMapper("dos", layout)
    assert mapper.pile_of("discard_2") == "right"
    assert pile_tops("dos", DOS_VIEW, ["discard_2"]) == {"discard_2": "G2"}
    assert pile_states("dos", DOS_VIEW, ["discard_2"]) == {"discard_2": ("G2", 3)}
    mapper.note_top("discard_2", "G2")
    seen = Observation("discard_2", ("G2",), ("G5",), 0.95, 1_000, 1)
    (event,) = mapper.propose(seen, seat=0)
    assert (event.kind, dict(event.payload)) == ("play", {"card": "G5", "pile": "right"})
    # both drawn, and other games' one pile, as before
    both = ["discard_1", "discard_2"]
    assert pile_tops("dos", DOS_VIEW, both) == {"discard_1": "R7", "discard_2": "G2"}
    assert pile_tops("hit-the-deck", {"top": "GCUT"}, ["discard_2"]) == {"discard_2": "GCUT"}


# -- a recording through the dashboard's feed ------------------------------------------------

LEVELS = {"G5": 100, "G7": 180}  # the pile's painted grey level for each card
PILE = (slice(36, 84), slice(64, 102))  # discard_1 of zones_doc() in a 160x120 frame


def paint(card: str) -> np.ndarray:
    image = np.full((120, 160, 3), 40, np.uint8)
    image[PILE] = LEVELS[card]
    return image


def detector_for(game: str) -> Callable[[np.ndarray], list[Sighting]]:
    def detect(image: np.ndarray) -> list[Sighting]:
        level = int(image[60, 83, 0])
        card = min(LEVELS, key=lambda c: abs(LEVELS[c] - level))
        return [Sighting(card, 0.95, (0.42, 0.32, 0.62, 0.68))]

    return detect


def recording(folder: Path, *, bad_first: bool = False, bad_last: int = 0) -> Path:
    """G5 (the deal's start card) for 10 frames, then G7 played on it for 10; files that
    are no image first or last when asked."""
    folder.mkdir(parents=True)
    if bad_first:
        (folder / "a000.png").write_bytes(b"not an image (a HEIC photo named .png)")
    for i in range(20):
        cv2.imwrite(str(folder / f"f{i:03d}.png"), paint("G5" if i < 10 else "G7"))
    for k in range(bad_last):
        (folder / f"z{k:03d}.png").write_bytes(b"")  # a copy that failed
    return folder


def dashboard(tmp_path: Path, feed: FileFeed) -> tuple[Tablet, int]:
    """The dashboard over ``feed`` (the referee reads it through ``FeedSource``), zones
    saved, a Deck Dash game dealt with G5 on the pile and Ana's draw logged."""
    app = make_app(tmp_path, camera_feed=feed, referee_detector=detector_for, race_timer=False)
    tablet = Tablet(app)
    tablet.set_pin()
    tablet.services.zones.save(zones_doc())
    game_id = tablet.new_game("deck-dash", ("Ana", "Bea"))
    for event in (DEAL, {"kind": "draw", "seat": 0}):
        assert tablet.send(game_id, event).status_code == 201
    return tablet, game_id


def until(check: Callable[[], Any], timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (got := check()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return got


def referee_status(tablet: Tablet) -> dict[str, Any]:
    return tablet.client.get("/api/camera/status").json["referee"]


def refereed(tablet: Tablet, game_id: int) -> tuple[list[tuple[str, str]], int]:
    """The camera's plays (card, verdict) and its questions so far."""
    plays = [
        (i["event"]["payload"]["card"], i["verdicts"][0]["outcome"])
        for i in camera_events(tablet, game_id)
    ]
    return plays, referee_status(tablet)["prompts"]


def watch_once(tablet: Tablet) -> None:
    referee = tablet.services.referee
    referee.start()
    assert until(lambda: referee_status(tablet)["state"] == "ended"), referee_status(tablet)
    referee.join(timeout=5)


def test_a_recording_is_not_refereed_again_when_the_switch_goes_off_and_on(tmp_path):
    feed = FileFeed(recording(tmp_path / "frames"), fps=30)
    tablet, game_id = dashboard(tmp_path, feed)
    try:
        watch_once(tablet)
        once = refereed(tablet, game_id)
        assert once == ([("G7", "legal")], 0)
        assert tablet.post("/api/camera/referee", {"enabled": False}).json["state"] == "off"
        tablet.post("/api/camera/referee", {"enabled": True})
        tablet.services.referee.join(timeout=5)  # a second pass would take a loop and end
        status = referee_status(tablet)
        assert (status["state"], status["message"]) == ("ended", ENDED)
        assert refereed(tablet, game_id) == once  # no phantom plays or questions
    finally:
        tablet.services.referee.stop()
        feed.close()


def test_unreadable_files_do_not_carry_the_pass_into_the_next_loop(tmp_path):
    """Twelve empty files at the folder's end: the pass still ends where the recording
    starts again (old: it counted them as frames and read G5 again: "taken back")."""
    feed = FileFeed(recording(tmp_path / "frames", bad_last=12), fps=30)
    tablet, game_id = dashboard(tmp_path, feed)
    try:
        watch_once(tablet)
        assert refereed(tablet, game_id) == ([("G7", "legal")], 0)
    finally:
        tablet.services.referee.stop()
        feed.close()


def test_a_folder_whose_first_file_is_unreadable_is_refereed(tmp_path):
    feed = FileFeed(recording(tmp_path / "frames", bad_first=True), fps=30)
    tablet, game_id = dashboard(tmp_path, feed)
    try:
        watch_once(tablet)  # old: armed for ever, waiting for position 0
        assert refereed(tablet, game_id) == ([("G7", "legal")], 0)
    finally:
        tablet.services.referee.stop()
        feed.close()


def test_while_armed_the_status_says_it_waits_for_the_recording_to_start_again(tmp_path):
    feed = FileFeed(recording(tmp_path / "frames"), fps=30)
    tablet, game_id = dashboard(tmp_path, feed)
    referee = tablet.services.referee
    said: list[tuple[str, str]] = []
    set_status = referee._set
    referee._set = lambda state, message: (
        said.append((state, message)),
        set_status(state, message),
    )
    try:
        watch_once(tablet)
        armed = [m for s, m in said if "waiting for the recording to start again" in m]
        assert armed and armed[0].startswith(f"game {game_id} (deck-dash)")
        after = said[said.index(("watching", armed[0])) :]
        assert not any("no game yet" in m for _, m in after)
    finally:
        referee.stop()
        feed.close()


# -- the file feed: bad files, a recording that goes away -----------------------------------


def frames_played(feed: FileFeed, n: int) -> bool:
    """Wait until the feed has played ``n`` more frames."""
    start = feed._seq
    return bool(until(lambda: feed._seq >= start + n))


def test_a_file_opencv_refuses_or_that_went_missing_is_skipped_quietly(tmp_path, capfd):
    folder = recording(tmp_path / "frames")
    huge_png(folder / "f005b.png", 100_000, 100_000)
    feed = FileFeed(folder, fps=100)
    try:
        assert feed.latest() is not None
        (folder / "f012.png").unlink()  # gone between two passes' listings (old: listed once)
        assert frames_played(feed, 45)  # two loops and more
        assert feed._thread.is_alive() and feed.error is None
    finally:
        feed.close()
    assert "WARN" not in capfd.readouterr().err  # no OpenCV noise for the missing file


def test_an_emptied_folder_is_lost_then_plays_again_and_no_frozen_frame_is_served(tmp_path):
    folder = recording(tmp_path / "frames")
    feed = FileFeed(folder, fps=50)
    feed.retry_s = 0.05  # (an attribute: the old feed, which never retried, takes it too)
    tablet = Tablet(make_app(tmp_path, camera_feed=feed, race_timer=False))
    away = tmp_path / "away"
    try:
        assert tablet.client.get("/api/camera/frame.jpg").status_code == 200
        shutil.move(str(folder), str(away))
        assert until(lambda: feed.error)
        assert feed.error == f"camera lost: no readable images in {folder} (trying again)"
        assert feed.latest() is None
        r = tablet.client.get("/api/camera/frame.jpg")
        assert r.status_code == 503 and r.json["error"] == feed.error
        shutil.move(str(away), str(folder))
        assert until(lambda: feed.error is None and feed.latest() is not None)
        assert feed._thread.is_alive() and feed.reconnects == 1
        assert tablet.client.get("/api/camera/frame.jpg").status_code == 200
    finally:
        feed.close()


def test_a_video_moved_away_is_waited_for_and_plays_again(tmp_path):
    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 30, (160, 120))
    for i in range(6):
        writer.write(paint("G5" if i < 3 else "G7"))
    writer.release()
    feed = FileFeed(video, fps=50)
    feed.retry_s = 0.05
    try:
        assert feed.latest() is not None
        video.rename(tmp_path / "moved.avi")
        assert until(lambda: feed.error)
        assert feed.error == f"camera lost: cannot open video {video} (trying again)"
        assert feed.latest() is None
        (tmp_path / "moved.avi").rename(video)
        assert until(lambda: feed.error is None and feed.latest() is not None)
        assert feed._thread.is_alive()
    finally:
        feed.close()


def test_a_recording_that_will_not_reopen_is_not_said_to_be_reconnecting(tmp_path):
    """A folder of files no one can decode: the feed says so and stops (a mistake to fix);
    the referee must not promise a reconnection that will not come."""
    folder = tmp_path / "photos"
    folder.mkdir()
    for i in range(3):
        (folder / f"img{i}.jpg").write_bytes(b"not a jpeg")
    feed = FileFeed(folder)
    tablet = Tablet(make_app(tmp_path, camera_feed=feed, referee_detector=detector_for))
    referee = tablet.services.referee
    try:
        referee.start()
        assert until(lambda: referee_status(tablet)["state"] == "camera lost")
        message = referee_status(tablet)["message"]
        assert "reconnecting" not in message
        assert message.startswith(f"no readable images in {folder}") and "restart" in message
    finally:
        referee.stop()
        feed.close()


# -- the motion gate: a card laid squarely on one of its colour ------------------------------

SQUARE = "discard_1"
SQUARE_LAYOUT = TableLayout((rectangle(SQUARE, ZoneKind.DISCARD, (0.1, 0.1, 0.9, 0.9)),))
PALE = {"Y2": 200, "Y5": 203}  # pale yellow 5 on yellow 2: 3 grey levels apart (gate: 20)
# where the two cards' printed digits differ: 2×2 of the zone's 64×48 thumbnail pixels
# (0.13 %, under the gate's 0.4 %)
DIGIT = (slice(56, 60), slice(84, 88))


def table(card: str, hand_x: int | None = None) -> np.ndarray:
    """The pile showing ``card``; a striped hand sliding over it at ``hand_x`` (its stripes
    move with it: every frame of the hand reads as moving, as a real hand's do)."""
    image = np.full((120, 160, 3), 40, np.uint8)
    image[48:72, 64:96] = PALE[card]
    if card == "Y5":
        image[DIGIT] = 120
    if hand_x is not None:
        stripes = np.where((np.arange(50) // 5) % 2 == 0, 240, 150).astype(np.uint8)
        image[30:90, hand_x : hand_x + 50] = stripes[None, : 160 - hand_x, None]
    return image


def read_pale(image: np.ndarray) -> Sequence[Sighting]:
    """The card by its exact level; anything else over the pile is the hand."""
    level = int(image[60, 80, 0])
    card = next((c for c, g in PALE.items() if g == level), None)
    if card is None:
        return [Sighting("hand", 0.9, (0.3, 0.25, 0.7, 0.75), occluder=True)]
    return [Sighting(card, 0.95, (0.42, 0.42, 0.58, 0.58))]


def test_a_card_laid_squarely_on_one_of_its_colour_is_read_once_the_hand_leaves():
    """The pile's thumbnail barely changes (old: the detector never ran after the hand
    left, and the play was missed); a zone that stops moving changed is read again."""
    frames = [table("Y2")] * 10
    frames += [table("Y2", hand_x) for hand_x in range(20, 110, 15)]  # a hand lays Y5
    frames += [table("Y5")] * 20
    watcher = TableWatcher(read_pale, SQUARE_LAYOUT)
    seen = []
    for k, image in enumerate(frames):
        seen += watcher.process(Frame(image, k * 33_333_333, k))
    assert [(o.before, o.after) for o in seen if o.after == ("Y5",)] == [(("Y2",), ("Y5",))]
    assert watcher.stats.detections_run < len(frames) // 2  # the gate still saves most runs


def test_a_flicker_that_comes_and_goes_costs_no_detector_run():
    """A zone that stops moving is read only when it changed at all: a shadow or a lamp's
    flicker over the whole table, gone again, left the picture as the detector saw it, yet
    cost three runs each time (a fan's shadow: half of all frames)."""
    still, dark = table("Y2"), (table("Y2") * 0.5).astype(np.uint8)
    frames = [still] * 10 + ([dark] + [still] * 6) * 10  # a fan blade passing
    watcher = TableWatcher(read_pale, SQUARE_LAYOUT)
    for k, image in enumerate(frames):
        watcher.process(Frame(image, k * 33_333_333, k))
    assert watcher.stats.detections_run <= 5, watcher.stats.detections_run
