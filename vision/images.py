"""Reading an image file, the one way every vision command does it.

Why: ``cv2.imread``/``cv2.imdecode`` return None for most bad files but *raise* ``cv2.error``
for some (a header claiming more than OpenCV's 2^30 pixels), and print warnings for others;
each command then either tracebacks or prints OpenCV's noise. Here a bad file is None and a
reason, never an exception.

Below OpenCV's limit a small file can still hold a huge image (a 1 MB PNG of 20 000 × 20 000
black pixels took 2.7 GB and 52 s to read: a Pi runs out of memory), so an image over
``MAX_PIXELS`` is refused too, from its header before decoding where the format is one
``header_size`` knows (the compressed ones), else once decoded.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

# 100 million pixels: 300 MB decoded, far above any table camera's frame (a 12 Mpx photo is 36
# MB) yet within a Pi's memory; OpenCV's own limit, 2^30, is 3 GB decoded
MAX_PIXELS = 100_000_000
TOO_LARGE = f"too large (over {MAX_PIXELS // 1_000_000} million pixels) or malformed"


def _png(d: memoryview) -> tuple[int, int]:
    return struct.unpack_from(">II", d, 16)


def _gif(d: memoryview) -> tuple[int, int]:
    return struct.unpack_from("<HH", d, 6)


def _bmp(d: memoryview) -> tuple[int, int]:
    if struct.unpack_from("<I", d, 14)[0] == 12:  # OS/2's core header: 16-bit sizes
        return struct.unpack_from("<HH", d, 18)
    w, h = struct.unpack_from("<ii", d, 18)
    return abs(w), abs(h)  # a negative height: rows stored top-down


def _webp(d: memoryview) -> tuple[int, int]:
    kind = bytes(d[12:16])
    if kind == b"VP8X":  # extended: the canvas, 24-bit sizes minus one
        return 1 + int.from_bytes(d[24:27], "little"), 1 + int.from_bytes(d[27:30], "little")
    if kind == b"VP8L":  # lossless: 14-bit sizes minus one
        bits = struct.unpack_from("<I", d, 21)[0]
        return 1 + (bits & 0x3FFF), 1 + (bits >> 14 & 0x3FFF)
    w, h = struct.unpack_from("<HH", d, 26)  # lossy
    return w & 0x3FFF, h & 0x3FFF


def _jpeg(d: memoryview) -> tuple[int, int]:
    """The first frame header's size (SOF0–SOF15, not DHT, JPG, DAC), walking the segments."""
    i = 2
    while i + 9 < len(d):
        if d[i] != 0xFF:
            raise ValueError("not a marker")
        marker = d[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
        elif marker == 0x01 or 0xD0 <= marker <= 0xD8:  # no length field
            i += 2
        elif 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack_from(">HH", d, i + 5)
            return w, h
        elif marker == 0xDA:  # image data before any frame header
            break
        else:
            i += 2 + struct.unpack_from(">H", d, i + 2)[0]
    raise ValueError("no frame header")


def _tiff(d: memoryview) -> tuple[int, int]:
    """The first directory's ImageWidth (256) and ImageLength (257) tags."""
    e = "<" if bytes(d[:2]) == b"II" else ">"
    ifd = struct.unpack_from(e + "I", d, 4)[0]
    sizes = {}
    for at in range(ifd + 2, ifd + 2 + 12 * struct.unpack_from(e + "H", d, ifd)[0], 12):
        tag, kind = struct.unpack_from(e + "HH", d, at)
        if tag in (256, 257):  # a SHORT (type 3) or a LONG, at the start of the value field
            sizes[tag] = struct.unpack_from(e + ("H" if kind == 3 else "I"), d, at + 8)[0]
    return sizes[256], sizes[257]


_HEADERS = (
    (b"\x89PNG\r\n\x1a\n", _png),
    (b"\xff\xd8", _jpeg),
    (b"GIF8", _gif),
    (b"BM", _bmp),
    (b"II*\x00", _tiff),
    (b"MM\x00*", _tiff),
)


def header_size(data: memoryview) -> tuple[int, int] | None:
    """(width, height) from a PNG, JPEG, WebP, GIF, BMP or TIFF header, without decoding; None
    for another format or a header too broken to say (OpenCV then judges the file)."""
    head = bytes(data[:16])
    parse = next((f for magic, f in _HEADERS if head.startswith(magic)), None)
    if parse is None and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        parse = _webp
    if parse is None:
        return None
    try:
        return parse(data)
    except (struct.error, ValueError, KeyError, IndexError):
        return None


def read_image(path: str | Path) -> tuple[np.ndarray | None, str | None]:
    """(BGR image, None), or (None, why it could not be read). Reads the bytes itself so that
    OpenCV prints no warnings for bad files, and so a missing file, a folder, an empty file
    and bytes that are no image each get their own message."""
    import cv2

    try:
        data = np.fromfile(str(path), np.uint8)
    except FileNotFoundError:
        return None, "no such file"
    except IsADirectoryError:
        return None, "is a folder, not an image"
    except OSError as exc:
        return None, f"cannot open: {exc.strerror or exc}"
    if not data.size:
        return None, "empty file"
    size = header_size(memoryview(data))  # the whole file: a JPEG's metadata comes first
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        return None, TOO_LARGE
    log = cv2.utils.logging
    before = log.getLogLevel()
    log.setLogLevel(log.LOG_LEVEL_SILENT)  # a broken .hdr logs its decoder's error text
    try:
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    except cv2.error:  # e.g. a header claiming more pixels than CV_IO_MAX_IMAGE_PIXELS
        return None, TOO_LARGE
    finally:
        log.setLogLevel(before)
    if image is None:
        return None, "not an image OpenCV can decode"
    if image.shape[0] * image.shape[1] > MAX_PIXELS:  # a format header_size does not know
        return None, TOO_LARGE
    return image, None


def imread(path: str | Path) -> np.ndarray | None:
    """``cv2.imread``'s contract (the BGR image, or None), without its exceptions and
    warnings: for callers that say "cannot read" in their own words."""
    return read_image(path)[0]
