"""Vision II: detections → sightings → observations → referee events and tablet prompts."""

import numpy as np
import pytest

from referee.events import Source
from referee.registry import find_game
from vision.table.adapter import NOT_A_CARD, UNREAD, detector_from, to_sightings
from vision.table.frames import Frame
from vision.table.labels import card_token
from vision.table.stability import Observation, StabilityTracker, ZoneReading
from vision.table.to_events import EventMapper, Prompt, with_cards
from vision.table.watcher import TableWatcher
from vision.table.zones import TableLayout, ZoneKind, rectangle

MS = 1_000_000

WEB_DOC = {
    "version": 1,
    "updated_at": 1764420000.0,
    "frame": {"width": 640, "height": 480},
    "zones": [
        {
            "name": "draw_pile",
            "kind": "draw_pile",
            "seat": None,
            "index": None,
            "bar": None,
            "points": [[0.1, 0.4], [0.3, 0.4], [0.3, 0.6], [0.1, 0.6]],
        },
        {
            "name": "discard_1",
            "kind": "discard_pile",
            "seat": None,
            "index": 1,
            "bar": None,
            "points": [[0.4, 0.4], [0.6, 0.4], [0.6, 0.6], [0.4, 0.6]],
        },
        {
            "name": "discard_2",
            "kind": "discard_pile",
            "seat": None,
            "index": 2,
            "bar": None,
            "points": [[0.7, 0.4], [0.9, 0.4], [0.9, 0.6], [0.7, 0.6]],
        },
        {
            "name": "seat_1_area",
            "kind": "seat_area",
            "seat": 1,
            "index": None,
            "bar": None,
            "points": [[0.0, 0.7], [0.5, 0.7], [0.5, 1.0], [0.0, 1.0]],
        },
        {
            "name": "seat_0_dryer",
            "kind": "dryer",
            "seat": 0,
            "index": None,
            "bar": None,
            "points": [[0.0, 0.0], [0.4, 0.0], [0.4, 0.35], [0.0, 0.35]],
        },
        {
            "name": "seat_0_dryer_bar_2",
            "kind": "dryer_bar",
            "seat": 0,
            "index": None,
            "bar": 2,
            "points": [[0.0, 0.1], [0.4, 0.1], [0.4, 0.2], [0.0, 0.2]],
        },
    ],
}


def test_web_calibration_document_loads_as_a_table_layout():
    from web.services.zones import validate

    layout = TableLayout.from_dict(validate(WEB_DOC))  # exactly what the tablet saves
    assert layout.zone("discard_1").kind is ZoneKind.DISCARD
    assert layout.zone("seat_1_area").kind is ZoneKind.SEAT and layout.zone("seat_1_area").seat == 1
    bar = layout.zone("seat_0_dryer_bar_2")
    assert (bar.kind, bar.seat, bar.bar) == (ZoneKind.BAR, 0, 2)
    assert [z.name for z in layout.discard_piles()] == ["discard_1", "discard_2"]
    assert layout.zone_at(0.2, 0.15).name == "seat_0_dryer_bar_2"


@pytest.mark.parametrize(
    ("game", "color", "value", "token"),
    [
        ("deck-dash", "red", "7", "R7"),
        ("deck-dash", None, "wild", "W"),
        ("deck-dash", None, "draw2discard1", "D2D1"),
        ("deck-dash", None, "7", None),
        ("dos", "blue", "draw4", "BD4"),
        ("dos", "green", "skip", "GSKIP"),
        ("hit-the-deck", "yellow", "cut", "YCUT"),
        ("hit-the-deck", None, "hithand", "HAND"),
        ("hit-the-deck", None, "hitnumber", None),
    ],
)
def test_card_tokens_parse_in_each_engine(game, color, value, token):
    assert card_token(game, color, value) == token
    if token:
        mod = {
            "deck-dash": "referee.cards",
            "dos": "referee.dos.cards",
            "hit-the-deck": "referee.hitthedeck.cards",
        }[game]
        parse = __import__(mod, fromlist=["parse_card"]).parse_card
        parse(token)  # raises if the engine would refuse it


def test_ruling_tbl1_unreadable_boxes_occlude_and_unnamed_cards_are_marked():
    dets = [
        {"color": "red", "value": "7", "confidence": 0.9, "box": [320, 240, 384, 336]},
        {"color": None, "value": "other", "confidence": 0.8, "box": [0, 0, 64, 48]},
        {"color": "blue", "value": "3", "confidence": 0.1, "box": [64, 48, 128, 96]},
        {"color": None, "value": "hitnumber", "confidence": 0.9, "box": [0, 0, 10, 10]},
    ]
    s = to_sightings(dets, 640, 480, "hit-the-deck")
    assert s[0].label == "R7" and s[0].box == (0.5, 0.5, 0.6, 0.7) and not s[0].occluder
    assert s[1].occluder and s[1].label == NOT_A_CARD
    assert s[2].occluder  # too unsure to be a card: something lies over the zone
    assert s[3].label == UNREAD and not s[3].occluder


