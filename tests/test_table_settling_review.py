"""When a pile's reading settles, and with what time (TBL-1, TBL-10; the review's cases).

A hand over the pile before a new card settled used to throw its first-seen time away: the
card was stamped with the first clear frame after the hands, so in Hit the Deck every pad
slap was "before the card". And with the motion gate closed the watcher re-fed its last
detection every frame, so one missed or misread detection, frozen in place, settled the
pile on its own. Frames are synthetic and times injected: nothing sleeps.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from referee.events import Event, Source
from referee.registry import find_game
from referee.replay import replay
from referee.replay_cli import read_jsonl
from vision.table.frames import Frame
from vision.table.stability import Observation, StabilityTracker, ZoneReading
from vision.table.to_events import EventMapper
from vision.table.watcher import Sighting, TableWatcher
from vision.table.zones import TableLayout, ZoneKind, rectangle

MS = 1_000_000
S = 1_000 * MS
FRAME_NS = 33_333_333  # 30 FPS
PILE, DRAW = "discard_1", "draw_pile"
BOX = (0.42, 0.42, 0.58, 0.58)
HANDS = {PILE: ZoneReading((), 0.0, occluded=True)}
SCENARIO = Path(__file__).parent / "data" / "htd" / "rule_hand_race.jsonl"


def clear(card: str) -> dict[str, ZoneReading]:
    return {PILE: ZoneReading((card,), 0.95)}


def feed(tracker: StabilityTracker, frames: list[tuple[int, dict]]) -> list[Observation]:
    out = []
    for t_ns, readings in frames:
        out += tracker.update(t_ns, readings)
    return out


def at_10_fps(start_ms: int, readings: dict, n: int) -> list[tuple[int, dict]]:
    """``n`` frames of ``readings`` 100 ms apart (the dashboard's feed) from ``start_ms``."""
    return [((start_ms + 100 * k) * MS, readings) for k in range(n)]


def test_ruling_tbl13_a_card_covered_before_it_settled_keeps_the_time_it_was_first_seen():
    """Bob's Hand card lies clear at 10.0 and 10.1 s, the others' hands are over the pile
    from 10.2 to 10.5 s: the card still settles only after 3 clear frames, but with the
    time it was first seen. A different card seen after the hands is timed when it appears."""
    tracker = StabilityTracker()
    tracker.committed[PILE] = ("R5",)
    frames = at_10_fps(10_000, clear("HAND"), 2) + at_10_fps(10_200, HANDS, 4)
    (obs,) = feed(tracker, frames + at_10_fps(10_600, clear("HAND"), 4))
    assert (obs.after, obs.t_ns, obs.confirmed_ns) == (("HAND",), 10 * S, 10_800 * MS)
    assert not obs.after_gap and obs.event_t_ns == 10 * S

    tracker = StabilityTracker()
    tracker.committed[PILE] = ("R5",)
    (obs,) = feed(tracker, frames + at_10_fps(10_600, clear("G5"), 4))
    assert (obs.after, obs.t_ns) == (("G5",), 10_600 * MS)


def test_ruling_tbl13_a_card_taken_back_under_a_hand_and_played_again_gets_its_new_time():
    """The covered card kept its time; seen clear as it was (R5 again), it is gone, and a
    Hand card put down later starts its own time."""
    tracker = StabilityTracker()
    tracker.committed[PILE] = ("R5",)
    frames = at_10_fps(10_000, clear("HAND"), 2) + at_10_fps(10_200, HANDS, 2)
    frames += at_10_fps(10_400, clear("R5"), 3) + at_10_fps(10_700, HANDS, 2)
    frames += at_10_fps(10_900, clear("HAND"), 4)
    (obs,) = feed(tracker, frames)
    assert (obs.after, obs.t_ns) == (("HAND",), 10_900 * MS)
    # … and while the hands are over it, the pending card keeps the time it was first seen
    tracker = StabilityTracker()
    tracker.committed[PILE] = ("R5",)
    frames = at_10_fps(10_000, clear("HAND"), 1) + at_10_fps(10_100, HANDS, 3)
    (obs,) = feed(tracker, frames + at_10_fps(10_400, clear("HAND"), 3))
    assert obs.t_ns == 10 * S


def test_ruling_tbl10_a_pending_card_the_camera_did_not_see_settle_across_a_gap_has_no_time():
    """A gap (the camera dropped, TBL-10) drops the pending reading, covered or not: seen
    again after it, the card is first seen after the gap and proposed untimed."""
    for between in ([], at_10_fps(10_100, HANDS, 2)):
        tracker = StabilityTracker()
        tracker.committed[PILE] = ("R5",)
        frames = at_10_fps(10_000, clear("HAND"), 1) + between
        (obs,) = feed(tracker, frames + at_10_fps(14_000, clear("HAND"), 4))
        assert obs.after == ("HAND",) and obs.after_gap and obs.event_t_ns is None, between


def hit_the_deck_penalties(card_ns: int | None) -> list[tuple[str, int]]:
    """Ann, Bob and Cat; Bob's Hand card, slapped on the pads at 10.25 s (Cat), 10.3 s (Ann)
    and 10.45 s (Bob), the slaps reported before the camera's card. As (kind, seat)."""
    _, players, options, events = read_jsonl(SCENARIO, None)
    upto = next(i for i, e in enumerate(events) if e.kind == "play" and e.seat == 1)
    slaps = [
        Event("slap", seat, t_ns=t * MS, source=Source.PAD)
        for seat, t in ((2, 10_250), (0, 10_300), (1, 10_450))
    ]
    hand = Event("play", 1, {"card": "HAND"}, card_ns, Source.CAMERA)
    result = replay(find_game("hit-the-deck"), players, options, [*events[:upto], *slaps, hand])
    return sorted((v.data["penalty"], v.seat) for _, v in result.verdicts if v.data.get("penalty"))


def test_ruling_tbl13_a_hand_card_slapped_before_it_settled_penalises_only_the_last():
    """The review's case through the watcher and the mapper: the hands slapping the pile
    (an unreadable box over it, TBL-1) from 10.2 to 10.5 s. The camera's play carries
    10.0 s, so only Bob, last, pays; stamped 10.6 s every seat was faked out."""
    layout = TableLayout((rectangle(PILE, ZoneKind.DISCARD, (0.4, 0.4, 0.6, 0.6)),))
    hands = Sighting("other", 0.1, (0.35, 0.35, 0.65, 0.65), occluder=True)
    now = {"ms": 0}

    def detect(image: np.ndarray) -> list[Sighting]:
        if now["ms"] < 10_000:
            return [Sighting("R5", 0.95, BOX)]
        return [hands] if 10_200 <= now["ms"] <= 10_500 else [Sighting("HAND", 0.95, BOX)]

    watcher = TableWatcher(detect, layout, gate=None)
    watcher.tracker.committed[PILE] = ("R5",)
    seen = []
    for k, ms in enumerate(range(9_000, 11_500, 100)):
        now["ms"] = ms
        seen += watcher.process(Frame(np.zeros((60, 80, 3), np.uint8), ms * MS, k))
    (obs,) = seen
    (play,) = EventMapper("hit-the-deck", layout).propose(obs, seat=1)
    assert (play.kind, play.payload, play.t_ns) == ("play", {"card": "HAND"}, 10 * S)
    assert hit_the_deck_penalties(play.t_ns) == [("last_slap", 1)]


def test_ruling_tbl1_frames_repeating_one_detection_do_not_settle_it():
    """Frames the watcher re-feeds from one detector run add time, not agreement: a missed
    card (the pile read empty once) settles only when a second run reads it too."""
    tracker = StabilityTracker()
    tracker.committed[PILE] = ("R7",)
    empty = {PILE: ZoneReading(())}
    out = tracker.update(0, empty)
    for k in range(1, 30):
        out += tracker.update(k * FRAME_NS, empty, fresh=False)
    assert out == [] and tracker.unconfirmed() == {PILE}
    (obs,) = tracker.update(30 * FRAME_NS, empty)
    assert (obs.before, obs.after, obs.t_ns) == (("R7",), (), 0)
    assert tracker.unconfirmed() == set()


# --- the watcher with its real motion gate, on painted frames --------------------------------
GREY = {100: "G7", 180: "R7"}  # the pile's grey level: the card lying there


def picture(pile: int, draw: int = 60) -> np.ndarray:
    """The pile and the draw pile painted a grey level each (the gate sees them change)."""
    image = np.full((120, 160, 3), 40, np.uint8)
    image[48:72, 64:96] = pile
    image[6:30, 8:40] = draw
    return image


class Detector:
    """Reads the pile's card from its grey level; on its n-th run answers ``glitches[n]``
    instead (a card missed in glare, a blurred frame misread)."""

    def __init__(self, glitches: dict[int, list[Sighting]]) -> None:
        self.glitches = glitches
        self.calls = 0

    def __call__(self, image: np.ndarray) -> Sequence[Sighting]:
        self.calls += 1
        if self.calls in self.glitches:
            return self.glitches[self.calls]
        card = GREY.get(int(image[60, 80, 0]))
        return [Sighting(card, 0.95, BOX)] if card else []


def watch(detector: Detector, pictures: list[np.ndarray]) -> list[Observation]:
    layout = TableLayout(
        (
            rectangle(PILE, ZoneKind.DISCARD, (0.4, 0.4, 0.6, 0.6)),
            rectangle(DRAW, ZoneKind.DRAW_PILE, (0.05, 0.05, 0.25, 0.25)),
        )
    )
    watcher = TableWatcher(detector, layout)
    out = []
    for k, image in enumerate(pictures):
        out += watcher.process(Frame(image, k * FRAME_NS, k))
    assert watcher.stats.detections_run == detector.calls
    return out


def test_ruling_tbl1_one_missed_detection_does_not_empty_the_pile_or_play_the_card_twice():
    """R7 lies on the pile; the draw pile changes, and the last of the three runs that read
    the change misses R7 (glare). The picture then holds still: that empty reading was
    re-fed until the pile settled empty, and the next change read R7 again, a second play
    of the same card. Now the disagreement is read once more (1 run), and nothing else."""
    pictures = [picture(100)] * 10 + [picture(180)] * 10  # G7, then R7 played on it
    pictures += [picture(180, draw=90)] * 20 + [picture(180, draw=120)] * 20  # draws
    detector = Detector({9: []})  # runs 7–9 read the first draw; the 9th misses R7
    seen = watch(detector, pictures)
    assert [(o.before, o.after) for o in seen] == [((), ("G7",)), (("G7",), ("R7",))]
    assert detector.calls == 3 + 3 + 4 + 3  # each change read 3 times; the miss once more


@pytest.mark.parametrize(
    "misreads, runs",
    [
        ({6: [Sighting("R1", 0.90, BOX)]}, 8),  # the review's case: one blurred frame
        ({6: [Sighting("R1", 0.90, BOX)], 8: [Sighting("R1", 0.90, BOX)]}, 10),  # flicker
    ],
)
def test_ruling_tbl1_one_blurred_misread_does_not_decide_the_card(
    misreads: dict[int, list[Sighting]], runs: int
) -> None:
    """G7, then Ana's hand lays R7: the runs after the pile holds still read R7, R7 and
    (blurred) R1. That R1 was re-fed until it settled as the card. Now the watcher reads
    the pile again while its runs disagree, and R7 settles once two runs in a row read it."""
    pictures = [picture(100)] * 10 + [picture(140)] + [picture(180)] * 30
    detector = Detector(misreads)
    seen = watch(detector, pictures)
    assert [(o.before, o.after) for o in seen] == [((), ("G7",)), (("G7",), ("R7",))]
    assert detector.calls == runs  # 3 for G7, 3 for R7, and 2 more per misread
