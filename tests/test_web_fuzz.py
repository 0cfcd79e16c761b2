"""Hostile requests to every route of the dashboard, as a buggy tablet, an old cached page or a
curious teenager sends them: always an answer below 500 with a one-line reason (JSON on the
API), never a traceback, and nothing a browser could not read stored in a game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_web_routes import DEAL, Tablet, make_app

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# the most dangerous first: hypothesis draws a sampled_from's first items most often
NASTY_TEXT = ["\ud800", "²", "--5", "a\udfffb", "x\x00y", "٣", "", "1" * 40, "now", "current"]
NASTY_NUMBERS = [float("nan"), 10**30, float("inf"), 2**63, -(10**30), 2**63 - 1, -1, 0, 1, 1.5]
FIELDS = [
    *("kind", "seat", "payload", "t_ns", "source", "target", "event", "seq", "answer"),
    *("game", "players", "options", "zones", "frame", "device", "enabled", "name", "points"),
]

nasty = st.sampled_from([v for pair in zip(NASTY_NUMBERS, NASTY_TEXT, strict=True) for v in pair])
scalars = st.one_of(
    nasty,  # first and twice: most examples carry one
    nasty,
    st.none(),
    st.booleans(),
    st.integers(-3, 8),
    st.integers(),
    st.floats(),  # NaN and Infinity included: Python's json module writes and reads them
    st.text(max_size=8),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
bodies = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=5), values, max_size=5)


class Table:
    """A dashboard with a referee and a viewer tablet and games in every state."""

    def __init__(self, tmp_path: Path) -> None:
        self.app = make_app(tmp_path)
        self.referee = Tablet(self.app)
        assert self.referee.set_pin().status_code == 302
        self.viewer = Tablet(self.app)
        ref = self.referee
        self.ended = ref.new_game()
        assert ref.post(f"/api/games/{self.ended}/end").status_code == 200
        self.htd = ref.new_game("hit-the-deck", ("Ann", "Bob", "Cy"))
        self.wash = ref.new_game("wash-dash", ("Ann", "Bob"))
        self.running = ref.new_game()
        assert ref.send(self.running, DEAL).status_code == 201
        self.games = {
            "running": self.running,
            "ended": self.ended,
            "htd": self.htd,
            "wash": self.wash,
            "none": 2**62 + 5,
        }

    def prompt(self, game_id: int) -> int:
        """A camera question with a suggested event, as the camera referee posts them."""
        suggestion = {"kind": "slap", "seat": 0, "t_ns": 5, "source": "camera"}
        item = self.referee.services.prompts.add(
            game_id, {"prompt": "who_slapped", "message": "who?", "suggestion": suggestion}
        )
        return int(item.id)


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(tmp_path)


def strict_json(data: bytes) -> Any:
    """JSON as a browser reads it: NaN and Infinity are not JSON."""

    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in a JSON answer: a browser cannot read it")

    return json.loads(data, parse_constant=refuse)


LIVE = ("text/event-stream", "multipart/x-mixed-replace")  # (``is_streamed`` is true for
# every test-client answer not yet read, so it cannot tell a live stream)


def check(r: Any, what: Any) -> None:
    """Below 500, no traceback; on the API an error is JSON with a one-line reason."""
    assert r.status_code < 500, (what, r.status_code, r.get_data()[:300])
    if r.mimetype in LIVE:  # these bodies run until closed: not read
        r.close()
        return
    body = r.get_data()
    assert b"Traceback" not in body, what
    json_api = r.request.path.startswith("/api/") and r.mimetype == "application/json"
    if json_api and r.request.method != "HEAD":  # HEAD: the headers of a GET, no body
        answer = strict_json(body)
        if r.status_code >= 400:
            error = answer.get("error")
            assert isinstance(error, str) and error.strip(), (what, answer)
            assert "\n" not in error, (what, error)
    r.close()


def post_raw(tablet: Tablet, url: str, data: bytes, content_type: str = "application/json") -> Any:
    return tablet.client.post(
        url, data=data, content_type=content_type, headers={"X-CSRF-Token": tablet.token}
    )


def dumps(value: Any) -> bytes:
    """What a buggy client may send: Python's JSON, NaN and lone surrogates included."""
    return json.dumps(value, allow_nan=True).encode()


