"""The referee: buttons and dice readings in, game events and screens out. Pure.

The event loop owns the hardware, the clock and the files; the referee owns
the meaning. Every call takes a frozen :class:`Referee` and returns the next
one with an :class:`Output`: the events to log (in order, before the screen is
shown), the screen, and a few flags for the loop (a new game starts, the game
is over, the menu choices changed, the table waits for dice).

At the table:

- Menu (power on, after a game): HOLD = next choice, ROLL = select, STOP = back.
- A turn: roll, then press ROLL; the next settled reading is the throw. STOP
  stands (mex, mexico); long STOP ends the round (mex); very long STOP asks to
  end the game. HOLD leaves a die lying (mexen) or chooses the tie-break
  counting (mex).
- A reroll reading (a tilted die ...) is shown and not logged; the table
  goes on waiting. A held die (mexen) must lie where it lay, within half its
  size, showing the same value, or the throw is not counted. Nor is a reading of
  the dice of the camera's last throw lying as they fell (ROLL pressed, nobody
  rolled): the table says so and goes on waiting.
- A mexen 31 opens the choice of who gets the sip/point (HOLD next, ROLL ok).
- mythical (MY-1..MY-9) uses no camera: its dice are entered with the buttons. The
  bids of a round are entered one player after the other in seat order (HOLD next,
  ROLL ok, STOP back to the previous player's bid) and logged as one ``bids``
  event; in a trick, the player to roll chooses the kind of die they rolled (only
  kinds the bag still has this round), then its face on top, and that is one
  ``roll`` event; beside those choices the player to roll sees their bid and the
  tricks they have taken this round. What is offered, whose entry it is and what
  happened (the trick's taker, the round's scores) all come from the rules engine's
  view.
- CPU players (``table.cpu``): on a CPU's turn each ROLL press plays its next
  step (a decision, or a throw with software dice from the game's seed and the
  event's index); decisions a CPU may take off its turn (mex: end the round,
  the tie-break count) are taken at once. All of them are ordinary events.
- A button that means nothing at the moment says so on the screen.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import lru_cache
from typing import Any

from table import cpu as cpu_players
from table.game import CPU_LEVELS, Game, GameHeader, SetupError, replay
from table.gamelog import LoadedGame
from table.rules import get_rules
from table.rules.base import (
    Bids,
    Count,
    EndGame,
    EndRound,
    Event,
    EventKind,
    Give,
    Hold,
    OptionSpec,
    Player,
    Refused,
    Roll,
    Stand,
    Throw,
)
from table.rules.mex import MexState
from table.rules.mexen import MexenState
from table.rules.mythical import Face, MythicalRules, MythicalState
from table.rules.pairs import Pair
from table.service.ports import Button, ButtonPress, Press
from table.service.screens import (
    Choose,
    GameEnd,
    Menu,
    Message,
    Reading,
    Refusal,
    Result,
    Resumed,
    RoundEnd,
    Screen,
    Turn,
    cut_apart,
    overflow,
    shown_whole,
    single_spaced,
)
from vision.types import (
    SAID_BLURRED,
    SAID_TOO_BRIGHT,
    SAID_TOO_BUSY,
    SAID_TOO_DARK,
    DieReading,
    FrameReading,
)

# The rule sets the table referees, in the order HOLD shows them in the menu.
# ``mythical``'s special dice are not read by the camera: they are entered with the
# buttons (MY-1).
MENU_RULES: tuple[str, ...] = ("mexico", "mexen", "mex", "mythical")
MAX_SEATS = 6  # what the screen shows legibly
HOLD_TOLERANCE = 0.5  # a held die may shift by this fraction of its size
# A die nobody threw is read within a few pixels of where it lay, or a little farther
# when the die thrown pushed it; one rolled lands farther than this fraction of its size
# away or shows another face. A die pushed farther (12 px of a 50-px die) is taken for
# one thrown: the replay camera's shifts (table.hw.camera.SHIFTS), which must lie
# between this and HOLD_TOLERANCE on every shipped frame, come as close as 0.227.
UNROLLED_TOLERANCE = 0.2
# What to do about a frame the reader could not read for its light, its lens or a tray
# too busy to find the dice in, rather than "roll again", which mends none of these:
# once mended the dice are read where they lie (the frame saw no die, so none of them
# must be thrown again), and a throw again is read as ever. Looked up by the reason's
# words before any ":" (too busy goes on with how many places).
_HINTS = {
    SAID_TOO_DARK: "more light",
    SAID_TOO_BRIGHT: "less light",
    SAID_BLURRED: "clean lens",
    SAID_TOO_BUSY: "clear tray",
}

# ---------------------------------------------------------------------------
# Settings


@dataclass(frozen=True)
class Settings:
    """The menu's choices, remembered between games (saved as JSON by the loop)."""

    rules: str = "mexico"
    players: int = 2
    cpus: tuple[str, ...] = ()  # strength of the CPU players in the last seats
    options: tuple[tuple[str, object], ...] = ()
    # Seat names from the config's [game] players, people's and CPUs' apart, in seat
    # order; seats past them are P1.., CPU1... Not saved with the menu's choices: an
    # edited config file names the seats at the next start.
    names: tuple[str, ...] = ()
    cpu_names: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "players": self.players,
            "cpus": list(self.cpus),
            "options": {k: v for k, v in self.options},
        }

    @staticmethod
    def from_json(obj: object) -> Settings:
        """Tolerant: anything unreadable or out of range falls back to the default."""
        if not isinstance(obj, Mapping):
            return Settings()
        rules = obj.get("rules")
        players = obj.get("players")
        cpus = obj.get("cpus")
        options = obj.get("options")
        raw = Settings(
            rules=rules if isinstance(rules, str) else Settings.rules,
            players=players
            if isinstance(players, int) and not isinstance(players, bool)
            else Settings.players,
            cpus=tuple(c for c in cpus if isinstance(c, str)) if isinstance(cpus, list) else (),
            options=tuple((str(k), v) for k, v in options.items())
            if isinstance(options, Mapping)
            else (),
        )
        return normalize(raw)

    def option(self, name: str) -> object:
        return dict(self.options).get(name)


def _cpu_event(game: Game) -> Event | None:
    """The event the CPU players send now (table.cpu.next_event), or None."""
    if game.is_over:
        return None
    header = game.header
    try:
        event = cpu_players.next_event(
            # by accepted events only: a refused one (a STOP logged refused) must not draw
            # the CPU's decision again, or a resumed game would not be the live one
            header.rules,
            game.state,
            header.players,
            header.seed or 0,
            game.accepted,
        )
    except Exception:  # a CPU fault must never stop the table
        return None
    return event if isinstance(event, Event) else None


def _has_cpu_players(rules: str) -> bool:
    """Whether ``table.cpu`` has CPU players for the rule set (none for mythical)."""
    return rules in cpu_players.CPU_RULES


def _seat_range(rules: str) -> tuple[int, int]:
    r = get_rules(rules)
    high = r.max_players if r.max_players is not None else MAX_SEATS
    return r.min_players, min(high, MAX_SEATS)


def normalize(settings: Settings) -> Settings:
    """The nearest valid settings: known rules, seats in range, options allowed."""
    rules = settings.rules if settings.rules in MENU_RULES else Settings.rules
    low, high = _seat_range(rules)
    players = max(low, min(high, settings.players))
    cpus = tuple(c for c in settings.cpus if c in CPU_LEVELS)[: players - 1]
    if not _has_cpu_players(rules):  # mythical: people only
        cpus = ()
    specs = {s.name: s for s in get_rules(rules).options}
    options: list[tuple[str, object]] = []
    for name, value in settings.options:
        spec = specs.get(name)
        if spec is None or name in dict(options):
            continue
        if _allowed(spec, value):
            options.append((name, value))
    seats = Settings(rules, players, cpus, (), settings.names, settings.cpu_names)
    kept: list[tuple[str, object]] = []
    for name, value in options:  # MY-2: not more rounds than the bag has dice for
        if _can_start(seats, {**dict(kept), name: value}):
            kept.append((name, value))
    return replace(seats, options=tuple(kept))


def _can_start(settings: Settings, options: Mapping[str, object]) -> bool:
    """A game of the settings' rules and seats starts with ``options`` (None: the rules
    choose). Options may depend on each other and on the seats: mythical's bag must
    hold the dice of the last round for every player (MY-2)."""
    given = tuple(sorted((n, v) for n, v in options.items() if v is not None))
    return _starts(settings.rules, settings.players, settings.cpus, given)


@lru_cache(maxsize=4096)
def _starts(
    rules: str, players: int, cpus: tuple[str, ...], options: tuple[tuple[str, object], ...]
) -> bool:
    """:func:`_can_start` for seats P1.. (the names do not matter), remembered: the menu
    asks it of every value it offers at every press."""
    seats = seat_players(Settings(rules, players, cpus))
    try:
        Game.start(GameHeader(rules, seats, dict(options), 0))
    except SetupError:
        return False
    return True


_PRESETS: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 75, 99)


def _allowed(spec: OptionSpec, value: object) -> bool:
    """The rules allow ``value`` for the option (None: the rules choose, if they may)."""
    if value is None:
        return spec.default is None
    try:
        spec.check(value)
    except ValueError:
        return False
    return True


def _option_values(spec: OptionSpec, current: object = None) -> tuple[object, ...]:
    """The values the menu offers for an option (default first among equals), with the
    ``current`` one (a config's or the last game's) among them even when it is none of
    the presets: ``lives = 7``."""
    if spec.choices:
        values: tuple[object, ...] = tuple(spec.choices)
    elif isinstance(spec.default, bool):
        values = (True, False)
    else:
        low = spec.low if spec.low is not None else 0
        high = spec.high if spec.high is not None else 99
        if high - low <= 12:
            ints = set(range(low, high + 1))
        else:
            ints = {v for v in _PRESETS if low <= v <= high} | {low}
        if isinstance(spec.default, int):
            ints.add(spec.default)
        if isinstance(current, int) and not isinstance(current, bool) and _allowed(spec, current):
            ints.add(current)
        values = tuple(sorted(ints))
    if spec.default is None:
        values = (None,) + values
    return values


def _value_label(value: object, spec: OptionSpec | None = None) -> str:
    if value is None:
        return "auto"
    if isinstance(value, bool):
        return "on" if value else "off"
    if value == 0 and spec is not None and "0 = " in spec.doc:
        # "end after this many rounds (0 = until stopped)" -> "until stopped"
        return spec.doc.split("0 = ", 1)[1].split(")", 1)[0].strip() or "0"
    return str(value)


def seat_players(settings: Settings) -> tuple[Player, ...]:
    """People first, then the CPU players in the last seats. A seat takes its name from
    ``settings.names`` (people) or ``settings.cpu_names`` (CPUs) in order, else P1..Pn,
    CPU1..; a blank name, or one already taken, gives way to the next free default."""
    humans = settings.players - len(settings.cpus)
    taken: set[str] = set()

    def name(given: tuple[str, ...], i: int, prefix: str) -> str:
        wanted = single_spaced(given[i]) if i < len(given) else ""
        if wanted and wanted not in taken:
            taken.add(wanted)
            return wanted
        n = i + 1
        while f"{prefix}{n}" in taken or f"{prefix}{n}" in given:
            n += 1
        taken.add(f"{prefix}{n}")
        return f"{prefix}{n}"

    seats = [Player(name(settings.names, i, "P")) for i in range(humans)]
    seats += [
        Player(name(settings.cpu_names, i, "CPU"), cpu) for i, cpu in enumerate(settings.cpus)
    ]
    return tuple(seats)


# ---------------------------------------------------------------------------
# Output


@dataclass(frozen=True)
class Output:
    """What the loop does after one input, in this order: log, new game/over, screen."""

    screen: Screen
    log: tuple[Event, ...] = ()
    new_game: GameHeader | None = None
    game_over: bool = False
    settings: Settings | None = None
    want_dice: bool = False
    status: str = ""
    rolled: bool = False
    """ROLL pressed again after a reading was not counted: the dice were thrown again
    while the table goes on reading (a camera replaying photos shows its next one)."""


# ---------------------------------------------------------------------------
# Internal state


class Mode(StrEnum):
    MENU = "menu"
    PLAY = "play"
    OVER = "over"


class Purpose(StrEnum):
    """What a chooser is choosing."""

    GIVE = "give"  # mexen 31: who gets the sip/point
    COUNT = "count"  # mex tie-break counting
    HOLD = "hold"  # mexen: which die stays lying
    END = "end"  # end the game? no/yes
    BID = "bid"  # mythical: one player's bid (MY-3)
    DIE = "die"  # mythical: the kind of die the player to roll rolled (MY-1, MY-4)
    FACE = "face"  # mythical: the face on top of that die


@dataclass(frozen=True)
class Chooser:
    purpose: Purpose
    title: str
    labels: tuple[str, ...]
    values: tuple[str, ...]
    index: int = 0
    note: str = ""  # said beside the choice: "bid 2  took 1" (mythical's player to roll)

    def screen(self, hint: str = "HOLD next  ROLL ok") -> Choose:
        return Choose(
            self.title, self.labels[self.index], self.index, len(self.labels), hint, self.note
        )


@dataclass(frozen=True)
class MenuStep:
    key: str  # "rules", "players", "cpus", "cpu:0", "opt:lives", "start"
    title: str
    values: tuple[object, ...]
    labels: tuple[str, ...]


