"""A family teaching its own deck, re-read (day 38 review): a Deck Dash profile with coloured
action cards read by the table camera (VIS-1); a card the camera cannot name never offered as
a play; a misspelt profile field, a profile of the wrong shape, a folder named like a profile
and a name typed in composed Unicode for a file saved on a Mac. No model is loaded."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import numpy as np
import pytest

import vision.decks as vd
from referee.cards import parse_card
from tests.cli_run import run
from tests.test_teach_review35 import TWO
from vision.decks import DeckError, load_deck
from vision.runtime.detections import Detections
from vision.table.adapter import UNREAD, reader_detector, to_sightings
from vision.table.labels import card_token, refereed_deck
from vision.table.stability import Observation
from vision.table.to_events import EventMapper, Prompt, Proposal
from vision.table.zones import TableLayout

# -- 1. coloured action cards (VIS-1) and the card the camera cannot name --------------------

COLOURED_ACTIONS = ("reverse", "skip", "block")


def coloured_actions_profile(folder: Path) -> Path:
    """The shipped Deck Dash profile edited as VIS-1 tells a family: Reverse, Skip and Block
    come in each colour."""
    data = json.loads((vd.DECKS_DIR / "deck-dash.json").read_text())
    data["name"] = "famdd"
    for card in data["cards"]:
        if card["value"] in COLOURED_ACTIONS:
            card["colored"] = True
    path = folder / "famdd.json"
    path.write_text(json.dumps(data))
    return path


def test_ruling_vis1_coloured_action_cards_keep_their_deck_dash_token(tmp_path):
    """Before: a red Reverse read by a coloured-action profile was no token at all: the camera
    referee asked "which card is it?" for every such card, then "Was another ? played"."""
    deck = load_deck(coloured_actions_profile(tmp_path))
    assert ("red", "reverse") in deck.identities()
    for color, value in deck.identities():
        token = card_token("deck-dash", color, value)
        assert token is not None, (color, value)
        parse_card(token)  # the Deck Dash engine takes it
    assert card_token("deck-dash", "red", "reverse") == "REV"
    assert card_token("deck-dash", "green", "skip") == "SKIP"
    assert card_token("deck-dash", "blue", "block") == "BLOCK"
    assert refereed_deck("deck-dash", deck) == deck  # the watcher reads with the whole profile
    # the identify JSON the watcher's detector is handed, and the reader's own detections
    seen = [{"color": "red", "value": "reverse", "confidence": 0.9, "box": [300, 200, 360, 290]}]
    assert [s.label for s in to_sightings(seen, 640, 480, "deck-dash")] == ["REV"]
    dets = Detections(
        np.array([[320, 240, 60, 90, 0.0]], np.float32),
        np.full(1, 0.9, np.float32),
        np.zeros(1, np.int64),
        np.array(["green"], object),
        np.array(["reverse"], object),
    )
    sightings = reader_detector(lambda image: dets, "deck-dash")(np.zeros((480, 640, 3)))
    assert [s.label for s in sightings] == ["REV"]
    # … and the pile's mapper proposes the play of it
    mapper = EventMapper("deck-dash", LAYOUT)
    (event,) = mapper.propose(pile([], ["REV"]), seat=1)
    assert (event.kind, event.seat, dict(event.payload)) == ("discard", 1, {"card": "REV"})


PILE = "discard_1"
LAYOUT = TableLayout.from_dict(
    {
        "version": 1,
        "zones": [
            {
                "name": PILE,
                "kind": "discard_pile",
                "index": 1,
                "points": [[0.4, 0.4], [0.6, 0.4], [0.6, 0.6], [0.4, 0.6]],
            }
        ],
    }
)
HERE, THERE = (0.5, 0.5, 30.0), (0.56, 0.5, 30.0)  # where a pile card lies: here, or moved


def pile(before: list[str], after: list[str], pose=HERE, **more) -> Observation:
    return Observation(PILE, tuple(before), tuple(after), 5, 105, 0.95, pose=pose, **more)


def plays_offered(proposals: list[Proposal]) -> list[str]:
    """Every card the proposals would send as laid on the pile, one tap each."""
    events = []
    for p in proposals:
        if isinstance(p, Prompt):
            events += [p.suggestion, *(a.event for a in p.answers)]
        else:
            events.append(p)
    return [e.payload.get("card", "") for e in events if e is not None]


def unnamed_twice_moved(m: EventMapper) -> list[Proposal]:
    m.propose(pile([], [UNREAD]), seat=0)
    return m.propose(pile([UNREAD], [UNREAD], pose=THERE, moved=True), seat=1)


def unnamed_again_elsewhere(m: EventMapper) -> list[Proposal]:
    m.propose(pile([], [UNREAD]), seat=0)
    m.propose(pile([UNREAD], []), seat=1)  # the pile read empty a moment
    return m.propose(pile([], [UNREAD], pose=THERE), seat=1)


def unnamed_under_a_card_elsewhere(m: EventMapper) -> list[Proposal]:
    m.propose(pile([], [UNREAD]), seat=0)
    m.propose(pile([UNREAD], ["R5"], disturbed=True), seat=1)
    return m.propose(pile(["R5"], [UNREAD], pose=THERE, disturbed=True), seat=0)


@pytest.mark.parametrize("game", ["deck-dash", "hit-the-deck"])
@pytest.mark.parametrize(
    "play", [unnamed_twice_moved, unnamed_again_elsewhere, unnamed_under_a_card_elsewhere]
)
def test_ruling_tbl6_a_card_the_camera_cannot_name_is_never_another_copy(game, play):
    """Before: "Was another ? played on the pile?", one tap sending a discard of card "?" (two
    Deck Dash cards with no token in a row, or Hit the Deck "with a number" cards, TBL-3)."""
    (prompt,) = play(EventMapper(game, LAYOUT))
    assert isinstance(prompt, Prompt) and prompt.kind == "unknown_card"
    assert plays_offered([prompt]) == []


def test_an_unnamed_card_seen_again_under_a_card_taken_back_offers_only_the_undo():
    """Before: the take-back question's other answer was "Another ? was played"."""
    m = EventMapper("deck-dash", LAYOUT)
    m.propose(pile([], [UNREAD]), seat=0)
    m.propose(pile([UNREAD], ["R5"], disturbed=True), seat=1)
    (prompt,) = m.propose(pile(["R5"], [UNREAD], disturbed=True), seat=0)
    assert prompt.kind == "taken_back" and prompt.message.startswith("R5 was taken back")
    assert (prompt.choices, plays_offered([prompt])) == (("undo", "keep"), [])


