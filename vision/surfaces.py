"""Labelled photos' dice laid on other tray surfaces: felt, wood, cloth, rubber.

Both photo sets were taken on light surfaces, and a dice tray is often green, red or
black felt. To measure the reader there (``vision.robustness``) and to teach the crop
network such trays (``vision.train``), each labelled die is cut out of its photo and
the rest of the photo is replaced by a made surface:

- ``cut_out`` finds each die's pixels with GrabCut, seeded by the label box (the
  inside of the box is the die; what lies near the local tray colour is probably
  tray). A die whose cut fails a shape check is dropped: it is painted over with the
  rest, and its label goes. The photo's own shading of the tray near each die (the
  die's shadow) is kept as a factor on the new surface.
- ``make_surface`` draws one of the named surfaces (``SURFACES``): the ones the
  measurement uses. ``random_surface`` draws a surface of random colour and
  texture (felt, wood grain, a woven check, mottled plain): the ones training uses,
  so a measurement on the named ones is not on the very surfaces trained on (they are
  of the same kinds, though: a photo of a real felt tray is the test these are not).
- ``lay_on`` puts the cut dice on a surface.

A rough cut: a thin rim of the old tray can stay around a die, a die's light side can
be lost, and a die flat against another may not cut out at all (``CutOut.whole`` is
False when a dropped die lies under a kept one's cut).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

Box = tuple[float, float, float, float]
Image = npt.NDArray[np.uint8]
Floats = npt.NDArray[np.float32]

SURFACES = ("green felt", "red felt", "black felt", "dark wood", "check cloth", "grey rubber")
"""The named surfaces the measurement lays the dice on (``make_surface``)."""


@dataclass(frozen=True)
class CutOut:
    """The dice cut out of one photo."""

    fg: npt.NDArray[np.uint8]
    """255 where a kept die is, else 0."""
    shade: Floats
    """A factor for the new surface near each die: the photo's own shadow, 1 elsewhere."""
    kept: tuple[int, ...]
    """Indices of the dice whose cut passed its check (the others are painted over)."""
    whole: bool
    """False when a dropped die lies partly under a kept die's cut: such a photo is
    better not used."""


def _lowfreq(rng: np.random.Generator, h: int, w: int, sigma: float) -> Floats:
    n = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), sigma)
    n -= n.mean()  # a field much smaller than sigma is nearly flat: its spread, not its level
    return np.asarray(n / (n.std() + 1e-6), np.float32)


def _felt(
    rng: np.random.Generator, h: int, w: int, base: Floats, amp: float, light: Floats
) -> Floats:
    fine = rng.normal(0, 1, (h, w)).astype(np.float32)
    fibre = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.8)
    m = 1 + amp * (0.6 * fine + 1.2 * fibre) + 0.03 * _lowfreq(rng, h, w, 6)
    out = base[None, None] * (m * light)[..., None] + rng.normal(0, 1.5, (h, w, 3))
    return np.asarray(out, np.float32)


def _wood(
    rng: np.random.Generator,
    h: int,
    w: int,
    base: Floats,
    period: float,
    angle: float,
    light: Floats,
) -> Floats:
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    along = np.cos(angle) * yy - np.sin(angle) * xx  # across the grain
    warp = 6 * _lowfreq(rng, h, w, 50)
    phase = (along + warp + 0.05 * (np.sin(angle) * yy + np.cos(angle) * xx)) / period
    grain = 0.5 + 0.5 * np.sin(phase + 0.8 * np.sin(phase / 3.1))
    streak = rng.normal(0, 1, (h, w)).astype(np.float32)
    if abs(np.sin(angle)) > 0.7:  # grain running up and down: streaks too
        streak = np.asarray(cv2.GaussianBlur(streak, (0, 0), sigmaX=0.7, sigmaY=12), np.float32)
    else:
        streak = np.asarray(cv2.GaussianBlur(streak, (0, 0), sigmaX=12, sigmaY=0.7), np.float32)
    streak /= streak.std() + 1e-6
    m = 0.82 + 0.22 * grain + 0.06 * streak
    out = base[None, None] * (m * light)[..., None] + rng.normal(0, 2.0, (h, w, 3))
    return np.asarray(out, np.float32)


def _check(
    rng: np.random.Generator, h: int, w: int, c1: Floats, c2: Floats, period: float, light: Floats
) -> Floats:
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    sx = (np.sin(2 * np.pi * xx / period) > 0).astype(np.float32)
    sy = (np.sin(2 * np.pi * yy / period) > 0).astype(np.float32)
    t = cv2.GaussianBlur(0.5 * (sx + sy), (0, 0), 1.2)[..., None]
    weave = 1 + 0.04 * rng.normal(0, 1, (h, w)).astype(np.float32)
    out = (c1[None, None] * (1 - t) + c2[None, None] * t) * (weave * light)[..., None]
    return np.asarray(out, np.float32)


