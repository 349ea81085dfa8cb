"""The game log (GAME_LOG.md): both forms, torn lines, structural faults, the writer."""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from table import gamelog
from table.game import Game, GameHeader, SetupError, replay
from table.gamelog import LogError, LogWriter, load, loads, parse_event
from table.rules.base import (
    Bids,
    Count,
    EndGame,
    EndRound,
    Give,
    Hold,
    Player,
    Roll,
    Stand,
    Throw,
)

HEADER = {"rules": "mexico", "players": [{"name": "Ann"}, {"name": "Bob"}]}


@pytest.mark.parametrize(
    ("obj", "event"),
    [
        ({"throw": [6, 3]}, Throw((6, 3))),
        ({"throw": [4]}, Throw((4,))),
        ({"stand": True}, Stand()),
        ({"stand": False}, Stand(False)),
        ({"end_round": True}, EndRound()),
        ({"hold": 3}, Hold(3)),
        ({"count": "pips"}, Count("pips")),
        ({"give": "Bob"}, Give("Bob")),
        ({"bids": {"Ann": 1, "Bob": 0}}, Bids((("Ann", 1), ("Bob", 0)))),
        ({"roll": {"die": "red", "face": 5}}, Roll("red", 5)),
        ({"roll": {"die": "griffin", "face": "flag"}}, Roll("griffin", "flag")),
        ({"end_game": True}, EndGame()),
    ],
)
def test_events_parse_and_round_trip(obj: dict[str, object], event: object) -> None:
    parsed = parse_event(obj)
    assert parsed == event
    assert parsed.to_json() == obj


@pytest.mark.parametrize(
    ("obj", "words"),
    [
        ([6, 3], "JSON object"),
        ({}, "exactly one key"),
        ({"throw": [6, 3], "stand": True}, "exactly one key"),
        ({"throw": [6, 3, 1]}, "1 or 2 integers"),
        ({"throw": []}, "1 or 2 integers"),
        ({"throw": ["6", 3]}, "1 or 2 integers"),
        ({"throw": [True, 3]}, "1 or 2 integers"),
        ({"stand": 1}, "'stand' needs true"),
        ({"hold": "3"}, "an integer"),
        ({"count": 1}, "a string"),
        ({"bids": {"Ann": "one"}}, "an object of integers"),
        ({"roll": {"die": "red"}}, '"die"'),
        ({"roll": {"die": "red", "face": 5, "x": 1}}, '"die"'),
        ({"shout": True}, "unknown event 'shout'"),
    ],
)
def test_malformed_events_are_structural_faults(obj: object, words: str) -> None:
    with pytest.raises(LogError, match=words.replace("(", r"\(")):
        parse_event(obj, "event 0")


def test_json_and_json_lines_forms_are_the_same_game() -> None:
    events = [{"throw": [6, 3]}, {"stand": True}, {"throw": [2, 1]}]
    whole = loads(json.dumps({**HEADER, "events": events}))
    lines = loads("\n".join(json.dumps(x) for x in [HEADER, *events]) + "\n")
    assert whole == lines
    assert lines.torn is None and len(lines.events) == 3


def test_a_header_line_with_events_keeps_them_before_the_lines_after_it() -> None:
    """A game kept as one object on one line, resumed and appended to, is a header line
    with ``events`` and event lines after it. Its own events come first: dropped, the
    game replayed would start from the appended events and lose everything played
    before the resume."""
    head = json.dumps({**HEADER, "events": [{"throw": [6, 3]}, {"stand": True}]})
    loaded = loads("\n".join([head, '{"throw": [2, 1]}', '{"stand": true}']) + "\n")
    assert loaded.torn is None
    assert loaded.events == (Throw((6, 3)), Stand(), Throw((2, 1)), Stand())


def test_torn_last_line_is_reported_and_ignored() -> None:
    text = "\n".join([json.dumps(HEADER), '{"throw": [6, 3]}', '{"stand": tr'])
    loaded = loads(text)
    assert loaded.events == (Throw((6, 3)),)
    assert loaded.torn is not None and "line 3" in loaded.torn


def test_bad_line_before_the_last_is_a_fault() -> None:
    text = "\n".join([json.dumps(HEADER), '{"throw": [6', '{"stand": true}'])
    with pytest.raises(LogError, match="line 2"):
        loads(text)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("[1, 2]", "JSON object"),
        ('{"players": []}', 'no "rules"'),
        ('{"rules": 3, "players": []}', '"rules" must be a string'),
        ('{"rules": "mexico"}', '"players" must be a list'),
        ('{"rules": "mexico", "players": [{"nom": "A"}]}', 'needs a "name"'),
        ('{"rules": "mexico", "players": ["A", "B"], "seed": "x"}', '"seed"'),
        ('{"rules": "mexico", "players": ["A", "B"], "events": {}}', '"events" must be a list'),
        (  # a header line of JSON Lines: its events are not dropped in silence either
            '{"rules": "mexico", "players": ["A", "B"], "events": {"throw": [6, 3]}}\n'
            '{"stand": true}\n',
            '"events" must be a list',
        ),
    ],
)
def test_structural_faults_in_the_header(text: str, words: str) -> None:
    with pytest.raises(LogError, match=words):
        loads(text)


@pytest.mark.parametrize(
    ("header", "words"),
    [
        pytest.param(
            {**HEADER, "seed": True}, '"seed" must be an integer, got true', id="seed-true"
        ),
        pytest.param(
            {**HEADER, "players": [{"name": "A", "cpu": 3}, {"name": "B"}]},
            'player 1: "cpu" must be a strength name, got 3',
            id="cpu-number",
        ),
        pytest.param(
            {**HEADER, "options": ["lives"]},
            '"options" must be an object, got \\["lives"\\]',
            id="options-list",
        ),
        pytest.param(
            {**HEADER, "players": [{"name": "A", "colour": "red"}, {"name": "B"}]},
            "player 1: unknown field 'colour'",
            id="player-unknown-field",
        ),
    ],
)
@pytest.mark.parametrize("form", ["object", "lines"])
def test_header_fields_of_the_wrong_kind_are_named_faults(
    header: dict[str, object], words: str, form: str
) -> None:
    """A header field of the wrong kind is a structural fault that names it (GAME_LOG.md:
    ``seed`` an integer, ``cpu`` a strength name, ``options`` an object, a player only
    ``name`` and ``cpu``). Taken as they are, ``true`` would pass for the seed 1, a
    number for a CPU strength there is none of, a misspelt field (``"cpus": "hard"``)
    would be ignored and the CPU's seat played as a person's, and a list of options
    stopped the replay with an internal error instead of naming what is wrong."""
    if form == "object":
        text = json.dumps({**header, "events": [{"throw": [6, 3]}]})
    else:
        text = json.dumps(header) + '\n{"throw": [6, 3]}\n'
    with pytest.raises(LogError, match=words):
        loads(text)


