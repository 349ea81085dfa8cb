"""The annotated picture: every die's label beside it, covering no other label or die."""

from __future__ import annotations

import itertools
from typing import Any

import cv2
import numpy as np
import pytest

from vision.annotate import (
    _label_size,
    _place,
    annotate,
    ascii_text,
    banner_text,
    die_label,
    leader,
    place_labels,
    shorten_repeats,
    status_line,
)
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


def _refused_row(n: int, reason: str, y: float = 12.0) -> tuple[DieReading, ...]:
    return tuple(
        DieReading(None, (30.0 + 45 * i, y), ((30.0 + 45 * i, y), (36.0, 36.0), 0.0), 0.5, reason)
        for i in range(n)
    )


def _boxes(dice: tuple[DieReading, ...]) -> list[tuple[int, int, int, int]]:
    return [
        (int(d.center[0] - 18), int(d.center[1] - 18), int(d.center[0] + 18), int(d.center[1] + 18))
        for d in dice
    ]


def test_a_row_of_dice_cut_off_alike_gets_short_labels_that_do_not_pile_up() -> None:
    """Twelve dice cut off along the top edge, 45 px apart: twelve "die N: cut off at
    the frame edge" labels lay over each other, a pile no one could read. The first
    keeps the reason; the others that could not lie clear say only "die N"."""
    dice = _refused_row(12, "cut off at the frame edge")
    boxes = _boxes(dice)
    labels = [die_label(d, i) for i, d in enumerate(dice, start=1)]

    def placed() -> list[tuple[int, tuple[int, int, int, int]]]:
        return _place(boxes, [_label_size(t, 0.48) for t in labels], (480, 640), top=30)

    before = placed()
    assert any(cost > 0 for cost, _ in before)  # the pile
    assert shorten_repeats(dice, [cost for cost, _ in before], labels)
    assert labels[0] == "die 1: cut off at the frame edge"
    assert all(t == f"die {i}" or t == die_label(dice[i - 1], i) for i, t in enumerate(labels, 1))
    assert sum(t.startswith("die ") and ":" not in t for t in labels) >= 6
    after = [rect for _, rect in placed()]
    for a, b in itertools.combinations(after, 2):
        assert not _overlap(a, b), (a, b)


def test_a_label_set_away_from_its_die_is_joined_to_it_by_a_line() -> None:
    box = (100, 100, 140, 140)
    assert leader(box, (100, 76, 130, 98)) is None  # just above it
    assert leader(box, (142, 100, 170, 120)) is None  # just right of it
    assert leader(box, (100, 186, 130, 206)) == ((115, 140), (115, 186))  # far below
    assert leader(box, (10, 10, 40, 30)) == ((100, 100), (40, 30))  # far up and left


def test_only_a_repeated_reason_whose_label_cannot_lie_clear_is_shortened() -> None:
    dice = _refused_row(2, "touching another die") + _refused_row(1, "tilted", 300.0)
    labels = [die_label(d, i) for i, d in enumerate(dice, start=1)]
    assert not shorten_repeats(dice, [0, 0, 0], labels)  # all lie clear: all kept whole
    assert labels[1] == "die 2: touching another die"
    assert shorten_repeats(dice, [5, 5, 5], labels)  # only die 2 repeats an earlier reason
    assert labels == ["die 1: touching another die", "die 2", "die 3: tilted"]


def test_a_refused_die_is_labelled_with_its_number_in_the_verdict() -> None:
    box = ((50.0, 50.0), (30.0, 30.0), 0.0)
    assert die_label(DieReading(5, (50.0, 50.0), box, 0.99)) == "5"
    assert die_label(DieReading(None, (50.0, 50.0), box, 0.4, "tilted"), 2) == "die 2: tilted"
    assert die_label(DieReading(None, (50.0, 50.0), box, 0.4, "tilted")) == "tilted"
    assert die_label(DieReading(None, (50.0, 50.0), box, 0.4, ""), 1) == "die 1: ?"
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


