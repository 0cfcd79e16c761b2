"""The bench that says where identity is lost: each lost face gets exactly one cause."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from bench.vision_visibility import Cause, cause_of, causes_table, face_rows, table
from vision.render.faces import TRAIN_STYLES
from vision.runtime.reader import MODELS_DIR, CardReader, ReaderConfig


def test_a_lost_face_is_blamed_on_the_first_stage_that_lost_it() -> None:
    assert cause_of(0.8, True, True, 0.0, 0.0) is Cause.READ_RIGHT
    assert cause_of(0.8, False, False, 0.0, 0.0) is Cause.MISREAD_ALSO_FROM_TRUE_BOX
    assert cause_of(0.8, False, True, 0.0, 0.0) is Cause.MISREAD_ONLY_FROM_DETECTED_BOX
    assert cause_of(0.3, False, True, 0.7, 0.7) is Cause.DROPPED_BY_NMS
    assert cause_of(0.3, False, True, 0.4, 0.7) is Cause.BELOW_THRESHOLD
    assert cause_of(0.0, False, True, 0.0, 0.2) is Cause.NEVER_PROPOSED
    assert [c.label for c in Cause][-2:] == [
        "misread, also from the true box",
        "misread, only from the detected box",
    ]


def test_a_threshold_no_box_reaches_turns_found_faces_into_faces_below_it() -> None:
    config = ReaderConfig(min_confidence=0.0)
    shipped = face_rows(CardReader(MODELS_DIR, config=config), 7101, 3, TRAIN_STYLES)
    strict = CardReader(MODELS_DIR, config=replace(config, conf=0.999))
    blind = face_rows(strict, 7101, 3, TRAIN_STYLES)
    assert len(shipped) == len(blind) > 0
    assert (shipped[:, 1] >= 0.5).sum() > 0  # the shipped reader boxes these faces …
    assert (blind[:, 1] < 0.5).all()  # … the strict one boxes none of them,
    seen_by_the_strict_one = (Cause.NEVER_PROPOSED, Cause.BELOW_THRESHOLD)
    assert np.isin(blind[:, 4], seen_by_the_strict_one).all()  # so none is read or misread,
    below = Cause.BELOW_THRESHOLD
    assert (blind[shipped[:, 1] >= 0.5, 4] == below).all()  # and the found ones were weak
    np.testing.assert_array_equal(blind[:, 3], shipped[:, 3])  # true boxes read the same

    lines = causes_table(blind).splitlines()
    counts = {cause: int(line[38:44]) for cause, line in zip(Cause, lines[1:], strict=True)}
    assert sum(counts.values()) == len(blind)
    assert counts[Cause.BELOW_THRESHOLD] >= (shipped[:, 1] >= 0.5).sum()
    assert table(shipped).splitlines()[-1].startswith("all")
