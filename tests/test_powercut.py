"""Power cuts: ``dicetable run --script`` is killed (SIGKILL) at random moments, again and
again; every restart must resume exactly the game its log holds (as ``replay`` computes it),
never losing an event that was logged, and must survive a torn last line."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from table.game import replay
from table.gamelog import load
from table.service.demo import DEMO_SETTINGS, menu_presses
from table.service.resume import DataDir, DataInUse, Tray, Unfinished

REPO = Path(__file__).resolve().parents[1]
FRAMES = REPO / "table" / "data" / "frames"
KILLS = 12


def expected_view(data: DataDir) -> tuple[str | None, Any, int]:
    """What a restart must resume: (log name, replay view, events) of the unfinished game."""
    path = data.current()
    if path is None:
        return None, None, 0
    loaded = load(path)
    return path.name, replay(loaded.header, loaded.events).view(), len(loaded.events)


def start(data: Path, script: Path, state: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, DICETABLE_DATA=str(data), DICETABLE_CONFIG=os.devnull)
    return subprocess.Popen(
        [
            sys.executable, "-m", "table", "run",
            "--script", str(script),
            "--frames", str(FRAMES),
            "--data", str(data),
            "--state-json", str(state),
            "--stand-ins",
            "--seed", "3",
        ],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip


def wait_for(path: Path, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> dict[str, Any]:
    """The state the process wrote once it had booted (resumed) — polled, it is another process."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            obj: dict[str, Any] = json.loads(path.read_text())
            return obj
        if proc.poll() is not None:
            err = proc.stderr.read().decode() if proc.stderr else ""
            raise AssertionError(f"dicetable run exited {proc.returncode} before booting: {err}")
        time.sleep(0.02)
    raise AssertionError("dicetable run did not boot in time")


def test_killed_at_random_points_resumes_what_the_log_holds(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    data_dir = tmp_path / "data"
    data = DataDir(data_dir)
    data.prepare()
    data.save_settings(DEMO_SETTINGS["mexico"])
    # Presses only: the camera shows a random throw (seeded) whenever the table wants dice,
    # so every restart makes progress from wherever the game stands. Roll, roll again,
    # stand; after a game any button goes to the menu and ROLL starts the next one.
    steps = ["roll", "roll", "stop"] * 200
    script = tmp_path / "script.json"
    script.write_text(json.dumps(steps))

    counts: list[int] = []
    previous: tuple[str | None, list[Any]] = (None, [])
    torn_done = 0
    for i in range(KILLS + 1):
        name, view, count = expected_view(data)
        if name is not None and previous[0] == name:
            # nothing that was logged is ever lost
            now = [e.to_json() for e in load(data_dir / "games" / name).events]
            assert now[: len(previous[1])] == previous[1]
        state = tmp_path / f"state{i}.json"
        proc = start(data_dir, script, state)
        try:
            booted = wait_for(state, proc)
            assert booted["resumed"] == name
            assert booted["game"] == view, f"restart {i}: resumed state differs from replay"
            counts.append(count)
            if i == KILLS:
                break
            time.sleep(rng.uniform(0.0, 1.2))  # a random moment of play
        finally:
            proc.kill()
            proc.wait()
            if proc.stderr:
                proc.stderr.close()
        current = data.current()
        previous = (
            (current.name, [e.to_json() for e in load(current).events]) if current else (None, [])
        )
        if current is not None and i % 4 == 1:
            # a cut in the middle of writing a line: the next start must survive it
            with open(current, "ab") as fh:
                fh.write(b'{"stand":tr')
            torn_done += 1
    assert torn_done >= 1
    assert len(set(counts)) >= 3, f"the kills did not land at different points: {counts}"
    logs = data.logs()
    assert logs, "no game was ever started"
    assert not list((data_dir / "games").glob("*.bad"))


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_stops_cleanly(tmp_path: Path, signum: int) -> None:
    """systemd's stop: SIGTERM ends the loop, the log is closed whole, exit status 0. So
    does SIGHUP (the terminal closed): it killed the table on the spot, its GIF unwritten
    and the terminal left in single-key mode."""
    data_dir = tmp_path / "data"
    data = DataDir(data_dir)
    data.prepare()
    data.save_settings(DEMO_SETTINGS["mexico"])
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["roll"] * menu_presses(DEMO_SETTINGS["mexico"]) + ["wait 60"]))
    state = tmp_path / "state.json"
    proc = start(data_dir, script, state)
    try:
        wait_for(state, proc)
        deadline = time.monotonic() + 30
        while data.current() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # polled: the game starts in another process
        assert data.current() is not None
        state.unlink()
        proc.send_signal(signum)
        assert proc.wait(timeout=30) == 0
        err = proc.stderr.read().decode() if proc.stderr else ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()
    assert "Traceback" not in err
    final = json.loads(state.read_text())  # written again on the way out
    assert final["mode"] == "play" and final["game"]["over"] is False
    path = data.current()
    assert path is not None and path.read_bytes().endswith(b"\n")