@dataclass(frozen=True)
class Spot:
    """Where a die lay (pixels of the frame) and how big it was."""

    x: float
    y: float
    size: float


@dataclass(frozen=True)
class DiceWanted:
    """The throw the table waits for: ``count`` dice, one of them ``held`` if not None."""

    count: int
    held: int | None = None


@dataclass(frozen=True)
class HeldDie:
    """The die left lying: its value and where it may be (any of ``spots``)."""

    value: int
    spots: tuple[Spot, ...] = ()


def _spot(d: DieReading) -> Spot:
    (_cx, _cy), (w, h), _a = d.box
    return Spot(d.center[0], d.center[1], max(1.0, (abs(w) + abs(h)) / 2))


# ---------------------------------------------------------------------------
# The referee


@dataclass(frozen=True)
class Referee:
    settings: Settings
    seed: int = 0
    mode: Mode = Mode.MENU
    screen: Screen = field(default_factory=lambda: Message("dicetable"))
    # menu
    draft: Settings = field(default_factory=Settings)
    step: int = 0
    index: int = 0
    games: int = 0
    # play
    game: Game | None = None
    waiting: bool = False
    table: tuple[DieReading, ...] = ()  # dice of the last counted throw, as read
    # The dice of the last throw the camera read, as they lay, kept from game to game:
    # the tray still holds them until someone rolls.
    last_roll: tuple[DieReading, ...] = ()
    # Where the readings not counted since a throw was saw dice: they are to be thrown
    # again ("roll again"), so none may lie there still when one counts.
    refused_roll: tuple[DieReading, ...] = ()
    held: HeldDie | None = None
    chooser: Chooser | None = None
    dismiss: bool = False  # the screen is a notice; the next press only takes it away
    # Notices still to show, one a press, after the one on screen (mythical: the last
    # trick, the round's scores, then the next round's standings or the game's end).
    queued: tuple[Screen, ...] = ()
    # The game's own screen under the notice shown, shown (as the game's, not a notice)
    # once a press takes the notice away: a round's end too crowded for one screen says
    # who lost and the throw that ended the round first, then everyone's count.
    behind: Screen | None = None
    # CPU players' dice: rolled in software, or by a person at the table and read
    # by the camera (MC-6); ``cpu_roll`` is set once a CPU has decided to throw.
    cpu_dice_by_hand: bool = False
    cpu_roll: bool = False
    # A reading was not counted ("roll again") since ROLL: the next ROLL is a new throw.
    rethrow: bool = False
    # mythical: the bids entered so far this round, in seat order (logged only when
    # the last is in: MY-3), and the kind of die chosen for the roll being entered.
    bids: tuple[int, ...] = ()
    die: str = ""

    # -- entry points ------------------------------------------------------

    @staticmethod
    def boot(
        settings: Settings,
        resume: LoadedGame | None = None,
        seed: int = 0,
        cpu_dice_by_hand: bool = False,
        cannot_resume: str | None = None,
    ) -> tuple[Referee, Output]:
        """The first state: ``resume``'s game played on, or the menu. ``cannot_resume``
        (with no ``resume``) is why an unfinished game's log could not be loaded: shown
        before the menu."""
        settings = normalize(settings)
        ref = Referee(
            settings=settings, seed=seed, draft=settings, cpu_dice_by_hand=cpu_dice_by_hand
        )
        if resume is None:
            ref, out = ref._menu_at(0)
            if cannot_resume is None:
                return ref, out
            msg = _cannot_resume(cannot_resume)
            return replace(ref, screen=msg, dismiss=True), replace(out, screen=msg)
        try:
            if resume.header.rules not in MENU_RULES:
                raise SetupError(
                    f"{resume.header.rules} is not played at the table "
                    "(replay its game with 'dicetable replay')"
                )
            game = replay(resume.header, resume.events)
        except (SetupError, ValueError, KeyError) as exc:
            # The log cannot be played on: it is finished as it is (the loop
            # sets it aside as .bad) and the table starts at the menu.
            ref, out = ref._menu_at(0)
            msg = _cannot_resume(str(exc))
            ref = replace(ref, screen=msg, dismiss=True)
            return ref, replace(out, screen=msg, game_over=True)
        ref = replace(ref, mode=Mode.PLAY, game=game)
        # CPU decisions off their turn that were owed when the power went (the event
        # before them was logged, they were not) are taken now, as they would have been.
        ref, log, cpu_note = ref._run_cpus(())
        if ref.game is not None:
            game = ref.game
        if game.is_over:  # cut while its end was shown: shown again, as it came
            return ref._ended((*resume.events, *log), log)
        turn = game.turn
        view = game.view()
        detail = f"round {view.get('round', 1)}"
        if _is_mythical(game):
            detail = _mythical_where(game)
        elif turn is not None and turn.player:
            detail += f", {turn.player}'s {_throw_text(game)}"
            kept = _kept_now(game)
            if kept:
                detail += f", now {kept}"
        if view.get("held") is not None:
            detail += f", the {view['held']} stays"
        if _counts_pips(view):
            detail += ", count: pips"
        if cpu_note:
            detail += f"; {cpu_note}"
        if resume.torn:
            detail += " (last line was torn)"
        screen: Screen = Resumed(game.header.rules, detail, ref._hint())
        go_on = Resumed(game.header.rules, detail, "any button: go on")  # a notice
        ref = replace(ref, screen=screen)
        ref = ref._auto_chooser()
        if ref.chooser is not None:  # show the choice itself on the next press
            screen = go_on
            ref = replace(ref, screen=screen, dismiss=True)
        if resume.events:  # the round or trick the cut took off the display
            # (its step may end with CPU decisions the cut kept off the log: taken now)
            ref = ref._news_again((*resume.events, *log), go_on)
            screen = ref.screen
        return ref, ref._out(screen, log=log)

    def _last_step(self, events: tuple[Event, ...]) -> tuple[Game, Event, Game]:
        """The table's last step over ``events`` (this state's game): the game before it,
        the event that began it (a press, a CPU's turn, a throw read) and the game right
        after that event. The CPU decisions off their turn that follow an event are
        logged in its step (``_run_cpus``): a round a CPU ended at once (MX-7) began with
        the throw before it, which its screens name."""
        game = self.game
        assert game is not None and events
        start = max(0, len(events) - 9)  # _run_cpus takes eight decisions at most
        states = [(replay(game.header, events[:start]), False)]
        for event in events[start:]:
            after, refused = states[-1][0].apply(event)
            states.append((after, refused is not None))
        for i in range(start, len(events) - 1):  # the earliest such step is the last one
            after, was_refused = states[i - start + 1]
            if was_refused:  # a refusal runs no CPU
                continue
            if replace(self, game=after)._run_cpus(())[1] == events[i + 1 :]:
                return states[i - start][0], events[i], after
        return states[-2][0], events[-1], states[-1][0]

    def _news_again(self, events: tuple[Event, ...], resumed: Resumed) -> Referee:
        """This state, resumed after ``events``, with the screens their last event brought
        when it ended a round (who lost, the throw, the standings) or a mythical trick
        (MY-5..MY-8) shown again after ``resumed``, one a press, as they came: a power
        cut may have taken them off the display before anyone read them. Unchanged if
        the last event ended neither."""
        game = self.game
        assert game is not None
        before, last, after = self._last_step(events)
        if _is_mythical(game):
            view = game.view()
            notices = _mythical_news(before.view(), view)
            if not notices:
                return self
            if view.get("last_round") != before.view().get("last_round"):
                notices.append(_mythical_turn(game))
            return replace(self, screen=resumed, dismiss=True, queued=tuple(notices))
        if self.chooser is not None or game.view().get("round") == before.view().get("round"):
            return self
        thrown = last.dice if isinstance(last, Throw) else ()
        note = ""  # as the event's own step says it (_apply_button, _cpu_step)
        if _is_cpu(before):  # a CPU's decision: "CPU2 stands"
            note = _cpu_note(before, after, last)
        elif isinstance(last, Give):
            note = _give_note(before, after, last)
        elif isinstance(last, EndRound):
            note = _end_note(after)
        # the step as it went: the CPU decisions that followed its event are taken again
        ref, out = replace(self, game=after)._after_event(before, (), thrown, note)
        if ref.game != game:  # not the game resumed: as it is
            return self
        if ref.dismiss:  # first who lost and how, then the round's end
            return replace(ref, screen=resumed, queued=(out.screen, *ref.queued))
        return replace(ref, screen=resumed, dismiss=True, behind=out.screen)

    def with_refused(self, dice: tuple[DieReading, ...]) -> Referee:
        """This state, told where the last reading not counted saw dice (the table
        remembers them across a restart, as the last throw's): a die read there was not
        thrown again, after a power cut too."""
        return replace(self, refused_roll=dice)

    def with_tray(self, dice: tuple[DieReading, ...]) -> Referee:
        """This state, told where the dice of the last throw read lie (the table remembers
        them across a restart; the game log holds values only): ROLL pressed over them
        unrolled is no throw. If they are the dice the game says lie on the table (the
        same values), a die left lying, or left lying next, is checked by its place as
        well as its value, as before the restart."""
        ref = replace(self, last_roll=dice)
        game = self.game
        if self.mode is not Mode.PLAY or game is None or not dice:
            return ref
        view = game.view()
        lying = view.get("table")
        values = sorted(d.value for d in dice if d.value is not None)
        if not isinstance(lying, list | tuple) or sorted(lying) != values or len(dice) != 2:
            return ref
        ref = replace(ref, table=dice)
        held = view.get("held")
        if isinstance(held, int):
            spots = tuple(_spot(d) for d in dice if d.value == held)
            ref = replace(ref, held=HeldDie(held, spots))
        return ref

    def with_entry(self, bids: tuple[int, ...]) -> Referee:
        """This state, told the bids entered before a restart (mythical, MY-3: they are
        logged only once all are in): the entry goes on at the next player's bid."""
        game = self.game
        if (
            self.mode is not Mode.PLAY
            or not _is_mythical(game)
            or game is None
            or EventKind.BIDS not in game.allowed
            or not 0 < len(bids) < len(game.header.players)
        ):
            return self
        most = game.view().get("round")  # MY-3: 0 to r tricks
        if not isinstance(most, int) or not all(0 <= b <= most for b in bids):
            return self
        # the trick and round the restart would show again were read: bids came after them
        ref = replace(self, bids=tuple(bids), queued=())
        return ref._mythical_chooser() if self.chooser is not None else ref

    def on_press(self, press: ButtonPress) -> tuple[Referee, Output]:
        if self.dismiss and _asks_end(press) and self._in_a_game():
            # A very long STOP opens the end-game menu over a notice too ("round 2 over",
            # a trick's taker): a round's end is when people stop. The notices come back,
            # one a press, if the game goes on.
            return replace(self, dismiss=False, queued=(self.screen, *self.queued))._ask_end()
        if self.dismiss:  # a notice was shown: this press only takes it away
            if self.queued:  # ... and shows the next one
                return replace(self, queued=self.queued[1:])._show(self.queued[0])
            if self.behind is not None:  # ... and the screen under it
                return replace(self, dismiss=False, behind=None)._show(self.behind)
            return replace(self, dismiss=False)._current()
        if self.mode is Mode.MENU:
            return self._menu_press(press)
        if self.mode is Mode.OVER or self.game is None:
            return self._menu_at(0)
        if self.chooser is None and _is_mythical(self.game):
            ref = self._auto_chooser()  # mythical is entered through its choosers only
            if ref.chooser is not None:
                return ref._choose_press(press)
        if self.chooser is not None:
            return self._choose_press(press)
        if press.button is Button.STOP and press.press is Press.VERY_LONG:
            return self._ask_end()
        if self.waiting:
            return self._press_while_reading(press)
        if press.button is Button.ROLL:
            return self._roll()
        if _is_cpu(self.game):
            refusal = self._cpu_turn_refusal(press)
            if refusal:
                return self._note(_press_name(press), refusal)
        if press.button is Button.STOP:
            if press.press is Press.LONG:
                return self._end_round()
            return self._stand()
        return self._hold()

    def on_reading(self, reading: FrameReading) -> tuple[Referee, Output]:
        if self.mode is not Mode.PLAY or self.game is None or not self.waiting:
            return self, self._out(self.screen)  # nobody asked; nothing changes
        game = self.game
        player = _player(game)
        # A reading not counted is remembered where it saw dice: those must be thrown
        # again before a reading counts (below), however they read later.
        later = replace(self, refused_roll=_refused_since(self.refused_roll, reading.dice))
        if not reading.is_ok:
            reason = reading.reason or "the dice could not be read"
            hint = _HINTS.get(reason.partition(":")[0], "roll again")
            return later._not_counted(Refusal(reason, f"{player}: {hint}"))
        want = _dice_wanted(game)
        values = reading.values
        if any(d.value is None for d in reading.dice):
            screen = Refusal("a die could not be read", f"{player}: roll again")
            return later._not_counted(screen)
        if len(values) != want or len(reading.dice) != want:
            seen = len(reading.dice)
            what = "die" if want == 1 else "dice"
            screen = Refusal(f"saw {seen}, need {want} {what}", f"{player}: roll again")
            return later._not_counted(screen)
        if self.held is not None and self.held.spots:
            problem = _held_problem(self.held, reading.dice)
            if problem:
                screen = Refusal(problem, "put it back, roll again")
                return later._held_broken(screen, Throw(values), self._seen_before(reading))
        elif self.held is not None and self.held.value not in values:
            # the die to leave lying was thrown in software: the player set one to it
            v = self.held.value
            screen = Refusal(f"no die shows {v}", f"set a die to {v}, roll again")
            return later._held_broken(screen, Throw(values), self._seen_before(reading))
        if _unrolled(self.last_roll, reading.dice):
            # ROLL pressed with the last throw's dice still lying as they fell: counting
            # them would score a throw nobody made. The settler answers again only once
            # the tray has moved (or a hand has been in it).
            screen = Refusal("dice lie as last thrown", f"{player}: roll them")
            return later._not_counted(screen)
        held = self.held
        lying = game.view().get("held")
        if held is None and isinstance(lying, int):  # held by a CPU, or before a restart
            held = HeldDie(lying)
        if _left_unthrown(self.last_roll, reading.dice, held) or _left_unthrown(
            self.refused_roll, reading.dice, held, any_face=True
        ):
            # A die left where it lay when the last throw was counted, or when the last
            # reading was not ("die 2 is tilted: roll again"): only the other die was
            # thrown again, or nothing was (a shadow or a blurred frame moved the tray
            # for the camera), and a reading refused before may read now.
            screen = Refusal("a die was not thrown", f"{player}: roll again")
            return later._not_counted(screen)
        event = Throw(values)
        after, refused = game.apply(event)
        ref = replace(self, last_roll=reading.dice, refused_roll=())
        if refused is not None:
            ref = replace(ref, game=after, waiting=False, cpu_roll=False)
            return ref._refused(refused, (event,))
        table = reading.dice if want == 2 else ()
        ref = replace(ref, game=after, waiting=False, table=table, held=None, cpu_roll=False)
        return ref._after_event(game, (event,), thrown=values)

    def on_unmoved(self) -> tuple[Referee, Output]:
        """The camera sees the tray as it was when the table last stopped reading (STOP,
        a camera fault, a throw counted): nobody has rolled since, and what lies there is
        not counted, whatever it reads now (a reading refused before may read now)."""
        return self._still_not_counted("dice lie as last thrown", "roll them")

    def on_obstructed(self) -> tuple[Referee, Output]:
        """The dice came to rest with something in the tray that stayed still so long the
        camera took it for the tray (a hand, a cup): it may cover a die, or part of one,
        which would then be read wrong or not at all. Once it is taken out (the tray
        moves), the dice are read as they lie then, as after any hand in the tray."""
        return self._still_not_counted("something in the tray", "take it out")

    def _still_not_counted(self, reason: str, then: str) -> tuple[Referee, Output]:
        if self.mode is not Mode.PLAY or self.game is None or not self.waiting:
            return self, self._out(self.screen)  # nobody asked; nothing changes
        return self._not_counted(Refusal(reason, f"{_player(self.game)}: {then}"))

    def _not_counted(self, screen: Refusal) -> tuple[Referee, Output]:
        """A reading not counted: shown, and the table goes on reading; the player's next
        ROLL says they threw again (``_press_while_reading``)."""
        return replace(self, rethrow=True)._show(screen, wait=True)

    def _seen_before(self, reading: FrameReading) -> bool:
        """The dice lie as the readings not counted since the last throw, or the last
        throw, left them: no new throw (the settler answers again after a shadow, and
        after a power cut), so no refused throw to log again."""
        return _unrolled(self.refused_roll, reading.dice) or _unrolled(self.last_roll, reading.dice)

    def _held_broken(
        self, screen: Refusal, event: Throw, seen_before: bool
    ) -> tuple[Referee, Output]:
        """A throw that did not leave the held die as it lay (MN-5), not counted as any
        reading is not. Where the rules refuse it too (the held value is gone from the
        throw: the die turned, or moved and turned), it is also logged as refused, with
        their reason (GAME_LOG.md: "a held die whose value changed" is a refused event,
        recorded as the table shows it); a die only moved breaks no rule the log holds.
        ``seen_before``: the same dice read again, untouched, are logged once."""
        assert self.game is not None
        after, refused = self.game.apply(event)
        if refused is None or seen_before:
            return self._not_counted(screen)
        ref = replace(self, game=after, rethrow=True)
        return ref._show(screen, wait=True, log=(event,))

    def dice_wanted(self) -> DiceWanted | None:
        """What the tray should hold for the throw the table waits for (None: it waits
        for none): how many dice, and the die left lying (MN-5), if one is."""
        if self.mode is not Mode.PLAY or self.game is None or not self.waiting:
            return None
        # the game's: a die held by a CPU has no HeldDie (no place), nor has one held before
        # a power cut whose throw is not the one tray.json remembers (with_tray)
        lying = self.game.view().get("held")
        return DiceWanted(_dice_wanted(self.game), lying if isinstance(lying, int) else None)

    def on_camera_failed(self, reason: str) -> tuple[Referee, Output]:
        if self.mode is Mode.PLAY and not self.waiting:
            # A read that failed after the table stopped wanting dice (the throw was
            # counted, or the reading cancelled): "camera ... ROLL: try again" over a
            # throw just counted would have the player throw it again. The loop logs
            # it; if the camera is still at fault, the next throw it is asked for says so.
            return self, self._out(self.screen)
        in_play = self.mode is Mode.PLAY and self.chooser is None
        hint = "ROLL: try again" if in_play else "any button: go on"
        screen = Message("camera", reason or "no picture", hint)
        ref = replace(self, waiting=False, screen=screen, dismiss=self.dismiss or not in_play)
        return ref, ref._out(screen)

    def _current(self) -> tuple[Referee, Output]:
        """Show what the table is at now (after a notice was taken away)."""
        if self.mode is Mode.MENU:
            return self._show(self._menu_screen())
        if self.mode is Mode.OVER or self.game is None:
            return self._menu_at(0)
        if self.chooser is not None:
            return self._show(self.chooser.screen())
        if self.waiting:
            return self._show(Reading(_player(self.game), "reading..."))
        return self._show(self._turn_screen())

    def _cpu_turn_refusal(self, press: ButtonPress) -> str:
        """Why a button other than ROLL does nothing on a CPU player's turn, or ""."""
        game = self.game
        assert game is not None
        turn = game.turn
        me = _player(game)
        if press.button is Button.STOP and press.press is Press.LONG:
            if turn is not None and turn.throw == 0:
                return ""  # MX-7 (b): the previous player may end the round
            return f"{me} plays: ROLL lets it"
        if press.button is Button.HOLD and EventKind.COUNT in game.allowed:
            return ""  # the tie-break's last player may be a person
        return f"{me} plays: ROLL lets it"

    # -- output helpers ----------------------------------------------------

    def _status(self) -> str:
        if self.mode is Mode.MENU:
            return f"menu: {self._steps()[self.step].title}"
        game = self.game
        if game is None or self.mode is Mode.OVER:
            return "game over"
        turn = game.turn
        rnd = game.view().get("round", 1)
        if _is_mythical(game):
            return f"{game.header.rules} {_mythical_where(game)}"
        if turn is None or turn.player is None:
            return f"{game.header.rules} round {rnd}"
        what = "reading" if self.waiting else f"throw {turn.throw + 1}/{turn.max_throws}"
        return f"{game.header.rules} round {rnd}: {turn.player} {what}"

    def _out(self, screen: Screen, **kw: Any) -> Output:
        return Output(screen=screen, want_dice=self.waiting, status=self._status(), **kw)

    def _show(self, screen: Screen, wait: bool | None = None, **kw: Any) -> tuple[Referee, Output]:
        ref = replace(self, screen=screen)
        if wait is not None:
            ref = replace(ref, waiting=wait)
        return ref, ref._out(screen, **kw)

    def _note(self, title: str, text: str = "", hint: str = "") -> tuple[Referee, Output]:
        return self._show(Message(title, text, hint or self._hint()))

    # -- the menu ----------------------------------------------------------

    def _steps(self) -> tuple[MenuStep, ...]:
        return _menu_steps(self.draft)

    def _menu_at(self, step: int, note: str = "") -> tuple[Referee, Output]:
        steps = self._steps()
        step = max(0, min(step, len(steps) - 1))
        ref = replace(
            self,
            mode=Mode.MENU,
            step=step,
            game=None,
            waiting=False,
            chooser=None,
            cpu_roll=False,
            bids=(),
            die="",
            behind=None,
        )
        ref = replace(ref, index=_current_index(steps[step], ref.draft), table=(), held=None)
        screen = ref._menu_screen(note)
        ref = replace(ref, screen=screen)
        return ref, ref._out(screen)

    def _menu_screen(self, note: str = "") -> Menu:
        s = self._steps()[self.step]
        if s.key == "start":
            hint = note or "ROLL start  STOP back"
            return Menu(s.title, _summary(self.draft), 0, 1, hint)
        hint = note or "HOLD next  ROLL ok"
        return Menu(s.title, s.labels[self.index], self.index, len(s.labels), hint)

    def _menu_press(self, press: ButtonPress) -> tuple[Referee, Output]:
        steps = self._steps()
        s = steps[self.step]
        if press.button is Button.HOLD:
            if s.key == "start":
                return self._show(self._menu_screen("nothing to pick: ROLL"))
            ref = replace(self, index=(self.index + 1) % len(s.values))
            screen = ref._menu_screen()
            return replace(ref, screen=screen), ref._out(screen)
        if press.button is Button.STOP:
            if self.step == 0:
                return self._show(self._menu_screen("first choice already"))
            return self._menu_at(self.step - 1)
        if s.key == "start":
            return self._start_game()
        draft = _choose(self.draft, s, s.values[self.index])
        ref = replace(self, draft=draft)
        return ref._menu_at(self.step + 1)

    def _start_game(self) -> tuple[Referee, Output]:
        settings = normalize(self.draft)
        specs = get_rules(settings.rules).options
        options = {n: v for n, v in settings.options if v is not None}
        options = {s.name: options[s.name] for s in specs if s.name in options}
        seed = _mix(self.seed, self.games) % (2**31)
        header = GameHeader(settings.rules, seat_players(settings), options, seed)
        try:
            game = Game.start(header)
        except SetupError as exc:
            return self._show(Message("cannot start", str(exc), "STOP: back"))
        changed = settings if settings != self.settings else None
        ref = replace(
            self,
            settings=settings,
            draft=settings,
            games=self.games + 1,
            mode=Mode.PLAY,
            game=game,
            waiting=False,
            table=(),
            held=None,
            chooser=None,
            bids=(),
            die="",
        )
        screen = ref._turn_screen()
        ref = replace(ref, screen=screen)
        if _is_mythical(game):  # the round's first screen, then its bids are entered
            ref = replace(ref._auto_chooser(), dismiss=True)
        return ref, ref._out(screen, new_game=header, settings=changed)

    # -- play: buttons -----------------------------------------------------

    def _hint(self) -> str:
        game = self.game
        if self.mode is not Mode.PLAY or game is None:
            return ""
        if self.waiting:
            return "reading... STOP cancels"
        if _is_mythical(game):
            return "HOLD next  ROLL ok"
        if _is_cpu(game):
            if not self.cpu_roll:
                return "ROLL: CPU plays"
            if game.view().get("held") is not None:  # MN-5: only the other die
                return "roll the other die, ROLL"
            return "roll for it, then ROLL"
        allowed = game.allowed
        if EventKind.STAND in allowed:  # a throw is kept already: as after that throw
            return "ROLL again  STOP stand"
        if EventKind.COUNT in allowed and not _seat_is_cpu(game, _tiebreak_last(game)):
            return "roll+ROLL  HOLD: count"  # MX-9: the tie-break's last player's choice
        if EventKind.HOLD in allowed:
            return "roll+ROLL  HOLD: keep"
        if game.view().get("held") is not None:  # MN-5: that die stays lying
            return "roll the other, ROLL"
        if _dice_wanted(game) == 1:
            return "roll one die, ROLL"
        return "roll, then press ROLL"

    def _press_while_reading(self, press: ButtonPress) -> tuple[Referee, Output]:
        player = _player(self.game)
        if press.button is Button.STOP:
            ref = replace(self, waiting=False)
            return ref._show(ref._turn(player, "reading cancelled", ref._hint()))
        if press.button is Button.ROLL and self.rethrow:
            # "roll again" was shown: the player did, and says so
            ref = replace(self, rethrow=False)
            return ref._show(Reading(player, _reading_text(self.game)), wait=True, rolled=True)
        name = "ROLL" if press.button is Button.ROLL else "HOLD"
        return self._show(Reading(player, f"{name}: still reading"), wait=True)

    def _roll(self) -> tuple[Referee, Output]:
        game = self.game
        assert game is not None
        if _is_cpu(game) and not self.cpu_roll:
            return self._cpu_step()
        if EventKind.THROW not in game.allowed:
            return self._note("ROLL", "no throw now", "")
        ref = replace(self, rethrow=False)
        return ref._show(Reading(_player(game), _reading_text(game)), wait=True)

    def _stand(self) -> tuple[Referee, Output]:
        game = self.game
        assert game is not None
        if EventKind.STAND not in game.allowed:
            rules = game.header.rules
            if _tiebreak(game.view()) is not None:  # MX-8, MN-10: nobody stands
                each = "one die each" if _dice_wanted(game) == 1 else "one throw each"
                return self._refuse_button(Stand(), "STOP", f"tie-break: {each}, no standing")
            if rules == "mexen":
                return self._refuse_button(Stand(), "STOP", "no standing in mexen: three throws")
            if game.turn is not None and game.turn.throw == 0:
                return self._refuse_button(Stand(), "STOP", "throw first, then stand")
            return self._refuse_button(Stand(), "STOP", "cannot stand now")
        return self._apply_button(Stand())

    def _end_round(self) -> tuple[Referee, Output]:
        game = self.game
        assert game is not None
        if EventKind.END_ROUND not in game.allowed:
            if game.header.rules != "mex":
                why = f"no ending a round in {game.header.rules}"
            else:
                why = "the round cannot be ended now"
            # an end_round is the event of the player who threw last (GAME_LOG.md): logged
            # refused only if that is a person, not when nobody has thrown or a CPU did
            last = _threw_last(game)
            if last is None or _seat_is_cpu(game, last):
                return self._note("long STOP", why)
            return self._refuse_button(EndRound(), "long STOP", why)
        ender = _round_ender(game)
        if _seat_is_cpu(game, ender):  # MX-7: its decision (table.cpu)
            if isinstance(_cpu_event(game), EndRound):  # on a CPU's turn: not taken yet
                return self._note("long STOP", f"{ender} ends the round: ROLL lets it")
            return self._note("long STOP", f"{ender} threw last and lets the round go on")
        return self._apply_button(EndRound())

    def _hold(self) -> tuple[Referee, Output]:
        game = self.game
        assert game is not None
        rules = game.header.rules
        if rules == "mex":
            if EventKind.COUNT in game.allowed:
                last = _tiebreak_last(game)
                if _seat_is_cpu(game, last):  # MX-9: its choice (table.cpu)
                    coming = _cpu_event(game)
                    if isinstance(coming, Count):  # on a CPU's turn: not taken yet
                        return self._note("HOLD", f"{last} counts {coming.mode}: ROLL lets it")
                    count = (_tiebreak(game.view()) or {}).get("count", "mex")
                    return self._note("HOLD", f"{last} chooses the count: {count}")
                # opened at the count that holds now: ROLL keeps it (MX-9)
                now = 1 if _counts_pips(game.view()) else 0
                chooser = Chooser(
                    Purpose.COUNT,
                    "tie-break count",
                    ("mex (as usual)", "pips (sum)"),
                    ("mex", "pips"),
                    now,
                )
                return replace(self, chooser=chooser)._show(chooser.screen())
            return self._note("HOLD", "only for the tie-break count")
        if rules != "mexen":
            return self._note("HOLD", f"not in {rules}: keep both dice")
        if EventKind.HOLD not in game.allowed:
            held = game.view().get("held")
            if held is not None:
                return self._note("HOLD", f"the {held} lies already: roll the other")
            return self._note("HOLD", "no die may be left lying now")
        values = self._holdable()
        if not values:
            return self._note("HOLD", "no die may be left lying now")
        if len(values) == 1:
            return self._do_hold(values[0])
        chooser = Chooser(
            Purpose.HOLD,
            "which die stays?",
            tuple(f"the {v}" for v in values),
            tuple(str(v) for v in values),
        )
        return replace(self, chooser=chooser)._show(chooser.screen())

    def _holdable(self) -> tuple[int, ...]:
        game = self.game
        assert game is not None
        lying = game.view().get("table") or [d.value for d in self.table if d.value is not None]
        out: list[int] = []
        for v in lying:
            if isinstance(v, int) and v not in out and game.apply(Hold(v))[1] is None:
                out.append(v)
        return tuple(out)

    def _do_hold(self, value: int) -> tuple[Referee, Output]:
        game = self.game
        assert game is not None
        event = Hold(value)
        after, refused = game.apply(event)
        if refused is not None:
            return replace(self, game=after)._refused(refused, (event,))
        spots = tuple(_spot(d) for d in self.table if d.value == value)
        ref = replace(self, game=after, held=HeldDie(value, spots), chooser=None)
        player = _player(after)
        # a CPU's next step is its own (ROLL lets it), even when a person rolls for it
        hint = ref._hint() if _is_cpu(after) else "roll the other, ROLL"
        # No die of it was read in the tray: a CPU threw it in software. A person then
        # sets a die to it; where it lies is not checked, only that the throw shows it.
        stays = f"the {value} stays" if spots else f"set a die to {value}"
        screen = ref._turn(player, stays, hint)
        return ref._show(screen, log=(event,))

    def _play_on(self) -> tuple[Referee, Output]:
        """Back to the game from a choice left (STOP, or "no" to ending it): the choice the
        game needs now set up again (a 31's give, the next mythical bid), and shown, or
        the turn. Notices the end-game question was asked over come back first, one a
        press, with that choice under them."""
        ref = self._auto_chooser()
        if self.queued:
            ref = replace(ref, dismiss=True, queued=self.queued[1:])
            return ref._show(self.queued[0])
        if ref.chooser is not None:
            return ref._show(ref.chooser.screen())
        return ref._show(ref._turn_screen())

    def _in_a_game(self) -> bool:
        """A game is being played and is not over."""
        return self.mode is Mode.PLAY and self.game is not None and not self.game.is_over

    def _ask_end(self) -> tuple[Referee, Output]:
        chooser = Chooser(
            Purpose.END, "end the game?", ("no, play on", "yes, end it"), ("no", "yes")
        )
        ref = replace(self, chooser=chooser, waiting=False)
        return ref._show(chooser.screen())

    def _choose_press(self, press: ButtonPress) -> tuple[Referee, Output]:
        chooser = self.chooser
        assert chooser is not None
        if press.button is Button.STOP and press.press is Press.VERY_LONG:
            if chooser.purpose is Purpose.END:
                return self._show(chooser.screen("HOLD next  ROLL ok"))
            return self._ask_end()
        if press.button is Button.HOLD:
            chooser = replace(chooser, index=(chooser.index + 1) % len(chooser.values))
            return replace(self, chooser=chooser)._show(chooser.screen())
        if press.button is Button.STOP:
            if chooser.purpose is Purpose.GIVE:
                return self._show(chooser.screen("choose: HOLD, ROLL"))
            if chooser.purpose in (Purpose.BID, Purpose.DIE, Purpose.FACE):
                return self._step_back(chooser)
            return replace(self, chooser=None)._play_on()
        value = chooser.values[chooser.index]
        ref = replace(self, chooser=None)
        if chooser.purpose is Purpose.END:
            if value == "yes":
                return replace(ref, queued=(), behind=None)._apply_button(EndGame())
            return ref._play_on()
        if chooser.purpose is Purpose.HOLD:
            return ref._do_hold(int(value))
        if chooser.purpose is Purpose.COUNT:
            return ref._apply_button(Count(value))
        if chooser.purpose is Purpose.BID:
            return ref._enter_bid(int(value))
        if chooser.purpose is Purpose.DIE:
            return ref._enter_die(value)
        if chooser.purpose is Purpose.FACE:
            return ref._enter_face(chooser.index)
        return ref._apply_button(Give(value))

    # -- play: events ------------------------------------------------------

    def _apply_button(self, event: Event) -> tuple[Referee, Output]:
        game = self.game
        assert game is not None
        after, refused = game.apply(event)
        if refused is not None:
            return replace(self, game=after)._refused(refused, (event,))
        note = _give_note(game, after, event) if isinstance(event, Give) else ""
        # A CPU's decision to throw was for the game as it stood: a person's event since
        # (a long STOP ending the round) voids it, and the CPU decides again. Kept, the
        # next ROLL read dice at once, and a CPU's tie-break count was never asked (MX-9).
        ref = replace(self, game=after, cpu_roll=False)
        return ref._after_event(game, (event,), note=note)

    def _refuse_button(self, event: Event, title: str, text: str) -> tuple[Referee, Output]:
        """A press whose event the rules do not allow now: said in the table's words, and
        logged as refused with the rules' reason (GAME_LOG.md: every accepted-or-refused
        event), so that a dispute over it can be looked up with ``dicetable replay``."""
        game = self.game
        assert game is not None
        after, refused = game.apply(event)
        if refused is None:  # allowed after all: as pressed
            return self._apply_button(event)
        return replace(self, game=after)._show(Message(title, text, self._hint()), log=(event,))

    def _refused(self, refused: Refused, log: tuple[Event, ...]) -> tuple[Referee, Output]:
        ref = self._auto_chooser()
        title = "not counted" if any(isinstance(e, Throw) for e in log) else "refused"
        rules = self.game.header.rules if self.game is not None else ""
        # the game is on the screen already; the log keeps the whole reason
        screen = Refusal(refused.reason.removeprefix(f"{rules}: "), ref._hint(), title)
        return ref._show(screen, wait=False, log=log)

    def _after_event(
        self,
        before: Game,
        log: tuple[Event, ...],
        thrown: tuple[int, ...] = (),
        note: str = "",
    ) -> tuple[Referee, Output]:
        """The screen after accepted events: game over, round over, a choice, or the turn."""
        assert self.game is not None
        news = _throw_news(before.view(), self.game.view(), thrown) if thrown else ""
        if before.header.rules == "mexen" and len(thrown) == 2 and Pair.of(*thrown).name == 31:
            # MN-6, MN-12: void, thrown again (the give's chooser says so in the normal variant)
            news = "  ".join(p for p in ("31 does not count", news) if p)
        ref, log, cpu_note = self._run_cpus(log)
        note = "; ".join(n for n in (note, cpu_note) if n)
        game = ref.game
        assert game is not None
        if game.is_over:
            return ref._end_after(before, thrown, log)
        if game.view().get("round") != before.view().get("round"):
            ref = replace(ref, table=(), held=None)
            end, notices = ref._round_screen(before, thrown, note, news)
            if notices:  # first who lost and how, then everyone's count
                ref = replace(ref, dismiss=True, behind=end, queued=notices[1:])
                return ref._show(notices[0], log=log)
            return ref._show(end, log=log)
        ref = ref._auto_chooser()
        if ref.chooser is not None:
            screen: Screen = ref.chooser.screen()
            if thrown:
                shown = _shown(game.header.rules, thrown)
                title = ref.chooser.title.removeprefix("31! ")
                screen = Choose(f"{shown}! {title}", *_rest(ref.chooser))
            return ref._show(screen, log=log)
        if thrown:
            return ref._show(ref._result_screen(before, thrown, note, news), log=log)
        return ref._show(ref._turn_screen(note), log=log)

    def _last_round_first(
        self, before: Game, last_throw: str, out: Output
    ) -> tuple[Referee, Output]:
        """The game's end ``out`` (this state's), after notices that say the round that
        ended with the game, when the end has no room for it beside six players (or
        three with mex's points): the throw that ended it, often a CPU's software dice,
        and who lost, one notice a press, as a crowded round's end does."""
        game = self.game
        assert game is not None
        end = out.screen
        rules = game.header.rules
        lost = _last_round_text(game.view(), rules).removeprefix("last round: ")
        ended = game.view().get("last_round")  # None while no round has ended
        last = ended or {}
        if (
            not isinstance(end, GameEnd)
            or ended == before.view().get("last_round")  # ended from the menu: no round
            or (all(x in end.detail for x in (last_throw, lost)) and end.detail in shown_whole(end))
            or not (last_throw or lost)
        ):
            return self, out
        title = f"round {last.get('round', '?')} over"
        losers = last.get("losers", [])
        if len(losers) > 1 and overflow(_notices(title, [lost], [])[0]):
            # "5 players lost 2": the standings that follow show which (at 0)
            took = "took" if rules == "mexen" else "lost"
            lost = f"{len(losers)} players {took} {last.get('loss', 0)}"
        return self._notices_first(_notices(title, [x for x in (last_throw, lost) if x], []), out)

    def _notices_first(self, notices: Sequence[Screen], out: Output) -> tuple[Referee, Output]:
        """This state showing ``out``, with ``notices`` shown before its screen, one a press."""
        if not notices:
            return self, out
        ref = replace(self, screen=notices[0], dismiss=True, queued=(*notices[1:], out.screen))
        return ref, replace(out, screen=notices[0])

    def _ended(self, events: tuple[Event, ...], log: tuple[Event, ...]) -> tuple[Referee, Output]:
        """The end of the game over ``events`` (``log`` the ones logged now), after a
        restart: with the screens the event that ended it brought before it (mythical's
        last trick and round, a crowded round's loss and the throw), which a power cut
        may have taken off the display before anyone read them."""
        game = self.game
        assert game is not None
        if not events:
            return self._game_over(game, log)
        before, last, _after = self._last_step(events)
        if _is_mythical(game):
            ref, out = self._game_over(game, log)
            return ref._notices_first(_mythical_news(before.view(), game.view()), out)
        return self._end_after(before, last.dice if isinstance(last, Throw) else (), log)

    def _end_after(
        self, before: Game, thrown: tuple[int, ...], log: tuple[Event, ...]
    ) -> tuple[Referee, Output]:
        """The game's end (this state's game) after ``before``, ``thrown`` the dice that
        ended it: named as a round's end names them, a CPU's software dice being seen
        nowhere else, after the notices a crowded end needs."""
        game = self.game
        assert game is not None
        view = before.view()
        shown = _shown(game.header.rules, thrown, pips=_counts_pips(view))
        last_throw = f"{_player(before)} {shown}" if thrown else ""
        tiebreak = view.get("phase") == "tiebreak"  # MX-8, MN-10
        ref, out = self._game_over(game, log, last_throw, tiebreak)
        return ref._last_round_first(before, last_throw, out)

    def _auto_chooser(self) -> Referee:
        """Open the chooser the game needs now (mexen 31: who gets the point)."""
        game = self.game
        if game is None or self.chooser is not None or game.is_over:
            return self
        if _is_mythical(game):
            return self._mythical_chooser()
        allowed = game.allowed
        if EventKind.GIVE in allowed and EventKind.THROW not in allowed and not _is_cpu(game):
            me = _player(game)
            names = tuple(p.name for p in game.header.players if p.name != me)
            stake = str(game.view().get("stake", "points")).rstrip("s")
            # as the throw's screen says it ("31! give a point to"), not otherwise after HOLD
            chooser = Chooser(Purpose.GIVE, f"31! give a {stake} to", names, names)
            return replace(self, chooser=chooser)
        return self

    def _game_over(
        self, game: Game, log: tuple[Event, ...], last_throw: str = "", tiebreak: bool = False
    ) -> tuple[Referee, Output]:
        """The game's end; ``last_throw`` ("CPU1 63") is the throw that ended it, if one did,
        in a tie-break if ``tiebreak``."""
        outcome = game.outcome
        view = game.view()
        if outcome is not None and outcome.winner:
            headline = _names_cut(
                outcome.winner,
                lambda w: f"{w} wins!",
                lambda t: not overflow(GameEnd(t, ())),
                game.header.names,
            )
        elif outcome is not None and outcome.draw:
            headline = "draw"
        else:
            headline = "no winner"
        rows = _standings(view)
        if game.header.rules == "mex":  # MX-10: round points decide among the rest
            points = {p.get("name"): p.get("points") for p in view.get("players", [])}
            rows = _points_rows(headline, tuple(n for n, _lives in rows), points)
        detail = _last_round_text(view, game.header.rules)
        end = GameEnd(headline, rows, detail=detail)
        screen: Screen = end
        if _is_mythical(game):  # MY-9: totals of up to six players, the detail if there is room
            screen = _fitting(end, replace(end, detail=""))
        elif last_throw and detail:
            # "P3 MEX!; all lost 2": a comma read as one more name ("MEX!, P1, P2, P3")
            said = f"{last_throw}; {detail.removeprefix('last round: ')}"
            # "Bob 2; Ann took 1" alone was a riddle after a tie-break's one die: where
            # there is room it says so
            screen = _detail_whole(end, *([f"tie-break: {said}"] if tiebreak else []), said)
        else:
            screen = _detail_whole(end)
        ref = replace(self, mode=Mode.OVER, game=game, waiting=False, chooser=None, screen=screen)
        return ref, Output(screen=screen, log=log, game_over=True, status="game over")

    # -- play: screens -----------------------------------------------------

    def _info(self) -> str:
        game = self.game
        if game is None:
            return ""
        view = game.view()
        now = _kept_now(game)
        parts: list[str] = [f"now {now}"] if now else []
        if game.header.rules == "mexen":
            parts.append(f"pot {view.get('pot', 0)}")
            pirate = view.get("pirate")
            if isinstance(pirate, dict):
                parts.append(f"pirate {pirate.get('name')} x{pirate.get('multiplier')}")
            return "  ".join(parts)
        tiebreak = _tiebreak(view)
        pips = _counts_pips(view)
        # MX-8: in a tie-break only its own throws count, not the main round's
        kept = view.get("kept") if tiebreak is None else tiebreak.get("thrown")
        low = _lowest_kept(kept, pips)
        if low is not None:
            parts.append(f"to beat: {low[1]} {low[0]}")  # "3 pips" says the count
        elif pips:
            parts.append("count: pips")
        if view.get("mexx"):
            parts.append(f"Mexx x{view['mexx']}")
        if view.get("double"):
            parts.append("21: x2")
        return "  ".join(parts)

    def _turn(self, player: str, header: str, hint: str) -> Turn:
        """The turn screen for ``player``: lives as hearts, what to beat, everyone's count."""
        game = self.game
        assert game is not None
        view = game.view()
        info = self._info()
        return Turn(player, header, hint, info, _lives(view, player), _standings(view))

    def _turn_screen(self, note: str = "") -> Screen:
        game = self.game
        assert game is not None
        turn = game.turn
        view = game.view()
        if _is_mythical(game) and turn is not None:
            return _mythical_turn(game)
        if turn is None or turn.player is None:
            return Message("game over")
        header = f"round {view.get('round', 1)}  " + _throw_text(game)
        if note:
            # What was just done ("CPU2 stands", a give) with what this turn may do. Where
            # the two do not fit one line, the note alone, unless the turn is out of the
            # ordinary: a tie-break (MX-8, MN-10) or fewer throws than usual (MX-4,
            # MN-4), which "CPU2 stands" alone hid; the note is what happened, that
            # header what to do now.
            both = f"{note}  {_throw_text(game)}"
            if not overflow(Turn("", both, "")):
                header = both
            elif not _out_of_the_ordinary(game):
                header = note
        return self._turn(turn.player, header, self._hint())

    def _result_screen(
        self, before: Game, thrown: tuple[int, ...], note: str = "", news: str = ""
    ) -> Screen:
        game = self.game
        assert game is not None
        thrower = _player(before)
        shown = _shown(game.header.rules, thrown, pips=_counts_pips(before.view()))
        now = _player(game)
        if now == thrower:
            allowed = game.allowed
            if _is_cpu(game):  # its next step is the CPU's own: only ROLL lets it
                hint = self._hint()
            elif EventKind.STAND in allowed:
                hint = "ROLL again  STOP stand"
            elif EventKind.HOLD in allowed:
                hint = "HOLD a die or roll: ROLL"
            else:
                hint = "roll again, then ROLL"
            return Result(thrower, shown, _throw_text(before), hint, news)
        view, was = game.view(), before.view()
        # who is next stays the hint; what CPUs decided meanwhile goes with the news
        besides = "  ".join(n for n in (note, news) if n)
        tied = (_tiebreak(view) or {}).get("players")
        if isinstance(tied, list) and not _tiebreak_thrown(view):
            # A tie-break started, or started again with those still tied (MX-8, MN-10;
            # the header says "again": "tie-break again: CPU1 first" was too wide for the
            # line). A thrower not in it is told so, and who is goes first in the note.
            started = was.get("phase") != "tiebreak"
            if thrower in tied:
                header = "tie-break!" if started else "tied again!"
            else:
                header = "tie-break!" if started else "safe!"
                who = f"{'tied' if started else 'again'}: {', '.join(str(p) for p in tied)}"
                besides = "  ".join(n for n in (who, besides) if n)
            return Result(thrower, shown, header, f"tie-break: {now} first", besides)
        hint = f"next: {now}"
        turn, was_turn = game.turn, before.turn
        if turn is not None and was_turn is not None and turn.max_throws < was_turn.max_throws:
            # MN-4: the first player's early Mex leaves everyone after fewer throws
            k = turn.max_throws
            limited = Result(
                thrower, shown, "turn over", f"{hint}, {k} throw{'s' * (k > 1)}", besides
            )
            if not overflow(limited):
                hint = limited.hint
        return Result(thrower, shown, "turn over", hint, besides)

    def _round_screen(
        self, before: Game, thrown: tuple[int, ...], note: str = "", news: str = ""
    ) -> tuple[RoundEnd, tuple[Message, ...]]:
        """The round's end, and the notices to show before it when it cannot show who
        lost (by name) and the throw that ended the round, or who is out: with five or
        six players the standings take the room, and a CPU's software dice that ended
        the round were seen nowhere else. As many notices as it takes to say those
        whole, one a press (six long names, three of them out, take two)."""
        game = self.game
        assert game is not None
        view = game.view()
        last = view.get("last_round") or {}
        losers = [str(x) for x in last.get("losers", [])]
        loss = last.get("loss", 0)
        rules = game.header.rules
        who = ", ".join(losers) or "nobody"
        names = game.header.names
        lives = "lives" if loss != 1 else "life"
        # the loss whole: names that take the line give way to a shorter one
        if rules == "mexen":
            named = f"{who} takes {_counted(loss, view)}"
            lost = _lost_line(named, who=who, line=lambda w: f"{w} takes {loss}", names=names)
        elif len(losers) > 1 and len(losers) == len(_in_game(before.view())):
            lost = named = f"all lose {loss} {lives}"
        elif len(losers) > 3:
            named = f"{who} lose {loss} {lives}"
            lost = f"{len(losers)} players lose {loss}"
        elif len(losers) > 1:
            named = f"{who} lose {loss} {lives}"
            lost = _lost_line(
                f"{who} lose {loss} {lives}",
                f"{who} lose {loss}",
                f"{len(losers)} players lose {loss} {lives}",
            )
        else:
            named = f"{who} loses {loss} {lives}"
            lost = _lost_line(named, who=who, line=lambda w: f"{w} loses {loss}", names=names)
        # Most important first: the screen leaves out the parts that do not fit.
        extras: list[str] = []
        out = ended = ""  # who is out, the throw that ended the round: never left out
        gone = [n for n in _in_game(before.view()) if n not in _in_game(view)]
        if gone:  # MX-6, MC-4: at 0 lives
            out = f"{', '.join(gone)} {'is' if len(gone) == 1 else 'are'} out"
            extras.append(out)
        if last.get("ended_by"):  # MX-7
            extras.append(f"ended by {last['ended_by']}")
        if note:
            extras.append(note)
        if thrown:
            shown = _shown(rules, thrown, pips=_counts_pips(before.view()))
            ended = f"{_player(before)} {shown}"
            extras.append(ended)
        if news:
            extras.append(news)
        if rules == "mexen" and isinstance(view.get("pirate"), dict):
            extras.append(f"pirate {view['pirate'].get('name')}")
        if rules == "mex" and last.get("mexx"):
            extras.append(f"{last.get('mexx')} Mexx")
        if rules == "mexico" and last.get("saw_21") and loss == 2:  # MC-3: double_on_21 on
            extras.append("21: x2")
        hint = f"next: {_player(game)}"
        n = last.get("round", "?")
        # the next player's name goes before the word "over": "round 1" beside "next: Maximilian"
        title = _beside(hint, f"round {n} over", f"round {n}")
        screen = RoundEnd(title, lost, _standings(view), "  ".join(extras), hint)
        drawn = shown_whole(screen)
        # a name cut short ("Maximilia.. loses 1") still names its player
        named_all = not lost.startswith(f"{len(losers)} players lose ")
        if named_all and all(x in drawn for x in (ended, out) if x):
            return screen, ()
        rest = [x for x in extras if x not in (ended, out)]
        over = f"round {n} over"  # the notices' title: the top line is theirs alone
        if out and sorted(gone) == sorted(losers):  # "Ann, Bob lose 2 lives: out"
            both = _notices(over, [f"{named}: out"], [])
            if not overflow(both[0]):
                return screen, _notices(over, [x for x in (ended, both[0].text) if x], rest)
        return screen, _notices(over, [x for x in (ended, named, out) if x], rest)

    # -- mythical: bids and dice entered with the buttons (MY-1..MY-9) ---------

    def _mythical_chooser(self) -> Referee:
        """The entry the game waits for: the next player's bid (MY-3), or the kind of
        die the player to roll rolled and then its face (MY-1, MY-4), as the view says."""
        game = self.game
        assert game is not None
        view = game.view()
        allowed = game.allowed
        if EventKind.BIDS in allowed:
            names = game.header.names
            bids = self.bids[: len(names) - 1]
            return replace(self, bids=bids, die="", chooser=_bid_chooser(view, names[len(bids)]))
        if EventKind.ROLL not in allowed:
            return self
        kinds = _kinds_left(view)
        if self.die and self.die in kinds:
            return replace(self, chooser=_face_chooser(game, self.die))
        return replace(self, die="", chooser=_die_chooser(game))

    def _step_back(self, chooser: Chooser) -> tuple[Referee, Output]:
        """STOP in a mythical entry: back one step (the previous player's bid, or from
        the face back to the kind of die); what is logged stays."""
        if chooser.purpose is Purpose.FACE:
            ref = replace(self, die="", chooser=None)._auto_chooser()
            if ref.chooser is None:
                return ref._current()
            back = ref.chooser
            if self.die in back.values:
                back = replace(back, index=back.values.index(self.die))
            return replace(ref, chooser=back)._show(back.screen())
        if chooser.purpose is Purpose.BID and self.bids:
            previous = self.bids[-1]
            ref = replace(self, bids=self.bids[:-1], chooser=None)._auto_chooser()
            if ref.chooser is None:
                return ref._current()
            back = ref.chooser
            if str(previous) in back.values:
                back = replace(back, index=back.values.index(str(previous)))
            return replace(ref, chooser=back)._show(back.screen())
        if chooser.purpose is Purpose.BID:
            return self._show(chooser.screen("first bid: HOLD, ROLL"))
        view = self.game.view() if self.game is not None else {}
        turn = view.get("turn")
        if isinstance(turn, Mapping) and turn.get("trick") == 1 and not view.get("trick"):
            return self._show(chooser.screen("the bids stay"))  # no die rolled this round
        return self._show(chooser.screen("rolled dice stay"))

    def _enter_bid(self, bid: int) -> tuple[Referee, Output]:
        game = self.game
        assert game is not None
        names = game.header.names
        bids = self.bids + (bid,)
        if len(bids) < len(names):
            ref = replace(self, bids=bids, chooser=None)._auto_chooser()
            return ref._current()
        event = Bids(tuple(zip(names, bids, strict=True)))
        return replace(self, bids=())._enter(event)

    def _enter_die(self, die: str) -> tuple[Referee, Output]:
        game = self.game
        assert game is not None
        ref = replace(self, die=die, chooser=_face_chooser(game, die))
        assert ref.chooser is not None
        return ref._show(ref.chooser.screen())

    def _enter_face(self, index: int) -> tuple[Referee, Output]:
        game = self.game
        assert game is not None
        faces = _faces(game, self.die)
        if not 0 <= index < len(faces):
            return replace(self, die="")._current()
        return replace(self, die="")._enter(Roll(self.die, faces[index]))

    def _enter(self, event: Bids | Roll) -> tuple[Referee, Output]:
        """A whole entry: one event. A refusal is shown and not logged: what was entered
        is not what happened at the table, and is entered again."""
        game = self.game
        assert game is not None
        after, refused = game.apply(event)
        if refused is not None:
            ref = replace(self, chooser=None)._auto_chooser()
            again = "any button: bids again" if isinstance(event, Bids) else "any button: again"
            reason = refused.reason.removeprefix(f"{game.header.rules}: ")
            screen = _fitting(Refusal(reason, again, "refused"), Refusal(reason, "", "refused"))
            return replace(ref, dismiss=True)._show(screen)
        ref = replace(self, game=after, chooser=None)
        view, was = after.view(), game.view()
        # One notice a press: who took the trick (MY-5, MY-6), the last trick of a
        # round too; then the round's scores (MY-7, MY-8); then the game's end (MY-9),
        # or the next round's first screen with the totals and who leads (MY-2).
        notices = _mythical_news(was, view)
        round_over = view.get("last_round") != was.get("last_round")
        if after.is_over:
            ref, out = ref._game_over(after, (event,))
            return ref._notices_first(notices, out)
        ref = ref._auto_chooser()
        if round_over:
            notices.append(_mythical_turn(after))
        if notices:
            ref = replace(ref, dismiss=True, queued=tuple(notices[1:]))
            return ref._show(notices[0], log=(event,))
        return ref._show(ref.chooser.screen() if ref.chooser else ref._turn_screen(), log=(event,))

    # -- CPU players -------------------------------------------------------

    def _cpu_step(self) -> tuple[Referee, Output]:
        """ROLL on a CPU player's turn: the CPU's next decision or software throw."""
        game = self.game
        assert game is not None
        event = _cpu_event(game) or _cpu_fallback(game)
        if self.cpu_dice_by_hand and isinstance(event, Throw):
            me = _player(game)
            ref = replace(self, cpu_roll=True)
            if game.view().get("held") is not None:  # MN-5: that die stays lying
                return ref._show(ref._turn(me, f"{me} throws", ref._hint()))
            what = "one die" if len(event.dice) == 1 else "the dice"
            return ref._show(ref._turn(me, f"{me} throws", f"roll {what}, then ROLL"))
        if self.cpu_dice_by_hand and isinstance(event, Hold):
            return self._do_hold(event.value)  # the die read last stays where it lies
        before = game
        after, refused = game.apply(event)
        if refused is not None:
            return replace(self, game=after)._refused(refused, (event,))
        thrown = event.dice if isinstance(event, Throw) else ()
        ref = replace(self, game=after, table=(), held=None)
        note = _cpu_note(before, after, event)
        return ref._after_event(before, (event,), thrown=thrown, note=note)

    def _run_cpus(self, log: tuple[Event, ...]) -> tuple[Referee, tuple[Event, ...], str]:
        """CPU decisions off their turn (mex: end the round, tie-break count), at once."""
        ref, notes = self, []
        for _ in range(8):
            game = ref.game
            if game is None or game.is_over or _is_cpu(game):
                break
            event = _cpu_event(game)
            if event is None:
                break
            # off its turn a CPU ends the round (MX-7) or chooses the count (MX-9)
            who = _tiebreak_last(game) if isinstance(event, Count) else "CPU"
            after, refused = game.apply(event)
            log += (event,)
            ref = replace(ref, game=after)
            if refused is not None:
                notes.append(refused.reason)
            elif isinstance(event, EndRound):
                notes.append(_end_note(after))
            else:
                notes.append(_describe(event, who))
        return ref, log, "; ".join(n for n in notes if n)


