"""Review 36 (camera, part b): the two copies of a Deck Dash card (TBL-6) while a camera
question holds plays back (TBL-19). Answering the first R2's question must leave the other
R2's question open (TBL-21 settles a play's question only once the game's pile holds it),
and a "was another R2 played?" asked while an earlier question is open names no player.
The real app and camera referee, fed scripted observations through its own ``step``; the
mapper's proposals as in ``tests/test_to_events_review.py``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.test_camera_questions_followup import accept, questions
from tests.test_to_events_review import PILE, mapper, seen
from tests.test_web_camera_referee import g7_r7_g7_watched
from tests.test_web_routes import Tablet
from vision.table.stability import Observation

HERE, THERE = (0.5, 0.5, 30.0), (0.56, 0.5, 30.0)  # a pile card where it lay, and pushed aside


def moved(card: str, t: int, pose: Any = THERE) -> Observation:
    """The same face settled again after a hand covered the pile, lying elsewhere."""
    return Observation(PILE, (card,), (card,), t, t + 100, 0.95, moved=True, pose=pose)


@dataclass
class Scripted:
    """A frame for the camera referee's ``step`` that carries what its watcher settles."""

    seen: list[Observation]
    image: Any = None


class ScriptedWatcher:
    """Stands in for ``TableWatcher``: hands ``step`` the frame's observations, and keeps the
    real watcher's tracker (``_sync`` sets the piles on it)."""

    def __init__(self, tracker: Any) -> None:
        self.tracker = tracker

    def process(self, frame: Scripted) -> list[Observation]:
        return frame.seen


def twins_asked(tmp_path: Any) -> tuple[Tablet, int, list[dict[str, Any]]]:
    """Ana's R7 logged by the camera (#3), Bea to draw. The camera then asks "Was another R7
    played?" (a card pushed aside), and, held back by it, "Who played R2?" for Bea's R2 and
    "Was another R2 played?" for Ana's R2 on it, which lies elsewhere; it sees R2 on top."""
    tablet, game_id = g7_r7_g7_watched(tmp_path, tops=("G7", "R7"))
    referee = tablet.services.referee
    referee._ctx.watcher = ScriptedWatcher(referee._ctx.watcher.tracker)
    for obs in (moved("R7", 900), seen(["R7"], ["R2"], t=1000, pose=HERE), moved("R2", 1100)):
        referee.step(Scripted([obs]))
    asked = questions(tablet, game_id)
    assert [(q["prompt"], q["suggestion"]["payload"]["card"]) for q in asked] == [
        ("same_card", "R7"),
        ("who_played", "R2"),
        ("same_card", "R2"),
    ]
    return tablet, game_id, asked


def test_ruling_tbl21_answering_the_first_twins_question_leaves_the_other_twins_open(tmp_path):
    """Before: accepting "Who played R2?" for Bea closed "Was another R2 played?" (the game
    had R2 on top, as that question saw it) and Ana's R2 was lost. The game holds one R2:
    the question about the second stays, and accepting it logs Ana's R2."""
    tablet, game_id, (other_r7, bea_r2, ana_r2) = twins_asked(tmp_path)
    assert tablet.post(f"/api/games/{game_id}/prompts/{other_r7['id']}/dismiss").status_code == 200
    assert tablet.send(game_id, {"kind": "draw", "seat": 1}).status_code == 201
    r = accept(tablet, game_id, bea_r2, {"seat": 1})
    assert r.status_code == 201, r.json
    assert [q["id"] for q in questions(tablet, game_id)] == [ana_r2["id"]]
    assert tablet.send(game_id, {"kind": "draw", "seat": 0}).status_code == 201
    r = accept(tablet, game_id, ana_r2, {"seat": 0})
    assert r.status_code == 201, r.json
    assert r.json["verdicts"][0]["outcome"] == "legal"
    assert r.json["event"]["seat"] == 0
    assert tablet.snapshot(game_id)["view"]["round"]["discard"] == ["G7", "R7", "R2", "R2"]
    assert questions(tablet, game_id) == []


