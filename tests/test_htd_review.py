"""Hit the Deck: a review's findings on fake-outs, going out and the order reports arrive in.

Pads report a slap within milliseconds, the camera reports a card (or echoes the slap) a
second or so later, the tablet whenever someone taps. A review found three places where the
arrival order, not the times, still decided (HTD-15: "the times decide, not the arrival
order"):

* a player whose own slap, timed just after their last card, was still pending went out
  with 0 points while holding the 2 cards of the fake-out (HTD-20: "Pending fake-outs are
  paid before the hands are scored"); if that slap came right after a judged race, their last
  Hit card's action was voided although they did not go out;
* a fake-out slap and the camera's echo of it were paid twice when the echo arrived after the
  next turn action, and two fake-outs either side of a turn action were paid once when the
  first one's report came after that action (HTD-15: "once per seat per batch");
* a ``hand`` entry for a seat not at the table was refused as an illegal move (or named a
  card not in the deck) instead of being malformed input.

What was left (HTD-13): a race is judged as soon as every seat has a slap by arrival, or when
an event timed after its window arrives; a seat's earlier in-window slap reported after that
does not re-judge it (``test_reread_htd13_…``).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from referee.events import Event, EventError
from referee.hitthedeck.game import GAME
from referee.hitthedeck.state import HtdState, Phase
from referee.verdicts import Outcome, Verdict

S = 1_000_000_000
MS = 1_000_000
ANN, BOB, CAT = 0, 1, 2
FILLER = ["G3", "G4", "G5", "Y3", "Y4", "Y5", "B3", "B4", "B5"] * 3


def new(hand_size: int, **options: Any) -> HtdState:
    opts = {"strict_deck": False, "hand_size": hand_size, **options}
    return GAME.new_state(["Ann", "Bob", "Cat"], opts)


def run(state: HtdState, events: list[Event]) -> tuple[HtdState, list[Verdict]]:
    """Every event must be taken (no illegal verdict); all the verdicts, in order."""
    said: list[Verdict] = []
    for event in events:
        state, verdicts = GAME.apply(state, event)
        assert all(v.outcome is not Outcome.ILLEGAL for v in verdicts), (event, verdicts)
        said += verdicts
    return state, said


def penalties(verdicts: list[Verdict]) -> list[tuple[int | None, str]]:
    return [(v.seat, v.data["penalty"]) for v in verdicts if "penalty" in v.data]


# -- HTD-20: a fake-out pending on the last card ------------------------------------------------
def bob_goes_for_his_last_card(last_card: str, race_first: bool = False) -> list[Event]:
    """Bob holds one card after his red 3 (6 s). With ``race_first``, Ann then cuts to a Hand
    card at 10 s and the race is judged (Cat last); otherwise Cat's red 5 and Ann's draw."""
    draw = ["R2", "HAND", *FILLER] if race_first else ["R2", *FILLER]
    hands = [["R1", "Y1"], ["R3", last_card], ["RCUT" if race_first else "R5", "G1"]]
    events = [
        Event("deal", None, {"hands": hands, "draw": draw, "dealer": CAT}),
        Event("turn_up", None, {}, 1 * S),
        Event("play", ANN, {"card": "R1"}, 5 * S),
        Event("play", BOB, {"card": "R3"}, 6 * S),
    ]
    if race_first:
        return [
            *events,
            Event("play", CAT, {"card": "RCUT"}, 7 * S),
            Event("cut", ANN, {"at": 0}, 10 * S),
            *(Event("slap", s, {}, 10 * S + ms * MS) for s, ms in ((ANN, 100), (BOB, 200))),
            Event("slap", CAT, {}, 10 * S + 300 * MS),
        ]
    return [*events, Event("play", CAT, {"card": "R5"}, 7 * S), Event("draw", ANN, {}, 8 * S)]


@pytest.mark.parametrize("last_card", ["R4", "HIT2"])
def test_ruling_htd20_a_slap_just_after_the_last_card_is_paid_and_the_player_plays_on(
    last_card: str,
) -> None:
    """HTD-20: "Pending fake-outs are paid before the hands are scored; so a player whose own
    slap is still held as a fake-out does not go out on their last card: they draw 2, and a
    Cut, Flip or Hit card acts as usual." Bob's pad reports his slap at 15.2 s before the
    camera reports his last card, played at 15.0 s. Before, he paid the 2 cards and the round
    ended all the same, Bob out with 0 points while holding them."""
    events = [
        *bob_goes_for_his_last_card(last_card),
        Event("slap", BOB, {}, 15 * S + 200 * MS),  # the pad, reported first
        Event("play", BOB, {"card": last_card}, 15 * S),
    ]
    state, said = run(new(2), events)
    assert state.phase is Phase.PLAY and state.rounds == ()
    assert not any(v.outcome is Outcome.ROUND_END for v in said)
    assert len(state.hands[BOB]) == 2 and penalties(said)[-1] == (BOB, "fake_out")
    if last_card == "HIT2":
        assert state.require is not None and state.require.number == 2  # the card acts
    assert state.turn == CAT


def test_ruling_htd20_a_slap_reported_just_after_a_judged_race_keeps_the_last_card_acting() -> None:
    """The same, when Bob's slap (15.2 s, after his last card at 15.0 s) is reported right
    after a judged race, before the card: it is kept for the next turn action to tell by its
    time (HTD-17), and is a fake-out. Before, the last Hit card's action was voided as going
    out, and then Bob drew 2 and played on (or, before the round-end fix, went out)."""
    events = [
        *bob_goes_for_his_last_card("HIT2", race_first=True),
        Event("slap", BOB, {}, 15 * S + 200 * MS),
        Event("play", BOB, {"card": "HIT2"}, 15 * S),
    ]
    state, said = run(new(2), events)
    assert state.phase is Phase.PLAY and len(state.hands[BOB]) == 2
    assert penalties(said)[-1] == (BOB, "fake_out")
    assert state.require is not None and state.require.number == 2
    assert state.turn == CAT


def test_ruling_htd20_a_slap_of_the_judged_race_does_not_keep_the_player_in() -> None:
    """A second slap of Bob's inside the judged race's window (10.5 s) belongs to that race
    (HTD-17): it is no fake-out, so his last card (15 s) empties his hand and he goes out."""
    events = [
        *bob_goes_for_his_last_card("R4", race_first=True),
        Event("slap", BOB, {}, 10 * S + 500 * MS),
        Event("play", BOB, {"card": "R4"}, 15 * S),
    ]
    state, said = run(new(2), events)
    assert state.phase is not Phase.PLAY and state.out_seat == BOB
    assert (BOB, "fake_out") not in penalties(said)


def test_ruling_htd20_the_echo_of_a_slap_paid_before_scoring_is_not_paid_again() -> None:
    """Bob's slap after his last card is paid when the round would end (HTD-20); the camera's
    echo of it (15.22 s), reported after that, is the same slap: once per seat per batch
    (HTD-15), not a second fake-out at Cat's next card."""
    events = [
        *bob_goes_for_his_last_card("R4"),
        Event("slap", BOB, {}, 15 * S + 200 * MS),
        Event("play", BOB, {"card": "R4"}, 15 * S),
        Event("slap", BOB, {}, 15 * S + 220 * MS),  # the camera's echo
        Event("draw", CAT, {}, 17 * S),
    ]
    state, said = run(new(2), events)
    assert penalties(said).count((BOB, "fake_out")) == 1
    assert len(state.hands[BOB]) == 2


