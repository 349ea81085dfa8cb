"""Drawn training dice (vision/train/synth.py): the right size, repeatable, and the
smoky kind is what it says (translucent, pips in their canonical places)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.classify import CROP_K, CROP_SIDE
from vision.pips import PATTERNS
from vision.train import synth


def test_a_drawn_crop_is_a_reader_crop_and_repeats_with_its_seed() -> None:
    a = synth.draw(np.random.default_rng(7), [], 4)
    b = synth.draw(np.random.default_rng(7), [], 4)
    c = synth.draw(np.random.default_rng(8), [], 4)
    assert a.shape == (CROP_SIDE, CROP_SIDE, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_a_smoky_face_lets_the_tray_show_through() -> None:
    _, alpha = synth._smoky_face(np.random.default_rng(1), 3, 100)
    assert alpha[0, 0] == 0.0  # a rounded corner
    inside = alpha[30:70, 30:70]
    assert float(inside.min()) > 0.6 and float(inside.max()) < 0.96


@pytest.mark.parametrize("value", range(1, 7))
def test_smoky_pips_lie_in_the_canonical_pattern(value: int) -> None:
    """On a few random smoky dice, each place of the 3 x 3 pip grid where the value has a
    pip differs in colour from the places where it has none (the body) more than those
    differ among themselves."""
    side = 120
    for seed in range(4):
        img, _ = synth._smoky_face(np.random.default_rng(100 * value + seed), value, side)
        lab = cv2.cvtColor(np.clip(img, 0, 255).astype(np.uint8), cv2.COLOR_BGR2LAB)
        lab = lab.astype(np.float32)
        pips = set(synth.PIPS[value])
        on, off = [], []
        for gx in (-1, 0, 1):
            for gy in (-1, 0, 1):
                x = round(side / 2 + gx * 0.275 * side)
                y = round(side / 2 + gy * 0.275 * side)
                (on if (gx, gy) in pips else off).append(lab[y, x])
        body = np.median(np.array(off), axis=0)
        d_on = [float(np.linalg.norm(c - body)) for c in on]
        d_off = [float(np.linalg.norm(c - body)) for c in off]
        assert min(d_on) > max(d_off), (seed, d_on, d_off)


def test_drawn_pip_places_are_the_canonical_patterns() -> None:
    for value, places in synth.PIPS.items():
        assert frozenset(places) in PATTERNS[value], value


def test_a_pasted_neighbour_covers_the_margin_and_keeps_the_face() -> None:
    """Real crops given a neighbouring die (train_classifier --neighbour-share): the die's
    own face stays as it was; beside it, on one side only, the other die's pixels."""
    side = CROP_SIDE / CROP_K
    mid = CROP_SIDE / 2.0
    yy, xx = np.mgrid[0:CROP_SIDE, 0:CROP_SIDE]
    face = np.hypot(xx + 0.5 - mid, yy + 0.5 - mid) <= 0.55 * side
    c = np.full((CROP_SIDE, CROP_SIDE, 3), 100, np.uint8)
    other = np.full((CROP_SIDE, CROP_SIDE, 3), 200, np.uint8)
    pasted = 0
    for seed in range(20):
        out = synth.paste_neighbour(np.random.default_rng(seed), c, other)
        changed = (out != c).any(axis=2)
        assert not changed[face].any()
        if not changed.any():  # a neighbour a little apart may lie outside the crop
            continue
        pasted += 1
        # one side only: the changed pixels do not surround the die
        ys, xs = np.nonzero(changed)
        assert not (
            xs.min() < mid - side / 2
            and xs.max() > mid + side / 2 - 1
            and ys.min() < mid - side / 2
            and ys.max() > mid + side / 2 - 1
        )
    assert pasted >= 6  # about half of them reach into the crop
    assert np.array_equal(c, np.full_like(c, 100))  # the input is not touched


@pytest.mark.parametrize("seed", range(12))
def test_a_covering_hides_the_far_side_of_the_die_and_leaves_the_near_side(seed: int) -> None:
    img = np.full((120, 160, 3), 230, np.uint8)
    cx, cy, size = 80.0, 60.0, 40.0
    out, vx, vy, vsize = synth.cover(np.random.default_rng(seed), img, cx, cy, size)
    assert out.shape == img.shape and out.dtype == np.uint8
    assert 0.3 * size < vsize < 0.65 * size
    # The part in view lies to one side of the centre; the far side is under the covering.
    d = np.array([vx - cx, vy - cy])
    assert np.linalg.norm(d) > 0.15 * size
    u = d / np.linalg.norm(d)
    near = np.round([cx + 0.4 * size * u[0], cy + 0.4 * size * u[1]]).astype(int)
    far = np.round([cx - 0.4 * size * u[0], cy - 0.4 * size * u[1]]).astype(int)
    assert np.array_equal(out[near[1], near[0]], img[near[1], near[0]])
    assert np.abs(out[far[1], far[0]].astype(int) - 230).max() > 10
    again = synth.cover(np.random.default_rng(seed), img, cx, cy, size)[0]
    assert np.array_equal(out, again)
