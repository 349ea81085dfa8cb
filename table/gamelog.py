"""The game log: read and write game files (GAME_LOG.md).

Two forms, one content: a JSON object with ``events``, or JSON Lines with the
header on the first line and one event per line after it (the table's own log
on disk). Writing appends one line per event and flushes and fsyncs it before
returning, so a power cut loses at most the line being written; reading
tolerates such a torn last line (reports it, keeps everything before it).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from table.game import GameHeader
from table.rules.base import (
    Bids,
    Count,
    EndGame,
    EndRound,
    Event,
    Give,
    Hold,
    Player,
    Roll,
    Stand,
    Throw,
    shown,
)


class LogError(ValueError):
    """A structural fault in a game file; the message names the problem."""


class LogUnreadable(LogError):
    """The file could not be read at all (an I/O error), whatever it holds."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's members as a dict; ValueError if a key comes twice (``json.loads``
    would silently keep the last: an event's second key, a player's second bid)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"the key {brief(key)} appears twice in one object")
            seen.add(key)
    return out


def _not_json(word: str) -> object:
    """``NaN``, ``Infinity`` and ``-Infinity``: Python's ``json`` reads them, JSON has
    no such words (a header with one was read, a last line of one was no torn line)."""
    raise ValueError(f"{word} is not JSON")


def _json(text: str) -> object:
    """``json.loads``, with every way a line can fail to be JSON as one ValueError:
    Python's own limits (nesting that runs out of stack, integers of thousands of
    digits) raise other errors than a syntax fault does, and so does a key that
    comes twice in one object, or a word JSON does not have (``NaN``)."""
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_not_json)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except ValueError as exc:  # e.g. "Exceeds the limit (4300 digits) ..."
        raise ValueError(str(exc).split(";")[0]) from None


_BOM = "\ufeff"


def _no_bom(text: str) -> str:
    """``text`` without the byte order mark some editors put first (RFC 8259 lets a
    reader ignore it; ``json.loads`` refuses it)."""
    return text[1:] if text.startswith(_BOM) else text


def _is_text(value: str) -> bool:
    """False for a string holding a lone surrogate: JSON can spell one (``"\\ud800"``),
    but it is no Unicode text and cannot be printed or shown."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _decode(data: bytes) -> str:
    """A game file's bytes as text; LogError if they are not UTF-8. Only the last line
    with content of a log may hold bytes that are not: a power cut can leave any bytes
    where a line was being written. That line is kept with those bytes as ``\\xNN``
    after a NUL, which no JSON allows anywhere, so that it is found torn like any other
    torn line (``\\xNN`` alone is JSON after a backslash in a string)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    raw = data.split(b"\n")  # never part of a UTF-8 sequence: each line decodes alone
    lines = [line.decode("utf-8", errors="backslashreplace") for line in raw]
    filled = [i for i, line in enumerate(lines) if line.strip()]
    not_utf8 = [i for i, line in enumerate(raw) if not _is_utf8(line)]
    if len(filled) < 2 or not_utf8 != [filled[-1]]:
        raise LogError("not UTF-8 text")
    lines[filled[-1]] = "\0" + lines[filled[-1]]
    return "\n".join(lines)


def _why(exc: ValueError) -> str:
    """What the JSON parser found wrong, for a message that names the line already. Its
    messages that end pointing at a place ("Unterminated string starting at") get the
    column they point at."""
    if not isinstance(exc, json.JSONDecodeError):
        return str(exc)
    if exc.msg.endswith(" at"):
        return f"{exc.msg} column {exc.colno}"
    return exc.msg


