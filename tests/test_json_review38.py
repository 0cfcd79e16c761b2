"""Review 38: a JSON key given twice is refused, not read as its last value; a bad value is
quoted in a message cut to about 40 characters, not echoed whole (a 10 MB line gave a 10 MB
"one-line" error).

The key twice: in a log line (``json_lines``, so ``tabletop replay`` and pad logs), in a
stored event (``Event.from_json``) and in a web body (``json_body``), at every depth.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.cards import CardParseError, parse_card
from referee.cli import main
from referee.events import Event, EventError
from referee.game import GameError, OptionSpec, resolve_options
from referee.jsonlines import DuplicateKeyError, json_lines, loads, shown
from tests.test_web_numbers import raw

DATA = Path(__file__).parent / "data"
LONG = "Q" * 1_000_000
# a message quoting a long value: its own words and about 40 characters of the value
SHORT_MESSAGE = 200


class LogError(Exception):
    pass


def _dos_log_with(tmp_path: Path, old: str, new: str) -> Path:
    """The DOS example log with its line 4 (Ann's red Skip) edited."""
    lines = (DATA / "dos-example.jsonl").read_text(encoding="utf-8").split("\n")
    assert old in lines[3]
    lines[3] = lines[3].replace(old, new)
    path = tmp_path / "edited.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


# -- a key given twice ------------------------------------------------------------------------


def test_replay_refuses_a_log_line_that_gives_a_key_twice(tmp_path, capsys):
    """A copy-paste slip used to replay as another game (the second card won), exit 0."""
    log = _dos_log_with(tmp_path, '"card": "RSKIP"', '"card": "RSKIP", "card": "R9"')
    assert main(["replay", str(log)]) == 2
    err = capsys.readouterr().err
    assert err == f"tabletop replay: {log}:4: key 'card' given twice\n"


@pytest.mark.parametrize(
    "line",
    [
        '{"kind": "play", "kind": "draw"}',
        '{"kind": "play", "payload": {"card": "R1", "card": "R9"}}',
        '{"kind": "deal", "payload": {"hands": [[{"a": 1, "a": 1}]]}}',  # the same value too
    ],
)
def test_json_lines_refuses_a_key_given_twice_at_any_depth(tmp_path, line):
    path = tmp_path / "log.jsonl"
    path.write_text('{"game": "dos"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(LogError, match=r"^.*log\.jsonl:2: key '(kind|card|a)' given twice$"):
        list(json_lines(path, LogError))


def test_a_long_key_given_twice_is_named_short(tmp_path):
    key = "k" * 100_000
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps({"x": 1})[:-1] + f', "{key}": 1, "{key}": 2}}\n', encoding="utf-8")
    with pytest.raises(LogError) as err:
        list(json_lines(path, LogError))
    assert len(str(err.value)) < len(str(path)) + SHORT_MESSAGE
    assert str(err.value).startswith(f"{path}:1: key 'kkkk") and "..." in str(err.value)


def test_a_stored_event_giving_a_key_twice_is_an_event_error():
    with pytest.raises(EventError, match=r"^key 'pile' given twice$"):
        Event.from_json('{"kind": "play", "payload": {"pile": "left", "pile": "right"}}')


def test_what_the_project_writes_reads_back_through_the_check():
    """Stored events, options and results are ``json.dumps`` of dicts: no key twice."""
    event = Event("play", seat=1, payload={"card": "R9", "nested": {"a": [{"b": 1}]}}, t_ns=5)
    assert Event.from_json(event.to_json()) == event
    for path in sorted(DATA.rglob("*.jsonl")):
        for _where, value in json_lines(path, LogError):
            assert loads(json.dumps(value)) == value


def test_web_refuses_a_body_giving_a_key_twice_with_a_400_naming_it(referee):
    game_id = referee.new_game("dos", ("Ann", "Bob"))
    body = b'{"kind": "deal", "payload": {"hands": [["R1"], ["R2"]], "hands": [["R3"], ["R4"]]}}'
    r = raw(referee, f"/api/games/{game_id}/events", body)
    assert r.status_code == 400
    assert r.json["error"] == "key 'hands' given twice"
    twice = b'{"game": "dos", "game": "deck-dash", "players": ["Ann", "Bob"]}'
    assert raw(referee, "/api/games", twice).json["error"] == "key 'game' given twice"


def test_web_bodies_that_are_not_json_read_as_before(referee):
    assert raw(referee, "/api/games", b'{"game": ').json["error"] == (
        "send a JSON object (Content-Type: application/json)"
    )
    as_form = referee.client.post(
        "/api/games", data="game=dos", headers={"X-CSRF-Token": referee.token}
    )
    assert as_form.status_code == 400
    assert as_form.json["error"] == "send a JSON object (Content-Type: application/json)"
    good = raw(referee, "/api/games", b'{"game": "dos", "players": ["Ann", "Bob"]}')
    assert good.status_code == 201


def test_the_hook_names_the_first_key_given_twice():
    with pytest.raises(DuplicateKeyError) as err:
        loads('{"a": 1, "b": 2, "b": 3, "a": 4}')
    assert err.value.key == "b"


# -- a bad value quoted short -----------------------------------------------------------------


def test_shown_cuts_a_long_value_and_keeps_a_short_one():
    assert shown("R9X") == "'R9X'"
    assert shown("x" * 38) == repr("x" * 38)  # 40 characters with its quotes: whole
    assert shown("x" * 39) == "'" + "x" * 36 + "..."
    assert shown([10**5000]) == "a list holding a number too long to show"


@pytest.mark.parametrize(
    ("data", "start"),
    [
        ({"kind": "play", "seat": LONG}, "event seat must be a non-negative integer, got 'QQ"),
        ({"kind": "play", "t_ns": LONG}, "event t_ns must be an integer (nanoseconds), got 'QQ"),
        ({"kind": "play", "source": LONG}, "unknown event source 'QQ"),
        ({"kind": "play", LONG: 1}, "unknown event field(s): 'QQ"),
        ({"kind": "play", **{f"f{i}": 1 for i in range(100_000)}}, "unknown event field(s): f0,"),
    ],
)
def test_an_event_error_quotes_a_long_value_short(data, start):
    with pytest.raises(EventError) as err:
        Event.from_dict(data)
    assert str(err.value).startswith(start) and len(str(err.value)) < SHORT_MESSAGE


def test_short_event_values_are_still_quoted_whole():
    with pytest.raises(EventError, match=r"^unknown event source 'sun'$"):
        Event.from_dict({"kind": "play", "source": "sun"})
    with pytest.raises(EventError, match=r"^unknown event field\(s\): clock, hardware, pad_log$"):
        Event.from_dict({"kind": "play", "clock": 1, "hardware": 1, "pad_log": 1})
    with pytest.raises(EventError, match=r"^unknown event field\(s\): a, b, c, d, e and 2 more$"):
        Event.from_dict({"kind": "play", **dict.fromkeys("abcdefg", 1)})


def test_a_missing_field_of_a_long_kind_is_named_short():
    with pytest.raises(EventError) as err:
        Event(LONG).require("card")
    assert len(str(err.value)) < SHORT_MESSAGE and str(err.value).endswith("needs field 'card'")


@pytest.mark.parametrize(
    ("token", "start"),
    [
        ("R" + "Q" * 1_000_000, "bad card 'RQQ"),
        ("R" + "1" * 5000, "bad card 'R111"),  # int() refuses past 4 300 digits: ValueError
        ("R" + "1" * 100, "bad card 'R111"),
        (["R1"] * 100_000, "bad card \"['R1'"),
    ],
)
def test_a_long_card_token_is_quoted_short(token, start):
    with pytest.raises(CardParseError) as err:
        parse_card(token)
    assert str(err.value).startswith(start) and len(str(err.value)) < SHORT_MESSAGE


def test_a_short_card_token_is_quoted_whole():
    with pytest.raises(CardParseError, match=r"^bad card 'R13': number 13 is outside 1\.\.12$"):
        parse_card("R13")


@pytest.mark.parametrize(
    ("spec", "value"),
    [
        (OptionSpec("rounds", 3, "how many"), LONG),
        (OptionSpec("fast", False, "a flag"), LONG),
        (OptionSpec("seats", [], "a list"), LONG),
        (OptionSpec("deck", "small", "which", choices=("small", "big")), LONG),
    ],
)
def test_an_option_error_quotes_a_long_value_short(spec, value):
    with pytest.raises(GameError) as err:
        spec.validate(value)
    assert len(str(err.value)) < SHORT_MESSAGE and "got 'QQQ" in str(err.value)


def test_an_unknown_long_option_name_is_quoted_short_and_a_short_one_whole():
    specs = [OptionSpec("rounds", 3, "how many")]
    with pytest.raises(GameError) as err:
        resolve_options(specs, {LONG: 1})
    assert len(str(err.value)) < SHORT_MESSAGE
    with pytest.raises(GameError, match=r"^unknown option\(s\) \['deck'\]; known: \['rounds'\]$"):
        resolve_options(specs, {"deck": 1})
    with pytest.raises(GameError, match=r"^option 'rounds' must be an integer, got 'three'$"):
        resolve_options(specs, {"rounds": "three"})


def test_web_quotes_a_long_value_short_in_its_400(referee):
    game_id = referee.new_game("dos", ("Ann", "Bob"))
    long = "Q" * 200_000  # under the 256 KB body limit
    r = referee.send(game_id, {"kind": "play", "seat": long})
    assert r.status_code == 400 and len(r.json["error"]) < SHORT_MESSAGE
    option = referee.post(
        "/api/games", {"game": "dos", "players": ["A", "B"], "options": {long: 1}}
    )
    assert option.status_code == 400 and option.json["error"].startswith("unknown option(s) ['QQ")
    assert "Q" * 40 not in option.json["error"]  # then the options it knows


@pytest.mark.parametrize("game", ["deck-dash", "dos", "hit-the-deck", "wash-dash"])
def test_replay_of_an_unknown_long_kind_says_it_short(game, tmp_path, capsys):
    """An unknown kind of 5 000 letters was quoted whole twice: by replay's "event N (kind)"
    and by the game's "no event" refusal (a 10 MB line gave a 20 MB "one-line" error)."""
    log = tmp_path / "long.jsonl"
    header = {"game": game, "players": ["Ann", "Bob"]}
    log.write_text(json.dumps(header) + "\n" + json.dumps({"kind": "x" * 5000}) + "\n")
    assert main(["replay", str(log)]) == 2
    err = capsys.readouterr().err
    assert len(err) < 400, err[:200]
    assert "xxx..." in err


# -- the games' own messages quote a long value short too --------------------------------------
L = "x" * 10_000
WD_SET_UP = [{"kind": "setup", "payload": {"first": 0}}]


@pytest.mark.parametrize(
    ("game", "before", "event", "start"),
    [
        ("wash-dash", WD_SET_UP, {"kind": "reveal", "payload": {"cards": [L]}}, "unknown Wash"),
        ("wash-dash", [], {"kind": "setup", "payload": {"first": L}}, "'first' must be a seat"),
        ("hit-the-deck", [], {"kind": "deal", "payload": {"hands": [L, L]}}, "hand 0 must be"),
        (
            "hit-the-deck",
            [],
            {"kind": "deal", "payload": {"hands": [7, 7], "dealer": L}},
            "'dealer' must be",
        ),
        (
            "dos",
            [],
            {"kind": "deal", "payload": {"hands": [L, L], "piles": ["R7", "G2"]}},
            "bad DOS card 'xxx",
        ),
        ("dos", [], {"kind": "deal", "payload": {"hands": [3, 3], "dealer": L}}, "'dealer'"),
    ],
)
def test_a_games_refusal_quotes_a_long_value_short(
    referee, tmp_path, capsys, game, before, event, start
):
    """Before: a 10 000-letter card or seat gave a 10 000-letter 400 (and replay line)."""
    game_id = referee.new_game(game, ("Ann", "Bob"))
    for earlier in before:
        assert referee.send(game_id, earlier).status_code == 201
    r = referee.send(game_id, event)
    assert r.status_code == 400 and len(r.json["error"]) < SHORT_MESSAGE, r.json["error"][:200]
    assert r.json["error"].startswith(f"{event['kind']}: {start}")
    log = tmp_path / "long.jsonl"
    header = {"game": game, "players": ["Ann", "Bob"]}
    log.write_text("\n".join(json.dumps(x) for x in [header, *before, event]) + "\n")
    assert main(["replay", str(log)]) == 2
    assert len(capsys.readouterr().err) < SHORT_MESSAGE


@pytest.mark.parametrize(
    ("card", "start"),
    [
        ({"id": "T1", "points": 1, "task": "pants:" + "r" * 5000}, "card T1: unknown pin 'rrr"),
        ({"id": "T1", "points": 1, "task": "h" * 5000 + ":red"}, "card T1: unknown piece 'hhh"),
        ({"id": "T1", "points": 1, "task": "p" * 5000}, "card T1: 'ppp"),
        ({"id": "T" * 5000, "points": "1", "task": "pants:red"}, "card TTT"),
        ({"id": "E1", "points": 0, "event": "e" * 5000}, "card E1: unknown event card 'eee"),
    ],
)
def test_a_deck_in_a_logs_header_is_refused_in_a_short_line(tmp_path, capsys, card, start):
    """Before: a Wash Dash deck's bad pin of 5 000 letters was echoed whole."""
    section = "events" if "event" in card else "tasks"
    deck = {"tasks": [{"id": "T0", "points": 1, "task": "pants:red"}], "events": []}
    deck[section].append(card)
    log = tmp_path / "deck.jsonl"
    log.write_text(json.dumps({"game": "wash-dash", "players": ["A", "B"], "deck": deck}) + "\n")
    assert main(["replay", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tabletop replay: the game's deck: {start}"), err[:200]
    assert len(err) < SHORT_MESSAGE


# -- a deck file, or a dash check line, giving a key twice ---------------------------------------
def test_a_hit_the_deck_deck_file_giving_a_key_twice_is_refused(referee, tmp_path, monkeypatch):
    """Before: ``"HAND": 4, "HAND": 40`` recorded 40 Hand cards into every new game."""
    import referee.hitthedeck.deck as htd_deck

    text = htd_deck.DECK_FILE.read_text(encoding="utf-8")
    assert '"HAND": 4}' in text
    edited = tmp_path / "deck.json"
    edited.write_text(text.replace('"HAND": 4}', '"HAND": 4, "HAND": 40}'), encoding="utf-8")
    monkeypatch.setattr(htd_deck, "DECK_FILE", edited)
    r = referee.post("/api/games", {"game": "hit-the-deck", "players": ["Ann", "Bob"]})
    assert r.status_code == 409
    assert r.json["error"] == (
        f"the deck for Hit the Deck cannot be read: {edited}: key 'HAND' given twice"
    )
    with pytest.raises(GameError, match=r"deck\.json: key 'HAND' given twice$"):
        htd_deck.read_composition()


def test_a_wash_dash_deck_file_giving_a_key_twice_is_refused(tmp_path):
    from referee.washdash.deck import DECK_FILE, DeckError, load_deck

    text = DECK_FILE.read_text(encoding="utf-8")
    first = '"points": 1, "task": "pants:red"}'
    assert first in text
    edited = tmp_path / "deck.json"
    edited.write_text(text.replace(first, '"points": 1, "points": 5, "task": "pants:red"}', 1))
    with pytest.raises(DeckError) as refused:
        load_deck(edited)
    assert str(refused.value) == f"{edited}: key 'points' given twice"


def test_dash_check_batch_refuses_a_line_giving_a_key_twice(capsys, monkeypatch):
    """Before: the second "dash" was checked, the first dropped without a word."""
    import io

    lines = '{"level": "easy", "dash": 1, "dash": 2, "cards": ["R1"]}\n'
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    assert main(["dash", "check", "--batch"]) == 2
    answer = json.loads(capsys.readouterr().out)
    assert answer == {"error": "line 1: key 'dash' given twice"}
