"""The time line a server logs on: CLOCK_MONOTONIC plus this boot's offset (HW-10).

Pads, camera frames and tablet taps are stamped on the kernel's monotonic clock, so races
compare them directly (docs/HARDWARE.md, "Clocks"). That clock starts again when the Pi
reboots, and a game resumed from the log would then see a slap stamped before the race it
answers. So everything the server stamps passes through one ``LogClock``: the monotonic
time plus an offset the event log keeps per boot (``EventLog.boot_offset``), zero until
a reboot happens mid-game.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from referee.eventlog import EventLog

BOOT_ID_FILE = Path("/proc/sys/kernel/random/boot_id")


def read_boot_id(path: Path = BOOT_ID_FILE) -> str | None:
    """The kernel's id of this boot (Linux), or None where there is none."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text or None


@dataclass(frozen=True)
class LogClock:
    """Converts this boot's monotonic nanoseconds to the log's."""

    offset_ns: int = 0
    boot_id: str | None = None
    monotonic_ns: Callable[[], int] = time.monotonic_ns

    def now_ns(self) -> int:
        return self.monotonic_ns() + self.offset_ns

    def from_monotonic(self, t_ns: int) -> int:
        """A time stamped at its source (a pad's edge, a frame's exposure) on the log's line."""
        return t_ns + self.offset_ns

    @classmethod
    def for_log(
        cls,
        log: EventLog,
        boot_id: str | None = None,
        monotonic_ns: Callable[[], int] = time.monotonic_ns,
    ) -> LogClock:
        """This boot's clock for ``log`` (the boot id read from the kernel when not given)."""
        boot_id = boot_id if boot_id is not None else read_boot_id()
        return cls(log.boot_offset(boot_id, monotonic_ns()), boot_id, monotonic_ns)
