"""Offline proof: a tiny Ultralytics training epoch, ONNX export and inference run with every
network call blocked, and not one is attempted.

Runs in a subprocess whose ``sitecustomize`` replaces the socket entry points with a guard that
logs and refuses any attempt; the test then asserts the log is empty.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

GUARD = textwrap.dedent(
    """
    import os
    import socket

    _LOG = os.environ["NET_GUARD_LOG"]

    def _blocked(name):
        def guard(*args, **kwargs):
            with open(_LOG, "a") as fh:
                fh.write(f"{name} {args!r:.200}\\n")
            raise OSError(f"network blocked by test ({name})")
        guard.net_guard = True
        return guard

    for _name in ("connect", "connect_ex"):
        setattr(socket.socket, _name, _blocked(_name))
    for _name in ("create_connection", "getaddrinfo", "gethostbyname"):
        setattr(socket, _name, _blocked(_name))
    """
)

SCRIPT = textwrap.dedent(
    """
    import json, socket, sys
    from pathlib import Path

    assert getattr(socket.create_connection, "net_guard", False), "guard not installed"
    work = Path(sys.argv[1])
    from vision.yolo import export_onnx, setup_offline, train_detector
    setup_offline(work / "cfg")
    from vision.decks import load_deck
    from vision.render.dataset import write_detector_dataset
    from vision.render.faces import TRAIN_STYLES
    data = write_detector_dataset(work / "det", 3, 1, 5, [load_deck("deck-dash")], TRAIN_STYLES)
    weights = train_detector(data, work / "out", epochs=1, imgsz=64, seed=0, batch=2)
    from ultralytics import YOLO
    image = sorted((work / "det" / "images" / "val").glob("*.jpg"))[0]
    torch_boxes = len(YOLO(str(weights)).predict(str(image), imgsz=64, verbose=False)[0].obb)
    onnx = export_onnx(weights, 64, work / "det.onnx")
    import cv2
    from vision.runtime.geometry import decode_obb, letterbox, to_tensor
    from vision.runtime.onnx_model import OnnxModel
    model = OnnxModel(onnx)
    boxed, _, _ = letterbox(cv2.imread(str(image)), model.imgsz)
    obb, scores, _ = decode_obb(model(to_tensor([boxed[..., ::-1]])), 0.001, 0.5)
    print(json.dumps({"weights": str(weights), "torch_boxes": torch_boxes,
                      "onnx_boxes": len(obb), "onnx_shape": model.input_shape}))
    """
)


def test_tiny_training_and_inference_make_no_network_attempt(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(GUARD)
    log = tmp_path / "net.log"
    env = dict(os.environ)
    env.update(
        PYTHONPATH=os.pathsep.join([str(site), str(REPO)]),
        NET_GUARD_LOG=str(log),
        YOLO_CONFIG_DIR=str(tmp_path / "cfg"),
        HOME=str(tmp_path / "home"),  # anything written to ~ would land here
    )
    env.pop("YOLO_OFFLINE", None)  # the code under test must set it itself
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "work")],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert Path(result["weights"]).is_file()
    assert result["onnx_shape"] == [1, 3, 64, 64]
    attempts = log.read_text() if log.exists() else ""
    assert attempts == "", f"network was attempted:\n{attempts}"
    # settings went to the project's config dir, not the user's home
    assert (tmp_path / "work" / "cfg" / "Ultralytics" / "settings.json").exists()
    assert not (tmp_path / "home" / ".config" / "Ultralytics").exists()
