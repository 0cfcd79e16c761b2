"""Fonts for card glyphs: matplotlib's bundled TrueType fonts and OpenCV's Hershey fonts.

Nothing is downloaded: matplotlib (an Ultralytics dependency) ships DejaVu, STIX and Computer
Modern fonts. Some fonts are reserved for the held-out art style so that style is truly unseen.
"""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np


def matplotlib_font_dir() -> Path:
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("matplotlib is needed for its bundled fonts (pip install matplotlib)")
    return Path(next(iter(spec.submodule_search_locations))) / "mpl-data" / "fonts" / "ttf"


@dataclass(frozen=True)
class Font:
    """A TrueType file name, or ``hershey:<id>`` for an OpenCV stroke font."""

    name: str
    weight: int = 2  # stroke thickness for Hershey fonts

    @property
    def hershey(self) -> bool:
        return self.name.startswith("hershey:")


TRAIN_FONTS: tuple[Font, ...] = (
    Font("DejaVuSans.ttf"),
    Font("DejaVuSans-Bold.ttf"),
    Font("DejaVuSans-Oblique.ttf"),
    Font("DejaVuSans-BoldOblique.ttf"),
    Font("DejaVuSansMono.ttf"),
    Font("DejaVuSansMono-Bold.ttf"),
    Font("DejaVuSerif.ttf"),
    Font("DejaVuSerif-Bold.ttf"),
    Font("DejaVuSerif-Italic.ttf"),
    Font("cmss10.ttf"),
    Font("cmb10.ttf"),
    Font("cmtt10.ttf"),
    Font(f"hershey:{cv2.FONT_HERSHEY_SIMPLEX}", 3),
    Font(f"hershey:{cv2.FONT_HERSHEY_DUPLEX}", 3),
    Font(f"hershey:{cv2.FONT_HERSHEY_TRIPLEX}", 2),
    Font(f"hershey:{cv2.FONT_HERSHEY_PLAIN}", 3),
    # second training round: more shapes of the same digits (stroke weight and width vary
    # per card too, see faces.glyph; OpenCV's Hershey faces ignore weight and italics here)
    Font("DejaVuSansMono-Oblique.ttf"),
    Font("DejaVuSansMono-BoldOblique.ttf"),
    Font("cmti10.ttf"),
)
# Reserved for the held-out style: never seen in training.
HELDOUT_FONTS: tuple[Font, ...] = (
    Font("STIXGeneralBol.ttf"),
    Font("STIXGeneralBolIta.ttf"),
    Font("DejaVuSerif-BoldItalic.ttf"),
    Font("cmr10.ttf"),
    Font(f"hershey:{cv2.FONT_HERSHEY_COMPLEX}", 3),
)


@functools.lru_cache(maxsize=64)
def _truetype(name: str, size: int):
    from PIL import ImageFont

    return ImageFont.truetype(str(matplotlib_font_dir() / name), size)


@functools.lru_cache(maxsize=4096)
def _text_mask_cached(text: str, font: Font, height: int) -> np.ndarray:
    if font.hershey:
        face = int(font.name.split(":", 1)[1])
        scale = 4.0
        (w, h), base = cv2.getTextSize(text, face, scale, font.weight * 4)
        canvas = np.zeros((h + base + 40, w + 40), np.uint8)
        cv2.putText(canvas, text, (20, h + 20), face, scale, 255, font.weight * 4, cv2.LINE_AA)
    else:
        from PIL import Image, ImageDraw

        pil_font = _truetype(font.name, 160)
        left, top, right, bottom = pil_font.getbbox(text)
        img = Image.new("L", (right - left + 20, bottom - top + 20), 0)
        ImageDraw.Draw(img).text((10 - left, 10 - top), text, font=pil_font, fill=255)
        canvas = np.asarray(img)
    ys, xs = np.nonzero(canvas > 20)
    if len(ys) == 0:
        return np.zeros((max(height, 1), max(height // 2, 1)), np.float32)
    crop = canvas[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    scale = height / crop.shape[0]
    width = max(1, round(crop.shape[1] * scale))
    out = cv2.resize(crop, (width, max(1, height)), interpolation=cv2.INTER_AREA)
    return out.astype(np.float32) / 255.0


def text_mask(text: str, font: Font, height: int) -> np.ndarray:
    """A float mask (0..1) of ``text`` tightly cropped, ``height`` pixels tall."""
    return _text_mask_cached(text, font, max(2, int(height)))
