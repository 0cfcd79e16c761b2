"""Wash Dash: games stored before day 34 replay as they did (RULINGS' promise).

Day 34 made a dryer reading that cannot be real (a piece twice, a pin on two bars) judge
nothing (WD-12). Old logs hold such readings judged: refused with ``retry``, a mistake by
default, and later events that follow from that. Replayed with the new reading those later
events were refused. The new reading is the option ``impossible_reading: ask``, which a game
set up now gets; a stored game whose options lack it keeps ``judge``, the old reading.
Each old log below is the one the reviewer built, with the verdicts 36a245f gave it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.events import Event
from referee.game import new_game_options
from referee.replay import replay
from referee.verdicts import Outcome
from referee.washdash.game import GAME
from tests.test_washdash_review34 import DECK, ORDER, PILE, impossible, solved
from tests.test_web_routes import Tablet, make_app

ILLEGAL = Outcome.ILLEGAL


def done(seat: int, card: str, dryer: dict[str, Any]) -> Event:
    return Event("done", seat=seat, payload={"card": card, "dryer": dryer})


def refused(result) -> list[int]:
    """The seq of every event refused on replay."""
    return [st.seq for st in result.steps if any(v.outcome is ILLEGAL for v in st.verdicts)]


def first_said(result, seq: int) -> str:
    """The first verdict on event ``seq`` (1 = the first event)."""
    return next(st for st in result.steps if st.seq == seq).verdicts[0].reason


def test_ruling_wd12_an_old_retry_log_s_refused_typo_leaves_the_card_to_the_next_player():
    """36a245f: Bob's typo refused ("not yet"), Ann takes T15, Cy T16; Ann 2, Cy 5."""
    events = [
        Event("setup", payload={"order": ORDER}),
        Event("reveal"),
        done(1, PILE[0], impossible(PILE[0])),
        done(0, PILE[0], solved(PILE[0])),
        done(2, PILE[1], solved(PILE[1])),
    ]
    old = replay(GAME, ["Ann", "Bob", "Cy"], {"wrong_done": "retry"}, events)
    assert refused(old) == [3]  # only the typo, refused as it was
    assert first_said(old, 3).startswith("Bob, not yet")
    assert [c.seat for c in old.state.current.claims] == [0, 2]
    assert GAME.scoreboard(old.state).totals == (2, 0, 5)


def test_ruling_wd12_an_old_log_s_typo_judged_a_mistake_keeps_its_forfeit():
    """36a245f, by default: Bob's typo is a mistake in round 2, so he gives up T15."""
    events = [
        Event("setup", payload={"order": ORDER}),
        Event("reveal"),
        done(1, PILE[0], solved(PILE[0])),
        done(0, PILE[1], solved(PILE[1])),
        Event("reveal"),
        done(1, PILE[2], impossible(PILE[2])),
        done(0, PILE[3], solved(PILE[3])),
        Event("forfeit", seat=1, payload={"card": PILE[0]}),
        Event("reveal"),
    ]
    old = replay(GAME, ["Ann", "Bob", "Cy"], {}, events)
    assert refused(old) == []
    assert first_said(old, 6).startswith(f"Mistake: Bob took {PILE[2]}")
    assert GAME.scoreboard(old.state).totals == (10, 0, 0)


def finished_retry_game() -> list[Event]:
    """2 players, retry: the player behind takes a card each round; in the last round Bob's
    typo'd done, then his corrected one."""
    events = [Event("setup", payload={"order": ORDER})]
    pts = [0, 0]
    for r in range(16):
        card = PILE[2 * r]
        seat = 0 if pts[0] <= pts[1] else 1
        events += [Event("reveal"), done(seat, card, solved(card))]
        pts[seat] += DECK[card].points
    last = max(PILE[32:34], key=lambda c: DECK[c].points)
    return [*events, Event("reveal"), done(1, last, impossible(last)), done(1, last, solved(last))]


def test_ruling_wd12_an_old_finished_game_s_corrected_last_done_still_ends_it():
    """36a245f: the typo refused, the corrected done takes the card, "Bob wins", final."""
    events = finished_retry_game()
    old = replay(GAME, ["Ann", "Bob"], {"wrong_done": "retry"}, events)
    assert refused(old) == [len(events) - 1]  # the typo only
    (end,) = [v for v in old.steps[-1].verdicts if v.outcome is Outcome.GAME_END]
    assert end.data["final"] is True and end.reason.endswith("Bob wins with 28 points.")
    board = GAME.scoreboard(old.state)
    assert board.finished and board.winners == (1,) and board.totals == (28, 28)


def test_ruling_wd12_a_new_game_gets_the_day_34_reading_and_an_old_one_keeps_its_own():
    """``new_default`` is what a game set up now gets; a stored game lacking the key keeps
    ``default``; one that names it keeps what it names."""
    spec = next(s for s in GAME.options() if s.name == "impossible_reading")
    assert (spec.default, spec.new_default, spec.ruling) == ("judge", "ask", "WD-12")
    assert new_game_options(GAME.options(), {})["impossible_reading"] == "ask"
    given = {"impossible_reading": "judge"}  # (day 36's held_press_order is added beside it)
    assert new_game_options(GAME.options(), given) == {**given, "held_press_order": "pressed"}
    assert GAME.view(GAME.new_state(["A", "B"], {}))["options"]["impossible_reading"] == "judge"


def test_ruling_wd12_a_game_set_up_on_the_dashboard_stores_ask_and_asks_again(tmp_path: Path):
    """Through the dashboard: the catalogue offers ``ask``, a game created without the
    option stores it, and Bob's typo takes T15 unchecked and asks for the dryer again."""
    t = Tablet(make_app(tmp_path))
    assert t.set_pin().status_code == 302
    games = t.client.get("/api/catalogue").json["games"]
    wd = next(g for g in games if g["name"] == "wash-dash")
    option = next(o for o in wd["options"] if o["name"] == "impossible_reading")
    assert option["default"] == "ask" and option["choices"] == ["ask", "judge"]
    r = t.post("/api/games", {"game": "wash-dash", "players": ["Ann", "Bob", "Cy"], "options": {}})
    assert r.status_code == 201, r.json
    game_id = int(r.json["id"])
    options = t.snapshot(game_id)["game"]["options"]
    assert options == {"impossible_reading": "ask", "held_press_order": "pressed"}
    t.send(game_id, {"kind": "setup", "payload": {"order": ORDER}})
    t.send(game_id, {"kind": "reveal"})
    card = PILE[0]
    r = t.send(
        game_id, {"kind": "done", "seat": 1, "payload": {"card": card, "dryer": impossible(card)}}
    )
    assert r.status_code == 201, r.json
    outcomes = [v["outcome"] for v in r.json["verdicts"]]
    assert outcomes == ["legal", "prompt"], r.json
    assert r.json["verdicts"][1]["reason"].startswith("Bob's dryer reading cannot be right")
    claims = t.snapshot(game_id)["view"]["claims"]
    assert [(c["seat"], c["card"], c["status"]) for c in claims] == [(1, card, "unchecked")]
