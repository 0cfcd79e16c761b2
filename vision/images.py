"""Reading an image file, the one way every vision command does it.

Why: ``cv2.imread``/``cv2.imdecode`` return None for most bad files but *raise* ``cv2.error``
for some (a header claiming more than OpenCV's 2^30 pixels), and print warnings for others;
each command then either tracebacks or prints OpenCV's noise. Here a bad file is None and a
reason, never an exception.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

TOO_LARGE = "too large or malformed (OpenCV refuses its header)"


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
    return image, None


def imread(path: str | Path) -> np.ndarray | None:
    """``cv2.imread``'s contract (the BGR image, or None), without its exceptions and
    warnings: for callers that say "cannot read" in their own words."""
    return read_image(path)[0]
