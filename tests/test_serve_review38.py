"""``tabletop serve`` and its config file, slips found on day 38: a camera index OpenCV crashes
on (``cam:-1``), more seats than the calibration page has zones, a misspelt section header
read as "no settings", one server thread a tablet's stream could hold, a ``pad_events``
device the dashboard never names, an IPv6 address printed as no URL, an empty
``TABLETOP_CONFIG`` read as unset, and the docs' order of the database settings.

No test here opens a camera: OpenCV's capture is replaced by a stub, so that the old code's
``VideoCapture(-1)`` (a segfault) never runs in the test process.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import waitress

import vision.table.frames as frames
import web.commands
from hardware.config import PinMapError, load_config
from referee.cli import main
from tests.test_cli_fresh_eyes import one_line
from tests.test_cli_polish import _Server
from vision.table.frames import CameraError, open_source
from web.commands import tablet_host
from web.config import ConfigError, WebConfig, load_file
from web.services.zones import MAX_SEATS

REPO = Path(__file__).resolve().parent.parent


class _NoCamera:
    """OpenCV's capture as a stub: records the index asked for, opens nothing."""

    opened: list[int] = []

    def __init__(self, device: int) -> None:
        _NoCamera.opened.append(device)
        raise CameraError(f"no camera {device} (stub)")


@pytest.fixture(autouse=True)
def no_opencv_capture(monkeypatch: pytest.MonkeyPatch) -> None:
    _NoCamera.opened = []
    monkeypatch.setattr(frames, "OpenCVCameraSource", _NoCamera)


