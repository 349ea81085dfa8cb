"""Train the die-crop classifier (values 1-6 + "not a die / unreadable").

    python -m vision.train.train_classifier [--iters N] [--name NAME [--replace]]

Trains on the "fit" part of the tuning photos (vision/dataset.py); the
"calibration" part and the held-out part are never seen (``--photos`` picks
another part of the tuning photos; the held-out part is never offered). Writes
``vision/models/candidate.onnx`` and ``candidate.json``: the reader averages every
``classifier*.onnx`` there, so a network is shipped by naming it so (or by ``--name
classifier --replace``) once it has been measured.

Crops are cut exactly as the reader cuts them (vision.classify.crop) after a
rotation of the photo around the die, with jitter of centre and size like the
locator's errors, colour, blur and noise. Negatives: background, crops half a
die off centre, and the locator's false finds on the fit photos.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import time
from pathlib import Path

import cv2
import numpy as np

from vision.dataset import with_photos
from vision.train import add_output_options, existing_file, missing, output_path, positive

try:
    import torch
    from torch import nn
except ImportError as exc:  # the train extra is not installed
    raise SystemExit(missing(exc)) from None

from vision.classify import (
    CROP_K,
    CROP_SIDE,
    NORMS,
    crop,
    input_norm,
    input_stem,
    to_input,
    unfold3,
)
from vision.locate import MODEL_PATH as LOCATOR_PATH
from vision.locate import Locator
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
from vision.train.synth import cover, dice_free_backgrounds, draw, paste_neighbour
from vision.train.unfold_stem import unfold_file

# Network shapes: the stem's channels, then (channels, stride) of each separable block.
# Per 40 px crop on one core, as ``python -m vision.bench --classifier`` prints it, for
# networks as trained (before vision.train.unfold_stem, which brings the shipped one to
# about 0.4 ms): "full" (the shipped network's shape) 0.56 ms, "lean" (a thinner stem and
# one block fewer at 20 px) 0.35 ms, "narrow" 0.31 ms.
ARCHS: dict[str, tuple[int, tuple[tuple[int, int], ...]]] = {
    "full": (32, ((64, 2), (64, 1), (64, 1), (128, 2), (128, 1), (128, 1), (192, 2), (192, 1))),
    "lean": (16, ((64, 2), (64, 1), (128, 2), (128, 1), (128, 1), (192, 2), (192, 1))),
    "narrow": (16, ((48, 2), (48, 1), (48, 1), (96, 2), (96, 1), (96, 1), (160, 2), (160, 1))),
    # "full" half as wide again (about twice its sums): does more room read more of the
    # dice the shipped shape doubts even among its own training photos?
    "wide": (48, ((96, 2), (96, 1), (96, 1), (192, 2), (192, 1), (192, 1), (288, 2), (288, 1))),
}


class CropNet(nn.Module):
    def __init__(self, arch: str = "full") -> None:
        super().__init__()
        stem, blocks = ARCHS[arch]
        layers: list[nn.Module] = [
            nn.Conv2d(3, stem, 3, 1, 1, bias=False),
            nn.BatchNorm2d(stem),
            nn.ReLU(inplace=True),
        ]
        cin = stem
        for cout, stride in blocks:
            layers.append(sep(cin, cout, stride))
            cin = cout
        self.body = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, 7)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(self.pool(self.body(x)), 1))


def around(img: np.ndarray, cx: float, cy: float, r: int) -> tuple[np.ndarray, int, int]:
    """The 2r x 2r region of ``img`` around (cx, cy), mirrored where it passes the edge,
    and the photo coordinates of its top-left corner."""
    x0, y0 = int(cx) - r, int(cy) - r
    pad = r + 2
    region = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_REFLECT)[
        y0 + pad : y0 + 2 * r + pad, x0 + pad : x0 + 2 * r + pad
    ]
    return region, x0, y0


def rotated_crop(
    rng: np.random.Generator, img: np.ndarray, cx: float, cy: float, size: float
) -> np.ndarray:
    """Rotate the photo around (cx, cy) by a random angle, then cut as the reader does."""
    cx = min(max(cx, 0.0), img.shape[1] - 1.0)
    cy = min(max(cy, 0.0), img.shape[0] - 1.0)
    region, x0, y0 = around(img, cx, cy, int(math.ceil(CROP_K * size)) + 4)
    lx, ly = cx - x0, cy - y0
    m = cv2.getRotationMatrix2D((lx, ly), rng.uniform(0, 360), 1.0)
    if rng.random() < 0.5:
        m = np.array([[-1, 0, 2 * lx], [0, 1, 0]], dtype=np.float64) @ np.vstack([m, [0, 0, 1]])
    rot = cv2.warpAffine(
        region, m, (region.shape[1], region.shape[0]), borderMode=cv2.BORDER_REFLECT
    )
    return crop(rot, lx, ly, size)


_BACKGROUNDS: list[np.ndarray] = []  # set before the drawing processes fork


def _draw_chunk(job: tuple[int, int, float]) -> tuple[np.ndarray, np.ndarray]:
    seed, n, smoky = job
    rng = np.random.default_rng(seed)
    values = rng.integers(1, 7, n)
    crops = np.stack([draw(rng, _BACKGROUNDS, int(v), smoky) for v in values])
    return crops, values


def synth_bank(
    photos: list[Photo], n: int, workers: int, seed: int = SEED, smoky: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` drawn die crops (vision.train.synth) on the fit photos' dice-free backgrounds."""
    global _BACKGROUNDS
    if n <= 0:
        return np.zeros((0, CROP_SIDE, CROP_SIDE, 3), np.uint8), np.zeros(0, np.int64)
    _BACKGROUNDS = dice_free_backgrounds(
        [p.image for p in photos], [p.centers for p in photos], [p.sizes for p in photos]
    )
    chunk = 1000
    jobs = [(seed + 1 + i, min(chunk, n - i * chunk), smoky) for i in range(-(-n // chunk))]
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(workers) as pool:
        parts = pool.map(_draw_chunk, jobs)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def motion_blur(rng: np.random.Generator, c: np.ndarray) -> np.ndarray:
    """The crop smeared along a line 2-9 px long (a quarter of a die side at most) in any
    direction: a die still sliding, or the camera shaken."""
    n = int(rng.integers(2, 10))
    k = np.zeros((n, n), np.float32)
    k[(n - 1) // 2, :] = 1.0
    m = cv2.getRotationMatrix2D(((n - 1) / 2.0, (n - 1) / 2.0), rng.uniform(0, 180), 1.0)
    k = cv2.warpAffine(k, m, (n, n))
    k /= max(float(k.sum()), 1e-6)
    return np.asarray(cv2.filter2D(c, -1, k, borderType=cv2.BORDER_REFLECT), np.uint8)


SURFACE_SHARE_HELP = (
    "of the real crops cut at labels and of the negatives away from the locator's finds, "
    "those cut from the photos' dice laid on random surfaces (surface_photos); the shipped "
    "network was trained with none"
)


class Sampler:
    def __init__(
        self,
        photos: list[Photo],
        mined: list[tuple[int, float, float, float, int]],
        bank: tuple[np.ndarray, np.ndarray] | None = None,
        synth_share: float = 0.0,
        norm: str = "fixed",
        neighbour_share: float = 0.0,
        motion_share: float = 0.0,
        jitter: dict[str, float] | None = None,
        max_blur: float = 1.0,
        covered_share: float = 0.0,
        covered_extra: float = 0.0,
        surfaced: list[Photo] | None = None,
        surface_share: float = 0.0,
    ):
        self.photos = photos
        # the photos' dice on other surfaces (surface_photos), for that share of the
        # crops cut at labels and of the negatives away from the locator's finds
        self.surfaced = surfaced or []
        self.surface_share = surface_share if self.surfaced else 0.0
        self.surfaced_dice = [
            (p, i) for p, ph in enumerate(self.surfaced) for i in range(len(ph.values))
        ]
        self.covered_share = covered_share
        self.covered_extra = covered_extra
        self.jitter = jitter or {}  # colour_jitter's settings; its defaults unless given
        self.max_blur = max_blur
        self.motion_share = motion_share
        self.norm = norm
        self.bank = bank
        self.synth_share = synth_share if bank is not None and len(bank[1]) else 0.0
        self.neighbour_share = neighbour_share
        self.dice = [(p, i) for p, ph in enumerate(photos) for i in range(len(ph.values))]
        # locator finds: (photo index, x, y, size, label value or 0 for a false find)
        self.mined_pos = [m for m in mined if m[4] > 0]
        self.mined_neg = [m for m in mined if m[4] == 0]

    def positive(self, rng: np.random.Generator) -> tuple[np.ndarray, int]:
        c, value, real = self._positive(rng)
        if real and self.neighbour_share and rng.random() < self.neighbour_share:
            c = paste_neighbour(rng, c, self._positive_real(rng)[0])
        return c, value

    def _positive(self, rng: np.random.Generator) -> tuple[np.ndarray, int, bool]:
        """A die crop, its value and whether it is a real one (not drawn)."""
        if self.bank is not None and rng.random() < self.synth_share:
            crops, values = self.bank
            i = int(rng.integers(len(values)))
            c = np.rot90(crops[i], int(rng.integers(4)))
            if rng.random() < 0.5:
                c = c[:, ::-1]
            return np.ascontiguousarray(c), int(values[i]), False
        c, value = self._positive_real(rng)
        return c, value, True

    def _positive_real(self, rng: np.random.Generator) -> tuple[np.ndarray, int]:
        if self.surface_share and rng.random() < self.surface_share:
            return self._at_label(rng, self.surfaced, self.surfaced_dice)
        if self.mined_pos and rng.random() < 0.4:
            p, x, y, size, value = self.mined_pos[rng.integers(len(self.mined_pos))]
            size *= rng.uniform(0.9, 1.1)
            x += rng.normal(0, 0.03 * size)
            y += rng.normal(0, 0.03 * size)
            return rotated_crop(rng, self.photos[p].image, x, y, size), value
        return self._at_label(rng, self.photos, self.dice)

    def _at_label(
        self, rng: np.random.Generator, photos: list[Photo], dice: list[tuple[int, int]]
    ) -> tuple[np.ndarray, int]:
        """A crop at a labelled die of ``photos``, its size and centre jittered."""
        p, i = dice[rng.integers(len(dice))]
        ph = photos[p]
        size = float(ph.sizes[i]) * math.exp(rng.normal(0, 0.15))
        x, y = ph.centers[i] + rng.normal(0, 0.06 * size, 2)
        return rotated_crop(rng, ph.image, float(x), float(y), size), int(ph.values[i])

    def covered(self, rng: np.random.Generator) -> np.ndarray:
        """A real die with something laid over part of it (synth.cover), cut where the
        locator would find it: around the part in view, at that part's size or up to the
        whole die's."""
        p, i = self.dice[rng.integers(len(self.dice))]
        ph = self.photos[p]
        size = float(ph.sizes[i]) * math.exp(rng.normal(0, 0.1))
        x, y = (float(v) for v in ph.centers[i])
        region, x0, y0 = around(ph.image, x, y, int(math.ceil(CROP_K * size)) + 8)
        painted, vx, vy, vsize = cover(rng, region, x - x0, y - y0, size)
        t = rng.uniform(0.0, 0.4)  # the find's centre: the part in view's, or towards the die's
        cx, cy = vx + t * (x - x0 - vx), vy + t * (y - y0 - vy)
        s = vsize + rng.uniform(0.0, 1.0) * (size - vsize)
        cx += rng.normal(0, 0.04 * s)
        cy += rng.normal(0, 0.04 * s)
        return rotated_crop(rng, painted, cx, cy, s)

    def negative(self, rng: np.random.Generator) -> np.ndarray:
        if self.covered_share and rng.random() < self.covered_share:
            return self.covered(rng)
        u = rng.random()
        if self.mined_neg and u < 0.35:
            p, x, y, size, _ = self.mined_neg[rng.integers(len(self.mined_neg))]
            return rotated_crop(rng, self.photos[p].image, x, y, size * rng.uniform(0.9, 1.1))
        photos, dice = self.photos, self.dice
        if self.surface_share and rng.random() < self.surface_share:
            photos, dice = self.surfaced, self.surfaced_dice
        for _ in range(50):
            if u < 0.65:  # half a die or more off a die's centre
                p, i = dice[rng.integers(len(dice))]
                ph = photos[p]
                size = float(ph.sizes[i]) * math.exp(rng.normal(0, 0.12))
                ang = rng.uniform(0, 2 * math.pi)
                d = rng.uniform(0.5, 1.0) * size
                x = float(ph.centers[i][0] + d * math.cos(ang))
                y = float(ph.centers[i][1] + d * math.sin(ang))
            else:  # anywhere away from dice
                ph = photos[rng.integers(len(photos))]
                p = 0
                size = float(np.median(ph.sizes)) * math.exp(rng.normal(0, 0.3))
                x = rng.uniform(0, ph.image.shape[1])
                y = rng.uniform(0, ph.image.shape[0])
            dist = (
                np.hypot(ph.centers[:, 0] - x, ph.centers[:, 1] - y) if len(ph.centers) else [1e9]
            )
            if np.min(dist) > 0.45 * size:
                return rotated_crop(rng, ph.image, x, y, size)
        return np.full((CROP_SIDE, CROP_SIDE, 3), rng.integers(0, 256), np.uint8)

    def batch(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        xs, ys = [], []
        for _ in range(n):
            if self.covered_extra and rng.random() < self.covered_extra:
                c, y = self.covered(rng), 0  # on top of the others: they keep their shares
            elif rng.random() < 0.7:
                c, y = self.positive(rng)
            else:
                c, y = self.negative(rng), 0
            c = colour_jitter(rng, c, **self.jitter)
            if self.motion_share and rng.random() < self.motion_share:
                c = motion_blur(rng, c)
            c = blur_noise(rng, c, self.max_blur)
            xs.append(c)
            ys.append(y)
        return to_input(np.stack(xs), self.norm), np.array(ys, dtype=np.int64)


def export_crop_net(net: nn.Module, path: Path) -> None:
    """The crop network as ONNX for cv2.dnn: input "crops" (n, 3, CROP_SIDE, CROP_SIDE),
    output "logits" (n, 7), any batch size; the first layer as trained (unfold_stem
    rewrites it)."""
    torch.onnx.export(
        net,
        (torch.zeros(1, 3, CROP_SIDE, CROP_SIDE),),
        str(path),
        input_names=["crops"],
        output_names=["logits"],
        opset_version=13,
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
        dynamo=False,
    )


def mine(photos: list[Photo]) -> list[tuple[int, float, float, float, int]]:
    """Run the trained locator on the fit photos: its finds, matched to labels or not."""
    if not LOCATOR_PATH.exists():
        return []
    loc = Locator()
    out: list[tuple[int, float, float, float, int]] = []
    for p, ph in enumerate(photos):
        for s in loc.find(ph.image, threshold=0.15):
            if len(ph.centers):
                d = np.hypot(ph.centers[:, 0] - s.x, ph.centers[:, 1] - s.y)
                i = int(np.argmin(d))
                if d[i] < 0.25 * ph.sizes[i]:
                    out.append((p, s.x, s.y, s.size, int(ph.values[i])))
                    continue
                if d[i] < 0.5 * ph.sizes[i]:
                    continue  # ambiguous: neither a clean positive nor a negative
            out.append((p, s.x, s.y, s.size, 0))
    return out


PHOTOS = {
    "fit": "fit part of the tuning photos (vision/dataset.py: even index, not index % 8 == 6)",
    "tune": "all the tuning photos, calibration part included (vision/dataset.py: even index)",
    "half": "half the tuning photos (vision/dataset.py: index % 4 == 0)",
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train.train_classifier")
    ap.add_argument("--iters", type=positive, default=8000)
    ap.add_argument("--batch", type=positive, default=64)
    add_output_options(ap, "candidate")
    ap.add_argument("--synth", type=int, default=40000, help="drawn dice crops made up front")
    ap.add_argument("--synth-share", type=float, default=0.35, help="of the positives, drawn")
    ap.add_argument(
        "--smoky-share",
        type=float,
        default=0.0,
        help="of the drawn dice, smoky translucent ones (vision/train/synth.py); "
        "the shipped network was trained with none",
    )
    ap.add_argument(
        "--neighbour-share",
        type=float,
        default=0.0,
        help="of the real positives, those given another real die against one side "
        "(paste_neighbour); the shipped network was trained with none",
    )
    ap.add_argument(
        "--motion-share",
        type=float,
        default=0.0,
        help="of all crops, those smeared by motion blur (motion_blur); "
        "the shipped network was trained with none",
    )
    ap.add_argument(
        "--covered-share",
        type=float,
        default=0.0,
        help="of the negatives, real dice with something laid over part of them "
        "(synth.cover), taught as not readable; the shipped network was trained with 0.25",
    )
    ap.add_argument(
        "--covered-extra",
        type=float,
        default=0.0,
        help="of all crops, real partly covered dice drawn before the usual positive or "
        "negative, so the other negatives keep their share of the rest; "
        "the shipped network was trained with none",
    )
    add_surface_options(ap, SURFACE_SHARE_HELP)
    ap.add_argument("--arch", choices=sorted(ARCHS), default="full", help="network shape (ARCHS)")
    ap.add_argument(
        "--teacher",
        type=existing_file,
        default=None,
        help="a trained classifier .onnx (same --input-norm) whose outputs the new network "
        "also learns to match (knowledge distillation; run through cv2.dnn)",
    )
    ap.add_argument(
        "--distil", type=float, default=0.7, help="weight of the teacher's term (with --teacher)"
    )
    ap.add_argument(
        "--temperature", type=float, default=2.0, help="softening of both networks' outputs"
    )
    ap.add_argument(
        "--photos",
        choices=sorted(PHOTOS),
        default="fit",
        help="which tuning photos to train on (vision/dataset.py): fit (the shipped network), "
        "tune (fit and the calibration photos, which then can no longer check the thresholds) "
        "or half (two thirds of fit, to see what fewer photos cost)",
    )
    ap.add_argument("--threads", type=positive, default=2)
    ap.add_argument("--input-norm", choices=NORMS, default="fixed", help="vision.classify")
    ap.add_argument("--seed", type=int, default=SEED)
    args = ap.parse_args(argv)
    out = output_path(args.name, "classifier", args.replace)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    teacher = None
    if args.teacher:  # checked before the photos are mined and the dice drawn (minutes)
        # The teacher must see the crops as it was trained to: its .json names how.
        if input_norm(args.teacher) != args.input_norm:
            raise SystemExit(
                f"{args.teacher} was trained with input_norm {input_norm(args.teacher)}, "
                f"not {args.input_norm}: give the same --input-norm"
            )
        try:
            teacher = cv2.dnn.readNetFromONNX(str(args.teacher))
        except cv2.error as exc:
            raise SystemExit(f"--teacher {args.teacher}: not a network OpenCV can run") from exc
        teacher_unfolded = input_stem(args.teacher) == "unfolded"
    photos = load_tuning(args.photos)
    mined = mine(photos)
    print(
        f"{len(photos)} photos, mined {sum(m[4] > 0 for m in mined)} pos "
        f"{sum(m[4] == 0 for m in mined)} neg",
        flush=True,
    )
    t_bank = time.time()
    bank = synth_bank(photos, args.synth, max(1, args.threads), args.seed, args.smoky_share)
    print(f"{len(bank[1])} drawn dice in {time.time() - t_bank:.0f}s", flush=True)
    sampler = Sampler(
        photos,
        mined,
        bank,
        args.synth_share,
        args.input_norm,
        args.neighbour_share,
        args.motion_share,
        covered_share=args.covered_share,
        covered_extra=args.covered_extra,
        surfaced=surfaced_for(args, photos, args.seed + 17),
        surface_share=args.surface_share,
    )
    net = CropNet(args.arch)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=3e-3, total_steps=args.iters, pct_start=0.1
    )
    crit = nn.CrossEntropyLoss()
    temp = args.temperature
    t0 = time.time()
    run, acc = 0.0, 0.0
    net.train()
    for it in range(args.iters):
        x, y = sampler.batch(rng, args.batch)
        logits = net(torch.from_numpy(x))
        loss = crit(logits, torch.from_numpy(y))
        if teacher is not None:
            teacher.setInput(unfold3(x) if teacher_unfolded else x)
            soft = torch.softmax(torch.from_numpy(np.asarray(teacher.forward())) / temp, 1)
            match = nn.functional.kl_div(
                torch.log_softmax(logits / temp, 1), soft, reduction="batchmean"
            )
            loss = (1.0 - args.distil) * loss + args.distil * temp * temp * match
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        a = float((logits.argmax(1).numpy() == y).mean())
        run = 0.98 * run + 0.02 * loss.item() if it else loss.item()
        acc = 0.98 * acc + 0.02 * a if it else a
        if it % 100 == 0 or it == args.iters - 1:
            print(f"iter {it} loss {run:.3f} acc {acc:.3f} {time.time() - t0:.0f}s", flush=True)
    net.eval()
    export_crop_net(net, out)
    write_record(
        out,
        {
            "script": "python -m vision.train.train_classifier",
            "args": vars(args),
            "data": f"{PHOTOS[args.photos]} of byler_d6 and matteo_webcam; "
            "negatives include the locator's false finds there; "
            + (
                f"plus {args.synth} drawn dice (vision/train/synth.py) "
                f"as {args.synth_share:.0%} of the positives"
                if args.synth
                else "no drawn dice"
            ),
            "images": len(photos),
            "mined_finds": len(mined),
            "seed": args.seed,
            "input_norm": args.input_norm,
            "final_loss": round(run, 4),
            "final_train_accuracy": round(acc, 4),
            "train_seconds": round(time.time() - t0),
            "augmentation": "any rotation, mirror, size x exp(N(0, 0.15)), centre jitter, hue/"
            "saturation/brightness/contrast, channel order, grey, negative, gaussian blur, noise; "
            "drawn dice: quarter turns and mirror on top of the drawing's own"
            + (f"; motion blur on {args.motion_share:.0%} of crops" if args.motion_share else "")
            + (
                f"; {args.covered_share:.0%} of negatives real dice partly covered (synth.cover)"
                if args.covered_share
                else ""
            )
            + (
                f"; {args.covered_extra:.0%} of all crops real dice partly covered, "
                "besides the usual share of negatives"
                if args.covered_extra
                else ""
            )
            + (
                f"; {args.surface_share:.0%} of label crops and negatives from the photos' "
                f"dice on {args.surface_variants} random surfaces each (vision.surfaces)"
                if args.surface_share
                else ""
            ),
        },
    )
    # The shipped form: the first layer takes unfolded input (vision.train.unfold_stem),
    # the same sums, which cv2.dnn runs faster. It checks the two forms agree.
    diff = unfold_file(out, out)
    print(f"wrote {out}; unfolded the first layer, largest logit difference {diff:.2g}", flush=True)

    return 0


if __name__ == "__main__":
    raise SystemExit(with_photos("python -m vision.train.train_classifier", main, None))
