"""The player's turn: draw, lay down a Dash, hand off, action cards, discard; Deck Steal.

Each handler takes the whole state and the event and returns the next state and its
verdicts, or raises ``Illegal``. Turn steps are tracked by ``Round.phase``.
"""

from __future__ import annotations

from referee.cards import Card, Special
from referee.deckdash.check import check_dash, find_dash, hand_off
from referee.deckdash.common import (
    Illegal,
    cap,
    current_round,
    my_turn,
    need_phase,
    seat_of,
    take_from_hand,
    the,
    words,
)
from referee.deckdash.dashes import get_dash
from referee.deckdash.deal import optional_card, read_card, read_cards
from referee.deckdash.known import need_deck_copies
from referee.deckdash.scoring import end_round
from referee.deckdash.state import (
    COUNTERCLOCKWISE,
    DRAW_ACTIONS,
    EXTRA_DISCARDS,
    DeckDashState,
    Laid,
    Phase,
    Round,
    RoundEnd,
)
from referee.deckdash.stuck import stuck_hint
from referee.deckdash.turns import end_turn, others_in_order
from referee.events import Event, EventError
from referee.frozen import evolve
from referee.hands import Hidden
from referee.summary import cards
from referee.verdicts import Verdict, info, legal, prompt
from referee.words import and_list

Result = tuple[DeckDashState, list[Verdict]]


def settle(state: DeckDashState, rnd: Round, verdicts: list[Verdict]) -> Result:
    """Store the round, then look at the piles: reshuffle prompt or nothing left (DD-7);
    and, once a round, whether anyone can still finish the Dash (DD-24)."""
    if len(rnd.draw_pile) == 0 and rnd.phase in (Phase.DRAW, Phase.ACTION_DRAW):
        if not rnd.discard:
            state, more = end_round(evolve(state, round=rnd), rnd, None, RoundEnd.NOTHING_TO_DRAW)
            return state, verdicts + more
        verdicts.append(
            prompt("The draw pile is empty: shuffle the discard pile to make a new draw pile.")
        )
    room = None if rnd.stuck else stuck_hint(rnd)
    if room is not None:
        rnd = evolve(rnd, stuck=True)
        verdicts.append(stuck_note(rnd, room))
    return evolve(state, round=rnd), verdicts


def stuck_note(rnd: Round, room: int) -> Verdict:
    """The hint that nobody can finish the Dash any more: end it by agreement (DD-24)."""
    why = (
        "the table takes no more cards"
        if room == 0
        else f"the table can take only {cards(room)} more, and every hand holds more than that"
    )
    return info(
        f"Nobody can finish Dash {rnd.dash} any more: every Dash is down and {why}. "
        "The players may agree to end this Dash (end_dash) or stop the game.",
        stuck=True,
        can_take=room,
    )


def finished_hand(state: DeckDashState, rnd: Round, seat: int, verdicts: list[Verdict]) -> Result:
    """A player who has laid their Dash and has no cards left finishes the round."""
    state, more = end_round(evolve(state, round=rnd), rnd, seat, RoundEnd.FINISHED)
    return state, verdicts + more


def can_finish(rnd: Round, seat: int) -> bool:
    return seat in rnd.laid and len(rnd.hands[seat]) == 0


def pickup_problem(state: DeckDashState, rnd: Round, card: Card) -> str | None:
    """Why ``card`` (top of the discard pile) may not be picked up, or None (DD-3, DD-18)."""
    if rnd.start_pickup:
        return None
    if card.is_special:
        return f"A {words(card)} card can never be picked up from the discard pile."
    if card.is_wild and not state.settings.wild_from_discard:
        return "A discarded Wild cannot be picked up from the discard pile."
    return None


