"""``mythical``: IELLO Mythical Dice (seed 002, RULES.md MY-1..MY-9, E-1).

A trick-taking game with custom dice. Round r: everybody bids 0..r tricks at
once (one ``bids`` event), then r tricks; in each trick every player rolls one
die (``roll`` events, leader first, then in seat order). After the r-th trick
the round is scored and the next round's bidding starts.

How each **[choice]** of RULES.md is implemented:

- MY-1 the dice bag is configuration, not an option: :data:`DEFAULT_BAG`
  (minotaur x1, griffin x3, mermaid x2, each with 4 creature faces and 2 flags;
  red x7 5,5,6,6,7,7; yellow x7 3,3,4,4,5,5; purple x8 1,1,2,2,3,3; grey x8
  flag,flag,flag,1,1,7). :class:`MythicalRules` takes the bag as a parameter,
  so another bag can be used. A roll is refused for an unknown die name, for a
  face its die does not have, and for a kind of die of which the bag has no
  more in this round (the dice of that kind rolled so far this round already
  reach the bag's count: a second minotaur is refused). Die names and face
  names are read without regard to case or surrounding spaces ("Mermaid").
- MY-2 option ``rounds`` (1-8); its default (None) is filled in by ``start``:
  8 for 2-4 players, 7 for 5, 6 for 6. Since every player draws r dice in
  round r, a ``rounds`` that needs more dice than the bag holds in the last
  round (e.g. 8 rounds with 6 players: 48 dice from 36) is refused at setup.
  Round r's first trick is led by seat ((r - 1) mod n) + 1.
- MY-4 following the leader's colour is not policed (the dice are hidden).
- MY-5 with all three creatures in one trick the mermaid wins; equal winning
  faces (numbers or creatures): the later roll wins; a trick of flags only is
  taken by its leader. Numbers compare by value whatever their colour.
- MY-8 bonuses are counted per trick: the winner of a trick that holds no
  flag earns +50 for each minotaur (face) captured by their mermaid and +30
  for each griffin captured by their minotaur; they are added at the end of
  the round only if the bid was met.
- MY-9 / E-1 the highest total wins; a tie for the highest has no winner
  (``winner`` null, ``draw`` false). ``end_game`` ends the game at once; the
  round in progress is not scored.

``view`` adds to the common fields: ``rounds``; ``bids`` (name -> bid, null
while bidding); ``tricks_won`` (name -> tricks this round); ``leader`` (who
leads the current trick, or the next round's first trick while bidding);
``trick`` (this trick's rolls so far: ``{"player", "die", "face"}``);
``dice_left`` (kind -> dice of the bag not yet rolled this round);
``last_trick`` (``round``, ``trick``, ``leader``, ``winner``, ``rolls``,
``flag``, ``bonus``) and ``last_round`` (``round``, and name -> value maps
``bids``, ``tricks_won``, ``bonuses``, ``scores``; ``met``: names who met
their bid), each null until there is one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from table.rules.base import (
    Bids,
    EndGame,
    Event,
    EventKind,
    OptionError,
    OptionSpec,
    OptionValue,
    Outcome,
    Player,
    Refused,
    Roll,
    TurnInfo,
    common_refusal,
    shown,
)

NAME = "mythical"

# ---------------------------------------------------------------------------
# Dice (MY-1)


class Creature(StrEnum):
    MINOTAUR = "minotaur"
    GRIFFIN = "griffin"
    MERMAID = "mermaid"


FLAG = "flag"

Face = int | str
"""A face: a number, a creature name (:class:`Creature` value) or ``"flag"``."""

# MY-5: which creature beats which.
BEATS: Mapping[Creature, Creature] = {
    Creature.MINOTAUR: Creature.GRIFFIN,
    Creature.GRIFFIN: Creature.MERMAID,
    Creature.MERMAID: Creature.MINOTAUR,
}

# MY-8: a bonus for the winner's creature capturing another creature.
BONUS: Mapping[tuple[Creature, Creature], int] = {
    (Creature.MERMAID, Creature.MINOTAUR): 50,
    (Creature.MINOTAUR, Creature.GRIFFIN): 30,
}


@dataclass(frozen=True)
class DieKind:
    """One kind of die in the bag: its name, how many there are, its faces."""

    name: str
    count: int
    faces: tuple[Face, ...]

    def __post_init__(self) -> None:
        for f in self.faces:
            if isinstance(f, str) and f != FLAG and f not in set(Creature):
                raise ValueError(f"die {self.name!r}: unknown face {f!r}")

    @property
    def distinct_faces(self) -> tuple[Face, ...]:
        return tuple(dict.fromkeys(self.faces))


@dataclass(frozen=True)
class Bag:
    """The dice of the game (MY-1), in a fixed order."""

    kinds: tuple[DieKind, ...]

    def __post_init__(self) -> None:
        folded = [k.name.casefold() for k in self.kinds]
        if len(set(folded)) != len(folded):
            raise ValueError(f"two kinds of die by one name: {', '.join(self.names)}")

    def get(self, name: str) -> DieKind | None:
        """The kind of die of that name, whatever the case of its letters (a roll's
        name is read so)."""
        want = name.casefold()
        return next((k for k in self.kinds if k.name.casefold() == want), None)

    @property
    def size(self) -> int:
        return sum(k.count for k in self.kinds)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.kinds)


def _creature_die(c: Creature, count: int) -> DieKind:
    return DieKind(c.value, count, (c.value,) * 4 + (FLAG, FLAG))


DEFAULT_BAG = Bag(
    (
        _creature_die(Creature.MINOTAUR, 1),
        _creature_die(Creature.GRIFFIN, 3),
        _creature_die(Creature.MERMAID, 2),
        DieKind("red", 7, (5, 5, 6, 6, 7, 7)),
        DieKind("yellow", 7, (3, 3, 4, 4, 5, 5)),
        DieKind("purple", 8, (1, 1, 2, 2, 3, 3)),
        DieKind("grey", 8, (FLAG, FLAG, FLAG, 1, 1, 7)),
    )
)


def creature_of(face: Face) -> Creature | None:
    if isinstance(face, str) and face != FLAG:
        return Creature(face)
    return None


def is_flag(face: Face) -> bool:
    return face == FLAG


# ---------------------------------------------------------------------------
# State


class Phase(StrEnum):
    BIDS = "bids"
    TRICK = "trick"
    OVER = "over"


@dataclass(frozen=True)
class Rolled:
    """One die rolled in a trick: by which seat (0-based), its kind and face."""

    seat: int
    die: str
    face: Face


@dataclass(frozen=True)
class TrickResult:
    """A finished trick: who led, the rolls in order, who won, the bonus it carries."""

    round: int
    trick: int
    leader: int
    rolls: tuple[Rolled, ...]
    winner: int
    flag: bool
    bonus: int


@dataclass(frozen=True)
class RoundResult:
    """A scored round (MY-7, MY-8), per seat."""

    round: int
    bids: tuple[int, ...]
    tricks_won: tuple[int, ...]
    bonuses: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True)
class MythicalState:
    """The whole game.

    ``round`` is 1-based; ``trick`` is 0 while bidding, then 1-based. ``bids``
    is empty while bidding. ``leader`` is the seat (0-based) that leads the
    current trick; ``rolls`` are this trick's rolls so far, ``round_dice``
    every die rolled this round (for the bag count). ``pending_bonus`` holds
    the MY-8 bonuses earned in this round's tricks, paid only with the bid met.
    """

    players: tuple[Player, ...]
    rounds: int
    round: int
    phase: Phase
    points: tuple[int, ...]
    bids: tuple[int, ...]
    tricks_won: tuple[int, ...]
    pending_bonus: tuple[int, ...]
    trick: int
    leader: int
    rolls: tuple[Rolled, ...] = ()
    round_dice: tuple[str, ...] = ()
    last_trick: TrickResult | None = None
    last_round: RoundResult | None = None
    ended_early: bool = False

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def to_roll(self) -> int | None:
        """The seat that rolls next, or None outside a trick."""
        if self.phase is not Phase.TRICK:
            return None
        return (self.leader + len(self.rolls)) % self.n


# ---------------------------------------------------------------------------
# Scoring and winning


def first_leader(round_no: int, n: int) -> int:
    """MY-2: round r's first trick is led by seat ((r-1) mod n)+1 (0-based here)."""
    return (round_no - 1) % n


