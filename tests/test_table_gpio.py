"""The whole table on gpiozero's mock pins and luma's dummy OLED: a game of each rule set.

Presses are pins driven low and high (pull-ups: low = pressed), the camera shows
real photos of the dice thrown, the real pip reader and settler read them, and
the dummy device must end up holding exactly the picture of the last screen.
"""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from table.game import replay
from table.gamelog import load
from table.hw.buttons import GpioButtons
from table.hw.camera import ScriptedCamera
from table.hw.display import dummy_display
from table.service import screens
from table.service.config import ButtonsConfig
from table.service.demo import DEMO_PLAYS, DEMO_SETTINGS, menu_presses
from table.service.loop import TableLoop, vision_parts
from table.service.ports import Put, Quit
from table.service.referee import Settings
from table.service.resume import DataDir

FRAMES = Path(__file__).resolve().parents[1] / "table" / "data" / "frames"
HELD_S = {"": 0.1, "long": 1.5, "very_long": 3.5}


class FakeClock:
    """The buttons' clock: press lengths are what the test says, not what the machine took."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class StartedButtons(GpioButtons):
    """GPIO buttons that tell the test when the loop has started listening to them."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.listening = threading.Event()

    def start(self, put: Put) -> None:
        super().start(put)
        self.listening.set()


@pytest.mark.parametrize("rules", list(DEMO_PLAYS))
def test_whole_game_on_mock_pins_and_the_dummy_oled(
    tmp_path: Path, rules: str, factory: MockFactory
) -> None:
    cfg = ButtonsConfig()
    clock = FakeClock()
    buttons = StartedButtons(cfg, pin_factory=factory, clock=clock)
    display = dummy_display()
    camera = ScriptedCamera(FRAMES, fps=60)
    reader, settler = vision_parts(3)
    data = DataDir(tmp_path / "data")
    loop = TableLoop(
        data=data,
        settings=Settings.from_json(DEMO_SETTINGS[rules]),
        buttons=buttons,
        display=display,
        camera=camera,
        reader=reader,
        settler=settler,
        seed=1,
        errors=io.StringIO(),
    )
    runner = threading.Thread(target=loop.run, kwargs={"seconds": 120}, daemon=True)
    runner.start()
    assert buttons.listening.wait(30)
    pins = {"roll": cfg.roll, "hold": cfg.hold, "stop": cfg.stop}

    def press(name: str, how: str = "") -> None:
        before = loop.outputs
        pin = factory.pin(pins[name])
        pin.drive_low()
        clock.t += HELD_S[how]
        pin.drive_high()
        clock.t += 0.3
        deadline = time.monotonic() + 30
        while loop.outputs == before and time.monotonic() < deadline:
            time.sleep(0.005)
        assert loop.outputs > before, f"{name} {how}: the table did not answer"
        assert loop.wait_idle(30), f"{name} {how}: the table did not settle"

    try:
        for _ in range(menu_presses(DEMO_SETTINGS[rules])):
            press("roll")
        for step in DEMO_PLAYS[rules]:
            word, *rest = step.split()
            if word == "throw":
                camera.throw(tuple(int(v) for v in rest))
            else:
                press(word, rest[0] if rest else "")
        shown = loop.shown
        assert shown is not None and isinstance(shown.screen, screens.GameEnd)
        # The OLED holds exactly the last screen as drawn.
        assert display.device.image.tobytes() == screens.render(shown.screen).tobytes()
        logs = data.logs()
        assert len(logs) == 1
        loaded = load(logs[0])
        game = replay(loaded.header, loaded.events)
        assert game.is_over and game.refused == ()
        throws = [e.to_json()["throw"] for e in loaded.events if "throw" in e.to_json()]
        want = [[int(v) for v in s.split()[1:]] for s in DEMO_PLAYS[rules] if s.startswith("throw")]
        assert throws == want  # every throw read right from its photo
        assert shown.screen.headline == f"{game.view()['winner']} wins!"
    finally:
        loop.put(Quit("test over"))
        runner.join(30)
    assert not runner.is_alive()


