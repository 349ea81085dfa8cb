"""Choose the reader's refusal thresholds on the calibration part of the tuning photos.

    python -m vision.train.calibrate

The classifier never trained on these photos (vision/dataset.py, ``index % 8 == 6``).
Prints, for candidate (SURE, AGREE) pairs, how many calibration dice would be
read right, wrong, or refused; the chosen pair goes into vision/reader.py by hand.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision import reader as R
from vision.bench import grown
from vision.classify import crop
from vision.dataset import SETS, load_set
from vision.pips import count_pips


def main() -> None:
    cv2.setNumThreads(1)
    rdr = R.PipReader()
    rows = []  # (set, conf, k, pip value, label value or 0 for unmatched, heat, p0)
    missed = {s: 0 for s in SETS}
    for set_name in SETS:
        for img in load_set(set_name, "calib"):
            frame = cv2.imread(str(img.path), cv2.IMREAD_COLOR)
            spots = rdr.locator.find(frame, R.SPOT_THRESHOLD)
            probs = rdr.classifier.probabilities([crop(frame, s.x, s.y, s.size) for s in spots])
            used = set()
            for s, p in zip(spots, probs, strict=True):
                k = int(np.argmax(p[1:])) + 1
                pv = count_pips(frame, s.x, s.y, s.size).value
                lab = 0
                for i, d in enumerate(img.dice):
                    x0, y0, x1, y1 = grown(d.bbox)
                    if i not in used and x0 <= s.x <= x1 and y0 <= s.y <= y1:
                        lab = d.value
                        used.add(i)
                        break
                rows.append((set_name, float(p[k]), k, pv or 0, lab, s.score, float(p[0])))
            missed[set_name] += len(img.dice) - len(used)
    for set_name in SETS:
        r = [x for x in rows if x[0] == set_name]
        n = sum(1 for x in r if x[4]) + missed[set_name]
        print(
            f"{set_name}: {n} dice, {missed[set_name]} not found by the locator, "
            f"{sum(1 for x in r if not x[4])} unmatched finds "
            f"({sum(1 for x in r if not x[4] and x[6] < 0.5)} the classifier reads)"
        )
        for sure in (0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 1.01):
            for agree in (0.5, 0.7, 0.8, 0.9, 0.95):
                if agree > sure:
                    continue
                right = wrong = extra = 0
                for _, conf, k, pv, lab, _heat, _p0 in r:
                    read = (conf >= sure and pv in (0, k)) or (conf >= agree and pv == k)
                    if not read:
                        continue
                    if lab == 0:
                        extra += 1
                    elif lab == k:
                        right += 1
                    else:
                        wrong += 1
                print(
                    f"  sure {sure:<6} agree {agree:<5} right {right:4d} "
                    f"({100 * right / n:5.1f} %) wrong {wrong:3d} ({100 * wrong / n:4.2f} %) "
                    f"extra {extra}"
                )
        wrongs = [x for x in r if x[4] and x[4] != x[2] and x[1] > 0.9]
        for x in wrongs:
            print("   confident wrong:", x)


if __name__ == "__main__":
    main()
