"""The locator's input: frames shrunk fast, within a few grey levels of a one-step INTER_AREA
(the networks were trained with noise of 2-8 grey levels and far larger colour changes)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.conftest import photo_like
from vision.dataset import default_data_dir, load_set
from vision.locate import (
    MEAN,
    PAD,
    SCALE,
    Locator,
    Spot,
    by_factor,
    halve,
    shrink,
    suppress,
    to_input,
    work_sides,
)

DATA = default_data_dir()
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"shared photos not found at {DATA}")


@needs_data
@pytest.mark.parametrize(
    ("set_name", "enlarge"),
    [("matteo_webcam", 1.0), ("byler_d6", 1.0), ("matteo_webcam", 2.5), ("byler_d6", 2.5)],
)
def test_shrink_is_within_a_few_grey_levels_of_inter_area(set_name: str, enlarge: float) -> None:
    """On real photos (and photos enlarged as a bigger camera would see them)."""
    for img in load_set(set_name, "tune", DATA)[:5]:
        photo = cv2.imread(str(img.path), cv2.IMREAD_COLOR)
        if enlarge != 1.0:
            photo = cv2.resize(photo, None, fx=enlarge, fy=enlarge, interpolation=cv2.INTER_CUBIC)
        h, w = photo.shape[:2]
        nw, nh = 256, round(256 * h / w)
        fast = shrink(photo, nw, nh)
        ref = cv2.resize(photo, (nw, nh), interpolation=cv2.INTER_AREA)
        assert fast.shape == ref.shape == (nh, nw, 3)
        assert float(np.mean(np.abs(fast.astype(float) - ref.astype(float)))) < 3.0, img.name


def test_shrink_enlarges_small_frames_and_keeps_exact_sizes() -> None:
    img = photo_like(96, 128)
    assert shrink(img, 256, 192).shape == (192, 256, 3)
    assert shrink(img, 128, 96) is img


@pytest.mark.parametrize(("h", "w"), [(480, 640), (481, 641), (960, 1280), (300, 700)])
def test_a_frame_halved_beforehand_shrinks_to_the_same_picture(h: int, w: int) -> None:
    """The reader halves a frame for its thumbnail and hands the half on: where the whole
    factor is 2 it is taken, and the picture is the one ``shrink`` makes itself (to the
    bit); for other factors it is not used. Two halvings are not one 4x average."""
    img = photo_like(h, w)
    half = halve(img)
    assert np.array_equal(half, by_factor(img, 2))
    assert half.shape == (h // 2, w // 2, 3)
    for nw in (256, 64, round(w * 0.4)):
        nh = max(1, round(nw * h / w))
        assert np.array_equal(shrink(img, nw, nh, half), shrink(img, nw, nh)), nw
    stale = np.zeros_like(half)  # not this frame's half: shows when it is taken
    nw = round(w * 0.4)  # a factor of 2, then bilinear
    nh = round(nw * h / w)
    assert not np.array_equal(shrink(img, nw, nh, stale), shrink(img, nw, nh))
    nh = round(64 * h / w)  # a factor of 4 or more
    assert np.array_equal(shrink(img, 64, nh, stale), shrink(img, 64, nh))


def test_the_locator_finds_the_same_spots_given_the_frame_halved() -> None:
    frame = photo_like(480, 640)
    loc = Locator()
    assert loc.find(frame, 0.05, halve(frame)) == loc.find(frame, 0.05)


def test_to_input_pads_to_the_network_stride() -> None:
    blob, scale = to_input(photo_like(480, 640), 256)
    assert blob.shape == (1, 3, 192, 256) and scale == pytest.approx(0.4)
    blob, _ = to_input(photo_like(300, 700), 256)
    assert blob.shape[2] % PAD == 0 and blob.shape[3] == 256


@pytest.mark.parametrize(
    ("long_side", "sides"),
    [
        (320, (256, 64)),
        (640, (256, 64)),
        (1000, (400, 100)),
        (1280, (512, 128)),
        (4000, (512, 128)),
    ],
)
def test_wider_frames_are_looked_at_with_more_pixels(
    long_side: int, sides: tuple[int, int]
) -> None:
    # Up to twice the pixels of a 640-wide frame's passes, for frames up to twice as wide:
    # a die the locator can find stays about as many frame pixels across.
    assert work_sides(long_side) == sides


def test_to_input_pads_the_shrunk_frame_without_stretching_it() -> None:
    """The shrunk frame sits unstretched at the input's top left; the padding below
    repeats its last row. A stretched frame would put every die off its true place."""
    frame = photo_like(300, 700)
    blob, scale = to_input(frame, 256)
    nw, nh = 256, round(300 * scale)
    assert blob.shape[2] > nh  # this frame needs padding below
    small = ((shrink(frame, nw, nh).astype(np.float32) - MEAN) * SCALE).transpose(2, 0, 1)
    assert np.allclose(blob[0, :, :nh, :nw], small, atol=1e-5)
    assert np.allclose(blob[0, :, nh:, :nw], small[:, -1:, :], atol=1e-5)


def test_shrink_keeps_fine_detail_when_the_sides_shrink_by_different_whole_factors() -> None:
    """2-px stripes shrunk 2x across and 3x down stay as INTER_AREA has them: the fast
    path takes the smaller whole factor, so no pixels are skipped across."""
    stripes = np.zeros((300, 512, 3), np.uint8)
    stripes[:, (np.arange(512) % 4) < 2] = 255
    fast = shrink(stripes, 256, 100)
    ref = cv2.resize(stripes, (256, 100), interpolation=cv2.INTER_AREA)
    assert fast.shape == ref.shape == (100, 256, 3)
    assert float(np.mean(np.abs(fast.astype(float) - ref.astype(float)))) < 3.0


def test_a_find_at_a_stronger_big_finds_centre_is_kept_only_if_pip_sized() -> None:
    """A small find at a stronger big find's centre may be that die's pip and is kept for
    the reader to judge; a find of the big one's size there is the same die seen twice,
    and the weaker goes."""
    big = Spot(100.0, 100.0, 60.0, 0.9)
    pip = Spot(101.0, 99.0, 12.0, 0.5)
    assert set(suppress([pip, big])) == {big, pip}
    twin = Spot(103.0, 98.0, 55.0, 0.5)
    assert suppress([twin, big]) == [big]


def test_a_fine_and_a_coarse_find_in_one_place_are_both_kept_for_the_reader() -> None:
    """The fine pass finds part of a die too big for it (here 0.6 of its size), often
    more surely than the coarse pass finds the whole die: which is the die, the reader
    settles (``PipReader._one_per_place``), not the locator's certainty. The weaker one
    is kept as a rival that drops nothing itself: a find the stronger one leaves alone
    stays whichever wins (the reader drops it again if the rival wins)."""
    die = Spot(300.0, 300.0, 160.0, 0.6, coarse=True)
    part = Spot(305.0, 296.0, 96.0, 0.85)
    assert set(suppress([part, die])) == {part, die}
    twin = Spot(303.0, 299.0, 90.0, 0.7)  # the part found twice by its own pass
    assert set(suppress([part, die, twin])) == {part, die}
    # matteo train_two_1.jpg (tuning part) cut by the frame's edge: the coarse find of a
    # 2, a fine find of it more than half its size, and a smaller fine one the coarse find
    # leaves alone. Before rivals were kept the smaller one stayed; it still does.
    coarse = Spot(409.0, 262.0, 108.0, 0.71, coarse=True)
    rival = Spot(400.0, 259.0, 71.0, 0.57)
    small = Spot(390.0, 248.0, 43.0, 0.34)
    assert suppress([small, rival, coarse]) == [coarse, rival, small]


class _FakeNet:
    """Stands in for the locator network on a ``frame_w`` wide frame: given an input ``w``
    pixels wide, its maps hold the finds listed under ``w`` (frame x, y, size, heat) as
    the network would draw them (cell, sub-cell offset, log size in cells)."""

    def __init__(
        self, frame_w: int, finds: dict[int, list[tuple[float, float, float, float]]]
    ) -> None:
        self.frame_w = frame_w
        self.finds = finds
        self.shape: tuple[int, ...] = (1, 3, 16, 16)
        self.widths: list[int] = []

    def setInput(self, blob: np.ndarray) -> None:  # noqa: N802 (cv2.dnn's name)
        self.shape = blob.shape

    def forward(self) -> np.ndarray:
        _, _, h, w = self.shape
        self.widths.append(w)
        out = np.zeros((1, 4, h // 4, w // 4), np.float32)
        s = w / self.frame_w
        for fx, fy, size, heat in self.finds.get(w, []):
            gx, gy = fx * s / 4, fy * s / 4
            out[0, :, int(gy), int(gx)] = (heat, gx - int(gx), gy - int(gy), np.log(size * s / 4))
        return out


def _places(spots: list[Spot]) -> list[tuple[int, int, bool]]:
    return sorted((round(s.x), round(s.y), s.coarse) for s in spots)


@pytest.mark.parametrize(
    ("sizes", "closer"),
    [((80.0, 80.0, 30.0), False), ((80.0, 30.0, 30.0), True), ((30.0, 30.0, 30.0), True)],
)
def test_a_wide_frame_is_looked_at_closer_unless_most_sure_finds_are_big_enough(
    sizes: tuple[float, ...], closer: bool
) -> None:
    """A 1280 px frame is first looked at as a 640 px one; its sure finds' middle size
    (not the smallest, not the biggest) decides: at least 13 of that look's pixels (65 of
    the frame's) and that look is the fine pass, else a look at 512 px is. Either way the
    finds come back at their places in the frame."""
    probe = [(200.0 + 300 * i, 300.0, size, 0.9) for i, size in enumerate(sizes)]
    close = [(900.0, 700.0, 30.0, 0.9)]
    loc = Locator()
    loc.net = _FakeNet(1280, {256: probe, 512: close})
    spots = loc.find(np.full((960, 1280, 3), 128, np.uint8))
    expect = close if closer else probe
    assert _places(spots) == sorted((round(x), round(y), False) for x, y, _, _ in expect)
    assert loc.net.widths[0] == 256 and (512 in loc.net.widths) == closer


def test_the_closer_looks_size_limit_is_in_its_own_pixels() -> None:
    """In the closer (512 px) look at a 1280 px frame, a find over 46 of its pixels
    across (here 150 frame px, 60 of its own) is too big for the fine pass and dropped:
    the coarse pass reads it. Kept, it would stand as a rival to the coarse find."""
    small_sure = [(200.0, 200.0, 30.0, 0.9)]  # 6 px in the 640 px look: look closer
    fine = [(300.0, 300.0, 30.0, 0.9), (800.0, 500.0, 150.0, 0.8)]
    coarse = [(800.0, 500.0, 150.0, 0.6)]
    loc = Locator()
    loc.net = _FakeNet(1280, {256: small_sure, 512: fine, 128: coarse})
    spots = loc.find(np.full((960, 1280, 3), 128, np.uint8))
    assert _places(spots) == [(300, 300, False), (800, 500, True)]
    assert [round(s.size) for s in sorted(spots, key=lambda s: s.x)] == [30, 150]
