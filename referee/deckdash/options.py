"""Deck Dash options: the four variations and the configurable rulings (DD-n).

``Settings`` is the validated, typed form the engine reads; the ``OptionSpec`` list is
what the tablet shows. Defaults play the rules as written (see docs/RULINGS.md).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.deckdash.dashes import Level
from referee.game import GameError, OptionSpec, resolve_options


class WinnerRule(enum.Enum):
    DASHES = "dashes"  # most Dashes won, then fewest points (DD-1, default)
    POINTS = "points"  # fewest points only


class FirstToScoring(enum.Enum):
    FIXED = "fixed"  # the layer scores 3, everyone else 12 (DD-2, default)
    HAND = "hand"  # 1 point per card in hand, as in every other round


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("level", "easy", "Which Dash list to play", ("easy", "advanced")),
    OptionSpec(
        "dashes",
        list(range(1, 13)),
        "Variation 3: the Dashes to play, in playing order (numbers 1..12)",
        ruling="DD-13",
    ),
    OptionSpec(
        "dash_count",
        12,
        "Variation 1: how many Dashes the game lasts (default: every Dash listed)",
        ruling="DD-13",
    ),
    OptionSpec(
        "points", True, "Variation 2: keep points (false: only Dashes won count)", ruling="DD-14"
    ),
    OptionSpec(
        "end_on_empty_draw",
        False,
        "Variation 4: the round ends as soon as the draw pile runs out",
        ruling="DD-15",
    ),
    OptionSpec(
        "winner",
        "dashes",
        "Who wins the game: most Dashes then fewest points, or fewest points",
        tuple(r.value for r in WinnerRule),
        ruling="DD-1",
    ),
    OptionSpec(
        "first_to_scoring",
        "fixed",
        "Scoring of a 'First to …' Dash: fixed 3 / 12, or cards in hand",
        tuple(s.value for s in FirstToScoring),
        ruling="DD-2",
    ),
    OptionSpec(
        "wild_from_discard",
        False,
        "May a discarded Wild be drawn or stolen from the discard pile",
        ruling="DD-3",
    ),
)


@dataclass(frozen=True)
class Settings:
    level: Level
    dashes: tuple[int, ...]  # the Dashes of this game, in order (variations 1 and 3 applied)
    points: bool
    end_on_empty_draw: bool
    winner: WinnerRule
    first_to_scoring: FirstToScoring
    wild_from_discard: bool

    @staticmethod
    def from_options(given: Mapping[str, Any] | None) -> Settings:
        opts = resolve_options(OPTIONS, given)
        dashes = opts["dashes"]
        if not dashes or not all(
            isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 12 for n in dashes
        ):
            raise GameError("option 'dashes' must list Dash numbers from 1 to 12")
        # Variation 3 alone ("these Dashes") plays every Dash listed (DD-13).
        count = opts["dash_count"] if "dash_count" in (given or {}) else len(dashes)
        if not 1 <= count <= len(dashes):
            raise GameError(
                f"option 'dash_count' must be between 1 and {len(dashes)} (the Dashes listed)"
            )
        return Settings(
            level=Level(opts["level"]),
            dashes=tuple(dashes[:count]),
            points=opts["points"],
            end_on_empty_draw=opts["end_on_empty_draw"],
            winner=WinnerRule(opts["winner"]),
            first_to_scoring=FirstToScoring(opts["first_to_scoring"]),
            wild_from_discard=opts["wild_from_discard"],
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level.value,
            "dashes": list(self.dashes),
            "points": self.points,
            "end_on_empty_draw": self.end_on_empty_draw,
            "winner": self.winner.value,
            "first_to_scoring": self.first_to_scoring.value,
            "wild_from_discard": self.wild_from_discard,
        }