POST_ROUTES = [
    "/api/games",
    "/api/games/{game}/events",
    "/api/games/{game}/undo",
    "/api/games/{game}/overrule",
    "/api/games/{game}/accept",
    "/api/games/{game}/prompts/{prompt}/accept",
    "/api/games/{game}/prompts/{prompt}/dismiss",
    "/api/games/{game}/end",
    "/api/zones",
    "/api/pads/press",
    "/api/camera/referee",
    "/api/camera/dryers/empty",
]


def test_the_fuzz_covers_every_post_route(table):
    posts = {r.rule for r in table.app.url_map.iter_rules() if "POST" in r.methods}
    api = {
        r.replace("{game}", "<int:game_id>").replace("{prompt}", "<int:prompt_id>")
        for r in POST_ROUTES
    }
    assert api == {r for r in posts if r.startswith("/api/")}


@FUZZ
@given(
    route=st.sampled_from(POST_ROUTES),
    game=st.sampled_from(["running", "ended", "htd", "wash", "none"]),
    body=bodies,
    as_referee=st.booleans(),
    content_type=st.sampled_from(["application/json", "application/json", "text/plain"]),
)
def test_fuzzed_json_bodies_to_every_post_route(table, route, game, body, as_referee, content_type):
    game_id = table.games[game]
    prompt = table.prompt(game_id) if "{prompt}" in route and game != "none" else 7
    url = route.format(game=game_id, prompt=prompt)
    tablet = table.referee if as_referee else table.viewer
    check(post_raw(tablet, url, dumps(body), content_type), (url, body))
    if game != "none":  # whatever was stored, the game still reads as JSON and renders
        check(table.viewer.client.get(f"/api/games/{game_id}"), (url, body, "snapshot"))
        check(table.viewer.client.get(f"/history/{game_id}"), (url, body, "history"))


KINDS = {  # kinds each game knows, so that most events are stored (an illegal play is)
    "running": ["deal", "draw", "lay", "discard", "steal", "undo", "overrule"],
    "htd": ["slap", "draw", "deal", "pass", "race_close", "undo"],
    "wash": ["done", "reveal", "mistake", "dryer", "setup"],
    "ended": ["deal"],
}
likely = st.integers(0, 1)  # repeated below so that most events are well-formed


@FUZZ
@given(
    game_kind=st.sampled_from([(g, k) for g, kinds in KINDS.items() for k in kinds]),
    seat=st.one_of(likely, likely, likely, st.none(), st.integers(), nasty),
    payload=st.dictionaries(st.sampled_from(["x", "note", "card", "target"]), values, min_size=1),
    t_ns=st.one_of(likely, likely, likely, st.just("now"), st.none(), st.integers(), nasty),
)
def test_fuzzed_events_leave_every_game_readable(table, game_kind, seat, payload, t_ns):
    game, kind = game_kind
    game_id = table.games[game]
    event = {"kind": kind, "seat": seat, "payload": payload, "t_ns": t_ns}
    check(post_raw(table.referee, f"/api/games/{game_id}/events", dumps(event)), event)
    for url in (f"/api/games/{game_id}", f"/history/{game_id}", f"/api/games/{game_id}/log.jsonl"):
        check(table.viewer.client.get(url), (event, url))


GAME_QUERIES = st.one_of(
    st.sampled_from(["abc", "-1", "99999999999999999999", "²", "١٢", "１", " 1", "1e3", "%00"]),
    st.text(st.characters(categories=["Nd", "No"]), min_size=1, max_size=3),  # digits, other
    st.text(max_size=6),
    st.integers().map(str),
)


