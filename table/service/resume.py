"""The table's data folder: game logs, the open game, remembered settings.

::

    DATA/games/20261129-201502.jsonl   one JSON Lines log per game (GAME_LOG.md)
    DATA/games/current                 the name of the log of the game in progress
    DATA/settings.json                 the menu's last choices
    DATA/tray.json                     the dice of the last throw read, where they lay
    DATA/entry.json                    mythical: the bids entered so far this round

A game is unfinished while ``games/current`` names its log: the pointer is
written (atomically) right after the log's header, and removed once the game
is over and its end has been seen (a press left it, or the table was stopped on
purpose). At start the table loads that log (a torn last line survives),
resumes the game from it and goes on appending to it; a game that is over is
shown at its end again.

``tray.json`` belongs to no game: it tells the table, once started again, where the
last throw's dice lay, so that ROLL pressed over them unrolled is no throw after a
power cut either (the log holds values, not places). It is written before the
throw's event is logged; a missing or unreadable one only means that the first throw
is not checked so. It keeps the size of the frame the dice were read in: when the
camera gives frames of another size after the restart (its size changed in the
config), the places are scaled to it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import math
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from table.game import GameHeader
from table.gamelog import (
    LoadedGame,
    LogError,
    LogUnreadable,
    LogWriter,
    atomic_write,
    brief,
    fsync_dir,
    load,
    read_small,
)
from vision.types import DieReading

CURRENT = "current"
TRAY = "tray.json"
ENTRY = "entry.json"
# The most any of the small files (settings, games/current, tray.json) is read for: they
# hold a few hundred bytes; a bigger one is damaged, and is said so, not read whole.
SMALL_FILE = 1 << 20


def check_writable(folder: Path) -> None:
    """Make ``folder`` (and its parents) if needed and write and remove a file in it:
    OSError now, before anything depends on writing there (a file in its place is no
    folder: NotADirectoryError, not mkdir's "File exists")."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder)) from None
    probe = folder / f".dicetable-write-test-{os.getpid()}"
    probe.write_bytes(b"")
    probe.unlink()


@dataclass(frozen=True)
class Unfinished:
    """A game to resume: its log and what the log holds (``game.torn`` tells of a torn line)."""

    path: Path
    game: LoadedGame


@dataclass(frozen=True)
class Tray:
    """What ``tray.json`` remembers (``DataDir.save_tray``): the dice of the last throw
    read and the size of the frame they were read in, where the readings not counted
    since saw dice, and what was wrong with the file if its dice could not be used (then
    none). The refused places are used or not on their own: none if anything is amiss
    with them, and ``refused_problem`` says what."""

    dice: tuple[DieReading, ...] = ()
    frame: tuple[int, int] | None = None
    refused: tuple[DieReading, ...] = ()
    problem: str | None = None
    refused_problem: str | None = None


@dataclass(frozen=True)
class Unusable:
    """The unfinished game's log (or ``games/current``, which names it), which could not
    be loaded. ``kept``: it is still the game in progress (it could not be read, or not
    be renamed: an I/O error may pass, so the next start tries again); otherwise it was
    set aside as ``path`` (``.bad``) and forgotten."""

    path: Path
    reason: str
    kept: bool
    what: str = "log"  # what was kept or set aside, for the display

    def text(self) -> str:
        """One line for the journal."""
        if self.kept:
            return f"{self.reason}; kept, tried again at the next start"
        return f"{self.reason}; set aside as {self.path.name}"

    def brief(self) -> str:
        """For the display, what became of the log first (its end may not fit)."""
        why = self.reason.split(": ", 1)[-1]  # without the log's name
        if self.kept:
            return f"{self.what} kept for the next start: {why}"
        return f"{self.what} set aside: {why}"


def _named(exc: LogError, path: Path) -> str:
    """A load error's message with the log's name for its path (a display is narrow)."""
    return str(exc).replace(str(path), path.name, 1)


LOCK = ".lock"
"""The file a table holds locked while it uses the data folder (``DataDir.lock``)."""


class DataInUse(Exception):
    """Another process holds the data folder; ``str()`` is its process id, or ""."""


def _running(pid: str) -> bool:
    """Whether ``pid`` (as ``.lock`` holds it) names a process that is running. A table
    that may not write ``.lock`` (made by a run as root) holds the lock without writing
    its id there, and the id left in it is that of a run long gone."""
    if not (pid.isascii() and pid.isdigit()) or int(pid) == 0:
        return False
    try:
        os.kill(int(pid), 0)
    except (ProcessLookupError, OverflowError):  # none of that id, or past any id
        return False
    except PermissionError:  # another user's
        return True
    return True


def _open_no_link(path: Path, *, writable: bool) -> TextIO:
    """``path`` opened as the table's own file, never through a symbolic link: the lock
    file is emptied and given the process id, and a ``.lock`` linked to another file
    (run as root: /etc/passwd) wrote that id over it. A link is an OSError that says so."""
    flags = (os.O_RDWR | os.O_CREAT) if writable else os.O_RDONLY
    try:
        # 0o666 as open() makes a file: the umask decides (the service's: 0640)
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, f"{path.name} is a symbolic link", str(path)) from None
        raise
    return open(fd, "r+" if writable else "r", encoding="utf-8")


