"""``dicetable demo`` plays mex, mexico and mexen headless on the shipped real-photo frames."""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from PIL import Image

from table.cli import main
from table.game import replay
from table.gamelog import load
from table.hw.script import (
    PressStep,
    QuitStep,
    ScriptButtons,
    ScriptError,
    Step,
    ThrowStep,
    WaitStep,
    load_script,
    parse_script,
    parse_step,
)
from table.service import demo
from table.service.demo import DEMO_PLAYS, MARK, DemoError, DemoResult, play, standings
from table.service.ports import Button, ButtonPress, Press, Quit, TableEvent

REPO = Path(__file__).resolve().parents[1]


def test_demo_plays_every_game_and_saves_frames_gif_and_log(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    proc = _demo("--out", str(out), tmp=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    for rules in DEMO_PLAYS:
        folder = out / rules
        pngs = sorted((folder / "png").glob("frame_*.png"))
        assert len(pngs) >= 10
        with Image.open(pngs[0]) as first:
            assert first.size == (128, 64)
        with Image.open(folder / "display.gif") as gif:
            assert gif.n_frames == len(pngs)
        log = load(folder / f"{rules}.jsonl")
        game = replay(log.header, log.events)
        assert game.is_over and game.refused == ()
        winner = game.view()["winner"]
        line = next(x for x in proc.stdout.splitlines() if x.startswith(f"{rules}:"))
        assert "game over" in line and f"winner {winner}" in line
        assert line.endswith(STANDINGS[rules])
        throws = sum(step.startswith("throw") for step in DEMO_PLAYS[rules])
        assert int(line.split(" frames read")[0].split()[-1]) >= throws
        files = proc.stdout.splitlines()[proc.stdout.splitlines().index(line) + 1]
        assert files == (
            f"  log {folder / f'{rules}.jsonl'}, {len(pngs)} screens in {folder / 'png'}, "
            f"GIF {folder / 'display.gif'}"
        )


# What each demo game ends on, from its script (DEMO_PLAYS) and the rules.
STANDINGS = {
    # MX-10: +1 to each player but the loser, -1 to the loser, +2 per Mexx thrown, +5
    # to the winner. R1 P1 1 P2 -1; R2 P1 0 P2 0; R3 (P1 Mexx) P1 3 P2 -1; P1 wins: 8.
    "mex": "winner P1; P1: lives 1, points 8; P2: lives 0, points -1 (out)",
    # 3 lives: P2 loses 1, P1 loses 2 (the 21), P2 loses 1, P2 loses 1 and is out.
    "mexico": "winner P1; P1: lives 1; P2: lives 0 (out)",
    # P2 takes the pot of 1, P1 the pot of 4 (MN-4); fewest points wins (MN-11).
    "mexen": "winner P2; P1: points 4; P2: points 1",
}


def _demo(*args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DICETABLE_CONFIG=os.devnull, DICETABLE_DATA=str(tmp / "unused"))
    return subprocess.run(
        [sys.executable, "-m", "table", "demo", *args],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_demo_replaces_only_its_own_folder(tmp_path: Path) -> None:
    """A folder the demo did not write is never deleted: the demo refuses to start."""
    out = tmp_path / "out"
    (out / "mex").mkdir(parents=True)
    (out / "mex" / "notes.txt").write_text("mine")
    proc = _demo("--out", str(out), "--games", "mex", tmp=tmp_path)
    assert proc.returncode == 2
    assert "is not a demo's output" in proc.stderr and proc.stderr.count("\n") == 1
    assert (out / "mex" / "notes.txt").read_text() == "mine"
    # A demo's own folder is replaced by the next demo.
    (out / "mex" / "notes.txt").unlink()
    (out / "mex").rmdir()
    assert _demo("--out", str(out), "--games", "mex", tmp=tmp_path).returncode == 0
    first = sorted(p.name for p in (out / "mex").iterdir())
    assert ".dicetable-demo" in first and "mex.jsonl" in first
    assert _demo("--out", str(out), "--games", "mex", tmp=tmp_path).returncode == 0


def test_demo_with_a_missing_frames_folder_says_so_at_once(tmp_path: Path) -> None:
    proc = _demo("--out", str(tmp_path / "o"), "--frames", str(tmp_path / "nope"), tmp=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"dicetable demo: --frames {tmp_path / 'nope'}: no such folder"


def test_demo_of_no_game_is_a_bad_argument(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--games ""` (an unset shell variable) or `--games ,` played nothing and exited 0."""
    for games in ("", ",", " , "):
        assert main(["demo", "--out", str(tmp_path / "o"), "--games", games]) == 2
        err = capsys.readouterr().err
        assert err == "dicetable demo: --games names no game (demos: mex, mexico, mexen)\n"
    assert not (tmp_path / "o").exists()


def test_standings_say_a_draw_sips_and_no_winner() -> None:
    """The summary line says a draw, counts sips where a game counts them, and says
    "no winner" for a game that has none yet, so a stopped game is not read as won."""
    players = [
        {"name": "Ann", "sips": 3, "out": False},
        {"name": "Bo", "lives": 0, "points": 2, "out": True},
    ]
    assert standings({"players": players, "winner": None, "draw": True}) == (
        "draw; Ann: sips 3; Bo: lives 0, points 2 (out)"
    )
    assert standings({"players": players[:1], "winner": None}) == "no winner; Ann: sips 3"
    assert standings({"players": players[:1], "winner": "Ann", "draw": False}) == (
        "winner Ann; Ann: sips 3"
    )


def _result(rules: str, view: dict[str, object] | None, errors: tuple[str, ...] = ()) -> DemoResult:
    return DemoResult(
        rules=rules, log=None, pngs=0, gif=None, view=view, seconds=0.5, frames_read=4,
        errors=errors,
    )  # fmt: skip


def test_a_demo_game_not_finished_or_not_played_fails_the_demo_and_the_rest_are_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game that did not end, or that never started, is said and makes the demo exit 1;
    the games after it are still played, and the table's first three complaints of each
    game are printed beside it."""
    said = ("camera: no frame", "camera: no frame again", "reader: slow", "fourth")
    results = {
        "mex": _result("mex", {"over": False, "players": [], "winner": None}, said),
        "mexico": _result("mexico", None),
        "mexen": _result("mexen", {"over": True, "players": [], "winner": "P2"}),
    }
    played: list[str] = []

    def play(rules: str, out_dir: Path, *args: object, **kwargs: object) -> DemoResult:
        played.append(rules)
        return results[rules]

    monkeypatch.setattr(demo, "play", play)
    assert main(["demo", "--out", str(tmp_path / "o")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert played == ["mex", "mexico", "mexen"]
    assert out[:3] == [f"  mex: {line}" for line in said[:3]]
    assert out[3].startswith("mex: game NOT finished in 0.5 s, 4 frames read; no winner")
    assert out[5] == f"mexico: no game was played (see {tmp_path / 'o' / 'mexico'})"
    assert out[6].startswith("mexen: game over")
    results["mex"] = results["mexen"]
    assert main(["demo", "--out", str(tmp_path / "o")]) == 1  # mexico alone
    results["mex"], results["mexico"] = results["mexen"], results["mex"]
    assert main(["demo", "--out", str(tmp_path / "o")]) == 0
    results["mex"] = _result("mex", {"over": False, "players": [], "winner": None})
    assert main(["demo", "--out", str(tmp_path / "o")]) == 1  # mex alone


def test_a_demo_game_whose_gif_could_not_be_written_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A GIF the disk had no room for: the game's files line said "GIF None"."""
    import table.hw.display

    def disk_full(path: Path, data: bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(table.hw.display, "atomic_write", disk_full)
    out_dir = tmp_path / "o"
    assert main(["demo", "--out", str(out_dir), "--games", "mexico"]) == 0
    out = capsys.readouterr().out.splitlines()
    files = next(line for line in out if line.startswith("  log "))
    assert files.endswith(f"screens in {out_dir / 'mexico' / 'png'}, no GIF (not written)")
    assert not (out_dir / "mexico" / "display.gif").exists()


def test_a_demo_missing_the_frame_of_a_throw_names_it_and_fails(tmp_path: Path) -> None:
    """Given frames without a throw's photo, the demo prints what the camera said (the
    first three times), says the game is not finished, and exits 1."""
    frames = tmp_path / "frames"
    frames.mkdir()
    shutil.copyfile(REPO / "table" / "data" / "frames" / "dice_63.jpg", frames / "dice_63.jpg")
    proc = _demo(
        "--out", str(tmp_path / "o"), "--games", "mex", "--frames", str(frames), tmp=tmp_path
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert [x.split("no frame ")[1].split()[0] for x in lines[:3]] == [
        "dice_42.jpg", "dice_54.jpg", "dice_31.jpg",
    ]  # fmt: skip
    assert all(x.startswith("  mex: ") for x in lines[:3])
    assert lines[3].startswith("mex: game NOT finished") and "no winner" in lines[3]


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        (DemoError("o/mex exists"), "dicetable demo: o/mex exists\n"),
        (PermissionError(13, "Permission denied"), "dicetable demo: mex: cannot write its files"),
    ],
)
def test_a_demo_that_cannot_write_stops_with_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fault: Exception,
    said: str,
) -> None:
    """A demo refused its folder, or one that cannot write its files, stops at that game
    with one line and exit 2: the games after it would meet the same folder."""
    played: list[str] = []

    def play(rules: str, *args: object, **kwargs: object) -> DemoResult:
        played.append(rules)
        raise fault

    monkeypatch.setattr(demo, "play", play)
    assert main(["demo", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert played == ["mex"] and err.startswith(said) and err.count("\n") == 1


def test_a_demo_whose_reader_cannot_start_says_so_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """If the pip reader cannot load its network, the demo says so in one line, exits 2
    and leaves no output folder behind."""
    import table.service.loop as loop

    def broken(settle_frames: int) -> object:
        raise OSError("classifier.onnx: no such file")

    monkeypatch.setattr(loop, "vision_parts", broken)
    assert main(["demo", "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == (
        "dicetable demo: the pip reader cannot start (classifier.onnx: no such file)\n"
    )
    assert not (tmp_path / "o").exists()


def test_a_link_to_a_demo_folder_is_not_replaced(tmp_path: Path) -> None:
    """An output folder that is a link is refused even when it leads to a demo's folder:
    replacing it would delete the files at the far end of the link."""
    far = tmp_path / "far"
    far.mkdir()
    (far / MARK).write_text("")
    (far / "keep.txt").write_text("mine")
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "mex").symlink_to(far)
    with pytest.raises(DemoError, match="is not a demo's output"):
        play("mex", tmp_path / "o")
    assert sorted(p.name for p in far.iterdir()) == [MARK, "keep.txt"]


def test_a_demo_with_show_prints_each_screen_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--show`` prints every screen as a box of text, the last one the winner's."""
    assert main(["demo", "--out", str(tmp_path / "o"), "--games", "mexen", "--show"]) == 0
    out = capsys.readouterr().out
    boxes = sum(line.startswith("+-") for line in out.splitlines()) // 2
    assert boxes == len(list((tmp_path / "o" / "mexen" / "png").glob("frame_*.png")))
    assert "|P2 wins!             |" in out
    assert main(["demo", "--out", str(tmp_path / "o"), "--games", "mexen"]) == 0
    assert "+-----" not in capsys.readouterr().out


def test_the_games_asked_for_are_played_in_that_order_and_an_unknown_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--games "mexen, mex"`` (a space after the comma) plays those two in that order;
    a name with no demo is refused in one line, exit 2, before any game is played or any
    folder made."""
    played: list[str] = []

    def play(rules: str, *args: object, **kwargs: object) -> DemoResult:
        played.append(rules)
        return _result(rules, {"over": True, "players": [], "winner": "P1"})

    monkeypatch.setattr(demo, "play", play)
    out = tmp_path / "o"
    assert main(["demo", "--out", str(out), "--games", "mex,yahtzee"]) == 2
    assert capsys.readouterr().err == (
        "dicetable demo: no demo for 'yahtzee' (demos: mex, mexico, mexen)\n"
    )
    assert played == [] and not out.exists()
    assert main(["demo", "--out", str(out), "--games", "mexen, mex"]) == 0
    assert played == ["mexen", "mex"]


def test_an_output_folder_that_is_a_file_is_refused_before_any_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--out`` naming a file is said in one line, exit 2, and no game is played: each
    would fail on the same folder."""
    played: list[str] = []

    def play(rules: str, *args: object, **kwargs: object) -> DemoResult:
        played.append(rules)
        raise AssertionError("no game is to be played")

    monkeypatch.setattr(demo, "play", play)
    out = tmp_path / "notes.txt"
    out.write_text("mine")
    assert main(["demo", "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"dicetable demo: cannot write to {out} (Not a directory)\n"
    assert played == [] and out.read_text() == "mine"


def test_a_dangling_link_where_a_demo_folder_goes_is_refused(tmp_path: Path) -> None:
    """A link that leads nowhere in the demo folder's place is not a demo's output: the
    demo refuses it (and says why) rather than fail on it as a disk fault."""
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "mex").symlink_to(tmp_path / "nowhere")
    with pytest.raises(DemoError, match="is not a demo's output"):
        play("mex", tmp_path / "o")
    assert not (tmp_path / "nowhere").exists()
    assert (tmp_path / "o" / "mex").is_symlink()


def test_a_demo_on_a_pi_replays_its_photos_and_leaves_the_camera_and_oled_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a Pi the camera and the OLED are the service's: the demo still plays on its
    replayed photos and draws its screens to files. If it took the hardware, its throws
    would be read off the real table and its screens drawn over the service's."""
    import table.hw.build

    opened: list[object] = []

    def open_oled(cfg: object) -> object:
        opened.append(cfg)
        raise AssertionError("the demo opened the OLED")

    monkeypatch.setattr(table.hw.build, "_on_a_pi", lambda: True)
    monkeypatch.setattr(table.hw.build, "_has_picamera", lambda: True)
    monkeypatch.setattr(table.hw.build, "open_oled", open_oled)
    result = play("mexen", tmp_path / "o")
    assert opened == []
    assert result.over and result.pngs > 0 and result.errors == ()


# -- the script a demo plays: its steps read, and played in order


def _played(script: ScriptButtons, *, wait_s: float = 10.0) -> list[TableEvent]:
    """Everything ``script`` put, played to its end."""
    got: queue.Queue[TableEvent] = queue.Queue()
    script.start(got.put)
    assert script.done.wait(wait_s)
    script.close()
    events: list[TableEvent] = []
    while not got.empty():
        events.append(got.get_nowait())
    return events


@pytest.mark.parametrize(
    ("text", "press"),
    [
        ("stop", ButtonPress(Button.STOP)),
        ("Roll short", ButtonPress(Button.ROLL)),
        ("HOLD Long", ButtonPress(Button.HOLD, Press.LONG)),
        ("stop very_long", ButtonPress(Button.STOP, Press.VERY_LONG)),
        ("stop verylong", ButtonPress(Button.STOP, Press.VERY_LONG)),
        ("stop very-long", ButtonPress(Button.STOP, Press.VERY_LONG)),
        ("stop very long", ButtonPress(Button.STOP, Press.VERY_LONG)),
    ],
)
def test_a_press_step_is_read_in_any_case_and_spelling_of_its_length(
    text: str, press: ButtonPress
) -> None:
    """Each way a script may write a button and its press length is that press. If one
    were misread, a demo would hold where it should open the menu, or stop on a word."""
    assert parse_step(text) == PressStep(press)


@pytest.mark.parametrize(
    ("text", "step"),
    [
        ("throw 1", ThrowStep((1,))),
        ("throw 6 6", ThrowStep((6, 6))),
        ("wait 0", WaitStep(0.0)),
        ("wait 3600", WaitStep(3600.0)),
        ("QUIT", QuitStep()),
    ],
)
def test_the_edges_of_each_step_are_steps(text: str, step: Step) -> None:
    """A die of 1 or 6, a wait of none or of an hour, and quit in capitals are steps. If
    an edge were refused, a script that plays at a real table would not load."""
    assert parse_step(text) == step


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("throw 1 2 3", "a throw is one or two dice 1-6"),
        ("throw 0 4", "a throw is one or two dice 1-6"),
        ("throw", "a throw is one or two dice 1-6"),
        ("wait 3601", "wait needs seconds"),
        ("wait -1", "wait needs seconds"),
        ("wait 1 2", "wait needs seconds"),
        ("quit now", "is not a step"),
        ("throw \u0663 \u0664", "a throw is one or two dice 1-6"),  # int() reads any digits
        ("throw \uff16 \uff13", "a throw is one or two dice 1-6"),
        ("throw +6 3", "a throw is one or two dice 1-6"),
        ("wait \u0663", "wait needs seconds"),
        ("wait nan", "wait needs seconds"),
        ("hold twice", "after hold say long or very_long"),
    ],
)
def test_a_step_out_of_its_range_is_refused_by_name(text: str, said: str) -> None:
    """Three dice, a die of 0, a wait of more than an hour or two waits in one, and quit
    with words after it are refused with the step named. If one were taken, the replayed
    camera would be asked for a photo it cannot have, or the demo would stall."""
    with pytest.raises(ScriptError) as err:
        parse_step(text, "line 4")
    assert str(err.value).startswith(f"line 4: '{text}'") and said in str(err.value)


def test_a_text_script_names_the_line_of_a_bad_step_counting_comments_and_blanks() -> None:
    """A bad step in a text script is named by its line in the file, comments and blank
    lines counted. If not, a person would look for the mistake on the wrong line."""
    text = "# a game\n\nroll\nthrow 9\n"
    with pytest.raises(ScriptError, match=r"^line 4: 'throw 9': a throw is"):
        parse_script(text)


def test_an_empty_step_of_a_json_script_is_named_by_its_place() -> None:
    """A blank string in a JSON script is refused with its place in the list. If it were
    not named, a person would have to hunt through the list for the empty one."""
    with pytest.raises(ScriptError) as err:
        parse_script('["roll", " ", "stop"]')
    assert str(err.value) == "step 2: empty step"


def test_a_text_script_counts_blank_lines_at_its_start() -> None:
    """Blank lines before the first step count in the line a bad step is named by. If
    they did not, the line said would be above the mistake in the file."""
    with pytest.raises(ScriptError, match=r"^line 3: 'throw 9': a throw is"):
        parse_script("\n\nthrow 9\n")


def test_a_json_script_after_blank_lines_or_spaces_is_read_as_json() -> None:
    """A JSON list that starts after a blank line or an indent is still a JSON script.
    If it were read as lines of text, its first line ``[`` would be refused as no step."""
    steps = parse_script('\n  ["roll", "quit"]\n')
    assert steps == (PressStep(ButtonPress(Button.ROLL)), QuitStep())


def test_broken_json_is_named_by_the_line_it_breaks_on() -> None:
    """A JSON script that breaks off is said with the line where the reader stopped. If
    it gave another number (the column), a person would look on the wrong line."""
    with pytest.raises(ScriptError) as err:
        parse_script('[\n"roll",\n"stop"\n')
    assert str(err.value).startswith("not valid JSON (") and str(err.value).endswith(", line 3)")


def test_a_script_file_with_a_bad_step_is_named_with_the_step(tmp_path: Path) -> None:
    """A bad step in a script file is said with the file's path and the step's place. If
    the path were left out, a run given several files would not say which one is wrong."""
    path = tmp_path / "game.json"
    path.write_text('["roll", "jump"]')
    with pytest.raises(ScriptError) as err:
        load_script(path)
    assert str(err.value).startswith(f"{path}: step 2: 'jump' is not a step")


def test_a_script_stops_at_its_quit_step() -> None:
    """Steps after ``quit`` are not played, and the table is told to stop once. If they
    were played, presses would reach a table that is stopping."""
    events = _played(ScriptButtons(parse_script('["roll", "quit", "stop"]')))
    assert events == [ButtonPress(Button.ROLL), Quit("end of script")]


def test_a_script_that_is_not_to_quit_at_its_end_leaves_the_table_running() -> None:
    """With ``quit_at_end`` off, the script's end stops nothing. If it did, a test that
    plays a few presses and then goes on by hand would find the table gone."""
    events = _played(ScriptButtons(parse_script('["roll"]'), quit_at_end=False))
    assert events == [ButtonPress(Button.ROLL)]


def test_a_wait_step_waits_its_seconds_and_a_close_cuts_it_short() -> None:
    """``wait S`` waits S seconds on the script's stop: closing the script ends the wait
    and nothing after it is played. If the wait were skipped, a demo would rush on."""
    waited: list[float | None] = []

    class Stop(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            waited.append(timeout)
            self.set()  # closed while it waits
            return True

    script = ScriptButtons(parse_script('["roll", "wait 2.5", "stop"]'))
    script._stop = Stop()
    events = _played(script)
    assert waited == [2.5]
    assert events == [ButtonPress(Button.ROLL)]


def test_a_script_closed_by_the_table_plays_no_further_step() -> None:
    """When the table closes the script (it quit on a press), the steps after are not
    played and no quit is added. If they were, presses would reach a closed table."""
    got: queue.Queue[TableEvent] = queue.Queue()
    script = ScriptButtons(parse_script('["roll", "stop", "hold"]'))

    def put(event: TableEvent) -> None:
        got.put(event)
        script.close()  # from the script's own thread, as the table's quit does

    script.start(put)
    assert script.done.wait(10)
    script.close()
    assert got.get_nowait() == ButtonPress(Button.ROLL)
    assert got.empty()


def test_a_script_closed_from_its_own_thread_raises_nothing_there() -> None:
    """A close made from the script's own thread (a press that stops the table there and
    then) lets the script end quietly. If it waited for its own thread, the close would
    raise there, and such a stop would leave a traceback in the journal."""
    raised: list[BaseException] = []
    script = ScriptButtons(parse_script('["roll", "stop"]'))

    def put(event: TableEvent) -> None:
        try:
            script.close()  # from the script's own thread, as the table's quit does
        except Exception as exc:  # what would reach the thread's top
            raised.append(exc)

    script.start(put)
    assert script.done.wait(10)
    script.close()
    assert raised == []


def test_a_busy_table_is_waited_on_before_each_step_and_the_end_and_each_wait_is_said() -> None:
    """Before each step and before the script's end the table is given ``step_timeout_s``
    to settle, and each time it stays busy a line names where. If the end were not waited
    on, the table would be told to stop before it dealt with the last press."""
    asked: list[float] = []
    said: list[str] = []

    def busy(timeout: float) -> bool:
        asked.append(timeout)
        return False

    script = ScriptButtons(parse_script('["roll"]'), wait_idle=busy, step_timeout_s=7.5)
    script.note = said.append
    events = _played(script)
    assert asked == [7.5, 7.5]
    assert [s.split(":")[0] for s in said] == ["script step 1", "the script's end"]
    assert all("still busy after 7.5 s" in s for s in said)
    assert events == [ButtonPress(Button.ROLL), Quit("end of script")]


def test_a_script_closed_while_the_table_is_busy_says_nothing_of_it() -> None:
    """A script closed while it waits on a busy table ends without a word: the table is
    stopping, not stuck. If it were said, every stop would end on a false alarm."""
    said: list[str] = []
    calls: list[float] = []
    script = ScriptButtons(parse_script('["roll"]'), step_timeout_s=1)

    def busy(timeout: float) -> bool:
        calls.append(timeout)
        if len(calls) == 1:
            return True
        script.close()  # the table stops while the script waits for its end
        return False

    script.wait_idle = busy
    script.note = said.append
    assert _played(script) == [ButtonPress(Button.ROLL)]
    assert said == [] and len(calls) == 2


def test_a_script_closed_while_it_waits_for_the_table_plays_no_further_step() -> None:
    """A script closed while it waits for the table to settle before a step does not
    play that step: the table is stopping, and a press now would reach a closed table."""
    script = ScriptButtons(parse_script('["roll", "stop"]'), step_timeout_s=1)
    calls: list[float] = []

    def settles(timeout: float) -> bool:
        calls.append(timeout)
        if len(calls) == 2:
            script.close()  # the table stops while the script waits before "stop"
        return True

    script.wait_idle = settles
    assert _played(script) == [ButtonPress(Button.ROLL)]
    assert len(calls) == 2
