"""Review 35: DOS — a draw entered after the camera logged its card's play (DOS-25), a
malformed reshuffle, the leaders of a game ended mid-deal (DOS-15, WEB-1), and wording.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from referee.dos.cards import format_cards, parse_card, parse_cards
from referee.dos.deck import full_deck
from referee.dos.game import GAME
from referee.dos.state import DosState, PileTurn
from referee.events import Event, EventError
from referee.hands import Hidden
from referee.verdicts import Outcome
from tests.test_dos_reread import _apply, _ok, _refused
from tests.test_web_routes import Tablet, make_app

LATE = {"late_draw": "played"}  # DOS-25's reading, as a game set up from day 35 stores it


def _table(size: int = 2, **options: Any) -> DosState:
    """Table mode: hands and draw pile only counted."""
    state = GAME.new_state(["Ann", "Bea", "Cal"], {"hand_size": size, **LATE, **options})
    return _ok(state, "deal", hands=[size] * 3, piles=["R7", "B9"])


def _sizes(state: DosState) -> list[int]:
    return [len(h) for h in state.hands]


# -- 1. a draw entered after the play of the card drawn (DOS-25) ---------------------------
def test_ruling_dos25_a_draw_after_the_play_of_its_card_is_accepted() -> None:
    """Ann (2 cards) draws R3 for the left pile and plays it at once; the camera logs the play
    before the draw is typed. The draw was refused, so Ann went out one card early."""
    state = _ok(_table(), "play", 0, card="R3", pile="left")
    stock = len(state.stock)
    state, verdicts = _apply(state, "draw", 0, pile="left")
    assert verdicts[0].outcome is Outcome.LEGAL
    assert "the red 3 played on it was the card drawn" in verdicts[0].reason
    assert "Ann is down to two cards: say DOS!" in [v.reason for v in verdicts]
    assert _sizes(state) == [2, 2, 2] and len(state.stock) == stock - 1
    assert state.hands[0] == Hidden(unknown=2)  # the unseen card the play took, given back
    assert state.current.piles[0] is PileTurn.DRAWN_PLAYED
    state = _ok(state, "play", 0, card="B5", pile="right")  # 1 left: draws 3 (DOS-13)
    assert _sizes(state) == [4, 2, 2] and state.turn == 1


def test_ruling_dos25_one_draw_per_pile_still() -> None:
    state = _ok(_ok(_table(), "play", 0, card="R3", pile="left"), "draw", 0, pile="left")
    reason = _refused(state, "draw", 0, pile="left")
    assert reason == "You have already drawn for and played on the left pile this turn."


def test_ruling_dos25_a_named_late_draw_must_be_the_card_played() -> None:
    state = _ok(_table(), "play", 0, card="R3", pile="left")
    assert "not blue 4" in _refused(state, "draw", 0, pile="left", card="B4")
    state = _ok(state, "draw", 0, pile="left", card="R3")
    assert state.current.drawn[0] == parse_card("R3")
    assert state.hands[0] == Hidden(unknown=2)


def _scripted(stock_top: list[str]) -> DosState:
    """Every card named: Ann holds R3 G1 G2, Bea Y1 Y2 Y3, the draw pile starts with
    ``stock_top``, then the rest of the deck."""
    hands = [["R3", "G1", "G2"], ["Y1", "Y2", "Y3"]]
    piles = ["R7", "B9"]
    rest = Counter(full_deck("1-10")) - Counter(parse_cards(hands[0] + hands[1] + piles))
    rest -= Counter(parse_cards(stock_top))
    stock = stock_top + format_cards(sorted(rest.elements(), key=str))
    state = GAME.new_state(["Ann", "Bea"], {"hand_size": 3, **LATE})
    return _ok(state, "deal", hands=hands, piles=piles, stock=stock)


def test_ruling_dos25_scripted_the_known_top_card_must_be_the_card_played() -> None:
    """A named hand and draw pile: the hand keeps its named red 3 (the one played was the
    drawn copy), and a draw pile whose top card is another card refuses the late draw."""
    state = _ok(_scripted(["R3", "B4"]), "play", 0, card="R3", pile="left")
    stock = len(state.stock)
    state = _ok(state, "draw", 0, pile="left")
    assert Counter(state.hands[0].known) == Counter(parse_cards(["R3", "G1", "G2"]))
    assert state.hands[0].unknown == 0
    assert len(state.stock) == stock - 1 and state.stock.known[0] == parse_card("B4")
    other = _ok(_scripted(["B4", "R3"]), "play", 0, card="R3", pile="left")
    assert _refused(other, "draw", 0, pile="left") == (
        "The top card of the draw pile is blue 4, not the red 3 played on the left pile."
    )


def test_ruling_dos25_an_empty_draw_pile_gave_no_card() -> None:
    state = GAME.new_state(["Ann", "Bea"], {"hand_size": 2, **LATE})
    state = _ok(state, "deal", hands=[2, 2], piles=["R7", "B9"], stock=0)
    state = _ok(state, "play", 0, card="R3", pile="left")
    assert "The draw pile is empty" in _refused(state, "draw", 0, pile="left")


def test_ruling_dos25_after_an_unseen_reshuffle_the_card_leaves_the_pool() -> None:
    """The draw pile shuffled from R7 R5 B9 B5 (nobody saw the order): a draw naming the card
    played can have drawn it only if it is one of them (DOS-20), as a draw entered first."""
    state = GAME.new_state(["Ann", "Bea"], {"hand_size": 4, **LATE})
    state = _ok(state, "deal", hands=[4, 4], piles=["R7", "B9"], stock=0)
    state = _ok(state, "play", 0, card="R5", pile="left")
    state = _ok(state, "play", 0, card="B5", pile="right")
    state = _ok(state, "play", 1, card="R3", pile="left")
    state = _ok(state, "play", 1, card="B3", pile="right")
    state = _ok(state, "reshuffle")
    assert state.stock_pool is not None and len(state.stock) == 4
    played = _ok(state, "play", 0, card="R5", pile="left")
    drawn = _ok(played, "draw", 0, pile="left", card="R5")
    assert Counter(drawn.stock_pool or ()) == Counter(parse_cards(["R7", "B9", "B5"]))
    assert len(drawn.stock) == 3
    other = _ok(state, "play", 0, card="R4", pile="left")
    assert "held no red 4" in _refused(other, "draw", 0, pile="left", card="R4")


def _public(state: DosState) -> tuple[Any, ...]:
    """What the two orders of a draw and its card's play must agree on."""
    cur = state.current
    pool = None if state.stock_pool is None else Counter(state.stock_pool)
    return (
        state.piles,
        len(state.stock),
        state.stock.known,
        pool,
        _sizes(state),
        cur.piles,
        cur.played,
        cur.drawn,
        state.turn,
        state.called,
        state.exposed,
    )


