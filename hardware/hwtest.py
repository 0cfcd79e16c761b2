"""``tabletop hw test``: check a real table by pressing every pad and button.

Each accepted press is named (seat and device), its LED flashes and the measured
edge → event latency (source time to delivery on the software path) is shown. With a
script (virtual pads) the same loop runs unattended, which is how the test suite runs it.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import TextIO

from hardware.padevents import PadEvent
from hardware.table import Table

DEVICE_NAMES = {"pad": "slap pad", "call": "call button"}


def parse_script(text: str, table: Table) -> list[tuple[int, str]]:
    """``all`` (every wired input) or a list such as ``0:pad,0:call,1:pad``."""
    wired = list(table.inputs)
    if text.strip().lower() == "all":
        return wired
    out = []
    for item in text.replace(" ", "").split(","):
        if not item:
            continue
        seat_text, _, device = item.partition(":")
        if (
            not (seat_text.isascii() and seat_text.isdigit())
            or (int(seat_text), device or "pad") not in table.inputs
        ):
            raise ValueError(f"script item {item!r} is not a wired input (wired: {_names(wired)})")
        out.append((int(seat_text), device or "pad"))
    return out


def _names(inputs: Sequence[tuple[int, str]]) -> str:
    return ", ".join(f"{s}:{d}" for s, d in inputs)


def play_script(
    table: Table,
    presses: Sequence[tuple[int, str]],
    gap_s: float = 0.01,
    bounces: int = 0,
    stop: threading.Event | None = None,
) -> None:
    """Press virtual inputs one after another, each with ``bounces`` bounce pairs; no more
    once ``stop`` is set (a recording that could not be written).

    A press's bounces are stamped ahead of the clock (0.2 ms a pair: up to 0.2 s for the
    most ``--bounce`` allows), so the next press starts ``gap_s`` after the last of them at
    the earliest: stamped "now", it could come before the previous release and be dropped
    as its bounce, and a recording's times would run backwards. It waits for the clock to
    reach that time: stamped ahead of it, each press would run further ahead of the last
    (``hw test`` showed negative, growing edge → event latencies)."""
    gap_ns = round(gap_s * 1e9)
    after = time.monotonic_ns()  # the earliest stamp the next press may have
    for seat, device in presses:
        _sleep_until(after)
        if stop is not None and stop.is_set():
            return
        t = max(time.monotonic_ns(), after)
        table.drive(seat, device, True, t)
        for k in range(bounces):
            table.drive(seat, device, False, t + 200_000 * k + 100_000)
            table.drive(seat, device, True, t + 200_000 * k + 200_000)
        end = t + 200_000 * bounces + 100_000
        table.drive(seat, device, False, end)
        after = end + gap_ns


def _sleep_until(t_ns: int) -> None:
    """Sleep until the monotonic clock reads ``t_ns`` (``time.sleep`` may wake a little
    early on some systems: check again)."""
    while (left := t_ns - time.monotonic_ns()) > 0:
        time.sleep(left / 1e9)


def press_from_lines(table: Table, lines: TextIO, out: TextIO) -> None:
    """Virtual pads from a terminal: each line ``SEAT [pad|call]`` presses that input.
    A typo is answered on ``out``, the test's own report; runs on the feeder's thread, so
    an output that can no longer be written (a closed pipe) ends the typing quietly and
    the main thread, writing next, reports it once (not a thread traceback)."""
    for line in lines:
        text = line.strip().replace(":", " ")
        if not text:
            continue
        seat_text, _, device = text.partition(" ")
        try:
            table.press(int(seat_text), device.strip() or "pad")
        except (KeyError, ValueError) as exc:
            try:
                print(f"  ? {line.strip()!r}: {exc}", file=out, flush=True)
            except (OSError, ValueError):  # ValueError: the stream was closed
                return


def run_hw_test(
    table: Table,
    out: TextIO,
    *,
    timeout_s: float = 120.0,
    script: Sequence[tuple[int, str]] | None = None,
    bounces: int = 0,
    feeder: Callable[[], None] | None = None,
) -> int:
    """Wait until every wired input was pressed (or the timeout); 0 when all were seen.
    ``script`` plays virtual presses, and the test ends when it has played them all (no
    later press can come); an input it never pressed is named as such, not as wiring to
    check. ``feeder`` is any other source of presses (stdin): it too ends the test when it
    ends (end of input). On virtual pads an input never seen was not pressed: no wiring."""
    expected = list(table.inputs)
    clock = table.clock
    print(
        f"hw test: {table.mode} pins, clock {clock.name} "
        f"(resolution {clock.resolution_ns / 1000:g} µs, at source: {clock.at_source})",
        file=out,
    )
    print(f"Press each input once: {_names(expected)}", file=out)
    q: queue.Queue[PadEvent] = table.bus.queue()
    if script is not None:
        feeder = partial(play_script, table, script, bounces=bounces)
    player = None
    if feeder is not None:  # started only now, so that no press is missed
        player = threading.Thread(target=feeder, daemon=True)
        player.start()
    seen: dict[tuple[int, str], PadEvent] = {}
    latencies: list[int] = []
    deadline = time.monotonic() + timeout_s
    try:
        while len(seen) < len(expected):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            # the feeder's thread hands each press to the queue before it ends (a script
            # played, stdin at its end): once it has ended and the queue is empty, nothing
            # more will come
            played = player is not None and not player.is_alive()
            try:
                event = q.get(timeout=min(left, 0.5)) if not played else q.get_nowait()
            except queue.Empty:
                if played:
                    break
                continue
            key = (event.seat, event.device)
            latency = event.latency_ns or 0
            latencies.append(latency)
            again = " (again)" if key in seen else ""
            seen.setdefault(key, event)
            led = table.led(event.seat)
            if led is not None:
                led.blink(0.2, 0, n=1, background=True)
            print(
                f"  seat {event.seat} {DEVICE_NAMES.get(event.device, event.device)}{again}: "
                f"edge → event {latency / 1e6:.3f} ms  [{len(seen)}/{len(expected)}]",
                file=out,
            )
    finally:
        table.bus.unsubscribe_queue(q)
        if player is not None and script is not None:
            player.join()
    missing = [k for k in expected if k not in seen]
    debounced = sum(d.dropped for d in table.debouncers.values())
    if latencies:
        worst = max(latencies) / 1e6
        print(
            f"{len(latencies)} presses, worst edge → event {worst:.3f} ms, "
            f"{debounced} bounce edges dropped",
            file=out,
        )
    unscripted = [k for k in missing if script is not None and k not in script]
    if unscripted:
        print(
            f"NOT SEEN: {_names(unscripted)} — the script never pressed "
            f"{'it' if len(unscripted) == 1 else 'them'} (--script all presses every input)",
            file=out,
        )
    unseen = [k for k in missing if k not in unscripted]
    if unseen and table.is_virtual:
        print(f"NOT SEEN: {_names(unseen)} — not pressed (virtual pads)", file=out)
    elif unseen:
        print(f"NOT SEEN: {_names(unseen)} — check wiring (docs/HARDWARE.md)", file=out)
    if missing:
        return 1
    if table.buzzer is not None:
        table.buzzer.beep(0.1, 0, n=1, background=True)
    print("All inputs OK.", file=out)
    return 0