# -- step 1: draw ---------------------------------------------------------------------------
def draw(state: DeckDashState, event: Event) -> Result:
    rnd, seat = my_turn(state, event)
    need_phase(rnd, seat, Phase.DRAW, Phase.ACTION_DRAW)
    source = event.get("from", "draw")
    if source not in ("draw", "discard"):
        raise EventError("draw.from must be 'draw' or 'discard'")
    named = optional_card(event, "card")
    hand = rnd.hands[seat]
    pile, discards = rnd.draw_pile, rnd.discard
    if source == "draw":
        if len(pile) == 0:
            raise Illegal(
                "The draw pile is empty: shuffle the discard pile to make a new draw pile.", seat
            )
        if pile.known:
            top = pile.known[0]
            if named is not None and named != top:
                raise Illegal(
                    f"The top card of the draw pile is {words(top)}, not {words(named)}.", seat
                )
            pile = Hidden(pile.known[1:], pile.unknown)
            hand = hand.add([top])
        else:
            pile = pile.remove_unknown(1)
            hand = hand.add([named]) if named is not None else hand.add(unknown=1)
        what = "from the draw pile"
    else:
        top = rnd.top
        if top is None:
            raise Illegal("The discard pile is empty: draw from the draw pile.", seat)
        if named is not None and named != top:
            raise Illegal(f"The top of the discard pile is {words(top)}, not {words(named)}.", seat)
        problem = pickup_problem(state, rnd, top)
        if problem:
            raise Illegal(problem + " Draw from the draw pile.", seat)
        discards = discards[:-1]
        hand = hand.add([top])
        what = f"{words(top)} from the discard pile"
    hands = list(rnd.hands)
    hands[seat] = hand
    phase, owed = rnd.phase, rnd.owed
    if phase is Phase.DRAW:
        phase = Phase.PLAY
    else:
        owed -= 1
    rnd = evolve(
        rnd,
        hands=tuple(hands),
        draw_pile=pile,
        discard=discards,
        start_pickup=False,
        phase=phase,
        owed=owed,
    )
    if named is not None:  # a card named coming out of the unseen draw pile
        need_deck_copies(rnd, [named], seat)
    verdicts = [legal(f"{state.name(seat)} drew {what}.", seat)]
    if source == "draw" and state.settings.end_on_empty_draw and len(rnd.draw_pile) == 0:
        state, more = end_round(evolve(state, round=rnd), rnd, None, RoundEnd.DRAW_PILE_EMPTY)
        return state, verdicts + more
    if rnd.phase is Phase.PLAY or rnd.owed > 0:
        return settle(state, rnd, verdicts)
    return complete_action(state, rnd, seat, verdicts)


def complete_action(state: DeckDashState, rnd: Round, seat: int, verdicts: list[Verdict]) -> Result:
    """All draws of an action card are done: it goes on the discard pile (DD-9)."""
    card = rnd.action
    assert card is not None and card.special is not None
    rnd = evolve(rnd, discard=(*rnd.discard, card), action=None)
    extra = EXTRA_DISCARDS[card.special]
    if extra == 0:  # Keep Two counts as the discard and ends the turn
        verdicts.append(legal(f"{words(card)} is discarded; {state.name(seat)}'s turn ends.", seat))
        rnd, more = end_turn(rnd, state.players)
        return settle(state, rnd, verdicts + more)
    rnd = evolve(rnd, phase=Phase.ACTION_DISCARD, owed=extra, action=card)
    verdicts.append(
        prompt(
            f"{state.name(seat)}: discard {extra} card{'s' if extra > 1 else ''} of your choice "
            f"for {words(card)}.",
            seat,
        )
    )
    return settle(state, rnd, verdicts)


# -- step 2: lay down a Dash ----------------------------------------------------------------
def lay(state: DeckDashState, event: Event) -> Result:
    rnd, seat = my_turn(state, event)
    cards = read_cards(event.require("cards"), "lay.cards")
    need_phase(rnd, seat, Phase.PLAY)
    if seat in rnd.laid:
        raise Illegal("You have already laid your Dash this round: one Dash per round.", seat)
    for card in cards:
        if card.is_special:
            raise Illegal(f"A {words(card)} card can never be used in a Dash.", seat)
    hand = take_from_hand(rnd.hands[seat], cards, seat)
    level = state.settings.level
    check = check_dash(level, rnd.dash, cards)
    if not check.valid:
        raise Illegal(check.reason, seat)
    laid = tuple(Laid(seat, g) for g in check.groups)
    rnd = evolve(rnd.with_hand(seat, hand), table=rnd.table + laid, laid=rnd.laid | {seat})
    need_deck_copies(rnd, cards, seat)
    groups = ", ".join(g.describe() for g in check.groups)
    verdicts = [legal(f"{state.name(seat)} laid Dash {rnd.dash}: {groups}.", seat)]
    if get_dash(level, rnd.dash).first_to:
        state, more = end_round(evolve(state, round=rnd), rnd, seat, RoundEnd.FIRST_TO)
        return state, verdicts + more
    if can_finish(rnd, seat):
        return finished_hand(state, rnd, seat, verdicts)
    return settle(state, rnd, verdicts)


