"""The Calibrate page without a mouse or a touch screen, in real headless Chromium: every
zone's corner is a Tab stop (a slider named by its zone, its place in its value), the arrow
keys move it (Shift: further), "Add corner" draws a zone, "Save zones" keeps it all through
the same request as a tapped zone, and a corner stays inside the picture as a tap does."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.serving import ServedApp
from tests.test_web_browser import Screen, unlock
from web import create_app
from web.config import WebConfig

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DISCARD = "Discard pile (DOS: the left one)"
SQUARE = [[0.2, 0.2], [0.6, 0.2], [0.6, 0.7], [0.2, 0.7]]
TRIANGLE = [[0.7, 0.1], [0.9, 0.1], [0.8, 0.3]]

# what has the focus: its role, name, value and ring
FOCUSED = """() => { const e = document.activeElement, s = getComputedStyle(e);
  return { id: e.id, role: e.getAttribute("role"), name: e.getAttribute("aria-label"),
    value: e.getAttribute("aria-valuetext"),
    ring: [s.outlineStyle, parseFloat(s.outlineWidth)] }; }"""


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple[str, Any]]:
    """A dashboard without a camera: the page draws its zones on a blank 640 x 480 table."""
    app = create_app(WebConfig(db_path=tmp_path_factory.mktemp("calib") / "tabletop.db"))
    with ServedApp(app, threads=8) as server:
        yield server.url, app


@pytest.fixture
def referee(served, browser) -> Iterator[Any]:
    """The referee's Calibrate page, with a discard pile and a draw pile already saved."""
    base, app = served
    app.extensions["tabletop"].zones.save(
        {
            "frame": {"width": 640, "height": 480},
            "zones": [
                {"name": "discard_1", "points": SQUARE},
                {"name": "draw_pile", "points": TRIANGLE},
            ],
        }
    )
    screen = Screen(browser, base)
    unlock(screen, app)
    page = screen.go("/calibration")
    page.wait_for_selector("#zone-list li")  # the saved zones arrived
    yield screen
    screen.close()


def saved(served: tuple[str, Any]) -> dict[str, list[list[float]]]:
    return {z["name"]: z["points"] for z in served[1].extensions["tabletop"].zones.load()["zones"]}


def tab_to(page: Any, wanted: str, limit: int = 40) -> dict[str, Any]:
    """Press Tab until the focused element matches ``wanted`` (its id or its name)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        now = page.evaluate(FOCUSED)
        if wanted in (now["id"], now["name"]):
            return now
    raise AssertionError(f"Tab never reached {wanted!r}")


def save_with_the_keyboard(page: Any, zones: int) -> None:
    from playwright.sync_api import expect

    tab_to(page, "save-zones")
    page.keyboard.press("Enter")
    said = f"Saved {zones} zone." if zones == 1 else f"Saved {zones} zones."
    expect(page.locator("#calib-msg")).to_have_text(said)
    expect(page.locator("#say")).to_have_text(said)  # a screen reader hears it


def pixel(page: Any, x: float, y: float) -> list[int]:
    """The colour the canvas shows at (x, y) of the picture (0..1)."""
    return page.evaluate(
        """([x, y]) => { const c = document.getElementById("calib");
          return [...c.getContext("2d").getImageData(Math.round(x * c.width),
            Math.round(y * c.height), 1, 1).data.slice(0, 3)]; }""",
        [x, y],
    )


def test_tab_reaches_every_corner_named_by_its_zone_with_a_ring(referee):
    """Tab stops on each saved corner in turn, zone by zone; each is a slider named by its
    zone and its number, whose value says where it is, and shows the focus ring. The page
    says how to move one, and a link lets the keyboard skip them all."""
    from playwright.sync_api import expect

    page = referee.page
    hint = page.locator("#calib-keys")
    expect(hint).to_be_visible()
    expect(hint).to_contain_text(
        "Tab to a corner, move it with the arrow keys; Shift moves further"
    )
    first = tab_to(page, f"{DISCARD}, corner 1 of 4")
    stops = [first]
    for _ in range(6):
        page.keyboard.press("Tab")
        stops.append(page.evaluate(FOCUSED))
    assert [s["name"] for s in stops] == [f"{DISCARD}, corner {i} of 4" for i in (1, 2, 3, 4)] + [
        f"Draw pile, corner {i} of 3" for i in (1, 2, 3)
    ]
    assert {s["role"] for s in stops} == {"slider"}
    assert [s["value"] for s in stops[:3]] == [
        "20% across, 20% down",
        "60% across, 20% down",
        "60% across, 70% down",
    ]
    assert all(s["ring"][0] == "solid" and s["ring"][1] >= 2 for s in stops), stops
    # the slider sits on its corner of the picture
    box = page.locator("#calib").bounding_box()
    handle = page.get_by_role("slider", name=f"{DISCARD}, corner 2 of 4").bounding_box()
    centre = (handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2)
    assert centre == pytest.approx(
        (box["x"] + 0.6 * box["width"], box["y"] + 0.2 * box["height"]), abs=1
    )
    # past the corners in one step
    page.reload()
    page.wait_for_selector("#zone-list li")
    assert tab_to(page, "skip-corners")["id"] == "skip-corners"
    page.keyboard.press("Enter")
    assert page.evaluate(FOCUSED)["id"] == "zone-name"


def test_arrows_move_a_corner_shift_further_and_save_zones_keeps_it(referee, served):
    """An arrow key moves the focused corner half a percent of the picture, Shift+arrow five
    percent; its value says the new place, the picture follows, and "Save zones" sends it
    with the same request as a tapped zone: the server's zone has moved, the others not."""
    page = referee.page
    tab_to(page, f"{DISCARD}, corner 1 of 4")
    for key in ("ArrowRight", "ArrowRight", "ArrowDown"):
        page.keyboard.press(key)
    assert page.evaluate(FOCUSED)["value"] == "21% across, 20.5% down"
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Shift+ArrowUp")
    assert page.evaluate(FOCUSED)["value"] == "26% across, 15.5% down"
    assert page.evaluate("window.scrollY") == 0  # the arrows moved the corner, not the page
    yellow = [255, 200, 0]  # the discard pile's colour: its corner is drawn where it went
    assert pixel(page, 0.26, 0.155) == yellow and pixel(page, 0.2, 0.2) != yellow
    assert saved(served)["discard_1"] == SQUARE  # nothing is saved before "Save zones"
    save_with_the_keyboard(page, 2)
    assert saved(served) == {"discard_1": [[0.26, 0.155], *SQUARE[1:]], "draw_pile": TRIANGLE}


