"""The table's config: defaults, the shipped file, and one clear line for every mistake."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from table.service import cli_run
from table.service.config import (
    Config,
    ConfigError,
    CpuDice,
    DisplayDriver,
    load_config,
    loads_config,
)

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "firmware_config" / "dicetable.toml"


def test_defaults_without_any_file(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = load_config(None, env={})
    assert cfg.path is None
    b = cfg.buttons
    assert (b.roll, b.hold, b.stop) == (17, 27, 22)
    assert b.pull_up is True and b.bounce_ms == 30
    assert (b.long_press_s, b.very_long_press_s) == (1.0, 3.0)
    d = cfg.display
    assert d.driver is DisplayDriver.SSD1306
    assert (d.i2c_port, d.i2c_address, d.rotate) == (1, 0x3C, 0)
    assert cfg.camera.source == "picamera" and cfg.camera.settle_frames == 3
    assert cfg.camera.sharpness == 1.0  # the Pi camera's own amount
    assert cfg.camera.mains_hz == 50  # most of the world's mains
    assert cfg.table.data_dir == Path("/var/lib/dicetable")
    assert cfg.table.cpu_dice is CpuDice.SOFTWARE
    assert cfg.game.rules == "mexico" and len(cfg.game.players) == 2


def test_shipped_file_is_the_defaults() -> None:
    cfg = load_config(SHIPPED, env={})
    assert cfg.path == SHIPPED
    assert cfg.buttons == Config().buttons
    assert cfg.display == Config().display
    assert cfg.camera == Config().camera
    assert cfg.table == Config().table
    assert cfg.game == Config().game


def test_every_key_of_the_defaults_is_in_the_shipped_file() -> None:
    text = SHIPPED.read_text()
    for section in ("buttons", "display", "camera", "table", "game"):
        assert f"[{section}]" in text
    for key in (
        "roll", "hold", "stop", "pull_up", "bounce_ms", "long_press_s", "very_long_press_s",
        "driver", "i2c_port", "i2c_address", "rotate", "source", "width", "height",
        "settle_frames", "fps", "sharpness", "mains_hz", "data_dir", "cpu_dice", "rules", "players",
    ):  # fmt: skip
        assert f"\n{key} = " in text, key


def test_values_are_read() -> None:
    cfg = loads_config(
        """
        [buttons]
        roll = 5
        hold = 6
        stop = 13
        pull_up = false
        long_press_s = 0.8
        very_long_press_s = 2
        [display]
        driver = "sh1106"
        i2c_address = "0x3D"
        rotate = 2
        [camera]
        source = "usb:0"
        fps = 15
        [table]
        data_dir = "/tmp/dt"
        cpu_dice = "table"
        [game]
        rules = "mex"
        players = ["Ann", {name = "Cee", cpu = "hard"}]
        options = {lives = 5}
        """,
        env={},
    )
    assert (cfg.buttons.roll, cfg.buttons.hold, cfg.buttons.stop) == (5, 6, 13)
    assert cfg.buttons.pull_up is False and cfg.buttons.very_long_press_s == 2.0
    assert cfg.display.driver is DisplayDriver.SH1106 and cfg.display.i2c_address == 0x3D
    assert cfg.display.rotate == 2 and cfg.camera.source == "usb:0" and cfg.camera.fps == 15.0
    assert cfg.table.data_dir == Path("/tmp/dt") and cfg.table.cpu_dice is CpuDice.TABLE
    assert cfg.game.rules == "mex" and cfg.game.players[1].cpu == "hard"
    assert dict(cfg.game.options) == {"lives": 5}


def test_i2c_address_as_a_number() -> None:
    assert loads_config("[display]\ni2c_address = 61", env={}).display.i2c_address == 61


def test_env_overrides_the_data_dir() -> None:
    cfg = loads_config('[table]\ndata_dir = "/x"', env={"DICETABLE_DATA": "/y"})
    assert cfg.table.data_dir == Path("/y")


@pytest.mark.parametrize(
    ("text", "env", "key"),
    [
        ('[table]\ndata_dir = "~nosuchuser-dt/games"', {}, "table.data_dir"),
        ("", {"DICETABLE_DATA": "~nosuchuser-dt/games"}, "DICETABLE_DATA"),
    ],
)
def test_a_data_folder_in_the_home_of_no_user_is_one_line(
    text: str, env: dict[str, str], key: str
) -> None:
    """~name of a user the machine does not have stopped the table with "internal error:
    RuntimeError: Could not determine home directory." and exit 1, which systemd restarts
    again and again, with nothing on the display."""
    with pytest.raises(ConfigError) as err:
        loads_config(text, env=env)
    assert str(err.value).startswith(f'{key}: "~nosuchuser-dt/games" is in the home of no user')


def test_a_data_folder_that_is_not_a_full_path_is_refused() -> None:
    """A relative table.data_dir was taken from the working directory: the service's is
    /run/dicetable, which is emptied when the service stops and at every power cut, so
    every game saved there was lost, and no line said so."""
    with pytest.raises(ConfigError) as err:
        loads_config('[table]\ndata_dir = "games"', env={})
    assert str(err.value).startswith('table.data_dir: "games" is not a full path (allowed: ')
    assert loads_config('[table]\ndata_dir = "~/games"', env={}).table.data_dir.is_absolute()


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[camera]\nsettle_frames = {n}", "camera.settle_frames"),
        ("[display]\ni2c_address = {n}", "display.i2c_address"),
        ("[game.options]\nlives = {n}", "game.options.lives"),
        ('[game]\nplayers = ["Ann", {{name = "Bob", cpu = [{n}]}}]', "game.players[2].cpu[1]"),
    ],
)
def test_a_number_too_long_to_write_out_is_one_line(text: str, key: str) -> None:
    """A whole number of more than 4300 digits, which Python will not write out, stopped
    the table with "internal error: ValueError: Exceeds the limit ..." and exit 1."""
    with pytest.raises(ConfigError) as err:
        loads_config(text.format(n="0x" + "f" * 4000), env={})  # read, then not shown
    assert str(err.value).startswith(f"{key}: a number of more than 4300 digits is not allowed")
    with pytest.raises(ConfigError) as err:
        loads_config(text.format(n="9" * 5000), env={})  # not even read
    assert str(err.value) == "not valid TOML (a number of more than 4300 digits on line 2)"


def test_a_config_file_with_a_number_too_long_to_read_is_one_line(tmp_path: Path) -> None:
    conf = tmp_path / "dicetable.toml"
    conf.write_text("[camera]\nfps = 10\nsettle_frames = " + "9" * 5000 + "\n")
    with pytest.raises(ConfigError) as err:
        load_config(conf, env={})
    assert str(err.value) == (
        f"{conf}: not valid TOML (a number of more than 4300 digits on line 3)"
    )


def test_where_the_config_comes_from(tmp_path: Path) -> None:
    a = tmp_path / "a.toml"
    b = tmp_path / "b.toml"
    a.write_text("[display]\nrotate = 2\n")
    b.write_text("[display]\ni2c_port = 3\n")
    assert load_config(a, env={"DICETABLE_CONFIG": str(b)}).display.rotate == 2
    assert load_config(None, env={"DICETABLE_CONFIG": str(b)}).display.i2c_port == 3


BAD: list[tuple[str, str]] = [
    ("[buttons]\nroll = 41", "buttons.roll: 41 is not a GPIO pin (allowed: 2-27)"),
    ("[buttons]\nhold = 1", "buttons.hold: 1 is not a GPIO pin (allowed: 2-27)"),
    ('[buttons]\nstop = "22"', 'buttons.stop: "22" is not a GPIO pin (allowed: 2-27)'),
    (
        "[buttons]\nroll = 27",
        "buttons.hold: pin 27 is already used by buttons.roll "
        "(allowed: a different GPIO pin for each button)",
    ),
    ("[buttons]\npull_up = 1", "buttons.pull_up: 1 is not a boolean (allowed: true or false)"),
    ("[buttons]\nbounce_ms = 150", "buttons.bounce_ms: 150 is out of range (allowed: 0-100)"),
    ("[buttons]\nbounce_ms = 2.5", "buttons.bounce_ms: 2.5 is not an integer"),
    ("[buttons]\nlong_press_s = 0", "buttons.long_press_s: 0 is out of range (allowed: 0.1-10)"),
    (
        "[buttons]\nvery_long_press_s = 0.5",
        "buttons.very_long_press_s: 0.5 is not longer than buttons.long_press_s (1)",
    ),
    ("[buttons]\nroll_pin = 4", "buttons.roll_pin: unknown key (known in [buttons]: roll, hold"),
    (
        '[display]\ndriver = "ssd1309"',
        'display.driver: "ssd1309" is not allowed (allowed: ssd1306, sh1106, terminal, none)',
    ),
    ("[display]\ni2c_port = -1", "display.i2c_port: -1 is out of range (allowed: 0-22)"),
    ('[display]\ni2c_address = "3C"', 'display.i2c_address: "3C" is not an I2C address'),
    ("[display]\ni2c_address = 201", "display.i2c_address: 201 (0xC9) is not an I2C address"),
    (
        "[display]\ni2c_address = 0x78",
        "display.i2c_address: 120 (0x78) is not an I2C address (allowed: 0x03-0x77, as a "
        'number or a string like "0x3C"; 0x78 is the 8-bit form of 0x3C)',
    ),
    (
        '[display]\ni2c_address = "0x7A"',
        'display.i2c_address: "0x7A" is not an I2C address (allowed: 0x03-0x77, as a '
        'number or a string like "0x3C"; 0x7A is the 8-bit form of 0x3D)',
    ),
    ("[display]\nrotate = 4", "display.rotate: 4 is out of range (allowed: 0-3)"),
    ("[display]\nrotate = 1", "display.rotate: 1 is not allowed (allowed: 0 or 2;"),
    ("[display]\nflip = true", "display.flip: unknown key"),
    (
        '[camera]\nsource = "webcam"',
        'camera.source: "webcam" is not allowed (allowed: picamera, usb:N, folder:PATH, '
        "video:PATH)",
    ),
    ('[camera]\nsource = "usb:"', 'camera.source: "usb:" is not allowed'),
    ("[camera]\nwidth = 10", "camera.width: 10 is out of range (allowed: 160-4056)"),
    ("[camera]\nheight = 99999", "camera.height: 99999 is out of range (allowed: 120-3040)"),
    ("[camera]\nsettle_frames = 0", "camera.settle_frames: 0 is out of range (allowed: 1-30)"),
    ('[camera]\nfps = "fast"', 'camera.fps: "fast" is not a number'),
    ("[camera]\nfps = 100", "camera.fps: 100 is out of range (allowed: 1-60)"),
    ("[camera]\nsharpness = -1", "camera.sharpness: -1 is out of range (allowed: 0-16)"),
    ('[camera]\nsharpness = "off"', 'camera.sharpness: "off" is not a number'),
    ("[camera]\nmains_hz = 55", "camera.mains_hz: 55 is not allowed (allowed: 50 or 60, the mains"),
    ("[camera]\nmains_hz = 100", "camera.mains_hz: 100 is out of range (allowed: 0-60)"),
    ('[camera]\nmains_hz = "50Hz"', 'camera.mains_hz: "50Hz" is not an integer'),
    ("[camera]\nmains_hz = 50.0", "camera.mains_hz: 50.0 is not an integer"),
    ("[camera]\nsharpness = nan", "camera.sharpness: nan is out of range (allowed: 0-16)"),
    ("[table]\ndata_dir = 3", "table.data_dir: 3 is not a string"),
    (
        '[table]\ncpu_dice = "robot"',
        'table.cpu_dice: "robot" is not allowed (allowed: software, table)',
    ),
    ('[table]\nlogdir = "/x"', "table.logdir: unknown key"),
    (
        '[game]\nrules = "yahtzee"',
        'game.rules: "yahtzee" is not allowed (allowed: mexico, mexen, mex, mythical)',
    ),
    (
        '[game]\nrules = "mythical"\nplayers = ["Ann", {name = "CPU", cpu = "hard"}]',
        "game.players[2].cpu: mythical has no CPU players (allowed: people only, no cpu key)",
    ),
    ('[game]\nplayers = "Ann"', 'game.players: "Ann" is not a list of players'),
    ("[game]\nplayers = []", "game.players: the list is empty"),
    (
        '[game]\nplayers = ["Ann", "B\\nob"]',
        "game.players[2]: 'B\\nob' holds a line break or another control character",
    ),
    (
        '[game]\nplayers = ["Ann", {name = "C\\u0000"}]',
        "game.players[2].name: 'C\\x00' holds a line break",
    ),
    ("[game]\nplayers = [3]", "game.players[1]: 3 is not a player"),
    (  # the OLED's font draws Latin letters only: two such names would both be "??"
        '[game]\nplayers = ["Ann", "\u674e\u660e"]',
        "game.players[2]: '\u674e\u660e' cannot be drawn on the display (it shows '??'",
    ),
    (
        '[game]\nplayers = ["Zo\u00eb", "Zoe"]',
        "game.players: 'Zo\u00eb' and 'Zoe' look the same on the display ('Zoe')",
    ),
    (  # drawn as nothing: the turn screen showed no name, "to beat: 31" no player
        '[game]\nplayers = ["\u0301\u0301", "Bob"]',
        "game.players[1]: '\u0301\u0301' cannot be drawn on the display (it shows ''",
    ),
    (  # 300,000 characters took 14 s a screen: longer than the watchdog waits
        '[game]\nplayers = ["Ann", "Maximiliane W"]',
        "game.players[2]: 'Maximiliane W' is 13 characters long (allowed: at most 12, so "
        "that the display can show it)",
    ),
    (  # "is 24 characters long" puzzled someone who typed 12
        '[game]\nplayers = ["\u00c6\u00c6\u00c6\u00c6\u00c6\u00c6\u00c6", "Bob"]',
        "game.players[1]: '\u00c6\u00c6\u00c6\u00c6\u00c6\u00c6\u00c6' is 14 characters "
        "long as the display spells it ('AEAEAEAEAEAEAE') (allowed: at most 12, so that the "
        "display can show it)",
    ),
    (  # both "Alexande.." where a line has room for a name's start only
        '[game]\nplayers = ["Alexander G", "Alexander R"]',
        "game.players: 'Alexander G' and 'Alexander R' begin the same, and where the display "
        "has room for a name's first 8 characters only they look alike",
    ),
    (
        '[game]\nplayers = ["Al", {name = "AI", cpu = "hard"}]',
        "game.players: 'Al' and 'AI' look the same in the display's small font",
    ),
    ('[game]\nplayers = ["Ann", "Ann "]', "game.players: the name 'Ann' is used twice"),
    ('[game]\nplayers = [{nick = "A"}]', "game.players[1].nick: unknown key"),
    ('[game]\nplayers = ["Ann"]', "game.players: mexico needs 2 to 6 players, got 1"),
    (  # mexen's rules take any number; the table seated the first six and said nothing
        '[game]\nrules = "mexen"\nplayers = ["A", "B", "C", "D", "E", "F", "G", "H"]',
        "game.players: 8 players named, but the table seats at most 6, as many as its "
        "display shows (allowed: 2 to 6 players)",
    ),
    (
        '[game]\nrules = "mex"\n'
        'players = ["A", "B", "C", "D", "E", "F", {name = "X", cpu = "easy"}]',
        "game.players: 7 players named, but the table seats at most 6",
    ),
    (
        '[game]\nplayers = ["Ann", {name = "Robo", cpu = "genius"}]',
        'game.players[2].cpu: "genius" is not allowed (allowed: easy, normal, hard)',
    ),
    (  # the table seats at least one person: one of them was made a person called P1
        '[game]\nplayers = [{name = "Robo", cpu = "hard"}, {name = "Hal", cpu = "easy"}]',
        "game.players: every player is a CPU player (allowed: at least one person",
    ),
    ("[game.options]\nlives = 4", "game.options.lives: 4 is not allowed (allowed: 2, 3, 6)"),
    (
        "[game.options]\nturbo = true",
        "game.options.turbo: unknown option (options: lives, max_throws, double_on_21)",
    ),
    (  # the rule set's own check of options together
        '[game]\nrules = "mythical"\nplayers = ["A", "B", "C", "D", "E", "F"]\n'
        "[game.options]\nrounds = 8",
        "game.options.rounds: 8 rounds with 6 players need 48 dice in round 8, the bag holds 36",
    ),
    ("[gpio]\nroll = 4", "gpio: unknown section (known: buttons, display, camera, table, game)"),
    ("buttons = 3", "buttons: must be a table ([buttons]), got 3"),
    ("[buttons\nroll = 4", "not valid TOML"),
    (
        "[buttons]\nroll = 2",
        "buttons.roll: pin 2 is I2C bus 1's SDA, which the ssd1306 display uses "
        "(allowed: 4-27 with this display)",
    ),
    (
        '[buttons]\nstop = 3\n[display]\ndriver = "sh1106"',
        "buttons.stop: pin 3 is I2C bus 1's SCL, which the sh1106 display uses",
    ),
    (
        '[camera]\nsource = "usb:cam"',
        'camera.source: "usb:cam" is not allowed (allowed: usb:N with N the webcam\'s number '
        "(usb:0), or usb:/dev/videoN)",
    ),
    (  # "²" passes str.isdigit, but int() and the webcam's opening refuse it
        '[camera]\nsource = "usb:\u00b2"',
        'camera.source: "usb:\u00b2" is not allowed (allowed: usb:N with N the webcam\'s number',
    ),
    (  # the webcam's opening failed with an OpenCV error: "Python int too large"
        '[camera]\nsource = "usb:99999999999999999999"',
        'camera.source: "usb:99999999999999999999" is out of range (allowed: usb:N with N '
        "from 0 to 255",
    ),
    (
        '[camera]\nsource = "picamera:big"',
        'camera.source: "picamera:big" is not allowed (allowed: picamera, or '
        "picamera:WIDTHxHEIGHT like picamera:1280x960)",
    ),
    (
        '[table]\ndata_dir = "/var/lib/a\\u0000b"',
        "table.data_dir: '/var/lib/a\\x00b' holds a control character (allowed: a folder path)",
    ),
    (  # taken, though camera.width and camera.height refuse such sizes
        '[camera]\nsource = "picamera:99999x1"',
        'camera.source: "picamera:99999x1" is out of range (allowed: picamera:WIDTHxHEIGHT '
        "with WIDTH 160-4056 and HEIGHT 120-3040)",
    ),
    # A line break in a quoted key or value made the one line two (journal, OLED).
    ('[buttons]\n"ro\\nll" = 4', "buttons.'ro\\nll': unknown key (known in [buttons]: roll,"),
    ('["gp\\nio"]\nroll = 4', "'gp\\nio': unknown section (known: buttons,"),
    (  # taken, and the camera's "cannot be used" line was then two
        '[camera]\nsource = "video:/x\\ny.mp4"',
        "camera.source: 'video:/x\\ny.mp4' holds a control character (allowed: ",
    ),
    # Each of these, let through, ended in "internal error" (KeyError, TypeError) and
    # exit 1, which systemd restarts again and again, instead of exit 2 and one line.
    ('[game]\nplayers = [{cpu = "hard"}, "Ann"]', "game.players[1]: has no name (allowed: "),
    ("[game]\noptions = 3", "game.options: 3 is not allowed (allowed: a table of the rule"),
    ("[game]\noptions = []", "game.options: a list is not allowed (allowed: a table of the"),
    ('[display]\ndriver = ["ssd1306"]', "display.driver: a list is not allowed (allowed: ssd130"),
    ("[table]\ncpu_dice = {a = 1}", "table.cpu_dice: a table is not allowed (allowed: software"),
    # true is no number, though Python counts it as 1
    ("[buttons]\nbounce_ms = true", "buttons.bounce_ms: true is not an integer (allowed: an "),
    ("[display]\ni2c_port = true", "display.i2c_port: true is not an integer"),
    ("[camera]\nfps = true", "camera.fps: true is not a number (allowed: a number from 1 to 60)"),
    ("[buttons]\nlong_press_s = true", "buttons.long_press_s: true is not a number"),
    ("[display]\nrotate = 3", "display.rotate: 3 is not allowed (allowed: 0 or 2; the screens"),
    (  # a long press could then never be made: held that long, it is a very long one
        "[buttons]\nlong_press_s = 2\nvery_long_press_s = 2",
        "buttons.very_long_press_s: 2 is not longer than buttons.long_press_s (2)",
    ),
    ("[buttons]\nvery_long_press_s = 45", "buttons.very_long_press_s: 45 is out of range (all"),
    ('[camera]\nsource = "folder:"', 'camera.source: "folder:" is not allowed (allowed: pic'),
    ('[camera]\nsource = "video:  "', 'camera.source: "video:  " is not allowed (allowed: pic'),
    (
        '[camera]\nsource = "picamera:640x99999"',
        'camera.source: "picamera:640x99999" is out of range (allowed: picamera:WIDTHxHEIGHT',
    ),
    ('[camera]\nsource = "usb:256"', 'camera.source: "usb:256" is out of range (allowed: usb:N'),
    (
        '[display]\ndriver = "' + "x" * 200 + '"',
        'display.driver: "' + "x" * 40 + '"... (200 characters) is not allowed',
    ),
]


def test_the_edge_values_load_as_written() -> None:
    """Each error says "allowed: 0-100", "at most 12" and so on: those edges load."""
    cfg = loads_config(
        "[buttons]\nbounce_ms = 100\nlong_press_s = 0.2\n"
        "[camera]\nwidth = 4056\nheight = 3040\nfps = 1\n[display]\ni2c_address = 0x77\n"
        '[game]\nplayers = ["Alexandra Bo", "Who?"]\n',
        env={},
    )
    assert (cfg.buttons.bounce_ms, cfg.buttons.long_press_s) == (100, 0.2)
    assert (cfg.camera.width, cfg.camera.height, cfg.camera.fps) == (4056, 3040, 1.0)
    assert cfg.display.i2c_address == 0x77
    assert [p.name for p in cfg.game.players] == ["Alexandra Bo", "Who?"]  # a real "?"
    cfg = loads_config(
        "[buttons]\nbounce_ms = 0\nlong_press_s = 0.1\nvery_long_press_s = 30\n"
        "[camera]\nsettle_frames = 30\n"
        "[display]\ni2c_port = 22\ni2c_address = 0x03\n",
        env={},
    )
    assert cfg.buttons.very_long_press_s == 30.0 and cfg.camera.settle_frames == 30
    assert cfg.buttons.long_press_s == 0.1
    assert (cfg.display.i2c_port, cfg.display.i2c_address) == (22, 0x03)


@pytest.mark.parametrize(("bounce_ms", "long_s"), [(100, 0.1), (100, 0.15), (30, 0.12)])
def test_a_long_press_that_leaves_no_short_one_is_refused(bounce_ms: int, long_s: float) -> None:
    """A press counts once the contact has rested pressed for bounce_ms: with long_press_s
    no longer than that, every press was long (in mex every STOP ended the round)."""
    with pytest.raises(ConfigError) as err:
        loads_config(f"[buttons]\nbounce_ms = {bounce_ms}\nlong_press_s = {long_s}\n", env={})
    assert "buttons.long_press_s" in str(err.value) and "short press" in str(err.value)


def test_an_odd_address_is_not_called_an_8_bit_form() -> None:
    with pytest.raises(ConfigError) as err:
        loads_config("[display]\ni2c_address = 0x79", env={})
    assert "8-bit" not in str(err.value)
    with pytest.raises(ConfigError) as err:
        loads_config("[display]\ni2c_address = 0x78", env={})
    assert str(err.value).endswith("0x78 is the 8-bit form of 0x3C)")


def test_a_folder_given_as_the_config_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path, env={})
    assert str(err.value) == f"{tmp_path}: is a folder, not a config file"


def test_the_data_folder_from_the_environment_without_a_config_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from table.service import config

    monkeypatch.setattr(config, "SYSTEM_CONFIG", tmp_path / "none.toml")
    assert load_config(None, env={"DICETABLE_DATA": "/srv/games"}).table.data_dir == Path(
        "/srv/games"
    )
    # set but empty: the default, not the working directory (the service's is emptied
    # when it stops)
    assert loads_config("", env={"DICETABLE_DATA": ""}).table.data_dir == Path("/var/lib/dicetable")


@pytest.mark.parametrize(("text", "message"), BAD, ids=[m.split(":")[0] for _, m in BAD])
def test_bad_config_names_key_value_and_allowed(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        loads_config(text, env={})
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_missing_file_and_file_name_in_message(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "nope.toml", env={})
    bad = tmp_path / "bad.toml"
    bad.write_text("[display]\nrotate = 9\n")
    with pytest.raises(ConfigError) as err:
        load_config(bad, env={})
    assert str(err.value) == f"{bad}: display.rotate: 9 is out of range (allowed: 0-3)"


def test_dicetable_run_with_a_bad_config_says_one_line_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[buttons]\nroll = 41\n")
    parser = argparse.ArgumentParser()
    cli_run.add_arguments(parser)
    code = cli_run.run(parser.parse_args(["--config", str(bad), "--data", str(tmp_path)]))
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"dicetable run: {bad}: buttons.roll: 41 is not a GPIO pin (allowed: 2-27)\n"


def test_a_name_with_a_run_of_spaces_is_one_item_on_the_turn_line() -> None:
    """The screens part a line's items at two spaces, most important first: "to beat:
    52 Bob  Smith-Jones  21: x2" was three items, and the OLED showed "to beat: 52
    Bob", the other player's throw. Runs of spaces in a name are one space."""
    from table.service.referee import seat_players
    from table.service.screens import Turn, overflow

    cfg = loads_config(
        '[game]\nrules = "mexico"\nplayers = ["  Bob   Smith ", "Bob", "Cy"]', env={}
    )
    assert [p.name for p in cfg.game.players] == ["Bob Smith", "Bob", "Cy"]
    names = [p.name for p in seat_players(cli_run.initial_settings(cfg, None))]
    assert names == ["Bob Smith", "Bob", "Cy"]
    screen = Turn("Bob", "round 1  throw 1/3", "roll, then ROLL", f"to beat: 52 {names[0]}")
    assert overflow(screen) == ()


