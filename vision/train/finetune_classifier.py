"""Go on training a shipped crop network from its ONNX weights, instead of from scratch.

    python -m vision.train.finetune_classifier [--start vision/models/classifier.onnx]
        [--iters 3000] [--lr 3e-4] [--augment full|light] [--name NAME [--replace]]

The shipped network's batch norms were folded into its convolutions when it was
exported, so the network rebuilt here (``FoldedNet``) is the exported graph itself:
convolutions with biases and ReLUs, the global mean and the last linear layer. Its
first layer is turned back from the unfolded form (``vision.train.unfold_stem``) into
the 3x3 convolution of colours it was trained as. Training goes on with the crops of
``vision.train.train_classifier`` (the same fit photos, locator finds and drawn dice;
the calibration and held-out photos are never seen), at a small, falling learning
rate. ``--augment light`` draws those crops with milder colour and blur changes (no
grey, no negative, blur up to sigma 0.6): the full augmentation also makes crops of
small dice with dim coloured pips that no one could read, and learning them as
certain teaches the network to doubt every such die.

The result is written as ``vision/models/NAME.onnx`` with its ``.json``, unfolded
as the reader wants it. A name that starts with ``classifier`` is averaged in by
``vision.classify`` as soon as it lies there: name candidates otherwise, measure them
(``python -m vision.bench --calib --no-big --classifier FILE``, ``python -m
vision.train.calibrate --classifier FILE``) and rename the one that ships.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np

from vision.dataset import with_photos
from vision.train import (
    MODELS,
    add_output_options,
    existing_file,
    missing,
    output_path,
    positive,
)

try:
    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn
except ImportError as exc:  # the train extra is not installed
    raise SystemExit(missing(exc)) from None

from vision.classify import CROP_SIDE, input_norm, input_stem, to_input, unfold3
from vision.train.common import add_surface_options, load_tuning, surfaced_for, write_record
from vision.train.train_classifier import (
    SURFACE_SHARE_HELP,
    Sampler,
    export_crop_net,
    mine,
    synth_bank,
)
from vision.train.unfold_stem import onnx_attr, unfold_file


class FoldedNet(nn.Module):
    """The exported crop network's graph as a trainable torch module."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        model = onnx.load(str(path))
        weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
        layers: list[nn.Module] = []
        self.fc: nn.Linear | None = None
        unfolded = input_stem(path) == "unfolded"
        for node in model.graph.node:
            if node.op_type == "Conv":
                w = weights[node.input[1]]
                b = weights[node.input[2]] if len(node.input) > 2 else np.zeros(w.shape[0])
                pads = list(onnx_attr(node, "pads", [0, 0, 0, 0]))  # type: ignore[call-overload]
                stride = list(onnx_attr(node, "strides", [1, 1]))  # type: ignore[call-overload]
                group = int(onnx_attr(node, "group", 1))  # type: ignore[call-overload]
                if not layers and unfolded:
                    # (cout, 27, 1, 1) over unfold3's channels 9 ci + 3 dy + dx is the
                    # (cout, 3, 3, 3) kernel of a 3x3, padding-1 convolution.
                    w = w.reshape(w.shape[0], 3, 3, 3)
                    pads = [1, 1, 1, 1]
                if pads[0] != pads[2] or pads[1] != pads[3]:
                    raise ValueError(f"{path}: asymmetric padding {pads}")
                conv = nn.Conv2d(
                    w.shape[1] * group,
                    w.shape[0],
                    (w.shape[2], w.shape[3]),
                    stride=(stride[0], stride[1]),
                    padding=(pads[0], pads[1]),
                    groups=group,
                    bias=True,
                )
                conv.weight.data = torch.from_numpy(np.array(w, np.float32))
                conv.bias.data = torch.from_numpy(np.array(b, np.float32))
                layers.append(conv)
            elif node.op_type == "Relu":
                layers.append(nn.ReLU())
            elif node.op_type in ("GlobalAveragePool", "Flatten"):
                continue
            elif node.op_type == "Gemm":
                w = weights[node.input[1]]
                if int(onnx_attr(node, "transB", 0)) != 1:  # type: ignore[call-overload]
                    w = w.T
                fc = nn.Linear(w.shape[1], w.shape[0])
                fc.weight.data = torch.from_numpy(np.array(w, np.float32))
                fc.bias.data = torch.from_numpy(np.array(weights[node.input[2]], np.float32))
                self.fc = fc
            else:
                raise ValueError(f"{path}: no rebuilding for {node.op_type}")
        if self.fc is None:
            raise ValueError(f"{path}: no last linear layer")
        self.body = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert self.fc is not None
        return self.fc(torch.flatten(self.body(x).mean(dim=(2, 3)), 1))


