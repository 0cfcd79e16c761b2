"""Live streams vs page loads: can 8 tablets watch live while pages still load promptly?

Starts ``tabletop serve`` (waitress, its default thread pool) in a subprocess on a free
local port with a 640×480 image-folder camera, opens N Server-Sent-Event streams and N
MJPEG streams (N tablets, each opening its pair from its own loopback address, as tablets on
the network do: the server holds at most 8 streams per address, WEB-15; Linux only), has the
referee append an event every 0.25 s (so every SSE stream gets pushed), and meanwhile loads
pages and API calls in a loop from several threads.
Prints per-URL request times (the wait until the whole response is read) and the goal
check: no request waits more than 1 s, while every stream stays open and every SSE stream
is pushed, and nothing fails (a page, a stream or the referee).

    .venv/bin/python bench/web_streams.py [--streams 8] [--seconds 20] [--loaders 4] [--json]
"""

from __future__ import annotations

import argparse
import http.client
import ipaddress
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.cli_args import positive_float, positive_int

PAGES = [
    "/scoreboard",
    "/console",
    "/live",
    "/setup",
    "/history",
    "/hardware",
    "/static/css/app.css",
    "/static/js/console.js",
    "/api/games/1",
    "/api/catalogue",
    "/api/camera/frame.jpg",
    "/qr.svg",
]
PIN = "8642"
ERRORS: list[str] = []
GAME_READY = threading.Event()  # the referee's game is dealt (or the referee has failed)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_frames(folder: Path, n: int = 12) -> None:
    import cv2
    import numpy as np

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for i in range(n):
        img = np.full((480, 640, 3), (30, 90, 40), np.uint8)
        for _ in range(6):
            x, y = int(rng.integers(0, 560)), int(rng.integers(0, 380))
            cv2.rectangle(img, (x, y), (x + 70, y + 100), (250, 250, 250), -1)
            cv2.putText(img, f"R{i % 12 + 1}", (x + 8, y + 40), 0, 1.0, (0, 0, 200), 2)
        cv2.imwrite(str(folder / f"f{i:03d}.jpg"), img)


class Client:
    """A tiny cookie-keeping HTTP client (stdlib only, one connection)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookie = ""
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def request(self, method: str, path: str, body: bytes | None = None, headers=None):
        h = dict(headers or {})
        if self.cookie:
            h["Cookie"] = self.cookie
        self.conn.request(method, path, body=body, headers=h)
        resp = self.conn.getresponse()
        data = resp.read()
        for k, v in resp.getheaders():
            if k.lower() == "set-cookie":
                self.cookie = v.split(";", 1)[0]
        return resp.status, data


def referee_loop(port: int, stop: threading.Event, counts: dict[str, int]) -> None:
    """The referee's thread: any failure (a refused game is an AssertionError) is an error
    of the run, except a lost connection once the run is over (the server is stopping)."""
    try:
        _referee(port, stop, counts)
    except Exception as exc:  # a thread's failure must reach the goal
        if not (stop.is_set() and isinstance(exc, (OSError, http.client.HTTPException))):
            ERRORS.append(f"referee: {exc!r}")
    finally:
        GAME_READY.set()  # a failed referee holds up no run


def _referee(port: int, stop: threading.Event, counts: dict[str, int]) -> None:
    """Start a game (then ``GAME_READY``: the pages load it) and play it until ``stop``."""
    c = Client(port)
    try:
        game, hdr = _start_game(c)
        GAME_READY.set()
        _play(c, game, hdr, stop, counts)
    finally:
        c.conn.close()


def _start_game(c: Client) -> tuple[int, dict[str, str]]:
    """Log in, start and deal a game: its id, and the headers that post to it."""
    _, html = c.request("GET", "/scoreboard")
    token = re.search(rb'name="csrf-token" content="([^"]+)"', html).group(1).decode()
    form = f"csrf_token={token}&pin={PIN}".encode()
    c.request("POST", "/login", form, {"Content-Type": "application/x-www-form-urlencoded"})
    _, html = c.request("GET", "/console")
    token = re.search(rb'name="csrf-token" content="([^"]+)"', html).group(1).decode()
    hdr = {"Content-Type": "application/json", "X-CSRF-Token": token}
    body = {"game": "deck-dash", "players": ["Ann", "Bob", "Cy"]}
    status, data = c.request("POST", "/api/games", json.dumps(body).encode(), hdr)
    assert status == 201, data
    game = json.loads(data)["id"]
    deal = {"kind": "deal", "seat": 0, "payload": {"start": "R5", "hands": [12, 12, 12]}}
    c.request("POST", f"/api/games/{game}/events", json.dumps(deal).encode(), hdr)
    return game, hdr


def _play(
    c: Client, game: int, hdr: dict[str, str], stop: threading.Event, counts: dict[str, int]
) -> None:
    """Append and undo an event every 0.25 s until ``stop``."""
    seq = 1
    while not stop.is_set():
        # Append an event, then undo it: the state keeps changing, the log keeps growing.
        draw = {"kind": "draw", "seat": 1, "payload": {"from": "draw"}}
        status, data = c.request(
            "POST", f"/api/games/{game}/events", json.dumps(draw).encode(), hdr
        )
        if status == 201:
            seq = json.loads(data)["seq"]
            counts["events"] += 1
        undo = {"target": seq}
        c.request("POST", f"/api/games/{game}/undo", json.dumps(undo).encode(), hdr)
        counts["events"] += 1
        stop.wait(0.25)


MARKS = {"/api/stream": b"event: state\n", "/api/camera/stream.mjpg": b"--frame"}


def count_marks(tail: bytes, chunk: bytes, mark: bytes) -> tuple[int, bytes]:
    """Marks in ``chunk``, one split across reads included; and the tail to carry on."""
    data = tail + chunk
    return data.count(mark), data[-(len(mark) - 1) :]


FIRST_TABLET = ipaddress.IPv4Address("127.0.0.10")


def tablet_address(tablet: int) -> str:
    """Tablet ``tablet``'s own loopback address (127.0.0.10, .11, …): from one address the
    server holds at most 8 streams and ends the oldest for a 9th (WEB-15), so 8 tablets' 16
    streams from 127.0.0.1 would end one another. Linux answers on all of 127.0.0.0/8."""
    return str(FIRST_TABLET + tablet)


def stream_reader(
    port: int, path: str, stop: threading.Event, stats: dict[str, int], tablet: int
) -> None:
    """Reads one stream, opened from ``tablet_address(tablet)``; ``messages`` counts its SSE
    states or MJPEG frames, ``pushed`` the streams that got more than their first (an SSE
    stream's first is the state at opening)."""
    source = (tablet_address(tablet), 0)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=source)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
    except (OSError, http.client.HTTPException) as exc:  # e.g. macOS has only 127.0.0.1
        stats["refused"] += 1
        ERRORS.append(f"{path} from {source[0]}: {exc!r}")
        conn.close()
        return
    if resp.status != 200:
        stats["refused"] += 1
        conn.close()
        return
    stats["open"] += 1
    mark, tail, seen = MARKS[path], b"", 0
    try:
        while not stop.is_set():
            chunk = resp.read1(65536)
            if not chunk:
                stats["ended_early"] += 1
                break
            stats["bytes"] += len(chunk)
            n, tail = count_marks(tail, chunk, mark)
            stats["messages"] += n
            stats["pushed"] += seen < 2 <= seen + n
            seen += n
    except (OSError, http.client.HTTPException) as exc:
        if not stop.is_set():
            stats["ended_early"] += 1
            ERRORS.append(f"{path}: {exc!r}")
    finally:
        stats["open"] -= 1
        conn.close()


