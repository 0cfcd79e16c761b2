"""Follow-up to the camera's pile questions (review of TBL-14 … TBL-19): questions the game
has overtaken leave the tablets (TBL-21), a draw typed on the tablet takes the card off the
camera's memory of the pile (TBL-22), and a Deck Steal seen in the draw step is no discard
(TBL-23). Painted piles, a deterministic reader and the real app, as in
``tests/test_web_camera_referee.py``; the mapper's rulings against the Deck Dash engine, as
in ``tests/test_to_events_review.py``."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

from referee.events import Event
from tests.test_to_events_review import DEAL, HERE, PILE, Game, mapper, seen
from tests.test_web_camera_referee import PaintedPile, camera_events, g7_r7_g7_watched
from tests.test_web_routes import Tablet

Family = Callable[[Tablet, int], None]


@pytest.fixture(autouse=True)
def _y3_painted(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fourth face for the painted pile: Y3, a grey level of its own."""
    monkeypatch.setitem(PaintedPile.LEVELS, "Y3", 60)


def questions(tablet: Tablet, game_id: int) -> list[dict[str, Any]]:
    return tablet.client.get(f"/api/games/{game_id}/prompts").json["prompts"]


def family(*steps: Callable[[Tablet, int, list[dict[str, Any]]], None]) -> Family:
    """What the family does on the tablet at one moment; each step also gets the questions
    open just before (``held``, for a tablet that still shows them)."""

    def act(tablet: Tablet, game_id: int) -> None:
        held.extend(questions(tablet, game_id))
        for step in steps:
            step(tablet, game_id, held)

    held: list[dict[str, Any]] = []
    act.held = held  # type: ignore[attr-defined]
    return act


def typing(*events: dict[str, Any]) -> Callable[[Tablet, int, list[dict[str, Any]]], None]:
    def type_them(tablet: Tablet, game_id: int, _held: list[dict[str, Any]]) -> None:
        for event in events:
            r = tablet.send(game_id, event)
            assert r.status_code == 201, r.json

    return type_them


def accept(tablet: Tablet, game_id: int, question: dict[str, Any], body: Any = None) -> Any:
    return tablet.post(f"/api/games/{game_id}/prompts/{question['id']}/accept", body)


BEA_DRAWS_R7 = {"kind": "draw", "seat": 1, "payload": {"from": "discard", "card": "R7"}}


# --- TBL-21 · questions the game has overtaken ----------------------------------------------
def test_ruling_tbl21_a_draw_question_the_family_typed_the_draw_for_is_closed(tmp_path, caplog):
    """The camera logs Ana's R7 (#3), then sees G7 again in Bea's draw step but is unsure
    (0.5): "Did seat 1 draw R7 from the discard pile?". The family types Bea's draw instead.
    The pile agrees with the camera again: the question leaves the tablets, the log says
    why, and a tablet still showing it is refused (before: a second draw was logged)."""
    typed = family(typing(BEA_DRAWS_R7))
    with caplog.at_level(logging.INFO, logger="web.services.referee_camera"):
        tablet, game_id = g7_r7_g7_watched(
            tmp_path, {24: typed}, confidence={"G7": 0.5}, tops=("G7", "R7", "G7", "G7")
        )
    (asked,) = typed.held  # type: ignore[attr-defined]
    assert asked["message"] == "Did seat 1 draw R7 from the discard pile?"
    assert questions(tablet, game_id) == []
    assert f"question {asked['id']} closed: the game's pile shows G7 on top" in caplog.text
    r = accept(tablet, game_id, asked)
    assert r.status_code == 404
    feed = tablet.snapshot(game_id)["feed"]
    assert [i["event"]["kind"] for i in feed] == ["deal", "draw", "discard", "draw"]
    assert [v["outcome"] for v in feed[-1]["verdicts"]] == ["legal"]


def test_ruling_tbl21_an_undo_question_settled_by_another_copy_typed_is_not_accepted_later(
    tmp_path,
):
    """A Wild on G7, then G7 again where it lay: "W was taken back: undo that play (#3)?".
    Bea types her draw and the other G7, played on the Wild. Accepted later, the undo would
    take the Wild out from under her G7 (the rules would take it against the new pile):
    the question is closed as soon as the game's pile shows what the camera sees."""
    typed = family(
        typing(
            {"kind": "draw", "seat": 1}, {"kind": "discard", "seat": 1, "payload": {"card": "G7"}}
        )
    )
    tablet, game_id = g7_r7_g7_watched(tmp_path, {24: typed}, tops=("G7", "W", "G7", "G7"))
    (asked,) = typed.held  # type: ignore[attr-defined]
    assert asked["prompt"] == "taken_back" and asked["suggestion"]["payload"] == {"target": 3}
    assert questions(tablet, game_id) == []
    assert accept(tablet, game_id, asked).status_code == 404
    snap = tablet.snapshot(game_id)
    assert snap["view"]["round"]["discard"] == ["G7", "W", "G7"]
    assert "undone" not in [i["status"] for i in snap["feed"]]