@pytest.mark.parametrize("size", [2, 3, 4])
@pytest.mark.parametrize("named", [None, "R3"])
def test_ruling_dos25_a_late_draw_leaves_the_game_as_the_draw_entered_first(
    size: int, named: str | None
) -> None:
    state = _table(size)
    draw = {"pile": "left"} if named is None else {"pile": "left", "card": named}
    first = _ok(_ok(state, "draw", 0, **draw), "play", 0, card="R3", pile="left")
    late = _ok(_ok(state, "play", 0, card="R3", pile="left"), "draw", 0, **draw)
    assert _public(late) == _public(first)
    assert late.hands == first.hands  # table mode: nothing named in hand either way


def test_ruling_dos25_scripted_a_late_draw_leaves_the_game_as_the_draw_entered_first() -> None:
    scripted = _scripted(["R3", "B4"])
    first = _ok(_ok(scripted, "draw", 0, pile="left"), "play", 0, card="R3", pile="left")
    late = _ok(_ok(scripted, "play", 0, card="R3", pile="left"), "draw", 0, pile="left")
    assert _public(late) == _public(first)


def test_ruling_dos25_a_call_after_the_late_draw_covers_the_play_down_to_two() -> None:
    """Ann (3 cards) draws R3 and plays it, calls DOS, plays B5: two cards, called, no
    last-card draw. With the draw refused she ended on one card and drew 3."""
    state = _ok(_table(3), "play", 0, card="R3", pile="left")
    state = _ok(state, "draw", 0, pile="left")
    state = _ok(state, "call", 0)
    state = _ok(state, "play", 0, card="B5", pile="right")
    assert _sizes(state) == [2, 3, 3] and state.turn == 1


