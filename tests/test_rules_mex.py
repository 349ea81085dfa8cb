"""``mex`` (RULES.md MX-1..MX-10, E-1): examples per rule and properties."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table.game import Game, GameHeader, SetupError, replay
from table.gamelog import parse_event
from table.rules.base import Count, EndGame, EndRound, Event, EventKind, Hold, Player, Stand, Throw
from table.rules.mex import MexState, Phase, penalty

S: dict[str, Any] = {"stand": True}
E: dict[str, Any] = {"end_round": True}


def T(a: int, b: int) -> dict[str, Any]:
    return {"throw": [a, b]}


def play(
    events: list[dict[str, Any]], players: tuple[str, ...] = ("Ann", "Bob", "Cid"), **options: Any
) -> Game:
    header = GameHeader("mex", tuple(Player(n) for n in players), options)
    return replay(header, [parse_event(e) for e in events])


def lives(game: Game) -> dict[str, int]:
    return {p["name"]: p["lives"] for p in game.view()["players"]}


def points(game: Game) -> dict[str, int]:
    return {p["name"]: p["points"] for p in game.view()["players"]}


def turn(game: Game) -> tuple[str, int, int] | None:
    t = game.view()["turn"]
    return None if t is None else (t["player"], t["throw"], t["max_throws"])


def reasons(game: Game) -> list[str]:
    return [r.reason for r in game.refused]


# ---------------------------------------------------------------------------
# One example (or a few) per rule


def test_MX_1_options_and_players() -> None:
    game = play([])
    assert lives(game) == {"Ann": 12, "Bob": 12, "Cid": 12}
    assert turn(game) == ("Ann", 0, 3)
    assert lives(play([], lives=1, max_throws=1)) == {"Ann": 1, "Bob": 1, "Cid": 1}
    bads: list[dict[str, Any]] = [
        {"lives": 0},
        {"lives": 100},
        {"max_throws": 0},
        {"max_throws": 4},
        {"x": 1},
    ]
    for bad in bads:
        with pytest.raises(SetupError):
            play([], **bad)
    with pytest.raises(SetupError):
        play([], players=("Ann",))
    assert turn(play([], players=tuple(f"P{i}" for i in range(9)))) == ("P0", 0, 3)


def test_MX_2_first_round_seat_one_then_loser_starts_in_seat_order() -> None:
    game = play([T(6, 6), S, T(3, 1), T(5, 5)], players=("Ann", "Bob", "Cid", "Dan"))
    assert turn(game) == ("Dan", 0, 1)
    # Bob (31) lost: round 2 starts with Bob, then Cid, Ann.
    game = play([T(6, 6), S, T(3, 1), T(5, 5)])
    assert game.view()["round"] == 2
    assert game.state.order == (1, 2, 0)
    assert turn(game) == ("Bob", 0, 3)


def test_MX_3_last_throw_counts_and_turn_ends_at_the_limit() -> None:
    # Ann throws 66 then 31: the 31 counts. Three throws end her turn by itself.
    game = play([T(6, 6), T(1, 2), T(3, 1)])
    assert turn(game) == ("Bob", 0, 3)
    game = play([T(6, 6), T(1, 2), T(3, 1), T(4, 1), S, T(4, 2), S])
    assert game.view()["last_round"]["losers"] == ["Ann"]
    # Throwing again on a Mexx is allowed.
    game = play([T(2, 1), T(5, 5)])
    assert not game.refused and turn(game) == ("Ann", 2, 3)


def test_MX_4_first_player_sets_throw_limit() -> None:
    game = play([T(6, 3), T(6, 4), S])
    assert turn(game) == ("Bob", 0, 2)
    game = play([T(6, 3), T(6, 4), S, T(3, 1), T(4, 1)])
    assert turn(game) == ("Cid", 0, 2)  # Bob's second throw was his last
    game = play([T(6, 3), S, T(3, 1)])
    assert turn(game) == ("Cid", 0, 1)
    # The next round's first player may throw max_throws again.
    game = play([T(6, 3), S, T(3, 1), T(4, 1)])
    assert turn(game) == ("Bob", 0, 3)


def test_MX_4_the_view_gives_each_new_round_the_full_limit_again() -> None:
    """Round 1's first player stood after one throw (the limit 1); round 2's view says
    max_throws again until its first player sets it, not round 1's limit."""
    game = play([T(6, 5), S, T(4, 3), T(3, 2)])
    assert game.view()["round"] == 2 and turn(game) == ("Cid", 0, 3)
    assert game.view()["limit"] == 3


