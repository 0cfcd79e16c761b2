"""Ending a Dash by agreement (``end_dash``, DD-24) and the hint that nobody can finish it.

"Finishing ends the round for everyone" — but once every Dash is down only handoffs shrink a
hand (a turn draws one card and discards one), so when the groups take nothing more nobody
can finish, and without variation 4 (DD-15) the round would go on for ever. A family at the
table agrees to end that Dash and goes on with the next one: nobody wins it and everyone
scores their hand, as when the draw pile runs out (DD-15).
"""

from __future__ import annotations

from typing import Any

import pytest

from referee.cards import parse_card, parse_cards
from referee.deckdash.check import check_dash, hand_off
from referee.deckdash.game import GAME
from referee.deckdash.groups import Group
from referee.deckdash.state import Laid, Phase, RoundEnd
from referee.deckdash.stuck import can_take
from referee.events import Event, EventError
from referee.replay import replay
from referee.verdicts import Outcome, Verdict
from tests.test_deckdash_game import Table, of

# Advanced Dash 8 is "Run of 11". Ana and Bea each lay one and keep three cards by playing a
# Keep Two; Ana's two draws are the 12s that close both runs (1 to 12 takes nothing more).
ANA = "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 KEEP2"
BEA = "Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 Y10 Y11 KEEP2"
TOP = "G1 R12 Y12 G2 G3 G4 G5 G6 G7"  # the draw pile's top: Ana, her Keep Two, Bea, hers, …


def run_of_11_table(players: int = 2, **options: Any) -> Table:
    """Advanced Dash 8 dealt by the last seat: Ana ``ANA``, Bea ``BEA``, Ana starts."""
    t = Table(players, level="advanced", dashes=options.pop("dashes", [8]), **options)
    t.deal({0: ANA, 1: BEA}, start="B12", top=TOP, dealer=players - 1)
    return t


def lay_and_keep_two(t: Table, seat: int, color: str) -> list[Verdict]:
    """``seat`` draws, lays the run 1 to 11 in ``color``, plays Keep Two and draws two."""
    t.ok("draw", seat)
    t.ok("lay", seat, cards=[f"{color}{n}" for n in range(1, 12)])
    t.ok("play", seat, card="KEEP2")
    t.ok("draw", seat)
    return t.ok("draw", seat)


def hints(verdicts: list[Verdict]) -> list[Verdict]:
    return [v for v in verdicts if v.outcome is Outcome.INFO and v.data.get("stuck")]


def laid(*groups: Group) -> list[Laid]:
    return [Laid(0, g) for g in groups]


def run(cards: str, dash: int = 8) -> Group:
    """One run laid as Advanced Dash ``dash`` (8: run of 11; 2: run of 5 in one colour)."""
    check = check_dash("advanced", dash, parse_cards(cards))
    assert check.valid, check.reason
    (group,) = check.groups
    return group


def grown(group: Group, *cards: str) -> Group:
    for card in cards:
        bigger = hand_off(group, parse_card(card))
        assert bigger is not None, card
        group = bigger
    return group


