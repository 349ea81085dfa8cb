"""CPU players for ``mex`` (MX-1..MX-10): stand or throw again, end the round,
choose a tie-break's counting.

What each level does:

- ``easy``, a casual beginner: looks only at its own pair, stands on 61 or
  better and throws again below it, and one time in five does the opposite.
  When it may end the round (MX-7) it does so half the time its pair looks
  good (61 or better), whatever the others threw; as a tie-break's last
  player it asks for ``pips`` counting half the time, for fun.
- ``normal``, a decent player: as the round's first player (who sets the
  throw limit, MX-4) it stands on a double or a Mexx, and on its second throw
  also on 61 or better; later in the round it stands as soon as it is above
  the lowest pair so far and throws again otherwise. When it is safely above
  the lowest pair and may end the round, it ends it (it cannot lose the round
  any more, so why wait). It leaves the tie-break counting at ``mex``.
- ``hard``: minimises its expected loss of lives in the round, exactly.

How ``hard`` reckons. It knows the R-2 chances of two dice, the pairs kept so
far in the round, the Mexx thrown so far (MX-5: the loss is 1 without a
Mexx, 2 per Mexx), its throw limit and the limit its standing sets for the
others (MX-4, when it is the round's first player), how many players are
still to throw, and its lives left (a loss is capped by them). It assumes
every player after it plays a fixed reasonable policy: throw again while not
above the lowest pair kept so far, stand as soon as above it, keep the last
throw at the limit, never end the round. A tie for the lowest goes to
tie-breaks, which every tied player loses with the same chance (MX-8: one
throw each, all alike, repeated among the still tied), so with k tied it
loses with chance 1/k. Then:

- above the lowest pair kept before it, it cannot lose the round: it stands;
- otherwise it computes exactly, player by player, the chance of every
  (number tied with it, Mexx count) in which nobody went below it, and so
  the expected loss of standing; throwing again is the chance-weighted best
  of the next throw (dynamic programming over its own remaining throws; as
  first player each stopping point also fixes the others' limit). It throws
  again only when that is strictly cheaper.
- It ends the round (MX-7) only where that lowers its own expected loss.
  Safely above the lowest, ending changes nothing for it and only spares the
  others, so it does not. At or below the lowest, ending costs it one life for
  certain: the ender alone loses, and no Mexx has been thrown. Letting the
  others throw can cost more, since a Mexx among them raises the loss, so it
  ends when its expected loss of standing is above one life. The choice of
  throwing again is made without ending as an option.
- It leaves the counting at ``mex`` (MX-9): a tie-break is symmetric between
  its players whatever the counting, so the choice does not change the odds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

from table.cpu.base import DICE, Decision, Level, ThrowAgain, generic_step
from table.cpu.dice import MEX_RANK, PAIR_PROB
from table.rules._mexfamily import RANK
from table.rules.base import Count, EndRound, Event, Stand, Throw
from table.rules.mex import CountMode, MexState, Phase

NOBODY = MEX_RANK + 1
_RANK_61 = RANK[61]
_RANK_11 = RANK[11]
_RANKS = range(MEX_RANK + 1)
_EPS = 1e-12
_STAND = Stand()
_END = EndRound()
_PIPS = Count(CountMode.PIPS.value)
_THROW = ThrowAgain()


# ---------------------------------------------------------------------------
# hard: exact expected loss


def penalty(mexx: int) -> int:
    """MX-5."""
    return 1 if mexx == 0 else 2 * mexx


@cache
def later_player(r: int, limit: int) -> tuple[tuple[int, int, float], ...]:
    """One later player against a lowest pair of rank ``r`` under the policy of
    the module docstring with ``limit`` throws: (outcome, Mexx thrown, chance)
    with outcome -1 below r, 0 equal to r, 1 above r."""
    reach: dict[int, float] = {0: 1.0}  # Mexx so far -> chance of making the next throw
    out: dict[tuple[int, int], float] = {}
    for i in range(limit):
        last = i == limit - 1
        nxt: dict[int, float] = {}
        for mexx, pr in reach.items():
            for x in _RANKS:
                p = pr * PAIR_PROB[x]
                m = mexx + (x == MEX_RANK)
                if x > r or last:
                    key = ((x > r) - (x < r), m)
                    out[key] = out.get(key, 0.0) + p
                else:
                    nxt[m] = nxt.get(m, 0.0) + p
        reach = nxt
    return tuple((o, m, p) for (o, m), p in sorted(out.items()))


@cache
def stand_loss(r: int, tied: int, mexx: int, after: int, limit: int, lives: int) -> float:
    """Expected lives lost keeping rank ``r`` as the lowest so far, with
    ``tied`` earlier players on the same rank, ``mexx`` Mexx thrown, ``after``
    players to come with ``limit`` throws each."""
    cap = max(1, (lives + 1) // 2)  # more Mexx than this cannot cost more lives
    at: dict[tuple[int, int], float] = {(tied, min(mexx, cap)): 1.0}
    moves = later_player(r, limit)
    for _ in range(after):
        nxt: dict[tuple[int, int], float] = {}
        for (t, m), pr in at.items():
            for outcome, dm, p in moves:
                if outcome < 0:
                    continue  # somebody went below: safe
                key = (t + (outcome == 0), min(m + dm, cap))
                nxt[key] = nxt.get(key, 0.0) + pr * p
        at = nxt
    return sum(pr * min(penalty(m), lives) / (t + 1) for (t, m), pr in at.items())


@cache
def best_loss(
    throws: int,
    r: int,
    mexx: int,
    own_limit: int,
    first: bool,
    limit: int,
    lowest: int,
    lowest_count: int,
    after: int,
    lives: int,
) -> float:
    """Expected lives lost with rank ``r`` after ``throws`` throws, playing on best."""
    stand = _stand(throws, r, mexx, first, limit, lowest, lowest_count, after, lives)
    if throws >= own_limit:
        return stand
    again = _again(throws, mexx, own_limit, first, limit, lowest, lowest_count, after, lives)
    return min(stand, again)


def _stand(
    throws: int,
    r: int,
    mexx: int,
    first: bool,
    limit: int,
    lowest: int,
    lowest_count: int,
    after: int,
    lives: int,
) -> float:
    if r > lowest:
        return 0.0
    tied = lowest_count if r == lowest else 0
    return stand_loss(r, tied, mexx, after, throws if first else limit, lives)


@cache
def _again(
    throws: int,
    mexx: int,
    own_limit: int,
    first: bool,
    limit: int,
    lowest: int,
    lowest_count: int,
    after: int,
    lives: int,
) -> float:
    cap = max(1, (lives + 1) // 2)
    return sum(
        PAIR_PROB[x]
        * best_loss(
            throws + 1,
            x,
            min(mexx + (x == MEX_RANK), cap),
            own_limit,
            first,
            limit,
            lowest,
            lowest_count,
            after,
            lives,
        )
        for x in _RANKS
    )


def hard_throws_again(state: MexState) -> bool:
    """True when throwing again is strictly cheaper in expected lives than standing."""
    own_limit = state.turn_limit
    if state.throws >= own_limit:
        return False
    ranks = [RANK[p] for p in state.kept]
    lowest = min(ranks, default=NOBODY)
    r = RANK[state.pair]
    if r > lowest:
        return False
    seat = state.order[len(state.kept)]
    lives = state.lives[seat]
    cap = max(1, (lives + 1) // 2)
    mexx = min(state.mexx_total, cap)
    first = not state.kept
    count = ranks.count(lowest)
    after = len(state.order) - len(state.kept) - 1
    args = (first, state.limit, lowest, count, after, lives)
    stand = _stand(state.throws, r, mexx, *args)
    again = _again(state.throws, mexx, own_limit, *args)
    return again < stand - _EPS


def hard_ends(state: MexState, pos: int) -> bool:
    """MX-7: the player at turn position ``pos``, with its pair kept (or its pair
    now, for the player on turn), ends the round when ending costs it less than
    letting the others throw: one life for certain at or below the lowest pair
    before it, against the expected loss of standing there."""
    pairs = [*state.kept[:pos], state.kept[pos] if pos < len(state.kept) else state.pair]
    before = [RANK[p] for p in pairs[:-1]]
    r = RANK[pairs[-1]]
    if not before or r > min(before):
        return False
    seat = state.order[pos]
    lives = state.lives[seat]
    after = len(state.order) - pos - 1
    stand = stand_loss(r, before.count(r), 0, after, state.limit, lives)
    return stand > min(1, lives) + _EPS


# ---------------------------------------------------------------------------
# the rules of thumb


def _safe(state: MexState) -> bool:
    """The player on turn is above the lowest pair kept before them."""
    return bool(state.kept) and RANK[state.pair] > min(RANK[p] for p in state.kept)


def normal_throws_again(state: MexState) -> bool:
    r = RANK[state.pair]
    if state.kept:
        return r <= min(RANK[p] for p in state.kept)
    if r >= _RANK_11:
        return False
    return not (state.throws >= 2 and r >= _RANK_61)


def easy_throws_again(state: MexState, rng: random.Random) -> bool:
    again = RANK[state.pair] < _RANK_61
    if rng.random() < 0.2:
        again = not again
    return again


def _may_end(state: MexState) -> bool:
    """MX-7: ``end_round`` is accepted now (main round, no Mexx yet, and the
    player who threw last is not the round's first player)."""
    if state.phase is not Phase.ROUND or state.over or any(state.mexx):
        return False
    pos = len(state.kept)
    return pos >= 1 if state.throws else pos >= 2


# ---------------------------------------------------------------------------


class MexStrategy:
    """CPU players for ``mex`` (see the module docstring)."""

    def deciders(self, state: MexState) -> tuple[int, ...]:
        seat = state.current
        if seat is None:
            return ()
        if state.phase is Phase.TIEBREAK:
            tb = state.tiebreaks[-1]
            if not tb.pairs and tb.players[-1] != seat:
                return (tb.players[-1], seat)  # MX-9: the last player picks the count
            return (seat,)
        pos = len(state.kept)
        if not state.throws and pos >= 2 and _may_end(state):
            return (state.order[pos - 1], seat)  # MX-7 (b): the one who threw last
        return (seat,)

    def decide(
        self, level: Level, state: MexState, seat: int, rng: random.Random
    ) -> Decision | None:
        current = state.current
        if current is None:
            return None
        if state.phase is Phase.TIEBREAK:
            if seat == current:
                return _THROW
            return self._count(level, state, seat, rng)
        if seat != current:
            return self._end_after(level, state, seat, rng)
        if state.throws == 0 or state.throws >= state.turn_limit:
            return _THROW
        if level is Level.HARD:
            if hard_throws_again(state):
                return _THROW
            return _END if _may_end(state) and hard_ends(state, len(state.kept)) else _STAND
        if level is Level.NORMAL:
            if normal_throws_again(state):
                return _THROW
            return _END if _safe(state) and _may_end(state) else _STAND
        if easy_throws_again(state, rng):
            return _THROW
        if _may_end(state) and RANK[state.pair] >= _RANK_61 and rng.random() < 0.5:
            return _END
        return _STAND

    def _count(
        self, level: Level, state: MexState, seat: int, rng: random.Random
    ) -> Decision | None:
        tb = state.tiebreaks[-1]
        if tb.pairs or seat != tb.players[-1] or tb.count is not CountMode.MEX:
            return None
        if level is Level.EASY and rng.random() < 0.5:
            return _PIPS
        return None

    def _end_after(
        self, level: Level, state: MexState, seat: int, rng: random.Random
    ) -> Decision | None:
        """MX-7 (b): the player who threw last may end the round before the
        next player's first throw."""
        pos = len(state.kept)
        if state.throws or pos < 2 or seat != state.order[pos - 1] or not _may_end(state):
            return None
        mine = RANK[state.kept[-1]]
        others = min(RANK[p] for p in state.kept[:-1])
        if level is Level.HARD:
            return _END if hard_ends(state, pos - 1) else None
        if level is Level.NORMAL:
            return _END if mine > others else None
        if level is Level.EASY and mine >= _RANK_61 and rng.random() < 0.5:
            return _END
        return None

    def throw_event(self, state: MexState, dice: tuple[int, int]) -> Throw:
        return Throw(dice)

    def step(self, levels: Sequence[Level], state: MexState, rng: random.Random) -> Event:
        if (
            state.phase is Phase.ROUND
            and state.throws
            and levels[state.order[len(state.kept)]] is Level.HARD
        ):
            if hard_throws_again(state):
                return DICE[int(rng.random() * 36)]
            return _STAND
        return generic_step(self, levels, state, rng)


STRATEGY = MexStrategy()
