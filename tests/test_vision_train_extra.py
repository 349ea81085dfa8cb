"""The training scripts, started without the ``train`` extra: one line saying what to
install, not an ImportError traceback."""

from __future__ import annotations

import pytest

from tests.conftest import RunPython

# Each script and the packages of the extra it needs (unfold_stem only rewrites ONNX files).
NEEDS = {
    "vision.train.train_classifier": {"torch", "onnx"},
    "vision.train.train_locator": {"torch"},
    "vision.train.finetune_classifier": {"torch", "onnx"},
    "vision.train.fitcheck": {"torch"},
    "vision.train.unfold_stem": {"onnx"},
}


@pytest.mark.parametrize("script", sorted(NEEDS))
@pytest.mark.parametrize("absent", ["torch", "onnx"])
def test_a_training_script_without_the_train_extra_says_what_to_install(
    run_python: RunPython, script: str, absent: str
) -> None:
    # None in sys.modules makes "import torch" fail as if it were not installed.
    code = (
        f"import runpy, sys; sys.modules[{absent!r}] = None; "
        f"runpy.run_module({script!r}, run_name='__main__')"
    )
    done = run_python(code, "--help")
    if absent not in NEEDS[script]:
        assert done.returncode == 0, done.stderr
        assert "usage:" in done.stdout
        return
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"vision.train: needs {absent} (the train extra, never needed to run the table): "
        ".venv/bin/pip install -e '.[train]'"
    ]