def test_load_names_the_file_and_rejects_non_utf8(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe{")
    with pytest.raises(LogError, match=r"bad\.json: not UTF-8"):
        load(bad)
    with pytest.raises(LogError, match="no such file"):
        load(tmp_path / "missing.json")


def test_writer_appends_one_line_per_event_and_reads_back(tmp_path: Path) -> None:
    header = GameHeader("mexico", (Player("Ann"), Player("Bob")), {"lives": 2})
    path = tmp_path / "games" / "g.jsonl"
    events = [Throw((6, 3)), Stand(), Throw((2, 1))]
    with LogWriter.create(path, header) as log:
        for e in events:
            log.append(e)
    assert len(path.read_text().splitlines()) == 4
    loaded = load(path)
    assert loaded.header == header
    assert list(loaded.events) == events
    with pytest.raises(FileExistsError):
        LogWriter.create(path, header)


def _opener(disk: type[io.FileIO]) -> Any:
    """``open`` for gamelog with files of the class ``disk`` (a disk that fails)."""

    def disk_open(file: Any, mode: str = "r", buffering: int = -1) -> Any:
        raw = disk(file, mode.replace("b", ""))
        if buffering == 0:
            return raw
        return io.BufferedRandom(raw) if "+" in mode else io.BufferedWriter(raw)

    return disk_open


def _new_log(path: Path, opened: str) -> LogWriter:
    """A new log of Ann and Bob, as created or as reopened after a restart."""
    log = LogWriter.create(path, GameHeader("mexico", (Player("Ann"), Player("Bob"))))
    if opened == "reopened":
        log.close()
        log = LogWriter.reopen(path)
    return log


@pytest.mark.parametrize("opened", ["created", "reopened"])
def test_events_the_full_disk_refused_never_reach_the_log_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opened: str
) -> None:
    """The operating system refuses a write (ENOSPC): the table says nothing was counted,
    so those events must not be written with the next one once there is room again."""
    full = False

    class Disk(io.FileIO):
        def write(self, data: Any) -> int:
            if full:
                raise OSError(errno.ENOSPC, "No space left on device")
            return super().write(data)

    monkeypatch.setattr(gamelog, "open", _opener(Disk), raising=False)
    path = tmp_path / "g.jsonl"
    with _new_log(path, opened) as log:
        full = True
        with pytest.raises(OSError):
            log.append_all([Throw((6, 3)), Stand()])
        full = False
        log.append_all([Throw((5, 2))])
    loaded = load(path)
    assert loaded.torn is None
    assert loaded.events == (Throw((5, 2)),)


@pytest.mark.parametrize("opened", ["created", "reopened"])
def test_an_append_whose_cut_back_failed_is_not_written_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opened: str
) -> None:
    """The line is written but its fsync fails (EIO), and so does the truncate that
    should take it back: the table says "not counted", the players throw again, and the
    log held the first throw and the second. The next append now cuts first, and
    writes nothing while the cut fails."""
    broken = {"fsync": 0, "truncate": 0}

    class Disk(io.FileIO):
        def truncate(self, size: Any = None) -> int:
            if broken["truncate"]:
                broken["truncate"] -= 1
                raise OSError(errno.EIO, "Input/output error")
            return super().truncate(size)

    real_fsync = gamelog.os.fsync

    def fsync(fd: int) -> None:
        if broken["fsync"]:
            broken["fsync"] -= 1
            raise OSError(errno.EIO, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(gamelog, "open", _opener(Disk), raising=False)
    monkeypatch.setattr(gamelog.os, "fsync", fsync)
    path = tmp_path / "g.jsonl"
    with _new_log(path, opened) as log:
        log.append_all([Throw((4, 1))])
        broken.update(fsync=1, truncate=2)  # the append's fsync, its cut and the next
        with pytest.raises(OSError):
            log.append_all([Throw((6, 3)), Stand()])
        with pytest.raises(OSError):  # the cut owed fails again: nothing written
            log.append(Throw((6, 3)))
        assert load(path).events == (Throw((4, 1)), Throw((6, 3)), Stand())
        log.append_all([Throw((6, 3)), Stand()])  # the same throw, tried again
    loaded = load(path)
    assert loaded.torn is None
    assert loaded.events == (Throw((4, 1)), Throw((6, 3)), Stand())


class FullDisk:
    """``open`` for gamelog on a disk that takes ``room`` more bytes, then refuses
    (ENOSPC); remembers every file it opened."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.opened: list[io.FileIO] = []

    def open(self, file: Any, mode: str = "r", buffering: int = -1) -> Any:
        disk = self

        class Disk(io.FileIO):
            def write(self, data: Any) -> int:
                if disk.room <= 0:
                    raise OSError(errno.ENOSPC, "No space left on device")
                n = super().write(bytes(data)[: disk.room])
                disk.room -= n
                return n

        raw = Disk(file, mode.replace("b", ""))
        self.opened.append(raw)
        if buffering == 0:
            return raw
        return io.BufferedRandom(raw) if "+" in mode else io.BufferedWriter(raw)


@pytest.mark.parametrize("room", [0, 10])
def test_a_header_the_full_disk_refused_leaves_no_log_and_no_open_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, room: int
) -> None:
    """The header's write failed (ENOSPC): the file stayed open, and on disk with nothing
    or part of a header, a log that holds no game ("the file is empty" to replay) taking
    the name the game's next try would have had."""
    from table.service.resume import DataDir

    disk = FullDisk(room)
    monkeypatch.setattr(gamelog, "open", disk.open, raising=False)
    header = GameHeader("mexico", (Player("Ann"), Player("Bob")))
    path = tmp_path / "g.jsonl"
    with pytest.raises(OSError, match="No space"):
        LogWriter.create(path, header)
    assert len(disk.opened) == 1 and disk.opened[0].closed
    assert not path.exists()
    # the table's new game: nothing left for its next try but the folder
    data = DataDir(tmp_path / "data")
    disk.room = room
    with pytest.raises(OSError, match="No space"):
        data.new_log(header, now=0)
    assert all(fh.closed for fh in disk.opened)
    assert data.logs() == [] and data.current() is None
    disk.room = 10_000
    with data.new_log(header, now=0) as log:
        log.append(Throw((6, 3)))
    assert data.logs() == [log.path]  # the name the first try would have had, not "-2"
    assert log.path.name == time.strftime("%Y%m%d-%H%M%S.jsonl", time.localtime(0))
    assert load(log.path).events == (Throw((6, 3)),)


def test_a_reopened_log_whose_newline_the_full_disk_refused_is_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A last line with no newline gets one at reopen: a full disk refused it, and the
    file stayed open (the loop never had a writer to close)."""
    path = tmp_path / "g.jsonl"
    _two_events(path)
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    before = path.read_bytes()
    disk = FullDisk(0)
    monkeypatch.setattr(gamelog, "open", disk.open, raising=False)
    with pytest.raises(OSError, match="No space"):
        LogWriter.reopen(path)
    assert disk.opened and all(fh.closed for fh in disk.opened)
    assert path.read_bytes() == before and len(load(path).events) == 2


def test_a_cpu_player_s_strength_is_kept_in_the_log(tmp_path: Path) -> None:
    """A resumed game must still know which seats the CPU plays, and how well; people's
    seats carry no "cpu" at all (GAME_LOG.md: it is optional)."""
    header = GameHeader("mexico", (Player("Ann"), Player("CPU1", "hard")), {"lives": 2}, 5)
    path = tmp_path / "g.jsonl"
    LogWriter.create(path, header).close()
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert first["players"] == [{"name": "Ann"}, {"name": "CPU1", "cpu": "hard"}]
    assert load(path).header == header


def test_reopen_cuts_a_torn_line_and_goes_on(tmp_path: Path) -> None:
    header = GameHeader("mexico", (Player("Ann"), Player("Bob")))
    path = tmp_path / "g.jsonl"
    with LogWriter.create(path, header) as log:
        log.append(Throw((6, 3)))
    with open(path, "ab") as fh:
        fh.write(b'{"sta')  # power cut mid-write
    assert load(path).torn is not None
    with LogWriter.reopen(path) as log:
        log.append(Stand())
    loaded = load(path)
    assert loaded.torn is None
    assert loaded.events == (Throw((6, 3)), Stand())
    assert path.with_suffix(".jsonl.torn").read_bytes() == b'{"sta\n'


def test_reopen_cuts_the_first_event_torn_and_goes_on(tmp_path: Path) -> None:
    """The cut came while the game's first event was written: the log is its header
    and that torn line. The next event must not follow the torn bytes (the log would
    stop being readable, and the game would be lost)."""
    header = GameHeader("mexico", (Player("Ann"), Player("Bob")))
    path = tmp_path / "g.jsonl"
    LogWriter.create(path, header).close()
    with open(path, "ab") as fh:
        fh.write(b'{"throw": [6,')
    torn = load(path)
    assert torn.torn is not None and torn.events == ()
    with LogWriter.reopen(path) as log:
        log.append(Throw((5, 2)))
    loaded = load(path)
    assert loaded.torn is None and loaded.header == header
    assert loaded.events == (Throw((5, 2)),)
    assert path.with_suffix(".jsonl.torn").read_bytes() == b'{"throw": [6,\n'


def test_two_cuts_that_tear_alike_keep_two_parts(tmp_path: Path) -> None:
    """Two cuts may tear two lines at the same byte: ``.torn`` keeps a part for each."""
    path = tmp_path / "g.jsonl"
    _two_events(path)
    for n in range(2):
        with open(path, "ab") as fh:
            fh.write(b'{"throw": [')
        with LogWriter.reopen(path) as log:
            log.append(Throw((5, n + 1)))
    assert path.with_suffix(".jsonl.torn").read_bytes() == b'{"throw": [\n{"throw": [\n'
    assert load(path).events[-2:] == (Throw((5, 1)), Throw((5, 2)))


def test_a_torn_file_from_before_gets_a_line_break_before_the_next_part(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    _two_events(path)
    path.with_suffix(".jsonl.torn").write_bytes(b'{"th')  # kept without a line's end
    with open(path, "ab") as fh:
        fh.write(b'{"hold')
    LogWriter.reopen(path).close()
    assert path.with_suffix(".jsonl.torn").read_bytes() == b'{"th\n{"hold\n'


def _two_events(path: Path) -> None:
    header = GameHeader("mexico", (Player("Ann"), Player("Bob")))
    with LogWriter.create(path, header) as log:
        log.append_all([Throw((6, 3)), Stand()])


def test_reopen_keeps_a_whole_last_line_with_no_newline(tmp_path: Path) -> None:
    """A copy or an editor can drop the final newline: that event is no torn line."""
    path = tmp_path / "g.jsonl"
    _two_events(path)
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    assert load(path).torn is None and len(load(path).events) == 2
    with LogWriter.reopen(path) as log:
        log.append(Throw((2, 1)))
    loaded = load(path)
    assert loaded.torn is None
    assert loaded.events == (Throw((6, 3)), Stand(), Throw((2, 1)))
    assert not path.with_suffix(".jsonl.torn").exists()


@pytest.mark.parametrize(
    "tail", [b'{"thr\n', b"xyz\n", b'{"stand":true}{"stand":true}\n', b'{"sta\n\n  \n']
)
def test_reopen_cuts_a_bad_last_line_even_with_its_newline(tmp_path: Path, tail: bytes) -> None:
    """What load ignores is what reopen cuts: the next event must not follow it, or the
    line stops being the last one and the whole log becomes unreadable."""
    path = tmp_path / "g.jsonl"
    _two_events(path)
    path.write_bytes(path.read_bytes() + tail)
    assert load(path).torn is not None
    with LogWriter.reopen(path) as log:
        log.append(Throw((2, 1)))
    loaded = load(path)
    assert loaded.torn is None
    assert loaded.events == (Throw((6, 3)), Stand(), Throw((2, 1)))
    assert path.with_suffix(".jsonl.torn").read_bytes() == tail


def test_torn_bytes_of_two_resumes_are_both_kept(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    _two_events(path)
    for tail in (b'{"th', b'{"hold'):
        with open(path, "ab") as fh:
            fh.write(tail)
        LogWriter.reopen(path).close()
    # each a line of its own: run together they read as one part (``{"th{"hold``)
    assert path.with_suffix(".jsonl.torn").read_bytes() == b'{"th\n{"hold\n'
    assert len(load(path).events) == 2


def test_reopen_turns_a_one_object_game_into_lines(tmp_path: Path) -> None:
    """A game copied in as one pretty-printed object: appending lines would break it."""
    path = tmp_path / "g.jsonl"
    text = json.dumps({**HEADER, "comment": "club final", "events": [{"throw": [6, 3]}]}, indent=1)
    path.write_text(text)
    (tmp_path / "g.jsonl.original").write_text("an earlier one")
    with LogWriter.reopen(path) as log:
        log.append(Stand())
    assert load(path).events == (Throw((6, 3)), Stand())
    assert len(path.read_text().splitlines()) == 3
    # what the header does not carry (the comment) was lost without a word: the file as
    # it was is kept beside it, and nothing kept before is replaced
    assert (tmp_path / "g.jsonl-2.original").read_text() == text
    assert (tmp_path / "g.jsonl.original").read_text() == "an earlier one"


def test_reopen_keeps_a_game_on_one_line_as_it_is(tmp_path: Path) -> None:
    """A game of one object on one line is already a log: its header line with its own
    events, and the events appended after it are read after those. Reopened, it is kept
    byte for byte (what the header does not carry, a comment, stays in the log) and
    nothing is added beside it: no ``.original`` for a person to wonder about."""
    path = tmp_path / "g.jsonl"
    line = json.dumps({**HEADER, "comment": "club final", "events": [{"throw": [6, 3]}]})
    path.write_text(line + "\n")
    with LogWriter.reopen(path) as log:
        assert log.original is None
        log.append(Stand())
    assert path.read_bytes() == (line + "\n").encode() + b'{"stand":true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.jsonl"]
    assert load(path).events == (Throw((6, 3)), Stand())


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"throw": [' + "9" * 5000 + ", 1]}", "Exceeds the limit"),
    ],
)
def test_lines_python_cannot_parse_are_faults_not_crashes(line: str, words: str) -> None:
    head = json.dumps(HEADER)
    with pytest.raises(LogError, match=words):
        loads("\n".join([head, line, '{"stand": true}']))
    torn = loads("\n".join([head, '{"stand": true}', line]))  # as the last line: torn
    assert torn.torn is not None and torn.events == (Stand(),)


def test_replay_equals_live_application() -> None:
    header = GameHeader("mexico", (Player("Ann"), Player("Bob")))
    events = [Throw((6, 3)), Stand(), Throw((2, 1)), Hold(3), Throw((4, 4))]
    live = Game.start(header)
    for e in events:
        live, _ = live.apply(e)
    assert replay(header, events).view() == live.view()


def test_generic_refusals_do_not_change_the_state() -> None:
    game = Game.start(GameHeader("mexico", (Player("Ann"), Player("Bob"))))
    for event in (Throw((7, 1)), Throw((0, 3)), Stand(False), EndGame(False), Hold(9)):
        after, refused = game.apply(event)
        assert refused is not None
        assert after.state == game.state
        assert after.refused[-1].event == event
    assert "7" in game.apply(Throw((7, 1)))[1].reason  # type: ignore[union-attr]


def test_a_pretty_printed_game_with_a_fault_names_where_it_is() -> None:
    text = json.dumps({**HEADER, "events": [{"throw": [6, 3]}]}, indent=1)
    broken = text.replace("]\n}", "],\n}")  # a trailing comma before the last brace
    with pytest.raises(LogError, match=r"not valid JSON \(line 1[0-9] column 1: "):
        loads(broken)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        # The first keys on the first line, a comma missing after the second event.
        (
            '{"rules": "mex", "players": ["A", "B"],\n "events": [\n  {"throw": [6, 3]},\n'
            '  {"stand": true}\n  {"throw": [2, 1]}\n ]\n}\n',
            r"line 5 column 3: Expecting ',' delimiter",
        ),
        # Blank lines first: the lines are counted in the file, as an editor counts them.
        ('\n\n{"rules": "mex",\n "players": ["A", "B"], "events": [}\n', "line 4 column "),
        # No syntax fault but a key twice: no place to name, and the file's own words.
        ('{"rules": "mex", "players": ["A", "B"],\n "rules": "mex"}\n', 'key "rules" appears'),
    ],
)
def test_a_game_over_many_lines_names_its_fault_whatever_its_first_line_holds(
    text: str, where: str
) -> None:
    """Not only a first line of a bare ``{``: an object begun with its first keys on the
    first line was taken for a log's header line, and the fault named was line 1's own
    (the object goes on past it), not where the file is broken."""
    with pytest.raises(LogError, match=where) as caught:
        loads(text)
    assert "line 1" not in str(caught.value)


def test_a_log_whose_header_line_is_broken_names_that_line() -> None:
    """A header line broken within itself is named as the line at fault, in a log as in
    a one-object game."""
    with pytest.raises(LogError, match=r"not valid JSON \(line 1: Expecting value"):
        loads('{"rules": mex, "players": ["A", "B"]}\n{"throw": [6, 3]}\n')
    with pytest.raises(LogError, match=r"not valid JSON \(line 1: Expecting value"):
        loads('{"rules": mex, "players": ["A", "B"],\n "events": []}\n')


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # A header line cut by a power cut as it was written, the log holding nothing else.
        (
            '{"rules": "mex", "options": {"lives": 5}, "pla',
            "not valid JSON (line 1: Unterminated string starting at column 43)",
        ),
        (
            '{"rules": "mex", "players": ["A", "B"]}\n{"throw": [1, 2]}\n{"throw": "\t"}\n'
            '{"stand": true}\n',
            "line 3: not valid JSON (Invalid control character at column 12)",
        ),
    ],
)
def test_a_json_fault_that_points_at_a_place_names_its_column(text: str, message: str) -> None:
    """The JSON parser's messages that end pointing at a place ("... starting at") were
    cut off there: "not valid JSON (line 1: Unterminated string starting at)"."""
    with pytest.raises(LogError) as caught:
        loads(text)
    assert str(caught.value) == message


def _nested(depth: int) -> object:
    value: object = []
    for _ in range(depth):
        value = [value]
    return value


def test_a_value_too_deep_to_show_is_a_fault_not_a_crash() -> None:
    """The message quotes the bad value; one nested deeper than Python can print is
    named, not a RecursionError."""
    deep = _nested(5000)
    with pytest.raises(LogError, match="'hold' needs an integer, got a value nested too deeply"):
        parse_event({"hold": deep}, "event 0")
    with pytest.raises(LogError, match="an event must be a JSON object"):
        parse_event(deep, "event 0")
    from table.gamelog import parse_header

    with pytest.raises(LogError, match='player 1: needs a "name" string'):
        parse_header({"rules": "mex", "players": [deep, "B"]})


@pytest.mark.parametrize(
    ("event", "words"),
    [
        ({"give": "\ud800"}, "'give'"),
        ({"count": "pi\udfffps"}, "'count'"),
        ({"bids": {"\ud800": 1}}, "'bids'"),
        ({"roll": {"die": "\ud800", "face": 1}}, "'roll'"),
        ({"roll": {"die": "red", "face": "\udc00"}}, "'roll'"),
    ],
)
def test_text_with_a_lone_surrogate_is_a_fault(event: dict[str, object], words: str) -> None:
    """JSON can spell a lone surrogate (\\ud800), which is no Unicode text: printing it
    would fail, so the event is a structural fault like a file that is not UTF-8."""
    with pytest.raises(LogError, match=f"{words} holds text that is not valid Unicode"):
        parse_event(event, "event 0")


@pytest.mark.parametrize(
    "header",
    [
        {"rules": "mex", "players": ["Ann", "\ud800"]},
        {"rules": "mex", "players": [{"name": "Ann"}, {"name": "B\udc00b"}]},
        {"rules": "mexen", "players": ["Ann", "Bob"], "options": {"stake": "\ud800"}},
    ],
)
def test_header_text_with_a_lone_surrogate_is_a_fault(header: dict[str, object]) -> None:
    with pytest.raises(LogError, match="not valid Unicode"):
        loads(json.dumps(header))


def test_a_byte_order_mark_before_the_game_is_ignored(tmp_path: Path) -> None:
    """Some editors put a UTF-8 byte order mark first; the game is read all the same
    (RFC 8259 lets a reader ignore it), in either form, and resuming keeps every event."""
    bom = b"\xef\xbb\xbf"
    events = [{"throw": [6, 3]}, {"stand": True}]
    whole = tmp_path / "whole.json"
    whole.write_bytes(bom + json.dumps({**HEADER, "events": events}, indent=1).encode())
    lines = tmp_path / "lines.jsonl"
    lines.write_bytes(bom + "\n".join(json.dumps(x) for x in [HEADER, *events]).encode() + b"\n")
    want = (Throw((6, 3)), Stand())
    assert load(whole).events == want and load(lines).events == want
    for path in (whole, lines):
        with LogWriter.reopen(path) as log:
            log.append(Throw((2, 1)))
        assert load(path).events == (*want, Throw((2, 1))) and load(path).torn is None
        assert not path.with_suffix(path.suffix + ".torn").exists()


@pytest.mark.parametrize(
    "text",
    [
        "\n".join([json.dumps(HEADER), '{"throw": [6, 3], "throw": [5, 1]}', '{"stand": true}']),
        json.dumps({**HEADER, "events": []}).replace(
            '"rules": "mexico"', '"rules": "mex", "rules": "mexico"'
        ),
        json.dumps(
            {"rules": "mythical", "players": ["Ann", "Bob"], "events": [{"bids": {"Ann": 1}}]}
        ).replace('"Ann": 1', '"Ann": 1, "Ann": 0'),
    ],
)
def test_a_key_twice_in_one_object_is_a_fault(text: str) -> None:
    """An event is one key (GAME_LOG.md); JSON read by Python keeps only the last of two
    equal keys, which would hide an event's second key (or a second bid for one
    player, which MY-3 refuses) without a word."""
    with pytest.raises(LogError, match="appears twice"):
        loads(text)


def test_the_faults_name_the_keys_at_fault() -> None:
    """Someone auditing a log is told which keys: both of an event with two, none of an
    empty one, and the one key that comes twice (not the first key of the object)."""
    with pytest.raises(LogError, match="exactly one key, got 'throw', 'stand'$"):
        parse_event({"throw": [6, 3], "stand": True}, "event 0")
    with pytest.raises(LogError, match="exactly one key, got no keys$"):
        parse_event({}, "event 0")
    text = json.dumps(
        {"rules": "mythical", "players": ["Ann", "Bob", "Cid"], "events": [{"bids": {}}]}
    ).replace("{}", '{"Ann": 1, "Bob": 0, "Cid": 1, "Bob": 1}')
    with pytest.raises(LogError, match='the key "Bob" appears twice'):
        loads(text)


def test_a_pretty_printed_game_python_cannot_parse_names_why() -> None:
    """Not the misleading fault of its first line alone ("{")."""
    text = json.dumps({**HEADER, "seed": 1, "events": []}, indent=1).replace(
        '"seed": 1', '"seed": ' + "9" * 5000
    )
    with pytest.raises(LogError, match="Exceeds the limit"):
        loads(text)


def test_a_torn_last_line_that_is_not_utf8_is_torn_not_the_end_of_the_game(
    tmp_path: Path,
) -> None:
    """A power cut can leave any bytes where the last line was being written (a flash
    card's half-written page): that line is torn like any other. The whole log was
    refused as "not UTF-8 text", and the table set the game aside instead of resuming."""
    from table.service.resume import DataDir, Unfinished

    data = DataDir(tmp_path / "data")
    with data.new_log(GameHeader("mexico", (Player("Ann"), Player("Bob")))) as log:
        log.append_all([Throw((6, 3)), Stand()])
    tail = b'{"thr\xe9\x80\xff\n'
    with open(log.path, "ab") as fh:
        fh.write(tail)
    loaded = load(log.path)
    assert loaded.events == (Throw((6, 3)), Stand())
    assert loaded.torn is not None and "line 4" in loaded.torn
    unfinished = data.unfinished()
    assert isinstance(unfinished, Unfinished) and unfinished.game == loaded
    with LogWriter.reopen(log.path) as writer:
        writer.append(Throw((2, 1)))
    again = load(log.path)
    assert again.torn is None and again.events == (Throw((6, 3)), Stand(), Throw((2, 1)))
    assert log.path.with_suffix(".jsonl.torn").read_bytes() == tail


@pytest.mark.parametrize(
    "last",
    [
        b'{"stand":true}\xff',
        # After a backslash in a string: read as "\\xff" (an escaped backslash and
        # "xff"), the line was a give to "Bo\\xff", and no torn line.
        b'{"give":"Bo\\\xff"}',
    ],
)
def test_a_last_line_whose_bytes_are_not_utf8_is_torn_even_if_the_rest_is_an_event(
    tmp_path: Path, last: bytes
) -> None:
    """A power cut can leave stray bytes after a whole event (``{"stand":true}`` then
    0xff), or within one: that line is torn, not counted. Read without its bad bytes it
    would pass for an event the table never logged whole, and the resumed game would
    differ from the one played (and resuming would keep it, with its bad byte, in the
    log)."""
    path = tmp_path / "g.jsonl"
    _two_events(path)
    path.write_bytes(path.read_bytes() + last + b"\n")
    loaded = load(path)
    assert loaded.events == (Throw((6, 3)), Stand()), "the torn stand was counted"
    assert loaded.torn is not None and "line 4" in loaded.torn


@pytest.mark.parametrize(
    "lines",
    [
        [b'{"rules":"mexico","players":["Ann","Bob"]}', b'{"give":"Zo\xeb"}', b'{"stand":true}'],
        [b'{"rules":"mexico","players":["Ann","Bo\xff"]}', b'{"stand":true}'],
        [b'{"rules":"mexico","players":["Ann","Bo\xff"]}'],
    ],
)
def test_bytes_that_are_not_utf8_before_the_last_line_are_a_fault(
    tmp_path: Path, lines: list[bytes]
) -> None:
    path = tmp_path / "g.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(LogError, match=r"g\.jsonl: not UTF-8 text"):
        load(path)


# ---------------------------------------------------------------------------
# Every rule set: a game written to its log, read back and replayed, is the game played

_NAMES = ("Zoë", "Ann", "Max", "Bob")  # not in alphabetical order, not all ASCII
_OPTIONS: dict[str, dict[str, Any]] = {
    "mex": {"lives": 2, "max_throws": 3},
    "mexico": {"lives": 2, "max_throws": 2, "double_on_21": True},
    "mexen": {"rounds": 2, "stake": "sips"},
    "mythical": {"rounds": 3},
}


def _some_event(game: Game, data: Any, names: tuple[str, ...]) -> Any:
    """Mostly an event of a kind the game allows now, with any values; now and then
    anything at all (a refusal must be logged and replayed as one too)."""
    from hypothesis import strategies as st

    from table.rules.base import EventKind
    from table.rules.mythical import DEFAULT_BAG

    die = st.integers(0, 7)
    anything = st.one_of(
        st.builds(lambda a, b: Throw((a, b)), die, die),
        st.builds(lambda a: Throw((a,)), die),
        st.builds(Hold, die),
        st.just(Stand()),
        st.just(EndRound()),
        st.builds(Count, st.sampled_from(["mex", "pips", "odd"])),
        st.builds(Give, st.sampled_from([*names, "Zed"])),
        st.builds(
            lambda bids: Bids(tuple(zip(names, bids, strict=False))),
            st.lists(st.integers(-1, 4), min_size=1, max_size=len(names)),
        ),
        st.builds(
            Roll,
            st.sampled_from([*DEFAULT_BAG.names, "blue"]),
            st.sampled_from([1, 3, 5, 7, "flag", "minotaur", "griffin", "mermaid"]),
        ),
    )
    allowed = sorted(game.allowed - {EventKind.END_GAME}, key=lambda k: k.value)
    if not allowed or data.draw(st.integers(0, 9), label="junk") == 0:
        return data.draw(anything, label="any event")
    kind = data.draw(st.sampled_from(allowed), label="kind")
    if kind is EventKind.THROW:
        one = game.view().get("phase") == "tiebreak" and game.header.rules == "mexen"
        dice = (1,) if one else (1, 2)
        return Throw(tuple(data.draw(st.integers(1, 6), label="die") for _ in dice))
    if kind is EventKind.BIDS:
        r = game.view()["round"]
        return Bids(tuple((n, data.draw(st.integers(0, r), label="bid")) for n in names))
    if kind is EventKind.ROLL:
        left = [k for k, v in game.view()["dice_left"].items() if v > 0]
        kind_ = DEFAULT_BAG.get(data.draw(st.sampled_from(left), label="die kind"))
        assert kind_ is not None
        return Roll(kind_.name, data.draw(st.sampled_from(kind_.distinct_faces), label="face"))
    if kind is EventKind.HOLD:
        return Hold(data.draw(st.integers(1, 6), label="held"))
    if kind is EventKind.GIVE:
        return Give(data.draw(st.sampled_from(names), label="to"))
    if kind is EventKind.COUNT:
        return Count(data.draw(st.sampled_from(["mex", "pips"]), label="count"))
    return {EventKind.STAND: Stand(), EventKind.END_ROUND: EndRound()}[kind]


@pytest.mark.parametrize("rules", ["mex", "mexico", "mexen", "mythical"])
def test_property_a_logged_game_replays_to_the_game_played(rules: str, tmp_path: Path) -> None:
    """What the table does: each event applied, then appended to the log; after any
    number of them (a power cut) the log, read back and replayed, is the same game,
    the same refusals included, every time it is replayed."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    count = iter(range(10**6))

    @settings(
        max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(n=st.integers(2, 4), data=st.data())
    def check(n: int, data: Any) -> None:
        names = _NAMES[:n]
        header = GameHeader(rules, tuple(Player(x) for x in names), _OPTIONS[rules])
        path = tmp_path / f"{next(count)}.jsonl"
        game = Game.start(header)
        played = []
        with LogWriter.create(path, header) as log:
            for _ in range(data.draw(st.integers(0, 150), label="events")):
                if game.is_over:
                    break
                event = _some_event(game, data, names)
                game, _ = game.apply(event)
                log.append(event)
                played.append(event)
        loaded = load(path)
        assert loaded.header == header and loaded.torn is None
        assert loaded.events == tuple(played)
        again = replay(loaded.header, loaded.events)
        assert again.state == game.state and again.refused == game.refused
        assert again.view() == game.view() == replay(loaded.header, loaded.events).view()
        assert json.loads(json.dumps(again.view())) == again.view()

    check()


def test_reopen_cuts_a_torn_line_after_lines_of_accented_names(tmp_path: Path) -> None:
    """The cut is a byte offset: counted in characters, the lines before a torn one
    written with "Zoë" or "→" cut into the last whole event, and the log held no game."""
    path = tmp_path / "g.jsonl"
    whole = (  # as an editor writes it: the names as they are, not \u escapes
        '{"rules": "mexico", "players": [{"name": "Zoë→"}, {"name": "Bob"}]}\n'
        '{"throw": [6, 3]}\n{"stand": true}\n'
    ).encode()
    path.write_bytes(whole + b'{"throw": [5,')
    LogWriter.reopen(path).close()
    assert path.read_bytes() == whole
    assert path.with_suffix(".jsonl.torn").read_bytes() == b'{"throw": [5,\n'
    assert load(path).events == (Throw((6, 3)), Stand())


def test_what_must_survive_a_power_cut_is_on_disk_before_it_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test can cut the power, so the calls are recorded: the log's line, the .torn
    bytes and the cut of a torn line are each fsynced before the call returns, and a
    file replaced whole is fsynced, renamed into place, then its folder fsynced."""
    calls: list[str] = []
    real_fsync, real_replace = gamelog.os.fsync, gamelog.os.replace

    def fsync(fd: int) -> None:
        calls.append(f"fsync {Path(os.readlink(f'/proc/self/fd/{fd}')).name}")
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        calls.append(f"replace {Path(src).name} {Path(dst).name}")
        real_replace(src, dst)

    monkeypatch.setattr(gamelog.os, "fsync", fsync)
    monkeypatch.setattr(gamelog.os, "replace", replace)
    path = tmp_path / "g.jsonl"
    with LogWriter.create(path, GameHeader("mexico", (Player("Ann"), Player("Bob")))) as log:
        assert calls == ["fsync g.jsonl", f"fsync {tmp_path.name}"]  # the line, its name
        calls.clear()
        log.append_all([Throw((6, 3))])
        assert calls == ["fsync g.jsonl"]
    with path.open("ab") as fh:
        fh.write(b'{"thr')
    calls.clear()
    LogWriter.reopen(path).close()
    assert calls == ["fsync g.jsonl.torn", "fsync g.jsonl"]
    calls.clear()
    gamelog.atomic_write(tmp_path / "settings.json", b"{}")
    assert calls == [
        "fsync .settings.json.tmp",
        "replace .settings.json.tmp settings.json",
        f"fsync {tmp_path.name}",
    ]


def test_the_cut_back_of_a_refused_append_is_on_disk_before_it_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The full disk took part of an append's line, then refused (ENOSPC): the table
    says the events were not counted, and the log is cut back to where the append
    began. That cut is fsynced before append_all raises; if not, a power cut could
    bring the half line back (a torn line cut off again, but only at the next start)."""
    calls: list[tuple[str, int]] = []
    real_fsync = gamelog.os.fsync

    def fsync(fd: int) -> None:
        calls.append((Path(os.readlink(f"/proc/self/fd/{fd}")).name, os.fstat(fd).st_size))
        real_fsync(fd)

    disk = FullDisk(10_000)
    monkeypatch.setattr(gamelog, "open", disk.open, raising=False)
    monkeypatch.setattr(gamelog.os, "fsync", fsync)
    path = tmp_path / "g.jsonl"
    with _new_log(path, "created") as log:
        log.append_all([Throw((4, 1))])
        before = path.read_bytes()
        calls.clear()
        disk.room = 5  # five bytes of the next line, then no room
        with pytest.raises(OSError, match="No space"):
            log.append_all([Throw((6, 3)), Stand()])
        assert path.read_bytes() == before
        assert calls == [("g.jsonl", len(before))], "the cut back was not fsynced"
    assert load(path).events == (Throw((4, 1)),)


def test_read_small_refuses_a_file_one_piece_bigger_than_its_limit_read_in_pieces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read may return fewer bytes than asked (a pipe, a file system over a network):
    a file bigger than the limit is refused all the same, never returned cut at the
    limit. Cut, a game file would be read as a game that stops early, its last events
    lost without a word, and settings would be read as their first part."""
    from table.gamelog import read_small

    real_read = os.read

    def read(fd: int, n: int) -> bytes:
        return real_read(fd, min(n, 5))  # five bytes at most per read

    monkeypatch.setattr(gamelog.os, "read", read)
    path = tmp_path / "settings.json"
    path.write_bytes(b"0123456789" + b"abcde")  # the limit, and one piece more
    with pytest.raises(OSError, match="bigger than 10 bytes"):
        read_small(path, 10)
    path.write_bytes(b"0123456789")
    assert read_small(path, 10) == b"0123456789"


def test_read_small_refuses_a_pipe_at_once_unless_pipes_are_read(tmp_path: Path) -> None:
    """The table's own small files (settings, marks) are read without ``pipes``: a pipe
    in the place of one is refused at once. Opened for reading, a pipe with no writer
    waits for one, and the table's start would hang for good, its display dark and the
    game in progress never resumed."""
    import threading

    from table.gamelog import read_small

    pipe = tmp_path / "settings.json"
    os.mkfifo(pipe)
    raised: list[BaseException] = []

    def read() -> None:
        try:
            read_small(pipe, 1 << 20)
        except BaseException as exc:  # handed to the test's thread
            raised.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10.0)  # at once, if it does not wait: the bound is only for a failure
    if reader.is_alive():
        # It waits for a writer: one comes and goes, so that the thread may end (a
        # daemon, it cannot keep the tests from ending if it does not).
        with contextlib.suppress(OSError):
            os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(10.0)
        pytest.fail("read_small waited on the pipe")
    assert len(raised) == 1 and isinstance(raised[0], OSError), raised
    assert "not a regular file (a pipe or a device)" in str(raised[0])


def test_reopen_never_cuts_a_log_whose_only_line_is_not_json(tmp_path: Path) -> None:
    """A cut while the header itself was written: the one line is no JSON, but it is
    the game's header, not a torn event after it. Reopening keeps it (loading then says
    the log is broken) rather than cutting the whole file away to ``.torn``."""
    path = tmp_path / "g.jsonl"
    head = b'{"rules": "mexico", "players": [{"na'
    path.write_bytes(head)
    assert gamelog.torn_tail(head) is None
    LogWriter.reopen(path).close()
    assert path.read_bytes().startswith(head)
    assert not (tmp_path / "g.jsonl.torn").exists()


def test_accepted_counts_events_after_every_refusal() -> None:
    """``Game.accepted`` (the CPU players' dice are seeded by it) is the events
    applied less every one refused, however many were refused."""
    header = GameHeader("mexico", (Player("Ann"), Player("Bob")))
    game = replay(header, [Throw((7, 1)), Throw((0, 3)), Throw((9, 9)), Throw((6, 3))])
    assert (game.count, len(game.refused), game.accepted) == (4, 3, 1)


def test_a_game_with_exactly_the_most_players_the_rules_allow_starts() -> None:
    players = tuple(Player(n) for n in "ABCDEF")
    assert Game.start(GameHeader("mexico", players)).header.names == tuple("ABCDEF")
    with pytest.raises(SetupError):
        Game.start(GameHeader("mexico", (*players, Player("G"))))


def test_games_with_as_many_but_other_refusals_are_not_equal() -> None:
    """Two games alike but for what was refused are two games: the refusals are part
    of a game (its replay lists them), and the chain that keeps them compares them."""
    game = Game.start(GameHeader("mexico", (Player("Ann"), Player("Bob"))))
    a, _ = game.apply(Throw((7, 1)))
    b, _ = game.apply(Throw((0, 3)))
    assert (a.state, a.count) == (b.state, b.count)
    assert a != b
