"""The three GPIO buttons, through gpiozero.

One press is one :class:`ButtonPress`, put on the loop's queue when the button
is released, classified by how long it was held (SHORT / LONG / VERY_LONG).
Debouncing is done here, not by gpiozero (its ``bounce_time`` does nothing on
some pin factories, the mock one included): a button counts as pressed or let
go once its contact has rested at that level for ``bounce_ms`` with no edge in
between, and the press is timed from the first edge of each burst. Chatter
shorter than that is contact bounce, whatever level it ends at; a press
shorter than that is not counted. A release with no press before it (a button
already held when the table started, or held through a restart) is ignored, so
a button held through a screen change fires once.
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
    """Turns the edges of one button into presses. Pure: times come from outside.

    :meth:`edge` records each edge as it comes; :meth:`rest` is asked, at any later
    time, whether the contact has rested since its last edge (``bounce_s`` without
    another). A burst of edges that rests pressed starts a press at its first edge;
    one that rests let go ends the press there."""

    def __init__(self, timing: PressTiming) -> None:
        self.timing = timing
        self._pressed = False  # the level of the last edge
        self._burst_at: float | None = None  # first edge since the contact last rested
        self._last_edge = 0.0
        self._down_at: float | None = None

    def edge(self, pressed: bool, t: float) -> Press | None:
        """An edge at ``t``; the press the level before it completed, if it had rested."""
        done = self.rest(t)
        self._pressed = pressed
        self._last_edge = t
        if self._burst_at is None:
            self._burst_at = t
        if self.timing.bounce_s <= 0:
            done = self.rest(t) or done
        return done

    def rest(self, t: float) -> Press | None:
        """If the contact has rested by ``t``, take its level; the press it ends, if any."""
        start = self._burst_at
        if start is None or t - self._last_edge < self.timing.bounce_s:
            return None
        self._burst_at = None
        if self._pressed and self._down_at is None:
            self._down_at = start
        elif not self._pressed and self._down_at is not None:
            held = start - self._down_at
            self._down_at = None
            return self.timing.classify(held)
        return None

    @property
    def burst_at(self) -> float | None:
        """When the edges not yet taken as a level began."""
        return self._burst_at

    @property
    def is_resting(self) -> bool:
        """No edge is waiting to be taken as a level."""
        return self._burst_at is None

    def rests_in(self, t: float) -> float:
        """Seconds from ``t`` until the contact will have rested, if no edge comes."""
        return max(0.0, self._last_edge + self.timing.bounce_s - t)

    @property
    def is_down(self) -> bool:
        return self._down_at is not None


class PinUnusable(RuntimeError):
    """One button's pin cannot be had (in use by another program, not a GPIO pin);
    ``str(err)`` names the config setting and the pin."""


def _pin_fault(button: Button, pin: int, exc: Exception) -> Exception:
    """``exc`` from gpiozero when it opened ``pin``: a fault of that pin, or of the GPIO
    as a whole (no pin factory at all), which is left as it is."""
    from gpiozero.exc import BadPinFactory

    if isinstance(exc, BadPinFactory):
        return exc  # type: ignore[no-any-return]  # gpiozero is untyped
    why = " ".join(str(exc).split()).strip("'\"") or type(exc).__name__
    if "busy" in why.lower() or "in use" in why.lower():  # lgpio: "'GPIO busy'"
        why = "in use (another program or a boot-config overlay holds it)"
    return PinUnusable(f"buttons.{button.value} = {pin}: {why}")


class GpioButtons:
    """ROLL, HOLD and STOP on GPIO pins; ``pin_factory`` lets tests use gpiozero's mock pins.

    gpiozero calls back on each edge; a thread of our own takes the level once the
    contact has rested (by ``clock``) and puts the press on the queue."""

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
        self._changed = threading.Condition(self._lock)
        self._closed = False
        self._put: Put | None = None
        timing = PressTiming.of(cfg)
        self.trackers = {b: PressTracker(timing) for b in Button}
        self._rester = threading.Thread(target=self._rest_loop, name="buttons", daemon=True)
        pins = {Button.ROLL: cfg.roll, Button.HOLD: cfg.hold, Button.STOP: cfg.stop}
        self.devices: dict[Button, Any] = {}
        try:
            for button, pin in pins.items():
                try:
                    dev = GpioButton(
                        pin, pull_up=cfg.pull_up, bounce_time=None, pin_factory=pin_factory
                    )
                except Exception as exc:
                    raise _pin_fault(button, pin, exc) from exc
                self.devices[button] = dev
                # Already held at start: its release must not count as a press.
                dev.when_pressed = self._edge(button, True)
                dev.when_released = self._edge(button, False)
        except Exception:
            self.close()
            raise
        self._rester.start()

    def _edge(self, button: Button, pressed: bool) -> Callable[[], None]:
        def on_edge() -> None:
            t = self.clock()
            with self._lock:
                self._send_rested(t)  # what rested before this edge goes first
                press = self.trackers[button].edge(pressed, t)
                if press is not None:  # no bounce window: at once
                    self._send([ButtonPress(button, press)])
                self._changed.notify_all()

        return on_edge

    def _send_rested(self, now: float) -> bool:
        """Under the lock: the presses ended by contacts at rest by ``now``, onto the
        queue in the order they were let go. Whether there were any."""
        rested = []
        for button, tracker in self.trackers.items():
            since = tracker.burst_at
            press = tracker.rest(now)
            if press is not None and since is not None:
                rested.append((since, ButtonPress(button, press)))
        self._send([p for _, p in sorted(rested, key=lambda r: r[0])])
        return bool(rested)

    def _send(self, presses: list[ButtonPress]) -> None:
        """Under the lock, so that presses from the pins' callbacks and from the resting
        thread reach the queue in order (the loop's ``put`` never blocks)."""
        if self._put is not None:
            for event in presses:
                self._put(event)

    def _rest_loop(self) -> None:
        with self._lock:
            while not self._closed:
                now = self.clock()
                self._send_rested(now)
                self._changed.notify_all()
                waiting = [t.rests_in(now) for t in self.trackers.values() if not t.is_resting]
                if not waiting:
                    self._changed.wait()
                else:  # by a clock other than time.monotonic, it may rest sooner
                    self._changed.wait(min(max(min(waiting), 0.001), 0.05))

    def wait_rested(self, timeout: float) -> bool:
        """Wait until every contact has rested and its press, if any, is on the queue."""
        with self._lock:
            return self._changed.wait_for(
                lambda: self._closed or all(t.is_resting for t in self.trackers.values()),
                timeout,
            )

    def start(self, put: Put) -> None:
        with self._lock:
            self._put = put

    def close(self) -> None:
        with self._lock:
            self._put = None
            self._closed = True
            self._changed.notify_all()
        for dev in self.devices.values():
            with contextlib.suppress(Exception):  # a stuck pin must not stop the shutdown
                dev.close()
        self.devices = {}
        if self._rester.is_alive() and self._rester is not threading.current_thread():
            self._rester.join(1.0)
