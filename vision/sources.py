"""Where frames come from: the Pi camera, a USB webcam, a video file or a folder of photos.

Every source gives BGR ``uint8`` frames of shape ``(h, w, 3)`` through one small
interface, :class:`FrameSource`. Anything that goes wrong with a camera or a
file (unplugged, missing, unreadable, empty) is raised as :class:`CameraError`
whose message is one line a person at the table can act on.

``picamera2`` exists only on a Raspberry Pi; it is imported only when a
``picamera`` source is opened.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import re
import stat
import struct
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Protocol, Self, runtime_checkable

import cv2
import numpy as np
import numpy.typing as npt

from vision import MAX_IMAGE_PIXELS

Frame = npt.NDArray[np.uint8]

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"})

_SPEC_HELP = "use picamera, usb:N, usb:/dev/videoN, video:PATH, folder:PATH or a path"


class CameraError(RuntimeError):
    """A camera or image source failed; ``str(err)`` is a one-line message for people."""


class SourceExhausted(CameraError):
    """A video file or folder (without ``loop``) has no more frames."""


@runtime_checkable
class FrameSource(Protocol):
    """Anything that hands out camera frames."""

    @property
    def name(self) -> str:
        """Short human name, e.g. ``usb:0`` or ``folder:replays/throw1``."""
        ...

    def read(self) -> Frame:
        """The next frame, BGR uint8 ``(h, w, 3)``; raise :class:`CameraError` otherwise."""
        ...

    def close(self) -> None:
        """Release the device or file; safe to call twice."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class _Source:
    """Shared context-manager and iteration plumbing for the sources below."""

    name: str = "source"

    def read(self) -> Frame:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def iter_frames(source: FrameSource) -> Iterator[Frame]:
    """Frames from ``source`` until it runs out (a camera never does).

    Ends quietly on :class:`SourceExhausted`; any other :class:`CameraError` is raised.
    """
    while True:
        try:
            frame = source.read()
        except SourceExhausted:
            return
        yield frame


def as_bgr(image: npt.NDArray[Any], what: str) -> Frame:
    """Bring a grey, BGRA or 16-bit image to BGR uint8, or raise :class:`CameraError`."""
    if image.size == 0:
        raise CameraError(f"{what}: an empty picture (shape {image.shape})")
    if image.dtype != np.uint8:
        if image.dtype == np.uint16:
            image = (image >> 8).astype(np.uint8)
        else:
            raise CameraError(f"{what}: unsupported pixel type {image.dtype}")
    if image.ndim == 2:
        return np.ascontiguousarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR))
    if image.ndim == 3 and image.shape[2] == 3:
        return np.ascontiguousarray(image)
    if image.ndim == 3 and image.shape[2] == 4:
        return np.ascontiguousarray(image[:, :, :3])
    raise CameraError(f"{what}: unexpected frame shape {image.shape}")


def real_path(path: str | Path) -> Path:
    """``path`` with its links followed, or as given where that cannot be known: a
    relative name when the current folder has been removed (``os.getcwd`` fails)."""
    try:
        return Path(os.path.realpath(path))
    except OSError:
        return Path(path)


def _absent(path: Path, what: str) -> str:
    """Why ``path``, which ``exists()`` says is not there, is not: "no such ``what``", or,
    for a symbolic link, that it leads nowhere (its target gone, or links in a loop)."""
    with contextlib.suppress(OSError):
        if path.is_symlink():
            return "a link that leads to nothing (its target is gone, or links go round)"
    return f"no such {what}"


@contextlib.contextmanager
def _looking_at(name: str) -> Iterator[None]:
    """An ``OSError`` while looking at a path (a name too long, a folder it may not
    enter) is a :class:`CameraError` naming ``name``: ``Path.exists`` and
    ``Path.is_dir`` say False only for a path that is not there."""
    try:
        yield
    except OSError as err:
        raise CameraError(f"{name}: cannot open ({err.strerror or err})") from None


MAX_FILE_BYTES = 200 << 20
"""The biggest file read as a photo: a little more than a 64-megapixel photo
(MAX_IMAGE_PIXELS) takes uncompressed, 3 bytes a pixel. A bigger file (a video given by
mistake) would be read whole into memory before anything else could be asked of it: at
1 GB, as it was, more than a 1 GB Pi has."""


MAX_PIPED_BYTES = MAX_FILE_BYTES
"""The most read from a pipe (``dicetable read <(cat photo.jpg)``): a photo is a few MB."""


def _amount(n: int) -> str:
    return f"{n} bytes" if n < 1 << 20 else f"{n >> 20} MB"


def _file_bytes(p: Path) -> bytes:
    """All of a regular file up to ``MAX_FILE_BYTES``, or of a pipe up to
    ``MAX_PIPED_BYTES`` (a pipe cannot seek); a device (``/dev/zero`` never ends) is
    refused."""
    st = p.stat()
    mode = st.st_mode
    if stat.S_ISREG(mode):
        if st.st_size > MAX_FILE_BYTES:
            raise CameraError(
                f"{p}: {_amount(st.st_size)}, more than any photo "
                f"({_amount(MAX_FILE_BYTES)} at most)"
            )
        return p.read_bytes()
    if not stat.S_ISFIFO(mode):
        raise CameraError(f"{p}: not a file (a device or a socket)")
    with p.open("rb") as f:
        data = f.read(MAX_PIPED_BYTES + 1)
    if len(data) > MAX_PIPED_BYTES:
        raise CameraError(f"{p}: more than {MAX_PIPED_BYTES >> 20} MB from a pipe")
    return data


# The most pixels a photo may claim. A 12 MP camera is what the table uses, phones take 50
# (and more: such a photo is refused in one line, to be taken smaller); OpenCV's default
# limit is a gigapixel, 3 GB decoded, more than a Pi has. A damaged or made-up header (a
# few hundred bytes of PNG can claim 40000 x 40000) would otherwise be decoded into that
# much memory before the reader shrinks it. The headers ``claimed_size`` reads are checked
# here against ``MAX_IMAGE_PIXELS``, with a clear message; importing ``vision``
# (vision/__init__.py) sets OpenCV's own limit to the same number, for the formats it does
# not read.


