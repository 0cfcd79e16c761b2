"""DOS rules: ``apply(state, event) -> (state, verdicts)``.

Handlers build a new state or raise ``Foul``; ``apply`` turns a foul into the unchanged
state plus one ``illegal`` verdict. Penalty draws (Draw Two, combo, callout, the last-card
draw of 3, an un-countered Draw Four) are made by the referee itself from the draw pile
and announced, because the physical draw has no choice in it (DOS-21).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from referee.copies import too_many_copies
from referee.dos.cards import DosCard, Symbol, format_card, matches, parse_card, parse_cards
from referee.dos.deck import NUMBER_SETS, copies_in_deck, deck_counter, full_deck
from referee.dos.state import PILE_NAMES, DosState, PendingFour, Phase, PileTurn, Turn
from referee.events import Event, EventError
from referee.frozen import evolve
from referee.hands import Hidden
from referee.jsonlines import shown
from referee.summary import cards as count_cards
from referee.verdicts import Outcome, Verdict, illegal, info, legal, prompt
from referee.words import and_list

Out = list[Verdict]
DONE = (PileTurn.PLAYED, PileTurn.DRAWN_PLAYED)
# DOS-25, option ``late_draw``: a draw typed after its card's play is read as drawn and played
# (games set up from day 35), or refused (stored games: their logs replay as they did)
LATE_DRAW_PLAYED, LATE_DRAW_REFUSED = "played", "refused"
# DOS-25, option ``late_last_card``: a play that empties a hand and may be of the card drawn
# for its pile lets the round's end wait one event for that draw (games set up from day 37),
# or ends the round at once (stored games: a table game's last play would otherwise wait)
LAST_CARD_WAITS, LAST_CARD_ENDS = "waits", "ends"


class Foul(Exception):
    """A rule violation: the event is rejected and the state stays as it was."""

    def __init__(self, reason: str, seat: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.seat = seat


# -- decoding ---------------------------------------------------------------------------
def _seat(state: DosState, event: Event) -> int:
    if event.seat is None:
        raise EventError(f"event {shown(event.kind)} needs the seat of the player")
    if not 0 <= event.seat < state.n:  # a negative seat too (an Event built in Python)
        raise EventError(f"seat {event.seat} does not exist: seats are 0..{state.n - 1}")
    return event.seat


def _target(state: DosState, event: Event) -> int:
    target = event.require("target")
    if not isinstance(target, int) or isinstance(target, bool) or not 0 <= target < state.n:
        raise EventError(f"'target' must be a seat 0..{state.n - 1}, got {shown(target)}")
    return target


def _pile(value: Any) -> int:
    if value == "left" or value == "right":
        return 0 if value == "left" else 1
    if isinstance(value, str) and value.strip().lower() in PILE_NAMES:
        return PILE_NAMES.index(value.strip().lower())
    if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
        return value
    raise EventError(f"'pile' must be 'left' or 'right', got {shown(value)}")


# the most cards any pile can hold: the largest deck the ``numbers`` option allows
MOST_CARDS = max(len(full_deck(numbers)) for numbers in NUMBER_SETS)


def _card_list_or_count(value: Any, what: str) -> list[DosCard] | int:
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise EventError(f"{what}: a count cannot be negative")
        if value > MOST_CARDS:  # a count of 2**70 used to end in OverflowError at len()
            raise EventError(
                f"{what}: {shown(value)} cards is more than a DOS deck has ({MOST_CARDS})"
            )
        return value
    if isinstance(value, list | str):
        return parse_cards(value)
    raise EventError(f"{what}: expected a list of cards or a number of cards, got {shown(value)}")


# -- small helpers ----------------------------------------------------------------------
def _need_play(state: DosState) -> None:
    if state.phase is Phase.DEAL:
        raise Foul("The cards have not been dealt yet: enter the deal first.")
    if state.phase is Phase.FINISHED:
        raise Foul("The game is over.")


def _need_no_debt(state: DosState) -> None:
    if state.waiting_for_reshuffle:
        raise Foul(
            "The draw pile is empty and cards are still owed: shuffle the discard piles "
            "(keep both top cards) and enter the reshuffle first."
        )


def _need_turn(state: DosState, seat: int) -> None:
    if seat != state.turn:
        raise Foul(f"It is {state.name(state.turn)}'s turn, not {state.name(seat)}'s.", seat)


def _under_tops(state: DosState) -> int:
    return sum(len(p) - 1 for p in state.piles)


def _can_reshuffle(state: DosState) -> bool:
    """An empty draw pile is refilled from the discard piles (DOS-16), not under DOS-17."""
    return not state.options["draw_pile_out_ends_game"] and _under_tops(state) > 0


def _not_in_deck(state: DosState, card: DosCard) -> str:
    numbers = state.options["numbers"]
    return f"There is no {card.words} in this deck: its numbers are {numbers} (option 'numbers')."


def _need_in_deck(state: DosState, card: DosCard, seat: int | None = None) -> None:
    """The notation reads 0-10 for every deck; the ``numbers`` option says which exist (DOS-2)."""
    if card not in copies_in_deck(state.options["numbers"]):
        raise Foul(_not_in_deck(state, card), seat)


def _copies_in_stock(state: DosState, card: DosCard) -> int:
    """Copies of ``card`` surely still in the draw pile.

    After an unseen reshuffle the pile is made of the pool's cards; each unseen draw since
    may have taken a copy, so at least ``pool copies - unseen draws`` are still there.
    """
    stock = state.stock
    sure = stock.known.count(card)
    pool = state.stock_pool
    if pool is not None:
        sure += max(0, pool.count(card) - (len(pool) - stock.unknown))
    return sure


def _known_copies(state: DosState, card: DosCard) -> dict[str, int]:
    """Where the referee knows copies of ``card`` to be: each physical card is in one place."""
    return {
        "on the discard piles": sum(pile.count(card) for pile in state.piles),
        "known in hands": sum(hand.known.count(card) for hand in state.hands),
        "in the draw pile": _copies_in_stock(state, card),
    }


def _need_unseen_copy(state: DosState, card: DosCard, seat: int) -> None:
    """A card seen coming out of an unseen hand or draw pile is one more copy (DOS-20).

    The referee trusts what it cannot rule out, but a copy beyond the deck's count can be
    ruled out: it is a misread (camera or tablet). Only copies whose place the referee knows
    count: a copy shuffled back into the draw pile (DOS-16) counts there until an unseen
    draw may have taken it.
    """
    have = copies_in_deck(state.options["numbers"])[card]
    counts = {**_known_copies(state, card), "named now": 1}
    problem = too_many_copies(f"{have} {card.words} card{'s' * (have != 1)}", have, counts)
    if problem:
        raise Foul(problem, seat)


def _remind_dos(state: DosState, seat: int, out: Out) -> None:
    """Whatever play left ``seat`` on two cards uncalled, tell them they can be caught (DOS-12)."""
    if seat in state.exposed:
        out.append(info(f"{state.name(seat)} is down to two cards: say DOS!", seat))


def _set_hand(state: DosState, seat: int, hand: Hidden[DosCard], *, played: bool) -> DosState:
    """Store a changed hand and keep the DOS-call bookkeeping (DOS-12) in step with it."""
    hands = state.hands[:seat] + (hand,) + state.hands[seat + 1 :]
    exposed = state.exposed - {seat}
    called = state.called if played else state.called - {seat}
    if played and len(hand) == 2 and seat not in called:
        exposed = exposed | {seat}
    return evolve(state, hands=hands, exposed=exposed, called=called)


def _take_from_stock(state: DosState, count: int) -> tuple[DosState, list[DosCard], int]:
    """Up to ``count`` cards off the draw pile: (state, named cards, unnamed count)."""
    stock = state.stock
    take_known = min(count, len(stock.known))
    cards = list(stock.known[:take_known])
    take_unknown = min(count - take_known, stock.unknown)
    stock = Hidden(stock.known[take_known:], stock.unknown - take_unknown)
    return evolve(state, stock=stock), cards, take_unknown


def _empty_stock_note(state: DosState, out: Out) -> None:
    """Say what happens now that the draw pile is empty (DOS-16 / DOS-17)."""
    if len(state.stock):
        return
    if state.options["draw_pile_out_ends_game"]:
        out.append(info("The draw pile is empty: the game ends after this turn."))
    elif _can_reshuffle(state):
        out.append(
            prompt(
                "The draw pile is empty: shuffle the discard piles (keep both top cards) "
                "and enter the reshuffle."
            )
        )


def _give(
    state: DosState, seat: int, count: int, why: str, out: Out, penalty: str | None = None
) -> DosState:
    """``seat`` draws ``count`` cards; a shortfall waits for a reshuffle (DOS-16).
    ``penalty`` names a rule broken ("no_dos_call", "one_card_left"), in the verdict's data
    as Hit the Deck's are: a card's effect (Draw Two, Draw Four, a combo) is none."""
    state, cards, unnamed = _take_from_stock(state, count)
    got = len(cards) + unnamed
    state = _set_hand(state, seat, state.hands[seat].add(cards, unnamed), played=False)
    said = f"{state.name(seat)} draws {count}: {why}."
    if got < count:
        said = f"{state.name(seat)} must draw {count}: {why}; the draw pile gives {got}."
    extra = {"penalty": penalty} if penalty else {}
    out.append(info(said, seat, draws=got, cards=[format_card(c) for c in cards], **extra))
    short = count - got
    if not short and got:
        _empty_stock_note(state, out)
    if short:
        if state.options["draw_pile_out_ends_game"]:
            out.append(
                info(f"The draw pile ran out: {count_cards(short)} could not be drawn.", seat)
            )
        elif _under_tops(state) > 0:
            owed = list(state.owed)
            owed[seat] += short
            state = evolve(state, owed=tuple(owed))
            out.append(
                prompt(
                    f"The draw pile is empty: {state.name(seat)} still owes {short}. Shuffle "
                    "the discard piles (keep both top cards) and enter the reshuffle.",
                    seat,
                    owed=short,
                )
            )
        else:
            out.append(
                info(f"Nothing is left to draw: {state.name(seat)}'s other {short} are let off.")
            )
    return state


def _pile_settled(state: DosState, pile: int) -> bool:
    """Nothing more can happen on ``pile`` this turn."""
    cur = state.current
    status = cur.piles[pile]
    if status in DONE:
        return True
    blocked = pile in state.blocked
    if status is PileTurn.OPEN:
        return blocked and not state.options["draw_for_blocked_pile"]
    drawn = cur.drawn[pile]
    if cur.drew_nothing[pile] or blocked:
        return True
    return drawn is not None and not matches(drawn, state.top(pile))


def _playable_piles(state: DosState) -> int:
    """Piles the turn player may still play on: open ones, and ones drawn for whose drawn
    card may go on them (unnamed, or named and matching: DOS-6, DOS-12)."""
    return sum(1 for p in (0, 1) if p not in state.blocked and _may_still_play(state, p))


def _may_still_play(state: DosState, pile: int) -> bool:
    cur = state.current
    if cur.piles[pile] is PileTurn.OPEN:
        return True
    if cur.piles[pile] is not PileTurn.DRAWN or cur.drew_nothing[pile]:
        return False
    drawn = cur.drawn[pile]
    return drawn is None or matches(drawn, state.top(pile))


def _start_turn(state: DosState, out: Out) -> DosState:
    """The turn player's first action: un-countered Draw Fours are drawn now (DOS-10)."""
    if state.current.started:
        return state
    for four in state.pending:
        state = _give(
            state, four.victim, 4, f"the {four.card.words} on the {PILE_NAMES[four.pile]} pile", out
        )
    return evolve(state, pending=(), current=evolve(state.current, started=True))


