"""Build the table's buttons, display and camera from the config, in one place.

Off a Raspberry Pi (no GPIO, no I2C display, no picamera2) each part falls back
to a stand-in, and :attr:`Parts.notes` says so, and why, in one line, e.g. ``no
GPIO here (lgpio: ...): keyboard buttons; display: no /dev/i2c-1 ...: display in
the terminal; camera replays frames from ...``. On a Pi, GPIO buttons that cannot
be used, tried again for ``GPIO_WAIT_S``, are a :class:`GpioUnavailable` (the service
has no keyboard to stand in; ``keys`` asks for it). A camera the config names is never
replaced by replayed photos: a ``folder:PATH`` or ``video:PATH`` is opened at once,
and one that cannot be opened is a :class:`ConfigError` naming ``camera.source``;
a ``usb:N`` webcam, like the Pi's camera, is opened when dice are first wanted, and
one that is not there is said on the display and tried again at the next ROLL.
"""

from __future__ import annotations

import contextlib
import importlib.util
import random
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from PIL import Image

from table.hw.camera import ScriptedCamera, SourceCamera
from table.hw.display import (
    OLED_RETRY_S,
    DisplayError,
    NullDisplay,
    OledDisplay,
    TerminalDisplay,
    open_oled,
)
from table.hw.keys import HELP as KEYS_HELP
from table.hw.keys import KeyButtons
from table.hw.script import ScriptButtons, Step, ThrowStep
from table.service.config import Config, ConfigError, DisplayConfig, DisplayDriver
from table.service.ports import Buttons, Camera, Display

if TYPE_CHECKING:
    from table.service.referee import DiceWanted

FRAMES_DIR = Path(__file__).resolve().parents[1] / "data" / "frames"


class TeeDisplay:
    """Show on several displays at once (the OLED and a PNG recorder). One that fails
    (an I2C error on the OLED) does not keep the screen from the others: each is given
    it, and the first error is raised after, for the loop to say."""

    def __init__(self, *displays: Display) -> None:
        self.displays = displays

    def _each(self, act: Callable[[Display], None]) -> None:
        first: Exception | None = None
        for d in self.displays:
            try:
                act(d)
            except Exception as exc:
                if first is None:
                    first = exc
        if first is not None:
            raise first

    def show_text(self, text: str) -> None:
        def one(d: Display) -> None:
            fn = getattr(d, "show_text", None)
            if callable(fn):
                fn(text)

        self._each(one)

    def show(self, image: Image.Image) -> None:
        self._each(lambda d: d.show(image))

    def close(self) -> None:
        self._each(lambda d: d.close())


@dataclass
class Parts:
    buttons: Buttons | None
    display: Display
    camera: Camera | None
    notes: list[str] = field(default_factory=list)
    script: ScriptButtons | None = None
    scripted_camera: ScriptedCamera | None = None
    recorder: TerminalDisplay | None = None

    @property
    def summary(self) -> str:
        return "; ".join(self.notes)


class RandomThrows:
    """Picks a throw for the scripted camera each time the table waits for dice: as
    many dice as the table wants (one in a mexen tie-break, MN-10), the die left lying
    kept as it lay (MN-5). ``ask`` tells what the table wants (the loop's
    ``dice_wanted``); without it, two dice."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.ask: Callable[[], DiceWanted | None] | None = None

    def __call__(self) -> tuple[int, ...]:
        wanted = self.ask() if self.ask is not None else None
        if wanted is None:
            return (self.rng.randint(1, 6), self.rng.randint(1, 6))
        if wanted.held is not None:
            rest = tuple(self.rng.randint(1, 6) for _ in range(wanted.count - 1))
            return (wanted.held, *rest)
        return tuple(self.rng.randint(1, 6) for _ in range(wanted.count))


class GpioUnavailable(RuntimeError):
    """The GPIO buttons cannot be used here; ``str(err)`` says why, in one line.
    ``pin``: the GPIO is there, one button's pin is not to be had."""

    def __init__(self, why: str, *, pin: bool = False) -> None:
        super().__init__(why)
        self.pin = pin


# On a Pi, GPIO that cannot be opened is tried again every GPIO_RETRY_S for GPIO_WAIT_S
# before the table stops: at boot, udev may not yet have given /dev/gpiochip* to the gpio
# group when the service starts, and the service is not started again after that stop
# (exit 2). A fault that lasts (no gpio group, no lgpio) stops it GPIO_WAIT_S later.
GPIO_WAIT_S = 20.0
GPIO_RETRY_S = 1.0
_gpio_sleep: Callable[[float], object] = time.sleep
_gpio_clock: Callable[[], float] = time.monotonic


