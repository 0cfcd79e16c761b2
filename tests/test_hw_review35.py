"""Review 35 of the hardware side: `serve` on dead pads, malformed recorded decisions, the
replay's race judge against the Hit the Deck referee, fake-outs of a log with no race marks,
and `hw record` on virtual pads nothing can press."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hardware.table as table_module
from hardware.padevents import PadEvent
from hardware.padlog import PadLogError, RaceMark, decide, read_pad_log
from referee.events import Event
from referee.hitthedeck.game import GAME
from referee.races import RaceRules
from tests.cli_run import run

S = 1_000_000_000
MS = 1_000_000
SESSION = Path(__file__).resolve().parent / "data" / "hw" / "session.jsonl"


def one_line(err: str) -> str:
    assert err.count("\n") == 1, err
    return err.rstrip("\n")


# -- 1. serve refuses a pin map or a GPIO it cannot use ----------------------------------------
class _Server:
    """waitress's server, bound to nothing: ``run`` returns at once."""

    def run(self) -> None:
        return None


@pytest.fixture
def serve(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """``tabletop serve --config TOML`` run to its end at once; (code, out, err)."""
    import waitress

    import web.commands

    monkeypatch.chdir(tmp_path)
    for name in ("TABLETOP_CONFIG", "TABLETOP_DB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(waitress, "create_server", lambda app, **kw: _Server())
    monkeypatch.setattr(web.commands, "_stop_on_sigterm", lambda: None)

    def serve_with(toml: str) -> tuple[int, str, str]:
        config = tmp_path / "tabletop.toml"
        config.write_text(toml, encoding="utf-8")
        argv = ["serve", "--db", str(tmp_path / "t.db"), "--config", str(config)]
        return run([*argv, "--no-camera-referee"], capsys)

    return serve_with


SEATS = "[hardware.seats]\n0 = { pad = 4 }\n1 = { pad = 22 }\n"


def _gpiochips(monkeypatch: pytest.MonkeyPatch, *, chips: int, usable: bool) -> None:
    """This machine has ``chips`` gpiochips, which this user may open only when ``usable``."""
    found = [Path(f"/dev/gpiochip{n}") for n in range(chips)]
    monkeypatch.setattr(table_module, "gpio_chips", lambda: found)
    monkeypatch.setattr(table_module, "gpio_available", lambda: bool(found) and usable)


@pytest.mark.parametrize(
    ("toml", "said"),
    [
        (
            '[hardware]\nmode = "gpio"\n[hardware.seats]\n0 = { pad = 4 }\n1 = { pad = 4 }\n',
            "hardware.seats.1.pad: BCM 4 is already used by hardware.seats.0.pad",
        ),
        ('[hardware]\nmode = "gpio"\nseats = {}\n', "hardware.seats: needs at least one seat"),
    ],
    ids=["duplicate pins", "no seats"],
)
def test_serve_refuses_a_pin_map_error(serve, toml: str, said: str) -> None:
    """Before: "pads unavailable (…); using virtual pads", and the tablet's pads page said
    "Virtual pads (no GPIO)" while the table's pads were dead."""
    code, out, err = serve(toml)
    assert code == 2 and "dashboard on" not in out
    assert one_line(err).startswith("tabletop serve: ") and said in err


def test_serve_refuses_a_gpiochip_this_user_cannot_open(serve, monkeypatch) -> None:
    """docs/HARDWARE.md: mode auto with a gpiochip this user cannot open is an error, not
    virtual pads."""
    _gpiochips(monkeypatch, chips=1, usable=False)
    code, out, err = serve(f'[hardware]\nmode = "auto"\n{SEATS}')
    assert code == 2 and "dashboard on" not in out
    assert one_line(err) == (
        "tabletop serve: /dev/gpiochip0 exists but this user cannot open it: add the user to "
        "the gpio group (docs/HARDWARE.md 'Running as a normal user', step 2), or set "
        'mode = "virtual"'
    )


def test_serve_refuses_gpio_mode_whose_pins_cannot_open(serve, monkeypatch) -> None:
    monkeypatch.setattr(table_module, "_lgpio_missing", lambda name: True)
    code, _, err = serve(f'[hardware]\nmode = "gpio"\n{SEATS}')
    assert code == 2
    assert one_line(err).startswith("tabletop serve: lgpio is not installed")


@pytest.mark.parametrize("mode", ["auto", "virtual"])
def test_serve_uses_virtual_pads_where_the_config_allows_them(serve, monkeypatch, mode) -> None:
    """Virtual pads still: mode virtual, or mode auto on a machine with no gpiochip."""
    _gpiochips(monkeypatch, chips=0, usable=False)
    code, out, err = serve(f'[hardware]\nmode = "{mode}"\n{SEATS}')
    assert (code, err) == (0, "")
    assert "Pads: virtual pads (tap them on the dashboard)" in out


# -- 2. a recorded decision of the wrong shape --------------------------------------------------
def _session_with(tmp_path: Path, **decision: Any) -> Path:
    """The bundled session, its first decision's fields replaced by ``decision``."""
    lines = SESSION.read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if '"decision"' in line)
    data = json.loads(lines[first])
    data["decision"].update(decision)
    lines[first] = json.dumps(data).replace('"INFINITY"', "1e400")
    path = tmp_path / "edited.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("decision", "said"),
    [
        ({"rules": 5}, "a decision's rules must be a JSON object"),
        ({"rules": None}, "a decision's rules must be a JSON object"),
        ({"rules": {"window_ns": "3s"}}, "window_ns must be a JSON integer, got '3s'"),
        ({"rules": {"window_ns": "INFINITY"}}, "window_ns must be a JSON integer, got inf"),
        ({"rules": {"window": 3}}, "unknown rule 'window'"),
        ({"evidence": {"seat": 0}}, "a decision's evidence must be a list of JSON objects"),
        ({"seats": "1"}, "a decision's seats must be a list of seat numbers"),
        ({"tie": "no"}, "tie must be true or false"),
        ({"reason": 7}, "a decision's reason must be a string"),
    ],
)
def test_hw_replay_refuses_a_decision_of_the_wrong_shape(tmp_path, capsys, decision, said):
    """Before: ``rules: 5``, ``{"window_ns": "3s"}`` and ``1e400`` ended in a traceback
    (AttributeError, ValueError, OverflowError) and exit 1; HARDWARE.md: exit 2 for a log
    that cannot be read."""
    path = _session_with(tmp_path, **decision)
    with pytest.raises(PadLogError, match=r":[0-9]+: bad entry"):
        read_pad_log(path)
    code, out, err = run(["hw", "replay", "--fast", str(path)], capsys)
    assert (code, out) == (2, "")
    assert one_line(err).startswith(f"tabletop hw replay: {path}:") and said in err


