"""EventMapper against what it already knows (review of the camera's pile and seat-area
reading): a pile read empty, a misread corrected, a draw from the discard pile, a Deck
Steal, a Dash laid card by card, and plays made while a question is open (TBL-13 … TBL-18).
The proposals are checked against the real Deck Dash engine where it matters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.events import Event, Source
from referee.registry import find_game
from referee.replay import replay
from vision.table.stability import Observation
from vision.table.to_events import EventMapper, Prompt
from vision.table.zones import TableLayout

PILE, AREA = "discard_1", "seat_1_area"  # AREA is seat 1's
LAYOUT = TableLayout.from_dict(
    {
        "version": 1,
        "zones": [
            {
                "name": "draw_pile",
                "kind": "draw_pile",
                "points": [[0.1, 0.4], [0.3, 0.4], [0.3, 0.6], [0.1, 0.6]],
            },
            {
                "name": PILE,
                "kind": "discard_pile",
                "index": 1,
                "points": [[0.4, 0.4], [0.6, 0.4], [0.6, 0.6], [0.4, 0.6]],
            },
            {
                "name": AREA,
                "kind": "seat_area",
                "seat": 1,
                "points": [[0.0, 0.7], [0.5, 0.7], [0.5, 1.0], [0.0, 1.0]],
            },
        ],
    }
)
HERE = (0.5, 0.5, 30.0)  # a pile card's centre and angle
DEAL = {"kind": "deal", "payload": {"dealer": 1, "hands": [12, 12], "start": "G7"}}  # Ana first


@dataclass(frozen=True)
class Seen(Observation):
    """An observation that says whether anything covered the zone since its last settled
    reading (what the tracker is asked to pass, TBL-14)."""

    disturbed: bool | None = None


def seen(
    before: list[str],
    after: list[str],
    conf: float = 0.95,
    t: int = 5,
    pose: Any = None,
    zone: str = PILE,
    disturbed: bool | None = None,
) -> Observation:
    if disturbed is None:
        return Observation(zone, tuple(before), tuple(after), t, t + 100, conf, pose=pose)
    return Seen(zone, tuple(before), tuple(after), t, t + 100, conf, pose=pose, disturbed=disturbed)


class Game:
    """The Deck Dash engine, fed the events so far; tells the mapper its view."""

    def __init__(self, *events: dict[str, Any]) -> None:
        self.rules = find_game("deck-dash")
        self.log = [Event.from_dict(e) for e in events]

    def add(self, event: Event) -> list[str]:
        """Apply ``event``; the verdicts' outcomes."""
        self.log.append(event)
        result = replay(self.rules, ("Ana", "Bea"), {}, self.log)
        return [v.outcome.value for v in result.steps[-1].verdicts]

    def view(self) -> dict[str, Any]:
        return self.rules.view(replay(self.rules, ("Ana", "Bea"), {}, self.log).state)


def mapper(game: Game | None = None) -> EventMapper:
    m = EventMapper("deck-dash", LAYOUT)
    m.note_top(PILE, "G7")
    if game is not None:
        m.note_view(game.view())
    return m


# --- A · TBL-13 -------------------------------------------------------------------------
def test_ruling_tbl14_a_pile_read_empty_then_its_top_again_is_no_second_play():
    """One missed detection reads the pile empty; the R7 seen again is the R7 logged, not
    Bea's discard of it. Back elsewhere, the family is asked (another copy?)."""
    m = mapper()
    (ev,) = m.propose(seen(["G7"], ["R7"], pose=HERE), seat=0)
    assert (ev.kind, ev.seat, ev.payload) == ("discard", 0, {"card": "R7"})
    assert m.propose(seen(["R7"], []), seat=1) == []  # the missed detection
    assert m.propose(seen([], ["R7"], t=900, pose=(0.505, 0.5, 31.0)), seat=1) == []
    assert [p.kind for p in m.propose(seen(["R7"], ["Y3"], pose=(0.5, 0.5, 80.0)), seat=1)] == [
        "discard"
    ]

    m.propose(seen(["Y3"], []), seat=0)
    (p,) = m.propose(seen([], ["Y3"], pose=(0.56, 0.5, 30.0)), seat=0)
    assert isinstance(p, Prompt) and p.kind == "same_card"
    assert (p.suggestion.kind, p.suggestion.payload) == ("discard", {"card": "Y3"})


