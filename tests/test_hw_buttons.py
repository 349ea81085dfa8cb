"""GPIO buttons on gpiozero's mock pins: one press = one event on release, our own debounce."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from table.hw.buttons import GpioButtons, PressTiming, PressTracker
from table.hw.keys import HeldKeys, KeyDecoder
from table.service.config import ButtonsConfig
from table.service.ports import Button, ButtonPress, Press, TableEvent


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t

    def advance(self, s: float) -> None:
        self.t += s


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def rig(
    factory: MockFactory, clock: FakeClock
) -> Iterator[tuple[GpioButtons, queue.Queue[TableEvent]]]:
    q: queue.Queue[TableEvent] = queue.Queue()
    buttons = GpioButtons(ButtonsConfig(), pin_factory=factory, clock=clock)
    buttons.start(q.put)
    try:
        yield buttons, q
    finally:
        buttons.close()


def events(q: queue.Queue[TableEvent], buttons: GpioButtons | None = None) -> list[TableEvent]:
    """What is on the queue, once every contact has rested (by the fake clock: a test
    moves it on past the bounce window after the last edge it means)."""
    if buttons is not None:
        assert buttons.wait_rested(10), "a contact never rested"
    out = []
    while True:
        try:
            out.append(q.get(timeout=0.05))
        except queue.Empty:
            return out


def press(factory: MockFactory, clock: FakeClock, pin: int, held_s: float) -> None:
    factory.pin(pin).drive_low()
    clock.advance(held_s)
    factory.pin(pin).drive_high()
    clock.advance(0.2)


def test_short_press_is_one_event_on_release(rig, factory, clock) -> None:
    buttons, q = rig
    factory.pin(17).drive_low()
    clock.advance(0.1)
    assert events(q, buttons) == []  # nothing while held
    factory.pin(17).drive_high()
    clock.advance(0.05)
    assert events(q, buttons) == [ButtonPress(Button.ROLL, Press.SHORT)]


def test_each_button_on_its_pin(rig, factory, clock) -> None:
    buttons, q = rig
    press(factory, clock, 27, 0.1)
    press(factory, clock, 22, 0.1)
    press(factory, clock, 17, 0.1)
    assert events(q, buttons) == [
        ButtonPress(Button.HOLD),
        ButtonPress(Button.STOP),
        ButtonPress(Button.ROLL),
    ]


def test_long_and_very_long(rig, factory, clock) -> None:
    buttons, q = rig
    press(factory, clock, 22, 0.99)
    press(factory, clock, 22, 1.0)
    press(factory, clock, 22, 2.9)
    press(factory, clock, 22, 3.0)
    press(factory, clock, 22, 12.0)
    assert [e.press for e in events(q, buttons)] == [  # type: ignore[union-attr]
        Press.SHORT,
        Press.LONG,
        Press.LONG,
        Press.VERY_LONG,
        Press.VERY_LONG,
    ]


def test_contact_bounce_is_ignored(rig, factory, clock) -> None:
    buttons, q = rig
    pin = factory.pin(17)
    # bounce on the way down: low, high, low within a few ms
    pin.drive_low()
    clock.advance(0.004)
    pin.drive_high()
    clock.advance(0.004)
    pin.drive_low()
    clock.advance(0.5)
    # and on the way up
    pin.drive_high()
    clock.advance(0.003)
    pin.drive_low()
    clock.advance(0.003)
    pin.drive_high()
    clock.advance(0.05)
    assert events(q, buttons) == [ButtonPress(Button.ROLL, Press.SHORT)]


def test_two_real_presses_after_the_bounce_window_count_twice(rig, factory, clock) -> None:
    buttons, q = rig
    press(factory, clock, 27, 0.05)
    press(factory, clock, 27, 0.05)
    assert events(q, buttons) == [ButtonPress(Button.HOLD), ButtonPress(Button.HOLD)]


def test_held_through_a_screen_change_fires_once(rig, factory, clock) -> None:
    """Held from one screen to the next (the loop shows new screens meanwhile): one event."""
    buttons, q = rig
    pin = factory.pin(17)
    pin.drive_low()
    for _ in range(5):  # screens change while it is held; no event comes
        clock.advance(0.2)
        assert events(q, buttons) == []
    pin.drive_high()
    clock.advance(0.05)
    assert events(q, buttons) == [ButtonPress(Button.ROLL, Press.LONG)]
    clock.advance(1.0)
    assert events(q, buttons) == []


def test_held_since_before_start_does_not_fire(factory, clock) -> None:
    factory.pin(22).drive_low()  # already held when the table starts
    q: queue.Queue[TableEvent] = queue.Queue()
    buttons = GpioButtons(ButtonsConfig(), pin_factory=factory, clock=clock)
    buttons.start(q.put)
    try:
        clock.advance(0.5)
        factory.pin(22).drive_high()
        clock.advance(0.05)
        assert events(q, buttons) == []
        press(factory, clock, 22, 0.1)
        assert events(q, buttons) == [ButtonPress(Button.STOP)]
    finally:
        buttons.close()


def test_pins_and_timing_from_config(factory, clock) -> None:
    cfg = ButtonsConfig(roll=5, hold=6, stop=13, bounce_ms=100, long_press_s=0.5)
    q: queue.Queue[TableEvent] = queue.Queue()
    buttons = GpioButtons(cfg, pin_factory=factory, clock=clock)
    buttons.start(q.put)
    try:
        press(factory, clock, 13, 0.6)
        pin = factory.pin(5)
        pin.drive_low()
        clock.advance(0.08)  # inside this config's 100 ms bounce window
        pin.drive_high()
        clock.advance(0.3)
        assert events(q, buttons) == [ButtonPress(Button.STOP, Press.LONG)]
    finally:
        buttons.close()


def test_closed_buttons_put_nothing(rig, factory, clock) -> None:
    buttons, q = rig
    buttons.close()
    assert buttons.devices == {}


def test_a_button_held_down_for_minutes_floods_nothing_and_blocks_no_other(
    rig, factory, clock
) -> None:
    """A glass resting on ROLL: nothing comes while it lies there, HOLD and STOP work as
    ever, and lifting it is one very long press."""
    buttons, q = rig
    factory.pin(17).drive_low()
    for _ in range(3):
        clock.advance(120.0)
        press(factory, clock, 27, 0.1)
        press(factory, clock, 22, 1.2)
    assert (
        events(q, buttons)
        == [
            ButtonPress(Button.HOLD),
            ButtonPress(Button.STOP, Press.LONG),
        ]
        * 3
    )
    clock.advance(600.0)
    factory.pin(17).drive_high()
    clock.advance(0.05)
    assert events(q, buttons) == [ButtonPress(Button.ROLL, Press.VERY_LONG)]


def test_two_buttons_pressed_together_are_two_presses_in_the_order_let_go(
    rig, factory, clock
) -> None:
    buttons, q = rig
    factory.pin(17).drive_low()
    factory.pin(22).drive_low()
    clock.advance(1.5)
    factory.pin(22).drive_high()
    clock.advance(0.1)
    factory.pin(17).drive_high()
    clock.advance(0.05)
    assert events(q, buttons) == [
        ButtonPress(Button.STOP, Press.LONG),
        ButtonPress(Button.ROLL, Press.LONG),
    ]


def _chatter_to(pins: list[Any], clock: Any, down: bool) -> None:
    """The contacts of ``pins`` chatter together, a few ms apart, and come to rest
    pressed (``down``) or let go."""
    for n in range(7):  # the seventh edge is where they rest
        for pin in pins:
            (pin.drive_low if (n % 2 == 0) == down else pin.drive_high)()
        clock.advance(0.002)


def test_two_buttons_bouncing_at_once_are_one_press_each(rig, factory, clock) -> None:
    buttons, q = rig
    pins = [factory.pin(17), factory.pin(27)]  # ROLL, HOLD
    _chatter_to(pins, clock, down=True)
    clock.advance(0.3)
    _chatter_to(pins, clock, down=False)
    clock.advance(0.5)
    assert events(q, buttons) == [ButtonPress(Button.ROLL), ButtonPress(Button.HOLD)]


def test_tracker_takes_the_level_the_contact_rests_at() -> None:
    """An edge closer than the bounce window to the last one used to be dropped even
    when it was the level the contact came to rest at: a STOP held 3.5 s whose contacts
    opened once 35 ms after the touch was a short press (it stood instead of the end-game
    menu), a 2 ms opening during a long hold sent the press early, and a release that
    chattered for 70 ms was two presses. Times in seconds; the bounce window is 30 ms."""
    timing = PressTiming(bounce_s=0.03, long_s=1.0, very_long_s=3.0)

    tr = PressTracker(timing)  # closes, opens at 35 ms, closes again 5 ms later
    assert tr.edge(True, 0.0) is None and tr.edge(False, 0.035) is None
    assert tr.edge(True, 0.040) is None and tr.rest(0.070) is None and tr.is_down
    assert tr.edge(False, 3.54) is None and tr.rest(3.56) is None  # not yet rested
    assert tr.rest(3.58) is Press.VERY_LONG and not tr.is_down

    tr = PressTracker(timing)  # held 3.5 s, open for 2 ms at 1.2 s
    tr.edge(True, 0.0)
    assert tr.rest(0.03) is None and tr.is_down
    assert tr.edge(False, 1.2) is None and tr.edge(True, 1.202) is None
    assert tr.rest(1.3) is None and tr.is_down
    tr.edge(False, 3.5)
    assert tr.rest(3.6) is Press.VERY_LONG

    tr = PressTracker(timing)  # let go after 300 ms, chattering 10 ms apart for 70 ms
    tr.edge(True, 0.0)
    for k, t in enumerate([0.30, 0.31, 0.32, 0.33, 0.34, 0.35, 0.37]):
        assert tr.edge(k % 2 == 1, t) is None
    assert tr.rest(0.40) is Press.SHORT and tr.rest(5.0) is None  # one press, from 0.30

    tr = PressTracker(timing)  # shorter than the bounce window: no press at all
    tr.edge(True, 0.0)
    tr.edge(False, 0.02)
    assert tr.rest(1.0) is None and not tr.is_down

    tr = PressTracker(timing)  # a release with no press before it (held at the start)
    tr.edge(False, 0.0)
    assert tr.rest(1.0) is None

    tr = PressTracker(timing)  # the next edge, well after the last, settles the level too
    tr.edge(True, 0.0)
    tr.edge(False, 0.5)
    assert tr.edge(True, 0.8) is Press.SHORT  # pressed again before anyone asked
    tr.edge(False, 2.0)
    assert tr.rest(2.1) is Press.LONG

    tr = PressTracker(PressTiming(bounce_s=0.0))  # no debounce: every edge counts at once
    assert tr.edge(True, 0.0) is None and tr.edge(False, 0.001) is Press.SHORT


def test_a_release_that_chatters_is_one_press_on_the_pins(rig, factory, clock) -> None:
    buttons, q = rig
    pin = factory.pin(17)
    pin.drive_low()
    clock.advance(0.3)
    for _ in range(3):  # let go, chattering for 60 ms, 20 ms apart
        pin.drive_high()
        clock.advance(0.02)
        pin.drive_low()
        clock.advance(0.02)
    pin.drive_high()
    clock.advance(0.05)
    assert events(q, buttons) == [ButtonPress(Button.ROLL)]
    pin = factory.pin(22)  # STOP held 3.5 s, its contact open for 2 ms at 1.2 s
    pin.drive_low()
    clock.advance(1.2)
    pin.drive_high()
    clock.advance(0.002)
    pin.drive_low()
    clock.advance(0.1)
    assert events(q, buttons) == []  # not sent early
    clock.advance(2.2)
    pin.drive_high()
    clock.advance(0.05)
    assert events(q, buttons) == [ButtonPress(Button.STOP, Press.VERY_LONG)]


# -- the stand-ins: keyboard and script ------------------------------------------


def test_keys_map_to_presses_and_quit() -> None:
    from table.hw.keys import key_event
    from table.service.ports import Quit

    assert key_event("r") == ButtonPress(Button.ROLL)
    assert key_event("H") == ButtonPress(Button.HOLD, Press.LONG)
    assert key_event("3") == ButtonPress(Button.STOP, Press.VERY_LONG)
    assert isinstance(key_event("q"), Quit)
    assert key_event("x") is None


def test_key_buttons_read_a_stream() -> None:
    import io

    from table.hw.keys import KeyButtons

    q: queue.Queue[TableEvent] = queue.Queue()
    keys = KeyButtons(io.StringIO("rS\n2"))
    keys.start(q.put)
    got = [q.get(timeout=5) for _ in range(3)]
    keys.close()
    assert got == [
        ButtonPress(Button.ROLL),
        ButtonPress(Button.STOP, Press.LONG),
        ButtonPress(Button.HOLD, Press.VERY_LONG),
    ]


def test_script_parses_json_and_text() -> None:
    from table.hw.script import PressStep, QuitStep, ThrowStep, WaitStep, parse_script

    steps = parse_script('["throw 6 3", "roll", "stop long", "wait 0.5", "hold very_long", "quit"]')
    assert steps == (
        ThrowStep((6, 3)),
        PressStep(ButtonPress(Button.ROLL)),
        PressStep(ButtonPress(Button.STOP, Press.LONG)),
        WaitStep(0.5),
        PressStep(ButtonPress(Button.HOLD, Press.VERY_LONG)),
        QuitStep(),
    )
    assert parse_script("# a game\nthrow 5\nroll  # read it\n") == (
        ThrowStep((5,)),
        PressStep(ButtonPress(Button.ROLL)),
    )


def test_a_script_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Some editors start UTF-8 with a byte-order mark: it was "line 1: '\\ufeff[...' is
    not a step" (the config file and replay read it)."""
    from table.hw.script import load_script

    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + b'["roll", "quit"]')
    assert [type(s).__name__ for s in load_script(path)] == ["PressStep", "QuitStep"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('["jump"]', "step 1: 'jump' is not a step"),
        ('["throw 7 1"]', "a throw is one or two dice 1-6"),
        ('["roll twice"]', "after roll say long or very_long"),
        ('["wait"]', "wait needs seconds"),
        ("[1, 2]", "a JSON script must be a list of strings"),
        ("[", "not valid JSON"),
    ],
)
def test_script_errors_name_the_step(text: str, message: str) -> None:
    from table.hw.script import ScriptError, parse_script

    with pytest.raises(ScriptError, match=message.replace("(", r"\(")):
        parse_script(text)


