"""Power cuts in whole games of every rule set: a game is played through the loop (its
log on disk), then for cut points in it (every prefix of the log, and a last line torn
at each byte) the table starts again on that data folder; the resumed game must be the
uninterrupted one after the same events, its screen must say where the game stands and
whose turn it is, and going on with the same throws and choices must give the same
final log, nothing written twice or lost. Cut points are sampled with a fixed seed."""

from __future__ import annotations

import io
import json
import random
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from table.game import Game, replay
from table.gamelog import load
from table.rules.base import (
    Bids,
    Count,
    EndGame,
    EndRound,
    Event,
    EventKind,
    Give,
    Hold,
    Roll,
    Stand,
    Throw,
)
from table.service import screens
from table.service.loop import TableLoop
from table.service.ports import ButtonPress, Frame
from table.service.referee import (
    Purpose,
    Referee,
    Settings,
    _faces,
    _is_cpu,
    _round_ender,
    _tiebreak_last,
)
from table.service.resume import DataDir
from tests.conftest import HOLD, ROLL, STOP, STOP_LONG, STOP_VERY_LONG
from vision.types import DieReading, FrameReading, FrameStatus

XS = (100.0, 300.0)
SIZE = 40.0
LANDED = 12.0  # how far from the last throw's dice the next land (HOLD_TOLERANCE: 20)


class PassReader:
    """The camera's frame is the reading itself."""

    def read(self, frame_bgr: Any, expect: int | None = None) -> FrameReading:
        assert isinstance(frame_bgr, FrameReading)
        return frame_bgr


class Screens:
    def __init__(self) -> None:
        self.texts: list[str] = []

    def show_text(self, text: str) -> None:
        self.texts.append(text)

    def show(self, image: Any) -> None:
        pass

    def close(self) -> None:
        pass


def make_loop(root: Path, settings: Settings, by_hand: bool) -> tuple[TableLoop, Screens]:
    display = Screens()
    data = DataDir(root)
    loop = TableLoop(
        data=data,
        settings=settings,
        buttons=None,
        display=display,
        camera=None,
        reader=PassReader(),
        settler=None,
        seed=5,
        cpu_dice_by_hand=by_hand,
        errors=io.StringIO(),
    )
    return loop, display


def ref(loop: TableLoop) -> Referee:
    assert loop.referee is not None
    return loop.referee


def game(loop: TableLoop) -> Game:
    g = ref(loop).game
    assert g is not None
    return g


def press(loop: TableLoop, p: ButtonPress) -> None:
    assert loop.handle(p)
    assert loop.faults == 0


def reading(r: Referee, dice: tuple[int, ...]) -> FrameReading:
    """The dice lying in the tray, the held one (if any) where it lay, the thrown ones a
    little off where the last throw's lay (the same dice unmoved are no throw)."""
    xs = list(XS[: len(dice)])
    held = r.held
    order = list(dice)
    if held is not None and held.spots and held.value in dice:
        i = order.index(held.value)
        xs = [held.spots[0].x if j == i else (XS[1] if held.spots[0].x == XS[0] else XS[0])
              for j in range(len(order))]  # fmt: skip
    y = 200.0 + LANDED if r.last_roll and r.last_roll[0].center[1] == 200.0 else 200.0
    found = tuple(
        DieReading(v, (x, y), ((x, y), (SIZE, SIZE), 0.0), 0.99, "")
        for v, x in zip(order, xs, strict=True)
    )
    return FrameReading(FrameStatus.OK, "", found)


def show_dice(loop: TableLoop, dice: tuple[int, ...]) -> None:
    assert loop.want_dice, loop.shown
    assert loop.handle(Frame(reading(ref(loop), dice), 0.0))  # type: ignore[arg-type]
    assert loop.faults == 0


def choose(loop: TableLoop, value: str) -> None:
    """Move the chooser that is open (or opens at the next press) to ``value``, ROLL."""
    for _ in range(40):
        r = ref(loop)
        if r.dismiss:
            press(loop, HOLD)
            continue
        c = r.chooser or r._auto_chooser().chooser
        assert c is not None, loop.shown
        assert value in c.values, (value, c)
        if c.values[c.index] == value:
            press(loop, ROLL)
            return
        press(loop, HOLD)
    raise AssertionError(f"cannot choose {value}")


def settle(loop: TableLoop) -> None:
    """Take away a notice (the next press would only do that)."""
    if ref(loop).dismiss:
        press(loop, HOLD)


def do(loop: TableLoop, event: Event) -> None:
    """The presses (and dice in the tray) that make the table log ``event`` next."""
    settle(loop)
    g = game(loop)
    r = ref(loop)
    human_end = isinstance(event, EndRound) and not _seat_cpu(g, _round_ender(g))
    if _is_cpu(g) and not isinstance(event, Count) and not human_end:
        if r.waiting:  # a person rolls the CPU's dice (MC-6)
            assert isinstance(event, Throw)
            show_dice(loop, event.dice)
            return
        press(loop, ROLL)
        if ref(loop).cpu_roll and isinstance(event, Throw):
            press(loop, ROLL)
            show_dice(loop, event.dice)
        return
    if isinstance(event, Throw):
        if not r.waiting:
            press(loop, ROLL)
        show_dice(loop, event.dice)
    elif isinstance(event, Stand):
        press(loop, STOP)
    elif isinstance(event, EndRound):
        press(loop, STOP_LONG)
    elif isinstance(event, EndGame):
        press(loop, STOP_VERY_LONG)
        choose(loop, "yes")
    elif isinstance(event, Hold):
        press(loop, HOLD)
        c = ref(loop).chooser
        if c is not None and c.purpose is Purpose.HOLD:
            choose(loop, str(event.value))
    elif isinstance(event, Count):
        press(loop, HOLD)
        choose(loop, event.mode)
    elif isinstance(event, Give):
        choose(loop, event.to)
    elif isinstance(event, Bids):
        for _name, bid in event.bids:
            choose(loop, str(bid))
    elif isinstance(event, Roll):
        choose(loop, event.die)
        choose(loop, str(event.face))
    else:
        raise AssertionError(event)


