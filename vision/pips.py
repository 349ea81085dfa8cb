"""Counting pips the classical way, as a cross-check on the learned reading.

The top face around a found die centre is cut at a fixed scale (the die's
measured size maps to ``FACE_PX`` pixels), pips are the blobs that differ most
in colour from the face (lighter or darker: colour-independent), and their
layout is checked against the six canonical patterns in any rotation.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

FACE_PX = 40
FACE_K = 0.95  # fraction of the die side looked at
# How far (in die sides) from the found centre the biggest pips' centroid may be taken as the
# top face's centre (PipCount.biggest_in_frame). On the tuning photos the two moves that put
# a 1 off its top face went 0.38 and 0.43 of a side, onto a side face's pips.
TOP_FACE_REACH = 0.25
PATTERNS: dict[int, list[frozenset[tuple[int, int]]]] = {
    1: [frozenset({(0, 0)})],
    2: [frozenset({(-1, -1), (1, 1)}), frozenset({(1, -1), (-1, 1)})],
    3: [frozenset({(-1, -1), (0, 0), (1, 1)}), frozenset({(1, -1), (0, 0), (-1, 1)})],
    4: [frozenset({(-1, -1), (1, 1), (1, -1), (-1, 1)})],
    5: [frozenset({(-1, -1), (1, 1), (1, -1), (-1, 1), (0, 0)})],
    6: [
        frozenset({(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)}),
        frozenset({(-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1)}),
    ],
}


def _patch_scale(size: float) -> float:
    """Face patch pixels (``face_patch``) per frame pixel, for a die ``size`` across."""
    return FACE_PX / (FACE_K * size)


def patch_to_frame(u: float, v: float, cx: float, cy: float, size: float) -> tuple[float, float]:
    """A point of the face patch (``face_patch``) in frame pixels, for a die cut at (cx, cy)."""
    s = _patch_scale(size)
    return (cx + (u - FACE_PX / 2) / s, cy + (v - FACE_PX / 2) / s)


def _largest(values: tuple[float, ...], k: int) -> list[int]:
    """The indices of the ``k`` largest of ``values``, largest first (ties in order)."""
    return sorted(range(len(values)), key=lambda i: -values[i])[:k]


@dataclass(frozen=True)
class PipCount:
    """Pips found on a face; ``value`` is set only when they form a canonical pattern."""

    pips: tuple[tuple[float, float], ...]
    value: int | None
    contrast: float
    areas: tuple[float, ...] = ()
    roundness: tuple[float, ...] = ()  # per pip: minor / major axis of its ellipse
    face_side: float = 0.0  # side of the face region the pips were found in (patch pixels)

    def squeeze(self) -> float | None:
        """How far four or five pips are from a square layout: 1.0 square, lower squashed.

        The corner pips of a 4 or 5 lie on a square whatever the rotation, so the
        ratio of their spread across and along (square root of the covariance's
        eigenvalue ratio) is 1 on a face seen square-on; a die leaning over shows
        its top face foreshortened. None for other pip counts (no square to see).
        """
        if len(self.pips) not in (4, 5):
            return None
        p = np.array(self.pips, np.float64)
        p -= p.mean(axis=0)
        lo, hi = np.linalg.eigvalsh(p.T @ p)
        return float(math.sqrt(max(lo, 0.0) / hi)) if hi > 0 else None

    def pips_in_frame(
        self, cx: float, cy: float, size: float
    ) -> tuple[tuple[float, float, float], ...]:
        """Each pip's centre and side (the square root of its area) in frame pixels, for a
        die cut at (cx, cy); none when the areas are not known."""
        if len(self.areas) != len(self.pips):
            return ()
        s = _patch_scale(size)
        return tuple(
            (*patch_to_frame(u, v, cx, cy, size), math.sqrt(area) / s)
            for (u, v), area in zip(self.pips, self.areas, strict=True)
        )

    def centre_in_frame(self, cx: float, cy: float, size: float) -> tuple[float, float] | None:
        """The pips' centroid in frame pixels (the face's centre), for a die cut at (cx, cy)."""
        if not self.pips:
            return None
        u = sum(p[0] for p in self.pips) / len(self.pips)
        v = sum(p[1] for p in self.pips) / len(self.pips)
        return patch_to_frame(u, v, cx, cy, size)

    def top_face_in_frame(
        self, value: int, cx: float, cy: float, size: float
    ) -> tuple[float, float] | None:
        """The centre of the top face of a die read as ``value``, in frame pixels.

        Seen by a tilted camera, a die's side faces (the top face's colour) show
        pips too, but squashed: the top face's pips are the roundest. The
        ``value`` roundest pips, if they form ``value``'s canonical pattern and are
        also the ``value`` biggest (``_biggest``), are the top face; their
        centroid is its centre. None when they are not.
        """
        pts = self._roundest(value)
        if pts is None or self._biggest(value) is None:
            return None
        u = sum(p[0] for p in pts) / value
        v = sum(p[1] for p in pts) / value
        return patch_to_frame(u, v, cx, cy, size)

    def top_face_beside_side_pips(self, value: int) -> bool:
        """Whether the pips found are ``value``'s top face and, beside it, pips seen
        squashed on side faces: more than ``value`` pips, the ``value`` roundest form its
        pattern (``top_face_in_frame``) and every other is clearly less round (below 0.8
        of the least round of those)."""
        if len(self.pips) <= value or len(self.roundness) != len(self.pips):
            return False
        r = sorted(self.roundness, reverse=True)
        return r[value] < 0.8 * r[value - 1] and self._roundest(value) is not None

    def _roundest(self, value: int) -> list[tuple[float, float]] | None:
        """The ``value`` roundest pips, if they can be the top face of a ``value``."""
        if not 1 <= value <= len(self.pips) or len(self.roundness) != len(self.pips):
            return None
        pts = [self.pips[i] for i in _largest(self.roundness, value)]
        if value == 1:
            # A lone pip: the roundest must be clearly rounder than the next (a side pip).
            rest = sorted(self.roundness, reverse=True)
            return None if len(rest) > 1 and rest[1] > 0.8 * rest[0] else pts
        u = sum(p[0] for p in pts) / value
        v = sum(p[1] for p in pts) / value
        if layout_value(pts, (u, v), self.face_side or FACE_PX * FACE_K) != value:
            return None
        return pts

    def _biggest(self, value: int) -> list[int] | None:
        """The indices of the ``value`` biggest pips, if there are that many and, for a
        value of 2 or more, they are also the ``value`` roundest. A tilted camera sees the
        top face least squashed, so its pips are both; where the two disagree (a side
        pip seen wide, two side pips run together), which pips are the top face's is not
        clear. On the tuning photos the roundest alone put one 2 a few pixels off its top
        face, onto a side face's pip, and the biggest alone one die in each of the
        enlarged and framed photos (``vision.robustness``)."""
        n = len(self.pips)
        if not 1 <= value <= n or len(self.areas) != n:
            return None
        order = _largest(self.areas, value)
        both = value > 1 and len(self.roundness) == n
        if both and set(_largest(self.roundness, value)) != set(order):
            return None
        return order

    def biggest_in_frame(
        self, value: int, cx: float, cy: float, size: float
    ) -> tuple[float, float] | None:
        """The centroid of the ``value`` biggest pips in frame pixels, if there are that many
        and it lies within ``TOP_FACE_REACH`` of a die side from (cx, cy): the top face's
        centre when no pattern was found on it. A tilted camera sees the top face less
        squashed than the side faces, so its pips are the biggest and, for a value of 2 or
        more, also the roundest: a lone 1's pip, or a 2 whose pips stand too close together
        for its pattern. None where the biggest are not the roundest (``_biggest``). A
        centroid farther out holds a side face's pip."""
        order = self._biggest(value)
        if order is None:
            return None
        u = sum(self.pips[i][0] for i in order) / value
        v = sum(self.pips[i][1] for i in order) / value
        x, y = patch_to_frame(u, v, cx, cy, size)
        if math.hypot(x - cx, y - cy) > TOP_FACE_REACH * size:
            return None
        return (x, y)


