"""What the 128x64 screen shows: one frozen value per kind of screen, drawn by pure functions.

The referee decides *what* to show (a :data:`Screen` value); :func:`render` decides
*how* (a mode "1" PIL image of :data:`table.service.ports.DISPLAY_SIZE`), and
:func:`render_text` gives the same content as a few lines of plain text for the
terminal stand-in display and the logs. Text is fitted to the width: the font
shrinks first, then the text is cut with "..", so nothing is drawn off-screen.
"""

from __future__ import annotations

import json
import math
import os
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from table.service.ports import DISPLAY_SIZE

WIDTH, HEIGHT = DISPLAY_SIZE

# ---------------------------------------------------------------------------
# Screens


@dataclass(frozen=True)
class Menu:
    """One step of the game menu: ``title`` (what is chosen) and the current ``item``."""

    title: str
    item: str
    index: int = 0  # position of ``item`` among the choices (0-based)
    count: int = 1
    hint: str = "HOLD next  ROLL ok"


@dataclass(frozen=True)
class Turn:
    """Whose turn it is and what to do now."""

    player: str
    header: str  # "round 2  throw 1/3"
    hint: str  # "roll, then press ROLL"
    info: str = ""  # "to beat: 42 P2" / "pot 4  pirate P2 x1"
    lives: int | None = None  # the player's lives, drawn as hearts
    standings: tuple[tuple[str, str], ...] = ()  # shown when there is no info and room


@dataclass(frozen=True)
class Reading:
    """The table waits for the dice to lie still and reads them."""

    player: str
    hint: str = "reading..."


@dataclass(frozen=True)
class Result:
    """A throw that was counted: the value big, the next step small."""

    player: str
    shown: str  # "63", "MEX!", "600", "44", a single die "5"
    header: str = ""
    hint: str = ""
    # what the throw did besides, by importance: "P1 is the pirate  pot +3 = 4"; the
    # value is drawn smaller to make room, and the parts past the width go
    note: str = ""


@dataclass(frozen=True)
class Refusal:
    """Something was not accepted: the reason, and what to do instead."""

    reason: str
    hint: str = ""
    title: str = "not counted"


@dataclass(frozen=True)
class Choose:
    """Pick one of a few things (31 recipient, tie-break counting, held die, end game)."""

    title: str
    item: str
    index: int = 0
    count: int = 1
    hint: str = "HOLD next  ROLL ok"
    note: str = ""  # below the title, left of the place in the list: "bid 2  took 1"


@dataclass(frozen=True)
class RoundEnd:
    """A round was scored: who lost what, and everyone's count."""

    title: str  # "round 2 over"
    lost: str  # "P2 loses 2"
    standings: tuple[tuple[str, str], ...]  # (name, "3") in seat order
    extra: str = ""  # "pot 4  pirate P1 x2": parts by importance; those past the width go
    hint: str = ""


@dataclass(frozen=True)
class GameEnd:
    """The game is over: who won and the final standings."""

    headline: str  # "P1 wins!" / "draw"
    standings: tuple[tuple[str, str], ...]
    hint: str = "any button: menu"
    detail: str = ""  # how the last round went, if there is room


@dataclass(frozen=True)
class Message:
    """A short note: a button that means nothing now, the camera, an error."""

    title: str
    text: str = ""
    hint: str = ""


@dataclass(frozen=True)
class Resumed:
    """A game was picked up again after a restart."""

    rules: str
    detail: str  # "round 3, P2 throw 1/3"
    hint: str = ""


Screen = Menu | Turn | Reading | Result | Refusal | Choose | RoundEnd | GameEnd | Message | Resumed


# ---------------------------------------------------------------------------
# Fonts and fitting

_SMALL = 10
_MEDIUM = 14
_LARGE = 20
_HUGE = 34
_FOOT = HEIGHT - _SMALL - 2  # the hint line's top


@lru_cache(maxsize=32)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except (OSError, TypeError, AttributeError):  # Pillow without FreeType
        return ImageFont.load_default()


# The built-in font draws ASCII only (every other letter is a box): names and words are
# drawn in their nearest ASCII letters ("Zoë" as "Zoe", "Jürgen" as "Jurgen").
_ASCII_FOR = str.maketrans(
    {
        "ß": "ss", "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe", "Ø": "O", "ø": "o",
        "Ł": "L", "ł": "l", "Đ": "D", "đ": "d", "Þ": "Th", "þ": "th", "ı": "i",
        "…": "...", "–": "-", "—": "-", "‘": "'", "’": "'", "“": '"', "”": '"',
    }
)  # fmt: skip


