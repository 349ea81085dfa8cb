"""Whole games as data: every tests/games/*.json replayed through the CLI's path.

Each file is a game file plus an ``expect`` object: a subset of the expected
``dicetable replay --json`` output; every key given must match exactly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from table.cli import main

GAMES = sorted((Path(__file__).parent / "games").glob("*.json"))


def test_there_are_games_for_every_rule_set() -> None:
    for rules in ("mex", "mexico", "mexen", "mythical"):
        assert len([g for g in GAMES if g.name.startswith(rules + "_")]) >= 3, rules


@pytest.mark.parametrize("path", GAMES, ids=[g.stem for g in GAMES])
def test_game_replays_to_expected_state(
    path: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    game = json.loads(path.read_text())
    expect: dict[str, Any] = game.pop("expect")
    plain = tmp_path / path.name
    plain.write_text(json.dumps(game))
    assert main(["replay", str(plain), "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    for key, want in expect.items():
        assert key in view, f"replay --json has no {key!r}"
        assert view[key] == want, f"{key}: expected {want!r}, got {view[key]!r}"


@pytest.mark.parametrize("path", GAMES, ids=[g.stem for g in GAMES])
def test_game_replays_the_same_from_json_lines(
    path: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The table's own log form (header line + one event per line) gives the same state."""
    game = json.loads(path.read_text())
    game.pop("expect")
    events = game.pop("events")
    plain = tmp_path / "whole.json"
    plain.write_text(json.dumps({**game, "events": events}))
    lines = tmp_path / "log.jsonl"
    lines.write_text("\n".join(json.dumps(x) for x in [game, *events]) + "\n")
    assert main(["replay", str(plain), "--json"]) == 0
    whole = capsys.readouterr().out
    assert main(["replay", str(lines), "--json"]) == 0
    assert capsys.readouterr().out == whole


EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "table" / "examples").glob("*.json"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[e.stem for e in EXAMPLES])
def test_shipped_examples_replay_cleanly(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The examples people are pointed at replay with exit 0 and name their rules."""
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(json.loads(path.read_text())["rules"] + ", round ")


def test_examples_ship_one_game_per_rule_set() -> None:
    assert {json.loads(e.read_text())["rules"] for e in EXAMPLES} == {
        "mex",
        "mexico",
        "mexen",
        "mythical",
    }


@pytest.mark.parametrize("rules_name", ["mex", "mexico", "mexen", "mythical"])
def test_every_rule_set_refuses_impossible_events_itself(rules_name: str) -> None:
    """Rules.apply never raises and refuses, on its own (a simulator calls it without the
    Game wrapper), a die value outside 1-6 or not a whole number and a flag of false
    (mythical, whose red dice show 7, refuses the Mex games' events as such)."""
    from table.rules import get_rules
    from table.rules.base import (
        EndGame,
        EndRound,
        Hold,
        Player,
        Refused,
        Stand,
        Throw,
        parse_options,
    )

    rules = get_rules(rules_name)
    state = rules.start(
        (Player("Ann"), Player("Bob"), Player("Cid")), parse_options(rules.options, {}, rules_name)
    )
    for event in (
        Throw((7, 1)),
        Throw((0, 3)),
        Throw((9,)),
        Throw((2.5, 3)),  # type: ignore[arg-type]  # what a caller may still pass
        Throw(("3", 4)),  # type: ignore[arg-type]
        Throw((True, 2)),
        Hold(7),
        Hold(2.5),  # type: ignore[arg-type]
        Stand(False),
        EndRound(False),
        EndGame(False),
    ):
        result = rules.apply(state, event)
        assert isinstance(result, Refused), (event, result)
        assert (
            "not possible" in result.reason
            or "false means nothing" in result.reason
            or (rules_name == "mythical" and "not part of Mythical Dice" in result.reason)
        ), (event, result)


def _states_to_try(rules_name: str) -> list[Any]:
    """The start of a game of ``rules_name`` and a few states further on: a throw made,
    a mexen tie-break (MN-10), mythical's first trick (MY-3)."""
    from table.rules import get_rules
    from table.rules.base import Bids, Player, Refused, Throw, parse_options

    rules = get_rules(rules_name)
    names = ("Ann", "Bob")
    state = rules.start(
        tuple(Player(n) for n in names), parse_options(rules.options, {}, rules_name)
    )
    states = [state]
    if rules_name == "mythical":
        steps: list[Any] = [Bids((("Ann", 1), ("Bob", 0)))]
    elif rules_name == "mexen":
        steps = [Throw((4, 3))] * 6  # both keep 43 after three throws: a tie-break
    else:
        steps = [Throw((4, 3))]
    for event in steps:
        state = rules.apply(state, event)
        assert not isinstance(state, Refused), (event, state)
        states.append(state)
    return states


@pytest.mark.parametrize("rules_name", ["mex", "mexico", "mexen", "mythical"])
def test_every_rule_set_refuses_events_the_log_cannot_hold(rules_name: str) -> None:
    """Rules.apply never raises, whatever the event: code calling the rules may pass
    fields of other types than an event's (a list of dice, a flag of 1, a face of 3.0).
    Each is refused: raised, it would stop the table; accepted, it would be logged as a
    line that ``parse_event`` refuses, and the game could not be resumed from its log."""
    from table.rules import get_rules
    from table.rules.base import Bids, EndGame, EndRound, EventKind, Refused, Roll, Stand, Throw

    rules = get_rules(rules_name)
    ill_typed: list[Any] = [
        Throw([4, 3]),
        Throw([3]),
        Throw(None),
        Throw(7),
        Stand(1),
        Stand("yes"),
        EndRound(1.0),
        EndGame([True]),
        Bids([("Ann", 1), ("Bob", 0)]),
        Bids((("Ann", "1"), ("Bob", 0))),
        Bids((("Ann", True), ("Bob", 0))),
        Bids((("Ann", 1, 2), ("Bob", 0))),
        Bids(None),
        Roll(["red"], 3),
        Roll("red", 3.0),
        Roll("red", [3]),
        Roll("red", None),
        # Not events at all: what a caller's slip passes (``base.Event`` is the closed set).
        None,
        "stand",
        {"stand": True},
        (4, 3),
        EventKind.STAND,
    ]
    for state in _states_to_try(rules_name):
        for event in ill_typed:
            result = rules.apply(state, event)
            assert isinstance(result, Refused), (event, result)


# R-2 as RULES.md lists it, low to high; the engine's own rank table is not used here.
R2_TEXT = "31 < 32 < 41 < 42 < 43 < 51 < 52 < 53 < 54 < 61 < 62 < 63 < 64 < 65 < 11 < 22 < 33 < 44 < 55 < 66 < 21"  # noqa: E501
R2_LISTED = [name.strip() for name in R2_TEXT.split("<")]


@pytest.mark.parametrize("rules_name", ["mex", "mexico"])
@pytest.mark.parametrize(("low", "high"), list(zip(R2_LISTED, R2_LISTED[1:], strict=False)))
def test_R_2_each_throw_loses_to_the_next_one_listed(rules_name: str, low: str, high: str) -> None:
    """Ann and Bob each stand on one throw: whoever threw the lower loses, either order."""
    from table.game import GameHeader, replay
    from table.rules.base import Player, Stand, Throw

    header = GameHeader(rules_name, (Player("Ann"), Player("Bob")), {})
    start = {p["name"]: p["lives"] for p in replay(header, []).view()["players"]}
    lo, hi = (int(low[0]), int(low[1])), (int(high[0]), int(high[1]))
    for first, second, loser in ((lo, hi, "Ann"), (hi, lo, "Bob")):
        # mex: Ann's one throw is everyone's limit (MX-4), so Bob's throw ends the round
        events = [Throw(first), Stand(), Throw(second)]
        if rules_name == "mexico":
            events.append(Stand())
        game = replay(header, events)
        assert game.refused == ()
        lost = {p["name"] for p in game.view()["players"] if p["lives"] < start[p["name"]]}
        assert lost == {loser}, (first, second, game.view()["players"])


def test_refusals_are_kept_in_order_and_each_refusal_shares_the_earlier_ones() -> None:
    """Game.apply keeps every refusal without copying the earlier ones: a refusal adds
    one link to a chain it shares with the game before it (copying a tuple of k
    refusals on every refusal made a long game's refusals cost k**2)."""
    from table.game import Game, GameHeader
    from table.rules.base import Hold, Player, Stand, Throw

    game = Game.start(GameHeader("mexico", (Player("Ann"), Player("Bob")), {}))
    events = [Stand(), Throw((6, 3)), Hold(3), Stand(), Stand(), Hold(9)]
    games = [game]
    for event in events:
        game, _ = game.apply(event)
        games.append(game)
    assert [(r.index, r.event) for r in game.refused] == [
        (0, Stand()),
        (2, Hold(3)),
        (4, Stand()),
        (5, Hold(9)),
    ]
    assert games[2].refused == games[1].refused and len(games[3].refused) == 2
    for before, after in zip(games, games[1:], strict=False):
        if after.refused != before.refused:
            assert after.chain is not None and after.chain.prev is before.chain
    # an older game goes on by itself: the later refusals are not its own
    older, _ = games[3].apply(Hold(2))
    assert [r.index for r in older.refused] == [0, 2, 3]
    assert [r.index for r in game.refused] == [0, 2, 4, 5]
    assert older.view()["refused"][-1]["event"] == {"hold": 2}


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "null"),
        ([3], "[3]"),
        ({"a": 1}, '{"a": 1}'),
        (False, "false"),
        ("3", '"3"'),
        # hundreds of digits, or a long string, are not written out whole
        (10**400, "1" + "0" * 36 + "..."),
        ("x" * 100, '"' + "x" * 36 + "..."),
    ],
)
def test_an_option_value_not_allowed_is_named_as_the_game_file_writes_it(
    value: object, shown: str
) -> None:
    """Game files are JSON: a bad option value is shown as JSON (null, not Python's None)."""
    from table.game import Game, GameHeader, SetupError
    from table.rules.base import Player

    header = GameHeader("mex", (Player("Ann"), Player("Bob")), {"lives": value})
    with pytest.raises(SetupError) as caught:
        Game.start(header)
    assert str(caught.value) == (
        f"option 'lives': {shown} is not allowed (allowed: an integer from 1 to 99)"
    )


