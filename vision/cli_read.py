"""``dicetable read IMAGE... [--json] [--expect N] [--annotate DIR]``: read dice in photos.

One line per image, in the order given (a folder stands for the photos in it).
With ``--json`` each line is a JSON object::

    {"file": ..., "status": "ok" | "reroll" | "error", "reason": ...,
     "dice": [{"value", "center": [x, y], "box", "confidence"}], "ms": ...}

Exit status: 0 when every image was read, 1 when any could not be (its line
says why, the others still go), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

import cv2

from vision.annotate import annotate
from vision.settle import FrameReader
from vision.sources import (
    IMAGE_SUFFIXES,
    CameraError,
    damage_said,
    list_images,
    load_image,
    quiet_opencv,
    real_path,
)
from vision.streams import send_nowhere
from vision.types import FrameReading

# What a video file given for a photo is called by ("not an image OpenCV can read" said
# nothing of why).
VIDEO_SUFFIXES = frozenset({".mp4", ".m4v", ".mov", ".avi", ".mkv", ".webm", ".h264", ".mjpeg"})


def _count(text: str) -> int:
    # Plain digits only: int() also takes "2_0" (20), "+3" and other scripts' digits.
    digits = text.strip()
    if not (digits.isascii() and digits.isdigit()):
        raise argparse.ArgumentTypeError(f"not a number of dice: {text!r}")
    n = int(digits)
    if not 1 <= n <= 50:
        raise argparse.ArgumentTypeError(f"number of dice must be 1 to 50, not {n}")
    return n


def _folder(text: str) -> Path:
    """A folder argument; an empty one (an unset shell variable) is no folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path is no folder")
    return Path(text)