def test_logs_started_in_the_same_second_are_listed_oldest_first(tmp_path: Path) -> None:
    """`STAMP-2.jsonl` sorted before `STAMP.jsonl` ('-' < '.'), so "oldest first" put the
    second game of a second first, and `STAMP-10` before `STAMP-2`."""
    from table.game import GameHeader, Player
    from table.service.resume import DataDir

    data = DataDir(tmp_path / "data")
    header = GameHeader("mexico", (Player("Ann"), Player("Bob")))
    made = []
    for _ in range(11):
        writer = data.new_log(header, now=1_780_000_000.0)
        made.append(writer.path)
        writer.close()
    later = data.new_log(header, now=1_780_000_001.0)
    made.append(later.path)
    later.close()
    assert [p.name for p in data.logs()] == [p.name for p in made]


def test_a_log_named_with_a_digit_int_does_not_take_is_still_listed(tmp_path: Path) -> None:
    """``STAMP-².jsonl`` (a copy named by hand): "²" passes str.isdigit, not int(), and
    listing the logs stopped the table with a ValueError at every start."""
    from table.service.resume import DataDir

    data = DataDir(tmp_path / "data")
    data.games.mkdir(parents=True)
    odd = data.games / "20261202-101010-\u00b2.jsonl"
    odd.write_text("{}\n", encoding="utf-8")
    assert data.logs() == [odd]


def test_a_new_game_never_takes_the_name_of_a_log_set_aside(tmp_path: Path) -> None:
    """A Pi without network keeps no time over a cut: the clock can start again from
    before, and a new game can be started in a second an earlier game already used. Its
    log must not take the name of the earlier one's ``.bad`` (or ``.torn``): set aside in
    turn, it would replace the earlier game's bytes."""
    from table.game import GameHeader, Player
    from table.service.resume import DataDir, Unusable

    data = DataDir(tmp_path / "data")
    header = GameHeader("mexico", (Player("Ann"), Player("Bob")))
    kept: list[bytes] = []
    for n in range(2):
        writer = data.new_log(header, now=1_780_000_000.0)
        writer.close()
        broken = f'{{"rules":"mexico","play game {n}'.encode()
        writer.path.write_bytes(broken)
        kept.append(broken)
        assert isinstance(data.unfinished(), Unusable)
    bad = sorted(data.games.glob("*.bad"))
    assert sorted(p.read_bytes() for p in bad) == sorted(kept)


def test_a_current_written_by_an_editor_still_names_the_game(tmp_path: Path) -> None:
    """A log copied in by hand is resumed by writing its name to games/current. An editor
    can put a byte order mark first (and a CRLF last), as in a game file: the name was read
    with the mark, named no log, and the mark was removed: the game was dropped in silence."""
    from table.game import GameHeader, Player
    from table.rules.base import Throw
    from table.service.resume import DataDir, Unfinished

    data = DataDir(tmp_path / "data")
    with data.new_log(GameHeader("mexico", (Player("Ann"), Player("Bob")))) as log:
        log.append_all([Throw((6, 3))])
    data.current_path.write_bytes(b"\xef\xbb\xbf" + log.path.name.encode() + b"\r\n")
    assert data.current() == log.path
    unfinished = data.unfinished()
    assert isinstance(unfinished, Unfinished) and unfinished.path == log.path
    assert unfinished.game.events == (Throw((6, 3)),)
    assert data.current_path.exists()


