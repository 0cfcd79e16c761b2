"""Review 33, vision: a quantize or export cut short (a full disk, a kill) or fed a bad .pt
never leaves a broken model file in place; a broken int8 twin is ignored for its float model;
``vision train`` names a missing .pt or ONNX file before rendering anything; bad ``--seed``
and ``--work`` values are one line, not a traceback."""

from __future__ import annotations

import errno
import logging
import shutil
from pathlib import Path

import pytest

from tests.cli_run import run
from vision.runtime.onnx_model import int8_path, load_model
from vision.runtime.reader import COLOR, DETECTOR, MODELS_DIR, SYMBOL


def one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def float_models(folder: Path, names: tuple[str, ...] = (DETECTOR, SYMBOL, COLOR)) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(MODELS_DIR / name, folder / name)
    return folder


def weights_folder(folder: Path, **swap: str) -> Path:
    """The shipped .pt files copied into ``folder``; ``swap`` puts another file under a name
    (``card_detector="card-color.pt"``)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("card-detector.pt", "card-symbol.pt", "card-color.pt", "card-corner.pt"):
        source = swap.get(name.removesuffix(".pt").replace("-", "_"), name)
        shutil.copy(MODELS_DIR / source, folder / name)
    return folder


# -- 1. int8 twins: written whole or not at all, and a broken one is ignored --------------------


def test_a_quantize_cut_short_leaves_the_last_twin_and_names_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnxruntime.quantization as q

    from vision.quantize import quantize_model

    models = float_models(tmp_path / "models", (COLOR,))
    twin = int8_path(models / COLOR)
    twin.write_bytes(b"last run's twin")

    def disk_full(_src: str, dst: str, *_a, **_k) -> None:  # writes part of it, then fails
        Path(dst).write_bytes(b"\x08\x07partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(q, "quantize_static", disk_full)
    with pytest.raises(OSError) as caught:
        quantize_model(models / COLOR, twin, [])
    assert caught.value.filename == str(twin)
    assert twin.read_bytes() == b"last run's twin"
    assert {p.name for p in models.iterdir()} == {COLOR, twin.name}  # no leftovers


def test_a_truncated_twin_is_ignored_for_the_float_model_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    models = float_models(tmp_path / "models", (COLOR,))
    twin = int8_path(models / COLOR)
    twin.write_bytes((MODELS_DIR / twin.name).read_bytes()[:50_000])
    with caplog.at_level(logging.WARNING):
        model = load_model(models / COLOR, 1, True, "classify")
    assert model.path == models / COLOR and not model.int8
    assert str(twin) in caplog.text and "ignored" in caplog.text


def test_identify_reads_with_the_float_models_beside_a_broken_twin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import cv2
    import numpy as np

    models = float_models(tmp_path / "models")
    int8_path(models / DETECTOR).write_bytes(b"")  # a quantize killed as it began writing
    image = tmp_path / "a.png"
    cv2.imwrite(str(image), np.full((48, 64, 3), 90, np.uint8))
    code, out, _err = run(["vision", "identify", "--models", str(models), str(image)], capsys)
    assert code == 0 and '"cards": []' in out


# -- 2. vision export: checked in a temporary folder, then renamed into place -------------------


def export(models: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run(["vision", "export", "--models", str(models)], capsys)


def onnx_files(models: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(models.iterdir()) if p.suffix != ".pt"}


def test_export_names_a_truncated_checkpoint_and_keeps_the_onnx_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    models = weights_folder(tmp_path / "models")
    pt = models / "card-detector.pt"
    pt.write_bytes(pt.read_bytes()[:100_000])
    (models / DETECTOR).write_bytes(b"last export")
    code, out, err = export(models, capsys)
    assert (code, out) == (2, "")
    assert one_line(err) == (
        f"tabletop vision export: {pt}: not a checkpoint Ultralytics can load (empty, truncated"
        " or of another format)"
    )
    assert onnx_files(models) == {DETECTOR: b"last export"}


def test_export_refuses_a_classifier_saved_as_the_detector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ultralytics.engine.model import Model

    def of_its_kind(self, **_kw) -> str:  # a shipped ONNX file of the checkpoint's own kind
        out = Path(self.ckpt_path).with_suffix(".onnx")
        shutil.copy(MODELS_DIR / (DETECTOR if self.task == "obb" else COLOR), out)
        return str(out)

    monkeypatch.setattr(Model, "export", of_its_kind)
    models = weights_folder(tmp_path / "models", card_detector="card-color.pt")
    (models / DETECTOR).write_bytes(b"last export")
    code, _out, err = export(models, capsys)
    assert code == 2
    assert one_line(err).startswith(
        f"tabletop vision export: {models / 'card-detector.pt'}: must be an oriented-box detector"
    )
    assert onnx_files(models) == {DETECTOR: b"last export"}


def test_an_export_on_a_full_disk_is_one_line_and_keeps_the_onnx_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ultralytics.engine.model import Model

    def disk_full(self, **_kw) -> str:  # Ultralytics writes beside the .pt it loaded
        Path(self.ckpt_path).with_suffix(".onnx").write_bytes(b"\x08\x07partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Model, "export", disk_full)
    models = weights_folder(tmp_path / "models")
    (models / DETECTOR).write_bytes(b"last export")
    code, _out, err = export(models, capsys)
    assert code == 2
    assert one_line(err) == (
        f"tabletop vision export: cannot export {models / 'card-detector.pt'} into {models}:"
        " No space left on device"
    )
    assert onnx_files(models) == {DETECTOR: b"last export"}


def test_export_renames_every_checked_model_into_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With Ultralytics' export stubbed by the shipped ONNX files: each lands under its name,
    and the temporary folder is gone."""
    from ultralytics.engine.model import Model

    def shipped(self, **_kw) -> str:
        out = Path(self.ckpt_path).with_suffix(".onnx")
        shutil.copy(MODELS_DIR / out.name, out)
        return str(out)

    monkeypatch.setattr(Model, "export", shipped)
    models = weights_folder(tmp_path / "models")
    code, out, err = export(models, capsys)
    assert (code, err) == (0, "")
    names = [DETECTOR, SYMBOL, COLOR, "card-corner.onnx"]
    assert out.split() == [str(models / n) for n in names]
    assert onnx_files(models) == {n: (MODELS_DIR / n).read_bytes() for n in sorted(names)}


