"""Bands of a flickering lamp (``vision.bands``), and the reader saying so when dice go
unseen in them."""

from __future__ import annotations

import numpy as np
import pytest

from vision import robustness
from vision.bands import BANDED, REGULAR, banding, is_banded
from vision.dataset import LabelledImage, default_data_dir, load_set
from vision.reader import PipReader

DATA = default_data_dir()  # ../shared/data/dice, or $DICETABLE_SHARED
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"shared photos not found at {DATA}")


def _photos(n: int = 6) -> list[LabelledImage]:
    """``n`` held-out photos of each set, spread over it."""
    out: list[LabelledImage] = []
    for name in ("byler_d6", "matteo_webcam"):
        imgs = load_set(name, "heldout", DATA)
        out += imgs[:: max(1, len(imgs) // n)][:n]
    return out


def _rows_lit(frame: np.ndarray, light: np.ndarray) -> np.ndarray:
    return robustness.lit(frame, np.repeat(light[:, None], frame.shape[1], axis=1))


@needs_data
def test_photos_as_taken_show_no_bands_and_flickering_ones_do() -> None:
    for img in _photos():
        frame = img.read()
        assert not is_banded(frame), (img.name, banding(frame))
        flickering, _ = robustness.flicker_bands(frame, img.dice, 3)
        assert is_banded(flickering), (img.name, banding(flickering))


@needs_data
@pytest.mark.parametrize("cycles", [3.5, 8.0, 20.0])
def test_bands_are_told_whatever_their_number(cycles: float) -> None:
    """Three and a half flickers in a frame (a 30 fps camera at 50 Hz mains) to twenty
    (an LED dimmed fast): the light going from 1 to 0.7 and back is bands."""
    img = _photos(1)[1]
    frame = img.read()
    rows = np.arange(frame.shape[0], dtype=np.float32)
    light = 1.0 - 0.3 * (0.5 + 0.5 * np.sin(2 * np.pi * cycles * rows / frame.shape[0]))
    found = banding(_rows_lit(frame, light))
    assert found.amplitude >= BANDED and found.regular >= REGULAR, found
    assert found.period == pytest.approx(240 / cycles, rel=0.1)


@needs_data
def test_a_shadow_or_a_dark_bar_across_the_tray_is_no_band() -> None:
    """One step of light (a shadow's edge across the whole tray), and a dark bar across
    it (a cable): light that changes once, not again and again down the frame."""
    img = _photos(1)[0]
    frame = img.read()
    h = frame.shape[0]
    step = np.where(np.arange(h) < h * 0.45, 1.0, 0.4).astype(np.float32)
    assert not is_banded(_rows_lit(frame, step)), banding(_rows_lit(frame, step))
    bar = np.where(np.abs(np.arange(h) - h * 0.6) < h * 0.08, 0.2, 1.0).astype(np.float32)
    assert not is_banded(_rows_lit(frame, bar)), banding(_rows_lit(frame, bar))


def test_tiny_and_flat_frames_have_no_bands() -> None:
    assert banding(np.zeros((20, 640, 3), np.uint8)).amplitude == 0.0
    assert not is_banded(np.full((480, 640, 3), 128, np.uint8))
    assert not is_banded(np.zeros((480, 640), np.uint8))


@needs_data
def test_the_reader_says_dice_went_unseen_in_bands() -> None:
    """A throw read short of the dice expected says why when the frame is in bands: the
    player sees that throwing again will not help while the lamp flickers. A frame with
    no bands says only what it saw."""
    reader = PipReader()
    img = _photos(2)[3]  # matteo's: its dice are all read as taken
    frame = img.read()
    n = len(img.dice)
    plain = reader.read(frame, expect=n + 1)
    assert plain.reason == f"saw {n} dice, expected {n + 1}"
    flickering, _ = robustness.flicker_bands(frame, img.dice, 3)
    banded = reader.read(flickering, expect=n + 9)
    assert not banded.is_ok
    assert banded.reason.endswith(", expected " + str(n + 9) + ": light in bands (a lamp flickers)")
    # more dice than expected: not for want of light
    assert "bands" not in reader.read(flickering, expect=1).reason


def _held_out(set_name: str, name: str) -> LabelledImage:
    return next(i for i in load_set(set_name, "heldout", DATA) if i.name == name)


@needs_data
def test_the_reader_says_a_die_too_dim_to_read_lies_in_bands() -> None:
    """A die read as taken, refused as unreadable in a flickering lamp's dark band: the
    reason says the light is in bands, as it does for dice unseen. A die refused in
    bands for its shape (tilted) is not the light's doing, and one refused as unclear in
    a frame with no bands says only that."""
    reader = PipReader()
    dim = _held_out("matteo_webcam", "train_dice_4.jpg")
    assert reader.read(dim.read(), expect=1).is_ok
    flickering, _ = robustness.flicker_bands(dim.read(), dim.dice, 3)
    reading = reader.read(flickering, expect=1)
    assert reading.reason == "die 1 is unreadable: light in bands (a lamp flickers)"
    assert [d.value for d in reading.dice] == [None]

    leaning = _held_out("matteo_webcam", "train_dice_9.jpg")
    flickering, _ = robustness.flicker_bands(leaning.read(), leaning.dice, 3)
    assert reader.read(flickering, expect=1).reason == "die 1 is tilted"

    unclear = _held_out("byler_d6", "IMG_20191208_112648.jpg")
    assert reader.read(unclear.read(), expect=2).reason == "die 1 is unclear"
