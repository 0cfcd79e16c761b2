"""The camera's card scale (VIS-11, ``vision.runtime.card_scale``): a table camera mounted low
measures how much larger or smaller than learnt its cards are and scales its frames by that."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.cli import main
from vision.evaluate import cards_read_right
from vision.render.closeups import render_far_table, render_near_table
from vision.runtime.card_scale import (
    DRIFT,
    DRIFT_AT_ONCE,
    DRIFT_CARDS,
    ENLARGE,
    LEARNT_MAX,
    LEARNT_MIDDLE,
    PROBE_CARDS,
    PROBE_FRAMES,
    PROBE_PASSES,
    RECHECK_AFTER,
    RECHECK_EVERY,
    RECHECK_SOON,
    SMALL_CARDS,
    SMALLEST_SHRINK,
    CameraScale,
    CardScale,
    ScaledReader,
    card_widths,
    scale_from_widths,
)
from vision.runtime.detections import Detections
from vision.runtime.reader import CardReader, ReaderConfig
from vision.runtime.zoom import detect_tiled
from vision.table.zones import TableLayout, ZoneKind, rectangle

SEED = 900_023  # never used for training
# the camera status of a scale set to 0.5 (not measured)
# a call of the measuring passes (``find_any_size``): shrunk by 2 and 4, and on tiles
# enlarged by ENLARGE when the cards are smaller than SMALL_CARDS
MEASURING = (PROBE_PASSES, ENLARGE, SMALL_CARDS)
SET_HALF = {"scale": 0.5, "card_width": None, "cards": 0, "small": False, "drifts": 0}


def _read(boxes: list[list[float]], values: list[str], confidence: list[float]) -> Detections:
    n = len(boxes)
    return Detections(
        np.array(boxes, np.float32).reshape(n, 5),
        np.array(confidence, np.float32),
        np.zeros(n, np.int64),
        np.array(["red"] * n, object),
        np.array(values, object),
    )


def test_card_widths_are_the_surely_read_cards_shorter_sides_over_the_frames_long_side() -> None:
    found = _read(
        [[100, 100, 128, 200, 0.3], [300, 200, 192, 64, 1.2], [50, 50, 64, 64, 0], [9, 9, 9, 9, 0]],
        ["7", "back", "other", "7"],
        [0.9, 0.6, 0.99, 0.2],  # the "other" box and the unsure 7 are not measured
    )
    assert card_widths(found, (480, 640, 3)) == pytest.approx([128 / 640, 64 / 640])
    assert card_widths(Detections.empty(), (480, 640, 3)) == []


def test_cards_in_the_learnt_range_keep_the_frame_larger_ones_shrink_it_smaller_enlarge_it():
    assert scale_from_widths([]) is None
    inside = scale_from_widths([0.08, 0.1, LEARNT_MAX])
    assert inside == CardScale(1.0, 0.1, 3)
    large = scale_from_widths([0.25, 0.26, 0.27, 0.9])  # one false huge box: the median holds
    assert large is not None and large.cards == 4
    assert large.scale == pytest.approx(LEARNT_MIDDLE / 0.265, abs=1e-3)
    assert large.card_width == pytest.approx(0.265)
    huge = scale_from_widths([0.9, 0.95])
    assert huge is not None and huge.scale == SMALLEST_SHRINK
    assert large.describe() == "card scale 0.395 (cards 26% of the frame wide, 4 measured)"
    small = scale_from_widths([0.9 * SMALL_CARDS] * 5)  # a camera mounted high: tiles
    assert small is not None and small.scale == round(ENLARGE, 3)
    assert scale_from_widths([SMALL_CARDS] * 5) == CardScale(1.0, SMALL_CARDS, 5)
    assert CardScale(0.5, None, 0).to_dict() == {
        "scale": 0.5,
        "card_width": None,
        "cards": 0,
        "small": False,
    }


def test_small_cards_take_the_tiles_and_the_scale_says_to_mount_the_camera_lower() -> None:
    small = scale_from_widths([0.8 * SMALL_CARDS] * 5)
    assert small is not None and small.scale == round(ENLARGE, 3) and small.small
    assert small.to_dict()["small"] is True
    assert small.describe().endswith("a camera mounted lower or nearer the table reads them better")
    usual = scale_from_widths([LEARNT_MIDDLE] * 5)
    assert usual is not None and not usual.small and "lower" not in usual.describe()


def test_tiles_overlap_and_boxes_cut_by_a_tiles_inner_edge_are_dropped() -> None:
    """A fake detector that sees one card whole in every tile and, in the top-left tile, a
    second card cut by the tile's right edge (the top-right tile holds that one whole): each
    card comes back once, in frame pixels, the cut box dropped."""
    frame = np.zeros((480, 640, 3), np.uint8)
    tiles = []
    whole = np.array([300.0, 230.0, 40.0, 60.0, 0.0], np.float32)  # in every tile
    right = np.array([370.0, 100.0, 40.0, 60.0, 0.0], np.float32)  # cut by tile 1's edge

    def detect(image: np.ndarray) -> Detections:
        tiles.append(image.shape[:2])
        x0 = 0 if len(tiles) in (1, 3) else 640 - image.shape[1]
        y0 = 0 if len(tiles) in (1, 2) else 480 - image.shape[0]
        boxes = [whole - (x0, y0, 0, 0, 0)]
        if len(tiles) == 1:  # the second card reaches past the tile's right edge (384)
            boxes.append(np.array([370 - 10.0, 100.0, 60.0, 60.0, 0.0], np.float32))
        if len(tiles) == 2:
            boxes.append(right - (x0, y0, 0, 0, 0))
        n = len(boxes)
        return Detections(np.stack(boxes), np.full(n, 0.9, np.float32), np.zeros(n, np.int64))

    found = detect_tiled(detect, frame, tile=0.6, iou=0.5)
    assert tiles == [(288, 384)] * 4  # 2×2 tiles, 0.6 of each side
    assert sorted(found.obb[:, 0].tolist()) == pytest.approx([300.0, 370.0])
    np.testing.assert_allclose(found.obb[np.argmin(found.obb[:, 0])], whole, atol=1e-4)
    with pytest.raises(ValueError, match="half"):
        detect_tiled(detect, frame, tile=0.5, iou=0.5)


class _FakeReader:
    """Records how it was asked to read; every frame shows two cards ``width`` (200) px wide."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, ...]] = []
        self.width = 200.0
        self.cards = 2  # how many cards every frame shows (at most 3)
        self.only_measuring = False  # cards found only by the measuring passes

    def find(self, frame: np.ndarray, zoom_out: int = 0, scale: float = 1.0) -> Detections:
        self.calls.append((zoom_out, scale))
        if self.only_measuring:
            return Detections.empty()
        return self._cards()

    def find_any_size(
        self, frame: np.ndarray, zoom_out: int, enlarged: float, small: float
    ) -> Detections:
        self.calls.append((zoom_out, enlarged, small))
        return self._cards()

    def _cards(self) -> Detections:
        w = self.width
        boxes = [[100, 100, w, 1.5 * w, 0], [400, 200, w, 1.5 * w, 0], [250, 350, w, 1.5 * w, 0]]
        n = self.cards
        return _read(boxes[:n], ["7", "2", "9"][:n], [0.9, 0.8, 0.7][:n])