# -- round and game end -----------------------------------------------------------------
def _end_round(state: DosState, why: str, out: Out) -> DosState:
    sizes = tuple(len(h) for h in state.hands)
    best = min(sizes)
    round_winners = tuple(i for i, s in enumerate(sizes) if s == best)
    names = and_list([state.name(i) for i in round_winners])
    out.append(
        Verdict(
            Outcome.ROUND_END,
            f"Round {state.round} is over ({why}): {names} "
            f"{'wins' if len(round_winners) == 1 else 'share the win'} with "
            f"{count_cards(best)} left.",
            None,
            {"cards_left": list(sizes), "winners": list(round_winners)},
        )
    )
    state = evolve(
        state,
        rounds=(*state.rounds, sizes),
        round_winners=(*state.round_winners, round_winners),
        pending=(),
        owed=(0,) * state.n,
        blocked=frozenset(),
        current=Turn(),
        called=frozenset(),
        exposed=frozenset(),
        end_reason=why,
    )
    if state.round >= state.options["rounds"]:
        totals = state.totals
        low = min(totals)
        winners = tuple(i for i, t in enumerate(totals) if t == low)
        out.append(
            Verdict(
                Outcome.GAME_END,
                f"Game over: {and_list([state.name(i) for i in winners])} "
                f"{'wins' if len(winners) == 1 else 'share the win'}.",
                None,
                {"totals": list(totals), "winners": list(winners)},
            )
        )
        return evolve(state, phase=Phase.FINISHED, winners=winners)
    return evolve(
        state, phase=Phase.DEAL, round=state.round + 1, dealer=(state.dealer + 1) % state.n
    )


