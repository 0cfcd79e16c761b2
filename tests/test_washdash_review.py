"""Wash Dash: what a rules review (day 32) found, each test failing on the engine as it was.

* The game was reported ``finished``, with its winners, while a mistake's earlier card was
  still owed after the last round (WD-11); the web's End game then filed that provisional
  winner for good and the forfeit could never be entered.
* With 2 players and ``wrong_done = retry``, a pad's card-less ``done`` whose own reading
  completed none of the open cards was held, and so won the race (WD-18): the player who
  finished correctly later scored nothing, and any card named for the press was refused.
* The view named a First bonus winner in rounds without a First bonus card; a second
  forfeit was refused with "has no earlier card to give up".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.events import Event, Source
from referee.replay import replay
from referee.verdicts import Outcome
from referee.washdash.checker import example_dryer
from referee.washdash.deck import default_deck
from referee.washdash.game import GAME
from referee.washdash.state import earlier_tasks

DECK = default_deck()
TASKS = list(DECK.task_ids)
EVENTS = list(DECK.event_ids)
S = 1_000_000_000
EMPTY = {"bars": [[], [], []]}  # an empty dryer completes no task


def solved(card: str) -> dict[str, Any]:
    return example_dryer(DECK[card].task, ()).to_dict()  # type: ignore[arg-type]


def run(players: list[str], events: list[Event], options: dict[str, Any] | None = None):
    return replay(GAME, players, options or {}, events)


def said(step, outcome: Outcome) -> list[str]:
    return [v.reason for v in step.verdicts if v.outcome is outcome]


def last_round_mistake() -> list[Event]:
    """2 players, every event card in the box: 17 rounds of 2 task cards. The player behind
    takes a card each round; in the last round Ann, leading, takes one with a wrong dryer
    (the rules' mistake), so she owes an earlier card after the last round."""
    pile = TASKS[14:]
    events = [Event("setup", payload={"order": EVENTS + TASKS[:14] + pile})]
    pts = [0, 0]
    for r in range(17):
        card = pile[2 * r]
        events.append(Event("reveal"))
        if r < 16:
            seat = 0 if pts[0] <= pts[1] else 1
            events.append(Event("done", seat=seat, payload={"card": card, "dryer": solved(card)}))
            pts[seat] += DECK[card].points
        else:
            assert pts[0] > pts[1]
            events.append(Event("done", seat=0, payload={"card": card, "dryer": EMPTY}))
    return events


def test_ruling_wd11_the_game_is_not_finished_while_a_forfeit_is_owed():
    """The draw pile is empty and the last round over, but Ann still owes an earlier card:
    the totals will change, so nobody has won yet (the GAME_END verdict already said
    ``final: False``). Ann only leads for now; once she gives up her best card, Bob wins."""
    events = last_round_mistake()
    before = run(["Ann", "Bob"], events)
    (end,) = [v for v in before.steps[-1].verdicts if v.outcome is Outcome.GAME_END]
    assert end.data["final"] is False
    board = GAME.scoreboard(before.state)
    assert board.extra["owed_forfeit"] == [0]
    assert board.totals[0] > board.totals[1]
    assert not board.finished and board.winners == ()
    assert board.leaders == (0,) and board.turn is None  # no round to reveal
    assert GAME.view(before.state)["phase"] == "over"  # no more rounds, as before

    best = max(earlier_tasks(before.state, DECK, 0), key=lambda c: DECK[c].points)
    after = run(["Ann", "Bob"], [*events, Event("forfeit", seat=0, payload={"card": best})])
    board = GAME.scoreboard(after.state)
    assert board.finished and board.winners == (1,) and board.leaders == (1,)
    assert after.steps[-1].verdicts[-1].data == {
        "winners": [1],
        "totals": list(board.totals),
        "final": True,
    }


def test_ruling_wd11_ending_the_game_before_the_forfeit_files_no_finished_result(
    tmp_path: Path,
):
    """Through the web's GameService: End game while Ann owes her card files the game as
    ended early (WEB-1: who led then), not as finished by the rules with Ann its winner."""
    from web.services.games import GameService
    from web.services.hub import Hub
    from web.services.settings import Settings

    db = tmp_path / "t.db"
    games = GameService(db, Settings(db), Hub())
    game_id = games.create("wash-dash", ["Ann", "Bob"], {})
    for event in last_round_mistake():
        games.append(game_id, event)
    board = games.snapshot(game_id)["scoreboard"]
    assert board["finished"] is False and board["winners"] == [] and board["leaders"] == [0]
    summary = games.end(game_id)
    assert summary["finished"] is False


def test_ruling_wd14_the_leaders_rank_as_the_winners_do():
    """WD-14: the scoreboard's leaders (WEB-1's winners of a game ended early) are the
    rules' standing: most points, then fewest cards. Bob's two 1-point cards tie Ann's
    2-point card on points; Ann holds fewer cards, so she alone leads."""
    one = [c for c in TASKS if DECK[c].points == 1]
    two = next(c for c in TASKS if DECK[c].points == 2)
    rounds = [(two, 0), (one[0], 1), (one[1], 1)]
    events = [Event("setup")]
    for r, (card, seat) in enumerate(rounds):
        other = one[2 + r]
        events.append(Event("reveal", seat=r % 2, payload={"cards": [card, other]}))
        events.append(Event("done", seat=seat, payload={"card": card, "dryer": solved(card)}))
    board = GAME.scoreboard(run(["Ann", "Bob"], events).state)
    assert board.totals == (2, 2) and board.extra["cards"] == [1, 2]
    assert board.leaders == (0,)


# --- WD-19: retry refuses a card-less done whose reading completes no open card ---------


def pad(seat: int, t_ns: int, dryer: Any = None) -> Event:
    payload = {} if dryer is None else {"dryer": dryer}
    return Event("done", seat=seat, t_ns=t_ns, source=Source.PAD, payload=payload)


def opening() -> list[Event]:
    return [Event("setup"), Event("reveal", seat=0, t_ns=0, payload={"cards": ["T01", "T02"]})]


RETRY = {"wrong_done": "retry"}


def test_ruling_wd19_two_players_a_press_completing_no_card_does_not_win_the_race():
    """2 players, ``retry``: Ann's press carries a reading that completes neither T01 nor
    T02. Any card named for it would be refused, so it is not held: "not yet", and Bob, who
    finishes T02 correctly a second later, scores (rules: "only the first player to
    complete a task scores points")."""
    events = [*opening(), pad(0, 5 * S, EMPTY)]
    refused = run(["Ann", "Bob"], events, RETRY)
    (text,) = said(refused.steps[-1], Outcome.ILLEGAL)
    assert text.startswith("Ann, not yet — the dryer completes none of the open task cards")
    assert "press done again" in text
    assert refused.state.current.presses == ()
    bob = Event("done", seat=1, t_ns=6 * S, payload={"card": "T02", "dryer": solved("T02")})
    result = run(["Ann", "Bob"], [*events, bob], RETRY)
    assert said(result.steps[-1], Outcome.LEGAL)[0].startswith("Bob takes T02")
    assert GAME.scoreboard(result.state).totals == (0, DECK["T02"].points)


def test_ruling_wd17_a_press_without_a_reading_is_still_held_with_retry():
    """WD-17/WD-18 unchanged: a press carrying no reading is held (and wins a 2-player
    race); so is one with the rules' penalty, whatever its reading."""
    held = run(["Ann", "Bob"], [*opening(), pad(0, 5 * S)], RETRY)
    assert held.state.current.presses == ((0, 5 * S),)
    penalty = run(["Ann", "Bob"], [*opening(), pad(0, 5 * S, EMPTY)])
    assert penalty.state.current.presses == ((0, 5 * S),)


def test_ruling_wd19_a_second_press_completing_no_card_forgets_the_held_one():
    """A press is held (no reading); the button again, now with a reading that completes
    no open card: with ``retry`` that is a wrong finish, so the press is forgotten
    (WD-19) and the 2-player round is free again. With the penalty it changes nothing."""
    events = [*opening(), pad(0, 5 * S), pad(0, 6 * S, EMPTY)]
    result = run(["Ann", "Bob"], events, RETRY)
    (text,) = said(result.steps[-1], Outcome.PROMPT)
    assert text.startswith("Ann, not yet — the dryer completes none")
    assert result.state.current.presses == ()
    penalty = run(["Ann", "Bob"], events)
    assert penalty.state.current.presses == ((0, 5 * S),)
    assert said(penalty.steps[-1], Outcome.INFO) == ["Ann already pressed done: which task card?"]


def test_ruling_wd17_a_second_press_whose_reading_names_one_card_takes_it():
    """WD-17 (code unchanged, ruling amended): the first press is held; a second press
    whose reading completes exactly one open card names it, at the first press's time,
    judged on that reading."""
    events = [*opening(), pad(0, 5 * S), pad(0, 9 * S, solved("T01"))]
    result = run(["Ann", "Bob", "Cy"], events)
    (claim,) = result.state.current.claims
    assert (claim.seat, claim.card, claim.t_ns, claim.status) == (0, "T01", 5 * S, "ok")
    assert result.state.current.presses == ()


# --- lesser: the First bonus and a second forfeit -------------------------------------


def test_ruling_wd8_no_first_bonus_card_no_first_bonus_winner():
    """The view's ``first_bonus_to`` names who takes the round's First bonus card(s): no
    such card revealed, nobody (it named the fastest finisher)."""
    events = [
        *opening(),
        Event("done", seat=1, t_ns=5 * S, payload={"card": "T01", "dryer": solved("T01")}),
        Event("done", seat=2, t_ns=6 * S, payload={"card": "T02", "dryer": solved("T02")}),
    ]
    result = run(["Ann", "Bob", "Cy"], events)
    assert GAME.view(result.state)["phase"] == "between_rounds"
    assert GAME.view(result.state)["first_bonus_to"] is None
    with_bonus = [
        Event("setup"),
        Event("reveal", seat=0, payload={"cards": ["T01", "T02", "first-bonus-1"]}),
        *events[2:],
    ]
    four = run(["Ann", "Bob", "Cy", "Di"], with_bonus)
    assert GAME.view(four.state)["first_bonus_to"] == 1


def test_ruling_wd11_a_second_forfeit_says_the_card_was_already_given_up():
    pile = TASKS[14:]
    events = [
        Event("setup", payload={"order": EVENTS + TASKS[:14] + pile}),
        Event("reveal"),
        Event("done", seat=0, payload={"card": pile[0], "dryer": solved(pile[0])}),
        Event("done", seat=1, payload={"card": pile[1], "dryer": solved(pile[1])}),
        Event("reveal"),
        Event("done", seat=0, payload={"card": pile[2], "dryer": EMPTY}),
        Event("done", seat=1, payload={"card": pile[3], "dryer": solved(pile[3])}),
        Event("forfeit", seat=0, payload={"card": pile[0]}),
    ]
    again = run(["Ann", "Bob", "Cy"], [*events, Event("forfeit", seat=0, payload={"card": "T01"})])
    (text,) = said(again.steps[-1], Outcome.ILLEGAL)
    assert text == f"Ann already gave up {pile[0]} for the mistake: one earlier card per mistake."
    bob = run(["Ann", "Bob", "Cy"], [*events, Event("forfeit", seat=1, payload={"card": pile[1]})])
    (text,) = said(bob.steps[-1], Outcome.ILLEGAL)
    assert text == "Bob has no earlier card to give up: Bob made no mistake this round."
