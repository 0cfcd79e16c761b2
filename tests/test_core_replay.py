"""Replay, undo and overrule on the generic layer (with the trivial Tally game)."""

import pytest

from referee.events import Event
from referee.game import GameError
from referee.replay import ReplayError, effective_events, replay
from tests.tally_game import GAME


def add(seat, n):
    return Event("add", seat=seat, payload={"n": n})


def test_replay_applies_events_in_order():
    result = replay(GAME, ["Ann", "Bob"], {}, [add(0, 3), add(1, 5), add(0, 1)])
    assert result.state.totals == (4, 5)
    assert [s.seq for s in result.steps] == [1, 2, 3]


def test_illegal_event_leaves_state_unchanged_and_says_why():
    result = replay(GAME, ["Ann"], {}, [add(0, 2), add(0, -5)])
    assert result.state.totals == (2,)
    assert result.steps[-1].verdicts[0].outcome.value == "illegal"


def test_undo_disregards_its_target():
    log = [add(0, 3), add(0, 10), Event("undo", payload={"target": 2})]
    result = replay(GAME, ["Ann"], {}, log)
    assert result.state.totals == (3,)
    assert result.disregarded == {2}


def test_undoing_an_undo_restores_the_event():
    log = [
        add(0, 3),
        add(0, 10),
        Event("undo", payload={"target": 2}),
        Event("undo", payload={"target": 3}),
    ]
    assert replay(GAME, ["Ann"], {}, log).state.totals == (13,)


def test_overrule_replaces_the_target_at_its_position():
    log = [
        add(0, 3),
        add(0, -3),  # would be legal: 3 - 3 = 0
        add(0, 1),
        Event("overrule", payload={"target": 1, "event": add(0, 2).to_dict()}),
    ]
    # With 2 instead of 3 at position 1, event 2 becomes illegal (2 - 3 < 0).
    result = replay(GAME, ["Ann"], {}, log)
    assert result.state.totals == (3,)
    outcomes = [v.outcome.value for _, v in result.verdicts]
    assert outcomes == ["score", "illegal", "score"]


@pytest.mark.parametrize(
    "meta",
    [
        Event("undo", payload={"target": 5}),
        Event("undo", payload={"target": "1"}),
        Event("undo", payload={}),
        Event("overrule", payload={"target": 1, "event": {"nokind": 1}}),
    ],
)
def test_bad_meta_events_name_their_sequence_number(meta):
    with pytest.raises(ReplayError, match=r"event 2 \("):
        replay(GAME, ["Ann"], {}, [add(0, 1), meta])


def test_effective_events_keeps_numbering():
    log = [(1, add(0, 1)), (2, add(0, 2)), (3, Event("undo", payload={"target": 1}))]
    assert [seq for seq, _ in effective_events(log)] == [2]


def test_bad_setup_is_a_game_error():
    with pytest.raises(GameError, match="players"):
        replay(GAME, [], {}, [])
    with pytest.raises(GameError, match="unknown option"):
        replay(GAME, ["Ann"], {"speed": 3}, [])
    with pytest.raises(GameError, match="integer"):
        replay(GAME, ["Ann"], {"limit": "ten"}, [])
    with pytest.raises(GameError, match="different"):
        replay(GAME, ["Ann", "Ann"], {}, [])
