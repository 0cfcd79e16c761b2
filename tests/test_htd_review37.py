"""Review 37, Hit the Deck: a fake-out reported just after the last card of a round, and a
late slap claimed by the next untimed Hand card.

A fake-out timed before a play but reported after it costs 2 mid-round (HTD-15's batch
rule). When that play was the round's last card, the report came when "no round is being
played" and was ignored: the player going out kept their 0 points however they slapped.
Games set up from day 37 pay it (option ``late_fake_out``); stored games keep ignoring it.

A claimed slap that fits the most seats' slaps in its window stands in for an untimed Hand
card (HTD-14; a guard: a start passed over for one fitting more seats was tried on day 37 and
made who pays depend on report order).
"""

from __future__ import annotations

from referee.hitthedeck.state import Phase
from tests.test_hitthedeck_review34 import _penalties
from tests.test_htd_table_checks import Table

S = 1_000_000_000
MS = 1_000_000
ANN, BEN, CAT, DAN = 0, 1, 2, 3


def _two_hand_cards_in_a_row(dan_slaps_late: bool = True) -> Table:
    """Ann's untimed Hand card; Dan draws 4 for missing it, and slaps 200 ms after its
    window (13.2 s) if ``dan_slaps_late``; Ben is to play another Hand card. Pads report
    every slap."""
    t = Table(["Ann", "Ben", "Cat", "Dan"], strict_deck=False, hand_size=3)
    hands = [["HAND", "R1", "R2"], ["HAND", "R3", "R4"], ["G1", "G2", "G3"], ["G4", "G5", "Y1"]]
    t.ok("deal", hands=hands, draw=["R5"] + ["B1"] * 40, dealer=3)
    t.ok("turn_up", t_ns=5 * S)
    for seat, t_ns in ((ANN, 10_000), (BEN, 10_300), (CAT, 10_500)):
        t.ok("slap", seat, t_ns=t_ns * MS)
    t.ok("play", ANN, card="HAND")
    t.ok("race_close")  # the window timer: Dan missed the race
    assert _penalties(t) == [(DAN, "last_slap")]
    if dan_slaps_late:
        t.ok("slap", DAN, t_ns=13_200 * MS)  # a late slap at Ann's card
    return t


def test_ruling_htd14_a_claimed_slap_that_fits_the_most_seats_still_stands_in() -> None:
    """Ann slaps 210 ms after the judged window, Ben and Cat soon after and Dan 3.29 s after
    Ann: from Ann's slap three seats slap within the window, from Ben's also three (Ann
    would have none at the card), so Ann's slap stands in and Dan, late, draws 4."""
    t = _two_hand_cards_in_a_row(dan_slaps_late=False)
    t.ok("slap", ANN, t_ns=13_210 * MS)
    for seat, t_ns in ((BEN, 13_500), (CAT, 14_000), (DAN, 16_500)):
        t.ok("slap", seat, t_ns=t_ns * MS)
    t.ok("play", BEN, card="HAND")
    assert _penalties(t) == [(DAN, "last_slap")] and t.sizes() == [2, 2, 3, 11]


def _ann_goes_out(size: int = 2, last: str = "R4", paid: str = "paid") -> Table:
    """Ann (R3, then ``last``) and Ben; Ben draws an unplayable B1 in between. Ann's last
    card (if ``size`` is 2) is played at 2 s; the camera stamps every action."""
    t = Table(["Ann", "Ben"], strict_deck=False, hand_size=size, late_fake_out=paid)
    ann, ben = ["R3", last, "R1"][:size], ["G2", "G1", "G4"][:size]
    t.ok(
        "deal", hands=[ann, ben], draw=["R5", "B1", "B2", "B3", "B4", "B5", *["Y2"] * 9], dealer=BEN
    )
    t.ok("turn_up", t_ns=1_000 * MS)
    t.ok("play", ANN, t_ns=1_200 * MS, card="R3")
    t.ok("draw", BEN, t_ns=1_400 * MS)
    t.ok("play", ANN, t_ns=2_000 * MS, card=last)
    return t


