"""Uneven light for training patches (vision/train/light.py): the three kinds, within
their bounds, repeatable from a seed."""

from __future__ import annotations

import numpy as np

from vision.train.light import SHADE, uneven_light


def _kind(m: np.ndarray) -> str:
    """Which kind a map is, told by its values: a shadow is two plateaus (1 and one shade)
    with a thin soft edge; bands go up and down more than once along a line; a ramp
    rises one way only."""
    flat = m.ravel()
    if np.mean(np.isclose(flat, 1.0, atol=1e-3)) > 0.05 and np.mean(flat < 0.61) > 0.05:
        return "shadow"
    rises = [np.sign(np.diff(line)) for line in (m[m.shape[0] // 2], m[:, m.shape[1] // 2])]
    turns = max(int(np.count_nonzero(np.diff(r[r != 0]))) for r in rises)
    return "bands" if turns >= 2 else "ramp"


def test_light_maps_are_of_the_three_kinds_and_within_bounds() -> None:
    rng = np.random.default_rng(11)
    seen: dict[str, int] = {}
    for _ in range(90):
        m = uneven_light(rng, 96)
        assert m.shape == (96, 96) and m.dtype == np.float32
        assert float(m.min()) >= SHADE[0] - 1e-6 and float(m.max()) <= 1.0 + 1e-6
        assert float(m.max()) - float(m.min()) > 0.15  # uneven, not a uniform dimming
        seen[_kind(m)] = seen.get(_kind(m), 0) + 1
    assert set(seen) == {"shadow", "bands", "ramp"}, seen
    assert min(seen.values()) >= 15, seen  # about a third each


def test_a_shadow_is_dark_on_one_side_of_its_edge_only() -> None:
    rng = np.random.default_rng(2)
    shadows = 0
    for _ in range(30):
        m = uneven_light(rng, 64)
        if _kind(m) != "shadow":
            continue
        shadows += 1
        dark = float(m.min())
        assert SHADE[0] - 1e-6 <= dark <= SHADE[1] + 1e-6
        # the soft edge is a thin band: most pixels are lit or in the shade
        assert np.mean(np.isclose(m, 1.0, atol=0.02) | np.isclose(m, dark, atol=0.02)) > 0.7
    assert shadows >= 5


def test_the_same_seed_draws_the_same_light() -> None:
    a = uneven_light(np.random.default_rng(4), 32)
    b = uneven_light(np.random.default_rng(4), 32)
    c = uneven_light(np.random.default_rng(5), 32)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
