"""The training scripts, started without the ``train`` extra: one line saying what to
install, not an ImportError traceback."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import RunPython

# Each script and the first package of the extra it imports (the test extra installs
# onnx, not torch, so both are hidden: the line must not depend on what is installed).
FIRST_NEEDED = {
    "vision.train.train_classifier": "torch",
    "vision.train.train_locator": "torch",
    "vision.train.finetune_classifier": "onnx",
    "vision.train.fitcheck": "torch",
    "vision.train.unfold_stem": "onnx",
}


def _run_without(
    run_python: RunPython, script: str, *hidden: str
) -> subprocess.CompletedProcess[str]:
    # None in sys.modules makes "import torch" fail as if it were not installed.
    code = (
        f"import runpy, sys; sys.modules.update(dict.fromkeys({hidden!r})); "
        f"runpy.run_module({script!r}, run_name='__main__')"
    )
    return run_python(code, "--help")


@pytest.mark.parametrize("script", sorted(FIRST_NEEDED))
def test_a_training_script_without_the_train_extra_says_what_to_install(
    run_python: RunPython, script: str
) -> None:
    done = _run_without(run_python, script, "torch", "onnx")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"vision.train: needs {FIRST_NEEDED[script]} (the train extra, never needed to run "
        "the table): .venv/bin/pip install -e '.[train]'"
    ]


def test_rewriting_a_network_needs_onnx_only(run_python: RunPython) -> None:
    pytest.importorskip("onnx")  # the test extra installs it
    done = _run_without(run_python, "vision.train.unfold_stem", "torch")
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout
