"""``dicetable replay``: exit codes and one-line messages, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from table.cli import main

GAME = {
    "rules": "mexico",
    "options": {"lives": 2},
    "players": [{"name": "Ann"}, {"name": "Bob"}],
    "events": [{"throw": [6, 3]}, {"stand": True}, {"throw": [3, 1]}, {"hold": 3}],
}


def _write(tmp_path: Path, obj: object | str, name: str = "g.json") -> Path:
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return p


def test_json_output_has_the_contract_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(_write(tmp_path, GAME)), "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    for key in ("rules", "round", "over", "winner", "draw", "players", "turn", "refused"):
        assert key in view
    assert view["refused"] == [
        {"index": 3, "event": {"hold": 3}, "reason": "mexico: keeping one die is not allowed"}
    ]


def test_readable_summary_lists_players_and_refusals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(_write(tmp_path, GAME))]) == 0
    out = capsys.readouterr().out
    assert out.startswith("mexico, round 1")
    assert "Ann" in out and "lives 2" in out
    assert 'event 3 {"hold": 3}: mexico: keeping one die is not allowed' in out


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{not json", "not valid JSON"),
        ({**GAME, "rules": "yahtzee"}, "unknown rules 'yahtzee'"),
        ({**GAME, "options": {"lifes": 3}}, "unknown option 'lifes'"),
        ({**GAME, "options": {"lives": 4}}, "option 'lives': 4 is not allowed (allowed: 2, 3, 6)"),
        (  # a string is quoted as JSON spells it: a newline in it must not break the line
            {**GAME, "options": {"lives": "3\n"}},
            "option 'lives': \"3\\n\" is not allowed (allowed: 2, 3, 6)",
        ),
        ({**GAME, "players": [{"name": "Ann"}]}, "needs 2 to 6 players"),
        ({**GAME, "players": ["Ann", "Ann"]}, "used twice"),
        ({**GAME, "events": [{"throw": "63"}]}, "event 0: 'throw' needs a list"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: object, words: str
) -> None:
    assert main(["replay", str(_write(tmp_path, content))]) == 2
    err = capsys.readouterr().err
    assert words in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_torn_last_line_warns_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = {k: v for k, v in GAME.items() if k != "events"}
    text = json.dumps(header) + '\n{"throw": [6, 3]}\n{"stand": tr'
    assert main(["replay", str(_write(tmp_path, text, "g.jsonl")), "--json"]) == 0
    captured = capsys.readouterr()
    assert "torn" in captured.err
    assert json.loads(captured.out)["turn"]["throw"] == 1


def test_nan_and_infinity_are_not_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Python's json reads NaN, Infinity and -Infinity; JSON has no such words. A game
    file with one was replayed (exit 0), and a last line of one was not taken as torn."""
    text = json.dumps(GAME)[:-1] + ', "note": NaN}'
    assert main(["replay", str(_write(tmp_path, text))]) == 2
    assert "not valid JSON (NaN is not JSON)" in capsys.readouterr().err
    header = json.dumps({k: v for k, v in GAME.items() if k != "events"})
    for last in ("Infinity", '{"throw": [6, -Infinity]}'):
        text = header + '\n{"throw": [6, 3]}\n' + last + "\n"
        assert main(["replay", str(_write(tmp_path, text, "g.jsonl")), "--json"]) == 0
        captured = capsys.readouterr()
        assert "line 3 is torn (not valid JSON)" in captured.err
        assert json.loads(captured.out)["turn"]["throw"] == 1


def test_a_line_too_deep_for_python_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = {k: v for k, v in GAME.items() if k != "events"}
    text = json.dumps(header) + "\n" + "[" * 100_000 + "]" * 100_000 + '\n{"stand": true}\n'
    assert main(["replay", str(_write(tmp_path, text, "g.jsonl"))]) == 2
    err = capsys.readouterr().err
    assert "line 2: not valid JSON (nested too deeply)" in err
    assert err.count("\n") == 1 and "internal error" not in err


