"""The pip reader on real photos (held-out part) and on frames it must refuse."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import compose, robustness
from vision.bench import Score, grown, holds, score_image
from vision.dataset import SETS, LabelledDie, LabelledImage, default_data_dir, load_set
from vision.locate import Spot, suppress
from vision.pips import PipCount, count_pips
from vision.reader import (
    FAR_BIGGER,
    OVERLAPS,
    SMALL_DICE,
    TOO_DARK,
    VIEWS_AGREE,
    VIEWS_SURE,
    PipReader,
    _Candidate,
    _first_look,
    _lab_median,
    _pip_of_cut_die,
    _reaches_edge,
    _refuse_outsized,
    _refuse_overlapping,
    _shrink,
    _surely_not_a_die,
    _touching,
    _views_could_read,
    _views_read,
)
from vision.types import DieReading, FrameStatus

DATA = default_data_dir()  # ../shared/data/dice, or $DICETABLE_SHARED
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"shared photos not found at {DATA}")


@pytest.fixture(scope="module")
def reader() -> PipReader:
    cv2.setNumThreads(1)
    return PipReader()


def _images(set_name: str, n: int) -> list[LabelledImage]:
    """``n`` held-out images spread over the set (every k-th, deterministic)."""
    imgs = load_set(set_name, "heldout", DATA)
    step = max(1, len(imgs) // n)
    return imgs[::step][:n]


def _frame(img: LabelledImage) -> np.ndarray:
    f = cv2.imread(str(img.path), cv2.IMREAD_COLOR)
    assert f is not None
    return f


def _score(reader: PipReader, imgs: list[LabelledImage]) -> Score:
    sc = Score()
    for img in imgs:
        r = reader.read(_frame(img))
        score_image(img, r.dice, sc)
        # Every die not read says why, and one unread die makes the frame a reroll.
        unread = [d for d in r.dice if d.value is None]
        assert all(d.reason for d in unread), r
        if unread:
            assert r.status is FrameStatus.REROLL and r.reason.startswith("die "), r
        if r.is_ok:
            assert len(r.values) == len(r.dice) > 0
    return sc


# Labels the photo contradicts, by eye (BENCHMARKS.md lists them): the blue die of
# byler_d6 IMG_20191208_111246.jpg at (138, 223) shows three red pips, labelled 2.
DISPUTED_LABELS = ("IMG_20191208_111246.jpg: read 3, label 2 at (1",)


@needs_data
@pytest.mark.parametrize(("set_name", "min_right"), [("byler_d6", 0.6), ("matteo_webcam", 0.85)])
def test_heldout_photos_read_right_and_never_wrong(
    reader: PipReader, set_name: str, min_right: float
) -> None:
    sc = _score(reader, _images(set_name, 16))
    assert sc.dice > 20
    # Where the photo and its label disagree, the reading is not counted against the reader.
    wrong = [n for n in sc.wrong_notes if not n.startswith(DISPUTED_LABELS)]
    wrong = [n for n in wrong if "stray refusal" not in n]
    assert sc.wrong + sc.extra + sc.stray == len(sc.wrong_notes)
    assert wrong == [], wrong
    assert sc.right >= min_right * sc.dice, (sc.right, sc.dice)


@needs_data
def test_rotated_and_enlarged_photo_reads_the_same(reader: PipReader) -> None:
    img = next(i for i in _images("matteo_webcam", 40) if len(i.dice) >= 3)
    frame = _frame(img)
    base = reader.read(frame)
    assert base.values, base
    rot = reader.read(cv2.rotate(frame, cv2.ROTATE_90_CLOCKWISE))
    big = reader.read(cv2.resize(frame, None, fx=4, fy=4, interpolation=cv2.INTER_CUBIC))
    labels = sorted((d.value for d in img.dice), reverse=True)
    for r in (base, rot, big):
        # Whatever is read must be a sub-multiset of the labelled values.
        rest = list(labels)
        for v in r.values:
            assert v in rest, (r.values, labels)
            rest.remove(v)
    assert len(big.values) >= len(base.values) - 1


@needs_data
@pytest.mark.parametrize(
    ("die_px", "width", "height"),
    [(30, 640, 480), (120, 640, 480), (300, 640, 480), (120, 320, 240)],
)
def test_die_size_is_measured_not_assumed(
    reader: PipReader, die_px: int, width: int, height: int
) -> None:
    """One die cut from a photo and scaled to ``die_px`` across in a frame of ``width`` x
    ``height``: a die filling half of a 320 x 240 frame (a camera close above the tray)
    is read too, as big dice in small frames get the coarse look."""
    imgs = [i for i in _images("matteo_webcam", 60) if len(i.dice) == 1 and i.dice[0].value >= 4]
    img = imgs[0]
    frame = _frame(img)
    (cx, cy), value = img.dice[0].center, img.dice[0].value
    side = 60  # about the die's side in these photos
    x0, y0 = int(cx - side), int(cy - side)
    patch = frame[max(0, y0) : y0 + 2 * side, max(0, x0) : x0 + 2 * side]
    f = die_px / side
    big = cv2.resize(patch, None, fx=f, fy=f, interpolation=cv2.INTER_CUBIC)
    canvas = np.empty((height, width, 3), np.uint8)
    canvas[:] = np.median(patch.reshape(-1, 3), axis=0).astype(np.uint8)
    h, w = min(height, big.shape[0]), min(width, big.shape[1])
    oy, ox = (height - h) // 2, (width - w) // 2
    by, bx = (big.shape[0] - h) // 2, (big.shape[1] - w) // 2
    canvas[oy : oy + h, ox : ox + w] = big[by : by + h, bx : bx + w]
    r = reader.read(canvas)
    read = [d.value for d in r.dice if d.value is not None]
    assert read == [value], r


def _altered_and_taken(
    reader: PipReader, imgs: list[LabelledImage], alter: robustness.Alteration
) -> tuple[Score, Score]:
    """The scores of the photos altered (labels moved with them) and as taken, in that
    order; an altered frame is twice the photo's size."""
    altered, taken = Score(), Score()
    for i, img in enumerate(imgs):
        f = _frame(img)
        big, dice = alter(f, img.dice, i)
        assert big.shape[:2] == (2 * f.shape[0], 2 * f.shape[1])
        score_image(replace(img, dice=dice), reader.read(big).dice, altered)
        score_image(img, reader.read(f).dice, taken)
    return altered, taken


@needs_data
def test_small_dice_in_a_wider_frame_read_as_in_the_photo(reader: PipReader) -> None:
    """byler's 30-45 px dice with a border of tray around them, so the frame is twice as
    wide (1280 x 1280): the same dice, a smaller part of the frame. The locator looks at
    wider frames with proportionally more pixels, so they read as in the photo; it used
    to read 49 of these 68 dice instead of 63."""
    framed, taken = _altered_and_taken(reader, _images("byler_d6", 8), robustness.framed(2.0))
    assert taken.right >= 0.85 * taken.dice, taken
    assert framed.right >= taken.right - 2, (framed.right, taken.right)
    assert framed.wrong <= taken.wrong, (framed.wrong_notes, taken.wrong_notes)


@needs_data
def test_big_dice_in_a_wide_frame_read_as_in_the_photo(reader: PipReader) -> None:
    """matteo's tilted-webcam photos doubled (a 640 x 480 view at 1280 x 960): the dice
    are 120-220 px, and the closer look a wide frame gets finds their pips and side
    faces as small dice. A first look as at a 640 px frame sees the dice are big and is
    kept; with the closer look alone these photos read 20 dice right instead of 24, with
    seven stray refusals and a wrong reading."""
    doubled, taken = _altered_and_taken(
        reader, _images("matteo_webcam", 12), robustness.rescaled(2.0)
    )
    assert taken.right >= 0.85 * taken.dice, taken
    assert doubled.right >= taken.right - 1, (doubled.right, taken.right)
    assert doubled.stray <= taken.stray + 1, (doubled.wrong_notes, taken.wrong_notes)
    assert doubled.wrong <= taken.wrong, (doubled.wrong_notes, taken.wrong_notes)


def _tuning_photo(name: str) -> LabelledImage:
    (img,) = [
        i
        for s in ("byler_d6", "matteo_webcam")
        for i in load_set(s, "tune", DATA)
        if i.name == name
    ]
    return img


@needs_data
@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("IMG_20191208_112554.jpg", 4),
        ("IMG_20191208_112600.jpg", 3),
        ("IMG_20191208_112614.jpg", 5),
    ],
)
def test_a_board_seen_from_far_with_one_die_on_it_is_not_read_as_a_1(
    reader: PipReader, name: str, value: int
) -> None:
    """byler's white board with one die on it, set in a 4000 x 3000 frame of its own
    colour: a camera far away, the die about 35 px. Shrunk to 1000 px, the die is too
    small for the locator, and the board was found as one die showing a 1 (the die its
    pip), read ok. The pip is now looked at in the frame as given, where the crop
    network reads it as a die."""
    img = _tuning_photo(name)
    (label,) = img.dice
    assert label.value == value
    photo = _frame(img)
    frame = np.empty((3000, 4000, 3), np.uint8)
    frame[:] = np.median(photo.reshape(-1, 3), axis=0)
    frame[1180:1820, 1680:2320] = photo
    r = reader.read(frame, expect=1)
    assert all(d.value in (None, value) for d in r.dice), r
    if name == "IMG_20191208_112600.jpg":  # the one that reads no die but the board
        assert r.status is FrameStatus.REROLL and r.reason == f"die 1 is {SMALL_DICE}", r


@needs_data
def test_a_board_far_away_with_dice_on_it_is_not_read_as_a_die(reader: PipReader) -> None:
    """Tuning photos framed six times as wide (3840 px: dice of 30-50 px in a 14 MP
    frame, shrunk by 3 to be read). The board was found as one die showing a 1, its
    dice its pips: read ok, wrong, on five of these. Any pip of such a 1 that the crop
    network reads as a 2-6 in the frame as given now refuses it (a lone pip, or one of
    several the pip count found on a 1 the network alone read)."""
    names = {
        "IMG_20191208_112554.jpg",
        "IMG_20191208_112600.jpg",
        "IMG_20191208_112614.jpg",
        "IMG_20191209_095604.jpg",
        "train_six_2.jpg",
    }
    imgs = [i for s in SETS for i in load_set(s, "tune", DATA) if i.name in names]
    assert len(imgs) == len(names)
    _, wrong_in_ok, _ = robustness.run(reader, imgs, robustness.framed(6.0))
    assert wrong_in_ok == 0


