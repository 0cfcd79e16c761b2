"""Review 33 of the hardware layer: maps that validated but could not open, pads that were
silently virtual on a Pi, a missing $TABLETOP_CONFIG, `hw test`'s scripted latencies and its
end of input, and closing gpiozero's default factory."""

from __future__ import annotations

import io
import os
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from gpiozero import LED, Device
from gpiozero.exc import PinFactoryFallback
from gpiozero.pins.mock import MockFactory

import hardware.table as table_module
from hardware.config import PinMapError, default_config, load_config, parse_hardware, parse_toml
from hardware.hwtest import play_script
from hardware.mockpins import NsMockFactory
from hardware.service import PadsService
from hardware.table import HardwareError, Table
from referee.cli import build_parser, main


@pytest.fixture
def default_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    """gpiozero's default factory is a MockFactory made on first use (as lgpio on a Pi)."""
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    monkeypatch.setattr(Device, "pin_factory", None)


def _fake_dev(monkeypatch: pytest.MonkeyPatch, dev: Path, *, usable: bool) -> None:
    """/dev is ``dev``; its gpiochips are readable and writable only when ``usable``."""
    real_path, real_access = table_module.Path, os.access

    def path(p: Any, *rest: Any) -> Path:
        return dev if str(p) == "/dev" else real_path(p, *rest)

    def access(p: Any, mode: int) -> bool:
        return usable if str(p).startswith(str(dev)) else real_access(p, mode)

    monkeypatch.setattr(table_module, "Path", path)
    monkeypatch.setattr(table_module.os, "access", access)


# -- 1. auto mode on a Pi whose gpiochip this user cannot open ---------------------------------
def test_auto_mode_refuses_a_gpiochip_this_user_cannot_open(tmp_path, monkeypatch):
    """Before: virtual pads, the real ones dead, the dashboard saying "Virtual pads"."""
    (tmp_path / "gpiochip0").touch()
    _fake_dev(monkeypatch, tmp_path, usable=False)
    with pytest.raises(HardwareError, match="gpiochip0 exists but this user cannot open it") as e:
        Table.open(default_config())
    assert "add the user to the gpio group" in str(e.value) and 'mode = "virtual"' in str(e.value)


def test_auto_mode_without_a_gpiochip_is_virtual(tmp_path, monkeypatch):
    _fake_dev(monkeypatch, tmp_path, usable=False)
    with Table.open(default_config()) as table:
        assert table.mode == "virtual" and table.is_virtual


def _announced(pads: object | None, capsys: pytest.CaptureFixture[str]) -> str:
    from web.commands import _announce

    cfg = SimpleNamespace(host="127.0.0.1", port=8080, db_path="t.db", models_dir=None, pads=pads)
    services = SimpleNamespace(referee=None, settings=SimpleNamespace(pin_is_set=True))
    _announce(cfg, services)
    return capsys.readouterr().out


def test_serve_says_which_pads_it_uses(capsys):
    """Before: nothing said whether the table's real pads were in use."""
    assert "Pads: virtual pads (tap them on the dashboard): the table's pads are not in use" in (
        _announced(None, capsys)
    )
    pads = PadsService(Table.open(default_config("virtual"), "virtual"))
    try:
        assert "Pads: virtual pads (tap them on the dashboard)\n" in _announced(pads, capsys)
    finally:
        pads.close()
    real = parse_hardware({**default_config().to_dict(), "mode": "gpio", "pin_factory": "mock"})
    pads = PadsService(Table.open(real))
    try:
        assert "Pads: real GPIO pads (pin factory mock)\n" in _announced(pads, capsys)
    finally:
        pads.close()


# -- 2. $TABLETOP_CONFIG naming a missing file -------------------------------------------------
def test_a_missing_file_named_by_tabletop_config_is_an_error(tmp_path, monkeypatch, capsys):
    """Before: the default map, whose output pins may carry switches on a custom table."""
    missing = tmp_path / "tabletop.tmol"
    monkeypatch.setenv("TABLETOP_CONFIG", str(missing))
    with pytest.raises(PinMapError, match=f"TABLETOP_CONFIG names {missing}: no such config file"):
        load_config()
    assert main(["hw", "pins"]) == 2
    err = capsys.readouterr().err
    assert err == f"tabletop hw pins: TABLETOP_CONFIG names {missing}: no such config file\n"
    from web.commands import _config

    assert _config(build_parser().parse_args(["serve"]), "serve") is None
    err = capsys.readouterr().err
    assert err == f"tabletop serve: TABLETOP_CONFIG names {missing}: no such config file\n"


