"""The pin map: which BCM pin each seat's slap pad, call button and LED use.

Read from the ``[hardware]`` section of the project's TOML config (``tabletop.toml``) and
validated on load, so a wiring mistake is a clear message naming the entry at start-up,
not a silent dead pad in the middle of a game::

    [hardware]
    mode = "auto"          # auto | gpio | virtual
    buzzer = 12            # false: none; left out: 12 only if seats are left out too
    debounce_ms = 5
    pull_up = true         # pads/buttons switch to GND; the Pi's pull-up holds them high

    [hardware.seats]
    0 = { pad = 4, call = 17, led = 27 }
    1 = { pad = 22, call = 10, led = 9 }

Every setting left out takes the default map's (``DEFAULT_MAP``), seats included, but
a map with its own seats and no ``buzzer`` has no buzzer.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

INPUTS = ("pad", "call")  # devices that produce events
DEVICES = (*INPUTS, "led")
MODES = ("auto", "gpio", "virtual")
MAX_SEATS = 10
GPIO_PINS = range(0, 28)  # BCM numbers on the 40-pin header
# Never usable: the HAT ID EEPROM bus is read by the firmware at boot.
RESERVED = {0: "ID_SD (HAT EEPROM data)", 1: "ID_SC (HAT EEPROM clock)"}
# Usable only when listed in ``free_pins``: they carry I2C and the serial console.
OPTIONAL_RESERVED = {
    2: "SDA1 (I2C data; has a fixed 1.8 kΩ pull-up)",
    3: "SCL1 (I2C clock; has a fixed 1.8 kΩ pull-up)",
    14: "TXD0 (serial console)",
    15: "RXD0 (serial console)",
}
# An input there cannot have ``pull_up = false``: the board's resistor always pulls it up.
FIXED_PULL_UP = (2, 3)
# gpiozero's own factories: the names to check ``pin_factory`` against where its package
# metadata lists none (a third-party factory registers its own entry point there).
GPIOZERO_FACTORIES = ("lgpio", "mock", "native", "pigpio", "rpigpio")
CONFIG_ENV = "TABLETOP_CONFIG"
DEFAULT_CONFIG_FILE = "tabletop.toml"
# The config file's sections: this package's and the dashboard's (``web.config``).
SECTIONS = ("hardware", "web")
HARDWARE_KEYS = ("buzzer", "debounce_ms", "free_pins", "mode", "pin_factory", "pull_up", "seats")


class PinMapError(ValueError):
    """The ``[hardware]`` section is wrong; the message names the entry (e.g.
    ``hardware.seats.2.call``) and what to change."""


@dataclass(frozen=True)
class SeatPins:
    seat: int
    pad: int | None = None
    call: int | None = None
    led: int | None = None

    def pin(self, device: str) -> int | None:
        if device not in DEVICES:
            raise KeyError(device)
        return getattr(self, device)

    def to_dict(self) -> dict[str, int]:
        return {d: p for d in DEVICES if (p := self.pin(d)) is not None}


@dataclass(frozen=True)
class HardwareConfig:
    seats: tuple[SeatPins, ...]
    buzzer: int | None = None
    mode: str = "auto"
    pull_up: bool = True
    debounce_ms: float = 5.0
    pin_factory: str | None = None  # a gpiozero factory name; None = gpiozero's default
    free_pins: tuple[int, ...] = field(default=())

    @property
    def debounce_ns(self) -> int:
        return round(self.debounce_ms * 1_000_000)

    @property
    def seat_numbers(self) -> tuple[int, ...]:
        return tuple(s.seat for s in self.seats)

    def seat(self, seat: int) -> SeatPins:
        for pins in self.seats:
            if pins.seat == seat:
                return pins
        raise KeyError(f"seat {seat} has no pins in the [hardware] map")

    def inputs(self) -> list[tuple[int, str, int]]:
        """Every wired input as (seat, device, pin), in seat order."""
        return [(s.seat, d, p) for s in self.seats for d in INPUTS if (p := s.pin(d)) is not None]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "mode": self.mode,
            "pull_up": self.pull_up,
            "debounce_ms": self.debounce_ms,
            "seats": {str(s.seat): s.to_dict() for s in self.seats},
        }
        if self.buzzer is not None:
            out["buzzer"] = self.buzzer
        if self.pin_factory is not None:
            out["pin_factory"] = self.pin_factory
        if self.free_pins:
            out["free_pins"] = list(self.free_pins)
        return out


# Six seats, avoiding the reserved and optional-reserved pins; see docs/HARDWARE.md.
DEFAULT_MAP: dict[str, Any] = {
    "mode": "auto",
    "buzzer": 12,
    "seats": {
        "0": {"pad": 4, "call": 17, "led": 27},
        "1": {"pad": 22, "call": 10, "led": 9},
        "2": {"pad": 11, "call": 5, "led": 6},
        "3": {"pad": 13, "call": 19, "led": 26},
        "4": {"pad": 18, "call": 23, "led": 24},
        "5": {"pad": 25, "call": 8, "led": 7},
    },
}


def _ascii_digits(text: str) -> bool:
    """Digits ``int()`` reads: ``str.isdigit`` also accepts "²" and other Unicode digits,
    which ``int()`` then refuses with a traceback instead of a PinMapError."""
    return text.isascii() and text.isdigit()


def _pin(value: Any, where: str) -> int:
    if isinstance(value, str):
        text = value.strip().upper()
        for prefix in ("GPIO", "BCM"):
            if text.startswith(prefix) and _ascii_digits(text[len(prefix) :]):
                value = int(text[len(prefix) :])
                break
        else:
            raise PinMapError(f"{where}: {value!r} is not a pin; write a BCM number such as 17")
    if not isinstance(value, int) or isinstance(value, bool):
        raise PinMapError(f"{where}: {value!r} is not a pin; write a BCM number such as 17")
    if value not in GPIO_PINS:
        raise PinMapError(
            f"{where}: BCM {value} is not a GPIO on the 40-pin header (use 0–27, BCM numbering)"
        )
    return value


def _seat_number(key: Any, where: str) -> int:
    text = str(key).strip()
    if not _ascii_digits(text):
        raise PinMapError(f"{where}: unknown seat {key!r}; seats are numbered 0–{MAX_SEATS - 1}")
    seat = int(text)
    if seat >= MAX_SEATS:
        raise PinMapError(f"{where}: unknown seat {seat}; seats are numbered 0–{MAX_SEATS - 1}")
    return seat


def parse_hardware(section: Mapping[str, Any], origin: str = "hardware") -> HardwareConfig:
    """Validate a ``[hardware]`` table (as loaded from TOML) into a HardwareConfig."""
    if not isinstance(section, Mapping):
        raise PinMapError(f"{origin}: must be a table")
    known = set(HARDWARE_KEYS)
    unknown = sorted(set(section) - known)
    if unknown:
        raise PinMapError(
            f"{origin}.{unknown[0]}: unknown setting; known: {', '.join(sorted(known))}"
        )
    mode = section.get("mode", "auto")
    if mode not in MODES:
        raise PinMapError(f"{origin}.mode: {mode!r} must be one of {', '.join(MODES)}")
    pull_up = section.get("pull_up", True)
    if not isinstance(pull_up, bool):
        raise PinMapError(f"{origin}.pull_up: must be true or false, got {pull_up!r}")
    debounce = section.get("debounce_ms", 5.0)
    if (
        not isinstance(debounce, int | float)
        or isinstance(debounce, bool)
        or not (0 <= debounce <= 100)
    ):
        raise PinMapError(f"{origin}.debounce_ms: must be a number 0–100, got {debounce!r}")
    factory = section.get("pin_factory")
    if factory is not None and not isinstance(factory, str):
        raise PinMapError(f"{origin}.pin_factory: must be a gpiozero factory name such as 'lgpio'")
    free_raw = section.get("free_pins", [])
    if not isinstance(free_raw, list):
        raise PinMapError(f"{origin}.free_pins: must be a list of BCM numbers")
    free = tuple(_pin(p, f"{origin}.free_pins") for p in free_raw)
    for p in free:
        if p in RESERVED:
            raise PinMapError(f"{origin}.free_pins: BCM {p} is {RESERVED[p]} and cannot be freed")

    used: dict[int, str] = {}

    def claim(pin: int, where: str) -> int:
        if pin in RESERVED:
            raise PinMapError(f"{where}: BCM {pin} is reserved: {RESERVED[pin]}; use another pin")
        if pin in OPTIONAL_RESERVED and pin not in free:
            raise PinMapError(
                f"{where}: BCM {pin} is reserved: {OPTIONAL_RESERVED[pin]}; use another pin, "
                f"or list {pin} in {origin}.free_pins if that function is off"
            )
        if pin in used:
            raise PinMapError(f"{where}: BCM {pin} is already used by {used[pin]}")
        used[pin] = where
        return pin

    # no seats table: the default map's seats (and its buzzer, below), as with no section
    seats_raw = section.get("seats", DEFAULT_MAP["seats"])
    if not isinstance(seats_raw, Mapping) or not seats_raw:
        raise PinMapError(f"{origin}.seats: needs at least one seat, e.g. 0 = {{ pad = 4 }}")
    seats: dict[int, SeatPins] = {}
    # a clash names a seat the user never wrote: say it is the default map's
    mapped = "" if "seats" in section else " (the default map's: no seats are given)"
    for key in sorted(seats_raw, key=lambda k: str(k).zfill(3)):
        where = f"{origin}.seats.{key}"
        seat = _seat_number(key, where)
        if seat in seats:
            raise PinMapError(f"{where}: seat {seat} is listed twice")
        entry = seats_raw[key]
        if not isinstance(entry, Mapping):
            raise PinMapError(
                f"{where}: must be a table such as {{ pad = 4, call = 17, led = 27 }}"
            )
        bad = sorted(set(entry) - set(DEVICES))
        if bad:
            raise PinMapError(
                f"{where}.{bad[0]}: unknown device {bad[0]!r}; known: {', '.join(DEVICES)}"
            )
        pins = {d: claim(_pin(entry[d], f"{where}.{d}"), f"{where}.{d}{mapped}") for d in entry}
        if not any(d in pins for d in INPUTS):
            raise PinMapError(f"{where}: needs a pad or a call button")
        if not pull_up:
            _check_no_fixed_pull(pins, where, origin)
        seats[seat] = SeatPins(seat, **pins)
    buzzer = _buzzer(section, origin)
    if buzzer is not None:
        buzzer = claim(buzzer, f"{origin}.buzzer")
    return HardwareConfig(
        seats=tuple(seats[s] for s in sorted(seats)),
        buzzer=buzzer,
        mode=mode,
        pull_up=pull_up,
        debounce_ms=float(debounce),
        pin_factory=factory,
        free_pins=free,
    )


def _buzzer(section: Mapping[str, Any], origin: str) -> int | None:
    """The buzzer's pin; None for none. Left out, it is the default map's only where the
    seats are too: a table wired to its own seats may have no buzzer, and driving BCM 12
    there could drive whatever is on it (a pad log's header, which never names a missing
    buzzer, reads back the same). ``buzzer = false`` says "none" with the default seats."""
    if "buzzer" not in section:
        return DEFAULT_MAP["buzzer"] if "seats" not in section else None
    value = section["buzzer"]
    if value is False:
        return None
    if value is True:
        raise PinMapError(
            f"{origin}.buzzer: true is not a pin; write a BCM number such as 12, "
            "or false for no buzzer"
        )
    return _pin(value, f"{origin}.buzzer")


def _check_no_fixed_pull(pins: Mapping[str, int], where: str, origin: str) -> None:
    """With ``pull_up = false`` an input switches to 3.3 V against a pull-down: on BCM 2/3
    the board's fixed pull-up holds it high for ever, and gpiozero refuses to open it."""
    for device in INPUTS:
        pin = pins.get(device)
        if pin in FIXED_PULL_UP:
            raise PinMapError(
                f"{where}.{device}: BCM {pin} (I2C) has a fixed 1.8 kΩ pull-up: it cannot be "
                f"an input with {origin}.pull_up = false; use another pin"
            )


