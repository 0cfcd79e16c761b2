"""A line-by-line re-read of shared/rules/deck-dash.txt against the engine.

Each test quotes the sentence it checks. Some prove fixes of family wording slips found by
the re-read ("1 cards", "Ana and Bea and Cy", "share the win the game", "Bea (twice) lose a
turn"); the others pin behaviour the rules state but no test proved yet. One is DD-5's
amendment (a blocked opponent of two players still loses the second turn).
"""

from __future__ import annotations

from dataclasses import replace

from referee.deckdash.game import GAME
from referee.deckdash.state import Phase, RoundEnd, RoundResult
from referee.hands import Hidden
from referee.verdicts import Outcome
from tests.test_deckdash_game import Table, deal_payload, of, quick_round


# -- Skip 2 Players ---------------------------------------------------------------------------
def test_ruling_dd5_two_players_a_blocked_opponent_still_loses_the_second_turn() -> None:
    """ "When a player discards the Skip 2 Players card, the next two players lose their turn."

    With two players the next two players are the opponent twice (DD-5). A Block You in
    front of the opponent takes the place of one of those turns, not of both. Today DD-5
    read "a blocked player among the two is not marked again", so the opponent lost only the
    blocked turn (amended, day 29).
    """
    t = Table(2)
    t.deal({0: "SKIP2 BLOCK SKIP2"}, dealer=1)
    t.ok("draw", 0)
    t.ok("discard", 0, card="SKIP2")  # Bea loses two turns
    t.ok("draw", 0)
    t.ok("discard", 0, card="BLOCK")  # Bea's second lost turn passes; she is blocked
    assert t.rnd.turn == 0 and t.rnd.blocks == {1} and t.rnd.skips == (0, 0)
    t.ok("draw", 0)
    t.ok("discard", 0, card="SKIP2")
    # The blocked turn is one of the two; the other is lost first (DD-10: skipped, then blocked).
    assert t.rnd.turn == 0 and t.rnd.phase is Phase.DRAW
    t.pass_turn(0)
    assert t.rnd.turn == 1 and t.rnd.phase is Phase.BLOCKED
    t.ok("return_block", 1)
    assert t.rnd.turn == 0


def test_skip_two_with_two_players_says_the_opponent_loses_two_turns() -> None:
    """The verdict for one player losing both turns reads as English ("Bea loses two turns")."""
    t = Table(2)
    t.deal({0: "SKIP2"}, dealer=1)
    t.ok("draw", 0)
    verdicts = t.ok("discard", 0, card="SKIP2")
    assert "Ana played Skip 2 Players: Bea loses two turns." in of(verdicts, Outcome.LEGAL)
    t = Table(3)
    t.deal({0: "SKIP2"}, dealer=2)
    t.ok("draw", 0)
    verdicts = t.ok("discard", 0, card="SKIP2")
    assert "Ana played Skip 2 Players: Bea and Cy lose a turn." in of(verdicts, Outcome.LEGAL)
    t = Table(2)  # DD-5: a blocked opponent's blocked turn is one of the two lost
    t.deal({0: "SKIP2 BLOCK SKIP2"}, dealer=1)
    for card in ("SKIP2", "BLOCK"):
        t.ok("draw", 0)
        t.ok("discard", 0, card=card)
    assert t.rnd.turn == 0 and t.rnd.blocks == {1}
    t.ok("draw", 0)
    verdicts = t.ok("discard", 0, card="SKIP2")
    assert "Ana played Skip 2 Players: Bea loses two turns (the Block You counts as one)." in of(
        verdicts, Outcome.LEGAL
    )


def test_ruling_dd22_skip_two_start_card_with_two_players_the_first_player_starts() -> None:
    """ "If the dealer starts the discard pile with a Skip 2 Players card, the first and second
    player's first turn is automatically skipped. The third player starts the game instead."

    DD-22: count around the table as DD-5 does; with two players the "third
    player" is the first player again, so both lose their first turn and the first player
    still starts.
    """
    t = Table(2)
    verdicts = t.deal(start="SKIP2", dealer=1)
    assert of(verdicts, Outcome.INFO)[:2] == ["Ana loses this turn.", "Bea loses this turn."]
    assert t.rnd.turn == 0 and t.rnd.phase is Phase.DRAW and t.rnd.skips == (0, 0)


