"""The demo's frames (table/data/frames) can be made again from the photos they were cut
from: ``make_frames --sources`` rebuilds them from the crops SOURCES.json names, where a
fresh ``make_frames`` run would let today's reader choose other crops."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from table.service.make_frames import DEFAULT_OUT, default_dice_dir, main


def _make_from(sources: Path, out: Path) -> int:
    return main(["--dice", str(default_dice_dir()), "--out", str(out), "--sources", str(sources)])


def test_the_shipped_frames_are_made_again_from_their_sources(tmp_path: Path) -> None:
    sources = DEFAULT_OUT / "SOURCES.json"
    assert _make_from(sources, tmp_path) == 0
    shipped = sorted(DEFAULT_OUT.glob("*.jpg"))
    assert len(shipped) == 28  # 21 pairs, 6 single dice, the empty tray
    for path in shipped:
        again = cv2.imread(str(tmp_path / path.name))
        assert again is not None, path.name
        diff = np.abs(again.astype(np.int16) - cv2.imread(str(path)).astype(np.int16))
        assert int(diff.max()) <= 2, path.name  # the same crops; only the JPEG coder may differ
    assert json.loads((tmp_path / "SOURCES.json").read_text()) == json.loads(sources.read_text())


def _moved_box() -> str:
    data = json.loads((DEFAULT_OUT / "SOURCES.json").read_text())
    data["dice"]["3"]["bbox"] = [1.0, 1.0, 30.0, 30.0]
    return json.dumps(data)


@pytest.mark.parametrize(
    "text, words",
    [
        ("{", "cannot use"),
        (
            '{"dice": {"1": {"file": "byler_d6/images/x.jpg", "bbox": [0, 0, 9, 9]}}}',
            "each of 1-6",
        ),
        (_moved_box(), r"no labelled 3 at \[1.0, 1.0, 30.0, 30.0\]"),
    ],
)
def test_a_sources_file_that_cannot_be_followed_is_one_line(
    tmp_path: Path, text: str, words: str
) -> None:
    bad = tmp_path / "SOURCES.json"
    bad.write_text(text)
    with pytest.raises(SystemExit, match=words):
        _make_from(bad, tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "text, words",
    [
        ("{", "cannot read"),
        ('{"images": [{"file": "images/IMG_20191208_111228.jpg"}]}', "not a manifest"),
    ],
)
def test_a_broken_manifest_is_one_line_when_the_crops_are_chosen(
    tmp_path: Path, text: str, words: str
) -> None:
    """Without --sources the crops are chosen from every labelled die; a manifest that
    is not the data README's stopped that with a JSONDecodeError or KeyError traceback."""
    dice = tmp_path / "dice"
    (dice / "byler_d6").mkdir(parents=True)
    (dice / "byler_d6" / "images").symlink_to(default_dice_dir() / "byler_d6" / "images")
    (dice / "byler_d6" / "manifest.json").write_text(text)
    with pytest.raises(SystemExit) as info:
        main(["--dice", str(dice), "--out", str(tmp_path / "out")])
    said = str(info.value)
    assert said.startswith("make_frames: ") and "\n" not in said
    assert "manifest.json" in said and words in said
    assert not (tmp_path / "out").exists()


def test_a_photo_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    """A labelled photo missing from the images folder (the background, or a die's)
    stopped make_frames with a CameraError traceback."""
    shared = default_dice_dir() / "byler_d6"
    dice = tmp_path / "dice"
    (dice / "byler_d6" / "images").mkdir(parents=True)
    (dice / "byler_d6" / "manifest.json").symlink_to(shared / "manifest.json")
    sources = DEFAULT_OUT / "SOURCES.json"
    with pytest.raises(SystemExit) as info:
        main(["--dice", str(dice), "--out", str(tmp_path / "out"), "--sources", str(sources)])
    said = str(info.value)
    assert said.startswith("make_frames: ") and "\n" not in said
    assert "images/IMG_" in said and "no such file" in said
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("where", ["out is a file", "a frame's name is a folder"])
def test_frames_that_cannot_be_written_are_one_line_not_success(tmp_path: Path, where: str) -> None:
    """--out naming a file stopped with a FileExistsError traceback; a frame OpenCV could
    not write was passed over in silence, and make_frames said "wrote 28 frames" and
    exited 0 without it."""
    out = tmp_path / "out"
    if where == "out is a file":
        out.write_text("")
    else:
        (out / "dice_63.jpg").mkdir(parents=True)
    with pytest.raises(SystemExit) as info:
        _make_from(DEFAULT_OUT / "SOURCES.json", out)
    said = str(info.value)
    assert said.startswith(f"make_frames: cannot write to {out}") and "\n" not in said


@pytest.mark.parametrize("kind", ["missing", "empty"])
def test_an_also_models_folder_without_networks_is_refused(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """--also-models naming a folder that is not there, or holds neither locator.onnx
    nor classifier.onnx (a typo), was passed over: the frames were chosen for the
    shipped reader alone, as if they had been checked with those networks too."""
    folder = tmp_path / "models"
    if kind == "empty":
        folder.mkdir()
    dice = tmp_path / "dice"  # a broken manifest: the choosing, if it starts, stops at once
    (dice / "byler_d6").mkdir(parents=True)
    (dice / "byler_d6" / "images").symlink_to(default_dice_dir() / "byler_d6" / "images")
    (dice / "byler_d6" / "manifest.json").write_text("{")
    argv = ["--dice", str(dice), "--out", str(tmp_path / "out"), "--also-models", str(folder)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"--also-models {folder}: no locator.onnx or classifier.onnx" in err
    assert not (tmp_path / "out").exists()


def test_an_empty_out_is_refused_not_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--out "$OUT" with OUT unset wrote the 28 frames and SOURCES.json into the current
    folder (Path("") is "."), over any files of those names there."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(["--out", "", "--sources", str(DEFAULT_OUT / "SOURCES.json")])
    assert info.value.code == 2
    assert "--out: an empty path is no folder" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
