"""The referee driven like the table drives it: button presses and settled readings.

Readings are built by hand (``vision.types``); every game's logged events are
replayed through :func:`table.game.replay` and must give the referee's own state.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table.game import Game, GameHeader, replay
from table.gamelog import LoadedGame
from table.rules.base import (
    Bids,
    Count,
    EndGame,
    EndRound,
    Event,
    EventKind,
    Give,
    Hold,
    Player,
    Roll,
    Stand,
    Throw,
)
from table.service.ports import Button, ButtonPress, Press
from table.service.referee import (
    MENU_RULES,
    DiceWanted,
    Output,
    Referee,
    Settings,
    normalize,
    seat_players,
)
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
    Turn,
    overflow,
    render,
    render_text,
    shown_whole,
)
from tests.conftest import HOLD, ROLL, STOP, STOP_LONG, STOP_VERY_LONG
from vision.types import DieReading, FrameReading, FrameStatus

DIE = 40.0  # die size in pixels in the fake readings
LANDED = 12.0  # how far from the last throw's dice ``Table.throw`` lays the next


def die(value: int | None, x: float, y: float = 200.0, reason: str = "") -> DieReading:
    return DieReading(value, (x, y), ((x, y), (DIE, DIE), 0.0), 0.99, reason)


def dice(
    *values: int, xs: tuple[float, ...] = (100.0, 300.0, 500.0), y: float = 200.0
) -> FrameReading:
    """An ok reading of ``values`` lying at ``xs``."""
    found = tuple(die(v, x, y) for v, x in zip(values, xs, strict=False))
    return FrameReading(FrameStatus.OK, "", found)


def reroll(reason: str = "die tilted") -> FrameReading:
    # away from where ``dice`` lays dice: a die read where a refused one lay was not thrown
    return FrameReading(FrameStatus.REROLL, reason, (die(None, 60.0, 60.0, reason="tilted"),))


@dataclass
class Table:
    """The loop's part in miniature: keeps the log and checks every Output."""

    ref: Referee
    out: Output
    header: GameHeader | None = None
    events: list[Event] = field(default_factory=list)
    outputs: list[Output] = field(default_factory=list)
    rolls: int = 0
    names_cut: bool = False  # names too long for the display: only they may be cut

    @staticmethod
    def boot(
        s: Settings, resume: LoadedGame | None = None, seed: int = 7, by_hand: bool = False
    ) -> Table:
        ref, out = Referee.boot(s, resume, seed, cpu_dice_by_hand=by_hand)
        t = Table(ref, out)
        if resume is not None:
            t.header = resume.header
            t.events = list(resume.events)
        t._take(out)
        return t

    def _take(self, out: Output) -> Output:
        assert out.screen is not None
        render(out.screen)  # every screen draws
        if out.new_game is not None:
            self.header = out.new_game
            self.events = []
        cut = overflow(out.screen)
        if self.names_cut and self.header is not None:
            names = [p.name for p in self.header.players]
            cut = tuple(c for c in cut if not any(n in c for n in names))
        assert cut == (), render_text(out.screen)  # and nothing is cut
        assert render_text(out.screen)
        self.events.extend(out.log)
        self.out = out
        self.outputs.append(out)
        if self.ref.game is not None and self.header is not None:
            assert replay(self.header, self.events).state == self.ref.game.state
        return out

    def press(self, p: ButtonPress) -> Output:
        self.ref, out = self.ref.on_press(p)
        return self._take(out)

    def read(self, r: FrameReading) -> Output:
        self.ref, out = self.ref.on_reading(r)
        return self._take(out)

    def throw(self, *values: int, xs: tuple[float, ...] = (100.0, 300.0, 500.0)) -> Output:
        """ROLL, then the reading: the ordinary throw. Thrown dice land a little off
        where the last ones lay (less than a held die may shift): the same dice lying
        unmoved are no throw."""
        out = self.press(ROLL)
        assert out.want_dice, render_text(out.screen)
        assert isinstance(out.screen, Reading)
        self.rolls += 1
        return self.read(dice(*values, xs=xs, y=200.0 + LANDED * (self.rolls % 2)))

    @property
    def game(self) -> Game:
        assert self.ref.game is not None
        return self.ref.game


def start(s: Settings, by_hand: bool = False, names_cut: bool = False) -> Table:
    """Boot and walk the menu with ROLL (keeping every remembered choice)."""
    t = Table.boot(s, by_hand=by_hand)
    t.names_cut = names_cut
    for _ in range(30):
        out = t.press(ROLL)
        if out.new_game is not None:
            assert isinstance(out.screen, Turn)
            return t
    raise AssertionError("the menu never started a game")


def opts(**kw: object) -> tuple[tuple[str, object], ...]:
    return tuple(kw.items())


# ---------------------------------------------------------------------------
# Menu


def test_power_on_shows_the_menu_with_the_last_rules() -> None:
    t = Table.boot(Settings(rules="mex", players=3))
    assert isinstance(t.out.screen, Menu)
    assert t.out.screen.title == "rules"
    assert t.out.screen.item == "mex"
    assert not t.out.want_dice and t.out.new_game is None
    assert t.out.status == "menu: rules"


def test_menu_walk_starts_the_remembered_game() -> None:
    s = Settings(rules="mexico", players=3, options=opts(lives=2, max_throws=1))
    t = start(s)
    header = t.header
    assert header is not None
    assert header.rules == "mexico"
    assert [p.name for p in header.players] == ["P1", "P2", "P3"]
    assert dict(header.options) == {"lives": 2, "max_throws": 1, "double_on_21": True}
    assert header.seed is not None
    screen = t.out.screen
    assert isinstance(screen, Turn)
    assert screen.player == "P1" and screen.lives == 2
    assert "throw 1/1" in screen.header


def test_menu_options_come_from_the_rules_option_specs() -> None:
    for rules, names in (
        ("mexico", {"lives", "max throws", "double on 21"}),
        ("mex", {"lives", "max throws"}),
        ("mexen", {"stake", "variant", "rounds", "limit"}),
    ):
        t = Table.boot(Settings(rules=rules))
        titles = set()
        for _ in range(30):
            screen = t.out.screen
            assert isinstance(screen, Menu)
            titles.add(screen.title)
            if screen.title == "start game":
                break
            t.press(ROLL)
        assert names <= titles, (rules, titles)


def test_menu_hold_cycles_stop_goes_back_and_new_choices_are_saved() -> None:
    t = Table.boot(Settings(rules="mexico"))
    seen = [t.out.screen.item for _ in range(1) if isinstance(t.out.screen, Menu)]
    for _ in range(len(MENU_RULES)):
        out = t.press(HOLD)
        assert isinstance(out.screen, Menu)
        seen.append(out.screen.item)
    assert sorted(set(seen)) == sorted(MENU_RULES)
    assert seen[0] == seen[-1]  # back round to the start
    out = t.press(STOP)
    assert isinstance(out.screen, Message | Menu)
    assert "first choice" in render_text(out.screen)
    # choose mexen: HOLD until it shows, then ROLL
    while not (isinstance(t.out.screen, Menu) and t.out.screen.item == "mexen"):
        t.press(HOLD)
    out = t.press(ROLL)
    assert isinstance(out.screen, Menu) and out.screen.title == "players"
    out = t.press(STOP)
    assert isinstance(out.screen, Menu) and out.screen.title == "rules"
    assert out.screen.item == "mexen"  # the choice was kept
    for _ in range(30):
        out = t.press(ROLL)
        if out.new_game is not None:
            break
    assert out.new_game is not None and out.new_game.rules == "mexen"
    assert out.settings is not None and out.settings.rules == "mexen"


def test_settings_json_round_trip_and_tolerance() -> None:
    s = Settings(rules="mex", players=4, options=opts(lives=5, max_throws=2))
    assert Settings.from_json(s.to_json()) == s
    assert Settings.from_json(None) == Settings()
    assert Settings.from_json([1, 2]) == Settings()
    bad = {"rules": "chess", "players": 99, "cpus": "x", "options": {"lives": 1000, "zz": 1}}
    got = Settings.from_json(bad)
    assert got.rules == "mexico" and got.players == 6 and got.cpus == () and got.options == ()
    got = Settings.from_json({"rules": "mexico", "players": True, "options": {"lives": 6}})
    assert got.players == 2 and dict(got.options) == {"lives": 6}


def test_seat_names() -> None:
    names = [p.name for p in seat_players(Settings(players=4, cpus=("easy", "hard")))]
    assert names == ["P1", "P2", "CPU1", "CPU2"]


def test_seat_names_from_the_config() -> None:
    s = Settings(players=4, cpus=("hard",), names=("Ann", "Bob"), cpu_names=("Robo",))
    assert [(p.name, p.cpu) for p in seat_players(s)] == [
        ("Ann", None),
        ("Bob", None),
        ("P3", None),
        ("Robo", "hard"),
    ]
    # fewer seats than names: the first names; a blank or repeated name gives way
    assert [p.name for p in seat_players(replace(s, players=2, cpus=()))] == ["Ann", "Bob"]
    s = Settings(players=3, names=("Ann", " ", "Ann"))
    assert [p.name for p in seat_players(s)] == ["Ann", "P2", "P3"]
    # a default never takes a name given to a later seat
    s = Settings(players=3, names=("", "P1"))
    assert [p.name for p in seat_players(s)] == ["P2", "P1", "P3"]
    # the menu's changes keep the names, and the names are not saved with the choices
    assert normalize(replace(s, players=4)).names == ("", "P1")
    assert "names" not in s.to_json()


def test_a_game_started_from_the_menu_seats_the_config_names() -> None:
    t = start(Settings("mexico", 2, names=("Ann", "Bob")))
    out = t.throw(6, 3)
    assert isinstance(out.screen, Result) and out.screen.player == "Ann"


# ---------------------------------------------------------------------------
# mexico


def test_whole_game_of_mexico() -> None:
    t = start(Settings("mexico", 2, options=opts(lives=2, max_throws=2, double_on_21=True)))
    out = t.throw(6, 3)
    assert isinstance(out.screen, Result)
    assert out.screen.shown == "63" and out.screen.player == "P1"
    assert out.log == (Throw((6, 3)),)
    out = t.press(STOP)  # stand on 63
    assert out.log == (Stand(),)
    assert isinstance(out.screen, Turn) and out.screen.player == "P2"
    out = t.throw(4, 4)
    assert isinstance(out.screen, Result) and out.screen.shown == "44"  # R-3: pair names
    out = t.throw(2, 1)  # 21 on the last throw: P1's 63 is lowest and the loss doubles
    assert out.log == (Throw((2, 1)),)
    assert out.game_over  # P1 had 2 lives: out, P2 wins
    assert isinstance(out.screen, GameEnd)
    assert out.screen.headline == "P2 wins!"
    assert dict(out.screen.standings) == {"P1": "0", "P2": "2"}


def test_a_round_end_crowded_by_five_players_first_names_the_losers_and_the_throw() -> None:
    """MC-4: with five long names the standings take the round end's room: "2 players
    lose 1 life" named nobody and the throw that ended the round (a CPU's software dice
    are seen nowhere else) was left out. A notice says both first; a press shows the
    standings, and the next press is the next player's as on any round end."""
    names = ("Maximilian12", "Bartholomeus", "Christopher1", "Wolfgangxxxx", "Friedrichxyz")
    s = Settings("mexico", 5, names=names, options=opts(lives=3, max_throws=1))
    t = start(s, names_cut=True)
    for pair in ((3, 1), (3, 1), (6, 5), (6, 4)):
        assert isinstance(t.throw(*pair).screen, Result)
    out = t.throw(6, 3)  # the last throw of round 1: Maximilian12 and Bartholomeus lowest
    assert out.log == (Throw((6, 3)),)
    assert isinstance(out.screen, Message) and out.screen.title == "round 1 over"
    assert overflow(out.screen) == ()
    assert out.screen.text == "Friedrichxyz 63; Maximilian12, Bartholomeus lose 1 life"
    out = t.press(ROLL)  # only takes the notice away
    assert out.log == () and not out.want_dice
    assert isinstance(out.screen, RoundEnd) and out.screen.hint == "next: Maximilian12"
    assert [v for _, v in out.screen.standings] == ["2", "2", "3", "3", "3"]
    out = t.press(ROLL)  # Maximilian12 rolled: read as after any round end
    assert out.want_dice and isinstance(out.screen, Reading)


# Six names of 12 letters: no standings show them whole.
SIX_LONG_NAMES = (
    "Maximilian12",
    "Bartholomeus",
    "Christopher1",
    "Wolfgangxxxx",
    "Friedrichxyz",
    "Sebastianxyz",
)


def test_a_round_end_says_six_long_names_whole_over_as_many_notices_as_it_takes() -> None:
    """MC-3, MC-4: three of six long names lose 2 lives to a Mexico and are out. One
    notice cut "lose 2 lives" and "are out" off; each part is now said whole, one
    notice a press, then the round end."""
    names = SIX_LONG_NAMES
    s = Settings("mexico", 6, names=names, options=opts(lives=2, max_throws=1))
    t = start(s, names_cut=True)
    for pair in ((3, 1), (3, 1), (3, 1), (6, 5), (6, 4)):
        t.throw(*pair)
    out = t.throw(2, 1)
    said = []
    while isinstance(out.screen, Message):
        assert out.screen.title == "round 1 over" and overflow(out.screen) == ()
        said.append(out.screen.text)
        out = t.press(ROLL)
        assert out.log == () and not out.want_dice
    assert isinstance(out.screen, RoundEnd) and out.screen.hint == "next: Wolfgangxxxx"
    told = "; ".join(said)
    for part in (
        "Sebastianxyz MEX!",
        "Maximilian12, Bartholomeus, Christopher1 lose 2 lives",
        "Maximilian12, Bartholomeus, Christopher1 are out",
    ):
        assert part in told, said
    assert len(said) <= 3


def test_a_game_ending_on_a_crowded_round_says_the_throw_and_the_losers_first() -> None:
    """MC-3, MC-4: the game's end has a line for its last round, which six names leave
    no room for: the throw that ended it and who lost were shown nowhere. They come
    first, as on any crowded round's end (five names too long for a notice counted
    instead: the standings below show them at 0); then who won; then the menu."""
    s = Settings("mexico", 6, names=SIX_LONG_NAMES, options=opts(lives=2, max_throws=1))
    t = start(s, names_cut=True)
    t.throw(2, 1)  # Maximilian12's Mexico: the lowest lose 2 lives, all they have
    for _ in range(4):
        t.throw(3, 1)
    out = t.throw(3, 1)
    assert out.game_over and t.game.is_over
    said = []
    while isinstance(out.screen, Message):
        assert overflow(out.screen) == ()
        said.append(out.screen.text)
        out = t.press(ROLL)
    told = "; ".join(said)
    assert told.startswith("Sebastianxyz 31; "), said
    assert told == "Sebastianxyz 31; 5 players lost 2"  # the names: too many for a notice
    assert isinstance(out.screen, GameEnd) and out.screen.headline == "Maximilian12 wins!"
    assert isinstance(t.press(ROLL).screen, Menu)


def test_a_game_ended_from_the_menu_repeats_no_round_s_loss() -> None:
    """E-1: ended from the end-game menu in round 2, before anyone threw, the game said
    "round 2 over: 5 players lost 2": round 1's loss, told once already, under the
    number of a round that never ended. The end comes at once."""
    s = Settings("mexico", 6, names=SIX_LONG_NAMES, options=opts(lives=3, max_throws=1))
    t = start(s, names_cut=True)
    t.throw(2, 1)
    for _ in range(5):
        out = t.throw(3, 1)
    while t.ref.dismiss:  # round 1's notices
        out = t.press(ROLL)
    assert isinstance(out.screen, RoundEnd) and t.game.view()["round"] == 2
    t.press(STOP_VERY_LONG)
    t.press(HOLD)
    out = t.press(ROLL)  # "yes, end it"
    assert out.log == (EndGame(),) and out.game_over
    assert isinstance(out.screen, GameEnd)


def test_a_round_end_with_room_is_one_screen() -> None:
    t = start(Settings("mexico", 5, options=opts(lives=3, max_throws=1)))
    for pair in ((3, 1), (3, 1), (6, 5), (6, 4)):
        t.throw(*pair)
    out = t.throw(6, 3)
    assert isinstance(out.screen, RoundEnd) and out.screen.lost == "P1, P2 lose 1 life"
    assert "P5 63" in shown_whole(out.screen)
    assert t.press(ROLL).want_dice


def test_mexico_round_then_game_over_then_menu() -> None:
    t = start(Settings("mexico", 2, options=opts(lives=2, max_throws=1, double_on_21=False)))
    out = t.throw(6, 5)
    assert isinstance(out.screen, Result) and out.screen.hint == "next: P2"
    out = t.throw(3, 2)
    assert isinstance(out.screen, RoundEnd)
    assert out.screen.lost == "P2 loses 1 life"
    assert dict(out.screen.standings) == {"P1": "2", "P2": "1"}
    assert not out.game_over
    # round 2 starts with the loser (MC-5)
    out = t.throw(4, 3)
    assert isinstance(out.screen, Result) and out.screen.player == "P2"
    out = t.throw(5, 5)
    assert out.game_over
    assert isinstance(out.screen, GameEnd)
    assert out.screen.headline == "P1 wins!"
    assert out.status == "game over"
    out = t.press(HOLD)  # any button: back to the menu
    assert isinstance(out.screen, Menu) and out.screen.title == "rules"
    assert t.ref.game is None


def test_turn_screen_says_what_to_beat() -> None:
    t = start(Settings("mexico", 3))
    t.throw(6, 3)
    t.press(STOP)
    out = t.throw(5, 4)
    out = t.press(STOP)
    assert isinstance(out.screen, Turn) and out.screen.player == "P3"
    assert out.screen.info == "to beat: 54 P2"
    assert out.screen.standings == (("P1", "3"), ("P2", "3"), ("P3", "3"))


def test_turn_screen_names_the_first_of_two_kept_alike_as_the_one_to_beat() -> None:
    """63 and 36 are one pair: the first to keep it is named, as the rules rank them."""
    t = start(Settings("mexico", 3))
    t.throw(6, 3)
    t.press(STOP)
    t.throw(3, 6)
    out = t.press(STOP)
    assert isinstance(out.screen, Turn) and out.screen.player == "P3"
    assert out.screen.info == "to beat: 63 P1"


def test_turn_screen_in_mex_says_a_kept_double_1_is_what_to_beat() -> None:
    """R-3, MX-6: a double 1 is shown as 100 and is still the throw to beat."""
    t = start(Settings("mex", 3))
    t.throw(1, 1)
    out = t.press(STOP)
    assert isinstance(out.screen, Turn) and out.screen.player == "P2"
    assert out.screen.info == "to beat: 100 P1"


def test_mexico_everyone_lowest_loses_together() -> None:
    t = start(Settings("mexico", 3, options=opts(lives=3, max_throws=1, double_on_21=False)))
    t.throw(4, 2)
    t.throw(2, 4)
    out = t.throw(5, 3)
    assert isinstance(out.screen, RoundEnd)
    assert out.screen.lost == "P1, P2 lose 1 life"
    t.throw(4, 3)  # round 2 starts with P1 (MC-5)
    t.throw(3, 4)
    out = t.throw(4, 3)
    assert isinstance(out.screen, RoundEnd) and out.screen.lost == "all lose 1 life"
    assert dict(out.screen.standings) == {"P1": "1", "P2": "1", "P3": "2"}