def test_ruling_tbl21_both_twins_typed_on_the_tablet_close_both_questions(tmp_path):
    """The family types the two R2s instead: one R2 typed settles the first question only,
    the second R2 typed settles the other (the game's pile now holds both)."""
    tablet, game_id, (other_r7, bea_r2, ana_r2) = twins_asked(tmp_path)
    assert tablet.post(f"/api/games/{game_id}/prompts/{other_r7['id']}/dismiss").status_code == 200
    for event in (
        {"kind": "draw", "seat": 1},
        {"kind": "discard", "seat": 1, "payload": {"card": "R2"}},
    ):
        assert tablet.send(game_id, event).status_code == 201
    assert [q["id"] for q in questions(tablet, game_id)] == [ana_r2["id"]]
    for event in (
        {"kind": "draw", "seat": 0},
        {"kind": "discard", "seat": 0, "payload": {"card": "R2"}},
    ):
        assert tablet.send(game_id, event).status_code == 201
    assert questions(tablet, game_id) == []
    assert accept(tablet, game_id, bea_r2, {"seat": 1}).status_code == 404


def test_ruling_tbl19_another_copy_asked_while_a_question_is_open_names_no_player():
    """Ana's R7 is asked about (read at 0.5): her turn may be over. The same face then lies
    elsewhere: "Was another R7 played?" suggested Ana (the engine's stale turn), one tap
    from logging Bea's R7 as hers; now it names nobody and the tablet asks whose."""
    m = mapper()
    m.note_questions([])
    (first,) = m.propose(seen(["G7"], ["R7"], conf=0.5, pose=HERE), seat=0)
    assert first.kind == "confirm_card" and first.suggestion.seat == 0
    m.note_questions([PILE])
    (p,) = m.propose(moved("R7", 600), seat=0)
    assert p.kind == "same_card"
    assert (p.suggestion.kind, p.suggestion.seat, p.suggestion.payload) == (
        "discard",
        None,
        {"card": "R7"},
    )
    assert p.suggestion.t_ns == 600


def test_ruling_tbl19_another_copy_with_no_question_open_keeps_the_player_on_turn():
    """Nothing held back: the one-tap answer still sends the play as the turn player's."""
    m = mapper()
    m.note_questions([])
    (ev,) = m.propose(seen(["G7"], ["R7"], pose=HERE), seat=0)
    assert (ev.kind, ev.seat) == ("discard", 0)
    (p,) = m.propose(moved("R7", 600), seat=1)
    assert (p.kind, p.suggestion.seat) == ("same_card", 1)


def test_ruling_tbl19_a_take_backs_twin_answer_names_no_player_while_a_question_is_open():
    """R7 asked about (0.5), then G7 on top again: "R7 was taken back… undo that play?" with
    "Another G7 was played". Who played that G7 depends on the open R7 question: the answer
    names nobody, and the tablet shows one button per player (TBL-6)."""
    m = mapper()
    m.note_questions([])
    m.propose(seen(["G7"], ["R7"], conf=0.5), seat=0)
    m.note_questions([PILE])
    (p,) = m.propose(seen(["R7"], ["G7"], t=800, disturbed=True), seat=0)
    assert p.kind == "taken_back"
    ((name, event),) = [(a.name, a.event) for a in p.answers]
    assert (name, event.kind, event.seat, event.payload) == (
        "another",
        "discard",
        None,
        {"card": "G7"},
    )


def test_ruling_tbl21_answering_a_later_question_settles_the_earlier_ones_on_its_pile(tmp_path):
    """Accepting "Who played R2?" puts R2 on the pile after R7: "Was another R7 played?",
    asked before it, is overtaken (TBL-21: "that one and those before it are settled") and
    closes; the other R2's question, asked after, stays. Before, the answered question had
    left the list before the tops were compared, and the R7 question stayed open."""
    tablet, game_id, (other_r7, bea_r2, ana_r2) = twins_asked(tmp_path)
    assert tablet.send(game_id, {"kind": "draw", "seat": 1}).status_code == 201
    r = accept(tablet, game_id, bea_r2, {"seat": 1})
    assert r.status_code == 201, r.json
    assert [q["id"] for q in questions(tablet, game_id)] == [ana_r2["id"]]
    assert accept(tablet, game_id, other_r7, {"seat": 0}).status_code == 404
