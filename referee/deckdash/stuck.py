"""A Dash nobody can finish any more, and the hint to end it by agreement (DD-24).

A turn draws one card and discards one, Deck Steal swaps one for one, Draw 2 Discard 1 and
Draw 4 Discard 3 give back what they draw and Keep Two adds two: once a player's Dash is
down, only a handoff makes their hand smaller. So a player holding ``h`` cards at the start
of a turn (theirs or anyone's) needs at least ``h`` more handoffs to finish (DD-19).

``can_take`` is an upper bound on the handoffs still possible this round, from the table
alone (every card on it is named, in table mode too) and the deck's composition (DD-16):

* a card not on the table counts when it could ever fit a group: a set or pair takes its
  number, a pair of twins that card, a same-colour group its colour, a run (or colour run)
  a number it can still reach beyond its ends (in its colour), and a Wild any group that
  can still grow (DASH-9, DASH-10); cards in hands, the draw pile and the discard pile (a
  reshuffle brings it back) all count;
* a run grows one number at a time inside 1..12, and a number whose cards are all laid
  elsewhere is bridged only by a Wild, so runs take at most the numbers they can reach.

When every player in the round has laid their Dash (no new group can come) and every hand
holds more cards than ``can_take``, nobody can finish: no sequence of moves empties a hand.
The check is only ever *sound*: a Dash that can in theory still be finished (a pair of twins
takes any Wild still in play) is not called stuck, however unlikely the finish.
"""

from __future__ import annotations

from collections.abc import Iterable

from referee.cards import MAX_NUMBER, MIN_NUMBER, Color, full_deck
from referee.deckdash.dashes import GroupKind
from referee.deckdash.groups import Group
from referee.deckdash.state import Laid, Phase, Round

COLORS = tuple(Color)
COLOR_INDEX = {color: i for i, color in enumerate(COLORS)}
NUMBERS = range(MIN_NUMBER, MAX_NUMBER + 1)
RUNS = (GroupKind.RUN, GroupKind.COLOR_RUN)


def _deck() -> tuple[list[list[int]], int]:
    """The deck's copies per colour and number (index 0 unused), and its Wilds."""
    copies = [[0] * (MAX_NUMBER + 1) for _ in COLORS]
    wilds = 0
    for card in full_deck():
        if card.is_wild:
            wilds += 1
        elif card.is_number:
            assert card.color is not None and card.number is not None
            copies[COLOR_INDEX[card.color]][card.number] += 1
    return copies, wilds


DECK_COPIES, DECK_WILDS = _deck()


def can_take(table: Iterable[Laid]) -> int:
    """At most how many more cards can still be handed off onto ``table`` this round."""
    groups = [laid.group for laid in table]
    off = [list(row) for row in DECK_COPIES]  # copies not on the table, per colour and number
    wilds = DECK_WILDS
    for card in (card for g in groups for card in g.cards):
        if card.is_wild:
            wilds -= 1
        elif card.color is not None and card.number is not None:
            off[COLOR_INDEX[card.color]][card.number] -= 1
    wilds = max(wilds, 0)  # (DD-16 keeps copies within the deck; never below none)
    numbers = {g.number for g in groups if g.kind in (GroupKind.SET, GroupKind.PAIR)}
    twins = {
        (COLOR_INDEX[g.color], g.number)
        for g in groups
        if g.kind is GroupKind.COLOR_PAIR and g.color is not None
    }
    colors = {
        COLOR_INDEX[g.color]
        for g in groups
        if g.kind is GroupKind.SAME_COLOR and g.color is not None
    }
    other_groups = any(g.kind not in RUNS for g in groups)
    # per run: its colour (None: any) and the numbers it may still reach beyond its ends
    spans = [_span(g, off, wilds) for g in groups if g.kind in RUNS]
    free = sum(len(reach) for _, reach in spans)
    fit_any = fit_other = 0
    if wilds > 0:
        fit_any += wilds if other_groups or free else 0
        fit_other += wilds if other_groups else 0
    for c, row in enumerate(off):
        for number in NUMBERS:
            copies = row[number]
            if copies <= 0:
                continue
            other = number in numbers or (c, number) in twins or c in colors
            if other or any((rc is None or rc == c) and number in reach for rc, reach in spans):
                fit_any += copies
            if other:
                fit_other += copies
    return min(fit_any, fit_other + free)


def _span(group: Group, off: list[list[int]], wilds: int) -> tuple[int | None, set[int]]:
    """A run's colour (None: any) and the numbers it may still take.

    Outward from each end, a number is reachable while a card for it is still off the table
    (a Wild bridges a number whose cards are all laid, as long as Wilds last; each end is
    given every Wild, so this over-counts, never under-counts)."""
    assert group.low is not None and group.high is not None
    color = None if group.color is None else COLOR_INDEX[group.color]
    rows = off if color is None else [off[color]]
    reach: set[int] = set()
    for way in (range(group.low - 1, MIN_NUMBER - 1, -1), range(group.high + 1, MAX_NUMBER + 1)):
        left = wilds
        for number in way:
            if not any(row[number] > 0 for row in rows):
                if left == 0:
                    break
                left -= 1
            reach.add(number)
    return color, reach


def stuck_hint(rnd: Round) -> int | None:
    """How many cards the table can still take when nobody can finish the Dash, else None.

    Judged at the start of a turn (draw step or blocked turn), when every hand is what it
    will be at its owner's next turn; everyone in the round must have laid their Dash.
    """
    if rnd.phase not in (Phase.DRAW, Phase.BLOCKED) or not set(rnd.active) <= rnd.laid:
        return None
    fewest = min(len(rnd.hands[seat]) for seat in rnd.active)
    room = can_take(rnd.table)
    return room if fewest > room else None