def test_MC_4_a_last_round_everyone_loses_ends_in_a_draw_said_plainly() -> None:
    """The game's end joined the last throw and the losers with a comma: "P3 MEX!, P1,
    P2, P3 lost 2" read as four names. It now says it as the round's end does."""
    t = start(Settings("mexico", 3, options=opts(lives=2, max_throws=1)))
    t.throw(2, 1)
    t.throw(1, 2)
    out = t.throw(2, 1)  # three Mexes: all lowest together, 2 lives each (MC-3, MC-4)
    assert isinstance(out.screen, GameEnd) and out.screen.headline == "draw"
    assert out.screen.detail == "P3 MEX!; all lost 2", out.screen.detail
    t = start(Settings("mexico", 3, options=opts(lives=2, max_throws=1)))
    t.throw(4, 2)
    t.throw(2, 4)
    out = t.throw(2, 1)  # P3's Mex: the lowest two lose 2 each (MC-3)
    assert isinstance(out.screen, GameEnd) and out.screen.headline == "P3 wins!"
    assert out.screen.detail == "P3 MEX!; P1, P2 lost 2", out.screen.detail


LONG = "Bartholomew Wolfgang Amadeus"


def test_a_long_name_is_cut_before_the_loss_or_the_win_is() -> None:
    """The config takes names of any length. On a round's end and the game's end the
    name gives way, never what happened to its player ("Bartholomew Wolfgang .." with
    no "wins!", "Alexander Schmidt lose.." with no 2)."""
    t = start(
        Settings("mexico", 2, names=(LONG, "Bob"), options=opts(lives=3, max_throws=1)),
        names_cut=True,
    )
    out = t.throw(4, 1)
    out = t.throw(2, 1)  # Bob's Mex: the long name loses 2 (MC-3)
    assert isinstance(out.screen, RoundEnd) and out.screen.lost == "Bartholomew W.. loses 2"
    while not isinstance(out.screen, GameEnd):
        if t.game.is_over:  # the last round first, its names too long for the end's line
            assert isinstance(out.screen, Message) and "lost" in out.screen.text
            out = t.press(ROLL)
            continue
        turn = t.game.turn
        assert turn is not None
        out = t.throw(*((2, 1) if turn.player == LONG else (4, 1)))
    assert out.screen.headline.endswith(".. wins!") and out.screen.headline.startswith("Bart")
    short = start(Settings("mexico", 2, names=("Ann", "Bob"), options=opts(lives=3, max_throws=1)))
    short.throw(4, 1)
    out = short.throw(2, 1)
    assert isinstance(out.screen, RoundEnd) and out.screen.lost == "Ann loses 2 lives"


def test_a_name_cut_before_the_loss_or_the_win_stands_for_one_player() -> None:
    """Two names alike up to their last letter, each too long for the line, were both cut
    "Bartholomew W.. loses 2": whose loss it was could not be told. A cut that could be
    another player's keeps the letters it differs by."""
    a, b = "Bartholomew Wolfgang A", "Bartholomew Wolfgang B"
    t = start(
        Settings("mexico", 2, names=(a, b), options=opts(lives=3, max_throws=1)), names_cut=True
    )
    t.throw(4, 1)
    out = t.throw(2, 1)  # b's Mex: a loses 2 (MC-3)
    while isinstance(out.screen, Message):  # the names whole first, as a notice
        out = t.press(ROLL)
    assert isinstance(out.screen, RoundEnd)
    cut = out.screen.lost.removesuffix(" loses 2")
    assert ".." in cut and cut.endswith("A") and a.startswith(cut.partition("..")[0]), cut
    while not isinstance(out.screen, GameEnd):
        if t.game.is_over or not out.want_dice:
            out = t.press(ROLL)
            continue
        turn = t.game.turn
        assert turn is not None
        out = t.throw(*((2, 1) if turn.player == a else (4, 1)))
    cut = out.screen.headline.removesuffix(" wins!")
    assert ".." in cut and cut.endswith("A") and a.startswith(cut.partition("..")[0]), cut


def test_mexico_shows_mex_and_keeps_pair_names() -> None:
    t = start(Settings("mexico", 2))
    out = t.throw(1, 2)
    assert isinstance(out.screen, Result) and out.screen.shown == "MEX!"
    out = t.throw(6, 6)
    assert isinstance(out.screen, Result) and out.screen.shown == "66"


def test_buttons_that_mean_nothing_say_so() -> None:
    t = start(Settings("mexico", 2))
    before = t.game
    out = t.press(HOLD)
    assert isinstance(out.screen, Message) and "not in mexico" in out.screen.text
    out = t.press(STOP)
    assert isinstance(out.screen, Message) and "throw first" in out.screen.text
    out = t.press(STOP_LONG)
    assert isinstance(out.screen, Message) and "mexico" in out.screen.text
    # GAME_LOG.md: a stand the rules do not allow is logged refused, with the rules'
    # reason (a HOLD in mexico names no die, and an end_round before anyone threw is
    # nobody's: no event to log)
    assert t.game.state == before.state
    assert t.events == [Stand()]
    assert [r.event for r in t.game.refused] == [Stand()]
    assert all(r.reason.startswith("mexico: ") for r in t.game.refused)
    out = t.press(ROLL)
    assert out.want_dice
    out = t.press(ROLL)  # ROLL while reading
    assert out.want_dice and "still reading" in render_text(out.screen)
    out = t.press(HOLD)
    assert out.want_dice and "still reading" in render_text(out.screen)
    out = t.press(STOP)  # cancels the reading
    assert not out.want_dice and "cancelled" in render_text(out.screen)
    assert t.events == [Stand()]  # only the one refused above


def test_reading_arriving_unasked_changes_nothing() -> None:
    t = start(Settings("mexico", 2))
    screen = t.out.screen
    out = t.read(dice(6, 3))
    assert out.log == () and out.screen == screen and not out.want_dice


def test_reroll_reading_is_shown_and_not_logged() -> None:
    t = start(Settings("mexico", 2))
    t.press(ROLL)
    out = t.read(reroll("die tilted"))
    assert out.log == ()
    assert out.want_dice  # still waiting for the next settled reading
    assert isinstance(out.screen, Refusal) and "die tilted" in out.screen.reason
    assert "roll again" in render_text(out.screen)
    assert t.game.turn is not None and t.game.turn.throw == 0  # not counted
    out = t.read(dice(5, 4))
    assert out.log == (Throw((5, 4)),)


def test_roll_after_roll_again_says_the_dice_were_thrown_again() -> None:
    """After "roll again" the table goes on reading; the player rolls and presses ROLL,
    as for any throw. That press is passed on (``rolled``: a camera replaying photos
    shows its next one) and the screen says the table reads, not "still reading"."""
    t = start(Settings("mexico", 2))
    out = t.press(ROLL)
    assert not out.rolled
    out = t.press(ROLL)  # before any reading: the same throw
    assert out.want_dice and not out.rolled and "still reading" in render_text(out.screen)
    t.read(reroll("die tilted"))
    out = t.press(HOLD)
    assert not out.rolled and "still reading" in render_text(out.screen)
    out = t.press(ROLL)
    assert out.want_dice and out.rolled and out.log == ()
    assert isinstance(out.screen, Reading) and "still" not in render_text(out.screen)
    out = t.press(ROLL)  # reading the new throw: pressed again, nothing new
    assert out.want_dice and not out.rolled and "still reading" in render_text(out.screen)
    assert t.read(dice(5, 4)).log == (Throw((5, 4)),)


def test_the_last_throws_dice_lying_unrolled_are_no_throw() -> None:
    """ROLL pressed with the last throw's dice still lying as they fell: read as they
    lie, they would be scored as a throw nobody made (mexico, MC-2: P2's throw)."""
    t = start(Settings("mexico", 2))
    t.press(ROLL)
    assert t.read(dice(6, 3)).log == (Throw((6, 3)),)
    t.press(STOP)  # P1 stands; P2 presses ROLL without rolling
    assert t.press(ROLL).want_dice
    out = t.read(dice(3, 6, xs=(302.0, 98.0), y=203.0))  # read a few pixels off, any order
    assert out.log == () and out.want_dice
    assert isinstance(out.screen, Refusal)
    assert render_text(out.screen).splitlines() == [
        "[not counted]",
        "dice lie as last thrown",
        "P2: roll them",
    ]
    assert t.game.turn is not None and t.game.turn.player == "P2" and t.game.turn.throw == 0
    # rolled, the same faces may come up again, elsewhere
    out = t.read(dice(6, 3, xs=(250.0, 420.0)))
    assert out.log == (Throw((6, 3)),)


@pytest.mark.parametrize(
    ("second", "refused"),
    [
        ((6, 3, 100.0 + 0.2 * DIE, 300.0), "dice lie as last thrown"),  # at the edge
        ((6, 3, 100.0 + 0.25 * DIE, 300.0), "a die was not thrown"),  # the 6 moved, not the 3
        ((6, 4, 100.0, 300.0), "a die was not thrown"),  # the 3 turned up a 4; the 6 lay
        # pushed by the die thrown (a fifth of its size), the 6 was still not thrown
        ((6, 4, 100.0 + 0.2 * DIE, 300.0), "a die was not thrown"),
        ((6, 3, 100.0 + 0.25 * DIE, 300.0 - 0.25 * DIE), ""),  # both moved: rolled
        ((4, 6, 100.0, 300.0), ""),  # the same places, other faces
    ],
)
def test_an_unrolled_die_is_one_within_a_little_of_where_it_lay(
    second: tuple[int, int, float, float], refused: str
) -> None:
    """A die showing the face it showed within 0.2 of its size of where it lay was not
    thrown (the die thrown may push it that far: at 0.15, 8 px of a 50-px die, one
    pushed 10 px counted as thrown). Both such: the dice lie as last thrown. One such
    (MC-2, MX: both dice are thrown): a throw of 63 where only the 3 was rolled and came
    up a 4 was counted 64."""
    a, b, xa, xb = second
    t = start(Settings("mex", 2))
    t.press(ROLL)
    t.read(dice(6, 3, xs=(100.0, 300.0)))
    t.press(STOP)
    t.press(ROLL)
    out = t.read(dice(a, b, xs=(xa, xb)))
    assert bool(out.log) == (not refused)
    if refused:
        assert isinstance(out.screen, Refusal) and out.screen.reason == refused


def test_MN_10_one_die_of_the_last_throw_left_lying_is_no_tie_break_throw() -> None:
    """The last turn's two dice still lie in the tray; the tie-break wants one die each.
    Taking one away and pressing ROLL without rolling the other was counted: the die
    lying as thrown was scored as a tie-break throw nobody made."""
    t = mexen(rounds=1)
    t.throw(3, 2)  # 32 ends the turn at once (MN-3)
    t.throw(3, 2, xs=(150.0, 420.0))  # a tie at 32: one die each (MN-10)
    assert t.game.view()["phase"] == "tiebreak"
    last = t.ref.last_roll
    assert t.press(ROLL).want_dice
    out = t.read(FrameReading(FrameStatus.OK, "", (last[1],)))  # the 2, where it lay
    assert out.log == () and "lie as last thrown" in render_text(out.screen)
    out = t.read(dice(2, xs=(250.0,)))  # rolled: a 2 again, elsewhere
    assert out.log == (Throw((2,)),)


def test_a_reroll_between_keeps_the_last_throw_to_hold_the_tray_against() -> None:
    t = start(Settings("mexico", 2))
    t.press(ROLL)
    t.read(dice(5, 4))
    t.press(STOP)
    t.press(ROLL)
    assert isinstance(t.read(reroll("die 1 is unclear")).screen, Refusal)
    out = t.read(dice(5, 4))  # read cleanly at last, still where they fell
    assert out.log == () and "lie as last thrown" in render_text(out.screen)


def test_a_held_die_may_lie_still_but_the_other_must_be_rolled() -> None:
    """MN-5: the 5 stays where it lay; the 2 left lying too is no throw."""
    t = mexen()
    t.throw(5, 2, xs=(100.0, 300.0))
    held_first(t, 5)
    last = t.ref.last_roll
    out = t.read(FrameReading(FrameStatus.OK, "", last))
    assert out.log == () and "lie as last thrown" in render_text(out.screen)
    out = t.read(FrameReading(FrameStatus.OK, "", (last[0], die(2, 360.0))))
    assert out.log == (Throw((5, 2)),)


def test_software_dice_leave_the_tray_as_it_was() -> None:
    """A CPU's throw in software touches no die: the person after it who presses ROLL
    without rolling is still told so."""
    t = start(Settings("mexico", 2, cpus=("hard",)))
    assert t.game.turn is not None and t.game.turn.player == "P1"
    t.press(ROLL)
    t.read(dice(4, 1))
    last = t.ref.last_roll
    t.press(STOP)
    logged = len(t.events)
    for _ in range(12):  # the CPU's turn, played with ROLL
        if t.game.turn is None or t.game.turn.player == "P1" or t.game.is_over:
            break
        t.press(ROLL)
    assert any(isinstance(e, Throw) for e in t.events[logged:])  # the CPU threw
    assert t.ref.last_roll == last
    assert t.game.turn is not None and t.game.turn.player == "P1"  # P1 lost: starts anew
    t.press(ROLL)
    out = t.read(dice(4, 1))
    assert out.log == () and "lie as last thrown" in render_text(out.screen)


def test_a_reading_with_one_die_unread_is_not_a_throw() -> None:
    t = start(Settings("mexico", 2))
    assert t.press(ROLL).want_dice
    unread = die(None, 300.0, reason="unclear")
    out = t.read(FrameReading(FrameStatus.OK, "", (die(5, 100.0), unread)))
    assert out.log == () and out.want_dice and isinstance(out.screen, Refusal)
    assert out.screen.reason == "a die could not be read" and out.screen.hint == "P1: roll again"


def test_wrong_number_of_dice_is_not_a_throw() -> None:
    t = start(Settings("mexico", 2))
    t.press(ROLL)
    out = t.read(dice(5, 4, 3))
    assert out.log == () and out.want_dice
    assert isinstance(out.screen, Refusal) and "saw 3" in out.screen.reason
    out = t.read(dice(5, y=260.0))  # each rolled again, lying elsewhere
    assert out.log == () and out.want_dice
    out = t.read(dice(5, 4, y=320.0))
    assert out.log == (Throw((5, 4)),) and not out.want_dice


def test_camera_failure_in_the_menu_is_a_notice() -> None:
    t = Table.boot(Settings("mex"))
    t.ref, out = t.ref.on_camera_failed("camera unplugged")
    t._take(out)
    assert isinstance(out.screen, Message) and "unplugged" in out.screen.text
    out = t.press(HOLD)
    assert isinstance(out.screen, Menu) and out.screen.item == "mex"


def test_camera_failure_stops_waiting_and_says_so() -> None:
    t = start(Settings("mexico", 2))
    t.press(ROLL)
    t.ref, out = t.ref.on_camera_failed("no frames for 5 s")
    t._take(out)
    assert not out.want_dice
    assert isinstance(out.screen, Message) and "no frames" in out.screen.text
    assert t.throw(6, 2).log == (Throw((6, 2)),)


def test_a_camera_failure_after_a_throw_was_counted_leaves_its_screen() -> None:
    """The camera was mid-read when the throw was counted and the table stopped
    wanting dice; its failure came after and put "camera ... ROLL: try again" over the
    throw just counted: the player, told to try again, threw a second time."""
    t = start(Settings("mexico", 2))
    out = t.throw(6, 2)
    assert out.log == (Throw((6, 2)),) and isinstance(out.screen, Result)
    t.ref, late = t.ref.on_camera_failed("camera unplugged")
    t._take(late)
    assert late.screen == out.screen and not late.want_dice and late.log == ()
    assert t.throw(5, 4).log == (Throw((5, 4)),)  # the next throw is asked of the camera


def test_very_long_stop_ends_the_game_after_confirming() -> None:
    t = start(Settings("mexico", 3))
    t.throw(6, 3)
    out = t.press(STOP_VERY_LONG)
    assert isinstance(out.screen, Choose) and out.screen.item.startswith("no")
    out = t.press(ROLL)  # "no": play on
    assert out.log == () and not out.game_over
    assert isinstance(out.screen, Turn)
    t.press(STOP_VERY_LONG)
    t.press(HOLD)  # -> yes
    out = t.press(ROLL)
    assert out.log == (EndGame(),) and out.game_over
    assert isinstance(out.screen, GameEnd) and out.screen.headline == "no winner"
    assert t.game.is_over


@pytest.mark.parametrize("rules", ["mex", "mexico", "mexen", "mythical"])
def test_a_game_ended_from_the_menu_in_its_first_round_goes_straight_to_its_end(
    rules: str,
) -> None:
    """No round has ended (no last round at all): a mythical game of five ended while
    round 1 was bid showed a notice "round ? over / ended in round 1" before its end."""
    t = start(Settings(rules, 5))
    t.press(STOP_VERY_LONG)
    t.press(HOLD)  # -> yes
    out = t.press(ROLL)
    assert out.log == (EndGame(),) and out.game_over
    assert isinstance(out.screen, GameEnd), render_text(out.screen)
    assert "?" not in render_text(out.screen)


def test_very_long_stop_while_reading_cancels_the_reading() -> None:
    t = start(Settings("mexico", 2))
    t.press(ROLL)
    out = t.press(STOP_VERY_LONG)
    assert not out.want_dice and isinstance(out.screen, Choose)
    out = t.press(STOP)  # back out of the question
    assert isinstance(out.screen, Turn) and not out.want_dice


# ---------------------------------------------------------------------------
# mex


def test_whole_game_of_mex_with_a_tie_break_and_pips_counting() -> None:
    t = start(Settings("mex", 2, options=opts(lives=1, max_throws=1)))
    out = t.throw(4, 2)
    assert isinstance(out.screen, Result) and out.screen.shown == "42"
    out = t.throw(2, 4)
    assert isinstance(out.screen, Result | Turn)  # tie for lowest: tie-break
    assert t.game.view()["phase"] == "tiebreak"
    assert "tie-break" in render_text(out.screen)
    out = t.press(HOLD)  # HOLD in a mex tie-break: choose the counting
    assert isinstance(out.screen, Choose) and out.screen.item.startswith("mex")
    out = t.press(HOLD)
    assert isinstance(out.screen, Choose) and out.screen.item.startswith("pips")
    out = t.press(ROLL)
    assert out.log == (Count("pips"),)
    out = t.throw(6, 6)  # 12 pips
    out = t.throw(2, 1)  # 3 pips: lowest (pips counting, no Mex)
    assert out.game_over
    assert isinstance(out.screen, GameEnd) and out.screen.headline == "P1 wins!"
    assert dict(out.screen.standings) == {"P1": "6 pts", "P2": "-1 pt"}  # MX-10


def test_a_mex_game_ended_after_one_round_says_1_pt_not_1_pts() -> None:
    """MX-10, E-1: the final standings read "P1 1 pts  P2 1 pts  P3 -1 pts"."""
    t = start(Settings("mex", 3, options=opts(lives=2, max_throws=1)))
    for d in ((6, 3), (5, 2)):
        t.throw(*d)
    out = t.throw(4, 1)  # the lowest: P3 loses the round
    assert isinstance(out.screen, RoundEnd)
    t.press(STOP_VERY_LONG)
    t.press(HOLD)  # -> yes
    out = t.press(ROLL)
    assert out.log == (EndGame(),) and out.game_over
    assert isinstance(out.screen, GameEnd)
    assert out.screen.standings == (("P1", "1 pt"), ("P2", "1 pt"), ("P3", "-1 pt"))
    assert "P1 1 pt  P2 1 pt  P3 -1 pt" in render_text(out.screen)