class DataDir:
    """Where the table keeps its files (``table.data_dir`` in the config)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.games = root / "games"
        self.settings_path = root / "settings.json"
        self.current_path = self.games / CURRENT
        self.tray_path = root / TRAY
        self.entry_path = root / ENTRY
        self._held: TextIO | None = None  # the locked .lock file (lock())

    def own_files(self) -> tuple[tuple[Path, str], ...]:
        """The files the table keeps here besides the game logs' folder (``games``), each
        with what it holds: nothing else may write them."""
        return (
            (self.settings_path, "the menu's saved choices"),
            (self.tray_path, "the dice the table remembers in the tray"),
            (self.entry_path, "the bids entered so far"),
            (self.root / LOCK, "the data folder's lock"),
        )

    def prepare(self) -> None:
        """Create the folders; OSError (e.g. read-only) goes to the caller."""
        self.games.mkdir(parents=True, exist_ok=True)

    def lock(self) -> None:
        """Hold the data folder for as long as this object lives (or until
        :meth:`unlock`), or raise :class:`DataInUse`.

        Two tables on one folder (the service, and a ``dicetable run --keys`` started by
        hand beside it) would both resume the unfinished game and append to its one log, each
        its own events: a log that is neither's game. The lock is the kernel's
        (``flock``) on ``.lock``: it goes with the process however that ends, so
        a power cut or a kill leaves no stale lock."""
        if self._held is not None:
            return
        self.root.mkdir(parents=True, exist_ok=True)
        try:
            held = _open_no_link(self.root / LOCK, writable=True)
        except PermissionError:
            # Made by another user (a run with sudo beside the service's own user): a
            # lock needs no writing, only the file open.
            held = _open_no_link(self.root / LOCK, writable=False)
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            held.seek(0)
            holder = held.read(32).strip()
            held.close()
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                raise DataInUse(holder if _running(holder) else "") from None
            raise
        if held.writable():
            held.seek(0)
            held.truncate()
            held.write(f"{os.getpid()}\n")
            held.flush()
        self._held = held

    def unlock(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            held.close()  # closing the file lets the lock go

    # -- settings ----------------------------------------------------------

    def load_settings(self) -> dict[str, Any] | None:
        return _small_json_object(self.settings_path)

    def save_settings(self, obj: dict[str, Any]) -> None:
        atomic_write(self.settings_path, (json.dumps(obj, indent=1) + "\n").encode("utf-8"))

    # -- the tray ------------------------------------------------------------

    def save_tray(
        self,
        dice: tuple[DieReading, ...],
        frame: tuple[int, int] | None = None,
        refused: tuple[DieReading, ...] = (),
    ) -> None:
        """Remember the dice of the last throw read, where they lay, and the size (width,
        height) of the frame they were read in, and where the last reading not counted
        since saw dice (``Referee.refused_roll``: to be thrown again); OSError to the
        caller."""
        obj: dict[str, Any] = {"dice": [d.to_json() for d in dice]}
        if frame is not None:
            obj["frame"] = list(frame)
        if refused:
            obj["refused"] = [d.to_json() for d in refused]
        atomic_write(self.tray_path, (json.dumps(obj) + "\n").encode("utf-8"))

    def load_tray(self) -> Tray:
        """What ``save_tray`` remembered; nothing if there is no file."""
        try:
            data = read_small(self.tray_path, SMALL_FILE)
        except (FileNotFoundError, NotADirectoryError):
            return Tray()
        except OSError as exc:
            return Tray(problem=f"{TRAY}: cannot read ({exc.strerror or exc})")
        try:
            obj = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return Tray(problem=f"{TRAY}: not JSON")
        refused, amiss = _tray_refused(obj)
        try:
            return Tray(_tray_dice(obj), _tray_frame(obj), refused, refused_problem=amiss)
        except TrayError as exc:
            return Tray(refused=refused, problem=f"{TRAY}: {exc}", refused_problem=amiss)

    # -- the bids being entered --------------------------------------------

    def save_entry(self, log: str, events: int, bids: tuple[int, ...]) -> None:
        """Remember the bids entered so far (mythical logs a round's bids only once all
        are in, MY-3), with the name of the game's log and how many events it held then;
        OSError to the caller."""
        obj = {"log": log, "events": events, "bids": list(bids)}
        atomic_write(self.entry_path, (json.dumps(obj) + "\n").encode("utf-8"))

    def load_entry(self, log: str, events: int) -> tuple[int, ...]:
        """The bids ``save_entry`` remembered, if they were entered in the game of the
        log named ``log`` when it held ``events`` events (else they belong to another
        game or another moment of it); none if anything is amiss."""
        obj = _small_json_object(self.entry_path)
        if obj is None or obj.get("log") != log:
            return ()
        count = obj.get("events")
        if type(count) is not int or count != events:  # not true, not 0.0
            return ()
        bids = obj.get("bids")
        if not isinstance(bids, list) or not all(type(b) is int and 0 <= b <= 99 for b in bids):
            return ()
        return tuple(bids)

    # -- games -------------------------------------------------------------

    def new_log(self, header: GameHeader, now: float | None = None) -> LogWriter:
        """Create the log of a new game and mark it as the one in progress."""
        self.prepare()
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
        path = self.games / f"{stamp}.jsonl"
        n = 2
        while _taken(path):
            path = self.games / f"{stamp}-{n}.jsonl"
            n += 1
        writer = LogWriter.create(path, header)
        try:
            atomic_write(self.current_path, (path.name + "\n").encode("utf-8"))
        except OSError:  # not marked in progress, the game does not start: nor does its log
            writer.discard()
            raise
        return writer

    def finish(self) -> None:
        """The game in progress is over: nothing to resume any more. OSError (other than
        no mark to remove) goes to the caller; a mark left behind names a game that is
        over, which the next start shows at its end and then removes."""
        with contextlib.suppress(FileNotFoundError):
            self.current_path.unlink()
            fsync_dir(self.games)

    def current(self) -> Path | None:
        """The log of the unfinished game, if any."""
        try:
            return named_log(self.current_path)
        except LogError:
            return None

    def unfinished(self) -> Unfinished | Unusable | None:
        """The unfinished game, loaded; None if there is none.

        A log that holds no game (not JSON, an unknown event, empty) is set aside
        (``.bad``) and forgotten, so the table starts instead of failing on it at
        every boot, and so is a ``games/current`` that names no log (``current.bad``);
        one that could not be read is left as it is. Either way the caller is told
        why (``Unusable``): a game is never given up in silence.
        """
        try:
            path = named_log(self.current_path)
        except LogUnreadable as exc:  # the game in progress is not forgotten for it
            return Unusable(self.current_path, str(exc), kept=True)
        except LogError as exc:  # what it said is kept, and said
            aside = self.set_aside(self.current_path)
            kept = aside == self.current_path
            return Unusable(aside, str(exc), kept=kept, what="log" if kept else CURRENT)
        if path is None:
            return None
        try:
            loaded = load(path)
        except LogUnreadable as exc:
            return Unusable(path, _named(exc, path), kept=True)
        except LogError as exc:
            bad = self.set_aside(path)
            if bad == path:  # not renamed: it stays the game in progress
                return Unusable(path, _named(exc, path), kept=True)
            self.finish()
            return Unusable(bad, _named(exc, path), kept=False)
        return Unfinished(path, loaded)

    def set_aside(self, path: Path, end: str = ".bad") -> Path:
        """Rename ``path`` to its name with ``end`` after it (``-2`` before ``end`` if
        that is taken: nothing set aside before is replaced); ``path`` if it cannot be
        renamed."""
        aside = path.with_name(path.name + end)
        n = 2
        try:
            while aside.exists() or aside.is_symlink():
                aside = path.with_name(f"{path.name}-{n}{end}")
                n += 1
            path.rename(aside)
        except OSError:  # e.g. a name that is too long with the end added
            return path
        fsync_dir(self.games)
        return aside

    def logs(self) -> list[Path]:
        """Every game log, oldest first."""
        if not self.games.is_dir():
            return []
        return sorted(self.games.glob("*.jsonl"), key=_started)


class TrayError(ValueError):
    """``tray.json`` is JSON, but not the dice ``DataDir.save_tray`` writes."""


def _small_json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in one of the data folder's small files; None if it is missing,
    unreadable, no JSON, nested too deeply or not an object."""
    try:
        obj = json.loads(read_small(path, SMALL_FILE).decode("utf-8"))
    except (OSError, ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    return obj if isinstance(obj, dict) else None


def _tray_frame(obj: Any) -> tuple[int, int] | None:
    """The frame size of a ``tray.json`` object, if it has a sound one."""
    frame = obj.get("frame") if isinstance(obj, dict) else None
    if (
        isinstance(frame, list)
        and len(frame) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and 0 < v < 100_000 for v in frame)
    ):
        return frame[0], frame[1]
    return None