def pin_factory_names() -> tuple[str, ...]:
    """The factory names gpiozero accepts here: its ``gpiozero_pin_factories`` entry points
    (read from package metadata, gpiozero is not imported)."""
    from importlib.metadata import entry_points

    names = {ep.name for ep in entry_points(group="gpiozero_pin_factories")}
    return tuple(sorted(names or GPIOZERO_FACTORIES))


def check_pin_factory(config: HardwareConfig, origin: str = "hardware") -> HardwareConfig:
    """Refuse a ``pin_factory`` this machine's gpiozero does not know (a typo such as
    "lgpoi"), when the config is loaded rather than when the pins are opened. Not part of
    ``parse_hardware``: a pad log's header names the factory of the machine it was
    recorded on, which a replay elsewhere never opens."""
    known = pin_factory_names()
    if config.pin_factory is not None and config.pin_factory not in known:
        raise PinMapError(
            f"{origin}.pin_factory: {config.pin_factory!r} is not a gpiozero pin factory; "
            f"known: {', '.join(known)} (leave it out for gpiozero's default, lgpio)"
        )
    return config


def default_config(mode: str | None = None) -> HardwareConfig:
    section = dict(DEFAULT_MAP)
    if mode is not None:
        section["mode"] = mode
    return parse_hardware(section)


