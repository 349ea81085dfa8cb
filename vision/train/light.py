"""Uneven light for training patches: a lamp's light is not the same everywhere.

The tuning photos are evenly lit. At a table, a hard shadow may cross the tray (an arm,
the camera's stand), a rolling shutter sees bands where a lamp flickers with the mains,
and a lamp to one side lights one edge more than the other. ``uneven_light`` draws one
such light map for a square patch, to multiply it by (``vision.robustness.lit``), so
that a network learns dice in the dark part as well as in the light
(``python -m vision.robustness``: ``shadow edge``, ``flicker bands``, ``dark corners``).

Numbers only: numpy and OpenCV, no torch, so that it can be tested without the train
extra.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

KINDS = ("shadow", "bands", "ramp")
SHADE = (0.3, 0.6)  # light in a shadow, and at a ramp's dark end
SOFT_MAX = 4.0  # a shadow's edge blurred by a Gaussian of sigma up to this (pixels)
BAND_DEPTH = (0.2, 0.5)  # bands from 1 down to 1 - depth
BAND_PERIOD = (40.0, 140.0)  # pixels from one band to the next


def uneven_light(rng: np.random.Generator, side: int) -> npt.NDArray[np.float32]:
    """A ``side`` x ``side`` light map of one kind (a third each): a hard shadow's edge
    through the patch (one side at 0.3-0.6, the edge a little soft), bands of light and
    shade at any angle (1 down to 0.5-0.8 and back, 40-140 px apart), or a ramp from 1
    at one edge to 0.3-0.6 at the other. Every value is in [0.3, 1]."""
    kind = KINDS[int(rng.integers(len(KINDS)))]
    a = float(rng.uniform(0.0, 2.0 * math.pi))
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    half = (side - 1) / 2.0
    along = (xx - half) * math.cos(a) + (yy - half) * math.sin(a)  # pixels across the line
    if kind == "shadow":
        shade = float(rng.uniform(*SHADE))
        at = float(rng.uniform(-0.35, 0.35)) * side  # the edge crosses the middle part
        light = np.where(along > at, np.float32(1.0), np.float32(shade))
        sigma = float(rng.uniform(0.0, SOFT_MAX))
        if sigma >= 0.3:
            light = cv2.GaussianBlur(light, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE)
    elif kind == "bands":
        depth = float(rng.uniform(*BAND_DEPTH))
        period = float(rng.uniform(*BAND_PERIOD))
        phase = float(rng.uniform(0.0, 2.0 * math.pi))
        light = 1.0 - depth * (0.5 + 0.5 * np.sin(2.0 * math.pi * along / period + phase))
    else:
        dark = float(rng.uniform(*SHADE))
        t = np.clip(along / (2.0 * half * math.sqrt(2.0)) + 0.5, 0.0, 1.0)  # 0 to 1 across
        light = dark + (1.0 - dark) * t
    return np.asarray(np.clip(light, SHADE[0], 1.0), np.float32)