def _finish_turn(state: DosState, out: Out) -> DosState:
    """After the turn: last-card draw, combo, then actions left pile first (DOS-9, 11, 13)."""
    seat = state.turn
    cur = state.current
    if seat in state.called and len(state.hands[seat]) > 2:
        # A call made before playing is for this turn's plays (DOS-12). They did not bring
        # the player down to two, so it cannot cover a later turn's play down to two.
        state = evolve(state, called=state.called - {seat})
    if len(state.hands[seat]) == 1:
        state = _give(state, seat, 3, "ended the turn holding one card", out, "one_card_left")
    left, right = cur.played
    if left is not None and left.is_number and left == right:
        out.append(info(f"Combo! Two {left.words}s: everyone else draws 4.", seat))
        other = state.next_seat(seat)
        while other != seat:
            state = _give(state, other, 4, f"{state.name(seat)}'s combo", out)
            other = state.next_seat(other)
    blocked: set[int] = set()
    pending: list[PendingFour] = []
    for pile, card in enumerate(cur.played):
        if card is None or card.symbol is None:
            continue
        where = f"the {PILE_NAMES[pile]} pile"
        if card.symbol is Symbol.SKIP:
            blocked.add(pile)
            out.append(info(f"Skip: nobody may play on {where} next turn.", seat, pile=pile))
        elif card.symbol is Symbol.REVERSE:
            state = evolve(state, direction=-state.direction)
            way = "clockwise" if state.direction == 1 else "counter-clockwise"
            out.append(info(f"Reverse: play now goes {way}.", seat))
        elif card.symbol is Symbol.DRAW_TWO:
            state = _give(state, state.next_seat(seat), 2, f"Draw Two on {where}", out)
        elif not state.options["draw_four_counter"]:
            # Nothing can cancel it (DOS-22), so it waits for nobody: drawn at once, as a
            # Draw Two is.
            state = _give(state, state.next_seat(seat), 4, f"the {card.words} on {where}", out)
        else:
            victim = state.next_seat(seat)
            pending.append(PendingFour(pile, victim, card))
            out.append(
                prompt(
                    f"{state.name(victim)} must draw 4 for the {card.words}, or counter it "
                    f"with a {card.color.word} Skip on {where}.",
                    victim,
                    pile=pile,
                )
            )
    nxt = state.next_seat(seat)
    state = evolve(
        state, turn=nxt, blocked=frozenset(blocked), current=Turn(), pending=tuple(pending)
    )
    if state.options["draw_pile_out_ends_game"] and len(state.stock) == 0:
        return _end_round(state, "the draw pile ran out", out)
    closed = and_list([PILE_NAMES[p] for p in sorted(blocked)])
    verb = "pile is" if len(blocked) == 1 else "piles are"
    note = f" (the {closed} {verb} closed)" if blocked else ""
    out.append(info(f"{state.name(nxt)}'s turn{note}.", nxt))
    return state


def _maybe_finish(state: DosState, out: Out) -> DosState:
    if _pile_settled(state, 0) and _pile_settled(state, 1):
        return _finish_turn(state, out)
    return state


