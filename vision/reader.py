"""The pip reader: frame in, dice values (or a refusal) out.

Steps, all measured from the frame itself (no fixed pixel areas):

1. Frames larger than ``MAX_SIDE`` are shrunk first; a frame that is too dark,
   too bright or blurred is refused as a whole.
2. The locator network (vision.locate) finds die centres and sizes.
3. The crop classifier (vision.classify) reads each die: 1-6 or "not a die". A find
   it is sure is no die and that has no pips, that spans smaller dice, or that lies
   inside a bigger die it reads (a side face), is dropped.
4. Pips are counted classically (vision.pips) and their layout checked against
   the six canonical patterns.
5. A die is read only when the network is very sure, or sure and the pip count
   agrees; otherwise it is listed with value None and a reason. Two dice read where
   one lies inside the other are both refused (one of them is no die), and so is a die
   read far bigger than the other dice (a pool of lamp light round a die). One unread die
   (or the wrong number of dice for ``expect``) makes the frame a reroll. Fewer dice
   than expected, or none, or a die too dim to read, in a frame in a flickering lamp's
   bands (vision.bands) says so: throwing again does not help while the lamp flickers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from vision.bands import is_banded
from vision.classify import CROP_K, Classifier, crop
from vision.frames import checked_frame
from vision.glare import is_reflection
from vision.locate import Locator, Spot, by_factor, halve, is_pip_of, same_place, suppress
from vision.pips import PipCount, count_pips
from vision.types import (
    IN_BANDS,
    SAID_BLURRED,
    SAID_TOO_BRIGHT,
    SAID_TOO_BUSY,
    SAID_TOO_DARK,
    DieReading,
    FrameReading,
    FrameStatus,
)

MAX_SIDE = 1280
# A frame (once shrunk) whose short side is below this holds no die worth reading: a
# camera mode set wrong, a cropped file. OpenCV's resize stops on the thinnest.
MIN_SIDE = 16
# Decision thresholds, set on the calibration part of the tuning photos (vision/dataset.py).
SPOT_THRESHOLD = 0.3  # locator heat needed to consider a place at all
KEEP_DIE = 0.5  # locator heat above which a place is listed even if the classifier doubts it
SURE = 0.99  # classifier probability that reads a die unless the pip count contradicts
AGREE = 0.95  # classifier probability that reads a die when the pip count agrees
# A pip count that found fewer pips than the network's value (pips lost in glare or low
# contrast) does not stand against a network this sure; nor does one that found more, when
# the value's pattern is there among the roundest pips and the others are squashed (side
# faces seen by a tilted camera: PipCount.top_face_beside_side_pips). Other pip counts
# still do. On the tuning photos the network was right every time it was at least 0.97
# sure and the pip count said less; 0.995 (not 0.999) reads one more calibration die and
# none wrong, and no further one down to 0.98.
CERTAIN = 0.995
# The smallest a find inside a big one found with little certainty (under KEEP_DIE) is
# when it is one of the big die's pips (_big_over_its_pips). Over nine lines of
# vision.robustness on the tuning photos (as taken, enlarged 1.6 and 2, noise, framed,
# motion, half as bright, a camera 4 and 5 times closer), such big finds read as 2 or
# more had their smallest find inside at 0.184-0.276 of their size where they were
# dice, and at 0.160-0.161 where they lay over several dice (IMG_20191208_112342.jpg).
PIPS_OF_UNSURE = 0.17
# A 1 read from a clipped spot, the spot painted over: a die still read there this surely
# means the 1 was a reflection (vision.glare). The network has no blank face to name, so
# a painted 1 is read as something; at even odds a tilted camera's 1 whose side faces
# show was refused (painted, its side pips and the pip's rim read as a 2 at 0.52).
GLARE_SURE = 0.7
NOT_A_DIE = 0.9  # "not a die" probability that drops a place the locator is sure of: see
# _surely_not_a_die
# A tilted camera's side face of a die read at first sight, found apart from it: its centre
# within SIDE_FACE_REACH of the die's size from the die's, and not much bigger than the die
# (SIDE_FACE_SIZE). Side faces found so lay 0.59-0.82 of a size off on matteo's tuning
# photos. Byler's dice found 0.59-0.86 off a read die had under 0.5 for "not a die" (so
# they stay), but for one leaning 6, of another colour than the die beside it (below).
SIDE_FACE_REACH = 0.85
SIDE_FACE_SIZE = 1.2
# ... and of the die's own colour: the middles of the two finds differ by less than these in
# chroma (Lab a, b) and in lightness (Lab L, OpenCV's 0-255; _looks_alike). The side faces
# dropped on matteo's tuning photos under vision.robustness's alterations lay 1-18 apart in
# chroma, byler's dice beside a die of another colour that would have gone without it
# 36-70. Lightness: a side face is shaded, 3-63 apart on those photos but for one at 187
# (a camera five times closer); a black die beside a white one, about 200.
SIDE_FACE_HUE = 25.0
SIDE_FACE_LIGHT = 80.0
# A die still doubtful after that is looked at in four rotations (the crop turned by
# 0, 90, 180, 270 degrees) and read on the mean probability:
VIEWS_SURE = 0.95  # ... alone, unless the pip count contradicts
VIEWS_AGREE = 0.90  # ... when the pip count agrees
# A 4 or 5 whose own pips lie squashed below this (vision.pips.PipCount.squeeze) is a die
# leaning over. Flat dice in the tuning photos, tilted webcam included, stay above 0.63.
TILTED = 0.6
# A die found closer than this share of its size to the frame's edge is checked for
# running on past it (_reaches_edge).
NEAR_EDGE = 0.6
# A 1 with no pip found, closer than EDGE_PIP of its size to the frame's edge, is checked
# for being one pip of a die the edge cuts (_pip_of_cut_die): if at least FACE_AROUND of
# the band around it, and of the band's part toward the edge, has its face's colour rather
# than the tray's (when those two differ by FACE_FROM_TRAY at least), it is refused.
EDGE_PIP = 2.0
FACE_AROUND = 0.35
FACE_FROM_TRAY = 10.0
# A frame whose mean grey (of its thumbnail) is under TOO_DARK is "too dark", even with
# lit dice on a black tray in it: letting such a frame through when something in it is
# bright (grey 64) read a lamp's glint on two dim dice in a dim room as two 1s, in an ok
# frame (BENCHMARKS.md, "Other tray surfaces").
TOO_DARK = 28.0
TOO_BRIGHT = 240.0
BLUR_MIN = 0.02  # relative sharpness below which a frame with no readable die is "blurred"
OVERLAPS = "overlapping another find"  # _refuse_overlapping
FAR_BIGGER = "unclear (far bigger than the other dice)"  # _refuse_outsized
# A die read more than this times the median size of the other dice read is no die of the
# throw (_refuse_outsized). In the tuning photos as taken, dice read are at most 1.49
# (byler, dice of several sets mixed) and 2.36 (matteo: a 1 the coarse pass found 131 px
# wide beside dice found 50-62 px wide, train_dice_46.jpg) times that median (a one-off
# script; BENCHMARKS.md, "A pool of lamp light round a die").
OUTSIZED = 3.0
SMALL_DICE = "unclear (dice too small in the picture)"  # _pip_is_a_die
# A die refused for one of these may lie in a flickering lamp's dark band: the frame's
# reason then says so (_with_bands). Not one refused for its place or shape (tilted,
# touching, cut off, too big), which the light does not make.
DIMMED = frozenset({"unclear", "unclear (pips and shape disagree)", "unreadable", "blurred"})
PIP_AS_DIE = (0.6, 0.8, 1.0)
# More finds than this and the frame is not read: each costs a crop network call and a pip
# count (a 1280 x 960 checkerboard gave hundreds: 6 s a frame and a listing of 95 kB). The
# 507 labelled photos give at most 32 (byler's 25 dice and false finds).
MAX_FINDS = 64


@dataclass(frozen=True)
class _Candidate:
    spot: Spot
    crop: npt.NDArray[np.uint8]
    probs: npt.NDArray[np.float32]
    pips: PipCount
    views: npt.NDArray[np.float32] | None = None  # mean over four rotations, if looked at


def _value(p: npt.NDArray[np.float32]) -> int:
    """The likeliest die value in a crop's probabilities (whatever "not a die" gets)."""
    return int(np.argmax(p[1:])) + 1