def claimed_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) as a PNG, JPEG, BMP, WebP, TIFF or GIF header states it, before
    decoding; None for other formats or a header too short to say."""
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:2] == b"BM" and len(data) >= 26:
        w = int.from_bytes(data[18:22], "little", signed=True)
        h = int.from_bytes(data[22:26], "little", signed=True)
        return abs(w), abs(h)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP" and len(data) >= 30:
        kind = data[12:16]
        if kind == b"VP8X":
            return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(
                data[27:30], "little"
            )
        if kind == b"VP8L":
            bits = int.from_bytes(data[21:25], "little")
            return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
        if kind == b"VP8 ":
            w = int.from_bytes(data[26:28], "little") & 0x3FFF
            h = int.from_bytes(data[28:30], "little") & 0x3FFF
            return w, h
        return None
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return _tiff_size(data)
    if data[:2] == b"\xff\xd8":
        for i, marker in _jpeg_marks(data):
            if marker is None or marker == 0xDA or i + 9 > len(data):  # no frame before a scan
                return None
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a frame
                h = int.from_bytes(data[i + 5 : i + 7], "big")
                w = int.from_bytes(data[i + 7 : i + 9], "big")
                return w, h
    return None


def _jpeg_marks(data: bytes) -> Iterator[tuple[int, int | None]]:
    """(offset, marker) of each mark of a JPEG after its start-of-image mark, up to and
    with its end mark: segments are skipped by their length, a scan's compressed picture
    up to the next mark (``_NEXT_MARK``). (offset, None) where a byte that should begin a
    mark does not, and no more. Nothing past the end of ``data``: a file cut short ends
    without an end mark."""
    i = 2
    while i + 2 <= len(data):
        if data[i] != 0xFF:
            yield i, None
            return
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        yield i, marker
        if marker == 0xD9:
            return
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length
            i += 2
            continue
        i += 2 + int.from_bytes(data[i + 2 : i + 4], "big")
        if marker == 0xDA:  # a scan: its picture runs to the next mark
            found = _NEXT_MARK.search(data, i)
            if found is None:
                return
            i = found.start()


# Inside a scan's compressed picture a byte FF is followed by 00 (a stuffed FF), by a
# restart mark (D0-D7) or by more FF (fill): any other byte after it is the next mark.
_NEXT_MARK = re.compile(rb"\xff[^\x00\xd0-\xd7\xff]")


# A JPEG's picture ends with the end-of-image mark, FF D9. A file without it was cut
# short: copied in part, written when the power went, or still being written by a camera
# into the folder replayed. OpenCV 4.10 decodes what there is and leaves the rest black,
# with only libjpeg's "Premature end of JPEG file" on standard error, which the table's
# service cannot listen for (vision/cli_read.py says why): a die across the cut would be
# read from half its pips. OpenCV 4.14 and 5.1 give no picture, and a message that cannot
# say why. Checked here, the cut is refused whichever OpenCV a Pi has, and said as what it
# is. A file whole but for its last two bytes, the end mark itself, is refused too: libjpeg
# says the same of it, and an older OpenCV would read it.


def jpeg_cut_short(data: bytes) -> bool:
    """Whether ``data``, a JPEG, stops before its end-of-image mark. False for other
    formats and for headers too damaged to walk (the decoder says what is wrong)."""
    if data[:2] != b"\xff\xd8":
        return False
    # Cut (in its headers, in a scan or between scans) unless the walk ends at the end
    # mark, or at a damaged header.
    return all(marker not in (None, 0xD9) for _, marker in _jpeg_marks(data))


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    """The first image's ImageWidth and ImageLength tags (256, 257) of a TIFF."""
    order: Literal["little", "big"] = "little" if data[:2] == b"II" else "big"
    at = int.from_bytes(data[4:8], order)
    if at + 2 > len(data):
        return None
    found: dict[int, int] = {}
    for i in range(int.from_bytes(data[at : at + 2], order)):
        entry = data[at + 2 + 12 * i : at + 14 + 12 * i]
        if len(entry) < 12:
            return None
        tag, kind = int.from_bytes(entry[0:2], order), int.from_bytes(entry[2:4], order)
        if tag in (256, 257):
            found[tag] = int.from_bytes(entry[8:10] if kind == 3 else entry[8:12], order)
    if 256 not in found or 257 not in found:
        return None
    return found[256], found[257]


# What libjpeg says of a file it decoded only in part: the rest of the picture is grey or
# smeared, and a die there is missing or read from half its pips. None of the shared
# photos gives either. libjpeg writes it to the process's standard error itself, where a
# program with threads cannot take it for one decode: every thread's standard error
# would go there meanwhile (a fork would inherit the held lock, a child process the file
# as its standard error, another thread's words be taken for the decode's).
DAMAGE_SAID = ("Corrupt JPEG data", "Premature end of JPEG file")
# libtiff's errors come through OpenCV's log ("[ERROR:0@0.03] global grfmt_tiff.cpp:117
# TIFF_Error LZWDecode: Not enough data at scanline 480"): a strip it could not decode
# is left as it was, and a die there loses pips (a damaged byte read a 2 as a 1).
TIFF_DAMAGE = " TIFF_Error "


def damage_said(said: Iterable[str]) -> str:
    """The first thing the image libraries said (``said``: what they wrote, in pieces)
    that means the picture is damaged; "" if nothing did."""
    lines = (line.strip() for text in said for line in text.splitlines())
    for line in lines:
        if line.startswith(DAMAGE_SAID):
            return line
        if TIFF_DAMAGE in line:
            return line[line.index(TIFF_DAMAGE) + 1 :]
    return ""


