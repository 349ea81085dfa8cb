"""``dicetable read``: output lines, exit codes, --expect, --annotate.

Most tests use a fake reader (so they check this command, not the reader's
accuracy); the last ones run the real reader on the labelled photos.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tests.conftest import damaged_inside, photo_like
from vision import cli_read
from vision.dataset import LabelledImage, default_data_dir, load_set
from vision.sources import list_images, load_image
from vision.types import DieReading, FrameReading, FrameStatus

REPO = Path(__file__).resolve().parents[1]


DICE_DIR = default_data_dir()  # ../shared/data/dice, or $DICETABLE_SHARED


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="dicetable read")
    cli_read.add_arguments(parser)
    return parser.parse_args(argv)


def _die(value: int | None, x: float, y: float, reason: str = "") -> DieReading:
    return DieReading(value, (x, y), ((x, y), (20.0, 20.0), 15.0), 0.875, reason)


class FakeReader:
    """Wide images hold a 6 and a 3; tall ones a tilted die, so: reroll."""

    def __init__(self, fail_on_height: int | None = None) -> None:
        self.calls: list[tuple[tuple[int, ...], int | None]] = []
        self.fail_on_height = fail_on_height

    def read(self, frame_bgr: np.ndarray, expect: int | None = None) -> FrameReading:
        self.calls.append((frame_bgr.shape, expect))
        h, w = frame_bgr.shape[:2]
        if h == self.fail_on_height:
            raise RuntimeError("model exploded")
        if w > h:
            return FrameReading(
                FrameStatus.OK, "", (_die(3, 100, 120), _die(6, 200.04, 150)), 12.34
            )
        dice = (_die(5, 10, 10), _die(None, 30, 50, "tilted"))
        return FrameReading(FrameStatus.REROLL, "die 2 is tilted", dice, 40.0)


def write(path: Path, w: int, h: int, level: int = 120) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    assert cv2.imwrite(str(path), np.full((h, w, 3), level, np.uint8))
    return str(path)


def run(argv: list[str], reader: Any) -> tuple[int, list[str], str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli_read.run(parse(argv), reader=reader, out=out, err=err)
    return code, out.getvalue().splitlines(), err.getvalue()


def test_json_lines_in_order_with_errors_in_place(tmp_path: Path) -> None:
    wide = write(tmp_path / "wide.png", 64, 48)
    tall = write(tmp_path / "tall.png", 48, 64)
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not a jpeg at all")
    missing = str(tmp_path / "missing.jpg")
    code, lines, err = run(["--json", wide, str(junk), tall, missing], FakeReader())
    assert code == 1 and err == ""
    objs = [json.loads(line) for line in lines]
    assert [o["file"] for o in objs] == [wide, str(junk), tall, missing]
    assert [o["status"] for o in objs] == ["ok", "error", "reroll", "error"]
    for o in objs:
        assert set(o) == {"file", "status", "reason", "dice", "ms"}
    ok, bad, reroll, gone = objs
    assert ok["reason"] == "" and ok["ms"] == 12.34
    assert ok["dice"] == [
        {"value": 3, "center": [100.0, 120.0], "box": [[100.0, 120.0], [20.0, 20.0], 15.0],
         "confidence": 0.875},
        {"value": 6, "center": [200.0, 150.0], "box": [[200.0, 150.0], [20.0, 20.0], 15.0],
         "confidence": 0.875},
    ]  # fmt: skip
    assert reroll["reason"] == "die 2 is tilted"
    assert [d["value"] for d in reroll["dice"]] == [5, None]
    assert reroll["dice"][1]["reason"] == "tilted"
    assert bad == {"file": str(junk), "status": "error", "dice": [], "ms": 0.0,
                   "reason": "cannot read image: not an image OpenCV can read "
                             "(damaged, another format, or over 64 megapixels)"}  # fmt: skip
    assert gone["reason"] == "cannot read image: no such file"


def test_text_lines_are_readable(tmp_path: Path) -> None:
    wide = write(tmp_path / "wide.png", 64, 48)
    tall = write(tmp_path / "tall.png", 48, 64)
    code, lines, _ = run([wide, tall, str(tmp_path / "gone.jpg")], FakeReader())
    assert code == 1
    assert lines == [
        f"{wide}: ok  6 3  (12 ms)",
        f"{tall}: reroll — die 2 is tilted  [5 ?]  (40 ms)",
        f"{tmp_path / 'gone.jpg'}: error — cannot read image: no such file",
    ]


def test_a_name_with_a_line_break_stays_on_its_one_line(tmp_path: Path) -> None:
    """A file named with a line break split its text line in two."""
    odd = write(tmp_path / "a\nb.png", 64, 48)
    gone = str(tmp_path / "c\td.jpg")
    code, lines, _ = run([odd, gone], FakeReader())
    assert lines == [
        f"{tmp_path}/a\\nb.png: ok  6 3  (12 ms)",
        f"{tmp_path}/c\\td.jpg: error — cannot read image: no such file",
    ]


def test_all_read_is_exit_zero_and_expect_reaches_the_reader(tmp_path: Path) -> None:
    files = [write(tmp_path / f"{i}.png", 64, 48) for i in range(3)]
    reader = FakeReader()
    code, lines, _ = run(["--json", "--expect", "2", *files], reader)
    assert code == 0 and len(lines) == 3
    assert [expect for _, expect in reader.calls] == [2, 2, 2]
    assert [shape for shape, _ in reader.calls] == [(48, 64, 3)] * 3
    reader = FakeReader()
    run(files[:1], reader)
    assert reader.calls == [((48, 64, 3), None)]


def test_a_folder_without_photos_says_so(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("no photo")
    good = write(tmp_path / "good.png", 64, 48)
    code, lines, _ = run(["--json", str(empty), good], FakeReader())
    assert code == 1 and len(lines) == 2
    first = json.loads(lines[0])
    assert first["file"] == str(empty) and first["status"] == "error"
    assert first["reason"].startswith("no images in this folder (looked for ")
    assert json.loads(lines[1])["status"] == "ok"


def test_a_name_too_long_is_its_own_line_and_the_others_still_go(tmp_path: Path) -> None:
    """A name longer than the file system allows makes the OS refuse even to look
    (ENAMETOOLONG): that image's line says so, in its place, and the rest are read."""
    good = write(tmp_path / "good.png", 64, 48)
    too_long = str(tmp_path / ("x" * 300 + ".jpg"))
    code, lines, err = run(["--json", good, too_long, good], FakeReader())
    assert code == 1 and err == "" and len(lines) == 3
    first, second, third = (json.loads(line) for line in lines)
    assert first["status"] == "ok" and third["status"] == "ok"
    assert second["file"] == too_long and second["status"] == "error"
    assert second["reason"].startswith("cannot read image: cannot open (")