def test_the_config_names_the_seats_even_after_saved_menu_choices() -> None:
    from table.service.referee import seat_players

    cfg = loads_config(
        '[game]\nrules = "mexico"\nplayers = ["Ann", "Bob", {name = "Robo", cpu = "hard"}]',
        env={},
    )
    first = cli_run.initial_settings(cfg, None)
    assert [(p.name, p.cpu) for p in seat_players(first)] == [
        ("Ann", None),
        ("Bob", None),
        ("Robo", "hard"),
    ]
    # settings saved by the menu (4 seats, one CPU) keep the config's names for their seats
    saved = {"rules": "mexico", "players": 4, "cpus": ["easy"], "options": {}}
    again = cli_run.initial_settings(cfg, saved)
    assert [p.name for p in seat_players(again)] == ["Ann", "Bob", "P3", "Robo"]


@pytest.mark.parametrize("saved", [{}, [], "mex", {"rules": "yahtzee", "players": 3}])
def test_saved_menu_choices_that_name_no_rules_leave_the_configs_game(saved: object) -> None:
    """settings.json holding no rule set ({}, another shape, one not known) gave
    mexico with two seats, whatever the config's [game] said."""
    cfg = loads_config(
        '[game]\nrules = "mex"\nplayers = ["Ann", "Bob", "Cid"]\n[game.options]\nlives = 2\n',
        env={},
    )
    settings = cli_run.initial_settings(cfg, saved)  # type: ignore[arg-type]
    assert (settings.rules, settings.players) == ("mex", 3)
    assert dict(settings.options).get("lives") == 2