# -- the banner's words, the labels' places, the colours drawn ---------------


def _frame(h: int = 480, w: int = 640) -> np.ndarray:
    return np.full((h, w, 3), 128, np.uint8)


def _square(value: int | None, x: float, y: float, size: float, reason: str = "") -> DieReading:
    return DieReading(value, (x, y), ((x, y), (size, size), 0.0), 0.9, reason)


def test_status_line_gives_the_verdict_the_values_or_reason_and_the_time() -> None:
    """The banner reads ``OK`` and the values, or ``REROLL -`` and why, then the time;
    if it did not, whoever checks the picture could not tell a counted throw from a
    refused one, or what to fix."""
    ok = FrameReading(FrameStatus.OK, "", (_square(3, 50, 50, 20), _square(6, 90, 50, 20)), 12.34)
    assert status_line(ok) == "OK 6 3  (12 ms)"
    refused = FrameReading(FrameStatus.REROLL, "die 2 is tilted", (), 40.0)
    assert status_line(refused) == "REROLL - die 2 is tilted  (40 ms)"
    assert status_line(FrameReading(FrameStatus.REROLL, "", (), 5.0)) == (
        "REROLL - no reason given  (5 ms)"
    )


def test_text_drawn_is_made_plain_for_the_font() -> None:
    """Dashes and quotes become plain ones and accents are dropped, keeping the letter;
    if they were not, the banner would show ``?`` in place of each such character."""
    reading = FrameReading(FrameStatus.REROLL, "dé 2 is “tilted” — retry", (), 3.0)
    assert status_line(reading) == 'REROLL - de 2 is "tilted" - retry  (3 ms)'
    assert ascii_text("Würfel–6’s") == "Wurfel-6's"
    assert ascii_text("骰子") == "??"


def test_a_lone_die_has_its_label_just_above_it() -> None:
    """With room all round, a label goes just above its die, left-aligned; if it went
    elsewhere, labels of a plain throw would sit in changing places around their dice."""
    assert place_labels([(100, 100, 140, 140)], [(20, 18)], (480, 640)) == [(100, 80, 120, 98)]


def test_a_label_does_not_cover_a_neighbours_label_even_clear_of_dice() -> None:
    """A label keeps off the labels already placed, not only off the dice; if it did not,
    two dice side by side would have their values drawn one over the other."""
    boxes = [(100, 100, 130, 130), (134, 102, 164, 132)]  # label 1 goes above die 1
    places = place_labels(boxes, [(40, 18), (40, 18)], (480, 640))
    assert not _overlap(places[0], places[1]), places
    for p in places:
        assert not any(_overlap(p, b) for b in boxes), places


def test_the_label_of_a_die_at_the_right_edge_stays_in_the_picture() -> None:
    """A die at the right edge gets its label inside the picture; if not, its value
    would be drawn past the edge, where nobody sees it."""
    ((x0, y0, x1, y1),) = place_labels([(280, 100, 320, 140)], [(80, 20)], (240, 320))
    assert x0 >= 0 and x1 <= 320 and y0 >= 0 and y1 <= 240


def test_a_title_that_leaves_no_room_is_left_out_whole() -> None:
    """When only the verdict fits, the banner is the verdict alone at full size; if it
    were not, it would start with a useless stub such as ``a...:`` in smaller text."""
    verdict = "OK 6  (1 ms)"
    scale = 1.0
    width = cv2.getTextSize(verdict, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)[0][0]
    title = "holiday_2024_game_night_at_grandmas_house_table_photo_0001.jpg"
    assert banner_text(title, verdict, width, scale) == (verdict, scale)


def test_annotate_gives_a_colour_picture_of_a_grey_frame() -> None:
    """A one-channel frame comes back as a colour picture; if it did not, the green and
    orange of the boxes and banner would all be drawn as shades of grey."""
    grey = np.full((240, 320), 128, np.uint8)
    reading = FrameReading(FrameStatus.OK, "", (_square(4, 160, 120, 40),), 8.0)
    out = annotate(grey, reading)
    assert out.shape == (240, 320, 3) and out.dtype == np.uint8
    b, g, r = (float(v) for v in out[5:12, :, :].reshape(-1, 3).mean(axis=0))
    assert g > r + 40 and g > b + 40, (b, g, r)


