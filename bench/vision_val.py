"""Choose between model folders on the validation tables, never on the evaluation sets.

Every round since round 5 chose its files here: faces read right (colour and value) on
rendered validation tables in the training styles and in the held-out style `ticket` (from
round 12 also in `badge`, a third held-out style drawn for validation only), and
frames with a false card on empty validation tables, all with the shipped reader defaults
(int8 twins where fresh, confidence floor 0.3). The sets' seeds are never used in training
and differ from the evaluation sets' (7001–7005), which are read once, after the choice.
Sets are rendered once into ``--data`` (as ``tabletop vision render`` would) and reused.

    .venv/bin/python bench/vision_val.py models runs/models-NEW [...] [--data runs/val] [--more]
    .venv/bin/python bench/vision_val.py models models@iou=0.55,conf=0.35

The first folder is the baseline; every other row also shows its change in faces read.
A folder may carry reader settings after ``@`` (``ReaderConfig`` fields), so a reading rule
is chosen on the same tables and in the same table as model files are.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from math import comb
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


@dataclass(frozen=True)
class ValSet:
    """One validation set: ``kind`` (and ``style``) as ``tabletop vision render --kind``
    (``--style``) takes them."""

    kind: str  # scenes | heldout | empty
    seed: int
    n: int
    style: str | None = None  # one art style instead of the kind's own

    @property
    def name(self) -> str:
        return f"{self.style or self.kind}-{self.seed}"


# 150 + 150 tables (rounds 5–10), 200 + 200 more (from round 9, when candidates landed
# within 2 faces on the first pair), and 450 empty tables
VALIDATION_SETS = (
    ValSet("scenes", 7101, 150),
    ValSet("heldout", 7102, 150),
    ValSet("scenes", 7111, 200),
    ValSet("heldout", 7112, 200),
    # round 12: a third held-out style, so choices about transfer rest on more than `ticket`
    ValSet("scenes", 7121, 200, style="badge"),
    ValSet("empty", 7103, 150),
    ValSet("empty", 7203, 300),
)
# round 14 (--more): a choice among seven detector input shapes on the sets above picked a
# winner that lost on the evaluation sets; these further tables check a pick before it ships
MORE_SETS = (
    ValSet("scenes", 7131, 200),
    ValSet("heldout", 7132, 200),
    ValSet("scenes", 7141, 150, style="badge"),
    ValSet("empty", 7133, 100),
)


def render_set(data: Path, val: ValSet) -> Path:
    """The set's folder under ``data``, rendered unless a complete copy is there."""
    from vision.decks import load_deck
    from vision.render import cache
    from vision.render.dataset import write_eval_dataset
    from vision.render.faces import HELDOUT_STYLE, TRAIN_STYLES

    root = data / f"{val.name}-n{val.n}"
    style = {"style": val.style} if val.style else {}  # the older sets' recipes stay as they were
    wanted = cache.recipe(kind=f"validation-{val.kind}", seed=val.seed, n=val.n, **style)
    if cache.begin(root, wanted):
        decks = [load_deck(d) for d in ("deck-dash", "dos", "hit-the-deck")]
        if val.style:
            styles: tuple[str, ...] = (val.style,)
        else:
            styles = (HELDOUT_STYLE,) if val.kind == "heldout" else TRAIN_STYLES
        write_eval_dataset(root, val.n, val.seed, decks, styles, empty=val.kind == "empty")
        cache.finish(root, wanted)
    return root


@dataclass(frozen=True)
class SetScore:
    faces: int
    read: int  # faces whose colour and value were both right
    false_frames: int  # frames holding a box that matches no labelled card
    read_ids: frozenset[str] = frozenset()  # which faces were read right (evaluate's ids)


def reader_spec(spec: str) -> tuple[Path, dict[str, float | bool | None]]:
    """``FOLDER[@field=value,...]`` → the folder and its ``ReaderConfig`` overrides; values
    are numbers, ``true``/``false`` or ``none``. An unknown field is an error, not a no-op."""
    from dataclasses import fields

    from vision.runtime.reader import ReaderConfig

    folder, _, settings = spec.partition("@")
    known = {f.name for f in fields(ReaderConfig)}
    overrides: dict[str, float | bool | None] = {}
    for item in filter(None, settings.split(",")):
        key, eq, text = item.partition("=")
        if not eq or key not in known:
            raise ValueError(f"{item!r}: expected FIELD=VALUE with FIELD one of {sorted(known)}")
        low = text.lower()
        words = {"true": True, "false": False, "none": None}
        overrides[key] = words[low] if low in words else float(text)
    return Path(folder), overrides