def test_a_config_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_bytes("\ufeff[display]\nrotate = 2\n".encode())
    assert load_config(path, env={}).display.rotate == 2


def test_i2c_pins_are_buttons_when_no_oled_uses_bus_1() -> None:
    for display in ('driver = "terminal"', 'driver = "none"', "i2c_port = 3"):
        cfg = loads_config(f"[buttons]\nroll = 2\nhold = 3\n[display]\n{display}", env={})
        assert (cfg.buttons.roll, cfg.buttons.hold) == (2, 3)


def test_camera_sources_in_every_allowed_form() -> None:
    for source in (
        "picamera",
        "picamera:640x480",
        "usb:0",
        "usb:255",
        "usb:/dev/video2",
        "folder:/x",
        "video:/x.mp4",
    ):
        assert loads_config(f'[camera]\nsource = "{source}"', env={}).camera.source == source


def test_a_config_that_is_not_utf8_names_the_byte_and_line(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_bytes('[game]\nplayers = ["Jos\xe9", "Bob"]\n'.encode("latin-1"))
    with pytest.raises(ConfigError) as err:
        load_config(path, env={})
    assert str(err.value) == (
        f"{path}: byte 0xe9 on line 2 is not UTF-8 text (allowed: a text file saved as UTF-8)"
    )


def test_MY_1_mythical_is_accepted_and_the_menu_starts_with_it() -> None:
    cfg = loads_config(
        '[game]\nrules = "mythical"\nplayers = ["Ann", "Bob", "Cid"]\n[game.options]\nrounds = 2\n',
        env={},
    )
    assert cfg.game.rules == "mythical" and dict(cfg.game.options) == {"rounds": 2}
    settings = cli_run.initial_settings(cfg, None)
    assert settings.rules == "mythical" and settings.players == 3 and settings.cpus == ()
    assert dict(settings.options) == {"rounds": 2}


@pytest.mark.parametrize(
    ("text", "key", "allowed"),
    [
        ("[buttons]\nlong_press_s = {n}", "buttons.long_press_s", "0.1-10"),
        ("[camera]\nfps = {n}", "camera.fps", "1-60"),
        ("[camera]\nwidth = {n}", "camera.width", "160-4056"),
    ],
)
def test_a_whole_number_of_hundreds_of_digits_is_out_of_range_in_one_short_line(
    text: str, key: str, allowed: str
) -> None:
    """A number setting given a whole number too big for a float stopped the table with
    "internal error: OverflowError"; and the number was written out whole, 400 digits
    on one line. Now it is out of range, and shown cut."""
    with pytest.raises(ConfigError) as err:
        loads_config(text.format(n="1" + "0" * 400), env={})
    msg = str(err.value)
    assert msg == f"{key}: 100000000000... (401 digits) is out of range (allowed: {allowed})"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("a = " + "[" * 600 + "]" * 600, "not valid TOML (values nested too deeply)"),
        ("a = " + "{b = " * 600 + "1" + "}" * 600, "not valid TOML (values nested too deeply)"),
        ("[" + ".".join(["a"] * 3000) + "]\nx = 1", "unknown section"),
        ('[camera]\nsource = "picamera:' + "9" * 5000 + 'x1"', "picamera:WIDTHxHEIGHT"),
        ('[display]\ndriver = "' + "x" * 5000 + '"', '"' + "x" * 40 + '"... (5000 characters)'),
        ("[display]\n" + "k" * 3000 + " = 1", "k" * 30 + "... (3000 characters): unknown key"),
        ("[display]\ni2c_address = " + "9" * 4000, "999999999999... (4000 digits) is not an"),
        ('[camera]\nsource = "usb:' + "9" * 5000 + '"', "(5004 characters) is out of range"),
        # int() reads any script's digits: "٣" was the address 0x03
        ('[display]\ni2c_address = "\u0663"', '"\u0663" is not an I2C address (allowed'),
        # a name was written out whole in the errors that are the name's own
        ('[game]\nplayers = ["' + "a" * 200000 + '", "Bob"]', "(200000 characters) is 200000"),
        ('[game]\nplayers = ["' + "a" * 9000 + '\\u0007"]', "(9001 characters) holds a line"),
        ('[game]\nplayers = ["' + "\U0001f3b2" * 5000 + '"]', "(5000 characters) cannot be"),
        ('[table]\ndata_dir = "/' + "a" * 9000 + '\\u0007"', "(9002 characters) holds a"),
    ],
)
def test_a_config_made_to_break_the_reader_is_one_short_line(text: str, said: str) -> None:
    """Each of these ended in "internal error" (RecursionError, ValueError), took half a
    minute to be said on the display, or wrote its value out whole (kilobytes on one
    line). Each is now a ConfigError of one short line."""
    with pytest.raises(ConfigError) as err:
        loads_config(text, env={})
    msg = str(err.value)
    assert said in msg and len(msg) < 300 and "\n" not in msg, msg


