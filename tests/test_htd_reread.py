"""Hit the Deck re-read line by line against shared/rules/hit-the-deck.txt.

What the re-read found untested, unruled or worded wrongly: a slap at a Hand card turned up
at the start, a yell with another card, slaps outside a round, slaps the pads report before
an untimed Hand card, an event timed after the race window (and one the judged race would
refuse), a colour chain refusing another colour, the direction at a new round and after a
second flip, and "1 cards"-style slips in the verdicts.

Rulings HTD-25 and HTD-26 came with this file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from referee.hitthedeck.game import GAME
from referee.hitthedeck.state import Need, Phase
from referee.replay_cli import replay_file
from tests.test_htd_table_checks import Table as TableChecks

S = 1_000_000_000
MS = 1_000_000
DATA = Path(__file__).parent / "data" / "htd"


class Table(TableChecks):
    """The table-checks' game driver, with what the last event said."""

    def said(self) -> str:
        return " | ".join(v.reason for v in self.last)

    def penalties(self) -> list[tuple[int | None, str]]:
        return [(v.seat, v.data["penalty"]) for v in self.last if "penalty" in v.data]


def scripted(players: list[str], hands: list[list[str]], draw: list[str], **options: Any) -> Table:
    """A scripted deal (Ann deals, so Bob goes first) and its first card turned up."""
    t = Table(players, strict_deck=False, hand_size=len(hands[0]), **options)
    t.ok("deal", hands=hands, draw=draw, dealer=0)
    t.ok("turn_up")
    return t


# -- Setup: "If the first card … is a Hit the Deck With Hand card, shuffle it back" -----------
@pytest.mark.parametrize("pad_first", [True, False])
def test_ruling_htd25_a_slap_at_a_hand_card_turned_up_at_the_start_is_a_fake_out(
    pad_first: bool,
) -> None:
    """The start Hand card was turned up, not played: "If a player slaps … when no 'Hit the
    Deck With A Hand' card has been played, they have been faked out". Whether the pad's
    slap arrives before the camera's turn-up or after it, the slapper draws 2."""
    t = Table(["Ann", "Bob"], strict_deck=False, hand_size=1)
    t.ok("deal", hands=[["Y1"], ["R3"]], draw=["HAND", "B5", "G2", "G4", "R4"], dealer=0)
    penalties = []
    if pad_first:
        t.ok("slap", 1, t_ns=1 * S + 200 * MS)
    t.ok("turn_up", t_ns=1 * S)
    penalties += t.penalties()
    assert t.state.race is None and t.state.need is Need.SHUFFLE
    if not pad_first:
        t.ok("slap", 1, t_ns=1 * S + 200 * MS)
    t.ok("shuffle")
    penalties += t.penalties()
    assert penalties == [(1, "fake_out")]
    t.ok("turn_up", card="G2")
    assert t.state.owed == (0, 0) and t.sizes() == [1, 3]  # Bob drew his 2 after the turn-up


def test_a_hand_card_turned_up_at_the_start_says_nobody_slaps_for_it() -> None:
    """HTD-4/HTD-25 in the prompt itself, so a family knows before anyone slaps."""
    t = Table(["Ann", "Bob"], strict_deck=False, hand_size=1)
    t.ok("deal", hands=[["Y1"], ["R3"]], draw=["HAND", "B5", "G2"], dealer=0)
    t.ok("turn_up")
    assert "It was turned up, not played, so nobody slaps for it." in t.said()


# -- Hit the Deck With A Hand: "If a player slaps … when no … Hand card has been played" ------
@pytest.mark.parametrize("card", ["HIT4", "R5", "RCUT"])
def test_ruling_htd26_a_yell_with_another_card_costs_nothing_but_the_slappers_draw_2(
    card: str,
) -> None:
    """The referee cannot hear a yell, and the rules punish only the slap: whoever slaps at
    another card (a Hit the Deck With A Number, a number, a Word card) — the player who
    played it too — is faked out; the player who played it draws nothing for yelling."""
    hands = [["Y1", "Y2"], [card, "B1"], ["G3", "R4"]]
    t = scripted(["Ann", "Bob", "Cat"], hands, ["R2", "R1", "R3", "G5", "B5", "G1", "G2"])
    t.ok("play", 1, t_ns=3 * S, card=card)
    assert t.state.race is None and t.penalties() == []
    t.ok("slap", 0, t_ns=3 * S + 200 * MS)
    t.ok("slap", 2, t_ns=3 * S + 300 * MS)
    t.ok("slap", 1, t_ns=3 * S + 400 * MS)  # Bob falls for his own yell
    t.ok("race_close")  # no Hand card came: the held slaps are judged now
    assert t.penalties() == [(0, "fake_out"), (1, "fake_out"), (2, "fake_out")]
    assert t.sizes() == [4, 3, 4]  # Bob: his last card and 2 for the slap, none for the yell


