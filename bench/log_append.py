"""Event-log append cost: ``PRAGMA synchronous`` NORMAL against FULL (the log's setting).

In WAL mode NORMAL skips the fsync at each commit: a power cut (not a crash of the
process) can lose the last committed events. FULL syncs the WAL at every commit. A table
makes a few events a second, so what matters is the cost of one append; this prints it
for each mode, and FULL's cost against NORMAL's (the baseline), on the filesystem that holds
``--dir`` (default: the temp folder), whose type it prints: on a RAM disk (tmpfs) an fsync
does nothing and the two cost the same, so it warns. Run it on the disk the log lives on (an
SD card on the Pi: run it there).

    .venv/bin/python bench/log_append.py [--events 300] [--dir DIR] [--json]

With ``--json`` the last output line is one JSON object: ``{mode: {"p50_ms", "p99_ms",
"per_s"}, "filesystem": type, "full_over_normal_p50": ratio}``. A measurement, not a test:
nothing here passes or fails (the docs state no goal for it).
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

from referee.cli_args import positive_int
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


def filesystem(folder: Path, mounts: Path = Path("/proc/mounts")) -> str:
    """The type of the filesystem holding ``folder``: the mount over the longest part of its
    path (the last one listed, when two share it); "unknown" where there is no mount table."""
    path = folder.resolve()
    best, kind = "", "unknown"
    try:
        table = mounts.read_text().splitlines()
    except OSError:
        return kind
    for line in table:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = Path(fields[1].replace("\\040", " "))  # a space is written as \040
        if (point == path or point in path.parents) and len(str(point)) >= len(best):
            best, kind = str(point), fields[2]
    return kind


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=positive_int, default=300)
    parser.add_argument("--dir", type=Path, help="where the logs go (default: a temp folder)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.dir is not None and not args.dir.is_dir():  # the temp folder goes inside it
        parser.error(f"--dir {args.dir}: no such folder")
    register_game("tally", "tests.tally_game")
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        kind = filesystem(Path(tmp))
        results = {mode: bench_mode(Path(tmp), mode, args.events) for mode in MODES}
    print(f"measured in {Path(tmp).parent} (filesystem: {kind})")
    if kind == "tmpfs":
        print(
            "warning: tmpfs is in memory, an fsync there does nothing: FULL and NORMAL cost "
            "the same here; pass --dir on the disk the log lives on"
        )
    print(f"{'synchronous':<12} {'p50 ms':>8} {'p99 ms':>8} {'appends/s':>10}")
    for mode, r in results.items():
        print(f"{mode:<12} {r['p50_ms']:>8.3f} {r['p99_ms']:>8.3f} {r['per_s']:>10}")
    full, normal = results["FULL"], results["NORMAL"]
    ratio = full["p50_ms"] / normal["p50_ms"] if normal["p50_ms"] else float("nan")
    print(f"FULL / NORMAL: p50 {ratio:.3g}x, appends/s {full['per_s'] / normal['per_s']:.3g}x")
    if args.json:
        print(json.dumps({**results, "filesystem": kind, "full_over_normal_p50": round(ratio, 2)}))


if __name__ == "__main__":
    main()
