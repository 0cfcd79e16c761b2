"""Wash Dash parts, tasks, the dryer-state contract and the pure task checker."""

import json

import pytest

from referee.washdash.checker import example_dryer, satisfies
from referee.washdash.dryer import Dryer, DryerError, HungPiece
from referee.washdash.pieces import EventCard, Piece, PinColor
from referee.washdash.tasks import Task, TaskError, opposite, same_task

OPP = [EventCard.OPPOSITE]


def ok(task: str, dryer: str, events=(), **kw) -> bool:
    return satisfies(Task.parse(task), Dryer.parse(dryer), events, **kw).ok


def why(task: str, dryer: str, events=(), **kw) -> str:
    check = satisfies(Task.parse(task), Dryer.parse(dryer), events, **kw)
    assert not check.ok
    return check.reason


# --- the rulebook's figures ---------------------------------------------------------------


def test_fig_4a_three_pieces_each_on_its_pin_and_bar():
    task = "pants:red; dress:yellow; shirt:blue"
    assert ok(task, "pants:red / dress:yellow / shirt:blue")
    assert ok(task, "shirt:blue / pants:red / dress:yellow")  # which bar is which: free
    assert not ok(task, "pants:yellow / dress:red / shirt:blue")


def test_fig_4b_any_piece_on_two_pins():
    assert ok("any:blue+yellow", "- / shirt:blue+yellow / -")
    assert ok("any:blue+yellow", "pants:yellow+blue / - / -")
    assert not ok("any:blue+yellow", "pants:blue / shirt:yellow / -")


def test_fig_4c_one_pin_holds_both_pieces():
    assert ok("pants:red; shirt:red", "pants:red; shirt:red / - / -")
    assert not ok("pants:red; shirt:red", "pants:red / shirt:blue / -")


def test_fig_5d_opposite_example():
    card = Task.parse("pants:red; shirt:red")  # blue pants and yellow shirt on the red pin
    assert same_task(opposite(card), Task.parse("dress:yellow+blue"))
    assert ok("pants:red; shirt:red", "dress:yellow+blue / - / -", OPP)
    reason = why("pants:red; shirt:red", "pants:red; shirt:red / - / -", OPP)
    assert reason.startswith("With Opposite the card means the red dress held by")


def test_events_other_than_opposite_do_not_change_the_task():
    events = [EventCard.ONE_HANDED, EventCard.FIRST_BONUS]
    assert ok("pants:red", "pants:red / - / -", events)
    assert ok("pants:red", "pants:red / - / -", ["one-handed", "first bonus"])


# --- reasons a family can act on -------------------------------------------------------


def test_reason_missing_piece_and_pin():
    assert "needs the red dress, but it is not on the dryer" in why(
        "dress:red", "pants:red / - / -"
    )
    assert "needs the yellow pin" in why("pants:yellow", "pants:red / - / -")


def test_reason_wrong_pins_on_a_piece():
    reason = why("pants:red; dress:yellow", "pants:yellow / dress:red / -")
    assert "the blue pants must be held by the red pin, but it is held by the yellow pin" in reason


def test_reason_pin_count():
    reason = why("dress:red+blue", "dress:red / pants:blue / -")
    assert "the red dress must be held by 2 pins, but it is held by 1" in reason


def test_reason_impossible_reading():
    reason = why("pants:red", "pants:red / pants:blue / -")
    assert "cannot be right" in reason and "seen twice" in reason
    reason = why("pants:red; dress:red", "pants:red / dress:red / -")
    assert "red pin is seen on bar 1 and bar 2 at once" in reason


def test_unknown_extra_items_setting_is_a_programming_error():
    with pytest.raises(ValueError):
        satisfies(Task.parse("pants:red"), Dryer.empty(), extra_items="maybe")


# --- rulings -------------------------------------------------------------------------------


def test_ruling_wd1_piece_colours():
    assert Piece.PANTS.color is PinColor.BLUE
    assert Piece.DRESS.color is PinColor.RED
    assert Piece.SHIRT.color is PinColor.YELLOW
    assert {c.piece for c in PinColor} == set(Piece)
    # Opposite maps colour for colour: the red pin becomes the red dress
    assert same_task(opposite(Task.parse("any:red")), Task.parse("dress:any"))


def test_ruling_wd2_bar_rule_pins_on_one_bar_must_share_a_piece():
    # two pins on one piece share its bar
    assert ok("dress:red+blue", "dress:red+blue / - / -")
    # two pieces on their own pins must use two bars
    assert "both on bar 1" in why("pants:red; dress:yellow", "pants:red; dress:yellow / - / -")
    # one pin holding two pieces is one pin on one bar (fig. 4c)
    assert ok("pants:red; shirt:red", "- / - / pants:red; shirt:red")
    # a piece on two pins plus another piece on its own bar
    assert ok("pants:red+yellow; dress:blue", "pants:red+yellow / dress:blue / -")
    assert not ok("pants:red+yellow; dress:blue", "pants:red+yellow; dress:blue / - / -")


