"""Deck profiles: data that describes a family's deck."""

from __future__ import annotations

import json

import pytest

from referee.cards import format_card, full_deck, parse_card
from vision.decks import SYMBOLS, DeckError, all_decks, deck_names, load_deck


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


def test_dos_actions_are_coloured_and_deck_dash_actions_are_not() -> None:
    assert load_deck("dos").allows("red", "skip")
    assert not load_deck("dos").allows(None, "skip")
    assert load_deck("deck-dash").allows(None, "skip")
    assert not load_deck("deck-dash").allows("red", "skip")


def test_family_deck_from_a_json_file(tmp_path) -> None:
    path = tmp_path / "ours.json"
    path.write_text(json.dumps({
        "name": "ours", "colors": ["red", "blue"],
        "cards": [{"value": "1", "colored": True, "copies": 3}, {"value": "wild", "colored": False}],
    }))
    deck = load_deck(path)
    assert deck.identities() == [("red", "1"), ("blue", "1"), (None, "wild")]
    assert len(deck.full_deck()) == 7


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