def _read_at(p: npt.NDArray[np.float32], sure: float) -> int | None:
    """The value a crop's probabilities read at ``sure`` or more, if a die is likeliest."""
    return _value(p) if int(np.argmax(p)) != 0 and float(np.max(p[1:])) >= sure else None


def _first_look(
    p: npt.NDArray[np.float32], pips: PipCount, sure: float = SURE, agree: float = AGREE
) -> bool:
    """Whether the single crop's probabilities and the pip count suffice to read the die
    (at the reader's thresholds unless others are given, as calibration does)."""
    k = _value(p)
    conf = float(p[k])
    if pips.value == k:
        return conf >= agree
    if pips.value is None:
        return conf >= sure
    if conf < CERTAIN:
        return False
    return pips.value < k or pips.top_face_beside_side_pips(k)


def _views_read(
    mean: npt.NDArray[np.float32],
    pips: PipCount,
    sure: float = VIEWS_SURE,
    agree: float = VIEWS_AGREE,
) -> bool:
    """Whether the mean probabilities of the four views read the die: its best value at
    ``sure`` without a pip count, or at ``agree`` with one that names it (at the reader's
    thresholds unless others are given, as calibration does)."""
    k = _value(mean)
    conf = float(mean[k])
    return (conf >= sure and pips.value is None) or (conf >= agree and pips.value == k)


def _views_could_read(
    p: npt.NDArray[np.float32],
    seen: list[npt.NDArray[np.float32]],
    pips: PipCount,
    views: int,
) -> bool:
    """Whether the mean over ``views`` views could still read the die (``_views_read``)
    after the first look ``p`` and the extra views ``seen``, were the rest all 1.0 for
    one value: with no pip count any value at VIEWS_SURE, with one only its value at
    VIEWS_AGREE. Before any extra view, that asks the first look for 0.8 without a pip
    count and 0.6 for the pip count's value (so a pip count naming another value than
    the network's rules looking again out). The bound is loose by a hair, so rounding
    never stops a die that the full mean would read."""
    rest = views - 1 - len(seen)
    best = (np.sum(seen, axis=0) + p + rest) / views
    if pips.value is None:
        return float(np.max(best[1:])) >= VIEWS_SURE - 1e-6
    return float(best[pips.value]) >= VIEWS_AGREE - 1e-6


