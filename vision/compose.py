"""Dice cut from real photos and pasted into other frames: the pixel work behind the
demo's camera frames (``table/service/make_frames.py`` decides which dice go where).

A die is cut by its label box with a margin of the board it lay on, and pasted with a
feathered edge, so the frame is made of photographed pixels only. Frames are judged
as they will be read back from their JPEG files (``as_saved``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.sources import load_image

Image = npt.NDArray[np.uint8]

MARGIN = 0.35  # of the box size, kept around a die (the board it lay on)


@dataclass(frozen=True)
class DieCrop:
    value: int
    file: str  # the photo, relative to the folder it was cut from
    bbox: tuple[float, float, float, float]
    image: Image  # BGR crop with margin
    alpha: npt.NDArray[np.float32]  # feathered mask, 1 on the die


def feather(h: int, w: int, inner: tuple[int, int, int, int]) -> npt.NDArray[np.float32]:
    """1 inside ``inner`` (x0, y0, x1, y1), falling to 0 at the crop's edge."""
    mask = np.zeros((h, w), np.float32)
    x0, y0, x1, y1 = inner
    mask[y0:y1, x0:x1] = 1.0
    k = max(3, (min(h, w) // 4) | 1)
    return np.asarray(cv2.GaussianBlur(mask, (k, k), 0), np.float32)


def cut_die(folder: Path, file: str, value: int, bbox: list[float]) -> DieCrop | None:
    """The die of ``folder/file`` in ``bbox`` (x0, y0, x1, y1) with ``MARGIN`` of board
    around it; None when that margin runs past the photo's edge."""
    img = load_image(folder / file)
    x0, y0, x1, y1 = bbox
    side = max(x1 - x0, y1 - y0)
    m = MARGIN * side
    cx0, cy0 = int(x0 - m), int(y0 - m)
    cx1, cy1 = int(np.ceil(x1 + m)), int(np.ceil(y1 + m))
    h, w = img.shape[:2]
    if cx0 < 0 or cy0 < 0 or cx1 > w or cy1 > h:
        return None
    crop = img[cy0:cy1, cx0:cx1].copy()
    inner = (int(x0 - cx0), int(y0 - cy0), int(x1 - cx0), int(y1 - cy0))
    alpha = feather(crop.shape[0], crop.shape[1], inner)
    return DieCrop(value, file, (x0, y0, x1, y1), crop, alpha)


def cut_patch(photo: Path, box: tuple[int, int, int, int]) -> Image:
    """The part ``box`` (x0, y0, x1, y1) of a photo: a stretch of empty board."""
    x0, y0, x1, y1 = box
    return load_image(photo)[y0:y1, x0:x1].copy()


def paste(base: Image, die: DieCrop, center: tuple[int, int]) -> Image:
    """``base`` with ``die`` blended in by its feathered mask, centred at ``center``."""
    out = base.astype(np.float32)
    h, w = die.image.shape[:2]
    x0, y0 = center[0] - w // 2, center[1] - h // 2
    region = out[y0 : y0 + h, x0 : x0 + w]
    a = die.alpha[:, :, None]
    region[:] = region * (1.0 - a) + die.image.astype(np.float32) * a
    return np.clip(out, 0, 255).astype(np.uint8)


def ring_colour(c: DieCrop) -> npt.NDArray[np.float32]:
    """Mean colour of the board around the die (where the crop's mask is low)."""
    ring = c.alpha < 0.2
    return np.asarray(c.image[ring].mean(axis=0), np.float32)


def encode_jpeg(frame: Image, quality: int) -> bytes:
    """The frame as a JPEG file's bytes."""
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return bytes(buf.tobytes())


def as_saved(frame: Image, quality: int) -> Image:
    """The frame as it will be read back from its JPEG file."""
    buf = np.frombuffer(encode_jpeg(frame, quality), np.uint8)
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), dtype=np.uint8)