# -- 3. vision train: missing inputs named before any rendering --------------------------------


class Rendered(Exception):
    """Raised where a stage would start rendering its data (or cutting it with a reader)."""


def raise_rendered(*_a, **_k):
    raise Rendered


def stub_rendering(monkeypatch: pytest.MonkeyPatch, renders=raise_rendered) -> None:
    """Rendering tables and crops replaced by ``renders``; cutting crops with the models
    (``render_chunks``, a ``CardReader``) raises ``Rendered``."""
    import vision.render.dataset as dataset
    import vision.runtime.reader as reader
    from vision import train_data as data

    monkeypatch.setattr(dataset, "write_detector_dataset", renders)
    monkeypatch.setattr(dataset, "write_crops", renders)
    monkeypatch.setattr(data, "detector_tables", renders)
    monkeypatch.setattr(data, "render_chunks", raise_rendered)
    monkeypatch.setattr(reader, "CardReader", raise_rendered)


@pytest.mark.parametrize(
    ("stages", "named"),
    [
        ("detector-more", "card-detector.pt (detector-more goes on from it)"),
        ("symbol-round18", "card-symbol.pt (symbol-round18 goes on from it)"),
        (
            "corner",
            "card-detector.onnx, card-symbol.onnx, card-color.onnx (corner cuts its crops with"
            " them)",
        ),
    ],
)
def test_train_names_a_missing_models_file_before_rendering(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stages: str,
    named: str,
) -> None:
    stub_rendering(monkeypatch)
    empty, work = tmp_path / "empty", tmp_path / "work"
    empty.mkdir()
    argv = ["vision", "train", "--stages", stages, "--models", str(empty), "--work", str(work)]
    code, _out, err = run(argv, capsys)
    assert code == 2
    line = one_line(err)
    assert line.startswith(f"tabletop vision train: missing from {empty}: ") and named in line
    assert not work.exists()


def test_a_stage_whose_own_run_makes_the_weights_is_not_refused() -> None:
    from vision.train import missing_inputs

    empty = Path("/nonexistent")
    assert missing_inputs(("detector", "detector-more"), empty) == {}
    assert missing_inputs(("symbol", "symbol-more"), empty) == {}
    assert missing_inputs(("symbol-more",), empty) == {
        ("symbol-more", "goes on from"): ["card-symbol.pt"]
    }