# -- handlers ---------------------------------------------------------------------------
def _deal(state: DosState, event: Event, out: Out) -> DosState:
    # DOS-24: a seat or dealer past the table is malformed at any moment, not a deal refused
    # because the cards are already dealt (as Deck Dash's DD-23)
    if event.seat is not None:
        _seat(state, event)
    dealer = event.get("dealer", state.dealer if event.seat is None else event.seat)
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < state.n:
        raise EventError(f"'dealer' must be a seat 0..{state.n - 1}, got {shown(dealer)}")
    if state.phase is Phase.PLAY:
        raise Foul("The cards are already dealt.")
    if state.phase is Phase.FINISHED:
        raise Foul("The game is over.")
    hands_raw = event.require("hands")
    if not isinstance(hands_raw, list) or len(hands_raw) != state.n:
        raise EventError(f"'hands' must list {state.n} hands (cards or counts), one per seat")
    hands = [_card_list_or_count(h, f"hand of seat {i}") for i, h in enumerate(hands_raw)]
    piles_raw = event.require("piles")
    if not isinstance(piles_raw, list) or len(piles_raw) != 2:
        raise EventError("'piles' must name the two face-up cards: [left, right]")
    piles = [parse_card(t) for t in piles_raw]
    size = state.options["hand_size"]
    for seat, hand in enumerate(hands):
        count = hand if isinstance(hand, int) else len(hand)
        if count != size:
            raise Foul(f"Everyone is dealt {size} cards; {state.name(seat)} got {count}.")
    deck = deck_counter(state.options["numbers"])
    deck_size = sum(deck.values())
    dealt = state.n * size + 2
    stock_raw = event.get("stock")
    stock = deck_size - dealt if stock_raw is None else _card_list_or_count(stock_raw, "stock")
    left = deck_size - dealt
    if isinstance(stock, int) and stock > left:
        # "The remaining cards in the deck form the draw pile": no more than are left (a
        # box with cards missing may have fewer, DOS-23). A count is a typing slip, and a
        # game stored before this ruling must still replay: it is counted as what is left.
        out.append(
            info(
                f"The draw pile cannot hold {stock} cards: after {state.n} hands of {size} and "
                f"the two face-up cards the deck has {left} left, so it counts as {left}."
            )
        )
        stock = left
    elif not isinstance(stock, int) and len(stock) > left:
        raise Foul(
            f"The draw pile cannot hold {len(stock)} cards: after {state.n} hands of {size} "
            f"and the two face-up cards the deck has {left} left."
        )
    named: Counter[DosCard] = Counter(piles)
    for hand in hands:
        if not isinstance(hand, int):
            named.update(hand)
    if not isinstance(stock, int):
        named.update(stock)
    for card, copies in named.items():
        if card not in deck:
            raise Foul(_not_in_deck(state, card))
        if copies > deck[card]:
            raise Foul(
                f"The deck has only {deck[card]} {card.words} cards, the deal names {copies}."
            )
    everything_named = not isinstance(stock, int) and all(not isinstance(h, int) for h in hands)
    if everything_named and named != deck:
        raise Foul(
            f"The deal must use the whole deck of {deck_size} cards; "
            f"it names {sum(named.values())}."
        )
    new_hands = tuple(Hidden(unknown=h) if isinstance(h, int) else Hidden(tuple(h)) for h in hands)
    state = evolve(
        state,
        phase=Phase.PLAY,
        dealer=dealer,
        hands=new_hands,
        stock=Hidden(unknown=stock) if isinstance(stock, int) else Hidden(tuple(stock)),
        stock_pool=None,
        piles=((piles[0],), (piles[1],)),
        turn=(dealer + 1) % state.n,
        direction=1,
        blocked=frozenset(),
        current=Turn(),
        pending=(),
        owed=(0,) * state.n,
        called=frozenset(),
        exposed=frozenset(),
        end_reason="",
    )
    out.append(
        legal(
            f"Round {state.round}: {count_cards(size)} each. Left pile {piles[0].words}, "
            f"right pile {piles[1].words}. {state.name(state.turn)} starts.",
            dealer,
        )
    )
    if event.seat is not None and event.seat != dealer:
        # DOS-24: ``dealer`` counts (as it did for stored games); the seat is said, not dropped
        out.append(
            info(
                f"{state.name(dealer)} deals, not {state.name(event.seat)} whose seat the deal "
                f"was entered for: the deal names {state.name(dealer)} as its dealer.",
                dealer,
            )
        )
    if any(p.is_action for p in piles):
        out.append(info("An action card turned up to start a pile has no effect (DOS-4)."))
    return state


def _counter_for(state: DosState, seat: int, card: DosCard, pile: int | None) -> PendingFour | None:
    for four in state.pending:
        if (
            four.victim == seat
            and card.symbol is Symbol.SKIP
            and card.color is four.card.color
            and (pile is None or pile == four.pile)
        ):
            return four
    return None


def _do_counter(state: DosState, seat: int, card: DosCard, four: PendingFour, out: Out) -> DosState:
    hand = state.hands[seat]
    if not hand.can_remove(card):
        raise Foul(f"{state.name(seat)} does not hold a {card.words}.", seat)
    if card not in hand.known:
        _need_unseen_copy(state, card, seat)
    piles = list(state.piles)
    piles[four.pile] = (*piles[four.pile], card)
    state = evolve(
        state,
        piles=(piles[0], piles[1]),
        pending=tuple(f for f in state.pending if f is not four),
    )
    state = _set_hand(state, seat, hand.remove(card), played=True)
    out.append(
        legal(
            f"{state.name(seat)} counters the {four.card.words} with a {card.words}: no cards to "
            f"draw, and the {PILE_NAMES[four.pile]} pile stays open.",
            seat,
            pile=four.pile,
        )
    )
    if len(state.hands[seat]) == 0:
        return _end_round(state, f"{state.name(seat)} played their last card", out)
    _remind_dos(state, seat, out)
    return state


def _counter(state: DosState, event: Event, out: Out) -> DosState:
    seat = _seat(state, event)
    card = parse_card(event.require("card"))
    pile = _pile(event.get("pile")) if event.get("pile") is not None else None
    _need_play(state)
    _need_in_deck(state, card, seat)
    _need_no_debt(state)
    if not state.options["draw_four_counter"]:
        raise Foul("This game is played without the Draw Four counter: no Skip cancels it.", seat)
    mine = [f for f in state.pending if f.victim == seat]
    if not mine:
        raise Foul(f"No Draw Four is waiting for {state.name(seat)} to counter.", seat)
    four = _counter_for(state, seat, card, pile)
    if four is None and _counter_for(state, seat, card, None) is not None:
        raise Foul("The countering Skip goes on the Draw Four's own pile.", seat)
    if four is None:
        colors = " or ".join(sorted({f.card.color.word for f in mine}))
        raise Foul(f"Only a {colors} Skip counters that Draw Four, not a {card.words}.", seat)
    return _do_counter(state, seat, card, four, out)