# -- 3. the replay's race judge and the Hit the Deck referee -----------------------------------
ANN, BOB, CAT = 0, 1, 2
HANDS = [["HAND", "HAND", "R2"], ["R3", "HAND", "R4"], ["R5", "B1", "B2"]]
DRAW = ["G1", "G2", "G3", "G4", "G5", "Y1", "Y2", "Y3", "Y4", "Y5", "B3", "B4", "B5"]
Slaps = tuple[tuple[int, int], ...]  # (seat, t_ns)


def _engine_races(cards: tuple[int, ...], slaps: Slaps, lockout_ms: int) -> list[dict]:
    """The races the Hit the Deck referee judges: Ann's Hand card, then Bob's, at ``cards``;
    every event delivered in time order."""
    options = {"strict_deck": False, "hand_size": 3, "early_lockout_ms": lockout_ms}
    state = GAME.new_state(["Ann", "Bob", "Cat"], options)
    events = [
        *(
            Event("play", seat, {"card": "HAND"}, t)
            for seat, t in zip((ANN, BOB), cards, strict=True)
        ),
        *(Event("slap", seat, {}, t) for seat, t in slaps),
    ]
    races: dict[int, dict] = {}
    first = [Event("deal", None, {"hands": HANDS, "draw": DRAW, "dealer": CAT})]
    for event in [*first, Event("turn_up", None, {}, 1 * S), *sorted(events, key=_when)]:
        state, verdicts = GAME.apply(state, event)
        assert all(v.outcome.value != "illegal" for v in verdicts), (event, verdicts)
        for v in verdicts:
            if isinstance(v.data.get("race"), dict):
                races[v.data["race"]["trigger_ns"]] = v.data["race"]
    return [races[t] for t in sorted(races)]