@pytest.mark.parametrize("rules_name", ["mex", "mexico", "mexen"])
def test_R_1_the_order_of_the_two_dice_never_matters(rules_name: str) -> None:
    """The same throws with each pair's dice the other way round give the same game."""
    from table.game import GameHeader, replay
    from table.rules.base import Player, Throw

    header = GameHeader(rules_name, (Player("Ann"), Player("Bob"), Player("Cid")), {})
    throws = [(6, 3), (1, 2), (5, 4), (4, 4), (2, 3), (6, 5), (1, 1), (4, 2), (5, 5), (4, 1)]
    game = replay(header, [Throw(t) for t in throws])
    turned = replay(header, [Throw((b, a)) for a, b in throws])
    assert game.refused == turned.refused == ()
    view, other = game.view(), turned.view()
    # mexen's ``table`` lists the dice lying there as they were reported
    assert sorted(view.pop("table", [])) == sorted(other.pop("table", []))
    assert game.count == len(throws) and view == other
    assert view["round"] == 2  # the throws reached the scoring of a round


def test_R_3_shown_values_hundreds_for_doubles_and_mex_except_mexico_s_pair_names() -> None:
    """mex and mexen (seeds 000, 003) show double 4 as 400, double 1 as 100 and 21 as
    MEX; mexico (seed 001) shows pair names ("44"); an ordinary pair is its name."""
    from table.game import GameHeader, replay
    from table.rules.base import Player, Stand, Throw
    from table.service.referee import _shown

    two = (Player("Ann"), Player("Bob"))
    three = (*two, Player("Cid"))
    mex = replay(GameHeader("mex", three, {}), [Throw((4, 4)), Throw((1, 1)), Stand()])
    assert mex.view()["kept"] == [{"name": "Ann", "pair": "100"}]
    mex = mex.apply_all([Throw((4, 4))])
    assert mex.view()["pair"] == "400"
    mexx = replay(GameHeader("mex", two, {}), [Throw((3, 6)), Stand(), Throw((1, 2))])
    assert mexx.view()["last_round"]["pairs"] == [
        {"name": "Ann", "pair": "63"},
        {"name": "Bob", "pair": "MEX"},
    ]
    mexen = replay(
        GameHeader("mexen", two, {}),
        [Throw((6, 4)), Throw((6, 4)), Throw((4, 4)), Throw((1, 2))],
    )
    assert mexen.view()["last_round"]["scores"] == [
        {"name": "Ann", "score": "400"},
        {"name": "Bob", "score": "MEX"},
    ]
    mexico = replay(GameHeader("mexico", two, {}), [Throw((4, 4)), Stand(), Throw((3, 6))])
    assert mexico.view()["kept"] == [{"name": "Ann", "pair": "44"}]
    assert mexico.view()["pair"] == "63"
    # the table's screens
    assert [_shown("mex", d) for d in ((4, 4), (1, 1), (3, 6), (1, 2))] == [
        "400",
        "100",
        "63",
        "MEX!",
    ]
    assert [_shown("mexen", d) for d in ((6, 6), (2, 1))] == ["600", "MEX!"]
    assert [_shown("mexico", d) for d in ((4, 4), (1, 1), (3, 6))] == ["44", "11", "63"]
