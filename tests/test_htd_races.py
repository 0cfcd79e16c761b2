"""The slap race is decided by the slaps' own times, whatever order they arrive in."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.events import Event, Source
from referee.hitthedeck.game import GAME
from referee.hitthedeck.state import HtdState
from referee.verdicts import Outcome

MS = 1_000_000
HANDS = [["HAND", "Y1"], ["R1", "B1"], ["G1", "B2"], ["R2", "G2"], ["Y2", "B3"], ["G3", "R3"]]
DRAW = ["R5", "B5", "G5", "Y5", "R4", "B4", "G4", "Y4"] * 4


def _race_open(n: int) -> HtdState:
    """The last seat deals, so seat 0 goes first and plays a Hand card at t = 1 s."""
    options = {"strict_deck": False, "hand_size": 2}
    state = GAME.new_state([f"P{i}" for i in range(n)], options)
    deal = {"hands": HANDS[:n], "draw": DRAW, "dealer": n - 1}
    for event in (
        Event("deal", payload=deal),
        Event("turn_up"),
        Event("play", seat=0, payload={"card": "HAND"}, t_ns=1_000 * MS, source=Source.CAMERA),
    ):
        state, verdicts = GAME.apply(state, event)
        assert all(v.outcome is not Outcome.ILLEGAL for v in verdicts), verdicts
    assert state.race is not None
    return state


@st.composite
def races(draw: st.DrawFn) -> tuple[int, list[int], list[int]]:
    n = draw(st.integers(2, 6))
    gaps = draw(st.lists(st.integers(1, 2_000), min_size=n, max_size=n, unique=True))
    order = draw(st.permutations(list(range(n))))
    return n, gaps, order


@settings(max_examples=60, deadline=None)
@given(races())
def test_race_outcome_does_not_depend_on_arrival_order(
    race: tuple[int, list[int], list[int]],
) -> None:
    n, gaps_ms, order = race
    state = _race_open(n)
    before = [len(h) for h in state.hands]
    losers = []
    for seat in order:  # pads, camera and tablet may deliver slaps out of time order
        event = Event("slap", seat=seat, t_ns=(1_000 + gaps_ms[seat]) * MS, source=Source.PAD)
        state, verdicts = GAME.apply(state, event)
        losers += [v.seat for v in verdicts if v.data.get("penalty") == "last_slap"]
    last = max(range(n), key=lambda s: gaps_ms[s])
    assert losers == [last]
    assert state.race is None
    assert [len(h) for h in state.hands] == [b + 4 * (s == last) for s, b in enumerate(before)]