# --- B · TBL-14 -------------------------------------------------------------------------
def test_ruling_tbl15_a_new_face_where_nothing_touched_the_pile_is_a_misread_question():
    """R7 read as R1 (0.70, logged), then as R7 with nothing over the pile in between: a
    question whether it was R7 (one tap overrules; the log knows the play's number), with
    R7 played on R1 as another answer, never a second play by the next player."""
    m = mapper()
    m.propose(seen(["G7"], ["R1"], conf=0.7, t=100), seat=0)
    (p,) = m.propose(seen(["R1"], ["R7"], t=900, disturbed=False), seat=1)
    assert isinstance(p, Prompt) and p.kind == "misread"
    assert p.message.startswith("Was the card on the pile R7, not R1?")
    assert p.suggestion is None and p.choices == ("overrule", "keep", "another")
    assert p.to_dict()["earlier"] == "R1"  # the play the camera's referee overrules
    (another,) = p.answers
    assert (another.event.kind, another.event.seat, another.event.payload) == (
        "discard",
        1,
        {"card": "R7"},
    )
    assert another.event.t_ns == 100  # the card was laid when first seen, as R1
    # R7 is now the top: taking it back asks about R7, and Y7 on it is a play
    assert [p.kind for p in m.propose(seen(["R7"], ["Y7"], disturbed=True), 1)] == ["discard"]


def test_ruling_tbl15_a_misread_the_tracker_cannot_vouch_for_is_judged_by_where_it_lies():
    """Without the tracker's word, a new face lying exactly where the last card lay (centre
    and angle) is asked about as a misreading; turned, or after a hand over the pile, it is a
    play as before. A detector without angles cannot tell: a play."""
    m = mapper()
    m.propose(seen(["G7"], ["R1"], conf=0.7, pose=HERE), seat=0)
    assert [p.kind for p in m.propose(seen(["R1"], ["R7"], pose=HERE), seat=1)] == ["misread"]
    m = mapper()
    m.propose(seen(["G7"], ["R1"], pose=HERE), seat=0)
    assert [p.kind for p in m.propose(seen(["R1"], ["R7"], pose=(0.5, 0.5, 50.0)), 1)] == [
        "discard"
    ]
    m = mapper()
    m.propose(seen(["G7"], ["R1"], pose=HERE), seat=0)
    assert [p.kind for p in m.propose(seen(["R1"], ["R7"], pose=HERE, disturbed=True), 1)] == [
        "discard"
    ]
    m = mapper()
    m.propose(seen(["G7"], ["R1"], pose=(0.5, 0.5)), seat=0)
    assert [p.kind for p in m.propose(seen(["R1"], ["R7"], pose=(0.5, 0.5)), 1)] == ["discard"]


def test_ruling_tbl15_a_misread_card_still_asked_about_is_asked_again_by_its_new_name():
    """R7 read as R1 at 0.4 (asked, not logged), then R7 with nothing over the pile: the
    question is about R7 now, the play of Ana (still on turn)."""
    m = mapper()
    (q,) = m.propose(seen(["G7"], ["R1"], conf=0.4, t=100), seat=0)
    assert q.kind == "confirm_card"
    (p,) = m.propose(seen(["R1"], ["R7"], t=900, disturbed=False), seat=0)
    assert p.kind == "confirm_card" and "R7" in p.message and "R1" in p.message
    assert (p.suggestion.seat, p.suggestion.payload, p.suggestion.t_ns) == (0, {"card": "R7"}, 100)


# --- C · TBL-15 -------------------------------------------------------------------------
def test_ruling_tbl16_drawing_the_top_discard_is_the_draw_not_an_undo():
    """Ana discards R7; Bea, in her draw step, takes it: G7 shows again where it lay. That is
    Bea's draw from the discard pile (the engine takes it), not "undo Ana's discard?"."""
    game = Game(DEAL, {"kind": "draw", "seat": 0})
    m = mapper(game)
    (discard,) = m.propose(seen(["G7"], ["R7"]), seat=0)
    assert game.add(discard) == ["legal", "info"]
    m.note_top(PILE, "R7")
    m.note_view(game.view())
    (draw,) = m.propose(seen(["R7"], ["G7"], t=700), seat=1)
    assert draw == Event("draw", 1, {"from": "discard", "card": "R7"}, 700, Source.CAMERA)
    assert game.add(draw) == ["legal"]
    m.note_top(PILE, "G7")
    m.note_view(game.view())
    # Bea discards B2 and Ana draws it: G7 under it again, still a draw (the pile's memory
    # lost R7 with the first draw)
    assert game.add(m.propose(seen(["G7"], ["B2"]), seat=1)[0]) == ["legal", "info"]
    m.note_top(PILE, "B2")
    m.note_view(game.view())
    assert [e.kind for e in m.propose(seen(["B2"], ["G7"]), seat=0)] == ["draw"]