@lru_cache(maxsize=1024)
def drawable(text: str) -> str:
    """``text`` as the display's font can draw it: accents dropped, other letters
    spelled in ASCII, anything else (and control characters) as "?"."""
    if text.isascii() and text.isprintable():
        return text
    spread = unicodedata.normalize("NFKD", text.translate(_ASCII_FOR))
    return "".join(
        c if c.isascii() and c.isprintable() else "" if unicodedata.combining(c) else "?"
        for c in spread
    )


def single_spaced(name: str) -> str:
    """``name`` with each run of spaces one space and none at either end: the screens
    part a line's items at two spaces (``_first_parts``), so a name must hold none."""
    return " ".join(name.split())


# One-bit drawing lays text out without anti-aliasing, which makes it wider than
# the font's own bounding box says: measure exactly as it will be drawn.
_MEASURE = ImageDraw.Draw(Image.new("1", (1, 1), 0))


# The built-in font's space is 2 px wide up to size 10, not much more than the 1 px
# between two letters, so a number after a name ending in one ran into it: "P1 0" read
# as "P10", "HAL 9000 32" as "HAL 900032". A single space between two digits is drawn
# 1 px wider (3 px: 2 px more spoils lines that fit now); every other space as the font
# has it.
_WIDER_SPACE = {8: 1, 9: 1, 10: 1}
_BETWEEN_DIGITS = re.compile(r"(?<=[0-9]) (?=[0-9])")


@lru_cache(maxsize=4096)
def _runs(text: str, size: int) -> tuple[tuple[int, str], ...]:
    """``text`` (as drawable) in the runs it is drawn as, each with its x offset: one run
    unless it has a space to widen."""
    shown = drawable(text)
    extra = _WIDER_SPACE.get(size, 0)
    cuts = [m.start() for m in _BETWEEN_DIGITS.finditer(shown)] if extra else []
    if not cuts:
        return ((0, shown),)
    font = _font(size)
    runs: list[tuple[int, str]] = []
    start, x = 0, 0.0
    for cut in [*cuts, len(shown)]:
        run = shown[start:cut]
        runs.append((round(x), run))
        # the run, its space and the extra room; kerning across a space is nothing
        x += _MEASURE.textlength(run + " ", font=font) + extra
        start = cut + 1
    return tuple(runs)


def _bbox(text: str, size: int) -> tuple[int, int, int, int]:
    if not text:
        return (0, 0, 0, size)
    font = _font(size)
    boxes = [_MEASURE.textbbox((x, 0), run, font=font) for x, run in _runs(text, size)]
    left, top = min(b[0] for b in boxes), min(b[1] for b in boxes)
    right, bottom = max(b[2] for b in boxes), max(b[3] for b in boxes)
    return int(left), int(top), int(math.ceil(right)), int(math.ceil(bottom))


def _width(text: str, size: int) -> int:
    return _bbox(text, size)[2]


@lru_cache(maxsize=32)
def _line_metrics(size: int) -> tuple[int, int]:
    """(top offset, height) of a line of text at ``size``: same baseline for every text."""
    _left, top, _right, bottom = _bbox("AdgjlM!|()[]", size)
    return top, bottom - top


def _fit(text: str, sizes: tuple[int, ...], width: int) -> tuple[str, int]:
    """The largest size of ``sizes`` at which ``text`` fits ``width``; else cut it."""
    for size in sizes:
        if _width(text, size) <= width:
            return text, size
    size = sizes[-1]
    # No glyph is under a pixel wide: what fits is within the first ``width`` characters
    # (cutting one at a time from the whole of a 5000-character text took half a minute).
    cut = text[:width]
    while cut and _width(cut + "..", size) > width:
        cut = cut[:-1]
    return (cut + ".." if cut else ""), size


