"""A family that forgot the referee PIN resets it at the Pi: ``tabletop pin reset``.

Before, nothing could: the PIN could only be changed by someone who knew it, so a forgotten
PIN locked the family out of refereeing (entering events, accepting the camera's questions)
for good, short of deleting the database with every game in it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli import main
from tests.test_web_routes import DEAL, PIN, Tablet, make_app


def _reset(db: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["pin", "reset", "--db", str(db)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_forgotten_pin_is_reset_at_the_pi_and_chosen_again_on_a_running_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    app = make_app(tmp_path)
    referee = Tablet(app)
    assert referee.set_pin().status_code == 302
    game_id = referee.new_game()
    assert referee.send(game_id, DEAL).status_code == 201

    status, out, err = _reset(tmp_path / "tabletop.db", capsys)
    assert (status, err) == (0, "")
    code = out.split("setup code ")[1].split()[0]
    assert len(code) == 6 and code.isdigit()

    # the unlocked tablet is locked again, and the old PIN no longer opens it
    assert referee.send(game_id, {"kind": "draw", "seat": 0}).status_code in (401, 403)
    assert referee.login(PIN).headers.get("Location", "").endswith("/pin/setup")
    # the running server takes the printed code (it was started with another one)
    chosen = referee.client.post(
        "/pin/setup",
        data={"csrf_token": referee.token, "setup_code": code, "pin": "8642", "pin2": "8642"},
    )
    assert chosen.status_code == 302
    referee.refresh_token()
    assert referee.send(game_id, {"kind": "draw", "seat": 0}).status_code == 201
    # the game and its events were untouched
    assert [f["seq"] for f in referee.snapshot(game_id)["feed"]][:2] == [1, 2]


def test_a_setup_code_works_once(tmp_path: Path):
    tablet = Tablet(make_app(tmp_path))
    code = tablet.services.settings.setup_code
    assert tablet.set_pin().status_code == 302
    settings = tablet.services.settings
    assert settings.setup_code == ""
    settings.clear_pin()
    again = Tablet(tablet.app)
    r = again.client.post(
        "/pin/setup",
        data={"csrf_token": again.token, "setup_code": code, "pin": "8642", "pin2": "8642"},
    )
    assert r.status_code == 400 and b"wrong setup code" in r.data


def test_pin_reset_without_a_database_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    status, out, err = _reset(tmp_path / "missing.db", capsys)
    assert status == 2 and out == ""
    assert err.strip() == f"tabletop pin: no database at {tmp_path / 'missing.db'} (--db names one)"
    assert not (tmp_path / "missing.db").exists()


def test_the_unlock_page_says_how_to_reset_a_forgotten_pin(tmp_path: Path):
    tablet = Tablet(make_app(tmp_path))
    tablet.set_pin()
    page = tablet.client.get("/login").get_data(as_text=True)
    assert "Forgot the PIN?" in page and "<code>tabletop pin reset</code>" in page
    tablet.services.settings.clear_pin()
    setup = tablet.client.get("/pin/setup").get_data(as_text=True)
    assert "(or by <code>tabletop pin reset</code>)" in setup  # where the new code came from


def test_pin_reset_leaves_another_programs_database_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """Before, it added the dashboard's settings tables to any SQLite file it was given."""
    import sqlite3

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
    status, out, err = _reset(other, capsys)
    assert (status, out) == (2, "")
    assert (
        err.strip() == f"tabletop pin: {other} is not a Tabletop Referee database (no games table)"
    )
    with sqlite3.connect(other) as conn:
        assert {n for (n,) in conn.execute("SELECT name FROM sqlite_master")} == {"notes"}
