"""The speed bench runs both paths on the same frames, at the same detector shape, and ours
without torch: a ratio between unlike runs would measure nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from vision.train import TrainPlan

REPO = Path(__file__).resolve().parent.parent


def test_the_speed_bench_compares_like_with_like(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, str(REPO / "bench" / "vision.py"), "--frames", "2", "--json", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(out.read_text())
    ours, theirs = report["results"]["onnx"], report["results"]["torch"]
    shape = list(TrainPlan().det_run_hw)
    assert ours["detector_input_hw"] == theirs["detector_input_hw"] == shape
    assert report["summary"]["detector_input_hw"] == shape
    assert ours["torch_loaded"] is False and report["summary"]["onnx_process_loaded_torch"] is False
    assert ours["frames"] == theirs["frames"] == 2
    assert ours["cards_read"] > 0 and theirs["cards_read"] > 0
    assert report["summary"]["memory_ratio"] < 1  # measured per process, not shared
    assert "goal ≥ 2x: " in proc.stdout and "goal ≤ 1/3: " in proc.stdout  # met or not


def test_the_faults_bench_compares_the_same_faces_with_a_fault_left_out(capsys) -> None:
    import pytest

    from bench.vision_faults import main

    assert main(["--n", "3", "--skip", "blur", "--skip", "light,glare"]) == 0
    lines = capsys.readouterr().out.splitlines()
    faces = int(lines[0].split(", ")[2].split()[0])
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    assert faces > 0 and set(rows) == {"(nothing)", "blur", "glare,light"}
    for name, cells in rows.items():
        assert 0 <= int(cells[0]) <= faces
        if name != "(nothing)":  # gained / lost against the faulted tables
            gained, lost = int(cells[1].lstrip("+")), int(cells[3].lstrip("-"))
            assert int(cells[0]) == int(rows["(nothing)"][0]) + gained - lost
    with pytest.raises(SystemExit) as stop:
        main(["--n", "1", "--skip", "fog"])
    assert stop.value.code == 2


def _bench_table(script: str, *args: str) -> list[list[str]]:
    """The rows (split into cells) of ``bench/SCRIPT ARGS``' table."""
    proc = subprocess.run(
        [sys.executable, str(REPO / "bench" / script), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [line.split() for line in proc.stdout.splitlines()[1:]]


def test_the_closeups_bench_reads_the_same_photos_with_each_zoom() -> None:
    rows = _bench_table("vision_closeups.py", "--n", "8")
    assert [r[0] for r in rows] == ["0", "1", "2"]
    for row in rows:
        cells = [tuple(map(int, c.split("/"))) for c in row[1:]]
        assert [shown for _, shown in cells] == [2, 2, 2, 2, 8]  # four height bands, all
        assert all(0 <= read <= shown for read, shown in cells)
        assert sum(read for read, _ in cells[:4]) == cells[4][0]
    # two zoomed-out passes read more of the close-ups than none
    assert int(rows[2][-1].split("/")[0]) > int(rows[0][-1].split("/")[0])


def test_the_closeups_bench_reads_enlarged_tables_with_each_zoom() -> None:
    rows = _bench_table("vision_closeups.py", "--groups", "--n", "3", "--enlarge", "1,3")
    assert [r[0] for r in rows] == ["x1", "x3"]
    for row in rows:
        faces = int(row[1])
        read = [int(row[i]) for i in (2, 5, 8)]  # "read / extra" per zoom
        assert faces > 0 and all(0 <= r <= faces for r in read)


def test_the_card_scale_bench_reads_near_tables_as_is_scaled_and_zoomed() -> None:
    rows = _bench_table("vision_card_scale.py", "--n", "4", "--cameras", "1", "--scales", "1,3")
    assert [r[0] for r in rows] == ["x1", "x3"]
    for row in rows:
        faces = int(row[1])
        read = [int(row[i]) for i in (2, 6, 10)]  # "read / extra, ms" per way
        assert faces > 0 and all(0 <= r <= faces for r in read)
    assert rows[0][-1] == "1"  # a camera at the learnt height keeps its frames
    assert 0.2 <= float(rows[1][-1]) < 0.6  # one three times nearer shrinks them
    assert int(rows[1][6]) > int(rows[1][2])  # and reads more of its cards than as is
    for row in rows:  # of which while measuring: "read / shown", within the card-scale column
        probed, shown = int(row[-4]), int(row[-2])
        assert 0 <= probed <= shown <= int(row[1]) and probed <= int(row[6])


def test_the_card_scale_bench_moves_a_measured_camera_and_it_measures_again() -> None:
    rows = _bench_table(
        "vision_card_scale.py", "--moved", "--n", "40", "--cameras", "1", "--scales", "2.5"
    )
    (row,) = rows
    scale, drifts = row[-1].split("/")
    assert 0.3 <= float(scale) <= 0.6 and drifts == "1"  # measured at x1, then again
    assert int(row[6]) > int(row[2])  # so it reads more than the frames as they are


def test_the_card_scale_bench_takes_a_camera_with_more_pixels_but_never_enlarges() -> None:
    rows = _bench_table(
        "vision_card_scale.py", "--capture", "2", "--n", "2", "--cameras", "1", "--scales", "0.4"
    )
    (row,) = rows
    assert row[0] == "x0.4" and int(row[1]) > 0 and 0 <= int(row[6]) <= int(row[1])
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "vision_card_scale.py"),
            "--capture",
            "2",
            "--scales",
            "0.6",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "factors up to 1/N" in done.stderr