# ---------------------------------------------------------------------------
# Parsing


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def parse_event(obj: object, where: str = "event") -> Event:
    """One event object to an Event, or LogError saying what is wrong with it."""
    if not isinstance(obj, dict):
        raise LogError(f"{where}: an event must be a JSON object with one key, got {brief(obj)}")
    if len(obj) != 1:
        keys = ", ".join(shown(k) for k in list(obj)[:5]) or "no keys"
        if len(obj) > 5:
            keys += f" ... ({len(obj)} keys)"
        raise LogError(f"{where}: an event must have exactly one key, got {keys}")
    ((key, value),) = obj.items()

    def bad(expected: str) -> LogError:
        return LogError(f"{where}: {shown(key)} needs {expected}, got {brief(value)}")

    def not_text() -> LogError:
        return LogError(
            f"{where}: {shown(key)} holds text that is not valid Unicode: {brief(value)}"
        )

    if key == "throw":
        if not isinstance(value, list) or not 1 <= len(value) <= 2 or not all(map(_is_int, value)):
            raise bad("a list of 1 or 2 integers")
        return Throw(tuple(value))
    if key in ("stand", "end_round", "end_game"):
        if not isinstance(value, bool):
            raise bad("true")
        if key == "stand":
            return Stand(value)
        return EndRound(value) if key == "end_round" else EndGame(value)
    if key == "hold":
        if not _is_int(value):
            raise bad("an integer")
        return Hold(value)
    if key in ("count", "give"):
        if not isinstance(value, str):
            raise bad("a string")
        if not _is_text(value):
            raise not_text()
        return Count(value) if key == "count" else Give(value)
    if key == "bids":
        if not isinstance(value, dict) or not all(map(_is_int, value.values())):
            raise bad("an object of integers")
        if not all(map(_is_text, value)):
            raise not_text()
        return Bids(tuple((str(k), int(v)) for k, v in value.items()))
    if key == "roll":
        if (
            not isinstance(value, dict)
            or set(value) != {"die", "face"}
            or not isinstance(value["die"], str)
            or not (_is_int(value["face"]) or isinstance(value["face"], str))
        ):
            raise bad('an object with exactly "die" (a string) and "face" (an integer or a string)')
        if not _is_text(value["die"]) or (
            isinstance(value["face"], str) and not _is_text(value["face"])
        ):
            raise not_text()
        return Roll(value["die"], value["face"])
    known = "throw, stand, end_round, hold, count, give, bids, roll, end_game"
    raise LogError(f"{where}: unknown event {shown(key)} (known: {known})")


def parse_header(obj: object) -> GameHeader:
    """The header fields of a game object (``events`` is ignored here)."""
    if not isinstance(obj, dict):
        raise LogError(f"a game file must be a JSON object, got {brief(obj)}")
    if "rules" not in obj:
        raise LogError('the game has no "rules"')
    rules = obj["rules"]
    if not isinstance(rules, str):
        raise LogError(f'"rules" must be a string, got {brief(rules)}')
    options = obj.get("options", {})
    if not isinstance(options, dict):
        raise LogError(f'"options" must be an object, got {brief(options)}')
    for key, value in options.items():
        if not _is_text(key) or (isinstance(value, str) and not _is_text(value)):
            raise LogError(f'"options" hold text that is not valid Unicode: {brief({key: value})}')
    raw_players = obj.get("players")
    if not isinstance(raw_players, list):
        raise LogError('"players" must be a list of players, e.g. [{"name": "Ann"}, ...]')
    players: list[Player] = []
    for i, p in enumerate(raw_players):
        name = p if isinstance(p, str) else p.get("name") if isinstance(p, dict) else None
        if isinstance(name, str) and not _is_text(name):
            raise LogError(f"player {i + 1}: the name is not valid Unicode text: {brief(name)}")
        if isinstance(p, str):
            players.append(Player(p))
            continue
        if not isinstance(p, dict) or not isinstance(p.get("name"), str):
            raise LogError(f'player {i + 1}: needs a "name" string, got {brief(p)}')
        extra = set(p) - {"name", "cpu"}
        if extra:
            raise LogError(f"player {i + 1}: unknown field {shown(sorted(extra)[0])}")
        cpu = p.get("cpu")
        if cpu is not None and not isinstance(cpu, str):
            raise LogError(f'player {i + 1}: "cpu" must be a strength name, got {brief(cpu)}')
        players.append(Player(p["name"], cpu))
    seed = obj.get("seed")
    if seed is not None and not _is_int(seed):
        raise LogError(f'"seed" must be an integer, got {brief(seed)}')
    return GameHeader(rules=rules, players=tuple(players), options=options, seed=seed)


def brief(value: object) -> str:
    try:
        text = json.dumps(value) if _jsonable(value) else repr(value)
    except RecursionError:  # parsed just short of the parser's limit, too deep to print
        return "a value nested too deeply"
    return text if len(text) <= 40 else text[:37] + "..."