def test_a_folder_stands_for_its_photos_in_name_order(tmp_path: Path) -> None:
    for name in ("shot10.png", "shot2.png", "shot1.jpg"):
        write(tmp_path / "throws" / name, 64, 48)
    (tmp_path / "throws" / "notes.txt").write_text("ignored")
    code, lines, _ = run(["--json", str(tmp_path / "throws")], FakeReader())
    assert code == 0
    assert [Path(json.loads(line)["file"]).name for line in lines] == [
        "shot1.jpg",
        "shot2.png",
        "shot10.png",
    ]


def test_an_empty_path_is_no_image_not_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``dicetable read "$PHOTO"`` with the variable unset: Path("") is the current
    folder, whose photos must not be read in its place."""
    here = tmp_path / "here"
    write(here / "stray.png", 64, 48)
    a = write(tmp_path / "a.png", 64, 48)
    monkeypatch.chdir(here)
    reader = FakeReader()
    code, lines, _ = run(["--json", "", a], reader)
    assert code == 1 and len(reader.calls) == 1
    first, second = (json.loads(line) for line in lines)
    assert first == {
        "file": "",
        "status": "error",
        "reason": "an empty path is no image",
        "dice": [],
        "ms": 0.0,
    }
    assert second["file"] == a and second["status"] == "ok"


def test_annotate_writes_one_drawn_image_per_input(tmp_path: Path) -> None:
    a = write(tmp_path / "one" / "throw.png", 320, 240, level=90)
    b = write(tmp_path / "two" / "throw.png", 240, 320, level=90)  # same name, other folder
    out_dir = tmp_path / "annotated" / "deep"
    code, lines, _ = run(["--annotate", str(out_dir), a, b], FakeReader())
    assert code == 0 and len(lines) == 2
    written = sorted(p.name for p in out_dir.iterdir())
    assert written == ["throw-2.read.jpg", "throw.read.jpg"]
    first = load_image(out_dir / "throw.read.jpg")
    second = load_image(out_dir / "throw-2.read.jpg")
    assert first.shape == (240, 320, 3) and second.shape == (320, 240, 3)
    # Something was drawn: the banner at the top is green for ok, red for reroll (the
    # tall one's die 1 lies in the top corner, so its banner goes across the bottom).
    b_, g, r = (float(v) for v in first[5:15, :, :].reshape(-1, 3).mean(axis=0))
    assert g > r + 40 and g > b_ + 40, (b_, g, r)
    b_, g, r = (float(v) for v in second[-15:-5, :, :].reshape(-1, 3).mean(axis=0))
    assert r > g + 40 and r > b_ + 40, (b_, g, r)
    # and the die boxes: the plain grey picture is no longer plain around them,
    # but stays plain far from them.
    assert float(np.abs(first[100:170, 80:230].astype(int) - 90).max()) > 100
    assert float(np.abs(first[200:, 250:].astype(int) - 90).max()) < 10


def test_numbered_copies_name_their_own_input_in_the_banner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two inputs of one name (other folders) get numbered copies; the banner of each
    must tell which photo it is, not both say "throw.png"."""
    titles: list[str] = []
    drawn = cli_read.annotate

    def recording(image: Any, reading: FrameReading, *, title: str | None = None) -> Any:
        titles.append(title or "")
        return drawn(image, reading, title=title)

    monkeypatch.setattr(cli_read, "annotate", recording)
    a = write(tmp_path / "one" / "throw.png", 320, 240)
    b = write(tmp_path / "two" / "throw.png", 320, 240)
    code, _, _ = run(["--annotate", str(tmp_path / "out"), a, b, a], FakeReader())
    assert code == 0
    assert titles == ["throw.png", b, a]


