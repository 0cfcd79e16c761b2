"""Our torch-free decoding matches Ultralytics' own PyTorch predictions on the shipped model."""

from __future__ import annotations

import numpy as np
import pytest

from vision.decks import all_decks
from vision.render.faces import TRAIN_STYLES
from vision.render.scenes import render_scene
from vision.runtime.geometry import probiou
from vision.runtime.reader import MODELS_DIR, CardReader, ReaderConfig
from vision.train import TrainPlan


@pytest.fixture(scope="module")
def frames() -> list[np.ndarray]:
    rng = np.random.default_rng(900_002)
    decks = all_decks()
    return [render_scene(decks, rng, TRAIN_STYLES).image[..., ::-1].copy() for _ in range(3)]


def test_onnx_detector_matches_ultralytics_pytorch(frames) -> None:
    from vision.yolo import setup_offline

    setup_offline()
    from ultralytics import YOLO

    torch_model = YOLO(str(MODELS_DIR / "card-detector.pt"), task="obb")
    reader = CardReader(
        config=ReaderConfig(conf=0.4, iou=0.5, int8=False, fast_nms=True, fuse_iou=None)
    )  # float parity, with Ultralytics' own NMS rule and boxes; int8: test_vision_quantize.py
    # the shape the shipped detector was exported to run at (wider than it was trained at)
    hw = list(reader.detector.input_hw)
    assert hw == list(TrainPlan().det_run_hw)
    assert torch_model.overrides["imgsz"] == TrainPlan().det_long_imgsz < hw[1]
    compared = 0
    for frame in frames:
        ours = reader.detect(frame)
        res = torch_model.predict(frame, imgsz=hw, conf=0.4, iou=0.5, rect=False, verbose=False)[0]
        theirs = res.obb.xywhr.numpy().astype(np.float32)
        assert len(ours) == len(theirs)
        if len(theirs) == 0:
            continue
        iou = probiou(ours.obb, theirs)
        assert (iou.max(1) > 0.95).all()
        compared += len(theirs)
        conf = res.obb.conf.numpy()
        assert np.allclose(np.sort(ours.confidence), np.sort(conf), atol=0.02)
    assert compared > 0