# -- the event --------------------------------------------------------------------------------
def test_ruling_dd24_end_dash_scores_like_the_empty_draw_pile_and_deals_the_next_dash() -> None:
    """ "4. When the draw pile runs out, the round ends." (DD-15: nobody wins, everyone scores
    their hand) — the same when the players agree to end the Dash; then the next Dash."""
    t = Table(3, dash_count=2)
    t.deal({0: "KEEP2"}, dealer=2)
    t.ok("draw", 0)
    t.ok("play", 0, card="KEEP2")
    t.ok("draw", 0)
    t.ok("draw", 0)  # Ana now holds 14 cards; Bea's turn
    t.ok("draw", 1)
    verdicts = t.ok("end_dash", 1)  # after Bea's draw: at any moment of the Dash
    assert [v.outcome for v in verdicts] == [
        Outcome.ROUND_END,
        Outcome.SCORE,
        Outcome.SCORE,
        Outcome.SCORE,
        Outcome.INFO,
    ]
    assert verdicts[0].reason == (
        "The players end Dash 1 by agreement: nobody wins it; everyone scores 1 point per "
        "card in hand."
    )
    assert verdicts[0].seat is None
    assert verdicts[0].data == {
        "dash": 1,
        "winner": None,
        "how": "agreed",
        "hand_counts": [14, 13, 12],
        "scores": [14, 13, 12],
        "tiebreak": False,
    }
    assert of(verdicts, Outcome.SCORE) == [
        "Ana scores 14 points (14 cards in hand).",
        "Bea scores 13 points (13 cards in hand).",
        "Cy scores 12 points (12 cards in hand).",
    ]
    assert of(verdicts, Outcome.INFO) == ["Next: Dash 2. Deal 12 cards each."]
    state = t.state
    assert state.round is None and not state.finished and not state.stopped
    assert state.results[0].how is RoundEnd.AGREED and state.results[0].winner is None
    assert state.totals == (14, 13, 12) and state.dashes_won == (0, 0, 0)
    # the next Dash, dealt by the player to the left of the last dealer (Cy dealt: Ana deals)
    assert t.bad("deal", dealer=1, hands=[12, 12, 12], start="G5") == (
        "It's Ana's turn to deal (the player to the left of the last dealer)."
    )
    t.deal(dealer=0)
    assert t.rnd.dash == 2 and t.rnd.turn == 1


def test_ruling_dd24_ending_the_last_dash_ends_the_game() -> None:
    """The last Dash ended by agreement: the game is decided as after any last Dash (DD-1)."""
    t = Table(2, dash_count=1)
    t.deal({0: "KEEP2"}, dealer=1)
    t.ok("draw", 0)
    t.ok("play", 0, card="KEEP2")
    t.ok("draw", 0)
    t.ok("draw", 0)
    verdicts = t.ok("end_dash")
    assert of(verdicts, Outcome.GAME_END) == ["Bea wins the game."]  # 12 points against 14
    assert t.state.finished and t.state.winners == (1,) and t.state.totals == (14, 12)
    assert GAME.table(t.state)[0].text == "Bea wins"
    assert t.bad("end_dash") == "The game is over."


@pytest.mark.parametrize(
    "moment", ["before the draw", "blocked", "Keep Two draws", "Draw 2 Discard 1 discards"]
)
def test_ruling_dd24_end_dash_at_any_moment_of_a_round(moment: str) -> None:
    """The family decides when: any step of any turn; the hands are counted as they are (an
    action card being played is in nobody's hand)."""
    t = Table(2, dash_count=2)
    t.deal({0: "BLOCK KEEP2 D2D1"}, dealer=1)
    if moment == "blocked":
        t.ok("draw", 0)
        t.ok("discard", 0, card="BLOCK")
        assert t.rnd.phase is Phase.BLOCKED
        counts = [12, 12]
    elif moment == "Keep Two draws":
        t.ok("draw", 0)
        t.ok("play", 0, card="KEEP2")
        t.ok("draw", 0)
        assert t.rnd.phase is Phase.ACTION_DRAW
        counts = [13, 12]  # 12 + 1 drawn - Keep Two + 1 drawn
    elif moment == "Draw 2 Discard 1 discards":
        t.ok("draw", 0)
        t.ok("play", 0, card="D2D1")
        t.ok("draw", 0)
        t.ok("draw", 0)
        assert t.rnd.phase is Phase.ACTION_DISCARD
        counts = [14, 12]
    else:
        assert t.rnd.phase is Phase.DRAW
        counts = [12, 12]
    t.ok("end_dash", 1)
    assert t.state.round is None
    assert list(t.state.results[0].hand_counts) == counts == list(t.state.results[0].scores)


