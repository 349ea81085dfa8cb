"""vision.surfaces: dice cut out of a photo and laid on another tray surface."""

from __future__ import annotations

import os
import warnings

import cv2
import numpy as np
import pytest

from tests.conftest import RunPython
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


def _light_tray(h: int = 120, w: int = 200) -> np.ndarray:
    """A light, slightly noisy tray, the same every time."""
    return np.clip(np.random.default_rng(1).normal(205, 3, (h, w, 3)), 0, 255).astype(np.uint8)


def _die_with_shadow(f: np.ndarray, box: Box) -> None:
    """A red die drawn on ``f`` in ``box``, its shadow below and right of it."""
    x0, y0, x1, y1 = (int(v) for v in box)
    shadow = f[y0 + 3 : y1 + 3, x0 + 4 : x1 + 4]
    shadow[:] = (shadow * 0.9).astype(np.uint8)
    f[y0:y1, x0:x1] = (40, 30, 160)


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


def test_each_named_surface_is_of_the_colour_its_name_says() -> None:
    """The measurement's lines are named by surface ("red felt", "dark wood"): a line
    must be measured on what its name says, or the numbers are of another tray."""

    def mean(kind: str) -> np.ndarray:
        return make_surface(kind, 64, 96, 0).reshape(-1, 3).mean(axis=0)

    b, g, r = mean("red felt")
    assert r > 2 * g and r > 2 * b
    b, g, r = mean("dark wood")
    assert r > g > b and r < 120  # brown, and dark
    b, g, r = mean("grey rubber")
    assert max(b, g, r) - min(b, g, r) < 10  # grey


def test_check_cloth_is_a_check_of_two_colours() -> None:
    """The check cloth is woven of two colours in squares: a surface that tests a reader
    on an edge between colours under every die, not a plain one."""
    cloth = cv2.GaussianBlur(make_surface("check cloth", 88, 88, 0), (0, 0), 2.0)
    b, r = cloth[..., 0], cloth[..., 2]
    bluer = b - r
    assert float(bluer.max()) > 15 and float(bluer.min()) < -15  # blue squares and red ones


def test_random_surfaces_are_of_any_hue_and_mostly_dark_to_middling() -> None:
    """The crop network is trained on trays of every colour, dark ones above all (felt,
    wood, rubber) and some light ones: a set of grey or only dark trays would teach it
    less than it is measured on."""
    rng = np.random.default_rng(4)
    means = np.array([random_surface(rng, 24, 32).reshape(-1, 3).mean(axis=0) for _ in range(60)])
    colourful = np.ptp(means, axis=1) > 60
    value = means.max(axis=1)  # HSV's value: the brightest channel
    assert colourful.sum() >= 10
    assert set(means[colourful].argmax(axis=1).tolist()) == {0, 1, 2}  # blue, green, red
    assert (value < 150).sum() >= 40 and (value > 160).sum() >= 2


def test_a_name_seed_is_the_same_in_every_process(run_python: RunPython) -> None:
    """A surface drawn for a photo is drawn again the same on another run or machine, so
    a measurement can be repeated; Python's own string hash differs from run to run."""
    code = "from vision.surfaces import name_seed; print(name_seed('grey rubber', 7))"
    seeds = {run_python(code, env={**os.environ, "PYTHONHASHSEED": h}).stdout for h in ("1", "2")}
    assert seeds == {f"{name_seed('grey rubber', 7)}\n"}


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


@needs_data
def test_a_photo_cuts_out_the_same_whatever_ran_before() -> None:
    """The robustness measurement repeats: a photo's cut must not depend on what else
    drew from OpenCV's random numbers before it (GrabCut's k-means draws from them)."""
    im = load_set("byler_d6", "tune", DATA)[0]
    frame, boxes = im.read(), [d.bbox for d in im.dice]
    cuts = []
    for before in (1, 999):
        cv2.setRNGSeed(before)
        cuts.append(cut_out(frame, boxes, seed=3))
    assert cuts[0].kept == cuts[1].kept
    assert np.array_equal(cuts[0].fg, cuts[1].fg)


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


def test_a_crumb_beside_a_die_goes_with_the_tray() -> None:
    """Only the die is cut out: a crumb a few pixels off it, unlabelled, is replaced by
    the surface with the rest of the tray, not carried onto the new surface."""
    f, boxes = _tray_with_dice()
    f[46:51, 21:25] = (40, 30, 160)  # left of die 0, as red as the dice
    cut = cut_out(f, boxes)
    assert cut.kept == (0, 1) and cut.whole
    assert (cut.fg[46:51, 21:25] == 0).all()


