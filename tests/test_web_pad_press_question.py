"""A pad's "done" held for its card (WD-17) is asked about on the tablets with one tap per
open task card, whoever asks (WD-22 in the report of this change).

Without a camera (or for a seat whose dryer the camera does not read) the server's pad
bridge asks: ``which_card`` on the prompt board, one answer per open task card, each the
seat's ``done`` with that card at the press's time (``source=pad``). The question goes when
the press does. A seat the camera's dryer referee reads is the camera's to name or ask
about (WD-21): one question per press, never two. Presses go through the real bridge
(``/api/pads/press`` on the dashboard's virtual pads).
"""

from __future__ import annotations

from typing import Any

from tests.test_web_camera_dryer import T01, Table, dryer_app, hold
from tests.test_web_routes import Tablet, make_app

PLAYERS = ("Ann", "Bob", "Cy", "Di")  # 4 players: 3 cards a round


def table_with(tmp_path, *cards: str, players: tuple[str, ...] = PLAYERS) -> tuple[Tablet, int]:
    """A dashboard without a camera, a Wash Dash round with ``cards`` revealed."""
    tablet = Tablet(make_app(tmp_path))
    tablet.set_pin()
    assert tablet.services.referee is None  # no camera
    game_id = tablet.new_game("wash-dash", players)
    reveal(tablet, game_id, *cards)
    return tablet, game_id


def reveal(tablet: Tablet, game_id: int, *cards: str) -> None:
    for event in ({"kind": "setup"}, {"kind": "reveal", "seat": 0, "payload": {"cards": cards}}):
        assert tablet.send(game_id, event).status_code == 201


def press(tablet: Tablet, game_id: int, seat: int) -> dict[str, Any]:
    """The seat's done button on the pads; the feed item it became."""
    r = tablet.post("/api/pads/press", {"seat": seat, "device": "button"})
    assert r.status_code == 200, r.json
    item = tablet.snapshot(game_id)["feed"][-1]
    assert (item["event"]["kind"], item["event"]["source"], item["event"]["seat"]) == (
        "done",
        "pad",
        seat,
    )
    return item


def questions(tablet: Tablet, game_id: int) -> list[dict[str, Any]]:
    return tablet.services.prompts.open(game_id)


def says(tablet: Tablet, game_id: int) -> dict[str, str]:
    return {c["id"]: c["says"] for c in tablet.snapshot(game_id)["view"]["table"] if "says" in c}


def claims(tablet: Tablet, game_id: int) -> list[tuple[Any, ...]]:
    view = tablet.snapshot(game_id)["view"]
    return [(c["seat"], c["card"], c["t_ns"]) for c in view["claims"]]


def accept(tablet: Tablet, game_id: int, question: dict[str, Any], answer: str) -> Any:
    return tablet.post(f"/api/games/{game_id}/prompts/{question['id']}/accept", {"answer": answer})


def test_ruling_wd22_without_a_camera_a_held_press_posts_one_question_naming_the_open_cards(
    tmp_path,
):
    tablet, game_id = table_with(tmp_path, "T01", "T03", "first-bonus-1")
    item = press(tablet, game_id, 0)
    pressed = item["event"]["t_ns"]
    assert item["verdicts"][0]["reason"] == (
        "Ann pressed done: which task card did Ann complete? "
        "Tap the card on the tablet (the press time counts for the First bonus)."
    )

    (question,) = questions(tablet, game_id)
    assert question["prompt"] == "which_card" and question["asker"] == "pads"  # not "camera"
    assert question["message"] == "Ann pressed done: which task card did Ann complete?"
    assert question["t_ns"] == pressed and question["choices"] == ["T01", "T03"]
    text = says(tablet, game_id)
    assert [(a["name"], a["label"]) for a in question["answers"]] == [
        ("T01", f"T01: {text['T01']}"),
        ("T03", f"T03: {text['T03']}"),
    ]
    assert [a["event"] for a in question["answers"]] == [
        {"kind": "done", "seat": 0, "payload": {"card": card}, "t_ns": pressed, "source": "pad"}
        for card in ("T01", "T03")
    ]
    # a second press, other players' events: still the one question (asked once per press)
    press(tablet, game_id, 0)
    dryer = {"kind": "dryer", "seat": 1, "payload": {"dryer": "- / shirt:yellow / -"}}
    assert tablet.send(game_id, dryer).status_code == 201
    assert [q["id"] for q in questions(tablet, game_id)] == [question["id"]]


def test_ruling_wd22_the_tap_credits_the_card_at_the_press_time_for_the_first_bonus(
    tmp_path,
):
    tablet, game_id = table_with(tmp_path, "T01", "T03", "first-bonus-1")
    pressed = press(tablet, game_id, 0)["event"]["t_ns"]  # Ann finishes first…
    (asked,) = questions(tablet, game_id)
    bob = {"kind": "done", "seat": 1, "t_ns": "now"}  # …Bob names his card before Ann's tap
    bob["payload"] = {"card": "T01", "dryer": "pants:red / - / -"}
    assert tablet.send(game_id, bob).status_code == 201
    (question,) = questions(tablet, game_id)
    assert question["id"] == asked["id"]  # the same question (a tablet's tap still finds it)…
    assert question["choices"] == ["T03"]  # …offering the cards still open: T01 is Bob's

    r = accept(tablet, game_id, question, "T03")
    assert r.status_code == 201, r.json
    assert r.json["event"]["t_ns"] == pressed and r.json["event"]["source"] == "pad"
    assert r.json["verdicts"][0]["reason"].startswith("Ann takes T03")
    assert claims(tablet, game_id)[-1] == (0, "T03", pressed)
    view = tablet.snapshot(game_id)["view"]
    assert view["phase"] == "between_rounds" and view["presses"] == []
    assert view["first_bonus_to"] == 0  # Ann's button, before Bob's done
    assert questions(tablet, game_id) == []


