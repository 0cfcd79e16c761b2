"""Review 37: a pin holding nothing, and what the camera's dryer referee takes for empty.

A pin clipped to a bar touching no piece is read (TBL-5: "a pin holding nothing" is a
doubt), and a dryer with one is not empty: before, the reader dropped such pins, so a dryer
with only pins on it was retaken as the empty picture between rounds (and the pins, once
unclipped, read as phantom pins or hid the real ones). "Dryers are empty now" reads each
dryer against its picture first: one still holding clothes keeps its picture. The "dryer
covered" question goes once the dryer is seen again, and mid-round it does not tell the
family to empty the dryers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import vision.dryer.render as render
from referee.washdash.dryer import Dryer
from tests.test_dryer_hands import covered_round
from tests.test_dryer_review34 import Pictures, _references, _round_ended_by_anas_done
from tests.test_web_camera_dryer import (
    CLOTH,
    T01,
    dryer_app,
    hold,
)
from vision.dryer.read import DryerReader, leftover, looks_empty
from vision.dryer.render import DryerSample, render_dryer
from vision.dryer.watch import dryer_proposal
from vision.table.to_events import Prompt


def _with_lone_pin(seed: int, state: str, color: str = "blue", bar: int = 1) -> DryerSample:
    """The dryer ``render_dryer`` draws for ``seed`` and ``state``, and a ``color`` pin
    clipped alone to bar ``bar`` (0-based) near its right end, away from any piece's pin.
    Its own generator: the other draws, and so the empty picture, stay as they are."""
    hang = render._hang

    def hang_and_clip(dryer: Dryer, rgb: Any, a: Any, bars: Any, rod: int, rng: Any) -> None:
        hang(dryer, rgb, a, bars, rod, rng)
        w, h = int(render.DW * 0.06), int(render.DH * 0.14)
        pin_rgb, pin_a = render._pin_sprite(color, w, h, np.random.default_rng(seed))
        top = int(bars[bar] - rod / 2)
        render._over(rgb, a, pin_rgb, pin_a, int(render.DW * 0.8), int(top - h * 0.5))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(render, "_hang", hang_and_clip)
        return render_dryer(np.random.default_rng(seed), Dryer.parse(state), table_rgb=CLOTH)


def _hands(empty: np.ndarray) -> dict[int, np.ndarray]:
    """Two pictures of a hand moving over the dryer (never still): frames named 0 and 1."""
    out = {}
    for i in range(2):
        out[i] = empty.copy()
        out[i][60 + 120 * i : 300 + 120 * i, 80:560] = (150, 170, 210)
    return out


def _reach(referee: Any, table: Pictures) -> None:
    """A hand moves over Ana's dryer: a new still spell begins after it."""
    for i in range(4):
        referee.step(table.frame(i % 2, "empty"))


def test_ruling_tbl5_a_pin_holding_nothing_is_doubted():
    # WD-24: with extra_items=forbid a spare pin spoils the task, so the camera asks
    sample = _with_lone_pin(11, "dress:red / - / -")
    reader = DryerReader(sample.layout)
    reader.set_reference(sample.empty)
    got = reader.read(sample.image)
    assert got.dryer == Dryer.parse("dress:red / - / -")  # the dress is still read
    assert got.confidence <= 0.5
    assert "a pin holding nothing: the blue pin on bar 2" in got.notes
    question = dryer_proposal(0, got, got.confidence, 0, "seat_0_dryer")
    assert isinstance(question, Prompt)
    assert "a pin holding nothing" in question.message


def test_ruling_tbl5_a_dryer_with_only_a_pin_on_it_is_not_empty():
    pins = _with_lone_pin(12, "- / - / -", color="yellow", bar=2)
    reader = DryerReader(pins.layout)
    reader.set_reference(pins.empty)
    got = reader.read(pins.image)
    assert not looks_empty(got)
    assert leftover(got) == "a pin holding nothing: the yellow pin on bar 3"
    emptied = reader.read(pins.empty)
    assert looks_empty(emptied) and leftover(emptied) is None