def test_a_zone_is_drawn_and_saved_with_the_keyboard_alone(referee, served):
    """Choose a zone, "Add corner" (in the middle, then 5 % right of the last corner, then 5 %
    below it), the arrows to place it, three times, "Close zone", "Save zones": the server has
    the new zone."""
    page = referee.page
    tab_to(page, "zone-name")
    page.keyboard.press("End")  # the last zone the menu offers
    name = page.eval_on_selector("#zone-name", "s => s.value")
    assert name.startswith("seat_") and name.endswith("_dryer_bar_3"), name
    steps = [  # where "Add corner" puts it, then the keys that place it
        ("50% across, 50% down", ["Shift+ArrowLeft"] * 2 + ["Shift+ArrowUp"] * 2),
        ("45% across, 40% down", ["Shift+ArrowRight"] * 3),
        ("60% across, 45% down", ["Shift+ArrowDown"] * 3),
    ]
    for n, (added, keys) in enumerate(steps, 1):
        tab_to(page, "add-corner")
        page.keyboard.press("Enter")
        now = page.evaluate(FOCUSED)
        assert (now["name"], now["value"]) == (f"Zone being drawn, corner {n} of {n}", added)
        for key in keys:
            page.keyboard.press(key)
    assert page.evaluate(FOCUSED)["value"] == "60% across, 60% down"
    tab_to(page, "close-zone")
    page.keyboard.press("Enter")
    save_with_the_keyboard(page, 3)
    assert saved(served)[name] == [[0.4, 0.4], [0.6, 0.4], [0.6, 0.6]]


def test_ruling_web5_a_corner_stays_inside_the_picture(referee, served):
    """WEB-5: a tap outside the picture lands on its edge, and so does a corner moved with
    the keys: at the left edge Left leaves it there, Shift+Down from 98 % stops at the bottom
    edge (100 %, not 103 %, which the server refuses), and "Save zones" keeps it."""
    page = referee.page
    box = page.locator("#calib").bounding_box()
    page.locator("#calib").dispatch_event(
        "pointerdown", {"clientX": box["x"] - 40, "clientY": box["y"] + box["height"] + 40}
    )
    tapped = page.get_by_role("slider", name="Zone being drawn, corner 1 of 1")
    assert tapped.get_attribute("aria-valuetext") == "left edge, bottom edge"
    page.click("#undo-point")
    tab_to(page, f"{DISCARD}, corner 4 of 4")
    for key in ["Shift+ArrowLeft"] * 4 + ["Shift+ArrowDown"] * 5 + ["ArrowDown"] * 6:
        page.keyboard.press(key)
    assert page.evaluate(FOCUSED)["value"] == "left edge, 98% down"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Shift+ArrowDown")
    assert page.evaluate(FOCUSED)["value"] == "left edge, bottom edge"
    save_with_the_keyboard(page, 2)
    assert saved(served)["discard_1"][3] == [0.0, 1.0]


