"""Every ``tabletop`` command given bad input: exit 2 (or 1 where the command goes on past
one bad item) with one line that names the problem, never a traceback.

Each case runs in this process through ``referee.cli.main``, so an exception that escaped a
handler would fail the test with its traceback. Out-of-range options are refused by argparse
(``referee/cli_args.py``) before anything loads. ``serve`` runs as a real process.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.cli import main
from vision.table.zones import TableLayout, ZoneKind, rectangle

REPO = Path(__file__).resolve().parent.parent
MODELS = REPO / "models"
A_FRAME = REPO / "tests" / "data" / "table" / "pile.avi"


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """Bad inputs of every shape, and a few good ones to get a command past its first check."""
    (tmp_path / "binary.bin").write_bytes(bytes(range(128, 256)) * 4)
    (tmp_path / "not-an-image.jpg").write_bytes(b"hello")
    (tmp_path / "folder").mkdir()
    (tmp_path / "empty-folder").mkdir()
    (tmp_path / "zones-not-a-layout.json").write_text('{"zones": 3}')
    layout = TableLayout((rectangle("discard", ZoneKind.DISCARD, (0.3, 0.3, 0.7, 0.7)),))
    (tmp_path / "zones-no-dryer.json").write_text(json.dumps(layout.to_dict()))
    broken = tmp_path / "broken-models"
    broken.mkdir()
    (broken / "card-detector.onnx").write_bytes(b"\x00 not a protobuf " * 50)
    for name in ("card-symbol.onnx", "card-color.onnx"):
        (broken / name).write_bytes((MODELS / name).read_bytes())
    for name, label in (
        ("labels-too-short", "0 0.1 0.2\n"),
        ("labels-not-numbers", "x y z w\n"),
        ("labels-unknown-class", "7 0.5 0.5 0.1 0.1\n"),
    ):
        (tmp_path / name / "images").mkdir(parents=True)
        (tmp_path / name / "labels").mkdir()
        (tmp_path / name / "data.yaml").write_text("names:\n  0: red 1\n")
        (tmp_path / name / "images" / "a.png").write_bytes(_tiny_png())
        (tmp_path / name / "labels" / "a.txt").write_text(label)
    (tmp_path / "no-names").mkdir()
    (tmp_path / "no-names" / "data.yaml").write_text("path: .\n")
    (tmp_path / "no-images").mkdir()
    (tmp_path / "no-images" / "data.yaml").write_text("names: [red 1]\n")
    for name, line in (("names-unclosed", "names: [\n"), ("names-empty", "names: []\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "data.yaml").write_text(line)
    return tmp_path


def _tiny_png() -> bytes:
    import cv2
    import numpy as np

    ok, data = cv2.imencode(".png", np.full((48, 64, 3), 90, np.uint8))
    assert ok
    return data.tobytes()


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Exit code and stderr of ``tabletop ARGV`` (argparse's refusals included)."""
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse: usage line + message, exit 2
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


