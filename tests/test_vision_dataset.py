"""The one split of the labelled photos (vision/dataset.py): no part used for training
or thresholds ever reaches the held-out images."""

from __future__ import annotations

import importlib
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import RunPython

from tests.conftest import write_manifest
from vision.dataset import (
    SETS,
    DatasetError,
    LabelledDie,
    LabelledImage,
    Part,
    default_data_dir,
    in_part,
    load_set,
)

N = 400
DATA = default_data_dir()  # ../shared/data/dice, or $DICETABLE_SHARED
PARTS: tuple[Part, ...] = ("all", "tune", "heldout", "fit", "calib", "half")


def _part(part: Part) -> set[int]:
    return {i for i in range(N) if in_part(i, part)}


def test_tuning_and_heldout_split_every_image_once() -> None:
    tune, held = _part("tune"), _part("heldout")
    assert tune.isdisjoint(held)
    assert tune | held == _part("all") == set(range(N))
    assert len(tune) == len(held) == N // 2


def test_fit_and_calibration_split_the_tuning_part() -> None:
    fit, calib = _part("fit"), _part("calib")
    assert fit.isdisjoint(calib)
    assert fit | calib == _part("tune")
    assert len(calib) == N // 8


def test_half_is_two_thirds_of_fit_and_never_calibration_or_heldout() -> None:
    half = _part("half")
    assert half <= _part("fit")
    assert half.isdisjoint(_part("calib")) and half.isdisjoint(_part("heldout"))
    assert 3 * len(half) == 2 * len(_part("fit"))


def test_a_set_is_split_by_the_index_of_each_image_in_file_name_order(tmp_path: Path) -> None:
    """The manifest lists the images in any order; the split is of the file names sorted."""
    names = [f"images/p{i:02d}.jpg" for i in range(17)]
    listed = names[9:] + names[:9][::-1]
    data = write_manifest(
        tmp_path, [{"file": n, "width": 9, "height": 9, "dice": []} for n in listed]
    )

    def got(part: Part) -> list[int]:
        return [int(img.name[1:3]) for img in load_set("byler_d6", part, data)]

    assert got("all") == list(range(17))
    assert got("tune") == [0, 2, 4, 6, 8, 10, 12, 14, 16]
    assert got("heldout") == [1, 3, 5, 7, 9, 11, 13, 15]
    assert got("calib") == [6, 14]
    assert got("fit") == [0, 2, 4, 8, 10, 12, 16]
    assert got("half") == [0, 4, 8, 12, 16]


@pytest.mark.skipif(not DATA.is_dir(), reason=f"shared photos not found at {DATA}")
@pytest.mark.parametrize("set_name", SETS)
def test_no_tuning_part_of_the_photos_shares_an_image_with_the_held_out_part(
    set_name: str,
) -> None:
    """On the real sets, by file: every part used for tuning or training ("tune", "fit",
    "calib", "half") lies in the tuning part, away from the held-out part, and the
    tuning and held-out parts together are every photo, each once."""
    files = {p: [img.path for img in load_set(set_name, p, DATA)] for p in PARTS}
    for p, paths in files.items():
        assert len(set(paths)) == len(paths), p
    every = set(files["all"])
    held = set(files["heldout"])
    for p in ("tune", "fit", "calib", "half"):
        assert set(files[p]).isdisjoint(held), p
        assert set(files[p]) <= set(files["tune"]), p
    assert set(files["tune"]) | held == every
    assert set(files["fit"]) | set(files["calib"]) == set(files["tune"])
    assert len(files["tune"]) - len(held) in (0, 1)
    assert files["all"] == sorted(every, key=lambda p: str(p.relative_to(DATA / set_name)))


def test_a_manifest_is_read_as_the_readme_describes_it(tmp_path: Path) -> None:
    die = {"value": 6, "bbox": [10, 20, 50, 80.5]}
    data = write_manifest(
        tmp_path, [{"file": "images/a.jpg", "width": 640, "height": 480, "dice": [die]}]
    )
    (img,) = load_set("byler_d6", "all", data)
    assert img == LabelledImage(
        "byler_d6",
        data / "byler_d6" / "images" / "a.jpg",
        640,
        480,
        (LabelledDie(6, (10.0, 20.0, 50.0, 80.5)),),
    )
    assert img.dice[0].center == (30.0, 50.25)
    assert not img.pip_boxes
    assert replace(img, set_name="matteo_webcam").pip_boxes


# Without the labelled photos (no ../shared beside the repository, DICETABLE_SHARED set
# wrong) or with a broken manifest, the benchmark scripts say so in one line and exit 2;
# they ended in a FileNotFoundError or IndexError traceback.


