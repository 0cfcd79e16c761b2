"""Vision I's card detections → detector-agnostic ``Sighting``s for the table watcher.

Vision I answers, per card, a colour, a symbol value, a confidence and a pixel box (the
``identify`` JSON contract: ``{"color": "red"|None, "value": "7", "confidence": 0.97,
"box": [x1, y1, x2, y2]}``). The watcher wants labels in the *game's* notation and boxes
normalised to the frame, so a calibration survives a change of camera resolution.

Occlusion (ruling TBL-1). Vision I does not detect hands. A hand over a pile shows up in
two ways we can see without a hand class, and both make a zone *occluded* (its pending
reading is dropped and nothing is reported until it is clear again):

* the classifier calls a detected box ``other`` (not a card) or cannot read it at all
  (confidence below ``floor``) — something card-sized but not a card lies over the zone;
* motion inside the zone (see ``TableWatcher`` ``zone_motion``): a hand moving, a card
  being slid, a blurred frame.

Readings between ``floor`` and the watcher's ``min_confidence`` are kept as low-confidence
readings: when they settle they become a *prompt* for the tablet, never an event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vision.table.labels import card_token
from vision.table.watcher import Sighting

NOT_A_CARD = "other"
UNREAD = "?"  # a card whose identity has no token in this game (e.g. Hit the Deck HIT#)


@dataclass(frozen=True)
class CardDetection:
    """One card as Vision I reports it (the ``identify`` JSON fields)."""

    color: str | None
    value: str
    confidence: float
    box: tuple[float, float, float, float]  # pixels
    angle: float | None = None  # the long side, degrees in [0, 180) (not in identify's JSON)

    @staticmethod
    def of(item: Any) -> CardDetection:
        """From an ``identify`` JSON dict or any object with those attributes."""
        get: Callable[[str], Any]
        if isinstance(item, Mapping):
            get = item.get
        else:

            def get(name: str) -> Any:
                return getattr(item, name, None)

        box = get("box")
        if box is None:
            raise ValueError("a card detection needs a box [x1, y1, x2, y2]")
        x1, y1, x2, y2 = (float(v) for v in box)
        angle = get("angle")
        return CardDetection(
            get("color"),
            str(get("value")),
            float(get("confidence")),
            (x1, y1, x2, y2),
            None if angle is None else float(angle),
        )


def to_sightings(
    detections: Iterable[Any],
    width: int,
    height: int,
    game: str,
    *,
    floor: float = 0.25,
) -> list[Sighting]:
    """Sightings for one frame of ``width``×``height`` pixels (see the module docstring)."""
    out = []
    for item in detections:
        d = CardDetection.of(item)
        x1, y1, x2, y2 = d.box
        box = (
            float(np.clip(x1 / width, 0, 1)),
            float(np.clip(y1 / height, 0, 1)),
            float(np.clip(x2 / width, 0, 1)),
            float(np.clip(y2 / height, 0, 1)),
        )
        if d.value == NOT_A_CARD or d.confidence < floor:
            out.append(Sighting(NOT_A_CARD, d.confidence, box, occluder=True))
            continue
        token = card_token(game, d.color, d.value)
        out.append(Sighting(token or UNREAD, d.confidence, box, angle=d.angle))
    return out


def detector_from(
    identify: Callable[[np.ndarray], Sequence[Any]], game: str, *, floor: float = 0.25
) -> Callable[[np.ndarray], list[Sighting]]:
    """Wrap any ``image -> card detections`` function (Vision I's runtime) as a watcher
    ``Detector``."""

    def detect(image: np.ndarray) -> list[Sighting]:
        h, w = image.shape[:2]
        return to_sightings(identify(image), w, h, game, floor=floor)

    return detect


def reader_detector(
    reader: Callable[[np.ndarray], Any], game: str, *, floor: float = 0.25
) -> Callable[[np.ndarray], list[Sighting]]:
    """A Vision I ``CardReader`` (frame → ``Detections``) as a watcher ``Detector``, through
    the same ``identify`` JSON form the command line prints, with each box's angle added (a
    twin laid on its twin at another angle is another card: TBL-6)."""

    def identify(image: np.ndarray) -> list[dict]:
        dets = reader(image)
        return [
            {**card, "angle": round(float(a), 1)}
            for card, a in zip(dets.cards(), dets.angles, strict=True)
        ]

    return detector_from(identify, game, floor=floor)