def test_console_entry_point_runs_without_a_traceback(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "table", "replay", str(tmp_path / "nope.json")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"dicetable replay: {tmp_path / 'nope.json'}: no such file"


def test_an_option_before_the_command_says_where_options_go(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--json", "replay", "g.json"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "dicetable: --json: not an option of dicetable itself; a command's options go "
        "after it ('dicetable replay --help' lists them)\n"
    )


def test_nesting_at_the_edge_of_what_python_parses_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Just under the depth where parsing gives up, quoting the value in the message
    must not give up instead (it did: an internal error, exit 1)."""
    header = {k: v for k, v in GAME.items() if k != "events"}
    for depth in range(900, 1000, 2):
        line = '{"hold": ' + "[" * depth + "]" * depth + "}"
        path = _write(tmp_path, json.dumps(header) + "\n" + line + '\n{"stand": true}\n', "g.jsonl")
        assert main(["replay", str(path)]) == 2, depth
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "internal error" not in err, (depth, err)


def test_a_lone_surrogate_in_a_name_is_exit_2_not_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A name of "\\ud800" is valid JSON but no text: it cannot be printed."""
    game = {**GAME, "players": [{"name": "Ann"}, {"name": "\ud800"}]}
    assert main(["replay", str(_write(tmp_path, game))]) == 2
    err = capsys.readouterr().err
    assert "not valid Unicode" in err and err.count("\n") == 1 and "internal error" not in err


def test_the_summary_counts_the_throws_made_not_the_next_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``turn.throw`` is the throws made this turn (GAME_LOG.md): after Ann's first throw
    the summary said "Ann to throw, throw 1 of 3", as if she had not thrown yet, and
    "throw 0 of 3" before it."""
    header = {k: v for k, v in GAME.items() if k != "events"}
    for events, made in (([], 0), ([{"throw": [6, 3]}], 1), ([{"throw": [6, 3]}] * 2, 2)):
        path = _write(tmp_path, {**header, "events": events})
        assert main(["replay", str(path), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["turn"]["throw"] == made
        assert main(["replay", str(path)]) == 0
        out = capsys.readouterr().out
        assert f"next: Ann's turn, {made} of 3 throws made\n" in out, out


def test_a_null_option_is_named_as_the_file_says_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file says null; "None" is a word of the program's language, not of the file."""
    game = {**GAME, "options": {"lives": None}}
    assert main(["replay", str(_write(tmp_path, game))]) == 2
    err = capsys.readouterr().err
    assert "option 'lives': null is not allowed (allowed: 2, 3, 6)" in err


GAMES = Path(__file__).resolve().parent / "games"


@pytest.mark.parametrize(
    ("game", "lines"),
    [
        ("mexico_draw", ["mexico, round 2: game over, a draw", "  Ann  lives 0  out"]),
        (
            "mex_end_round",
            ["mex, round 4: game over, no single winner", "  Dan  lives 1  points 1"],
        ),
        (
            "mexen_pirate",
            [
                "mexen, round 2: game over, winner Ann",
                "  Ann  sips 2",
                "pot: 0",
                "pirate: Cid (x1)",
                "refused (2):",
                '  event 10 {"stand": true}: mexen: standing early is not allowed',
            ],
        ),
        (
            "mythical_all_flags",
            ["mythical, round 2", "next: Bob to roll, trick 2", "refused: none"],
        ),
        ("mex_tiebreak", ["next: Ann's turn, 1 of 3 throws made"]),
    ],
)
def test_the_readable_summary_says_how_the_game_stands(
    game: str, lines: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What `dicetable replay FILE` tells someone auditing a game: the winner or the draw,
    who is out, each counter, mexen's pot and pirate, whose turn it is."""
    obj = json.loads((GAMES / f"{game}.json").read_text())
    obj.pop("expect")
    assert main(["replay", str(_write(tmp_path, obj))]) == 0
    out = capsys.readouterr().out.splitlines()
    for line in lines:
        assert line in out, (line, out)


def test_the_readable_summary_of_a_round_still_to_bid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = {"rules": "mythical", "players": ["Ann", "Bob"], "events": []}
    assert main(["replay", str(_write(tmp_path, game))]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "mythical, round 1" and "next: everyone to bid" in out
    assert "  Ann  points 0" in out


@pytest.mark.parametrize(
    ("game", "line"),
    [
        (
            {"rules": "mex", "options": {"lives": True}},
            "option 'lives': true is not allowed (allowed: an integer from 1 to 99)",
        ),
        (
            {"rules": "mex", "options": {"max_throws": 0}},
            "option 'max_throws': 0 is not allowed (allowed: an integer from 1 to 3)",
        ),
        (
            {"rules": "mexen", "options": {"rounds": -1}},
            "option 'rounds': -1 is not allowed (allowed: an integer from 0 to 1000)",
        ),
        (
            {"rules": "mexico", "players": ["Ann", "Bob", "Bob"]},
            "players: the name 'Bob' is used twice",
        ),
    ],
)
def test_a_bad_header_names_the_value_and_what_is_allowed(
    game: dict[str, object], line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """true is no number of lives (JSON's true is no integer either); the range allowed
    is said; a name used twice is the one named, not the first player's."""
    obj = {"players": ["Ann", "Bob"], "events": [], **game}
    path = _write(tmp_path, obj)
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err == f"dicetable replay: {path}: {line}\n"


def test_replaying_games_current_names_the_log_it_points_at(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """games/current holds only the name of the game in progress; replaying it said
    "not valid JSON (line 1: Extra data)", as if a game file were broken."""
    games = tmp_path / "games"
    games.mkdir()
    log = _write(games, GAME, "20261202-154519.jsonl")
    current = _write(games, log.name + "\n", "current")
    assert main(["replay", str(current)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "not valid JSON" not in err
    assert f"dicetable replay {log}" in err


Z = "Z" * 100_000
_MYTH = {"rules": "mythical", "players": ["Ann", "Bob"], "events": [{"bids": {"Ann": 1, "Bob": 0}}]}


@pytest.mark.parametrize(
    "content",
    [
        {**GAME, "rules": Z},
        {**GAME, "options": {Z: 1}},
        {**GAME, "players": ["B" * 100_000, "B" * 100_000]},
        {**GAME, "players": [{"name": "A", "cpu": Z}, "B"]},
        {**GAME, "players": [{"name": "A", Z: 1}, "B"]},
        {**GAME, "events": [{Z: 1}]},
        {**GAME, "events": [{f"k{i}": 1 for i in range(20_000)}]},
        '{"rules": "mex", "players": ["A", "B"], "d'
        + "d" * 50_000
        + '": 1, "d'
        + "d" * 50_000
        + '": 2}',
    ],
)
def test_a_fault_naming_a_huge_string_is_one_short_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: object
) -> None:
    """A rules name, option, player name, cpu strength, field or event key of 100 000
    characters (or an event of 20 000 keys) was written out whole in the one line that
    says what is wrong: up to 190 kB."""
    assert main(["replay", str(_write(tmp_path, content))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 400, err[:400]


@pytest.mark.parametrize(
    "events",
    [
        [{"throw": [3, 1]}, {"give": Z}],
        [{"throw": [int("9" * 4300), 1]}],
        [{"hold": int("9" * 4300)}],
    ],
)
def test_a_refusal_naming_a_huge_value_is_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], events: list[object]
) -> None:
    """Refused events are the game's, not faults: exit 0, but their reasons and the
    summary's lines stay short."""
    game = {"rules": "mexen", "options": {"rounds": 1}, "players": ["Ann", "Bob"], "events": events}
    assert main(["replay", str(_write(tmp_path, game)), "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["refused"] and all(len(r["reason"]) < 200 for r in view["refused"])
    assert main(["replay", str(_write(tmp_path, game))]) == 0
    assert max(len(line) for line in capsys.readouterr().out.splitlines()) < 300


@pytest.mark.parametrize("roll", [{"die": Z, "face": 1}, {"die": "red", "face": Z}])
def test_a_mythical_roll_naming_a_huge_value_is_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], roll: dict[str, object]
) -> None:
    game = {**_MYTH, "events": [*_MYTH["events"], {"roll": roll}]}  # type: ignore[list-item]
    assert main(["replay", str(_write(tmp_path, game)), "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["refused"] and all(len(r["reason"]) < 200 for r in view["refused"])


def test_the_summary_prints_each_name_on_its_own_line_and_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A name with a line break split its row; an ESC in one reached the terminal; a name
    of 100 000 characters made every row that wide."""
    names = ["Ann\nX", "C\x1b[31mred", "L" * 100_000]
    assert main(["replay", str(_write(tmp_path, {**GAME, "players": names}))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 + 3 + 1 + 2  # head, three players, next turn, one refusal
    assert lines[1].startswith("  Ann\\nX ") and lines[2].startswith("  C\\u001b[31mred ")
    assert "\x1b" not in "".join(lines) and max(len(line) for line in lines) < 100


def test_the_summary_lets_no_c1_control_or_line_separator_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only text JSON escapes was escaped: a C1 control (U+009B, the one-byte CSI) in a
    name reached the terminal, and an event with a U+2028 in it was escaped whole again
    (its quotes as \\"), so the row was not the event in the file."""
    game = {
        "rules": "mexen",
        "players": ["A\u009b2J", "B\u2028C"],
        "events": [{"throw": [3, 1]}, {"give": "Z\u2028Q"}, {"give": "B\u2028C"}],
    }
    assert main(["replay", str(_write(tmp_path, game))]) == 0
    out = capsys.readouterr().out
    assert "\u009b" not in out and "\u2028" not in out
    assert "A\\u009b2J" in out and "B\\u2028C" in out
    assert '{"give": "Z\\u2028Q"}' in out  # the refused event as the file has it


def test_a_device_given_as_the_game_file_is_not_read(capsys: pytest.CaptureFixture[str]) -> None:
    """replay /dev/zero read until memory ran out (7 GB in 10 s)."""
    assert main(["replay", "/dev/zero"]) == 2
    assert "/dev/zero: cannot read (not a regular file (a device))" in capsys.readouterr().err


def test_the_summary_escapes_the_winner_the_pirate_and_the_rules_reasons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every name from the file is escaped where the summary prints it, not only in the
    standings: the winner's, the pirate's, and those a refusal's reason repeats."""
    game = json.loads((GAMES / "mexen_pirate.json").read_text())
    del game["expect"]
    game["players"] = [{"name": "A\x1bn"}, {"name": "Bob"}, {"name": "Ci\nd"}]
    assert main(["replay", str(_write(tmp_path, game))]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "mexen, round 2: game over, winner A\\u001bn"
    assert "pirate: Ci\\nd (x1)" in lines and len(lines) == 9
    assert "\x1b" not in out
    myth = {**_MYTH, "events": [{"bids": {"\u009b": 1}}]}
    assert main(["replay", str(_write(tmp_path, myth))]) == 0
    out = capsys.readouterr().out
    assert "\u009b" not in out
    assert '  event 0 {"bids": {"\\u009b": 1}}: mythical: "\\u009b" is not playing' in out


def test_the_summary_lines_names_up_and_cuts_only_past_40_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    players = ["Al", "Bartholomew", "A" * 40, "Zoë", "B" * 41]
    events = [
        {"throw": [3, 1]},
        {"give": "Zoë"},
        {"give": "Bartholomew-Smith-Jones-the-Third-of-Aberdeen"},
    ]
    game = {"rules": "mexico", "players": players, "events": events}
    assert main(["replay", str(_write(tmp_path, game))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:6] == [
        f"  {name:<40}  lives 3" for name in ["Al", "Bartholomew", "A" * 40, "Zoë"]
    ] + ["  " + "B" * 37 + "...  lives 3"]
    # refused events as the file has them: "Zoë", not "Zo\u00eb"; 57 characters whole;
    # the rules' reason whole too (51 characters), past the 40 of a name
    reason = "mexico: there is nothing to give in mexico ('give')"
    assert lines[-2] == f'  event 1 {{"give": "Zoë"}}: {reason}'
    assert lines[-1] == (
        f'  event 2 {{"give": "Bartholomew-Smith-Jones-the-Third-of-Aberdeen"}}: {reason}'
    )


def test_games_current_naming_itself_is_no_pointer_to_a_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = tmp_path / "games"
    games.mkdir()
    current = _write(games, "current\n", "current")
    assert main(["replay", str(current)]) == 2
    err = capsys.readouterr().err
    assert "not valid JSON" in err and "game in progress" not in err


def test_an_empty_path_or_one_with_a_line_break_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty FILE (an unset shell variable) is named as such, not as the folder "."
    it is as a path; a path with a line break in it is shown escaped on the one line."""
    assert main(["replay", ""]) == 2
    assert capsys.readouterr().err == "dicetable replay: an empty path is no game file\n"
    odd = tmp_path / "a\nb.json"
    assert main(["replay", str(odd)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a\\nb.json: no such file" in err
    odd.write_text(json.dumps(GAME) + "\n{not json")
    assert main(["replay", str(odd)]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a\\nb.json: " in err and "torn" in err
