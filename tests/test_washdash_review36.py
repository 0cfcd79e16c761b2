"""Wash Dash: what a rules review (day 36) found, each ``test_ruling_wd8_`` test failing on the
engine as it was.

A pad's press held for its card (WD-17) took no place in the order received: the claim made
when its card was named came after every ``done`` received meanwhile. WD-8 orders the First
bonus by arrival whenever a claim has no time (a console ``done`` without ``t_ns``), so a
later untimed ``done`` won the bonus from the player who pressed first. The new reading is
the option ``held_press_order: pressed``, what a game set up now gets; a stored game whose
options lack it keeps ``named``, so its log replays as it did.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.events import Event
from referee.game import new_game_options
from referee.replay import replay
from referee.washdash.game import GAME
from tests.test_washdash_review import EMPTY, solved
from tests.test_web_routes import Tablet, make_app

S = 1_000_000_000
FOUR = ["Ann", "Bob", "Cy", "Di"]
ANN, BOB = 0, 1
PRESSED = {"held_press_order": "pressed"}  # WD-8's reading for games set up from day 36
# table mode: the referee learns the cards as they are revealed
ROUND = [
    Event("setup"),
    Event("reveal", seat=0, payload={"cards": ["T01", "T03", "first-bonus-1"]}),
]


def run(events: list[Event], options: dict[str, Any] | None = None):
    return replay(GAME, FOUR, options or {}, events)


def press(seat: int, t_ns: int | None = None) -> Event:
    """A pad's card-less ``done``: two cards are open, so it is held for its card (WD-17)."""
    return Event("done", seat=seat, t_ns=t_ns, payload={})


def done(seat: int, card: str) -> Event:
    """A ``done`` typed in the console: no time stamp, no dryer reading."""
    return Event("done", seat=seat, payload={"card": card})


def ann_presses_then_bob_types_done() -> list[Event]:
    """Ann presses first; Bob's untimed ``done`` arrives; then Ann's card is named."""
    return [*ROUND, press(ANN, 5 * S), done(BOB, "T03"), done(ANN, "T01")]


def bonus_to(result) -> int | None:
    return GAME.view(result.state)["first_bonus_to"]


def test_ruling_wd8_held_press_keeps_its_arrival_for_the_first_bonus():
    """WD-8, "otherwise by the order the referee received them": Ann's press came first."""
    result = run(ann_presses_then_bob_types_done(), PRESSED)
    assert bonus_to(result) == ANN
    assert GAME.scoreboard(result.state).totals[:2] == (1 + 3, 1)


def test_ruling_wd8_held_press_keeps_its_arrival_when_a_second_press_names_its_card():
    """WD-17: a second press whose reading completes one open card names it, at the first
    press's place as at its time."""
    second = Event("done", seat=ANN, payload={"dryer": solved("T01")})
    events = [*ROUND, press(ANN), done(BOB, "T03"), second]
    assert bonus_to(run(events, PRESSED)) == ANN


def test_ruling_wd8_held_press_keeps_its_arrival_a_forgotten_press_lends_none():
    """WD-19 (``retry``): a press forgotten for a wrong card keeps its number, as a
    withdrawn claim does; the seat's next press is received after Bob's ``done``."""
    wrong = Event("done", seat=ANN, payload={"card": "T01", "dryer": EMPTY})
    events = [*ROUND, press(ANN), wrong, done(BOB, "T03"), press(ANN), done(ANN, "T01")]
    result = run(events, {"wrong_done": "retry", **PRESSED})
    assert [(c.seat, c.arrival) for c in result.state.current.claims] == [(BOB, 1), (ANN, 2)]
    assert bonus_to(result) == BOB


def test_ruling_wd8_held_press_keeps_its_arrival_only_in_games_set_up_now():
    """``new_default`` is what a game set up now gets; a stored game lacking the key keeps
    ``named``, the reading it was played with."""
    spec = next(s for s in GAME.options() if s.name == "held_press_order")
    assert (spec.default, spec.new_default, spec.ruling) == ("named", "pressed", "WD-8")
    assert new_game_options(GAME.options(), {})["held_press_order"] == "pressed"
    stored = GAME.view(GAME.new_state(FOUR, {}))["options"]
    assert stored["held_press_order"] == "named"


def test_a_stored_game_without_the_option_replays_its_held_press_as_before():
    """A game stored before day 36 (no ``held_press_order``): Ann's press is placed when its
    card is named, after Bob's ``done``, so Bob keeps the First bonus he had."""
    result = run(ann_presses_then_bob_types_done())
    assert bonus_to(result) == BOB
    assert [(c.seat, c.arrival) for c in result.state.current.claims] == [(BOB, 0), (ANN, 1)]
    assert GAME.scoreboard(result.state).totals[:2] == (1, 1 + 3)


def test_ruling_wd8_held_press_keeps_its_arrival_on_a_game_set_up_on_the_dashboard(tmp_path: Path):
    """The reviewer's case through the dashboard: Ann's pad press, Bob's untimed console
    ``done``, then the tablet answers the pads' question with T01: Ann takes the bonus."""
    t = Tablet(make_app(tmp_path))
    assert t.set_pin().status_code == 302
    wd = next(g for g in t.client.get("/api/catalogue").json["games"] if g["name"] == "wash-dash")
    option = next(o for o in wd["options"] if o["name"] == "held_press_order")
    assert option["default"] == "pressed" and option["choices"] == ["pressed", "named"]
    r = t.post("/api/games", {"game": "wash-dash", "players": FOUR, "options": {}})
    assert r.status_code == 201, r.json
    game = int(r.json["id"])
    assert t.snapshot(game)["game"]["options"]["held_press_order"] == "pressed"
    t.send(game, {"kind": "setup"})
    t.send(
        game, {"kind": "reveal", "seat": 0, "payload": {"cards": ["T01", "T03", "first-bonus-1"]}}
    )
    assert t.post("/api/pads/press", {"seat": ANN, "device": "button"}).status_code < 300
    t.send(game, {"kind": "done", "seat": BOB, "payload": {"card": "T03"}})
    (question,) = t.services.prompts.open(game)
    r = t.post(f"/api/games/{game}/prompts/{question['id']}/accept", {"answer": "T01"})
    assert r.status_code < 300, r.json
    assert t.snapshot(game)["view"]["first_bonus_to"] == ANN


def test_a_reveal_of_two_cards_already_out_says_are() -> None:
    """Table mode: Bob's T02 ended the two-player round; a reveal naming T02 and T01 again
    is refused naming both cards, in the plural (it said "T02 and T01 is")."""
    events = [
        Event("setup"),
        Event("reveal", seat=0, t_ns=1 * S, payload={"cards": ["T01", "T02"]}),
        Event("done", seat=1, t_ns=5 * S, payload={"card": "T02", "dryer": "dress:blue / - / -"}),
    ]
    result = replay(GAME, ["Ann", "Bob"], {}, events)
    again = Event("reveal", seat=1, payload={"cards": ["T02", "T01"]})
    _state, verdicts = GAME.apply(result.state, again)
    assert verdicts[0].reason == "T02 and T01 are already out of the draw pile."