def test_a_read_die_is_outlined_in_green_and_a_refused_one_in_orange() -> None:
    """Read dice get a green box, refused dice an orange one; if not, the person
    checking could not see at a glance which die the verdict refused."""
    dice = (_square(5, 200, 240, 60), _square(None, 440, 240, 60, "tilted"))
    reading = FrameReading(FrameStatus.REROLL, "die 2 is tilted", dice, 9.0)
    out = annotate(_frame(), reading)
    # the middle of each box's left edge (x = cx - 30), away from labels and corners
    left_green = out[230:250, 170].astype(int)
    left_orange = out[230:250, 410].astype(int)
    assert any(int(g) > 150 and int(r) < 120 for _, g, r in left_green), left_green
    assert any(int(r) > 200 and int(b) < 80 for b, _, r in left_orange), left_orange


def test_a_refused_die_is_labelled_with_its_number_in_the_picture(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each refused die's label carries its number in the verdict (``die 2: tilted`` for
    "die 2 is tilted"); if not, with several dice the picture would not show which one
    the verdict means. It was ``?2 tilted``, and ``?1 unclear`` beside a die showing one
    pip read as "perhaps a 1"."""
    drawn = _drawn_labels(monkeypatch)
    dice = (_square(5, 200, 240, 60), _square(None, 440, 240, 60, "tilted"))
    annotate(_frame(), FrameReading(FrameStatus.REROLL, "die 2 is tilted", dice, 9.0))
    assert [text for text, _, _ in drawn] == ["5", "die 2: tilted"]


def test_the_banner_shows_its_text_in_a_contrasting_ink() -> None:
    """The banner's words are drawn in an ink that stands out from the banner, and the
    title is among them; if not, the banner would be a plain bar with nothing to read,
    or the same whatever photo it names."""
    reading = FrameReading(FrameStatus.REROLL, "die 1 is tilted", (), 9.0)
    titled = annotate(_frame(), reading, title="throw_0001.jpg")
    untitled = annotate(_frame(), reading)
    band = titled[0:20, :, :].reshape(-1, 3).astype(int)
    assert int((band.min(axis=1) > 200).sum()) > 50  # white strokes on the red
    assert not np.array_equal(titled[0:30], untitled[0:30])


def test_a_label_next_to_the_top_banner_goes_where_the_banner_leaves_it_visible() -> None:
    """A die just below the banner gets its label below it rather than under the
    banner; if not, the die's value would be hidden by the banner drawn over it."""
    reading = FrameReading(FrameStatus.OK, "", (_square(4, 320, 60, 40),), 9.0)
    out = annotate(_frame(), reading)
    below = out[84:100, 302:312].reshape(-1, 3).astype(int)
    assert int(((below[:, 1] > 150) & (below[:, 2] < 120)).sum()) > 20, below


def _drawn_labels(
    monkeypatch: pytest.MonkeyPatch,
) -> list[tuple[str, tuple[int, int, int, int], float]]:
    """Each label ``annotate`` draws from now on: its text, filled box and font scale."""
    import vision.annotate as drawing

    drawn: list[tuple[str, tuple[int, int, int, int], float]] = []
    put = drawing._put_label

    def recording(
        canvas: np.ndarray,
        text: str,
        rect: tuple[int, int, int, int],
        scale: float,
        colour: tuple[int, int, int],
    ) -> None:
        drawn.append((text, rect, scale))
        put(canvas, text, rect, scale, colour)

    monkeypatch.setattr(drawing, "_put_label", recording)
    return drawn


