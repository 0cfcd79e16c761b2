"""WD-21: a pad's "done" held for its card (WD-17) is named from the camera's dryer.

The dashboard's dryer referee (``web/services/referee_dryer.py``) with the reader double of
``tests/test_web_camera_dryer.py`` (``Table``/``TruthReader``: each picture reads as what
the test says, so these tests check the rule, not the reader). Ana (seat 0) and Bea (seat 1)
play; a press is the card-less ``done`` the server's pad bridge logs (``source=pad``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.events import Event, Source
from referee.registry import find_game
from referee.replay import replay
from referee.replay_cli import read_jsonl
from referee.washdash.dryer import Dryer
from tests.test_web_camera_dryer import SHIRT, T01, Table, camera_events, dryer_app, hold, show
from tests.test_web_routes import Tablet

MS = 1_000_000
GAME = find_game("wash-dash")
DRESS = Dryer.parse("dress:blue / - / -")  # T02 only
PANTS_BAR_2 = Dryer.parse("- / pants:red / -")  # T01 (and T05) on another bar


def start(tablet: Tablet, game_id: int, *cards: str) -> None:
    reveal = {"kind": "reveal", "seat": 0, "payload": {"cards": list(cards)}}
    for event in ({"kind": "setup"}, reveal):
        assert tablet.send(game_id, event).status_code == 201


def press(tablet: Tablet, game_id: int, seat: int, t_ns: int) -> int:
    """The pad's done button, as the server's pad bridge logs it; its seq."""
    r = tablet.send(game_id, {"kind": "done", "seat": seat, "t_ns": t_ns, "source": "pad"})
    assert r.status_code == 201, r.json
    assert "which task card" in r.json["verdicts"][0]["reason"]  # held (WD-17)
    return int(r.json["seq"])


def claims(tablet: Tablet, game_id: int) -> list[tuple[Any, ...]]:
    view = tablet.snapshot(game_id)["view"]
    return [(c["seat"], c["card"], c["t_ns"], c["status"]) for c in view["claims"]]


def questions(tablet: Tablet, game_id: int) -> list[dict[str, Any]]:
    return tablet.services.prompts.open(game_id)


def replayed(tablet: Tablet, game_id: int, tmp_path: Path) -> dict[str, Any]:
    """The game's log file replayed without a camera: its view."""
    path = tmp_path / f"game-{game_id}.jsonl"
    path.write_text(tablet.client.get(f"/api/games/{game_id}/log.jsonl").data.decode())
    game, players, options, events = read_jsonl(path, None)
    return GAME.view(replay(find_game(game), players, options, events).state)


def ready(tmp_path: Path, *cards: str) -> tuple[Table, Tablet, Any, int]:
    """The empty dryers taken before the first round, then the round revealed."""
    table = Table()
    tablet, referee, game_id = dryer_app(tmp_path, table)
    hold(referee, table, "empty", n=8)
    start(tablet, game_id, *cards)
    return table, tablet, referee, game_id


def test_ruling_wd21_a_held_press_is_named_by_the_one_open_card_its_dryer_completes(tmp_path):
    table, tablet, referee, game_id = ready(tmp_path, "T01", "T03")
    hold(referee, table, T01, n=5)  # Ana's dryer settles: sent as her dryer
    assert [e["event"]["kind"] for e in camera_events(tablet, game_id)] == ["dryer"]
    pressed = table.t_ns + 50 * MS
    press(tablet, game_id, 0, pressed)
    assert tablet.snapshot(game_id)["view"]["presses"] == [{"seat": 0, "t_ns": pressed}]
    hold(referee, table, T01, n=2)  # still the same dryer: it completes T01, not T03

    done = camera_events(tablet, game_id)[-1]
    assert done["event"] == {
        "kind": "done",
        "seat": 0,
        "payload": {"card": "T01", "dryer": T01.to_dict()},
        "t_ns": pressed,  # the button's time, not the frame's (WD-17, WD-8)
        "source": "camera",
    }
    assert done["verdicts"][0]["reason"].startswith("Ana takes T01. Done")
    assert claims(tablet, game_id) == [(0, "T01", pressed, "ok")]
    assert tablet.snapshot(game_id)["view"]["presses"] == []
    assert questions(tablet, game_id) == []
    hold(referee, table, T01, n=3)
    assert len(camera_events(tablet, game_id)) == 2  # named once
    # the log says what was decided: replayed without a camera, the same claim
    assert (
        replayed(tablet, game_id, tmp_path)["claims"] == tablet.snapshot(game_id)["view"]["claims"]
    )


