"""Training plan plumbing that needs no training: stage names and the round-2 crop union."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision import train_data as data
from vision import yolo


def test_union_links_every_crop_of_every_part(tmp_path: Path) -> None:
    for part, names in (("one", ("a.png", "b.png")), ("two", ("c.png",))):
        folder = tmp_path / part / "symbol" / "train" / "7"
        folder.mkdir(parents=True)
        for n in names:
            (folder / n).write_bytes(n.encode())
    out = data.union(tmp_path / "all", [tmp_path / "one", tmp_path / "two"])
    got = sorted(p.name for p in (out / "symbol" / "train" / "7").iterdir())
    assert got == ["a.png", "b.png", "c.png"]
    assert (out / "symbol" / "train" / "7" / "c.png").read_bytes() == b"c.png"
    assert (out / "done").exists()


def test_detector_union_yaml_lists_every_split(tmp_path: Path) -> None:
    path = data.both_yaml(tmp_path / "all.yaml", [tmp_path / "a", tmp_path / "b"])
    text = path.read_text()
    for root in ("a", "b"):
        for split in ("train", "val"):
            assert str((tmp_path / root / "images" / split).resolve()) in text
    assert '0: "card"' in text


def test_false_alarms_keep_only_boxes_that_match_no_card() -> None:
    import numpy as np

    from vision.decks import load_deck
    from vision.render.negatives import false_alarms
    from vision.render.scenes import render_scene
    from vision.runtime.rectify import quad_to_obb

    scene = render_scene(load_deck("dos"), np.random.default_rng(5), ("paper",))
    assert scene.objects
    on_card = quad_to_obb(scene.objects[0].quad)
    far = (-500.0, -500.0, 30.0, 45.0, 0.0)  # off the table: overlaps nothing
    crops = false_alarms(scene, np.array([on_card, far], np.float32))
    assert len(crops) == 1
    assert crops[0].shape == (64, 64, 3)


def test_hard_negatives_are_filed_as_other(tmp_path: Path) -> None:
    import numpy as np

    from vision.decks import load_deck
    from vision.render.negatives import write_hard_negatives
    from vision.runtime.detections import Detections

    def detect(_bgr):  # a fake detector that always "sees" a card off the table
        obb = np.array([(-500.0, -500.0, 30.0, 45.0, 0.0)], np.float32)
        return Detections(obb, np.ones(1, np.float32), np.zeros(1, np.int64))

    saved = write_hard_negatives(tmp_path, detect, 2, 5, [load_deck("dos")], ("paper",))
    files = sorted((tmp_path / "symbol" / "train" / "other").glob("*.png"))
    assert saved == len(files) == 2


def test_hard_negatives_can_be_cut_at_the_symbol_models_size(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    from vision.decks import load_deck
    from vision.render.negatives import write_hard_negatives
    from vision.runtime.detections import Detections

    def detect(_bgr):
        obb = np.array([(-500.0, -500.0, 30.0, 45.0, 0.0)], np.float32)
        return Detections(obb, np.ones(1, np.float32), np.zeros(1, np.int64))

    write_hard_negatives(tmp_path, detect, 1, 5, [load_deck("dos")], ("paper",), crop_size=96)
    (crop,) = (tmp_path / "symbol" / "train" / "other").glob("*.png")
    assert cv2.imread(str(crop)).shape == (96, 96, 3)


def test_card_shaped_clutter_is_cut_from_its_own_box_as_other(tmp_path: Path) -> None:
    """Round 7: phones and notes, the clutter a detector takes for a card back, become
    "other" crops whether or not a detector fired on them."""
    import cv2
    import numpy as np

    from vision.render.negatives import clutter_quad, write_clutter_negatives

    mask = np.zeros((480, 640), np.float32)
    cv2.rectangle(mask, (100, 50), (139, 129), 1.0, -1)  # a 40 × 80 phone, upright
    sides = sorted(np.linalg.norm(np.roll(clutter_quad(mask), 1, 0) - clutter_quad(mask), axis=1))
    assert np.allclose(sides, [39, 39, 79, 79], atol=1.5)
    assert clutter_quad(np.zeros((480, 640), np.float32)) is None  # nothing in the frame

    saved = write_clutter_negatives(tmp_path, 4, 5, crop_size=96)
    crops = sorted((tmp_path / "symbol" / "train" / "other").glob("clutter*.png"))
    assert saved == len(crops) == 4
    assert {cv2.imread(str(c)).shape for c in crops} == {(96, 96, 3)}


def test_a_misspelt_stage_is_refused_before_any_work(tmp_path: Path, capsys) -> None:
    from referee.cli import main

    code = main(["vision", "train", "--stages", "symbol,detektor", "--work", str(tmp_path / "w")])
    assert code == 2
    assert "unknown training stage(s) detektor" in capsys.readouterr().err
    assert not (tmp_path / "w").exists()


def _scene_crop_folders(root: Path) -> dict[str, list[str]]:
    return {
        p.name: sorted(f.name for f in p.glob("*.png"))
        for p in (root / "symbol" / "train").iterdir()
        if any(p.glob("*.png"))
    }


def test_scene_crops_cut_every_card_and_file_detected_boxes_by_what_they_cover(
    tmp_path: Path,
) -> None:
    """A detected box on a card becomes a second crop of that card; a box on nothing becomes
    ``other``; every labelled card also gets a crop from its (jittered) true box."""
    import numpy as np

    from vision.decks import load_deck
    from vision.render.scene_crops import write_scene_crops
    from vision.render.scenes import render_scene
    from vision.runtime.detections import Detections
    from vision.runtime.rectify import quad_to_obb

    deck, styles, seed = load_deck("dos"), ("paper",), 9
    rng = np.random.default_rng(seed)  # the same first table write_scene_crops will draw
    scene = render_scene([deck], rng, styles, empty=rng.random() < 0.0)
    faces = [o for o in scene.objects if o.kind == "card"]
    assert faces
    first = faces[0]

    def detect(_bgr):  # "sees" the first face exactly, and a card off the table
        obb = np.array([quad_to_obb(first.quad), (-500.0, -500.0, 30.0, 45.0, 0.0)], np.float32)
        return Detections(obb, np.ones(2, np.float32), np.zeros(2, np.int64))

    made = write_scene_crops(tmp_path, detect, 1, seed, [deck], styles, "train", 0.0)
    folders = _scene_crop_folders(tmp_path)
    assert made == len(scene.objects) + 2 == sum(len(v) for v in folders.values())
    assert len(folders["other"]) == 1
    colour = first.meta["color"] or "none"
    k_true, k_detected = scene.objects.index(first), len(scene.objects)
    for k in (k_true, k_detected):  # its true box and the detected box
        name = f"t{seed}_00000_{k}.png"
        assert name in folders[first.meta["value"]]
        assert (tmp_path / "color" / "train" / colour / name).exists()
    assert not list((tmp_path / "color" / "train").glob("*/" + folders["other"][0]))


def test_round3_stages_run_classifiers_before_the_detector() -> None:
    """The round-3 classifier crops are cut with the detector of the round before, so the
    stage order (what ``train --seed 0`` runs) matches how the shipped files were made."""
    from vision.train import STAGES

    detector = STAGES.index("detector-round3")
    classifiers = ("symbol-round3", "color-round3", "symbol-round3-more", "color-round3-more")
    for stage in (*classifiers, "symbol-96"):
        assert STAGES.index(stage) < detector
    assert STAGES.index("detector-round3") + 1 == STAGES.index("detector-hires")


def test_corner_patches_are_cut_with_the_final_detector() -> None:
    from vision.train import STAGES

    assert STAGES.index("detector-hires") < STAGES.index("corner") < STAGES.index("corner-more")
    assert STAGES.index("corner-more") < STAGES.index("detector-fans")


ROUND5_CLASSIFIERS = (
    "symbol-round5",
    "corner-round5",
    "color-round5",
    "symbol-round5-fresh",
    "symbol-round5-more",
    "color-round5-more",
)


ROUND6 = (
    "symbol-round6",
    "color-round6",
    "detector-round6",
    "symbol-round6-more",
    "color-round6-more",
    "detector-round6-more",
)

ROUND7 = ("symbol-round7", "color-round7", "detector-round7")
ROUND8 = ("symbol-round8", "color-round8", "corner-round8", "symbol-round8-more")
ROUND9 = ("detector-round9",)
ROUND11 = ("detector-round11", "detector-soup")
ROUND13 = ("symbol-round13", "symbol-soup")
ROUND18 = ("symbol-round18", "symbol-soup18")


def test_rounds_5_to_13_come_last_and_go_on_from_the_crops_before_them() -> None:
    """Round 5's classifier stages go on over round 4's folders, so they run after the
    stages that made them; its last three add fresh crops cut with round 5's detector.
    Round 6's classifiers cut their new chunks with the detector before them (they trained
    beside the next detector stage), so each pair comes before its detector stage; so do
    round 7's. Round 8's stages cut their chunks with round 7's detector, the last one;
    rounds 9 and 11 train the detector on, and the shipped one lies between theirs; round
    13 trains the symbol model on from round 8's, and the shipped one lies between theirs;
    round 18 trains it on from that soup, and the shipped one lies between those two."""
    from vision.train import STAGES

    rounds = (*ROUND5_CLASSIFIERS, *ROUND6, *ROUND7, *ROUND8, *ROUND9, *ROUND11, *ROUND13)
    assert STAGES[-27:] == ("detector-long", *rounds, *ROUND18)


@pytest.mark.parametrize(
    ("stage", "offset", "images", "epochs", "mosaic_free"),
    [
        ("detector-long", 41, "det_long_images", "det_long_epochs", "det_long_close_mosaic"),
        (
            "detector-round6",
            51,
            "det_round6_images",
            "det_round6_epochs",
            "det_round6_close_mosaic",
        ),
        (
            "detector-round6-more",
            61,
            "det_round6_more_images",
            "det_round6_epochs",
            "det_round6_close_mosaic",
        ),
        (
            "detector-round7",
            71,
            "det_round7_images",
            "det_round6_epochs",
            "det_round6_close_mosaic",
        ),
        (
            "detector-round9",
            81,
            "det_round9_images",
            "det_round6_epochs",
            "det_round6_close_mosaic",
        ),
        (
            "detector-round11",
            91,
            "det_round11_images",
            "det_round6_epochs",
            "det_round6_close_mosaic",
        ),
    ],
)
def test_late_detector_stages_train_at_480_with_a_long_mosaic_free_tail(
    tmp_path: Path, monkeypatch, stage: str, offset: int, images: str, epochs: str, mosaic_free: str
) -> None:
    import vision.train as train

    calls: dict = {}

    def tables(folder: Path, n: int, seed: int, _decks) -> None:
        from vision.render.fonts import TRAIN_FONTS, training_fonts
        from vision.render.frames import frames_on

        calls["tables"] = (folder.name, n, seed)
        calls["framed"] = (frames_on(), training_fonts() != TRAIN_FONTS)

    def fit(data: Path, _out: Path, **kw) -> Path:
        calls["train"] = (data, kw)
        weights = tmp_path / "best.pt"
        weights.write_bytes(b"trained")
        return weights

    def export(_weights: Path, imgsz: int, dest: Path) -> Path:
        calls["export"] = imgsz
        return dest

    monkeypatch.setattr(data, "detector_tables", tables)
    monkeypatch.setattr(yolo, "train_detector", fit)
    monkeypatch.setattr(yolo, "export_onnx", export)
    models = tmp_path / "models"
    models.mkdir()
    plan = train.TrainPlan()
    train.run_plan(plan, tmp_path / "work", models, log=lambda _m: None, stages=(stage,))
    data_yaml, kw = calls["train"]
    folder = "detector-data-" + stage.removeprefix("detector-")
    assert data_yaml == tmp_path / "work" / folder / "data.yaml"
    assert kw["imgsz"] == plan.det_long_imgsz == 480
    # exported to run at the camera's shape, wider than it was trained at (round 14)
    assert calls["export"] == list(plan.det_run_hw) == [384, 512]
    assert kw["close_mosaic"] == getattr(plan, mosaic_free) > 1
    assert kw["epochs"] == getattr(plan, epochs)
    assert kw["model_cfg"] == str(models / "card-detector.pt")  # goes on from the shipped one
    assert calls["tables"] == (folder, getattr(plan, images), plan.seed * 1000 + offset)
    # rounds 9 and 11's tables carry printed frames in the wider typefaces; earlier ones
    # render as before
    assert calls["framed"] == (stage in ("detector-round9", "detector-round11"),) * 2
    assert (models / "card-detector.pt").read_bytes() == b"trained"


def test_scene_crops_can_be_cut_larger_for_a_larger_symbol_model(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    from vision.decks import load_deck
    from vision.render.scene_crops import write_scene_crops
    from vision.runtime.detections import Detections

    def detect(_bgr):
        return Detections(np.zeros((0, 5), np.float32), np.zeros(0, np.float32), np.zeros(0))

    made = write_scene_crops(
        tmp_path, detect, 2, 3, [load_deck("dos")], ("paper",), "val", 0.0, crop_size=96
    )
    files = list((tmp_path / "symbol" / "val").glob("*/*.png"))
    assert made == len(files) > 0
    assert {cv2.imread(str(f)).shape for f in files} == {(96, 96, 3)}


def test_rounds_5_to_8_classifier_stages_go_on_from_the_shipped_weights_at_their_own_rate(
    tmp_path: Path, monkeypatch
) -> None:
    import vision.train as train

    seen: dict[str, tuple] = {}

    def fit(root: Path, _out: Path, *, epochs: int, imgsz: int, name: str, **kw) -> Path:
        seen[name] = (
            root.relative_to(tmp_path / "work"),
            epochs,
            imgsz,
            kw["model_cfg"],
            kw["lr0"],
        )
        weights = tmp_path / f"{name}.pt"
        weights.write_bytes(name.encode())
        return weights

    renderers = (
        "render_crops96_fans",
        "render_crops96_fresh",
        "render_corner_patches",
        "render_corner_patches_round8",
    )
    for renderer in renderers:
        monkeypatch.setattr(data, renderer, lambda *a, **k: None)
    monkeypatch.setattr(yolo, "train_classifier", fit)
    monkeypatch.setattr(yolo, "export_onnx", lambda _w, _size, dest: dest)
    models = tmp_path / "models"
    models.mkdir()
    plan = train.TrainPlan()
    later = tuple(s for s in ROUND6 + ROUND7 + ROUND8 if not s.startswith("detector"))
    stages = (*ROUND5_CLASSIFIERS, *later)
    train.run_plan(plan, tmp_path / "work", models, log=lambda _m: None, stages=stages)
    symbol, corner, color = (str(models / f"card-{m}.pt") for m in ("symbol", "corner", "color"))
    assert seen == {
        "symbol-round5": (Path("crops96-fans/symbol"), 3, 96, symbol, plan.sym_round5_lr0),
        "corner-round5": (Path("corners-more/corner"), 4, 32, corner, plan.corner_round5_lr0),
        "color-round5": (Path("crops96-fans/color"), 2, 32, color, plan.col_round5_lr0),
        "symbol-round5-fresh": (Path("crops96-fresh/symbol"), 2, 96, symbol, plan.sym_fresh_lr0),
        "symbol-round5-more": (
            Path("crops96-fresh-more/symbol"),
            2,
            96,
            symbol,
            plan.sym_fresh_more_lr0,
        ),
        "color-round5-more": (
            Path("crops96-fresh-more/color"),
            2,
            32,
            color,
            plan.col_fresh_more_lr0,
        ),
        "corner-round8": (Path("corners-round8/corner"), 2, 32, corner, plan.corner_round5_lr0),
        "symbol-round8-more": (  # the symbol model alone
            Path("crops96-fresh-round8-more/symbol"),
            2,
            96,
            symbol,
            plan.sym_round6_lr0,
        ),
        **{  # from round 6 on: 2 epochs each over its own union, at round 6's rates
            f"{kind}-{later}": (
                Path(f"crops96-fresh-{later}/{kind}"),
                2,
                size,
                weights,
                rate,
            )
            for later in ("round6", "round6-more", "round7", "round8")
            for kind, size, weights, rate in (
                ("symbol", 96, symbol, plan.sym_round6_lr0),
                ("color", 32, color, plan.col_round6_lr0),
            )
        },
    }
    assert (models / "card-symbol.pt").read_bytes() == b"symbol-round8-more"  # the last one
    assert (models / "card-color.pt").read_bytes() == b"color-round8"


def _record_chunks_and_unions(
    monkeypatch,
) -> tuple[list[tuple[str, int, str]], dict[str, list[str]]]:
    """Stand-ins for ``render_chunks`` and ``union`` that only record what they were asked:
    (chunk folder, seed, worker) per chunk, and each union's parts."""

    rendered: list[tuple[str, int, str]] = []
    unions: dict[str, list[str]] = {}

    def render(_plan, _models, jobs, _size, _log, worker=data.scene_crop_chunk) -> None:
        rendered.extend((folder.name, seed, worker.__name__) for folder, _n, seed, _split in jobs)

    def union(out: Path, parts: list[Path]) -> Path:
        unions[out.name] = [p.name for p in parts]
        return out

    monkeypatch.setattr(data, "render_chunks", render)
    monkeypatch.setattr(data, "union", union)
    return rendered, unions