def _play(state: DosState, event: Event, out: Out) -> DosState:
    seat = _seat(state, event)
    card = parse_card(event.require("card"))
    pile = _pile(event.require("pile"))
    _need_play(state)
    _need_in_deck(state, card, seat)
    _need_no_debt(state)
    four = _counter_for(state, seat, card, pile)
    if four is not None:  # pending Draw Fours exist only before the turn's first action
        return _do_counter(state, seat, card, four, out)
    _need_turn(state, seat)
    state = _start_turn(state, out)
    where = f"the {PILE_NAMES[pile]} pile"
    if pile in state.blocked:
        raise Foul(f"A Skip closed {where} for this turn: nobody may play on it.", seat)
    cur = state.current
    status = cur.piles[pile]
    if status in DONE:
        raise Foul(f"You already played on {where} this turn: one card per pile.", seat)
    hand = state.hands[seat]
    doubt = ""
    may_be_drawn = _may_be_drawn(state, pile, card)
    if status is PileTurn.DRAWN:
        drawn = cur.drawn[pile]
        if cur.drew_nothing[pile]:
            raise Foul(f"You drew for {where} and got nothing, so you cannot play on it.", seat)
        if drawn is not None and card != drawn:
            raise Foul(
                f"After drawing for {where} only the card you drew ({drawn.words}) may go on it.",
                seat,
            )
    else:
        available, unnamed = _not_drawn_for(hand, cur, pile)
        if not available.can_remove(card):
            held = " (the one you drew is for the other pile)" if hand.can_remove(card) else ""
            hint = _draw_first_hint(state, seat, pile, card) if may_be_drawn else ""
            raise Foul(f"{state.name(seat)} does not hold a {card.words}{held}.{hint}", seat)
        if unnamed and card not in available.known and available.unknown <= unnamed:
            doubt = (
                f"{state.name(seat)} held no {card.words} before drawing: it can only be the "
                f"card drawn for the other pile, which may go on that pile only (DOS-6). "
                "If so, undo this play."
            )
    if not hand.can_remove(card):
        raise Foul(f"{state.name(seat)} does not hold a {card.words}.", seat)
    if card not in hand.known:
        _need_unseen_copy(state, card, seat)
    top = state.top(pile)
    if not matches(card, top):
        also = "" if top.symbol is Symbol.DRAW_FOUR else f", a {_face_words(top)}"
        raise Foul(
            f"A {card.words} does not match the {top.words} on {where}: it needs a "
            f"{top.color.word} card{also} or a Draw Four.",
            seat,
        )
    piles = list(state.piles)
    piles[pile] = (*piles[pile], card)
    statuses = list(cur.piles)
    statuses[pile] = PileTurn.DRAWN_PLAYED if status is PileTurn.DRAWN else PileTurn.PLAYED
    played = list(cur.played)
    played[pile] = card
    unseen = list(cur.played_unseen)
    unseen[pile] = card not in hand.known
    state = evolve(
        state,
        piles=(piles[0], piles[1]),
        current=evolve(
            cur,
            piles=(statuses[0], statuses[1]),
            played=(played[0], played[1]),
            played_unseen=(unseen[0], unseen[1]),
        ),
    )
    state = _set_hand(state, seat, hand.remove(card), played=True)
    left = len(state.hands[seat])
    out.append(legal(f"{state.name(seat)} plays a {card.words} on {where}.", seat, pile=pile))
    if doubt:
        out.append(info(doubt, seat))
    waits = state.options["late_last_card"] == LAST_CARD_WAITS
    if left == 0 and waits and may_be_drawn and unseen[pile]:
        return _last_card_waits(state, pile, out)
    if left == 0:
        return _end_round(state, _went_out(state, seat), out)
    _remind_dos(state, seat, out)
    return _maybe_finish(state, out)


def _went_out(state: DosState, seat: int) -> str:
    return f"{state.name(seat)} played their last card"


def _may_be_drawn(state: DosState, pile: int, card: DosCard) -> bool:
    """A draw for ``pile`` typed after the play of ``card`` could still say that it was the
    card drawn (DOS-25): the game reads late draws, the turn player has neither played on
    nor drawn for the pile, and the draw pile could have given it (not empty; its top card,
    where known, is ``card``). The matching and copy checks stay the play's and the draw's."""
    stock = state.stock
    return (
        state.options["late_draw"] == LATE_DRAW_PLAYED
        and state.current.piles[pile] is PileTurn.OPEN
        and len(stock) > 0
        and (not stock.known or stock.known[0] == card)
    )


def _draw_first_hint(state: DosState, seat: int, pile: int, card: DosCard) -> str:
    """Where the referee knows the whole hand, the camera's play of a card just drawn is
    refused before the draw typed after it can explain it (DOS-25): say to type it first."""
    if not matches(card, state.top(pile)):
        return ""  # not playable there: it cannot be a drawn card laid at once
    name = state.name(seat)
    return f" If {name} drew it just now for the {PILE_NAMES[pile]} pile, enter that draw first."


def _last_card_waits(state: DosState, pile: int, out: Out) -> DosState:
    """The turn player's play emptied a hand the referee cannot see, on a pile not drawn for:
    at a camera table it may be the card they drew for it, laid before the draw was typed
    (DOS-25). Ending the round now would refuse that draw and crown a player who holds a
    card, so the end waits for the next event (``_while_last_card_waits``)."""
    state = evolve(state, current=evolve(state.current, last_card_waits=pile))
    lead = f"{state.name(state.turn)} has no cards left by the referee's count"
    out.append(prompt(_waiting_words(state, lead), state.turn, pile=pile))
    return state


def _waiting_words(state: DosState, lead: str) -> str:
    """What to enter while a last card waits: ``lead`` says why, the rest is the same."""
    pile = state.current.last_card_waits
    assert pile is not None
    card = state.current.played[pile]
    assert card is not None  # the waiting pile was played on this turn
    name = state.name(state.turn)
    return (
        f"{lead}: if the {card.words} on the {PILE_NAMES[pile]} pile was the card {name} drew "
        f"for it, enter that draw; if not, end {name}'s turn and the round is over."
    )


