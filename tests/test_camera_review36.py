"""Review 36 of the camera referee: zones drawn on a picture of another shape than the
camera now sends lie elsewhere on the table (TBL-29), so the camera waits instead of
refereeing with them, says why, and goes on once the family calibrates again.

The dashboard plays an image folder through the real ``FileFeed`` → ``FeedSource`` →
``CameraReferee`` with review 33's painted piles and deterministic detector."""

from __future__ import annotations

from tests.test_camera_review33 import (
    dashboard,
    recording,
    referee_status,
    refereed,
    until,
)
from tests.test_web_camera_referee import zones_doc
from web.services.camera import FileFeed


def test_ruling_tbl29_the_camera_does_not_referee_with_zones_of_another_shape(tmp_path):
    feed = FileFeed(recording(tmp_path / "frames"), fps=30)  # 160 x 120 pictures (4:3)
    tablet, game_id = dashboard(tmp_path, feed)
    wide = {**zones_doc(), "frame": {"width": 1280, "height": 720}}  # drawn on 16:9
    tablet.services.zones.save(wide)
    referee = tablet.services.referee
    try:
        referee.start()
        waiting = until(lambda: "calibrate again" in referee_status(tablet)["message"])
        assert waiting, referee_status(tablet)
        status = referee_status(tablet)
        assert status["state"] == "waiting"
        assert status["message"].startswith("the camera is not refereeing: The zones were")
        assert "1280×720" in status["message"] and "160×120" in status["message"]
        frames = status["frames"]
        assert until(lambda: referee_status(tablet)["frames"] > frames + 40)  # two loops
        assert refereed(tablet, game_id) == ([], 0)  # nothing read through misplaced zones
        tablet.services.zones.save(zones_doc())  # calibrated again on this camera
        assert until(lambda: referee_status(tablet)["state"] == "ended"), referee_status(tablet)
        assert refereed(tablet, game_id) == ([("G7", "legal")], 0)
    finally:
        referee.stop()
        feed.close()


def test_a_picture_of_the_same_shape_and_another_size_is_refereed(tmp_path):
    """Corners are shares of the picture: zones drawn on 640 x 480 fit a 160 x 120 feed."""
    feed = FileFeed(recording(tmp_path / "frames"), fps=30)
    tablet, game_id = dashboard(tmp_path, feed)
    tablet.services.zones.save({**zones_doc(), "frame": {"width": 640, "height": 480}})
    referee = tablet.services.referee
    try:
        referee.start()
        assert until(lambda: referee_status(tablet)["state"] == "ended"), referee_status(tablet)
        assert refereed(tablet, game_id) == ([("G7", "legal")], 0)
    finally:
        referee.stop()
        feed.close()
