"""A game in progress: header, rule set, state and the refusals so far.

This is the one code path for playing live, resuming after a power cut,
replaying a saved game and testing: every event goes through :meth:`Game.apply`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from table.rules import UnknownRules, get_rules
from table.rules.base import (
    Event,
    EventKind,
    OptionError,
    Outcome,
    Player,
    Refused,
    Rules,
    TurnInfo,
    parse_options,
    shown,
)

CPU_LEVELS: tuple[str, ...] = ("easy", "normal", "hard")


class SetupError(ValueError):
    """A game that cannot start: unknown rules, bad options or players."""


@dataclass(frozen=True)
class GameHeader:
    """What a game file says before its events (GAME_LOG.md)."""

    rules: str
    players: tuple[Player, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The players' names, in seat order."""
        return tuple(p.name for p in self.players)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rules": self.rules,
            "options": dict(self.options),
            "players": [p.to_json() for p in self.players],
        }
        if self.seed is not None:
            out["seed"] = self.seed
        return out


@dataclass(frozen=True)
class RefusedEvent:
    """An event the rules did not allow, where it stood in the log, and why."""

    index: int
    event: Event
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "event": self.event.to_json(), "reason": self.reason}


class RefusedChain:
    """The refusals of a game, newest last, as a chain of links: a refusal adds one
    link and shares all the earlier ones, so k refusals cost O(k) (a tuple copied
    on every refusal cost O(k**2)). Immutable, like the game that holds it."""

    __slots__ = ("entry", "prev", "size")
    entry: RefusedEvent
    prev: RefusedChain | None
    size: int

    def __init__(self, entry: RefusedEvent, prev: RefusedChain | None) -> None:
        self.entry = entry
        self.prev = prev
        self.size = 1 if prev is None else prev.size + 1

    def entries(self) -> tuple[RefusedEvent, ...]:
        out: list[RefusedEvent] = []
        link: RefusedChain | None = self
        while link is not None:
            out.append(link.entry)
            link = link.prev
        out.reverse()
        return tuple(out)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RefusedChain):
            return NotImplemented
        return self is other or (self.size == other.size and self.entries() == other.entries())


def check_players(players: tuple[Player, ...], rules: Rules[Any]) -> None:
    """Raise SetupError unless the players suit the rule set."""
    names = [p.name for p in players]
    if any(not n.strip() for n in names):
        raise SetupError("players: every player needs a non-empty name")
    if len(set(names)) != len(names):
        counts = Counter(names)  # names.count for each name took minutes for 40 000 names
        dup = next(n for n in names if counts[n] > 1)
        raise SetupError(f"players: the name {shown(dup)} is used twice")
    low, high = rules.min_players, rules.max_players
    if len(players) < low or (high is not None and len(players) > high):
        want = f"{low} to {high}" if high is not None else f"{low} or more"
        raise SetupError(f"players: {rules.name} needs {want} players, got {len(players)}")
    for p in players:
        if p.cpu is not None and p.cpu not in CPU_LEVELS:
            raise SetupError(
                f"player {shown(p.name)}: unknown cpu strength {shown(p.cpu)} "
                f"(known: {', '.join(CPU_LEVELS)})"
            )


@dataclass(frozen=True)
class Game:
    """A game: immutable; :meth:`apply` returns the next one."""

    header: GameHeader
    rules: Rules[Any]
    state: Any
    count: int = 0
    chain: RefusedChain | None = field(default=None, repr=False)

    @property
    def refused(self) -> tuple[RefusedEvent, ...]:
        """Every refused event so far, in order."""
        return () if self.chain is None else self.chain.entries()

    @property
    def accepted(self) -> int:
        """How many events were accepted so far (``count`` less the refused ones)."""
        return self.count - (0 if self.chain is None else self.chain.size)

    @staticmethod
    def start(header: GameHeader) -> Game:
        try:
            rules = get_rules(header.rules)
            check_players(header.players, rules)
            options = parse_options(rules.options, header.options, rules.name)
            state = rules.start(header.players, options)
        except (UnknownRules, OptionError) as exc:
            raise SetupError(str(exc)) from exc
        return Game(header=header, rules=rules, state=state)

    def apply(self, event: Event) -> tuple[Game, Refused | None]:
        """Apply one event; the refusal (if any) is also kept in ``refused``."""
        if self.rules.outcome(self.state) is not None:
            result: Any = Refused("game over")
        else:
            result = self.rules.apply(self.state, event)
        if isinstance(result, Refused):
            entry = RefusedEvent(self.count, event, result.reason)
            chain = RefusedChain(entry, self.chain)
            return replace(self, count=self.count + 1, chain=chain), result
        return replace(self, state=result, count=self.count + 1), None

    def apply_all(self, events: Iterable[Event]) -> Game:
        game = self
        for event in events:
            game, _ = game.apply(event)
        return game

    @property
    def outcome(self) -> Outcome | None:
        return self.rules.outcome(self.state)

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def turn(self) -> TurnInfo | None:
        return self.rules.turn(self.state)

    @property
    def allowed(self) -> frozenset[EventKind]:
        if self.is_over:
            return frozenset()
        return self.rules.allowed(self.state)

    def view(self) -> dict[str, Any]:
        """The replay ``--json`` object (GAME_LOG.md)."""
        out = dict(self.rules.view(self.state))
        out["refused"] = [r.to_json() for r in self.refused]
        return out


def replay(header: GameHeader, events: Iterable[Event]) -> Game:
    """Start a game from its header and apply every event, in order."""
    return Game.start(header).apply_all(events)
