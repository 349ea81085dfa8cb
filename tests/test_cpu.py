"""CPU players (MC-6, and the mex/mexen decisions): legal, deterministic, and
``hard`` exactly optimal where the optimum can be worked out by hand."""

from __future__ import annotations

import random
from fractions import Fraction
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table import cli
from table.cpu import (
    Level,
    NoStrategy,
    ThrowAgain,
    decide,
    deciders,
    decision_rng,
    get_strategy,
    next_event,
    roll_dice,
    throw_event,
)
from table.cpu.dice import PAIR_PROB, PIPS_PROB
from table.cpu.simulate import wilson
from table.game import CPU_LEVELS, Game, GameHeader
from table.rules import get_rules
from table.rules.base import EndRound, Event, Give, Hold, Player, Refused, Stand, Throw
from table.rules.pairs import RANK_ORDER, Pair
from tests.conftest import ALL_DICE, FixedRandom, played

LEVELS = [lv.value for lv in Level]
OPTIONS: dict[str, Any] = {
    "mexico": st.fixed_dictionaries(
        {
            "lives": st.sampled_from([2, 3]),
            "max_throws": st.sampled_from([1, 2, 3]),
            "double_on_21": st.booleans(),
        }
    ),
    "mex": st.fixed_dictionaries(
        {"lives": st.integers(1, 4), "max_throws": st.sampled_from([1, 2, 3])}
    ),
    "mexen": st.fixed_dictionaries(
        {
            "variant": st.sampled_from(["normal", "extreme"]),
            "rounds": st.integers(1, 4),
            "stake": st.sampled_from(["points", "sips"]),
        }
    ),
}


def test_levels_are_the_games_levels() -> None:
    assert tuple(LEVELS) == CPU_LEVELS


# ---------------------------------------------------------------------------
# Dice and chances


def test_software_dice_are_a_pure_function_of_seed_and_index() -> None:
    rolls = [roll_dice(7, i) for i in range(2000)]
    assert rolls == [roll_dice(7, i) for i in range(2000)]
    assert all(1 <= a <= 6 and 1 <= b <= 6 for a, b in rolls)
    assert len(set(rolls)) == 36
    assert rolls[:50] != [roll_dice(8, i) for i in range(50)]
    # Pinned: a resumed game must roll the same dice after an upgrade too.
    assert [roll_dice(1, i) for i in range(4)] == [(5, 6), (1, 1), (6, 6), (4, 5)]


def test_decision_rng_is_private_and_repeatable() -> None:
    state = random.getstate()
    a = [decision_rng(3, 9).random() for _ in range(3)]
    assert len(set(a)) == 1 and decision_rng(3, 10).random() != a[0]
    assert random.getstate() == state


def test_pair_chances_are_exact() -> None:
    by_rank = [Fraction(0)] * 21
    for a in range(1, 7):
        for b in range(1, 7):
            by_rank[Pair.of(a, b).rank] += Fraction(1, 36)
    assert [float(f) for f in by_rank] == pytest.approx(PAIR_PROB, abs=1e-15)
    assert sum(PIPS_PROB) == pytest.approx(1.0)
    assert PIPS_PROB[7] == pytest.approx(6 / 36)


# ---------------------------------------------------------------------------
# Every decision is legal in every reachable state


def _play_checking(rules_name: str, levels: list[str], options: dict[str, Any], seed: int) -> int:
    """Play one game through the pure rules, asking every seat that may decide
    at every state and applying each answer to the state it was made for."""
    rules = get_rules(rules_name)
    players = tuple(Player(f"p{i}", lv) for i, lv in enumerate(levels))
    state = rules.start(players, options)
    rng = random.Random(seed)
    dice = random.Random(seed + 1)
    for count in range(20_000):
        if rules.outcome(state) is not None:
            return count
        seats = deciders(rules_name, state)
        assert seats, "a game in progress always has someone to decide"
        chosen = None
        for seat in seats:
            decision = decide(rules_name, levels[seat], state, rng, seat)
            if seat == seats[-1]:
                assert decision is not None, "the player on turn always decides"
            if decision is None:
                continue
            event: Event
            if isinstance(decision, ThrowAgain):
                event = throw_event(rules_name, state, (dice.randint(1, 6), dice.randint(1, 6)))
            else:
                event = decision
            after = rules.apply(state, event)
            assert not isinstance(after, Refused), (rules_name, event, after)
            if chosen is None:
                chosen = after
        assert chosen is not None
        state = chosen
    raise AssertionError("game did not end")


@pytest.mark.parametrize("rules_name", ["mexico", "mex", "mexen"])
def test_every_decision_is_legal(rules_name: str) -> None:
    @settings(
        max_examples=60,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        derandomize=True,
    )
    @given(
        levels=st.lists(st.sampled_from(LEVELS), min_size=2, max_size=5),
        options=OPTIONS[rules_name],
        seed=st.integers(0, 2**32),
    )
    def check(levels: list[str], options: dict[str, Any], seed: int) -> None:
        assert _play_checking(rules_name, levels, options, seed) > 0

    check()


@pytest.mark.parametrize("rules_name", ["mexico", "mex", "mexen"])
@pytest.mark.parametrize("level", LEVELS)
def test_each_level_plays_whole_games_legally(rules_name: str, level: str) -> None:
    options = {"mexico": {}, "mex": {"lives": 3}, "mexen": {"rounds": 5}}[rules_name]
    for seed in range(6):
        assert _play_checking(rules_name, [level] * 3, options, seed) > 0


# ---------------------------------------------------------------------------
# Same seed, same game


@pytest.mark.parametrize(
    ("rules_name", "options"),
    [("mexico", {}), ("mex", {"lives": 3}), ("mexen", {"rounds": 4})],
)
def test_same_seed_same_game(rules_name: str, options: dict[str, Any]) -> None:
    def log(seed: int) -> list[dict[str, Any]]:
        header = GameHeader(
            rules_name,
            (Player("Ann", "hard"), Player("Bob", "normal"), Player("Cy", "easy")),
            options,
            seed,
        )
        game = Game.start(header)
        events = []
        while not game.is_over:
            event = next_event(rules_name, game.state, header.players, seed, game.count)
            assert event is not None
            events.append(event)
            game, refused = game.apply(event)
            assert refused is None
        # A replay of the log needs no strategy and ends in the same state.
        replayed = Game.start(header).apply_all(events)
        assert replayed.view() == game.view()
        return [e.to_json() for e in events]

    assert log(5) == log(5)
    assert log(5) != log(6)


def test_next_event_waits_for_a_person() -> None:
    players = (Player("Ann"), Player("Cpu", "hard"))
    state = get_rules("mexico").start(players, {"lives": 3, "max_throws": 3})
    assert next_event("mexico", state, players, 1, 0) is None
    players = (Player("Cpu", "hard"), Player("Ann"))
    assert isinstance(next_event("mexico", state, players, 1, 0), Throw)


# ---------------------------------------------------------------------------
# hard: exact optimum in positions worked out by hand


