"""CPU players for ``mexen`` (MN-1..MN-12): which die to leave lying, whom to
give the 31.

In mexen a turn is three throws and the last counts; nobody stands early
(MN-3). The decisions are: before each throw, leave one die lying (MN-5,
also one of the previous player's dice before the first throw; then the
other die alone is rolled, ``ThrowAgain(1)``) or throw both; after a 31,
whom to hand its point (MN-6). The tie-break and the ``extreme`` variant
(MN-12) have no decisions: the CPU just throws.

- ``easy``, a casual beginner: chases Mex, leaving a 1 or a 2 lying half the
  time it sees one, and otherwise throws both; gives the 31 to anybody.
- ``normal``, a decent player: never leaves a 1 lying (a double 1 makes it the
  pirate); before the throw that counts leaves a 6, else a 2 for a chance at Mex,
  else its highest die; gives the 31 to the player with the fewest points (the one
  to catch).
- ``hard``: leaves lying whatever minimises its expected points from this
  turn on, exactly; gives the 31 like ``normal`` (a point to the leader is
  the only thing a give changes for a player trying to end with the fewest).

How ``hard`` reckons. It knows the chances of two dice and of one die, the
scores already thrown this round, the pot and the Mex count (MN-7, MN-9: the
loser takes 1 plus 3 per Mex of the round), its throws left, the limit its
early Mex sets for the others when it is the round's first player (MN-4), how
many players are still to throw, and the pirate (MN-8). Its cost of a turn is
the points it takes: the pot times its chance of losing the round, plus what
its own doubles cost it while it is the pirate, plus, for the pirate
multiplier it ends its turn with, what the doubles thrown after its turn are
expected to cost it until another player takes the pirate over or the game
ends (``pirate_future``). Valued only for the rest of its own turn, becoming
the pirate looked cheap: ``hard`` left 1s lying for Mex and, at four seats,
won less often than ``normal``. It assumes every player after it throws both
dice every time (no holding), their 31s thrown again, a Mex or a 32 ending
their turn (MN-3), the last throw counting; their final scores are computed
exactly. A tie for the lowest goes to one-die throws that every tied player
loses with the same chance (MN-10), so with k tied it loses with chance 1/k.
Above the lowest score thrown before it, it cannot lose the round. Its own
turn is solved by dynamic programming over (throws made, the dice it may leave
lying, its pirate multiplier, the Mex count), a 31 sending it back to a
two-dice throw at the same count (MN-6).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

from table.cpu.base import Decision, Level, ThrowAgain, generic_step
from table.cpu.dice import MEX_RANK, PAIR_PROB, RANK_OF
from table.rules.base import Event, Give, Hold, Throw
from table.rules.mexen import THROWS, MexenState, Phase

NOBODY = MEX_RANK + 1
_RANK_32 = RANK_OF[3][2]
_RANK_31 = RANK_OF[3][1]
_RANKS = range(MEX_RANK + 1)
_EPS = 1e-12
_THROW = ThrowAgain()
_ONE_DIE = ThrowAgain(1)
_TWO_DICE: tuple[tuple[int, int, float], ...] = tuple(
    (a, b, (1.0 if a == b else 2.0) / 36.0) for a in range(1, 7) for b in range(1, a + 1)
)


# ---------------------------------------------------------------------------
# hard: exact expected points

# A counted throw of both dice (a 31 is thrown again, MN-6): a double 2-6, a double 1.
DOUBLE_CHANCE = 5.0 / 34.0
HANDOVER_CHANCE = 1.0 / 34.0
# Counted throws of a turn played with both dice: a Mex or a 32 ends it early (MN-3).
_STOP = 4.0 / 34.0
TURN_THROWS = 1.0 + (1.0 - _STOP) + (1.0 - _STOP) ** 2


def pirate_future(players: int, throws_left: float | None) -> float:
    """Expected doubles 2-6 thrown after a player's turn, by anyone, while it stays the
    pirate (MN-8): each costs it one point per multiplier. Another player's double 1
    ends it; so does the game's end, ``throws_left`` counted throws away (None: no end
    set). Every throw is taken as both dice thrown, a seat's throws as a share of all."""
    if players < 2:
        return 0.0
    hand_over = HANDOVER_CHANCE * (players - 1) / players
    whole = DOUBLE_CHANCE / hand_over
    if throws_left is None:
        return whole
    stays = (1.0 - hand_over) ** max(0.0, throws_left)
    return whole * (1.0 - float(stays))


