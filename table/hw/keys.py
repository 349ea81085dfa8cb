"""The keyboard as the three buttons, for a table without GPIO (a laptop, a test).

``r`` ``h`` ``s``: ROLL, HOLD, STOP; capitals ``R`` ``H`` ``S``: a long press;
``1`` ``2`` ``3``: a very long press of ROLL, HOLD, STOP; ``q``: quit.
In a terminal each key acts at once; from a pipe, keys are read line by line.
A key that is none of these (an arrow, F1-F12, Insert, Home) sends an escape
sequence; the whole of it is skipped, so its letters and digits press nothing
(F2 is "ESC O Q"). At the end of input, or with no input to read (standard input closed, a terminal
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


ESC = "\x1b"


class KeyDecoder:
    """Keys from the characters a terminal sends, escape sequences skipped whole:
    ``ESC [`` parameters and a final character (``ESC [ 1 ; 2 A``, ``ESC [ [ B`` on the
    Linux console), ``ESC O`` and one character, ``ESC`` and one key (Alt+key)."""

    def __init__(self) -> None:
        self._state = ""  # "", "esc", "csi" (after ESC [), "one" (one more to skip)
        self._csi_start = False

    def feed(self, data: str) -> list[ButtonPress | Quit]:
        out: list[ButtonPress | Quit] = []
        for ch in data:
            state = self._state
            if state == "esc":
                if ch == "[":
                    self._state, self._csi_start = "csi", True
                elif ch == "O":
                    self._state = "one"
                elif ch != ESC:
                    self._state = ""  # Alt+key: not the key itself
                continue
            if state == "one":
                self._state = ""
                continue
            if state == "csi":
                if self._csi_start and ch == "[":  # the Linux console's F1-F5
                    self._state = "one"
                    continue
                self._csi_start = False
                if " " <= ch <= "?":  # parameters and intermediates
                    continue
                self._state = ""
                if "@" <= ch <= "~":  # the final character
                    continue
                # anything else ends a sequence cut short; it is read as itself
            if ch == ESC:
                self._state = "esc"
                continue
            event = key_event(ch)
            if event is not None:
                out.append(event)
        return out

    def end_of_read(self) -> None:
        """All a terminal had sent is read: an ESC alone at its end is the Escape key
        itself, so the next key is read as itself (a sequence under way stays so)."""
        if self._state == "esc":
            self._state = ""


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
        decoder = KeyDecoder()
        while not self._stop.is_set():
            try:
                if fd >= 0:
                    ready, _, _ = select.select([fd], [], [], 0.2)
                    if not ready:
                        continue
                    data = os.read(fd, 1024).decode("utf-8", "replace")
                else:
                    data = stream.read(1)
            except (OSError, ValueError):
                return  # closed, or a terminal that hung up: as at the end of input
            if not data:
                return  # end of input: the keyboard is gone, the table goes on
            for event in decoder.feed(data):
                put(event)
            if fd >= 0:
                decoder.end_of_read()

    def start(self, put: Put) -> None:
        self._raw()
        self._thread = threading.Thread(target=self._read, args=(put,), name="keys", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._restore()
