"""The table's devices on gpiozero: per seat a slap pad, a call button and an LED; a buzzer.

Each input is a gpiozero ``Button`` whose every edge is stamped with the pin factory's
edge tick (converted by ``hardware.clock``), debounced in software keeping the first
edge's time (``hardware.debounce``), and published as a ``PadEvent`` on an ``EventBus``.
On a machine without GPIO the same devices run on ``NsMockFactory`` pins and ``press()``
drives them: that is the virtual-pads mode the dashboard and terminal use.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpiozero import LED, Button, Buzzer, Device
from gpiozero.exc import GPIOPinInUse, PinFactoryFallback

from hardware.bus import EventBus, Outbox
from hardware.clock import EdgeClock, edge_clock
from hardware.config import INPUTS, HardwareConfig
from hardware.debounce import Debouncer
from hardware.mockpins import NsMockFactory, NsMockPin
from hardware.padevents import PadEvent

EdgeHook = Callable[[int, str, int, bool, bool], None]  # seat, device, t_ns, active, accepted
Levels = dict[tuple[int, str], bool]  # (seat, device) → active (pressed)

log = logging.getLogger(__name__)


class HardwareError(RuntimeError):
    """The GPIO hardware could not be opened; the message says what to check."""


class StampedButton(Button):
    """A Button that reports each edge with its factory ticks to ``on_edge``.

    ``_fire_events(ticks, new_active)`` is gpiozero's documented hook for descendants:
    it receives the ticks of the edge as the pin factory reported them.
    """

    on_edge: Callable[[Any, bool], None] | None = None

    def _fire_events(self, ticks: Any, new_active: bool) -> None:
        """Report the edge, then let gpiozero record the new state — even when the handler
        raises: otherwise gpiozero's last state stays stale, the button reads as held and
        the next real edge is taken for no change and lost."""
        previous = self._last_active
        handler = self.on_edge
        try:
            if previous is not None and previous != new_active and handler is not None:
                handler(ticks, new_active)
        finally:
            super()._fire_events(ticks, new_active)


def gpio_chips() -> list[Path]:
    """The GPIO character devices of this machine (none on a laptop)."""
    return sorted(Path("/dev").glob("gpiochip*"))


def gpio_available() -> bool:
    """A GPIO character device this user can open (a Pi, or a board with gpiochips)."""
    return any(os.access(chip, os.R_OK | os.W_OK) for chip in gpio_chips())


NORMAL_USER_HINT = "see docs/HARDWARE.md 'Running as a normal user', or use mode = \"virtual\""


def _auto_mode() -> str:
    """``auto``: gpio where this user can open a gpiochip, virtual where there is none. A
    gpiochip this user cannot open is an error: virtual pads there leave the table's real
    pads dead while the dashboard looks fine."""
    chips = gpio_chips()
    if not chips:
        return "virtual"
    if gpio_available():
        return "gpio"
    raise HardwareError(
        f"{chips[0]} exists but this user cannot open it: add the user to the gpio group "
        "(docs/HARDWARE.md 'Running as a normal user', step 2), or set mode = \"virtual\""
    )


def _lgpio_missing(name: str | None) -> bool:
    """lgpio would be the factory (named, or gpiozero's default with no
    GPIOZERO_PIN_FACTORY) and it is not installed."""
    if name not in (None, "lgpio"):
        return False
    from hardware.lgpio_workdir import import_lgpio

    # imported here, before gpiozero does: keeps .lgd-nfy* out of the working directory
    installed = import_lgpio()
    return not installed and (name is not None or not os.environ.get("GPIOZERO_PIN_FACTORY"))


def _default_factory() -> Any:
    """gpiozero's default factory (``Device.pin_factory``, made now if there is none). When
    none loads, the error names why lgpio (tried first) did not, not "Unable to load any
    default pin factory!" after four fallback warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PinFactoryFallback)
        try:
            Device.ensure_pin_factory()
        except Exception as exc:  # BadPinFactory: every default failed; a misspelt env name
            fallbacks = [str(w.message) for w in caught if w.category is PinFactoryFallback]
            why = fallbacks[0] if fallbacks else str(exc)
            hint = f"; {NORMAL_USER_HINT}" if _denied(why) else ""
            raise HardwareError(f"cannot open the GPIO pins ({why}){hint}") from exc
    for w in caught:  # a factory did load: a fallback is still worth its warning
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return Device.pin_factory