def test_a_deck_steal_on_an_unnamed_card_does_not_offer_to_steal_card_unread():
    """Before: one tap sent ``steal {"card": "?"}`` (TBL-18's question)."""
    m = EventMapper("deck-dash", LAYOUT)
    m.propose(pile([], [UNREAD]), seat=0)
    (prompt,) = m.propose(pile([UNREAD], ["STEAL"], disturbed=True), seat=1)
    assert prompt.kind == "who_played" and prompt.suggestion is None
    assert "the card the camera cannot name" in prompt.message
    assert plays_offered([prompt]) == ["STEAL"]  # seat 1's plain discard of it, as before


def test_a_named_card_read_as_unnamed_where_nothing_touched_the_pile_is_nothing_new():
    """Before: "Was the card on the pile ?, not R5?", its other answer "? was played on R5".
    Nothing covered the pile (TBL-15): R5 lies there still, only unread now; read again, it
    is no new play either."""
    m = EventMapper("deck-dash", LAYOUT)
    m.propose(pile([], ["R5"]), seat=0)
    assert m.propose(pile(["R5"], [UNREAD], disturbed=False), seat=1) == []
    assert m.propose(pile([UNREAD], ["R5"], disturbed=False), seat=1) == []


def test_a_named_card_seen_again_moved_is_still_asked_about_as_another_copy():
    """A face the camera names keeps TBL-6's question (only "?" has no face to repeat)."""
    m = EventMapper("deck-dash", LAYOUT)
    m.propose(pile([], ["REV"]), seat=0)
    (prompt,) = m.propose(pile(["REV"], ["REV"], pose=THERE, moved=True), seat=1)
    assert prompt.kind == "same_card" and plays_offered([prompt]) == ["REV"]


# -- 2. a misspelt field, and a profile of the wrong shape ------------------------------------


def write(decks: Path, name: str, data: object = None, **fields) -> Path:
    path = decks / f"{name}.json"
    path.write_text(json.dumps({**TWO, "name": name, **fields} if data is None else data))
    return path


MISSPELT = [
    ({"aspcet": 1.0}, "unknown field 'aspcet' (did you mean 'aspect'?)"),
    ({"colours": ["red"]}, "unknown field 'colours' (did you mean 'colors'?)"),
    (
        {"cards": [{"value": "1", "colored": True, "copeis": 6}]},
        "card '1': unknown field 'copeis' (did you mean 'copies'?)",
    ),
    (
        {"cards": [{"vaule": "1", "colored": True}]},
        "the 1st card: unknown field 'vaule' (did you mean 'value'?)",
    ),
    (
        {"comment": "ours"},
        "unknown field 'comment' (the fields are name, title, colors, cards, aspect,"
        " back_text, notes)",
    ),
]


