"""CPU players of ``mex`` and ``mexen``: every answer is accepted in any state a
game can reach (also states only people make), each level plays as its module
docstring says, and ``hard``'s expected losses equal an exact count over the
21 outcomes of two dice done here independently."""

from __future__ import annotations

import random
from fractions import Fraction
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table.cpu import Level, ThrowAgain, decide, deciders, next_event, throw_event
from table.rules import get_rules
from table.rules.base import (
    Count,
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
from table.rules.pairs import RANK_ORDER, Pair
from tests.conftest import ALL_DICE, FixedRandom, played

LEVELS = [lv.value for lv in Level]
MEX = RANK_ORDER.index(21)


def _rank(name: int) -> int:
    return RANK_ORDER.index(name)


def _dice(name: int) -> tuple[int, int]:
    return name // 10, name % 10


# ---------------------------------------------------------------------------
# Any reachable state: people's moves mixed in


def _person_event(rules_name: str, state: Any, rng: random.Random, names: list[str]) -> Event:
    """A random event a person at the table could send now, accepted or not."""
    rules = get_rules(rules_name)
    kinds = sorted(rules.allowed(state) - {EventKind.END_GAME}, key=lambda k: k.value)
    kind = rng.choice(kinds)
    if kind is EventKind.THROW:
        if rules_name == "mexen" and state.phase.value == "tiebreak":
            return Throw((rng.randint(1, 6),))
        held = getattr(state, "held", None)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        return Throw(dice if held is None else (held, dice[1]))
    if kind is EventKind.STAND:
        return Stand()
    if kind is EventKind.END_ROUND:
        return EndRound()
    if kind is EventKind.COUNT:
        return Count(rng.choice(["mex", "pips"]))
    if kind is EventKind.HOLD:
        return Hold(rng.choice(state.holdable()))
    assert kind is EventKind.GIVE
    return Give(rng.choice(names))


def _walk(rules_name: str, n: int, options: dict[str, Any], seed: int, people: float) -> int:
    """Play one game where each step is a person's random move (chance
    ``people``) or a CPU's decision at a random level; at every state ask every
    seat that may decide, at every level, and apply each answer."""
    rules = get_rules(rules_name)
    names = [f"p{i}" for i in range(n)]
    state = rules.start(tuple(Player(name) for name in names), options)
    rng = random.Random(seed)
    for count in range(5000):
        if rules.outcome(state) is not None:
            return count
        seats = deciders(rules_name, state)
        assert seats and seats[-1] == state.current
        answers: list[Any] = []
        for seat in seats:
            for level in LEVELS:
                decision = decide(rules_name, level, state, random.Random(count), seat)
                again = decide(rules_name, level, state, random.Random(count), seat)
                assert decision == again, "a decision depends only on the state and the rng"
                if seat == seats[-1]:
                    assert decision is not None, (level, state)
                if decision is None:
                    continue
                event = decision
                if isinstance(decision, ThrowAgain):
                    dice = (rng.randint(1, 6), rng.randint(1, 6))
                    event = throw_event(rules_name, state, dice)
                    held = getattr(state, "held", None)  # MN-5: it stays lying
                    assert len(event.dice) == decision.dice + (held is not None), event
                after = rules.apply(state, event)
                assert not isinstance(after, Refused), (level, seat, event, after.reason)
                answers.append(after)
        if rng.random() < people:
            after = rules.apply(state, _person_event(rules_name, state, rng, names))
            if isinstance(after, Refused):
                continue
            state = after
        else:
            state = rng.choice(answers)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("rules_name", ["mex", "mexen"])
def test_every_answer_is_accepted_also_where_people_played(rules_name: str) -> None:
    """MX-1..MX-10, MN-1..MN-12: people end rounds (MX-7), choose ``pips``
    (MX-9), leave dice lying and give 31s (MN-5, MN-6) between the CPU's
    decisions; whatever state that makes, every level's answer is accepted."""
    options = {
        "mex": st.fixed_dictionaries(
            {"lives": st.sampled_from([1, 2, 3]), "max_throws": st.sampled_from([1, 2, 3])}
        ),
        "mexen": st.fixed_dictionaries(
            {
                "variant": st.sampled_from(["normal", "extreme"]),
                "rounds": st.integers(1, 3),
                "limit": st.sampled_from([0, 1, 6]),
                "stake": st.sampled_from(["points", "sips"]),
            }
        ),
    }[rules_name]

    @settings(
        max_examples=40,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        derandomize=True,
    )
    @given(
        n=st.integers(2, 5),
        options=options,
        seed=st.integers(0, 2**32),
        people=st.sampled_from([0.0, 0.3, 0.7]),
    )
    def check(n: int, options: dict[str, Any], seed: int, people: float) -> None:
        assert _walk(rules_name, n, options, seed, people) > 0

    check()


def test_MX_1_mex_with_99_lives_every_answer_is_accepted() -> None:
    """The edge of MX-1's lives: hard's loss cap (MX-5, lives) at its largest."""
    rules = get_rules("mex")
    state: Any = rules.start(tuple(Player(f"p{i}") for i in range(4)), {"lives": 99})
    rng = random.Random(3)
    for _ in range(400):
        for seat in deciders("mex", state):
            for level in LEVELS:
                d = decide("mex", level, state, random.Random(1), seat)
                if d is not None:
                    e = d if not isinstance(d, ThrowAgain) else Throw((rng.randint(1, 6), 3))
                    assert not isinstance(rules.apply(state, e), Refused)
        d = decide("mex", rng.choice(LEVELS), state, rng)
        assert d is not None
        event = Throw((rng.randint(1, 6), rng.randint(1, 6))) if isinstance(d, ThrowAgain) else d
        state = rules.apply(state, event)
    assert state.round > 10


# ---------------------------------------------------------------------------
# mex: each level as its docstring says


def _mex(first: list[int], later: list[int], throws: list[int], n: int = 4, **opts: Any) -> Any:
    """A mex state: the first player throws ``first`` and stands (MX-4: the
    others get that many throws), each later player throws one pair of
    ``later`` and stands, then the player on turn throws ``throws``."""
    rules = get_rules("mex")
    state: Any = rules.start(tuple(Player(f"p{i}") for i in range(n)), {"lives": 12} | opts)
    events: list[Event] = [Throw(_dice(p)) for p in first]
    if first and len(first) < state.config.max_throws:
        events.append(Stand())
    for p in later:
        events.append(Throw(_dice(p)))
        if len(first) > 1:
            events.append(Stand())
    events += [Throw(_dice(p)) for p in throws]
    return played("mex", state, *events)


def test_MX_3_MX_4_mex_normal_first_player_stands_on_a_double_and_on_61_at_its_second() -> None:
    for name in RANK_ORDER:
        first = decide("mex", "normal", _mex([], [], [name]), random.Random(0))
        assert first == (Stand() if _rank(name) >= _rank(11) else ThrowAgain()), name
        second = decide("mex", "normal", _mex([], [], [43, name]), random.Random(0))
        assert second == (Stand() if _rank(name) >= _rank(61) else ThrowAgain()), name


def test_MX_7_mex_normal_later_player_ends_the_round_once_safely_above_the_lowest() -> None:
    """Above the lowest pair with no Mexx yet: it ends the round (MX-7 (a));
    after a Mexx (no ending, MX-7) it stands; at or below the lowest it throws."""
    for name in RANK_ORDER:
        state = _mex([65, 65], [54], [name])
        if _rank(name) <= _rank(54):
            want: Any = ThrowAgain()
        elif name == 21:
            want = Stand()  # the Mexx it just threw forbids ending
        else:
            want = EndRound()
        assert decide("mex", "normal", state, random.Random(0)) == want, name
    after_mexx = _mex([65, 65], [21, 54], [63])
    assert decide("mex", "normal", after_mexx, random.Random(0)) == Stand()


def test_MX_7_mex_player_who_threw_last_ends_by_level() -> None:
    """MX-7 (b): before the next player's first throw the player who threw last
    may end the round. normal does when safely above the lowest; easy half the
    time its pair is 61 or better, whatever the others threw; hard when that costs
    it less: one life for certain, against its expected loss of standing, which a
    Mexx among the players to come can raise above one (``stand_loss``)."""
    from table.cpu.mex import RANK, stand_loss

    safe = _mex([54, 54], [62], [])  # p1 kept 62 above p0's 54
    under = _mex([62, 62], [54], [])  # p1 kept 54 below p0's 62 (but 54 < 61)
    risky = _mex([65, 65], [63], [])  # p1 kept 63 (61 or better) below p0's 65
    for state in (safe, under, risky):
        assert deciders("mex", state) == (1, 2)
        assert decide("mex", "hard", state, random.Random(0), 1) is None
    for later in (63, 54, 43, 42, 41, 32, 31):  # two players to come, two throws each
        state = _mex([65, 65], [later], [])
        loss = stand_loss(RANK[state.kept[-1]], 0, 0, 2, 2, 12)
        want = EndRound() if loss > 1 else None
        assert decide("mex", "hard", state, random.Random(0), 1) == want, (later, loss)
    assert decide("mex", "hard", _mex([65, 65], [31], []), random.Random(0), 1) == EndRound()
    assert decide("mex", "normal", safe, random.Random(0), 1) == EndRound()
    assert decide("mex", "normal", under, random.Random(0), 1) is None
    assert decide("mex", "normal", risky, random.Random(0), 1) is None
    assert decide("mex", "easy", risky, FixedRandom(0.4), 1) == EndRound()
    assert decide("mex", "easy", risky, FixedRandom(0.6), 1) is None
    assert decide("mex", "easy", under, FixedRandom(0.0), 1) is None
    # the first player who threw last may not end it: nobody is asked
    assert deciders("mex", _mex([54], [], [])) == (1,)


def test_MX_3_mex_easy_stands_on_61_unless_a_whim_and_sometimes_ends() -> None:
    for name in RANK_ORDER:
        state = _mex([65, 65], [], [name], n=3)
        usual = Stand() if _rank(name) >= _rank(61) else ThrowAgain()
        whim = ThrowAgain() if usual == Stand() else Stand()
        assert decide("mex", "easy", state, FixedRandom(0.7)) == usual, name
        assert decide("mex", "easy", state, FixedRandom(0.1)) == whim, name
        if usual == Stand() and name != 21:  # MX-7 (a) open: ends half the time
            assert decide("mex", "easy", state, FixedRandom(0.3)) == EndRound(), name


def test_MX_3_MX_7_mex_easy_whim_is_one_time_in_five_and_ending_half_the_time() -> None:
    """easy follows a whim exactly when its draw is below 1/5 (MX-3: the round's first
    player, who may not end, MX-7); it ends the round exactly when its draw is below 1/2
    and its pair is 61 or better, 61 included, on turn and as the player who threw last."""
    sixty_one = _rank(61)
    for name in RANK_ORDER:
        state = _mex([], [], [name])
        usual = Stand() if _rank(name) >= sixty_one else ThrowAgain()
        whim = ThrowAgain() if usual == Stand() else Stand()
        for draw in (0.0, 0.19):
            assert decide("mex", "easy", state, FixedRandom(draw)) == whim, (name, draw)
        for draw in (0.2, 0.3, 0.99):
            assert decide("mex", "easy", state, FixedRandom(draw)) == usual, (name, draw)
        if usual == Stand() and name != 21:  # MX-7 (a) open
            state = _mex([65, 65], [], [name], n=3)
            assert decide("mex", "easy", state, FixedRandom(0.49)) == EndRound(), name
            assert decide("mex", "easy", state, FixedRandom(0.5)) == Stand(), name
    last = _mex([65, 65], [61], [])  # MX-7 (b): p1 kept 61 below p0's 65
    assert deciders("mex", last) == (1, 2)
    assert decide("mex", "easy", last, FixedRandom(0.49), 1) == EndRound()
    assert decide("mex", "easy", last, FixedRandom(0.5), 1) is None


def test_MX_9_mex_a_player_outside_the_tiebreak_does_not_choose_the_counting() -> None:
    """MX-9: only the tie-break's last player chooses the counting; p1, not tied, asked
    anyway, lets the moment pass at every level and any whim."""
    state = played(
        "mex",
        get_rules("mex").start(tuple(Player(f"p{i}") for i in range(3)), {"lives": 5}),
        Throw((5, 4)),
        Stand(),
        Throw((6, 5)),
        Throw((5, 4)),
    )
    assert state.phase.value == "tiebreak" and deciders("mex", state) == (2, 0)
    for level in LEVELS:
        for draw in (0.0, 0.99):
            assert decide("mex", level, state, FixedRandom(draw), 1) is None, (level, draw)


def test_MX_9_mex_tiebreak_counting_by_level() -> None:
    """The tie-break's last player is asked before its first throw: easy asks
    for pips half the time; normal and hard leave it at mex; once chosen,
    or once thrown, nobody is asked again."""
    rules = get_rules("mex")
    state: Any = rules.start(tuple(Player(f"p{i}") for i in range(3)), {"lives": 5})
    for event in (Throw((5, 4)), Stand(), Throw((6, 5)), Throw((5, 4))):  # p0 and p2 tie
        state = rules.apply(state, event)
    assert state.phase.value == "tiebreak" and deciders("mex", state) == (2, 0)
    assert decide("mex", "easy", state, FixedRandom(0.4), 2) == Count("pips")
    assert decide("mex", "easy", state, FixedRandom(0.6), 2) is None
    for level in ("normal", "hard"):
        assert decide("mex", level, state, FixedRandom(0.0), 2) is None
    for level in LEVELS:
        assert decide("mex", level, state, FixedRandom(0.0)) == ThrowAgain()
    pips = rules.apply(state, Count("pips"))
    assert decide("mex", "easy", pips, FixedRandom(0.0), 2) is None
    thrown = rules.apply(state, Throw((2, 1)))
    assert deciders("mex", thrown) == (2,)


# ---------------------------------------------------------------------------
# mex hard: an exact count


_P = [Fraction(0)] * 21
for _a in range(1, 7):
    for _b in range(1, _a + 1):
        _P[Pair.of(_a, _b).rank] += Fraction(1 if _a == _b else 2, 36)


def _mex_penalty(mexx: int, lives: int) -> int:
    return min(1 if mexx == 0 else 2 * mexx, lives)  # MX-5, lives held at 0 (MX-6)


@cache
def _mex_later(r: int, limit: int) -> dict[tuple[int, int], Fraction]:
    """A later player who throws while not above ``r``: (-1 below / 0 equal /
    1 above, Mexx thrown) -> chance."""
    out: dict[tuple[int, int], Fraction] = {}

    def go(throw: int, mexx: int, chance: Fraction) -> None:
        for x in range(21):
            m = mexx + (x == MEX)
            if x > r or throw == limit:
                key = ((x > r) - (x < r), m)
                out[key] = out.get(key, Fraction(0)) + chance * _P[x]
            else:
                go(throw + 1, m, chance * _P[x])

    go(1, 0, Fraction(1))
    return out


def _mex_stand(
    r: int, lowest: int, count: int, mexx: int, after: int, limit: int, lives: int
) -> Fraction:
    if r > lowest:
        return Fraction(0)
    ways = {(count if r == lowest else 0, mexx): Fraction(1)}
    for _ in range(after):
        nxt: dict[tuple[int, int], Fraction] = {}
        for (tied, m), chance in ways.items():
            for (outcome, dm), p in _mex_later(r, limit).items():
                if outcome >= 0:
                    key = (tied + (outcome == 0), m + dm)
                    nxt[key] = nxt.get(key, Fraction(0)) + chance * p
        ways = nxt
    return sum((c * _mex_penalty(m, lives) / (t + 1) for (t, m), c in ways.items()), Fraction(0))


def _mex_exact(state: Any) -> tuple[Fraction, Fraction]:
    """Expected lives lost by standing now and by throwing again, playing on best."""
    ranks = [_rank(p) for p in state.kept]
    lowest = min(ranks, default=99)
    count = ranks.count(lowest)
    first = not state.kept
    after = len(state.order) - len(state.kept) - 1
    lives = state.lives[state.current]
    own = state.turn_limit

    @cache
    def stand(throws: int, r: int, mexx: int) -> Fraction:
        limit = throws if first else state.limit
        return _mex_stand(r, lowest, count, mexx, after, limit, lives)

    @cache
    def again(throws: int, mexx: int) -> Fraction:
        total = Fraction(0)
        for x in range(21):
            m = mexx + (x == MEX)
            best = stand(throws + 1, x, m)
            if throws + 1 < own:
                best = min(best, again(throws + 1, m))
            total += _P[x] * best
        return total

    r = _rank(state.pair)
    return stand(state.throws, r, state.mexx_total), again(state.throws, state.mexx_total)


@pytest.mark.parametrize(
    ("first", "later", "throws", "n", "lives"),
    [
        ([], [], [62], 3, 12),  # MX-4: standing after one throw limits the others to one
        ([], [], [43, 62], 3, 12),
        ([], [], [54], 2, 12),
        ([], [], [21, 62], 3, 1),  # MX-5 with one life: a Mexx costs no more than 1
        ([], [], [21, 62], 3, 3),
        ([61, 21, 62], [66], [62], 4, 4),  # a tie with the lowest, a Mexx thrown
        ([61, 21, 62], [66], [62], 4, 1),
        ([54, 54, 54], [43], [43], 4, 12),  # MX-8: a tie for the lowest
        ([61, 61], [], [53], 2, 2),  # the last player below the lowest
        ([61, 21, 62], [66], [42], 5, 7),
    ],
)
def test_MX_4_MX_5_MX_8_mex_hard_matches_an_exact_count(
    first: list[int], later: list[int], throws: list[int], n: int, lives: int
) -> None:
    state = _mex(first, later, throws, n=n, lives=lives)
    stand, again = _mex_exact(state)
    want = ThrowAgain() if again < stand else Stand()
    if stand != again:
        assert decide("mex", "hard", state, random.Random(0)) == want, (stand, again)


def test_MX_5_mex_hard_exact_count_where_the_lives_left_turn_the_choice() -> None:
    """A Mexx is thrown, so the loss is 2 or more (MX-5), but never more than
    the lives left: on 62 with one more player to come, standing is cheaper
    with three lives or fewer, throwing again with four or more."""
    for lives in (1, 2, 3, 4, 12):
        state = _mex([43, 21], [66], [62], n=4, lives=lives)
        assert state.mexx_total == 1 and state.throws == 1 and state.limit == 2
        stand, again = _mex_exact(state)
        want = ThrowAgain() if lives >= 4 else Stand()
        assert (again < stand) == (lives >= 4), (lives, stand, again)
        assert decide("mex", "hard", state, random.Random(0)) == want, lives


# ---------------------------------------------------------------------------
# mexen: each level as its docstring says


def _mexen(before: list[tuple[int, int]], throws: list[tuple[int, int]], n: int = 3) -> Any:
    """A mexen state: earlier players each throw one pair three times (or once
    for a Mex or 32, MN-3), then the player on turn throws ``throws``."""
    rules = get_rules("mexen")
    state: Any = rules.start(tuple(Player(f"p{i}") for i in range(n)), {"rounds": 2})
    for dice in before:
        start = state.done
        while state.done == start:
            state = rules.apply(state, Throw(dice))
    for dice in throws:
        state = rules.apply(state, Throw(dice))
    assert not isinstance(state, Refused), state
    return state


def test_MN_5_MN_8_mexen_normal_never_a_one_a_six_at_the_last_throw_else_a_two() -> None:
    """normal's rule of thumb: no 1 left lying (a double 1 makes the pirate, MN-8); a 6
    before the throw that counts; else a 2 for a chance at Mex; else the highest die."""
    for throws, want in (
        ([(6, 2)], Hold(2)),  # two throws to go: a chance at Mex
        ([(3, 3), (6, 2)], Hold(6)),  # the next throw counts: a high score
        ([(5, 2)], Hold(2)),
        ([(3, 3), (5, 2)], Hold(2)),
        ([(5, 6)], Hold(6)),
        ([(5, 4)], Hold(5)),
        ([(4, 3)], Hold(4)),
        ([(3, 3)], Hold(3)),
        ([(1, 5)], Hold(5)),
        ([(3, 3), (6, 1)], Hold(6)),
        ([(1, 1)], ThrowAgain()),
    ):
        state = _mexen([], throws)
        assert decide("mexen", "normal", state, random.Random(0)) == want, throws
    # from the previous player's last throw, before its own first (MN-5)
    state = _mexen([(6, 4)], [])
    assert state.throw == 0 and decide("mexen", "normal", state, random.Random(0)) == Hold(6)
    state = _mexen([(4, 1)], [])
    assert decide("mexen", "normal", state, random.Random(0)) == Hold(4)


def test_MN_5_mexen_a_die_that_lay_is_not_left_lying_again() -> None:
    rules = get_rules("mexen")
    state = rules.apply(rules.apply(_mexen([], [(6, 2)]), Hold(6)), Throw((6, 4)))
    assert not isinstance(state, Refused) and state.holdable() == (4,)
    for level in LEVELS:
        d = decide("mexen", level, state, FixedRandom(0.0))
        assert d in (ThrowAgain(), Hold(4)), level
    assert decide("mexen", "normal", state, random.Random(0)) == Hold(4)  # not the 6 again


def test_MN_5_mexen_easy_chases_mex_half_the_time() -> None:
    state = _mexen([], [(1, 5)])
    assert decide("mexen", "easy", state, FixedRandom(0.4)) == Hold(1)
    assert decide("mexen", "easy", state, FixedRandom(0.6)) == ThrowAgain()
    assert decide("mexen", "easy", state, FixedRandom(0.49)) == Hold(1)  # half: below 1/2
    assert decide("mexen", "easy", state, FixedRandom(0.5)) == ThrowAgain()
    assert decide("mexen", "easy", _mexen([], [(6, 2)]), FixedRandom(0.4)) == Hold(2)
    assert decide("mexen", "easy", _mexen([], [(6, 4)]), FixedRandom(0.0)) == ThrowAgain()


def test_MN_6_mexen_31_goes_to_another_player_by_level() -> None:
    """easy gives to anybody else, never itself; normal and hard to the other
    player with the fewest points (the first after the thrower on a tie)."""
    rules = get_rules("mexen")
    state: Any = rules.start(tuple(Player(f"p{i}") for i in range(4)), {"rounds": 2})
    for event in (Throw((1, 3)), Give("p2"), Throw((3, 1))):  # p2 holds a point
        state = rules.apply(state, event)
    assert state.phase.value == "give" and state.current == 0
    for level in ("normal", "hard"):
        assert decide("mexen", level, state, random.Random(0)) == Give("p1")
    given_to = {decide("mexen", "easy", state, random.Random(s)) for s in range(60)}
    assert given_to == {Give("p1"), Give("p2"), Give("p3")}


def test_MN_10_MN_12_mexen_tiebreak_and_extreme_have_no_decisions() -> None:
    rules = get_rules("mexen")
    tie: Any = rules.start((Player("a"), Player("b")), {"rounds": 1})
    for _ in range(6):
        tie = rules.apply(tie, Throw((6, 1)))
    assert tie.phase.value == "tiebreak"
    extreme: Any = rules.start((Player("a"), Player("b")), {"rounds": 1, "variant": "extreme"})
    extreme = rules.apply(extreme, Throw((2, 1)))  # a Mex: no end, no hold (MN-12)
    for level in LEVELS:
        assert decide("mexen", level, tie, FixedRandom(0.0)) == ThrowAgain(1)
        assert decide("mexen", level, extreme, FixedRandom(0.0)) == ThrowAgain()
    assert throw_event("mexen", tie, (4, 2)) == Throw((4,))


# ---------------------------------------------------------------------------
# mexen hard: an exact count


_R31, _R32 = _rank(31), _rank(32)


@cache
def _mexen_later(limit: int) -> tuple[Fraction, ...]:
    """A later player's final score (by rank): both dice every throw, a 31
    thrown again, Mex or 32 ends the turn (MN-3), the last throw counts."""
    one = [Fraction(0) if x == _R31 else _P[x] / (1 - _P[_R31]) for x in range(21)]
    out = [Fraction(0)] * 21
    going = Fraction(1)
    for throw in range(1, limit + 1):
        for x in range(21):
            if throw == limit or x in (MEX, _R32):
                out[x] += going * one[x]
        going *= 1 - one[MEX] - one[_R32]
    return tuple(out)


def _mexen_pot(r: int, mexes: int, lowest: int, count: int, after: int, limit: int) -> Fraction:
    """Expected pot taken ending on rank ``r`` (MN-7, MN-9; ties 1/k, MN-10)."""
    if r > lowest:
        return Fraction(0)
    ways = {(count if r == lowest else 0, mexes): Fraction(1)}
    final = _mexen_later(limit)
    for _ in range(after):
        nxt: dict[tuple[int, int], Fraction] = {}
        for (tied, m), chance in ways.items():
            for x in range(r, 21):
                key = (tied + (x == r), m + (x == MEX))
                nxt[key] = nxt.get(key, Fraction(0)) + chance * final[x]
        ways = nxt
    return sum((c * (1 + 3 * m) / (t + 1) for (t, m), c in ways.items()), Fraction(0))


def _mexen_exact(state: Any, future: Fraction = Fraction(0)) -> dict[int, Fraction]:
    """Expected points from the next throw on for each value that may be left
    lying now (0: throw both), playing on best; the pirate's own doubles cost it
    its multiplier (MN-8), and each multiplier it ends its turn with ``future``."""
    ranks = [p.rank for p in state.results]
    lowest = min(ranks, default=99)
    count = ranks.count(lowest)
    after = len(state.config.names) - state.done - 1
    others = state.round_limit or 3
    first = state.done == 0

    @cache
    def cost(throws: int, held: int, pirate: int, mexes: int) -> Fraction:
        if held:
            outcomes = [(held, d, Fraction(1, 6)) for d in range(1, 7)]
        else:
            outcomes = [
                (a, b, Fraction(1 if a == b else 2, 36))
                for a in range(1, 7)
                for b in range(1, a + 1)
            ]
        total, void = Fraction(0), Fraction(0)
        for a, b, p in outcomes:
            r = Pair.of(a, b).rank
            if r == _R31:  # MN-6: no count, nothing lies, both dice again
                if held:
                    total += p * cost(throws, 0, pirate, mexes)
                else:
                    void += p
                continue
            paid, mine = 0, pirate
            if a == b == 1:
                mine = pirate + 1
            elif a == b:
                paid = pirate
            done = throws + 1
            if r == MEX:
                limit = done if first and done < 3 else others  # MN-4
                value = _mexen_pot(r, mexes + 1, lowest, count, after, limit) + mine * future
            elif r == _R32 or done >= state.max_throws:
                value = _mexen_pot(r, mexes, lowest, count, after, others) + mine * future
            else:
                value = min(cost(done, h, mine, mexes) for h in {0, b} | (set() if held else {a}))
            total += p * (paid + value)
        return total / (1 - void)

    pirate = state.multiplier if state.pirate == state.current else 0
    return {h: cost(state.throw, h, pirate, state.mexes) for h in {0, *state.holdable()}}


@pytest.mark.parametrize(
    ("before", "throws", "n"),
    [
        ([(6, 5), (6, 1)], [(6, 1), (6, 1)], 3),  # last player, a tie on 61 to avoid
        ([], [(6, 1)], 3),  # first player: a 1 left lying chases Mex
        ([], [(2, 4)], 3),
        ([(6, 5), (2, 1)], [(4, 2)], 4),  # after a Mex: the pot is 4
        ([(2, 1), (4, 3), (6, 6)], [(5, 2)], 5),  # MN-4: one throw each after an early Mex
        ([(4, 3)], [(4, 1)], 2),
        ([(6, 5), (3, 2)], [], 3),  # before the first throw, from the previous 32
        ([(6, 1), (6, 1)], [(6, 1)], 3),  # MN-10: last player, two earlier on the lowest 61
    ],
)
def test_MN_3_MN_10_mexen_hard_matches_an_exact_count(
    before: list[tuple[int, int]], throws: list[tuple[int, int]], n: int
) -> None:
    from table.cpu.mexen import _context, throw_cost

    state = _mexen(before, throws, n)
    ctx = _context(state)
    exact = _mexen_exact(state, Fraction(ctx[-1]))
    pirate = state.multiplier if state.pirate == state.current else 0
    for h, value in exact.items():
        got = throw_cost(state.throw, h, pirate, state.mexes, ctx)
        assert got == pytest.approx(float(value), abs=1e-12), h
    best = min(sorted(exact), key=lambda h: exact[h])
    want = ThrowAgain() if best == 0 else Hold(best)
    assert decide("mexen", "hard", state, random.Random(0)) == want, exact


def test_MN_8_mexen_pirate_future_is_the_doubles_thrown_before_a_handover() -> None:
    """What a pirate multiplier left at a turn's end costs: each later counted throw is
    a double 2-6 with chance 5/34 (a point a multiplier) and, thrown by another player
    (a share (n-1)/n of the throws), a double 1 that ends it with chance 1/34."""
    from table.cpu.mexen import pirate_future

    for n in (2, 3, 6):
        assert pirate_future(n, None) == pytest.approx(5 * n / (n - 1))
        d, h = Fraction(5, 34), Fraction(n - 1, 34 * n)
        for throws in (0, 1, 7, 40):
            by_throw = sum((d * (1 - h) ** i for i in range(throws)), Fraction(0))
            assert pirate_future(n, throws) == pytest.approx(float(by_throw), abs=1e-12)
        assert pirate_future(n, 10_000) == pytest.approx(5 * n / (n - 1))


def test_MN_8_mexen_hard_leaves_no_1_lying_with_a_game_ahead() -> None:
    """A 1 left lying is a 1 in 6 chance of Mex, and as much of double 1: the pirate,
    who pays for every double thrown after, by anyone, until another player throws a
    double 1. Valued for its own turn only, hard left the 1 lying, and at four seats
    won less often than normal. With the game
    ahead it keeps the 6; with one round of two seats, the 1's chance of Mex is worth
    more than the few doubles left to pay for."""
    rules = get_rules("mexen")
    for rounds, want in ((0, Hold(6)), (20, Hold(6)), (1, Hold(1))):
        state: Any = rules.start((Player("a"), Player("b")), {"rounds": rounds})
        state = rules.apply(state, Throw((6, 1)))
        assert decide("mexen", "hard", state, random.Random(0)) == want, rounds


def test_MN_8_mexen_hard_pirate_counts_its_own_doubles() -> None:
    """The pirate at x2 with 11 lying after two throws: leaving a 1 lying risks
    another 11 (x3) and 1x pairs; the exact count and hard agree."""
    rules = get_rules("mexen")
    state: Any = rules.start(tuple(Player(f"p{i}") for i in range(3)), {"rounds": 2})
    state = rules.apply(rules.apply(state, Throw((1, 1))), Throw((1, 1)))
    assert state.pirate == 0 and state.multiplier == 2
    from table.cpu.mexen import _context

    exact = _mexen_exact(state, Fraction(_context(state)[-1]))
    best = min(exact, key=lambda h: exact[h])
    assert best == 1 and exact[1] < exact[0]
    assert decide("mexen", "hard", state, random.Random(0)) == Hold(1)


def test_MN_8_mexen_hard_pays_nothing_for_another_players_pirate() -> None:
    """MN-8: p0 is the pirate at x3; p1's doubles cost p1 nothing, so hard leaves a die
    lying, one of the cheapest by the exact count (reckoned as the pirate, it would throw
    both)."""
    from table.cpu.mexen import _context

    state = _mexen([(1, 1)], [(6, 4)])
    assert state.pirate == 0 and state.multiplier == 3 and state.current == 1
    exact = _mexen_exact(state, Fraction(_context(state)[-1]))
    cheapest = {h for h, value in exact.items() if value == min(exact.values())}
    assert cheapest == {4, 6}, exact  # 4 and 6 cost exactly the same here
    assert decide("mexen", "hard", state, random.Random(0)) in {Hold(h) for h in cheapest}


# -- contracts held by exact counts and by the API (seats, finished games)


def test_MX_7_next_event_a_person_who_may_end_does_not_stop_the_cpu_on_turn() -> None:
    """MX-7 (b): a person who may end the round does not keep the CPU on turn from throwing."""
    state = _mex([54, 54], [62], [])  # p1 kept 62 above p0's 54, p2 to throw
    assert deciders("mex", state) == (1, 2)
    players = (Player("p0"), Player("p1"), Player("p2", "normal"), Player("p3"))
    assert isinstance(next_event("mex", state, players, 5, 7), Throw)
    players = (Player("p0"), Player("p1", "normal"), Player("p2"), Player("p3"))
    assert next_event("mex", state, players, 5, 7) == EndRound()  # p1 ends, safely above


@pytest.mark.parametrize(
    ("first", "later", "throws", "n"),
    [
        ([54, 54], [54], [54], 3),  # MX-8: on the lowest with two earlier players on it
        ([54, 54], [54], [54], 4),
        ([62, 62], [62], [62], 3),
    ],
)
def test_MX_8_mex_hard_on_a_three_way_tie_matches_an_exact_count(
    first: list[int], later: list[int], throws: list[int], n: int
) -> None:
    """MX-8: on a pair tied with two earlier players, hard makes the cheaper choice by an exact
    count."""
    state = _mex(first, later, throws, n=n)
    assert state.kept.count(throws[0]) == 2
    stand, again = _mex_exact(state)
    assert stand != again
    want = ThrowAgain() if again < stand else Stand()
    assert decide("mex", "hard", state, random.Random(0)) == want, (stand, again)


@pytest.mark.parametrize("lives", [1, 2, 3, 4, 5, 7])
def test_MX_5_MX_6_mex_stand_loss_caps_each_mexx_count_by_the_lives_left(lives: int) -> None:
    """MX-5/MX-6: hard's expected loss of standing equals an exact count for odd and even lives."""
    from table.cpu.mex import stand_loss

    for r in (_rank(31), _rank(54), _rank(65)):
        for tied, mexx, after, limit in ((0, 0, 3, 3), (1, 0, 4, 2), (0, 1, 2, 3), (0, 2, 2, 1)):
            want = _mex_stand(r, r + (tied == 0), tied or 1, mexx, after, limit, lives)
            got = stand_loss(r, tied, mexx, after, limit, lives)
            assert got == pytest.approx(float(want), abs=1e-12), (r, tied, mexx, after, limit)


def test_MX_5_MX_6_mex_hard_reckons_with_its_own_lives_not_the_first_players() -> None:
    """MX-5/MX-6: hard caps a Mexx loss by its own lives left, not by the round's first player's."""
    rules = get_rules("mex")
    state = rules.start(tuple(Player(f"p{i}") for i in range(4)), {"lives": 4})
    state = played(
        "mex", state, Throw((6, 5)), Stand(), Throw((3, 1)), Throw((6, 6)), Throw((5, 5))
    )
    assert state.lives == (4, 3, 4, 4) and state.order == (1, 2, 3, 0)
    state = played(
        "mex", state, Throw((4, 3)), Throw((2, 1)), Stand(), Throw((6, 6)), Stand(), Throw((6, 2))
    )
    assert state.current == 3 and state.mexx_total == 1 and state.throws == 1
    stand, again = _mex_exact(state)
    assert again < stand
    assert decide("mex", "hard", state, random.Random(0)) == ThrowAgain()


@pytest.mark.parametrize("n", [3, 4, 5])
def test_MX_7_mex_hard_ender_counts_exactly_the_players_still_to_come(n: int) -> None:
    """MX-7 (b): hard ends the round when one life is cheaper than standing against the players
    still to come."""
    for later in (63, 54, 43, 42, 41, 32, 31):
        state = _mex([65, 65], [later], [], n=n, lives=3)
        assert deciders("mex", state) == (1, 2)
        loss = _mex_stand(_rank(later), _rank(65), 1, 0, n - 2, 2, 3)
        want = EndRound() if loss > 1 else None
        assert decide("mex", "hard", state, random.Random(0), 1) == want, (later, n, loss)


def test_MX_7_mex_hard_ender_tied_for_the_lowest_with_many_to_come_ends() -> None:
    """MX-7 (b): tied for the lowest with fourteen players to come, hard ends the round."""
    state = _mex([31, 31, 31], [31], [], n=16, lives=99)
    assert deciders("mex", state) == (1, 2)
    loss = _mex_stand(_rank(31), _rank(31), 1, 0, 14, 3, 99)
    assert loss > 1
    assert decide("mex", "hard", state, random.Random(0), 1) == EndRound()


def test_MX_7_MX_8_mex_hard_ender_tied_for_the_lowest_shares_the_loss_and_stands() -> None:
    """MX-7 (b), MX-8: tied with p0 on 42, one player to come, hard reckons a loss to
    share with p0 in a tie-break: below one life, so it does not end the round, though
    alone on 42 standing would cost more than one life."""
    state = _mex([43, 42], [42], [], n=3)
    assert deciders("mex", state) == (1, 2) and state.limit == 2
    tied = _mex_stand(_rank(42), _rank(42), 1, 0, 1, 2, 12)
    alone = _mex_stand(_rank(42), _rank(43), 1, 0, 1, 2, 12)
    assert tied < 1 < alone, (tied, alone)
    assert decide("mex", "hard", state, random.Random(0), 1) is None


def test_MX_7_mex_after_the_next_players_first_throw_only_they_decide() -> None:
    """MX-7 (b): the player who threw last may end the round only before the next
    player's first throw; once it is thrown, only the player on turn is asked."""
    state = _mex([54, 54], [62], [43])  # p2 has thrown once
    assert state.current == 2 and state.throws == 1
    assert deciders("mex", state) == (2,)
    for level in LEVELS:
        assert decide("mex", level, state, FixedRandom(0.0), 1) is None, level


def test_MX_6_MX_7_mex_hard_ender_reckons_with_its_own_lives_not_the_next_players() -> None:
    """MX-6, MX-7 (b): p2 (two lives) kept 31 below p1's 65, p3 (one life) is next. A
    Mexx to come could cost p2 two lives, so standing costs it more than the one life of
    ending: it ends. Reckoned with p3's one life, standing would look cheaper."""
    rules = get_rules("mex")
    state: Any = rules.start(tuple(Player(f"p{i}") for i in range(4)), {"lives": 2})
    state = played("mex", state, Throw((6, 5)), Stand(), Throw((6, 4)), Throw((6, 3)))
    state = played("mex", state, Throw((4, 3)), Throw((6, 5)), Stand(), Throw((6, 4)))
    state = played("mex", state, Throw((4, 3)), Throw((6, 3)), Throw((6, 5)), Stand())
    state = played("mex", state, Throw((3, 1)))
    assert state.lives == (2, 1, 2, 1) and state.order == (1, 2, 3, 0)
    assert state.kept == (65, 31) and deciders("mex", state) == (2, 3)
    assert _mex_stand(_rank(31), _rank(65), 1, 0, 2, 1, 2) > 1
    assert _mex_stand(_rank(31), _rank(65), 1, 0, 2, 1, 1) < 1
    assert decide("mex", "hard", state, random.Random(0), 2) == EndRound()


def test_MX_7_mex_normal_ender_tied_for_the_lowest_does_not_end() -> None:
    """MX-7 (b): normal, tied with the lowest pair, does not end the round."""
    state = _mex([54, 54], [54], [])
    assert deciders("mex", state) == (1, 2)
    assert decide("mex", "normal", state, random.Random(0), 1) is None


def test_MX_7_mex_nobody_but_the_player_who_threw_last_may_end() -> None:
    """MX-7: only the player who threw last may end the round, and nobody after a Mexx."""
    safe = _mex([54, 54], [62], [])  # p1 kept 62 above p0's 54
    after_mexx = _mex([54, 54], [21], [])  # p1 threw a Mexx: no ending this round
    assert deciders("mex", safe) == (1, 2)
    assert deciders("mex", after_mexx) == (2,)
    for level in LEVELS:
        for seat in (0, 3):
            assert decide("mex", level, safe, FixedRandom(0.0), seat) is None, (level, seat)
        for seat in (0, 1, 3):
            d = decide("mex", level, after_mexx, FixedRandom(0.0), seat)
            assert d is None, (level, seat, d)


def test_MX_9_mex_count_is_asked_only_before_the_tiebreaks_first_throw() -> None:
    """MX-9: the tie-break's last player is asked about the counting only before its first throw."""
    rules = get_rules("mex")
    state: Any = rules.start(tuple(Player(f"p{i}") for i in range(3)), {"lives": 5})
    state = played("mex", state, Throw((5, 4)), Stand(), Throw((5, 4)), Throw((5, 4)))
    assert state.phase.value == "tiebreak" and deciders("mex", state) == (2, 0)
    state = played("mex", state, Throw((6, 6)))
    assert state.phase.value == "tiebreak" and state.current == 1
    assert deciders("mex", state) == (1,)


def _counted_throws_per_turn() -> Fraction:
    """MN-3: the expected counted throws of a turn thrown with both dice every time:
    a 31 is thrown again (MN-6), a Mex or a 32 ends the turn, three at most."""
    counted = [Pair.of(a, b) for a, b in ALL_DICE if Pair.of(a, b).rank != _rank(31)]
    goes_on = Fraction(
        sum(1 for p in counted if p.rank not in (_rank(21), _rank(32))), len(counted)
    )
    return 1 + goes_on + goes_on**2


@pytest.mark.parametrize(
    ("n", "rounds", "throws"),
    [(2, 3, [(6, 1)]), (2, 3, [(1, 5)]), (3, 7, [(6, 1), (4, 4)]), (3, 7, [(6, 2), (4, 4)])],
)
def test_MN_8_mexen_hard_prices_the_pirate_by_the_throws_left_in_the_game(
    n: int, rounds: int, throws: list[tuple[int, int]]
) -> None:
    """MN-8: hard's hold is the cheapest by an exact count pricing the pirate by the game's expected
    throws left."""
    from table.cpu.mexen import pirate_future

    rules = get_rules("mexen")
    state: Any = rules.start(tuple(Player(f"p{i}") for i in range(n)), {"rounds": rounds})
    state = played("mexen", state, *(Throw(t) for t in throws))
    turns_left = (rounds - state.round) * n + n - state.done - 1
    left = float(turns_left * _counted_throws_per_turn())
    future = Fraction(round(pirate_future(n, left), 2))
    exact = _mexen_exact(state, future)
    ranked = sorted(exact, key=lambda h: (exact[h], h))
    assert exact[ranked[0]] < exact[ranked[1]]
    best = ranked[0]
    want: Any = ThrowAgain() if best == 0 else Hold(best)
    assert decide("mexen", "hard", state, random.Random(0)) == want, exact


def test_MN_4_mexen_hard_after_the_first_players_late_mex_reckons_with_its_limit() -> None:
    """MN-4: after the first player's Mex at its second throw, hard's expected points equal an exact
    count."""
    from table.cpu.mexen import _context, throw_cost

    rules = get_rules("mexen")
    state: Any = rules.start(tuple(Player(f"p{i}") for i in range(3)), {"rounds": 2})
    state = played("mexen", state, Throw((6, 4)), Throw((2, 1)))
    assert state.current == 1 and state.round_limit == 2 and state.throw == 0
    ctx = _context(state)
    exact = _mexen_exact(state, Fraction(ctx[-1]))
    assert set(exact) == {0, 1, 2}
    for h, value in exact.items():
        got = throw_cost(state.throw, h, 0, state.mexes, ctx)
        assert got == pytest.approx(float(value), abs=1e-12), h
