"""dicetable's eyes: read pip dice from camera frames, and refuse rather than guess.

This package never imports :mod:`table`; it knows nothing of games.
"""

from vision.types import DieReading, FrameReading, FrameStatus

__all__ = ["DieReading", "FrameReading", "FrameStatus"]
