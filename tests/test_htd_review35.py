"""Review 35, Hit the Deck: the slaps at an untimed Hand card judged by their times alone.

A Hand card typed on the tablet reaches the referee seconds after the pads reported the
slaps at it. Before, a slap after the race's window reported before the entry was charged a
fake-out (and its seat missed the race as well), while the same slap reported after the
entry was a late slap that costs nothing (HTD-17); a lone early slap could be set aside as a
fake-out only when reported before the entry, and reported after it dragged the race's start
back to it, so everyone who slapped at the card missed. On random tables with realistic
report lags (pads at once, the camera up to 0.4 s, the tablet 0.3–8 s after the card) the
outcome depended on the arrival order on 48 to 73 of 400 tables, now on 0 to 3
(``python -m bench.htd_report_order``; a seeded check below keeps a sample of it).
"""

from __future__ import annotations

import random

from tests.test_hitthedeck_review34 import FILL, _ann_to_play_a_hand_card, _penalties
from tests.test_htd_table_checks import Table

S = 1_000_000_000
MS = 1_000_000
ANN, BOB, CAT = 0, 1, 2


def test_ruling_htd17_a_late_slap_reported_before_an_untimed_hand_card_is_no_fake_out() -> None:
    """Ann, Bob and Cat slap at 205.2, 205.5 and 206 s; Cat slaps again at 210 s (after the
    3 s window); the tablet's entry of Ann's card comes after. Cat's second slap was a late
    slap at this card, so nobody is faked out and Cat, last, draws 4. Before, Cat also drew 2."""
    t = _ann_to_play_a_hand_card()
    for seat, t_ns in ((ANN, 205_200), (BOB, 205_500), (CAT, 206_000), (CAT, 210_000)):
        t.ok("slap", seat, t_ns=t_ns * MS)
    t.ok("play", ANN, card="HAND")
    assert _penalties(t) == [(CAT, "last_slap")]
    assert t.state.race is None and t.sizes() == [1, 2, 6]


def test_ruling_htd17_a_slap_after_the_window_seen_before_the_card_ends_the_race() -> None:
    """Bob slaps 4 s after Ann and Cat, before the card is entered: his slap shows the window
    is over, so the race is judged at the entry (Bob missed it: 4), as when his report comes
    after the card. Before, Bob drew 2 for a fake-out and the race waited for a timeout."""
    t = _ann_to_play_a_hand_card()
    for seat, t_ns in ((ANN, 205_200), (CAT, 205_300), (BOB, 209_300)):
        t.ok("slap", seat, t_ns=t_ns * MS)
    t.ok("play", ANN, card="HAND")
    assert _penalties(t) == [(BOB, "last_slap")]
    assert t.state.race is None and t.sizes() == [1, 6, 2]


def test_ruling_htd17_a_late_slap_before_a_timed_card_the_camera_saw_late_is_no_fake_out():
    """The camera reports Ann's card (stamped 205 s) 5 s late, after Bob's late slap at
    208.5 s (the window ends at 208 s): Bob missed the race and draws 4, not 4 + 2."""
    t = _ann_to_play_a_hand_card()
    for seat, t_ns in ((ANN, 205_200), (CAT, 205_300), (BOB, 208_500)):
        t.ok("slap", seat, t_ns=t_ns * MS)
    t.ok("play", ANN, t_ns=205 * S, card="HAND")
    assert _penalties(t) == [(BOB, "last_slap")]
    assert t.sizes() == [1, 6, 2]