def test_only_a_darker_shade_of_the_tray_near_a_die_is_kept_as_its_shadow() -> None:
    """The photo's shading kept on the new surface is the die's shadow: a darker tray.
    A lighter patch of tray or a blue thing near the die leaves the surface as it is
    (never lightened, never darkened by what is not a shadow)."""
    f, boxes = _tray_with_dice()
    f[50:62, 22:26] = (150, 100, 60)  # blue, darker, left of die 0
    f[34:38, 34:58] = 212  # a lighter stripe of tray above it
    cut = cut_out(f, boxes)
    assert cut.kept == (0, 1)
    assert float(cut.shade.max()) <= 1.0
    assert (cut.shade[50:62, 22:26] == 1.0).all()
    assert float(cut.shade[72:75, 40:60].min()) < 0.95  # the real shadow is kept


def _red_die_on_a_tray() -> np.ndarray:
    """A light, slightly noisy tray with one red 44 px die showing a 1 at (82, 62), its
    shadow below and right of it."""
    f = _light_tray(140, 200)
    _die_with_shadow(f, (60.0, 40.0, 104.0, 84.0))
    cv2.circle(f, (82, 62), 4, (255, 255, 255), -1)
    return f


def test_a_pip_box_of_a_one_cuts_out_the_whole_die() -> None:
    """matteo_webcam's labels box the pips: a 1's box is a fraction of its die. The
    whole die is cut out all the same, not the pip with a scrap of die round it, and
    its shadow is kept as a whole-die label's is."""
    f = _red_die_on_a_tray()
    cut = cut_out(f, [(77.0, 57.0, 87.0, 67.0)], pip_boxes=True)
    assert cut.kept == (0,) and cut.whole
    assert (cut.fg[42:82, 62:102] == 255).all()  # the die, all but its rim
    assert float(cut.shade[85:88, 70:100].min()) < 0.95  # its shadow kept too


def test_a_pip_box_with_no_tray_round_it_is_dropped() -> None:
    """A die lying on a red mat of its own colour (the dice flat against each other, a
    red felt) has no tray round it to cut it from: its pip box is dropped with its
    label, not laid on the new surface as a scrap of mat."""
    f = _red_die_on_a_tray()
    f[20:120, 40:160] = (40, 30, 160)
    cv2.circle(f, (82, 62), 4, (255, 255, 255), -1)
    cut = cut_out(f, [(77.0, 57.0, 87.0, 67.0)], pip_boxes=True)
    assert cut.kept == ()


def test_pips_of_the_tray_colour_stay_part_of_their_die() -> None:
    """Pips as light as the tray are holes in the cut to GrabCut; they are filled, so a
    die keeps its pips on the new surface and still reads as the number it shows."""
    f = _light_tray(200, 240)
    f[78:122, 88:132] = (40, 30, 160)  # a 44 px die showing a 4
    pips = [(110 + dx, 100 + dy) for dx in (-15, 15) for dy in (-15, 15)]
    for p in pips:
        cv2.circle(f, p, 3, (205, 205, 205), -1)
    cut = cut_out(f, [(88.0, 78.0, 132.0, 122.0)])
    assert cut.kept == (0,)
    assert all(cut.fg[y, x] == 255 for x, y in pips)


def test_a_soft_photos_surface_is_blurred_to_match_it() -> None:
    """With ``soft`` (a soft webcam's photo) the surface is blurred before the dice are
    laid on it: a sharp surface round soft dice would mark the dice as pasted on."""
    f, boxes = _tray_with_dice()
    cut = cut_out(f, boxes)
    surface = make_surface("grey rubber", f.shape[0], f.shape[1], 3)

    def roughness(g: np.ndarray) -> float:
        far = g[90:, :20].astype(np.float32)  # away from the dice
        return float(np.abs(np.diff(far, axis=1)).mean())

    sharp = roughness(lay_on(f, cut, surface))
    soft = roughness(lay_on(f, cut, surface, soft=True))
    assert soft < 0.7 * sharp


def test_a_label_box_round_two_dice_corner_to_corner_is_dropped() -> None:
    """A box round two dice touching at a corner cuts out no one die (the cut is not one
    solid piece): dropped, not laid on the surface as one die under one label."""
    f = _light_tray()
    f[30:60, 40:70] = (40, 30, 160)
    f[60:90, 70:100] = (40, 30, 160)
    cut = cut_out(f, [(40.0, 30.0, 100.0, 90.0)])
    assert cut.kept == () and cut.whole


