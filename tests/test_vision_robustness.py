"""vision.robustness: the alterations move the labels with the dice, and the command runs."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.bench import Score
from vision.dataset import LabelledDie, LabelledImage, default_data_dir, load_set
from vision.reader import PipReader
from vision.robustness import (
    ALTERATIONS,
    Alteration,
    OnSurface,
    closer,
    die_covered,
    die_cut,
    finger_on_die,
    framed,
    in_view,
    lamp_reflection,
    leaning,
    main,
    quarter_turn,
    rescaled,
    run,
    sharpened,
    turned,
    wide_lens,
)
from vision.robustness import as_taken as _same
from vision.types import DieReading, FrameReading, FrameStatus

DATA = default_data_dir()  # ../shared/data/dice, or $DICETABLE_SHARED
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"shared photos not found at {DATA}")


def _square_frame() -> tuple[np.ndarray, tuple[LabelledDie, ...]]:
    """A 60 x 100 black frame with a white square labelled as a die."""
    f = np.zeros((60, 100, 3), np.uint8)
    f[20:40, 10:30] = 255
    return f, (LabelledDie(4, (10.0, 20.0, 30.0, 40.0)),)


def _white_box(f: np.ndarray) -> tuple[float, float, float, float]:
    ys, xs = np.nonzero(f[:, :, 0] > 127)
    return (float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1))


@pytest.mark.parametrize(
    "alter",
    [
        quarter_turn,
        rescaled(0.6),
        rescaled(1.6),
        framed(2.0),
        closer(2),
        leaning(0.3),
        wide_lens(0.3),
        wide_lens(0.6),
        _same,
    ],
)
def test_labels_move_with_the_frame(alter: Alteration) -> None:
    f, dice = _square_frame()
    g, moved = alter(f, dice, 0)
    assert moved[0].value == 4
    assert np.allclose(moved[0].bbox, _white_box(g), atol=1.5), (moved[0].bbox, _white_box(g))


@pytest.mark.parametrize("degrees", [17.0, -40.0])
def test_labels_turn_with_the_frame(degrees: float) -> None:
    f = np.zeros((100, 120, 3), np.uint8)
    f[30:50, 20:40] = 255  # well inside the frame however it turns
    dice = (LabelledDie(3, (20.0, 30.0, 40.0, 50.0)),)
    g, moved = turned(degrees)(f, dice, 0)
    w = g[:, :, 0].astype(np.float64)
    ys, xs = np.mgrid[0 : g.shape[0], 0 : g.shape[1]]
    cx, cy = (w * xs).sum() / w.sum() + 0.5, (w * ys).sum() / w.sum() + 0.5
    mx0, my0, mx1, my1 = moved[0].bbox
    assert abs(cx - (mx0 + mx1) / 2) < 0.5 and abs(cy - (my0 + my1) / 2) < 0.5
    assert np.allclose((mx1 - mx0, my1 - my0), (20.0, 20.0))
    assert abs(cx - 30.0) > 3 or abs(cy - 40.0) > 3  # it did move


@pytest.mark.parametrize("seed", range(12))
def test_a_die_cut_by_the_edge_keeps_its_clipped_label_and_the_rest_move(seed: int) -> None:
    f = np.zeros((100, 200, 3), np.uint8)
    f[40:60, 30:50] = 255
    f[40:60, 150:170] = 128
    dice = (LabelledDie(4, (30.0, 40.0, 50.0, 60.0)), LabelledDie(2, (150.0, 40.0, 170.0, 60.0)))
    g, moved = die_cut(f, dice, seed)
    assert g.size < f.size  # something was cut away
    for d in moved:
        x0, y0, x1, y1 = d.bbox
        assert 0 <= x0 < x1 <= g.shape[1] and 0 <= y0 < y1 <= g.shape[0]
        shade = 255 if d.value == 4 else 128
        ys, xs = np.nonzero(g[:, :, 0] == shade)
        assert np.allclose((x0, y0, x1, y1), (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1))
    # The die the cut crosses shows 50-90 % of its side on the cut axis.
    sides = sorted(min(d.bbox[2] - d.bbox[0], d.bbox[3] - d.bbox[1]) for d in moved)
    assert 10 <= sides[0] <= 18


def test_a_closer_camera_enlarges_the_window_round_one_die_and_clips_what_it_cuts() -> None:
    """``closer(4)`` of a 100 x 200 frame: a 50 x 25 window round the die seed 0 picks
    (its centre (100, 50): the window's corner at (75, 38)), four times as big. The die,
    20 px wide and 30 px high, is cut by the window's top and bottom: its label keeps
    the part in view; a die outside the window loses its label."""
    f = np.zeros((100, 200, 3), np.uint8)
    f[35:65, 90:110] = 255
    # Seed 0 picks the second die (vision.robustness._pick).
    dice = (LabelledDie(2, (10.0, 10.0, 30.0, 30.0)), LabelledDie(6, (90.0, 35.0, 110.0, 65.0)))
    g, moved = closer(4)(f, dice, 0)
    assert g.shape == (100, 200, 3)
    (d,) = moved
    assert d.value == 6
    assert np.allclose(d.bbox, (60.0, 0.0, 140.0, 100.0))
    assert np.allclose(d.bbox, _white_box(g), atol=2.0), (d.bbox, _white_box(g))


def _cover_one_white_die(alter: Alteration, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A grey frame with one white 20 px die, altered: the frame and the die's pixels.
    The label must stay as it was."""
    f = np.full((100, 200, 3), 200, np.uint8)
    f[40:60, 90:110] = 255
    dice = (LabelledDie(5, (90.0, 40.0, 110.0, 60.0)),)
    g, moved = alter(f, dice, seed)
    assert moved == dice and g.shape == f.shape
    return g, g[40:60, 90:110, 0]


@pytest.mark.parametrize("seed", range(8))
def test_a_covered_die_keeps_its_label_and_part_of_it_is_dark(seed: int) -> None:
    _, die = _cover_one_white_die(die_covered, seed)
    covered = float(np.mean(die == 40))
    assert 0.1 - 0.05 <= covered <= 0.5 + 0.05, covered
    assert int(die.max()) == 255  # the rest of the die is still in view


@pytest.mark.parametrize("seed", range(8))
def test_a_finger_covers_part_of_one_die_and_reaches_on_past_it(seed: int) -> None:
    g, die = _cover_one_white_die(finger_on_die, seed)
    assert 0.05 <= float(np.mean(die != 255)) <= 0.5
    assert int(die.max()) == 255  # the rest of the die is still in view
    outside = (g != 200).any(axis=2)
    outside[40:60, 90:110] = False
    assert outside.sum() > 100  # the finger comes in from beyond the die


@pytest.mark.parametrize("seed", range(6))
def test_a_lamps_reflection_is_a_clipped_spot_near_every_dies_middle(seed: int) -> None:
    f = np.full((100, 160, 3), 60, np.uint8)
    dice = (LabelledDie(3, (20.0, 20.0, 60.0, 60.0)), LabelledDie(5, (100.0, 40.0, 140.0, 80.0)))
    g, same = lamp_reflection(f, dice, seed)
    assert same == dice
    clipped = g.min(axis=2) >= 245
    for d in dice:
        x0, y0, x1, y1 = (round(v) for v in d.bbox)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        ys, xs = np.nonzero(clipped)
        on = (abs(xs - cx) < 20) & (abs(ys - cy) < 20)
        assert on.sum() >= 2  # a clipped core on each die ...
        assert np.hypot(xs[on].mean() - cx, ys[on].mean() - cy) <= 0.15 * 40 + 1  # near its middle
    # ... and nothing far from the dice changed
    assert (g[:, 70:90] == 60).all() and (g[90:, :] == 60).all()


def test_a_leaning_camera_narrows_the_far_side_and_shrinks_the_far_dice() -> None:
    """Two like squares, one by the top (far) edge and one by the bottom: the far one
    comes out moved towards the middle and smaller than the near one, which stays by the
    near corner; each label is the box of what is drawn."""
    f = np.zeros((100, 120, 3), np.uint8)
    f[5:25, 5:25] = 255
    f[75:95, 5:25] = 255
    f[5:25, 95:115] = 255  # a far die on the right: moved left, towards the middle
    dice = (
        LabelledDie(1, (5.0, 5.0, 25.0, 25.0)),
        LabelledDie(2, (5.0, 75.0, 25.0, 95.0)),
        LabelledDie(3, (95.0, 5.0, 115.0, 25.0)),
    )
    g, (far, near, right) = leaning(0.3)(f, dice, 0)
    fx0, fy0, fx1, fy1 = far.bbox
    nx0, ny0, nx1, ny1 = near.bbox
    assert fx0 > 12.0  # 15 % of 120 px in at the top edge
    assert right.bbox[2] < 108.0
    assert nx0 < 7.0 and ny1 > 93.0
    assert (fx1 - fx0) * (fy1 - fy0) < 0.8 * (nx1 - nx0) * (ny1 - ny0)
    for die, rows, cols in (
        (far, slice(0, 50), slice(0, 60)),
        (near, slice(50, 100), slice(0, 60)),
        (right, slice(0, 50), slice(60, 120)),
    ):
        ys, xs = np.nonzero(g[rows, cols, 0] > 127)
        drawn = (
            xs.min() + cols.start,
            ys.min() + rows.start,
            xs.max() + 1 + cols.start,
            ys.max() + 1 + rows.start,
        )
        assert np.allclose(die.bbox, drawn, atol=1.5), (die.bbox, drawn)


def test_the_leaning_camera_line_narrows_the_far_edge_by_15_percent() -> None:
    """The frame's far corners move in by 7.5 % of its width each; the near ones stay
    (labels of no size, one on each corner, follow them)."""
    f = np.zeros((50, 200, 3), np.uint8)
    points = ((0.0, 0.0), (200.0, 0.0), (0.0, 50.0), (200.0, 50.0))
    corners = tuple(LabelledDie(1, (x, y, x, y)) for x, y in points)
    _, moved = ALTERATIONS["camera leaning"](f, corners, 0)
    assert np.allclose([d.bbox[:2] for d in moved], [(15, 0), (185, 0), (0, 50), (200, 50)])


def test_sharpening_gives_an_edge_haloes_and_leaves_flat_parts_alone() -> None:
    f = np.full((40, 40, 3), 100, np.uint8)
    f[:, 20:] = 160
    die = (LabelledDie(5, (2.0, 3.0, 12.0, 13.0)),)
    g, same = sharpened(f, die, 0)
    assert same == die
    assert g[20, 18, 0] < 100 < 160 < g[20, 21, 0]  # darker and brighter beside the edge
    assert 175 < g[20, 20, 0] < 195 and 65 < g[20, 19, 0] < 85  # an amount of 1, not more
    assert (g[:, :8] == 100).all() and (g[:, 33:] == 160).all()


def test_a_warm_lamp_tints_blue_down_and_red_up() -> None:
    f = np.full((8, 8, 3), 100, np.uint8)
    die = (LabelledDie(5, (2.0, 3.0, 6.0, 7.0)),)
    g, same = ALTERATIONS["warm lamp"](f, die, 0)
    assert same == die
    assert tuple(int(v) for v in g[0, 0]) == (70, 95, 120)
    g, _ = ALTERATIONS["warm lamp"](np.full((8, 8, 3), 250, np.uint8), die, 0)
    assert tuple(int(v) for v in g[0, 0]) == (175, 237, 255)  # clipped, not wrapped


def test_a_dimmed_surface_is_the_surface_at_that_light_with_the_glint_after() -> None:
    """The line "black felt half light" is "black felt" at half its light; "black felt
    dim lamp" a quarter, then a lamp's reflection on every die: clipped white on each."""
    f = np.random.default_rng(1).integers(60, 200, (96, 128, 3), np.uint8)
    f[30:60, 40:70] = 235  # a white die
    dice = (LabelledDie(3, (40.0, 30.0, 70.0, 60.0)),)
    felt, kept = OnSurface("black felt")(f, dice, 2)
    half, kept_half = ALTERATIONS["black felt half light"](f, dice, 2)
    assert kept_half == kept
    assert int(np.abs(half.astype(int) - felt.astype(int) * 0.5).max()) <= 1
    dim, _ = ALTERATIONS["black felt dim lamp"](f, dice, 2)
    assert int(dim.max()) >= 245 and float(dim.mean()) < 0.3 * float(felt.mean())


def test_a_lamp_pool_lights_round_one_die_and_dims_the_rest() -> None:
    """Lit on one of the dice (the pool's middle at most one sigma off it: 0.6 of the
    photo's light there at least), the room's 0.15-0.4 of it on the other, 224 px (at
    least 3.7 of the pool's sigmas) away; the labels stay as they were."""
    f = np.full((200, 300, 3), 200, np.uint8)
    dice = (LabelledDie(3, (40.0, 40.0, 60.0, 60.0)), LabelledDie(5, (240.0, 140.0, 260.0, 160.0)))
    for seed in range(8):
        g, same = ALTERATIONS["lamp pool"](f, dice, seed)
        assert same == dice
        lit, dim = sorted([int(g[50, 50, 0]), int(g[150, 250, 0])], reverse=True)
        assert lit >= 0.6 * 200 and 0.15 * 200 - 1 <= dim <= 0.4 * 200 + 1, (seed, lit, dim)
    assert np.array_equal(ALTERATIONS["lamp pool"](f, (), 1)[0], f)  # no die, no lamp


def test_a_shadow_edge_darkens_one_side_of_a_line_through_a_die() -> None:
    """One side of a straight line at 0.35 of the light, the other as it was; the line
    passes within 0.3 of a side of the die's centre, so it crosses the die; the labels
    stay as they were."""
    f = np.full((120, 160, 3), 200, np.uint8)
    dice = (LabelledDie(4, (60.0, 40.0, 100.0, 80.0)),)
    for seed in range(8):
        g, same = ALTERATIONS["shadow edge"](f, dice, seed)
        assert same == dice
        assert set(np.unique(g[..., 0]).tolist()) == {70, 200}, seed
        die = g[40:80, 60:100, 0]
        assert (die == 70).any() and (die == 200).any(), seed  # the edge crosses the die


def test_flicker_bands_light_the_rows_from_whole_to_six_tenths_and_back() -> None:
    """Each row one light, the same across it, from 0.6 to 1 of the photo's; at least
    three bands in the frame's height (a period of a quarter to a third of it); the
    labels stay as they were."""
    f = np.full((240, 100, 3), 200, np.uint8)
    dice = (LabelledDie(4, (10.0, 10.0, 30.0, 30.0)),)
    for seed in range(8):
        g, same = ALTERATIONS["flicker bands"](f, dice, seed)
        assert same == dice
        rows = g[:, :, 0].astype(int)
        assert (rows == rows[:, :1]).all() and (g == g[:, :, :1]).all(), seed
        assert rows.min() <= 0.6 * 200 + 2 and rows.max() >= 200 - 2, seed
        assert rows.min() >= 0.6 * 200 - 1, seed
        darkest = np.flatnonzero(rows[:, 0] <= 0.6 * 200 + 6)
        bands = 1 + int((np.diff(darkest) > 5).sum())  # separate runs of dark rows
        assert bands >= 3, (seed, bands)
    assert not np.array_equal(
        ALTERATIONS["flicker bands"](f, dice, 1)[0], ALTERATIONS["flicker bands"](f, dice, 2)[0]
    )  # the bands start where the seed says


def test_every_alteration_keeps_the_frame_an_image() -> None:
    f = np.random.default_rng(0).integers(0, 256, (48, 64, 3), np.uint8)
    dice = (LabelledDie(2, (4.0, 4.0, 20.0, 20.0)),)
    for name, alter in ALTERATIONS.items():
        g, moved = alter(f, dice, 3)
        assert g.dtype == np.uint8 and g.ndim == 3 and g.shape[2] == 3, name
        assert len(moved) == 1, name
    # The noise is seeded by the image's index: the same each run.
    noisy = ALTERATIONS["noise 8"]
    assert np.array_equal(noisy(f, dice, 3)[0], noisy(f, dice, 3)[0])


class _ScriptedReader:
    """Reads each frame as the next of the readings it was given."""

    def __init__(self, readings: list[FrameReading]) -> None:
        self.readings = iter(readings)

    def read(self, frame: np.ndarray, expect: int | None = None) -> FrameReading:
        return next(self.readings)


def _die_at(value: int, x: float, y: float) -> DieReading:
    return DieReading(value, (x, y), ((x, y), (20.0, 20.0), 0.0), 0.99)


def test_ok_frames_that_miss_a_die_are_counted_apart_from_wrong_ones(tmp_path: Path) -> None:
    """Two dice read as one, at the first one's place and value: no die is read wrong,
    and yet ``dicetable read`` would give that frame as a good throw of one die."""
    path = tmp_path / "two.png"
    cv2.imwrite(str(path), np.zeros((60, 100, 3), np.uint8))
    dice = (LabelledDie(4, (20.0, 20.0, 40.0, 40.0)), LabelledDie(2, (60.0, 20.0, 80.0, 40.0)))
    images = [LabelledImage("test", path, 100, 60, dice)]
    merged = FrameReading(FrameStatus.OK, "", (_die_at(4, 30.0, 30.0),), 1.0)  # between them
    reader: Any = _ScriptedReader([merged])
    sc, wrong_in_ok, miscounted = run(reader, images, ALTERATIONS["as taken"])
    assert (sc.right, sc.wrong, sc.missed, wrong_in_ok, miscounted) == (1, 0, 1, 0, 1)


def test_the_alterations_listed_as_the_help_lists_them_are_taken(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The help lists them "a, b"; the space after the comma is no part of a name."""
    assert main(["nosuchset", "--only", "as taken, negative"]) == 2
    assert "unknown set 'nosuchset'" in capsys.readouterr().err  # the names were taken


def test_unknown_names_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--only", "upside down"]) == 2
    assert "unknown alteration 'upside down'" in capsys.readouterr().err
    assert main(["nosuchset"]) == 2
    assert "unknown set 'nosuchset'" in capsys.readouterr().err
    assert main(["--classifier", "no-such-network.onnx"]) == 2
    assert "no such network: no-such-network.onnx" in capsys.readouterr().err


@needs_data
def test_half_as_bright_tuning_photos_are_never_read_wrong(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICETABLE_SHARED", str(DATA))
    assert main(["matteo_webcam", "--tune", "--only", "as taken,half as bright"]) == 0
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if "right" in ln]
    assert len(lines) == 2, out
    assert all(" wrong   0 (in ok frames  0) " in ln for ln in lines), out


@needs_data
def test_bands_counts_the_frames_in_a_flickering_lamps_bands(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--bands`` says of each line how many frames ``vision.bands`` finds in bands:
    none of the photos as taken, nearly all under the flickering lamp."""
    monkeypatch.setenv("DICETABLE_SHARED", str(DATA))
    assert main(["matteo_webcam", "--only", "as taken,flicker bands", "--bands"]) == 0
    out = capsys.readouterr().out
    counts = {
        ln.split(" in bands ")[0].strip(): ln.split(" in bands ")[1]
        for ln in out.splitlines()
        if " in bands " in ln
    }
    assert counts["as taken"].split() == ["0", "of", "154"], out
    flagged = int(counts["flicker bands"].split()[0])
    assert flagged >= 150, out


@needs_data
def test_negatives_of_the_tuning_photos_dark_tray_light_pips_are_read(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue asks for light or dark pips on light or dark trays: the photos' negatives
    (ivory dice with black pips on light wood become black dice with light pips on a dark
    desk) are read nearly as well, and never wrong."""
    monkeypatch.setenv("DICETABLE_SHARED", str(DATA))
    assert main(["matteo_webcam", "--tune", "--only", "negative"]) == 0
    out = capsys.readouterr().out
    (line,) = [ln for ln in out.splitlines() if "right" in ln]
    assert " wrong   0 (in ok frames  0) " in line, out
    right = float(line.split("(")[1].split("%")[0])
    assert right >= 90.0, out


@needs_data
@pytest.mark.parametrize("set_name", ["byler_d6", "matteo_webcam"])
def test_tuning_photos_enlarged_or_framed_twice_as_wide_read_nearly_as_taken(
    set_name: str,
) -> None:
    """The reader works from the measured die size: the tuning photos the networks were
    fitted on (the "fit" part of "tune") enlarged to twice their size, or framed by tray
    to twice their width (dice half as big in the frame), read nearly as taken: at most
    1 % of the dice fewer right or more refused, none more wrong."""
    reader = PipReader()
    images = load_set(set_name, "fit", DATA)
    taken, _, _ = run(reader, images, _same)
    one_percent = math.ceil(taken.dice / 100)
    for name, alter in (("enlarged", rescaled(2.0)), ("framed", framed(2.0))):
        sc, _, _ = run(reader, images, alter)
        assert sc.right >= taken.right - one_percent, (name, sc.right, taken.right)
        assert sc.stray <= taken.stray + one_percent, (name, sc.stray, taken.stray)
        assert sc.wrong <= taken.wrong, (name, sc.wrong_notes)


def test_in_view_keeps_only_labels_clear_of_the_frames_edges() -> None:
    """The closer and cut-by-edge lines also score the dice wholly in view: a label that
    ``_clipped`` cut to the frame touches its edge and is left out."""
    frame = np.zeros((100, 200, 3), np.uint8)
    inside = LabelledDie(3, (10.0, 10.0, 40.0, 40.0))
    cut_left = LabelledDie(4, (0.0, 10.0, 20.0, 40.0))
    cut_bottom = LabelledDie(5, (50.0, 70.0, 80.0, 100.0))
    near_right = LabelledDie(6, (160.0, 10.0, 197.5, 40.0))  # 2.5 px from the edge: cut
    assert in_view((inside, cut_left, cut_bottom, near_right), frame) == (inside,)


def test_each_pixel_alteration_changes_the_light_as_its_line_says() -> None:
    """The lines' names are the measurement's claims: the frame's colours swapped, its
    negative, corners darkened by 1 - 0.45 r^2, a point smeared over 9 px in a row, blurred
    by a sigma of 1.2, JPEG at quality 35. Labels stay as they were."""
    die = (LabelledDie(5, (2.0, 3.0, 12.0, 13.0)),)
    f = np.zeros((41, 61, 3), np.uint8)
    f[..., 0], f[..., 1], f[..., 2] = 10, 20, 30

    def altered(name: str, frame: np.ndarray) -> np.ndarray:
        g, same = ALTERATIONS[name](frame, die, 0)
        assert same == die, name
        return g

    assert tuple(altered("red/blue swapped", f)[5, 5]) == (30, 20, 10)
    assert tuple(altered("negative", f)[5, 5]) == (245, 235, 225)

    grey = np.full((101, 201, 3), 200, np.uint8)
    dark = altered("dark corners", grey)[..., 0].astype(int)
    # r = 1 at the middle of each side (0.55 of the light), r^2 = 2 in the corners (0.1)
    assert abs(dark[50, 100] - 200) <= 1
    for y, x in ((50, 0), (50, 200), (0, 100), (100, 100)):
        assert abs(dark[y, x] - 0.55 * 200) <= 3, (y, x, dark[y, x])
    assert abs(dark[0, 0] - 0.1 * 200) <= 3, dark[0, 0]

    point = np.zeros((41, 61, 3), np.uint8)
    point[:, 30, :] = 225  # a bright column
    row = altered("motion 9 px", point)[20, :, 0].astype(int)
    assert np.flatnonzero(row).tolist() == list(range(26, 35)) and set(row[26:35]) == {25}

    dot = np.zeros((41, 41, 3), np.uint8)
    dot[20, 20] = 255
    spread = altered("blurred 1.2", dot)[20, :, 0].astype(float)
    xs = np.arange(41) - 20
    sigma = math.sqrt(float((spread * xs * xs).sum() / spread.sum()))
    assert abs(sigma - 1.2) < 0.15, sigma

    noisy = np.random.default_rng(4).integers(0, 256, (48, 64, 3), np.uint8)
    ok, buf = cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, 35])
    assert ok and np.array_equal(altered("jpeg 35", noisy), cv2.imdecode(buf, cv2.IMREAD_COLOR))


def test_a_framed_photo_is_the_photo_itself_in_a_border_of_its_edge_colour() -> None:
    """``framed(2)``: the photo unchanged in the middle of a frame twice as wide and high,
    the border its edge's median colour with a little noise (0-5 added)."""
    f = np.full((40, 60, 3), (120, 130, 140), np.uint8)
    f[10:30, 20:40] = 255
    g, _ = framed(2.0)(f, (), 7)
    assert g.shape == (80, 120, 3)
    assert np.array_equal(g[20:60, 30:90], f)
    border = g[:20].astype(int) - np.array([120, 130, 140])
    assert border.min() >= 0 and border.max() <= 5 and border.max() > 0


def test_a_turned_label_keeps_its_width_and_its_height() -> None:
    """A 17-degree turn moves a 30 x 10 label's centre and keeps it 30 x 10."""
    f = np.zeros((100, 120, 3), np.uint8)
    (moved,) = turned(17.0)(f, (LabelledDie(2, (40.0, 40.0, 70.0, 50.0)),), 0)[1]
    x0, y0, x1, y1 = moved.bbox
    assert np.allclose((x1 - x0, y1 - y0), (30.0, 10.0))


def test_wrong_readings_count_in_ok_frames_only_and_an_extra_die_miscounts(
    tmp_path: Path,
) -> None:
    """The line's "in ok frames" counts the wrong readings a table would take as a throw:
    not those in a frame read ``reroll``. "ok frames miscounted" counts a frame read ``ok``
    with a die too many as it does one with a die missed. "whole in view" scores the same
    readings against the dice clear of the frame's edges only."""
    path = tmp_path / "f.png"
    cv2.imwrite(str(path), np.zeros((60, 100, 3), np.uint8))
    in_view = LabelledDie(4, (20.0, 20.0, 40.0, 40.0))
    at_edge = LabelledDie(2, (0.0, 20.0, 15.0, 40.0))
    images = [LabelledImage("test", path, 100, 60, (in_view, at_edge))] * 3
    edge_die = _die_at(2, 7.5, 30.0)
    readings = [
        FrameReading(FrameStatus.OK, "", (_die_at(5, 30, 30), edge_die), 1.0),  # wrong, ok
        FrameReading(FrameStatus.REROLL, "die 2", (_die_at(5, 30, 30), edge_die), 1.0),
        FrameReading(FrameStatus.OK, "", (_die_at(4, 30, 30), edge_die, _die_at(3, 70, 30)), 1.0),
    ]
    whole = Score()
    reader: Any = _ScriptedReader(readings)
    sc, wrong_in_ok, miscounted = run(reader, images, ALTERATIONS["as taken"], whole)
    assert (sc.dice, sc.right, sc.wrong, sc.extra) == (6, 4, 2, 1)
    assert (wrong_in_ok, miscounted) == (1, 1)
    assert (whole.dice, whole.right, whole.wrong) == (3, 1, 2)


@pytest.mark.parametrize("box", [(2, 2, 18, 18), (0, 30, 12, 50)])
def test_a_wide_lens_moves_a_corner_die_s_label_with_it_and_clips_it_to_the_frame(
    box: tuple[int, int, int, int],
) -> None:
    """Near a corner the lens moves a die most, and a die at the edge is pushed partly out
    of the frame: its label is the box round the die where it now shows, clipped to the
    frame."""
    x0, y0, x1, y1 = box
    f = np.zeros((60, 100, 3), np.uint8)
    f[y0:y1, x0:x1] = 255
    g, moved = wide_lens(0.6)(f, (LabelledDie(3, (float(x0), float(y0), float(x1), float(y1))),), 0)
    (die,) = moved
    assert die.bbox[0] >= 0.0 and die.bbox[2] <= 100.0 and die.bbox[3] <= 60.0
    assert np.allclose(die.bbox, _white_box(g), atol=1.5), (die.bbox, _white_box(g))