# -- HTD-15: fake-outs between two turn actions, by their times ---------------------------------
def three_cards() -> list[Event]:
    hands = [["R1", "Y1", "Y2"], ["R3", "B1", "B2"], ["R5", "G1", "G2"]]
    return [
        Event("deal", None, {"hands": hands, "draw": ["R2", *FILLER], "dealer": CAT}),
        Event("turn_up", None, {}, 1 * S),
        Event("play", ANN, {"card": "R1"}, 10 * S),
    ]


BOBS_RED_3 = Event("play", BOB, {"card": "R3"}, 11 * S + 500 * MS)
CATS_RED_5 = Event("play", CAT, {"card": "R5"}, 20 * S)


def fake_out_outcome(events: list[Event]) -> tuple[list[int], list[tuple[int | None, str]]]:
    state, said = run(new(3), events)
    return [len(h) for h in state.hands], penalties(said)


def test_ruling_htd15_a_fake_out_and_its_echo_are_paid_once_whenever_the_echo_arrives() -> None:
    """HTD-15: "once per seat per batch (bounces and a camera echoing a pad count once)".
    Cat slaps at nothing at 11.0 s (her pad) and the camera sees the same slap at 11.02 s;
    Bob's red 3 lands at 11.5 s. Before, the echo was paid a second time when its report came
    after the red 3's: it was held and paid at Cat's next card."""
    pad = Event("slap", CAT, {}, 11 * S)
    echo = Event("slap", CAT, {}, 11 * S + 20 * MS)
    expected = ([2, 2, 4], [(CAT, "fake_out")])
    before_red_3 = [*three_cards(), pad, echo, BOBS_RED_3, CATS_RED_5]
    after_red_3 = [*three_cards(), pad, BOBS_RED_3, echo, CATS_RED_5]
    assert fake_out_outcome(before_red_3) == expected
    assert fake_out_outcome(after_red_3) == expected


def test_ruling_htd15_two_fake_outs_either_side_of_a_turn_action_are_paid_twice() -> None:
    """Cat slaps at 11 s, before Bob's red 3 (11.5 s), and again at 12 s, after it: two
    batches, two fake-outs, whenever the first report arrives. Before, a first report that
    came after the red 3's was held with the second and the two were paid once."""
    first = Event("slap", CAT, {}, 11 * S)
    second = Event("slap", CAT, {}, 12 * S)
    expected = ([2, 2, 6], [(CAT, "fake_out"), (CAT, "fake_out")])
    assert fake_out_outcome([*three_cards(), first, BOBS_RED_3, second, CATS_RED_5]) == expected
    assert fake_out_outcome([*three_cards(), BOBS_RED_3, first, second, CATS_RED_5]) == expected
    assert fake_out_outcome([*three_cards(), BOBS_RED_3, second, first, CATS_RED_5]) == expected


def test_ruling_htd15_a_late_slap_before_the_last_turn_action_is_paid_at_once() -> None:
    """A slap timed before the last turn action, reported after it, belongs to that action's
    batch: it is paid at once (a verdict says so), not held for the next action."""
    state, _ = run(new(3), [*three_cards(), BOBS_RED_3])
    state, verdicts = GAME.apply(state, Event("slap", CAT, {}, 11 * S))
    assert penalties(verdicts) == [(CAT, "fake_out")] and state.held == ()
    state, verdicts = GAME.apply(state, Event("slap", CAT, {}, 11 * S + 20 * MS))
    assert penalties(verdicts) == [] and "pays once" in verdicts[0].reason


def test_ruling_htd15_a_slap_paid_at_race_close_is_not_paid_again_for_its_echo() -> None:
    """A person closes the pending slaps with ``race_close`` (Cat pays 2 for her 11.0 s slap);
    the camera's echo of it arrives after: the same batch, not a second fake-out at Bob's
    red 3."""
    events = [
        *three_cards(),
        Event("slap", CAT, {}, 11 * S),
        Event("race_close", None, {}),
        Event("slap", CAT, {}, 11 * S + 20 * MS),
        BOBS_RED_3,
    ]
    assert fake_out_outcome(events) == ([2, 2, 5], [(CAT, "fake_out")])