def _rubber(rng: np.random.Generator, h: int, w: int, base: Floats, light: Floats) -> Floats:
    speck = rng.normal(0, 1, (h, w)).astype(np.float32)
    pores = np.asarray(
        cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.5), np.float32
    )
    pores /= pores.std() + 1e-6
    out = base[None, None] * ((1 + 0.04 * speck + 0.05 * pores) * light)[..., None]
    return np.asarray(out, np.float32)


def _bgr(*c: float) -> Floats:
    return np.array(c, np.float32)


def make_surface(kind: str, h: int, w: int, seed: int) -> Floats:
    """An ``h`` x ``w`` surface of one of ``SURFACES`` (BGR, float32 0-255), lit a little
    unevenly; the same ``seed`` draws the same one."""
    rng = np.random.default_rng(seed)
    light = (1.0 + 0.05 * _lowfreq(rng, h, w, 120)).astype(np.float32)
    if kind == "green felt":
        img = _felt(rng, h, w, _bgr(40, 92, 30), 0.07, light)
    elif kind == "red felt":
        img = _felt(rng, h, w, _bgr(38, 34, 140), 0.07, light)
    elif kind == "black felt":
        img = _felt(rng, h, w, _bgr(27, 25, 29), 0.12, light)
    elif kind == "dark wood":
        img = _wood(rng, h, w, _bgr(28, 48, 78), 7.0, 0.0, light)
    elif kind == "check cloth":
        img = _check(rng, h, w, _bgr(150, 128, 110), _bgr(128, 138, 150), 22.0, light)
    elif kind == "grey rubber":
        img = _rubber(rng, h, w, _bgr(88, 88, 92), light)
    else:
        raise ValueError(f"no surface {kind!r}; known: {', '.join(SURFACES)}")
    return np.asarray(np.clip(img, 0, 255), np.float32)


def _random_colour(rng: np.random.Generator) -> Floats:
    """A tray colour: any hue, mostly dark to middling (felt, wood, rubber), some light."""
    hue = rng.uniform(0, 180)
    sat = rng.uniform(0, 230) if rng.random() < 0.8 else rng.uniform(0, 40)
    val = rng.uniform(25, 150) if rng.random() < 0.8 else rng.uniform(150, 230)
    hsv = np.array([[[hue, sat, val]]], np.uint8)
    return np.asarray(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0], np.float32)


def random_surface(rng: np.random.Generator, h: int, w: int) -> Floats:
    """A surface of random colour and texture, for training: felt, wood grain at any
    angle and spacing, a woven check of two colours, or a mottled plain one."""
    light = (1.0 + rng.uniform(0.0, 0.1) * _lowfreq(rng, h, w, rng.uniform(40, 160))).astype(
        np.float32
    )
    kind = int(rng.integers(4))
    if kind == 0:
        img = _felt(rng, h, w, _random_colour(rng), rng.uniform(0.03, 0.15), light)
    elif kind == 1:
        base = _random_colour(rng)
        img = _wood(rng, h, w, base, rng.uniform(4.0, 14.0), rng.uniform(0, np.pi), light)
    elif kind == 2:
        c1 = _random_colour(rng)
        c2 = np.clip(c1 + rng.normal(0, 30, 3), 0, 255).astype(np.float32)
        img = _check(rng, h, w, c1, c2, rng.uniform(10.0, 40.0), light)
    else:
        mott = 1 + rng.uniform(0.0, 0.08) * _lowfreq(rng, h, w, rng.uniform(2, 12))
        img = _rubber(rng, h, w, _random_colour(rng), (light * mott).astype(np.float32))
    return np.asarray(np.clip(img, 0, 255), np.float32)