def test_fresh_crop_chunks_have_their_own_seeds_and_union(tmp_path: Path, monkeypatch) -> None:
    import vision.train as train

    rendered, unions = _record_chunks_and_unions(monkeypatch)
    monkeypatch.setattr(data, "render_crops96_fans", lambda *a: tmp_path / "crops96-fans")
    plan = train.TrainPlan()
    sizes = {
        "crops96-fresh": 2,
        "crops96-fresh-more": 4,
        "crops96-fresh-round6": 6,
        "crops96-fresh-round6-more": 8,
        "crops96-fresh-round7": 10,
        "crops96-fresh-round8": 12,
        "crops96-fresh-round8-more": 14,
    }
    for name in sizes:
        data.render_crops96_fresh(plan, tmp_path, tmp_path, [], print, name=name)
    chunks = [f"crops96-fresh-{i}" for i in range(1, 15)]
    base = plan.seed * 1000
    # chunks 1–10: seeds + 401 … 410; round 8's chunks skip the negatives' 411, 412 and
    # draw more typefaces
    seed_and_worker = [(base + 400 + i, "scene_crop_chunk") for i in range(1, 11)]
    seed_and_worker += [(base + 402 + i, "typeface_crop_chunk") for i in range(11, 15)]
    negatives = ("crops96-negatives", base + 411, "negatives_chunk")
    expected_renders = []
    for n in sizes.values():
        expected_renders += [(c, *seed_and_worker[i]) for i, c in enumerate(chunks[:n])]
        if n >= 10:  # round 7 and later
            expected_renders.append(negatives)  # (rendered once: a done chunk is kept)
    assert rendered == expected_renders
    expected = {name: ["crops96-fans", *chunks[:n]] for name, n in sizes.items()}
    for name, n in sizes.items():
        if n >= 10:
            expected[name].append("crops96-negatives")  # from round 7 on
    assert unions == expected


