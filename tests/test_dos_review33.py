"""Review 33: DOS at a camera table, card tokens with non-ASCII digits, DOS-6 with an unnamed
draw, and a DOS call the player cannot make good (DOS-12).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.cards import CardParseError
from referee.cards import parse_card as dd_parse_card
from referee.cli import main as tabletop
from referee.deckdash.game import GAME as DECK_DASH
from referee.dos.cards import parse_card as dos_parse_card
from referee.dos.game import GAME
from referee.dos.state import DosState
from referee.events import Event, EventError
from referee.hitthedeck.cards import parse_card as htd_parse_card
from referee.hitthedeck.game import GAME as HIT_THE_DECK
from referee.verdicts import Outcome
from tests.test_dos_reread import _apply, _ok, _refused
from tests.test_table_events import layout, obs
from vision.table.to_events import EventMapper, Prompt
from web.services.referee_camera import seat_on_turn


def _named_hands(**options: Any) -> DosState:
    """Hands named, the draw pile only counted (docs/EVENTS.md's hybrid example)."""
    state = GAME.new_state(["Ann", "Bea", "Cal"], {"hand_size": 3, **options})
    hands = [["Y1", "Y2", "Y3"], ["B1", "B2", "B3"], ["G1", "G2", "G3"]]
    return _ok(state, "deal", hands=hands, piles=["R7", "R9"], stock=30)


# -- 1. an out-of-turn Draw Four counter seen by the camera (DOS-10) ----------------------
def _four_then_reverse() -> DosState:
    """Ann plays a blue Draw Four on the left and a Reverse on the right: the turn goes to
    Cal, while Bea, the victim, may still counter out of turn (DOS-10)."""
    state = GAME.new_state(["Ann", "Bea", "Cal"], {"hand_size": 5})
    state = _ok(state, "deal", hands=[5, 5, 5], piles=["B7", "R9"])
    state = _ok(state, "play", 0, card="BD4", pile="left")
    return _ok(state, "play", 0, card="RREV", pile="right")


def _camera(state: DosState) -> EventMapper:
    mapper = EventMapper("dos", layout())
    mapper.note_view(GAME.view(state))
    return mapper


def test_ruling_tbl3_the_camera_books_an_out_of_turn_counter_to_the_victim() -> None:
    """A blue Skip laid on the waiting blue Draw Four is Bea's counter, not a play by Cal,
    who is on turn: booked to Cal it made Bea draw 4 and Cal play a Skip."""
    state = _four_then_reverse()
    view = GAME.view(state)
    assert view["turn"] == 2 and view["pending_draw_fours"][0]["victim"] == 1
    (event,) = _camera(state).propose(obs("discard_1", ["BD4"], ["BSKIP"]), seat_on_turn(view))
    assert isinstance(event, Event) and (event.kind, event.seat) == ("play", 1)
    assert dict(event.payload) == {"card": "BSKIP", "pile": "left"}
    state, verdicts = GAME.apply(state, event)
    assert "Bea counters the blue Draw Four" in verdicts[0].reason
    assert [len(h) for h in state.hands] == [3, 4, 5] and not state.pending


@pytest.mark.parametrize(
    ("zone", "before", "card"),
    [
        ("discard_1", "BD4", "GSKIP"),  # another colour's Skip counters nothing
        ("discard_1", "BD4", "B3"),  # not a Skip
        ("discard_2", "RREV", "BSKIP"),  # the Draw Four's colour, on the other pile
    ],
)
def test_other_cards_stay_the_turn_players_plays(zone: str, before: str, card: str) -> None:
    state = _four_then_reverse()
    (event,) = _camera(state).propose(obs(zone, [before], [card]), 2)
    assert isinstance(event, Event) and event.seat == 2


def test_a_counter_asked_about_suggests_the_victim() -> None:
    """Unsure of the card, the camera asks; one tap must still send Bea's counter."""
    state = _four_then_reverse()
    (prompt,) = _camera(state).propose(obs("discard_1", ["BD4"], ["BSKIP"], conf=0.3), 2)
    assert isinstance(prompt, Prompt) and prompt.suggestion is not None
    assert prompt.suggestion.seat == 1


# -- 2. card tokens that are not ASCII -----------------------------------------
# Digits of other scripts pass str.isdigit() and int() reads them ("R\u096d" was R7), or
# int() refuses them: refused. Compatibility forms (a phone's full-width "R\uff17", "R\u00b2",
# a no-break space) are their ASCII letters and digits, as logs stored before read them.
FOREIGN_DIGITS = ["R\u096d", "R1\u0660", "R\u0663", "B\u09ea"]
COMPATIBLE = {"R\uff17": "R7", "R\u00b2": "R2", "g\uff11\uff10": "G10", "R7\u00a0": "R7"}


@pytest.mark.parametrize("token", FOREIGN_DIGITS)
def test_dos_tokens_need_ascii_digits(token: str) -> None:
    with pytest.raises(EventError, match="bad DOS card"):
        dos_parse_card(token)
    state = GAME.new_state(["Ann", "Bea", "Cal"], {"hand_size": 3})
    state = _ok(state, "deal", hands=[3, 3, 3], piles=["R5", "G2"])
    with pytest.raises(EventError, match="bad DOS card"):
        _apply(state, "play", 1, card=token, pile="left")


@pytest.mark.parametrize("token", FOREIGN_DIGITS)
def test_deck_dash_tokens_need_ascii_digits(token: str) -> None:
    with pytest.raises(CardParseError):
        dd_parse_card(token)
    state = DECK_DASH.new_state(["A", "B"], {})
    with pytest.raises(EventError, match="bad card"):
        DECK_DASH.apply(
            state, Event("deal", None, {"dealer": 0, "start": token, "hands": [12, 12]})
        )


@pytest.mark.parametrize("token", [*FOREIGN_DIGITS, "HIT\u096d"])
def test_hit_the_deck_tokens_need_ascii_digits(token: str) -> None:
    with pytest.raises(CardParseError):
        htd_parse_card(token)
    state = HIT_THE_DECK.new_state(["A", "B", "C"], {})
    with pytest.raises(EventError, match="bad card"):
        HIT_THE_DECK.apply(state, Event("deal", None, {"hands": [7, 7, 7], "draw": [token]}))


def test_ascii_digits_still_read() -> None:
    assert str(dos_parse_card("R7")) == "R7" and str(dos_parse_card("g10")) == "G10"
    assert str(dd_parse_card("B12")) == "B12"
    assert str(htd_parse_card("y3")) == "Y3" and str(htd_parse_card("HIT9")) == "HIT9"


@pytest.mark.parametrize(("token", "read"), COMPATIBLE.items())
def test_compatibility_forms_read_as_their_ascii_card(token: str, read: str) -> None:
    """A stored game whose tokens a phone keyboard typed full-width still replays."""
    assert str(dos_parse_card(token)) == read
    assert str(dd_parse_card(token)) == read
    if read != "G10":  # Hit the Deck's numbers stop at 9
        assert str(htd_parse_card(token)) == read


def test_replay_of_an_odd_digit_is_one_line_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "sup.jsonl"
    lines = [
        {"game": "dos", "players": ["Ann", "Bea", "Cal"], "options": {"hand_size": 3}},
        {"kind": "deal", "payload": {"hands": [3, 3, 3], "piles": ["R7", "G2"]}},
        {"kind": "play", "seat": 0, "payload": {"card": "R\u096d", "pile": "left"}},
    ]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert tabletop(["replay", str(log)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("tabletop replay:") and "bad DOS card" in err and "\n" not in err


# -- 3. DOS-6 with hands named and a draw unnamed ------------------------------------------
def test_ruling_dos6_a_play_that_can_only_be_the_unnamed_draw_is_doubted() -> None:
    """DOS-6: "You draw one card per discard pile you are unable to play." Ann holds Y1 Y2
    Y3 and draws a card nobody names for the left pile: a red 4 on the right pile can only
    be that card. The referee says so (undo it if so); it does not refuse the play, because
    a game stored before day 33 may hold one and a refusal would refuse all that follows.
    Before, it said nothing."""
    state = _ok(_named_hands(), "draw", 0, pile="left")
    _, verdicts = _apply(state, "play", 0, card="R4", pile="right")
    assert [v.outcome for v in verdicts][:2] == [Outcome.LEGAL, Outcome.INFO]
    assert verdicts[1].reason == (
        "Ann held no red 4 before drawing: it can only be the card drawn for the other pile, "
        "which may go on that pile only (DOS-6). If so, undo this play."
    )
    assert verdicts[1].seat == 0
    _, verdicts = _apply(state, "play", 0, card="R4", pile="left")  # its own pile: no doubt
    assert not [v for v in verdicts if "DOS-6" in v.reason]
    _, verdicts = _apply(state, "play", 0, card="Y1", pile="right")  # a card she held
    assert not [v for v in verdicts if "DOS-6" in v.reason]


def test_ruling_dos6_named_cards_still_go_on_the_other_pile() -> None:
    """The reservation holds back only the unnamed drawn card: Ann's own yellow 1 may still
    go on the right pile (a yellow 9 there now)."""
    state = GAME.new_state(["Ann", "Bea", "Cal"], {"hand_size": 3})
    hands = [["Y1", "Y2", "Y3"], ["B1", "B2", "B3"], ["G1", "G2", "G3"]]
    state = _ok(state, "deal", hands=hands, piles=["R7", "Y9"], stock=30)
    state = _ok(state, "draw", 0, pile="left")
    _ok(state, "play", 0, card="Y1", pile="right")


def test_ruling_dos6_table_mode_hands_are_unaffected() -> None:
    """Hands only counted: any card may be one Ann held before drawing."""
    state = GAME.new_state(["Ann", "Bea", "Cal"], {"hand_size": 1})
    state = _ok(state, "deal", hands=[1, 1, 1], piles=["R7", "R9"])
    state = _ok(state, "draw", 0, pile="left")
    state, verdicts = _apply(state, "play", 0, card="R4", pile="right")
    assert len(state.hands[0]) == 1 and not [v for v in verdicts if "DOS-6" in v.reason]


# -- 4. DOS-12: a call the player cannot make good ----------------------------------------
def test_ruling_dos12_a_drawn_card_that_cannot_be_played_is_not_a_card_to_play() -> None:
    """DOS-12: "If once you've played a card, you are left with only two cards in your
    hand, you must shout "DOS"". Ann draws a blue 5 for the left pile (a red 7): it cannot
    go there, so holding four she can get down to three at best. Her call was accepted."""
    state = _ok(_named_hands(), "draw", 0, pile="left", card="B5")
    reason = _refused(state, "call", 0)
    assert reason == "Ann has 4 cards: DOS is called when you are down to two."


def test_ruling_dos12_a_drawn_card_that_matches_still_counts() -> None:
    """A red drawn card can still go on the red 7, so Ann on four may call before both
    plays."""
    state = _ok(_named_hands(), "draw", 0, pile="left", card="R5")
    _ok(state, "call", 0)
    unnamed = _ok(_named_hands(), "draw", 0, pile="left")  # unnamed: it may match
    _ok(unnamed, "call", 0)
