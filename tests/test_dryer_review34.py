"""Day 34: what the camera's dryer referee takes for an empty dryer, with the real reader.

A piece whose pin the reader does not see is still a piece: the dryer it hangs on is not
empty (never its empty picture), and alone on the dryer it is asked about (TBL-7). The
Live page's "Dryers are empty now" asks for the dryers as they are when it is pressed: it
lapses when the next round is revealed before a dryer held still.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import vision.dryer.render as render
from referee.washdash.dryer import Dryer
from tests.test_web_camera_dryer import CLOTH, MS, Table, camera_events, dryer_app, hold
from vision.dryer.render import DryerSample, render_dryer
from vision.table.frames import Frame

SHIRT_ON_YELLOW = {"bars": [[], [{"piece": "shirt", "pins": ["yellow"]}], []]}
PANTS_ON_RED = {"bars": [[{"piece": "pants", "pins": ["red"]}], [], []]}


class Pictures(Table):
    """Two rendered dryers side by side, each seat's pictures by name; read by the real
    ``DryerReader`` (``dryer_app(..., fake=False)``)."""

    def __init__(self, samples: list[DryerSample], pictures: list[dict[str, np.ndarray]]):
        self.samples, self.pictures = samples, pictures
        self.truth, self.t_ns, self.index = {}, 0, 0

    def frame(self, left: Any = "empty", right: Any = "empty", confidence: float = 1.0) -> Frame:
        image = np.hstack([self.pictures[0][left], self.pictures[1][right]])
        self.t_ns += 100 * MS
        self.index += 1
        return Frame(image, self.t_ns, self.index)


def _without_pins(seed: int, state: str) -> DryerSample:
    """The dryer ``render_dryer`` draws for ``seed`` and ``state``, its pins left off (the
    same random draws, so its empty picture is the pinned one's)."""
    pin_sprite = render._pin_sprite

    def no_pin(color: str, w: int, h: int, rng: np.random.Generator) -> Any:
        rgb, alpha = pin_sprite(color, w, h, rng)
        return rgb, alpha * 0

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(render, "_pin_sprite", no_pin)
        return render_dryer(np.random.default_rng(seed), Dryer.parse(state), table_rgb=CLOTH)


def _references(referee: Any) -> list[str | None]:
    return [s["reference"] for s in referee.status()["dryers"]["seats"]]


def _send(tablet: Any, game_id: int, event: dict[str, Any]) -> None:
    response = tablet.send(game_id, event)
    assert response.status_code == 201, response.json


def _round_ended_by_anas_done(tablet: Any, game_id: int) -> None:
    """Round 1 (T01, T02 open), then Ana's done T01 on her dryer: with 2 players, it ends."""
    _send(tablet, game_id, {"kind": "setup"})
    _send(tablet, game_id, {"kind": "reveal", "seat": 0, "payload": {"cards": ["T01", "T02"]}})
    done = {"kind": "done", "seat": 0, "payload": {"card": "T01", "dryer": PANTS_ON_RED}}
    _send(tablet, game_id, done)
    assert tablet.snapshot(game_id)["view"]["phase"] == "between_rounds"


def test_ruling_tbl5_a_full_dryer_whose_pins_a_plain_look_misses_is_not_its_empty_picture(
    tmp_path,
):
    # seed 1016: three pieces left hanging from the last game, on a table where a plain
    # look (no empty picture yet) sees all three pieces but none of their pins
    full = render_dryer(np.random.default_rng(1016))
    bea = render_dryer(np.random.default_rng(8), table_rgb=CLOTH)
    table = Pictures([full, bea], [{"full": full.image}, {"empty": bea.empty}])
    _, referee, _ = dryer_app(tmp_path, table, fake=False)
    hold(referee, table, "full", "empty", n=10)  # before the first round, all still
    assert _references(referee) == [None, "before the first round"]
    assert "seat 0: no picture of the empty dryer yet" in referee.status()["message"]


def test_ruling_tbl7_a_lone_piece_hung_with_no_pin_is_asked_about(tmp_path):
    ana = render_dryer(np.random.default_rng(7), table_rgb=CLOTH)
    bea = _without_pins(8, "- / shirt:yellow / -")
    table = Pictures([ana, bea], [{"empty": ana.empty}, {"empty": bea.empty, "no pin": bea.image}])
    tablet, referee, game_id = dryer_app(tmp_path, table, fake=False)
    hold(referee, table, "empty", "empty", n=8)  # the empty pictures
    _send(tablet, game_id, {"kind": "setup"})
    _send(tablet, game_id, {"kind": "reveal", "seat": 0, "payload": {"cards": ["T02", "T03"]}})
    hold(referee, table, "empty", "no pin", n=10)  # Bea's shirt hangs, no pin on it
    (question,) = tablet.services.prompts.open(game_id)
    assert question["prompt"] == "confirm_dryer"
    assert "no pin seen on the yellow shirt" in question["message"]
    assert camera_events(tablet, game_id) == []  # asked, not sent: the engine saw nothing
    # her pad's press is told why the camera is unsure, not that her dryer looks empty
    _send(tablet, game_id, {"kind": "done", "seat": 1, "source": "pad", "t_ns": table.t_ns})
    hold(referee, table, "empty", "no pin", n=3)
    (press_question,) = tablet.services.prompts.open(game_id)
    assert "not sure of Bea's dryer (no pin seen on the yellow shirt)" in press_question["message"]


def test_ruling_tbl5_a_piece_hung_with_no_pin_between_rounds_is_not_its_empty_picture(tmp_path):
    ana = render_dryer(np.random.default_rng(7), table_rgb=CLOTH)
    pinned = render_dryer(
        np.random.default_rng(8), Dryer.parse("- / shirt:yellow / -"), table_rgb=CLOTH
    )
    no_pin = _without_pins(8, "- / shirt:yellow / -")
    table = Pictures(
        [ana, pinned],
        [
            {"empty": ana.empty},
            {"empty": pinned.empty, "pinned": pinned.image, "no pin": no_pin.image},
        ],
    )
    tablet, referee, game_id = dryer_app(tmp_path, table, fake=False)
    hold(referee, table, "empty", "empty", n=8)  # before the first round
    _round_ended_by_anas_done(tablet, game_id)
    # between rounds Bea hangs her shirt for the next task, its pin not clipped on yet
    hold(referee, table, "empty", "no pin", n=10)
    assert _references(referee) == ["before the first round"] * 2  # Bea's: not retaken
    _send(tablet, game_id, {"kind": "reveal", "seat": 1, "payload": {"cards": ["T03", "T04"]}})
    hold(referee, table, "empty", "pinned", n=8)  # pinned: T03, the yellow shirt
    _send(tablet, game_id, {"kind": "done", "seat": 1, "payload": {"card": "T03"}})
    hold(referee, table, "empty", "pinned", n=4)
    claims = tablet.snapshot(game_id)["view"]["claims"]
    assert [(c["seat"], c["card"], c["status"]) for c in claims][-1] == (1, "T03", "ok")


def test_ruling_tbl5_dryers_are_empty_now_lapses_when_the_next_round_is_revealed(tmp_path):
    ana = render_dryer(np.random.default_rng(7), table_rgb=CLOTH)
    bea = render_dryer(
        np.random.default_rng(8), Dryer.parse("- / shirt:yellow / -"), table_rgb=CLOTH
    )
    hands = [bea.empty.copy() for _ in range(2)]
    for i, hand in enumerate(hands):  # a hand moving over Bea's dryer: never still
        hand[150 + 40 * i : 260 + 40 * i, 260:340] = (150, 170, 210)
    table = Pictures(
        [ana, bea],
        [{"empty": ana.empty}, {"empty": bea.empty, "full": bea.image, 0: hands[0], 1: hands[1]}],
    )
    tablet, referee, game_id = dryer_app(tmp_path, table, fake=False)
    hold(referee, table, "empty", "empty", n=8)  # before the first round
    _round_ended_by_anas_done(tablet, game_id)
    assert tablet.post("/api/camera/dryers/empty").status_code == 200
    for i in range(10):  # Ana's dryer still and taken; Bea's hand keeps hers moving
        referee.step(table.frame("empty", i % 2))
    assert _references(referee) == ["button", "before the first round"]
    assert referee.status()["dryers"]["waiting_for_empty"]
    _send(tablet, game_id, {"kind": "reveal", "seat": 1, "payload": {"cards": ["T03", "T04"]}})
    hold(referee, table, "empty", "full", n=10)  # Bea's shirt hangs on the yellow pin, still
    assert _references(referee) == ["button", "before the first round"]  # not the shirt
    assert not referee.status()["dryers"]["waiting_for_empty"]
    _send(tablet, game_id, {"kind": "done", "seat": 1, "payload": {"card": "T03"}})
    hold(referee, table, "empty", "full", n=4)
    claims = tablet.snapshot(game_id)["view"]["claims"]
    assert [(c["seat"], c["card"], c["status"]) for c in claims][-1] == (1, "T03", "ok")


def test_the_plain_look_bench_counts_what_each_rule_takes_for_empty():
    from bench.dryer_plain_look import RULES, run, table

    result = run(2, 1000)  # seed 1000: an empty dryer on a random table with a blue blob
    random = result["tables"]["random tables"]
    assert random["taken"] == {"no pinned piece (old)": 2, "no piece at all (now)": 1}
    assert set(result["tables"]["plain cloth"]["fooled"]) == set(RULES)
    assert "no piece at all (now)" in table(result)


def test_ruling_tbl7_the_dryer_watcher_asks_about_a_lone_piece_with_no_pin_too():
    from vision.dryer.watch import DryerWatcher
    from vision.table.to_events import Prompt

    bea = _without_pins(8, "- / shirt:yellow / -")
    watcher = DryerWatcher(bea.layout, (0,))
    watcher.set_reference(bea.empty)
    out = [p for t in range(1, 9) for p in watcher.process(bea.image, t * 100 * MS)]
    (question,) = out
    assert isinstance(question, Prompt)
    assert "no pin seen on the yellow shirt" in question.message


def test_dryers_are_empty_now_pressed_during_a_round_is_answered_with_round_on(tmp_path):
    """The Live page warns when the button is pressed mid-round: pieces hanging then become
    the dryers' background."""
    from tests.test_web_camera_dryer import start_round

    table = Table()
    tablet, referee, game_id = dryer_app(tmp_path, table)
    hold(referee, table, "empty", "empty", n=8)
    answer = tablet.post("/api/camera/dryers/empty")
    assert answer.status_code == 200 and answer.json["dryers"]["round_on"] is False
    start_round(tablet, game_id)
    hold(referee, table, "empty", "empty", n=2)
    answer = tablet.post("/api/camera/dryers/empty")
    assert answer.status_code == 200 and answer.json["dryers"]["round_on"] is True
