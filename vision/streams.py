"""Output streams of the command-line tools whose reader has gone (``| head -1``)."""

from __future__ import annotations

import os
from typing import TextIO


def null_into(fd: int) -> None:
    """Descriptor ``fd`` writes to ``/dev/null`` from now on; the descriptor opened for
    that is closed once it is in place."""
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def send_nowhere(out: TextIO) -> TextIO:
    """A stream whose reader has gone: what it still holds, and all written to it from
    now on, goes nowhere (flushed again as the program ends, it would fail again)."""
    try:
        fd = out.fileno()
    except (OSError, ValueError):  # no file of its own (a test's StringIO)
        return open(os.devnull, "w")  # noqa: SIM115 - lives as long as the run
    null_into(fd)
    return out
