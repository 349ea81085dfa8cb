"""The table loop end to end: script buttons, a camera showing real photos of the dice,
the real pip reader and settler, the referee, the game log (written before each screen),
settings, resume after a cut, camera failure."""

from __future__ import annotations

import io
import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from table.game import replay
from table.gamelog import load
from table.hw.camera import SHIFTS, ScriptedCamera
from table.hw.script import ScriptButtons, parse_script
from table.service import screens
from table.service.demo import DEMO_PLAYS, DEMO_SETTINGS, menu_presses, script_for
from table.service.loop import TableLoop, vision_parts
from table.service.ports import (
    Button,
    ButtonPress,
    CameraFailed,
    CameraReady,
    Frame,
    Put,
    Quit,
)
from table.service.referee import Settings
from table.service.resume import DataDir
from tests.conftest import close_parts, damaged_inside, seen_as_pi

FRAMES = Path(__file__).resolve().parents[1] / "table" / "data" / "frames"


class CheckingDisplay:
    """Remembers every screen and, at each, how many events the log on disk holds."""

    def __init__(self, loop_ref: list[TableLoop]) -> None:
        self.loop_ref = loop_ref
        self.images: list[Image.Image] = []
        self.texts: list[str] = []
        self.checks: list[tuple[int, int]] = []  # (events on disk, events the referee applied)

    def show_text(self, text: str) -> None:
        self.texts.append(text)

    def show(self, image: Image.Image) -> None:
        self.images.append(image)
        loop = self.loop_ref[0]
        ref = loop.referee
        game = ref.game if ref is not None else None
        if game is None:
            return
        path = loop.data.current() or (loop.data.logs()[-1] if loop.data.logs() else None)
        assert path is not None
        on_disk = len(load(path).events)
        self.checks.append((on_disk, game.count))

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
def vision() -> Any:
    reader, _ = vision_parts(3)
    return reader


def make_loop(
    tmp: Path,
    rules: str,
    steps: list[str],
    reader: Any,
    settings: dict[str, Any] | None = None,
    camera: Any = None,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[TableLoop, CheckingDisplay, ScriptButtons]:
    """A table loop on the shipped frames (``camera``: another camera instead), on
    ``clock``."""
    from vision.settle import SettleConfig, Settler

    data = DataDir(tmp / "data")
    s = settings if settings is not None else DEMO_SETTINGS[rules]
    data.prepare()
    data.save_settings(s)
    if camera is None:
        camera = ScriptedCamera(FRAMES, fps=60)
    on_throw = camera.throw if isinstance(camera, ScriptedCamera) else None
    buttons = ScriptButtons(parse_script(json.dumps(steps)), on_throw=on_throw)
    ref: list[TableLoop] = []
    display = CheckingDisplay(ref)
    loop = TableLoop(
        data=data,
        settings=Settings.from_json(s),
        buttons=buttons,
        display=display,
        camera=camera,
        reader=reader,
        settler=Settler(SettleConfig(consistent_frames=3)),
        seed=1,
        errors=io.StringIO(),
        clock=clock,
    )
    ref.append(loop)
    buttons.wait_idle = loop.wait_idle
    buttons.step_timeout_s = 10.0
    return loop, display, buttons


def test_a_start_says_when_places_of_dice_not_counted_cannot_be_used(tmp_path: Path) -> None:
    """tray.json's "refused" places that cannot be used are said in the journal, with
    what the table then does not check; the last throw's dice are used as before."""
    loop, _, _ = make_loop(tmp_path, "mex", [], None)
    loop.data.tray_path.write_text(
        json.dumps({"dice": [], "refused": [{"value": 9}]}), encoding="utf-8"
    )
    loop.boot()
    said = loop.errors.getvalue()  # type: ignore[union-attr]
    assert said.splitlines() == [
        "dicetable: tray.json: the places of dice not counted: a die value of 9, not 1-6; "
        "the first throw is not checked for dice left where a reading not counted saw them"
    ]


@pytest.mark.parametrize("rules", list(DEMO_PLAYS))
def test_whole_game_through_the_loop(tmp_path: Path, rules: str, vision: Any) -> None:
    loop, display, _ = make_loop(tmp_path, rules, script_for(rules), vision)
    reason = loop.run(seconds=90)
    assert reason == "end of script"
    logs = loop.data.logs()
    assert len(logs) == 1
    loaded = load(logs[-1])
    game = replay(loaded.header, loaded.events)
    # Every throw of the script was read right from its photo, nothing was refused.
    throws = [tuple(e.dice) for e in loaded.events if e.kind.value == "throw"]  # type: ignore[union-attr]
    want = [
        tuple(int(x) for x in s.split()[1:]) for s in DEMO_PLAYS[rules] if s.startswith("throw")
    ]
    assert throws == want
    assert game.refused == ()
    assert game.is_over
    assert loop.data.current() is None  # finished: nothing to resume
    assert "wins" in display.texts[-1]
    # The log held every applied event before each screen was shown.
    assert display.checks, "no game screens"
    for on_disk, applied in display.checks:
        assert on_disk == applied
    assert display.images[-1].tobytes() == screens.render(loop.referee.screen).tobytes()  # type: ignore[union-attr]


def test_settings_are_saved_when_the_menu_changes_them(tmp_path: Path, vision: Any) -> None:
    # mexico remembered; HOLD twice on the rules step: mexico -> mexen -> mex; then start.
    steps = ["hold", "hold"] + ["roll"] * 6 + ["quit"]
    loop, _, _ = make_loop(tmp_path, "mexico", steps, vision)
    loop.run(seconds=30)
    saved = json.loads(loop.data.settings_path.read_text())
    assert saved["rules"] == "mex"
    assert loop.data.current() is not None  # a game was started and is in progress


def test_resume_after_a_cut_with_a_torn_line(tmp_path: Path, vision: Any) -> None:
    rules = "mexico"
    # play the first half of the demo game, then cut the log's last line in half
    half = script_for(rules)[:-10]
    loop, _, _ = make_loop(tmp_path, rules, half + ["quit"], vision)
    loop.run(seconds=60)
    path = loop.data.current()
    assert path is not None
    before = load(path)
    assert len(before.events) >= 6
    with open(path, "ab") as fh:
        fh.write(b'{"throw":[6,')  # the cut came in the middle of a line
    # restart: the game resumes from the log, the torn line is survived
    loop2, display2, _ = make_loop(tmp_path, rules, ["quit"], vision)
    loop2.run(seconds=30)
    assert loop2.resumed is not None and loop2.resumed.path == path
    assert loop2.resumed.game.torn is not None
    assert "resumed" in display2.texts[0]
    assert loop2.referee is not None and loop2.referee.game is not None
    assert loop2.referee.game.view() == replay(before.header, before.events).view()
    assert path.read_bytes().endswith(b"\n")  # cut back to whole lines
    # and the game goes on to its end from there
    rest = script_for(rules)[-10:]
    loop3, _, _ = make_loop(tmp_path, rules, rest, vision)
    loop3.run(seconds=60)
    final = load(path)
    assert final.torn is None
    assert replay(final.header, final.events).is_over


def test_a_finished_game_is_not_resumed(tmp_path: Path, vision: Any) -> None:
    loop, _, _ = make_loop(tmp_path, "mex", script_for("mex"), vision)
    loop.run(seconds=60)
    loop2, display2, _ = make_loop(tmp_path, "mex", ["quit"], vision)
    loop2.run(seconds=30)
    assert loop2.resumed is None
    assert "resumed" not in display2.texts[0]


@pytest.mark.parametrize("code", ["EROFS", "EIO"])
def test_a_game_whose_in_progress_mark_cannot_be_removed_still_shows_its_end(
    tmp_path: Path, vision: Any, monkeypatch: pytest.MonkeyPatch, code: str
) -> None:
    """The game ended and its log was whole, but removing games/current failed (a file
    system gone read-only, an I/O error): the table showed "table error" instead of who
    won. Now the end is shown, the journal says why the mark stays, and the next start
    finds the game over and removes the mark itself."""
    import errno

    num = getattr(errno, code)
    pointer = tmp_path / "data" / "games" / "current"
    real = Path.unlink

    def failing(self: Path, missing_ok: bool = False) -> None:
        if self == pointer and self.exists():
            raise OSError(num, os.strerror(num), str(self))
        real(self, missing_ok)

    monkeypatch.setattr(Path, "unlink", failing)
    loop, display, _ = make_loop(tmp_path, "mex", script_for("mex"), vision)
    assert loop.run(seconds=60) == "end of script"
    assert loop.faults == 0
    assert "wins" in display.texts[-1] and "table error" not in "\n".join(display.texts)
    said = loop.errors.getvalue()  # type: ignore[union-attr]
    assert [line for line in said.splitlines() if "games/current" in line] == [
        f"dicetable: the game is over, but games/current cannot be removed: "
        f"[Errno {num}] {os.strerror(num)}: '{pointer}'; the next start shows its end again"
    ]
    path = loop.data.current()
    assert path is not None and replay(*_header_events(path)).is_over
    monkeypatch.undo()
    loop2, display2, _ = make_loop(tmp_path, "mex", ["quit"], vision)
    loop2.run(seconds=30)
    assert "wins" in display2.texts[0]  # the end once more, no game to play on
    assert loop2.data.current() is None and not pointer.exists()
    assert loop2.referee is not None and loop2.referee.game is not None
    assert loop2.referee.game.is_over and len(load(path).events) == loop2.referee.game.count


def _header_events(path: Path) -> tuple[Any, Any]:
    loaded = load(path)
    return loaded.header, loaded.events


def _half_a_game(tmp_path: Path, vision: Any) -> Path:
    """The first half of the demo's mexico game played; the log of the game in progress."""
    loop, _, _ = make_loop(tmp_path, "mexico", script_for("mexico")[:-10] + ["quit"], vision)
    loop.run(seconds=60)
    path = loop.data.current()
    assert path is not None
    return path


def test_a_log_holding_no_game_is_set_aside_and_said_so(tmp_path: Path, vision: Any) -> None:
    path = _half_a_game(tmp_path, vision)
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join(lines[:2] + [b'{"foo": 1}'] + lines[2:]))  # an unknown event
    loop, display, _ = make_loop(tmp_path, "mexico", ["quit"], vision)
    loop.run(seconds=30)
    assert loop.resumed is None
    bad = path.with_suffix(".jsonl.bad")
    assert bad.is_file() and not path.exists() and loop.data.current() is None
    said = loop.errors.getvalue()  # type: ignore[union-attr]
    assert f"cannot resume the unfinished game: {path.name}: line 3" in said
    assert f"set aside as {bad.name}" in said
    assert "cannot resume" in display.texts[0] and "log set aside: line 3" in display.texts[0]


def _kept_then_resumed(
    tmp_path: Path, vision: Any, monkeypatch: pytest.MonkeyPatch, path: Path, events: int
) -> tuple[Any, Any, Any]:
    """The table started with the failure ``monkeypatch`` set up, then, the failure gone,
    started again: the first start must keep ``path`` the game in progress, the second
    resume all its ``events``. The first loop and both displays, for what they said."""
    loop, display, _ = make_loop(tmp_path, "mexico", ["quit"], vision)
    loop.run(seconds=30)
    assert loop.resumed is None
    monkeypatch.undo()
    assert loop.data.current() == path  # still the game in progress: the next start resumes it
    loop2, display2, _ = make_loop(tmp_path, "mexico", ["quit"], vision)
    loop2.run(seconds=30)
    assert loop2.resumed is not None and len(loop2.resumed.game.events) == events
    return loop, display, display2


