"""What a frame handed to the reader or the settler must be."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


def checked_frame(frame: npt.ArrayLike) -> npt.NDArray[Any]:
    """``frame`` as an array, if it is an 8-bit grey, BGR or BGRA picture (the kinds the
    camera sources give, ``vision.sources.as_bgr``); else a ``ValueError`` that says what it
    got. Other arrays failed deep inside OpenCV ("j < nimages", "func != 0"), or, as 16-bit
    or float values, wrapped round at 256."""
    a = np.asarray(frame)
    if a.dtype != np.uint8:
        raise ValueError(f"expected a uint8 image, got {a.dtype}")
    if not (a.ndim == 2 or (a.ndim == 3 and a.shape[2] in (3, 4))):
        raise ValueError(f"expected an HxW, HxWx3 or HxWx4 image, got shape {a.shape}")
    return a
