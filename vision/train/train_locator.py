"""Train the die locator (centre heat map + offset + size) from the tuning part.

    python -m vision.train.train_locator [--iters N] [--name NAME [--replace]]

Writes ``vision/models/locator_new.onnx`` and ``locator_new.json`` (how it was trained);
the reader's ``locator.onnx`` only when asked (``--name locator --replace``).
"""

from __future__ import annotations

import argparse
import math
import time

import cv2
import numpy as np

from vision.dataset import with_photos
from vision.train import add_output_options, missing, output_path, positive

try:
    import torch
    from torch import nn
except ImportError as exc:  # the train extra is not installed
    raise SystemExit(missing(exc)) from None

from vision.locate import MEAN, SCALE, STRIDE
from vision.robustness import lit
from vision.train.common import (
    SEED,
    Photo,
    add_surface_options,
    blur_noise,
    colour_jitter,
    load_tuning,
    sep,
    surfaced_for,
    write_record,
)
from vision.train.light import uneven_light

PATCH = 256
MIN_SIZE, MAX_SIZE = 7.0, 42.0
# ``--big-share`` draws that share of the patches with dice this big (work pixels) and no
# die to find: dice past the fine pass's range are the coarse pass's (vision.locate), and
# their pips and faces, which look like small dice, are nothing for the fine pass to find.
# Drawn no more than BIG_UPSCALE times their size in the photo: the tuning photos' small
# dice blown up are blurred dice, not a close camera's sharp ones.
BIG_MIN, BIG_MAX = 64.0, 160.0
BIG_UPSCALE = 1.6


class LocatorNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True)
        )
        self.s4 = nn.Sequential(sep(16, 32, 2), sep(32, 32), sep(32, 32))
        self.s8 = nn.Sequential(
            sep(32, 64, 2), sep(64, 64, dil=2), sep(64, 64, dil=4), sep(64, 64, dil=2)
        )
        self.skip = nn.Sequential(nn.Conv2d(32, 64, 1, bias=False), nn.BatchNorm2d(64))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.fuse = sep(64, 32)
        self.head = nn.Conv2d(32, 4, 1)
        nn.init.constant_(self.head.bias, 0.0)
        with torch.no_grad():
            self.head.bias[0] = -2.19

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.s4(self.stem(x))
        f8 = self.s8(f4)
        f = torch.relu(self.up(f8) + self.skip(f4))
        o = self.head(self.fuse(f))
        heat = torch.sigmoid(o[:, :1])
        return torch.cat([heat, o[:, 1:]], dim=1)


