"""mythical (RULES.md MY-1..MY-9, E-1): examples per rule and properties."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table.game import Game, GameHeader, SetupError, replay
from table.gamelog import parse_event
from table.rules.base import (
    Bids,
    EndGame,
    Event,
    EventKind,
    Hold,
    OptionError,
    Player,
    Refused,
    Roll,
    Stand,
    Throw,
)
from table.rules.mythical import (
    DEFAULT_BAG,
    FLAG,
    RULES,
    Bag,
    DieKind,
    MythicalRules,
    MythicalState,
    Phase,
    round_score,
)

NAMES = ("Ann", "Bob", "Cid", "Dan", "Eve", "Fay")


def header(n: int = 2, **options: Any) -> GameHeader:
    return GameHeader("mythical", tuple(Player(x) for x in NAMES[:n]), options)


def play(n: int, events: list[dict[str, Any]], **options: Any) -> Game:
    return replay(header(n, **options), [parse_event(e) for e in events])


def bids(**b: int) -> dict[str, Any]:
    return {"bids": b}


def roll(die: str, face: int | str) -> dict[str, Any]:
    return {"roll": {"die": die, "face": face}}


def c(name: str) -> dict[str, Any]:
    """A creature die showing its creature."""
    return roll(name, name)


def flag(die: str = "grey") -> dict[str, Any]:
    return roll(die, FLAG)


def last_reason(game: Game) -> str:
    assert game.refused, "nothing was refused"
    return game.refused[-1].reason


def one_trick(rolls: list[dict[str, Any]], bid: dict[str, int] | None = None) -> Game:
    """Round 1 of a 1-round game: Ann leads; the rolls in seat order."""
    n = len(rolls)
    b = bid if bid is not None else dict.fromkeys(NAMES[:n], 0)
    return play(n, [{"bids": b}, *rolls], rounds=1)


# ---------------------------------------------------------------------------
# MY-1 dice


def test_MY_1_default_bag_is_36_dice_of_seven_kinds() -> None:
    counts = {k.name: k.count for k in DEFAULT_BAG.kinds}
    assert counts == {
        "minotaur": 1,
        "griffin": 3,
        "mermaid": 2,
        "red": 7,
        "yellow": 7,
        "purple": 8,
        "grey": 8,
    }
    assert DEFAULT_BAG.size == 36
    assert DEFAULT_BAG.get("grey") == DieKind("grey", 8, (FLAG, FLAG, FLAG, 1, 1, 7))
    assert DEFAULT_BAG.get("mermaid") == DieKind("mermaid", 2, ("mermaid",) * 4 + (FLAG, FLAG))
    assert all(len(k.faces) == 6 for k in DEFAULT_BAG.kinds)


def test_MY_1_face_the_die_does_not_have_is_refused() -> None:
    g = play(2, [bids(Ann=0, Bob=0), roll("red", 3)])
    assert "red die has no face 3" in last_reason(g)
    g = play(2, [bids(Ann=0, Bob=0), roll("red", FLAG)])
    assert 'no face "flag"' in last_reason(g)
    g = play(2, [bids(Ann=0, Bob=0), roll("griffin", "mermaid")])
    assert 'griffin die has no face "mermaid"' in last_reason(g)
    assert g.view()["trick"] == []


def test_MY_1_die_and_face_names_in_any_case_with_spaces_around() -> None:
    g = play(2, [bids(Ann=0, Bob=1), roll(" Grey", "Flag "), roll("MERMAID", " Mermaid")])
    assert g.refused == ()
    assert g.view()["last_trick"]["rolls"] == [
        {"player": "Ann", "die": "grey", "face": "flag"},
        {"player": "Bob", "die": "mermaid", "face": "mermaid"},
    ]
    assert g.view()["last_trick"]["winner"] == "Bob"


def test_MY_1_a_number_face_written_as_text_is_refused_saying_so() -> None:
    """A face of "7" (text) is not the 7 of a red die: the reason must not read as if
    the die had no 7 while listing it among its faces."""
    g = play(2, [bids(Ann=0, Bob=0), roll("red", "7")])
    assert last_reason(g) == (
        'mythical: a red die has no face "7" (its faces: 5, 6, 7; '
        "a number face is written without quotes: 7)"
    )
    assert g.view()["trick"] == []
    g = play(2, [bids(Ann=0, Bob=0), roll("red", "3")])  # no 3 either way
    assert last_reason(g) == 'mythical: a red die has no face "3" (its faces: 5, 6, 7)'


def test_MY_1_unknown_die_is_refused() -> None:
    g = play(2, [bids(Ann=0, Bob=0), roll("blue", 3)])
    assert last_reason(g).startswith('mythical: unknown die "blue"')


@pytest.mark.parametrize(
    "event",
    [
        roll("blue\nred", 5),  # an unknown die
        roll("red", "5\n6"),  # a face the die does not have
        bids(**{"Ann\nBob": 0, "Ann": 0, "Bob": 0}),  # a bid for nobody playing
    ],
)
def test_MY_1_MY_3_a_refusal_naming_text_with_a_line_break_stays_one_line(
    event: dict[str, Any],
) -> None:
    """The reason is shown as one line (the display, the replay's list of refusals):
    text from the event is quoted as JSON, so a line break in it is written \\n."""
    events = [event] if "bids" in event else [bids(Ann=0, Bob=0), event]
    reason = last_reason(play(2, events))
    assert "\n" not in reason and "\\n" in reason, reason


def test_MY_1_second_minotaur_in_a_round_is_refused_and_bag_refills() -> None:
    g = play(2, [bids(Ann=1, Bob=1), c("minotaur"), flag("minotaur")], rounds=2)
    assert "only minotaur die" in last_reason(g)
    assert g.turn is not None and g.turn.player == "Bob"
    # Round 2: the bag is full again.
    g = play(
        2,
        [bids(Ann=1, Bob=0), c("minotaur"), roll("red", 5), bids(Ann=0, Bob=0), c("minotaur")],
        rounds=2,
    )
    assert g.refused == ()
    assert g.view()["dice_left"]["minotaur"] == 0


def test_MY_1_fourth_griffin_in_a_round_is_refused() -> None:
    g = play(4, [bids(Ann=0, Bob=0, Cid=0, Dan=0), c("griffin"), c("griffin"), c("griffin")])
    assert g.view()["dice_left"]["griffin"] == 0
    g2, refused = g.apply(Roll("griffin", FLAG))
    assert isinstance(refused, Refused)
    assert "all 3 griffin dice in the bag were already rolled in round 1" in refused.reason
    assert g2.state == g.state


def test_MY_1_another_bag_can_be_used() -> None:
    bag = Bag((DieKind("minotaur", 2, ("minotaur", FLAG)), DieKind("white", 4, (1, 2, 3))))
    rules = MythicalRules(bag)
    s = rules.start((Player("Ann"), Player("Bob")), {"rounds": 2})
    assert isinstance(rules.apply(s, Roll("red", 5)), Refused)
    s1 = rules.apply(s, Bids((("Ann", 0), ("Bob", 1))))
    assert isinstance(s1, MythicalState)
    assert isinstance(rules.apply(s1, Roll("red", 5)), Refused)
    s2 = rules.apply(s1, Roll("minotaur", "minotaur"))
    assert isinstance(s2, MythicalState)
    s3 = rules.apply(s2, Roll("minotaur", "minotaur"))  # two minotaurs in this bag
    assert isinstance(s3, MythicalState)
    # equal creatures: the later roll (Bob) wins
    assert s3.last_trick is not None and s3.last_trick.winner == 1
    rules.start((Player("Ann"), Player("Bob")), {"rounds": 3})  # 6 dice: the whole bag
    with pytest.raises(OptionError, match="bag holds 6"):
        rules.start((Player("Ann"), Player("Bob")), {"rounds": 4})
    with pytest.raises(ValueError):
        DieKind("odd", 1, ("dragon",))


def test_MY_1_a_bag_die_named_with_capitals_is_rolled_by_that_name_in_any_case() -> None:
    bag = Bag((DieKind("Blue", 4, (1, 2, 3)), DieKind("minotaur", 1, ("minotaur", FLAG))))
    rules = MythicalRules(bag)
    s = rules.start((Player("Ann"), Player("Bob")), {"rounds": 1})
    s1 = rules.apply(s, Bids((("Ann", 0), ("Bob", 1))))
    assert isinstance(s1, MythicalState)
    s2 = rules.apply(s1, Roll("Blue", 3))
    assert isinstance(s2, MythicalState)
    s3 = rules.apply(s2, Roll("BLUE", 2))
    assert isinstance(s3, MythicalState)
    assert rules.dice_left(s3)["Blue"] == 2
    with pytest.raises(ValueError, match="one name"):
        Bag((DieKind("Blue", 1, (1,)), DieKind("blue", 1, (2,))))


# ---------------------------------------------------------------------------
# MY-2 rounds


@pytest.mark.parametrize(("n", "rounds"), [(2, 8), (3, 8), (4, 8), (5, 7), (6, 6)])
def test_MY_2_default_rounds_depend_on_players(n: int, rounds: int) -> None:
    g = Game.start(header(n))
    assert g.view()["rounds"] == rounds
    assert g.view()["round"] == 1


def test_MY_2_rounds_option_shortens_and_too_many_dice_is_an_error() -> None:
    assert Game.start(header(6, rounds=3)).view()["rounds"] == 3
    with pytest.raises(SetupError, match="bag holds 36"):
        Game.start(header(6, rounds=7))
    with pytest.raises(SetupError, match="rounds"):
        Game.start(header(2, rounds=9))


def test_MY_2_first_leader_of_round_r_is_seat_r_mod_n() -> None:
    # 3 players; Ann wins every trick she can, but round r starts at seat ((r-1) mod 3)+1.
    events: list[dict[str, Any]] = [bids(Ann=0, Bob=0, Cid=0), roll("red", 7), flag(), flag()]
    g = play(3, events, rounds=4)
    assert g.view()["leader"] == "Bob" and g.turn is not None and g.turn.player is None
    g = play(3, [*events, bids(Ann=0, Bob=0, Cid=0)], rounds=4)
    assert g.turn is not None and g.turn.player == "Bob"
    # round 2, two tricks won by Ann; round 3 still starts with Cid
    r2 = [bids(Ann=2, Bob=0, Cid=0), flag(), flag(), roll("red", 7), roll("red", 7), flag(), flag()]
    g = play(3, [*events, *r2, bids(Ann=0, Bob=0, Cid=0)], rounds=4)
    assert g.refused == ()
    assert g.view()["round"] == 3
    assert g.turn is not None and g.turn.player == "Cid"


# ---------------------------------------------------------------------------
# MY-3 bids


def test_MY_3_everybody_bids_at_once_within_0_to_r() -> None:
    g = Game.start(header(3, rounds=2))
    t = g.turn
    assert t is not None and (t.player, t.phase, t.trick) == (None, "bids", 0)
    assert g.view()["bids"] is None
    assert g.allowed == {EventKind.BIDS, EventKind.END_GAME}
    for bad, why in [
        (bids(Ann=2, Bob=0, Cid=0), "Ann bid 2, but round 1 allows 0 to 1 tricks"),
        (bids(Ann=0, Bob=-1, Cid=0), "Bob bid -1"),
        (bids(Ann=0, Bob=0), "no bid for Cid"),
        (bids(Ann=0, Bob=0, Cid=0, Zed=0), "Zed is not playing"),
        (roll("red", 5), "bids first"),
    ]:
        g2, refused = g.apply(parse_event(bad))
        assert isinstance(refused, Refused) and why in refused.reason
        assert g2.state == g.state
    g, refused = g.apply(parse_event(bids(Cid=1, Ann=0, Bob=1)))
    assert refused is None
    assert g.view()["bids"] == {"Ann": 0, "Bob": 1, "Cid": 1}
    g2, refused = g.apply(parse_event(bids(Ann=0, Bob=0, Cid=0)))
    assert isinstance(refused, Refused) and "already made" in refused.reason


def test_MY_3_duplicate_bid_is_refused() -> None:
    g = Game.start(header(2))
    _, refused = g.apply(Bids((("Ann", 0), ("Ann", 1), ("Bob", 0))))
    assert isinstance(refused, Refused) and "two bids for Ann" in refused.reason


# ---------------------------------------------------------------------------
# MY-4 a trick


def test_MY_4_leader_then_others_in_seat_order_colour_not_policed() -> None:
    g = play(3, [bids(Ann=0, Bob=0, Cid=1), flag(), flag(), roll("red", 7)], rounds=2)
    g, _ = g.apply(parse_event(bids(Ann=0, Bob=0, Cid=0)))
    order = []
    for ev in [roll("red", 5), roll("purple", 1), roll("yellow", 3)]:  # no colour followed
        t = g.turn
        assert t is not None and t.phase == "trick" and t.trick == 1
        order.append(t.player)
        g, refused = g.apply(parse_event(ev))
        assert refused is None
    assert order == ["Bob", "Cid", "Ann"]
    assert g.allowed == {EventKind.ROLL, EventKind.END_GAME}


def test_MY_4_other_event_kinds_are_refused() -> None:
    g = play(2, [bids(Ann=0, Bob=0)])
    # A mex throw of a 9 or a hold of a 7 is no event of this game either; "dice show 1
    # to 6" would be wrong here, where a red die shows 7.
    for ev in (Throw((3, 1)), Stand(), Throw((9, 2)), Hold(7), Stand(flag=False)):
        g2, refused = g.apply(ev)
        assert isinstance(refused, Refused) and "not part of Mythical Dice" in refused.reason
        assert g2.state == g.state


# ---------------------------------------------------------------------------
# MY-5 winner of a trick


@pytest.mark.parametrize(
    ("rolls", "winner"),
    [
        ([c("griffin"), c("minotaur")], "Bob"),  # minotaur beats griffin
        ([c("minotaur"), c("griffin")], "Ann"),
        ([c("mermaid"), c("griffin")], "Bob"),  # griffin beats mermaid
        ([c("mermaid"), c("minotaur")], "Ann"),  # mermaid beats minotaur
        ([c("mermaid"), roll("red", 7)], "Ann"),  # specials beat numbers
        ([roll("purple", 1), c("griffin"), roll("red", 7)], "Bob"),
        ([roll("red", 6), roll("purple", 3), roll("yellow", 4)], "Ann"),  # highest number
        ([roll("red", 5), roll("yellow", 5), roll("purple", 3)], "Bob"),  # tie: later
        ([roll("grey", 7), roll("red", 7)], "Bob"),  # colours do not matter
        ([c("griffin"), c("griffin"), roll("red", 7)], "Bob"),  # equal creatures: later
        ([c("minotaur"), c("griffin"), c("mermaid")], "Cid"),  # all three: mermaid
        ([c("mermaid"), c("minotaur"), c("griffin")], "Ann"),
        ([c("mermaid"), c("griffin"), c("minotaur"), c("mermaid")], "Dan"),
        ([flag(), roll("purple", 1), flag()], "Bob"),  # a flag counts 0
        ([flag(), flag("minotaur"), flag("mermaid")], "Ann"),  # all flags: leader
        ([flag("griffin"), flag()], "Ann"),
    ],
)
def test_MY_5_trick_winner(rolls: list[dict[str, Any]], winner: str) -> None:
    g = one_trick(rolls)
    assert g.refused == ()
    assert g.view()["last_trick"]["winner"] == winner
    assert g.view()["last_round"]["tricks_won"][winner] == 1


def test_MY_5_all_flags_leader_is_the_tricks_leader_not_seat_one() -> None:
    r1 = [bids(Ann=0, Bob=1), roll("red", 5), roll("red", 6)]
    g = play(2, [*r1, bids(Ann=0, Bob=0), roll("purple", 1), roll("red", 7), flag(), flag()])
    lt = g.view()["last_trick"]
    # round 2: Bob leads trick 1, Ann wins it and leads trick 2 of flags only
    assert (lt["trick"], lt["leader"], lt["winner"]) == (2, "Ann", "Ann")


# ---------------------------------------------------------------------------
# MY-6 the winner leads the next trick


def test_MY_6_trick_winner_leads_next() -> None:
    g = play(
        3,
        [
            bids(Ann=0, Bob=0, Cid=0),
            flag(),
            flag(),
            roll("red", 7),
            bids(Ann=1, Bob=0, Cid=1),
            roll("red", 5),  # Bob leads round 2
            roll("red", 6),  # Cid wins
            roll("purple", 1),
        ],
        rounds=3,
    )
    v = g.view()
    assert v["leader"] == "Cid"
    assert v["turn"] == {"player": "Cid", "phase": "trick", "trick": 2}
    assert v["tricks_won"] == {"Ann": 0, "Bob": 0, "Cid": 1}


# ---------------------------------------------------------------------------
# MY-7 score


@pytest.mark.parametrize(
    ("bid", "won", "r", "score"),
    [
        (2, 2, 3, 40),
        (1, 3, 3, -20),
        (3, 1, 3, -20),
        (0, 0, 5, 50),
        (0, 1, 5, -50),
        (0, 4, 5, -50),
        (1, 0, 1, -10),
    ],
)
def test_MY_7_round_score(bid: int, won: int, r: int, score: int) -> None:
    assert round_score(bid, won, r) == score


def test_MY_7_scores_added_at_the_end_of_the_round() -> None:
    g = play(3, [bids(Ann=0, Bob=1, Cid=1), roll("red", 6), flag(), roll("red", 7)], rounds=2)
    assert [p["points"] for p in g.view()["players"]] == [10, -10, 20]
    assert g.view()["last_round"]["scores"] == {"Ann": 10, "Bob": -10, "Cid": 20}
    # nothing is scored mid-round
    g, _ = g.apply(parse_event(bids(Ann=0, Bob=0, Cid=2)))
    g, _ = g.apply(parse_event(roll("red", 7)))
    assert [p["points"] for p in g.view()["players"]] == [10, -10, 20]


def test_MY_7_a_bid_of_every_trick_met_and_missed() -> None:
    # Round 2 (Bob leads): Ann bids both tricks and takes both; Bob bid 0 and took none.
    r1 = [bids(Ann=0, Bob=0), roll("yellow", 3), roll("yellow", 4)]  # Ann +10, Bob -10
    r2 = [bids(Ann=2, Bob=0), roll("red", 5), roll("red", 6), roll("red", 7), flag()]
    g = play(2, [*r1, *r2], rounds=2)
    assert g.refused == ()
    assert g.view()["last_round"]["scores"] == {"Ann": 40, "Bob": 20}
    assert [p["points"] for p in g.view()["players"]] == [50, 10]
    assert g.is_over and g.view()["winner"] == "Ann"
    # the same tricks with Bob bidding 2: he took none, -10 per trick missed
    r2 = [bids(Ann=2, Bob=2), roll("red", 5), roll("red", 6), roll("red", 7), flag()]
    g = play(2, [*r1, *r2], rounds=2)
    assert g.view()["last_round"]["scores"] == {"Ann": 40, "Bob": -20}
    assert g.view()["last_round"]["met"] == ["Ann"]


# ---------------------------------------------------------------------------
# MY-8 bonuses


def test_MY_8_mermaid_captures_minotaur_50_with_bid_met() -> None:
    g = one_trick([c("minotaur"), c("mermaid")], {"Ann": 0, "Bob": 1})
    assert g.view()["players"][1]["points"] == 20 + 50
    assert g.view()["last_round"]["bonuses"] == {"Ann": 0, "Bob": 50}


def test_MY_8_minotaur_captures_each_griffin_30() -> None:
    g = one_trick([c("griffin"), c("minotaur"), c("griffin")], {"Ann": 0, "Bob": 1, "Cid": 0})
    assert g.view()["last_trick"]["bonus"] == 60
    assert [p["points"] for p in g.view()["players"]] == [10, 80, 10]


def test_MY_8_no_bonus_with_a_flag_in_the_trick() -> None:
    g = one_trick([c("minotaur"), c("mermaid"), flag()], {"Ann": 0, "Bob": 1, "Cid": 0})
    assert g.view()["last_trick"]["bonus"] == 0
    assert g.view()["players"][1]["points"] == 20


def test_MY_8_no_bonus_with_bid_missed() -> None:
    g = play(
        2,
        [
            bids(Ann=1, Bob=0),
            roll("red", 7),
            roll("red", 5),
            bids(Ann=1, Bob=0),
            c("minotaur"),  # Bob leads round 2
            c("mermaid"),  # Ann captures it: +50 earned, but Ann bid 1 and wins 2
            roll("red", 7),
            roll("red", 5),
        ],
        rounds=2,
    )
    v = g.view()
    assert v["last_round"]["bonuses"] == {"Ann": 0, "Bob": 0}
    assert v["last_trick"]["winner"] == "Ann" and v["last_round"]["tricks_won"]["Ann"] == 2
    assert v["last_round"]["scores"] == {"Ann": -10, "Bob": 20}


def test_MY_8_no_bonus_for_other_captures() -> None:
    # griffin captures mermaid; minotaur captures nothing special from a number
    g = one_trick([c("mermaid"), c("griffin")], {"Ann": 0, "Bob": 1})
    assert g.view()["last_round"]["bonuses"]["Bob"] == 0
    g = one_trick([c("minotaur"), roll("red", 7)], {"Ann": 1, "Bob": 0})
    assert g.view()["last_round"]["bonuses"]["Ann"] == 0


# ---------------------------------------------------------------------------
# MY-9 winner


def test_MY_9_highest_total_wins() -> None:
    g = one_trick([roll("red", 7), roll("red", 5)], {"Ann": 1, "Bob": 0})
    assert g.is_over and g.outcome is not None
    assert (g.outcome.winner, g.outcome.draw) == ("Ann", False)
    assert g.turn is None and g.allowed == frozenset()


def test_MY_9_tie_for_highest_has_no_winner() -> None:
    g = one_trick([roll("red", 7), roll("red", 5), flag()], {"Ann": 1, "Bob": 1, "Cid": 1})
    # Ann +20, Bob -10, Cid -10: Ann wins
    assert [p["points"] for p in g.view()["players"]] == [20, -10, -10]
    assert g.view()["winner"] == "Ann"
    # Ann +10 then +20; Bob -10 then +40: 30 each
    g = play(
        2,
        [bids(Ann=0, Bob=0), roll("yellow", 3), roll("yellow", 4)]
        + [bids(Ann=0, Bob=2), c("griffin"), c("mermaid"), roll("red", 7), roll("grey", 1)],
        rounds=2,
    )
    assert [p["points"] for p in g.view()["players"]] == [30, 30]
    assert g.is_over and g.view()["winner"] is None and g.view()["draw"] is False
    assert g.outcome is not None and g.outcome.winner is None


# ---------------------------------------------------------------------------
# E-1 end_game


def test_E_1_end_game_ends_at_once_round_in_progress_not_scored() -> None:
    g = play(2, [bids(Ann=1, Bob=0), roll("red", 7), roll("red", 5), bids(Ann=2, Bob=0)])
    g, refused = g.apply(parse_event(roll("red", 7)))
    g, refused = g.apply(EndGame())
    assert refused is None and g.is_over
    v = g.view()
    assert v["over"] and v["winner"] == "Ann" and v["turn"] is None
    assert [p["points"] for p in v["players"]] == [20, 10]
    g, refused = g.apply(parse_event(roll("red", 5)))
    assert isinstance(refused, Refused) and refused.reason == "game over"


def test_E_1_end_game_on_a_tie_or_at_the_start_has_no_winner() -> None:
    g, refused = Game.start(header(3)).apply(EndGame())
    assert refused is None and g.is_over and g.view()["winner"] is None
    g = play(2, [bids(Ann=0, Bob=0), flag(), flag(), {"end_game": True}])
    # Ann led the flags-only trick and took it (bid 0 missed); round 1 was scored
    assert [p["points"] for p in g.view()["players"]] == [-10, 10]
    assert g.view()["winner"] == "Bob"
    g = play(2, [bids(Ann=1, Bob=1), roll("red", 7), roll("red", 5), {"end_game": True}])
    assert g.view()["players"][0]["points"] == 20


# ---------------------------------------------------------------------------
# Properties


def _legal_event(data: st.DataObject, game: Game) -> Event:
    state: MythicalState = game.state
    if state.phase is Phase.BIDS:
        r = state.round
        return Bids(
            tuple((p.name, data.draw(st.integers(0, r), label="bid")) for p in state.players)
        )
    left = RULES.dice_left(state)
    kinds = [k for k in DEFAULT_BAG.kinds if left[k.name] > 0]
    kind = data.draw(st.sampled_from(kinds), label="die")
    return Roll(kind.name, data.draw(st.sampled_from(kind.distinct_faces), label="face"))


JUNK = st.one_of(
    st.builds(
        Roll,
        st.sampled_from(["red", "grey", "minotaur", "blue", "Mermaid"]),
        st.one_of(
            st.integers(-1, 9), st.sampled_from(["flag", "griffin", "minotaur", "mermaid", "x"])
        ),
    ),
    st.builds(
        Bids,
        st.lists(st.tuples(st.sampled_from([*NAMES, "Zed"]), st.integers(-2, 9)), max_size=7).map(
            tuple
        ),
    ),
    st.builds(Throw, st.tuples(st.integers(1, 6), st.integers(1, 6))),
    st.just(Stand()),
)


def _game_length(n: int, rounds: int) -> int:
    return sum(1 + n * r for r in range(1, rounds + 1))


@st.composite
def setups(draw: st.DrawFn) -> tuple[int, int | None]:
    n = draw(st.integers(2, 6))
    top = min(8, 36 // n)
    rounds = draw(st.one_of(st.none(), st.integers(1, top)))
    return n, rounds


def _start(n: int, rounds: int | None) -> Game:
    return Game.start(header(n) if rounds is None else header(n, rounds=rounds))


@settings(max_examples=120, deadline=None)
@given(setup=setups(), data=st.data())
def test_property_legal_games_end_after_a_fixed_number_of_events(
    setup: tuple[int, int | None], data: st.DataObject
) -> None:
    """Every setting allowed (2-6 players, any rounds the bag can serve): a game
    of legal events only ends after exactly sum(1 + n*r) events, with MY-2/MY-6/
    MY-7 invariants holding at every trick and round end."""
    n, rounds = setup
    game = _start(n, rounds)
    total = game.view()["rounds"]
    steps = 0
    while not game.is_over:
        assert steps < _game_length(n, total)
        before = game.view()
        game, refused = game.apply(_legal_event(data, game))
        assert refused is None
        steps += 1
        after = game.view()
        assert all(v >= 0 for v in after["dice_left"].values())
        if after["last_round"] != before["last_round"]:
            lr = after["last_round"]
            r = lr["round"]
            assert sum(lr["tricks_won"].values()) == r
            for i, name in enumerate(NAMES[:n]):
                gained = after["players"][i]["points"] - before["players"][i]["points"]
                bid, won, bonus = lr["bids"][name], lr["tricks_won"][name], lr["bonuses"][name]
                assert gained == lr["scores"][name] == round_score(bid, won, r) + bonus
                assert bonus >= 0 and (bonus == 0 or (bid == won and bid > 0))
            if not game.is_over:
                assert after["turn"]["phase"] == "bids"
                assert game.state.leader == r % n  # MY-2 for round r+1
        elif after["last_trick"] != before["last_trick"] and not game.is_over:
            assert after["leader"] == after["last_trick"]["winner"]  # MY-6
            assert after["turn"]["player"] == after["leader"]
            assert len(after["last_trick"]["rolls"]) == n
    assert steps == _game_length(n, total)
    outcome = game.outcome
    assert outcome is not None
    points = [p["points"] for p in game.view()["players"]]
    top = max(points)
    if points.count(top) == 1:
        assert outcome.winner == NAMES[points.index(top)]
    else:
        assert outcome.winner is None


@settings(max_examples=120, deadline=None)
@given(setup=setups(), data=st.data())
def test_property_refusals_change_nothing_and_replay_is_deterministic(
    setup: tuple[int, int | None], data: st.DataObject
) -> None:
    n, rounds = setup
    game = _start(n, rounds)
    events: list[Event] = []
    for _ in range(data.draw(st.integers(0, 80), label="length")):
        if game.is_over:
            break
        pick = data.draw(st.integers(0, 9), label="pick")
        if pick < 3:
            event: Event = data.draw(JUNK, label="junk")
        elif pick == 9 and data.draw(st.booleans(), label="end"):
            event = EndGame()
        else:
            event = _legal_event(data, game)
        new, refused = game.apply(event)
        if refused is not None:
            assert new.state == game.state
            assert refused.reason
        events.append(event)
        game = new
    again = replay(game.header, events)
    assert again.view() == game.view()
    assert again.state == game.state


def test_MY_3_a_refused_bid_names_a_player_on_one_line() -> None:
    """A player's name from a game log may hold a line break or an escape; a refused bid
    said it as it was and split the refusal (as an unknown name already did not)."""
    odd = "Ann\nBob"
    g = Game.start(GameHeader("mythical", (Player(odd), Player("Cid\x1b[2J")), {}))
    for bad in [
        {"bids": {odd: 2, "Cid\x1b[2J": 0}},
        {"bids": {odd: 0}},
        {"bids": {"Zed": 0}},
    ]:
        _, refused = g.apply(parse_event(bad))
        assert isinstance(refused, Refused)
        assert refused.reason.isprintable(), refused.reason
        assert '"Ann\\nBob"' in refused.reason or '"Cid\\u001b[2J"' in refused.reason


# ---------------------------------------------------------------------------
# Gaps found by changing the rules by hand (mutants): each test below fails with one


def test_MY_1_default_bag_number_faces_are_those_of_rules_md() -> None:
    """MY-1 [choice]: the number dice's faces as RULES.md lists them, every kind."""
    faces = {k.name: k.faces for k in DEFAULT_BAG.kinds}
    assert faces == {
        "minotaur": ("minotaur",) * 4 + (FLAG, FLAG),
        "griffin": ("griffin",) * 4 + (FLAG, FLAG),
        "mermaid": ("mermaid",) * 4 + (FLAG, FLAG),
        "red": (5, 5, 6, 6, 7, 7),
        "yellow": (3, 3, 4, 4, 5, 5),
        "purple": (1, 1, 2, 2, 3, 3),
        "grey": (FLAG, FLAG, FLAG, 1, 1, 7),
    }
    # and a roll is judged by them: a yellow 6 or a purple 4 is refused
    g = play(2, [bids(Ann=0, Bob=0), roll("yellow", 6)])
    assert last_reason(g) == "mythical: a yellow die has no face 6 (its faces: 3, 4, 5)"
    g = play(2, [bids(Ann=0, Bob=0), roll("purple", 4)])
    assert last_reason(g) == "mythical: a purple die has no face 4 (its faces: 1, 2, 3)"


def test_MY_1_a_third_mermaid_is_refused_saying_both_were_rolled() -> None:
    """MY-1: the bag holds two mermaids; the third of a round is refused, and the reason
    speaks of both dice, not of "the only mermaid die"."""
    g = play(3, [bids(Ann=0, Bob=0, Cid=0), c("mermaid"), c("mermaid"), c("mermaid")])
    assert last_reason(g) == (
        "mythical: all 2 mermaid dice in the bag were already rolled in round 1"
    )
    assert g.view()["dice_left"]["mermaid"] == 0
    assert g.turn is not None and g.turn.player == "Cid"


def test_MY_2_round_one_is_led_by_seat_one_from_the_start() -> None:
    """MY-2: while round 1 is being bid, the view already names seat 1 as its leader."""
    for n in (2, 3, 6):
        g = Game.start(header(n))
        assert g.view()["leader"] == "Ann"
        assert g.view()["turn"] == {"player": None, "phase": "bids", "trick": 0}


def test_MY_2_rounds_option_below_one_is_refused() -> None:
    """MY-2: any 1-8 rounds may be set; 0 rounds is not a game and is refused."""
    with pytest.raises(SetupError, match="rounds"):
        Game.start(header(2, rounds=0))
    with pytest.raises(SetupError, match="rounds"):
        Game.start(header(3, rounds=-1))
    assert Game.start(header(2, rounds=1)).view()["rounds"] == 1


def test_MY_8_a_bonus_of_a_round_whose_bid_was_missed_is_not_paid_later() -> None:
    """MY-8: the bonus earned in a trick counts only for its own round's bid; it is not
    carried into the next round, where the same player meets their bid."""
    r1 = [bids(Ann=0, Bob=0), c("minotaur"), c("mermaid")]  # Bob: +50 earned, bid 0 missed
    r2 = [bids(Ann=0, Bob=1), roll("red", 7), roll("red", 5), roll("red", 5), roll("red", 6)]
    g = play(2, [*r1, *r2], rounds=2)
    assert g.refused == ()
    v = g.view()
    # round 2: Bob led and took trick 1, Ann took trick 2; Bob met his bid of 1
    assert v["last_round"]["tricks_won"] == {"Ann": 1, "Bob": 1}
    assert v["last_round"]["bonuses"] == {"Ann": 0, "Bob": 0}
    assert v["last_round"]["scores"] == {"Ann": -20, "Bob": 20}
    # totals: round 1 gave Ann +10 and Bob -10 (his bonus lost with his bid missed)
    assert [p["points"] for p in v["players"]] == [-10, 10]


def test_E_1_the_rules_refuse_every_event_after_the_end_as_game_over() -> None:
    """E-1: after the last round (or end_game) the rules themselves, called without the
    Game wrapper (as a simulator does), refuse every event with "game over", bids
    included."""
    over = one_trick([roll("red", 7), roll("red", 5)], {"Ann": 1, "Bob": 0}).state
    ended = RULES.apply(RULES.start((Player("Ann"), Player("Bob")), {"rounds": 2}), EndGame())
    for state in (over, ended):
        assert isinstance(state, MythicalState) and state.phase is Phase.OVER
        for ev in (Bids((("Ann", 0), ("Bob", 0))), Roll("red", 5), EndGame()):
            assert RULES.apply(state, ev) == Refused("game over"), ev


@pytest.mark.parametrize(("die", "face"), [("red", 7.0), ("grey", 1.0), ("yellow", 5.0)])
def test_MY_1_a_number_face_given_as_a_float_is_refused(die: str, face: float) -> None:
    """MY-1: a face is a whole number or a name. 7.0 equals the red die's 7 in Python,
    but a roll of it, accepted, would be logged as a line no later start could read."""
    g = play(2, [bids(Ann=0, Bob=0)])
    g2, refused = g.apply(Roll(die, face))  # type: ignore[arg-type]  # what a caller may pass
    assert isinstance(refused, Refused)
    assert g2.state == g.state and g2.view()["trick"] == []


def test_MY_4_view_lists_the_rolls_of_the_trick_so_far() -> None:
    """MY-4: the display sees each roll of the trick as it is made, in order."""
    g = play(3, [bids(Ann=1, Bob=0, Cid=0), roll("red", 6)], rounds=2)
    assert g.view()["trick"] == [{"player": "Ann", "die": "red", "face": 6}]
    g, _ = g.apply(parse_event(c("griffin")))
    assert g.view()["trick"] == [
        {"player": "Ann", "die": "red", "face": 6},
        {"player": "Bob", "die": "griffin", "face": "griffin"},
    ]
    g, _ = g.apply(parse_event(flag()))  # the trick is full: a new one starts, empty
    assert g.view()["trick"] == []
    assert len(g.view()["last_trick"]["rolls"]) == 3


def test_MY_6_last_trick_keeps_its_round_once_the_next_round_starts() -> None:
    """MY-6: after a round's last trick the view's last_trick still says which round and
    trick it was, while ``round`` has moved on to the next one."""
    g = play(2, [bids(Ann=0, Bob=1), roll("red", 5), roll("red", 6)], rounds=3)
    v = g.view()
    assert v["round"] == 2 and v["turn"]["phase"] == "bids"
    assert (v["last_trick"]["round"], v["last_trick"]["trick"]) == (1, 1)
    assert v["last_round"]["round"] == 1
