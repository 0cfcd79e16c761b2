"""``referee.frozen.evolve``: the engines' fast ``dataclasses.replace``."""

from __future__ import annotations

import dataclasses

import pytest

from referee.frozen import evolve


@dataclasses.dataclass(frozen=True)
class Record:
    name: str
    cards: tuple[str, ...] = ()
    score: int = 0


def test_evolve_matches_dataclasses_replace() -> None:
    before = Record("Ann", ("R1",), 3)
    after = evolve(before, cards=("R1", "B2"), score=5)
    assert after == dataclasses.replace(before, cards=("R1", "B2"), score=5)
    assert after is not before and type(after) is Record
    assert before == Record("Ann", ("R1",), 3)  # the original is untouched
    with pytest.raises(dataclasses.FrozenInstanceError):
        after.score = 1  # type: ignore[misc]


def test_evolve_refuses_an_unknown_field() -> None:
    with pytest.raises(TypeError, match="Record has no field 'scroe'"):
        evolve(Record("Ann"), scroe=1)
