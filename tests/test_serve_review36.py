"""``tabletop serve`` slips found on day 36: a loopback address announced as the tablets'
address, a ``[web] pad_events`` typo that dropped every press of the pad without a word, and
a camera spec that can never be a camera (``cam:O``, a misspelt video) that started the
dashboard with the camera off, where ``vision watch`` refuses it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_cli_fresh_eyes import one_line
from tests.test_cli_polish import serve_at_once
from tests.test_web_routes import make_app
from web.commands import is_loopback
from web.config import ConfigError, WebConfig, load_file

REPO = Path(__file__).resolve().parent.parent
VIDEO = REPO / "tests" / "data" / "table" / "pile.avi"


_serve = serve_at_once  # tabletop serve up to its loop, which ends at once


# -- A. a loopback address is no address for a tablet -------------------------------------------
def test_serve_on_loopback_says_tablets_cannot_reach_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: "On the tablet open http://127.0.0.1:8080/pin/setup", the tablet itself."""
    code, out, err = _serve(tmp_path, monkeypatch, capsys)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("Tabletop Referee dashboard on http://127.0.0.1:8080/")
    assert "tablets cannot reach 127.0.0.1" in lines[1] and "--host 0.0.0.0" in lines[1]
    assert "On the tablet open" not in out
    assert "In a browser on this machine open http://127.0.0.1:8080/pin/setup" in out

    code, out, err = _serve(tmp_path, monkeypatch, capsys, "--host", "0.0.0.0")
    assert (code, err) == (0, "")
    assert "cannot reach" not in out and "On the tablet open http://" in out


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.1.1", "::1", "[::1]", "localhost"])
def test_loopback_hosts_are_known(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.23", "pi.local"])
def test_lan_hosts_are_not_loopback(host: str) -> None:
    assert not is_loopback(host)


# -- B. a pad_events kind no game knows, or not this game's -------------------------------------
def test_ruling_web3_a_pad_events_typo_is_refused_naming_the_entry(tmp_path: Path) -> None:
    """Before: accepted, and every press of that pad was dropped silently."""
    path = tmp_path / "tabletop.toml"
    path.write_text('[web]\npad_events = { pad = "slpa" }\n')
    with pytest.raises(ConfigError) as refused:
        load_file(path, WebConfig(db_path=tmp_path / "t.db"))
    message = str(refused.value)
    assert message.startswith("[web] pad_events: pad = 'slpa' is no game's event kind; known: ")
    assert "slap" in message and "done" in message  # every game's kinds
    path.write_text('[web]\npad_events = { pad = "slap", button = "call" }\n')
    cfg = load_file(path, WebConfig(db_path=tmp_path / "t.db"))
    assert cfg.pad_events == {"pad": "slap", "button": "call"}


def test_serve_refuses_a_pad_events_typo_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tabletop.toml").write_text('[web]\npad_events = { pad = "slpa" }\n')
    code, out, err = _serve(tmp_path, monkeypatch, capsys)
    assert (code, out) == (2, "")
    assert one_line(err).startswith("tabletop serve: [web] pad_events: pad = 'slpa'")


def test_ruling_web3_a_press_of_a_kind_the_game_does_not_know_is_noted_on_the_hardware_page(
    tmp_path: Path,
) -> None:
    """``call`` (Dos) on a Hit the Deck table: before, the press left no note at all."""
    app = make_app(tmp_path, pad_events={"pad": "call"}, race_timer=False)
    services = app.extensions["tabletop"]
    game_id = services.games.create("hit-the-deck", ["Ann", "Bea", "Cy"], None)
    before = len(list(services.games.log.events(game_id)))
    services.pads.press(1, "pad")
    assert len(list(services.games.log.events(game_id))) == before
    note = services.pad_log[-1]
    assert note["accepted"] is False
    assert note["message"] == "'call' is not a Hit the Deck event ([web] pad_events)"


# -- C. a camera spec that can never be a camera ------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("cam:O", "bad camera spec 'cam:O': expected cam:N, N = 0, 1, … 99"),
        ("pile.avj", "camera source pile.avj does not exist"),
    ],
)
def test_serve_refuses_a_camera_that_can_never_open(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    spec: str,
    why: str,
) -> None:
    """Before: one unprefixed "camera: ..." line, then the dashboard without a camera."""
    code, out, err = _serve(tmp_path, monkeypatch, capsys, "--camera", spec)
    assert (code, out) == (2, "")
    assert one_line(err).startswith(f"tabletop serve: --camera: {why} (give picamera2, cam:N")


def test_serve_refuses_a_config_files_camera_typo_under_its_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tabletop.toml").write_text('[web]\ncamera = "cam:one"\n')
    code, out, err = _serve(tmp_path, monkeypatch, capsys)
    assert (code, out) == (2, "")
    assert one_line(err).startswith("tabletop serve: [web] camera: bad camera spec 'cam:one'")


@pytest.mark.parametrize("spec", ["cam:57", str(VIDEO)])
def test_serve_starts_with_a_live_camera_not_plugged_in_yet_or_a_video(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], spec: str
) -> None:
    """A ``cam:N`` that is not there yet is waited for (test_camera_drop.py), not refused."""
    code, out, err = _serve(tmp_path, monkeypatch, capsys, "--camera", spec, "--no-camera-referee")
    assert (code, err) == (0, "")
    assert "dashboard on http://" in out