# ---------------------------------------------------------------------------
# Pure helpers


def _mix(*parts: int) -> int:
    data = ":".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big")


def _cpu_fallback(game: Game) -> Event:
    """If a CPU strategy fails: it throws software dice, gives to the next player, or stands."""
    allowed = game.allowed
    if EventKind.THROW in allowed:
        dice = cpu_players.roll_dice(game.header.seed or 0, game.accepted)
        try:
            return cpu_players.throw_event(game.header.rules, game.state, dice)
        except Exception:  # no strategy for these rules: both dice, as rolled
            return Throw(dice)
    if EventKind.GIVE in allowed:
        me = _player(game)
        return Give(next(p.name for p in game.header.players if p.name != me))
    return Stand()


def _describe(event: Event, who: str) -> str:
    if isinstance(event, Stand):
        return f"{who} stands"
    if isinstance(event, EndRound):
        return f"{who} ends the round"
    if isinstance(event, Hold):
        return f"{who} leaves the {event.value}"
    if isinstance(event, Give):
        return f"{who} gives to {event.to}"
    if isinstance(event, Count):
        return f"{who} counts {event.mode}"
    if isinstance(event, Throw):
        return f"{who} threw " + "".join(map(str, event.dice))
    return f"{who}: {event.kind.value}"


