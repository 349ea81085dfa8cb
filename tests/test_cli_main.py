"""The command dispatcher's last line of defence (table/cli.py)."""

from __future__ import annotations

import errno
import io
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