def _jsonable(value: object) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


# ---------------------------------------------------------------------------
# Reading


@dataclass(frozen=True)
class LoadedGame:
    """A game file's content; ``torn`` describes a torn last line, if any."""

    header: GameHeader
    events: tuple[Event, ...]
    torn: str | None = None


def loads(text: str) -> LoadedGame:
    """Parse a game from text in either form."""
    text = _no_bom(text)
    whole_error: ValueError | None = None
    try:
        whole = _json(text)
    except ValueError as exc:
        whole = None
        is_json = False
        whole_error = exc
    else:
        is_json = True
    if is_json:
        header = parse_header(whole)
        assert isinstance(whole, dict)
        raw_events = whole.get("events", [])
        if not isinstance(raw_events, list):
            raise LogError('"events" must be a list')
        events = tuple(parse_event(e, f"event {i}") for i, e in enumerate(raw_events))
        return LoadedGame(header, events)
    if whole_error is not None and _one_object_over_lines(text, whole_error):
        # A game written as one object over many lines (never a header line of its own):
        # the fault is where the object's parse stopped, not on its first line.
        if not isinstance(whole_error, json.JSONDecodeError):  # a key twice, say
            raise LogError(f"not valid JSON ({whole_error})")
        raise LogError(
            f"not valid JSON (line {whole_error.lineno} column {whole_error.colno}: "
            f"{whole_error.msg})"
        )
    return _loads_lines(text)


def _one_object_over_lines(text: str, whole_error: ValueError) -> bool:
    """Whether a text that is no JSON is one object written over many lines: its first
    line is no JSON on its own, and the parse of the whole text got past that line. The
    first line may be a bare ``{`` or hold the first keys (``{"rules": "mex",``). A first
    line that is JSON (a log's header) or broken within itself is left to the lines' own
    parse, which names the line. A fault that is not a syntax error (a key twice) has no
    place, and the first line alone decides."""
    lines = text.split("\n")
    first_no = next((n for n, line in enumerate(lines, start=1) if line.strip()), 0)
    if not first_no:
        return False
    if isinstance(whole_error, json.JSONDecodeError) and whole_error.lineno <= first_no:
        return False
    try:
        _json(lines[first_no - 1])
    except ValueError:
        return True
    return False


def _loads_lines(text: str) -> LoadedGame:
    lines = [(n + 1, line) for n, line in enumerate(text.split("\n")) if line.strip()]
    if not lines:
        raise LogError("the file is empty")
    first_no, first = lines[0]
    try:
        header_obj = _json(first)
    except ValueError as exc:
        raise LogError(f"not valid JSON (line {first_no}: {_why(exc)})") from None
    header = parse_header(header_obj)
    events: list[Event] = []
    if isinstance(header_obj, dict) and "events" in header_obj:
        if not isinstance(header_obj["events"], list):
            raise LogError(f'line {first_no}: "events" must be a list')
        events.extend(parse_event(e, f"event {i}") for i, e in enumerate(header_obj["events"]))
    torn: str | None = None
    body = lines[1:]
    for pos, (line_no, line) in enumerate(body):
        try:
            obj = _json(line)
        except ValueError as exc:
            if pos == len(body) - 1:
                torn = f"line {line_no} is torn (not valid JSON) and was ignored"
                break
            raise LogError(f"line {line_no}: not valid JSON ({_why(exc)})") from None
        events.append(parse_event(obj, f"line {line_no} (event {len(events)})"))
    return LoadedGame(header, tuple(events), torn)


# The biggest game file read. A game of the table's is a few kB; 200 000 events are 5 MB.
# A bigger file is no game (a power cut that left a long run of zero bytes at the end of a
# log, a device): read whole, it took six times its size in memory.
LOG_BYTES = 64 << 20


def load(path: str | os.PathLike[str]) -> LoadedGame:
    """Read a game file; LogError (with the file name) for anything structural."""
    p = Path(path)
    try:
        data = read_small(p, LOG_BYTES, pipes=True)  # not /dev/zero, not a 1 GB junk tail
    except FileNotFoundError:
        raise LogError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise LogError(f"{p}: is a folder, not a game file") from None
    except OSError as exc:
        raise LogUnreadable(f"{p}: cannot read ({exc.strerror or exc})") from None
    try:
        return loads(_decode(data))
    except LogError as exc:
        raise LogError(f"{p}: {exc}") from None


