"""Displays: luma's dummy device shows exactly what screens.render drew; the terminal stand-in."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageChops

from table.hw.build import TeeDisplay
from table.hw.display import NullDisplay, TerminalDisplay, dummy_display
from table.service import screens
from table.service.ports import DISPLAY_SIZE
from tests.conftest import close_parts, seen_as_pi

FRAMES = Path(__file__).resolve().parents[1] / "table" / "data" / "frames"


SCREENS: list[screens.Screen] = [
    screens.Menu("rules", "mexico", 1, 3),
    screens.Turn("P1", "round 2  throw 1/3", "roll, then press ROLL", "P1 3  P2 2"),
    screens.Result("P2", "MEX!", "throw 2/3", "ROLL again  STOP stand"),
    screens.Message("camera", "no picture", "ROLL: try again"),
]


def same(a: Image.Image, b: Image.Image) -> bool:
    return (
        a.size == b.size and ImageChops.difference(a.convert("L"), b.convert("L")).getbbox() is None
    )


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: type(s).__name__)
def test_dummy_device_keeps_the_rendered_screen(screen: screens.Screen) -> None:
    display = dummy_display()
    image = screens.render(screen)
    assert image.mode == "1" and image.size == DISPLAY_SIZE
    display.show(image)
    assert display.device.image is not None
    assert same(display.device.image, image)
    assert image.getbbox() is not None  # something is drawn


def test_dummy_device_shows_the_last_of_several() -> None:
    display = dummy_display()
    for s in SCREENS:
        display.show(screens.render(s))
    assert same(display.device.image, screens.render(SCREENS[-1]))
    assert not same(display.device.image, screens.render(SCREENS[0]))
    assert display.shown == len(SCREENS)


def test_rotation_turns_the_picture() -> None:
    display = dummy_display(rotate=2)
    image = screens.render(SCREENS[1])
    display.show(image)
    assert same(display.device.image, image.rotate(180))


def test_wrong_size_is_refused() -> None:
    with pytest.raises(ValueError, match="128x64"):
        dummy_display().show(Image.new("1", (64, 32)))


def test_terminal_display_prints_text_and_keeps_distinct_frames(tmp_path: Path) -> None:
    out = io.StringIO()
    gif = tmp_path / "d.gif"
    t = [0.0]

    def clock() -> float:
        t[0] += 0.5
        return t[0]

    term = TerminalDisplay(out=out, png_dir=tmp_path / "png", gif_path=gif, clock=clock)
    for s in [SCREENS[0], SCREENS[0], SCREENS[1], SCREENS[2]]:
        term.show_text(screens.render_text(s))
        term.show(screens.render(s))
    term.close()
    assert len(term.pngs) == 3  # the repeated screen is kept once
    for png, s in zip(term.pngs, [SCREENS[0], SCREENS[1], SCREENS[2]], strict=True):
        assert same(Image.open(png), screens.render(s))
    text = out.getvalue()
    assert text.count("mexico") == 1 and "MEX!" in text and "P1" in text
    with Image.open(gif) as anim:
        assert anim.n_frames == 3
        assert anim.size == (DISPLAY_SIZE[0] * 4, DISPLAY_SIZE[1] * 4)


def test_the_terminal_display_keeps_screens_for_a_gif_only_and_its_last_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every screen was kept as an image for the whole run, GIF or not: an evening at the
    table in the terminal grew by about 300 kB a game, and the GIF made at exit from
    9,600 screens took 2.7 GB."""
    import table.hw.display as display

    many = [Image.new("1", DISPLAY_SIZE, 0) for _ in range(7)]
    for i, img in enumerate(many):
        img.putpixel((i, 0), 1)  # seven distinct screens
    plain = TerminalDisplay(out=None)
    for img in many:
        plain.show(img)
    assert plain.shown == 7 and not plain.frames and plain.last is not None
    assert same(plain.last, many[-1])
    monkeypatch.setattr(display, "GIF_FRAMES", 4)
    gif = tmp_path / "d.gif"
    kept = display.TerminalDisplay(out=None, gif_path=gif)
    for img in many:
        kept.show(img)
    kept.close()
    with Image.open(gif) as anim:
        assert anim.n_frames == 4
        anim.seek(3)
        last = anim.convert("1").resize(DISPLAY_SIZE, Image.Resampling.NEAREST)
    assert same(last, many[-1])


def test_a_table_started_again_numbers_its_pngs_on_after_the_last_runs(tmp_path: Path) -> None:
    """They were written from frame_0001.png again, over the screens of the last run."""
    png = tmp_path / "png"
    first = TerminalDisplay(out=None, png_dir=png)
    for s in SCREENS[:2]:
        first.show(screens.render(s))
    second = TerminalDisplay(out=None, png_dir=png)
    second.show(screens.render(SCREENS[2]))
    assert [p.name for p in second.pngs] == ["frame_0003.png"]
    assert sorted(p.name for p in png.glob("*.png")) == [
        "frame_0001.png",
        "frame_0002.png",
        "frame_0003.png",
    ]
    assert same(Image.open(png / "frame_0001.png"), screens.render(SCREENS[0]))


def test_a_png_named_with_a_digit_int_does_not_take_is_passed_over(tmp_path: Path) -> None:
    """``frame_².png`` in the folder: "²" passes str.isdigit, not int(), and the display
    could not be made (``run --png-dir`` stopped with a ValueError)."""
    png = tmp_path / "png"
    png.mkdir()
    (png / "frame_\u00b2.png").write_bytes(b"")
    display = TerminalDisplay(out=None, png_dir=png)
    display.show(screens.render(SCREENS[0]))
    assert [p.name for p in display.pngs] == ["frame_0001.png"]