def test_ruling_tbl6_the_readers_box_angle_reaches_the_sighting_as_the_long_side():
    """A rotated box's angle names the card's long side (0–180°), whichever side the box
    calls its width; ``identify``'s JSON keeps its four fields, the watcher gets the angle."""
    from vision.runtime.detections import Detections
    from vision.table.adapter import reader_detector

    obb = np.array(
        [
            [320, 240, 60, 90, np.radians(10)],  # upright card turned 10°: long side 100°
            [100, 100, 90, 60, np.radians(-30)],  # lying card: long side along the box's w
            [200, 300, 60, 90, np.radians(95)],  # 95° + 90° = 185° → 5°
        ],
        np.float32,
    )
    dets = Detections(
        obb,
        np.full(3, 0.9, np.float32),
        np.zeros(3, np.int64),
        np.array(["red", "blue", "green"], object),
        np.array(["7", "3", "5"], object),
    )
    assert np.allclose(dets.angles, [100.0, 150.0, 5.0], atol=1e-3)
    assert set(dets.cards()[0]) == {"color", "value", "confidence", "box"}
    sightings = reader_detector(lambda image: dets, "deck-dash")(np.zeros((480, 640, 3)))
    assert [(s.label, s.angle) for s in sightings] == [("R7", 100.0), ("B3", 150.0), ("G5", 5.0)]
    assert to_sightings(dets.cards(), 640, 480, "deck-dash")[0].angle is None


def test_ruling_tbl1_motion_inside_a_zone_holds_its_reading_back():
    """A card slid into the pile while a hand hovers is reported only after it settles."""
    layout = TableLayout((rectangle("discard_1", ZoneKind.DISCARD, (0.4, 0.4, 0.6, 0.6)),))
    det = detector_from(
        lambda img: [{"color": "red", "value": "7", "confidence": 0.9, "box": [70, 50, 90, 70]}],
        "deck-dash",
    )
    watcher = TableWatcher(det, layout, tracker=StabilityTracker(min_frames=3, min_ns=60 * MS))
    rng = np.random.default_rng(0)
    seen = []
    for i in range(20):
        img = np.full((120, 160, 3), 60, np.uint8)
        if i < 10:  # a hand moving over the pile: different noise pattern in the zone
            img[48:72, 64:96] = rng.integers(0, 255, (24, 32, 3))
        seen += [(i, o.after) for o in watcher.process(Frame(img, i * 33 * MS, i))]
    assert len(seen) == 1 and seen[0][1] == ("R7",) and seen[0][0] >= 12


def obs(zone, before, after, conf=0.9, t=5):
    return Observation(zone, tuple(before), tuple(after), t, t + 100, conf)


def layout():
    return TableLayout.from_dict(WEB_DOC)


def test_ruling_tbl2_deck_dash_pile_play_becomes_a_camera_discard_event():
    m = EventMapper("deck-dash", layout())
    (ev,) = m.propose(obs("discard_1", [], ["R7"], t=123), seat=2)
    assert (ev.kind, ev.seat, dict(ev.payload), ev.t_ns, ev.source) == (
        "discard",
        2,
        {"card": "R7"},
        123,
        Source.CAMERA,
    )
    (ev,) = m.propose(obs("discard_1", ["R7"], ["KEEP2"]), seat=3)
    assert ev.kind == "play"
    kinds = find_game("deck-dash").event_kinds()
    assert {"discard", "play", "lay", "handoff"} <= set(kinds)


def test_ruling_tbl2_low_confidence_and_unknown_seat_become_prompts():
    m = EventMapper("deck-dash", layout())
    (p,) = m.propose(obs("discard_1", [], ["G5"], conf=0.4), seat=1)
    assert isinstance(p, Prompt) and p.kind == "confirm_card"
    assert p.suggestion.payload["card"] == "G5" and "G5" in p.message
    (p,) = m.propose(obs("discard_1", ["G5"], ["B9"]), seat=None)
    assert p.kind == "who_played"
    (p,) = m.propose(obs("discard_1", ["B9"], [UNREAD]), seat=1)
    assert p.kind == "unknown_card" and p.suggestion is None
    assert p.to_dict()["prompt"] == "unknown_card"


