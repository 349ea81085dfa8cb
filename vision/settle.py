"""When to believe a throw: dice moving, dice at rest, a hand in the tray, an empty tray.

:class:`Settler` is pure logic: feed it every frame together with what the reader
made of that frame, and it answers with a small frozen :class:`SettleEvent`.

* ``MOVING``: the picture changes between frames, or the readings do not yet agree.
* ``SETTLED``: the picture is still and the last ``consistent_frames`` readings agree
  (same dice, same values, centres within a fraction of a die's size). The event
  carries that reading; ``entered`` is true on the first settled frame only. The
  first frame after a reset is never SETTLED: nothing shows yet that it is still.
  Readings that waver on a still picture make it MOVING until they agree again, and
  then SETTLED again, but not ``entered``: the dice did not come to rest anew. Only
  motion or a hand since they settled makes their next rest a new one.
* ``HAND``: one large foreign region, far bigger than any die: a hand (or a cup)
  reaching in. Seen as a big connected change between frames, or as a big region
  that differs from the *base* picture and is not a die, even when it keeps still.
  The base is the empty tray given to :meth:`Settler.set_reference`, else the last
  frame that was SETTLED or EMPTY (not a first frame, which shows nothing still).
  A lasting change that is not a hand (a lamp switched on, a shadow) would hold
  HAND forever, so after ``adopt_after`` still frames in HAND the settler takes
  the scene as its new base. It keeps the base it had before: a frame that matches
  that one again (the hand drawn back, the shadow gone) brings it back, instead of
  showing the place where the change was as a hand until that too is adopted.
  The dice's first rest after an adoption is ``adopted``, not ``entered``: the hand may
  still lie over a die. So is their next rest after the adopted thing shifts a little
  where it lies (motion only within a die's size of its outline); any other motion
  (a throw, the hand drawn back) makes the next rest a new one. :meth:`Settler.resume`
  keeps what was adopted when the tray is found as it was, or with only that thing
  shifted a little.
* ``EMPTY``: the picture is still and the reader finds no dice. Once it has been so,
  read the same, for ``consistent_frames`` frames, the event says ``empty_settled``
  (once per still stretch), so a table can say why no throw comes ("too dark").

A still picture whose readings never agree (a die read in some frames and refused in
others) never settles. After ``waver_after`` such frames the event gives ``wavered``,
once per still stretch: a refusal (the last reading refused, or "the dice read
differently from frame to frame") for a table to show instead of waiting without a word.

Motion is measured cheaply: the frame is shrunk to ``SettleConfig.work_side``
pixels on its long side and slightly blurred, and compared with the previous one,
channel by channel (a hand can be as bright as a wooden table, not as blue). Two
things that change every pixel are no motion: the light (a lamp flickering, the
camera's exposure: the levels are matched first; a lamp flickering faster than a
rolling shutter's exposure, whose bands of light move down the picture: each row's
light is matched) and the camera trembling by a pixel
or two (a fan, a knocked table: the shift of the tray around the dice is measured and
undone; on a tray too plain for that, the shift of the dice read, when all of them
moved alike). Only a shift of the whole picture is undone, so a die sliding across it
still moves.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from vision.frames import checked_frame
from vision.types import DieReading, FrameReading, FrameStatus

Frame = npt.NDArray[np.uint8]


class FrameReader(Protocol):
    """What the settler needs of a pip reader (``vision.reader.PipReader`` is one)."""

    def read(self, frame_bgr: Frame, expect: int | None = None) -> FrameReading: ...


class SettleState(StrEnum):
    EMPTY = "empty"
    MOVING = "moving"
    HAND = "hand"
    SETTLED = "settled"


@dataclass(frozen=True)
class SettleConfig:
    """Knobs of :class:`Settler`; the defaults suit a tray seen from 30-60 cm above."""

    consistent_frames: int = 3
    """Readings in a row that must agree (on still frames) before ``SETTLED``."""
    center_tolerance: float = 0.35
    """How far a die's centre may wander between agreeing readings, in die sizes."""
    work_side: int = 320
    """Long side, in pixels, of the shrunk copy used for motion and hands."""
    pixel_threshold: int = 18
    """Change (0-255) in any colour channel that counts a working pixel as changed."""
    motion_fraction: float = 0.002
    """Changed fraction of the working frame above which the picture is moving ..."""
    motion_die_areas: float = 0.1
    """... or changed pixels above this many die areas, whichever is smaller."""
    hand_fraction: float = 0.08
    """A single changed region at least this fraction of the frame ..."""
    hand_die_areas: float = 10.0
    """... and at least this many die areas (when dice have been seen) is a hand."""
    adopt_after: int = 30
    """Still frames in HAND after which the scene becomes the new base picture."""
    waver_after: int = 15
    """Still frames whose readings have not agreed (nor settled, nor read empty) after
    which the event gives ``wavered``: a refusal to show (1.5 s at 10 frames a second).
    At least three times ``consistent_frames``, whatever is given here."""
    shake_px: float = 2.0
    """A shift of the whole picture up to this many working pixels is the camera shaking
    (a table knocked, a fan), not motion: the picture is held against its shifted copy."""

    def __post_init__(self) -> None:
        if self.consistent_frames < 1:
            raise ValueError("consistent_frames must be at least 1")
        if self.center_tolerance <= 0:
            raise ValueError("center_tolerance must be positive")
        if self.adopt_after < 1:
            raise ValueError("adopt_after must be at least 1")
        if self.waver_after < 1:
            raise ValueError("waver_after must be at least 1")
        if self.work_side < 16:
            raise ValueError("work_side must be at least 16")
        if self.shake_px < 0:
            raise ValueError("shake_px must not be negative")
        if not 0 < self.hand_fraction < 1:
            raise ValueError("hand_fraction must be between 0 and 1")


