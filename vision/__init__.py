"""Vision: frames in, card observations out.

Kept import-light on purpose: heavy modules (OpenCV, onnxruntime, Ultralytics) load only in the
sub-modules that need them, so ``import vision`` costs nothing for the referee or the web app.
"""