@pytest.mark.parametrize(
    ("events", "loss"),
    [
        ([T(6, 3), S, T(3, 1), T(4, 1)], 1),
        ([T(2, 1), S, T(3, 1), T(4, 1)], 2),
        ([T(2, 1), T(3, 2), S, T(2, 1), S, T(3, 1), S], 4),
        ([T(2, 1), T(1, 2), T(2, 1), T(3, 1), T(4, 1), S, T(5, 5), S], 6),
    ],
)
def test_MX_5_penalty_counts_every_mexx_of_the_main_round(
    events: list[dict[str, Any]], loss: int
) -> None:
    game = play(events)
    assert game.view()["last_round"]["loss"] == loss
    assert sum(lives(game).values()) == 36 - loss
    assert not game.refused
    assert [penalty(m) for m in range(4)] == [1, 2, 4, 6]


def test_MX_5_a_mexx_in_a_tie_break_adds_no_penalty() -> None:
    game = play([T(4, 3), S, T(3, 4), T(6, 6), T(2, 1), T(3, 1)])
    last = game.view()["last_round"]
    assert last["losers"] == ["Bob"] and last["loss"] == 1 and last["mexx"] == 0
    assert lives(game)["Bob"] == 11


def test_MX_6_lives_held_at_zero_out_and_next_active_starts() -> None:
    # Bob has 1 life and loses 2 (a Mexx): held at 0, out; Cid starts next.
    four = ("Ann", "Bob", "Cid", "Dan")
    game = play([T(2, 1), S, T(3, 1), T(4, 1), T(5, 5)], lives=1, players=four)
    view = game.view()
    assert view["players"][1] == {"name": "Bob", "lives": 0, "points": -1, "out": True}
    assert turn(game) == ("Cid", 0, 3) and game.state.order == (2, 3, 0)
    assert not view["over"]
    # Dan loses next: Ann and Cid remain; Ann (after Dan) starts.
    game = play(
        [T(2, 1), S, T(3, 1), T(4, 1), T(5, 5), T(6, 6), S, T(3, 1), T(5, 5)],
        lives=1,
        players=four,
    )
    assert game.state.order == (0, 2) and turn(game) == ("Ann", 0, 3)
    # One player left: the game is over and they win.
    game = play([T(6, 6), S, T(3, 1), T(5, 5)], lives=1)
    assert game.view()["over"] is False
    game = play([T(6, 6), S, T(3, 1), T(5, 5), T(3, 2), S, T(4, 1)], lives=1)
    assert game.view()["over"] and game.view()["winner"] == "Ann" and turn(game) is None


def test_MX_6_an_out_loser_is_followed_by_the_next_active_after_them() -> None:
    """Cid, third of four, loses his last life: Dan (after Cid), not Bob (after the
    round's first player), starts the next round."""
    four = ("Ann", "Bob", "Cid", "Dan")
    game = play([T(6, 6), S, T(5, 5), T(3, 1), T(4, 4)], lives=1, players=four)
    assert game.view()["players"][2]["out"] is True
    assert game.state.order == (3, 0, 1) and turn(game) == ("Dan", 0, 3)


def test_MX_7_end_round_a_by_the_thrower_who_ties_loses_alone() -> None:
    players = ("Ann", "Bob", "Cid", "Dan")
    game = play([T(6, 3), S, T(4, 2), T(2, 4), E], players=players, max_throws=3)
    # limit 1: Cid's turn ended by itself, so (b): Cid ended it from Dan's turn.
    assert game.view()["last_round"]["ended_by"] == "Cid"
    assert game.view()["last_round"]["losers"] == ["Cid"]
    game = play([T(6, 3), T(6, 4), S, T(4, 2), S, T(2, 4), E], players=players)
    last = game.view()["last_round"]
    assert last["ended_by"] == "Cid" and last["losers"] == ["Cid"] and last["tiebreaks"] == []
    assert [p["name"] for p in last["pairs"]] == ["Ann", "Bob", "Cid"]  # Dan did not play
    assert points(game) == {"Ann": 1, "Bob": 1, "Cid": -1, "Dan": 1}
    assert turn(game) == ("Cid", 0, 3)


