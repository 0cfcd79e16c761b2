"""The 24 Deck Dashes (12 Easy, 12 Advanced) as data.

Each Dash is the rule-book text plus its *parts*: the groups a lay-down must contain.
Keeping the lists as data (not code) lets the checker, the game engine and the tablet
share one source of truth; readings of ambiguous texts are rulings DASH-n in
``docs/RULINGS.md``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from referee.words import and_list


class Level(enum.Enum):
    EASY = "easy"
    ADVANCED = "advanced"


class GroupKind(enum.Enum):
    """What binds the cards of one group together."""

    PAIR = "pair"  # 2 cards, same number, any colours
    SET = "set"  # N cards, same number, any colours
    RUN = "run"  # N consecutive numbers, any colours
    SAME_COLOR = "same_color"  # N cards, one colour, any numbers
    COLOR_RUN = "color_run"  # N consecutive numbers, one colour
    COLOR_PAIR = "color_pair"  # 2 cards, same number AND same colour (DASH-4)

    @property
    def keys_on_color(self) -> bool:
        """True when the colour of a card matters to this kind of group."""
        return self in (GroupKind.SAME_COLOR, GroupKind.COLOR_RUN, GroupKind.COLOR_PAIR)

    @property
    def keys_on_number(self) -> bool:
        """True when the number of a card matters to this kind of group."""
        return self is not GroupKind.SAME_COLOR


@dataclass(frozen=True)
class Part:
    """One group a Dash asks for, e.g. a run of 3 or a set of 5."""

    kind: GroupKind
    size: int

    @property
    def label(self) -> str:
        """Family wording: "a run of 3", "a set of 5", "7 cards of the same color"."""
        n = self.size
        return {
            GroupKind.PAIR: "a pair",
            GroupKind.SET: f"a set of {n}",
            GroupKind.RUN: f"a run of {n}",
            GroupKind.SAME_COLOR: f"{n} cards of the same color",
            GroupKind.COLOR_RUN: f"a run of {n} in one color",
            GroupKind.COLOR_PAIR: "a pair of the same color",
        }[self.kind]


@dataclass(frozen=True)
class Dash:
    level: Level
    number: int
    text: str  # exactly as on the reference card
    parts: tuple[Part, ...]
    first_to: bool = False  # "First to …": the first lay-down wins the round (see the game)

    @property
    def size(self) -> int:
        """How many cards a lay-down of this Dash has (DASH-1: exactly this many)."""
        return sum(p.size for p in self.parts)

    @property
    def short(self) -> str:
        """ "Easy Dash 6"."""
        return f"{self.level.value.capitalize()} Dash {self.number}"

    @property
    def title(self) -> str:
        return f"{self.level.value.capitalize()} Dash {self.number}: {self.text}"

    def needs(self) -> str:
        """Family wording of the parts: "a run of 3 and a set of 3"."""
        labels = _merge_labels(self.parts)
        return and_list(labels)


def _merge_labels(parts: tuple[Part, ...]) -> list[str]:
    """Collapse repeated parts: (pair, pair, pair) -> ["3 pairs"]."""
    out: list[str] = []
    i = 0
    while i < len(parts):
        j = i
        while j < len(parts) and parts[j] == parts[i]:
            j += 1
        count, part = j - i, parts[i]
        if count == 1:
            out.append(part.label)
        else:
            n = part.size
            out.append(
                {
                    GroupKind.PAIR: f"{count} pairs",
                    GroupKind.SET: f"{count} sets of {n}",
                    GroupKind.RUN: f"{count} runs of {n}",
                    GroupKind.SAME_COLOR: f"{count} sets of {n} cards of one color",
                    GroupKind.COLOR_RUN: f"{count} runs of {n} in one color",
                    GroupKind.COLOR_PAIR: f"{count} pairs of the same color",
                }[part.kind]
            )
        i = j
    return out


def _p(kind: GroupKind, size: int, times: int = 1) -> tuple[Part, ...]:
    return (Part(kind, size),) * times


_PAIR, _SET, _RUN = GroupKind.PAIR, GroupKind.SET, GroupKind.RUN
_COLOR, _CRUN, _CPAIR = GroupKind.SAME_COLOR, GroupKind.COLOR_RUN, GroupKind.COLOR_PAIR

EASY: tuple[Dash, ...] = tuple(
    Dash(Level.EASY, i + 1, text, parts)
    for i, (text, parts) in enumerate(
        [
            ("3 pairs", _p(_PAIR, 2, 3)),
            ("2 sets of 4 same number", _p(_SET, 4, 2)),
            ("1 run of 7", _p(_RUN, 7)),
            ("7 cards of the same color", _p(_COLOR, 7)),
            ("3 sets of 3 same number", _p(_SET, 3, 3)),
            ("1 run of 3 + one set of 3", _p(_RUN, 3) + _p(_SET, 3)),
            ("4 pairs", _p(_PAIR, 2, 4)),
            ("1 run of 8", _p(_RUN, 8)),
            ("1 set of 5 + 1 set of 3", _p(_SET, 5) + _p(_SET, 3)),
            ("8 cards of the same color", _p(_COLOR, 8)),
            ("1 run of 9", _p(_RUN, 9)),
            ("4 sets of 3 same number", _p(_SET, 3, 4)),
        ]
    )
)

ADVANCED: tuple[Dash, ...] = tuple(
    Dash(Level.ADVANCED, i + 1, text, parts, first_to=text.startswith("First to"))
    for i, (text, parts) in enumerate(
        [
            ("5 pairs", _p(_PAIR, 2, 5)),
            ("Run of 5 same color", _p(_CRUN, 5)),
            ("Run of 10", _p(_RUN, 10)),
            ("8 cards of the same color", _p(_COLOR, 8)),
            ("Run of 6 same color", _p(_CRUN, 6)),
            ("2 runs of 5", _p(_RUN, 5, 2)),
            # DASH-3: a "set of 3 same color" is 3 cards of one colour, any numbers.
            ("First to 4 sets of 3 same color", _p(_COLOR, 3, 4)),
            ("Run of 11", _p(_RUN, 11)),
            # DASH-4: a "pair of same color" is two cards of one number AND one colour.
            ("4 pairs of same color", _p(_CPAIR, 2, 4)),
            ("1 run of 5 + 5 cards of the same color", _p(_RUN, 5) + _p(_COLOR, 5)),
            ("9 cards of the same color", _p(_COLOR, 9)),
            ("First to 3 sets of 3 same number", _p(_SET, 3, 3)),
        ]
    )
)

DASHES: dict[Level, tuple[Dash, ...]] = {Level.EASY: EASY, Level.ADVANCED: ADVANCED}


def parse_level(level: Level | str) -> Level:
    """``Level`` or its name ("easy", "Advanced"); ValueError names the bad text."""
    if isinstance(level, Level):
        return level
    if isinstance(level, str):
        try:
            return Level(level.strip().lower())
        except ValueError:
            pass
    raise ValueError(f"unknown Dash level {level!r}: use 'easy' or 'advanced'")


def get_dash(level: Level | str, number: int) -> Dash:
    """Dash ``number`` (1..12) of ``level``; ValueError when either is out of range."""
    lv = parse_level(level)
    if isinstance(number, bool) or not isinstance(number, int):
        raise ValueError(f"a Dash number must be a whole number 1..12, not {number!r}")
    if not 1 <= number <= 12:
        raise ValueError(f"there is no Dash {number}: Dashes are numbered 1 to 12")
    return DASHES[lv][number - 1]


def all_dashes() -> list[Dash]:
    """All 24 Dashes, Easy 1..12 then Advanced 1..12."""
    return [*EASY, *ADVANCED]
