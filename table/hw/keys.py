"""The keyboard as the three buttons, for a table without GPIO (a laptop, a test).

``r`` ``h`` ``s``: ROLL, HOLD, STOP; capitals ``R`` ``H`` ``S``: a long press;
``1`` ``2`` ``3``: a very long press of ROLL, HOLD, STOP; ``q``: quit.
In a terminal each key acts as it is pressed, a key held down is one press (the
keyboard's auto-repeat is no stream of presses), and the terminal is put back into
single-key mode after a suspend (Ctrl-Z, ``fg``); from a pipe, keys are read as they
come, each one a press.
A key that is none of these (an arrow, F1-F12, Insert, Home) sends an escape
sequence; the whole of it is skipped, so its letters and digits press nothing
(F2 is "ESC O Q"). At the end of input, or with no input to read (standard input
closed, a terminal that hung up), the keys stop, the table goes on, and ``note`` is
told so.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass
class _Run:
    """One key and the copies of it that came right after it."""

    event: ButtonPress
    first: float
    last: float
    count: int = 1


class HeldKeys:
    """A key held down on a keyboard as one press.

    Held, a key is sent once, then after a delay (0.25-0.7 s) again and again, 25-40
    times a second, as if pressed each time: a held ``r`` confirmed every menu
    choice, started a game and rolled. A press is given out once ``gap`` seconds have
    passed without the same key again (a person pressing twice is slower than that);
    the same key within ``gap`` is the keyboard repeating it, and such a run that
    follows the same key given out within ``hold`` seconds is that key still held:
    nothing. R held and Shift let go before it repeats ``r``: the same key still held
    (but ``s`` and then ``S``, or ``r`` and then ``1``, are two presses). Times are
    passed in (``time.monotonic()``), so it is tested without a terminal. Quit is never
    held back.

    A terminal sends no key-up, so two cases are read as a person would not mean
    them: a key held just past the keyboard's delay and let go before its second
    repeat is two presses, and two presses of one key within ``gap`` (or read
    together, by a machine too busy to read between them) are one.
    """

    def __init__(self, gap: float = 0.08, hold: float = 1.0) -> None:
        self.gap = gap
        self.hold = hold
        self.pending: _Run | None = None
        self._given: tuple[ButtonPress, float] | None = None

    def feed(self, events: list[ButtonPress | Quit], now: float) -> list[ButtonPress | Quit]:
        out: list[ButtonPress | Quit] = []
        for event in events:
            if isinstance(event, Quit):
                out += self._settle()
                out.append(event)
                continue
            run = self.pending
            if (
                run is not None
                and (run.event == event or (run.count > 1 and _shift_let_go(run.event, event)))
                and now - run.last < self.gap
            ):
                run.last = now
                run.count += 1
                continue
            out += self._settle()
            self.pending = _Run(event, now, now)
        return out

    def due(self, now: float) -> list[ButtonPress | Quit]:
        """The press held back, once ``gap`` has passed with no repeat of it."""
        run = self.pending
        if run is None or now - run.last < self.gap:
            return []
        return self._settle()

    def flush(self) -> list[ButtonPress | Quit]:
        """The press held back, now (the input has ended)."""
        return self._settle()

    def _settle(self) -> list[ButtonPress | Quit]:
        run, self.pending = self.pending, None
        if run is None:
            return []
        given = self._given
        self._given = (run.event, run.last)
        still_held = (
            given is not None
            and (given[0] == run.event or _shift_let_go(given[0], run.event))
            and run.first - given[1] < self.hold
        )
        if run.count > 1 and still_held:
            return []  # the keyboard repeating a key still held down
        return [run.event]


def _shift_let_go(held: ButtonPress, then: ButtonPress) -> bool:
    """Whether ``then`` is what the keyboard repeats for the capital ``held`` once Shift
    is let go before the letter: the same button's short press after its long one."""
    return held.button == then.button and held.press is Press.LONG and then.press is Press.SHORT


def _in_foreground(fd: int) -> bool:
    """Whether this process may read and set the terminal ``fd`` (it is in the
    terminal's foreground process group, or the terminal is not its controlling one)."""
    try:
        return os.tcgetpgrp(fd) == os.getpgrp()
    except OSError:
        return True  # not this process's controlling terminal: no job control on it