def _throw_news(
    was: Mapping[str, Any], now: Mapping[str, Any], thrown: tuple[int, ...] = ()
) -> str:
    """What the throw ``thrown`` did to the pirate and the pot (mexen MN-7, MN-8, MN-12),
    read from the game's view before and after it: "P1 is the pirate", "pirate P1 now
    x2", "pirate P1 takes 2", "pot +3 = 4", "pot x2 = 8"; parts by importance, "" for
    nothing. Only Mex and 65 double the pot (MN-12): a double adds, though 11 on a pot
    of 1 (or 22 on 2) makes it twice as big too."""
    if "pot" not in now:  # not mexen
        return ""
    parts: list[str] = []
    pirate_was, pirate = was.get("pirate"), now.get("pirate")
    name = pirate.get("name") if isinstance(pirate, Mapping) else None
    if isinstance(pirate, Mapping):
        if not isinstance(pirate_was, Mapping) or pirate_was.get("name") != name:
            parts.append(_whole_or(f"{name} is the pirate", "the new pirate"))
        elif pirate.get("multiplier", 0) > pirate_was.get("multiplier", 0):
            times = f"x{pirate.get('multiplier')}"
            parts.append(_whole_or(f"pirate {name} now {times}", f"pirate now {times}"))
    # A throw that ends the round also hands the pot out (MN-9): that is the round's news.
    last = now.get("last_round")
    scored = last if isinstance(last, Mapping) and last != was.get("last_round") else None
    pot_taker = [str(x) for x in scored.get("losers", [])] if scored else []
    loss = scored.get("loss", 0) if scored else 0
    counts_was, counts = dict(_standings(was)), dict(_standings(now))
    for who, count in counts.items():
        try:
            took = int(count) - int(counts_was.get(who, count))
        except ValueError:
            continue
        took -= loss if who in pot_taker else 0
        if took > 0:
            full = f"{'pirate ' if who == name else ''}{who} takes {took}"
            parts.append(_whole_or(full, f"pirate takes {took}") if who == name else full)
    pot_was, pot = was.get("pot"), scored.get("loss") if scored else now.get("pot")
    if isinstance(pot_was, int) and isinstance(pot, int) and pot > pot_was:
        doubling = len(thrown) == 2 and sorted(thrown) in ([1, 2], [5, 6])
        grew = "x2" if doubling and pot == 2 * pot_was else f"+{pot - pot_was}"
        parts.append(f"pot {grew} = {pot}")
    return "  ".join(parts)