def test_ruling_tbl16_a_card_taken_back_outside_a_draw_step_is_still_asked_about():
    """In the play step (Bea has drawn) G7 showing again is R7 taken back, asked as before;
    so is a special card, which is never drawn from the discard pile; an unsure draw asks."""
    game = Game(
        DEAL, {"kind": "draw", "seat": 0}, {"kind": "discard", "seat": 0, "payload": {"card": "R7"}}
    )
    game.add(Event("draw", 1))
    m = mapper(game)
    m.propose(seen(["G7"], ["R7"]), seat=0)
    assert [p.kind for p in m.propose(seen(["R7"], ["G7"]), seat=1)] == ["taken_back"]

    game = Game(
        DEAL,
        {"kind": "draw", "seat": 0},
        {"kind": "discard", "seat": 0, "payload": {"card": "SKIP"}},
    )
    m = mapper(game)
    m.propose(seen(["G7"], ["SKIP"]), seat=0)
    assert [p.kind for p in m.propose(seen(["SKIP"], ["G7"]), seat=1)] == ["taken_back"]

    game = Game(
        DEAL, {"kind": "draw", "seat": 0}, {"kind": "discard", "seat": 0, "payload": {"card": "R7"}}
    )
    m = mapper(game)
    m.propose(seen(["G7"], ["R7"]), seat=0)
    (p,) = m.propose(seen(["R7"], ["G7"], conf=0.4), seat=1)
    assert p.kind == "confirm_card" and p.message == "Did seat 1 draw R7 from the discard pile?"
    assert (p.suggestion.kind, p.suggestion.seat) == ("draw", 1)


# --- E · TBL-17 -------------------------------------------------------------------------
def test_ruling_tbl18_a_deck_steal_on_the_pile_is_a_steal_asked_about_never_a_discard():
    """Ana discarded R7, Bea drew from the draw pile; a Deck Steal settles on the pile in
    Bea's play step: who stole R7 (the suggestion, the engine's ``steal``) — or did the player
    on turn discard it? (In her draw step she could not discard: TBL-23.)"""
    game = Game(DEAL, {"kind": "draw", "seat": 0})
    m = mapper(game)
    game.add(m.propose(seen(["G7"], ["R7"]), seat=0)[0])
    m.note_top(PILE, "R7")
    assert game.add(Event("draw", 1, {})) == ["legal"]
    m.note_view(game.view())
    (p,) = m.propose(seen(["R7"], ["STEAL"], t=800), seat=1)
    assert isinstance(p, Prompt) and p.kind == "who_played"
    assert p.message == "Who used a Deck Steal to take R7 from the discard pile?"
    assert p.suggestion == Event("steal", None, {"card": "R7"}, 800, Source.CAMERA)
    (discard,) = p.answers
    assert (discard.name, discard.event.kind, discard.event.seat) == ("discard", "discard", 1)
    assert discard.event.payload == {"card": "STEAL"}
    # the tablet sends the suggestion with the seat tapped: the engine takes Ana's steal
    assert game.add(Event("steal", 0, {"card": "R7"})) == ["legal"]


# --- D · TBL-16 -------------------------------------------------------------------------
def test_ruling_tbl17_a_dash_laid_two_cards_at_a_time_is_laid_whole():
    """Bea lays her Dash (three pairs) two cards at a time: nothing until the area holds a
    Dash the rules accept, then one ``lay`` of all six, never handoff questions."""
    game = Game(
        {"kind": "deal", "payload": {"dealer": 0, "hands": [12, 12], "start": "G7"}},
        {"kind": "draw", "seat": 1},
    )
    m = mapper(game)
    m.note_area(AREA, ())
    dash = ["B4", "G4", "B6", "G6", "B8", "G8"]
    assert m.propose(seen([], dash[:2], zone=AREA), seat=1) == []
    assert m.propose(seen(dash[:2], dash[:4], zone=AREA), seat=1) == []
    (lay,) = m.propose(seen(dash[:4], dash, t=300, zone=AREA), seat=1)
    assert (lay.kind, lay.seat, lay.payload, lay.t_ns) == ("lay", 1, {"cards": sorted(dash)}, 300)
    assert game.add(lay)[0] == "legal"
    m.note_area(AREA, dash)
    m.note_view(game.view())
    (p,) = m.propose(seen(dash, [*dash, "B2"], zone=AREA), seat=1)
    assert p.kind == "which_group"  # laid: more is a handoff


