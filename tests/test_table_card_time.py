"""A card's time is when its zone first departed from what it showed (TBL-20).

The first frame showing a new card differs from the one before, so the pile counts as moving
(TBL-1) and is read only a frame later: on a Raspberry Pi (2–3 frames a second) 300–500 ms
after the card landed, and in Hit the Deck the others' hands are over the pile by then, so the
first clear frame came after all the slapping and every pad slap was a fake-out. These drive
the real watcher (motion gate included) with painted frames, a fake detector and injected
frame times at 3 frames a second: nothing sleeps.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

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
PI_FRAME_MS = 333  # the watcher's frames on a Raspberry Pi: about 3 a second
PILE = "discard_1"
LAYOUT = TableLayout((rectangle(PILE, ZoneKind.DISCARD, (0.4, 0.4, 0.6, 0.6)),))
BOX = (0.42, 0.42, 0.58, 0.58)
SCENARIO = Path(__file__).parent / "data" / "htd" / "rule_hand_race.jsonl"

# what the painted pile shows, as its grey level (steps of more than the gate's 20 levels)
GREY = {"R5": 100, "HAND": 180}
HANDS = 240  # the others' hands over the pile: the detector sees an unreadable box


def picture(scene: str) -> np.ndarray:
    """The table with the pile showing ``scene``: a card, or ``hands`` over it."""
    image = np.full((120, 160, 3), 40, np.uint8)
    if scene == "hands":
        image[36:84, 52:108] = HANDS
    else:
        image[48:72, 64:96] = GREY[scene]
    return image


def detect(image: np.ndarray) -> Sequence[Sighting]:
    """Reads the pile's card from its grey level; hands are an occluder over it."""
    level = int(image[60, 80, 0])
    if level == HANDS:
        return [Sighting("other", 0.1, (0.3, 0.3, 0.7, 0.7), occluder=True)]
    card = next((c for c, g in GREY.items() if g == level), None)
    return [Sighting(card, 0.95, BOX)] if card else []


def watch(scenes: list[tuple[int, str]], gap_at: int | None = None) -> list[Observation]:
    """The real watcher (its motion gate on) over ``(t_ms, scene)`` frames, R5 settled on
    the pile; the frame at ``gap_at`` ms is marked as the first after a reconnect."""
    watcher = TableWatcher(detect, LAYOUT)
    watcher.tracker.committed[PILE] = ("R5",)
    out = []
    for k, (ms, scene) in enumerate(scenes):
        out += watcher.process(Frame(picture(scene), ms * MS, k, after_gap=ms == gap_at))
    return out


def at_pi_rate(start_ms: int, scene: str, n: int) -> list[tuple[int, str]]:
    return [(start_ms + PI_FRAME_MS * k, scene) for k in range(n)]


def hit_the_deck_penalties(card_ns: int | None, slaps_ms: dict[int, int]) -> list[tuple]:
    """Ann, Bob and Cat; Bob's Hand card, slapped on the pads at ``slaps_ms`` (seat: ms),
    the slaps reported before the camera's card. The penalties, as (kind, seat)."""
    _, players, options, events = read_jsonl(SCENARIO, None)
    upto = next(i for i, e in enumerate(events) if e.kind == "play" and e.seat == 1)
    slaps = [Event("slap", s, t_ns=t * MS, source=Source.PAD) for s, t in slaps_ms.items()]
    hand = Event("play", 1, {"card": "HAND"}, card_ns, Source.CAMERA)
    result = replay(find_game("hit-the-deck"), players, options, [*events[:upto], *slaps, hand])
    return sorted((v.data["penalty"], v.seat) for _, v in result.verdicts if v.data.get("penalty"))


def test_ruling_tbl20_a_hand_card_under_the_hands_by_the_next_frame_penalises_only_the_last():
    """Bob's Hand card lands at 10.0 s; the watcher's next frame (10.1 s) shows it but moving,
    and the one after (10.433 s) the others' hands over the pile. They slap the pads at +200,
    +300 and +450 ms. The first clear frame after the hands came at 11.433 s: stamped then,
    every slap was a fake-out. Stamped 10.1 s, only Bob, last, draws 4."""
    scenes = at_pi_rate(9_100, "R5", 3) + [(10_100, "HAND")] + at_pi_rate(10_433, "hands", 2)
    scenes += at_pi_rate(11_100, "HAND", 5)
    (obs,) = watch(scenes)
    assert (obs.after, obs.t_ns, obs.event_t_ns) == (("HAND",), 10_100 * MS, 10_100 * MS)
    (play,) = EventMapper("hit-the-deck", LAYOUT).propose(obs, seat=1)
    assert (play.kind, play.payload, play.t_ns) == ("play", {"card": "HAND"}, 10_100 * MS)
    slaps = {2: 10_200, 0: 10_300, 1: 10_450}
    assert hit_the_deck_penalties(play.t_ns, slaps) == [("last_slap", 1)]


def test_ruling_tbl20_a_card_appearing_cleanly_is_stamped_with_the_frame_it_first_appeared_in():
    """The frame a card first shows in moved (TBL-1): it is read a frame later, but carries
    the first frame's time."""
    (obs,) = watch(at_pi_rate(9_000, "R5", 3) + at_pi_rate(10_000, "HAND", 5))
    assert (obs.after, obs.t_ns, obs.event_t_ns) == (("HAND",), 10_000 * MS, 10_000 * MS)


def test_ruling_tbl20_a_hand_passing_over_an_unchanged_pile_does_not_time_a_later_card():
    """A hand passes over the pile at 9.333 s and R5 is seen clear again: nothing was played,
    so the Hand card laid at 11.0 s is timed from its own frame, not the hand's."""
    scenes = at_pi_rate(9_000, "R5", 1) + at_pi_rate(9_333, "hands", 2)
    scenes += at_pi_rate(10_000, "R5", 3) + at_pi_rate(11_000, "HAND", 5)
    (obs,) = watch(scenes)
    assert (obs.after, obs.t_ns) == (("HAND",), 11_000 * MS)


def test_ruling_tbl20_a_card_first_seen_after_a_gap_stays_untimed_and_the_next_one_is_timed():
    """A hand over the pile at 9.333 s, then the camera is down until 12.0 s (a reconnect):
    the Hand card seen then has no time (TBL-10), not the hand's. Seen clear after the gap,
    the pile's next card is timed from the frame it appeared in."""
    scenes = at_pi_rate(9_000, "R5", 1) + at_pi_rate(9_333, "hands", 1)
    (obs,) = watch(scenes + at_pi_rate(12_000, "HAND", 5), gap_at=12_000)
    assert obs.after == ("HAND",) and obs.after_gap and obs.event_t_ns is None
    scenes += at_pi_rate(12_000, "R5", 3) + at_pi_rate(13_000, "HAND", 5)
    (obs,) = watch(scenes, gap_at=12_000)
    assert (obs.after, obs.after_gap, obs.event_t_ns) == (("HAND",), False, 13_000 * MS)


def test_a_gap_by_the_frame_times_alone_drops_the_departure_too():
    """Frames 4 s apart (a stalled watcher, no reconnect mark): the card is untimed."""
    scenes = at_pi_rate(9_000, "R5", 1) + at_pi_rate(9_333, "hands", 1)
    (obs,) = watch(scenes + at_pi_rate(13_333, "HAND", 5))
    assert obs.after == ("HAND",) and obs.after_gap and obs.event_t_ns is None


def test_ruling_tbl20_a_hand_hovering_long_before_the_card_leaves_the_card_untimed():
    """A hand hovers over the pile from 8.0 s (a player thinking), and the Hand card is seen
    clear only at 10.6 s: how early it landed is unknown, and stamped 8.0 s the slaps 2.9 s
    and more after it would fall outside the 3 s window (everyone "missed", HTD-13). Further
    back than 1.5 s the departure tells no time: the card is untimed, the first slap stands in
    (HTD-14), and only the last slapper draws 4."""
    scenes = at_pi_rate(7_000, "R5", 3) + at_pi_rate(8_000, "hands", 8)
    scenes += at_pi_rate(10_666, "HAND", 5)
    (obs,) = watch(scenes)
    assert obs.after == ("HAND",) and obs.event_t_ns is None
    slaps = {2: 10_900, 0: 11_050, 1: 11_200}
    assert hit_the_deck_penalties(obs.event_t_ns, slaps) == [("last_slap", 1)]
    assert hit_the_deck_penalties(8_000 * MS, slaps) != [("last_slap", 1)]


# --- the tracker on its own, timing from departures ----------------------------------------
def clear(card: str) -> dict[str, ZoneReading]:
    return {PILE: ZoneReading((card,), 0.95)}


COVERED = {PILE: ZoneReading((), 0.0, occluded=True)}


def departures(frames: list[tuple[int, dict[str, ZoneReading]]]) -> list[Observation]:
    tracker = StabilityTracker()
    tracker.committed[PILE] = ("R5",)
    out = []
    for ms, readings in frames:
        out += tracker.update(ms * MS, readings, from_departure=True)
    return out


