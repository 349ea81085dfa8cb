"""The code stays typed and linted: mypy --strict and ruff run as tests."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> list[str]:
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return [str(beside)]
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed (pip install -e '.[test]')")
    return [found]


def test_mypy_strict_is_clean() -> None:
    proc = subprocess.run(
        [*_tool("mypy"), "--no-error-summary"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_is_clean() -> None:
    proc = subprocess.run([*_tool("ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports (absolute names; relative ones made absolute)."""
    import ast

    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _sources(folder: str) -> list[Path]:
    files = sorted((ROOT / folder).rglob("*.py"))
    assert files, folder
    return files


def _top(name: str) -> str:
    return name.split(".")[0]


def test_the_rules_are_pure_they_import_no_io_clock_or_randomness() -> None:
    """table/rules decides from its events alone: no files, clock, randomness or other
    parts of the table (a replay must give the same game on any machine, at any time)."""
    allowed = {"__future__", "collections", "dataclasses", "enum", "typing", "importlib"}
    allowed.add("json")  # json.dumps only: a bad option's value spelt as the game file does
    for path in _sources("table/rules"):
        for name in _imports(path):
            if _top(name) == "table":
                assert name.startswith("table.rules"), (path.name, name)
            else:
                assert _top(name) in allowed, (path.name, name)


def test_only_the_adapters_import_the_hardware_libraries() -> None:
    hardware = {"gpiozero", "luma", "picamera2", "libcamera", "lgpio", "smbus", "smbus2"}
    adapters = {"table/hw/buttons.py", "table/hw/display.py", "vision/sources.py"}
    seen = set()
    for path in _sources("table") + _sources("vision"):
        names = {_top(n) for n in _imports(path)} & hardware
        where = path.relative_to(ROOT).as_posix()
        if names:
            assert where in adapters, (where, names)
            seen.add(where)
    assert seen == adapters  # the check looks where the imports are


def test_opencv_belongs_to_vision_no_table_module_imports_it() -> None:
    """The table hands pixels to vision and gets readings back: every cv2 call, the
    demo frames' cutting and pasting included (vision/compose.py), is vision's. Imports
    inside functions count too."""
    found = [
        path.relative_to(ROOT).as_posix()
        for path in _sources("table")
        if "cv2" in {_top(n) for n in _imports(path)}
    ]
    assert found == []
    assert any("cv2" in {_top(n) for n in _imports(p)} for p in _sources("vision"))


def test_vision_never_imports_table_in_any_module() -> None:
    for path in _sources("vision"):
        assert not {n for n in _imports(path) if _top(n) == "table"}, path.name


def test_plain_pytest_collects_the_tests_that_import_their_helpers() -> None:
    """The tests import shared helpers as ``tests.conftest``; ``python -m pytest`` puts the
    current folder on the path, but the venv's plain ``pytest`` did not, and stopped with
    "No module named 'tests'" while collecting."""
    pytest_bin = Path(sys.executable).parent / "pytest"
    if not pytest_bin.exists():
        pytest.skip("no pytest script beside this Python")
    proc = subprocess.run(
        [str(pytest_bin), "--collect-only", "-q", "-p", "no:cacheprovider", "tests/test_loop.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "No module named 'tests'" not in proc.stdout
