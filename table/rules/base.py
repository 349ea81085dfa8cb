"""The one small interface every rule set implements, and the values it trades in.

A rule set is pure: state in, event in, new state or a refusal with a reason out.
No I/O, no clock, no randomness: dice arrive as data (``Throw``), decisions as
events. States are frozen values, so a refused event cannot have changed them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Generic, Protocol, TypeVar

# ---------------------------------------------------------------------------
# Players


@dataclass(frozen=True)
class Player:
    """A seat at the table. ``cpu`` is a strength level for a CPU player."""

    name: str
    cpu: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.cpu is not None:
            out["cpu"] = self.cpu
        return out


# ---------------------------------------------------------------------------
# Events (docs: GAME_LOG.md). Each has exactly one JSON key.


class EventKind(StrEnum):
    THROW = "throw"
    STAND = "stand"
    END_ROUND = "end_round"
    HOLD = "hold"
    COUNT = "count"
    GIVE = "give"
    BIDS = "bids"
    ROLL = "roll"
    END_GAME = "end_game"


@dataclass(frozen=True)
class Throw:
    """The dice read after a roll: two values, or one in a one-die tie-break."""

    dice: tuple[int, ...]
    kind: ClassVar[EventKind] = EventKind.THROW

    def to_json(self) -> dict[str, Any]:
        return {"throw": list(self.dice)}


@dataclass(frozen=True)
class Stand:
    """Keep the last throw and end the turn. ``flag`` False is refused."""

    flag: bool = True
    kind: ClassVar[EventKind] = EventKind.STAND

    def to_json(self) -> dict[str, Any]:
        return {"stand": self.flag}


@dataclass(frozen=True)
class EndRound:
    """End the round now (MX-7)."""

    flag: bool = True
    kind: ClassVar[EventKind] = EventKind.END_ROUND

    def to_json(self) -> dict[str, Any]:
        return {"end_round": self.flag}


@dataclass(frozen=True)
class Hold:
    """Leave the die showing ``value`` lying for the next throw (MN-5)."""

    value: int
    kind: ClassVar[EventKind] = EventKind.HOLD

    def to_json(self) -> dict[str, Any]:
        return {"hold": self.value}


@dataclass(frozen=True)
class Count:
    """Tie-break counting, ``mex`` or ``pips`` (MX-9)."""

    mode: str
    kind: ClassVar[EventKind] = EventKind.COUNT

    def to_json(self) -> dict[str, Any]:
        return {"count": self.mode}


@dataclass(frozen=True)
class Give:
    """Hand the 31 sip/point to a named player (MN-6)."""

    to: str
    kind: ClassVar[EventKind] = EventKind.GIVE

    def to_json(self) -> dict[str, Any]:
        return {"give": self.to}


@dataclass(frozen=True)
class Bids:
    """Everyone's bids for a mythical round, as ``(name, bid)`` pairs."""

    bids: tuple[tuple[str, int], ...]
    kind: ClassVar[EventKind] = EventKind.BIDS

    def to_json(self) -> dict[str, Any]:
        return {"bids": dict(self.bids)}


@dataclass(frozen=True)
class Roll:
    """One mythical die rolled in a trick: its kind and the face on top."""

    die: str
    face: int | str
    kind: ClassVar[EventKind] = EventKind.ROLL

    def to_json(self) -> dict[str, Any]:
        return {"roll": {"die": self.die, "face": self.face}}


@dataclass(frozen=True)
class EndGame:
    """Stop the game here (E-1). ``flag`` False is refused."""

    flag: bool = True
    kind: ClassVar[EventKind] = EventKind.END_GAME

    def to_json(self) -> dict[str, Any]:
        return {"end_game": self.flag}


Event = Throw | Stand | EndRound | Hold | Count | Give | Bids | Roll | EndGame


# ---------------------------------------------------------------------------
# Results of applying an event


@dataclass(frozen=True)
class Refused:
    """The rules do not allow this event now; ``reason`` is for people."""

    reason: str