def test_ruling_wd3_each_any_pin_is_a_different_pin():
    same_pin = "pants:red; dress:red / - / -"
    assert not ok("pants:any; dress:any", same_pin)
    assert ok("pants:any; dress:any", "pants:red / dress:blue / -")
    assert ok("pants:any1; dress:any1", same_pin)  # a named wildcard is one pin
    assert not ok("pants:any1; dress:any1", "pants:red / dress:blue / -")


def test_ruling_wd4_extra_items():
    dryer = "pants:red / - / shirt:blue"
    assert ok("pants:red", dryer)
    assert "nothing else may hang" in why("pants:red", dryer, extra_items="forbid")
    # a piece touching the task's pin is never "apart from the task"
    assert not ok("pants:red", "pants:red; shirt:red / - / -")


# --- data formats ------------------------------------------------------------------------


def test_dryer_json_round_trip_and_schema():
    dryer = Dryer(
        (
            (HungPiece(Piece.DRESS, (PinColor.YELLOW, PinColor.BLUE)),),
            (HungPiece(Piece.PANTS, (PinColor.RED,)),),
            (),
        )
    )
    data = dryer.to_dict()
    assert data == {
        "bars": [
            [{"piece": "dress", "pins": ["yellow", "blue"]}],
            [{"piece": "pants", "pins": ["red"]}],
            [],
        ]
    }
    assert Dryer.from_dict(json.loads(json.dumps(data))) == dryer
    assert Dryer.parse(dryer.to_text()) == dryer
    assert dryer.to_text() == "dress:yellow+blue / pants:red / -"
    assert Dryer.from_dict("dress:yellow+blue / pants:red / -") == dryer


def test_canonical_dryer_ignores_listing_order_but_keeps_bars():
    a = Dryer.parse("shirt:red; pants:red / dress:blue+yellow / -")
    b = Dryer.parse("pants:red; shirt:red / dress:yellow+blue / -")
    assert a != b and a.canonical() == b.canonical()
    assert a.canonical().to_text() == "pants:red; shirt:red / dress:yellow+blue / -"
    assert Dryer.parse("- / pants:red / -").canonical() != Dryer.parse("pants:red / - / -")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"bars": [[], []]}, "3 bars"),
        ({"bars": [[{"piece": "sock", "pins": ["red"]}], [], []]}, "unknown piece 'sock'"),
        ({"bars": [[{"piece": "pants", "pins": ["green"]}], [], []]}, "unknown pin colour"),
        ({"bars": [[{"piece": "pants", "pins": "red"}], [], []]}, "list of pin colours"),
        ({"bar": []}, '"bars"'),
        ("pants:red / -", "3 bars"),
        ([1, 2, 3], '"bars"'),
    ],
)
def test_malformed_dryer_states_are_errors(data, message):
    with pytest.raises(DryerError, match=message):
        Dryer.from_dict(data)


def test_task_text_and_list_forms():
    task = Task.parse("pants:red+yellow; dress:blue")
    assert task.to_text() == "pants:red+yellow; dress:blue"
    assert Task.from_data(task.to_dict()) == task
    assert (
        Task.from_data("any:blue+yellow").describe()
        == "any piece held by the blue and the yellow pins"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("pants:red; pants:blue", "same piece twice"),
        ("sock:red", "unknown piece"),
        ("pants:green", "unknown pin"),
        ("pants", "piece:pin"),
        ("pants:red+red", "same pin twice"),
        ("pants:any; dress:any; shirt:any; any:any", "at most 3 pieces"),
        ("pants:any+any; dress:any+any", "at most 3 pins"),
        ("", "at least one piece"),
    ],
)
def test_bad_tasks_are_errors(text, message):
    with pytest.raises(TaskError, match=message):
        Task.parse(text)


def test_example_dryer_completes_its_task_with_and_without_opposite():
    for text in (
        "pants:red; dress:yellow; shirt:blue",
        "any:blue+yellow",
        "dress:any1; shirt:any1",
    ):
        task = Task.parse(text)
        assert satisfies(task, example_dryer(task)).ok
        assert satisfies(task, example_dryer(task, OPP), OPP).ok


def test_example_dryer_refuses_an_impossible_task():
    # pants on red+yellow and dress on yellow+blue: red and blue pins would share a bar
    with pytest.raises(TaskError, match="cannot be hung"):
        example_dryer(Task.parse("pants:red+yellow; dress:yellow+blue"))
