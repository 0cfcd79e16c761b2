"""Benchmark: our ONNX runtime vs Ultralytics' PyTorch path on the same 640×480 frames.

Each path runs in its own subprocess (so peak memory is measured fairly and torch never
enters the ONNX process): process start → first result, frames per second, CPU seconds
per frame, peak resident memory. Both read cards fully: detect, rectify, classify.

    .venv/bin/python bench/vision.py [--frames 40] [--threads 2] [--json out.json]
        [--models DIR] [--float] [--turn-below P | --no-turn] [--rounds N]

Ours runs the int8 twins (``tabletop vision quantize``) when DIR has current ones, unless
``--float``. Both paths run the detector at the (height, width) our ONNX file was exported
to run at, and cut crops with the same ``rectify`` on the BGR frame. The CPU is
shared and noisy: ``--rounds N`` runs the pair N times back to back and reports the median
ratio (the table shows the last round), and whether the goals of docs/VISION.md are met
(throughput ≥ 2×, memory ≤ ⅓ of Ultralytics').
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
T0 = time.perf_counter()  # process start (close enough: before heavy imports)

from referee.cli_args import positive_int, thread_count  # noqa: E402


def _frames(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.jpg"))


def _measure(run_frame, paths: list[Path]) -> dict:
    import cv2

    frames = [cv2.imread(str(p)) for p in paths]
    run_frame(frames[0])
    first = time.perf_counter() - T0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    lat = []
    cards = 0
    for f in frames:
        t = time.perf_counter()
        cards += run_frame(f)
        lat.append(time.perf_counter() - t)
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    lat.sort()
    return {
        "frames": len(frames),
        "cards_read": cards,
        "fps": round(len(frames) / wall, 2),
        "median_ms": round(1000 * lat[len(lat) // 2], 1),
        "cpu_ms_per_frame": round(1000 * cpu / len(frames), 1),
        "start_to_first_result_s": round(first, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def worker_onnx(folder: Path, args: argparse.Namespace) -> dict:
    from vision.runtime.reader import CardReader, ReaderConfig

    config = ReaderConfig(
        threads=args.threads,
        turn_both_ways=not args.no_turn,
        turn_below=args.turn_below,
        int8=not args.float,
    )
    reader = CardReader(args.models, config=config)
    out = _measure(lambda f: len(reader(f)), _frames(folder))
    out["torch_loaded"] = "torch" in sys.modules or "ultralytics" in sys.modules
    models = (reader.detector, reader.symbol, reader.color, reader.corner)
    out["int8"] = [m.int8 for m in models if m is not None]
    out["detector_input_hw"] = list(reader.detector.input_hw)
    return out


def worker_torch(folder: Path, args: argparse.Namespace) -> dict:
    """Ultralytics' own path: .pt models, its predictor; one read per crop (no 180° turn)."""
    from vision.yolo import setup_offline

    setup_offline()
    import numpy as np
    import torch
    from ultralytics import YOLO

    from vision.runtime.corners import corner_patches
    from vision.runtime.reader import ReaderConfig
    from vision.runtime.rectify import crop_side, rectify

    cfg = ReaderConfig()  # the same detector thresholds as our reader
    torch.set_num_threads(args.threads)
    models = Path(args.models)
    det = YOLO(str(models / "card-detector.pt"), task="obb")
    sym = YOLO(str(models / "card-symbol.pt"), task="classify")
    col = YOLO(str(models / "card-color.pt"), task="classify")
    # each model at the input size our ONNX file runs at (the detector: the shape it was
    # exported to run at, which may be wider than it trained at); crops as our reader cuts
    det_hw = [int(x) for x in args.det_hw.split(",")]
    sym_imgsz = int(sym.overrides.get("imgsz", 64))
    col_imgsz = int(col.overrides.get("imgsz", 32))
    crop_size = crop_side(sym_imgsz, col_imgsz)
    # the corner model too, when shipped: the same four patches per card as our reader
    corner = None
    if (models / "card-corner.pt").is_file():
        corner = YOLO(str(models / "card-corner.pt"), task="classify")
        corner_imgsz = int(corner.overrides.get("imgsz", 32))

    def run(frame) -> int:
        r = det.predict(
            frame, imgsz=det_hw, conf=cfg.conf, iou=cfg.iou, verbose=False, device="cpu"
        )[0]
        boxes = r.obb.xywhr.numpy() if r.obb is not None else np.zeros((0, 5))
        if len(boxes) == 0:
            return 0
        crops = [rectify(frame, tuple(b), crop_size) for b in boxes]  # BGR, as Ultralytics takes
        s = sym.predict(crops, imgsz=sym_imgsz, verbose=False, device="cpu")
        col.predict(crops, imgsz=col_imgsz, verbose=False, device="cpu")
        unsure = [c for c, x in zip(crops, s, strict=True) if x.probs.top1conf < cfg.corner_below]
        if corner is not None and unsure:  # as ours: corners only for unsure readings
            patches = [p for c in unsure for p in corner_patches(c, corner_imgsz)]
            corner.predict(patches, imgsz=corner_imgsz, verbose=False, device="cpu")
        return sum(1 for x in s if sym.names[int(x.probs.top1)] != "other")

    out = _measure(run, _frames(folder))
    out["detector_input_hw"] = [int(x) for x in det.predictor.imgsz]  # as Ultralytics ran it
    return out