@needs_data
@pytest.mark.parametrize(
    "name",
    [
        "IMG_20191208_112305.jpg",
        "IMG_20191209_100155.jpg",
        "train_dice_31.jpg",
        "train_dice_44.jpg",
    ],
)
def test_1s_in_a_frame_shrunk_for_reading_are_still_read(reader: PipReader, name: str) -> None:
    """Real 1s seen by a camera with 6.25 times the pixels (a 12-16 MP frame, shrunk by 4
    to be read): their pips, looked at as dice in the frame as given, are no dice, and
    every 1 read in the photo as taken is read so here too."""
    img = _tuning_photo(name)
    big, dice = robustness.rescaled(6.25)(_frame(img), img.dice, 0)
    assert _shrink(big)[1] == 4.0
    taken, seen = Score(), Score()
    score_image(img, reader.read(_frame(img)).dice, taken)
    score_image(replace(img, dice=dice), reader.read(big).dice, seen)
    ones = sum(d.value == 1 for d in img.dice)
    assert ones >= 3
    assert seen.right == taken.right == len(img.dice), (seen, taken)
    assert seen.wrong == 0, seen.wrong_notes


@needs_data
@pytest.mark.parametrize("name", ["train_dice_13.jpg", "train_dice_42.jpg"])
def test_a_lone_1_beside_a_side_face_is_placed_on_its_top_face(
    reader: PipReader, name: str
) -> None:
    """Tilted-webcam dice read as 1 with a 5 showing on a side face (tuning photos). The
    pip count finds no pattern there; the die was once placed at its biggest blob wherever
    it lay, here a side pip (or two run together), outside the labelled top face."""
    img = next(i for i in load_set("matteo_webcam", "tune", DATA) if i.name == name)
    ones = [d for d in reader.read(_frame(img)).dice if d.value == 1]
    assert ones
    tops = [grown(lab.bbox) for lab in img.dice if lab.value == 1]
    for d in ones:
        assert any(holds(box, *d.center) for box in tops), (d.center, tops)


@needs_data
@pytest.mark.parametrize("name", ["train_two_15.jpg", "train_two_24.jpg"])
def test_a_2_beside_side_faces_is_placed_on_its_top_face(reader: PipReader, name: str) -> None:
    """Tilted-webcam 2s (tuning photos). In the first, the two pips, seen obliquely, stand
    too close together for the 2's pattern: the die used to be placed at the locator's
    centre, which the side faces pull off the top face (14 px below its labelled box);
    the centroid of its two biggest, roundest pips is on it. In the second a side face's
    pip is rounder than a top one, and the two roundest, taken for the top face, put
    the die just outside its box; they are not the two biggest, so the locator's centre
    stands."""
    img = next(i for i in load_set("matteo_webcam", "tune", DATA) if i.name == name)
    twos = [d for d in reader.read(_frame(img)).dice if d.value == 2]
    tops = [grown(lab.bbox) for lab in img.dice if lab.value == 2]
    assert twos and tops
    for d in twos:
        assert any(holds(box, *d.center) for box in tops), (d.center, tops)


@needs_data
def test_dice_seen_foreshortened_are_tilted_not_read(reader: PipReader) -> None:
    """Photos squashed to 55 % one way: every top face looks like a die leaning over.

    Squashed this far, a die is now and then misread (a 5 as a 4 once in these 32 dice):
    "tilted" is judged only on 4s and 5s, whose pips lie on a square."""
    imgs = [i for i in _images("matteo_webcam", 200) if {d.value for d in i.dice} & {4, 5}]
    assert len(imgs) >= 8
    tilted = misread = dice = 0
    for img in imgs[:8]:
        for fx, fy in ((1.0, 0.55), (0.55, 1.0)):
            frame = cv2.resize(_frame(img), None, fx=fx, fy=fy, interpolation=cv2.INTER_AREA)
            r = reader.read(frame)
            rest = [d.value for d in img.dice]
            dice += len(rest)
            for v in r.values:
                if v in rest:
                    rest.remove(v)
                else:
                    misread += 1
            tilted += sum(d.reason == "tilted" for d in r.dice)
            if any(d.reason == "tilted" for d in r.dice):
                assert r.status is FrameStatus.REROLL, r
    assert dice >= 30
    assert misread <= 1
    assert tilted >= 6


@needs_data
@pytest.mark.parametrize("expect", [1, 3])
def test_expect_mismatch_is_a_reroll(reader: PipReader, expect: int) -> None:
    """Fewer dice than thrown, or more (a die from another game, a bead): a reroll."""
    img = next(i for i in _images("matteo_webcam", 40) if len(i.dice) == 2)
    assert reader.read(_frame(img), expect=2).status is FrameStatus.OK
    r = reader.read(_frame(img), expect=expect)
    assert r.status is FrameStatus.REROLL
    assert r.reason == f"saw 2 dice, expected {expect}"


@needs_data
def test_heavy_blur_is_refused(reader: PipReader) -> None:
    img = _images("byler_d6", 4)[1]
    frame = cv2.GaussianBlur(_frame(img), (0, 0), 9)
    r = reader.read(frame)
    assert r.status is FrameStatus.REROLL
    sc = Score()
    score_image(img, r.dice, sc)
    assert sc.wrong == 0 and sc.extra == 0


@needs_data
def test_die_cut_by_frame_edge_is_not_read(reader: PipReader) -> None:
    img = next(i for i in _images("matteo_webcam", 40) if len(i.dice) == 1)
    frame = _frame(img)
    ((cx, _cy),) = [d.center for d in img.dice]
    cut = frame[:, : int(cx) + 4].copy()  # the die's right half is outside the frame
    r = reader.read(cut)
    assert r.status is FrameStatus.REROLL
    assert all(d.value is None for d in r.dice), r


# Tuning photos of 2s cut through one die (vision.robustness.die_cut, seed as given) where
# the reader once read the cut 2 as a 1: the pip still in view, the locator's box inside
# the frame around the part of the die in view, and the frame read ok.
CUT_TWOS = (("train_two_1.jpg", 0), ("train_two_13.jpg", 0), ("train_two_11.jpg", 1000))


@needs_data
@pytest.mark.parametrize(("name", "offset"), CUT_TWOS)
def test_a_die_running_on_past_the_frame_edge_is_not_read(
    reader: PipReader, name: str, offset: int
) -> None:
    imgs = load_set("matteo_webcam", "tune", DATA)
    i = next(k for k, im in enumerate(imgs) if im.name == name)
    frame, dice = robustness.die_cut(_frame(imgs[i]), imgs[i].dice, i + offset)
    r = reader.read(frame)
    sc = Score()
    score_image(replace(imgs[i], dice=dice), r.dice, sc)
    assert sc.wrong == 0, sc.wrong_notes
    assert any(d.reason == "cut off at the frame edge" for d in r.dice), r
    assert r.status is FrameStatus.REROLL


def test_the_edge_check_tells_a_die_cut_by_the_edge_from_one_lying_near_it() -> None:
    frame = np.full((120, 160, 3), 60, np.uint8)
    frame[40:80, 0:30] = 235  # a die 40 px across, its left quarter out of view
    frame[40:80, 112:152] = 235  # a whole die 8 px from the right edge
    cut = Spot(15.0 + 5.0, 60.0, 30.0, 0.9)  # found on the part in view, box inside
    whole = Spot(132.0, 60.0, 40.0, 0.9)
    tray = _lab_median(frame[:10, 40:100])
    assert _reaches_edge(frame, cut, tray)
    assert not _reaches_edge(frame, whole, tray)
    # Far from every edge, nothing is looked at.
    assert not _reaches_edge(frame, Spot(80.0, 60.0, 20.0, 0.9), tray)


def test_the_cut_die_check_tells_a_pip_on_a_face_from_a_1_on_the_tray() -> None:
    frame = np.full((200, 300, 3), 60, np.uint8)  # a dark tray
    frame[40:160, 0:70] = 235  # a light die 120 px across, cut by the left edge
    cv2.circle(frame, (45, 70), 9, (20, 20, 20), -1)  # its one pip in view
    frame[120:150, 240:270] = 235  # a whole 1, 30 px across, 30 px from the right edge
    cv2.circle(frame, (255, 135), 5, (20, 20, 20), -1)
    tray = _lab_median(frame[170:, 100:200])
    pip = Spot(45.0, 70.0, 24.0, 0.9)  # the pip, found as a small die
    one = Spot(255.0, 135.0, 30.0, 0.9)
    assert _pip_of_cut_die(frame, pip, tray)
    assert not _pip_of_cut_die(frame, one, tray)
    # A light die against the 1, away from the edge: face on one side, not all around.
    frame[120:150, 200:236] = 235
    assert not _pip_of_cut_die(frame, one, tray)
    # Light dice against it on three sides, tray toward the edge: a 1 in a heap.
    frame[84:116, 220:290] = 235
    frame[154:190, 220:290] = 235
    frame[100:180, 200:236] = 235
    assert not _pip_of_cut_die(frame, one, tray)
    frame[100:180, 274:290] = 235  # and a die between it and the edge: taken for a face
    assert _pip_of_cut_die(frame, one, tray)
    # A pip against the edge, the band's part toward it out of view: judged on the band.
    assert _pip_of_cut_die(frame, Spot(12.0, 130.0, 24.0, 0.9), tray)
    # On a tray as light as the dice, face and tray cannot be told apart: not judged.
    light = np.full_like(frame, 230)
    light[40:160, 0:70] = 235
    cv2.circle(light, (45, 70), 9, (20, 20, 20), -1)
    assert not _pip_of_cut_die(light, pip, _lab_median(light[170:, 100:200]))