def make_factory(config: HardwareConfig, mode: str | None = None) -> tuple[Any, str]:
    """The pin factory for ``mode`` (default: the config's), and the mode actually used.

    ``virtual`` → NsMockFactory; ``gpio`` → the named gpiozero factory, or gpiozero's
    default (lgpio first; GPIOZERO_PIN_FACTORY overrides); ``auto`` → gpio when a gpiochip
    is accessible, virtual when there is none (see ``_auto_mode``).
    """
    mode = mode or config.mode
    if mode == "auto":
        mode = _auto_mode()
    if mode == "virtual":
        return NsMockFactory(), mode
    if mode != "gpio":
        raise ValueError(f"unknown hardware mode {mode!r}")
    if _lgpio_missing(config.pin_factory):  # not gpiozero's four fallback warnings
        raise HardwareError(
            "lgpio is not installed: install it (docs/HARDWARE.md 'Running as a normal user', "
            'step 1), name another gpiozero factory in pin_factory, or use mode = "virtual"'
        )
    if config.pin_factory is None:
        return _default_factory(), mode
    from importlib.metadata import entry_points

    found = entry_points(group="gpiozero_pin_factories", name=config.pin_factory)
    if not found:
        raise HardwareError(f"hardware.pin_factory: gpiozero has no factory {config.pin_factory!r}")
    try:
        return next(iter(found)).load()(), mode
    except Exception as exc:  # the library's own errors: missing lgpio, no permission …
        why = f"cannot open pin factory {config.pin_factory!r}: {exc}"
        raise HardwareError(f"{why}; {NORMAL_USER_HINT}" if _denied(exc) else why) from exc


def _denied(exc: BaseException) -> bool:
    """A permission or open error: the gpiochip is there but this user may not use it."""
    if isinstance(exc, PermissionError):
        return True
    text = str(exc).lower()
    return any(word in text for word in ("permi", "can not open", "cannot open", "denied"))


def _in_use(exc: BaseException) -> bool:
    """A pin claimed already: gpiozero's GPIOPinInUse in this program, lgpio's "GPIO busy"
    for a line another program holds."""
    return isinstance(exc, GPIOPinInUse) or "busy" in str(exc).lower()


def open_error(exc: BaseException) -> str:
    """Why the pins did not open, in words with the advice that fits: the normal-user hint
    only for permission errors, never for a pin another program holds."""
    if _in_use(exc):
        return (
            f"cannot open the GPIO pins ({exc}): another program holds the pins "
            "(is `tabletop serve` running?)"
        )
    if _denied(exc):
        return f"cannot open the GPIO pins ({exc}); {NORMAL_USER_HINT}"
    return f"cannot open the GPIO pins ({exc})"


def factory_name(factory: Any) -> str:
    """The gpiozero name of a factory ("lgpio"), else its class name."""
    from importlib.metadata import entry_points

    cls = type(factory)
    where = f"{cls.__module__}:{cls.__qualname__}"
    for ep in entry_points(group="gpiozero_pin_factories"):
        if ep.value == where:
            return ep.name
    return cls.__name__


