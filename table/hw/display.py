"""The 128x64 OLED (luma.oled ssd1306 / sh1106 over I2C) and its stand-ins.

* :class:`LumaDisplay`: a luma device; built lazily from the config
  (:func:`open_oled`), or luma's ``dummy`` device in tests (it keeps the last image).
* :class:`OledDisplay`: the real OLED, opened when it answers and set up again after
  a fault (an OLED that lost its power comes back dark).
* :class:`TerminalDisplay`: prints each new screen as text, saves each distinct
  frame as a PNG and, on close, an animated GIF of them all.
* :class:`NullDisplay`: no display.
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from PIL import Image

from table.gamelog import atomic_write
from table.service.config import DisplayConfig, DisplayDriver
from table.service.ports import DISPLAY_SIZE

I2C_DEV = "/dev/i2c-{port}"


class DisplayError(RuntimeError):
    """The display cannot be opened; ``str(err)`` is one line for people."""


def _as_mono(image: Image.Image) -> Image.Image:
    if image.size != DISPLAY_SIZE:
        raise ValueError(f"a screen is {DISPLAY_SIZE[0]}x{DISPLAY_SIZE[1]}, got {image.size}")
    return image if image.mode == "1" else image.convert("1")


class LumaDisplay:
    """Any luma device (ssd1306, sh1106, dummy). ``wake`` sends a real OLED its set-up
    again; without one (the dummy device) waking does nothing."""

    def __init__(self, device: Any, wake: Callable[[], Any] | None = None) -> None:
        self.device = device
        self.shown = 0
        self._wake = wake

    def wake(self) -> None:
        """Set the device up again, as at its start (raises while it does not answer)."""
        if self._wake is not None:
            self.device = self._wake()

    def show(self, image: Image.Image) -> None:
        mono = _as_mono(image)
        mode = getattr(self.device, "mode", "1")
        self.device.display(mono if mode == "1" else mono.convert(mode))
        self.shown += 1

    def close(self) -> None:
        with contextlib.suppress(Exception):  # a stuck display must not stop the shutdown
            self.device.cleanup()


def dummy_display(rotate: int = 0) -> LumaDisplay:
    """luma's ``dummy`` device: keeps the last image (``display.device.image``)."""
    from luma.core.device import dummy

    device = dummy(width=DISPLAY_SIZE[0], height=DISPLAY_SIZE[1], rotate=rotate, mode="1")
    # dummy.cleanup would blank the screen; tests want to see the last image.
    device.cleanup = lambda: None
    return LumaDisplay(device)


def open_oled(cfg: DisplayConfig) -> LumaDisplay:
    """The real OLED on I2C. DisplayError when the bus or the device is not there."""
    try:
        from luma.core.interface.serial import i2c
        from luma.oled.device import sh1106, ssd1306
    except ImportError as exc:
        raise DisplayError(f"display: luma.oled is missing ({exc})") from None
    where = f"I2C bus {cfg.i2c_port} address 0x{cfg.i2c_address:02X}"
    bus = Path(I2C_DEV.format(port=cfg.i2c_port))
    if not bus.exists():
        raise DisplayError(
            f"display: no {bus} for the {cfg.driver.value} (is I2C on? "
            "dtparam=i2c_arm=on in the boot config; display.i2c_port)"
        )
    try:
        serial = i2c(port=cfg.i2c_port, address=cfg.i2c_address)
    except Exception as exc:
        raise DisplayError(f"display: no {where} ({_short(exc)})") from None
    kind = sh1106 if cfg.driver is DisplayDriver.SH1106 else ssd1306

    def set_up() -> Any:
        # A command that does nothing first: while nothing answers, no device is built
        # (luma keeps each one it builds until the process ends).
        serial.command(NOP)
        return kind(serial, width=DISPLAY_SIZE[0], height=DISPLAY_SIZE[1], rotate=cfg.rotate)

    try:
        device = set_up()
    except Exception as exc:
        with contextlib.suppress(Exception):
            serial.cleanup()
        raise DisplayError(
            f"display: {cfg.driver.value} at {where} not answering ({_short(exc)}; "
            "check the wiring and display.i2c_address)"
        ) from None
    return LumaDisplay(device, wake=set_up)


NOP = 0xE3
"""The command that does nothing, on both the SSD1306 and the SH1106."""

OLED_RETRY_S = 5.0
"""How often an OLED that is not answering is tried again."""


