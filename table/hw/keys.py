"""The keyboard as the three buttons, for a table without GPIO (a laptop, a test).

``r`` ``h`` ``s``: ROLL, HOLD, STOP; capitals ``R`` ``H`` ``S``: a long press;
``1`` ``2`` ``3``: a very long press of ROLL, HOLD, STOP; ``q``: quit.
In a terminal each key acts at once; from a pipe, keys are read line by line.
At the end of input, or with no input to read (standard input closed, a terminal
that hung up), the keys stop and the table goes on.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import threading
from typing import Any, TextIO

from table.service.ports import Button, ButtonPress, Press, Put, Quit

HELP = "keys: r h s = ROLL HOLD STOP, R H S = long, 1 2 3 = very long, q = quit"

KEYMAP: dict[str, ButtonPress] = {
    "r": ButtonPress(Button.ROLL),
    "h": ButtonPress(Button.HOLD),
    "s": ButtonPress(Button.STOP),
    "R": ButtonPress(Button.ROLL, Press.LONG),
    "H": ButtonPress(Button.HOLD, Press.LONG),
    "S": ButtonPress(Button.STOP, Press.LONG),
    "1": ButtonPress(Button.ROLL, Press.VERY_LONG),
    "2": ButtonPress(Button.HOLD, Press.VERY_LONG),
    "3": ButtonPress(Button.STOP, Press.VERY_LONG),
}


def key_event(ch: str) -> ButtonPress | Quit | None:
    if ch in ("q", "Q", "\x03", "\x04"):
        return Quit("q pressed")
    return KEYMAP.get(ch)


class KeyButtons:
    """Reads keys from ``stream`` (standard input by default) in its own thread."""

    def __init__(self, stream: TextIO | None = None) -> None:
        # None when there is no standard input at all (it was closed at the start)
        self.stream: TextIO | None = stream if stream is not None else sys.stdin
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._saved: list[Any] | None = None

    def _raw(self) -> None:
        if self.stream is None:
            return
        try:
            import termios
            import tty

            fd = self.stream.fileno()
            if os.isatty(fd):
                self._saved = termios.tcgetattr(fd)
                tty.setcbreak(fd)
        except (ImportError, OSError, ValueError):
            self._saved = None

    def _restore(self) -> None:
        if self._saved is None or self.stream is None:
            return
        import termios

        with contextlib.suppress(OSError, ValueError):
            termios.tcsetattr(self.stream.fileno(), termios.TCSADRAIN, self._saved)
        self._saved = None

    def _read(self, put: Put) -> None:
        stream = self.stream
        if stream is None:
            return  # no input at all: as at its end
        try:
            fd = stream.fileno()
        except (OSError, ValueError):
            fd = -1
        while not self._stop.is_set():
            try:
                if fd >= 0:
                    ready, _, _ = select.select([fd], [], [], 0.2)
                    if not ready:
                        continue
                    data = os.read(fd, 64).decode("utf-8", "replace")
                else:
                    data = stream.read(1)
            except (OSError, ValueError):
                return  # closed, or a terminal that hung up: as at the end of input
            if not data:
                return  # end of input: the keyboard is gone, the table goes on
            for ch in data:
                event = key_event(ch)
                if event is not None:
                    put(event)

    def start(self, put: Put) -> None:
        self._raw()
        self._thread = threading.Thread(target=self._read, args=(put,), name="keys", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._restore()
