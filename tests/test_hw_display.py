"""Displays: luma's dummy device shows exactly what screens.render drew; the terminal stand-in."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from table.hw.build import TeeDisplay
from table.hw.display import NullDisplay, TerminalDisplay, dummy_display
from table.service import screens
from table.service.ports import DISPLAY_SIZE

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


def test_tee_and_null_displays() -> None:
    a, b = dummy_display(), dummy_display()
    tee = TeeDisplay(a, b, NullDisplay())
    tee.show(screens.render(SCREENS[3]))
    tee.close()
    assert same(a.device.image, b.device.image)
    assert same(a.device.image, screens.render(SCREENS[3]))


def test_off_a_pi_every_part_falls_back_and_says_so_in_one_line() -> None:
    import importlib.util

    from table.hw.build import build
    from table.hw.keys import KeyButtons
    from table.service.config import Config

    if Path("/dev/i2c-1").exists() or importlib.util.find_spec("picamera2") is not None:
        pytest.skip("this machine has Pi hardware")
    parts = build(Config(), text_out=io.StringIO())
    try:
        summary = parts.summary
        assert "\n" not in summary
        assert "no GPIO here: keyboard buttons" in summary
        assert "display in the terminal" in summary
        assert "camera replays frames from" in summary and "no camera (picamera) here" in summary
        assert isinstance(parts.buttons, KeyButtons)
        assert isinstance(parts.display, TerminalDisplay)
    finally:
        parts.display.close()