class KeyButtons:
    """Reads keys from ``stream`` (standard input by default) in its own thread."""

    def __init__(self, stream: TextIO | None = None) -> None:
        # None when there is no standard input at all (it was closed at the start)
        self.stream: TextIO | None = stream if stream is not None else sys.stdin
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._saved: list[Any] | None = None
        self._cbreak: list[Any] | None = None  # the single-key mode set, to set it again
        self.note: Callable[[str], None] | None = None
        """Told when the keys end (the run's stderr): the table goes on without them."""
        self._quit = False  # q was pressed

    def _raw(self) -> None:
        if self.stream is None:
            return
        try:
            import termios
            import tty
        except ImportError:
            return
        try:
            fd = self.stream.fileno()
            if os.isatty(fd):
                if not _in_foreground(fd):
                    return  # set from the background, it would stop the table: see _read
                self._saved = termios.tcgetattr(fd)
                tty.setcbreak(fd)
                self._cbreak = termios.tcgetattr(fd)
        except (OSError, ValueError, termios.error):
            self._saved = self._cbreak = None

    def _single_keys_again(self, fd: int) -> None:
        """After Ctrl-Z and ``fg`` the shell has put the terminal back into line mode
        (keys echoed, nothing read before Enter): single keys again, once this process
        is in the foreground (setting it from the background would stop the process)."""
        cbreak = self._cbreak  # close() may set it to None meanwhile
        if cbreak is None or self._stop.is_set():
            return
        import termios

        with contextlib.suppress(OSError, ValueError, termios.error):
            if not _in_foreground(fd):
                return
            now = termios.tcgetattr(fd)
            if now[3] != cbreak[3]:  # the local modes: ICANON, ECHO
                termios.tcsetattr(fd, termios.TCSANOW, cbreak)

    def _restore(self) -> None:
        if self._saved is None or self.stream is None:
            return
        import termios

        with contextlib.suppress(OSError, ValueError, termios.error):
            fd = self.stream.fileno()
            if _in_foreground(fd):  # from the background it would stop the table
                termios.tcsetattr(fd, termios.TCSADRAIN, self._saved)
        self._saved = None

    def _read(self, put: Put) -> None:
        stream = self.stream
        if stream is None:
            self._ended("is closed")
            return  # no input at all: as at its end
        try:
            fd = stream.fileno()
        except (OSError, ValueError):
            fd = -1
        terminal = fd >= 0 and os.isatty(fd)
        if terminal and self._cbreak is None and not self._foreground_at_last(fd):
            return  # closed while the table was in the background
        decoder = KeyDecoder()
        held = HeldKeys() if self._cbreak is not None else None  # a terminal's keys only
        while not self._stop.is_set():
            try:
                if fd >= 0:
                    wait = 0.2 if held is None or held.pending is None else held.gap
                    ready, _, _ = select.select([fd], [], [], wait)
                    if held is not None:
                        for event in held.due(time.monotonic()):
                            put(event)
                        self._single_keys_again(fd)
                    if not ready:
                        continue
                    if terminal and not _in_foreground(fd):  # sent to the background
                        self._stop.wait(0.2)  # reading would stop the table (SIGTTIN)
                        continue
                    data = os.read(fd, 1024).decode("utf-8", "replace")
                else:
                    data = stream.read(1)
            except (OSError, ValueError):
                self._ended("cannot be read any more")
                return  # closed, or a terminal that hung up: as at the end of input
            if not data:
                for event in held.flush() if held is not None else []:
                    put(event)
                self._ended("has ended")
                return  # end of input: the keyboard is gone, the table goes on
            events = decoder.feed(data)
            if held is not None:
                events = held.feed(events, time.monotonic())
            for event in events:
                put(event)
                if isinstance(event, Quit):
                    self._quit = True  # the table stops: its keys ending is no news
            if fd >= 0:
                decoder.end_of_read()

    def _foreground_at_last(self, fd: int) -> bool:
        """Started in the background (``dicetable run &``), the table cannot read its
        terminal nor set it to single keys: either stops it (SIGTTIN, SIGTTOU) until
        ``fg``. The keys wait until it is brought to the foreground, then act; False if
        the keys were closed first."""
        said = False
        while not self._stop.is_set():
            if _in_foreground(fd):
                self._raw()
                return True
            if not said and self.note is not None:
                said = True
                self.note(
                    "the table runs in the background: its keys are read once it is "
                    "brought to the foreground (fg)"
                )
            self._stop.wait(0.2)
        return False

    def _ended(self, how: str) -> None:
        if self.note is not None and not self._stop.is_set() and not self._quit:
            self.note(
                f"the keyboard input {how}: no more keys are read; the table goes on "
                "(Ctrl-C, a signal or --seconds stops it)"
            )

    def start(self, put: Put) -> None:
        self._raw()
        self._thread = threading.Thread(target=self._read, args=(put,), name="keys", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._cbreak = None  # not single keys again, whatever the thread is at
        t = self._thread
        if t is not None and t is not threading.current_thread():
            t.join(timeout=1.0)  # it looks at the stop within 0.2 s
        self._restore()
