"""The one command-line entry point: ``tabletop …``.

Each package adds its own sub-commands through ``add_commands(subparsers)`` in a
light module; heavy imports (OpenCV, onnxruntime, Flask) happen inside the handlers
so that ``tabletop --help`` and the referee commands start fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

# Modules that contribute sub-commands. Each defines add_commands(subparsers).
COMMAND_MODULES = (
    "referee.commands",
    "vision.commands",
    "hardware.commands",
    "web.commands",
)

# Top-level modules of the `train` extra (pyproject.toml). A runtime-only install (`make run`,
# a Raspberry Pi) lacks them: the commands that train, export or teach then say what to
# install instead of ending in a traceback.
TRAIN_EXTRA_MODULES = frozenset(
    {"ultralytics", "torch", "torchvision", "onnx", "PIL", "matplotlib"}
)
TRAIN_EXTRA_HINT = "pip install -c models/constraints.txt -e '.[train]' (make test installs it)"

# Exit statuses of a command ended from outside, as the shell reports a program a signal ended
# (128 + the signal's number): Ctrl-C (SIGINT), and a reader that closed the pipe (SIGPIPE:
# ``tabletop replay LOG | head -1``), as for cat, seq or grep; neither is 0 ("done, all
# written") nor a command's own 1 or 2 (``dash find``'s "no Dash", a malformed input).
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


def optional_module(name: str) -> ModuleType | None:
    """Import ``name``, or None when it (or its package) does not exist yet."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and name.startswith(exc.name):
            return None
        raise


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tabletop", description="Tabletop Referee: referees physical card games."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = optional_module(name)
        if module is not None:
            module.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _run(argv)
    except KeyboardInterrupt:  # Ctrl-C, also while the commands' modules still load
        return EXIT_INTERRUPTED


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = int(args.handler(args) or 0)
        if sys.stdout is not None:
            sys.stdout.flush()  # a closed pipe is found here, not in Python's flush at exit
        return code
    except BrokenPipeError:  # the reader went away (| head): nothing to say, nowhere to say it
        _discard_stdout()
        return EXIT_BROKEN_PIPE
    except ModuleNotFoundError as exc:
        top = (exc.name or "").split(".")[0]
        if top not in TRAIN_EXTRA_MODULES and not top.startswith("font_"):  # font packages
            raise
        print(
            f"tabletop {args.command}: this command needs the training extra, which is not"
            f" installed (no module {exc.name!r}): {TRAIN_EXTRA_HINT}",
            file=sys.stderr,
        )
        return 2


def _discard_stdout() -> None:
    """Point standard output at the null device, so that what is still buffered goes nowhere
    at exit instead of failing again there ("Exception ignored … BrokenPipeError", exit 120):
    the recipe of Python's documentation (signal module, "Note on SIGPIPE")."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # no file descriptor (a test's capture)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