def _while_last_card_waits(
    state: DosState, event: Event, handler: Callable[[DosState, Event, Out], DosState], out: Out
) -> DosState:
    """The event after a last card that waits (DOS-25). The turn player's draw for its pile
    is the draw entered late: the game goes on as if it had come first. Their ``end_turn``
    ends the round, with the verdicts an end at once gave; so does an event the ended round
    accepts (the next deal), before it. Anything else is refused and the wait goes on: a
    refused event changes nothing, and after the end it would be refused too."""
    seat, pile = state.turn, state.current.last_card_waits
    if event.kind == "draw" and event.seat == seat and _pile(event.require("pile")) == pile:
        return handler(state, event, out)
    if _off_turn_word(event, seat):  # as it would be had the draw come first; the wait goes on
        return handler(state, event, out)
    ended: Out = []
    over = _end_round(state, _went_out(state, seat), ended)
    if event.kind == "end_turn" and event.seat == seat:
        out.extend(ended)
        return over
    after: Out = []
    try:
        new = handler(over, event, after)
    except Foul:
        lead = f"{state.name(seat)}'s last card waits first"
        raise Foul(_waiting_words(state, lead), event.seat) from None
    out.extend(ended + after)
    return new


def _off_turn_word(event: Event, seat: int) -> bool:
    """Another player's DOS call, or a callout of someone other than the turn player ``seat``:
    neither needs the turn, so neither waits for the last card's draw (a call refused would be
    lost: a pad's press is not sent again). If the round then ends, its end clears them."""
    if event.seat == seat:
        return False
    return event.kind == "call" or (event.kind == "callout" and event.get("target") != seat)


def _not_drawn_for(hand: Hidden[DosCard], cur: Turn, pile: int) -> tuple[Hidden[DosCard], int]:
    """``hand`` without the named cards drawn for the other pile, which may not go on
    ``pile`` (DOS-6), and how many drawn for it nobody named. Such a card is one of the
    hand's unknown cards: where the rest of the hand is named, a card not in it can only be
    that one. The play is said to be doubtful, not refused: a game stored before day 33
    holds such plays, and a refused play would refuse every event after it."""
    named: list[DosCard] = []
    unnamed = 0
    for p, drawn in enumerate(cur.drawn):
        if p == pile or cur.piles[p] is not PileTurn.DRAWN or cur.drew_nothing[p]:
            continue
        if drawn is None:
            unnamed += 1
        else:
            named.append(drawn)
    return (hand.remove_all(named) if named else hand), unnamed


def _face_words(card: DosCard) -> str:
    return card.symbol.words if card.symbol is not None else str(card.number)


def _draw(state: DosState, event: Event, out: Out) -> DosState:
    seat = _seat(state, event)
    pile = _pile(event.require("pile"))
    named = event.get("card")
    given = parse_card(named) if named is not None else None
    _need_play(state)
    if given is not None:
        _need_in_deck(state, given, seat)
    _need_no_debt(state)
    _need_turn(state, seat)
    settles_fours = bool(state.pending) and not state.current.started
    state = _start_turn(state, out)
    where = f"the {PILE_NAMES[pile]} pile"
    cur = state.current
    if cur.piles[pile] is PileTurn.PLAYED:
        if state.options["late_draw"] == LATE_DRAW_PLAYED:
            return _drawn_and_played(state, seat, pile, given, out)
        raise Foul(f"You have already played on {where} this turn.", seat)
    if cur.piles[pile] is not PileTurn.OPEN:
        did = "drawn for" if cur.piles[pile] is PileTurn.DRAWN else "drawn for and played on"
        raise Foul(f"You have already {did} {where} this turn.", seat)
    if pile in state.blocked and not state.options["draw_for_blocked_pile"]:
        raise Foul(f"{where.capitalize()} is closed by a Skip: there is nothing to draw for.", seat)
    card: DosCard | None = None
    nothing = False
    if len(state.stock) == 0:
        if _can_reshuffle(state) and settles_fours:
            return _draw_waits(state, seat, pile, out)
        if _can_reshuffle(state):
            raise Foul(
                "The draw pile is empty: shuffle the discard piles (keep both top cards) "
                "and enter the reshuffle.",
                seat,
            )
        nothing = True
        out.append(info(f"{state.name(seat)} has nothing to draw for {where}.", seat, pile=pile))
    else:
        if state.stock.known:
            card = state.stock.known[0]
            if given is not None and given != card:
                raise Foul(f"The top card of the draw pile is {card.words}, not {given.words}.")
        else:
            card = given
            if given is not None:
                state = _seen_drawn(state, given, seat)
        state, _, unnamed = _take_from_stock(state, 1)
        extra = (card,) if card is not None else ()
        hand = state.hands[seat].add(extra, 0 if card is not None else unnamed)
        state = _set_hand(state, seat, hand, played=False)
        what = card.words if card is not None else "a card"
        out.append(legal(f"{state.name(seat)} draws {what} for {where}.", seat, pile=pile))
        _empty_stock_note(state, out)
    cur = state.current
    statuses = list(cur.piles)
    statuses[pile] = PileTurn.DRAWN
    drawn = list(cur.drawn)
    drawn[pile] = card
    nothings = list(cur.drew_nothing)
    nothings[pile] = nothing
    state = evolve(
        state,
        current=evolve(
            cur,
            piles=(statuses[0], statuses[1]),
            drawn=(drawn[0], drawn[1]),
            drew_nothing=(nothings[0], nothings[1]),
        ),
    )
    return _maybe_finish(state, out)


