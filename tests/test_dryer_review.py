"""Dryer camera review (r27): a reading first seen after a gap is untimed (TBL-10), the
reference before the first round is taken only of a dryer that looks empty (TBL-5), a camera
moved since the empty-dryer picture is asked about, and a question says why (TBL-9)."""

from __future__ import annotations

import numpy as np

from referee.washdash.dryer import Dryer
from tests.test_web_camera_dryer import (
    MS,
    SHIRT,
    T01,
    Table,
    camera_events,
    dryer_app,
    hold,
    start_round,
)
from vision.dryer.read import DryerReader, DryerReading
from vision.dryer.render import render_dryer
from vision.dryer.watch import dryer_proposal
from vision.table.to_events import Prompt


def test_ruling_tbl10_a_dryer_first_seen_after_a_gap_is_sent_untimed(tmp_path):
    table = Table()
    tablet, referee, game_id = dryer_app(tmp_path, table)
    hold(referee, table, "empty", n=8)
    start_round(tablet, game_id)
    hold(referee, table, "empty", n=3)
    table.t_ns += 5_000 * MS  # the camera was down 5 s: Ana hung T01 meanwhile
    hold(referee, table, T01, n=5)
    (got,) = camera_events(tablet, game_id)
    assert got["event"]["payload"]["dryer"] == T01.to_dict()
    assert got["event"].get("t_ns") is None  # not the time the camera came back
    # seen arriving again: timed
    hold(referee, table, SHIRT, n=5)
    assert table.t_ns - 500 * MS < camera_events(tablet, game_id)[-1]["event"]["t_ns"] < table.t_ns


def test_ruling_tbl5_the_empty_dryer_before_the_first_round_must_look_empty(tmp_path):
    table = Table()
    tablet, referee, game_id = dryer_app(tmp_path, table)
    hold(referee, table, SHIRT, "empty", n=8)  # a shirt left on Ana's dryer
    seats = referee.status()["dryers"]["seats"]
    assert [s["reference"] for s in seats] == [None, "before the first round"]
    hold(referee, table, "hand", "empty", n=3)
    hold(referee, table, "empty", "empty", n=8)  # taken down: now it is the empty picture
    seats = referee.status()["dryers"]["seats"]
    assert [s["reference"] for s in seats] == ["before the first round"] * 2
    start_round(tablet, game_id)
    hold(referee, table, SHIRT, n=5)  # the shirt is seen when it is hung again
    (got,) = camera_events(tablet, game_id)
    assert got["event"]["payload"]["dryer"] == SHIRT.to_dict()


def test_ruling_tbl9_a_camera_moved_since_the_empty_dryer_picture_is_asked_about():
    from vision.dryer.read import MOVED_PX

    sample = render_dryer(np.random.default_rng(11))
    reader = DryerReader(sample.layout)
    reader.set_reference(sample.empty)
    still = reader.read(sample.image)
    assert still.shift < MOVED_PX and not any("moved" in n for n in still.notes)
    nudged = reader.read(np.roll(sample.image, (4, 4), axis=(0, 1)))  # the camera was bumped
    assert nudged.shift > MOVED_PX
    assert nudged.confidence <= 0.5
    (note,) = [n for n in nudged.notes if n.startswith("the camera moved since the empty-dryer")]
    # never "empty the dryer" now: mid-round that would undo a player's task (since day 34)
    assert note.endswith("press 'Dryers are empty now' when the dryers are next emptied")


def test_ruling_tbl9_the_question_says_why_the_camera_doubts_the_dryer():
    note = "the dryer is only 80 px wide in the picture (sure from 120 px)"
    reading = DryerReading(Dryer.parse("pants:red / - / -"), 0.5, notes=(note,))
    prompt = dryer_proposal(0, reading, 0.5, 7, "seat_0_dryer")
    assert isinstance(prompt, Prompt)
    assert f"({note})" in prompt.message
    # an impossible reading says what the rules refuse first
    two = dryer_proposal(0, Dryer.parse("pants:red / dress:red / -"), 0.5, 7, "z", notes=(note,))
    assert isinstance(two, Prompt) and note not in two.message