def render_frames(folder: Path, n: int, seed: int) -> None:
    import cv2
    import numpy as np

    from vision.decks import all_decks
    from vision.render.faces import TRAIN_STYLES
    from vision.render.scenes import render_scene

    rng = np.random.default_rng(seed)
    decks = all_decks()
    for i in range(n):
        scene = render_scene(decks, rng, TRAIN_STYLES)
        cv2.imwrite(str(folder / f"{i:04d}.jpg"), cv2.cvtColor(scene.image, cv2.COLOR_RGB2BGR))


THROUGHPUT_GOAL = 2.0  # ours at least twice Ultralytics' frames per second (docs/VISION.md)
MEMORY_GOAL = 1 / 3  # and at most a third of its peak memory


def goal_lines(summary: dict) -> list[str]:
    """The ratios against Ultralytics' run (the baseline, same frames, same machine) and
    whether each meets docs/VISION.md's goal."""
    fps, mem = summary["throughput_ratio"], summary["memory_ratio"]
    rounds = summary["rounds"]
    return [
        f"throughput ours / PyTorch {fps:.2f}x (median of {rounds} rounds), goal ≥ 2x: "
        + ("met" if fps >= THROUGHPUT_GOAL else "NOT met"),
        f"peak memory ours / PyTorch {mem:.3f} (last round), goal ≤ 1/3: "
        + ("met" if mem <= MEMORY_GOAL else "NOT met"),
    ]


def main() -> int:
    from vision.runtime.reader import ReaderConfig

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=positive_int, default=40)
    ap.add_argument("--threads", type=thread_count, default=2)
    ap.add_argument("--seed", type=int, default=424242)
    ap.add_argument("--json")
    ap.add_argument("--rounds", type=positive_int, default=1, help="run the pair this many times")
    ap.add_argument("--models", default=str(REPO / "models"), help="float, int8 and .pt models")
    ap.add_argument("--float", action="store_true", help="ours ignores int8 twins")
    ap.add_argument(
        "--no-turn",
        action="store_true",
        help="ours reads each crop once, like the PyTorch path (default: unsure ones both ways)",
    )
    ap.add_argument(
        "--turn-below",
        type=float,
        default=ReaderConfig.turn_below,
        help="ours re-reads turned the crops read with less confidence (1.0: every crop)",
    )
    ap.add_argument("--worker", choices=["onnx", "torch"], help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    ap.add_argument("--det-hw", help=argparse.SUPPRESS)  # "H,W": our detector's input shape
    args = ap.parse_args()
    if args.worker:
        fn = worker_onnx if args.worker == "onnx" else worker_torch
        print(json.dumps(fn(Path(args.folder), args)))
        return 0
    from vision.runtime.onnx_model import OnnxModel

    det_hw = OnnxModel(Path(args.models) / "card-detector.onnx").input_hw
    worker_args = [
        "--det-hw",
        f"{det_hw[0]},{det_hw[1]}",
        "--threads",
        str(args.threads),
        "--models",
        args.models,
        "--turn-below",
        str(args.turn_below),
        *(["--no-turn"] if args.no_turn else []),
        *(["--float"] if args.float else []),
    ]
    rounds: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        render_frames(Path(tmp), args.frames, args.seed)
        for _ in range(args.rounds):  # the pair back to back, so both see the same load
            results = {}
            for name in ("onnx", "torch"):
                proc = subprocess.run(
                    [sys.executable, __file__, "--worker", name, "--folder", tmp, *worker_args],
                    capture_output=True,
                    text=True,
                    env=dict(os.environ),
                    check=False,
                )
                if proc.returncode != 0:
                    print(proc.stderr[-2000:], file=sys.stderr)
                    return 1
                results[name] = json.loads(proc.stdout.strip().splitlines()[-1])
            rounds.append(results)
    o, t = rounds[-1]["onnx"], rounds[-1]["torch"]
    rows = [("", "onnxruntime (ours)", "Ultralytics PyTorch")]
    for key in (
        "fps",
        "median_ms",
        "cpu_ms_per_frame",
        "start_to_first_result_s",
        "peak_rss_mb",
        "cards_read",
    ):
        rows.append((key, str(o[key]), str(t[key])))
    for r in rows:
        print(f"{r[0]:<26}{r[1]:>20}{r[2]:>22}")
    fps_ratios = [r["onnx"]["fps"] / r["torch"]["fps"] for r in rounds]
    cpu_ratios = [r["torch"]["cpu_ms_per_frame"] / r["onnx"]["cpu_ms_per_frame"] for r in rounds]
    summary = {
        "throughput_ratio": round(statistics.median(fps_ratios), 2),
        "throughput_ratio_per_round": [round(x, 2) for x in fps_ratios],
        "cpu_per_frame_ratio": round(statistics.median(cpu_ratios), 2),
        "memory_ratio": round(o["peak_rss_mb"] / t["peak_rss_mb"], 3),
        "onnx_process_loaded_torch": o["torch_loaded"],
        "threads": args.threads,
        "ours_reads_both_ways": not args.no_turn,
        "ours_turn_below": None if args.no_turn else args.turn_below,
        "ours_int8": o["int8"],
        "models": args.models,
        "detector_input_hw": list(det_hw),  # both paths
        "frames": args.frames,
        "rounds": args.rounds,
    }
    print("\n".join(goal_lines(summary)))
    print(json.dumps(summary))
    if args.json:
        out = {"results": rounds[-1], "rounds": rounds, "summary": summary}
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