def parse_toml(text: str, origin: str = "tabletop.toml") -> HardwareConfig:
    """The ``[hardware]`` section of a whole config file; the default map if it has none."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PinMapError(f"{origin}: not valid TOML: {exc}") from None
    except RecursionError:  # arrays nested thousands deep: no config
        raise PinMapError(f"{origin}: nested too deeply to be a config") from None
    check_sections(data, origin)
    if "hardware" not in data:
        return default_config()
    return check_pin_factory(parse_hardware(data["hardware"]))


def check_sections(
    data: Mapping[str, Any],
    origin: str,
    error: type[ValueError] = PinMapError,
    web_keys: Collection[str] = (),
) -> None:
    """Refuse a top-level key of the config file that is no section: a misspelt header
    (``[Web]``, ``[hardwre]``) or keys above any header were ignored, and the server ran on
    the defaults (another database, the default pin map). Shared by every reader of the
    file; ``web_keys`` (the dashboard's settings) lets a stray key say where it belongs."""
    for key, value in data.items():
        if key in SECTIONS:
            continue
        if not isinstance(value, Mapping):
            raise error(f"{key!r} is outside any section: put it under {_home(key, web_keys)}")
        raise error(
            f"unknown section {key!r} in {origin}{_did_you_mean(key)}; known: {', '.join(SECTIONS)}"
        )


def _home(key: str, web_keys: Collection[str]) -> str:
    """The section a stray setting ``key`` belongs under (``seats``, a number, is the
    dashboard's: the pin map's ``seats`` is a table)."""
    if key in web_keys or key == "seats":
        return "[web]"
    if key in HARDWARE_KEYS:
        return "[hardware]"
    return "[hardware] or [web]"


def _did_you_mean(key: str) -> str:
    """`` (did you mean 'web'?)`` for a section name close to a known one, else nothing."""
    if key in HARDWARE_KEYS:  # [seats] for [hardware.seats]
        return f" (did you mean [hardware.{key}]?)"
    close = difflib.get_close_matches(key.lower(), SECTIONS, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def config_path(
    path: str | os.PathLike[str] | None = None, error: type[ValueError] = PinMapError
) -> Path:
    """The config file: ``path``, else $TABLETOP_CONFIG, else ./tabletop.toml. An empty
    $TABLETOP_CONFIG is a slip, as ``--config ""`` and ``TABLETOP_DB=`` are (CLI-6): never
    ./tabletop.toml or the defaults in its place."""
    if path:
        return Path(path)
    named = os.environ.get(CONFIG_ENV)
    if named == "":
        raise error(f"{CONFIG_ENV} is empty: name the config file, or unset it")
    return Path(named or DEFAULT_CONFIG_FILE)


def find_config(path: str | os.PathLike[str] | None = None) -> Path | None:
    """The config file to read, or None for the default map (no ./tabletop.toml). A file
    named by ``path`` or $TABLETOP_CONFIG must exist: a typo in a service unit would
    otherwise drive the default map's output pins on a table wired otherwise."""
    file = config_path(path)
    if file.exists():
        return file
    if path is not None:
        raise PinMapError(f"{file}: no such config file")
    if os.environ.get(CONFIG_ENV):
        raise PinMapError(f"{CONFIG_ENV} names {file}: no such config file")
    return None


def load_config(path: str | os.PathLike[str] | None = None) -> HardwareConfig:
    """Read and validate the pin map; no ./tabletop.toml means the default map."""
    file = find_config(path)
    if file is None:
        return default_config()
    try:
        text = file.read_text(encoding="utf-8-sig")  # Notepad may have put a BOM first
    except OSError as exc:  # a folder, no permission
        raise PinMapError(f"{file}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise PinMapError(f"{file}: not a text file (a TOML config is UTF-8 text)") from None
    return parse_toml(text, str(file))