def test_ruling_dos25_a_stored_game_keeps_its_refused_late_draw_and_a_new_one_reads_it() -> None:
    """A game stored before day 35 (no ``late_draw`` in its options) replays its refused
    draw as refused, or its later events would be judged on other hands; a game set up on
    the dashboard stores ``played``. The reviewer's old log: the draw refused, Bea's draw
    legal; read anew, Bea's draw found the draw pile empty."""
    old = GAME.new_state(["Ann", "Bea", "Cal"], {"hand_size": 3})
    old = _ok(old, "deal", hands=[3, 3, 3], piles=["R7", "B9"])
    old = _ok(old, "play", 0, card="R3", pile="left")
    assert "already played on the left pile" in _refused(old, "draw", 0, pile="left")


def test_ruling_dos25_a_game_set_up_on_the_dashboard_stores_the_new_reading(tmp_path: Path):
    tablet = Tablet(make_app(tmp_path))
    assert tablet.set_pin().status_code == 302
    made = tablet.post("/api/games", {"game": "dos", "players": ["Ann", "Bea"], "options": {}})
    assert tablet.services.games.record(made.json["id"]).options["late_draw"] == "played"


def test_ruling_dos25_a_call_made_before_the_play_is_dropped_as_the_draw_first_drops_it():
    """Ann calls DOS at three cards, plays the drawn R3 (the camera), then the draw is typed:
    her call came before the draw, which drops it, so playing down to two without calling
    again can be caught, as when the draw is entered first."""
    caught = []
    for late in (False, True):
        state = _ok(_table(3), "call", 0)
        draw, play = ("draw", {"pile": "left"}), ("play", {"card": "R3", "pile": "left"})
        for kind, payload in [play, draw] if late else [draw, play]:
            state = _ok(state, kind, 0, **payload)
        state = _ok(state, "play", 0, card="B5", pile="right")
        _, verdicts = _apply(state, "callout", 1, target=0)
        caught.append(verdicts[0].outcome.name)
    assert caught == ["LEGAL", "LEGAL"]


# -- 3. a malformed reshuffle is malformed at any moment ------------------------------------
@pytest.mark.parametrize("stock", ["ZZ R1", -3, {"x": 1}])
def test_a_malformed_reshuffle_is_an_event_error_while_the_draw_pile_is_full(stock: Any) -> None:
    for state in (GAME.new_state(["Ann", "Bea"], {"hand_size": 3}), _table(3)):
        with pytest.raises(EventError, match=r"stock|DOS card"):
            GAME.apply(state, Event("reshuffle", None, {"stock": stock}))


def test_a_malformed_reshuffle_is_a_400_and_nothing_is_stored(tmp_path: Path) -> None:
    tablet = Tablet(make_app(tmp_path))
    assert tablet.set_pin().status_code == 302
    game = tablet.post("/api/games", {"game": "dos", "players": ["Ann", "Bea"], "options": {}})
    gid = game.json["id"]
    deal = {"kind": "deal", "payload": {"hands": [14, 14], "piles": ["R7", "B9"]}}
    assert tablet.send(gid, deal).status_code == 201
    r = tablet.send(gid, {"kind": "reshuffle", "payload": {"stock": "ZZ R1"}})
    assert r.status_code == 400 and "bad DOS card 'ZZ'" in r.json["error"]
    assert len(tablet.snapshot(gid)["feed"]) == 1


