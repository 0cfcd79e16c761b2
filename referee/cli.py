"""The one command-line entry point: ``tabletop …``.

Each package adds its own sub-commands through ``add_commands(subparsers)`` in a
light module; heavy imports (OpenCV, onnxruntime, Flask) happen inside the handlers
so that ``tabletop --help`` and the referee commands start fast.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import io
import os
import sys
from collections.abc import Iterable, Sequence
from types import ModuleType
from typing import Any, TextIO

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
# Standard output cannot take what a command writes (a full disk: ``> /dev/full``; no standard
# output at all: ``>&-``): sysexits.h's EX_IOERR, neither 0 ("all written") nor a command's own
# 1 or 2 (answers and malformed input), nor 141 (the reader left on purpose, CLI-3).
EXIT_CANNOT_WRITE = 74


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
    """Run one command. Standard output is watched while it runs (``_Output``): when it
    cannot take what the command writes, the command ends with one line on stderr and
    ``EXIT_CANNOT_WRITE``, not a traceback, whatever the command was writing."""
    streams = sys.stdout, sys.stderr
    output = _Output(sys.stdout)
    sys.stdout = output  # type: ignore[assignment]
    if sys.stderr is None:  # stderr closed (2>&-): print(file=None) would write to stdout
        sys.stderr = _Sink()
    try:
        return _watched(argv, output)
    finally:
        sys.stdout, sys.stderr = streams


def _watched(argv: Sequence[str] | None, output: _Output) -> int:
    code = 0
    try:
        try:
            code = _run(argv)
            output.flush()  # a full disk or a closed pipe is found here, not at exit
        except SystemExit:  # argparse's --help and usage errors
            with contextlib.suppress(OSError):  # recorded in output.error
                output.flush()
            if output.error is None:
                raise
        except BrokenPipeError:  # the reader went away (| head): nothing to say, nowhere to say it
            output.error = output.error or BrokenPipeError()
        except OSError:
            if output.error is None:  # not standard output's: the command's own slip
                raise
    except KeyboardInterrupt:  # Ctrl-C, also while the commands' modules still load
        return EXIT_INTERRUPTED
    if output.error is None:
        return code
    _discard(output.stream)  # what is still buffered goes nowhere at exit
    if isinstance(output.error, BrokenPipeError):
        return EXIT_BROKEN_PIPE
    _say(f"tabletop: cannot write the output: {output.error.strerror or output.error}")
    return EXIT_CANNOT_WRITE


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
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


class _Output:
    """Standard output as the commands see it: every write goes through, and the first that
    fails is remembered in ``error``, also when the command (or argparse) swallows it."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream: TextIO = _Closed() if stream is None else stream
        self.error: OSError | None = None

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except OSError as exc:
            self.error = self.error or exc
            raise

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as exc:
            self.error = self.error or exc
            raise

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, …
        return getattr(self.stream, name)


class _Closed(io.TextIOBase):
    """No standard output at all (``>&-``: Python's sys.stdout is None, and print() writes
    nothing): writing is an error, as it is to a closed file; a command that writes nothing
    is not stopped."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed")

    def fileno(self) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


class _Sink(io.TextIOBase):
    """No standard error (``2>&-``): what would be said there goes nowhere, not into
    standard output (print(file=None) writes to sys.stdout); the exit status still tells."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)


def _say(line: str) -> None:
    """``line`` on stderr; when stderr cannot take it either (closed, a full disk), nothing:
    the exit status says it, and Python's flush at exit finds nothing left to fail on."""
    try:
        print(line, file=sys.stderr, flush=True)
    except OSError:
        _discard(sys.stderr)


def _discard(stream: Any) -> None:
    """Point ``stream``'s file descriptor at the null device, so that what is still buffered
    goes nowhere at exit instead of failing again there ("Exception ignored … BrokenPipeError",
    exit 120): the recipe of Python's documentation (signal module, "Note on SIGPIPE")."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # no file descriptor (a test's capture)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
