"""Review 37: DOS-25 at a camera table — a drawn card laid as the hand's last card, a late
draw that would make one copy too many (DOS-20), and a named hand's refusal of the camera's
play of a card just drawn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from referee.dos.cards import parse_card
from referee.dos.game import GAME
from referee.dos.state import DosState, Phase, PileTurn
from referee.events import Event
from referee.game import new_game_options
from referee.hands import Hidden
from referee.replay import replay
from referee.verdicts import Outcome
from tests.test_dos_reread import _apply, _ok, _refused
from tests.test_web_routes import Tablet, make_app

PLAYERS = ["Ann", "Bea", "Cal"]


def _set_up_now(**options: Any) -> dict[str, Any]:
    """The options a game set up now stores (the dashboard's ``new_game_options``)."""
    return new_game_options(GAME.options(), options)


def _table(rounds: int = 1, **options: Any) -> DosState:
    """Table mode, set up now: two unseen cards each, Ann starts."""
    state = GAME.new_state(PLAYERS, _set_up_now(hand_size=2, rounds=rounds, **options))
    return _ok(state, "deal", hands=[2, 2, 2], piles=["B7", "R9"], stock=50)


def _sizes(state: DosState) -> list[int]:
    return [len(h) for h in state.hands]


def _outcomes(verdicts: list[Any]) -> list[Outcome]:
    return [v.outcome for v in verdicts]


def _last_card_laid() -> DosState:
    """Ann (2 cards) plays R4 on the right from her hand, then lays B2 on the left: the card
    she drew for it, or her last card. The camera logs the play before the draw is typed."""
    state = _ok(_table(), "play", 0, card="R4", pile="right")
    return _ok(state, "play", 0, card="B2", pile="left")


def _countered_down_to_one() -> DosState:
    """Cal's blue Draw Four waits for Ann (2 cards); she counters it down to one card."""
    state = GAME.new_state(PLAYERS, _set_up_now(hand_size=2))
    state = _ok(state, "deal", hands=[2, 2, 2], piles=["B7", "R9"], stock=50, dealer=1)
    state = _ok(state, "play", 2, card="BD4", pile="left")
    state = _ok(state, "draw", 2, pile="right")
    state = _ok(state, "end_turn", 2)
    return _ok(state, "counter", 0, card="BSKIP", pile="left")


# -- 1. a drawn card laid as the hand's last card (DOS-25, DOS-14) ------------------------
def test_ruling_dos25_a_late_drawn_last_card_does_not_end_the_deal() -> None:
    """Case B: the drawn B2 took the count to 0, and the typed draw was refused ("The game
    is over.") with Ann the winner. Now the round waits: the draw says B2 was the drawn
    card, Ann holds one, and her turn ends with the last-card draw of 3 (DOS-13)."""
    state = _ok(_table(), "play", 0, card="R4", pile="right")
    played, verdicts = _apply(state, "play", 0, card="B2", pile="left")
    assert _outcomes(verdicts) == [Outcome.LEGAL, Outcome.PROMPT]
    assert "if the blue 2 on the left pile was the card Ann drew for it" in verdicts[1].reason
    assert played.phase is Phase.PLAY and played.winners == ()
    state, verdicts = _apply(played, "draw", 0, pile="left")
    assert "the blue 2 played on it was the card drawn" in verdicts[0].reason
    assert "Ann draws 3: ended the turn holding one card." in [v.reason for v in verdicts]
    assert _sizes(state) == [4, 2, 2] and state.turn == 1 and state.phase is Phase.PLAY
    # as the draw entered first leaves it
    first = _ok(_ok(_table(), "play", 0, card="R4", pile="right"), "draw", 0, pile="left")
    first = _ok(first, "play", 0, card="B2", pile="left")
    assert (state.hands, state.piles, state.stock, state.turn) == (
        first.hands,
        first.piles,
        first.stock,
        first.turn,
    )


def test_ruling_dos25_a_late_drawn_last_card_after_a_counter_keeps_the_turn() -> None:
    """Case A: the counter took Ann to one card; the drawn B2 laid on the left took the
    count to 0. After the draw she holds one card and may still play on the right pile."""
    state = _ok(_countered_down_to_one(), "play", 0, card="B2", pile="left")
    assert state.phase is Phase.PLAY and state.current.last_card_waits == 0
    state = _ok(state, "draw", 0, pile="left")
    assert _sizes(state) == [1, 2, 2] and state.turn == 0
    assert state.current.piles == (PileTurn.DRAWN_PLAYED, PileTurn.OPEN)
    assert state.current.last_card_waits is None
    # her last card on the right may be a drawn card too: it waits again
    state = _ok(state, "play", 0, card="R5", pile="right")
    assert state.current.last_card_waits == 1
    state, verdicts = _apply(state, "end_turn", 0)
    assert _outcomes(verdicts) == [Outcome.ROUND_END, Outcome.GAME_END]
    assert state.winners == (0,)


def test_ruling_dos25_a_last_card_that_waits_ends_the_round_with_the_players_end_of_turn() -> None:
    """Ann did go out: her end of turn ends the round with the verdicts an end at once gave
    (the option set to 'ends'), and the two games end the same."""
    state, verdicts = _apply(_last_card_laid(), "end_turn", 0)
    at_once = _ok(_table(late_last_card="ends"), "play", 0, card="R4", pile="right")
    at_once, said = _apply(at_once, "play", 0, card="B2", pile="left")
    assert [v.to_dict() for v in verdicts] == [v.to_dict() for v in said[1:]]
    assert _outcomes(verdicts) == [Outcome.ROUND_END, Outcome.GAME_END]
    assert state.phase is Phase.FINISHED and state.winners == (0,)
    assert (state.rounds, state.winners, state.end_reason) == (
        at_once.rounds,
        at_once.winners,
        at_once.end_reason,
    )


def test_ruling_dos25_while_a_last_card_waits_other_entries_are_refused() -> None:
    """Any other entry (but another player's DOS call or callout, below) is refused, saying
    what to enter, and changes nothing; the wait goes on."""
    state = _last_card_laid()
    for kind, seat, payload in [
        ("play", 1, {"card": "B3", "pile": "left"}),
        ("draw", 0, {"pile": "right"}),
        ("end_turn", 1, {}),
        ("deal", None, {"hands": [2, 2, 2], "piles": ["B7", "R9"]}),
    ]:
        reason = _refused(state, kind, seat, **payload)
        assert reason.startswith("Ann's last card waits first: if the blue 2 on the left pile")
        assert reason.endswith("if not, end Ann's turn and the round is over.")
    assert "not blue 4" in _refused(state, "draw", 0, pile="left", card="B4")


def test_ruling_dos25_in_a_match_the_next_deal_ends_the_round_first() -> None:
    state = _ok(_table(rounds=2), "play", 0, card="R4", pile="right")
    state = _ok(state, "play", 0, card="B2", pile="left")
    state, verdicts = _apply(state, "deal", hands=[2, 2, 2], piles=["G1", "G2"])
    assert _outcomes(verdicts) == [Outcome.ROUND_END, Outcome.LEGAL]
    assert state.rounds == ((0, 2, 2),) and state.round == 2 and state.phase is Phase.PLAY


def test_ruling_dos25_the_tablet_shows_the_last_card_waiting() -> None:
    state = _last_card_laid()
    assert GAME.view(state)["last_card_waits"] == {"seat": 0, "pile": "left", "card": "B2"}
    lines = {line.label: line.text for line in GAME.table(state)}
    assert (
        "enter Ann's draw for the left pile if the blue 2 was the card drawn"
        in (lines["Last card"])
    )
    assert GAME.view(_ok(state, "draw", 0, pile="left"))["last_card_waits"] is None


def test_ruling_dos25_a_last_card_that_cannot_be_a_drawn_card_ends_the_round_at_once() -> None:
    """A named hand, a pile already drawn for, an empty draw pile, a stored game (no
    ``late_last_card``, or ``late_draw: refused``): the end comes at once, as before."""
    named = GAME.new_state(PLAYERS, _set_up_now(hand_size=1))
    named = _ok(named, "deal", hands=[["B2"], ["G1"], ["G2"]], piles=["B7", "R9"], stock=9)
    drawn = GAME.new_state(PLAYERS, _set_up_now(hand_size=1))
    drawn = _ok(drawn, "deal", hands=[1, 1, 1], piles=["B7", "R9"], stock=9)
    drawn = _ok(_ok(drawn, "draw", 0, pile="left"), "play", 0, card="R4", pile="right")
    empty = GAME.new_state(PLAYERS, _set_up_now(hand_size=1))
    empty = _ok(empty, "deal", hands=[1, 1, 1], piles=["B7", "R9"], stock=0)
    stored = GAME.new_state(PLAYERS, {"hand_size": 1, "late_draw": "played"})
    stored = _ok(stored, "deal", hands=[1, 1, 1], piles=["B7", "R9"], stock=9)
    refused = GAME.new_state(PLAYERS, _set_up_now(hand_size=1, late_draw="refused"))
    refused = _ok(refused, "deal", hands=[1, 1, 1], piles=["B7", "R9"], stock=9)
    for state in (named, drawn, empty, stored, refused):
        state, verdicts = _apply(state, "play", 0, card="B2", pile="left")
        assert Outcome.ROUND_END in _outcomes(verdicts) and state.phase is Phase.FINISHED


def test_ruling_dos25_a_last_card_that_waits_replays_as_it_was_judged() -> None:
    """The wait is part of the state: a log with it replays (through JSON) to the same
    states and verdicts, the refused entry in it included."""
    options = _set_up_now(hand_size=2)
    events = [
        Event("deal", None, {"hands": [2, 2, 2], "piles": ["B7", "R9"], "stock": 50}),
        Event("play", 0, {"card": "R4", "pile": "right"}),
        Event("play", 0, {"card": "B2", "pile": "left"}),
        Event("call", 1),
        Event("draw", 0, {"pile": "left"}),
    ]
    state = GAME.new_state(PLAYERS, options)
    said = []
    for event in events:
        state, verdicts = GAME.apply(state, event)
        said.append([v.to_dict() for v in verdicts])
    logged = [Event.from_json(e.to_json()) for e in events]
    again = replay(GAME, PLAYERS, json.loads(json.dumps(options)), logged)
    assert again.state == state and _sizes(state) == [4, 2, 2]
    assert [[v.to_dict() for v in step.verdicts] for step in again.steps] == said


def test_ruling_dos25_the_option_reaches_games_set_up_now_only(tmp_path: Path) -> None:
    """A stored game lacks the key and keeps 'ends': every table-mode game's last play
    would otherwise wait on replay, and a finished game would read as unfinished."""
    spec = next(s for s in GAME.options() if s.name == "late_last_card")
    assert (spec.default, spec.new_default, spec.ruling) == ("ends", "waits", "DOS-25")
    tablet = Tablet(make_app(tmp_path))
    assert tablet.set_pin().status_code == 302
    made = tablet.post("/api/games", {"game": "dos", "players": ["Ann", "Bea"], "options": {}})
    assert tablet.services.games.record(made.json["id"]).options["late_last_card"] == "waits"


# -- 2. a late draw counts the copies (DOS-20, DOS-25) ------------------------------------
def test_ruling_dos25_a_late_draw_cannot_make_a_seventh_copy() -> None:
    """Ann plays her named red 7; the draw typed after says it was a drawn one, so her hand
    keeps a red 7. With the other five named in hands that is a seventh: check the card."""
    state = GAME.new_state(PLAYERS, {"hand_size": 3, "late_draw": "played"})
    hands = [["R7", "G5", "B9"], ["R7", "R7", "R7"], ["R7", "R7", "Y4"]]
    state = _ok(state, "deal", hands=hands, piles=["R1", "G2"], stock=20)
    state = _ok(state, "play", 0, card="R7", pile="left")
    reason = _refused(state, "draw", 0, pile="left")
    assert reason.startswith("The deck has only 6 red 7 cards, but this makes 7")
    assert reason.endswith("check the card.")
    # with a copy to spare the late draw stands and Ann keeps her named red 7
    spare = GAME.new_state(PLAYERS, {"hand_size": 3, "late_draw": "played"})
    hands = [["R7", "G5", "B9"], ["R7", "R7", "Y1"], ["R7", "R7", "Y4"]]
    spare = _ok(spare, "deal", hands=hands, piles=["R1", "G2"], stock=20)
    spare = _ok(_ok(spare, "play", 0, card="R7", pile="left"), "draw", 0, pile="left")
    assert spare.hands[0] == Hidden(tuple(map(parse_card, ["G5", "B9", "R7"])), 0)


# -- 3. a named hand's refusal of a card just drawn (DOS-25) -------------------------------
def test_ruling_dos25_a_known_hands_refusal_hints_at_entering_the_draw_first() -> None:
    def named(stock: int = 30, **options: Any) -> DosState:
        """docs/EVENTS.md's hybrid mode: hands named, the draw pile counted."""
        state = GAME.new_state(PLAYERS, {"hand_size": 3, **options})
        hands = [["Y1", "Y2", "Y3"], ["B1", "B2", "B3"], ["G1", "G2", "G3"]]
        return _ok(state, "deal", hands=hands, piles=["R7", "Y9"], stock=stock)

    late = named(late_draw="played")
    assert _refused(late, "play", 0, card="R3", pile="left") == (
        "Ann does not hold a red 3. If Ann drew it just now for the left pile, enter that "
        "draw first."
    )
    # no hint where a draw could not explain it: the card does not match the pile, the
    # draw pile is empty, or the game reads no late draw
    assert _refused(late, "play", 0, card="G3", pile="left") == "Ann does not hold a green 3."
    empty = named(stock=0, late_draw="played")
    assert _refused(empty, "play", 0, card="R3", pile="left") == "Ann does not hold a red 3."
    old = named()
    assert _refused(old, "play", 0, card="R3", pile="left") == "Ann does not hold a red 3."


def test_ruling_dos25_another_players_call_while_a_last_card_waits_counts() -> None:
    """Bea's DOS call (a pad press: not sent again if refused) while Ann's last card waits for
    its draw counts, as it does had the draw come first; the wait goes on. Before, it was
    refused and Cal's callout then made Bea draw 2."""

    def apply(state: Any, kind: str, seat: int | None = None, **payload: Any) -> Any:
        state, verdicts = GAME.apply(state, Event(kind, seat, payload))
        assert all(v.outcome.value != "illegal" for v in verdicts), verdicts
        return state

    state = GAME.new_state(
        ["Ann", "Bea", "Cal"], new_game_options(GAME.options(), {"hand_size": 4})
    )
    state = apply(state, "deal", hands=[4, 4, 4], piles=["B7", "R9"], stock=50, dealer=2)
    for seat, right, left in ((0, "R4", "B2"), (1, "R5", "B3"), (2, "R6", "B4")):
        state = apply(state, "play", seat, card=right, pile="right")
        if seat != 1:
            state = apply(state, "call", seat)
        state = apply(state, "play", seat, card=left, pile="left")
    state = apply(state, "play", 0, card="R8", pile="right")
    state = apply(state, "play", 0, card="B5", pile="left")  # the card Ann drew, laid at once
    assert state.current.last_card_waits == 0
    state = apply(state, "call", 1)  # before: "Ann's last card waits first: …"
    assert state.current.last_card_waits == 0  # still waiting for the draw
    state = apply(state, "draw", 0, pile="left")
    _, verdicts = GAME.apply(state, Event("callout", 2, {"target": 1}))
    assert [v.reason for v in verdicts] == ["Bea did call DOS."]