def round_score(bid: int, won: int, round_no: int) -> int:
    """MY-7, without bonuses."""
    if bid == 0:
        return 10 * round_no if won == 0 else -10 * round_no
    if won == bid:
        return 20 * bid
    return -10 * abs(won - bid)


def trick_winner(rolls: tuple[Rolled, ...]) -> Rolled:
    """MY-5: the winning roll of a full trick (rolls in the order rolled)."""
    creatures = {c for r in rolls if (c := creature_of(r.face)) is not None}
    if creatures:
        if len(creatures) == 3:
            best = Creature.MERMAID
        else:
            best = next(c for c in creatures if not any(BEATS[o] == c for o in creatures))
        return [r for r in rolls if creature_of(r.face) == best][-1]
    numbers = [r for r in rolls if isinstance(r.face, int)]
    if not numbers:
        return rolls[0]
    top = max(int(r.face) for r in numbers)
    return [r for r in numbers if r.face == top][-1]


def trick_bonus(rolls: tuple[Rolled, ...], win: Rolled) -> int:
    """MY-8: the bonus the winning roll earns (0 in a trick holding a flag)."""
    if any(is_flag(r.face) for r in rolls):
        return 0
    mine = creature_of(win.face)
    if mine is None:
        return 0
    total = 0
    for r in rolls:
        other = creature_of(r.face)
        if r is not win and other is not None:
            total += BONUS.get((mine, other), 0)
    return total