def torn_tail(data: bytes) -> int | None:
    """Where the part of a JSON Lines log that ``load`` ignores begins (its last line
    with content, if that is not JSON and is not the header), as a byte offset; None if
    the log has no such line. LogError if the bytes are not UTF-8 text (but for that line)."""
    text = _decode(data)
    lines = text.split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if len(filled) < 2 or _whole_json(text):
        return None
    last = filled[-1]
    try:
        _json(lines[last])
    except ValueError:
        chars = sum(len(line) + 1 for line in lines[:last])
        return len(text[:chars].encode("utf-8"))
    return None


def _whole_json(text: str) -> bool:
    try:
        _json(_no_bom(text))
    except ValueError:
        return False
    return True


def _keep_torn(path: Path, part: bytes) -> None:
    """Add ``part``, the bytes cut off a log, to ``path`` as a line of its own, flushed
    to the disk before the log is cut. Two cuts may tear two lines alike: each is kept.
    So is a part whose log a cut left uncut after this: it stands there twice then, which
    loses nothing (content alone cannot tell the two cases apart)."""
    entry = part if part.endswith(b"\n") else part + b"\n"
    try:
        with open(path, "rb") as fh:
            fh.seek(-1, os.SEEK_END)
            last = fh.read(1)
    except OSError:  # none yet, or empty: nothing to end
        last = b"\n"
    with open(path, "ab") as torn:
        if last != b"\n":
            torn.write(b"\n")  # a .torn from before parts had lines of their own
        torn.write(entry)
        torn.flush()
        os.fsync(torn.fileno())


def dumps(header: GameHeader, events: tuple[Event, ...] | list[Event]) -> str:
    """A game as one JSON object (the shareable form)."""
    obj = header.to_json()
    obj["events"] = [e.to_json() for e in events]
    return json.dumps(obj, indent=1)


# ---------------------------------------------------------------------------
# Writing


