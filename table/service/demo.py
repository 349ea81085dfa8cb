"""``dicetable demo``: whole scripted games of mex, mexico and mexen, headless.

Each game runs through the real table loop: script buttons press ROLL / HOLD /
STOP, the scripted camera shows a real photo of the dice of each throw
(``table/data/frames``), the pip reader reads it and the settler waits for it
to lie still, the referee rules, every event is logged before it is shown.
For each game the demo saves the display frames (PNG), an animated GIF of the
display and the game log, and prints the standings.

    dicetable demo [--out DIR] [--games mex,mexico,mexen]
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table.service.cli_run import folder_arg, frames_fault

# The menu's remembered choices for each demo game (what a person chose last time),
# so the games are short: 2 lives in mex, 2 rounds of mexen.
DEMO_SETTINGS: dict[str, dict[str, Any]] = {
    "mex": {"rules": "mex", "players": 2, "options": {"lives": 2}},
    "mexico": {"rules": "mexico", "players": 2, "options": {"lives": 3}},
    "mexen": {"rules": "mexen", "players": 2, "options": {"rounds": 2}},
}

# What happens at the table after the menu: the dice thrown and the buttons pressed.
DEMO_PLAYS: dict[str, tuple[str, ...]] = {
    # mex, 2 lives. R1: P1 63 and stands after 1 throw (MX-4: one throw each), P2 42
    # loses 1. R2: P2 54 stands, P1 31 loses 1. R3: P1 Mexx and stands, P2 65 loses 2
    # (MX-5) and is out: P1 wins.
    "mex": (
        "throw 6 3", "roll", "stop",
        "throw 4 2", "roll",
        "throw 5 4", "roll", "stop",
        "throw 3 1", "roll",
        "throw 2 1", "roll", "stop",
        "throw 6 5", "roll",
    ),
    # mexico, 3 lives, 21 doubles the loss. R1: P1 63, P2 42 loses 1. R2: P2 21, P1 54
    # loses 2. R3: P1 31 then 66, P2 55 loses 1. R4: P2 32, P1 41: P2 out, P1 wins.
    "mexico": (
        "throw 6 3", "roll", "stop",
        "throw 4 2", "roll", "stop",
        "throw 2 1", "roll", "stop",
        "throw 5 4", "roll", "stop",
        "throw 3 1", "roll", "throw 6 6", "roll", "stop",
        "throw 5 5", "roll", "stop",
        "throw 3 2", "roll", "stop",
        "throw 4 1", "roll", "stop",
    ),
    # mexen, points, 2 rounds. R1: P1 63, leaves the 6 lying (HOLD, ROLL: the 6),
    # throws 65, then 41; P2 32 (turn over at once, MN-3): P2 takes the pot (1).
    # R2: P2 Mex on throw 1 (3 into the pot, MN-4: P1 gets 1 throw), P1 61 takes 4.
    # Fewest points wins: P2.
    "mexen": (
        "throw 6 3", "roll", "hold", "roll",
        "throw 6 5", "roll",
        "throw 4 1", "roll",
        "throw 3 2", "roll",
        "throw 2 1", "roll",
        "throw 6 1", "roll",
    ),
}  # fmt: skip

GAMES: tuple[str, ...] = tuple(DEMO_PLAYS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out", type=folder_arg, default=Path("out/demo"), help="folder for frames, GIFs and logs"
    )
    parser.add_argument(
        "--games",
        default=",".join(GAMES),
        help=f"which games, comma-separated (default: {','.join(GAMES)})",
    )
    parser.add_argument(
        "--frames",
        type=folder_arg,
        default=None,
        help="dice frames to replay, one per throw, named as in table/data/frames "
        "(dice_63.jpg, die_4.jpg; default: those shipped)",
    )
    parser.add_argument("--show", action="store_true", help="also print each screen as text")


def menu_presses(settings_json: dict[str, Any]) -> int:
    """How many ROLL presses take the menu from its first choice to a started game."""
    from table.service.ports import Button, ButtonPress
    from table.service.referee import Referee, Settings

    ref, _ = Referee.boot(Settings.from_json(settings_json))
    for n in range(1, 50):
        ref, out = ref.on_press(ButtonPress(Button.ROLL))
        if out.new_game is not None:
            return n
    raise RuntimeError("the menu never started a game")


def script_for(rules: str) -> list[str]:
    return ["roll"] * menu_presses(DEMO_SETTINGS[rules]) + list(DEMO_PLAYS[rules])


# A demo's folder (``--out``/RULES) holds this file; only such a folder is replaced.
MARK = ".dicetable-demo"


class DemoError(Exception):
    """The demo cannot be played where it was asked to be (the message says why)."""


@dataclass(frozen=True)
class DemoResult:
    rules: str
    log: Path | None
    pngs: int
    gif: Path | None
    view: dict[str, Any] | None
    seconds: float
    frames_read: int
    errors: tuple[str, ...] = ()  # what the table said went wrong (the camera, say)

    @property
    def over(self) -> bool:
        return bool(self.view and self.view.get("over"))


def standings(view: dict[str, Any]) -> str:
    rows = []
    for p in view.get("players", []):
        counters = [f"{k} {p[k]}" for k in ("lives", "points", "sips") if k in p]
        out = " (out)" if p.get("out") else ""
        rows.append(f"{p.get('name')}: {', '.join(counters)}{out}")
    winner = view.get("winner")
    head = f"winner {winner}" if winner else ("draw" if view.get("draw") else "no winner")
    return f"{head}; " + "; ".join(rows)


def play(
    rules: str,
    out_dir: Path,
    frames: Path | None = None,
    reader: Any = None,
    text_out: Any = None,
) -> DemoResult:
    """Play one scripted game through the table loop; files go to ``out_dir/rules``."""
    from table.game import replay
    from table.gamelog import load
    from table.hw.build import build
    from table.hw.script import parse_script
    from table.service.config import Config
    from table.service.loop import TableLoop, vision_parts
    from table.service.referee import Settings
    from table.service.resume import DataDir

    t0 = time.monotonic()
    root = out_dir / rules
    if root.exists() or root.is_symlink():
        if not (root / MARK).is_file() or root.is_symlink():
            raise DemoError(
                f"{root} exists and is not a demo's output (it has no {MARK}): "
                "nothing was changed; give another --out"
            )
        shutil.rmtree(root)  # the last demo's own files
    root.mkdir(parents=True)
    (root / MARK).write_text("written by dicetable demo; the next demo replaces this folder\n")
    data = DataDir(root / "data")
    data.prepare()
    data.save_settings(DEMO_SETTINGS[rules])
    cfg = Config()
    if reader is None:
        reader, settler = vision_parts(cfg.camera.settle_frames)
    else:
        from vision.settle import SettleConfig, Settler

        settler = Settler(SettleConfig(consistent_frames=cfg.camera.settle_frames))
    steps = parse_script(json.dumps(script_for(rules)))
    png_dir = root / "png"
    gif = root / "display.gif"
    parts = build(
        cfg,
        script=steps,
        frames=frames,
        png_dir=png_dir,
        gif_path=gif,
        text_out=text_out,
        force_stand_ins=True,
    )
    errors = io.StringIO()
    loop = TableLoop(
        data=data,
        settings=Settings.from_json(DEMO_SETTINGS[rules]),
        buttons=parts.buttons,
        display=parts.display,
        camera=parts.camera,
        reader=reader,
        settler=settler,
        seed=7,
        errors=errors,
    )
    assert parts.script is not None
    parts.script.wait_idle = loop.wait_idle
    parts.script.step_timeout_s = 10.0
    loop.run(seconds=120)
    logs = data.logs()
    log_path: Path | None = None
    view: dict[str, Any] | None = None
    if logs:
        log_path = root / f"{rules}.jsonl"
        shutil.copyfile(logs[-1], log_path)
        loaded = load(log_path)
        view = replay(loaded.header, loaded.events).view()
    pngs = len(parts.recorder.pngs) if parts.recorder is not None else 0
    return DemoResult(
        rules=rules,
        log=log_path,
        pngs=pngs,
        gif=gif if gif.exists() else None,
        view=view,
        seconds=time.monotonic() - t0,
        frames_read=loop.frames_read,
        errors=tuple(line for line in errors.getvalue().splitlines() if line.strip()),
    )


def run(args: argparse.Namespace) -> int:
    games = [g.strip() for g in str(args.games).split(",") if g.strip()]
    if not games:
        print(f"dicetable demo: --games names no game (demos: {', '.join(GAMES)})", file=sys.stderr)
        return 2
    unknown = [g for g in games if g not in DEMO_PLAYS]
    if unknown:
        print(
            f"dicetable demo: no demo for {unknown[0]!r} (demos: {', '.join(GAMES)})",
            file=sys.stderr,
        )
        return 2
    out_dir: Path = args.out
    from table.service.resume import check_writable

    fault = frames_fault(args.frames) if args.frames is not None else ""
    if fault:  # before the output folder is made: a refused demo leaves none behind
        print(f"dicetable demo: --frames {args.frames}: {fault}", file=sys.stderr)
        return 2
    try:  # before the output folder is made, too
        from table.service.loop import vision_parts

        reader, _ = vision_parts(3)
    except Exception as exc:
        print(f"dicetable demo: the pip reader cannot start ({exc})", file=sys.stderr)
        return 2
    try:
        check_writable(out_dir)
    except OSError as exc:
        print(f"dicetable demo: cannot write to {out_dir} ({exc.strerror})", file=sys.stderr)
        return 2
    failed = 0
    for rules in games:
        text_out = sys.stdout if args.show else None
        try:
            result = play(rules, out_dir, args.frames, reader=reader, text_out=text_out)
        except DemoError as exc:
            print(f"dicetable demo: {exc}", file=sys.stderr)
            return 2
        except OSError as exc:
            print(f"dicetable demo: {rules}: cannot write its files ({exc})", file=sys.stderr)
            return 2
        for line in result.errors[:3]:
            print(f"  {rules}: {line}")
        if result.view is None:
            print(f"{rules}: no game was played (see {out_dir / rules})")
            failed += 1
            continue
        state = "over" if result.over else "NOT finished"
        print(
            f"{rules}: game {state} in {result.seconds:.1f} s, "
            f"{result.frames_read} frames read; {standings(result.view)}"
        )
        gif = f"GIF {result.gif}" if result.gif is not None else "no GIF (not written)"
        print(f"  log {result.log}, {result.pngs} screens in {out_dir / rules / 'png'}, {gif}")
        if not result.over:
            failed += 1
    return 1 if failed else 0
