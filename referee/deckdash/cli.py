"""``tabletop dash check|find``: Deck Dash lay-down checks from the command line.

Light module: only argparse at import; the checker is imported inside the handlers.
Exit codes: 0 valid / found, 1 invalid / not found, 2 malformed input (message on
stderr). ``check --batch`` answers every line and exits 2 if any line was malformed,
else 0 (validity is in each line's answer).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from referee.jsonlines import DuplicateKeyError, json_problem, loads

EXIT_VALID, EXIT_INVALID, EXIT_MALFORMED = 0, 1, 2


class MalformedInput(ValueError):
    """Input the referee cannot read: bad level, Dash number or card token."""


def add_commands(sub: argparse._SubParsersAction) -> None:
    dash = sub.add_parser("dash", help="Deck Dash: check a lay-down or find one in a hand")
    dash_sub = dash.add_subparsers(dest="dash_command", required=True, metavar="ACTION")

    check = dash_sub.add_parser(
        "check",
        help="is exactly this set of cards the Dash? (JSON on stdout)",
        description="Check a laid Dash. Exit 0 valid, 1 invalid, 2 malformed input. "
        "With --batch: JSON lines on stdin, one answer line each; exit 2 if any line "
        "was malformed, else 0.",
    )
    _common(check, required=False)
    check.add_argument(
        "--batch",
        action="store_true",
        help='read JSON lines {"level": "easy", "dash": 6, "cards": ["R3", "W"]} from stdin',
    )
    check.set_defaults(handler=_run_check)

    find = dash_sub.add_parser(
        "find",
        help="the best lay-down of the Dash from a whole hand (the hint button)",
        description="Find the best lay-down (fewest Wilds) from a hand. "
        "Exit 0 found, 1 none, 2 malformed input.",
    )
    _common(find, required=True)
    find.set_defaults(handler=_run_find)


def _common(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument("--level", help="easy or advanced", required=required)
    parser.add_argument(
        "--dash", type=int, metavar="N", help="Dash number 1..12", required=required
    )
    parser.add_argument("cards", nargs="*", metavar="CARD", help="e.g. R7 G12 W (W = Wild)")


def _request(level: Any, number: Any, tokens: Any) -> tuple[Any, int, list[Any]]:
    """Validate level, Dash number and card tokens; MalformedInput names what is wrong."""
    from referee.cards import CardParseError, parse_card
    from referee.deckdash.dashes import get_dash, parse_level

    if level is None or number is None:
        raise MalformedInput("give --level easy|advanced and --dash N")
    try:
        lv = parse_level(level)
        get_dash(lv, number)
    except ValueError as exc:
        raise MalformedInput(str(exc)) from None
    if not isinstance(tokens, list):
        raise MalformedInput('"cards" must be a list of card tokens such as ["R7", "W"]')
    try:
        cards = [parse_card(t) for t in tokens]
    except CardParseError as exc:
        raise MalformedInput(str(exc)) from None
    return lv, number, cards


def _emit(obj: dict[str, Any], out: TextIO) -> None:
    out.write(json.dumps(obj) + "\n")


def _run_check(args: argparse.Namespace) -> int:
    from referee.deckdash.check import check_dash

    if args.batch:
        if args.level or args.dash is not None or args.cards:
            print("tabletop dash check: --batch reads everything from stdin", file=sys.stderr)
            return EXIT_MALFORMED
        return run_batch(sys.stdin, sys.stdout)
    try:
        level, number, cards = _request(args.level, args.dash, args.cards)
    except MalformedInput as exc:
        print(f"tabletop dash check: {exc}", file=sys.stderr)
        return EXIT_MALFORMED
    result = check_dash(level, number, cards)
    _emit(result.to_dict(), sys.stdout)
    return EXIT_VALID if result.valid else EXIT_INVALID


def run_batch(lines: TextIO, out: TextIO) -> int:
    """One answer line per input line, in order; blank lines are skipped."""
    from referee.deckdash.check import check_dash

    malformed = False
    for lineno, line in enumerate(lines, start=1):
        if lineno == 1:
            line = line.removeprefix("\ufeff")  # a file Windows Notepad saved starts with a BOM
        if not line.strip():
            continue
        try:
            try:
                item = loads(line)  # a key given twice is refused, not read as its last
            except DuplicateKeyError as exc:
                raise MalformedInput(str(exc)) from None
            except json.JSONDecodeError as exc:
                raise MalformedInput(f"not JSON ({exc.msg})") from None
            except RecursionError:
                raise MalformedInput("nested too deeply to be a request") from None
            except ValueError as exc:  # a number of over 4 300 digits (LOG-3)
                raise MalformedInput(f"not JSON ({json_problem(exc)})") from None
            if not isinstance(item, dict):
                raise MalformedInput('each line must be an object {"level", "dash", "cards"}')
            missing = [k for k in ("level", "dash", "cards") if k not in item]
            if missing:
                raise MalformedInput(f"missing {', '.join(repr(k) for k in missing)}")
            unknown = sorted(k for k in item if k not in ("level", "dash", "cards"))
            if unknown:  # a misspelt extra ("wilds") would be dropped without a word
                raise MalformedInput(f"unknown field {', '.join(repr(k) for k in unknown)}")
            _no_nulls(item)
            level, number, cards = _request(item["level"], item["dash"], item["cards"])
        except MalformedInput as exc:
            malformed = True
            _emit({"error": f"line {lineno}: {exc}"}, out)
            continue
        _emit(check_dash(level, number, cards).to_dict(), out)
        out.flush()
    return EXIT_MALFORMED if malformed else EXIT_VALID


def _no_nulls(item: dict[str, Any]) -> None:
    """A null field names the field: ``_request``'s "give --level" is about the flags."""
    wants = {"level": '"easy" or "advanced"', "dash": "a whole number 1..12"}
    for key, want in wants.items():
        if item[key] is None:
            raise MalformedInput(f'"{key}" must be {want}, not null')


def _run_find(args: argparse.Namespace) -> int:
    from referee.cards import format_cards
    from referee.deckdash.check import find_dash, missing_from_hand

    try:
        level, number, cards = _request(args.level, args.dash, args.cards)
    except MalformedInput as exc:
        print(f"tabletop dash find: {exc}", file=sys.stderr)
        return EXIT_MALFORMED
    found = find_dash(level, number, cards)
    if found is None:
        answer = {
            "found": False,
            "valid": False,
            "groups": [],
            "lay": [],
            "keep": format_cards(cards),
            "reason": missing_from_hand(level, number, cards),
        }
        _emit(answer, sys.stdout)
        return EXIT_INVALID
    keep = list(cards)
    laid = [card for group in found.groups for card in group.cards]
    for card in laid:
        keep.remove(card)
    answer = {
        "found": True,
        **found.to_dict(),
        "lay": format_cards(laid),
        "keep": format_cards(keep),
    }
    _emit(answer, sys.stdout)
    return EXIT_VALID
