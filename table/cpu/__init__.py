"""CPU players for the Mex games (``mex``, ``mexico``, ``mexen``) and their dice.

The API the table service calls
===============================

``decide(rules_name, level, state, rng, seat=None) -> Decision | None``
    The next decision of the CPU player at ``seat`` (default: the player on
    turn) in ``state`` (the rule set's state, ``Game.state``). ``level`` is
    ``"easy"``, ``"normal"`` or ``"hard"`` (``Player.cpu``). The answer is one
    of the events ``Stand``, ``EndRound``, ``Hold``, ``Give``, ``Count`` (send
    it to ``Game.apply`` like a button press) or the marker ``ThrowAgain(dice)``:
    the CPU throws, so roll ``dice`` dice (``roll_dice``, or a person at the
    table, MC-6) and send the ``Throw`` that ``throw_event`` makes of them.
    For the player on turn the answer is never None; for another seat None
    means it lets the moment pass. Every answer is accepted by the rules.

``deciders(rules_name, state) -> tuple[int, ...]``
    The seats that may decide something now, in the order to ask them, the
    player on turn last. Besides the player on turn: in ``mex`` the player
    who threw last may end the round (MX-7) before the next player's first
    throw, and a tie-break's last player chooses its counting (MX-9) before
    its first throw.

``roll_dice(seed, index) -> tuple[int, int]``
    Software dice for the event at 0-based ``index`` of the log of a game
    seeded ``seed``: a pure function (a hash of both), so a resumed game
    rolls the same dice.

``decision_rng(seed, index) -> random.Random``
    The random source to hand ``decide`` for the decision at ``index``, for
    the same reason. Strategies never touch the global random state.

``throw_event(rules_name, state, dice) -> Throw``
    The throw two rolled dice make now: both dice; the first die only in a
    ``mexen`` one-die tie-break (MN-10); the held die and the first rolled
    die after a ``hold`` (MN-5).

``next_event(rules_name, state, players, seed, index) -> Event | None``
    All of the above for a table that rolls the CPU's dice in software: the
    event the CPU players send now, or None while it is a person's turn.

CPU decisions and throws are ordinary events in the log; a replay never
calls a strategy. ``mythical`` has no CPU players (NoStrategy).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Sequence
from typing import Any

from table.cpu.base import Decision, Level, Strategy, ThrowAgain
from table.cpu.dice import decision_rng, roll_dice
from table.rules.base import Event, Player, Throw

__all__ = [
    "CPU_RULES",
    "Decision",
    "Level",
    "NoStrategy",
    "Strategy",
    "ThrowAgain",
    "decide",
    "deciders",
    "decision_rng",
    "get_strategy",
    "next_event",
    "roll_dice",
    "throw_event",
]

CPU_RULES: tuple[str, ...] = ("mex", "mexico", "mexen")


class NoStrategy(ValueError):
    """A rule set without CPU players, or an unknown strength level."""


def get_strategy(rules_name: str) -> Strategy:
    """The CPU players of ``rules_name`` (imported on first use)."""
    if rules_name not in CPU_RULES:
        raise NoStrategy(
            f"no CPU players for {rules_name!r} (CPU players play: {', '.join(CPU_RULES)})"
        )
    module = importlib.import_module(f"table.cpu.{rules_name}")
    strategy: Strategy = module.STRATEGY
    return strategy


def as_level(level: str | Level) -> Level:
    try:
        return Level(level)
    except ValueError:
        known = ", ".join(v.value for v in Level)
        raise NoStrategy(f"unknown cpu strength {level!r} (known: {known})") from None


def deciders(rules_name: str, state: Any) -> tuple[int, ...]:
    return get_strategy(rules_name).deciders(state)


def decide(
    rules_name: str,
    level: str | Level,
    state: Any,
    rng: random.Random,
    seat: int | None = None,
) -> Decision | None:
    strategy = get_strategy(rules_name)
    if seat is None:
        seats = strategy.deciders(state)
        if not seats:
            return None
        seat = seats[-1]
    return strategy.decide(as_level(level), state, seat, rng)


def throw_event(rules_name: str, state: Any, dice: tuple[int, int]) -> Throw:
    return get_strategy(rules_name).throw_event(state, dice)


def next_event(
    rules_name: str, state: Any, players: Sequence[Player], seed: int, index: int
) -> Event | None:
    strategy = get_strategy(rules_name)
    seats = strategy.deciders(state)
    for seat in seats:
        level = players[seat].cpu
        if level is None:
            if seat == seats[-1]:
                return None  # a person's turn
            continue
        decision = strategy.decide(as_level(level), state, seat, decision_rng(seed, index))
        if decision is None:
            continue
        if isinstance(decision, ThrowAgain):
            return strategy.throw_event(state, roll_dice(seed, index))
        return decision
    return None