def _fill_holes(m: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    p = cv2.copyMakeBorder(m, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    ff = p.copy()
    cv2.floodFill(ff, np.zeros((p.shape[0] + 2, p.shape[1] + 2), np.uint8), (0, 0), 255)
    out = m.copy()
    out[(ff == 0)[1:-1, 1:-1]] = 255
    return out


def _cut_one(
    frame: Image,
    lab: Floats,
    inbox: npt.NDArray[np.uint8],
    box: Box,
    pip_boxes: bool,
    seed: int,
) -> tuple[npt.NDArray[np.uint8] | None, tuple[int, int, int, int], Floats, float]:
    """One die's cut (in its region of interest, or None if it fails its check), that
    region (x0, y0, x1, y1), the tray's median Lab colour around it and its side."""
    h_img, w_img = frame.shape[:2]
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    bw, bh = x1 - x0, y1 - y0
    s = max(bw, bh, 48.0 if pip_boxes else 0.0)  # a pip box of a 1 is smaller than its die
    grow_roi, grow_fg = (2.6, 2.0) if pip_boxes else (2.2, 1.6)
    rx0, ry0 = int(max(0, cx - s * grow_roi / 2)), int(max(0, cy - s * grow_roi / 2))
    rx1, ry1 = int(min(w_img, cx + s * grow_roi / 2)), int(min(h_img, cy + s * grow_roi / 2))
    region = (rx0, ry0, rx1, ry1)
    roi = frame[ry0:ry1, rx0:rx1]
    rl = lab[ry0:ry1, rx0:rx1]
    h, w = roi.shape[:2]
    ring = rl[inbox[ry0:ry1, rx0:rx1] == 0]
    if len(ring) < 30 or bw < 2 or bh < 2:
        return None, region, np.zeros(3, np.float32), s
    tray = np.median(ring, axis=0).astype(np.float32)
    dist = np.linalg.norm(rl - tray[None, None], axis=2)
    spread = float(np.percentile(np.linalg.norm(ring - tray, axis=1), 50))
    thr = float(np.clip(3.0 * spread, 10.0, 28.0))
    mask = np.full((h, w), cv2.GC_BGD, np.uint8)
    fx0, fy0 = max(int(cx - s * grow_fg / 2) - rx0, 0), max(int(cy - s * grow_fg / 2) - ry0, 0)
    fx1, fy1 = min(int(cx + s * grow_fg / 2) - rx0, w), min(int(cy + s * grow_fg / 2) - ry0, h)
    sub = dist[fy0:fy1, fx0:fx1]
    mask[fy0:fy1, fx0:fx1] = np.where(sub > thr, cv2.GC_PR_FGD, cv2.GC_PR_BGD)
    mask[(inbox[ry0:ry1, rx0:rx1] > 0) & (mask == cv2.GC_BGD)] = cv2.GC_PR_BGD
    sh = 0.3 if pip_boxes else 0.25
    ix0, iy0 = max(int(x0 + bw * sh) - rx0, 0), max(int(y0 + bh * sh) - ry0, 0)
    ix1, iy1 = int(x1 - bw * sh) - rx0, int(y1 - bh * sh) - ry0
    mask[iy0:iy1, ix0:ix1] = cv2.GC_FGD
    try:
        cv2.setRNGSeed(seed)  # GrabCut's k-means
        cv2.grabCut(
            roi, mask, (0, 0, 0, 0), np.zeros((1, 65)), np.zeros((1, 65)), 4, cv2.GC_INIT_WITH_MASK
        )
    except cv2.error:
        return None, region, tray, s
    fg = np.where((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD), 255, 0).astype(np.uint8)
    fg = np.asarray(cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), np.uint8)
    n, cc = cv2.connectedComponents(fg)
    px, py = int(cx) - rx0, int(cy) - ry0
    c = int(cc[py, px]) if 0 <= py < h and 0 <= px < w else 0
    if c == 0:
        return None, region, tray, s
    fg = np.where(cc == c, 255, 0).astype(np.uint8)
    fg = _fill_holes(
        np.asarray(cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)), np.uint8)
    )
    # The check: the label box mostly covered, the cut one solid piece, not spilling far.
    on = fg > 0
    bx0, by0 = max(int(x0) - rx0, 0), max(int(y0) - ry0, 0)
    bx1, by1 = int(np.ceil(x1)) - rx0, int(np.ceil(y1)) - ry0
    cover = float(on[by0:by1, bx0:bx1].mean()) if by1 > by0 and bx1 > bx0 else 0.0
    cnts, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.contourArea(cv2.convexHull(max(cnts, key=cv2.contourArea))) if cnts else 1.0
    solidity = float(on.sum()) / max(hull, 1.0)
    if pip_boxes:
        area = float(on.sum()) / (s * s)
        good = cover >= 0.85 and 0.6 <= area <= 3.2 and solidity >= 0.85
    else:
        yy, xx = np.mgrid[0:h, 0:w]
        disc = (xx + rx0 - cx) ** 2 + (yy + ry0 - cy) ** 2 <= (0.15 * min(bw, bh)) ** 2
        middle = float(on[disc].mean()) if disc.any() else 0.0
        area = float(on.sum()) / max(1.0, bw * bh)
        good = middle >= 0.97 and 0.2 <= area <= 1.6 and solidity >= 0.88
    return (fg if good else None), region, tray, s


