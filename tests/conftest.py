"""Fixtures shared by the tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    """gpiozero's mock pins, reset after each test (pins keep state otherwise)."""
    old = Device.pin_factory
    f = MockFactory()
    Device.pin_factory = f
    try:
        yield f
    finally:
        f.reset()
        Device.pin_factory = old