def pick(loop: TableLoop, rng: random.Random) -> Event:
    """A person's next event, chosen at random among what the rules allow."""
    g = game(loop)
    view = g.view()
    allowed = g.allowed
    if EventKind.BIDS in allowed:
        r = int(view.get("round", 1))
        return Bids(tuple((p.name, rng.randint(0, r)) for p in g.header.players))
    if EventKind.ROLL in allowed:
        left = [k for k, n in view["dice_left"].items() if n > 0]
        die = rng.choice(left)
        return Roll(die, rng.choice(_faces(g, die)))
    if _is_cpu(g):
        return Throw(())  # the CPU's own step: ROLL lets it
    choices: list[Event] = []
    if EventKind.GIVE in allowed and EventKind.THROW not in allowed:
        me = g.turn.player if g.turn else None
        return Give(rng.choice([p.name for p in g.header.players if p.name != me]))
    if EventKind.STAND in allowed:
        choices += [Stand()] * 2
    if EventKind.END_ROUND in allowed and not _seat_cpu(g, _round_ender(g)):
        choices.append(EndRound())
    if EventKind.COUNT in allowed and not _seat_cpu(g, _tiebreak_last(g)):
        choices.append(Count(rng.choice(["mex", "pips"])))  # MX-9: a CPU chooses its own
    held = view.get("held")
    if EventKind.HOLD in allowed and ref(loop).table:
        lying = [d.value for d in ref(loop).table if d.value is not None]
        choices.append(Hold(rng.choice(lying)))
    if EventKind.THROW in allowed:
        n = 1 if g.header.rules == "mexen" and view.get("phase") == "tiebreak" else 2
        dice = tuple(rng.randint(1, 6) for _ in range(n))
        if g.header.rules == "mex":  # few pairs: ties and tie-breaks (MX-8, MX-9)
            dice = rng.choice([(6, 5), (3, 2), (4, 4), (2, 1)])
        if held is not None:
            dice = (held, rng.randint(1, 6))
        choices += [Throw(dice)] * 3
    assert choices, view
    return rng.choice(choices)


def _seat_cpu(g: Game, name: str) -> bool:
    return any(p.name == name and p.cpu for p in g.header.players)


def events_on_disk(loop: TableLoop) -> list[Event]:
    path = loop.data.current() or loop.data.logs()[-1]
    return list(load(path).events)


@dataclass
class Played:
    root: Path
    log: Path
    events: list[Event]


def start_game(loop: TableLoop) -> None:
    loop.boot()
    for _ in range(40):
        press(loop, ROLL)
        if ref(loop).game is not None:
            return
    raise AssertionError("the menu never started a game")


def play(root: Path, settings: Settings, by_hand: bool, seed: int, cap: int = 120) -> Played:
    loop, _ = make_loop(root, settings, by_hand)
    start_game(loop)
    log = loop.data.current()
    assert log is not None
    play_on(loop, random.Random(seed), cap)
    loop.close()
    return Played(root, log, list(load(log).events))


def play_on(loop: TableLoop, rng: random.Random, cap: int = 120) -> None:
    """Random presses and throws until the game is over (ended by hand after ``cap``
    events); its end's first screen is shown then."""
    while not game(loop).is_over:
        if len(events_on_disk(loop)) >= cap:
            do(loop, EndGame())
            break
        play_step(loop, rng)


def play_step(loop: TableLoop, rng: random.Random) -> None:
    """One random event of a person's (or a CPU's, let by ROLL) logged."""
    before = len(events_on_disk(loop))
    event = pick(loop, rng)
    if _is_cpu(game(loop)) and isinstance(event, Throw) and not event.dice:
        settle(loop)
        press(loop, ROLL)
        if ref(loop).cpu_roll:
            g = game(loop)
            held = g.view().get("held")
            n = 1 if g.header.rules == "mexen" and g.view().get("phase") == "tiebreak" else 2
            dice = tuple(rng.randint(1, 6) for _ in range(n))
            if held is not None:
                dice = (held, dice[0])
            press(loop, ROLL)
            show_dice(loop, dice)
    else:
        do(loop, event)
    assert len(events_on_disk(loop)) > before, (event, loop.shown)