def test_a_scaled_reader_measures_on_its_first_cards_then_detects_once_shrunk() -> None:
    fake = _FakeReader()
    reader = ScaledReader(fake)
    frame = np.zeros((480, 640, 3), np.uint8)
    for _ in range(PROBE_FRAMES):
        assert reader.measuring
        assert len(reader(frame)) == 2  # cards are read while measuring, not dropped
    assert PROBE_FRAMES * 2 >= PROBE_CARDS
    assert not reader.measuring and reader.card_scale is not None
    assert reader.card_scale.scale == pytest.approx(LEARNT_MIDDLE / (200 / 640), abs=1e-3)
    reader(frame)
    assert fake.calls == [MEASURING] * PROBE_FRAMES + [(0, reader.card_scale.scale)]
    reader.reset()  # new zones: the camera may have moved
    assert reader.measuring
    reader(frame)
    assert fake.calls[-1] == MEASURING


def test_a_scale_given_is_used_from_the_first_frame_and_kept_on_reset() -> None:
    fake = _FakeReader()
    reader = ScaledReader(fake, scale=0.5)
    reader.reset()
    reader(np.zeros((480, 640, 3), np.uint8))
    assert fake.calls == [(0, 0.5)]
    assert reader.card_scale == CardScale(0.5, None, 0)
    with pytest.raises(ValueError, match="fixed"):
        ScaledReader(fake, scale=0.5, camera=CameraScale())


