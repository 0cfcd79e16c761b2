"""The torch-free runtime: onnxruntime + numpy + OpenCV only (no Ultralytics, no torch)."""
