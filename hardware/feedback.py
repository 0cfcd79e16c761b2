"""Lights and buzzer driven from the referee's verdicts.

The referee never knows these exist: the dashboard's ``web.services.lights`` hands each new
entry's verdicts (plain data) and the current turn to ``Feedback.show``, which lights the
seat whose turn it is, flashes a penalised seat's LED and sounds the buzzer (HW-11). A table
without LEDs or a buzzer just skips.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

from gpiozero import LED, GPIODeviceClosed

from hardware.table import Table
from referee.verdicts import Outcome, Verdict


def penalised_seat(verdict: Verdict) -> int | None:
    """The seat a verdict penalises: an illegal play, or any verdict whose data names a
    ``penalty`` (Hit the Deck's fake-out or last slap, DOS's missed call: each game says it
    with the outcome it needs) or a ``mistake`` (Wash Dash's wrong task card)."""
    if verdict.seat is None:
        return None
    if verdict.outcome is Outcome.ILLEGAL:
        return verdict.seat
    if verdict.data.get("penalty") or verdict.data.get("mistake"):
        return verdict.seat
    return None


@dataclass
class FeedbackTiming:
    flash_on_s: float = 0.15
    flash_off_s: float = 0.1
    flashes: int = 3
    buzz_s: float = 0.3


class Feedback:
    """Turn light and penalty flashes. A flash is this class's own loop, not gpiozero's
    ``blink``: the game changes every few milliseconds in a slap race, and each change sets
    the turn light; ``LED.on``/``off`` would stop a running blink after one flash, and two
    threads blinking one LED race on gpiozero's blink thread. Here the turn light leaves a
    flashing seat alone, the flash ends by showing the turn as it is then, and a second
    penalty of the same seat restarts its flash."""

    def __init__(
        self, table: Table, timing: FeedbackTiming | None = None, background: bool = True
    ) -> None:
        self.table = table
        self.timing = timing or FeedbackTiming()
        self.background = background  # tests run the blink/beep patterns to completion
        self.turn: int | None = None
        self._lock = threading.Lock()
        self._flashing: dict[int, int] = {}  # seat -> the token of its running flash
        self._tokens = itertools.count(1)

    def show_turn(self, seat: int | None) -> None:
        """Light the LED of the seat whose turn it is; every other LED off (a flashing
        seat's LED is left to its flash, which ends showing the turn)."""
        with self._lock:
            self.turn = seat
            for s, led in self.table.leds.items():
                if s not in self._flashing:
                    _light(led, s == seat)

    def penalise(self, seat: int) -> None:
        """Flash the seat's LED and sound the buzzer."""
        t = self.timing
        if self.table.buzzer is not None:
            self.table.buzzer.beep(t.buzz_s, 0, n=1, background=self.background)
        led = self.table.led(seat)
        if led is None:
            return
        with self._lock:
            token = self._flashing[seat] = next(self._tokens)
        if self.background:
            threading.Thread(
                target=self._flash, args=(led, seat, token), name="flash", daemon=True
            ).start()
        else:
            self._flash(led, seat, token)

    def _flash(self, led: LED, seat: int, token: int) -> None:
        """On and off ``flashes`` times, then the turn light as it is now. Stops, touching
        nothing, when a newer flash of the seat (or ``off``) took over."""
        t = self.timing
        try:
            for _ in range(t.flashes):
                for on, wait in ((True, t.flash_on_s), (False, t.flash_off_s)):
                    with self._lock:
                        if self._flashing.get(seat) != token:
                            return
                        _light(led, on)
                    time.sleep(wait)
            with self._lock:
                if self._flashing.get(seat) == token:
                    del self._flashing[seat]
                    _light(led, seat == self.turn)
        except GPIODeviceClosed:  # the server stopped mid-flash: nothing left to light
            pass

    def show(self, verdicts: Iterable[Verdict], turn: int | None = None) -> list[int]:
        """Apply one event's verdicts: the turn light first, then any penalty flashes.
        Returns the seats penalised."""
        self.show_turn(turn)
        seats = []
        for verdict in verdicts:
            seat = penalised_seat(verdict)
            if seat is not None and seat not in seats:
                seats.append(seat)
                self.penalise(seat)
        return seats

    def off(self) -> None:
        with self._lock:
            self.turn = None
            self._flashing.clear()  # a running flash stops at its next step
            for led in self.table.leds.values():
                led.off()
        if self.table.buzzer is not None:
            self.table.buzzer.off()


def _light(led: LED, on: bool) -> None:
    if on:
        led.on()
    else:
        led.off()