def test_ruling_tbl2_a_card_taken_back_is_asked_about_not_played():
    m = EventMapper("deck-dash", layout())
    assert m.propose(obs("discard_1", [], ["R7"]), seat=0)[0].kind == "discard"
    assert m.propose(obs("discard_1", ["R7"], ["B2"]), seat=1)[0].kind == "discard"
    (p,) = m.propose(obs("discard_1", ["B2"], ["R7"]), seat=2)
    assert isinstance(p, Prompt) and p.kind == "taken_back"
    assert p.choices == ("undo", "keep", "another")
    assert m.propose(obs("discard_1", ["R7"], []), seat=2) == []  # pile picked up


def test_ruling_tbl2_the_familys_ruling_stands_until_the_pile_changes():
    """The family undid R7 (still on the pile): R7 taken off, the pile shows G7, what the
    game says: nothing to ask. Had a card been played on R7 and taken back, that card is
    asked about as usual. An overrule renames the card seen: taking it back asks about the
    family's card, not the camera's reading of it."""
    m = EventMapper("deck-dash", layout())
    m.note_top("discard_1", "G7")
    assert m.propose(obs("discard_1", ["G7"], ["R7"]), seat=0)[0].kind == "discard"
    m.rule("discard_1", "G7")  # undone
    assert m.propose(obs("discard_1", ["R7"], ["G7"]), seat=1) == []
    assert m.propose(obs("discard_1", ["G7"], ["R7"]), seat=1)[0].kind == "discard"  # played
    m.rule("discard_1", "G7")  # undone again, and B2 is played on the R7 left there
    assert m.propose(obs("discard_1", ["R7"], ["B2"]), seat=1)[0].kind == "discard"
    (p,) = m.propose(obs("discard_1", ["B2"], ["R7"]), seat=0)
    assert p.kind == "taken_back" and p.message.startswith("B2 was taken back")

    m = EventMapper("deck-dash", layout())
    m.note_top("discard_1", "G7")
    m.propose(obs("discard_1", ["G7"], ["R7"]), seat=0)
    m.rule("discard_1", "G9")  # overruled: the card seen as R7 is G9
    (p,) = m.propose(obs("discard_1", ["R7"], ["G7"]), seat=1)
    assert p.kind == "taken_back" and p.message.startswith("G9 was taken back off the pile")
    m.rule("discard_1", "Y9")
    m.note_top("discard_1", "Y3")  # a play typed on the tablet ends a ruling
    assert m.propose(obs("discard_1", ["Y3"], ["Y9"]), seat=1)[0].kind == "discard"


def test_ruling_tbl6_a_take_back_question_also_offers_another_copy_played():
    """A twin laid where its twin lay looks exactly like B2 taken back: the question's third
    answer sends the twin's play (by the player on turn, at the time it was seen)."""
    m = EventMapper("deck-dash", layout())
    m.propose(obs("discard_1", [], ["R7"]), seat=0)
    m.propose(obs("discard_1", ["R7"], ["B2"]), seat=1)
    (p,) = m.propose(obs("discard_1", ["B2"], ["R7"], t=9), seat=2)
    (another,) = p.answers
    assert (another.name, another.label) == ("another", "Another R7 was played")
    assert another.event.kind == "discard" and another.event.seat == 2
    assert another.event.payload == {"card": "R7"} and another.event.t_ns == p.t_ns
    assert p.to_dict()["answers"] == [another.to_dict()]
    assert another.to_dict()["event"]["payload"] == {"card": "R7"}


def test_ruling_tbl4_seat_area_reads_a_laid_dash_then_handoffs():
    m = EventMapper("deck-dash", layout())
    (ev,) = m.propose(obs("seat_1_area", [], ["R7", "G7", "W"]), seat=1)
    assert (ev.kind, ev.seat, ev.payload["cards"]) == ("lay", 1, ["G7", "R7", "W"])
    (p,) = m.propose(obs("seat_1_area", ["G7", "R7", "W"], ["B7", "G7", "R7", "W"]), seat=3)
    assert p.kind == "which_group" and p.suggestion.kind == "handoff"
    assert p.suggestion.seat == 3 and p.suggestion.payload == {"card": "B7"}