def test_ruling_tbl17_a_dash_the_rules_refuse_is_asked_about_once_it_is_complete():
    """Six cards that are no Dash 1 (a misread, a wrong card): asked with the rules' reason,
    not logged. Without the game's view the whole area is still the lay, never handoffs."""
    game = Game(
        {"kind": "deal", "payload": {"dealer": 0, "hands": [12, 12], "start": "G7"}},
        {"kind": "draw", "seat": 1},
    )
    m = mapper(game)
    m.note_area(AREA, ())
    wrong = ["B4", "G4", "B6", "G6", "B8", "G9"]
    m.propose(seen([], wrong[:4], zone=AREA), seat=1)
    (p,) = m.propose(seen(wrong[:4], wrong, zone=AREA), seat=1)
    assert p.kind == "confirm_card" and "The rules say:" in p.message
    assert (p.suggestion.kind, p.suggestion.payload) == ("lay", {"cards": sorted(wrong)})

    m = EventMapper("deck-dash", LAYOUT)  # told the area, not the view
    m.note_area(AREA, ())
    assert [e.kind for e in m.propose(seen([], wrong[:2], zone=AREA), seat=1)] == ["lay"]
    (lay,) = m.propose(seen(wrong[:2], wrong[:4], zone=AREA), seat=1)
    assert (lay.kind, lay.payload) == ("lay", {"cards": sorted(wrong[:4])})


# --- F · TBL-18 -------------------------------------------------------------------------
def test_ruling_tbl19_a_play_while_a_pile_question_is_open_is_asked_with_its_player():
    """R7 read at 0.5 is asked about (Ana's turn stays open); Bea's Y7 on it must not be
    logged as Ana's: asked, the tablet naming the player. Once the family accepted R7 the
    camera, set back to R7, does not see Y7 played again; once Y7 is settled too, plays are
    logged as usual."""
    m = mapper()
    m.note_questions([])  # the camera's referee tells which questions are open
    (q,) = m.propose(seen(["G7"], ["R7"], conf=0.5), seat=0)
    assert q.kind == "confirm_card" and q.suggestion.seat == 0
    m.note_questions([PILE])
    (p,) = m.propose(seen(["R7"], ["Y7"], t=500, disturbed=True), seat=0)
    assert isinstance(p, Prompt) and p.kind == "who_played"
    assert (p.suggestion.kind, p.suggestion.seat, p.suggestion.payload) == (
        "discard",
        None,
        {"card": "Y7"},
    )
    assert p.suggestion.t_ns == 500
    m.note_top(PILE, "R7")  # R7 accepted; the tracker is set to R7 and sees Y7 again
    m.note_questions([PILE])  # Y7's question
    assert m.propose(seen(["R7"], ["Y7"], t=900, disturbed=True), seat=1) == []
    m.note_top(PILE, "Y7")  # Y7 accepted as Bea's
    (ev,) = m.propose(seen(["Y7"], ["B3"], disturbed=True), seat=0)
    assert (ev.kind, ev.seat) == ("discard", 0)


def test_ruling_tbl19_a_dismissed_question_no_longer_holds_plays_back():
    """The camera's referee says which pile questions are open: one dismissed holds nothing
    back; until it says, nothing is held back (nobody would say when a question closed)."""
    m = mapper()
    m.propose(seen(["G7"], ["R7"], conf=0.5), seat=0)
    assert [p.kind for p in m.propose(seen(["R7"], ["Y3"], disturbed=True), 0)] == ["discard"]
    m = mapper()
    m.propose(seen(["G7"], ["R7"], conf=0.5), seat=0)
    m.note_questions([PILE])
    assert [p.kind for p in m.propose(seen(["R7"], ["Y7"], disturbed=True), 0)] == ["who_played"]
    m.note_questions([])
    assert [p.kind for p in m.propose(seen(["Y7"], ["B3"], disturbed=True), 1)] == ["discard"]
