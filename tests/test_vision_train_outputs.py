"""Where a training script writes its network, checked before it trains (no torch needed).

A training run takes up to an hour; the shipped networks are what the table reads with.
A default name used to write over them, a ``classifier*`` name was averaged into the
reader at once, and a folder that did not exist failed only once the training was done.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import vision.train as train
from vision.dataset import DatasetError, with_photos
from vision.train import output_path, positive


@pytest.fixture
def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in for vision/models/ holding the two shipped networks."""
    folder = tmp_path / "models"
    folder.mkdir()
    for name in ("locator", "classifier"):
        (folder / f"{name}.onnx").write_bytes(b"net")
        (folder / f"{name}.json").write_text("{}")
    monkeypatch.setattr(train, "MODELS", folder)
    return folder


def _refused(name: str, kind: str, replace: bool = False) -> str:
    with pytest.raises(SystemExit) as exc:
        output_path(name, kind, replace)
    return str(exc.value)


def test_a_plain_name_is_a_new_file_in_the_models_folder(models: Path) -> None:
    assert output_path("locator_new", "locator") == models / "locator_new.onnx"
    assert output_path("cand.v2", "classifier") == models / "cand.v2.onnx"


def test_the_shipped_networks_are_written_over_only_when_asked(models: Path) -> None:
    assert "--replace to ship it" in _refused("locator", "locator")
    assert output_path("locator", "locator", replace=True) == models / "locator.onnx"
    assert "averaged in by the reader" in _refused("classifier", "classifier")
    assert "averaged in by the reader" in _refused("classifier_b", "classifier")
    assert output_path("classifier_b", "classifier", replace=True) == models / "classifier_b.onnx"


def test_a_network_of_the_other_kind_never_takes_a_shipped_name(models: Path) -> None:
    """A locator named classifier_x would be averaged in as a crop network: every read
    would fail."""
    assert "this makes a locator" in _refused("classifier_x", "locator", replace=True)
    assert "this makes a classifier" in _refused("locator", "classifier", replace=True)


def test_a_path_into_the_models_folder_is_the_models_folder(
    models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(models)
    assert "averaged in" in _refused("./classifier_x", "classifier")
    assert "averaged in" in _refused(f"{models}/../models/classifier", "classifier")


def test_a_path_elsewhere_is_taken_as_it_is(models: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    out.mkdir()
    assert output_path(f"{out}/classifier", "classifier") == out / "classifier.onnx"


def test_existing_files_links_and_missing_folders_are_said_before_training(
    models: Path, tmp_path: Path
) -> None:
    (models / "mine.json").write_text("{}")
    assert "mine.json exists (--replace writes over it)" in _refused("mine", "classifier")
    assert output_path("mine", "classifier", replace=True) == models / "mine.onnx"
    (models / "linked.onnx").symlink_to(tmp_path / "elsewhere.onnx")
    assert "is a link" in _refused("linked", "classifier", replace=True)
    (models / "dir.onnx").mkdir()
    assert "is a folder" in _refused("dir", "classifier", replace=True)
    assert "no folder" in _refused(f"{tmp_path}/nowhere/x", "locator")


@pytest.mark.parametrize("name", ["", "  ", ".hidden", "folder/", ".."])
def test_a_name_that_names_no_file_is_refused(models: Path, name: str) -> None:
    assert "give a file name" in _refused(name, "classifier")


def test_counts_must_be_whole_and_positive() -> None:
    assert positive("3") == 3
    for bad in ("0", "-2", "x", "2.5"):
        with pytest.raises(argparse.ArgumentTypeError):
            positive(bad)


def test_missing_photos_are_one_line_not_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    """The training scripts' mains run under vision.dataset.with_photos, as bench's does."""

    def main(argv: list[str] | None) -> int:
        raise DatasetError("no labelled photos at /nowhere")

    assert with_photos("python -m vision.train.x", main, None) == 2
    assert capsys.readouterr().err == "python -m vision.train.x: no labelled photos at /nowhere\n"
    assert with_photos("x", lambda argv: 3, None) == 3


def test_the_record_takes_paths_among_the_arguments(tmp_path: Path) -> None:
    """--teacher is a path: the record of a whole hour's training failed to be written
    ("PosixPath is not JSON serializable"), after the training."""
    pytest.importorskip("torch")
    import json

    from vision.train.common import write_record

    write_record(tmp_path / "cand.onnx", {"args": {"teacher": Path("vision/models/x.onnx")}})
    record = json.loads((tmp_path / "cand.json").read_text())
    assert record["args"]["teacher"] == "vision/models/x.onnx"