# -- step 3: hand off -----------------------------------------------------------------------
def handoff(state: DeckDashState, event: Event) -> Result:
    rnd, seat = my_turn(state, event)
    card = read_card(event.require("card"), "handoff.card")
    index = event.require("group")
    if not isinstance(index, int) or isinstance(index, bool):
        raise EventError("handoff.group must be the number of a group on the table")
    end = event.get("end")
    if end not in (None, "low", "high"):
        raise EventError("handoff.end must be 'low' or 'high' (which end of a run a Wild extends)")
    need_phase(rnd, seat, Phase.PLAY)
    if seat not in rnd.laid:
        raise Illegal("Lay down your own Dash before handing off cards.", seat)
    if not 0 <= index < len(rnd.table):
        raise Illegal(f"There is no group {index} on the table.", seat)
    if card.is_special:
        raise Illegal(f"A {words(card)} card can never be handed off onto a Dash.", seat)
    hand = take_from_hand(rnd.hands[seat], [card], seat)
    target = rnd.table[index]
    grown = hand_off(target.group, card, end=end)
    if grown is None:
        raise Illegal(
            f"{cap(words(card))} does not fit on {state.name(target.owner)}'s "
            f"{target.group.label}.",
            seat,
        )
    table = list(rnd.table)
    table[index] = Laid(target.owner, grown)
    rnd = evolve(rnd.with_hand(seat, hand), table=tuple(table))
    need_deck_copies(rnd, [card], seat)
    verdicts = [
        legal(
            f"{state.name(seat)} handed off {words(card)} onto {state.name(target.owner)}'s "
            f"{grown.label}.",
            seat,
        )
    ]
    if can_finish(rnd, seat):
        return finished_hand(state, rnd, seat, verdicts)
    return settle(state, rnd, verdicts)


# -- action cards -------------------------------------------------------------------------
def play(state: DeckDashState, event: Event) -> Result:
    rnd, seat = my_turn(state, event)
    card = read_card(event.require("card"), "play.card")
    return play_card(state, rnd, seat, card)


def play_card(state: DeckDashState, rnd: Round, seat: int, card: Card) -> Result:
    if card.special not in DRAW_ACTIONS:
        raise Illegal(
            f"Only Keep Two, Draw 2 Discard 1 and Draw 4 Discard 3 are played this way; "
            f"{words(card)} is discarded.",
            seat,
        )
    need_phase(rnd, seat, Phase.PLAY)
    hand = take_from_hand(rnd.hands[seat], [card], seat)
    owed = DRAW_ACTIONS[card.special]
    rnd = evolve(rnd.with_hand(seat, hand), phase=Phase.ACTION_DRAW, owed=owed, action=card)
    need_deck_copies(rnd, [card], seat)
    verdicts = [
        legal(
            f"{state.name(seat)} plays {words(card)}: draw {owed} cards from the draw pile "
            "or the discard pile.",
            seat,
        )
    ]
    return settle(state, rnd, verdicts)


# -- step 4: discard ------------------------------------------------------------------------
def discard(state: DeckDashState, event: Event) -> Result:
    rnd, seat = my_turn(state, event)
    card = read_card(event.require("card"), "discard.card")
    target = event.get("target")
    if target is not None and (
        not isinstance(target, int) or isinstance(target, bool) or not 0 <= target < state.n
    ):
        raise EventError(f"discard.target must be a seat 0..{state.n - 1}")
    if rnd.phase is Phase.BLOCKED and card.special is Special.BLOCK_YOU:
        return return_block(state, event)
    if rnd.phase is Phase.ACTION_DISCARD:
        hand = take_from_hand(rnd.hands[seat], [card], seat)
        rnd = evolve(rnd.with_hand(seat, hand), discard=(*rnd.discard, card), owed=rnd.owed - 1)
        need_deck_copies(rnd, [card], seat)
        if rnd.owed == 0:
            rnd = evolve(rnd, phase=Phase.PLAY, action=None)
        verdicts = [legal(f"{state.name(seat)} discarded {words(card)}.", seat)]
        if can_finish(rnd, seat):
            return finished_hand(state, rnd, seat, verdicts)
        return settle(state, rnd, verdicts)
    need_phase(rnd, seat, Phase.PLAY)
    if card.special in DRAW_ACTIONS:
        return play_card(state, rnd, seat, card)
    missed = missed_dash(state, rnd, seat)
    hand = take_from_hand(rnd.hands[seat], [card], seat)
    rnd = rnd.with_hand(seat, hand)
    name = state.name(seat)
    if card.special is Special.REVERSE:
        rnd = evolve(rnd, direction=-rnd.direction, discard=(*rnd.discard, card))
        way = "counterclockwise" if rnd.direction == COUNTERCLOCKWISE else "clockwise"
        verdicts = [legal(f"{name} played Reverse: play now goes {way}.", seat)]
    elif card.special is Special.SKIP_YOU:
        rnd, verdicts = skip_you(state, rnd, seat, target, card)
    elif card.special is Special.SKIP_TWO:
        rnd, verdicts = skip_two(state, rnd, seat, card)
    elif card.special is Special.BLOCK_YOU:
        rnd, verdicts = block_you(state, rnd, seat, target, card)
    else:
        rnd = evolve(rnd, discard=(*rnd.discard, card))
        verdicts = [legal(f"{name} discarded {words(card)}.", seat)]
    need_deck_copies(rnd, [card], seat)
    verdicts += missed
    if can_finish(rnd, seat):
        return finished_hand(state, rnd, seat, verdicts)
    rnd, more = end_turn(rnd, state.players)
    return settle(state, rnd, verdicts + more)