def test_ruling_tbl21_a_question_answered_after_a_later_play_on_its_pile_is_refused(tmp_path):
    """Ana lays R7 (read at 0.5: asked), changes her mind and discards Y3 on it: "Who played
    Y3?". The family answers that one (Ana). R7's question is about the pile before Y3:
    accepted now it would log Ana's R7 after her Y3 (out of turn, on the wrong card), so
    it is closed the moment Y3 is logged and a tablet still showing it gets a 404."""
    tablet, game_id = g7_r7_g7_watched(
        tmp_path, confidence={"R7": 0.5}, tops=("G7", "R7", "Y3", "Y3")
    )
    first, later = questions(tablet, game_id)
    assert (first["prompt"], first["suggestion"]["payload"]) == ("confirm_card", {"card": "R7"})
    assert (later["prompt"], later["suggestion"]["payload"]) == ("who_played", {"card": "Y3"})
    r = accept(tablet, game_id, later, {"seat": 0})
    assert r.status_code == 201 and r.json["verdicts"][0]["outcome"] == "legal"
    assert questions(tablet, game_id) == []
    assert accept(tablet, game_id, first).status_code == 404
    snap = tablet.snapshot(game_id)
    assert snap["view"]["round"]["discard"] == ["G7", "Y3"]
    assert [i["event"]["kind"] for i in snap["feed"]] == ["deal", "draw", "discard"]


def test_ruling_tbl21_a_question_whose_play_was_typed_is_closed_while_the_camera_saw_more(tmp_path):
    """R7 asked about (0.5), then Y3 on it asked with its player. The family types Ana's R7
    on the tablet: the game's top is now the card the first question saw, so it is settled
    (the mapper counts it so too) and leaves; Y3's question stays, for Bea."""
    typed = family(typing({"kind": "discard", "seat": 0, "payload": {"card": "R7"}}))
    tablet, game_id = g7_r7_g7_watched(
        tmp_path, {24: typed}, confidence={"R7": 0.5}, tops=("G7", "R7", "Y3", "Y3")
    )
    first, later = typed.held  # type: ignore[attr-defined]
    (left,) = questions(tablet, game_id)
    assert left["id"] == later["id"] and left["suggestion"]["payload"] == {"card": "Y3"}
    assert accept(tablet, game_id, first).status_code == 404
    assert tablet.send(game_id, {"kind": "draw", "seat": 1}).status_code == 201
    r = accept(tablet, game_id, left, {"seat": 1})
    assert r.status_code == 201, r.json
    assert tablet.snapshot(game_id)["view"]["round"]["discard"] == ["G7", "R7", "Y3"]


# --- TBL-22 · a draw typed on the tablet ----------------------------------------------------
def test_ruling_tbl22_a_draw_typed_on_the_tablet_takes_the_card_off_the_cameras_pile():
    """Ana discards R7; Bea's draw of it is typed on the tablet. The camera's memory of the
    pile is G7 again, not G7-R7-G7: Bea discarding the R7 she drew, where it lay, is her
    discard (before: "G7 was taken back … undo that play?")."""
    game = Game(DEAL, {"kind": "draw", "seat": 0})
    m = mapper(game)
    (discard,) = m.propose(seen(["G7"], ["R7"], pose=HERE), seat=0)
    game.add(discard)
    m.note_view(game.view())
    m.note_top(PILE, "R7", pile=game.view()["round"]["discard"])
    assert game.add(Event("draw", 1, {"from": "discard", "card": "R7"})) == ["legal"]
    m.note_view(game.view())
    m.note_top(PILE, "G7", pile=game.view()["round"]["discard"])
    (again,) = m.propose(seen(["G7"], ["R7"], t=900, pose=HERE, disturbed=True), seat=1)
    assert (again.kind, again.seat, again.payload) == ("discard", 1, {"card": "R7"})
    assert game.add(again)[0] == "legal"
    # another copy of the card under the top, typed on the pile, is remembered on top of
    # it: R7 showing again in Bea's draw step is her draw of that G7
    m.note_top(PILE, "R7", pile=game.view()["round"]["discard"])
    game.add(Event("draw", 0))
    game.add(Event("discard", 0, {"card": "G7"}))
    m.note_view(game.view())
    m.note_top(PILE, "G7", pile=game.view()["round"]["discard"])
    (back,) = m.propose(seen(["G7"], ["R7"], pose=HERE, disturbed=True), seat=1)
    assert (back.kind, back.payload) == ("draw", {"from": "discard", "card": "G7"})