def _drawn_and_played(
    state: DosState, seat: int, pile: int, given: DosCard | None, out: Out
) -> DosState:
    """A draw entered after the play on its pile (DOS-25): the card played there was the
    drawn one ("you may play it immediately"), seen by the camera before the draw was typed.
    The turn's record becomes "drew and played" and the hand gets back the card the play
    took from it, since the player's hand never gave it up. A DOS call made before the play
    is dropped, as the draw entered in its place would have dropped it (DOS-12). Only in
    games set up with ``late_draw: played``: a stored game's refused draw stays refused, or
    its later events would be judged on other hands."""
    card = state.current.played[pile]
    assert card is not None  # a pile played on this turn holds its card
    where = f"the {PILE_NAMES[pile]} pile"
    if given is not None and given != card:
        raise Foul(
            f"The card played on {where} this turn is {card.words}: if it was drawn for it, "
            f"the card drawn is that one, not {given.words}.",
            seat,
        )
    state, named = _take_played_from_stock(state, card, given is not None, where, seat)
    unseen = state.current.played_unseen[pile]
    if not unseen:
        # The hand keeps its known copy, so the one on the pile is one more copy seen coming
        # out of the draw pile (DOS-20), counted as a draw entered first counts it.
        _need_unseen_copy(state, card, seat)
    hand = state.hands[seat].add(() if unseen else (card,), 1 if unseen else 0)
    state = evolve(state, called=state.called - {seat})  # the draw came before the play
    state = _set_hand(state, seat, hand, played=True)  # the drawn card's play came last
    cur = state.current
    statuses = list(cur.piles)
    statuses[pile] = PileTurn.DRAWN_PLAYED
    drawn = list(cur.drawn)
    drawn[pile] = card if named else None  # as a draw entered in its place records it
    state = evolve(
        state,
        current=evolve(
            cur,
            piles=(statuses[0], statuses[1]),
            drawn=(drawn[0], drawn[1]),
            last_card_waits=None,
        ),
    )
    out.append(
        legal(
            f"{state.name(seat)} draws for {where}: the {card.words} played on it was the "
            "card drawn.",
            seat,
            pile=pile,
        )
    )
    _remind_dos(state, seat, out)
    _empty_stock_note(state, out)
    if cur.last_card_waits == pile:
        # the play that emptied the hand held the turn (and the round) open: finish it now
        # if nothing more can happen, as after the play had the draw come first
        return _maybe_finish(state, out)
    return state


def _take_played_from_stock(
    state: DosState, card: DosCard, named: bool, where: str, seat: int
) -> tuple[DosState, bool]:
    """The draw pile less ``card``, drawn from it and already played on ``where``, checked as
    a draw entered in its place: a named top card must be ``card``; a draw that names it from
    a pile reshuffled unseen must find it among the pile's cards (DOS-20; the copy count was
    made when it was played). Also says whether the referee now knows the card drawn."""
    stock = state.stock
    if not len(stock):
        raise Foul(f"The draw pile is empty: the {card.words} on {where} was not drawn.", seat)
    if stock.known and stock.known[0] != card:
        raise Foul(
            f"The top card of the draw pile is {stock.known[0].words}, not the {card.words} "
            f"played on {where}.",
            seat,
        )
    pool = state.stock_pool
    if named and not stock.known and pool is not None:
        if card not in pool:
            raise Foul(
                "The draw pile was shuffled from the discard piles and held no "
                f"{card.words}: check the card.",
                seat,
            )
        at = pool.index(card)
        state = evolve(state, stock_pool=pool[:at] + pool[at + 1 :])
    return _take_from_stock(state, 1)[0], named or bool(stock.known)


def _seen_drawn(state: DosState, card: DosCard, seat: int) -> DosState:
    """A card seen drawn from the unseen draw pile must be one it can hold (DOS-20).

    After an unseen reshuffle the pile holds only the pool's cards, so the card must be
    among them, and it leaves the pool. Either way it is one more copy seen, like a play:
    the pool's copy may have gone with an unseen draw and be on a discard pile by now.
    """
    pool = state.stock_pool
    if pool is None:
        _need_unseen_copy(state, card, seat)
        return state
    if card not in pool:
        raise Foul(
            f"The draw pile was shuffled from the discard piles and held no {card.words}: "
            "check the card.",
            seat,
        )
    at = pool.index(card)
    state = evolve(state, stock_pool=pool[:at] + pool[at + 1 :])
    # Count the copies as they are once this one is drawn, so that it is not counted both
    # as surely still in the draw pile and as named now.
    stock = state.stock
    _need_unseen_copy(evolve(state, stock=Hidden(stock.known, stock.unknown - 1)), card, seat)
    return state


def _draw_waits(state: DosState, seat: int, pile: int, out: Out) -> DosState:
    """The Draw Four this first action settled emptied the draw pile (DOS-10, DOS-16).

    Refusing the draw would also undo the Draw Four's cards, so the draw pile would hold
    cards again and the reshuffle the referee asks for would be refused: a dead end. So the
    first action stands (the victim takes what the pile holds and owes the rest) and the
    draw for the pile waits for the reshuffle, like any draw from an empty pile (DOS-16).
    """
    out.append(
        prompt(
            f"{state.name(seat)}'s draw for the {PILE_NAMES[pile]} pile waits: enter the "
            "reshuffle, then the draw again.",
            seat,
            pile=pile,
        )
    )
    return state


def _end_turn(state: DosState, event: Event, out: Out) -> DosState:
    seat = _seat(state, event)
    _need_play(state)
    _need_no_debt(state)
    _need_turn(state, seat)
    state = _start_turn(state, out)
    for pile in (0, 1):
        if state.current.piles[pile] is PileTurn.OPEN and not _pile_settled(state, pile):
            raise Foul(
                f"You did not play on the {PILE_NAMES[pile]} pile: draw a card for it before "
                "ending your turn.",
                seat,
            )
    return _finish_turn(state, out)


def _take_four(state: DosState, event: Event, out: Out) -> DosState:
    """The victim draws for a Draw Four now instead of countering it (DOS-10)."""
    seat = _seat(state, event)
    _need_play(state)
    _need_no_debt(state)
    mine = [f for f in state.pending if f.victim == seat]
    if not mine:
        raise Foul(f"No Draw Four is waiting for {state.name(seat)}.", seat)
    four = mine[0]
    state = evolve(state, pending=tuple(f for f in state.pending if f is not four))
    return _give(state, seat, 4, f"the {four.card.words} on the {PILE_NAMES[four.pile]} pile", out)


