"""Small pieces shared by ``mex`` and ``mexico``: fast pair lookups and seat order.

Pairs are kept in states as their name (R-1: 63, 44, 21); the tables here turn
two dice into a name and a name into its R-2 rank without building objects, so
``apply`` stays cheap for simulators that play thousands of games a second.
"""

from __future__ import annotations

from collections.abc import Sequence

from table.rules.base import Event, EventKind, Throw
from table.rules.pairs import MEX, RANK_ORDER

# PAIR_NAME[a][b]: the name of the throw (a, b), higher die first. Row and
# column 0 are unused so that die values index directly.
PAIR_NAME: tuple[tuple[int, ...], ...] = tuple(
    tuple(max(a, b) * 10 + min(a, b) if a and b else 0 for b in range(7)) for a in range(7)
)

# RANK[name]: position of the pair in R-2 (0 = 31 ... 20 = 21); -1 for non-names.
RANK: tuple[int, ...] = tuple(RANK_ORDER.index(n) if n in RANK_ORDER else -1 for n in range(67))

__all__ = [
    "MEX",
    "PAIR_NAME",
    "RANK",
    "dice_refusal",
    "foreign_event",
    "pips",
    "round_order",
    "next_alive",
]


def pips(name: int) -> int:
    """Sum of the pips of the pair called ``name`` (MX-9 ``pips``)."""
    return name // 10 + name % 10


def next_alive(seat: int, alive: Sequence[bool]) -> int:
    """The first seat after ``seat`` (not including it) whose player is still in."""
    n = len(alive)
    for step in range(1, n + 1):
        s = (seat + step) % n
        if alive[s]:
            return s
    return seat


def round_order(start: int, alive: Sequence[bool]) -> tuple[int, ...]:
    """Seat order from ``start``, skipping players who are out (MX-2)."""
    n = len(alive)
    return tuple(s for s in ((start + i) % n for i in range(n)) if alive[s])


def dice_refusal(rules: str, event: Throw) -> str | None:
    """A reason to refuse a throw that is not two dice of 1-6, else None."""
    if len(event.dice) != 2:
        return f"{rules}: a throw is two dice, got {len(event.dice)}"
    a, b = event.dice
    if not (1 <= a <= 6 and 1 <= b <= 6):
        bad = a if not 1 <= a <= 6 else b
        return f"throw: die value {bad} is not possible (dice show 1 to 6)"
    return None


_FOREIGN = {
    EventKind.GIVE: "there is nothing to give",
    EventKind.BIDS: "there are no bids",
    EventKind.ROLL: "there are no special dice",
}


def foreign_event(rules: str, event: Event) -> str:
    """The reason for an event kind that this rule set does not know at all."""
    what = _FOREIGN.get(event.kind, "this event is not part of the game")
    return f"{rules}: {what} in {rules} ({event.kind.value!r})"