@pytest.mark.parametrize("stem", ["y" * 247, "\u00e9" * 123])
def test_a_long_name_gets_a_copy_the_file_system_takes(tmp_path: Path, stem: str) -> None:
    """A photo whose name is near the file system's 255 bytes: "<stem>.read.jpg" would
    be longer ("File name too long"). The copy's name is cut, whole characters only."""
    a = write(tmp_path / f"{stem}.png", 320, 240)
    out_dir = tmp_path / "out"
    code, lines, err = run(["--annotate", str(out_dir), a, a], FakeReader())
    assert code == 0 and err == "" and len(lines) == 2
    names = sorted(p.name for p in out_dir.iterdir())
    assert len(names) == 2 and all(n.endswith(".read.jpg") for n in names)
    assert all(len(n.encode()) <= 255 and n.startswith(stem[:50]) for n in names), names


def test_annotate_into_a_file_is_a_bad_argument(tmp_path: Path) -> None:
    a = write(tmp_path / "a.png", 64, 48)
    clash = tmp_path / "clash"
    clash.write_text("a file, not a folder")
    code, lines, err = run(["--annotate", str(clash), a], FakeReader())
    assert code == 2 and lines == []
    assert "--annotate" in err and err.endswith("\n") and err.count("\n") == 1
    assert "(a file, not a folder)" in err


def test_an_annotated_image_that_cannot_be_written_says_why(tmp_path: Path) -> None:
    a = write(tmp_path / "a.png", 64, 48)
    out_dir = tmp_path / "out"
    (out_dir / "a.read.jpg").mkdir(parents=True)  # where the drawn image would go
    code, lines, err = run(["--annotate", str(out_dir), a], FakeReader())
    assert code == 1 and len(lines) == 1
    assert f"could not write {out_dir / 'a.read.jpg'} (Is a directory)" in err


def test_annotating_into_the_folder_read_does_not_read_its_own_pictures(
    tmp_path: Path,
) -> None:
    """Run twice, the second run read the first one's x.read.jpg as photos too, and wrote
    x.read.read.jpg."""
    photos = tmp_path / "photos"
    write(photos / "a.png", 64, 48)
    write(photos / "b.png", 64, 48)
    for _ in range(2):
        code, lines, _ = run(["--annotate", str(photos), str(photos)], FakeReader())
        assert code == 0 and len(lines) == 2, lines
    assert sorted(p.name for p in photos.iterdir()) == [
        "a.png",
        "a.read.jpg",
        "b.png",
        "b.read.jpg",
    ]


def test_an_annotated_picture_replaces_a_link_not_the_file_it_leads_to(tmp_path: Path) -> None:
    a = write(tmp_path / "a.png", 64, 48)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    keep = tmp_path / "keep.txt"
    keep.write_text("not a picture")
    (out_dir / "a.read.jpg").symlink_to(keep)
    code, _, _ = run(["--annotate", str(out_dir), a], FakeReader())
    assert code == 0
    assert keep.read_text() == "not a picture"
    written = out_dir / "a.read.jpg"
    assert not written.is_symlink() and load_image(written).shape == (48, 64, 3)
    assert sorted(p.name for p in out_dir.iterdir()) == ["a.read.jpg"]  # no part left


def test_reader_failing_on_one_photo_does_not_stop_the_others(tmp_path: Path) -> None:
    good = write(tmp_path / "good.png", 64, 48)
    cursed = write(tmp_path / "cursed.png", 64, 33)
    code, lines, _ = run(["--json", cursed, good], FakeReader(fail_on_height=33))
    assert code == 1
    first, second = (json.loads(line) for line in lines)
    assert first["status"] == "error"
    assert first["reason"] == "reader failed: RuntimeError: model exploded"
    assert second["status"] == "ok"
    code, lines, _ = run([cursed, good], FakeReader(fail_on_height=33))
    assert code == 1
    assert lines == [
        f"{cursed}: error — reader failed: RuntimeError: model exploded",
        f"{good}: ok  6 3  (12 ms)",
    ]


def test_reader_that_cannot_start_is_one_line(tmp_path: Path) -> None:
    a = write(tmp_path / "a.png", 64, 48)

    def broken() -> FakeReader:
        raise FileNotFoundError("vision/models/dice.onnx is missing")

    out, err = io.StringIO(), io.StringIO()
    code = cli_read.run(parse([a]), make_reader=broken, out=out, err=err)
    assert code == 1 and out.getvalue() == ""
    assert err.getvalue() == (
        "dicetable read: cannot start the pip reader (vision/models/dice.onnx is missing)\n"
    )

    def several_lines() -> FakeReader:
        raise RuntimeError("OpenCV(5.1.0) dnn.cpp:9:\n error: no net\n")

    err = io.StringIO()
    assert cli_read.run(parse([a]), make_reader=several_lines, out=out, err=err) == 1
    assert err.getvalue() == (
        "dicetable read: cannot start the pip reader (OpenCV(5.1.0) dnn.cpp:9:\\n error: no net)\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--expect", "two", "a.jpg"],
        ["--expect", "0", "a.jpg"],
        ["--expect", "2_0", "a.jpg"],  # int() reads it as 20
        ["--expect", "\u0663", "a.jpg"],  # an Arabic-Indic 3: int() reads it as 3
        ["--expect", "-1", "a.jpg"],
        ["--bogus", "a.jpg"],
        ["--annotate", "", "a.jpg"],  # an unset shell variable: not the current folder
    ],
)
def test_bad_arguments_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        parse(argv)
    assert info.value.code == 2
    assert "usage: dicetable read" in capsys.readouterr().err