def test_ruling_tbl5_a_dryer_with_pins_left_on_it_is_not_taken_as_empty(tmp_path):
    ana = _with_lone_pin(12, "- / - / -", color="yellow", bar=2)
    bea = render_dryer(np.random.default_rng(8), table_rgb=CLOTH)
    ana_pictures = {"empty": ana.empty, "pin": ana.image, **_hands(ana.empty)}
    table = Pictures([ana, bea], [ana_pictures, {"empty": bea.empty}])
    tablet, referee, game_id = dryer_app(tmp_path, table, fake=False)
    hold(referee, table, "empty", "empty", n=8)  # before the first round
    assert _references(referee) == ["before the first round"] * 2
    _round_ended_by_anas_done(tablet, game_id)
    # the family takes the clothes off and leaves Ana's yellow pin clipped to bar 3
    _reach(referee, table)
    hold(referee, table, "pin", "empty", n=10)
    assert _references(referee) == ["before the first round"] * 2  # not retaken "emptied"
    status = referee.status()
    kept = "something is still on Ana's dryer (a pin holding nothing: the yellow pin on bar 3)"
    assert status["dryers"]["seats"][0]["kept"] == kept
    assert kept in status["message"]
    _reach(referee, table)
    hold(referee, table, "empty", "empty", n=10)  # the pin unclipped: emptied now
    assert _references(referee)[0] == "emptied"
    assert referee.status()["dryers"]["seats"][0]["kept"] is None


def test_ruling_tbl5_the_empty_dryers_button_keeps_a_dryer_that_still_holds_clothes(tmp_path):
    ana = render_dryer(np.random.default_rng(7), table_rgb=CLOTH)
    bea = render_dryer(np.random.default_rng(8), Dryer.parse("dress:blue / - / -"), table_rgb=CLOTH)
    table = Pictures([ana, bea], [{"empty": ana.empty}, {"empty": bea.empty, "full": bea.image}])
    tablet, referee, game_id = dryer_app(tmp_path, table, fake=False)
    hold(referee, table, "empty", "empty", n=8)  # before the first round
    _round_ended_by_anas_done(tablet, game_id)
    hold(referee, table, "empty", "full", n=6)  # Bea's dress still hangs from round 1
    assert tablet.post("/api/camera/dryers/empty").status_code == 200
    hold(referee, table, "empty", "full", n=8)
    assert _references(referee) == ["button", "before the first round"]
    status = referee.status()
    assert not status["dryers"]["waiting_for_empty"]
    said = status["dryers"]["seats"][1]["kept"]
    assert said.startswith("Bea's dryer still holds something (")
    assert "press 'Dryers are empty now' again if it is empty" in said
    assert said in status["message"]
    # pressed again: the family's word (the old picture may be what is wrong)
    assert tablet.post("/api/camera/dryers/empty").status_code == 200
    hold(referee, table, "empty", "full", n=8)
    assert _references(referee) == ["button", "button"]
    assert referee.status()["dryers"]["seats"][1]["kept"] is None


def test_ruling_tbl12_the_covered_dryer_question_closes_when_the_dryer_is_seen_again(
    tmp_path, monkeypatch
):
    referee, table, asked = covered_round(tmp_path, monkeypatch)
    hold(referee, table, T01, n=25)  # T01's picture: a hand held still over Ana's dryer
    (question,) = asked()
    # mid-round, emptying the dryers would undo the players' tasks (TBL-9's words)
    assert "empty the dryers" not in question
    assert question.endswith(
        "its empty picture may hold a hand: press 'Dryers are empty now' when the dryers "
        "are next emptied."
    )
    hold(referee, table, "empty", n=3)  # the hand goes: the dryer is seen again
    assert asked() == []