def test_mex_shows_doubles_as_hundreds() -> None:
    t = start(Settings("mex", 2))
    out = t.throw(6, 6)
    assert isinstance(out.screen, Result) and out.screen.shown == "600"
    out = t.throw(1, 2)
    assert isinstance(out.screen, Result) and out.screen.shown == "MEX!"


def test_mex_long_stop_ends_the_round() -> None:
    t = start(Settings("mex", 3, options=opts(lives=5, max_throws=1)))
    t.throw(6, 3)
    out = t.throw(5, 4)  # P2 threw (not the round's first player)
    out = t.press(STOP_LONG)  # P3 has not thrown: P2 ends the round (MX-7 b)
    assert out.log == (EndRound(),)
    assert isinstance(out.screen, RoundEnd)
    assert out.screen.lost == "P2 loses 1 life"
    out = t.press(STOP_LONG)  # nobody has thrown in round 2: nothing to end, nobody's
    assert out.log == () and isinstance(out.screen, Message)
    assert t.game.refused == ()


def test_MX_7_a_long_stop_by_the_round_s_first_player_is_logged_as_refused() -> None:
    """The round's first player has thrown once and asks to end the round: the rules
    refuse it (nobody else has thrown, MX-7), and the refusal is logged as theirs."""
    t = start(Settings("mex", 3))
    t.throw(6, 3)
    out = t.press(STOP_LONG)
    assert out.log == (EndRound(),) and len(t.game.refused) == 1


def test_a_long_stop_in_mexen_is_logged_as_refused_for_who_threw_last() -> None:
    """MN-3: a mexen round is not ended by a player. P1's turn is over and P2 has not
    thrown: the long STOP is P1's end_round, logged and refused."""
    t = mexen()
    for a, b in ((6, 3), (6, 4), (6, 5)):
        t.throw(a, b, xs=(100.0, 300.0))
    turn = t.game.view()["turn"]
    assert isinstance(turn, dict) and (turn["player"], turn["throw"]) == ("P2", 0)
    out = t.press(STOP_LONG)
    assert out.log == (EndRound(),) and len(t.game.refused) == 1


def test_mex_hold_outside_tie_break_is_a_message() -> None:
    t = start(Settings("mex", 2))
    out = t.press(HOLD)
    assert isinstance(out.screen, Message) and out.log == ()


# ---------------------------------------------------------------------------
# mexen


def mexen(**kw: object) -> Table:
    return start(Settings("mexen", 2, options=opts(**kw)))


def held_first(t: Table, value: int) -> None:
    """HOLD the first die of the two (``value``), chosen with HOLD and ROLL, and press
    ROLL to throw the other."""
    t.press(HOLD)
    t.press(HOLD)
    t.press(HOLD)
    assert t.press(ROLL).log == (Hold(value),)
    assert t.press(ROLL).want_dice


def test_a_31s_give_keeps_its_title_while_hold_goes_through_the_names() -> None:
    """The throw's screen said "31! give a point to", the same choice after a HOLD
    "31: give a point to": one question, said two ways."""
    t = start(Settings("mexen", 3))
    out = t.throw(3, 1)
    assert isinstance(out.screen, Choose) and out.screen.item == "P2"
    assert out.screen.title == "31! give a point to"
    out = t.press(HOLD)
    assert isinstance(out.screen, Choose) and out.screen.item == "P3"
    assert out.screen.title == "31! give a point to"
    assert t.press(ROLL).log == (Give("P3"),)


def test_whole_game_of_mexen_with_31_give_and_one_die_tie_break() -> None:
    t = mexen(rounds=1)
    out = t.throw(6, 3)
    assert isinstance(out.screen, Result) and "HOLD" in out.screen.hint
    out = t.press(STOP)  # no standing in mexen: logged refused (GAME_LOG.md)
    assert isinstance(out.screen, Message) and out.log == (Stand(),)
    out = t.throw(3, 1)  # 31: give a point
    assert isinstance(out.screen, Choose) and out.screen.item == "P2"
    assert out.screen.title == "31! give a point to"
    out = t.press(ROLL)  # nothing else until the give
    assert out.log == (Give("P2"),)
    t.throw(4, 3)
    out = t.throw(5, 4)
    assert isinstance(out.screen, Result) and out.screen.hint == "next: P2"
    t.throw(6, 3)
    t.throw(5, 2)
    out = t.throw(5, 4)  # tie at 54: one die each
    assert t.game.view()["phase"] == "tiebreak"
    out = t.press(ROLL)
    assert out.want_dice and "die" in render_text(out.screen)
    assert t.ref.dice_wanted() == DiceWanted(1)  # what a replayed camera must show
    out = t.read(dice(3, 5))  # two dice in a one-die tie-break: not a throw
    assert out.log == () and out.want_dice
    out = t.read(dice(3, y=260.0))  # rolled again, alone
    assert out.log == (Throw((3,)),)
    out = t.throw(5)  # P2's die is higher: P2 takes the pot and the game ends
    assert out.game_over
    assert isinstance(out.screen, GameEnd)
    assert dict(out.screen.standings) == {"P1": "0", "P2": "2"}
    assert out.screen.headline == "P1 wins!"
    # MN-10: "P2 5; P2 took 1" alone did not say the 5 was a tie-break's one die
    assert out.screen.detail == "tie-break: P2 5; P2 took 1"


def test_mexen_hold_chooses_the_die_and_checks_it_stays() -> None:
    t = mexen()
    t.throw(5, 2, xs=(100.0, 300.0))
    out = t.press(HOLD)  # two dice could stay: choose
    assert isinstance(out.screen, Choose) and out.screen.item == "the 5"
    out = t.press(HOLD)
    assert isinstance(out.screen, Choose) and out.screen.item == "the 2"
    out = t.press(HOLD)
    out = t.press(ROLL)
    assert out.log == (Hold(5),)
    assert isinstance(out.screen, Turn) and "5" in out.screen.header
    out = t.press(HOLD)  # one hold per throw
    assert isinstance(out.screen, Message) and out.log == ()
    assert t.ref.dice_wanted() is None  # not waiting for dice yet
    assert t.press(ROLL).want_dice
    assert t.ref.dice_wanted() == DiceWanted(2, held=5)
    # the 5 moved to the other side of the tray: refused, not logged
    out = t.read(dice(5, 1, xs=(400.0, 300.0)))
    assert out.log == () and out.want_dice
    assert isinstance(out.screen, Refusal) and "moved" in out.screen.reason
    # the 5 was turned over where it lay: not counted, and logged as the rules refuse
    # it (GAME_LOG.md: "a held die whose value changed" is a refused event, recorded)
    out = t.read(dice(3, 1, xs=(100.0, 300.0)))
    assert out.log == (Throw((3, 1)),) and out.want_dice
    assert isinstance(out.screen, Refusal) and "turned" in out.screen.reason
    assert t.ref.game is not None and t.ref.game.refused[-1].reason.endswith("shows 5")
    # a small nudge is fine
    out = t.read(dice(5, 6, xs=(105.0, 260.0)))
    assert out.log == (Throw((6, 5)),)


def test_MN_5_a_turned_held_die_logged_as_refused_is_resumed_as_refused() -> None:
    """A throw whose held die was turned is logged as refused (GAME_LOG.md): after a
    power cut right behind it, the resumed table replays it as refused, still waits for
    the throw with the 5 lying, and counts the next good one."""
    t = mexen()
    t.throw(5, 2, xs=(100.0, 300.0))
    assert isinstance(t.press(HOLD).screen, Choose)  # at "the 5"
    assert t.press(ROLL).log == (Hold(5),)
    assert t.press(ROLL).want_dice
    assert t.read(dice(3, 1, xs=(100.0, 300.0))).log == (Throw((3, 1)),)
    assert t.header is not None
    r = Table.boot(Settings("mexen"), resume=LoadedGame(t.header, tuple(t.events)))
    assert r.ref.game is not None
    (refusal,) = r.ref.game.refused
    assert refusal.event == Throw((3, 1)) and refusal.reason.endswith("shows 5")
    assert isinstance(r.out.screen, Resumed) and "the 5 stays" in r.out.screen.detail
    assert r.press(ROLL).want_dice
    assert r.ref.dice_wanted() == DiceWanted(2, held=5)
    assert r.read(dice(5, 4, xs=(100.0, 420.0))).log == (Throw((5, 4)),)


def test_MN_5_a_turned_held_die_read_again_untouched_is_logged_once() -> None:
    """The same untouched dice read again (the settler answers again after a shadow, and
    after a power cut, with no picture before) are no new throw: one refused throw in
    the log, not one a reading. Thrown again, still turned, it is another."""
    t = mexen()
    t.throw(5, 2, xs=(100.0, 300.0))
    assert isinstance(t.press(HOLD).screen, Choose)  # at "the 5"
    assert t.press(ROLL).log == (Hold(5),)
    assert t.press(ROLL).want_dice
    turned = dice(3, 1, xs=(100.0, 300.0))
    assert t.read(turned).log == (Throw((3, 1)),)
    again = t.read(turned)
    assert again.log == () and again.want_dice and isinstance(again.screen, Refusal)
    # a power cut: the loop boots with the tray it saved (tray.json)
    counted, refused = t.ref.last_roll, t.ref.refused_roll
    assert t.header is not None
    r = Table.boot(Settings("mexen"), resume=LoadedGame(t.header, tuple(t.events)))
    r.ref = r.ref.with_tray(counted).with_refused(refused)
    assert r.press(ROLL).want_dice
    assert r.read(turned).log == ()
    assert r.ref.game is not None and len(r.ref.game.refused) == 1
    # the other die thrown again, the 5 still turned: a throw, refused again
    assert r.read(dice(3, 6, xs=(100.0, 420.0))).log == (Throw((6, 3)),)


def test_MN_5_untouched_dice_read_with_a_software_held_die_are_no_refused_throw() -> None:
    """A die held from a CPU's software throw: the person's own dice of the throw before,
    lying untouched and read again, were logged as a refused throw nobody made."""
    t = _p1_may_keep_a_die_of_cpu1s()
    v, _ = _hold_a_die_of_cpu1s(t)
    assert t.press(ROLL).want_dice
    lying = t.ref.last_roll  # the person's dice as their last throw left them
    assert lying and all(d.value != v for d in lying)
    out = t.read(FrameReading(FrameStatus.OK, "", lying))
    assert out.log == () and isinstance(out.screen, Refusal)


def sized(values: tuple[int, ...], xs: tuple[float, ...], size: float) -> FrameReading:
    found = tuple(
        DieReading(v, (x, 200.0), ((x, 200.0), (size, size), 0.0), 0.99)
        for v, x in zip(values, xs, strict=True)
    )
    return FrameReading(FrameStatus.OK, "", found)


@pytest.mark.parametrize(("size", "shift", "kept"), [(40, 15, True), (10, 15, False)])
def test_held_die_tolerance_is_relative_to_the_die_size(
    size: float, shift: float, kept: bool
) -> None:
    t = mexen()
    t.press(ROLL)
    t.read(sized((5, 2), (100.0, 300.0), size))
    t.press(HOLD)
    t.press(ROLL)  # the 5 stays
    t.press(ROLL)
    out = t.read(sized((5, 6), (100.0 + shift, 250.0), size))
    assert (out.log == (Throw((6, 5)),)) == kept
    assert isinstance(out.screen, Refusal) != kept


def test_mexen_hold_of_the_only_die_that_may_stay() -> None:
    t = mexen()
    t.throw(5, 2, xs=(100.0, 300.0))
    t.press(HOLD)
    t.press(ROLL)  # hold the 5
    t.throw(5, 4, xs=(100.0, 200.0))
    out = t.press(HOLD)  # the 5 lay already: only the 4 may stay
    assert out.log == (Hold(4),)
    assert isinstance(out.screen, Turn) and "the 4 stays" in out.screen.header


def test_MN_5_hold_after_a_double_holds_at_once() -> None:
    """Two 4s: whichever stays, a 4 stays. HOLD holds it, with no choice between them."""
    t = mexen()
    t.throw(4, 4, xs=(100.0, 300.0))
    out = t.press(HOLD)
    assert out.log == (Hold(4),)
    assert isinstance(out.screen, Turn) and "the 4 stays" in out.screen.header


def test_mexen_pot_and_pirate_are_on_the_screens() -> None:
    t = mexen(rounds=2)
    out = t.throw(1, 1)  # P1 becomes the pirate (MN-8)
    assert isinstance(out.screen, Result) and out.screen.shown == "100"
    t.throw(6, 3)
    out = t.throw(6, 4)
    assert isinstance(out.screen, Result) and out.screen.hint == "next: P2"
    out = t.press(HOLD)  # P1's dice still lie: P2 may keep one (MN-5)
    assert isinstance(out.screen, Choose) and out.screen.item == "the 6"
    out = t.press(STOP)  # changed their mind
    assert isinstance(out.screen, Turn) and out.screen.info == "pot 1  pirate P1 x1"
    out = t.throw(2, 1)  # Mex: 3 into the pot, P2's turn ends (MN-7)
    assert isinstance(out.screen, RoundEnd)
    assert out.screen.lost == "P1 takes 4 points"
    assert "pirate P1" in out.screen.extra


def test_status_says_what_the_table_does() -> None:
    t = start(Settings("mexico", 2))
    assert t.out.status == "mexico round 1: P1 throw 1/3"
    assert t.press(ROLL).status == "mexico round 1: P1 reading"
    assert t.read(dice(6, 3)).status == "mexico round 1: P1 throw 2/3"


def test_mexen_hold_before_any_throw_is_a_message() -> None:
    t = mexen()
    out = t.press(HOLD)
    assert isinstance(out.screen, Message) and out.log == ()


def test_refused_throw_is_logged_and_shows_the_rules_reason() -> None:
    """After a resume the referee knows the held value but not where it lay."""
    t = mexen()
    t.throw(5, 2)
    t.press(HOLD)
    t.press(ROLL)
    assert t.header is not None
    loaded = LoadedGame(t.header, tuple(t.events))
    r = Table.boot(Settings("mexen"), resume=loaded)
    assert isinstance(r.out.screen, Resumed)
    out = r.throw(6, 4)  # the held 5 is not among the dice
    assert out.log == (Throw((6, 4)),)  # refused, but logged
    # the rules' own words, without the "mexen: " the log keeps
    assert isinstance(out.screen, Refusal) and out.screen.reason == "the held die shows 5"
    assert out.screen.title == "not counted"  # a throw, not a press, was refused
    assert len(r.game.refused) == 1 and r.game.refused[0].reason.startswith("mexen: ")


def test_extreme_variant_has_no_holding() -> None:
    t = mexen(variant="extreme")
    t.throw(5, 2)
    out = t.press(HOLD)
    assert isinstance(out.screen, Message) and out.log == ()


# ---------------------------------------------------------------------------
# Resume


@pytest.mark.parametrize("rules", ["mexico", "mex", "mexen"])
def test_resume_gives_the_same_game(rules: str) -> None:
    t = start(Settings(rules, 3))
    for a, b in ((6, 3), (4, 1), (5, 5), (6, 2), (3, 2)):
        t.throw(a, b)
        if isinstance(t.ref.chooser, object) and t.ref.chooser is not None:
            t.press(ROLL)
    assert t.header is not None
    loaded = LoadedGame(t.header, tuple(t.events))
    r = Table.boot(Settings(), resume=loaded, seed=99)
    assert r.game.state == t.game.state
    assert r.game.count == t.game.count
    assert isinstance(r.out.screen, Resumed) and r.out.screen.rules == rules
    assert "round 2" in r.out.screen.detail or "round 1" in r.out.screen.detail
    assert r.out.new_game is None and r.out.log == ()
    # both go on identically
    assert r.throw(6, 1).log == t.throw(6, 1).log
    assert r.game.state == t.game.state


def test_resume_of_a_finished_game_reports_it_over() -> None:
    t = start(Settings("mexico", 2, options=opts(lives=2, max_throws=1)))
    t.press(STOP_VERY_LONG)
    t.press(HOLD)
    t.press(ROLL)
    assert t.header is not None
    r = Table.boot(Settings(), resume=LoadedGame(t.header, tuple(t.events)))
    assert r.out.game_over and isinstance(r.out.screen, GameEnd)
    assert isinstance(r.press(ROLL).screen, Menu)


def test_resume_of_a_broken_header_falls_back_to_the_menu() -> None:
    header = GameHeader("mexico", (), {})
    r = Table.boot(Settings(), resume=LoadedGame(header, ()))
    assert isinstance(r.out.screen, Message) and "resume" in r.out.screen.title
    assert r.out.game_over  # the log is finished as it is
    out = r.press(HOLD)  # takes the notice away, changes nothing
    assert isinstance(out.screen, Menu) and out.screen.title == "rules"
    assert out.screen.item == "mexico"


def test_resume_in_the_middle_of_a_31_give_shows_the_choice() -> None:
    t = mexen()
    t.throw(3, 1)
    assert isinstance(t.out.screen, Choose)
    assert t.header is not None
    r = Table.boot(Settings(), resume=LoadedGame(t.header, tuple(t.events)))
    assert isinstance(r.out.screen, Resumed)
    out = r.press(HOLD)
    assert isinstance(out.screen, Choose) and out.screen.item == "P2"  # not yet moved on
    out = r.press(ROLL)
    assert out.log == (Give("P2"),)


# ---------------------------------------------------------------------------
# CPU players


def test_menu_offers_cpu_players_when_the_module_is_there() -> None:
    t = Table.boot(Settings("mexico", 3))
    titles = []
    for _ in range(30):
        screen = t.out.screen
        assert isinstance(screen, Menu)
        titles.append(screen.title)
        if screen.title == "start game":
            break
        t.press(ROLL)
    assert "of them CPU" in titles


def test_the_menu_leaves_at_least_one_seat_to_a_person() -> None:
    t = Table.boot(Settings("mexico", 3))
    for _ in range(30):
        screen = t.out.screen
        assert isinstance(screen, Menu) and screen.title != "start game"
        if screen.title == "of them CPU":
            assert offered_menu(t) == ["1 CPU", "2 CPU", "no CPU"]  # not "3 CPU"
            return
        t.press(ROLL)
    pytest.fail("the menu never asked for CPU players")


def test_each_cpu_strength_is_asked_under_the_name_its_seat_gets() -> None:
    """A config naming a CPU "CPU2" seats CPU2 and CPU3: the menu asks "CPU2 strength"
    and "CPU3 strength", each setting the seat it names, not "CPU1" for CPU2."""
    s = Settings("mexico", 3, cpus=("easy", "easy"), names=("Ann",), cpu_names=("CPU2",))
    t = Table.boot(s)
    titles = []
    for _ in range(30):
        screen = t.out.screen
        assert isinstance(screen, Menu)
        if screen.title == "start game":
            break
        titles.append(screen.title)
        if screen.title == "CPU3 strength":  # "hard" for the second CPU seat only
            while screen.item != "hard":
                screen = t.press(HOLD).screen
                assert isinstance(screen, Menu)
        t.press(ROLL)
    assert [x for x in titles if x.endswith("strength")] == ["CPU2 strength", "CPU3 strength"]
    t.press(ROLL)
    assert t.header is not None
    seats = [(p.name, p.cpu) for p in t.header.players]
    assert seats == [("Ann", None), ("CPU2", "easy"), ("CPU3", "hard")]