def _on_an_ascii_terminal(files: list[str]) -> str:
    """What ``dicetable read FILES`` prints to a terminal that takes ASCII only."""
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii")
    code = cli_read.run(parse(files), reader=FakeReader(), out=out, err=io.StringIO())
    out.flush()
    assert code == 0
    return raw.getvalue().decode("ascii")


def test_text_output_survives_a_terminal_without_unicode(tmp_path: Path) -> None:
    tall = write(tmp_path / "tall.png", 48, 64)
    said = _on_an_ascii_terminal([tall])
    assert said == f"{tall}: reroll - die 2 is tilted  [5 ?]  (40 ms)\n"


# -- through the real command -------------------------------------------------


def dicetable(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "table", "read", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_command_rejects_bad_arguments_without_a_traceback() -> None:
    done = dicetable("--expect", "lots", "a.jpg")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "--expect" in done.stderr


def _labelled(set_name: str, count: int) -> list[LabelledImage]:
    return load_set(set_name)[:count]


needs_reader_and_photos = pytest.mark.skipif(
    not (DICE_DIR / "byler_d6" / "manifest.json").exists()
    or not (REPO / "vision" / "reader.py").exists(),
    reason="needs the labelled photos and vision/reader.py",
)


@needs_reader_and_photos
def test_real_reader_on_real_photos_through_the_command(tmp_path: Path) -> None:
    photos = _labelled("byler_d6", 3) + _labelled("matteo_webcam", 3)
    junk = tmp_path / "broken.jpg"
    junk.write_bytes(b"\xff\xd8 truncated")
    files = [str(p.path) for p in photos]
    out_dir = tmp_path / "seen"
    done = dicetable("--json", "--annotate", str(out_dir), files[0], str(junk), *files[1:])
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stderr
    objs = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o["file"] for o in objs] == [files[0], str(junk), *files[1:]]
    assert objs[1]["status"] == "error"
    real = [objs[0], *objs[2:]]
    for obj, photo in zip(real, photos, strict=True):
        assert set(obj) == {"file", "status", "reason", "dice", "ms"}
        assert obj["status"] in ("ok", "reroll")
        assert obj["ms"] > 0
        if obj["status"] == "reroll":
            assert obj["reason"], obj
        for die in obj["dice"]:
            assert die["value"] in (None, 1, 2, 3, 4, 5, 6)
            x, y = die["center"]
            assert 0 <= x <= photo.width and 0 <= y <= photo.height
            assert 0.0 <= die["confidence"] <= 1.0
            assert len(die["box"]) == 3 and len(die["box"][0]) == 2
        drawn = load_image(out_dir / f"{photo.path.stem}.read.jpg")
        assert drawn.shape == (photo.height, photo.width, 3)
    assert len(list(out_dir.iterdir())) == len(photos)


@needs_reader_and_photos
def test_real_reader_honours_expect() -> None:
    """An ok reading under --expect N lists exactly N read dice."""
    photos = _labelled("matteo_webcam", 4)
    for photo in photos:
        n = len(photo.dice)
        for expect in (n, n + 1):
            done = dicetable("--json", "--expect", str(expect), str(photo.path))
            assert done.returncode == 0, done.stderr
            obj = json.loads(done.stdout)
            if obj["status"] == "ok":
                assert len(obj["dice"]) == expect, (photo.name, expect, obj)
                assert all(d["value"] is not None for d in obj["dice"])


@needs_reader_and_photos
def test_real_reader_under_the_right_expect_reads_and_under_another_rerolls() -> None:
    """--expect N with the photo's own count of dice gives its reading (these photos
    are read whole without it); one more is a reroll that says what it saw."""
    for photo in _labelled("matteo_webcam", 4):
        n = len(photo.dice)
        plain = json.loads(dicetable("--json", str(photo.path)).stdout)
        assert plain["status"] == "ok" and len(plain["dice"]) == n, (photo.name, plain)
        right = json.loads(dicetable("--json", "--expect", str(n), str(photo.path)).stdout)
        assert right["status"] == "ok", (photo.name, right)
        assert [d["value"] for d in right["dice"]] == [d["value"] for d in plain["dice"]]
        wrong = json.loads(dicetable("--json", "--expect", str(n + 1), str(photo.path)).stdout)
        assert wrong["status"] == "reroll", (photo.name, wrong)
        assert wrong["reason"] == f"saw {n} {'die' if n == 1 else 'dice'}, expected {n + 1}"


# -- line format, names and files written ------------------------------------