def test_MX_7_end_round_b_by_the_previous_player() -> None:
    game = play(
        [T(6, 3), T(6, 4), S, T(5, 1), S, T(4, 1), S, E], players=("Ann", "Bob", "Cid", "Dan")
    )
    last = game.view()["last_round"]
    assert last["ended_by"] == "Cid" and last["losers"] == ["Cid"]


def test_MX_7_ender_not_lowest_ties_go_to_a_tie_break() -> None:
    game = play([T(4, 2), T(4, 2), S, T(2, 4), S, T(6, 6), E], players=("Ann", "Bob", "Cid", "Dan"))
    state: MexState = game.state
    assert state.phase is Phase.TIEBREAK
    assert state.tiebreaks[-1].players == (0, 1)
    assert turn(game) == ("Ann", 0, 1)


def test_MX_7_end_round_refusals() -> None:
    game = play([E, T(4, 2), E, T(4, 3), S, E, T(5, 5), T(2, 1), E, T(4, 1), E])
    assert reasons(game) == [
        "mex: nobody has thrown yet this round",
        "mex: the round's first player cannot end the round",
        "mex: the round's first player threw last and cannot end the round",
        "mex: a Mexx was thrown this round, it cannot be ended",
        "mex: a Mexx was thrown this round, it cannot be ended",
    ]
    game = play([T(4, 2), S, T(4, 2), T(6, 6)])  # tie-break now
    assert EventKind.END_ROUND not in game.allowed
    after = play([T(4, 2), S, T(4, 2), T(6, 6), E])
    assert reasons(after) == ["mex: a tie-break cannot be ended"]
    assert after.state == game.state


def test_MX_8_tie_break_one_throw_each_repeat_among_still_tied() -> None:
    events = [T(4, 2), S, T(4, 2), T(2, 4)]  # all three tie at 42
    game = play(events)
    assert turn(game) == ("Ann", 0, 1)
    game = play([*events, T(3, 1), T(6, 6), T(1, 3)])  # Ann and Cid tie again
    state: MexState = game.state
    assert state.phase is Phase.TIEBREAK and state.tiebreaks[-1].players == (0, 2)
    assert turn(game) == ("Ann", 0, 1)
    assert reasons(play([*events, S])) == ["mex: in a tie-break every player throws once"]
    game = play([*events, T(3, 1), T(6, 6), T(1, 3), T(5, 5), T(3, 2)])
    last = game.view()["last_round"]
    assert last["losers"] == ["Cid"] and len(last["tiebreaks"]) == 2 and last["loss"] == 1
    assert lives(game) == {"Ann": 12, "Bob": 12, "Cid": 11}
    assert turn(game) == ("Cid", 0, 3)


def test_MX_9_count_pips_chosen_before_the_first_throw() -> None:
    tie = [T(4, 2), S, T(4, 2), T(6, 6)]
    # mex (default): 21 is highest, 31 lowest -> Bob loses.
    assert play([*tie, T(2, 1), T(3, 1)]).view()["last_round"]["losers"] == ["Bob"]
    # pips: 2+1 = 3 < 3+1 = 4 -> Ann loses.
    game = play([*tie, {"count": "pips"}, T(2, 1), T(3, 1)])
    assert game.view()["last_round"]["losers"] == ["Ann"]
    # a later count replaces an earlier one
    game = play([*tie, {"count": "pips"}, {"count": "mex"}, T(2, 1), T(3, 1)])
    assert game.view()["last_round"]["losers"] == ["Bob"]
    # after the first throw, or in the main round, or another word: refused
    game = play([*tie, T(2, 1), {"count": "pips"}, {"count": "sum"}, T(3, 1)])
    assert reasons(game) == [
        "mex: the count is chosen before the tie-break's first throw",
        "mex: the count is chosen before the tie-break's first throw",
    ]
    assert reasons(play([*tie, {"count": "sum"}])) == ['mex: count is "mex" or "pips", not \'sum\'']
    assert reasons(play([{"count": "pips"}])) == [
        "mex: the count is chosen before a tie-break's first throw"
    ]
    # a repeated tie-break counts mex again: 6+5 ties with 5+6 in pips, then
    # in the repeat 21 beats 31 as mex.
    game = play([*tie, {"count": "pips"}, T(6, 5), T(5, 6)])
    assert game.state.tiebreaks[-1].count.value == "mex"
    assert game.view()["tiebreak"]["count"] == "mex"
    game = play([*tie, {"count": "pips"}, T(6, 5), T(5, 6), T(2, 1), T(3, 1)])
    assert game.view()["last_round"]["losers"] == ["Bob"]


