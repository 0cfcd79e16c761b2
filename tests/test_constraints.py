"""The install is pinned: `make` installs with models/constraints.txt, so the shipped models'
validation figures are read with the packages they were measured with (round 19 found an
unpinned install reading the same files 7 faces apart)."""

from __future__ import annotations

import functools
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
CONSTRAINTS = REPO / "models" / "constraints.txt"
# the packages whose version changes what a model reads, or how it is trained and quantized
MODEL_PACKAGES = (
    "numpy",
    "opencv-python-headless",
    "onnxruntime",
    "onnx",
    "torch",
    "torchvision",
    "ultralytics",
)


@functools.cache  # read once for all the parametrized tests
def pins() -> dict[str, Requirement]:
    lines = CONSTRAINTS.read_text().splitlines()
    reqs = [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]
    return {canonicalize_name(r.name): r for r in reqs}


def declared() -> list[Requirement]:
    """What pyproject.toml asks `make` to install: the runtime, `train` and `dev` (not `pi`,
    which only a Raspberry Pi installs)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    return [Requirement(s) for s in project["dependencies"] + extras["train"] + extras["dev"]]


def pinned_version(req: Requirement) -> str:
    (spec,) = req.specifier
    assert spec.operator == "==", f"{req} is not an exact pin"
    return spec.version


def test_every_constraint_is_an_exact_pin():
    assert len(pins()) > 50  # the whole install, dependencies of dependencies included
    for req in pins().values():
        pinned_version(req)


@pytest.mark.parametrize("req", declared(), ids=str)
def test_each_declared_dependency_is_pinned_inside_its_range(req: Requirement):
    pin = pins().get(canonicalize_name(req.name))
    assert pin is not None, f"{req.name} is in pyproject.toml but not in {CONSTRAINTS.name}"
    assert req.specifier.contains(pinned_version(pin), prereleases=True)


@pytest.mark.parametrize("name", MODEL_PACKAGES)
def test_the_packages_models_are_read_and_trained_with_are_at_their_pins(name: str):
    installed = version(name).split("+")[0]  # torch's local label (+cu130) names its build
    assert installed == pinned_version(pins()[canonicalize_name(name)])
