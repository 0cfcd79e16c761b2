"""Lights and buzzer driven from the referee's verdicts.

The referee never knows these exist: the dashboard's ``web.services.lights`` hands each new
entry's verdicts (plain data) and the current turn to ``Feedback.show``, which lights the
seat whose turn it is, flashes a penalised seat's LED and sounds the buzzer (HW-11). A table
without LEDs or a buzzer just skips.
"""

from __future__ import annotations

import threading
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
    def __init__(
        self, table: Table, timing: FeedbackTiming | None = None, background: bool = True
    ) -> None:
        self.table = table
        self.timing = timing or FeedbackTiming()
        self.background = background  # tests run the blink/beep patterns to completion
        self.turn: int | None = None

    def show_turn(self, seat: int | None) -> None:
        """Light the LED of the seat whose turn it is; every other LED off."""
        self.turn = seat
        for s, led in self.table.leds.items():
            if s == seat:
                led.on()
            else:
                led.off()

    def penalise(self, seat: int) -> None:
        """Flash the seat's LED and sound the buzzer."""
        t = self.timing
        if self.table.buzzer is not None:
            self.table.buzzer.beep(t.buzz_s, 0, n=1, background=self.background)
        led = self.table.led(seat)
        if led is None:
            return
        if self.background:
            threading.Thread(
                target=self._flash, args=(led, seat), name="flash", daemon=True
            ).start()
        else:
            self._flash(led, seat)

    def _flash(self, led: LED, seat: int) -> None:
        """Blink, then light the LED again while it is still the seat's turn: gpiozero leaves
        a blinked LED off, and a seat penalised on its own turn would look as if it had none."""
        t = self.timing
        try:
            led.blink(t.flash_on_s, t.flash_off_s, n=t.flashes, background=False)
            if seat == self.turn:
                led.on()
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
        for led in self.table.leds.values():
            led.off()
        if self.table.buzzer is not None:
            self.table.buzzer.off()