def test_ruling_tbl4_cards_the_game_has_in_a_seat_area_are_not_laid_again():
    """The game has seat 1's Dash (laid before the watcher started, or typed on the tablet)
    that the camera did not see arrive: seeing it is neither a ``lay`` nor a handoff; a
    card beyond it is a handoff (a second copy of a card the Dash holds included)."""
    m = EventMapper("deck-dash", layout())
    m.note_area("seat_1_area", ["W", "R7", "G7"])
    assert m.propose(obs("seat_1_area", [], ["G7", "R7", "W"]), seat=0) == []
    (p,) = m.propose(obs("seat_1_area", [], ["G7", "G7", "R7", "W"]), seat=0)
    assert p.kind == "which_group" and p.suggestion.payload == {"card": "G7"}
    assert (p.suggestion.kind, p.suggestion.seat) == ("handoff", 0)
    (ev,) = EventMapper("deck-dash", layout()).propose(obs("seat_1_area", [], ["R7"]), seat=1)
    assert ev.kind == "lay"  # nothing known there: as before
    assert with_cards(["G7", "R7"], ["R7", "R7", "B1"]) == ("B1", "G7", "R7", "R7")


def test_ruling_tbl3_dos_piles_are_left_and_right():
    m = EventMapper("dos", layout())
    (ev,) = m.propose(obs("discard_2", ["R3"], ["RSKIP"]), seat=0)
    assert (ev.kind, dict(ev.payload)) == ("play", {"card": "RSKIP", "pile": "right"})
    (ev,) = m.propose(obs("discard_1", [], ["B4"]), seat=0)
    assert ev.payload["pile"] == "left"
    assert (m.pile_of("discard_1"), m.pile_of("discard_2")) == ("left", "right")
    assert EventMapper("deck-dash", layout()).pile_of("discard_1") is None  # one pile


def test_ruling_tbl3_hit_the_deck_turn_up_when_nobody_is_on_turn():
    m = EventMapper("hit-the-deck", layout())
    (ev,) = m.propose(obs("discard_1", [], ["G4"]), seat=None)
    assert (ev.kind, dict(ev.payload)) == ("turn_up", {"card": "G4"})
    (ev,) = m.propose(obs("discard_1", ["G4"], ["GCUT"]), seat=1)
    assert (ev.kind, ev.seat) == ("play", 1)


def test_ruling_tbl6_the_same_face_played_again_is_asked_about():
    tracker = StabilityTracker(min_frames=3, min_ns=60 * MS)
    here, there = (0.50, 0.50), (0.53, 0.47)
    script = (
        [ZoneReading(("R1",), 0.9, pose=here)] * 4
        + [ZoneReading(("R1",), 0.9, pose=(0.505, 0.498))] * 3  # a box wobbles: nothing
        + [ZoneReading((), 0.0, occluded=True)] * 4  # a hand over the pile...
        + [ZoneReading(("R1",), 0.9, pose=there)] * 4  # ...and the top R1 lies elsewhere
        + [ZoneReading((), 0.0, occluded=True)] * 2  # a hand passes...
        + [ZoneReading(("R1",), 0.9, pose=(0.531, 0.471))] * 4  # ...the card did not move
    )
    seen = []
    for i, reading in enumerate(script):
        seen += tracker.update(i * 33 * MS, {"discard_1": reading})
    assert [(o.before, o.after, o.moved) for o in seen] == [
        ((), ("R1",), False),
        (("R1",), ("R1",), True),
    ]
    (p,) = EventMapper("deck-dash", layout()).propose(seen[1], seat=2)
    assert isinstance(p, Prompt) and p.kind == "same_card" and p.choices == ("yes", "no")
    assert p.suggestion.kind == "discard" and p.suggestion.payload == {"card": "R1"}


def test_ruling_tbl6_the_face_under_the_top_again_elsewhere_is_another_copy_asked_about():
    """Deck Dash holds two of every card: R2, KEEP2 on it, then the other R2 played on
    KEEP2 shows the face that lay under KEEP2. Lying where the first R2 lay it is KEEP2 taken
    back (asked as such); lying elsewhere it is another R2, asked with the play as the
    suggestion (bench.table video seed 1011 missed this play before)."""
    mapper = EventMapper("deck-dash", layout())
    first = Observation("discard_1", (), ("R2",), 5, 105, 0.9, pose=(0.52, 0.56))
    keep = Observation("discard_1", ("R2",), ("KEEP2",), 205, 305, 0.9, pose=(0.51, 0.51))
    assert [p.kind for p in mapper.propose(first, 0)] == ["discard"]
    assert [p.kind for p in mapper.propose(keep, 1)] == ["play"]
    again = Observation("discard_1", ("KEEP2",), ("R2",), 405, 505, 0.9, pose=(0.51, 0.50))
    (p,) = mapper.propose(again, 2)
    assert isinstance(p, Prompt) and p.kind == "same_card" and p.choices == ("yes", "no")
    assert p.suggestion.kind == "discard" and p.suggestion.payload == {"card": "R2"}

    mapper = EventMapper("deck-dash", layout())
    mapper.propose(first, 0)
    mapper.propose(keep, 1)
    back = Observation("discard_1", ("KEEP2",), ("R2",), 405, 505, 0.9, pose=(0.525, 0.555))
    (p,) = mapper.propose(back, 2)
    assert p.kind == "taken_back"
    # a card whose place is unknown (typed on the tablet) is a take-back as before
    mapper = EventMapper("deck-dash", layout())
    mapper.note_top("discard_1", "R2")
    mapper.propose(keep, 1)
    (p,) = mapper.propose(again, 2)
    assert p.kind == "taken_back"