def resume_at(
    played: Played,
    settings: Settings,
    by_hand: bool,
    where: Path,
    cut: int,
    torn: bytes = b"",
) -> None:
    """The data folder as a cut after ``cut`` events leaves it (and ``torn`` bytes of the
    next line), the table started again on it and played on to the end."""
    data = where / "data"
    games = data / "games"
    games.mkdir(parents=True)
    lines = played.log.read_bytes().splitlines(keepends=True)
    games.joinpath(played.log.name).write_bytes(b"".join(lines[: cut + 1]) + torn)
    games.joinpath("current").write_text(played.log.name + "\n")
    full = played.events
    header = load(played.log).header
    loop, display = make_loop(data, settings, by_hand)
    loop.boot()
    assert loop.resumed is not None, display.texts
    on_disk = events_on_disk(loop)
    # (4) nothing lost, nothing twice: the log is the uninterrupted one's first events
    assert on_disk == full[: len(on_disk)], cut
    assert len(on_disk) >= cut
    assert all(isinstance(e, Count | EndRound) for e in on_disk[cut:])  # CPU decisions owed
    # (1) the resumed game is the uninterrupted one after the same events
    assert game(loop).state == replay(header, full[: len(on_disk)]).state
    # (2) the screen says where the game stands and whose turn it is
    text = display.texts[-1]
    g = game(loop)
    if g.is_over:
        assert "wins" in text or "draw" in text or "winner" in text, text
    else:
        assert loop.shown is not None and isinstance(loop.shown.screen, screens.Resumed), text
        turn = g.turn
        view = g.view()
        assert f"round {view.get('round', 1)}" in text, text
        if turn is not None and turn.player:
            assert turn.player in text, text
        held = view.get("held")
        if held is not None:  # (5) MN-5: the die left lying stays, and is wanted so
            assert f"the {held} stays" in text, text
            settle(loop)
            press(loop, ROLL)
            if ref(loop).cpu_roll:
                press(loop, ROLL)
            wanted = loop.dice_wanted()
            assert wanted is not None and wanted.held == held, wanted
    if torn:
        assert (games / (played.log.name + ".torn")).read_bytes() == torn + b"\n"
    # (3) going on with the same throws and choices gives the same game and log
    while not game(loop).is_over:
        n = len(events_on_disk(loop))
        assert n < len(full), "the game went on past its end"
        event = full[n]
        do(loop, event)
        got = events_on_disk(loop)
        assert got == full[: len(got)], (cut, n, event)
        assert len(got) > n
    assert events_on_disk(loop) == full
    # still the game in progress while its end is shown (a cut now shows it again) ...
    assert loop.data.current() is not None
    for _ in range(6):  # ... until a press takes it away (mythical: a notice or two first)
        if ref(loop).game is None:
            break
        press(loop, ROLL)
    assert ref(loop).game is None and loop.data.current() is None
    loop.close()


def cut_points(played: Played, rng: random.Random, k: int) -> list[tuple[int, bytes]]:
    """``k`` of the cut points (all for 0): after each event, and with the next line
    torn at each of its bytes; the cuts right after a hold or bids are always among them."""
    lines = played.log.read_bytes().splitlines(keepends=True)
    n = len(played.events)
    points: list[tuple[int, bytes]] = [(c, b"") for c in range(n)]
    for c in range(n):
        nxt = lines[c + 1]
        for b in range(1, len(nxt) - 1):
            points.append((c, nxt[:b]))
    if k and len(points) > k:
        points = rng.sample(points, k)
    first = [i + 1 for i, e in enumerate(played.events) if isinstance(e, Hold | Bids)][:1]
    return points + [(c, b"") for c in first if c < n]


# (name, settings, CPU dice rolled by hand (MC-6), seed of the people's throws and choices);
# the mex seeds give tie-breaks with a count chosen (MX-8, MX-9), mexen holds and 31s.
CASES: list[tuple[str, Settings, bool, int]] = [
    ("mex", Settings("mex", 3, options=(("lives", 2), ("max_throws", 2))), False, 4),
    ("mex-cpu", Settings("mex", 3, cpus=("easy", "hard"), options=(("lives", 2),)), False, 0),
    ("mex-cpu-hand", Settings("mex", 3, cpus=("normal",), options=(("lives", 2),)), True, 5),
    ("mexico-easy", Settings("mexico", 3, cpus=("easy",), options=(("lives", 2),)), False, 1),
    ("mexico-normal", Settings("mexico", 2, cpus=("normal",), options=(("lives", 2),)), False, 2),
    ("mexico-hard", Settings("mexico", 3, cpus=("hard", "easy"), options=(("lives", 2),)), True, 3),
    ("mexen", Settings("mexen", 3, options=(("rounds", 3),)), False, 513),
    ("mexen-cpu", Settings("mexen", 3, cpus=("hard",), options=(("rounds", 3),)), True, 4),
    (
        "mexen-extreme",
        Settings("mexen", 3, cpus=("normal",), options=(("variant", "extreme"), ("rounds", 3))),
        False,
        5,
    ),  # noqa: E501
    ("mythical", Settings("mythical", 3, options=(("rounds", 3),)), False, 6),
]
SAMPLES = 3  # cut points per game (0: all of them, for a run by hand)


