"""Measure the pip reader on the labelled photos altered as a camera might alter them.

    python -m vision.robustness [SETS...] [--tune] [--only NAME,...] [-v] [--classifier ONNX...]
    python -m vision.robustness [SETS...] [--tune] [--only NAME,...] --bands

Every image of the part (held-out unless ``--tune``) is read as it is and again after
each alteration: turned a quarter and by 17 degrees, shrunk to 0.6 and enlarged to 1.6
and 2 (labels moved with it; twice the size is a 640 x 480 view taken at the Pi camera's
1280 x 960), set in a border of tray twice its size (a wider view), half as
bright, brightened (gamma 0.6), darkened towards the corners (a cheap lens), with noise
(sigma 8), blurred (sigma 1.2), smeared by motion (9 px sideways), recompressed as JPEG
at quality 35, with red and blue swapped, and as its negative (a dark tray, dice of the
opposite shade: light pips on dark dice), cut through one die by the frame's edge, with
one die partly covered by a dark object, with a finger over part of one die, with a
lamp's reflection on every die, as seen by a camera four and five times closer (a
window around one die, enlarged), by a camera leaning over the tray (the far edge 15 %
narrower), through a wide-angle lens (barrel distortion), under a warm lamp (blue 0.7,
green 0.95, red 1.2 times), and sharpened as webcams do (an unsharp mask), with the
tray made black felt by colour (a rough cut), and with the dice cut out and laid on made
tray surfaces (``vision.surfaces``: their own tray's colour, green, red and black felt,
dark wood, a check cloth, grey rubber; a photo whose dice do not cut out cleanly gives
the bare surface and no labels); and in the dark: at an eighth of the light with a
lamp's reflection on every die, in a dim room with one lamp's pool of light round one
die, and laid on black felt at half the light, and at a quarter with the lamp's
reflection; with a hard shadow's edge across one die; and in bands of light and shade,
as a rolling shutter sees a lamp flickering with the mains. Scored as ``vision.bench``
scores (same matching, same words), plus how many wrong readings were in frames read
``ok``: the ones a table would take as a throw (in the others some die was refused, so
the table asks for a re-roll); and how many frames read ``ok`` had a die missed or one
too many (the table, knowing how many dice were thrown, asks for a re-roll on those;
``dicetable read`` without ``--expect`` would give them as read). A wrong reading under
any of them is what this is for: a reader that is right on the photos as taken and wrong
on the same dice a little darker is not safe at a table.
One core.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

from vision.bands import is_banded
from vision.bench import (
    Score,
    add_classifier_option,
    pct,
    reader_with,
    score_image,
)
from vision.dataset import SETS, LabelledDie, LabelledImage, Part, load_set, with_photos
from vision.reader import PipReader
from vision.surfaces import SURFACES, cut_out, lay_on, make_surface, name_seed

Frame = npt.NDArray[np.uint8]
Dice = tuple[LabelledDie, ...]
Alteration = Callable[[Frame, Dice, int], tuple[Frame, Dice]]


def as_taken(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    return frame, dice


def quarter_turn(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    """Turned 90 degrees clockwise: (x, y) goes to (h - 1 - y, x)."""
    h = frame.shape[0]
    turned = np.asarray(cv2.rotate(frame, cv2.ROTATE_90_CLOCKWISE), np.uint8)
    moved = tuple(
        LabelledDie(d.value, (h - d.bbox[3], d.bbox[0], h - d.bbox[1], d.bbox[2])) for d in dice
    )
    return turned, moved


def turned(degrees: float) -> Alteration:
    """Turned about the frame's centre (edges filled by replication); each label box keeps
    its size and moves with its centre."""

    def alter(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
        h, w = frame.shape[:2]
        m = cv2.getRotationMatrix2D((w / 2.0, h / 2.0), degrees, 1.0)
        out = np.asarray(
            cv2.warpAffine(frame, m, (w, h), borderMode=cv2.BORDER_REPLICATE), np.uint8
        )
        moved = []
        for d in dice:
            x0, y0, x1, y1 = d.bbox
            cx, cy = m @ np.array([(x0 + x1) / 2.0, (y0 + y1) / 2.0, 1.0])
            hw, hh = (x1 - x0) / 2.0, (y1 - y0) / 2.0
            moved.append(LabelledDie(d.value, (cx - hw, cy - hh, cx + hw, cy + hh)))
        return out, tuple(moved)

    return alter


def rescaled(k: float) -> Alteration:
    def alter(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
        interp = cv2.INTER_AREA if k < 1 else cv2.INTER_CUBIC
        out = np.asarray(cv2.resize(frame, None, fx=k, fy=k, interpolation=interp), np.uint8)
        moved = tuple(
            LabelledDie(d.value, (d.bbox[0] * k, d.bbox[1] * k, d.bbox[2] * k, d.bbox[3] * k))
            for d in dice
        )
        return out, moved

    return alter


def framed(k: float) -> Alteration:
    """A border of tray around the photo so the frame is ``k`` times as wide and high: the
    same dice, a smaller part of the frame, as a camera with more pixels and a wider view
    sees them. The border is the photo's edge colour (its median) with a little noise."""

    def alter(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
        h, w = frame.shape[:2]
        py, px = round(h * (k - 1) / 2), round(w * (k - 1) / 2)
        edge = np.concatenate([frame[0], frame[-1], frame[:, 0], frame[:, -1]])
        tray = [int(v) for v in np.median(edge, axis=0)]
        out = np.asarray(
            cv2.copyMakeBorder(frame, py, py, px, px, cv2.BORDER_CONSTANT, value=tray), np.uint8
        )
        noise = np.asarray(np.random.default_rng(seed).integers(0, 6, out.shape), np.uint8)
        out = np.asarray(cv2.add(out, noise), np.uint8)
        out[py : py + h, px : px + w] = frame
        moved = tuple(
            LabelledDie(d.value, (d.bbox[0] + px, d.bbox[1] + py, d.bbox[2] + px, d.bbox[3] + py))
            for d in dice
        )
        return out, moved

    return alter


def pixels(fn: Callable[[npt.NDArray[np.float32], np.random.Generator], object]) -> Alteration:
    def alter(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
        x = np.asarray(fn(frame.astype(np.float32), np.random.default_rng(seed)), np.float32)
        return np.asarray(np.clip(x, 0, 255), np.uint8), dice

    return alter


def vignetted(x: npt.NDArray[np.float32], rng: np.random.Generator) -> object:
    """Darker towards the corners: 1 - 0.45 r^2, r = 1 at the middle of each side."""
    h, w = x.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    r2 = ((xx - w / 2.0) / (w / 2.0)) ** 2 + ((yy - h / 2.0) / (h / 2.0)) ** 2
    return x * (1.0 - 0.45 * r2)[:, :, None]


def smeared(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    """Motion blur: each pixel the mean of 9 in a row."""
    k = np.full((1, 9), 1.0 / 9.0, np.float32)
    return np.asarray(cv2.filter2D(frame, -1, k, borderType=cv2.BORDER_REPLICATE), np.uint8), dice


def blurred(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    return np.asarray(cv2.GaussianBlur(frame, (0, 0), 1.2), np.uint8), dice


def recompressed(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 35])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8), dice


def colours_swapped(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    return np.ascontiguousarray(frame[:, :, ::-1]), dice


def negative(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    """The photo's negative: a dark tray, dice of the opposite shade (ivory dice with black
    pips become black dice with light pips) and every colour turned to its opposite."""
    return np.ascontiguousarray(255 - frame), dice


def _pick(dice: Dice, seed: int) -> tuple[np.random.Generator, LabelledDie]:
    """The seed's random numbers, and the die (of a non-empty frame) they pick first."""
    rng = np.random.default_rng(seed)
    return rng, dice[int(rng.integers(len(dice)))]


def die_cut(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    """The frame cut through one die (picked by the seed), 10-50 % of its labelled side
    out of view, on one side of it (picked too; the other side if that keeps more of
    the frame): a die half out of view, as when the camera is knocked. Dice wholly
    cut away lose their labels; those the cut crosses keep theirs, clipped to the
    frame, with their value: a reader must refuse such a die or read its value."""
    if not dice:
        return frame, dice
    rng, d = _pick(dice, seed)
    h, w = frame.shape[:2]
    side = int(rng.integers(4))
    share = float(rng.uniform(0.1, 0.5))
    x0, y0, x1, y1 = d.bbox
    # The box kept, (left, top, right, bottom), for a cut on each side of the die.
    keeps = [
        (x0 + share * (x1 - x0), 0.0, float(w), float(h)),
        (0.0, y0 + share * (y1 - y0), float(w), float(h)),
        (0.0, 0.0, x1 - share * (x1 - x0), float(h)),
        (0.0, 0.0, float(w), y1 - share * (y1 - y0)),
    ]
    area = [max(0.0, x1_ - x0_) * max(0.0, y1_ - y0_) for x0_, y0_, x1_, y1_ in keeps]
    if area[side] < area[(side + 2) % 4]:
        side = (side + 2) % 4
    left, top, right, bottom = (round(v) for v in keeps[side])
    out = np.ascontiguousarray(frame[top:bottom, left:right])
    return out, _clipped(dice, left, top, right, bottom)


def _clipped(dice: Dice, left: int, top: int, right: int, bottom: int, k: float = 1.0) -> Dice:
    """The labels of the dice in view in the window (left, top, right, bottom), clipped
    to it, moved to its corner and scaled by ``k``; dice wholly outside it lose theirs."""
    kept = []
    for e in dice:
        ex0, ey0 = max(e.bbox[0], left) - left, max(e.bbox[1], top) - top
        ex1, ey1 = min(e.bbox[2], right) - left, min(e.bbox[3], bottom) - top
        if ex1 > ex0 and ey1 > ey0:
            kept.append(LabelledDie(e.value, (ex0 * k, ey0 * k, ex1 * k, ey1 * k)))
    return tuple(kept)


def closer(k: int) -> Alteration:
    """A camera ``k`` times closer to the tray: a window of 1/k of the frame's width and
    height around one die (picked by the seed; the window kept inside the frame),
    enlarged ``k`` times (bicubic) to the frame's size, so that its dice are ``k`` times
    as many pixels across (byler's 30-45 px dice 120-180 px at 4, 150-225 px at 5). A
    closer camera's pictures are sharper than these; the pips are as big relative to
    their die. Dice the window cuts keep their labels, clipped, with their value, as in
    ``die_cut``."""

    def alter(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
        if not dice:
            return frame, dice
        _, d = _pick(dice, seed)
        return window(frame, dice, d.center, k)

    return alter


def window(frame: Frame, dice: Dice, center: tuple[float, float], k: int) -> tuple[Frame, Dice]:
    """A window of 1/k of the frame's width and height centred on ``center`` (kept inside
    the frame), enlarged ``k`` times (bicubic), and the labels in view in it (``_clipped``)."""
    h, w = frame.shape[:2]
    ww, wh = w // k, h // k
    cx, cy = center
    left = round(min(max(0.0, cx - ww / 2.0), float(w - ww)))
    top = round(min(max(0.0, cy - wh / 2.0), float(h - wh)))
    part = frame[top : top + wh, left : left + ww]
    out = cv2.resize(part, (ww * k, wh * k), interpolation=cv2.INTER_CUBIC)
    return np.asarray(out, np.uint8), _clipped(dice, left, top, left + ww, top + wh, k)


def die_covered(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    """One die (picked by the seed) partly covered by a dark object (a cable, a phone)
    reaching in from one side (picked too) over 10-50 % of its labelled side, the
    object a die side wider than the die either way and running on to the frame's
    edge: it often hides other dice too, wholly or in part. Labels stay as they were:
    a reader must refuse the covered dice or read their values; a die hidden whole
    counts as missed."""
    if not dice:
        return frame, dice
    rng, d = _pick(dice, seed)
    side = int(rng.integers(4))
    share = float(rng.uniform(0.1, 0.5))
    x0, y0, x1, y1 = d.bbox
    sw, sh = x1 - x0, y1 - y0
    far = float(max(frame.shape[:2]))
    boxes = [
        (x0 - far, y0 - sh, x0 + share * sw, y1 + sh),  # from the left
        (x0 - sw, y0 - far, x1 + sw, y0 + share * sh),  # from above
        (x1 - share * sw, y0 - sh, x1 + far, y1 + sh),  # from the right
        (x0 - sw, y1 - share * sh, x1 + sw, y1 + far),  # from below
    ]
    a, b, c, e = (round(v) for v in boxes[side])
    out = frame.copy()
    cv2.rectangle(out, (a, b), (c, e), (40, 40, 40), -1)
    return out, dice


def finger_on_die(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    """One die (picked by the seed) partly under a finger: a skin-coloured stroke
    0.6-0.9 of the die's labelled side wide, with a round tip, reaching in from the
    frame's edge in any direction, its tip 10-50 % of the die's side in from the die's
    edge. Round and slanted, unlike the training's straight-edged coverings
    (vision.train.synth.cover). Labels stay as they were."""
    if not dice:
        return frame, dice
    rng, d = _pick(dice, seed)
    x0, y0, x1, y1 = d.bbox
    side = float(max(x1 - x0, y1 - y0))
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    ang = rng.uniform(0, 2 * np.pi)
    ux, uy = float(np.cos(ang)), float(np.sin(ang))
    width = side * float(rng.uniform(0.6, 0.9))
    # The tip's far edge lies (0.5 - share) of a side from the die's centre, towards it.
    share = float(rng.uniform(0.1, 0.5))
    tip = (0.5 - share) * side + width / 2.0
    far = 2.0 * float(max(frame.shape[:2]))
    a = (round(cx + tip * ux), round(cy + tip * uy))
    b = (round(cx + far * ux), round(cy + far * uy))
    skin = tuple(float(v) for v in rng.uniform((90, 120, 170), (140, 170, 225)))
    out = frame.copy()
    cv2.line(out, a, b, skin, max(1, round(width)), cv2.LINE_AA)
    return out, dice


def lamp_reflection(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    """A lamp's reflection on every die, as a glossy die shows it: a soft spot of white
    clipped at 250 in its middle, 0.14-0.24 of the die's labelled side across, the same
    way (picked by the seed) and 0-0.15 of a side from each die's centre. Labels stay as
    they were: a reader must read the dice through it or refuse them, never take the spot
    for a pip."""
    rng = np.random.default_rng(seed)
    ang = float(rng.uniform(0, 2 * np.pi))
    off = float(rng.uniform(0.0, 0.15))
    radius = float(rng.uniform(0.07, 0.12))
    out = frame.astype(np.float32)
    h, w = frame.shape[:2]
    for d in dice:
        x0, y0, x1, y1 = d.bbox
        side = float(max(x1 - x0, y1 - y0))
        cx, cy = (
            (x0 + x1) / 2.0 + off * side * np.cos(ang),
            (y0 + y1) / 2.0 + off * side * np.sin(ang),
        )
        r = radius * side
        a0, b0 = max(0, int(cx - r) - 1), max(0, int(cy - r) - 1)
        a1, b1 = min(w, int(cx + r) + 2), min(h, int(cy + r) + 2)
        if a1 <= a0 or b1 <= b0:
            continue
        yy, xx = np.mgrid[b0:b1, a0:a1]
        # Clipped out to 3/8 of its radius, fading to nothing at its edge.
        alpha = np.clip(1.6 * (1.0 - np.hypot(xx - cx, yy - cy) / r), 0.0, 1.0)[..., None]
        out[b0:b1, a0:a1] = out[b0:b1, a0:a1] * (1.0 - alpha) + 250.0 * alpha
    return np.asarray(np.clip(out, 0, 255), np.uint8), dice


def lit(frame: Frame, light: float | npt.NDArray[np.float32]) -> Frame:
    """``frame`` at ``light`` times its light (rounded, clipped): one share for the whole
    frame, or one per pixel (an h x w map)."""
    if isinstance(light, np.ndarray):
        light = light[..., None]
    return np.asarray(np.clip(frame.astype(np.float32) * light + 0.5, 0, 255), np.uint8)


def dim_lamp(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    """An eighth of the light, then a lamp's reflection on every die (``lamp_reflection``)."""
    return lamp_reflection(lit(frame, 0.125), dice, seed)


def lamp_pool(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    """A room lit at 0.15-0.4 of the photo's light and one lamp's pool of light round one
    die (picked by the seed): a round spot whose light falls off as a Gaussian of sigma
    0.6-3 of the die's labelled side, up to 1.0-1.6 times the photo's light at its middle,
    0-0.6 of a side off the die's centre. A pool about the size of a die looks like a big
    die to the locator, with the real die as its one pip."""
    if not dice:
        return frame, dice
    rng, d = _pick(dice, seed)
    fill = float(rng.uniform(0.15, 0.4))
    peak = float(rng.uniform(1.0, 1.6))
    x0, y0, x1, y1 = d.bbox
    side = float(max(x1 - x0, y1 - y0))
    sigma = float(rng.uniform(0.6, 3.0)) * side
    ang = float(rng.uniform(0, 2 * np.pi))
    off = float(rng.uniform(0.0, 0.6)) * side
    cx, cy = (x0 + x1) / 2.0 + off * np.cos(ang), (y0 + y1) / 2.0 + off * np.sin(ang)
    h, w = frame.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    light = fill + (peak - fill) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma**2))
    return lit(frame, light), dice


def shadow_edge(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    """A hard shadow's edge across one die (picked by the seed), as a lamp casts the
    camera stand's or an arm's: one side of a straight line at 0.35 of the light, the
    line at any angle, through a point within 0.3 of a side of the die's centre."""
    if not dice:
        return frame, dice
    rng, d = _pick(dice, seed)
    x0, y0, x1, y1 = d.bbox
    side = float(max(x1 - x0, y1 - y0))
    cx = (x0 + x1) / 2.0 + float(rng.uniform(-0.3, 0.3)) * side
    cy = (y0 + y1) / 2.0 + float(rng.uniform(-0.3, 0.3)) * side
    a = float(rng.uniform(0, np.pi))
    h, w = frame.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    sunny = ((xx - cx) * np.cos(a) + (yy - cy) * np.sin(a)) > 0
    return lit(frame, np.where(sunny, np.float32(1.0), np.float32(0.35))), dice


def flicker_bands(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    """Bands of light and shade across the frame, as a rolling shutter sees a lamp that
    flickers with the mains (100 or 120 times a second) when the exposure is shorter than
    one flicker: the rows' light goes from 1 down to 0.6 and back, a quarter to a third of
    the frame's height apart, starting anywhere (the seed)."""
    rng = np.random.default_rng(seed)
    period = float(rng.uniform(0.25, 1.0 / 3.0)) * frame.shape[0]
    phase = float(rng.uniform(0, 2 * np.pi))
    rows = np.arange(frame.shape[0], dtype=np.float32)
    light = 1.0 - 0.4 * (0.5 + 0.5 * np.sin(2 * np.pi * rows / period + phase))
    return lit(frame, np.repeat(light[:, None], frame.shape[1], axis=1)), dice


def leaning(k: float) -> Alteration:
    """A camera leaning over the tray instead of looking straight down: the far (top) edge
    of the picture narrower than the near one by ``k`` of the width, the far dice smaller
    and squeezed sideways (a plane photo cannot show their side faces, so only part of
    what a leaning camera does). Each label becomes the box around its corners, moved."""

    def alter(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
        h, w = frame.shape[:2]
        inset = k * w / 2.0
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        onto = np.array([[inset, 0], [w - inset, 0], [w, h], [0, h]], np.float32)
        m = cv2.getPerspectiveTransform(corners, onto)
        out = cv2.warpPerspective(frame, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
        moved = []
        for d in dice:
            x0, y0, x1, y1 = d.bbox
            box = np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], np.float32)
            pts = cv2.perspectiveTransform(box, m)[0]
            moved.append(
                LabelledDie(
                    d.value,
                    (
                        float(pts[:, 0].min()),
                        float(pts[:, 1].min()),
                        float(pts[:, 0].max()),
                        float(pts[:, 1].max()),
                    ),
                )
            )
        return np.asarray(out, np.uint8), tuple(moved)

    return alter


def wide_lens(a: float) -> Alteration:
    """A wide-angle lens's barrel distortion, as a camera close over the tray needs (the
    Pi's Camera Module 3 Wide, say): a point at ``r`` of the half-diagonal from the middle
    of the picture shows what the photo has at ``r (1 + a r^2) / (1 + a)``. The corners
    stay where they were; the middle is enlarged ``1 + a`` times, and dice towards the
    edges are squeezed towards it, the more the farther out (at ``a`` 0.3, a die in a
    corner is 1.46 times narrower across the radius than along it). The photo's outermost
    strips are pushed out of the frame: labels are moved with their dice (the box around
    25 points of each, moved) and clipped to the frame (``_clipped``)."""

    def alter(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
        h, w = frame.shape[:2]
        cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
        half = math.hypot(cx, cy)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        dx, dy = (xx - cx) / half, (yy - cy) / half
        out_of = (1.0 + a * (dx * dx + dy * dy)) / (1.0 + a)
        mx = np.asarray(cx + dx * out_of * half, np.float32)
        my = np.asarray(cy + dy * out_of * half, np.float32)
        out = cv2.remap(frame, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

        def moved(x: float, y: float) -> tuple[float, float]:
            """Where the photo's (x, y) shows: r_d with a r_d^3 + r_d = (1 + a) r_u."""
            ux, uy = (x - cx) / half, (y - cy) / half
            ru = math.hypot(ux, uy)
            if ru == 0.0:
                return cx, cy
            rd = ru
            for _ in range(20):  # Newton's method; the cubic rises everywhere
                rd -= (a * rd**3 + rd - (1.0 + a) * ru) / (3.0 * a * rd * rd + 1.0)
            return cx + ux * rd / ru * half, cy + uy * rd / ru * half

        boxes = []
        for d in dice:
            x0, y0, x1, y1 = d.bbox
            pts = [moved(x, y) for x in np.linspace(x0, x1, 5) for y in np.linspace(y0, y1, 5)]
            xs, ys = [float(p[0]) for p in pts], [float(p[1]) for p in pts]
            boxes.append(LabelledDie(d.value, (min(xs), min(ys), max(xs), max(ys))))
        return np.asarray(out, np.uint8), _clipped(tuple(boxes), 0, 0, w, h)

    return alter


def sharpened(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    """Sharpened as many webcams sharpen their pictures: an unsharp mask, the frame plus
    once its difference from itself blurred (sigma 2): haloes along every edge."""
    soft = cv2.GaussianBlur(frame, (0, 0), 2.0)
    return np.asarray(cv2.addWeighted(frame, 2.0, soft, -1.0, 0.0), np.uint8), dice


def black_tray(frame: Frame, dice: Dice, seed: int) -> tuple[Frame, Dice]:
    """The tray made black felt (grey 20, noise 3): the tray is what lies near the frame's
    median colour (Lab distance under 25), or is light and grey (its shaded parts). White
    dice go with it, and a grey rim stays around some dice: a rough cut, for byler's
    coloured dice on their white board."""
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB).astype(np.float32)
    dist = np.linalg.norm(lab - np.median(lab.reshape(-1, 3), axis=0), axis=2)
    grey = np.hypot(lab[..., 1] - 128, lab[..., 2] - 128) < 12
    tray = ((dist < 25) | (grey & (lab[..., 0] > 120))).astype(np.uint8)
    tray = cv2.morphologyEx(tray, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)).astype(bool)
    felt = np.random.default_rng(seed).normal(20.0, 3.0, frame.shape)
    out = frame.copy()
    out[tray] = np.clip(felt, 0, 255).astype(np.uint8)[tray]
    return out, dice


OWN_TRAY = "own tray colour"


@dataclass(frozen=True)
class OnSurface:
    """The photo's dice cut out and laid on a made surface (``vision.surfaces``): one
    of ``SURFACES``, or ``OWN_TRAY``, a flat surface of the photo's own tray colour
    (what the cut itself costs). Dice whose cut fails are painted over and lose their
    labels; a photo with such a die partly under another's cut gives the bare surface
    and no labels. ``pip_boxes``: the set's labels box only the pips (its webcam's
    pictures are soft too, so the surface is softened to match)."""

    kind: str
    light: float = 1.0  # then the light cut to this share of it
    glint: bool = False  # then a lamp's reflection on every die (``lamp_reflection``)

    def __call__(
        self, frame: Frame, dice: Dice, seed: int, pip_boxes: bool = False
    ) -> tuple[Frame, Dice]:
        laid, kept = self._laid(frame, dice, seed, pip_boxes)
        if self.light != 1.0:
            laid = lit(laid, self.light)
        return lamp_reflection(laid, kept, seed) if self.glint else (laid, kept)

    def _laid(self, frame: Frame, dice: Dice, seed: int, pip_boxes: bool) -> tuple[Frame, Dice]:
        h, w = frame.shape[:2]
        cut = cut_out(frame, [d.bbox for d in dice], pip_boxes, seed=name_seed("cut", seed))
        if self.kind == OWN_TRAY:
            tray = frame[cut.fg == 0]
            colour = np.median(tray, axis=0) if len(tray) else np.full(3, 200.0)
            rng = np.random.default_rng(name_seed(self.kind, seed))
            surface = (colour[None, None] + rng.normal(0, 2.5, (h, w, 1))).astype(np.float32)
        else:
            surface = make_surface(self.kind, h, w, name_seed(self.kind, seed))
        if not cut.whole:
            return np.asarray(np.clip(surface + 0.5, 0, 255), np.uint8), ()
        return lay_on(frame, cut, surface, soft=pip_boxes), tuple(dice[k] for k in cut.kept)


ALTERATIONS: dict[str, Alteration] = {
    "as taken": as_taken,
    "quarter turn": quarter_turn,
    "turned 17 deg": turned(17.0),
    "shrunk 0.6": rescaled(0.6),
    "enlarged 1.6": rescaled(1.6),
    "enlarged 2x": rescaled(2.0),
    "framed 2x": framed(2.0),
    # a 12-14 MP camera: far away, the dice as small as in the photos (30-50 px), or
    # at the photos' distance, the dice six times as big; both frames are shrunk by 3
    "framed 6x": framed(6.0),
    "enlarged 6x": rescaled(6.0),
    "half as bright": pixels(lambda x, rng: x * 0.5),
    "brightened": pixels(lambda x, rng: 255.0 * (x / 255.0) ** 0.6),
    "dark corners": pixels(vignetted),
    "noise 8": pixels(lambda x, rng: x + rng.normal(0.0, 8.0, x.shape)),
    "blurred 1.2": blurred,
    "motion 9 px": smeared,
    "jpeg 35": recompressed,
    "red/blue swapped": colours_swapped,
    "negative": negative,
    "die cut by edge": die_cut,
    "die covered": die_covered,
    "finger on die": finger_on_die,
    "lamp reflection": lamp_reflection,
    "camera 4x closer": closer(4),
    "camera 5x closer": closer(5),
    "camera leaning": leaning(0.15),
    "wide lens": wide_lens(0.3),
    # a warm lamp's light, the camera's white balance left for daylight
    "warm lamp": pixels(lambda x, rng: x * np.array([0.7, 0.95, 1.2], np.float32)),
    "sharpened": sharpened,
    "black tray": black_tray,
    # a dim room (an eighth of the light) and a lamp's glint on every die: the glints
    # are the brightest things in a frame "too dark" as a whole
    "dim lamp reflection": dim_lamp,
    # a dim room with one lamp's pool of light round one die
    "lamp pool": lamp_pool,
    # a hard shadow's edge across one die
    "shadow edge": shadow_edge,
    # a lamp flickering with the mains, seen by a rolling shutter at a short exposure
    "flicker bands": flicker_bands,
    OWN_TRAY: OnSurface(OWN_TRAY),
    **{kind: OnSurface(kind) for kind in SURFACES},
    # a black tray, its dice lit less, and as dim with a lamp's glint on every die
    "black felt half light": OnSurface("black felt", light=0.5),
    "black felt dim lamp": OnSurface("black felt", light=0.25, glint=True),
}


def in_view(dice: Dice, frame: Frame) -> Dice:
    """The labels whose boxes lie wholly in the frame, clear of its edges by more than
    2 px (a label clipped by ``_clipped`` touches the edge)."""
    h, w = frame.shape[:2]
    return tuple(
        d
        for d in dice
        if d.bbox[0] > 2 and d.bbox[1] > 2 and d.bbox[2] < w - 3 and d.bbox[3] < h - 3
    )


def altered(
    alteration: Alteration, img: LabelledImage, frame: Frame, seed: int
) -> tuple[Frame, Dice]:
    """``img``'s ``frame`` and labels under ``alteration`` (with ``seed``); a tray surface
    is told whether the labels box the pips only."""
    if isinstance(alteration, OnSurface):
        return alteration(frame, img.dice, seed, img.pip_boxes)
    return alteration(frame, img.dice, seed)


def run(
    reader: PipReader,
    images: list[LabelledImage],
    alteration: Alteration,
    whole: Score | None = None,
) -> tuple[Score, int, int]:
    """The score; how many of the wrong readings were in frames read ``ok`` (the ones
    a table would have taken as a throw); and how many frames read ``ok`` missed a
    labelled die or read one that is not there (two dice read as one, say). The table
    knows how many dice were thrown and asks for a re-roll on those (``expect``); read
    without it, as ``dicetable read`` does, they are wrong frames. ``whole``, if given,
    gets the score of the same readings against the dice wholly in view (``in_view``)."""
    sc = Score()
    accepted_wrong = accepted_miscounted = 0
    for i, img in enumerate(images):
        frame, dice = altered(alteration, img, img.read(), i)
        reading = reader.read(frame)
        wrong, astray = sc.wrong, sc.missed + sc.extra
        score_image(replace(img, dice=dice), reading.dice, sc)
        if whole is not None:
            score_image(replace(img, dice=in_view(dice, frame)), reading.dice, whole)
        if reading.is_ok:
            accepted_wrong += sc.wrong - wrong
            accepted_miscounted += sc.missed + sc.extra > astray
    return sc, accepted_wrong, accepted_miscounted


def main(argv: list[str] | None = None) -> int:
    return with_photos("python -m vision.robustness", _main, argv)


def _main(argv: list[str] | None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m vision.robustness", description=__doc__.split("\n")[0]
    )
    ap.add_argument("sets", nargs="*", default=list(SETS), help=f"sets (default: {' '.join(SETS)})")
    ap.add_argument("--tune", action="store_true", help="the tuning part, not the held-out")
    ap.add_argument(
        "--only", default=None, help=f"comma-separated alterations: {', '.join(ALTERATIONS)}"
    )
    ap.add_argument("-v", "--verbose", action="store_true", help="list wrong and extra readings")
    ap.add_argument(
        "--bands",
        action="store_true",
        help="count the frames said to be in a flickering lamp's bands (vision.bands), "
        "instead of reading them",
    )
    add_classifier_option(ap)
    args = ap.parse_args(argv)
    names = list(ALTERATIONS) if args.only is None else [n.strip() for n in args.only.split(",")]
    unknown = [n for n in names if n not in ALTERATIONS]
    bad_sets = [s for s in args.sets if s not in SETS]
    if unknown or bad_sets:
        what = f"alteration {unknown[0]!r}" if unknown else f"set {bad_sets[0]!r}"
        known = ALTERATIONS if unknown else SETS
        print(f"unknown {what}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    part: Part = "tune" if args.tune else "heldout"
    if args.bands:
        return _count_bands(args.sets, part, names)
    reader = reader_with(args.classifier, args.locator)
    if reader is None:
        return 2
    for s in args.sets:
        images = load_set(s, part)
        total = sum(len(i.dice) for i in images)
        print(f"{s} [{part}]: {len(images)} images, {total} dice")
        for name in names:
            whole = Score()
            sc, accepted_wrong, miscounted = run(reader, images, ALTERATIONS[name], whole)
            # An alteration that cuts dice out of the frame leaves fewer to read, and
            # some of those in view are cut: the dice wholly in view are scored too.
            of = "" if sc.dice == total else f" of {sc.dice}"
            cut = (
                "" if sc.dice == total else f"  whole in view: right {whole.right} of {whole.dice}"
            )
            print(
                f"  {name:17s} right {pct(sc.right, sc.dice) + of:15s} wrong {sc.wrong:3d} "
                f"(in ok frames {accepted_wrong:2d})  refused {sc.refused:3d}  "
                f"missed {sc.missed:3d}  extra {sc.extra:2d}  stray {sc.stray:2d}  "
                f"ok frames miscounted {miscounted:2d}{cut}",
                flush=True,
            )
            if args.verbose:
                for n in sc.wrong_notes:
                    if "stray" not in n:
                        print("     ", n)
    return 0


def _count_bands(sets: list[str], part: Part, names: list[str]) -> int:
    """Per set and line, how many frames ``vision.bands`` says are in bands: the
    ``flicker bands`` line's should be, no other's."""
    for s in sets:
        images = load_set(s, part)
        frames = [img.read() for img in images]
        print(f"{s} [{part}]: {len(images)} images")
        for name in names:
            alter = ALTERATIONS[name]
            banded = sum(
                is_banded(altered(alter, img, frame, seed)[0])
                for seed, (frame, img) in enumerate(zip(frames, images, strict=True))
            )
            print(f"  {name:17s} in bands {banded:3d} of {len(images)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
