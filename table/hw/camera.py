"""The camera: frames from ``vision.sources`` in a thread of their own, and a
scripted camera for demos that shows a real photo of the dice of each throw.

Both only put :class:`Frame` (or one :class:`CameraFailed`) on the loop's
queue. They read only while the table wants dice (``want(True)``), so an idle
table does not spend its CPU on frames nobody looks at. At most a couple of
frames are in flight: the loop says ``frame_done()`` after each one, so a slow
reader never builds up a backlog of stale pictures.
"""

from __future__ import annotations

import contextlib
import math
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from table.service.ports import CameraFailed, CameraReady, Frame, Put

IN_FLIGHT = 2
SLOT_WAIT_S = 30.0
FROZEN_S = 10.0


def _blank(image: Any) -> bool:
    """A picture with nothing in it: a dark tray or a lens cap, the noise clipped to
    black (a hot pixel or two aside), may come out the same every time; that is for the
    reader to say ("too dark"). Blank: fewer than 1 % of the pixels of every 8th row and
    column stand 16 grey levels or more above the darkest."""
    sample = np.asarray(image)[::8, ::8]
    if sample.size == 0:
        return True
    raised = np.count_nonzero(sample >= int(sample.min()) + 16)
    return bool(raised < 0.01 * sample.size)