def test_missing_photos_are_a_dataset_error_naming_thewrite_manifest(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"no labelled photos at .*byler_d6.manifest\.json"):
        load_set("byler_d6", "tune", tmp_path)


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        '{"pictures": []}',
        '{"images": [{"file": "images/a.jpg"}]}',
        '{"images": [{"file": "a.jpg", "width": 9, "height": 9, "dice": [{"value": "x"}]}]}',
        '{"images": []}',
        "[1, 2]",
        # a die the README does not describe: the benchmark stopped with a traceback on a
        # box of three numbers, and scored a value of 7 as a die no reader could read
        '{"images": [{"file": "a.jpg", "width": 9, "height": 9,'
        ' "dice": [{"value": 7, "bbox": [0, 0, 5, 5]}]}]}',
        '{"images": [{"file": "a.jpg", "width": 9, "height": 9,'
        ' "dice": [{"value": 0, "bbox": [0, 0, 5, 5]}]}]}',
        '{"images": [{"file": "a.jpg", "width": 9, "height": 9,'
        ' "dice": [{"value": 3, "bbox": [0, 0, 5]}]}]}',
        '{"images": [{"file": "a.jpg", "width": 9, "height": 9,'
        ' "dice": [{"value": 3, "bbox": [0, 0, 5, 5, 5]}]}]}',
    ],
)
def test_a_broken_manifest_is_a_dataset_error(tmp_path: Path, text: str) -> None:
    (tmp_path / "byler_d6").mkdir()
    (tmp_path / "byler_d6" / "manifest.json").write_text(text, encoding="utf-8")
    with pytest.raises(DatasetError):
        load_set("byler_d6", "all", tmp_path)


