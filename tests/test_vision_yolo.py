"""Ultralytics helpers that need no training: weight interpolation between two checkpoints."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from vision.yolo import interpolate_weights


def _checkpoint(path: Path, value: float, batches: int) -> Path:
    """A checkpoint shaped like Ultralytics' (``{"model": module, …}``), every weight ``value``."""
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4)).half()
    with torch.no_grad():
        for t in model.state_dict().values():
            if t.is_floating_point():
                t.fill_(value)
    model[1].num_batches_tracked.fill_(batches)
    torch.save({"model": model, "epoch": batches}, path)
    return path


def test_interpolated_weights_lie_between_the_two_checkpoints(tmp_path: Path) -> None:
    before = _checkpoint(tmp_path / "before.pt", 1.0, 10)
    after = _checkpoint(tmp_path / "after.pt", 3.0, 20)
    for alpha, expected in ((0.0, 1.0), (0.5, 2.0), (1.0, 3.0)):
        dest = interpolate_weights(before, after, alpha, tmp_path / f"mix{alpha}" / "best.pt")
        got = torch.load(dest, map_location="cpu", weights_only=False)
        state = got["model"].state_dict()
        for name, t in state.items():
            if t.is_floating_point():
                assert t.dtype == torch.float16
                assert torch.all(t == expected), name
        assert int(state["1.num_batches_tracked"]) == 20  # counters: the later model's
        assert got["epoch"] == 20  # the rest of the checkpoint: the later model's


def test_checkpoints_of_different_shapes_do_not_mix(tmp_path: Path) -> None:
    before = tmp_path / "before.pt"
    torch.save({"model": torch.nn.Conv2d(3, 8, 3)}, before)
    after = tmp_path / "after.pt"
    torch.save({"model": torch.nn.Conv2d(3, 4, 3)}, after)
    with pytest.raises(ValueError, match="not the same architecture"):
        interpolate_weights(before, after, 0.5, tmp_path / "mix.pt")
