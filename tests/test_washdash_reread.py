"""Wash Dash: a line-by-line re-read of /work/shared/rules/wash-dash.txt against the engine.

Each test names the rule sentence it rests on. The first group failed on the engine as it
was (a rule or ruling not followed); the second pins behaviour that was right but that no
test proved. Rulings WD-18 … WD-20 came with this file.
"""

from __future__ import annotations

from referee.events import Event, Source
from referee.replay import replay
from referee.verdicts import Outcome
from referee.washdash.checker import example_dryer
from referee.washdash.game import GAME
from referee.washdash.pieces import EventCard

DECK = GAME.deck
TASKS = list(DECK.task_ids)
S = 1_000_000_000
TWO = ["Ann", "Bob"]
FOUR = ["Ann", "Bob", "Cy", "Di"]


def run(players, events, options=None):
    return replay(GAME, players, options or {}, events)


def opening(*cards: str) -> list[Event]:
    return [Event("setup"), Event("reveal", seat=0, t_ns=0, payload={"cards": list(cards)})]


def press(seat: int, t_ns: int) -> Event:
    """A pad's done button: the seat and the time, no card (WD-17)."""
    return Event("done", seat=seat, t_ns=t_ns, source=Source.PAD)


def said(step, outcome: Outcome) -> list[str]:
    return [v.reason for v in step.verdicts if v.outcome is outcome]


def solved(card: str, events=()) -> dict:
    return example_dryer(DECK[card].task, events).to_dict()


# --- fixed: these failed on the engine before the re-read ----------------------------


def test_ruling_wd18_two_players_a_press_waiting_for_its_card_finishes_first():
    """WD-18: "In a 2 player game the round ends when the first task is completed — the
    other player doesn't receive a card." Ann's pad press (no card yet) is the first done
    received, so Bob's later done must not take the round; Ann's card, named afterwards on
    the tablet, ends it."""
    events = [
        *opening("T01", "T02"),
        press(0, 5 * S),  # Ann finishes first; the tablet is asked which card
        Event("done", seat=1, t_ns=7 * S, source=Source.PAD, payload={"card": "T02"}),
        press(1, 8 * S),  # Bob's button, no card: refused too
        Event("reveal", seat=1, payload={"cards": ["T03", "T04"]}),  # not before Ann's card
        Event("done", seat=0, payload={"card": "T01", "dryer": "pants:red / - / -"}),
    ]
    result = run(TWO, events)
    assert GAME.scoreboard(result.state).totals == (1, 0)  # the first to finish scores
    held, bob, bob_press, early_reveal, ann = result.steps[2:]
    for step in (bob, bob_press):
        (refused,) = said(step, Outcome.ILLEGAL)
        assert refused.startswith("The round is over: Ann pressed done first")
    (refused,) = said(early_reveal, Outcome.ILLEGAL)
    assert "which task card did Ann complete" in refused
    assert said(ann, Outcome.ROUND_END)[0].startswith("Round 1 is over: Ann +1 (T01)")
    assert "only Ann can score" in said(held, Outcome.PROMPT)[0]
    (claim,) = GAME.view(result.state)["claims"]
    assert (claim["seat"], claim["card"], claim["t_ns"], claim["status"]) == (0, "T01", 5 * S, "ok")
    # the round is over as usual: Bob (to Ann's left) reveals the next one
    state, verdicts = GAME.apply(
        result.state, Event("reveal", seat=1, payload={"cards": ["T03", "T04"]})
    )
    assert verdicts[0].outcome is Outcome.LEGAL and "T02" in GAME.view(state)["discarded"]