def make_sample(
    rng: np.random.Generator,
    photo: Photo,
    max_size: float = MAX_SIZE,
    big_share: float = 0.0,
    light_share: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """One augmented 256x256 patch and its target (5 x 64 x 64: heat, ox, oy, logsize, mask).

    With probability ``big_share``, if the photo's dice are big enough, they are drawn
    BIG_MIN-BIG_MAX pixels across (at most BIG_UPSCALE times their size) and the target is
    empty. With probability ``light_share`` the patch is lit unevenly
    (``vision.train.light``: a shadow's edge, flicker bands or a ramp). No random number is
    drawn for either when its share is 0, so the samples are then those of a run without
    it."""
    med = float(np.median(photo.sizes))
    big = big_share > 0 and rng.random() < big_share and med * BIG_UPSCALE > BIG_MIN
    lo, hi = (BIG_MIN, min(BIG_MAX, med * BIG_UPSCALE)) if big else (MIN_SIZE, max_size)
    target_size = math.exp(rng.uniform(math.log(lo), math.log(hi)))
    s = target_size / med
    img = cv2.resize(
        photo.image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    )
    h, w = img.shape[:2]
    # Pick a patch centre: usually near a die, sometimes anywhere.
    if rng.random() < 0.7 and len(photo.centers):
        c = photo.centers[rng.integers(len(photo.centers))] * s + rng.normal(0, PATCH / 5, 2)
    else:
        c = np.array([rng.uniform(0, w), rng.uniform(0, h)])
    ang = rng.uniform(0, 360)
    m = cv2.getRotationMatrix2D((float(c[0]), float(c[1])), ang, 1.0)
    m[:, 2] += np.array([PATCH / 2 - c[0], PATCH / 2 - c[1]])
    if rng.random() < 0.5:  # mirror
        m = np.array([[-1, 0, PATCH], [0, 1, 0]], dtype=np.float64) @ np.vstack([m, [0, 0, 1]])
    border = tuple(int(v) for v in rng.integers(0, 256, 3))
    patch = cv2.warpAffine(
        img,
        m,
        (PATCH, PATCH),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=border,
    )
    if light_share > 0 and rng.random() < light_share:
        patch = lit(patch, uneven_light(rng, PATCH))
    patch = colour_jitter(rng, patch)
    patch = blur_noise(rng, patch, 1.2)
    g = PATCH // STRIDE
    tgt = np.zeros((5, g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    pts = photo.centers * s
    pts = np.hstack([pts, np.ones((len(pts), 1))]) @ m.T if len(pts) else np.zeros((0, 2))
    for (px, py), size in zip(pts, photo.sizes * s, strict=True):
        if big or not (0 <= px < PATCH and 0 <= py < PATCH):
            continue
        gx, gy = px / STRIDE, py / STRIDE
        sigma = max(0.6, size / STRIDE / 5.0)
        gauss = np.exp(-((xx - gx + 0.5) ** 2 + (yy - gy + 0.5) ** 2) / (2 * sigma * sigma))
        tgt[0] = np.maximum(tgt[0], gauss)
        ix, iy = int(gx), int(gy)
        tgt[0, iy, ix] = 1.0
        tgt[1, iy, ix] = gx - ix
        tgt[2, iy, ix] = gy - iy
        tgt[3, iy, ix] = math.log(size / STRIDE)
        tgt[4, iy, ix] = 1.0
    x = (patch.astype(np.float32) - MEAN) * SCALE
    return x.transpose(2, 0, 1), tgt


def loss_fn(out: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
    heat = out[:, 0].clamp(1e-4, 1 - 1e-4)
    gt = tgt[:, 0]
    pos = (gt >= 1.0).float()
    neg = 1.0 - pos
    pos_loss = -(torch.log(heat) * (1 - heat) ** 2 * pos).sum()
    neg_loss = -(torch.log(1 - heat) * heat**2 * (1 - gt) ** 4 * neg).sum()
    npos = pos.sum().clamp(min=1.0)
    mask = tgt[:, 4]
    reg = ((torch.abs(out[:, 1] - tgt[:, 1]) + torch.abs(out[:, 2] - tgt[:, 2])) * mask).sum() + (
        torch.abs(out[:, 3] - tgt[:, 3]) * mask
    ).sum() * 0.5
    return (pos_loss + neg_loss) / npos + reg / npos


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train.train_locator")
    ap.add_argument("--iters", type=positive, default=3000)
    ap.add_argument("--batch", type=positive, default=16)
    add_output_options(ap, "locator_new")
    ap.add_argument("--threads", type=positive, default=1)
    ap.add_argument(
        "--max-size", type=float, default=MAX_SIZE, help="largest die drawn, in work pixels"
    )
    ap.add_argument(
        "--big-share",
        type=float,
        default=0.0,
        help=f"share of patches with dice {BIG_MIN:g}-{BIG_MAX:g} px and nothing to find",
    )
    ap.add_argument(
        "--light-share",
        type=float,
        default=0.0,
        help="share of patches lit unevenly (a shadow's edge, flicker bands, a ramp: "
        "vision.train.light); the shipped locator was trained with none",
    )
    add_surface_options(
        ap,
        "share of patches cut from the photos with their dice laid on random surfaces "
        "(felt, wood, check, plain: vision.train.common.surface_photos); the shipped "
        "locator was trained with none",
    )
    args = ap.parse_args(argv)
    out = output_path(args.name, "locator", args.replace)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    photos = load_tuning()
    surfaced = surfaced_for(args, photos, SEED + 17)

    def pick() -> Photo:
        # No random number is drawn for the surfaces without them: the run is then the
        # same as one before the option.
        if surfaced and rng.random() < args.surface_share:
            return surfaced[rng.integers(len(surfaced))]
        return photos[rng.integers(len(photos))]

    net = LocatorNet()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=3e-3, total_steps=args.iters, pct_start=0.1
    )
    t0 = time.time()
    net.train()
    run = 0.0
    for it in range(args.iters):
        xs, ts = zip(
            *(
                make_sample(rng, pick(), args.max_size, args.big_share, args.light_share)
                for _ in range(args.batch)
            ),
            strict=True,
        )
        x = torch.from_numpy(np.stack(xs))
        t = torch.from_numpy(np.stack(ts))
        loss = loss_fn(net(x), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        run = 0.98 * run + 0.02 * loss.item() if it else loss.item()
        if it % 100 == 0 or it == args.iters - 1:
            print(f"iter {it} loss {run:.3f} {time.time() - t0:.0f}s", flush=True)
    net.eval()
    dummy = torch.zeros(1, 3, 192, 256)
    torch.onnx.export(
        net,
        (dummy,),
        str(out),
        input_names=["image"],
        output_names=["maps"],
        opset_version=13,
        dynamic_axes={"image": {2: "h", 3: "w"}, "maps": {2: "gh", 3: "gw"}},
        dynamo=False,
    )
    print(f"wrote {out}", flush=True)
    write_record(
        out,
        {
            "script": "python -m vision.train.train_locator",
            "args": vars(args),
            "data": "tuning part (even index in file-name order, vision/dataset.py) "
            "of byler_d6 and matteo_webcam",
            "images": len(photos),
            "seed": SEED,
            "final_loss": round(run, 4),
            "train_seconds": round(time.time() - t0),
            "augmentation": f"scale (die {MIN_SIZE:g}-{args.max_size:g} px at work size), any "
            "rotation, mirror, "
            + (
                f"{args.big_share:g} of the patches with dice {BIG_MIN:g}-{BIG_MAX:g} px and "
                "nothing to find, "
                if args.big_share
                else ""
            )
            + (
                f"{args.light_share:g} of the patches lit unevenly (a shadow's edge, flicker "
                "bands or a ramp: vision.train.light), "
                if args.light_share
                else ""
            )
            + (
                f"{args.surface_share:g} of the patches from the photos' dice on "
                f"{args.surface_variants} random surfaces each (vision.surfaces), "
                if args.surface_share
                else ""
            )
            + "hue/saturation/brightness/contrast, channel order, grey, negative, "
            "gaussian blur, noise",
        },
    )

    return 0


if __name__ == "__main__":
    raise SystemExit(with_photos("python -m vision.train.train_locator", main, None))
