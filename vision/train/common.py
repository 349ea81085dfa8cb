"""Shared pieces of the training scripts: tuning-part photos with die sizes, augmentation."""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.train import missing, positive

try:
    import torch
    from torch import nn
except ImportError as exc:  # the train extra is not installed
    raise SystemExit(missing(exc)) from None

from vision.dataset import SETS, LabelledImage, Part, load_set
from vision.surfaces import cut_out, lay_on, name_seed, random_surface

SEED = 20261129
REPO = Path(__file__).resolve().parents[2]


def sep(cin: int, cout: int, stride: int = 1, dil: int = 1) -> nn.Sequential:
    """A depthwise-separable convolution block (3x3 depthwise, 1x1 pointwise), both networks'."""
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride, padding=dil, dilation=dil, groups=cin, bias=False),
        nn.BatchNorm2d(cin),
        nn.ReLU(inplace=True),
        nn.Conv2d(cin, cout, 1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


@dataclass
class Photo:
    name: str
    image: np.ndarray  # BGR uint8
    centers: np.ndarray  # (n, 2) float32, label-box centres
    sizes: np.ndarray  # (n,) float32, die side in pixels
    values: np.ndarray  # (n,) int
    boxes: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    """(n, 4) float32, the label boxes (x0, y0, x1, y1)."""
    pip_boxes: bool = False
    """Its labels box the pips only (``LabelledImage.pip_boxes``)."""


def _die_sizes(img: LabelledImage, fallback: float) -> np.ndarray:
    sides = np.array([max(d.bbox[2] - d.bbox[0], d.bbox[3] - d.bbox[1]) for d in img.dice])
    if not img.pip_boxes:
        return sides.astype(np.float32)
    # matteo_webcam boxes mostly surround the top face's pips only; a 4, 5 or 6
    # pattern spans about 0.7 of the face, so the die is about 1.45 times that box.
    big = [s for s, d in zip(sides, img.dice, strict=True) if d.value >= 4]
    est = 1.45 * float(np.median(big)) if big else fallback
    return np.full(len(sides), est, dtype=np.float32)


def load_tuning(part: Part = "tune") -> list[Photo]:
    """Tuning-part photos of every set (never the held-out part)."""
    photos: list[Photo] = []
    for set_name in SETS:
        imgs = load_set(set_name, part)
        big = [
            1.45 * max(d.bbox[2] - d.bbox[0], d.bbox[3] - d.bbox[1])
            for im in imgs
            for d in im.dice
            if d.value >= 4
        ]
        fallback = float(np.median(big)) if big else 40.0
        for im in imgs:
            image = im.read()
            photos.append(
                Photo(
                    f"{set_name}/{im.name}",
                    image,
                    np.array([d.center for d in im.dice], dtype=np.float32).reshape(-1, 2),
                    _die_sizes(im, fallback),
                    np.array([d.value for d in im.dice], dtype=np.int64),
                    np.array([d.bbox for d in im.dice], dtype=np.float32).reshape(-1, 4),
                    im.pip_boxes,
                )
            )
    return photos


def surface_photos(photos: list[Photo], variants: int, seed: int) -> list[Photo]:
    """Each photo's dice cut out (``vision.surfaces``) and laid on ``variants`` random
    surfaces, with the labels of the dice that cut out; a photo none of whose dice cut
    out, or with a die that did not cut out partly under another's cut, gives none."""
    rng = np.random.default_rng(seed)
    out: list[Photo] = []
    for ph in photos:
        if not len(ph.boxes):
            continue
        boxes = [(float(a), float(b), float(c), float(d)) for a, b, c, d in ph.boxes]
        cut = cut_out(ph.image, boxes, ph.pip_boxes, seed=name_seed("cut", ph.name))
        if not cut.whole or not cut.kept:
            continue
        k = np.array(cut.kept)
        h, w = ph.image.shape[:2]
        for v in range(variants):
            surface = random_surface(rng, h, w)
            image = lay_on(ph.image, cut, surface, soft=ph.pip_boxes)
            out.append(
                Photo(
                    f"{ph.name} on surface {v}",
                    image,
                    ph.centers[k],
                    ph.sizes[k],
                    ph.values[k],
                    ph.boxes[k],
                    ph.pip_boxes,
                )
            )
    return out


def add_surface_options(ap: argparse.ArgumentParser, share_help: str) -> None:
    """``--surface-share`` (what it is a share of: ``share_help``) and
    ``--surface-variants``, for ``surfaced_for``."""
    ap.add_argument("--surface-share", type=float, default=0.0, help=share_help)
    ap.add_argument(
        "--surface-variants",
        type=positive,
        default=3,
        help="random surfaces made for each photo (with --surface-share)",
    )


def surfaced_for(args: argparse.Namespace, photos: list[Photo], seed: int) -> list[Photo]:
    """The photos on random surfaces (``surface_photos``), if ``--surface-share`` asks for
    them; none otherwise."""
    if args.surface_share <= 0:
        return []
    t = time.time()
    out = surface_photos(photos, args.surface_variants, seed)
    print(f"{len(out)} photos on random surfaces in {time.time() - t:.0f}s", flush=True)
    return out


def colour_jitter(
    rng: np.random.Generator,
    img: np.ndarray,
    saturation: float = 0.5,
    grey: float = 0.1,
    negative: float = 0.1,
    contrast: float = 0.4,
    brightness: float = 40.0,
    gain: float = 0.1,
) -> np.ndarray:
    """Hue, saturation, brightness, contrast, channel order, occasional grey or negative.

    The defaults are the shipped networks' recipe (the same draws from ``rng`` in the
    same order whatever the values, so a recipe is reproduced exactly)."""
    out = img
    if rng.random() < 0.7:
        hsv = cv2.cvtColor(out, cv2.COLOR_BGR2HSV).astype(np.int32)
        hsv[..., 0] = (hsv[..., 0] + int(rng.integers(0, 180))) % 180
        hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(1 - saturation, 1 + saturation), 0, 255)
        out = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
    if rng.random() < 0.3:
        out = out[..., rng.permutation(3)]
    if rng.random() < grey:
        g = cv2.cvtColor(out, cv2.COLOR_BGR2GRAY)
        out = cv2.cvtColor(g, cv2.COLOR_GRAY2BGR)
    if rng.random() < negative:
        out = 255 - out
    f = out.astype(np.float32)
    c = rng.uniform(1 - contrast, 1 + contrast)
    bright = rng.uniform(-brightness, brightness)
    f = (f - 128.0) * c + 128.0 + bright
    f *= rng.uniform(1 - gain, 1 + gain, size=3).astype(np.float32)
    return np.clip(f, 0, 255).astype(np.uint8)


def blur_noise(rng: np.random.Generator, img: np.ndarray, max_sigma: float) -> np.ndarray:
    out = img
    if rng.random() < 0.4:
        s = rng.uniform(0.3, max_sigma)
        out = cv2.GaussianBlur(out, (0, 0), s)
    if rng.random() < 0.3:
        noise = rng.normal(0, rng.uniform(2, 8), out.shape)
        out = np.clip(out.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    return out


def git_commit() -> str:
    """The commit this code was checked out at (not that of the folder it is run from),
    with "+changes" if its files differ from it; "unknown" outside a git checkout."""
    try:
        head = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head}+changes" if dirty else head


def write_record(onnx: Path, record: dict[str, object]) -> None:
    """The network's record, beside it as ``.json``."""
    record = dict(record)
    record["torch"] = torch.__version__
    record["repo_head_when_trained"] = git_commit()
    # default=str: paths among the arguments (--teacher, --start) as they were given
    text = json.dumps(record, indent=2, default=str)
    onnx.with_suffix(".json").write_text(text + "\n", encoding="utf-8")