def test_a_pointer_set_aside_twice_keeps_both(tmp_path: Path) -> None:
    """Each games/current that names no log is kept as it was: a second one set aside
    does not replace the first's current.bad."""
    from table.service.resume import DataDir, Unusable

    data = DataDir(tmp_path / "data")
    data.prepare()
    for name in (b"typo-1.jsonl\n", b"typo-2.jsonl\n"):
        data.current_path.write_bytes(name)
        unusable = data.unfinished()
        assert isinstance(unusable, Unusable) and not unusable.kept
        assert "set aside as current" in unusable.text() and not data.current_path.exists()
    assert sorted(p.read_bytes() for p in data.games.glob("current*.bad")) == [
        b"typo-1.jsonl\n",
        b"typo-2.jsonl\n",
    ]


def test_settings_nested_too_deeply_are_forgotten_not_the_end_of_the_start(
    tmp_path: Path,
) -> None:
    """settings.json that is not settings is forgotten (the config's [game] is used); one
    nested deeper than the JSON reader's stack stopped every start with "internal error:
    RecursionError", exit 1, over and over under systemd."""
    from table.service.resume import DataDir

    data = DataDir(tmp_path / "data")
    data.prepare()
    data.settings_path.write_text("[" * 200_000 + "]" * 200_000)
    assert data.load_settings() is None


def test_a_second_table_on_the_same_data_folder_is_refused(tmp_path: Path) -> None:
    """Two tables on one folder (the service, and 'sudo dicetable run --keys' beside it)
    both resumed the unfinished game and appended their own events to its one log."""
    data_dir = tmp_path / "data"
    first = DataDir(data_dir)
    first.lock()
    assert (data_dir / ".lock").read_text() == f"{os.getpid()}\n"
    second = DataDir(data_dir)
    try:
        second.lock()
    except DataInUse as exc:
        assert str(exc) == str(os.getpid())
    else:
        raise AssertionError("the folder was locked twice")

    script = tmp_path / "script.json"
    script.write_text(json.dumps(["roll", "quit"]))
    proc = start(data_dir, script, tmp_path / "state.json")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 75, err.decode()
    assert f"in use by another dicetable (process {os.getpid()})" in err.decode()
    assert not (data_dir / "games").exists() or not any((data_dir / "games").iterdir())

    first.unlock()  # the first table stops: the second starts
    proc = start(data_dir, script, tmp_path / "state.json")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()
    second.lock()  # and its lock went with it
    second.unlock()


