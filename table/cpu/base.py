"""What every strategy trades in: strength levels, the throw marker, decisions."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from table.rules.base import Count, EndRound, Event, Give, Hold, Stand, Throw


class Level(StrEnum):
    """A CPU player's strength (``Player.cpu``; ``table.game.CPU_LEVELS``)."""

    EASY = "easy"  # a casual beginner
    NORMAL = "normal"  # a decent player with rules of thumb
    HARD = "hard"  # exact expected loss, see each strategy's docstring


@dataclass(frozen=True)
class ThrowAgain:
    """The CPU throws (again): ``dice`` dice are rolled, by the table or a person.

    Not an event: the event is the :class:`~table.rules.base.Throw` that the
    dice make (``table.cpu.throw_event``).
    """

    dice: int = 2


Decision = Stand | EndRound | Hold | Give | Count | ThrowAgain


class Strategy(Protocol):
    """The CPU players of one rule set."""

    def deciders(self, state: Any) -> tuple[int, ...]:
        """Seats that may decide something now, in the order to ask them; the
        player on turn is always last."""
        ...

    def decide(self, level: Level, state: Any, seat: int, rng: random.Random) -> Decision | None:
        """The decision of the CPU at ``seat``. Never None for the player on
        turn; None for another seat that lets the moment pass."""
        ...

    def throw_event(self, state: Any, dice: tuple[int, int]) -> Throw:
        """The throw that two rolled dice make now (one die in a one-die
        tie-break; the held die and one rolled die after a hold)."""
        ...

    def step(self, levels: Sequence[Level], state: Any, rng: random.Random) -> Event:
        """For a table of CPU players only (``levels`` per seat): the next
        event, rolling any dice with ``rng``. The simulator's fast path; it
        makes the same decisions as :meth:`decide`."""
        ...


# DICE[v] for v in 0..35: two dice (v // 6 + 1, v % 6 + 1), as a throw event.
DICE: tuple[Throw, ...] = tuple(Throw((v // 6 + 1, v % 6 + 1)) for v in range(36))


def roll(rng: random.Random) -> tuple[int, int]:
    """Two dice from ``rng`` (the simulator's software dice)."""
    return DICE[int(rng.random() * 36)].dice  # type: ignore[return-value]


def generic_step(
    strategy: Strategy, levels: Sequence[Level], state: Any, rng: random.Random
) -> Event:
    """:meth:`Strategy.step` from ``deciders``, ``decide`` and ``throw_event``."""
    for seat in strategy.deciders(state):
        decision = strategy.decide(levels[seat], state, seat, rng)
        if decision is None:
            continue
        if isinstance(decision, ThrowAgain):
            return strategy.throw_event(state, roll(rng))
        return decision
    raise RuntimeError("no CPU player has a move")
