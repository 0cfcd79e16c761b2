"""Deck profiles: data that describes a family's deck."""

from __future__ import annotations

import json

import pytest

from referee.cards import format_card, full_deck, parse_card
from vision.decks import (
    SYMBOLS,
    DeckError,
    all_decks,
    deck_names,
    known_identities,
    load_deck,
)


def test_three_decks_ship() -> None:
    assert {"deck-dash", "dos", "hit-the-deck"} <= set(deck_names())


def test_deck_dash_matches_the_rules_contents() -> None:
    deck = load_deck("deck-dash")
    cards = deck.full_deck()
    assert len(cards) == 128  # 96 numbers + 8 wilds + 24 actions (reference cards not modelled)
    assert sum(1 for c, v in cards if v == "wild") == 8
    assert sum(1 for c, v in cards if v == "reverse") == 6
    assert len(deck.identities()) == 4 * 12 + 9


def test_deck_dash_tokens_are_referee_notation() -> None:
    """Every card the camera can name maps to the referee's own card notation."""
    deck = load_deck("deck-dash")
    tokens = sorted(deck.token(c, v) for c, v in deck.full_deck())
    assert tokens == sorted(format_card(c) for c in full_deck())
    assert format_card(parse_card(deck.token("red", "7"))) == "R7"


def test_every_value_is_a_known_symbol() -> None:
    for deck in all_decks():
        assert all(spec.value in SYMBOLS for spec in deck.cards)


def test_ruling_vis1_deck_dash_actions_are_colourless() -> None:
    deck = load_deck("deck-dash")
    assert deck.allows(None, "skip") and deck.allows(None, "wild")
    assert not deck.allows("red", "skip")
    assert all(not s.colored for s in deck.cards if not s.value.isdigit())


def test_ruling_vis2_dos_numbers_one_to_ten() -> None:
    deck = load_deck("dos")
    numbers = sorted(int(s.value) for s in deck.cards if s.value.isdigit())
    assert numbers == list(range(1, 11))
    assert all(s.copies == 6 for s in deck.cards if s.value.isdigit())


def test_ruling_vis3_hit_the_deck_numbers_one_to_nine() -> None:
    deck = load_deck("hit-the-deck")
    assert sorted(int(s.value) for s in deck.cards if s.value.isdigit()) == list(range(1, 10))


def test_ruling_vis3_a_games_camera_names_only_its_referee_decks_cards() -> None:
    """The profile reads 1-9 (it renders the training and evaluation tables); Hit the Deck
    is played with the referee's deck.json (HTD-1: 1-5), so the camera refereeing that game
    must choose among 1-5 and never answer a 3 as an 8 the referee would refuse."""
    from vision.table.labels import refereed_deck
    from web.services.referee_camera import ModelDetectors

    profile = load_deck("hit-the-deck")
    narrowed = refereed_deck("hit-the-deck", profile)
    values = {s.value for s in narrowed.cards}
    assert values == {"1", "2", "3", "4", "5", "cut", "flip", "hitnumber", "hitcolor", "hithand"}
    assert narrowed.allows("red", "5") and not narrowed.allows("red", "8")
    assert profile.allows("red", "8")  # the profile itself is unchanged
    for game in ("dos", "deck-dash"):  # their camera profiles already match their decks
        assert refereed_deck(game, load_deck(game)) == load_deck(game)
    detectors = ModelDetectors()
    detectors("hit-the-deck")
    reader = detectors._readers["hit-the-deck"].reader
    assert reader.deck == narrowed


def test_ruling_vis4_dos_action_cards_are_coloured() -> None:
    deck = load_deck("dos")
    for value, copies in (("draw4", 3), ("draw2", 4), ("skip", 4), ("reverse", 4)):
        assert deck.spec(value).colored and deck.spec(value).copies == copies
        assert deck.allows("green", value) and not deck.allows(None, value)


def test_ruling_vis5_hit_the_deck_wilds_colourless_word_cards_coloured() -> None:
    deck = load_deck("hit-the-deck")
    for value in ("hitnumber", "hitcolor", "hithand"):
        assert deck.allows(None, value) and not deck.allows("red", value)
    for value in ("cut", "flip"):
        assert deck.allows("red", value) and not deck.allows(None, value)


def test_ruling_vis6_number_on_hit_number_card_is_not_read() -> None:
    deck = load_deck("hit-the-deck")
    assert deck.spec("hitnumber").value == "hitnumber"
    assert not any(v.startswith("hitnumber") and v != "hitnumber" for _, v in deck.identities())


def test_family_deck_from_a_json_file(tmp_path) -> None:
    path = tmp_path / "ours.json"
    path.write_text(
        json.dumps(
            {
                "name": "ours",
                "colors": ["red", "blue"],
                "cards": [
                    {"value": "1", "colored": True, "copies": 3},
                    {"value": "wild", "colored": False},
                ],
            }
        )
    )
    deck = load_deck(path)
    assert deck.identities() == [("red", "1"), ("blue", "1"), (None, "wild")]
    assert len(deck.full_deck()) == 7


def test_ruling_vis9_known_cards_are_every_decks_cards_once(tmp_path) -> None:
    """With no deck named, the reader may name what any profile has (a family's own too)."""
    dash, hit = load_deck("deck-dash"), load_deck("hit-the-deck")
    pairs = known_identities([dash, hit])
    assert len(pairs) == len(set(pairs)) == len(set(dash.identities()) | set(hit.identities()))
    assert (None, "block") in pairs and ("red", "cut") in pairs  # Deck Dash's, Hit the Deck's
    assert ("red", "block") not in pairs and (None, "cut") not in pairs  # nobody's
    assert known_identities() == known_identities(all_decks())
    ours = tmp_path / "ours.json"
    ours.write_text(
        json.dumps(
            {"name": "ours", "colors": ["red"], "cards": [{"value": "block", "colored": True}]}
        )
    )
    assert ("red", "block") in known_identities([dash, load_deck(ours)])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "x", "colors": ["purple"], "cards": []}, "purple"),
        ({"name": "x", "colors": ["red"], "cards": [{"value": "13", "colored": True}]}, "13"),
        ({"name": "x", "cards": []}, "malformed"),
    ],
)
def test_bad_profiles_are_refused_clearly(tmp_path, data, message) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(DeckError, match=message):
        load_deck(path)


def test_unknown_deck_names_the_known_ones() -> None:
    with pytest.raises(DeckError, match="deck-dash"):
        load_deck("no-such-deck")
