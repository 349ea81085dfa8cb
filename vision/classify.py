"""Reading a die crop: small networks (run by ``cv2.dnn``) that say 1-6 or "not a die".

The crop is square, centred on the die, ``CROP_K`` die sides wide, shrunk to
``CROP_SIDE`` pixels; it is not rotated (the networks were trained on every
rotation). Each shipped network (``MODEL_PATHS``: ``models/classifier*.onnx``;
one today) says how it wants its input
in the ``.json`` beside it (``"input_norm"``): ``"fixed"`` (pixel - 128) / 64,
or ``"per_crop"``, each crop brought to mean 0 and unit spread, which makes a
dim, low-contrast die look like a bright one. Their probabilities are averaged.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

CROP_SIDE = 40
CROP_K = 1.3
MEAN = 128.0
SCALE = 1.0 / 64.0
NOT_A_DIE = 0  # class index; classes 1..6 are the values
MODELS_DIR = Path(__file__).resolve().parent / "models"
MODEL_PATH = MODELS_DIR / "classifier.onnx"
# Every shipped crop network (classifier*.onnx); more than one are averaged.
MODEL_PATHS: tuple[Path, ...] = tuple(sorted(MODELS_DIR.glob("classifier*.onnx")))
NORMS = ("fixed", "per_crop")


def crop(frame: npt.NDArray[np.uint8], cx: float, cy: float, size: float) -> npt.NDArray[np.uint8]:
    """The ``CROP_SIDE`` square crop of a die of side ``size`` centred at (cx, cy)."""
    half = CROP_K * size / 2.0
    x0, y0 = round(cx - half), round(cy - half)
    side = max(2, round(2 * half))
    h, w = frame.shape[:2]
    ax0, ay0 = max(0, x0), max(0, y0)
    ax1, ay1 = min(w, x0 + side), min(h, y0 + side)
    if ax1 <= ax0 or ay1 <= ay0:
        return np.zeros((CROP_SIDE, CROP_SIDE, 3), np.uint8)
    roi = frame[ay0:ay1, ax0:ax1]
    if (ax0, ay0, ax1, ay1) != (x0, y0, x0 + side, y0 + side):
        roi = np.asarray(
            cv2.copyMakeBorder(
                roi, ay0 - y0, y0 + side - ay1, ax0 - x0, x0 + side - ax1, cv2.BORDER_REPLICATE
            ),
            np.uint8,
        )
    interp = cv2.INTER_AREA if side > CROP_SIDE else cv2.INTER_LINEAR
    return np.asarray(cv2.resize(roi, (CROP_SIDE, CROP_SIDE), interpolation=interp), np.uint8)


def softmax(z: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)


def to_input(crops: npt.NDArray[np.uint8], norm: str) -> npt.NDArray[np.float32]:
    """(n, h, w, 3) uint8 crops -> the (n, 3, h, w) float32 input the networks were trained on."""
    x = crops.astype(np.float32)
    if norm == "per_crop":
        mean = x.mean(axis=(1, 2, 3), keepdims=True)
        std = x.std(axis=(1, 2, 3), keepdims=True)
        x = (x - mean) / (std + 8.0)
    elif norm == "fixed":
        x = (x - MEAN) * SCALE
    else:
        raise ValueError(f"unknown input_norm {norm!r}; known: {', '.join(NORMS)}")
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def input_norm(model_path: Path) -> str:
    """The normalisation a network was trained with, from the ``.json`` beside it."""
    meta = model_path.with_suffix(".json")
    if not meta.is_file():
        return "fixed"
    norm = json.loads(meta.read_text(encoding="utf-8")).get("input_norm", "fixed")
    if norm not in NORMS:
        raise ValueError(f"{meta}: unknown input_norm {norm!r}")
    return str(norm)


class Classifier:
    """One or more crop networks; ``probabilities`` averages theirs."""

    def __init__(self, model_paths: Path | Sequence[Path] = MODEL_PATHS) -> None:
        paths = [model_paths] if isinstance(model_paths, Path) else list(model_paths)
        if not paths:
            raise ValueError("no classifier network given")
        self.members = [(cv2.dnn.readNetFromONNX(str(p)), input_norm(p)) for p in paths]

    def probabilities(self, crops: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float32]:
        """(n, 7) class probabilities: column 0 "not a die", columns 1-6 the values."""
        if not crops:
            return np.zeros((0, 7), np.float32)
        batch = np.asarray(
            np.stack(
                [
                    c
                    if c.shape[:2] == (CROP_SIDE, CROP_SIDE)
                    else cv2.resize(c, (CROP_SIDE, CROP_SIDE), interpolation=cv2.INTER_AREA)
                    for c in crops
                ]
            ),
            np.uint8,
        )
        total = np.zeros((len(crops), 7), np.float32)
        for net, norm in self.members:
            net.setInput(to_input(batch, norm))
            logits = np.asarray(net.forward(), np.float32).reshape(len(crops), -1)
            total += softmax(logits)
        return np.asarray(total / len(self.members), np.float32)