def test_a_backup_of_a_named_database_goes_on_without_the_missing_config(
    tmp_path, monkeypatch, capsys
):
    """A nightly backup sharing the service's environment needs nothing from the file when
    --db names the database: it says the file is missing and goes on; without --db it stops
    (the database would be the default one, not the family's)."""
    from web.commands import _config

    missing = tmp_path / "tabletop.tmol"
    monkeypatch.setenv("TABLETOP_CONFIG", str(missing))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tabletop.toml").write_text("[web]\nport = 1\n", encoding="utf-8")  # not read
    db = tmp_path / "family.db"
    cfg = _config(build_parser().parse_args(["backup", "--db", str(db)]), "backup")
    assert cfg is not None and cfg.db_path == db and cfg.port != 1
    assert capsys.readouterr().err == (
        f"tabletop backup: TABLETOP_CONFIG names {missing}: no such config file"
        " (not needed with --db)\n"
    )
    assert _config(build_parser().parse_args(["backup"]), "backup") is None


def test_an_empty_config_file_gives_the_default_map(tmp_path, monkeypatch):
    """As docs/HARDWARE.md says for the service unit's file."""
    for text in ("", "[web]\nport = 9191\n"):
        (tmp_path / "etc.toml").write_text(text, encoding="utf-8")
        monkeypatch.setenv("TABLETOP_CONFIG", str(tmp_path / "etc.toml"))
        assert load_config() == default_config()


