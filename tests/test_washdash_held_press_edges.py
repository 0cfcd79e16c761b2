"""Wash Dash: two edges of a pad's press held for its card (WD-17).

* The dryer reading a card-less ``done`` carries was dropped when the press was held (it
  completed none or several open cards): the card named later was judged by the seat's
  *next* reading, so a player who pressed with a wrong dryer could fix it before the check
  (WD-12: "a ``done`` is judged on the dryer state it carries").
* With 3+ players, a press still held when the others took every task card stayed held
  after the round ended: in the view, and back in the race when ``retry`` put a card back.
  It can name no card, so it goes, said in an info line, and its tablet question with it.

Every test here failed on the engine as it was.
"""

from __future__ import annotations

from typing import Any

from referee.events import Event, Source
from referee.replay import replay
from referee.verdicts import Outcome
from referee.washdash.dryer import Dryer
from referee.washdash.game import GAME
from tests.test_web_pad_press_question import accept, press, questions, table_with

S = 1_000_000_000
THREE = ["Ann", "Bob", "Cy"]  # 2 cards a round: T01 (pants on the red pin), T05 (any on red)
BOTH = "pants:red / - / -"  # completes T01 and T05
NEITHER = "shirt:yellow / - / -"  # completes neither
SHIRT_RED = "shirt:red / - / -"  # completes T05 only


def run(events: list[Event], options: dict[str, Any] | None = None):
    return replay(GAME, THREE, options or {}, events)


def opening() -> list[Event]:
    return [Event("setup"), Event("reveal", seat=0, t_ns=0, payload={"cards": ["T01", "T05"]})]


def pad(seat: int, t_ns: int, dryer: str | None = None) -> Event:
    """A card-less ``done`` (a pad's button), carrying a dryer reading or not."""
    payload = {} if dryer is None else {"dryer": dryer}
    return Event("done", seat=seat, t_ns=t_ns, source=Source.PAD, payload=payload)


def name(seat: int, card: str) -> Event:
    """The tablet names the held press's card (no dryer of its own, no time)."""
    return Event("done", seat=seat, payload={"card": card})


def take(seat: int, card: str, dryer: str, t_ns: int) -> Event:
    return Event("done", seat=seat, t_ns=t_ns, payload={"card": card, "dryer": dryer})


def said(step, outcome: Outcome) -> list[str]:
    return [v.reason for v in step.verdicts if v.outcome is outcome]


# --- (a) the reading a held press carried judges the card it is named for -------------


def test_ruling_wd17_a_held_press_s_reading_judges_the_card_named_later():
    """The press's reading completes T01 and T05: held (WD-17). The tablet names T01 without
    a dryer: the press's reading judges it at once — no "show Ann's dryer" again."""
    held = run([*opening(), pad(0, 5 * S, BOTH)])
    assert said(held.steps[-1], Outcome.PROMPT)[0].startswith("Ann pressed done: which task")
    view = GAME.view(held.state)
    reading = Dryer.parse(BOTH).to_dict()
    assert view["dryers"][0] == reading  # the reading is shown…
    assert view["presses"] == [{"seat": 0, "t_ns": 5 * S, "dryer": reading}]  # …and kept
    result = run([*opening(), pad(0, 5 * S, BOTH), name(0, "T01")])
    named = result.steps[-1]
    (claim,) = result.state.current.claims
    assert (claim.seat, claim.card, claim.t_ns, claim.status) == (0, "T01", 5 * S, "ok")
    assert said(named, Outcome.LEGAL)[0].startswith("Ann takes T01. ")
    assert said(named, Outcome.PROMPT) == []  # the dryer is not asked for again
    assert result.state.current.presses == ()


def test_ruling_wd12_a_held_press_s_wrong_reading_is_a_mistake_a_later_fix_changes_nothing():
    """WD-12/WD-7: the press's reading completes neither card; Ann fixes her dryer after
    pressing, and the tablet names T01. Judged on the reading at the press: a mistake."""
    fixed = Event("dryer", seat=0, payload={"dryer": BOTH})
    result = run([*opening(), pad(0, 5 * S, NEITHER), fixed, name(0, "T01")])
    (claim,) = result.state.current.claims
    assert (claim.card, claim.status) == ("T01", "wrong")
    mistake = [v for v in result.steps[-1].verdicts if v.data.get("mistake")]
    assert len(mistake) == 1 and mistake[0].reason.startswith("Mistake: Ann took T01")
    later = run([*opening(), pad(0, 5 * S, NEITHER), name(0, "T01"), fixed])
    assert later.state.current.claims[0].status == "wrong"  # a later reading changes nothing
    # a naming ``done`` that carries a reading of its own is judged on it, as any done is
    own = Event("done", seat=0, payload={"card": "T05", "dryer": SHIRT_RED})
    (claim,) = run([*opening(), pad(0, 5 * S, NEITHER), own]).state.current.claims
    assert (claim.card, claim.status, claim.t_ns) == ("T05", "ok", 5 * S)