def test_a_tap_on_a_corner_still_reaches_the_picture(referee, served):
    """Nothing changes for a pointer: a tap right on a saved corner (where its keyboard
    handle lies) adds a corner to the zone being drawn there, and takes no focus."""
    page = referee.page
    box = page.locator("#calib").bounding_box()
    page.select_option("#zone-name", "seat_0_dryer")
    for fx, fy in ((0.6, 0.2), (0.9, 0.2), (0.9, 0.5)):
        page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
    drawn = page.locator("#handles [aria-label^='Zone being drawn']")
    assert drawn.count() == 3
    assert drawn.first.get_attribute("aria-valuetext") == "60% across, 20% down"
    assert page.evaluate(FOCUSED)["role"] is None
    page.click("#close-zone")
    page.click("#save-zones")
    page.wait_for_selector("#calib-msg.ok")
    assert saved(served)["seat_0_dryer"] == [[0.6, 0.2], [0.9, 0.2], [0.9, 0.5]]


def add_corners(page: Any, n: int) -> list[str]:
    """Press "Add corner" ``n`` times with the keyboard; where each corner landed."""
    for _ in range(n):
        tab_to(page, "add-corner")
        page.keyboard.press("Enter")
    drawn = page.locator("#handles [aria-label^='Zone being drawn']")
    return [drawn.nth(i).get_attribute("aria-valuetext") for i in range(drawn.count())]


def test_add_corner_puts_each_corner_apart_from_the_last(referee, served):
    """Three "Add corner" presses give three corners a keyboard user tells apart (5 % right,
    then 5 % down), not one corner three times; "Close zone" and "Save zones" keep a zone that
    holds something. Near the picture's edge the next corner turns the other way, inside."""
    page = referee.page
    page.select_option("#zone-name", "seat_0_dryer")
    assert add_corners(page, 3) == [
        "50% across, 50% down",
        "55% across, 50% down",
        "55% across, 55% down",
    ]
    tab_to(page, "close-zone")
    page.keyboard.press("Enter")
    save_with_the_keyboard(page, 3)
    assert saved(served)["seat_0_dryer"] == [[0.5, 0.5], [0.55, 0.5], [0.55, 0.55]]
    # a corner on the right edge: the next one cannot go right, so it goes down
    page.select_option("#zone-name", "seat_0_area")
    add_corners(page, 1)
    for key in ["Shift+ArrowRight"] * 10 + ["Shift+ArrowDown"] * 10:
        page.keyboard.press(key)
    assert page.evaluate(FOCUSED)["value"] == "right edge, bottom edge"
    assert add_corners(page, 3) == [
        "right edge, bottom edge",
        "95% across, bottom edge",  # right and down would leave the picture: left
        "95% across, 95% down",  # then up
        "right edge, 95% down",  # then right again
    ]


def test_close_zone_refuses_a_zone_without_area(referee, served):
    """Corners on top of each other (or in one line) make a zone that never holds a card:
    "Close zone" says so and keeps them to be moved apart, for taps and keys alike."""
    from playwright.sync_api import expect

    page = referee.page
    refusal = "The corners are on top of each other or in one line: move them apart first"
    page.select_option("#zone-name", "discard_2")
    drawn = page.locator("#handles [aria-label^='Zone being drawn']")
    box = page.locator("#calib").bounding_box()
    for _ in range(3):  # three taps on one spot
        page.locator("#calib").dispatch_event(
            "pointerdown", {"clientX": box["x"] + 100, "clientY": box["y"] + 100}
        )
    expect(drawn).to_have_count(3)
    page.click("#close-zone")
    expect(page.locator("#toast")).to_have_text(refusal)
    expect(page.locator("#say-now")).to_have_text(refusal)  # a screen reader hears it at once
    expect(page.locator("#zone-list li")).to_have_count(2)  # nothing was closed
    expect(drawn).to_have_count(3)  # the corners wait to be moved apart
    for _ in range(3):
        page.click("#undo-point")
    # with the keys: the third corner moved onto the second, all three in one line
    page.evaluate("document.getElementById('toast').textContent = ''")
    add_corners(page, 3)
    page.keyboard.press("Shift+ArrowUp")
    assert page.evaluate(FOCUSED)["value"] == "55% across, 50% down"
    tab_to(page, "close-zone")
    page.keyboard.press("Enter")
    expect(page.locator("#toast")).to_have_text(refusal)
    expect(page.locator("#zone-list li")).to_have_count(2)
    expect(drawn).to_have_count(3)
    save_with_the_keyboard(page, 2)
    assert "discard_2" not in saved(served)


def test_the_save_message_counts_one_zone_as_one_zone(referee, served):
    """One zone left: "Saved 1 zone.", on the page and to a screen reader."""
    page = referee.page
    page.select_option("#zone-name", "draw_pile")
    page.click("#delete-zone")
    save_with_the_keyboard(page, 1)
    assert list(saved(served)) == ["discard_1"]