@cache
def later_final(limit: int) -> tuple[float, ...]:
    """The final score (by R-2 rank) of a player who throws both dice every
    time with ``limit`` counted throws: a 31 is thrown again, a Mex or a 32
    ends the turn (MN-3)."""
    void = PAIR_PROB[_RANK_31]
    p = [0.0 if x == _RANK_31 else PAIR_PROB[x] / (1.0 - void) for x in _RANKS]
    stop = p[MEX_RANK] + p[_RANK_32]
    out = [0.0] * len(p)
    reach = 1.0
    for i in range(limit):
        if i == limit - 1:
            for x in _RANKS:
                out[x] += reach * p[x]
        else:
            out[MEX_RANK] += reach * p[MEX_RANK]
            out[_RANK_32] += reach * p[_RANK_32]
            reach *= 1.0 - stop
    return tuple(out)


@cache
def round_loss(r: int, mexes: int, lowest: int, lowest_count: int, after: int, limit: int) -> float:
    """Expected points taken from the pot when the turn ends on rank ``r``
    with ``mexes`` Mex in the round so far, ``lowest`` the lowest score before
    it (``lowest_count`` players on it), ``after`` players to come with
    ``limit`` throws."""
    if r > lowest:
        return 0.0
    final = later_final(limit)
    below = sum(final[:r])
    equal = final[r]
    mex = final[MEX_RANK] if r != MEX_RANK else 0.0  # a later Mex above r: pot +3
    above = 1.0 - below - equal - mex
    at: dict[tuple[int, int], float] = {(lowest_count if r == lowest else 0, mexes): 1.0}
    for _ in range(after):
        nxt: dict[tuple[int, int], float] = {}
        for (t, m), pr in at.items():
            for key, p in (
                ((t + 1, m + (r == MEX_RANK)), equal),
                ((t, m), above),
                ((t, m + 1), mex),
            ):
                if p:
                    nxt[key] = nxt.get(key, 0.0) + pr * p
        at = nxt
    return sum(pr * (1 + 3 * m) / (t + 1) for (t, m), pr in at.items())


@cache
def throw_cost(
    throws: int,
    held: int,
    pirate: int,
    mexes: int,
    ctx: tuple[int, int, int, int, int, bool, float],
) -> float:
    """Expected points from the next throw on, leaving ``held`` lying (0: none),
    with ``throws`` counted throws made and ``pirate`` the player's own
    pirate multiplier (0: not the pirate). ``ctx`` is (lowest, lowest_count,
    after, own limit, the others' limit, first player of the round, the cost of each
    pirate multiplier left at the turn's end: ``pirate_future``)."""
    lowest, lowest_count, after, own_limit, limit, first, future = ctx
    total = 0.0
    weight = 1.0
    outcomes = [(held, d, 1.0 / 6.0) for d in range(1, 7)] if held else list(_TWO_DICE)
    for a, b, p in outcomes:
        r = RANK_OF[a][b]
        if r == _RANK_31:
            if held:
                total += p * throw_cost(throws, 0, pirate, mexes, ctx)
            else:
                weight -= p  # thrown again at the same count: solved below
            continue
        cost = 0.0
        mine = pirate
        if a == b:
            if a == 1:
                mine = pirate + 1
            else:
                cost = pirate
        done = throws + 1
        if r == MEX_RANK:
            others = done if first and done < THROWS else limit  # MN-4
            value = round_loss(r, mexes + 1, lowest, lowest_count, after, others)
            value += mine * future
        elif r == _RANK_32 or done >= own_limit:
            value = round_loss(r, mexes, lowest, lowest_count, after, limit) + mine * future
        else:
            lying = (b,) if held else tuple(sorted({a, b}))
            value = best_cost(done, lying, mine, mexes, ctx)
        total += p * (cost + value)
    return total / weight


@cache
def best_cost(
    throws: int,
    lying: tuple[int, ...],
    pirate: int,
    mexes: int,
    ctx: tuple[int, int, int, int, int, bool, float],
) -> float:
    """Expected points playing on best, ``lying`` the values that may be held."""
    return min(throw_cost(throws, h, pirate, mexes, ctx) for h in (0, *lying))


