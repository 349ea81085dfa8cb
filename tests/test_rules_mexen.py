"""mexen (seed 003): one example test per rule MN-1..MN-12 and E-1, then properties."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table.game import Game, GameHeader, SetupError, replay
from table.gamelog import parse_event
from table.rules.base import (
    EndGame,
    Event,
    EventKind,
    Give,
    Hold,
    Player,
    Stand,
    Throw,
)
from table.rules.mexen import MexenState, Phase

NAMES3 = ("Ann", "Bob", "Cid")


def header(players: tuple[str, ...] = ("Ann", "Bob"), **options: Any) -> GameHeader:
    return GameHeader("mexen", tuple(Player(p) for p in players), options)


def play(events: list[Any], players: tuple[str, ...] = ("Ann", "Bob"), **options: Any) -> Game:
    """Replay events given as JSON-like data: [6, 3] is a throw, others are objects."""
    parsed = [parse_event({"throw": e} if isinstance(e, list) else e) for e in events]
    return replay(header(players, **options), parsed)


def view(game: Game) -> dict[str, Any]:
    return game.view()


def scores(game: Game) -> dict[str, int]:
    v = game.view()
    return {p["name"]: p.get("points", p.get("sips")) for p in v["players"]}


def reasons(game: Game) -> list[str]:
    return [r.reason for r in game.refused]


def state(game: Game) -> MexenState:
    assert isinstance(game.state, MexenState)
    return game.state


# ---------------------------------------------------------------------------
# MN-1 options


def test_MN_1_options_defaults_and_ending() -> None:
    g = play([])
    assert g.view()["players"][0] == {"name": "Ann", "points": 0, "out": False}
    assert g.view()["stake"] == "points" and g.view()["variant"] == "normal"
    sips = play([], stake="sips")
    assert sips.view()["players"][1] == {"name": "Bob", "sips": 0, "out": False}
    with pytest.raises(SetupError):
        play([], stake="beer")
    with pytest.raises(SetupError):
        play([], rounds=-1)
    with pytest.raises(SetupError):
        play([], players=("Ann",))
    # rounds=1: over after the first pot; rounds=0 goes on.
    one_round = [[6, 5], [5, 5], [4, 1], [6, 6], [6, 6], [6, 6]]
    assert play(one_round, rounds=1).is_over
    assert not play(one_round).is_over
    assert play(one_round).view()["round"] == 2
    # limit: checked after the pot; rounds and limit together, whichever first.
    assert play(one_round, limit=1).is_over
    assert not play(one_round, limit=2).is_over
    assert play(one_round, limit=2, rounds=1).is_over


def test_MN_1_MN_8_the_limit_ends_the_game_when_anyone_holds_it_not_only_the_loser() -> None:
    """MN-1: the game is over once *someone* holds the limit after a pot. The pirate's
    points (MN-8) can take a player who did not lose the round up to it: if only the
    pot's taker were checked, the game would go on past its end and Ann, already at
    the limit, would be made to play (and pay) another round."""
    # Ann becomes the pirate and ends on 63; Bob's doubles give her 1 + 1 (MN-8), and
    # his 32 ends his turn and loses the pot to him: Ann 2, Bob 1.
    g = play([[1, 1], [6, 3], [6, 3], [2, 2], [4, 4], [3, 2]], limit=2)
    assert reasons(g) == []
    assert g.view()["last_round"]["losers"] == ["Bob"]
    assert scores(g) == {"Ann": 2, "Bob": 1}
    assert g.is_over, "Ann holds the limit of 2: the game is over"
    assert g.view()["turn"] is None and g.view()["pot"] == 0
    assert g.outcome is not None and g.outcome.winner == "Bob"


def test_MN_1_limit_is_only_checked_after_a_pot() -> None:
    # The 31 gives Bob a point: limit 1 is reached, but only a pot ends the game.
    g = play([[3, 1], {"give": "Bob"}], limit=1)
    assert scores(g) == {"Ann": 0, "Bob": 1} and not g.is_over


# ---------------------------------------------------------------------------
# MN-2 scores


@pytest.mark.parametrize(
    ("low", "high"),
    [([3, 2], [4, 1]), ([6, 5], [1, 1]), ([5, 5], [6, 6]), ([6, 6], [2, 1]), ([4, 3], [5, 1])],
)
def test_MN_2_lowest_score_loses(low: list[int], high: list[int]) -> None:
    def turn(last: list[int], limit: int = 3) -> list[Any]:
        if sorted(last) in ([1, 2], [2, 3]) or limit == 1:
            return [last]  # Mex and 32 end the turn at once; a limit of 1 allows one throw
        return [[6, 4]] * (limit - 1) + [last]

    for first, second, loser in ((low, high, "Ann"), (high, low, "Bob")):
        ann = turn(first)
        limit = len(ann) if sorted(first) == [1, 2] else 3  # MN-4: Ann's Mex sets a limit
        g = play(ann + turn(second, limit), rounds=1)
        assert g.refused == ()
        assert g.view()["last_round"]["losers"] == [loser]
        kept = {s["name"]: s["score"] for s in g.view()["last_round"]["scores"]}
        assert kept["Ann"] != kept["Bob"]  # the two throws compared are the ones given


def test_MN_2_31_is_no_score() -> None:
    g = play([[6, 4], [3, 1], {"give": "Bob"}])
    assert g.view()["turn"] == {"player": "Ann", "throw": 1, "max_throws": 3}
    assert g.view()["phase"] == "throw"


def test_MN_2_shown_values() -> None:
    g = play([[6, 4], [6, 4], [4, 4], [2, 1]])
    assert g.view()["last_round"]["scores"] == [
        {"name": "Ann", "score": "400"},
        {"name": "Bob", "score": "MEX"},
    ]


# ---------------------------------------------------------------------------
# MN-3 three throws, the last counts, no standing


def test_MN_3_three_throws_last_counts_no_standing() -> None:
    g = play([[6, 6], {"stand": True}, [5, 5]])
    assert reasons(g) == ["mexen: standing early is not allowed"]
    assert g.view()["turn"] == {"player": "Ann", "throw": 2, "max_throws": 3}
    g = play([[6, 6], [5, 5], [4, 1], [4, 2], [4, 2], [4, 2]], rounds=1)
    assert g.view()["last_round"]["scores"][0] == {"name": "Ann", "score": "41"}
    assert g.view()["last_round"]["losers"] == ["Ann"]


def test_MN_3_mex_and_32_end_the_turn_at_once() -> None:
    g = play([[6, 6], [3, 2]])
    assert g.view()["turn"] == {"player": "Bob", "throw": 0, "max_throws": 3}
    g = play([[6, 6], [6, 6], [6, 4], [2, 1]])
    assert g.view()["round"] == 2  # Bob's Mex ended his turn and the round
    assert EventKind.STAND not in play([]).allowed


# ---------------------------------------------------------------------------
# MN-4 the first player's Mex limits the others


@pytest.mark.parametrize(("before", "limit"), [([], 1), ([[5, 4]], 2), ([[5, 4], [5, 4]], 3)])
def test_MN_4_first_player_mex_limits_later_players(before: list[Any], limit: int) -> None:
    g = play([*before, [2, 1]], players=NAMES3)
    assert g.view()["turn"] == {"player": "Bob", "throw": 0, "max_throws": limit}
    g = play([*before, [2, 1], *([[6, 5]] * limit)], players=NAMES3)
    assert g.view()["turn"] == {"player": "Cid", "throw": 0, "max_throws": limit}


def test_MN_4_a_later_mex_and_a_31_do_not_limit() -> None:
    g = play([[6, 5], [6, 5], [6, 5], [2, 1]], players=NAMES3)
    assert g.view()["turn"]["max_throws"] == 3
    # 31s do not count as throws: Mex after a 31 is still "on throw 1".
    g = play([[3, 1], {"give": "Bob"}, [2, 1]], players=NAMES3)
    assert g.view()["turn"] == {"player": "Bob", "throw": 0, "max_throws": 1}
    # A new round has no limit.
    g = play([[2, 1], [4, 1]])
    assert g.view()["round"] == 2
    assert g.view()["turn"] == {"player": "Bob", "throw": 0, "max_throws": 3}


def test_MN_4_MN_5_a_limited_player_may_leave_a_die_of_the_last_throw_lying() -> None:
    # Ann's Mex on throw 1 gives Bob and Cid one throw each; Bob leaves Ann's 1 lying.
    g = play([[2, 1], {"hold": 1}, [1, 5]], players=NAMES3)
    assert reasons(g) == []
    assert g.view()["turn"] == {"player": "Cid", "throw": 0, "max_throws": 1}
    g = play([[2, 1], {"hold": 1}, [1, 5], {"hold": 1}, {"hold": 5}, [5, 5]], players=NAMES3)
    assert reasons(g) == ["mexen: the 1 has lain for a throw already; it must be thrown"]
    assert g.view()["last_round"]["scores"] == [
        {"name": "Ann", "score": "MEX"},
        {"name": "Bob", "score": "51"},
        {"name": "Cid", "score": "500"},
    ]
    assert scores(g) == {"Ann": 0, "Bob": 4, "Cid": 0}
    assert g.view()["turn"] == {"player": "Bob", "throw": 0, "max_throws": 3}


# ---------------------------------------------------------------------------
# MN-5 holding


def test_MN_5_holding_within_a_turn() -> None:
    g = play([[6, 1], {"hold": 1}, [1, 2]])
    assert reasons(g) == []
    assert g.view()["turn"]["player"] == "Bob" and g.view()["pot"] == 4
    g = play([[6, 1], {"hold": 1}, [4, 3]])
    assert reasons(g) == ["mexen: the held die shows 1"]
    assert g.view()["held"] == 1
    g = play([[6, 1], {"hold": 1}, {"hold": 6}])
    assert reasons(g) == ["mexen: a 1 is already left lying (one die per throw)"]


def test_MN_5_one_hold_per_throw_so_hold_is_no_longer_offered() -> None:
    """MN-5: one ``hold`` per throw. Once a die is left lying the display must offer
    only the throw: offering "hold" again would invite a second hold the rules
    refuse, and the player would be shown a choice they do not have."""
    g = play([[6, 3]])
    assert EventKind.HOLD in g.allowed  # the 6 or the 3 may be left lying
    g = play([[6, 3], {"hold": 6}])
    assert reasons(g) == [] and g.view()["held"] == 6
    assert EventKind.HOLD not in g.allowed, "a second hold is refused: it is not offered"
    assert g.allowed == frozenset({EventKind.THROW, EventKind.END_GAME})
    assert reasons(play([[6, 3], {"hold": 6}, {"hold": 3}])) == [
        "mexen: a 6 is already left lying (one die per throw)"
    ]


def test_MN_5_a_die_lies_for_one_throw_only() -> None:
    g = play([[6, 1], {"hold": 1}, [1, 4], {"hold": 1}, {"hold": 4}, [4, 4]])
    assert reasons(g) == ["mexen: the 1 has lain for a throw already; it must be thrown"]
    # a double: the thrown one of the pair may lie
    g = play([[6, 1], {"hold": 1}, [1, 1], {"hold": 1}, [1, 2]])
    assert reasons(g) == []


def test_MN_5_next_player_may_hold_a_die_of_the_last_throw() -> None:
    g = play([[6, 5], [6, 4], [6, 1], {"hold": 1}, [2, 1]])
    assert reasons(g) == []
    assert g.view()["last_round"]["scores"] == [
        {"name": "Ann", "score": "61"},
        {"name": "Bob", "score": "MEX"},
    ]
    # only the re-thrown die of the previous player's last throw
    g = play([[6, 5], [6, 1], {"hold": 1}, [1, 5], {"hold": 1}])
    assert reasons(g) == ["mexen: the 1 has lain for a throw already; it must be thrown"]
    assert EventKind.HOLD in g.allowed


def test_MN_5_new_round_empty_table_and_no_hold_from_31() -> None:
    g = play([{"hold": 1}])
    assert reasons(g) == ["mexen: the table is empty: there is no die to leave lying"]
    assert EventKind.HOLD not in play([]).allowed
    g = play([[2, 1], [6, 4], {"hold": 4}])  # Bob (1 throw, MN-4) loses, starts round 2
    assert g.view()["round"] == 2 and g.view()["table"] == []
    assert reasons(g) == ["mexen: the table is empty: there is no die to leave lying"]
    after_31 = play([[3, 1], {"give": "Bob"}])
    assert EventKind.HOLD not in after_31.allowed  # HOLD is not offered, then refused
    assert state(after_31).holdable() == ()
    g = play([[3, 1], {"give": "Bob"}, {"hold": 1}])
    assert reasons(g) == ["mexen: nothing may be left lying from a 31; throw both dice"]
    g = play([[6, 3], {"hold": 4}])
    assert reasons(g) == ["mexen: no die showing 4 is lying on the table"]


# ---------------------------------------------------------------------------
# MN-6 31


def test_MN_6_31_give_first_and_does_not_count() -> None:
    g = play([[5, 2], [1, 3]], players=NAMES3)
    assert g.allowed == frozenset({EventKind.GIVE, EventKind.END_GAME})
    assert g.view()["turn"] == {"player": "Ann", "throw": 1, "max_throws": 3}
    g = play(
        [[5, 2], [1, 3], [6, 6], {"hold": 3}, {"give": "Ann"}, {"give": "Zed"}, {"give": "Cid"}],
        players=NAMES3,
    )
    assert reasons(g) == [
        "mexen: a 31 was thrown: first give its point to another player",
        "mexen: a 31 was thrown: first give its point to another player",
        "mexen: the 31 point goes to another player",
        "mexen: there is no player called 'Zed'",
    ]
    assert scores(g) == {"Ann": 0, "Bob": 0, "Cid": 1}
    # as often as it comes
    g = play([[3, 1], {"give": "Bob"}, [3, 1], {"give": "Bob"}, [3, 1], {"give": "Cid"}], NAMES3)
    assert scores(g) == {"Ann": 0, "Bob": 2, "Cid": 1}
    assert g.view()["turn"]["throw"] == 0
    assert reasons(play([{"give": "Bob"}])) == ["mexen: there is no 31 to hand out a point for"]


def test_MN_11_refusals_name_the_stake_the_game_is_played_for() -> None:
    """MN-11: read "point" for "sip" everywhere, so each mode names its own."""
    for stake in ("points", "sips"):
        one = stake[:-1]
        g = play(
            [[3, 1], {"hold": 1}, {"give": "Ann"}, {"give": "Bob"}, {"give": "Bob"}], stake=stake
        )
        assert reasons(g) == [
            f"mexen: a 31 was thrown: first give its {one} to another player",
            f"mexen: the 31 {one} goes to another player",
            f"mexen: there is no 31 to hand out a {one} for",
        ]
        g = play([[3, 1], {"give": "Bob"}], stake=stake, variant="extreme")
        assert reasons(g) == [
            f"mexen: in the extreme variant a 31 is thrown again, nobody gets a {one}"
        ]


def test_MN_6_end_game_before_the_give() -> None:
    g = play([[3, 1], {"end_game": True}])
    assert g.is_over and reasons(g) == []


def test_MN_6_a_31_on_the_last_throw_of_a_turn_is_thrown_again() -> None:
    g = play([[6, 4], [6, 4], [3, 1], {"give": "Bob"}])
    assert g.view()["turn"] == {"player": "Ann", "throw": 2, "max_throws": 3}
    g = play([[6, 4], [6, 4], [3, 1], {"give": "Bob"}, [5, 4]])
    assert g.view()["scores"] == [{"name": "Ann", "score": "54"}]
    assert g.view()["turn"] == {"player": "Bob", "throw": 0, "max_throws": 3}
    # also in a turn that MN-4 limits to one throw
    g = play([[2, 1], [1, 3], {"give": "Cid"}], players=NAMES3)
    assert g.view()["turn"] == {"player": "Bob", "throw": 0, "max_throws": 1}
    g = play([[2, 1], [1, 3], {"give": "Cid"}, [6, 6]], players=NAMES3)
    assert g.view()["turn"] == {"player": "Cid", "throw": 0, "max_throws": 1}
    assert scores(g) == {"Ann": 0, "Bob": 0, "Cid": 1}


# ---------------------------------------------------------------------------
# MN-7 Mex


def test_MN_7_mex_ends_the_turn_and_adds_3() -> None:
    g = play([[2, 1]], players=NAMES3)
    assert g.view()["pot"] == 4
    assert g.view()["turn"]["player"] == "Bob"
    g = play([[2, 1], [1, 2], [6, 5]], players=NAMES3)  # Cid has 1 throw (MN-4)
    assert g.view()["last_round"]["loss"] == 7
    assert scores(g) == {"Ann": 0, "Bob": 0, "Cid": 7}


# ---------------------------------------------------------------------------
# MN-8 the pirate


def test_MN_8_pirate_takes_for_every_later_double() -> None:
    g = play([[4, 4], [1, 1]], players=NAMES3, stake="sips")
    assert g.view()["pirate"] == {"name": "Ann", "multiplier": 1}
    assert scores(g) == {"Ann": 0, "Bob": 0, "Cid": 0}  # doubles before the pirate: nothing
    g = play([[1, 1], [6, 6], [5, 4], [3, 3]], players=NAMES3, stake="sips")
    assert scores(g) == {"Ann": 2, "Bob": 0, "Cid": 0}  # her own double too, any throw


def test_MN_8_multiplier_and_taking_over() -> None:
    g = play([[1, 1], [1, 1], [5, 4], [2, 2]], players=NAMES3)
    assert g.view()["pirate"] == {"name": "Ann", "multiplier": 2}
    assert scores(g)["Ann"] == 2
    g = play([[1, 1], [1, 1], [5, 4], [1, 1], [2, 2]], players=NAMES3)
    assert g.view()["pirate"] == {"name": "Bob", "multiplier": 1}
    assert scores(g) == {"Ann": 0, "Bob": 1, "Cid": 0}


def test_MN_8_each_double_1_of_the_pirate_adds_one_to_the_multiplier() -> None:
    """A third double 1 makes the pirate take three for a double, not four."""
    g = play([[1, 1], [1, 1], [1, 1], [2, 2]], players=NAMES3)
    assert g.view()["pirate"] == {"name": "Ann", "multiplier": 3}
    assert scores(g) == {"Ann": 3, "Bob": 0, "Cid": 0}


def test_MN_8_pirate_stays_across_rounds() -> None:
    g = play([[1, 1], [5, 4], [5, 4], [6, 4], [6, 4], [6, 4], [5, 5]])
    # round 1: Ann 54 < Bob 64, Ann takes 1; Ann starts round 2 and throws 55
    assert g.view()["round"] == 2
    assert g.view()["pirate"] == {"name": "Ann", "multiplier": 1}
    assert scores(g) == {"Ann": 2, "Bob": 0}


def test_MN_8_the_multiplier_stays_across_rounds_and_a_new_pirate_starts_at_1() -> None:
    # Round 1: Ann x2 (65); Bob takes over at x1 (64) and loses the pot.
    r1: list[Any] = [[1, 1], [1, 1], [6, 5], [1, 1], [6, 4], [6, 4]]
    g = play([*r1], stake="sips")
    assert g.view()["round"] == 2 and g.view()["pirate"] == {"name": "Bob", "multiplier": 1}
    # Round 2: Bob (x1) takes 1 for his own double; Ann's double 1 makes her pirate at x1
    # again (not x3), and her double 3 is 1 for her.
    g = play([*r1, [2, 2], [6, 4], [6, 4], [1, 1], [3, 3]], stake="sips")
    assert g.view()["pirate"] == {"name": "Ann", "multiplier": 1}
    assert scores(g) == {"Ann": 1, "Bob": 2}
    # A pirate who stays keeps the multiplier into the next round.
    g = play([[1, 1], [1, 1], [5, 4], [6, 4], [6, 4], [6, 4], [3, 3]])
    assert g.view()["round"] == 2 and g.view()["pirate"] == {"name": "Ann", "multiplier": 2}
    assert scores(g) == {"Ann": 1 + 2, "Bob": 0}


# ---------------------------------------------------------------------------
# MN-9 end of round


def test_MN_9_lowest_takes_pot_and_starts_next_round() -> None:
    g = play([[6, 6], [6, 6], [6, 6], [2, 1], [5, 4], [5, 4], [4, 3]], players=NAMES3)
    assert g.view()["round"] == 2
    assert scores(g) == {"Ann": 0, "Bob": 0, "Cid": 4}
    assert g.view()["pot"] == 1
    assert g.view()["turn"] == {"player": "Cid", "throw": 0, "max_throws": 3}
    assert g.view()["last_round"]["losers"] == ["Cid"]


# ---------------------------------------------------------------------------
# MN-10 ties


def test_MN_10_tie_one_die_highest_loses_repeat_among_tied() -> None:
    base: list[Any] = [[6, 5], [6, 5], [4, 1], [6, 6], [6, 6], [6, 6], [6, 5], [6, 5], [4, 1]]
    g = play(base, players=NAMES3)
    assert g.view()["phase"] == "tiebreak"
    assert g.view()["tiebreak"] == {"players": ["Ann", "Cid"], "dice": []}
    assert g.view()["turn"] == {"player": "Ann", "throw": 0, "max_throws": 1}
    g = play([*base, [6, 6], [6], [6], {"hold": 3}, [3], [5, 5], [5]], players=NAMES3)
    assert reasons(g) == [
        "mexen: tie-break: each tied player throws one die",
        "mexen: tie-break: throw one die, nothing is left lying",
        "mexen: tie-break: each tied player throws one die",
    ]
    assert scores(g) == {"Ann": 0, "Bob": 0, "Cid": 1}
    assert g.view()["turn"]["player"] == "Cid"
    assert g.view()["last_round"]["tiebreak"] == [
        [{"name": "Ann", "die": 6}, {"name": "Cid", "die": 6}],
        [{"name": "Ann", "die": 3}, {"name": "Cid", "die": 5}],
    ]
    g = play([[6, 4], [6, 4], [6, 4], [6]])
    assert reasons(g) == ["mexen: throw both dice (one die only in a tie-break)"]


def test_MN_9_MN_10_the_pot_shown_during_a_tie_break_is_the_round_s_pot() -> None:
    """MN-9/MN-10: the tie-break decides who takes the round's pot, Mexes included.
    The display must show that pot while the tied players throw: showing 1 would
    tell them they play for less than the loser will actually take."""
    # Ann's Mex (pot 1 + 3, MN-7) gives Bob and Cid one throw each (MN-4); both 32.
    g = play([[2, 1], [3, 2], [3, 2]], players=NAMES3)
    assert g.view()["phase"] == "tiebreak"
    assert g.view()["tiebreak"] == {"players": ["Bob", "Cid"], "dice": []}
    assert g.view()["pot"] == 4
    g = play([[2, 1], [3, 2], [3, 2], [5]], players=NAMES3)  # half-way through the pass
    assert g.view()["phase"] == "tiebreak" and g.view()["pot"] == 4
    g = play([[2, 1], [3, 2], [3, 2], [5], [2]], players=NAMES3)  # Bob's 5 is highest
    assert g.view()["last_round"]["loss"] == 4
    assert scores(g) == {"Ann": 0, "Bob": 4, "Cid": 0}


def test_MN_10_MN_1_a_tie_break_loser_takes_the_whole_pot_and_can_end_the_game() -> None:
    # Three Mexes (MN-4: one throw each after Ann's): pot 1 + 3*3 = 10, all tied.
    events: list[Any] = [[2, 1], [1, 2], [2, 1], [3], [5], [5], [6], [2]]
    g = play(events, players=NAMES3, limit=7)
    assert reasons(g) == []
    assert scores(g) == {"Ann": 0, "Bob": 10, "Cid": 0}
    assert g.view()["last_round"]["loss"] == 10 and g.view()["last_round"]["mexes"] == 3
    assert g.is_over and g.view()["pot"] == 0
    assert g.view()["winner"] is None  # Ann and Cid both hold the fewest


# ---------------------------------------------------------------------------
# MN-11 points


def test_MN_11_points_mode_most_points_is_last() -> None:
    g = play([[6, 6], [6, 6], [4, 1], [6, 6], [6, 6], [6, 4]], rounds=1)
    assert scores(g) == {"Ann": 1, "Bob": 0}
    assert g.outcome is not None and g.outcome.winner == "Bob"
    assert "points" in g.view()["players"][0]


# ---------------------------------------------------------------------------
# MN-12 extreme


def test_MN_12_extreme_three_throws_third_counts_pot() -> None:
    g = play([[2, 1], [3, 2], [4, 4]], variant="extreme")
    # Mex and 32 do not end the turn; pot 1 -> 2 (Mex) -> 2 (32) -> 6 (double 4)
    assert g.view()["pot"] == 6
    assert g.view()["turn"] == {"player": "Bob", "throw": 0, "max_throws": 3}
    g = play([[2, 1], [3, 2], [4, 4], [6, 5], [3, 1], [5, 5], [4, 3]], variant="extreme")
    # 65: 12, 31: nothing, double 5: 17; Bob 43 < Ann 400
    assert scores(g) == {"Ann": 0, "Bob": 17}
    assert g.view()["pot"] == 1 and g.view()["round"] == 2


def test_MN_12_extreme_order_no_hold_no_give() -> None:
    # double first then Mex: (1+2)*2 = 6; Mex first then double: 1*2+2 = 4
    assert play([[2, 2], [2, 1]], variant="extreme").view()["pot"] == 6
    assert play([[2, 1], [2, 2]], variant="extreme").view()["pot"] == 4
    g = play([[6, 1], {"hold": 1}, [3, 1], {"give": "Bob"}, [5, 4]], variant="extreme")
    assert reasons(g) == [
        "mexen: no dice may be left lying in the extreme variant",
        "mexen: in the extreme variant a 31 is thrown again, nobody gets a point",
    ]
    assert g.view()["turn"]["throw"] == 2
    assert EventKind.HOLD not in g.allowed


def test_MN_12_extreme_no_first_player_limit_and_pirate() -> None:
    g = play([[1, 1], [2, 1], [2, 1], [3, 3]], variant="extreme")
    assert g.view()["turn"] == {"player": "Bob", "throw": 1, "max_throws": 3}
    assert g.view()["pirate"] == {"name": "Ann", "multiplier": 1}
    assert scores(g) == {"Ann": 1, "Bob": 0}
    assert g.view()["pot"] == (1 + 1) * 2 * 2 + 3


def test_MN_12_extreme_tie() -> None:
    g = play([[6, 6], [6, 6], [4, 2], [5, 5], [5, 5], [4, 2], [2], [1]], variant="extreme")
    pot = 1 + 6 + 6 + 5 + 5
    assert scores(g) == {"Ann": pot, "Bob": 0}


def test_MN_12_extreme_a_31_on_the_third_throw_is_thrown_again() -> None:
    g = play([[6, 4], [6, 4], [3, 1]], variant="extreme")
    assert g.view()["turn"] == {"player": "Ann", "throw": 2, "max_throws": 3}
    assert g.allowed == frozenset({EventKind.THROW, EventKind.END_GAME})
    g = play([[6, 4], [6, 4], [3, 1], [5, 5]], variant="extreme")
    assert g.view()["scores"] == [{"name": "Ann", "score": "500"}]
    assert g.view()["pot"] == 1 + 5
    assert scores(g) == {"Ann": 0, "Bob": 0}


# ---------------------------------------------------------------------------
# E-1


def test_E_1_end_game_fewest_wins() -> None:
    g = play([[5, 4], [5, 4], [5, 4], [6, 4], [6, 4], [6, 4], {"end_game": True}, [6, 6]])
    assert g.is_over and g.outcome is not None and g.outcome.winner == "Bob"
    assert g.view()["turn"] is None and g.view()["over"] is True
    assert reasons(g) == ["game over"]
    g = play([{"end_game": True}])
    assert g.view()["winner"] is None and g.view()["draw"] is False
    assert g.allowed == frozenset()


# ---------------------------------------------------------------------------
# Properties


def legal_event(s: MexenState, rnd: random.Random) -> Event:
    """A random event the rules should accept now."""
    if s.phase is Phase.GIVE:
        others = [n for i, n in enumerate(s.config.names) if i != s.current]
        return Give(rnd.choice(others))
    if s.phase is Phase.TIEBREAK:
        return Throw((rnd.randint(1, 6),))
    holdable = s.holdable()
    if not s.config.extreme and s.held is None and holdable and rnd.random() < 0.3:
        return Hold(rnd.choice(holdable))
    a, b = rnd.randint(1, 6), rnd.randint(1, 6)
    if s.held is not None:
        a = s.held
    return Throw((a, b))


def any_event(rnd: random.Random) -> Event:
    """A random event of any type, legal or not."""
    pick = rnd.randrange(6)
    if pick == 0:
        return Throw((rnd.randint(0, 7),))
    if pick == 1:
        return Throw((rnd.randint(1, 6), rnd.randint(1, 6)))
    if pick == 2:
        return Hold(rnd.randint(0, 7))
    if pick == 3:
        return Give(rnd.choice(["Ann", "Bob", "Cid", "Dan", "Eve"]))
    if pick == 4:
        return Stand()
    return parse_event(rnd.choice([{"end_round": True}, {"count": "mex"}, {"stand": False}]))


options_st = st.fixed_dictionaries(
    {
        "variant": st.sampled_from(["normal", "extreme"]),
        "stake": st.sampled_from(["points", "sips"]),
        "rounds": st.integers(1, 3),
    }
)


def run(
    seed: int, n: int, options: dict[str, Any], noise: float, cap: int = 3000
) -> tuple[Game, list[Event]]:
    rnd = random.Random(seed)
    names = ("Ann", "Bob", "Cid", "Dan", "Eve")[:n]
    game = Game.start(header(names, **options))
    events: list[Event] = []
    while not game.is_over and len(events) < cap:
        event = any_event(rnd) if rnd.random() < noise else legal_event(state(game), rnd)
        before = game
        game, refused = game.apply(event)
        events.append(event)
        if refused is not None:
            assert game.state == before.state  # refusals change nothing
        check_invariants(before, game, event, refused is None)
    return game, events


def check_invariants(before: Game, after: Game, event: Event, accepted: bool) -> None:
    s0, s1 = state(before), state(after)
    n = len(s1.config.names)
    assert all(a >= b for a, b in zip(s1.scores, s0.scores, strict=True))
    gained = sum(s1.scores) - sum(s0.scores)
    if s1.phase is not Phase.OVER:
        assert 0 <= s1.throw <= s1.max_throws <= 3
        assert 0 <= s1.done < n or (s1.phase is Phase.TIEBREAK and s1.done == n)
        if not s1.config.extreme:
            assert s1.pot == 1 + 3 * s1.mexes
        assert s1.pot >= 1
        assert s1.held is None or s1.held in s1.holdable()
    if not accepted or isinstance(event, EndGame):
        assert gained == 0
        return
    if isinstance(event, Give):
        assert gained == 1
        return
    expected = 0
    if isinstance(event, Throw) and len(event.dice) == 2:
        a, b = event.dice
        if a == b and a != 1 and s0.pirate is not None:
            expected += s0.multiplier
    if s1.last_round is not s0.last_round:
        assert s1.last_round is not None
        expected += s1.last_round.loss
    assert gained == expected


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 5), options_st)
def test_property_games_with_rounds_end_and_replay_the_same(
    seed: int, n: int, options: dict[str, Any]
) -> None:
    """With ``rounds`` = R > 0 (either variant) a game of legal events ends: at most
    3 counted throws per player per round; only 31s and tie-break passes add more."""
    game, events = run(seed, n, options, noise=0.15)
    assert game.is_over
    counted = sum(
        1
        for e, r in zip(events, game_refusal_flags(game, events), strict=True)
        if isinstance(e, Throw) and len(e.dice) == 2 and sorted(e.dice) != [1, 3] and not r
    )
    assert counted <= 3 * n * options["rounds"]
    assert state(game).round == options["rounds"]
    again = replay(game.header, events)
    assert again.view() == game.view()
    assert again.state == game.state


def game_refusal_flags(game: Game, events: list[Event]) -> list[bool]:
    refused = {r.index for r in game.refused}
    return [i in refused for i in range(len(events))]


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 4), st.sampled_from(["normal", "extreme"]))
def test_property_limit_games_end(seed: int, n: int, variant: str) -> None:
    """With ``limit`` = L every pot adds at least 1, so at most n*(L-1)+1 rounds."""
    limit = 5
    game, _ = run(seed, n, {"variant": variant, "limit": limit}, noise=0.05)
    assert game.is_over
    s = state(game)
    assert max(s.scores) >= limit
    assert s.round <= n * (limit - 1) + 1


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 4))
def test_property_random_events_never_raise(seed: int, n: int) -> None:
    """Mostly noise, no end option: apply never raises, refusals change nothing."""
    game, events = run(seed, n, {"variant": "normal"}, noise=0.7, cap=150)
    assert replay(game.header, events).view() == game.view()
    v = game.view()
    if not game.is_over:
        assert v["turn"]["player"] in [p["name"] for p in v["players"]]
    assert all(p["out"] is False for p in v["players"])


def test_refused_events_leave_state_identical() -> None:
    g = play([[6, 1], {"hold": 1}])
    for bad in (Stand(), Hold(6), Throw((4, 3)), Give("Bob"), Throw((2,))):
        after, refused = g.apply(bad)
        assert refused is not None
        assert after.state is g.state


def test_MN_10_a_tie_break_die_must_be_a_die_value() -> None:
    """Straight through the rules, as a simulator calls them: a 9 is no die."""
    from table.rules.base import Refused, Throw, parse_options
    from table.rules.mexen import RULES

    options = parse_options(RULES.options, {}, "mexen")
    state = RULES.start((Player("Ann"), Player("Bob")), options)
    for dice in ((6, 4), (6, 4), (6, 4), (6, 4), (6, 4), (6, 4)):
        after = RULES.apply(state, Throw(dice))
        assert not isinstance(after, Refused), after
        state = after
    assert state.phase is Phase.TIEBREAK
    for bad in ((9,), (0,), (7,)):
        assert RULES.apply(state, Throw(bad)) == Refused(
            f"throw: die value {bad[0]} is not possible (dice show 1 to 6)"
        )
    assert isinstance(RULES.apply(state, Throw((3,))), MexenState)