@pytest.mark.parametrize(
    ("settings", "by_hand", "seed"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_cut_anywhere_in_a_game_resumes_it_exactly(
    tmp_path: Path, settings: Settings, by_hand: bool, seed: int
) -> None:
    played = play(tmp_path / "whole", settings, by_hand, seed=seed)
    assert played.events
    rng = random.Random(seed)
    for i, (cut, torn) in enumerate(cut_points(played, rng, SAMPLES)):
        where = tmp_path / f"cut{i}"
        try:
            resume_at(played, settings, by_hand, where, cut, torn)
        except AssertionError as exc:
            raise AssertionError(f"cut after {cut} events, torn {torn!r}: {exc}") from exc
        shutil.rmtree(where)


def _first_throw(root: Path) -> tuple[TableLoop, Screens, FrameReading]:
    """A mexico game for two started on ``root``, its first throw read and counted."""
    settings = Settings("mexico", 2, options=(("lives", 2),))
    loop, display = make_loop(root, settings, False)
    start_game(loop)
    settle(loop)
    if not ref(loop).waiting:
        press(loop, ROLL)
    lying = reading(ref(loop), (6, 3))
    assert loop.handle(Frame(lying, 0.0))  # type: ignore[arg-type]
    assert events_on_disk(loop) == [Throw((6, 3))]
    return loop, display, lying


def _restarted(root: Path) -> tuple[TableLoop, Screens, io.StringIO]:
    settings = Settings("mexico", 2, options=(("lives", 2),))
    loop, display = make_loop(root, settings, False)
    errors = io.StringIO()
    loop.errors = errors
    loop.boot()
    assert loop.resumed is not None
    return loop, display, errors


def _roll_again_over(loop: TableLoop, frame: FrameReading) -> None:
    """The player throws again (ROLL) and the camera sees ``frame``."""
    settle(loop)
    if not ref(loop).waiting:
        press(loop, ROLL)
    assert ref(loop).waiting
    assert loop.handle(Frame(frame, 0.0))  # type: ignore[arg-type]
    assert loop.faults == 0


def test_dice_left_lying_through_a_cut_are_no_throw(tmp_path: Path) -> None:
    """The log holds a throw's values, not where its dice lay. Started again after a cut,
    the table knew nothing of the dice in the tray, and ROLL pressed over them unrolled
    counted them as a new throw. The dice of the last throw read are kept in tray.json,
    so they are refused as before the cut; dice that moved are counted."""
    root = tmp_path / "data"
    first, _, lying = _first_throw(root)
    first.close()
    assert json.loads((root / "tray.json").read_text())["dice"] == [d.to_json() for d in lying.dice]

    loop, display, errors = _restarted(root)
    assert ref(loop).last_roll == lying.dice
    _roll_again_over(loop, lying)
    assert events_on_disk(loop) == [Throw((6, 3))]  # nothing counted
    assert "lie as last thrown" in display.texts[-1]
    moved = reading(ref(loop), (6, 3))  # the same faces, rolled to another place
    assert moved.dice != lying.dice
    _roll_again_over(loop, moved)
    assert events_on_disk(loop) == [Throw((6, 3)), Throw((6, 3))]
    assert errors.getvalue() == ""


def test_without_tray_json_the_first_throw_after_a_cut_is_not_checked(tmp_path: Path) -> None:
    """What tray.json is for: without it (lost, or a table that never read a throw) the
    same dice unmoved are counted, there being nothing to tell them by."""
    root = tmp_path / "data"
    first, _, lying = _first_throw(root)
    first.close()
    (root / "tray.json").unlink()
    loop, _, errors = _restarted(root)
    assert ref(loop).last_roll == ()
    _roll_again_over(loop, lying)
    assert events_on_disk(loop) == [Throw((6, 3)), Throw((6, 3))]
    assert errors.getvalue() == ""


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"\xff\xfe", "not JSON"),
        (b'{"dice": [{"value": 6, "center": [1, 2', "not JSON"),
        (b"[]", 'no "dice" list'),
        (b'{"dice": [{"value": 7, "center": [1, 2], "box": [[1, 2], [3, 3], 0]}]}', "7, not 1-6"),
        (b'{"dice": [{"value": 6, "center": [1], "box": [[1, 2], [3, 3], 0]}]}', "two numbers"),
        (b'{"dice": [{"value": 6, "center": [1, 2], "box": [[1, 2], [0, 3], 0]}]}', "0 x 3"),
        (b'{"dice": [{"value": 6, "center": [1, 2], "box": [[1, 2], [3, 3], NaN]}]}', "NaN"),
        (b'{"dice": [{"value": true, "center": [1, 2], "box": [[1, 2], [3, 3], 0]}]}', "true"),
        (
            b'{"dice": [{"value": 6, "center": [1, 2], "box": [[1, 2], [3, 3], 1%s]}]}'
            % (b"0" * 400),
            "not a number",
        ),
        (b"[" * 100_000 + b"]" * 100_000, "not JSON"),
    ],
)
def test_an_unusable_tray_json_is_said_and_the_game_goes_on(
    tmp_path: Path, content: bytes, said: str
) -> None:
    root = tmp_path / "data"
    first, _, lying = _first_throw(root)
    first.close()
    (root / "tray.json").write_bytes(content)
    loop, _, errors = _restarted(root)
    assert ref(loop).last_roll == ()
    assert "tray.json" in errors.getvalue() and said in errors.getvalue(), errors.getvalue()
    _roll_again_over(loop, lying)  # not checked, but the game goes on
    assert events_on_disk(loop) == [Throw((6, 3)), Throw((6, 3))]


