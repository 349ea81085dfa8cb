"""Fixtures shared by the tests."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import types
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from table.service.ports import Button, ButtonPress, Press


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    """gpiozero's mock pins, reset after each test (pins keep state otherwise)."""
    old = Device.pin_factory
    f = MockFactory()
    Device.pin_factory = f
    try:
        yield f
    finally:
        f.reset()
        Device.pin_factory = old


@pytest.fixture(autouse=True)
def _game_logs_closed() -> Iterator[None]:
    """Every game log a test opened is closed when it ends. Tests of a power cut let a
    loop go without closing it, as the power would: the log a loop still holds is closed
    here, not left to the garbage collector (a ResourceWarning at some later test). Any
    other log still open then was let go by the code that opened it, with no loop left
    holding it: a leak, and the test fails."""
    from table.gamelog import LogWriter
    from table.service.loop import TableLoop

    opened: list[LogWriter] = []
    loops: list[TableLoop] = []
    writer_init, loop_init = LogWriter.__init__, TableLoop.__init__

    def writer_made(self: LogWriter, *args: Any, **kwargs: Any) -> None:
        writer_init(self, *args, **kwargs)
        opened.append(self)

    def loop_made(self: TableLoop, *args: Any, **kwargs: Any) -> None:
        loop_init(self, *args, **kwargs)
        loops.append(self)

    with pytest.MonkeyPatch.context() as own:  # a test's monkeypatch.undo() keeps it
        own.setattr(LogWriter, "__init__", writer_made)
        own.setattr(TableLoop, "__init__", loop_made)
        yield
    held = {id(loop.writer) for loop in loops if loop.writer is not None}
    leaked = [w.path.name for w in opened if not w.closed and id(w) not in held]
    for writer in opened:
        writer.close()
    assert not leaked, f"game logs left open with no loop holding them: {leaked}"


def seen_as_pi(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *, pi: bool = True) -> None:
    """Make the hardware build see a Raspberry Pi (its device-tree model) or a laptop."""
    from table.hw import build

    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\x00" if pi else b"Some Laptop\x00")
    monkeypatch.setattr(build, "PI_MODEL_FILES", (model,))
    # GPIO that cannot be opened on a Pi is tried again for 20 s (udev at boot); the
    # tests of a table that stops for it do not wait
    monkeypatch.setattr(build, "GPIO_WAIT_S", 0.0)


# The presses of the referee's and the loop's tests.
ROLL = ButtonPress(Button.ROLL)
HOLD = ButtonPress(Button.HOLD)
STOP = ButtonPress(Button.STOP)
STOP_LONG = ButtonPress(Button.STOP, Press.LONG)
STOP_VERY_LONG = ButtonPress(Button.STOP, Press.VERY_LONG)


def close_parts(parts: Any) -> None:
    """Let go of what ``table.hw.build.build`` opened: the display and the camera."""
    parts.display.close()
    if parts.camera is not None:
        parts.camera.close()


def write_manifest(root: Path, entries: list[dict[str, Any]], set_name: str = "byler_d6") -> Path:
    """A labelled set's ``manifest.json`` under ``root`` listing ``entries``, as the data
    README gives it; ``root``, to be given as the data folder."""
    (root / set_name).mkdir(parents=True, exist_ok=True)
    (root / set_name / "manifest.json").write_text(
        json.dumps({"images": entries}), encoding="utf-8"
    )
    return root


def played(rules_name: str, state: Any, *events: Any) -> Any:
    """``state`` after ``events``, each of which the rules must accept."""
    from table.rules import get_rules
    from table.rules.base import Refused

    rules = get_rules(rules_name)
    for event in events:
        state = rules.apply(state, event)
        assert not isinstance(state, Refused), (event, state)
    return state


ALL_DICE = [(a, b) for a in range(1, 7) for b in range(1, 7)]
"""The 36 equally likely throws of two dice."""


class FixedRandom(random.Random):
    """A random source whose ``random()`` is always ``value`` (a CPU player's whim)."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


RunPython = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture
def run_python() -> RunPython:
    """``run_python(code, *args, env=None)``: Python code run in a child process from the
    repository's root, its output as text. For faults that end a whole process (a
    segmentation fault inside OpenCV): the test sees a return code, not a dead run."""

    def run(
        code: str, *args: str, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", code, *args],
            cwd=Path(__file__).resolve().parents[1],
            capture_output=True,
            text=True,
            timeout=60,
            env=dict(os.environ if env is None else env),
        )

    return run


def photo_like(h: int, w: int) -> np.ndarray:
    """Smooth shapes on a smooth ground: a frame with edges and gradients, no dice."""
    rng = np.random.default_rng(h * w)
    img = np.asarray(cv2.resize(rng.integers(0, 256, (4, 4, 3), np.uint8), (w, h)), np.uint8)
    for _ in range(12):
        c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        cv2.circle(img, c, int(rng.integers(4, 30)), [int(v) for v in rng.integers(0, 256, 3)], -1)
    return img


def damaged_inside(data: bytes) -> bytes:
    """A picture file's ``data`` with four bytes in its middle zeroed: it still decodes,
    wrongly past them, and only its decoder says so."""
    raw = bytearray(data)
    raw[len(raw) // 2 : len(raw) // 2 + 4] = bytes(4)
    return bytes(raw)


class FakePicamera2:
    """picamera2.Picamera2 as a camera of (11, 22, 33) pixels, recording what it is asked
    (its last configuration, its calls); every one made stands in ``instances``."""

    instances: list[FakePicamera2] = []

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.config: dict[str, Any] = {}
        FakePicamera2.instances.append(self)

    camera_controls: dict[str, Any] = {"Sharpness": (0.0, 16.0, 1.0)}

    def create_preview_configuration(
        self, main: dict[str, Any], controls: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return {"main": main} if controls is None else {"main": main, "controls": controls}

    def configure(self, config: dict[str, Any]) -> None:
        self.config = config
        self.calls.append("configure")

    def start(self) -> None:
        self.calls.append("start")

    def capture_array(self, stream: str = "main") -> np.ndarray:
        w, h = self.config["main"]["size"]
        out = np.zeros((h, w, 4), np.uint8)  # XRGB-style 4 channels: alpha must be dropped
        out[:] = (11, 22, 33, 255)
        return out

    def stop(self) -> None:
        self.calls.append("stop")

    def close(self) -> None:
        self.calls.append("close")


def offer_picamera2(monkeypatch: pytest.MonkeyPatch, offered: Any) -> None:
    """Make ``import picamera2`` give a fake whose camera offers the controls ``offered``
    (picamera2's ``camera_controls``: name -> (min, max, default)), with no camera made
    yet (``FakePicamera2.instances`` emptied)."""

    class Offering(FakePicamera2):
        camera_controls = offered

    module = types.ModuleType("picamera2")
    module.Picamera2 = Offering  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    FakePicamera2.instances.clear()


def fake_picamera2_module() -> types.ModuleType:
    """A ``picamera2`` module whose Picamera2 is :class:`FakePicamera2`."""
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    return module
