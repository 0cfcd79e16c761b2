"""Hit the Deck: one physical history, every arrival order, the same verdicts (HTD-15, HTD-17).

Pads report a slap within milliseconds; the camera reports a card a second or more later, and
the tablet whenever someone taps. So one stray slap's event may reach the referee before or
after the turn events around it. HTD-15: "the times decide, not the arrival order". Each test
below plays one history — a judged race, then timed turn actions, then a second Hand card —
and delivers one stray slap at every position after the first race was judged: the penalties
and hand sizes must be those of the delivery in time order.

Before the fix, a slap after a judged race was judged by when its event arrived: before the
next turn action it was the judged race's and ignored (HTD-17), after it a fake-out, and a
slap held as a pending fake-out was paid at the next turn action even when it was slapped
after that action, at the next Hand card.
"""

from __future__ import annotations

from typing import Any

import pytest

from referee.events import Event
from referee.hitthedeck.game import GAME
from referee.verdicts import Outcome

S = 1_000_000_000
MS = 1_000_000
ANN, BOB, CAT = 0, 1, 2

Outcomes = tuple[tuple[int, ...], tuple[tuple[int, str], ...]]


def _first_race() -> list[Event]:
    """Ann's Hand card at 10 s; Bob, Cat and Ann slap (Ann last: she draws 4)."""
    hands = [["HAND", "HAND", "R2"], ["R3", "HAND", "R4"], ["R5", "B1", "B2"]]
    draw = ["G1", "G2", "G3", "G4", "G5", "Y1", "Y2", "Y3", "Y4", "Y5", "B3", "B4", "B5"]
    return [
        Event("deal", None, {"hands": hands, "draw": draw, "dealer": CAT}),
        Event("turn_up", None, {}, 1 * S),
        Event("play", ANN, {"card": "HAND"}, 10 * S),
        *(Event("slap", seat, {}, 10 * S + ms * MS) for seat, ms in ((BOB, 200), (CAT, 300))),
        Event("slap", ANN, {}, 10 * S + 400 * MS),
    ]


def _second_race(seat: int) -> list[Event]:
    """``seat``'s Hand card at 20 s; Cat, Ann and Bob slap (Bob last)."""
    return [
        Event("play", seat, {"card": "HAND"}, 20 * S),
        *(Event("slap", s, {}, 20 * S + ms * MS) for s, ms in ((CAT, 100), (ANN, 200), (BOB, 300))),
    ]


def hand_card_next() -> list[Event]:
    """The first turn action after Ann's race is Bob's Hand card."""
    return [*_first_race(), *_second_race(BOB)]


def number_cards_between(second_timed: bool = True) -> list[Event]:
    """Bob's red 3 at 15 s and Cat's red 5 at 18 s (or untimed), then Ann's Hand card."""
    return [
        *_first_race(),
        Event("play", BOB, {"card": "R3"}, 15 * S),
        Event("play", CAT, {"card": "R5"}, 18 * S if second_timed else None),
        *_second_race(ANN),
    ]


def run(events: list[Event], **options: Any) -> Outcomes:
    """Every event must be taken; the hand sizes and the penalties (seat, why) at the end."""
    state = GAME.new_state(["Ann", "Bob", "Cat"], {"strict_deck": False, "hand_size": 3, **options})
    penalties = []
    for event in events:
        state, verdicts = GAME.apply(state, event)
        assert all(v.outcome is not Outcome.ILLEGAL for v in verdicts), (event, verdicts)
        penalties += [(v.seat, v.data["penalty"]) for v in verdicts if "penalty" in v.data]
    return tuple(len(h) for h in state.hands), tuple(sorted(penalties))