def _whole_or(full: str, short: str) -> str:
    """``full`` if a throw's note line shows it whole, else ``short``: a long name must not
    push out what the part says ("pirate Mohammed Ali tak.."); the name is the one on
    the throw's screen or the standings'."""
    return full if not overflow(Result("", "0", note=full)) else short


def _cpu_note(before: Game, after: Game, event: Event) -> str:
    """What a CPU's step ``event`` says beside its screen: nothing for its throw (the
    throw is shown), "CPU2 ends the round", its give, else "CPU2 stands" and the like."""
    if isinstance(event, Throw):
        return ""
    if isinstance(event, EndRound):
        return _end_note(after)
    if isinstance(event, Give):
        return _give_note(before, after, event)
    # a count is the tie-break's last player's, whoever is on turn (MX-9)
    who = _tiebreak_last(before) if isinstance(event, Count) else _player(before)
    return _describe(event, who)


def _end_note(game: Game) -> str:
    """ "P2 ends the round" (MX-7) while the round it ended is still on (a tie-break among
    the others); "" once it is scored: the round's screen says who ended it."""
    state = game.state
    if isinstance(state, MexState) and state.ender is not None and not game.is_over:
        return f"{state.config.names[state.ender]} ends the round"
    return ""


def _give_note(before: Game, after: Game, event: Give) -> str:
    """ "Ann gives 1 point to Bob" (MN-6): what the give added to the receiver's count."""
    rows_before, rows_after = dict(_standings(before.view())), dict(_standings(after.view()))
    try:
        given = int(rows_after[event.to]) - int(rows_before[event.to])
    except (KeyError, ValueError):
        return f"{_player(before)} gives to {event.to}"
    counted = _counted(given, after.view())
    # the receiver's name whole: the giver's turn screen says whose give it was
    full, short = f"{_player(before)} gives {counted} to {event.to}", f"{counted} to {event.to}"
    return full if not overflow(Turn("", full, "")) else short