class _Paced:
    """Pause while not wanted, keep the pace, and cap the frames in flight."""

    def __init__(self, fps: float) -> None:
        self.period = 1.0 / fps
        self._wanted = threading.Event()
        self._stop = threading.Event()
        self._slots = threading.BoundedSemaphore(IN_FLIGHT)
        self._thread: threading.Thread | None = None
        self._resumed = False

    def want(self, flag: bool) -> None:
        if flag:
            if not self._wanted.is_set():
                self._resumed = True  # frames a live camera kept meanwhile are old
            self._wanted.set()
        else:
            self._wanted.clear()

    def frame_done(self) -> None:
        with contextlib.suppress(ValueError):
            self._slots.release()

    def _missed(self) -> None:
        """No frame came for the turn taken (the source failed): give its slot back and
        wait until the table next wants dice before trying again."""
        self.frame_done()
        self._wanted.clear()

    def _wait_turn(self) -> bool:
        """Wait until wanted and a slot is free; False when stopping. A reader slower
        than the camera (a second a frame) is waited for: going on after a second queued
        ever older frames ahead of the buttons. Only a slot not given back for
        ``SLOT_WAIT_S`` (a frame the loop never dealt with) is taken as free."""
        waited = 0.0
        while not self._stop.is_set():
            if not self._wanted.wait(0.2):
                continue
            if self._slots.acquire(timeout=0.2):
                return not self._stop.is_set()
            waited += 0.2
            if waited >= SLOT_WAIT_S:
                return not self._stop.is_set()
        return False

    def _start(self, target: Callable[[Put], None], put: Put, name: str) -> None:
        self._thread = threading.Thread(target=target, args=(put,), name=name, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._wanted.set()
        t = self._thread
        if t is not None and t is not threading.current_thread():
            t.join(timeout=3.0)


class SourceCamera(_Paced):
    """A ``vision.sources`` spec (picamera, usb:N, folder:PATH, video:PATH) read in a thread.

    A folder holds photos, one per throw: each is shown as a still tray, again and again,
    for as long as the table waits for that throw; the next throw gets the next photo.
    Shown one a frame, no two frames alike, its dice would never come to rest."""

    def __init__(
        self,
        spec: str,
        *,
        fps: float = 10.0,
        loop: bool = True,
        size: tuple[int, int] | None = None,
        sharpness: float | None = None,
        mains_hz: int | None = None,
    ) -> None:
        super().__init__(fps)
        self.spec = spec
        self.loop = loop
        self.size = size
        """The frame size asked of a webcam (``usb:``); a picamera spec carries its own."""
        self.sharpness = sharpness
        """The Pi camera's own sharpening (``camera.sharpness``); None: the camera's."""
        self.mains_hz = mains_hz
        """The mains frequency whose flicker the camera avoids (``camera.mains_hz``)."""
        self.source: Any = None
        self.photos = False
        """The source replays photos (a folder, one image): each is held as a still tray."""
        self._photo: Any = None  # a folder's photo of the throw being waited for
        self._rolled = threading.Event()  # thrown again while read: the folder's next photo
        self._last_image: Any = None  # a live camera's last frame, and since when the same
        self._same_since = 0.0
        self._told = False  # the journal was told of the source open now (``ready``)

    def open(self) -> None:
        """Open the source now (raises ``vision.sources.CameraError``)."""
        from vision.sources import DeviceSource, ImageFilesSource, open_source

        if self.source is None:
            kind, sep, rest = self.spec.strip().partition(":")
            if kind == "usb" and sep and rest and self.size is not None:
                self.source = DeviceSource(rest, size=self.size, mains_hz=self.mains_hz)
            else:
                self.source = open_source(
                    self.spec, loop=self.loop, sharpness=self.sharpness, mains_hz=self.mains_hz
                )
            self.photos = isinstance(self.source, ImageFilesSource)

    def rolled(self) -> None:
        """The dice were thrown again while the table reads: a folder shows its next photo
        (a live camera sees them move by itself)."""
        self._rolled.set()

    def _run(self, put: Put) -> None:
        """Frames while wanted. A source that fails (unplugged, a missing folder, any
        other fault of its driver) is reported once and closed; it is opened again when
        the table next wants dice (the player's "ROLL: try again"), so the thread never
        ends before ``close``."""
        from vision.sources import CameraError, SourceExhausted

        next_at = time.monotonic()
        try:
            while self._wait_turn():
                try:
                    self.open()
                    if self._stop.is_set():  # closing: ``close`` may not have seen it open
                        break
                    if self._rolled.is_set():
                        self._rolled.clear()
                        self._photo = None  # thrown again: a folder's next photo
                    if self._resumed:
                        self._resumed = False
                        self._photo = None  # a new throw: a folder's next photo
                        self._last_image = None  # a pause is not a picture standing still
                        # A webcam's driver kept frames from before the pause: the
                        # last throw's dice, lying still, which would settle at once.
                        drop = getattr(self.source, "drop_stale", None)
                        if drop is not None:
                            drop()
                    if self._photo is not None:
                        image = self._photo
                    else:
                        image = self.source.read()
                        if self.photos:
                            self._photo = image
                        elif self._frozen(image):
                            raise CameraError(
                                f"the picture has not changed for {FROZEN_S:g} s (camera stuck?)"
                            )
                        if not self._told:
                            self._told = True
                            told = self.ready(image)
                            if told:
                                put(CameraReady(told))
                except SourceExhausted as exc:
                    self._failed()
                    put(CameraFailed(str(exc)))
                    continue
                except CameraError as exc:
                    if self.photos and self.source is not None:
                        # One photo that cannot be read, not the folder: it is skipped,
                        # and the next throw gets the next photo, not the first again.
                        self._missed()
                        self._photo = None
                    else:
                        self._failed()
                    put(CameraFailed(str(exc)))
                    continue
                except Exception as exc:  # a driver or binding fault vision did not name:
                    # said like any camera fault, not a dead thread the table waits on
                    self._failed()
                    put(CameraFailed(f"{self.spec}: {type(exc).__name__}: {exc}"))
                    continue
                put(Frame(image, time.monotonic()))
                next_at = max(next_at + self.period, time.monotonic())
                self._stop.wait(max(0.0, next_at - time.monotonic()))
        finally:
            self._close_source()

    def ready(self, image: Any) -> str:
        """What a live camera just opened gives (``image``, its first frame) and how it
        was set up, for the journal: a webcam may give another size than the one asked,
        and may not take the mains' flicker filter. Nothing ("") for photos and videos."""
        settings = getattr(self.source, "settings", None)
        if not callable(settings):
            return ""
        h, w = np.asarray(image).shape[:2]
        size = f"{w}x{h} frames"
        asked = getattr(self.source, "size", None)
        if asked is not None and tuple(asked) != (w, h):
            size += f" ({asked[0]}x{asked[1]} asked)"
        return f"{self.spec} open: {size}; {settings()}"

    def _frozen(self, image: Any) -> bool:
        """A live camera's frames, bit for bit the same for ``FROZEN_S``: its driver
        hands out its last picture again (a sensor's noise changes every frame), and the
        table would wait on dice it never sees thrown. A video file may repeat frames."""
        from vision.sources import DeviceSource, PiCameraSource

        if not isinstance(self.source, (DeviceSource, PiCameraSource)):
            return False
        now = time.monotonic()
        same = self._last_image is not None and np.array_equal(self._last_image, image)
        if not same or _blank(image):
            self._last_image, self._same_since = image, now
            return False
        return now - self._same_since >= FROZEN_S

    def _failed(self) -> None:
        self._missed()
        self._close_source()
        self._photo = None
        self._last_image = None

    def _close_source(self) -> None:
        src, self.source = self.source, None
        self._told = False
        if src is not None:
            with contextlib.suppress(Exception):
                src.close()

    def close(self) -> None:
        # A video's read may be waiting on its damage check: it ends now, not after the
        # join below has given up and the thread has put a frame to a table that stopped.
        # Stopping first: a source the thread opens after this is not read (``_run``).
        self._stop.set()
        interrupt = getattr(self.source, "interrupt", None)
        if interrupt is not None:
            with contextlib.suppress(Exception):
                interrupt()
        super().close()

    def start(self, put: Put) -> None:
        self._start(self._run, put, "camera")


FRAMES_KEPT = 4
"""How many decoded frames ``ScriptedCamera`` keeps (the throws of a round repeat)."""

FRAME_NAME = re.compile(r"(dice_[1-6][1-6]|die_[1-6]|empty)")


def frame_files(folder: Path) -> list[Path]:
    """The frames in ``folder``, named as ``frame_name`` names them, with an image's
    suffix, regular files only (OSError if it cannot be listed)."""
    from vision.sources import IMAGE_SUFFIXES

    return sorted(
        p
        for p in folder.iterdir()
        if FRAME_NAME.fullmatch(p.stem) and p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()
    )


def frame_name(dice: tuple[int, ...]) -> str:
    """The file (without suffix) of a frame showing ``dice``: ``dice_63``, ``die_5``, ``empty``."""
    if not dice:
        return "empty"
    if len(dice) == 1:
        return f"die_{dice[0]}"
    hi, lo = max(dice), min(dice)
    return f"dice_{hi}{lo}"


# Where the shipped frames (``python -m table.service.make_frames``) lay the dice, in
# pixels of their 400 x 300 picture: six places well apart; value v lies at SPOT_A[v],
# and the second die of a double at the place across the board, SPOT_B[v] =
# SPOT_A[7 - v]. A die keeps its place from throw to throw, so a die left lying
# (mexen's hold) is where the referee saw it.
_GRID_X = (80, 200, 320)
_GRID_Y = (85, 215)
SPOT_A = {v: (_GRID_X[(v - 1) % 3], _GRID_Y[(v - 1) // 3]) for v in range(1, 7)}
SPOT_B = {v: SPOT_A[7 - v] for v in range(1, 7)}


def pair_positions(hi: int, lo: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Centres for the two dice of a pair (see SPOT_A / SPOT_B)."""
    return SPOT_A[hi], (SPOT_B[lo] if hi == lo else SPOT_A[lo])


def frame_centres(dice: tuple[int, ...]) -> list[tuple[int, tuple[int, int]]]:
    """(value, centre) of each die of a shipped frame."""
    if not dice:
        return []
    if len(dice) == 1:
        return [(dice[0], SPOT_A[dice[0]])]
    hi, lo = max(dice), min(dice)
    p1, p2 = pair_positions(hi, lo)
    return [(hi, p1), (lo, p2)]


# Since a value lies in one place whatever the throw, each throw's photo is shown moved
# by another of these shifts (x, y; right and down) than the throw shown before it and
# the last throw the table read: dice rolled land elsewhere, and the table counts no
# die lying as the last throw it read left it (a throw of 63 after 64 would leave the 6
# unthrown), however many throws it did not read between (STOP, "roll again"). The
# three are 13.3-13.6 px apart: more than an unrolled die shifts, less than a die may
# shift when left lying (MN-5) in the shipped frames, whose dice are 33-45 px across,
# and more than twice as far as a die of them lies from its nominal place (6.3 px):
# after a start, the shift the remembered dice were shown at is told from where they
# were read.
SHIFTS = ((0, 0), (9, 10), (13, -3))


class ScriptedCamera(_Paced):
    """Shows a real photo of the dice last thrown (``throw(dice)``), from a frame folder."""

    def __init__(self, frames_dir: Path, *, fps: float = 30.0) -> None:
        super().__init__(fps)
        self.frames_dir = frames_dir
        self._lock = threading.Lock()
        self._dice: tuple[int, ...] = ()
        self._shift = (0, 0)  # how far the photo shown is moved (x, y)
        # the shift of the dice the table read last (of those remembered from before a
        # start, the nearest), None before any
        self._tray: tuple[int, int] | None = None
        # The last few frames read, newest last: a folder of 48-megapixel photos, each
        # 144 MB decoded, all 21 kept, was 3 GB.
        self._cache: dict[tuple[int, ...], Any] = {}
        self._fresh = False
        self.pick: Callable[[], tuple[int, ...]] | None = None
        """Chooses the dice when the table wants a throw and none was made (keyboard play)."""

    def image_for(self, dice: tuple[int, ...]) -> Any:
        from vision.sources import CameraError, load_whole_image

        key = tuple(sorted(dice, reverse=True))
        if key not in self._cache:
            name = frame_name(key)
            # dice_63.jpg or .png, not dice_63.bak.jpg or dice_63.txt lying beside it,
            # nor a pipe of that name, which would hold the camera's thread
            try:
                found = [p for p in frame_files(self.frames_dir) if p.stem == name]
            except OSError:
                found = []  # a folder gone: no frame, as for a name not in it
            if not found:
                raise CameraError(f"{self.frames_dir}: no frame {name}.jpg for the throw {key}")
            # a frame damaged inside is refused, as a folder camera's photo is: checked
            # each time it is decoded
            self._cache[key] = load_whole_image(found[0])
            while len(self._cache) > FRAMES_KEPT:
                del self._cache[next(iter(self._cache))]
        else:
            self._cache[key] = self._cache.pop(key)  # the newest again
        return self._cache[key]

    def shifted(self, image: Any, by: tuple[int, int]) -> Any:
        """``image`` moved by ``by`` (x, y; down and right if positive), its edge rows
        and columns repeated."""
        import numpy as np

        dx, dy = by
        h, w = image.shape[:2]
        rest = [(0, 0)] * (image.ndim - 2)
        pad = [(max(dy, 0), max(-dy, 0)), (max(dx, 0), max(-dx, 0)), *rest]
        y0, x0 = max(-dy, 0), max(-dx, 0)
        return np.pad(image, pad, mode="edge")[y0 : y0 + h, x0 : x0 + w]

    def left_lying(self, dice: tuple[tuple[int, tuple[float, float]], ...]) -> None:
        """The dice the table remembers lying in the tray from before it started (its
        ``tray.json``): (value, centre) each. The tray is shown empty until a throw, as
        before; the throws after it are shown away from the shift those dice were shown
        at (the one that lays them nearest where they are remembered). Shown unmoved, or
        at one fixed shift for the first throw after a start, a throw sharing a value
        with them was "dice lie as last thrown" (or "a die was not thrown"), and the
        script's throw was never counted."""
        laid = frame_centres(tuple(v for v, _ in dice))

        def off(shift: tuple[int, int]) -> float:
            return sum(
                min(
                    (math.dist((x + shift[0], y + shift[1]), c) for v, (x, y) in laid if v == w),
                    default=0.0,
                )
                for w, c in dice
            )

        with self._lock:
            if not self._dice and dice:
                self._tray = min(SHIFTS, key=off)

    def read(self) -> None:
        """The table has read the throw shown (counted it, or its rules refused it): the
        next throw is shown away from these dice."""
        with self._lock:
            if self._dice:
                self._tray = self._shift

    def _thrown(self, dice: tuple[int, ...]) -> None:
        """The dice of a new throw lie in the tray (the lock held)."""
        avoid = {self._tray, self._shift if self._dice else None}
        self._shift = next(s for s in SHIFTS if s not in avoid)
        self._dice = tuple(dice)

    def throw(self, dice: tuple[int, ...]) -> None:
        """The dice now lying in the tray."""
        with self._lock:
            self._thrown(tuple(dice))
            self._fresh = True

    def want(self, flag: bool) -> None:
        if flag and not self._wanted.is_set():
            self._new_throw()
        super().want(flag)

    def rolled(self) -> None:
        """Thrown again while the table reads (after "roll again"): as a new throw."""
        self._new_throw()

    def _new_throw(self) -> None:
        """The dice of a throw the table now waits for: the ones ``throw`` gave since the
        last throw was waited for, else ``pick``'s, else the ones lying."""
        with self._lock:
            if not self._fresh and self.pick is not None:
                self._thrown(self.pick())
            self._fresh = False

    def _run(self, put: Put) -> None:
        from vision.sources import CameraError

        while self._wait_turn():
            with self._lock:
                dice, shift = self._dice, self._shift
            try:
                image = self.image_for(dice)
            except CameraError as exc:  # reported; tried again when next wanted
                self._missed()
                put(CameraFailed(str(exc)))
                continue
            put(Frame(self.shifted(image, shift) if shift != (0, 0) else image, time.monotonic()))
            self._stop.wait(self.period)

    def start(self, put: Put) -> None:
        self._start(self._run, put, "scripted-camera")
