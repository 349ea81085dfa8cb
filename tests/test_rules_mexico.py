"""``mexico`` (RULES.md MC-1..MC-6, E-1): examples per rule and properties."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table.game import Game, GameHeader, SetupError, replay
from table.gamelog import parse_event
from table.rules.base import (
    Count,
    EndGame,
    EndRound,
    Event,
    EventKind,
    Give,
    Hold,
    Player,
    Refused,
    Stand,
    Throw,
)
from table.rules.mexico import RULES, MexicoState
from table.rules.pairs import RANK_ORDER

S: dict[str, Any] = {"stand": True}


def T(a: int, b: int) -> dict[str, Any]:
    return {"throw": [a, b]}


def play(
    events: list[dict[str, Any]],
    players: tuple[str, ...] = ("Ann", "Bob", "Cid"),
    cpu: dict[str, str] | None = None,
    **options: Any,
) -> Game:
    cpu = cpu or {}
    header = GameHeader("mexico", tuple(Player(n, cpu.get(n)) for n in players), options)
    return replay(header, [parse_event(e) for e in events])


def lives(game: Game) -> dict[str, int]:
    return {p["name"]: p["lives"] for p in game.view()["players"]}


def turn(game: Game) -> tuple[str, int, int] | None:
    t = game.view()["turn"]
    return None if t is None else (t["player"], t["throw"], t["max_throws"])


def reasons(game: Game) -> list[str]:
    return [r.reason for r in game.refused]


# ---------------------------------------------------------------------------
# One example (or a few) per rule


def test_MC_1_options_players_and_cpu_seats() -> None:
    game = play([], cpu={"Bob": "hard", "Cid": "easy"})
    assert lives(game) == {"Ann": 3, "Bob": 3, "Cid": 3}
    assert turn(game) == ("Ann", 0, 3)
    state: MexicoState = game.state
    assert [p.cpu for p in state.config.players] == [None, "hard", "easy"]
    assert state.config.double_on_21 is True
    game = play([], lives=6, max_throws=1, double_on_21=False)
    assert lives(game)["Ann"] == 6 and turn(game) == ("Ann", 0, 1)
    bads: list[dict[str, Any]] = [
        {"lives": 4},
        {"lives": 1},
        {"max_throws": 4},
        {"double_on_21": 1},
    ]
    for bad in bads:
        with pytest.raises(SetupError):
            play([], **bad)
    with pytest.raises(SetupError):
        play([], players=("Ann",))
    with pytest.raises(SetupError):
        play([], players=tuple("ABCDEFG"))
    assert turn(play([], players=tuple("ABCDEF"))) == ("A", 0, 3)


def test_MC_2_same_throws_for_all_last_kept_pair_no_holding() -> None:
    # Ann stands after one throw; Bob may still throw three times (no MX-4 limit).
    game = play([T(6, 6), S, T(3, 1), T(3, 2)])
    assert turn(game) == ("Bob", 2, 3)
    # The last throw counts (Bob's 66 then 31), and the turn ends by itself at 3.
    game = play([T(5, 5), S, T(6, 6), T(6, 5), T(3, 1)])
    assert turn(game) == ("Cid", 0, 3)
    game = play([T(5, 5), S, T(6, 6), T(6, 5), T(3, 1), T(4, 4), S])
    assert game.view()["last_round"]["losers"] == ["Bob"]
    # Keeping one die is refused; throwing again on 21 is allowed.
    game = play([T(2, 1), {"hold": 2}, T(1, 2)])
    assert reasons(game) == ["mexico: keeping one die is not allowed"]
    assert turn(game) == ("Ann", 2, 3)
    assert EventKind.HOLD not in game.allowed


def test_MC_2_a_throw_after_the_limit_is_the_next_players() -> None:
    game = play([T(6, 6), T(5, 5), T(4, 4), T(3, 1)], max_throws=3)
    assert not game.refused and turn(game) == ("Bob", 1, 3)
    game = play([T(6, 6), T(5, 5)], max_throws=1)
    assert turn(game) == ("Cid", 0, 1)


def test_MC_3_every_lowest_loses_at_once_no_tie_break() -> None:
    game = play([T(4, 3), S, T(3, 4), S, T(5, 5), S])
    assert lives(game) == {"Ann": 2, "Bob": 2, "Cid": 3}
    assert game.view()["last_round"]["losers"] == ["Ann", "Bob"]
    assert game.view()["last_round"]["loss"] == 1


def test_MC_3_a_21_anywhere_in_the_round_doubles_the_loss_at_most_two() -> None:
    # Ann throws 21 and throws it away: the loss is still 2.
    game = play([T(2, 1), T(6, 2), S, T(4, 1), S, T(5, 5), S])
    assert lives(game) == {"Ann": 3, "Bob": 1, "Cid": 3}
    # Two 21s: still 2.
    game = play([T(2, 1), S, T(1, 2), S, T(3, 1), S], lives=6)
    assert lives(game) == {"Ann": 6, "Bob": 6, "Cid": 4}
    # Off: 1.
    game = play([T(2, 1), T(6, 2), S, T(4, 1), S, T(5, 5), S], double_on_21=False)
    assert lives(game) == {"Ann": 3, "Bob": 2, "Cid": 3}
    # The 21 of one round does not double the next.
    game = play([T(2, 1), S, T(3, 1), S, T(6, 6), S, T(3, 2), S, T(6, 6), S, T(5, 5), S], lives=6)
    assert lives(game) == {"Ann": 6, "Bob": 3, "Cid": 6}


def test_MC_4_lives_stop_at_zero_last_left_wins() -> None:
    game = play([T(2, 1), S, T(3, 1), S], players=("Ann", "Bob"), lives=2)
    view = game.view()
    assert view["players"][1] == {"name": "Bob", "lives": 0, "out": True}
    assert view["over"] and view["winner"] == "Ann" and not view["draw"]
    assert turn(game) is None
    # 1 life left, a doubled loss: held at 0.
    game = play([T(3, 1), S, T(6, 6), S, T(3, 2), S, T(2, 1), S], players=("Ann", "Bob"), lives=2)
    assert lives(game) == {"Ann": 0, "Bob": 2}
    assert game.view()["winner"] == "Bob"


def test_MC_4_all_remaining_reach_zero_together_is_a_draw() -> None:
    game = play([T(4, 1), S, T(1, 4), S, T(5, 2), S, T(2, 5), S], players=("Ann", "Bob"), lives=2)
    view = game.view()
    assert view["over"] and view["draw"] and view["winner"] is None
    assert game.outcome is not None and game.outcome.draw
    # All keep 21: all lowest, all lose 2.
    game = play([T(2, 1), S, T(1, 2), S, T(2, 1), S], lives=2)
    assert lives(game) == {"Ann": 0, "Bob": 0, "Cid": 0} and game.view()["draw"]


def test_MC_5_next_first_player() -> None:
    # Round 1 is not over while Dan has still to throw: no first player is chosen yet.
    game = play(
        [T(3, 1), S, T(3, 1), S, T(6, 6), S],
        players=("Ann", "Bob", "Cid", "Dan"),
        lives=2,
    )
    assert turn(game) == ("Dan", 0, 3)  # Dan has not played round 1 yet
    game = play(
        [T(3, 1), S, T(3, 1), S, T(6, 6), S, T(2, 1), S],
        players=("Ann", "Bob", "Cid", "Dan"),
        lives=2,
    )
    assert lives(game) == {"Ann": 0, "Bob": 0, "Cid": 2, "Dan": 2}
    # Both lowest are out: the next active after Ann (last first player) is Cid.
    assert turn(game) == ("Cid", 0, 3)
    assert game.state.order == (2, 3)
    game = play([T(6, 6), S, T(3, 1), S, T(3, 1), S], lives=3)
    assert turn(game) == ("Bob", 0, 3) and game.state.order == (1, 2, 0)
    # Lowest all out, the last first player among them: the next active after them.
    game = play(
        [T(3, 1), T(2, 1), T(1, 3), T(6, 6)],
        players=("Ann", "Bob", "Cid", "Dan"),
        lives=2,
        max_throws=1,
    )
    assert turn(game) == ("Bob", 0, 1) and game.state.order == (1, 3)
    game = play(
        [T(2, 1), T(5, 5), T(3, 2), T(3, 2), T(4, 4), T(6, 6), T(5, 5), T(3, 1)],
        players=("Ann", "Bob", "Cid", "Dan"),
        lives=2,
        max_throws=1,
    )
    # Round 1: Cid and Dan 32 lose 2 (a 21): out; Bob starts round 2 (after Ann).
    # Round 2 (Bob, Ann): Bob 44, Ann 66 -> Bob loses 1; Bob starts round 3.
    # Round 3 (Bob, Ann): Bob 55, Ann 31 -> Ann loses 1.
    assert lives(game) == {"Ann": 1, "Bob": 1, "Cid": 0, "Dan": 0}
    assert turn(game) == ("Ann", 0, 1)


def test_MC_6_cpu_players_play_through_events_like_anyone() -> None:
    game = play([T(6, 6), S, T(3, 1), S, T(5, 5), S], cpu={"Bob": "normal", "Cid": "hard"}, lives=2)
    assert lives(game) == {"Ann": 2, "Bob": 1, "Cid": 2}
    assert turn(game) == ("Bob", 0, 3)


def test_E_1_end_game_stops_without_a_winner() -> None:
    game = play([T(6, 3), {"end_game": True}, T(1, 1), {"hold": 1}])
    view = game.view()
    assert view["over"] and view["winner"] is None and not view["draw"]
    assert view["turn"] is None
    assert reasons(game) == ["game over", "game over"]


def test_other_events_are_refused() -> None:
    game = play(
        [
            S,
            T(6, 3),
            {"end_round": True},
            {"count": "pips"},
            {"give": "Bob"},
            {"throw": [4]},
            {"throw": [7, 1]},
        ]
    )
    assert reasons(game) == [
        "mexico: throw before you stand",
        "mexico: a round cannot be ended early in mexico",
        "mexico: there are no tie-breaks in mexico, every lowest loses",
        "mexico: there is nothing to give in mexico ('give')",
        "mexico: a throw is two dice, got 1",
        "throw: die value 7 is not possible (dice show 1 to 6)",
    ]
    assert turn(game) == ("Ann", 1, 3)
    # Straight through the rules (no game wrapper in between) too.
    state = RULES.start((Player("A"), Player("B")), {"lives": 3})
    assert RULES.apply(state, Throw((0, 3))) == Refused(
        "throw: die value 0 is not possible (dice show 1 to 6)"
    )
    assert RULES.apply(state, Hold(3)) == Refused("mexico: keeping one die is not allowed")


# ---------------------------------------------------------------------------
# Edge cases a real table meets


def test_MC_3_a_21_on_the_last_throw_of_the_round_doubles_the_loss() -> None:
    """Cid's only throw (max_throws 1) ends the round with a 21: Bob's loss is 2,
    the round's result says why, and the next round is not doubled."""
    game = play([T(4, 3), T(3, 1), T(2, 1)], max_throws=1)
    view = game.view()
    last = view["last_round"]
    assert last["losers"] == ["Bob"] and last["loss"] == 2 and last["saw_21"] is True
    assert last["pairs"] == [
        {"name": "Ann", "pair": "43"},
        {"name": "Bob", "pair": "31"},
        {"name": "Cid", "pair": "21"},
    ]
    assert lives(game) == {"Ann": 3, "Bob": 1, "Cid": 3}
    assert view["double"] is False and turn(game) == ("Bob", 0, 1)