@FUZZ
@given(
    url=st.sampled_from(["/scoreboard", "/console", "/live", "/api/stream", "/setup", "/qr.svg"]),
    game=GAME_QUERIES,
    last_event_id=st.sampled_from([None, "abc", "-1", "99999999999999999999", "ÿ", "1" * 2000]),
    host=st.sampled_from([None, "tabletop.lan:8000", "[::1]:80", "ÿ", "x..", "a" * 64]),
)
def test_fuzzed_query_parameters_and_headers(table, url, game, last_event_id, host):
    headers = {} if last_event_id is None else {"Last-Event-ID": last_event_id}
    if host is not None:
        headers["Host"] = host
    r = table.viewer.client.get(url, query_string={"game": game, "pads": "1"}, headers=headers)
    check(r, (url, game, headers))
    assert table.referee.services.streams.active == 0


@FUZZ
@given(game_id=st.integers(min_value=0), prompt_id=st.integers(min_value=0))
def test_fuzzed_path_parameters(table, game_id, prompt_id):
    for url in (
        f"/api/games/{game_id}",
        f"/api/games/{game_id}/prompts",
        f"/api/games/{game_id}/log.jsonl",
        f"/history/{game_id}",
    ):
        check(table.viewer.client.get(url), url)
    for url in (
        f"/api/games/{game_id}/undo",
        f"/api/games/{table.running}/prompts/{prompt_id}/accept",
        f"/api/games/{game_id}/prompts/{prompt_id}/dismiss",
    ):
        check(table.referee.post(url, {"target": 1}), url)


def test_every_route_with_every_method_and_no_body(table):
    ids = {"game_id": str(table.running), "prompt_id": "1", "filename": "app.js", "rid": "HTD-16"}
    checked = 0
    for rule in table.app.url_map.iter_rules():
        url = rule.rule
        for arg in rule.arguments:
            url = url.replace(f"<{rule_arg(rule.rule, arg)}>", ids[arg])
        for tablet in (table.viewer, table.referee):
            for method in ("GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH"):
                r = tablet.client.open(url, method=method, headers={"X-CSRF-Token": tablet.token})
                check(r, (method, url))
                checked += 1
    assert checked > 500
    assert [f["seq"] for f in table.referee.snapshot(table.running)["feed"]] == [1]
    assert table.referee.services.streams.active == 0


def rule_arg(rule: str, arg: str) -> str:
    start = rule.index(arg + ">")
    return rule[rule.rindex("<", 0, start) + 1 : start + len(arg)]


# -- the requests that answered 500 before ---------------------------------------------


def test_a_game_number_in_other_digits_is_a_400_not_a_500(table):
    """``"²".isdigit()`` is true but ``int("²")`` fails: ?game=² was a 500 on every page."""
    for url in ("/scoreboard", "/console", "/live", "/api/stream"):
        r = table.viewer.client.get(url + "?game=²")
        assert r.status_code == 400, url
        assert "must be a game number" in r.get_data(as_text=True)
    assert table.referee.services.streams.active == 0


@pytest.mark.parametrize("number", ["²", "--5", "-²", "٣"])
def test_a_number_field_in_other_digits_or_signs_is_a_400(table, number):
    """'target', 'seq' and 'seat' as text: "²" and "--5" passed the check, then int() failed."""
    ref = table.referee
    for url, field in (
        (f"/api/games/{table.running}/undo", "target"),
        (f"/api/games/{table.running}/overrule", "target"),
        (f"/api/games/{table.running}/accept", "seq"),
        ("/api/pads/press", "seat"),
    ):
        r = ref.post(url, {field: number, "event": DEAL})
        assert r.status_code == 400, (url, r.status_code)
        assert r.json["error"] == f"{field!r} must be a whole number"
    assert [f["seq"] for f in ref.snapshot(table.running)["feed"]] == [1]


def test_json_nested_too_deeply_is_a_400_not_a_500(table):
    """json.loads gives up with a RecursionError, which get_json(silent=True) does not catch."""
    deep = b"[" * 50_000 + b"]" * 50_000
    event = b'{"kind": "deal", "payload": {"x": ' + deep + b"}}"
    for url, body in (
        ("/api/games", deep),
        (f"/api/games/{table.running}/events", event),
        (f"/api/games/{table.running}/undo", b'{"target": ' + deep + b"}"),
        ("/api/zones", b'{"zones": ' + deep + b"}"),
    ):
        r = post_raw(table.referee, url, body)
        assert r.status_code == 400, url
        assert "nested too deeply" in r.json["error"]
    # not as deep as Python gives up at, but deeper than any event: refused too
    r = post_raw(
        table.referee,
        f"/api/games/{table.running}/events",
        dumps({"kind": "deal", "payload": {"x": json.loads("[" * 100 + "]" * 100)}}),
    )
    assert r.status_code == 400 and "nested too deeply" in r.json["error"]