def test_ruling_tbl6_a_twin_laid_on_its_twins_spot_at_another_angle_is_asked_about():
    """A card's angle is part of where it lies: the other R1 laid on the first one's spot
    but turned is asked about as another copy; a box's angle wobbling by a few degrees, or
    the same long side seen either way round (179° and 2°), is the same card."""
    tracker = StabilityTracker(min_frames=3, min_ns=60 * MS)
    covered = [ZoneReading((), 0.0, occluded=True)] * 3
    script = (
        [ZoneReading(("R1",), 0.9, pose=(0.50, 0.50, 179.0))] * 4
        + covered
        + [ZoneReading(("R1",), 0.9, pose=(0.50, 0.50, 2.0))] * 4  # 3° apart: the same card
        + covered
        + [ZoneReading(("R1",), 0.9, pose=(0.505, 0.50, 24.0))] * 4  # turned 25°: a twin
        + covered
        + [ZoneReading(("R1",), 0.9, pose=(0.505, 0.50, 19.0))] * 4  # 5° from it: still it
    )
    seen = []
    for i, reading in enumerate(script):
        seen += tracker.update(i * 33 * MS, {"discard_1": reading})
    assert [(o.after, o.moved, o.pose) for o in seen] == [
        (("R1",), False, (0.50, 0.50, 179.0)),
        (("R1",), True, (0.505, 0.50, 24.0)),
    ]
    (p,) = EventMapper("deck-dash", layout()).propose(seen[1], seat=2)
    assert isinstance(p, Prompt) and p.kind == "same_card"
    assert p.suggestion.payload == {"card": "R1"} and seen[1].to_dict()["pose"][2] == 24.0

    # the face under the top again, on its spot but turned: another copy, not a take-back
    mapper = EventMapper("deck-dash", layout())
    mapper.propose(Observation("discard_1", (), ("R2",), 5, 105, 0.9, pose=(0.5, 0.5, 90.0)), 0)
    keep = Observation("discard_1", ("R2",), ("KEEP2",), 205, 305, 0.9, pose=(0.5, 0.5, 60.0))
    mapper.propose(keep, 1)
    turned = Observation("discard_1", ("KEEP2",), ("R2",), 405, 505, 0.9, pose=(0.5, 0.5, 120.0))
    assert [p.kind for p in mapper.propose(turned, 2)] == ["same_card"]
    with_no_angle = EventMapper("deck-dash", layout())  # a detector without angles: as before
    with_no_angle.propose(Observation("discard_1", (), ("R2",), 5, 105, 0.9, pose=(0.5, 0.5)), 0)
    with_no_angle.propose(keep, 1)
    assert [p.kind for p in with_no_angle.propose(turned, 2)] == ["taken_back"]


def test_ruling_tbl1_motion_outside_the_zones_runs_no_detector():
    """A hand moving beside the piles: no detection, no observation; the pile is still read
    once it changes and holds still."""
    layout_ = TableLayout((rectangle("discard_1", ZoneKind.DISCARD, (0.4, 0.4, 0.6, 0.6)),))
    calls = []

    def detect(img):
        calls.append(1)
        card = "R7" if img[60, 80, 2] > 100 else "B2"
        return [Sighting(card, 0.9, (0.45, 0.45, 0.55, 0.55))]

    from vision.table.watcher import Sighting

    watcher = TableWatcher(detect, layout_, tracker=StabilityTracker(min_frames=3, min_ns=60 * MS))
    rng = np.random.default_rng(1)
    out = []
    for i in range(30):
        img = np.full((120, 160, 3), 60, np.uint8)
        img[0:30, 0:40] = rng.integers(0, 255, (30, 40, 3))  # a hand waving in a corner
        if i >= 20:
            img[55:65, 75:85, 2] = 200  # a red card lands on the pile
        out += watcher.process(Frame(img, i * 33 * MS, i))
    assert [(o.before, o.after) for o in out] == [((), ("B2",)), (("B2",), ("R7",))]
    # the first frame and the change, each read on 1 + settle_frames (2) frames; 30 frames
    assert len(calls) == 6