def test_ruling_wd21_a_dryer_settling_after_the_press_names_it_in_one_done(tmp_path):
    table, tablet, referee, game_id = ready(tmp_path, "T01", "T03")
    for _ in range(4):
        show(referee, table.frame("hand", "empty"))  # still hanging the pin
    pressed = table.t_ns + 50 * MS
    press(tablet, game_id, 0, pressed)
    for _ in range(3):
        show(referee, table.frame("hand", "empty"))  # the hand is still there: no reading
    assert camera_events(tablet, game_id) == []
    hold(referee, table, T01, n=5)
    (done,) = camera_events(tablet, game_id)  # the done carries the dryer: no `dryer` too
    assert done["event"]["kind"] == "done" and done["event"]["t_ns"] == pressed
    assert done["event"]["payload"] == {"card": "T01", "dryer": T01.to_dict()}
    assert claims(tablet, game_id) == [(0, "T01", pressed, "ok")]


def test_ruling_wd21_a_dryer_completing_several_open_cards_asks_which_naming_them(tmp_path):
    table, tablet, referee, game_id = ready(tmp_path, "T01", "T05")  # T05: any piece, red pin
    hold(referee, table, T01, n=5)
    pressed = table.t_ns + 50 * MS
    press(tablet, game_id, 0, pressed)
    hold(referee, table, T01, n=3)

    assert [e["event"]["kind"] for e in camera_events(tablet, game_id)] == ["dryer"]
    (question,) = questions(tablet, game_id)
    assert question["prompt"] == "which_card" and question["t_ns"] == pressed
    assert question["message"] == (
        "Ana pressed done; Ana's dryer reads pants:red / - / -, which completes T01 and T05. "
        "Which task card did Ana complete?"
    )
    answers = {a["name"]: a["event"] for a in question["answers"]}
    assert answers == {
        card: {
            "kind": "done",
            "seat": 0,
            "payload": {"card": card, "dryer": T01.to_dict()},
            "t_ns": pressed,
            "source": "camera",
        }
        for card in ("T01", "T05")
    }
    assert claims(tablet, game_id) == []
    # one tap names it, at the press's time, checked against the reading
    url = f"/api/games/{game_id}/prompts/{question['id']}/accept"
    assert tablet.post(url, {"answer": "T05"}).status_code == 201
    assert claims(tablet, game_id) == [(0, "T05", pressed, "ok")]
    hold(referee, table, T01, n=2)
    assert questions(tablet, game_id) == []


def test_ruling_wd21_a_dryer_completing_no_open_card_asks_and_later_readings_name_none(
    tmp_path,
):
    table, tablet, referee, game_id = ready(tmp_path, "T01", "T03")
    hold(referee, table, DRESS, n=5)  # T02's dress: not on the table
    pressed = table.t_ns + 50 * MS
    press(tablet, game_id, 0, pressed)
    hold(referee, table, DRESS, n=3)

    (question,) = questions(tablet, game_id)
    assert question["prompt"] == "which_card"
    assert "which completes none of the open task cards (T01 and T03)" in question["message"]
    # naming a card the reading does not complete leaves its check to the reading (WD-12)
    assert [(a["name"], "dryer" in a["event"]["payload"]) for a in question["answers"]] == [
        ("T01", False),
        ("T03", False),
    ]
    # the first sure reading after the press decided: finishing T01 later names nothing
    for _ in range(3):
        show(referee, table.frame("hand", "empty"))
    hold(referee, table, T01, n=5)
    kinds = [e["event"]["kind"] for e in camera_events(tablet, game_id)]
    assert kinds == ["dryer", "dryer"] and claims(tablet, game_id) == []
    assert [q["prompt"] for q in questions(tablet, game_id)] == ["which_card"]