EXIT_STATUS = (
    "exit status: 0 when every image was read (a reroll, with its reason, is a reading), "
    "1 when an image could not be read or its picture not written, 2 for wrong arguments "
    "or an --annotate folder that cannot be used"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EXIT_STATUS
    parser.add_argument(
        "images", nargs="+", metavar="IMAGE", help="photos to read (a folder: all photos in it)"
    )
    parser.add_argument(
        "--json", action="store_true", help="one JSON object per image, one per line"
    )
    parser.add_argument(
        "--expect",
        type=_count,
        metavar="N",
        help="how many dice should be in the tray (a different count asks for a reroll)",
    )
    parser.add_argument(
        "--annotate",
        type=_folder,
        metavar="DIR",
        help="also write each photo with the dice and the verdict drawn on, into DIR",
    )


def _inputs(names: list[str]) -> list[tuple[str, str]]:
    """The files to read, in order, each with "" or why it cannot be read: folders are
    replaced by the photos in them (one with none, or that cannot be listed, stays as
    itself, with the reason)."""
    out: list[tuple[str, str]] = []
    for name in names:
        if not name.strip():  # Path("") is the current folder: not what was meant
            out.append((name, "an empty path is no image"))
            continue
        if name == "-":  # said "no such file", as if a file named "-" were meant
            out.append((name, "standard input is not read: name the photo (or /dev/stdin)"))
            continue
        path = Path(name)
        try:
            is_dir = path.is_dir()
        except OSError:  # a name too long: load_image says why, in its place
            is_dir = False
        if not is_dir:
            out.append((name, ""))
            continue
        try:
            # Not what --annotate wrote there before: read again, they were read as
            # photos and written once more as x.read.read.jpg.
            found = [str(p) for p in list_images(path) if not p.name.endswith(ANNOTATED)]
        except OSError as exc:
            out.append((name, f"cannot list this folder ({exc.strerror or exc})"))
            continue
        if not found:
            suffixes = ", ".join(sorted(IMAGE_SUFFIXES))
            out.append((name, f"no images in this folder (looked for {suffixes})"))
        out.extend((f, "") for f in found)
    return out


# A file name may hold 255 bytes on the usual file systems; "-NNNNN.read.jpg" takes 15.
STEM_BYTES = 240


def _cut(stem: str, limit: int = STEM_BYTES) -> str:
    """``stem`` cut to at most ``limit`` bytes of UTF-8, whole characters only."""
    data = stem.encode("utf-8", "surrogateescape")
    if len(data) <= limit:
        return stem
    return data[:limit].decode("utf-8", "ignore")


ANNOTATED = ".read.jpg"
"""How the pictures ``--annotate`` writes end (``photo.read.jpg``, ``photo-2.read.jpg``)."""


def _annotated_path(folder: Path, file: str, taken: set[Path]) -> tuple[Path, bool]:
    """``DIR/<name>.read.jpg`` (a name too long for a file cut), and whether it had to be
    numbered because an earlier input had the same name. ``taken`` holds real paths
    (links followed): those already written, and the inputs (an input named
    ``x.read.jpg`` beside ``x.png`` was written over by the picture of ``x.png`` before
    it was read)."""
    stem = _cut(Path(file).stem) or "image"
    candidate = folder / f"{stem}{ANNOTATED}"
    n = 2
    while (real := real_path(candidate)) in taken:
        candidate = folder / f"{stem}-{n}{ANNOTATED}"
        n += 1
    taken.add(real)
    return candidate, n > 2


def _one_line(text: str) -> str:
    """A readable line kept to one line: characters that are not printable (a line break
    in a file's name split the line in two) written as JSON escapes them."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in text)


def _text_line(file: str, reading: FrameReading) -> str:
    if reading.is_ok:
        values = " ".join(str(v) for v in reading.values)
        return _one_line(f"{file}: ok  {values}  ({reading.ms:.0f} ms)")
    dice = " ".join("?" if d.value is None else str(d.value) for d in reading.dice)
    seen = f"  [{dice}]" if dice else ""
    line = f"{file}: {reading.status.value} — {reading.reason}{seen}  ({reading.ms:.0f} ms)"
    return _one_line(line)


def _error_line(file: str, reason: str, as_json: bool) -> str:
    if as_json:
        obj = {"file": file, "status": "error", "reason": reason, "dice": [], "ms": 0.0}
        return json.dumps(obj)
    return _one_line(f"{file}: error — {reason}")


def _emit(out: TextIO, line: str) -> None:
    """Print ``line``, degrading characters the terminal cannot show instead of failing."""
    try:
        out.write(line + "\n")
    except UnicodeEncodeError:
        enc = getattr(out, "encoding", None) or "ascii"
        safe = line.replace("—", "-").encode(enc, errors="replace").decode(enc)
        out.write(safe + "\n")
    out.flush()


def _default_reader() -> FrameReader:
    from vision.reader import PipReader

    return PipReader()


def run(
    args: argparse.Namespace,
    *,
    reader: FrameReader | None = None,
    make_reader: Callable[[], FrameReader] = _default_reader,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Read every image named in ``args``; ``reader``/``out``/``err`` are for tests."""
    stdout = out if out is not None else sys.stdout
    stderr = err if err is not None else sys.stderr

    annotate_dir: Path | None = args.annotate
    if annotate_dir is not None:
        try:
            if annotate_dir.exists() and not annotate_dir.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, "a file, not a folder")
            annotate_dir.mkdir(parents=True, exist_ok=True)
            probe = annotate_dir / f".dicetable-write-test-{os.getpid()}"
            probe.write_bytes(b"")  # a folder that cannot be written: found out now
            probe.unlink()
        except OSError as exc:
            why = exc.strerror or str(exc)
            _emit(stderr, f"dicetable read: cannot use {annotate_dir} for --annotate ({why})")
            return 2

    if reader is None:
        try:
            reader = make_reader()
        except Exception as exc:  # a missing model file, a broken install: one line, no trace
            why = _one_line(str(exc).strip())
            _emit(stderr, f"dicetable read: cannot start the pip reader ({why})")
            return 1

    def say(line: str) -> None:
        """``line`` on standard output. Once the reader of the lines has gone (| head -1):
        without --annotate there is no more to do; with it, the pictures asked for are
        still written (it stopped at the first, exit 0), and no more lines are printed,
        whether the first line lost was a reading or an error."""
        nonlocal stdout
        try:
            _emit(stdout, line)
        except BrokenPipeError:
            if annotate_dir is None:
                raise
            stdout = send_nowhere(stdout)

    failed = False
    inputs = _inputs(list(args.images))
    taken = {real_path(f) for f, why_not in inputs if not why_not}
    for file, why_not in inputs:
        if why_not:
            failed = True
            say(_error_line(file, why_not, args.json))
            continue
        said: list[str] = []
        try:
            with _decoders_quiet(said):
                image = load_image(file, decoder_errors=True)
        except CameraError as exc:
            failed = True
            why = str(exc).removeprefix(f"{Path(file)}: ")
            if why.startswith("not an image") and Path(file).suffix.lower() in VIDEO_SUFFIXES:
                why = 'a video, not a photo (camera.source = "video:PATH" replays one)'
            say(_error_line(file, f"cannot read image: {why}", args.json))
            continue
        damage = damage_said(said)
        if damage:  # decoded, but not as taken: dice may be missing or half drawn
            failed = True
            say(_error_line(file, f"cannot read image: damaged ({damage})", args.json))
            continue
        try:
            reading = reader.read(image, expect=args.expect)
        except Exception as exc:  # the reader failing on one photo must not stop the rest
            failed = True
            why = f"reader failed: {type(exc).__name__}: {exc}"
            say(_error_line(file, why, args.json))
            continue
        if args.json:
            say(json.dumps({"file": file, **reading.to_json()}))
        else:
            say(_text_line(file, reading))
        if annotate_dir is not None:
            target, numbered = _annotated_path(annotate_dir, file, taken)
            # a numbered copy's banner names its input as given, to tell it from the first
            drawn = annotate(image, reading, title=file if numbered else Path(file).name)
            why = _write_image(target, drawn)
            if why:
                failed = True
                _emit(stderr, f"dicetable read: could not write {target} ({why})")
    return 1 if failed else 0