def _points_rows(
    headline: str, names: tuple[str, ...], points: Mapping[Any, Any]
) -> tuple[tuple[str, str], ...]:
    """A mex game end's standings, each name with its round points (MX-10): "15 pts",
    else "15p", else "15" where the longer words would cut a name ("CPU.. 15 pts":
    whose points?). Names too long to be shown whole at all keep the words: bare
    numbers then only lost the "pts" that tells points from lives."""
    said: tuple[Callable[[object], str], ...] = (_pts, lambda v: f"{v}p", str)
    ends = [GameEnd(headline, tuple((n, s(points.get(n, ""))) for n in names)) for s in said]
    least = set(overflow(ends[-1]))  # what is cut even with the shortest words
    return next(e for e in ends if set(overflow(e)) <= least).standings


def _pts(points: object) -> str:
    """ "6 pts", "1 pt", "-1 pt": a mex player's round points (MX-10)."""
    return f"{points} pt" if points in (1, -1) else f"{points} pts"


def _counted(n: int, view: Mapping[str, Any]) -> str:
    """ "1 point", "3 sips": ``n`` in the game's stake (MN-1, MN-11)."""
    stake = str(view.get("stake", "points"))
    return f"{n} {stake if n != 1 else stake.rstrip('s')}"


def _player(game: Game | None) -> str:
    if game is None:
        return ""
    turn = game.turn
    return turn.player if turn is not None and turn.player else ""


def _is_cpu(game: Game) -> bool:
    return _seat_is_cpu(game, _player(game))


def _seat_is_cpu(game: Game, name: str) -> bool:
    return any(p.name == name and p.cpu is not None for p in game.header.players)


def _round_ender(game: Game) -> str:
    """MX-7: who an ``end_round`` now makes the round's ender: the player on turn once
    they have thrown (a), else the player who threw last (b); before anyone threw, the
    player on turn."""
    return _threw_last(game) or _player(game)


def _threw_last(game: Game) -> str | None:
    """The player who threw last in this round: the one on turn once they have thrown,
    else the last to throw in a tie-break, else the last to finish a turn (mex and
    mexico's ``kept``, mexen's ``scores``); None before the round's first throw."""
    turn = game.turn
    if turn is not None and turn.throw > 0:
        return _player(game)
    view = game.view()
    tiebreak = _tiebreak(view) or {}
    thrown = tiebreak.get("thrown") or tiebreak.get("dice")  # mex, mexen (MX-8, MN-10)
    if isinstance(thrown, list) and thrown and isinstance(thrown[-1], Mapping):
        return str(thrown[-1].get("name", ""))
    done = view.get("kept") or view.get("scores")
    if isinstance(done, list) and done and isinstance(done[-1], Mapping):
        return str(done[-1].get("name", ""))
    return None


def _tiebreak_last(game: Game) -> str:
    """MX-9: the tie-break's last player, who chooses its counting ("" if none)."""
    players = (_tiebreak(game.view()) or {}).get("players")
    return str(players[-1]) if isinstance(players, list) and players else ""


def _reading_text(game: Game | None) -> str:
    return "reading the die..." if game is not None and _dice_wanted(game) == 1 else "reading..."


def _dice_wanted(game: Game) -> int:
    """Two dice, or one in a mexen tie-break (MN-10)."""
    if game.header.rules == "mexen" and game.view().get("phase") == "tiebreak":
        return 1
    return 2


def _out_of_the_ordinary(game: Game) -> bool:
    """A tie-break, or a turn of fewer throws than the game's usual (the round's first
    player stood early, MX-4, MC-2; an early Mex, MN-4): what a turn's header tells."""
    turn = game.turn
    if turn is None:
        return False
    if game.view().get("phase") == "tiebreak":
        return True
    usual = game.header.options.get("max_throws") or 3
    return isinstance(usual, int) and turn.max_throws < usual


