"""The small interfaces between the table service and its hardware adapters.

Adapters (``table.hw``) implement these; the service core only sees them.
Button callbacks, the camera thread and timers never touch game state: they
only put :data:`TableEvent` values on the loop's queue.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

DISPLAY_SIZE: tuple[int, int] = (128, 64)


class Button(StrEnum):
    """The three controls at the table."""

    ROLL = "roll"  # ROLL-DONE: "I have rolled" / select
    HOLD = "hold"  # keep one die lying (mexen) / next choice
    STOP = "stop"  # stand / back; long = end the round; very long = end-game menu


class Press(StrEnum):
    """How long a button was held, classified by the adapter on release."""

    SHORT = "short"
    LONG = "long"
    VERY_LONG = "very_long"


@dataclass(frozen=True)
class ButtonPress:
    button: Button
    press: Press = Press.SHORT


@dataclass(frozen=True)
class Frame:
    """A camera frame (BGR, as OpenCV gives it) with a monotonic timestamp."""

    image: np.ndarray
    t: float


@dataclass(frozen=True)
class CameraFailed:
    """The camera stopped delivering frames; ``reason`` is for people."""

    reason: str


@dataclass(frozen=True)
class CameraReady:
    """A live camera, just opened (at the start, or again after a fault), gave its first
    frame; ``text`` says what it gives and how it was set up, for the journal."""

    text: str


@dataclass(frozen=True)
class Tick:
    """A timer tick (the loop's clock; also feeds the watchdog)."""

    t: float


@dataclass(frozen=True)
class Quit:
    """Stop the loop cleanly (SIGTERM, end of a demo script)."""

    reason: str = ""


TableEvent = ButtonPress | Frame | CameraFailed | CameraReady | Tick | Quit
Put = Callable[[TableEvent], None]


class Buttons(Protocol):
    """Turns physical (or stand-in) presses into ButtonPress events."""

    def start(self, put: Put) -> None:
        """Begin delivering presses to ``put`` (from any thread)."""
        ...

    def close(self) -> None: ...


class Display(Protocol):
    """A 128x64 one-bit screen. ``show`` gets a mode "1" PIL image of DISPLAY_SIZE."""

    def show(self, image: Image.Image) -> None: ...

    def close(self) -> None: ...


class Camera(Protocol):
    """Delivers frames to ``put`` from its own thread until closed.

    It may also have, and the loop then calls: ``want(flag)``, whether the table waits for
    dice (frames are read only then); ``frame_done()``, after each frame was dealt with;
    ``rolled()``, when the player says the dice were thrown again while the table goes on
    reading (a camera that replays photos shows its next one)."""

    def start(self, put: Put) -> None: ...

    def close(self) -> None: ...


class Notifier(Protocol):
    """Tells the service manager how the table is doing (systemd sd_notify)."""

    def ready(self) -> None: ...

    def status(self, text: str) -> None: ...

    def watchdog(self) -> None: ...

    def stopping(self) -> None: ...