def test_ruling_wd17_retry_refuses_the_card_a_held_press_s_reading_does_not_complete():
    """WD-19 with ``retry``: the press's reading refuses a named card it does not complete
    and forgets the press; the player keeps trying. (4 players, 3 cards: the reading
    completes T01 and T05, so the press is held, and T02 is named. Before the WD-19
    amendment of day 32 this test pressed with a reading completing *no* open card, which
    ``retry`` now refuses at once without holding it: ``tests/test_washdash_review.py``.)"""
    cards = {"cards": ["T01", "T05", "T02"]}
    four = [Event("setup"), Event("reveal", seat=0, t_ns=0, payload=cards)]
    held = [*four, pad(0, 5 * S, BOTH)]
    assert run4(held).state.current.presses == ((0, 5 * S),)
    result = run4([*held, name(0, "T02")])
    step = result.steps[-1]
    assert said(step, Outcome.PROMPT)[0].startswith("Ann, not yet — T02")
    assert result.state.current.claims == () and result.state.current.presses == ()


def run4(events: list[Event]):
    return replay(GAME, [*THREE, "Di"], {"wrong_done": "retry"}, events)


# --- (b) a press left held when the others took every card goes ------------------------


def test_ruling_wd25_a_press_left_when_the_others_took_every_card_goes_with_a_line():
    """3 players, 2 cards: Ann's press is held; Bob and Cy take both cards, so Ann ends the
    round without one ("more than one player will end the round without a card"). Her press
    can name nothing: it goes, said before the round's result."""
    events = [
        *opening(),
        pad(0, 5 * S),
        take(1, "T01", "pants:red / - / -", 6 * S),
        take(2, "T05", SHIRT_RED, 7 * S),
    ]
    result = run(events)
    last = result.steps[-1]
    assert result.state.current.presses == ()
    assert GAME.view(result.state)["presses"] == []
    infos = said(last, Outcome.INFO)
    assert infos[0] == (
        "Ann pressed done, but Bob and Cy took every task card: Ann's press names no card, "
        "and Ann ends round 1 without one."
    )
    kinds = [v.outcome for v in last.verdicts]
    assert kinds.index(Outcome.INFO) < kinds.index(Outcome.ROUND_END)
    assert last.verdicts[kinds.index(Outcome.INFO)].seat == 0


def test_ruling_wd25_a_press_gone_at_the_round_end_stays_gone_when_retry_reopens_a_card():
    """With ``retry`` a late wrong reading puts Bob's card back and the round goes on: Ann's
    press went at the round end, so she presses again; it is not held again by itself."""
    events = [
        *opening(),
        pad(0, 5 * S),
        Event("done", seat=1, t_ns=6 * S, payload={"card": "T01"}),  # checked later
        take(2, "T05", SHIRT_RED, 7 * S),
        Event("dryer", seat=1, payload={"dryer": NEITHER}),  # wrong: T01 is open again
    ]
    result = run(events, {"wrong_done": "retry"})
    assert said(result.steps[-1], Outcome.INFO) == ["Round 1 goes on: T01 is open again."]
    assert GAME.view(result.state)["phase"] == "racing"
    assert result.state.current.presses == ()


def test_ruling_wd25_undoing_the_last_card_gives_the_press_back(tmp_path):
    """Through the dashboard without a camera: the pads' question goes with the press at the
    round end (the feed says why); undoing the last card brings both back."""
    tablet, game_id = table_with(tmp_path, "T01", "T05", players=("Ann", "Bob", "Cy"))
    press(tablet, game_id, 0)
    assert [q["prompt"] for q in questions(tablet, game_id)] == ["which_card"]
    bob = {"kind": "done", "seat": 1, "payload": {"card": "T01", "dryer": BOTH}}
    cy = {"kind": "done", "seat": 2, "payload": {"card": "T05", "dryer": SHIRT_RED}}
    assert tablet.send(game_id, bob).status_code == 201
    r = tablet.send(game_id, cy)
    assert r.status_code == 201
    reasons = [v["reason"] for v in r.json["verdicts"]]
    assert any(x.startswith("Ann pressed done, but Bob and Cy took every") for x in reasons)
    assert tablet.snapshot(game_id)["view"]["presses"] == []
    assert questions(tablet, game_id) == []
    seq = tablet.snapshot(game_id)["feed"][-1]["seq"]
    assert tablet.post(f"/api/games/{game_id}/undo", {"target": seq}).status_code == 201
    assert [p["seat"] for p in tablet.snapshot(game_id)["view"]["presses"]] == [0]
    (again,) = questions(tablet, game_id)
    assert again["choices"] == ["T05"]
    assert accept(tablet, game_id, again, "T05").status_code == 201