# What the image libraries say of a file they decoded only in part (``damage_said``):
# libjpeg writes it to the process's standard error itself, and taking fd 2 for a decode
# is safe in this one thread only. The table's service, with its threads, has a folder's
# photos decoded in a process of their own instead (``vision.sources.decoded_alone``).


@contextlib.contextmanager
def _decoders_quiet(said: list[str] | None = None) -> Iterator[None]:
    """Standard error taken from the image libraries while a file is decoded: libpng,
    libjpeg and libtiff write their complaints ("libpng error: PNG input buffer is
    incomplete", "Corrupt JPEG data: ...") to it themselves, between the lines, where
    the image's own line says what was wrong. What they wrote is added to ``said``: a
    JPEG that decodes with "Corrupt JPEG data" is damaged, though it gives a picture."""
    try:
        if sys.stderr is not None:
            sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no standard error to begin with
        yield
        return
    try:
        sink = tempfile.TemporaryFile()  # noqa: SIM115  # closed in the finally below
    except OSError:
        os.close(saved)
        yield
        return
    try:
        os.dup2(sink.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        with sink:
            if said is not None:
                sink.seek(0)
                said.append(sink.read(1 << 16).decode("utf-8", "replace"))


# JPEG holds at most 65 535 pixels a side and OpenCV writes at most 65 500.
MAX_PICTURE_SIDE = 65_500


def _write_image(path: Path, image: Any) -> str:
    """Write the image; "" when written, else why not. A picture wider or taller than a
    JPEG can be is shrunk to fit (OpenCV refused it, with a log of its own)."""
    side = max(image.shape[:2])
    if side > MAX_PICTURE_SIDE:
        h, w = image.shape[:2]
        f = MAX_PICTURE_SIDE / side
        size = tuple(max(1, min(MAX_PICTURE_SIDE, round(n * f))) for n in (w, h))
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    with quiet_opencv():
        ok, data = cv2.imencode(path.suffix, image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:
        return f"OpenCV cannot encode {path.suffix or 'a file without a suffix'}"
    # Written beside and renamed over it: a link of that name is replaced, not the
    # file it leads to (it wrote a JPEG into whatever file the link named).
    tmp = path.with_name(f".dicetable-read-{os.getpid()}.part")  # a long name fits
    try:
        tmp.write_bytes(data.tobytes())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        return exc.strerror or str(exc)
    return ""
