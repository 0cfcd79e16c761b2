"""TBL-10: a change the camera did not see happen carries no time.

A camera that drops and comes back (or a watcher that stalls) sees the table again seconds
later; a card played meanwhile must not be stamped with the frame it is first seen in: in
Hit the Deck the Hand card's time starts the slap race, and pads stamp slaps at their real
time, so a late card would make every slap a fake-out (HTD-15) and every seat last.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from referee.events import Event, Source
from referee.registry import find_game
from referee.replay import replay
from referee.replay_cli import read_jsonl
from tests.test_web_camera_referee import FPS, PaintedPile, camera_events, watch_to_the_end
from tests.test_web_camera_referee import zones_doc as web_zones_doc
from tests.test_web_routes import Tablet, make_app
from vision.table import stability
from vision.table.frames import CameraError, Frame, ReconnectingSource
from vision.table.stability import Observation, StabilityTracker, ZoneReading
from vision.table.to_events import EventMapper
from vision.table.watcher import Sighting, TableWatcher
from vision.table.zones import TableLayout, ZoneKind, rectangle
from web.services.referee_camera import FeedSource

MS = 1_000_000
S = 1_000 * MS
FRAME_NS = 33_333_333  # 30 FPS
PILE = "discard_1"
LAYOUT = TableLayout((rectangle(PILE, ZoneKind.DISCARD, (0.4, 0.4, 0.6, 0.6)),))
SCENARIO = Path(__file__).parent / "data" / "htd" / "rule_hand_race.jsonl"


def clear(card: str) -> dict[str, ZoneReading]:
    return {PILE: ZoneReading((card,), 0.95)}


HANDS = {PILE: ZoneReading((), 0.0, occluded=True)}


def feed(tracker: StabilityTracker, start_ns: int, frames: list[dict]) -> list[Observation]:
    """``frames`` at 30 FPS from ``start_ns``; the observations they settle."""
    out = []
    for k, readings in enumerate(frames):
        out += tracker.update(start_ns + k * FRAME_NS, readings)
    return out


def outage(down_ns: int = 4 * S, after: list[dict] | None = None) -> tuple[list[Observation], int]:
    """R5 on the pile for a second up to ~9.97 s, the camera down for ``down_ns``; then
    ``after`` (default: the Hand card, clear). Returns the observations and when the camera
    came back."""
    tracker = StabilityTracker()
    tracker.committed[PILE] = ("R5",)
    assert feed(tracker, 9 * S, [clear("R5")] * 30) == []
    back = 9 * S + 29 * FRAME_NS + down_ns
    return feed(tracker, back, after or [clear("HAND")] * 6), back


def test_ruling_tbl10_a_card_first_seen_after_a_gap_has_no_time():
    """The reviewer's case: the last frame before the drop at 9.97 s, back 4 s later. The
    observation still says when it was first seen, but marks the gap; the play event the
    mapper proposes has no ``t_ns``."""
    (obs,), back = outage()
    assert (obs.before, obs.after, obs.t_ns) == (("R5",), ("HAND",), back)
    assert obs.after_gap and obs.event_t_ns is None and obs.to_dict()["after_gap"] is True
    (play,) = EventMapper("hit-the-deck", LAYOUT).propose(obs, seat=1)
    assert play == Event("play", 1, {"card": "HAND"}, None, Source.CAMERA)


def test_ruling_tbl10_hands_over_the_pile_after_the_gap_do_not_give_the_card_a_time():
    """Back while everyone slaps the pile (the card landed in the gap): the pile is first
    seen clear frames later; a blurred misread between does not give the card a time either.
    Once the pile has settled again, the next play is timed as usual."""
    after = [HANDS] * 5 + [clear("HAND")] + [clear("G5")] + [clear("HAND")] * 6
    (obs,), _ = outage(after=after)
    assert obs.after == ("HAND",) and obs.after_gap and obs.event_t_ns is None
    tracker = StabilityTracker()
    tracker.committed[PILE] = ("R5",)
    feed(tracker, 0, [clear("R5")] * 10)
    feed(tracker, 10 * FRAME_NS + 2 * S, [HANDS] * 3 + [clear("HAND")] * 6)
    t0 = 19 * FRAME_NS + 2 * S
    (nxt,) = feed(tracker, t0, [HANDS] * 3 + [clear("B2")] * 6)
    assert nxt.after == ("B2",) and not nxt.after_gap and nxt.event_t_ns == t0 + 3 * FRAME_NS


def test_ruling_tbl10_frames_a_little_late_keep_their_time():
    """Frames as far apart as a slow reader takes (a skipped frame at the dashboard's 10 FPS,
    200 ms; a Raspberry Pi reading a frame in 300–500 ms) are no gap: the card keeps the
    capture time of the first frame showing it. Nor is a gap after which the pile was seen
    unchanged before the card came."""
    most = stability.MAX_GAP_NS
    assert most == 1000 * MS
    for down, untimed in ((200 * MS, False), (500 * MS, False), (most, False), (most + 1, True)):
        (obs,), back = outage(down_ns=down)
        assert (obs.after_gap, obs.event_t_ns) == (untimed, None if untimed else back), down
    (obs,), back = outage(after=[clear("R5")] * 2 + [clear("HAND")] * 6)
    assert not obs.after_gap and obs.event_t_ns == back + 2 * FRAME_NS


def hit_the_deck_penalties(card_ns: int | None) -> list[tuple[str, int]]:
    """Ann, Bob and Cat; Bob plays a Hand card at 10 s and they slap at 10.15, 10.2 and
    10.4 s (pads, real times), reported before the camera's card, whose time is
    ``card_ns``. The penalties the referee gives, as (kind, seat)."""
    _, players, options, events = read_jsonl(SCENARIO, None)
    upto = next(i for i, e in enumerate(events) if e.kind == "play" and e.seat == 1)
    slaps = [Event("slap", s, t_ns=t, source=Source.PAD) for s, t in ((2, 10_150), (0, 10_200))]
    slaps.append(Event("slap", 1, t_ns=10_400, source=Source.PAD))
    slaps = [Event(e.kind, e.seat, t_ns=e.t_ns * MS, source=e.source) for e in slaps]
    hand = Event("play", 1, {"card": "HAND"}, card_ns, Source.CAMERA)
    result = replay(find_game("hit-the-deck"), players, options, [*events[:upto], *slaps, hand])
    return sorted((v.data["penalty"], v.seat) for _, v in result.verdicts if v.data.get("penalty"))


def test_ruling_tbl10_a_hand_card_played_while_the_camera_was_down_penalises_only_the_last():
    """The event the camera sends for a Hand card seen after the outage: no time, so the
    first slap stands in for the card (HTD-14) and Bob, last, draws 4. Stamped with the
    frame the camera came back in, every seat would have been faked out."""
    (obs,), back = outage()
    (play,) = EventMapper("hit-the-deck", LAYOUT).propose(obs, seat=1)
    assert hit_the_deck_penalties(play.t_ns) == [("last_slap", 1)]
    assert hit_the_deck_penalties(back) == [("fake_out", 0), ("fake_out", 1), ("fake_out", 2)]


class FlakyCamera:
    """Two frames, then the cable is pulled; frames keep the 30 FPS clock."""

    clock = 0

    def __init__(self) -> None:
        self.left = 2

    def read(self) -> Frame:
        if self.left == 0:
            raise CameraError("cable pulled")
        self.left -= 1
        FlakyCamera.clock += FRAME_NS
        return Frame(np.zeros((60, 80, 3), np.uint8), FlakyCamera.clock, 0)

    def close(self) -> None:
        pass


def test_ruling_tbl10_a_reconnect_marks_the_next_frame_and_the_watcher_heeds_it():
    """The source knows when it reconnected, even if the frames' times do not show it: the
    first frame of the reopened camera is ``after_gap``, and a card the watcher first sees
    in it carries no time."""
    FlakyCamera.clock = 0
    source = ReconnectingSource(FlakyCamera, sleep=lambda s: None)
    frames = [source.read() for _ in range(5)]
    assert [f.after_gap for f in frames] == [False, False, True, False, True]
    cards = iter(["R5"] * 10 + ["HAND"] * 10)

    def detect(image: Any) -> list[Sighting]:
        return [Sighting(next(cards), 0.95, (0.42, 0.42, 0.58, 0.58))]

    watcher = TableWatcher(detect, LAYOUT, gate=None)
    watcher.tracker.committed[PILE] = ("R5",)
    seen = []
    for i in range(20):
        frame = Frame(np.zeros((60, 80, 3), np.uint8), i * FRAME_NS, i, after_gap=i == 10)
        seen += watcher.process(frame)
    assert [(o.after, o.after_gap, o.event_t_ns) for o in seen] == [(("HAND",), True, None)]


class StubLiveFeed:
    """What ``FeedSource`` uses of a ``LiveFeed``: subscribe, and its reconnect count (read
    from its reconnecting source, as ``LiveFeed.reconnects`` does)."""

    def __init__(self) -> None:
        self.listener: Any = None
        self._source = ReconnectingSource(FlakyCamera, sleep=lambda s: None)

    @property
    def reconnects(self) -> int:
        return self._source.reconnects

    def subscribe(self, listener: Any) -> Any:
        self.listener = listener
        return lambda: None

    def show(self, t_ns: int) -> None:
        self.listener("image", t_ns)


def test_ruling_tbl10_the_dashboard_feed_passes_a_reconnect_and_a_pause_on():
    """``FeedSource``: the frame after the live feed's camera reconnected is ``after_gap``
    (kept until a frame is read: only the newest is), and so is a frame after ``wait_s``
    without any."""
    live = StubLiveFeed()
    source = FeedSource(live, wait_s=0.05)
    live.show(1)
    assert not source.read().after_gap
    live._source.reconnects += 1  # the camera dropped and came back
    live.show(2)
    live.show(3)  # the newest frame only: the gap stays marked
    frame = source.read()
    assert (frame.t_ns, frame.after_gap) == (3, True)
    live.show(4)
    assert not source.read().after_gap
    later = threading.Timer(0.2, live.show, (5,))
    later.start()
    frame = source.read()  # waits past wait_s: frames paused
    later.join()
    assert (frame.t_ns, frame.after_gap) == (5, True)
    source.close()


class DroppingPile(PaintedPile):
    """PaintedPile whose cable is pulled once before frame ``drop_at``; the camera referee
    reopens it (the same pile) and it carries on, on the same clock."""

    def __init__(self, tops: list[str], drop_at: int) -> None:
        super().__init__(tops)
        self.drop_at = drop_at

    def read(self) -> Frame | None:
        if self.i == self.drop_at:
            self.drop_at = -1
            raise CameraError("cable pulled")
        return super().read()

    def close(self) -> None:
        """The referee closes a lost source before reopening it: this one goes on."""


def watched(tmp_path: Path, pile: PaintedPile) -> tuple[Tablet, int]:
    """Deck Dash, G7 starting the pile, Ana has drawn; ``pile`` is the camera."""
    app = make_app(tmp_path, referee_source=lambda: pile, referee_detector=lambda g: pile.detect)
    tablet = Tablet(app)
    tablet.set_pin()
    tablet.services.zones.save(web_zones_doc())
    tablet.services.referee.retry_s = 0.01
    game_id = tablet.new_game("deck-dash", ("Ana", "Bea"))
    deal = {"kind": "deal", "payload": {"dealer": 1, "hands": [12, 12], "start": "G7"}}
    for event in (deal, {"kind": "draw", "seat": 0}):
        assert tablet.send(game_id, event).status_code == 201
    watch_to_the_end(tablet)
    return tablet, game_id


def test_ruling_tbl10_the_camera_referee_sends_a_play_seen_after_a_reconnect_untimed(tmp_path):
    """The dashboard's camera referee reopens a lost source itself (the same watcher goes
    on): R7, first seen in the reopened camera's first frame, is logged without a time;
    seen without the drop it carries the frame's time."""
    tablet, game_id = watched(tmp_path / "drop", DroppingPile(["G7", "R7", "R7"], drop_at=8))
    (play,) = camera_events(tablet, game_id)
    assert play["event"]["payload"] == {"card": "R7"} and "t_ns" not in play["event"]
    assert tablet.services.referee.status()["reconnects"] == 1
    tablet, game_id = watched(tmp_path / "steady", PaintedPile(["G7", "R7", "R7"]))
    (play,) = camera_events(tablet, game_id)
    # R7 is painted from frame 8; that frame moved (TBL-1) and R7 is first seen clear in 9,
    # but the pile departed from G7 in frame 8: the card's time (TBL-20)
    assert play["event"]["t_ns"] == round(8 * 1e9 / FPS)
