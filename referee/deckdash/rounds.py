"""Between and around turns: the deal, reshuffling, end-of-round tallies, ending a Dash by
agreement, stopping early."""

from __future__ import annotations

from collections import Counter

from referee.cards import Card, Kind, Special
from referee.deckdash.actions import Result, settle
from referee.deckdash.common import Illegal, current_round, seat_of, the, words
from referee.deckdash.deal import (
    DECK_SIZE,
    HAND_SIZE,
    card_field,
    missing_or_extra,
    read_cards,
    read_hands,
)
from referee.deckdash.scoring import decide, end_round, finish, round_scores, standing
from referee.deckdash.state import (
    COUNTERCLOCKWISE,
    START_PICKUP,
    DeckDashState,
    Round,
    RoundEnd,
    RoundResult,
)
from referee.deckdash.turns import begin_turn, step
from referee.events import Event, EventError
from referee.frozen import evolve
from referee.hands import Hidden
from referee.summary import cards
from referee.verdicts import Verdict, info, legal


def expected_dealer(state: DeckDashState, active: tuple[int, ...]) -> int | None:
    """The player to the left of the last dealer (among the players of this round)."""
    if state.last_dealer is None:
        return None
    seat = state.last_dealer
    for _ in range(state.n):
        seat = (seat + 1) % state.n
        if seat in active:
            return seat
    return None


def deal(state: DeckDashState, event: Event) -> Result:
    n = state.n
    # DD-23: the seat is the dealer (``dealer`` names one too); either past the table is
    # malformed input at any moment, not a deal refused because a Dash is being played
    if event.seat is not None:
        seat_of(state, event)
    dealer = event.get("dealer", event.seat)
    if dealer is not None and (
        not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < n
    ):
        raise EventError(f"deal.dealer must be a seat 0..{n - 1}")
    if state.finished:
        raise Illegal("The game is over.")
    if state.round is not None:
        raise Illegal(f"Dash {state.round.dash} is still being played: finish it first.")
    active = state.tiebreak or tuple(range(n))
    hands = read_hands(event, n, active)
    start = card_field(event, "start")
    scripted_flags = {isinstance(h, list) for h in hands}
    if len(scripted_flags) > 1:
        raise EventError("deal.hands: give every hand as a list of cards, or every hand as a count")
    scripted = scripted_flags == {True}
    want = expected_dealer(state, active)
    if dealer is None:
        dealer = want if want is not None else active[0]
    if want is not None and dealer != want:
        raise Illegal(
            f"It's {state.name(want)}'s turn to deal (the player to the left of the last dealer)."
        )
    if dealer not in active:
        raise Illegal(f"{state.name(dealer)} is not playing this tie-break round.")
    for seat, hand in enumerate(hands):
        size = len(hand) if isinstance(hand, list) else hand
        need = HAND_SIZE if seat in active else 0
        if size != need:
            raise Illegal(
                f"{state.name(seat)} must be dealt {need} cards, not {size}."
                if need
                else f"{state.name(seat)} is not in the tie-break and gets no cards."
            )
    dealt = sum(len(h) if isinstance(h, list) else h for h in hands)
    if scripted:
        draw_cards = read_cards(event.require("draw_pile"), "deal.draw_pile")
        all_cards = [c for h in hands if isinstance(h, list) for c in h] + [start] + draw_cards
        wrong = missing_or_extra(all_cards)
        if wrong:
            raise Illegal(f"The deal does not add up to the {DECK_SIZE}-card deck: {wrong}.")
        draw_pile: Hidden[Card] = Hidden(tuple(draw_cards))
        hidden_hands = tuple(Hidden(tuple(h)) for h in hands if isinstance(h, list))
    else:
        draw_pile = Hidden((), table_draw_pile(event, dealt))
        hidden_hands = tuple(Hidden((), h) for h in hands if isinstance(h, int))
    dash_index = state.next_dash_index
    dashes = state.settings.dashes
    tiebreak = bool(state.tiebreak)
    dash = dashes[-1] if tiebreak else dashes[dash_index]
    rnd = Round(
        index=len(dashes) - 1 if tiebreak else dash_index,
        dash=dash,
        dealer=dealer,
        active=active,
        scripted=scripted,
        hands=hidden_hands,
        draw_pile=draw_pile,
        discard=(start,),
        skips=(0,) * n,
        tiebreak=tiebreak,
    )
    rnd, verdicts = start_card(state, rnd, start)
    verdicts.insert(
        0,
        legal(
            f"{state.name(dealer)} dealt Dash {dash}"
            f"{' (tie-break)' if tiebreak else ''}; the discard pile starts with {words(start)}.",
            dealer,
            dash=dash,
        ),
    )
    if event.seat is not None and event.get("dealer") is not None and event.seat != dealer:
        # DD-23: ``dealer`` counts (as it did for stored games); the seat is not dropped unsaid
        verdicts.insert(
            1,
            info(
                f"{state.name(dealer)} deals, not {state.name(event.seat)} whose seat the deal "
                f"was entered for: the deal names {state.name(dealer)} as its dealer.",
                dealer,
            ),
        )
    state = evolve(state, last_dealer=dealer)
    return settle(state, rnd, verdicts)