def missed_dash(state: DeckDashState, rnd: Round, seat: int) -> list[Verdict]:
    """A note when a player ends their turn holding the Dash they have not laid.

    "If you are able to make a Dash … lay the Dash down": a real table cannot force it, so
    the discard stands; but where the referee knows the whole hand (a scripted round) it
    says so, for the player and for whoever checks the game afterwards.
    """
    hand = rnd.hands[seat]
    if not rnd.scripted or hand.unknown or seat in rnd.laid:
        return []
    level = state.settings.level
    if find_dash(level, rnd.dash, hand.known) is None:
        return []
    text = get_dash(level, rnd.dash).text
    return [
        info(
            f"{state.name(seat)} could have laid Dash {rnd.dash} ({text}) this turn: the rules "
            "say to lay a Dash down when you can.",
            seat,
            missed_dash=rnd.dash,
        )
    ]


def unblocked_others(rnd: Round, seat: int) -> list[int]:
    return [s for s in others_in_order(rnd, seat) if s not in rnd.blocks]


def default_victim(state: DeckDashState, rnd: Round, seat: int) -> tuple[int, str]:
    """DD-4, DD-10: with no target, the next player in the direction of play who has no
    Block You in front of them (a camera names nobody); and a note naming the blocked
    players passed over ("" when there were none). Call only when there is such a player."""
    others = others_in_order(rnd, seat)
    victim = next(s for s in others if s not in rnd.blocks)
    passed = others[: others.index(victim)]
    if not passed:
        return victim, ""
    has = "has" if len(passed) == 1 else "have"
    names = and_list([state.name(s) for s in passed])
    return victim, f" ({names} {has} a Block You in front of them)"


def skip_you(
    state: DeckDashState, rnd: Round, seat: int, target: int | None, card: Card
) -> tuple[Round, list[Verdict]]:
    """DD-4: a chosen player, or by default the next one who is not blocked; never a
    blocked player (DD-10)."""
    rnd = evolve(rnd, discard=(*rnd.discard, card))
    if not unblocked_others(rnd, seat):
        return rnd, [
            legal(
                f"{state.name(seat)} discarded Skip You; everyone else is already blocked, "
                "so it has no effect.",
                seat,
            )
        ]
    victim, passed = (target, "") if target is not None else default_victim(state, rnd, seat)
    check_victim(state, rnd, seat, victim, "skip")
    if victim in rnd.blocks:
        raise Illegal(
            f"{state.name(victim)} has a Block You card in front of them: a Skip You cannot "
            "be played against them.",
            seat,
        )
    skips = list(rnd.skips)
    skips[victim] += 1
    return evolve(rnd, skips=tuple(skips)), [
        legal(
            f"{state.name(seat)} played Skip You: {state.name(victim)} loses a turn{passed}.",
            seat,
        )
    ]


def skip_two(
    state: DeckDashState, rnd: Round, seat: int, card: Card
) -> tuple[Round, list[Verdict]]:
    """DD-5: the next two other players each lose a turn; a blocked one's blocked turn is
    the one lost (once: with two players the opponent is both of the two)."""
    others = others_in_order(rnd, seat)
    victims = (others * 2)[:2]
    skips = list(rnd.skips)
    blocked = set(rnd.blocks)
    for v in victims:
        if v in blocked:
            blocked.discard(v)  # the blocked turn stands for this lost turn, and only this one
        else:
            skips[v] += 1
    rnd = evolve(rnd, discard=(*rnd.discard, card), skips=tuple(skips))
    if len(set(victims)) == 1:  # two players: the opponent is both of the next two
        only = victims[0]
        counted = " (the Block You counts as one)" if only in rnd.blocks else ""
        lost = f"{state.name(only)} loses two turns{counted}"
    else:
        lost = f"{and_list([state.name(v) for v in victims])} lose a turn"
    return rnd, [legal(f"{state.name(seat)} played Skip 2 Players: {lost}.", seat)]


