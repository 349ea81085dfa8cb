"""The crop networks: input normalisation and layout, the shipped networks' own word on
them, averaging."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.conftest import photo_like
from vision import locate
from vision.classify import (
    CROP_SIDE,
    MODEL_PATH,
    MODEL_PATHS,
    NORMS,
    Classifier,
    crop,
    input_norm,
    input_stem,
    network_input,
    softmax,
    to_input,
    unfold3,
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


def test_per_channel_input_removes_each_colours_cast() -> None:
    c = _crops(2).astype(np.float32)
    tinted = np.clip(c * np.array([0.5, 0.9, 1.0]) + np.array([40, 0, 15]), 0, 255)
    a = to_input(c.astype(np.uint8), "per_channel")
    b = to_input(tinted.astype(np.uint8), "per_channel")
    assert np.abs(a.mean(axis=(2, 3))).max() < 1e-4  # every colour of every crop centred
    # The same crops with each colour scaled and shifted: nearly the same input.
    assert float(np.corrcoef(a.ravel(), b.ravel())[0, 1]) > 0.99
    # per_crop keeps the cast: one colour shifted moves that channel's mean.
    shifted = c.copy()
    shifted[..., 2] = np.clip(shifted[..., 2] + 60, 0, 255)
    kept = to_input(shifted.astype(np.uint8), "per_crop")
    assert np.abs(kept.mean(axis=(2, 3))).max() > 0.1


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
        assert input_norm(p) in NORMS
        assert input_stem(p) in ("plain", "unfolded")


def _conv3x3(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """A 3x3, padding-1 convolution (cross-correlation, as in the networks), by loops."""
    n, c, h, wd = x.shape
    p = np.zeros((n, c, h + 2, wd + 2), np.float64)
    p[:, :, 1:-1, 1:-1] = x
    out = np.zeros((n, w.shape[0], h, wd))
    for o in range(w.shape[0]):
        for ci in range(c):
            for dy in range(3):
                for dx in range(3):
                    out[:, o] += w[o, ci, dy, dx] * p[:, ci, dy : dy + h, dx : dx + wd]
    return out


def test_unfolded_input_with_reshaped_weights_is_the_3x3_convolution() -> None:
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 3, 7, 9)).astype(np.float32)
    w = rng.normal(size=(5, 3, 3, 3)).astype(np.float32)
    u = unfold3(x)
    assert u.shape == (2, 27, 7, 9) and u.dtype == np.float32 and u.flags.c_contiguous
    as_1x1 = np.einsum("ok,nkhw->nohw", w.reshape(5, 27).astype(np.float64), u)
    assert np.allclose(as_1x1, _conv3x3(x, w), atol=1e-4)
    # A transposed layout would not do: the test can tell.
    wrong = np.einsum("ok,nkhw->nohw", w.transpose(0, 1, 3, 2).reshape(5, 27), u)
    assert not np.allclose(wrong, _conv3x3(x, w), atol=1e-2)


def test_unknown_stem_is_refused(tmp_path: Path) -> None:
    model = tmp_path / "c.onnx"
    shutil.copy(MODEL_PATH, model)
    assert input_stem(MODEL_PATH) == "unfolded"
    with pytest.raises(ValueError, match="keep each network with its own .json"):
        Classifier(model)  # parted from its .json: refused, not run on the wrong input
    model.with_suffix(".json").write_text(json.dumps({"stem": "folded twice"}))
    with pytest.raises(ValueError, match="unknown stem"):
        Classifier(model)


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


def test_a_crop_inside_the_frame_is_the_square_around_the_die() -> None:
    """A crop inside the frame is the square of 1.3 die sides around the centre, shrunk:
    a die of size 40 at (100.7, 60.2) is the 52-px square from pixel (75, 34)."""
    frame = photo_like(120, 200)
    expect = cv2.resize(frame[34:86, 75:127], (CROP_SIDE, CROP_SIDE), interpolation=cv2.INTER_AREA)
    assert np.array_equal(crop(frame, 100.7, 60.2, 40.0), expect)


@pytest.mark.parametrize(
    ("cx", "cy"), [(5.0, 60.0), (150.0, 60.0), (80.0, 3.0), (80.0, 117.0), (2.0, 118.0)]
)
def test_a_crop_reaching_past_the_frame_edge_continues_the_edge_pixels(
    cx: float, cy: float
) -> None:
    """A die at the frame's edge is cropped as if the frame went on with its edge pixels
    (not black, not shifted), as the network saw such dice in training."""
    frame = photo_like(120, 160)
    m = 50
    extended = np.asarray(cv2.copyMakeBorder(frame, m, m, m, m, cv2.BORDER_REPLICATE), np.uint8)
    assert np.array_equal(crop(frame, cx, cy, 30.0), crop(extended, cx + m, cy + m, 30.0))


def test_a_crop_of_a_place_past_the_frame_is_a_blank_square() -> None:
    """A place wholly outside the frame, or just touching its edge, gives a blank crop
    rather than an error."""
    frame = photo_like(120, 160)
    for cx, cy in [(-100.0, 60.0), (80.0, 400.0), (160.0 + 13.0, 60.0), (80.0, -13.0)]:
        c = crop(frame, cx, cy, 20.0)  # 26 px: 13 either side of the centre
        assert c.shape == (CROP_SIDE, CROP_SIDE, 3) and c.dtype == np.uint8, (cx, cy)
        assert int(c.max()) == int(c.min()), (cx, cy)


def test_softmax_of_large_logits_is_finite_and_sums_to_one() -> None:
    """Class probabilities stay finite and sum to one however large the logits; a NaN
    confidence would pass no threshold and no refusal either."""
    z = np.array([[1000.0, 0.0, -5.0, 3.0, 999.0, 1.0, 2.0]], np.float32)
    p = softmax(z)
    assert np.all(np.isfinite(p))
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-5)
    assert int(np.argmax(p[0])) == 0


def test_a_nearly_flat_crop_is_not_blown_up_to_full_contrast() -> None:
    """A crop whose colours vary by one grey level (an empty patch of tray) stays nearly
    flat after normalisation, so its noise is not read as pips."""
    rng = np.random.default_rng(3)
    c = (100 + rng.integers(0, 2, (1, CROP_SIDE, CROP_SIDE, 3))).astype(np.uint8)
    for norm in ("per_crop", "per_channel"):
        assert float(np.abs(to_input(c, norm)).max()) < 0.2, norm


def test_a_network_json_that_is_not_an_object_says_nothing(tmp_path: Path) -> None:
    """A network's .json that is not an object says nothing: the input is taken as fixed
    and an unfolded network without its word is refused with the usual message."""
    model = tmp_path / "c.onnx"
    shutil.copy(MODEL_PATH, model)
    model.with_suffix(".json").write_text(json.dumps(["per_crop", "unfolded"]))
    assert input_norm(model) == "fixed"
    with pytest.raises(ValueError, match="keep each network with its own .json"):
        Classifier(model)


def test_each_network_gets_its_crops_normalised_as_its_json_says(tmp_path: Path) -> None:
    """The same weights told "fixed" by their .json give other probabilities than as
    shipped ("per_crop"): the norm a network is given is its own, not a default."""
    meta = json.loads(MODEL_PATH.with_suffix(".json").read_text(encoding="utf-8"))
    assert meta["input_norm"] == "per_crop"
    model = tmp_path / "c.onnx"
    shutil.copy(MODEL_PATH, model)
    model.with_suffix(".json").write_text(json.dumps({**meta, "input_norm": "fixed"}))
    dim = [(c * 0.2 + 20).astype(np.uint8) for c in _crops(3, seed=5)]
    assert input_norm(model) == "fixed"
    assert not np.allclose(
        Classifier(MODEL_PATH).probabilities(dim), Classifier(model).probabilities(dim), atol=1e-3
    )


def test_softmax_is_taken_crop_by_crop() -> None:
    """Each crop's probabilities are its own: a crop with huge logits in the same batch
    does not make another's vanish into NaN, which would be read as no value at all."""
    z = np.array([[1000.0, 0, 0, 0, 0, 0, 0], [0.0, 6.0, 0, 0, 0, 0, 0]], np.float32)
    p = softmax(z)
    assert np.all(np.isfinite(p))
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-5)
    assert int(np.argmax(p[1])) == 1
    assert np.allclose(p[1], softmax(z[1:])[0], atol=1e-6)


