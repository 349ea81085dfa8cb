"""``dicetable simulate``: many games between CPU players, for strength and speed.

    dicetable simulate --rules mexico --players cpu:hard,cpu:normal,cpu:easy \
        --games 20000 [--seed S] [--option lives=3 ...]

Each game is played through the pure rules (``RULES.apply``, no log) with
software dice. Game g draws its dice and every CPU whim from one
``random.Random`` seeded by (S, g), so the same command prints the same
figures. Each game seats the players in an order drawn from the same stream,
so that none always has the first seat or sits after the same player: with
the seats only rotated, who sat after whom moved a level's win rate by more
than its interval.

Printed per player: wins, the win rate with its 95 % Wilson interval; then
draws, mean rounds per game and games per second. A progress bar goes to
standard error when it is a terminal, else a plain line every few seconds.
Bad arguments (a count of games above ``MAX_GAMES`` too: no run would
finish it): one line on standard error, exit 2.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from table.cpu import CPU_RULES, get_strategy
from table.cpu.base import Level, Strategy
from table.game import SetupError, check_players
from table.rules import get_rules
from table.rules.base import (
    Event,
    OptionError,
    OptionValue,
    Player,
    Refused,
    Rules,
    parse_options,
)
from table.rules.base import (
    shown as quoted,
)

BREAKDOWN_GAMES = 2000  # games whose events --breakdown keeps and replays
MAX_EVENTS = 1_000_000  # per game; more means a game that cannot end
# A run of more games would take days even at the fastest (~10,000 games/s):
# a count above it is a typing error, refused rather than started.
MAX_GAMES = 1_000_000_000


class GameTooLong(RuntimeError):
    """A simulated game ran past MAX_EVENTS: its options (or a strategy) never end it."""


Z95 = 1.959963984540054


class UsageError(ValueError):
    """A bad argument; the message is the one line shown."""


@dataclass(frozen=True)
class Setup:
    rules: str
    levels: tuple[Level, ...]  # per player, in the order given
    names: tuple[str, ...]
    options: dict[str, OptionValue | None]
    games: int
    seed: int
    breakdown: bool = False


@dataclass(frozen=True)
class GameResult:
    winner: int | None  # index into Setup.names
    draw: bool
    rounds: int
    events: int


@dataclass
class Totals:
    """What the report needs of the games played so far: sums, not one entry
    per game (a run of millions of games keeps nothing per game)."""

    players: int
    games: int = 0
    wins: list[int] = field(init=False)  # by index into the names, one per player
    no_winner: int = 0
    draws: int = 0
    rounds: int = 0
    events: int = 0

    def __post_init__(self) -> None:
        self.wins = [0] * self.players

    def add(self, result: GameResult) -> None:
        self.games += 1
        if result.winner is None:
            self.no_winner += 1
        else:
            self.wins[result.winner] += 1
        self.draws += result.draw
        self.rounds += result.rounds
        self.events += result.events


@dataclass(frozen=True)
class Breakdown:
    """``--breakdown``: the first ``games`` games (``events`` events) took
    ``played`` processor seconds; their events applied by the rules alone
    took ``rules``."""

    games: int
    events: int
    played: float
    rules: float


@dataclass(frozen=True)
class Timing:
    """Processor seconds of one core for the whole run, and the breakdown."""

    total: float
    breakdown: Breakdown | None = None


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


def wilson(wins: int, n: int, z: float = Z95) -> Interval:
    """The Wilson score interval of a win rate ``wins / n``."""
    if n == 0:
        return Interval(0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Interval(max(0.0, centre - half), min(1.0, centre + half))


# ---------------------------------------------------------------------------
# Arguments


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # Bad arguments get one line (``dicetable simulate: error: ...``), no usage
    # block: the usage is in --help, written into its description.
    parser.usage = argparse.SUPPRESS
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = (
        "usage: dicetable simulate --rules R --players P --games N [--seed S]\n"
        "                          [--option K=V ...] [--breakdown]\n\n"
        f"{parser.description}"
    )
    parser.epilog = (
        "example: dicetable simulate --rules mexico "
        "--players cpu:hard,cpu:normal,cpu:easy --games 20000 --seed 1"
    )
    parser.add_argument("--rules", help=f"rule set: {', '.join(CPU_RULES)}")
    parser.add_argument(
        "--players", help="comma-separated seats, each cpu:LEVEL (easy, normal, hard)"
    )
    parser.add_argument("--games", help=f"number of games to play (1 to {MAX_GAMES})")
    parser.add_argument("--seed", default="0", help="seed of the whole run (default 0)")
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help=f"also replay the first {BREAKDOWN_GAMES} games' events through the rules "
        "alone, to show how the time splits between the rules engine and the CPU players",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="K=V",
        help="a rule option, e.g. lives=3 (repeatable)",
    )


def _option_value(text: str) -> OptionValue:
    """A value as typed after ``=``; spaces around it are no part of it (as around the
    key, and as ``int`` and the yes/no words already took them)."""
    text = text.strip()
    low = text.lower()
    if low in ("true", "on", "yes"):
        return True
    if low in ("false", "off", "no"):
        return False
    try:
        return int(text)
    except ValueError:
        return text


def _int(text: str | None, what: str, low: int | None = None, high: int | None = None) -> int:
    if text is None:
        raise UsageError(f"--{what} is required")
    try:
        value = int(text)
    except ValueError:
        digits = text.strip().lstrip("+-")
        if digits.isascii() and digits.isdigit():  # past 4300 digits int() refuses it
            raise UsageError(f"--{what}: a number of {len(digits)} digits is too long") from None
        raise UsageError(f"--{what}: {quoted(text)} is not an integer") from None
    shown = str(value) if abs(value) < 10**20 else f"a number of {len(str(abs(value)))} digits"
    if low is not None and value < low:
        raise UsageError(f"--{what}: must be at least {low}, got {shown}")
    if high is not None and value > high:
        raise UsageError(f"--{what}: at most {high}, got {shown}")
    return value


def parse_setup(args: argparse.Namespace) -> Setup:
    """Check every argument; UsageError names the first bad one."""
    rules_name = args.rules
    if rules_name is None:
        raise UsageError(f"--rules is required ({', '.join(CPU_RULES)})")
    if rules_name not in CPU_RULES:
        raise UsageError(
            f"--rules: no CPU players for {quoted(rules_name)} (known: {', '.join(CPU_RULES)})"
        )
    if not args.players:
        raise UsageError("--players is required, e.g. cpu:hard,cpu:normal,cpu:easy")
    levels: list[Level] = []
    for item in args.players.split(","):
        kind, _, level = item.strip().partition(":")
        if kind != "cpu" or level not in tuple(v.value for v in Level):
            raise UsageError(
                f"--players: {quoted(item.strip())} is not cpu:easy, cpu:normal or cpu:hard"
            )
        levels.append(Level(level))
    games = _int(args.games, "games", 1, MAX_GAMES)
    seed = _int(args.seed, "seed")
    raw: dict[str, OptionValue] = {}
    for item in args.option:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"--option: {quoted(item)} is not KEY=VALUE")
        raw[key.strip()] = _option_value(value)
    names = _names(levels)
    rules = get_rules(rules_name)
    try:
        check_players(
            tuple(Player(n, lv.value) for n, lv in zip(names, levels, strict=True)), rules
        )
        options = parse_options(rules.options, raw, rules.name)
    except (SetupError, OptionError) as exc:
        raise UsageError(str(exc)) from None
    if rules_name == "mexen" and not options.get("rounds") and not options.get("limit"):
        raise UsageError("mexen games never end by themselves: add --option rounds=N or limit=N")
    return Setup(rules_name, tuple(levels), names, options, games, seed, bool(args.breakdown))


def _names(levels: Sequence[Level]) -> tuple[str, ...]:
    """Players are called by their level; a repeated level gets a number."""
    out = []
    for i, level in enumerate(levels):
        same = [j for j, lv in enumerate(levels) if lv is level]
        out.append(level.value if len(same) == 1 else f"{level.value}#{same.index(i) + 1}")
    return tuple(out)


# ---------------------------------------------------------------------------
# Playing


def _seed_text(seed: int) -> str:
    """The run's seed as the report's first line gives it: whole, unless it has more
    than 20 digits (a 4000-digit seed made that line 4000 characters long)."""
    text = str(seed)
    digits = len(text.lstrip("-"))
    return text if digits <= 20 else f"{text[:12]}... ({digits} digits)"


def game_seed(seed: int, game: int) -> str:
    """Seed of game ``game`` of a run seeded ``seed``. ``random.Random`` hashes a text
    seed whole (SHA-512), so no two (seed, game) share their dice: with a sum modulo
    2**64 seeds 0 and 2**64 were one run, and run 1's game 0 was run 0's game 1000003."""
    return f"{seed}/{game}"


def play_game(
    rules: Rules[Any],
    strategy: Strategy,
    seats: Sequence[Player],
    levels: Sequence[Level],
    options: dict[str, OptionValue | None],
    rng: random.Random,
    record: list[Event] | None = None,
) -> tuple[Any, int]:
    """One game through the pure rules; the final state and the number of events.

    A refused CPU event is a bug in a strategy: RuntimeError says which.
    """
    apply = rules.apply
    outcome = rules.outcome
    step = strategy.step
    state = rules.start(tuple(seats), options)
    events = 0
    while outcome(state) is None:
        event = step(levels, state, rng)
        if record is not None:
            record.append(event)
        new = apply(state, event)
        if isinstance(new, Refused):
            raise RuntimeError(f"{rules.name}: a CPU event was refused: {event} ({new.reason})")
        state = new
        events += 1
        if events > MAX_EVENTS:
            raise GameTooLong(f"{rules.name}: a game ran past {MAX_EVENTS} events")
    return state, events


def simulate(setup: Setup, progress: Callable[[int], None] | None = None) -> tuple[Totals, Timing]:
    """Play every game of ``setup``; the totals (wins by index into
    ``setup.names``) and the processor seconds spent (one core: the figure
    does not depend on what else the machine is doing)."""
    rules = get_rules(setup.rules)
    strategy = get_strategy(setup.rules)
    n = len(setup.levels)
    totals = Totals(len(setup.names))
    logs: list[tuple[tuple[Player, ...], list[Event]]] = []
    recorded = min(setup.games, BREAKDOWN_GAMES) if setup.breakdown else 0
    recorded_events = 0
    first_part = 0.0
    start = time.process_time()
    for g in range(setup.games):
        rng = random.Random(game_seed(setup.seed, g))
        order = list(range(n))  # seat -> player index
        rng.shuffle(order)
        seats = [Player(setup.names[p], setup.levels[p].value) for p in order]
        levels = [setup.levels[p] for p in order]
        record: list[Event] | None = [] if g < recorded else None
        state, events = play_game(rules, strategy, seats, levels, setup.options, rng, record)
        if record is not None:
            logs.append((tuple(seats), record))
            recorded_events += events
        out = rules.outcome(state)
        assert out is not None
        winner = None if out.winner is None else setup.names.index(out.winner)
        rounds = int(rules.view(state)["round"])
        totals.add(GameResult(winner, out.draw, rounds, events))
        if g + 1 == recorded:
            first_part = time.process_time() - start
        if progress is not None and (g & 255) == 255:
            progress(g + 1)
    total = time.process_time() - start
    if not recorded:
        return totals, Timing(total)
    start = time.process_time()
    apply = rules.apply
    for seats_, record_ in logs:
        state = rules.start(seats_, setup.options)
        for event in record_:
            state = apply(state, event)
    alone = time.process_time() - start
    return totals, Timing(total, Breakdown(recorded, recorded_events, first_part, alone))


# ---------------------------------------------------------------------------
# Output


class Progress:
    """A bar on a terminal, else a plain line every ``every`` seconds."""

    def __init__(self, total: int, stream: TextIO, every: float = 5.0) -> None:
        self.total = total
        self.stream = stream
        self.tty = stream.isatty()
        self.every = every if not self.tty else 0.2
        self.started = time.monotonic()
        self.shown = self.started

    def __call__(self, done: int) -> None:
        now = time.monotonic()
        if now - self.shown < self.every:
            return
        self.shown = now
        rate = done / max(now - self.started, 1e-9)
        left = (self.total - done) / rate if rate else 0.0
        if self.tty:
            width = 30
            full = width * done // self.total
            bar = "#" * full + "-" * (width - full)
            self.stream.write(
                f"\r[{bar}] {done}/{self.total} games, {rate:,.0f}/s, {left:.0f} s left "
            )
        else:
            self.stream.write(
                f"simulate: {done}/{self.total} games, {rate:,.0f}/s, {left:.0f} s left\n"
            )
        self.stream.flush()

    def close(self) -> None:
        if self.tty and self.shown != self.started:
            self.stream.write("\r" + " " * 70 + "\r")
            self.stream.flush()
            self.shown = self.started  # cleared: a second close writes nothing


def _rate(per_second: float) -> str:
    """Whole numbers, but two decimals below 10: a slow run is not "0" a second."""
    return f"{per_second:,.0f}" if per_second >= 10 else f"{per_second:.2f}"


def report(setup: Setup, totals: Totals, timing: Timing) -> str:
    n = totals.games
    opts = " ".join(
        f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in setup.options.items()
    )
    lines = [
        f"{setup.rules}: {len(setup.levels)} players, {n} games, seed {_seed_text(setup.seed)}, "
        f"options {opts or '-'}",
        f"{'player':<10} {'wins':>8} {'win rate':>9}  95% interval",
    ]
    for i, name in enumerate(setup.names):
        wins = totals.wins[i]
        ci = wilson(wins, n)
        lines.append(
            f"{name:<10} {wins:>8} {100 * wins / n:>8.2f}%  "
            f"[{100 * ci.low:.2f}%, {100 * ci.high:.2f}%]"
        )
    no_winner = totals.no_winner
    lines.append(
        f"no winner: {no_winner} ({100 * no_winner / n:.2f}%), draws among them: {totals.draws}"
    )
    lines.append(f"mean rounds per game: {totals.rounds / n:.2f}")
    events = totals.events
    seconds = max(timing.total, 1e-9)
    rate = n / seconds
    lines.append(
        f"games per second: {_rate(rate)} ({events / seconds:,.0f} events/s, "
        f"{seconds:.2f} s of one core)"
    )
    b = timing.breakdown
    if b is not None:
        share = b.rules / max(b.played, 1e-9)
        lines.append(
            f"breakdown over the first {b.games} games: rules engine alone "
            f"{_rate(b.games / max(b.rules, 1e-9))} games/s "
            f"({1e6 * b.rules / max(b.events, 1):.2f} us/event), {100 * share:.0f}% of the "
            f"time; CPU players, dice and the loop the other {100 * (1 - share):.0f}%"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        setup = parse_setup(args)
    except UsageError as exc:
        print(f"dicetable simulate: {exc}", file=sys.stderr)
        return 2
    progress = Progress(setup.games, sys.stderr)
    try:
        totals, timing = simulate(setup, progress)
    except GameTooLong as exc:
        progress.close()
        print(f"dicetable simulate: {exc}; give options that end a game sooner", file=sys.stderr)
        return 2
    finally:
        progress.close()
    print(report(setup, totals, timing))
    return 0