def _when(event: Event) -> tuple[int, int]:
    return (event.t_ns or 0, event.kind != "play")  # a card before a slap at its time


def _replay_races(cards: tuple[int, ...], slaps: Slaps, lockout_ms: int) -> list[dict]:
    rules = RaceRules(early_lockout_ns=lockout_ms * MS or None)
    marks = [RaceMark("last_slapper", t, (ANN, BOB, CAT), rules) for t in cards]
    return [d.to_dict() for d in decide(marks, [PadEvent(s, "pad", t) for s, t in slaps])]


def _judged(race: dict) -> tuple[Any, ...]:
    """What a race decided: the last slappers, a tie, and each seat's counted slap."""
    seats = tuple((e["seat"], e["status"], e["t_ns"]) for e in race["evidence"])
    return race["trigger_ns"], tuple(race["seats"]), race["tie"], seats


def _at(trigger: int, *seat_ms: tuple[int, int]) -> Slaps:
    return tuple((seat, trigger + ms * MS) for seat, ms in seat_ms)


FIRST, SECOND = 10 * S, 11 * S + 500 * MS  # Bob's card 1.5 s after Ann's: inside her window
OVERLAPPING = {
    "everyone slaps both cards": (
        0,
        _at(FIRST, (BOB, 200), (CAT, 300), (ANN, 400)) + _at(SECOND, (CAT, 200), (ANN, 300)),
        _at(SECOND, (BOB, 400)),
    ),
    "a second slap before the next card": (
        0,
        _at(FIRST, (BOB, 200), (CAT, 300), (ANN, 400), (CAT, 900)),
        _at(SECOND, (CAT, 200), (ANN, 300), (BOB, 400)),
    ),
    "a slap in the next card's lockout span": (
        1000,
        _at(FIRST, (BOB, 200), (CAT, 300), (ANN, 400), (CAT, 900)),
        _at(SECOND, (CAT, 200), (ANN, 300), (BOB, 400)),
    ),
    "a tie for last at the second card": (
        0,
        _at(FIRST, (ANN, 100), (BOB, 150), (CAT, 500)),
        _at(SECOND, (CAT, 100), (ANN, 700), (BOB, 700)),
    ),
}


@pytest.mark.parametrize("case", OVERLAPPING, ids=list(OVERLAPPING))
def test_ruling_hw6_hw_replay_judges_overlapping_races_as_the_hit_the_deck_referee(
    case: str,
) -> None:
    """HTD-13: a race ends "as soon as every seat has slapped"; HTD-17: slaps in a timed Hand
    card's window (or its early-lockout span) join its race. Before, ``decide`` ended a race
    only at its window's end: the second card's race saw none of its slaps, and everyone
    "did not slap within 3.00 s" and counted as last."""
    lockout_ms, first, second = OVERLAPPING[case]
    slaps = first + second
    engine = _engine_races((FIRST, SECOND), slaps, lockout_ms)
    replay = _replay_races((FIRST, SECOND), slaps, lockout_ms)
    assert len(engine) == 2
    assert [_judged(r) for r in replay] == [_judged(r) for r in engine]


def test_ruling_hw6_hw_replay_ends_a_last_slapper_race_at_the_next_card() -> None:
    """A seat that has not slapped when the next Hand card comes missed that race (it counts
    as last, HW-1); its slap after the next card is that card's (HTD-17), not a late one."""
    slaps = _at(FIRST, (BOB, 200), (CAT, 300)) + _at(SECOND, (CAT, 200), (ANN, 300), (BOB, 400))
    first, second = _replay_races((FIRST, SECOND), slaps, 0)
    assert (first["seats"], first["evidence"][ANN]["status"]) == ([ANN], "missed")
    assert (second["seats"], second["tie"]) == ([BOB], False)