@pytest.mark.parametrize("text", ["5", "die 2: tilted", "die 12: cut off at the frame edge"])
@pytest.mark.parametrize("scale", [0.35, 0.78, 4.875])
def test_a_labels_words_lie_inside_its_filled_box(text: str, scale: float) -> None:
    """A label's words are drawn within the box filled behind them, tall letters and
    descenders included; if not, their tops or their ends would stand on the photo,
    where on a busy tray they cannot be read."""
    from vision.annotate import ORANGE, _put_label

    w, h = _label_size(text, scale)
    canvas = np.full((h + 200, w + 200, 3), 128, np.uint8)
    rect = (100, 100, 100 + w, 100 + h)
    _put_label(canvas, text, rect, scale, ORANGE)
    ys, xs = np.nonzero((canvas != 128).any(axis=2))
    assert xs.min() >= 100 and xs.max() <= 100 + w and ys.min() >= 100 and ys.max() <= 100 + h
    inside = canvas[100 : 100 + h + 1, 100 : 100 + w + 1].reshape(-1, 3)
    assert int((inside != ORANGE).any(axis=1).sum()) > 0  # the words, in their ink


def test_a_value_is_drawn_larger_than_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """A die's value is drawn in larger letters than the reason a die was not read; if
    not, the values, what a glance at the picture is for, would be the small print."""
    drawn = _drawn_labels(monkeypatch)
    dice = (_square(5, 200, 240, 60), _square(None, 440, 240, 60, "tilted"))
    annotate(_frame(), FrameReading(FrameStatus.REROLL, "die 2 is tilted", dice, 9.0))
    (value, value_rect, value_scale), (reason, reason_rect, reason_scale) = drawn
    assert (value, reason) == ("5", "die 2: tilted")
    assert value_scale > reason_scale * 1.5
    assert value_rect[3] - value_rect[1] > reason_rect[3] - reason_rect[1]


