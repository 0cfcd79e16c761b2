"""Docs review 37: what EVENTS.md and HARDWARE.md promise, held to the code.

Replay refuses an overrule of an undo or overrule (as the dashboard does) instead of
dropping it; a ``[hardware]`` section's missing seats (and then buzzer) are the default
map's; the example logs in tests/data hold no entry their referee refuses.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hardware.config import PinMapError, default_config, parse_hardware, parse_toml
from referee.cli import main
from referee.replay_cli import replay_file
from tests.test_web_routes import Tablet, make_app

DATA = Path(__file__).parent / "data"
DOS_HEAD = {"game": "dos", "players": ["Ann", "Bea", "Cal"], "options": {"hand_size": 4}}
DEAL = {"kind": "deal", "payload": {"hands": [4, 4, 4], "piles": ["R7", "G2"]}}
SKIP = {"kind": "play", "seat": 0, "payload": {"card": "RSKIP", "pile": "left"}}
NINE = {"kind": "play", "seat": 0, "payload": {"card": "R9", "pile": "left"}}
FIVE = {"kind": "play", "seat": 0, "payload": {"card": "B5", "pile": "right"}}


def _log(tmp_path: Path, *events: dict) -> Path:
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in (DOS_HEAD, *events)))
    return path


def _overrule(target: int, event: dict) -> dict:
    return {"kind": "overrule", "payload": {"target": target, "event": event}}


def _dashboard_refusal(tmp_path: Path) -> str:
    """The dashboard's words for overruling an overrule (event 3, of event 2)."""
    t = Tablet(make_app(tmp_path / "web"))
    assert t.set_pin().status_code == 302
    game = t.new_game("dos", ("Ann", "Bea", "Cal"))
    for event in (DEAL, SKIP):
        assert t.send(game, event).status_code == 201
    assert t.post(f"/api/games/{game}/overrule", {"target": 2, "event": NINE}).status_code == 201
    r = t.post(f"/api/games/{game}/overrule", {"target": 3, "event": FIVE})
    assert r.status_code == 400, r.json
    return r.json["error"].removeprefix("overrule: ")


def test_replay_refuses_an_overrule_of_an_undo_or_overrule_as_the_dashboard_does(tmp_path, capsys):
    # seq 1 deal, 2 play, 3 overrule of 2, 4 overrule of 3 (the overrule): not silently dropped
    log = _log(tmp_path, DEAL, SKIP, _overrule(2, NINE), _overrule(3, FIVE))
    assert main(["replay", str(log)]) == 2
    err = capsys.readouterr().err
    said = "event 3 is an overrule, not a game event; undo it instead"
    assert err == f"tabletop replay: event 4 (overrule): {said}\n"
    assert _dashboard_refusal(tmp_path) == said
    # an overrule of an undo likewise
    log = _log(tmp_path, DEAL, SKIP, {"kind": "undo", "payload": {"target": 2}}, _overrule(3, FIVE))
    assert main(["replay", str(log)]) == 2
    assert "event 4 (overrule): event 3 is an undo, not a game event" in capsys.readouterr().err
    # one undone changes nothing, and undoing it is how such a log is mended
    undone = {"kind": "undo", "payload": {"target": 4}}
    log = _log(tmp_path, DEAL, SKIP, _overrule(2, NINE), _overrule(3, FIVE), undone)
    tops = {p["pile"]: p["top"] for p in replay_file(log)["state"]["piles"]}
    assert tops == {"left": "R9", "right": "G2"}


def test_a_hardware_section_with_only_its_mode_takes_the_default_map(tmp_path, capsys):
    config = parse_toml('[hardware]\nmode = "virtual"\n')
    assert config == default_config("virtual") and config.buzzer == 12
    path = tmp_path / "tabletop.toml"
    path.write_text('[hardware]\nmode = "virtual"\n')
    assert main(["hw", "pins", "--config", str(path)]) == 0
    assert "seat 5: pad BCM25" in capsys.readouterr().out
    # an empty seats table is still a mistake, not "the default"
    with pytest.raises(PinMapError, match=r"hardware\.seats: needs at least one seat"):
        parse_toml("[hardware]\nseats = {}\n")


def test_hw_pins_says_when_there_is_no_buzzer(tmp_path, capsys):
    """Before: no buzzer line at all, so a buzzer left out by mistake went unnoticed."""
    path = tmp_path / "tabletop.toml"
    path.write_text("[hardware]\nbuzzer = false\n")
    assert main(["hw", "pins", "--config", str(path)]) == 0
    assert "  buzzer: none" in capsys.readouterr().out.splitlines()


def test_a_buzzer_left_out_is_the_default_one_only_with_the_default_seats():
    own_seats = "[hardware.seats]\n0 = { pad = 12 }\n"
    # a table wired to its own seats may have none: BCM 12 is not driven (nor claimed)
    assert parse_toml(f"[hardware]\n{own_seats}").buzzer is None
    assert parse_toml("[hardware]\ndebounce_ms = 3\n").buzzer == 12
    # false says "no buzzer", with the default seats or one's own
    assert parse_toml("[hardware]\nbuzzer = false\n").buzzer is None
    assert parse_toml(f"[hardware]\nbuzzer = false\n{own_seats}").buzzer is None
    with pytest.raises(PinMapError, match=r"^hardware\.buzzer: true is not a pin; .* false for"):
        parse_toml("[hardware]\nbuzzer = true\n")
    # a pad log's header (the map's to_dict) reads back the same map
    for toml in ("[hardware]\nbuzzer = false\n", f"[hardware]\n{own_seats}"):
        config = parse_toml(toml)
        assert parse_hardware(config.to_dict()) == config


@pytest.mark.parametrize("log", sorted(p.name for p in DATA.glob("*.jsonl")))
def test_no_example_log_holds_an_entry_its_referee_refuses(log):
    verdicts = replay_file(DATA / log)["verdicts"]
    illegal = [(v["seq"], v["kind"], v["reason"]) for v in verdicts if v["outcome"] == "illegal"]
    assert illegal == []


def test_a_clash_with_the_default_maps_seats_says_they_are_the_default_maps() -> None:
    """`buzzer = 4` with no seats: before, "already used by hardware.seats.0.pad", a seat the
    file never names."""

    with pytest.raises(PinMapError) as refused:
        parse_hardware({"buzzer": 4})
    assert str(refused.value) == (
        "hardware.buzzer: BCM 4 is already used by hardware.seats.0.pad "
        "(the default map's: no seats are given)"
    )