def test_hw_replay_of_overlapping_races_from_the_cli(tmp_path, capsys) -> None:
    """The reviewer's log: two Hand cards 1.5 s apart, every seat slapping within 0.5 s."""
    from hardware.config import default_config

    lines: list[dict[str, Any]] = [{"pad_log": 1, "hardware": default_config().to_dict()}]
    for trigger in (FIRST, SECOND):
        lines.append({"mark": {"race": "last_slapper", "t_ns": trigger, "seats": [0, 1, 2]}})
        for seat in (0, 1, 2):
            t = trigger + (200 + 100 * seat) * MS
            lines.append({"edge": {"t_ns": t, "seat": seat, "device": "pad", "active": True}})
            down = {"t_ns": t + 50 * MS, "seat": seat, "device": "pad", "active": False}
            lines.append({"edge": down})
    path = tmp_path / "overlap.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    code, out, _ = run(["hw", "replay", "--fast", str(path)], capsys)
    assert code == 0 and "did not slap" not in out
    assert out.count("Seat 2 slapped last, 400 ms after the card — 100 ms after seat 1.") == 2


# -- 4. a recording with no race marks ----------------------------------------------------------
def test_hw_replay_does_not_judge_fake_outs_without_race_marks(tmp_path, capsys) -> None:
    """``hw record`` writes no marks: before, every slap in it was listed as a fake-out."""
    path = tmp_path / "rec.jsonl"
    assert run(["hw", "record", str(path), "--mock", "--script", "0:pad,1:pad"], capsys)[0] == 0
    code, out, _ = run(["hw", "replay", "--fast", str(path)], capsys)
    assert code == 0 and "fake-out:" not in out
    assert out.splitlines()[0] == (
        "4 edges → 2 presses, 0 races, no race marks: fake-outs not judged"
    )
    code, out, _ = run(["hw", "replay", "--fast", "--json", str(path)], capsys)
    assert code == 0 and json.loads(out)["fake_outs"] is None


def test_hw_replay_still_lists_fake_outs_of_a_log_with_race_marks(capsys) -> None:
    code, out, _ = run(["hw", "replay", "--fast", str(SESSION)], capsys)
    assert code == 0 and "4 races, 1 fake-outs" in out
    assert "fake-out: seat 2 slapped with no card" in out


# -- 5. hw record on virtual pads nothing can press ---------------------------------------------
@pytest.mark.parametrize(
    ("toml", "why"),
    [
        ("", "no /dev/gpiochip* on this machine"),
        (f'[hardware]\nmode = "virtual"\n{SEATS}', 'the config sets mode = "virtual"'),
    ],
    ids=["auto without GPIO", "mode virtual"],
)
def test_hw_record_refuses_virtual_pads_without_a_script(
    tmp_path, monkeypatch, capsys, toml, why
) -> None:
    """Before: "recording for 1 s …", a file with a header only, exit 0."""
    _gpiochips(monkeypatch, chips=0, usable=False)
    config = tmp_path / "tabletop.toml"
    config.write_text(toml, encoding="utf-8")
    out = tmp_path / "take.jsonl"
    code, _, err = run(
        ["hw", "record", str(out), "--config", str(config), "--seconds", "1"], capsys
    )
    assert (code, one_line(err)) == (
        2,
        f"tabletop hw record: the pads are virtual ({why}) and nothing would press them: "
        "record at the table, or play presses with --mock --script",
    )
    assert not out.exists()


def test_hw_record_says_which_pads_it_records(tmp_path, capsys) -> None:
    config = tmp_path / "tabletop.toml"  # GPIO pads on gpiozero's MockFactory
    config.write_text(
        '[hardware]\nmode = "gpio"\npin_factory = "mock"\n[hardware.seats]\n0 = { pad = 4 }\n'
    )
    out = tmp_path / "take.jsonl"
    code, _, err = run(
        ["hw", "record", str(out), "--config", str(config), "--seconds", "0.05"], capsys
    )
    assert code == 0
    assert one_line(err) == f"recording real GPIO pads (pin factory mock) for 0.05 s to {out} …"
    code, _, err = run(
        ["hw", "record", str(tmp_path / "m.jsonl"), "--mock", "--seconds", "0.01"], capsys
    )
    assert code == 0 and "recording virtual pads (--mock) for 0.01 s" in err