def _line(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode("utf-8")


def fsync_dir(path: Path) -> None:
    """Make a new or renamed file's directory entry durable (best effort)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _amount(n: int) -> str:
    return f"{n >> 20} MB" if n >= 1 << 20 and n % (1 << 20) == 0 else f"{n} bytes"


def read_small(path: str | os.PathLike[str], most: int, pipes: bool = False) -> bytes:
    """The bytes of a small regular file (the table's own settings, marks and config).

    OSError as ``read_bytes`` raises it (FileNotFoundError, IsADirectoryError ...), and
    for what is no regular file (a pipe would block the start until something writes to
    it, ``/dev/zero`` never ends) or is bigger than ``most`` bytes: never a wait, never
    more than ``most`` bytes in memory. ``pipes``: a pipe is read too, as a file a person
    named (``--script <(...)``) is, waiting for its writer like any program."""
    fifo = pipes and stat.S_ISFIFO(os.stat(path).st_mode)
    fd = os.open(path, os.O_RDONLY if fifo else os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if not (stat.S_ISREG(mode) or fifo):
            what = "a device" if pipes else "a pipe or a device"
            raise OSError(errno.EINVAL, f"not a regular file ({what})", os.fspath(path))
        chunks: list[bytes] = []
        size = 0
        while size <= most:
            chunk = os.read(fd, most + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > most:
            raise OSError(errno.EFBIG, f"bigger than {_amount(most)}", os.fspath(path))
        return b"".join(chunks)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a power cut leaves the old or the new file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        # Never written through: a temporary file left by a cut goes first, and a link put
        # in its place wrote the data into the file it led to (and moved the link over the
        # file meant).
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        with open(os.open(tmp, flags, 0o666), "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):  # a full disk, or a folder where the file goes
            tmp.unlink()
        raise
    fsync_dir(path.parent)


class LogWriter:
    """Appends events to a JSON Lines game log; each line is on disk on return.

    The file is written unbuffered: bytes the operating system refused (a full disk)
    must not wait in a buffer and go out with the next event's line.
    """

    def __init__(self, path: Path, fh: BinaryIO) -> None:
        self.path = path
        self._fh = fh
        self.original: Path | None = None  # where reopen kept a one-object game as it was
        # Where the log ends, if an append failed and the cut back to there failed too:
        # the next append cuts first, or writes nothing.
        self._uncut: int | None = None

    @classmethod
    def create(cls, path: str | os.PathLike[str], header: GameHeader) -> LogWriter:
        """Start a new log with its header (fails if the file exists).

        A header the disk refuses (OSError) leaves no file behind, nor one open: a log
        without a whole header holds no game.
        """
        p = Path(path)
        first = _line(header.to_json())
        p.parent.mkdir(parents=True, exist_ok=True)
        fh = open(p, "xb", buffering=0)  # noqa: SIM115 - kept open for appends
        writer = cls(p, fh)
        try:
            writer._write(first)
        except OSError:
            writer.discard()
            raise
        fsync_dir(p.parent)
        return writer

    @classmethod
    def reopen(cls, path: str | os.PathLike[str]) -> LogWriter:
        """Go on appending to an existing log (after a resume).

        A game in the one-object form written over several lines is rewritten as JSON
        Lines first, and kept as it was in ``.original`` beside it (one on a single line
        is already a header line, with its events, that lines can follow). Exactly what
        ``load`` ignores is cut off then: a last line that is not JSON (torn by a power
        cut, or anything else), with whatever follows it.
        Its bytes are added to ``.torn`` beside the log, each such part a line of its
        own. A last line that is
        whole but has no newline after it (an editor or a copy dropped it) is
        kept and given one, so the next event starts on a line of its own.
        """
        p = Path(path)
        data = p.read_bytes()
        text = data.decode("utf-8", errors="replace")
        kept: Path | None = None
        if len([line for line in text.split("\n") if line.strip()]) > 1 and _whole_json(text):
            # A game in the one-object form (copied in by hand): the same game as JSON
            # Lines first, so that appended lines keep it readable.
            # What it was is kept beside it, as it was: fields a game file may carry that
            # the header does not (a comment) would otherwise be lost without a word.
            game = loads(text)
            lines = [_line(game.header.to_json())] + [_line(e.to_json()) for e in game.events]
            original = p.with_name(p.name + ".original")
            n = 2
            while original.exists() or original.is_symlink():
                original = p.with_name(f"{p.name}-{n}.original")
                n += 1
            atomic_write(original, data)
            kept = original
            data = b"".join(lines)
            atomic_write(p, data)
        cut = torn_tail(data)
        if cut is not None:
            _keep_torn(p.with_suffix(p.suffix + ".torn"), data[cut:])
            with open(p, "r+b") as log:
                log.truncate(cut)
                log.flush()
                os.fsync(log.fileno())
            data = data[:cut]
        writer = cls(p, open(p, "ab", buffering=0))  # noqa: SIM115 - kept open for appends
        writer.original = kept
        if data and not data.endswith(b"\n"):
            try:
                writer._write(b"\n")
            except OSError:
                writer.close()
                raise
        return writer

    def append(self, event: Event) -> None:
        self.append_all([event])

    def append_all(self, events: tuple[Event, ...] | list[Event]) -> None:
        """Append several events as one: on an OSError (a full disk) the log is cut
        back to where it was, so it never holds half of what the table did.

        If that cut fails too, the events may still be on disk although the table
        says they were not counted, and the same events tried again would stand in
        the log twice. The next append then makes the cut first; until it succeeds,
        appends raise its OSError and write nothing.
        """
        self._cut_back()
        start = self._fh.tell()
        try:
            self._write(b"".join(_line(e.to_json()) for e in events))
        except OSError:
            self._uncut = start
            with contextlib.suppress(OSError, ValueError):
                self._cut_back()
            raise

    def _cut_back(self) -> None:
        """Cut the log back to where a failed append started, if that is owed."""
        if self._uncut is None:
            return
        self._fh.truncate(self._uncut)
        self._fh.seek(self._uncut)  # a new log is not in append mode: no hole
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._uncut = None

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:  # an unbuffered write may take only part of the bytes
            view = view[self._fh.write(view) :]
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()

    @property
    def closed(self) -> bool:
        return self._fh.closed

    def discard(self) -> None:
        """Close the log and remove it: a new log that never became a game (its header,
        or the mark that makes it the game in progress, was refused)."""
        self.close()
        with contextlib.suppress(OSError):
            self.path.unlink()

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
