"""Plain values the pip reader returns. Small, frozen, JSON-friendly."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

# The reader's reasons for a frame whose light keeps it from reading any die: the dice
# lying in it may be read as they lie once the light is mended.
SAID_TOO_DARK = "too dark"
SAID_TOO_BRIGHT = "too bright"
# Two more no throw mends: a still picture with nothing sharp in it and no die found (a
# lens smeared, fogged or out of focus), and one where too many places look like dice
# (a patterned cloth, a tray full of things); the second goes on with how many.
SAID_BLURRED = "blurred"
SAID_TOO_BUSY = "too busy"

# How the reader's reason ends when dice went unseen or unread in a frame in a
# flickering lamp's bands (vision.bands): throwing again does not help while it flickers.
IN_BANDS = "light in bands (a lamp flickers)"


class FrameStatus(StrEnum):
    """The frame's verdict: the table counts a throw only on ``OK``."""

    OK = "ok"
    REROLL = "reroll"


@dataclass(frozen=True)
class DieReading:
    """One die found in a frame.

    ``value`` is the face on top (1-6), or ``None`` when the die was found but
    will not be read; ``reason`` then says why ("tilted", "blurred" ...).
    ``center`` is in pixels of the original frame; ``box`` is the rotated box as
    ``((cx, cy), (w, h), angle_degrees)`` in OpenCV's ``minAreaRect`` convention.
    """

    value: int | None
    center: tuple[float, float]
    box: tuple[tuple[float, float], tuple[float, float], float]
    confidence: float
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        (bx, by), (bw, bh), ang = self.box
        out: dict[str, Any] = {
            "value": self.value,
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "box": [[round(bx, 1), round(by, 1)], [round(bw, 1), round(bh, 1)], round(ang, 1)],
            "confidence": round(self.confidence, 3),
        }
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class FrameReading:
    """What one frame shows: the dice, and whether the table may count them."""

    status: FrameStatus
    reason: str
    dice: tuple[DieReading, ...] = field(default_factory=tuple)
    ms: float = 0.0

    @property
    def is_ok(self) -> bool:
        return self.status is FrameStatus.OK

    @property
    def in_bands(self) -> bool:
        """The reader found dice unseen or unread in a flickering lamp's bands, and its
        reason says so (``IN_BANDS``)."""
        return self.reason.endswith(IN_BANDS)

    @property
    def values(self) -> tuple[int, ...]:
        """The read values, highest first (only meaningful when ``is_ok``)."""
        return tuple(sorted((d.value for d in self.dice if d.value is not None), reverse=True))

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "reason": self.reason,
            "dice": [d.to_json() for d in self.dice],
            "ms": round(self.ms, 2),
        }
