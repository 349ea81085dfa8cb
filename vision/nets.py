"""The shipped networks' files (``vision/models``), read by ``cv2.dnn``.

A file missing, unreadable or damaged (a broken install, a card going bad) is a
``NetworkError`` that says which file and why in one line. OpenCV's own error names the
line of its source that raised it and ends in a line break, and the table shows the reason
on a 128 x 64 display and in the journal."""

from __future__ import annotations

import os
from pathlib import Path

import cv2


class NetworkError(ValueError):
    """A network file the reader needs cannot be used: which, and why."""


def read_onnx(path: Path) -> cv2.dnn.Net:
    """The ONNX network at ``path``; ``NetworkError`` if it cannot be read."""
    try:
        return cv2.dnn.readNetFromONNX(str(path))
    except cv2.error:
        if not path.exists():
            why = "no such file"
        elif path.is_dir():
            why = "a folder, not a network"
        elif not os.access(path, os.R_OK):
            why = "not allowed to read it"
        else:
            why = "not a network OpenCV can read (damaged?)"
        raise NetworkError(f"{path}: {why}") from None