def test_naming_the_card_in_the_console_form_instead_dismisses_the_question(tmp_path):
    tablet, game_id = table_with(tmp_path, "T01", "T03", "first-bonus-1")
    pressed = press(tablet, game_id, 0)["event"]["t_ns"]
    assert [q["prompt"] for q in questions(tablet, game_id)] == ["which_card"]
    named = {"kind": "done", "seat": 0, "payload": {"card": "T03"}}  # the console's form
    assert tablet.send(game_id, named).status_code == 201
    assert questions(tablet, game_id) == []
    assert claims(tablet, game_id) == [(0, "T03", pressed)]


def test_ruling_wd22_undoing_the_press_dismisses_the_question(tmp_path):
    tablet, game_id = table_with(tmp_path, "T01", "T03", "first-bonus-1")
    seq = press(tablet, game_id, 0)["seq"]
    assert [q["prompt"] for q in questions(tablet, game_id)] == ["which_card"]
    assert tablet.post(f"/api/games/{game_id}/undo", {"target": seq}).status_code == 201
    assert questions(tablet, game_id) == []
    assert tablet.snapshot(game_id)["view"]["presses"] == []
    # pressed again: asked again, about the new press
    again = press(tablet, game_id, 0)["event"]["t_ns"]
    (question,) = questions(tablet, game_id)
    assert {a["event"]["t_ns"] for a in question["answers"]} == {again}


def test_the_round_ending_dismisses_a_press_left_held(tmp_path):
    tablet, game_id = table_with(tmp_path, "T01", "T03", players=("Ann", "Bob", "Cy"))
    press(tablet, game_id, 0)
    assert [q["prompt"] for q in questions(tablet, game_id)] == ["which_card"]
    for seat, card in ((1, "T01"), (2, "T03")):  # Bob and Cy take both cards
        done = {"kind": "done", "seat": seat, "payload": {"card": card}}
        assert tablet.send(game_id, done).status_code == 201
    assert tablet.snapshot(game_id)["view"]["phase"] == "between_rounds"
    assert questions(tablet, game_id) == []


def camera_table(tmp_path) -> tuple[Table, Tablet, Any, int]:
    """The camera's dryer referee reading Ana's and Bea's dryers (seats 0, 1; the reader
    double of ``tests/test_web_camera_dryer.py``); Cy (seat 2) has no dryer zone."""
    table = Table()
    tablet, referee, _ = dryer_app(tmp_path, table)
    game_id = tablet.new_game("wash-dash", ("Ana", "Bea", "Cy"))  # the game followed
    return table, tablet, referee, game_id


def test_ruling_wd22_a_seat_the_camera_reads_is_asked_by_the_camera_only_and_the_others_by_the_pads(
    tmp_path,
):
    table, tablet, referee, game_id = camera_table(tmp_path)
    hold(referee, table, "empty", n=8)  # the empty dryers, before the first round
    reveal(tablet, game_id, "T01", "T05")  # T05: any piece on a red pin (T01's pants too)
    hold(referee, table, T01, n=5)  # Ana's dryer settles
    ana = press(tablet, game_id, 0)["event"]["t_ns"]
    cy = press(tablet, game_id, 2)["event"]["t_ns"]
    # Ana's press is the camera's to name or ask about; Cy's dryer is not read: the pads ask
    (plain,) = questions(tablet, game_id)
    assert plain["message"] == "Cy pressed done: which task card did Cy complete?"
    assert plain["t_ns"] == cy

    hold(referee, table, T01, n=3)  # completes T01 and T05: the camera asks which
    asked = questions(tablet, game_id)
    assert len(asked) == 2 and asked[0] == plain
    camera = asked[1]
    assert camera["prompt"] == "which_card" and camera["t_ns"] == ana
    assert camera["message"].startswith("Ana pressed done; Ana's dryer reads pants:red")
    assert {a["event"]["source"] for a in camera["answers"]} == {"camera"}
    hold(referee, table, T01, n=3)
    assert questions(tablet, game_id) == asked  # nothing asked twice

    assert accept(tablet, game_id, camera, "T05").status_code == 201
    assert accept(tablet, game_id, plain, "T01").status_code == 201
    assert claims(tablet, game_id) == [(0, "T05", ana), (2, "T01", cy)]
    assert questions(tablet, game_id) == []


def test_a_camera_reading_the_seat_after_the_press_replaces_the_pads_question(tmp_path):
    table, tablet, referee, game_id = camera_table(tmp_path)
    reveal(tablet, game_id, "T01", "T05")  # no empty picture yet: the camera reads nothing
    pressed = press(tablet, game_id, 0)["event"]["t_ns"]
    (plain,) = questions(tablet, game_id)  # so the pads ask
    assert plain["message"] == "Ana pressed done: which task card did Ana complete?"

    referee.dryers.empty_now()  # mid-round, the family's button (TBL-5)…
    hold(referee, table, "empty", n=8)  # …and the camera takes Ana's empty dryer now
    hold(referee, table, T01, n=8)  # …and reads her dryer: T01 and T05, it asks which
    (camera,) = questions(tablet, game_id)  # in place of the pads' question
    assert camera["id"] != plain["id"] and camera["t_ns"] == pressed
    assert camera["message"].startswith("Ana pressed done; Ana's dryer reads pants:red")
    assert accept(tablet, game_id, camera, "T01").status_code == 201
    assert claims(tablet, game_id) == [(0, "T01", pressed)]
    assert questions(tablet, game_id) == []
