"""The table's data folder: game logs, the open game, remembered settings.

::

    DATA/games/20261129-201502.jsonl   one JSON Lines log per game (GAME_LOG.md)
    DATA/games/current                 the name of the log of the game in progress
    DATA/settings.json                 the menu's last choices

A game is unfinished while ``games/current`` names its log: the pointer is
written (atomically) right after the log's header, and removed once the game
is over. At start the table loads that log (a torn last line survives),
resumes the game from it and goes on appending to it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table.game import GameHeader
from table.gamelog import (
    LoadedGame,
    LogError,
    LogUnreadable,
    LogWriter,
    atomic_write,
    fsync_dir,
    load,
)

CURRENT = "current"


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


class DataDir:
    """Where the table keeps its files (``table.data_dir`` in the config)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.games = root / "games"
        self.settings_path = root / "settings.json"
        self.current_path = self.games / CURRENT

    def prepare(self) -> None:
        """Create the folders; OSError (e.g. read-only) goes to the caller."""
        self.games.mkdir(parents=True, exist_ok=True)

    # -- settings ----------------------------------------------------------

    def load_settings(self) -> dict[str, Any] | None:
        try:
            obj = json.loads(self.settings_path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):  # nested too deeply: no settings either
            return None
        return obj if isinstance(obj, dict) else None

    def save_settings(self, obj: dict[str, Any]) -> None:
        atomic_write(self.settings_path, (json.dumps(obj, indent=1) + "\n").encode("utf-8"))

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


def named_log(pointer: Path) -> Path | None:
    """The log beside ``pointer`` that it names, as ``games/current`` names the game in
    progress; None if there is no ``pointer``. LogUnreadable if it cannot be read,
    LogError if it names no log."""
    mark = pointer.name
    try:
        data = pointer.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
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
    ``.torn``, ``.unfinished``), is there: the clock can repeat a second after a cut."""
    ends = ("", ".bad", ".torn", ".unfinished")
    return any(path.with_name(path.name + end).exists() for end in ends)


def _started(path: Path) -> tuple[str, int, str]:
    """Sort key of a game log by when it was started: ``STAMP.jsonl`` before
    ``STAMP-2.jsonl`` before ``STAMP-10.jsonl`` (a plain sort puts ``-`` before ``.``)."""
    stamp, dash, n = path.stem.rpartition("-")
    if dash and n.isdecimal() and stamp.count("-") == 1:
        return (stamp, int(n), path.name)
    return (path.stem, 1, path.name)