# -- 4. the leaders of a game ended mid-deal (DOS-15, WEB-1) ---------------------------------
def test_ruling_dos15_fewest_cards_in_hand_lead_during_a_deal() -> None:
    state = _ok(_table(4), "play", 0, card="R3", pile="left")
    state = _ok(state, "play", 0, card="B3", pile="right")
    board = GAME.scoreboard(state)
    assert board.totals == (0, 0, 0) and board.leaders == (0,)


def test_ruling_dos15_a_match_leads_by_totals_plus_the_hand_now() -> None:
    """Round 1 ends when the draw pile runs out (DOS-17): cards left 4, 3, 3. In round 2 Bea
    plays two and draws 3 for her last card: totals (4, 3, 3) plus hands (3, 4, 3) put Cal
    alone ahead, where the totals alone had Bea and Cal level."""
    options = {"hand_size": 3, "rounds": 2, "draw_pile_out_ends_game": True}
    state = GAME.new_state(["Ann", "Bea", "Cal"], options)
    state = _ok(state, "deal", hands=[3, 3, 3], piles=["R7", "B9"], stock=1)
    state = _ok(state, "draw", 0, pile="left")
    state = _ok(state, "draw", 0, pile="right")  # nothing left to draw
    state = _ok(state, "end_turn", 0)
    assert state.rounds == ((4, 3, 3),)
    assert GAME.scoreboard(state).leaders == (1, 2)  # between deals: the totals
    state = _ok(state, "deal", hands=[3, 3, 3], piles=["G7", "G9"])  # Ann deals: Bea starts
    state = _ok(state, "play", 1, card="G1", pile="left")
    state = _ok(state, "play", 1, card="G2", pile="right")
    board = GAME.scoreboard(state)
    assert _sizes(state) == [3, 4, 3] and board.totals == (4, 3, 3)
    assert board.leaders == (2,)


def test_ruling_dos15_a_one_deal_game_ended_early_has_the_fewest_cards_as_winner(
    tmp_path: Path,
) -> None:
    tablet = Tablet(make_app(tmp_path))
    assert tablet.set_pin().status_code == 302
    options = {"hand_size": 4}
    game = tablet.post("/api/games", {"game": "dos", "players": ["Ann", "Bea"], "options": options})
    gid = game.json["id"]
    for event in (
        {"kind": "deal", "payload": {"hands": [4, 4], "piles": ["R7", "B9"]}},
        {"kind": "play", "seat": 0, "payload": {"card": "R3", "pile": "left"}},
        {"kind": "play", "seat": 0, "payload": {"card": "B3", "pile": "right"}},
    ):
        assert tablet.send(gid, event).status_code == 201
    ended = tablet.post(f"/api/games/{gid}/end")
    assert ended.status_code == 200
    assert (ended.json["winners"], ended.json["winner_names"]) == ([0], ["Ann"])


def test_before_the_deal_everyone_is_level() -> None:
    board = GAME.scoreboard(GAME.new_state(["Ann", "Bea"], {}))
    assert board.leaders == (0, 1)


# -- 5. wording ---------------------------------------------------------------------------
def test_a_deal_of_one_card_each_says_card() -> None:
    state = GAME.new_state(["Ann", "Bea"], {"hand_size": 1})
    _, verdicts = _apply(state, "deal", hands=[1, 1], piles=["R7", "B9"])
    assert verdicts[0].reason.startswith("Round 1: 1 card each. Left pile red 7")


def test_the_summary_calls_the_two_discard_piles_piles() -> None:
    lines = {line.label: line.text for line in GAME.table(_table())}
    assert lines["Piles"] == "left red 7 (1 card) · right blue 9 (1 card)"
    assert "Centre row" not in lines