def test_script_buttons_play_in_order_and_quit_at_the_end() -> None:
    from table.hw.script import ScriptButtons, parse_script
    from table.service.ports import Quit

    thrown: list[tuple[int, ...]] = []
    q: queue.Queue[TableEvent] = queue.Queue()
    script = ScriptButtons(parse_script('["throw 2 1", "roll", "stop"]'), on_throw=thrown.append)
    script.start(q.put)
    got = [q.get(timeout=5) for _ in range(3)]
    script.close()
    assert got[:2] == [ButtonPress(Button.ROLL), ButtonPress(Button.STOP)]
    assert isinstance(got[2], Quit)
    assert thrown == [(2, 1)]


def _key_thread_errors(monkeypatch: pytest.MonkeyPatch) -> list[BaseException]:
    """What the keyboard's thread raised (a traceback in the journal, the keys dead)."""
    import threading

    raised: list[BaseException] = []
    monkeypatch.setattr(
        threading, "excepthook", lambda args: raised.append(args.exc_value or Exception())
    )
    return raised


def test_a_closed_standard_input_ends_the_keys_like_the_end_of_input(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No keyboard at all (stdin closed at the start, so Python has no sys.stdin; a
    stream closed meanwhile; a read error when the terminal hangs up): like the end of
    input, the keys stop and the table goes on. It ended the table with "internal error:
    AttributeError", or the keyboard's thread with a traceback."""
    import io
    import os

    import table.hw.keys as keys_mod
    from table.hw.keys import KeyButtons

    raised = _key_thread_errors(monkeypatch)
    q: queue.Queue[TableEvent] = queue.Queue()

    monkeypatch.setattr(keys_mod.sys, "stdin", None)
    missing = KeyButtons()
    missing.start(q.put)

    closed = io.StringIO("r")
    closed.close()
    gone = KeyButtons(closed)
    gone.start(q.put)

    r, w = os.pipe()
    os.write(w, b"h")

    def hung_up(fd: int, n: int) -> bytes:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(keys_mod.os, "read", hung_up)
    with os.fdopen(r) as pipe_in:
        broken = KeyButtons(pipe_in)
        broken.start(q.put)
        for keys in (missing, gone, broken):
            if keys._thread is not None:
                keys._thread.join(10)
                assert not keys._thread.is_alive()
            keys.close()
    os.close(w)
    assert raised == []
    assert events(q) == []


def test_keys_that_are_none_of_ours_press_nothing() -> None:
    """An arrow, a function key, Insert or Home sends an escape sequence whose letters
    and digits were read as keys: F2 (ESC O Q) quit the table, Insert (ESC [ 2 ~) was a
    very long HOLD, Shift+Up (ESC [ 1 ; 2 A) a very long ROLL, F4 (ESC O S) a long STOP
    that ends the round (MX-7). The whole sequence is skipped; Escape alone, and the
    keys after it, are as before."""
    sequences = (
        b"\x1bOQ",  # F2
        b"\x1bOS",  # F4
        b"\x1b[2~",  # Insert
        b"\x1b[3~",  # Delete
        b"\x1b[1;2A",  # Shift+Up
        b"\x1b[H",  # Home
        b"\x1b[15~",  # F5
        b"\x1b[[B",  # F2 on the Linux console
        b"\x1bh",  # Alt+h
    )
    assert _piped_keys(b"".join(sequences) + b"r") == [ButtonPress(Button.ROLL)]

    from table.hw.keys import KeyDecoder

    decoder = KeyDecoder()
    assert decoder.feed("\x1b") == []
    decoder.end_of_read()  # nothing came after it: the Escape key itself
    assert decoder.feed("s") == [ButtonPress(Button.STOP)]
    assert decoder.feed("\x1b[") == []  # a sequence cut between two reads
    decoder.end_of_read()
    assert decoder.feed("2~H") == [ButtonPress(Button.HOLD, Press.LONG)]


def test_a_key_held_down_is_one_press_and_a_key_pressed_twice_is_two() -> None:
    """A held key is sent again and again after a delay (auto-repeat): a held r went
    through the whole menu, started a game and rolled. Times in seconds."""
    from table.hw.keys import HeldKeys
    from table.service.ports import Quit

    r, h = ButtonPress(Button.ROLL), ButtonPress(Button.HOLD)
    keys = HeldKeys(gap=0.08, hold=1.0)
    assert keys.feed([r], 0.0) == [] and keys.due(0.05) == []
    assert keys.due(0.09) == [r]  # no repeat came: a press
    given: list[object] = []
    for k in range(30):  # held on: the keyboard repeats it from 0.5 s, 30 a second
        given += keys.feed([r], 0.5 + k / 30)
        given += keys.due(0.5 + k / 30 + 0.01)
    given += keys.due(2.0)
    assert given == []  # still that one press

    assert keys.feed([r], 3.0) == [] and keys.due(3.1) == [r]  # pressed again later
    assert keys.feed([r], 3.3) == [] and keys.due(3.4) == [r]  # and quickly again: two
    assert keys.feed([r, r, r], 5.0) == [] and keys.due(5.1) == [r]  # one read: one press
    assert keys.feed([h], 6.0) == [] and keys.feed([r], 6.02) == [h]  # another key
    quit_ = Quit("q pressed")
    assert keys.feed([quit_], 6.03) == [r, quit_]  # quit at once, after what it held
    assert keys.feed([h], 7.0) == [] and keys.flush() == [h]  # input ended


def test_the_keys_act_at_once_again_after_the_terminal_went_back_to_lines() -> None:
    """After Ctrl-Z and fg the shell leaves the terminal in line mode: keys were echoed
    and read only at Enter. Here the line mode is set as the shell sets it."""
    import os
    import pty
    import termios

    from table.hw.keys import KeyButtons

    master, slave = pty.openpty()
    q: queue.Queue[TableEvent] = queue.Queue()
    with os.fdopen(slave, "r", closefd=True) as stream:
        keys = KeyButtons(stream)
        keys.start(q.put)
        try:
            attrs = termios.tcgetattr(slave)
            assert not attrs[3] & termios.ICANON  # single keys
            attrs[3] |= termios.ICANON | termios.ECHO
            termios.tcsetattr(slave, termios.TCSANOW, attrs)  # what the shell does
            deadline = time.monotonic() + 10
            while termios.tcgetattr(slave)[3] & termios.ICANON:
                assert time.monotonic() < deadline, "the terminal stayed in line mode"
                time.sleep(0.05)
            os.write(master, b"h")  # no Enter
            assert q.get(timeout=10) == ButtonPress(Button.HOLD)
        finally:
            keys.close()
    os.close(master)


def test_a_script_says_when_the_table_stays_busy_past_its_wait() -> None:
    """A table waiting for dice the script never throws held each step for 30 s without
    a word: the run seemed to hang."""
    from table.hw.script import ScriptButtons, parse_script

    said: list[str] = []
    busy = [False, True, True]  # the table is busy before step 1 only
    q: queue.Queue[TableEvent] = queue.Queue()
    script = ScriptButtons(
        parse_script('["roll", "stop"]'), wait_idle=lambda timeout: busy.pop(0), step_timeout_s=2
    )
    script.note = said.append
    script.start(q.put)
    assert script.done.wait(10)
    script.close()
    assert said == [
        "script step 1: the table is still busy after 2 s (waiting for dice no throw step "
        "gave?); the script goes on"
    ]
    assert events(q)[:2] == [ButtonPress(Button.ROLL), ButtonPress(Button.STOP)]


def test_the_end_of_the_keys_is_said() -> None:
    """Keys piped in ran out and the table went on with nothing said: it seemed to hang."""
    import os

    from table.hw.keys import KeyButtons

    r, w = os.pipe()
    os.write(w, b"r")
    os.close(w)
    said: list[str] = []
    q: queue.Queue[TableEvent] = queue.Queue()
    with os.fdopen(r) as pipe_in:
        keys = KeyButtons(pipe_in)
        keys.note = said.append
        keys.start(q.put)
        assert keys._thread is not None
        keys._thread.join(10)
        keys.close()
    assert events(q) == [ButtonPress(Button.ROLL)]
    assert len(said) == 1 and said[0].startswith("the keyboard input has ended")


def test_no_standard_input_at_all_is_said_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Started with standard input closed (``<&-``), the keys said nothing: the table sat
    at its menu with no keys and no word why."""
    import table.hw.keys as keys_mod
    from table.hw.keys import KeyButtons

    monkeypatch.setattr(keys_mod.sys, "stdin", None)
    said: list[str] = []
    keys = KeyButtons()
    keys.note = said.append
    keys.start(queue.Queue().put)
    assert keys._thread is not None
    keys._thread.join(10)
    keys.close()
    assert len(said) == 1 and said[0].startswith("the keyboard input is closed")


def test_started_in_the_background_the_keys_wait_for_the_foreground(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``dicetable run &`` from a shell: setting the terminal to single keys (or reading
    it) from the background stops the process (SIGTTOU, SIGTTIN); the table froze,
    --seconds and all, until fg. The keys now leave the terminal alone until the table
    is in the foreground, say so, and then act on the keys pressed from then on."""
    import os
    import pty
    import termios

    import table.hw.keys as keys_mod
    from table.hw.keys import KeyButtons

    foreground = threading.Event()
    monkeypatch.setattr(keys_mod, "_in_foreground", lambda fd: foreground.is_set())
    master, slave = pty.openpty()
    said: list[str] = []
    q: queue.Queue[TableEvent] = queue.Queue()
    with os.fdopen(slave, "r", closefd=True) as stream:
        keys = KeyButtons(stream)
        keys.note = said.append
        keys.start(q.put)
        try:
            os.write(master, b"h")
            time.sleep(0.5)
            assert termios.tcgetattr(slave)[3] & termios.ICANON  # the terminal untouched
            assert q.empty()  # nothing read
            assert len(said) == 1 and "background" in said[0]
            foreground.set()  # fg
            deadline = time.monotonic() + 10
            while termios.tcgetattr(slave)[3] & termios.ICANON:
                assert time.monotonic() < deadline, "no single keys in the foreground"
                time.sleep(0.05)
            os.write(master, b"s")
            # the h typed in the background is dropped with the line mode, not acted on late
            assert q.get(timeout=10) == ButtonPress(Button.STOP)
            assert q.empty()
        finally:
            keys.close()
        assert termios.tcgetattr(slave)[3] & termios.ICANON  # given back
    os.close(master)


def test_quitting_gives_the_terminal_back_its_line_mode_for_good() -> None:
    """The keys' thread, waking after close() had given the terminal back, took the line
    mode for a suspend and set single keys again: the shell was left without echo."""
    import os
    import pty
    import termios

    from table.hw.keys import KeyButtons

    master, slave = pty.openpty()
    with os.fdopen(slave, "r", closefd=True) as stream:
        keys = KeyButtons(stream)
        keys.start(queue.Queue().put)
        time.sleep(0.3)
        assert not termios.tcgetattr(slave)[3] & termios.ICANON
        keys.close()
        time.sleep(0.5)  # longer than the thread's wait
        assert termios.tcgetattr(slave)[3] & termios.ICANON
        assert termios.tcgetattr(slave)[3] & termios.ECHO
    os.close(master)


def test_the_end_of_the_keys_after_q_is_not_said() -> None:
    """q stops the table: that the keys ran out just after is no news."""
    import os

    from table.hw.keys import KeyButtons

    r, w = os.pipe()
    os.write(w, b"hq")
    os.close(w)
    said: list[str] = []
    with os.fdopen(r) as pipe_in:
        keys = KeyButtons(pipe_in)
        keys.note = said.append
        keys.start(queue.Queue().put)
        assert keys._thread is not None
        keys._thread.join(10)
        keys.close()
    assert said == []


# -- the buttons: cases held nowhere else ------------------------------------------


def _buttons(
    factory: MockFactory, cfg: ButtonsConfig
) -> tuple[GpioButtons, queue.Queue[TableEvent], FakeClock]:
    clock = FakeClock()
    q: queue.Queue[TableEvent] = queue.Queue()
    b = GpioButtons(cfg, pin_factory=factory, clock=clock)
    b.start(q.put)
    return b, q, clock


def test_two_releases_that_rest_together_come_in_the_order_let_go(
    factory: MockFactory,
) -> None:
    b, q, clock = _buttons(factory, ButtonsConfig())
    try:
        factory.pin(17).drive_low()
        factory.pin(22).drive_low()
        clock.advance(0.5)
        assert events(q, b) == []
        factory.pin(22).drive_high()  # STOP let go first
        clock.advance(0.01)  # within the bounce window: nothing has rested yet
        factory.pin(17).drive_high()  # then ROLL
        clock.advance(0.1)  # both rest in the same pass
        assert events(q, b) == [ButtonPress(Button.STOP), ButtonPress(Button.ROLL)]
    finally:
        b.close()


def test_a_press_is_timed_from_the_first_edge_of_its_release_burst() -> None:
    """Let go at 0.98 s with the contact chattering until 1.0 s: a short press, not a
    long one timed from the last bounce."""
    tracker = PressTracker(PressTiming(bounce_s=0.03, long_s=1.0, very_long_s=3.0))
    tracker.edge(True, 0.0)
    tracker.edge(False, 0.98)
    tracker.edge(True, 0.99)
    tracker.edge(False, 1.0)
    assert tracker.rest(1.1) is Press.SHORT


@pytest.mark.parametrize(
    ("cfg", "held", "want"),
    [
        (ButtonsConfig(pull_up=False), 0.2, Press.SHORT),  # wired to 3.3 V: high is pressed
        (ButtonsConfig(bounce_ms=0), 0.2, Press.SHORT),  # no bounce window: at once
        (ButtonsConfig(long_press_s=0.5, very_long_press_s=2.0), 2.5, Press.VERY_LONG),
    ],
)
def test_the_config_s_wiring_window_and_lengths_are_the_ones_used(
    factory: MockFactory, cfg: ButtonsConfig, held: float, want: Press
) -> None:
    b, q, clock = _buttons(factory, cfg)
    pressed, released = (factory.pin(22).drive_high, factory.pin(22).drive_low)
    if cfg.pull_up:
        pressed, released = released, pressed
    try:
        pressed()  # from the level the pin's pull gives it
        clock.advance(held)
        released()
        clock.advance(0.2)
        assert events(q, b) == [ButtonPress(Button.STOP, want)]
    finally:
        b.close()


# -- more rules of the buttons and the keys ------------------------------------------


def test_a_press_is_timed_from_the_first_edge_of_the_burst_that_pressed_it() -> None:
    """The contact chatters for 20 ms as it closes; the press lasts from its first touch.
    Timed from the last bounce instead, a ROLL held exactly the long-press time would be
    a short press, and the table would roll instead of opening what a long press opens."""
    tracker = PressTracker(PressTiming(bounce_s=0.03, long_s=1.0, very_long_s=3.0))
    tracker.edge(True, 0.0)
    tracker.edge(False, 0.01)
    tracker.edge(True, 0.02)
    assert tracker.rest(0.1) is None and tracker.is_down
    tracker.edge(False, 1.0)
    assert tracker.rest(1.1) is Press.LONG


class _WatchedClock(FakeClock):
    """A fake clock that tells when the buttons' own thread has read it while every
    contact was still bouncing (so moving it on then is what that thread has to wait for)."""

    def __init__(self) -> None:
        super().__init__()
        self.buttons: GpioButtons | None = None
        self.all_bouncing_seen = threading.Event()

    def __call__(self) -> float:
        b = self.buttons
        if (
            b is not None
            and threading.current_thread() is b._rester
            and not any(t.is_resting for t in b.trackers.values())
        ):
            self.all_bouncing_seen.set()
        return self.t


def test_all_three_buttons_pressed_and_let_go_together_are_three_presses(
    factory: MockFactory,
) -> None:
    """A hand across all three buttons, pressed and let go within a few ms: each is a
    press, in the order let go, as soon as the contacts rest. If a moment with every
    contact bouncing at once left nothing to wait for, the three presses would hang
    until some button was touched again."""
    clock = _WatchedClock()
    q: queue.Queue[TableEvent] = queue.Queue()
    buttons = GpioButtons(ButtonsConfig(), pin_factory=factory, clock=clock)
    clock.buttons = buttons
    buttons.start(q.put)
    pins = [factory.pin(17), factory.pin(27), factory.pin(22)]  # ROLL, HOLD, STOP
    try:
        for pin in pins:
            pin.drive_low()
        assert clock.all_bouncing_seen.wait(10)
        clock.advance(0.5)
        assert events(q, buttons) == []
        clock.all_bouncing_seen.clear()
        pins[2].drive_high()  # STOP, HOLD, ROLL, 10 ms apart
        clock.advance(0.01)
        pins[1].drive_high()
        clock.advance(0.01)
        pins[0].drive_high()
        assert clock.all_bouncing_seen.wait(10)
        clock.advance(0.1)
        assert events(q, buttons) == [
            ButtonPress(Button.STOP),
            ButtonPress(Button.HOLD),
            ButtonPress(Button.ROLL),
        ]
    finally:
        buttons.close()


class _LateThreadClock(FakeClock):
    """A fake clock that the buttons' own thread reads as stopped at ``late`` (a thread
    that has not run for a while, on a busy machine), while the pins' edges see it go on."""

    def __init__(self) -> None:
        super().__init__()
        self.buttons: GpioButtons | None = None
        self.late: float | None = None

    def __call__(self) -> float:
        b = self.buttons
        if self.late is not None and b is not None and threading.current_thread() is b._rester:
            return self.late
        return self.t


def test_presses_come_in_the_order_let_go_even_when_the_resting_thread_is_late(
    factory: MockFactory,
) -> None:
    """ROLL and STOP held, ROLL let go, then STOP, then STOP pressed again: ROLL comes
    first even if the thread that takes rested contacts has not run meanwhile (each
    edge first sends what had rested before it). Otherwise the STOP, completed by its
    own next edge, would overtake the ROLL, and the table would take them the other way
    round."""
    clock = _LateThreadClock()
    q: queue.Queue[TableEvent] = queue.Queue()
    buttons = GpioButtons(ButtonsConfig(), pin_factory=factory, clock=clock)
    clock.buttons = buttons
    buttons.start(q.put)
    roll, stop = factory.pin(17), factory.pin(22)
    try:
        clock.late = clock.t  # the thread sees nothing rest from here on
        roll.drive_low()
        stop.drive_low()
        clock.advance(0.5)
        roll.drive_high()
        clock.advance(0.1)
        stop.drive_high()
        clock.advance(0.1)
        stop.drive_low()
        clock.advance(0.1)
        clock.late = None  # the thread runs again
        assert events(q, buttons) == [ButtonPress(Button.ROLL), ButtonPress(Button.STOP)]
    finally:
        buttons.close()


def test_closing_the_buttons_ends_their_thread(
    rig: tuple[GpioButtons, queue.Queue[TableEvent]], factory: MockFactory, clock: FakeClock
) -> None:
    """close() ends the thread that takes the contacts' levels, also while it waits,
    idle, for the next edge. If it did not, each table started again in the same
    process (a restart after a settings change) would leave one more thread behind."""
    buttons, q = rig
    press(factory, clock, 17, 0.1)
    assert events(q, buttons) == [ButtonPress(Button.ROLL)]  # every contact at rest
    buttons.close()
    buttons._rester.join(10)
    assert not buttons._rester.is_alive()


def test_a_pin_that_will_not_close_stops_neither_the_shutdown_nor_puts_presses_after_it(
    rig: tuple[GpioButtons, queue.Queue[TableEvent]],
    factory: MockFactory,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A pin whose close fails (a stuck pin) is left as it is: the others are let go,
    close() returns, and that pin's presses go nowhere. If the error went on, the table
    would end with a traceback instead of its shutdown; if the pin's presses were still
    put, a table already stopped would be sent presses."""
    buttons, q = rig

    def stuck() -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(buttons.devices[Button.ROLL], "close", stuck)
    buttons.close()
    assert buttons.devices == {}
    press(factory, clock, 17, 0.1)  # the stuck pin's callbacks still run
    press(factory, clock, 17, 0.1)
    assert events(q) == []


def test_a_pin_error_without_a_message_is_named_by_its_kind(
    factory: MockFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pin refused with an error that says nothing is reported by the error's kind.
    Otherwise the journal would say "buttons.roll = 17:" and nothing more."""
    import gpiozero

    from table.hw.buttons import PinUnusable

    class PinBroken(Exception):
        pass

    def refuse(*args: Any, **kw: Any) -> Any:
        raise PinBroken()

    monkeypatch.setattr(gpiozero, "Button", refuse)
    with pytest.raises(PinUnusable) as err:
        GpioButtons(ButtonsConfig(), pin_factory=factory)
    assert str(err.value) == "buttons.roll = 17: PinBroken"


def test_every_key_is_its_button_and_its_length() -> None:
    """r h s are a short press of ROLL HOLD STOP, R H S a long one, 1 2 3 a very long one,
    as the help line says. A key mapped wrong would give a player at the keyboard
    another button or another length than the one pressed."""
    from table.hw.keys import HELP, key_event

    # the help line: "r h s = ROLL HOLD STOP, R H S = long, 1 2 3 = very long, q = quit"
    lengths = {"ROLL HOLD STOP": Press.SHORT, "long": Press.LONG, "very long": Press.VERY_LONG}
    groups = dict(g.split(" = ") for g in HELP.removeprefix("keys: ").split(", "))
    assert groups.pop("q") == "quit"
    assert sorted(groups.values()) == sorted(lengths)
    for keys, length in groups.items():
        for key, button in zip(keys.split(), (Button.ROLL, Button.HOLD, Button.STOP), strict=True):
            assert key_event(key) == ButtonPress(button, lengths[length]), key


@pytest.mark.parametrize("key", ["q", "Q", "\x03", "\x04"])
def test_q_with_or_without_shift_ctrl_c_and_ctrl_d_quit(key: str) -> None:
    """q quits, and so do Q (Caps Lock on), Ctrl-C and Ctrl-D (read as characters in
    single-key mode). Without this, a player's usual ways out would do nothing."""
    from table.hw.keys import key_event
    from table.service.ports import Quit

    assert isinstance(key_event(key), Quit)


def test_an_escape_sequence_after_a_second_escape_is_still_skipped_whole() -> None:
    """ESC ESC starts a sequence as one ESC does (Alt+F2 is ESC ESC O Q on some
    terminals, Escape pressed twice then Insert is ESC ESC [ 2 ~): the sequence is
    skipped. If the second ESC ended the first, F2's Q would quit the table and
    Insert's 2 would be a very long HOLD."""
    from table.hw.keys import KeyDecoder

    decoder = KeyDecoder()
    assert decoder.feed("\x1b\x1bOQ") == []
    assert decoder.feed("\x1b\x1b[2~") == []
    assert decoder.feed("r") == [ButtonPress(Button.ROLL)]


def _held(keys: Any, key: ButtonPress, start: float, rate: float, n: int) -> list[object]:
    """``key`` repeated ``n`` times by the keyboard from ``start``, ``rate`` a second,
    each read as it comes; what is given out meanwhile."""
    given: list[object] = []
    for k in range(n):
        now = start + k / rate
        given += keys.due(now)
        given += keys.feed([key], now)
    return given


@pytest.mark.parametrize("shift_at", [0.2, 0.8])
def test_a_capital_held_with_shift_let_go_first_is_one_long_press(shift_at: float) -> None:
    """R held for a long ROLL, Shift let go a moment before R: the keyboard repeats the
    key as r from then on (in its delay or among the repeats). That r was a second,
    short ROLL; it is the same key still held."""
    from table.hw.keys import HeldKeys

    a, b = ButtonPress(Button.ROLL, Press.LONG), ButtonPress(Button.ROLL)
    keys = HeldKeys(gap=0.08, hold=1.0)
    assert keys.feed([a], 0.0) == [] and keys.due(0.1) == [a]
    given: list[object] = []
    if shift_at > 0.5:  # among the repeats
        given += _held(keys, a, 0.5, 30.0, 9)
    given += _held(keys, b, max(shift_at, 0.5) + 0.3 / 30, 30.0, 20)
    given += keys.due(3.0) + keys.flush()
    assert given == []
    assert keys.feed([b], 4.0) == [] and keys.due(4.1) == [b]  # pressed again: a press


@pytest.mark.parametrize(
    ("keys_read", "presses"),
    [
        ([("sS", 0.0)], ["s", "S"]),  # read together by a busy machine
        ([("s", 0.0), ("S", 0.05)], ["s", "S"]),
        ([("r1", 0.0)], ["r", "1"]),
        ([("Ss", 0.0)], ["S", "s"]),
        ([("s", 0.0)] + [("S", 0.3 + i / 30) for i in range(12)], ["s", "S"]),  # then S held
    ],
)
def test_other_keys_of_one_button_close_together_are_each_a_press(
    keys_read: list[tuple[str, float]], presses: list[str]
) -> None:
    """Only a capital's own letter after it is the key still held: a short STOP and then
    a long one (end the round), or r and then 1, each count, however close."""
    from table.hw.keys import KEYMAP, HeldKeys, KeyDecoder

    keys, given = HeldKeys(gap=0.08, hold=1.0), []
    for data, now in keys_read:
        given += keys.due(now)
        given += keys.feed(KeyDecoder().feed(data), now)
    given += keys.due(keys_read[-1][1] + 0.2) + keys.flush()
    assert given == [KEYMAP[k] for k in presses]


@pytest.mark.parametrize("repeats", [30, 31, 32])
def test_a_key_held_is_one_press_however_many_repeats_come_before_it_is_let_go(
    repeats: int,
) -> None:
    """A held key is one press whatever the number of repeats before it is let go. If a
    stream of repeats were cut into runs of a fixed length, letting go after a run's
    first repeat would give one more press: a held r would roll twice."""
    from table.hw.keys import HeldKeys

    r = ButtonPress(Button.ROLL)
    keys = HeldKeys(gap=0.08, hold=1.0)
    assert keys.feed([r], 0.0) == [] and keys.due(0.1) == [r]
    given = _held(keys, r, 0.5, 30.0, repeats)
    given += keys.due(3.0) + keys.flush()
    assert given == []


def test_a_long_held_key_read_late_once_is_still_one_press() -> None:
    """A key held for seconds, its repeats read late once (the machine busy for 0.2 s,
    the repeats meanwhile read together): still the one press. If "still held" were
    reckoned from the start of the hold rather than its last repeat, the repeats after
    the pause would be a second press: a held STOP would stop twice."""
    from table.hw.keys import HeldKeys

    s = ButtonPress(Button.STOP)
    keys = HeldKeys(gap=0.08, hold=1.0)
    assert keys.feed([s], 0.0) == [] and keys.due(0.1) == [s]
    given = _held(keys, s, 0.5, 30.0, 46)  # repeats until 2.0 s
    given += keys.due(2.2)  # then nothing read for 0.2 s
    given += keys.feed([s] * 6, 2.2)  # the repeats meanwhile, in one read
    given += _held(keys, s, 2.2 + 1 / 30, 30.0, 10)
    given += keys.due(3.0) + keys.flush()
    assert given == []


def test_a_double_key_read_together_after_another_key_is_one_press() -> None:
    """h r r read together (a machine too busy to read between them) is HOLD, then one
    ROLL. If a recent HOLD counted as ROLL still held, the ROLL would be lost; a first
    key read twice at once is one press too, not an error that ends the keys."""
    from table.hw.keys import HeldKeys

    h, r = ButtonPress(Button.HOLD), ButtonPress(Button.ROLL)
    keys = HeldKeys(gap=0.08, hold=1.0)
    assert keys.feed([r, r], 0.0) == [] and keys.due(0.1) == [r]
    keys = HeldKeys(gap=0.08, hold=1.0)
    assert keys.feed([h, r, r], 0.0) == [h] and keys.due(0.1) == [r]


def _piped_keys(data: bytes) -> list[TableEvent]:
    """What the keys give for ``data`` piped in, to its end."""
    import os

    from table.hw.keys import KeyButtons

    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    q: queue.Queue[TableEvent] = queue.Queue()
    with os.fdopen(r) as pipe_in:
        keys = KeyButtons(pipe_in)
        keys.start(q.put)
        assert keys._thread is not None
        keys._thread.join(10)
        assert not keys._thread.is_alive()
        keys.close()
    return events(q)


def test_keys_from_a_pipe_are_each_a_press_even_the_same_key_at_once() -> None:
    """From a pipe (a script of keys), each key is a press, the same key three times
    in a row too: a pipe has no auto-repeat to hold back. If it were taken as a held
    key, "rrr" would be one ROLL and a scripted game would go wrong from there."""
    assert _piped_keys(b"rrrhh") == [ButtonPress(Button.ROLL)] * 3 + [ButtonPress(Button.HOLD)] * 2


def test_closing_the_keys_ends_their_thread_while_no_key_comes() -> None:
    """close() ends the keys' thread even when no key comes and the input stays open.
    If the thread sat in a read, it would outlive the table and take the next keys."""
    import os

    from table.hw.keys import KeyButtons

    r, w = os.pipe()
    try:
        with os.fdopen(r) as pipe_in:
            keys = KeyButtons(pipe_in)
            keys.start(queue.Queue().put)
            keys.close()
            assert keys._thread is not None
            keys._thread.join(10)
            assert not keys._thread.is_alive()
    finally:
        os.close(w)


def test_an_escape_sequence_read_one_character_at_a_time_is_still_skipped() -> None:
    """A stream with no file number (read one character at a time) sees F2 as ESC,
    then O, then Q: still one sequence, skipped. If each read ended the sequence, F2
    would quit the table."""
    import io

    from table.hw.keys import KeyButtons

    q: queue.Queue[TableEvent] = queue.Queue()
    keys = KeyButtons(io.StringIO("\x1bOQ\x1b[2~r"))
    keys.start(q.put)
    assert keys._thread is not None
    keys._thread.join(10)
    keys.close()
    assert events(q) == [ButtonPress(Button.ROLL)]


def test_the_escape_key_alone_in_one_read_lets_the_next_key_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Escape pressed alone arrives as a lone ESC in its own read; the key after it, in
    the next read, is read as itself. If it were taken as the rest of a sequence, a
    STOP pressed after Escape would be lost."""
    import os

    import table.hw.keys as keys_mod
    from table.hw.keys import KeyButtons

    r, w = os.pipe()
    os.write(w, b"x")  # the pipe is ready to read; what is read comes from the chunks
    chunks = [b"\x1b", b"s", b""]
    real_read = os.read

    def read(fd: int, n: int) -> bytes:
        return chunks.pop(0) if fd == r else real_read(fd, n)

    monkeypatch.setattr(keys_mod.os, "read", read)
    q: queue.Queue[TableEvent] = queue.Queue()
    try:
        with os.fdopen(r) as pipe_in:
            keys = KeyButtons(pipe_in)
            keys.start(q.put)
            assert keys._thread is not None
            keys._thread.join(10)
            keys.close()
    finally:
        os.close(w)
    assert events(q) == [ButtonPress(Button.STOP)]


def test_closing_the_keys_while_their_thread_checks_the_terminal_ends_it_cleanly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """close() that came while the keys' thread was reading the terminal's mode (to set
    single keys again after a suspend) ended that thread with a TypeError traceback on
    the way out of the table. The thread ends without one, and the terminal is left in
    line mode with echo, as the shell wants it."""
    import os
    import pty
    import termios
    import threading

    from table.hw.keys import KeyButtons

    raised = _key_thread_errors(monkeypatch)
    master, slave = pty.openpty()
    real_tcgetattr = termios.tcgetattr
    armed = threading.Event()
    with os.fdopen(slave, "r", closefd=True) as stream:
        keys = KeyButtons(stream)

        def tcgetattr(fd: int) -> Any:
            attrs = real_tcgetattr(fd)
            if armed.is_set() and threading.current_thread() is keys._thread:
                armed.clear()
                keys.close()  # the table closing the keys at this very moment
            return attrs

        keys.start(queue.Queue().put)
        monkeypatch.setattr(termios, "tcgetattr", tcgetattr)
        armed.set()
        assert keys._thread is not None
        keys._thread.join(10)
        assert not keys._thread.is_alive() and not armed.is_set()
        keys.close()
        modes = real_tcgetattr(slave)[3]
    os.close(master)
    assert raised == []
    assert modes & termios.ICANON and modes & termios.ECHO


def test_a_contact_rests_in_what_is_left_of_its_bounce_window() -> None:
    """The resting thread sleeps until the contact will have rested: not 0 (a busy
    wait every millisecond while a button chatters)."""
    tracker = PressTracker(PressTiming(bounce_s=0.5))
    tracker.edge(True, 10.0)
    assert tracker.rests_in(10.0) == 0.5
    assert tracker.rests_in(10.25) == 0.25
    assert tracker.rests_in(11.0) == 0.0


def test_a_csi_sequence_with_a_space_intermediate_is_skipped_whole() -> None:
    """ECMA-48 intermediates run from 0x20 (space) to 0x2F: in ESC [ 2 SP q the q is the
    final character, not the q key (quit)."""
    decoder = KeyDecoder()
    assert decoder.feed("\x1b[2 q") == []
    assert decoder.feed("r") == [ButtonPress(Button.ROLL)]


R, R_LONG = ButtonPress(Button.ROLL), ButtonPress(Button.ROLL, Press.LONG)
R_VERY = ButtonPress(Button.ROLL, Press.VERY_LONG)


def test_the_same_key_again_just_at_the_gap_is_a_second_press() -> None:
    """A repeat must come within less than ``gap``; at ``gap`` exactly it is a new press."""
    keys = HeldKeys(gap=0.5, hold=1.0)
    assert keys.feed([R], 0.0) == []
    assert keys.feed([R], 0.5) == [R]
    assert keys.due(1.0) == [R]


def test_a_press_is_given_out_once_gap_has_passed_exactly() -> None:
    keys = HeldKeys(gap=0.5, hold=1.0)
    assert keys.feed([R], 0.0) == []
    assert keys.due(0.5) == [R]


def test_repeats_that_start_hold_seconds_after_the_last_press_are_a_new_press() -> None:
    """A key still held is one whose repeats began less than ``hold`` after it was last
    seen; at ``hold`` exactly it is pressed anew (and held)."""
    keys = HeldKeys(gap=0.5, hold=1.0)
    assert keys.feed([R], 0.0) == [] and keys.due(0.5) == [R]
    assert keys.feed([R, R], 1.0) == []
    assert keys.due(1.5) == [R]


def test_a_very_long_key_after_a_held_long_one_is_its_own_press() -> None:
    """Only a short press after a long one of the same button is Shift let go: R held
    and then 1 (a very long ROLL) right after it are two presses."""
    keys = HeldKeys(gap=0.5, hold=1.0)
    assert keys.feed([R_LONG, R_LONG], 0.0) == []
    assert keys.feed([R_VERY], 0.01) == [R_LONG]
    assert keys.due(0.6) == [R_VERY]
