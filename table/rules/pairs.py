"""Reading two dice, shared by the three Mex games (R-1, R-2, R-3)."""

from __future__ import annotations

from dataclasses import dataclass

# rank, low to high. 21 (Mex) is the highest; doubles beat ordinary pairs.
RANK_ORDER: tuple[int, ...] = (
    31, 32, 41, 42, 43, 51, 52, 53, 54, 61, 62, 63, 64, 65,
    11, 22, 33, 44, 55, 66,
    21,
)  # fmt: skip
_RANK = {name: i for i, name in enumerate(RANK_ORDER)}

MEX = 21


@dataclass(frozen=True, order=True)
class Pair:
    """An unordered throw of two dice, named higher die first (R-1)."""

    high: int
    low: int

    @staticmethod
    def of(a: int, b: int) -> Pair:
        pair = _PAIRS.get((a, b))
        if pair is None:
            raise ValueError(f"die values must be 1-6, got {a} and {b}")
        return pair

    @property
    def name(self) -> int:
        """63 for 6 and 3; 11 for double 1; 21 for Mex."""
        return self.high * 10 + self.low

    @property
    def rank(self) -> int:
        """Position in R-2, 0 (31) to 20 (21); higher is better."""
        return _RANK[self.name]

    @property
    def is_mex(self) -> bool:
        return self.name == MEX

    @property
    def is_double(self) -> bool:
        return self.high == self.low

    @property
    def pips(self) -> int:
        """Sum of the pips, for MX-9's ``pips`` counting."""
        return self.high + self.low

    def shown(self, doubles_as_hundreds: bool = True) -> str:
        """R-3: "MEX" for 21, "400" for double 4 (seeds 000/003), else the name."""
        if self.is_mex:
            return "MEX"
        if self.is_double and doubles_as_hundreds:
            return str(self.high * 100)
        return str(self.name)


# Every throw's Pair, made once: building a frozen dataclass on every throw was about a
# third of the mexen engine's time.
_PAIRS: dict[tuple[int, int], Pair] = {
    (a, b): Pair(max(a, b), min(a, b)) for a in range(1, 7) for b in range(1, 7)
}
