"""Wash Dash: what a rules review (day 34) found, each test failing on the engine as it was.

* A: in the last round a ``done`` without a dryer reading ended the game "final", with its
  winner on the scoreboard and in the history, while the referee still asked for that
  dryer; the reading then made it a mistake (or, with ``retry``, put the card back).
* B: a reading the referee itself calls impossible (a tablet typo: a pin on two bars)
  judged the claim, a mistake by default, and the corrected reading was then only shown.
  The new reading is the option ``impossible_reading: ask``, what a game set up now gets;
  stored games without it judge as before (``tests/test_washdash_oldlogs34.py``).
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

DECK = default_deck()
TASKS = list(DECK.task_ids)
EVENTS = list(DECK.event_ids)
PILE = TASKS[14:]  # 2–4 players: the events and 14 tasks go back in the box
ORDER = EVENTS + TASKS[:14] + PILE
EMPTY = {"bars": [[], [], []]}  # an empty dryer completes no task
ASK = {"impossible_reading": "ask"}  # WD-12's reading for games set up from day 34


def solved(card: str) -> dict[str, Any]:
    return example_dryer(DECK[card].task, ()).to_dict()  # type: ignore[arg-type]


def impossible(card: str) -> dict[str, Any]:
    """The card's dryer with its first piece typed again on the next bar: a piece twice."""
    bars = solved(card)["bars"]
    b = next(i for i, bar in enumerate(bars) if bar)
    bars[(b + 1) % 3] = [*bars[(b + 1) % 3], {"piece": bars[b][0]["piece"], "pins": []}]
    return {"bars": bars}


def run(players: list[str], events: list[Event], options: dict[str, Any] | None = None):
    return replay(GAME, players, options or {}, events)


def said(step, outcome: Outcome) -> list[str]:
    return [v.reason for v in step.verdicts if v.outcome is outcome]


def claims(state) -> list[tuple[int, str, str]]:
    return [(c.seat, c.card, c.status) for c in state.current.claims]


# --- A: the last round's dryer still to see -------------------------------------------


def last_round_unchecked() -> tuple[list[Event], str]:
    """2 players, 17 rounds of 2 task cards; the player behind takes a card each round
    with its dryer. In the last round Bob takes the better card on the tablet, no reading."""
    events = [Event("setup", payload={"order": ORDER})]
    pts = [0, 0]
    for r in range(16):
        card = PILE[2 * r]
        seat = 0 if pts[0] <= pts[1] else 1
        events += [
            Event("reveal"),
            Event("done", seat=seat, payload={"card": card, "dryer": solved(card)}),
        ]
        pts[seat] += DECK[card].points
    last = max(PILE[32:34], key=lambda c: DECK[c].points)
    events += [Event("reveal"), Event("done", seat=1, payload={"card": last})]
    return events, last


def test_ruling_wd12_the_game_is_not_final_while_the_last_round_waits_for_a_dryer():
    events, card = last_round_unchecked()
    before = run(["Ann", "Bob"], events)
    (end,) = [v for v in before.steps[-1].verdicts if v.outcome is Outcome.GAME_END]
    assert end.data["final"] is False
    board = GAME.scoreboard(before.state)
    assert not board.finished and board.winners == () and board.leaders == (1,)
    assert end.reason.endswith(f"waiting for Bob's dryer ({card}).")
    assert end.reason.startswith("The draw pile is empty: game over. For now Bob leads")
    lines = {line.label: line.text for line in GAME.table(before.state)}
    assert lines["Game over"] == "Bob leads for now"
    assert lines["Dryer check"] == f"waiting for Bob's dryer ({card}): camera or tablet"

    # the reading confirms it: now the result is final, Bob the winner
    done = run(["Ann", "Bob"], [*events, Event("dryer", seat=1, payload={"dryer": solved(card)})])
    assert GAME.scoreboard(done.state).finished
    assert done.steps[-1].verdicts[-1].data["final"] is True
    assert [line.label for line in GAME.table(done.state)] == ["Game over"]


def test_ruling_wd12_retry_the_last_card_put_back_was_never_announced_as_won():
    """With ``retry`` a wrong reading puts the card back and the round goes on: the game
    end said before must not have been final."""
    events, card = last_round_unchecked()
    before = run(["Ann", "Bob"], events, {"wrong_done": "retry"})
    (end,) = [v for v in before.steps[-1].verdicts if v.outcome is Outcome.GAME_END]
    assert end.data["final"] is False and not GAME.scoreboard(before.state).finished
    after = run(
        ["Ann", "Bob"],
        [*events, Event("dryer", seat=1, payload={"dryer": EMPTY})],
        {"wrong_done": "retry"},
    )
    assert said(after.steps[-1], Outcome.INFO) == [f"Round 17 goes on: {card} is open again."]


