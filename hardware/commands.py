"""``tabletop hw …``: test, record and replay the table's pads and buttons; show the pin map.

Light module: gpiozero and the device code are imported inside the handlers.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from referee.cli_args import bounce_pairs, nonempty_path, replay_speed, seconds

if TYPE_CHECKING:
    from hardware.padlog import PadLog, ReplayCheck, ReplayOutcome
    from hardware.table import Table


def _config(args: argparse.Namespace):  # -> HardwareConfig
    from hardware.config import load_config

    return load_config(args.config)


def _open(args: argparse.Namespace):  # -> Table
    from hardware.table import Table

    config = _config(args)
    return Table.open(config, "virtual" if args.mock else None)


def _errors() -> tuple[type[BaseException], ...]:
    from hardware.config import PinMapError
    from hardware.padlog import PadLogError
    from hardware.table import HardwareError

    # OverflowError: a backstop for a number too large for the clock or time.sleep
    return (PinMapError, HardwareError, PadLogError, ValueError, OSError, OverflowError)


def _why(exc: BaseException, path: str, verb: str) -> str:
    """The error in words: the log file's own OSError as ``tabletop replay`` and ``log -o``
    word it ("cannot read FILE: No such file or directory"), not "[Errno 2] …: 'FILE'"."""
    if isinstance(exc, OSError) and exc.filename is not None and Path(exc.filename) == Path(path):
        return f"cannot {verb} {path}: {exc.strerror or exc}"
    return str(exc)


def _test(args: argparse.Namespace) -> int:
    from functools import partial

    from hardware.hwtest import parse_script, press_from_lines, run_hw_test

    try:
        with _open(args) as table:
            script = feeder = None
            if args.script is not None:
                if not table.is_virtual:
                    print("tabletop hw test: --script needs virtual pads (--mock)", file=sys.stderr)
                    return 2
                script = parse_script(args.script, table)
            elif table.is_virtual:
                print("virtual pads: type 'SEAT pad' or 'SEAT call' + Enter to press")
                feeder = partial(press_from_lines, table, sys.stdin, sys.stdout)
            return run_hw_test(
                table,
                sys.stdout,
                timeout_s=args.timeout,
                script=script,
                bounces=args.bounce,
                feeder=feeder,
            )
    except _errors() as exc:
        # standard output's own (the CLI's ``_Output`` remembers it): a closed pipe is 141
        # silently, a full disk 74 in one line (CLI-3, CLI-5), not a pin or config error
        if exc is getattr(sys.stdout, "error", None):
            raise
        print(f"tabletop hw test: {exc}", file=sys.stderr)
        return 2


def _record(args: argparse.Namespace) -> int:
    from hardware.hwtest import parse_script, play_script
    from hardware.padlog import PadRecorder

    out = Path(args.out)
    if out.is_file():  # a recording cannot be made again: never write over one
        print(f"tabletop hw record: {args.out} exists already: name another file", file=sys.stderr)
        return 2
    if out.exists() and not out.is_dir():  # a folder: "cannot write … Is a directory" below
        print(
            f"tabletop hw record: {args.out} is not a regular file (a pipe or a device): "
            "a pad log is written to a file",
            file=sys.stderr,
        )
        return 2
    try:
        with _open(args) as table:
            script = None
            if args.script is not None:  # checked before the file is made: a retry may use it
                if not table.is_virtual:
                    print("tabletop hw record: --script needs --mock", file=sys.stderr)
                    return 2
                script = parse_script(args.script, table)
            elif table.is_virtual and not args.mock:
                print(f"tabletop hw record: {_nothing_to_record(table)}", file=sys.stderr)
                return 2
            with PadRecorder(table, args.out) as rec:
                table.bus.subscribe(
                    lambda e: print(f"seat {e.seat} {e.device} t={e.t_ns}", file=sys.stderr)
                )
                if script is not None:
                    play_script(table, script, bounces=args.bounce, stop=rec.failed)
                elif not rec.failed.is_set():
                    print(
                        f"recording {_pads(table)} for {args.seconds:g} s to {args.out} …",
                        file=sys.stderr,
                    )
                    rec.failed.wait(args.seconds)  # a write that fails ends it at once
    except _errors() as exc:
        print(f"tabletop hw record: {_why(exc, args.out, 'write')}", file=sys.stderr)
        return 2
    if rec.error is not None:
        return _recording_failed(args.out, rec.error, rec.edges_written)
    return 0


def _pads(table: Table) -> str:
    """Which pads a recording hears: the table's, or the virtual ones ``--mock`` asked for
    (no dashboard here to tap them, as ``Table.describe`` says for ``serve``)."""
    return "virtual pads (--mock)" if table.is_virtual else table.describe()


def _nothing_to_record(table: Table) -> str:
    """Why virtual pads the user did not ask for (no ``--mock``) cannot be recorded: no
    script and no dashboard presses them, so the file would hold a header and no edge."""
    why = (
        'the config sets mode = "virtual"'
        if table.config.mode == "virtual"
        else "no /dev/gpiochip* on this machine"
    )
    return (
        f"the pads are virtual ({why}) and nothing would press them: record at the table, "
        "or play presses with --mock --script"
    )


def _recording_failed(path: str, error: OSError, edges: int) -> int:
    """A write to the pad log failed (a full disk): one line, exit 2 as ``log -o`` does for a
    file it cannot write. What was recorded stays, cut back to whole lines (a recording is
    evidence); a file with no edge in it is removed, so that a retry may use its name."""
    if edges:
        kept = f"recording stopped after {edges} edge{'s' if edges != 1 else ''}, kept in the file"
    else:
        Path(path).unlink(missing_ok=True)
        kept = "nothing was recorded"
    print(
        f"tabletop hw record: cannot write {path}: {error.strerror or error} ({kept})",
        file=sys.stderr,
    )
    return 2


def _replay(args: argparse.Namespace) -> int:
    from hardware.padlog import check_replay, read_pad_log, replay_pad_log

    try:
        log = read_pad_log(args.log)
        outcome = replay_pad_log(log, None if args.fast else args.speed)
    except _errors() as exc:
        print(f"tabletop hw replay: {_why(exc, args.log, 'read')}", file=sys.stderr)
        return 2
    for warning in log.warnings:  # a recording cut short: what came before it is replayed
        print(f"tabletop hw replay: warning: {warning}", file=sys.stderr)
    check = check_replay(log, outcome)
    unjudged = _fake_outs_unjudged(log)
    if args.json:
        out = {**outcome.to_dict(), **check.to_dict()}
        if unjudged is not None:  # not judged: no empty list that reads as "none"
            out["fake_outs"] = out["late_slaps"] = None
        print(json.dumps(out))
    else:
        _print_outcome(log, outcome, unjudged)
        _print_check(check)
    return 1 if check.identical is False else 0


def _print_outcome(log: PadLog, outcome: ReplayOutcome, unjudged: str | None) -> None:
    """What the replay judged: the counts, each race's decision, the fake-outs and the late
    slaps (after a race's window: the referee's call depends on turn actions the log lacks)."""
    late = len(outcome.late_slaps)
    fakes = unjudged or f"{len(outcome.fake_outs)} fake-outs" + (
        f", {late} late slap{'s' if late != 1 else ''}" if late else ""
    )
    print(
        f"{len(log.edges)} edges → {len(outcome.events)} presses, "
        f"{len(outcome.decisions)} races, {fakes}"
    )
    for d in outcome.decisions:
        print(f"  {d.kind}: {d.reason}")
    if unjudged is not None:
        return
    for e in outcome.fake_outs:
        print(f"  fake-out: seat {e.seat} slapped with no card at t={e.t_ns}")
    for slap in outcome.late_slaps:
        e = slap.press
        print(
            f"  late slap: seat {e.seat} at t={e.t_ns}, after the window of the race at "
            f"t={slap.race_t_ns}: the referee ignores it, unless a turn action came between "
            "(then it is a fake-out, HTD-17)"
        )


def _fake_outs_unjudged(log: PadLog) -> str | None:
    """Why the log's slaps cannot be judged as fake-outs, or None: a fake-out is a slap with
    no Hand card (HW-5), and a log without last-slapper marks (what ``hw record`` writes)
    does not say where the cards were, so every slap would read as one."""
    if any(m.race == "last_slapper" for m in log.marks):
        return None
    marks = "no race marks" if not log.marks else "no last-slapper race marks"
    return f"{marks}: fake-outs not judged"


def _print_compared(what: str, differ: Sequence[str], compared: int, unit: str) -> None:
    """``WHAT identical to the recording (N UNIT)``, or the first ten differences."""
    if not differ:
        print(f"{what} identical to the recording ({compared} {unit})")
        return
    print(f"{what.upper()} DIFFER on {len(differ)} of {compared} {unit}:")
    for line in differ[:10]:
        print(f"  {line}")
    if len(differ) > 10:
        print(f"  … and {len(differ) - 10} more")


def _print_check(check: ReplayCheck) -> None:
    """The verdict in words, one line per thing compared; never "identical" for nothing."""
    if check.identical is None:
        print("nothing to compare: the log holds no accepted flags and no decisions")
        return
    if check.edges_compared:
        _print_compared("accepted presses", check.edge_differences, check.edges_compared, "edges")
    if check.decisions_same is not None:
        _print_compared("decisions", check.decision_differences, check.decisions_compared, "races")
        if check.decisions_not_recorded:
            n = check.decisions_not_recorded
            print(f"  ({n} replayed race{'s' if n != 1 else ''} with no recorded decision)")


def _pins(args: argparse.Namespace) -> int:
    """The map as it will be opened, and where it came from: a service unit naming another
    file than the one edited shows here, not as dead pads."""
    from hardware.config import PinMapError, find_config

    try:
        config = _config(args)
        file = find_config(args.config)
    except PinMapError as exc:
        print(f"tabletop hw pins: {exc}", file=sys.stderr)
        return 2
    print(f"config {file}" if file is not None else "(no config file: the default map)")
    print(f"mode {config.mode}, pull-up {config.pull_up}, debounce {config.debounce_ms:g} ms")
    factory = config.pin_factory or "gpiozero's default (lgpio)"
    free = ", ".join(f"BCM{p}" for p in config.free_pins) or "none"
    print(f"pin factory {factory}, free pins {free}")
    for seat in config.seats:
        pins = ", ".join(f"{d} BCM{p}" for d, p in seat.to_dict().items())
        print(f"  seat {seat.seat}: {pins}")
    print(f"  buzzer: BCM{config.buzzer}" if config.buzzer is not None else "  buzzer: none")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    hw = sub.add_parser("hw", help="slap pads, call buttons, LEDs and buzzer")
    hws = hw.add_subparsers(dest="hw_command", required=True, metavar="HW_COMMAND")

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--config",
            type=nonempty_path,
            help="config file with a [hardware] section (tabletop.toml)",
        )
        p.add_argument("--mock", action="store_true", help="virtual pads instead of GPIO")

    t = hws.add_parser("test", help="press every pad and button; see it named and timed")
    common(t)
    t.add_argument("--script", help="virtual presses to play: 'all' or '0:pad,1:call'")
    t.add_argument("--bounce", type=bounce_pairs, default=0, help="bounce pairs per scripted press")
    t.add_argument(
        "--timeout", type=seconds, default=120.0, help="seconds to wait (default 120, most a week)"
    )
    t.set_defaults(handler=_test)

    r = hws.add_parser("record", help="record pad/button edges to a JSON-lines pad log")
    common(r)
    r.add_argument("out", help="pad log to write (.jsonl)")
    r.add_argument("--seconds", type=seconds, default=60.0, help="how long to record (most a week)")
    r.add_argument("--script", help="with --mock: presses to play and record")
    r.add_argument("--bounce", type=bounce_pairs, default=0, help="bounce pairs per scripted press")
    r.set_defaults(handler=_record)

    p = hws.add_parser("replay", help="replay a pad log on mock pins and re-judge its races")
    p.add_argument("log", help="pad log (.jsonl)")
    p.add_argument(
        "--speed",
        type=replay_speed,
        default=1.0,
        help="pace factor, 0.01 to 1000 (2 = twice as fast)",
    )
    p.add_argument("--fast", action="store_true", help="as fast as possible")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")
    p.set_defaults(handler=_replay)

    m = hws.add_parser("pins", help="validate and print the pin map")
    m.add_argument(
        "--config",
        type=nonempty_path,
        help="config file with a [hardware] section (tabletop.toml)",
    )
    m.set_defaults(handler=_pins)