def table_draw_pile(event: Event, dealt: int) -> int:
    """The draw pile of a table deal: what the deck leaves after the hands and the start card.

    The count is optional; when given it must be exactly that (DD-16), or the deal would
    add cards the deck does not have (or lose some, e.g. an empty pile at the deal).
    """
    left = DECK_SIZE - dealt - 1
    count = event.get("draw_pile", left)
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= DECK_SIZE:
        raise EventError(f"deal.draw_pile must be a count of 0 to {DECK_SIZE} cards in table mode")
    if count != left:
        raise Illegal(
            f"The draw pile must hold {left} cards, not {count}: the {DECK_SIZE}-card deck less "
            f"{dealt} dealt and the start card."
        )
    return count


def start_card(state: DeckDashState, rnd: Round, start: Card) -> tuple[Round, list[Verdict]]:
    """What the card that starts the discard pile does, then the first turn."""
    first = step(rnd, rnd.dealer)
    notes: list[Verdict] = []
    special = start.special if start.kind is Kind.SPECIAL else None
    if special is Special.REVERSE:
        rnd = evolve(rnd, direction=COUNTERCLOCKWISE)
        first = rnd.dealer
        notes.append(info("Reverse starts the pile: the dealer goes first, then to the right."))
    skips = list(rnd.skips)
    if special in (Special.BLOCK_YOU, Special.SKIP_YOU):
        skips[first] += 1
    elif special is Special.SKIP_TWO:
        skips[first] += 1
        skips[step(rnd, first)] += 1
    rnd = evolve(rnd, skips=tuple(skips))
    if start.is_wild or special in START_PICKUP:
        rnd = evolve(rnd, start_pickup=True)
        notes.append(info(f"{state.name(first)} may pick up {the(start)} to start."))
    rnd, more = begin_turn(rnd, first, state.players)
    return rnd, notes + more


def reshuffle(state: DeckDashState, event: Event) -> Result:
    rnd = current_round(state)
    if len(rnd.draw_pile) > 0:
        raise Illegal(
            f"The draw pile still has {cards(len(rnd.draw_pile))}: reshuffle only when it runs out."
        )
    if not rnd.discard:
        raise Illegal("The discard pile is empty: there is nothing to reshuffle.")
    order = event.get("order")
    if order is None:
        if rnd.scripted:
            raise EventError("reshuffle.order must list the new draw pile, top first")
        pile: Hidden[Card] = Hidden((), len(rnd.discard))
    else:
        named = read_cards(order, "reshuffle.order")
        if Counter(named) != Counter(rnd.discard):
            raise Illegal("The new draw pile must be exactly the cards of the discard pile.")
        pile = Hidden(tuple(named))
    rnd = evolve(rnd, draw_pile=pile, discard=())
    verdicts = [legal(f"The discard pile was shuffled into a new draw pile of {cards(len(pile))}.")]
    return settle(state, rnd, verdicts)