@pytest.mark.parametrize(("fields", "why"), MISSPELT)
def test_ruling_vis13_a_misspelt_profile_field_is_refused_naming_the_field_meant(
    decks, capsys, fields, why
):
    """Before: "aspcet": 1.0 loaded with the default aspect 0.64, and teach refused every
    square photo as "not card-shaped: the empty photo does not match this one"; "copeis": 6
    was one copy; ``--guide`` exited 0."""
    path = write(decks, "family", **fields)
    with pytest.raises(DeckError) as caught:
        load_deck("family")
    assert str(caught.value) == f"{path}: {why}"
    code, out, err = run(["vision", "teach", "--deck", "family", "--guide"], capsys)
    assert (code, out, err) == (2, "", f"tabletop vision teach: {path}: {why}\n")


def test_the_shipped_profiles_load_unchanged():
    """Every field the shipped profiles use is a known one ("notes" included)."""
    names = vd.deck_names()
    assert {"deck-dash", "dos", "hit-the-deck"} <= set(names)
    for name in ("deck-dash", "dos", "hit-the-deck"):
        assert load_deck(name).name == name
    assert len(load_deck("deck-dash").full_deck()) == 128


SHAPES = [
    (
        {**TWO, "name": "family", "cards": "1, 2, wild"},
        "malformed deck profile: 'cards' is a list of cards such as"
        ' [{"value": "7", "colored": true}], not text',
    ),
    (
        {**TWO, "name": "family", "cards": ["1"]},
        'malformed deck profile: the 1st card is an object such as {"value": "7",'
        ' "colored": true}, not text',
    ),
    (
        [TWO],
        'malformed deck profile: the profile is one object {"name": …, "colors": […],'
        ' "cards": […]}, not a list',
    ),
    (
        {**TWO, "name": "family", "cards": [*TWO["cards"], {"value": "reverse"}]},
        "card 'reverse': 'colored' is missing",
    ),
    (
        {**TWO, "name": "family", "cards": [*TWO["cards"], {"colored": True}]},
        "the 3rd card: 'value' is missing",
    ),
    ({"name": "family", "colors": ["red"]}, "malformed deck profile: 'cards' is missing"),
]


@pytest.mark.parametrize(("data", "why"), SHAPES)
def test_a_profile_of_the_wrong_shape_names_the_field_and_card(decks, capsys, data, why):
    """Before: Python's words ("string indices must be integers", "('colored')"), naming no
    field and no card."""
    path = write(decks, "family", data)
    code, out, err = run(["vision", "teach", "--deck", "family", "--guide"], capsys)
    assert (code, out, err) == (2, "", f"tabletop vision teach: {path}: {why}\n")


def test_a_folder_named_like_a_profile_is_said_to_be_a_folder(decks, capsys):
    """Before: "no deck profile 'grandma' (known: …, grandma, …)"."""
    write(decks, "family")
    (decks / "grandma.json").mkdir()
    assert vd.deck_names() == ["family"]
    code, out, err = run(["vision", "teach", "--deck", "grandma", "--guide"], capsys)
    assert (code, out) == (2, "")
    assert (
        err == f"tabletop vision teach: {decks / 'grandma.json'} is a folder, not a deck profile\n"
    )


# -- 3. a name typed composed, a file saved on a Mac decomposed --------------------------------

TYPED = unicodedata.normalize("NFC", "omä")
SAVED = unicodedata.normalize("NFD", "omä")


def test_a_profile_saved_on_a_mac_is_found_by_the_name_typed(decks, capsys):
    """Before: "its "name" is 'omä': make it 'omä', the file's name", and ``--deck omä`` was
    no deck profile: the file's "ä" is "a" and its dots, the name's one character."""
    assert TYPED != SAVED
    path = decks / f"{SAVED}.json"
    path.write_text(json.dumps({**TWO, "name": TYPED}))
    assert vd.deck_names() == [TYPED]
    assert load_deck(TYPED).name == TYPED
    for deck in (TYPED, str(path)):
        code, out, err = run(["vision", "teach", "--deck", deck, "--guide"], capsys)
        assert (code, err) == (0, "")
        assert out.splitlines()[0] == "001_red_1.jpg\tthe red 1"
    other = write(decks, "family", {**TWO, "name": "grandma"})  # not the file's: refused
    code, out, err = run(["vision", "teach", "--deck", "family", "--guide"], capsys)
    assert code == 2 and f"{other}: its \"name\" is 'grandma'" in err