def every_arrival(
    history: list[Event], seat: int, t_ns: int, judged: int = len(_first_race()), **options: Any
) -> dict[str, Outcomes]:
    """The stray slap delivered after each event from the first race's judging (the
    ``judged``-th event) on, keyed by the event it follows; ``"time order"`` is the delivery
    in time order."""
    slap = Event("slap", seat, {}, t_ns)
    out = {}
    for i in range(judged, len(history) + 1):
        before = history[i - 1]
        key = f"after {before.kind} {before.seat} at {(before.t_ns or 0) / S:g} s"
        out[key] = run([*history[:i], slap, *history[i:]], **options)
    timed = [i for i, e in enumerate(history) if e.t_ns is not None and e.t_ns <= t_ns]
    in_order = max(timed) + 1
    out["time order"] = run([*history[:in_order], slap, *history[in_order:]], **options)
    return out


def assert_times_decide(outcomes: dict[str, Outcomes], expected: Outcomes) -> None:
    wrong = {k: v for k, v in outcomes.items() if v != expected}
    assert not wrong, f"expected {expected} whenever the slap arrives; got {wrong}"


RACES = ((ANN, "last_slap"), (BOB, "last_slap"))  # Ann last in the first race, Bob in the second


@pytest.mark.parametrize(
    "t_ns",
    [10 * S + 900 * MS, 14 * S, 19 * S + 800 * MS],
    ids=["a second slap", "a late slap", "just before the card"],
)
def test_ruling_htd17_a_slap_before_the_next_turn_action_belongs_to_the_judged_race(
    t_ns: int,
) -> None:
    """HTD-17: "until the next turn action, further slaps … belong to the judged race and
    are ignored". Here the next turn action is Bob's Hand card at 20 s: Cat's stray slap,
    timed before it, is ignored also when its report comes after the card's. It was a
    fake-out then (draw 2), as if it had been slapped at the new card too early."""
    outcomes = every_arrival(hand_card_next(), CAT, t_ns)
    assert_times_decide(outcomes, ((6, 6, 3), RACES))


def test_ruling_htd17_a_slap_before_the_next_lockout_span_is_the_judged_races() -> None:
    """With the early lockout on (500 ms), a slap 700 ms before Bob's Hand card is still
    Ann's race's (ignored), not a fake-out, whether it arrives before or after the card."""
    outcomes = every_arrival(hand_card_next(), CAT, 19 * S + 300 * MS, early_lockout_ms=500)
    assert_times_decide(outcomes, ((6, 6, 3), RACES))


@pytest.mark.parametrize("t_ns", [10 * S + 900 * MS, 14 * S], ids=["a second slap", "a late slap"])
def test_ruling_htd17_a_slap_timed_before_a_turn_action_is_the_judged_races_when_reported_after(
    t_ns: int,
) -> None:
    """Bob's red 3 at 15 s is the next turn action. A slap timed before it belongs to Ann's
    race and is ignored (HTD-17), however late the pad's report reaches the referee: it was
    a fake-out when the report came after the camera's red 3."""
    outcomes = every_arrival(number_cards_between(), CAT, t_ns)
    assert_times_decide(outcomes, ((5, 6, 2), RACES))


@pytest.mark.parametrize("t_ns", [16 * S, 19 * S], ids=["at the red 3", "at the red 5"])
def test_ruling_htd17_a_slap_after_a_turn_action_is_a_fake_out_when_reported_before_it(
    t_ns: int,
) -> None:
    """Cat slaps at 16 s, after Bob's red 3 (15 s): no Hand card was played, a fake-out
    (HTD-15). When the pad's report reached the referee before the camera's red 3, it was
    taken as Ann's judged race's and ignored (HTD-17); the times say it came after."""
    outcomes = every_arrival(number_cards_between(), CAT, t_ns)
    assert_times_decide(outcomes, ((5, 6, 4), (*RACES, (CAT, "fake_out"))))


