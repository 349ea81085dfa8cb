"""Make the demo's camera frames (``table/data/frames/``) from real dice photos.

Every frame is made of real photographs only: the background is a patch of an
empty stretch of the white board of ``byler_d6/images/IMG_20191208_112554.jpg``
(the part above and left of its one die), and each die is cut from a
``byler_d6`` photo by its label box with a margin (a die alone in its crop, on a
board of nearly the background's colour), then pasted with a feathered edge at
chosen places. The photos are Nell
Byler's (BSD-3-Clause, see ``shared/data/dice/byler_d6/LICENSE``). The cutting,
pasting and JPEG coding are ``vision.compose``'s (OpenCV stays in ``vision``); this
module chooses the dice and where they lie.

Which die photo stands for each value is chosen by the pip reader itself: for
each value the candidates are pasted alone and read; the first whose every
pair frame (all 21 pairs, the 6 single dice) the reader reads right is kept.
The chosen sources are written to ``table/data/frames/SOURCES.json``.

    python -m table.service.make_frames [--dice DIR] [--out DIR] [--sources SOURCES.json]

The reader that chooses has changed since the shipped frames were made, and today
it chooses other crops; ``--sources table/data/frames/SOURCES.json`` makes the
shipped frames again from the crops they were made of.

The frames: ``dice_HL.jpg`` (the pair H >= L, e.g. ``dice_63.jpg``, ``dice_21.jpg``),
``die_V.jpg`` (one die, for one-die tie-breaks) and ``empty.jpg`` (the empty tray).
"""

from __future__ import annotations

import argparse
import json
import sys
from itertools import combinations_with_replacement
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from table.hw.camera import SPOT_A, SPOT_B, pair_positions
from table.service.cli_run import folder_arg
from vision.compose import (
    MARGIN,
    DieCrop,
    Image,
    as_saved,
    cut_die,
    cut_patch,
    encode_jpeg,
    paste,
    ring_colour,
)
from vision.dataset import default_data_dir

if TYPE_CHECKING:
    from vision.dataset import LabelledImage

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "data" / "frames"
BACKGROUND = "images/IMG_20191208_112554.jpg"
BACKGROUND_BOX = (0, 0, 400, 300)  # x0, y0, x1, y1: the die of that photo lies outside
MAX_BOARD_DIFF = 45.0  # summed B, G, R difference of a crop's board from the background
JPEG_QUALITY = 92


def background(dice_dir: Path) -> Image:
    """The empty stretch of board every frame is made on."""
    return cut_patch(dice_dir / "byler_d6" / BACKGROUND, BACKGROUND_BOX)


def compose(bg: Image, crops: dict[int, DieCrop], dice: tuple[int, ...]) -> Image:
    if not dice:
        return bg.copy()
    if len(dice) == 1:
        return paste(bg, crops[dice[0]], SPOT_A[dice[0]])
    hi, lo = max(dice), min(dice)
    p1, p2 = pair_positions(hi, lo)
    return paste(paste(bg, crops[hi], p1), crops[lo], p2)


def all_throws() -> list[tuple[int, ...]]:
    pairs = [(h, lo) for lo, h in combinations_with_replacement(range(1, 7), 2)]
    return [*pairs, *[(v,) for v in range(1, 7)], ()]