def _surely_not_a_die(c: _Candidate, cands: list[_Candidate]) -> bool:
    """Whether a find the locator was sure of is no die after all: the classifier says
    "not a die" and it spans a smaller die's centre (a patch of several dice), or it lies
    inside a bigger die that is read at first sight (a side face of that die, seen by a
    tilted camera), or the classifier is sure of it and it has no pips (a screw hole, a
    stain). One with pips of its own otherwise stays, to be refused: a die leaning over
    looks like no die to the classifier.

    A side face is often found beside its die rather than inside it: below the top face,
    toward the camera. It goes too when it lies near a die read at first sight, in any
    direction (the reader does not know where the camera is), is not much bigger than
    that die, is of its colour, the side shaded, and has pips of its own, two or more
    (``SIDE_FACE_REACH``, ``SIDE_FACE_SIZE``, ``SIDE_FACE_LIGHT``, ``SIDE_FACE_HUE``).
    Refused, it made a good throw a re-roll ("die 5 is touching another die"); dropping
    it takes 37 of the 258 stray refusals away on matteo's tuning photos under
    ``vision.robustness``'s alterations. No find dropped so could have been read (at
    0.5 or more for "not a die" it is not looked at again), but a die of the same colour
    that looks like no die to the classifier (one leaning against a read one) goes too,
    instead of being refused. The table always says how many dice it expects, so the
    throw is still a re-roll, only for "saw 1 die, expected 2" instead of "die 2 is
    tilted"; ``dicetable read`` without ``--expect`` gives such a frame as ok with one
    die fewer. Without the colour asked for, byler's tuning photos lost a leaning black
    6 beside a green die so, under five of ``vision.robustness``'s lines. A find with
    one pip or none stays: a close camera's big die may go unfound while its pips are
    found as small dice and read as 1s; the one of them refused is all that keeps the
    throw from being read, and it lies beside a 1 read of its colour.

    A patch whose likeliest class is "not a die", though under 0.5, goes too when the
    smaller die it spans has a pip pattern of its own (2 or more): a big die's pips,
    found as small dice, have none, so a big die over its pips is not dropped so. And
    any find goes, whatever the classifier makes of it, that spans a smaller die read at
    first sight with such a pattern: no die holds another one's centre (a crop across
    a die and its neighbours can look like a 6 or a 3 to the classifier). Unless it is
    read at first sight itself as another value: a small find over two of a close-up
    die's pips may read as a 2, and then both stay, for ``_refuse_overlapping`` to
    refuse. (The patches this rule is for were read at 0.74-0.85, under AGREE; a loose
    find around one die, read as that die's value, goes.)

    And a find not read at first sight, whose own pips form no pattern, goes when it
    spans two dice read at first sight that lie apart (their boxes do not meet): no die
    holds two others. Refused, it made a good throw a re-roll ("touching another die",
    matteo's ``train_dice_35.jpg``: a patch across two 1s). A close camera's big die
    whose pips are found as small dice and read as 1s keeps its own pips' pattern, and
    stays."""
    p0 = float(c.probs[0])
    likeliest = int(np.argmax(c.probs)) == 0
    sure_of_itself = _first_look(c.probs, c.pips)
    if p0 >= NOT_A_DIE and len(c.pips.pips) < 2:
        return True
    if not sure_of_itself and c.pips.value is None:
        held = [o for o in cands if o is not c and _spans(c, o) and _first_look(o.probs, o.pips)]
        for i, a in enumerate(held):
            for b in held[i + 1 :]:
                if (
                    np.hypot(a.spot.x - b.spot.x, a.spot.y - b.spot.y)
                    > (a.spot.size + b.spot.size) / 2.0
                ):
                    return True
    for o in cands:
        if o is c:
            continue
        dx, dy = abs(o.spot.x - c.spot.x), abs(o.spot.y - c.spot.y)
        spans = _spans(c, o)
        patterned = (o.pips.value or 0) >= 2
        if spans and float(o.probs[0]) < 0.5 and (p0 >= 0.5 or (likeliest and patterned)):
            return True
        if (
            spans
            and patterned
            and _first_look(o.probs, o.pips)
            and not (sure_of_itself and _value(c.probs) != _value(o.probs))
        ):
            return True
        if p0 < 0.5:
            continue
        o_half = o.spot.size / 2.0
        inside = o.spot.size > c.spot.size and dx < o_half and dy < o_half
        if not _first_look(o.probs, o.pips):
            continue
        if inside or (
            len(c.pips.pips) >= 2
            and c.spot.size < SIDE_FACE_SIZE * o.spot.size
            and np.hypot(dx, dy) < SIDE_FACE_REACH * o.spot.size
            and _looks_alike(c, o)  # a colour conversion: last
        ):
            return True
    return False


def _spans(c: _Candidate, o: _Candidate) -> bool:
    """Whether find ``c`` spans find ``o``: over 1.5 times its size, ``o``'s centre inside
    ``c``'s box."""
    half = c.spot.size / 2.0
    return (
        o.spot.size * 1.5 < c.spot.size
        and abs(o.spot.x - c.spot.x) < half
        and abs(o.spot.y - c.spot.y) < half
    )