def widen(net: FoldedNet, factor: float, rng: np.random.Generator) -> None:
    """Give every layer of channels ``factor`` times as many, computing the same numbers:
    each new channel of a full convolution gets random weights (drawn like that layer's
    own) and no bias, the depthwise convolution after it a copy of one of its filters, and
    the next full convolution (or the last linear layer) weight 0 on it. So the network
    starts where the file left off, and training can use the room it now has."""
    layers = list(net.body)
    convs = [m for m in layers if isinstance(m, nn.Conv2d)]
    added: list[int] = []  # new channels of the layer being read, appended after the old
    for conv in convs:
        w = conv.weight.data
        b = conv.bias.data if conv.bias is not None else torch.zeros(w.shape[0])
        if conv.groups > 1:  # depthwise: one filter per channel, copied for new channels
            if added:
                w = torch.cat([w, w[added]])
                b = torch.cat([b, torch.zeros(len(added))])
                conv.groups = conv.in_channels = conv.out_channels = w.shape[0]
            conv.weight.data, conv.bias.data = w, b
            continue
        if added:  # the new input channels count for nothing yet
            w = torch.cat([w, torch.zeros(w.shape[0], len(added), *w.shape[2:])], dim=1)
            conv.in_channels = w.shape[1]
        n = w.shape[0]
        k = round(n * (factor - 1.0))
        std = float(w.std())
        new = torch.from_numpy(rng.normal(0.0, std, (k, *w.shape[1:])).astype(np.float32))
        if added:
            new[:, -len(added) :] = 0.0
        conv.weight.data = torch.cat([w, new])
        conv.bias.data = torch.cat([b, torch.zeros(k)])
        conv.out_channels = n + k
        # which old channel each new one's depthwise filter is copied from
        added = [int(i) for i in rng.integers(0, n, k)]
    assert net.fc is not None
    fw = net.fc.weight.data
    net.fc.weight.data = torch.cat([fw, torch.zeros(fw.shape[0], len(added))], dim=1)
    net.fc.in_features = net.fc.weight.shape[1]


# --augment light: milder than colour_jitter's defaults (hue, saturation, brightness and
# contrast less far, channel order as often, never grey or negative), blur up to 0.6.
LIGHT: dict[str, float] = {
    "saturation": 0.3,
    "grey": 0.0,
    "negative": 0.0,
    "contrast": 0.25,
    "brightness": 25.0,
    "gain": 0.07,
}