@dataclass(frozen=True)
class SettleEvent:
    """The settler's verdict on one frame."""

    state: SettleState
    reading: FrameReading
    """The reading given with this frame. Count a throw only when ``state`` is SETTLED."""
    entered: bool
    """True on the first frame of this state (e.g. the moment the dice came to rest);
    for SETTLED, only when the picture moved or a hand was in since the dice last
    settled."""
    motion: float
    """Changed fraction of the frame since the previous one (0-1)."""
    foreign: float
    """Largest region that is neither tray nor die (0-1 of the frame)."""
    streak: int
    """How many still frames in a row the readings have agreed."""
    again: bool = False
    """True on the first SETTLED frame after :meth:`Settler.resume` when the tray has not
    changed since its last rest before the frames paused: nobody touched the dice while
    the table was not looking. Such a rest is not ``entered``; a table says why it
    counts nothing ("dice lie as last thrown")."""
    adopted: bool = False
    """True on the first SETTLED frame after the settler took a scene it had seen as a
    hand, kept still for ``adopt_after`` frames, as its new base, with no motion since:
    a hand, a cup or a shadow may still be in the tray, over a die. Such a rest is not
    ``entered``; a table asks for it to be taken out."""
    empty_settled: bool = False
    """True once per still stretch of EMPTY frames, when the tray has been still and read
    the same (no dice, too dark, blurred) for ``consistent_frames`` frames after a first
    one: the moment to say why no throw comes. Dice in flight may blur a frame or two
    to "no dice"; they do not keep a still tray empty that long."""
    wavered: FrameReading | None = None
    """Given once per still stretch, when the tray has been still for ``waver_after``
    frames and the readings never agreed (a die read in some frames and refused in
    others: a dark band of a flickering lamp over it, a die on the edge of being read):
    a refusal for a table to show, so that it does not wait without a word. It is the
    stretch's last reading refused, or one saying the dice read differently from frame
    to frame; never a reading to count."""

    @property
    def settled(self) -> bool:
        return self.state is SettleState.SETTLED


def die_size(die: DieReading) -> float:
    """A die's size in pixels: the longer side of its box."""
    (_, _), (w, h), _ = die.box
    return float(max(w, h))


def readings_agree(a: FrameReading, b: FrameReading, center_tolerance: float) -> bool:
    """Same status, same dice with the same values, centres within tolerance (in die sizes).

    Dice are paired greedily, nearest centres first, so their order does not matter.
    """
    if a.status is not b.status or len(a.dice) != len(b.dice):
        return False
    pairs: list[tuple[float, int, int]] = []
    for i, da in enumerate(a.dice):
        for j, db in enumerate(b.dice):
            dist = math.dist(da.center, db.center)
            pairs.append((dist, i, j))
    pairs.sort()
    used_a: set[int] = set()
    used_b: set[int] = set()
    for dist, i, j in pairs:
        if i in used_a or j in used_b:
            continue
        da, db = a.dice[i], b.dice[j]
        size = max(die_size(da), die_size(db), 1.0)
        if da.value != db.value or dist > center_tolerance * size:
            return False
        used_a.add(i)
        used_b.add(j)
    return True


def _quartiles(img: Frame) -> npt.NDArray[np.float64]:
    """3 x 3: the lower quartile, median and upper quartile (rows) of each channel
    (columns), from every fourth pixel each way."""
    sample = np.ascontiguousarray(img[::4, ::4])
    n = sample.shape[0] * sample.shape[1]
    out = np.empty((3, 3))
    for c in range(3):
        cumulative = cv2.calcHist([sample], [c], None, [256], [0, 256]).ravel().cumsum()
        out[:, c] = np.searchsorted(cumulative, (0.25 * n, 0.5 * n, 0.75 * n))
    return out


def _match_levels(b: Frame, qa: npt.NDArray[np.float64], qb: npt.NDArray[np.float64]) -> Frame:
    """``b`` with its levels taken to those of a picture whose quartiles are ``qa``
    (``qb`` being ``b``'s), channel by channel: ``gain * v + offset`` meeting the two
    pictures' quartiles, so a camera's exposure, its white balance or a lamp's flicker
    is no change. Dice or a hand cover too small a part of the tray to move the
    quartiles much. A flat picture, whose quartiles are too close together to say a
    gain, is only shifted."""
    spread_a, spread_b = qa[2] - qa[0], qb[2] - qb[0]
    wide = (spread_a >= 8) & (spread_b >= 8)
    gain = np.clip(np.where(wide, spread_a / np.maximum(spread_b, 1.0), 1.0), 0.6, 1.6)
    offset = qa[1] - gain * qb[1]
    if np.all(np.abs(gain - 1.0) < 0.02) and np.all(np.abs(offset) < 1.0):
        return b
    levels = np.zeros((3, 4), np.float32)
    levels[[0, 1, 2], [0, 1, 2]] = gain
    levels[:, 3] = offset
    return np.asarray(cv2.transform(b, levels), dtype=np.uint8)


ROWS_CHANGED = 0.05
"""The changed share of a picture from which bands of light are looked for, and under
which the rows' light taken to the other picture's must bring it (``_match_rows``):
moving bands change most of a picture, a die rolling a little of it. A hand over most
of some rows changes what is left of them when their light is matched."""