def _looks_alike(a: _Candidate, b: _Candidate) -> bool:
    """Whether two finds' middles (half a die side across, of their crops) are of one die's
    colour: a side face and its top, the side shaded. Their median colours differ by less
    than ``SIDE_FACE_LIGHT`` in lightness (Lab L) and ``SIDE_FACE_HUE`` in chroma (a, b)."""

    def middle(c: _Candidate) -> npt.NDArray[np.float32]:
        n = c.crop.shape[0]
        r = max(1, round(n / CROP_K / 4))  # a quarter of the die's side
        return _lab_median(c.crop[n // 2 - r : n // 2 + r, n // 2 - r : n // 2 + r])

    d = middle(a) - middle(b)
    return abs(float(d[0])) < SIDE_FACE_LIGHT and float(np.linalg.norm(d[1:])) < SIDE_FACE_HUE


def _refuse_overlapping(cands: list[_Candidate], dice: list[DieReading]) -> list[DieReading]:
    """Two dice read where one find's centre lies inside the other's die (closer than half
    the bigger find's size) cannot both be dice: one is a pip or a face of the other (a
    pip the fine pass took for a small die, a top face found apart from its die), or the
    bigger is a find across dice. Which, the reader cannot tell, so neither is read."""
    out = list(dice)
    for i, (a, da) in enumerate(zip(cands, dice, strict=True)):
        for j, (b, db) in enumerate(zip(cands, dice, strict=True)):
            if j <= i or da.value is None or db.value is None:
                continue
            big = max(a.spot.size, b.spot.size)
            if np.hypot(a.spot.x - b.spot.x, a.spot.y - b.spot.y) < 0.5 * big:
                for k, d in ((i, da), (j, db)):
                    out[k] = DieReading(None, d.center, d.box, d.confidence, OVERLAPS)
    return out


def _refuse_outsized(dice: list[DieReading]) -> list[DieReading]:
    """Dice of one throw are one size in the picture: a die read more than ``OUTSIZED``
    times as big as the median of the other dice read is refused. A pool of lamp light
    about a die's size is found as a big die, with the real die in it as its one pip, and
    read as a 1 (``vision.robustness``'s ``lamp pool``)."""
    read = {i: d.box[1][0] for i, d in enumerate(dice) if d.value is not None}
    out = list(dice)
    for i, size in read.items():
        others = [s for j, s in read.items() if j != i]
        if others and size > OUTSIZED * float(np.median(others)):
            d = dice[i]
            out[i] = DieReading(None, d.center, d.box, d.confidence, FAR_BIGGER)
    return out


def _lab_median(bgr: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    """The median colour of a patch, in CIE Lab (OpenCV's 8-bit scaling).

    The same values as ``np.median`` per channel (the mean of the two middle values for an
    even count). On a big patch (the tray's thumbnail) they are read off each channel's
    histogram: 0.3 ms instead of 1.6 for 160 x 120 pixels; on a small one ``np.median``
    is quicker."""
    lab = np.asarray(cv2.cvtColor(np.ascontiguousarray(bgr), cv2.COLOR_BGR2LAB), np.uint8)
    flat = lab.reshape(-1, 3)
    n = flat.shape[0]
    if n < _HISTOGRAM_MEDIAN_FROM:
        return np.asarray(np.median(flat, axis=0), np.float32)
    out = np.empty(3, np.float32)
    for ch in range(3):
        below = np.cumsum(np.bincount(flat[:, ch], minlength=256))  # values <= v, per v
        lo = int(np.searchsorted(below, (n - 1) // 2, side="right"))  # sorted[(n - 1) // 2]
        hi = int(np.searchsorted(below, n // 2, side="right"))  # sorted[n // 2]
        out[ch] = (lo + hi) / 2.0
    return out


_HISTOGRAM_MEDIAN_FROM = 1000  # pixels


def _gaps(frame: npt.NDArray[np.uint8], s: Spot) -> tuple[float, float, float, float]:
    """How far a find's box lies from the frame's left, top, right and bottom edges."""
    h, w = frame.shape[:2]
    half = s.size / 2.0
    return (s.x - half, s.y - half, w - s.x - half, h - s.y - half)


def _near_edge(frame: npt.NDArray[np.uint8], s: Spot, share: float = NEAR_EDGE) -> bool:
    """Whether a find lies within ``share`` of its size of the frame's edge."""
    return min(_gaps(frame, s)) < share * s.size


def _reaches_edge(frame: npt.NDArray[np.uint8], s: Spot, tray: npt.NDArray[np.float32]) -> bool:
    """Whether a die found near the frame's edge (within ``NEAR_EDGE`` of its size) runs
    on past it. The locator finds the part of a die in view as if it were the whole die,
    so its box can lie inside the frame while the die is cut; a 2 with one pip out of
    view then reads as a 1. Such a die's body reaches the edge: there, beside the find,
    the frame's outermost pixels are closer in colour to its face than to the tray (the
    whole frame's median colour). A die that lies whole near the edge has tray there."""
    h, w = frame.shape[:2]
    size = s.size
    gaps = _gaps(frame, s)
    if min(gaps) >= NEAR_EDGE * size:
        return False
    r = max(1, round(0.3 * size))  # the middle 60 %: pips are a small share of it
    face = frame[
        max(0, round(s.y) - r) : round(s.y) + r + 1, max(0, round(s.x) - r) : round(s.x) + r + 1
    ]
    if face.size == 0:
        return False
    face_lab = _lab_median(face)
    depth = max(2, round(0.08 * size))
    along = 0.3 * size
    x0, x1 = max(0, round(s.x - along)), min(w, round(s.x + along) + 1)
    y0, y1 = max(0, round(s.y - along)), min(h, round(s.y + along) + 1)
    bands = (
        frame[y0:y1, :depth],
        frame[:depth, x0:x1],
        frame[y0:y1, w - depth :],
        frame[h - depth :, x0:x1],
    )
    for gap, band in zip(gaps, bands, strict=True):
        if gap >= NEAR_EDGE * size or band.size == 0:
            continue
        edge = _lab_median(band)
        if float(np.linalg.norm(edge - face_lab)) < float(np.linalg.norm(edge - tray)):
            return True
    return False


def _may_be_edge_pip(frame: npt.NDArray[np.uint8], c: _Candidate) -> bool:
    """Whether a find may be one ``_pip_of_cut_die`` looks at: likeliest a 1 (at first
    sight or over four views), no pip found in it, within ``EDGE_PIP`` of its size of the
    frame's edge."""
    return (
        1 in (_value(c.probs), _value(c.views if c.views is not None else c.probs))
        and not c.pips.pips
        and _near_edge(frame, c.spot, EDGE_PIP)
    )


def _pip_of_cut_die(frame: npt.NDArray[np.uint8], s: Spot, tray: npt.NDArray[np.float32]) -> bool:
    """Whether a find read as a 1 is one pip of a die the frame's edge cuts.

    The locator may miss a die the edge cuts and find one of its pips, in view, as a
    small die; the crop network, shown that pip with a rim of face around it, reads a 1
    (0.90-0.99 sure), and the pip counter finds no pip in it (a pip the size of the whole
    find). Around a real 1 lies tray, or on some sides its neighbours; around such a pip
    lies its die's face, on every side, the frame's edge's side too: the die runs on to
    it. So: the band 0.6-0.9 of the find's size from its centre, in the frame, is mostly
    (``FACE_AROUND``) closer in colour to the face (the ring 0.30-0.42 from the centre,
    inside the find's box) than to the tray, and so is its part toward the nearest edge
    of the frame (if any of it is in view).
    Not judged when face and tray are alike (``FACE_FROM_TRAY``): white dice on a white
    table. The tray is the whole frame's median colour: where the tray's floor is not
    most of the frame (a wide wall, much table), a whole 1 by the edge on a floor nearer
    in colour to the face than that median may be refused."""
    h, w = frame.shape[:2]
    r = round(0.9 * s.size)
    x0, y0 = max(0, round(s.x) - r), max(0, round(s.y) - r)
    x1, y1 = min(w, round(s.x) + r + 1), min(h, round(s.y) + r + 1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return False
    lab = cv2.cvtColor(np.ascontiguousarray(frame[y0:y1, x0:x1]), cv2.COLOR_BGR2LAB)
    lab = np.asarray(lab, np.float32)
    ys, xs = np.mgrid[y0:y1, x0:x1]
    dx, dy = (xs - s.x) / s.size, (ys - s.y) / s.size
    cheb = np.maximum(np.abs(dx), np.abs(dy))
    ring = lab[(cheb >= 0.30) & (cheb <= 0.42)]
    in_band = (cheb >= 0.6) & (cheb <= 0.9)
    if len(ring) < 8 or int(in_band.sum()) < 8:
        return False
    face = np.median(ring, axis=0)
    if float(np.linalg.norm(face - tray)) < FACE_FROM_TRAY:
        return False

    def face_share(where: npt.NDArray[np.bool_]) -> float:
        px = lab[where]
        return float(np.mean(np.linalg.norm(px - face, axis=1) < np.linalg.norm(px - tray, axis=1)))

    if face_share(in_band) < FACE_AROUND:
        return False
    nearest = int(np.argmin(_gaps(frame, s)))  # left, top, right, bottom
    toward = in_band & ((dx, dy, -dx, -dy)[nearest] <= -0.6)
    # Within a tenth of its size of the edge, the band's part toward it is out of view:
    # judged on the band alone. The frame's outermost pixels beside the find would often
    # be a cut die's pip itself (on frames built from the tuning photos, a pip of a 2 cut
    # by the edge was read as a 1 again that way), and a die that close to the edge is
    # better refused than read so.
    return int(toward.sum()) < 8 or face_share(toward) >= FACE_AROUND


def _sharpness(gray: npt.NDArray[np.uint8]) -> float:
    """Laplacian energy relative to image contrast: scale- and exposure-independent-ish."""
    g = gray.astype(np.float32)
    lap = cv2.Laplacian(g, cv2.CV_32F)
    return float(np.mean(np.abs(lap)) / (np.std(g) + 1e-3))


class PipReader:
    """Reads pip dice in BGR frames. Cheap to call repeatedly; load once."""

    def __init__(self) -> None:
        self.locator = Locator()
        self.classifier = Classifier()
        self._reference: npt.NDArray[np.uint8] | None = None

    def set_reference(self, empty_tray_bgr: npt.NDArray[np.uint8] | None) -> None:
        """An optional photo of the empty tray: places that look like it are not dice."""
        if empty_tray_bgr is None:
            self._reference = None
            return
        self._reference = _as_bgr(empty_tray_bgr)

    def read(self, frame_bgr: npt.NDArray[np.uint8], expect: int | None = None) -> FrameReading:
        t0 = time.perf_counter()
        reading = self._read(_as_bgr(frame_bgr), expect)
        ms = (time.perf_counter() - t0) * 1000.0
        return FrameReading(reading.status, reading.reason, reading.dice, ms)

    def _read(self, full: npt.NDArray[np.uint8], expect: int | None) -> FrameReading:
        if min(full.shape[:2]) < MIN_SIDE * _shrink_factor(full):
            return _reroll("picture too small")
        frame, back = _shrink(full)
        # The thumbnail's first halving is the locator's first step for a 640 px frame.
        half = halve(frame) if _thumbnail_halves(frame) else None
        small = _thumbnail(half if half is not None else frame)
        gray = np.asarray(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), np.uint8)
        mean = float(gray.mean())
        if mean < TOO_DARK:
            return _reroll(SAID_TOO_DARK)
        if mean > TOO_BRIGHT:
            return _reroll(SAID_TOO_BRIGHT)

        seen: dict[Spot, npt.NDArray[np.float32]] = {}  # crop probabilities already known
        spots = self.locator.find(frame, SPOT_THRESHOLD, half)
        if len(spots) > MAX_FINDS:  # a patterned cloth, a checkerboard: no throw to read
            return _reroll(f"{SAID_TOO_BUSY}: {len(spots)} places look like dice")
        spots = self._one_per_place(frame, spots, seen)
        spots = self._big_over_its_pips(frame, spots, seen)
        spots = self._drop_reference_like(frame, spots)
        crops = [crop(frame, s.x, s.y, s.size) for s in spots]
        todo = [i for i, s in enumerate(spots) if s not in seen]
        fresh = self.classifier.probabilities([crops[i] for i in todo])
        seen.update((spots[i], p) for i, p in zip(todo, fresh, strict=True))
        probs = [seen[s] for s in spots]
        # A place the classifier calls "not a die" is dropped unless the locator is sure of it.
        keep = [
            i
            for i, (s, p) in enumerate(zip(spots, probs, strict=True))
            if int(np.argmax(p)) != 0 or s.score >= KEEP_DIE
        ]
        cands = [
            _Candidate(
                spots[i],
                crops[i],
                probs[i],
                count_pips(frame, spots[i].x, spots[i].y, spots[i].size),
            )
            for i in keep
        ]
        cands = [c for c in cands if not _surely_not_a_die(c, cands)]
        cands = self._look_again(cands)
        cands.sort(key=lambda c: (c.spot.x, c.spot.y))

        # The tray's colour, for dice near the frame's edge only (a median costs time).
        tray = (
            _lab_median(small)
            if any(_near_edge(frame, c.spot) or _may_be_edge_pip(frame, c) for c in cands)
            else None
        )
        dice = _refuse_overlapping(
            cands, [self._decide(frame, c, cands, back, tray, full) for c in cands]
        )
        dice = _refuse_outsized(dice)

        if not dice:
            if _sharpness(gray) < BLUR_MIN:
                return _reroll(SAID_BLURRED)
            return _reroll(_with_bands("no dice seen", frame))
        if expect is not None and len(dice) != expect:
            said = f"saw {len(dice)} {'die' if len(dice) == 1 else 'dice'}, expected {expect}"
            if len(dice) < expect:
                said = _with_bands(said, frame)
            return _reroll(said, tuple(dice))
        for i, d in enumerate(dice, start=1):
            if d.value is None:
                said = f"die {i} is {d.reason}"
                if d.reason in DIMMED:
                    said = _with_bands(said, frame)
                return _reroll(said, tuple(dice))
        noun = "die" if len(dice) == 1 else "dice"
        return FrameReading(FrameStatus.OK, f"read {len(dice)} {noun}", tuple(dice))

    def _one_per_place(
        self,
        frame: npt.NDArray[np.uint8],
        spots: list[Spot],
        seen: dict[Spot, npt.NDArray[np.float32]],
    ) -> list[Spot]:
        """A coarse and a fine find in the same place (``same_place``, which ``suppress``
        leaves to the reader) are one die. The one found more surely stays (as ``suppress``
        decides between finds of one pass; the coarse one on a tie), unless the crop
        classifier does not read it (AGREE) and reads the other, and the two agree: the
        surer one's likeliest class is that value or "not a die", and the other's pip
        count names that value too, or shows that value's top face beside squashed side
        pips (``PipCount.top_face_beside_side_pips``: a tilted camera's die, whose side
        faces make its own pips no pattern; matteo's ``train_two_13.jpg`` lost a 2 so,
        under a coarse find over it and its neighbour). On the tuning photos seen by a
        camera four and five times closer (``python -m vision.robustness --tune``), of
        358 such pairs where the coarse find was the die and the fine one part of it,
        the fine one was found more surely in 84; the classifier read the coarse one
        alone in 185. Without the agreement asked for, the other find was read wrong in
        frames built from tuning photos (windows enlarged 2 and 3 times and blurred; a
        die pasted alone 4.5 times its size): part of a 2 read as a 1, a whole 1 and a
        whole 3 read as 2s where the part found more surely was doubted as a 1 and a 3,
        and a whole 3 read as a 1 with no 1 in its pips. The crop probabilities it gets
        are kept in ``seen``."""
        # (strong, weak) per pair: found more surely first, the coarse one on a tie.
        pairs = [
            (c, f) if c.score >= f.score else (f, c)
            for c in sorted((s for s in spots if s.coarse), key=lambda s: -s.score)
            for f in sorted((s for s in spots if not s.coarse), key=lambda s: -s.score)
            if same_place(c, f)
        ]
        if not pairs:
            return spots
        # Read in two batches: the stronger finds (mostly read anyway, were the weaker
        # dropped unseen), then the weaker ones whose stronger one is not read; so mostly
        # only those cost a crop more than one pass's finds alone would.
        strong = self._reads(frame, [p[0] for p in pairs], seen)
        self._reads(frame, [w for (_, w), v in zip(pairs, strong, strict=True) if v is None], seen)
        gone: set[Spot] = set()
        for s, w in pairs:
            if s in gone or w in gone:
                continue
            gone.add(s if self._other_reads(frame, s, w, seen) else w)
        left = [s for s in spots if s not in gone]
        if any(s in gone for s, _ in pairs):
            # A rival that won keeps out the weaker finds of its pass in its place, as
            # ``suppress`` would have had it been the stronger.
            stay = set(suppress(left))
            return [s for s in left if s in stay]
        return left

    def _other_reads(
        self,
        frame: npt.NDArray[np.uint8],
        strong: Spot,
        weak: Spot,
        seen: dict[Spot, npt.NDArray[np.float32]],
    ) -> bool:
        """Whether the find found less surely is the die of the pair (``_one_per_place``).
        Never where the surer one runs off the frame: it is refused as cut off, and the
        other, smaller and inside, could be the part of a die left in view."""
        if min(_gaps(frame, strong)) < 0 or self._reads(frame, [strong], seen)[0] is not None:
            return False
        value = self._reads(frame, [weak], seen)[0]
        if value is None or int(np.argmax(seen[strong])) not in (0, value):
            return False
        pips = count_pips(frame, weak.x, weak.y, weak.size)
        return pips.value == value or pips.top_face_beside_side_pips(value)

    def _big_over_its_pips(
        self,
        frame: npt.NDArray[np.uint8],
        spots: list[Spot],
        seen: dict[Spot, npt.NDArray[np.float32]],
    ) -> list[Spot]:
        """A big find with small finds inside it is either a big die whose pips look like
        small dice, or a false find over small dice (a patch of them). One found with
        little certainty (under ``KEEP_DIE``) goes if a find inside it is smaller than a
        pip of it can be (``PIPS_OF_UNSURE``): a false find over dice. Other big finds are
        put to the crop classifier; one it does not read goes. One it reads as a 1 over a
        single small find goes too (one small die in a wide crop looks like a 1), unless
        that find is no die the classifier reads and has no pip of its own
        (``_its_pip``): then it is the big 1's pip, and goes instead. One found with
        little certainty and read as a 1 goes. One found so and read as 2 or
        more stays with its small finds: a close camera's big die, found with little
        certainty, has pips that the classifier reads as dice showing 1 (the tuning
        photos enlarged four and five times), and a patch over small dice may read as a
        value too. Which it is, is not clear: all stay, and ``_refuse_overlapping``
        refuses the ones read. A big find the locator is sure of and reads as 2 or more,
        or as a 1 over several small finds, puts the small finds to the classifier as
        well: pips read as a 1 or as no die, dice with pips of their own as 2 or more. If
        none reads so, they are the big die's pips and go. If some do, all stay, as
        above. The crop probabilities it gets are kept in ``seen``."""
        for big in sorted(spots, key=lambda s: -s.size):
            if big not in spots:
                continue
            inside = [s for s in spots if s is not big and is_pip_of(s, big)]
            if not inside:
                continue
            unsure = big.score < KEEP_DIE
            if unsure and any(s.size < PIPS_OF_UNSURE * big.size for s in inside):
                spots = [s for s in spots if s is not big]  # whatever it reads
                continue
            value = self._reads(frame, [big], seen)[0]
            if (
                value == 1
                and not unsure
                and len(inside) == 1
                and self._its_pip(frame, inside[0], seen)
            ):
                spots = [s for s in spots if s is not inside[0]]
                continue
            if value is None or (value == 1 and (len(inside) == 1 or unsure)):
                spots = [s for s in spots if s is not big]
            elif unsure:
                continue  # it stays with its finds: see above
            elif not any(v is not None and v >= 2 for v in self._reads(frame, inside, seen)):
                spots = [s for s in spots if s not in inside]
        return spots

    def _its_pip(
        self,
        frame: npt.NDArray[np.uint8],
        small: Spot,
        seen: dict[Spot, npt.NDArray[np.float32]],
    ) -> bool:
        """Whether the one find inside a big find read as a 1 is that 1's pip: the crop
        classifier does not read it (AGREE) and the pip count finds no pip in it. A close
        camera's 1 has its pip found as a small die by the fine pass. On the tuning photos
        seen four and five times closer, 62 such pips: 56 not read and with no pip found
        in them, the other 6 read as a 1 or with a speck found as a pip. The small finds
        that a wide find around them read as a 1 on matteo's photos set in a frame twice
        their size (6 dice, 2 a die's part) were all read, their pips found."""
        if self._reads(frame, [small], seen)[0] is not None:
            return False
        return not count_pips(frame, small.x, small.y, small.size).pips

    def _reads(
        self,
        frame: npt.NDArray[np.uint8],
        spots: list[Spot],
        seen: dict[Spot, npt.NDArray[np.float32]],
    ) -> list[int | None]:
        """Per spot, the value the crop classifier reads there with AGREE certainty, if
        any; the probabilities go into ``seen``."""
        todo = list(dict.fromkeys(s for s in spots if s not in seen))
        fresh = self.classifier.probabilities([crop(frame, s.x, s.y, s.size) for s in todo])
        seen.update(zip(todo, fresh, strict=True))
        return [_read_at(seen[s], AGREE) for s in spots]

    def _reads_a_die(self, s: Spot) -> Callable[[npt.NDArray[np.uint8]], bool]:
        """Whether the crop network reads a die (any value, at ``GLARE_SURE``) at ``s`` in a
        frame it is given: a die's reflection painted over (``vision.glare``)."""

        def reads(frame: npt.NDArray[np.uint8]) -> bool:
            p = self.classifier.probabilities([crop(frame, s.x, s.y, s.size)])[0]
            return _read_at(p, GLARE_SURE) is not None

        return reads

    def _drop_reference_like(self, frame: npt.NDArray[np.uint8], spots: list[Spot]) -> list[Spot]:
        """Drop finds where the frame looks like the empty tray (same size frames only)."""
        if self._reference is None or not spots:
            return spots
        ref, _ = _shrink(self._reference)
        if ref.shape[:2] != frame.shape[:2]:
            return spots
        kept: list[Spot] = []
        for s in spots:
            a = crop(frame, s.x, s.y, s.size).astype(np.float32)
            b = crop(ref, s.x, s.y, s.size).astype(np.float32)
            if float(np.mean(np.abs(a - b))) > 12.0:
                kept.append(s)
        return kept

    def _look_again(self, cands: list[_Candidate]) -> list[_Candidate]:
        """Doubtful dice: mean class probabilities over the crop in four rotations. The
        views are taken one at a time, and a die stops being looked at as soon as its mean
        could no longer read it, were the views still to come all 1.0 for one value
        (``_views_could_read``); it then keeps the mean of the views it was given."""
        rots = (cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE)
        out = list(cands)
        for i, c in enumerate(cands):
            if (
                float(c.probs[0]) >= 0.5
                or not _views_could_read(c.probs, [], c.pips, len(rots) + 1)
                or _first_look(c.probs, c.pips)
            ):
                continue
            seen: list[npt.NDArray[np.float32]] = []
            for r in rots:
                view = np.asarray(cv2.rotate(c.crop, r), np.uint8)
                seen.append(self.classifier.probabilities([view])[0])
                if len(seen) < len(rots) and not _views_could_read(
                    c.probs, seen, c.pips, len(rots) + 1
                ):
                    break
            mean = (np.sum(seen, axis=0) + c.probs) / (len(seen) + 1)
            out[i] = _Candidate(c.spot, c.crop, c.probs, c.pips, np.asarray(mean, np.float32))
        return out

    def _pip_is_a_die(self, full: npt.NDArray[np.uint8], c: _Candidate, back: float) -> bool:
        """Whether a pip the pip count found on a find read as a 1 in a shrunk frame is a
        die of its own: in the frame as given (``full``), the crop network reads a 2-6
        there (at ``AGREE``) at one of three sizes around the pip's (``PIP_AS_DIE``). A
        tray or a board seen from far, with dice lying in it too small for the locator to
        find or too small to read once the frame is shrunk, is found as one big die
        showing a 1. The pips of the 1s read in the photos enlarged three and six times
        (780 of them, both parts) were read as a 2-6 at 0.90 at most; a review's sweep of
        other factors found one at 0.96, a real 1 so refused (BENCHMARKS.md)."""
        s = c.spot
        crops = [
            crop(full, x * back, y * back, side * back * k)
            for x, y, side in c.pips.pips_in_frame(s.x, s.y, s.size)
            for k in PIP_AS_DIE
        ]
        if not crops:
            return False
        values = [_read_at(p, AGREE) for p in self.classifier.probabilities(crops)]
        return any(v is not None and v >= 2 for v in values)

    def _decide(
        self,
        frame: npt.NDArray[np.uint8],
        c: _Candidate,
        cands: list[_Candidate],
        back: float,
        tray: npt.NDArray[np.float32] | None,
        full: npt.NDArray[np.uint8],
    ) -> DieReading:
        s = c.spot
        center = (s.x * back, s.y * back)
        box = ((s.x * back, s.y * back), (s.size * back, s.size * back), 0.0)
        p = c.probs
        k = _value(p)
        conf = float(p[k])

        def refuse(reason: str) -> DieReading:
            return DieReading(None, center, box, conf, reason)

        if min(_gaps(frame, s)) < 0 or (tray is not None and _reaches_edge(frame, s, tray)):
            return refuse("cut off at the frame edge")
        pips = c.pips
        ok = _first_look(p, pips)
        if not ok and c.views is not None:
            p = c.views
            k = _value(p)
            conf = float(p[k])
            ok = _views_read(p, pips)
        if (
            ok
            and k == 1
            and tray is not None
            and _may_be_edge_pip(frame, c)
            and _pip_of_cut_die(frame, s, tray)
        ):
            return refuse("cut off at the frame edge")
        if ok and k == 1 and back > 1.0 and self._pip_is_a_die(full, c, back):
            return refuse(SMALL_DICE)
        contradict = pips.value is not None and pips.value != k
        squeeze = pips.squeeze()
        if k == len(pips.pips) and squeeze is not None and squeeze < TILTED:
            return refuse("tilted")
        if ok and is_reflection(frame, s.x, s.y, s.size, k, self._reads_a_die(s)):
            return refuse("in glare")
        if ok:
            # The pip pattern's centre is the top face's centre: sharper than the locator's.
            fc = None
            if pips.value == k:
                fc = pips.centre_in_frame(s.x, s.y, s.size)
            else:  # side faces' pips in view (a tilted camera): the roundest k pips, if a pattern
                fc = pips.top_face_in_frame(k, s.x, s.y, s.size)
            if fc is None:  # no pattern there: the k biggest pips, near the found centre
                fc = pips.biggest_in_frame(k, s.x, s.y, s.size)
            if fc is not None:
                center = (fc[0] * back, fc[1] * back)
                box = (center, box[1], box[2])
            return DieReading(k, center, box, conf)
        if _touching(c, cands):
            return refuse("touching another die")
        if float(p[0]) > 0.5:
            return refuse("unreadable")
        if (
            _sharpness(np.asarray(cv2.cvtColor(c.crop, cv2.COLOR_BGR2GRAY), np.uint8))
            < BLUR_MIN * 4
        ):
            return refuse("blurred")
        if contradict:
            return refuse("unclear (pips and shape disagree)")
        return refuse("unclear")


def _touching(c: _Candidate, cands: list[_Candidate]) -> bool:
    """Whether another find lies against this one: their boxes, grown by 15 %, meet
    (their centres are closer than 1.15 times their mean side). Not the bigger side: a
    stray find three dice wide made every doubtful die within a die's width of its
    edge "touching", a reason that sends the players to move dice that lie apart."""
    s = c.spot
    return any(
        o is not c and np.hypot(o.spot.x - s.x, o.spot.y - s.y) < 1.15 * (s.size + o.spot.size) / 2
        for o in cands
    )


def _shrink(frame: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.uint8], float]:
    """A frame larger than ``MAX_SIDE`` shrunk by a whole factor, and that factor.

    Whole blocks are averaged (INTER_AREA); the few rows and columns past the last whole
    block are dropped. An even factor is taken as halvings first, which OpenCV does far
    faster than other factors: 4000 x 3000 -> 1000 x 750 in about 6 ms instead of 19 on
    one core, within one grey level of the one-step average.
    """
    f = _shrink_factor(frame)
    if f == 1:
        return frame, 1.0
    small, rest = frame, f
    while rest % 2 == 0:
        small = halve(small)
        rest //= 2
    if rest > 1:
        small = by_factor(small, rest)
    return small, float(f)


def _shrink_factor(frame: npt.NDArray[np.uint8]) -> int:
    """The whole factor ``_shrink`` divides the frame's sides by (1: not shrunk)."""
    return max(1, -(-int(max(frame.shape[:2])) // MAX_SIDE))


THUMB_SIDE = 160


def _thumbnail_halves(frame: npt.NDArray[np.uint8], side: int = THUMB_SIDE) -> bool:
    """Whether ``_thumbnail`` halves the frame (at least once) on its way to ``side``."""
    return bool(frame.shape[1] // 2 >= side and frame.shape[0] >= 2)


def _thumbnail(frame: npt.NDArray[np.uint8], side: int = THUMB_SIDE) -> npt.NDArray[np.uint8]:
    """The frame about ``side`` pixels wide, for its brightness and sharpness: halved while
    it stays that wide (OpenCV's fast INTER_AREA path, 2x2 blocks averaged), then resized
    the rest of the way. Other whole factors of INTER_AREA are several times slower: for
    640 -> 160, 0.8 ms against 0.1 ms on one core."""
    small = frame
    while _thumbnail_halves(small, side):
        small = halve(small)
    if small.shape[1] == side:
        return small
    nh = max(1, round(side * small.shape[0] / small.shape[1]))
    return np.asarray(cv2.resize(small, (side, nh), interpolation=cv2.INTER_AREA), np.uint8)


def _as_bgr(frame: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    a = checked_frame(frame)
    if a.ndim == 2:
        return np.asarray(cv2.cvtColor(a, cv2.COLOR_GRAY2BGR), np.uint8)
    if a.shape[2] == 4:
        return np.asarray(cv2.cvtColor(a, cv2.COLOR_BGRA2BGR), np.uint8)
    return a


def _with_bands(said: str, frame: npt.NDArray[np.uint8]) -> str:
    """``said`` of dice not seen or too dim to read, and why if the frame tells: dice in
    the dark bands of a flickering lamp go unseen or unread, and throwing again does not
    help while it flickers."""
    if is_banded(frame):
        return f"{said}: {IN_BANDS}"
    return said


def _reroll(reason: str, dice: tuple[DieReading, ...] = ()) -> FrameReading:
    return FrameReading(FrameStatus.REROLL, reason, dice)
