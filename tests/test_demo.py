"""``dicetable demo`` plays mex, mexico and mexen headless on the shipped real-photo frames."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PIL import Image

from table.game import replay
from table.gamelog import load
from table.service.demo import DEMO_PLAYS

REPO = Path(__file__).resolve().parents[1]


def test_demo_plays_every_game_and_saves_frames_gif_and_log(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    env = dict(os.environ, DICETABLE_CONFIG=os.devnull, DICETABLE_DATA=str(tmp_path / "unused"))
    proc = subprocess.run(
        [sys.executable, "-m", "table", "demo", "--out", str(out)],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
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
