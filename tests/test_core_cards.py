"""Deck Dash card notation: parse, format, errors naming the bad token."""

import pytest

from referee.cards import (
    WILD,
    Card,
    CardParseError,
    Color,
    Special,
    format_card,
    full_deck,
    parse_card,
    parse_cards,
)


@pytest.mark.parametrize(
    ("token", "card"),
    [
        ("R7", Card.numbered(Color.RED, 7)),
        ("g12", Card.numbered(Color.GREEN, 12)),
        ("Y1", Card.numbered(Color.YELLOW, 1)),
        ("B10", Card.numbered(Color.BLUE, 10)),
        ("W", WILD),
        ("rev", Card.action(Special.REVERSE)),
        ("STEAL", Card.action(Special.DECK_STEAL)),
        ("KEEP2", Card.action(Special.KEEP_TWO)),
        ("D2D1", Card.action(Special.DRAW2_DISCARD1)),
        ("D4D3", Card.action(Special.DRAW4_DISCARD3)),
        ("BLOCK", Card.action(Special.BLOCK_YOU)),
        ("SKIP", Card.action(Special.SKIP_YOU)),
        ("SKIP2", Card.action(Special.SKIP_TWO)),
    ],
)
def test_parse_and_format_round_trip(token, card):
    assert parse_card(token) == card
    assert parse_card(format_card(card)) == card
    assert format_card(card) == token.upper()


@pytest.mark.parametrize(
    ("token", "fragment"),
    [
        ("R13", "outside 1..12"),
        ("R0", "outside 1..12"),
        ("X7", "expected R, Y, G or B"),
        ("R", "expected a number"),
        ("R07", "expected a number"),
        ("R7x", "expected a number"),
        ("", "empty"),
        ("WW", "expected R, Y, G or B"),
    ],
)
def test_malformed_token_names_the_token(token, fragment):
    with pytest.raises(CardParseError) as err:
        parse_card(token)
    assert repr(token) in str(err.value)
    assert fragment in str(err.value)
    assert err.value.token == token


def test_parse_cards_splits_text_and_reports_first_bad_token():
    assert parse_cards("R1, W  SKIP") == [Card.numbered(Color.RED, 1), WILD, parse_card("SKIP")]
    with pytest.raises(CardParseError, match="'Q5'"):
        parse_cards(["R1", "Q5", "R2"])


def test_card_shapes_are_enforced():
    with pytest.raises(ValueError):
        Card.numbered(Color.RED, 13)
    with pytest.raises(ValueError):
        Card(Card.wild().kind, color=Color.RED)


def test_full_deck_matches_the_box():
    deck = full_deck()
    # 133 cards in the box minus 4 reference cards and 1 website card.
    assert len(deck) == 128
    assert sum(c.is_number for c in deck) == 96
    assert deck.count(WILD) == 8
    assert deck.count(Card.action(Special.REVERSE)) == 6
    assert deck.count(Card.action(Special.DECK_STEAL)) == 4
    assert deck.count(Card.action(Special.KEEP_TWO)) == 4
    for special in ("D2D1", "D4D3", "BLOCK", "SKIP", "SKIP2"):
        assert deck.count(parse_card(special)) == 2