class _Canvas:
    """Draws text lines into a region; every call keeps inside the screen."""

    def __init__(self, image: Image.Image, ox: int, oy: int) -> None:
        self.image = image
        self.draw = ImageDraw.Draw(image)
        self.ox = ox
        self.oy = oy
        self.lost: list[str] = []  # texts that had to be cut or left out
        self.whole: list[str] = []  # texts drawn whole

    def text(
        self,
        y: int,
        text: str,
        sizes: tuple[int, ...] = (_SMALL,),
        center: bool = False,
        x: int = 0,
        width: int = WIDTH,
        of: str | None = None,
    ) -> int:
        """Draw ``text`` with its top at ``y``; return the y below it. ``of``: the text
        that ``text`` shortens (a name cut to be told from another), said lost for it."""
        width = min(width, WIDTH - x)
        fitted, size = _fit(text, sizes, width)
        said = text if of is None else of  # what the lost and whole lists speak of
        if fitted != said:
            self.lost.append(said)
        left, _top, right, _bottom = _bbox(fitted, size)
        top, height = _line_metrics(size)
        if y + height > HEIGHT:
            if said:
                self.lost.append(said)
            return y
        if fitted:
            tx = (width - (right - left)) // 2 - left if center else -left
            self._clipped(x, y, width, height, (tx, -top), fitted, size, 1)
            if fitted == said:
                self.whole.append(said)
        return y + height + 1

    def _clipped(
        self,
        x: int,
        y: int,
        width: int,
        height: int,
        at: tuple[int, int],
        text: str,
        size: int,
        fill: int,
    ) -> None:
        """Draw ``text`` clipped to the box (x, y, width, height) of the screen."""
        x0, y0 = max(0, x), max(0, y)
        x1, y1 = min(WIDTH, x + width), min(HEIGHT, y + height)
        if x1 <= x0 or y1 <= y0:
            return
        tile = Image.new("1", (x1 - x0, y1 - y0), 0)
        pen = ImageDraw.Draw(tile)
        font = _font(size)
        for dx, run in _runs(text, size):
            pen.text((at[0] + x - x0 + dx, at[1] + y - y0), run, font=font, fill=1)
        colour = Image.new("1", tile.size, fill)
        self.image.paste(colour, (self.ox + x0, self.oy + y0), tile)

    def invert_band(self, y0: int, y1: int) -> None:
        """Draw a filled band (for the title of a menu)."""
        y0, y1 = max(0, y0), min(HEIGHT - 1, y1)
        self.draw.rectangle((self.ox, self.oy + y0, self.ox + WIDTH - 1, self.oy + y1), fill=1)

    def text_inverted(self, y: int, text: str, size: int = _SMALL) -> None:
        fitted, size = _fit(text, (size,), WIDTH - 4)
        if fitted != text:
            self.lost.append(text)
        left = _bbox(fitted, size)[0]
        top, height = _line_metrics(size)
        self._clipped(2, y, WIDTH - 4, height, (-left, -top), fitted, size, 0)


_LINE = _SMALL + 1  # pitch of the standings' lines


_GAP = 8  # between the parts of a line: the font's space is too narrow to part them


def _first_parts(text: str, sizes: tuple[int, ...] = (_SMALL, 9)) -> tuple[list[str], int]:
    """As many of the text's parts (joined by two spaces, most important first) as fit
    the width with a gap between them, at the largest size of ``sizes`` that takes the
    most of them."""
    parts = [p for p in text.split("  ") if p]
    for k in range(len(parts), 1, -1):
        for size in sizes:
            # as _parts lays them out: each but the last takes its width, 1 px and the gap
            if sum(_width(p, size) for p in parts[:k]) + (_GAP + 1) * (k - 1) <= WIDTH:
                return parts[:k], size
    return parts[:1], sizes[0]


def _parts(c: _Canvas, y: int, text: str, center: bool = False) -> int:
    """The most important parts of ``text`` that fit one line, a gap between them."""
    parts, size = _first_parts(text)
    if not parts:
        return y
    if len(parts) == 1:
        return c.text(y, parts[0], (_SMALL, 9), center=center)
    widths = [_width(p, size) + 1 for p in parts]
    x = (WIDTH - sum(widths) - _GAP * (len(parts) - 1)) // 2 if center else 0
    below = y
    for part, w in zip(parts, widths, strict=True):
        below = c.text(y, part, (size,), x=x, width=w)
        x += w + _GAP
    return below


_VALUE_W3 = 22  # room for a value in one of three columns


def _name_gap(name: str) -> int:
    """The room between a name and its value in the standings: 2 px, or 5 px after a name
    ending in a digit, wider than a space between two digits, so that "CPU2" and "20"
    do not read as "CPU220" nor "HAL 9000" and "12" as one number."""
    return 5 if drawable(name)[-1:].isdigit() else 2