def _alone(code: str, path: Path) -> list[str]:
    """The command that runs ``code`` on ``path`` in a process of its own, with this
    program's interpreter. -P: no file of the current folder is imported in cv2's
    stead. Not -I, which also drops PYTHONPATH and the user's site-packages: an OpenCV
    found there by this program was not found, and no picture was checked."""
    return [sys.executable, "-P", "-c", code, str(path)]


# The decode of ``decoded_alone``'s process: OpenCV's log at errors only (libtiff's
# complaints are errors), the file decoded, nothing else.
_DECODE_ALONE = (
    "import sys\n"
    "import cv2, numpy as np\n"
    "log = getattr(getattr(cv2, 'utils', None), 'logging', None)\n"
    "if log is not None: log.setLogLevel(log.LOG_LEVEL_ERROR)\n"
    "cv2.imdecode(np.fromfile(sys.argv[1], np.uint8), cv2.IMREAD_COLOR)\n"
)
DECODE_ALONE_S = 60.0
"""How long the decode in a process of its own may take (a 12 MP photo on a Pi: well
under a few seconds) before it is given up as not checked."""


def decoded_alone(path: str | Path) -> str | None:
    """What makes the JPEG or TIFF at ``path`` damaged (``damage_said``), from its decode
    in a process of its own, whose standard error is a pipe read here: "" if nothing,
    None if it could not be checked (no process, a timeout; other formats are not
    looked at). For a program with threads (the table's service replaying a folder);
    ``dicetable read``, in one thread, takes its own standard error instead.

    A PNG's damage fails its decode (its checksums), so ``load_image`` refuses it. A
    lossy WebP has no checksum: bytes changed inside may decode to a smeared picture
    without a word from its decoder, and nothing here can tell."""
    p = Path(path)
    try:
        if not stat.S_ISREG(p.stat().st_mode):
            return None  # a pipe would hold both processes; a photo is a file
        with p.open("rb") as f:
            head = f.read(4)
    except OSError:
        return None
    if head[:2] != b"\xff\xd8" and head not in (b"II*\x00", b"MM\x00*"):
        return None
    try:
        done = subprocess.run(  # noqa: S603  # our own interpreter and code, a path argument
            _alone(_DECODE_ALONE, p),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=DECODE_ALONE_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None  # the process itself failed (no cv2 there, killed): not a verdict
    return damage_said([done.stderr.decode("utf-8", "replace")])


def load_image(path: str | Path, decoder_errors: bool = False) -> Frame:
    """Read one photo as BGR uint8, or raise :class:`CameraError` saying why not.

    ``decoder_errors``: OpenCV's log of its decoders' errors is kept, on standard error,
    for a caller that takes it there (``dicetable read``): libtiff's complaint of a
    damaged strip comes only that way, with the picture still decoded."""
    p = Path(path)
    with _looking_at(str(p)):
        if not p.exists():
            raise CameraError(f"{p}: {_absent(p, 'file')}")
        if p.is_dir():
            raise CameraError(f"{p}: is a folder, not an image")
        raw = _file_bytes(p)
    if not raw:
        raise CameraError(f"{p}: file is empty")
    # the whole file: a phone's JPEG can carry more than 64 kB of profiles before its size
    size = claimed_size(raw)
    if size is not None and size[0] * size[1] > MAX_IMAGE_PIXELS:
        raise CameraError(
            f"{p}: says it is {size[0]} x {size[1]} pixels, more than "
            f"{MAX_IMAGE_PIXELS // 1_000_000} megapixels"
        )
    if jpeg_cut_short(raw):
        raise CameraError(f"{p}: damaged (the JPEG stops before its end: cut short)")
    try:
        # its decoders' warnings would break the one line per image
        with quiet_opencv(errors=decoder_errors):
            image = cv2.imdecode(np.frombuffer(raw, dtype=np.uint8), cv2.IMREAD_COLOR)
    except cv2.error:
        image = None
    if image is None or image.size == 0:
        raise CameraError(
            f"{p}: not an image OpenCV can read (damaged, another format, or over "
            f"{MAX_IMAGE_PIXELS // 1_000_000} megapixels)"
        )
    return as_bgr(image, str(p))


def load_whole_image(path: str | Path) -> Frame:
    """``load_image``, and a CameraError too if the photo's decoder says it is damaged
    (``decoded_alone``): decoded, but not as taken, a die missing or half drawn. For a
    program with threads, which cannot take the decoder's words itself."""
    image = load_image(path)
    damage = decoded_alone(path)
    if damage:
        raise CameraError(f"{path}: damaged ({damage})")
    return image


def _natural_key(path: Path) -> tuple[list[Any], str]:
    """Sort ``frame2`` before ``frame10``; names alike that way (``shot01`` and ``shot1``,
    ``B`` and ``b``) by the name itself, not in the order the file system lists them."""
    # re.split puts the digit runs at the odd places; "²" passes str.isdigit, not int().
    parts = re.split(r"(\d+)", path.name)
    return [int(t) if i % 2 else t.lower() for i, t in enumerate(parts)], path.name


def list_images(folder: str | Path) -> list[Path]:
    """The image files directly in ``folder``, in natural name order. Hidden files are
    left out: a Mac writes a ``._name.jpg`` of metadata beside each photo it copies."""
    root = Path(folder)
    files = [
        p
        for p in root.iterdir()
        if not p.name.startswith(".") and p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES
    ]
    return sorted(files, key=_natural_key)


class ImageFilesSource(_Source):
    """Replays a fixed list of photos, one per :meth:`read`, optionally looping."""

    def __init__(
        self,
        files: Sequence[str | Path],
        *,
        name: str,
        loop: bool = False,
        check_damage: bool = True,
    ) -> None:
        if not files:
            raise CameraError(f"{name}: no images to replay")
        self.name = name
        self.check_damage = check_damage
        """Each JPEG or TIFF is decoded once more in a process of its own, for what its
        decoder says of damage (``decoded_alone``): a photo damaged inside is an error,
        not a picture with dice missing or half drawn."""
        self.files: tuple[Path, ...] = tuple(Path(f) for f in files)
        self.loop = loop
        self._next = 0
        self._closed = False

    def read(self) -> Frame:
        if self._closed:
            raise CameraError(f"{self.name}: source is closed")
        if self._next >= len(self.files):
            if not self.loop:
                raise SourceExhausted(f"{self.name}: no more images")
            self._next = 0
        path = self.files[self._next]
        self._next += 1
        return self._photo(path)

    def _photo(self, path: Path) -> Frame:
        """The photo at ``path`` (``load_image``), or CameraError; with ``check_damage``,
        also if its decoder says it is damaged (``load_whole_image``)."""
        return load_whole_image(path) if self.check_damage else load_image(path)

    def close(self) -> None:
        self._closed = True


class FolderSource(ImageFilesSource):
    """The photos in a folder, sorted by name (``frame2`` before ``frame10``)."""

    def __init__(
        self, folder: str | Path, *, loop: bool = False, check_damage: bool = True
    ) -> None:
        root = Path(folder)
        name = f"folder:{root}"
        with _looking_at(name):
            if not root.exists():
                raise CameraError(f"{name}: {_absent(root, 'folder')}")
            if not root.is_dir():
                raise CameraError(f"{name}: not a folder")
        try:
            files = list_images(root)
        except OSError as err:
            raise CameraError(f"{name}: cannot list ({err.strerror or err})") from None
        if not files:
            suffixes = ", ".join(sorted(IMAGE_SUFFIXES))
            raise CameraError(f"{name}: no images in folder (looked for {suffixes})")
        super().__init__(files, name=name, loop=loop, check_damage=check_damage)
        self.folder = root
        # A folder of photos none of which can be read was taken, and then every throw
        # said "file is empty" (or damaged) and the next ROLL came round to it again.
        first_fault = ""
        for path in files:
            try:
                self._photo(path)
                break
            except CameraError as exc:
                first_fault = first_fault or str(exc)
        else:
            raise CameraError(f"{name}: no photo in the folder can be read ({first_fault})")


@contextlib.contextmanager
def quiet_opencv(errors: bool = False) -> Iterator[None]:
    """Silence OpenCV's own log while probing devices or decoding; we report failures
    ourselves. Its errors too: a damaged PNG printed "[ERROR:0@0.05] global loadsave.cpp
    ... imdecode_" over two lines before our one line saying the same. ``errors``: all but
    its errors, for a caller that has taken standard error to read them.

    FFmpeg, behind OpenCV's video files, logs on its own ("[mjpeg @ 0x...] No JPEG data
    found in image") at a level OpenCV reads from the environment once, when it first
    opens a video: quiet unless set otherwise.
    """
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # AV_LOG_QUIET
    logging = getattr(getattr(cv2, "utils", None), "logging", None)
    if logging is None:
        yield
        return
    old = logging.getLogLevel()
    logging.setLogLevel(logging.LOG_LEVEL_ERROR if errors else logging.LOG_LEVEL_SILENT)
    try:
        yield
    finally:
        logging.setLogLevel(old)


class _CaptureSource(_Source):
    """Common part of the sources that wrap ``cv2.VideoCapture``."""

    def __init__(self) -> None:
        self._cap: Any = None

    @contextlib.contextmanager
    def _capturing(self) -> Iterator[Any]:
        """The open capture; a closed source or a driver error is a CameraError."""
        if self._cap is None:
            raise CameraError(f"{self.name}: source is closed")
        try:
            yield self._cap
        except cv2.error as err:
            raise CameraError(f"{self.name}: capture failed [{_short(err)}]") from None

    def _grab(self) -> Frame | None:
        with self._capturing() as cap:
            ok, frame = cap.read()
        if not ok or frame is None or frame.size == 0:
            return None
        return as_bgr(frame, self.name)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


# Frames a webcam's driver may hold from before a pause (V4L2 buffers; OpenCV's default
# is four), and one more.
STALE_FRAMES = 5

MAX_DEVICE_INDEX = 9999  # no machine has more cameras; OpenCV takes the index as a C int

# V4L2's control of a webcam's mains flicker filter (linux/videodev2.h, v4l2-controls.h):
# VIDIOC_S_CTRL = _IOWR('V', 28, struct v4l2_control {__u32 id; __s32 value;}), and
# V4L2_CID_POWER_LINE_FREQUENCY = V4L2_CID_BASE + 24, 1 for 50 Hz, 2 for 60 Hz.
VIDIOC_S_CTRL = 0xC008561C
V4L2_CID_POWER_LINE_FREQUENCY = 0x00980918
POWER_LINE = {50: 1, 60: 2}


def ask_power_line(path: str, mains_hz: int) -> bool:
    """Ask the V4L2 device at ``path`` to filter the flicker of lamps on ``mains_hz``
    (50 or 60) mains, as ``v4l2-ctl -c power_line_frequency=N`` does; whether it took it.
    A device without the control, or one that cannot be opened for it, keeps its own."""
    value = POWER_LINE.get(mains_hz)
    if value is None:
        return False
    try:
        import fcntl  # here: a POSIX module, and the rest of the sources run without it

        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    except (ImportError, OSError):
        return False
    try:
        arg = struct.pack("=Ii", V4L2_CID_POWER_LINE_FREQUENCY, value)
        fcntl.ioctl(fd, VIDIOC_S_CTRL, arg)
    except OSError:  # EINVAL: no such control; ENOTTY: not a V4L2 device
        return False
    finally:
        os.close(fd)
    return True


class DeviceSource(_CaptureSource):
    """A USB webcam (any V4L2 device) through OpenCV, by index or ``/dev/videoN``."""

    def __init__(
        self,
        device: int | str,
        *,
        size: tuple[int, int] | None = None,
        mains_hz: int | None = None,
    ) -> None:
        """``mains_hz`` (50 or 60): the webcam is asked to filter the flicker of lamps on
        that mains (``ask_power_line``); ``self.power_line`` says whether it took it.
        ``None`` leaves the webcam's own."""
        super().__init__()
        self.name = f"usb:{device}"
        self.size = size
        """The frame size asked of the webcam, None for its own."""
        self.mains_hz = mains_hz
        self.power_line = False
        if isinstance(device, str):
            if device.isdecimal():  # what int() takes: "²" passes isdigit, not int()
                device = int(device)
                if device > MAX_DEVICE_INDEX:  # OpenCV takes a C int: a bigger one raised
                    raise CameraError(f"{self.name}: no camera at index {device}")
            else:
                with _looking_at(self.name):
                    if not Path(device).exists():
                        raise CameraError(f"{self.name}: no camera at {device} (is it plugged in?)")
        with quiet_opencv():
            cap = cv2.VideoCapture(device)
            opened = bool(cap.isOpened())
        if not opened:
            cap.release()
            raise CameraError(f"{self.name}: cannot open camera (unplugged, or in use?)")
        if size is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        if mains_hz:
            path = f"/dev/video{device}" if isinstance(device, int) else device
            self.power_line = ask_power_line(path, mains_hz)
        self._cap = cap

    def settings(self) -> str:
        """How the webcam was set up, for a person reading the journal."""
        if not self.mains_hz:
            return "its own flicker filter"
        if self.power_line:
            return f"flicker filter for {self.mains_hz} Hz mains"
        return f"its own flicker filter (it took no {self.mains_hz} Hz setting)"

    def drop_stale(self) -> None:
        """Throw away the frames the driver kept while nobody read (V4L2 keeps several,
        OpenCV asks for about four): after a pause they show the tray as it was when
        reading stopped, the last throw's dice lying still, not as it is now."""
        with self._capturing() as cap:
            for _ in range(STALE_FRAMES):
                if not cap.grab():
                    return

    def read(self) -> Frame:
        # A webcam may drop one frame while it adjusts; two misses in a row mean it is gone.
        for _ in range(2):
            frame = self._grab()
            if frame is not None:
                return frame
        raise CameraError(f"{self.name}: camera stopped sending frames (unplugged?)")


# The decode of a video's frames in a process of its own (``VideoCheck``). FFmpeg's log
# is set to its errors, and OpenCV writes it on standard output: both that and standard
# error are taken to a file, looked at after each frame (C's buffers flushed first). On a
# copy of the first standard output: "ok N" once frame N (from 0) is decoded with nothing
# said, "said N TEXT" (TEXT's lines joined by " | ") when something was said by then, and
# "end N" after the last of N frames. One decoding thread: what is said of a frame is
# said before the next one is taken. FFmpeg's decoder of motion JPEG says little of a
# damaged picture: each is given to OpenCV's JPEG decoder instead, which says "Corrupt
# JPEG data" as for a photo. The process yields the processor to the table (nice 10)
# where it may: the service's unit forbids a change of priority (@resources).
_VIDEO_CHECK = (
    "import ctypes, os, sys, tempfile\n"
    "try:\n"
    "    os.nice(10)\n"
    "except OSError:\n"  # forbidden (the service's system call filter): check all the same
    "    pass\n"
    "os.environ['OPENCV_FFMPEG_LOGLEVEL'] = '16'\n"
    "out = os.fdopen(os.dup(1), 'w')\n"
    "log = tempfile.TemporaryFile()\n"
    "os.dup2(log.fileno(), 1)\n"
    "os.dup2(log.fileno(), 2)\n"
    "libc = ctypes.CDLL(None)\n"
    "import cv2\n"
    "cap = cv2.VideoCapture(sys.argv[1], cv2.CAP_FFMPEG, [cv2.CAP_PROP_N_THREADS, 1])\n"
    "jpegs = int(cap.get(cv2.CAP_PROP_FOURCC)) == int.from_bytes(b'MJPG', 'little')\n"
    "if jpegs:\n"
    "    cap.set(cv2.CAP_PROP_FORMAT, -1)\n"
    "n = seen = 0\n"
    "while cap.isOpened():\n"
    "    more = cap.grab()\n"
    "    if more and jpegs:\n"
    "        got, data = cap.retrieve()\n"
    "        if got and data is not None and data.size:\n"
    "            if cv2.imdecode(data.reshape(-1), cv2.IMREAD_COLOR) is None:\n"
    "                os.write(2, b'Corrupt JPEG data: the picture cannot be decoded\\n')\n"
    "    libc.fflush(None)\n"
    "    size = os.fstat(2).st_size\n"
    "    if size > seen:\n"
    "        log.seek(seen)\n"
    "        said = log.read(size - seen).decode('utf-8', 'replace')\n"
    "        seen = size\n"
    "        out.write(f'said {n} ' + ' | '.join(said.splitlines()) + '\\n')\n"
    "        out.flush()\n"
    "    if not more:\n"
    "        break\n"
    "    out.write(f'ok {n}\\n')\n"
    "    out.flush()\n"
    "    n += 1\n"
    "out.write(f'end {n}\\n')\n"
    "out.flush()\n"
)
_log = logging.getLogger(__name__)
VIDEO_CHECK_AHEAD = 10
"""Frames before the first one the check complains of that are refused too, and how far
ahead of a read the check must be: a decoder can smear a frame without a word and
complain of the next ones (MPEG-4, rarely)."""
VIDEO_CHECK_STALL_S = 10.0
"""How long a read waits on a video's check that has not moved on (a video decoded more
slowly than it is played) before its frames are given unchecked."""

_FFMPEG_SAID = re.compile(r"\[OPENCV:FFMPEG:(\d+)\]\s*(.*)|\[[^\]]+ @ 0x[0-9a-fA-F]+\]\s*(.*)")


def video_damage_said(text: str) -> str:
    """The first error FFmpeg logged in ``text`` (lines joined by " | "), as OpenCV or
    FFmpeg itself writes them ("[OPENCV:FFMPEG:16] ac-tex damaged at 5 4", "[mpeg4 @
    0x55...] Error at MB: 109"); "" if none. OpenCV's own warnings are not damage."""
    for line in text.split(" | "):
        m = _FFMPEG_SAID.match(line.strip())
        if m is None:
            jpeg = damage_said([line])  # a motion JPEG's picture, checked as a photo
            if jpeg:
                return jpeg
            continue
        if m.group(1) is not None and int(m.group(1)) > 16:  # above AV_LOG_ERROR
            continue
        said = (m.group(2) if m.group(1) is not None else m.group(3)).strip()
        if said:
            return said
    return ""


class VideoCheck:
    """What a video's decoder says of damage, from its decode in a process of its own,
    run beside the video's reading (as ``decoded_alone`` for a photo). A damaged frame
    decodes smeared, or grey past the damage, and the frames after it that are built on
    it too; only FFmpeg's log says so, on a standard output or error this program's
    threads cannot take. Frames are decoded in order, each after the frames it is built
    on, so the frames well before the first one it complains of are whole; a decoder
    may smear a frame without a word and complain of the next few, so the
    ``VIDEO_CHECK_AHEAD`` frames before that one are refused with it and all after it.
    Damage anywhere the decoders notice (the sound's included, which FFmpeg decodes a
    little of when it opens the file) refuses the video from its start.

    What is found depends on the decoder: those of H.264, MPEG-4, MPEG-2 and (through
    the JPEG decoder) motion JPEG say most damage; those of HEVC, VP8 and VP9 say
    little, and their damaged frames are read as before. A damaged picture that still
    decodes without a word from any of them is read as before too."""

    def __init__(self, path: Path) -> None:
        self._cond = threading.Condition()
        self.passed = -1
        """Frames 0 .. passed are decoded, nothing said."""
        self.damaged_at: int | None = None
        """The first frame by whose decode FFmpeg had complained; None if none yet."""
        self.said = ""
        """What it said first."""
        self.done = False
        """The check ended: the whole video decoded, damage found, or it could not run."""
        self.unchecked = False
        """The check could not run or was given up (``VIDEO_CHECK_STALL_S``); said once
        as a warning on the log (``logging``: standard error, the service's journal)."""
        self._path = path
        self._proc: subprocess.Popen[bytes] | None = None
        self._stopped = False  # stopped here, not failed
        try:
            self._proc = subprocess.Popen(  # noqa: S603  # our interpreter and code, a path
                _alone(_VIDEO_CHECK, path),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            self._unchecked(f"its process could not start: {exc}")
            self.done = True
            return
        threading.Thread(target=self._follow, name="video-check", daemon=True).start()

    def _follow(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        ended = False
        for raw in proc.stdout:
            word, _, rest = raw.decode("utf-8", "replace").rstrip("\n").partition(" ")
            number, _, text = rest.partition(" ")
            if not number.isdecimal() or len(number) > 12:
                continue
            with self._cond:
                if word == "ok":
                    self.passed = int(number)
                elif word == "said" and self.damaged_at is None:
                    damage = video_damage_said(text)
                    if damage:
                        self.damaged_at, self.said = int(number), damage
                        self.done = True
                        self._cond.notify_all()
                        break
                elif word == "end":
                    ended = True
                    if number == "0":  # it could not open the video this program reads
                        self._unchecked("its process could not open the video")
                self._cond.notify_all()
        self._end()
        with contextlib.suppress(OSError):
            proc.stdout.close()
        with self._cond:
            if not ended and self.damaged_at is None and not self._stopped:
                # the process failed (no cv2 there, killed)
                self._unchecked(f"its process ended early, exit status {proc.returncode}")
            self.done = True
            self._cond.notify_all()

    @property
    def stopped(self) -> bool:
        """``stop`` was called: the video is being closed."""
        return self._stopped

    def damage(self, frame: int) -> str:
        """What was said of damage at most ``VIDEO_CHECK_AHEAD`` frames after ``frame``
        (from 0), or before it; "" if nothing. Waits until the check has passed that far,
        or ended, or was stopped, or stood still for ``VIDEO_CHECK_STALL_S``: then the
        check is given up and this frame is given unchecked; so are the next ones, unless
        a complaint the check had already sent is read after it was given up."""
        with self._cond:
            passed = self.passed
            while not self.done and not self._stopped and self.passed < frame + VIDEO_CHECK_AHEAD:
                if not self._cond.wait(VIDEO_CHECK_STALL_S) and self.passed == passed:
                    self._unchecked(f"it stood still for {VIDEO_CHECK_STALL_S:g} s")
                    self.done = True
                    self._end()  # given up, not stopped: the video is not being closed
                    break
                passed = self.passed
            if self.damaged_at is not None and frame + VIDEO_CHECK_AHEAD >= self.damaged_at:
                return self.said
            return ""

    def _unchecked(self, why: str) -> None:
        """The check is off: said once, so a table whose replayed frames go unchecked is
        told why (a sandbox forbidding what the check's process does was silent)."""
        if not self.unchecked:
            _log.warning(
                "video:%s: not checked for damage (%s); its frames are read as they decode",
                self._path,
                why,
            )
        self.unchecked = True

    def stop(self) -> None:
        """End the check's process (it is not needed any more)."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()  # a read waiting on the check: the video is closing
        self._end()

    def _end(self) -> None:
        proc = self._proc
        if proc is None:
            return
        with contextlib.suppress(OSError):
            proc.kill()
        with contextlib.suppress(subprocess.SubprocessError):
            proc.wait(timeout=5)


class VideoFileSource(_CaptureSource):
    """Frames of a video file, optionally looping."""

    def __init__(self, path: str | Path, *, loop: bool = False, check_damage: bool = True) -> None:
        super().__init__()
        self.path = Path(path)
        self.name = f"video:{self.path}"
        self.loop = loop
        self._check: VideoCheck | None = None
        """With ``check_damage``: the video decoded once more beside its reading
        (``VideoCheck``); from a few frames before the first one its decoder complains
        of, every read is a CameraError naming the damage, not a smeared picture whose
        dice are misread."""
        self._index = 0  # the frame the next read gives, from 0 at the video's start
        with _looking_at(self.name):
            if not self.path.exists():
                raise CameraError(f"{self.name}: {_absent(self.path, 'file')}")
            if not self.path.is_file():
                raise CameraError(f"{self.name}: not a file")
        try:  # OpenCV takes the name as UTF-8; another name ends the process in VideoCapture
            str(self.path).encode("utf-8")
        except UnicodeEncodeError:
            raise CameraError(
                f"{self.name}: OpenCV cannot open a video whose name is not UTF-8 (rename it)"
            ) from None
        self._cap = self._open()
        if self._cap is None:
            raise CameraError(f"{self.name}: not a video OpenCV can read")
        # Read the first frame now, so a broken file fails when it is opened, not later.
        with quiet_opencv():
            first = self._grab()
        if first is None:
            self.close()
            raise CameraError(f"{self.name}: video has no readable frames")
        self._pending: Frame | None = first
        if check_damage:
            self._check = VideoCheck(self.path)

    def _open(self) -> Any:
        """The file opened by OpenCV, or None (released) if it cannot read it."""
        with quiet_opencv():
            cap = cv2.VideoCapture(str(self.path))
            opened = bool(cap.isOpened())
        if not opened:
            cap.release()
            return None
        return cap

    def read(self) -> Frame:
        frame = self._next_frame()
        index, self._index = self._index, self._index + 1
        check = self._check
        if check is not None:
            damage = check.damage(index)
            if damage:
                assert check.damaged_at is not None
                raise CameraError(
                    f"{self.name}: damaged at frame {check.damaged_at + 1} ({damage})"
                )
            if check.stopped:  # closed (``interrupt``) while this read waited on the check
                raise CameraError(f"{self.name}: source is closed")
        return frame

    def interrupt(self) -> None:
        """From another thread: a read waiting on the damage check ends at once, as for a
        closed source (the table is stopping)."""
        if self._check is not None:
            self._check.stop()

    def _next_frame(self) -> Frame:
        """The video's next frame (the first again after its end, if looping); sets
        ``_index`` to 0 when it starts over."""
        pending, self._pending = self._pending, None
        if pending is not None:
            return pending
        frame = self._grab()
        if frame is not None:
            return frame
        if not self.loop:
            raise SourceExhausted(f"{self.name}: end of video")
        self._index = 0
        self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
        frame = self._grab()
        if frame is None:  # OpenCV cannot seek back in a video of one frame: open it again
            self._cap.release()
            self._cap = self._open()
            with quiet_opencv():
                frame = self._grab() if self._cap is not None else None
        if frame is None:
            raise CameraError(f"{self.name}: cannot rewind video")
        return frame

    def close(self) -> None:
        self._pending = None  # the first frame, read at opening, goes with the file
        if self._check is not None:
            self._check.stop()
        super().close()


class PiCameraSource(_Source):
    """The Raspberry Pi camera through ``picamera2`` (Raspberry Pi OS's python3-picamera2)."""

    def __init__(
        self,
        *,
        size: tuple[int, int] = (1280, 960),
        sharpness: float | None = None,
        mains_hz: int | None = None,
    ) -> None:
        """``sharpness``: the camera's own sharpening (libcamera's ``Sharpness``: 0 none,
        1 its normal amount), kept within what the camera offers; ``None``, or a camera
        that offers none, leaves the camera's own. ``self.sharpness`` is the value asked
        of the camera (within its range), None when none was.

        ``mains_hz``: the mains frequency (50 or 60) whose lamps flicker twice in each of
        its cycles. A rolling shutter exposed for less than one flicker sees bands of light
        and shade across the tray, and dice in the dark bands go unseen; the camera is
        asked to keep its exposures to whole flickers (libcamera's ``AeFlickerMode``
        manual, ``AeFlickerPeriod`` 10000 us at 50 Hz, 8333 at 60). ``None``, or a camera
        that offers no flicker control, leaves the camera's own. ``self.flicker_period``
        is the period asked, in microseconds, None when none was."""
        self.name = "picamera"
        self.size: tuple[int, int] | None = size
        """The frame size asked of the camera."""
        self.mains_hz = mains_hz
        self.sharpness: float | None = None
        self.flicker_period: int | None = None
        try:
            import picamera2
        except ImportError:
            raise CameraError(
                "picamera: the picamera2 module is missing "
                "(on Raspberry Pi OS: apt install python3-picamera2, "
                "and make the venv with --system-site-packages)"
            ) from None
        except Exception as err:  # e.g. built against another numpy than the venv's
            raise CameraError(
                f"picamera: the picamera2 module cannot be loaded [{_short(err)}]"
            ) from None
        try:
            cam = picamera2.Picamera2()
        except Exception as err:  # picamera2 raises IndexError/RuntimeError for no camera
            raise CameraError(
                f"picamera: no camera found (is the ribbon cable seated?) [{_short(err)}]"
            ) from None
        try:
            # libcamera's "RGB888" is laid out B, G, R in memory: what OpenCV wants.
            main = {"size": size, "format": "RGB888"}
            controls: dict[str, float | int] = {}
            limits = None if sharpness is None else _control_limits(cam, "Sharpness")
            if sharpness is not None and limits is not None:
                self.sharpness = min(max(float(sharpness), limits[0]), limits[1])
                controls["Sharpness"] = self.sharpness
            if mains_hz and _offers(cam, "AeFlickerMode") and _offers(cam, "AeFlickerPeriod"):
                self.flicker_period = round(1_000_000 / (2 * mains_hz))
                controls["AeFlickerMode"] = FLICKER_MANUAL
                controls["AeFlickerPeriod"] = self.flicker_period
            if controls:
                config = cam.create_preview_configuration(main=main, controls=controls)
            else:
                config = cam.create_preview_configuration(main=main)
            cam.configure(config)
            cam.start()
        except Exception as err:
            with contextlib.suppress(Exception):
                cam.close()
            raise CameraError(f"picamera: cannot start camera [{_short(err)}]") from None
        self._cam: Any = cam

    def settings(self) -> str:
        """How the camera was set up, for a person reading the journal."""
        if self.flicker_period is not None:
            period, hz = self.flicker_period, self.mains_hz
            flicker = f"exposure in whole flickers of {period} us ({hz} Hz mains)"
        elif self.mains_hz:
            flicker = f"its own exposure (it offers no flicker control for {self.mains_hz} Hz)"
        else:
            flicker = "its own exposure"
        sharp = "its own sharpening" if self.sharpness is None else f"sharpness {self.sharpness:g}"
        return f"{flicker}; {sharp}"

    def read(self) -> Frame:
        if self._cam is None:
            raise CameraError(f"{self.name}: source is closed")
        try:
            array = self._cam.capture_array("main")
        except Exception as err:
            raise CameraError(f"picamera: capture failed [{_short(err)}]") from None
        return as_bgr(np.asarray(array), self.name)

    def close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is None:
            return
        with contextlib.suppress(Exception):
            cam.stop()
        with contextlib.suppress(Exception):
            cam.close()


FLICKER_MANUAL = 1
"""libcamera's ``AeFlickerModeEnum`` value ``FlickerManual``: avoid ``AeFlickerPeriod``."""


def _offers(cam: Any, name: str) -> bool:
    """The camera takes the control ``name`` (it is in picamera2's ``camera_controls``)."""
    try:
        return name in cam.camera_controls
    except Exception:  # no such table, or not one that answers ``in``
        return False


def _control_limits(cam: Any, name: str) -> tuple[float, float] | None:
    """The lowest and highest value the camera takes for the control ``name``
    (picamera2's ``camera_controls``: name -> (min, max, default)), or None if it takes
    none, or says so in a way not understood."""
    try:
        low, high = cam.camera_controls[name][:2]
        limits = (float(low), float(high))
    except Exception:  # not offered, or not numbers
        return None
    return limits if math.isfinite(limits[0]) and limits[0] <= limits[1] else None


def _short(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text if len(text) <= 80 else text[:77] + "..."


def _parse_size(text: str, spec: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+)x(\d+)", text.strip().lower())
    if not m or int(m.group(1)) <= 0 or int(m.group(2)) <= 0:
        raise CameraError(f"camera '{spec}': size must look like 1280x960")
    return int(m.group(1)), int(m.group(2))


def open_source(
    spec: str, *, loop: bool = False, sharpness: float | None = None, mains_hz: int | None = None
) -> FrameSource:
    """Open a frame source from a short text spec.

    * ``picamera`` or ``picamera:1280x960``: the Raspberry Pi camera;
    * ``usb:0``, ``usb:/dev/video2``, ``/dev/video2`` or ``0``: a webcam;
    * ``video:PATH``: a video file; ``folder:PATH``: the photos in a folder;
    * a bare path: a folder of photos, a single photo, or a video file.

    ``loop`` makes video and folder replays start over instead of running out;
    ``sharpness`` is the Pi camera's (:class:`PiCameraSource`), and only its; ``mains_hz``
    is the Pi camera's and a webcam's (:class:`DeviceSource`).
    """
    text = spec.strip()
    if not text:
        raise CameraError(f"no camera given: {_SPEC_HELP}")
    kind, sep, rest = text.partition(":")
    kind = kind.lower() if sep else ""
    if text.lower() == "picamera":
        return PiCameraSource(sharpness=sharpness, mains_hz=mains_hz)
    if kind == "picamera":
        size = _parse_size(rest, text)
        return PiCameraSource(size=size, sharpness=sharpness, mains_hz=mains_hz)
    if kind == "usb":
        if not rest:
            raise CameraError(f"camera '{text}': give a device, e.g. usb:0")
        return DeviceSource(rest, mains_hz=mains_hz)
    if kind in ("video", "folder"):
        # "folder: ~/throws" as a person writes it: the space is no part of the path.
        where = rest.strip()
        if not where:
            example = "video:/home/pi/throws.mp4" if kind == "video" else "folder:/home/pi/throws"
            raise CameraError(f"camera '{text}': give a path, e.g. {example}")
        try:
            path = Path(where).expanduser()
        except RuntimeError:  # ~name of no user here (or no home to find)
            user = where.split("/", 1)[0]
            raise CameraError(
                f"camera '{text}': {user} is the home of no user here "
                "(~ only for a user of this machine)"
            ) from None
        if kind == "video":
            return VideoFileSource(path, loop=loop)
        return FolderSource(path, loop=loop)
    if text.isdecimal() or text.startswith("/dev/video"):
        return DeviceSource(text, mains_hz=mains_hz)
    path = Path(text)
    with _looking_at(f"camera '{text}'"):
        is_dir, is_file = path.is_dir(), path.is_file()
    if is_dir:
        return FolderSource(path, loop=loop)
    if is_file:
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return ImageFilesSource([path], name=f"image:{path}", loop=loop)
        return VideoFileSource(path, loop=loop)
    if sep and kind.isalpha() and len(kind) > 1:
        raise CameraError(f"unknown camera '{text}': {_SPEC_HELP}")
    raise CameraError(f"camera '{text}': {_absent(path, 'file or folder')} ({_SPEC_HELP})")