def test_fresh_chunks_never_render_the_negatives_tables() -> None:
    """Chunk i renders seed*1000 + 400 + i up to chunk 10; later chunks skip the two seeds
    round 7's negatives were cut from, however many chunks a plan asks for."""
    import vision.train as train

    plan = train.TrainPlan(seed=3)
    seeds = [data.fresh_chunk_seed(plan, i) for i in range(1, 41)]
    assert len(set(seeds)) == len(seeds)
    assert {3411, 3412}.isdisjoint(seeds)
    assert seeds[:10] == list(range(3401, 3411))
    assert seeds[10:12] == [3413, 3414]


def test_round8_corner_patches_add_two_typeface_chunks_to_round_4s(
    tmp_path: Path, monkeypatch
) -> None:
    import vision.train as train

    rendered, unions = _record_chunks_and_unions(monkeypatch)
    monkeypatch.setattr(data, "val_has_every_class", lambda root: root)
    plan = train.TrainPlan()
    data.render_corner_patches_round8(plan, tmp_path, tmp_path, print)
    base = plan.seed * 1000
    round4 = [(f"corners-{i}", base + 200 + i, "corner_chunk") for i in range(1, 5)]
    assert rendered == [
        *round4,
        ("corners-val", base + 229, "corner_chunk"),
        ("corners-5", base + 205, "typeface_corner_chunk"),
        ("corners-6", base + 206, "typeface_corner_chunk"),
    ]
    chunks = [f"corners-{i}" for i in range(1, 5)]
    assert unions == {
        "corners-more": [*chunks, "corners-val"],
        "corners-round8": [*chunks, "corners-val", "corners-5", "corners-6"],
    }