def _columns(rows: tuple[tuple[str, str], ...], room: int) -> int:
    """How many columns the standings need to fit ``room`` lines (0: they do not). Three
    columns only when every value and name fits a third's room ("12 pts" does not). One
    column is for two players, or for more when the usual columns would cut a name and
    the lines are there ("Charlotte +10" in half the width)."""
    n = len(rows)
    # a third of the width holds the value and, at the smallest size, the whole name
    narrow = all(
        _width(v, _SMALL) + 1 <= _VALUE_W3
        and _width(name, 8) <= WIDTH // 3 - 4 - _name_gap(name) - (_width(v, _SMALL) + 1)
        for name, v in rows
    )
    fits = [k for k in (1, 2, 3) if -(-n // k) <= room and (k < 3 or narrow)]
    usual = next((k for k in fits if k > 1 or n <= 2), 0)
    if usual and not _whole(rows, usual):
        return next((k for k in fits if _whole(rows, k)), usual)
    return usual


def _cells(rows: tuple[tuple[str, str], ...], columns: int) -> list[tuple[int, int, int, int]]:
    """Where each row goes in ``columns`` columns: (x, line, right edge, value's width)."""
    col_w = WIDTH // columns
    lines = -(-len(rows) // columns)
    out = []
    for i, (_name, value) in enumerate(rows):
        col, line = i // lines, i % lines
        x = col * col_w
        value_w = min(_VALUE_W3 if columns == 3 else col_w // 2, _width(value, _SMALL) + 1)
        right = x + col_w - (1 if col == columns - 1 else 6 if columns < 3 else 4)
        out.append((x, line, right, value_w))
    return out


def _whole(rows: tuple[tuple[str, str], ...], columns: int) -> bool:
    """Every name and value of the standings uncut in ``columns`` columns."""
    return all(
        _width(value, _SMALL) + 1 <= value_w
        and _width(name, 8) <= right - value_w - x - _name_gap(name)
        for (name, value), (x, _line, right, value_w) in zip(
            rows, _cells(rows, columns), strict=True
        )
    )


def _standings_fit(rows: tuple[tuple[str, str], ...], y: int, bottom: int = HEIGHT) -> bool:
    return not rows or _columns(rows, max(0, (bottom - y) // _LINE)) > 0


def _standings_whole(rows: tuple[tuple[str, str], ...], y: int, bottom: int = HEIGHT) -> bool:
    """The standings fit between ``y`` and ``bottom`` with no name or value cut."""
    columns = _columns(rows, max(0, (bottom - y) // _LINE))
    return not rows or (columns > 0 and _whole(rows, columns))


def _standings(c: _Canvas, y: int, rows: tuple[tuple[str, str], ...], bottom: int = HEIGHT) -> int:
    """Name/value pairs in up to three small columns; one squeezed line if no room."""
    if not rows:
        return y
    room = max(0, (bottom - y) // _LINE)
    columns = _columns(rows, room)
    if columns == 0:
        return c.text(y, "  ".join(f"{name} {v}" for name, v in rows), (_SMALL, 9, 8))
    cells = _cells(rows, columns)
    widths = [
        right - value_w - x - _name_gap(name)
        for (name, _v), (x, _l, right, value_w) in zip(rows, cells, strict=True)
    ]
    apart = _told_apart([name for name, _v in rows], widths, _NAME_SIZES)
    for i, ((name, value), w, (x, line, right, value_w)) in enumerate(
        zip(rows, widths, cells, strict=True)
    ):
        yy = y + line * _LINE
        c.text(yy, value, x=right - value_w, width=value_w)
        # whole, or cut as any text is; or cut to be told from another, and so not whole
        c.text(yy, apart.get(i, name), _NAME_SIZES, x=x, width=w, of=name)
    return y + -(-len(rows) // columns) * _LINE


_NAME_SIZES = (_SMALL, 9, 8)


def _told_apart(names: list[str], widths: list[int], sizes: tuple[int, ...]) -> dict[int, str]:
    """The names (by index) to draw otherwise than cut with ".." to their width: where
    two names would be cut alike ("Mohamm.." for Mohammed and Mohammad, which the config
    accepts as they differ within their first eight characters) each keeps, after the
    "..", the letters from where it differs from the other: "Moha..ed", "Moha..ad"."""
    shown = [_fit(n, sizes, w)[0] for n, w in zip(names, widths, strict=True)]
    out: dict[int, str] = {}
    for i, name in enumerate(names):
        if shown[i] == name:
            continue
        between = cut_apart(name, shown[i], names, _fits_in(widths[i], sizes[-1]))
        if between is not None:
            out[i] = between
    return out


def _fits_in(width: int, size: int) -> Callable[[str], bool]:
    return lambda text: _width(text, size) <= width


def cut_apart(name: str, cut: str, names: Iterable[str], fits: Callable[[str], bool]) -> str | None:
    """``name``, which ``cut`` ("Wilhelm..") shortens, cut so as to be told from the other
    ``names``, if ``cut`` could be one of them too ("Wilhelmina"): its first letters, "..",
    and as much as ``fits`` of it from where it differs from them ("Wilhel..one"; the
    whole of that first, then fewer first letters, then less of it, then followed by
    ".."), taking only a cut that no other name could be (``could_be``). Names are
    compared as the display spells them ("Æthel" is drawn "AEthel"). None if ``cut``
    already tells it apart or no such cut fits."""
    spelt = drawable(name)
    others = [drawable(m) for m in names if m != name]
    rivals = [m for m in others if could_be(drawable(cut), m)]
    if not rivals:
        return None
    at = max(len(os.path.commonprefix([spelt, r])) for r in rivals)
    for end in range(min(len(spelt), at + 40), at, -1):  # a line holds a few dozen letters
        tail = spelt[at:end] + ("" if end == len(spelt) else "..")
        for head in range(at - 1, 0, -1):
            text = spelt[:head].rstrip() + ".." + tail
            if fits(text) and not any(could_be(text, m) for m in others):
                return text
    return None


def could_be(text: str, name: str) -> bool:
    """Whether ``text`` as drawn could stand for ``name``: the same, or cut ("Wilhelm..",
    "Wil..one", "Wil..el.."): ``name`` begins with the part before "..", and ends with the
    part after it, or holds it further on when ".." follows it too. Spaces are left out:
    the display's space is hardly wider than the gap between two letters."""
    text, name = text.replace(" ", ""), name.replace(" ", "")
    if ".." not in text:
        return text == name
    head, _, rest = text.partition("..")
    if not name.startswith(head):
        return False
    after = name[len(head) :]
    if rest.endswith(".."):
        return rest[:-2] in after
    return after.endswith(rest)


_HEART = (".XX.XX.", "XXXXXXX", "XXXXXXX", ".XXXXX.", "..XXX..", "...X...")


def _hearts(c: _Canvas, right: int, y: int, lives: int) -> int:
    """Lives as hearts ending at ``right`` (a heart and a number above 6); the left x."""
    if lives > 6:
        text = str(lives)
        w = _width(text, _SMALL)
        c.text(y, text, x=right - w, width=w)
        return _heart(c, right - w - 9, y + 2) if right - w - 9 >= 0 else right - w
    x = right - 8 * lives
    for i in range(lives):
        _heart(c, x + 8 * i, y + 2)
    return x


def _heart(c: _Canvas, x: int, y: int) -> int:
    for dy, row in enumerate(_HEART):
        for dx, ch in enumerate(row):
            if ch == "X" and 0 <= x + dx < WIDTH and 0 <= y + dy < HEIGHT:
                c.draw.point((c.ox + x + dx, c.oy + y + dy), fill=1)
    return x


# ---------------------------------------------------------------------------
# Drawing


def _draw(screen: Screen, c: _Canvas) -> None:
    if isinstance(screen, Menu | Choose):
        c.invert_band(0, 11)
        c.text_inverted(1, screen.title)
        pos_w = 0
        if screen.count > 1:
            pos = f"{screen.index + 1}/{screen.count}"
            pos_w = _width(pos, _SMALL) + 1
            c.text(13, pos, x=WIDTH - pos_w, width=pos_w)
        if isinstance(screen, Choose) and screen.note:
            c.text(13, screen.note, (_SMALL, 9), width=WIDTH - pos_w - 4)
        c.text(24, screen.item, (_LARGE, _MEDIUM, _SMALL), center=True)
        c.text(_FOOT, screen.hint, center=True)
    elif isinstance(screen, Turn):
        c.text(0, screen.header, (_SMALL, 9))
        name_w = WIDTH
        if screen.lives is not None:
            name_w = max(40, _hearts(c, WIDTH - 1, 16, max(0, screen.lives)) - 2)
        c.text(12, screen.player, (_LARGE, _MEDIUM, _SMALL), center=True, width=name_w)
        c.text(36, screen.hint, center=True)
        if screen.info:  # its parts by importance: those past the width go
            _parts(c, _FOOT, screen.info)
        else:  # everyone's count if it fits on the line, else nothing
            for sep in ("  ", " "):
                line = sep.join(f"{n} {v}" for n, v in screen.standings)
                if _fit(line, (_SMALL, 9), WIDTH)[0] == line:
                    c.text(_FOOT, line, (_SMALL, 9))
                    break
    elif isinstance(screen, Reading):
        c.text(0, screen.player)
        c.text(22, screen.hint, (_LARGE, _MEDIUM, _SMALL), center=True)
    elif isinstance(screen, Result):
        # the corner ("throw 1/3") has up to half the line, the player what it leaves
        w = min(WIDTH // 2, _width(screen.header, _SMALL) + 1) if screen.header else 0
        c.text(0, screen.player, x=0, width=WIDTH - w - 4 if w else WIDTH)
        if screen.header:
            c.text(0, screen.header, x=WIDTH - w, width=w)
        if screen.note:
            c.text(12, screen.shown, (_LARGE, _MEDIUM), center=True)
            _parts(c, 36, screen.note, center=True)
        else:
            c.text(12, screen.shown, (_HUGE, _LARGE, _MEDIUM), center=True)
        c.text(_FOOT, screen.hint, center=True)
    elif isinstance(screen, Refusal):
        c.invert_band(0, 11)
        c.text_inverted(1, screen.title)
        _wrapped(c, 14, screen.reason, _FOOT)
        c.text(_FOOT, screen.hint, center=True)
    elif isinstance(screen, RoundEnd):
        both = f"{screen.title}  {screen.hint}"
        # the smallest size only where both are cut at the others ("next: Bartholomew")
        size = next((s for s in (_SMALL, 9) if _width(both, s) <= WIDTH), 8)
        # the hint (whose turn is next) has half the line, and what a short title leaves
        room = max(WIDTH // 2, WIDTH - _width(screen.title, size) - 4)
        hint_w = min(room, _width(screen.hint, size) + 1) if screen.hint else 0
        c.text(0, screen.title, (size,), width=WIDTH - hint_w - 4)
        if screen.hint:
            c.text(0, screen.hint, (size,), x=WIDTH - hint_w, width=hint_w)
        y = c.text(11, screen.lost, (_MEDIUM, _SMALL))
        rows = screen.standings
        # everyone's count before the extra line, every name whole if it can be, unless
        # it does not fit either way
        below = y + _line_metrics(_SMALL)[1] + 1  # under the extra line, at its largest
        keep = _standings_whole(rows, below) or not _standings_whole(rows, y)
        if keep and screen.extra and (_standings_fit(rows, below) or not _standings_fit(rows, y)):
            y = _parts(c, y, screen.extra)
        _standings(c, y, rows)
    elif isinstance(screen, GameEnd):
        rows = screen.standings
        y = c.text(0, screen.headline, _headline_sizes(screen.headline, rows), center=True)
        # every name whole, if the whole screen can hold them so, before detail and hint
        fit = _standings_whole if _standings_whole(rows, y) else _standings_fit
        if screen.detail and fit(rows, y + _LINE, _FOOT):
            y = c.text(y, screen.detail, (_SMALL, 9))
        if fit(rows, y, _FOOT):
            _standings(c, y, screen.standings, _FOOT)
            c.text(_FOOT, screen.hint, center=True)
        else:
            _standings(c, y, screen.standings)
    elif isinstance(screen, Message):
        c.invert_band(0, 11)
        c.text_inverted(1, screen.title)
        _wrapped(c, 14, screen.text, _FOOT)
        c.text(_FOOT, screen.hint, center=True)
    else:  # Resumed
        c.invert_band(0, 11)
        c.text_inverted(1, f"resumed: {screen.rules}")
        _wrapped(c, 15, screen.detail, _FOOT)
        c.text(_FOOT, screen.hint, center=True)


def _headline_sizes(headline: str, rows: tuple[tuple[str, str], ...]) -> tuple[int, ...]:
    """The sizes a game end's headline is drawn at: the largest that fits the width, or
    smaller when that is what leaves the room for every name of the standings whole."""
    sizes = (_LARGE, _MEDIUM, _SMALL)
    for i in range(len(sizes)):
        size = _fit(headline, sizes[i:], WIDTH)[1]
        if _standings_whole(rows, _line_metrics(size)[1] + 1):
            return sizes[i:]
    return sizes


def _wrap(text: str, size: int, width: int) -> list[str]:
    words = text.split()
    out: list[str] = []
    line = ""
    for word in words:
        candidate = f"{line} {word}" if line else word
        if _width(candidate, size) <= width or not line:
            line = candidate
        else:
            out.append(line)
            line = word
    if line:
        out.append(line)
    return out


def _wrapped(c: _Canvas, y: int, text: str, bottom: int) -> int:
    """``text`` over as many lines as fit between ``y`` and ``bottom``; smaller if needed."""
    sizes = (_SMALL, 9)
    for size in sizes:
        pitch = _line_metrics(size)[1] + 1
        room = max(1, (bottom - y) // pitch)
        lines = _wrap(text, size, WIDTH)
        if len(lines) <= room and all(_width(line, size) <= WIDTH for line in lines):
            break
    if len(lines) > room:
        lines = lines[: room - 1] + [" ".join(lines[room - 1 :])]
    for line in lines:
        y = c.text(y, line, (size,))
    return y


def _drawn(screen: Screen) -> _Canvas:
    """The canvas ``screen`` was drawn on, 128x64: its image and what fitted."""
    canvas = _Canvas(Image.new("1", DISPLAY_SIZE, 0), 0, 0)
    _draw(screen, canvas)
    return canvas


def render(screen: Screen) -> Image.Image:
    """The screen as a mode "1" image of 128x64 (white ink on black)."""
    return _drawn(screen).image


def overflow(screen: Screen) -> tuple[str, ...]:
    """The texts of ``screen`` that did not fit and were cut or left out."""
    return tuple(_drawn(screen).lost)


def shown_whole(screen: Screen) -> tuple[str, ...]:
    """The texts of ``screen`` that are drawn whole: a part of a line left out for want
    of room (a round end's extra) is neither here nor in ``overflow``."""
    return tuple(_drawn(screen).whole)


def render_padded(screen: Screen, margin: int) -> Image.Image:
    """The screen drawn in the middle of a larger canvas, to check nothing spills out."""
    image = Image.new("1", (WIDTH + 2 * margin, HEIGHT + 2 * margin), 0)
    _draw(screen, _Canvas(image, margin, margin))
    return image


def escaped(text: str) -> str:
    """``text`` on one line with nothing a terminal obeys: each control character (a line
    break, an ESC, a C1 control, U+2028) written as JSON writes it. Names come from game
    logs, which may hold anything; printed raw, a name's ESC sequence reached the terminal
    the table runs in and a line break in it split the screen's box."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in text)


def render_text(screen: Screen) -> str:
    """The screen's content as a few plain lines (terminal display, logs), each line
    ``escaped``."""
    if isinstance(screen, Menu | Choose):
        pos = f" ({screen.index + 1}/{screen.count})" if screen.count > 1 else ""
        note = [screen.note] if isinstance(screen, Choose) and screen.note else []
        lines = [f"[{screen.title}]{pos}", *note, f"  > {screen.item}", screen.hint]
    elif isinstance(screen, Turn):
        lives = "" if screen.lives is None else f"  lives {screen.lives}"
        lines = [screen.header, f"  {screen.player}{lives}", screen.hint, screen.info]
        lines.append(_standings_text(screen.standings))
    elif isinstance(screen, Reading):
        lines = [screen.player, screen.hint]
    elif isinstance(screen, Result):
        lines = [f"{screen.player}  {screen.header}".strip(), f"  {screen.shown}", screen.note]
        lines.append(screen.hint)
    elif isinstance(screen, Refusal):
        lines = [f"[{screen.title}]", screen.reason, screen.hint]
    elif isinstance(screen, RoundEnd):
        lines = [screen.title, screen.lost, screen.extra, _standings_text(screen.standings)]
        lines.append(screen.hint)
    elif isinstance(screen, GameEnd):
        lines = [screen.headline, screen.detail, _standings_text(screen.standings), screen.hint]
    elif isinstance(screen, Message):
        lines = [f"[{screen.title}]", screen.text, screen.hint]
    else:
        lines = [f"[resumed: {screen.rules}]", screen.detail, screen.hint]
    return "\n".join(escaped(line) for line in lines if line)


def _standings_text(rows: tuple[tuple[str, str], ...]) -> str:
    return "  ".join(f"{name} {value}" for name, value in rows)
