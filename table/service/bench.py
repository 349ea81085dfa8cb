"""Table latency and idle cost, in the simulated table (this machine, no Pi hardware).

    python -m table.service.bench [--presses 60] [--throws 30] [--idle-seconds 10]

* button press -> display updated: from the press entering the loop's queue to
  the new screen handed to the display (menu presses: HOLD steps through choices);
* dice at rest -> result on display: from the first camera frame showing the
  dice at rest to the throw's screen handed to the display (camera at the
  config's fps, the real pip reader and settler, ``settle_frames`` frames);
* idle CPU of ``dicetable run``: a real process at the menu, CPU seconds it
  used over a window, as a percentage of one core.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from table.hw.build import FRAMES_DIR
from table.hw.camera import ScriptedCamera
from table.hw.display import NullDisplay
from table.service import screens
from table.service.config import Config
from table.service.loop import TableLoop, vision_parts
from table.service.ports import Button, ButtonPress, Frame, Put
from table.service.referee import MENU_RULES, Settings
from table.service.resume import DataDir


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    k = min(len(s) - 1, max(0, round(q * (len(s) - 1))))
    return s[k]


class Probe:
    """Notes when screens are shown and when the camera first shows a new scene."""

    def __init__(self) -> None:
        self.shown = threading.Event()
        self.last_screen: screens.Screen | None = None
        self.t_shown = 0.0
        self.first_frame_t: float | None = None

    def on_show(self, screen: screens.Screen, t: float) -> None:
        self.last_screen = screen
        self.t_shown = t
        self.shown.set()


class TimedCamera(ScriptedCamera):
    """The scripted camera, noting when the first frame of each new scene was put."""

    def __init__(self, frames_dir: Path, probe: Probe, fps: float) -> None:
        super().__init__(frames_dir, fps=fps)
        self.probe = probe

    def start(self, put: Put) -> None:
        def timed(event: Any) -> None:
            if isinstance(event, Frame) and self.probe.first_frame_t is None:
                self.probe.first_frame_t = time.monotonic()
            put(event)

        super().start(timed)


RULES = "mexico"  # the rules the simulated table plays


def simulated_table(tmp: Path) -> tuple[TableLoop, Probe, TimedCamera]:
    cfg = Config()
    reader, settler = vision_parts(cfg.camera.settle_frames)
    probe = Probe()
    camera = TimedCamera(FRAMES_DIR, probe, cfg.camera.fps)
    data = DataDir(tmp)
    loop = TableLoop(
        data=data,
        settings=Settings.from_json({"rules": RULES, "players": 2}),
        buttons=None,
        display=NullDisplay(),
        camera=camera,
        reader=reader,
        settler=settler,
        seed=5,
        errors=io.StringIO(),
    )
    loop.on_show = probe.on_show
    return loop, probe, camera


def press(loop: TableLoop, probe: Probe, button: Button) -> float:
    """Press and wait for the screen it brings; milliseconds from press to display."""
    probe.shown.clear()
    t0 = time.monotonic()
    loop.put(ButtonPress(button))
    if not probe.shown.wait(10):
        raise RuntimeError(f"{button.value}: the screen did not change")
    return (probe.t_shown - t0) * 1000.0


def measure_loop(presses: int, throws: int) -> tuple[list[float], list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        loop, probe, camera = simulated_table(Path(tmp))
        runner = threading.Thread(target=loop.run, daemon=True)
        runner.start()
        if not loop.wait_idle(30):
            raise RuntimeError("the table did not start")
        press_ms = [press(loop, probe, Button.HOLD) for _ in range(presses)]
        back_to_the_rules(loop, probe)
        start_game(loop, probe)
        rest_ms: list[float] = []
        pairs = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
        for i in range(throws):
            ref = loop.referee
            if ref is not None and (ref.game is None or ref.game.is_over):
                start_game(loop, probe)
            camera.throw(pairs[(i * 5) % len(pairs)])
            probe.first_frame_t = None
            loop.put(ButtonPress(Button.ROLL))
            if loop.wait_idle(20) and probe.first_frame_t is not None:
                rest_ms.append((probe.t_shown - probe.first_frame_t) * 1000.0)
            else:
                press_safe(loop, probe, Button.STOP)  # not read: cancel the reading
            # stand, so the next player throws (refused where standing is not allowed)
            press_safe(loop, probe, Button.STOP)
        loop.stop("bench done")
        runner.join(10)
        return press_ms, rest_ms


def back_to_the_rules(loop: TableLoop, probe: Probe) -> None:
    """HOLD (untimed) round the menu's rule sets to ``RULES``, the rules the table was set
    up with: the timed presses may have left it at any, and a mythical game never throws
    (its rounds open with bids), so no throw would be timed."""
    for _ in range(len(MENU_RULES)):
        shown = probe.last_screen
        if not isinstance(shown, screens.Menu) or shown.item == RULES:
            return
        press(loop, probe, Button.HOLD)
    raise RuntimeError(f"the menu did not come back to {RULES}")


def start_game(loop: TableLoop, probe: Probe) -> None:
    """ROLL through the menu (or past a game's end) until a turn screen shows."""
    for _ in range(20):
        press(loop, probe, Button.ROLL)
        if isinstance(probe.last_screen, screens.Turn):
            return
    raise RuntimeError("no game started")


def press_safe(loop: TableLoop, probe: Probe, button: Button) -> None:
    loop.put(ButtonPress(button))
    loop.wait_idle(5)


def measure_reader(rounds: int = 3) -> list[float]:
    """Milliseconds the pip reader takes per shipped frame."""
    from vision.sources import load_image

    reader, _ = vision_parts(3)
    images = [load_image(p) for p in sorted(FRAMES_DIR.glob("*.jpg"))]
    out: list[float] = []
    for _ in range(rounds):
        for image in images:
            t0 = time.perf_counter()
            reader.read(image)
            out.append((time.perf_counter() - t0) * 1000.0)
    return out


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def measure_idle(seconds: float) -> float | None:
    """CPU use (% of one core) of a real ``dicetable run`` idling at the menu."""
    if not Path("/proc/self/stat").exists():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state.json"
        script = Path(tmp) / "script.json"
        script.write_text(json.dumps([f"wait {seconds + 30}"]))
        proc = subprocess.Popen(
            [
                sys.executable, "-m", "table", "run", "--stand-ins",
                "--script", str(script), "--data", str(Path(tmp) / "data"),
                "--state-json", str(state),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=dict(os.environ, DICETABLE_CONFIG=os.devnull),
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while not state.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(1.0)  # let start-up work finish
            c0, t0 = cpu_seconds(proc.pid), time.monotonic()
            time.sleep(seconds)
            c1, t1 = cpu_seconds(proc.pid), time.monotonic()
        finally:
            proc.terminate()
            proc.wait(10)
        return 100.0 * (c1 - c0) / (t1 - t0)


def cv2_shape() -> tuple[int, int]:
    from vision.sources import load_image

    first = sorted(FRAMES_DIR.glob("*.jpg"))[0]
    shape = load_image(first).shape
    return int(shape[0]), int(shape[1])


def _at_least(low: float, kind: type[int] | type[float]) -> Any:
    """An argparse type: a number of ``kind`` of at least ``low`` (a median of no
    presses is no figure: it ended the whole run in a traceback)."""

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not value >= low:  # nan too
            raise argparse.ArgumentTypeError(f"{text!r}: give {low:g} or more")
        return value

    return parse


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m table.service.bench", description=__doc__)
    p.add_argument("--presses", type=_at_least(1, int), default=60)
    p.add_argument("--throws", type=_at_least(0, int), default=30)
    p.add_argument("--idle-seconds", type=_at_least(0.1, float), default=10.0)
    args = p.parse_args(argv)
    cfg = Config()
    press_ms, rest_ms = measure_loop(args.presses, args.throws)
    print(
        f"simulated table: camera {cfg.camera.fps:g} fps, settle_frames {cfg.camera.settle_frames}"
    )
    print(
        f"button press -> display updated: median {statistics.median(press_ms):.1f} ms, "
        f"p95 {pct(press_ms, 0.95):.1f} ms (n={len(press_ms)})"
    )
    if rest_ms:
        print(
            f"dice at rest -> result on display: median {statistics.median(rest_ms):.0f} ms, "
            f"p95 {pct(rest_ms, 0.95):.0f} ms (n={len(rest_ms)})"
        )
    else:
        print("dice at rest -> result on display: no throw was read")
    read_ms = measure_reader()
    h, w = cv2_shape()
    print(
        f"pip reader per frame ({w}x{h}): median {statistics.median(read_ms):.1f} ms, "
        f"p95 {pct(read_ms, 0.95):.1f} ms (n={len(read_ms)})"
    )
    idle = measure_idle(args.idle_seconds)
    if idle is not None:
        print(
            f"idle CPU of dicetable run (menu, {args.idle_seconds:g} s): {idle:.2f} % of one core"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