def test_each_json_line_has_its_fields_in_the_documented_order(tmp_path: Path) -> None:
    """Every JSON line, read or not, lists file, status, reason, dice and ms in that
    order; if it did not, a person scanning the output (or a tool reading it by
    position) would find the file name somewhere in the middle of some lines."""
    wide = write(tmp_path / "wide.png", 64, 48)
    tall = write(tmp_path / "tall.png", 48, 64)
    missing = str(tmp_path / "missing.jpg")
    code, lines, _ = run(["--json", wide, missing, tall], FakeReader())
    assert code == 1 and len(lines) == 3
    for line in lines:
        assert list(json.loads(line)) == ["file", "status", "reason", "dice", "ms"], line
        assert line.startswith('{"file": ')
    assert all(isinstance(json.loads(line)["ms"], float) for line in lines)
    assert all(json.loads(line)["ms"] >= 0 for line in lines)


def test_a_reroll_without_dice_shows_no_empty_brackets(tmp_path: Path) -> None:
    """A reroll in which no die was seen says why and nothing more; if it did not, the
    readable line would end in an empty ``[]`` where the dice seen go."""

    class NoDice:
        def read(self, frame_bgr: np.ndarray, expect: int | None = None) -> FrameReading:
            return FrameReading(FrameStatus.REROLL, "no dice in view", (), 7.0)

    a = write(tmp_path / "a.png", 64, 48)
    code, lines, _ = run([a], NoDice())
    assert code == 0
    assert lines == [f"{a}: reroll — no dice in view  (7 ms)"]


def test_each_line_is_flushed_before_the_next_photo_is_read(tmp_path: Path) -> None:
    """A line reaches the output as soon as its photo is read; if it did not, a program
    reading the output through a pipe would wait for the whole run before it saw the
    first result."""

    class FlushRecordingOut(io.StringIO):
        def __init__(self) -> None:
            super().__init__()
            self.flushed = ""

        def flush(self) -> None:
            super().flush()
            self.flushed = self.getvalue()

    out = FlushRecordingOut()
    seen_before_read: list[int] = []

    class Watching(FakeReader):
        def read(self, frame_bgr: np.ndarray, expect: int | None = None) -> FrameReading:
            seen_before_read.append(out.flushed.count("\n"))
            return super().read(frame_bgr, expect)

    files = [write(tmp_path / f"{i}.png", 64, 48) for i in range(3)]
    code = cli_read.run(parse(["--json", *files]), reader=Watching(), out=out, err=io.StringIO())
    assert code == 0
    assert seen_before_read == [0, 1, 2]
    assert out.flushed.count("\n") == 3


def test_a_folder_that_cannot_be_listed_is_its_own_line_and_the_others_still_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder the OS refuses to list gets an error line saying so, in its place, and
    the run goes on with exit status 1; if it did not, one locked folder would stop the
    reading of every photo after it with a traceback."""
    locked = tmp_path / "locked"
    locked.mkdir()
    listed = list_images

    def refusing(folder: str | Path) -> list[Path]:
        if Path(folder) == locked:
            raise PermissionError(13, "Permission denied", str(folder))
        return listed(folder)

    monkeypatch.setattr(cli_read, "list_images", refusing)
    good = write(tmp_path / "good.png", 64, 48)
    code, lines, err = run(["--json", str(locked), good], FakeReader())
    assert code == 1 and err == "" and len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["file"] == str(locked) and first["status"] == "error"
    assert first["reason"] == "cannot list this folder (Permission denied)"
    assert second["file"] == good and second["status"] == "ok"


@pytest.mark.parametrize("count", ["1", "6", "50"])
def test_expect_takes_any_count_from_one_to_fifty(count: str) -> None:
    """``--expect`` takes every count its message promises (1 to 50); if it did not, a
    tray of six dice could not be checked at all."""
    assert parse(["--expect", count, "a.jpg"]).expect == int(count)


def test_expect_above_fifty_is_a_bad_argument(capsys: pytest.CaptureFixture[str]) -> None:
    """A count past 50 is refused as an argument; if it were not, a typo such as 600
    would turn every photo into a reroll instead of saying what is wrong."""
    with pytest.raises(SystemExit) as info:
        parse(["--expect", "51", "a.jpg"])
    assert info.value.code == 2
    assert "1 to 50" in capsys.readouterr().err


def test_annotate_into_a_blank_name_is_a_bad_argument(capsys: pytest.CaptureFixture[str]) -> None:
    """``--annotate "  "`` (a variable holding only spaces) is refused; if it were not,
    a folder named with spaces would appear in the current folder."""
    with pytest.raises(SystemExit) as info:
        parse(["--annotate", "  ", "a.jpg"])
    assert info.value.code == 2
    assert "usage: dicetable read" in capsys.readouterr().err


def test_three_inputs_of_one_name_give_three_pictures(tmp_path: Path) -> None:
    """Each input gets its own drawn picture, numbered on from 2; if numbering stopped
    at one step, the third photo's picture would overwrite the second's."""
    photos = [write(tmp_path / d / "throw.png", 320, 240) for d in ("one", "two", "three")]
    out_dir = tmp_path / "out"
    code, lines, err = run(["--annotate", str(out_dir), *photos], FakeReader())
    assert code == 0 and err == "" and len(lines) == 3
    assert sorted(p.name for p in out_dir.iterdir()) == [
        "throw-2.read.jpg",
        "throw-3.read.jpg",
        "throw.read.jpg",
    ]


def test_a_cut_name_keeps_only_whole_characters(tmp_path: Path) -> None:
    """A long name is cut to whole characters; if a character were split, the copy's
    name would hold a replacement character that is in no input's name."""
    stem = "y" + "\u00e9" * 123  # the byte limit falls inside an "é"
    a = write(tmp_path / f"{stem}.png", 320, 240)
    out_dir = tmp_path / "out"
    code, _, err = run(["--annotate", str(out_dir), a], FakeReader())
    assert code == 0 and err == ""
    (written,) = out_dir.iterdir()
    cut = written.name.removesuffix(".read.jpg")
    assert stem.startswith(cut) and len(cut) >= 100, written.name