def test_the_tray_is_saved_before_the_throw_is_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cut between the two must not leave a logged throw whose dice the next start
    does not know: ROLL over them would count them twice. So tray.json is written first;
    here the log cannot take the second throw (a full disk), and tray.json already holds
    its dice: started again, the table asks for them to be rolled (the throw was not
    counted, and a roll is only asked again)."""
    from table.gamelog import LogWriter

    root = tmp_path / "data"
    loop, _, lying = _first_throw(root)
    second = reading(ref(loop), (5, 2))

    def full(self: LogWriter, events: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(LogWriter, "append_all", full)
    _roll_again_over(loop, second)
    monkeypatch.undo()
    loop.close()
    assert events_on_disk(loop) == [Throw((6, 3))]
    assert json.loads((root / "tray.json").read_text())["dice"] == [
        d.to_json() for d in second.dice
    ]
    again, display, _ = _restarted(root)
    _roll_again_over(again, second)
    assert events_on_disk(again) == [Throw((6, 3))]
    assert "lie as last thrown" in display.texts[-1]


def test_a_tray_json_that_cannot_be_written_is_said_and_the_throw_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(self: DataDir, dice: Any, frame: Any = None, refused: Any = ()) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(DataDir, "save_tray", failing)
    settings = Settings("mexico", 2, options=(("lives", 2),))
    loop, _ = make_loop(tmp_path / "data", settings, False)
    errors = io.StringIO()
    loop.errors = errors
    start_game(loop)
    _roll_again_over(loop, reading(ref(loop), (4, 1)))
    assert events_on_disk(loop) == [Throw((4, 1))]
    assert "cannot save where the dice lie: [Errno 30] Read-only file system" in errors.getvalue()


def test_dice_a_refused_reading_saw_are_not_thrown_after_a_power_cut_either(
    tmp_path: Path,
) -> None:
    """ "die 2 is tilted: roll again", then the power goes before anyone rolls. The
    restarted table read the same dice, the tilted one now flat, and counted a throw
    nobody made: where the refused reading saw dice was lost with the process. It is
    kept in tray.json beside the last throw's dice."""
    root = tmp_path / "data"
    settings = Settings("mexico", 2, options=(("lives", 2),))
    loop, _ = make_loop(root, settings, False)
    start_game(loop)
    _roll_again_over(loop, reading(ref(loop), (6, 3)))
    press(loop, ROLL)
    tilted = (
        DieReading(6, (150.0, 300.0), ((150.0, 300.0), (SIZE, SIZE), 0.0), 0.99, ""),
        DieReading(None, (350.0, 300.0), ((350.0, 300.0), (SIZE, SIZE), 0.0), 0.3, "tilted"),
    )
    assert loop.handle(Frame(FrameReading(FrameStatus.REROLL, "die 2 is tilted", tilted), 0.0))  # type: ignore[arg-type]
    assert events_on_disk(loop) == [Throw((6, 3))]
    loop.close()  # the power goes
    assert len(json.loads((root / "tray.json").read_text())["refused"]) == 2
    again, display, _ = _restarted(root)
    flat = (tilted[0], DieReading(5, tilted[1].center, tilted[1].box, 0.99, ""))
    _roll_again_over(again, FrameReading(FrameStatus.OK, "", flat))
    assert events_on_disk(again) == [Throw((6, 3))]
    assert "a die was not thrown" in display.texts[-1]
    _roll_again_over(again, reading(ref(again), (6, 5)))  # rolled: counted
    assert events_on_disk(again) == [Throw((6, 3)), Throw((6, 5))]


def _mexen_held(root: Path) -> tuple[FrameReading, FrameReading]:
    """A mexen game for two on ``root``: Ann throws 6 3, read by the camera, and leaves
    the 6 lying (MN-5); then the power goes. The throw, and the 6 where it lay."""
    settings = Settings("mexen", 2, options=(("rounds", 3),))
    loop, _ = make_loop(root, settings, False)
    start_game(loop)
    first = reading(ref(loop), (6, 3))
    _roll_again_over(loop, first)
    do(loop, Hold(6))
    assert events_on_disk(loop) == [Throw((6, 3)), Hold(6)]
    held = ref(loop).held
    assert held is not None and held.spots
    loop.close()
    six = next(d for d in first.dice if d.value == 6)
    return first, FrameReading(FrameStatus.OK, "", (six,))


def _mexen_restarted(root: Path) -> tuple[TableLoop, Screens]:
    loop, display = make_loop(root, Settings("mexen", 2, options=(("rounds", 3),)), False)
    loop.boot()
    assert loop.resumed is not None
    settle(loop)
    return loop, display


def test_a_die_left_lying_through_a_cut_is_checked_by_its_place(tmp_path: Path) -> None:
    """MN-5 after a restart: the die left lying was checked by value only (the log does
    not say where it lay), so it could be picked up and put down elsewhere. With the
    throw's dice in tray.json the referee knows its place again."""
    root = tmp_path / "data"
    first, six = _mexen_held(root)
    loop, display = _mexen_restarted(root)
    held = ref(loop).held
    assert held is not None and held.value == 6
    assert [(s.x, s.y) for s in held.spots] == [six.dice[0].center]
    # the 6 put down somewhere else, the 3 rolled: refused, nothing logged
    away = tuple(
        DieReading(v, (x, 330.0), ((x, 330.0), (SIZE, SIZE), 0.0), 0.99)
        for v, x in ((6, 60), (2, 260))
    )
    _roll_again_over(loop, FrameReading(FrameStatus.OK, "", away))
    assert events_on_disk(loop) == [Throw((6, 3)), Hold(6)]
    assert "held 6 was moved" in display.texts[-1]
    # the 6 where it lay, the other die rolled: counted
    _roll_again_over(loop, reading(ref(loop), (6, 2)))
    assert events_on_disk(loop) == [Throw((6, 3)), Hold(6), Throw((6, 2))]


class SizedFrame:
    """A camera frame of ``width`` x ``height`` pixels whose reading is ``reading``."""

    def __init__(self, reading: FrameReading, width: int, height: int) -> None:
        self.reading, self.shape = reading, (height, width, 3)


