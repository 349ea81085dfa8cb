"""The annotated picture: every die's label beside it, covering no other label or die."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from vision.annotate import annotate, banner_text, die_label, place_labels, status_line
from vision.types import DieReading, FrameReading, FrameStatus


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def test_labels_of_a_cluster_cover_neither_each_other_nor_any_die() -> None:
    # two rows of four 30 px dice, 12 px apart, as on a crowded tray: drawn above its die
    # as before, each label of the lower row would cover a die of the upper row
    boxes = [
        (200 + 42 * i, 200 + 42 * j, 230 + 42 * i, 230 + 42 * j) for j in range(2) for i in range(4)
    ]
    sizes = [(14, 18)] * len(boxes)
    places = place_labels(boxes, sizes, (640, 640), top=30)
    for a, b in itertools.combinations(places, 2):
        assert not _overlap(a, b)
    for p in places:
        assert not any(_overlap(p, b) for b in boxes)
    # each beside its own die
    for (x0, y0, x1, y1), (px0, py0, px1, py1) in zip(boxes, places, strict=True):
        assert px0 < x1 + 20 and px1 > x0 - 20 and py0 < y1 + 20 and py1 > y0 - 20


def test_a_label_stays_in_the_picture_and_below_the_banner() -> None:
    ((x0, y0, x1, y1),) = place_labels([(0, 20, 40, 60)], [(80, 20)], (240, 320), top=25)
    assert x0 >= 0 and x1 <= 320 and y0 >= 25 and y1 <= 240
    assert y0 >= 60  # no room above the die under the banner: below it
    # a label too big to go anywhere free still gets a place inside the picture
    ((x0, y0, x1, y1),) = place_labels([(0, 0, 300, 200)], [(100, 30)], (240, 320))
    assert x0 >= 0 and x1 <= 320 and y1 <= 240


def test_a_refused_die_is_labelled_with_its_number_in_the_verdict() -> None:
    box = ((50.0, 50.0), (30.0, 30.0), 0.0)
    assert die_label(DieReading(5, (50.0, 50.0), box, 0.99)) == "5"
    assert die_label(DieReading(None, (50.0, 50.0), box, 0.4, "tilted"), 2) == "?2 tilted"
    assert die_label(DieReading(None, (50.0, 50.0), box, 0.4, "tilted")) == "? tilted"
    assert die_label(DieReading(None, (50.0, 50.0), box, 0.4, "")) == "?"


@pytest.mark.parametrize("shape", [(480, 640, 3), (60, 80, 3), (3000, 4000, 3)])
def test_annotate_draws_every_size_of_frame(shape: tuple[int, int, int]) -> None:
    frame = np.full(shape, 128, np.uint8)
    h, w = shape[:2]
    s = min(h, w) / 8
    dice = tuple(
        DieReading(v, (w * f, h * 0.5), ((w * f, h * 0.5), (s, s), 20.0), 0.9, r)
        for v, f, r in ((3, 0.3, ""), (None, 0.5, "touching another die"), (6, 0.62, ""))
    )
    reading = FrameReading(FrameStatus.REROLL, "die 2 is touching another die", dice, 12.0)
    out = annotate(frame, reading, title="x.jpg")
    assert out.shape == frame.shape and out.dtype == np.uint8
    assert int(np.abs(out.astype(int) - frame).sum()) > 0
    assert np.array_equal(frame, np.full(shape, 128, np.uint8))  # the input is not drawn on


@pytest.mark.parametrize(("width", "scale"), [(632, 0.88), (3992, 4.125)])
def test_a_long_file_name_is_shortened_before_the_verdict(width: int, scale: float) -> None:
    """The banner says why the throw is refused; a long file name must not push that
    out of the picture (it used to be cut from the end: "REROLL - die 2 is ...").
    ``width`` and ``scale`` are annotate's for a 640 x 640 and a 4000 x 3000 photo."""
    reading = FrameReading(
        FrameStatus.REROLL, "die 2 is unclear (pips and shape disagree)", (), 125.0
    )
    verdict = status_line(reading)
    title = "holiday_2024_game_night_at_grandmas_house_table_photo_0001.jpg"
    text, text_scale = banner_text(title, verdict, width, scale)
    assert text.endswith(": " + verdict), text
    assert text.startswith("holi") and "..." in text and text.count(".jpg") == 1
    thickness = max(1, round(text_scale * 2))
    assert cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, text_scale, thickness)[0][0] <= width
    # A name that fits is kept whole.
    assert banner_text("a.jpg", verdict, width * 2, scale) == (f"a.jpg: {verdict}", scale)


def test_a_die_at_the_top_edge_is_not_hidden_under_the_banner() -> None:
    """A die cut off at the top edge is the very die the verdict names ("die 1 is cut
    off at the frame edge"); a banner drawn over it hid it from whoever checks the
    picture. The banner goes across the bottom then, and labels stay clear of it."""
    frame = np.full((480, 640, 3), 128, np.uint8)
    box = ((320.0, 15.0), (50.0, 50.0), 0.0)  # runs on past the top edge
    die = DieReading(None, (320.0, 15.0), box, 0.9, "cut off at the frame edge")
    reading = FrameReading(FrameStatus.REROLL, "die 1 is cut off at the frame edge", (die,), 12.0)
    out = annotate(frame, reading, title="x.jpg")
    # inside the die's box, clear of its outline, the picture is as it was
    assert np.array_equal(out[0:34, 302:338], frame[0:34, 302:338])
    # the verdict is there all the same, in red, across the bottom
    b, g, r = (float(v) for v in out[-12:, :, :].reshape(-1, 3).mean(axis=0))
    assert r > g + 40 and r > b + 40, (b, g, r)
    # a die's label does not go under a banner across the bottom either
    ((_, _, _, y1),) = place_labels([(300, 400, 340, 440)], [(30, 20)], (480, 640), bottom=450)
    assert y1 <= 450