def test_what_train_checks_for_is_what_each_stage_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every non-soup stage, run with rendering and training stubbed: it goes on from the
    folder's .pt exactly when ``missing_inputs`` asks for it, and it builds a reader from the
    folder's ONNX files exactly when it asks for those."""
    import vision.train as train
    from vision import train_data as data
    from vision import yolo

    stub_rendering(monkeypatch, renders=lambda *_a, **_k: None)
    monkeypatch.setattr(data, "val_has_every_class", lambda root: root)
    monkeypatch.setattr(data, "union", lambda out, _parts: out)
    started: dict[str, str] = {}

    def fit(*_a, name: str, model_cfg: str = "", **_k) -> Path:
        started[name] = model_cfg
        weights = tmp_path / "best.pt"
        weights.write_bytes(b"trained")
        return weights

    monkeypatch.setattr(yolo, "train_classifier", fit)
    monkeypatch.setattr(yolo, "train_detector", fit)
    monkeypatch.setattr(yolo, "export_onnx", lambda _w, _size, dest: dest)
    empty = tmp_path / "models"
    for stage in (s for s in train.STAGES if s not in train.SOUPS):
        shutil.rmtree(empty, ignore_errors=True)
        empty.mkdir()
        work = tmp_path / "work" / stage
        work.mkdir(parents=True)
        needs = train.missing_inputs((stage,), empty)
        uses_reader = True
        try:
            train.run_plan(train.TrainPlan(), work, empty, log=lambda _m: None, stages=(stage,))
            uses_reader = False
        except Rendered:
            pass
        assert uses_reader == ((stage, "cuts its crops with") in needs), stage
        if not uses_reader:
            goes_on = started[stage] == str(empty / f"{train.stage_stem(stage)}.pt")
            assert goes_on == ((stage, "goes on from") in needs), stage


def test_train_names_a_broken_models_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    models = float_models(tmp_path / "models")
    shutil.copy(MODELS_DIR / "card-symbol.pt", models / "card-symbol.pt")
    (models / DETECTOR).write_bytes(b"not a model")
    argv = ["vision", "train", "--stages", "symbol-round3", "--scene-crop-tables", "2"]
    code, _out, err = run([*argv, "--models", str(models), "--work", str(tmp_path / "w")], capsys)
    assert code == 2
    assert one_line(err).startswith(
        f"tabletop vision train: {models / DETECTOR}: not a model onnxruntime can load"
    )


def test_train_with_a_file_as_its_work_folder_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    afile = tmp_path / "afile"
    afile.write_text("")
    argv = ["vision", "train", "--stages", "color", "--work", str(afile)]
    code, _out, err = run(argv, capsys)
    assert code == 2
    assert one_line(err) == f"tabletop vision train: --work {afile}: not a folder"


def test_train_names_a_file_it_cannot_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import vision.train as train

    def disk_full(*_a, **_k) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "w" / "x.png"))

    monkeypatch.setattr(train, "run_plan", disk_full)
    argv = ["vision", "train", "--stages", "color", "--work", str(tmp_path / "w")]
    code, _out, err = run(argv, capsys)
    assert code == 2
    assert one_line(err) == (
        f"tabletop vision train: {tmp_path / 'w' / 'x.png'}: No space left on device"
    )


# -- 4. --seed and the --models defaults --------------------------------------------------------


@pytest.mark.parametrize("command", ["train", "render"])
def test_a_negative_seed_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    out = tmp_path / "out"
    argv = {
        "train": ["vision", "train", "--seed", "-1", "--stages", "color", "--work", str(out)],
        "render": ["vision", "render", str(out), "--seed", "-1", "--n", "1", "--decks", "dos"],
    }[command]
    code, _out, err = run(argv, capsys)
    assert code == 2 and "--seed: -1 is too small: give at least 0" in err
    assert not out.exists()


@pytest.mark.parametrize("command", ["train", "export", "quantize"])
def test_models_defaults_to_the_repos_folder_wherever_it_runs(command: str) -> None:
    from referee.cli import build_parser

    argv = ["vision", command] if command != "train" else ["vision", "train", "--seed", "0"]
    assert Path(build_parser().parse_args(argv).models) == MODELS_DIR