def test_a_plain_network_whose_json_says_unfolded_is_refused(tmp_path: Path) -> None:
    """A network without the unfolded input (the locator's file stands in for one) whose
    .json says "unfolded" would be run on 27 channels: refused, naming the file."""
    model = tmp_path / "c.onnx"
    shutil.copy(locate.MODEL_PATH, model)
    assert input_stem(model) == "plain"  # no .json: plain, and the network agrees
    model.with_suffix(".json").write_text(json.dumps({"stem": "unfolded"}))
    with pytest.raises(ValueError, match="input is not the unfolded one") as caught:
        Classifier(model)
    assert str(caught.value).startswith(f"{model}: its .json says stem 'unfolded'")


def test_only_an_unfolded_network_gets_its_input_unfolded() -> None:
    """A plain network gets the crops normalised, three colours; an unfolded one the
    same unfolded into 27 channels."""
    c = _crops(2)
    plain = network_input(c, "per_crop", "plain")
    assert plain.shape == (2, 3, CROP_SIDE, CROP_SIDE)
    assert np.array_equal(plain, to_input(c, "per_crop"))
    unfolded = network_input(c, "per_crop", "unfolded")
    assert unfolded.shape == (2, 27, CROP_SIDE, CROP_SIDE)
    assert np.array_equal(unfolded, unfold3(to_input(c, "per_crop")))