def test_ruling_htd15_a_fake_out_reported_after_the_last_card_is_paid() -> None:
    """Ben slapped at 1.8 s, when no Hand card was played; his pad's report reaches the
    referee after the camera's report of Ann's last card at 2 s. Mid-round that costs 2
    (HTD-15); so it does now when Ann's card ended the round: Ben draws 2 and the round is
    scored again (Ben 9, not 4). Before, the slap was ignored ("No round is being played")."""
    mid = _ann_goes_out(size=3)
    mid.ok("slap", BEN, t_ns=1_800 * MS)
    assert _penalties(mid) == [(BEN, "fake_out")] and mid.sizes() == [1, 6]
    t = _ann_goes_out()
    assert t.state.phase is Phase.ROUND_OVER and t.state.totals == (0, 4)
    t.ok("slap", BEN, t_ns=1_800 * MS)
    assert _penalties(t) == [(BEN, "fake_out")]
    assert t.state.phase is Phase.ROUND_OVER and t.sizes() == [0, 5]
    assert t.state.totals == (0, 9) and t.state.rounds == ((0, 9),)
    t.ok("slap", BEN, t_ns=1_840 * MS)  # the camera's echo: paid once (HTD-15)
    assert _penalties(t) == [] and t.state.totals == (0, 9)


def test_ruling_htd20_a_fake_out_reported_after_the_last_card_keeps_its_player_in() -> None:
    """HTD-20: "a player whose own slap is still held as a fake-out does not go out on their
    last card: they draw 2". Ann's own slap at 1.8 s, reported after her last card: she
    draws 2 and play goes on with Ben. Before, she went out with 0 points."""
    t = _ann_goes_out()
    t.ok("slap", ANN, t_ns=1_800 * MS)
    assert _penalties(t) == [(ANN, "fake_out")]
    assert t.state.phase is Phase.PLAY and t.sizes() == [2, 3] and t.state.turn == BEN
    assert t.state.totals == (0, 0) and t.state.rounds == ()
    assert "So Ann has not gone out" in t.last[-1].reason


def test_ruling_htd20_a_last_word_card_acts_when_a_late_fake_out_keeps_its_player_in() -> None:
    """Ann's last card is a red Cut, whose action was void as she went out; her fake-out
    reported after it keeps her in, so the Cut acts as usual: Ben must cut."""
    t = _ann_goes_out(last="RCUT")
    assert t.state.phase is Phase.ROUND_OVER
    t.ok("slap", ANN, t_ns=1_800 * MS)
    assert t.state.phase is Phase.PLAY and t.state.forced == "cut" and t.state.turn == BEN
    assert t.refused("draw", BEN).startswith("You must cut the deck")


def test_ruling_htd15_slaps_after_the_last_card_are_still_ignored() -> None:
    """A slap timed after the last card was outside the round (HTD-15), and nothing is
    judged again once the next round is dealt."""
    t = _ann_goes_out()
    ended = t.state
    t.ok("slap", BEN, t_ns=2_100 * MS)
    assert t.state is ended and t.last[0].reason.startswith("No round is being played")
    t.ok("deal", hands=[["G1", "G2"], ["G3", "G4"]], draw=["R5", "B1", "B2"])
    t.ok("slap", BEN, t_ns=1_800 * MS)  # the new round has its own first action to come
    assert _penalties(t) == []


def test_ruling_htd15_a_fake_out_before_the_last_hand_card_reported_after_its_race_is_paid() -> (
    None
):
    """Ann goes out on a Hand card stamped 2 s; the race is judged (Ben last) and the round
    ends. Then Ann's slap at 1.5 s arrives: it came before the card, a fake-out, so Ann
    draws 2 and does not go out (HTD-15, HTD-20)."""
    t = _ann_goes_out(last="HAND")
    t.ok("slap", ANN, t_ns=2_200 * MS)
    t.ok("slap", BEN, t_ns=2_500 * MS)
    assert t.state.phase is Phase.ROUND_OVER and t.state.totals[ANN] == 0
    t.ok("slap", ANN, t_ns=1_500 * MS)
    assert _penalties(t) == [(ANN, "fake_out")]
    assert t.state.phase is Phase.PLAY and t.sizes() == [2, 7] and t.state.turn == BEN


def test_ruling_htd15_a_stored_game_still_ignores_a_fake_out_reported_after_the_last_card() -> None:
    """A game set up before the option existed (``late_fake_out`` absent: ``ignored``) replays
    as it was judged: the slap is ignored and Ann stays out, the next deal legal."""
    t = _ann_goes_out(paid="ignored")
    t.ok("slap", ANN, t_ns=1_800 * MS)
    assert "No round is being played" in t.last[0].reason
    assert t.state.phase is not Phase.PLAY and t.state.totals[ANN] == 0
