"""Review 35: the camera at a DOS table — nothing proposed between deals, and a card seen
while the player on turn may have only their ``end_turn`` left is asked about (TBL-3)."""

from __future__ import annotations

from typing import Any

from referee.dos.game import GAME
from referee.dos.state import DosState
from referee.events import Event
from tests.test_dos_reread import _ok
from tests.test_table_events import layout, obs
from vision.table.to_events import EventMapper, Prompt
from web.services.referee_camera import pile_tops, seat_on_turn


def _mapper(state: DosState) -> EventMapper:
    """A camera that knows the game as ``CameraReferee`` tells it: view and pile tops."""
    mapper = EventMapper("dos", layout())
    view = GAME.view(state)
    mapper.note_view(view)
    for zone, top in pile_tops("dos", view, ["discard_1", "discard_2"]).items():
        if top:
            mapper.note_top(zone, top)
    return mapper


def _sees(mapper: EventMapper, state: DosState, zone: str, before: str, after: str) -> list[Any]:
    return mapper.propose(obs(zone, [before], [after]), seat_on_turn(GAME.view(state)))


def _round_one_over() -> DosState:
    state = GAME.new_state(["Ann", "Bea", "Cal"], {"hand_size": 2, "rounds": 2})
    state = _ok(state, "deal", hands=[2, 2, 2], piles=["R7", "B9"])
    state = _ok(state, "play", 0, card="R1", pile="left")
    return _ok(state, "play", 0, card="B1", pile="right")  # Ann goes out


def test_ruling_tbl3_nothing_is_proposed_on_dos_piles_between_deals() -> None:
    """The dealer turning up the next round's cards was asked about as "Who played G5?"."""
    state = _round_one_over()
    assert GAME.view(state)["phase"] == "deal"
    mapper = _mapper(state)
    assert _sees(mapper, state, "discard_1", "R1", "G5") == []
    assert _sees(mapper, state, "discard_2", "B1", "Y3") == []
    # the deal names them; the next play is the player on turn's, as before
    state = _ok(state, "deal", hands=[2, 2, 2], piles=["G5", "Y3"])
    mapper.note_view(GAME.view(state))
    mapper.note_top("discard_1", "G5")
    mapper.note_top("discard_2", "Y3")
    assert _sees(mapper, state, "discard_1", "G5", "G5") == []
    (event,) = _sees(mapper, state, "discard_1", "G5", "G2")
    assert isinstance(event, Event) and (event.kind, event.seat) == ("play", 1)


def _table() -> DosState:
    state = GAME.new_state(["Ann", "Bea", "Cal"], {"hand_size": 5})
    return _ok(state, "deal", hands=[5, 5, 5], piles=["R7", "B9"])


def test_ruling_tbl3_a_card_after_both_piles_are_done_asks_who_played() -> None:
    """Ann played on the left and drew for the right; her ``end_turn`` is not entered yet.
    Bea's card on the right pile was booked to Ann as her drawn card."""
    state = _ok(_ok(_table(), "play", 0, card="R3", pile="left"), "draw", 0, pile="right")
    (prompt,) = _sees(_mapper(state), state, "discard_2", "B9", "B4")
    assert isinstance(prompt, Prompt) and prompt.kind == "who_played"
    assert prompt.message == (
        "Who played B4? Ann has played on or drawn for both piles: it may be the next "
        "player's card."
    )
    assert prompt.suggestion is not None and prompt.suggestion.seat is None
    assert dict(prompt.suggestion.payload) == {"card": "B4", "pile": "right"}


def test_ruling_tbl3_two_draws_leave_only_end_turn_too() -> None:
    state = _ok(_ok(_table(), "draw", 0, pile="left"), "draw", 0, pile="right")
    (prompt,) = _sees(_mapper(state), state, "discard_1", "R7", "R2")
    assert isinstance(prompt, Prompt) and prompt.kind == "who_played"


def test_a_pile_still_open_keeps_the_card_the_turn_players() -> None:
    state = _ok(_table(), "draw", 0, pile="right")
    (event,) = _sees(_mapper(state), state, "discard_1", "R7", "R2")
    assert isinstance(event, Event) and event.seat == 0


def test_ruling_tbl3_a_closed_pile_without_its_draw_counts_as_done() -> None:
    """With ``draw_for_blocked_pile`` off a pile closed by a Skip needs nothing (DOS-7): one
    draw for the other pile leaves only ``end_turn``; with it on, the closed pile still
    wants its draw, so the card is the turn player's."""
    for draws, expected in ((False, Prompt), (True, Event)):
        state = GAME.new_state(
            ["Ann", "Bea", "Cal"], {"hand_size": 5, "draw_for_blocked_pile": draws}
        )
        state = _ok(state, "deal", hands=[5, 5, 5], piles=["R7", "B9"])
        state = _ok(state, "play", 0, card="RSKIP", pile="left")
        state = _ok(state, "play", 0, card="B2", pile="right")  # Bea: the left pile closed
        state = _ok(state, "draw", 1, pile="right")
        (proposal,) = _sees(_mapper(state), state, "discard_2", "B2", "B6")
        assert isinstance(proposal, expected), draws