def test_ruling_dd24_without_points_nobody_scores_a_dash() -> None:
    """DD-14: without points a round scores 1 for its winner only; an ended Dash has none."""
    t = Table(2, dash_count=2, points=False)
    t.deal(dealer=1)
    verdicts = t.ok("end_dash")
    assert verdicts[0].reason == "The players end Dash 1 by agreement: nobody wins it."
    assert of(verdicts, Outcome.SCORE) == [
        "Ana scores 0 Dashes (12 cards in hand).",
        "Bea scores 0 Dashes (12 cards in hand).",
    ]
    assert t.state.totals == (0, 0)


def test_ruling_dd24_a_first_to_dash_ended_by_agreement_scores_the_hands() -> None:
    """DD-2's 3 and 12 are for a First-to Dash someone laid; ended with nobody laying it,
    it scores as the empty draw pile does: the cards in hand."""
    t = Table(2, level="advanced", dashes=[12, 1])
    t.deal({0: "KEEP2"}, dealer=1)
    t.ok("draw", 0)
    t.ok("play", 0, card="KEEP2")
    t.ok("draw", 0)
    t.ok("draw", 0)
    t.ok("end_dash")
    assert t.state.results[0].scores == (14, 12)


def test_ruling_dd24_table_mode_hands_may_be_tallied_after_an_ended_dash() -> None:
    """DD-20: in table mode the referee counts cards it cannot see; after a Dash ended by
    agreement the tablet may tally the hands, as after any round, also the last Dash."""
    t = Table(2, dash_count=1)
    t.ok("deal", dealer=1, hands=[12, 12], start="G5")
    t.ok("draw", 0)
    t.ok("discard", 0, card="G7")
    verdicts = t.ok("end_dash")
    # level on Dashes (none) and points (12 each): they replay the Dash (DD-12)
    assert of(verdicts, Outcome.PROMPT) == [
        "Ana and Bea are tied: they replay Dash 1; the first to finish wins the game."
    ]
    assert t.state.tiebreak == (0, 1) and not t.state.finished
    verdicts = t.ok("tally", hands=[10, 12])  # Ana really held two cards fewer
    assert of(verdicts, Outcome.LEGAL) == ["Hands tallied: Ana 10, Bea 12."]
    assert of(verdicts, Outcome.GAME_END) == ["Ana wins the game."]
    assert t.state.results[0].how is RoundEnd.AGREED and t.state.totals == (10, 12)


def test_ruling_dd24_a_tie_break_ended_by_agreement_goes_to_the_fewest_cards() -> None:
    """DD-12: a tie-break without a finisher goes to the fewest cards in hand; level, again."""
    t = Table(2, dash_count=1)
    t.deal(dealer=1)
    t.ok("end_dash")  # 12 and 12 points: a tie-break
    t.deal(dealer=0)
    assert t.rnd.tiebreak
    verdicts = t.ok("end_dash")
    assert verdicts[0].reason == (
        "The players end the tie-break of Dash 1 by agreement: nobody finished it, so the "
        "fewest cards in hand decide."
    )
    assert of(verdicts, Outcome.SCORE) == []  # a tie-break's points are not added up
    assert t.state.tiebreak == (0, 1) and not t.state.finished  # still level: replay again
    assert t.bad("tally", hands=[11, 12]) == "There is no finished Dash to tally."
    t.deal({1: "KEEP2"}, dealer=1)
    t.ok("draw", 0)
    t.ok("discard", 0, card=t.hand(0)[-1])
    t.ok("draw", 1)
    t.ok("play", 1, card="KEEP2")
    t.ok("draw", 1)
    t.ok("draw", 1)  # Bea holds 14, Ana 12
    verdicts = t.ok("end_dash")
    assert of(verdicts, Outcome.GAME_END) == ["Ana wins the game."]
    assert t.state.totals == (12, 12)


def test_ruling_dd24_end_dash_needs_a_dash_in_play() -> None:
    t = Table(2, dash_count=2)
    assert t.bad("end_dash") == "No Dash is being played right now: deal the cards first."
    t.deal(dealer=1)
    t.ok("end_dash")
    assert t.bad("end_dash", 0) == "No Dash is being played right now: deal the cards first."
    t.deal(dealer=0)
    with pytest.raises(EventError, match="seat 2 does not exist"):
        GAME.apply(t.state, Event("end_dash", 2))
    t.ok("stop")
    assert t.bad("end_dash") == "The game is over."


