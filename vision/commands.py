"""``tabletop vision …`` sub-commands. Light module: heavy imports live inside the handlers."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _train(args: argparse.Namespace) -> int:
    from vision.train import TrainPlan, run_plan

    plan = TrainPlan(
        seed=args.seed,
        det_train=args.det_images,
        det_val=max(8, args.det_images // 8),
        crops_val=max(60, args.crops // 10),
        det_epochs=args.det_epochs,
        crops_train=args.crops,
        sym_epochs=args.sym_epochs,
        col_epochs=args.col_epochs,
        threads=args.threads,
    )
    work = Path(args.work) if args.work else Path("runs") / f"train-seed{args.seed}"
    run_plan(plan, work, Path(args.models), log=lambda m: print(m, flush=True))
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    vision = sub.add_parser("vision", help="recognise cards: train, export, identify, evaluate")
    vsub = vision.add_subparsers(dest="vision_command", required=True, metavar="ACTION")

    tr = vsub.add_parser("train", help="render data and train the card models (Ultralytics, CPU)")
    tr.add_argument("--seed", type=int, default=0)
    tr.add_argument("--work", help="working folder for data and runs (default runs/train-seedN)")
    tr.add_argument("--models", default="models", help="where the ONNX/.pt files go")
    tr.add_argument("--det-images", type=int, default=500)
    tr.add_argument("--det-epochs", type=int, default=24)
    tr.add_argument("--crops", type=int, default=6000)
    tr.add_argument("--sym-epochs", type=int, default=15)
    tr.add_argument("--col-epochs", type=int, default=5)
    tr.add_argument("--threads", type=int, default=1)
    tr.set_defaults(handler=_train)


if __name__ == "__main__":  # pragma: no cover - convenience
    import referee.cli

    sys.exit(referee.cli.main(["vision", *sys.argv[1:]]))