def _serve(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *args: str,
    env: dict[str, str] | None = None,
) -> tuple[int, str, str]:
    """``tabletop serve --db t.db ARGS`` in ``tmp_path`` up to the server's loop, which ends
    at once, with ``env`` set (and TABLETOP_CONFIG / TABLETOP_DB otherwise unset)."""
    monkeypatch.chdir(tmp_path)
    for name in ("TABLETOP_CONFIG", "TABLETOP_DB"):
        monkeypatch.delenv(name, raising=False)
    for name, value in (env or {}).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(waitress, "create_server", lambda app, **kw: _Server())
    monkeypatch.setattr(web.commands, "_stop_on_sigterm", lambda: None)
    code = main(["serve", "--db", str(tmp_path / "t.db"), *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _web(tmp_path: Path, text: str) -> WebConfig:
    path = tmp_path / "tabletop.toml"
    path.write_text(text)
    return load_file(path, WebConfig(db_path=tmp_path / "t.db"))


# -- 1. cam:N is a camera index OpenCV can take -----------------------------------------------
@pytest.mark.parametrize(
    "spec", ["cam:-1", "cam:99999999999999999999", "cam:100", "cam: 1", "cam:+1", "cam:²", "cam:"]
)
def test_a_camera_index_outside_0_to_99_is_refused_before_any_capture(spec: str) -> None:
    """Before: ``int()`` took -1 (OpenCV's "any camera": a segfault a second after serve
    started) and 10**20 (a traceback in the capture thread, shown on the dashboard)."""
    with pytest.raises(CameraError) as refused:
        open_source(spec)
    assert str(refused.value) == f"bad camera spec {spec!r}: expected cam:N, N = 0, 1, … 99"
    assert _NoCamera.opened == []


@pytest.mark.parametrize(("spec", "device"), [("cam:0", 0), ("cam:007", 7), ("cam:99", 99)])
def test_a_camera_index_0_to_99_is_a_camera(spec: str, device: int) -> None:
    source = open_source(spec, retry_s=0.01)
    with pytest.raises(CameraError):  # the stub: no camera there
        source._open()  # type: ignore[attr-defined]
    source.close()
    assert _NoCamera.opened == [device]


def test_serve_refuses_cam_minus_one_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _serve(
        tmp_path, monkeypatch, capsys, "--camera", "cam:-1", "--no-camera-referee"
    )
    assert (code, out) == (2, "")
    assert one_line(err).startswith(
        "tabletop serve: --camera: bad camera spec 'cam:-1': expected cam:N, N = 0, 1, … 99"
    )
    assert _NoCamera.opened == []


# -- 2. [web] seats: the calibration page's seat zones --------------------------------------
def test_ruling_web17_more_seats_than_the_calibration_zones_are_refused(tmp_path: Path) -> None:
    """Before: seats = 9 started, then /calibration answered a JSON 400 (no seat_8_area)."""
    assert _web(tmp_path, f"[web]\nseats = {MAX_SEATS}\n").seats == MAX_SEATS
    with pytest.raises(ConfigError) as refused:
        _web(tmp_path, f"[web]\nseats = {MAX_SEATS + 1}\n")
    assert str(refused.value) == f"[web] seats: 9 is too many: give at most {MAX_SEATS}"


def test_serve_refuses_ten_seats_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tabletop.toml").write_text("[web]\nseats = 10\n")
    code, out, err = _serve(tmp_path, monkeypatch, capsys)
    assert (code, out) == (2, "")
    assert one_line(err) == "tabletop serve: [web] seats: 10 is too many: give at most 8"


# -- 3. a misspelt section, or settings above every header -----------------------------------
SLIPS = [
    (
        '[Web]\ndb = "x.db"\n',
        "unknown section 'Web' in {} (did you mean 'web'?); known: hardware, web",
    ),
    (
        "[webb]\nport = 8080\n",
        "unknown section 'webb' in {} (did you mean 'web'?); known: hardware, web",
    ),
    (
        '[hardwre]\nmode = "virtual"\n',
        "unknown section 'hardwre' in {} (did you mean 'hardware'?); known: hardware, web",
    ),
    ('[pins]\nmode = "virtual"\n', "unknown section 'pins' in {}; known: hardware, web"),
    ('db = "x.db"\n[web]\nport = 8080\n', "'db' is outside any section: put it under [web]"),
    ('mode = "virtual"\n', "'mode' is outside any section: put it under [hardware]"),
]


@pytest.mark.parametrize(("text", "said"), SLIPS)
def test_ruling_cli7_a_config_section_no_reader_knows_is_refused_by_both_readers(
    tmp_path: Path, text: str, said: str
) -> None:
    """Before: ignored, and the server ran on the defaults (another database, the default
    pin map) without a word."""
    path = tmp_path / "tabletop.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as web_refused:
        load_file(path, WebConfig(db_path=tmp_path / "t.db"))
    assert str(web_refused.value) == said.format(path)
    with pytest.raises(PinMapError) as hw_refused:
        load_config(path)
    # the pin map's reader knows its own settings only: a stray db may belong to either
    assert str(hw_refused.value) == said.format(path).replace("[web]", "[hardware] or [web]")


def test_ruling_cli7_serve_and_hw_pins_refuse_a_misspelt_header_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tabletop.toml").write_text('[Web]\ndb = "family.db"\n')
    code, out, err = _serve(tmp_path, monkeypatch, capsys)
    assert (code, out) == (2, "")
    assert one_line(err).startswith("tabletop serve: unknown section 'Web' in tabletop.toml")
    assert not (tmp_path / "t.db").exists()

    assert main(["hw", "pins"]) == 2
    err = capsys.readouterr().err
    assert one_line(err).startswith("tabletop hw pins: unknown section 'Web' in tabletop.toml")


def test_the_known_sections_and_their_tables_are_read(tmp_path: Path) -> None:
    text = '[web]\nport = 8081\n[web.pad_events]\npad = "slap"\n[hardware]\nmode = "virtual"\n'
    assert _web(tmp_path, text).port == 8081
    assert load_config(tmp_path / "tabletop.toml").mode == "virtual"


# -- 4. one thread for pages while a tablet streams -----------------------------------------
def test_ruling_web17_serve_refuses_one_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: --threads 1 started, and one tablet's live stream held the only thread:
    every page waited."""
    code, out, err = _serve(tmp_path, monkeypatch, capsys, "--threads", "1")
    assert (code, out) == (2, "")
    assert one_line(err) == (
        "tabletop serve: --threads 1 is too few: give at least 2"
        " (one serves pages while a tablet streams)"
    )
    with pytest.raises(ConfigError, match=r"^\[web\] threads: 1 is too few: give at least 2"):
        _web(tmp_path, "[web]\nthreads = 1\n")
    assert _web(tmp_path, "[web]\nthreads = 2\n").threads == 2


def test_the_streams_always_leave_a_thread_for_pages() -> None:
    from web.commands import stream_slots

    for threads in range(2, 70):
        slots = stream_slots(threads, WebConfig().max_streams)
        assert 1 <= slots <= threads - 1
    assert stream_slots(48, 32) == 32 and stream_slots(20, 32) == 12


# -- 6. a pad_events device the dashboard names -----------------------------------------------
@pytest.mark.parametrize(
    ("table", "said"),
    [
        ('{ padd = "slap" }', "'padd' is no pad device; known: pad, button"),
        (
            '{ call = "done" }',
            "'call' is no pad device; known: pad, button (the call button is 'button')",
        ),
    ],
)
def test_ruling_web17_a_pad_events_device_the_dashboard_never_names_is_refused(
    tmp_path: Path, table: str, said: str
) -> None:
    """Before: accepted, and never used: every press went by the game's default kind."""
    with pytest.raises(ConfigError) as refused:
        _web(tmp_path, f"[web]\npad_events = {table}\n")
    assert str(refused.value) == f"[web] pad_events: {said}"


# -- 7. an IPv6 address in a URL ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("host", "shown"), [("::1", "[::1]"), ("[::1]", "[::1]"), ("fd12::5", "[fd12::5]")]
)
def test_an_ipv6_host_is_bracketed(host: str, shown: str) -> None:
    assert tablet_host(host) == shown


def test_serve_on_ipv6_loopback_prints_a_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: http://::1:8080/, which no browser opens."""
    code, out, err = _serve(tmp_path, monkeypatch, capsys, "--host", "::1")
    assert (code, err) == (0, "")
    assert out.startswith("Tabletop Referee dashboard on http://[::1]:8080/")
    assert "http://::1" not in out


# -- 8. an empty TABLETOP_CONFIG --------------------------------------------------------------
def test_ruling_cli7_an_empty_tabletop_config_is_refused_as_an_empty_tabletop_db_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: read as unset: ./tabletop.toml (here: another database) or the defaults."""
    (tmp_path / "tabletop.toml").write_text('[web]\ndb = "other.db"\n')
    env = {"TABLETOP_CONFIG": ""}
    code, out, err = _serve(tmp_path, monkeypatch, capsys, env=env)
    assert (code, out) == (2, "")
    said = "TABLETOP_CONFIG is empty: name the config file, or unset it"
    assert one_line(err) == f"tabletop serve: {said}"
    with pytest.raises(PinMapError, match=f"^{said}$"):
        load_config()

    # a log of the database --db names needs nothing from the file: it says so, goes on
    assert main(["log", "--db", str(tmp_path / "none.db")]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first == f"tabletop log: {said} (not needed with --db)"


# -- 5. which database: flags, the environment, the file ---------------------------------------
def test_the_database_order_is_the_one_the_docs_and_help_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: README said "Flags win over the file" and HARDWARE.md "a db under [web] works
    too" beside a unit that sets TABLETOP_DB, which wins over it."""
    order = "`--db`, else `$TABLETOP_DB`, else `[web] db`, else `var/tabletop.db`"
    assert order in " ".join((REPO / "README.md").read_text().split())
    hardware = " ".join((REPO / "docs" / "HARDWARE.md").read_text().split())
    assert "drop that line when the file names the database" in hardware
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "default $TABLETOP_DB, else [web] db in the config, else var/tabletop.db" in shown

    (tmp_path / "tabletop.toml").write_text(f'[web]\ndb = "{tmp_path / "file.db"}"\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TABLETOP_DB", str(tmp_path / "env.db"))
    monkeypatch.delenv("TABLETOP_CONFIG", raising=False)
    cfg: Any = web.commands._config(_Args(), "serve")
    assert cfg.db_path == tmp_path / "env.db"


class _Args:
    config: str | None = None
    db: str | None = None