@pytest.mark.parametrize(
    ("soup", "ingredients", "alpha", "imgsz", "stem"),
    [
        ("detector-soup", (ROUND9[0], ROUND11[0]), "det_soup_alpha", [384, 512], "card-detector"),
        ("symbol-soup", (ROUND8[-1], ROUND13[0]), "sym_soup_alpha", 96, "card-symbol"),
        ("symbol-soup18", (ROUND13[1], ROUND18[0]), "sym_soup18_alpha", 96, "card-symbol"),
    ],
)
def test_a_soup_stage_ships_a_model_between_two_stages(
    tmp_path: Path,
    monkeypatch,
    soup: str,
    ingredients: tuple[str, str],
    alpha: str,
    imgsz: int | list[int],
    stem: str,
) -> None:
    """detector-soup lies between rounds 9 and 11's detectors, symbol-soup between rounds 8
    and 13's symbol models, symbol-soup18 between that soup and round 18's, each at its own
    plan field's distance from the first."""
    import vision.train as train

    calls: dict = {}

    def interpolate(before: Path, after: Path, alpha: float, dest: Path) -> Path:
        calls["mix"] = (before, after, alpha, dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(b"between")
        return dest

    def export(_weights: Path, imgsz: int, dest: Path) -> Path:
        calls["export"] = (imgsz, dest.name)
        return dest

    work, models = tmp_path / "work", tmp_path / "models"
    models.mkdir()
    assert train.SOUPS[soup] == (ingredients, alpha)
    for stage in ingredients:
        train.stage_weights(work, stage).parent.mkdir(parents=True)
        train.stage_weights(work, stage).write_bytes(stage.encode())
    monkeypatch.setattr(yolo, "interpolate_weights", interpolate)
    monkeypatch.setattr(yolo, "export_onnx", export)
    plan = train.TrainPlan()
    train.run_plan(plan, work, models, log=lambda _m: None, stages=(soup,))
    before, after = (work.resolve() / "train" / s / "weights" / "best.pt" for s in ingredients)
    assert calls["mix"] == (before, after, getattr(plan, alpha), train.stage_weights(work, soup))
    assert 0 < getattr(plan, alpha) < 1
    assert calls["export"] == (imgsz, f"{stem}.onnx")
    assert (models / f"{stem}.pt").read_bytes() == b"between"


@pytest.mark.parametrize(
    ("soup", "missing"),
    [
        ("detector-soup", "detector-round9, detector-round11"),
        ("symbol-soup", "symbol-round8-more, symbol-round13"),
        ("symbol-soup18", "symbol-soup, symbol-round18"),
    ],
)
def test_a_soup_stage_without_its_ingredients_is_refused_before_any_work(
    tmp_path: Path, soup: str, missing: str
) -> None:
    import vision.train as train

    with pytest.raises(train.PlanError, match=missing):
        train.run_plan(train.TrainPlan(), tmp_path / "work", tmp_path, stages=(soup,))
    assert not (tmp_path / "work").exists()


def test_the_plan_in_code_is_the_plan_recorded_with_the_shipped_models() -> None:
    """``train --seed 0`` reproduces the shipped files only if the plan it builds is the one
    they were trained with (models/cards-training.json records it with every run)."""
    import json
    from dataclasses import asdict

    from referee.cli import build_parser
    from vision.commands import train_plan
    from vision.runtime.reader import MODELS_DIR

    recorded = json.loads((MODELS_DIR / "cards-training.json").read_text())["plan"]
    plan = train_plan(build_parser().parse_args(["vision", "train", "--seed", "0"]))
    assert json.loads(json.dumps(asdict(plan))) == recorded
    # and the helpers the plan calls are still functions (a plan field of the same name once
    # replaced one)
    for name in ("balanced_crops", "union", "detector_tables", "render_chunks", "both_yaml"):
        assert callable(getattr(data, name)), name


def test_round13_chunks_draw_emblems_from_their_own_seeds_with_round7s_negatives(
    tmp_path: Path, monkeypatch
) -> None:
    import vision.train as train

    rendered, unions = _record_chunks_and_unions(monkeypatch)
    monkeypatch.setattr(data, "val_has_every_class", lambda root: root)
    plan = train.TrainPlan()
    data.render_round13_crops(plan, tmp_path, tmp_path, print)
    base = plan.seed * 1000
    chunks = [f"crops96-round13-{i}" for i in range(1, plan.sym_round13_chunks + 1)]
    assert rendered == [
        *((c, base + 430 + i, "emblem_crop_chunk") for i, c in enumerate(chunks, start=1)),
        ("crops96-round13-val", base + 439, "emblem_crop_chunk"),
        ("crops96-negatives", base + data.NEGATIVES_SEED_OFFSET, "negatives_chunk"),
    ]
    assert unions == {"crops96-round13": [*chunks, "crops96-round13-val", "crops96-negatives"]}
    # no chunk of any earlier round shares a seed with these
    earlier = {data.fresh_chunk_seed(plan, i) for i in range(1, 19)}
    assert earlier.isdisjoint(seed for _c, seed, _w in rendered[:-1])


def run_a_stage_over_round_13s_crops(tmp_path: Path, monkeypatch, stage: str) -> tuple:
    """Run one classifier stage over round 13's crops with training stubbed out; returns
    what each classifier was trained with, the crop renders asked for, the models folder
    and the plan."""
    import vision.train as train

    seen: dict[str, tuple] = {}
    rendered: list[str] = []

    def fit(root: Path, _out: Path, *, epochs: int, imgsz: int, name: str, **kw) -> Path:
        seen[name] = (root.relative_to(tmp_path / "work"), epochs, imgsz, kw)
        weights = tmp_path / f"{name}.pt"
        weights.write_bytes(name.encode())
        return weights

    monkeypatch.setattr(data, "render_round13_crops", lambda *a, **k: rendered.append("13"))
    monkeypatch.setattr(yolo, "train_classifier", fit)
    monkeypatch.setattr(yolo, "export_onnx", lambda _w, _size, dest: dest)
    models = tmp_path / "models"
    models.mkdir()
    plan = train.TrainPlan()
    train.run_plan(plan, tmp_path / "work", models, log=lambda _m: None, stages=(stage,))
    return seen, rendered, models, plan


def test_round13_symbol_model_goes_on_from_the_shipped_weights_over_the_emblem_crops(
    tmp_path: Path, monkeypatch
) -> None:
    seen, rendered, models, plan = run_a_stage_over_round_13s_crops(
        tmp_path, monkeypatch, ROUND13[0]
    )
    assert rendered == ["13"]
    assert {name: (*row[:3], row[3]["lr0"]) for name, row in seen.items()} == {
        "symbol-round13": (Path("crops96-round13/symbol"), 2, 96, plan.sym_round6_lr0),
    }
    assert "cos_lr" not in seen["symbol-round13"][3]
    assert (models / "card-symbol.pt").read_bytes() == b"symbol-round13"


def test_round18_symbol_model_goes_on_over_round_13s_crops_longer_faster_and_decayed(
    tmp_path: Path, monkeypatch
) -> None:
    """Round 18 renders nothing new: it fits round 13's crops better (4 epochs at 10× round
    13's rate, cosine-decayed), going on from the shipped (soup) weights."""
    seen, rendered, models, plan = run_a_stage_over_round_13s_crops(
        tmp_path, monkeypatch, ROUND18[0]
    )
    assert rendered == ["13"]  # the round-13 crops, cached when they exist
    assert seen == {
        "symbol-round18": (
            Path("crops96-round13/symbol"),
            4,
            96,
            {
                "seed": plan.seed,
                "threads": plan.threads,
                "model_cfg": str(models / "card-symbol.pt"),
                "lr0": 0.001,
                "cos_lr": True,
            },
        ),
    }
    assert plan.sym_round18_lr0 == 10 * plan.sym_round6_lr0
    assert (models / "card-symbol.pt").read_bytes() == b"symbol-round18"
