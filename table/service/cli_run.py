"""``dicetable run``: the table itself.

On a Raspberry Pi with the buttons, the OLED and the camera it runs the real
table (as the systemd service does). Anywhere else it picks stand-ins by itself
and says so in one line: keyboard buttons, the display in the terminal, a
camera that replays real photos of dice (``table/data/frames``).

    dicetable run                         # the table (or stand-ins off a Pi)
    dicetable run --keys                  # keyboard buttons: r h s, R H S long, q quit
    dicetable run --script game.json      # presses (and throws) from a script
    dicetable run --data /tmp/t --png-dir /tmp/t/png --seconds 60

A bad config, data folder or script ends with one line naming it and exit 2.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from table.hw.script import quoted
from table.service.config import (
    Config,
    ConfigError,
    CpuDice,
    config_path,
    display_for_faults,
    load_config,
)

if TYPE_CHECKING:
    from table.service.resume import DataDir


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="PATH", help="config file (default: see README)")
    how = parser.add_mutually_exclusive_group()
    how.add_argument(
        "--keys",
        action="store_true",
        help="keyboard buttons (r h s; R H S long; 1 2 3 very long; q quit)",
    )
    how.add_argument("--script", metavar="FILE", help="play presses and throws from a script")
    parser.add_argument(
        "--frames",
        metavar="DIR",
        type=folder_arg,
        help="replay these dice frames instead of a camera: one per throw, named as in "
        "table/data/frames (dice_63.jpg, die_4.jpg); to replay photos of your own, one a "
        'throw in name order, set camera.source = "folder:PATH" in the config',
    )
    parser.add_argument(
        "--data", metavar="DIR", type=folder_arg, help="data folder (logs, settings)"
    )
    parser.add_argument(
        "--png-dir", metavar="DIR", type=folder_arg, help="save every screen as PNG"
    )
    parser.add_argument("--gif", metavar="PATH", type=_file, help="save the screens as a GIF")
    parser.add_argument("--seconds", metavar="N", type=_seconds, help="stop after N seconds")
    parser.add_argument("--seed", type=_seed, help="seed for software dice (default: the clock)")
    parser.add_argument(
        "--state-json", metavar="PATH", type=_file, help="write the game's state at start and end"
    )
    parser.add_argument(
        "--stand-ins",
        action="store_true",
        help="never touch hardware, even on a Pi (a folder: or video: camera is still read)",
    )


def initial_settings(cfg: Config, saved: Mapping[str, Any] | None) -> Any:
    """The menu's starting choices: the last ones saved, else the config's [game]. The
    seats' names always come from the config's [game] players."""
    from dataclasses import replace

    from table.service.referee import MENU_RULES, Settings

    game = cfg.game
    configured = {
        "rules": game.rules,
        "players": len(game.players),
        "cpus": [p.cpu for p in game.players if p.cpu is not None],
        "options": dict(game.options),
    }
    # Saved choices that name no rule set ({} left by a cut write, a rule set since
    # removed) are no choices: they gave mexico, whatever the config's [game] said.
    if isinstance(saved, Mapping) and saved.get("rules") in MENU_RULES:
        settings = Settings.from_json(saved)
    else:
        settings = Settings.from_json(configured)
    return replace(
        settings,
        names=tuple(p.name for p in game.players if p.cpu is None),
        cpu_names=tuple(p.name for p in game.players if p.cpu is not None),
    )


def folder_arg(text: str) -> Path:
    """A folder argument; an empty one (an unset shell variable) is no folder: as a Path
    it is the current folder, which got the PNGs, the GIF, a demo's games."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path is no folder")
    return Path(text)


def _file(text: str) -> Path:
    """A file argument; an empty one is no file."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path is no file")
    return Path(text)


def _seed(text: str) -> int:
    """A whole number; argparse's own int check quoted a bad one whole (5000 characters
    on the one line)."""
    try:
        return int(text)
    except ValueError:
        digits = text.strip().lstrip("+-")
        if digits.isascii() and digits.isdigit():  # past 4300 digits int() refuses it
            raise argparse.ArgumentTypeError(
                f"a number of {len(digits)} digits is too long"
            ) from None
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a whole number") from None


def _seconds(text: str) -> float:
    """A run's length: a finite number of seconds, more than 0. "nan" compares false with
    every clock reading, so such a run never stopped; "inf" is no limit (leave it out)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a number of seconds more than 0 (leave it out to run until stopped)"
        )
    return value


