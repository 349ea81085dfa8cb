"""A lamp's reflection on a die: a clipped white spot that is read as a pip.

A glossy die under a lamp near the camera shows a spot of clipped white (every channel at
``CLIP`` or more). On a dark die it is the brightest and roundest pip the die seems to
have: drawn on the tuning photos' dice, the crop network read a 3 with red pips as a 1 and
a 4 with white pips as a 5, and the pip count agreed. A white pip can clip too, so a spot
alone decides nothing. The die's other pips do: the spots are painted over with the colour
around them and the pips counted again. If pips are left and the spot stands out from the
face far more than any of them (``MARGIN``, colour distance), it is no pip of that die.
The margin is wide: in a photo a little over-exposed some white pips clip and their
sisters, a little dimmer, do not. A die read as 2 or more with as many spots as pips is
left alone: its white pips all clip (what the painting leaves of them and of its side
faces is faint, and was taken for pips far dimmer than the spot). If no pip is left on a
die read as 1, the crop network is shown the painted die: if it still reads a die there
surely, the 1 was the spot. A spot that stands out little from its face (``STANDS_OUT``: a
white die's) is left alone: it is the face, or a glint the pips outshine.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np
import numpy.typing as npt

from vision.pips import FACE_PX, count_pips, face_patch, patch_to_frame

CLIP = 245  # every channel at least this: clipped white
# A spot: 0.04-0.3 of the die's side across (a pip is about 0.18), about round and filled,
# its centre within SPOT_REACH sides of the die's centre (the top face, not a neighbour).
SPOT_MIN = 0.04
SPOT_MAX = 0.3
SPOT_REACH = 0.35
# Colour distances in OpenCV's 8-bit Lab (as vision.pips counts pips): a spot that stands
# out from the face's colour MARGIN more than the die's most distinct pip left is a
# reflection. One that stands out STANDS_OUT or less (a light die's) is left alone at
# once: no pip could be outshone by MARGIN, and a light face's clipped specks are no
# 1's pip for the network to be asked about.
STANDS_OUT = 60.0
MARGIN = 60.0
PIP_SPAN = 0.05  # half the side of the square looked at around a pip's centre
WHITE_LAB = np.array([255.0, 128.0, 128.0], np.float32)

Frame = npt.NDArray[np.uint8]


def _region(frame: Frame, x: float, y: float, size: float) -> tuple[int, int, int, int]:
    """The square (x0, y0, x1, y1) a die's side across around its centre, inside the frame."""
    r = int(math.ceil(0.5 * size))
    h, w = frame.shape[:2]
    return max(0, int(x) - r), max(0, int(y) - r), min(w, int(x) + r + 1), min(h, int(y) + r + 1)


def spots(frame: Frame, x: float, y: float, size: float) -> npt.NDArray[np.int32] | None:
    """The labels of clipped spots on the die at (x, y) (``size`` across), in the pixels of
    its ``_region``: 0 where there is none, else the spot's number. None: no spot."""
    x0, y0, x1, y1 = _region(frame, x, y, size)
    if x1 <= x0 or y1 <= y0:  # no pixel of the frame (cv2.inRange refuses an empty one)
        return None
    # every channel at least CLIP; cv2.inRange is twenty times faster than a numpy min over
    # three channels, which cost the reader half a millisecond a frame
    clipped = cv2.inRange(frame[y0:y1, x0:x1], (CLIP, CLIP, CLIP), (255, 255, 255)) // 255
    if not clipped.any():
        return None
    n, labels, stats, centres = cv2.connectedComponentsWithStats(clipped, connectivity=8)
    area_min = max(2.0, (SPOT_MIN * size) ** 2)
    area_max = (SPOT_MAX * size) ** 2
    keep = np.zeros(n, np.int32)
    kept = 0
    for i in range(1, n):
        _, _, w, h, area = (int(v) for v in stats[i])
        if not area_min <= area <= area_max or area < 0.45 * w * h or max(w, h) > 2.2 * min(w, h):
            continue
        cx, cy = float(centres[i][0]) + x0, float(centres[i][1]) + y0
        if math.hypot(cx - x, cy - y) > SPOT_REACH * size:
            continue
        kept += 1
        keep[i] = kept
    if not kept:
        return None
    return np.asarray(keep[labels], np.int32)