def test_a_picture_that_cannot_be_written_leaves_no_partial_file(tmp_path: Path) -> None:
    """When a drawn picture cannot be written, nothing half-written stays behind; if it
    did, the folder would fill with hidden ``.part`` files, one per failed picture."""
    a = write(tmp_path / "a.png", 64, 48)
    out_dir = tmp_path / "out"
    (out_dir / "a.read.jpg").mkdir(parents=True)  # where the drawn image would go
    code, _, err = run(["--annotate", str(out_dir), a], FakeReader())
    assert code == 1 and "could not write" in err
    assert sorted(p.name for p in out_dir.iterdir()) == ["a.read.jpg"]


def test_an_input_named_like_a_drawn_picture_is_not_written_over(tmp_path: Path) -> None:
    """An input named ``b.read.jpg`` beside ``b.png`` was written over by the drawn
    picture of ``b.png`` before it was read, so the photo was lost and its line gave
    the reading of the other one. The drawn picture takes a numbered name instead."""
    photos = tmp_path / "photos"
    wide = write(photos / "b.png", 64, 48)
    tall = write(photos / "b.read.jpg", 48, 64)  # someone's own photo, by that name
    reader = FakeReader()
    code, lines, err = run(["--json", "--annotate", str(photos), wide, tall], reader)
    assert code == 0 and err == ""
    assert [json.loads(line)["status"] for line in lines] == ["ok", "reroll"]
    assert load_image(photos / "b.read.jpg").shape == (64, 48, 3)
    assert [shape for shape, _ in reader.calls] == [(48, 64, 3), (64, 48, 3)]
    assert sorted(p.name for p in photos.iterdir()) == [
        "b-2.read.jpg",
        "b.png",
        "b.read.jpg",
        "b.read.read.jpg",
    ]


def test_an_input_reached_by_a_link_is_not_written_over_either(tmp_path: Path) -> None:
    """A photo given by a link of another name (``shots/latest.jpg`` pointing at
    ``out/b.read.jpg``) is the same file as a drawn picture's name: the drawn picture
    takes a numbered name, and the photo is read as it was."""
    out = tmp_path / "out"
    wide = write(tmp_path / "b.png", 64, 48)
    tall = write(out / "b.read.jpg", 48, 64)
    link = tmp_path / "shots" / "latest.jpg"
    link.parent.mkdir()
    link.symlink_to(tall)
    reader = FakeReader()
    code, lines, _ = run(["--json", "--annotate", str(out), wide, str(link)], reader)
    assert code == 0
    assert [json.loads(line)["status"] for line in lines] == ["ok", "reroll"]
    assert load_image(tall).shape == (64, 48, 3)
    assert (out / "b-2.read.jpg").is_file()


# -- standard output and error as the shell leaves them --------------------------


