"""The labelled dice photos and their one split into a tuning and a held-out part.

Every user of the photos (training, benchmark, tests) goes through this module so
that the split is the same everywhere.

The split rule: within a set, sort the images by file name; the image at an even
index (0, 2, 4 ...) belongs to the *tuning* part, the one at an odd index to the
*held-out* part. Nothing is ever trained or tuned on the held-out part.

The tuning part is further divided for the crop classifier: images at index
6, 14, 22 ... (``index % 8 == 6``) form the *calibration* part, kept out of the
classifier's training so that its refusal thresholds are set on dice it has not
seen; the rest of the tuning part (``"fit"``) trains it. The images at index 0, 4,
8 ... (``"half"``: half the tuning part, two thirds of "fit") are there to measure
what fewer photos cost the classifier, on the calibration part.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np
import numpy.typing as npt

from vision.streams import null_into

SETS: tuple[str, ...] = ("byler_d6", "matteo_webcam")
Part = Literal["tune", "heldout", "all", "fit", "calib", "half"]
PIP_BOXES: frozenset[str] = frozenset({"matteo_webcam"})
"""Sets whose label boxes mostly surround the top face's pips, not the whole die."""


@dataclass(frozen=True)
class LabelledDie:
    value: int
    bbox: tuple[float, float, float, float]

    @property
    def center(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.bbox
        return ((x0 + x1) / 2.0, (y0 + y1) / 2.0)


@dataclass(frozen=True)
class LabelledImage:
    set_name: str
    path: Path
    width: int
    height: int
    dice: tuple[LabelledDie, ...]

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def pip_boxes(self) -> bool:
        """Its labels box the top face's pips, not the whole die (``PIP_BOXES``)."""
        return self.set_name in PIP_BOXES

    def read(self) -> npt.NDArray[np.uint8]:
        """The photo as ``dicetable read`` reads it (``vision.sources.load_image``): the
        one way the benchmark, the training scripts and ``vision.robustness`` read it.
        A photo that cannot be read is a ``DatasetError`` naming the file."""
        from vision.sources import CameraError, load_image  # cv2: only for the pixels

        try:
            return load_image(self.path)
        except CameraError as exc:
            why = str(exc).removeprefix(f"{self.path}: ")
            raise DatasetError(
                f"cannot read {self.path}, listed in its set's manifest.json ({why})"
            ) from None


class DatasetError(Exception):
    """The labelled photos are not where they were looked for, or their manifest is
    unreadable: one line for a person, never a traceback."""


def default_data_dir() -> Path:
    """``$DICETABLE_SHARED`` if set, else ``../shared/data/dice`` beside the repository."""
    env = os.environ.get("DICETABLE_SHARED")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1].parent / "shared" / "data" / "dice"


def in_part(index: int, part: Part) -> bool:
    """Whether the image at ``index`` (in file-name order) belongs to ``part``."""
    if part == "all":
        return True
    if part == "heldout":
        return index % 2 == 1
    if part == "tune":
        return index % 2 == 0
    if part == "calib":
        return index % 8 == 6
    if part == "half":
        return index % 4 == 0
    if part == "fit":
        return index % 2 == 0 and index % 8 != 6
    # A misspelt part ("tuning", "held-out") was taken for "fit", without a word.
    raise ValueError(f"no part {part!r} of a set (parts: {', '.join(get_args(Part))})")


def _die(d: Any) -> LabelledDie:
    """One die of a manifest entry: a value 1-6 and a box of four numbers (see README)."""
    value = int(d["value"])
    if not 1 <= value <= 6:
        raise ValueError(f"a die value of {value}, not 1-6")
    x0, y0, x1, y1 = (float(v) for v in d["bbox"])  # four numbers, or a ValueError
    return LabelledDie(value, (x0, y0, x1, y1))


def load_set(
    set_name: str, part: Part = "all", data_dir: Path | None = None
) -> list[LabelledImage]:
    """The images of one set, sorted by file name, restricted to ``part``.

    A missing folder or manifest, or one that is not the manifest described in the data
    folder's README, is a ``DatasetError`` naming the file (and ``$DICETABLE_SHARED``,
    which points elsewhere)."""
    root = (data_dir or default_data_dir()) / set_name
    path = root / "manifest.json"
    try:
        with open(path, encoding="utf-8") as fh:
            manifest = json.load(fh)
    except FileNotFoundError:
        raise DatasetError(
            f"no labelled photos at {path} (set DICETABLE_SHARED to the folder that holds "
            f"{set_name}/)"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"cannot read {path}: {exc}") from None
    try:
        entries = sorted(manifest["images"], key=lambda e: str(e["file"]))
        every = [
            LabelledImage(
                set_name,
                root / str(e["file"]),
                int(e["width"]),
                int(e["height"]),
                tuple(_die(d) for d in e["dice"]),
            )
            for e in entries
        ]
    except (KeyError, TypeError, ValueError) as exc:
        raise DatasetError(f"{path} is not a manifest of labelled photos ({exc!r})") from None
    if not every:
        raise DatasetError(f"{path} lists no images")
    return [img for i, img in enumerate(every) if in_part(i, part)]


def with_photos(prog: str, run: Callable[[list[str] | None], int], argv: list[str] | None) -> int:
    """``run(argv)``; a DatasetError (no labelled photos, a broken manifest) is one line
    on stderr naming ``prog``, and exit 2. Output piped into a reader that stops early
    (``| head``) ends the run quietly, as it does for ``dicetable``."""
    try:
        return run(argv)
    except DatasetError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # what is still buffered would fail again as the interpreter exits
        with contextlib.suppress(AttributeError, OSError, ValueError):
            null_into(sys.stdout.fileno())
        return 0
