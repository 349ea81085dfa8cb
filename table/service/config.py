"""The table's configuration: one TOML file (``firmware_config/dicetable.toml``
documents every key) read into frozen dataclasses.

Where it comes from, first found wins: ``--config PATH``, the environment
variable ``DICETABLE_CONFIG``, ``/etc/dicetable/dicetable.toml`` if it exists,
else the built-in defaults. ``DICETABLE_DATA`` overrides ``table.data_dir``.

Anything wrong (an unknown key, a wrong type, a value out of range, a pin used
twice) is a :class:`ConfigError` whose message names the key, the value and
what is allowed, e.g. ``buttons.roll: 41 is not a GPIO pin (allowed: 2-27)``.
"""

from __future__ import annotations

import os
import re
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from table.gamelog import read_small

SYSTEM_CONFIG = Path("/etc/dicetable/dicetable.toml")
DEFAULT_DATA_DIR = Path("/var/lib/dicetable")
GPIO_PINS = range(2, 28)
WIDTHS = range(160, 4057)
HEIGHTS = range(120, 3041)
"""The frame sizes a camera is asked for (the HQ camera's full frame is 4056x3040)."""


class ConfigError(ValueError):
    """A configuration that cannot be used; ``str(err)`` is one line for people, and
    ``short``, where given, the same in fewer words for the OLED when the line does not
    fit it."""

    def __init__(self, message: str, short: str = "") -> None:
        super().__init__(message)
        self.short = short


class DisplayDriver(StrEnum):
    SSD1306 = "ssd1306"
    SH1106 = "sh1106"
    TERMINAL = "terminal"
    NONE = "none"


class CpuDice(StrEnum):
    """Who rolls for CPU players: the table in software, or a person at the table."""

    SOFTWARE = "software"
    TABLE = "table"


MAX_BOUNCE_MS = 100
"""A press shorter than the bounce window is not counted: a brisk tap lasts about 100 ms."""

SHORT_PRESS_S = 0.1
"""The least time between a press counting and its becoming long: room for a short press."""

MAX_NAME = 12
"""Characters in a player's name: the turn screen shows 12 of most letters whole, and
drawing a name of hundreds of thousands took longer than the service's watchdog waits."""
NAME_APART = 8
"""Two players' names must differ within this many characters: a line crowded with other
items (a throw, "is the pirate") may keep only about the first eight of a name."""


@dataclass(frozen=True)
class ButtonsConfig:
    roll: int = 17
    hold: int = 27
    stop: int = 22
    pull_up: bool = True
    bounce_ms: int = 30
    long_press_s: float = 1.0
    very_long_press_s: float = 3.0


@dataclass(frozen=True)
class DisplayConfig:
    driver: DisplayDriver = DisplayDriver.SSD1306
    i2c_port: int = 1
    i2c_address: int = 0x3C
    rotate: int = 0


@dataclass(frozen=True)
class CameraConfig:
    source: str = "picamera"
    width: int = 1280
    height: int = 960
    settle_frames: int = 3
    fps: float = 10.0
    sharpness: float = 1.0  # the Pi camera's own sharpening: 0 none, 1 its normal amount
    mains_hz: int = 50  # the lamps' mains frequency, whose flicker the camera avoids; 0 off


@dataclass(frozen=True)
class TableConfig:
    data_dir: Path = DEFAULT_DATA_DIR
    cpu_dice: CpuDice = CpuDice.SOFTWARE


@dataclass(frozen=True)
class PlayerConfig:
    name: str
    cpu: str | None = None


def _default_players() -> tuple[PlayerConfig, ...]:
    return (PlayerConfig("Ann"), PlayerConfig("Bob"))


@dataclass(frozen=True)
class GameConfig:
    """The game offered first (the last one played is remembered in settings.json)."""

    rules: str = "mexico"
    players: tuple[PlayerConfig, ...] = field(default_factory=_default_players)
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Config:
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    table: TableConfig = field(default_factory=TableConfig)
    game: GameConfig = field(default_factory=GameConfig)
    path: Path | None = None
    """The file it was read from; None for the built-in defaults."""


