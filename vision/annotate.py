"""Draw what the reader saw onto a copy of the frame, for people to check by eye.

Each die gets its rotated box and its value (green), or its number as the verdict counts
it and the reason it was not read (orange: ``die 2: tilted`` for "die 2 is tilted"; not
``?2``, which could be taken for "perhaps a 2"). Labels go beside their dice where they
cover no other label and no die (``place_labels``). A banner across the top gives the
frame's verdict: ``OK`` and the values (green), or ``REROLL`` and why (red), and the
time taken; across the bottom when it would cover more of the dice at the top (a die cut
off at the top edge is the one such a verdict names). Text and lines scale with the
image, so a 640 px photo and a 4000 px photo are both legible.
"""

from __future__ import annotations

import unicodedata

import cv2
import numpy as np
import numpy.typing as npt

from vision.types import DieReading, FrameReading, FrameStatus

Image = npt.NDArray[np.uint8]

GREEN = (60, 200, 60)
ORANGE = (0, 150, 255)
RED = (40, 40, 220)
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)

_FONT = cv2.FONT_HERSHEY_SIMPLEX


def ascii_text(text: str) -> str:
    """What OpenCV's fonts can draw: dashes and quotes made plain, accents dropped."""
    for fancy, plain in (("—", "-"), ("–", "-"), ("’", "'"), ("‘", "'"), ("“", '"'), ("”", '"')):
        text = text.replace(fancy, plain)
    text = unicodedata.normalize("NFKD", text)
    return "".join(
        c if 32 <= ord(c) < 127 else ("" if unicodedata.combining(c) else "?") for c in text
    )


def _scale(image: Image) -> float:
    """Font scale: 0.6 (text about 13 px high) at 480 px, growing with the shorter side."""
    return max(0.4, float(min(image.shape[:2])) / 800.0)


def _thickness(scale: float) -> int:
    return max(1, round(scale * 2))


Rect = tuple[int, int, int, int]  # x0, y0, x1, y1


def _label_metrics(text: str, scale: float) -> tuple[int, int, int, int]:
    """A label's text width, text height, baseline and padding, in pixels."""
    (tw, th), base = cv2.getTextSize(text, _FONT, scale, _thickness(scale))
    return tw, th, base, max(2, round(th * 0.25))


def _label_size(text: str, scale: float) -> tuple[int, int]:
    """Width and height of a label's filled box."""
    tw, th, base, pad = _label_metrics(text, scale)
    return tw + 2 * pad, th + base + 2 * pad


def _put_label(
    canvas: Image, text: str, rect: Rect, scale: float, colour: tuple[int, int, int]
) -> None:
    """Text on a filled box at ``rect`` (from ``place_labels``)."""
    _tw, _th, base, pad = _label_metrics(text, scale)
    x0, y0, x1, y1 = rect
    cv2.rectangle(canvas, (x0, y0), (x1, y1), colour, -1)
    ink = _ink(colour)
    cv2.putText(
        canvas, text, (x0 + pad, y1 - base - pad), _FONT, scale, ink, _thickness(scale), cv2.LINE_AA
    )