@pytest.mark.parametrize("module", ["bench", "robustness"])
def test_scripts_without_photos_print_one_line_and_exit_2(
    module: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DICETABLE_SHARED", str(tmp_path / "nowhere"))
    main = importlib.import_module(f"vision.{module}").main
    assert main(["byler_d6", "--no-big"] if module == "bench" else ["byler_d6"]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.count("\n") == 1 and "no labelled photos at" in out.err


def test_bench_reports_a_set_whose_part_has_no_image(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_manifest(tmp_path, [{"file": "images/a.jpg", "width": 9, "height": 9, "dice": []}])
    monkeypatch.setenv("DICETABLE_SHARED", str(tmp_path))
    from vision import bench

    assert bench.main(["byler_d6", "--no-big", "--repeat", "1"]) == 0  # held-out: no image
    assert "byler_d6 [heldout]: 0 images, 0 dice" in capsys.readouterr().out


@pytest.mark.parametrize("module", ["bench", "robustness"])
def test_output_into_a_closed_pipe_ends_quietly(module: str, tmp_path: Path) -> None:
    """``python -m vision.bench | head -3`` ended with a BrokenPipeError traceback and
    exit 1 once ``head`` had its lines; ``dicetable`` commands end quietly with 0."""
    import os
    import subprocess
    import sys

    write_manifest(tmp_path, [{"file": "images/a.jpg", "width": 9, "height": 9, "dice": []}])
    args = ["byler_d6", "--no-big"] if module == "bench" else ["byler_d6"]
    child = subprocess.Popen(
        [sys.executable, "-m", f"vision.{module}", *args],
        cwd=Path(__file__).resolve().parents[1],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "DICETABLE_SHARED": str(tmp_path)},
    )
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # the reader has gone before the first line
    with child.stderr:
        err = child.stderr.read().decode()
    assert child.wait(timeout=60) == 0, err
    assert err == ""


def test_bench_reads_a_photo_as_dicetable_read_does(tmp_path: Path, run_python: RunPython) -> None:
    """The benchmark scripts read the labelled photos through ``load_image``, as ``dicetable
    read`` does: a photo whose name is not UTF-8 (OpenCV takes names as UTF-8 text) ended
    the benchmark with a segmentation fault in cv2.imread, where ``dicetable read`` reads
    it. Checked in a fresh process, which such a fault would end."""
    import os

    import cv2
    import numpy as np

    images = tmp_path / "byler_d6" / "images"
    images.mkdir(parents=True)
    name = os.fsdecode(b"throw\xff.png")
    photo = np.zeros((30, 40, 3), np.uint8)
    photo[:, :] = (10, 120, 230)
    ok, png = cv2.imencode(".png", photo)
    assert ok
    (images / name).write_bytes(png.tobytes())
    bad = tmp_path / "byler_d6" / "images" / "missing.png"
    entries = [
        {"file": f"images/{n}", "width": 40, "height": 30, "dice": []} for n in (name, bad.name)
    ]
    write_manifest(tmp_path, entries)
    code = (
        "from vision.dataset import DatasetError, load_set\n"
        "for img in sorted(load_set('byler_d6', 'all'), key=lambda i: i.name != 'missing.png'):\n"
        "    try:\n"
        "        print(img.read()[0, 0].tolist())\n"
        "    except DatasetError as exc:\n"
        "        print(ascii(str(exc)))\n"
    )
    done = run_python(code, env={**os.environ, "DICETABLE_SHARED": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    missing, read = done.stdout.splitlines()
    assert read == "[10, 120, 230]"
    assert "missing.png" in missing and "no such file" in missing


@pytest.mark.parametrize("module", ["bench", "robustness"])
@pytest.mark.parametrize("network", ["junk", "locator"])
def test_a_classifier_that_is_no_crop_network_is_one_line_and_exit_2(
    module: str, network: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--classifier`` given a file that is not ONNX, or another network (the locator),
    stopped with a cv2.error or ValueError traceback, the latter at the first photo."""
    if network == "junk":
        path = tmp_path / "candidate.onnx"
        path.write_text("not a network")
    else:
        path = Path(__file__).resolve().parents[1] / "vision" / "models" / "locator.onnx"
    main = importlib.import_module(f"vision.{module}").main
    assert main(["byler_d6", "--classifier", str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.count("\n") == 1 and out.err.startswith(f"cannot use {path}: ")


@pytest.mark.parametrize("module", ["bench", "robustness"])
@pytest.mark.parametrize("network", ["junk", "classifier", "missing"])
def test_a_locator_that_is_no_locator_is_one_line_and_exit_2(
    module: str, network: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--locator`` is tried on a blank frame before any photo is read: a file that is
    not ONNX, the crop network or no file at all is one line, not a traceback."""
    models = Path(__file__).resolve().parents[1] / "vision" / "models"
    path = {
        "junk": tmp_path / "candidate.onnx",
        "classifier": models / "classifier.onnx",
        "missing": tmp_path / "none.onnx",
    }[network]
    if network == "junk":
        path.write_text("not a network")
    main = importlib.import_module(f"vision.{module}").main
    assert main(["byler_d6", "--locator", str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    start = "no such network: " if network == "missing" else "cannot use "
    assert out.err.count("\n") == 1 and out.err.startswith(f"{start}{path}")
    if network == "classifier":  # it runs on a frame: the message says what it is not
        assert "ValueError: not a locator: its output is (1, 7)" in out.err


def test_bench_refuses_an_unknown_set_before_reading_any(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A misspelt second set was found out only after the first had been read and reported
    (minutes, on the full photos), and the run then ended with exit 2."""
    write_manifest(tmp_path, [{"file": "images/a.jpg", "width": 9, "height": 9, "dice": []}])
    monkeypatch.setenv("DICETABLE_SHARED", str(tmp_path))
    from vision import bench

    assert bench.main(["byler_d6", "matteo_webcm", "--no-big", "--repeat", "1"]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == "unknown set 'matteo_webcm'; known: byler_d6, matteo_webcam\n"


def test_a_closed_pipe_leaves_standard_output_on_dev_null_and_no_descriptor_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After a BrokenPipeError, what standard output still holds goes to /dev/null; the
    descriptor opened to put it there was left open."""
    import os

    from vision.dataset import with_photos

    read_end, write_end = os.pipe()
    out = os.fdopen(write_end, "w")
    monkeypatch.setattr("sys.stdout", out)
    try:
        before = set(os.listdir("/proc/self/fd"))

        def run(argv: list[str] | None) -> int:
            raise BrokenPipeError

        assert with_photos("x", run, None) == 0
        assert set(os.listdir("/proc/self/fd")) == before
        assert os.readlink(f"/proc/self/fd/{write_end}") == os.devnull
    finally:
        out.close()
        os.close(read_end)


def test_a_closed_pipe_with_an_output_of_no_file_of_its_own_ends_quietly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io

    from vision.dataset import with_photos

    monkeypatch.setattr("sys.stdout", io.StringIO())

    def run(argv: list[str] | None) -> int:
        raise BrokenPipeError

    assert with_photos("x", run, None) == 0


@pytest.mark.parametrize("part", ["tuning", "held-out", "Tune", ""])
def test_a_part_of_no_such_name_is_refused(part: str) -> None:
    """A misspelt part is refused by name: it was taken for "fit" without a word, and a
    test asking for "tuning" read the 75 fit photos for the 99 it described."""
    with pytest.raises(ValueError, match="no part .* of a set"):
        in_part(6, part)  # type: ignore[arg-type]  # what a caller may misspell