def tally(state: DeckDashState, event: Event) -> Result:
    """Table mode: the cards really left in each hand at the end of the last round (DD-20)."""
    if state.round is not None:
        raise Illegal("Tally the hands after the round has ended.")
    if not state.results or state.results[-1].tiebreak:
        raise Illegal("There is no finished Dash to tally.")
    if state.stopped:
        raise Illegal("The game is over.")
    last = state.results[-1]
    if last.scripted:
        raise Illegal(tally_known(state, last))
    hands = event.require("hands")
    if not isinstance(hands, list) or len(hands) != state.n:
        raise EventError(f"tally.hands must list one hand per player ({state.n})")
    counts = []
    for i, h in enumerate(hands):
        if isinstance(h, int) and not isinstance(h, bool):
            if not 0 <= h <= DECK_SIZE:
                raise EventError(f"tally.hands[{i}]: a count of 0 to {DECK_SIZE} cards")
            counts.append(h)
        else:
            counts.append(len(read_cards(h, f"tally.hands[{i}]")))
    if last.winner is not None and counts[last.winner] != last.hand_counts[last.winner]:
        raise Illegal(f"{state.name(last.winner)} won the Dash; their hand cannot change now.")
    everyone = Round(
        index=0, dash=last.dash, dealer=0, active=tuple(range(state.n)), scripted=False,
        hands=(), draw_pile=Hidden(), discard=(),
    )  # fmt: skip
    scores = round_scores(state, everyone, last.winner, last.how, tuple(counts))
    fixed = RoundResult(last.dash, last.winner, last.how, tuple(counts), scores)
    state = evolve(
        state, results=(*state.results[:-1], fixed), finished=False, winners=(), tiebreak=()
    )
    verdicts: list[Verdict] = [
        legal(
            "Hands tallied: "
            + ", ".join(f"{state.name(s)} {scores[s]}" for s in range(state.n))
            + "."
        )
    ]
    state, more = decide(state)
    return state, verdicts + more


def tally_known(state: DeckDashState, last: RoundResult) -> str:
    """Why a scripted round cannot be tallied: the referee saw every card of every hand."""
    counts = ", ".join(f"{state.name(s)} {n}" for s, n in enumerate(last.hand_counts))
    unit = "card" if last.hand_counts[-1] == 1 else "cards"  # "(Ana 0, Bea 1 card)"
    return (
        f"Dash {last.dash} was dealt card by card, so the referee knows every hand "
        f"({counts} {unit}): a tally is only for table mode."
    )


def end_dash(state: DeckDashState, event: Event) -> Result:
    """The players agree to end the Dash in progress, at any moment of it (DD-24).

    Scored as a round the empty draw pile ends (DD-15): nobody wins the Dash and everyone
    scores their hand (DD-14: no Dash without points); then the next Dash is dealt, or the
    game ends. In table mode the hands may then be tallied (DD-20); a tie-break ended so is
    decided by the fewest cards in hand (DD-12).
    """
    if event.seat is not None:
        seat_of(state, event)  # who entered it (optional): only checked
    rnd = current_round(state)
    return end_round(state, rnd, None, RoundEnd.AGREED)


def stop(state: DeckDashState, event: Event) -> Result:
    """Variation 1: the players stop; the Dash in progress is not scored (DD-13)."""
    if state.finished:
        raise Illegal("The game is over.")
    if event.seat is not None:
        seat_of(state, event)
    dropped = state.round
    winners = standing(state)
    state = evolve(state, round=None, stopped=True)
    done = len(state.counted)
    note = f"The players stopped after {done} Dash{'es' if done != 1 else ''}"
    if dropped is not None:
        note += f"; Dash {dropped.dash} in progress is not scored"
    verdicts = [info(note + ".")]
    state, more = finish(state, winners)
    return state, verdicts + more