@pytest.mark.parametrize("echo_first", [True, False], ids=["echo held", "echo in the race"])
def test_ruling_htd15_a_slap_paid_at_race_close_is_not_paid_again_at_the_next_hand_card(
    echo_first: bool,
) -> None:
    """Cat's 11.0 s slap is paid at a ``race_close``; the camera's echo of it is reported
    before Bob's Hand card (11.5 s) arrives, or during its race: a slap before the card, of a
    seat that already paid for that batch — and so is a third report of it."""
    hands = [["R1", "Y1", "Y2"], ["HAND", "B1", "B2"], ["R5", "G1", "G2"]]
    echo = Event("slap", CAT, {}, 11 * S + 20 * MS)  # the camera's echo
    hand_card = Event("play", BOB, {"card": "HAND"}, 11 * S + 500 * MS)
    events = [
        Event("deal", None, {"hands": hands, "draw": ["R2", *FILLER], "dealer": CAT}),
        Event("turn_up", None, {}, 1 * S),
        Event("play", ANN, {"card": "R1"}, 10 * S),
        Event("slap", CAT, {}, 11 * S),
        Event("race_close", None, {}),
        *([echo, hand_card] if echo_first else [hand_card, echo]),
        Event("slap", CAT, {}, 11 * S + 10 * MS),  # and once more, during the race
    ]
    state, said = run(new(3), events)
    assert penalties(said) == [(CAT, "fake_out")]
    assert state.race is not None and CAT in state.race.faked


def test_ruling_htd15_a_slap_after_an_untimed_turn_action_is_a_new_fake_out() -> None:
    """Cat's slap at 11 s is paid at a ``race_close``. Bob's red 3 is entered on the tablet
    (no time), then Cat's pad reports a slap at 12 s: reported after the untimed action, it
    came after it (HTD-15), a new batch and a second fake-out at Cat's red 5."""
    events = [
        *three_cards(),
        Event("slap", CAT, {}, 11 * S),
        Event("race_close", None, {}),
        Event("play", BOB, {"card": "R3"}),
        Event("slap", CAT, {}, 12 * S),
        CATS_RED_5,
    ]
    assert fake_out_outcome(events) == ([2, 2, 6], [(CAT, "fake_out"), (CAT, "fake_out")])


def test_ruling_htd15_a_slap_before_the_last_timed_action_does_not_join_an_untimed_race() -> None:
    """Bob's Hand card is entered on the tablet (no time) after Ann's red 1 at 10 s. A slap
    timed at 9.9 s was before the red 1, so not at the Hand card played after it: a fake-out,
    not the slap that stands in for the card (HTD-14). Before, it joined the race and its
    time opened the window, before a card that came after it."""
    hands = [["R1", "Y1", "Y2"], ["HAND", "B1", "B2"], ["R5", "G1", "G2"]]
    events = [
        Event("deal", None, {"hands": hands, "draw": ["R2", *FILLER], "dealer": CAT}),
        Event("turn_up", None, {}, 1 * S),
        Event("play", ANN, {"card": "R1"}, 10 * S),
        Event("play", BOB, {"card": "HAND"}),
        Event("slap", CAT, {}, 9 * S + 900 * MS),
    ]
    state, said = run(new(3), events)
    assert penalties(said) == [(CAT, "fake_out")]
    assert state.race is not None and state.race.presses == ()


def _scenario(rng: random.Random) -> list[tuple[int, str, int | None, dict[str, Any]]]:
    """Number cards only, every 10 s from 10 s, and up to 8 stray slaps (some echoed)."""
    turns = [
        (10 * S, "play", BOB, {"card": "R3"}),
        (20 * S, "play", CAT, {"card": "R4"}),
        (30 * S, "play", ANN, {"card": "R5"}),
        (40 * S, "play", BOB, {"card": "R1"}),
        (50 * S, "play", CAT, {"card": "R2"}),
    ]
    events = list(turns)
    for _ in range(rng.randint(1, 8)):
        t = rng.randint(5_000, 55_000) * MS
        seat = rng.randrange(3)
        events.append((t, "slap", seat, {}))
        if rng.random() < 0.4:  # the camera sees the same slap too
            events.append((t + rng.randint(1, 60) * MS, "slap", seat, {}))
    return events


