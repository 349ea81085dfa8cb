"""Finding dice: a small fully convolutional network run by ``cv2.dnn``.

The network looks at the frame shrunk so that its long side is ``WORK_SIDE``
pixels (more for frames wider than ``REF_SIDE``: ``work_sides``, unless a first look
at ``WORK_SIDE`` finds dice big enough to be read so: ``Locator.find``) and predicts, on a
grid ``STRIDE`` times coarser, a centre heat map, a sub-cell offset and the die size.
Large dice (a close camera) are found by a second pass on a four times smaller copy
of the frame, so the die size is always measured, never assumed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.nets import read_onnx

WORK_SIDE = 256
COARSE_SIDE = 64
STRIDE = 4
PAD = 16
# Normalisation shared with training: (pixel - MEAN) * SCALE.
MEAN = 128.0
SCALE = 1.0 / 64.0
MODEL_PATH = Path(__file__).resolve().parent / "models" / "locator.onnx"

# Frames up to REF_SIDE wide are looked at with WORK_SIDE and COARSE_SIDE; wider ones
# (up to MAX_K times) with both sides grown in proportion, so that a die the fine pass can
# find is as many frame pixels across (about 20) in a 1280 x 960 frame as in a 640 x 480
# one. The network was trained on dice 7-42 of its pixels across: at 256 for a 1280-wide
# frame, dice under ~40 px would be below that: the tuning photos set in a frame twice
# their size (`python -m vision.robustness --tune --only "framed 2x"`) read 524 of
# 748 byler dice with it, against 703 as taken (703 now).
REF_SIDE = 640
MAX_K = 2.0

# A wide frame is first looked at as a 640 px one. If the finds it is sure of (heat at least
# PROBE_SURE) are mostly at least BIG_ENOUGH of its pixels across (32 px at 640, byler's
# smallest dice, which the reader reads so in its photos), that look is the fine pass: a
# closer look would find these dice's pips and side faces as small dice (matteo's tuning
# photos enlarged twice: 100 stray refusals instead of 9).
PROBE_SURE = 0.5
BIG_ENOUGH = 13.0
# Dice the fine pass reads (sizes in its own pixels); the coarse pass takes the bigger ones.
FINE_MAX_SIZE = 40.0
COARSE_MIN_SIZE = FINE_MAX_SIZE * COARSE_SIDE / WORK_SIDE


@dataclass(frozen=True)
class Spot:
    """A place the network believes holds a die, in original-frame pixels."""

    x: float
    y: float
    size: float
    score: float
    coarse: bool = False  # found by the coarse pass (for big dice), not the fine one


def by_factor(frame: npt.NDArray[np.uint8], f: int) -> npt.NDArray[np.uint8]:
    """``frame`` shrunk by the whole factor ``f``: f x f blocks averaged (OpenCV's INTER_AREA
    for a whole factor); the rows and columns past the last whole block are dropped."""
    h, w = frame.shape[:2]
    return np.asarray(
        cv2.resize(frame[: h - h % f, : w - w % f], (w // f, h // f), interpolation=cv2.INTER_AREA),
        np.uint8,
    )


def halve(frame: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """2x2 blocks averaged (``by_factor(frame, 2)``, OpenCV's fastest INTER_AREA path)."""
    return by_factor(frame, 2)


def shrink(
    frame: npt.NDArray[np.uint8],
    nw: int,
    nh: int,
    half: npt.NDArray[np.uint8] | None = None,
) -> npt.NDArray[np.uint8]:
    """``frame`` resized to ``nw`` x ``nh``, fast: first by the largest whole factor that
    keeps it at least that big (``by_factor``), then the rest of the way (less than 2x)
    bilinearly. On the photos, 0.2-2.6 grey levels (mean) from a one-step INTER_AREA, at a
    sixth of its cost for 640 -> 256. ``half``, if given, is ``halve(frame)`` already made
    (the reader's brightness thumbnail starts from it): taken when the factor is 2."""
    h, w = frame.shape[:2]
    f = min(w // max(1, nw), h // max(1, nh))
    if f == 2 and half is not None:
        frame = half
    elif f >= 2:
        frame = by_factor(frame, f)
    if frame.shape[:2] == (nh, nw):
        return frame
    interp = cv2.INTER_LINEAR if frame.shape[1] >= nw else cv2.INTER_CUBIC
    return np.asarray(cv2.resize(frame, (nw, nh), interpolation=interp), np.uint8)


def to_input(
    frame: npt.NDArray[np.uint8], side: int, half: npt.NDArray[np.uint8] | None = None
) -> tuple[npt.NDArray[np.float32], float]:
    """Shrink ``frame`` so its long side is ``side`` (``shrink``, given ``half`` if made),
    pad to a multiple of ``PAD``; blob + scale."""
    h, w = frame.shape[:2]
    scale = side / float(max(h, w))
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    small = shrink(frame, nw, nh, half)
    ph = (nh + PAD - 1) // PAD * PAD
    pw = (nw + PAD - 1) // PAD * PAD
    if (ph, pw) != (nh, nw):
        small = np.asarray(
            cv2.copyMakeBorder(small, 0, ph - nh, 0, pw - nw, cv2.BORDER_REPLICATE), np.uint8
        )
    blob = cv2.dnn.blobFromImage(small, SCALE, (pw, ph), (MEAN, MEAN, MEAN), swapRB=False)
    return np.asarray(blob, dtype=np.float32), scale


def decode(
    out: npt.NDArray[np.float32], scale: float, threshold: float, coarse: bool = False
) -> list[Spot]:
    """Peaks of the heat map (3x3 local maxima above ``threshold``) as spots (marked
    ``coarse`` if it is the coarse pass's)."""
    heat = out[0, 0]
    peaks = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((heat >= peaks) & (heat >= threshold))
    spots: list[Spot] = []
    for y, x in zip(ys.tolist(), xs.tolist(), strict=True):
        ox, oy = float(out[0, 1, y, x]), float(out[0, 2, y, x])
        size = float(np.exp(out[0, 3, y, x])) * STRIDE
        cx = (x + ox) * STRIDE / scale
        cy = (y + oy) * STRIDE / scale
        spots.append(Spot(cx, cy, size / scale, float(heat[y, x]), coarse))
    return spots


class Locator:
    def __init__(self, model_path: Path | None = None) -> None:
        """The locator network at ``model_path`` (the shipped one, ``MODEL_PATH``, if
        None); ``NetworkError`` if it cannot be read."""
        self.net = read_onnx(MODEL_PATH if model_path is None else model_path)

    def _run(
        self,
        image: npt.NDArray[np.uint8],
        side: int,
        threshold: float,
        back: float = 1.0,
        half: npt.NDArray[np.uint8] | None = None,
        coarse: bool = False,
    ) -> list[Spot]:
        """The spots found in ``image`` shrunk to ``side``, in pixels of a frame ``back``
        times as big as ``image`` (``half``: ``halve(image)``, if made; ``coarse``: the
        coarse pass's)."""
        out, scale = self.maps(image, side, half)
        return decode(out, scale / back, threshold, coarse)

    def maps(
        self, image: npt.NDArray[np.uint8], side: int, half: npt.NDArray[np.uint8] | None = None
    ) -> tuple[npt.NDArray[np.float32], float]:
        """The network's output for ``image`` shrunk to ``side`` (``to_input``): heat,
        offsets and size, 1 x 4 x h x w; and the scale it was shrunk by."""
        blob, scale = to_input(image, side, half)
        self.net.setInput(blob)
        return np.asarray(self.net.forward(), dtype=np.float32), scale

    def find(
        self,
        frame: npt.NDArray[np.uint8],
        threshold: float = 0.3,
        half: npt.NDArray[np.uint8] | None = None,
    ) -> list[Spot]:
        """All dice-like spots, fine and coarse passes merged. ``half``, if given, is
        ``halve(frame)``, made once for the caller's own use: the same picture as the
        passes would make, so the spots are the same with it or without."""
        h, w = frame.shape[:2]
        long_side = float(max(h, w))
        fine_side, coarse_side = work_sides(int(long_side))
        if fine_side > WORK_SIDE:  # a wide frame: are its dice big enough for a 640 px look?
            # Both looks start from the closer look's picture, shrunk once.
            scale = fine_side / long_side
            wide = shrink(frame, max(1, round(w * scale)), max(1, round(h * scale)), half)
            back = long_side / max(wide.shape[:2])
            fine = self._run(wide, WORK_SIDE, threshold, back)
            sure = sorted(s.size * WORK_SIDE / long_side for s in fine if s.score >= PROBE_SURE)
            if sure and sure[len(sure) // 2] >= BIG_ENOUGH:
                fine_side, coarse_side = WORK_SIDE, COARSE_SIDE
            else:
                fine = self._run(wide, fine_side, threshold, back)
        else:
            fine = self._run(frame, fine_side, threshold, half=half)
        fine_scale = fine_side / long_side
        spots = [s for s in fine if s.size * fine_scale <= FINE_MAX_SIZE * 1.15]
        if long_side > coarse_side * 2:
            coarse = self._run(frame, coarse_side, threshold, half=half, coarse=True)
            coarse_scale = coarse_side / long_side
            spots += [s for s in coarse if s.size * coarse_scale >= COARSE_MIN_SIZE * 0.85]
        return suppress(spots)


def work_sides(long_side: int) -> tuple[int, int]:
    """The long sides of the fine and the coarse pass for a frame ``long_side`` wide."""
    k = min(max(1.0, long_side / REF_SIDE), MAX_K)
    return round(WORK_SIDE * k), round(COARSE_SIDE * k)


PIP_OF_BIG = 0.35  # a find this small inside a big die may be one of its pips


def is_pip_of(small: Spot, big: Spot) -> bool:
    """Whether a find could be a pip of a big die found with some certainty: the pips of a
    die filling a third of the frame look like small dice to the fine pass (the reader
    asks the crop classifier which of the two it is)."""
    return (
        small.size < PIP_OF_BIG * big.size
        and math.hypot(small.x - big.x, small.y - big.y) < 0.5 * big.size
    )


def same_place(a: Spot, b: Spot) -> bool:
    """Whether two finds are one die found twice: either centre lies well inside the other's
    die, and neither could be a pip of the other (``is_pip_of``)."""
    return not (
        math.hypot(a.x - b.x, a.y - b.y) > 0.5 * min(a.size, b.size)
        or is_pip_of(a, b)
        or is_pip_of(b, a)
    )


def suppress(spots: list[Spot]) -> list[Spot]:
    """Drop a spot found in the same place (``same_place``) as a stronger spot kept, unless
    every such spot is of the other pass (a fine and a coarse find): then it stays too, as
    a rival for the reader to settle (``PipReader._one_per_place``), and does not drop
    weaker spots itself, so that where the stronger find wins, what is kept is what it
    was before rivals were kept. Finds that could be pips of others stay. The stronger of
    a fine and a coarse find is often wrong: a die three times as big as the photos' dice
    is found by the coarse pass, and the fine pass, seeing it bigger than any die it was
    trained on, finds part of it (half to three quarters of its size), often more surely.
    (Every pair is compared: math.hypot, not numpy's, which costs ten times as much on
    two numbers; a checkerboard gives a thousand spots.)"""
    kept: list[Spot] = []
    rivals: list[Spot] = []
    for s in sorted(spots, key=lambda s: -s.score):
        rival = False
        for k in kept:
            if same_place(s, k):
                if k.coarse == s.coarse:
                    break  # dropped: no need to look further
                rival = True
        else:
            (rivals if rival else kept).append(s)
    return sorted(kept + rivals, key=lambda s: -s.score)