def test_a_button_pressed_at_the_wrong_moment_answers_on_the_oled(
    tmp_path: Path, factory: MockFactory
) -> None:
    cfg = ButtonsConfig()
    clock = FakeClock()
    display = dummy_display()
    buttons = StartedButtons(cfg, pin_factory=factory, clock=clock)
    loop = TableLoop(
        data=DataDir(tmp_path / "data"),
        settings=Settings.from_json(DEMO_SETTINGS["mexico"]),
        buttons=buttons,
        display=display,
        camera=None,
        errors=io.StringIO(),
    )
    runner = threading.Thread(target=loop.run, daemon=True)
    runner.start()
    assert buttons.listening.wait(30)
    try:
        for _ in range(menu_presses(DEMO_SETTINGS["mexico"])):
            before = loop.outputs
            factory.pin(cfg.roll).drive_low()
            clock.t += 0.1
            factory.pin(cfg.roll).drive_high()
            clock.t += 0.3
            deadline = time.monotonic() + 10
            while loop.outputs == before and time.monotonic() < deadline:
                time.sleep(0.005)
        assert loop.wait_idle(10)
        before_image = display.device.image.tobytes()
        before = loop.outputs
        factory.pin(cfg.hold).drive_low()  # HOLD in mexico means nothing
        clock.t += 0.1
        factory.pin(cfg.hold).drive_high()
        clock.t += 0.3
        deadline = time.monotonic() + 10
        while loop.outputs == before and time.monotonic() < deadline:
            time.sleep(0.005)
        assert loop.wait_idle(10)
        assert loop.shown is not None
        text = screens.render_text(loop.shown.screen)
        assert "not in mexico" in text
        assert display.device.image.tobytes() != before_image
    finally:
        loop.put(Quit("test over"))
        runner.join(10)


def test_a_table_that_stops_lets_go_of_its_pins_and_its_camera(
    tmp_path: Path, factory: MockFactory
) -> None:
    """At the end (systemd's stop, a quit) the loop closes the buttons and the camera:
    the GPIO pins are free for the next start in this process, the camera's thread ends."""
    cfg = ButtonsConfig()
    buttons = StartedButtons(cfg, pin_factory=factory, clock=FakeClock())
    camera = ScriptedCamera(FRAMES, fps=60)
    errors = io.StringIO()
    loop = TableLoop(
        data=DataDir(tmp_path / "data"),
        settings=Settings.from_json(DEMO_SETTINGS["mexico"]),
        buttons=buttons,
        display=dummy_display(),
        camera=camera,
        errors=errors,
    )
    runner = threading.Thread(target=loop.run, daemon=True)
    runner.start()
    assert buttons.listening.wait(30)
    loop.put(Quit("test over"))
    runner.join(30)
    assert not runner.is_alive()
    assert buttons.devices == {}
    again = GpioButtons(cfg, pin_factory=factory, clock=FakeClock())  # no pin still in use
    again.close()
    assert camera._stop.is_set()
    assert "closing" not in errors.getvalue()


