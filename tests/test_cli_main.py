"""The command dispatcher's last line of defence (table/cli.py)."""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path

import pytest

from table.cli import main

GAME = Path(__file__).resolve().parent / "games" / "mex_tiebreak.json"


class _FullDisk(io.StringIO):
    def write(self, s: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_output_to_a_full_disk_is_the_machines_reason_not_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`dicetable replay g.json > /dev/full` said "internal error: OSError ..."."""
    monkeypatch.setattr("sys.stdout", _FullDisk())
    code = main(["replay", str(GAME)])
    err = capsys.readouterr().err
    assert code == 1
    assert err == "dicetable replay: No space left on device\n"


def test_run_help_names_every_key_the_keyboard_takes(capsys: pytest.CaptureFixture[str]) -> None:
    """`dicetable run --help` gave "--keys keyboard buttons (r h s; R H S long)": not the
    very long presses 1 2 3 (a very long STOP opens the end-game menu) nor q to quit."""
    assert main(["run", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "1 2 3 very long" in text
    assert "q quit" in text


@pytest.mark.parametrize("command", ["run", "demo"])
def test_frames_help_says_which_frames(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """--frames took "dice frames" with no word of what they are: a folder of one's own
    photos given there made every ROLL fail ("no frame dice_62.jpg for the throw")."""
    assert main([command, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "dice_63.jpg" in text


def test_a_refused_run_leaves_no_folders_behind(tmp_path: Path) -> None:
    """A bad --gif name was found after the data folder, the PNG folder and the GIF's
    folder had been made."""
    code = main(
        [
            "run",
            "--stand-ins",
            "--data",
            str(tmp_path / "data"),
            "--gif",
            str(tmp_path / "gifs" / "x" / "out.txt"),
            "--png-dir",
            str(tmp_path / "png"),
        ]
    )
    assert code == 2
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option", ["--png-dir", "--frames", "--data", "--gif", "--state-json"])
def test_an_empty_path_is_no_folder_and_no_file(
    option: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """'' is the current folder as a Path: --png-dir '' wrote the PNGs and the GIF there."""
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--stand-ins", option, ""]) == 2
    assert "an empty path is no" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_frames_to_replay_are_looked_for_at_the_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty folder, or one of other files, was found at the first throw ("no frame
    dice_44.jpg"); a file was "no such folder"."""
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("x")
    (empty / "dice_63.bak.jpg").write_bytes(b"")
    data = ["--data", str(tmp_path / "data")]
    assert main(["run", "--stand-ins", *data, "--frames", str(empty)]) == 2
    assert "no frames in it" in capsys.readouterr().err
    assert main(["run", "--stand-ins", *data, "--frames", str(empty / "notes.txt")]) == 2
    assert "notes.txt: not a folder" in capsys.readouterr().err
    assert main(["run", "--stand-ins", *data, "--frames", str(tmp_path / "mistyped")]) == 2
    assert "mistyped: no such folder" in capsys.readouterr().err  # not "not a folder"
    assert main(["demo", "--out", str(tmp_path / "demo"), "--frames", str(empty)]) == 2
    assert "no frames in it" in capsys.readouterr().err
    assert not (tmp_path / "data").exists() and not (tmp_path / "demo").exists()


def test_a_run_lets_its_data_folder_go_when_it_stops(tmp_path: Path) -> None:
    """The lock was held until the garbage collector found the loop: a second run in
    the same process was refused with the process's own number."""
    script = tmp_path / "script.json"
    script.write_text('["quit"]')
    args = ["run", "--stand-ins", "--script", str(script), "--data", str(tmp_path / "data")]
    assert main(args) == 0
    assert main(args) == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root")
def test_root_does_not_run_the_table_on_another_users_data_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """'sudo dicetable run' on the service's folder wrote root's game logs there: the
    service's own user could then not write the game it was to resume."""
    data = tmp_path / "data"
    data.mkdir()
    os.chown(data, 65534, 65534)
    script = tmp_path / "script.json"
    script.write_text('["quit"]')
    assert main(["run", "--stand-ins", "--script", str(script), "--data", str(data)]) == 2
    err = capsys.readouterr().err
    assert "run it as" in err and "sudo -u" in err
    assert list(data.iterdir()) == []


def test_the_screen_of_a_service_waiting_for_its_data_folder_fits_the_oled() -> None:
    from table.service.cli_run import WAITING
    from table.service.screens import Message, overflow

    assert overflow(Message(*WAITING)) == ()


@pytest.mark.parametrize("option", ["--png-dir", "--frames", "--data", "--gif", "--state-json"])
@pytest.mark.parametrize("blank", [" ", "\t", "  \n"], ids=["space", "tab", "newline"])
def test_a_blank_path_is_no_folder_and_no_file(
    option: str, blank: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A path of spaces (``--png-dir "$DIR "`` with DIR unset) is refused as no path: taken
    as one, a folder named " " would be made in the current folder and filled with the
    PNGs."""
    import argparse

    from table.service.cli_run import add_arguments

    parser = argparse.ArgumentParser(prog="dicetable run")
    add_arguments(parser)
    with pytest.raises(SystemExit) as info:
        parser.parse_args([option, blank])
    assert info.value.code == 2
    assert f"{option}: an empty path is no" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["run", "read", "replay"])
def test_ctrl_c_while_a_command_loads_is_one_line_not_a_traceback(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in the first tenth of a second, while the command's modules load (OpenCV,
    Pillow: longer on a Pi), printed the whole traceback of the import."""
    import importlib

    from table.cli import main

    def interrupted(name: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib, "import_module", interrupted)
    try:
        code = main([command, "x"])
    except KeyboardInterrupt:  # not let through: it would stop the whole test run
        pytest.fail("Ctrl-C went through main as a KeyboardInterrupt")
    assert code == 130
    assert capsys.readouterr().err == "dicetable: stopped\n"


def test_run_from_a_removed_folder_says_which_output_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """From a folder since removed, the check that --gif names none of the table's own
    files followed its links, which asks for the current folder: the run stopped with a
    bare "No such file or directory"."""
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    code = main(["run", "--stand-ins", "--data", str(tmp_path / "data"), "--gif", "x.gif"])
    assert code == 2
    assert "--gif" in capsys.readouterr().err


def test_read_help_gives_its_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    """Scripts that run ``dicetable read`` need to know that a reroll is not a failure."""
    from table.cli import main

    assert main(["read", "--help"]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert (
        "exit status: 0 when every image was read (a reroll, with its reason, is a reading)" in said
    )
    assert "1 when an image could not be read" in said and "2 for wrong arguments" in said


def test_dicetable_itself_tells_its_version_and_its_commands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``dicetable --version`` and ``dicetable -h`` are answered by dicetable itself: if
    either were taken for an option misplaced before a command, a person asking what is
    installed, or what it can do, would be told off instead."""
    from table import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"dicetable {__version__}\n"
    for ask in ("-h", "--help"):
        assert main([ask]) == 0
        said = capsys.readouterr()
        assert said.err == ""
        assert all(command in said.out for command in ("replay", "read", "run", "demo"))


@pytest.mark.parametrize("argv", [[], ["play"], ["play", "--json"]])
def test_no_command_or_an_unknown_one_is_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing or mistyped command is a wrong argument (exit 2, said on standard
    error), never a success a script would go on from, nor a traceback."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: dicetable ") and "Traceback" not in err
    if argv:
        assert "invalid choice: 'play'" in err


def test_a_command_that_cannot_be_loaded_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module missing from the install (OpenCV for ``read``) is said in one line with
    exit 2, not a traceback of the import."""
    import importlib

    def missing(name: str) -> None:
        raise ImportError("No module named 'cv2'")

    monkeypatch.setattr(importlib, "import_module", missing)
    assert main(["read", "x.jpg"]) == 2
    assert capsys.readouterr().err == "dicetable read: cannot start (No module named 'cv2')\n"


def _replay_ends_with(fault: BaseException, monkeypatch: pytest.MonkeyPatch) -> None:
    """``dicetable replay`` raising ``fault`` from inside the command."""
    import table.replay

    def fails(args: object) -> int:
        raise fault

    monkeypatch.setattr(table.replay, "run", fails)


@pytest.mark.parametrize(
    ("fault", "code", "said"),
    [
        (BrokenPipeError(errno.EPIPE, "Broken pipe"), 0, ""),
        (
            FileNotFoundError(errno.ENOENT, "No such file or directory", "/games/g.json"),
            1,
            "dicetable replay: No such file or directory: /games/g.json\n",
        ),
        (ValueError("boom"), 1, "dicetable replay: internal error: ValueError: boom\n"),
        (KeyboardInterrupt(), 130, "dicetable replay: stopped\n"),
    ],
    ids=["broken-pipe", "os-error", "bug", "ctrl-c"],
)
def test_what_ends_a_command_is_one_line_and_its_exit_status(
    fault: BaseException,
    code: int,
    said: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reader gone (``| head``) is no failure; the machine's refusal names the file; a
    bug is one line with its type; Ctrl-C is 130. Each without a traceback."""
    monkeypatch.delenv("DICETABLE_DEBUG", raising=False)
    _replay_ends_with(fault, monkeypatch)
    assert main(["replay", "g.json"]) == code
    assert capsys.readouterr().err == said


@pytest.mark.parametrize(
    "fault", [ValueError("boom"), OSError(errno.EIO, "Input/output error")], ids=["bug", "os"]
)
def test_dicetable_debug_shows_the_traceback_before_the_line(
    fault: Exception, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``DICETABLE_DEBUG=1`` is for developers: the traceback, then the usual line."""
    monkeypatch.setenv("DICETABLE_DEBUG", "1")
    _replay_ends_with(fault, monkeypatch)
    assert main(["replay", "g.json"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):")
    assert err.splitlines()[-1].startswith("dicetable replay: ")


def test_closed_standard_error_keeps_standard_output_clean(tmp_path: Path) -> None:
    """Run with standard error closed (``2>&-``), the one-line error goes nowhere: not
    into standard output, where it would be read as the command's answer."""
    import subprocess
    import sys

    done = subprocess.run(
        ["bash", "-c", '"$0" -m table replay "$1" 2>&-', sys.executable, tmp_path / "nope.json"],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (2, "")