@pytest.mark.parametrize("rules", ["mexico", "mex", "mexen"])
def test_cpu_players_play_by_roll_presses(rules: str) -> None:
    _played_against_a_cpu(rules)


@pytest.mark.parametrize("rules", ["mexico", "mex", "mexen"])
def test_a_cpu_whose_strategy_fails_still_plays_its_turns(
    rules: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault in a CPU player's strategy must never stop the table: the CPU throws
    software dice (or stands, or gives) and the game goes on to its end by the rules."""
    from table.service import referee

    def broken(*args: object) -> object:
        raise RuntimeError("no decision")

    monkeypatch.setattr(referee.cpu_players, "next_event", broken)
    _played_against_a_cpu(rules)


def test_MN_6_a_cpu_whose_strategy_fails_on_a_31_gives_it_to_another_player() -> None:
    """The fallback's give goes to a player other than the CPU (the rules refuse a give
    to oneself, and the turn would wait on a decision nobody makes)."""
    from table.service.referee import _cpu_fallback

    header = GameHeader("mexen", (Player("P1"), Player("CPU1", "easy")), {})
    game = replay(header, [Throw((6, 3)), Throw((6, 4)), Throw((6, 5)), Throw((3, 1))])
    assert game.view()["phase"] == "give" and game.turn is not None
    assert game.turn.player == "CPU1"
    assert _cpu_fallback(game) == Give("P1")


def test_MX_7_MX_9_every_cpu_decision_owed_after_a_throw_is_taken_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The CPU players' module (stubbed here) owes two decisions after a throw: ending
    the round (MX-7), then the count of the tie-break that opens (MX-9). Both are taken
    with the throw, before the next press, not one a press with a throw between."""
    from table.rules import get_rules
    from table.rules.mex import CountMode, MexState
    from table.service import referee

    def decides(
        rules: str, state: MexState, players: object, seed: int, accepted: int
    ) -> Event | None:
        allowed = get_rules("mex").allowed(state)
        if accepted == 3 and EventKind.END_ROUND in allowed:
            return EndRound()
        if EventKind.COUNT in allowed and state.tiebreaks[-1].count is CountMode.MEX:
            return Count("pips")  # once: counted by pips from then on
        return None

    monkeypatch.setattr(referee.cpu_players, "next_event", decides)
    t = start(Settings("mex", 4, options=opts(max_throws=1)))
    t.throw(6, 3)
    t.throw(6, 3)
    assert t.throw(6, 5).log == (Throw((6, 5)), EndRound(), Count("pips"))


def _played_against_a_cpu(rules: str) -> None:
    """P1 against a hard CPU, by presses and throws, to the game's end."""
    t = start(
        Settings(rules, 2, cpus=("hard",), options=opts(rounds=1) if rules == "mexen" else ())
    )
    assert t.header is not None
    assert [p.cpu for p in t.header.players] == [None, "hard"]
    mine = iter([(3, 2), (6, 4), (5, 5), (2, 1), (4, 1), (6, 3)] * 100)
    cpu_events = 0
    for _ in range(400):
        if t.out.game_over or len(t.events) > 200:
            break
        if isinstance(t.out.screen, Choose):  # 31 give or the like: take the first
            t.press(ROLL)
            continue
        turn = t.game.turn
        assert turn is not None
        if turn.player == "CPU1":
            out = t.press(ROLL)
            assert out.log, render_text(out.screen)  # every ROLL moves the CPU on
            assert not out.want_dice
            cpu_events += len(out.log)
            continue
        one_die = rules == "mexen" and t.game.view().get("phase") == "tiebreak"
        pair = next(mine)
        t.throw(*(pair[:1] if one_die else pair))
        turn = None if t.out.game_over else t.game.turn
        if rules != "mexen" and turn is not None and turn.player == "P1":
            t.press(STOP)  # P1 always stands on the first throw
    assert t.out.game_over
    assert len(t.events) < 200  # finished by the rules, not by ending it
    assert cpu_events >= 2  # the CPU's decisions and throws are ordinary logged events


def test_on_a_cpu_turn_only_roll_plays() -> None:
    t = start(Settings("mexico", 2, cpus=("easy",)))
    t.throw(6, 5)
    out = t.press(STOP)
    assert isinstance(out.screen, Turn) and out.screen.player == "CPU1"
    assert out.screen.hint == "ROLL: CPU plays"
    for press in (STOP, HOLD, STOP_LONG):
        out = t.press(press)
        # a long STOP is the person's who threw last (MX-7 b): mexico refuses it, logged
        assert out.log == ((EndRound(),) if press == STOP_LONG else ())
        assert isinstance(out.screen, Message)
        assert "ROLL" in render_text(out.screen)
    out = t.press(ROLL)
    assert len(out.log) == 1 and not out.want_dice


def test_cpu_throws_are_deterministic() -> None:
    def play() -> list[Event]:
        t = start(Settings("mexico", 2, cpus=("normal",)))
        t.throw(6, 5)
        t.press(STOP)
        for _ in range(3):
            t.press(ROLL)
        return t.events

    assert play() == play()


# ---------------------------------------------------------------------------
# Anything goes


inputs = st.one_of(
    st.builds(ButtonPress, st.sampled_from(list(Button)), st.sampled_from(list(Press))),
    st.builds(
        lambda vals, ok, xs: FrameReading(
            FrameStatus.OK if ok else FrameStatus.REROLL,
            "" if ok else "blurred",
            tuple(die(v, x) for v, x in zip(vals, xs, strict=False)),
        ),
        st.lists(st.integers(1, 6), min_size=0, max_size=3),
        st.booleans(),
        st.lists(st.floats(0, 640), min_size=3, max_size=3),
    ),
    st.just("camera"),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    in_game=st.booleans(),
    rules=st.sampled_from(MENU_RULES),
    players=st.integers(2, 6),
    cpus=st.lists(st.sampled_from(["easy", "normal", "hard"]), max_size=2),
    steps=st.lists(inputs, max_size=120),
)
def test_random_inputs_never_raise_and_always_show_something(
    in_game: bool, rules: str, players: int, cpus: list[str], steps: list[object]
) -> None:
    s = Settings(rules, players, tuple(cpus))
    t = start(s) if in_game else Table.boot(s)
    for step in steps:
        if isinstance(step, ButtonPress):
            out = t.press(step)
        elif isinstance(step, FrameReading):
            out = t.read(step)
        else:
            t.ref, out = t.ref.on_camera_failed("camera unplugged")
            t._take(out)
        assert out.screen is not None
        assert out.status
        img = render(out.screen)
        assert img.mode == "1" and img.size == (128, 64)


def test_MC_6_cpu_dice_rolled_by_a_person_are_read_like_anyone_s() -> None:
    """With the table set so, a CPU's throw is rolled by a person and read by the camera."""
    t = start(Settings("mexico", 2, cpus=("normal",)), by_hand=True)
    t.throw(3, 1)
    out = t.press(STOP)
    assert isinstance(out.screen, Turn) and out.screen.player == "CPU1"
    out = t.press(ROLL)  # the CPU decides to throw: a person rolls for it
    assert out.log == () and not out.want_dice
    assert "roll the dice" in render_text(out.screen)
    out = t.press(ROLL)
    assert out.want_dice and isinstance(out.screen, Reading)
    out = t.read(reroll("die 2 is tilted"))
    assert out.log == () and out.want_dice  # not counted, still waiting
    out = t.read(dice(5, 2))
    assert out.log == (Throw((5, 2)),)
    assert t.game.view()["pair"] == "52" and t.game.turn is not None
    assert t.game.turn.player == "CPU1" and t.game.turn.throw == 1


def test_MX_7_a_long_stop_after_a_cpu_threw_last_is_said_and_not_logged() -> None:
    """An end_round is the event of the player who threw last (GAME_LOG.md). The rules
    refusing one is logged only when that player is a person: a CPU never pressed."""
    t = start(Settings("mexico", 3, cpus=("easy",)))
    for _ in range(60):
        turn = t.game.turn
        assert turn is not None and not t.out.game_over
        kept = t.game.view().get("kept") or []
        if turn.player != "CPU1" and turn.throw == 0 and kept:
            if kept[-1]["name"] == "CPU1":
                break
            out = t.press(STOP_LONG)  # a person threw last: theirs, refused and logged
            assert out.log == (EndRound(),) and isinstance(out.screen, Message)
        if turn.player == "CPU1":
            t.press(ROLL)
        else:
            t.throw(6, 5)
            if t.game.turn is not None and t.game.turn.player == turn.player:
                t.press(STOP)
    else:
        pytest.fail("no person came on turn after CPU1")
    out = t.press(STOP_LONG)
    assert out.log == ()
    assert isinstance(out.screen, Message) and out.screen.text == "no ending a round in mexico"


def cpu_throw_by_hand(t: Table, *values: int) -> Output:
    """A person rolls a CPU's dice for it: ROLL lets it throw, ROLL reads the dice."""
    out = t.press(ROLL)
    assert isinstance(out.screen, Turn) and out.screen.header.endswith(" throws")
    assert t.press(ROLL).want_dice
    t.rolls += 1
    return t.read(dice(*values, y=200.0 + LANDED * (t.rolls % 2)))


def cpu_first_tie_break() -> Table:
    """Mex with P1, P2 and CPU1 (its dice rolled by hand), all tied at 65 in round 2:
    a tie-break CPU1 starts (MX-8)."""
    t = start(Settings("mex", 3, cpus=("easy",), options=opts(lives=3)), by_hand=True)
    t.throw(6, 5)
    t.press(STOP)  # one throw each (MX-4)
    t.throw(6, 5)
    out = cpu_throw_by_hand(t, 3, 2)
    assert isinstance(out.screen, RoundEnd) and out.screen.lost == "CPU1 loses 1 life"
    cpu_throw_by_hand(t, 6, 5)  # the loser starts round 2 (MX-6)
    assert t.press(ROLL).log == (Stand(),)
    t.throw(6, 5)
    out = t.throw(6, 5)
    assert isinstance(out.screen, Result) and out.screen.hint == "tie-break: CPU1 first"
    return t


def test_MX_7_MX_8_in_a_tie_break_a_long_stop_is_the_last_thrower_s() -> None:
    t = cpu_first_tie_break()
    cpu_throw_by_hand(t, 6, 5)
    assert t.game.turn is not None and t.game.turn.player == "P1"
    out = t.press(STOP_LONG)  # CPU1 threw last: nothing of P1's to refuse
    assert out.log == () and isinstance(out.screen, Message)
    t.throw(6, 5)
    assert t.game.turn is not None and t.game.turn.player == "P2"
    out = t.press(STOP_LONG)  # P1 threw last, not the tie-break's first thrower CPU1
    assert out.log == (EndRound(),) and isinstance(out.screen, Message)
    assert t.game.refused[-1].event == EndRound()


def test_MN_5_a_cpu_leaving_a_die_of_a_software_throw_lying_says_so() -> None:
    t = start(Settings("mexen", 2, cpus=("normal",)))
    for pair in ((5, 2), (4, 3), (6, 4)):
        t.throw(*pair)
    out = t.press(ROLL)  # CPU1 leaves P1's 6 lying
    assert out.log == (Hold(6),)
    assert isinstance(out.screen, Turn) and out.screen.header == "CPU1 leaves the 6"
    out = t.press(ROLL)  # thrown in software: no die to set by hand, nothing to read
    (throw,) = out.log
    assert isinstance(throw, Throw) and 6 in throw.dice and not out.want_dice


def test_cpu_dice_in_software_by_default() -> None:
    t = start(Settings("mexico", 2, cpus=("normal",)))
    t.throw(3, 1)
    t.press(STOP)
    out = t.press(ROLL)
    assert len(out.log) == 1 and isinstance(out.log[0], Throw) and not out.want_dice


def test_cpu_decisions_owed_at_a_power_cut_are_taken_on_resume() -> None:
    """Whenever an Output logged an event and then CPU decisions off their turn (mex: a
    CPU ends the round, chooses the tie-break count), a log cut right after that first
    event resumes by taking those CPU decisions at once, as the table would have."""
    owed = 0
    for skip, level in itertools.product(range(7), ("normal", "easy")):
        s = Settings("mex", 3, cpus=(level,), options=opts(lives=3, max_throws=2))
        t = start(s)
        pairs = [(3, 2), (6, 4), (5, 5), (2, 1), (4, 1), (6, 3), (4, 3)]
        mine = itertools.cycle(pairs[skip:] + pairs[:skip])
        for _ in range(300):
            if t.out.game_over or len(t.events) > 150:
                break
            turn = t.game.turn
            assert turn is not None
            if turn.player == "CPU1" or isinstance(t.out.screen, Choose):
                t.press(ROLL)
            else:
                t.throw(*next(mine))
        assert t.header is not None
        pos = 0
        for out in t.outputs:
            if len(out.log) >= 2:
                cut = LoadedGame(t.header, tuple(t.events[: pos + 1]))
                resumed = Table.boot(s, resume=cut)
                assert resumed.out.log == out.log[1:]
                assert resumed.ref.game is not None and t.ref.game is not None
                owed += 1
            pos += len(out.log)
    assert owed >= 1  # the games above do owe such a decision


@pytest.mark.parametrize(
    ("rules", "shown"), [("mexico", "MEX!"), ("mex", "MEX!"), ("mexen", "600")]
)
def test_after_a_resume_the_screen_shows_the_throw_kept_and_that_stop_stands(
    rules: str, shown: str
) -> None:
    t = start(Settings(rules, 2))
    t.throw(*((2, 1) if rules != "mexen" else (6, 6)))
    assert t.header is not None
    r = Table.boot(Settings(), resume=LoadedGame(t.header, tuple(t.events)))
    assert isinstance(r.out.screen, Resumed)
    assert f"now {shown}" in r.out.screen.detail
    if rules == "mexen":  # no standing early (MN-3)
        return
    assert r.out.screen.hint == "ROLL again  STOP stand"
    # The turn as shown again once a notice is taken away: the throw still kept.
    screen = r.ref._current()[1].screen
    assert isinstance(screen, Turn) and f"now {shown}" in screen.info
    assert screen.hint == "ROLL again  STOP stand"


def test_a_cpu_throw_that_goes_on_does_not_offer_stop_to_stand() -> None:
    t = start(Settings("mexico", 2, cpus=("hard",)))
    t.throw(6, 5)
    out = t.press(STOP)
    assert isinstance(out.screen, Turn) and out.screen.player == "CPU1"
    out = t.press(ROLL)  # the CPU's first throw of three: its turn goes on
    assert isinstance(out.screen, Result) and out.screen.player == "CPU1"
    assert t.game.turn is not None and t.game.turn.player == "CPU1"
    assert out.screen.hint == "ROLL: CPU plays"
    assert isinstance(t.press(STOP).screen, Message)  # STOP would only be refused


def mex_tie_break(*, pips: bool) -> Table:
    """P1 and P2 tie with 31 (MX-8); P2, the tie-break's last player, chooses the count."""
    t = start(Settings("mex", 2, options=opts(lives=2)))
    t.throw(3, 1)
    t.press(STOP)
    t.throw(3, 1)
    assert t.game.view()["phase"] == "tiebreak"
    if pips:
        t.press(HOLD)
        t.press(HOLD)
        assert t.press(ROLL).log == (Count("pips"),)
    return t


def test_MX_9_a_tie_break_counted_in_pips_shows_the_pips() -> None:
    t = mex_tie_break(pips=True)
    screen = t.ref._turn_screen()
    assert isinstance(screen, Turn) and "count: pips" in screen.info
    assert overflow(screen) == ()
    out = t.throw(2, 1)  # 3 pips, no Mex (MX-9)
    assert isinstance(out.screen, Result) and out.screen.shown == "3 pips"
    screen = t.ref._turn_screen()  # P2 has 3 pips to beat, not the main round's 31
    assert isinstance(screen, Turn) and "to beat: 3 pips P1" in screen.info
    assert overflow(screen) == ()
    out = t.throw(6, 5)
    assert isinstance(out.screen, RoundEnd) and out.screen.lost == "P1 loses 1 life"
    assert "P2 11 pips" in out.screen.extra


def test_MX_8_the_tie_break_s_own_throws_are_the_ones_to_beat() -> None:
    t = mex_tie_break(pips=False)
    screen = t.ref._turn_screen()
    assert isinstance(screen, Turn) and "to beat" not in screen.info  # nobody threw yet
    out = t.throw(2, 1)
    assert isinstance(out.screen, Result) and out.screen.shown == "MEX!"
    screen = t.ref._turn_screen()
    assert isinstance(screen, Turn) and "to beat: MEX P1" in screen.info


@pytest.mark.parametrize("rules", ["mex", "mexen", "mex, a CPU first"])
def test_a_tie_break_tied_again_says_so(rules: str) -> None:
    first = "P1"
    if rules == "mex":  # MX-8: the tied players repeat
        t = mex_tie_break(pips=False)
        t.throw(5, 2)
        out = t.throw(2, 5)
    elif rules == "mex, a CPU first":  # the hint fits with a CPU's name in it
        t = cpu_first_tie_break()
        cpu_throw_by_hand(t, 6, 5)
        t.throw(6, 5)
        out = t.throw(6, 5)
        first = "CPU1"
    else:  # MN-10: tied again, only those throw again
        t = start(Settings("mexen", 2, options=opts(rounds=1, variant="extreme")))
        for pair in ((5, 3), (6, 5), (4, 2), (4, 1), (6, 5), (4, 2)):
            t.throw(*pair)
        t.throw(6)
        out = t.throw(6)
    assert t.game.view()["phase"] == "tiebreak"
    assert isinstance(out.screen, Result)
    assert out.screen.header == "tied again!" and out.screen.hint == f"tie-break: {first} first"


def test_MN_10_a_thrower_out_of_a_tie_break_tied_again_is_told_safe_not_tied() -> None:
    """Three tie; in the tie-break P1 and P2 throw 6 and P3 a 2 (MN-10: the highest die
    loses): P1 and P2 are tied again and throw again; P3 is out of it. P3's throw was
    shown as "P3  tied again!", and P3 would have thrown again."""
    t = start(Settings("mexen", 3, options=opts(rounds=1, variant="extreme")))
    for _ in range(3):
        for pair in ((5, 3), (6, 5), (4, 2)):
            t.throw(*pair)
    assert t.game.view()["phase"] == "tiebreak"
    t.throw(6)
    t.throw(6)
    out = t.throw(2)
    assert t.game.view()["tiebreak"]["players"] == ["P1", "P2"]
    assert isinstance(out.screen, Result) and out.screen.player == "P3"
    assert out.screen.header == "safe!" and out.screen.hint == "tie-break: P1 first"
    assert out.screen.note.startswith("again: P1, P2")
    assert overflow(out.screen) == ()