def test_MX_10_round_points() -> None:
    # Ann throws two Mexx (one thrown away), Cid one; Bob loses with 6 (3 Mexx).
    game = play([T(2, 1), T(1, 2), T(5, 5), T(3, 1), S, T(2, 2), T(2, 1), S])
    assert game.view()["last_round"]["loss"] == 6
    assert points(game) == {"Ann": 1 + 4, "Bob": -1, "Cid": 1 + 2}
    # the loser's own Mexx still count for them; the winner gets +5 at the end
    game = play([T(2, 1), T(3, 1), S, T(5, 5), S], lives=2, players=("Ann", "Bob"))
    assert game.view()["over"] and game.view()["winner"] == "Bob"
    assert points(game) == {"Ann": -1 + 2, "Bob": 1 + 5}
    # players who did not throw because of end_round still get +1
    game = play([T(6, 3), T(6, 4), S, T(4, 2), S, T(4, 1), E], players=("Ann", "Bob", "Cid", "Dan"))
    assert points(game) == {"Ann": 1, "Bob": 1, "Cid": -1, "Dan": 1}


def test_E_1_end_game_stops_without_a_winner() -> None:
    game = play([T(6, 3), {"end_game": True}, T(1, 1)])
    view = game.view()
    assert view["over"] and view["winner"] is None and view["turn"] is None
    assert reasons(game) == ["game over"]
    game = play([T(4, 2), S, T(4, 2), T(6, 6), {"end_game": True}])
    assert game.view()["over"] and game.outcome is not None and game.outcome.winner is None


def test_other_events_are_refused() -> None:
    game = play([T(6, 3), {"hold": 3}, {"give": "Bob"}, {"throw": [4]}])
    assert reasons(game) == [
        "mex: keeping one die is not allowed, throw both",
        "mex: there is nothing to give in mex ('give')",
        "mex: a throw is two dice, got 1",
    ]
    assert turn(game) == ("Ann", 1, 3)


# ---------------------------------------------------------------------------
# Edge cases a real table meets


def test_MX_4_a_later_player_standing_early_does_not_lower_the_limit() -> None:
    """Only the round's first player sets the limit: Bob standing after one throw
    leaves Cid the three throws Ann made."""
    game = play([T(6, 3), T(6, 4), T(6, 5), T(5, 1), S])
    assert turn(game) == ("Cid", 0, 3)
    game = play([T(6, 3), T(6, 4), T(6, 5), T(5, 1), S, T(3, 1), T(3, 2)])
    assert turn(game) == ("Cid", 2, 3) and not game.refused


def test_MX_3_MX_5_a_mexx_on_the_last_throw_of_the_round_scores_it_at_once() -> None:
    """Cid's one allowed throw (MX-4) is a Mexx: his turn ends by itself, the round
    is scored at once with the Mexx penalty, and the next round starts clean."""
    game = play([T(6, 3), S, T(4, 1), T(2, 1)])
    view = game.view()
    last = view["last_round"]
    assert last["losers"] == ["Bob"] and last["loss"] == 2 and last["mexx"] == 1
    assert last["pairs"][-1] == {"name": "Cid", "pair": "MEX"}
    assert lives(game) == {"Ann": 12, "Bob": 10, "Cid": 12}
    assert points(game) == {"Ann": 1, "Bob": -1, "Cid": 1 + 2}
    assert view["round"] == 2 and view["mexx"] == 0 and view["kept"] == []
    assert turn(game) == ("Bob", 0, 3)


