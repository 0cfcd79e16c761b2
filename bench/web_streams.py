"""Live streams vs page loads: can 8 tablets watch live while pages still load promptly?

Starts ``tabletop serve`` (waitress, its default thread pool) in a subprocess on a free
local port with a 640×480 image-folder camera, opens N Server-Sent-Event streams and N
MJPEG streams, has the referee append an event every 0.25 s (so every SSE stream gets
pushed), and meanwhile loads pages and API calls in a loop from several threads.
Prints per-URL request times (the wait until the whole response is read) and the goal
check: no request waits more than 1 s.

    .venv/bin/python bench/web_streams.py [--streams 8] [--seconds 20] [--loaders 4] [--json]
"""

from __future__ import annotations

import argparse
import http.client
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
from pathlib import Path

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
    try:
        _referee(port, stop, counts)
    except (OSError, http.client.HTTPException) as exc:
        if not stop.is_set():
            ERRORS.append(f"referee: {exc!r}")


def _referee(port: int, stop: threading.Event, counts: dict[str, int]) -> None:
    c = Client(port)
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


def stream_reader(port: int, path: str, stop: threading.Event, stats: dict[str, int]) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path)
    resp = conn.getresponse()
    if resp.status != 200:
        stats["refused"] += 1
        return
    stats["open"] += 1
    try:
        while not stop.is_set():
            chunk = resp.read1(65536)
            if not chunk:
                stats["ended_early"] += 1
                break
            stats["bytes"] += len(chunk)
            stats["messages"] += chunk.count(b"event: state") + chunk.count(b"--frame")
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


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", type=int, default=8, help="SSE streams, and as many MJPEG")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--loaders", type=int, default=4, help="threads loading pages")
    ap.add_argument("--json", action="store_true", help="last line: one JSON object")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="web-bench-"))
    make_frames(tmp / "frames")
    db = tmp / "tabletop.db"
    from web.services.settings import Settings

    settings = Settings(db)
    settings.set_first_pin(PIN, settings.setup_code)
    settings.close()
    port = free_port()
    exe = Path(sys.executable).with_name("tabletop")
    cmd = [str(exe), "serve", "--host", "127.0.0.1", "--port", str(port), "--db", str(db)]
    cmd += ["--camera", str(tmp / "frames")]
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        stop = threading.Event()
        counts = {"events": 0}
        ref = threading.Thread(target=referee_loop, args=(port, stop, counts), daemon=True)
        ref.start()
        time.sleep(1.0)
        sse = {"open": 0, "refused": 0, "ended_early": 0, "bytes": 0, "messages": 0}
        mjpeg = dict(sse)
        readers = [
            threading.Thread(target=stream_reader, args=(port, "/api/stream", stop, sse))
            for _ in range(args.streams)
        ] + [
            threading.Thread(
                target=stream_reader, args=(port, "/api/camera/stream.mjpg", stop, mjpeg)
            )
            for _ in range(args.streams)
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
        for t in loaders:
            t.join(5)
    finally:
        server.terminate()
        server.wait(10)

    every = [v for vs in times.values() for v in vs]
    refused = sse["refused"] + mjpeg["refused"]
    print(
        f"{args.streams} SSE + {args.streams} MJPEG streams for {args.seconds:.0f} s "
        f"(refused {refused}, ended early {ended}) "
        f"(still open at the end: {open_sse} SSE, {open_mjpeg} MJPEG; "
        f"SSE state pushes {sse['messages']}, MJPEG frames {mjpeg['messages']}, "
        f"referee events {counts['events']}), {args.loaders} page loaders, cpus={os.cpu_count()}"
    )
    print(f"{'request':28} {'n':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for path in PAGES:
        vs = times.get(path, [])
        if vs:
            print(
                f"{path:28} {len(vs):6d} {statistics.median(vs) * 1e3:8.1f} "
                f"{pct(vs, 0.99) * 1e3:8.1f} {max(vs) * 1e3:8.1f}"
            )
    worst = max(every) if every else float("nan")
    print(
        f"{'ALL':28} {len(every):6d} {statistics.median(every) * 1e3:8.1f} "
        f"{pct(every, 0.99) * 1e3:8.1f} {worst * 1e3:8.1f}"
    )
    ok = bool(every) and worst <= 1.0 and not errors and open_sse == args.streams
    ok = ok and open_mjpeg == args.streams
    errors += ERRORS
    print(f"errors: {len(errors)} {errors[:3]}")
    print(f"goal: no page request waits more than 1 s -> {'PASS' if ok else 'FAIL'}")
    if args.json:
        print(
            json.dumps(
                {
                    "streams_sse": args.streams,
                    "streams_mjpeg": args.streams,
                    "requests": len(every),
                    "p50_ms": round(statistics.median(every) * 1e3, 1),
                    "p99_ms": round(pct(every, 0.99) * 1e3, 1),
                    "max_ms": round(worst * 1e3, 1),
                    "errors": len(errors),
                    "pass": ok,
                }
            )
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
