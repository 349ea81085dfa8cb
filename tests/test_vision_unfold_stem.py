"""vision.train.unfold_stem: a network rewritten to take unfolded input gives the same
probabilities; networks it cannot rewrite are refused with nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")  # the train extra; the test extra installs it too
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from vision.classify import CROP_SIDE, Classifier, input_stem  # noqa: E402
from vision.locate import MODEL_PATH as LOCATOR_PATH  # noqa: E402
from vision.train.unfold_stem import NotUnfoldable, main, unfold_file  # noqa: E402


def _tiny_crop_net(path: Path, stride: int = 1, seed: int = 0) -> None:
    """A small crop network of the shipped kind: 3x3 convolution, ReLU, pool, 7 logits."""
    rng = np.random.default_rng(seed)
    inits = [
        numpy_helper.from_array(rng.normal(size=(6, 3, 3, 3)).astype(np.float32), "w0"),
        numpy_helper.from_array(rng.normal(size=6).astype(np.float32), "b0"),
        numpy_helper.from_array(rng.normal(size=(7, 6)).astype(np.float32), "fw"),
        numpy_helper.from_array(rng.normal(size=7).astype(np.float32), "fb"),
    ]
    nodes = [
        helper.make_node(
            "Conv",
            ["crops", "w0", "b0"],
            ["c0"],
            kernel_shape=[3, 3],
            pads=[1, 1, 1, 1],
            strides=[stride, stride],
        ),
        helper.make_node("Relu", ["c0"], ["r0"]),
        helper.make_node("GlobalAveragePool", ["r0"], ["p0"]),
        helper.make_node("Flatten", ["p0"], ["f0"]),
        helper.make_node("Gemm", ["f0", "fw", "fb"], ["logits"], transB=1),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, CROP_SIDE, CROP_SIDE])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 7])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))
    path.with_suffix(".json").write_text(json.dumps({"input_norm": "per_crop", "seed": seed}))


def _crops(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(9)
    return list(rng.integers(0, 256, (n, CROP_SIDE, CROP_SIDE, 3), np.uint8))


def test_unfolded_network_gives_the_same_probabilities(tmp_path: Path) -> None:
    plain, new = tmp_path / "c.onnx", tmp_path / "c_unfolded.onnx"
    _tiny_crop_net(plain)
    diff = unfold_file(plain, new)
    assert diff < 1e-4
    meta = json.loads(new.with_suffix(".json").read_text())
    assert meta["stem"] == "unfolded" and meta["input_norm"] == "per_crop" and meta["seed"] == 0
    assert input_stem(plain) == "plain" and input_stem(new) == "unfolded"
    a = Classifier(plain).probabilities(_crops(5))
    b = Classifier(new).probabilities(_crops(5))
    assert np.allclose(a, b, atol=1e-5)
    # cv2.dnn would run the rewritten network on plain input without a word, so a
    # network parted from its .json, or given another's, is refused.
    (tmp_path / "bare.onnx").write_bytes(new.read_bytes())
    with pytest.raises(ValueError, match="keep each network with its own .json"):
        Classifier(tmp_path / "bare.onnx")
    (tmp_path / "bare.json").write_text(json.dumps({"stem": "unfolded"}))
    assert input_stem(tmp_path / "bare.onnx") == "unfolded"
    plain.with_suffix(".json").write_text(json.dumps({"stem": "unfolded"}))
    with pytest.raises(ValueError, match="keep each network"):
        Classifier(plain)


def test_in_place_then_again_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "c.onnx"
    _tiny_crop_net(model)
    assert main([str(model)]) == 0
    assert input_stem(model) == "unfolded"
    before = model.read_bytes()
    assert main([str(model)]) == 1
    assert "unfolded already" in capsys.readouterr().err
    assert model.read_bytes() == before
    assert main([str(tmp_path / "none.onnx")]) == 2


def test_other_first_layers_are_refused_and_nothing_is_written(tmp_path: Path) -> None:
    strided = tmp_path / "s.onnx"
    _tiny_crop_net(strided, stride=2)
    with pytest.raises(NotUnfoldable, match="stride"):
        unfold_file(strided, tmp_path / "out.onnx")
    with pytest.raises(NotUnfoldable):
        unfold_file(LOCATOR_PATH, tmp_path / "loc.onnx")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json", "s.onnx"]