def test_ruling_wd21_an_unsure_reading_names_nothing_a_later_sure_one_does(tmp_path):
    table, tablet, referee, game_id = ready(tmp_path, "T01", "T03")
    hold(referee, table, T01, n=5, confidence=0.4)  # a reading the camera is unsure of
    assert [q["prompt"] for q in questions(tablet, game_id)] == ["confirm_dryer"]
    pressed = table.t_ns + 50 * MS
    press(tablet, game_id, 0, pressed)
    hold(referee, table, T01, n=3, confidence=0.4)

    assert camera_events(tablet, game_id) == [] and claims(tablet, game_id) == []
    (question,) = questions(tablet, game_id)  # the same reading's dryer question is replaced
    assert question["prompt"] == "which_card"
    assert question["message"].startswith(
        "Ana pressed done; the camera is not sure of Ana's dryer: "
        "it reads pants:red / - / -, which completes T01."
    )
    carried = {a["name"]: "dryer" in a["event"]["payload"] for a in question["answers"]}
    assert carried == {"T01": True, "T03": False}  # one tap confirms card and reading

    # Ana re-hangs the pants; the camera is sure of the new reading: it names T01
    for _ in range(3):
        show(referee, table.frame("hand", "empty"))
    hold(referee, table, PANTS_BAR_2, n=5)
    (done,) = camera_events(tablet, game_id)
    assert done["event"]["payload"] == {"card": "T01", "dryer": PANTS_BAR_2.to_dict()}
    assert done["event"]["t_ns"] == pressed
    assert claims(tablet, game_id) == [(0, "T01", pressed, "ok")]
    assert questions(tablet, game_id) == []


def test_ruling_wd21_a_press_undone_is_not_named_and_its_question_goes(tmp_path):
    table, tablet, referee, game_id = ready(tmp_path, "T01", "T05")
    hold(referee, table, T01, n=5)
    seq = press(tablet, game_id, 0, table.t_ns + 50 * MS)
    hold(referee, table, T01, n=2)
    assert [q["prompt"] for q in questions(tablet, game_id)] == ["which_card"]
    assert tablet.post(f"/api/games/{game_id}/undo", {"target": seq}).status_code == 201
    hold(referee, table, T01, n=2)
    assert questions(tablet, game_id) == []
    assert tablet.snapshot(game_id)["view"]["presses"] == [] and claims(tablet, game_id) == []


def test_ruling_wd21_an_undone_press_lends_no_time_the_next_press_is_named(tmp_path):
    table, tablet, referee, game_id = ready(tmp_path, "T01", "T03")
    for _ in range(3):
        show(referee, table.frame("hand", "empty"))
    seq = press(tablet, game_id, 0, table.t_ns + 50 * MS)  # pressed by mistake…
    assert tablet.post(f"/api/games/{game_id}/undo", {"target": seq}).status_code == 201
    hold(referee, table, T01, n=5)  # …and undone before the dryer was read: nothing named
    assert [e["event"]["kind"] for e in camera_events(tablet, game_id)] == ["dryer"]
    assert claims(tablet, game_id) == []
    again = table.t_ns + 50 * MS
    press(tablet, game_id, 0, again)
    hold(referee, table, T01, n=2)
    assert claims(tablet, game_id) == [(0, "T01", again, "ok")]


def test_ruling_wd21_the_tablet_naming_the_card_closes_the_question(tmp_path):
    table, tablet, referee, game_id = ready(tmp_path, "T01", "T05")
    hold(referee, table, T01, n=5)
    pressed = table.t_ns + 50 * MS
    press(tablet, game_id, 0, pressed)
    hold(referee, table, T01, n=2)
    assert [q["prompt"] for q in questions(tablet, game_id)] == ["which_card"]
    named = {"kind": "done", "seat": 0, "payload": {"card": "T01"}}  # the console's form
    assert tablet.send(game_id, named).status_code == 201
    hold(referee, table, T01, n=2)
    assert questions(tablet, game_id) == []
    assert claims(tablet, game_id) == [(0, "T01", pressed, "ok")]  # checked by the camera
    assert [e["event"]["kind"] for e in camera_events(tablet, game_id)] == ["dryer", "dryer"]


def test_ruling_wd21_the_engine_says_which_open_cards_a_dryer_completes():
    players = ["Ann", "Bob", "Cy", "Di", "Ed"]
    opening = [
        Event("setup"),
        Event("reveal", seat=0, payload={"cards": ["T01", "T03", "T05", "first-bonus-1"]}),
    ]
    state = replay(GAME, players, {}, opening).state
    assert GAME.open_tasks_done_by(state, DRESS) == ()
    assert GAME.open_tasks_done_by(state, SHIRT) == ("T03",)
    assert GAME.open_tasks_done_by(state, T01) == ("T01", "T05")
    pad = Event("done", seat=1, t_ns=7, source=Source.PAD)
    taken = Event("done", seat=2, payload={"card": "T05", "dryer": "shirt:red / - / -"})
    later = replay(GAME, players, {}, [*opening, pad, taken]).state
    assert GAME.open_tasks_done_by(later, T01) == ("T01",)  # T05 is taken
    assert GAME.view(later)["presses"] == [{"seat": 1, "t_ns": 7}]