def _half_files(tmp_path: Path) -> list[str]:
    """A photo-like picture written as PNG, BMP and TIFF, each cut off halfway, and as a
    JPEG cut off with a run of zero bytes before the cut."""
    picture = photo_like(240, 320)
    names = []
    for suffix in ("png", "bmp", "tiff", "jpg"):
        ok, data = cv2.imencode(f".{suffix}", picture)
        assert ok
        raw = bytearray(data.tobytes())
        if suffix == "jpg":
            raw[len(raw) // 2 : len(raw) // 2 + 40] = bytes(40)
            raw = raw[: len(raw) * 3 // 4]
        else:
            raw = raw[: len(raw) // 2]
        (tmp_path / f"cut.{suffix}").write_bytes(bytes(raw))
        names.append(str(tmp_path / f"cut.{suffix}"))
    return names


def test_damaged_files_are_one_line_each_and_nothing_on_standard_error(tmp_path: Path) -> None:
    """libpng, libtiff and libjpeg write their complaints to standard error themselves,
    and OpenCV logged its own errors there: "libpng error: PNG input buffer is
    incomplete" and two lines of "[ERROR:0@0.05] global loadsave.cpp ..." came between
    the lines, each image's own line already saying it cannot be read."""
    names = _half_files(tmp_path)
    done = dicetable(*names)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert len(lines) == len(names)
    assert all(": error — cannot read image" in line for line in lines[:3])
    assert done.stderr == ""


def _damaged_beside_intact(
    tmp_path: Path, data: bytes, suffix: str
) -> tuple[Path, Path, list[str]]:
    """A picture's bytes as ``intact`` and with four bytes in its middle zeroed as
    ``damaged``, read in that order (damaged first): the two paths and the lines."""
    intact = tmp_path / f"intact{suffix}"
    intact.write_bytes(data)
    damaged = tmp_path / f"damaged{suffix}"
    damaged.write_bytes(damaged_inside(data))
    done = dicetable(str(damaged), str(intact))
    assert done.returncode == 1 and done.stderr == ""
    return damaged, intact, done.stdout.splitlines()


def test_a_jpeg_decoded_only_in_part_is_damaged_not_read(tmp_path: Path) -> None:
    """A JPEG with a few bytes changed still decodes, grey or smeared past the damage:
    libjpeg's "Corrupt JPEG data" went to the closed standard error, and the photo was
    read "ok" with a die missing. It is now an error line naming the damage."""
    frame = REPO / "table" / "data" / "frames" / "dice_63.jpg"
    damaged, intact, (first, second) = _damaged_beside_intact(tmp_path, frame.read_bytes(), ".jpg")
    assert first.startswith(f"{damaged}: error — cannot read image: damaged (Corrupt JPEG data")
    assert second.startswith(f"{intact}: ok  6 3")
    done = dicetable("--json", str(damaged))
    line = json.loads(done.stdout)
    assert line["status"] == "error" and line["dice"] == [] and "damaged" in line["reason"]


def test_a_dash_says_standard_input_is_not_read(tmp_path: Path) -> None:
    """``-`` is standard input to many commands; it said "no such file"."""
    a = write(tmp_path / "a.png", 64, 48)
    code, lines, _ = run(["-", a], FakeReader())
    assert code == 1
    assert lines[0] == "-: error — standard input is not read: name the photo (or /dev/stdin)"
    assert lines[1].startswith(f"{a}: ok")


def test_a_video_given_for_a_photo_is_called_a_video(tmp_path: Path) -> None:
    """A video said only "not an image OpenCV can read (damaged, another format, ...)"."""
    video = tmp_path / "throw.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for level in (40, 80):
        writer.write(np.full((48, 64, 3), level, np.uint8))
    writer.release()
    photo = write(tmp_path / "wide.png", 64, 48)
    code, lines, _ = run([str(video), photo], FakeReader())
    assert code == 1
    assert lines[0] == (
        f"{video}: error — cannot read image: a video, not a photo "
        '(camera.source = "video:PATH" replays one)'
    )
    assert lines[1].startswith(f"{photo}: ok")


def test_a_removed_current_folder_still_gives_one_line_per_image(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the current folder removed, following the links of a relative name raised,
    and the whole command was one line, "No such file or directory", for no image."""
    photo = write(tmp_path / "wide.png", 64, 48)
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    code, lines, err = run(
        ["--json", "x.jpg", photo, "--annotate", str(tmp_path / "out")], FakeReader()
    )
    assert code == 1 and err == "", err
    first, second = (json.loads(line) for line in lines)
    assert first["file"] == "x.jpg" and first["status"] == "error"
    assert second["file"] == photo and second["status"] == "ok"
    assert (tmp_path / "out" / "wide.read.jpg").is_file()


def test_a_tiff_decoded_only_in_part_is_damaged_not_read(tmp_path: Path) -> None:
    """libtiff's complaint of a strip it could not decode comes through OpenCV's log,
    which was silenced: a TIFF with a damaged byte was read "ok" with a 2 read as a 1.
    It is now an error line naming the damage; the same picture intact reads ok."""
    picture = cv2.imread(str(REPO / "table" / "data" / "frames" / "dice_63.jpg"))
    ok, encoded = cv2.imencode(".tif", picture)
    assert ok
    damaged, intact, (first, second) = _damaged_beside_intact(tmp_path, encoded.tobytes(), ".tif")
    assert first.startswith(f"{damaged}: error — cannot read image: damaged (TIFF_Error "), first
    assert second.startswith(f"{intact}: ok  6 3"), second


def test_closed_standard_output_still_writes_the_pictures(tmp_path: Path) -> None:
    """Run with standard output closed (">&-"), the first line printed was an "internal
    error" and no picture was written."""
    photo = write(tmp_path / "in" / "grey.png", 64, 48)
    out = tmp_path / "out"
    done = subprocess.run(
        ["bash", "-c", '"$0" -m table read "$1" --annotate "$2" >&-', sys.executable, photo, out],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert [p.name for p in out.iterdir()] == ["grey.read.jpg"]


def test_a_reader_of_the_lines_gone_leaves_no_picture_unwritten(tmp_path: Path) -> None:
    """Piped into a reader that stops (| head -1), the command stopped at the first line
    it could not print, exit 0, and the pictures --annotate asked for after it were never
    written. They are now, and nothing more is printed."""
    photos = [write(tmp_path / "in" / f"p{i}.png", 64, 48, 40 * i) for i in range(1, 5)]
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "table", "read", *photos, "--annotate", str(out)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # gone before the first line
    with proc.stderr:
        err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0 and err == b""
    assert sorted(p.name for p in out.iterdir()) == [f"p{i}.read.jpg" for i in range(1, 5)]


class _Gone(io.StringIO):
    """Standard output whose reader has gone (``| head -1``), with no file of its own."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


@pytest.mark.parametrize("output", ["no file of its own", "a pipe with no reader"])
def test_once_the_lines_reader_has_gone_error_lines_do_not_stop_the_pictures(
    tmp_path: Path, output: str
) -> None:
    """With --annotate, the pictures asked for are written after the lines' reader has
    gone; a photo that cannot be read after that (its error line goes nowhere too) must
    not stop the pictures of the photos after it."""
    first = write(tmp_path / "in" / "a.png", 64, 48)
    last = write(tmp_path / "in" / "c.png", 64, 48)
    missing = str(tmp_path / "in" / "b.png")
    out_dir = tmp_path / "out"
    args = parse([first, missing, last, "--annotate", str(out_dir)])
    if output == "no file of its own":
        code = cli_read.run(args, reader=FakeReader(), out=_Gone(), err=io.StringIO())
    else:
        read_end, write_end = os.pipe()
        os.close(read_end)
        with os.fdopen(write_end, "w") as pipe:
            code = cli_read.run(args, reader=FakeReader(), out=pipe, err=io.StringIO())
    assert code == 1  # the photo that was missing
    assert sorted(p.name for p in out_dir.iterdir()) == ["a.read.jpg", "c.read.jpg"]


def test_a_picture_wider_than_a_jpeg_can_be_is_written_shrunk(tmp_path: Path) -> None:
    """OpenCV writes at most 65 500 pixels a side: a 70 000 px wide photo's picture was
    refused, with OpenCV's own log on standard error."""
    target = tmp_path / "wide.read.jpg"
    assert cli_read._write_image(target, np.full((200, 70_000, 3), 90, np.uint8)) == ""
    written = cv2.imread(str(target))
    assert written is not None and written.shape[1] == 65_500 and written.shape[0] == 187


# -- names, terminals and folders the tests above did not cover -------------------


def test_a_video_named_in_capitals_is_called_a_video(tmp_path: Path) -> None:
    """Cameras and phones name their videos in capitals (``CLIP.MOV``, ``THROW.AVI``); if
    the suffix were matched as written, such a video would be called "not an image
    OpenCV can read" with no word of it being a video."""
    video = tmp_path / "throw.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for level in (40, 80):
        writer.write(np.full((48, 64, 3), level, np.uint8))
    writer.release()
    shouted = video.rename(tmp_path / "THROW.AVI")
    code, lines, _ = run([str(shouted)], FakeReader())
    assert code == 1
    assert lines == [
        f"{shouted}: error — cannot read image: a video, not a photo "
        '(camera.source = "video:PATH" replays one)'
    ]


def test_a_missing_video_is_no_such_file_not_a_video(tmp_path: Path) -> None:
    """A video's name that names no file says "no such file"; if it were called a video,
    the user would look for the wrong mistake (a mistyped name)."""
    missing = str(tmp_path / "throw.mp4")
    code, lines, _ = run(["--json", missing], FakeReader())
    assert code == 1
    assert json.loads(lines[0])["reason"] == "cannot read image: no such file"


def test_a_name_the_terminal_cannot_show_is_marked_not_shortened(tmp_path: Path) -> None:
    """On a terminal without the name's characters each is shown as "?"; if they were
    dropped, ``café.png`` would be shown as ``caf.png``, the name of another file."""
    photo = write(tmp_path / "caf\u00e9.png", 64, 48)
    assert _on_an_ascii_terminal([photo]) == f"{tmp_path}/caf?.png: ok  6 3  (12 ms)\n"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_an_annotate_folder_that_cannot_be_written_is_a_bad_argument(tmp_path: Path) -> None:
    """A folder that exists but takes no file (here /proc/self, which refuses even root) is
    refused before any photo is read, exit 2; if it were not, every photo would be read
    and each picture would fail on its own, exit 1."""
    a = write(tmp_path / "a.png", 64, 48)
    reader = FakeReader()
    code, lines, err = run(["--annotate", "/proc/self", a, a], reader)
    assert code == 2 and lines == [] and reader.calls == []
    assert err.startswith("dicetable read: cannot use /proc/self for --annotate (")
    assert err.count("\n") == 1


def test_a_reader_of_the_lines_gone_stops_the_reading_without_annotate(tmp_path: Path) -> None:
    """Without --annotate there is nothing left to do once the lines cannot be printed
    (``| head -1``): the command stops at once (the broken pipe reaches ``dicetable``'s
    main, which exits 0). If it went on, a folder of photos would all be read for no one,
    and the shell would wait for it."""

    class Gone(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    files = [write(tmp_path / f"{i}.png", 64, 48) for i in range(3)]
    reader = FakeReader()
    with pytest.raises(BrokenPipeError):
        cli_read.run(parse(files), reader=reader, out=Gone(), err=io.StringIO())
    assert len(reader.calls) == 1


def test_a_reader_gone_before_an_error_line_leaves_no_picture_unwritten(tmp_path: Path) -> None:
    """With --annotate, the pictures asked for are written after the lines' reader has
    gone (``| head -1``). When the first line that cannot be printed is an error line (a
    missing photo first), the broken pipe must not end the run before the pictures of
    the photos after it are written."""

    class Gone(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    missing = str(tmp_path / "in" / "a.png")
    photo = write(tmp_path / "in" / "b.png", 64, 48)
    out_dir = tmp_path / "out"
    args = parse([missing, photo, "--annotate", str(out_dir)])
    code = cli_read.run(args, reader=FakeReader(), out=Gone(), err=io.StringIO())
    assert code == 1  # the photo that was missing
    assert [p.name for p in out_dir.iterdir()] == ["b.read.jpg"]