def test_MC_3_a_game_ended_by_a_doubled_loss_is_not_doubled_any_more() -> None:
    """The 21's doubling belongs to the round in progress: once the doubled loss has
    ended the game, the view no longer says the round is doubled."""
    game = play([T(2, 1), T(3, 1)], players=("Ann", "Bob"), lives=2, max_throws=1)
    view = game.view()
    assert view["over"] is True and view["winner"] == "Ann"
    assert view["last_round"]["loss"] == 2 and view["last_round"]["saw_21"] is True
    assert view["double"] is False


def test_MC_4_several_out_in_one_round_leave_the_last_one_the_winner() -> None:
    """Ann and Bob tie lowest in a doubled round and both go out at once: Cid,
    the one left, wins; nobody else has a turn."""
    game = play([T(3, 1), S, T(1, 3), S, T(2, 1), S], lives=2)
    view = game.view()
    assert view["over"] and view["winner"] == "Cid" and view["draw"] is False
    assert view["last_round"]["losers"] == ["Ann", "Bob"] and view["last_round"]["loss"] == 2
    assert [p["out"] for p in view["players"]] == [True, True, False]
    assert turn(game) is None and game.outcome is not None and game.outcome.winner == "Cid"


def test_MC_5_first_lowest_in_turn_order_not_in_seat_order() -> None:
    """Round 2 runs Bob, Cid, Ann; Bob and Ann tie lowest: Bob, first of them in
    that order, starts round 3. When Bob is out by it, Ann (still in) starts."""
    round_1 = [T(6, 6), S, T(3, 1), S, T(5, 5), S]  # Bob loses: round 2 is Bob, Cid, Ann
    game = play([*round_1, T(4, 1), S, T(6, 6), S, T(1, 4), S], lives=3)
    assert lives(game) == {"Ann": 2, "Bob": 1, "Cid": 3}
    assert turn(game) == ("Bob", 0, 3) and game.state.order == (1, 2, 0)
    game = play([*round_1, T(4, 1), S, T(6, 6), S, T(1, 4), S], lives=2)
    assert lives(game) == {"Ann": 1, "Bob": 0, "Cid": 2}
    assert turn(game) == ("Ann", 0, 3) and game.state.order == (0, 2)


