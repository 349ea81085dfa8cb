"""CPU players for ``mexico`` (MC-1..MC-6): stand or throw again.

The only decision in mexico is, after each throw below the limit, to keep the
pair (``stand``) or throw both dice again (MC-2). What each level does:

- ``easy``, a casual beginner: looks only at its own pair, stands on 61 or
  better and throws again below it; one time in five it follows a whim and
  does the opposite.
- ``normal``, a decent player: when someone before it this round kept a pair,
  it stands as soon as it is above the lowest of them and throws again
  otherwise; as the round's first player it stands on a double or 21, and on
  its second throw also on 61 or better.
- ``hard``: minimises its expected loss of lives in this round, exactly.

How ``hard`` reckons. It knows the R-2 chances of two dice, the pairs kept so
far this round, whether a 21 has been thrown (MC-3 doubling, when on), the
throw limit, how many players are still to throw, and its lives left (a loss
is capped by them: with one life, 2 costs no more than 1). It assumes every
player after it plays a fixed reasonable policy: throw again while not above
the lowest pair kept so far, stand as soon as above it, keep the last throw at
the limit (the best play for the last player, and what a sensible player
does). Then:

- above the lowest pair kept before it, it can no longer lose: it stands;
- otherwise, holding rank r, it loses only if no later player ends strictly
  below r. Under the policy each later player independently ends not below r
  with no 21 thrown (chance a), not below r with a 21 thrown (b), or below r,
  computed exactly over their throws. So standing costs
  ``L1 * a**n + L2 * ((a + b)**n - a**n)`` with n players to come (only
  ``L2 * (a + b)**n`` when a 21 has already been thrown), L1 the loss of a
  plain round and L2 the doubled one;
- throwing again is worth the chance-weighted best of the next throw, found
  by dynamic programming over its own remaining throws (the last one is kept).
  It throws again only when that is strictly cheaper than standing.

Lives are a game-long matter; ``hard`` minimises the loss of the round at hand,
which is what a single decision controls.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

from table.cpu.base import DICE, Decision, Level, ThrowAgain
from table.cpu.dice import MEX_RANK, PAIR_PROB
from table.rules._mexfamily import RANK
from table.rules.base import Event, Stand, Throw
from table.rules.mexico import MexicoState

NOBODY = MEX_RANK + 1  # "lowest kept so far" before anybody kept a pair
_RANK_61 = RANK[61]
_RANK_11 = RANK[11]
_RANKS = range(MEX_RANK + 1)
_EPS = 1e-12
_STAND = Stand()
_THROW = ThrowAgain()


# ---------------------------------------------------------------------------
# hard: exact expected loss


@cache
def later_player(r: int, limit: int) -> tuple[float, float, float]:
    """One later player against a lowest pair of rank ``r``, playing the policy
    of the module docstring with ``limit`` throws: the chances that they end
    (not below r, no 21 thrown), (not below r, a 21 thrown), (below r)."""
    reach = [1.0, 0.0]  # chance of making the next throw, without / with a 21 seen
    clean = seen = below = 0.0
    for i in range(limit):
        last = i == limit - 1
        nxt = [0.0, 0.0]
        for saw in (0, 1):
            if not reach[saw]:
                continue
            for x in _RANKS:
                p = reach[saw] * PAIR_PROB[x]
                s = saw or x == MEX_RANK
                if x > r or last:
                    if x < r:
                        below += p
                    elif s:
                        seen += p
                    else:
                        clean += p
                else:
                    nxt[s] += p
        reach = nxt
    return clean, seen, below


@cache
def stand_loss(
    r: int, saw: bool, lowest: int, after: int, limit: int, plain: int, doubled: int
) -> float:
    """Expected lives lost by keeping rank ``r`` now.

    ``lowest`` is the lowest rank kept before (NOBODY if none), ``after`` the
    players still to throw, ``plain``/``doubled`` the loss without / with a 21.
    """
    if r > lowest:
        return 0.0
    a, b, _ = later_player(r, limit)
    at_risk = (a + b) ** after
    if saw:
        return doubled * at_risk
    clean = a**after
    return plain * clean + doubled * (at_risk - clean)


@cache
def best_loss(
    throws: int, r: int, saw: bool, lowest: int, after: int, limit: int, plain: int, doubled: int
) -> float:
    """Expected lives lost with rank ``r`` after ``throws`` throws, playing on best."""
    stand = stand_loss(r, saw, lowest, after, limit, plain, doubled)
    if throws >= limit:
        return stand
    return min(stand, again_loss(throws, saw, lowest, after, limit, plain, doubled))


@cache
def again_loss(
    throws: int, saw: bool, lowest: int, after: int, limit: int, plain: int, doubled: int
) -> float:
    """Expected lives lost by throwing again now and playing on best."""
    return sum(
        PAIR_PROB[x]
        * best_loss(throws + 1, x, saw or x == MEX_RANK, lowest, after, limit, plain, doubled)
        for x in _RANKS
    )


def losses(state: MexicoState) -> tuple[int, int]:
    """The loss of the player on turn for a plain and a doubled round (MC-3),
    capped by their lives left (MC-4)."""
    cfg = state.config
    seat = state.order[len(state.kept)]
    left = state.lives[seat]
    plain = min(1, left)
    return plain, min(2 if cfg.double_on_21 else 1, left)


def lowest_kept(state: MexicoState) -> int:
    return min((RANK[p] for p in state.kept), default=NOBODY)


def hard_throws_again(state: MexicoState) -> bool:
    """True when throwing again is strictly cheaper in expected lives than standing."""
    limit = state.config.max_throws
    if state.throws >= limit:
        return False
    r = RANK[state.pair]
    lowest = lowest_kept(state)
    if r > lowest:
        return False
    after = len(state.order) - len(state.kept) - 1
    plain, doubled = losses(state)
    stand = stand_loss(r, state.saw_21, lowest, after, limit, plain, doubled)
    again = again_loss(state.throws, state.saw_21, lowest, after, limit, plain, doubled)
    return again < stand - _EPS


# ---------------------------------------------------------------------------
# the rules of thumb


def normal_throws_again(state: MexicoState) -> bool:
    r = RANK[state.pair]
    if state.kept:
        return r <= lowest_kept(state)
    if r >= _RANK_11:
        return False
    return not (state.throws >= 2 and r >= _RANK_61)


def easy_throws_again(state: MexicoState, rng: random.Random) -> bool:
    again = RANK[state.pair] < _RANK_61
    if rng.random() < 0.2:
        again = not again
    return again


# ---------------------------------------------------------------------------


def throws_again(level: Level, state: MexicoState, rng: random.Random) -> bool:
    """The player on turn, at ``level``, throws again rather than stand (MC-2)."""
    if level is Level.HARD:
        return hard_throws_again(state)
    if level is Level.NORMAL:
        return normal_throws_again(state)
    return easy_throws_again(state, rng)


class MexicoStrategy:
    """CPU players for ``mexico`` (see the module docstring)."""

    def deciders(self, state: MexicoState) -> tuple[int, ...]:
        seat = state.current
        return () if seat is None else (seat,)

    def decide(
        self, level: Level, state: MexicoState, seat: int, rng: random.Random
    ) -> Decision | None:
        if state.over or seat != state.current:
            return None
        if state.throws == 0 or state.throws >= state.config.max_throws:
            return _THROW
        return _THROW if throws_again(level, state, rng) else _STAND

    def throw_event(self, state: MexicoState, dice: tuple[int, int]) -> Throw:
        return Throw(dice)

    def step(self, levels: Sequence[Level], state: MexicoState, rng: random.Random) -> Event:
        if state.throws and not throws_again(levels[state.order[len(state.kept)]], state, rng):
            return _STAND
        return DICE[int(rng.random() * 36)]


STRATEGY = MexicoStrategy()
