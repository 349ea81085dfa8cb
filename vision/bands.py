"""Bands of light and shade across the frame: a lamp that flickers, seen by a rolling shutter.

A camera whose exposure is shorter than one flicker of a lamp (the mains' 100 or 120 a
second, or an LED dimmed by pulses) reads each row at another moment of the flicker: the
light goes up and down from the top of the frame to the bottom, the same in every column.
Dice in the dark bands are often not found, and throwing again does not help while the
lamp flickers. ``is_banded`` tells the reader, so that it can say why ("light in bands").

How (``banding``): the frame is shrunk to at most ``ROWS`` rows and ``STRIPS`` vertical
strips, each row of a strip its median grey, in log units (a band dims a dark tray and a
light one alike). Each strip less its running mean over the longest wave looked for
(which that takes away whole; the shorter ones it hardly touches), the strips' middle
row by row (the mean without the highest and lowest: a die in one strip does not count).
A wave is fitted in each third of the frame, at each number of cycles from ``CYCLES_MIN``
to one every ``PERIOD_MIN`` rows: a flicker is one wave through the whole height, as
strong and in the same phase in every third (``PHASE_SLIP``), and little else. A tray's
walls, a shadow's edge, a lamp's pool or a dark object across the tray is a step or a bump
in one place: weak in some third, or out of phase, or not a wave (``REGULAR``).

On the tuning photos (``python -m vision.robustness --tune --bands``) no photo as taken is
in bands; under the 40 other lines but ``flicker bands``, 2 of 10,160 frames are (a dark
object across the tray, a camera five times closer); under ``flicker bands`` (light from
1 down to 0.6, 3 to 4 cycles in the frame), 248 of 254. BENCHMARKS.md has the held-out
photos' figures.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

STRIPS = 6
STRIP_PX = 16  # columns of each strip, of the frame shrunk
ROWS = 240  # rows looked at (the frame shrunk to them, or fewer if it has fewer)
ROWS_MIN = 48  # fewer rows: no bands told
PERIOD_MIN = 6.0  # rows of ROWS: the finest bands told (40 in a frame)
# The fewest cycles of a wave in the frame: a camera at 30 frames a second under lamps
# on 50 Hz mains (100 flickers a second) sees about three.
CYCLES_MIN = 2.5
# The waves tried, a quarter of a cycle apart: the one fitted is then at most an eighth of
# a cycle off over the whole frame, and its thirds' phases slip by less than PHASE_SLIP.
CYCLE_STEP = 0.25
PHASE_SLIP = np.pi / 3  # the thirds' waves this far out of phase are no one wave
FLOOR = 8.0  # grey added before the log: black rows' noise is no band
BANDED = 0.08
"""The least amplitude of a flicker's wave, in log units (0.08: the light going up and
down by about 8 %). Under the ``flicker bands`` line, on the tuning photos, it was 0.09
to 0.3 (a one-off look)."""
REGULAR = 0.5
"""The least share of each third's variation that the wave must explain."""


@functools.lru_cache(maxsize=8)
def _fits(rows: int) -> tuple[npt.NDArray[np.float64], tuple[npt.NDArray[np.float64], ...]]:
    """The periods tried for ``rows`` rows, and per third of the rows the periods x 2 x n
    matrices that give each period's wave's sine and cosine parts from that third's n
    rows (least squares)."""
    y = np.arange(rows, dtype=np.float64)
    periods = rows / np.arange(CYCLES_MIN, rows / PERIOD_MIN + CYCLE_STEP / 2, CYCLE_STEP)
    pinvs = []
    for t in np.array_split(np.arange(rows), 3):
        angles = 2 * np.pi * y[t][None, :] / periods[:, None]  # periods x n
        waves = np.stack([np.sin(angles), np.cos(angles)], axis=2)  # periods x n x 2
        pinvs.append(np.linalg.pinv(waves))  # periods x 2 x n
    return periods, tuple(pinvs)


@dataclass(frozen=True)
class Banding:
    """The strongest wave of light through a frame's whole height (``banding``)."""

    amplitude: float = 0.0
    """Its amplitude in log units, the least of the three thirds' (0: none)."""
    regular: float = 0.0
    """The least share of a third's variation that the wave explains (1: nothing but
    the wave; a tray's walls, a shadow's edge and a dark object across it are steps)."""
    period: float = 0.0
    """Its period, in rows of a frame ``ROWS`` high."""


def _middle(a: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The mean over the first axis (the strips) without its highest and lowest value:
    as robust as their median to a die in one strip."""
    total = a.sum(axis=0) - a.max(axis=0) - a.min(axis=0)
    return np.asarray(total / (a.shape[0] - 2), np.float64)


def banding(frame: npt.NDArray[np.uint8]) -> Banding:
    """How strongly ``frame`` (BGR or grey) shows bands of light across its rows: one
    wave through its whole height (``Banding``). See ``is_banded``."""
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    rows = min(int(grey.shape[0]), ROWS)
    if rows < ROWS_MIN:
        return Banding()
    small = cv2.resize(grey, (STRIPS * STRIP_PX, rows), interpolation=cv2.INTER_AREA)
    strips = np.median(small.reshape(rows, STRIPS, STRIP_PX), axis=2)
    light = np.log(strips.T + FLOOR)  # strips x rows
    periods, pinvs = _fits(rows)
    # each strip's rows less their average over the longest period (which that takes
    # away whole, and the shorter ones hardly at all); then the strips' middle
    longest = round(rows / CYCLES_MIN) | 1
    trend = cv2.blur(light, (longest, 1), borderType=cv2.BORDER_REFLECT)
    wave = _middle(light - trend)
    thirds = np.array_split(np.arange(rows), 3)
    sc = np.stack([pinv @ wave[t] for pinv, t in zip(pinvs, thirds, strict=True)], 1)
    amps = np.hypot(sc[..., 0], sc[..., 1])  # periods x thirds
    phase = np.arctan2(sc[..., 1], sc[..., 0])
    slip = np.abs(np.angle(np.exp(1j * (phase - phase[:, :1])))).max(axis=1)
    least = np.where(slip < PHASE_SLIP, amps.min(axis=1), 0.0)
    best = int(np.argmax(least))
    if least[best] <= 0.0:
        return Banding()
    # a wave of amplitude a has a mean square of a^2 / 2
    spread = np.array([float((wave[t] ** 2).mean()) for t in thirds])
    regular = float((amps[best] ** 2 / 2.0 / np.maximum(spread, 1e-12)).min())
    return Banding(float(least[best]), min(1.0, regular), float(periods[best]))


def is_banded(frame: npt.NDArray[np.uint8]) -> bool:
    """``frame`` shows bands of a flickering lamp: a wave of at least ``BANDED`` that
    explains at least ``REGULAR`` of each third's variation."""
    b = banding(frame)
    return b.amplitude >= BANDED and b.regular >= REGULAR
