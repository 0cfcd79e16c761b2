"""Wash Dash review 34: how cards with transparent ("any") pins are said and refused, and a
broken editable deck file (WD-5) as one clear line in the CLI and the dashboard."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from referee.washdash import deck as deck_module
from referee.washdash.checker import satisfies
from referee.washdash.deck import DeckError, default_deck, load_deck, parse_deck
from referee.washdash.dryer import Dryer
from referee.washdash.game import GAME
from referee.washdash.pieces import EventCard
from referee.washdash.tasks import Task, opposite
from tests.test_web_routes import Tablet, make_app

DECK = default_deck()
OPPOSITE = [EventCard.OPPOSITE]
EXAMPLE_LOG = Path(__file__).parent / "data" / "wash-dash-example.jsonl"
PIECES = ("the blue pants", "the red dress", "the yellow shirt")


def says(card: str, *, flipped: bool = False) -> str:
    task = DECK[card].task
    assert task is not None
    return (opposite(task) if flipped else task).describe()


def reason(card: str, dryer: str, events: Any = ()) -> str:
    task = DECK[card].task
    assert task is not None
    return satisfies(task, Dryer.parse(dryer), events).reason


# --- A: one transparent pin holding several pieces ------------------------------------------
def test_ruling_wd3_pieces_on_one_transparent_pin_are_said_together():
    assert says("T31") == "the red dress and the yellow shirt both held by one pin of any colour"
    assert says("T44") == (
        "the blue pants and the red dress both held by one pin of any colour; "
        "the yellow shirt held by the yellow pin"
    )
    assert says("T22", flipped=True) == (
        "the blue pants and the yellow shirt both held by one pin of any colour"
    )
    assert says("T46", flipped=True) == (
        "the red dress, the yellow shirt and the blue pants all held by one pin of any colour"
    )
    assert DECK["T31"].to_dict()["says"] == says("T31")  # what the tablet shows


def test_transparent_parts_said_after_one_of_their_kind_are_other():
    """WD-3: each transparent part is a different part; "any pin; any pin" read as one."""
    assert says("T15") == "any piece held by the yellow pin; any other piece held by the blue pin"
    assert says("T15", flipped=True) == (
        "the yellow shirt held by any pin; the blue pants held by any other pin"
    )
    assert says("T38", flipped=True) == (
        "the red dress and the yellow shirt both held by one pin of any colour; "
        "the blue pants held by any other pin"
    )


def test_a_piece_on_a_colour_and_a_transparent_pin_reads_as_two_pins():
    assert (
        Task.parse("pants:red+any").describe()
        == "the blue pants held by the red pin and any other pin"
    )
    assert Task.parse("dress:red+any1; shirt:any1").describe() == (
        "the red dress (also held by the red pin) and the yellow shirt both held by one other "
        "pin of any colour"
    )


@pytest.mark.parametrize("flipped", [False, True])
def test_every_deck_card_names_each_of_its_pieces_once(flipped):
    for card in DECK.task_ids:
        text = says(card, flipped=flipped)
        task = DECK[card].task
        shown = opposite(task) if flipped else task  # type: ignore[arg-type]
        for piece in PIECES:
            named = any(piece.endswith(h.piece) for h in shown.hangings)
            assert text.count(piece) == (1 if named else 0), (card, text)
        assert "any pin pin" not in text and " pins pin" not in text, (card, text)


def test_a_shared_transparent_pin_not_shared_on_the_dryer_is_said():
    assert reason("T31", "dress:blue / shirt:yellow / -") == (
        "Not done: the red dress and the yellow shirt must both hang on the same pin."
    )
    assert reason("T44", "pants:red / dress:blue / shirt:yellow").endswith(
        "the blue pants and the red dress must both hang on the same pin."
    )
    flipped = reason("T38", "dress:blue / shirt:red / pants:yellow", OPPOSITE)
    assert flipped.endswith(
        "Not done: the red dress and the yellow shirt must both hang on the same pin."
    )
    assert reason("T46", "dress:red; shirt:red / pants:blue / -", OPPOSITE).endswith(
        "the red dress, the yellow shirt and the blue pants must all hang on the same pin."
    )
    assert reason("T31", "dress:yellow; shirt:yellow / - / -") == (
        "Done: the red dress and the yellow shirt both held by one pin of any colour."
    )


def test_pieces_sharing_a_pin_the_card_gives_them_apart_are_said():
    assert reason("T15", "shirt:red; pants:red / - / -", OPPOSITE).endswith(
        "Not done: the yellow shirt must hang on a pin of its own, not with the blue pants."
    )
    assert reason("T06", "pants:red; shirt:red / - / -") == (
        "Not done: the yellow shirt must hang on a pin of its own, not with the blue pants."
    )
    assert reason("T31", "pants:red; dress:red; shirt:red / - / -") == (
        "Not done: the red dress must not share a pin with the blue pants."
    )


# --- B: a broken editable deck file ------------------------------------------------------
TASK = {"id": "T01", "points": 1, "task": "pants:red"}


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"tasks": ["T01 pants:red"]}, r'tasks entry 1 \("T01 pants:red"\) must be an object'),
        ({"tasks": [TASK], "events": [7]}, "events entry 1 .* must be an object"),
        ({"tasks": "T01 pants:red"}, '"tasks" must be a list of cards'),
        ({"tasks": {"T01": "pants:red"}}, '"tasks" must be a list of cards'),
        (
            {"tasks": [{"points": 1, "task": "pants:red"}]},
            'tasks entry 1: every card needs an "id"',
        ),
        ({"tasks": [{"id": 5, "points": 1, "task": "pants:red"}]}, 'needs an "id"'),
        ({"tasks": [{**TASK, "pionts": 2}]}, "card T01: unknown field 'pionts'"),
        ({"tasks": [TASK], "event": []}, "the deck: unknown field 'event'; use tasks, events"),
        ({"tasks": [{**TASK, "task": {"pants": "red"}}]}, "card T01: a task is a string"),
    ],
)
def test_a_malformed_deck_names_the_entry(data, words):
    with pytest.raises(DeckError, match=words):
        parse_deck(data)


def test_a_deck_comment_field_is_allowed():
    assert parse_deck({"_about": "ours", "tasks": [{**TASK, "_note": "easy"}]}).task_ids == ("T01",)


def broken_deck(tmp_path: Path, edit: str = "pin") -> Path:
    """A copy of the shipped deck with a family's typo in it."""
    text = deck_module.DECK_FILE.read_text(encoding="utf-8")
    typo = {
        "pin": text.replace('"task": "pants:red"}', '"task": "pants:rde"}', 1),
        "string": text.replace(
            '{"id": "T01", "points": 1, "task": "pants:red"},', '"T01 pants:red",'
        ),
    }[edit]
    assert typo != text
    path = tmp_path / "deck.json"
    path.write_text(typo, encoding="utf-8")
    return path


