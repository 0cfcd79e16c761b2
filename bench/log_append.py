"""Event-log append cost: ``PRAGMA synchronous`` NORMAL against FULL (the log's setting).

In WAL mode NORMAL skips the fsync at each commit: a power cut (not a crash of the
process) can lose the last committed events. FULL syncs the WAL at every commit. A table
makes a few events a second, so what matters is the cost of one append; this prints it
for each mode on this machine's disk (an SD card on the Pi: run it there).

    .venv/bin/python bench/log_append.py [--events 300] [--dir DIR] [--json]

With ``--json`` the last output line is one JSON object: ``{mode: {"p50_ms", "p99_ms",
"per_s"}}``. A measurement, not a test: nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.eventlog import EventLog
from referee.events import Event
from referee.registry import register_game

MODES = ("NORMAL", "FULL")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))]


def bench_mode(folder: Path, mode: str, n_events: int) -> dict[str, float]:
    """Append ``n_events`` to a fresh log whose connection runs ``synchronous=mode``."""
    log = EventLog(folder / f"bench-{mode.lower()}.db")
    log._conn().execute(f"PRAGMA synchronous={mode}")  # the bench's one knob
    game_id = log.create_game("tally", ["Ann", "Bob"])
    times_ms = []
    for i in range(n_events):
        event = Event("add", seat=i % 2, payload={"n": 1}, t_ns=i)
        start = time.perf_counter()
        log.append(game_id, event)
        times_ms.append((time.perf_counter() - start) * 1e3)
    log.close()
    return {
        "p50_ms": round(statistics.median(times_ms), 3),
        "p99_ms": round(percentile(times_ms, 99), 3),
        "per_s": round(n_events / (sum(times_ms) / 1e3)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=300)
    parser.add_argument("--dir", type=Path, help="where the logs go (default: a temp folder)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    register_game("tally", "tests.tally_game")
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        results = {mode: bench_mode(Path(tmp), mode, args.events) for mode in MODES}
    print(f"{'synchronous':<12} {'p50 ms':>8} {'p99 ms':>8} {'appends/s':>10}")
    for mode, r in results.items():
        print(f"{mode:<12} {r['p50_ms']:>8.3f} {r['p99_ms']:>8.3f} {r['per_s']:>10}")
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