def test_games_on_one_camera_share_its_scale_and_its_drift() -> None:
    """One camera, one scale (VIS-11): a family plays Deck Dash, then DOS on the same
    camera, bumps it during DOS, and goes back to Deck Dash. The scale DOS's reader measured
    again is the one Deck Dash's reader reads at from its first frame back; it does not
    keep the scale from before the bump until its own rechecks catch up."""
    camera = CameraScale()
    deck_dash, dos = _FakeReader(), _FakeReader()
    first, second = ScaledReader(deck_dash, camera=camera), ScaledReader(dos, camera=camera)
    frame = np.zeros((480, 640, 3), np.uint8)
    for _ in range(PROBE_FRAMES):
        first(frame)
    before = camera.card_scale
    assert before is not None and second.card_scale == before and not second.measuring
    second(frame)
    assert dos.calls == [(0, before.scale)]  # DOS starts at the measured scale
    dos.width = deck_dash.width = 400  # the camera was moved nearer
    while camera.drifts == 0:
        second(frame)
    while camera.measuring:
        second(frame)
    after = camera.card_scale
    assert after is not None and after.card_width == 400 / 640 and after != before
    first(frame)
    assert deck_dash.calls[-1] == (0, after.scale) and first.drifts == 1
    first.reset()  # new zones, saved while Deck Dash runs: every game measures again
    assert second.measuring