def test_a_log_that_cannot_be_read_is_kept_for_the_next_start(
    tmp_path: Path, vision: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _half_a_game(tmp_path, vision)
    events = len(load(path).events)
    import table.gamelog as gamelog

    real = gamelog.read_small

    def failing(p: Any, most: int, pipes: bool = False) -> bytes:
        if Path(p) == path:
            raise OSError(5, "Input/output error")
        return real(p, most, pipes)

    monkeypatch.setattr(gamelog, "read_small", failing)
    loop, display, _ = _kept_then_resumed(tmp_path, vision, monkeypatch, path, events)
    assert "Input/output error" in loop.errors.getvalue()
    assert "log kept for the next start: cannot read" in display.texts[0]


def test_a_game_whose_pointer_cannot_be_read_is_kept_for_the_next_start(
    tmp_path: Path, vision: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An I/O error on games/current is an I/O error on the game in progress: it is said,
    and the next start resumes the game, instead of the table forgetting it in silence."""
    path = _half_a_game(tmp_path, vision)
    events = len(load(path).events)
    from table.service import resume

    pointer = path.parent / "current"
    real = resume.read_small

    def failing(path: Any, most: int, pipes: bool = False) -> bytes:
        if Path(path) == pointer:
            raise OSError(5, "Input/output error")
        return real(path, most, pipes)

    monkeypatch.setattr(resume, "read_small", failing)
    loop, display, _ = _kept_then_resumed(tmp_path, vision, monkeypatch, path, events)
    assert "Input/output error" in loop.errors.getvalue()
    assert "log kept for the next start: cannot read" in display.texts[0]


def test_a_log_that_cannot_be_reopened_is_kept_for_the_next_start(
    tmp_path: Path, vision: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk was full when the torn last line was being kept in ``.torn``: the display
    said "log kept as it was", yet games/current was removed and the next start, with
    space freed, began at the menu instead of resuming the game."""
    import errno

    from table import gamelog

    path = _half_a_game(tmp_path, vision)
    events = len(load(path).events)
    with open(path, "ab") as fh:
        fh.write(b'{"throw":[6,')  # torn by the cut
    real = open

    def full(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if str(file).endswith(".torn"):
            raise OSError(errno.ENOSPC, "No space left on device", str(file))
        return real(file, mode, *args, **kwargs)

    monkeypatch.setattr(gamelog, "open", full, raising=False)
    loop, display, display2 = _kept_then_resumed(tmp_path, vision, monkeypatch, path, events)
    said = loop.errors.getvalue()
    assert f"cannot resume the unfinished game: {path.name}: " in said
    assert "No space left on device" in said and "tried again at the next start" in said
    assert "log kept for the next start: No space left on device" in display.texts[0]
    assert loop.shown is not None and isinstance(loop.shown.screen, screens.Message)
    assert screens.overflow(loop.shown.screen) == ()  # the reason fits the 128 px lines
    assert "resumed" in display2.texts[0]
    assert path.read_bytes().endswith(b"\n")  # the torn line cut off at last


def test_a_log_the_rules_cannot_play_on_is_not_called_resumed(tmp_path: Path, vision: Any) -> None:
    path = _half_a_game(tmp_path, vision)
    lines = path.read_text().split("\n")
    head = json.loads(lines[0])
    head["rules"] = "mexicoo"
    path.write_text("\n".join([json.dumps(head)] + lines[1:]))
    content = path.read_bytes()
    loop, display, _ = make_loop(tmp_path, "mexico", ["quit"], vision)
    loop.run(seconds=30)
    assert loop.resumed is None
    assert "mexicoo" in loop.errors.getvalue()  # type: ignore[union-attr]
    assert "cannot resume" in display.texts[0]
    assert path.with_name(path.name + ".bad").read_bytes() == content  # kept, set aside


def test_a_mythical_log_is_resumed_and_played_on_with_the_buttons(
    tmp_path: Path, vision: Any
) -> None:
    """A cut in the middle of a mythical trick: the next start goes on with the player
    to roll, whose die is entered with the buttons (MY-1, MY-4) and logged."""
    from table.gamelog import LogWriter

    example = load(Path(__file__).resolve().parents[1] / "table/examples/mythical_bonuses.json")
    data = DataDir(tmp_path / "data")
    data.prepare()
    with data.new_log(example.header) as log:
        log.append_all(list(example.events[:3]))  # the bids, Ann's and Bob's dice
    assert isinstance(log, LogWriter)
    path = data.current()
    assert path is not None
    # Cid's die: any button takes the notice away, then HOLD to "red", ROLL; "7", ROLL
    # and any button the trick's notice, to the round's scores
    steps = ["hold"] + ["hold", "hold", "roll"] + ["hold", "hold", "roll"] + ["hold", "quit"]
    loop, display, _ = make_loop(tmp_path, "mexico", steps, vision)
    loop.run(seconds=30)
    assert loop.resumed is not None and loop.resumed.path == path
    assert "resumed: mythical" in display.texts[0] and "Cid rolls" in display.texts[0]
    assert "Cid's die" in display.texts[1]
    assert load(path).events == example.events[:4]  # Cid's red 7, logged
    # MY-5: the minotaur took round 1's one trick; then the round is scored
    assert "takes it\n  Ann\nminotaur" in display.texts[-2]
    assert "round 1 over" in display.texts[-1]
    game = replay(example.header, example.events[:4])
    assert loop.referee is not None and loop.referee.game is not None
    assert loop.referee.game.state == game.state
    for on_disk, applied in display.checks:
        assert on_disk == applied


class FailingCamera:
    def __init__(self) -> None:
        self.put: Put | None = None

    def start(self, put: Put) -> None:
        self.put = put

    def want(self, flag: bool) -> None:
        if flag and self.put is not None:
            self.put(CameraFailed("usb:0: camera stopped sending frames (unplugged?)"))
            self.put(Quit("done"))

    def close(self) -> None:
        pass


def test_camera_failure_is_shown_not_raised(tmp_path: Path, vision: Any) -> None:
    loop, display, _ = make_loop(tmp_path, "mexico", [], vision)
    loop.camera = FailingCamera()
    loop.buttons = None
    loop.boot()
    presses = menu_presses(DEMO_SETTINGS["mexico"]) + 1  # start the game, then ROLL for a throw
    for _ in range(presses):
        loop.put(ButtonPress(Button.ROLL))
    assert loop.run() == "done"
    assert any("camera" in t and "unplugged" in t for t in display.texts)
    said = loop.errors.getvalue()  # type: ignore[union-attr]
    assert "dicetable: camera: usb:0: camera stopped sending frames (unplugged?)" in said


class Recorder:
    """A notifier that keeps what it was told (systemd's status line)."""

    watchdog_interval: float | None = None

    def __init__(self) -> None:
        self.said: list[str] = []

    def ready(self) -> None:
        self.said.append("ready")

    def status(self, text: str) -> None:
        self.said.append(f"status: {text}")

    def watchdog(self) -> None:
        pass

    def stopping(self) -> None:
        self.said.append("stopping")


class ClosedPart:
    """Buttons or a camera that only count being closed; ``fails``: closing raises."""

    def __init__(self, closed: list[str], name: str, fails: bool = False) -> None:
        self.closed, self.name, self.fails = closed, name, fails

    def start(self, put: Put) -> None:
        pass

    def close(self) -> None:
        self.closed.append(self.name)
        if self.fails:
            raise OSError(5, "Input/output error")


def test_a_part_that_fails_to_close_is_said_and_the_rest_are_closed(
    tmp_path: Path, vision: Any
) -> None:
    closed: list[str] = []
    loop, display, _ = make_loop(tmp_path, "mexico", [], vision)
    loop.buttons = ClosedPart(closed, "buttons", fails=True)  # type: ignore[assignment]
    loop.camera = ClosedPart(closed, "camera", fails=True)  # type: ignore[assignment]
    display.close = lambda: closed.append("display")  # type: ignore[method-assign]
    loop.notifier = Recorder()
    loop.boot()
    for _ in range(menu_presses(DEMO_SETTINGS["mexico"])):
        loop.handle(ButtonPress(Button.ROLL))
    writer = loop.writer
    assert writer is not None
    loop.close()
    assert closed == ["buttons", "camera", "display"]
    assert writer._fh.closed and loop.writer is None
    said = loop.errors.getvalue()  # type: ignore[union-attr]
    assert "closing ClosedPart: [Errno 5] Input/output error" in said
    assert loop.notifier.said[-1] == "stopping"


def test_at_the_end_the_state_file_names_the_log_and_the_ticker_stops(
    tmp_path: Path, vision: Any
) -> None:
    steps = ["roll"] * menu_presses(DEMO_SETTINGS["mexico"]) + ["quit"]
    loop, _, _ = make_loop(tmp_path, "mexico", steps, vision)
    loop.state_path = tmp_path / "state.json"
    assert loop.run() == "end of script"  # no time limit: only the loop can end the ticker
    state = json.loads(loop.state_path.read_text())
    (log,) = loop.data.logs()
    assert state["log"] == log.name and state["mode"] == "play" and state["events"] == 0
    assert loop._timer is not None
    loop._timer.join(timeout=30)
    assert not loop._timer.is_alive()


def test_a_state_file_that_cannot_be_written_is_said_by_name_and_the_table_goes_on(
    tmp_path: Path, vision: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--state-json`` on a full disk: the error reached the command's last handler, which
    said "No space left on device" with no file's name (the data folder may have room),
    ended the table after its first screen and skipped the closing steps: the log left
    open, the display (and with it the GIF) not closed."""
    import table.service.loop

    def disk_full(path: Path, data: bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(table.service.loop, "atomic_write", disk_full)
    closed: list[str] = []
    loop, display, _ = make_loop(tmp_path, "mexico", [], vision)
    display.close = lambda: closed.append("display")  # type: ignore[method-assign]
    loop.state_path = tmp_path / "state.json"
    loop.boot()
    for _ in range(menu_presses(DEMO_SETTINGS["mexico"])):
        loop.handle(ButtonPress(Button.ROLL))
    writer = loop.writer
    assert writer is not None  # the game began
    loop.close()
    assert closed == ["display"] and writer._fh.closed and loop.writer is None
    said = loop.errors.getvalue()  # type: ignore[union-attr]
    line = f"the state file {tmp_path / 'state.json'} was not written: No space left on device"
    assert said.count(line) == 2  # at the start and at the end
    assert said.count(f"{line} (the game goes on)") == 1  # not when the table stops


class FramesCamera(FailingCamera):
    """Puts ``count`` blank frames when dice are wanted, then quits."""

    count = 1

    def want(self, flag: bool) -> None:
        if flag and self.put is not None:
            import numpy as np

            for _ in range(self.count):
                self.put(Frame(np.zeros((48, 64, 3), np.uint8), 0.0))
            self.put(Quit("done"))


class BrokenReader:
    def read(self, frame: Any, expect: int | None = None) -> Any:
        raise RuntimeError("model file damaged")


def _read_by_a_broken_reader(tmp_path: Path, camera: Any) -> tuple[TableLoop, CheckingDisplay]:
    """A game started and ROLL pressed, ``camera``'s frames read by a reader that fails."""
    loop, display, _ = make_loop(tmp_path, "mexico", [], BrokenReader())
    loop.camera = camera
    loop.buttons = None
    loop.boot()
    for _ in range(menu_presses(DEMO_SETTINGS["mexico"]) + 1):
        loop.put(ButtonPress(Button.ROLL))
    assert loop.run() == "done"
    return loop, display


class CountingCamera(FramesCamera):
    """Counts the frames the loop gives back (``frame_done``: the camera's slot free)."""

    done = 0

    def frame_done(self) -> None:
        self.done += 1


def test_a_fault_in_one_event_is_shown_and_the_table_goes_on(tmp_path: Path) -> None:
    camera = CountingCamera()
    loop, display = _read_by_a_broken_reader(tmp_path, camera)
    # the frame the reader failed on is given back all the same: else the camera waits
    # 30 s for its slot, longer than the watchdog's 20 s without a frame
    assert camera.done == 1
    assert loop.faults == 1
    assert "could not read the dice" in display.texts[-1]
    assert "model file damaged" in loop.errors.getvalue()  # type: ignore[union-attr]


def test_a_reader_that_fails_stops_the_reading_until_roll(tmp_path: Path) -> None:
    """A reader that fails on every frame read on at ten frames a second under "table
    error / press a button", and the press went to the game (STOP cancelled the throw).
    Now the table stops reading at the first fault, says it cannot read the dice, and
    ROLL tries again, as after a camera fault."""
    camera = FramesCamera()
    camera.count = 250
    loop, display = _read_by_a_broken_reader(tmp_path, camera)
    assert loop.faults == 1 and not loop.want_dice
    assert "could not read the dice" in display.texts[-1]
    assert "ROLL: try again" in display.texts[-1]
    assert loop.referee is not None and loop.referee.dice_wanted() is None


def test_the_same_fault_again_and_again_is_said_with_its_count_not_each_time(
    tmp_path: Path,
) -> None:
    """A fault that comes back on every event (a camera's, ten a second) used to write a
    journal line each time: the 1st, 10th and 100th are said, with how often."""
    loop, _ = _read_by_a_broken_reader(tmp_path, FramesCamera())
    loop.errors = io.StringIO()
    for _ in range(250):
        loop._fault("Frame: OSError: model file damaged")
    said = loop.errors.getvalue().splitlines()
    assert len(said) == 3, said
    assert said[0].endswith("model file damaged")
    assert said[1].endswith("(10 times)") and said[2].endswith("(100 times)")


class DarkCamera(FailingCamera):
    """A tray with the lamp off: the same black frame, still, five times."""

    def picture(self) -> Any:
        import numpy as np

        return np.zeros((480, 640, 3), np.uint8)

    def want(self, flag: bool) -> None:
        if flag and self.put is not None:
            for i in range(5):
                self.put(Frame(self.picture(), float(i)))
            self.put(Quit("done"))


class FoggedCamera(DarkCamera):
    """A lens fogged by a hot drink: a still picture with nothing sharp in it."""

    def picture(self) -> Any:
        import cv2
        import numpy as np

        ramp = np.tile(np.linspace(60, 200, 640, dtype=np.float32), (480, 1))
        return cv2.cvtColor(ramp.astype(np.uint8), cv2.COLOR_GRAY2BGR)


def test_a_still_tray_that_cannot_be_read_is_said_not_waited_on(
    tmp_path: Path, vision: Any
) -> None:
    """A dark (or empty) tray is read as no dice: the table used to show "reading..."
    for ever. Once it has been still so for as long as dice take to settle, it says why
    and goes on waiting; nothing is logged."""
    loop, display, _ = make_loop(tmp_path, "mexico", [], vision)
    loop.camera = DarkCamera()
    loop.buttons = None
    loop.boot()
    for _ in range(menu_presses(DEMO_SETTINGS["mexico"]) + 1):  # start, then ROLL: a throw
        loop.put(ButtonPress(Button.ROLL))
    assert loop.run() == "done"
    assert isinstance(loop.referee.screen, screens.Refusal)  # type: ignore[union-attr]
    assert "too dark" in display.texts[-1] and "more light" in display.texts[-1]
    assert sum("too dark" in t for t in display.texts) == 1  # once per still stretch
    assert loop.want_dice
    loaded = load(loop.data.logs()[-1])
    assert loaded.events == ()


def test_a_still_tray_seen_through_a_fogged_lens_asks_for_the_lens_to_be_cleaned(
    tmp_path: Path, vision: Any
) -> None:
    """The real reader finds nothing sharp in a still picture: "blurred", and the hint
    is to clean the lens (the screen said "roll again", which no throw mends)."""
    loop, display, _ = make_loop(tmp_path, "mexico", [], vision)
    loop.camera = FoggedCamera()
    loop.buttons = None
    loop.boot()
    for _ in range(menu_presses(DEMO_SETTINGS["mexico"]) + 1):  # start, then ROLL: a throw
        loop.put(ButtonPress(Button.ROLL))
    assert loop.run() == "done"
    assert "blurred" in display.texts[-1] and "clean lens" in display.texts[-1]
    assert "roll again" not in display.texts[-1]
    assert loop.want_dice and load(loop.data.logs()[-1]).events == ()


def test_every_shipped_frame_is_read_right(vision: Any) -> None:
    """The demo's frames (real photos) are read by the real reader as the throw they show."""
    from table.hw.camera import frame_name
    from table.service.make_frames import all_throws
    from vision.sources import load_image

    total = sum(p.stat().st_size for p in FRAMES.iterdir())
    assert total < 3_000_000
    for throw in all_throws():
        reading = vision.read(load_image(FRAMES / f"{frame_name(throw)}.jpg"))
        if throw:
            assert reading.is_ok and reading.values == tuple(sorted(throw, reverse=True)), throw
        else:
            assert not reading.dice


def test_source_camera_thread_puts_frames_only_when_wanted_and_reports_failure() -> None:
    import queue

    from table.hw.camera import SourceCamera
    from table.service.ports import TableEvent

    q: queue.Queue[TableEvent] = queue.Queue()
    cam = SourceCamera(f"folder:{FRAMES}", fps=50)
    cam.start(q.put)
    try:
        with pytest.raises(queue.Empty):
            q.get(timeout=0.3)  # not wanted: no frames
        cam.want(True)
        first = q.get(timeout=10)
        assert isinstance(first, Frame) and first.image.ndim == 3
        cam.frame_done()
    finally:
        cam.close()
    bad = SourceCamera("folder:/no/such/folder", fps=50)
    bad.want(True)
    bad.start(q.put)
    try:
        event = q.get(timeout=10)
        while isinstance(event, Frame):
            event = q.get(timeout=10)
        assert isinstance(event, CameraFailed) and "no such folder" in event.reason
    finally:
        bad.close()


def _play_folder(
    tmp_path: Path, photos: Path, steps: list[str], vision: Any, step_timeout_s: float
) -> tuple[list[tuple[int, ...]], list[str]]:
    """A game of mexico played on ``camera.source = "folder:photos"`` by ``steps``: the
    throws logged, and what the display showed."""
    from table.hw.camera import SourceCamera

    camera = SourceCamera(f"folder:{photos}", fps=60)
    loop, display, buttons = make_loop(tmp_path, "mexico", steps, vision, camera=camera)
    buttons.step_timeout_s = step_timeout_s
    assert loop.run(seconds=60) == "end of script"
    logged = load(loop.data.logs()[0]).events
    throws = [tuple(e.dice) for e in logged if e.kind.value == "throw"]  # type: ignore[union-attr]
    return throws, list(display.texts)


def test_a_video_camera_stops_at_once_while_its_damage_check_stands_still(
    tmp_path: Path,
) -> None:
    """``video:`` replay: a read waits until the video's damage check has passed its
    frame. A check standing still held the camera's thread for 10 s, past close()'s
    3 s wait, and then it put one more frame to a table that had stopped. Closing now
    interrupts the read."""
    import queue
    import signal

    import cv2

    from table.hw.camera import SourceCamera
    from table.service.ports import TableEvent

    clip = tmp_path / "throws.avi"
    writer = cv2.VideoWriter(str(clip), cv2.VideoWriter.fourcc(*"MJPG"), 10, (400, 300))
    photo = cv2.imread(str(FRAMES / "dice_63.jpg"))
    for k in range(40):
        writer.write(np.roll(photo, 5 * k, axis=1))
    writer.release()
    q: queue.Queue[TableEvent] = queue.Queue()
    cam = SourceCamera(f"video:{clip}", fps=50)
    cam.open()
    check = cam.source._check
    os.kill(check._proc.pid, signal.SIGSTOP)  # the check stands still from its start
    with check._cond:
        check.passed = -1
    cam.start(q.put)
    cam.want(True)
    with pytest.raises(queue.Empty):
        q.get(timeout=0.5)  # the first read waits on the check
    cam.close()
    assert cam._thread is not None and not cam._thread.is_alive()
    assert all(not isinstance(e, Frame) for e in list(q.queue))


def test_a_folder_of_photos_is_one_photo_a_throw(tmp_path: Path, vision: Any) -> None:
    """``camera.source = "folder:PATH"`` (the config's "replay photos"): each photo is
    shown as a still tray, one per throw, in name order. Shown one photo a frame, no
    two frames alike, the dice never came to rest and nothing was ever read."""
    import shutil

    photos = tmp_path / "photos"
    photos.mkdir()
    for i, name in enumerate(["dice_63", "dice_42", "dice_55"], start=1):
        shutil.copy(FRAMES / f"{name}.jpg", photos / f"throw{i}.jpg")
    steps = ["roll"] * menu_presses(DEMO_SETTINGS["mexico"]) + ["roll", "stop", "roll"]
    throws, texts = _play_folder(tmp_path, photos, steps, vision, step_timeout_s=5.0)
    assert throws == [(6, 3), (4, 2)]
    assert not any("not counted" in t for t in texts), texts


def test_a_folder_goes_on_past_a_bad_photo_and_a_throw_not_counted(
    tmp_path: Path, vision: Any
) -> None:
    """A photo that cannot be read is said ("ROLL: try again") and skipped: the next ROLL
    gets the next photo, not the folder's first again (which, read as a new throw, was
    once logged twice). A photo read as no throw ("no dice seen: roll again") is left
    behind by the player's next ROLL, as real dice rolled again would be."""
    import shutil

    photos = tmp_path / "photos"
    photos.mkdir()
    shutil.copy(FRAMES / "dice_63.jpg", photos / "throw1.jpg")
    (photos / "throw2.jpg").write_bytes(b"\xff\xd8\xff not a whole photo")
    shutil.copy(FRAMES / "empty.jpg", photos / "throw3.jpg")
    shutil.copy(FRAMES / "dice_42.jpg", photos / "throw4.jpg")
    steps = ["roll"] * menu_presses(DEMO_SETTINGS["mexico"]) + ["roll", "stop"]
    steps += ["roll", "roll", "roll"]  # the bad photo; the empty tray; rolled again
    # the table waits on after "roll again": not idle
    throws, texts = _play_folder(tmp_path, photos, steps, vision, step_timeout_s=3.0)
    assert throws == [(6, 3), (4, 2)]
    said = "\n".join(texts)
    assert "throw2.jpg" in said and "try again" in said
    assert "no dice seen" in said and "roll again" in said
    assert "lie as last thrown" not in said


def test_a_folder_photo_damaged_inside_is_said_and_skipped_not_scored(
    tmp_path: Path, vision: Any
) -> None:
    """A replayed JPEG with four bytes zeroed still decodes, smeared past them; its 5 5
    was read "ok" and scored. A damaged photo is not what was taken (a damaged TIFF read
    a 2 as a 1): it is said ("damaged", "ROLL: try again") and the next ROLL gets the
    next photo."""
    import shutil

    photos = tmp_path / "photos"
    photos.mkdir()
    shutil.copy(FRAMES / "dice_63.jpg", photos / "throw1.jpg")
    (photos / "throw2.jpg").write_bytes(damaged_inside((FRAMES / "dice_55.jpg").read_bytes()))
    shutil.copy(FRAMES / "dice_42.jpg", photos / "throw3.jpg")
    steps = ["roll"] * menu_presses(DEMO_SETTINGS["mexico"]) + ["roll", "stop"]
    steps += ["roll", "roll"]  # the damaged photo; the next one
    throws, texts = _play_folder(tmp_path, photos, steps, vision, step_timeout_s=3.0)
    assert throws == [(6, 3), (4, 2)]
    said = "\n".join(texts)
    assert "throw2.jpg" in said and "damaged" in said and "try again" in said


def test_the_scripted_camera_takes_the_frame_named_for_the_throw_only(tmp_path: Path) -> None:
    """``dice_63.bak.jpg`` (a 52) sorts before ``dice_63.jpg``: the throw 6 3 was once shown
    as a 52; with only the .bak there, there is no frame for it."""
    import shutil

    import numpy as np

    from vision.sources import CameraError, load_image

    shutil.copy(FRAMES / "dice_52.jpg", tmp_path / "dice_63.bak.jpg")
    shutil.copy(FRAMES / "dice_52.jpg", tmp_path / "dice_63.BAK")
    with pytest.raises(CameraError, match="no frame dice_63.jpg"):
        ScriptedCamera(tmp_path).image_for((6, 3))
    os.mkfifo(tmp_path / "dice_63.jpeg")  # a pipe of that name: no frame, not a wait
    with pytest.raises(CameraError, match="no frame dice_63.jpg"):
        ScriptedCamera(tmp_path).image_for((6, 3))
    shutil.copy(FRAMES / "dice_63.jpg", tmp_path / "dice_63.JPG")
    shown = ScriptedCamera(tmp_path).image_for((3, 6))
    assert np.array_equal(shown, load_image(FRAMES / "dice_63.jpg"))


def test_the_scripted_camera_says_a_frame_damaged_inside_and_keeps_the_others(
    tmp_path: Path,
) -> None:
    """A ``--frames`` frame with bytes zeroed in its middle decoded, its lower part
    smeared, and was shown as the throw: now it is a CameraError naming the damage
    (the table says it and waits), each time it is wanted; a whole frame beside it is
    shown."""
    import shutil

    from vision.sources import CameraError

    (tmp_path / "dice_63.jpg").write_bytes(damaged_inside((FRAMES / "dice_63.jpg").read_bytes()))
    shutil.copy(FRAMES / "dice_52.jpg", tmp_path / "dice_52.jpg")
    camera = ScriptedCamera(tmp_path)
    for _ in range(2):
        with pytest.raises(CameraError, match=r"dice_63\.jpg: damaged \(Corrupt JPEG data"):
            camera.image_for((6, 3))
    assert camera.image_for((5, 2)).shape[:2] == (300, 400)
    assert list(camera._cache) == [(5, 2)]


def test_the_scripted_camera_keeps_only_the_last_few_frames_decoded() -> None:
    """Every frame it had shown stayed decoded: big photos ran to gigabytes."""
    from table.hw.camera import FRAMES_KEPT

    camera = ScriptedCamera(FRAMES)
    throws = [(6, 3), (5, 2), (4, 1), (6, 6), (2, 1), (5, 5)]
    first = camera.image_for(throws[0])
    for dice in throws[1:]:
        camera.image_for(dice)
        camera.image_for(throws[0])  # shown again and again: kept
    assert len(camera._cache) == FRAMES_KEPT
    assert camera.image_for(throws[0]) is first
    assert (4, 1) not in camera._cache  # the oldest went


def test_the_scripted_camera_throws_again_when_the_player_rolls_again() -> None:
    """Keyboard play: each throw's dice are picked when the table wants them, and again
    when the player rolls after "roll again"; a script's own throw is kept."""
    picks = iter([(6, 3), (5, 2), (4, 1)])
    camera = ScriptedCamera(FRAMES)
    camera.pick = lambda: next(picks)
    camera.want(True)
    assert camera._dice == (6, 3)
    camera.rolled()
    assert camera._dice == (5, 2)
    camera.throw((2, 2))  # a script's "throw 2 2" before its "roll"
    camera.rolled()
    assert camera._dice == (2, 2)


def _started(cam: Any) -> Any:
    """``cam`` started, putting its events on the queue returned."""
    import queue

    from table.service.ports import TableEvent

    q: queue.Queue[TableEvent] = queue.Queue()
    cam.start(q.put)
    return q


def _webcam_started(source: Any) -> tuple[Any, Any]:
    """A ``usb:0`` camera reading ``source`` (a stand-in for the webcam), started: it
    and the queue its events go to."""
    from table.hw.camera import SourceCamera

    cam = SourceCamera("usb:0", fps=50)
    cam.source = source
    return cam, _started(cam)


class _BlankSource:
    """A live camera whose every frame is black."""

    def read(self) -> Any:
        return np.zeros((8, 8, 3), np.uint8)

    def close(self) -> None:
        pass


def test_a_live_camera_drops_its_old_frames_when_dice_are_wanted_again() -> None:
    """Between throws the camera is not read; a webcam's driver meanwhile keeps frames
    of the last throw's dice lying still, which would settle at once as the new throw.
    Each time dice are wanted again the source is first told to drop them."""
    import threading

    import numpy as np

    calls: list[str] = []
    fresh = threading.Event()  # a read straight after a drop

    class LiveSource:
        name = "usb:0"

        def drop_stale(self) -> None:
            calls.append("drop")

        def read(self) -> Any:
            if calls and calls[-1] == "drop":
                fresh.set()
            calls.append("read")
            return np.zeros((8, 8, 3), np.uint8)

        def close(self) -> None:
            pass

    cam, q = _webcam_started(LiveSource())
    try:
        for _ in range(2):
            fresh.clear()
            cam.want(True)
            assert fresh.wait(10)
            cam.want(False)
            for _ in range(3):
                cam.frame_done()
        assert calls[0] == "drop" and calls.count("drop") == 2
        assert all(calls[i + 1] == "read" for i, c in enumerate(calls) if c == "drop")
        assert "read" in calls[1 : calls.index("drop", 1)]
    finally:
        cam.close()


class _SetUpSource:
    """A live camera that gives frames of ``size`` (w, h), the first ``good`` of them and
    then none, and says how it was set up, as a webcam does (``settings``)."""

    def __init__(self, size: tuple[int, int], good: int = 1000) -> None:
        self.shape = (size[1], size[0], 3)
        self.good = good
        self.size = (640, 480)  # what was asked of it

    def settings(self) -> str:
        return "flicker filter for 50 Hz mains"

    def read(self) -> Any:
        from vision.sources import CameraError

        if self.good <= 0:
            raise CameraError("usb:0: camera stopped sending frames (unplugged?)")
        self.good -= 1
        return np.random.default_rng().integers(0, 255, self.shape, np.uint8)

    def close(self) -> None:
        pass


def test_a_live_camera_opened_tells_the_journal_what_it_gives_each_time() -> None:
    """The journal says once per opening what a live camera gives and how it was set up:
    a webcam may give another size than the one asked, or not take the mains' flicker
    filter, and after a fault it says the camera works again. Before, nothing was said
    of a camera that worked."""
    from table.hw.camera import SourceCamera

    opened = [_SetUpSource((1280, 720), good=2), _SetUpSource((640, 480))]

    class Reopening(SourceCamera):
        def open(self) -> None:
            if self.source is None:
                self.source = opened.pop(0)

    cam = Reopening("usb:0", fps=50, size=(640, 480))
    q = _started(cam)
    try:
        events: list[Any] = []

        def take(n: int) -> None:
            for _ in range(n):
                events.append(q.get(timeout=10))
                if isinstance(events[-1], Frame):
                    cam.frame_done()  # as the loop does

        cam.want(True)
        take(4)
        cam.want(True)  # ROLL: try again
        take(2)
    finally:
        cam.close()
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["CameraReady", "Frame", "Frame", "CameraFailed", "CameraReady", "Frame"]
    assert events[0] == CameraReady(
        "usb:0 open: 1280x720 frames (640x480 asked); flicker filter for 50 Hz mains"
    )
    assert events[4] == CameraReady("usb:0 open: 640x480 frames; flicker filter for 50 Hz mains")


def test_photos_and_videos_tell_the_journal_nothing_when_opened() -> None:
    from table.hw.camera import SourceCamera

    cam = SourceCamera(f"folder:{FRAMES}", fps=50)
    try:
        cam.open()
        assert cam.ready(cam.source.read()) == ""
    finally:
        cam.close()


def test_the_loop_says_a_camera_opened_in_the_journal(tmp_path: Path) -> None:
    loop, _, _ = make_loop(tmp_path, "mex", [], None)
    loop.boot()
    loop.handle(CameraReady("usb:0 open: 640x480 frames; its own flicker filter"))
    said = loop.errors.getvalue()  # type: ignore[union-attr]
    assert said.splitlines() == [
        "dicetable: camera: usb:0 open: 640x480 frames; its own flicker filter"
    ]


def test_a_reader_slower_than_the_camera_gets_no_backlog_of_old_frames() -> None:
    """Frames the loop has not dealt with yet are at most two: a reader taking more than
    a second a frame had the camera go on anyway, and frames seconds old queued up ahead
    of the buttons (nine after 12 s at 1.5 s a frame)."""
    import queue

    cam, q = _webcam_started(_BlankSource())
    try:
        cam.want(True)
        got = [q.get(timeout=10) for _ in range(2)]
        assert all(isinstance(e, Frame) for e in got)
        with pytest.raises(queue.Empty):
            q.get(timeout=2.5)  # the reader is still on them: no third
        cam.frame_done()
        assert isinstance(q.get(timeout=10), Frame)  # one dealt with: one more
        with pytest.raises(queue.Empty):
            q.get(timeout=0.5)
    finally:
        cam.close()


def test_a_live_camera_whose_picture_froze_is_a_camera_fault(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A webcam driver that hands out its last picture again and again: the table saw
    "dice lie as last thrown", then "reading..." for ever, whatever was thrown. A live
    camera's frames are never bit for bit the same (the sensor's noise), so after a
    while of that it is said as a camera fault; the camera is opened again at ROLL."""

    import time

    import numpy as np

    from table.hw import camera as camera_module
    from vision.sources import DeviceSource

    picture = np.random.default_rng(0).integers(0, 256, (256, 256, 3), dtype=np.uint8)
    blank = np.zeros((256, 256, 3), np.uint8)
    blank[8, 8] = 255  # a dark tray, the noise clipped to black; one hot pixel

    class Webcam(DeviceSource):
        def __init__(self, kind: str) -> None:
            self.kind, self.n = kind, 0
            self.size, self.mains_hz, self.power_line = None, None, False

        def read(self) -> Any:
            self.n += 1
            if self.kind == "blank":
                return blank.copy()
            if self.kind == "stuck":
                return picture.copy()
            noisy = picture.copy()
            noisy[self.n % 8, 0, 0] ^= 1
            return noisy

        def drop_stale(self) -> None:
            pass

        def close(self) -> None:
            pass

    def frames_until_not_a_frame(most: int) -> tuple[int, Any]:
        frames, event = 0, None
        while frames < most:
            event = q.get(timeout=10)
            if isinstance(event, CameraReady):  # the journal told of a camera opened
                continue
            if not isinstance(event, Frame):
                break
            frames += 1
            cam.frame_done()
        return frames, event

    def pause() -> None:
        cam.want(False)
        time.sleep(0.3)  # the thread finishes the frame it was reading
        while not q.empty():
            if isinstance(q.get(), Frame):
                cam.frame_done()

    monkeypatch.setattr(camera_module, "FROZEN_S", 0.5)
    cam, q = _webcam_started(None)
    try:
        for kind in ("live", "blank", "stuck"):
            cam.source = Webcam(kind)
            cam.want(True)
            frames, event = frames_until_not_a_frame(100)
            if kind == "stuck":
                assert isinstance(event, CameraFailed), event
                assert "has not changed for 0.5 s" in event.reason
                assert cam.source is None  # closed, to be opened again
            else:  # a live picture, however still the tray; a blank one is the reader's
                assert frames == 100, (kind, event)
            pause()
        # a pause is no time the picture stood still: read 0.3 s, paused 0.6 s
        cam.source = Webcam("stuck")
        cam.want(True)
        frames, event = frames_until_not_a_frame(3)
        assert frames == 3, event
        pause()
        time.sleep(0.3)
        cam.want(True)
        assert isinstance(q.get(timeout=10), Frame)
    finally:
        cam.close()


def test_a_failed_camera_is_opened_again_when_dice_are_next_wanted(tmp_path: Path) -> None:
    """After a camera failure the table says "ROLL: try again", so a try must open the
    camera again: one plugged back in (here: a folder of frames that appears) gives
    frames, one still missing fails again."""
    import queue
    import shutil

    from table.hw.camera import SourceCamera
    from table.service.ports import TableEvent

    q: queue.Queue[TableEvent] = queue.Queue()
    later = tmp_path / "frames"
    cam = SourceCamera(f"folder:{later}", fps=50)
    cam.start(q.put)
    try:
        for _ in range(2):  # missing twice: reported each time dice are wanted, once
            cam.want(True)
            event = q.get(timeout=10)
            assert isinstance(event, CameraFailed) and "no such folder" in event.reason
            with pytest.raises(queue.Empty):
                q.get(timeout=0.3)  # not retried until wanted again
            cam.want(False)
        shutil.copytree(FRAMES, later)
        cam.want(True)
        event = q.get(timeout=10)
        assert isinstance(event, Frame) and event.image.ndim == 3
        cam.frame_done()
    finally:
        cam.close()


def test_a_full_disk_acknowledges_nothing_and_loses_nothing(tmp_path: Path) -> None:
    """The log cannot be written: the throw is not shown as counted, the log stays whole,
    and once there is room again the same throw counts."""
    import errno

    import numpy as np

    from table.gamelog import LogWriter
    from vision.types import DieReading, FrameReading, FrameStatus

    def reading() -> FrameReading:
        dice = tuple(
            DieReading(v, (x, 50.0), ((x, 50.0), (30.0, 30.0), 0.0), 1.0)
            for v, x in ((6, 100.0), (3, 300.0))
        )
        return FrameReading(FrameStatus.OK, "read 2 dice", dice)

    class Reader:
        def read(self, frame: Any, expect: int | None = None) -> FrameReading:
            return reading()

    loop, display, _ = make_loop(tmp_path, "mexico", [], Reader())
    loop.camera = None
    loop.settler = None
    loop.boot()
    for _ in range(menu_presses(DEMO_SETTINGS["mexico"])):
        loop.handle(ButtonPress(Button.ROLL))
    assert loop.writer is not None
    log_path = loop.writer.path
    loop.handle(ButtonPress(Button.ROLL))  # P1 rolled: the table wants the dice
    assert loop.want_dice
    before = loop.referee
    size = log_path.stat().st_size

    real_write = LogWriter._write
    full = True

    def write(self: LogWriter, data: bytes) -> None:
        if full:
            self._fh.write(data[:5])  # a partial write, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(self, data)

    LogWriter._write = write  # type: ignore[method-assign]
    loop.notifier = notifier = Recorder()
    try:
        shown = len(display.texts)
        loop.handle(Frame(np.zeros((48, 64, 3), np.uint8), 0.0))
        assert loop.referee is before  # nothing was counted
        assert notifier.said == ["status: cannot save the game: No space left on device"]
        # one screen: the throw is never shown before the log refused it
        assert len(display.texts) == shown + 1, display.texts[shown:]
        assert "cannot save" in display.texts[-1] and "No space" in display.texts[-1]
        assert log_path.stat().st_size == size  # cut back: no half line on disk
        assert "63" not in display.texts[-1]
        full = False
        loop.handle(Frame(np.zeros((48, 64, 3), np.uint8), 0.0))
    finally:
        LogWriter._write = real_write  # type: ignore[method-assign]
    loaded = load(log_path)
    assert loaded.torn is None, log_path.read_bytes()
    assert [e.to_json() for e in loaded.events] == [{"throw": [6, 3]}]
    assert loop.referee is not None and loop.referee.game is not None
    assert replay(loaded.header, loaded.events).state == loop.referee.game.state


def _flaky_display_loop(tmp_path: Path) -> tuple[TableLoop, Any, list[bool]]:
    """A booted loop whose display fails every write (a loose I2C wire) while the
    returned flag's one item is true."""
    import errno

    loop, display, _ = make_loop(tmp_path, "mexico", [], BrokenReader())
    loop.camera = None
    loop.settler = None
    loop.boot()
    real_show = display.show
    fail = [True]

    def flaky(image: Image.Image) -> None:
        if fail[0]:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        real_show(image)

    display.show = flaky  # type: ignore[method-assign]
    return loop, display, fail


def test_a_display_that_fails_once_is_said_and_the_game_goes_on(tmp_path: Path) -> None:
    """An I2C write that fails mid-game (a loose wire) used to escape the fault handler,
    which tried to show "table error" on the same display, and end the loop."""
    loop, display, fail = _flaky_display_loop(tmp_path)
    shown = len(display.images)
    assert loop.handle(ButtonPress(Button.HOLD)) is True
    assert loop.handle(ButtonPress(Button.HOLD)) is True
    errors = loop.errors.getvalue()  # type: ignore[union-attr]
    assert errors.count("display: OSError") == 1 and "Remote I/O error" in errors
    assert "working again" not in errors  # said once it works again, not before
    assert loop.faults == 0 and len(display.images) == shown
    fail[0] = False
    loop.handle(ButtonPress(Button.HOLD))
    assert len(display.images) == shown + 1
    assert display.images[-1].tobytes() == screens.render(loop.referee.screen).tobytes()  # type: ignore[union-attr]
    assert loop.errors.getvalue().count("display: working again") == 1  # type: ignore[union-attr]


def test_the_same_throw_twice_is_two_throws(tmp_path: Path, vision: Any) -> None:
    """The replayed camera has one photo per throw: the same dice thrown again are shown
    moved (by another of ``SHIFTS``), as rolled dice would lie, and counted again."""
    steps = ["roll"] * menu_presses(DEMO_SETTINGS["mexico"])
    steps += ["throw 6 3", "roll", "stop", "throw 3 6", "roll"]
    loop, display, _ = make_loop(tmp_path, "mexico", steps, vision)
    assert loop.run(seconds=60) == "end of script"
    logged = load(loop.data.logs()[0]).events
    assert [tuple(e.dice) for e in logged if e.kind.value == "throw"] == [(6, 3), (6, 3)]  # type: ignore[union-attr]
    assert not any("not counted" in t for t in display.texts), display.texts


@pytest.mark.parametrize(
    ("was", "now"),
    [
        (SHIFTS[0], SHIFTS[1]),
        (SHIFTS[0], SHIFTS[2]),
        (SHIFTS[1], SHIFTS[2]),
    ],
)
def test_every_shipped_frame_moved_reads_as_dice_rolled_again(
    vision: Any, was: tuple[int, int], now: tuple[int, int]
) -> None:
    """Each shipped frame shown at one of the replay camera's ``SHIFTS``, then at
    another: the same values are read, each die beyond where an unrolled die lies and
    within where a held one may lie (MN-5)."""
    from table.service.referee import HOLD_TOLERANCE, UNROLLED_TOLERANCE, _spot, _unrolled

    camera = ScriptedCamera(FRAMES)
    for path in sorted(FRAMES.glob("dice_*.jpg")):
        dice = tuple(int(c) for c in path.stem.split("_")[1])
        image = camera.image_for(dice)
        before = vision.read(camera.shifted(image, was))
        after = vision.read(camera.shifted(image, now))
        assert sorted(before.values) == sorted(after.values) == sorted(dice), path.name
        assert not _unrolled(before.dice, after.dice), path.name
        for d in before.dice:
            moved = min(math.dist(d.center, a.center) for a in after.dice if a.value == d.value)
            size = _spot(d).size
            assert UNROLLED_TOLERANCE * size < moved < HOLD_TOLERANCE * size, path.name


def test_no_shipped_frame_shown_after_another_leaves_a_die_unthrown(vision: Any) -> None:
    """The shipped frames lay a value in the same place whenever it is the higher (or
    the lower) die: shown unmoved, a throw of 63 after 64 left the 6 where it lay, and
    the table (which counts no die left lying unthrown) refused the script's throw. Each
    throw is shown at another of the camera's shifts than the last: no die of any frame
    then lies unthrown as a die of any other frame lay."""
    from table.service.referee import _unthrown

    camera = ScriptedCamera(FRAMES)
    read: dict[tuple[str, tuple[int, int]], Any] = {}
    for path in sorted(FRAMES.glob("dice_*.jpg")):
        dice = tuple(int(c) for c in path.stem.split("_")[1])
        image = camera.image_for(dice)
        for shift in SHIFTS:
            read[(path.stem, shift)] = vision.read(camera.shifted(image, shift)).dice
    for (a, was), before in read.items():
        for (b, now), after in read.items():
            if was != now:
                assert not _unthrown(before, after), (a, was, b, now)


def test_the_replayed_camera_shows_each_throw_at_another_place_than_the_last() -> None:
    """Throws of other values are shown moved as the same values are: 64 (read by the
    table), then 63 and 52 (not read: STOP, "roll again"), then 62: each at another
    shift than the throw before it and the one the table read, so the 6 of 62 does not
    lie where the 6 of 64 lay (the 6 has one place in every frame)."""
    import queue

    from table.service.ports import TableEvent

    camera = ScriptedCamera(FRAMES, fps=60)
    got: queue.Queue[TableEvent] = queue.Queue()
    camera.start(got.put)
    try:
        shown = []
        for dice in [(6, 4), (6, 3), (5, 2), (6, 2)]:
            camera.throw(dice)
            camera.want(True)
            while True:  # frames of the throw before may still be queued
                frame = got.get(timeout=30)
                camera.frame_done()
                assert isinstance(frame, Frame)
                image = camera.image_for(dice)
                at = [s for s in SHIFTS if np.array_equal(frame.image, camera.shifted(image, s))]
                if at:
                    shown.append(at[0])
                    break
            if dice == (6, 4):
                camera.read()
            camera.want(False)
        assert shown == [SHIFTS[0], SHIFTS[1], SHIFTS[2], SHIFTS[1]]
    finally:
        camera.close()


@pytest.mark.parametrize("was", SHIFTS)
def test_a_first_throw_after_a_start_is_shown_away_from_the_dice_remembered(
    was: tuple[int, int],
) -> None:
    """The dice remembered lying (tray.json) may have been shown at any of the shifts,
    at the fixed one of a first throw after a start too: two starts in a row, each
    with one throw of 6x, left the 6 where it lay. The first throw is now shown at the
    shift that lays its dice farthest from the ones remembered."""
    from table.hw.camera import frame_centres

    camera = ScriptedCamera(FRAMES)
    lying = tuple((v, (x + was[0], y + was[1])) for v, (x, y) in frame_centres((6, 3)))
    camera.left_lying(lying)
    camera.throw((6, 2))
    assert camera._shift != was


def test_the_shift_of_the_dice_remembered_is_told_from_where_they_were_read(
    vision: Any,
) -> None:
    """After a start the replay camera tells at which shift the dice remembered lying
    (tray.json) were shown from where they were read, to show the next throw elsewhere.
    The shipped frames' dice lie up to 6.3 px from their nominal places (each value's
    photo is cut a little off centre): with shifts 11.4 px apart that was sometimes the
    wrong shift, and the first throw after a start was refused "a die was not thrown"."""
    camera = ScriptedCamera(FRAMES)
    for path in sorted(FRAMES.glob("di*_*.jpg")):
        dice = tuple(int(c) for c in path.stem.split("_")[1])
        for shift in SHIFTS:
            read = vision.read(camera.shifted(camera.image_for(dice), shift)).dice
            fresh = ScriptedCamera(FRAMES)
            fresh.left_lying(tuple((d.value, d.center) for d in read))
            assert fresh._tray == shift, (path.name, shift)


def test_roll_pressed_without_rolling_is_not_counted(tmp_path: Path, vision: Any) -> None:
    """ROLL with the last throw's dice lying as they fell (the scripted camera shows
    the same photo): "dice lie as last thrown", nothing logged; the dice thrown after
    it are read."""
    steps = ["roll"] * menu_presses(DEMO_SETTINGS["mexico"])
    steps += ["throw 6 3", "roll", "stop", "roll", "throw 5 2"]
    loop, display, buttons = make_loop(tmp_path, "mexico", steps, vision)
    buttons.step_timeout_s = 1.0  # the table waits for dice after the bare ROLL
    assert loop.run(seconds=60) == "end of script"
    logged = load(loop.data.logs()[0]).events
    assert [tuple(e.dice) for e in logged if e.kind.value == "throw"] == [(6, 3), (5, 2)]  # type: ignore[union-attr]
    said = [t for t in display.texts if "lie as last thrown" in t]
    assert len(said) == 1 and "P2: roll them" in said[0], display.texts


def test_keyboard_play_throws_what_the_table_wants(tmp_path: Path, vision: Any) -> None:
    """Off a Pi with the keys, the replayed camera picks a random throw per ROLL. It
    used to be two dice always: a one-die tie-break (MN-10) could never be thrown, and a
    die left lying (MN-5) was thrown again. Now it asks the table what it waits for."""
    from table.hw.build import RandomThrows
    from table.rules.base import EventKind

    steps = ["roll"] * menu_presses(DEMO_SETTINGS["mexen"]) + ["roll", "hold", "roll"]
    steps += ["roll"] * 40
    loop, display, _ = make_loop(tmp_path, "mexen", steps, vision)
    assert isinstance(loop.camera, ScriptedCamera)
    pick = RandomThrows(seed=4)  # a game with a hold and a one-die tie-break
    pick.ask = loop.dice_wanted
    loop.camera.pick = pick
    loop.run(seconds=120)
    first = load(loop.data.logs()[0])
    game = replay(first.header, first.events)
    assert game.is_over, display.texts[-1]
    assert game.refused == ()
    kinds = [e.kind for e in first.events]
    assert EventKind.HOLD in kinds, "\n---\n".join(display.texts[:14])
    held = kinds.index(EventKind.HOLD)
    assert first.events[held].value in first.events[held + 1].dice  # type: ignore[union-attr]
    assert any(len(e.dice) == 1 for e in first.events if e.kind is EventKind.THROW)  # type: ignore[union-attr]
    said = "\n".join(display.texts)
    assert "moved" not in said and "need 1 die" not in said and "roll again" not in said


def test_a_full_disk_at_the_start_of_a_game_is_said_in_words_that_fit(tmp_path: Path) -> None:
    """The "cannot save" screen showed "[Errno 28] No space left on device:
    '/var/lib/dicetable/game" (the errno and a path cut mid-way) over a hint cut to
    "nothing counted: try ag..". The journal keeps the whole error, path and all."""
    import errno

    loop, display, _ = make_loop(tmp_path, "mexico", [], BrokenReader())
    loop.camera = None
    loop.boot()
    where = str(tmp_path / "data" / "games" / "20261202-071200.jsonl")

    def full(*_args: Any, **_kw: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device", where)

    loop.data.new_log = full  # type: ignore[method-assign]
    for _ in range(menu_presses(DEMO_SETTINGS["mexico"])):
        loop.handle(ButtonPress(Button.ROLL))
    assert loop.shown is not None
    screen = loop.shown.screen
    assert isinstance(screen, screens.Message) and screen.title == "cannot save"
    assert screen.text == "No space left on device"
    assert screens.overflow(screen) == ()
    assert loop.referee is not None and loop.referee.game is None  # not started
    assert where in loop.errors.getvalue()  # type: ignore[union-attr]


def test_a_game_whose_in_progress_mark_cannot_be_written_leaves_no_log_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log's header was written, then the disk was full for ``games/current``: the
    game did not start, yet its log stayed open and on disk, one more at every ROLL
    that tried again, each a game of no throws for ``dicetable replay``."""
    import errno

    from table.game import GameHeader
    from table.gamelog import LogWriter
    from table.rules.base import Player
    from table.service import resume

    opened: list[LogWriter] = []
    create = LogWriter.create

    def tracked(path: Any, header: GameHeader) -> LogWriter:
        opened.append(create(path, header))
        return opened[-1]

    def full(path: Path, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(LogWriter, "create", staticmethod(tracked))
    monkeypatch.setattr(resume, "atomic_write", full)
    data = DataDir(tmp_path / "data")
    header = GameHeader("mexico", (Player("Ann"), Player("Bob")), {}, 1)
    for _ in range(2):
        with pytest.raises(OSError, match="No space"):
            data.new_log(header)
    assert len(opened) == 2 and all(w._fh.closed for w in opened)
    assert data.logs() == [] and data.current() is None


@pytest.mark.parametrize(
    ("name", "why"),
    [
        (b"20261201-200000.jsonl\n", 'names "20261201-200000.jsonl", no such log'),
        (b"games/20261201-200000.jsonl\n", 'names "games/20261201-200000.jsonl", not a log'),
        (b"\xff\xfe2\x000\x00\n", "not UTF-8 text"),
        (b"\n", "it is empty"),
        (b"a" * 300 + b".jsonl\n", f'names "{"a" * 36}..., a name too long for a file'),
    ],
)
def test_a_pointer_that_names_no_log_is_said_not_dropped(
    tmp_path: Path, name: bytes, why: str
) -> None:
    """games/current naming no log (a typo, a name with its folder, an editor's UTF-16)
    was removed without a word: the game in progress was given up in silence. It is set
    aside as current.bad (what it said is kept), and the display and the journal say so."""
    data = DataDir(tmp_path / "data")
    data.prepare()
    (data.games / "20261201-200000.jsonl.bad").write_bytes(b"an earlier log set aside")
    data.current_path.write_bytes(name)
    loop, display, _ = make_loop(tmp_path, "mexico", [], BrokenReader())
    loop.camera = None
    loop.boot()
    said = loop.errors.getvalue()  # type: ignore[union-attr]
    assert f"cannot resume the unfinished game: current: {why}; set aside as current.bad" in said
    assert "cannot resume" in display.texts[0]
    assert f"current set aside: {why}" in display.texts[0]
    if b"/" not in name and len(name) < 40:  # the name fits the display's 128 px lines
        assert loop.shown is not None and screens.overflow(loop.shown.screen) == ()
    assert not data.current_path.exists()
    assert (data.games / "current.bad").read_bytes() == name
    assert loop.resumed is None and loop.referee is not None and loop.referee.game is None


def test_a_kept_log_is_set_aside_when_a_new_game_takes_its_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The display said the unreadable log was "kept for the next start"; then a new game
    was started, games/current named the new log and the old one was never tried again,
    without a word. It is set aside as .unfinished (never removed) and the journal says so."""
    from table.game import GameHeader
    from table.rules.base import Player, Throw

    data = DataDir(tmp_path / "data")
    with data.new_log(GameHeader("mexico", (Player("Ann"), Player("Bob")), {}, 1)) as log:
        log.append_all([Throw((6, 3))])
    old = log.path
    content = old.read_bytes()
    real = Path.read_bytes

    def failing(self: Path) -> bytes:
        if self == old:
            raise OSError(5, "Input/output error")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", failing)
    loop, display, _ = make_loop(tmp_path, "mexico", [], BrokenReader())
    loop.camera = None
    loop.boot()
    assert "log kept for the next start" in display.texts[0]
    for _ in range(menu_presses(DEMO_SETTINGS["mexico"]) + 1):  # the notice, then the menu
        loop.handle(ButtonPress(Button.ROLL))
    monkeypatch.undo()
    assert loop.referee is not None and loop.referee.game is not None  # the new game
    new = data.current()
    assert new is not None and new != old
    aside = old.with_name(old.name + ".unfinished")
    assert aside.read_bytes() == content and not old.exists()
    said = loop.errors.getvalue()  # type: ignore[union-attr]
    assert f"{old.name}, which could not be resumed, is set aside as {aside.name}" in said


def test_a_log_the_rules_cannot_play_is_set_aside_as_bad_and_said_so(tmp_path: Path) -> None:
    """A log with an option the rules do not allow (MC-1: lives 2, 3 or 6) was said to
    be "kept", yet games/current was removed and the log kept its name: neither the game
    in progress nor set aside as .bad, as the README says of a log that holds no game."""
    from table.game import GameHeader
    from table.rules.base import Player, Throw

    data = DataDir(tmp_path / "data")
    with data.new_log(GameHeader("mexico", (Player("Ann"), Player("Bob")), {"lives": 4}, 1)) as log:
        log.append_all([Throw((6, 3))])
    content = log.path.read_bytes()
    loop, display, _ = make_loop(tmp_path, "mexico", [], BrokenReader())
    loop.camera = None
    loop.boot()
    bad = log.path.with_name(log.path.name + ".bad")
    assert bad.read_bytes() == content and not log.path.exists()
    assert data.current() is None and not data.current_path.exists()
    said = loop.errors.getvalue()  # type: ignore[union-attr]
    assert f"cannot resume the unfinished game: {log.path.name}: option 'lives'" in said
    assert f"set aside as {bad.name}" in said and "kept" not in said
    assert "log set aside: option 'lives': 4 is not allowed" in display.texts[0]
    assert loop.resumed is None and loop.referee is not None and loop.referee.game is None


def test_cpu_decisions_owed_at_resume_that_cannot_be_saved_are_not_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At a resume the CPU decisions owed at the cut (MX-7: CPU1 ends the round) are
    taken at once. With the disk full they were not written, yet the table went on from
    the game with them: every event after it was logged onto a game without the end of
    the round, a different game for the next resume and for an audit. The log stays the
    game in progress as it is, for the next start, and the display says why."""
    import errno

    from table.game import GameHeader
    from table.gamelog import LogWriter
    from table.rules.base import EndRound, Player, Throw

    header = GameHeader(
        "mex",
        (Player("P1"), Player("P2"), Player("CPU1", "normal")),
        {"lives": 3, "max_throws": 2},
        892587379,
    )
    pairs = [(4, 1), (6, 3), (4, 3), (3, 2), (6, 5)]
    events = [Throw(p) for p in pairs] + [EndRound(True)]
    events += [Throw(p) for p in [(6, 4), (5, 5), (5, 5), (6, 6)]]
    data = DataDir(tmp_path / "data")
    with data.new_log(header) as log:
        log.append_all(events)
    content = log.path.read_bytes()

    def full(self: LogWriter, events: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(LogWriter, "append_all", full)
    loop, display, _ = make_loop(tmp_path, "mex", [], BrokenReader())
    loop.camera = None
    loop.boot()
    assert "log kept for the next start: No space left on device" in display.texts[0]
    assert loop.referee is not None and loop.referee.game is None
    assert data.current() == log.path and log.path.read_bytes() == content
    monkeypatch.undo()
    loop2, display2, _ = make_loop(tmp_path, "mex", [], BrokenReader())
    loop2.camera = None
    loop2.boot()  # the disk has room again: the CPU's decision is taken and logged
    assert loop2.resumed is not None and loop2.referee is not None
    assert loop2.referee.game is not None and load(log.path).events == tuple(events) + (
        EndRound(True),
    )
    assert loop2.referee.game.count == len(events) + 1


class QuietCamera:
    """A camera that is there and delivers nothing unless a test hands in a frame."""

    def start(self, put: Put) -> None:
        pass

    def want(self, flag: bool) -> None:
        pass

    def close(self) -> None:
        pass


class StepClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _camera_timed(tmp_path: Path) -> tuple[TableLoop, StepClock]:
    """A table at its menu whose clock the test moves, with a camera that sends nothing."""
    clock = StepClock()  # the table starts at 0
    camera = QuietCamera()
    loop, _, _ = make_loop(tmp_path, "mexico", [], BrokenReader(), camera=camera, clock=clock)
    loop.buttons = None
    loop.boot()
    return loop, clock


def _to_the_dice(loop: TableLoop) -> None:
    for _ in range(menu_presses(DEMO_SETTINGS["mexico"]) + 1):
        loop.handle(ButtonPress(Button.ROLL))
    assert loop.want_dice


def test_a_camera_is_stalled_only_while_dice_are_wanted_and_none_come(tmp_path: Path) -> None:
    """The watchdog is let lapse (systemd restarts the table) when the camera sends no
    frame for 20 s while the dice are wanted: not for a long while at the menu, not as
    soon as ROLL follows one, and not while frames come."""
    loop, clock = _camera_timed(tmp_path)
    clock.now = 100.0  # a long while at the menu: no frame was wanted
    assert not loop.camera_stalled()
    _to_the_dice(loop)  # ROLL: the camera's 20 s start now
    clock.now = 105.0
    assert not loop.camera_stalled()
    loop.reader = None  # frames arrive, nothing is read
    for t in (115.0, 130.0, 145.0):
        clock.now = t
        loop.handle(Frame(np.zeros((48, 64, 3), np.uint8), t))
    clock.now = 160.0
    assert not loop.camera_stalled()
    clock.now = 166.0  # 21 s since the last frame
    assert loop.camera_stalled()


# -- the camera's thread, throw by throw ------------------------------------------


def _throws(cam: Any, q: Any, n: int, before: Callable[[int], None] = lambda i: None) -> list[Any]:
    """The first event the camera gives at each of ``n`` throws (``before(i)`` runs
    first). The two frames of a throw in flight are given back only once the next throw
    is wanted: the camera waits on them meanwhile, and shows nothing of a throw before
    the table wants it."""
    firsts: list[Any] = []
    held = 0
    for i in range(n):
        cam.want(False)
        before(i)
        cam.want(True)
        for _ in range(held):
            cam.frame_done()
        first = q.get(timeout=10)
        held = 0
        if isinstance(first, Frame):
            assert isinstance(q.get(timeout=10), Frame)  # the second frame in flight
            held = 2
        firsts.append(first)
    return firsts


def _photos(folder: Path, *throws: str) -> list[Any]:
    """``folder`` holding the shipped frames of ``throws`` as throw1.jpg, throw2.jpg ...;
    their pictures."""
    import shutil

    from vision.sources import load_image

    folder.mkdir()
    for i, name in enumerate(throws, start=1):
        shutil.copy(FRAMES / f"{name}.jpg", folder / f"throw{i}.jpg")
    return [load_image(FRAMES / f"{name}.jpg") for name in throws]


def test_a_folder_in_the_config_replays_its_photos_again_after_the_last(tmp_path: Path) -> None:
    """``camera.source = "folder:PATH"`` with two photos replays them round and round:
    without that, the third throw would get "no more images", and every ROLL after it the
    same, the game stuck at its third throw."""
    from table.hw.camera import SourceCamera

    first, second = _photos(tmp_path / "photos", "dice_63", "dice_42")
    cam = SourceCamera(f"folder:{tmp_path / 'photos'}", fps=50)
    q = _started(cam)
    try:
        shown = _throws(cam, q, 4)
    finally:
        cam.close()
    assert all(isinstance(e, Frame) for e in shown), shown
    for event, photo in zip(shown, [first, second, first, second], strict=True):
        assert np.array_equal(event.image, photo)


def test_photos_that_ran_out_start_over_at_the_next_roll(tmp_path: Path) -> None:
    """Photos replayed without looping run out: that is said once, and the next ROLL
    ("ROLL: try again") opens the folder afresh; otherwise it would say "no more images"
    for good."""
    from table.hw.camera import SourceCamera

    (photo,) = _photos(tmp_path / "photos", "dice_63")
    cam = SourceCamera(f"folder:{tmp_path / 'photos'}", fps=50, loop=False)
    q = _started(cam)
    try:
        shown = _throws(cam, q, 3)
    finally:
        cam.close()
    assert isinstance(shown[1], CameraFailed) and "no more images" in shown[1].reason
    for event in (shown[0], shown[2]):
        assert isinstance(event, Frame) and np.array_equal(event.image, photo)


def test_the_same_throw_three_times_is_shown_moved_each_time(tmp_path: Path) -> None:
    """The replayed camera shows the same dice thrown again moved, as rolled dice would
    lie, each time: shown the third time where the second left them, they would read as
    "dice lie as last thrown", the throw not counted."""
    cam = ScriptedCamera(FRAMES, fps=50)
    q = _started(cam)
    try:
        shown = _throws(cam, q, 3, before=lambda i: cam.throw((6, 3)))
    finally:
        cam.close()
    assert all(isinstance(e, Frame) for e in shown), shown
    for before, after in zip(shown, shown[1:], strict=False):
        assert not np.array_equal(before.image, after.image)


def test_the_table_asking_again_for_the_dice_it_waits_for_is_no_new_throw() -> None:
    """The loop says "dice wanted" at every step while it waits for them: that is no new
    throw. Taken as one, in keyboard play each time would be a new random throw, the dice
    changing under the reader."""
    picks = iter([(6, 3), (5, 2), (4, 1)])
    camera = ScriptedCamera(FRAMES)
    camera.pick = lambda: next(picks)
    camera.want(True)
    camera.want(True)
    assert camera._dice == (6, 3)
    camera.want(False)
    camera.want(True)
    assert camera._dice == (5, 2)


def test_a_throw_given_is_shown_once_and_the_next_roll_picks_again() -> None:
    """A throw given (``throw``) is the dice of the next throw wanted only: after it, each
    ROLL picks again; otherwise the given dice would be shown at every ROLL after."""
    picks = iter([(6, 3), (5, 2), (4, 1)])
    camera = ScriptedCamera(FRAMES)
    camera.pick = lambda: next(picks)
    camera.throw((2, 2))
    camera.want(True)
    assert camera._dice == (2, 2)
    camera.rolled()
    assert camera._dice == (6, 3)


def test_a_missing_frame_is_said_once_until_dice_are_wanted_again(tmp_path: Path) -> None:
    """A throw with no frame in the folder: said once ("ROLL: try again"), then nothing
    until the table wants dice again; otherwise it would be said again and again, fifty
    times a second, the fault screen drawn over and over."""
    import queue
    import shutil

    cam = ScriptedCamera(tmp_path, fps=50)
    cam.throw((6, 3))
    q = _started(cam)
    try:
        cam.want(True)
        event = q.get(timeout=10)
        assert isinstance(event, CameraFailed) and "no frame dice_63.jpg" in event.reason
        with pytest.raises(queue.Empty):
            q.get(timeout=0.5)
        shutil.copy(FRAMES / "dice_63.jpg", tmp_path / "dice_63.jpg")
        cam.want(False)
        cam.want(True)
        assert isinstance(q.get(timeout=10), Frame)
    finally:
        cam.close()


@pytest.mark.parametrize("what", ["a file", "a folder it may not list"])
def test_a_frames_folder_that_cannot_be_listed_is_no_frame(
    what: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--frames`` naming a file, or a folder it may not read, gives no frame, said as
    such: a NotADirectoryError or PermissionError would end the camera's thread, and the
    table would wait for dice for good."""
    from vision.sources import CameraError

    folder = tmp_path / "frames"
    if what == "a file":
        folder.write_text("x")
    else:
        folder.mkdir()

        def denied(self: Path) -> Any:
            raise PermissionError(13, "Permission denied", str(self))

        monkeypatch.setattr(Path, "iterdir", denied)
    with pytest.raises(CameraError, match="no frame dice_63.jpg"):
        ScriptedCamera(folder).image_for((6, 3))


def test_a_frame_the_loop_never_dealt_with_does_not_stop_the_camera(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Frames the loop never says it dealt with (lost in a fault) are taken as dealt with
    after a while: the camera goes on. Otherwise it would stop for good, and the table
    would wait for dice it would never see."""
    from table.hw import camera as camera_module

    monkeypatch.setattr(camera_module, "SLOT_WAIT_S", 0.4)
    cam, q = _webcam_started(_BlankSource())
    try:
        cam.want(True)
        for _ in range(4):  # no frame_done at all
            assert isinstance(q.get(timeout=10), Frame)
    finally:
        cam.close()


def test_a_camera_closed_has_let_go_of_its_source() -> None:
    """A camera closed has let go of its source: still held when the table stopped (closed
    later, or never), the webcam would be "in use" at the next start. A source whose own
    close fails does not stop the camera from closing."""
    import threading

    closed = threading.Event()

    class Unplugged(_BlankSource):
        def close(self) -> None:
            closed.set()
            raise OSError("VIDIOC_STREAMOFF: No such device")

    cam, q = _webcam_started(Unplugged())
    cam.want(True)
    assert isinstance(q.get(timeout=10), Frame) and isinstance(q.get(timeout=10), Frame)
    cam.close()  # the camera waits on its frames in flight meanwhile
    assert closed.is_set()
    assert cam.source is None


def test_a_camera_closed_while_its_source_opens_reads_nothing_from_it() -> None:
    """The table stops while the camera's thread is opening its source: the source it
    opens is not read (a video's read may wait on its damage check, which ``close`` could
    not interrupt), no frame goes to a table that has stopped, and the source is let go."""
    import threading

    from table.hw.camera import SourceCamera

    opening = threading.Event()
    reads: list[str] = []
    closed = threading.Event()

    class Opened(_BlankSource):
        def read(self) -> Any:
            reads.append("read")
            return super().read()

        def close(self) -> None:
            closed.set()

    class OpensLate(SourceCamera):
        def open(self) -> None:
            if self.source is None:
                opening.set()
                self._stop.wait(10)  # still opening when the table stops
                self.source = Opened()

    cam = OpensLate("usb:0", fps=50)
    q = _started(cam)
    cam.want(True)
    assert opening.wait(10)
    cam.close()
    assert cam._thread is not None and not cam._thread.is_alive()
    assert reads == [] and closed.is_set()
    assert all(not isinstance(e, Frame) for e in list(q.queue))


def test_a_driver_fault_vision_did_not_name_is_said_with_its_kind() -> None:
    """A fault of a camera's driver or binding that ``vision.sources`` does not turn into
    a CameraError is said as a camera fault naming the camera and the kind of fault: its
    text alone ("'main'") would not say what went wrong."""

    class Faulty(_BlankSource):
        def read(self) -> Any:
            raise KeyError("main")

    cam, q = _webcam_started(Faulty())
    try:
        cam.want(True)
        event = q.get(timeout=10)
    finally:
        cam.close()
    assert isinstance(event, CameraFailed) and event.reason == "usb:0: KeyError: 'main'"


def _still_camera(kind: str, picture: Any) -> Any:
    """A live camera of ``kind`` ("usb" or "picamera") whose driver hands out ``picture``
    at every read."""
    from vision.sources import DeviceSource, PiCameraSource

    base = DeviceSource if kind == "usb" else PiCameraSource

    class Still(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            self.name = kind
            self.size, self.mains_hz = None, None
            self.power_line, self.flicker_period, self.sharpness = False, None, None

        def read(self) -> Any:
            return picture.copy()

        def drop_stale(self) -> None:
            pass

        def close(self) -> None:
            pass

    return Still()


def _first_fault(camera: Any, most: int = 20) -> Any:
    """The first event of ``camera`` (a stand-in source), started as a webcam and wanted,
    that is no frame, within ``most`` frames (else None)."""
    cam, q = _webcam_started(camera)
    try:
        cam.want(True)
        for _ in range(most):
            event = q.get(timeout=10)
            if isinstance(event, CameraReady):  # the journal told of a camera opened
                continue
            if not isinstance(event, Frame):
                return event
            cam.frame_done()
        return None
    finally:
        cam.close()


def test_a_pi_camera_whose_picture_froze_is_a_camera_fault(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As a webcam's: the Pi camera's driver handing out one picture again and again is a
    camera fault, said; unsaid, the table would wait on dice it would never see thrown."""
    from table.hw import camera as camera_module

    monkeypatch.setattr(camera_module, "FROZEN_S", 0.0)
    picture = np.random.default_rng(0).integers(0, 256, (64, 64, 3), dtype=np.uint8)
    fault = _first_fault(_still_camera("picamera", picture))
    assert isinstance(fault, CameraFailed) and "has not changed" in fault.reason


def test_a_dark_tray_standing_still_is_not_a_stuck_camera(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A dark tray whose faint noise, a few grey levels above black, comes out the same
    every time is the reader's "too dark", not "camera stuck?"; a picture with something
    in it that stands still is the camera's fault."""
    from table.hw import camera as camera_module

    monkeypatch.setattr(camera_module, "FROZEN_S", 0.0)
    rng = np.random.default_rng(0)
    dark = rng.integers(0, 12, (64, 64, 3), dtype=np.uint8)
    lit = dark.copy()
    lit[16:48, 16:48] = 200  # a die in the light
    for picture, stuck in ((dark, False), (lit, True)):
        fault = _first_fault(_still_camera("usb", picture))
        if stuck:
            assert isinstance(fault, CameraFailed) and "has not changed" in fault.reason
        else:
            assert fault is None, fault


def test_a_video_whose_picture_stands_still_is_no_stuck_camera(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``video:`` replay of a clip whose frames are all alike (a still tray filmed, or
    one picture looped): a video may repeat its frames, so they are all given as frames,
    not said as "camera stuck?" as for a live camera whose picture froze."""
    import cv2

    from table.hw import camera as camera_module
    from table.hw.camera import SourceCamera

    monkeypatch.setattr(camera_module, "FROZEN_S", 0.0)
    clip = tmp_path / "still.avi"
    writer = cv2.VideoWriter(str(clip), cv2.VideoWriter.fourcc(*"MJPG"), 10, (400, 300))
    photo = cv2.imread(str(FRAMES / "dice_63.jpg"))
    for _ in range(4):
        writer.write(photo)
    writer.release()
    cam = SourceCamera(f"video:{clip}", fps=50)
    q = _started(cam)
    try:
        cam.want(True)
        events = []
        for _ in range(6):  # round the clip and into it again
            events.append(q.get(timeout=10))
            if not isinstance(events[-1], Frame):
                break
            cam.frame_done()
    finally:
        cam.close()
    assert all(isinstance(e, Frame) for e in events), events
    assert all(np.array_equal(e.image, events[0].image) for e in events)


def test_after_a_pause_the_camera_keeps_its_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    """After a minute of not being wanted the camera keeps its pace, the first frame at
    once: otherwise it would read as fast as the loop took its frames, catching up the 600
    frames of the pause it never took."""
    import queue
    import threading

    from table.hw import camera as camera_module

    now = [1000.0]  # the camera's clock: it moves by the camera's own waits, and the pause

    class Clock:
        @staticmethod
        def monotonic() -> float:
            return now[0]

    waits: queue.Queue[float] = queue.Queue()

    class PacedStop(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            if timeout is None:
                return super().wait()
            now[0] += timeout
            waits.put(timeout)
            return super().wait(0)

    monkeypatch.setattr(camera_module, "time", Clock)
    from table.hw.camera import SourceCamera

    cam = SourceCamera("usb:0", fps=10)
    cam.source = _BlankSource()
    cam._stop = PacedStop()
    q = _started(cam)
    try:
        cam.want(True)
        for _ in range(2):  # two frames in flight: the camera waits on them
            assert isinstance(q.get(timeout=10), Frame)
            assert waits.get(timeout=10) == pytest.approx(0.1)
        cam.want(False)
        now[0] += 60.0
        cam.want(True)
        after: list[float] = []
        for _ in range(4):
            cam.frame_done()
            assert isinstance(q.get(timeout=10), Frame)
            after.append(waits.get(timeout=10))
    finally:
        cam.close()
    assert after[1:] == [pytest.approx(0.1)] * 3, after


# -- the parts built from the config: which button, display and camera the table gets


def _keyboard_config() -> Any:
    """A config with the shipped photos as its camera and no display."""
    from table.service.config import CameraConfig, Config, DisplayConfig, DisplayDriver

    return Config(
        camera=CameraConfig(source=f"folder:{FRAMES}"),
        display=DisplayConfig(driver=DisplayDriver.NONE),
    )


class _GpioRefused:
    """GPIO buttons whose opening fails with ``error``; every attempt is kept."""

    tried: list[object] = []
    error: Exception = RuntimeError("no GPIO")

    def __init__(self, cfg: object) -> None:
        type(self).tried.append(cfg)
        raise type(self).error


def _gpio_fails(monkeypatch: pytest.MonkeyPatch, error: Exception) -> list[object]:
    """GPIO buttons that fail to open with ``error``: the list of attempts made."""
    tried: list[object] = []
    monkeypatch.setattr(_GpioRefused, "tried", tried)
    monkeypatch.setattr(_GpioRefused, "error", error)
    monkeypatch.setattr("table.hw.buttons.GpioButtons", _GpioRefused)
    return tried


def _build_on_a_laptop(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    open_oled: Callable[[Any], Any],
    display: Any = None,
    **paths: Path,
) -> tuple[Any, io.StringIO]:
    """``build`` as on a laptop without GPIO, the shipped frames as its camera and
    ``open_oled`` standing in for opening the OLED (``display``: the config's, if given);
    the parts, and what they printed."""
    from table.hw import build as build_module
    from table.service.config import CameraConfig, Config

    monkeypatch.setattr(build_module, "open_oled", open_oled)
    _gpio_fails(monkeypatch, RuntimeError("no GPIO"))
    seen_as_pi(monkeypatch, tmp_path, pi=False)
    camera = CameraConfig(source=f"folder:{FRAMES}")
    cfg = Config(camera=camera) if display is None else Config(camera=camera, display=display)
    out = io.StringIO()
    return build_module.build(cfg, text_out=out, **paths), out


def test_random_throws_give_the_number_of_dice_wanted_and_keep_the_held_die() -> None:
    """Each throw picked for keyboard play has as many dice as the table waits for, the
    die left lying first and as it lay: otherwise a one-die tie-break would be thrown two
    dice, and a held 5 would come back as some other value."""
    from table.hw.build import RandomThrows
    from table.service.referee import DiceWanted

    pick = RandomThrows(seed=3)
    assert all(len(pick()) == 2 for _ in range(20))  # nothing asked: two dice
    wanted: list[DiceWanted | None] = [DiceWanted(1)]
    pick.ask = lambda: wanted[0]
    ones = [pick() for _ in range(30)]
    assert all(len(t) == 1 and 1 <= t[0] <= 6 for t in ones)
    wanted[0] = DiceWanted(2, held=5)
    pairs = [pick() for _ in range(30)]
    assert all(len(t) == 2 and t[0] == 5 and 1 <= t[1] <= 6 for t in pairs)
    assert {t[1] for t in pairs} != {5}  # the other die is thrown, not held too
    wanted[0] = None
    assert len(pick()) == 2


def test_the_same_seed_picks_the_same_random_throws(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``--seed`` makes keyboard play repeatable: two tables built with one seed pick the
    same throws. If the seed were not passed on, each run would throw other dice."""
    from table.hw.build import build
    from table.service.config import Config, DisplayConfig, DisplayDriver

    seen_as_pi(monkeypatch, tmp_path, pi=False)
    cfg = Config(display=DisplayConfig(driver=DisplayDriver.NONE))
    throws = []
    for _ in range(2):
        parts = build(cfg, keys=True, frames=FRAMES, seed=11, text_out=io.StringIO())
        try:
            scripted = parts.scripted_camera
            assert scripted is not None and scripted.pick is not None
            throws.append([scripted.pick() for _ in range(12)])
        finally:
            close_parts(parts)
    assert throws[0] == throws[1]


def test_stand_ins_show_replayed_photos_in_place_of_a_webcam_the_config_names(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``--stand-ins`` touches no device: a ``usb:N`` webcam in the config is replaced by
    the shipped photos, as the Pi camera is. Otherwise a laptop with a webcam would have
    it switched on, and one without would say "ROLL: try again" at every throw."""
    from table.hw.build import build
    from table.service.config import CameraConfig, Config, DisplayConfig, DisplayDriver

    opened: list[str] = []

    class Webcam:
        def __init__(self, device: str, *, size: tuple[int, int] | None = None) -> None:
            opened.append(device)

        def close(self) -> None:
            pass

    monkeypatch.setattr("vision.sources.DeviceSource", Webcam)
    seen_as_pi(monkeypatch, tmp_path, pi=False)
    cfg = Config(
        camera=CameraConfig(source="usb:3"), display=DisplayConfig(driver=DisplayDriver.NONE)
    )
    parts = build(cfg, force_stand_ins=True, text_out=io.StringIO())
    try:
        assert isinstance(parts.camera, ScriptedCamera)
        assert parts.camera is parts.scripted_camera
        assert "camera replays frames from" in parts.summary
        assert opened == []
    finally:
        close_parts(parts)


def test_a_pi_camera_is_used_off_a_pi_where_picamera2_is_installed_at_the_size_configured(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Where picamera2 is installed the config's ``picamera`` is the camera used, asked
    for ``camera.width`` x ``camera.height``, even if the board is not known as a Pi. If
    not, the table would replay photos in place of the dice in the tray, or read the
    camera at a size nobody chose."""
    from table.hw import build as build_module
    from table.hw.camera import SourceCamera
    from table.service.config import CameraConfig, Config, DisplayConfig, DisplayDriver

    seen_as_pi(monkeypatch, tmp_path, pi=False)
    monkeypatch.setattr(build_module, "_has_picamera", lambda: True)
    cfg = Config(
        camera=CameraConfig(source="picamera", width=800, height=600, sharpness=0.0, mains_hz=60),
        display=DisplayConfig(driver=DisplayDriver.NONE),
    )
    parts = build_module.build(cfg, keys=True, text_out=io.StringIO())
    try:
        assert isinstance(parts.camera, SourceCamera) and parts.scripted_camera is None
        assert parts.camera.spec == "picamera:800x600" and parts.camera.sharpness == 0.0
        assert parts.camera.mains_hz == 60
        assert "replays" not in parts.summary and "no camera" not in parts.summary
    finally:
        close_parts(parts)


def test_the_pi_camera_is_opened_with_the_sharpness_and_mains_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``camera.sharpness`` and ``camera.mains_hz`` reach picamera2's configuration when
    the table opens the camera for a throw (a fake picamera2 module here)."""
    from table.hw.camera import SourceCamera
    from tests.conftest import FakePicamera2, offer_picamera2

    offer_picamera2(
        monkeypatch,
        {
            "Sharpness": (0.0, 16.0, 1.0),
            "AeFlickerMode": (0, 2, 0),
            "AeFlickerPeriod": (100, 1000000, 0),
        },
    )
    camera = SourceCamera("picamera:320x240", fps=10, sharpness=0.0, mains_hz=60)
    try:
        camera.open()
    finally:
        camera.close()
    (fake,) = FakePicamera2.instances
    assert fake.calls.count("configure") == 1 and fake.config == {
        "main": {"size": (320, 240), "format": "RGB888"},
        "controls": {"Sharpness": 0.0, "AeFlickerMode": 1, "AeFlickerPeriod": 8333},
    }


def test_stand_ins_never_try_the_gpio_buttons(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``--stand-ins`` plays with the keyboard without opening the GPIO: on a Pi whose
    service holds the buttons, trying them would fail the run or take the pins."""
    from table.hw.build import build
    from table.hw.keys import KeyButtons

    tried = _gpio_fails(monkeypatch, RuntimeError("the GPIO was tried"))
    seen_as_pi(monkeypatch, tmp_path, pi=True)
    cfg = _keyboard_config()
    parts = build(cfg, force_stand_ins=True, text_out=io.StringIO())
    try:
        assert isinstance(parts.buttons, KeyButtons)
        assert tried == []
        assert "keyboard buttons (" in parts.summary
    finally:
        close_parts(parts)


def test_off_a_pi_a_button_pin_that_cannot_be_had_is_named_in_the_note(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """When the GPIO is there but one button's pin is not (taken by another program), the
    note names that pin and setting. If it said "no GPIO here", a person would look for a
    missing GPIO instead of the program holding the pin."""
    from table.hw.build import build
    from table.hw.buttons import PinUnusable
    from table.hw.keys import KeyButtons

    why = "buttons.hold = 27: GPIO27 is in use by another program"
    _gpio_fails(monkeypatch, PinUnusable(why))
    seen_as_pi(monkeypatch, tmp_path, pi=False)
    cfg = _keyboard_config()
    parts = build(cfg, text_out=io.StringIO())
    try:
        assert isinstance(parts.buttons, KeyButtons)
        assert f"pin {why}: keyboard buttons (" in parts.summary
        assert "no GPIO here" not in parts.summary
    finally:
        close_parts(parts)


def test_a_gpio_fault_without_gpiozero_warnings_is_named_by_its_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A GPIO that fails without gpiozero's "Falling back from" warnings is said by its
    own error, type and message, on one line. If not, the note would give no reason for
    the keyboard, or break the journal's one line in two."""
    from table.hw.build import build

    _gpio_fails(monkeypatch, PermissionError("cannot open\n  /dev/gpiochip0"))
    seen_as_pi(monkeypatch, tmp_path, pi=False)
    cfg = _keyboard_config()
    parts = build(cfg, text_out=io.StringIO())
    try:
        assert (
            "no GPIO here (PermissionError: cannot open /dev/gpiochip0): keyboard buttons ("
            in parts.summary
        )
    finally:
        close_parts(parts)


def test_on_a_pi_buttons_that_stop_the_table_let_go_of_the_camera_opened(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The camera is opened before the buttons: when the buttons stop the table on a Pi,
    that camera is closed again. If it were not, the folder or video it reads would stay
    open in a process that goes on to draw the fault on the OLED."""
    from table.hw import build as build_module
    from table.hw.camera import SourceCamera
    from table.service.config import CameraConfig, Config, DisplayConfig, DisplayDriver

    closed: list[str] = []

    class KeptCamera(SourceCamera):
        def close(self) -> None:
            closed.append(self.spec)
            super().close()

    monkeypatch.setattr(build_module, "SourceCamera", KeptCamera)
    _gpio_fails(monkeypatch, RuntimeError("no GPIO"))
    seen_as_pi(monkeypatch, tmp_path, pi=True)
    spec = f"folder:{FRAMES}"
    cfg = Config(camera=CameraConfig(source=spec), display=DisplayConfig(driver=DisplayDriver.NONE))
    with pytest.raises(build_module.GpioUnavailable, match="no GPIO"):
        build_module.build(cfg, text_out=io.StringIO())
    assert closed == [spec]


def _picture() -> Image.Image:
    return screens.render(screens.Message("recorded", "a screen", "for the test"))


def _bits(image: Image.Image) -> bytes:
    return image.convert("1").tobytes()


def test_an_oled_missing_off_a_pi_prints_the_screens_and_still_records_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Off a Pi with no OLED the screens go to the terminal, and the PNGs and GIF asked
    for are still written. If the recording were dropped with the OLED, ``--png-dir`` and
    ``--gif`` would leave empty folders on a laptop."""
    from table.hw.display import DisplayError, TerminalDisplay

    def no_oled(cfg: object) -> Any:
        raise DisplayError("display: no I2C bus here")

    gif = tmp_path / "d.gif"
    parts, out = _build_on_a_laptop(
        monkeypatch, tmp_path, no_oled, png_dir=tmp_path / "png", gif_path=gif
    )
    try:
        assert isinstance(parts.display, TerminalDisplay) and parts.recorder is parts.display
        assert "display: no I2C bus here: display in the terminal" in parts.summary
        parts.display.show_text("ROLL to start")
        parts.display.show(_picture())
        assert "ROLL to start" in out.getvalue()
        assert [p.name for p in parts.recorder.pngs] == ["frame_0001.png"]
    finally:
        close_parts(parts)
    assert gif.is_file()


def test_a_working_oled_and_a_recording_both_get_every_screen(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With the OLED answering and ``--gif`` (no PNG folder) given, each screen is drawn
    on the OLED and kept in the recording. If either were left out, the table would be
    dark or the GIF empty."""
    from table.hw.display import LumaDisplay, dummy_display

    oleds: list[LumaDisplay] = []

    def oled(cfg: object) -> LumaDisplay:
        oleds.append(dummy_display())
        return oleds[-1]

    gif = tmp_path / "d.gif"
    parts, out = _build_on_a_laptop(monkeypatch, tmp_path, oled, gif_path=gif)
    try:
        picture = _picture()
        parts.display.show(picture)
        assert len(oleds) == 1 and _bits(oleds[0].device.image) == _bits(picture)
        assert parts.recorder is not None and parts.recorder.shown == 1
        assert "display" not in parts.summary and out.getvalue() == ""
    finally:
        close_parts(parts)
    with Image.open(gif) as anim:
        assert anim.n_frames == 1


def test_a_display_set_to_none_records_the_screens_asked_for_and_prints_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``display.driver = "none"`` with ``--png-dir`` keeps the PNGs and prints no screen:
    the terminal stays for the table's own lines. If it printed, a headless recording
    would fill the journal with text boxes; if it dropped the PNGs, the folder stayed
    empty."""
    from table.hw.build import build
    from table.hw.display import TerminalDisplay

    _gpio_fails(monkeypatch, RuntimeError("no GPIO"))
    seen_as_pi(monkeypatch, tmp_path, pi=False)
    out = io.StringIO()
    cfg = _keyboard_config()
    parts = build(cfg, png_dir=tmp_path / "png", text_out=out)
    try:
        assert isinstance(parts.display, TerminalDisplay) and parts.recorder is parts.display
        parts.display.show_text("ROLL to start")
        parts.display.show(_picture())
        assert out.getvalue() == "" and "display in the terminal" not in parts.summary
        assert [p.name for p in parts.recorder.pngs] == ["frame_0001.png"]
    finally:
        close_parts(parts)


def test_a_scripts_throw_is_the_photo_the_replayed_camera_shows(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A script's ``throw 6 3`` puts those dice in the replayed camera: its next frame is
    the photo of a 6 and a 3. If the throw steps did not reach the camera, a scripted
    demo would wait for dice that never come."""
    import queue

    from table.hw.build import build
    from table.service.config import Config, DisplayConfig, DisplayDriver
    from table.service.ports import TableEvent

    seen_as_pi(monkeypatch, tmp_path, pi=False)
    cfg = Config(display=DisplayConfig(driver=DisplayDriver.NONE))
    script = parse_script('["throw 6 3", "quit"]')
    parts = build(cfg, script=script, frames=FRAMES, text_out=io.StringIO())
    scripted = parts.scripted_camera
    assert parts.script is not None and scripted is not None
    assert "camera replays frames from" in parts.summary and "the script's throws)" in parts.summary
    pressed: queue.Queue[TableEvent] = queue.Queue()
    parts.script.start(pressed.put)
    assert parts.script.done.wait(10)
    parts.script.close()
    assert isinstance(pressed.get(timeout=10), Quit)
    frames: queue.Queue[TableEvent] = queue.Queue()
    scripted.start(frames.put)
    try:
        scripted.want(True)
        frame = frames.get(timeout=30)
        assert isinstance(frame, Frame)
        assert np.array_equal(frame.image, scripted.image_for((6, 3)))
    finally:
        close_parts(parts)


def test_a_script_of_presses_only_says_nothing_of_unused_throws(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With a camera named in the config, a script of presses alone gets no word about
    throws not being used: it has none. If the note were said anyway, a person would look
    for throw steps that are not in the script."""
    from table.hw.build import build

    seen_as_pi(monkeypatch, tmp_path, pi=False)
    cfg = _keyboard_config()
    parts = build(cfg, script=parse_script('["roll", "quit"]'), text_out=io.StringIO())
    try:
        assert parts.scripted_camera is None
        assert "throws" not in parts.summary
        assert parts.summary == "buttons from a script (2 steps)"
    finally:
        close_parts(parts)


def test_a_frames_folder_given_is_the_one_the_camera_replays(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``--frames DIR`` replays that folder's photos, and the note names it. If the
    shipped frames were used instead, photos of another set of dice would be read."""
    import shutil

    from table.hw.build import build
    from table.service.config import Config, DisplayConfig, DisplayDriver

    own = tmp_path / "my-frames"
    own.mkdir()
    shutil.copy(next(FRAMES.glob("dice_63.*")), own)
    seen_as_pi(monkeypatch, tmp_path, pi=False)
    cfg = Config(display=DisplayConfig(driver=DisplayDriver.NONE))
    parts = build(cfg, keys=True, frames=own, text_out=io.StringIO())
    try:
        scripted = parts.scripted_camera
        assert scripted is not None and scripted.frames_dir == own
        assert f"camera replays frames from {own} (a random throw per ROLL)" in parts.summary
        assert scripted.image_for((3, 6)) is not None
    finally:
        close_parts(parts)


@pytest.mark.parametrize("driver", ["ssd1306", "sh1106"])
def test_an_oled_in_the_config_is_opened_with_its_own_settings(
    driver: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An SSD1306 or an SH1106 in the config is opened as the table's OLED, with the
    config's bus, address and rotation, and the screens go to it. If one kind were not
    taken for an OLED, its screens would be printed and the table stay dark."""
    from table.hw.display import LumaDisplay, OledDisplay, dummy_display
    from table.service.config import DisplayConfig, DisplayDriver

    opened: list[DisplayConfig] = []
    oleds: list[LumaDisplay] = []

    def oled(cfg: DisplayConfig) -> LumaDisplay:
        opened.append(cfg)
        oleds.append(dummy_display())
        return oleds[-1]

    display = DisplayConfig(driver=DisplayDriver(driver), i2c_port=3, i2c_address=0x3D, rotate=2)
    parts, out = _build_on_a_laptop(monkeypatch, tmp_path, oled, display)
    try:
        assert isinstance(parts.display, OledDisplay) and opened == [display]
        picture = _picture()
        parts.display.show(picture)
        assert _bits(oleds[0].device.image) == _bits(picture) and out.getvalue() == ""
        assert "display" not in parts.summary
    finally:
        close_parts(parts)


@pytest.mark.parametrize("driver", ["ssd1306", "sh1106"])
def test_a_fault_that_stops_the_table_is_left_on_either_kind_of_oled(
    driver: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault that stops the table is drawn on the config's OLED, SSD1306 or SH1106, and
    kept there after the process ends; with no OLED answering, nothing is said to be
    shown. If one kind were passed over, a person at that table would see a blank screen
    and not know why it does not start."""
    from table.hw import build as build_module
    from table.hw.display import DisplayError, LumaDisplay, dummy_display
    from table.service.config import DisplayConfig, DisplayDriver

    oleds: list[LumaDisplay] = []

    def oled(cfg: DisplayConfig) -> LumaDisplay:
        oleds.append(dummy_display())
        oleds[-1].device.persist = False
        return oleds[-1]

    monkeypatch.setattr(build_module, "open_oled", oled)
    cfg = DisplayConfig(driver=DisplayDriver(driver))
    assert build_module.show_fault(cfg, "cannot start", "buttons: no GPIO", "fix it, restart")
    want = screens.render(screens.Message("cannot start", "buttons: no GPIO", "fix it, restart"))
    assert len(oleds) == 1 and oleds[0].device.persist is True
    assert _bits(oleds[0].device.image) == _bits(want)

    def no_oled(cfg: DisplayConfig) -> LumaDisplay:
        raise DisplayError("display: not answering")

    monkeypatch.setattr(build_module, "open_oled", no_oled)
    assert build_module.show_fault(cfg, "cannot start", "why", "fix it") is False


@pytest.mark.parametrize("driver", ["terminal", "none"])
def test_a_fault_is_not_drawn_on_an_oled_the_config_does_not_name(
    driver: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``display.driver`` "terminal" or "none" the I2C bus is not the table's (another
    device, another program may use it): a fault that stops the table is said in the
    journal only, and no OLED is opened to draw it."""
    from table.hw import build as build_module
    from table.hw.display import LumaDisplay, dummy_display
    from table.service.config import DisplayConfig, DisplayDriver

    opened: list[DisplayConfig] = []

    def oled(cfg: DisplayConfig) -> LumaDisplay:
        opened.append(cfg)
        return dummy_display()

    monkeypatch.setattr(build_module, "open_oled", oled)
    cfg = DisplayConfig(driver=DisplayDriver(driver))
    assert build_module.show_fault(cfg, "cannot start", "why", "fix it") is False
    assert opened == []


def _pi_gpio_clock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[float]:
    """A Pi whose GPIO is waited for GPIO_WAIT_S = 20 s on a made-up clock: ``clock[0]``,
    moved on by each sleep between tries."""
    from table.hw import build as build_module

    clock = [0.0]

    def sleep(s: float) -> None:
        clock[0] += s

    seen_as_pi(monkeypatch, tmp_path, pi=True)
    monkeypatch.setattr(build_module, "GPIO_WAIT_S", 20.0)
    monkeypatch.setattr(build_module, "_gpio_sleep", sleep)
    monkeypatch.setattr(build_module, "_gpio_clock", lambda: clock[0])
    return clock


def test_on_a_pi_gpio_that_opens_a_little_later_is_waited_for(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """At boot udev may not yet have given /dev/gpiochip* to the gpio group when the
    service starts. The table stopped at the first refusal (exit 2, which the unit does
    not restart), and stayed stopped until someone restarted it. It now tries again for
    GPIO_WAIT_S; buttons that open at the third try are used, and the note says so."""
    from table.hw import build as build_module

    tried: list[float] = []
    clock = _pi_gpio_clock(monkeypatch, tmp_path)

    class LateGpio:
        def __init__(self, cfg: object) -> None:
            tried.append(clock[0])
            if len(tried) < 3:
                raise PermissionError(13, "Permission denied", "/dev/gpiochip0")

        def start(self, put: object) -> None: ...

        def close(self) -> None: ...

    monkeypatch.setattr("table.hw.buttons.GpioButtons", LateGpio)
    parts = build_module.build(_keyboard_config(), text_out=io.StringIO())
    try:
        assert isinstance(parts.buttons, LateGpio)
        assert tried == [0.0, 1.0, 2.0]
        assert "GPIO buttons ready at try 3" in parts.summary
    finally:
        close_parts(parts)

    # GPIO that never opens: tried for GPIO_WAIT_S, then the table stops as before
    tried.clear()
    clock[0] = 0.0
    refused = _gpio_fails(monkeypatch, RuntimeError("no GPIO"))
    with pytest.raises(build_module.GpioUnavailable, match="no GPIO"):
        build_module.build(_keyboard_config(), text_out=io.StringIO())
    assert len(refused) == 21 and clock[0] == 20.0


def test_on_a_pi_a_button_pin_in_use_stops_the_table_at_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A button's pin held by another program does not free itself while the service
    waits: it is said at once, not after GPIO_WAIT_S of tries, whether the first try
    finds it or a later one (the GPIO opened late, then the pin was in use)."""
    from table.hw import build as build_module
    from table.hw.buttons import PinUnusable

    tried: list[float] = []
    clock = _pi_gpio_clock(monkeypatch, tmp_path)

    class PinTaken:
        late = False  # the first try finds no GPIO yet

        def __init__(self, cfg: object) -> None:
            tried.append(clock[0])
            if self.late and len(tried) == 1:
                raise PermissionError(13, "Permission denied", "/dev/gpiochip0")
            raise PinUnusable("buttons.roll = 17: GPIO17 is in use by another program")

    monkeypatch.setattr("table.hw.buttons.GpioButtons", PinTaken)
    for late, tries in ((False, [0.0]), (True, [0.0, 1.0])):
        PinTaken.late = late
        tried.clear()
        clock[0] = 0.0
        with pytest.raises(build_module.GpioUnavailable, match="in use") as raised:
            build_module.build(_keyboard_config(), text_out=io.StringIO())
        assert raised.value.pin
        assert tried == tries


class _SetReader:
    """A reader that reads what the test says, whatever the frame shows; the dice it was
    told to expect, each read."""

    def __init__(self) -> None:
        self.reading: Any = None
        self.expected: list[int | None] = []

    def read(self, image: Any, expect: int | None = None) -> Any:
        self.expected.append(expect)
        return self.reading


def _two_dice_tray(shift: int = 0, shift2: int = 0) -> np.ndarray:
    """Two light squares on a dark tray: the first die moved right by ``shift``, the
    second by ``shift2``."""
    img = np.full((480, 640, 3), 90, np.uint8)
    img[100:140, 100 + shift : 140 + shift] = 230
    img[100:140, 300 + shift2 : 340 + shift2] = 230
    return img


def _die_at(value: int | None, x: float, reason: str = "") -> Any:
    from vision.types import DieReading

    return DieReading(value, (x, 120.0), ((x, 120.0), (40.0, 40.0), 0.0), 0.9, reason)


def _synthetic_loop(
    tmp_path: Path, settle: Any = None, camera: Any = None
) -> tuple[TableLoop, _SetReader, list[str]]:
    """A mexico game started, read by the real settler from frames the test makes, with
    a reader that reads what the test says; the texts shown."""
    from vision.settle import SettleConfig, Settler

    data = DataDir(tmp_path / "data")
    data.prepare()
    s = DEMO_SETTINGS["mexico"]
    data.save_settings(s)
    reader = _SetReader()
    texts: list[str] = []

    class Shows:
        def show(self, image: Any) -> None: ...

        def show_text(self, text: str) -> None:
            texts.append(text)

        def close(self) -> None: ...

    loop = TableLoop(
        data=data,
        settings=Settings.from_json(s),
        buttons=None,
        display=Shows(),
        camera=camera,
        reader=reader,
        settler=Settler(settle or SettleConfig(consistent_frames=3)),
        errors=io.StringIO(),
    )
    loop.boot()
    for _ in range(menu_presses(s)):
        loop.handle(ButtonPress(Button.ROLL))
    return loop, reader, texts


def _rolled(
    loop: TableLoop, reader: _SetReader, reading: Any, at: int = 0, t: float = 0.0
) -> float:
    """ROLL, and the dice come to rest ``at`` pixels right of the first place, read as
    ``reading``: a frame of them moving, then four still, from time ``t``; the time of
    the next frame."""
    loop.handle(ButtonPress(Button.ROLL))
    reader.reading = reading
    for image in [_two_dice_tray(at + 40), *[_two_dice_tray(at)] * 4]:
        loop.handle(Frame(image, t))
        t += 1
    return t


def _thrown_tilted(loop: TableLoop, reader: _SetReader) -> float:
    """ROLL, and the dice come to rest read with die 2 tilted (refused); the time of
    the next frame."""
    from vision.types import FrameReading, FrameStatus

    tilted = FrameReading(
        FrameStatus.REROLL, "die 2 is tilted", (_die_at(6, 120.0), _die_at(None, 320.0, "tilted"))
    )
    return _rolled(loop, reader, tilted)


def _thrown(loop: TableLoop) -> list[tuple[int, ...]]:
    assert loop.writer is not None
    events = load(loop.writer.path).events
    return [tuple(e.dice) for e in events if e.kind.value == "throw"]  # type: ignore[attr-defined]


def test_dice_read_differently_frame_after_frame_are_refused_once_not_waited_on(
    tmp_path: Path,
) -> None:
    """Dice lying still whose reading never agrees from one frame to the next (a die in
    a flickering lamp's dark band, read in some frames and not in others): the table
    said "reading..." for as long as it lasted. After a while it now shows the last
    refusal's reason, once, and counts nothing; the player throws again."""
    from vision.types import FrameReading, FrameStatus

    die = _die_at
    loop, reader, texts = _synthetic_loop(tmp_path)
    loop.handle(ButtonPress(Button.ROLL))
    both = FrameReading(FrameStatus.OK, "read 2 dice", (die(6, 120.0), die(5, 320.0)))
    short = FrameReading(
        FrameStatus.REROLL,
        "saw 1 die, expected 2: light in bands (a lamp flickers)",
        (die(6, 120.0),),
    )
    shown = len(texts)
    for k in range(40):
        reader.reading = short if k % 3 == 0 else both
        loop.handle(Frame(_two_dice_tray(), float(k)))
    told = [t for t in texts[shown:] if "light in bands" in t]
    assert len(told) == 1 and "roll again" in told[0], texts[shown:]
    assert _thrown(loop) == []
    assert loop.want_dice  # still reading: the throw again is read as ever


def test_dice_thrown_in_the_dark_are_read_where_they_lie_once_the_tray_is_lit(
    tmp_path: Path,
) -> None:
    """The lamp off: the still tray is "too dark" and the table asks for light, not a
    throw. Switched on, the dice are read as they lie and the throw is counted, with no
    ROLL pressed again."""
    from vision.types import FrameReading, FrameStatus

    loop, reader, texts = _synthetic_loop(tmp_path)
    loop.handle(ButtonPress(Button.ROLL))
    reader.reading = FrameReading(FrameStatus.REROLL, "too dark")
    dark = np.zeros((480, 640, 3), np.uint8)
    t = 0.0
    for _ in range(8):
        loop.handle(Frame(dark, t))
        t += 1
    assert "too dark" in texts[-1] and "more light" in texts[-1], texts[-3:]
    assert _thrown(loop) == []
    reader.reading = FrameReading(
        FrameStatus.OK, "read 2 dice", (_die_at(6, 120.0), _die_at(3, 320.0))
    )
    for _ in range(6):
        loop.handle(Frame(_two_dice_tray(), t))
        t += 1
    assert _thrown(loop) == [(6, 3)], texts[-3:]


def test_the_journal_is_told_of_a_lamps_bands_once_each_time_the_camera_opens(
    tmp_path: Path,
) -> None:
    """Dice unseen in a flickering lamp's bands: the display says so at every throw, and
    the journal once after the camera opened, with what to mend (the player cannot: the
    mains frequency in the config, or the lamp). After the camera opens again it is told
    again; a throw refused for another reason tells it nothing."""
    from vision.types import FrameReading, FrameStatus

    loop, reader, texts = _synthetic_loop(tmp_path)
    journal = loop.errors
    assert isinstance(journal, io.StringIO)
    banded = "saw 1 die, expected 2: light in bands (a lamp flickers)"
    t = 0.0

    def thrown(reason: str, at: int) -> None:
        nonlocal t
        refused = FrameReading(FrameStatus.REROLL, reason, (_die_at(6, 120.0 + at),))
        t = _rolled(loop, reader, refused, at, t)
        assert reason in texts[-1], texts[-3:]

    def told() -> list[str]:
        return [line for line in journal.getvalue().splitlines() if "light in bands" in line]

    loop.handle(CameraReady("usb:0 open: 640x480 frames; its own flicker filter"))
    thrown("saw 1 die, expected 2", 0)
    assert told() == []
    thrown(banded, 60)
    thrown(banded, 120)
    assert told() == [
        "dicetable: camera: dice not read, light in bands (a lamp flickers): set mains_hz "
        "under [camera] to the mains' frequency (50 or 60), or light the tray with another lamp"
    ]
    loop.handle(CameraReady("usb:0 open: 640x480 frames; its own flicker filter"))
    thrown(banded, 180)
    assert len(told()) == 2
    assert _thrown(loop) == []


@pytest.mark.parametrize("moved_while_stopped", [False, True])
def test_a_refused_throw_is_not_counted_after_stop_and_roll_unless_rolled(
    tmp_path: Path, moved_while_stopped: bool
) -> None:
    """A throw refused ("die 2 is tilted: roll again"), then STOP ("reading cancelled")
    and ROLL with nobody touching the dice: the settler was started afresh, so the same
    still dice, read whole the second time, were counted as a throw nobody made. Now
    they are "dice lie as last thrown", and nothing is logged. Dice that were rolled
    while the table was not reading are counted as ever."""
    from table.service.ports import Press
    from vision.types import FrameReading, FrameStatus

    die = _die_at
    loop, reader, texts = _synthetic_loop(tmp_path)
    roll, stop = ButtonPress(Button.ROLL), ButtonPress(Button.STOP, Press.SHORT)
    loop.handle(roll)
    reader.reading = FrameReading(
        FrameStatus.REROLL, "die 2 is tilted", (die(6, 120.0), die(None, 320.0, "tilted"))
    )
    for k in range(6):
        loop.handle(Frame(_two_dice_tray(), float(k)))
    assert "die 2 is tilted" in texts[-1]
    loop.handle(stop)
    assert "reading cancelled" in texts[-1]
    loop.handle(roll)
    shift = 60 if moved_while_stopped else 0
    reader.reading = FrameReading(
        FrameStatus.OK, "", (die(6, 120.0 + shift), die(5, 320.0 + shift))
    )
    for k in range(6):
        loop.handle(Frame(_two_dice_tray(shift, shift), 10.0 + k))
    if moved_while_stopped:
        assert _thrown(loop) == [(6, 5)]
    else:
        assert _thrown(loop) == []
        assert "dice lie as last thrown" in texts[-1]


def test_dice_at_rest_with_a_hand_kept_still_in_the_tray_are_not_counted(
    tmp_path: Path,
) -> None:
    """A throw refused (die 2 tilted); a hand reaches in, to set the die right, and rests
    there long enough for the settler to take it for the tray: it may cover a die. The
    dice's rest under it was counted as a throw; now it is "something in the tray". Once
    the hand is gone the dice are read, but a die set right by hand where it lay was not
    thrown ("roll again"); rolled, they count."""
    from vision.settle import SettleConfig
    from vision.types import FrameReading, FrameStatus

    loop, reader, texts = _synthetic_loop(
        tmp_path, SettleConfig(consistent_frames=3, adopt_after=3)
    )
    t = _thrown_tilted(loop, reader)
    assert "die 2 is tilted" in texts[-1]
    reader.reading = FrameReading(FrameStatus.OK, "", (_die_at(6, 120.0), _die_at(5, 320.0)))
    with_hand = _two_dice_tray()
    with_hand[250:480, 200:560] = 200  # a hand, 27 % of the frame, kept still
    for image in [with_hand] * 10:
        loop.handle(Frame(image, t))
        t += 1
    assert _thrown(loop) == [], texts[-1]
    assert "something in the tray" in texts[-1]
    assert "take it out" in texts[-1]
    for image in [_two_dice_tray()] * 5:  # the hand drawn back: the dice are read
        loop.handle(Frame(image, t))
        t += 1
    assert _thrown(loop) == [] and "a die was not thrown" in texts[-1], texts[-1]
    reader.reading = FrameReading(FrameStatus.OK, "", (_die_at(6, 180.0), _die_at(5, 380.0)))
    for image in [_two_dice_tray(60, 60)] * 5:  # rolled again
        loop.handle(Frame(image, t))
        t += 1
    assert _thrown(loop) == [(6, 5)]


def test_the_reader_is_told_how_many_dice_the_throw_has(tmp_path: Path) -> None:
    """The loop read frames with no count: three dice in the tray gave the referee's
    own "saw 3, need 2 dice", or, with one of them unclear, "die 3 is unclear"; the
    reader's "saw 3 dice, expected 2" says what to do."""
    loop, reader, _texts = _synthetic_loop(tmp_path)
    _thrown_tilted(loop, reader)
    assert reader.expected and set(reader.expected) == {2}


def test_the_loop_tells_the_replay_camera_which_throw_it_read(tmp_path: Path) -> None:
    """The replay camera shows each throw away from the last one the table read; it
    knows that one from the loop, which tells it once the throw's dice are remembered,
    and not for a reading it refused."""
    from vision.types import FrameReading, FrameStatus

    class Camera:
        def __init__(self) -> None:
            self.reads = 0

        def want(self, flag: bool) -> None: ...

        def read(self) -> None:
            self.reads += 1

    camera = Camera()
    loop, reader, texts = _synthetic_loop(tmp_path, camera=camera)
    t = _thrown_tilted(loop, reader)
    assert "die 2 is tilted" in texts[-1] and camera.reads == 0
    reader.reading = FrameReading(FrameStatus.OK, "", (_die_at(6, 200.0), _die_at(5, 400.0)))
    for image in [_two_dice_tray(80, 80)] * 5:
        loop.handle(Frame(image, t))
        t += 1
    assert _thrown(loop) == [(6, 5)] and camera.reads == 1


def test_settings_that_cannot_be_saved_are_said_and_the_game_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The menu's choices cannot be remembered (a card gone read-only): the journal says
    so, the game starts as chosen and its throws are logged."""
    import errno

    from vision.types import FrameReading, FrameStatus

    real = DataDir.save_settings
    calls: list[object] = []

    def failing(self: DataDir, obj: dict[str, Any]) -> None:
        calls.append(obj)
        if len(calls) > 1:  # the first is the test's own, before the table starts
            raise OSError(errno.EROFS, "Read-only file system")
        real(self, obj)

    monkeypatch.setattr(DataDir, "save_settings", failing)
    loop, reader, texts = _synthetic_loop(tmp_path)
    assert len(calls) > 1
    assert isinstance(loop.errors, io.StringIO)
    assert "cannot save the settings: [Errno 30] Read-only file system" in loop.errors.getvalue()
    assert "roll, then press ROLL" in texts[-1]
    read = FrameReading(FrameStatus.OK, "read 2 dice", (_die_at(6, 120.0), _die_at(3, 320.0)))
    _rolled(loop, reader, read)
    assert _thrown(loop) == [(6, 3)]


def test_a_fault_in_handling_a_press_is_shown_and_the_table_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever goes wrong with one press (a fault of the table's own) is said in the
    journal and on the display, and the loop takes the next press as ever: no stack
    trace for the players, no table stopped."""
    from table.service.referee import Referee

    loop, _, texts = _synthetic_loop(tmp_path)
    real = Referee.on_press

    def broken(self: Referee, press: ButtonPress) -> Any:
        raise KeyError("lost")

    monkeypatch.setattr(Referee, "on_press", broken)
    assert loop.handle(ButtonPress(Button.ROLL))
    assert texts[-1] == "[table error]\nKeyError\npress a button"
    assert isinstance(loop.errors, io.StringIO)
    assert "ButtonPress: KeyError: 'lost'" in loop.errors.getvalue()
    monkeypatch.setattr(Referee, "on_press", real)
    assert loop.handle(ButtonPress(Button.ROLL))
    assert loop.want_dice and "reading" in texts[-1]


def test_a_fault_of_several_lines_is_one_line_in_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader failing with an error of several lines (OpenCV's ends in a line break
    after naming its source file): each journal line is the table's, whole."""
    loop, reader, texts = _synthetic_loop(tmp_path)
    loop.handle(ButtonPress(Button.ROLL))

    def broken(image: Any, expect: int | None = None) -> Any:
        raise RuntimeError("OpenCV(5.1.0) dnn.cpp:392: error: (-5:Bad argument) no net\n\tin 'x'\n")

    monkeypatch.setattr(reader, "read", broken)
    loop.handle(Frame(_two_dice_tray(), 0.0))
    assert isinstance(loop.errors, io.StringIO)
    lines = loop.errors.getvalue().splitlines()
    assert lines and all(line.startswith("dicetable: ") for line in lines), lines
    assert any(
        line.endswith(r"(-5:Bad argument) no net\n\tin 'x'") and "RuntimeError" in line
        for line in lines
    ), lines
    assert "could not read the dice" in texts[-1]


def test_a_tick_shows_the_same_screen_again_after_a_display_fault(tmp_path: Path) -> None:
    """The display failed (a loose I2C cable) while showing a screen: the next tick
    draws that same screen again and the fault is cleared; a working display is not
    drawn again for a screen it already shows."""
    from table.service.ports import Tick

    loop, display, fail = _flaky_display_loop(tmp_path)
    loop.show(screens.Message("one", "two", "three"))
    assert loop.display_fault is not None
    fail[0] = False
    shown = len(display.images)
    loop.handle(Tick(0.0))
    assert loop.display_fault is None
    assert len(display.images) == shown + 1
    assert loop.shown is not None
    loop.show(loop.shown.screen)  # the same screen on a working display: not drawn again
    assert len(display.images) == shown + 1


def test_dice_remembered_in_a_bigger_frame_are_scaled_at_the_first_frame(tmp_path: Path) -> None:
    """tray.json holds dice read in 1280 x 960 frames; the camera now gives 640 x 480:
    the first frame scales them, even a moving one the referee gets no reading from."""
    data = DataDir(tmp_path / "data")
    data.prepare()
    dice = (_die_at(6, 240.0), _die_at(3, 640.0))
    data.save_tray(dice, (1280, 960))
    loop, reader, texts = _synthetic_loop(tmp_path)
    print("last_roll after start", [d.center for d in loop.referee.last_roll])
    loop.handle(ButtonPress(Button.ROLL))
    print("want", loop.want_dice, [d.center for d in loop.referee.last_roll])
    loop.handle(Frame(_two_dice_tray(40), 0.0))  # moving: no reading for the referee
    print("after frame", [d.center for d in loop.referee.last_roll])
    assert [d.center for d in loop.referee.last_roll] == [(120.0, 60.0), (320.0, 60.0)]


def test_a_one_channel_frame_has_a_size_too(tmp_path: Path) -> None:
    """A grey camera's frames are height x width only: their size is taken all the
    same, and the remembered dice are scaled to it."""
    from vision.types import FrameReading, FrameStatus

    data = DataDir(tmp_path / "data")
    data.prepare()
    data.save_tray((_die_at(6, 240.0), _die_at(3, 640.0)), (1280, 960))
    loop, reader, texts = _synthetic_loop(tmp_path)
    loop.settler = None
    loop.handle(ButtonPress(Button.ROLL))
    reader.reading = FrameReading(FrameStatus.REROLL, "too dark")
    loop.handle(Frame(np.zeros((480, 640), np.uint8), 0.0))  # grey: height x width only
    assert loop._frame_size == (640, 480)
    assert loop.referee is not None
    assert [d.center for d in loop.referee.last_roll] == [(120.0, 60.0), (320.0, 60.0)]


def test_places_of_a_reading_not_counted_in_a_bigger_frame_are_scaled_too(tmp_path: Path) -> None:
    """tray.json with only the places of a reading not counted (no throw yet): they
    are scaled to the camera's new size as the dice of a throw are."""
    data = DataDir(tmp_path / "data")
    data.prepare()
    data.save_tray((), (1280, 960), (_die_at(6, 240.0),))
    loop, reader, texts = _synthetic_loop(tmp_path)
    assert loop.referee is not None and len(loop.referee.refused_roll) == 1
    loop.handle(ButtonPress(Button.ROLL))
    loop.handle(Frame(_two_dice_tray(40), 0.0))  # moving: no reading for the referee
    assert [d.center for d in loop.referee.refused_roll] == [(120.0, 60.0)]


def test_a_throw_counted_is_remembered_in_the_tray(tmp_path: Path) -> None:
    """A throw counted is written to tray.json with the frame's size, so that after a
    power cut the dice lying as they fell are not taken for a new throw."""
    from vision.types import FrameReading, FrameStatus

    loop, reader, texts = _synthetic_loop(tmp_path)
    thrown = (_die_at(6, 120.0), _die_at(3, 320.0))
    _rolled(loop, reader, FrameReading(FrameStatus.OK, "read 2 dice", thrown))
    assert loop.referee is not None and loop.referee.last_roll == thrown
    tray = loop.data.load_tray()
    assert tray.dice == thrown and tray.frame == (640, 480)