def _mexico(kept: list[int], throws: int, pair: int, n: int = 3, **opts: Any) -> Any:
    """A mexico state: seats 0..n-1 in order, ``kept`` pairs of the first
    players, the player on turn with ``throws`` throws, the last one ``pair``."""
    rules = get_rules("mexico")
    options = {"lives": 3, "max_throws": 3, "double_on_21": True} | opts
    state = rules.start(tuple(Player(f"p{i}") for i in range(n)), options)
    for name in kept:
        state = rules.apply(state, Throw((name // 10, name % 10)))
        state = rules.apply(state, Stand())
    for _ in range(throws):
        state = rules.apply(state, Throw((pair // 10, pair % 10)))
    assert not isinstance(state, Refused)
    return state


def _hard(rules_name: str, state: Any) -> Any:
    return decide(rules_name, "hard", state, random.Random(0))


@pytest.mark.parametrize("lowest", [43, 54, 62, 65, 33])
def test_mexico_last_player_stands_above_the_lowest_and_throws_below(lowest: int) -> None:
    rank = RANK_ORDER.index(lowest)
    for pair in RANK_ORDER:
        state = _mexico([66, lowest], 1, pair)
        want = Stand() if RANK_ORDER.index(pair) > rank else ThrowAgain()
        assert _hard("mexico", state) == want, (lowest, pair)


def test_mexico_middle_player_above_the_lowest_stands() -> None:
    assert _hard("mexico", _mexico([52], 1, 53, n=4)) == Stand()
    assert _hard("mexico", _mexico([52], 1, 52, n=4)) == ThrowAgain()


def _two_player_first_mover_losses(r: int) -> tuple[Fraction, Fraction]:
    """mexico, 2 players, 2 throws, no doubling: the first player holds rank r
    after one throw. The second throws again while not above the first's
    pair. Loss of standing and of throwing again, by enumerating the dice."""
    p = [Fraction(0)] * 21
    for a in range(1, 7):
        for b in range(1, 7):
            p[Pair.of(a, b).rank] += Fraction(1, 36)

    def lose(mine: int) -> Fraction:
        # the second player ends strictly below ``mine`` only by throwing twice
        at_or_below = sum(p[: mine + 1], Fraction(0))
        below = sum(p[:mine], Fraction(0))
        return 1 - at_or_below * below

    return lose(r), sum((p[x] * lose(x) for x in range(21)), Fraction(0))


def test_mexico_first_of_two_minimises_the_loss_exactly() -> None:
    checked = 0
    for r, name in enumerate(RANK_ORDER):
        stand, again = _two_player_first_mover_losses(r)
        if stand == again:
            continue
        state = _mexico([], 1, name, n=2, max_throws=2, double_on_21=False)
        assert _hard("mexico", state) == (Stand() if stand < again else ThrowAgain()), name
        checked += 1
    assert checked == 21
    # e.g. 62: standing loses unless the other ends below it: 1 - 22/36 * 20/36
    assert _two_player_first_mover_losses(RANK_ORDER.index(62))[0] == Fraction(856, 1296)


def test_mexico_hard_with_one_throw_left_and_a_21_seen() -> None:
    # Last player, lowest kept 54, holding 54 (a tie loses, MC-3): throw again.
    assert _hard("mexico", _mexico([21, 54], 2, 54)) == ThrowAgain()


def _first_of_two_losses_at_63(doubled: int) -> tuple[Fraction, Fraction]:
    """mexico, 2 players, 3 throws, 21 doubling on: the first player holds 63 after
    two throws. The second throws again while not above the first's pair. Expected
    lives lost by standing and by the last throw, the doubled loss costing
    ``doubled``, by enumerating the dice."""
    dice = [(a, b) for a in range(1, 7) for b in range(1, 7)]

    def rank(a: int, b: int) -> int:
        return Pair.of(a, b).rank

    @cache
    def lose(mine: int, seen: bool, throws: int = 0) -> Fraction:
        total = Fraction(0)
        for a, b in dice:
            x = rank(a, b)
            saw = seen or Pair.of(a, b).is_mex
            if x > mine or throws == 2:
                total += 0 if x < mine else (doubled if saw else 1)
            else:
                total += lose(mine, saw, throws + 1)
        return total / 36

    stand = lose(Pair.of(6, 3).rank, False)
    again = sum((lose(rank(a, b), Pair.of(a, b).is_mex) for a, b in dice), Fraction(0)) / 36
    return stand, again


def test_MC_4_MC_6_mexico_hard_with_one_life_counts_a_doubled_loss_as_one() -> None:
    """With three lives a 21 costs 2, with one life only 1 (lives stop at 0): the
    cheaper play differs, and hard finds each."""
    rules = get_rules("mexico")
    players = (Player("Ann"), Player("Bob"))
    three = _mexico([], 2, 63, n=2)
    state = rules.start(players, {"lives": 2, "max_throws": 3, "double_on_21": True})
    for event in (Throw((3, 1)), Stand(), Throw((6, 6)), Stand(), Throw((6, 3)), Throw((3, 6))):
        state = rules.apply(state, event)
    assert not isinstance(state, Refused)
    assert state.lives == (1, 2) and state.current == 0 and state.throws == 2
    for lives_left, position, doubled in ((3, three, 2), (1, state, 1)):
        stand, again = _first_of_two_losses_at_63(doubled)
        want = Stand() if stand < again else ThrowAgain()
        assert _hard("mexico", position) == want, (lives_left, stand, again)
    assert _hard("mexico", three) != _hard("mexico", state)


def test_MC_3_mexico_hard_first_player_after_its_own_21_counts_every_loss_doubled() -> None:
    """MC-3: once a 21 was thrown this round (here by the first player itself, then
    thrown away for a 63), every loss of the round is doubled, also where nobody after
    throws a 21. hard stands on the 63 as the exact count says."""
    for lives in (2, 3):
        state = _mexico([], 0, 21, n=2, lives=lives)
        state = played("mexico", state, Throw((2, 1)), Throw((6, 3)))
        assert state.saw_21 and state.current == 0 and state.throws == 2
        stand, again = _mexico_exact(state)
        assert stand < again, (lives, stand, again)
        assert _hard("mexico", state) == Stand(), lives


def test_MC_6_mexico_normal_plays_its_rules_of_thumb() -> None:
    """First player: stands on a double or 21; on its second throw also on 61 or
    better. Later: stands once above the lowest pair kept so far, a tie throws again."""
    doubles_up = RANK_ORDER.index(11)
    sixty_one = RANK_ORDER.index(61)
    for rank, name in enumerate(RANK_ORDER):
        first = decide("mexico", "normal", _mexico([], 1, name), random.Random(0))
        assert first == (Stand() if rank >= doubles_up else ThrowAgain()), name
        second = decide("mexico", "normal", _mexico([], 2, name), random.Random(0))
        assert second == (Stand() if rank >= sixty_one else ThrowAgain()), name
        later = decide("mexico", "normal", _mexico([66, 52], 1, name), random.Random(0))
        assert later == (Stand() if rank > RANK_ORDER.index(52) else ThrowAgain()), name


def test_MC_6_mexico_easy_stands_on_61_unless_a_whim_turns_it() -> None:
    sixty_one = RANK_ORDER.index(61)
    for rank, name in enumerate(RANK_ORDER):
        state = _mexico([66], 1, name)
        usual = Stand() if rank >= sixty_one else ThrowAgain()
        whim = ThrowAgain() if usual == Stand() else Stand()
        assert decide("mexico", "easy", state, FixedRandom(0.5)) == usual, name
        assert decide("mexico", "easy", state, FixedRandom(0.1)) == whim, name


def _mex(kept: list[int], throws: int, pair: int, n: int = 3, lives: int = 12) -> Any:
    rules = get_rules("mex")
    state = rules.start(tuple(Player(f"p{i}") for i in range(n)), {"lives": lives})
    for i, name in enumerate(kept):
        # the first player stands after 3 throws so everybody has 3
        for _ in range(3 if i == 0 else 1):
            state = rules.apply(state, Throw((name // 10, name % 10)))
        if i > 0:
            state = rules.apply(state, Stand())
    for _ in range(throws):
        state = rules.apply(state, Throw((pair // 10, pair % 10)))
    assert not isinstance(state, Refused)
    return state


def test_mex_last_player_stands_above_and_throws_below_never_ends() -> None:
    for pair in RANK_ORDER:
        if pair == 21:
            continue  # a Mexx forbids end_round; covered by the rank rule
        state = _mex([66, 54], 1, pair)
        want = Stand() if RANK_ORDER.index(pair) > RANK_ORDER.index(54) else ThrowAgain()
        assert _hard("mex", state) == want, pair
        assert decide("mex", "normal", state, random.Random(0)) in (
            (EndRound(), Stand()) if want == Stand() else (ThrowAgain(),)
        )


def test_mex_tiebreak_count_is_left_at_mex_by_hard() -> None:
    rules = get_rules("mex")
    state = rules.start((Player("a"), Player("b")), {"lives": 5})
    for event in (Throw((5, 4)), Stand(), Throw((5, 4))):  # MX-4: limit 1
        state = rules.apply(state, event)
    assert not isinstance(state, Refused) and state.phase.value == "tiebreak"
    last = state.tiebreaks[-1].players[-1]
    assert deciders("mex", state) == (last, state.current)
    assert decide("mex", "hard", state, random.Random(0), last) is None
    assert decide("mex", "hard", state, random.Random(0)) == ThrowAgain()


def _mexen(results: list[tuple[int, int]], table: tuple[int, int], throws: int) -> Any:
    """A mexen state, 3 players: earlier players' final throws, then the player
    on turn with ``throws`` throws made, the last showing ``table``."""
    rules = get_rules("mexen")
    state = rules.start(tuple(Player(f"p{i}") for i in range(3)), {"rounds": 1})
    for dice in results:
        for _ in range(3):
            state = rules.apply(state, Throw(dice))
    for _ in range(throws):
        state = rules.apply(state, Throw(table))
    assert not isinstance(state, Refused)
    return state


def test_mexen_last_player_keeps_the_six_above_a_lowest_61() -> None:
    # Lowest so far 61; third throw to come with 6 and 1 lying. Holding the 6
    # loses only on another 1 (a tie, half the pot): 1/12. Anything else risks more.
    state = _mexen([(6, 5), (6, 1)], (6, 1), 2)
    assert _hard("mexen", state) == Hold(6)


def test_mexen_hard_gives_the_31_to_the_leader() -> None:
    rules = get_rules("mexen")
    state = rules.start(tuple(Player(n) for n in ("a", "b", "c")), {"rounds": 2})
    for event in (Throw((3, 1)), Give("b"), Throw((1, 3))):  # MN-6: b now holds 1
        state = rules.apply(state, event)
    assert not isinstance(state, Refused) and state.phase.value == "give"
    assert _hard("mexen", state) == Give("c")
    assert decide("mexen", "normal", state, random.Random(0)) == Give("c")


# ---------------------------------------------------------------------------
# dicetable simulate


def test_wilson_interval() -> None:
    ci = wilson(50, 100)
    assert ci.low == pytest.approx(0.4038, abs=1e-4)
    assert ci.high == pytest.approx(0.5962, abs=1e-4)


def test_simulate_smoke(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--rules", "mexico", "--players", "cpu:hard,cpu:easy", "--games", "40"]
    assert cli.main([*argv, "--seed", "3", "--option", "lives=2"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("mexico: 2 players, 40 games, seed 3")
    assert "lives=2" in lines[0]
    assert lines[2].split()[0] == "hard" and lines[3].split()[0] == "easy"
    assert "%  [" in lines[2]
    assert any(line.startswith("mean rounds per game: ") for line in lines)
    assert any(line.startswith("games per second: ") for line in lines)
    assert cli.main([*argv, "--seed", "3", "--option", "lives=2"]) == 0
    again = capsys.readouterr().out
    strip = [line for line in again.splitlines() if not line.startswith("games per second")]
    assert strip == [line for line in lines if not line.startswith("games per second")]


@pytest.mark.parametrize(
    "args",
    [
        ["--rules", "mythical", "--players", "cpu:hard,cpu:easy", "--games", "5"],
        ["--rules", "mexico", "--players", "cpu:godlike,cpu:easy", "--games", "5"],
        ["--rules", "mexico", "--players", "ann,cpu:easy", "--games", "5"],
        ["--rules", "mexico", "--players", "cpu:hard", "--games", "5"],
        ["--rules", "mexico", "--players", "bot:hard,cpu:easy", "--games", "5"],
        ["--rules", "mexico", "--players", "cpu:hard,cpu:easy", "--games", "0"],
        ["--rules", "mexico", "--players", "cpu:hard,cpu:easy", "--games", "many"],
        [
            "--rules",
            "mexico",
            "--players",
            "cpu:hard,cpu:easy",
            "--games",
            "5",
            "--option",
            "lives=5",
        ],
        ["--rules", "mexico", "--players", "cpu:hard,cpu:easy", "--games", "5", "--option", "x"],
        ["--rules", "mexen", "--players", "cpu:hard,cpu:easy", "--games", "5"],
        ["--players", "cpu:hard,cpu:easy", "--games", "5"],
        ["--rules", "mexico", "--players", "cpu:hard,cpu:easy", "--games", "5", "--bogus"],
        ["--rules", "mexico", "--games"],
    ],
)
def test_simulate_bad_arguments(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dicetable simulate: ") and err.count("\n") == 1


def test_simulate_help_shows_its_usage(capsys: pytest.CaptureFixture[str]) -> None:
    """`dicetable simulate --help` had no usage line (it was suppressed for the one-line
    errors, and --help with it), so it never said that --rules, --players and --games
    must all be given."""
    assert cli.main(["simulate", "--help"]) == 0
    out = capsys.readouterr().out
    assert "usage: dicetable simulate --rules R --players P --games N" in out


@pytest.mark.parametrize(
    ("rules_name", "option"), [("mex", "lives=2"), ("mexen", "rounds=3"), ("mexico", "lives=2")]
)
def test_simulate_every_rule_set(
    rules_name: str, option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--players", "cpu:hard,cpu:normal,cpu:easy", "--games", "12", "--option", option]
    assert cli.main(["simulate", "--rules", rules_name, *args]) == 0
    assert capsys.readouterr().out.count("%  [") == 3


def test_strategy_step_matches_decide() -> None:
    """The simulator's fast path makes the same decisions as ``decide``."""
    for rules_name, options in (("mexico", {}), ("mex", {"lives": 2}), ("mexen", {"rounds": 3})):
        rules = get_rules(rules_name)
        strategy = get_strategy(rules_name)
        levels = [Level.HARD, Level.NORMAL, Level.EASY]
        players = tuple(Player(f"p{i}", lv.value) for i, lv in enumerate(levels))
        state = rules.start(players, options)
        fast, slow = random.Random(4), random.Random(4)
        while rules.outcome(state) is None:
            event = strategy.step(levels, state, fast)
            expected: Event | None = None
            for seat in strategy.deciders(state):
                d = strategy.decide(levels[seat], state, seat, slow)
                if d is None:
                    continue
                if isinstance(d, ThrowAgain):
                    v = int(slow.random() * 36)
                    expected = strategy.throw_event(state, (v // 6 + 1, v % 6 + 1))
                else:
                    expected = d
                break
            assert event == expected
            state = rules.apply(state, event)


def test_mexen_lying_matches_the_rules_holdable() -> None:
    from table.cpu.mexen import lying

    rules = get_rules("mexen")
    strategy = get_strategy("mexen")
    levels = [Level.EASY, Level.HARD, Level.NORMAL]
    for seed in range(5):
        state = rules.start(tuple(Player(f"p{i}") for i in range(3)), {"rounds": 4})
        rng = random.Random(seed)
        while rules.outcome(state) is None:
            assert lying(state) == state.holdable()
            state = rules.apply(state, strategy.step(levels, state, rng))


def test_mex_end_round_reading_matches_the_rules() -> None:
    from table.cpu.mex import _may_end
    from table.rules.base import EventKind

    rules = get_rules("mex")
    strategy = get_strategy("mex")
    levels = [Level.EASY, Level.NORMAL, Level.HARD, Level.EASY]
    for seed in range(5):
        state = rules.start(tuple(Player(f"p{i}") for i in range(4)), {"lives": 3})
        rng = random.Random(seed)
        while rules.outcome(state) is None:
            assert _may_end(state) == (EventKind.END_ROUND in rules.allowed(state))
            state = rules.apply(state, strategy.step(levels, state, rng))


def test_progress_is_a_bar_on_a_terminal_and_lines_otherwise() -> None:
    import io

    from table.cpu.simulate import Progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty, plain = Tty(), io.StringIO()
    for stream in (tty, plain):
        bar = Progress(100, stream)
        bar.every = 0.0
        bar(50)
        bar.close()
    assert tty.getvalue().startswith("\r[###############---------------] 50/100 games")
    assert plain.getvalue().startswith("simulate: 50/100 games") and "\r" not in plain.getvalue()


@pytest.mark.parametrize("pair", [62, 43, 11])
def test_mexico_hard_stand_loss_matches_playing_it_out(pair: int) -> None:
    """The expected loss hard computes for standing equals the average loss
    when the later players really play the assumed policy through the rules
    (which is ``normal`` after the first player), 21 doubling included."""
    from table.cpu.mexico import NOBODY, stand_loss

    rules = get_rules("mexico")
    state = _mexico([], 1, pair, n=3)
    expected = stand_loss(RANK_ORDER.index(pair), False, NOBODY, 2, 3, 1, 2)
    strategy = get_strategy("mexico")
    levels = [Level.NORMAL] * 3
    rng = random.Random(11)
    total, n = 0, 6000
    for _ in range(n):
        s: Any = rules.apply(state, Stand())
        while s.round == 1:
            s = rules.apply(s, strategy.step(levels, s, rng))
        total += s.last.loss if 0 in s.last.losers else 0
    mean = total / n
    # the loss is 0, 1 or 2: its standard deviation is at most 1
    assert abs(mean - expected) < 4.0 / n**0.5, (mean, expected)


def test_mex_hard_stand_loss_matches_playing_it_out() -> None:
    """mex: the first player stands on 62 after two throws (limit 2 for the
    others, MX-4); the later players throw again while not above the lowest
    pair and never end the round; ties go to tie-breaks (MX-8), Mexx raise
    the penalty (MX-5). The computed loss equals the played-out average."""
    from table.cpu.mex import stand_loss

    rules = get_rules("mex")
    state: Any = _mex([], 2, 62, n=3)
    expected = stand_loss(RANK_ORDER.index(62), 0, 0, 2, 2, 12)
    rng = random.Random(12)
    total, n = 0, 6000
    for _ in range(n):
        s: Any = rules.apply(state, Stand())
        while s.round == 1:
            if s.phase.value == "round" and s.throws:
                lowest = min(RANK_ORDER.index(p) for p in s.kept)
                if RANK_ORDER.index(s.pair) > lowest:
                    s = rules.apply(s, Stand())
                    continue
            s = rules.apply(s, Throw((rng.randint(1, 6), rng.randint(1, 6))))
        total += s.last.loss if s.last.loser == 0 else 0
    # losses here are 1, 2 or 4 with small chances of more: sd well under 2
    assert abs(total / n - expected) < 8.0 / n**0.5, (total / n, expected)


def test_mexen_hard_round_loss_matches_playing_it_out() -> None:
    """mexen: the first player ends on 62; the later players throw both dice
    every time (MN-3, a 31 thrown again after its give, a Mex or 32 ends the
    turn); the lowest takes the pot of 1 + 3 per Mex (MN-7, MN-9), ties by
    one die (MN-10). The computed expected pot taken equals the average."""
    from table.cpu.mexen import NOBODY, round_loss

    rules = get_rules("mexen")
    state: Any = _mexen([], (6, 2), 3)
    expected = round_loss(RANK_ORDER.index(62), 0, NOBODY, 0, 2, 3)
    rng = random.Random(13)
    total, n = 0, 6000
    for _ in range(n):
        s: Any = state
        while s.last_round is None:
            if s.phase.value == "give":
                s = rules.apply(s, Give("p0" if s.current else "p1"))
            elif s.phase.value == "tiebreak":
                s = rules.apply(s, Throw((rng.randint(1, 6),)))
            else:
                s = rules.apply(s, Throw((rng.randint(1, 6), rng.randint(1, 6))))
        total += s.last_round.loss if s.last_round.loser == 0 else 0
    assert abs(total / n - expected) < 8.0 / n**0.5, (total / n, expected)


def test_mexen_round_and_limit_options_have_a_ceiling() -> None:
    """A game nobody could finish is an option error, not a simulation that runs for ever."""
    from table.rules import get_rules
    from table.rules.base import OptionError, parse_options

    specs = get_rules("mexen").options
    for option in ("rounds", "limit"):
        assert parse_options(specs, {option: 1000}, "mexen")[option] == 1000
        with pytest.raises(OptionError, match="from 0 to 1000"):
            parse_options(specs, {option: 1001}, "mexen")


def test_a_game_that_does_not_end_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from table.cpu import simulate as sim

    monkeypatch.setattr(sim, "MAX_EVENTS", 5)
    argv = ["simulate", "--rules", "mexen", "--players", "cpu:hard,cpu:easy", "--games", "1"]
    assert cli.main([*argv, "--option", "rounds=50"]) == 2
    err = capsys.readouterr().err
    assert "mexen: a game ran past 5 events; give options that end a game sooner" in err
    assert "internal error" not in err


def test_MN_5_after_leaving_a_die_lying_the_cpu_rolls_one_die() -> None:
    """A die left lying stays where it lies (MN-5): the CPU's next throw is one
    die, as in a tie-break (MN-10), and its throw is the held die and that one."""
    rules = get_rules("mexen")
    players = tuple(Player(f"p{i}", "normal") for i in range(3))
    state: Any = rules.start(players, {"rounds": 1})
    state = rules.apply(state, Throw((6, 4)))
    assert decide("mexen", "normal", state, random.Random(0)) == Hold(6)
    state = rules.apply(state, Hold(6))
    assert not isinstance(state, Refused) and state.held == 6
    for level in LEVELS:
        assert decide("mexen", level, state, random.Random(0)) == ThrowAgain(1), level
    assert throw_event("mexen", state, (3, 5)) == Throw((6, 3))


def test_simulate_memory_does_not_grow_with_the_number_of_games() -> None:
    """A long run (millions of games on a Pi) must not keep something for every
    game it played: only the totals the report prints."""
    import argparse
    import tracemalloc

    from table.cpu.simulate import parse_setup, simulate

    def peak(games: int) -> int:
        args = argparse.Namespace(
            rules="mex",
            players="cpu:easy,cpu:normal",
            games=str(games),
            seed="1",
            option=["lives=1", "max_throws=1"],
            breakdown=False,
        )
        setup = parse_setup(args)
        tracemalloc.start()
        try:
            simulate(setup)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    # Strategies and rules imported and warmed up. Run alone, the peak still rose from
    # 200 to 5000 games after a warm-up of 50 (40 kB to 160 kB), and not from 5000 to
    # 20000 (224 kB either way): something bounded fills in the first few thousand games,
    # as the tests before this one in a whole run had filled it.
    peak(5000)
    small, large = peak(200), peak(5000)
    assert large - small < 100_000, (small, large)


def _simulate_args(games: str = "3", seed: str = "0", rules: str = "mex", **kw: Any) -> Any:
    """``dicetable simulate``'s arguments: two easy CPU players and no options, unless
    ``kw`` says otherwise."""
    import argparse

    base = dict(
        rules=rules,
        players="cpu:easy,cpu:easy",
        games=games,
        seed=seed,
        option=[],
        breakdown=False,
    )
    return argparse.Namespace(**(base | kw))


@pytest.mark.parametrize("games", ["1000000001", "99999999999999999999999999999"])
def test_simulate_a_count_no_run_can_finish_is_refused(games: str) -> None:
    """A count of games no machine gets through in a day (a typing error) was
    started and ran until stopped, its time left in thousands of years."""
    from table.cpu.simulate import UsageError, parse_setup

    assert parse_setup(_simulate_args("1000000000")).games == 1_000_000_000
    with pytest.raises(UsageError, match=r"^--games: at most 1000000000, got "):
        parse_setup(_simulate_args(games))


def test_simulate_a_number_too_long_to_read_is_one_short_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Past 4300 digits a count or a seed was called "not an integer", in a line
    as long as the number."""
    long = "1" + "0" * 5000
    for games, seed in ((long, "0"), ("1", long), ("1", "-" + long)):
        argv = ["simulate", "--rules", "mex", "--players", "cpu:easy,cpu:easy"]
        assert cli.main([*argv, "--games", games, "--seed", seed]) == 2
        err = capsys.readouterr().err
        assert err.startswith("dicetable simulate: --") and err.count("\n") == 1
        assert "not an integer" not in err and len(err) < 100, err


def test_simulate_a_slow_run_does_not_report_zero_games_per_second() -> None:
    """Long games (mex, 99 lives, ten players) run below one game a second: the
    rate was rounded to "games per second: 0", as if none had been played."""
    from table.cpu.simulate import GameResult, Timing, Totals, parse_setup, report

    setup = parse_setup(_simulate_args("3"))
    totals = Totals(2)
    for winner in (0, 1, 0):
        totals.add(GameResult(winner, False, 600, 22_000))
    lines = report(setup, totals, Timing(8.0)).splitlines()
    rate = next(line for line in lines if line.startswith("games per second"))
    assert rate.startswith("games per second: 0.38 (8,250 events/s, 8.00 s of one core)"), rate
    totals.add(GameResult(1, False, 20, 500))
    fast = report(setup, totals, Timing(0.0004)).splitlines()
    assert any(line.startswith("games per second: 10,000 (") for line in fast), fast


@pytest.mark.parametrize(
    "extra",
    [
        ["--games", "x" * 5000],
        ["--players", "z" * 100_000],
        ["--rules", "r" * 100_000],
        ["--option", "k" * 100_000],
    ],
)
def test_simulate_a_long_argument_is_quoted_cut(
    capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    """A bad argument of 5000 to 100 000 characters was quoted whole in the one line."""
    from table.cli import main

    argv = ["simulate", "--rules", "mex", "--players", "cpu:easy,cpu:easy", "--games", "3"]
    assert main([*argv, *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 200, err[:300]


def test_simulate_a_long_seed_is_cut_in_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    from table.cli import main

    seed = "9" * 4000
    argv = ["simulate", "--rules", "mex", "--players", "cpu:easy,cpu:easy", "--games", "2"]
    assert main([*argv, "--seed", seed]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "seed 999999999999... (4000 digits)," in first and len(first) < 200


def test_simulate_seats_the_players_in_every_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """The seats only rotated, so who sat after whom never changed, and a level's win
    rate moved with the order given by more than its interval (mexen: normal 31 % or
    35 % by where it was named). Each game now draws the players' order in the seats."""
    from collections import Counter

    from table.cpu import simulate as sim

    seen: Counter[tuple[str, ...]] = Counter()
    real = sim.play_game

    def record(rules: Any, strategy: Any, seats: Any, *rest: Any, **kw: Any) -> Any:
        seen[tuple(p.name for p in seats)] += 1
        return real(rules, strategy, seats, *rest, **kw)

    monkeypatch.setattr(sim, "play_game", record)
    args = _simulate_args("600", players="cpu:hard,cpu:normal,cpu:easy")
    sim.simulate(sim.parse_setup(args))
    assert len(seen) == 6  # all 3! orders
    assert all(60 <= n <= 140 for n in seen.values()), seen  # 100 each expected


def test_simulate_no_two_seeds_share_their_games() -> None:
    """Game g of seed S was seeded S * 1000003 + g modulo 2**64: seeds 0 and 2**64 gave
    the same run, and run 1's game 0 was run 0's game 1000003."""
    from table.cpu.simulate import game_seed, parse_setup, simulate

    assert game_seed(0, 1_000_003) != game_seed(1, 0)
    assert game_seed(-1, 0) != game_seed(2**64 - 1, 0)

    def games(seed: str) -> Any:
        totals, _ = simulate(parse_setup(_simulate_args("60", seed)))
        return (totals.wins, totals.rounds, totals.events)

    assert games("0") == games("0")
    assert games("0") != games(str(2**64))


# -- the API on finished games, mexico by exact counts, and the simulator's figures


@pytest.mark.parametrize(
    ("rules_name", "options"),
    [("mexico", {}), ("mex", {"lives": 2}), ("mexen", {"rounds": 1})],
)
def test_decide_on_a_finished_game_is_none(rules_name: str, options: dict[str, Any]) -> None:
    """Once a game is over nobody is asked and ``decide`` answers None for every level."""
    rules = get_rules(rules_name)
    strategy = get_strategy(rules_name)
    state = rules.start((Player("a", "hard"), Player("b", "easy")), options)
    rng = random.Random(3)
    levels = [Level.HARD, Level.EASY]
    while rules.outcome(state) is None:
        state = rules.apply(state, strategy.step(levels, state, rng))
    assert deciders(rules_name, state) == ()
    for level in LEVELS:
        assert decide(rules_name, level, state, random.Random(0)) is None


def test_mythical_has_no_cpu_players() -> None:
    """``mythical`` has no CPU players: asking for them is NoStrategy, not a crash."""
    with pytest.raises(NoStrategy):
        get_strategy("mythical")
    with pytest.raises(NoStrategy):
        deciders("mythical", None)


def test_MC_6_next_event_throws_the_software_dice_of_its_index() -> None:
    """A CPU throw at log index i is the software dice ``roll_dice(seed, i)``."""
    players = (Player("Cpu", "hard"), Player("Ann"))
    state = get_rules("mexico").start(players, {"lives": 3, "max_throws": 3})
    for seed in range(3):
        for index in (0, 1, 17):
            assert next_event("mexico", state, players, seed, index) == Throw(
                roll_dice(seed, index)
            )


def test_MC_6_next_event_hands_the_decision_the_random_source_of_its_index() -> None:
    """An easy CPU's whim at log index i comes from ``decision_rng(seed, i)``."""
    rules = get_rules("mexico")
    players = (Player("Cpu", "easy"), Player("Ann"))
    state = rules.start(players, {"lives": 3, "max_throws": 3})
    state = played("mexico", state, Throw((6, 3)))  # 63 with two throws left: a whim decides
    for seed in range(40):
        for index in (1, 2):
            d = decide("mexico", "easy", state, decision_rng(seed, index))
            event = next_event("mexico", state, players, seed, index)
            if isinstance(d, ThrowAgain):
                assert event == Throw(roll_dice(seed, index)), (seed, index)
            else:
                assert event == d, (seed, index)


@cache
def _mexico_later(r: int, limit: int) -> dict[tuple[bool, bool], Fraction]:
    """A later player who throws again while not above rank ``r`` (the last throw is
    kept): (ends below r, threw a 21) -> chance, by enumerating the dice."""
    out: dict[tuple[bool, bool], Fraction] = {}

    def go(throw: int, saw: bool, chance: Fraction) -> None:
        for a, b in ALL_DICE:
            pair = Pair.of(a, b)
            s = saw or pair.is_mex
            if pair.rank > r or throw == limit:
                key = (pair.rank < r, s)
                out[key] = out.get(key, Fraction(0)) + chance / 36
            else:
                go(throw + 1, s, chance / 36)

    go(1, False, Fraction(1))
    return out


def _mexico_stand(
    r: int, saw: bool, lowest: int, after: int, limit: int, plain: int, doubled: int
) -> Fraction:
    """MC-3: the player on rank ``r`` loses unless a later player ends below it; the
    loss is doubled when a 21 was thrown in the round."""
    if r > lowest:
        return Fraction(0)
    ways = {saw: Fraction(1)}  # nobody below yet, 21 seen -> chance
    for _ in range(after):
        nxt: dict[bool, Fraction] = {}
        for seen, chance in ways.items():
            for (below, s), p in _mexico_later(r, limit).items():
                if not below:
                    nxt[seen or s] = nxt.get(seen or s, Fraction(0)) + chance * p
        ways = nxt
    return sum((c * (doubled if s else plain) for s, c in ways.items()), Fraction(0))


def _mexico_exact(state: Any) -> tuple[Fraction, Fraction]:
    """Expected lives lost by standing now and by throwing again, playing on best, for
    the player on turn with its own lives (MC-4 caps the loss by them)."""
    cfg = state.config
    lives = state.lives[state.current]
    plain, doubled = min(1, lives), min(2 if cfg.double_on_21 else 1, lives)
    lowest = min((Pair.of(p // 10, p % 10).rank for p in state.kept), default=99)
    after = len(state.order) - len(state.kept) - 1
    limit = cfg.max_throws

    def stand(r: int, saw: bool) -> Fraction:
        return _mexico_stand(r, saw, lowest, after, limit, plain, doubled)

    @cache
    def again(throws: int, saw: bool) -> Fraction:
        total = Fraction(0)
        for a, b in ALL_DICE:
            pair = Pair.of(a, b)
            s = saw or pair.is_mex
            best = stand(pair.rank, s)
            if throws + 1 < limit:
                best = min(best, again(throws + 1, s))
            total += best / 36
        return total

    r = Pair.of(state.pair // 10, state.pair % 10).rank
    return stand(r, state.saw_21), again(state.throws, state.saw_21)


def test_MC_4_MC_6_mexico_hard_reckons_with_its_own_lives_not_the_first_players() -> None:
    """MC-3/MC-4: hard caps the doubled loss by its own lives left, not by the round's first
    player's."""
    rules = get_rules("mexico")
    players = tuple(Player(f"p{i}") for i in range(3))
    state: Any = rules.start(players, {"lives": 2, "max_throws": 2, "double_on_21": True})
    state = played(
        "mexico", state, Throw((3, 1)), Stand(), Throw((6, 6)), Stand(), Throw((5, 5)), Stand()
    )
    assert state.lives == (1, 2, 2) and state.order == (0, 1, 2)
    state = played("mexico", state, Throw((6, 4)), Stand(), Throw((6, 3)))
    assert state.current == 1 and state.throws == 1
    stand, again = _mexico_exact(state)
    assert again < stand
    assert decide("mexico", "hard", state, random.Random(0)) == ThrowAgain()


def test_MC_3_mexico_hard_stands_when_throwing_again_cannot_help() -> None:
    """MC-3: hard stands when throwing again is not strictly cheaper (the last of two,
    after a kept 21)."""
    rules = get_rules("mexico")
    players = (Player("p0"), Player("p1"))
    for pair in (31, 43, 65, 66):
        state: Any = rules.start(players, {"lives": 2, "max_throws": 2, "double_on_21": True})
        state = played("mexico", state, Throw((2, 1)), Stand(), Throw((pair // 10, pair % 10)))
        stand, again = _mexico_exact(state)
        assert stand == again == 2, (pair, stand, again)
        assert decide("mexico", "hard", state, random.Random(0)) == Stand(), pair


def test_MC_6_mexico_easy_whim_is_one_time_in_five() -> None:
    """easy follows a whim exactly when its random draw is below 1/5."""
    sixty_one = RANK_ORDER.index(61)
    rules = get_rules("mexico")
    for rank, name in enumerate(RANK_ORDER):
        state: Any = rules.start(tuple(Player(f"p{i}") for i in range(3)), {})
        state = played("mexico", state, Throw((6, 6)), Stand(), Throw((name // 10, name % 10)))
        usual = Stand() if rank >= sixty_one else ThrowAgain()
        whim = ThrowAgain() if usual == Stand() else Stand()
        for draw in (0.0, 0.19):
            assert decide("mexico", "easy", state, FixedRandom(draw)) == whim, (name, draw)
        for draw in (0.2, 0.3, 0.45, 0.99):
            assert decide("mexico", "easy", state, FixedRandom(draw)) == usual, (name, draw)


def test_MC_6_mexico_only_the_player_on_turn_decides() -> None:
    """In mexico only the player on turn decides; any other seat lets the moment pass."""
    rules = get_rules("mexico")
    state: Any = rules.start(tuple(Player(f"p{i}") for i in range(3)), {})
    for events in ((), (Throw((4, 3)),), (Throw((6, 6)), Stand(), Throw((3, 1)))):
        s = played("mexico", state, *events)
        assert deciders("mexico", s) == (s.current,)
        for seat in range(3):
            if seat == s.current:
                continue
            for level in LEVELS:
                assert decide("mexico", level, s, FixedRandom(0.0), seat) is None, (seat, level)


def test_wilson_interval_stays_within_zero_and_one() -> None:
    """A win rate's interval never leaves [0, 1]: no win prints 0.00%, never -0.00%."""
    from table.cpu.simulate import wilson

    for n in range(1, 400):
        assert wilson(0, n).low >= 0.0 and wilson(n, n).high <= 1.0, n
        assert wilson(0, n).high <= 1.0 and wilson(n, n).low >= 0.0, n


def test_simulate_report_never_shows_a_negative_rate() -> None:
    """A player without a win in 21 games has the interval [0.00%, ...]."""
    from table.cpu.simulate import GameResult, Timing, Totals, parse_setup, report

    setup = parse_setup(_simulate_args(rules="mexico", games="21"))
    totals = Totals(2)
    for _ in range(21):
        totals.add(GameResult(0, False, 4, 40))
    text = report(setup, totals, Timing(1.0))
    assert "-0.00" not in text and "[0.00%," in text.splitlines()[3], text


def test_simulate_totals_count_draws_games_without_a_winner_and_rounds() -> None:
    """The report's draws, games without a winner and mean rounds add up the games' results."""
    from table.cpu.simulate import GameResult, Timing, Totals, parse_setup, report

    totals = Totals(2)
    for result in (
        GameResult(0, False, 3, 30),
        GameResult(None, True, 5, 50),
        GameResult(None, False, 2, 20),
        GameResult(1, False, 6, 60),
    ):
        totals.add(result)
    assert totals.games == 4 and totals.wins == [1, 1]
    assert totals.draws == 1 and totals.no_winner == 2
    assert totals.rounds == 16 and totals.events == 160
    setup = parse_setup(_simulate_args(rules="mexico", games="4"))
    lines = report(setup, totals, Timing(1.0)).splitlines()
    assert "no winner: 2 (50.00%), draws among them: 1" in lines
    assert "mean rounds per game: 4.00" in lines


@pytest.mark.parametrize("word", ["true", "on", "yes", "TRUE", "Yes"])
def test_simulate_option_yes_on_true_are_true(word: str) -> None:
    """``--option double_on_21=yes`` (or on, true, in any case) switches the option on."""
    from table.cpu.simulate import parse_setup

    setup = parse_setup(_simulate_args(rules="mexico", option=["double_on_21=" + word]))
    assert setup.options["double_on_21"] is True


def test_simulate_repeated_levels_are_numbered_from_one() -> None:
    """Players of a repeated level are called hard#1, hard#2, ... in the order given."""
    from table.cpu.simulate import parse_setup

    setup = parse_setup(_simulate_args(rules="mexico", players="cpu:hard,cpu:easy,cpu:hard"))
    assert setup.names == ("hard#1", "easy", "hard#2")


@pytest.mark.parametrize("item", ["=3", " =3"])
def test_simulate_option_without_a_key_is_not_key_value(item: str) -> None:
    """``--option =3`` is refused as not KEY=VALUE."""
    from table.cpu.simulate import UsageError, parse_setup

    with pytest.raises(UsageError, match="is not KEY=VALUE"):
        parse_setup(_simulate_args(rules="mexico", option=[item]))


def test_simulate_seed_of_twenty_digits_is_shown_whole() -> None:
    """The report shows a 20-digit seed whole and counts a longer one's digits without the minus
    sign."""
    from table.cpu.simulate import _seed_text

    assert _seed_text(10**19) == str(10**19)
    assert _seed_text(-(10**19)) == str(-(10**19))  # the minus sign is no digit
    assert _seed_text(10**20).endswith("(21 digits)")
    assert _seed_text(-(10**40)).endswith("(41 digits)")


def test_simulate_games_of_different_runs_never_share_their_dice() -> None:
    """Game 23 of run 1 and game 3 of run 12 are different games."""
    from table.cpu.simulate import game_seed

    assert game_seed(1, 23) != game_seed(12, 3)
    firsts = {random.Random(game_seed(s, g)).random() for s, g in ((1, 23), (12, 3), (123, 0))}
    assert len(firsts) == 3


def test_simulate_a_game_of_exactly_max_events_is_played(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a game running past MAX_EVENTS events is stopped; one ending on it counts."""
    from table.cpu import simulate as sim

    rules = get_rules("mexico")
    strategy = get_strategy("mexico")
    seats = (Player("a", "easy"), Player("b", "easy"))
    levels = [Level.EASY, Level.EASY]
    _, events = sim.play_game(rules, strategy, seats, levels, {}, random.Random(5))
    monkeypatch.setattr(sim, "MAX_EVENTS", events)
    _, again = sim.play_game(rules, strategy, seats, levels, {}, random.Random(5))
    assert again == events
    monkeypatch.setattr(sim, "MAX_EVENTS", events - 1)
    with pytest.raises(sim.GameTooLong):
        sim.play_game(rules, strategy, seats, levels, {}, random.Random(5))


def test_simulate_a_refused_cpu_event_is_a_runtime_error() -> None:
    """A strategy whose event the rules refuse stops the game with a RuntimeError naming it."""
    from table.cpu import simulate as sim

    class Stubborn:
        def step(self, levels: Any, state: Any, rng: random.Random) -> Any:
            return Stand()  # refused: nobody has thrown yet

    rules = get_rules("mexico")
    seats = (Player("a", "easy"), Player("b", "easy"))
    with pytest.raises(RuntimeError, match="refused"):
        sim.play_game(rules, Stubborn(), seats, [Level.EASY] * 2, {}, random.Random(0))  # type: ignore[arg-type]


@pytest.mark.parametrize("games", [3, 5])
def test_simulate_breakdown_covers_the_first_games_only(
    games: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--breakdown covers and times the first BREAKDOWN_GAMES games (all of a shorter run)."""
    from table.cpu import simulate as sim

    monkeypatch.setattr(sim, "BREAKDOWN_GAMES", 3)
    setup = sim.parse_setup(_simulate_args(rules="mexico", games=str(games), breakdown=True))
    totals, timing = sim.simulate(setup)
    assert totals.games == games
    b = timing.breakdown
    assert b is not None and b.games == 3
    assert b.played > 0.0


def test_simulate_breakdown_counts_the_events_of_the_games_it_replays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--breakdown's event count is that of exactly the first BREAKDOWN_GAMES games."""
    from table.cpu import simulate as sim

    monkeypatch.setattr(sim, "BREAKDOWN_GAMES", 3)
    first, _ = sim.simulate(sim.parse_setup(_simulate_args(rules="mexico", games="3")))
    args = _simulate_args(rules="mexico", games="6", breakdown=True)
    _, timing = sim.simulate(sim.parse_setup(args))
    assert timing.breakdown is not None
    assert timing.breakdown.events == first.events


def test_simulate_breakdown_share_is_the_rules_engines_part_of_the_time() -> None:
    """The breakdown line gives the rules engine's share of the playing time and the rest to the CPU
    side."""
    from table.cpu.simulate import Breakdown, Timing, Totals, parse_setup, report

    totals = Totals(2)
    timing = Timing(3.0, Breakdown(3, 30, 2.0, 0.5))
    text = report(parse_setup(_simulate_args(rules="mexico")), _totals_with(totals), timing)
    line = text.splitlines()[-1]
    assert "25% of the time" in line and "the other 75%" in line, line


def _totals_with(totals: Any) -> Any:
    from table.cpu.simulate import GameResult

    for winner in (0, 1, 0):
        totals.add(GameResult(winner, False, 2, 10))
    return totals


def test_simulate_rate_of_ten_is_a_whole_number() -> None:
    """Rates are whole numbers from 10 a second up, two decimals below."""
    from table.cpu.simulate import _rate

    assert _rate(10.0) == "10"
    assert _rate(9.5) == "9.50"


def test_simulate_progress_interval_by_stream() -> None:
    """On a terminal the bar is redrawn every 0.2 s; elsewhere a line every ``every`` s."""
    import io

    from table.cpu.simulate import Progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert Progress(10, io.StringIO(), every=5.0).every == 5.0
    assert Progress(10, Tty(), every=5.0).every == 0.2


def test_simulate_progress_bar_is_cleared_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Closing the bar clears it; closing it again writes nothing."""
    import io

    from table.cpu import simulate as sim

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    clock = [100.0]
    monkeypatch.setattr(sim.time, "monotonic", lambda: clock[0])
    stream = Tty()
    progress = sim.Progress(10, stream)
    clock[0] = 101.0
    progress(5)
    assert "5/10 games" in stream.getvalue()
    progress.close()
    cleared = stream.getvalue()
    assert cleared.endswith("\r")
    progress.close()
    assert stream.getvalue() == cleared


def test_wilson_interval_of_no_games_is_every_rate() -> None:
    """With no game played nothing is known of a win rate: its interval is all of [0, 1]."""
    from table.cpu.simulate import Interval

    assert wilson(0, 0) == Interval(0.0, 1.0)


@pytest.mark.parametrize("word", ["false", "off", "no", "NO", " no "])
def test_simulate_option_no_off_false_are_false(word: str) -> None:
    """``--option double_on_21=no`` (or off, false, in any case, spaces around it) switches
    an option that is on by default off."""
    from table.cpu.simulate import parse_setup

    setup = parse_setup(_simulate_args(rules="mexico", option=["double_on_21=" + word]))
    assert setup.options["double_on_21"] is False


@pytest.mark.parametrize(
    ("games", "message"),
    [
        ("²", "--games: '²' is not an integer"),  # a digit to str.isdigit, not to int()
        (" " + "9" * 5000, "--games: a number of 5000 digits is too long"),
        ("1" + "0" * 25, "--games: at most 1000000000, got a number of 26 digits"),
    ],
)
def test_simulate_a_count_that_is_no_number_or_too_big_says_which(games: str, message: str) -> None:
    """A superscript two is not a number of games; a very long number is named by its
    digits, also after a space, and a count past 20 digits is not printed whole."""
    from table.cpu.simulate import UsageError, parse_setup

    with pytest.raises(UsageError) as raised:
        parse_setup(_simulate_args(games))
    assert str(raised.value) == message


def test_simulate_takes_spaces_around_seats_and_option_keys_and_a_negative_seed() -> None:
    """``--players "cpu:hard, cpu:easy"``, ``--option " lives =2"`` and ``--seed -5`` are
    what they say: a person types spaces after commas, and any integer seeds a run."""
    from table.cpu.base import Level
    from table.cpu.simulate import parse_setup

    setup = parse_setup(
        _simulate_args(
            rules="mexico", seed="-5", players="cpu:hard, cpu:easy", option=[" lives =2"]
        )
    )
    assert setup.levels == (Level.HARD, Level.EASY)
    assert setup.options["lives"] == 2 and setup.seed == -5


def test_simulate_an_option_word_is_taken_without_the_spaces_around_it() -> None:
    """``--option "variant= extreme"`` is the extreme variant (MN-12), as ``" lives =2"`` is two
    lives: it was refused with '" extreme" is not allowed'."""
    from table.cpu.simulate import parse_setup

    setup = parse_setup(
        _simulate_args(rules="mexen", option=["variant= extreme ", "rounds=2", "stake=sips"])
    )
    assert setup.options["variant"] == "extreme" and setup.options["stake"] == "sips"


def test_simulate_mexen_with_a_limit_alone_ends() -> None:
    """A mexen game ends by a round count or by a limit (MN-11): a limit alone is enough."""
    from table.cpu.simulate import parse_setup, simulate

    setup = parse_setup(_simulate_args(rules="mexen", games="2", option=["limit=3"]))
    totals, _ = simulate(setup)
    assert totals.games == 2


def test_simulate_breakdown_of_a_short_run_covers_the_games_played(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--breakdown`` with fewer games than it keeps covers the games there were, and the
    time it compares the rules' own time with is that of the games it replays, not the
    run's (on a processor clock that ticks one second a reading here)."""
    from table.cpu import simulate as sim

    ticks = iter(range(100))
    monkeypatch.setattr(sim.time, "process_time", lambda: float(next(ticks)))
    monkeypatch.setattr(sim, "BREAKDOWN_GAMES", 2)
    totals, timing = sim.simulate(sim.parse_setup(_simulate_args("4", breakdown=True)))
    assert timing.breakdown is not None
    # readings: start 0, after game 2: 1, end of the run 2, replay 3 to 4
    assert (timing.total, timing.breakdown.played, timing.breakdown.rules) == (2.0, 1.0, 1.0)
    assert timing.breakdown.games == 2 and 0 < timing.breakdown.events < totals.events

    monkeypatch.setattr(sim, "BREAKDOWN_GAMES", 2000)
    ticks = iter(range(100))
    _, timing = sim.simulate(sim.parse_setup(_simulate_args("3", breakdown=True)))
    assert timing.breakdown is not None
    assert timing.breakdown.games == 3 and timing.breakdown.played == 1.0
    _, timing = sim.simulate(sim.parse_setup(_simulate_args("3")))
    assert timing.breakdown is None  # nothing replayed, no breakdown line


def test_simulate_each_seat_plays_at_its_own_players_level(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The players' order in the seats is drawn for each game: the levels the strategy
    plays each seat at are drawn with it, so hard always plays as hard."""
    from table.cpu import simulate as sim

    seen: list[tuple[list[str | None], list[str]]] = []
    real = sim.play_game

    def record(rules: Any, strategy: Any, seats: Any, levels: Any, *rest: Any) -> Any:
        seen.append(([p.cpu for p in seats], [lv.value for lv in levels]))
        return real(rules, strategy, seats, levels, *rest)

    monkeypatch.setattr(sim, "play_game", record)
    sim.simulate(sim.parse_setup(_simulate_args("30", players="cpu:hard,cpu:normal,cpu:easy")))
    assert len({tuple(cpus) for cpus, _ in seen}) > 1  # the orders differ
    assert all(cpus == levels for cpus, levels in seen), seen


def test_simulate_counts_each_win_for_its_player() -> None:
    """Wins are counted for the player who won, whatever seat they had: two easy players
    in 40 games both win some, and every game has its winner."""
    from table.cpu.simulate import parse_setup, simulate

    totals, _ = simulate(parse_setup(_simulate_args("40", rules="mexico", seed="2")))
    assert all(wins > 0 for wins in totals.wins), totals.wins
    assert sum(totals.wins) + totals.no_winner == 40


def test_simulate_counts_each_games_rounds() -> None:
    """Mexico with three lives, two players and no doubled loss lasts three rounds at least
    (MC-2: a round's loser loses one life): the mean rounds count every game's rounds."""
    from table.cpu.simulate import parse_setup, simulate

    setup = parse_setup(
        _simulate_args(rules="mexico", games="10", option=["double_on_21=no", "lives=3"])
    )
    totals, _ = simulate(setup)
    assert totals.rounds >= 3 * totals.games


def test_simulate_report_lines_show_options_rates_and_the_breakdown_only_when_asked() -> None:
    """The report's numbers, each of its own whole: options as the rules take them (``-``
    for none, true in lower case), a win rate in per cent, the rules' time per event of the
    replayed games; a breakdown line only after ``--breakdown``."""
    import dataclasses

    from table.cpu.simulate import Breakdown, GameResult, Timing, Totals, parse_setup, report

    totals = Totals(2)
    for winner in (0, 1, 1, 1):
        totals.add(GameResult(winner, False, 3, 30))
    plain = parse_setup(_simulate_args(games="4"))
    lines = report(plain, totals, Timing(1.0)).splitlines()
    assert lines[0] == "mex: 2 players, 4 games, seed 0, options lives=12 max_throws=3"
    none = report(dataclasses.replace(plain, options={}), totals, Timing(1.0)).splitlines()
    assert none[0] == "mex: 2 players, 4 games, seed 0, options -"
    assert lines[2].split()[:3] == ["easy#1", "1", "25.00%"]
    assert lines[3].split()[:3] == ["easy#2", "3", "75.00%"]
    assert not any("breakdown" in line for line in lines)

    on = parse_setup(_simulate_args(rules="mexico", games="4", option=["double_on_21=yes"]))
    lines = report(on, totals, Timing(1.0, Breakdown(2, 50, 0.5, 0.0001))).splitlines()
    assert "double_on_21=true" in lines[0].split()
    assert lines[-1].startswith(
        "breakdown over the first 2 games: rules engine alone 20,000 games/s (2.00 us/event), 0%"
    ), lines[-1]


def test_progress_waits_its_interval_and_says_the_time_left() -> None:
    """Nothing is shown before the first interval has passed; then the rate so far and the
    time the games left take at that rate."""
    import io

    from table.cpu.simulate import Progress

    stream = io.StringIO()
    progress = Progress(100, stream)
    progress(1)
    assert stream.getvalue() == ""
    progress.started -= 10.0  # ten seconds ago
    progress.shown -= 10.0
    progress(50)
    assert stream.getvalue() == "simulate: 50/100 games, 5/s, 10 s left\n"