def stop_on_signal(stop: Callable[[str], None]) -> Callable[[int, FrameType | None], None]:
    """A SIGTERM / SIGINT / SIGHUP handler that calls ``stop`` with the signal's name.

    Python runs a handler in the main thread between two steps of whatever that thread
    was doing: the loop's consumer, perhaps inside the loop's lock or its queue's, and
    neither is reentrant. Called from there, ``stop`` would wait for good on a lock its
    own thread holds; from a thread of its own it waits until the consumer lets go."""

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        threading.Thread(target=stop, args=(name,), name="stop", daemon=True).start()

    return on_signal


# The longest message a fault prints whole. A path or value pasted by mistake can run to
# hundreds of kB, and appear twice in one message (the camera's reason repeats its path):
# its start and end are kept, which name the key and what is allowed.
LONGEST_FAULT = 600


def _cut(text: str) -> str:
    """``text``, or its start and end if it is longer than ``LONGEST_FAULT``."""
    if len(text) <= LONGEST_FAULT:
        return text
    return f"{text[:300]} ...({len(text) - 450} characters left out)... {text[-150:]}"


def _fail(text: str, status: int = 2) -> int:
    """Say why the table does not start, on one line (a library's error may hold line
    breaks); ``status`` to exit with."""
    from table.service.screens import escaped

    print(f"dicetable run: {_cut(escaped(text.strip()))}", file=sys.stderr)
    return status


IN_USE = 75
"""Exit status of a run by hand when another table holds the data folder (EX_TEMPFAIL:
nothing is wrong with its config; it can start once the other has stopped)."""

FIX_HINT = "fix it, restart"  # the OLED's last line under a fault that stops the table


def _start_fault(
    args: argparse.Namespace, text: str, shown: str, title: str = "cannot start"
) -> int:
    """The table cannot start, and starting again changes nothing (exit 2, which the
    service does not restart): ``text`` for the journal, ``shown`` left on the OLED (if
    there is one, and not ``--stand-ins``) for the person at the table."""
    if not args.stand_ins:
        from table.hw.build import show_fault

        show_fault(display_for_faults(args.config), title, _cut(shown), FIX_HINT)
    return _fail(text)


def _config_fault(args: argparse.Namespace, exc: ConfigError) -> int:
    """A config the table cannot start with: one line for the journal, and the same,
    shortened, left on the OLED (``_start_fault``)."""
    from table.service.screens import Message, overflow

    text = _cut(str(exc))  # a screen of 100 kB took seconds to lay out
    path = config_path(args.config, os.environ)
    if path is not None:
        text = text.removeprefix(f"{path}: ")
    title = "config error"
    if overflow(Message(title, text, FIX_HINT)):  # what is allowed only if room
        text = text.split(" (allowed:", 1)[0]
        if overflow(Message(title, text, FIX_HINT)) and exc.short:  # fewer words
            text = exc.short
    return _start_fault(args, str(exc), text, title)


def frames_fault(folder: Path) -> str:
    """Why ``--frames`` cannot be replayed ("" if it can): found now, not at the first
    throw ("no frame dice_44.jpg")."""
    from table.hw.camera import frame_files

    if not folder.exists():
        return "no such folder"
    if not folder.is_dir():
        return "not a folder"
    try:
        frames = frame_files(folder)
    except OSError as exc:
        return f"cannot list it ({exc.strerror or exc})"
    if not frames:
        return "no frames in it (named dice_63.jpg, die_4.jpg, empty.jpg as in table/data/frames)"
    return ""


DATA_WAIT_S = 5.0
"""How often the service looks again at a data folder another table holds."""


WAITING = ("waiting", "data folder in use", "by another dicetable")
"""The OLED's screen while the service waits for its data folder (title, text, hint)."""


def _take_data(data: DataDir, on_wait: Callable[[], object] = lambda: None) -> int | None:
    """Hold the data folder (``DataDir.lock``): None once it is held, else the exit
    status. A run by hand finds it held and says so (``IN_USE``). The service (under
    systemd) waits instead, saying why in its status, until the table that holds it
    stops: exiting, it would be restarted every 2 s until systemd gave up on it
    (StartLimitBurst), and the table would stay dark after the other had stopped.
    ``on_wait`` is called once, when the waiting starts (the OLED says so)."""
    from table.notify import SystemdNotifier
    from table.service.resume import DataInUse

    service = SystemdNotifier()
    said = False
    try:
        while True:
            try:
                data.lock()
                return None
            except DataInUse as exc:
                who = f" (process {exc})" if str(exc) else ""
                text = f"the data folder {data.root} is in use by another dicetable{who}"
                if not service.enabled:
                    return _fail(
                        f"{text}; stop it first (the service: sudo systemctl "
                        "stop dicetable), or give another --data",
                        IN_USE,
                    )
                if not said:
                    on_wait()
                    print(
                        f"dicetable run: {text}; waiting until it stops",
                        file=sys.stderr,
                        flush=True,
                    )
                    said = True
                service.status(f"waiting: {text}")
                service.extend_timeout(3 * DATA_WAIT_S)  # still starting, not hung
                time.sleep(DATA_WAIT_S)
            except OSError as exc:
                return _fail(f"cannot lock the data folder {data.root} ({exc.strerror or exc})")
    finally:
        service.close()