def test_MN_10_a_thrower_not_in_a_new_tie_break_is_told_who_is() -> None:
    """P1 and P2 keep 42, P3 throws 65 last: P1 and P2 tie for lowest (MN-10). P3's
    throw says "tie-break!" and, first in its note, who is tied: P3 is not."""
    t = start(Settings("mexen", 3, options=opts(rounds=1, variant="extreme")))
    for pair in ((5, 3), (6, 5), (4, 2)) * 2 + ((6, 4), (6, 4)):
        t.throw(*pair)
    out = t.throw(6, 5)
    assert t.game.view()["tiebreak"]["players"] == ["P1", "P2"]
    assert isinstance(out.screen, Result) and out.screen.player == "P3"
    assert out.screen.header == "tie-break!" and out.screen.hint == "tie-break: P1 first"
    assert out.screen.note.startswith("tied: P1, P2")
    assert overflow(out.screen) == ()


def test_MN_6_after_a_31_the_turn_shows_the_throw_that_counts() -> None:
    t = start(Settings("mexen", 3, options=opts(rounds=2)))
    t.throw(6, 4)
    out = t.throw(3, 1)  # void (MN-6): the 64 still counts
    assert isinstance(out.screen, Choose)
    out = t.press(ROLL)  # the point to P2
    assert isinstance(out.screen, Turn)
    assert "now 64" in out.screen.info and "31" not in out.screen.info
    assert t.header is not None
    r = Table.boot(Settings(), resume=LoadedGame(t.header, tuple(t.events)))
    assert isinstance(r.out.screen, Resumed) and "now 64" in r.out.screen.detail


@pytest.mark.parametrize(("stake", "word"), [("points", "point"), ("sips", "sip")])
def test_MN_9_a_pot_of_one_is_taken_as_one_point_or_sip(stake: str, word: str) -> None:
    t = start(Settings("mexen", 2, options=opts(rounds=2, stake=stake)))
    for pair in ((6, 4), (6, 4), (6, 4), (5, 4), (5, 4), (5, 4)):
        out = t.throw(*pair)
    assert isinstance(out.screen, RoundEnd) and out.screen.lost == f"P2 takes 1 {word}"


def test_MN_5_with_a_die_held_the_turn_says_to_roll_the_other() -> None:
    t = mexen()
    t.throw(5, 3, xs=(100.0, 300.0))
    t.press(HOLD)
    t.press(ROLL)  # the 5 stays
    assert t.game.view()["held"] == 5
    t.press(ROLL)
    out = t.press(STOP)  # the reading is cancelled: the 5 still lies
    assert isinstance(out.screen, Turn) and out.screen.hint == "roll the other, ROLL"
    assert t.header is not None
    r = Table.boot(Settings(), resume=LoadedGame(t.header, tuple(t.events)))
    assert isinstance(r.out.screen, Resumed) and r.out.screen.hint == "roll the other, ROLL"


@pytest.mark.parametrize("rules", ["mex", "mexen"])
def test_stop_in_a_tie_break_says_there_is_no_standing(rules: str) -> None:
    if rules == "mex":  # MX-8: one throw each
        t = mex_tie_break(pips=False)
        words = "one throw each"
    else:  # MN-10: one die each
        t = start(Settings("mexen", 2, options=opts(rounds=1, variant="extreme")))
        for pair in ((5, 3), (6, 5), (4, 2), (4, 1), (6, 5), (4, 2)):
            t.throw(*pair)
        words = "one die each"
    assert t.game.view()["phase"] == "tiebreak"
    out = t.press(STOP)
    assert isinstance(out.screen, Message) and out.log == (Stand(),)  # logged refused
    assert out.screen.text == f"tie-break: {words}, no standing"


def test_MN_5_a_cpu_die_left_lying_is_not_rolled_by_the_person_rolling_for_it() -> None:
    t = start(Settings("mexen", 2, cpus=("normal",)), by_hand=True)
    for pair in ((5, 2), (4, 3), (6, 4)):
        t.throw(*pair)
    out = t.press(ROLL)  # CPU1 leaves P1's 6 lying (MN-5)
    assert out.log == (Hold(6),)
    assert isinstance(out.screen, Turn) and out.screen.hint == "ROLL: CPU plays"
    out = t.press(ROLL)  # CPU1 throws: a person rolls the other die for it
    assert out.log == () and isinstance(out.screen, Turn)
    assert out.screen.header == "CPU1 throws" and out.screen.hint == "roll the other die, ROLL"
    out = t.press(ROLL)
    assert out.want_dice and t.ref.dice_wanted() == DiceWanted(2, held=6)
    out = t.press(STOP)  # reading cancelled: still only the other die
    assert isinstance(out.screen, Turn) and out.screen.hint == "roll the other die, ROLL"
    t.press(ROLL)
    out = t.read(dice(6, 2))
    assert out.log == (Throw((6, 2)),)


def _p1_may_keep_a_die_of_cpu1s() -> Table:
    """A mexen game of P1 and a CPU, played until P1 may leave lying (MN-5) one of the
    dice of the CPU's throw, thrown in software."""
    t = start(Settings("mexen", 2, cpus=("normal",)))
    for pair in ((6, 3), (5, 2), (6, 6)):
        t.throw(*pair)
    for _ in range(40):  # ROLL lets CPU1 play, until P1 may keep one of its dice
        turn = t.game.turn
        if turn is not None and turn.player == "P1" and EventKind.HOLD in t.game.allowed:
            return t
        t.press(ROLL)
    pytest.fail("P1 never came to hold a die of CPU1's")


def _hold_a_die_of_cpu1s(t: Table) -> tuple[int, Output]:
    """P1 leaves lying (MN-5) the first die HOLD offers of CPU1's software throw: its
    value, and the Output that logged the hold."""
    out = t.press(HOLD)
    if isinstance(out.screen, Choose):
        out = t.press(ROLL)
    (hold,) = out.log
    assert isinstance(hold, Hold)
    return hold.value, out


def test_MN_5_a_die_of_a_cpus_software_throw_left_lying_is_set_by_hand() -> None:
    """A CPU's dice thrown in software lie nowhere: a person leaving one of them lying
    (MN-5) is told to set a die to it, and a throw without it is not counted, and
    logged as refused (its held value is gone: a refused event of GAME_LOG.md)."""
    t = _p1_may_keep_a_die_of_cpu1s()
    assert t.ref.table == ()  # nothing read: thrown in software
    v, out = _hold_a_die_of_cpu1s(t)
    assert isinstance(out.screen, Turn) and out.screen.header == f"set a die to {v}"
    assert out.screen.hint == "roll the other, ROLL"
    t.press(ROLL)
    other = 2 if v != 2 else 3
    out = t.read(dice(other, other))
    assert out.log == (Throw((other, other)),) and out.want_dice
    assert isinstance(out.screen, Refusal) and out.screen.reason == f"no die shows {v}"
    assert out.screen.hint == f"set a die to {v}, roll again"
    out = t.read(dice(v, other, xs=(400.0, 500.0)))  # set anywhere
    assert out.log == (Throw(tuple(sorted((v, other), reverse=True))),)


def test_MN_5_after_a_power_cut_the_table_still_wants_the_held_die() -> None:
    """A hold logged before a cut: the resumed table says "the 5 stays", and the throw
    it waits for keeps that die lying (``dice_wanted``, from which a stand-in camera
    or keyboard play makes the throw). It named no held die: two dice were thrown, and
    the throw was not counted."""
    t = mexen()
    t.throw(5, 2)
    t.press(HOLD)
    assert t.press(ROLL).log == (Hold(5),)
    assert t.header is not None
    r = Table.boot(Settings("mexen"), resume=LoadedGame(t.header, tuple(t.events)))
    assert isinstance(r.out.screen, Resumed) and "the 5 stays" in r.out.screen.detail
    assert r.press(ROLL).want_dice
    assert r.ref.dice_wanted() == DiceWanted(2, held=5)
    # a CPU's die left lying, rolled for by a person, likewise (MC-6)
    s = Settings("mexen", 2, cpus=("normal",))
    t = start(s, by_hand=True)
    for pair in ((5, 2), (4, 3), (6, 4)):
        t.throw(*pair)
    assert t.press(ROLL).log == (Hold(6),)
    assert t.header is not None
    r = Table.boot(s, resume=LoadedGame(t.header, tuple(t.events)), by_hand=True)
    r.press(ROLL)
    assert r.press(ROLL).want_dice
    assert r.ref.dice_wanted() == DiceWanted(2, held=6)


def test_a_cpu_throw_rolled_by_a_person_with_no_die_lying_rolls_the_dice() -> None:
    t = start(Settings("mexen", 2, cpus=("normal",)), by_hand=True)
    for pair in ((5, 2), (4, 3), (1, 1)):
        t.throw(*pair)
    out = t.press(ROLL)  # only 1s to leave lying, which normal never does: CPU1 throws both
    assert out.log == () and isinstance(out.screen, Turn)
    assert out.screen.hint == "roll the dice, then ROLL"


def test_MX_6_MX_7_the_round_end_says_who_ended_it_and_who_is_out() -> None:
    t = start(Settings("mex", 3, options=opts(lives=1, max_throws=1)))
    t.throw(4, 2)
    t.throw(5, 4)  # P2 threw, and is not the round's first player
    out = t.press(STOP_LONG)  # P2 ends the round (MX-7 b): P3 does not throw
    assert out.log == (EndRound(),)
    assert isinstance(out.screen, RoundEnd) and out.screen.lost == "P1 loses 1 life"
    assert out.screen.extra == "P1 is out  ended by P2"  # MX-6: 0 lives is out
    assert not out.game_over
    t.throw(6, 3)  # round 2: P2 and P3 only
    out = t.throw(6, 4)
    # the game's end has no room for its last round beside the points: said first
    assert out.game_over and isinstance(out.screen, Message)
    assert out.screen.text == "P3 64; P2 lost 1"
    assert isinstance(t.press(ROLL).screen, GameEnd)


def test_MX_7_a_round_ended_by_a_cpu_names_the_player_who_ended_it() -> None:
    s = Settings("mex", 4, cpus=("normal", "normal"), options=opts(lives=3, max_throws=2))
    t = start(s)
    t.throw(3, 1)
    t.press(STOP)  # P1 stands after one throw: one throw each for the others (MX-4)
    t.throw(6, 5)
    out = t.press(ROLL)  # CPU1 throws (software dice); its one throw ends its turn
    assert isinstance(out.screen, Result) and t.game.turn is not None
    assert t.game.turn.player == "CPU2" and t.game.turn.throw == 0
    out = t.press(ROLL)  # CPU2, before throwing, lets CPU1's throw end the round (MX-7 b)
    assert out.log == (EndRound(),)
    assert t.game.view()["last_round"]["ended_by"] == "CPU1"
    assert isinstance(out.screen, RoundEnd) and out.screen.extra == "ended by CPU1"


@pytest.mark.parametrize(("stake", "word"), [("points", "point"), ("sips", "sip")])
def test_MN_6_the_31_give_is_confirmed(stake: str, word: str) -> None:
    t = start(Settings("mexen", 3, names=("Ann", "Bob", "Cy"), options=opts(stake=stake)))
    t.throw(3, 1)
    out = t.press(HOLD)  # Bob -> Cy
    assert isinstance(out.screen, Choose) and out.screen.item == "Cy"
    out = t.press(ROLL)
    assert out.log == (Give("Cy"),)
    assert isinstance(out.screen, Turn) and out.screen.player == "Ann"
    assert out.screen.header == f"Ann gives 1 {word} to Cy"
    assert dict(out.screen.standings)["Cy"] == "1"


def test_MN_6_a_cpu_s_31_give_is_confirmed() -> None:
    players = (Player("P1"), Player("CPU1", "normal"))
    header = GameHeader("mexen", players, {}, 7)
    events = (Throw((6, 4)), Throw((6, 4)), Throw((6, 4)), Throw((3, 1)))  # CPU1's 31
    t = Table.boot(Settings(), resume=LoadedGame(header, events))
    assert t.game.view()["phase"] == "give"
    out = t.press(ROLL)  # CPU1 gives its point
    assert out.log == (Give("P1"),)
    assert isinstance(out.screen, Turn) and out.screen.header == "CPU1 gives 1 point to P1"


def test_MN_8_the_pirate_is_named_raised_and_paid_on_the_throw_s_screen() -> None:
    t = start(Settings("mexen", 3, options=opts(rounds=3)))
    out = t.throw(1, 1)  # P1 becomes the pirate
    assert isinstance(out.screen, Result) and out.screen.note == "P1 is the pirate"
    out = t.throw(1, 1)  # the pirate's own double 1 raises the multiplier
    assert isinstance(out.screen, Result) and out.screen.note == "pirate P1 now x2"
    out = t.throw(4, 4)  # a double 2-6: the pirate takes 1 times the multiplier
    assert isinstance(out.screen, Result) and out.screen.note == "pirate P1 takes 2"
    assert out.screen.hint == "next: P2"
    out = t.throw(6, 5)  # nothing happens to pirate or pot: nothing said
    assert isinstance(out.screen, Result) and out.screen.note == ""
    out = t.throw(1, 1)  # P2 takes over, at x1
    assert isinstance(out.screen, Result) and out.screen.note == "P2 is the pirate"
    out = t.throw(5, 5)  # P2's own double: P2 takes 1 (MN-8: by anyone, on any throw)
    assert isinstance(out.screen, Result) and out.screen.note == "pirate P2 takes 1"
    assert dict(t.game.view()["players"][1])["points"] == 1


def test_MN_8_a_long_name_leaves_the_pirate_s_number_on_the_throw_s_screen() -> None:
    """A name of twelve letters, which the config allows, cut the pirate's note before
    its number ("pirate Mohammed Ali tak.."): the only place the amount taken or the
    new multiplier is shown. The name is on the throw's screen already; the note drops
    it where the whole would not fit."""
    names = ("Mohammed Ali", "Bob")
    t = start(Settings("mexen", 2, options=opts(rounds=3), names=names), names_cut=True)
    out = t.throw(1, 1)  # Mohammed Ali becomes the pirate
    assert isinstance(out.screen, Result) and out.screen.player == "Mohammed Ali"
    assert out.screen.note == "the new pirate" and not overflow(out.screen)
    out = t.throw(4, 4)  # his own double 2-6: the pirate takes 1
    assert isinstance(out.screen, Result)
    assert out.screen.note == "pirate takes 1" and not overflow(out.screen)
    out = t.throw(1, 1)
    assert isinstance(out.screen, Result)
    assert out.screen.note == "pirate now x2" and not overflow(out.screen)
    t.throw(6, 5)  # Bob's turn, short names as before
    out = t.throw(3, 3)
    assert isinstance(out.screen, Result) and out.screen.player == "Bob"
    assert out.screen.note == "pirate takes 2" and not overflow(out.screen)


def test_MN_7_a_mex_says_3_went_into_the_pot() -> None:
    t = start(Settings("mexen", 3, options=opts(rounds=3)))
    out = t.throw(2, 1)  # Mex: P1's turn ends, 3 into the pot
    assert isinstance(out.screen, Result) and out.screen.note == "pot +3 = 4"
    t.throw(6, 4)  # one throw each after a first player's Mex on throw 1 (MN-4)
    out = t.throw(2, 1)  # P3's Mex ends the round: P2 takes the pot of 7
    assert isinstance(out.screen, RoundEnd) and out.screen.lost == "P2 takes 7 points"
    assert out.screen.extra.split("  ")[:2] == ["P3 MEX!", "pot +3 = 7"]


def test_MN_12_extreme_pot_doubling_and_growing_are_said() -> None:
    t = start(Settings("mexen", 2, options=opts(rounds=3, variant="extreme")))
    out = t.throw(1, 1)  # pirate P1; a double adds one of its dice: 1 + 1, said as an
    # addition though the pot is twice as big (it was said "x2", as if 11 doubled it)
    assert isinstance(out.screen, Result) and out.screen.note == "P1 is the pirate  pot +1 = 2"
    out = t.throw(6, 5)  # 65 doubles the pot
    assert isinstance(out.screen, Result) and out.screen.note == "pot x2 = 4"
    out = t.throw(3, 3)  # the pirate takes 1, the pot grows by 3
    assert isinstance(out.screen, Result) and out.screen.note == "pirate P1 takes 1  pot +3 = 7"


# ---------------------------------------------------------------------------
# mythical: dice entered with the buttons (MY-1..MY-9, E-1)


def mythical(players: int = 2, rounds: int = 2, names: tuple[str, ...] = ()) -> Table:
    s = Settings("mythical", players, options=opts(rounds=rounds), names=names or ("Ann", "Bob"))
    t = start(s)
    assert t.header is not None and t.header.rules == "mythical"
    return t


def pick(t: Table, label: str) -> Output:
    """HOLD (which also takes a notice away) until the chooser shows ``label``, then ROLL."""
    for _ in range(20):
        screen = t.out.screen
        if isinstance(screen, Choose) and screen.item == label:
            return t.press(ROLL)
        t.press(HOLD)
    raise AssertionError(f"{label!r} was never offered: {render_text(t.out.screen)}")


def enter_bids(t: Table, *bids: int) -> Output:
    out = t.out
    for b in bids:
        out = pick(t, str(b))
    return out


def enter_roll(t: Table, die: str, face: int | str) -> Output:
    pick(t, die)
    return pick(t, str(face))


def offered(t: Table) -> list[str]:
    """Every item of the chooser on screen (HOLD round once)."""
    screen = t.out.screen
    assert isinstance(screen, Choose), render_text(screen)
    items = [screen.item]
    for _ in range(screen.count - 1):
        out = t.press(HOLD)
        assert isinstance(out.screen, Choose)
        items.append(out.screen.item)
    t.press(HOLD)  # back where it was
    return items