def _match_rows(a: Frame, b: Frame) -> Frame:
    """``b`` with each row's light taken to ``a``'s: each row of each channel times the
    ratio of the two rows' means (within 0.6-1.6, smoothed over 5 rows). A lamp that
    flickers faster than the exposure lights the rows of a rolling shutter's picture
    unevenly, in bands that move from frame to frame. Where nothing else changed, the
    ratio is the bands' alone; a die that moved, or a hand, is left changed."""
    ma = cv2.reduce(a, 1, cv2.REDUCE_AVG, dtype=cv2.CV_32F)  # rows x 1 x channels
    mb = cv2.reduce(b, 1, cv2.REDUCE_AVG, dtype=cv2.CV_32F)
    gain = np.clip((ma + 1.0) / (mb + 1.0), 0.6, 1.6)
    gain = cv2.blur(gain, (1, 5), borderType=cv2.BORDER_REPLICATE)
    whole = cv2.resize(gain, (b.shape[1], b.shape[0]), interpolation=cv2.INTER_NEAREST)
    return np.asarray(cv2.convertScaleAbs(cv2.multiply(b.astype(np.float32), whole)), np.uint8)


def _differing(a: npt.NDArray[Any], b: npt.NDArray[Any], threshold: float) -> Frame:
    """0/1 mask of the pixels where ``a`` and ``b`` (of one type) differ by more than
    ``threshold`` in any channel."""
    channels = cv2.split(cv2.absdiff(a, b))
    biggest = cv2.max(cv2.max(channels[0], channels[1]), channels[2])
    _, mask = cv2.threshold(biggest, threshold, 1, cv2.THRESH_BINARY)
    return np.asarray(mask, dtype=np.uint8)


