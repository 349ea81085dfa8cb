"""Rewrite a crop network's first layer to take ``vision.classify.unfold3`` input.

The first layer of the crop networks is a 3x3 convolution (padding 1, stride 1) over the
three colours. OpenCV's ``cv2.dnn`` runs a convolution with so few input channels slowly:
on one core of this machine it was more than a third of the shipped network's time. The
same sums, taken as a 1x1 convolution over the 27 channels of each pixel's 3x3
neighbourhood, are a plain matrix product. This script reshapes the weights
(``(cout, 3, 3, 3)`` to ``(cout, 27, 1, 1)``), sets the input to 27 channels and names it
``vision.classify.UNFOLDED_INPUT``, checks
through ``cv2.dnn`` that the new network gives the old one's outputs on random crops, and
records ``"stem": "unfolded"`` in the ``.json`` beside it, which tells
``vision.classify.Classifier`` to unfold its input.

    python -m vision.train.unfold_stem vision/models/classifier.onnx [--out NEW.onnx]

Needs the ``onnx`` package (the ``train`` extra); the rewritten network needs only OpenCV.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.train import missing

try:
    import onnx
    from onnx import helper, numpy_helper
except ImportError as exc:  # the train extra is not installed
    raise SystemExit(missing(exc)) from None

from vision.classify import CROP_SIDE, UNFOLDED_INPUT, input_norm, input_stem, network_input

TOLERANCE = 1e-4  # largest difference allowed between the two networks' logits


class NotUnfoldable(ValueError):
    """The network's first layer is not a 3x3, padding-1, stride-1 convolution of colours."""


def onnx_attr(node: onnx.NodeProto, name: str, default: object) -> object:
    """A node's attribute ``name``, or ``default`` when it has none."""
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def unfold_model(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of ``model`` whose first convolution takes ``unfold3`` input."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    g = out.graph
    if len(g.input) != 1:
        raise NotUnfoldable(f"expected one input, found {len(g.input)}")
    name = g.input[0].name
    dims = g.input[0].type.tensor_type.shape.dim
    if len(dims) != 4 or dims[1].dim_value != 3:
        raise NotUnfoldable("the input is not (n, 3, h, w)")
    users = [n for n in g.node if name in n.input]
    if len(users) != 1 or users[0].op_type != "Conv":
        raise NotUnfoldable("the input does not go to one convolution only")
    conv = users[0]
    shape = (
        list(onnx_attr(conv, "kernel_shape", [])),
        list(onnx_attr(conv, "pads", [0, 0, 0, 0])),
        list(onnx_attr(conv, "strides", [1, 1])),
        list(onnx_attr(conv, "dilations", [1, 1])),
        int(onnx_attr(conv, "group", 1)),
    )
    if shape != ([3, 3], [1, 1, 1, 1], [1, 1], [1, 1], 1):
        raise NotUnfoldable(f"the first convolution is not 3x3, padding 1, stride 1: {shape}")
    weights = {i.name: i for i in g.initializer}
    w_name = conv.input[1]
    if w_name not in weights or sum(w_name in n.input for n in g.node) != 1:
        raise NotUnfoldable("the first convolution's weights are not its own constant")
    w = numpy_helper.to_array(weights[w_name])
    if w.shape[1:] != (3, 3, 3):
        raise NotUnfoldable(f"unexpected weight shape {w.shape}")
    weights[w_name].CopyFrom(
        numpy_helper.from_array(np.ascontiguousarray(w.reshape(w.shape[0], 27, 1, 1)), w_name)
    )
    keep = [a for a in conv.attribute if a.name not in ("kernel_shape", "pads", "strides")]
    del conv.attribute[:]
    conv.attribute.extend(keep)
    conv.attribute.extend(
        [
            helper.make_attribute("kernel_shape", [1, 1]),
            helper.make_attribute("pads", [0, 0, 0, 0]),
            helper.make_attribute("strides", [1, 1]),
        ]
    )
    dims[1].dim_value = 27
    g.input[0].name = UNFOLDED_INPUT
    for node in g.node:
        node.input[:] = [UNFOLDED_INPUT if i == name else i for i in node.input]
    onnx.checker.check_model(out)
    return out


def largest_difference(plain: Path, unfolded: Path, norm: str, seed: int = 0) -> float:
    """The largest logit difference between the two networks on random crops, each
    given its own input (the unfolded one through ``unfold3``)."""
    rng = np.random.default_rng(seed)
    crops = rng.integers(0, 256, (16, CROP_SIDE, CROP_SIDE, 3), dtype=np.uint8)
    a = cv2.dnn.readNetFromONNX(str(plain))
    b = cv2.dnn.readNetFromONNX(str(unfolded))
    a.setInput(network_input(crops, norm, "plain"))
    ya = np.asarray(a.forward(), np.float32).copy()
    b.setInput(network_input(crops, norm, "unfolded"))
    yb = np.asarray(b.forward(), np.float32)
    return float(np.max(np.abs(ya - yb)))


def unfold_file(src: Path, dst: Path) -> float:
    """Rewrite the network ``src`` to ``dst`` (may be the same file) with its ``.json``,
    after checking the two agree; returns their largest logit difference."""
    if input_stem(src) == "unfolded":
        raise NotUnfoldable(f"{src} is unfolded already")
    norm = input_norm(src)
    new = unfold_model(onnx.load(str(src)))
    tmp = dst.with_name(dst.stem + ".unfolding.onnx")
    onnx.save(new, str(tmp))
    try:
        diff = largest_difference(src, tmp, norm)
        if not diff <= TOLERANCE:
            raise NotUnfoldable(f"the rewritten network differs by {diff:g}; nothing written")
        meta_src = src.with_suffix(".json")
        meta = json.loads(meta_src.read_text(encoding="utf-8")) if meta_src.is_file() else {}
        meta["input_norm"] = norm
        meta["stem"] = "unfolded"
        meta["stem_rewritten_by"] = "python -m vision.train.unfold_stem"
        meta["stem_largest_logit_difference"] = float(f"{diff:.3g}")
        tmp.replace(dst)
        dst.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    finally:
        tmp.unlink(missing_ok=True)
    return diff


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m vision.train.unfold_stem", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("model", type=Path, help="a crop network .onnx (its .json beside it)")
    ap.add_argument("--out", type=Path, default=None, help="write here (default: in place)")
    args = ap.parse_args(argv)
    if not args.model.is_file():
        print(f"no such network: {args.model}", file=sys.stderr)
        return 2
    out = args.out or args.model
    if out.is_dir():
        print(f"--out {out}: is a folder; name the file to write", file=sys.stderr)
        return 2
    if not out.parent.is_dir():
        print(f"--out {out}: no folder {out.parent}", file=sys.stderr)
        return 2
    try:
        diff = unfold_file(args.model, out)
    except NotUnfoldable as e:
        print(f"{args.model}: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # not ONNX, not a crop network, a file it cannot write
        why = " ".join(f"{type(e).__name__}: {e}".split())
        print(f"{args.model}: cannot unfold it ({why})", file=sys.stderr)
        return 1
    print(f"{args.out or args.model}: unfolded stem, largest logit difference {diff:.2g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