def _asks_end(press: ButtonPress) -> bool:
    """A very long STOP: the end-game menu (E-1)."""
    return press.button is Button.STOP and press.press is Press.VERY_LONG


def _throw_text(game: Game) -> str:
    turn = game.turn
    if turn is None:
        return ""
    if game.view().get("phase") == "tiebreak":
        return "tie-break"
    return f"throw {min(turn.throw + 1, max(1, turn.max_throws))}/{turn.max_throws}"


def _cannot_resume(why: str) -> Message:
    return Message("cannot resume", why, "any button: menu")


def _kept_now(game: Game) -> str:
    """The throw the current player has this turn, as shown (R-3); "" before their first.
    A turn screen shown again after a notice or a power cut says it, as the throw's own
    screen did."""
    rules, view = game.header.rules, game.view()
    turn = view.get("turn")
    if not isinstance(turn, Mapping) or not turn.get("throw"):
        return ""
    if rules == "mexen":
        # The dice lying may be a 31, which never counts (MN-6): the turn's latest
        # counted throw is the state's own.
        state = game.state
        last = state.last if isinstance(state, MexenState) else None
        dice = (last.high, last.low) if isinstance(last, Pair) else ()
    else:  # mexico names the pair ("21"), mex shows it already ("MEX", "600")
        name = view.get("pair")
        if not isinstance(name, str) or not name:
            return ""
        if not (len(name) == 2 and name.isdigit()):
            return "MEX!" if name == "MEX" else name
        dice = (int(name[0]), int(name[1]))
    if len(dice) != 2 or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
        return ""
    return _shown(rules, dice)


def _shown(rules: str, dice: tuple[int, ...], pips: bool = False) -> str:
    """R-3: "MEX!" for 21; doubles as hundreds except in mexico; one die as itself;
    the sum in a mex tie-break counted in pips (MX-9: "3 pips", no Mex)."""
    if len(dice) != 2:
        return " ".join(str(d) for d in dice)
    if pips:
        return f"{dice[0] + dice[1]} pips"
    pair = Pair.of(dice[0], dice[1])
    text = pair.shown(doubles_as_hundreds=rules != "mexico")
    return "MEX!" if text == "MEX" else text