def _other_owner(folder: Path) -> str:
    """The name of the user ``folder`` belongs to when this run is root's and the folder
    another user's (the service's /var/lib/dicetable under sudo), else ""."""
    if os.geteuid() != 0:
        return ""
    try:
        uid = folder.stat().st_uid
    except OSError:
        return ""  # not there yet: made now, root's, as it should be
    if uid == 0:
        return ""
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def run(args: argparse.Namespace) -> int:
    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        return _config_fault(args, exc)

    from table.hw.script import ScriptError, load_script
    from table.service.resume import DataDir, check_writable

    # What can be refused without writing anything is, first: a refused run leaves no
    # folders behind.
    script = None
    if args.script is not None:
        try:
            script = load_script(args.script)
        except ScriptError as exc:
            return _fail(str(exc))
    if args.frames is not None:
        fault = frames_fault(args.frames)
        if fault:
            return _fail(f"--frames {args.frames}: {fault}")
    gif = args.gif
    if gif is None and args.png_dir is not None:
        gif = args.png_dir / "display.gif"
    if args.gif is not None and args.gif.suffix.lower() != ".gif":
        # Pillow picks the format by the name, at the end of the run: a GIF named .txt
        # was a line about an unknown file extension after the whole game, and exit 0.
        return _fail(f"--gif {args.gif}: a GIF's name ends in .gif")
    for option, path in (("--gif", args.gif), ("--state-json", args.state_json)):
        # A file is written beside and renamed over it: over a folder that fails at the
        # end, and over a device (--state-json /dev/full) it replaces the device.
        if path is not None and path.exists() and not path.is_file():
            return _fail(f"{option} {path}: not a file (a folder or a device)")

    data = DataDir(args.data if args.data is not None else cfg.table.data_dir)
    fault = _replaces_the_tables_own(data, args, gif)
    if fault:
        return _fail(fault)
    owner = _other_owner(data.root)
    if owner:
        return _fail(
            f"the data folder {data.root} is {owner}'s: run as root, the game logs and "
            f"settings written there would be root's, and the table running as {owner} "
            f"could not write them after; run it as {owner} (sudo -u {owner} dicetable "
            "run ...), or give another --data"
        )
    where = data.root
    try:
        check_writable(where)
        where = data.games  # the game logs: written at every event
        check_writable(where)
    except OSError as exc:
        return _start_fault(
            args,
            f"cannot use the data folder {where} ({exc.strerror or exc}); "
            "set table.data_dir, DICETABLE_DATA or --data",
            f"data folder {where}: {exc.strerror or exc}",
        )

    def waiting() -> None:
        if not args.stand_ins:
            from table.hw.build import show_fault

            show_fault(display_for_faults(args.config), *WAITING)

    status = _take_data(data, waiting)
    if status is not None:
        return status
    try:
        return _run_table(args, cfg, data, script, gif)
    finally:
        data.unlock()  # the table has stopped: another run of this process may take it


def _replaces_the_tables_own(data: DataDir, args: argparse.Namespace, gif: Path | None) -> str:
    """Why ``--gif`` or ``--state-json`` names a file the table reads, or ``--png-dir`` a
    folder among the game logs, or "". Either file is written over: ``--state-json
    DATA/games/current`` made the next start set the game in progress aside, over the
    config file the next start found no TOML, over ``settings.json`` the menu's choices
    were gone. Screens among the game logs would be a thousand PNGs beside them."""
    from table.service.config import config_path
    from vision.sources import real_path as real

    own = {
        real(path): what
        for path, what in (
            *data.own_files(),
            (config_path(args.config, os.environ), "the config file"),
            (args.script, "the script"),
        )
        if path is not None
    }
    games = real(data.games)
    outputs = (("--gif", gif), ("--state-json", args.state_json), ("--png-dir", args.png_dir))
    for option, path in outputs:
        if path is None:
            continue
        where = real(path)
        if where in own:
            return f"{option} {path}: that is {own[where]}, which it would be written over"
        if games == where or games in where.parents:
            return f"{option} {path}: that is in {data.games}, the game logs' folder"
    return ""


