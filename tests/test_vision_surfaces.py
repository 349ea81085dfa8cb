"""vision.surfaces: dice cut out of a photo and laid on another tray surface."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.dataset import LabelledDie, default_data_dir, load_set
from vision.reader import PipReader
from vision.robustness import ALTERATIONS, OWN_TRAY, OnSurface
from vision.surfaces import SURFACES, cut_out, lay_on, make_surface, name_seed, random_surface

DATA = default_data_dir()
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"shared photos not found at {DATA}")

Box = tuple[float, float, float, float]


def _tray_with_dice() -> tuple[np.ndarray, list[Box]]:
    """A light, slightly noisy tray with two red square dice (white pips) and a faint
    shadow below and right of each."""
    rng = np.random.default_rng(1)
    f = np.clip(rng.normal(205, 3, (120, 200, 3)), 0, 255).astype(np.uint8)
    boxes: list[Box] = [(30.0, 40.0, 62.0, 72.0), (120.0, 30.0, 152.0, 62.0)]
    for x0, y0, x1, y1 in boxes:
        shadow = f[int(y0) + 3 : int(y1) + 3, int(x0) + 4 : int(x1) + 4]
        shadow[:] = (shadow * 0.9).astype(np.uint8)
        f[int(y0) : int(y1), int(x0) : int(x1)] = (40, 30, 160)
        cx, cy = int((x0 + x1) / 2), int((y0 + y1) / 2)
        for dx, dy in ((-8, -8), (8, 8), (0, 0)):
            cv2.circle(f, (cx + dx, cy + dy), 3, (255, 255, 255), -1)
    return f, boxes


def test_each_named_surface_is_drawn_the_same_for_the_same_seed() -> None:
    for kind in SURFACES:
        a = make_surface(kind, 40, 60, 5)
        assert a.shape == (40, 60, 3) and a.dtype == np.float32, kind
        assert float(a.min()) >= 0.0 and float(a.max()) <= 255.0, kind
        assert np.array_equal(a, make_surface(kind, 40, 60, 5)), kind
        assert not np.array_equal(a, make_surface(kind, 40, 60, 6)), kind
    felt = make_surface("green felt", 40, 60, 0).reshape(-1, 3).mean(axis=0)
    assert felt[1] > felt[0] and felt[1] > felt[2]  # green (BGR)
    assert make_surface("black felt", 40, 60, 0).mean() < 40


def test_an_unknown_surface_is_named_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="no surface 'lino'; known: green felt"):
        make_surface("lino", 10, 10, 0)


def test_random_surfaces_differ_in_colour_and_stay_in_range() -> None:
    rng = np.random.default_rng(3)
    means = []
    for _ in range(12):
        s = random_surface(rng, 32, 48)
        assert s.shape == (32, 48, 3) and s.dtype == np.float32
        assert float(s.min()) >= 0.0 and float(s.max()) <= 255.0
        means.append(s.reshape(-1, 3).mean(axis=0))
    spread = np.ptp(np.array(means), axis=0)
    assert (spread > 40).all(), spread


def test_cut_dice_keep_their_pixels_and_the_rest_becomes_the_surface() -> None:
    f, boxes = _tray_with_dice()
    cut = cut_out(f, boxes)
    assert cut.kept == (0, 1) and cut.whole
    surface = np.full(f.shape, (30.0, 90.0, 40.0), np.float32)
    g = lay_on(f, cut, surface)
    for x0, y0, x1, y1 in boxes:
        inner = (slice(int(y0) + 3, int(y1) - 3), slice(int(x0) + 3, int(x1) - 3))
        assert np.array_equal(g[inner], f[inner])  # the die as it was
        assert (cut.fg[inner] == 255).all()
    far = g[100:, :20].reshape(-1, 3).astype(int)
    assert (np.abs(far - (30, 90, 40)) <= 1).all()  # the tray replaced
    assert (cut.shade[100:, :20] == 1.0).all()  # no shadow kept far from the dice


@needs_data
def test_an_own_tray_colour_photo_keeps_nearly_every_die_and_reads_as_taken() -> None:
    """A byler photo on its own tray colour: most dice cut out, the labels kept are the
    photo's own, and the reader reads them as it reads the photo as taken."""
    im = load_set("byler_d6", "tune", DATA)[0]
    frame = im.read()
    g, kept = ALTERATIONS[OWN_TRAY](frame, im.dice, 5)
    assert len(kept) >= len(im.dice) - 2
    assert set(kept) <= set(im.dice)
    reader = PipReader()
    taken = sorted(d.value for d in reader.read(frame).dice if d.value is not None)
    laid = sorted(d.value for d in reader.read(g).dice if d.value is not None)
    assert len(laid) >= len(taken) - 2
    assert set(laid) <= set(taken) | {d.value for d in kept}


def test_a_photo_whose_dice_do_not_cut_out_cleanly_gives_the_bare_surface() -> None:
    """A label box over a quarter of a die (as a die flat against another may be
    labelled): its cut is the whole die, too big for its box, so it is dropped, and it
    lies under the kept die's cut. The photo is not used: the bare surface, no labels."""
    f, boxes = _tray_with_dice()
    quarter: Box = (31.0, 41.0, 45.0, 55.0)
    cut = cut_out(f, [*boxes, quarter])
    assert cut.kept == (0, 1) and not cut.whole
    dice = tuple(LabelledDie(3, b) for b in [*boxes, quarter])
    g, kept = OnSurface("grey rubber")(f, dice, 0)
    assert kept == ()
    surface = make_surface("grey rubber", f.shape[0], f.shape[1], name_seed("grey rubber", 0))
    assert np.array_equal(g, np.clip(surface + 0.5, 0, 255).astype(np.uint8))
