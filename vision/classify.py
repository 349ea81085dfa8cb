"""Reading a die crop: a small network (run by ``cv2.dnn``) that says 1-6 or "not a die".

The crop is square, centred on the die, ``CROP_K`` die sides wide, shrunk to
``CROP_SIDE`` pixels; it is not rotated (the network was trained on every
rotation).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

CROP_SIDE = 40
CROP_K = 1.3
MEAN = 128.0
SCALE = 1.0 / 64.0
NOT_A_DIE = 0  # class index; classes 1..6 are the values
MODEL_PATH = Path(__file__).resolve().parent / "models" / "classifier.onnx"


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


class Classifier:
    def __init__(self, model_path: Path = MODEL_PATH) -> None:
        self.net = cv2.dnn.readNetFromONNX(str(model_path))

    def probabilities(self, crops: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float32]:
        """(n, 7) class probabilities: column 0 "not a die", columns 1-6 the values."""
        if not crops:
            return np.zeros((0, 7), np.float32)
        blob = cv2.dnn.blobFromImages(crops, SCALE, (CROP_SIDE, CROP_SIDE), (MEAN, MEAN, MEAN))
        self.net.setInput(blob)
        logits = np.asarray(self.net.forward(), np.float32).reshape(len(crops), -1)
        return softmax(logits)