# -- HTD-15: "Slaps outside a round are ignored" ----------------------------------------------
def test_ruling_htd15_slaps_outside_a_round_are_ignored() -> None:
    t = Table(["Ann", "Bob"], strict_deck=False, hand_size=1)
    t.ok("slap", 0, t_ns=1 * S)
    assert t.said() == "No round is being played: the slap is ignored."
    t.ok("deal", hands=[["Y1"], ["R3"]], draw=["R2", "B5", "G2"], dealer=0)
    t.ok("turn_up")
    t.ok("play", 1, card="R3")
    assert t.state.phase is Phase.ROUND_OVER
    t.ok("slap", 0, t_ns=2 * S)
    assert t.said() == "No round is being played: the slap is ignored."
    assert t.state.owed == (0, 0) and t.state.held == () and t.state.totals == (1, 0)


# -- HTD-14: an untimed Hand card and the slaps the pads reported before it -------------------
def test_ruling_htd14_slaps_seen_before_an_untimed_hand_card_join_its_race() -> None:
    """Pads report slaps before the tablet enters the Hand card (no t_ns): the slaps are held,
    then join the race, the earliest standing in for the card — nobody is faked out."""
    hands = [["Y1", "Y2"], ["HAND", "B1"], ["G3", "Y4"]]
    t = scripted(["Ann", "Bob", "Cat"], hands, ["R2", "R1", "R3", "R4", "B5", "G5", "G1"])
    t.ok("slap", 0, t_ns=5 * S)
    t.ok("slap", 2, t_ns=5 * S + 300 * MS)
    assert len(t.state.held) == 2
    t.ok("play", 1, card="HAND")
    assert t.penalties() == []
    race = t.state.race
    assert race is not None and race.trigger_ns == 5 * S and not race.timed
    assert {p.seat for p in race.presses} == {0, 2}
    t.ok("slap", 1, t_ns=5 * S + 900 * MS)
    assert t.penalties() == [(1, "last_slap")] and t.sizes() == [2, 5, 2]


# -- HTD-13 (c): "when any other event carries a t_ns later than the Hand card's time + the
# window" ---------------------------------------------------------------------------------
def test_ruling_htd13_an_event_timed_after_the_window_judges_the_race_first() -> None:
    hands = [["Y1", "Y2"], ["HAND", "B1"], ["G3", "B4"]]
    draw = ["R2", "R1", "R3", "R4", "B5", "G5", "G1", "G2", "Y5"]
    t = scripted(["Ann", "Bob", "Cat"], hands, draw)
    t.ok("play", 1, t_ns=10 * S, card="HAND")
    t.ok("slap", 1, t_ns=10 * S + 100 * MS)
    t.ok("slap", 0, t_ns=10 * S + 200 * MS)
    assert "Wait: the slap race is still open (Cat still to slap)" in t.refused(
        "play", 2, t_ns=12 * S, card="G3"
    )
    t.ok("play", 2, t_ns=14 * S, card="G3")  # 4 s after the card: the race is over
    assert t.penalties() == [(2, "last_slap")]
    assert "Cat played green 3." in t.said()
    assert t.state.race is None and t.sizes() == [2, 1, 5] and t.state.turn == 0


def _last_card_race(target_score: int) -> Table:
    """Bob's last card is a Hand card; Bob and Ann slap, Cat never does."""
    hands = [["Y1"], ["HAND"], ["G3"]]
    draw = ["R2", "R1", "R3", "R4", "B5", "G5", "G1"]
    t = scripted(["Ann", "Bob", "Cat"], hands, draw, target_score=target_score)
    t.ok("play", 1, t_ns=10 * S, card="HAND")
    t.ok("slap", 1, t_ns=10 * S + 100 * MS)
    t.ok("slap", 0, t_ns=10 * S + 200 * MS)
    return t


@pytest.mark.parametrize(
    ("target", "ends"), [(100, "ends the round"), (5, "ends the game")], ids=["round", "game"]
)
def test_ruling_htd13_an_event_after_the_window_the_judged_race_would_refuse_says_so(
    target: int, ends: str
) -> None:
    """An illegal event changes nothing, so a late event whose race-judging would end the
    round is refused — but with the reason, not "No round is being played: deal the cards
    first" while the screen still shows the race open."""
    t = _last_card_race(target)
    reason = t.refused("play", 2, t_ns=14 * S, card="G3")
    assert reason == (
        f"The slap race's time is up, and judging it {ends}: end the slap race first "
        "(race_close, HTD-13)."
    )
    assert t.state.race is not None  # still open: the refused event changed nothing
    t.ok("race_close")
    assert t.penalties() == [(2, "last_slap")]
    assert t.state.phase in (Phase.ROUND_OVER, Phase.GAME_OVER)