@pytest.mark.parametrize("top", [30, 0], ids=["mid-tray", "at the photo's top edge"])
def test_a_die_that_does_not_cut_out_leaves_no_shadow_on_the_surface(top: int) -> None:
    """A dropped die is painted over with the rest of the tray: its shadow goes with it,
    even where it lies near a kept die whose own shadow is kept, and at the photo's edge
    as in its middle."""
    f = _light_tray()
    kept: Box = (30.0, top + 10.0, 62.0, top + 42.0)
    _die_with_shadow(f, kept)
    f[top : top + 30, 72:102] = (40, 30, 160)  # two dice corner to corner: no cut
    f[top + 30 : top + 60, 102:132] = (40, 30, 160)
    theirs = (slice(top + 4, top + 30), slice(66, 72))  # their shadow, cast to the left
    f[theirs] = (f[theirs] * 0.9).astype(np.uint8)
    cut = cut_out(f, [kept, (72.0, float(top), 132.0, top + 60.0)])
    assert cut.kept == (0,) and cut.whole
    assert (cut.shade[theirs] == 1.0).all()
    assert float(cut.shade[top + 43 : top + 46, 40:58].min()) < 0.95  # the kept die's own


def test_a_dies_shadow_is_kept_as_strong_with_another_die_beside_it() -> None:
    """Each die's shadow is laid as it was in the photo: a second die 8 px away, cut out
    after it, does not fade the first one's shadow."""
    f = _light_tray()
    first: Box = (30.0, 40.0, 62.0, 72.0)
    second: Box = (70.0, 40.0, 102.0, 72.0)
    _die_with_shadow(f, first)
    _die_with_shadow(f, second)
    alone = cut_out(f, [first])
    both = cut_out(f, [first, second])
    assert both.kept == (0, 1)
    shadow = (slice(73, 76), slice(40, 58))
    assert float(alone.shade[shadow].min()) < 0.95
    assert np.allclose(both.shade[shadow], alone.shade[shadow], atol=0.01)


def test_a_label_box_with_no_tray_round_it_is_dropped_quietly() -> None:
    """A box over the whole photo leaves no tray to tell the die from: the die is
    dropped, with no numpy warning printed into the measurement's output."""
    f = _light_tray(60, 80)
    f[10:50, 20:60] = (40, 30, 160)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cut = cut_out(f, [(0.0, 0.0, 80.0, 60.0)])
    assert cut.kept == ()


def test_a_die_at_the_photos_corner_cuts_out_as_any_other() -> None:
    """Dice come to rest against the tray's rim, at the edge of the picture: such a die
    is cut out like one in the middle, not dropped with its label."""
    f = _light_tray()
    corner: Box = (2.0, 2.0, 34.0, 34.0)
    _die_with_shadow(f, corner)
    cut = cut_out(f, [corner])
    assert cut.kept == (0,) and cut.whole
    assert (cut.fg[6:30, 6:30] == 255).all()


def test_the_shading_kept_round_a_die_fades_out_with_no_step() -> None:
    """The photo's shading near a die is laid on the new surface fading to none with
    distance: where it ends there is no step (a ring round the die, a mark that it was
    laid on) in a tray lit unevenly, as most are."""
    f = _light_tray().astype(np.float32)
    f *= np.linspace(1.0, 0.8, f.shape[0], dtype=np.float32)[:, None, None]  # lamp above
    f = np.clip(f, 0, 255).astype(np.uint8)
    f[44:76, 84:116] = (40, 30, 160)
    cut = cut_out(f, [(84.0, 44.0, 116.0, 76.0)])
    assert cut.kept == (0,)
    yy, xx = np.mgrid[0 : f.shape[0], 0 : f.shape[1]]
    tray = np.hypot(xx - 100, yy - 60) > 0.72 * 32  # round the die, not on it
    across = np.abs(np.diff(cut.shade, axis=1))[tray[:, 1:] & tray[:, :-1]]
    down = np.abs(np.diff(cut.shade, axis=0))[tray[1:] & tray[:-1]]
    assert float(max(across.max(), down.max())) < 0.03


def test_a_dropped_die_a_third_under_a_kept_ones_cut_makes_the_photo_unfit() -> None:
    """``CutOut.whole`` is False when a dropped die lies partly under a kept die's cut,
    not only when it lies wholly under it: laid on a surface, such a photo would show a
    kept die cut across where the other one was."""
    f = _light_tray()
    kept: Box = (30.0, 40.0, 62.0, 72.0)
    _die_with_shadow(f, kept)
    cut = cut_out(f, [kept, (48.0, 58.0, 80.0, 90.0)])  # a box over its corner
    assert cut.kept == (0,)
    x0, y0, x1, y1 = 48, 58, 80, 90
    assert 0.2 < float((cut.fg[y0:y1, x0:x1] > 0).mean()) < 0.4
    assert not cut.whole