def test_ruling_dd24_end_dash_is_in_the_catalogue_without_payload_fields() -> None:
    """The console's event buttons come from ``event_kinds``; like ``stop`` the description
    opens with "no payload:" and names no other field (console.js reads "name: hint")."""
    desc = GAME.event_kinds()["end_dash"]
    assert desc.startswith("no payload: ") and desc.count(":") == 1


def test_ruling_dd24_a_log_with_end_dash_replays() -> None:
    """Every game replays from its event log: an ended Dash, then the next one's deal."""
    events = [
        Event("deal", None, {"dealer": 1, "hands": [12, 12], "start": "G5"}),
        Event("draw", 0),
        Event("discard", 0, {"card": "G7"}),
        Event("end_dash", 1),
        Event("deal", None, {"dealer": 0, "hands": [12, 12], "start": "R5"}),
    ]
    lines = [Event.from_json(e.to_json()) for e in events]
    result = replay(GAME, ["Ana", "Bea"], {"dash_count": 2}, lines)
    state = result.state
    assert state.results[0].how is RoundEnd.AGREED and state.totals == (12, 12)
    assert state.round is not None and state.round.dash == 2 and state.round.turn == 1
    assert result.steps[3].verdicts[0].outcome is Outcome.ROUND_END


def test_ruling_dd24_the_last_dash_line_says_it_was_ended_by_agreement() -> None:
    t = Table(2, dash_count=2)
    t.deal(dealer=1)
    t.ok("end_dash")
    assert [(line.label, line.text) for line in GAME.table(t.state)][1] == (
        "Last Dash",
        "Dash 1 was ended by agreement, with no winner",
    )


# -- the hint: nobody can finish ---------------------------------------------------------------
def test_ruling_dd24_the_referee_says_when_nobody_can_finish_the_dash() -> None:
    """Both runs of 11 are down and can take only a 12 each (2 cards), and both hands hold 3
    after a Keep Two: nobody can finish, so the referee suggests ending the Dash — once."""
    t = run_of_11_table()
    verdicts = lay_and_keep_two(t, 0, "R")  # Ana: G1 R12 Y12 (Bea's run is not down yet)
    assert hints(verdicts) == [] and not t.rnd.stuck
    verdicts = lay_and_keep_two(t, 1, "Y")  # Bea: G2 G3 G4
    (hint,) = hints(verdicts)
    assert hint.reason == (
        "Nobody can finish Dash 8 any more: every Dash is down and the table can take only 2 "
        "cards more, and every hand holds more than that. The players may agree to end this "
        "Dash (end_dash) or stop the game."
    )
    assert hint.data == {"stuck": True, "can_take": 2} and hint.seat is None
    assert t.rnd.stuck and GAME.view(t.state)["round"]["stuck"] is True
    assert ("Stuck", "Nobody can finish this Dash: agree to end it (end_dash) or stop") in [
        (line.label, line.text) for line in GAME.table(t.state)
    ]
    # the 12s close both runs (1 to 12 takes nothing more); the hint is not said again
    said = t.ok("draw", 0)
    said += t.ok("handoff", 0, card="R12", group=0)
    said += t.ok("handoff", 0, card="Y12", group=1)
    said += t.ok("discard", 0, card="G5")
    said += t.ok("draw", 1)
    said += t.ok("discard", 1, card="G6")
    assert hints(said) == [] and [len(h) for h in t.rnd.hands] == [1, 3]
    assert can_take(t.rnd.table) == 0
    verdicts = t.ok("end_dash")
    assert t.state.results[0].scores == (1, 3) and t.state.winners == (0,)