def common_refusal(event: Event) -> Refused | None:
    """Refusals that hold in every rule set: a flag of false, a die value outside 1-6 or
    not a whole number (``True`` included: a log never holds one, but code calling the
    rules may pass one), and any event whose fields are not of the types the game log
    can hold (``table.gamelog.parse_event``): dice not a tuple, a flag other than
    ``True``, bids that are not (name, bid) pairs, a mythical die or face of another
    type. Such an event, accepted, would be written to the log as a line that no later
    start could read back. Anything that is no ``Event`` at all is refused too. Each
    rule set's ``apply`` starts with it, so it never sees such an event."""
    # Most common first, with no list built: this runs on every event a simulator plays.
    if isinstance(event, Throw):
        if type(event.dice) is not tuple:
            return Refused(f"throw: the dice {shown(event.dice)} are not a tuple of values")
        for v in event.dice:
            if type(v) is not int or not 1 <= v <= 6:
                return Refused(f"throw: die value {shown(v)} is not possible (dice show 1 to 6)")
        return None
    if isinstance(event, (Stand, EndRound, EndGame)):  # a tuple: quicker than a union
        if event.flag is not True:
            if event.flag is False:
                return Refused(f"{event.kind.value}: false means nothing; send true to do it")
            return Refused(f"{event.kind.value}: {shown(event.flag)} is not true")
        return None
    if isinstance(event, Hold) and (type(event.value) is not int or not 1 <= event.value <= 6):
        return Refused(f"hold: die value {shown(event.value)} is not possible (dice show 1 to 6)")
    if isinstance(event, Bids) and (
        type(event.bids) is not tuple
        or not all(
            type(pair) is tuple and len(pair) == 2 and type(pair[0]) is str and type(pair[1]) is int
            for pair in event.bids
        )
    ):
        return Refused(f"bids: {shown(event.bids)} are not (name, bid) pairs")
    if isinstance(event, Roll):
        if type(event.die) is not str:
            return Refused(f"roll: {shown(event.die)} is not the name of a die")
        if type(event.face) not in (int, str):
            return Refused(f"roll: {shown(event.face)} is not a face")
        return None
    if not isinstance(event, Event):  # a caller's slip: None, a dict, a kind
        return Refused(f"{shown(event)} is not an event")
    return None


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended. ``winner`` is None on a draw or a tie."""

    winner: str | None
    draw: bool = False


@dataclass(frozen=True)
class TurnInfo:
    """Whose turn it is and where they stand, for the display and CPU players."""

    player: str | None
    throw: int = 0
    max_throws: int = 0
    phase: str = ""
    trick: int = 0


# ---------------------------------------------------------------------------
# Options


class OptionError(ValueError):
    """An unknown option or a value out of range; the message names both."""


OptionValue = int | bool | str


@dataclass(frozen=True)
class OptionSpec:
    """One option of a rule set: its name, default and allowed values.

    ``choices`` lists the allowed values for closed sets; ``low``/``high`` bound
    integers. A ``default`` of None means the rule set fills it in from the
    number of players (``Rules.start``).
    """

    name: str
    default: OptionValue | None
    choices: tuple[OptionValue, ...] = ()
    low: int | None = None
    high: int | None = None
    doc: str = ""

    def allowed_text(self) -> str:
        if self.choices:
            return ", ".join(_show(c) for c in self.choices)
        if self.low is not None and self.high is not None:
            return f"an integer from {self.low} to {self.high}"
        if self.low is not None:
            return f"an integer of at least {self.low}"
        return "a boolean" if isinstance(self.default, bool) else "an integer"

    def check(self, value: object) -> OptionValue:
        """Return the value if allowed, else raise OptionError naming it."""
        bad = OptionError(
            f"option {self.name!r}: {_cut(_show(value))} is not allowed "
            f"(allowed: {self.allowed_text()})"
        )
        want_bool = isinstance(self.default, bool) or (
            bool(self.choices) and all(isinstance(c, bool) for c in self.choices)
        )
        if want_bool:
            if not isinstance(value, bool):
                raise bad
            return value
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise bad
        if self.choices:
            if not any(type(c) is type(value) and c == value for c in self.choices):
                raise bad
            return value
        if not isinstance(value, int):
            raise bad
        if (self.low is not None and value < self.low) or (
            self.high is not None and value > self.high
        ):
            raise bad
        return value


def _show(value: object) -> str:
    """A value as a game file (JSON) writes it: true, "points" (a newline in it as \\n),
    null, [3]; a number as Python writes it."""
    if value is None or isinstance(value, bool | str | list | dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def _cut(text: str, most: int = 40) -> str:
    """``text`` if it has at most ``most`` characters, else its start and "...": a
    number of hundreds of digits, or a long string, is not written out whole."""
    return text if len(text) <= most else text[: most - 3] + "..."


def shown(value: object, most: int = 40) -> str:
    """A value from a game file as a message quotes it: its ``repr``, cut to ``most``
    characters (a name or a key of 100 000 characters made a message that long)."""
    return _cut(repr(value), most)


def parse_options(
    specs: tuple[OptionSpec, ...], raw: Mapping[str, object], rules_name: str
) -> dict[str, OptionValue | None]:
    """Validate ``raw`` against ``specs``; options left out take their defaults."""
    known = {s.name: s for s in specs}
    for key in raw:
        if key not in known:
            names = ", ".join(known) or "none"
            raise OptionError(f"{rules_name}: unknown option {shown(key)} (options: {names})")
    out: dict[str, OptionValue | None] = {}
    for spec in specs:
        out[spec.name] = spec.check(raw[spec.name]) if spec.name in raw else spec.default
    return out


# ---------------------------------------------------------------------------
# The interface

S = TypeVar("S")


class Rules(Protocol, Generic[S]):
    """One rule set. Implementations are stateless singletons; all state is ``S``.

    ``start`` receives options already validated by :func:`parse_options`
    against ``options``; it fills in defaults that depend on the players and may
    raise OptionError for combinations that are not allowed.
    """

    name: str
    min_players: int
    max_players: int | None
    options: tuple[OptionSpec, ...]

    def start(self, players: tuple[Player, ...], options: Mapping[str, OptionValue | None]) -> S:
        """The state before the first event."""
        ...

    def apply(self, state: S, event: Event) -> S | Refused:
        """The state after ``event``, or a refusal (the state is then unchanged); never
        raises, whatever the event (``common_refusal`` first)."""
        ...

    def allowed(self, state: S) -> frozenset[EventKind]:
        """The kinds of event that may be accepted now (a kind listed may still
        be refused for its value, e.g. a hold of a die that is not lying)."""
        ...

    def turn(self, state: S) -> TurnInfo | None:
        """Whose turn it is; None once the game is over."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """None while the game goes on."""
        ...

    def view(self, state: S) -> dict[str, Any]:
        """The replay ``--json`` contract of GAME_LOG.md, minus ``refused``.

        Holds at least ``rules``, ``round``, ``over``, ``winner``, ``draw``,
        ``players`` and ``turn``; rule sets add their own fields (``pot``,
        ``pirate`` ...) and may add a ``last_round`` summary for the display.
        """
        ...
