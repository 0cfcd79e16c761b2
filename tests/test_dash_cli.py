"""``tabletop dash check|find``: JSON out, exit codes, batch mode, malformed input."""

import io
import json
import subprocess
import sys

import pytest

from referee.cli import main


def _run(capsys, argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_check_valid_exits_0_with_groups(capsys):
    argv = ["dash", "check", "--level", "easy", "--dash", "6", "R4", "G5", "B6", "R7", "Y7", "W"]
    code, out, err = _run(capsys, argv)
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["valid"] is True
    assert {g["kind"] for g in data["groups"]} == {"run", "set"}
    assert "7" in next(g for g in data["groups"] if g["kind"] == "set")["stands_for"]


def test_check_invalid_exits_1_with_reason(capsys):
    argv = ["dash", "check", "--level", "easy", "--dash", "6", "R4", "G5", "B6", "R7", "Y7", "G9"]
    code, out, _ = _run(capsys, argv)
    assert code == 1
    data = json.loads(out)
    assert data == {"valid": False, "groups": [], "reason": data["reason"]}
    assert "missing one more 7" in data["reason"]


def test_tokens_are_case_insensitive(capsys):
    code, out, _ = _run(
        capsys, ["dash", "check", "--level", "ADVANCED", "--dash", "2", "b3", "w", "b5", "b6", "b7"]
    )
    assert code == 0 and json.loads(out)["valid"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--level", "easy", "--dash", "6", "R4", "X9"], "bad card 'X9'"),
        (["--level", "easy", "--dash", "6", "R13"], "outside 1..12"),
        (["--level", "medium", "--dash", "6", "R4"], "unknown Dash level 'medium'"),
        (["--level", "easy", "--dash", "13", "R4"], "no Dash 13"),
        (["--level", "easy", "--dash", "0", "R4"], "no Dash 0"),
        (["R4", "R5"], "give --level"),
    ],
)
def test_malformed_input_exits_2_with_message(capsys, argv, message):
    code, out, err = _run(capsys, ["dash", "check", *argv])
    assert code == 2
    assert out == ""
    assert message in err


def test_non_number_dash_is_an_argparse_error_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["dash", "check", "--level", "easy", "--dash", "six", "R4"])
    assert exc.value.code == 2
    assert "invalid int value" in capsys.readouterr().err


def test_batch_answers_every_line_in_order(capsys, monkeypatch):
    lines = [
        {"level": "easy", "dash": 6, "cards": ["R4", "G5", "B6", "R7", "Y7", "W"]},
        {"level": "easy", "dash": 6, "cards": ["R4", "G5", "B6", "R7", "Y7", "G9"]},
        {"level": "advanced", "dash": 2, "cards": ["B1", "B2", "B3", "B4", "W"]},
    ]
    stdin = "\n".join(json.dumps(x) for x in lines) + "\n"
    code, out, _ = _run(capsys, ["dash", "check", "--batch"], stdin, monkeypatch)
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert [a["valid"] for a in answers] == [True, False, True]


def test_batch_malformed_lines_yield_error_and_processing_continues(capsys, monkeypatch):
    stdin = "\n".join(
        [
            json.dumps({"level": "easy", "dash": 1, "cards": ["R3", "Y3", "G7", "B7", "R1", "W"]}),
            "this is not json",
            json.dumps({"level": "easy", "dash": 1, "cards": ["R3", "Q3"]}),
            json.dumps({"level": "expert", "dash": 1, "cards": []}),
            json.dumps({"level": "easy", "dash": 14, "cards": []}),
            json.dumps({"level": "easy", "cards": []}),
            json.dumps(["easy", 1]),
            json.dumps({"level": "easy", "dash": 1, "cards": "R3 Y3"}),
            "",
            json.dumps({"level": "easy", "dash": 4, "cards": ["R1", "R2", "R3"]}),
        ]
    )
    code, out, _ = _run(capsys, ["dash", "check", "--batch"], stdin, monkeypatch)
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 2  # at least one line was malformed
    assert len(answers) == 9  # the blank line is skipped
    assert answers[0]["valid"] is True
    errors = [a["error"] for a in answers[1:8]]
    assert all(a.keys() == {"error"} for a in answers[1:8])
    assert "line 2: not JSON" in errors[0]
    assert "bad card 'Q3'" in errors[1]
    assert "unknown Dash level 'expert'" in errors[2]
    assert "no Dash 14" in errors[3]
    assert "missing 'dash'" in errors[4]
    assert "must be an object" in errors[5]
    assert "must be a list" in errors[6]
    assert answers[8]["valid"] is False