def test_MY_3_to_MY_9_a_whole_mythical_game_entered_with_the_buttons() -> None:
    t = mythical(2, rounds=2)
    assert t.header is not None
    assert [p.name for p in t.header.players] == ["Ann", "Bob"]
    assert all(p.cpu is None for p in t.header.players)
    assert isinstance(t.out.screen, Turn) and "bids" in render_text(t.out.screen)
    out = t.press(HOLD)  # takes the round's first screen away: Ann's bid
    assert isinstance(out.screen, Choose) and out.screen.title == "Ann's bid, round 1"
    assert offered(t) == ["0", "1"]  # MY-3: 0 to r
    out = pick(t, "1")
    assert out.log == () and isinstance(out.screen, Choose)
    assert out.screen.title == "Bob's bid, round 1"
    out = pick(t, "0")  # the last bid: one event for everyone's
    assert out.log == (Bids((("Ann", 1), ("Bob", 0))),)
    assert isinstance(out.screen, Choose) and out.screen.title.startswith("Ann's die")
    assert offered(t) == list(t.game.view()["dice_left"])  # every kind, in the bag's order
    pick(t, "red")
    assert isinstance(t.out.screen, Choose) and "Ann's red" in t.out.screen.title
    assert offered(t) == ["5", "6", "7"]  # MY-1: that die's distinct faces
    out = pick(t, "7")
    assert out.log == (Roll("red", 7),)
    assert isinstance(out.screen, Choose) and out.screen.title.startswith("Bob's die")
    out = enter_roll(t, "purple", 3)  # round 1's only trick: who took it, then the scores
    assert out.log == (Roll("purple", 3),)
    assert isinstance(out.screen, Result) and (out.screen.player, out.screen.shown) == (
        "trick 1/1",
        "Ann",
    )
    out = t.press(HOLD)
    assert out.log == () and isinstance(out.screen, RoundEnd)
    assert out.screen.title == "round 1 over"
    scores = t.game.view()["last_round"]["scores"]
    assert out.screen.standings == tuple((n, f"{v:+d}") for n, v in scores.items())
    # round 2 opens with the totals and who leads (MY-2), both drawn: a turn screen's
    # foot line had room for one, and the totals were never seen before the game's end
    out = t.press(HOLD)
    assert isinstance(out.screen, RoundEnd) and out.screen.title == "round 2: bids"
    assert out.screen.lost == "Bob leads"
    totals = tuple((p["name"], str(p["points"])) for p in t.game.view()["players"])
    assert out.screen.standings == totals and totals != (("Ann", "0"), ("Bob", "0"))
    drawn = shown_whole(out.screen)
    assert "Bob leads" in drawn and all(f"{v}" in drawn for _, v in totals)
    # a mermaid takes a minotaur (MY-5, MY-8)
    out = t.press(HOLD)
    assert isinstance(out.screen, Choose) and out.screen.title == "Ann's bid, round 2"
    enter_bids(t, 1, 1)
    assert isinstance(t.out.screen, Choose) and t.out.screen.title.startswith("Bob's die")
    enter_roll(t, "mermaid", "mermaid")
    out = enter_roll(t, "minotaur", "minotaur")
    assert isinstance(out.screen, Result)
    assert out.screen.shown == "Bob" and "+50 if bid met" in out.screen.note  # MY-8
    assert t.game.view()["last_trick"]["winner"] == "Bob"
    out = t.press(ROLL)  # any button takes it away: the winner leads (MY-6)
    assert isinstance(out.screen, Choose) and out.screen.title.startswith("Bob's die")
    assert "minotaur" not in offered(t)  # the bag's only one was rolled this round
    enter_roll(t, "grey", "flag")
    out = enter_roll(t, "yellow", 4)
    # The game is over (its log is closed), and the last trick and round are still shown
    assert out.game_over and isinstance(out.screen, Result) and out.screen.player == "trick 2/2"
    last = t.press(HOLD)
    assert last.log == () and isinstance(last.screen, RoundEnd)
    assert last.screen.title == "round 2 over"
    out = t.press(HOLD)
    assert isinstance(out.screen, GameEnd)
    assert t.events == [
        Bids((("Ann", 1), ("Bob", 0))),
        Roll("red", 7),
        Roll("purple", 3),
        Bids((("Ann", 1), ("Bob", 1))),
        Roll("mermaid", "mermaid"),
        Roll("minotaur", "minotaur"),
        Roll("grey", "flag"),
        Roll("yellow", 4),
    ]
    engine = replay(t.header, t.events).view()  # the rules engine on the same events
    assert engine["over"] and t.game.refused == ()
    assert out.screen.standings == tuple((p["name"], str(p["points"])) for p in engine["players"])
    assert out.screen.headline == f"{engine['winner']} wins!"
    assert isinstance(t.press(ROLL).screen, Menu)


def test_MY_3_MY_7_the_player_to_roll_sees_their_bid_and_tricks_taken() -> None:
    t = mythical(2, rounds=2)
    t.press(HOLD)
    enter_bids(t, 1, 0)
    screen = t.out.screen
    assert isinstance(screen, Choose) and screen.title.startswith("Ann's die")
    assert screen.note == "bid 1  took 0"
    pick(t, "red")
    assert isinstance(t.out.screen, Choose) and t.out.screen.note == "bid 1  took 0"
    pick(t, "7")
    assert isinstance(t.out.screen, Choose) and t.out.screen.note == "bid 0  took 0"  # Bob
    enter_roll(t, "purple", 3)
    enter_bids(t, 1, 2)  # round 2 (the notices HOLD away): Bob leads
    enter_roll(t, "mermaid", "mermaid")
    enter_roll(t, "minotaur", "minotaur")  # Bob takes trick 1
    t.press(ROLL)
    screen = t.out.screen
    assert isinstance(screen, Choose) and screen.title.startswith("Bob's die")
    assert screen.note == "bid 2  took 1"
    assert t.game.view()["tricks_won"]["Bob"] == 1 and t.game.view()["bids"]["Bob"] == 2


def test_MY_4_the_face_chooser_names_whose_die_with_a_long_name_cut() -> None:
    """With a long name the face chooser's title fell back to "minotaur: on top?",
    whose die it was said nowhere on it. The name is cut as little as fits instead, and
    the die's kind stays; a title that fits whole is as before."""
    long, other = "\u00c6r\u00f8sk\u00f8bing12", "Maximilian M"
    t = start(Settings("mythical", 2, names=(long, other)))
    t.press(ROLL)  # the first bid: 0
    t.press(ROLL)  # the second
    out = t.press(ROLL)  # the first player's die: the first kind offered
    assert isinstance(out.screen, Choose) and out.screen.title == f"{long}'s die"
    out = t.press(ROLL)  # its face
    assert isinstance(out.screen, Choose) and out.screen.title.endswith("..'s minotaur")
    assert long.startswith(out.screen.title.removesuffix("..'s minotaur"))
    assert overflow(out.screen) == ()
    out = t.press(ROLL)
    out = t.press(ROLL)
    assert isinstance(out.screen, Choose) and out.screen.title == f"{other}'s griffin"


def test_mythical_stop_goes_back_one_step_and_logs_nothing() -> None:
    t = mythical(3, rounds=2, names=("Ann", "Bob", "Cid"))
    t.press(HOLD)
    out = t.press(STOP)  # the first bid: nowhere to go back to
    assert isinstance(out.screen, Choose) and out.screen.title == "Ann's bid, round 1"
    assert "first bid" in out.screen.hint
    enter_bids(t, 1)
    out = t.press(STOP)  # back to Ann's bid, showing what was entered
    assert isinstance(out.screen, Choose) and out.screen.title == "Ann's bid, round 1"
    assert out.screen.item == "1"
    enter_bids(t, 0, 1)
    out = t.press(STOP)  # back from Cid to Bob
    assert isinstance(out.screen, Choose) and out.screen.title == "Bob's bid, round 1"
    assert out.screen.item == "1"
    enter_bids(t, 0, 0)
    assert t.events == [Bids((("Ann", 0), ("Bob", 0), ("Cid", 0)))]
    pick(t, "griffin")
    out = t.press(STOP)  # from the face back to the kind of die
    assert isinstance(out.screen, Choose) and out.screen.title.startswith("Ann's die")
    assert out.screen.item == "griffin"
    out = t.press(STOP)  # nothing before it in this entry
    assert isinstance(out.screen, Choose) and out.screen.title.startswith("Ann's die")
    enter_roll(t, "yellow", 3)
    out = t.press(STOP)  # Ann's roll is logged: it stays
    assert isinstance(out.screen, Choose) and out.screen.title.startswith("Bob's die")
    assert out.log == () and len(t.events) == 2


def test_MY_1_a_refused_entry_is_shown_and_not_logged() -> None:
    from table.service.referee import Chooser, Purpose

    t = mythical(2, rounds=2)
    enter_bids(t, 0, 1)
    enter_roll(t, "minotaur", "minotaur")
    enter_roll(t, "red", 5)
    enter_bids(t, 1, 0)
    assert t.game.view()["dice_left"]["minotaur"] == 1  # a new round, a full bag
    enter_roll(t, "minotaur", "minotaur")
    assert "minotaur" not in offered(t)  # the choosers offer only what the bag still has
    # Should an entry still be one the rules refuse (a second minotaur this round) ...
    events = list(t.events)
    face = Chooser(Purpose.FACE, "Ann's minotaur", ("minotaur", "flag"), ("minotaur", "flag"))
    t.ref = replace(t.ref, chooser=face, die="minotaur")
    out = t.press(ROLL)
    assert isinstance(out.screen, Refusal)
    assert "minotaur" in out.screen.reason and "already rolled" in out.screen.reason
    assert out.log == () and t.events == events and t.game.refused == ()
    out = t.press(HOLD)  # ... and entered again
    assert isinstance(out.screen, Choose) and out.screen.title.startswith("Ann's die")
    assert enter_roll(t, "mermaid", "flag").log == (Roll("mermaid", "flag"),)


def test_E_1_very_long_stop_opens_the_end_game_menu_in_mythical() -> None:
    t = mythical(2, rounds=2)
    enter_bids(t, 1)
    out = t.press(STOP_VERY_LONG)
    assert isinstance(out.screen, Choose) and out.screen.title == "end the game?"
    out = t.press(ROLL)  # "no": back where it was, Ann's bid kept
    assert isinstance(out.screen, Choose) and out.screen.title == "Bob's bid, round 1"
    enter_bids(t, 0)
    enter_roll(t, "red", 7)
    pick(t, "purple")
    t.press(STOP_VERY_LONG)
    out = t.press(STOP)  # out of the question: the face is asked again
    assert isinstance(out.screen, Choose) and out.screen.title.startswith("Bob's purple")
    t.press(STOP_VERY_LONG)
    t.press(HOLD)  # yes
    out = t.press(ROLL)
    assert out.log == (EndGame(),) and out.game_over
    assert isinstance(out.screen, GameEnd)
    engine = replay(t.header, t.events).view() if t.header else {}
    winner = engine["winner"]
    assert out.screen.headline == (f"{winner} wins!" if winner else "no winner")
    assert "round 1" in out.screen.detail


def test_E_1_very_long_stop_opens_the_end_game_menu_over_a_round_s_end_too() -> None:
    """Over a notice ("trick 1/1", "round 1 over") any press only took the notice away,
    a very long STOP too: at a round's end, when people stop, holding STOP went to the
    next screen. It now asks; "no" (or STOP) brings the notices back where they were,
    "yes" ends the game."""
    t = mythical(2, rounds=2)
    enter_bids(t, 1, 0)
    enter_roll(t, "red", 7)
    trick = enter_roll(t, "purple", 3).screen
    assert isinstance(trick, Result) and trick.player == "trick 1/1"
    out = t.press(STOP_VERY_LONG)
    assert isinstance(out.screen, Choose) and out.screen.title == "end the game?"
    out = t.press(ROLL)  # "no, play on": the trick's notice again, then the round's end
    assert out.screen == trick and out.log == ()
    out = t.press(HOLD)
    assert isinstance(out.screen, RoundEnd) and out.screen.title == "round 1 over"
    t.press(STOP_VERY_LONG)
    out = t.press(STOP)  # out of the question: the round's end again
    assert isinstance(out.screen, RoundEnd) and out.screen.title == "round 1 over"
    t.press(STOP_VERY_LONG)
    t.press(HOLD)  # yes
    out = t.press(ROLL)
    assert out.log == (EndGame(),) and out.game_over and isinstance(out.screen, GameEnd)
    out = t.press(HOLD)  # the game's end goes to the menu, no notice left over
    assert isinstance(out.screen, Menu)


def test_E_1_no_to_the_end_game_question_over_notices_sets_their_choice_up_again() -> None:
    """The question took the place of the choice under the notices: after "no", the
    notices came back but a 31's give could not be made (ROLL "no throw now", STOP a
    refused stand), and the next round's first bid was entered by a ROLL on its notice
    without being shown."""
    t = mexen()
    t.throw(3, 1)
    r = Table.boot(Settings(), resume=LoadedGame(t.header, tuple(t.events)))
    assert isinstance(r.out.screen, Resumed) and r.ref.dismiss  # any button: go on
    r.press(STOP_VERY_LONG)
    out = r.press(ROLL)  # no, play on
    assert isinstance(out.screen, Resumed)
    out = r.press(HOLD)
    assert isinstance(out.screen, Choose) and out.screen.title == "31! give a point to"
    m = mythical(2, rounds=2)
    enter_bids(m, 1, 0)
    enter_roll(m, "red", 7)
    enter_roll(m, "purple", 3)
    m.press(STOP_VERY_LONG)
    m.press(STOP)  # out of the question
    for _ in range(3):  # the trick, the round's end, the next round's bids
        out = m.press(HOLD)
    assert isinstance(out.screen, Choose) and out.screen.title == "Ann's bid, round 2"
    assert m.ref.bids == ()


def test_mythical_resumes_where_it_was_and_half_entered_bids_are_entered_again() -> None:
    t = mythical(2, rounds=2)
    enter_bids(t, 1, 0)
    enter_roll(t, "red", 7)
    enter_roll(t, "purple", 3)
    enter_bids(t, 1)  # Ann's bid for round 2 is entered, not logged: the power goes
    assert t.header is not None and len(t.events) == 3
    r = Table.boot(Settings(), resume=LoadedGame(t.header, tuple(t.events)))
    assert r.game.state == t.game.state
    assert isinstance(r.out.screen, Resumed) and r.out.screen.rules == "mythical"
    assert "round 2" in r.out.screen.detail and "bids" in r.out.screen.detail
    # the trick and the round the last roll ended, as they came before the cut (MY-5..MY-8)
    trick = r.press(HOLD).screen
    assert isinstance(trick, Result) and trick.player == "trick 1/1" and trick.shown == "Ann"
    assert "round 1" in render_text(r.press(HOLD).screen)
    r.press(HOLD)  # round 2's first screen: the totals
    out = r.press(HOLD)  # the bids of round 2 from the first again
    assert isinstance(out.screen, Choose) and out.screen.title == "Ann's bid, round 2"
    assert enter_bids(r, 2, 0).log == (Bids((("Ann", 2), ("Bob", 0))),)
    enter_roll(r, "griffin", "griffin")  # Bob leads round 2
    # a cut in the middle of a trick: the next player rolls on
    assert r.header is not None
    r2 = Table.boot(Settings(), resume=LoadedGame(r.header, tuple(r.events)))
    assert isinstance(r2.out.screen, Resumed) and "Ann rolls" in r2.out.screen.detail
    out = r2.press(ROLL)
    assert isinstance(out.screen, Choose) and out.screen.title.startswith("Ann's die")
    assert enter_roll(r2, "mermaid", "mermaid").log == (Roll("mermaid", "mermaid"),)
    assert r2.game.view()["last_trick"]["winner"] == "Bob"  # MY-5: griffin beats mermaid


def test_mythical_menu_rounds_from_its_option_specs_no_cpus_two_to_six_players() -> None:
    t = Table.boot(Settings("mythical", 3, cpus=("hard",)))
    titles: list[str] = []
    for _ in range(30):
        screen = t.out.screen
        assert isinstance(screen, Menu)
        titles.append(screen.title)
        if screen.title == "players":
            assert offered_menu(t) == [f"{n} players" for n in range(2, 7)]
        if screen.title == "rounds":
            assert offered_menu(t) == ["auto"] + [str(n) for n in range(1, 9)]
        if screen.title == "start game":
            break
        t.press(ROLL)
    assert titles == ["rules", "players", "rounds", "start game"]  # no CPU step
    out = t.press(ROLL)
    assert out.new_game is not None
    assert [p.cpu for p in out.new_game.players] == [None, None, None]


def offered_menu(t: Table) -> list[str]:
    screen = t.out.screen
    assert isinstance(screen, Menu)
    items = [screen.item]
    for _ in range(screen.count):
        out = t.press(HOLD)
        assert isinstance(out.screen, Menu)
        items.append(out.screen.item)
    assert items[0] == items[-1]
    return sorted(items[:-1], key=lambda s: (s != "auto", len(s), s))


def test_mythical_screens_fit_six_players() -> None:
    names = ("Amelia", "Bruno", "Carla", "Dmitri", "Esther", "Farid")
    t = mythical(6, rounds=1, names=names)  # Table checks every screen for cutting
    enter_bids(t, 1, 0, 0, 0, 1, 0)
    for die, face in (("mermaid", "mermaid"), ("minotaur", "minotaur"), ("red", 5)) + (
        ("griffin", "flag"),
        ("grey", 1),
        ("purple", 2),
    ):
        out = enter_roll(t, die, face)
    assert out.game_over
    screens = [out.screen, t.press(HOLD).screen, t.press(HOLD).screen]
    assert [type(s) for s in screens] == [Result, RoundEnd, GameEnd]
    assert len(t.events) == 7


def test_MY_2_six_long_names_keep_the_round_s_title_and_hint_over_their_totals() -> None:
    """Six long names are cut in any standings: the screen opening round 2 fell back to
    its last form, "round 2" with no "bids" and no hint, for want of an uncut one."""
    names = SIX_LONG_NAMES
    t = mythical(6, rounds=2, names=names)
    t.names_cut = True
    enter_bids(t, 0, 0, 0, 0, 0, 0)
    for die, face in (("red", 7), ("yellow", 5), ("purple", 3), ("grey", 1)) + (
        ("red", 6),
        ("yellow", 4),
    ):
        enter_roll(t, die, face)
    screen = t.out.screen
    for _ in range(5):
        if isinstance(screen, RoundEnd) and screen.title.startswith("round 2"):
            break
        screen = t.press(HOLD).screen
    assert isinstance(screen, RoundEnd) and screen.title == "round 2: bids"
    drawn = shown_whole(screen)
    assert {"round 2: bids", "any button", f"{screen.lost}"} <= set(drawn)
    assert screen.lost.endswith(" leads")


def test_MY_8_six_players_see_the_bonus_on_the_trick_s_screen() -> None:
    """The round's end has no room for its bonuses beside six players' scores; the
    trick's screen names the bonus, and that it counts only with the bid met."""
    names = ("Amelia", "Bruno", "Carla", "Dmitri", "Esther", "Farid")
    t = mythical(6, rounds=1, names=names)
    enter_bids(t, 1, 0, 0, 0, 0, 0)
    for die, face in (("mermaid", "mermaid"), ("minotaur", "minotaur"), ("red", 5)) + (
        ("yellow", 4),
        ("grey", 1),
        ("purple", 2),
    ):
        out = enter_roll(t, die, face)
    assert isinstance(out.screen, Result) and out.screen.shown == "Amelia"
    assert out.screen.note.endswith("+50 if bid met")
    assert t.game.view()["last_round"]["bonuses"]["Amelia"] == 50
    scores = t.press(HOLD).screen
    assert isinstance(scores, RoundEnd) and ("Amelia", "+70") in scores.standings


def test_the_round_end_header_keeps_the_next_players_name_whole() -> None:
    """ "round 1 over" and "next: Maximilian" do not both fit the top line: it showed
    "round 1 o.." beside "next: Maxi..". The title gives way ("round 1"), the name stays;
    the Table checks that nothing of the screen is cut."""
    t = start(Settings("mexico", 2, names=("Ann", "Maximilian"), options=opts(max_throws=1)))
    t.throw(6, 5)
    out = t.throw(4, 2)
    assert isinstance(out.screen, RoundEnd)
    assert out.screen.hint == "next: Maximilian"
    assert out.screen.title.startswith("round 1")


def test_MN_6_the_give_names_its_receiver_whole() -> None:
    """ "Ann gives 1 point to Maximilian" is wider than the screen: it was cut to "Ann
    gives 1 point to Max..", the one name it is there to say. The giver's name, whose
    turn screen it is, gives way. The Table checks that nothing of the screen is cut."""
    t = start(Settings("mexen", 3, names=("Ann", "Charlie", "Maximilian")))
    t.throw(3, 1)
    out = t.press(HOLD)  # Charlie -> Maximilian
    assert isinstance(out.screen, Choose) and out.screen.item == "Maximilian"
    out = t.press(ROLL)
    assert out.log == (Give("Maximilian"),)
    assert isinstance(out.screen, Turn) and out.screen.player == "Ann"
    assert out.screen.header == "1 point to Maximilian"


