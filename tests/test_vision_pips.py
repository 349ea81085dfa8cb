"""The classical pip count: canonical layouts, and the squash that tells a die leaning over."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.pips import FACE_PX, PATTERNS, PipCount, _quantiles, count_pips, layout_value

C = (20.0, 20.0)
SIDE = 30.0


def _place(
    cells: frozenset[tuple[int, int]], angle: float, sx: float = 1.0
) -> list[tuple[float, float]]:
    """Pips of a canonical pattern on a face of side ``SIDE``, squashed by ``sx``, turned."""
    ca, sa = math.cos(angle), math.sin(angle)
    out = []
    for a, b in cells:
        x, y = 0.28 * SIDE * a * sx, 0.28 * SIDE * b
        out.append((C[0] + ca * x - sa * y, C[1] + sa * x + ca * y))
    return out


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("angle", [0.0, 0.3, 1.1, 2.5])
def test_each_canonical_layout_is_its_value_at_any_rotation(value: int, angle: float) -> None:
    for cells in PATTERNS[value]:
        assert layout_value(_place(cells, angle), C, SIDE) == value


def test_a_stray_pip_or_a_broken_pattern_is_no_value() -> None:
    four = _place(PATTERNS[4][0], 0.4)
    assert layout_value([*four, (C[0] + 0.28 * SIDE, C[1])], C, SIDE) is None  # 5 pips, not a 5
    assert layout_value(four[:3], C, SIDE) is None  # three corners are not a 3
    assert layout_value([(C[0] + 0.3 * SIDE, C[1])], C, SIDE) is None  # a lone pip off centre
    assert layout_value([], C, SIDE) is None


# The six faces written out here, not taken from PATTERNS: a wrong entry there must
# not be what the test expects too. Cells on a 3 x 3 grid, (-1, -1) a corner.
FACES = {
    1: {(0, 0)},
    2: {(-1, -1), (1, 1)},
    3: {(-1, -1), (0, 0), (1, 1)},
    4: {(-1, -1), (-1, 1), (1, -1), (1, 1)},
    5: {(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)},
    6: {(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)},
}


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("angle", [0.0, 0.7, math.pi / 2, 2.9])
def test_each_face_as_a_die_shows_it_is_its_value(value: int, angle: float) -> None:
    assert layout_value(_place(frozenset(FACES[value]), angle), C, SIDE) == value
    mirrored = frozenset((-a, b) for a, b in FACES[value])  # the other diagonal of a 2 or 3
    assert layout_value(_place(mirrored, angle), C, SIDE) == value


def test_a_pip_off_its_place_breaks_the_pattern() -> None:
    """A 4 whose pip lies 0.6 of the pip spacing along the edge from its corner is no 4
    (the layout check takes a pip only near its grid place); at 0.3 it is a 4 seen a
    little askew."""

    def four(shift: float) -> list[tuple[float, float]]:
        ca, sa = math.cos(0.3), math.sin(0.3)
        out = []
        for a, b in FACES[4]:
            x, y = 0.28 * SIDE * a, 0.28 * SIDE * (b + shift if (a, b) == (1, -1) else b)
            out.append((C[0] + ca * x - sa * y, C[1] + sa * x + ca * y))
        return out

    assert layout_value(four(0.3), C, SIDE) == 4
    assert layout_value(four(0.6), C, SIDE) is None


@pytest.mark.parametrize("value", [4, 5])
def test_squeeze_is_one_square_on_and_drops_when_foreshortened(value: int) -> None:
    for angle in (0.0, 0.7, 2.0):
        square = PipCount(tuple(_place(PATTERNS[value][0], angle)), value, 50.0)
        assert square.squeeze() == pytest.approx(1.0, abs=1e-6)
        leaning = PipCount(tuple(_place(PATTERNS[value][0], angle, sx=0.5)), None, 50.0)
        assert leaning.squeeze() == pytest.approx(0.5, abs=1e-6)


def test_squeeze_needs_four_or_five_pips() -> None:
    for value in (1, 2, 3, 6):
        assert PipCount(tuple(_place(PATTERNS[value][0], 0.2)), value, 50.0).squeeze() is None


def _drawn_die(value: int, angle: float, face: int, pip: int) -> np.ndarray:
    """A flat die drawn on a mid-grey table, 60 px across, turned by ``angle`` degrees."""
    img = np.full((120, 120, 3), 128, np.uint8)
    die = np.full((60, 60, 3), face, np.uint8)
    for a, b in PATTERNS[value][0]:
        cv2.circle(die, (30 + 17 * a, 30 + 17 * b), 6, (pip, pip, pip), -1, cv2.LINE_AA)
    img[30:90, 30:90] = die
    m = cv2.getRotationMatrix2D((60, 60), angle, 1.0)
    return np.asarray(cv2.warpAffine(img, m, (120, 120), borderValue=(128, 128, 128)), np.uint8)


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize(("face", "pip"), [(240, 20), (20, 240)])
def test_count_pips_reads_light_and_dark_dice(value: int, face: int, pip: int) -> None:
    for angle in (0.0, 33.0):
        pc = count_pips(_drawn_die(value, angle, face, pip), 60.0, 60.0, 60.0)
        assert pc.value == value, (angle, pc)
        assert len(pc.pips) == value
        assert all(0 <= x < FACE_PX and 0 <= y < FACE_PX for x, y in pc.pips)


def test_count_pips_on_a_plain_patch_finds_nothing() -> None:
    pc = count_pips(np.full((120, 120, 3), 128, np.uint8), 60.0, 60.0, 60.0)
    assert pc.value is None and pc.pips == ()


@pytest.mark.parametrize("n", [1, 2, 7, 1600])
def test_quantiles_match_numpy_percentile(n: int) -> None:
    a = np.random.default_rng(n).random((n, 3)).astype(np.float32) * 100
    qs = (30.0, 50.0, 97.0)
    for q, got in zip(qs, _quantiles(a, qs), strict=True):
        assert np.allclose(got, np.percentile(a, q, axis=0), atol=1e-3)


def test_a_top_face_beside_squashed_side_pips() -> None:
    """A 1 seen by a tilted camera: its round pip, and a squashed pip of a side face."""
    side = FACE_PX * 0.95
    one = PipCount(((19.0, 19.0), (30.0, 34.0)), 2, 50.0, (20.0, 18.0), (0.8, 0.45), side)
    assert one.top_face_beside_side_pips(1)
    assert one.top_face_in_frame(1, 100.0, 100.0, 40.0) is not None
    both_round = PipCount(((19.0, 19.0), (30.0, 34.0)), 2, 50.0, (20.0, 18.0), (0.8, 0.75), side)
    assert not both_round.top_face_beside_side_pips(1)  # a 2 for all we know
    c, d = FACE_PX / 2, 0.3 * side
    corners = ((c - d, c - d), (c + d, c + d), (c - d, c + d), (c + d, c - d))
    four = PipCount(corners, 4, 50.0, (20.0,) * 4, (0.9, 0.88, 0.6, 0.58), side)
    # Two round pips on a diagonal beside two squashed ones: a 2's top face. Four equally
    # round pips are a 4.
    assert four.top_face_beside_side_pips(2)
    four_round = PipCount(corners, 4, 50.0, (20.0,) * 4, (0.9, 0.88, 0.85, 0.84), side)
    assert not four_round.top_face_beside_side_pips(2)
    assert not one.top_face_beside_side_pips(2)  # no more pips than the value


def test_the_biggest_pips_place_a_top_face_only_near_the_found_centre() -> None:
    """Two big round pips near the middle and a smaller squashed one off to a side: a 2's
    top face is the big two's centroid, a 1's the biggest pip. A lone blob at the face's
    edge is a side face's, and there are not four pips to take."""
    side = FACE_PX * 0.95
    c = FACE_PX / 2
    pips = ((c - 4, c - 4), (c + 4, c + 2), (c + 2, c + 17))
    pc = PipCount(pips, None, 50.0, (20.0, 18.0, 8.0), (0.9, 0.9, 0.5), side)
    # The patch maps FACE_PX pixels to 0.95 of the die side: 0.95 frame px a patch px here.
    assert pc.biggest_in_frame(2, 100.0, 100.0, 40.0) == pytest.approx((100.0, 99.05))
    assert pc.biggest_in_frame(1, 100.0, 100.0, 40.0) == pytest.approx((96.2, 96.2))
    assert pc.biggest_in_frame(4, 100.0, 100.0, 40.0) is None
    # A big squashed blob among them (two side pips run together): not the top face's.
    blob = PipCount(pips, None, 50.0, (20.0, 18.0, 30.0), (0.9, 0.9, 0.4), side)
    assert blob.biggest_in_frame(2, 100.0, 100.0, 40.0) is None
    edge = PipCount(((c, c + 15),), None, 50.0, (20.0,), (0.9,), side)
    assert edge.biggest_in_frame(1, 100.0, 100.0, 40.0) is None


def test_pips_in_frame_gives_each_pips_place_and_side_in_frame_pixels() -> None:
    # A die 95 px across is cut into the 40 px patch at 0.95 of its side: 1 patch px is
    # 2.375 frame px. A pip at the patch's centre lies at the die's centre.
    pips = PipCount(
        ((FACE_PX / 2, FACE_PX / 2), (FACE_PX / 2 + 8, FACE_PX / 2)), 2, 50.0, (16.0, 9.0)
    )
    (x0, y0, side0), (x1, y1, side1) = pips.pips_in_frame(300.0, 200.0, 100.0)
    assert (x0, y0) == pytest.approx((300.0, 200.0))
    assert (x1, y1) == pytest.approx((300.0 + 8 * 2.375, 200.0))
    assert (side0, side1) == pytest.approx((4 * 2.375, 3 * 2.375))
    assert PipCount(((20.0, 20.0),), 1, 50.0).pips_in_frame(300.0, 200.0, 100.0) == ()