class SizedReader:
    def read(self, frame_bgr: Any, expect: int | None = None) -> FrameReading:
        assert isinstance(frame_bgr, SizedFrame)
        return frame_bgr.reading


def _doubled(frame: FrameReading) -> FrameReading:
    """The same dice seen by a camera giving twice the width and height."""
    dice = tuple(
        DieReading(
            d.value,
            (d.center[0] * 2, d.center[1] * 2),
            ((d.box[0][0] * 2, d.box[0][1] * 2), (d.box[1][0] * 2, d.box[1][1] * 2), 0.0),
            d.confidence,
        )
        for d in frame.dice
    )
    return FrameReading(frame.status, frame.reason, dice)


def test_a_die_left_lying_through_a_restart_at_another_frame_size_is_found(
    tmp_path: Path,
) -> None:
    """MN-5: tray.json kept where the held die lay in pixels. The camera's size changed
    in the config before the restart: at 1280 x 960 the 6 that lay at (40, 90) of a
    640 x 480 frame lies at (80, 180), and every throw was refused with "the held 6 was
    moved". Where the dice lie is now scaled to the frame the camera gives."""
    root = tmp_path / "data"
    settings = Settings("mexen", 2, options=(("rounds", 3),))
    loop, _ = make_loop(root, settings, False)
    loop.reader = SizedReader()
    start_game(loop)
    settle(loop)
    press(loop, ROLL)
    loop.handle(Frame(SizedFrame(reading(ref(loop), (6, 3)), 640, 480), 0.0))  # type: ignore[arg-type]
    do(loop, Hold(6))
    assert events_on_disk(loop) == [Throw((6, 3)), Hold(6)]

    loop, display = _mexen_restarted(root)
    loop.reader = SizedReader()
    settle(loop)
    if not ref(loop).waiting:
        press(loop, ROLL)
    small = reading(ref(loop), (6, 2))  # the 6 where it lay, the other die rolled
    assert loop.handle(Frame(SizedFrame(_doubled(small), 1280, 960), 0.0))  # type: ignore[arg-type]
    assert loop.faults == 0
    assert "moved" not in display.texts[-1]
    assert events_on_disk(loop) == [Throw((6, 3)), Hold(6), Throw((6, 2))]


def test_a_tray_json_of_other_dice_leaves_the_held_die_checked_by_value(tmp_path: Path) -> None:
    """tray.json holding dice that are not the ones the game says lie (another throw's)
    gives no place to the die left lying; only ROLL over those dice unrolled is refused."""
    root = tmp_path / "data"
    first, _ = _mexen_held(root)
    other = tuple(
        DieReading(v, (x, 90.0), ((x, 90.0), (SIZE, SIZE), 0.0), 0.99)
        for v, x in ((5, 60), (4, 260))
    )
    DataDir(root).save_tray(other)
    loop, _ = _mexen_restarted(root)
    assert ref(loop).held is None and ref(loop).table == ()
    assert ref(loop).last_roll == other


@pytest.mark.parametrize("name", ["games/current", "tray.json", "settings.json"])
@pytest.mark.parametrize("kind", ["pipe", "endless", "folder", "big"])
def test_a_small_file_of_the_data_folder_that_is_no_small_file_does_not_stop_the_start(
    tmp_path: Path, name: str, kind: str
) -> None:
    """games/current, tray.json and settings.json were read whole, whatever they were: a
    pipe in their place blocked the start for good (not even SIGTERM ended it), a link
    to /dev/zero read until memory ran out. Each is now read only as a regular file of
    at most a megabyte; the table starts all the same, and the log is not lost."""
    import os

    root = tmp_path / "data"
    first, _, _ = _first_throw(root)
    first.close()
    log = first.data.logs()[-1]
    path = root / name
    path.unlink()
    if kind == "pipe":
        os.mkfifo(path)
    elif kind == "endless":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_bytes(b" " * (2 << 20))
    settings = Settings("mexico", 2, options=(("lives", 2),))
    loop, _ = make_loop(root, settings, False)
    errors = io.StringIO()
    loop.errors = errors
    loop.boot()  # returns: nothing blocks, nothing is read without end
    assert loop.referee is not None
    if name == "games/current":  # the game in progress is kept for the next start
        assert loop.resumed is None and loop.kept is not None
        assert "cannot read" in errors.getvalue()
    else:
        assert loop.resumed is not None and loop.resumed.path == log
    if name == "tray.json":
        assert ref(loop).last_roll == () and "tray.json: cannot read" in errors.getvalue()
    assert load(log).events == (Throw((6, 3)),)


def test_a_file_that_cannot_be_replaced_leaves_no_temporary_file(tmp_path: Path) -> None:
    """tray.json made a folder: every throw said it could not be saved (fine) and left
    .tray.json.tmp behind (not fine: clutter nobody asked for, in the data folder)."""
    from table.gamelog import atomic_write

    target = tmp_path / "tray.json"
    target.mkdir()
    with pytest.raises(OSError):
        atomic_write(target, b"{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tray.json"]


