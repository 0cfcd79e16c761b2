"""Property tests for the Wash Dash task checker (hypothesis)."""

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from referee.washdash.checker import example_dryer, satisfies
from referee.washdash.dryer import Dryer, HungPiece
from referee.washdash.pieces import ANY, EventCard, Piece, PinColor
from referee.washdash.tasks import Task, TaskError, TaskGraph, opposite, same_task

OPP = [EventCard.OPPOSITE]


@st.composite
def tasks(draw) -> Task:
    """Any well-formed task: 1-3 pieces and 1-3 pins (specific or any), every piece on a
    pin and every pin holding a piece."""
    n_pieces = draw(st.integers(1, 3))
    n_pins = draw(st.integers(1, 3))
    piece_names = draw(st.permutations([p.value for p in Piece]))
    pin_names = draw(st.permutations([c.value for c in PinColor]))
    pieces = tuple(
        ANY if draw(st.booleans()) and draw(st.booleans()) else piece_names[i]
        for i in range(n_pieces)
    )
    pins = tuple(
        ANY if draw(st.booleans()) and draw(st.booleans()) else pin_names[i] for i in range(n_pins)
    )
    edges = set()
    for p in range(n_pieces):
        edges.add((p, draw(st.integers(0, n_pins - 1))))
    for q in range(n_pins):
        if not any(e[1] == q for e in edges):
            edges.add((draw(st.integers(0, n_pieces - 1)), q))
    extra = draw(st.sets(st.tuples(st.integers(0, n_pieces - 1), st.integers(0, n_pins - 1))))
    try:
        return Task.from_graph(TaskGraph(pieces, pins, frozenset(edges | extra)))
    except TaskError:
        assume(False)
        raise


@st.composite
def dryers(draw) -> Dryer:
    """Any dryer reading, including impossible ones a camera might produce."""
    bars = []
    for _ in range(3):
        hung = draw(
            st.lists(
                st.builds(
                    HungPiece,
                    st.sampled_from(list(Piece)),
                    st.lists(st.sampled_from(list(PinColor)), max_size=3).map(tuple),
                ),
                max_size=2,
            )
        )
        bars.append(tuple(hung))
    return Dryer(tuple(bars))


def doable(task: Task) -> Dryer:
    try:
        return example_dryer(task)
    except TaskError:
        assume(False)
        raise


@settings(max_examples=150, deadline=None)
@given(tasks())
def test_opposite_twice_is_the_same_task(task):
    assert same_task(opposite(opposite(task)), task)


@settings(max_examples=100, deadline=None)
@given(tasks(), dryers())
def test_opposite_is_the_same_as_checking_the_opposite_card(task, dryer):
    assert satisfies(task, dryer, OPP).ok == satisfies(opposite(task), dryer).ok
    assert satisfies(opposite(opposite(task)), dryer).ok == satisfies(task, dryer).ok
    # two Opposite cards count once (rules): still the opposite, not the identity
    assert satisfies(task, dryer, OPP * 2).ok == satisfies(task, dryer, OPP).ok


@settings(max_examples=100, deadline=None)
@given(tasks(), st.data())
def test_a_done_task_stays_done_when_an_unrelated_bar_changes(task, data):
    dryer = doable(task)
    assert satisfies(task, dryer).ok
    used_bars = [b for b, bar in enumerate(dryer.bars) if bar]
    free_bars = [b for b in range(3) if b not in used_bars]
    assume(free_bars)
    used_pieces = {h.piece for bar in dryer.bars for h in bar}
    used_pins = {p for bar in dryer.bars for h in bar for p in h.pins}
    spare_pieces = [p for p in Piece if p not in used_pieces]
    spare_pins = [c for c in PinColor if c not in used_pins]
    bar = data.draw(st.sampled_from(free_bars))
    # hang any of the spare parts on the unrelated bar, in any way a player could
    pieces = data.draw(st.lists(st.sampled_from(spare_pieces), unique=True)) if spare_pieces else []
    hung = []
    pins_left = list(spare_pins)
    for piece in pieces:
        take = data.draw(st.integers(0, len(pins_left)))
        hung.append(HungPiece(piece, tuple(pins_left[:take])))
        pins_left = pins_left[take:]
    bars = list(dryer.bars)
    bars[bar] = tuple(hung)
    changed = Dryer(tuple(bars))
    assert satisfies(task, changed).ok, (task.to_text(), changed.to_text())
    # and the bars' order never matters
    order = data.draw(st.permutations(range(3)))
    shuffled = Dryer(tuple(changed.bars[i] for i in order))
    assert satisfies(task, shuffled).ok


@settings(max_examples=150, deadline=None)
@given(tasks(), dryers(), st.booleans(), st.booleans())
def test_the_checker_always_answers_with_a_reason(task, dryer, opp, forbid):
    check = satisfies(task, dryer, OPP if opp else (), extra_items="forbid" if forbid else "ignore")
    assert isinstance(check.ok, bool)
    assert check.reason.endswith(".")
    if dryer.problems():
        assert not check.ok


@settings(max_examples=100, deadline=None)
@given(dryers())
def test_dryer_state_round_trips_through_json_and_text(dryer):
    assert Dryer.from_dict(dryer.to_dict()) == dryer
    assert Dryer.parse(dryer.to_text()) == dryer


@settings(max_examples=100, deadline=None)
@given(tasks())
def test_forbidding_extras_only_ever_refuses_more(task):
    dryer = doable(task)
    assert satisfies(task, dryer, extra_items="forbid").ok