def block_you(
    state: DeckDashState, rnd: Round, seat: int, target: int | None, card: Card
) -> tuple[Round, list[Verdict]]:
    """Block You goes in front of another player, not on the discard pile (DD-10)."""
    if not unblocked_others(rnd, seat):
        rnd = evolve(rnd, discard=(*rnd.discard, card))
        return rnd, [
            legal(
                f"{state.name(seat)} discarded Block You; everyone else is already blocked, "
                "so it has no effect.",
                seat,
            )
        ]
    victim, passed = (target, "") if target is not None else default_victim(state, rnd, seat)
    check_victim(state, rnd, seat, victim, "block")
    if victim in rnd.blocks:
        raise Illegal(f"{state.name(victim)} already has a Block You card in front of them.", seat)
    lost = rnd.skips[victim] if victim < len(rnd.skips) else 0
    then = (  # DD-10: skipped turns come first, then the turn that returns the card
        f"{state.name(victim)} first loses {lost} turn{'s' if lost > 1 else ''}, then spends "
        "the next one returning it"
        if lost
        else f"{state.name(victim)}'s next turn is only to return it"
    )
    return evolve(rnd, blocks=rnd.blocks | {victim}), [
        legal(
            f"{state.name(seat)} put Block You in front of {state.name(victim)}: {then}{passed}.",
            seat,
        )
    ]


def check_victim(state: DeckDashState, rnd: Round, seat: int, victim: int, verb: str) -> None:
    if victim == seat:
        raise Illegal(f"You cannot {verb} yourself: choose another player.", seat)
    if victim not in rnd.active:
        raise Illegal(f"{state.name(victim)} is not playing this round.", seat)


def return_block(state: DeckDashState, event: Event) -> Result:
    rnd, seat = my_turn(state, event)
    if rnd.phase is not Phase.BLOCKED:
        raise Illegal("You have no Block You card in front of you.", seat)
    block = Card.action(Special.BLOCK_YOU)
    rnd = evolve(rnd, blocks=rnd.blocks - {seat}, discard=(*rnd.discard, block))
    verdicts = [
        legal(f"{state.name(seat)} returned the Block You card; that was their turn.", seat)
    ]
    rnd, more = end_turn(rnd, state.players)
    return settle(state, rnd, verdicts + more)


# -- Deck Steal: any time, even out of turn --------------------------------------------------
def steal(state: DeckDashState, event: Event) -> Result:
    rnd = current_round(state)
    seat = seat_of(state, event)
    named = optional_card(event, "card")
    if seat not in rnd.active:
        raise Illegal(f"{state.name(seat)} is not playing this tie-break round.", seat)
    stealer = Card.action(Special.DECK_STEAL)
    hand = take_from_hand(rnd.hands[seat], [stealer], seat)
    top = rnd.top
    if top is None:
        raise Illegal("The discard pile is empty: there is nothing to steal.", seat)
    if named is not None and named != top:
        raise Illegal(f"The top of the discard pile is {words(top)}, not {words(named)}.", seat)
    if top.is_special or (top.is_wild and not state.settings.wild_from_discard):
        # DD-8: stealing is picking up; a special start card is only for the first draw.
        what = "a discarded Wild" if top.is_wild else f"a {words(top)} card"
        raise Illegal(f"Deck Steal cannot take {what} from the discard pile.", seat)
    if rnd.start_pickup:  # DD-18: even where a discarded Wild may be stolen
        raise Illegal(
            f"{cap(the(top))} starting the discard pile is only for {state.name(rnd.turn)}'s "
            "first draw: nobody can Deck-Steal it.",
            seat,
        )
    rnd = evolve(
        rnd.with_hand(seat, hand.add([top])),
        discard=(*rnd.discard[:-1], stealer),
        start_pickup=False,
    )
    need_deck_copies(rnd, [stealer], seat)
    verdicts = [
        legal(
            f"{state.name(seat)} used Deck Steal to take {words(top)} from the discard pile.",
            seat,
        )
    ]
    return settle(state, rnd, verdicts)