def test_MX_2_MX_8_a_tie_break_follows_the_round_s_order_past_the_last_seat() -> None:
    """Round 2 starts with Cid (Bob is out) and goes Cid, Dan, Ann: Cid and Ann tie
    for lowest, so the tie-break is Cid first, then Ann; Bob never has a turn."""
    four = ("Ann", "Bob", "Cid", "Dan")
    round_1 = [T(6, 6), S, T(3, 1), T(5, 5), T(4, 4)]  # Bob loses his only life
    game = play([*round_1, T(4, 2), S, T(6, 6), T(2, 4)], lives=1, players=four)
    state: MexState = game.state
    assert state.order == (2, 3, 0)
    assert state.phase is Phase.TIEBREAK and state.tiebreaks[-1].players == (2, 0)
    assert turn(game) == ("Cid", 0, 1)
    game = play([*round_1, T(4, 2), S, T(6, 6), T(2, 4), T(5, 5), T(3, 1)], lives=1, players=four)
    assert game.view()["last_round"]["losers"] == ["Ann"]
    assert game.view()["over"] is False and game.state.order == (2, 3)
    assert turn(game) == ("Cid", 0, 3)  # Ann is out: the next active after her


def test_MX_6_MX_10_a_tie_break_that_takes_the_last_life_ends_the_game() -> None:
    game = play([T(4, 2), S, T(2, 4), T(3, 1), T(5, 5)], players=("Ann", "Bob"), lives=1)
    view = game.view()
    assert view["over"] and view["winner"] == "Bob" and turn(game) is None
    assert view["last_round"]["losers"] == ["Ann"] and len(view["last_round"]["tiebreaks"]) == 1
    assert lives(game) == {"Ann": 0, "Bob": 1}
    assert points(game) == {"Ann": -1, "Bob": 1 + 5}
    assert reasons(
        play([T(4, 2), S, T(2, 4), T(3, 1), T(5, 5), T(6, 6)], players=("Ann", "Bob"), lives=1)
    ) == ["game over"]


@pytest.mark.parametrize(
    ("event", "reason"),
    [
        (Throw((4,)), "mex: a throw is two dice, got 1"),
        (Throw((1, 2, 3)), "mex: a throw is two dice, got 3"),
        (Throw(()), "mex: a throw is two dice, got 0"),
        (Throw((0, 3)), "throw: die value 0 is not possible (dice show 1 to 6)"),
        (Throw((3, 7)), "throw: die value 7 is not possible (dice show 1 to 6)"),
        (Hold(3), "mex: keeping one die is not allowed, throw both"),
        (Stand(False), "stand: false means nothing; send true to do it"),
    ],
)
def test_MX_3_MX_8_impossible_events_are_refused_and_change_nothing(
    event: Event, reason: str
) -> None:
    """In the middle of a turn and in a tie-break alike: the reason says what is
    wrong, and the state (throws made, whose turn) is as it was."""
    for events in ([T(6, 3)], [T(4, 2), S, T(4, 2), T(6, 6), T(3, 1)]):
        game = play(events)
        after, refused = game.apply(event)
        assert refused is not None and refused.reason == reason
        assert after.state == game.state and turn(after) == turn(game)


# ---------------------------------------------------------------------------
# Properties

# Distinct in R-2 rank and in pips, so a tie-break thrown with them decides.
_DECIDING = [(1, 1), (2, 1), (2, 2), (3, 2), (3, 3), (4, 3)]

_OTHER_EVENTS: list[Event] = [
    Stand(),
    EndRound(),
    Count("pips"),
    Count("mex"),
    Count("odd"),
    Hold(3),
    Throw((1,)),
    Throw((7, 1)),
]


def _header(n: int, lives_: int, max_throws: int) -> GameHeader:
    return GameHeader(
        "mex",
        tuple(Player(f"P{i}") for i in range(n)),
        {"lives": lives_, "max_throws": max_throws},
    )


def _legal_event(game: Game, data: st.DataObject, decide_ties: bool) -> Event:
    """One event of a kind in ``allowed()``; throws first so shrinking plays on."""
    kinds = [k for k in _KIND_ORDER if k in game.allowed]
    kind = data.draw(st.sampled_from(kinds))
    if kind is EventKind.THROW:
        state: MexState = game.state
        if decide_ties and state.phase is Phase.TIEBREAK:
            return Throw(_DECIDING[len(state.tiebreaks[-1].pairs)])
        return Throw((data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6))))
    if kind is EventKind.COUNT:
        return Count(data.draw(st.sampled_from(["mex", "pips"])))
    if kind is EventKind.STAND:
        return Stand()
    return EndRound()


_KIND_ORDER = (EventKind.THROW, EventKind.STAND, EventKind.END_ROUND, EventKind.COUNT)