def test_ruling_htd14_a_lone_early_slap_reported_after_the_card_is_a_fake_out() -> None:
    """Bob's slap at 200 s (a fake-out) is reported after Ann's untimed card and after Ann's
    slap at it: it does not drag the race's start back to 200 s. Bob pays 2, Cat slaps last.
    Before, the start moved to 200 s and Ann and Cat, slapping 5 s later, both missed."""
    t = _ann_to_play_a_hand_card()
    t.ok("play", ANN, card="HAND")
    t.ok("slap", ANN, t_ns=205_200 * MS)
    t.ok("slap", BOB, t_ns=200 * S)
    assert _penalties(t) == [(BOB, "fake_out")]
    assert t.state.race is not None and t.state.race.trigger_ns == 205_200 * MS
    t.ok("slap", BOB, t_ns=205_500 * MS)
    t.ok("slap", CAT, t_ns=206 * S)
    assert _penalties(t) == [(CAT, "last_slap")] and t.sizes() == [1, 4, 6]


def test_ruling_htd14_a_fake_out_reported_after_an_untimed_race_was_judged_is_paid() -> None:
    """All three slap at the untimed card and the race is judged; then the camera reports
    Bob's slap 5 s before them. It came before the card: a fake-out. Before, it was taken as
    a late slap at the judged card and cost nothing."""
    t = _ann_to_play_a_hand_card()
    t.ok("play", ANN, card="HAND")
    for seat, t_ns in ((ANN, 205_200), (BOB, 205_500), (CAT, 206_000)):
        t.ok("slap", seat, t_ns=t_ns * MS)
    assert t.state.race is None and _penalties(t) == [(CAT, "last_slap")]
    t.ok("slap", BOB, t_ns=200 * S)
    assert _penalties(t) == [(BOB, "fake_out")] and t.sizes() == [1, 4, 6]


Report = tuple[int, int, int]  # seat, slap time, report lag (ns)


def _table(rng: random.Random) -> list[Report]:
    """Slaps at a Hand card that hit the pile at 300 s, as the pads report them at once: one
    each within 2.5 s, now and then a slap long before (a fake-out) or long after; and now
    and then the camera's report of a slap, 0.1 to 0.4 s late, its clock up to 80 ms off."""
    card = 300 * S
    slaps = [(seat, card + rng.randint(50, 2500) * MS, 0) for seat in range(3)]
    for _ in range(rng.choice([0, 1, 1, 2])):
        seat, kind = rng.randrange(3), rng.choice(["early", "late", "echo"])
        if kind == "early":
            slaps.append((seat, card - rng.randint(3500, 8000) * MS, 0))
        elif kind == "late":
            slaps.append((seat, card + rng.randint(5600, 9000) * MS, 0))
        else:
            _, t_ns, _ = rng.choice([s for s in slaps if s[0] == seat])
            slaps.append((seat, t_ns + rng.randint(-80, 80) * MS, rng.randint(100, 400) * MS))
    return slaps


def _played(slaps: list[Report], rng: random.Random) -> tuple[int, ...]:
    """The hand sizes after the untimed card and its slaps arrive in the order their lags
    give, the tablet's entry 0.3 to 8 s after the card (up to 30 ms of jitter on each report)."""
    reports: list[tuple[int, tuple[int, int] | None]] = [
        (t_ns + lag + rng.randint(0, 30) * MS, (seat, t_ns)) for seat, t_ns, lag in slaps
    ]
    reports.append((300 * S + rng.randint(300, 8000) * MS, None))
    t = _ann_to_play_a_hand_card()
    for _, slap in sorted(reports, key=lambda r: r[0]):
        if slap is None:
            t.ok("play", ANN, card="HAND")
        else:
            t.ok("slap", slap[0], t_ns=slap[1])
    if t.state.race is not None:
        t.ok("race_close")
    return tuple(t.sizes())


def test_ruling_htd14_who_pays_at_an_untimed_hand_card_does_not_depend_on_report_order():
    """Seeded random tables whose early and late slaps are well clear of the race (the
    limits HTD-14 states aside): every realistic arrival order gives the same hands."""
    rng = random.Random(35)
    for _ in range(60):
        slaps = _table(rng)
        outcomes = {_played(slaps, rng) for _ in range(5)}
        assert len(outcomes) == 1, (sorted(slaps, key=lambda s: s[1]), outcomes)