def test_skip_you_start_card_with_two_players_the_dealer_starts() -> None:
    """ "If the dealer starts the discard pile with a Skip You card, the first player's first
    turn is automatically skipped." """
    t = Table(2)
    t.deal(start="SKIP", dealer=1)
    assert t.rnd.turn == 1 and t.rnd.skips == (0, 0)


# -- Block You, Deck Steal --------------------------------------------------------------------
def test_ruling_dd8_deck_steal_during_your_own_blocked_turn() -> None:
    """ "Deck Steal cards may be used at any time" against "that player's only action is to
    take the Block You card and place it on the discard pile."

    DD-8 ("at any moment of a round"): a Deck Steal is not a step of the turn, so the blocked
    player may use it; the blocked turn still ends only by returning the Block You card.
    """
    t = Table(3)
    t.deal({0: "BLOCK", 1: "STEAL"}, start="G9", dealer=2)
    t.ok("draw", 0)
    t.ok("discard", 0, card="BLOCK", target=1)  # in front of Bea, not on the pile
    assert t.rnd.turn == 1 and t.rnd.phase is Phase.BLOCKED
    t.ok("steal", 1, card="G9")
    assert (
        "G9" in t.hand(1)
        and "STEAL" not in t.hand(1)
        and t.rnd.turn == 1
        and t.rnd.phase is Phase.BLOCKED
    )
    assert t.bad("draw", 1) == (
        "You are blocked: your only move is to put the Block You card on the discard pile."
    )
    t.ok("return_block", 1)
    assert t.rnd.turn == 2


def test_returned_block_you_and_played_draw_four_cannot_be_picked_up() -> None:
    """ "A Block You card may never be picked up from the discard pile." … "A Draw 4 Discard 3
    card may never be picked up from the discard pile." """
    t = Table(2)
    t.deal({0: "BLOCK D4D3", 1: "STEAL"}, dealer=1)
    t.ok("draw", 0)
    t.ok("discard", 0, card="BLOCK")
    t.ok("return_block", 1)
    assert str(t.rnd.top) == "BLOCK"
    assert t.bad("draw", 0, **{"from": "discard"}) == (
        "A Block You card can never be picked up from the discard pile. Draw from the draw pile."
    )
    t.ok("draw", 0)
    t.ok("play", 0, card="D4D3")
    for _ in range(4):
        t.ok("draw", 0)
    assert str(t.rnd.top) == "D4D3" and t.rnd.phase is Phase.ACTION_DISCARD
    assert t.bad("steal", 1) == (
        "Deck Steal cannot take a Draw 4 Discard 3 card from the discard pile."
    )


def test_a_block_you_in_front_of_a_player_is_not_scored() -> None:
    """ "Only the cards in a player's hand are scored, not cards already laid down." A Block
    You card in front of a player when the round ends is not in their hand (and a Block You
    played as the last card finishes, DD-19)."""
    t = Table(2)
    t.deal({0: "R1 Y1 R2 Y2 R3 Y3 G1 G2 G3 B1 B2 BLOCK"}, top="B3", dealer=1)
    t.ok("draw", 0, card="B3")
    t.ok("lay", 0, cards=["R1", "Y1", "R2", "Y2", "R3", "Y3"])
    for card in ["G1", "G2", "G3", "B1", "B2", "B3"]:
        t.ok("handoff", 0, card=card, group=t.group(int(card[1:])))
    verdicts = t.ok("discard", 0, card="BLOCK", target=1)
    assert "Ana finished and wins Dash 1." in of(verdicts, Outcome.ROUND_END)
    assert t.state.results[0].scores == (0, 12)
    assert "Bea scores 12 points (12 cards in hand)." in of(verdicts, Outcome.SCORE)