def highest(players: tuple[Player, ...], points: tuple[int, ...]) -> str | None:
    """MY-9: the one player with the highest total; None on a tie."""
    top = max(points)
    best = [p.name for p, v in zip(players, points, strict=True) if v == top]
    return best[0] if len(best) == 1 else None


# ---------------------------------------------------------------------------
# The rules


def _show_face(face: object) -> str:
    """A face as a game file writes it: "flag" quoted (a line break in it as \\n), 7 bare."""
    return _quoted(face) if isinstance(face, str) else shown(face)


def _quoted(text: str) -> str:
    """Text from an event, quoted as JSON so that a refusal stays one line."""
    quoted = json.dumps(text, ensure_ascii=False)
    return quoted if len(quoted) <= 40 else quoted[:36] + '..."'


def _name(text: str) -> str:
    """A name from an event as said in a refusal: as it is, or quoted as JSON when it
    holds a line break or another character that cannot be shown on one line."""
    return text if text.isprintable() else _quoted(text)


def default_rounds(n: int) -> int:
    """MY-2: 8 rounds for 2-4 players, 7 for 5, 6 for 6."""
    return {5: 7, 6: 6}.get(n, 8)


class MythicalRules:
    """Mythical Dice; ``bag`` is the set of dice (MY-1)."""

    name = NAME
    min_players = 2
    max_players: int | None = 6
    options: tuple[OptionSpec, ...] = (
        OptionSpec(
            "rounds",
            None,
            low=1,
            high=8,
            doc="rounds to play (MY-2); default 8 for 2-4 players, 7 for 5, 6 for 6",
        ),
    )

    def __init__(self, bag: Bag = DEFAULT_BAG) -> None:
        self.bag = bag

    # -- setup -------------------------------------------------------------

    def start(
        self, players: tuple[Player, ...], options: Mapping[str, OptionValue | None]
    ) -> MythicalState:
        n = len(players)
        raw = options.get("rounds")
        rounds = default_rounds(n) if raw is None else int(raw)
        if rounds * n > self.bag.size:
            raise OptionError(
                f"{NAME}: option 'rounds': {rounds} rounds with {n} players need "
                f"{rounds * n} dice in round {rounds}, the bag holds {self.bag.size}"
            )
        zeros = (0,) * n
        return MythicalState(
            players=players,
            rounds=rounds,
            round=1,
            phase=Phase.BIDS,
            points=zeros,
            bids=(),
            tricks_won=zeros,
            pending_bonus=zeros,
            trick=0,
            leader=first_leader(1, n),
        )

    # -- events ------------------------------------------------------------

    def apply(self, state: MythicalState, event: Event) -> MythicalState | Refused:
        # The Mex games' events first: common_refusal would judge a throw's dice by 1-6,
        # which says nothing true of a game whose red dice show 7.
        if isinstance(event, Event) and not isinstance(event, (Bids, Roll, EndGame)):
            return Refused(
                f'{NAME}: a "{event.kind.value}" event is not part of Mythical Dice '
                "(it uses bids and roll)"
            )
        refused = common_refusal(event)
        if refused is not None:
            return refused
        if state.phase is Phase.OVER:
            return Refused("game over")
        if isinstance(event, EndGame):
            return replace(state, phase=Phase.OVER, ended_early=True)
        if isinstance(event, Bids):
            return self._bids(state, event)
        return self._roll(state, event)

    def _bids(self, state: MythicalState, event: Bids) -> MythicalState | Refused:
        r = state.round
        if state.phase is not Phase.BIDS:
            return Refused(f"{NAME}: the bids for round {r} were already made")
        names = [p.name for p in state.players]
        given: dict[str, int] = {}
        for who, bid in event.bids:
            if who not in names:
                playing = ", ".join(_name(n) for n in names)
                return Refused(f"{NAME}: {_name(who)} is not playing (players: {playing})")
            if who in given:
                return Refused(f"{NAME}: two bids for {_name(who)}")
            if isinstance(bid, bool) or not isinstance(bid, int):
                return Refused(f"{NAME}: {_name(who)}'s bid must be a whole number of tricks")
            if not 0 <= bid <= r:
                return Refused(
                    f"{NAME}: {_name(who)} bid {bid}, but round {r} allows 0 to {r} tricks"
                )
            given[who] = bid
        missing = [n for n in names if n not in given]
        if missing:
            nobid = ", ".join(_name(n) for n in missing)
            return Refused(f"{NAME}: no bid for {nobid}; everybody bids at once")
        return replace(
            state,
            phase=Phase.TRICK,
            bids=tuple(given[n] for n in names),
            trick=1,
            leader=first_leader(r, state.n),
        )

    def _roll(self, state: MythicalState, event: Roll) -> MythicalState | Refused:
        if state.phase is not Phase.TRICK:
            return Refused(f"{NAME}: bids first; round {state.round} has not been bid yet")
        die_name = event.die.strip().lower()
        kind = self.bag.get(die_name)
        if kind is None:
            known = ", ".join(self.bag.names)
            return Refused(f"{NAME}: unknown die {_quoted(event.die)} (dice: {known})")
        face: Face
        if isinstance(event.face, bool):
            return Refused(f"{NAME}: {_show_face(event.face)} is not a face")
        face = event.face.strip().lower() if isinstance(event.face, str) else event.face
        if face not in kind.distinct_faces:
            shown = ", ".join(_show_face(f) for f in kind.distinct_faces)
            number = next(
                (f for f in kind.distinct_faces if isinstance(f, int) and str(f) == face), None
            )
            if number is not None:  # "7": the die has a 7, but as a number
                shown += f"; a number face is written without quotes: {number}"
            return Refused(
                f"{NAME}: a {kind.name} die has no face {_show_face(event.face)} "
                f"(its faces: {shown})"
            )
        used = state.round_dice.count(kind.name)
        if used >= kind.count:
            if kind.count == 1:
                what = f"the only {kind.name} die in the bag was"
            else:
                what = f"all {kind.count} {kind.name} dice in the bag were"
            return Refused(f"{NAME}: {what} already rolled in round {state.round}")
        seat = state.to_roll
        assert seat is not None
        rolls = state.rolls + (Rolled(seat, kind.name, face),)
        state = replace(state, rolls=rolls, round_dice=state.round_dice + (kind.name,))
        if len(rolls) < state.n:
            return state
        return self._finish_trick(state)

    def _finish_trick(self, state: MythicalState) -> MythicalState:
        win = trick_winner(state.rolls)
        bonus = trick_bonus(state.rolls, win)
        result = TrickResult(
            round=state.round,
            trick=state.trick,
            leader=state.leader,
            rolls=state.rolls,
            winner=win.seat,
            flag=any(is_flag(r.face) for r in state.rolls),
            bonus=bonus,
        )
        won = tuple(w + (1 if i == win.seat else 0) for i, w in enumerate(state.tricks_won))
        pending = tuple(
            b + (bonus if i == win.seat else 0) for i, b in enumerate(state.pending_bonus)
        )
        state = replace(
            state,
            tricks_won=won,
            pending_bonus=pending,
            rolls=(),
            leader=win.seat,  # MY-6
            last_trick=result,
        )
        if state.trick < state.round:
            return replace(state, trick=state.trick + 1)
        return self._finish_round(state)

    def _finish_round(self, state: MythicalState) -> MythicalState:
        r = state.round
        bonuses = tuple(
            pb if b == w else 0
            for b, w, pb in zip(state.bids, state.tricks_won, state.pending_bonus, strict=True)
        )
        scores = tuple(
            round_score(b, w, r) + bonus
            for b, w, bonus in zip(state.bids, state.tricks_won, bonuses, strict=True)
        )
        result = RoundResult(r, state.bids, state.tricks_won, bonuses, scores)
        points = tuple(p + s for p, s in zip(state.points, scores, strict=True))
        state = replace(state, points=points, last_round=result)
        if r >= state.rounds:
            return replace(state, phase=Phase.OVER)
        zeros = (0,) * state.n
        return replace(
            state,
            round=r + 1,
            phase=Phase.BIDS,
            bids=(),
            tricks_won=zeros,
            pending_bonus=zeros,
            trick=0,
            leader=first_leader(r + 1, state.n),
            round_dice=(),
        )

    # -- queries -----------------------------------------------------------

    def allowed(self, state: MythicalState) -> frozenset[EventKind]:
        if state.phase is Phase.BIDS:
            return frozenset({EventKind.BIDS, EventKind.END_GAME})
        if state.phase is Phase.TRICK:
            return frozenset({EventKind.ROLL, EventKind.END_GAME})
        return frozenset()

    def turn(self, state: MythicalState) -> TurnInfo | None:
        if state.phase is Phase.OVER:
            return None
        seat = state.to_roll
        return TurnInfo(
            player=None if seat is None else state.players[seat].name,
            phase=state.phase.value,
            trick=state.trick,
        )

    def outcome(self, state: MythicalState) -> Outcome | None:
        if state.phase is not Phase.OVER:
            return None
        return Outcome(winner=highest(state.players, state.points))

    def dice_left(self, state: MythicalState) -> dict[str, int]:
        """How many dice of each kind the bag still has for this round."""
        return {k.name: k.count - state.round_dice.count(k.name) for k in self.bag.kinds}

    def view(self, state: MythicalState) -> dict[str, Any]:
        names = [p.name for p in state.players]
        outcome = self.outcome(state)
        turn = self.turn(state)

        def rolls_json(rolls: tuple[Rolled, ...]) -> list[dict[str, Any]]:
            return [{"player": names[r.seat], "die": r.die, "face": r.face} for r in rolls]

        def per_player(values: tuple[int, ...]) -> dict[str, int]:
            return dict(zip(names, values, strict=True))

        last_trick: dict[str, Any] | None = None
        if state.last_trick is not None:
            t = state.last_trick
            last_trick = {
                "round": t.round,
                "trick": t.trick,
                "leader": names[t.leader],
                "winner": names[t.winner],
                "rolls": rolls_json(t.rolls),
                "flag": t.flag,
                "bonus": t.bonus,
            }
        last_round: dict[str, Any] | None = None
        if state.last_round is not None:
            lr = state.last_round
            last_round = {
                "round": lr.round,
                "bids": per_player(lr.bids),
                "tricks_won": per_player(lr.tricks_won),
                "bonuses": per_player(lr.bonuses),
                "scores": per_player(lr.scores),
                "met": [n for n, b, w in zip(names, lr.bids, lr.tricks_won, strict=True) if b == w],
            }
        return {
            "rules": NAME,
            "round": state.round,
            "rounds": state.rounds,
            "over": outcome is not None,
            "winner": outcome.winner if outcome else None,
            "draw": False,
            "players": [
                {"name": p.name, "points": v, "out": False}
                for p, v in zip(state.players, state.points, strict=True)
            ],
            "turn": None
            if turn is None
            else {"player": turn.player, "phase": turn.phase, "trick": turn.trick},
            "bids": per_player(state.bids) if state.bids else None,
            "tricks_won": per_player(state.tricks_won),
            "leader": names[state.leader],
            "trick": rolls_json(state.rolls),
            "dice_left": self.dice_left(state),
            "last_trick": last_trick,
            "last_round": last_round,
        }


RULES = MythicalRules()