def scaled_tray(
    dice: tuple[DieReading, ...], saved: tuple[int, int], now: tuple[int, int]
) -> tuple[DieReading, ...]:
    """The dice of a frame ``saved`` (width, height) where they lie in one of size
    ``now``: the same view at another resolution (the camera's size changed in the
    config before a restart)."""
    sx, sy = now[0] / saved[0], now[1] / saved[1]
    out = []
    for d in dice:
        (bx, by), (bw, bh), angle = d.box
        out.append(
            replace(
                d,
                center=(d.center[0] * sx, d.center[1] * sy),
                box=((bx * sx, by * sy), (bw * sx, bh * sy), angle),
            )
        )
    return tuple(out)


def _tray_refused(obj: Any) -> tuple[tuple[DieReading, ...], str | None]:
    """Where the readings not counted saw dice, of a ``tray.json`` object, and what is
    amiss with them if anything is (then none: the last throw's dice are checked as
    before)."""
    if not isinstance(obj, dict) or "refused" not in obj:
        return (), None
    try:
        return _tray_dice(obj, "refused"), None
    except TrayError as exc:
        return (), f"{TRAY}: the places of dice not counted: {exc}"


def _tray_dice(obj: Any, key: str = "dice") -> tuple[DieReading, ...]:
    """The dice of a ``tray.json`` object (``refused``: of a reading not counted, where
    a die may have no value); TrayError saying what is wrong."""

    def number(v: Any) -> float:
        if not isinstance(v, bool) and isinstance(v, int | float):
            try:
                f = float(v)  # an integer of hundreds of digits: OverflowError
            except OverflowError:
                f = math.inf
            if math.isfinite(f):
                return f
        raise TrayError(f"{brief(v)} is not a number")

    def pair(v: Any) -> tuple[float, float]:
        if not isinstance(v, list) or len(v) != 2:
            raise TrayError(f"{brief(v)} is not two numbers")
        return number(v[0]), number(v[1])

    if not isinstance(obj, dict) or not isinstance(obj.get(key), list):
        raise TrayError(f'no "{key}" list')
    dice: list[DieReading] = []
    for d in obj[key]:
        if not isinstance(d, dict):
            raise TrayError(f"a die is {brief(d)}")
        value = d.get("value")
        unread = key == "refused" and value is None
        bad = isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6
        if bad and not unread:
            raise TrayError(f"a die value of {brief(value)}, not 1-6")
        box = d.get("box")
        if not isinstance(box, list) or len(box) != 3:
            raise TrayError(f"a box {brief(box)}, not [[x, y], [w, h], angle]")
        (w, h) = pair(box[1])
        if w <= 0 or h <= 0:
            raise TrayError(f"a box of {w:g} x {h:g}")
        center = pair(d.get("center"))
        conf = number(d.get("confidence", 1.0))
        dice.append(DieReading(value, center, (pair(box[0]), (w, h), number(box[2])), conf))
    return tuple(dice)


