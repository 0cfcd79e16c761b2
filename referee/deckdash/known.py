"""What the referee can prove from the deck's composition (DD-16) and the cards it has seen.

In table mode the hands and the draw pile are mostly unseen, so a camera misread or a
mistyped card on the tablet ("six red 1s") would otherwise be believed. The referee trusts
what it cannot rule out, but a copy beyond the deck's count can be ruled out: every physical
card is in one place, and the places the referee knows are the discard pile, the groups on
the table, the Block You cards in front of players, an action card being played, the known
cards of hands and the known cards of the draw pile. Cards shuffled back without a named
order are unseen again, so a card that went round the pile is never refused.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from referee.cards import Card, Special, format_cards, full_deck
from referee.copies import too_many_copies
from referee.deckdash.common import Illegal, words
from referee.deckdash.state import Phase, Round

DECK_COPIES: Counter[str] = Counter(format_cards(full_deck()))  # per card token: 2, 8, 6 …
BLOCK_YOU = Card.action(Special.BLOCK_YOU)


def placed_copies(rnd: Round, card: Card) -> dict[str, int]:
    """Where the referee knows copies of ``card`` to be right now, place by place."""
    in_play = rnd.action if rnd.phase is Phase.ACTION_DRAW else None  # later on the pile
    return {
        "on the discard pile": rnd.discard.count(card),
        "on the table": sum(laid.group.cards.count(card) for laid in rnd.table),
        "in front of players": len(rnd.blocks) if card == BLOCK_YOU else 0,
        "being played": 1 if in_play == card else 0,
        "known in hands": sum(hand.known.count(card) for hand in rnd.hands),
        "known in the draw pile": rnd.draw_pile.known.count(card),
    }


def need_deck_copies(rnd: Round, cards: Iterable[Card], seat: int) -> None:
    """Refuse ``rnd`` when it places more copies of one of ``cards`` than the deck holds.

    ``rnd`` is the round *after* the event: the cards it names have moved to where they
    went, so each is counted once however many the event names (a lay of six red 1s).
    """
    for card in dict.fromkeys(cards):
        have = DECK_COPIES[str(card)]
        problem = too_many_copies(f"{have} {plural(card)}", have, placed_copies(rnd, card))
        if problem:
            raise Illegal(problem, seat)


def plural(card: Card) -> str:
    """ "red 1 cards", "Wilds", "Reverse cards"."""
    return "Wilds" if card.is_wild else f"{words(card)} cards"