def _overlaps(a: tuple[float, float, float, float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _labelled(dice_dir: Path) -> list[LabelledImage]:
    """The labelled photos of ``byler_d6`` (``vision.dataset.load_set``); a missing or
    broken manifest is one line and exit 1."""
    from vision.dataset import DatasetError, load_set

    try:
        return load_set("byler_d6", "all", dice_dir)
    except DatasetError as exc:
        raise SystemExit(f"make_frames: {exc}") from None


def candidates(dice_dir: Path, board: Image | None = None) -> dict[int, list[DieCrop]]:
    """Every labelled die of ``byler_d6`` whose crop holds no other die and whose
    surrounding board looks like the background patch (so the paste leaves no halo).
    Most alike first."""
    bg = board if board is not None else background(dice_dir)
    bg_colour = np.asarray(bg.reshape(-1, 3).mean(axis=0), np.float32)
    scored: dict[int, list[tuple[float, DieCrop]]] = {v: [] for v in range(1, 7)}
    for img in _labelled(dice_dir):
        file = img.path.relative_to(dice_dir / "byler_d6").as_posix()
        if file == BACKGROUND:
            continue
        for i, d in enumerate(img.dice):
            c = cut_die(dice_dir / "byler_d6", file, d.value, list(d.bbox))
            if c is None:
                continue
            x0, y0, x1, y1 = c.bbox
            m = MARGIN * max(x1 - x0, y1 - y0)
            area = (x0 - m, y0 - m, x1 + m, y1 + m)
            if any(j != i and _overlaps(area, list(o.bbox)) for j, o in enumerate(img.dice)):
                continue
            diff = float(np.abs(ring_colour(c) - bg_colour).sum())
            if diff < MAX_BOARD_DIFF:
                scored[c.value].append((diff, c))
    return {v: [c for _, c in sorted(cs, key=lambda x: x[0])] for v, cs in scored.items()}


class Readers:
    """The shipped pip reader, plus readers with other model files to be checked too."""

    def __init__(self, also: list[Path] | None = None) -> None:
        from vision.classify import Classifier
        from vision.locate import Locator
        from vision.reader import PipReader

        self.readers = [PipReader()]
        for folder in also or []:
            r = PipReader()
            if (folder / "locator.onnx").is_file():
                r.locator = Locator(folder / "locator.onnx")
            if (folder / "classifier.onnx").is_file():
                r.classifier = Classifier(folder / "classifier.onnx")
            self.readers.append(r)

    def read(self, frame: Image) -> list[Any]:
        saved = as_saved(frame, JPEG_QUALITY)
        return [r.read(saved) for r in self.readers]


def margin(readers: Readers, frame: Image, dice: tuple[int, ...]) -> float:
    """How surely every reader reads ``dice`` in the saved frame: the lowest die
    confidence, or -1 when any reads anything else."""
    want = tuple(sorted(dice, reverse=True))
    lowest = 1.0
    for r in readers.read(frame):
        if not (r.is_ok and r.values == want):
            return -1.0
        lowest = min(lowest, *(d.confidence for d in r.dice))
    return float(lowest)


def reads_as(readers: Readers, frame: Image, dice: tuple[int, ...]) -> bool:
    """Does every reader read exactly ``dice`` (or no die at all) in the saved frame?"""
    want = tuple(sorted(dice, reverse=True))
    return all((r.is_ok and r.values == want) if dice else not r.dice for r in readers.read(frame))


def choose(
    dice_dir: Path, log: Any = sys.stderr, also_models: list[Path] | None = None
) -> dict[int, DieCrop]:
    """For each value, a crop the reader reads right alone and in every throw.

    Starts with the crop of each value read most surely alone; while some
    throw is misread, the value in it whose crop has been swapped least moves on
    to its next candidate.
    """
    reader = Readers(also_models)
    bg = background(dice_dir)
    if not reads_as(reader, bg, ()):
        raise SystemExit("make_frames: the reader sees dice on the empty background")
    cands = candidates(dice_dir)
    alone: dict[int, list[DieCrop]] = {}
    for v, cs in cands.items():
        # Read alone at both places the value can lie; surest crops first.
        sure = [
            (min(margin(reader, paste(bg, c, spot), (v,)) for spot in (SPOT_A[v], SPOT_B[v])), c)
            for c in cs
        ]
        alone[v] = [c for m, c in sorted(sure, key=lambda x: -x[0]) if m >= 0]
        print(f"value {v}: {len(alone[v])} of {len(cs)} crops read right alone", file=log)
        if not alone[v]:
            raise SystemExit(f"make_frames: no crop of a {v} that the reader reads")
    index = {v: 0 for v in alone}
    while True:
        chosen = {v: alone[v][i] for v, i in index.items()}
        bad = [t for t in all_throws() if not reads_as(reader, compose(bg, chosen, t), t)]
        if not bad:
            return chosen
        print(f"misread: {bad}", file=log)
        movable = [v for v in set(bad[0]) if index[v] + 1 < len(alone[v])]
        if not movable:
            raise SystemExit(f"make_frames: no crops that read right in the throw {bad[0]}")
        v = min(movable, key=lambda x: (index[x], x))
        index[v] += 1


def recorded(dice_dir: Path, sources_file: Path) -> dict[int, DieCrop]:
    """The crops a ``SOURCES.json`` names, cut again from the labelled photos: the shipped
    frames are made again as they were, whichever crops the reader would choose today.
    The recorded boxes are rounded to 0.1 px; each is matched to its label's exact box."""
    try:
        data = json.loads(sources_file.read_text(encoding="utf-8"))
        dice = {
            int(v): (str(d["file"]), [float(x) for x in d["bbox"]]) for v, d in data["dice"].items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        # AttributeError: "dice" not a table of values ('list' object has no ... 'items')
        raise SystemExit(f"make_frames: cannot use {sources_file}: {exc}") from None
    short = [v for v, (_, box) in sorted(dice.items()) if len(box) != 4]
    if short:
        raise SystemExit(
            f"make_frames: cannot use {sources_file}: the {short[0]}'s bbox is not 4 numbers"
        )
    if sorted(dice) != [1, 2, 3, 4, 5, 6]:
        raise SystemExit(f"make_frames: {sources_file} does not name a die for each of 1-6")
    root = dice_dir / "byler_d6"
    labels = {img.path.relative_to(root).as_posix(): img.dice for img in _labelled(dice_dir)}
    chosen: dict[int, DieCrop] = {}
    for v, (file, box) in sorted(dice.items()):
        file = file.removeprefix("byler_d6/")
        exact = [
            list(d.bbox)
            for d in labels.get(file, ())
            if d.value == v and max(abs(a - b) for a, b in zip(d.bbox, box, strict=True)) < 0.06
        ]
        crop = cut_die(root, file, v, exact[0]) if exact else None
        if crop is None:
            raise SystemExit(f"make_frames: no labelled {v} at {box} in byler_d6/{file}")
        chosen[v] = crop
    return chosen


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m table.service.make_frames", description=__doc__)
    p.add_argument("--dice", type=Path, default=default_data_dir(), help="shared/data/dice")
    p.add_argument("--out", type=folder_arg, default=DEFAULT_OUT)
    p.add_argument(
        "--also-models",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="a folder with other locator/classifier .onnx files the frames must also suit",
    )
    p.add_argument(
        "--sources",
        type=Path,
        metavar="SOURCES.json",
        help="make the frames from the crops this file names (as shipped: "
        "table/data/frames/SOURCES.json) instead of choosing them anew",
    )
    args = p.parse_args(argv)
    if not (args.dice / "byler_d6" / "manifest.json").is_file():
        print(f"make_frames: no byler_d6 photos under {args.dice}", file=sys.stderr)
        return 2
    for folder in args.also_models:
        if not any((folder / n).is_file() for n in ("locator.onnx", "classifier.onnx")):
            print(
                f"make_frames: --also-models {folder}: no locator.onnx or classifier.onnx there",
                file=sys.stderr,
            )
            return 2
    from vision.sources import CameraError

    try:
        if args.sources is not None:
            chosen = recorded(args.dice, args.sources)
        else:
            chosen = choose(args.dice, also_models=args.also_models)
        bg = background(args.dice)
    except CameraError as exc:  # a labelled photo missing or unreadable
        raise SystemExit(f"make_frames: {exc}") from None
    from table.hw.camera import frame_name

    frames: dict[str, bytes] = {}
    try:
        for t in all_throws():
            frames[f"{frame_name(t)}.jpg"] = encode_jpeg(compose(bg, chosen, t), JPEG_QUALITY)
    except ValueError as exc:
        raise SystemExit(f"make_frames: {exc}") from None
    sources = {
        "made_by": "python -m table.service.make_frames",
        "license": "byler_d6 photos: nell-byler/dice_detection, BSD-3-Clause, (c) 2019 Nell Byler",
        "background": {"file": f"byler_d6/{BACKGROUND}", "box": list(BACKGROUND_BOX)},
        "dice": {
            str(v): {"file": f"byler_d6/{c.file}", "bbox": [round(x, 1) for x in c.bbox]}
            for v, c in sorted(chosen.items())
        },
    }
    try:  # a frame not written is an error, not a gap in the folder
        args.out.mkdir(parents=True, exist_ok=True)
        for name, jpeg in frames.items():
            (args.out / name).write_bytes(jpeg)
        (args.out / "SOURCES.json").write_text(json.dumps(sources, indent=1) + "\n")
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        raise SystemExit(
            f"make_frames: cannot write to {args.out} ({where}{exc.strerror or exc})"
        ) from None
    print(f"wrote {len(all_throws())} frames to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