def test_ruling_dd24_the_hint_works_from_the_table_in_table_mode_too() -> None:
    """The hint needs only the table (every laid card is named) and the hand counts, which
    the referee keeps in table mode too."""
    t = Table(2, level="advanced", dashes=[8])
    t.ok("deal", dealer=1, hands=[12, 12], start="B12")
    said = []
    for seat, color in ((0, "R"), (1, "Y")):
        said += t.ok("draw", seat)
        said += t.ok("lay", seat, cards=[f"{color}{n}" for n in range(1, 12)])
        said += t.ok("play", seat, card="KEEP2")
        said += t.ok("draw", seat)
        said += t.ok("draw", seat)
    (hint,) = hints(said)
    assert hint.data["can_take"] == 2 and t.rnd.hands[0].unknown == 3


def test_ruling_dd24_no_hint_while_someone_can_still_finish() -> None:
    """No hint while a Dash is not down (a lay-down makes new groups), nor while a hand is no
    bigger than what the table can still take."""
    t = Table(2, level="advanced", dashes=[8])
    t.deal({0: "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 G9", 1: BEA}, start="B12", dealer=1)
    said = t.ok("draw", 0)
    said += t.ok("lay", 0, cards=[f"R{n}" for n in range(1, 12)])
    said += t.ok("discard", 0, card="G9")  # Ana keeps one card: a 12 would finish her
    said += lay_and_keep_two(t, 1, "Y")  # Bea keeps three
    assert hints(said) == [] and [len(h) for h in t.rnd.hands] == [1, 3]
    assert can_take(t.rnd.table) == 2 and not t.rnd.stuck


# -- what the table can still take --------------------------------------------------------------
def test_ruling_dd24_a_run_1_to_12_takes_nothing() -> None:
    full = grown(run("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11"), "B12")
    assert can_take(laid(full)) == 0
    assert can_take(laid(run("Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8 Y9 Y10 Y11"))) == 1  # only a 12


def test_ruling_dd24_pairs_of_twins_take_only_the_wilds_left() -> None:
    """Advanced 9's twin pairs take only the same card, whose two copies are down, or a Wild."""
    check = check_dash("advanced", 9, parse_cards("R1 R1 Y2 Y2 G3 G3 B4 B4"))
    assert check.valid
    assert can_take(laid(*check.groups)) == 8  # the 8 Wilds
    with_wild = check_dash("advanced", 9, parse_cards("R1 W Y2 Y2 G3 G3 B4 B4"))
    assert can_take(laid(*with_wild.groups)) == 8  # 7 Wilds and the other red 1


def test_ruling_dd24_a_run_stops_at_a_number_whose_cards_are_all_down() -> None:
    """Red 2 to 6 can reach red 1, but not 7: both red 7s are in runs that take nothing and
    every Wild is down, so the red 8s to 12 off the table can never follow."""
    wilds = grown(run("G1 W W W W W R7 W W W G11"), "G12")  # 8 Wilds, a red 7, 1 to 12
    naturals = grown(run("Y1 Y2 Y3 Y4 Y5 Y6 R7 Y8 Y9 Y10 Y11"), "Y12")
    red = run("R2 R3 R4 R5 R6", dash=2)
    assert (wilds.low, wilds.high, wilds.wilds) == (1, 12, 8)
    assert can_take(laid(wilds, naturals, red)) == 1
    # with a red 7 (and the Wilds) off the table: red 1 below, red 7 to 12 above
    assert can_take(laid(naturals, red)) == 7


def test_ruling_dd24_sets_and_colour_groups_can_take_a_lot() -> None:
    sets = check_dash("easy", 2, parse_cards("R5 Y5 G5 B5 R9 Y9 G9 B9"))  # 2 sets of 4
    assert can_take(laid(*sets.groups)) == 4 + 4 + 8  # the other 5s and 9s, and the Wilds
    colour = check_dash("easy", 4, parse_cards("G1 G2 G3 G4 G5 G6 G7"))
    assert can_take(laid(*colour.groups)) == 24 - 7 + 8
