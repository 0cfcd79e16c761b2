"""Property tests: the fast checker agrees with the brute-force oracle (tests/dash_oracle.py)."""

from collections import Counter
from itertools import product

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from referee.cards import WILD, Card, Color, Special
from referee.deckdash.check import GroupKind, check_dash, find_dash, hand_off
from tests.dash_oracle import faces_ok, oracle_exact, oracle_min_wilds, parts_of

ORACLE_KIND = {
    GroupKind.PAIR: "set",
    GroupKind.SET: "set",
    GroupKind.RUN: "run",
    GroupKind.SAME_COLOR: "color",
    GroupKind.COLOR_RUN: "crun",
    GroupKind.COLOR_PAIR: "twin",
}
COLORS = list(Color)
dashes = st.tuples(st.sampled_from(["easy", "advanced"]), st.integers(1, 12))
numbered = st.builds(Card.numbered, st.sampled_from(COLORS), st.integers(1, 12))
any_card = st.one_of(numbered, st.just(WILD), st.sampled_from([Card.action(s) for s in Special]))


@st.composite
def built_dash(draw, level, number):
    """Cards that were a Dash when built (some become Wilds; the oracle has the last word)."""
    cards: list[Card] = []
    for kind, size in parts_of(level, number):
        color = draw(st.sampled_from(COLORS))
        if kind == "set":
            n = draw(st.integers(1, 12))
            group = [Card.numbered(draw(st.sampled_from(COLORS)), n) for _ in range(size)]
        elif kind == "twin":
            group = [Card.numbered(color, draw(st.integers(1, 12)))] * size
        elif kind == "color":
            group = [Card.numbered(color, draw(st.integers(1, 12))) for _ in range(size)]
        else:
            a = draw(st.integers(1, 13 - size))
            group = [
                Card.numbered(color if kind == "crun" else draw(st.sampled_from(COLORS)), v)
                for v in range(a, a + size)
            ]
        cards += group
    wild_at = draw(st.sets(st.integers(0, len(cards) - 1), max_size=4))
    return [WILD if i in wild_at else c for i, c in enumerate(cards)]


@st.composite
def laid_cards(draw):
    level, number = draw(dashes)
    cards = draw(built_dash(level, number))
    for _ in range(draw(st.integers(0, 2))):  # break it a little, sometimes
        cards[draw(st.integers(0, len(cards) - 1))] = draw(any_card)
    if draw(st.booleans()) and draw(st.booleans()):  # sometimes a card too many or few
        if draw(st.booleans()):
            cards.append(draw(any_card))
        else:
            cards.pop()
    return level, number, draw(st.permutations(cards))


def _faces(group):
    return [(f.color.value if f.color else None, f.number) for f in group.stands_for]


def _assert_groups_honest(level, number, laid, groups):
    """Groups use exactly the laid cards, match the Dash's parts, and say true things."""
    assert Counter(c for g in groups for c in g.cards) == Counter(laid)
    assert sorted((ORACLE_KIND[g.kind], g.size) for g in groups) == sorted(parts_of(level, number))
    for g in groups:
        assert faces_ok(ORACLE_KIND[g.kind], _faces(g))
        assert any(c.is_number for c in g.cards)  # DASH-2
        for card, face in zip(g.cards, g.stands_for, strict=True):
            if card.is_number:
                assert (face.color, face.number) == (card.color, card.number)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(laid_cards())
def test_check_agrees_with_brute_force_oracle(case):
    level, number, cards = case
    result = check_dash(level, number, cards)
    assert result.valid == oracle_exact(level, number, cards), result.reason
    if result.valid:
        _assert_groups_honest(level, number, cards, result.groups)
    else:
        assert result.reason


@st.composite
def hands(draw):
    level, number = draw(dashes)
    cards = draw(built_dash(level, number))
    if draw(st.booleans()):  # sometimes not quite a Dash
        cards[draw(st.integers(0, len(cards) - 1))] = draw(numbered)
    extra = draw(st.lists(any_card, max_size=3 if len(cards) > 9 else 5))
    return level, number, draw(st.permutations(cards + extra))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands())
def test_find_uses_as_few_wilds_as_the_oracle(case):
    level, number, hand = case
    found = find_dash(level, number, hand)
    fewest = oracle_min_wilds(level, number, hand)
    if fewest is None:
        assert found is None
        return
    assert found is not None
    laid = [c for g in found.groups for c in g.cards]
    assert sum(c.is_wild for c in laid) == fewest
    assert not Counter(laid) - Counter(hand)  # only cards from the hand
    _assert_groups_honest(level, number, laid, found.groups)
    assert check_dash(level, number, laid).valid


def _oracle_takes(group, card):
    """Could ``card`` join ``group`` with the laid faces fixed? (any value for a Wild)"""
    kind = ORACLE_KIND[group.kind]
    faces = _faces(group)
    if card.is_special:
        return False
    if card.is_number:
        return faces_ok(kind, [*faces, (card.color.value, card.number)])
    return any(faces_ok(kind, [*faces, (c.value, n)]) for c, n in product(COLORS, range(1, 13)))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_hand_off_agrees_with_oracle(data):
    level, number = data.draw(dashes)
    cards = data.draw(built_dash(level, number))
    result = check_dash(level, number, cards)
    assume(result.valid)
    for _ in range(3):
        group = data.draw(st.sampled_from(result.groups))
        card = data.draw(any_card)
        grown = hand_off(group, card)
        assert (grown is not None) == _oracle_takes(group, card), (group.label, card)
        if grown is not None:
            assert grown.kind is group.kind and grown.size == group.size + 1
            assert faces_ok(ORACLE_KIND[grown.kind], _faces(grown))
