"""The one split of the labelled photos (vision/dataset.py): no part used for training
or thresholds ever reaches the held-out images."""

from __future__ import annotations

from vision.dataset import Part, in_part

N = 400


def _part(part: Part) -> set[int]:
    return {i for i in range(N) if in_part(i, part)}


def test_tuning_and_heldout_split_every_image_once() -> None:
    tune, held = _part("tune"), _part("heldout")
    assert tune.isdisjoint(held)
    assert tune | held == _part("all") == set(range(N))
    assert len(tune) == len(held) == N // 2


def test_fit_and_calibration_split_the_tuning_part() -> None:
    fit, calib = _part("fit"), _part("calib")
    assert fit.isdisjoint(calib)
    assert fit | calib == _part("tune")
    assert len(calib) == N // 8


def test_half_is_two_thirds_of_fit_and_never_calibration_or_heldout() -> None:
    half = _part("half")
    assert half <= _part("fit")
    assert half.isdisjoint(_part("calib")) and half.isdisjoint(_part("heldout"))
    assert 3 * len(half) == 2 * len(_part("fit"))