@settings(max_examples=120, deadline=None)
@given(
    n=st.integers(2, 5),
    lives_=st.integers(1, 4),
    max_throws=st.integers(1, 3),
    data=st.data(),
)
def test_property_games_end_and_invariants_hold(
    n: int, lives_: int, max_throws: int, data: st.DataObject
) -> None:
    """Any options; tie-breaks thrown with distinct pairs so they decide. Every
    round costs someone a life, so at most n*lives rounds, each of at most
    n*(max_throws+2)+1 accepted events besides ``count``. Lives never rise or go
    below 0; one loser per round pays MX-5; MX-10 point totals."""
    header = _header(n, lives_, max_throws)
    game = Game.start(header)
    events: list[Event] = []
    bound = n * lives_ * (n * (max_throws + 2) + 1)
    accepted = 0
    for _ in range(20 * bound):
        if game.is_over:
            break
        before: MexState = game.state
        legal = data.draw(st.integers(0, 9)) != 9
        if legal:
            event = _legal_event(game, data, decide_ties=True)
        else:
            event = data.draw(st.sampled_from(_OTHER_EVENTS))
        after, refused = game.apply(event)
        events.append(event)
        if refused is not None:
            assert not legal, f"{event} was in allowed() but refused: {refused.reason}"
            assert after.state == before, "a refused event changed the state"
            game = after
            continue
        assert event.kind in game.allowed
        accepted += event.kind is not EventKind.COUNT
        state: MexState = after.state
        assert all(0 <= v <= lives_ for v in state.lives)
        assert all(a <= b for a, b in zip(state.lives, before.lives, strict=True))
        if state.last is not before.last:
            assert state.last is not None
            changed = [i for i in range(n) if state.lives[i] != before.lives[i]]
            assert changed == [state.last.loser]
            loss = penalty(state.last.mexx)
            assert state.lives[state.last.loser] == max(0, before.lives[state.last.loser] - loss)
            gained = sum(state.points) - sum(before.points)
            bonus = 5 if state.over and state.winner is not None else 0
            assert gained == len(before.order) - 2 + 2 * state.last.mexx + bonus
        game = after
    assert game.is_over, f"not over after {accepted} accepted events"
    assert accepted <= bound
    assert sum(v > 0 for v in game.state.lives) == 1
    assert game.view()["winner"] is not None
    assert replay(header, events).view() == game.view()


@settings(max_examples=120, deadline=None)
@given(n=st.integers(2, 4), data=st.data())
def test_property_refused_events_never_change_state_and_replay_is_deterministic(
    n: int, data: st.DataObject
) -> None:
    header = _header(n, 3, data.draw(st.integers(1, 3)))
    game = Game.start(header)
    events: list[Event] = []
    for _ in range(data.draw(st.integers(0, 60))):
        if game.is_over:
            break
        if data.draw(st.integers(0, 3)) == 3:
            event: Event = data.draw(st.sampled_from([*_OTHER_EVENTS, EndGame()]))
        else:
            event = _legal_event(game, data, decide_ties=False)
        after, refused = game.apply(event)
        if refused is not None:
            assert after.state == game.state
        events.append(event)
        game = after
    assert replay(header, events).view() == game.view()
    for event in [*_OTHER_EVENTS, Throw((6, 6)), EndGame()]:
        after, refused = game.apply(event)
        if refused is not None:
            assert after.state == game.state


def test_r1_a_pair_is_unordered_and_only_of_die_values() -> None:
    from table.rules.pairs import Pair

    assert Pair.of(3, 6) == Pair.of(6, 3) == Pair(6, 3)
    assert Pair.of(3, 6).name == 63 and Pair.of(1, 2).is_mex and Pair.of(4, 4).is_double
    for a, b in ((0, 3), (7, 1), (3, -1), (2, 9)):
        with pytest.raises(ValueError, match="die values must be 1-6"):
            Pair.of(a, b)


def test_MX_6_the_next_active_player_is_after_the_seat_never_the_seat_itself() -> None:
    """MX-6's "the next active player after them": the seat given is not its own next,
    even when its player is still in (a round's loser with lives left)."""
    from table.rules._mexfamily import next_alive

    assert next_alive(1, [True, True, True]) == 2
    assert next_alive(2, [True, True, True]) == 0  # round the table
    assert next_alive(0, [True, False, True]) == 2  # past a player who is out
    assert next_alive(2, [False, True, False]) == 1
    assert next_alive(1, [False, True, False]) == 1  # alone in: nobody after
