"""The table's benchmark: counts it cannot measure are refused before it starts; each
figure measures the interval its label names, and is printed with its unit and count."""

from __future__ import annotations

import json
import os
import random
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest


@pytest.mark.parametrize(
    "args",
    [
        ["--presses", "0"],
        ["--presses", "-3"],
        ["--presses", "x"],
        ["--throws", "-1"],
        ["--idle-seconds", "0"],
        ["--idle-seconds", "nan"],
    ],
)
def test_a_count_it_cannot_measure_is_one_line_and_exit_2(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--presses 0 ran the whole table and then ended in a traceback ("no median for
    empty data")."""
    from table.service import bench

    def no_table(*_args: object) -> None:
        raise AssertionError("the table was started")

    monkeypatch.setattr(bench, "measure_loop", no_table)
    with pytest.raises(SystemExit) as stop:
        bench.main(args)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert args[0] in err and "Traceback" not in err


# -- what the figures measure and how they are printed


class _Clock:
    """Stands in for the ``time`` module the benchmark reads: a clock that moves only when
    slept on (waking ``late`` seconds late, as on a busy machine) or ``advance``-d, so the
    intervals measured are known exactly."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.late = 0.0
        self.on_sleep: list[Callable[[float], None]] = []

    def monotonic(self) -> float:
        return self.now

    def perf_counter(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
        for hook in self.on_sleep:
            hook(self.now)

    def sleep(self, seconds: float) -> None:
        self.advance(seconds + self.late)


def test_p95_is_the_nearest_rank_of_the_sorted_figures() -> None:
    """The p95 printed is the figure 95 % of the sorted ones do not pass, in whatever
    order they were measured: of 1..30 ms the 29th, of 1..100 ms the 95th."""
    from table.service.bench import pct

    thirty = [float(v) for v in range(1, 31)]
    random.Random(3).shuffle(thirty)
    assert pct(thirty, 0.95) == 29.0
    assert pct([float(v) for v in range(100, 0, -1)], 0.95) == 95.0
    assert (pct(thirty, 0.0), pct(thirty, 1.0)) == (1.0, 30.0)
    assert pct([7.0], 0.95) == 7.0


def test_a_press_is_timed_from_the_press_to_its_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    """button press -> display updated: milliseconds from the press being put in the
    loop's queue to the screen it brings being handed to the display; a screen shown
    before the press is not its screen."""
    from table.service import bench, screens
    from table.service.ports import Button, ButtonPress

    clock = _Clock()
    monkeypatch.setattr(bench, "time", clock)
    probe = bench.Probe()
    probe.on_show(screens.Menu("rules", "mexico", 0, 4, ""), clock.now - 5.0)  # an old one
    pressed: list[object] = []

    class Loop:
        def put(self, event: object) -> None:
            pressed.append(event)
            clock.advance(0.1)  # the press entering the queue takes time too
            probe.on_show(screens.Menu("rules", "mexen", 1, 4, ""), clock.now + 0.15)

    assert bench.press(Loop(), probe, Button.HOLD) == pytest.approx(250.0)  # type: ignore[arg-type]
    assert pressed == [ButtonPress(Button.HOLD)]
    assert probe.last_screen == screens.Menu("rules", "mexen", 1, 4, "")


def test_a_press_that_brings_no_screen_is_an_error_not_a_figure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A press whose screen never comes stops the benchmark, rather than timing the
    screen shown before it."""
    from table.service import bench, screens
    from table.service.ports import Button

    class Quick(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            return self.is_set()  # no 10 s wait in a test

    probe = bench.Probe()
    monkeypatch.setattr(probe, "shown", Quick())
    probe.on_show(screens.Menu("rules", "mexico", 0, 4, ""), 1.0)

    class Deaf:
        def put(self, event: object) -> None:
            pass

    with pytest.raises(RuntimeError, match="hold: the screen did not change"):
        bench.press(Deaf(), probe, Button.HOLD)  # type: ignore[arg-type]


def test_the_camera_notes_only_the_first_frame_of_a_throw(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """dice at rest -> result is timed from the first frame the camera puts after the
    throw (``first_frame_t`` cleared): not a later frame, nor an event that is no frame;
    every event still reaches the loop."""
    from table.hw.build import FRAMES_DIR
    from table.service import bench
    from table.service.ports import CameraFailed, Frame

    clock = _Clock()
    monkeypatch.setattr(bench, "time", clock)
    probe = bench.Probe()
    camera = bench.TimedCamera(FRAMES_DIR, probe, 10.0)
    started: list[Callable[[object], None]] = []
    monkeypatch.setattr(camera, "_start", lambda target, put, name: started.append(put))
    got: list[object] = []
    camera.start(got.append)
    timed = started[0]
    image = np.zeros((2, 2, 3), np.uint8)
    events = [CameraFailed("gone"), Frame(image, 1.0), Frame(image, 2.0)]
    timed(events[0])
    clock.advance(0.5)
    assert probe.first_frame_t is None
    timed(events[1])
    first = clock.now
    clock.advance(0.1)
    timed(events[2])
    assert probe.first_frame_t == first
    assert got == events


def test_the_simulated_table_gives_a_figure_for_each_press_and_throw() -> None:
    """Each HOLD press in the menu and each throw read is one figure; a throw's figure
    starts at a frame of that throw, so it is never longer than the time from its throw
    to the next, and spans at least the frames the settler waits for (``settle_frames``
    at the camera's fps), in milliseconds."""
    from table.service import bench
    from table.service.config import Config

    thrown: list[float] = []
    real_table = bench.simulated_table

    def table(tmp: Path) -> tuple[Any, Any, Any]:
        loop, probe, camera = real_table(tmp)
        throw = camera.throw

        def noted(dice: tuple[int, ...]) -> None:
            thrown.append(time.monotonic())
            throw(dice)

        camera.throw = noted  # type: ignore[method-assign]
        return loop, probe, camera

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bench, "simulated_table", table)
        press_ms, rest_ms = bench.measure_loop(2, 4)
    ended = time.monotonic()
    assert len(press_ms) == 2 and all(ms > 0 for ms in press_ms)
    assert len(rest_ms) == 4 and len(thrown) == 4
    spans = [b - a for a, b in zip(thrown, [*thrown[1:], ended], strict=True)]
    cam = Config().camera
    settling_ms = (cam.settle_frames - 1) / cam.fps * 1000.0
    for ms, span in zip(rest_ms, spans, strict=True):
        assert settling_ms <= ms <= span * 1000.0


def test_the_reader_is_timed_per_frame_in_milliseconds(monkeypatch: pytest.MonkeyPatch) -> None:
    """pip reader per frame: one figure per shipped frame per round, each the time of
    that one reading."""
    from table.hw.build import FRAMES_DIR
    from table.service import bench

    clock = _Clock()
    monkeypatch.setattr(bench, "time", clock)
    read: list[tuple[int, ...]] = []

    class Reader:
        def read(self, image: np.ndarray) -> None:
            read.append(image.shape)
            clock.advance(0.004)

    monkeypatch.setattr(bench, "vision_parts", lambda settle: (Reader(), None))
    frames = len(list(FRAMES_DIR.glob("*.jpg")))
    out = bench.measure_reader(rounds=2)
    assert out == pytest.approx([4.0] * (2 * frames))
    assert len(read) == 2 * frames


def test_cpu_seconds_are_the_user_and_system_time_of_the_process() -> None:
    """idle CPU is counted from what the process itself used, in the kernel and out
    (read from /proc): the same seconds ``os.times`` gives for this process."""
    from table.service.bench import cpu_seconds

    with open("/dev/zero", "rb", buffering=0) as zero:  # some system time, too
        start = os.times().system
        for _ in range(5000):
            zero.read(1 << 22)
            if os.times().system - start >= 0.2:
                break
    sum(i * i for i in range(200_000))
    own = os.times()
    assert cpu_seconds(os.getpid()) == pytest.approx(own.user + own.system, abs=0.05)


def test_idle_cpu_is_measured_over_the_window_after_start_up(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """idle CPU of ``dicetable run``: the CPU seconds the process used over the window
    asked for (or as long as it took), once it is up and its start-up work done, as a
    percentage of one core; the process lives through the window and is ended after it."""
    from table.service import bench

    clock = _Clock()
    clock.late = 0.25
    monkeypatch.setattr(bench, "time", clock)
    procs: list[Any] = []

    class Proc:
        """``dicetable run``: up (its state file written) 2 s after it starts, busy for
        0.5 s more, then at 3 % of a core until its script's wait is over."""

        def __init__(self, argv: list[str], **kwargs: Any) -> None:
            procs.append(self)
            self.argv, self.pid, self.ended = argv, 4242, False
            self.up_at = clock.now + 2.0
            wait = json.loads(Path(argv[argv.index("--script") + 1]).read_text())
            self.exits_at = self.up_at + float(wait[0].split()[1])
            state = Path(argv[argv.index("--state-json") + 1])

            def up(now: float) -> None:
                if now >= self.up_at:
                    state.write_text("{}")

            clock.on_sleep.append(up)

        def cpu(self, now: float) -> float:
            assert not self.ended and now < self.exits_at, "no such process"
            busy = min(now, self.up_at + 0.5) - (self.up_at - 2.0)
            return 1.5 * busy + 0.03 * max(0.0, now - self.up_at - 0.5)

        def terminate(self) -> None:
            self.ended = True

        def wait(self, timeout: float) -> int:
            assert self.ended
            return 0

    monkeypatch.setattr(bench, "subprocess", SimpleNamespace(Popen=Proc, DEVNULL=-3))
    read_at: list[float] = []

    def cpu_seconds(pid: int) -> float:
        assert pid == procs[0].pid
        read_at.append(clock.now)
        return float(procs[0].cpu(clock.now))

    monkeypatch.setattr(bench, "cpu_seconds", cpu_seconds)
    assert bench.measure_idle(4.0) == pytest.approx(3.0)
    assert read_at[1] - read_at[0] == pytest.approx(4.25)
    (proc,) = procs
    assert proc.argv[:4] == [sys.executable, "-m", "table", "run"] and proc.ended


def _main_with(
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    rest_ms: list[float],
    idle: float | None,
) -> tuple[list[tuple[int, int]], list[float]]:
    """``bench.main(args)`` with the measurements standing in: the presses take 1..19 ms
    and one 100 ms, each throw ``rest_ms``, the readings 5..25 ms and one 200 ms, idle
    ``idle``; the counts given to the loop's measurement and the windows given to the
    idle one."""
    from table.service import bench

    loops: list[tuple[int, int]] = []
    windows: list[float] = []

    def loop(presses: int, throws: int) -> tuple[list[float], list[float]]:
        loops.append((presses, throws))
        return [100.0, *[float(v) for v in range(19, 0, -1)]], rest_ms

    def idle_for(seconds: float) -> float | None:
        windows.append(seconds)
        return idle

    monkeypatch.setattr(bench, "measure_loop", loop)
    monkeypatch.setattr(bench, "measure_reader", lambda: [200.0, *[float(v) for v in range(5, 26)]])
    monkeypatch.setattr(bench, "measure_idle", idle_for)
    assert bench.main(args) == 0
    return loops, windows


def test_the_figures_are_printed_with_their_labels_units_and_counts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each line names what was measured, in ms (or % of one core), with the median, the
    p95 and how many figures they are of; the reader's line names the frame size."""
    from table.service.config import Config

    rest = [float(v) for v in range(200, 230)] + [400.0]
    loops, windows = _main_with(
        monkeypatch, ["--presses", "5", "--idle-seconds", "2.5"], rest, 1.25
    )
    assert loops == [(5, 30)] and windows == [2.5]
    cam = Config().camera
    assert capsys.readouterr().out.splitlines() == [
        f"simulated table: camera {cam.fps:g} fps, settle_frames {cam.settle_frames}",
        "button press -> display updated: median 10.5 ms, p95 19.0 ms (n=20)",
        "dice at rest -> result on display: median 215 ms, p95 228 ms (n=31)",
        "pip reader per frame (400x300): median 15.5 ms, p95 25.0 ms (n=22)",
        "idle CPU of dicetable run (menu, 2.5 s): 1.25 % of one core",
    ]


def test_no_throws_and_no_idle_figure_are_said_not_misprinted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--throws 0 is a run of presses alone (the default counts are the usage line's:
    60 presses, 30 throws, 10 s idle); no throw read is said in words, and where no idle
    figure can be taken (no /proc) there is no idle line."""
    loops, windows = _main_with(monkeypatch, ["--throws", "0"], [], None)
    assert loops == [(60, 0)] and windows == [10.0]
    out = capsys.readouterr().out.splitlines()
    assert "dice at rest -> result on display: no throw was read" in out
    assert not any(line.startswith("idle CPU") for line in out) and len(out) == 4


def test_an_idle_process_that_used_no_cpu_is_a_figure(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """0 % of a core is a measurement (the table slept through the window), printed as
    such; only where nothing could be measured is the line left out."""
    _main_with(monkeypatch, [], [], 0.0)
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "idle CPU of dicetable run (menu, 10 s): 0.00 % of one core"


@pytest.mark.parametrize("presses", [1, 3])
def test_the_throws_are_timed_in_mexico_whatever_the_number_of_presses(presses: int) -> None:
    """The timed HOLD presses step round the menu's rule sets; the game the throws are
    timed in is still mexico, the rules the simulated table is set up with. After 3 (7,
    11, ... 59) presses it was mythical, whose rounds open with bids: no throw was ever
    made, and the bench printed "no throw was read"."""
    from table.service import bench

    loops: list[Any] = []
    real_table = bench.simulated_table

    def table(tmp: Path) -> tuple[Any, Any, Any]:
        made = real_table(tmp)
        loops.append(made[0])
        return made

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bench, "simulated_table", table)
        press_ms, rest_ms = bench.measure_loop(presses, 2)
    assert len(press_ms) == presses and len(rest_ms) == 2
    assert loops[0].referee.game.rules.name == "mexico"
