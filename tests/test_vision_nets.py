"""The networks' files: one missing, unreadable or damaged is one clear line, naming it
(``vision.nets``), for the reader's users to show on the display and in the journal."""

from __future__ import annotations

import io
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from vision import classify, cli_read, locate
from vision.classify import MODEL_PATH, Classifier
from vision.locate import Locator
from vision.nets import NetworkError, read_onnx


def test_a_network_file_that_cannot_be_read_says_which_and_why(tmp_path: Path) -> None:
    cases = {
        tmp_path / "gone.onnx": "no such file",
        tmp_path: "a folder, not a network",
    }
    damaged = tmp_path / "damaged.onnx"
    damaged.write_bytes(MODEL_PATH.read_bytes()[:500])
    cases[damaged] = "not a network OpenCV can read (damaged?)"
    for path, why in cases.items():
        with pytest.raises(NetworkError) as caught:
            read_onnx(path)
        assert str(caught.value) == f"{path}: {why}"
        with pytest.raises(NetworkError, match=re.escape(why)):
            Locator(path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_a_network_file_not_allowed_to_be_read_says_so(tmp_path: Path) -> None:
    locked = tmp_path / "locked.onnx"
    shutil.copy(locate.MODEL_PATH, locked)
    locked.chmod(0)
    with pytest.raises(NetworkError, match="not allowed to read it"):
        read_onnx(locked)


def test_a_crop_network_whose_json_is_damaged_names_the_json(tmp_path: Path) -> None:
    model = tmp_path / "c.onnx"
    shutil.copy(MODEL_PATH, model)
    model.with_suffix(".json").write_text("{ half written")
    with pytest.raises(NetworkError, match=f"^{model.with_suffix('.json')}: not valid JSON$"):
        Classifier(model)


def test_no_shipped_crop_network_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(classify, "MODEL_PATHS", ())
    with pytest.raises(NetworkError, match=r"no crop network \(classifier\*\.onnx\)"):
        Classifier()


def test_the_shipped_networks_still_load_and_read() -> None:
    crops = [np.full((40, 40, 3), 200, np.uint8)]
    assert Classifier().probabilities(crops).shape == (1, 7)
    assert Locator().net is not None


def test_dicetable_read_without_its_locator_says_so_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenCV's error for a missing network file is several lines of its source: the
    one line the reader's user sees now names the file."""
    import argparse

    import cv2

    photo = tmp_path / "a.png"
    assert cv2.imwrite(str(photo), np.full((48, 64, 3), 120, np.uint8))
    gone = tmp_path / "models" / "locator.onnx"
    monkeypatch.setattr(locate, "MODEL_PATH", gone)
    parser = argparse.ArgumentParser(prog="dicetable read")
    cli_read.add_arguments(parser)
    out, err = io.StringIO(), io.StringIO()
    code = cli_read.run(parser.parse_args([str(photo)]), out=out, err=err)
    assert code == 1 and out.getvalue() == ""
    assert err.getvalue() == f"dicetable read: cannot start the pip reader ({gone}: no such file)\n"