# (argv with {t} for the fixture folder, exit code, words the message must contain)
CASES: list[tuple[str, int, str]] = [
    # the referee
    ("replay {t}/binary.bin", 2, "not a text file"),
    # options out of range: argparse refuses them before anything loads
    ("vision identify --threads 0 {t}/not-an-image.jpg", 2, "--threads: 0 is too small"),
    ("vision identify --conf 7 {t}/not-an-image.jpg", 2, "--conf: 7 is too large"),
    ("vision eval --min-confidence nan {t}/no-names", 2, "'nan' is not a finite number"),
    ("vision render --n -1 {t}/out", 2, "--n: -1 is too small"),
    ("vision train --det-epochs 0", 2, "--det-epochs: 0 is too small"),
    # an empty value is a slip, not "the default" (all stages; no deck)
    ("vision train --stages , --work {t}/w", 2, "--stages names no stage"),
    ("vision identify --deck= {t}/not-an-image.jpg", 2, "--deck is empty"),
    # a data.yaml whose names list is broken is not one class called "["
    ("vision eval {t}/names-unclosed", 2, "malformed names list: names: ["),
    ("vision eval {t}/names-empty", 2, "malformed names list: names: []"),
    ("vision quantize --frames 0", 2, "--frames: 0 is too small"),
    ("vision teach --deck dos --epochs 0 --guide", 2, "--epochs: 0 is too small"),
    ("vision dryer --zones {t}/x.json --seat -1 {t}/a.jpg", 2, "--seat: -1 is too small"),
    ("hw test --mock --bounce -1", 2, "--bounce: -1 is too small"),
    ("hw test --mock --timeout 0", 2, "--timeout: 0 is too small: give more than 0"),
    ("hw record --mock --seconds -1 {t}/o.jsonl", 2, "--seconds: -1 is too small"),
    ("hw record --mock --seconds inf {t}/o.jsonl", 2, "'inf' is not a finite number"),
    ("hw replay --speed 0 {t}/o.jsonl", 2, "--speed: 0 is too small"),
    ("serve --port 99999", 2, "--port: 99999 is too large"),
    ("serve --threads 0", 2, "--threads: 0 is too small"),
    ("log 0 --db {t}/binary.bin", 2, "game_id: 0 is too small"),
    # a dashboard game's log: no database, not a database, no such game, nowhere to write
    ("log --db {t}/missing.db", 2, "no database at"),
    ("log 1 --db {t}/binary.bin", 2, "cannot read the database"),
    ("log --config {t}/binary.bin", 2, "binary.bin"),
    # models folders without their files, or with a file that is no model
    ("vision identify --models {t}/empty-folder {t}/not-an-image.jpg", 2, "no such model file"),
    (
        "vision identify --models {t}/broken-models {t}/not-an-image.jpg",
        2,
        "not a model onnxruntime",
    ),
    ("vision eval --models {t}/folder {t}/labels-too-short", 2, "no such model file"),
    ("vision quantize --models {t}/empty-folder", 2, "card-detector.onnx: no such model"),
    ("vision export --models {t}/empty-folder", 2, "card-detector.pt not found: train first"),
    # datasets that cannot be scored
    ("vision eval {t}/labels-too-short", 2, "labels/a.txt:1: not 'class x y w h'"),
    ("vision eval {t}/labels-not-numbers", 2, "labels/a.txt:1: not 'class x y w h'"),
    ("vision eval {t}/labels-unknown-class", 2, "a class index outside data.yaml's 1 names"),
    ("vision eval {t}/no-names", 2, "no class names"),
    ("vision eval {t}/no-images", 2, "no images"),
    ("vision eval --json {t}/folder {t}/labels-too-short", 2, "--json"),
    # decks, zones and outputs
    ("vision render --n 1 --decks nosuch {t}/out", 2, "no deck profile 'nosuch'"),
    ("vision render --n 1 {t}/binary.bin", 2, "cannot write"),
    ("vision teach --deck nosuch --guide", 2, "no deck profile 'nosuch'"),
    ("vision teach --deck dos --photos {t}/missing", 2, "missing: no such folder of photos"),
    ("vision teach --deck dos --photos {t}/binary.bin", 2, "no such folder of photos"),
    ("vision dryer --zones {t}/missing.json {t}/a.jpg", 2, "missing.json: cannot read"),
    ("vision dryer --zones {t}/binary.bin {t}/a.jpg", 2, "not a text file"),
    ("vision dryer --zones {t}/zones-not-a-layout.json {t}/a.jpg", 2, "'zones' list"),
    ("vision dryer --zones {t}/zones-no-dryer.json {t}/a.jpg", 2, "no calibrated dryer zone"),
    ("vision watch --game dos --zones {t}/zones-not-a-layout.json {t}/folder", 2, "'zones'"),
    ("vision watch --game dos --zones {t}/zones-no-dryer.json {t}/missing.avi", 2, "no camera"),
    ("vision watch --game dos --zones {t}/zones-no-dryer.json --deck nosuch {t}/folder", 2, "deck"),
    (
        "vision watch --game dos --zones {t}/zones-no-dryer.json --models {t}/broken-models "
        "{t}/folder",
        2,
        "not a model onnxruntime can load",
    ),
    ("vision watch --game dos --zones {t}/zones-no-dryer.json {t}/empty-folder", 1, "no frame"),
    # the hardware
    ("hw pins --config {t}/binary.bin", 2, "not a text file"),
    ("hw pins --config {t}/folder", 2, "cannot read"),
    ("hw replay {t}/binary.bin", 2, "not a text file"),
]


