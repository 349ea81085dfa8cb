"""Mexen (seed 003, Dutch): a pot, holding one die, 31 hand-outs, the pirate.

Rules MN-1..MN-12 and E-1 of RULES.md. How each **[choice]** is made:

- MN-1 options: ``stake`` ``"points"`` (default) or ``"sips"``: only the name
  of the counter each player carries (``points``/``sips`` in the view);
  ``variant`` ``"normal"`` (default) or ``"extreme"``; ``rounds`` (default 0 =
  play until stopped) ends the game once that many pots have been taken;
  ``limit`` (default 0 = none) ends it once, right after a pot is taken,
  someone holds at least that many. Both may be set; whichever comes first.
  Each is at most 1000 (no game at a table comes near it; a game that long
  is a typing error).
  Nobody is ever eliminated (``out`` is always false).
- MN-5 any value may be left lying from the previous player's last throw (not
  only a 1), by the same rule as within a turn: only a die that was thrown in
  the last throw. Nothing may be left lying from a 31. One ``hold`` per throw;
  a second is refused. The next ``throw`` reports both dice and must contain
  the held value, else it is refused ("the held die shows v").
- MN-6 the 31 sip/point may go to any other player (everyone stays in the
  game); until that ``give`` only ``end_game`` is accepted.
- MN-10 the tied players throw their one die in the order they played the
  round (from the round's first player on).
- E-1 ``end_game`` ends at once; the winner is the player with the fewest
  sips/points, none on a tie (``draw`` stays false: a tie is not a draw).

The view adds: ``pot`` (the pot of the round in progress; 0 once the last pot
has been taken and the game is over), ``pirate``, ``phase`` (``throw``,
``give``, ``tiebreak``, ``over``), ``table`` (the dice lying on the table
after the latest throw), ``held`` (value left lying for the next throw, or
null), ``scores`` (finished turns of this round), ``tiebreak`` and
``last_round``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from table.rules.base import (
    EndGame,
    Event,
    EventKind,
    Give,
    Hold,
    OptionSpec,
    OptionValue,
    Outcome,
    Player,
    Refused,
    Rules,
    Throw,
    TurnInfo,
    common_refusal,
    shown,
)
from table.rules.pairs import Pair

NAME = "mexen"
THROWS = 3  # MN-3


class Phase(StrEnum):
    THROW = "throw"  # the current player throws (or leaves a die lying first)
    GIVE = "give"  # a 31 was thrown: the next event must be the give (MN-6)
    TIEBREAK = "tiebreak"  # the tied lowest throw one die each (MN-10)
    OVER = "over"


@dataclass(frozen=True)
class MexenConfig:
    """The fixed part of a game: seats and options."""

    names: tuple[str, ...]
    stake: str  # "points" or "sips"
    extreme: bool
    rounds: int  # 0 = no round limit
    limit: int  # 0 = no score limit


@dataclass(frozen=True)
class RoundSummary:
    """How a finished round went, for the display (``last_round`` in the view)."""

    round: int
    starter: int  # seat of the round's first player
    results: tuple[Pair, ...]  # everyone's score, in the order they played
    mexes: int
    loser: int  # seat
    loss: int  # the pot the loser took
    tiebreaks: tuple[tuple[tuple[int, int], ...], ...]  # per pass: (seat, die) in order


@dataclass(frozen=True)
class MexenState:
    """Everything about a game of mexen; seats are indexes into ``config.names``.

    ``starter`` starts the round and ``done`` turns of it are finished, so the
    player on turn is ``(starter + done) % n`` (see :meth:`current`). ``throw``
    counts this turn's counted throws (a 31 is not counted), ``max_throws`` is
    this turn's limit. ``table`` is the dice showing after the latest two-dice
    throw (empty at a round's start), ``lain`` the value of the die that lay
    during that throw (None if both were thrown) and ``held`` the value the
    player on turn leaves lying for their next throw. ``last`` is the current
    player's latest counted throw, ``results`` the scores of the finished
    turns of this round. ``pirate`` is a seat or None; ``tied``/``tie_dice``
    the tie-break in progress (seats still in it, dice thrown in this pass).
    """

    config: MexenConfig
    scores: tuple[int, ...]
    round: int = 1
    starter: int = 0
    done: int = 0
    throw: int = 0
    max_throws: int = THROWS
    round_limit: int = 0  # MN-4: 0 = none, else the first player's Mex throw
    phase: Phase = Phase.THROW
    table: tuple[int, ...] = ()
    lain: int | None = None
    held: int | None = None
    last: Pair | None = None
    results: tuple[Pair, ...] = ()
    pot: int = 1
    mexes: int = 0
    pirate: int | None = None
    multiplier: int = 0
    tied: tuple[int, ...] = ()
    tie_dice: tuple[int, ...] = ()
    tie_passes: tuple[tuple[tuple[int, int], ...], ...] = ()
    last_round: RoundSummary | None = None

    @property
    def current(self) -> int:
        """Seat of the player whose turn it is (meaningless once over)."""
        if self.phase is Phase.TIEBREAK:
            return self.tied[len(self.tie_dice)]
        return (self.starter + self.done) % len(self.config.names)

    def holdable(self) -> tuple[int, ...]:
        """Values that may be left lying now: dice thrown in the latest throw."""
        if len(self.table) != 2 or Pair.of(*self.table).name == 31:
            return ()
        if self.lain is None:
            return self.table
        a, b = self.table
        return (b,) if a == self.lain else (a,)


# ---------------------------------------------------------------------------


def _evolve(state: MexenState, **changes: Any) -> MexenState:
    """``dataclasses.replace`` without its per-field cost (strategies simulate
    many games): a shallow copy of the frozen state with ``changes`` set. The
    state has no ``__post_init__`` and no derived fields, so this is the same."""
    new = object.__new__(MexenState)
    d = new.__dict__
    d.update(state.__dict__)
    d.update(changes)
    return new


def _bump(scores: tuple[int, ...], seat: int, by: int) -> tuple[int, ...]:
    return scores[:seat] + (scores[seat] + by,) + scores[seat + 1 :]


def _one(state: MexenState) -> str:
    """What one 31 hands out, named by the game's stake: "point" or "sip" (MN-11)."""
    return "sip" if state.config.stake == "sips" else "point"


def _refuse(text: str) -> Refused:
    return Refused(f"{NAME}: {text}")


class MexenRules:
    name = NAME
    min_players = 2
    max_players: int | None = None
    options: tuple[OptionSpec, ...] = (
        OptionSpec("stake", "points", ("points", "sips"), doc="what the pot is counted in"),
        OptionSpec("variant", "normal", ("normal", "extreme"), doc="MN-12 extreme variant"),
        OptionSpec(
            "rounds", 0, low=0, high=1000, doc="end after this many rounds (0 = until stopped)"
        ),
        OptionSpec("limit", 0, low=0, high=1000, doc="end once someone holds this many (0 = none)"),
    )

    # -- setup ---------------------------------------------------------------

    def start(
        self, players: tuple[Player, ...], options: Mapping[str, OptionValue | None]
    ) -> MexenState:
        config = MexenConfig(
            names=tuple(p.name for p in players),
            stake=str(options.get("stake") or "points"),
            extreme=options.get("variant") == "extreme",
            rounds=int(options.get("rounds") or 0),
            limit=int(options.get("limit") or 0),
        )
        return MexenState(config=config, scores=(0,) * len(players))

    # -- events --------------------------------------------------------------

    def apply(self, state: MexenState, event: Event) -> MexenState | Refused:
        refused = common_refusal(event)
        if refused is not None:
            return refused
        if state.phase is Phase.OVER:
            return Refused("game over")
        if isinstance(event, EndGame):
            return _evolve(state, phase=Phase.OVER)  # E-1
        if state.phase is Phase.GIVE:
            if isinstance(event, Give):
                return self._give(state, event.to)
            return _refuse(f"a 31 was thrown: first give its {_one(state)} to another player")
        if isinstance(event, Throw):
            if state.phase is Phase.TIEBREAK:
                return self._tie_throw(state, event.dice)
            return self._throw(state, event.dice)
        if isinstance(event, Hold):
            return self._hold(state, event.value)
        if isinstance(event, Give):
            if state.config.extreme:
                return _refuse(
                    f"in the extreme variant a 31 is thrown again, nobody gets a {_one(state)}"
                )
            return _refuse(f"there is no 31 to hand out a {_one(state)} for")
        kind = event.kind
        if kind is EventKind.STAND:
            return _refuse("standing early is not allowed")
        if kind is EventKind.END_ROUND:
            return _refuse("a round cannot be ended early; everyone throws")
        return _refuse(f"there is no {kind.value!r} in this game")

    def _give(self, state: MexenState, to: str) -> MexenState | Refused:
        names = state.config.names
        if to not in names:
            return _refuse(f"there is no player called {shown(to)}")
        seat = names.index(to)
        if seat == state.current:
            return _refuse(f"the 31 {_one(state)} goes to another player")
        return _evolve(state, phase=Phase.THROW, scores=_bump(state.scores, seat, 1))

    def _hold(self, state: MexenState, value: int) -> MexenState | Refused:
        if state.config.extreme:
            return _refuse("no dice may be left lying in the extreme variant")
        if state.phase is Phase.TIEBREAK:
            return _refuse("tie-break: throw one die, nothing is left lying")
        if state.held is not None:
            return _refuse(f"a {state.held} is already left lying (one die per throw)")
        if not state.table:
            return _refuse("the table is empty: there is no die to leave lying")
        if Pair.of(*state.table).name == 31:
            return _refuse("nothing may be left lying from a 31; throw both dice")
        if value not in state.holdable():
            if value == state.lain:
                return _refuse(f"the {value} has lain for a throw already; it must be thrown")
            return _refuse(f"no die showing {value} is lying on the table")
        return _evolve(state, held=value)

    def _throw(self, state: MexenState, dice: tuple[int, ...]) -> MexenState | Refused:
        if len(dice) != 2:
            return _refuse("throw both dice (one die only in a tie-break)")
        held = state.held
        if held is not None and held not in dice:
            return _refuse(f"the held die shows {held}")
        a, b = dice
        pair = Pair.of(a, b)
        config = state.config
        scores, pirate, multiplier = state.scores, state.pirate, state.multiplier
        seat = state.current
        # MN-8 the pirate, on every throw, by anyone, in both variants.
        if pair.is_double:
            if pair.high == 1:
                if pirate == seat:
                    multiplier += 1
                else:
                    pirate, multiplier = seat, 1
            elif pirate is not None:
                scores = _bump(scores, pirate, multiplier)
        if pair.name == 31:  # MN-6 / MN-12: void, does not use up a throw
            return _evolve(
                state,
                scores=scores,
                table=(a, b),
                lain=held,
                held=None,
                phase=Phase.THROW if config.extreme else Phase.GIVE,
            )
        pot, mexes = state.pot, state.mexes
        if pair.is_mex:
            mexes += 1
        if config.extreme:  # MN-12 pot, in the order thrown
            if pair.is_mex or pair.name == 65:
                pot *= 2
            elif pair.is_double:
                pot += pair.high
        elif pair.is_mex:  # MN-7
            pot += 3
        throw = state.throw + 1
        ends = throw >= state.max_throws or (
            not config.extreme and (pair.is_mex or pair.name == 32)
        )
        changes: dict[str, Any] = {
            "scores": scores,
            "pirate": pirate,
            "multiplier": multiplier,
            "pot": pot,
            "mexes": mexes,
            "table": (a, b),
            "lain": held,
            "held": None,
            "throw": throw,
            "last": pair,
        }
        if not ends:
            return _evolve(state, **changes)
        round_limit = state.round_limit
        if not config.extreme and state.done == 0 and pair.is_mex and throw < THROWS:
            round_limit = throw  # MN-4
        done = state.done + 1
        changes.update(results=state.results + (pair,), done=done, last=None)
        if done < len(config.names):  # the turn passes on by itself
            changes.update(throw=0, max_throws=round_limit or THROWS, round_limit=round_limit)
            return _evolve(state, **changes)
        return self._end_of_turns(_evolve(state, **changes))

    def _end_of_turns(self, state: MexenState) -> MexenState:
        """MN-9/MN-10: everyone has thrown; the lowest takes the pot or ties are broken."""
        n = len(state.config.names)
        low = min(p.rank for p in state.results)
        lowest = tuple(
            (state.starter + i) % n for i, p in enumerate(state.results) if p.rank == low
        )
        if len(lowest) == 1:
            return self._take_pot(state, lowest[0])
        return _evolve(
            state, phase=Phase.TIEBREAK, tied=lowest, tie_dice=(), table=(), lain=None, held=None
        )

    def _tie_throw(self, state: MexenState, dice: tuple[int, ...]) -> MexenState | Refused:
        if len(dice) != 1:
            return _refuse("tie-break: each tied player throws one die")
        tie_dice = state.tie_dice + dice
        if len(tie_dice) < len(state.tied):
            return _evolve(state, tie_dice=tie_dice)
        passes = state.tie_passes + (tuple(zip(state.tied, tie_dice, strict=True)),)
        high = max(tie_dice)
        top = tuple(s for s, v in zip(state.tied, tie_dice, strict=True) if v == high)
        if len(top) == 1:
            return self._take_pot(_evolve(state, tie_passes=passes), top[0])
        return _evolve(state, tied=top, tie_dice=(), tie_passes=passes)

    def _take_pot(self, state: MexenState, loser: int) -> MexenState:
        config = state.config
        scores = _bump(state.scores, loser, state.pot)
        summary = RoundSummary(
            round=state.round,
            starter=state.starter,
            results=state.results,
            mexes=state.mexes,
            loser=loser,
            loss=state.pot,
            tiebreaks=state.tie_passes,
        )
        over = (config.rounds > 0 and state.round >= config.rounds) or (
            config.limit > 0 and max(scores) >= config.limit
        )
        if over:
            return _evolve(
                state,
                scores=scores,
                last_round=summary,
                phase=Phase.OVER,
                pot=0,
                tied=(),
                tie_dice=(),
                tie_passes=(),
            )
        return MexenState(
            config=config,
            scores=scores,
            round=state.round + 1,
            starter=loser,  # MN-9
            pirate=state.pirate,  # MN-8: the pirate stays across rounds
            multiplier=state.multiplier,
            last_round=summary,
        )

    # -- questions -----------------------------------------------------------

    def allowed(self, state: MexenState) -> frozenset[EventKind]:
        phase = state.phase
        if phase is Phase.OVER:
            return frozenset()
        if phase is Phase.GIVE:
            return _GIVE
        if phase is Phase.TIEBREAK or state.config.extreme or state.held is not None:
            return _THROW
        return _THROW_HOLD if state.holdable() else _THROW

    def turn(self, state: MexenState) -> TurnInfo | None:
        if state.phase is Phase.OVER:
            return None
        player = state.config.names[state.current]
        if state.phase is Phase.TIEBREAK:
            return TurnInfo(player, throw=0, max_throws=1, phase=state.phase.value)
        return TurnInfo(player, state.throw, state.max_throws, phase=state.phase.value)

    def outcome(self, state: MexenState) -> Outcome | None:
        if state.phase is not Phase.OVER:
            return None
        low = min(state.scores)
        fewest = [i for i, s in enumerate(state.scores) if s == low]
        winner = state.config.names[fewest[0]] if len(fewest) == 1 else None
        return Outcome(winner=winner, draw=False)

    def view(self, state: MexenState) -> dict[str, Any]:
        config = state.config
        names = config.names
        counter = config.stake
        outcome = self.outcome(state)
        turn = self.turn(state)
        n = len(names)
        out: dict[str, Any] = {
            "rules": NAME,
            "round": state.round,
            "over": outcome is not None,
            "winner": outcome.winner if outcome else None,
            "draw": False,
            "players": [
                {"name": name, counter: state.scores[i], "out": False}
                for i, name in enumerate(names)
            ],
            "turn": None
            if turn is None
            else {"player": turn.player, "throw": turn.throw, "max_throws": turn.max_throws},
            "pot": state.pot,
            "pirate": None
            if state.pirate is None
            else {"name": names[state.pirate], "multiplier": state.multiplier},
            "stake": config.stake,
            "variant": "extreme" if config.extreme else "normal",
            "phase": state.phase.value,
            "table": list(state.table),
            "held": state.held,
            "scores": [
                {"name": names[(state.starter + i) % n], "score": p.shown()}
                for i, p in enumerate(state.results)
            ],
            "tiebreak": None
            if state.phase is not Phase.TIEBREAK
            else {
                "players": [names[s] for s in state.tied],
                "dice": [
                    {"name": names[s], "die": v}
                    for s, v in zip(state.tied, state.tie_dice, strict=False)
                ],
            },
            "last_round": None if state.last_round is None else _summary(state.last_round, names),
        }
        return out


def _summary(s: RoundSummary, names: tuple[str, ...]) -> dict[str, Any]:
    n = len(names)
    return {
        "round": s.round,
        "losers": [names[s.loser]],
        "loss": s.loss,
        "mexes": s.mexes,
        "scores": [
            {"name": names[(s.starter + i) % n], "score": p.shown()}
            for i, p in enumerate(s.results)
        ],
        "tiebreak": [[{"name": names[seat], "die": v} for seat, v in tb] for tb in s.tiebreaks],
    }


_GIVE = frozenset({EventKind.GIVE, EventKind.END_GAME})
_THROW = frozenset({EventKind.THROW, EventKind.END_GAME})
_THROW_HOLD = frozenset({EventKind.THROW, EventKind.HOLD, EventKind.END_GAME})

RULES: Rules[MexenState] = MexenRules()