# -- the dealer moves left, whatever the direction ---------------------------------------------
def test_the_next_dealer_is_to_the_left_even_after_a_reverse() -> None:
    """ "After the scores are recorded, the player to the left of the dealer becomes the new
    dealer." A Reverse changes the direction of play, not who deals next."""
    t = Table(3, dash_count=2)
    t.deal({0: "REV", 2: "R1 Y1 R2 Y2 R3 Y3 G1 G2 G3 B1 B2 B3"}, dealer=2)
    t.ok("draw", 0)
    t.ok("discard", 0, card="REV")  # counterclockwise: Cy is next
    assert t.rnd.turn == 2
    t.win_now(2)
    assert t.state.round is None and t.state.last_dealer == 2
    payload = deal_payload(3, {}, "R12", "")
    assert t.bad("deal", dealer=1, **payload) == (
        "It's Ana's turn to deal (the player to the left of the last dealer)."
    )
    t.ok("deal", dealer=0, **payload)
    assert t.rnd.turn == 1 and t.rnd.direction == 1


# -- family wording ---------------------------------------------------------------------------
def test_three_tied_players_are_named_as_a_list() -> None:
    """ "In the event of a tie, those players replay the last Dash." Three names read
    "Ana, Bea and Cy", not "Ana and Bea and Cy"."""
    t = Table(3, dashes=[1, 1, 1], dash_count=3)
    quick_round(t, 0, dealer=2)
    quick_round(t, 1)
    verdicts = quick_round(t, 2)
    assert "Ana, Bea and Cy are tied: they replay Dash 1; the first to finish wins the game." in (
        of(verdicts, Outcome.PROMPT)
    )


def test_a_shared_win_reads_share_the_win() -> None:
    """ "You may choose to stop at any time" (DD-13: players still level share the win)."""
    t = Table(3)
    verdicts = t.ok("stop")
    assert of(verdicts, Outcome.GAME_END) == ["Ana, Bea and Cy share the win."]
    t = Table(2, dash_count=1)
    verdicts = quick_round(t, 1, dealer=0)
    assert of(verdicts, Outcome.GAME_END) == ["Bea wins the game."]


def test_a_reshuffle_of_one_card_says_one_card() -> None:
    """ "If you run out of cards in the draw pile, reshuffle the discard pile" (DD-7), said
    without "1 cards"."""
    t = Table(2)
    t.ok("deal", dealer=1, hands=[12, 12], start="G5")
    t.state = replace(t.state, round=replace(t.rnd, draw_pile=Hidden((), 1)))
    assert t.bad("reshuffle") == "The draw pile still has 1 card: reshuffle only when it runs out."
    t.state = replace(t.state, round=replace(t.rnd, draw_pile=Hidden((), 0)))
    verdicts = t.ok("reshuffle")
    assert of(verdicts, Outcome.LEGAL) == [
        "The discard pile was shuffled into a new draw pile of 1 card."
    ]


def test_a_scripted_tally_refusal_says_1_card() -> None:
    """DD-20's refusal lists the hands the referee knows, without "1 cards"."""
    t = Table(2, dash_count=2)
    known = RoundResult(1, 0, RoundEnd.FINISHED, (0, 1), (0, 1), scripted=True)
    t.state = replace(t.state, results=(known,), last_dealer=1)
    assert t.bad("tally", hands=[0, 1]) == (
        "Dash 1 was dealt card by card, so the referee knows every hand "
        "(Ana 0, Bea 1 card): a tally is only for table mode."
    )
    assert GAME.scoreboard(t.state).totals == (0, 1)


def test_a_block_on_a_player_who_still_loses_a_turn_says_which_turn_returns_it() -> None:
    """DD-10's order (the lost turn first, then the turn returning the card) was right, but
    the Block You's verdict said the victim's *next* turn returned it (review r31)."""
    from referee.events import Event

    state = GAME.new_state(["Ana", "Bea", "Cy"], {})
    said = []
    for kind, seat, payload in [
        ("deal", 2, {"hands": [12, 12, 12], "start": "G5"}),
        ("draw", 0, {}),
        ("discard", 0, {"card": "SKIP", "target": 2}),
        ("draw", 1, {}),
        ("discard", 1, {"card": "BLOCK", "target": 2}),
    ]:
        state, verdicts = GAME.apply(state, Event(kind, seat, payload))
        said = [v.reason for v in verdicts]
    assert said[0] == (
        "Bea put Block You in front of Cy: Cy first loses 1 turn, then spends the next one "
        "returning it."
    )
    assert "Cy loses this turn." in said