@pytest.mark.parametrize(
    "shape", [(1, 1), (2, 1), (3, 5), (31, 32), (32, 32), (120, 160), (45, 61)]
)
def test_the_lab_median_is_numpys_median(shape: tuple[int, int]) -> None:
    """Big patches take the histogram path, small ones np.median: both give np.median's
    values, the mean of the two middle ones for an even count included."""
    rng = np.random.default_rng(sum(shape))
    for coarse in (False, True):  # coarse: many equal values, the middle two often differ
        bgr = rng.integers(0, 256, (*shape, 3), dtype=np.uint8)
        if coarse:
            bgr = (bgr // 85 * 85).astype(np.uint8)
        lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).reshape(-1, 3)
        want = np.median(lab, axis=0).astype(np.float32)
        assert np.array_equal(_lab_median(bgr), want)


@needs_data
def test_reference_hides_what_was_already_there(reader: PipReader) -> None:
    img = _images("byler_d6", 4)[2]
    frame = _frame(img)
    assert reader.read(frame).dice
    reader.set_reference(frame)
    try:
        r = reader.read(frame)
    finally:
        reader.set_reference(None)
    assert r.dice == () and r.status is FrameStatus.REROLL


@pytest.mark.parametrize(("h", "w", "factor"), [(3000, 4000, 4), (2001, 3001, 3), (1500, 2600, 3)])
def test_big_frames_are_shrunk_by_whole_blocks(h: int, w: int, factor: int) -> None:
    """Halvings first for an even factor: within a grey level of the one-step average."""
    rng = np.random.default_rng(h)
    frame = np.asarray(cv2.resize(rng.integers(0, 256, (30, 40, 3), np.uint8), (w, h)), np.uint8)
    small, back = _shrink(frame)
    assert back == factor
    assert small.shape == (h // factor, w // factor, 3)
    hh, ww = h - h % factor, w - w % factor
    one_step = cv2.resize(frame[:hh, :ww], (w // factor, h // factor), interpolation=cv2.INTER_AREA)
    assert int(np.abs(small.astype(int) - one_step.astype(int)).max()) <= 1


@pytest.mark.parametrize(
    ("grey", "reason"), [(0, "too dark"), (20, "too dark"), (250, "too bright")]
)
def test_a_dark_or_glaring_frame_is_refused_as_such(
    reader: PipReader, grey: int, reason: str
) -> None:
    r = reader.read(np.full((480, 640, 3), grey, np.uint8))
    assert r.status is FrameStatus.REROLL
    assert r.reason == reason
    assert r.dice == ()


@needs_data
def test_a_dim_frame_with_a_lamps_glint_is_too_dark_not_read(reader: PipReader) -> None:
    """A held-out photo at an eighth of its light with a lamp's glint on each die
    (``robustness`` "lamp reflection"): its mean grey is 20. Read because its glints
    reach grey 64 (a rule tried for dice lit on a black tray), it was "ok" with the two
    dice, labelled 6 and 4, read as two 1s: each glint a pip."""
    imgs = load_set("byler_d6", "heldout", DATA)
    (i,) = [n for n, img in enumerate(imgs) if img.name == "IMG_20191208_112648.jpg"]
    dim = np.clip(imgs[i].read().astype(np.float32) * 0.12, 0, 255).astype(np.uint8)
    frame, _ = robustness.ALTERATIONS["lamp reflection"](dim, imgs[i].dice, i)
    assert float(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).mean()) < TOO_DARK
    r = reader.read(frame)
    assert r.status is FrameStatus.REROLL and r.reason == "too dark", r


@needs_data
@pytest.mark.parametrize("where", [(45, 0.1, 0.3), (45, 0.2, 0.3), (270, 0.3, 0.3), (0, 0.3, 0.4)])
def test_a_spot_of_light_on_a_die_in_a_dark_room_is_too_dark_not_read(
    reader: PipReader, where: tuple[int, float, float]
) -> None:
    """A held-out 6 in a room at 0.08 of its light, a soft spot of light over part of it
    (``radius`` and ``offset`` from the middle of its pips at ``angle``, in sides of its
    label's box, which holds its pips).
    A reader that read a dark frame's dice whose middle was lit (tried, BENCHMARKS.md,
    "Other tray surfaces") read it "ok" as a 1 or a 2: the lit pips were all it saw."""
    angle, offset, radius = where
    imgs = load_set("matteo_webcam", "heldout", DATA)
    (img,) = [im for im in imgs if im.name == "train_six_5.jpg"]
    (die,) = img.dice
    x0, y0, x1, y1 = die.bbox
    side = max(x1 - x0, y1 - y0)
    a = math.radians(angle)
    cx, cy = (
        (x0 + x1) / 2 + offset * side * math.cos(a),
        (y0 + y1) / 2 + offset * side * math.sin(a),
    )
    frame = img.read().astype(np.float32)
    yy, xx = np.mgrid[0 : frame.shape[0], 0 : frame.shape[1]]
    lit = np.clip(1.5 * (1 - np.hypot(xx - cx, yy - cy) / (radius * side)), 0, 1)[..., None]
    dark = np.clip(frame * (0.08 + 0.92 * lit), 0, 255).astype(np.uint8)
    r = reader.read(dark)
    assert r.status is FrameStatus.REROLL and all(d.value is None for d in r.dice), r


@needs_data
@pytest.mark.parametrize("name", ["IMG_20191208_112116.jpg", "IMG_20191209_095809.jpg"])
def test_a_pool_of_lamp_light_round_a_die_is_not_read_as_a_big_1(
    reader: PipReader, name: str
) -> None:
    """A held-out photo in a dim room with one lamp's pool of light round one die
    (``vision.robustness``'s ``lamp pool``, seeded as that run seeds it: the photo's
    place in the held-out part). The pool was found as a die four or five times the
    size of the others, the lit die in it as its one pip, and read ok as a 1."""
    imgs = load_set("byler_d6", "heldout", DATA)
    (i,) = [k for k, im in enumerate(imgs) if im.name == name]
    frame, dice = robustness.lamp_pool(imgs[i].read(), imgs[i].dice, i)
    r = reader.read(frame)
    sc = Score()
    score_image(replace(imgs[i], dice=dice), r.dice, sc)
    assert sc.wrong == 0, sc.wrong_notes
    assert r.status is FrameStatus.REROLL and FAR_BIGGER in r.reason, r


def _sized(value: int | None, side: float) -> DieReading:
    return DieReading(value, (0.0, 0.0), ((0.0, 0.0), (side, side), 0.0), 0.99)


def test_a_die_read_far_bigger_than_the_other_dice_is_refused() -> None:
    """More than three times the median of the other dice read: refused. Dice read as
    big as labelled dice in one photo can differ (about twice) stay, and so does a die
    with no other die read beside it (a refused die says nothing of its size)."""
    out = _refuse_outsized([_sized(4, 40), _sized(1, 150), _sized(6, 44), _sized(2, 38)])
    assert [(d.value, d.reason) for d in out] == [(4, ""), (None, FAR_BIGGER), (6, ""), (2, "")]
    assert _refuse_outsized([_sized(5, 40), _sized(3, 100)]) == [_sized(5, 40), _sized(3, 100)]
    assert _refuse_outsized([_sized(None, 40), _sized(3, 150)]) == [
        _sized(None, 40),
        _sized(3, 150),
    ]
    assert _refuse_outsized([_sized(3, 150)]) == [_sized(3, 150)]


def test_a_frame_with_no_detail_at_all_is_blurred(reader: PipReader) -> None:
    """A picture with nothing sharp in it (a lens smeared or far out of focus) and no
    die found is "blurred", not "no dice seen": the players are to look at the camera."""
    ramp = np.tile(np.linspace(60, 200, 640, dtype=np.float32), (480, 1))
    r = reader.read(cv2.cvtColor(ramp.astype(np.uint8), cv2.COLOR_GRAY2BGR))
    assert (r.status, r.reason, r.dice) == (FrameStatus.REROLL, "blurred", ())


@pytest.mark.parametrize("shape", [(2, 4000), (4000, 3), (1, 1), (7, 640), (15, 15)])
def test_a_frame_too_small_for_a_die_is_a_reroll(reader: PipReader, shape: tuple[int, int]) -> None:
    # A strip a few pixels high (a camera mode set wrong, a cropped file) holds no die;
    # it used to stop OpenCV's resize with an assertion.
    r = reader.read(np.full((*shape, 3), 160, np.uint8))
    assert r.status is FrameStatus.REROLL
    assert r.reason == "picture too small"
    assert r.dice == ()


def test_a_small_frame_that_can_hold_a_die_is_read(reader: PipReader) -> None:
    r = reader.read(np.full((16, 16, 3), 160, np.uint8))
    assert r.reason != "picture too small"


def test_empty_tray_is_a_reroll_without_dice(reader: PipReader) -> None:
    rng = np.random.default_rng(0)
    frame = np.full((480, 640, 3), (60, 110, 150), np.uint8)
    frame = cv2.add(frame, rng.integers(0, 12, frame.shape, dtype=np.uint8))
    r = reader.read(frame)
    assert r.status is FrameStatus.REROLL
    assert all(d.value is None for d in r.dice)


def test_grey_and_reference_inputs_are_accepted(reader: PipReader) -> None:
    grey = np.full((240, 320), 128, np.uint8)
    reader.set_reference(grey)
    try:
        r = reader.read(grey)
    finally:
        reader.set_reference(None)
    assert r.status is FrameStatus.REROLL
    assert r.ms > 0
    with pytest.raises(ValueError):
        reader.read(np.zeros((10, 10, 3), np.float32))  # type: ignore[arg-type]


def test_vision_never_imports_table() -> None:
    code = "import sys, vision.reader, vision.bench; assert 'table' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def _cand(
    x: float, y: float, size: float, probs: list[float], pips: int = 0, value: int | None = None
) -> _Candidate:
    spots = tuple((x + 0.1 * i, y) for i in range(pips))
    return _Candidate(
        Spot(x, y, size, 0.9),
        np.zeros((40, 40, 3), np.uint8),
        np.array(probs, np.float32),
        PipCount(spots, value, 50.0),
    )


def test_a_sure_non_die_without_pips_is_dropped_one_with_pips_stays() -> None:
    hole = _cand(100, 100, 30, [0.97, 0.01, 0.01, 0.0, 0.0, 0.01, 0.0])
    leaning = _cand(200, 100, 30, [0.97, 0.0, 0.0, 0.0, 0.01, 0.02, 0.0], pips=5)
    doubt = _cand(300, 100, 30, [0.6, 0.1, 0.1, 0.1, 0.1, 0.0, 0.0])
    cands = [hole, leaning, doubt]
    assert _surely_not_a_die(hole, cands)
    assert not _surely_not_a_die(leaning, cands)  # refused later, as a die leaning over
    assert not _surely_not_a_die(doubt, cands)  # not sure: refused, not dropped


def test_a_side_face_found_beside_its_read_die_is_dropped() -> None:
    """A tilted camera's side face, found below a die read at first sight, as big as it
    and of its colour, that the classifier calls no die (pips and all), goes; a die one
    size away stays, and so does one beside a die not read at first sight, one the
    classifier reads, or one of another colour."""
    top = _cand(100, 100, 40, [0.0, 0.999, 0, 0, 0, 0, 0.001], pips=1, value=1)
    side = _cand(104, 124, 42, [0.99, 0, 0, 0, 0, 0.01, 0], pips=5)
    assert _surely_not_a_die(side, [top, side])
    assert not _surely_not_a_die(top, [top, side])
    neighbour = _cand(104, 138, 42, [0.99, 0, 0, 0, 0, 0.01, 0], pips=5)  # 0.95 off
    assert not _surely_not_a_die(neighbour, [top, neighbour])
    bigger = _cand(104, 124, 50, [0.99, 0, 0, 0, 0, 0.01, 0], pips=5)  # 1.25 times the die
    assert not _surely_not_a_die(bigger, [top, bigger])
    doubted = _cand(100, 100, 40, [0.0, 0.8, 0, 0, 0, 0, 0.2], pips=1, value=1)
    assert not _surely_not_a_die(side, [doubted, side])
    read_as_a_die = _cand(104, 124, 42, [0.3, 0, 0, 0, 0, 0.7, 0], pips=5)
    assert not _surely_not_a_die(read_as_a_die, [top, read_as_a_die])
    # Of another colour than the read die (a black die against a green one): not its face.
    green = replace(top, crop=np.full((40, 40, 3), (60, 160, 40), np.uint8))
    grey = replace(side, crop=np.full((40, 40, 3), (60, 60, 60), np.uint8))
    assert not _surely_not_a_die(grey, [green, grey])
    shaded = replace(side, crop=np.full((40, 40, 3), (45, 120, 30), np.uint8))  # in shadow
    assert _surely_not_a_die(shaded, [green, shaded])
    teal = replace(side, crop=np.full((40, 40, 3), (60, 130, 90), np.uint8))  # 27.5 apart
    assert not _surely_not_a_die(teal, [green, teal])
    # A black die against a white one: no chroma either, but far apart in lightness.
    white = replace(top, crop=np.full((40, 40, 3), (230, 230, 230), np.uint8))
    black = replace(side, crop=np.full((40, 40, 3), (30, 30, 30), np.uint8))
    assert not _surely_not_a_die(black, [white, black])
    grey_side = replace(side, crop=np.full((40, 40, 3), (190, 190, 190), np.uint8))  # shaded
    assert _surely_not_a_die(grey_side, [white, grey_side])
    # One pip or none: no side face, maybe a pip of a die not found (see the next test).
    lone_pip = _cand(104, 124, 42, [0.8, 0.2, 0, 0, 0, 0, 0], pips=1)
    assert not _surely_not_a_die(lone_pip, [top, lone_pip])


def test_a_doubtful_find_across_two_dice_read_apart_is_dropped() -> None:
    """matteo's train_dice_35.jpg (tuning): a find 140 px wide across two 1s read at first
    sight, 60 and 75 px, lying apart. The crop network gave it 0.93 for a 1, short of
    reading, and it was refused as "touching another die": a good throw was a re-roll.
    No die holds two others that lie apart; it goes. It stays when it is read itself, when
    its own pips form a pattern (a close camera's big die over its pips found as small
    dice), when the two overlap (one die found twice), or when one is not read."""
    a = _cand(309, 243, 60, [0, 1.0, 0, 0, 0, 0, 0], pips=1, value=1)
    b = _cand(347, 306, 75, [0, 1.0, 0, 0, 0, 0, 0], pips=1, value=1)
    patch = _cand(341, 263, 140, [0.07, 0.93, 0, 0, 0, 0, 0], pips=1)
    assert _surely_not_a_die(patch, [a, b, patch])
    assert not _surely_not_a_die(a, [a, b, patch])
    assert not _surely_not_a_die(patch, [a, patch])  # one die only
    read = replace(patch, probs=np.array([0, 0.999, 0, 0, 0, 0, 0.001], np.float32))
    assert not _surely_not_a_die(read, [a, b, read])
    big_four = _cand(341, 263, 140, [0.07, 0, 0, 0, 0.93, 0, 0], pips=4, value=4)
    assert not _surely_not_a_die(big_four, [a, b, big_four])
    overlapping = _cand(309 + 50, 243 + 30, 75, [0, 1.0, 0, 0, 0, 0, 0], pips=1, value=1)
    assert np.hypot(50, 30) < (60 + 75) / 2
    assert not _surely_not_a_die(patch, [a, overlapping, patch])
    doubted = replace(b, probs=np.array([0, 0.9, 0.1, 0, 0, 0, 0], np.float32))
    assert not _surely_not_a_die(patch, [a, doubted, patch])
    too_big = _cand(347, 306, 95, [0, 1.0, 0, 0, 0, 0, 0], pips=1, value=1)  # 1.5 x 95 > 140
    assert not _surely_not_a_die(patch, [a, too_big, patch])


@needs_data
def test_a_find_across_two_dice_does_not_make_a_reroll(reader: PipReader) -> None:
    """train_dice_35.jpg itself: every die read, nothing else listed."""
    _every_die_read_and_nothing_else(reader, "train_dice_35.jpg")


@needs_data
def test_a_close_dies_pip_refused_beside_its_other_pips_read_as_1s_stays(
    reader: PipReader,
) -> None:
    """byler's IMG_20191208_112510.jpg (tuning), a window four times enlarged around a red
    4 and the black 5 below it, saved as JPEG: the red 4 is not found, three of its pips
    are found as small dice and read as 1s, and the fourth is refused. It lies beside
    those 1s, of their colour, where a side face could be; but a side face has pips of
    its own. Dropped, it would no longer keep such a throw from being read."""
    img = next(i for i in load_set("byler_d6", "tune", DATA) if i.name == "IMG_20191208_112510.jpg")
    frame, dice = robustness.window(_frame(img), img.dice, (335.81, 390.53), 4)
    frame, dice = robustness.recompressed(frame, dice, 10)
    four = min(
        (d for d in dice if d.value == 4),
        key=lambda d: np.hypot(d.center[0] - 380, d.center[1] - 250),
    )
    r = reader.read(frame)
    inside = [d for d in r.dice if holds(grown(four.bbox), *d.center)]
    assert [d.value for d in inside].count(1) >= 2  # the pips read as 1s (the old failure)
    assert any(d.value is None for d in inside)


@needs_data
@pytest.mark.parametrize("name", ["train_dice_46.jpg", "train_three_33.jpg"])
def test_a_tilted_cameras_side_face_beside_its_die_does_not_make_a_reroll(
    reader: PipReader, name: str
) -> None:
    """matteo's tuning photos where a side face of a die read as a 1 or a 3 was found
    apart from it, below it, and refused as "touching another die": the throw was a
    re-roll. Every die is read, and nothing else is listed."""
    _every_die_read_and_nothing_else(reader, name)


@needs_data
def test_a_tilted_cameras_die_under_a_coarse_find_over_two_is_read(reader: PipReader) -> None:
    """matteo's ``train_two_13.jpg`` (tuning): the coarse pass found one place over both
    dice, more surely than the fine pass found the lower 2, and the crop network called
    it no die. The 2, read at 1.0, lost to it: its pip count found its two pips and a
    squashed side pip, no pattern, so the count did not name the 2; the coarse find was
    then dropped as no die, and the 2 was missed in a frame read ok."""
    _every_die_read_and_nothing_else(reader, "train_two_13.jpg")


def _every_die_read_and_nothing_else(reader: PipReader, name: str) -> None:
    """matteo's tuning photo ``name`` reads ok: every die right, nothing stray or extra."""
    img = next(i for i in load_set("matteo_webcam", "tune", DATA) if i.name == name)
    r = reader.read(_frame(img))
    sc = Score()
    score_image(img, r.dice, sc)
    assert r.status is FrameStatus.OK, r.reason
    assert (sc.right, sc.dice, sc.stray, sc.extra) == (len(img.dice), len(img.dice), 0, 0)


@needs_data
def test_a_leaning_die_beside_a_die_of_another_colour_is_still_listed(reader: PipReader) -> None:
    """byler's IMG_20191208_111228.jpg (tuning): a black 6 leaning against a green 4, which
    the classifier calls no die. It lies where a side face of the 4 could be found, but
    is not its colour: it stays listed (refused), so the players are told which die to
    throw again, rather than being told one die fewer was seen."""
    img = next(i for i in load_set("byler_d6", "tune", DATA) if i.name == "IMG_20191208_111228.jpg")
    six = min(img.dice, key=lambda d: np.hypot(d.center[0] - 536, d.center[1] - 243))
    assert six.value == 6
    r = reader.read(_frame(img))
    assert any(holds(grown(six.bbox), *d.center) and d.value in (None, 6) for d in r.dice)


def test_a_non_die_over_smaller_dice_is_a_patch_of_dice() -> None:
    die = _cand(100, 100, 30, [0.0, 0, 0, 0.99, 0, 0, 0.01], pips=3, value=3)
    patch = _cand(110, 95, 90, [0.7, 0.1, 0.1, 0.1, 0, 0, 0], pips=3)
    same_size = _cand(115, 100, 40, [0.7, 0.1, 0.1, 0.1, 0, 0, 0], pips=3)
    assert _surely_not_a_die(patch, [die, patch])
    assert not _surely_not_a_die(same_size, [die, same_size])  # a neighbour, not a patch
    assert not _surely_not_a_die(die, [die, patch])
    # Not a die the likeliest, though under 0.5: a patch only over a die with a pattern.
    unsure = _cand(110, 95, 90, [0.45, 0.15, 0.15, 0.0, 0.0, 0.2, 0.05], pips=3)
    assert _surely_not_a_die(unsure, [die, unsure])
    pip = _cand(100, 100, 30, [0.0, 0.99, 0, 0, 0, 0, 0.01], pips=1, value=1)
    assert not _surely_not_a_die(unsure, [pip, unsure])  # a big die over its own pip stays
    # Read as a die itself: a patch only over a die read at first sight with its pattern.
    readable = _cand(110, 95, 90, [0.1, 0.0, 0.0, 0.0, 0.0, 0.85, 0.05], pips=3)
    assert _surely_not_a_die(readable, [die, readable])
    doubted = _cand(100, 100, 30, [0.0, 0, 0, 0.8, 0.2, 0, 0], pips=3, value=3)
    assert not _surely_not_a_die(readable, [doubted, readable])  # both stay, to be refused
    assert not _surely_not_a_die(readable, [pip, readable])
    # A close-up die read at first sight over a small find on two of its pips, read as a
    # 2: neither is dropped, so the overlap refuses both instead of reading the 2.
    close_up = _cand(110, 95, 90, [0.0, 0, 0, 0, 0, 0, 1.0], pips=6, value=6)
    two_pips = _cand(100, 100, 30, [0.0, 0, 1.0, 0, 0, 0, 0], pips=2, value=2)
    assert not _surely_not_a_die(close_up, [two_pips, close_up])
    assert not _surely_not_a_die(two_pips, [two_pips, close_up])
    dice = [_die(c, v) for c, v in ((two_pips, 2), (close_up, 6))]
    assert all(d.value is None for d in _refuse_overlapping([two_pips, close_up], dice))
    # A loose find around one die, read at first sight as that die's value, goes.
    six = _cand(100, 100, 30, [0.0, 0, 0, 0, 0, 0, 1.0], pips=6, value=6)
    assert _surely_not_a_die(close_up, [six, close_up])


def test_an_unsure_big_find_read_as_a_die_stays_only_over_finds_a_pip_of_it_can_be() -> None:
    """``_big_over_its_pips`` with every find's crop reading given (``seen``): a big find
    the locator is unsure of (under KEEP_DIE), read as a 4, over finds about a quarter
    of its size read as 1s (its pips, or dice under a false find: which, the reader
    cannot tell), keeps them, to be refused together; over one a seventh of its size
    (smaller than a pip of it can be: a die under a find many dice wide), beside them or
    not, it goes, as does one read as a 1 over several. One the locator is sure of keeps
    its pips' finds out."""
    from types import SimpleNamespace

    reader = PipReader.__new__(PipReader)  # no networks: every reading is given
    reader.classifier = SimpleNamespace(probabilities=lambda crops: [])
    frame = np.zeros((480, 640, 3), np.uint8)

    def reads(v: int) -> np.ndarray:
        return np.eye(7, dtype=np.float32)[v]

    big = Spot(300.0, 200.0, 200.0, 0.45)
    pip = Spot(280.0, 180.0, 50.0, 0.6)
    pip2 = Spot(320.0, 220.0, 45.0, 0.6)
    small_die = Spot(280.0, 180.0, 28.0, 0.6)
    seen = {big: reads(4), pip: reads(1), pip2: reads(1), small_die: reads(1)}
    assert reader._big_over_its_pips(frame, [big, pip, pip2], dict(seen)) == [big, pip, pip2]
    assert reader._big_over_its_pips(frame, [big, small_die], dict(seen)) == [small_die]
    assert reader._big_over_its_pips(frame, [big, pip, small_die], dict(seen)) == [
        pip,
        small_die,
    ]
    read_as_1 = {**seen, big: reads(1)}
    assert reader._big_over_its_pips(frame, [big, pip, pip2], read_as_1) == [pip, pip2]
    sure = Spot(300.0, 200.0, 200.0, 0.8)
    assert reader._big_over_its_pips(frame, [sure, pip], {**seen, sure: reads(4)}) == [sure]


def test_a_sure_big_1_over_one_find_with_no_pip_keeps_it_as_its_pip() -> None:
    """``_big_over_its_pips`` with every find's crop reading given: a big find the locator
    is sure of, read as a 1, over one small find: a close camera's 1, whose pip the fine
    pass found as a small die. The small find goes when the classifier does not read it
    and no pip is found in it; read as a die, or with pips of its own (a small die the
    classifier doubts, inside a wide false find), the big find goes, as before."""
    from types import SimpleNamespace

    reader = PipReader.__new__(PipReader)  # no networks: every reading is given
    reader.classifier = SimpleNamespace(probabilities=lambda crops: [])
    plain = np.full((640, 640, 3), 60, np.uint8)  # no pip anywhere

    def reads(v: int) -> np.ndarray:
        return np.eye(7, dtype=np.float32)[v]

    doubt = np.array([0.1, 0.3, 0.3, 0.1, 0.1, 0.05, 0.05], np.float32)
    big = Spot(300.0, 300.0, 240.0, 0.9)
    pip = Spot(302.0, 298.0, 50.0, 0.8)
    assert reader._big_over_its_pips(plain, [big, pip], {big: reads(1), pip: doubt}) == [big]
    assert reader._big_over_its_pips(plain, [big, pip], {big: reads(1), pip: reads(5)}) == [pip]
    assert reader._big_over_its_pips(plain, [big, pip], {big: reads(1), pip: reads(1)}) == [pip]
    unsure = Spot(300.0, 300.0, 240.0, 0.45)  # found with little certainty: goes as before
    assert reader._big_over_its_pips(plain, [unsure, pip], {unsure: reads(1), pip: doubt}) == [pip]
    with_pips = plain.copy()  # a small white die showing 2 where the small find is
    cv2.rectangle(with_pips, (277, 273), (327, 323), (235, 235, 235), -1)
    for x, y in ((290, 286), (314, 310)):
        cv2.circle(with_pips, (x, y), 5, (20, 20, 20), -1)
    assert count_pips(with_pips, pip.x, pip.y, pip.size).pips
    assert reader._big_over_its_pips(with_pips, [big, pip], {big: reads(1), pip: doubt}) == [pip]


@needs_data
def test_a_close_cameras_1_is_read_not_its_pip(reader: PipReader) -> None:
    # matteo_webcam train_dice_15.jpg (tuning part), a window of a fifth of the frame
    # enlarged five times, as a camera close to the tray sees a white 1 of about 300 px.
    # The fine pass finds its pip as a small die; a big find read as a 1 over one small
    # find was dropped (a small die in a wide crop looks like a 1), and the pip, read as
    # nothing sure, was refused: the throw was asked again.
    (img,) = [i for i in load_set("matteo_webcam", "tune", DATA) if i.name == "train_dice_15.jpg"]
    (one,) = [d for d in img.dice if d.value == 1 and d.center[0] > 300]  # of two 1s
    close, labels = robustness.window(_frame(img), (one,), one.center, 5)
    r = reader.read(close)
    near = [d for d in r.dice if abs(d.center[0] - labels[0].center[0]) < 80]
    assert [d.value for d in near] == [1], r
    assert r.status is FrameStatus.OK, r


def test_a_non_die_inside_a_die_read_at_first_sight_is_its_side_face() -> None:
    # A tilted camera sees a die's front face with its pips: the locator may find it too.
    die = _cand(170, 175, 98, [0.0, 1.0, 0, 0, 0, 0, 0], pips=2)
    face = _cand(184, 218, 60, [0.95, 0.0, 0, 0, 0, 0.05, 0], pips=5)
    assert _surely_not_a_die(face, [die, face])
    doubtful = _cand(170, 175, 98, [0.0, 0.6, 0.4, 0, 0, 0, 0], pips=2)
    assert not _surely_not_a_die(face, [doubtful, face])  # nothing read: both stay, refused
    beside = _cand(184, 240, 60, [0.95, 0.0, 0, 0, 0, 0.05, 0], pips=5)  # 0.68 sizes off
    assert _surely_not_a_die(beside, [die, beside])  # below it, but within SIDE_FACE_REACH
    apart = _cand(184, 270, 60, [0.95, 0.0, 0, 0, 0, 0.05, 0], pips=5)  # 0.97 sizes off
    assert not _surely_not_a_die(apart, [die, apart])  # a neighbour's place, not a face's
    bigger = _cand(184, 218, 120, [0.95, 0.0, 0, 0, 0, 0.05, 0], pips=5)
    assert not _surely_not_a_die(bigger, [die, bigger])
    assert not _surely_not_a_die(die, [die, face])


def test_a_doubtful_die_is_touching_only_a_find_whose_box_it_meets() -> None:
    """A smoky die lying apart (IMG_20191208_112116.jpg, byler's held-out photos) was
    refused as "touching another die" because a stray find three dice wide lay within
    1.15 times that find's side: the players were told to move dice that did not touch."""
    die = _cand(446, 287, 45, [0.0, 0, 0, 0, 0.78, 0.22, 0])
    stray = _cand(503, 387, 105, [0.6, 0, 0, 0, 0, 0.4, 0])  # 115 px away
    assert not _touching(die, [die, stray])
    assert _touching(stray, [stray, _cand(532, 395, 40, [0, 0, 0, 0, 0, 1.0, 0])])
    side_by_side = _cand(446 + 44, 287, 42, [0, 0, 0, 0, 0, 1.0, 0])  # boxes meet
    assert _touching(die, [die, side_by_side])
    a_gap_apart = _cand(446 + 56, 287, 42, [0, 0, 0, 0, 0, 1.0, 0])  # 13 px between them
    assert not _touching(die, [die, a_gap_apart])
    assert not _touching(die, [die])


def _die(c: _Candidate, value: int | None) -> DieReading:
    box = ((c.spot.x, c.spot.y), (c.spot.size, c.spot.size), 0.0)
    return DieReading(value, (c.spot.x, c.spot.y), box, 0.99, "" if value else "unclear")


def test_two_dice_read_one_inside_the_other_are_both_refused() -> None:
    # A pip the fine pass took for a small die, inside the die it belongs to.
    die = _cand(335, 204, 95, [0, 0, 1.0, 0, 0, 0, 0], pips=2, value=2)
    pip = _cand(355, 184, 37, [0, 1.0, 0, 0, 0, 0, 0], pips=1, value=1)
    beside = _cand(430, 204, 95, [0, 0, 0, 1.0, 0, 0, 0], pips=3, value=3)
    out = _refuse_overlapping([die, pip, beside], [_die(die, 2), _die(pip, 1), _die(beside, 3)])
    assert [d.value for d in out] == [None, None, 3]
    assert out[0].reason == out[1].reason == OVERLAPS
    assert out[0].center == (335, 204)  # where they were found is kept
    # Dice that touch are a die's side apart: both stay read.
    touching = _cand(335 + 48, 204, 95, [0, 0, 1.0, 0, 0, 0, 0], pips=2, value=2)
    kept = _refuse_overlapping([die, touching], [_die(die, 2), _die(touching, 2)])
    assert [d.value for d in kept] == [2, 2]
    # One of the two refused already: the frame is a re-roll anyway; the other stays.
    left = _refuse_overlapping([die, pip], [_die(die, 2), _die(pip, None)])
    assert [d.value for d in left] == [2, None] and left[1].reason == "unclear"


@needs_data
def test_a_pip_taken_for_a_small_die_is_not_read(reader: PipReader) -> None:
    # matteo_webcam train_two_26.jpg (tuning part) at half brightness: the locator also
    # finds one pip of a 2 as a small die. A crop network trained without covered dice
    # read it as a 1 at 0.998 and _refuse_overlapping refused it (tested above on drawn
    # finds); the shipped one does not read it as a die at all.
    (img,) = [i for i in load_set("matteo_webcam", "tune", DATA) if i.name == "train_two_26.jpg"]
    dark = np.asarray(_frame(img) // 2, np.uint8)
    r = reader.read(dark)
    assert r.status is FrameStatus.REROLL
    assert 1 not in r.values
    assert reader.read(_frame(img)).values == (2, 2, 2)  # in its own light: read


@needs_data
def test_a_die_over_one_pip_taken_for_a_small_die_is_read(reader: PipReader) -> None:
    # matteo_webcam train_two_4.jpg (tuning part) at 45 % brightness: the fine pass finds
    # the 2 and, inside it, one of its pips as a small die. The big find used to be
    # dropped as a find around one small die, and the pip read as a 1 in a frame
    # accepted as a good throw. The crop network reads the big one as a 2 and the small
    # one as no more than a 1: a pip, which goes.
    (img,) = [i for i in load_set("matteo_webcam", "tune", DATA) if i.name == "train_two_4.jpg"]
    dim = np.asarray(np.clip(_frame(img).astype(np.float32) * 0.45, 0, 255), np.uint8)
    r = reader.read(dim)
    assert r.status is FrameStatus.OK and r.values == (2,), r
    assert reader.read(_frame(img)).values == (2,)


@needs_data
def test_a_big_die_found_with_little_certainty_does_not_leave_its_pips_read_as_1s(
    reader: PipReader,
) -> None:
    # byler_d6 IMG_20191209_100348.jpg (tuning part), a 128 x 96 window enlarged five
    # times to 640 x 480, as a camera close to the tray sees dice of about 200 px: a
    # black 4 and a 6. The coarse pass finds the 4 with little certainty (0.45) and reads
    # it as a 4; the fine pass finds one of its pips as a small die, read as a 1 at 0.97.
    # The big find used to be dropped unread for its low certainty, and the frame was a
    # good throw of 1 and 6. Now both are kept, and the pip and the die it lies on are
    # refused together.
    (img,) = [i for i in load_set("byler_d6", "tune", DATA) if i.name == "IMG_20191209_100348.jpg"]
    window = _frame(img)[278:374, 357:485]
    close = np.asarray(cv2.resize(window, (640, 480), interpolation=cv2.INTER_CUBIC), np.uint8)
    r = reader.read(close)
    assert 1 not in r.values, r
    assert r.status is FrameStatus.REROLL, r


def test_of_a_coarse_and_a_fine_find_in_one_place_the_surer_stays_unless_both_agree() -> None:
    """``_one_per_place`` with every find's crop reading given (``seen``): the coarse find
    of a big die (a white 3 drawn in the frame) and the fine pass's find of part of it,
    found more surely. The surer find stays unless the classifier does not read it and
    reads the other, the surer one's likeliest class is that value or "not a die", and
    the other's pip count names that value: three things that agree."""
    from types import SimpleNamespace

    reader = PipReader.__new__(PipReader)  # no networks: every reading is given
    reader.classifier = SimpleNamespace(probabilities=lambda crops: [])
    plain = np.full((640, 640, 3), 60, np.uint8)
    three = plain.copy()
    cv2.rectangle(three, (220, 220), (380, 380), (235, 235, 235), -1)
    for x, y in ((255, 255), (300, 300), (345, 345)):
        cv2.circle(three, (x, y), 15, (20, 20, 20), -1)

    def reads(v: int) -> np.ndarray:
        return np.eye(7, dtype=np.float32)[v]

    def doubt(v: int) -> np.ndarray:  # likeliest v, under AGREE
        p = np.full(7, 0.1, np.float32)
        p[v] = 0.4
        return p

    die = Spot(300.0, 300.0, 160.0, 0.6, coarse=True)
    part = Spot(305.0, 296.0, 96.0, 0.85)
    other = Spot(500.0, 300.0, 40.0, 0.9)  # a die elsewhere: left alone
    assert count_pips(three, die.x, die.y, die.size).value == 3

    def one(frame: np.ndarray, die_p: np.ndarray, part_p: np.ndarray) -> list[Spot]:
        seen = {die: die_p, part: part_p, other: reads(2)}
        return reader._one_per_place(frame, [die, part, other], seen)

    assert one(three, reads(3), reads(0)) == [die, other]  # the part is no die
    assert one(three, reads(3), doubt(3)) == [die, other]  # the part is a doubtful 3
    assert one(three, reads(3), doubt(1)) == [part, other]  # the part says 1: no
    assert one(plain, reads(3), reads(0)) == [part, other]  # no 3 in the pips: no
    assert one(three, reads(3), reads(1)) == [part, other]  # the surer one is read
    assert one(three, doubt(3), doubt(3)) == [part, other]  # neither is read
    assert one(three, reads(0), reads(3)) == [part, other]
    apart = Spot(300.0, 420.0, 40.0, 0.9)  # no part of the die: both stay
    assert reader._one_per_place(three, [die, apart], {die: reads(3), apart: reads(2)}) == [
        die,
        apart,
    ]
    # A rival that wins keeps out a weaker find of its own pass in its place, which the
    # surer find of the other pass had left to the reader as a rival too.
    patch = Spot(300.0, 300.0, 160.0, 0.9, coarse=True)  # surer, and no die
    whole3 = Spot(300.0, 300.0, 160.0, 0.8)
    twin = Spot(305.0, 296.0, 100.0, 0.7)
    assert set(suppress([patch, whole3, twin])) == {patch, whole3, twin}
    seen = {patch: reads(0), whole3: reads(3), twin: doubt(3)}
    assert reader._one_per_place(three, [patch, whole3, twin], seen) == [whole3]
    # At the frame's edge: a surer coarse find running off the frame and a fine one
    # inside it, a white 3 drawn there. The part in view may be what is left of a die
    # cut by the edge: the surer find stays, to be refused as cut off.
    edge = plain.copy()
    cv2.rectangle(edge, (545, 255), (635, 345), (235, 235, 235), -1)
    for x, y in ((565, 275), (590, 300), (615, 325)):
        cv2.circle(edge, (x, y), 8, (20, 20, 20), -1)
    cut = Spot(600.0, 300.0, 160.0, 0.8, coarse=True)
    inside = Spot(590.0, 300.0, 90.0, 0.5)
    assert count_pips(edge, inside.x, inside.y, inside.size).value == 3
    seen = {cut: reads(0), inside: reads(3)}
    assert reader._one_per_place(edge, [cut, inside], seen) == [cut]
    whole = Spot(560.0, 300.0, 150.0, 0.8, coarse=True)  # the same, its box in the frame
    assert reader._one_per_place(edge, [whole, inside], {**seen, whole: reads(0)}) == [inside]


@needs_data
def test_a_close_cameras_die_is_read_from_its_coarse_find(reader: PipReader) -> None:
    # byler_d6 IMG_20191208_112020.jpg (tuning part), a 160 x 160 window enlarged four
    # times to 640 x 640, as a camera close to the tray sees a red 3 of 170 px and a 2.
    # The coarse pass finds the 3 whole (0.88 of its labelled side); the fine pass finds
    # half of it (0.51), more surely, and the whole find was dropped: the half was read
    # "unclear" and the throw refused. Now the classifier reads the whole find as a 3
    # and not the half, and the whole one is kept.
    (img,) = [i for i in load_set("byler_d6", "tune", DATA) if i.name == "IMG_20191208_112020.jpg"]
    window = _frame(img)[261:421, 259:419]
    close = np.asarray(cv2.resize(window, (640, 640), interpolation=cv2.INTER_CUBIC), np.uint8)
    r = reader.read(close)
    assert r.status is FrameStatus.OK, r
    three = [d for d in r.dice if abs(d.center[0] - 321) < 40 and abs(d.center[1] - 319) < 40]
    two = [d for d in r.dice if abs(d.center[0] - 525) < 40 and abs(d.center[1] - 313) < 40]
    assert [d.value for d in three] == [3] and [d.value for d in two] == [2], r


def _vignetted(frame: np.ndarray, depth: float = 0.45) -> np.ndarray:
    """The frame darkened towards its corners (1 - depth * r^2, r = 1 at the sides' middles)."""
    h, w = frame.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    r2 = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2
    return np.asarray(np.clip(frame * (1 - depth * r2)[:, :, None], 0, 255), np.uint8)


@needs_data
def test_a_patch_of_dice_read_as_one_big_die_does_not_hide_them(reader: PipReader) -> None:
    # byler_d6 IMG_20191208_111228.jpg (tuning part), darkened towards the corners: the
    # coarse pass finds one big "die" over the bright middle, and the crop network reads
    # that patch of three dice as a 3 at 1.0. Its finds inside were dropped as its pips,
    # so the red 2 in the middle came out as a 3. They read as dice of their own (2, 5,
    # 5), so nothing is read there now.
    (img,) = [i for i in load_set("byler_d6", "tune", DATA) if i.name == "IMG_20191208_111228.jpg"]
    r = reader.read(_vignetted(_frame(img)))
    near = [d for d in r.dice if abs(d.center[0] - 315) < 25 and abs(d.center[1] - 336) < 25]
    assert near and all(d.value in (None, 2) for d in near), near
    assert r.status is FrameStatus.REROLL
    as_taken = [d for d in reader.read(_frame(img)).dice if abs(d.center[0] - 315) < 25]
    assert [d.value for d in as_taken if abs(d.center[1] - 336) < 25] == [2]


@pytest.mark.parametrize(
    ("p6", "pip_value", "reads"),
    [
        (0.9995, None, True),
        (0.9995, 2, True),  # pips lost in glare: fewer than six found
        (0.993, 2, False),  # sure, not certain: the pip count still stands against it
        (0.9995, 6, True),
        (0.96, 6, True),
        (0.951, 6, True),  # AGREE: sure enough when the pips name the same value
        (0.93, 6, False),
        (0.96, None, False),
    ],
)
def test_first_look_certain_network_over_a_short_pip_count(
    p6: float, pip_value: int | None, reads: bool
) -> None:
    probs = np.array([0.0, 0, 0, 0, 0, 1 - p6, p6], np.float32)
    pips = PipCount(((0.0, 0.0),) * (pip_value or 0), pip_value, 50.0)
    assert _first_look(probs, pips) is reads


@pytest.mark.parametrize(
    ("p3", "pip_value", "hopeful"),
    [
        (0.62, 3, True),  # agreeing pips: the mean of four can reach 0.90 from 0.60
        (0.58, 3, False),
        (0.82, None, True),  # no pip count: the mean must reach 0.95, from 0.80
        (0.78, None, False),
        (0.97, 5, False),  # the pips name another value: looking again cannot read it
    ],
)
def test_views_are_taken_only_when_they_can_read_the_die(
    p3: float, pip_value: int | None, hopeful: bool
) -> None:
    probs = np.array([0.0, 0, 1 - p3, p3, 0, 0, 0], np.float32)
    pips = PipCount(((0.0, 0.0),) * (pip_value or 0), pip_value, 50.0)
    assert _views_could_read(probs, [], pips, 4) is hopeful
    # the bound is exact: the other three views all sure of the value read it
    if pip_value in (None, 3):
        mean = (probs + 3 * np.array([0.0, 0, 0, 1, 0, 0, 0], np.float32)) / 4
        bar = VIEWS_SURE if pip_value is None else VIEWS_AGREE
        assert (float(mean[3]) >= bar) is hopeful


def test_looking_again_stops_only_when_the_mean_can_no_longer_read() -> None:
    """The early stop between views never drops a die that all four views would read,
    and it does stop one whose next view already rules it out."""
    rng = np.random.default_rng(7)
    stopped = 0
    for _ in range(3000):
        k = int(rng.integers(1, 7))
        pip_value = [None, k, k % 6 + 1][int(rng.integers(0, 3))]
        pips = PipCount(((0.0, 0.0),) * (pip_value or 0), pip_value, 50.0)
        views = []
        for _ in range(4):
            v = rng.dirichlet(np.full(7, 0.3)).astype(np.float32)
            sure = float(rng.uniform(0.5, 1.0))
            v = v * (1 - sure)
            v[k] += sure
            views.append(v)
        p, seen = views[0], views[1:]
        mean = (np.sum(seen, axis=0) + p) / 4
        for m in (1, 2):
            if not _views_could_read(p, seen[:m], pips, 4):
                stopped += 1
                assert not _views_read(np.asarray(mean, np.float32), pips)
    assert stopped > 100
    poor = np.array([0.0, 0, 0, 0.2, 0.8, 0, 0], np.float32)
    hopeful = np.array([0.0, 0, 0, 0.9, 0.1, 0, 0], np.float32)
    pips3 = PipCount(((0.0, 0.0),) * 3, 3, 50.0)
    assert not _views_could_read(hopeful, [poor], pips3, 4)  # (0.9 + 0.2 + 2) / 4 < 0.90
    assert _views_could_read(hopeful, [hopeful], pips3, 4)


@pytest.mark.parametrize(
    ("p1", "side_round", "reads"),
    [(0.9995, 0.45, True), (0.993, 0.45, False), (0.9995, 0.75, False)],
)
def test_a_certain_network_over_more_pips_that_are_side_faces(
    p1: float, side_round: float, reads: bool
) -> None:
    """A 1 with a squashed side-face pip in view: the pip count says 2."""
    probs = np.array([0.0, p1, 1 - p1, 0, 0, 0, 0], np.float32)
    pips = PipCount(((19.0, 19.0), (30.0, 34.0)), 2, 50.0, (20.0, 18.0), (0.8, side_round), 38.0)
    assert _first_look(probs, pips) is reads


def test_a_certain_network_does_not_override_more_pips() -> None:
    probs = np.array([0.0, 0.9999, 0.0001, 0, 0, 0, 0], np.float32)
    assert not _first_look(probs, PipCount(((0.0, 0.0),) * 2, 2, 50.0))


@needs_data
@pytest.mark.parametrize(
    "name",
    [
        "IMG_20191208_112623.jpg",  # a screw hole on the tray's stand, as sure as a die
        "IMG_20191209_095628.jpg",  # a find three dice wide beside the dice
    ],
)
def test_false_finds_do_not_turn_a_good_throw_into_a_reroll(reader: PipReader, name: str) -> None:
    (img,) = [i for i in load_set("byler_d6", "tune", DATA) if i.path.name == name]
    r = reader.read(_frame(img))
    assert r.status is FrameStatus.OK, r
    assert sorted(r.values) == sorted(d.value for d in img.dice)


@needs_data
def test_bench_measures_a_given_network_on_the_calibration_images(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from vision import bench
    from vision.classify import MODEL_PATHS

    monkeypatch.setenv("DICETABLE_SHARED", str(DATA))
    shipped = [str(p) for p in MODEL_PATHS]
    assert bench.main(["matteo_webcam", "--calib", "--no-big", "--classifier", *shipped]) == 0
    out = capsys.readouterr().out
    assert "matteo_webcam [calib]: 38 images, 120 dice" in out
    assert "fastest of its 3 reads" in out  # each image read three times by default
    from vision.locate import MODEL_PATH as LOCATOR

    # the shipped locator given by name reads as the reader does by itself
    assert bench.main(["matteo_webcam", "--calib", "--no-big", "--locator", str(LOCATOR)]) == 0
    given = capsys.readouterr().out
    assert given.split("  ms per image")[0] == out.split("  ms per image")[0]
    assert bench.main(["--calib", "--classifier", "no-such-network.onnx"]) == 2
    assert "no such network: no-such-network.onnx" in capsys.readouterr().err
    assert bench.main(["--calib", "--repeat", "0"]) == 2
    assert "--repeat must be 1 or more" in capsys.readouterr().err


def test_the_bench_lists_each_refused_and_missed_die_with_its_label() -> None:
    dice = (LabelledDie(3, (0, 0, 20, 20)), LabelledDie(5, (100, 100, 120, 120)))
    img = LabelledImage("s", Path("a.jpg"), 200, 200, dice)
    refused = DieReading(None, (11.0, 9.0), ((11.0, 9.0), (20.0, 20.0), 0.0), 0.7, "unclear")
    stray = DieReading(None, (60.0, 60.0), ((60.0, 60.0), (20.0, 20.0), 0.0), 0.5, "unclear")
    sc = Score()
    score_image(img, (refused, stray), sc)
    assert (sc.refused, sc.missed, sc.stray) == (1, 1, 1)
    assert sc.doubt_notes == [
        "a.jpg: refused (unclear), label 3 at (11,9) conf 0.700",
        "a.jpg: missed, label 5 at (110,110)",
    ]
    assert sc.wrong_notes == ["a.jpg: stray refusal (unclear) at (60,60)"]


@needs_data
@pytest.mark.parametrize(
    ("name", "alteration", "seed"),
    [
        ("train_six_14.jpg", robustness.die_covered, 77),  # a dark edge over a 6's pips
        ("train_six_27.jpg", robustness.finger_on_die, 84),  # a finger tip over a 6
    ],
)
def test_a_partly_covered_six_is_not_read_as_the_face_in_view(
    reader: PipReader, name: str, alteration: robustness.Alteration, seed: int
) -> None:
    # matteo_webcam tuning photos with one 6 partly covered (the alteration and seed
    # vision.robustness gives them). A crop network not taught covered dice read the
    # part in view as a 3, at first sight, in a frame read ok.
    (img,) = [i for i in load_set("matteo_webcam", "tune", DATA) if i.name == name]
    assert {d.value for d in img.dice} == {6}
    frame, dice = alteration(_frame(img), img.dice, seed)
    r = reader.read(frame, expect=len(dice))
    assert r.status is FrameStatus.REROLL, r
    assert set(r.values) <= {6}, r
    assert reader.read(_frame(img), expect=len(dice)).values == (6,) * len(dice)


def test_a_tray_too_busy_to_read_is_a_reroll_unread(
    reader: PipReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkerboard (a patterned cloth in the tray) made hundreds of finds, each put to
    the crop network and counted for pips: 6 s a frame and a listing of 95 kB. Over
    MAX_FINDS finds the frame is a re-roll, and nothing is classified."""
    from vision import reader as reader_module

    yy, xx = np.indices((960, 1280))
    squares = ((yy // 8 + xx // 8) % 2 * 255).astype(np.uint8)
    board = np.asarray(cv2.cvtColor(squares, cv2.COLOR_GRAY2BGR), np.uint8)
    r = reader.read(board)
    assert r.status is FrameStatus.REROLL and r.reason.startswith("too busy: ")
    assert r.dice == ()
    # the limit itself: 64 finds are read, 65 are not
    calls: list[int] = []
    real = reader.classifier.probabilities

    def counted(crops: list[np.ndarray]) -> np.ndarray:
        calls.append(len(crops))
        return real(crops)

    monkeypatch.setattr(reader.classifier, "probabilities", counted)
    for n, read in ((reader_module.MAX_FINDS, True), (reader_module.MAX_FINDS + 1, False)):
        spots = [Spot(20.0 + 9 * (i % 60), 20.0 + 9 * (i // 60), 8.0, 0.9) for i in range(n)]
        monkeypatch.setattr(reader.locator, "find", lambda *a, s=spots, **k: s)
        calls.clear()
        r = reader.read(board)
        assert bool(calls) is read, (n, r.reason)
        assert r.reason.startswith("too busy") is not read


def _pasted_alone(img: LabelledImage, die: int, side: int, seed: int) -> np.ndarray:
    """One die of the photo, cut with its margin of board (``compose.cut_die``: bits of
    its neighbours in it), enlarged to ``side`` px and pasted in the middle of a 640 x
    480 tray of the photo's edge colour with a little noise."""
    frame = _frame(img)
    edge = np.concatenate([frame[0], frame[-1], frame[:, 0], frame[:, -1]])
    rng = np.random.default_rng(seed)
    noise = rng.normal(0, 3, (480, 640, 3))
    tray = np.clip(np.median(edge, axis=0)[None, None, :] + noise, 0, 255).astype(np.uint8)
    d = img.dice[die]
    cut = compose.cut_die(img.path.parent, img.path.name, d.value, list(d.bbox))
    assert cut is not None
    f = side / max(d.bbox[2] - d.bbox[0], d.bbox[3] - d.bbox[1])
    piece = cv2.resize(cut.image, None, fx=f, fy=f, interpolation=cv2.INTER_CUBIC)
    alpha = cv2.resize(cut.alpha, (piece.shape[1], piece.shape[0]))
    return compose.paste(tray, replace(cut, image=piece, alpha=alpha), (320, 240))


# Frames built from tuning photos in which the first version of ``_one_per_place`` kept
# the find the locator was less sure of, because the crop network read it alone, and it
# was wrong: (set, photo, die the frame is built around, how).
LESS_SURE_AND_WRONG = [
    ("matteo_webcam", "train_two_24.jpg", 0, "window 2x blurred"),  # part of a 2 read 1
    ("byler_d6", "IMG_20191208_112419.jpg", 0, "window 3x blurred"),  # a 1 beside it read 2
    ("byler_d6", "IMG_20191208_111304.jpg", 6, "window 3x blurred"),  # a 3 read 2
    ("byler_d6", "IMG_20191209_095854.jpg", 2, "alone at 200 px"),  # a 3 read 1
]


@needs_data
@pytest.mark.parametrize(("set_name", "name", "die", "how"), LESS_SURE_AND_WRONG)
def test_a_less_sure_find_read_alone_must_agree_with_the_surer_one(
    reader: PipReader, set_name: str, name: str, die: int, how: str
) -> None:
    """A fine and a coarse find in one place: the one the locator is less sure of stays
    only if the classifier reads it, the surer one's likeliest class is that value or no
    die, and its pip count names that value. Without the last two, these frames read
    ok with a die's value wrong."""
    (img,) = [i for i in load_set(set_name, "tune", DATA) if i.name == name]
    if how.startswith("window"):  # a close camera slightly out of focus
        k = int(how.split()[1].rstrip("x"))
        frame, labels = robustness.window(_frame(img), img.dice, img.dice[die].center, k)
        frame = np.asarray(cv2.GaussianBlur(frame, (0, 0), 2.5), np.uint8)
    else:
        frame = _pasted_alone(img, die, 200, 6702)
        labels = (LabelledDie(img.dice[die].value, (220.0, 140.0, 420.0, 340.0)),)
    if name == "IMG_20191208_111304.jpg":  # a die cut by the window's top edge, painted over
        frame[0:110, 410:590] = frame[120:230, 410:590]
        labels = tuple(d for d in labels if not (410 < d.center[0] < 590 and d.bbox[1] < 110))
    r = reader.read(frame)
    sc = Score()
    score_image(replace(img, dice=labels), r.dice, sc)
    assert sc.wrong == 0 and sc.extra == 0, sc.wrong_notes


# Frames built from tuning photos (a camera k times closer, vision.robustness.window,
# around the die given, its centre moved by the share of the window given) in which a die
# the frame's edge cuts was not found, and one of its pips in view was found as a small
# die and read as a 1, in a frame read ok: (set, photo, die, k, shift of the centre).
PIPS_OF_CUT_DICE = [
    ("byler_d6", "IMG_20191208_112942.jpg", 1, 5, (0.0, 0.0)),  # a 3 cut by the right edge
    ("byler_d6", "IMG_20191208_111446.jpg", 3, 6, (0.0, 0.0)),  # a 5 cut by the left edge
    ("matteo_webcam", "train_two_50.jpg", 4, 5, (-0.48, 0.0)),  # a 2 cut by the right edge
    ("byler_d6", "IMG_20191209_100043.jpg", 4, 5, (0.0, 0.0)),  # a 3 cut by the bottom edge
]


@needs_data
@pytest.mark.parametrize(("set_name", "name", "die", "k", "shift"), PIPS_OF_CUT_DICE)
def test_a_pip_of_a_die_the_edge_cuts_is_not_read_as_a_1(
    reader: PipReader,
    set_name: str,
    name: str,
    die: int,
    k: int,
    shift: tuple[float, float],
) -> None:
    """Around a real 1 lies tray; around a pip of a bigger die lies that die's face. A 1
    with no pip found in it, near the frame's edge, with its face's colour most of the way
    around it, is refused as cut off."""
    (img,) = [i for i in load_set(set_name, "tune", DATA) if i.name == name]
    frame = _frame(img)
    h, w = frame.shape[:2]
    cx, cy = img.dice[die].center
    centre = (cx + shift[0] * (w // k), cy + shift[1] * (h // k))
    frame, labels = robustness.window(frame, img.dice, centre, k)
    r = reader.read(frame)
    sc = Score()
    score_image(replace(img, dice=labels), r.dice, sc)
    assert sc.wrong == 0 and sc.extra == 0, sc.wrong_notes
    assert any(d.reason == "cut off at the frame edge" for d in r.dice), r


@needs_data
@pytest.mark.parametrize(
    ("name", "die"),
    [
        ("IMG_20191208_111947.jpg", 5),
        ("IMG_20191208_112256.jpg", 9),
        ("IMG_20191208_112342.jpg", 21),
    ],
)
@pytest.mark.parametrize("where", ["left", "right", "top", "bottom"])
def test_a_whole_1_near_the_frames_edge_is_still_read(
    reader: PipReader, name: str, die: int, where: str
) -> None:
    """A 1 lying whole beside the frame's edge has tray around it, not its face. These
    byler tuning photos' 1s have no pip found in them (the pip counter takes their one
    big pip for no pip), so the check looks at them; each photo is cut so that 0.3 of the
    die's side of tray lies between the die and the frame's edge."""
    (img,) = [i for i in load_set("byler_d6", "tune", DATA) if i.name == name]
    frame = _frame(img)
    d = img.dice[die]
    assert d.value == 1
    x0, y0, x1, y1 = (int(v) for v in d.bbox)
    side = max(x1 - x0, y1 - y0)
    assert not count_pips(frame, *d.center, side).pips  # what brings the check in
    g = round(0.3 * side)
    cut = {
        "left": frame[:, x0 - g :],
        "right": frame[:, : x1 + g],
        "top": frame[y0 - g :, :],
        "bottom": frame[: y1 + g, :],
    }[where]
    ox, oy = {"left": (x0 - g, 0), "top": (0, y0 - g)}.get(where, (0, 0))
    box = grown((d.bbox[0] - ox, d.bbox[1] - oy, d.bbox[2] - ox, d.bbox[3] - oy))
    r = reader.read(np.ascontiguousarray(cut))
    assert [dr.value for dr in r.dice if holds(box, *dr.center)] == [1], r


def _doubtful(x: float, y: float, pips: int = 0, value: int | None = None) -> _Candidate:
    """A sharp 40 px find the crop network doubts (0.6 for a 1): never read, so refused,
    with the pip count given."""
    yy, xx = np.mgrid[0:40, 0:40]
    board = (((xx // 4) + (yy // 4)) % 2 * 200 + 20).astype(np.uint8)
    return _Candidate(
        Spot(x, y, 40.0, 0.9),
        np.repeat(board[:, :, None], 3, axis=2),
        np.array([0.1, 0.6, 0.3, 0, 0, 0, 0], np.float32),
        PipCount(tuple((x + 0.1 * i, y) for i in range(pips)), value, 50.0),
    )


def _refused_as(reader: PipReader, c: _Candidate, cands: list[_Candidate]) -> str:
    grey = np.full((480, 640, 3), 128, np.uint8)
    d = reader._decide(grey, c, cands, 1.0, None, grey)
    assert d.value is None
    return d.reason


def test_a_doubtful_die_is_touching_only_when_another_find_lies_against_it(
    reader: PipReader,
) -> None:
    """ "touching another die" sends the players to move dice apart: it is said only of a
    die another find lies against (boxes grown 15 % meet), not of one lying alone."""
    alone = _doubtful(200, 200)
    assert _refused_as(reader, alone, [alone]) == "unclear"
    against = _doubtful(242, 200)
    assert _refused_as(reader, alone, [alone, against]) == "touching another die"
    apart = _doubtful(280, 200)
    assert _refused_as(reader, alone, [alone, apart]) == "unclear"


def test_a_doubtful_die_whose_pips_name_another_value_is_said_to_disagree(
    reader: PipReader,
) -> None:
    plain = _doubtful(200, 200)
    assert _refused_as(reader, plain, [plain]) == "unclear"
    three = _doubtful(200, 200, pips=3, value=3)  # the network leans to a 1
    assert _refused_as(reader, three, [three]) == "unclear (pips and shape disagree)"


def test_a_doubtful_place_the_network_calls_no_die_is_unreadable(reader: PipReader) -> None:
    c = _doubtful(200, 200)
    blank = replace(c, probs=np.array([0.7, 0.2, 0.1, 0, 0, 0, 0], np.float32))
    assert _refused_as(reader, blank, [blank]) == "unreadable"
    assert _refused_as(reader, c, [c]) == "unclear"