def every_100_ms(start_ms: int, readings: dict[str, ZoneReading], n: int) -> list[tuple]:
    return [(start_ms + 100 * k, readings) for k in range(n)]


def test_a_card_taken_back_and_played_under_hands_is_timed_from_the_hands():
    """HAND lies clear, is covered, R5 shows again (taken back): the next departure, hands
    over the pile at 10.7 s, times the Hand card seen at 10.9 s (it may lie under them)."""
    frames = every_100_ms(10_000, clear("HAND"), 2) + every_100_ms(10_200, COVERED, 2)
    frames += every_100_ms(10_400, clear("R5"), 3) + every_100_ms(10_700, COVERED, 2)
    (obs,) = departures(frames + every_100_ms(10_900, clear("HAND"), 4))
    assert (obs.after, obs.t_ns) == (("HAND",), 10_700 * MS)


def test_a_different_card_after_a_card_read_for_sure_is_timed_after_it():
    """HAND read by two runs at 10.0 and 10.1 s, then hands, then G5: G5 was not there at
    10.1 s, so it is timed from the hands (10.2 s), not from HAND's 10.0 s; the covered HAND
    seen again keeps 10.0 s."""
    frames = every_100_ms(10_000, clear("HAND"), 2) + every_100_ms(10_200, COVERED, 4)
    (obs,) = departures(frames + every_100_ms(10_600, clear("G5"), 4))
    assert (obs.after, obs.t_ns) == (("G5",), 10_200 * MS)
    (obs,) = departures(frames + every_100_ms(10_600, clear("HAND"), 4))
    assert (obs.after, obs.t_ns) == (("HAND",), 10_000 * MS)


def test_one_misread_run_does_not_move_a_cards_time():
    """HAND read by two runs from 10.0 s, one blurred run reads R1, then HAND again: HAND
    keeps 10.0 s (one run is no evidence it was gone)."""
    frames = every_100_ms(10_000, clear("HAND"), 2) + [(10_200, clear("R1"))]
    (obs,) = departures(frames + every_100_ms(10_300, clear("HAND"), 4))
    assert (obs.after, obs.t_ns) == (("HAND",), 10_000 * MS)


def test_ruling_tbl20_a_card_two_runs_agreed_on_keeps_its_time_after_a_misread_and_long_hands():
    """A card two detector runs agreed on has a known time: one blurred misread and then
    hands on the pile for 2 s do not make it untimed (the 1.5 s bound is for a departure
    of unknown timing only; review of day 31)."""
    ms = MS
    first, card, blur = ZoneReading(("R5",)), ZoneReading(("HAND",)), ZoneReading(("G6",), 0.5)
    hands = ZoneReading((), 0.0, occluded=True)
    tracker = StabilityTracker()
    out: list[Observation] = []
    frames = [first] * 4 + [hands, card, card, blur] + [hands] * 20 + [card] * 4
    for k, reading in enumerate(frames):
        out += tracker.update(k * 100 * ms, {PILE: reading}, from_departure=True)
    assert [(o.after, o.event_t_ns) for o in out] == [(("R5",), 0), (("HAND",), 400 * ms)]


def test_ruling_tbl1_the_settle_window_counts_from_the_first_clear_frame() -> None:
    """A card's *time* is its pile's departure (TBL-20), but the 80 ms it must hold counts
    from the first frame it was read in: counted from the departure, a card laid under a hand
    and taken back after 3 clear frames at 30 fps (67 ms) settled as a play nobody made
    (bench.table videos: 2 spurious plays in 3 videos)."""
    frame_ns = 33_333_333
    tracker = StabilityTracker(committed={PILE: ("Y4",)})
    hand = ZoneReading((), occluded=True)
    frames = [hand] * 5 + [ZoneReading(("D2D1",))] * 3 + [hand] * 3 + [ZoneReading(("Y4",))] * 6
    settled = [
        obs.after
        for i, reading in enumerate(frames)
        for obs in tracker.update(i * frame_ns, {PILE: reading}, fresh=True, from_departure=True)
    ]
    assert settled == []  # shown for 67 ms, then taken back: the pile still shows Y4
    # held for 80 ms after its first clear frame it settles, timed from the departure
    tracker = StabilityTracker(committed={PILE: ("Y4",)})
    frames = [hand] * 5 + [ZoneReading(("D2D1",))] * 4
    out = [
        (i, obs)
        for i, reading in enumerate(frames)
        for obs in tracker.update(i * frame_ns, {PILE: reading}, fresh=True, from_departure=True)
    ]
    assert [(i, obs.after, obs.t_ns) for i, obs in out] == [(8, ("D2D1",), 0)]