def test_ruling_tbl22_the_cameras_referee_forgets_a_card_drawn_on_the_tablet(tmp_path):
    """End to end: R7 logged by the camera, Bea's draw of it typed as the pile shows G7
    again, then she discards R7 where it lay: logged as her discard, nothing asked."""
    tablet, game_id = g7_r7_g7_watched(
        tmp_path, {16: family(typing(BEA_DRAWS_R7))}, tops=("G7", "R7", "G7", "R7")
    )
    assert questions(tablet, game_id) == []
    got = [(i["event"]["kind"], i["event"]["seat"]) for i in camera_events(tablet, game_id)]
    assert got == [("discard", 0), ("discard", 1)]
    snap = tablet.snapshot(game_id)
    assert snap["feed"][-1]["verdicts"][0]["outcome"] == "legal"
    assert snap["view"]["round"]["discard"] == ["G7", "R7"]


# --- TBL-23 · a Deck Steal in the draw step -------------------------------------------------
def test_ruling_tbl23_a_deck_steal_seen_in_the_draw_step_offers_no_discard():
    """Ana discarded R7; a Deck Steal settles on it while Bea must draw: she cannot discard
    now, so the question offers only the steal. In her play step the plain discard is
    still an answer."""
    game = Game(DEAL, {"kind": "draw", "seat": 0})
    m = mapper(game)
    game.add(m.propose(seen(["G7"], ["R7"]), seat=0)[0])
    m.note_top(PILE, "R7")
    m.note_view(game.view())
    assert game.view()["round"]["phase"] == "draw"
    (p,) = m.propose(seen(["R7"], ["STEAL"], t=800), seat=1)
    assert p.kind == "who_played" and p.suggestion.kind == "steal"
    assert p.answers == () and "discard" not in p.to_dict()["choices"]

    game.add(Event("draw", 1))
    m = mapper(game)
    m.propose(seen(["G7"], ["R7"]), seat=0)
    m.note_view(game.view())
    (p,) = m.propose(seen(["R7"], ["STEAL"], t=800), seat=1)
    assert [(a.name, a.event.kind, a.event.seat) for a in p.answers] == [("discard", "discard", 1)]


def test_ruling_tbl21_a_misread_question_overtaken_keeps_only_its_correction(tmp_path):
    """A misreading's question ("Was the card R9, not R7? (#3)") open when a later card is
    logged on the pile: its one-tap overrule still corrects #3 in place, but its "R9 was
    played on R7" answer would now land on the later card, so only that answer goes."""
    tablet, game_id = g7_r7_g7_watched(tmp_path, tops=("G7", "R7"))
    referee = tablet.services.referee
    ctx = referee._ctx
    overrule = ask_r9_misread(referee)  # the one-tap correction it offers
    ctx.seen["discard_1"] = "Y3"  # the camera sees Bea's Y3 on it now
    for event in (
        {"kind": "draw", "seat": 1},
        {"kind": "discard", "seat": 1, "payload": {"card": "Y3"}},
    ):
        assert tablet.send(game_id, event).status_code == 201
    (left,) = questions(tablet, game_id)
    assert left["prompt"] == "misread" and left["suggestion"] == overrule
    assert left["choices"] == ["overrule", "keep"] and left["answers"] == []
    assert left["message"].endswith("(A later card is logged on it now.)")


def ask_r9_misread(referee: Any) -> dict[str, Any]:
    """The camera asks whether #3 (R7 on discard_1) was really R9: a one-tap overrule (which
    it returns), and an "R9 was played on R7" answer."""
    overrule = {"kind": "overrule", "payload": {"target": 3, "event": {}}, "source": "camera"}
    nine = {"kind": "discard", "seat": 0, "payload": {"card": "R9"}, "source": "camera"}
    misread = {
        "prompt": "misread",
        "message": "Was the card on the pile R9, not R7? (#3)",
        "zone": "discard_1",
        "suggestion": overrule,
        "choices": ["overrule", "keep", "another"],
        "answers": [{"name": "another", "label": "R9 was played on R7", "event": nine}],
    }
    referee._ask(referee._ctx, misread, seen(["R7"], ["R9"], zone="discard_1"))
    return overrule
