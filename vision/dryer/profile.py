"""What Wash Dash parts look like, as data: the colours and rough proportions the renderer
draws and the reader expects (relative to one dryer's width W and height H).

Pieces come in one colour each (ruling WD-1: blue pants, red dress, yellow shirt) and the
pins in the same three colours, so a colour names a piece *and* a pin; shape and position
tell them apart: a pin is narrow and sticks up above the bar it clips to, a piece is wide
and hangs below it.
"""

from __future__ import annotations

from referee.washdash.pieces import PIECE_COLOR, Piece, PinColor

COLORS: tuple[str, ...] = ("red", "yellow", "blue")
PIECE_OF_COLOR: dict[str, Piece] = {c.value: p for p, c in PIECE_COLOR.items()}
PIN_OF_COLOR: dict[str, PinColor] = {c.value: c for c in PinColor}

BAR_ROWS = (0.2, 0.5, 0.8)  # bar heights as a share of the dryer's height (bar 1 on top)
PIECE_WIDTH = (0.22, 0.32)  # of W
PIECE_HEIGHT = (0.45, 0.62)  # of the spacing between bars: clear of the next bar's pins
PIN_WIDTH = (0.05, 0.07)  # of W
PIN_HEIGHT = (0.12, 0.16)  # of H
PIN_ABOVE = (0.42, 0.6)  # share of a pin's height above the top edge of what it clips

# Hue windows (OpenCV hue, 0..180) for the reader's colour classes, after white balance.
# Without an empty-dryer reference the table's colours are in the picture too: the windows
# hug the printed inks (red -10..8°, yellow 44..56°, blue 200..228°) so that a pink, orange
# or purple cloth is not read as a piece.
HUE = {"red": ((0, 10), (170, 180)), "yellow": ((18, 36),), "blue": ((94, 122),)}
# For what changed since the empty dryer (no table in it): the nearest of the three hues.
HUE_CHANGED = {"red": ((0, 13), (160, 180)), "yellow": ((14, 42),), "blue": ((88, 140),)}
MIN_SATURATION = 85  # 0..255
MIN_SATURATION_ALONE = 140  # without a reference: a cloth is rarely as vivid as the inks
MIN_SATURATION_CHANGED = 40  # for pixels that changed since the empty dryer (not the table)
MIN_VALUE = 40  # 0..255