def _shift_between(
    a: Frame, b: Frame, ignore: Frame | None = None, quarters: int = 3
) -> tuple[float, float] | None:
    """The shift (dx, dy) in pixels that moves picture ``b`` onto ``a`` (a few steps of
    Lucas-Kanade for one translation of the whole picture): good to a tenth of a pixel
    for shifts of a pixel or two, meaningless for large ones.

    Measured only where ``ignore`` is 0 (the dice read are left out: a die sliding is
    no camera shaking); None unless at least ``quarters`` quarters of the picture have
    texture of their own to tell a shift by. On a plain tray the only edges may be
    those of something moving that the reader does not see (a hand, a die it missed):
    measured from them, its motion would be taken for the camera's and undone.
    """
    ga = cv2.cvtColor(a, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gb = cv2.cvtColor(b, cv2.COLOR_BGR2GRAY).astype(np.float32)
    ix = cv2.Sobel(gb, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
    iy = cv2.Sobel(gb, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
    if ignore is not None:
        keep = (ignore == 0).astype(np.float32)
        ix, iy = cv2.multiply(ix, keep), cv2.multiply(iy, keep)
    xx, yy = cv2.multiply(ix, ix), cv2.multiply(iy, iy)
    if _textured_quarters(xx, yy) < quarters:
        return None
    sxx, syy = cv2.sumElems(xx)[0], cv2.sumElems(yy)[0]
    sxy = cv2.sumElems(cv2.multiply(ix, iy))[0]
    det = sxx * syy - sxy * sxy
    if det <= 0.01 * sxx * syy:
        return None  # edges all one way: a shift along them cannot be told
    dx = dy = 0.0
    moved = gb
    for step in range(_SHIFT_STEPS):
        if step:
            moved = _moved(gb, dx, dy)
        diff = cv2.subtract(ga, moved)
        bx = -cv2.sumElems(cv2.multiply(ix, diff))[0]
        by = -cv2.sumElems(cv2.multiply(iy, diff))[0]
        dx += (syy * bx - sxy * by) / det
        dy += (sxx * by - sxy * bx) / det
    return float(dx), float(dy)


_TEXTURE = 0.5
"""Mean squared gradient (grey levels per pixel, squared), in each direction, below
which a part of the picture is too plain to measure a shake by. The labelled photos,
shrunk to the working size, have 0.5 to 38 over the whole picture (medians 4.5 and 10
in the two sets); a plain grey tray under sensor noise of 4 grey levels has 0.07.
Below it the shake is not undone: on a plain tray it changes little beyond the dice's
edges anyway."""
_SHIFT_STEPS = 3
_DRIFT_FRAMES = 10
"""How many shifts measured on the dice in a row (a plain tray) must add up to no more
than twice ``SettleConfig.shake_px`` before such a shift is undone as the camera's: a
second at 10 fps. A camera trembling about its place passes; two dice sliding side by
side faster than 0.4 working pixels a frame (4 px a second in a 640-px frame at 10 fps)
do not."""


def _textured_quarters(xx: npt.NDArray[Any], yy: npt.NDArray[Any]) -> int:
    """How many quarters of the picture (2 x 2) have a mean squared gradient of at
    least ``_TEXTURE`` both across (``xx``) and down (``yy``)."""
    h, w = xx.shape[:2]
    count = 0
    for rows in (slice(0, h // 2), slice(h // 2, h)):
        for cols in (slice(0, w // 2), slice(w // 2, w)):
            if min(float(xx[rows, cols].mean()), float(yy[rows, cols].mean())) >= _TEXTURE:
                count += 1
    return count


def _moved(img: npt.NDArray[Any], dx: float, dy: float) -> npt.NDArray[Any]:
    """``img`` shifted by (dx, dy) pixels; the strips it leaves repeat its edge."""
    h, w = img.shape[:2]
    shift = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy]], np.float32)
    return np.asarray(cv2.warpAffine(img, shift, (w, h), borderMode=cv2.BORDER_REPLICATE))


def _dice_mask(shape: tuple[int, ...], dice: Iterable[DieReading], scale: float) -> Frame:
    """1 on the working pixels of each die's box, grown by 30 %; 0 elsewhere."""
    mask = np.zeros(shape[:2], np.uint8)
    grow = 1.3 * scale
    for die in dice:
        (cx, cy), (w, h), angle = die.box
        pts = cv2.boxPoints(((cx * scale, cy * scale), (w * grow, h * grow), angle))
        cv2.fillConvexPoly(mask, np.round(pts).astype(np.int32), 1)
    return mask


_Base = tuple[Frame | None, Frame | None, FrameReading | None]
"""The pictures a frame is held against: the reference, the last still picture and
what was read on it."""


@dataclass(frozen=True)
class _Adoption:
    """What the settler knows of what it adopted (``_former``, ``_adopted_band``,
    ``_band_stale``), kept across :meth:`Settler.resume`."""

    former: _Base | None
    band: Frame | None
    band_stale: bool


_Pause = tuple[Frame, FrameReading | None, _Adoption]
"""The last still picture before a pause, what was read on it, and what was adopted."""


class Settler:
    """Turns a stream of ``(frame, reading)`` into MOVING / HAND / SETTLED / EMPTY."""

    def __init__(self, config: SettleConfig | None = None) -> None:
        self.config = config or SettleConfig()
        self._reference: Frame | None = None
        self._die_side: float | None = None  # the last seen die size, full-frame pixels
        self._former: _Base | None = None  # the base before the last adoption
        self._levels: list[tuple[Frame, npt.NDArray[np.float64]]] = []  # see _quartiles
        self.reset()

    def reset(self) -> None:
        """Forget the past frames (keeps the empty-tray reference)."""
        self._prev: Frame | None = None
        self._prev_reading: FrameReading | None = None
        self._anchor: FrameReading | None = None
        self._still: Frame | None = None  # the last SETTLED or EMPTY picture
        self._still_reading: FrameReading | None = None  # and what was read on it
        self._streak = 0
        self._hand_still = 0
        self._wavering = 0  # still frames of this stretch whose readings did not agree
        self._waver_refused: FrameReading | None = None  # the last of them refused
        self._stretch_told = False  # this still stretch settled, read empty or wavered
        # the last shifts of the camera measured on the dice (a plain tray), while they
        # read alike: dice sliding together add up, a trembling camera's do not
        self._shakes: deque[tuple[float, float]] = deque(maxlen=_DRIFT_FRAMES)
        self._state: SettleState | None = None
        self._moved = True  # motion or a hand since the last SETTLED (or none yet)
        # the last still picture before resume(), until something is seen to change
        self._pause: _Pause | None = None
        self._paused = False  # resume() called, and no frame since: held against _pause
        self._unmoved = False  # the tray as at its last rest, since resume(), untouched
        self._adopted = False  # a still "hand" taken as the base, no motion since
        # around the outline of what was adopted: where it moves when it shifts in place
        self._adopted_band: Frame | None = None
        self._band_stale = False  # it shifted: take the outline anew once still
        # Of the base from before an adoption, only the empty-tray reference outlives this.
        former_reference = self._former[0] if self._former is not None else None
        self._former = None if former_reference is None else (former_reference, None, None)

    def resume(self) -> None:
        """Frames come again after a pause (the table stopped looking, and now waits for
        dice again). Everything is forgotten, as by :meth:`reset`, but the last still
        picture and its reading are kept for the first frame, which is held against it.
        If the tray looks as it did then, the dice have not moved since, and their rest
        is no new one (SETTLED, not ``entered``, but ``again``). Otherwise, or with no
        still picture of that size, the next rest is new, as after a reset. Without it,
        dice whose reading was refused ("die 2 is tilted") were counted, unmoved, once
        the table stopped reading and was asked to read again, if read the second time.
        What had been adopted is kept for that frame too (:meth:`_unchanged_since_still`).
        When nothing has lain still since the last pause (STOP and ROLL-DONE twice), the
        picture from before that pause is the one held, unless motion, a hand or frames
        of another size were seen since (but for what was adopted shifting in place).
        """
        paused = self._pause
        if self._still is not None:
            adopted = _Adoption(self._former, self._adopted_band, self._band_stale)
            paused = (self._still, self._still_reading, adopted)
        # else nothing lay still since the last pause (the frames paused again at once):
        # its picture still holds
        self.reset()
        # Held against the first frame only: as the base a hand is told by, a lamp
        # switched on or a shadow fallen while the frames paused would be a hand kept
        # still, and a throw made meanwhile would wait for it to be adopted.
        self._pause, self._paused = paused, paused is not None

    def _unchanged_since_still(
        self,
        small: Frame,
        reading: FrameReading,
        scale: float,
        motion_px: float,
        die_area: float | None,
    ) -> bool:
        """Whether the first frame after resume() is the last still picture (the camera
        shaking by a pixel or two aside).

        What had been adopted (a hand kept still over a die) is kept when it is, and
        when the only change is that thing shifted a little where it lay
        (:meth:`_shifted_in_place`): then the dice's next rest is ``adopted``, as it
        would have been without the pause. Otherwise its outline is forgotten, as after
        any other motion; the tray from before it is kept in any case (``_former``), so
        that once it is drawn back it is gone, not a hand kept still in an empty tray.
        The frames did not show what happened meanwhile: a die thrown again within a
        die's size of the thing, shifted too, makes that rest ``adopted`` as well (the
        table asks for it to be taken out, then counts the dice as they lie)."""
        assert self._pause is not None
        still, still_reading, adopted = self._pause
        self._paused = False
        if still.shape != small.shape:
            return False
        changed = self._changed_unshaken(small, still, reading, still_reading, scale, motion_px)
        unchanged = bool(np.count_nonzero(changed) <= motion_px)
        self._former = adopted.former
        if not unchanged and adopted.band is None:
            return False
        self._adopted_band, self._band_stale = adopted.band, adopted.band_stale
        if not unchanged:
            last = still_reading.dice if still_reading is not None else ()
            dice = [*reading.dice, *last]
            self._adopted = self._shifted_in_place(
                small, still, changed, dice, scale, motion_px, die_area
            )
        return unchanged

    def _changed_unshaken(
        self,
        small: Frame,
        other: Frame,
        reading: FrameReading,
        other_reading: FrameReading | None,
        scale: float,
        motion_px: float,
        on_dice: bool = False,
    ) -> Frame:
        """The working pixels changed from ``other`` to ``small``, with the camera's shake
        undone when more than ``motion_px`` changed: measured away from the dice, now and
        on ``other``, and undone everywhere (dice still on a trembling tray are still);
        with ``on_dice``, on a plain tray, measured on the dice when both frames read two
        or more alike (``_unshaken``). With no dice read there is no throw to settle, and
        what moves may be all there is to measure by (a hand on a plain tray): nothing is
        undone."""
        changed = self._changed(small, other)
        if np.count_nonzero(changed) <= motion_px or not reading.dice:
            return changed
        last = other_reading.dice if other_reading is not None else ()
        dice = _dice_mask(small.shape, [*reading.dice, *last], scale)
        same = (
            on_dice
            and len(reading.dice) >= 2
            and other_reading is not None
            and readings_agree(reading, other_reading, self.config.center_tolerance)
        )
        if on_dice and not same:
            self._shakes.clear()
        return self._unshaken(small, other, changed, dice, same_dice=same)

    def set_reference(self, empty_tray_bgr: Frame | None) -> None:
        """Show the settler the empty tray, so it also sees a hand that keeps still.

        ``None`` forgets the reference.
        """
        self._reference = None if empty_tray_bgr is None else self._small(empty_tray_bgr)
        self._former = None
        self._adopted_band, self._band_stale = None, False
        # nor is it taken back after a pause
        if self._pause is not None:
            self._pause = (*self._pause[:2], _Adoption(None, None, False))

    @property
    def state(self) -> SettleState | None:
        """The state of the last frame, ``None`` before the first."""
        return self._state

    def _scale(self, shape: tuple[int, ...]) -> float:
        h, w = shape[:2]
        return min(1.0, self.config.work_side / max(h, w))

    def _small(self, frame: Frame) -> Frame:
        """The working copy: shrunk, slightly blurred, still in colour (skin and wood
        can be equally bright)."""
        scale = self._scale(frame.shape)
        # A BGRA frame's alpha channel is no picture.
        img = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR) if frame.ndim == 2 else frame[:, :, :3]
        if scale < 1.0:
            size = (max(1, round(frame.shape[1] * scale)), max(1, round(frame.shape[0] * scale)))
            img = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
        return np.asarray(cv2.GaussianBlur(img, (5, 5), 0), dtype=np.uint8)

    def _quartiles(self, img: Frame) -> npt.NDArray[np.float64]:
        """:func:`_quartiles` of a working picture, remembered for the few pictures a
        frame is compared with (this one, the one before, the base)."""
        for seen, quartiles in self._levels:
            if seen is img:
                return quartiles
        quartiles = _quartiles(img)
        self._levels = [(img, quartiles), *self._levels[:3]]
        return quartiles

    def _changed(self, a: Frame, b: Frame) -> Frame:
        """0/1 mask of working pixels that differ in any channel, forgiving an overall
        change of exposure or white balance (``b``'s levels are first taken to ``a``'s),
        and bands of light that moved between the two: when many pixels changed, and
        taking each row of ``b``'s light to ``a``'s instead (``_match_rows``) leaves few
        changed, those few are the change."""
        matched = _match_levels(b, self._quartiles(a), self._quartiles(b))
        mask = _differing(a, matched, self.config.pixel_threshold)
        few = ROWS_CHANGED * mask.size
        if cv2.countNonZero(mask) < few:
            return mask
        rows = _differing(a, _match_rows(a, b), self.config.pixel_threshold)
        return rows if cv2.countNonZero(rows) < few else mask

    def _unshaken(
        self,
        a: Frame,
        b: Frame,
        mask: Frame,
        dice: Frame,
        blank: bool = False,
        same_dice: bool = False,
    ) -> Frame:
        """``mask`` (``a`` against ``b``), or, when the camera has shaken, the mask of ``a``
        against ``b`` moved by the shake, whichever changes fewer pixels. With ``blank``
        the dice are left out of the new mask, as they are out of ``mask``.

        The shake is one small shift of the whole picture, measured away from the dice
        (1 in ``dice``; :func:`_shift_between`) and then undone everywhere: a die
        rolling, or a hand, is a change of one part and stays one, however little it
        moves. On a tray too plain to measure it by (felt, cardboard), it is measured on
        the dice themselves when ``same_dice`` (both frames were read alike, two dice or
        more): all of them shifted alike is the camera, one die creeping while the others
        lie still leaves them all changed once the mean shift is undone, and something
        moving that the reader does not list is not measured by at all. A trembling
        camera brings the dice back about where they were; dice sliding together (the
        tray pushed, or two dice slowing down side by side) do not: a shift measured
        so is undone only once ``_DRIFT_FRAMES`` of them in a row add up to no more than
        twice ``shake_px`` (a camera trembling by ``shake_px`` each way).
        """
        shift = _shift_between(a, b, dice)
        by_dice = shift is None and same_dice
        if by_dice:
            shift = _shift_between(a, b, 1 - dice, quarters=0)
        if shift is None:
            return mask
        dx, dy = shift
        limit = self.config.shake_px
        if by_dice:
            self._shakes.append((dx, dy))
            drift_x, drift_y = (sum(d[i] for d in self._shakes) for i in (0, 1))
            if len(self._shakes) < _DRIFT_FRAMES or max(abs(drift_x), abs(drift_y)) > 2 * limit:
                return mask
        if not (abs(dx) <= limit and abs(dy) <= limit) or (abs(dx) < 0.05 and abs(dy) < 0.05):
            return mask
        h, w = b.shape[:2]
        again = self._changed(a, _moved(b, dx, dy))
        # The strips that came into view with the shake were never seen; the other
        # edges keep watch (a hand coming in from there is seen at once).
        sx, sy = math.ceil(abs(dx)), math.ceil(abs(dy))
        if dx > 0:
            again[:, :sx] = 0
        elif dx < 0:
            again[:, w - sx :] = 0
        if dy > 0:
            again[:sy] = 0
        elif dy < 0:
            again[h - sy :] = 0
        if blank:
            again[dice > 0] = 0
        return again if np.count_nonzero(again) < np.count_nonzero(mask) else mask

    def _largest_region(self, mask: Frame) -> int:
        """Area of the largest connected region, small gaps closed first."""
        closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        count, _, stats, _ = cv2.connectedComponentsWithStats(closed, connectivity=8)
        if count <= 1:
            return 0
        return int(stats[1:, cv2.CC_STAT_AREA].max())

    def _die_area(self, reading: FrameReading, scale: float) -> float | None:
        """Typical die area in working pixels: from this reading, else the last with dice."""
        if reading.dice:
            self._die_side = float(np.median([die_size(d) for d in reading.dice]))
        if self._die_side is None:
            return None
        return (self._die_side * scale) ** 2

    def _thresholds(self, pixels: float, die_area: float | None) -> tuple[float, float]:
        """(changed pixels that mean motion, region size that means a hand), working pixels."""
        cfg = self.config
        motion = cfg.motion_fraction * pixels
        hand = cfg.hand_fraction * pixels
        if die_area is not None:
            motion = min(motion, max(cfg.motion_die_areas * die_area, 4.0))
            # A hand is many dice big; capped so one absurd "die" cannot hide a hand.
            hand = max(hand, min(cfg.hand_die_areas * die_area, 0.25 * pixels))
        return motion, hand

    def _base_picture(
        self, small: Frame, reading: FrameReading, base: _Base
    ) -> tuple[Frame | None, list[DieReading]]:
        """The picture of ``base`` to hold ``small`` against (None when there is none of
        its size), and the dice to leave out: read now, or on that picture (dice picked up
        leave a change where they lay)."""
        reference, still, still_reading = base
        dice = list(reading.dice)
        picture: Frame | None
        if reference is not None and reference.shape == small.shape:
            picture = reference
        else:  # none, or of another size (another camera mode): the last still picture
            picture = still
            if still_reading is not None:
                dice += still_reading.dice
        if picture is None or picture.shape != small.shape:
            return None, dice
        return picture, dice

    def _foreign_mask(
        self, small: Frame, reading: FrameReading, scale: float, hand_area: float
    ) -> Frame | None:
        """Pixels that differ from the base picture and are not a read die (now, or on the
        base picture)."""
        base, dice = self._base_picture(small, reading, self._base())
        if base is None:
            return None
        on_dice = _dice_mask(small.shape, dice, scale)
        mask = self._changed(small, base)
        mask[on_dice > 0] = 0
        if np.count_nonzero(mask) >= hand_area:
            mask = self._unshaken(small, base, mask, on_dice, blank=True)
        return mask

    def _foreign(
        self, small: Frame, reading: FrameReading, scale: float, hand_area: float
    ) -> int | None:
        """The largest foreign region (0 when too few pixels differ to make a hand), or
        None when there is no base picture to hold the frame against."""
        mask = self._foreign_mask(small, reading, scale, hand_area)
        if mask is None:
            return None
        return self._largest_region(mask) if np.count_nonzero(mask) >= hand_area else 0

    def _base(self) -> _Base:
        return self._reference, self._still, self._still_reading

    def _set_base(self, base: _Base) -> None:
        self._reference, self._still, self._still_reading = base

    def _changed_by_ratio(self, a: Frame, b: Frame) -> Frame:
        """Like :meth:`_changed`, with ``b``'s levels taken to ``a``'s by one gain a
        channel: the median ratio of the two pictures' pixels. A camera's exposure scales
        every pixel alike, and the tray, most of the picture, gives the median; a hand
        that covers a fifth of the tray moves the quartiles, and matched by them the
        tray around it would differ too."""
        sa = a[::4, ::4].reshape(-1, 3).astype(np.float32)
        sb = b[::4, ::4].reshape(-1, 3).astype(np.float32)
        gain = np.ones(3, np.float32)
        for c in range(3):
            lit = sb[:, c] >= 16  # the ratio of two dark pixels is mostly noise
            if np.count_nonzero(lit) >= 0.2 * len(lit):
                gain[c] = np.clip(np.median(sa[lit, c] / sb[lit, c]), 0.6, 1.6)
        matched = cv2.multiply(b.astype(np.float32), gain.reshape(1, 1, 3))
        return _differing(a.astype(np.float32), matched, self.config.pixel_threshold)

    def _band(self, small: Frame, reading: FrameReading, scale: float) -> Frame | None:
        """0/1: the working pixels within a die's size of the outline of what was adopted
        (a hand, where it lies now), or None when there is no such outline.

        What was adopted is the largest region that differs from the base from before
        the adoption (:meth:`_changed_by_ratio`), with its holes filled (dice under a
        shadow, a die between fingers). A change of the whole picture has no outline but
        the frame's edge, which counts as none: then no motion is a shift in place."""
        if self._former is None:
            return None
        base, dice = self._base_picture(small, reading, self._former)
        if base is None:
            return None
        mask = self._changed_by_ratio(small, base)
        mask[_dice_mask(small.shape, dice, scale) > 0] = 0
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        if count <= 1:
            return None
        biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        region = (labels == biggest).astype(np.uint8)
        # its holes: the parts of the rest that do not reach the frame's edge
        count, labels = cv2.connectedComponents(1 - region, connectivity=4)
        edge = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
        region = (~np.isin(labels, edge)).astype(np.uint8) | region
        side = (self._die_side or 0.0) * scale
        # no wider than an eighth of the picture: a reading's absurd die size would
        # otherwise cost a kernel of its size (or fail, not being a number)
        width = max(3, min(round(side) if math.isfinite(side) else 0, min(small.shape[:2]) // 8))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * width + 1, 2 * width + 1))
        # eroded with the frame's edge counted as inside: a hand reaching in from the
        # edge has no outline there
        inside = cv2.erode(region, kernel, borderType=cv2.BORDER_CONSTANT, borderValue=1)
        band = cv2.subtract(cv2.dilate(region, kernel), inside)
        return np.asarray(band, dtype=np.uint8) if cv2.countNonZero(band) else None

    def _shifted_in_place(
        self,
        small: Frame,
        prev: Frame,
        changed: Frame,
        dice: Iterable[DieReading],
        scale: float,
        motion_px: float,
        die_area: float | None,
    ) -> bool:
        """Whether the motion from ``prev`` to ``small`` (``changed``, the camera's shake
        undone) is what was adopted shifting a little where it lies.

        Along its outline, off ``dice`` (those read now and on ``prev``), at least a
        die's area must have changed: a hand shifting changes its whole edge,
        a die rolled near a shadow's edge only its own places. Elsewhere no more than
        ``motion_px`` pixels, or a tenth of those along the outline (the narrow gaps
        between a hand's fingers lie deeper, and change a little). Held first against
        ``changed``, then, if that fails, against the change with no shake undone: a
        hand's shift, measured as the camera's, leaves the dice changed once undone.

        A throw, or the hand drawn back, changes pixels away from the outline; then the
        outline is forgotten. It is not taken anew while things move (moving dice would
        take it along), only once the picture is still again."""
        band = self._adopted_band
        self._band_stale = False
        if band is None or band.shape != small.shape[:2]:
            self._adopted_band = None
            return False
        off_dice = cv2.bitwise_and(band, 1 - _dice_mask(small.shape, dice, scale))
        enough = max(motion_px, die_area or 0.0)
        for mask in (changed, None):
            if mask is None:
                mask = self._changed(small, prev)
            along = cv2.countNonZero(cv2.bitwise_and(mask, off_dice))
            elsewhere = cv2.countNonZero(cv2.subtract(mask, band))
            if along >= enough and elsewhere <= max(motion_px, 0.1 * along):
                self._band_stale = True
                return True
        self._adopted_band = None
        return False

    def update(self, frame: Frame, reading: FrameReading) -> SettleEvent:
        """Take the next frame and its reading; say what the tray is doing."""
        frame = checked_frame(frame)  # as the reader takes it: 8-bit grey, BGR or BGRA
        if frame.size == 0:
            raise ValueError(f"an empty frame (shape {frame.shape})")
        cfg = self.config
        small = self._small(frame)
        scale = self._scale(frame.shape)
        pixels = float(small.shape[0] * small.shape[1])
        prev, prev_reading = self._prev, self._prev_reading
        if prev is not None and prev.shape != small.shape:
            self.reset()  # the camera changed size: start over
            self._die_side = None
            prev = prev_reading = None
        die_area = self._die_area(reading, scale)
        motion_px, hand_area = self._thresholds(pixels, die_area)
        if self._paused:
            self._unmoved = self._unchanged_since_still(small, reading, scale, motion_px, die_area)
            self._moved = not self._unmoved

        changed_px = 0.0
        biggest_change = 0
        changed: Frame | None = None
        if prev is not None:
            changed = self._changed_unshaken(
                small, prev, reading, prev_reading, scale, motion_px, on_dice=True
            )
            changed_px = float(np.count_nonzero(changed))
            if changed_px >= hand_area:
                biggest_change = self._largest_region(changed)
        self._prev, self._prev_reading = small, reading

        foreign = self._foreign(small, reading, scale, hand_area) or 0
        if foreign >= hand_area and self._former is not None:
            # What was adopted may have gone: held against the base from before it,
            # the frame may be the tray as it was.
            adopted = self._base()
            self._set_base(self._former)
            before = self._foreign(small, reading, scale, hand_area)
            if before is not None and before < hand_area:
                foreign, self._former = before, None
                self._adopted_band, self._band_stale = None, False
            else:
                self._set_base(adopted)

        if max(biggest_change, foreign) >= hand_area:
            state = SettleState.HAND
            self._streak = 0
            self._moved, self._unmoved = True, False
            self._hand_still = self._hand_still + 1 if changed_px <= motion_px else 0
            if self._hand_still >= cfg.adopt_after:
                # Not a hand after all, or one that stays: make this the new normal.
                self._former = self._base()
                self._adopted_band, self._band_stale = self._band(small, reading, scale), False
                self._set_base((None, small, reading))
                self._hand_still = 0
                self._adopted = True
        elif changed_px > motion_px:
            state = SettleState.MOVING
            self._streak = 0
            self._moved, self._unmoved = True, False
        else:
            # Compare with the first reading of the still stretch, so a slow creep
            # cannot pass by agreeing with each step.
            anchor = self._anchor
            if (
                anchor is not None
                and self._streak > 0
                and readings_agree(anchor, reading, cfg.center_tolerance)
            ):
                self._streak += 1
            else:
                self._anchor = reading
                self._streak = 1
            if not reading.dice:
                state = SettleState.EMPTY
            elif self._streak >= cfg.consistent_frames and prev is not None:
                # A first frame (after a reset or a new size) is still only for want of
                # a frame to compare with: the dice may be flying through it.
                state = SettleState.SETTLED
            else:
                state = SettleState.MOVING
        if state is not SettleState.HAND:
            self._hand_still = 0
        if changed_px > motion_px:
            # What was adopted shifted where it lies (a hand resting over the dice moved
            # its fingers a little), so the dice's next rest is under it again; or it
            # went (a hand drawn back), or dice moved.
            dice = [*reading.dice, *(prev_reading.dice if prev_reading is not None else ())]
            self._adopted = (
                prev is not None
                and changed is not None
                and self._shifted_in_place(small, prev, changed, dice, scale, motion_px, die_area)
            )
        elif self._band_stale:
            self._band_stale = False
            self._adopted_band = self._band(small, reading, scale)
        if state in (SettleState.SETTLED, SettleState.EMPTY) and prev is not None:
            # Not a first frame: a hand taking the last dice out may be on it, and as
            # the base it would be a hand-sized change on every frame after it.
            self._still, self._still_reading = small, reading

        # The streak grows by one a frame and a first frame (prev None) holds only its
        # first: equal to the threshold once per still stretch, never on a first frame.
        empty_settled = state is SettleState.EMPTY and self._streak == max(cfg.consistent_frames, 2)
        still = changed_px <= motion_px and prev is not None
        wavered = self._waver(state, reading, still, empty_settled)

        if self._moved and not self._adopted:
            # seen to change since the pause (motion, a hand, another size): its picture
            # no longer holds, not after another pause either
            self._pause = None

        entered = state is not self._state
        again = under_adopted = False
        if state is SettleState.SETTLED:
            again = entered and self._unmoved
            # a hand kept still until it was taken for the tray may lie over a die
            under_adopted = entered and self._moved and self._adopted
            entered = entered and self._moved and not under_adopted  # nor if readings wavered
            self._moved = self._unmoved = self._adopted = False
        self._state = state
        return SettleEvent(
            state=state,
            reading=reading,
            entered=entered,
            motion=changed_px / pixels,
            foreign=foreign / pixels,
            streak=self._streak,
            again=again,
            adopted=under_adopted,
            empty_settled=empty_settled,
            wavered=wavered,
        )

    def _waver(
        self, state: SettleState, reading: FrameReading, still: bool, empty_settled: bool
    ) -> FrameReading | None:
        """Count a still frame whose reading has not (yet) agreed with the ones before it;
        after ``waver_after`` of them in one still stretch with nothing said of it (no
        rest, no empty tray), the refusal to show (``SettleEvent.wavered``), once."""
        if not still or state in (SettleState.HAND, SettleState.SETTLED):
            self._wavering, self._waver_refused = 0, None
            # moved: a new stretch to tell of; at rest: this one is told
            self._stretch_told = still and state is SettleState.SETTLED
            return None
        if empty_settled:
            self._stretch_told = True
        self._wavering += 1
        if not reading.is_ok:
            self._waver_refused = reading
        after = max(self.config.waver_after, 3 * self.config.consistent_frames)
        if self._wavering != after or self._stretch_told:
            return None
        self._stretch_told = True
        if self._waver_refused is not None:
            return self._waver_refused
        return FrameReading(
            FrameStatus.REROLL, "the dice read differently from frame to frame", reading.dice
        )


def watch(
    frames: Iterable[Frame],
    reader: FrameReader,
    settler: Settler | None = None,
    *,
    expect: int | None = None,
) -> Iterator[SettleEvent]:
    """Read every frame and run it through a settler; yields one event per frame."""
    s = settler or Settler()
    for frame in frames:
        yield s.update(frame, reader.read(frame, expect=expect))