class OledDisplay:
    """The OLED on I2C, as the table uses it: opened at the first screen if it was not
    there at the start, and set up again after a screen it failed to take (a loose wire
    or a power dip: an SSD1306 that lost its power comes back dark, and luma sends the
    set-up only when it builds the device). While it does not answer, ``show`` raises
    :class:`DisplayError` at once, trying again at most every ``retry_s``; the loop says
    the fault once and sends the screen again at its next tick."""

    def __init__(
        self,
        cfg: DisplayConfig,
        *,
        oled: LumaDisplay | None = None,
        clock: Callable[[], float] = time.monotonic,
        retry_s: float = OLED_RETRY_S,
    ) -> None:
        self.cfg = cfg
        self.oled = oled
        self.clock = clock
        self.retry_s = retry_s
        self._stale = False  # it failed a screen: set it up before the next
        self._tried_at: float | None = None
        self._why = "not answering"

    def _ready(self) -> LumaDisplay:
        oled = self.oled
        if oled is not None and not self._stale:
            return oled
        now = self.clock()
        if self._tried_at is not None and now - self._tried_at < self.retry_s:
            raise DisplayError(self._why)
        self._tried_at = now
        try:
            if oled is None:
                oled = self.oled = open_oled(self.cfg)
            else:
                oled.wake()
        except Exception as exc:
            # The loop says "display: DisplayError: ..." already.
            why = str(exc) if isinstance(exc, DisplayError) else f"not answering ({_short(exc)})"
            self._why = why.removeprefix("display: ")
            raise DisplayError(self._why) from None
        self._stale = False
        return oled

    def show(self, image: Image.Image) -> None:
        oled = self._ready()
        try:
            oled.show(image)
        except Exception:
            self._stale = True
            self._tried_at = self.clock()
            raise

    def close(self) -> None:
        if self.oled is not None:
            self.oled.close()


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 80 else text[:77] + "..."


class NullDisplay:
    def show(self, image: Image.Image) -> None:
        pass

    def close(self) -> None:
        pass


GIF_FRAMES = 600
"""The GIF holds the last this many screens: it is made at exit with all its frames in
memory, about 130 kB each at four times the size (the PNGs keep every screen)."""


class TerminalDisplay:
    """Shows screens as text; each distinct frame is a PNG (``png_dir``), and the last
    ``GIF_FRAMES`` are a GIF at the end (``gif_path``). Nothing else is kept: a table on
    for an evening grew by a screen's image a screen (about 300 kB a game)."""

    def __init__(
        self,
        *,
        out: TextIO | None = sys.stdout,
        png_dir: Path | None = None,
        gif_path: Path | None = None,
        gif_scale: int = 4,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.out = out
        self.png_dir = png_dir
        self.gif_path = gif_path
        self.gif_scale = gif_scale
        self.clock = clock
        self.frames: deque[tuple[float, bytes]] = deque(maxlen=GIF_FRAMES)
        """(time, pixels) of the screens the GIF will show; kept only for a GIF."""
        self.last: Image.Image | None = None
        """The screen shown last."""
        self.shown = 0
        """Distinct screens shown (a screen shown again at once counts once)."""
        self.pngs: list[Path] = []
        self._last_text: str | None = None
        self._first_png = 1
        if png_dir is not None:
            png_dir.mkdir(parents=True, exist_ok=True)
            # A table started again (after a power cut, or q) numbers on after the PNGs
            # already there instead of writing over the screens of the last run.
            self._first_png = 1 + max(
                (int(p.stem[6:]) for p in png_dir.glob("frame_*.png") if p.stem[6:].isdecimal()),
                default=0,
            )

    def show_text(self, text: str) -> None:
        """The screen as text (from ``screens.render_text``); printed when it changes."""
        if self.out is None or text == self._last_text:
            return
        self._last_text = text
        rows = text.splitlines()
        # The OLED's proportional font fits more than 21 fixed-width characters:
        # widen the box for a long line rather than cut what the screen shows.
        width = max([DISPLAY_SIZE[0] // 6, *(len(r) for r in rows)])
        bar = "+" + "-" * width + "+"
        lines = [bar] + [f"|{line:<{width}}|" for line in rows] + [bar]
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()

    def show(self, image: Image.Image) -> None:
        mono = _as_mono(image).copy()
        pixels = mono.tobytes()
        if self.last is not None and self.last.tobytes() == pixels:
            return
        self.last = mono
        self.shown += 1
        if self.gif_path is not None:
            self.frames.append((self.clock(), pixels))
        if self.png_dir is not None:
            path = self.png_dir / f"frame_{self._first_png + self.shown - 1:04d}.png"
            mono.save(path)
            self.pngs.append(path)

    def save_gif(self, path: Path) -> Path | None:
        """An animated GIF of the frames kept, at their own pace (each at least 0.4 s)."""
        if not self.frames:
            return None
        scale = self.gif_scale
        size = (DISPLAY_SIZE[0] * scale, DISPLAY_SIZE[1] * scale)
        images = [
            Image.frombytes("1", DISPLAY_SIZE, data)
            .convert("L")
            .resize(size, Image.Resampling.NEAREST)
            for _, data in self.frames
        ]
        times = [t for t, _ in self.frames]
        durations = [
            max(400, min(3000, int((b - a) * 1000))) for a, b in zip(times, times[1:], strict=False)
        ] + [2000]
        buf = io.BytesIO()
        images[0].save(
            buf, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0
        )
        try:  # written beside and renamed over: a full disk keeps the GIF there was
            atomic_write(path, buf.getvalue())
        except OSError as exc:
            raise OSError(f"the GIF {path} was not written ({exc.strerror or exc})") from exc
        return path

    def close(self) -> None:
        if self.gif_path is not None:
            self.save_gif(self.gif_path)
