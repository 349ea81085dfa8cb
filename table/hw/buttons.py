"""The three GPIO buttons, through gpiozero.

One press is one :class:`ButtonPress`, put on the loop's queue when the button
is released, classified by how long it was held (SHORT / LONG / VERY_LONG).
Debouncing is done here, not by gpiozero (its ``bounce_time`` does nothing on
some pin factories, the mock one included): an edge closer than ``bounce_ms``
to the last edge taken is contact bounce and ignored. A release with no press
before it (a button already held when the table started, or held through a
restart) is ignored, so a button held through a screen change fires once.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from table.service.config import ButtonsConfig
from table.service.ports import Button, ButtonPress, Press, Put

Clock = Callable[[], float]


@dataclass(frozen=True)
class PressTiming:
    bounce_s: float = 0.030
    long_s: float = 1.0
    very_long_s: float = 3.0

    @staticmethod
    def of(cfg: ButtonsConfig) -> PressTiming:
        return PressTiming(cfg.bounce_ms / 1000.0, cfg.long_press_s, cfg.very_long_press_s)

    def classify(self, held_s: float) -> Press:
        if held_s >= self.very_long_s:
            return Press.VERY_LONG
        if held_s >= self.long_s:
            return Press.LONG
        return Press.SHORT


class PressTracker:
    """Turns the edges of one button into presses. Pure: times come from outside."""

    def __init__(self, timing: PressTiming) -> None:
        self.timing = timing
        self._last_edge: float | None = None
        self._down_at: float | None = None

    def _bounce(self, t: float) -> bool:
        last = self._last_edge
        return last is not None and t - last < self.timing.bounce_s

    def down(self, t: float) -> None:
        if self._bounce(t):
            return
        self._last_edge = t
        # Down while already down: a release was lost in bounce; the press starts again.
        self._down_at = t

    def up(self, t: float) -> Press | None:
        if self._down_at is None or self._bounce(t):
            return None
        self._last_edge = t
        held = t - self._down_at
        self._down_at = None
        return self.timing.classify(held)

    @property
    def is_down(self) -> bool:
        return self._down_at is not None


class GpioButtons:
    """ROLL, HOLD and STOP on GPIO pins; ``pin_factory`` lets tests use gpiozero's mock pins."""

    def __init__(
        self,
        cfg: ButtonsConfig,
        *,
        pin_factory: Any = None,
        clock: Clock = time.monotonic,
    ) -> None:
        from gpiozero import Button as GpioButton

        self.cfg = cfg
        self.clock = clock
        self._lock = threading.Lock()
        self._put: Put | None = None
        timing = PressTiming.of(cfg)
        self.trackers = {b: PressTracker(timing) for b in Button}
        pins = {Button.ROLL: cfg.roll, Button.HOLD: cfg.hold, Button.STOP: cfg.stop}
        self.devices: dict[Button, Any] = {}
        try:
            for button, pin in pins.items():
                dev = GpioButton(
                    pin, pull_up=cfg.pull_up, bounce_time=None, pin_factory=pin_factory
                )
                self.devices[button] = dev
                # Already held at start: its release must not count as a press.
                dev.when_pressed = self._edge(button, True)
                dev.when_released = self._edge(button, False)
        except Exception:
            self.close()
            raise

    def _edge(self, button: Button, pressed: bool) -> Callable[[], None]:
        def on_edge() -> None:
            t = self.clock()
            with self._lock:
                tracker = self.trackers[button]
                if pressed:
                    tracker.down(t)
                    return
                press = tracker.up(t)
                put = self._put
            if press is not None and put is not None:
                put(ButtonPress(button, press))

        return on_edge

    def start(self, put: Put) -> None:
        with self._lock:
            self._put = put

    def close(self) -> None:
        with self._lock:
            self._put = None
        for dev in self.devices.values():
            with contextlib.suppress(Exception):  # a stuck pin must not stop the shutdown
                dev.close()
        self.devices = {}