@pytest.mark.parametrize(
    ("event", "reason"),
    [
        (Throw((4,)), "mexico: a throw is two dice, got 1"),
        (Throw((1, 2, 3)), "mexico: a throw is two dice, got 3"),
        (Throw((0, 3)), "throw: die value 0 is not possible (dice show 1 to 6)"),
        (Throw((3, 7)), "throw: die value 7 is not possible (dice show 1 to 6)"),
        (Hold(3), "mexico: keeping one die is not allowed"),
        (Hold(0), "hold: die value 0 is not possible (dice show 1 to 6)"),
    ],
)
def test_MC_2_impossible_events_are_refused_and_change_nothing(event: Event, reason: str) -> None:
    game = play([T(6, 3), S, T(2, 1)])  # Bob has thrown a 21 once
    after, refused = game.apply(event)
    assert refused is not None and refused.reason == reason
    assert after.state == game.state and turn(after) == ("Bob", 1, 3)
    assert after.view()["double"] is True and after.view()["pair"] == "21"


# ---------------------------------------------------------------------------
# Properties

_OTHER_EVENTS: list[Event] = [
    Stand(),
    EndRound(),
    Count("pips"),
    Hold(3),
    Give("Ann"),
    Throw((1,)),
    Throw((7, 1)),
    Throw((0, 6)),
]


