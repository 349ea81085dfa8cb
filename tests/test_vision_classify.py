"""The crop networks: input normalisation, the shipped networks' own word on it, averaging."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.classify import (
    CROP_SIDE,
    MODEL_PATH,
    MODEL_PATHS,
    Classifier,
    crop,
    input_norm,
    to_input,
)


def _crops(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (n, CROP_SIDE, CROP_SIDE, 3), np.uint8)


def test_fixed_input_is_pixel_minus_128_over_64_channels_first() -> None:
    c = _crops(2)
    x = to_input(c, "fixed")
    assert x.shape == (2, 3, CROP_SIDE, CROP_SIDE) and x.dtype == np.float32
    assert np.allclose(x[1, 2, 5, 7], (float(c[1, 5, 7, 2]) - 128.0) / 64.0)


def test_per_crop_input_ignores_brightness_and_contrast() -> None:
    c = _crops(1).astype(np.float32)
    dim = np.clip(c * 0.25 + 10, 0, 255).astype(np.uint8)
    bright = np.clip(c * 0.9 + 20, 0, 255).astype(np.uint8)
    a, b = to_input(dim, "per_crop"), to_input(bright, "per_crop")
    assert abs(float(a.mean())) < 1e-4 and abs(float(b.mean())) < 1e-4
    # Same picture at another exposure: nearly the same input (the +8 keeps flat crops flat).
    assert float(np.corrcoef(a.ravel(), b.ravel())[0, 1]) > 0.99
    flat = to_input(np.full((1, CROP_SIDE, CROP_SIDE, 3), 77, np.uint8), "per_crop")
    assert np.allclose(flat, 0.0)


def test_unknown_normalisation_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown input_norm"):
        to_input(_crops(1), "sideways")
    model = tmp_path / "c.onnx"
    shutil.copy(MODEL_PATH, model)
    assert input_norm(model) == "fixed"  # no .json: the first networks' input
    model.with_suffix(".json").write_text(json.dumps({"input_norm": "per_crop"}))
    assert input_norm(model) == "per_crop"
    model.with_suffix(".json").write_text(json.dumps({"input_norm": "upside"}))
    with pytest.raises(ValueError, match="unknown input_norm"):
        Classifier(model)


def test_shipped_networks_each_say_their_input() -> None:
    assert MODEL_PATH in MODEL_PATHS
    for p in MODEL_PATHS:
        assert input_norm(p) in ("fixed", "per_crop")


def test_probabilities_are_the_mean_over_networks() -> None:
    crops = [crop(_crops(1, s)[0], 20, 20, 30) for s in range(3)]
    one = Classifier(MODEL_PATH).probabilities(crops)
    twice = Classifier([MODEL_PATH, MODEL_PATH]).probabilities(crops)
    assert one.shape == (3, 7)
    assert np.allclose(one.sum(axis=1), 1.0, atol=1e-5)
    assert np.allclose(one, twice, atol=1e-6)
    every = Classifier().probabilities(crops)
    parts = [Classifier(p).probabilities(crops) for p in MODEL_PATHS]
    assert np.allclose(every, np.mean(parts, axis=0), atol=1e-5)


def test_odd_sized_crops_are_resized_and_none_is_no_rows() -> None:
    c = Classifier(MODEL_PATH)
    assert c.probabilities([]).shape == (0, 7)
    big = np.asarray(cv2.resize(_crops(1)[0], (80, 80)), np.uint8)
    assert c.probabilities([big]).shape == (1, 7)
    with pytest.raises(ValueError, match="no classifier"):
        Classifier([])