def test_MN_8_the_pirate_s_multiplier_stands_apart_from_the_name() -> None:
    """ "pirate Robox2", "pirate Maxx1": the multiplier ran into the name, which then read
    as another name."""
    t = start(Settings("mexen", 2, names=("Max", "Ann")))
    t.throw(1, 1)  # Max becomes the pirate (MN-8)
    t.throw(6, 3)
    t.throw(6, 4)  # Ann's turn
    out = t.press(ROLL)
    assert isinstance(out.screen, Reading)
    out = t.press(STOP)  # reading cancelled: the turn screen, with the pirate
    assert isinstance(out.screen, Turn) and out.screen.player == "Ann"
    assert out.screen.info == "pot 1  pirate Max x1"


def test_an_option_value_off_the_menu_s_presets_is_kept_and_offered() -> None:
    """A config's ``lives = 7`` for mex (allowed: 1-99) was dropped without a word: the
    menu offered 12 lives and the game started with 12. A value the rules allow is kept,
    shown as the current choice, and played."""
    s = Settings(rules="mex", players=2, options=opts(lives=7))
    assert dict(normalize(s).options) == {"lives": 7}
    # A null is left to the rules only where they choose by the table (mythical's
    # rounds, MY-2); lives have a default, so a null there is dropped and it is played.
    assert normalize(Settings("mex", 2, options=opts(lives=None))).options == ()
    assert normalize(Settings("mythical", 2, options=opts(rounds=None))).options == (
        ("rounds", None),
    )
    t = Table.boot(s)
    while not (isinstance(t.out.screen, Menu) and t.out.screen.title == "lives"):
        t.press(ROLL)
    assert t.out.screen.item == "7"
    t = start(Settings(rules="mexen", options=opts(rounds=7, limit=33)))
    assert t.header is not None and dict(t.header.options)["rounds"] == 7
    assert dict(t.header.options)["limit"] == 33
    t = start(s)
    assert t.header is not None and dict(t.header.options)["lives"] == 7


def test_MC_3_a_21_with_double_on_21_off_is_not_said_to_double_the_loss() -> None:
    """With ``double_on_21`` off the round's end said "P2 loses 1 life" and, beside it,
    "21: x2": a 21 thrown in the round doubles nothing then (MC-3)."""
    t = start(Settings(rules="mexico", players=2, options=opts(double_on_21=False)))
    t.throw(2, 1)
    t.press(STOP)
    t.throw(4, 2)
    out = t.press(STOP)
    assert isinstance(out.screen, RoundEnd) and out.screen.lost == "P2 loses 1 life"
    assert "x2" not in render_text(out.screen)
    # with it on, the round end says why the loss is 2
    t = start(Settings(rules="mexico", players=2))
    t.throw(2, 1)
    t.press(STOP)
    t.throw(4, 2)
    out = t.press(STOP)
    assert isinstance(out.screen, RoundEnd) and out.screen.lost == "P2 loses 2 lives"
    assert "21: x2" in out.screen.extra


def test_MC_3_a_round_end_never_cuts_off_how_many_lives_were_lost() -> None:
    """Alexandra and Christopher lowest together read "Alexandra, Christopher lo..": the
    names took the line and the loss was cut off. A shorter line that says the loss
    whole is shown instead, after a notice that names them."""
    s = Settings("mexico", 3, names=("Alexandra", "Christopher", "Bob"))
    t = start(s)
    t.throw(4, 1)
    t.press(STOP)
    t.throw(4, 1)
    t.press(STOP)
    t.throw(6, 5)
    out = t.press(STOP)
    assert isinstance(out.screen, Message)  # and, as every screen here, nothing is cut
    assert out.screen.text == "Alexandra, Christopher lose 1 life"
    out = t.press(ROLL)
    assert isinstance(out.screen, RoundEnd)
    assert out.screen.lost == "2 players lose 1 life"


def test_the_game_end_never_cuts_off_the_last_round_s_loss() -> None:
    """Charlotte's win over Maximilian ended on "last round: Maximilian los..": the loss
    of the last round cut off. The line gives way to "Maximilian lost 1", or goes."""
    t = start(Settings("mexico", 2, options=opts(lives=2), names=("Charlotte", "Maximilian")))
    for first, second in (((6, 3), (4, 2)), ((4, 2), (6, 3))):  # the loser starts (MC-5)
        t.throw(*first)
        t.press(STOP)
        t.throw(*second)
        out = t.press(STOP)
    assert isinstance(out.screen, GameEnd)  # and, as every screen here, nothing is cut
    assert out.screen.headline == "Charlotte wins!"
    assert out.screen.detail == "Maximilian lost 1"


def test_MY_7_the_round_end_says_whose_bids_were_met() -> None:
    """Round 1: both bids met; round 2: only Ann's (Bob bid 0 and took both tricks)."""
    t = mythical(2, rounds=3)
    t.press(HOLD)  # the round's first screen away: Ann's bid
    enter_bids(t, 1, 0)
    enter_roll(t, "red", 7)
    enter_roll(t, "purple", 3)
    out = t.press(HOLD)  # the last trick's screen away: the round's
    assert isinstance(out.screen, RoundEnd) and out.screen.lost == "all bids met"
    enter_bids(t, 0, 0)  # round 2: Bob leads
    enter_roll(t, "red", 7)
    out = enter_roll(t, "purple", 1)
    assert t.game.view()["last_trick"]["winner"] == "Bob"
    t.press(ROLL)  # the trick's screen away: Bob leads again
    enter_roll(t, "yellow", 3)
    enter_roll(t, "grey", 1)
    assert t.game.view()["last_round"]["met"] == ["Ann"]
    out = t.press(HOLD)
    assert isinstance(out.screen, RoundEnd) and out.screen.lost == "bid met: Ann"


def test_a_long_stop_on_a_cpu_s_turn_does_not_end_the_round_for_it() -> None:
    """MX-7 (a) lets the player on turn who has thrown end the round: on a CPU's turn
    that is the CPU's decision, not that of whoever presses STOP."""
    t = start(Settings("mex", 3, cpus=("hard",)))
    t.throw(6, 3)
    t.throw(6, 4)
    t.press(STOP)  # P1 stands after two throws: two each (MX-4)
    t.throw(5, 2)
    t.press(STOP)
    out = t.press(ROLL)  # CPU1's first throw; its turn goes on
    turn = t.game.turn
    assert len(out.log) == 1 and turn is not None and (turn.player, turn.throw) == ("CPU1", 1)
    assert EndRound().kind in t.game.allowed  # the rules would let CPU1 end it now
    out = t.press(STOP_LONG)
    assert out.log == () and "CPU1 plays: ROLL lets it" in render_text(out.screen)
    assert t.game.view()["round"] == 1 and not t.game.view()["last_round"]


def test_MX_8_a_cpu_standing_into_a_tie_break_leaves_it_said() -> None:
    """CPU2 stands last, tied for lowest with P1 and CPU1: a tie-break (MX-8). The next
    turn screen said only "CPU2 stands", nothing of the tie-break people saw when they
    stood into one themselves."""
    t = start(Settings("mex", 3, cpus=("hard", "hard")), by_hand=True)
    t.throw(4, 2)
    t.throw(3, 1)
    t.press(STOP)  # P1: 31 on the second throw, two throws each (MX-4)
    t.press(ROLL)
    t.throw(3, 1)  # CPU1's dice, rolled by hand (MC-6)
    t.press(ROLL)
    t.throw(3, 1)  # CPU1 keeps 31 too
    t.press(ROLL)
    t.throw(6, 5)
    out = t.press(ROLL)  # CPU2 stands on 65: P1 and CPU1 tie for lowest
    assert t.game.view()["phase"] == "tiebreak"
    assert isinstance(out.screen, Turn) and out.screen.player == "P1"
    assert out.screen.header == "CPU2 stands  tie-break"


def test_MX_4_a_cpu_standing_first_leaves_the_throws_it_left_said() -> None:
    """CPU1 opens round 2 and stands after one throw: P1 has one throw (MX-4). The turn
    screen said only "CPU1 stands", so P1's one throw ended the round unwarned."""
    t = start(Settings("mex", 2, cpus=("hard",)), by_hand=True)
    t.throw(6, 5)
    t.press(STOP)  # P1 stands on 65 after one throw
    t.press(ROLL)
    t.throw(3, 1)  # CPU1's one throw: 31, it loses and opens round 2
    for _ in range(3):  # the round's end, then CPU1's turn
        turn = t.game.turn
        if t.game.view()["round"] == 2 and isinstance(t.out.screen, Turn):
            break
        t.press(ROLL)
    assert turn is not None and turn.player == "CPU1"
    t.press(ROLL)
    t.throw(6, 6)
    out = t.press(ROLL)  # CPU1 stands on 600 after one throw
    turn = t.game.turn
    assert turn is not None and (turn.player, turn.max_throws) == ("P1", 1)
    assert isinstance(out.screen, Turn) and out.screen.header == "CPU1 stands  throw 1/1"


def test_MX_7_b_a_person_ends_the_round_from_a_cpu_s_turn_before_it_throws() -> None:
    """P2 threw last; CPU1 is next and has not thrown: P2's long STOP ends the round."""
    t = start(Settings("mex", 3, cpus=("hard",)))
    t.throw(6, 3)
    t.press(STOP)  # one throw each (MX-4)
    t.throw(4, 2)  # P2's only throw: CPU1's turn
    turn = t.game.turn
    assert turn is not None and (turn.player, turn.throw) == ("CPU1", 0)
    out = t.press(STOP_LONG)
    assert out.log == (EndRound(),)
    assert isinstance(out.screen, RoundEnd) and out.screen.lost == "P2 loses 1 life"
    last = t.game.view()["last_round"]
    assert last["ended_by"] == "P2" and [p["name"] for p in last["pairs"]] == ["P1", "P2"]


def test_MN_12_an_extreme_31_is_said_not_to_count() -> None:
    """A 31 in the extreme variant is thrown again and uses up no throw: its screen showed
    "31" big under "throw 3/3" like a counted score, with nothing saying it was void."""
    t = start(Settings("mexen", 2, options=opts(rounds=3, variant="extreme")))
    t.throw(6, 4)
    t.throw(5, 3)
    out = t.throw(3, 1)  # the third throw is a 31: thrown again
    assert isinstance(out.screen, Result) and out.screen.shown == "31"
    assert "31 does not count" in out.screen.note
    assert t.game.view()["turn"]["throw"] == 2
    out = t.throw(6, 2)  # the third throw that counts
    assert isinstance(out.screen, Result) and out.screen.header == "turn over"


@pytest.mark.parametrize(("players", "most"), [(5, 7), (6, 6)])
def test_MY_2_the_menu_offers_only_rounds_the_bag_has_dice_for(players: int, most: int) -> None:
    """8 rounds with 6 players need 48 dice, the bag holds 36: the menu offered 7 and 8
    all the same, and starting one showed "cannot start" with its reason cut off. A
    remembered number of rounds too many for the players gives way to the default."""
    t = Table.boot(Settings("mythical", players, options=opts(rounds=8)))
    for _ in range(5):
        if t.out.screen.title == "rounds":
            break
        t.press(ROLL)
    assert isinstance(t.out.screen, Menu) and t.out.screen.title == "rounds"
    assert t.out.screen.item == "auto"
    assert offered_menu(t) == ["auto"] + [str(n) for n in range(1, most + 1)]
    for _ in range(most):
        t.press(HOLD)
    assert t.out.screen.item == str(most)
    t.press(ROLL)
    out = t.press(ROLL)  # start: the bag has the dice
    assert out.new_game is not None and out.new_game.options == {"rounds": most}


def test_MY_7_one_bid_met_is_said_so_when_the_names_do_not_fit() -> None:
    """Only Charlotte met her bid, and "bid met: Charlotte" gave way to the short line,
    which read "1 bids met"."""
    t = mythical(3, rounds=2, names=("Ann", "Bob", "Charlotte"))
    t.press(HOLD)
    enter_bids(t, 1, 0, 0)
    enter_roll(t, "red", 5)
    enter_roll(t, "red", 7)
    enter_roll(t, "grey", "flag")  # Bob takes the trick he bid none of
    assert t.game.view()["last_round"]["met"] == ["Charlotte"]
    out = t.press(HOLD)
    assert isinstance(out.screen, RoundEnd)
    assert out.screen.lost in ("bid met: Charlotte", "1 bid met")


@pytest.mark.parametrize("first", [1, 2])
def test_MN_4_a_first_player_s_early_mex_says_the_others_throw_limit(first: int) -> None:
    """The round's first player's Mex on throw 1 or 2 leaves every later player that many
    throws. The Mex's screen said only "next: P2", and the next screen is P2's throw:
    nothing told P2 before that throw that it would be the last."""
    t = start(Settings("mexen", 3, options=opts(rounds=3)))
    for _ in range(first - 1):
        t.throw(6, 4)
    out = t.throw(2, 1)
    assert t.game.view()["turn"]["max_throws"] == first
    assert isinstance(out.screen, Result)
    assert out.screen.hint == f"next: P2, {first} throw{'s' if first > 1 else ''}"
    for _ in range(first):
        out = t.throw(6, 4)
    assert isinstance(out.screen, Result) and out.screen.hint.startswith("next: P3")


def test_mythical_stop_on_a_round_s_first_die_says_the_bids_stay() -> None:
    """STOP on the first die of a round (the bids just logged) said "rolled dice stay",
    with no die rolled yet: what stays there is the bids."""
    t = mythical(2, rounds=2)
    t.press(HOLD)
    enter_bids(t, 1, 0)
    out = t.press(STOP)
    assert isinstance(out.screen, Choose) and out.screen.title.startswith("Ann's die")
    assert out.screen.hint == "the bids stay" and out.log == ()
    enter_roll(t, "red", 7)
    out = t.press(STOP)  # Ann's roll is logged
    assert isinstance(out.screen, Choose) and out.screen.hint == "rolled dice stay"


def test_MX_7_b_a_long_stop_does_not_end_the_round_for_a_cpu_that_threw_last() -> None:
    """MX-7 (b): before the next player's first throw, the player who threw last may end
    the round. When that is a CPU, it is the CPU's decision (taken at once, ``hard``
    never ends a round): a long STOP does not end the round in its name."""
    players = (Player("P1"), Player("P2"), Player("CPU1", "hard"))
    header = GameHeader("mex", players, {"lives": 3, "max_throws": 1}, 5)
    # round 1: P2 loses; round 2 in the order P2, CPU1, P1
    events = (Throw((6, 3)), Throw((4, 2)), Throw((6, 5)), Throw((5, 3)), Throw((6, 4)))
    t = Table.boot(Settings(), resume=LoadedGame(header, events))
    turn = t.game.turn
    assert turn is not None and (turn.player, turn.throw) == ("P1", 0)
    assert t.game.view()["kept"][-1]["name"] == "CPU1"
    assert EndRound().kind in t.game.allowed  # the rules would let CPU1 end it now
    out = t.press(STOP_LONG)
    assert out.log == () and t.game.view()["round"] == 2
    assert "CPU1" in render_text(out.screen)
    # on CPU2's turn before it throws, after CPU1's throw, the same
    s = Settings("mex", 3, cpus=("hard", "hard"), options=opts(lives=3))
    t = start(s)
    t.throw(4, 1)
    t.throw(3, 2)
    t.throw(3, 1)  # P1's three throws: three each
    for _ in range(4):
        t.press(ROLL)
        turn = t.game.turn
        if turn is not None and (turn.player, turn.throw) == ("CPU2", 0):
            break
    assert turn is not None and (turn.player, turn.throw) == ("CPU2", 0)
    assert EndRound().kind in t.game.allowed
    out = t.press(STOP_LONG)
    assert out.log == () and not t.game.view()["last_round"]
    assert "CPU1" in render_text(out.screen)


def test_MX_9_hold_does_not_choose_the_count_for_a_cpu_that_is_the_tie_break_s_last() -> None:
    """MX-9: the tie-break's last player chooses its counting; when that is a CPU, its
    choice (taken at once: ``hard`` leaves it at ``mex``) is not a person's HOLD."""
    players = (Player("P1"), Player("CPU1", "hard"))
    header = GameHeader("mex", players, {"lives": 3, "max_throws": 1}, 5)
    t = Table.boot(Settings(), resume=LoadedGame(header, (Throw((4, 2)), Throw((4, 2)))))
    view = t.game.view()
    assert view["phase"] == "tiebreak" and view["tiebreak"]["players"] == ["P1", "CPU1"]
    turn = t.game.turn
    assert turn is not None and turn.player == "P1"
    out = t.press(HOLD)
    assert not isinstance(out.screen, Choose) and out.log == ()
    assert "CPU1" in render_text(out.screen)
    assert "HOLD: count" not in render_text(out.screen)  # not offered to P1 either
    t.press(HOLD)
    out = t.press(ROLL)  # P1 throws: no count was chosen in CPU1's name
    assert out.want_dice
    t.read(dice(6, 5))
    assert not any(isinstance(e, Count) for e in t.events)


def test_MX_9_a_person_last_in_the_tie_break_is_offered_the_count() -> None:
    players = (Player("P1"), Player("P2"))
    header = GameHeader("mex", players, {"lives": 3, "max_throws": 1}, 5)
    t = Table.boot(Settings(), resume=LoadedGame(header, (Throw((4, 2)), Throw((4, 2)))))
    assert t.press(ROLL).want_dice
    out = t.press(STOP)  # reading cancelled: P1's turn as before
    assert isinstance(out.screen, Turn) and out.screen.player == "P1"
    assert out.screen.hint == "roll+ROLL  HOLD: count"  # P2's choice, before P1 throws
    assert isinstance(t.press(HOLD).screen, Choose)


def test_MX_9_a_cpu_s_count_at_a_tie_break_s_start_keeps_who_throws_first() -> None:
    """The throw that starts a tie-break says who throws first in it; a CPU that chooses
    the counting at once (MX-9, ``easy`` asks for pips) says so beside it, by name."""
    players = (Player("P1"), Player("P2"), Player("CPU1", "easy"))
    header = GameHeader("mex", players, {"lives": 3, "max_throws": 1}, 2)
    t = Table.boot(
        Settings(), resume=LoadedGame(header, (Throw((4, 2)), Throw((6, 5)))), by_hand=True
    )
    t.press(ROLL)  # CPU1 throws: a person rolls for it
    t.press(ROLL)
    out = t.read(dice(4, 2))  # ties P1's 42: a tie-break of P1 and CPU1, CPU1 last
    assert out.log == (Throw((4, 2)), Count("pips"))  # CPU1 asks for pips at once
    screen = out.screen
    assert isinstance(screen, Result) and screen.header == "tie-break!"
    assert screen.hint == "tie-break: P1 first"
    assert "CPU1" in screen.note and "pips" in screen.note


