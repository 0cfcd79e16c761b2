"""A thin onnxruntime session wrapper that reads Ultralytics' metadata (class names, imgsz)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np


class OnnxModel:
    def __init__(self, path: str | Path, threads: int = 2) -> None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        # no busy-waiting between ops: on a shared (or Pi) CPU spinning threads burn a core
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.log_severity_level = 3
        self.path = Path(path)
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        self.input_shape = inp.shape  # e.g. [1, 3, 320, 320] or ['batch', 3, 64, 64]
        meta = self.session.get_modelmeta().custom_metadata_map
        self.names: dict[int, str] = (
            {int(k): str(v) for k, v in ast.literal_eval(meta["names"]).items()}
            if "names" in meta
            else {}
        )
        self.task = meta.get("task", "")
        size = self.input_shape[2]
        self.imgsz = int(size) if isinstance(size, int) else int(ast.literal_eval(meta["imgsz"])[0])
        self.fixed_batch = isinstance(self.input_shape[0], int)

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        if self.fixed_batch and len(batch) != self.input_shape[0]:
            return np.concatenate([self(batch[i : i + 1]) for i in range(len(batch))])
        return self.session.run(None, {self.input_name: batch})[0]