def check_rebuilt(net: FoldedNet, path: Path, norm: str) -> float:
    """Largest logit difference between the rebuilt module and ``path`` run by cv2.dnn."""
    rng = np.random.default_rng(0)
    x = to_input(rng.integers(0, 256, (8, CROP_SIDE, CROP_SIDE, 3), dtype=np.uint8), norm)
    with torch.no_grad():
        ours = net(torch.from_numpy(x)).numpy()
    dnn = cv2.dnn.readNetFromONNX(str(path))
    dnn.setInput(unfold3(x) if input_stem(path) == "unfolded" else x)
    return float(np.abs(np.asarray(dnn.forward()) - ours).max())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train.finetune_classifier")
    ap.add_argument("--start", type=existing_file, default=MODELS / "classifier.onnx")
    ap.add_argument("--iters", type=positive, default=3000)
    ap.add_argument("--batch", type=positive, default=64)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--augment", choices=("full", "light"), default="light")
    ap.add_argument("--synth", type=int, default=40000)
    ap.add_argument("--synth-share", type=float, default=0.35)
    ap.add_argument("--threads", type=positive, default=2)
    ap.add_argument("--seed", type=int, default=20261201)
    add_output_options(ap, "finetuned")
    ap.add_argument(
        "--widen",
        type=float,
        default=1.0,
        help="first give every layer this many times its channels, computing the same "
        "numbers (widen); 1: as the file is",
    )
    ap.add_argument(
        "--covered-share",
        type=float,
        default=0.0,
        help="of the negatives, real dice partly covered (train_classifier --covered-share; "
        "the shipped network was trained with 0.25)",
    )
    add_surface_options(ap, SURFACE_SHARE_HELP)
    args = ap.parse_args(argv)
    out = output_path(args.name, "classifier", args.replace)
    if out.resolve() == args.start.resolve():
        raise SystemExit(f"--name {args.name!r}: that is the network it starts from")
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    try:
        norm = input_norm(args.start)
        net = FoldedNet(args.start)
        diff = check_rebuilt(net, args.start, norm)
    except Exception as exc:  # not ONNX, or another network (the locator): one line
        why = " ".join(f"{type(exc).__name__}: {exc}".split())
        what = f"--start {args.start}: not a crop network to go on from"
        raise SystemExit(f"{what} ({why})") from None
    print(f"rebuilt {args.start}: largest logit difference {diff:.2g}", flush=True)
    if diff > 1e-3:
        raise SystemExit("the rebuilt network does not compute what the file does")
    if args.widen != 1.0:
        if args.widen < 1.0:
            raise SystemExit("--widen: at least 1")
        widen(net, args.widen, rng)
        diff = check_rebuilt(net, args.start, norm)
        print(f"widened x{args.widen}: largest logit difference {diff:.2g}", flush=True)
        if diff > 1e-3:
            raise SystemExit("the widened network does not compute what the file does")
    photos = load_tuning("fit")
    mined = mine(photos)
    bank = synth_bank(photos, args.synth, max(1, args.threads), args.seed)
    light = args.augment == "light"
    sampler = Sampler(
        photos,
        mined,
        bank,
        args.synth_share,
        norm,
        jitter=LIGHT if light else None,
        max_blur=0.6 if light else 1.0,
        covered_share=args.covered_share,
        surfaced=surfaced_for(args, photos, args.seed + 17),
        surface_share=args.surface_share,
    )
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.iters)
    crit = nn.CrossEntropyLoss()
    t0 = time.time()
    run = acc = 0.0
    net.train()
    for it in range(args.iters):
        x, y = sampler.batch(rng, args.batch)
        logits = net(torch.from_numpy(x))
        loss = crit(logits, torch.from_numpy(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        a = float((logits.detach().argmax(1).numpy() == y).mean())
        run = 0.98 * run + 0.02 * loss.item() if it else loss.item()
        acc = 0.98 * acc + 0.02 * a if it else a
        if it % 100 == 0 or it == args.iters - 1:
            print(f"iter {it} loss {run:.3f} acc {acc:.3f} {time.time() - t0:.0f}s", flush=True)
    net.eval()
    export_crop_net(net, out)
    write_record(
        out,
        {
            "script": "python -m vision.train.finetune_classifier",
            "args": {k: v.name if isinstance(v, Path) else v for k, v in vars(args).items()},
            "started_from": str(args.start.name),
            "data": "as vision.train.train_classifier: fit part of the tuning photos, "
            "the locator's finds there, drawn dice",
            "images": len(photos),
            "input_norm": norm,
            "final_loss": round(run, 4),
            "final_train_accuracy": round(acc, 4),
            "train_seconds": round(time.time() - t0),
        },
    )
    diff = unfold_file(out, out)
    print(f"wrote {out}; unfolded, largest logit difference {diff:.2g}", flush=True)

    return 0


if __name__ == "__main__":
    raise SystemExit(with_photos("python -m vision.train.finetune_classifier", main, None))