def named_log(pointer: Path) -> Path | None:
    """The log beside ``pointer`` that it names, as ``games/current`` names the game in
    progress; None if there is no ``pointer``. LogUnreadable if it cannot be read,
    LogError if it names no log."""
    mark = pointer.name
    try:
        data = read_small(pointer, SMALL_FILE)
    except (FileNotFoundError, NotADirectoryError):
        if pointer.is_symlink():  # a link to nothing: it names no log, and is said so
            raise LogError(f"{mark}: a link to a file that is not there") from None
        return None
    except OSError as exc:
        raise LogUnreadable(f"{mark}: cannot read ({exc.strerror or exc})") from None
    try:
        name = data.decode("utf-8").removeprefix("\ufeff").strip()  # an editor's BOM
    except UnicodeDecodeError:
        raise LogError(f"{mark}: not UTF-8 text") from None
    if not name:
        raise LogError(f"{mark}: it is empty")
    shown = json.dumps(name, ensure_ascii=False)
    if len(shown) > 40:
        shown = shown[:37] + "..."
    if "/" in name:
        raise LogError(f"{mark}: names {shown}, not a log")
    path = pointer.parent / name
    try:
        if path.is_file():
            return path
        missing = not path.exists() and not path.is_symlink()
    except OSError as exc:  # not a name a file can have, or a folder it may not enter
        if exc.errno == errno.ENAMETOOLONG:
            raise LogError(f"{mark}: names {shown}, a name too long for a file") from None
        raise LogUnreadable(f"{mark}: names {shown}: {exc.strerror or exc}") from None
    raise LogError(f"{mark}: names {shown}, {'no such log' if missing else 'not a log'}")


def _taken(path: Path) -> bool:
    """A log's name is in use while the log, or what was set aside from it (``.bad``,
    ``.torn``, ``.unfinished``, ``.original``), is there: the clock can repeat a second
    after a cut."""
    ends = ("", ".bad", ".torn", ".unfinished", ".original")
    return any(path.with_name(path.name + end).exists() for end in ends)


def _started(path: Path) -> tuple[str, int, str]:
    """Sort key of a game log by when it was started: ``STAMP.jsonl`` before
    ``STAMP-2.jsonl`` before ``STAMP-10.jsonl`` (a plain sort puts ``-`` before ``.``)."""
    stamp, dash, n = path.stem.rpartition("-")
    if dash and n.isdecimal() and stamp.count("-") == 1:
        return (stamp, int(n), path.name)
    return (path.stem, 1, path.name)