class Table:
    """All the devices of one table, and the stream of accepted presses.

    Thread-safe: edges from the factory's thread and ``press()`` from web threads are
    serialised by one lock around the stamp's debounce. Listeners (edge hooks, bus
    subscribers) are called *outside* it, so a slow one (a database, a tablet push) never
    holds another pad's edge, and one may call back into the table (press a pad, add a
    hook) without a deadlock. Order (HW-7): under the lock each edge is debounced and
    posted to the table's ``Outbox`` with the hooks and subscribers registered at that
    moment; the outbox delivers one edge at a time, in post order. So every listener hears
    the table's edges in the order the table took them, never two at once, and only those
    taken after it was added. A raising edge hook or bus subscriber is logged and skipped,
    never passed back to the device that saw the edge.

    ``own_factory``: the table created ``factory`` (``Table.open``, a replay) and closes it
    with its devices; a factory handed in by the caller is the caller's to close, and
    gpiozero's default (``pin_factory`` unset) is gpiozero's: shared by every device of the
    program, closed by gpiozero at exit, used again by a reopened table.
    """

    def __init__(
        self,
        config: HardwareConfig,
        factory: Any = None,
        *,
        bus: EventBus[PadEvent] | None = None,
        mode: str = "virtual",
        own_factory: bool = False,
    ) -> None:
        self.config = config
        self.mode = mode
        self.bus: EventBus[PadEvent] = bus or EventBus()
        self.factory = factory
        self._own_factory = own_factory and factory is not None
        self._lock = threading.Lock()  # edges: debounce, levels, posting to the outbox
        self._press_lock = threading.Lock()  # one virtual press's down and up edges together
        self._outbox = Outbox()  # the listeners' calls, in edge order, outside the locks
        self._local = threading.local()  # per thread: a press's events, delivery held
        self._edge_hooks: list[EdgeHook] = []
        self._active: Levels = {}
        self.inputs: dict[tuple[int, str], StampedButton] = {}
        self.debouncers: dict[tuple[int, str], Debouncer] = {}
        self.leds: dict[int, LED] = {}
        self.buzzer: Buzzer | None = None
        self.edges_seen = 0
        try:
            for seat, device, pin in config.inputs():
                button = StampedButton(
                    pin, pull_up=config.pull_up, bounce_time=None, pin_factory=factory
                )
                factory = button.pin_factory  # gpiozero's default, once chosen
                self.inputs[(seat, device)] = button
                self.debouncers[(seat, device)] = Debouncer(config.debounce_ns)
                self._active[(seat, device)] = bool(button.is_active)
            for seat_pins in config.seats:
                if seat_pins.led is not None:
                    self.leds[seat_pins.seat] = LED(seat_pins.led, pin_factory=factory)
            if config.buzzer is not None:
                self.buzzer = Buzzer(config.buzzer, pin_factory=factory)
        except Exception:
            self.close()
            raise
        self.factory = factory
        self.clock: EdgeClock = edge_clock(factory)
        for (seat, device), button in self.inputs.items():
            button.on_edge = self._make_handler(seat, device)

    @classmethod
    def open(cls, config: HardwareConfig, mode: str | None = None) -> Table:
        """Open the table for real (gpio), virtually, or whichever ``auto`` finds."""
        factory, used = make_factory(config, mode)
        try:
            shared = factory is not None and factory is Device.pin_factory
            return cls(config, factory, mode=used, own_factory=not shared)
        except HardwareError:
            raise
        except Exception as exc:
            raise HardwareError(open_error(exc)) from exc

    def describe(self) -> str:
        """Which pads these are, for a start-up line: virtual, or GPIO and its factory."""
        if self.is_virtual:
            return "virtual pads (tap them on the dashboard)"
        return f"real GPIO pads (pin factory {factory_name(self.factory)})"

    # -- edges ---------------------------------------------------------------------------
    def _make_handler(self, seat: int, device: str) -> Callable[[Any, bool], None]:
        def handler(ticks: Any, active: bool) -> None:
            self._edge(seat, device, self.clock.to_ns(ticks), active)

        return handler

    def _edge(self, seat: int, device: str, t_ns: int, active: bool) -> None:
        with self._lock:
            self.edges_seen += 1
            self._active[(seat, device)] = active
            accepted = self.debouncers[(seat, device)].edge(t_ns, active)
            hooks = tuple(self._edge_hooks)
            event = PadEvent(seat, device, t_ns, time.monotonic_ns()) if accepted else None
            subscribers = self.bus.subscribers() if event is not None else ()
            if hooks or subscribers:
                self._outbox.post(
                    lambda: self._deliver(
                        hooks, (seat, device, t_ns, active, accepted), event, subscribers
                    )
                )
        pressed = getattr(self._local, "pressed", None)
        if event is not None and pressed is not None:
            pressed.append(event)
        if not getattr(self._local, "hold", False):
            self._outbox.drain()

    @staticmethod
    def _deliver(
        hooks: tuple[EdgeHook, ...],
        edge: tuple[int, str, int, bool, bool],
        event: PadEvent | None,
        subscribers: tuple[Callable[[PadEvent], None], ...],
    ) -> None:
        """One edge to the listeners registered when it was taken (on the outbox's turn)."""
        for hook in hooks:
            try:
                hook(*edge)
            except Exception:  # a failing recorder must not stop the pads
                log.exception("edge hook %r failed on seat %s %s", hook, edge[0], edge[1])
        if event is not None:  # the bus logs and skips a raising subscriber
            EventBus.deliver(subscribers, event)

    def add_edge_hook(
        self, hook: EdgeHook, *, start: Callable[[Levels], None] | None = None
    ) -> Callable[[], None]:
        """Observe every raw edge (the recorder uses this); returns a remover.

        ``start`` is called first with each input's state (True = pressed), under the same
        lock as the edges: every edge ``hook`` then sees is a change from those states, and
        nothing ``start`` writes can come after an edge — so a recording that begins while a
        pad is held says so in its header and replays exactly. ``start`` runs under the
        table's lock: it must be quick and must not call the table. ``hook`` runs outside it,
        in edge order (see the class); as with a bus subscriber, an edge taken before the
        remover was called may still reach it while it is being delivered."""
        with self._lock:
            if start is not None:
                start(dict(self._active))
            self._edge_hooks.append(hook)

        def remove() -> None:
            with self._lock:
                if hook in self._edge_hooks:
                    self._edge_hooks.remove(hook)

        return remove

    # -- virtual pads -------------------------------------------------------------------
    @property
    def is_virtual(self) -> bool:
        return isinstance(self.factory, NsMockFactory)

    def pin(self, seat: int, device: str) -> NsMockPin:
        """The mock pin behind an input (virtual mode and tests only)."""
        if (seat, device) not in self.inputs:
            wired = ", ".join(f"{s}:{d}" for s, d in self.inputs)
            raise KeyError(f"seat {seat} has no {device!r} wired (wired: {wired})")
        pin = self.inputs[(seat, device)].pin
        if not isinstance(pin, NsMockPin):
            raise HardwareError("pins can only be driven by software on virtual pads")
        return pin

    def drive(self, seat: int, device: str, active: bool, at_ns: int | None = None) -> None:
        """Put an input's line in the pressed (``active``) or released state."""
        level = not active if self.config.pull_up else active
        self.pin(seat, device).drive(level, at_ns)

    def set_state(self, seat: int, device: str, active: bool) -> None:
        """Put a virtual input in a state without an edge: no debounce, no event, no hook.

        A replay starts an input that was held when the recording began held, so that its
        first recorded edge is the release it was on the table (and the release's bounce is
        dropped by the debounce as it was live)."""
        self.pin(seat, device)  # a clear KeyError / HardwareError before anything changes
        button = self.inputs[(seat, device)]
        with self._lock:
            handler, button.on_edge = button.on_edge, None
            try:
                self.drive(seat, device, active)  # gpiozero records the state, nobody hears
            finally:
                button.on_edge = handler
            self._active[(seat, device)] = bool(button.is_active)

    def last_edge_ns(self, seat: int, device: str) -> int | None:
        """The time of the latest edge the input's debounce has seen (None: none yet). The
        recorder reads it from its ``start`` callback, under the table's lock, so that it is
        the state the first recorded edge meets (HW-7)."""
        return self.debouncers[(seat, device)]._last_edge

    def set_last_edge(self, seat: int, device: str, t_ns: int) -> None:
        """Start an input's debounce as if its latest edge came at ``t_ns`` (no edge, no
        event): a replay gives it the edge its recording began after, so that the bounce of a
        release the recording began in is dropped as it was live (HW-7)."""
        debouncer = self.debouncers[(seat, device)]
        with self._lock:
            debouncer._last_edge = t_ns

    def press(
        self, seat: int, device: str = "pad", at_ns: int | None = None, hold_ns: int = 1_000
    ) -> PadEvent | None:
        """Press and release a virtual input; the accepted PadEvent, or None if it was
        debounced away. Safe to call from any thread (web requests)."""
        if device not in INPUTS:
            raise ValueError(f"unknown input {device!r}; inputs are {', '.join(INPUTS)}")
        # The mock pin calls ``_edge`` on this thread: it hands the accepted event back here
        # (not through the bus, whose delivery may be another thread's turn) and holds the
        # delivery until the press lock is released, so no listener runs under it.
        local = self._local
        saved = getattr(local, "pressed", None), getattr(local, "hold", False)
        got: list[PadEvent] = []
        local.pressed, local.hold = got, True
        try:
            with self._press_lock:
                t = at_ns if at_ns is not None else time.monotonic_ns()
                self.drive(seat, device, True, t)
                self.drive(seat, device, False, t + hold_ns)
        finally:
            local.pressed, local.hold = saved
        if not local.hold:
            self._outbox.drain()
        mine = [e for e in got if (e.seat, e.device) == (seat, device)]
        return mine[0] if mine else None

    # -- feedback devices ---------------------------------------------------------------
    def led(self, seat: int) -> LED | None:
        return self.leds.get(seat)

    def close(self) -> None:
        """Close every device, then the pin factory if the table created it (GPIO lines,
        lgpio's chip handle and its callback thread). Safe to call twice."""
        devices: list[Any] = [*self.inputs.values(), *self.leds.values()]
        if self.buzzer is not None:
            devices.append(self.buzzer)
        for device in devices:
            device.close()
        self.inputs.clear()
        self.leds.clear()
        self.buzzer = None
        if self._own_factory:
            self._own_factory = False
            self.factory.close()

    def __enter__(self) -> Table:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