# ---------------------------------------------------------------------------
# Checking values


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        if len(value) > LONGEST_SHOWN:  # a path is rarely longer; a pasted mistake can be
            return f"{_show(value[:40])}... ({len(value)} characters)"
        return f'"{value}"' if value.isprintable() else repr(value)  # one line, always
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    text = str(value)
    return text if len(text) <= 40 else f"{text[:12]}... ({len(text)} digits)"


def _quoted(text: str) -> str:
    """``text`` as Python writes it (a control character shows as its escape), cut if it
    is far longer than any name or path: a pasted mistake made a message of 200 kB."""
    if len(text) > LONGEST_SHOWN:
        return f"{text[:40]!r}... ({len(text)} characters)"
    return repr(text)


def _key(name: str) -> str:
    """A key as written in the file, on one line (a quoted key may hold a line break), and
    cut if it is far longer than any key the file knows."""
    if len(name) > 40:
        return f"{_key(name[:30])}... ({len(name)} characters)"
    return name if name.isprintable() else repr(name)


# The most a config file is read for (the shipped one is a few kB).
CONFIG_BYTES = 1 << 20
# The longest string value a message shows whole.
LONGEST_SHOWN = 120


def _bad(key: str, value: object, allowed: str, what: str = "is not allowed") -> ConfigError:
    return ConfigError(f"{key}: {_show(value)} {what} (allowed: {allowed})")


