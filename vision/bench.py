"""Measure the pip reader on the labelled photos.

    python -m vision.bench [SETS...] [--tune | --calib] [--no-big] [--classifier ONNX...]
                           [--locator ONNX] [--repeat N]

By default both sets, held-out part (see vision/dataset.py); ``--tune`` measures
the tuning part instead, ``--calib`` its calibration images (the ones the crop
classifier was not trained on: how candidate networks are compared, with
``--classifier``, and candidate locators with ``--locator``). One core
(``cv2.setNumThreads(1)``). Each image is read ``--repeat`` times (3 unless told): the
time of its first read and of its fastest are both printed, since on a shared machine a
slower read is partly other programs' time.

Scoring: every listed die with a value is a claim; it is matched to a labelled
die when its centre lies inside that die's box grown by 25 % (each label takes
at most one reading, nearest first). A matched claim is right or wrong; a
matched die with value None is refused; a label with nothing matched is missed;
a claim matched to no label is extra; a refusal matched to no label is "stray" (the
table would ask for a re-roll for nothing). An image is fully right when every label
is read right and nothing is extra or stray.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.classify import CROP_SIDE, Classifier
from vision.dataset import SETS, LabelledImage, Part, load_set, with_photos
from vision.locate import WORK_SIDE, Locator
from vision.reader import PipReader
from vision.types import DieReading


@dataclass
class Score:
    dice: int = 0
    right: int = 0
    wrong: int = 0
    refused: int = 0
    missed: int = 0
    extra: int = 0
    stray: int = 0
    images: int = 0
    images_right: int = 0
    ms: list[float] = field(default_factory=list)  # per image, its first read
    fastest_ms: list[float] = field(default_factory=list)  # per image, its fastest read
    reads: int = 1  # reads of each image
    wrong_notes: list[str] = field(default_factory=list)
    doubt_notes: list[str] = field(default_factory=list)  # refused and missed dice
    refusals: Counter[str] = field(default_factory=Counter)  # reason -> dice refused for it


def grown(box: tuple[float, float, float, float], f: float = 0.25) -> tuple[float, ...]:
    x0, y0, x1, y1 = box
    dx, dy = (x1 - x0) * f / 2, (y1 - y0) * f / 2
    return (x0 - dx, y0 - dy, x1 + dx, y1 + dy)


def holds(box: tuple[float, ...], x: float, y: float) -> bool:
    """Whether the point (x, y) lies in the box (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    return x0 <= x <= x1 and y0 <= y <= y1


def score_image(img: LabelledImage, dice: tuple[DieReading, ...], sc: Score) -> None:
    labels = list(img.dice)
    pairs: list[tuple[float, int, int]] = []
    for j, d in enumerate(dice):
        for i, lab in enumerate(labels):
            if holds(grown(lab.bbox), d.center[0], d.center[1]):
                cx, cy = lab.center
                pairs.append((float(np.hypot(d.center[0] - cx, d.center[1] - cy)), i, j))
    pairs.sort()
    used_l: set[int] = set()
    used_d: set[int] = set()
    ok = True
    for _, i, j in pairs:
        if i in used_l or j in used_d:
            continue
        used_l.add(i)
        used_d.add(j)
        v = dice[j].value
        if v is None:
            sc.refused += 1
            sc.refusals[dice[j].reason] += 1
            ok = False
            sc.doubt_notes.append(
                f"{img.name}: refused ({dice[j].reason}), label {labels[i].value} at "
                f"({dice[j].center[0]:.0f},{dice[j].center[1]:.0f}) "
                f"conf {dice[j].confidence:.3f}"
            )
        elif v == labels[i].value:
            sc.right += 1
        else:
            sc.wrong += 1
            ok = False
            sc.wrong_notes.append(
                f"{img.name}: read {v}, label {labels[i].value} at "
                f"({dice[j].center[0]:.0f},{dice[j].center[1]:.0f}) "
                f"conf {dice[j].confidence:.3f}"
            )
    sc.dice += len(labels)
    sc.missed += len(labels) - len(used_l)
    for i, lab in enumerate(labels):
        if i not in used_l:
            cx, cy = lab.center
            sc.doubt_notes.append(f"{img.name}: missed, label {lab.value} at ({cx:.0f},{cy:.0f})")
    if len(labels) - len(used_l):
        ok = False
    for j, d in enumerate(dice):
        if j in used_d:
            continue
        if d.value is None:
            sc.stray += 1
            ok = False
            sc.wrong_notes.append(
                f"{img.name}: stray refusal ({d.reason}) at ({d.center[0]:.0f},{d.center[1]:.0f})"
            )
        else:
            sc.extra += 1
            ok = False
            sc.wrong_notes.append(
                f"{img.name}: extra {d.value} at ({d.center[0]:.0f},"
                f"{d.center[1]:.0f}) conf {d.confidence:.3f}"
            )
    sc.images += 1
    sc.images_right += int(ok)


def pct(a: int, b: int) -> str:
    return f"{a} ({100.0 * a / max(1, b):.1f} %)"


def run_set(reader: PipReader, set_name: str, part: Part, repeat: int = 1) -> Score:
    """Read every image of the part ``repeat`` times (the reading is the same each time;
    the first is scored), timing each read."""
    sc = Score(reads=repeat)
    for img in load_set(set_name, part):
        frame = img.read()
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            r = reader.read(frame)
            times.append((time.perf_counter() - t) * 1000.0)
            if len(times) == 1:
                reading = r
        sc.ms.append(times[0])
        sc.fastest_ms.append(min(times))
        score_image(img, reading.dice, sc)
    return sc


def report(set_name: str, part: str, sc: Score, verbose: int) -> None:
    ms = np.array(sc.ms)
    print(f"{set_name} [{part}]: {sc.images} images, {sc.dice} dice")
    print(f"  right   {pct(sc.right, sc.dice)}")
    print(f"  wrong   {pct(sc.wrong, sc.dice)}")
    print(f"  refused {pct(sc.refused, sc.dice)}, missed {pct(sc.missed, sc.dice)}")
    if sc.refusals:
        print("  refused as: " + ", ".join(f"{r} {n}" for r, n in sc.refusals.most_common()))
    print(f"  extra   {sc.extra}, stray refusals {sc.stray}")
    print(f"  images fully right {pct(sc.images_right, sc.images)}")
    if not sc.ms:  # a part with no image (a set of one photo has no held-out part)
        return
    print(f"  ms per image: median {np.median(ms):.1f}, p95 {np.percentile(ms, 95):.1f}")
    if sc.reads > 1:
        fast = np.array(sc.fastest_ms)
        print(
            f"  ms per image, fastest of its {sc.reads} reads: median {np.median(fast):.1f}, "
            f"p95 {np.percentile(fast, 95):.1f}"
        )
    if verbose:
        for n in sc.wrong_notes:
            print("   ", n)
    if verbose > 1:
        for n in sc.doubt_notes:
            print("   ", n)


def add_classifier_option(ap: argparse.ArgumentParser) -> None:
    """``--classifier ONNX...`` and ``--locator ONNX``: candidate networks (read by
    ``reader_with``)."""
    ap.add_argument(
        "--classifier",
        nargs="+",
        type=Path,
        help="crop networks to read with instead of the shipped ones (averaged)",
    )
    ap.add_argument(
        "--locator",
        type=Path,
        help="a locator network to find dice with instead of the shipped one",
    )


def reader_with(networks: list[Path] | None, locator: Path | None = None) -> PipReader | None:
    """A reader with the given crop networks and locator, or the shipped ones where none
    is given; None, and a one-line message, if a file is missing or is not a network of
    its kind."""
    given = [*(networks or ()), *([locator] if locator else [])]
    missing = [str(p) for p in given if not p.is_file()]
    if missing:
        print(f"no such network: {', '.join(missing)}", file=sys.stderr)
        return None
    try:
        reader = PipReader()
        if networks:
            reader.classifier = Classifier(networks)
            # a file that is no crop network fails here, not at the first photo
            reader.classifier.probabilities([np.full((CROP_SIDE, CROP_SIDE, 3), 128, np.uint8)])
        if locator:
            reader.locator = Locator(locator)
            # another network (the crop network, say) runs on the frame too, and would
            # fail later with a message about its output's use, not about the file
            maps, _ = reader.locator.maps(np.full((480, 640, 3), 128, np.uint8), WORK_SIDE)
            shape = maps.shape
            if len(shape) != 4 or shape[1] != 4:
                raise ValueError(f"not a locator: its output is {shape}, not 4 maps")
    except Exception as exc:  # not ONNX, another network's shape, a broken install
        what = ", ".join(str(p) for p in given) or "the shipped networks"
        why = " ".join(f"{type(exc).__name__}: {exc}".split())
        print(f"cannot use {what}: {why}", file=sys.stderr)
        return None
    return reader


def main(argv: list[str] | None = None) -> int:
    return with_photos("python -m vision.bench", _main, argv)


def _main(argv: list[str] | None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.bench", description=__doc__.split("\n")[0])
    ap.add_argument("sets", nargs="*", default=list(SETS), help=f"sets (default: {' '.join(SETS)})")
    part_arg = ap.add_mutually_exclusive_group()
    part_arg.add_argument(
        "--tune", action="store_true", help="measure the tuning part, not the held-out"
    )
    part_arg.add_argument(
        "--calib", action="store_true", help="measure the tuning part's calibration images"
    )
    ap.add_argument("--no-big", action="store_true", help="skip the 12-megapixel timing")
    ap.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="reads of each image (default 3); the first read's time and the fastest are "
        "both printed: on a shared machine a slower read is partly other work's time",
    )
    ap.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="list wrong, extra and stray readings; -vv also refused and missed dice",
    )
    add_classifier_option(ap)
    args = ap.parse_args(argv)
    if args.repeat < 1:
        print("--repeat must be 1 or more", file=sys.stderr)
        return 2
    unknown = [s for s in args.sets if s not in SETS]
    if unknown:  # before any set is read, not after the ones named before it
        print(f"unknown set {unknown[0]!r}; known: {', '.join(SETS)}", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    part: Part = "tune" if args.tune else "calib" if args.calib else "heldout"
    reader = reader_with(args.classifier, args.locator)
    if reader is None:
        return 2
    for s in args.sets:
        report(s, part, run_set(reader, s, part, args.repeat), args.verbose)
    # The recorded 12 MP figure is of a byler photo; a run on matteo alone times one of its.
    big_set = SETS[0] if SETS[0] in args.sets else args.sets[0]
    if not args.no_big and (some := load_set(big_set, part)):
        img = some[0]
        frame = img.read()
        big = np.asarray(cv2.resize(frame, (4000, 3000), interpolation=cv2.INTER_CUBIC), np.uint8)
        reader.read(big)
        times = []
        for _ in range(5):
            t = time.perf_counter()
            r = reader.read(big)
            times.append((time.perf_counter() - t) * 1000.0)
        print(
            f"12 MP frame (4000x3000, {img.name} upscaled): median {np.median(times):.1f} ms, "
            f"{len(r.dice)} dice listed, {sum(d.value is not None for d in r.dice)} read "
            f"(label has {len(img.dice)})"
        )
    crops = [np.full((CROP_SIDE, CROP_SIDE, 3), 128, np.uint8)] * 8
    reader.classifier.probabilities(crops)
    t = time.perf_counter()
    for _ in range(50):
        reader.classifier.probabilities(crops)
    per_crop = (time.perf_counter() - t) * 1000.0 / (50 * len(crops))
    print(f"crop network: {per_crop:.2f} ms a crop (batches of {len(crops)})")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"peak RSS {rss:.0f} MB; one core (cv2.setNumThreads(1))")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