def _ink(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    """Black or white, whichever stands out more from ``colour`` (BGR) by the contrast
    ratio of WCAG 2: black on the green of a value (9.5:1; white was 2.2:1, hard to read),
    white on the red banner."""
    lin = [(c / 255) / 12.92 if c <= 10 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in colour]
    lum = 0.0722 * lin[0] + 0.7152 * lin[1] + 0.2126 * lin[2]
    return BLACK if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else WHITE


def _overlap(a: Rect, b: Rect) -> int:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0


def place_labels(
    boxes: list[Rect],
    sizes: list[tuple[int, int]],
    shape: tuple[int, int],
    top: int = 0,
    bottom: int | None = None,
) -> list[Rect]:
    """Where each die's label goes: beside its own box (above, below, right or left, in
    that order of preference; one to three label heights farther below or above where
    each of those covers another label), inside the image between ``top`` and ``bottom`` (clear of
    the banner), and where it covers no other label and no die; failing that, where it
    covers the least. In a cluster of small dice, labels drawn all above their dice would
    hide each other and the dice next to them."""
    return [rect for _cost, rect in _place(boxes, sizes, shape, top, bottom)]


def _place(
    boxes: list[Rect],
    sizes: list[tuple[int, int]],
    shape: tuple[int, int],
    top: int = 0,
    bottom: int | None = None,
) -> list[tuple[int, Rect]]:
    """``place_labels``, each place with what it covers (0: nothing)."""
    h, w = shape
    floor = h if bottom is None else max(min(bottom, h), top)
    placed: list[Rect] = []
    costs: list[int] = []
    for (x0, y0, x1, y1), (lw, lh) in zip(boxes, sizes, strict=True):
        gap = 2
        near = [
            (x0, y0 - gap - lh),  # above, left-aligned
            (x0, y1 + gap),  # below
            (x1 + gap, y0),  # right
            (x0 - gap - lw, y0),  # left
            (x1 - lw, y0 - gap - lh),  # above, right-aligned
            (x1 - lw, y1 + gap),  # below, right-aligned
        ]
        # past the labels of a row of dice: farther below, then above
        far = [(x0, y1 + gap + k * lh) for k in (1, 2, 3)]
        far += [(x0, y0 - gap - (k + 1) * lh) for k in (1, 2, 3)]
        best: tuple[int, int, Rect] | None = None  # the first of the least covering
        for i, (cx, cy) in enumerate(near + far):
            if i == len(near) and best is not None and best[1] == 0:
                break  # beside its die, over no other label: no farther
            cx = min(max(cx, 0), max(w - lw, 0))
            cy = min(max(cy, top), max(floor - lh, top))
            r = (cx, cy, cx + lw, cy + lh)
            on_labels = sum(_overlap(r, o) for o in placed)
            cost = on_labels * 4 + sum(_overlap(r, b) for b in boxes)
            if best is None or cost < best[0]:
                best = (cost, on_labels, r)
            if cost == 0:
                break
        assert best is not None
        costs.append(best[0])
        placed.append(best[2])
    return list(zip(costs, placed, strict=True))


def _facing(a0: int, a1: int, b0: int, b1: int) -> tuple[int, int]:
    """Along one axis, the nearest coordinates of spans [a0, a1] and [b0, b1]: the middle
    of their common part where they share one."""
    if a1 < b0:
        return a1, b0
    if b1 < a0:
        return a0, b1
    mid = (max(a0, b0) + min(a1, b1)) // 2
    return mid, mid


def leader(
    box: Rect, label: Rect, reach: int = 4
) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """A line from a die's box to its label, where the label lies farther than ``reach``
    from it (set past a row of other labels), else None."""
    ax, bx = _facing(box[0], box[2], label[0], label[2])
    ay, by = _facing(box[1], box[3], label[1], label[3])
    if max(abs(bx - ax), abs(by - ay)) <= reach:
        return None
    return (ax, ay), (bx, by)


def die_label(die: DieReading, number: int | None = None) -> str:
    """The value of a die read; for one not read, its number as the verdict counts it
    ("die 2 is tilted") and the reason: ``die 2: tilted``, with ``?`` for what is not
    known. A number beside a die that is not its value always follows "die"."""
    if die.value is not None:
        return str(die.value)
    reason = die.reason or "?"
    return ascii_text(reason if number is None else f"die {number}: {reason}")


def shorten_repeats(dice: tuple[DieReading, ...], costs: list[int], labels: list[str]) -> bool:
    """Shorten, in ``labels``, the labels of dice not read that repeat an earlier die's
    reason, ``die 4``, where some label of that reason covers another label or a die
    (``costs``). A row of dice cut off at the frame's edge gave a pile of "cut off at the
    frame edge" labels over each other that no one could read; the first keeps the
    reason. Whether any was shortened."""
    crowded = {d.reason for d, cost in zip(dice, costs, strict=True) if d.value is None and cost}
    said: set[str] = set()
    short = False
    for i, die in enumerate(dice):
        if die.value is not None:
            continue
        if die.reason in said and die.reason in crowded:
            labels[i] = f"die {i + 1}"
            short = True
        said.add(die.reason)
    return short


def status_line(reading: FrameReading) -> str:
    """The banner text, e.g. ``OK 6 3  (12 ms)`` or ``REROLL - die 2 is tilted  (40 ms)``."""
    if reading.status is FrameStatus.OK:
        head = "OK " + " ".join(str(v) for v in reading.values)
    else:
        head = f"{reading.status.value.upper()} - {reading.reason or 'no reason given'}"
    return ascii_text(f"{head}  ({reading.ms:.0f} ms)")


def _fit(text: str, width: int, scale: float) -> tuple[str, float]:
    """Shrink the font (down to 60 %) and then cut the text so it fits ``width``."""
    min_scale = scale * 0.6
    while scale > min_scale:
        if cv2.getTextSize(text, _FONT, scale, _thickness(scale))[0][0] <= width:
            return text, scale
        scale *= 0.9
    while len(text) > 4:
        if cv2.getTextSize(text, _FONT, scale, _thickness(scale))[0][0] <= width:
            break
        text = text[:-4] + "..."
    return text, scale


def banner_text(title: str, verdict: str, width: int, scale: float) -> tuple[str, float]:
    """The banner's text ``title: verdict`` and its font scale, fitting ``width``. The
    title (a file name) loses characters from its middle, down to none, before the
    verdict loses any: the verdict is what the picture is for."""
    if not title:
        return _fit(verdict, width, scale)
    keep = len(title)
    name = title
    while True:
        full = f"{name}: {verdict}"
        text, fitted = _fit(full, width, scale)
        if text == full:
            return text, fitted
        if keep <= 8:
            return _fit(verdict, width, scale)
        keep -= max(1, keep // 10)
        head = (keep + 1) // 2
        name = title[:head] + "..." + title[len(title) - (keep - head) :]


def annotate(image_bgr: Image, reading: FrameReading, *, title: str | None = None) -> Image:
    """A copy of ``image_bgr`` with the dice boxes, their values and the verdict drawn on.

    ``title`` (e.g. the file name) goes at the start of the banner.
    """
    if image_bgr.ndim == 2:
        canvas: Image = np.asarray(cv2.cvtColor(image_bgr, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
    else:
        canvas = np.ascontiguousarray(image_bgr.copy())
    scale = _scale(canvas)
    line = max(1, round(scale * 3))

    banner_colour = GREEN if reading.is_ok else RED
    width = canvas.shape[1]
    verdict = status_line(reading)
    text, text_scale = banner_text(ascii_text(title or ""), verdict, width - 8, scale * 1.1)
    (_, th), base = cv2.getTextSize(text, _FONT, text_scale, _thickness(text_scale))
    height = th + base + max(6, round(th * 0.6))

    corners = [np.round(cv2.boxPoints(d.box)).astype(np.int32) for d in reading.dice]
    boxes: list[Rect] = [
        (int(p[:, 0].min()), int(p[:, 1].min()), int(p[:, 0].max()), int(p[:, 1].max()))
        for p in corners
    ]
    rows = canvas.shape[0]
    top_band: Rect = (0, 0, width, height)
    bottom_band: Rect = (0, rows - height, width, rows)
    at_top = sum(_overlap(b, top_band) for b in boxes) <= sum(
        _overlap(b, bottom_band) for b in boxes
    )
    y0 = 0 if at_top else rows - height
    labels = [die_label(d, i) for i, d in enumerate(reading.dice, start=1)]
    # A value no taller than its die (small dice lie close together), reasons smaller.
    scales = [
        min(scale * (1.3 if d.value is not None else 0.8), max(0.35, (b[3] - b[1]) / 55.0))
        for d, b in zip(reading.dice, boxes, strict=True)
    ]
    clear = (height, rows) if at_top else (0, rows - height)  # the rows the banner leaves

    def placed() -> list[tuple[int, Rect]]:
        sizes = [_label_size(t, sc) for t, sc in zip(labels, scales, strict=True)]
        return _place(boxes, sizes, (rows, width), top=clear[0], bottom=clear[1])

    places = placed()
    if shorten_repeats(reading.dice, [cost for cost, _ in places], labels):
        places = placed()
    colours = [GREEN if d.value is not None else ORANGE for d in reading.dice]
    for colour, pts in zip(colours, corners, strict=True):
        cv2.polylines(canvas, [pts], True, BLACK, line + 2, cv2.LINE_AA)
        cv2.polylines(canvas, [pts], True, colour, line, cv2.LINE_AA)
    for colour, box, (_, rect) in zip(colours, boxes, places, strict=True):
        line_ends = leader(box, rect)
        if line_ends is not None:
            cv2.line(canvas, *line_ends, BLACK, line + 2, cv2.LINE_AA)
            cv2.line(canvas, *line_ends, colour, line, cv2.LINE_AA)
    for colour, text_, sc, (_, rect) in zip(colours, labels, scales, places, strict=True):
        _put_label(canvas, text_, rect, sc, colour)
    # Only the banner's rows are blended: a copy of the whole picture cost a 56 MP
    # photo 170 MB more.
    band = canvas[max(0, y0) : y0 + height + 1]  # as cv2.rectangle filled it: both ends
    overlay = np.empty_like(band)
    overlay[:] = banner_colour
    cv2.addWeighted(overlay, 0.8, band, 0.2, 0, dst=band)
    ink = _ink(banner_colour)
    cv2.putText(
        canvas,
        text,
        (4, y0 + height - base - max(3, round(th * 0.3))),
        _FONT,
        text_scale,
        ink,
        _thickness(text_scale),
        cv2.LINE_AA,
    )
    return canvas