def test_tee_and_null_displays() -> None:
    a, b = dummy_display(), dummy_display()
    tee = TeeDisplay(a, b, NullDisplay())
    tee.show(screens.render(SCREENS[3]))
    tee.close()
    assert same(a.device.image, b.device.image)
    assert same(a.device.image, screens.render(SCREENS[3]))


def test_off_a_pi_every_part_falls_back_and_says_so_in_one_line() -> None:
    import importlib.util

    from table.hw.build import _on_a_pi, build
    from table.hw.keys import KeyButtons
    from table.service.config import Config

    if (
        Path("/dev/i2c-1").exists()
        or importlib.util.find_spec("picamera2") is not None
        or _on_a_pi()
    ):
        pytest.skip("this machine has Pi hardware")
    parts = build(Config(), text_out=io.StringIO())
    try:
        summary = parts.summary
        assert "\n" not in summary
        assert "no GPIO here (" in summary and "): keyboard buttons" in summary
        assert "display in the terminal" in summary
        assert "camera replays frames from" in summary and "no camera (picamera) here" in summary
        assert isinstance(parts.buttons, KeyButtons)
        assert isinstance(parts.display, TerminalDisplay)
    finally:
        parts.display.close()


# -- what the journal says when a part is missing, and a named camera that is not there


def _no_pi(monkeypatch: pytest.MonkeyPatch) -> None:
    """GPIO as gpiozero fails on a Pi whose lgpio cannot start (first factory's warning)."""
    import warnings

    from gpiozero.exc import BadPinFactory, PinFactoryFallback

    class NoPins:
        def __init__(self, cfg: object) -> None:
            warnings.warn(
                PinFactoryFallback(
                    "Falling back from lgpio: [Errno 2] No such file or directory: '.lgd-nfy-3'"
                ),
                stacklevel=1,
            )
            warnings.warn(PinFactoryFallback("Falling back from rpigpio: no RPi"), stacklevel=1)
            raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.setattr("table.hw.buttons.GpioButtons", NoPins)


def test_the_note_says_why_the_gpio_buttons_are_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    from table.hw.build import build
    from table.service.config import CameraConfig, Config, DisplayConfig, DisplayDriver

    _no_pi(monkeypatch)
    cfg = Config(
        display=DisplayConfig(driver=DisplayDriver.NONE),
        camera=CameraConfig(source=f"folder:{FRAMES}"),
    )
    parts = build(cfg, text_out=io.StringIO())
    try:
        assert (
            "no GPIO here (lgpio: [Errno 2] No such file or directory: '.lgd-nfy-3'): "
            "keyboard buttons" in parts.summary
        )
    finally:
        close_parts(parts)


class _NoDeviceOnTheBus:
    """luma's i2c interface with nothing answering at the address (a wrong i2c_address)."""

    def __init__(self, port: int, address: int) -> None:
        self.address = address

    def command(self, *cmd: int) -> None:
        from luma.core.error import DeviceNotFoundError

        raise DeviceNotFoundError(f"I2C device not found on address: 0x{self.address:02X}")

    data = command

    def cleanup(self) -> None:
        pass