def test_MY_3_bids_entered_before_a_cut_are_kept(tmp_path: Path) -> None:
    """The round's bids are logged once all are in (one bids event): a power cut after
    two of three made everyone enter them again, and they could be changed after the
    others' had been seen. entry.json keeps them, with the log's length then."""
    from table.rules.base import Bids

    root = tmp_path / "data"
    settings = Settings("mythical", 3, options=(("rounds", 3),))
    loop, _ = make_loop(root, settings, False)
    start_game(loop)
    settle(loop)
    choose(loop, "1")  # P1's bid
    choose(loop, "0")  # P2's bid
    assert events_on_disk(loop) == []
    loop.close()  # the power goes

    loop, display = make_loop(root, settings, False)
    loop.boot()
    settle(loop)
    assert "P3's bid" in display.texts[-1]
    choose(loop, "1")
    assert events_on_disk(loop) == [Bids((("P1", 1), ("P2", 0), ("P3", 1)))]

    # bids remembered in another game at this point of it: not used
    DataDir(root).save_entry("another.jsonl", 1, (1, 1))
    loop.close()
    loop, display = make_loop(root, settings, False)
    loop.boot()
    settle(loop)
    assert ref(loop).bids == ()


def test_MY_3_bids_entered_after_a_round_s_end_skip_its_screens_at_a_restart(
    tmp_path: Path,
) -> None:
    """A restart right after a round's last trick shows that trick and the round again;
    but bids of the next round entered before the cut say they were read already."""
    root = tmp_path / "data"
    settings = Settings("mythical", 3, options=(("rounds", 3),))
    loop, display = make_loop(root, settings, False)
    start_game(loop)
    rng = random.Random(5)
    while int(game(loop).view().get("round", 1)) == 1:
        play_step(loop, rng)
    _notices(loop, display)  # round 1's last trick and scores, read
    choose(loop, "1")  # P1's bid for round 2
    loop.close()  # the power goes
    loop, display = make_loop(root, settings, False)
    loop.boot()
    assert _notices(loop, display)[1:] == [display.texts[-1]]  # the bids, at once
    assert "P2's bid" in display.texts[-1]
    loop.close()


def test_MN_10_a_long_stop_in_a_tie_break_is_the_last_tie_break_throwers(
    tmp_path: Path,
) -> None:
    """In a tie-break the player who threw last is the last to throw in it: the main
    round's last player (here a CPU) was taken instead, and P2's long STOP after P1's
    tie-break die, refused, was not logged as P1's end_round."""
    settings = Settings("mexen", 3, cpus=("normal",))
    loop, display = make_loop(tmp_path / "data", settings, True)
    start_game(loop)
    settle(loop)
    do(loop, Throw((3, 2)))
    do(loop, Throw((3, 2)))
    do(loop, Hold(2))  # CPU1 leaves P2's 2 lying for a chance at Mex (MN-5)
    do(loop, Throw((3, 2)))  # all on 32: a tie-break of one die each (MN-10)
    do(loop, Throw((4,)))  # P1's die
    assert game(loop).turn is not None and game(loop).turn.player == "P2"
    before = len(events_on_disk(loop))
    press(loop, STOP_LONG)
    assert "no ending a round" in display.texts[-1]
    assert events_on_disk(loop)[before:] == [EndRound()]


@pytest.mark.parametrize("rules", ["mex", "mythical"])
def test_a_cut_while_the_game_s_end_is_shown_shows_it_again(tmp_path: Path, rules: str) -> None:
    """games/current went the moment the last event was logged: a power cut while the
    last trick's and round's screens, or the winner, were shown brought the table up at
    the menu, and nobody saw who won. It now goes once a press has left the end (or the
    table is stopped on purpose): after a cut the next start shows the end again."""
    settings = dict((name, s) for name, s, _, _ in CASES)[rules]
    root = tmp_path / "data"
    loop, _ = make_loop(root, settings, False)
    start_game(loop)
    rng = random.Random(3)
    while not game(loop).is_over:
        do(loop, pick(loop, rng))
    log = loop.data.current()
    assert log is not None  # the cut: the loop is never closed
    content = log.read_bytes()
    again, display = make_loop(root, settings, False)
    again.boot()
    assert again.resumed is not None and again.referee is not None
    for _ in range(3):  # the last round's (and trick's) notices first
        if isinstance(ref(again).screen, screens.GameEnd):
            break
        press(again, ROLL)
    assert "wins" in display.texts[-1] or "no winner" in display.texts[-1]
    press(again, ROLL)  # the end seen: the menu, and no game in progress
    assert ref(again).game is None and again.data.current() is None
    assert log.read_bytes() == content  # nothing added to the game's log
    again.close()


def _to_the_end(loop: TableLoop, display: Screens) -> list[str]:
    """The screens from the one shown now to the game's end, one press each."""
    shown = [display.texts[-1]]
    for _ in range(6):
        r = ref(loop)
        if isinstance(r.screen, screens.GameEnd) and not r.queued and r.behind is None:
            return shown
        press(loop, ROLL)
        shown.append(display.texts[-1])
    raise AssertionError(f"no game end after {shown}")


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("seed", [3, 8])
def test_a_restart_at_a_game_s_end_shows_the_screens_the_cut_took_away(
    tmp_path: Path, case: tuple[str, Settings, bool, int], seed: int
) -> None:
    """After a cut while a game's last screens were shown, the next start showed its end
    alone: mythical's last trick and round, and a crowded round's throw and loss (said
    in notices when the end has no room for them), were on no screen, and the end's
    last line named no throw. A restart now shows what the end showed as it came."""
    _name, settings, by_hand, _seed = case
    root, copy = tmp_path / "data", tmp_path / "cut"
    loop, display = make_loop(root, settings, by_hand)
    start_game(loop)
    play_on(loop, random.Random(seed))
    shutil.copytree(root, copy)  # the cut, as the end's first screen is shown
    live = _to_the_end(loop, display)
    again, display = make_loop(copy, settings, by_hand)
    again.boot()
    assert _to_the_end(again, display) == live
    press(again, ROLL)
    assert ref(again).game is None and again.data.current() is None
    again.close()


