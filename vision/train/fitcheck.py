"""How sure a crop network is of the labelled dice, cut at their label boxes.

    python -m vision.train.fitcheck [--classifier A.onnx ...]

For the fit photos (the crop network's training photos) and the calibration photos
(which it has not seen), per set: the share of dice whose value gets at least 0.99
and at least 0.5, and, over the dice under 0.99, the mean probability left on "not a
die" and on the other values. A network as unsure of its training dice as of unseen
ones is short of room or of steps, not only of photos (TRAINING.md).
"""

from __future__ import annotations

import argparse

import numpy as np

from vision.bench import add_classifier_option, reader_with
from vision.classify import crop
from vision.dataset import SETS, with_photos
from vision.train.common import load_tuning


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train.fitcheck")
    add_classifier_option(ap)
    args = ap.parse_args(argv)
    reader = reader_with(args.classifier, args.locator)
    if reader is None:
        return 2
    clf = reader.classifier
    for part in ("fit", "calib"):
        photos = load_tuning(part)
        for set_name in SETS:
            probs = []
            for ph in photos:
                if not ph.name.startswith(f"{set_name}/") or not len(ph.values):
                    continue
                crops = [
                    crop(ph.image, float(c[0]), float(c[1]), float(s))
                    for c, s in zip(ph.centers, ph.sizes, strict=True)
                ]
                p = clf.probabilities(crops)
                probs += [(p[i, v], p[i, 0]) for i, v in enumerate(ph.values)]
            a = np.array(probs)
            doubt = a[a[:, 0] < 0.99]
            print(
                f"{part:5} {set_name:14} {len(a):4} dice: >= 0.99 {np.mean(a[:, 0] >= 0.99):.1%}, "
                f">= 0.5 {np.mean(a[:, 0] >= 0.5):.1%}; under 0.99 ({len(doubt)}): "
                f"not a die {doubt[:, 1].mean() if len(doubt) else 0:.3f}, "
                f"other values {(1 - doubt.sum(axis=1)).mean() if len(doubt) else 0:.3f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(with_photos("python -m vision.train.fitcheck", main, None))
