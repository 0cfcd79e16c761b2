"""Fonts for card glyphs: matplotlib's bundled TrueType fonts and OpenCV's Hershey fonts.

Nothing is downloaded at render time: matplotlib (an Ultralytics dependency) ships DejaVu, STIX
and Computer Modern fonts, and round 8's extra typefaces come from pip font packages in the
``train`` extra. Some fonts are reserved for the held-out art style so that style is truly unseen.
"""

from __future__ import annotations

import functools
import importlib.util
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.render.switches import Switch


def matplotlib_font_dir() -> Path:
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        # ModuleNotFoundError: the CLI turns a missing `train` extra into an install hint
        raise ModuleNotFoundError("matplotlib is needed for its bundled fonts", name="matplotlib")
    return Path(next(iter(spec.submodule_search_locations))) / "mpl-data" / "fonts" / "ttf"


def package_font_dir(package: str) -> Path:
    """The ``files`` folder of a pip font package (``font-caladea`` → ``font_caladea``)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"the font package {package} is needed", name=package)
    return Path(next(iter(spec.submodule_search_locations))) / "files"


@dataclass(frozen=True)
class Font:
    """A font file name (matplotlib's, or ``package``'s), or ``hershey:<id>`` for an OpenCV
    stroke font."""

    name: str
    weight: int = 2  # stroke thickness for Hershey fonts
    package: str = ""  # a pip font package holding the file; "" = matplotlib's fonts

    @property
    def hershey(self) -> bool:
        return self.name.startswith("hershey:")

    @property
    def path(self) -> Path:
        folder = package_font_dir(self.package) if self.package else matplotlib_font_dir()
        return folder / self.name


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
# Round 8: more typefaces, from each pip font package tried that installs as a wheel (Roboto,
# an sdist, and Montserrat, not on the index, were left out): rounded (Fredoka One), hand-drawn
# condensed (Amatic SC), display (Intuitive), grotesque (Hanken Grotesk, Source Sans Pro) and
# serif (Caladea, Source Serif Pro), at several weights. Only renders inside
# ``more_typefaces()`` use them, so every earlier chunk of crops still renders as it did.
MORE_TRAIN_FONTS: tuple[Font, ...] = (
    Font("FredokaOne-Regular.ttf", package="font_fredoka_one"),
    Font("AmaticSC-Bold.ttf", package="font_amatic_sc"),
    Font("Intuitive.ttf", package="font_intuitive"),
    *(
        Font(f"HankenGrotesk-{w}.otf", package="font_hanken_grotesk")
        for w in ("Regular", "Bold", "Light", "SemiBoldItalic")
    ),
    *(
        Font(f"Caladea-{w}.ttf", package="font_caladea")
        for w in ("Regular", "Bold", "Italic", "BoldItalic")
    ),
    *(
        Font(f"SourceSansPro-{w}.ttf", package="font_source_sans_pro")
        for w in ("Regular", "Black", "Light", "It")
    ),
    *(
        Font(f"SourceSerifPro-{w}.ttf", package="font_source_serif_pro")
        for w in ("Regular", "Black", "Semibold", "It")
    ),
)
_more_typefaces = Switch("more_typefaces")


def more_typefaces() -> AbstractContextManager[None]:
    """Card faces rendered inside draw their glyphs from ``MORE_TRAIN_FONTS`` too."""
    return _more_typefaces.on()


def training_fonts() -> tuple[Font, ...]:
    """The fonts training faces draw from here: ``TRAIN_FONTS``, plus ``MORE_TRAIN_FONTS``
    inside ``more_typefaces()``."""
    return TRAIN_FONTS + MORE_TRAIN_FONTS if _more_typefaces.is_on() else TRAIN_FONTS


# Reserved for the held-out style: never seen in training.
HELDOUT_FONTS: tuple[Font, ...] = (
    Font("STIXGeneralBol.ttf"),
    Font("STIXGeneralBolIta.ttf"),
    Font("DejaVuSerif-BoldItalic.ttf"),
    Font("cmr10.ttf"),
    Font(f"hershey:{cv2.FONT_HERSHEY_COMPLEX}", 3),
)


@functools.lru_cache(maxsize=64)
def _truetype(font: Font, size: int):
    from PIL import ImageFont

    return ImageFont.truetype(str(font.path), size)


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

        pil_font = _truetype(font, 160)
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