def test_ruling_htd13_a_late_event_whose_race_needs_a_reshuffle_says_so() -> None:
    """Judging the race gives Cat 4 cards from a 2-card draw pile: the pile must be rebuilt
    before play goes on (HTD-19), which the refusal says instead of "see the last prompt"."""
    t = scripted(
        ["Ann", "Bob", "Cat"],
        [["Y1", "R5"], ["HAND", "B1"], ["G3", "B4"]],
        ["R2", "R1", "R3"],
    )
    t.ok("play", 1, t_ns=10 * S, card="HAND")
    t.ok("slap", 1, t_ns=10 * S + 100 * MS)
    t.ok("slap", 0, t_ns=10 * S + 200 * MS)
    reason = t.refused("play", 2, t_ns=14 * S, card="G3")
    assert reason == (
        "The slap race's time is up, and its penalty cards empty the draw pile: end the slap "
        "race first (race_close), then reshuffle (HTD-13, HTD-19)."
    )
    t.ok("race_close")
    assert t.state.need is Need.SHUFFLE and t.state.owed == (0, 0, 2)


# -- Hit the Deck With A Color: "must play a card matching the color" -------------------------
def test_rule_a_colour_chain_refuses_another_colour() -> None:
    hands = [["Y1", "Y2"], ["HITB", "B1"], ["G3", "Y4"]]
    t = scripted(["Ann", "Bob", "Cat"], hands, ["R2", "R1", "G5", "R4", "B5"])
    t.ok("play", 1, card="HITB")
    assert t.refused("play", 2, card="G3") == (
        "Hit the Deck with blue is in force: play a blue card or draw a card."
    )


# -- Play: "Play begins left of the dealer"; Flip: "until it is flipped again" ---------------
def test_rule_a_second_flip_turns_play_back_to_the_left() -> None:
    """ "Play continues in reverse order until it is flipped again." The second flip turns up
    the first Flip (it went to the bottom of the draw pile), which is shuffled back."""
    hands = [["Y1", "RFLIP", "Y3"], ["RFLIP", "R4", "B3"], ["G3", "B4", "Y4"], ["G1", "R3", "B1"]]
    draw = ["R2", "G5", "B5", "Y5", "R5", "G4", "G2", "B2", "R1"]
    t = scripted(["Ann", "Bob", "Cat", "Dan"], hands, draw)
    t.ok("play", 1, card="RFLIP")
    t.ok("flip", 2)  # reveals R1; back to Bob, going right
    assert t.state.direction == -1 and t.state.turn == 1
    t.ok("play", 1, card="R4")
    assert t.state.turn == 0
    t.ok("play", 0, card="RFLIP")
    assert t.state.turn == 3 and t.state.forced == "flip"
    t.ok("flip", 3)
    assert t.state.direction == 1 and t.state.turn == 0  # left again, back to Ann
    t.ok("shuffle")
    t.ok("turn_up", card="G4")
    t.ok("draw", 0)  # Ann's yellow cards don't match green 4
    t.ok("pass", 0)
    assert t.state.turn == 1 and GAME.view(t.state)["direction"] == "left"


def test_rule_each_round_starts_left_of_the_dealer_even_after_a_flip() -> None:
    t = Table(["Ann", "Bob", "Cat"], strict_deck=False, hand_size=2)
    t.ok("deal", hands=[["Y1", "Y2"], ["RFLIP", "R3"], ["G3", "B4"]], draw=["R2", "R5", "R4"])
    t.ok("turn_up")
    t.ok("play", 1, card="RFLIP")
    t.ok("flip", 2)  # the new discard pile: R4 on top (the draw pile's bottom card)
    assert t.state.direction == -1 and t.state.turn == 1 and str(t.state.top) == "R4"
    t.ok("play", 1, card="R3")
    assert t.state.phase is Phase.ROUND_OVER and t.state.dealer == 1
    t.ok("deal", hands=[["Y1", "Y2"], ["R1", "R3"], ["G3", "B4"]], draw=["G2", "R5"])
    t.ok("turn_up")
    assert t.state.direction == 1 and t.state.turn == 2  # left of Bob, the new dealer
    assert GAME.view(t.state)["direction"] == "left"