def test_ruling_wd18_an_undo_of_the_press_frees_the_round():
    """WD-18: "An `undo` of the press frees the round." Ann's press was a slip of the hand:
    undone, Bob's done that it had refused counts (the log is judged again without it), and
    Bob is the first to finish."""
    events = [
        *opening("T01", "T02"),
        press(0, 5 * S),  # event 3: Ann's slip
        Event("done", seat=1, t_ns=7 * S, source=Source.PAD, payload={"card": "T02"}),
        Event("undo", payload={"target": 3}),
    ]
    before = run(TWO, events[:-1])
    assert GAME.scoreboard(before.state).totals == (0, 0)  # Bob refused: Ann pressed first
    after = run(TWO, events)
    assert GAME.scoreboard(after.state).totals == (0, DECK["T02"].points)
    (claim,) = GAME.view(after.state)["claims"]
    assert (claim["seat"], claim["card"]) == (1, "T02")  # unchecked: no dryer was read
    assert GAME.view(after.state)["presses"] == []


def test_ruling_wd17_the_press_time_counts_even_when_the_tablet_stamps_its_own():
    """WD-17: "The seat's later done with a card keeps the press's t_ns, so the First bonus
    (WD-8) goes by when the button was pressed, not when the tablet was tapped." The console
    stamps a tablet's done with the time of the tap; the press time must still win."""
    events = [
        *opening("T01", "T02", "first-bonus-1"),
        press(0, 5 * S),  # Ann finishes first
        Event(
            "done",
            seat=1,
            t_ns=6 * S,
            source=Source.PAD,
            payload={"card": "T02", "dryer": "dress:blue / - / -"},
        ),
        # the tablet names Ann's card at 9 s, stamped "now"
        Event("done", seat=0, t_ns=9 * S, payload={"card": "T01", "dryer": "pants:red / - / -"}),
    ]
    result = run(FOUR, events)
    claims = {c["seat"]: c for c in GAME.view(result.state)["claims"]}
    assert claims[0]["t_ns"] == 5 * S
    assert "First bonus goes to Ann" in said(result.steps[-1], Outcome.SCORE)[0]
    assert GAME.scoreboard(result.state).totals == (4, 1, 0, 0)


def test_ruling_wd19_retry_forgets_the_press_of_a_refused_done():
    """WD-19: "If a player takes a task card without having completed it correctly …" — with
    option wrong_done = retry the player keeps trying instead, so the press that announced
    the wrong finish is forgotten: the First bonus goes to Bob, who finished before Ann's
    second, correct finish."""
    events = [
        *opening("T01", "T02", "first-bonus-1"),
        press(0, 5 * S),
        Event("done", seat=0, payload={"card": "T01", "dryer": "pants:yellow / - / -"}),
        Event(
            "done",
            seat=1,
            t_ns=8 * S,
            source=Source.PAD,
            payload={"card": "T02", "dryer": "dress:blue / - / -"},
        ),
        Event("done", seat=0, payload={"card": "T01", "dryer": "pants:red / - / -"}),
    ]
    result = run(FOUR, events, {"wrong_done": "retry"})
    assert "First bonus goes to Bob" in said(result.steps[-1], Outcome.SCORE)[0]
    assert GAME.scoreboard(result.state).totals == (1, 4, 0, 0)
    assert run(FOUR, events[:4], {"wrong_done": "retry"}).state.current.presses == ()
    (text,) = said(result.steps[3], Outcome.PROMPT)
    assert text.startswith("Ann, not yet — T01") and "press done again" in text


def test_ruling_wd19_two_players_retry_frees_the_round_for_the_other_player():
    """WD-19 with WD-18: with 2 players and retry, Ann's press held the round; when her card
    turns out wrong she keeps trying and Bob may finish first."""
    events = [
        *opening("T01", "T02"),
        press(0, 5 * S),
        Event("done", seat=0, payload={"card": "T01", "dryer": "pants:yellow / - / -"}),
        Event("done", seat=1, t_ns=8 * S, payload={"card": "T02", "dryer": "dress:blue / - / -"}),
    ]
    result = run(TWO, events, {"wrong_done": "retry"})
    assert said(result.steps[-1], Outcome.ROUND_END)[0].startswith("Round 1 is over: Bob +1")
    assert GAME.scoreboard(result.state).totals == (0, 1)


