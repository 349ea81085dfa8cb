"""Training scripts for the pip reader's two small networks (needs the ``train`` extra)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def missing(exc: ImportError) -> str:
    """One line for a training script started without the ``train`` extra installed."""
    return (
        f"vision.train: needs {exc.name or 'a package'} (the train extra, never needed to "
        "run the table): .venv/bin/pip install -e '.[train]'"
    )


MODELS = Path(__file__).resolve().parents[1] / "models"
"""The shipped networks' folder: the reader loads ``locator.onnx`` from it and averages
every ``classifier*.onnx`` in it."""


def output_path(name: str, kind: str, replace: bool = False) -> Path:
    """The ``.onnx`` file ``--name NAME`` writes (its ``.json`` goes beside it), checked
    before any training: a mistake found after an hour of training loses the hour.

    A plain name is a file in ``vision/models/``; a name with a ``/`` is a path (the
    suffix added). ``kind`` ("locator" or "classifier") is the network made. Raises
    SystemExit with one line when the name is empty or hidden, when the file exists
    (unless ``replace``) or is a link, when its folder cannot be written, and when it
    would be taken by the reader at once: ``locator.onnx`` or a ``classifier*.onnx`` in
    ``vision/models/`` (only a network of that kind, and only with ``replace``).
    """
    bare = Path(name)
    if not name.strip() or name.endswith("/") or bare.name.startswith(".") or not bare.name:
        raise SystemExit(f"--name {name!r}: give a file name (it gets .onnx and .json)")
    base = bare if "/" in name else MODELS / name
    out = base.parent / f"{base.name}.onnx"
    folder = out.parent.resolve()
    if not folder.is_dir():
        raise SystemExit(f"--name {name!r}: no folder {out.parent}")
    if not os.access(folder, os.W_OK):
        raise SystemExit(f"--name {name!r}: cannot write in {out.parent}")
    stem = out.stem
    if folder == MODELS.resolve():
        shipped = {"locator": "locator"}.get(stem)
        if stem.startswith("classifier"):
            shipped = "classifier"
        if shipped is not None and (shipped != kind or not replace):
            what = "the reader's locator" if shipped == "locator" else "averaged in by the reader"
            if shipped == kind:
                need = "--replace to ship it"
            else:
                need = f"a {shipped}'s name; this makes a {kind}"
            raise SystemExit(
                f"--name {name!r}: {out.name} in vision/models/ is {what} at once "
                f"({need}); name it otherwise"
            )
    for path in (out, out.with_suffix(".json")):
        if path.is_symlink():
            raise SystemExit(f"--name {name!r}: {path} is a link; name another file")
        if path.is_dir():
            raise SystemExit(f"--name {name!r}: {path} is a folder")
        if path.exists() and not replace:
            raise SystemExit(f"--name {name!r}: {path} exists (--replace writes over it)")
    return out


def add_output_options(ap: argparse.ArgumentParser, default: str) -> None:
    """``--name`` and ``--replace``, read by :func:`output_path`."""
    ap.add_argument(
        "--name",
        default=default,
        help="output: NAME.onnx and NAME.json in vision/models/, or a path with a /; the "
        "reader's own names there (locator, classifier*) only with --replace",
    )
    ap.add_argument("--replace", action="store_true", help="write over an existing file")


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1 (iterations, batch, threads)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is less than 1")
    return value


def existing_file(text: str) -> Path:
    """An argparse type: a file that is there (checked before the long preparations)."""
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"no such file: {text}")
    return path