def _gpio_buttons_in_time(cfg: Config, first: GpioUnavailable) -> tuple[Buttons, int]:
    """The GPIO buttons, tried again after ``first`` failed until GPIO_WAIT_S has
    passed; with the number of tries it took. A pin not to be had is not waited for."""
    if first.pin:
        raise first
    deadline = _gpio_clock() + GPIO_WAIT_S
    tries = 1
    while _gpio_clock() < deadline:
        _gpio_sleep(GPIO_RETRY_S)
        tries += 1
        try:
            return _gpio_buttons(cfg), tries
        except GpioUnavailable as exc:
            if exc.pin:
                raise
            first = exc
    raise first


def _gpio_buttons(cfg: Config) -> Buttons:
    from table.hw.buttons import GpioButtons, PinUnusable

    with warnings.catch_warnings(record=True) as tried:
        warnings.simplefilter("always")  # gpiozero warns about each pin factory it tries
        try:
            return GpioButtons(cfg.buttons)
        except PinUnusable as exc:
            raise GpioUnavailable(_short(str(exc)), pin=True) from None
        except Exception as exc:
            # gpiozero's own error ("Unable to load any default pin factory!") hides why:
            # that is in the warning of the first factory tried (lgpio on a Pi).
            first = next((str(w.message) for w in tried if "Falling back" in str(w.message)), "")
            why = first.removeprefix("Falling back from ") or f"{type(exc).__name__}: {exc}"
            raise GpioUnavailable(_short(why)) from None


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 120 else line[:117] + "..."


def _has_picamera() -> bool:
    with contextlib.suppress(ImportError, ValueError):
        return importlib.util.find_spec("picamera2") is not None
    return False


PI_MODEL_FILES = (Path("/sys/firmware/devicetree/base/model"), Path("/proc/device-tree/model"))


def _on_a_pi() -> bool:
    """A Raspberry Pi, by its device tree: there a missing camera is a fault to show,
    never a reason to replay photos (their throws are not the dice in the tray)."""
    for path in PI_MODEL_FILES:
        with contextlib.suppress(OSError):
            if b"Raspberry Pi" in path.read_bytes():
                return True
    return False


def _open_camera(cfg: Config, fps: float) -> SourceCamera:
    """The replay camera the config names, opened now: one that cannot be opened (a
    missing folder, a file that is no video) is a mistake in the config, and stops the
    table at the start instead of being found out at the first throw, or replaced by
    made-up throws."""
    from vision.sources import CameraError

    spec = cfg.camera.source
    camera = SourceCamera(spec, fps=fps, size=(cfg.camera.width, cfg.camera.height))
    try:
        camera.open()
    except CameraError as exc:
        where = f"{cfg.path}: " if cfg.path is not None else ""
        raise ConfigError(
            f'{where}camera.source: "{spec}" cannot be used ({_short(str(exc))}) '
            "(allowed: picamera, usb:N with a webcam plugged in, folder:PATH of photos, "
            "video:PATH of a video file)"
        ) from None
    return camera


