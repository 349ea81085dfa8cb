"""Training scripts for the pip reader's two small networks (needs the ``train`` extra)."""

from __future__ import annotations


def missing(exc: ImportError) -> str:
    """One line for a training script started without the ``train`` extra installed."""
    return (
        f"vision.train: needs {exc.name or 'a package'} (the train extra, never needed to "
        "run the table): .venv/bin/pip install -e '.[train]'"
    )