def score_models(
    models: Path, roots: dict[str, Path], **overrides: float | bool | None
) -> dict[str, SetScore]:
    """Each set's score for one models folder, with the shipped reader defaults unless
    ``overrides`` (``ReaderConfig`` fields) says otherwise."""
    from dataclasses import replace

    from vision.evaluate import evaluate
    from vision.runtime.reader import CardReader, ReaderConfig

    reader = CardReader(models, config=replace(ReaderConfig(), **overrides))
    scores = {}
    for name, root in roots.items():
        rep = evaluate(root, reader)
        scores[name] = SetScore(
            rep.faces, rep.identity_correct, rep.frames_with_false_card, frozenset(rep.read_faces)
        )
    return scores


def sign_test_p(gained: int, lost: int) -> float:
    """Two-sided exact sign test: how often faces flipped at random (each way equally likely)
    split at least this unevenly. It covers these tables only, not training's own spread:
    two seeds of one recipe read 10 validation faces apart (round 16)."""
    n = gained + lost
    if n == 0:
        return 1.0
    tail = sum(comb(n, k) for k in range(min(gained, lost) + 1)) / 2**n
    return min(1.0, 2 * tail)


def table(rows: Mapping[str | Path, Mapping[str, SetScore]], sets: tuple[ValSet, ...]) -> str:
    """Faces read per face set and in all; false-card frames over the empty sets. Each row
    after the first also counts the faces it reads that the first does not, and the reverse:
    a net +10 made of 12 gained and 2 lost is a change, one made of 60 and 50 mostly churn
    (round 14 picked a winner among seven candidates on one set that lost on more tables);
    ``p`` is that split's sign test (``sign_test_p``)."""
    face_sets = [s for s in sets if s.kind != "empty"]
    empty_sets = [s for s in sets if s.kind == "empty"]
    first = next(iter(rows.values()))
    heads = [f"{s.name} ({first[s.name].faces})" for s in face_sets]
    faces = sum(first[s.name].faces for s in face_sets)
    frames = sum(s.n for s in empty_sets)
    heads += [f"faces read ({faces})", "gained / lost", "p (sign)", f"false frames ({frames})"]
    width = max(len(str(m)) for m in rows)
    lines = [f"{'models':<{width}}  " + "  ".join(heads)]
    baseline: int | None = None
    for models, scores in rows.items():
        read = sum(scores[s.name].read for s in face_sets)
        false = sum(scores[s.name].false_frames for s in empty_sets)
        cells = [f"{scores[s.name].read:>{len(h)}}" for s, h in zip(face_sets, heads, strict=False)]
        change = "" if baseline is None else f" ({read - baseline:+d})"
        flips = p = ""
        if baseline is not None:
            pairs = [(scores[s.name].read_ids, first[s.name].read_ids) for s in face_sets]
            gained = sum(len(mine - base) for mine, base in pairs)
            lost = sum(len(base - mine) for mine, base in pairs)
            flips, p = f"+{gained} / -{lost}", f"{sign_test_p(gained, lost):.2f}"
        baseline = read if baseline is None else baseline
        tail = (str(read) + change, flips, p, false)
        cells += [f"{cell:>{len(head)}}" for cell, head in zip(tail, heads[-4:], strict=True)]
        lines.append(f"{models!s:<{width}}  " + "  ".join(cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "models",
        nargs="+",
        help="models folders, each optionally @field=value,... (ReaderConfig); the first is "
        "the baseline",
    )
    ap.add_argument("--data", type=Path, default=REPO / "runs" / "val", help="rendered sets")
    ap.add_argument(
        "--more", action="store_true", help="the further round-14 sets instead (2 007 faces)"
    )
    args = ap.parse_args(argv)
    try:
        specs = {spec: reader_spec(spec) for spec in args.models}
    except ValueError as err:
        ap.error(str(err))
    sets = MORE_SETS if args.more else VALIDATION_SETS
    roots = {s.name: render_set(args.data, s) for s in sets}
    rows = {spec: score_models(folder, roots, **kw) for spec, (folder, kw) in specs.items()}
    print(table(rows, sets))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