def cut_out(frame: Image, boxes: Sequence[Box], pip_boxes: bool = False, seed: int = 0) -> CutOut:
    """Cut the dice whose label boxes are ``boxes`` out of ``frame`` (BGR).

    ``pip_boxes``: the labels box the top face's pips, not the whole die (matteo_webcam's
    do), so a die is taken as at least 48 px and looked for further around its box."""
    h_img, w_img = frame.shape[:2]
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB).astype(np.float32)
    inbox = np.zeros((h_img, w_img), np.uint8)
    for x0, y0, x1, y1 in boxes:
        dx, dy = (x1 - x0) * 0.15, (y1 - y0) * 0.15
        cv2.rectangle(inbox, (int(x0 - dx), int(y0 - dy)), (int(x1 + dx), int(y1 + dy)), 255, -1)
    fg_all = np.zeros((h_img, w_img), np.uint8)
    shade = np.ones((h_img, w_img), np.float32)
    weight = np.zeros((h_img, w_img), np.float32)
    kept: list[int] = []
    dropped: list[int] = []
    for k, box in enumerate(boxes):
        fg, (rx0, ry0, rx1, ry1), tray, s = _cut_one(frame, lab, inbox, box, pip_boxes, seed + k)
        if fg is None:
            dropped.append(k)
            continue
        kept.append(k)
        fg_all[ry0:ry1, rx0:rx1] |= fg
        # The tray's shading near the die (its shadow): darker, not another colour.
        rl = lab[ry0:ry1, rx0:rx1]
        r = np.clip(rl[..., 0] / max(float(tray[0]), 1.0), 0.6, 1.0)
        chroma = np.hypot(rl[..., 1] - tray[1], rl[..., 2] - tray[2])
        r = np.where(chroma <= 7.0, r, 1.0)
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        yy, xx = np.mgrid[ry0:ry1, rx0:rx1].astype(np.float32)
        far = 0.95 if pip_boxes else 0.8
        wgt = np.clip((far - np.hypot(xx - cx, yy - cy) / s) / 0.3, 0, 1).astype(np.float32)
        cur = weight[ry0:ry1, rx0:rx1]
        upd = wgt > cur
        shade[ry0:ry1, rx0:rx1][upd] = (1 - (1 - r) * wgt)[upd]
        weight[ry0:ry1, rx0:rx1] = np.maximum(cur, wgt)
    whole = True
    for k in dropped:
        x0, y0, x1, y1 = boxes[k]
        inside = fg_all[int(y0) : int(y1), int(x0) : int(x1)]
        if inside.size and float((inside > 0).mean()) > 0.1:
            whole = False
        # no shadow kept where a dropped die lay: it is painted over
        half = max(x1 - x0, y1 - y0, 48.0 if pip_boxes else 0.0) * (0.95 if pip_boxes else 0.65)
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        X0, Y0 = int(max(0, mx - half)), int(max(0, my - half))
        X1, Y1 = int(mx + half), int(my + half)
        sub = shade[Y0:Y1, X0:X1]
        shade[Y0:Y1, X0:X1] = np.where(fg_all[Y0:Y1, X0:X1] > 0, sub, 1.0)
    return CutOut(fg_all, shade, tuple(kept), whole)


WEBCAM_BLUR = 0.9
"""The sigma a surface is blurred by under a soft webcam's dice (``lay_on``'s ``soft``)."""


def lay_on(frame: Image, cut: CutOut, surface: Floats, soft: bool = False) -> Image:
    """The cut dice of ``frame`` on ``surface`` (same size), with their shadows; with
    ``soft`` (the photo is a soft webcam's: matteo_webcam, the set whose labels box only
    the pips), the surface blurred by ``WEBCAM_BLUR`` first to match."""
    if soft:
        surface = np.asarray(cv2.GaussianBlur(surface, (0, 0), WEBCAM_BLUR), np.float32)
    surf = surface * cut.shade[..., None]
    a = cv2.erode(cut.fg, np.ones((3, 3), np.uint8)).astype(np.float32) / 255.0
    a = np.asarray(cv2.GaussianBlur(a, (0, 0), 0.8), np.float32)[..., None]
    out = surf * (1 - a) + frame.astype(np.float32) * a
    return np.asarray(np.clip(out + 0.5, 0, 255), np.uint8)


def name_seed(*parts: object) -> int:
    """A seed from names (a photo's, a surface's): the same on every machine."""
    return zlib.crc32("/".join(str(p) for p in parts).encode()) & 0x7FFFFFFF
