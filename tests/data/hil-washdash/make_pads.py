"""Record tests/data/hil-washdash/pads.jsonl: two Wash Dash "done" buttons pressed on pads.

Run from the repository root: ``.venv/bin/python tests/data/hil-washdash/make_pads.py``.
The edges go through the real software path (NsMockFactory pins → gpiozero Buttons →
debounce → PadEvents) while a PadRecorder writes them. Times are on the camera's clock of
tests/test_hil_wash_dash.py (its rendered frames are 100 ms apart from 0.1 s): Ana (seat 0)
presses done at 3.05 s with a bouncy button, Bea (seat 1) at 3.25 s.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from hardware.config import parse_hardware  # noqa: E402
from hardware.mockpins import NsMockFactory  # noqa: E402
from hardware.padlog import PadRecorder  # noqa: E402
from hardware.table import Table  # noqa: E402

MS = 1_000_000
CONFIG = parse_hardware(
    {"mode": "virtual", "debounce_ms": 5, "seats": {"0": {"call": 17}, "1": {"call": 10}}}
)
PRESSES = ((0, 3_050 * MS, 3), (1, 3_250 * MS, 1))  # seat, first edge, contact bounces


def press(table: Table, seat: int, t: int, bounces: int) -> None:
    """A press with ``bounces`` contact bounces, held 80 ms, and a bouncy release."""
    table.drive(seat, "call", True, t)
    for k in range(bounces):
        table.drive(seat, "call", False, t + 300_000 + 700_000 * k)
        table.drive(seat, "call", True, t + 600_000 + 700_000 * k)
    release = t + 80 * MS
    table.drive(seat, "call", False, release)
    table.drive(seat, "call", True, release + 400_000)
    table.drive(seat, "call", False, release + 900_000)


def main(out: Path) -> None:
    with Table(CONFIG, NsMockFactory()) as table, PadRecorder(table, out):
        for seat, t, bounces in PRESSES:
            press(table, seat, t, bounces)


if __name__ == "__main__":
    main(Path(__file__).with_name("pads.jsonl"))