def _run_table(
    args: argparse.Namespace, cfg: Config, data: DataDir, script: Any, gif: Path | None
) -> int:
    """The table on its locked data folder, from its outputs' folders to its end."""
    from table.service.resume import check_writable

    outputs = (
        ("--png-dir", args.png_dir),
        ("--gif", gif.parent if gif is not None else None),
        ("--state-json", args.state_json.parent if args.state_json is not None else None),
    )
    for option, folder in outputs:  # found out now, not at the first screen or at the end
        if folder is None:
            continue
        try:
            check_writable(folder)
        except OSError as exc:
            return _fail(f"{option}: cannot write to {folder} ({exc.strerror or exc})")

    try:
        from table.service.loop import TableLoop, vision_parts

        reader, settler = vision_parts(cfg.camera.settle_frames)
    except ImportError as exc:
        text = f"the pip reader cannot be loaded ({str(exc).strip()})"
        return _start_fault(args, text, text)
    except Exception as exc:  # e.g. a model file missing or unreadable
        text = f"the pip reader cannot start ({type(exc).__name__}: {str(exc).strip()})"
        return _start_fault(args, text, text)

    from table.hw.build import GpioUnavailable, RandomThrows, build
    from table.hw.keys import KeyButtons
    from table.notify import SystemdNotifier

    try:
        parts = build(
            cfg,
            keys=args.keys,
            script=script,
            frames=args.frames,
            png_dir=args.png_dir,
            gif_path=gif,
            force_stand_ins=args.stand_ins,
            seed=args.seed,
            text_out=sys.stdout,  # the streams of now, not of when build was imported
        )
    except ConfigError as exc:  # a camera the config names that cannot be opened
        return _config_fault(args, exc)
    except GpioUnavailable as exc:  # on a Pi: no keyboard to stand in for the buttons
        if exc.pin:
            return _start_fault(args, f"buttons: {exc}", str(exc))
        return _start_fault(
            args, f"buttons: no GPIO ({exc}); --keys plays with the keyboard", f"buttons: {exc}"
        )
    if parts.notes:
        print(f"dicetable: {parts.summary}", file=sys.stderr, flush=True)

    notifier = SystemdNotifier()
    seed = args.seed if args.seed is not None else int(time.time())
    loop = TableLoop(
        data=data,
        settings=initial_settings(cfg, data.load_settings()),
        buttons=parts.buttons,
        display=parts.display,
        camera=parts.camera,
        reader=reader,
        settler=settler,
        notifier=notifier,
        seed=seed,
        cpu_dice_by_hand=cfg.table.cpu_dice is CpuDice.TABLE,
        tick_s=notifier.watchdog_interval or 5.0,
        state_path=args.state_json,
        errors=sys.stderr,
    )

    def say(text: str) -> None:
        print(f"dicetable: {text}", file=sys.stderr, flush=True)

    if parts.script is not None:
        parts.script.wait_idle = loop.wait_idle
        parts.script.note = say
    if isinstance(parts.buttons, KeyButtons):
        parts.buttons.note = say
    pick = getattr(parts.camera, "pick", None)
    if isinstance(pick, RandomThrows):  # keyboard play: throws as the table wants them
        pick.ask = loop.dice_wanted

    on_signal = stop_on_signal(loop.stop)
    # SIGHUP: the terminal was closed; the table stops as on Ctrl-C (its GIF written,
    # the terminal's modes given back) instead of dying on the spot.
    stops = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
    old = {s: signal.signal(s, on_signal) for s in stops}
    try:
        loop.boot()
        if parts.scripted_camera is not None and loop.referee is not None:
            last = loop.referee.last_roll
            lying = tuple((d.value, d.center) for d in last if d.value is not None)
            parts.scripted_camera.left_lying(lying)
        if loop.resumed is not None:
            resumed = loop.resumed
            torn = resumed.game.torn  # cut off the log by the resume, kept beside it
            game = loop.referee.game if loop.referee is not None else None
            name, n = resumed.path.name, len(resumed.game.events)
            said = (  # a cut after a game's last event, before games/current was removed
                f"the game {name} had ended ({n} events): its end is shown"
                if game is not None and game.is_over
                else f"resumed the unfinished game {name} ({n} events)"
            )
            if torn:
                said += f"; {torn}: its bytes are in {name}.torn"
            original = loop.writer.original if loop.writer is not None else None
            if original is not None:
                said += f"; it was one JSON object, now lines: as it was, it is {original.name}"
            if parts.script is not None:
                said += "; the script's steps play on from where it stands"
            print(f"dicetable: {said}", file=sys.stderr, flush=True)
        reason = loop.run(args.seconds)
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        notifier.close()
    if os.environ.get("DICETABLE_DEBUG"):
        print(f"dicetable: stopped ({reason or 'quit'})", file=sys.stderr)
    return 0