def face_patch(
    frame: npt.NDArray[np.uint8], cx: float, cy: float, size: float
) -> npt.NDArray[np.uint8]:
    s = _patch_scale(size)
    # Work on a region just around the face looked at (FACE_K sides), with a margin for the
    # warp's bilinear neighbours and, when shrinking a lot, the smoothing kernel's reach.
    sigma = 0.4 / s
    reach = int(sigma * 3.0 * 2.0 + 1.5) // 2 + 1 if s < 0.5 else 0  # OpenCV's 8-bit kernel
    r = int(FACE_K * size / 2.0) + 3 + reach
    h, w = frame.shape[:2]
    x0, y0 = max(0, int(cx) - r), max(0, int(cy) - r)
    x1, y1 = min(w, int(cx) + r), min(h, int(cy) + r)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return np.zeros((FACE_PX, FACE_PX, 3), np.uint8)
    src = frame[y0:y1, x0:x1]
    cx, cy = cx - x0, cy - y0
    m = np.array([[s, 0, FACE_PX / 2 - s * cx], [0, s, FACE_PX / 2 - s * cy]], np.float64)
    if s < 0.5:  # shrinking a lot: smooth first so the warp does not alias
        src = np.asarray(cv2.GaussianBlur(src, (0, 0), sigma), np.uint8)
    patch = cv2.warpAffine(
        src, m, (FACE_PX, FACE_PX), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(patch, np.uint8)


def layout_value(
    pts: list[tuple[float, float]], centre: tuple[float, float], side: float
) -> int | None:
    """The value whose canonical pattern the points form (any rotation), else None.

    ``centre`` and ``side`` describe the face the pips were found on.
    """
    n = len(pts)
    if not 1 <= n <= 6:
        return None
    if n == 1:
        x, y = pts[0]
        return 1 if math.hypot(x - centre[0], y - centre[1]) < 0.18 * side else None
    # Plain floats, not numpy: for at most six points numpy's per-call cost is most of it.
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    if math.hypot(mx - centre[0], my - centre[1]) > 0.15 * side:
        return None
    p = [(x - mx, y - my) for x, y in pts]
    r = [math.hypot(x, y) for x, y in p]
    corner = max(range(n), key=r.__getitem__)  # the first of equals, as np.argmax
    d = r[corner] / math.sqrt(2.0)  # a corner pip sits at (d, d) in the face's frame
    if not 0.15 * side < d < 0.42 * side:
        return None
    theta = math.atan2(p[corner][1], p[corner][0]) - math.pi / 4
    ct, st = math.cos(-theta), math.sin(-theta)
    cells: set[tuple[int, int]] = set()
    for x, y in p:
        qx, qy = (ct * x - st * y) / d, (st * x + ct * y) / d
        gx, gy = round(qx), round(qy)  # half to even, as np.rint
        if abs(gx) > 1 or abs(gy) > 1 or math.hypot(qx - gx, qy - gy) > 0.38:
            return None
        cells.add((gx, gy))
    if len(cells) != n:
        return None
    return n if frozenset(cells) in PATTERNS[n] else None


def _quantiles(a: npt.NDArray[np.float32], qs: tuple[float, ...]) -> list[npt.NDArray[np.float32]]:
    """Per-column percentiles of ``a`` (rows = samples), as ``np.percentile`` gives them
    (linear between neighbours), by one partial sort: several times faster on small arrays."""
    n = a.shape[0]
    idx = [q / 100.0 * (n - 1) for q in qs]
    kth = sorted({int(math.floor(i)) for i in idx} | {int(math.ceil(i)) for i in idx})
    part = np.partition(a, kth, axis=0)
    out = []
    for i in idx:
        lo, hi = int(math.floor(i)), int(math.ceil(i))
        out.append(np.asarray(part[lo] + (part[hi] - part[lo]) * (i - lo), np.float32))
    return out


def count_pips(frame: npt.NDArray[np.uint8], cx: float, cy: float, size: float) -> PipCount:
    """Pips = blobs of another colour inside the face (the convex hull of face-coloured pixels)."""
    patch = face_patch(frame, cx, cy, size)
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
    c0, c1 = int(0.3 * FACE_PX), int(0.7 * FACE_PX)
    face = _quantiles(lab[c0:c1, c0:c1].reshape(-1, 3), (50.0,))[0]
    sq = (lab - face) ** 2
    # the three channels added in numpy's order, without its slow reduction over three
    dist = np.sqrt(sq[..., 0] + sq[..., 1] + sq[..., 2])
    p30, p97 = _quantiles(dist.reshape(-1, 1), (30.0, 97.0))
    contrast = float(p97[0] - p30[0])
    if contrast < 15.0:
        return PipCount((), None, contrast)
    d8 = np.clip(dist * (255.0 / max(1.0, float(dist.max()))), 0, 255).astype(np.uint8)
    thr, _ = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    facemask = (d8 <= thr).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(facemask, connectivity=4)
    if n < 2:
        return PipCount((), None, contrast)
    centre_lab = labels[c0:c1, c0:c1]
    counts = np.bincount(centre_lab.ravel(), minlength=n)
    counts[0] = 0
    k = int(np.argmax(counts))
    # The face's hull from its outline: the same hull as from all its pixels, for less work.
    outline, _ = cv2.findContours(
        (labels == k).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
    )
    hull = cv2.convexHull(np.concatenate(outline))
    region = np.zeros_like(facemask)
    cv2.fillConvexPoly(region, hull, 1)
    region = cv2.erode(region, np.ones((3, 3), np.uint8))
    holes = ((labels != k) & (region > 0)).astype(np.uint8)
    m = cv2.moments(region, binaryImage=True)
    if m["m00"] < (0.35 * FACE_PX) ** 2:
        return PipCount((), None, contrast)
    fcx, fcy = m["m10"] / m["m00"], m["m01"] / m["m00"]
    face_side = math.sqrt(m["m00"])
    n, blob_labels, stats, cents = cv2.connectedComponentsWithStats(holes, connectivity=8)
    area_min = (0.07 * face_side) ** 2
    area_max = (0.32 * face_side) ** 2
    blobs: list[tuple[float, float, float, float]] = []
    for i, ((x, y, w, h, a), (bx, by)) in enumerate(
        zip(stats.tolist()[1:], cents.tolist()[1:], strict=True), start=1
    ):
        if not area_min <= a <= area_max:
            continue
        if max(w, h) > 2.2 * min(w, h) or a < 0.4 * w * h:
            continue
        if math.hypot(bx - fcx, by - fcy) > 0.5 * face_side:
            continue
        bm = cv2.moments((blob_labels[y : y + h, x : x + w] == i).astype(np.uint8), True)
        mu20, mu02, mu11 = bm["mu20"], bm["mu02"], bm["mu11"]
        spread = math.hypot(mu20 - mu02, 2 * mu11)
        major = mu20 + mu02 + spread
        roundness = math.sqrt(max(0.0, mu20 + mu02 - spread) / major) if major > 0 else 1.0
        blobs.append((bx, by, float(a), roundness))
    if blobs:
        med = float(statistics.median(b[2] for b in blobs))
        blobs = [b for b in blobs if 0.35 * med <= b[2] <= 2.8 * med]
    pts = [(b[0], b[1]) for b in blobs]
    value = layout_value(pts, (fcx, fcy), face_side)
    return PipCount(
        tuple(pts),
        value,
        contrast,
        tuple(b[2] for b in blobs),
        tuple(b[3] for b in blobs),
        face_side,
    )