@pytest.mark.parametrize("rules", ["mexico", "mex"])
def test_a_cpu_throw_that_ends_the_game_is_shown_on_the_game_s_end(rules: str) -> None:
    """A CPU's software dice are seen nowhere but on the screen: when its throw ends the
    game, the game's end says what it threw, as a round's end does (MC-6)."""
    players = (Player("P1"), Player("CPU1", "normal"))
    header = GameHeader(rules, players, {"lives": 2, "max_throws": 1}, 3)
    # round 1: P1 31 loses 1 life (no 21 thrown); round 2: P1 31 again, CPU1 last
    t = Table.boot(Settings(), resume=LoadedGame(header, (Throw((3, 1)), Throw((6, 5)))))
    t.press(ROLL)  # the resumed screen, then round 1's end again
    t.throw(3, 1)
    out = t.press(ROLL)  # CPU1's one throw (32: the seed's dice) ends the round and game
    assert out.game_over and isinstance(out.screen, GameEnd)
    thrown = out.log[0]
    assert isinstance(thrown, Throw)
    high, low = max(thrown.dice), min(thrown.dice)
    name = "MEX" if (high, low) == (2, 1) else f"{high}{low}"
    if rules == "mex" and high == low:
        name = f"{high}00"
    assert f"CPU1 {name}" in render_text(out.screen)
    assert overflow(out.screen) == ()


def test_MX_9_the_count_chooser_opens_at_the_count_chosen_so_far() -> None:
    """A later count replaces an earlier one (MX-9): HOLD again shows the count that holds
    now, so ROLL keeps it, instead of showing ``mex`` while ``pips`` was chosen."""
    t = mex_tie_break(pips=True)
    out = t.press(HOLD)
    assert isinstance(out.screen, Choose) and out.screen.item.startswith("pips")
    out = t.press(ROLL)
    assert t.game.view()["tiebreak"]["count"] == "pips"
    out = t.press(HOLD)
    out = t.press(HOLD)  # back to mex
    assert isinstance(out.screen, Choose) and out.screen.item.startswith("mex")
    assert t.press(ROLL).log == (Count("mex"),)


def _mex_with_cpus_by_hand(cpus: tuple[str, ...], seed: int) -> Table:
    t = Table.boot(
        Settings("mex", len(cpus) + 1, cpus=cpus, options=opts(lives=3, max_throws=1)),
        seed=seed,
        by_hand=True,
    )
    for _ in range(30):
        if t.press(ROLL).new_game is not None:
            break
    assert t.header is not None
    return t


def test_MX_9_a_round_ended_by_a_person_voids_a_cpu_s_decision_to_throw() -> None:
    """CPU1 had decided to throw (its dice rolled by a person) when P1 ended the round
    (MX-7 b). The decision outlived the round: the next ROLL read dice at once, and CPU3,
    last in the tie-break, never chose how it is counted."""
    t = _mex_with_cpus_by_hand(("normal", "normal", "easy"), seed=2)
    t.throw(6, 6)
    for dice in ((5, 5), (3, 1), (4, 4)):
        t.press(ROLL)  # the CPU decides to throw; a person rolls for it
        t.throw(*dice)
    assert t.game.view()["round"] == 2
    t.press(ROLL)
    t.throw(4, 1)
    t.press(ROLL)
    t.throw(1, 4)
    t.throw(6, 6)
    t.press(ROLL)  # CPU1 decides to throw
    t.press(STOP_LONG)  # P1 threw last and ends the round: a tie-break
    assert t.game.view()["phase"] == "tiebreak"
    out = t.press(ROLL)
    assert out.log == (Count("pips"),), render_text(out.screen)  # CPU3's choice
    assert not t.ref.waiting


def test_MX_7_MX_9_a_cpu_s_decision_not_yet_taken_is_not_said_as_taken() -> None:
    """On a CPU's turn the other CPUs' decisions wait for ROLL: a long STOP said "CPU1
    threw last and lets the round go on", and the next ROLL had CPU1 end it; HOLD said
    "CPU2 chooses the count: mex", and the next ROLL counted pips."""
    t = start(Settings("mex", 3, cpus=("normal", "normal"), options=opts(lives=3)))
    t.throw(3, 2)
    t.press(STOP)
    t.press(ROLL)  # CPU1 plays
    said = render_text(t.press(STOP_LONG).screen)  # on CPU2's turn
    ended = any(isinstance(e, EndRound) for e in t.press(ROLL).log)
    assert ended == ("CPU1 ends the round: ROLL lets it" in said), said
    assert ended != ("lets the round go on" in said), said

    t = _mex_with_cpus_by_hand(("easy", "easy"), seed=2)
    t.throw(6, 6)
    t.press(ROLL)
    t.throw(4, 1)
    t.press(ROLL)
    t.throw(1, 4)
    assert t.game.view()["phase"] == "tiebreak"
    said = render_text(t.press(HOLD).screen)
    counted = [e for e in t.press(ROLL).log if isinstance(e, Count)]
    if counted:
        assert f"counts {counted[0].mode}: ROLL lets it" in said, said
    else:
        assert "chooses the count" in said, said


def test_MX_10_the_game_end_cuts_no_name_beside_its_points() -> None:
    """Five seats and two-digit points: a row read "CPU.. 15 pts", whose points?"""
    from table.service.referee import _points_rows
    from table.service.screens import overflow

    names = ("P1", "CPU1", "CPU2", "CPU3", "CPU4")
    points = {"P1": 3, "CPU1": 15, "CPU2": 12, "CPU3": -1, "CPU4": 10}
    rows = _points_rows("CPU1 wins!", names, points)
    assert [n for n, _ in rows] == list(names)
    assert overflow(GameEnd("CPU1 wins!", rows)) == ()
    assert _points_rows("P1 wins!", ("P1", "P2"), {"P1": 6, "P2": 1}) == (
        ("P1", "6 pts"),
        ("P2", "1 pt"),
    )


def test_MX_10_names_cut_whatever_the_words_keep_the_points_said() -> None:
    """Six names too long to be shown whole even beside bare numbers: the game end fell
    back to bare numbers, where every earlier mex screen showed lives ("Dee 10": ten
    lives?). Bare numbers are for names they keep whole; here the words stay."""
    from table.service.referee import _points_rows
    from table.service.screens import overflow

    names = ("Mohammed Ali", "Jean-Baptist", "Anne-Charlot", "Bob", "Gwendolyn M.", "Dee")
    points = dict(zip(names, (-1, 0, 1, 2, 3, 10), strict=True))
    bare = GameEnd("Dee wins!", tuple((n, str(points[n])) for n in names))
    assert overflow(bare)  # the long names are cut even so
    rows = _points_rows("Dee wins!", names, points)
    assert [n for n, _ in rows] == list(names)
    assert all(v.endswith(("pt", "pts", "p")) for _, v in rows), rows
    assert set(overflow(GameEnd("Dee wins!", rows))) <= set(overflow(bare))


def test_MX_7_a_refused_stop_draws_no_cpu_decision_again_on_resume() -> None:
    """A STOP logged refused counted as an event, and the CPU players' decisions and
    software dice are drawn by the game's count: after a power cut the table drew a
    pending CPU decision again. Here an easy CPU who threw last had let the round go
    on; resumed, it ended the round and P3 never threw. Drawn by accepted events, the
    resumed game is the live one."""
    players = (Player("P1"), Player("C", cpu="easy"), Player("P3"))
    base = (Throw((3, 2)), Stand(), Throw((6, 1)))
    checked = 0
    for seed in range(80):
        header = GameHeader("mex", players, {}, seed)
        ref, out = Referee.boot(Settings(rules="mex"), LoadedGame(header, base))
        if out.log:  # C ended the round at once
            continue
        live, out = ref.on_press(STOP)  # P3 has not thrown: no standing
        assert out.log == (Stand(),)
        resumed, again = Referee.boot(Settings(rules="mex"), LoadedGame(header, base + out.log))
        assert again.log == () and resumed.game is not None and live.game is not None
        assert resumed.game.state == live.game.state, seed
        checked += 1
    assert checked > 20


def test_a_cpus_software_dice_do_not_depend_on_refused_presses() -> None:
    """Each long STOP before a CPU's ROLL (mexico has no ending, logged refused) gave the
    CPU other dice."""
    dice = set()
    for stops in range(4):
        t = start(Settings("mexico", 2, cpus=("easy",)))
        t.throw(6, 5)
        t.press(STOP)  # Ann stands: CPU1's turn
        for _ in range(stops):
            assert t.press(STOP_LONG).log == (EndRound(),)  # Ann threw last: hers, refused
        out = t.press(ROLL)
        dice.add(out.log)
    assert len(dice) == 1


@pytest.mark.parametrize("rules", ["mex", "mexico", "mexen"])
def test_a_long_stop_before_anyone_threw_logs_no_end_round(rules: str) -> None:
    """An end_round is the event of the player who threw last: with a CPU first and
    nobody thrown, a long STOP was logged as a refused end_round of nobody's."""
    header = GameHeader(rules, (Player("CPU", cpu="hard"), Player("Ann")), {}, 3)
    ref, _ = Referee.boot(Settings(rules=rules), LoadedGame(header, ()))
    ref, out = ref.on_press(STOP_LONG)
    assert out.log == () and ref.game is not None and ref.game.refused == ()
    assert isinstance(out.screen, Message)


def test_settings_never_seat_only_cpus() -> None:
    """Saved settings or a config naming as many CPU players as seats keep one seat for
    a person: the table is played by the people at it."""
    assert normalize(Settings("mexico", 2, cpus=("easy", "hard"))).cpus == ("easy",)
    assert normalize(Settings("mexico", 3, cpus=("easy", "hard"))).cpus == ("easy", "hard")


def test_MY_3_bids_restored_after_a_restart_are_checked_against_the_round() -> None:
    """Bids kept over a power cut (entry.json) are taken only if the rules could take
    them: a bid of 9 in round 1 would make the whole round's bids refused at the end."""
    t = start(Settings("mythical", 3))
    assert t.ref.with_entry((1,)).bids == (1,)
    assert t.ref.with_entry((9,)).bids == ()
    assert t.ref.with_entry((0, 1)).bids == (0, 1)


def test_MC_2_a_die_kept_lying_is_no_throw() -> None:
    """MC-2: keep both dice or throw both. A 6 left lying where it lay with only the 3
    rolled (now a 4) was counted as a throw of 64."""
    t = start(Settings("mexico", 2))
    t.throw(6, 3, xs=(100.0, 300.0))
    last = t.ref.last_roll
    assert t.press(ROLL).want_dice
    out = t.read(FrameReading(FrameStatus.OK, "", (last[0], die(4, 450.0))))
    assert out.log == () and isinstance(out.screen, Refusal)
    assert render_text(out.screen).splitlines()[1:] == ["a die was not thrown", "P1: roll again"]
    out = t.read(dice(6, 4, xs=(160.0, 470.0)))  # both rolled
    assert out.log == (Throw((6, 4)),)


def test_a_die_left_where_a_refused_reading_saw_it_was_not_thrown() -> None:
    """ "die 2 is tilted: roll again": the 6 left where it fell and only the tilted die
    thrown again (or set right by hand) was counted as a throw of 65, for the table
    compared a reading with the last counted throw only. A reading not counted is now
    remembered where it saw dice, whatever they read."""
    t = start(Settings("mexico", 2))
    t.press(ROLL)
    tilted = FrameReading(
        FrameStatus.REROLL, "die 2 is tilted", (die(6, 100.0), die(None, 300.0, reason="tilted"))
    )
    assert t.read(tilted).log == ()
    out = t.read(FrameReading(FrameStatus.OK, "", (die(6, 100.0), die(5, 250.0))))
    assert out.log == () and isinstance(out.screen, Refusal)
    assert render_text(out.screen).splitlines()[1:] == ["a die was not thrown", "P1: roll again"]
    # the tilted die set flat where it lay, the 6 thrown: not thrown either
    out = t.read(FrameReading(FrameStatus.OK, "", (die(6, 420.0, 320.0), die(5, 250.0))))
    assert out.log == () and "a die was not thrown" in render_text(out.screen)
    out = t.read(dice(6, 5, xs=(160.0, 470.0)))  # both rolled
    assert out.log == (Throw((6, 5)),)


def test_dice_refused_then_read_unmoved_are_not_counted() -> None:
    """A refused reading, then the same dice read whole where they lay: a shadow, a
    blurred frame or a change of light had made the settler take the tray for moved, and
    the dice nobody threw again were counted. They are now "a die was not thrown"."""
    t = start(Settings("mexico", 2))
    t.press(ROLL)
    unclear = FrameReading(
        FrameStatus.REROLL,
        "die 1 is unclear",
        (die(None, 100.0, reason="unclear"), die(None, 300.0, reason="unclear")),
    )
    assert t.read(unclear).log == ()
    out = t.read(dice(6, 3, xs=(103.0, 298.0)))
    assert out.log == () and "a die was not thrown" in render_text(out.screen)
    assert t.read(dice(6, 3, xs=(180.0, 420.0), y=260.0)).log == (Throw((6, 3)),)
    # once a throw counts, the refused places are forgotten: a die may land there again
    t.press(ROLL)
    assert t.read(dice(5, 2, xs=(100.0, 300.0))).log == (Throw((5, 2)),)


def test_a_die_one_refused_reading_missed_is_still_to_be_thrown() -> None:
    """Two readings refused in a row, the second not seeing the tilted die of the first:
    the table kept the second's dice only, and the die never thrown was counted."""
    t = start(Settings("mexico", 2))
    t.press(ROLL)
    first = (die(None, 100.0, 100.0, reason="tilted"), die(4, 300.0, 300.0))
    assert t.read(FrameReading(FrameStatus.REROLL, "die 1 is tilted", first)).log == ()
    second = (die(2, 500.0, 150.0),)
    assert t.read(FrameReading(FrameStatus.REROLL, "saw 1 die, expected 2", second)).log == ()
    out = t.read(FrameReading(FrameStatus.OK, "", (die(5, 100.0, 100.0), die(3, 450.0, 300.0))))
    assert out.log == () and "a die was not thrown" in render_text(out.screen)


def test_MN_5_a_die_set_to_a_cpu_s_held_value_where_it_lay_counts() -> None:
    """A die held from a CPU's software throw is set by hand ("set a die to 1"): a die
    of the refused reading turned to that value where it lay, the other rolled, counts
    at once, as the refusal asked."""
    t = _p1_may_keep_a_die_of_cpu1s()
    v, _ = _hold_a_die_of_cpu1s(t)
    other = 2 if v != 2 else 3
    t.press(ROLL)
    refused = (die(other, 150.0, 150.0), die(other, 400.0, 300.0))
    out = t.read(FrameReading(FrameStatus.OK, "", refused))
    assert out.log == (Throw((other, other)),) and "no die shows" in render_text(out.screen)
    set_to = (die(v, 150.0, 150.0), die(other, 520.0, 100.0))
    out = t.read(FrameReading(FrameStatus.OK, "", set_to))
    assert out.log == (Throw(tuple(sorted((v, other), reverse=True))),)


def test_a_die_read_by_a_refused_reading_and_not_seen_by_the_next_was_moved() -> None:
    """Places of refused readings add up only for dice with no value: a die read once
    would be seen again where it lay. Kept too, the replay camera, which shows a value
    at one of three places, showed a later throw's 4 where a refused throw's 4 had lain,
    and it was "a die was not thrown"."""
    t = start(Settings("mexico", 2))
    t.press(ROLL)
    first = (die(4, 100.0, 100.0), die(None, 300.0, 300.0, reason="tilted"))
    assert t.read(FrameReading(FrameStatus.REROLL, "die 2 is tilted", first)).log == ()
    second = (die(5, 150.0, 420.0), die(3, 520.0, 60.0))
    assert t.read(FrameReading(FrameStatus.REROLL, "die 2 is unclear", second)).log == ()
    out = t.read(FrameReading(FrameStatus.OK, "", (die(4, 100.0, 100.0), die(1, 450.0, 240.0))))
    assert out.log == (Throw((4, 1)),)


def test_MN_5_a_die_left_lying_without_hold_or_for_a_second_throw_is_no_throw() -> None:
    """MN-5: a die may lie for one throw, after HOLD. Left lying without a HOLD, it was
    counted, and the rules then let it lie for another throw; left lying a second time
    after a HOLD, it was counted too."""
    t = mexen()
    t.throw(5, 2, xs=(100.0, 300.0))
    five = t.ref.last_roll[0]
    assert t.press(ROLL).want_dice  # no HOLD: both dice are to be thrown
    out = t.read(FrameReading(FrameStatus.OK, "", (five, die(4, 450.0))))
    assert out.log == () and "a die was not thrown" in render_text(out.screen)
    t.press(STOP)  # the reading cancelled; HOLD the 5, throw the 2
    held_first(t, 5)
    out = t.read(FrameReading(FrameStatus.OK, "", (five, die(4, 450.0))))
    assert out.log == () and "a die was not thrown" in render_text(out.screen)  # nor now
    out = t.read(FrameReading(FrameStatus.OK, "", (five, die(4, 470.0, 260.0))))
    assert out.log == (Throw((5, 4)),)  # the held 5 may lie, the other thrown again
    assert t.press(ROLL).want_dice  # the 5 has lain once: it must be thrown now
    out = t.read(FrameReading(FrameStatus.OK, "", (five, die(3, 250.0, 300.0))))
    assert out.log == () and "a die was not thrown" in render_text(out.screen)


@pytest.mark.parametrize(
    ("reason", "hint"),
    [
        ("too dark", "more light"),
        ("too bright", "less light"),
        ("blurred", "clean lens"),
        ("too busy: 65 places look like dice", "clear tray"),
    ],
)
def test_a_frame_no_throw_mends_says_what_does_and_the_dice_are_read_as_they_lie(
    reason: str, hint: str
) -> None:
    """A tray too dark (or too bright) to read any die, a still picture with nothing
    sharp in it (a fogged lens), or one too busy to find dice in (a patterned cloth):
    the screen said "roll again", which no throw mends. It now says what does, whole
    beside the longest names; the dice, once it is mended, are read where they lie and
    counted, as a throw again would be."""
    t = start(Settings("mexico", 2, names=("Maximilianus", "Bartholomew")))
    t.throw(5, 2, xs=(100.0, 300.0))
    t.press(ROLL)
    out = t.read(FrameReading(FrameStatus.REROLL, reason))
    text = render_text(out.screen)
    assert out.log == () and reason in text and hint in text, text
    assert "roll again" not in text
    assert t.read(dice(6, 3, xs=(160.0, 470.0), y=100.0)).log == (Throw((6, 3)),)


@pytest.mark.parametrize("nothing", ["too dark", "too bright", "blurred", "no dice seen"])
def test_a_reading_that_sees_no_dice_keeps_the_places_of_those_refused(nothing: str) -> None:
    """A refused reading saw the 6 where it lay ("saw 1 die, expected 2"); then a frame
    too dark to find any die (a lamp off a moment, a shadow) was taken as the tray
    without dice, and the 6 never thrown again was counted in the next reading. A
    reading with no dice now leaves the places as they were."""
    t = start(Settings("mexico", 2))
    t.throw(5, 2, xs=(100.0, 300.0))
    t.press(ROLL)
    six = die(6, 420.0, 320.0)
    assert t.read(FrameReading(FrameStatus.REROLL, "saw 1 die, expected 2", (six,))).log == ()
    assert t.read(FrameReading(FrameStatus.REROLL, nothing)).log == ()
    out = t.read(FrameReading(FrameStatus.OK, "", (six, die(3, 150.0, 420.0))))
    assert out.log == () and "a die was not thrown" in render_text(out.screen)
    assert t.read(dice(6, 3, xs=(160.0, 470.0), y=100.0)).log == (Throw((6, 3)),)