def test_the_service_waits_for_a_data_folder_held_by_a_run_by_hand(tmp_path: Path) -> None:
    """Under systemd, exit 75 would be restarted every 2 s until systemd gave up: the
    table would stay dark after the run by hand had stopped. The service waits, says
    why in its status, and keeps its start from timing out."""
    import socket

    data_dir = tmp_path / "data"
    by_hand = DataDir(data_dir)
    by_hand.lock()
    sock_path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(sock_path))
    sock.settimeout(1.0)
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["quit"]))
    env = dict(os.environ, NOTIFY_SOCKET=str(sock_path), DICETABLE_CONFIG=os.devnull)
    proc = subprocess.Popen(
        [sys.executable, "-m", "table", "run", "--stand-ins", "--script", str(script),
         "--data", str(data_dir)],
        cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    got: list[str] = []
    try:
        deadline = time.monotonic() + 60
        while not any(m.startswith("EXTEND_TIMEOUT_USEC=") for m in got):
            assert time.monotonic() < deadline and proc.poll() is None, got
            with contextlib.suppress(TimeoutError):
                got.append(sock.recv(4096).decode())
        assert any(m.startswith("STATUS=waiting: the data folder") for m in got), got
        assert "READY=1" not in got
        by_hand.unlock()  # the run by hand stops: the service goes on
        while "READY=1" not in got:
            assert time.monotonic() < deadline, got
            with contextlib.suppress(TimeoutError):
                got.append(sock.recv(4096).decode())
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        sock.close()
    err = proc.communicate()[1].decode()  # read to its end, and closed
    assert "in use by another dicetable" in err and "waiting until it stops" in err


def test_a_lock_file_made_by_another_user_still_locks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run with sudo made .lock as root: the service's user could not open it to write,
    and stopped for good ("cannot lock the data folder ... Permission denied")."""
    data_dir = tmp_path / "data"
    made = DataDir(data_dir)
    made.lock()  # made, and let go
    made.unlock()
    opened = Path.open

    def not_writable(self: Path, mode: str = "r", *args: Any, **kw: Any) -> Any:
        if self.name == ".lock" and mode != "r":
            raise PermissionError(13, "Permission denied", str(self))
        return opened(self, mode, *args, **kw)

    monkeypatch.setattr(Path, "open", not_writable)
    service = DataDir(data_dir)
    service.lock()
    other = DataDir(data_dir)
    with pytest.raises(DataInUse):
        other.lock()
    service.unlock()
    other.lock()
    other.unlock()


# -- the log and the resume: cases held nowhere else --------------------------------


def _game_log(data: Any, now: float | None = None) -> Path:
    from table.game import GameHeader, Player
    from table.rules.base import Throw

    with data.new_log(GameHeader("mexico", (Player("Ann"), Player("Bob"))), now=now) as log:
        log.append_all([Throw((6, 3))])
    path: Path = log.path
    return path


def test_a_bad_log_that_cannot_be_set_aside_stays_the_game_in_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log that holds no game is renamed .bad; if the rename fails (a name too long
    with .bad added, a read-only folder) it is still the game in progress, kept and
    said, never forgotten."""
    from table.service.resume import Unusable

    data = DataDir(tmp_path / "data")
    path = _game_log(data)
    path.write_bytes(b'{"rules": "mexico", "pla')

    def refuse(self: Path, target: Any) -> Path:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(Path, "rename", refuse)
    unusable = data.unfinished()
    assert isinstance(unusable, Unusable) and unusable.kept and unusable.path == path
    assert data.current_path.exists() and data.current() == path


def test_a_bad_log_set_aside_is_no_longer_the_game_in_progress(tmp_path: Path) -> None:
    """Set aside, the log is forgotten: games/current is removed, not left naming a
    log that is no longer there."""
    from table.service.resume import Unusable

    data = DataDir(tmp_path / "data")
    path = _game_log(data)
    path.write_bytes(b"not a game at all\n")
    unusable = data.unfinished()
    assert isinstance(unusable, Unusable) and not unusable.kept
    assert unusable.path == path.with_name(path.name + ".bad")
    assert not data.current_path.exists()


def test_the_log_resumed_is_the_one_games_current_names_not_the_newest(tmp_path: Path) -> None:
    from table.service.resume import Unfinished

    data = DataDir(tmp_path / "data")
    older = _game_log(data, now=1_780_000_000.0)
    newer = _game_log(data, now=1_780_000_100.0)
    assert data.logs() == [older, newer]
    data.current_path.write_text(older.name + "\n", encoding="utf-8")
    unfinished = data.unfinished()
    assert isinstance(unfinished, Unfinished) and unfinished.path == older


def test_a_name_set_aside_three_times_keeps_all_three(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data")
    data.prepare()
    path = data.games / "x.jsonl"
    for n in range(3):
        path.write_bytes(f"bytes {n}".encode())
        assert data.set_aside(path) != path
    kept = sorted(data.games.glob("x.jsonl*.bad"))
    assert len(kept) == 3
    assert sorted(p.read_bytes() for p in kept) == [b"bytes 0", b"bytes 1", b"bytes 2"]


def test_a_new_game_never_shares_the_torn_bytes_of_an_earlier_one(tmp_path: Path) -> None:
    """Resumed, a log's torn line goes to its .torn; a new game started in the same
    second (the clock can repeat after a cut) must not take that log's name, or its
    own torn bytes would be added to the earlier game's."""
    from table.gamelog import LogWriter

    data = DataDir(tmp_path / "data")
    path = _game_log(data, now=1_780_000_000.0)
    with path.open("ab") as fh:
        fh.write(b'{"thr')
    LogWriter.reopen(path).close()
    path.unlink()  # only its .torn is left of it
    assert path.with_name(path.name + ".torn").exists()
    again = _game_log(data, now=1_780_000_000.0)
    assert again != path


def test_a_current_that_names_a_folder_leaves_the_folder_alone(tmp_path: Path) -> None:
    from table.service.resume import Unusable

    data = DataDir(tmp_path / "data")
    data.prepare()
    folder = data.games / "20261203-120000.jsonl"
    folder.mkdir()
    (folder / "inside").write_text("kept", encoding="utf-8")
    data.current_path.write_text(folder.name + "\n", encoding="utf-8")
    unusable = data.unfinished()
    assert isinstance(unusable, Unusable) and "not a log" in unusable.text()
    assert (folder / "inside").read_text(encoding="utf-8") == "kept"
    assert (data.games / "current.bad").exists()


def test_read_small_takes_a_file_of_exactly_its_limit(tmp_path: Path) -> None:
    from table.gamelog import read_small

    path = tmp_path / "ten"
    path.write_bytes(b"0123456789")
    assert read_small(path, 10) == b"0123456789"
    with pytest.raises(OSError, match="bigger than"):
        read_small(path, 9)


def test_a_mark_removed_or_a_log_set_aside_is_made_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Removing games/current (the game is over) and renaming a log .bad change the
    folder: it is fsynced after each, or a power cut could bring the old names back."""
    from table.service import resume

    data = DataDir(tmp_path / "data")
    path = _game_log(data)
    calls: list[tuple[str, bool, bool]] = []

    def fsync_dir(folder: Path) -> None:
        calls.append((folder.name, data.current_path.exists(), path.exists()))

    monkeypatch.setattr(resume, "fsync_dir", fsync_dir)
    data.finish()
    assert calls == [("games", False, True)]
    calls.clear()
    assert data.set_aside(path) != path
    assert calls == [("games", False, False)]


# -- the lock, the bids entered and a pointer that cannot be set aside -------------


def test_a_lock_file_that_held_a_longer_process_id_holds_only_this_tables_after_locking(
    tmp_path: Path,
) -> None:
    """Taking the data folder replaces whatever ``.lock`` held with this table's process
    id alone. If digits of an earlier, longer id were left after it, a second table would
    read no process id (or a wrong one) and could not say which table holds the folder."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / ".lock").write_text("9" * 30 + "\n", encoding="utf-8")
    first = DataDir(data_dir)
    first.lock()
    assert (data_dir / ".lock").read_text(encoding="utf-8") == f"{os.getpid()}\n"
    with pytest.raises(DataInUse) as refused:
        DataDir(data_dir).lock()
    assert str(refused.value) == str(os.getpid())
    first.unlock()


def test_a_held_lock_file_that_holds_no_number_is_no_process_id_in_the_refusal(
    tmp_path: Path,
) -> None:
    """A second table is told the holder's process id only when ``.lock`` holds a number.
    If any text there were passed on, the refusal would read "in use by another dicetable
    (process <whatever the file said>)", sending a person to look for a process that is
    not there."""
    data_dir = tmp_path / "data"
    first = DataDir(data_dir)
    first.lock()
    (data_dir / ".lock").write_text("held by hand\n", encoding="utf-8")
    with pytest.raises(DataInUse) as refused:
        DataDir(data_dir).lock()
    assert str(refused.value) == ""
    first.unlock()


def test_a_table_that_locks_its_data_folder_again_still_holds_it_and_lets_it_go_once(
    tmp_path: Path,
) -> None:
    """Locking a folder the same table already holds is no refusal: if it were, the
    table would be told its data folder is in use by another dicetable, its own process.
    One unlock then lets the folder go for the next table."""
    data_dir = tmp_path / "data"
    table = DataDir(data_dir)
    table.lock()
    table.lock()
    with pytest.raises(DataInUse):
        DataDir(data_dir).lock()
    table.unlock()
    after = DataDir(data_dir)
    after.lock()
    after.unlock()


@pytest.mark.parametrize("count", [2, True])
def test_bids_remembered_at_another_moment_of_the_same_game_are_not_restored(
    tmp_path: Path, count: int
) -> None:
    """entry.json's bids belong to the game's log at the length it had when they were
    entered. A cut after a round's bids were logged, before entry.json was emptied,
    leaves the last round's bids there with the log one event longer: if they were
    restored, the next round would start with bids nobody entered for it. A length that
    is no whole number (``true``) is no length either."""
    data = DataDir(tmp_path / "data")
    data.prepare()
    data.save_entry("20261203-120000.jsonl", 1, (1, 0))
    assert data.load_entry("20261203-120000.jsonl", 1) == (1, 0)
    data.entry_path.write_text(
        json.dumps({"log": "20261203-120000.jsonl", "events": count, "bids": [1, 0]}),
        encoding="utf-8",
    )
    assert data.load_entry("20261203-120000.jsonl", 1) == ()


@pytest.mark.parametrize(("bids", "restored"), [([99, 0], (99, 0)), ([100, 0], ()), ([-1, 0], ())])
def test_remembered_bids_out_of_a_bid_s_range_are_not_restored(
    tmp_path: Path, bids: list[int], restored: tuple[int, ...]
) -> None:
    """entry.json is a file on a card: a bid of 100 or -1 in it is no bid entered at the
    table (0-99) and is not restored."""
    data = DataDir(tmp_path / "data")
    data.prepare()
    data.entry_path.write_text(
        json.dumps({"log": "20261203-120000.jsonl", "events": 1, "bids": bids}),
        encoding="utf-8",
    )
    assert data.load_entry("20261203-120000.jsonl", 1) == restored


def test_a_pointer_naming_no_log_that_cannot_be_set_aside_is_said_to_be_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """games/current naming no log is set aside as current.bad; if the rename fails (a
    file system gone read-only) it stays where it is and the display says it is kept for
    the next start. If it were said to be set aside, a person would look for a
    current.bad that is not there, and not know the next start tries again."""
    from table.service.resume import Unusable

    data = DataDir(tmp_path / "data")
    data.prepare()
    data.current_path.write_bytes(b"20261203-120000.jsonl\n")

    def refuse(self: Path, target: Any) -> Path:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(Path, "rename", refuse)
    unusable = data.unfinished()
    assert isinstance(unusable, Unusable)
    assert unusable.kept and unusable.path == data.current_path
    assert (
        unusable.brief()
        == 'log kept for the next start: names "20261203-120000.jsonl", no such log'
    )
    assert "kept, tried again at the next start" in unusable.text()
    assert data.current_path.read_bytes() == b"20261203-120000.jsonl\n"


def test_a_link_set_aside_before_whose_target_is_gone_is_not_replaced(tmp_path: Path) -> None:
    """A log set aside is never renamed over anything already set aside, a link whose
    target is gone included (it does not "exist", yet it is there). If it were, the link
    would vanish without a word and nobody could tell later what had been set aside."""
    data = DataDir(tmp_path / "data")
    data.prepare()
    earlier = data.games / "20261203-120000.jsonl.bad"
    earlier.symlink_to(tmp_path / "gone.jsonl")
    path = data.games / "20261203-120000.jsonl"
    path.write_bytes(b"not a game\n")
    aside = data.set_aside(path)
    assert aside == data.games / "20261203-120000.jsonl-2.bad"
    assert aside.read_bytes() == b"not a game\n"
    assert earlier.is_symlink() and os.readlink(earlier) == str(tmp_path / "gone.jsonl")


@pytest.mark.parametrize("frame", [[0, 480], [640, 0]])
def test_a_tray_frame_with_a_side_of_zero_is_no_frame(tmp_path: Path, frame: list[int]) -> None:
    """tray.json's frame size is used only when both sides are above zero; its dice are
    kept either way. If a side of zero were taken, placing the dice in the camera's frame
    after the restart would divide by zero at the first frame, and the table would stop
    instead of checking the dice left lying."""
    from vision.types import DieReading

    data = DataDir(tmp_path / "data")
    data.prepare()
    die = DieReading(3, (100.0, 80.0), ((100.0, 80.0), (40.0, 40.0), 0.0), 1.0)
    data.save_tray((die,), frame=(640, 480))
    assert data.load_tray() == Tray((die,), (640, 480))
    saved = json.loads(data.tray_path.read_text(encoding="utf-8"))
    data.tray_path.write_text(json.dumps(dict(saved, frame=frame)), encoding="utf-8")
    assert data.load_tray() == Tray((die,), None)


@pytest.mark.parametrize(
    ("refused", "said"),
    [
        ("nothing", 'no "refused" list'),
        ([{"value": 7}], "a die value of 7, not 1-6"),
        ([{"value": None, "center": [1, 2], "box": [[1, 2], [0, 4], 0]}], "a box of 0 x 4"),
    ],
)
def test_places_of_dice_not_counted_that_cannot_be_used_are_said(
    tmp_path: Path, refused: object, said: str
) -> None:
    """tray.json's places where a reading not counted saw dice ("refused") that are not
    what save_tray writes (an edit by hand, a disk fault) are not used, and the start
    says so in the journal: the first throw is then not checked for a die left lying
    there. The last throw's dice are used as before. They used to be dropped without a
    word, and nobody could tell why a die left lying was counted."""
    from vision.types import DieReading

    data = DataDir(tmp_path / "data")
    data.prepare()
    die = DieReading(3, (100.0, 80.0), ((100.0, 80.0), (40.0, 40.0), 0.0), 1.0)
    data.save_tray((die,), frame=(640, 480), refused=(die,))
    assert data.load_tray() == Tray((die,), (640, 480), (die,))
    saved = json.loads(data.tray_path.read_text(encoding="utf-8"))
    data.tray_path.write_text(json.dumps(dict(saved, refused=refused)), encoding="utf-8")
    tray = data.load_tray()
    assert (tray.dice, tray.frame, tray.refused, tray.problem) == ((die,), (640, 480), (), None)
    assert tray.refused_problem == f"tray.json: the places of dice not counted: {said}"


@pytest.mark.parametrize("content", ["[1, 0]", '"bids"', "3"])
def test_small_files_holding_json_that_is_no_object_are_forgotten(
    tmp_path: Path, content: str
) -> None:
    """settings.json and entry.json that hold JSON, but no object (a cut write, an edit
    by hand), are forgotten: the config's choices are used and no bids are restored. If
    they were read as they are, looking up a setting or the entry's log in a list would
    stop the start with an internal error, at every boot."""
    data = DataDir(tmp_path / "data")
    data.prepare()
    data.settings_path.write_text(content, encoding="utf-8")
    data.entry_path.write_text(content, encoding="utf-8")
    assert data.load_settings() is None
    assert data.load_entry("20261203-120000.jsonl", 1) == ()


@pytest.mark.parametrize("end", [".unfinished", ".original"])
def test_a_new_game_never_takes_the_name_of_a_log_kept_as_unfinished_or_original(
    tmp_path: Path, end: str
) -> None:
    """A log that could not be resumed is set aside as ``.unfinished``; a game copied in
    as one object is kept as ``.original``. A new game started in the same second (the
    clock can repeat after a cut) takes another name: if it took that log's, one name
    would stand for two games, and nobody auditing them could tell which files are
    whose."""
    data = DataDir(tmp_path / "data")
    first = _game_log(data, now=1_780_000_000.0)
    kept = first.with_name(first.name + end)
    first.rename(kept)
    again = _game_log(data, now=1_780_000_000.0)
    assert again != first and not again.with_name(again.name + end).exists()
    assert kept.exists()


def test_a_pointer_naming_a_file_outside_the_games_folder_leaves_that_file_alone(
    tmp_path: Path,
) -> None:
    """games/current names a log in the games folder only. If a name with a folder in it
    ("../settings.json", an edit by hand) were followed, the file it reaches would be
    loaded as the game in progress and, holding no game, renamed .bad: the menu's
    remembered choices would be gone, and settings.json.bad would be all a person
    found."""
    from table.service.resume import Unusable

    data = DataDir(tmp_path / "data")
    data.prepare()
    data.save_settings(DEMO_SETTINGS["mexico"])
    before = data.settings_path.read_bytes()
    data.current_path.write_bytes(b"../settings.json\n")
    unusable = data.unfinished()
    assert isinstance(unusable, Unusable) and not unusable.kept
    assert 'names "../settings.json", not a log' in unusable.text()
    assert data.settings_path.read_bytes() == before
    assert data.load_settings() == DEMO_SETTINGS["mexico"]
    assert (data.games / "current.bad").read_bytes() == b"../settings.json\n"


def test_a_lock_file_naming_a_process_that_is_gone_names_no_process_in_the_refusal(
    tmp_path: Path,
) -> None:
    """A table that may not write ``.lock`` (left by a run as root) holds the folder
    without writing its process id there, so the id in the file is that of a run long
    gone. A second table is told no process id then, not one to look for in vain."""
    import subprocess

    child = subprocess.Popen(["true"])
    child.wait()  # ended and reaped: its id names no process
    pid = str(child.pid)
    data_dir = tmp_path / "data"
    first = DataDir(data_dir)
    first.lock()
    for gone in (pid, "9999999999"):  # ended, and past any process id
        (data_dir / ".lock").write_text(f"{gone}\n", encoding="utf-8")
        with pytest.raises(DataInUse) as refused:
            DataDir(data_dir).lock()
        assert str(refused.value) == "", gone
    (data_dir / ".lock").write_text(f"{os.getpid()}\n", encoding="utf-8")
    with pytest.raises(DataInUse) as refused:
        DataDir(data_dir).lock()
    assert str(refused.value) == str(os.getpid())
    first.unlock()


def test_a_lock_file_that_is_a_link_is_not_written_through(tmp_path: Path) -> None:
    """The lock is emptied and given the process id: a .lock linked to another file
    (run as root, /etc/passwd) wrote the id over that file. A link is refused, named."""
    precious = tmp_path / "precious"
    precious.write_text("keep me\n")
    data = DataDir(tmp_path / "data")
    data.root.mkdir()
    (data.root / ".lock").symlink_to(precious)
    with pytest.raises(OSError, match=r"\.lock is a symbolic link"):
        data.lock()
    assert precious.read_text() == "keep me\n"


@pytest.mark.parametrize("name", ["settings.json", "tray.json", "games/current"])
def test_a_small_file_is_never_written_through_a_link_at_its_temporary_name(
    tmp_path: Path, name: str
) -> None:
    """atomic_write wrote the new content into .NAME.tmp and renamed that over NAME: a
    link left there wrote the content into the file it led to, and moved the link over
    NAME. A temporary file is now always a new file."""
    from table.gamelog import atomic_write

    precious = tmp_path / "precious"
    precious.write_text("keep me\n")
    data = DataDir(tmp_path / "data")
    data.prepare()
    target = data.root / name
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.symlink_to(precious)
    atomic_write(target, b'{"new": true}\n')
    assert precious.read_text() == "keep me\n"
    assert not target.is_symlink() and target.read_bytes() == b'{"new": true}\n'
    assert not tmp.exists() and not tmp.is_symlink()
    tmp.write_bytes(b"left by a cut")  # a plain file there is replaced as before
    atomic_write(target, b"again\n")
    assert target.read_bytes() == b"again\n" and not tmp.exists()


def test_games_current_linked_to_nothing_is_set_aside_and_said(tmp_path: Path) -> None:
    """A games/current that is a link to a file that is not there was taken for no game
    in progress: the table started at the menu without a word, the log it had named
    left behind. It is set aside as current.bad and the reason given, as for an empty
    one."""
    data = DataDir(tmp_path / "data")
    data.prepare()
    data.current_path.symlink_to(tmp_path / "nowhere" / "g.jsonl")
    found = data.unfinished()
    assert found is not None and not isinstance(found, Unfinished)
    assert found.text() == "current: a link to a file that is not there; set aside as current.bad"
    assert (data.games / "current.bad").is_symlink() and not data.current_path.is_symlink()
    assert data.unfinished() is None  # said once