def _notices(loop: TableLoop, display: Screens) -> list[str]:
    """The screen shown now and those each press brings while notices are shown."""
    shown = [display.texts[-1]]
    for _ in range(8):
        if not ref(loop).dismiss:
            return shown
        press(loop, HOLD)
        shown.append(display.texts[-1])
    raise AssertionError(f"notices without end: {shown}")


def _news(g: Game) -> object:
    """What changes when a round (or a mythical trick) ends."""
    view = g.view()
    return (view.get("round"), view.get("last_trick"), view.get("last_round"))


def _round_ends(loop: TableLoop, rng: random.Random, cap: int) -> Iterator[list[Event]]:
    """Random steps until the game is over or ``cap`` events are logged; at each round's
    (or mythical trick's) end before the game's, the step's logged events, with the
    round's end on the display and the step last on disk."""
    while not game(loop).is_over and len(events_on_disk(loop)) < cap:
        was, logged = _news(game(loop)), len(events_on_disk(loop))
        play_step(loop, rng)
        if not game(loop).is_over and _news(game(loop)) != was:
            yield events_on_disk(loop)[logged:]


def _screens_after_a_restart(cut: Path, settings: Settings, by_hand: bool) -> list[str]:
    """The screens a table started on the data folder ``cut`` shows, notices and all."""
    again, shown = make_loop(cut, settings, by_hand)
    again.boot()
    restarted = _notices(again, shown)
    again.close()
    return restarted


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("seed", [3, 8])
def test_a_restart_after_a_round_s_end_shows_it_again(
    tmp_path: Path, case: tuple[str, Settings, bool, int], seed: int
) -> None:
    """A cut while a round's end was shown (who lost, the throw that ended it, the
    standings; mythical's trick and round scores) left the restart with "resumed:
    round 4" alone: nobody at the table saw how the round went. After the resumed
    screen, the restart now shows what the round's end showed, as it came."""
    _name, settings, by_hand, _seed = case
    root = tmp_path / "data"
    loop, display = make_loop(root, settings, by_hand)
    start_game(loop)
    seen = 0
    for seen, _step in enumerate(_round_ends(loop, random.Random(seed), 120), start=1):
        copy = tmp_path / f"cut{seen}"
        shutil.copytree(root, copy)  # the cut, as the round's end is shown
        live = _notices(loop, display)
        restarted = _screens_after_a_restart(copy, settings, by_hand)
        assert restarted[0].startswith("[resumed"), restarted
        assert restarted[1:] == live
        if seen == 3:
            break
    assert seen > 0
    loop.close()


@pytest.mark.parametrize(("by_hand", "seed"), [(False, 9), (True, 4)])
def test_a_restart_after_a_round_a_cpu_ended_at_once_names_its_throw(
    tmp_path: Path, by_hand: bool, seed: int
) -> None:
    """A CPU's last throw of its turn and its ending the round at once (MX-7 b) are one
    step of the table, logged as two events. Restarted there, the round's end came back
    built from the end alone: without the CPU's throw (software dice, seen nowhere
    else) and without the notice that named it. A cut in that step's one write, which
    leaves the CPU's decision to be taken again at the start, showed no round end at
    all."""
    cpus = ("normal", "hard") if not by_hand else ("easy", "normal")
    throws = 2 if not by_hand else 1
    settings = Settings("mex", 4, cpus=cpus, options=(("lives", 2), ("max_throws", throws)))
    root = tmp_path / "data"
    loop, display = make_loop(root, settings, by_hand)
    start_game(loop)
    met = 0
    for step in _round_ends(loop, random.Random(seed), 150):
        if len(step) < 2:
            continue
        met += 1
        copies = [tmp_path / f"cut{met}", tmp_path / f"cut{met}-owed", tmp_path / f"cut{met}-torn"]
        for cut in copies:
            shutil.copytree(root, cut)
        # the cut in the step's one write: its CPU decision unwritten, or torn in two
        for torn, cut in zip((0, 7), copies[1:], strict=True):
            log = cut / "games" / (loop.data.current() or Path()).name
            lines = log.read_bytes().splitlines(keepends=True)
            second = len(lines) - len(step) + 1  # the header, then the events
            log.write_bytes(b"".join(lines[:second]) + lines[second][:torn])
        live = _notices(loop, display)
        for cut in copies:
            assert _screens_after_a_restart(cut, settings, by_hand)[1:] == live, (cut.name, step)
    assert met > 0
    loop.close()


def test_a_fault_that_stops_the_table_at_a_game_s_end_leaves_it_to_be_shown_again(
    tmp_path: Path,
) -> None:
    """Stopped on purpose (q, a signal, the script's end), the table takes the end as
    seen; stopped by a fault that escaped the loop, it does not: the next start shows
    who won."""
    settings = dict((name, s) for name, s, _, _ in CASES)["mex"]
    for reason, kept in (("", True), ("q pressed", False)):
        root = tmp_path / (reason or "fault")
        loop, _ = make_loop(root, settings, False)
        start_game(loop)
        rng = random.Random(3)
        while not game(loop).is_over:
            do(loop, pick(loop, rng))
        loop.quit_reason = reason
        loop.close()
        assert (loop.data.current() is not None) == kept, reason
