"""Lay-down checks: is this exactly a Dash, and which Dash can this hand lay down?

``check_dash`` validates exactly the laid cards (DASH-1); ``find_dash`` is the tablet's
hint button; ``hand_off`` (from ``handoff``) extends a laid group. Reasons are sentences
for a family and say what is missing, worked out from the closest arrangement.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.cards import WILD, Card, Color, Kind
from referee.deckdash.dashes import Dash, GroupKind, Level, Part, get_dash
from referee.deckdash.groups import DashCheck, Face, Group, card_words, join_words
from referee.deckdash.handoff import hand_off
from referee.deckdash.solver import Slot, Solution, solve_exact, solve_fewest_wilds

__all__ = [
    "DashCheck",
    "Face",
    "Group",
    "GroupKind",
    "check_dash",
    "find_dash",
    "hand_off",
    "missing_from_hand",
]

COLORS = tuple(Color)


_CELL_CARDS = tuple(Card.numbered(c, n) for c in COLORS for n in range(1, 13))
_CELL_WORDS = tuple(card_words(card) for card in _CELL_CARDS)
_COLOR_ROW = {c.value: i * 12 for i, c in enumerate(COLORS)}
_FACES = {
    (c, n): Face(None if c is None else COLORS[c], n)
    for c in (None, 0, 1, 2, 3)
    for n in (None, *range(1, 13))
}


def _pool(cards: Sequence[Card]) -> tuple[list[int], int]:
    """48 counters of numbered cards (colour x number) and the number of Wilds."""
    pool = [0] * 48
    wilds = 0
    for card in cards:
        if not isinstance(card, Card):
            raise TypeError(f"expected a Card, got {card!r}")
        if card.kind is Kind.WILD:
            wilds += 1
        elif card.kind is Kind.NUMBER:
            pool[_COLOR_ROW[card.color._value_] + card.number - 1] += 1  # type: ignore[union-attr,operator]
    return pool, wilds


def _group(part: Part, slots: list[Slot]) -> Group:
    cards = tuple(WILD if cell is None else _CELL_CARDS[cell] for cell, _, _ in slots)
    faces = tuple(_FACES[c, n] for _, c, n in slots)
    kind = part.kind
    numbers = [n for _, _, n in slots if n is not None]
    color = None
    if kind.keys_on_color:
        color = next((COLORS[c] for _, c, _ in slots if c is not None), None)
    if kind in (GroupKind.RUN, GroupKind.COLOR_RUN):
        return Group(kind, cards, faces, color=color, low=min(numbers), high=max(numbers))
    if kind is GroupKind.SAME_COLOR:
        return Group(kind, cards, faces, color=color)
    return Group(kind, cards, faces, number=numbers[0] if numbers else None, color=color)


def _groups(dash: Dash, solution: Solution) -> tuple[Group, ...]:
    return tuple(_group(dash.parts[i], slots) for i, slots in sorted(solution, key=lambda s: s[0]))


def check_dash(level: Level | str, number: int, cards: Sequence[Card]) -> DashCheck:
    """Do exactly ``cards`` make Dash ``number`` of ``level``? ValueError for a bad Dash."""
    dash = get_dash(level, number)
    cards = list(cards)
    pool, wilds = _pool(cards)
    specials = [c for c in cards if c.is_special]
    if specials:
        names = join_words([card_words(c) for c in specials])
        return DashCheck(
            False,
            (),
            f"{dash.short}: special cards never count in a Dash: take back the {names}.",
        )
    if len(cards) == dash.size:
        solution = solve_exact(dash.parts, pool, wilds)
        if solution is not None:
            groups = _groups(dash, solution)
            described = "; ".join(g.describe() for g in groups)
            return DashCheck(True, groups, f"{dash.short} is complete: {described}.")
    return DashCheck(False, (), _why_not(dash, cards, pool, wilds))


def find_dash(level: Level | str, number: int, hand: Sequence[Card]) -> DashCheck | None:
    """The best lay-down of the Dash from a whole hand, or None when it cannot be made.

    Best (DASH-12): the fewest Wilds, so the Wilds stay in hand for handoffs; among equals,
    the first in the search's fixed order (colours red, yellow, green, blue; sets by lower
    number; runs by higher start).
    Special cards in the hand are ignored (they never count in a Dash).
    """
    dash = get_dash(level, number)
    pool, wilds = _pool(list(hand))
    solution = solve_fewest_wilds(dash.parts, pool, wilds)
    if solution is None:
        return None
    groups = _groups(dash, solution)
    described = "; ".join(g.describe() for g in groups)
    return DashCheck(True, groups, f"Lay down {dash.title}: {described}.")


# -- why a lay-down is not a Dash ------------------------------------------------------------


def missing_from_hand(level: Level | str, number: int, hand: Sequence[Card]) -> str:
    """What a hand still lacks for the Dash (the hint when ``find_dash`` finds nothing)."""
    dash = get_dash(level, number)
    pool, wilds = _pool(list(hand))
    return _why_not(dash, [c for c in hand if not c.is_special], pool, wilds, laid=False)


def _why_not(
    dash: Dash, cards: Sequence[Card], pool: list[int], wilds: int, *, laid: bool = True
) -> str:
    """Explain from the closest arrangement: which groups are short of what, what is extra.

    ``laid=False`` explains a hand instead: its other cards are not "extra", just kept.
    """
    size = dash.size
    head = f"{dash.short} needs {dash.needs()}"
    if laid and len(cards) != size:
        head += f" ({size} cards), and you laid {len(cards)}"
    elif not laid:
        head = f"This hand cannot make {dash.short} yet. It needs {dash.needs()}"
    closest = solve_fewest_wilds(dash.parts, pool, wilds + size, allow_empty=True)
    assert closest is not None  # enough Wilds always complete it
    closest.sort(key=lambda s: s[0])
    left = list(pool)
    for _, slots in closest:
        for cell, _c, _n in slots:
            if cell is not None:
                left[cell] -= 1
    # Real Wilds go first to groups that have a numbered card, then to the others.
    real = wilds
    real_in: dict[int, int] = {}
    for anchored in (True, False):
        for i, slots in closest:
            has_natural = any(cell is not None for cell, _, _ in slots)
            if has_natural is anchored:
                take = min(real, sum(1 for cell, _, _ in slots if cell is None))
                real_in[i], real = take, real - take
    pieces: list[str] = []
    short = False
    for i, slots in closest:
        part = dash.parts[i]
        naturals = [s for s in slots if s[0] is not None]
        gaps = [s for s in slots if s[0] is None]
        real_wilds, missing = real_in[i], len(gaps) - real_in[i]
        if not naturals:
            short = True
            if real_wilds:
                pieces.append(
                    f"{_count(real_wilds, 'Wild')} alone cannot make {part.label}: "
                    "every group needs at least one numbered card"
                    + (f", and it is {_count(missing, 'card')} short" if missing else "")
                )
            else:
                pieces.append(f"nothing yet for {part.label}")
            continue
        group = _group(part, slots)
        if not missing:
            pieces.append(f"the {group.label} is complete")
            continue
        short = True
        have = join_words(
            [_CELL_WORDS[cell] for cell, _, _ in naturals]  # type: ignore[index]
            + ([_count(real_wilds, "Wild")] if real_wilds else [])
        )
        pieces.append(f"the {group.label} ({have}) {_missing(group, gaps, missing, real_wilds)}")
    extra_cards = [_CELL_CARDS[idx] for idx, n in enumerate(left) for _ in range(n)]
    extra_cards += [WILD] * real
    advice = ""
    misfits = extra_cards if laid else []
    if laid and not short and len(cards) > size:
        fits: list[Card] = []
        if not dash.first_to:  # a First-to Dash takes no handoffs (DD-11)
            groups = [_group(dash.parts[i], slots) for i, slots in closest]
            fits, misfits = _hand_off_all(groups, extra_cards)
        advice = " " + _extra_advice(size, fits, misfits, first_to=dash.first_to)
    if misfits:
        # Only the cards that stay in hand "do not fit": the reply then advises handing
        # the others off onto this very Dash.
        verb = "does" if len(misfits) == 1 else "do"  # "one Wild does", not "do"
        pieces.append(f"{_extra_words(misfits)} {verb} not fit")
    return f"{head}: {'; '.join(pieces)}.{advice}"


def _extra_words(cards: list[Card]) -> str:
    """ "red 8, green 9 and 2 Wilds": the numbered cards, then the Wilds counted."""
    wilds = sum(1 for c in cards if c.is_wild)
    words = [card_words(c) for c in cards if not c.is_wild]
    return join_words(words + ([_count(wilds, "Wild")] if wilds else []))


def _extra_advice(size: int, fits: list[Card], stays: list[Card], *, first_to: bool) -> str:
    """What to do with the cards laid beyond the Dash (DASH-1).

    "Hand off the rest" only helps for cards that go on the Dash once it is down; a card
    that fits none of its groups stays in the hand (or goes on another player's Dash).
    A First-to Dash ends the round the moment it is down (DD-11): no handoffs, the rest
    stays in hand (and counts as points when ``first_to_scoring`` is ``hand``, DD-2).
    """
    head = f"Lay exactly {size} cards"
    if first_to:
        return f"{head} and keep the rest: laying a First-to Dash ends the round at once."
    if not stays:
        return f"{head}; hand off the rest once your Dash is down."
    kept = join_words([card_words(c) for c in stays])
    one = len(stays) == 1
    tail = (
        f"{kept} {'does' if one else 'do'} not go on this Dash, so keep {'it' if one else 'them'}"
    )
    if not fits:
        return f"{head}: {tail}."
    moved = join_words([card_words(c) for c in fits])
    return f"{head}, then hand off {moved}; {tail}."


def _hand_off_all(groups: list[Group], cards: list[Card]) -> tuple[list[Card], list[Card]]:
    """Which ``cards`` can be handed off onto ``groups`` (in some order), and which cannot."""
    groups, fits, rest = list(groups), [], list(cards)
    progress = True
    while rest and progress:
        progress = False
        for card in list(rest):
            for i, group in enumerate(groups):
                grown = hand_off(group, card)
                if grown is not None:
                    groups[i] = grown
                    fits.append(card)
                    rest.remove(card)
                    progress = True
                    break
    return fits, rest


def _count(n: int, word: str) -> str:
    return f"{'one' if n == 1 else n} {word}{'' if n == 1 else 's'}"


def _missing(group: Group, gaps: list[Slot], missing: int, real_wilds: int) -> str:
    """ "is missing a 5 and a 6", "is missing one more 7", "needs 2 more red cards"."""
    kind = group.kind
    if kind in (GroupKind.SET, GroupKind.PAIR):
        return f"is missing {_more(missing, str(group.number))}"
    if kind is GroupKind.COLOR_PAIR:
        assert group.color is not None
        return f"is missing {_more(missing, f'{group.color.word} {group.number}')}"
    if kind is GroupKind.SAME_COLOR:
        assert group.color is not None
        return f"is missing {_more(missing, f'{group.color.word} card')}"
    color = f"{group.color.word} " if group.color else ""
    wanted = [f"a {color}{n}" for _, _, n in gaps]
    if real_wilds:  # some gaps are already covered by a Wild: any of them will do
        return (
            f"needs {_count(missing, 'more card')}: {join_words(wanted).replace(' and ', ' or ')}"
        )
    return f"is missing {join_words(wanted)}"


def _more(n: int, what: str) -> str:
    return f"one more {what}" if n == 1 else f"{n} more {what}s"