def test_presses_faster_than_the_table_answers_are_all_applied_in_order(
    tmp_path: Path, factory: MockFactory
) -> None:
    """While the consumer is busy (a slow display write), presses pile up on the queue:
    each is applied, in the order pressed, as the referee alone would apply them."""
    from table.service.ports import Button, ButtonPress, Press
    from table.service.referee import Referee

    busy = threading.Event()
    go_on = threading.Event()

    class SlowDisplay:
        def __init__(self) -> None:
            self.shows = 0

        def show(self, image: Any) -> None:
            self.shows += 1
            if self.shows == 2:  # the first press's screen: the table is busy a while
                busy.set()
                assert go_on.wait(30)

        def close(self) -> None:
            pass

    cfg = ButtonsConfig()
    clock = FakeClock()
    buttons = StartedButtons(cfg, pin_factory=factory, clock=clock)
    settings = Settings.from_json(DEMO_SETTINGS["mexico"])
    loop = TableLoop(
        data=DataDir(tmp_path / "data"),
        settings=settings,
        buttons=buttons,
        display=SlowDisplay(),
        camera=None,
        errors=io.StringIO(),
    )
    runner = threading.Thread(target=loop.run, daemon=True)
    runner.start()
    assert buttons.listening.wait(30)
    pins = {Button.ROLL: cfg.roll, Button.HOLD: cfg.hold, Button.STOP: cfg.stop}
    presses = [ButtonPress(Button.HOLD)]
    presses += [ButtonPress(Button.STOP), ButtonPress(Button.HOLD), ButtonPress(Button.HOLD)]
    presses += [ButtonPress(Button.ROLL)] * menu_presses(DEMO_SETTINGS["mexico"])
    presses += [ButtonPress(Button.HOLD), ButtonPress(Button.ROLL), ButtonPress(Button.STOP)]
    presses += [ButtonPress(Button.STOP, Press.VERY_LONG), ButtonPress(Button.HOLD)]
    try:
        for n, p in enumerate(presses):
            factory.pin(pins[p.button]).drive_low()
            clock.t += HELD_S["very_long" if p.press is Press.VERY_LONG else ""]
            factory.pin(pins[p.button]).drive_high()
            clock.t += 0.3
            if n == 0:
                assert busy.wait(30)
        go_on.set()
        assert loop.wait_idle(30)
        ref, _ = Referee.boot(settings, seed=0)
        for p in presses:
            ref, _ = ref.on_press(p)
        assert loop.referee == ref
        assert loop.outputs == 1 + len(presses)  # the boot's, then one per press
    finally:
        go_on.set()
        loop.put(Quit("test over"))
        runner.join(30)
    assert not runner.is_alive()


def test_a_table_stopped_with_a_button_held_starts_again_without_that_press(
    tmp_path: Path, factory: MockFactory
) -> None:
    """STOP held while the table stops (systemd's stop): the loop ends, nothing comes of
    the release, and the next start ignores the release of a button held at its start."""
    cfg = ButtonsConfig()
    clock = FakeClock()
    got: list[Any] = []

    def start() -> tuple[TableLoop, threading.Thread, StartedButtons]:
        buttons = StartedButtons(cfg, pin_factory=factory, clock=clock)
        loop = TableLoop(
            data=DataDir(tmp_path / "data"),
            settings=Settings.from_json(DEMO_SETTINGS["mexico"]),
            buttons=buttons,
            display=dummy_display(),
            camera=None,
            errors=io.StringIO(),
        )
        real_put = loop.put
        loop.put = lambda e: (got.append(e), real_put(e))[1]  # type: ignore[method-assign]
        runner = threading.Thread(target=loop.run, daemon=True)
        runner.start()
        assert buttons.listening.wait(30)
        return loop, runner, buttons

    loop, runner, buttons = start()
    factory.pin(cfg.stop).drive_low()
    clock.t += 5.0
    loop.put(Quit("stopping"))
    runner.join(30)
    assert not runner.is_alive() and buttons.devices == {}
    factory.pin(cfg.stop).drive_high()  # let go after the stop
    factory.pin(cfg.stop).drive_low()  # and held again through the next start
    loop, runner, buttons = start()
    try:
        clock.t += 1.0
        factory.pin(cfg.stop).drive_high()
        clock.t += 0.3
        factory.pin(cfg.hold).drive_low()
        clock.t += 0.1
        factory.pin(cfg.hold).drive_high()
        clock.t += 0.3
        assert buttons.wait_rested(30)
        assert loop.wait_idle(30)
    finally:
        loop.put(Quit("test over"))
        runner.join(30)
    from table.service.ports import Button, ButtonPress

    assert [e for e in got if isinstance(e, ButtonPress)] == [ButtonPress(Button.HOLD)]