def build(
    cfg: Config,
    *,
    keys: bool = False,
    script: tuple[Step, ...] | None = None,
    frames: Path | None = None,
    png_dir: Path | None = None,
    gif_path: Path | None = None,
    text_out: TextIO | None = sys.stdout,
    force_stand_ins: bool = False,
    seed: int | None = None,
) -> Parts:
    """Everything the loop needs besides the referee. ``force_stand_ins`` never touches hardware."""
    notes: list[str] = []

    # -- camera first: a script's throws go to the scripted camera
    camera: Camera | None
    scripted: ScriptedCamera | None = None
    fps = cfg.camera.fps
    # A script's throws are shown by the shipped frames unless the config names a camera:
    # then, as on a Pi, that camera reads the dice and the throw steps are not used.
    # --stand-ins keeps a camera that is no device (folder:, video:): photos are no hardware.
    kind = cfg.camera.source.partition(":")[0]
    picamera = kind == "picamera"
    use_frames = frames is not None or (force_stand_ins and kind in ("picamera", "usb"))
    throws = script is not None and any(isinstance(step, ThrowStep) for step in script)
    if not use_frames and picamera and not _has_picamera() and not _on_a_pi():
        notes.append(f"no camera ({cfg.camera.source}) here")
        use_frames = True
    if use_frames:
        folder = frames if frames is not None else FRAMES_DIR
        scripted = ScriptedCamera(folder, fps=max(fps, 20.0))
        if not throws:
            scripted.pick = RandomThrows(seed)
            notes.append(f"camera replays frames from {folder} (a random throw per ROLL)")
        else:
            notes.append(f"camera replays frames from {folder} (the script's throws)")
        camera = scripted
    elif picamera:  # opened at the first throw: a missing camera is said on the display
        spec = cfg.camera.source
        if spec == "picamera":
            spec = f"picamera:{cfg.camera.width}x{cfg.camera.height}"
        camera = SourceCamera(
            spec, fps=fps, sharpness=cfg.camera.sharpness, mains_hz=cfg.camera.mains_hz
        )
    elif cfg.camera.source.startswith("usb:"):
        # A webcam can be plugged in later: like the picamera, it is opened when dice are
        # wanted, a missing one is said on the display ("ROLL: try again") and opened
        # again at the next ROLL. Stopping the service instead would leave the display
        # blank, and systemd gives up on a unit that keeps stopping.
        size = (cfg.camera.width, cfg.camera.height)
        camera = SourceCamera(cfg.camera.source, fps=fps, size=size, mains_hz=cfg.camera.mains_hz)
    else:
        camera = _open_camera(cfg, fps)
    if scripted is None and throws:
        notes.append(f"the script's throws are not used: the camera ({cfg.camera.source}) reads")

    # -- buttons
    buttons: Buttons | None
    script_buttons: ScriptButtons | None = None
    if script is not None:
        script_buttons = ScriptButtons(
            script, on_throw=scripted.throw if scripted is not None else None
        )
        buttons = script_buttons
        n = len(script)
        notes.append(f"buttons from a script ({n} step{'' if n == 1 else 's'})")
    elif keys or force_stand_ins:
        buttons = KeyButtons()
        notes.append(f"keyboard buttons ({KEYS_HELP})")
    else:
        try:
            buttons = _gpio_buttons(cfg)
        except GpioUnavailable as exc:
            if _on_a_pi():  # the service has no keyboard: the buttons would be dead
                try:
                    buttons, tries = _gpio_buttons_in_time(cfg, exc)
                except GpioUnavailable:
                    if camera is not None:
                        camera.close()
                    raise
                notes.append(f"GPIO buttons ready at try {tries} (after: {exc})")
            else:
                buttons = KeyButtons()
                where = f"pin {exc}" if exc.pin else f"no GPIO here ({exc})"
                notes.append(f"{where}: keyboard buttons ({KEYS_HELP})")

    # -- display
    display: Display
    recorder: TerminalDisplay | None = None
    driver = cfg.display.driver
    if driver in (DisplayDriver.SSD1306, DisplayDriver.SH1106) and not force_stand_ins:
        oled: OledDisplay | None = None
        try:
            oled = OledDisplay(cfg.display, oled=open_oled(cfg.display))
        except DisplayError as exc:
            if _on_a_pi():  # the service's screens would go to the journal, the OLED dark
                oled = OledDisplay(cfg.display)
                notes.append(f"{exc}: tried again every {OLED_RETRY_S:g} s")
            else:
                recorder = TerminalDisplay(out=text_out, png_dir=png_dir, gif_path=gif_path)
                display = recorder
                notes.append(f"{exc}: display in the terminal")
        if oled is not None:
            display = oled
            if png_dir is not None or gif_path is not None:
                recorder = TerminalDisplay(out=None, png_dir=png_dir, gif_path=gif_path)
                display = TeeDisplay(oled, recorder)
    elif driver is DisplayDriver.NONE and png_dir is None and gif_path is None:
        display = NullDisplay()
    else:
        out = text_out if driver is not DisplayDriver.NONE else None
        recorder = TerminalDisplay(out=out, png_dir=png_dir, gif_path=gif_path)
        display = recorder
        if out is not None:
            notes.append("display in the terminal")
    return Parts(
        buttons=buttons,
        display=display,
        camera=camera,
        notes=notes,
        script=script_buttons,
        scripted_camera=scripted,
        recorder=recorder,
    )


def show_fault(cfg: DisplayConfig, title: str, text: str, hint: str) -> bool:
    """Say a fault that stops the table on its OLED, and leave it there after the
    process ends (luma's ``persist``): a person at the table sees why the table does not
    start, not a blank screen. False when there is no OLED to say it on."""
    from table.service import screens

    if cfg.driver not in (DisplayDriver.SSD1306, DisplayDriver.SH1106):
        return False
    try:
        oled = open_oled(cfg)
    except DisplayError:
        return False
    try:
        oled.show(screens.render(screens.Message(title, text, hint)))
        oled.device.persist = True  # cleanup at exit would blank it
        return True
    except Exception:
        return False