def test_load_deck_names_the_file_and_the_card(tmp_path):
    with pytest.raises(DeckError, match=r"deck\.json: card T01: unknown pin 'rde'"):
        load_deck(broken_deck(tmp_path))
    with pytest.raises(DeckError, match=r"deck\.json: tasks entry 1 .* must be an object"):
        load_deck(broken_deck(tmp_path, "string"))
    with pytest.raises(DeckError, match=r"missing\.json: cannot read the deck"):
        load_deck(tmp_path / "missing.json")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(DeckError, match=r"deep\.json: "):
        load_deck(deep)


@pytest.fixture
def use_deck(monkeypatch) -> Iterator[Any]:
    """Point the Wash Dash rules at another deck file, as if the family had edited theirs."""

    def use(path: Path) -> None:
        monkeypatch.setattr(deck_module, "DECK_FILE", path)
        monkeypatch.setattr(GAME, "_deck", None)
        default_deck.cache_clear()

    yield use
    default_deck.cache_clear()  # the next test reads the shipped deck again


@pytest.mark.parametrize("edit", ["pin", "string"])
def test_replay_with_a_broken_deck_is_one_line_exit_2(tmp_path, use_deck, capsys, edit):
    path = broken_deck(tmp_path, edit)
    use_deck(path)
    code = main(["replay", str(EXAMPLE_LOG)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"tabletop replay: {path}: ") and err.count("\n") == 1, err
    assert "Traceback" not in err


def test_the_dashboard_says_a_broken_deck_in_one_json_line(tmp_path, use_deck):
    t = Tablet(make_app(tmp_path))
    t.set_pin()
    game_id = t.new_game("wash-dash", ("Ann", "Bob"))  # created while the deck was fine
    use_deck(broken_deck(tmp_path))
    r = t.post("/api/games", {"game": "wash-dash", "players": ["Ann", "Bob"], "options": {}})
    assert r.status_code == 409, r.json
    assert "deck.json: card T01: unknown pin 'rde'" in json.dumps(r.json)
    r = t.client.get(f"/api/games/{game_id}")
    assert r.status_code == 200, r.json  # it keeps the deck it was set up with (WD-5)


def test_a_piece_on_two_pins_must_hang_on_pins_of_its_own():
    from referee.washdash.checker import satisfies
    from referee.washdash.dryer import Dryer
    from referee.washdash.tasks import Task

    got = satisfies(
        Task.parse("pants:red+yellow"), Dryer.parse("pants:red+yellow shirt:yellow / - / -"), ()
    )
    assert not got.ok and "the blue pants must hang on pins of its own" in got.reason
