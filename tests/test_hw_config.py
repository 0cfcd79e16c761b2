"""The [hardware] pin map: loaded from TOML, bad maps rejected naming the entry."""

from __future__ import annotations

import pytest

from hardware.config import (
    DEFAULT_MAP,
    PinMapError,
    default_config,
    load_config,
    parse_hardware,
    parse_toml,
)

GOOD = """
[web]
port = 8080

[hardware]
mode = "virtual"
buzzer = 12
debounce_ms = 3
pull_up = true

[hardware.seats]
0 = { pad = 4, call = 17, led = 27 }
1 = { pad = "GPIO22", call = "BCM10" }
3 = { call = 5 }
"""


def test_good_map_loads_with_pins_and_settings():
    config = parse_toml(GOOD)
    assert config.mode == "virtual" and config.buzzer == 12 and config.debounce_ns == 3_000_000
    assert config.seat_numbers == (0, 1, 3)
    assert config.seat(1).pad == 22 and config.seat(1).call == 10 and config.seat(1).led is None
    assert config.inputs() == [(0, "pad", 4), (0, "call", 17), (1, "pad", 22), (1, "call", 10),
                               (3, "call", 5)]  # fmt: skip
    assert parse_hardware(config.to_dict()) == config  # the pad-log header round-trips


def test_default_map_is_valid_and_used_without_a_section():
    config = default_config()
    assert len(config.seats) == 6 and config.buzzer == DEFAULT_MAP["buzzer"]
    pins = [p for s in config.seats for p in s.to_dict().values()] + [config.buzzer]
    assert len(set(pins)) == len(pins)
    assert parse_toml("[web]\nport = 8080\n") == config


def test_load_config_reads_file_and_env(tmp_path, monkeypatch):
    path = tmp_path / "tabletop.toml"
    path.write_text(GOOD, encoding="utf-8")
    assert load_config(path).seat_numbers == (0, 1, 3)
    monkeypatch.setenv("TABLETOP_CONFIG", str(path))
    assert load_config().mode == "virtual"
    with pytest.raises(PinMapError, match="no such config file"):
        load_config(tmp_path / "missing.toml")


def _seats(**seats):
    return {"seats": {k.lstrip("s"): v for k, v in seats.items()}}


@pytest.mark.parametrize(
    ("section", "message"),
    [
        (
            _seats(s0={"pad": 4}, s1={"pad": 4}),
            r"hardware\.seats\.1\.pad: BCM 4 is already used "
            r"by hardware\.seats\.0\.pad",
        ),
        (
            _seats(s0={"pad": 4, "led": 4}),
            r"seats\.0\.led: BCM 4 is already used by "
            r"hardware\.seats\.0\.pad",
        ),
        ({**_seats(s0={"pad": 12}), "buzzer": 12}, r"hardware\.buzzer: BCM 12 is already used"),
        (_seats(s0={"pad": 0}), r"hardware\.seats\.0\.pad: BCM 0 is reserved: ID_SD"),
        (_seats(s2={"call": 1}), r"hardware\.seats\.2\.call: BCM 1 is reserved"),
        (_seats(s0={"pad": 14}), r"seats\.0\.pad: BCM 14 is reserved: TXD0.*free_pins"),
        (_seats(s0={"pad": 2}), r"BCM 2 is reserved: SDA1"),
        (_seats(s0={"pad": 31}), r"seats\.0\.pad: BCM 31 is not a GPIO"),
        (_seats(s0={"pad": "pin seven"}), r"seats\.0\.pad: 'pin seven' is not a pin"),
        (_seats(s0={"pad": True}), r"seats\.0\.pad: True is not a pin"),
        ({"seats": {"seven": {"pad": 4}}}, r"hardware\.seats\.seven: unknown seat 'seven'"),
        ({"seats": {"12": {"pad": 4}}}, r"hardware\.seats\.12: unknown seat 12"),
        ({"seats": {"1": {"pad": 4}, "01": {"pad": 5}}}, r"seat 1 is listed twice"),
        (_seats(s0={"padd": 4}), r"hardware\.seats\.0\.padd: unknown device 'padd'"),
        (_seats(s0={"led": 4}), r"hardware\.seats\.0: needs a pad or a call button"),
        (_seats(s0=4), r"hardware\.seats\.0: must be a table"),
        ({"seats": {}}, r"hardware\.seats: needs at least one seat"),
        ({**_seats(s0={"pad": 4}), "buzzr": 12}, r"hardware\.buzzr: unknown setting"),
        ({**_seats(s0={"pad": 4}), "mode": "gpi"}, r"hardware\.mode: 'gpi' must be one of"),
        ({**_seats(s0={"pad": 4}), "debounce_ms": 500}, r"hardware\.debounce_ms"),
        ({**_seats(s0={"pad": 4}), "pull_up": "yes"}, r"hardware\.pull_up"),
        ({**_seats(s0={"pad": 4}), "free_pins": [0]}, r"BCM 0 is ID_SD .* cannot be freed"),
        ({**_seats(s0={"pad": 4}), "free_pins": 14}, r"hardware\.free_pins: must be a list"),
    ],
)
def test_bad_pin_maps_rejected_naming_the_entry(section, message):
    with pytest.raises(PinMapError, match=message):
        parse_hardware(section)


def test_freed_optional_pin_is_usable():
    config = parse_hardware({**_seats(s0={"pad": 14}), "free_pins": [14]})
    assert config.seat(0).pad == 14


def test_invalid_toml_names_the_file():
    with pytest.raises(PinMapError, match=r"tabletop\.toml: not valid TOML"):
        parse_toml("[hardware\nmode = 1")