def test_rule_a_flip_turned_up_again_after_a_flip_on_a_flip_goes_back_again() -> None:
    """ "If the revealed card is a Flip the Deck card, shuffle it into the deck and place a
    new card onto the discard pile" — as often as a Flip comes up."""
    hands = [["Y1", "Y2"], ["RFLIP", "B3"], ["G3", "B4"]]
    t = scripted(["Ann", "Bob", "Cat"], hands, ["R2", "B5", "GFLIP"])
    t.ok("play", 1, card="RFLIP")
    t.ok("flip", 2)  # reveals GFLIP: shuffled back
    assert t.state.need is Need.SHUFFLE
    t.ok("shuffle", draw=["GFLIP", "RFLIP", "R2"])
    t.ok("turn_up")
    assert "A Flip revealed by a flip is shuffled back" in t.said()
    assert t.state.need is Need.SHUFFLE and str(t.state.top) == "B5"
    t.ok("shuffle", draw=["R2", "GFLIP", "RFLIP"])
    t.ok("turn_up")
    assert "Red 2 was turned up." in t.said() and t.state.turn == 1


# -- Verdict wording: no "1 cards", no "card(s)" ----------------------------------------------
def test_wording_a_one_card_new_draw_pile() -> None:
    t = scripted(["Ann", "Bob"], [["Y1", "Y2"], ["Y3", "B3"]], ["Y4"])
    t.ok("play", 1, card="Y3")
    t.ok("shuffle")
    assert t.said() == "The discard pile (all but its top card) is the new draw pile: 1 card."


def test_wording_a_one_card_deal() -> None:
    t = Table(["Ann", "Bob"], strict_deck=False, hand_size=2)
    assert t.refused("deal", hands=[["Y1"], ["Y2", "Y3"]], draw=["R1"]) == (
        "Ann was dealt 1 card; deal 2 each."
    )


def test_wording_a_one_card_shuffle() -> None:
    t = Table(["Ann", "Bob"], strict_deck=False, hand_size=1)
    t.ok("deal", hands=[["Y1"], ["Y2"]], draw=["HAND"], dealer=0)
    t.ok("turn_up")
    assert t.refused("shuffle", draw=["HAND", "R1"]) == (
        "The shuffled pile must have 1 card, not 2."
    )


def test_wording_a_one_card_cut() -> None:
    t = scripted(["Ann", "Bob"], [["Y1", "Y2"], ["RCUT", "B3"]], ["R2", "G5"])
    t.ok("play", 1, card="RCUT")
    assert t.refused("cut", 0, at=1) == "The draw pile has only 1 card; cut above one of them."


def test_wording_a_one_card_hand() -> None:
    t = Table(["Ann", "Bob"], hand_size=1)
    t.ok("deal", hands=[1, 1])
    t.ok("turn_up", card="R2")
    t.ok("play", 1, card="R3")
    assert t.state.phase is Phase.SCORING
    assert t.refused("hand", 0, cards=["Y1", "Y2"]) == "Ann holds 1 card, not 2."


def test_wording_one_penalty_card_let_off() -> None:
    hands = [["Y1", "Y3", "Y5"], ["B1", "G3", "B4"]]
    t = scripted(["Ann", "Bob"], hands, ["R2", "Y4", "B2", "G2"])
    t.ok("draw", 1)  # Y4: no match
    t.ok("slap", 1, t_ns=5 * S)
    t.ok("draw", 0)  # B2: no match; Bob's fake-out draws G2, the last card
    assert (
        "The draw pile is empty and there is nothing to reshuffle: Bob's last penalty card "
        "is let off (HTD-19)." in t.said()
    )
    assert t.state.owed == (0, 0) and t.sizes() == [4, 5]


PLURAL_SLIP = re.compile(r"\b1 cards\b|card\(s\)|\b1 points\b")


# logs that end in a malformed event on purpose (they prove the error) replay no verdicts
MALFORMED = {"dos/dos3_seats.jsonl", "dos/rule_dos_call.jsonl", "dos/rule_matching.jsonl"}
SCENARIOS = sorted(
    f"{d}/{p.name}"
    for d in ("htd", "dos", "washdash")
    for p in (DATA.parent / d).glob("*.jsonl")
    if f"{d}/{p.name}" not in MALFORMED
)


@pytest.mark.parametrize("name", SCENARIOS)
def test_wording_no_plural_slips_in_the_scenarios(name: str) -> None:
    """Every game's scenario logs (Hit the Deck, DOS, Wash Dash) say "1 card", never "1 cards"
    or "card(s)"."""
    said = [v["reason"] for v in replay_file(DATA.parent / name)["verdicts"]]
    assert [r for r in said if PLURAL_SLIP.search(r)] == []
