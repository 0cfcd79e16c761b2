"""What one live push costs a tablet as a game's feed grows: the whole state vs a delta.

Plays Hit the Deck (tests/data/hit-the-deck-example.jsonl's events, over and over, with a
target score nobody reaches) into a fresh app and, at each checkpoint, has the next event
pushed: the whole ``state`` (what every stream sent before the deltas, and still sends without
``?delta=1``, after an undo, or to a page that just opened) and the ``delta`` a tablet that
holds the feed so far gets. Bytes are the SSE message on the wire; ms the server's work for
one stream (the delta's includes finding the feed's version, which the first stream pays
and the others find by identity). ``snapshot ms`` is building the snapshot an event
publishes, done once per event whatever the tablets (web/services/games.py): it builds the
feed entry of that event only, the rest is cached per game. ``event ms`` is the whole
``GameService.append`` of an event (check, store with its fsync, that snapshot, the hub, the
listeners); ``cold ms`` a snapshot from scratch (a server just started: replay and whole feed).
``smaller`` is the whole state's bytes over the delta's (the baseline: what a push cost before
the deltas); the last line says whether docs/ARCHITECTURE.md's claim holds.

    .venv/bin/python bench/feed_push.py [--events 50 200 1000] [--repeat 20] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.cli_args import positive_int, ranged  # noqa: E402
from referee.events import Event  # noqa: E402
from web import create_app  # noqa: E402
from web.blueprints.live import Held, _sse, push  # noqa: E402
from web.config import WebConfig  # noqa: E402
from web.services.hub import FeedVersions  # noqa: E402

EXAMPLE = ROOT / "tests" / "data" / "hit-the-deck-example.jsonl"


def median_ms(work: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        work()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def per_event(games: Any, game_id: int, events: list[Event], repeat: int) -> tuple[float, float]:
    """(snapshot ms, event ms): medians over ``repeat`` more events appended to the game."""
    built: list[float] = []
    took: list[float] = []
    snapshot = games.snapshot

    def timed(gid: int) -> dict[str, Any]:
        t0 = time.perf_counter()
        try:
            return snapshot(gid)
        finally:
            built.append(time.perf_counter() - t0)

    games.snapshot = timed  # what ``_publish`` builds
    try:
        for event in events[:repeat]:
            t0 = time.perf_counter()
            games.append(game_id, event)
            took.append(time.perf_counter() - t0)
    finally:
        del games.snapshot
    return statistics.median(built) * 1e3, statistics.median(took) * 1e3


def cold_ms(db: Path, game_id: int, repeat: int) -> float:
    """A snapshot from scratch: a service just started on the file (no replay, no feed)."""
    from web.services.games import GameService
    from web.services.hub import Hub
    from web.services.settings import Settings

    def fresh() -> None:
        GameService(db, Settings(db), Hub()).snapshot(game_id)

    return median_ms(fresh, repeat)


def measure(games: Any, game_id: int, before: dict[str, Any], repeat: int) -> dict[str, Any]:
    """The push of the snapshot now, to a tablet holding ``before``."""
    snap = games.snapshot(game_id)
    feed = snap["feed"]
    full = _sse("state", snap)

    def delta_push() -> bytes:
        feeds = FeedVersions()  # as the first stream finds it: the new feed not seen yet
        version = feeds.observe(game_id, before["feed"])
        held = Held(game_id, version, before["feed"][-1]["seq"] if before["feed"] else 0)
        out = push(feeds, {**snap, "feed": list(feed)}, held)
        assert out.startswith(b"id: ") and b"\nevent: delta\n" in out, out[:80]
        return out

    delta = delta_push()
    return {
        "events": len(feed),
        "full_bytes": len(full),
        "full_ms": round(median_ms(lambda: _sse("state", snap), repeat), 3),
        "delta_bytes": len(delta),
        "delta_ms": round(median_ms(delta_push, repeat), 3),
    }


def goal_line(rows: list[dict[str, Any]]) -> str:
    """docs/ARCHITECTURE.md's claim, checked: once a tablet holds the feed, a push sends only
    the new entries (the delta), not the whole state, whatever the feed's length."""
    met = bool(rows) and all(r["delta_bytes"] < r["full_bytes"] for r in rows)
    return (
        "goal (docs/ARCHITECTURE.md): a push sends the new entries, not the whole state "
        f"(delta smaller at every size): {'met' if met else 'NOT met'}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--events",
        type=ranged(int, 2),  # a delta is what a tablet holding 1 or more entries is sent
        nargs="+",
        default=[50, 200, 1000],
        help="feed lengths to measure at (at least 2)",
    )
    ap.add_argument(
        "--repeat", type=positive_int, default=20, help="timed runs per figure (median)"
    )
    ap.add_argument("--json", action="store_true", help="last line: one JSON object")
    args = ap.parse_args()

    lines = EXAMPLE.read_text().splitlines()
    head = json.loads(lines[0])
    events = [Event.from_dict(json.loads(line)) for line in lines[1:]]
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(WebConfig(db_path=Path(tmp) / "bench.db", testing=True))
        games = app.extensions["tabletop"].games
        game_id = games.create(head["game"], head["players"], {"target_score": 10**9})
        rows = []
        played = 0
        for target in sorted(args.events):
            while played < target - 1:
                games.append(game_id, events[played % len(events)])
                played += 1
            before = games.snapshot(game_id)
            games.append(game_id, events[played % len(events)])
            played += 1
            row = measure(games, game_id, before, args.repeat)
            row["cold_ms"] = round(
                cold_ms(Path(tmp) / "bench.db", game_id, max(3, args.repeat // 4)), 2
            )
            nxt = [events[(played + i) % len(events)] for i in range(args.repeat)]
            snap_ms, event_ms = per_event(games, game_id, nxt, args.repeat)
            played += args.repeat
            row.update(snapshot_ms=round(snap_ms, 2), event_ms=round(event_ms, 2))
            rows.append(row)

    print(f"Hit the Deck, one push per event ({args.repeat} runs, median)")
    print(
        f"{'events':>7} {'full bytes':>11} {'full ms':>8} {'delta bytes':>12} "
        f"{'delta ms':>9} {'smaller':>8} {'snapshot ms':>12} {'event ms':>9} {'cold ms':>8}"
    )
    for r in rows:
        print(
            f"{r['events']:7d} {r['full_bytes']:11d} {r['full_ms']:8.2f} {r['delta_bytes']:12d} "
            f"{r['delta_ms']:9.2f} {r['full_bytes'] / r['delta_bytes']:7.0f}x "
            f"{r['snapshot_ms']:12.2f} {r['event_ms']:9.2f} {r['cold_ms']:8.1f}"
        )
    print(goal_line(rows))
    if args.json:
        print(json.dumps({"rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