def _two_hand_cards() -> Table:
    """Ann then Bob each hold a Hand card, Ann to play (the tablet entered the plays)."""
    t = Table(["Ann", "Bob", "Cat"], strict_deck=False, hand_size=4, must_play_if_able=False)
    hands = [["HAND", "R1", "Y1", "Y2"], ["R3", "HAND", "G1", "G3"], ["R4", "G2", "B1", "B2"]]
    t.ok("deal", hands=hands, draw=["R5", *FILL], dealer=2)
    t.ok("turn_up")
    for seat, card in ((ANN, "R1"), (BOB, "R3"), (CAT, "R4")):
        t.ok("play", seat, card=card)
    return t


def test_ruling_htd14_a_slap_entered_after_the_untimed_card_is_at_it_however_late_the_others():
    """A padless table types its slaps after the card, each stamped "now": Ann 1 s after the
    entry, Bob 3.5 s after her, Cat later still. Ann's slap came after the card was entered,
    so it is never a fake-out: Bob and Cat missed the window (4 each). An earlier draft of
    today's change set Ann's slap aside as a fake-out because of the gap."""
    t = _two_hand_cards()
    t.ok("play", ANN, card="HAND")
    for seat, t_ns in ((ANN, 201_000), (BOB, 204_500), (CAT, 207_000)):
        t.ok("slap", seat, t_ns=t_ns * MS)
        assert (ANN, "fake_out") not in _penalties(t)
    if t.state.race is not None:
        t.ok("race_close")
    assert t.sizes() == [2, 7, 7]


def test_ruling_htd17_a_late_slap_at_a_hand_card_is_not_charged_at_an_untimed_one_after_it():
    """Cat slaps again at 210 s, after Ann's race (205–208 s) was judged; Bob's untimed Hand
    card follows and everyone slaps at it at 220 s. Cat's 210 s slap was a late slap at Ann's
    card (HTD-17): it does not stand in for Bob's, nor is it a fake-out there. Before today's
    review it cost Cat 2 at Bob's card, or at Ann's when reported before her card."""
    for reported_before_the_first_card in (True, False):
        t = _two_hand_cards()
        first = [(ANN, 205_200), (BOB, 205_500), (CAT, 206_000)]
        late = [(CAT, 210_000)]
        for seat, t_ns in first + (late if reported_before_the_first_card else []):
            t.ok("slap", seat, t_ns=t_ns * MS)
        t.ok("play", ANN, card="HAND")
        assert _penalties(t) == [(CAT, "last_slap")]
        for seat, t_ns in ([] if reported_before_the_first_card else late) + [
            (ANN, 220_200),
            (BOB, 220_400),
            (CAT, 220_600),
        ]:
            t.ok("slap", seat, t_ns=t_ns * MS)
        t.ok("play", BOB, card="HAND")
        assert _penalties(t) == [(CAT, "last_slap")], reported_before_the_first_card
        assert t.sizes() == [2, 2, 11]


def test_ruling_htd17_a_late_slap_before_a_timed_card_after_a_judged_race_ends_its_race():
    """Bob's timed Hand card (210 s) right after Ann's judged race; Cat's slap at 214 s (after
    the window) is reported before the camera's report of the card: the race is judged when
    the card arrives, as when no race came before. Before, it stayed open, and the next
    untimed entry was refused ("Wait")."""
    t = _two_hand_cards()
    t.ok("play", ANN, t_ns=200 * S, card="HAND")
    for seat, t_ns in ((ANN, 200_200), (BOB, 200_400), (CAT, 200_600)):
        t.ok("slap", seat, t_ns=t_ns * MS)
    for seat, t_ns in ((ANN, 210_200), (BOB, 210_500), (CAT, 214_000)):
        t.ok("slap", seat, t_ns=t_ns * MS)
    t.ok("play", BOB, t_ns=210 * S, card="HAND")
    assert _penalties(t) == [(CAT, "last_slap")] and t.state.race is None
    t.ok("play", CAT, card="B1")
