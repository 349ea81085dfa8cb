"""``dicetable demo`` plays mex, mexico and mexen headless on the shipped real-photo frames."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from table.cli import main
from table.game import replay
from table.gamelog import load
from table.service.demo import DEMO_PLAYS

REPO = Path(__file__).resolve().parents[1]


def test_demo_plays_every_game_and_saves_frames_gif_and_log(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    proc = _demo("--out", str(out), tmp=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    for rules in DEMO_PLAYS:
        folder = out / rules
        pngs = sorted((folder / "png").glob("frame_*.png"))
        assert len(pngs) >= 10
        first = Image.open(pngs[0])
        assert first.size == (128, 64)
        with Image.open(folder / "display.gif") as gif:
            assert gif.n_frames == len(pngs)
        log = load(folder / f"{rules}.jsonl")
        game = replay(log.header, log.events)
        assert game.is_over and game.refused == ()
        winner = game.view()["winner"]
        line = next(x for x in proc.stdout.splitlines() if x.startswith(f"{rules}:"))
        assert "game over" in line and f"winner {winner}" in line
    assert "winner P1" in proc.stdout  # mex and mexico: P1; mexen: P2 (fewest points)
    assert "mexen: game over" in proc.stdout and "winner P2" in proc.stdout


def _demo(*args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DICETABLE_CONFIG=os.devnull, DICETABLE_DATA=str(tmp / "unused"))
    return subprocess.run(
        [sys.executable, "-m", "table", "demo", *args],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_demo_replaces_only_its_own_folder(tmp_path: Path) -> None:
    """A folder the demo did not write is never deleted: the demo refuses to start."""
    out = tmp_path / "out"
    (out / "mex").mkdir(parents=True)
    (out / "mex" / "notes.txt").write_text("mine")
    proc = _demo("--out", str(out), "--games", "mex", tmp=tmp_path)
    assert proc.returncode == 2
    assert "is not a demo's output" in proc.stderr and proc.stderr.count("\n") == 1
    assert (out / "mex" / "notes.txt").read_text() == "mine"
    # A demo's own folder is replaced by the next demo.
    (out / "mex" / "notes.txt").unlink()
    (out / "mex").rmdir()
    assert _demo("--out", str(out), "--games", "mex", tmp=tmp_path).returncode == 0
    first = sorted(p.name for p in (out / "mex").iterdir())
    assert ".dicetable-demo" in first and "mex.jsonl" in first
    assert _demo("--out", str(out), "--games", "mex", tmp=tmp_path).returncode == 0


def test_demo_with_a_missing_frames_folder_says_so_at_once(tmp_path: Path) -> None:
    proc = _demo("--out", str(tmp_path / "o"), "--frames", str(tmp_path / "nope"), tmp=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"dicetable demo: --frames {tmp_path / 'nope'}: no such folder"


def test_demo_of_no_game_is_a_bad_argument(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--games ""` (an unset shell variable) or `--games ,` played nothing and exited 0."""
    for games in ("", ",", " , "):
        assert main(["demo", "--out", str(tmp_path / "o"), "--games", games]) == 2
        err = capsys.readouterr().err
        assert err == "dicetable demo: --games names no game (demos: mex, mexico, mexen)\n"
    assert not (tmp_path / "o").exists()
