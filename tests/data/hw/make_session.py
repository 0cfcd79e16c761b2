"""Record tests/data/hw/session.jsonl: a short scripted table session on virtual pads.

Run from the repository root: ``.venv/bin/python tests/data/hw/make_session.py``.
The edges go through the real software path (NsMockFactory pins → gpiozero Buttons →
debounce → PadEvents) while a PadRecorder writes them; the decisions written are the
ones the live table reached. tests/test_hw_replay.py replays the file and must reach
the same decisions.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from hardware.config import parse_hardware  # noqa: E402
from hardware.mockpins import NsMockFactory  # noqa: E402
from hardware.padevents import PadEvent  # noqa: E402
from hardware.padlog import PadRecorder, RaceMark, decide  # noqa: E402
from hardware.table import Table  # noqa: E402
from referee.races import RaceRules  # noqa: E402

MS = 1_000_000
CONFIG = parse_hardware(
    {
        "mode": "virtual",
        "buzzer": 12,
        "debounce_ms": 5,
        "seats": {
            "0": {"pad": 4, "call": 17, "led": 27},
            "1": {"pad": 22, "call": 10, "led": 9},
            "2": {"pad": 11, "call": 5, "led": 6},
        },
    }
)


def press(table: Table, seat: int, device: str, t: int, bounces: int = 0) -> None:
    """A press starting at ``t`` with ``bounces`` contact bounces, held 80 ms, and a
    bouncy release."""
    table.drive(seat, device, True, t)
    for k in range(bounces):
        table.drive(seat, device, False, t + 300_000 + 700_000 * k)
        table.drive(seat, device, True, t + 600_000 + 700_000 * k)
    release = t + 80 * MS
    table.drive(seat, device, False, release)
    table.drive(seat, device, True, release + 400_000)  # release bounce
    table.drive(seat, device, False, release + 900_000)


def main(out: Path) -> None:
    base = 1_000_000 * MS  # a monotonic time ~17 minutes after boot
    events: list[PadEvent] = []
    marks = []
    with Table(CONFIG, NsMockFactory()) as table, PadRecorder(table, out) as rec:
        table.bus.subscribe(events.append)
        # 0. A slap before any card: a fake-out by seat 2 (HW-5).
        press(table, 2, "pad", base + 200 * MS, bounces=1)
        # 1. Hit the Deck With A Hand: seat 1 is last by 170 ms (bouncy pads).
        t = base + 1_000 * MS
        marks.append(RaceMark("last_slapper", t, (0, 1, 2)))
        press(table, 0, "pad", t + 180 * MS, bounces=4)
        press(table, 2, "pad", t + 240 * MS, bounces=2)
        press(table, 1, "pad", t + 410 * MS, bounces=5)
        # 2. A slap after race 1's window: late, ignored unless a turn action came between,
        #    which a pad log cannot show (HTD-17): no fake-out.
        press(table, 2, "pad", base + 6_000 * MS, bounces=3)
        # 3. Seat 1's pad never fires: seat 1 counts as last.
        t = base + 9_000 * MS
        marks.append(RaceMark("last_slapper", t, (0, 1, 2)))
        press(table, 0, "pad", t + 150 * MS, bounces=1)
        press(table, 2, "pad", t + 330 * MS)
        # 4. Two slaps on the very same microsecond: a tie for last.
        t = base + 14_000 * MS
        marks.append(RaceMark("last_slapper", t, (0, 1, 2)))
        press(table, 2, "pad", t + 100 * MS, bounces=2)
        press(table, 0, "pad", t + 300 * MS, bounces=3)
        press(table, 1, "pad", t + 300 * MS, bounces=1)
        # 5. Wash Dash: first "done" wins; seat 1 by 300 ms; seat 0 pressed before "go".
        t = base + 20_000 * MS
        marks.append(RaceMark("first_finisher", t, (0, 1, 2), RaceRules(window_ns=60_000 * MS)))
        press(table, 0, "call", t - 20 * MS)
        press(table, 2, "call", t + 8_200 * MS, bounces=2)
        press(table, 1, "call", t + 7_900 * MS, bounces=4)
        for mark in marks:
            rec.mark(mark)
        for decision in decide(marks, events):
            rec.decision(decision)
            print(decision.reason)


if __name__ == "__main__":
    main(Path(__file__).with_name("session.jsonl"))
