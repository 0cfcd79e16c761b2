"""Events round-trip through JSON; malformed ones get a clear error."""

import pytest

from referee.events import Event, EventError, Source


def test_event_json_round_trip():
    event = Event("slap", seat=2, payload={"x": [1, 2]}, t_ns=123, source=Source.PAD)
    assert Event.from_json(event.to_json()) == event
    assert Event.from_dict({"kind": "draw"}) == Event("draw")


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ([], "JSON object"),
        ({}, "kind"),
        ({"kind": ""}, "kind"),
        ({"kind": "x", "seat": -1}, "seat"),
        ({"kind": "x", "seat": True}, "seat"),
        ({"kind": "x", "payload": []}, "payload"),
        ({"kind": "x", "t_ns": 1.5}, "t_ns"),
        ({"kind": "x", "source": "moon"}, "source"),
        ({"kind": "x", "colour": "red"}, "unknown event field"),
    ],
)
def test_malformed_event_is_rejected_with_reason(data, fragment):
    with pytest.raises(EventError, match=fragment):
        Event.from_dict(data)


def test_not_json_is_an_event_error():
    with pytest.raises(EventError, match="not JSON"):
        Event.from_json("{kind:")


def test_require_names_the_missing_field():
    with pytest.raises(EventError, match="'card'"):
        Event("play").require("card")