def test_a_lone_surrogate_is_refused_before_it_is_stored(table):
    """JSON's "\\ud800" is text Python holds but cannot write as UTF-8: stored in an event
    (an illegal play is stored), the game's History page answered 500 from then on."""
    ref = table.referee
    play = {"kind": "discard", "seat": 0, "payload": {"card": "\ud800"}}
    r = post_raw(ref, f"/api/games/{table.running}/events", dumps(play))
    assert r.status_code == 400 and "lone surrogate" in r.json["error"]
    assert table.viewer.client.get(f"/history/{table.running}").status_code == 200
    assert [f["seq"] for f in ref.snapshot(table.running)["feed"]] == [1]
    new = {"game": "deck-dash", "players": ["Ann", "B\udc00b"]}
    r = post_raw(ref, "/api/games", dumps(new))
    assert r.status_code == 400 and r.json["error"] == (
        "text must be valid Unicode (a lone surrogate was sent)"
    )
    assert table.viewer.client.get("/history").status_code == 200


def test_nan_and_infinity_are_refused_so_the_game_stays_readable(table):
    """Python's json reads NaN/Infinity; stored, the game's snapshot was no JSON a browser
    reads (the console could no longer show the game)."""
    ref = table.referee
    event = {"kind": "deal", "seat": 0, "payload": {"start": "R5", "hands": [12, 12], "x": 1}}
    for bad in (float("nan"), float("inf"), -float("inf")):
        event["payload"]["x"] = bad
        r = post_raw(ref, f"/api/games/{table.wash}/events", dumps(event))
        assert r.status_code == 400 and "NaN and Infinity" in r.json["error"]
        r = post_raw(
            ref,
            "/api/games",
            dumps({"game": "dos", "players": ["A", "B"], "options": {"hand_size": bad}}),
        )
        assert r.status_code == 400 and "NaN and Infinity" in r.json["error"]
    strict_json(table.viewer.client.get(f"/api/games/{table.wash}").get_data())
    assert ref.snapshot(table.wash)["feed"] == []


def test_overruling_an_undo_or_overrule_is_refused_not_half_done(table):
    """Replay drops the replacement of a meta event: overruling an undo answered 201 and
    only switched the undo off (the undone deal came back), the replacement nowhere."""
    ref, run = table.referee, table.running
    url = f"/api/games/{run}"
    undo = ref.post(url + "/undo", {"target": 1}).json["seq"]
    draw = {"kind": "draw", "seat": 1, "payload": {"from": "discard"}}
    over = ref.post(url + "/overrule", {"target": undo, "event": draw})
    assert over.status_code == 400, over.json
    assert (
        over.json["error"]
        == f"overrule: event {undo} is an undo, not a game event; undo it instead"
    )
    raw = {"kind": "overrule", "payload": {"target": undo, "event": draw}}  # as an event
    assert ref.send(run, raw).status_code == 400
    assert [f["status"] for f in ref.snapshot(run)["feed"]] == ["undone", "meta"]
    # an overrule is overruled no more than an undo; undoing either stays the way back
    redo = ref.post(url + "/undo", {"target": undo})
    assert redo.status_code == 201
    second = ref.post(url + "/overrule", {"target": 1, "event": DEAL}).json["seq"]
    r = ref.post(url + "/overrule", {"target": second, "event": DEAL})
    assert r.status_code == 400 and "is an overrule, not a game event" in r.json["error"]
    assert ref.post(url + "/undo", {"target": second}).status_code == 201