def _cards_to_play(state: DosState, seat: int) -> int:
    """How many cards ``seat`` may still play before anyone else plays (DOS-12): one per
    open pile on their turn, and a countering Skip per Draw Four waiting for them, on turn
    or not ("You can also do this before you play the card": a counter is a card played)."""
    counters = sum(1 for four in state.pending if four.victim == seat)
    return counters + (_playable_piles(state) if seat == state.turn else 0)


def _call(state: DosState, event: Event, out: Out) -> DosState:
    seat = _seat(state, event)
    _need_play(state)
    size = len(state.hands[seat])
    name = state.name(seat)
    if seat in state.called:
        raise Foul(f"{name} has already called DOS.", seat)
    about_to = 2 < size <= 2 + _cards_to_play(state, seat)
    if size != 2 and not about_to:
        raise Foul(f"{name} has {count_cards(size)}: DOS is called when you are down to two.", seat)
    state = evolve(state, called=state.called | {seat}, exposed=state.exposed - {seat})
    timing = {} if event.t_ns is None else {"t_ns": event.t_ns}
    out.append(legal(f"{name} calls DOS!", seat, **timing))
    return state


def _callout(state: DosState, event: Event, out: Out) -> DosState:
    seat = _seat(state, event)
    target = _target(state, event)
    _need_play(state)
    name = state.name(target)
    if target == seat:
        raise Foul("You cannot call yourself out: just call DOS.", seat)
    if target not in state.exposed:
        if target in state.called:
            raise Foul(f"{name} did call DOS.", seat)
        size = len(state.hands[target])
        if size != 2:
            raise Foul(f"{name} has {count_cards(size)}, not two: nothing to call out.", seat)
        raise Foul(f"{name} did not get down to two cards by playing: nothing to call out.", seat)
    out.append(legal(f"{state.name(seat)} catches {name} without a DOS call.", seat))
    return _give(state, target, 2, "did not call DOS", out, "no_dos_call")


def _reshuffle(state: DosState, event: Event, out: Out) -> DosState:
    raw = event.get("stock")
    # a malformed payload is an EventError (nothing stored) at any moment, as in a play
    cards = None if raw is None else _card_list_or_count(raw, "stock")
    _need_play(state)
    if state.options["draw_pile_out_ends_game"]:
        raise Foul("With the 'draw pile runs out' ending the discard piles are not reshuffled.")
    if len(state.stock):
        raise Foul(
            f"The draw pile still has {count_cards(len(state.stock))}: reshuffle when it is empty."
        )
    under = [c for p in state.piles for c in p[:-1]]
    if not under:
        raise Foul("There are no cards under the two top cards to reshuffle.")
    if cards is None:
        stock: Hidden[DosCard] = Hidden(unknown=len(under))
    else:
        if isinstance(cards, int):
            if cards != len(under):
                raise Foul(
                    f"The reshuffle must hold the {count_cards(len(under))} under the top cards."
                )
            stock = Hidden(unknown=cards)
        else:
            if Counter(cards) != Counter(under):
                raise Foul(
                    f"The new draw pile must be exactly the {count_cards(len(under))} under the "
                    "two top cards."
                )
            stock = Hidden(tuple(cards))
    pool = tuple(under) if stock.unknown else None
    piles = ((state.top(0),), (state.top(1),))
    state = evolve(state, stock=stock, stock_pool=pool, piles=piles)
    out.append(legal(f"The discard piles are shuffled into a new draw pile of {len(under)}."))
    owed = state.owed
    state = evolve(state, owed=(0,) * state.n)
    for seat, count in enumerate(owed):
        if count:
            state = _give(state, seat, count, "cards still owed", out)
    return state


_HANDLERS: dict[str, Callable[[DosState, Event, Out], DosState]] = {
    "deal": _deal,
    "play": _play,
    "draw": _draw,
    "end_turn": _end_turn,
    "counter": _counter,
    "take_four": _take_four,
    "call": _call,
    "callout": _callout,
    "reshuffle": _reshuffle,
}

EVENT_KINDS = {
    "deal": "{hands: [[cards]|count per seat], piles: [left, right], stock?: [cards, top "
    "first]|count, dealer?: seat} — the deal; full lists = scripted mode, counts = table mode",
    "play": "seat, {card: 'R7', pile: 'left'|'right'} — play a card on a pile "
    "(a same-colour Skip on your Draw Four is a counter)",
    "draw": "seat, {pile: 'left'|'right', card?: 'R7'} — draw one card for a pile you did "
    "not play on (name the card if it is seen); entered after the play on that pile, the "
    "card played there was the one drawn (DOS-25)",
    "end_turn": "seat — end the turn after playing on or drawing for each pile; after a "
    "last card that waits for its draw, the round ends (DOS-25)",
    "counter": "seat, {card: 'BSKIP', pile?: 'left'|'right'} — counter a Draw Four with a "
    "Skip of its colour",
    "take_four": "seat — the victim of a Draw Four draws its 4 cards instead of countering",
    "call": "seat (t_ns from a pad button) — the player says DOS",
    "callout": "seat, {target: seat} — catch a player on two cards who did not say DOS",
    "reshuffle": "{stock?: [cards, top first]|count} — the discard piles (minus both top "
    "cards) become the new draw pile",
}


def apply(state: DosState, event: Event) -> tuple[DosState, list[Verdict]]:
    handler = _HANDLERS.get(event.kind)
    if handler is None:
        raise EventError(f"DOS has no event {shown(event.kind)}; known: {', '.join(_HANDLERS)}")
    out: Out = []
    try:
        if state.phase is Phase.PLAY and state.current.last_card_waits is not None:
            new = _while_last_card_waits(state, event, handler, out)
        else:
            new = handler(state, event, out)
    except Foul as foul:
        seat = foul.seat if foul.seat is not None else event.seat
        return state, [illegal(foul.reason, seat)]
    return new, out
