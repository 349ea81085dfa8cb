"""Drawn training dice (vision/train/synth.py): the right size, repeatable, and the
smoky kind is what it says (translucent, pips in their canonical places)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.classify import CROP_SIDE
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