@pytest.mark.parametrize("host", ["x..", "a" * 64 + ".lan", "a" * 64])
def test_a_host_header_idna_refuses_is_a_400_not_a_500(table, host):
    """Flask builds no URLs for such a Host, so every error page (its links are url_for)
    failed into waitress's bare 500: `curl -H 'Host: x..' http://pi:8000/` did it."""
    client = table.viewer.client
    for method, url in (("GET", "/scoreboard"), ("GET", "/nope"), ("POST", "/login")):
        r = client.open(url, method=method, headers={"Host": host})
        assert r.status_code == 400, (method, url)
        assert r.get_data(as_text=True) == "the Host header is not a valid host name\n"
    r = client.post("/api/games", json={}, headers={"Host": host})
    assert r.status_code == 400
    assert r.json["error"] == "the Host header is not a valid host name"
    assert client.get("/scoreboard", headers={"Host": "tabletop.lan:8000"}).status_code == 200


def test_an_error_page_that_cannot_be_drawn_falls_back_to_one_line(table, monkeypatch):
    """Whatever breaks the error page itself (URL building, a template), the answer keeps its
    status and says its reason in one plain line, not waitress's bare 500."""
    import web.app

    def broken(*_args, **_kwargs):
        raise RuntimeError("no URL building for this request")

    monkeypatch.setattr(web.app, "render_template", broken)
    r = table.viewer.client.get("/nope")
    assert r.status_code == 404 and r.mimetype == "text/plain"
    assert r.get_data(as_text=True).startswith("404: ")


# -- the table's own odd cases: refused with a reason ----------------------------------


DRAW = {"kind": "draw", "seat": 1, "payload": {"from": "discard"}}


def test_the_table_cases_are_4xx_with_a_reason(table):
    ref, run = table.referee, table.running
    cases = [
        (f"/api/games/{table.ended}/events", DEAL, 409),  # a game that ended
        (f"/api/games/{table.ended}/undo", {"target": 1}, 409),
        (f"/api/games/{table.htd}/events", {"kind": "lay", "seat": 0}, 400),  # another game's
        (f"/api/games/{run}/events", {**DRAW, "seat": 7}, 400),  # a seat not at the table
        (f"/api/games/{run}/events", {**DRAW, "seat": 10**30}, 400),
        (f"/api/games/{run}/undo", {"target": 99}, 400),  # no such event
        (f"/api/games/{run}/undo", {"target": 10**30}, 400),
        (f"/api/games/{run}/overrule", {"target": 99, "event": DEAL}, 400),
        (f"/api/games/{run}/overrule", {"target": 1, "event": {"kind": "undo"}}, 400),
        (f"/api/games/{run}/accept", {"seq": 99}, 404),
        (f"/api/games/{run}/accept", {"seq": 2**63}, 404),
    ]
    for url, body, status in cases:
        r = ref.post(url, body)
        assert r.status_code == status, (url, body, r.json)
        check(r, url)
    # a camera question answered twice: the second tablet is told it is gone
    pid = table.prompt(table.htd)
    url = f"/api/games/{table.htd}/prompts/{pid}/accept"
    assert ref.post(url, {}).status_code == 201
    again = ref.post(url, {})
    assert again.status_code == 404 and "another tablet may have answered it" in again.json["error"]
    gone = ref.post(f"/api/games/{table.htd}/prompts/{pid}/dismiss", {})
    assert gone.status_code == 404


def test_request_shapes_are_refused_with_a_reason(table):
    ref, url = table.referee, f"/api/games/{table.running}/events"
    for data, content_type, status in (
        (b"", "application/json", 400),
        (b"{not json", "application/json", 400),
        (b"\xff\xfe\x00", "application/json", 400),
        (b'"deal"', "application/json", 400),
        (json.dumps(DEAL).encode(), "text/plain", 400),  # JSON under another name
        (json.dumps(DEAL).encode(), "application/x-www-form-urlencoded", 400),
        (b"x" * (1024 * 1024), "application/json", 413),  # 1 MB
    ):
        r = post_raw(ref, url, data, content_type)
        assert r.status_code == status, (data[:20], content_type, r.status_code)
        check(r, (data[:20], content_type))
    extra = ref.post(url, {**DEAL, "colour": "red"})
    assert extra.status_code == 400 and "unknown event field" in extra.json["error"]
    assert [f["seq"] for f in ref.snapshot(table.running)["feed"]] == [1]