def test_hw_pins_names_the_file_it_read_the_factory_and_the_free_pins(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.delenv("TABLETOP_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["hw", "pins"]) == 0
    assert capsys.readouterr().out.startswith("(no config file: the default map)\n")
    toml = tmp_path / "pads.toml"
    toml.write_text(
        '[hardware]\npin_factory = "lgpio"\nfree_pins = [14, 15]\n'
        "[hardware.seats]\n0 = { pad = 14, call = 15 }\n",
        encoding="utf-8",
    )
    assert main(["hw", "pins", "--config", str(toml)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"config {toml}\n")
    assert "pin factory lgpio, free pins BCM14, BCM15\n" in out


# -- 3. maps that validated but could not open -------------------------------------------------
@pytest.mark.parametrize("device", ["pad", "call"])
def test_an_input_on_the_i2c_pins_needs_their_pull_up(device):
    """Before: ``hw pins`` passed it; opening it failed with the normal-user hint."""
    section = {"pull_up": False, "free_pins": [2, 3], "seats": {"0": {device: 3, "led": 2}}}
    with pytest.raises(PinMapError, match=rf"^hardware\.seats\.0\.{device}: BCM 3 \(I2C\) has a"):
        parse_hardware(section)
    parse_hardware({**section, "pull_up": True})  # the pull-up they have: fine
    parse_hardware({**section, "seats": {"0": {device: 4, "led": 2}}})  # an LED: fine


def test_a_pin_another_program_holds_is_named_as_such(default_factory):
    """Before: "see docs/HARDWARE.md 'Running as a normal user'" for a pin in use."""
    stray = LED(7)  # seat 5's LED pin
    try:
        with pytest.raises(HardwareError) as e:
            Table.open(default_config("gpio"))
    finally:
        stray.close()
    assert "another program holds the pins (is `tabletop serve` running?)" in str(e.value)
    assert "Running as a normal user" not in str(e.value)


@pytest.mark.parametrize(
    ("error", "hint"), [(PermissionError(13, "Permission denied"), True), (RuntimeError(), False)]
)
def test_the_normal_user_hint_only_for_permission_errors(monkeypatch, error, hint):
    def refuse(self: MockFactory, spec: Any, **kwargs: Any) -> Any:
        raise error

    monkeypatch.setattr(MockFactory, "pin", refuse)
    config = parse_hardware({**default_config().to_dict(), "mode": "gpio", "pin_factory": "mock"})
    with pytest.raises(HardwareError, match="cannot open the GPIO pins") as e:
        Table.open(config)
    assert ("Running as a normal user" in str(e.value)) is hint


@pytest.mark.parametrize(("mode", "factory"), [("gpio", None), ("gpio", "lgpio"), ("auto", None)])
def test_gpio_without_lgpio_says_so(tmp_path, monkeypatch, recwarn, mode, factory):
    """Before: four PinFactoryFallback warnings, then "Unable to load any default pin
    factory!" with the normal-user hint."""
    import hardware.lgpio_workdir

    monkeypatch.setattr(hardware.lgpio_workdir, "import_lgpio", lambda: False)
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(Device, "pin_factory", None)
    (tmp_path / "gpiochip0").touch()
    _fake_dev(monkeypatch, tmp_path, usable=True)
    section = {**default_config().to_dict(), "mode": mode}
    if factory is not None:
        section["pin_factory"] = factory
    with pytest.raises(HardwareError, match=r"^lgpio is not installed: install it"):
        Table.open(parse_hardware(section))
    assert not [w for w in recwarn if issubclass(w.category, PinFactoryFallback)]


def test_an_unknown_pin_factory_is_refused_on_load(tmp_path, capsys):
    """Before: ``hw pins`` exit 0; the typo surfaced only when the pins were opened."""
    text = '[hardware]\npin_factory = "lgpoi"\n[hardware.seats]\n0 = { pad = 4 }\n'
    with pytest.raises(PinMapError, match=r"^hardware\.pin_factory: 'lgpoi' is not a gpiozero pin"):
        parse_toml(text)
    toml = tmp_path / "typo.toml"
    toml.write_text(text, encoding="utf-8")
    assert main(["hw", "pins", "--config", str(toml)]) == 2
    assert "known: lgpio, mock, native, pigpio, rpigpio" in capsys.readouterr().err
    assert parse_toml(text.replace("lgpoi", "lgpio")).pin_factory == "lgpio"


# -- 4. scripted presses stamped ahead of the clock --------------------------------------------
def test_scripted_presses_are_never_stamped_ahead_of_the_clock(monkeypatch):
    """Before: each press was stamped at the previous one's end plus the gap, but the script
    slept only the gap: the stamps ran ahead of the clock, further each press, and ``hw test``
    showed negative edge → event latencies. (``sleep`` returning at once makes it certain.)"""
    import hardware.hwtest

    monkeypatch.setattr(hardware.hwtest.time, "sleep", lambda s: None)
    with Table(default_config("virtual"), NsMockFactory()) as table:
        events: list[Any] = []
        table.bus.subscribe(events.append)
        play_script(table, list(table.inputs), bounces=3)
    assert len(events) == len(table.config.inputs())
    assert all(e.latency_ns >= 0 for e in events), [e.latency_ns for e in events]
    stamps = [e.t_ns for e in events]
    assert stamps == sorted(stamps)


# -- 5. interactive virtual test at the end of its input ---------------------------------------
def test_hw_test_on_virtual_pads_ends_with_its_input(monkeypatch, capsys):
    """Before: it waited the whole timeout after the last line, then said "check wiring"."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("0 pad\n0 call\n"))
    result: list[int] = []
    worker = threading.Thread(target=lambda: result.append(main(["hw", "test", "--mock"])))
    worker.start()
    worker.join(timeout=60)  # --timeout is 120 s: ended well before, by the end of input
    assert not worker.is_alive()
    out = capsys.readouterr().out
    assert result == [1] and "check wiring" not in out
    assert "NOT SEEN: 1:pad, 1:call, 2:pad" in out and "— not pressed (virtual pads)\n" in out


def test_hw_test_on_real_pads_still_says_check_wiring(capsys):
    config = parse_hardware({"mode": "gpio", "pin_factory": "mock", "seats": {"0": {"pad": 4}}})
    from hardware.hwtest import run_hw_test

    out = io.StringIO()
    with Table.open(config) as table:
        assert run_hw_test(table, out, timeout_s=0.2) == 1
    assert "NOT SEEN: 0:pad — check wiring (docs/HARDWARE.md)" in out.getvalue()


# -- 6. gpiozero's default factory is gpiozero's ---------------------------------------------
def test_the_default_factory_is_left_to_gpiozero_and_a_reopen_works(default_factory):
    """docs/HARDWARE.md said Table.close() closed the factory Table.open chose; gpiozero's
    default (``pin_factory`` unset) is shared by the program, so the table leaves it open."""
    stray = LED(20)  # another device of the program, on no pin of the default map
    try:
        factory = Device.pin_factory
        with Table.open(default_config("gpio")) as table:
            assert table.factory is factory
        assert Device.pin_factory is factory
        stray.on()  # still works
        assert stray.is_lit
        with Table.open(default_config("gpio")) as again:  # the same pins open again
            assert len(again.inputs) == 12 and again.factory is factory
    finally:
        stray.close()
