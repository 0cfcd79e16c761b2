"""Review 34, Hit the Deck: a fake-out seen before a Hand card entered with no time, and
what the "Wait" refusal tells a table whose race no clock will end.

Before, the earliest slap seen before an untimed Hand card stood in for it even when it was
a fake-out seconds earlier: every slap at the card fell after a window that started too
early, the fake-outer counted as fastest and paid nothing, and everyone who slapped properly
drew 4. The dashboard's window timer judged such a race at once, before anyone could slap.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from referee.events import Event, Source
from referee.races import Press
from tests.test_htd_table_checks import Table
from web.services.games import GameService
from web.services.hub import Hub
from web.services.race_timer import RaceTimer
from web.services.settings import Settings

S = 1_000_000_000
MS = 1_000_000
ANN, BOB, CAT = 0, 1, 2
FILL = ["G3", "G4", "G5", "Y3", "Y4", "Y5", "B3", "B4", "B5"] * 3


def _ann_to_play_a_hand_card() -> Table:
    """Ann holds a Hand card and it is her turn (the tablet entered the plays, untimed)."""
    t = Table(["Ann", "Bob", "Cat"], strict_deck=False, hand_size=3)
    hands = [["HAND", "R1", "Y1"], ["R3", "R2", "G1"], ["R4", "G2", "B1"]]
    t.ok("deal", hands=hands, draw=["R5", *FILL], dealer=2)
    t.ok("turn_up")
    for seat, card in ((ANN, "R1"), (BOB, "R3"), (CAT, "R4")):
        t.ok("play", seat, card=card)
    return t


def _penalties(t: Table) -> list[tuple[int | None, str]]:
    return [(v.seat, v.data["penalty"]) for v in t.last if "penalty" in v.data]


def test_ruling_htd14_a_lone_slap_long_before_an_untimed_hand_card_is_a_fake_out() -> None:
    """Bob slaps by mistake at 200 s; Ann's Hand card, typed on the tablet, has no time;
    Ann, Cat and Bob slap at 205.2, 205.3 and 205.9 s. Nobody else slapped within 3 s of
    Bob's first slap, so it was not at this card: Bob is faked out (2) and slapped last (4),
    as when the card is stamped 205 s. Before, Ann and Cat drew 4 and Bob nothing."""
    t = _ann_to_play_a_hand_card()
    t.ok("slap", BOB, t_ns=200 * S)
    t.ok("play", ANN, card="HAND")
    t.ok("slap", ANN, t_ns=205 * S + 200 * MS)
    assert _penalties(t) == [(BOB, "fake_out")]
    assert t.state.race is not None and t.state.race.trigger_ns == 205 * S + 200 * MS
    t.ok("slap", CAT, t_ns=205 * S + 300 * MS)
    t.ok("slap", BOB, t_ns=205 * S + 900 * MS)
    assert _penalties(t) == [(BOB, "last_slap")]
    assert t.sizes() == [1, 8, 2]


def test_ruling_htd14_all_slaps_seen_before_the_untimed_card_a_lone_early_one_is_a_fake_out():
    """The camera, back after a reconnect, reports Ann's Hand card untimed (TBL-10) after the
    pads reported every slap. Bob's slap 5 s before the others is the fake-out; the others
    are the race (before, Ann, Cat and Bob's real slap were charged as fake-outs instead)."""
    t = _ann_to_play_a_hand_card()
    for seat, t_ns in ((BOB, 200 * S), (ANN, 205_200 * MS), (CAT, 205_300 * MS)):
        t.ok("slap", seat, t_ns=t_ns)
    t.ok("slap", BOB, t_ns=205_900 * MS)
    t.ok("play", ANN, card="HAND")
    assert _penalties(t) == [(BOB, "fake_out"), (BOB, "last_slap")]
    assert t.sizes() == [1, 8, 2]


def test_ruling_htd14_the_echo_of_a_lone_early_slap_is_paid_once() -> None:
    """The camera repeats Bob's early slap after the start moved past it: that fake-out is
    paid already, and the echo does not drag the start back to it."""
    t = _ann_to_play_a_hand_card()
    t.ok("slap", BOB, t_ns=200 * S)
    t.ok("play", ANN, card="HAND")
    t.ok("slap", ANN, t_ns=205_200 * MS)
    t.ok("slap", BOB, t_ns=200 * S + 40 * MS)  # the camera's echo, reported late
    assert _penalties(t) == []
    assert t.state.race is not None and t.state.race.trigger_ns == 205_200 * MS
    t.ok("slap", CAT, t_ns=205_300 * MS)
    t.ok("slap", BOB, t_ns=205_900 * MS)
    assert _penalties(t) == [(BOB, "last_slap")] and t.sizes() == [1, 8, 2]


def test_ruling_htd14_an_echo_reported_after_the_card_is_isolated_with_its_slap() -> None:
    """The camera's report of Bob's early slap (200.04 s) arrives after Ann's untimed Hand
    card but before anyone slaps at it. It is the same slap, so it is set aside with the
    pad's: Bob pays 2 once and slapped last, as without the echo. Before, the echo (seen
    after the card) could not be isolated and stood in for the card: Ann and Cat drew 4."""
    t = _ann_to_play_a_hand_card()
    t.ok("slap", BOB, t_ns=200 * S)
    t.ok("play", ANN, card="HAND")
    t.ok("slap", BOB, t_ns=200 * S + 40 * MS)  # the camera's report, late
    assert _penalties(t) == []
    t.ok("slap", ANN, t_ns=205_200 * MS)
    assert _penalties(t) == [(BOB, "fake_out")]
    assert t.state.race is not None and t.state.race.trigger_ns == 205_200 * MS
    t.ok("slap", CAT, t_ns=205_300 * MS)
    t.ok("slap", BOB, t_ns=205_900 * MS)
    assert _penalties(t) == [(BOB, "last_slap")] and t.sizes() == [1, 8, 2]


def test_htd14_an_echo_timed_before_its_pad_slap_is_isolated_with_it_too() -> None:
    """The camera's clock puts the echo 40 ms before the pad's slap: the times decide."""
    t = _ann_to_play_a_hand_card()
    t.ok("slap", BOB, t_ns=200 * S)
    t.ok("play", ANN, card="HAND")
    t.ok("slap", BOB, t_ns=200 * S - 40 * MS)
    out = []
    for seat, t_ns in ((ANN, 205_200 * MS), (CAT, 205_300 * MS), (BOB, 205_900 * MS)):
        t.ok("slap", seat, t_ns=t_ns)
        out += _penalties(t)
    assert out == [(BOB, "fake_out"), (BOB, "last_slap")] and t.sizes() == [1, 8, 2]


def test_htd14_an_echo_of_a_slap_at_the_card_still_stands_in() -> None:
    """Bob's pad slap at the card is seen before it and its echo after it; Ann and Cat slap
    within the window: Bob's slap stands in and Cat, last, draws 4."""
    t = _ann_to_play_a_hand_card()
    t.ok("slap", BOB, t_ns=205 * S)
    t.ok("play", ANN, card="HAND")
    t.ok("slap", BOB, t_ns=205 * S + 40 * MS)
    t.ok("slap", ANN, t_ns=205_200 * MS)
    t.ok("slap", CAT, t_ns=205_300 * MS)
    assert _penalties(t) == [(CAT, "last_slap")] and t.sizes() == [1, 2, 6]


def test_htd14_slaps_seen_together_before_an_untimed_card_still_stand_in_for_it() -> None:
    """Ann and Cat slapped before the card was typed; Bob slaps 4 s later. Ann's slap has
    company within the window, so it stands in as before and Bob is the late one."""
    t = _ann_to_play_a_hand_card()
    t.ok("slap", ANN, t_ns=205_200 * MS)
    t.ok("slap", CAT, t_ns=205_300 * MS)
    t.ok("play", ANN, card="HAND")
    t.ok("slap", BOB, t_ns=209_300 * MS)
    assert _penalties(t) == [(BOB, "last_slap")] and t.sizes() == [1, 6, 2]


def test_htd14_only_slaps_seen_before_the_card_can_be_isolated() -> None:
    """A slap typed on the tablet after the card ("now") is at the card however long the
    others take to be typed: only a slap seen before the card may have come before it."""
    from referee.hitthedeck.slaps import SeenBefore, isolated  # new with this review

    window = 3 * S
    seen = SeenBefore(BOB, 200 * S)
    assert isolated([seen, Press(ANN, 205 * S)], window) == (seen,)
    assert isolated([Press(BOB, 200 * S), Press(ANN, 205 * S)], window) == ()
    assert isolated([seen, SeenBefore(CAT, 202 * S), Press(ANN, 205 * S)], window) == ()
    assert isolated([seen], window) == ()  # nothing after it yet: it may be the start


def test_the_wait_at_an_untimed_race_with_no_slap_says_how_the_table_ends_it() -> None:
    """No pads: the Hand card typed with no time and no slap has no deadline, so no timeout
    will come; the refusal tells the family to close the race naming who was last."""
    t = Table(["Ann", "Bob", "Cat"], strict_deck=False, hand_size=2)
    t.ok("deal", hands=[["HAND", "Y1"], ["R3", "G1"], ["R4", "B1"]], draw=["R5", *FILL], dealer=2)
    t.ok("turn_up")
    t.ok("play", ANN, card="HAND")
    reason = t.refused("play", BOB, card="R3")
    assert reason.startswith("Wait: the slap race is still open (Ann, Bob, Cat still to slap).")
    assert "its time is up" not in reason
    assert "race_close with last: [the seat of whoever slapped last]" in reason
    assert "Ann 0, Bob 1, Cat 2 (HTD-14)" in reason


def test_the_wait_at_a_timed_race_still_points_to_its_window() -> None:
    t = Table(["Ann", "Bob", "Cat"], strict_deck=False, hand_size=2)
    t.ok("deal", hands=[["HAND", "Y1"], ["R3", "G1"], ["R4", "B1"]], draw=["R5", *FILL], dealer=2)
    t.ok("turn_up")
    t.ok("play", ANN, card="HAND", t_ns=10 * S)
    assert t.refused("play", BOB, card="R3").endswith(
        "It ends when everyone has slapped, when its time is up, or at a race_close "
        "naming who slapped last (HTD-13)."
    )


# -- the dashboard's window timer --------------------------------------------------------
class Manual:
    """A timer that runs only when the test says so."""

    daemon = False

    def __init__(self, delay: float, fire: Callable[[], None]) -> None:
        self.delay, self.fire = delay, fire

    def start(self) -> None:
        pass

    def cancel(self) -> None:
        pass


def test_ruling_htd14_the_timer_waits_for_the_slaps_at_a_card_typed_after_a_fake_out(
    tmp_path: Path,
) -> None:
    """Bob's pad slap 5 s before Ann's Hand card is typed: the stand-in's window is over when
    the card arrives. Before, the timer closed the race at once (Ann and Cy missed it); now
    it waits a window, the slaps at the card move the start, and they judge the race."""
    db = tmp_path / "tabletop.db"
    games = GameService(db, Settings(db), Hub())
    start = time.monotonic_ns()
    now = [start]
    timers: list[Manual] = []

    def schedule(delay: float, fire: Callable[[], None]) -> Manual:
        timers.append(Manual(delay, fire))
        return timers[-1]

    RaceTimer(games, clock=lambda: now[0], schedule=schedule)
    game_id = games.create("hit-the-deck", ["Ann", "Bob", "Cy"], {})
    for event in (
        Event("deal", payload={"hands": [7, 7, 7]}),
        Event("turn_up", payload={"card": "R3"}),
        Event("play", seat=1, payload={"card": "R4"}),
        Event("play", seat=2, payload={"card": "R5"}),
        Event("slap", seat=1, t_ns=start, source=Source.PAD),  # by mistake
    ):
        games.append(game_id, event)
    now[0] = start + 5 * S
    games.append(game_id, Event("play", seat=0, payload={"card": "HAND"}))  # typed, untimed
    assert len(timers) == 1 and timers[0].delay >= 3.0  # before: 0, judged at once
    for seat, ms in ((0, 5_200), (2, 5_300), (1, 5_900)):
        now[0] = start + ms * MS
        games.append(game_id, Event("slap", seat=seat, t_ns=now[0], source=Source.PAD))
    for timer in list(timers):
        timer.fire()
    snap = games.snapshot(game_id)
    assert snap["view"]["race"] is None
    assert all(item["status"] == "ok" for item in snap["feed"])
    assert all(item["event"]["kind"] != "race_close" for item in snap["feed"])
    assert snap["view"]["hand_sizes"] == [6, 12, 6]  # Bob: a fake-out and last