def _header(n: int, lives_: int, max_throws: int, double: bool) -> GameHeader:
    return GameHeader(
        "mexico",
        tuple(Player(f"P{i}") for i in range(n)),
        {"lives": lives_, "max_throws": max_throws, "double_on_21": double},
    )


def _legal_event(game: Game, data: st.DataObject) -> Event:
    if EventKind.STAND in game.allowed and data.draw(st.booleans()):
        return Stand()
    return Throw((data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))))


_settings = settings(max_examples=150, deadline=None)


@_settings
@given(
    n=st.integers(2, 6),
    lives_=st.sampled_from([2, 3, 6]),
    max_throws=st.sampled_from([1, 2, 3]),
    double=st.booleans(),
    data=st.data(),
)
def test_property_every_game_ends_and_invariants_hold(
    n: int, lives_: int, max_throws: int, double: bool, data: st.DataObject
) -> None:
    """All option settings: every round costs at least one life, so a game has at
    most n*lives rounds of at most n*max_throws accepted events. Lives stay in
    0..lives and never rise; the losers are exactly the lowest; the loss is 2
    only with a 21 in the round and double_on_21 on."""
    header = _header(n, lives_, max_throws, double)
    game = Game.start(header)
    events: list[Event] = []
    bound = n * lives_ * n * max_throws
    accepted = 0
    saw_21 = False
    for _ in range(3 * bound):
        if game.is_over:
            break
        before: MexicoState = game.state
        legal = data.draw(st.integers(0, 9)) != 9
        event = _legal_event(game, data) if legal else data.draw(st.sampled_from(_OTHER_EVENTS))
        after, refused = game.apply(event)
        events.append(event)
        if refused is not None:
            assert not legal, refused.reason
            assert after.state == before
            game = after
            continue
        assert event.kind in game.allowed
        accepted += 1
        if isinstance(event, Throw) and sorted(event.dice) == [1, 2]:
            saw_21 = True
        state: MexicoState = after.state
        assert all(0 <= v <= lives_ for v in state.lives)
        assert all(a <= b for a, b in zip(state.lives, before.lives, strict=True))
        if state.last is not before.last:
            last = state.last
            assert last is not None
            assert last.loss == (2 if saw_21 and double else 1)
            saw_21 = False
            ranks = [RANK_ORDER.index(p) for p in last.pairs]
            low = min(ranks)
            assert last.losers == tuple(
                s for s, r in zip(last.order, ranks, strict=True) if r == low
            )
            for s in range(n):
                want = max(0, before.lives[s] - last.loss) if s in last.losers else before.lives[s]
                assert state.lives[s] == want
            if not state.over:
                assert all(state.lives[s] > 0 for s in state.order)
                assert sorted(state.order) == [s for s in range(n) if state.lives[s] > 0]
        game = after
    assert game.is_over and accepted <= bound
    view = game.view()
    left = [p for p in view["players"] if not p["out"]]
    assert (view["winner"] is None) == view["draw"] == (not left)
    assert len(left) <= 1
    assert replay(header, events).view() == view


