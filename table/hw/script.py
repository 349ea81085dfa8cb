"""A script of button presses (and, for the scripted camera, the dice thrown).

A script is a JSON list of strings, or a text file with one step per line
(``#`` starts a comment)::

    ["throw 6 3", "roll", "stop", "wait 0.5", "stop long", "quit"]

* ``roll`` / ``hold`` / ``stop``, optionally followed by ``long`` or ``very_long``:
  one press of that button;
* ``throw A B`` (or ``throw A`` for one die): the dice now lying in the tray;
  the scripted camera shows them (a real camera ignores these steps);
* ``wait S``: pause S seconds;
* ``quit``: stop the table (the script's end also stops it).

Each step waits until the table has dealt with the one before (the loop is
idle and not waiting for dice), so a script plays the same game at any speed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from table.gamelog import read_small
from table.service.ports import Button, ButtonPress, Press, Put, Quit


class ScriptError(ValueError):
    """A script step that cannot be understood; the message names it."""


@dataclass(frozen=True)
class PressStep:
    press: ButtonPress


@dataclass(frozen=True)
class ThrowStep:
    dice: tuple[int, ...]


@dataclass(frozen=True)
class WaitStep:
    seconds: float


@dataclass(frozen=True)
class QuitStep:
    pass


Step = PressStep | ThrowStep | WaitStep | QuitStep

_PRESS_WORDS = {
    "": Press.SHORT,
    "short": Press.SHORT,
    "long": Press.LONG,
    "very_long": Press.VERY_LONG,
    "verylong": Press.VERY_LONG,
    "very-long": Press.VERY_LONG,
}


def quoted(text: str) -> str:
    """Text given on the command line or in a script, as a message quotes it: cut if it
    is far longer than any step or argument."""
    return repr(text) if len(text) <= 40 else f"{text[:30]!r}... ({len(text)} characters)"


def _ascii_number(word: str) -> bool:
    """A whole number in ASCII digits, short enough for int() (past 4300 digits it
    raises; no die needs ten)."""
    return word.isascii() and word.isdigit() and len(word) < 10


def parse_step(text: str, where: str = "step") -> Step:
    words = text.strip().lower().split()
    if not words:
        raise ScriptError(f"{where}: empty step")
    head, rest = words[0], words[1:]
    shown = quoted(text)
    if head in {b.value for b in Button}:
        mode = "_".join(rest)
        if mode not in _PRESS_WORDS:
            raise ScriptError(f"{where}: {shown}: after {head} say long or very_long")
        return PressStep(ButtonPress(Button(head), _PRESS_WORDS[mode]))
    if head == "throw":
        # ASCII digits only: int() reads "٣" and "６" as dice too, and "+6" and "6_0"
        dice = tuple(int(w) for w in rest) if all(_ascii_number(w) for w in rest) else ()
        if len(dice) not in (1, 2) or not all(1 <= d <= 6 for d in dice):
            raise ScriptError(f"{where}: {shown}: a throw is one or two dice 1-6, e.g. throw 6 3")
        return ThrowStep(dice)
    if head == "wait":
        try:
            seconds = float(rest[0]) if len(rest) == 1 and rest[0].isascii() else -1.0
        except ValueError:
            seconds = -1.0
        if not 0 <= seconds <= 3600:
            raise ScriptError(f"{where}: {shown}: wait needs seconds, e.g. wait 0.5")
        return WaitStep(seconds)
    if head == "quit" and not rest:
        return QuitStep()
    raise ScriptError(
        f"{where}: {shown} is not a step (roll, hold, stop [long|very_long], "
        "throw A B, wait S, quit)"
    )


def parse_script(text: str) -> tuple[Step, ...]:
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            items = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ScriptError(f"not valid JSON ({exc.msg}, line {exc.lineno})") from None
        except ValueError:  # a number of more than 4300 digits
            raise ScriptError("not a script: a number too long to read") from None
        except RecursionError:
            raise ScriptError("not a script: lists nested too deeply") from None
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise ScriptError("a JSON script must be a list of strings")
        return tuple(parse_step(s, f"step {n + 1}") for n, s in enumerate(items))
    steps: list[Step] = []
    for n, line in enumerate(text.splitlines()):
        line = line.split("#", 1)[0].strip()
        if line:
            steps.append(parse_step(line, f"line {n + 1}"))
    return tuple(steps)


SCRIPT_BYTES = 16 << 20  # a script of presses; /dev/zero or a pipe is none


def load_script(path: str | Path) -> tuple[Step, ...]:
    p = Path(path)
    try:
        # utf-8-sig: an editor's byte-order mark is no step (the config reads it so too)
        text = read_small(p, SCRIPT_BYTES, pipes=True).decode("utf-8-sig")
    except OSError as exc:
        raise ScriptError(f"{p}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ScriptError(f"{p}: not UTF-8 text (a script is JSON)") from None
    try:
        return parse_script(text)
    except ScriptError as exc:
        raise ScriptError(f"{p}: {exc}") from None


WaitIdle = Callable[[float], bool]
ThrowSink = Callable[[tuple[int, ...]], None]


class ScriptButtons:
    """Plays a script's steps from its own thread, as if someone pressed the buttons."""

    def __init__(
        self,
        steps: Sequence[Step],
        *,
        wait_idle: WaitIdle | None = None,
        on_throw: ThrowSink | None = None,
        quit_at_end: bool = True,
        step_timeout_s: float = 30.0,
    ) -> None:
        self.steps = tuple(steps)
        self.wait_idle = wait_idle
        self.on_throw = on_throw
        self.quit_at_end = quit_at_end
        self.step_timeout_s = step_timeout_s
        self.note: Callable[[str], None] | None = None
        """Told when the table was still busy after ``step_timeout_s`` (the run's stderr)."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.done = threading.Event()

    def _settle(self, before: str) -> None:
        """Wait until the table has dealt with the last step, and says so if it has not in
        ``step_timeout_s``: the script goes on, but without a word it seemed to hang."""
        if self.wait_idle is None or self.wait_idle(self.step_timeout_s):
            return
        if self.note is not None and not self._stop.is_set():
            self.note(
                f"{before}: the table is still busy after {self.step_timeout_s:g} s "
                "(waiting for dice no throw step gave?); the script goes on"
            )

    def _play(self, put: Put) -> None:
        try:
            for n, step in enumerate(self.steps, 1):
                self._settle(f"script step {n}")
                if self._stop.is_set():  # before the wait, or closed while it waited
                    return
                if isinstance(step, PressStep):
                    put(step.press)
                elif isinstance(step, ThrowStep):
                    if self.on_throw is not None:
                        self.on_throw(step.dice)
                elif isinstance(step, WaitStep):
                    self._stop.wait(step.seconds)
                else:
                    put(Quit("end of script"))
                    return
            self._settle("the script's end")
            if self.quit_at_end and not self._stop.is_set():
                put(Quit("end of script"))
        finally:
            self.done.set()

    def start(self, put: Put) -> None:
        self._thread = threading.Thread(
            target=self._play, args=(put,), name="script-buttons", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        t = self._thread
        if t is not None and t is not threading.current_thread():
            t.join(timeout=2.0)