def test_ruling_htd17_a_slap_at_the_next_hand_card_joins_its_race_whenever_it_arrives() -> None:
    """Cat slaps at 20.5 s, at Ann's Hand card (20 s), and her pad reports it before the
    camera reports Cat's own red 5 (18 s). It was paid as a fake-out at the red 5; by the
    times it is a slap in Ann's race (Cat's 20.1 s slap counts, this one is a second)."""
    outcomes = every_arrival(number_cards_between(), CAT, 20 * S + 500 * MS)
    assert_times_decide(outcomes, ((5, 6, 2), RACES))


def test_ruling_htd17_a_slap_after_a_timed_turn_action_is_a_fake_out_at_an_untimed_one() -> None:
    """Cat's red 5 entered on the tablet has no time. A slap at 16 s (after Bob's timed red 3)
    is a fake-out wherever it arrives: before the red 3 it was ignored as Ann's race's."""
    outcomes = every_arrival(number_cards_between(second_timed=False), CAT, 16 * S)
    assert_times_decide(outcomes, ((5, 6, 4), (*RACES, (CAT, "fake_out"))))


def test_ruling_htd15_an_early_slap_seen_again_after_the_next_turn_action_is_paid_once() -> None:
    """HTD-15: "A seat pays once for its slaps before one card, even one seen only after the
    race was judged." Cat slaps at 9.9 s, before Ann's Hand card (10 s), and pays 2; the
    camera's echo of that slap reaches the referee late. After Bob's red 3 it was held and
    paid a second time; by its time it is the same early slap, already paid."""
    history = number_cards_between()
    history.insert(2, Event("slap", CAT, {}, 9 * S + 900 * MS))  # the pad, before the card
    outcomes = every_arrival(history, CAT, 9 * S + 900 * MS + 1, judged=len(_first_race()) + 1)
    assert_times_decide(outcomes, ((5, 6, 4), (*RACES, (CAT, "fake_out"))))


def untimed_hand_card_next(*slaps_first: tuple[int, int]) -> list[Event]:
    """After Ann's judged race, the pads report ``slaps_first`` (seat, t_ns) before the
    tablet's entry of Bob's Hand card, which has no time (HTD-14)."""
    return [
        *_first_race(),
        *(Event("slap", seat, {}, t_ns) for seat, t_ns in slaps_first),
        Event("play", BOB, {"card": "HAND"}, None),
    ]


def test_ruling_htd14_an_untimed_hand_card_right_after_a_race_claims_the_slaps_after_its_window():
    """Bob's Hand card entered on the tablet right after Ann's race: the pads report Cat's
    and Ann's slaps at it before the entry. Timed after Ann's race's window, they were
    slapped at Bob's card: they join its race (the first stands in for the card), so Bob's
    own slap, the last, judges it. Before, they stayed Ann's race's and Bob's race waited for
    slaps already made (only the table's `race_close` could end it)."""
    events = [
        *untimed_hand_card_next((CAT, 20 * S + 100 * MS), (ANN, 20 * S + 200 * MS)),
        Event("slap", BOB, {}, 20 * S + 300 * MS),
    ]
    state = GAME.new_state(["Ann", "Bob", "Cat"], {"strict_deck": False, "hand_size": 3})
    for event in events:
        state, _ = GAME.apply(state, event)
    assert state.race is None, "the race should be judged: everyone slapped"
    assert run(events) == ((6, 6, 3), RACES)


def test_ruling_htd14_a_slap_inside_the_judged_window_stays_the_judged_races():
    """A second slap of Cat's inside Ann's race's window (HTD-17) is not claimed by Bob's
    untimed Hand card: Bob's race still waits for Cat."""
    events = untimed_hand_card_next((CAT, 10 * S + 900 * MS), (ANN, 20 * S + 200 * MS))
    state = GAME.new_state(["Ann", "Bob", "Cat"], {"strict_deck": False, "hand_size": 3})
    for event in events:
        state, _ = GAME.apply(state, event)
    assert state.race is not None
    assert sorted({p.seat for p in state.race.presses}) == [ANN]
    assert state.race.trigger_ns == 20 * S + 200 * MS