@pytest.mark.parametrize(("argv", "code", "words"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_gets_one_clear_line_and_no_traceback(
    files: Path, capsys: pytest.CaptureFixture[str], argv: str, code: int, words: str
) -> None:
    got, err = run(argv.format(t=files).split(), capsys)
    assert got == code, err
    assert words in err
    assert "Traceback" not in err


def test_dryer_names_an_unreadable_empty_reference_before_reading(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    layout = TableLayout(
        (
            rectangle("dryer", ZoneKind.DRYER, (0.1, 0.1, 0.9, 0.6), seat=0),
            *(
                rectangle(f"bar{b}", ZoneKind.BAR, (0.1, 0.1 * b, 0.9, 0.1 * b + 0.05), 0, b)
                for b in (1, 2, 3)
            ),
        )
    )
    zones = files / "dryer.json"
    zones.write_text(json.dumps(layout.to_dict()))
    bad = str(files / "not-an-image.jpg")
    code, err = run(["vision", "dryer", "--zones", str(zones), "--empty", bad, bad], capsys)
    want = f"tabletop vision dryer: --empty {bad}: not an image OpenCV can decode"
    assert (code, err.strip()) == (2, want)


def _serve(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``tabletop serve`` as a process: each case must end by itself, at once."""
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", "serve", "--no-camera-referee", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _taken_port() -> tuple[socket.socket, int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock, sock.getsockname()[1]


@pytest.mark.parametrize(
    ("make_args", "words"),
    [
        (lambda t, port: ["--db", str(t), "--port", str(port)], "cannot open the database"),
        (
            lambda t, port: ["--db", str(t / "binary.bin"), "--port", str(port)],
            "file is not a database",
        ),
        (lambda t, port: ["--db", str(t / "a.db"), "--port", str(port)], "Address already in use"),
        (
            lambda t, port: ["--db", str(t / "b.db"), "--host", "no.such.host.invalid"],
            "cannot listen on no.such.host.invalid",
        ),
        (lambda t, port: ["--config", str(t / "binary.bin")], "not a text file"),
    ],
    ids=["db-is-a-folder", "db-is-not-sqlite", "port-in-use", "host-unknown", "config-binary"],
)
def test_serve_refuses_what_it_cannot_open_in_one_line(
    files: Path, make_args: Callable[[Path, int], list[str]], words: str
) -> None:
    sock, port = _taken_port()
    with sock:
        done = _serve(files, *make_args(files, port))
    assert done.returncode == 2, done.stderr
    assert words in done.stderr
    assert "Traceback" not in done.stderr


def test_serve_names_an_address_a_tablet_can_open(monkeypatch):
    """`make run` binds every interface; the setup line must not send the tablet to its own
    localhost but to this machine's address on the network (found without sending anything),
    and fall back to localhost only where there is no network."""
    from web.commands import tablet_host

    class Routed:
        def __init__(self, family, kind):
            self.family = family

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def connect(self, address):
            self.peer = address

        def getsockname(self):
            return (
                ("192.168.1.23", 40000) if self.family == socket.AF_INET else ("fd12::5", 1, 0, 0)
            )

    monkeypatch.setattr(socket, "socket", Routed)
    assert tablet_host("0.0.0.0") == "192.168.1.23"
    assert tablet_host("::") == "[fd12::5]"
    assert tablet_host("pi.local") == "pi.local"  # a named host is what the tablet types

    class Unrouted(Routed):
        def connect(self, address):
            raise OSError("Network is unreachable")

    monkeypatch.setattr(socket, "socket", Unrouted)
    assert tablet_host("0.0.0.0") == "localhost"
