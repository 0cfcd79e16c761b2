"""One typed container for what the camera saw in a frame (in the spirit of Roboflow's
``supervision.Detections``): parallel arrays, boolean/index selection, JSON output."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np


def obb_to_xyxy(obb: np.ndarray) -> np.ndarray:
    """Axis-aligned bounds (N×4) of rotated boxes (N×5: cx, cy, w, h, theta radians)."""
    if len(obb) == 0:
        return np.zeros((0, 4), np.float32)
    cx, cy, w, h, t = (obb[:, i] for i in range(5))
    c, s = np.abs(np.cos(t)), np.abs(np.sin(t))
    hw, hh = (w * c + h * s) / 2, (w * s + h * c) / 2
    return np.stack([cx - hw, cy - hh, cx + hw, cy + hh], 1).astype(np.float32)


@dataclass(frozen=True)
class Detections:
    """N detected objects. ``obb`` rows are (cx, cy, w, h, theta radians) in frame pixels.

    ``color``/``value`` hold the card reading (colour None for colourless cards) and
    ``confidence`` the combined confidence of finding and reading it.
    """

    obb: np.ndarray  # N×5 float32
    confidence: np.ndarray  # N float32
    class_id: np.ndarray  # N int (detector class)
    color: np.ndarray = field(default_factory=lambda: np.empty(0, object))  # N object
    value: np.ndarray = field(default_factory=lambda: np.empty(0, object))  # N object
    data: dict[str, np.ndarray] = field(default_factory=dict)  # extra per-object arrays

    def __post_init__(self) -> None:
        n = len(self.obb)
        if len(self.color) != n:
            object.__setattr__(self, "color", np.array([None] * n, dtype=object))
        if len(self.value) != n:
            object.__setattr__(self, "value", np.array([""] * n, dtype=object))
        for name in ("confidence", "class_id"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name} has {len(getattr(self, name))} rows, obb has {n}")

    @staticmethod
    def empty() -> Detections:
        return Detections(
            np.zeros((0, 5), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64)
        )

    def __len__(self) -> int:
        return len(self.obb)

    @property
    def xyxy(self) -> np.ndarray:
        return obb_to_xyxy(self.obb)

    @property
    def angles(self) -> np.ndarray:
        """Each box's long side as an angle in degrees, 0 ≤ a < 180 in image coordinates:
        the same card turned on the table turns it (TBL-6), whichever side the box calls w."""
        if len(self.obb) == 0:
            return np.zeros(0, np.float32)
        w, h, t = self.obb[:, 2], self.obb[:, 3], np.degrees(self.obb[:, 4])
        return np.mod(t + np.where(h > w, 90.0, 0.0), 180.0).astype(np.float32)

    def __getitem__(self, index: int | slice | np.ndarray | list) -> Detections:
        if isinstance(index, int):
            index = [index]
        return Detections(
            obb=self.obb[index],
            confidence=self.confidence[index],
            class_id=self.class_id[index],
            color=self.color[index],
            value=self.value[index],
            data={k: v[index] for k, v in self.data.items()},
        )

    def __iter__(self) -> Iterator[Detections]:
        for i in range(len(self)):
            yield self[i]

    def cards(self, within: tuple[int, int] | None = None) -> list[dict]:
        """The ``identify`` JSON form of each card. ``within`` (the image's width, height)
        clips each box to the image: a card cut by the image's edge, or a box a shrunk pass
        kept a little past it (``zoom.within_frame``), reached outside it; the table camera
        reads the boxes as they are (no ``within``)."""
        boxes = self.xyxy
        if within is not None:
            boxes = np.clip(boxes, 0, np.array([*within, *within], np.float32))
        return [
            {
                "color": self.color[i],
                "value": self.value[i],
                "confidence": round(float(self.confidence[i]), 3),
                "box": [round(float(v), 1) for v in box],
            }
            for i, box in enumerate(boxes)
        ]
