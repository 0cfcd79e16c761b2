"""The table's LEDs and buzzer follow the running game (HW-11), on gpiozero's mock pins."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from hardware.config import default_config
from hardware.feedback import penalised_seat
from hardware.service import PadsService
from hardware.table import Table
from referee.verdicts import info, prompt, score
from tests.test_web_routes import Tablet, make_app
from web.services.lights import new_verdicts

PLAYERS = ("Ann", "Bob", "Cat")
DEAL = {"kind": "deal", "payload": {"hands": [7, 7, 7], "dealer": 2}}  # seat 0 plays first


@pytest.fixture
def pads() -> Iterator[PadsService]:
    service = PadsService(Table.open(default_config("virtual"), "virtual"))
    yield service
    service.close()


def lit(pads: PadsService) -> list[int]:
    return [seat for seat, led in sorted(pads.table.leds.items()) if led.pin.state]


def switched_on(pin: Any) -> int:
    """How often the pin went high since its states were last cleared."""
    return sum(1 for s in pin.states[1:] if s.state)


def dealt(tmp_path: Any, pads: PadsService) -> tuple[Tablet, int]:
    """A referee's tablet and a Hit the Deck game dealt with a card turned up: Ann's turn."""
    t = Tablet(make_app(tmp_path, pads=pads))
    t.set_pin()
    game_id = t.new_game("hit-the-deck", PLAYERS)
    t.send(game_id, DEAL)
    t.send(game_id, {"kind": "turn_up", "payload": {"card": "G3"}})
    return t, game_id


def wait_for(check: Any, timeout: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check() and time.monotonic() < deadline:
        time.sleep(0.01)
    return bool(check())


def test_ruling_hw11_the_turn_is_lit_and_an_illegal_play_flashes_its_seat_and_beeps(tmp_path, pads):
    t = Tablet(make_app(tmp_path, pads=pads))
    t.set_pin()
    game_id = t.new_game("hit-the-deck", PLAYERS)
    assert lit(pads) == []  # nobody's turn before the deal
    assert t.send(game_id, DEAL).status_code < 300
    assert t.send(game_id, {"kind": "turn_up", "payload": {"card": "G3"}}).status_code < 300
    assert lit(pads) == [0]
    buzzer, bob = pads.table.buzzer.pin, pads.table.leds[1].pin
    buzzer.clear_states()
    bob.clear_states()
    out_of_turn = {"kind": "play", "seat": 1, "payload": {"card": "G5"}}
    r = t.send(game_id, out_of_turn)
    assert r.json["verdicts"][0]["outcome"] == "illegal"
    assert wait_for(lambda: switched_on(bob) == 3 and not bob.state)  # three flashes
    assert switched_on(buzzer) == 1  # one beep
    assert lit(pads) == [0]  # still Ann's turn


def test_ruling_hw11_a_seat_penalised_on_its_own_turn_is_lit_again_after_the_flash(tmp_path, pads):
    t, game_id = dealt(tmp_path, pads)
    ann = pads.table.leds[0].pin
    ann.clear_states()
    r = t.send(game_id, {"kind": "play", "seat": 0, "payload": {"card": "R5"}})  # no match
    assert r.json["verdicts"][0]["outcome"] == "illegal"
    flashed_then_lit = [True, False, True, False, True, False, True]  # lit when it began
    assert wait_for(lambda: [s.state for s in ann.states] == flashed_then_lit)
    assert lit(pads) == [0]


def test_ruling_hw11_a_flash_runs_its_course_while_the_game_goes_on(tmp_path, pads):
    """In a slap race the game changes every few milliseconds; each change sets the turn
    light, and must not cut a penalised seat's flash short (gpiozero's on/off stop a blink)."""
    t, game_id = dealt(tmp_path, pads)
    bob, cat = pads.table.leds[1].pin, pads.table.leds[2].pin
    bob.clear_states()
    cat.clear_states()
    t.send(game_id, {"kind": "play", "seat": 1, "payload": {"card": "G5"}})  # Bob: illegal
    time.sleep(0.1)
    t.send(game_id, {"kind": "play", "seat": 2, "payload": {"card": "G6"}})  # Cat: illegal
    t.send(game_id, {"kind": "play", "seat": 2, "payload": {"card": "G7"}})  # Cat again
    assert wait_for(lambda: switched_on(bob) == 3 and not bob.state)
    time.sleep(1.0)  # Cat's second flash (it restarted her first) is over too
    assert switched_on(cat) >= 3 and not cat.state
    assert lit(pads) == [0]  # Ann's turn light stayed on through it all


def test_ruling_hw11_a_log_from_before_the_start_lights_the_turn_and_flashes_nothing(
    tmp_path, pads
):
    first = Tablet(make_app(tmp_path))
    first.set_pin()
    game_id = first.new_game("hit-the-deck", PLAYERS)
    first.send(game_id, DEAL)
    first.send(game_id, {"kind": "turn_up", "payload": {"card": "G3"}})
    first.send(game_id, {"kind": "play", "seat": 1, "payload": {"card": "G5"}})  # illegal
    pads.table.buzzer.pin.clear_states()
    Tablet(make_app(tmp_path, pads=pads))  # the server starts again, on the same log
    assert lit(pads) == [0]
    time.sleep(0.3)  # a flash would have begun by now
    assert switched_on(pads.table.buzzer.pin) == 0
    assert switched_on(pads.table.leds[1].pin) == 0


def test_ruling_hw11_an_ended_game_turns_the_lights_off(tmp_path, pads):
    t, game_id = dealt(tmp_path, pads)
    assert lit(pads) == [0]
    assert t.post(f"/api/games/{game_id}/end").status_code == 200
    assert lit(pads) == []


def test_ruling_hw11_only_the_current_game_drives_the_lights(tmp_path, pads):
    t = Tablet(make_app(tmp_path, pads=pads))
    t.set_pin()
    old = t.new_game("hit-the-deck", PLAYERS)
    t.send(old, DEAL)
    new = t.new_game("hit-the-deck", PLAYERS)
    t.send(new, {**DEAL, "payload": {"hands": [7, 7, 7], "dealer": 0}})
    t.send(new, {"kind": "turn_up", "payload": {"card": "G3"}})
    assert lit(pads) == [1]
    t.send(old, {"kind": "turn_up", "payload": {"card": "G3"}})  # the console's other game
    assert lit(pads) == [1]


def test_ruling_hw11_every_games_penalty_verdicts_flash_their_seat():
    # Hit the Deck's fake-out and last slap are prompts, DOS's missed call an info, Wash
    # Dash's wrong task card a score: each names its penalty (or mistake) in its data
    assert penalised_seat(prompt("Faked out! draw 2", 2, penalty="fake_out")) == 2
    assert penalised_seat(info("Bob draws 2: no DOS call", 1, penalty="no_dos_call")) == 1
    assert penalised_seat(score("Mistake: Ann loses T01", 0, card="T01", mistake=True)) == 0
    assert penalised_seat(prompt("Which task card?", 0, choices=["T01"])) is None


def test_only_entries_after_the_last_shown_and_still_standing_give_verdicts():
    feed = [
        {"seq": 3, "status": "ok", "verdicts": [{"outcome": "illegal", "reason": "a", "seat": 0}]},
        {"seq": 4, "status": "undone", "verdicts": [{"outcome": "illegal", "reason": "b"}]},
        {"seq": 5, "status": "ok", "verdicts": [{"outcome": "illegal", "reason": "c", "seat": 2}]},
        {"seq": 6, "status": "meta", "verdicts": []},
    ]
    assert [(v.reason, v.seat) for v in new_verdicts(feed, after=3)] == [("c", 2)]