def loader(port: int, stop: threading.Event, times: dict[str, list[float]], errors: list) -> None:
    i = 0
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while not stop.is_set():
        path = PAGES[i % len(PAGES)]
        i += 1
        t0 = time.perf_counter()
        try:
            conn.request("GET", path)
            resp = conn.getresponse()
            resp.read()
            status = resp.status
        except (OSError, http.client.HTTPException) as exc:
            errors.append(f"{path}: {exc}")
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            continue
        dt = time.perf_counter() - t0
        if status >= 400:
            errors.append(f"{path}: HTTP {status}")
        times.setdefault(path, []).append(dt)
    conn.close()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@dataclass
class Run:
    """What one run measured: request times per URL, and what went wrong."""

    times: dict[str, list[float]]
    errors: list[str]  # the loaders', the streams' and the referee's
    sse: dict[str, int]
    mjpeg: dict[str, int]
    events: int  # the referee's appends and undos
    open_sse: int  # still open at the end
    open_mjpeg: int
    ended: int  # streams that ended before the run did

    @property
    def every(self) -> list[float]:
        return [v for vs in self.times.values() for v in vs]


def start_server(tmp: Path) -> tuple[subprocess.Popen, int]:
    """``tabletop serve`` on a fresh database with the bench's PIN, once it takes connections;
    its output goes to a file (a pipe nobody reads would stall it once full)."""
    from web.services.settings import Settings

    make_frames(tmp / "frames")
    db = tmp / "tabletop.db"
    settings = Settings(db)
    settings.set_first_pin(PIN, settings.setup_code)
    settings.close()
    port = free_port()
    exe = Path(sys.executable).with_name("tabletop")
    cmd = [str(exe), "serve", "--host", "127.0.0.1", "--port", str(port), "--db", str(db)]
    cmd += ["--camera", str(tmp / "frames")]
    with open(tmp / "server.log", "wb") as log:
        server = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server, port
        except OSError:
            time.sleep(0.2)
    said = (tmp / "server.log").read_text(errors="replace").strip().splitlines()[-1:]
    ERRORS.append(f"server: not taking connections after 30 s {said}")
    return server, port