def test_a_missing_oled_is_named_in_the_note(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from table.hw import display
    from table.hw.build import build
    from table.service.config import CameraConfig, Config, DisplayConfig

    _no_pi(monkeypatch)
    camera = CameraConfig(source=f"folder:{FRAMES}")
    # no bus at all (I2C off in the boot config)
    monkeypatch.setattr(display, "I2C_DEV", str(tmp_path / "i2c-{port}"))
    parts = build(Config(camera=camera), text_out=io.StringIO())
    try:
        assert f"display: no {tmp_path / 'i2c-1'} for the ssd1306 (is I2C on?" in parts.summary
        assert "display in the terminal" in parts.summary
    finally:
        close_parts(parts)
    # the bus is there, nothing answers at the address configured
    (tmp_path / "i2c-1").touch()
    monkeypatch.setattr("luma.core.interface.serial.i2c", _NoDeviceOnTheBus)
    cfg = Config(camera=camera, display=DisplayConfig(i2c_address=0x3D))
    parts = build(cfg, text_out=io.StringIO())
    try:
        assert (
            "display: ssd1306 at I2C bus 1 address 0x3D not answering (I2C device not found "
            "on address: 0x3D; check the wiring and display.i2c_address): "
            "display in the terminal" in parts.summary
        )
        assert "\n" not in parts.summary
    finally:
        close_parts(parts)


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("folder:/nonexistent", "folder:/nonexistent: no such folder"),
        ("video:{readme}", "not a video OpenCV can read"),
        # Path.expanduser raised RuntimeError: "internal error" instead of this line
        ("folder:~nosuchuser-dicetable/x", "~nosuchuser-dicetable is the home of no user"),
    ],
)
def test_a_camera_named_in_the_config_that_is_not_there_stops_the_table(
    source: str, why: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from table.hw.build import build
    from table.service.config import CameraConfig, Config, ConfigError, DisplayConfig
    from table.service.config import DisplayDriver as Driver

    _no_pi(monkeypatch)
    readme = tmp_path / "notes.txt"
    readme.write_text("not a video\n")
    spec = source.format(readme=readme)
    cfg = Config(
        camera=CameraConfig(source=spec),
        display=DisplayConfig(driver=Driver.NONE),
        path=tmp_path / "dicetable.toml",
    )
    with pytest.raises(ConfigError) as err:
        build(cfg, text_out=io.StringIO())
    message = str(err.value)
    assert message.startswith(f'{tmp_path / "dicetable.toml"}: camera.source: "{spec}" cannot ')
    assert why in message and "(allowed: picamera, usb:N" in message and "\n" not in message


def _real_camera_started(parts: Any) -> tuple[Any, Any]:
    """The config's own camera (no replayed photos in its place), started: it and the
    queue its events go to."""
    import queue

    from table.hw.camera import SourceCamera
    from table.service.ports import TableEvent

    camera = parts.camera
    assert isinstance(camera, SourceCamera) and parts.scripted_camera is None
    assert "replays" not in parts.summary
    q: queue.Queue[TableEvent] = queue.Queue()
    camera.start(q.put)
    return camera, q


def test_a_folder_camera_in_the_config_is_opened_and_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:

    from table.hw.build import build
    from table.service.config import CameraConfig, Config, DisplayConfig, DisplayDriver

    _no_pi(monkeypatch)
    cfg = Config(
        camera=CameraConfig(source=f"folder:{FRAMES}"),
        display=DisplayConfig(driver=DisplayDriver.NONE),
    )
    _gives_a_frame(build(cfg, text_out=io.StringIO()))


def _gives_a_frame(parts: Any) -> None:
    """The config's own camera, started and wanted, puts a frame on its queue."""
    from table.service.ports import Frame

    camera, q = _real_camera_started(parts)
    camera.want(True)
    try:
        assert isinstance(q.get(timeout=30), Frame)
    finally:
        camera.close()
        parts.display.close()


def test_a_script_plays_its_presses_on_the_camera_the_config_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--script`` with a config naming a camera: that camera reads the dice (a button
    test at a real table), and the script's throws, which only replayed frames can show,
    are said not to be used. Without a named camera they are shown, as before."""
    from table.hw.build import build
    from table.hw.script import parse_script
    from table.service.config import CameraConfig, Config, DisplayConfig, DisplayDriver

    _no_pi(monkeypatch)
    script = parse_script('["throw 6 3", "roll", "quit"]')
    cfg = Config(
        camera=CameraConfig(source=f"folder:{FRAMES}"),
        display=DisplayConfig(driver=DisplayDriver.NONE),
    )
    parts = build(cfg, script=script, text_out=io.StringIO())
    assert "the script's throws are not used" in parts.summary
    _gives_a_frame(parts)
    plain = Config(display=DisplayConfig(driver=DisplayDriver.NONE))  # picamera, not here
    parts = build(plain, script=script, text_out=io.StringIO())
    try:
        assert parts.scripted_camera is not None and "the script's throws" in parts.summary
    finally:
        parts.display.close()
    # --stand-ins keeps off devices; photos in a folder are none: they are still read
    parts = build(cfg, script=script, force_stand_ins=True, text_out=io.StringIO())
    assert parts.scripted_camera is None and "the script's throws are not used" in parts.summary
    _gives_a_frame(parts)


def _webcam_fails_then_frames(
    monkeypatch: pytest.MonkeyPatch, webcam: type, mend: Callable[[], None] = lambda: None
) -> str:
    """The config's camera ``usb:9`` started with ``webcam`` in place of a real one: the
    reason of its first event, which must be a CameraFailed. The camera must then, once
    not wanted, ``mend``ed and wanted again, give a Frame."""
    from table.hw.build import build
    from table.service.config import CameraConfig, Config, DisplayConfig, DisplayDriver
    from table.service.ports import CameraFailed, Frame

    monkeypatch.setattr("vision.sources.DeviceSource", webcam)
    _no_pi(monkeypatch)
    cfg = Config(
        camera=CameraConfig(source="usb:9"), display=DisplayConfig(driver=DisplayDriver.NONE)
    )
    parts = build(cfg, text_out=io.StringIO())
    camera, q = _real_camera_started(parts)
    try:
        camera.want(True)
        failed = q.get(timeout=30)
        assert isinstance(failed, CameraFailed)
        camera.want(False)
        mend()
        camera.want(True)
        assert isinstance(q.get(timeout=30), Frame)
        return failed.reason
    finally:
        camera.close()
        parts.display.close()


def test_a_webcam_that_is_not_there_is_said_at_the_throw_and_tried_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A webcam unplugged at boot used to stop the service at every start (a blank
    display, and systemd gives up after 20 starts). It is now said on the display when
    dice are wanted, and opened again the next time: plugged in by then, it works."""
    from vision.sources import CameraError

    plugged = [False]

    class Webcam:
        def __init__(self, device: str, **kw: Any) -> None:  # size=, mains_hz=
            if not plugged[0]:
                raise CameraError(f"usb:{device}: cannot open camera")

        def read(self) -> Any:
            return np.zeros((48, 64, 3), np.uint8)

        def close(self) -> None:
            pass

    def plug_in() -> None:
        plugged[0] = True

    reason = _webcam_fails_then_frames(monkeypatch, Webcam, plug_in)
    assert "usb:9: cannot open camera" in reason


def test_a_camera_fault_that_is_no_camera_error_is_said_and_tried_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A driver or OpenCV fault that vision.sources does not turn into a CameraError (an
    OverflowError from the bindings, say) used to end the camera thread with a traceback:
    the table then waited for dice that never came, with nothing on the display. It is
    said like any camera fault, and the camera is opened again when dice are next wanted."""
    reads = [0]

    class Webcam:
        def __init__(self, device: str, **kw: Any) -> None:  # size=, mains_hz=
            pass

        def read(self) -> Any:
            reads[0] += 1
            if reads[0] == 1:
                raise OverflowError("Python int too large to convert to C int")
            return np.zeros((48, 64, 3), np.uint8)

        def close(self) -> None:
            pass

    reason = _webcam_fails_then_frames(monkeypatch, Webcam)
    assert reason == "usb:9: OverflowError: Python int too large to convert to C int"


def test_a_webcam_is_asked_for_the_frame_size_and_mains_in_the_config(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from table.hw.build import build
    from table.hw.camera import SourceCamera
    from table.service.config import CameraConfig, Config, DisplayConfig, DisplayDriver

    opened: list[tuple[str, tuple[int, int] | None, int | None]] = []

    class Webcam:
        def __init__(
            self, device: str, *, size: tuple[int, int] | None = None, mains_hz: int | None = None
        ) -> None:
            opened.append((device, size, mains_hz))

        def close(self) -> None:
            pass

    monkeypatch.setattr("vision.sources.DeviceSource", Webcam)
    _no_pi(monkeypatch)
    cfg = Config(
        camera=CameraConfig(source="usb:2", width=640, height=480, mains_hz=60),
        display=DisplayConfig(driver=DisplayDriver.NONE),
    )
    parts = build(cfg, text_out=io.StringIO())
    try:
        assert isinstance(parts.camera, SourceCamera)
        assert opened == []  # opened when dice are first wanted
        parts.camera.open()
        assert opened == [("2", (640, 480), 60)]
    finally:
        close_parts(parts)


def test_on_a_pi_without_picamera2_the_camera_fault_is_shown_not_replaced(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Replayed photos make up throws that are not the dice in the tray: on a Pi a
    picamera that cannot be used is said at the first throw, never stood in for."""

    from table.hw import build as build_module
    from table.service.config import Config, DisplayConfig, DisplayDriver
    from table.service.ports import CameraFailed

    seen_as_pi(monkeypatch, tmp_path)
    monkeypatch.setattr(build_module, "_has_picamera", lambda: False)
    _no_pi(monkeypatch)
    parts = build_module.build(
        Config(display=DisplayConfig(driver=DisplayDriver.NONE)), keys=True, text_out=io.StringIO()
    )
    camera, q = _real_camera_started(parts)
    camera.want(True)
    try:
        failed = q.get(timeout=30)
        assert isinstance(failed, CameraFailed) and failed.reason.startswith("picamera: ")
    finally:
        camera.close()
        parts.display.close()


def test_on_a_pi_gpio_buttons_that_cannot_be_used_stop_the_table_and_say_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On a Pi whose GPIO could not be opened the table fell back to the keyboard, which
    under the service reads /dev/null: it showed the menu and no button did anything,
    with the reason in the journal only. There, as a camera, the buttons are never stood
    in for: the table stops with the reason in the journal and on the OLED."""
    from table.cli import main
    from table.hw import build as build_module
    from table.service.config import CameraConfig, Config, DisplayConfig, DisplayDriver

    seen_as_pi(monkeypatch, tmp_path)
    _no_pi(monkeypatch)
    cfg = Config(
        display=DisplayConfig(driver=DisplayDriver.NONE),
        camera=CameraConfig(source=f"folder:{FRAMES}"),
    )
    with pytest.raises(build_module.GpioUnavailable, match="lgpio"):
        build_module.build(cfg, text_out=io.StringIO())
    # asked for, the keyboard is still used
    parts = build_module.build(cfg, keys=True, text_out=io.StringIO())
    parts.display.close()
    if parts.camera is not None:
        parts.camera.close()

    shown: list[Any] = []

    def oled(cfg: DisplayConfig) -> Any:
        display = dummy_display()
        shown.append(display)
        return display

    monkeypatch.setattr(build_module, "open_oled", oled)
    conf = tmp_path / "dicetable.toml"
    conf.write_text(f'[camera]\nsource = "folder:{FRAMES}"\n')
    code = main(["run", "--config", str(conf), "--data", str(tmp_path / "data")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "buttons" in err and "lgpio" in err
    assert len(shown) == 1
    blank = screens.render(screens.Message("", "", ""))
    assert not same(shown[0].device.image, blank)


class FlakyBus:
    """An I2C bus for luma's ssd1306: takes every write until ``fail`` says a loose wire."""

    def __init__(self) -> None:
        self.fail = False
        self.writes = 0

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        if self.fail:
            import errno

            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        self.writes += 1

    def close(self) -> None:
        pass


def test_an_oled_that_fails_mid_game_leaves_the_recording_whole(tmp_path: Path) -> None:
    """An I2C error on the OLED mid-game (a loose wire) is said once in the journal and
    the game goes on; the screens still reach the PNG recording beside it (--png-dir).
    The recorder came after the OLED and got nothing while the OLED failed."""
    from luma.core.interface.serial import i2c
    from luma.oled.device import ssd1306

    from table.hw.display import LumaDisplay
    from table.service.demo import DEMO_SETTINGS
    from table.service.loop import TableLoop
    from table.service.ports import Button, ButtonPress
    from table.service.referee import Settings
    from table.service.resume import DataDir

    bus = FlakyBus()
    oled = LumaDisplay(ssd1306(i2c(bus=bus, address=0x3C), width=128, height=64))
    recorder = TerminalDisplay(out=None, png_dir=tmp_path / "png")
    errors = io.StringIO()
    loop = TableLoop(
        data=DataDir(tmp_path / "data"),
        settings=Settings.from_json(DEMO_SETTINGS["mexico"]),
        buttons=None,
        display=TeeDisplay(oled, recorder),
        camera=None,
        errors=errors,
    )
    loop.boot()
    assert recorder.shown == 1
    bus.fail = True
    assert loop.handle(ButtonPress(Button.HOLD)) is True  # the menu's next choice
    assert loop.handle(ButtonPress(Button.HOLD)) is True
    assert loop.faults == 0
    assert loop.referee is not None and loop.shown is not None
    assert loop.shown.screen == loop.referee.screen
    assert errors.getvalue().count("display:") == 1
    assert "I2C device not found" in errors.getvalue() and "Traceback" not in errors.getvalue()
    assert recorder.shown == 3 and recorder.last is not None
    assert same(recorder.last, screens.render(loop.referee.screen))
    bus.fail = False
    assert loop.handle(ButtonPress(Button.HOLD)) is True
    assert errors.getvalue().count("display: working again") == 1
    assert recorder.shown == 4
    loop.close()


class RecordingBus(FlakyBus):
    """A FlakyBus that keeps the commands sent (register 0x00) and the picture data
    (register 0x40)."""

    def __init__(self) -> None:
        super().__init__()
        self.commands: list[int] = []
        self.data: list[int] = []

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        super().write_i2c_block_data(address, register, data)
        if register == 0x00:
            self.commands += data
        elif register == 0x40:
            self.data += data


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def _oled_on(bus: FlakyBus, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``open_oled`` finds an I2C bus and builds luma's ssd1306 on ``bus``."""
    from luma.core.interface import serial

    from table.hw import display

    real_i2c = serial.i2c
    (tmp_path / "i2c-1").touch()
    monkeypatch.setattr(display, "I2C_DEV", str(tmp_path / "i2c-{port}"))
    monkeypatch.setattr(serial, "i2c", lambda port, address: real_i2c(bus=bus, address=address))


def test_an_oled_that_lost_its_power_is_set_up_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """luma sends an SSD1306 its set-up (charge pump on, display on) only when it builds
    the device. After a power dip the panel starts dark: the pictures written after it
    came back were taken, "display: working again" was said, and the OLED stayed black."""
    from table.hw.display import DisplayError, OledDisplay, open_oled
    from table.service.config import DisplayConfig

    bus = RecordingBus()
    _oled_on(bus, monkeypatch, tmp_path)
    cfg = DisplayConfig()
    clock = Clock()
    oled = OledDisplay(cfg, oled=open_oled(cfg), clock=clock, retry_s=5.0)
    picture = screens.render(SCREENS[0])
    oled.show(picture)
    assert 0xAF in bus.commands  # display on, at the start
    bus.fail = True
    with pytest.raises(Exception, match="I2C device not found"):
        oled.show(picture)
    bus.fail = False
    bus.commands.clear()
    clock.t += 1.0
    with pytest.raises(DisplayError):  # not tried again this soon
        oled.show(picture)
    assert bus.commands == []
    clock.t += 5.0
    oled.show(picture)
    assert bus.commands[:1] == [0xE3]  # asked first with a command that does nothing
    assert {0x8D, 0x14, 0xAF} <= set(bus.commands)  # charge pump on, display on
    bus.commands.clear()
    oled.show(picture)  # working: no set-up again
    assert 0xAF not in bus.commands
    oled.close()


def test_an_oled_missing_at_the_start_on_a_pi_is_tried_again_not_printed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """On a Pi whose OLED did not answer at the start, every screen went to the journal
    as a text box and the OLED stayed dark for the whole evening, even once its wire was
    pushed back. Now the table says it once, and the screen shown when the OLED answers
    is the one the game is at."""
    from table.hw import build as build_module
    from table.hw.display import OledDisplay
    from table.service.config import CameraConfig, Config
    from table.service.demo import DEMO_SETTINGS
    from table.service.loop import TableLoop
    from table.service.ports import Button, ButtonPress, Tick
    from table.service.referee import Settings
    from table.service.resume import DataDir

    bus = RecordingBus()
    bus.fail = True
    _oled_on(bus, monkeypatch, tmp_path)
    seen_as_pi(monkeypatch, tmp_path)
    out = io.StringIO()
    parts = build_module.build(
        Config(camera=CameraConfig(source=f"folder:{FRAMES}")), keys=True, text_out=out
    )
    try:
        assert isinstance(parts.display, OledDisplay)
        assert "not answering" in parts.summary and "tried again every 5 s" in parts.summary
    finally:
        close_parts(parts)

    clock = Clock()
    oled = OledDisplay(parts.display.cfg, clock=clock, retry_s=5.0)
    errors = io.StringIO()
    loop = TableLoop(
        data=DataDir(tmp_path / "data"),
        settings=Settings.from_json(DEMO_SETTINGS["mexico"]),
        buttons=None,
        display=oled,
        camera=None,
        errors=errors,
        clock=clock,
    )
    loop.boot()
    assert loop.handle(ButtonPress(Button.HOLD))
    clock.t += 6.0
    assert loop.handle(Tick(clock.t))
    assert errors.getvalue().count("display:") == 1 and "not answering" in errors.getvalue()
    assert out.getvalue() == ""  # nothing printed
    bus.fail = False
    clock.t += 6.0
    assert loop.handle(Tick(clock.t))
    assert "display: working again" in errors.getvalue()
    assert oled.oled is not None and loop.referee is not None
    assert {0x8D, 0x14, 0xAF} <= set(bus.commands)
    assert loop.display_fault is None and loop.shown is not None
    assert loop.shown.screen == loop.referee.screen  # the menu's next choice, not the boot's
    loop.close()


def test_a_button_pin_held_by_another_program_is_named(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    factory: Any,
) -> None:
    """A pin already in use ("GPIO busy" from lgpio) was said as "buttons: no GPIO
    (error: 'GPIO busy'); --keys plays with the keyboard": no pin, no setting, and a
    keyboard the Pi's service does not have."""
    from gpiozero import Button as GpioButton

    from table.cli import main
    from table.hw.buttons import GpioButtons, PinUnusable
    from table.service.config import ButtonsConfig

    other = GpioButton(27, pin_factory=factory)  # another program's hold on GPIO 27
    try:
        with pytest.raises(PinUnusable, match=r"^buttons\.hold = 27: .*in use"):
            GpioButtons(ButtonsConfig(), pin_factory=factory)
        assert GpioButtons(ButtonsConfig(hold=5), pin_factory=factory).close() is None

        seen_as_pi(monkeypatch, tmp_path)
        conf = tmp_path / "dicetable.toml"
        conf.write_text(f'[camera]\nsource = "folder:{FRAMES}"\n[display]\ndriver = "none"\n')
        code = main(["run", "--config", str(conf), "--data", str(tmp_path / "data")])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1
        assert "buttons.hold = 27" in err and "another program" in err
        assert "no GPIO" not in err and "--keys" not in err
    finally:
        other.close()


def test_a_screen_in_grey_is_shown_as_the_same_black_and_white_picture(tmp_path: Path) -> None:
    """A screen handed over in grey (mode "L", as an image editor saves it) is the same
    picture in black and white on the OLED and in the recording: handed on as it is,
    luma's device would refuse it, and the GIF would read its bytes as one bit a pixel,
    as noise."""
    image = screens.render(SCREENS[2])
    grey = image.convert("L")
    oled = dummy_display()
    oled.show(grey)
    assert same(oled.device.image, image)
    gif = tmp_path / "d.gif"
    term = TerminalDisplay(out=None, png_dir=tmp_path / "png", gif_path=gif)
    term.show(grey)
    term.show(image)  # the same picture again: kept once
    assert term.shown == 1
    term.close()
    with Image.open(term.pngs[0]) as png:
        assert png.mode == "1" and same(png, image)
    with Image.open(gif) as anim:
        frame = anim.convert("1").resize(DISPLAY_SIZE, Image.Resampling.NEAREST)
    assert same(frame, image)


def test_a_luma_device_that_takes_colour_is_given_the_screen_in_its_mode() -> None:
    """A luma device whose pictures are in colour (mode "RGB": a colour OLED, the dummy
    device in RGB) refuses a one-bit image: it is given the screen in its own mode."""
    from luma.core.device import dummy

    from table.hw.display import LumaDisplay

    device = dummy(width=DISPLAY_SIZE[0], height=DISPLAY_SIZE[1], mode="RGB")
    display = LumaDisplay(device)
    image = screens.render(SCREENS[0])
    display.show(image)
    assert device.image.mode == "RGB" and same(device.image, image)


def test_stopping_the_table_with_the_oled_s_wire_loose_still_ends_cleanly() -> None:
    """With the OLED's wire loose, stopping the table still ends cleanly: an OLED that does
    not answer cannot be turned off, and closing it says nothing. Otherwise turning it off
    would raise an I2C error out of the display's close, said in the journal as a fault
    of stopping."""
    from luma.core.interface.serial import i2c
    from luma.oled.device import ssd1306

    from table.hw.display import LumaDisplay

    bus = FlakyBus()
    oled = LumaDisplay(ssd1306(i2c(bus=bus, address=0x3C), width=128, height=64))
    oled.show(screens.render(SCREENS[0]))
    bus.fail = True
    oled.close()  # no error


def test_an_sh1106_in_the_config_is_driven_as_an_sh1106(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``display.driver = "sh1106"`` is driven as an SH1106, written page by page. Driven
    as an SSD1306, whose way of writing a picture (one run over the whole memory) an
    SH1106 does not have, the picture would come out shifted, with a stripe of noise."""
    from luma.oled.device import sh1106, ssd1306

    from table.hw.display import open_oled
    from table.service.config import DisplayConfig, DisplayDriver

    bus = RecordingBus()
    _oled_on(bus, monkeypatch, tmp_path)
    sh = open_oled(DisplayConfig(driver=DisplayDriver.SH1106))
    assert isinstance(sh.device, sh1106)
    bus.commands.clear()
    sh.show(screens.render(SCREENS[0]))
    assert set(range(0xB0, 0xB8)) <= set(bus.commands)  # each of the eight pages
    assert isinstance(open_oled(DisplayConfig()).device, ssd1306)


def test_stand_ins_leave_an_oled_that_answers_alone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``--stand-ins`` never touches hardware, even an OLED that answers (on a Pi whose
    service is running): the screens go to the terminal, and nothing is sent on the bus,
    which would write over the service's screen."""
    from table.hw.build import build
    from table.service.config import CameraConfig, Config

    bus = RecordingBus()
    _oled_on(bus, monkeypatch, tmp_path)
    cfg = Config(camera=CameraConfig(source=f"folder:{FRAMES}"))
    parts = build(cfg, force_stand_ins=True, text_out=io.StringIO())
    try:
        parts.display.show(screens.render(SCREENS[0]))
        assert isinstance(parts.display, TerminalDisplay)
        assert bus.writes == 0
    finally:
        close_parts(parts)


def test_an_oled_that_answers_and_a_png_dir_both_get_the_screens(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With the OLED answering, ``--png-dir`` still records each screen: the OLED shows
    it and the folder gets its PNG, as it does with no OLED."""
    from table.hw.build import build
    from table.service.config import CameraConfig, Config

    bus = RecordingBus()
    _oled_on(bus, monkeypatch, tmp_path)
    cfg = Config(camera=CameraConfig(source=f"folder:{FRAMES}"))
    parts = build(cfg, png_dir=tmp_path / "png", text_out=io.StringIO())
    try:
        image = screens.render(SCREENS[0])
        bus.data = []
        parts.display.show(image)
        assert len(bus.data) == 128 * 64 // 8
        assert parts.recorder is not None and len(parts.recorder.pngs) == 1
        with Image.open(parts.recorder.pngs[0]) as png:
            assert same(png, image)
    finally:
        close_parts(parts)


def test_an_oled_mounted_upside_down_is_sent_the_screen_turned(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``display.rotate = 2`` (an OLED mounted upside down in the box) reaches the real
    OLED: the picture it is sent is the screen turned half round. Dropped on the way, the
    players would read every screen upside down."""
    from table.hw.display import open_oled
    from table.service.config import DisplayConfig

    image = screens.render(SCREENS[0])
    bus = RecordingBus()
    _oled_on(bus, monkeypatch, tmp_path)
    sent = []
    for rotate, shown in ((2, image), (0, image.rotate(180))):
        oled = open_oled(DisplayConfig(rotate=rotate))
        bus.data = []  # the blank screen luma sends at its start
        oled.show(shown)
        sent.append(list(bus.data))
    assert len(sent[0]) == 128 * 64 // 8  # one bit a pixel
    assert sent[0] == sent[1]


class _NothingAnswers:
    """luma's i2c interface on a bus where nothing answers; says when it is closed."""

    opened: list[_NothingAnswers] = []

    def __init__(self, port: int, address: int) -> None:
        self.closed = False
        _NothingAnswers.opened.append(self)

    def command(self, *cmd: int) -> None:
        raise OSError(121, "Remote I/O error")

    def cleanup(self) -> None:
        self.closed = True


def test_an_oled_that_does_not_answer_leaves_no_bus_open(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An OLED that does not answer is tried again every few seconds all evening: each
    try closes the I2C bus it opened; left open, there would be one more open file every
    few seconds."""
    from table.hw import display
    from table.service.config import DisplayConfig

    (tmp_path / "i2c-1").touch()
    monkeypatch.setattr(display, "I2C_DEV", str(tmp_path / "i2c-{port}"))
    monkeypatch.setattr("luma.core.interface.serial.i2c", _NothingAnswers)
    monkeypatch.setattr(_NothingAnswers, "opened", [])
    for _ in range(3):
        with pytest.raises(display.DisplayError, match="not answering"):
            display.open_oled(DisplayConfig())
    assert len(_NothingAnswers.opened) == 3
    assert all(bus.closed for bus in _NothingAnswers.opened)


def test_an_oled_missing_at_the_start_is_not_asked_at_every_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An OLED missing at the start is asked again every few seconds, as the note at the
    start says, not at every screen and tick: otherwise a new I2C bus would be opened and
    a set-up sent to nothing at every button pressed."""
    from table.hw import display
    from table.service.config import DisplayConfig

    tries: list[float] = []
    clock = Clock()

    def missing(cfg: DisplayConfig) -> Any:
        tries.append(clock.t)
        raise display.DisplayError("display: ssd1306 at I2C bus 1 address 0x3C not answering")

    monkeypatch.setattr(display, "open_oled", missing)
    oled = display.OledDisplay(DisplayConfig(), clock=clock, retry_s=5.0)
    picture = screens.render(SCREENS[0])
    for t in (0.0, 1.0, 2.0, 4.5, 6.0, 7.0):
        clock.t = t
        with pytest.raises(display.DisplayError, match="^ssd1306 at I2C bus 1 .*not answering"):
            oled.show(picture)
    assert tries == [0.0, 6.0]


class _Panel:
    """A luma device that takes pictures until ``fail`` holds the error of a loose wire."""

    mode = "1"

    def __init__(self) -> None:
        self.fail: BaseException | None = None
        self.image: Image.Image | None = None

    def display(self, image: Image.Image) -> None:
        if self.fail is not None:
            raise self.fail
        self.image = image

    def cleanup(self) -> None:
        pass


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (OSError(121, "Remote I/O error"), "not answering ([Errno 121] Remote I/O error)"),
        (TimeoutError(), "not answering (TimeoutError)"),
        (
            RuntimeError("I2C transfer failed:\n" + "0x3C " * 40),
            "not answering (" + ("I2C transfer failed: " + "0x3C " * 40)[:77] + "...)",
        ),
    ],
    ids=["errno", "no-message", "long"],
)
def test_an_oled_that_cannot_be_set_up_again_says_why_in_one_short_line(
    error: BaseException, said: str
) -> None:
    """An OLED that stopped answering and then failed its set-up is said in the journal in
    one short line, as not answering and why. Otherwise it would read as the bare error
    ("display: DisplayError: [Errno 121] Remote I/O error", with no word of the OLED not
    answering), as nothing at all for an error with no message, or as a whole screen of
    text."""
    from table.hw.display import DisplayError, LumaDisplay, OledDisplay
    from table.service.config import DisplayConfig

    def set_up_again() -> Any:
        raise error

    panel = _Panel()
    clock = Clock()
    oled = OledDisplay(
        DisplayConfig(), oled=LumaDisplay(panel, wake=set_up_again), clock=clock, retry_s=5.0
    )
    picture = screens.render(SCREENS[0])
    oled.show(picture)
    panel.fail = OSError(121, "Remote I/O error")
    with pytest.raises(OSError):
        oled.show(picture)
    clock.t += 6.0
    with pytest.raises(DisplayError) as err:
        oled.show(picture)
    assert str(err.value) == said
    assert len(said) <= len("not answering ()") + 80 and "\n" not in said


def test_closing_the_table_turns_the_oled_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Closing the display turns the panel off: left on, the OLED would go on showing its
    last screen after the table stopped, as if the table were still playing."""
    from table.hw.display import OledDisplay, open_oled
    from table.service.config import DisplayConfig

    bus = RecordingBus()
    _oled_on(bus, monkeypatch, tmp_path)
    cfg = DisplayConfig()
    oled = OledDisplay(cfg, oled=open_oled(cfg))
    oled.show(screens.render(SCREENS[0]))
    bus.commands.clear()
    oled.close()
    assert 0xAE in bus.commands  # display off


def test_the_terminal_box_is_square_whatever_its_lines(tmp_path: Path) -> None:
    """The terminal's box around a screen is square, whatever its lines: otherwise short
    lines would end early, and a line longer than the box would run through its border."""
    out = io.StringIO()
    term = TerminalDisplay(out=out)
    term.show_text("[rules] (1/3)\n  > Bartholomew-Maximilian the Magnificent\nHOLD next")
    lines = out.getvalue().splitlines()
    assert len(lines) == 5
    assert len({len(line) for line in lines}) == 1
    assert lines[0] == lines[-1] and set(lines[0][1:-1]) == {"-"}
    assert all(line.startswith("|") and line.endswith("|") for line in lines[1:-1])
    assert "|  > Bartholomew-Maximilian the Magnificent|" in lines


def test_a_picture_drawn_again_in_the_same_image_is_recorded_again(tmp_path: Path) -> None:
    """A screen drawn into the same image as the one before it is recorded: the display
    keeps the picture, not the image itself. Keeping the image, it would see the new
    screen as the same as the last one kept and not record it, and the first PNG would
    show the second screen."""
    term = TerminalDisplay(out=None, png_dir=tmp_path / "png")
    image = screens.render(SCREENS[0])
    first = image.copy()
    term.show(image)
    image.paste(screens.render(SCREENS[1]))
    term.show(image)
    assert term.shown == 2 and len(term.pngs) == 2
    with Image.open(term.pngs[0]) as png:
        assert same(png, first)


def _gif_of(tmp_path: Path, times: list[float], name: str = "d.gif") -> TerminalDisplay:
    """A terminal display that was shown one distinct screen at each of ``times``."""
    clock = iter(times)
    term = TerminalDisplay(out=None, gif_path=tmp_path / name, clock=lambda: next(clock))
    for i in range(len(times)):
        image = screens.render(SCREENS[i % len(SCREENS)])
        image.putpixel((127, 63), 1)
        image.putpixel((i, 63), 1)
        term.show(image)
    return term


def _durations(gif: Path) -> list[int]:
    with Image.open(gif) as anim:
        out = []
        for i in range(anim.n_frames):
            anim.seek(i)
            out.append(int(anim.info["duration"]))
        return out


def test_the_gif_passes_over_a_screen_left_for_long_and_holds_the_last_one(
    tmp_path: Path,
) -> None:
    """A screen left for long (the players away from the table for ten minutes) passes in
    a few seconds in the GIF, and its last screen (who won) is held long enough to read:
    otherwise the GIF would hold that screen ten minutes too, and the last would flash by
    before it started over."""
    term = _gif_of(tmp_path, [0.0, 600.0, 601.0, 601.1])
    term.close()
    durations = _durations(tmp_path / "d.gif")
    assert len(durations) == 4
    assert durations[0] <= 3000  # ten minutes: a few seconds
    assert durations[1] == 1000 and durations[2] == 400  # at their own pace, or a glance
    assert durations[-1] >= 1000  # the last: long enough to read


def test_the_gif_is_written_into_a_folder_not_there_yet(tmp_path: Path) -> None:
    """``--gif recordings/evening.gif`` with no folder ``recordings`` yet: the folder is
    made; otherwise the GIF would not be written when the table stopped."""
    term = _gif_of(tmp_path, [0.0, 1.0], name="recordings/evening.gif")
    term.close()
    assert (tmp_path / "recordings" / "evening.gif").is_file()


def test_a_gif_that_cannot_be_written_keeps_the_one_there_and_says_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk under ``--gif``: the GIF was written straight over the old one, which
    was lost for a GIF cut short, and the message ("closing the display: [Errno 28] No
    space left on device") named no file. Now it is written beside and renamed over, and
    the error names the GIF."""
    first = _gif_of(tmp_path, [0.0, 1.0])
    first.close()
    gif = tmp_path / "d.gif"
    before = gif.read_bytes()

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    import table.gamelog

    monkeypatch.setattr(table.gamelog.os, "fsync", disk_full)
    second = _gif_of(tmp_path, [0.0, 1.0, 2.0])
    with pytest.raises(OSError, match=f"the GIF {gif} was not written \\(No space left"):
        second.close()
    assert gif.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["d.gif"]


def test_a_terminal_display_that_showed_nothing_closes_without_a_gif(tmp_path: Path) -> None:
    """A table stopped before its first screen closes without a GIF: making a GIF of no
    screens would end with an IndexError."""
    term = TerminalDisplay(out=None, gif_path=tmp_path / "d.gif")
    term.close()
    assert not (tmp_path / "d.gif").exists()


def test_the_gif_shows_the_screen_s_pixels_sharp(tmp_path: Path) -> None:
    """The GIF, four times the OLED's size, shows each pixel of the screen as a square of
    four by four, black or white: smoothed, the letters would come out blurred in grey."""
    term = _gif_of(tmp_path, [0.0])
    picture = Image.frombytes("1", DISPLAY_SIZE, term.frames[0][1])
    term.close()
    big = (DISPLAY_SIZE[0] * 4, DISPLAY_SIZE[1] * 4)
    with Image.open(tmp_path / "d.gif") as anim:
        frame = anim.convert("L")
    assert set(frame.get_flattened_data()) <= {0, 255}
    assert same(frame, picture.convert("L").resize(big, Image.Resampling.NEAREST))
