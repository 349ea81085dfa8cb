"""``mexico`` (seed 001): lives, everyone lowest loses at once, 21 doubles the loss.

Rules MC-1..MC-6 and E-1 of RULES.md. How each **[choice]** is done:

- Options (MC-1): ``lives`` 2, 3 or 6 (default 3), ``max_throws`` 1, 2 or 3
  (default 3), ``double_on_21`` true/false (default true). 2-6 players; CPU
  players are ordinary seats (``Player.cpu``); their decisions and dice reach
  this module as events like anyone else's (MC-6).
- The first round starts with seat 1 (MX-2); a round's order is seat order from
  its first player, skipping players who are out.
- A turn ends by itself after ``max_throws`` throws; ``stand`` ends it earlier
  (it needs at least one throw). ``hold`` is refused ("keeping one die is not
  allowed", MC-2), and so are ``end_round``, ``count`` and the events of other
  rule sets. Because the turn passes on at the limit, a throw after the limit
  is the next player's first throw.
- MC-3: after the last turn every player whose kept pair has the lowest R-2
  rank loses 1 life, 2 when any throw of the round (kept or thrown away) was a
  21 and ``double_on_21`` is on. MC-4: lives stop at 0; 0 is out; the game is
  over when at most one player is left: that player wins, nobody left is a
  draw (``draw`` true, ``winner`` null).
- MC-5: the next round's first player is the first still-active lowest player
  in the last round's order; if all of them are out, the next active player
  after the last round's first player.
- E-1: ``end_game`` stops at once; no winner (one player left cannot happen
  before the game is already over).

The state is a small frozen dataclass of tuples and ints; pairs are kept as
their names (63, 44, 21) so ``apply`` builds one object per event.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from table.rules._mexfamily import PAIR_NAME, RANK, dice_refusal, foreign_event
from table.rules.base import (
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
)

NAME = "mexico"
MEX = 21


@dataclass(frozen=True, slots=True)
class MexicoConfig:
    """What does not change during a game: seats and options."""

    players: tuple[Player, ...]
    names: tuple[str, ...]
    lives: int
    max_throws: int
    double_on_21: bool


@dataclass(frozen=True, slots=True)
class MexicoRound:
    """A scored round, for the display: who kept what, who lost how much."""

    round: int
    order: tuple[int, ...]  # seats in turn order
    pairs: tuple[int, ...]  # kept pair names, aligned with ``order``
    losers: tuple[int, ...]  # seats, in turn order
    loss: int  # the round's loss, 1 or 2 (MC-3); lives stop at 0 (MC-4)
    saw_21: bool


@dataclass(frozen=True, slots=True)
class MexicoTable:
    """The part of the state that changes once a round: lives, order, the end."""

    config: MexicoConfig
    lives: tuple[int, ...]  # per seat, never below 0; 0 is out
    round: int  # 1-based
    order: tuple[int, ...]  # this round's seats in turn order
    last: MexicoRound | None = None
    over: bool = False
    winner: int | None = None  # seat
    draw: bool = False


@dataclass(frozen=True, slots=True)
class MexicoState:
    """The whole game between two events.

    Split in two so that a throw builds one small object: ``table`` changes
    once a round, the other fields on every event. ``order[len(kept)]`` is the
    player on turn; ``throws`` counts their throws and ``pair`` is their last
    throw's name (0 before the first). The round-level fields read directly
    too (``state.lives``, ``state.order``, ``state.over`` ...).
    """

    table: MexicoTable
    kept: tuple[int, ...]  # pair names kept by order[:len(kept)] this round
    throws: int
    pair: int
    saw_21: bool  # a 21 was thrown at some moment of this round (MC-3)

    @property
    def config(self) -> MexicoConfig:
        return self.table.config

    @property
    def lives(self) -> tuple[int, ...]:
        return self.table.lives

    @property
    def round(self) -> int:
        return self.table.round

    @property
    def order(self) -> tuple[int, ...]:
        return self.table.order

    @property
    def last(self) -> MexicoRound | None:
        return self.table.last

    @property
    def over(self) -> bool:
        return self.table.over

    @property
    def winner(self) -> int | None:
        return self.table.winner

    @property
    def draw(self) -> bool:
        return self.table.draw

    @property
    def current(self) -> int | None:
        """Seat of the player on turn, None once over."""
        table = self.table
        return None if table.over else table.order[len(self.kept)]

    def alive(self) -> tuple[bool, ...]:
        return tuple(v > 0 for v in self.table.lives)


_HOLD = f"{NAME}: keeping one die is not allowed"


class MexicoRules:
    """The ``mexico`` rule set (stateless; see module docstring)."""

    name = NAME
    min_players = 2
    max_players: int | None = 6
    options: tuple[OptionSpec, ...] = (
        OptionSpec("lives", 3, choices=(2, 3, 6), doc="lives each player starts with"),
        OptionSpec("max_throws", 3, choices=(1, 2, 3), doc="throws per turn"),
        OptionSpec("double_on_21", True, doc="a 21 in the round makes the loss 2"),
    )

    def start(
        self, players: tuple[Player, ...], options: Mapping[str, OptionValue | None]
    ) -> MexicoState:
        lives = int(options.get("lives", 3) or 3)
        max_throws = int(options.get("max_throws", 3) or 3)
        double = options.get("double_on_21", True)
        config = MexicoConfig(
            players=tuple(players),
            names=tuple(p.name for p in players),
            lives=lives,
            max_throws=max_throws,
            double_on_21=bool(double),
        )
        n = len(players)
        return MexicoState(MexicoTable(config, (lives,) * n, 1, tuple(range(n))), (), 0, 0, False)

    # -- events ------------------------------------------------------------

    def apply(self, state: MexicoState, event: Event) -> MexicoState | Refused:
        refused = common_refusal(event)
        if refused is not None:
            return refused
        table = state.table
        if table.over:
            return Refused("game over")
        if type(event) is Throw:
            dice = event.dice
            if len(dice) != 2:
                return Refused(dice_refusal(NAME, event) or _NOT_A_THROW)
            a, b = dice
            if not (0 < a < 7 and 0 < b < 7):
                return Refused(dice_refusal(NAME, event) or _NOT_A_THROW)
            name = PAIR_NAME[a][b]
            saw = state.saw_21 or name == MEX
            throws = state.throws + 1
            if throws >= table.config.max_throws:
                return _end_turn(state, name, saw)
            return MexicoState(table, state.kept, throws, name, saw)
        if type(event) is Stand:
            if state.throws == 0:
                return Refused(f"{NAME}: throw before you stand")
            return _end_turn(state, state.pair, state.saw_21)
        kind = event.kind
        if kind is EventKind.END_GAME:
            ended = MexicoTable(
                table.config, table.lives, table.round, table.order, table.last, True
            )
            return MexicoState(ended, state.kept, state.throws, state.pair, state.saw_21)
        if kind is EventKind.HOLD:
            return Refused(_HOLD)
        if kind is EventKind.END_ROUND:
            return Refused(f"{NAME}: a round cannot be ended early in mexico")
        if kind is EventKind.COUNT:
            return Refused(f"{NAME}: there are no tie-breaks in mexico, every lowest loses")
        return Refused(foreign_event(NAME, event))

    def allowed(self, state: MexicoState) -> frozenset[EventKind]:
        if state.table.over:
            return frozenset()
        return _ALLOWED_STAND if state.throws else _ALLOWED_FIRST

    # -- reading the state -------------------------------------------------

    def turn(self, state: MexicoState) -> TurnInfo | None:
        seat = state.current
        if seat is None:
            return None
        return TurnInfo(state.config.names[seat], state.throws, state.config.max_throws)

    def outcome(self, state: MexicoState) -> Outcome | None:
        table = state.table
        if not table.over:
            return None
        winner = None if table.winner is None else table.config.names[table.winner]
        return Outcome(winner, table.draw)

    def view(self, state: MexicoState) -> dict[str, Any]:
        cfg = state.config
        names = cfg.names
        turn = self.turn(state)
        last = state.last
        last_round: dict[str, Any] | None = None
        if last is not None:
            last_round = {
                "round": last.round,
                "losers": [names[s] for s in last.losers],
                "loss": last.loss,
                "saw_21": last.saw_21,
                "pairs": [
                    {"name": names[s], "pair": str(p)}
                    for s, p in zip(last.order, last.pairs, strict=True)
                ],
            }
        return {
            "rules": NAME,
            "round": state.round,
            "over": state.over,
            "winner": None if state.winner is None else names[state.winner],
            "draw": state.draw,
            "players": [
                {"name": names[i], "lives": v, "out": v == 0} for i, v in enumerate(state.lives)
            ],
            "turn": None
            if turn is None
            else {"player": turn.player, "throw": turn.throw, "max_throws": turn.max_throws},
            "double": state.saw_21 and cfg.double_on_21 and not state.over,
            "kept": [
                {"name": names[s], "pair": str(p)}
                for s, p in zip(state.order, state.kept, strict=False)
            ],
            "pair": None if state.over or not state.throws else str(state.pair),
            "last_round": last_round,
        }


_ALLOWED_FIRST = frozenset({EventKind.THROW, EventKind.END_GAME})
_ALLOWED_STAND = frozenset({EventKind.THROW, EventKind.STAND, EventKind.END_GAME})
_NOT_A_THROW = f"{NAME}: a throw is two dice of 1 to 6"


def _end_turn(state: MexicoState, name: int, saw: bool) -> MexicoState:
    """The player on turn keeps ``name``; the next player, or the round is scored."""
    kept = state.kept + (name,)
    if len(kept) < len(state.table.order):
        return MexicoState(state.table, kept, 0, 0, saw)
    return _score(state.table, kept, saw)


def _score(table: MexicoTable, kept: tuple[int, ...], saw: bool) -> MexicoState:
    """MC-3..MC-5: every lowest loses; lives stop at 0; who starts next."""
    cfg = table.config
    order = table.order
    ranks = [RANK[p] for p in kept]
    low = min(ranks)
    losers = tuple([order[i] for i in range(len(order)) if ranks[i] == low])
    loss = 2 if saw and cfg.double_on_21 else 1
    lives = list(table.lives)
    start = -1
    for s in losers:
        left_after = lives[s] - loss
        if left_after > 0:
            lives[s] = left_after
            if start < 0:
                start = s  # MC-5: the first still-active lowest in turn order
        else:
            lives[s] = 0
    new_lives = tuple(lives)
    summary = MexicoRound(table.round, order, kept, losers, loss, saw)
    left = [s for s in range(len(lives)) if lives[s]]
    if len(left) <= 1:
        winner = left[0] if left else None
        end = MexicoTable(cfg, new_lives, table.round, order, summary, True, winner, not left)
        return MexicoState(end, kept, 0, 0, saw)
    if start < 0:
        # MC-5: all lowest are out; the next active player after the last first player.
        first = order[0]
        start = next(s for s in left if s > first) if left[-1] > first else left[0]
    i = left.index(start)
    nxt = MexicoTable(cfg, new_lives, table.round + 1, tuple(left[i:] + left[:i]), summary)
    return MexicoState(nxt, (), 0, 0, False)


RULES = MexicoRules()