def test_ruling_wd12_history_counts_no_winner_while_the_last_dryer_is_unseen(tmp_path: Path):
    """Through the web: a running game waiting for its last dryer is not over in the
    history, and nobody's win is counted until the reading comes."""
    from web.services.games import GameService
    from web.services.history import player_stats, summary
    from web.services.hub import Hub
    from web.services.settings import Settings

    db = tmp_path / "t.db"
    games = GameService(db, Settings(db), Hub())
    game_id = games.create("wash-dash", ["Ann", "Bob"], {})
    events, card = last_round_unchecked()
    for event in events:
        games.append(game_id, event)
    s = summary(games, game_id)
    assert not s["finished"] and not s["over"] and s["winners"] == []
    assert all(row["wins"] == 0 for row in player_stats([s]))
    games.append(game_id, Event("dryer", seat=1, payload={"dryer": solved(card)}))
    s = summary(games, game_id)
    assert s["finished"] and s["winners"] == [1]


# --- B: a reading that cannot be right ---------------------------------------------------


def three_players_round_two(done_payload: dict[str, Any], seat: int = 1) -> list[Event]:
    """3 players: round 1 Bob and Cy take both cards (so Bob has an earlier card to lose);
    in round 2 ``seat`` says done with ``done_payload``."""
    return [
        Event("setup", payload={"order": ORDER}),
        Event("reveal"),
        Event("done", seat=1, payload={"card": PILE[0], "dryer": solved(PILE[0])}),
        Event("done", seat=2, payload={"card": PILE[1], "dryer": solved(PILE[1])}),
        Event("reveal"),
        Event("done", seat=seat, source=Source.PAD, payload=done_payload),
    ]


def test_ruling_wd12_an_impossible_reading_judges_nothing_and_the_next_one_does():
    card = PILE[2]
    events = [
        *three_players_round_two({"card": card}),
        Event("dryer", seat=1, payload={"dryer": impossible(card)}),
    ]
    typo = run(["Ann", "Bob", "Cy"], events, ASK)
    (ask,) = said(typo.steps[-1], Outcome.PROMPT)
    assert ask.startswith("Bob's dryer reading cannot be right: the ")
    assert ask.endswith(
        f"{card} is not judged on it: show Bob's dryer to the camera again or enter it "
        "again on the tablet."
    )
    assert len(typo.steps[-1].verdicts) == 1  # no mistake, nothing owed
    assert claims(typo.state) == [(1, card, "unchecked")]
    assert GAME.view(typo.state)["dryers"][1] == impossible(card)  # shown as read

    fixed = run(
        ["Ann", "Bob", "Cy"],
        [*events, Event("dryer", seat=1, payload={"dryer": solved(card)})],
        ASK,
    )
    assert said(fixed.steps[-1], Outcome.LEGAL)[0].startswith(f"Bob's {card} is done.")
    assert claims(fixed.state) == [(1, card, "ok")]


def test_ruling_wd12_a_done_carrying_an_impossible_reading_waits_for_another():
    """Default and ``retry`` alike: taken, unchecked, and the dryer asked for again (it was
    a mistake by default, and refused with ``retry``)."""
    card = PILE[2]
    for options in (ASK, {**ASK, "wrong_done": "retry"}):
        done = run(
            ["Ann", "Bob", "Cy"],
            three_players_round_two({"card": card, "dryer": impossible(card)}),
            options,
        )
        step = done.steps[-1]
        assert [v.outcome for v in step.verdicts] == [Outcome.LEGAL, Outcome.PROMPT], options
        assert said(step, Outcome.PROMPT)[0].startswith("Bob's dryer reading cannot be right")
        assert claims(done.state) == [(1, card, "unchecked")], options


def test_ruling_wd12_a_press_s_impossible_reading_is_not_kept_to_judge_its_card():
    """A pad's card-less done with an impossible reading is held as one without a reading
    (WD-17): the card named later waits for a reading (a mistake before; refused with
    ``retry``, as if the reading completed none of the cards)."""
    card = PILE[2]
    for options in (ASK, {**ASK, "wrong_done": "retry"}):
        events = three_players_round_two({"dryer": impossible(card)})
        held = run(["Ann", "Bob", "Cy"], events, options)
        outcomes = [v.outcome for v in held.steps[-1].verdicts]
        assert outcomes == [Outcome.PROMPT, Outcome.PROMPT], options  # which card? + again
        assert GAME.view(held.state)["presses"] == [{"seat": 1, "t_ns": None}], options
        named = run(
            ["Ann", "Bob", "Cy"], [*events, Event("done", seat=1, payload={"card": card})], options
        )
        assert claims(named.state) == [(1, card, "unchecked")], options


def test_a_late_reading_that_changes_nothing_confirms_the_result():
    """A done that stood was read right after the round: the result is said again as
    "confirmed", not "corrected" (nothing changed)."""
    path = Path(__file__).parent / "data" / "washdash" / "done-then-dryer-reading.jsonl"
    lines = path.read_text().splitlines()[1:]
    events = [Event.from_json(line) for line in lines if line.startswith("{")]
    result = replay(GAME, ["Ann", "Bob", "Cy"], {}, events)
    texts = [v.reason for step in result.steps for v in step.verdicts]
    assert any(t.startswith("Round 1 result, confirmed: Bob +1 (T02)") for t in texts), texts
    assert not any("corrected" in t for t in texts)