def _outcome(delivery: list[tuple[int, str, int | None, dict[str, Any]]]) -> Any:
    hands = [["R5", "Y1", "Y2", "Y3"], ["R3", "R1", "G4", "G5"], ["R4", "R2", "G1", "G2"]]
    state = new(4)
    state, _ = GAME.apply(
        state, Event("deal", None, {"hands": hands, "draw": ["R1", *FILLER], "dealer": ANN})
    )
    state, _ = GAME.apply(state, Event("turn_up", None, {}, 1 * S))
    said: Counter[tuple[int | None, str]] = Counter()
    for t, kind, seat, payload in delivery:
        state, verdicts = GAME.apply(state, Event(kind, seat, payload, t))
        assert all(v.outcome is not Outcome.ILLEGAL for v in verdicts), (kind, seat, t)
        said.update(penalties(verdicts))
    state, verdicts = GAME.apply(state, Event("race_close", None, {}))  # pay what is pending
    said.update(penalties(verdicts))
    return tuple(len(h) for h in state.hands), sorted(said.items())


@pytest.mark.parametrize("seed", range(4))
def test_ruling_htd15_fake_outs_do_not_depend_on_the_arrival_order(seed: int) -> None:
    """Random stray slaps (and camera echoes) around timed number cards, each history
    delivered in time order and with the slaps' reports up to 1.5 s late and the camera's up
    to 1 s: the fake-outs paid, and so the hands, are those of the time order. Before, 13 of
    300 such histories (with Hand cards too, in the review's script) came out differently."""
    rng = random.Random(seed)
    for _ in range(25):
        events = _scenario(rng)
        expected = _outcome(sorted(events, key=lambda e: e[0]))
        for _ in range(6):
            lagged = [
                (t + rng.randint(0, 1500 if kind == "slap" else 1000) * MS, i)
                for i, (t, kind, _, _) in enumerate(events)
            ]
            delivery = [events[i] for _, i in sorted(lagged)]
            assert _outcome(delivery) == expected, delivery


# -- HTD-13: the limit left ----------------------------------------------------------------------
def test_ruling_htd13_a_race_is_judged_when_every_seat_has_a_slap_by_arrival() -> None:
    """The limit HTD-13 states: the race is judged as soon as every seat has a slap by
    arrival. Cat's camera slap (10.26 s) arrives before her pad's (10.15 s): the race is
    judged on the camera's, so Cat, not Bob (10.2 s), slapped last; the pad's report after it
    is the judged race's and ignored (HTD-17)."""
    hands = [["HAND", "Y1", "Y2"], ["R3", "B1", "B2"], ["R5", "G1", "G2"]]
    events = [
        Event("deal", None, {"hands": hands, "draw": ["R2", *FILLER], "dealer": CAT}),
        Event("turn_up", None, {}, 1 * S),
        Event("play", ANN, {"card": "HAND"}, 10 * S),
        Event("slap", ANN, {}, 10 * S + 100 * MS),
        Event("slap", BOB, {}, 10 * S + 200 * MS),
        Event("slap", CAT, {}, 10 * S + 260 * MS),  # the camera's view of Cat's slap
        Event("slap", CAT, {}, 10 * S + 150 * MS),  # Cat's pad, reported after it
    ]
    _, said = run(new(3), events)
    assert penalties(said) == [(CAT, "last_slap")]


# -- input errors -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "payload", [{"cards": ["R7"]}, {"cards": ["R1"]}, {"points": 3}], ids=["R7", "R1", "points"]
)
def test_a_hand_for_a_seat_not_at_the_table_is_malformed(payload: dict[str, Any]) -> None:
    """A ``hand`` entered for seat 7 at a 2-player table is malformed input (``EventError``),
    like every other event's seat, whatever its cards. Before, a card not in the deck made it
    an illegal move of a seat that does not exist."""
    state = GAME.new_state(["Ann", "Bob"], {})
    with pytest.raises(EventError, match="seat 7 is not at this table"):
        GAME.apply(state, Event("hand", 7, payload))