def lying(state: MexenState) -> tuple[int, ...]:
    """``MexenState.holdable`` without building pairs: the values that may be
    left lying now (MN-5: dice of the latest throw, nothing from a 31)."""
    table = state.table
    if len(table) != 2:
        return ()
    a, b = table
    if RANK_OF[a][b] == _RANK_31:
        return ()
    lain = state.lain
    if lain is None:
        return table
    return (b,) if a == lain else (a,)


def turns_left(state: MexenState) -> int | None:
    """Turns after the current one until the game's end by ``rounds`` (None: not set;
    a ``limit`` of points may end it sooner)."""
    config = state.config
    if config.rounds <= 0:
        return None
    n = len(config.names)
    return max(0, config.rounds - state.round) * n + n - state.done - 1


def _context(state: MexenState) -> tuple[int, int, int, int, int, bool, float]:
    ranks = [p.rank for p in state.results]
    n = len(state.config.names)
    lowest = min(ranks, default=NOBODY)
    after = n - state.done - 1
    limit = state.round_limit or THROWS
    left = turns_left(state)
    # rounded: the functions cached on ``ctx`` see a few hundred values, not one a turn
    future = round(pirate_future(n, None if left is None else left * TURN_THROWS), 2)
    return (lowest, ranks.count(lowest), after, state.max_throws, limit, state.done == 0, future)


def hard_hold(state: MexenState) -> int | None:
    """The value to leave lying (None: throw both) with the least expected points."""
    seat = state.current
    pirate = state.multiplier if state.pirate == seat else 0
    ctx = _context(state)
    best_value = throw_cost(state.throw, 0, pirate, state.mexes, ctx)
    best: int | None = None
    for h in sorted(set(lying(state))):
        value = throw_cost(state.throw, h, pirate, state.mexes, ctx)
        if value < best_value - _EPS:
            best, best_value = h, value
    return best


# ---------------------------------------------------------------------------
# the rules of thumb


def normal_hold(state: MexenState) -> int | None:
    """Never a 1 (one throw in six it makes a double 1: the pirate, MN-8); before the
    throw that counts a 6, for a high score; else a 2, for a one in six chance of Mex
    (a 1 with it); else the highest die."""
    lie = set(lying(state)) - {1}
    if not lie:
        return None
    if 6 in lie and state.throw + 1 >= state.max_throws:
        return 6
    if 2 in lie:
        return 2
    return max(lie)


def easy_hold(state: MexenState, rng: random.Random) -> int | None:
    lie = lying(state)
    for v in (1, 2):
        if v in lie and rng.random() < 0.5:
            return v
    return None


def leader(state: MexenState) -> str:
    """The other player with the fewest points, the first after the thrower."""
    n = len(state.config.names)
    seat = state.current
    others = [(seat + i) % n for i in range(1, n)]
    best = min(others, key=lambda s: state.scores[s])
    return state.config.names[best]


# ---------------------------------------------------------------------------


class MexenStrategy:
    """CPU players for ``mexen`` (see the module docstring)."""

    def deciders(self, state: MexenState) -> tuple[int, ...]:
        return () if state.phase is Phase.OVER else (state.current,)

    def decide(
        self, level: Level, state: MexenState, seat: int, rng: random.Random
    ) -> Decision | None:
        phase = state.phase
        if phase is Phase.OVER or seat != state.current:
            return None
        if phase is Phase.TIEBREAK:
            return _ONE_DIE
        if phase is Phase.GIVE:
            if level is Level.EASY:
                n = len(state.config.names)
                other = (seat + 1 + rng.randrange(n - 1)) % n
                return Give(state.config.names[other])
            return Give(leader(state))
        if state.held is not None:
            return _ONE_DIE  # the held die stays lying (MN-5)
        if state.config.extreme or not lying(state):
            return _THROW
        if level is Level.HARD:
            hold = hard_hold(state)
        elif level is Level.NORMAL:
            hold = normal_hold(state)
        else:
            hold = easy_hold(state, rng)
        return _THROW if hold is None else Hold(hold)

    def throw_event(self, state: MexenState, dice: tuple[int, int]) -> Throw:
        if state.phase is Phase.TIEBREAK:
            return Throw(dice[:1])
        if state.held is not None:
            return Throw((state.held, dice[0]))
        return Throw(dice)

    def step(self, levels: Sequence[Level], state: MexenState, rng: random.Random) -> Event:
        return generic_step(self, levels, state, rng)


STRATEGY = MexenStrategy()