def _standings(view: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    rows: list[tuple[str, str]] = []
    for p in view.get("players", []):
        if not isinstance(p, Mapping):
            continue
        name = str(p.get("name", "?"))
        # lives (0 is out: MX-6, MC-4), or mexen's points/sips
        value = str(p["lives"]) if "lives" in p else str(p.get("points", p.get("sips", "")))
        rows.append((name, value))
    return tuple(rows)


def _in_game(view: Mapping[str, Any]) -> list[str]:
    return [
        str(p.get("name"))
        for p in view.get("players", [])
        if isinstance(p, Mapping) and not p.get("out")
    ]


def _last_round_text(view: Mapping[str, Any], rules: str) -> str:
    """ "P2 lost 2" / "P1 took 4 points": the last round, for the game-end screen
    (mythical: "after 8 rounds", or the round an early end stopped in, E-1)."""
    last = view.get("last_round")
    if rules == "mythical":
        played = last.get("round") if isinstance(last, Mapping) else 0
        if played == view.get("rounds"):
            return f"after {played} round{'s' if played != 1 else ''}"
        return f"ended in round {view.get('round')}"
    if not isinstance(last, Mapping):
        return ""
    names = [str(x) for x in last.get("losers", [])]
    seated = [str(p.get("name")) for p in view.get("players", []) if isinstance(p, Mapping)]
    if len(names) > 1 and sorted(names) == sorted(seated):
        losers = "all"  # as the round's end says it ("all lose 2 lives")
    else:
        losers = ", ".join(names) or "nobody"
    if rules == "mexen":
        return f"last round: {losers} took {last.get('loss', 0)}"
    return f"last round: {losers} lost {last.get('loss', 0)}"


def _press_name(press: ButtonPress) -> str:
    name = "ROLL" if press.button is Button.ROLL else press.button.value.upper()
    if press.press is Press.LONG:
        return f"long {name}"
    if press.press is Press.VERY_LONG:
        return f"very long {name}"
    return name


def _tiebreak(view: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The tie-break in progress (its view), or None."""
    tiebreak = view.get("tiebreak")
    if view.get("phase") != "tiebreak" or not isinstance(tiebreak, Mapping):
        return None
    return tiebreak


def _counts_pips(view: Mapping[str, Any]) -> bool:
    """A mex tie-break in progress is counted in pips (MX-9)."""
    tiebreak = _tiebreak(view)
    return tiebreak is not None and tiebreak.get("count") == "pips"


def _tiebreak_thrown(view: Mapping[str, Any]) -> int:
    """How many have thrown in the tie-break's pass in progress (mex ``thrown``, mexen
    ``dice``); 0 when none is, or when one has just started again."""
    tiebreak = _tiebreak(view) or {}
    thrown = tiebreak.get("thrown", tiebreak.get("dice"))
    return len(thrown) if isinstance(thrown, list) else 0


def _lowest_kept(kept: object, pips: bool = False) -> tuple[str, str] | None:
    """(name, shown value) of the lowest of ``kept`` (a view's ``[{name, pair}]``): by
    R-2, or by the sum of the pips in a tie-break counted so (MX-9)."""
    best: tuple[int, str, str] | None = None
    for k in kept if isinstance(kept, list) else []:
        if not isinstance(k, Mapping):
            continue
        shown = str(k.get("pair", ""))
        pair = _pair_of_shown(shown)
        if pair is None:
            continue
        rank = pair.pips if pips else pair.rank
        if pips:
            shown = f"{pair.pips} pips"
        if best is None or rank < best[0]:
            best = (rank, str(k.get("name", "")), shown)
    return None if best is None else (best[1], best[2])


def _pair_of_shown(shown: str) -> Pair | None:
    """The pair shown as "MEX", "400" (R-3 hundreds) or a name like "63"."""
    if shown.upper().startswith("MEX"):
        return Pair(2, 1)
    if not shown.isdigit():
        return None
    n = int(shown)
    if n >= 100 and n % 100 == 0:
        n = n // 100 * 11
    try:
        return Pair.of(n // 10, n % 10)
    except ValueError:
        return None


def _lives(view: Mapping[str, Any], name: str) -> int | None:
    for p in view.get("players", []):
        if isinstance(p, Mapping) and p.get("name") == name and isinstance(p.get("lives"), int):
            lives: int = p["lives"]
            return lives
    return None


def _rest(chooser: Chooser) -> tuple[str, int, int, str]:
    return chooser.labels[chooser.index], chooser.index, len(chooser.labels), "HOLD next  ROLL ok"


def _unthrown(
    before: tuple[DieReading, ...], now: tuple[DieReading, ...], any_face: bool = False
) -> list[DieReading]:
    """The dice of ``now`` that are dice of ``before`` lying as they lay: each within
    ``UNROLLED_TOLERANCE`` of its size of where one of them was, showing its face (any
    face, if ``any_face``: a die of a reading not counted may have had none, or been
    nudged onto another). Each die of ``before`` is matched once, by the nearest."""
    left = list(before)
    lying: list[DieReading] = []
    for d in now:
        same = [b for b in left if (any_face or b.value == d.value) and _lies_at(d, b)]
        if same:
            left.remove(min(same, key=lambda b: math.dist(b.center, d.center)))
            lying.append(d)
    return lying


def _lies_at(d: DieReading, b: DieReading) -> bool:
    """Whether ``d`` lies where ``b`` lay: within ``UNROLLED_TOLERANCE`` of its size."""
    return math.dist(b.center, d.center) <= UNROLLED_TOLERANCE * _spot(b).size


def _unrolled(before: tuple[DieReading, ...], now: tuple[DieReading, ...]) -> bool:
    """Whether ``now`` are the dice ``before`` lying as they lay: as many or fewer (one
    of a two-dice throw left for a one-die tie-break, MN-10), each showing the face of
    one of them within ``UNROLLED_TOLERANCE`` of its size of where it was. A die left
    lying (MN-5) may be among them; the thrown one must have moved."""
    if not before or not now or len(now) > len(before):
        return False
    return len(_unthrown(before, now)) == len(now)


def _at_a_spot(d: DieReading, held: HeldDie) -> bool:
    """Whether ``d`` lies where the held die may lie: within ``HOLD_TOLERANCE`` of its
    size of one of its spots."""
    return any(math.dist(d.center, (s.x, s.y)) <= HOLD_TOLERANCE * s.size for s in held.spots)


def _near_spot(d: DieReading, held: HeldDie) -> bool:
    """Whether ``d`` may be the held die: its value, at one of its spots (any place when
    it has none)."""
    return d.value == held.value and (not held.spots or _at_a_spot(d, held))


def _left_unthrown(
    before: tuple[DieReading, ...],
    now: tuple[DieReading, ...],
    held: HeldDie | None,
    any_face: bool = False,
) -> bool:
    """Whether a die of ``now`` lies as it lay in ``before`` besides the one die left
    lying (``held``, MN-5: of its value, at one of its spots if it has any; one set by
    hand to a CPU's software throw may be any die turned to its value, where it lay): a
    die that was to be thrown was not. Counted, such a throw kept one die in mexico
    (MC-2 forbids it), held a die in mexen without a HOLD (which the rules would then let
    lie for another throw), or let a held die lie a second time. ``any_face``: where
    the readings not counted since saw dice, whatever either reads (``_unthrown``)."""
    lying = _unthrown(before, now, any_face)
    if held is not None:
        for d in lying:
            if _near_spot(d, held):
                lying.remove(d)
                break
    return bool(lying)


def _refused_since(
    before: tuple[DieReading, ...], now: tuple[DieReading, ...]
) -> tuple[DieReading, ...]:
    """Where the readings not counted since the last throw saw dice: ``now``'s dice, and
    the dice of ``before`` that had no value where ``now`` saw none (a die too tilted or
    unclear to read may be missed again, and lie there still). A die read before would
    be seen again where it lay: not seen, it was moved.

    A reading with no dice at all tells nothing of where they lie: a frame too dark, too
    bright or blurred (a lamp switched off a moment, a shadow) finds none wherever they
    are. It forgot every place, and a die never thrown again was then counted. Such a
    reading keeps ``before``; so does an empty tray ("no dice seen"), whose dice, thrown
    again, fall elsewhere (one falling where a die lay is a re-roll, not a wrong count)."""
    if not now:
        return before
    kept = (b for b in before if b.value is None and not any(_lies_at(d, b) for d in now))
    return (*now, *kept)


def _held_problem(held: HeldDie, dice: tuple[DieReading, ...]) -> str:
    """Why the reading breaks the hold (the held die moved or turned), or ""."""
    near = [d for d in dice if _at_a_spot(d, held)]
    if any(d.value == held.value for d in near):
        return ""
    if near:
        return f"the held {held.value} was turned"
    return f"the held {held.value} was moved"


def _menu_steps(draft: Settings) -> tuple[MenuStep, ...]:
    steps = [
        MenuStep("rules", "rules", tuple(MENU_RULES), tuple(MENU_RULES)),
    ]
    low, high = _seat_range(draft.rules)
    counts = tuple(range(low, high + 1))
    steps.append(MenuStep("players", "players", counts, tuple(f"{n} players" for n in counts)))
    if _has_cpu_players(draft.rules):
        cpus = tuple(range(0, draft.players))
        labels = tuple("no CPU" if n == 0 else f"{n} CPU" for n in cpus)
        steps.append(MenuStep("cpus", "of them CPU", cpus, labels))
    # each strength under the name its seat will have (a CPU named in the config, or
    # CPU2 when a person is called CPU1), not the CPU's place among them
    cpu_seats = seat_players(draft)[draft.players - len(draft.cpus) :]
    for i, seat in enumerate(cpu_seats):
        levels = tuple(CPU_LEVELS)
        steps.append(MenuStep(f"cpu:{i}", f"{seat.name} strength", levels, levels))
    for spec in get_rules(draft.rules).options:
        values = _option_values(spec, draft.option(spec.name))
        # only values a game can start with, with the seats and the other options chosen
        others = {n: v for n, v in draft.options if n != spec.name}
        values = tuple(v for v in values if _can_start(draft, {**others, spec.name: v})) or values
        title = spec.name.replace("_", " ")
        labels = tuple(_value_label(v, spec) for v in values)
        steps.append(MenuStep(f"opt:{spec.name}", title, values, labels))
    steps.append(MenuStep("start", "start game", ("start",), ("start",)))
    return tuple(steps)


def _current_value(step: MenuStep, draft: Settings) -> object:
    if step.key == "rules":
        return draft.rules
    if step.key == "players":
        return draft.players
    if step.key == "cpus":
        return len(draft.cpus)
    if step.key.startswith("cpu:"):
        i = int(step.key[4:])
        return draft.cpus[i] if i < len(draft.cpus) else "normal"
    if step.key.startswith("opt:"):
        name = step.key[4:]
        opts = dict(draft.options)
        if name in opts:
            return opts[name]
        spec = next(s for s in get_rules(draft.rules).options if s.name == name)
        return spec.default
    return None


def _current_index(step: MenuStep, draft: Settings) -> int:
    value = _current_value(step, draft)
    for i, v in enumerate(step.values):
        if v == value and type(v) is type(value):
            return i
    return 0


def _choose(draft: Settings, step: MenuStep, value: object) -> Settings:
    if step.key == "rules":
        return normalize(replace(draft, rules=str(value)))
    if step.key == "players":
        assert isinstance(value, int)
        return normalize(replace(draft, players=value))
    if step.key == "cpus":
        assert isinstance(value, int)
        cpus = list(draft.cpus[:value]) + ["normal"] * max(0, value - len(draft.cpus))
        return normalize(replace(draft, cpus=tuple(cpus)))
    if step.key.startswith("cpu:"):
        i = int(step.key[4:])
        cpus = list(draft.cpus)
        if i < len(cpus):
            cpus[i] = str(value)
        return normalize(replace(draft, cpus=tuple(cpus)))
    if step.key.startswith("opt:"):
        name = step.key[4:]
        opts = [(n, v) for n, v in draft.options if n != name] + [(name, value)]
        return normalize(replace(draft, options=tuple(opts)))
    return draft


def _summary(s: Settings) -> str:
    cpu = f" {len(s.cpus)}cpu" if s.cpus else ""
    return f"{s.rules} {s.players}P{cpu}"


# ---------------------------------------------------------------------------
# mythical (MY-1..MY-9): what its entries offer and its screens, read from the view


def _is_mythical(game: Game | None) -> bool:
    return game is not None and isinstance(game.state, MythicalState)


def _notices(title: str, must: list[str], rest: list[str]) -> tuple[Message, ...]:
    """``must``'s parts said whole in as few notices as they fit, in order (a part too
    long for a notice of its own gets one, cut), then as many of ``rest`` as the last
    one has room for."""
    go_on = "any button: go on"

    def notice(parts: list[str]) -> Message:
        return Message(title, "; ".join(parts), go_on)

    groups: list[list[str]] = []
    for part in must:
        if groups and not overflow(notice([*groups[-1], part])):
            groups[-1].append(part)
        else:
            groups.append([part])
    for part in rest:
        if groups and not overflow(notice([*groups[-1], part])):
            groups[-1].append(part)
    return tuple(notice(g) for g in groups)


def _fitting(*screens: Screen) -> Screen:
    """The first of ``screens`` (richest first) that the display shows uncut, else the last."""
    return next((s for s in screens if not overflow(s)), screens[-1])


def _detail_whole(end: GameEnd, *richer: str) -> GameEnd:
    """``end`` with its last round's line whole: the first of ``richer`` lines that fits,
    else its own, shortened ("last round: " goes) or left out rather than cut, which cut
    off the loss ("last round: Maximilian los..")."""
    for detail in (*richer, end.detail, end.detail.removeprefix("last round: ")):
        shorter = replace(end, detail=detail)
        if detail not in overflow(shorter):
            return shorter
    return replace(end, detail="")


def _lost_line(
    *lines: str,
    who: str = "",
    line: Callable[[str], str] | None = None,
    names: Sequence[str] = (),
) -> str:
    """The first of ``lines`` that a round end shows uncut; else, given them, ``line`` of
    the names ``who`` (whole if it fits, else cut short enough for the rest to show:
    ``_names_cut``); else the last of ``lines``."""
    fits = next((t for t in lines if not overflow(RoundEnd("", t, ()))), None)
    if fits is not None:
        return fits
    if line is not None:
        return _names_cut(who, line, lambda t: not overflow(RoundEnd("", t, ())), names)
    return lines[-1]


def _names_cut(
    who: str, line: Callable[[str], str], fits: Callable[[str], bool], names: Sequence[str] = ()
) -> str:
    """``line(who)`` with ``who`` cut ("Alexander Sch..") as little as lets ``fits`` pass,
    so what follows the names (the loss, "wins!") is never the part cut off; ``line(who)``
    whole if even one letter is too many. A player's name that such a cut would leave
    alike to another of ``names`` ("Wilhel.." for Wilhelma and Wilhelmo) keeps the
    letters it differs by ("Wilhe..a")."""
    if fits(line(who)):
        return line(who)
    # A line is at most a few dozen letters wide: no need to try the rest of a long name.
    for n in range(min(len(who), 40) - 1, 0, -1):
        cut = who[:n].rstrip() + ".."
        if fits(line(cut)):
            apart = cut_apart(who, cut, names, lambda t: fits(line(t))) if who in names else None
            return line(cut if apart is None else apart)
    return line(who)


def _named_title(
    titles: Sequence[str],
    who: str,
    line: Callable[[str], str],
    names: Sequence[str],
    last: str,
) -> str:
    """The first of ``titles`` that a chooser's title band shows uncut; else ``line`` of
    the player ``who`` with the name cut as little as fits ("Ærøskø..'s minotaur": whose
    die it is stays said); else ``last``."""

    def fits(title: str) -> bool:
        return not overflow(Choose(title, ""))

    whole = next((t for t in titles if fits(t)), None)
    if whole is not None:
        return whole
    named = _names_cut(who, line, fits, names)
    return named if fits(named) else last


def _beside(hint: str, *titles: str) -> str:
    """The first of ``titles`` that fits a round end's top line beside ``hint``, else the last."""
    return next((t for t in titles if not overflow(RoundEnd(t, "", (), "", hint))), titles[-1])


def _mythical_where(game: Game) -> str:
    """ "round 2 of 3, bids" / "round 2 trick 1, Bob rolls": where the game stands."""
    view = game.view()
    turn = view.get("turn")
    where = f"round {view.get('round', 1)} of {view.get('rounds', '?')}"
    if not isinstance(turn, Mapping):
        return where
    if turn.get("phase") == "bids":
        return f"{where}, bids"
    return f"round {view.get('round', 1)} trick {turn.get('trick')}, {turn.get('player')} rolls"


def _bid_chooser(view: Mapping[str, Any], name: str) -> Chooser:
    """MY-3: ``name``'s bid for this round, 0 to r tricks."""
    r = int(view.get("round", 1))
    values = tuple(str(b) for b in range(r + 1))
    names = [str(p.get("name")) for p in view.get("players", []) if isinstance(p, Mapping)]
    titles = (f"{name}'s bid, round {r}", f"{name}'s bid, r{r}")
    title = _named_title(titles, name, lambda w: f"{w}'s bid", names, f"{name}'s bid")
    return Chooser(Purpose.BID, title, values, values)


def _kinds_left(view: Mapping[str, Any]) -> tuple[str, ...]:
    """MY-1: the kinds of die the bag still has this round, in the bag's order."""
    left = view.get("dice_left")
    if not isinstance(left, Mapping):
        return ()
    return tuple(str(k) for k, n in left.items() if isinstance(n, int) and n > 0)


def _die_chooser(game: Game) -> Chooser:
    """MY-4: the player to roll says which kind of die they rolled."""
    view = game.view()
    turn = view.get("turn")
    trick = turn.get("trick") if isinstance(turn, Mapping) else "?"
    who = _player(game)
    kinds = _kinds_left(view)
    names = game.header.names
    titles = (f"{who}'s die, trick {trick}", f"{who}'s die")
    title = _named_title(titles, who, lambda w: f"{w}'s die", names, f"{who}'s die")
    return Chooser(Purpose.DIE, title, kinds, kinds, note=_bid_and_taken(view, who))


def _faces(game: Game, die: str) -> tuple[Face, ...]:
    """The distinct faces of a kind of die in the rules' bag (MY-1)."""
    rules = game.rules
    kind = rules.bag.get(die) if isinstance(rules, MythicalRules) else None
    return kind.distinct_faces if kind is not None else ()


def _face_chooser(game: Game, die: str) -> Chooser:
    """The face on top of the ``die`` the player to roll rolled."""
    who = _player(game)
    labels = tuple(str(f) for f in _faces(game, die))
    names = game.header.names
    title = _named_title(
        (f"{who}'s {die}: on top?", f"{who}'s {die}"),
        who,
        lambda w: f"{w}'s {die}",
        names,
        f"{die}: on top?",
    )
    return Chooser(Purpose.FACE, title, labels, labels, note=_bid_and_taken(game.view(), who))


def _bid_and_taken(view: Mapping[str, Any], who: str) -> str:
    """ "bid 2  took 1": the player to roll's bid this round and the tricks they have
    taken so far (MY-3, MY-7), or "" if the view has neither."""
    bids, taken = view.get("bids"), view.get("tricks_won")
    if not isinstance(bids, Mapping) or not isinstance(taken, Mapping):
        return ""
    if who not in bids or who not in taken:
        return ""
    return f"bid {bids[who]}  took {taken[who]}"


def _rolled(roll: object) -> str:
    """A rolled die as said: "red 7", "grey flag", "mermaid" (a creature on its own die)."""
    if not isinstance(roll, Mapping):
        return ""
    die, face = str(roll.get("die", "")), str(roll.get("face", ""))
    return die if face == die else f"{die} {face}"


def _mythical_turn(game: Game) -> Screen:
    """The screen that opens a round (its bids: who leads, everyone's total so far) or
    names the player to roll."""
    view = game.view()
    turn = view.get("turn")
    if not isinstance(turn, Mapping):
        turn = {}
    r, rounds = view.get("round", 1), view.get("rounds", "?")
    rows = _standings(view)
    if turn.get("phase") == "bids" and r == 1:
        header = f"round {r} of {rounds}: bids"
        leads = f"{view.get('leader')} leads"
        return _fitting_turn(
            Turn("bids", header, "any button: enter", leads, None, rows),
            Turn("bids", f"round {r}: bids", "any button: enter", "", None, rows),
        )
    if turn.get("phase") == "bids":
        # laid out as a round's end: a turn screen's foot line had room for who leads or
        # the totals so far, not both, and the totals went (MY-2, MY-7)
        leads = f"{view.get('leader')} leads"
        # the first whose title, hint and leader are drawn whole: six long names are cut
        # in the standings whatever the top line says
        tries = [
            RoundEnd(title, leads, rows, "", hint)
            for title in (f"round {r} of {rounds}: bids", f"round {r}: bids", f"round {r}")
            for hint in ("any button: enter", "any button")
        ]
        return next(
            (s for s in tries if {s.title, s.lost, s.hint} <= set(shown_whole(s))), tries[-1]
        )
    player = str(turn.get("player") or "")
    header = f"round {r} trick {turn.get('trick')}"
    return _fitting_turn(Turn(player, header, "HOLD next  ROLL ok", "", None, rows))


def _fitting_turn(*turns: Turn) -> Turn:
    fitted = _fitting(*turns)
    assert isinstance(fitted, Turn)
    return fitted


def _mythical_news(was: Mapping[str, Any], view: Mapping[str, Any]) -> list[Screen]:
    """What an entry did, one notice a press: who took the trick (MY-5, MY-6), the last
    trick of a round too; then the round's scores (MY-7, MY-8)."""
    notices: list[Screen] = []
    if view.get("last_trick") != was.get("last_trick"):
        notices.append(_mythical_trick_end(view))
    if view.get("last_round") != was.get("last_round"):
        notices.append(_mythical_round_end(view))
    return notices


def _mythical_trick_end(view: Mapping[str, Any]) -> Screen:
    """MY-5, MY-6: who took the trick, with which die, and its bonus (MY-8)."""
    last = view.get("last_trick")
    if not isinstance(last, Mapping):
        return Message("trick over", "", "any button: go on")
    winner = str(last.get("winner", ""))
    rolls = last.get("rolls")
    if not isinstance(rolls, list):
        rolls = []
    win = next((r for r in rolls if isinstance(r, Mapping) and r.get("player") == winner), None)
    rolled = _rolled(win) if win is not None else ""
    corner = f"trick {last.get('trick')}/{last.get('round')}"
    hint = "any button: go on"
    notes = [rolled]
    if last.get("bonus"):  # MY-8: paid at the round's end, and only if the bid is met
        bonus = f"+{last['bonus']} if bid met"
        notes = [f"{rolled}  {bonus}".strip(), bonus, rolled]
    return _fitting(
        *(Result(corner, winner, "takes it", hint, note) for note in notes),
        Result(corner, winner, "takes it", hint),
        Result("", winner, "takes it", hint),
    )


def _mythical_round_end(view: Mapping[str, Any]) -> Screen:
    """MY-7, MY-8: the round's scores, who met their bid, the bonuses paid."""
    last = view.get("last_round")
    if not isinstance(last, Mapping):
        return Message("round over", "", "any button: go on")
    scores, bonuses = last.get("scores"), last.get("bonuses")
    if not isinstance(scores, Mapping):
        scores = {}
    if not isinstance(bonuses, Mapping):
        bonuses = {}
    met = [str(n) for n in last.get("met", [])]
    rows = tuple((str(n), f"{int(v):+d}") for n, v in scores.items())
    title = f"round {last.get('round')} over"
    if not met:
        lost, short = "no bid met", "no bid met"
    elif len(met) == len(rows):
        lost, short = "all bids met", "all bids met"
    else:
        bids = "bid" if len(met) == 1 else "bids"
        lost, short = f"bid met: {', '.join(met)}", f"{len(met)} {bids} met"
    extra = "  ".join(f"{n} bonus +{b}" for n, b in bonuses.items() if b)
    hint = "any button"
    return _fitting(
        RoundEnd(title, lost, rows, extra, hint),
        RoundEnd(title, short, rows, extra, hint),
        RoundEnd(title, short, rows, "", hint),
        RoundEnd(title, short, rows, "", ""),
    )