def test_two_first_bonus_cards_are_announced_as_six_points():
    """Rules: "If 2 identical event cards are revealed … except for the 'First bonus' cards,
    which both are given to the fastest player." The reveal must say +6, not +3."""
    result = run(
        ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"],
        opening("T01", "first-bonus-1", "T02", "first-bonus-2", "T03"),
    )
    (text,) = [t for t in said(result.steps[-1], Outcome.INFO) if "First bonus" in t]
    assert "+6" in text and "both" in text
    # drawn on: the second First bonus card is announced with the total now in force
    drawn = run(
        ["Ann", "Bob", "Cy"],
        [
            *opening("first-bonus-1", "opposite-1"),
            Event("reveal", seat=0, payload={"cards": ["first-bonus-2"]}),
        ],
    )
    assert "+3" in next(t for t in said(drawn.steps[1], Outcome.INFO) if "First bonus" in t)
    (text,) = [t for t in said(drawn.steps[2], Outcome.INFO) if "First bonus" in t]
    assert "+6" in text


# --- pinned: right before, but no test said so ---------------------------------------


def test_events_affect_only_the_round_they_were_revealed_in():
    """Rules: "If you reveal an event card, for this round it affects all players equally"
    and "After the round has ended … the event card(s) are discarded"."""
    opp = [EventCard.OPPOSITE]
    events = [
        *opening("T27", "T07", "opposite-1"),
        Event("done", seat=0, payload={"card": "T27", "dryer": solved("T27", opp)}),
        Event("done", seat=1, payload={"card": "T07", "dryer": solved("T07", opp)}),
        Event("reveal", seat=1, payload={"cards": ["T01", "T02", "T03"]}),
        # round 2 has no Opposite: T01 is hung as printed
        Event("done", seat=2, payload={"card": "T01", "dryer": "pants:red / - / -"}),
    ]
    result = run(FOUR, events)
    assert GAME.view(result.state)["events_in_force"] == []
    assert said(result.steps[-1], Outcome.LEGAL)[0].startswith("Cy takes T01. Done")
    assert "opposite-1" in GAME.view(result.state)["discarded"]
    assert GAME.view(result.state)["dryers"] == [
        None,
        None,
        {"bars": [[{"piece": "pants", "pins": ["red"]}], [], []]},
        None,
    ]  # emptied between rounds


def _deck_order(players: int, tail: list[str]) -> tuple[list[str], list[str]]:
    """A full deck order (and its draw pile): every event not in ``tail`` goes back in the
    box, the pile is task cards and then ``tail``."""
    others = [c for c in DECK.event_ids if c not in tail] + [c for c in TASKS if c not in tail]
    boxed_n = 20 if players <= 4 else 0
    pile = others[boxed_n:] + tail
    return others[:boxed_n] + pile, pile


def test_drawing_on_can_take_the_last_card_and_the_game_ends_after_that_round():
    """Rules: "draw cards until there is a task card to compete for" and "The game ends at
    the end of a round, when the draw pile is empty": the task drawn on as the very last
    card is played, then the game ends."""
    tail = ["opposite-1", "one-handed-1", "first-bonus-1", TASKS[-1]]
    order, pile = _deck_order(4, tail)
    assert len(pile) == 34 and pile[-4:] == tail
    events = [Event("setup", payload={"order": order})]
    for r in range(10):
        cards = pile[3 * r : 3 * r + 3]
        events.append(Event("reveal"))
        for i, card in enumerate(cards):
            events.append(Event("done", seat=i, payload={"card": card, "dryer": solved(card)}))
    events.append(Event("reveal"))  # the three events
    events.append(Event("reveal", seat=10 % 4, payload={"cards": [TASKS[-1]]}))
    last = TASKS[-1]
    opp = [EventCard.OPPOSITE]
    events.append(Event("done", seat=3, payload={"card": last, "dryer": solved(last, opp)}))
    result = run(FOUR, events)
    assert "draw another card" in said(result.steps[-3], Outcome.PROMPT)[0]
    outcomes = [v.outcome for v in result.steps[-1].verdicts]
    assert Outcome.ROUND_END in outcomes and outcomes[-1] is Outcome.GAME_END
    assert GAME.scoreboard(result.state).finished
    assert "first-bonus-1" in GAME.view(result.state)["cards"][3]


