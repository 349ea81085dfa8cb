"""Software dice and the exact chances of two dice (R-1, R-2).

Software dice are a pure function of the game's seed and the event's index in
the log: the table rolls for a CPU player with :func:`roll_dice`, writes the
throw into the log like any other, and after a power cut resumes at the same
index and rolls the same dice. No global random state is ever used.

The chances are exact fractions of 36 turned into floats once: a throw of two
dice is one of 21 pairs, a double with chance 1/36, any other pair 2/36.
"""

from __future__ import annotations

import hashlib
import random

from table.rules.pairs import RANK_ORDER

__all__ = [
    "MEX_RANK",
    "PAIR_PROB",
    "PIPS_PROB",
    "RANK_OF",
    "decision_rng",
    "roll_dice",
]

# RANK_OF[a][b]: the R-2 rank (0 = 31 ... 20 = 21) of the throw (a, b).
RANK_OF: tuple[tuple[int, ...], ...] = tuple(
    tuple(RANK_ORDER.index(max(a, b) * 10 + min(a, b)) if a and b else -1 for b in range(7))
    for a in range(7)
)

MEX_RANK = len(RANK_ORDER) - 1  # 21, the highest pair

# PAIR_PROB[rank]: the chance that one throw of two dice is the pair of that rank.
PAIR_PROB: tuple[float, ...] = tuple(
    (1.0 if name // 10 == name % 10 else 2.0) / 36.0 for name in RANK_ORDER
)

# PIPS_PROB[s]: the chance that two dice show s pips in all (MX-9 ``pips``).
PIPS_PROB: tuple[float, ...] = tuple(
    sum(1 for a in range(1, 7) for b in range(1, 7) if a + b == s) / 36.0 for s in range(13)
)


def _digest(tag: bytes, seed: int, index: int) -> int:
    data = b"dicetable/%s/%d/%d" % (tag, seed, index)
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")


def roll_dice(seed: int, index: int) -> tuple[int, int]:
    """Two software dice for the event at ``index`` of a game seeded ``seed``.

    Pure: the same (seed, index) always gives the same dice, on any machine.
    The 64-bit hash taken modulo 36 is uniform to within 2**-58.
    """
    v = _digest(b"dice", seed, index) % 36
    return v // 6 + 1, v % 6 + 1


def decision_rng(seed: int, index: int) -> random.Random:
    """A private random source for a CPU decision at ``index`` of a game seeded ``seed``.

    A resumed game hands a strategy the same source at the same point, so even
    the random whims of an ``easy`` player come out the same.
    """
    return random.Random(_digest(b"cpu", seed, index))
