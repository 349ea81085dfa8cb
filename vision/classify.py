"""Reading a die crop: small networks (run by ``cv2.dnn``) that say 1-6 or "not a die".

The crop is square, centred on the die, ``CROP_K`` die sides wide, shrunk to
``CROP_SIDE`` pixels; it is not rotated (the networks were trained on every
rotation). Each shipped network (``MODEL_PATHS``: ``models/classifier*.onnx``;
one today) says how it wants its input
in the ``.json`` beside it (``"input_norm"``): ``"fixed"`` (pixel - 128) / 64,
or ``"per_crop"``, each crop brought to mean 0 and unit spread, which makes a
dim, low-contrast die look like a bright one, or ``"per_channel"``, each colour of
each crop so (which also takes away the die's colour cast; no shipped network uses
it). Their probabilities are averaged.

A network whose ``.json`` says ``"stem": "unfolded"`` has had its first layer, a 3x3
convolution of the three colours, rewritten as the same sums over 27 input channels: each
pixel's 3x3 neighbourhood in each colour (``unfold3``). It computes the same numbers, but
OpenCV runs a convolution over 3 channels slowly; over 27 it is a plain matrix product.
On one core of this machine that takes a crop from about 0.49 ms to 0.36 ms
(``python -m vision.train.unfold_stem`` rewrites a network so).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.nets import NetworkError, read_onnx

CROP_SIDE = 40
CROP_K = 1.3
MEAN = 128.0
SCALE = 1.0 / 64.0
NOT_A_DIE = 0  # class index; classes 1..6 are the values
MODELS_DIR = Path(__file__).resolve().parent / "models"
MODEL_PATH = MODELS_DIR / "classifier.onnx"
# Every shipped crop network (classifier*.onnx); more than one are averaged.
MODEL_PATHS: tuple[Path, ...] = tuple(sorted(MODELS_DIR.glob("classifier*.onnx")))
NORMS = ("fixed", "per_crop", "per_channel")
STEMS = ("plain", "unfolded")
# The input name of an unfolded network. cv2.dnn runs a network on input with the wrong
# number of channels without a word, so a network file whose input name does not match
# its .json's "stem" is refused.
UNFOLDED_INPUT = "crops_unfolded3x3"


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
    elif norm == "per_channel":  # each colour standardised on its own: the die's cast removed
        mean = x.mean(axis=(1, 2), keepdims=True)
        std = x.std(axis=(1, 2), keepdims=True)
        x = (x - mean) / (std + 8.0)
    elif norm == "fixed":
        x = (x - MEAN) * SCALE
    else:
        raise ValueError(f"unknown input_norm {norm!r}; known: {', '.join(NORMS)}")
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def unfold3(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """(n, c, h, w) -> (n, 9 c, h, w): channel ``9 ci + 3 dy + dx`` holds colour ``ci``
    shifted by (dy - 1, dx - 1), zero past the edge: the input of a 3x3, padding-1
    convolution laid out so that one 1x1 convolution, with the 3x3 kernel's weights
    reshaped (``w.reshape(cout, 9 c, 1, 1)``), computes it."""
    n, c, h, w = x.shape
    padded = np.zeros((n, c, h + 2, w + 2), np.float32)
    padded[:, :, 1:-1, 1:-1] = x
    win = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(2, 3))
    return np.ascontiguousarray(win.transpose(0, 1, 4, 5, 2, 3)).reshape(n, 9 * c, h, w)


def _meta(model_path: Path) -> dict[str, object]:
    meta = model_path.with_suffix(".json")
    if not meta.is_file():
        return {}
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not valid JSON"
        raise NetworkError(f"{meta}: {why}") from None
    return data if isinstance(data, dict) else {}


def input_norm(model_path: Path) -> str:
    """The normalisation a network was trained with, from the ``.json`` beside it."""
    norm = _meta(model_path).get("input_norm", "fixed")
    if norm not in NORMS:
        raise ValueError(f"{model_path.with_suffix('.json')}: unknown input_norm {norm!r}")
    return str(norm)


def input_stem(model_path: Path) -> str:
    """``"unfolded"`` if the network's first layer takes ``unfold3`` input, else ``"plain"``
    (its ``.json`` says; the network's input name must agree)."""
    stem = _meta(model_path).get("stem", "plain")
    if stem not in STEMS:
        raise ValueError(f"{model_path.with_suffix('.json')}: unknown stem {stem!r}")
    named = UNFOLDED_INPUT.encode() in model_path.read_bytes()
    if named != (stem == "unfolded"):
        raise ValueError(
            f"{model_path}: its .json says stem {stem!r}, but the network's input is "
            f"{'' if named else 'not '}the unfolded one: keep each network with its own .json"
        )
    return str(stem)


def network_input(crops: npt.NDArray[np.uint8], norm: str, stem: str) -> npt.NDArray[np.float32]:
    """What a network with this ``input_norm`` and ``stem`` is given for these crops."""
    x = to_input(crops, norm)
    return unfold3(x) if stem == "unfolded" else x


class Classifier:
    """One or more crop networks; ``probabilities`` averages theirs."""

    def __init__(self, model_paths: Path | Sequence[Path] | None = None) -> None:
        """The crop networks at ``model_paths`` (every shipped one, ``MODEL_PATHS``, if
        None); ``NetworkError`` if one cannot be read or its ``.json`` is not JSON, and
        a ``ValueError`` (which ``NetworkError`` also is) if it is parted from its own
        ``.json``."""
        if model_paths is None:
            model_paths = MODEL_PATHS
            if not model_paths:
                raise NetworkError(f"{MODELS_DIR}: no crop network (classifier*.onnx)")
        paths = [model_paths] if isinstance(model_paths, Path) else list(model_paths)
        if not paths:
            raise ValueError("no classifier network given")
        self.members = [(read_onnx(p), input_norm(p), input_stem(p)) for p in paths]

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
        for net, norm, stem in self.members:
            net.setInput(network_input(batch, norm, stem))
            logits = np.asarray(net.forward(), np.float32).reshape(len(crops), -1)
            total += softmax(logits)
        return np.asarray(total / len(self.members), np.float32)
