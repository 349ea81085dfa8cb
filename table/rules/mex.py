"""``mex`` (seed 000): lives, the first player sets the throw limit, Mexx penalties.

Rules MX-1..MX-10 and E-1 of RULES.md. How each **[choice]** is done:

- MX-1 options: ``lives`` 1-99 (default 12), ``max_throws`` 1-3 (default 3);
  2 or more players.
- MX-2 the first round starts with seat 1; a round's order is seat order from
  its first player, skipping players who are out.
- MX-3/MX-4 a turn ends by itself at its limit: ``max_throws`` for the round's
  first player, then the number of throws the first player made (``limit``)
  for everybody else. ``stand`` needs at least one throw.
- MX-5 penalty: 1 without a Mexx in the main round, else 2 per Mexx thrown
  (any throw of any player, also thrown away); tie-break Mexx do not count.
- MX-6 lives are held at 0 and 0 is out; if the loser is out, the next round
  starts with the next active player after them in seat order.
- MX-7 ``end_round`` exactly as specified: main round, no Mexx yet, and either
  (a) the player on turn has thrown and is not the round's first player (they
  are the ender; their last throw counts), or (b) the player on turn has not
  thrown and the previous player, who threw last, is not the round's first
  player (the previous player is the ender). The round is scored at once among
  those who threw; if the ender ties for lowest with an earlier player, the
  ender alone loses. ``end_round`` is refused in a tie-break.
- MX-8 tie-break: one throw each, in the round's turn order; still tied for
  lowest, those players repeat, as often as needed.
- MX-9 ``count`` (``mex`` or ``pips``) is accepted before a tie-break's first
  throw; it is the last player's choice and a later one replaces an earlier
  one; default ``mex``; every repeated tie-break starts again at ``mex``.
- MX-10 round points: +1 to every player in the round except the loser, +2 per
  Mexx a player threw in the main round (the loser too), the loser -1; the last
  player left +5.
- E-1 ``end_game`` stops at once; no winner (a single player left already ends
  the game by MX-6).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from table.rules._mexfamily import PAIR_NAME, RANK, dice_refusal, foreign_event, next_alive, pips
from table.rules._mexfamily import round_order as _round_order
from table.rules.base import (
    Count,
    EndGame,
    EndRound,
    Event,
    EventKind,
    OptionSpec,
    OptionValue,
    Outcome,
    Player,
    Refused,
    Stand,
    Throw,
    TurnInfo,
    common_refusal,
    shown,
)
from table.rules.pairs import Pair

NAME = "mex"
MEXX = 21
WINNER_BONUS = 5


class Phase(StrEnum):
    ROUND = "round"  # the main round
    TIEBREAK = "tiebreak"


class CountMode(StrEnum):
    MEX = "mex"  # R-2 as usual
    PIPS = "pips"  # the sum of the pips


@dataclass(frozen=True, slots=True)
class MexConfig:
    """What does not change during a game: seats and options."""

    players: tuple[Player, ...]
    names: tuple[str, ...]
    lives: int
    max_throws: int


@dataclass(frozen=True, slots=True)
class TieBreak:
    """One tie-break of a round: its players (turn order), their throws, its count."""

    players: tuple[int, ...]
    pairs: tuple[int, ...]  # pair names thrown by players[:len(pairs)]
    count: CountMode = CountMode.MEX

    def value(self, name: int) -> int:
        return pips(name) if self.count is CountMode.PIPS else RANK[name]


@dataclass(frozen=True, slots=True)
class MexRound:
    """A scored round, for the display: pairs, ender, tie-breaks, loser, loss."""

    round: int
    order: tuple[int, ...]  # every player of the round, turn order
    pairs: tuple[int, ...]  # main-round pairs of order[:len(pairs)] (those who threw)
    ender: int | None  # seat that ended the round (MX-7), or None
    tiebreaks: tuple[TieBreak, ...]
    loser: int
    loss: int  # the penalty (MX-5), before holding lives at 0
    mexx: int  # Mexx thrown in the main round


@dataclass(frozen=True, slots=True)
class MexState:
    """The whole game between two events.

    Main round: ``order[len(kept)]`` is on turn, with ``throws`` made and
    ``pair`` their last throw's name (0 before the first). Tie-break:
    ``tiebreak.players[len(tiebreak.pairs)]`` is on turn. Per-seat tuples are in
    seat order.
    """

    config: MexConfig
    lives: tuple[int, ...]
    points: tuple[int, ...]
    round: int
    order: tuple[int, ...]
    kept: tuple[int, ...]
    throws: int
    pair: int
    limit: int  # throws allowed after the first player (MX-4)
    mexx: tuple[int, ...]  # Mexx thrown in this main round, per seat
    phase: Phase = Phase.ROUND
    ender: int | None = None
    tiebreaks: tuple[TieBreak, ...] = ()  # the last one is in progress in TIEBREAK
    last: MexRound | None = None
    over: bool = False
    winner: int | None = None

    @property
    def current(self) -> int | None:
        """Seat of the player on turn, None once over."""
        if self.over:
            return None
        if self.phase is Phase.TIEBREAK:
            tb = self.tiebreaks[-1]
            return tb.players[len(tb.pairs)]
        return self.order[len(self.kept)]

    @property
    def turn_limit(self) -> int:
        """The throw limit of the turn in progress."""
        if self.phase is Phase.TIEBREAK:
            return 1
        return self.config.max_throws if not self.kept else self.limit

    @property
    def mexx_total(self) -> int:
        return sum(self.mexx)

    def alive(self) -> tuple[bool, ...]:
        return tuple(v > 0 for v in self.lives)


def penalty(mexx: int) -> int:
    """MX-5: 1 without a Mexx, else 2 per Mexx."""
    return 1 if mexx == 0 else 2 * mexx


class MexRules:
    """The ``mex`` rule set (stateless; see module docstring)."""

    name = NAME
    min_players = 2
    max_players: int | None = None
    options: tuple[OptionSpec, ...] = (
        OptionSpec("lives", 12, low=1, high=99, doc="lives each player starts with"),
        OptionSpec("max_throws", 3, low=1, high=3, doc="most throws of the round's first player"),
    )

    def start(
        self, players: tuple[Player, ...], options: Mapping[str, OptionValue | None]
    ) -> MexState:
        lives = int(options.get("lives", 12) or 12)
        max_throws = int(options.get("max_throws", 3) or 3)
        config = MexConfig(tuple(players), tuple(p.name for p in players), lives, max_throws)
        n = len(players)
        return MexState(
            config=config,
            lives=(lives,) * n,
            points=(0,) * n,
            round=1,
            order=tuple(range(n)),
            kept=(),
            throws=0,
            pair=0,
            limit=max_throws,
            mexx=(0,) * n,
        )

    # -- events ------------------------------------------------------------

    def apply(self, state: MexState, event: Event) -> MexState | Refused:
        refused = common_refusal(event)
        if refused is not None:
            return refused
        if state.over:
            return Refused("game over")
        if isinstance(event, EndGame):
            return replace(state, over=True, winner=None)
        if state.phase is Phase.TIEBREAK:
            return _apply_tiebreak(state, event)
        if isinstance(event, Throw):
            bad = dice_refusal(NAME, event)
            if bad:
                return Refused(bad)
            a, b = event.dice
            name = PAIR_NAME[a][b]
            mexx = state.mexx
            if name == MEXX:
                seat = state.order[len(state.kept)]
                mexx = mexx[:seat] + (mexx[seat] + 1,) + mexx[seat + 1 :]
            throws = state.throws + 1
            if throws >= state.turn_limit:
                return _end_turn(state, name, throws, mexx)
            return _in_round(state, state.kept, throws, name, state.limit, mexx, ender=None)
        if isinstance(event, Stand):
            if state.throws == 0:
                return Refused(f"{NAME}: throw before you stand")
            return _end_turn(state, state.pair, state.throws, state.mexx)
        if isinstance(event, EndRound):
            return _end_round(state)
        if isinstance(event, Count):
            return Refused(f"{NAME}: the count is chosen before a tie-break's first throw")
        if event.kind is EventKind.HOLD:
            return Refused(f"{NAME}: keeping one die is not allowed, throw both")
        return Refused(foreign_event(NAME, event))

    def allowed(self, state: MexState) -> frozenset[EventKind]:
        if state.over:
            return frozenset()
        if state.phase is Phase.TIEBREAK:
            return _TB_FIRST if not state.tiebreaks[-1].pairs else _TB_LATER
        kinds = {EventKind.THROW, EventKind.END_GAME}
        if state.throws:
            kinds.add(EventKind.STAND)
        if _end_round_refusal(state) is None:
            kinds.add(EventKind.END_ROUND)
        return frozenset(kinds)

    # -- reading the state -------------------------------------------------

    def turn(self, state: MexState) -> TurnInfo | None:
        seat = state.current
        if seat is None:
            return None
        throws = 0 if state.phase is Phase.TIEBREAK else state.throws
        return TurnInfo(state.config.names[seat], throws, state.turn_limit)

    def outcome(self, state: MexState) -> Outcome | None:
        if not state.over:
            return None
        return Outcome(None if state.winner is None else state.config.names[state.winner])

    def view(self, state: MexState) -> dict[str, Any]:
        names = state.config.names
        turn = self.turn(state)
        tb: dict[str, Any] | None = None
        if state.phase is Phase.TIEBREAK and not state.over:
            cur = state.tiebreaks[-1]
            tb = {
                "number": len(state.tiebreaks),
                "players": [names[s] for s in cur.players],
                "count": cur.count.value,
                "thrown": _shown_list(names, cur.players, cur.pairs),
            }
        last = state.last
        last_round: dict[str, Any] | None = None
        if last is not None:
            last_round = {
                "round": last.round,
                "losers": [names[last.loser]],
                "loss": last.loss,
                "mexx": last.mexx,
                "ended_by": None if last.ender is None else names[last.ender],
                "pairs": _shown_list(names, last.order, last.pairs),
                "tiebreaks": [
                    {
                        "players": [names[s] for s in t.players],
                        "count": t.count.value,
                        "thrown": _shown_list(names, t.players, t.pairs),
                    }
                    for t in last.tiebreaks
                ],
            }
        return {
            "rules": NAME,
            "round": state.round,
            "over": state.over,
            "winner": None if state.winner is None else names[state.winner],
            "draw": False,
            "players": [
                {
                    "name": names[i],
                    "lives": state.lives[i],
                    "points": state.points[i],
                    "out": state.lives[i] == 0,
                }
                for i in range(len(names))
            ],  # fmt: skip
            "turn": None
            if turn is None
            else {"player": turn.player, "throw": turn.throw, "max_throws": turn.max_throws},
            "phase": state.phase.value,
            "limit": state.limit,
            "mexx": state.mexx_total,
            "kept": _shown_list(names, state.order, state.kept),
            "pair": None
            if state.over or state.phase is Phase.TIEBREAK or not state.throws
            else _shown(state.pair),
            "tiebreak": tb,
            "last_round": last_round,
        }


_TB_FIRST = frozenset({EventKind.THROW, EventKind.COUNT, EventKind.END_GAME})
_TB_LATER = frozenset({EventKind.THROW, EventKind.END_GAME})


def _shown(name: int) -> str:
    return Pair(name // 10, name % 10).shown()


def _shown_list(
    names: tuple[str, ...], seats: tuple[int, ...], pairs: tuple[int, ...]
) -> list[dict[str, str]]:
    return [{"name": names[s], "pair": _shown(p)} for s, p in zip(seats, pairs, strict=False)]


# ---------------------------------------------------------------------------
# The main round


def _end_turn(state: MexState, name: int, throws: int, mexx: tuple[int, ...]) -> MexState:
    """The player on turn keeps ``name``: next player, or the round is decided."""
    limit = throws if not state.kept else state.limit  # MX-4: the first player sets it
    kept = state.kept + (name,)
    if len(kept) < len(state.order):
        return _in_round(state, kept, 0, 0, limit, mexx, ender=None)
    return _decide(state, kept, limit, mexx, ender=None)


def _in_round(
    state: MexState,
    kept: tuple[int, ...],
    throws: int,
    pair: int,
    limit: int,
    mexx: tuple[int, ...],
    ender: int | None,
) -> MexState:
    """The main round of ``state``'s game with ``kept`` pairs kept and ``throws`` made
    by the player on turn, no tie-break. Built field by field, not with ``replace``:
    this runs on nearly every event, and ``replace`` takes twice as long."""
    return MexState(
        config=state.config,
        lives=state.lives,
        points=state.points,
        round=state.round,
        order=state.order,
        kept=kept,
        throws=throws,
        pair=pair,
        limit=limit,
        mexx=mexx,
        ender=ender,
        last=state.last,
    )


def _end_round_refusal(state: MexState) -> str | None:
    """Why ``end_round`` is not accepted now (MX-7), or None when it is."""
    if state.phase is Phase.TIEBREAK:
        return f"{NAME}: a tie-break cannot be ended"
    if state.mexx_total:
        return f"{NAME}: a Mexx was thrown this round, it cannot be ended"
    pos = len(state.kept)
    if state.throws:
        if pos == 0:
            return f"{NAME}: the round's first player cannot end the round"
        return None
    if pos == 0:
        return f"{NAME}: nobody has thrown yet this round"
    if pos == 1:
        return f"{NAME}: the round's first player threw last and cannot end the round"
    return None


def _end_round(state: MexState) -> MexState | Refused:
    reason = _end_round_refusal(state)
    if reason is not None:
        return Refused(reason)
    pos = len(state.kept)
    if state.throws:  # (a) the player on turn ends it with their last throw
        return _decide(state, state.kept + (state.pair,), state.limit, state.mexx, state.order[pos])
    # (b) the previous player, who threw last, ends it
    return _decide(state, state.kept, state.limit, state.mexx, state.order[pos - 1])


def _decide(
    state: MexState,
    kept: tuple[int, ...],
    limit: int,
    mexx: tuple[int, ...],
    ender: int | None,
) -> MexState:
    """MX-6/MX-7/MX-8: the lowest loses; a tie goes to a tie-break."""
    seats = state.order[: len(kept)]
    low = min(RANK[p] for p in kept)
    tied = tuple(s for s, p in zip(seats, kept, strict=True) if RANK[p] == low)
    played = _in_round(state, kept, 0, 0, limit, mexx, ender)
    if len(tied) == 1:
        return _finish(played, tied[0])
    if ender is not None and ender in tied:
        return _finish(played, ender)  # MX-7: the ender's value drops by one
    return replace(played, phase=Phase.TIEBREAK, tiebreaks=(TieBreak(tied, ()),))


# ---------------------------------------------------------------------------
# Tie-breaks


def _apply_tiebreak(state: MexState, event: Event) -> MexState | Refused:
    cur = state.tiebreaks[-1]
    if isinstance(event, Count):
        if cur.pairs:
            return Refused(f"{NAME}: the count is chosen before the tie-break's first throw")
        if event.mode not in ("mex", "pips"):
            return Refused(f'{NAME}: count is "mex" or "pips", not {shown(event.mode)}')
        return _with_tiebreak(state, TieBreak(cur.players, (), CountMode(event.mode)))
    if isinstance(event, Throw):
        bad = dice_refusal(NAME, event)
        if bad:
            return Refused(bad)
        a, b = event.dice
        tb = TieBreak(cur.players, cur.pairs + (PAIR_NAME[a][b],), cur.count)
        if len(tb.pairs) < len(tb.players):
            return _with_tiebreak(state, tb)
        values = [tb.value(p) for p in tb.pairs]
        low = min(values)
        tied = tuple(s for s, v in zip(tb.players, values, strict=True) if v == low)
        done = _with_tiebreak(state, tb)
        if len(tied) == 1:
            return _finish(done, tied[0])
        return replace(done, tiebreaks=done.tiebreaks + (TieBreak(tied, ()),))
    if isinstance(event, Stand):
        return Refused(f"{NAME}: in a tie-break every player throws once")
    if isinstance(event, EndRound):
        return Refused(f"{NAME}: a tie-break cannot be ended")
    if event.kind is EventKind.HOLD:
        return Refused(f"{NAME}: keeping one die is not allowed, throw both")
    return Refused(foreign_event(NAME, event))


def _with_tiebreak(state: MexState, tb: TieBreak) -> MexState:
    return replace(
        state, throws=0, pair=0, phase=Phase.TIEBREAK, tiebreaks=state.tiebreaks[:-1] + (tb,)
    )


# ---------------------------------------------------------------------------
# Scoring a round


def _finish(state: MexState, loser: int) -> MexState:
    """MX-5, MX-6, MX-10: the loser pays; points; the next round or the end."""
    total = state.mexx_total
    loss = penalty(total)
    lives = list(state.lives)
    lives[loser] = max(0, lives[loser] - loss)
    points = list(state.points)
    for s in state.order:
        points[s] += (-1 if s == loser else 1) + 2 * state.mexx[s]
    summary = MexRound(
        state.round, state.order, state.kept, state.ender, state.tiebreaks, loser, loss, total
    )
    alive = tuple(v > 0 for v in lives)
    n = len(lives)
    left = [s for s in range(n) if alive[s]]
    if len(left) <= 1:
        winner = left[0] if left else None
        if winner is not None:
            points[winner] += WINNER_BONUS
        return replace(
            state,
            lives=tuple(lives),
            points=tuple(points),
            throws=0,
            pair=0,
            last=summary,
            over=True,
            winner=winner,
        )
    start = loser if alive[loser] else next_alive(loser, alive)
    return MexState(
        config=state.config,
        lives=tuple(lives),
        points=tuple(points),
        round=state.round + 1,
        order=_round_order(start, alive),
        kept=(),
        throws=0,
        pair=0,
        limit=state.config.max_throws,
        mexx=(0,) * n,
        last=summary,
    )


RULES = MexRules()
