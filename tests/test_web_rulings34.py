"""Setup's option tags ("HTD-16") open the ruling they stand for, read from docs/RULINGS.md
(day 34: a family saw engine terms and tags leading nowhere)."""

from __future__ import annotations

from tests.test_web_routes import Tablet, make_app
from web.services.rulings import RULINGS_FILE, paragraphs, rulings


def test_a_ruling_page_shows_the_rule_quoted_and_the_ruling_without_the_tests(tmp_path):
    tablet = Tablet(make_app(tmp_path))
    r = tablet.client.get("/rulings/htd-16")
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    assert "HTD-16 · A tie for last" in page
    assert "<blockquote>The last player to slap the discard pile draws four cards" in page
    assert "race_tie" in page and "test_ruling_" not in page


def test_an_unknown_ruling_is_a_404_that_says_so(tmp_path):
    tablet = Tablet(make_app(tmp_path))
    r = tablet.client.get("/rulings/HTD-999")
    page = r.get_data(as_text=True)
    assert r.status_code == 404 and "there is no ruling &#39;HTD-999&#39;" in page


def test_every_option_of_every_game_names_a_ruling_that_exists(tmp_path):
    tablet = Tablet(make_app(tmp_path))
    known = rulings(RULINGS_FILE)
    for game in tablet.client.get("/api/catalogue").json["games"]:
        for option in game["options"]:
            if option.get("ruling"):
                assert option["ruling"] in known, (game["name"], option["name"])
                assert paragraphs(known[option["ruling"]])
