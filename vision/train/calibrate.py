"""Choose the reader's refusal thresholds on the calibration part of the tuning photos.

    python -m vision.train.calibrate [--classifier candidate.onnx ...]

The classifier never trained on these photos (vision/dataset.py, ``index % 8 == 6``).
Prints how many calibration dice would be read right, wrong, or listed where no
die is (extra) for candidate thresholds: first (SURE, AGREE) on the single crop,
then (VIEWS_SURE, VIEWS_AGREE) on the mean of four rotations for the dice the
single crop leaves in doubt. Both are decided by the reader's own rules
(``_first_look``, ``_views_read``). The chosen values go into vision/reader.py by hand.
"""

from __future__ import annotations

import argparse

import cv2
import numpy as np

from vision import reader as R
from vision.bench import add_classifier_option, grown, holds, reader_with
from vision.classify import crop
from vision.dataset import SETS, load_set, with_photos
from vision.pips import PipCount, count_pips

ROT = (None, cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE)


def collect(rdr: R.PipReader, set_name: str) -> tuple[list[tuple[int, np.ndarray, int]], int]:
    """Per locator find: (label value or 0, (4, 7) probabilities per rotation, pip value or 0)."""
    rows = []
    n = 0
    for img in load_set(set_name, "calib"):
        frame = img.read()
        spots = rdr.locator.find(frame, R.SPOT_THRESHOLD)
        crops = [crop(frame, s.x, s.y, s.size) for s in spots]
        views = [c if r is None else cv2.rotate(c, r) for c in crops for r in ROT]
        probs = rdr.classifier.probabilities(views).reshape(len(crops), len(ROT), 7)
        used: set[int] = set()
        n += len(img.dice)
        for s, p in zip(spots, probs, strict=True):
            lab = 0
            # The nearest unused label whose grown box holds the find (boxes of dice that
            # touch overlap): as the bench matches.
            near = sorted(
                (float(np.hypot(s.x - d.center[0], s.y - d.center[1])), i)
                for i, d in enumerate(img.dice)
                if i not in used and holds(grown(d.bbox), s.x, s.y)
            )
            if near:
                i = near[0][1]
                lab = img.dice[i].value
                used.add(i)
            rows.append((lab, p, count_pips(frame, s.x, s.y, s.size).value or 0))
    return rows, n


def tally(rows, n, sure, agree, vsure=None, vagree=None) -> str:
    right = wrong = extra = 0
    for lab, p, pv in rows:
        k = R._value(p[0])
        pips = PipCount((), pv or None, 0.0)
        read = R._first_look(p[0], pips, sure, agree)
        if not read and vsure is not None and vagree is not None:
            m = p.mean(axis=0)
            k = R._value(m)
            read = R._views_read(m, pips, vsure, vagree)
        if not read:
            continue
        if lab == 0:
            extra += 1
        elif lab == k:
            right += 1
        else:
            wrong += 1
    return (
        f"right {right:4d} ({100 * right / n:5.1f} %) wrong {wrong:3d} "
        f"({100 * wrong / n:4.2f} %) extra {extra}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train.calibrate")
    add_classifier_option(ap)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    rdr = reader_with(args.classifier, args.locator)
    if rdr is None:
        return 2
    for set_name in SETS:
        rows, n = collect(rdr, set_name)
        print(f"{set_name}: {n} dice, {sum(1 for r in rows if r[0])} found")
        for sure in (0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998):
            for agree in (0.8, 0.9, 0.95):
                print(f"  sure {sure:<6} agree {agree:<5} {tally(rows, n, sure, agree)}")
        for vsure in (0.8, 0.9, 0.95, 0.98, 0.99):
            for vagree in (0.7, 0.8, 0.9):
                line = tally(rows, n, R.SURE, R.AGREE, vsure, vagree)
                print(f"  then four views: sure {vsure:<5} agree {vagree:<4} {line}")

    return 0


if __name__ == "__main__":
    raise SystemExit(with_photos("python -m vision.train.calibrate", main, None))