def test_cards_drifting_in_size_measure_the_scale_again_a_few_odd_ones_do_not() -> None:
    """A camera bumped mid-game: every RECHECK_EVERY-th frame is read with the measuring
    passes; once the median of the last DRIFT_CARDS cards those rechecks read is more than
    DRIFT times the measured width, the reader measures again. A size within DRIFT, or one
    recheck's odd cards, change nothing. Cards read off-size bring a recheck sooner
    (RECHECK_SOON), as do frames with none read (RECHECK_AFTER: a camera moved so far that
    no card reads at its scale any more)."""
    fake = _FakeReader()
    reader = ScaledReader(fake)
    frame = np.zeros((480, 640, 3), np.uint8)

    def frames(n: int) -> list[tuple[int, float]]:
        start = len(fake.calls)
        for _ in range(n):
            reader(frame)
        return fake.calls[start:]

    frames(PROBE_FRAMES)
    measured = reader.card_scale
    assert measured is not None
    at_scale, recheck = (0, measured.scale), MEASURING
    fake.width = 200 * (DRIFT - 0.05)  # a little larger: kept
    # a recheck: the measuring passes (for the check), then the frame at the scale as ever
    assert frames(RECHECK_EVERY) == [at_scale] * (RECHECK_EVERY - 1) + [recheck, at_scale]
    frames(RECHECK_EVERY * (DRIFT_CARDS // 2 - 1))  # the rechecks have read DRIFT_CARDS
    # the camera moved: cards read off the measured size bring the next recheck sooner
    fake.width = 400
    assert frames(RECHECK_SOON) == [at_scale] * (RECHECK_SOON - 1) + [recheck, at_scale]
    assert reader.card_scale == measured and reader.drifts == 0  # 2 of the last 6 at 400
    frames(RECHECK_SOON)  # 4 of the last 6 at 400 px: the median is off
    assert reader.measuring and reader.drifts == 1
    assert frames(PROBE_FRAMES) == [recheck] * PROBE_FRAMES
    assert reader.card_scale is not None and reader.card_scale.card_width == 400 / 640

    # moved so far that nothing reads at the scale: rechecked after RECHECK_AFTER frames
    fake.width, fake.only_measuring = 1000, True
    at_scale = (0, reader.card_scale.scale)
    assert frames(RECHECK_AFTER) == [at_scale] * RECHECK_AFTER
    found = reader(frame)  # the recheck: two cards by the passes, the scale's reading kept
    assert len(found) == 0 and fake.calls[-2:] == [recheck, at_scale]
    frames((RECHECK_AFTER + 1) * (DRIFT_CARDS // 2 - 1))
    assert reader.measuring and reader.drifts == 2

    fake.only_measuring = False
    fixed = ScaledReader(fake, scale=0.5)  # a scale the family set is never changed
    start = len(fake.calls)
    for width in (100, 400):
        fake.width = width
        for _ in range(2 * RECHECK_EVERY):
            fixed(frame)
    assert set(fake.calls[start:]) == {(0, 0.5)}
    assert fixed.card_scale == CardScale(0.5, None, 0) and fixed.drifts == 0


def test_one_recheck_showing_several_cards_all_off_size_measures_again_at_once() -> None:
    """A camera moved with DRIFT_AT_ONCE cards in view: the first recheck that reads them
    all off the measured size by DRIFT measures again, without waiting for DRIFT_CARDS
    cards over several rechecks. Two cards held up to the lens do not (the test above)."""
    fake = _FakeReader()
    fake.cards = DRIFT_AT_ONCE
    reader = ScaledReader(fake)
    frame = np.zeros((480, 640, 3), np.uint8)
    for _ in range(PROBE_FRAMES):
        reader(frame)
    assert not reader.measuring
    fake.width = 200 * (DRIFT + 0.1)  # moved nearer: every card larger
    for _ in range(RECHECK_SOON):  # off-size cards bring the recheck sooner
        reader(frame)
    assert reader.measuring and reader.drifts == 1 and fake.calls[-2] == MEASURING
    fake.width = 200 * (DRIFT - 0.1)  # measured again; then cards within DRIFT of it: kept
    for _ in range(PROBE_FRAMES):
        reader(frame)
    measured = reader.card_scale
    fake.width = measured.card_width * 640 * 0.8  # not off by DRIFT
    for _ in range(RECHECK_EVERY):
        reader(frame)
    assert reader.card_scale == measured and reader.drifts == 1


def test_a_far_table_taken_with_twice_the_pixels_is_the_same_view() -> None:
    """``render_far_table(capture=2)``: the same table, every coordinate doubled, and the
    photo scaled back down is the 640×480 one (up to resampling); never enlarged."""
    big, big_truth = render_far_table(np.random.default_rng(3), 0.5, 60, capture=2)
    small, truth = render_far_table(np.random.default_rng(3), 0.5, 60)
    assert big.shape == (960, 1280, 3) and small.shape == (480, 640, 3)
    for (quad2, *card2), (quad, *card) in zip(big_truth, truth, strict=True):
        np.testing.assert_allclose(quad2, 2 * quad, atol=1.5)
        assert card2 == card
    down = cv2.resize(big, (640, 480), interpolation=cv2.INTER_AREA)
    assert np.abs(down.astype(int) - small).mean() < 4
    with pytest.raises(ValueError, match="enlarged"):
        render_far_table(np.random.default_rng(3), 0.6, 60, capture=2)


def _tables(
    factor: float, n: int, seed: int, card_width: float | None = None
) -> list[tuple[np.ndarray, list]]:
    """Tables seen ``factor`` times nearer; ``card_width`` (px before the factor): one
    camera's card size, random 34–100 a table otherwise."""
    rng = np.random.default_rng(seed)
    render = render_near_table if factor >= 1 else render_far_table
    tables = []
    while len(tables) < n:
        table = render(rng, factor, card_width)
        if table is not None:
            tables.append(table)
    return tables


def test_ruling_vis11_a_low_camera_measures_its_card_scale_and_reads_its_cards() -> None:
    """VIS-11: tables seen from 2.5 times nearer than learnt (one camera: every card 167 px
    wide). The plain reader reads few of their cards; the scaled reader measures a shrink
    near 1/2.5 on its first frames and then, detecting once per frame, reads most of them. A
    camera at the learnt height keeps 1."""
    plain = CardReader()
    near = _tables(2.5, 10, SEED, 67)
    scaled = ScaledReader(plain)
    for photo, _ in near[:PROBE_FRAMES]:
        scaled(photo)
    assert scaled.card_scale is not None and 0.3 <= scaled.card_scale.scale <= 0.6
    rest = near[PROBE_FRAMES:]
    faces = sum(len(truth) for _, truth in rest)
    as_is = sum(cards_read_right(plain(photo), truth) for photo, truth in rest)
    shrunk = sum(cards_read_right(scaled(photo), truth) for photo, truth in rest)
    assert shrunk >= 0.6 * faces and shrunk >= as_is + 0.3 * faces, (shrunk, as_is, faces)

    level = ScaledReader(plain)
    for photo, _ in _tables(1.0, 8, SEED + 1):
        level(photo)
        if not level.measuring:
            break
    assert level.card_scale is not None and level.card_scale.scale == 1.0


def test_ruling_vis11_a_high_camera_finds_its_small_cards_on_enlarged_tiles() -> None:
    """VIS-11: tables seen from twice as far as learnt (one camera: every card 25 px wide).
    The scaled reader measures cards under SMALL_CARDS, switches to the four enlarged tiles
    and reads clearly more of them than the plain reader."""
    plain = CardReader()
    far = _tables(0.5, 14, SEED + 5, 50)
    scaled = ScaledReader(plain)
    probed = 0
    while scaled.measuring and probed < 6:  # small cards are found less: it may take longer
        scaled(far[probed][0])
        probed += 1
    assert scaled.card_scale is not None and scaled.card_scale.scale == round(ENLARGE, 3)
    rest = far[probed:]
    faces = sum(len(truth) for _, truth in rest)
    as_is = sum(cards_read_right(plain(photo), truth) for photo, truth in rest)
    tiled = sum(cards_read_right(scaled(photo), truth) for photo, truth in rest)
    assert tiled >= 0.75 * faces and tiled >= as_is + 0.25 * faces, (tiled, as_is, faces)


def test_ruling_vis11_a_high_cameras_first_frames_are_read_on_the_tiles_too() -> None:
    """VIS-11: while the scale is measured, a frame whose zoom passes find only small cards
    (or none) is also read on the enlarged tiles: a high camera's first frames (the start
    card, the first plays) read its small cards, and measure it sooner. A frame of large
    cards is not: on the tiles their big symbols are found as cards."""
    reader = CardReader()
    passes: list[tuple[int, ...]] = []
    detect = reader.detect

    def counted(image: np.ndarray) -> Detections:
        passes.append(image.shape[:2])
        return detect(image)

    reader.detect = counted  # type: ignore[method-assign]
    far, near = _tables(0.5, 6, SEED + 8, 50), _tables(2.5, 3, SEED + 9, 67)
    faces = sum(len(truth) for _, truth in far)
    zoomed = sum(cards_read_right(reader.find(p, zoom_out=PROBE_PASSES), t) for p, t in far)
    passes.clear()
    read = sum(
        cards_read_right(reader.find_any_size(p, PROBE_PASSES, ENLARGE, SMALL_CARDS), t)
        for p, t in far
    )
    assert len(passes) == 7 * len(far)  # as is, shrunk by 2 and 4, four tiles
    assert read >= 0.8 * faces and read >= zoomed + 0.2 * faces, (read, zoomed, faces)
    passes.clear()
    for photo, truth in near:
        assert cards_read_right(
            reader.find_any_size(photo, PROBE_PASSES, ENLARGE, SMALL_CARDS), truth
        )
    assert len(passes) == 3 * len(near)  # large cards: no tiles


def test_ruling_vis11_a_camera_moved_nearer_mid_game_measures_its_scale_again() -> None:
    """VIS-11: a camera measured at the learnt height (cards 60 px wide: scale 1) is moved
    2.5 times nearer, and the game goes on (each table seen for 10 frames). Its rechecks read
    cards larger than measured, so it measures again, shrinks the frames, and reads the last
    tables far better than the frames as they are."""
    rng = np.random.default_rng(SEED + 7)
    reader = ScaledReader(CardReader())
    while reader.measuring:
        table = render_near_table(rng, 1.0, card_width=60)
        if table is not None:
            reader(table[0])
    assert reader.card_scale is not None and reader.card_scale.scale == 1.0
    moved = [t for t in (render_near_table(rng, 2.5, card_width=60) for _ in range(14)) if t]
    for photo, _ in moved[:8]:
        for _ in range(10):
            reader(photo)
    assert reader.drifts == 1 and reader.card_scale is not None
    assert 0.3 <= reader.card_scale.scale <= 0.6
    plain, last = CardReader(), moved[8:]
    faces = sum(len(truth) for _, truth in last)
    as_is = sum(cards_read_right(plain(photo), truth) for photo, truth in last)
    read = sum(cards_read_right(reader(photo), truth) for photo, truth in last)
    assert read >= as_is + 0.3 * faces, (read, as_is, faces)


def test_the_readers_scale_setting_is_the_scaled_readers_fixed_scale() -> None:
    photo, _ = _tables(2.5, 1, SEED + 2)[0]
    fixed = ScaledReader(CardReader(), scale=0.4)(photo)
    configured = CardReader(config=ReaderConfig(scale=0.4))(photo)
    assert len(configured) > 0
    np.testing.assert_allclose(configured.obb, fixed.obb)
    assert configured.value.tolist() == fixed.value.tolist()


def test_vision_watch_says_the_card_scale_it_measured(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "frames"
    folder.mkdir()
    for i, (photo, _) in enumerate(_tables(2.5, PROBE_FRAMES + 1, SEED + 3)):
        for still in range(4):  # a table changing at every frame is all motion: not read
            cv2.imwrite(str(folder / f"{i:03d}_{still}.png"), photo)
    zones = tmp_path / "zones.json"
    TableLayout([rectangle("discard_1", ZoneKind.DISCARD, (0.2, 0.2, 0.8, 0.8))]).save(zones)
    args = ["vision", "watch", "--game", "deck-dash", "--zones", str(zones), str(folder)]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "tabletop vision watch: card scale 0." in err and "measured)" in err

    assert main([*args, "--card-scale", "1"]) == 0  # set: nothing measured, nothing said
    assert "card scale" not in capsys.readouterr().err


def test_vision_watch_says_when_the_cards_change_size_and_the_new_scale(
    tmp_path: Path, capsys
) -> None:
    """A camera 2.5 times nearer than learnt, then moved back up mid-recording: the watcher
    says the scale it measured, that the cards changed size, and the scale measured anew."""
    folder = tmp_path / "frames"
    folder.mkdir()
    near = _tables(2.5, PROBE_FRAMES + 1, SEED + 8, 60)
    level = _tables(1.0, 24, SEED + 9, 60)
    for i, (photo, _) in enumerate(near + level):
        for still in range(4):
            cv2.imwrite(str(folder / f"{i:03d}_{still}.png"), photo)
    zones = tmp_path / "zones.json"
    TableLayout([rectangle("discard_1", ZoneKind.DISCARD, (0.2, 0.2, 0.8, 0.8))]).save(zones)
    args = ["vision", "watch", "--game", "deck-dash", "--zones", str(zones), str(folder)]
    assert main(args) == 0
    said = [line for line in capsys.readouterr().err.splitlines() if "card" in line]
    assert len(said) == 3, said
    assert said[0].startswith("tabletop vision watch: card scale 0.")
    assert said[1].endswith(
        "the cards changed size (was the camera moved?): measuring the card scale again"
    )
    assert said[2].startswith("tabletop vision watch: card scale 1 (cards ")


@pytest.mark.parametrize("given", ["0", "-0.5", "1.7", "nan", "big"])
def test_a_card_scale_out_of_range_is_refused_before_anything_loads(given: str, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["vision", "watch", "--game", "dos", "--zones", "z.json", "x", "--card-scale", given])
    assert stop.value.code == 2
    assert "--card-scale" in capsys.readouterr().err


def test_the_card_scale_in_the_config_file_is_checked() -> None:
    from web.config import ConfigError, from_mapping

    assert from_mapping({"card_scale": "auto"}).card_scale is None
    assert from_mapping({"card_scale": "Auto"}).card_scale is None  # as --card-scale takes it
    assert from_mapping({"card_scale": 0.5}).card_scale == 0.5
    for bad in (0, 1.7, "half", True):
        with pytest.raises(ConfigError, match="card_scale"):
            from_mapping({"card_scale": bad})


def test_the_camera_referee_shares_one_measured_scale_and_says_it_on_its_status() -> None:
    from web.services.referee_camera import ModelDetectors

    models = ModelDetectors()
    assert models.scale_status() == {
        "measuring": False,
        "fixed": False,
        "scale": None,
        "drifts": 0,
    }
    detect = models("deck-dash")
    assert models.scale_status()["measuring"] is True
    for photo, _ in _tables(2.5, PROBE_FRAMES, SEED + 4):
        detect(photo)
    status = models.scale_status()
    assert status["measuring"] is False and status["fixed"] is False and status["drifts"] == 0
    assert 0.3 <= status["scale"] <= 0.6 and status["cards"] >= PROBE_CARDS
    models("dos")  # the same camera: another game reads through the same scale
    assert models._readers["dos"].camera is models._readers["deck-dash"].camera
    models.reset_scale()  # new zones saved
    assert models.scale_status()["measuring"] is True

    fixed = ModelDetectors(card_scale=0.5)
    assert fixed.scale_status() == {"measuring": False, "fixed": True, **SET_HALF}
    fixed("dos")
    fixed.reset_scale()
    assert fixed.scale_status()["scale"] == 0.5


def test_serve_takes_the_card_scale_from_its_option_or_the_config(tmp_path: Path) -> None:
    from referee.cli import build_parser
    from web.app import create_app
    from web.commands import FROM_CONFIG
    from web.config import WebConfig

    parser = build_parser()
    assert parser.parse_args(["serve", "--card-scale", "0.5"]).card_scale == 0.5
    assert parser.parse_args(["serve", "--card-scale", "auto"]).card_scale is None
    assert parser.parse_args(["serve"]).card_scale is FROM_CONFIG  # the config file decides

    folder = tmp_path / "camera"
    folder.mkdir()
    cv2.imwrite(str(folder / "000.png"), np.zeros((480, 640, 3), np.uint8))
    app = create_app(WebConfig(db_path=tmp_path / "t.db", camera=str(folder), card_scale=0.5))
    services = app.extensions["tabletop"]
    try:
        assert services.referee.status()["card_scale"] == {
            "measuring": False,
            "fixed": True,
            **SET_HALF,
        }
    finally:
        services.camera.close()