def test_a_mistake_found_after_the_last_round_corrects_the_final_result():
    """Rules, Mistakes (and WD-15: "any time before the next round is revealed (also after
    the last round)"): the last round's check still corrects the final totals, and the
    result is final only once the earlier card is given up."""
    order, pile = _deck_order(3, [])
    events = [Event("setup", payload={"order": order})]
    for r in range(17):
        cards = pile[2 * r : 2 * r + 2]
        events.append(Event("reveal"))
        # Ann takes a card every round, Bob only in the last round
        seat_b = 1 if r == 16 else 2
        events.append(Event("done", seat=0, payload={"card": cards[0], "dryer": solved(cards[0])}))
        events.append(
            Event("done", seat=seat_b, payload={"card": cards[1], "dryer": solved(cards[1])})
        )
    before = run(["Ann", "Bob", "Cy"], events)
    assert GAME.scoreboard(before.state).finished
    last_card = pile[32]
    events.append(Event("mistake", seat=0, payload={"reason": "the pins were swapped"}))
    mid = run(["Ann", "Bob", "Cy"], events)
    texts = [v.reason for v in mid.steps[-1].verdicts]
    assert any(t.startswith("Round 17 result, corrected") for t in texts)
    assert any(t.startswith("The draw pile is empty: game over. For now") for t in texts)
    assert GAME.scoreboard(mid.state).extra["owed_forfeit"] == [0]
    give_up = pile[0]
    events.append(Event("forfeit", seat=0, payload={"card": give_up}))
    after = run(["Ann", "Bob", "Cy"], events)
    final = after.steps[-1].verdicts[-1]
    assert final.outcome is Outcome.GAME_END and final.data["final"] is True
    totals = GAME.scoreboard(after.state).totals
    ann_before = GAME.scoreboard(before.state).totals[0]
    assert totals[0] == ann_before - DECK[last_card].points - DECK[give_up].points


def test_ruling_wd20_a_declared_mistake_is_the_rules_penalty_even_with_retry():
    """WD-20: "If a player takes a task card without having completed it correctly and/or
    ignores the effects of an event card, he discards that task card and also one of his
    previously completed task cards". Option wrong_done = retry only changes how the
    referee treats a wrong dryer; a mistake the table declares stays the rules' mistake."""
    events = [
        *opening("T01", "T02", "one-handed-1"),
        Event("done", seat=0, payload={"card": "T01", "dryer": "pants:red / - / -"}),
        Event("mistake", seat=0, payload={"reason": "Ann used both hands"}),
    ]
    result = run(FOUR, events, {"wrong_done": "retry"})
    (text,) = said(result.steps[-1], Outcome.SCORE)
    assert text.startswith("Mistake: Ann took T01 — Ann used both hands. Ann loses T01.")
    view = GAME.view(result.state)
    assert [c["status"] for c in view["claims"]] == ["wrong"]
    assert view["table"][0]["taken_by"] == 0  # the card does not go back on the table


def test_a_press_left_when_the_others_took_every_task_leaves_the_summary():
    """Three players, two tasks: Ann presses done (her card not named yet), then Bob and Cy
    take both cards on the tablet and the round is over. The "On the table" summary went on
    saying "Done pressed: Ann: which task card?" while nothing was left to name."""
    three = ["Ann", "Bob", "Cy"]
    events = [*opening("T01", "T02"), press(0, 5 * S)]
    held = run(three, events)
    assert any(line.label == "Done pressed" for line in GAME.table(held.state))
    events += [
        Event("done", seat=1, t_ns=6 * S, payload={"card": "T01", "dryer": solved("T01")}),
        Event("done", seat=2, t_ns=7 * S, payload={"card": "T02", "dryer": solved("T02")}),
    ]
    over = run(three, events)
    assert len(GAME.view(over.state)["claims"]) == 2  # the round is over
    assert not any(line.label == "Done pressed" for line in GAME.table(over.state))
