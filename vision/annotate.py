"""Draw what the reader saw onto a copy of the frame, for people to check by eye.

Each die gets its rotated box and its value (green), or ``?`` and the reason it
was not read (orange). A banner across the top gives the frame's verdict: ``OK``
and the values (green), or ``REROLL`` and why (red), and the time taken. Text
and lines scale with the image, so a 640 px photo and a 4000 px photo are both
legible.
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


def _put_label(
    canvas: Image, text: str, org: tuple[int, int], scale: float, colour: tuple[int, int, int]
) -> None:
    """Text on a filled box, kept inside the image; ``org`` is the box's bottom-left."""
    thick = _thickness(scale)
    (tw, th), base = cv2.getTextSize(text, _FONT, scale, thick)
    pad = max(2, round(th * 0.25))
    h, w = canvas.shape[:2]
    x = min(max(org[0], 0), max(w - tw - 2 * pad, 0))
    y = min(max(org[1], th + base + 2 * pad), h)
    cv2.rectangle(canvas, (x, y - th - base - 2 * pad), (x + tw + 2 * pad, y), colour, -1)
    ink = BLACK if sum(colour) > 350 else WHITE
    cv2.putText(canvas, text, (x + pad, y - base - pad), _FONT, scale, ink, thick, cv2.LINE_AA)


def die_label(die: DieReading) -> str:
    if die.value is not None:
        return str(die.value)
    return ascii_text(f"? {die.reason}" if die.reason else "?")


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

    for die in reading.dice:
        colour = GREEN if die.value is not None else ORANGE
        pts = np.round(cv2.boxPoints(die.box)).astype(np.int32)
        cv2.polylines(canvas, [pts], True, BLACK, line + 2, cv2.LINE_AA)
        cv2.polylines(canvas, [pts], True, colour, line, cv2.LINE_AA)
        label_scale = scale * (1.3 if die.value is not None else 0.8)
        left = int(pts[:, 0].min())
        top = int(pts[:, 1].min()) - line
        _put_label(canvas, die_label(die), (left, top), label_scale, colour)

    text = status_line(reading)
    if title:
        text = f"{ascii_text(title)}: {text}"
    banner_colour = GREEN if reading.is_ok else RED
    width = canvas.shape[1]
    text, text_scale = _fit(text, width - 8, scale * 1.1)
    (_, th), base = cv2.getTextSize(text, _FONT, text_scale, _thickness(text_scale))
    height = th + base + max(6, round(th * 0.6))
    overlay = canvas.copy()
    cv2.rectangle(overlay, (0, 0), (width, height), banner_colour, -1)
    cv2.addWeighted(overlay, 0.8, canvas, 0.2, 0, dst=canvas)
    ink = BLACK if sum(banner_colour) > 350 else WHITE
    cv2.putText(
        canvas,
        text,
        (4, height - base - max(3, round(th * 0.3))),
        _FONT,
        text_scale,
        ink,
        _thickness(text_scale),
        cv2.LINE_AA,
    )
    return canvas
