"""A restart replays only the running games that can hold a slap race (storage review, day
34): 200 Deck Dash and DOS games left running made every start replay each of them."""

from __future__ import annotations

from pathlib import Path

from tests.test_web_routes import Tablet, make_app
from web.services.race_timer import RaceTimer


def test_a_restart_times_races_only_in_games_that_have_them(tmp_path: Path):
    app = make_app(tmp_path, race_timer=False)
    games = app.extensions["tabletop"].games
    tablet = Tablet(app)
    tablet.set_pin()
    ids = {name: tablet.new_game(name) for name in ("deck-dash", "dos", "hit-the-deck")}
    snapshotted: list[int] = []
    snapshot = games.snapshot

    def counted(game_id: int, *args, **kwargs):
        snapshotted.append(game_id)
        return snapshot(game_id, *args, **kwargs)

    games.snapshot = counted  # type: ignore[method-assign]
    RaceTimer(games, schedule=lambda delay, fire: None).resume(current=None)
    assert snapshotted == [ids["hit-the-deck"]]