def _face(frame: Frame, x: float, y: float, size: float) -> tuple[npt.NDArray[np.float32], float]:
    """The face's colour (Lab median over its middle) and the median of its least channel."""
    patch = face_patch(frame, x, y, size)
    a, b = int(0.3 * FACE_PX), int(0.7 * FACE_PX)
    middle = patch[a:b, a:b]
    lab = np.asarray(cv2.cvtColor(middle, cv2.COLOR_BGR2LAB), np.float32).reshape(-1, 3)
    return np.asarray(np.median(lab, axis=0), np.float32), float(np.median(middle.min(axis=2)))


def painted_over(
    frame: Frame, x: float, y: float, size: float, labels: npt.NDArray[np.int32], least: float
) -> Frame:
    """A copy of the frame with each spot (``spots``), grown into the bright ground around
    it (a white pip's rim, a reflection's halo: half way from the face's least channel,
    ``least``, to clipped), painted with the colour just around it."""
    x0, y0, x1, y1 = _region(frame, x, y, size)
    region = frame[y0:y1, x0:x1]
    bright = (region.min(axis=2) >= least + 0.5 * (CLIP - least)).astype(np.uint8)
    _, grounds = cv2.connectedComponents(bright, connectivity=8)
    under = np.unique(grounds[labels > 0])
    paint = np.isin(grounds, under[under > 0]).astype(np.uint8)
    paint = np.asarray(cv2.dilate(paint, np.ones((3, 3), np.uint8)), np.uint8)
    ring = np.asarray(cv2.dilate(paint, np.ones((5, 5), np.uint8)), np.uint8) & (1 - paint)
    around = region[ring > 0]
    colour = np.median(around, axis=0) if len(around) else np.full(3, least)
    out = frame.copy()
    out[y0:y1, x0:x1][paint > 0] = np.asarray(colour, np.uint8)
    return out


def _most_distinct(
    frame: Frame, x: float, y: float, size: float, face: npt.NDArray[np.float32]
) -> float:
    """How far the pixel around (x, y), a pip's centre, that differs most from the face's
    colour differs from it (Lab). The frame's own pixels, not the face patch's: a small
    pip's brightest pixel is lost when the patch is made."""
    r = max(1, round(PIP_SPAN * size))
    h, w = frame.shape[:2]
    near = frame[
        max(0, round(y) - r) : min(h, round(y) + r + 1),
        max(0, round(x) - r) : min(w, round(x) + r + 1),
    ]
    if near.size == 0:
        return 0.0
    lab = np.asarray(cv2.cvtColor(near, cv2.COLOR_BGR2LAB), np.float32).reshape(-1, 3)
    return float(np.linalg.norm(lab - face, axis=1).max())


def is_reflection(
    frame: Frame,
    x: float,
    y: float,
    size: float,
    value: int,
    reads_a_die: Callable[[Frame], bool],
) -> bool:
    """Whether the die at (x, y), read as ``value``, was read from a reflection. The
    caller's ``reads_a_die`` says whether the crop network reads a die at (x, y) in a frame
    it is given (only asked of a die read as 1 with no other pip)."""
    labels = spots(frame, x, y, size)
    if labels is None:
        return False
    face, least = _face(frame, x, y, size)
    stands_out = float(np.linalg.norm(WHITE_LAB - face))
    if stands_out <= STANDS_OUT:
        return False
    if value >= 2 and int(labels.max()) == value:  # every pip it shows clipped: white pips
        return False
    painted = painted_over(frame, x, y, size, labels, least)
    left = count_pips(painted, x, y, size)
    if left.pips:
        pips_out = max(
            _most_distinct(painted, *patch_to_frame(u, v, x, y, size), size, face)
            for u, v in left.pips
        )
        return stands_out > pips_out + MARGIN
    return value == 1 and reads_a_die(painted)