def stop_server(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def measure(args: argparse.Namespace, tmp: Path) -> Run:
    """One run: the referee, N SSE and N MJPEG streams, the loaders, for ``args.seconds``."""
    server, port = start_server(tmp)
    try:
        stop = threading.Event()
        counts = {"events": 0}
        GAME_READY.clear()
        ref = threading.Thread(target=referee_loop, args=(port, stop, counts), daemon=True)
        ref.start()
        if not GAME_READY.wait(30):  # the loaders' /api/games/1 is its game
            ERRORS.append("referee: no game after 30 s")
        sse = {"open": 0, "refused": 0, "ended_early": 0, "bytes": 0, "messages": 0, "pushed": 0}
        mjpeg = dict(sse)
        readers = [
            threading.Thread(target=stream_reader, args=(port, "/api/stream", stop, sse, i))
            for i in range(args.streams)
        ] + [
            threading.Thread(
                target=stream_reader, args=(port, "/api/camera/stream.mjpg", stop, mjpeg, i)
            )
            for i in range(args.streams)
        ]
        for t in readers:
            t.daemon = True
            t.start()
        time.sleep(1.0)
        times: dict[str, list[float]] = {}
        errors: list[str] = []
        loaders = [
            threading.Thread(target=loader, args=(port, stop, times, errors), daemon=True)
            for _ in range(args.loaders)
        ]
        for t in loaders:
            t.start()
        time.sleep(args.seconds)
        open_sse, open_mjpeg = sse["open"], mjpeg["open"]
        # counted before the server stops: its shutdown ends every stream, which is not early
        ended = sse["ended_early"] + mjpeg["ended_early"]
        stop.set()
        for t in [ref, *loaders]:
            t.join(5)
    finally:
        stop_server(server)
    for t in readers:  # each closes its stream once the server has ended it
        t.join(5)
    return Run(times, errors + ERRORS, sse, mjpeg, counts["events"], open_sse, open_mjpeg, ended)


WAIT_GOAL_S = 1.0  # the longest a page request may wait


def goal_checks(run: Run, streams: int) -> dict[str, bool]:
    """The goal, part by part: pages load within 1 s while every stream stays open and every
    SSE stream is pushed the referee's events, and nothing failed on the way."""
    every = run.every
    return {
        "no page request waits more than 1 s": bool(every) and max(every) <= WAIT_GOAL_S,
        "no errors": not run.errors,
        "every stream open to the end": run.open_sse == run.open_mjpeg == streams,
        "the referee appended events": run.events > 0,
        "every SSE stream was pushed": run.sse["pushed"] >= streams,
    }


def print_table(times: dict[str, list[float]]) -> None:
    print(f"{'request':28} {'n':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for path in [*PAGES, "ALL"]:
        vs = [v for vals in times.values() for v in vals] if path == "ALL" else times.get(path)
        if vs:
            print(
                f"{path:28} {len(vs):6d} {statistics.median(vs) * 1e3:8.1f} "
                f"{pct(vs, 0.99) * 1e3:8.1f} {max(vs) * 1e3:8.1f}"
            )
        elif path == "ALL":
            print(f"{path:28} {0:6d}  (no page request completed)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--streams", type=positive_int, default=8, help="tablets: SSE streams, and as many MJPEG"
    )
    ap.add_argument("--seconds", type=positive_float, default=20.0)
    ap.add_argument("--loaders", type=positive_int, default=4, help="threads loading pages")
    ap.add_argument("--json", action="store_true", help="last line: one JSON object")
    args = ap.parse_args(argv)

    ERRORS.clear()
    with tempfile.TemporaryDirectory(prefix="web-bench-") as tmp:
        run = measure(args, Path(tmp))
    every = run.every
    refused = run.sse["refused"] + run.mjpeg["refused"]
    print(
        f"{args.streams} SSE + {args.streams} MJPEG streams for {args.seconds:.0f} s "
        f"(refused {refused}, ended early {run.ended}) "
        f"(still open at the end: {run.open_sse} SSE, {run.open_mjpeg} MJPEG; "
        f"SSE state messages {run.sse['messages']}, SSE streams pushed {run.sse['pushed']}, "
        f"MJPEG frames {run.mjpeg['messages']}, referee events {run.events}), "
        f"{args.loaders} page loaders, cpus={os.cpu_count()}"
    )
    print_table(run.times)
    checks = goal_checks(run, args.streams)
    ok = all(checks.values())
    print(f"errors: {len(run.errors)} {run.errors[:3]}")
    for name, met in checks.items():
        print(f"  {'met' if met else 'NOT met'}: {name}")
    print(
        "goal: no page request waits more than 1 s, with every stream open and every SSE "
        f"stream pushed, no errors -> {'PASS' if ok else 'FAIL'}"
    )
    if args.json:
        ms = (lambda v: round(v * 1e3, 1)) if every else (lambda v: None)
        print(
            json.dumps(
                {
                    "streams_sse": args.streams,
                    "streams_mjpeg": args.streams,
                    "requests": len(every),
                    "p50_ms": ms(statistics.median(every) if every else 0),
                    "p99_ms": ms(pct(every, 0.99) if every else 0),
                    "max_ms": ms(max(every, default=0)),
                    "errors": len(run.errors),
                    "sse_streams_pushed": run.sse["pushed"],
                    "referee_events": run.events,
                    "pass": ok,
                }
            )
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