def test_a_config_that_is_a_device_or_too_big_is_not_read(tmp_path: Path) -> None:
    """--config /dev/zero read until memory ran out; /dev/null stays the empty config."""
    with pytest.raises(ConfigError, match=r"/dev/zero: cannot read \(not a regular file"):
        load_config("/dev/zero", env={})
    assert load_config(os.devnull, env={}).table == loads_config("", env={}).table
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * (2 << 20) + "\n")
    with pytest.raises(ConfigError, match=r"big\.toml: cannot read \(bigger than"):
        load_config(big, env={})


@pytest.mark.parametrize("hz", [0, 50, 60])
def test_camera_mains_hz_takes_the_two_mains_frequencies_or_none(hz: int) -> None:
    assert loads_config(f"[camera]\nmains_hz = {hz}").camera.mains_hz == hz


def test_camera_sharpness_is_read_as_a_number() -> None:
    """0 turns the Pi camera's own sharpening off; a whole number is as good as 0.0."""
    assert loads_config("[camera]\nsharpness = 0").camera.sharpness == 0.0
    assert loads_config("[camera]\nsharpness = 2.5").camera.sharpness == 2.5


def test_a_value_of_the_longest_length_shown_is_shown_whole() -> None:
    """Up to 120 characters a value is shown whole in the error; only beyond it is it cut."""
    from table.service.config import ConfigError, loads_config

    with pytest.raises(ConfigError) as err:
        loads_config('[display]\ndriver = "' + "x" * 120 + '"', env={})
    assert '"' + "x" * 120 + '" is not allowed' in str(err.value)
    assert "characters)" not in str(err.value)