@_settings
@given(n=st.integers(2, 6), data=st.data())
def test_property_refused_events_never_change_state_and_replay_is_deterministic(
    n: int, data: st.DataObject
) -> None:
    header = _header(n, 3, data.draw(st.sampled_from([1, 2, 3])), data.draw(st.booleans()))
    game = Game.start(header)
    events: list[Event] = []
    for _ in range(data.draw(st.integers(0, 60))):
        if data.draw(st.integers(0, 3)) == 3:
            event: Event = data.draw(st.sampled_from([*_OTHER_EVENTS, EndGame()]))
        else:
            event = _legal_event(game, data)
        after, refused = game.apply(event)
        if refused is not None:
            assert after.state == game.state
        events.append(event)
        game = after
    assert replay(header, events).view() == game.view()
    # Straight through the rules: never raises; accepted only when allowed.
    for event in [*_OTHER_EVENTS, Throw((2, 1)), Stand(), EndGame()]:
        result = RULES.apply(game.state, event)
        if isinstance(result, MexicoState):
            assert event.kind in RULES.allowed(game.state)
        else:
            assert isinstance(result, Refused)


def test_games_played_straight_through_apply_end() -> None:
    """The simulator's way of playing (RULES.apply alone, no Game, no log): 300 games of
    four players end, each within a bound of events. How fast that is, is measured by
    ``dicetable simulate --breakdown`` (BENCHMARKS.md), not asserted here."""
    players = tuple(Player(n) for n in "ABCD")
    throws = [Throw(((i * 7) % 6 + 1, (i * 11) % 6 + 1)) for i in range(997)]
    stand = Stand()
    i = 0
    for _ in range(300):
        state = RULES.start(players, {"lives": 3, "max_throws": 3, "double_on_21": True})
        for _ in range(10_000):
            if state.over:
                break
            i += 1
            result = RULES.apply(state, stand if state.throws and i % 3 == 0 else throws[i % 997])
            assert isinstance(result, MexicoState)
            state = result
        assert state.over