def _int(key: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(key, value, f"an integer from {low} to {high}", "is not an integer")
    if not low <= value <= high:
        raise _bad(key, value, f"{low}-{high}", "is out of range")
    return value


def _float(key: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _bad(key, value, f"a number from {low:g} to {high:g}", "is not a number")
    if not low <= value <= high:  # exact for an int of any size (float() would overflow)
        raise _bad(key, value, f"{low:g}-{high:g}", "is out of range")
    return float(value)


def _bool(key: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise _bad(key, value, "true or false", "is not a boolean")
    return value


def _str(key: str, value: object) -> str:
    if not isinstance(value, str):
        raise _bad(key, value, "a string in quotes", "is not a string")
    return value


def _pin(key: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in GPIO_PINS:
        raise _bad(key, value, f"{GPIO_PINS.start}-{GPIO_PINS.stop - 1}", "is not a GPIO pin")
    return value


def _choice(key: str, value: object, choices: type[StrEnum]) -> Any:
    names = ", ".join(c.value for c in choices)
    if not isinstance(value, str) or value not in {c.value for c in choices}:
        raise _bad(key, value, names)
    return choices(value)


def _i2c_address(key: str, value: object) -> int:
    allowed = '0x03-0x77, as a number or a string like "0x3C"'
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and value.isascii():  # int() reads "٣" as 3 too
        try:
            number = int(value, 0)
        except ValueError:
            number = None
    if number is None or not 0x03 <= number <= 0x77:
        shown = _show(value)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 32:
            shown = f"{value} (0x{value:02X})"  # TOML keeps no trace of 0x: show both
        if number is not None and 0x03 <= number >> 1 <= 0x77 and number % 2 == 0:
            # Many OLED boards print the 8-bit bus address (0x78, 0x7A) on the back.
            allowed += f"; 0x{number:02X} is the 8-bit form of 0x{number >> 1:02X}"
        raise ConfigError(f"{key}: {shown} is not an I2C address (allowed: {allowed})")
    return number


def _camera_source(key: str, value: object) -> str:
    text = _str(key, value).strip()
    allowed = "picamera, usb:N, folder:PATH, video:PATH"
    kind, sep, rest = text.partition(":")
    if text == "picamera":
        return text
    if not text.isprintable():
        raise _bad(
            key, value, "a camera, or the path of photos or a video", "holds a control character"
        )
    if kind == "picamera" and sep:
        if not re.fullmatch(r"[1-9][0-9]{0,5}[xX][1-9][0-9]{0,5}", rest):
            raise _bad(key, value, "picamera, or picamera:WIDTHxHEIGHT like picamera:1280x960")
        width, height = (int(n) for n in rest.lower().split("x"))
        if width not in WIDTHS or height not in HEIGHTS:  # as camera.width and camera.height
            allowed = (
                f"picamera:WIDTHxHEIGHT with WIDTH {WIDTHS.start}-{WIDTHS.stop - 1} "
                f"and HEIGHT {HEIGHTS.start}-{HEIGHTS.stop - 1}"
            )
            raise _bad(key, value, allowed, "is out of range")
        return text
    if kind == "usb" and sep:
        if not (rest.isdecimal() or rest.startswith("/dev/")):  # "²" is a digit, no number
            raise _bad(key, value, "usb:N with N the webcam's number (usb:0), or usb:/dev/videoN")
        if rest.isdecimal() and (len(rest.lstrip("0")) > 3 or int(rest) > 255):  # V4L2: 0-255
            allowed = "usb:N with N from 0 to 255, or usb:/dev/videoN"
            raise _bad(key, value, allowed, "is out of range")
        return text
    if kind in ("folder", "video") and sep and rest.strip():
        return text
    raise _bad(key, value, allowed)


class _Section:
    """The keys of one table, checked off one by one; leftovers are unknown keys."""

    def __init__(self, name: str, raw: object, known: tuple[str, ...]) -> None:
        if not isinstance(raw, dict):
            raise ConfigError(f"{name}: must be a table ([{name}]), got {_show(raw)}")
        self.name = name
        self.raw: dict[str, Any] = raw
        for key in raw:
            if key not in known:
                raise ConfigError(
                    f"{name}.{_key(key)}: unknown key (known in [{name}]: {', '.join(known)})"
                )

    def key(self, k: str) -> str:
        return f"{self.name}.{k}"

    def has(self, k: str) -> bool:
        return k in self.raw


def _buttons(raw: object) -> ButtonsConfig:
    d = ButtonsConfig()
    s = _Section(
        "buttons",
        raw,
        ("roll", "hold", "stop", "pull_up", "bounce_ms", "long_press_s", "very_long_press_s"),
    )
    r = s.raw
    pins = {
        name: _pin(s.key(name), r[name]) if name in r else getattr(d, name)
        for name in ("roll", "hold", "stop")
    }
    seen: dict[int, str] = {}
    for name, pin in pins.items():
        if pin in seen:
            raise ConfigError(
                f"buttons.{name}: pin {pin} is already used by buttons.{seen[pin]} "
                "(allowed: a different GPIO pin for each button)"
            )
        seen[pin] = name
    long_s = (
        _float(s.key("long_press_s"), r["long_press_s"], 0.1, 10.0)
        if s.has("long_press_s")
        else d.long_press_s
    )
    very_s = (
        _float(s.key("very_long_press_s"), r["very_long_press_s"], 0.2, 30.0)
        if s.has("very_long_press_s")
        else d.very_long_press_s
    )
    if very_s <= long_s:
        raise ConfigError(
            f"buttons.very_long_press_s: {very_s:g} is not longer than "
            f"buttons.long_press_s ({long_s:g}) (allowed: a value above {long_s:g})"
        )
    bounce_ms = (
        _int(s.key("bounce_ms"), r["bounce_ms"], 0, MAX_BOUNCE_MS)
        if s.has("bounce_ms")
        else d.bounce_ms
    )
    # A press counts once the contact has rested pressed for bounce_ms: a press shorter
    # than long_press_s must be possible, or STOP could never stand.
    least = round(bounce_ms / 1000 + SHORT_PRESS_S, 3)
    if long_s < least:
        raise ConfigError(
            f"buttons.long_press_s: {long_s:g} leaves no time for a short press after "
            f"buttons.bounce_ms ({bounce_ms} ms) (allowed: at least {least:g})"
        )
    return ButtonsConfig(
        roll=pins["roll"],
        hold=pins["hold"],
        stop=pins["stop"],
        pull_up=_bool(s.key("pull_up"), r["pull_up"]) if s.has("pull_up") else d.pull_up,
        bounce_ms=bounce_ms,
        long_press_s=long_s,
        very_long_press_s=very_s,
    )


def _display(raw: object) -> DisplayConfig:
    d = DisplayConfig()
    s = _Section("display", raw, ("driver", "i2c_port", "i2c_address", "rotate"))
    r = s.raw
    return DisplayConfig(
        driver=_choice(s.key("driver"), r["driver"], DisplayDriver)
        if s.has("driver")
        else d.driver,
        i2c_port=_int(s.key("i2c_port"), r["i2c_port"], 0, 22) if s.has("i2c_port") else d.i2c_port,
        i2c_address=_i2c_address(s.key("i2c_address"), r["i2c_address"])
        if s.has("i2c_address")
        else d.i2c_address,
        rotate=_rotate(s.key("rotate"), r["rotate"]) if s.has("rotate") else d.rotate,
    )


def _rotate(key: str, value: object) -> int:
    """Quarter turns. The screens are drawn landscape (128x64): a quarter turn would
    need a portrait 64x128 layout, so only 0 and 2 (upside down) are offered."""
    turns = _int(key, value, 0, 3)
    if turns % 2:
        raise _bad(key, value, "0 or 2; the screens are landscape, 1 and 3 would stand them up")
    return turns


def _camera(raw: object) -> CameraConfig:
    d = CameraConfig()
    s = _Section(
        "camera",
        raw,
        ("source", "width", "height", "settle_frames", "fps", "sharpness", "mains_hz"),
    )
    r = s.raw
    return CameraConfig(
        source=_camera_source(s.key("source"), r["source"]) if s.has("source") else d.source,
        width=_int(s.key("width"), r["width"], WIDTHS.start, WIDTHS.stop - 1)
        if s.has("width")
        else d.width,
        height=_int(s.key("height"), r["height"], HEIGHTS.start, HEIGHTS.stop - 1)
        if s.has("height")
        else d.height,
        settle_frames=_int(s.key("settle_frames"), r["settle_frames"], 1, 30)
        if s.has("settle_frames")
        else d.settle_frames,
        fps=_float(s.key("fps"), r["fps"], 1.0, 60.0) if s.has("fps") else d.fps,
        sharpness=_float(s.key("sharpness"), r["sharpness"], 0.0, 16.0)
        if s.has("sharpness")
        else d.sharpness,
        mains_hz=_mains_hz(s.key("mains_hz"), r["mains_hz"]) if s.has("mains_hz") else d.mains_hz,
    )


def _mains_hz(key: str, value: object) -> int:
    """50 or 60 (Hz), or 0: leave the camera's exposure to itself."""
    hz = _int(key, value, 0, 60)
    if hz not in (0, 50, 60):
        raise _bad(key, value, "50 or 60, the mains frequency; 0 for none")
    return hz


def _table(raw: object, env: Mapping[str, str]) -> TableConfig:
    d = TableConfig()
    s = _Section("table", raw, ("data_dir", "cpu_dice"))
    r = s.raw
    data_dir = Path(_str(s.key("data_dir"), r["data_dir"])) if s.has("data_dir") else d.data_dir
    if s.has("data_dir") and not str(r["data_dir"]).strip():
        raise _bad(s.key("data_dir"), r["data_dir"], "a folder path")
    if s.has("data_dir") and not str(r["data_dir"]).isprintable():
        raise ConfigError(
            f"{s.key('data_dir')}: {_quoted(str(r['data_dir']))} holds a control character "
            "(allowed: a folder path)"
        )
    if s.has("data_dir") and not (data_dir.is_absolute() or str(data_dir).startswith("~")):
        # Taken from the working directory: the service's (/run/dicetable) is emptied
        # when it stops, and the games with it.
        allowed = "a folder path from /, like /var/lib/dicetable"
        raise _bad(s.key("data_dir"), r["data_dir"], allowed, "is not a full path")
    where = s.key("data_dir")
    if env.get("DICETABLE_DATA"):
        data_dir = Path(env["DICETABLE_DATA"])
        where = "DICETABLE_DATA"
    try:
        data_dir = data_dir.expanduser()
    except RuntimeError:  # ~name of no user here (or no home to find)
        allowed = "a folder path, with ~ only for a user of this machine"
        raise _bad(where, str(data_dir), allowed, "is in the home of no user here") from None
    return TableConfig(
        data_dir=data_dir,
        cpu_dice=_choice(s.key("cpu_dice"), r["cpu_dice"], CpuDice)
        if s.has("cpu_dice")
        else d.cpu_dice,
    )


def _game(raw: object) -> GameConfig:
    d = GameConfig()
    s = _Section("game", raw, ("rules", "players", "options"))
    r = s.raw
    rules = _str(s.key("rules"), r["rules"]) if s.has("rules") else d.rules
    from table.game import CPU_LEVELS
    from table.service.referee import MENU_RULES

    if rules not in MENU_RULES:
        raise _bad(s.key("rules"), rules, ", ".join(MENU_RULES))
    players = d.players
    if s.has("players"):
        value = r["players"]
        allowed = 'a list of names or tables, e.g. ["Ann", {name = "CPU", cpu = "hard"}]'
        if isinstance(value, list) and not value:
            raise ConfigError(f"{s.key('players')}: the list is empty (allowed: {allowed})")
        if not isinstance(value, list):
            raise _bad(s.key("players"), value, allowed, "is not a list of players")
        out: list[PlayerConfig] = []
        for i, p in enumerate(value):
            where = f"game.players[{i + 1}]"
            if isinstance(p, str):
                out.append(PlayerConfig(_name(where, p)))
            elif isinstance(p, dict):
                ps = _Section(where, p, ("name", "cpu"))
                if not ps.has("name"):
                    raise ConfigError(f"{where}: has no name (allowed: {allowed})")
                cpu = _str(ps.key("cpu"), p["cpu"]) if ps.has("cpu") else None
                if cpu is not None and cpu not in CPU_LEVELS:
                    raise _bad(ps.key("cpu"), cpu, ", ".join(CPU_LEVELS))
                if cpu is not None and not _has_cpu_players(rules):
                    raise ConfigError(
                        f"{ps.key('cpu')}: {rules} has no CPU players "
                        "(allowed: people only, no cpu key)"
                    )
                name = _name(ps.key("name"), _str(ps.key("name"), p["name"]))
                out.append(PlayerConfig(name, cpu))
            else:
                raise _bad(where, p, allowed, "is not a player")
        from table.service.referee import MAX_SEATS

        if len(out) > MAX_SEATS:  # the rules may take more; the table's menu and screens not
            raise ConfigError(
                f"{s.key('players')}: {len(out)} players named, but the table seats at most "
                f"{MAX_SEATS}, as many as its display shows (allowed: 2 to {MAX_SEATS} players)",
                f"{len(out)} players named: the table seats at most {MAX_SEATS}",
            )
        from table.service.screens import drawable

        drawn: dict[str, str] = {}
        for p in out:
            if not p.name:  # a blank name: refused when the game is tried (_check_game)
                continue
            other = drawn.setdefault(_look(p.name), p.name)
            if other == p.name:
                continue
            # the OLED's three lines: the names and what is wrong, the key left out
            alike = f"players {other!r} and {p.name!r} look alike on the display"
            if drawable(other) == drawable(p.name):  # "Zoë" and "Zoe": one on the display
                raise ConfigError(
                    f"{s.key('players')}: {other!r} and {p.name!r} look the same on the "
                    f"display ({drawable(p.name)!r}); name them apart",
                    alike,
                )
            if _look(other, None) == _look(p.name, None):  # "Al" and "AI"
                raise ConfigError(
                    f"{s.key('players')}: {other!r} and {p.name!r} look the same in the "
                    "display's small font (its I and l are one stroke); name them apart",
                    alike,
                )
            raise ConfigError(
                f"{s.key('players')}: {other!r} and {p.name!r} begin the same, and where "
                f"the display has room for a name's first {NAME_APART} characters only "
                "they look alike; name them apart there",
                alike,
            )
        if all(p.cpu is not None for p in out):  # the menu seats one person at least
            raise ConfigError(
                f"{s.key('players')}: every player is a CPU player "
                '(allowed: at least one person, e.g. ["Ann", {name = "CPU", cpu = "hard"}])'
            )
        players = tuple(out)
    options: dict[str, Any] = {}
    if s.has("options"):
        value = r["options"]
        if not isinstance(value, dict):
            raise _bad(s.key("options"), value, "a table of the rule set's options")
        options = dict(value)
    game = GameConfig(rules=rules, players=players, options=options)
    _check_game(game)
    return game


def _has_cpu_players(rules: str) -> bool:
    from table.cpu import CPU_RULES

    return rules in CPU_RULES


def _name(key: str, name: str) -> str:
    """A player's name as the display can show it on one line, in its font: the OLED's
    font has Latin letters only ("Zoë" is drawn "Zoe"); "李明" would be "??", and two
    such names could not be told apart."""
    if not name.isprintable():
        raise ConfigError(
            f"{key}: {_quoted(name)} holds a line break or another control character "
            "(allowed: letters, digits, spaces and punctuation)"
        )
    from table.service.screens import drawable, single_spaced

    drawn = drawable(name)
    if drawn.count("?") > name.count("?") or (name.strip() and not drawn.strip()):
        raise ConfigError(
            f"{key}: {_quoted(name)} cannot be drawn on the display (it shows {_quoted(drawn)}; "
            "allowed: Latin letters, with or without accents, digits and punctuation)"
        )
    name = single_spaced(name)  # "Bob  Smith" would be two items of a line
    drawn = drawable(name)
    if len(drawn) > MAX_NAME:
        # counted as drawn: "Æ" is drawn "AE", so twelve of them are 24 on the display
        spelt = "" if drawn == name else f" as the display spells it ({_quoted(drawn)})"
        raise ConfigError(
            f"{key}: {_quoted(name)} is {len(drawn)} characters long{spelt} (allowed: at most "
            f"{MAX_NAME}, so that the display can show it)"
        )
    return name


# The look of a name on the display, for telling two apart: its first ``keep``
# characters (NAME_APART: what a crowded line keeps), an I taken for an l: the two are
# one stroke in the small font.
_LOOKALIKE = str.maketrans({"I": "l"})


def _look(name: str, keep: int | None = NAME_APART) -> str:
    from table.service.screens import drawable

    return drawable(name)[:keep].translate(_LOOKALIKE)


def _check_game(game: GameConfig) -> None:
    """The rule set itself says whether these players and options make a game."""
    from table.game import Game, GameHeader, SetupError
    from table.rules.base import Player

    header = GameHeader(
        rules=game.rules,
        players=tuple(Player(p.name, p.cpu) for p in game.players),
        options=game.options,
    )
    try:
        Game.start(header)
    except ImportError:
        return  # that rule set is not installed here; the table says so when it is chosen
    except SetupError as exc:
        raise ConfigError(_game_key(game, str(exc))) from None


def _game_key(game: GameConfig, message: str) -> str:
    """The rule set's message with the key it is about, as the file names it:
    "option 'lives': 4 is not allowed" is about game.options.lives."""
    from table.rules.base import shown

    for key in game.options:
        where = f"game.options.{_key(key)}"
        for said in (f"option {key!r}: ", f"{game.rules}: option {key!r}: "):
            if message.startswith(said):
                return f"{where}: {message.removeprefix(said)}"
        unknown = f"{game.rules}: unknown option {shown(key)} "
        if message.startswith(unknown):
            return f"{where}: unknown option {message.removeprefix(unknown)}"
    if message.startswith("players: "):
        return f"game.{message}"
    return f"game: {message}"


I2C1_PINS = {2: "SDA", 3: "SCL"}
"""The pins of I2C bus 1 (the OLED's, on the header's pins 3 and 5)."""


def _pins_free_of_the_display(buttons: ButtonsConfig, display: DisplayConfig) -> None:
    """A button on GPIO 2 or 3 would take the OLED's I2C bus 1 from it."""
    if display.driver not in (DisplayDriver.SSD1306, DisplayDriver.SH1106) or display.i2c_port != 1:
        return
    for name in ("roll", "hold", "stop"):
        pin = getattr(buttons, name)
        if pin in I2C1_PINS:
            raise ConfigError(
                f"buttons.{name}: pin {pin} is I2C bus 1's {I2C1_PINS[pin]}, which the "
                f"{display.driver.value} display uses (allowed: "
                f"{GPIO_PINS.start + len(I2C1_PINS)}-{GPIO_PINS.stop - 1} with this display)"
            )


# ---------------------------------------------------------------------------
# Loading

SECTIONS = ("buttons", "display", "camera", "table", "game")


def _numbers_too_long(document: object) -> None:
    """A whole number Python will not write out (over 4300 digits) would stop the table
    with a ValueError wherever it were shown: it is named by its key here, first. (Walked
    with a list, not by recursion: a section header of thousands of dotted parts nests as
    deep.)"""
    todo: list[tuple[object, str]] = [(document, "")]
    while todo:
        value, key = todo.pop()
        if isinstance(value, dict):
            todo += reversed(
                [(v, f"{key}.{_key(k)}" if key else _key(k)) for k, v in value.items()]
            )
        elif isinstance(value, list):
            todo += reversed([(v, f"{key}[{i + 1}]") for i, v in enumerate(value)])
        elif isinstance(value, int) and abs(value).bit_length() > 3 * sys.get_int_max_str_digits():
            try:
                str(value)
            except ValueError:
                raise ConfigError(
                    f"{key}: a number of more than {sys.get_int_max_str_digits()} digits "
                    "is not allowed (allowed: the values the key takes)"
                ) from None


def parse_config(
    data: Mapping[str, Any], *, path: Path | None = None, env: Mapping[str, str] | None = None
) -> Config:
    """Check a parsed TOML document and build the Config (ConfigError if anything is off)."""
    environ = os.environ if env is None else env
    _numbers_too_long(data)
    for key in data:
        if key not in SECTIONS:
            raise ConfigError(f"{_key(key)}: unknown section (known: {', '.join(SECTIONS)})")
    buttons = _buttons(data.get("buttons", {}))
    display = _display(data.get("display", {}))
    _pins_free_of_the_display(buttons, display)
    return Config(
        buttons=buttons,
        display=display,
        camera=_camera(data.get("camera", {})),
        table=_table(data.get("table", {}), environ),
        game=_game(data.get("game", {})),
        path=path,
    )


def _toml(text: str) -> dict[str, Any]:
    """The TOML document, or a ConfigError saying why not."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML ({exc})") from None
    except RecursionError:  # hundreds of [ or { inside each other
        raise ConfigError("not valid TOML (values nested too deeply)") from None
    except ValueError:  # a decimal number longer than int() reads (4300 digits)
        limit = sys.get_int_max_str_digits()
        long = re.search(rf"[0-9]{{{limit + 1},}}", text)
        where = f" on line {text.count(chr(10), 0, long.start()) + 1}" if long else ""
        raise ConfigError(f"not valid TOML (a number of more than {limit} digits{where})") from None


def _config_text(path: Path) -> str:
    """The config file's text (a BOM, which some editors write, left out). ``/dev/null``
    is an empty config (no settings but the defaults); a named pipe is read as any
    program reads one (``--config <(...)``), waiting for its writer; a device is no
    config file (OSError), nor is a file over CONFIG_BYTES."""
    if path == Path(os.devnull):
        return ""
    return read_small(path, CONFIG_BYTES, pipes=True).decode("utf-8-sig")


def loads_config(text: str, *, env: Mapping[str, str] | None = None) -> Config:
    return parse_config(_toml(text), env=env)


def config_path(explicit: str | os.PathLike[str] | None, env: Mapping[str, str]) -> Path | None:
    """Which file to read: ``--config``, else $DICETABLE_CONFIG, else the system file if any."""
    if explicit is not None:
        return Path(explicit)
    if env.get("DICETABLE_CONFIG"):
        return Path(env["DICETABLE_CONFIG"])
    if SYSTEM_CONFIG.is_file():
        return SYSTEM_CONFIG
    return None


def load_config(
    explicit: str | os.PathLike[str] | None = None, *, env: Mapping[str, str] | None = None
) -> Config:
    """The table's configuration (see the module doc for where it is looked for)."""
    environ = os.environ if env is None else env
    path = config_path(explicit, environ)
    if path is None:
        return parse_config({}, env=environ)
    try:
        # a BOM (some editors) is no TOML fault; a pipe or /dev/zero is no config file
        text = _config_text(path)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a config file") from None
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"{path}: byte 0x{exc.object[exc.start]:02x} on line {line} is not UTF-8 text "
            "(allowed: a text file saved as UTF-8)"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        return parse_config(_toml(text), path=path, env=environ)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}", exc.short) from None


def display_for_faults(
    explicit: str | os.PathLike[str] | None = None, *, env: Mapping[str, str] | None = None
) -> DisplayConfig:
    """The display to say a config fault on: the file's own ``[display]`` if that
    section can be read, else the defaults (the usual SSD1306 at 0x3C). Never raises."""
    environ = os.environ if env is None else env
    try:
        path = config_path(explicit, environ)
        if path is None:
            return DisplayConfig()
        data = tomllib.loads(_config_text(path))
        return _display(data.get("display", {}))
    except (ConfigError, OSError, ValueError, TypeError, AttributeError, RecursionError):
        return DisplayConfig()