def test_the_value_of_a_small_die_is_no_taller_than_the_die(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Small dice lie close together: a value in letters taller than its die would cover
    the dice beside it. The label of an 18 px die is at most 18 px high."""
    drawn = _drawn_labels(monkeypatch)
    dice = (_square(3, 300, 240, 18), _square(4, 322, 240, 18))
    annotate(_frame(), FrameReading(FrameStatus.OK, "", dice, 9.0))
    assert [text for text, _, _ in drawn] == ["3", "4"]
    for _, (_, y0, _, y1), _ in drawn:
        assert y1 - y0 <= 18, drawn


def test_a_row_of_dice_cut_off_alike_is_drawn_with_labels_clear_of_each_other(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In the picture itself, the labels of twelve dice cut off alike along the top edge
    are placed again once shortened to ``die N``: no filled label box lies over another.
    If they kept the places the long labels had, the pile would still hide them."""
    drawn = _drawn_labels(monkeypatch)
    dice = _refused_row(12, "cut off at the frame edge")
    reading = FrameReading(FrameStatus.REROLL, "die 1 is cut off at the frame edge", dice, 12.0)
    annotate(_frame(), reading)
    assert drawn[0][0] == "die 1: cut off at the frame edge"
    assert sum(text.startswith("die ") and ":" not in text for text, _, _ in drawn) >= 6
    for (_, a, _), (_, b, _) in itertools.combinations(drawn, 2):
        assert not _overlap(a, b), (a, b)


def _banner_text_drawn(
    monkeypatch: pytest.MonkeyPatch, frame: np.ndarray, reading: FrameReading
) -> tuple[str, tuple[int, int], float, int]:
    """The banner's words as ``annotate`` draws them: text, origin, scale, thickness."""
    import vision.annotate as drawing

    calls: list[tuple[str, tuple[int, int], float, int]] = []
    put_text = cv2.putText

    def recording(img: np.ndarray, text: str, org: tuple[int, int], *args: Any) -> Any:
        _font, scale, _ink, thickness = args[:4]
        calls.append((text, org, float(scale), int(thickness)))
        return put_text(img, text, org, *args)

    monkeypatch.setattr(drawing.cv2, "putText", recording)
    annotate(frame, reading)
    return calls[-1]  # the banner is drawn last, over the labels


def test_the_whole_verdict_fits_across_the_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long reason is fitted into the banner: its words end inside the picture. If they
    ran past the right edge, the end of why the throw was refused would be lost."""
    reason = "die 2 is unclear (pips and shape disagree), die 1 is touching another die"
    reading = FrameReading(FrameStatus.REROLL, reason, (), 125.0)
    frame = _frame(240, 320)
    text, (x, _), scale, thickness = _banner_text_drawn(monkeypatch, frame, reading)
    width = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)[0][0]
    assert x >= 0 and x + width <= 320, (text, scale)
    assert text.startswith("REROLL - die 2")


@pytest.mark.parametrize(("shape", "tall"), [((480, 640, 3), 15), ((3000, 4000, 3), 90)])
def test_the_banner_words_grow_with_the_picture(
    monkeypatch: pytest.MonkeyPatch, shape: tuple[int, int, int], tall: int
) -> None:
    """The banner's capitals are some 18 px high on a 480 px photo and six times that on a
    3000 px one; if they were much smaller, the verdict could not be read at a glance."""
    reading = FrameReading(FrameStatus.OK, "", (_square(4, 100, 300, 40),), 9.0)
    frame = np.full(shape, 128, np.uint8)
    text, _, scale, thickness = _banner_text_drawn(monkeypatch, frame, reading)
    assert text == "OK 4  (9 ms)"
    (_, height), _ = cv2.getTextSize("OK", cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
    assert height >= tall, (scale, height)


def _luminance(bgr: Any) -> float:
    """Relative luminance of an sRGB colour given as B, G, R (WCAG 2)."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in bgr / 255.0]
    return 0.0722 * lin[0] + 0.7152 * lin[1] + 0.2126 * lin[2]


@pytest.mark.parametrize("fill", ["GREEN", "ORANGE", "RED"])
def test_a_labels_words_stand_out_from_its_fill(fill: str) -> None:
    """The words on a value's green label and a reason's orange one (and on a label of
    the banner's red) stand out from their fill by a contrast of at least 4.5:1 (WCAG's
    for small text): white on the green was 2.2:1, hard to read at arm's length."""
    import vision.annotate as drawing

    colour = getattr(drawing, fill)
    w, h = _label_size("die 2: tilted", 1.5)
    canvas = np.zeros((h + 1, w + 1, 3), np.uint8)
    drawing._put_label(canvas, "die 2: tilted", (0, 0, w, h), 1.5, colour)
    pixels = canvas.reshape(-1, 3).astype(float)
    far = np.abs(pixels - np.array(colour, float)).sum(axis=1)
    ink = pixels[int(np.argmax(far))]  # the words' core, in their ink
    lighter, darker = sorted((_luminance(ink), _luminance(np.array(colour, float))))[::-1]
    assert (lighter + 0.05) / (darker + 0.05) >= 4.5, (fill, ink)


@pytest.mark.parametrize("ok", [True, False])
def test_the_banners_words_stand_out_from_it(ok: bool) -> None:
    """The verdict on the banner, green over an ok throw and red over a refused one,
    stands out from the banner by a contrast of at least 4.5:1."""
    dice = (_square(5, 200, 300, 60),) if ok else (_square(None, 200, 300, 60, "tilted"),)
    status = FrameStatus.OK if ok else FrameStatus.REROLL
    reading = FrameReading(status, "" if ok else "die 1 is tilted", dice, 9.0)
    out = annotate(_frame(), reading)
    band = out[:12].reshape(-1, 3).astype(float)  # the banner's top rows, above the words
    fill = np.median(band, axis=0)
    rows = out[:40].reshape(-1, 3).astype(float)
    ink = rows[int(np.argmax(np.abs(rows - fill).sum(axis=1)))]
    lighter, darker = sorted((_luminance(ink), _luminance(fill)))[::-1]
    assert (lighter + 0.05) / (darker + 0.05) >= 4.5, (ok, fill, ink)