def test_batch_refuses_command_line_cards(capsys):
    code, _, err = _run(capsys, ["dash", "check", "--batch", "--level", "easy"])
    assert code == 2 and "--batch" in err


def test_find_returns_the_cards_to_lay_and_to_keep(capsys):
    hand = ["R4", "G5", "B6", "R7", "Y7", "W", "B11", "SKIP"]
    code, out, _ = _run(capsys, ["dash", "find", "--level", "easy", "--dash", "6", *hand])
    data = json.loads(out)
    assert code == 0 and data["found"] and data["valid"]
    assert sorted(data["lay"]) == sorted(["R4", "G5", "B6", "R7", "Y7", "W"])
    assert sorted(data["keep"]) == ["B11", "SKIP"]


def test_find_none_exits_1_and_says_what_is_missing(capsys):
    hand = ["R4", "G5", "R7", "Y11", "W"]
    code, out, _ = _run(capsys, ["dash", "find", "--level", "easy", "--dash", "6", *hand])
    data = json.loads(out)
    assert code == 1
    assert data["found"] is False and data["lay"] == [] and data["groups"] == []
    assert data["reason"].startswith("This hand cannot make Easy Dash 6 yet")


def test_find_malformed_exits_2(capsys):
    code, out, err = _run(capsys, ["dash", "find", "--level", "easy", "--dash", "6", "R99"])
    assert code == 2 and out == "" and "bad card" in err


def test_real_entry_point_no_traceback():
    """Through a real process: exit codes and stdin batch, no traceback on bad input."""
    base = [sys.executable, "-m", "referee.cli", "dash", "check"]
    bad = subprocess.run(
        [*base, "--level", "easy", "--dash", "3", "R4", "Z"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr and "bad card 'Z'" in bad.stderr
    batch = subprocess.run(
        [*base, "--batch"],
        input='{"level": "easy", "dash": 3, "cards": ["R1","R2","R3","R4","R5","R6","W"]}\n{}\n',
        capture_output=True,
        text=True,
        check=False,
    )
    answers = [json.loads(line) for line in batch.stdout.splitlines()]
    assert batch.returncode == 2
    assert answers[0]["valid"] is True and "error" in answers[1]


def test_ruling_log3_a_batch_line_with_a_number_too_long_to_read_is_a_malformed_line(
    capsys, monkeypatch
):
    """A JSON integer of over 4 300 digits (Python will not read it) was a traceback that
    ended the batch; it is a malformed line like any other, and the next lines are answered."""
    stdin = "\n".join(
        [
            '{"level": "easy", "dash": ' + "9" * 5000 + ', "cards": []}',
            json.dumps({"level": "easy", "dash": 4, "cards": ["R1", "R2", "R3"]}),
        ]
    )
    code, out, _ = _run(capsys, ["dash", "check", "--batch"], stdin, monkeypatch)
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and len(answers) == 2
    assert answers[0]["error"].startswith("line 1: not JSON (Exceeds the limit")
    assert answers[1]["valid"] is False


def test_ruling_log3_a_wash_dash_deck_file_python_cannot_read_is_a_deck_error(tmp_path):
    from referee.washdash.deck import DeckError, load_deck

    huge = tmp_path / "huge.json"
    huge.write_text('{"cards": [' + "9" * 5000 + "]}", encoding="utf-8")
    utf16 = tmp_path / "utf16.json"
    utf16.write_text('{"cards": []}', encoding="utf-16")
    with pytest.raises(DeckError, match=r"huge\.json: not JSON"):
        load_deck(huge)
    with pytest.raises(DeckError, match=r"utf16\.json: not a text file"):
        load_deck(utf16)


def test_batch_line_with_an_unknown_field_is_malformed(capsys, monkeypatch):
    """A misspelt extra field was dropped without a word and the line judged."""
    line = {"level": "easy", "dash": 1, "cards": ["R1"], "x": 1, "wilds": 2}
    code, out, _ = _run(capsys, ["dash", "check", "--batch"], json.dumps(line), monkeypatch)
    assert code == 2
    assert json.loads(out) == {"error": "line 1: unknown field 'wilds', 'x'"}
