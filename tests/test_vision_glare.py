"""A lamp's reflection on a die (vision.glare): refused where it would be read as a pip,
left alone where the die's own pips are as white or the die itself is light."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision import glare
from vision.bench import Score, score_image
from vision.dataset import default_data_dir, load_set
from vision.reader import PipReader
from vision.robustness import lamp_reflection
from vision.types import FrameStatus

DATA = default_data_dir()
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"shared photos not found at {DATA}")

SIDE = 60  # the drawn die's side, pixels
CX = CY = 80.0


def _die(
    face: tuple[int, int, int], pips: list[tuple[float, float]], pip: tuple[int, ...]
) -> np.ndarray:
    """A grey tray with a square die of ``face`` colour at (CX, CY), its pips (offsets in
    sides from its centre) drawn in ``pip`` colour, 0.18 of a side across."""
    frame = np.full((160, 160, 3), 150, np.uint8)
    h = SIDE // 2
    cv2.rectangle(frame, (int(CX) - h, int(CY) - h), (int(CX) + h, int(CY) + h), face, -1)
    for dx, dy in pips:
        centre = (round(CX + dx * SIDE), round(CY + dy * SIDE))
        cv2.circle(frame, centre, round(0.09 * SIDE), pip, -1, cv2.LINE_AA)
    return frame


def _spot(frame: np.ndarray, dx: float = 0.0, dy: float = 0.0) -> np.ndarray:
    """A clipped white spot, a pip's size, at (dx, dy) sides from the die's centre."""
    out = frame.copy()
    centre = (round(CX + dx * SIDE), round(CY + dy * SIDE))
    cv2.circle(out, centre, round(0.08 * SIDE), (252, 252, 252), -1, cv2.LINE_AA)
    return out


THREE = [(-0.28, -0.28), (0.0, 0.0), (0.28, 0.28)]
BLACK, RED, WHITE = (30, 30, 30), (40, 40, 200), (235, 235, 235)


def _never(frame: np.ndarray) -> bool:
    raise AssertionError("the crop network was asked")


def _answer(value: bool) -> Callable[[np.ndarray], bool]:
    return lambda frame: value


def test_no_clipped_white_means_no_reflection() -> None:
    frame = _die(BLACK, THREE, RED)
    assert glare.spots(frame, CX, CY, SIDE) is None
    assert not glare.is_reflection(frame, CX, CY, SIDE, 3, _never)


def test_a_spot_over_a_dark_dies_red_pips_is_a_reflection() -> None:
    """A black 3 with red pips and a spot over its middle pip: read as 1, the spot is
    the only white there; its red pips, left when it is painted over, stand out less."""
    frame = _spot(_die(BLACK, THREE, RED))
    labels = glare.spots(frame, CX, CY, SIDE)
    assert labels is not None and int(labels.max()) == 1
    assert glare.is_reflection(frame, CX, CY, SIDE, 1, _never)


def test_a_spot_beside_the_pips_is_a_reflection_whatever_the_die_is_read_as() -> None:
    frame = _spot(_die(BLACK, [(-0.28, -0.28), (0.28, 0.28)], RED), 0.25, -0.2)
    assert glare.is_reflection(frame, CX, CY, SIDE, 3, _never)


def test_a_white_pip_that_clips_beside_white_pips_is_no_reflection() -> None:
    """A black 3 with white pips, the middle one clipped: its sisters are as white, so
    the clipped one may be a pip: the reading stands."""
    frame = _spot(_die(BLACK, THREE, WHITE))
    assert not glare.is_reflection(frame, CX, CY, SIDE, 3, _never)


def test_a_spot_on_a_white_die_is_left_alone() -> None:
    """On a white die a clipped spot stands out little from the face; black pips far
    more. It cannot be taken for one of them."""
    frame = _spot(_die(WHITE, [(-0.28, -0.28), (0.28, 0.28)], BLACK), 0.25, -0.2)
    assert glare.spots(frame, CX, CY, SIDE) is not None
    assert not glare.is_reflection(frame, CX, CY, SIDE, 2, _never)


def test_a_lone_clipped_pip_is_a_one_unless_the_network_still_sees_a_die() -> None:
    """A black 1 whose white pip clips: painted over, no pip is left, and the crop network
    decides. It reads no die on a blank face (a 1); a die there means the 1 was a spot."""
    frame = _spot(_die(BLACK, [], WHITE))
    assert not glare.is_reflection(frame, CX, CY, SIDE, 1, _answer(False))
    assert glare.is_reflection(frame, CX, CY, SIDE, 1, _answer(True))


def test_more_spots_than_pips_is_a_reflection() -> None:
    frame = _spot(_spot(_die(BLACK, [], WHITE), -0.2, -0.2), 0.2, 0.2)
    assert glare.is_reflection(frame, CX, CY, SIDE, 1, _never)


def test_spots_are_looked_for_on_the_die_only() -> None:
    """A clipped speck off the die (a neighbour's pip, the tray) is not its spot, nor is
    a clipped line (a bevel's highlight)."""
    frame = _die(BLACK, THREE, RED)
    cv2.circle(frame, (round(CX + 0.45 * SIDE), round(CY)), 4, (252, 252, 252), -1)
    cv2.line(frame, (60, 60), (60, 100), (252, 252, 252), 2)
    assert glare.spots(frame, CX, CY, SIDE) is None


@pytest.fixture(scope="module")
def reader() -> PipReader:
    cv2.setNumThreads(1)
    return PipReader()


@needs_data
def test_dark_dice_under_a_lamp_are_refused_not_read_as_ones(reader: PipReader) -> None:
    """byler's tuning photo IMG_20191209_095854.jpg, seven dark red dice with dark pips,
    each with a lamp's reflection (``vision.robustness``'s ``lamp reflection``, the seed
    it gives that photo): every die was read as a 1 and the frame ok. Now each is refused
    as in glare, and nothing is read wrong."""
    imgs = load_set("byler_d6", "tune", DATA)
    i = next(k for k, im in enumerate(imgs) if im.name == "IMG_20191209_095854.jpg")
    frame, dice = lamp_reflection(imgs[i].read(), imgs[i].dice, i)
    r = reader.read(frame)
    sc = Score()
    score_image(replace(imgs[i], dice=dice), r.dice, sc)
    assert sc.wrong == 0, sc.wrong_notes
    assert r.status is FrameStatus.REROLL
    assert sum(d.reason == "in glare" for d in r.dice) == len(dice) == 7
    assert r.reason == "die 1 is in glare"


@needs_data
def test_the_photos_as_taken_have_no_die_in_glare(reader: PipReader) -> None:
    """The tuning photos as taken: no die read is refused as in glare (a real white pip
    with a clipped speck in byler's photos is read)."""
    for set_name in ("byler_d6", "matteo_webcam"):
        for img in load_set(set_name, "tune", DATA)[::4]:
            r = reader.read(img.read())
            assert not any(d.reason == "in glare" for d in r.dice), (img.name, r)
