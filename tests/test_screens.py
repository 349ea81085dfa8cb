"""The screens draw on 128x64, legibly, and never outside it."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageDraw, ImageFont

from table.service.screens import (
    Choose,
    GameEnd,
    Menu,
    Message,
    Reading,
    Refusal,
    Result,
    Resumed,
    RoundEnd,
    Screen,
    Turn,
    drawable,
    overflow,
    render,
    render_padded,
    render_text,
    shown_whole,
)

LONG = "Bartholomew-Maximilian the Magnificent"
SIX = tuple((f"P{i}", str(i)) for i in range(1, 6)) + (("CPU1", "0"),)
SIX_LONG = tuple((f"{LONG} {i}", "12") for i in range(6))

EVERY_KIND: tuple[Screen, ...] = (
    Menu("rules", "mexico", 1, 3),
    Turn("P1", "round 2  throw 1/3", "roll, then press ROLL", "P1 3  P2 2", 3),
    Reading("P1", "reading..."),
    Result("P1", "63", "throw 1/3", "ROLL again  STOP stand"),
    Result("P1", "300", "turn over", "next: P2", "pirate P1 takes 1  pot +3 = 7"),
    Refusal("die tilted: roll again", "P1: roll again"),
    Choose("31: give a point to", "P2", 0, 3),
    Choose("Ann's die, trick 2", "griffin", 1, 7, note="bid 2  took 1"),
    RoundEnd("round 1 over", "P2 loses 1 life", SIX[:2], "P2 31", "next: P2"),
    GameEnd("P1 wins!", SIX),
    Message("HOLD", "not in mexico: keep both dice", "roll, then press ROLL"),
    Resumed("mexen", "round 3, P2's turn", "roll, then press ROLL"),
)

CROWDED: tuple[Screen, ...] = (
    Menu(LONG, LONG, 98, 99, LONG),
    Turn(LONG, LONG, LONG, " ".join([LONG] * 4), 6),
    Turn(LONG, LONG, LONG, LONG, 99),
    Turn("P6", "round 12  throw 3/3", "roll, then press ROLL", "P1 3  P2 2  P3 3  P4 0", 0),
    Reading(LONG, LONG),
    Result(LONG, "MEX!", LONG, LONG),
    Result(LONG, "600", "turn over", "next: " + LONG),
    Result(LONG, "MEX!", LONG, LONG, f"{LONG}  {LONG}"),
    Refusal(" ".join([LONG] * 6), LONG),
    Choose(LONG, LONG, 5, 6, LONG),
    Choose(LONG, LONG, 5, 6, LONG, LONG),
    RoundEnd(LONG, LONG, SIX, LONG, LONG),
    RoundEnd("round 99 over", "P1, P2, P3, P4, P5 lose 2 lives", SIX_LONG, LONG, LONG),
    GameEnd(LONG, SIX_LONG),
    GameEnd("draw", SIX),
    Message(LONG, " ".join([LONG] * 8), LONG),
    Resumed(LONG, " ".join([LONG] * 3), LONG),
)


def ink(image: Image.Image) -> int:
    return int(sum(1 for v in image.get_flattened_data() if v))


@pytest.mark.parametrize("screen", EVERY_KIND + CROWDED, ids=lambda s: type(s).__name__)
def test_renders_one_bit_128_by_64_with_something_on_it(screen: Screen) -> None:
    image = render(screen)
    assert image.mode == "1"
    assert image.size == (128, 64)
    assert ink(image) > 30
    assert render_text(screen).strip()


MARGIN = 48


def outside_ink(screen: Screen) -> int:
    """Pixels drawn outside the 128x64 screen (on a larger canvas around it)."""
    padded = render_padded(screen, MARGIN)
    mask = Image.new("1", padded.size, 1)
    mask.paste(Image.new("1", (128, 64), 0), (MARGIN, MARGIN))
    return ink(ImageChops.logical_and(padded, mask))


@pytest.mark.parametrize("screen", EVERY_KIND + CROWDED, ids=lambda s: type(s).__name__)
def test_nothing_is_drawn_off_screen(screen: Screen) -> None:
    assert outside_ink(screen) == 0
    # and the screen itself is exactly the middle of the padded drawing
    middle = render_padded(screen, MARGIN).crop((MARGIN, MARGIN, MARGIN + 128, MARGIN + 64))
    assert ImageChops.difference(middle.convert("L"), render(screen).convert("L")).getbbox() is None


@pytest.mark.parametrize("screen", EVERY_KIND, ids=lambda s: type(s).__name__)
def test_ordinary_screens_fit_without_cutting(screen: Screen) -> None:
    assert overflow(screen) == ()


def test_crowded_screens_are_cut_not_spilled() -> None:
    assert overflow(Turn(LONG, "round 1", "roll", "", 3))
    assert overflow(Turn("P1", "round 1", "roll", "", 3)) == ()


def test_different_throws_look_different() -> None:
    shown = ["63", "64", "MEX!", "600", "44", "31", "5"]
    images = [render(Result("P1", s, "throw 1/3", "ROLL again  STOP stand")) for s in shown]
    for i, a in enumerate(images):
        for b in images[i + 1 :]:
            assert ImageChops.difference(a.convert("L"), b.convert("L")).getbbox() is not None


def test_the_throw_is_drawn_big() -> None:
    image = render(Result("P1", "63", "throw 1/3", ""))
    box = image.crop((0, 12, 128, 52)).getbbox()
    assert box is not None
    assert box[3] - box[1] >= 20  # digits at least 20 pixels tall
    assert box[2] - box[0] >= 30


def test_six_players_fit_the_round_end_and_game_end() -> None:
    assert overflow(RoundEnd("round 3 over", "P2 loses 2 lives", SIX, "P2 MEX!", "")) == ()
    assert overflow(GameEnd("P3 wins!", SIX)) == ()
    text = render_text(GameEnd("P3 wins!", SIX))
    assert all(name in text for name, _ in SIX)


def test_mex_points_of_three_players_fit_the_game_end() -> None:
    # Three columns leave a value 22 pixels: "12 pts" needs two columns, and the detail
    # line gives way to them.
    rows = (("P1", "1 pt"), ("P2", "12 pts"), ("CPU1", "1 pt"))
    end = GameEnd("P2 wins!", rows, detail="last round: CPU1 lost 2")
    assert overflow(end) == ()
    assert overflow(GameEnd("P2 wins!", (("P1", "1"), ("P2", "2"), ("P3", "3")))) == ()


def test_a_round_end_drops_the_extra_parts_that_do_not_fit_last_first() -> None:
    three = (("P1", "3"), ("P2", "1"), ("CPU1", "3"))
    long = RoundEnd("round 2 over", "P2 loses 1 life", three, "CPU ends the round  CPU1 600")
    assert overflow(long) == ()
    short = RoundEnd("round 2 over", "P2 loses 1 life", three, "CPU ends the round")
    assert ImageChops.difference(render(long), render(short)).getbbox() is None
    both = RoundEnd("round 2 over", "P2 loses 1 life", three, "P2 MEX!  2 Mexx")
    assert ImageChops.difference(render(both), render(short)).getbbox() is not None
    assert "CPU1 600" in render_text(long)  # the terminal has room for everything


def test_lives_as_hearts_differ_by_count() -> None:
    a = render(Turn("P1", "round 1", "roll", "", 2))
    b = render(Turn("P1", "round 1", "roll", "", 3))
    assert ink(b) > ink(a)


def test_render_text_carries_the_content() -> None:
    text = render_text(Result("P2", "MEX!", "throw 2/3", "ROLL again  STOP stand"))
    assert "P2" in text and "MEX!" in text and "throw 2/3" in text
    text = render_text(Menu("lives", "6", 2, 3))
    assert "lives" in text and "6" in text and "3/3" in text
    assert "\n" in render_text(Refusal("die tilted", "roll again"))


printable = st.text(st.characters(min_codepoint=32, max_codepoint=0x24F), max_size=60)


@settings(max_examples=60, deadline=None)
@given(
    name=printable,
    text=printable,
    hint=printable,
    lives=st.integers(0, 120),
    rows=st.lists(st.tuples(printable, printable), max_size=8),
)
def test_any_text_stays_on_screen(
    name: str, text: str, hint: str, lives: int, rows: list[tuple[str, str]]
) -> None:
    for screen in (
        Turn(name, text, hint, text, lives),
        Result(name, text, text, hint),
        RoundEnd(name, text, tuple(rows), hint, hint),
        GameEnd(text, tuple(rows)),
        Message(name, text, hint),
        Refusal(text, hint),
    ):
        assert outside_ink(screen) == 0
        assert render(screen).size == (128, 64)


def test_names_with_accents_are_drawn_in_their_ascii_letters() -> None:
    """The display's font has ASCII only: "Zoë" drawn as "Zoe", never as "Zo" and a box."""
    assert drawable("Zoë Jürgen Åsa Søren Straße") == "Zoe Jurgen Asa Soren Strasse"
    assert drawable("Ann\nBob\x00") == "Ann?Bob?"
    assert drawable("CPU1") == "CPU1"
    for accented, plain in (("Zoë", "Zoe"), ("Jürgen", "Jurgen")):
        drawn = render(Turn(accented, "throw 1/3", "ROLL: throw", "", 3))
        assert drawn.tobytes() == render(Turn(plain, "throw 1/3", "ROLL: throw", "", 3)).tobytes()
    box = render(Message("\U0010ffff", "", ""))  # a letter no font here has
    assert box.tobytes() == render(Message("?", "", "")).tobytes()


def _widest_gap(image: Image.Image, top: int, bottom: int) -> int:
    """The widest run of empty columns between ink in the rows top..bottom."""
    band = image.crop((0, top, image.width, bottom))
    inked = [band.crop((x, 0, x + 1, band.height)).getbbox() is not None for x in range(128)]
    first, last = inked.index(True), 127 - inked[::-1].index(True)
    widest = run = 0
    for ink_here in inked[first : last + 1]:
        run = 0 if ink_here else run + 1
        widest = max(widest, run)
    return widest


def test_the_parts_of_a_round_end_s_extra_line_stand_apart() -> None:
    rows = (("P1", "0"), ("P2", "1"), ("P3", "1"))
    two = render(RoundEnd("round 1 over", "P1 loses 1 life", rows, "P1 is out  ended by P2"))
    one = render(RoundEnd("round 1 over", "P1 loses 1 life", rows, "P1 is out ended by P2"))
    assert _widest_gap(two, 27, 37) >= 6 > _widest_gap(one, 27, 37)


def test_a_throw_s_note_leaves_the_throw_big_and_drops_its_last_parts_first() -> None:
    with_note = render(Result("P1", "300", "turn over", "next: P2", "P1 is the pirate"))
    box = with_note.crop((0, 12, 128, 34)).getbbox()
    assert box is not None and box[3] - box[1] >= 12  # the value, above the note
    three = Result("P1", "300", "turn over", "next: P2", "pirate P1 takes 1  pot +3 = 7  x")
    two = Result("P1", "300", "turn over", "next: P2", "pirate P1 takes 1  pot +3 = 7")
    assert overflow(three) == () and render(three).tobytes() == render(two).tobytes()
    assert "x" in render_text(three).splitlines()[2]


def test_six_names_that_a_third_would_cut_are_shown_whole_in_two_columns() -> None:
    rows = (("Amelia", "20"), ("Bruno", "10"), ("Carla", "-10"))
    rows += (("Dmitri", "120"), ("Esther", "-10"), ("Farid", "10"))
    assert overflow(GameEnd("Amelia wins!", rows)) == ()
    assert overflow(RoundEnd("round 1 over", "5 bids met", rows, "", "any button")) == ()


def test_six_named_players_standings_go_before_the_round_end_s_extra_line() -> None:
    """Six people with their own names and a throw on the extra line: the standings were
    squeezed into one cut line of the smallest letters ("Zoe 1 Maximilian 0 Jurgen.."),
    three of the six never shown. The extra line gives way, as a game end's detail does."""
    rows = (("Zoe", "1"), ("Maximilian", "0"), ("Jurgen", "0"))
    rows += (("Ann-Kathrin", "0"), ("Robo", "0"), ("HAL 9000", "4"))
    lost = "HAL 9000 takes 4 points"
    with_extra = RoundEnd("round 1", lost, rows, "HAL 9000 32", "next: HAL 9000")
    assert overflow(with_extra) == ()
    assert render(with_extra).tobytes() == render(replace(with_extra, extra="")).tobytes()
    # with room for both, both are shown
    few = RoundEnd("round 1 over", "P2 loses 1 life", rows[:2], "P2 32", "next: P2")
    assert render(few).tobytes() != render(replace(few, extra="")).tobytes()


def test_a_throw_s_player_takes_the_room_its_corner_leaves() -> None:
    """ "Bartholomew" beside "throw 1/3" was cut to "Bartholo..": the name had half the
    line whatever the corner's width. A name longer than the room is still cut."""
    assert overflow(Result("Bartholomew", "63", "throw 1/3", "ROLL again  STOP stand")) == ()
    assert overflow(Result("Bartholomew", "63", "", "ROLL again  STOP stand")) == ()
    assert overflow(Result(LONG, "63", "throw 1/3", "")) == (LONG,)


def test_three_standings_go_in_one_column_when_two_would_cut_a_name() -> None:
    """A mythical round of Ann, Bob and Charlotte: "Charlotte +10" in half the width was
    "Charlott..". Three lines were free below: one column holds the name whole."""
    rows = (("Ann", "-10"), ("Bob", "+10"), ("Charlotte", "+10"))
    end = RoundEnd("round 1 over", "2 bids met", rows, "", "any button")
    assert overflow(end) == ()
    assert "Charlotte" in render_text(end)
    # names that two columns hold whole stay in two columns
    short = (("Ann", "-10"), ("Bob", "+10"), ("Cy", "+10"))
    two = render(RoundEnd("round 1 over", "2 bids met", short, "", "any button"))
    assert two.crop((64, 27, 128, 38)).getbbox() is not None  # Cy in the second column


def test_a_game_end_shows_every_name_whole_before_its_hint() -> None:
    """The final standings of Ann, Robo and Christopher in points (mex, MX-10) were
    "Chris.. -1 pts" in two columns above "any button: menu": the hint gives way (any
    button works all the same) when that leaves the room for one column."""
    rows = (("Ann", "1 pt"), ("Robo", "1 pt"), ("Christopher", "-1 pt"))
    end = GameEnd("no winner", rows)
    assert overflow(end) == ()
    assert "Christopher" in render_text(end)
    # names that fit two columns keep the hint
    short = GameEnd("no winner", (("Ann", "1 pt"), ("Robo", "1 pt"), ("Cy", "-1 pt")))
    assert render(short).tobytes() != render(replace(short, hint="")).tobytes()


def test_a_turn_s_info_line_drops_its_last_parts_whole() -> None:
    """ "to beat: 54 Christopher  Mexx x1" was cut to "to beat: 54 Christopher M..": the
    line's parts are most important first, and those past the width go whole, as on a
    throw's and a round end's lines."""
    info = "to beat: 54 Christopher  Mexx x1"
    turn = Turn("Ann", "Robo stands", "roll, then press ROLL", info, 12)
    assert overflow(turn) == ()
    first = Turn("Ann", "Robo stands", "roll, then press ROLL", "to beat: 54 Christopher", 12)
    assert render(turn).tobytes() == render(first).tobytes()
    both = Turn("P1", "round 1  throw 1/3", "roll, then press ROLL", "now 63  pot 4  pirate P2 x2")
    assert overflow(both) == ()
    assert render(both).tobytes() != render(replace(both, info="now 63  pot 4")).tobytes()


def test_a_number_after_a_name_ending_in_one_stands_apart() -> None:
    """The font's space is 2 px at the small sizes, so "HAL 9000 32" read as "HAL
    900032" and "P1 0" as "P10". A space between two digits is now wider than any gap
    inside a number; a space elsewhere stays as it was."""
    digits = render(Message("game over", "9000 32"))
    assert _widest_gap(digits, 14, 26) >= 3
    one_number = render(Message("game over", "900032"))
    assert _widest_gap(one_number, 14, 26) < 3
    plain = Message("game over", "Ann wins")
    drawn = Image.new("1", (128, 12), 0)
    ImageDraw.Draw(drawn).text((0, 0), "Ann wins", font=ImageFont.load_default(size=10), fill=1)
    assert _widest_gap(render(plain), 14, 26) == _widest_gap(drawn, 0, 12)


def test_the_parts_of_a_line_are_measured_as_they_are_drawn() -> None:
    """A round end's extra line chose a size at which its parts fitted without the 1 px
    each is drawn wider, and then cut the last one: "1 Mexx" was left out of "P1 is out
    Ann 65  1 Mexx" (and of "... P2 500 ..." once a space between digits grew)."""
    rows = (("P1", "0"), ("P2", "3"), ("Ann", "1"))
    for extra in ("P1 is out  Ann 65  1 Mexx", "P1 is out  P2 500  1 Mexx"):
        assert overflow(RoundEnd("round 3 over", "P1 loses 2 lives", rows, extra)) == ()


def _first_word(image: Image.Image, top: int, bottom: int, space: int) -> tuple[int, int]:
    """(left, right) of the first run of ink in rows top..bottom whose gaps are at most
    ``space`` px: what reads as one word or number."""
    band = image.crop((0, top, image.width, bottom))
    inked = [band.crop((x, 0, x + 1, band.height)).getbbox() is not None for x in range(128)]
    left = inked.index(True)
    right = left
    for x in range(left, 128):
        if inked[x]:
            right = x
        elif x - right > space:
            break
    return left, right


def test_a_name_ending_in_a_digit_stands_apart_from_its_count_in_the_standings() -> None:
    """Five CPU players at a game end: "CPU2" and "20" were drawn 2 px apart in three
    columns, narrower than a space between two digits (3 px), and read "CPU220". A
    name ending in a digit keeps more room from its count than such a space."""
    rows = tuple((f"CPU{i}", "20") for i in range(1, 6))
    end = GameEnd("draw", rows)
    assert overflow(end) == ()
    image = render(end)
    ink_rows = [y for y in range(20, 52) if image.crop((0, y, 128, y + 1)).getbbox()]
    top = ink_rows[0]
    left, right = _first_word(image, top, top + 11, space=3)
    widest = ImageDraw.Draw(Image.new("1", (1, 1))).textbbox(
        (0, 0), "CPU1", font=ImageFont.load_default(size=10)
    )
    assert right - left + 1 <= widest[2] - widest[0]  # the name alone, not "CPU120"


@pytest.mark.parametrize(
    ("first", "second", "value"),
    [
        ("Mohammed", "Mohammad", "2"),
        ("Mohammed", "Mohammad", "12"),
        ("Alexandra", "Alexander", "+120"),
        ("Mohammed Ali", "Mohammed Amr", "3"),
    ],
)
def test_two_names_cut_in_the_standings_are_still_told_apart(
    first: str, second: str, value: str
) -> None:
    """The config accepts names that differ within their first eight characters, but six
    players' standings have room for about six: Mohammed and Mohammad were both drawn
    "Mohamm.." and nobody could tell whose lives were whose. Each now keeps, after its
    "..", the letters it differs by, so the screen changes when the two swap places."""
    others = (("Ann", "1"), ("Bob", "1"), ("Cy", "1"), ("Dee", "1"))
    for screen in (
        RoundEnd("round 1", "Ann loses 1 life", ((first, value), (second, value), *others)),
        GameEnd("no winner", ((first, value), (second, value), *others)),
    ):
        swapped = replace(screen, standings=((second, value), (first, value), *others))
        assert set(overflow(screen)) >= {first, second}  # cut, as before
        assert render(screen).tobytes() != render(swapped).tobytes(), screen
    drawn = render_text(RoundEnd("round 1", "", ((first, "2"), (second, "2"))))
    assert first in drawn and second in drawn  # whole where there is room


def test_a_round_s_end_names_who_is_next_whole_at_the_smallest_size() -> None:
    """ "round 2  next: Bartholomew" was too wide at either of the line's sizes, and the
    hint, the only place the round's end says who throws next, was cut. The line now
    takes the smallest size before it cuts."""
    end = RoundEnd(
        "round 2",
        "Bartholomew takes 1",
        (("Maximilianus", "16"), ("Bartholomew", "1")),
        "Bartholomew 100",
        "next: Bartholomew",
    )
    assert overflow(end) == ()
    assert "next: Bartholomew" in shown_whole(end)


def test_a_game_end_s_headline_gives_way_to_four_names_whole() -> None:
    """A mexen game of four ended "Maximi.. 294" in two columns under a large "no winner":
    one column of four lines fits under the headline a size smaller."""
    rows = (("Maximilian", "294"), ("Charlotte", "0"), ("Alexandra", "0"), ("Jo", "1344"))
    end = GameEnd("no winner", rows, detail="last round: Jo took 1344")
    assert overflow(end) == ()
    assert "Maximilian" in render_text(end)
    # standings that are whole under the large headline keep it large
    top = (0, 0, 128, 21)  # the large headline's line
    alone = render(GameEnd("no winner", ())).crop(top).tobytes()
    short = (("Ann", "294"), ("Bob", "0"), ("Cy", "0"), ("Jo", "1344"))
    assert render(GameEnd("no winner", short)).crop(top).tobytes() == alone
    assert render(end).crop(top).tobytes() != alone


def test_a_round_end_s_extra_line_gives_way_to_names_whole() -> None:
    """A mexen round end of three: with the throw and the pot on the extra line the
    standings went in two columns, "Maximi.. 159"; without it one column holds them whole.
    The extra line gives way, as it does when the standings do not fit at all."""
    rows = (("Maximilian", "159"), ("Charlotte", "0"), ("Jo", "0"))
    end = RoundEnd("round 1", "Maximilian takes 159", rows, "Jo 600  pot +6 = 159", "next: Jo")
    assert overflow(end) == ()
    assert render(end).tobytes() == render(replace(end, extra="")).tobytes()
    # standings whole either way keep the extra line
    short = (("Max", "159"), ("Cleo", "0"), ("Jo", "0"))
    kept = replace(end, standings=short)
    assert render(kept).tobytes() != render(replace(kept, extra="")).tobytes()


def test_a_chooser_s_note_is_drawn_beside_its_place_in_the_list() -> None:
    """MY-3, MY-7: the player to roll in a mythical trick sees their bid and the tricks
    taken so far beside the die chooser's "2/7"; the list's place is never hidden by it."""
    plain = Choose("Ann's die, trick 2", "griffin", 1, 7)
    noted = replace(plain, note="bid 2  took 1")
    a, b = render(plain), render(noted)
    changed = ImageChops.difference(a.convert("L"), b.convert("L")).getbbox()
    assert changed is not None
    assert changed[1] >= 12 and changed[3] <= 24  # only the line below the title
    assert changed[2] < 128 - 16  # left of "2/7"
    assert "bid 2  took 1" in render_text(noted)
    assert overflow(noted) == ()
    # a note too long for the line is cut, and the place in the list stays
    long = replace(plain, note=LONG)
    assert overflow(long) and render(long).crop((110, 12, 128, 24)) == a.crop((110, 12, 128, 24))


def _ink_bands(image: Image.Image, top: int, bottom: int) -> int:
    """How many runs of inked rows, parted by empty rows, rows top..bottom hold."""
    bands, inked_before = 0, False
    for y in range(top, bottom):
        inked = image.crop((0, y, image.width, y + 1)).getbbox() is not None
        bands += inked and not inked_before
        inked_before = inked
    return bands


def _ink(image: Image.Image, box: tuple[int, int, int, int]) -> Image.Image:
    """The part of ``box`` that holds ink, cropped to it."""
    part = image.crop(box)
    inked = part.getbbox()
    assert inked is not None, f"nothing drawn in {box}"
    return part.crop(inked)


def test_a_name_too_long_for_the_line_is_cut_where_the_line_ends() -> None:
    """A name too long for the line is cut only where the line ends; cut after sixteen
    letters with "..", a quarter of the line would stay empty."""
    turn = Turn(LONG, "round 1  throw 1/3", "roll, then press ROLL")
    assert overflow(turn) == (LONG,)
    drawn = _ink(render(turn), (0, 12, 128, 24))
    assert drawn.width >= 128 - 10  # no room left for one more letter


def test_the_wrapped_lines_of_a_message_stand_apart() -> None:
    """The lines of a message stand a row apart: drawn with no row between them, the "p"
    and "g" of one line would run into the brackets of the next, and three lines would
    read as two blurred ones."""
    text = "no picture from the camera (usb:0): plug it in firmly, then try again"
    message = Message("camera", text, "ROLL: try again")
    assert overflow(message) == ()
    assert len(render_text(message).splitlines()) == 3
    assert _ink_bands(render(message), 13, 52) == 3  # three lines of text, each apart


def test_a_title_too_long_for_its_band_is_said_to_be_cut() -> None:
    """A title cut to fit the bar at the top is among the texts that do not fit: left out,
    the checks that every screen of a game fits would pass with a title cut short."""
    for screen in (Message(LONG), Menu(LONG, "mexico"), Refusal("tilted", title=LONG)):
        assert overflow(screen) == (LONG,)
    assert overflow(Resumed(LONG, "round 3")) == (f"resumed: {LONG}",)
    assert overflow(Message("camera")) == ()


def test_a_throw_s_note_of_several_parts_is_centred_under_the_value() -> None:
    """The value of a throw is centred, and so is the note below it, even a note of two
    parts: drawn against the left edge, it would sit askew under a value in the middle."""
    result = Result("P1", "300", "turn over", "next: P2", "pirate P1  pot +3 = 7")
    assert overflow(result) == ()
    note = render(result).crop((0, 36, 128, 48)).getbbox()
    assert note is not None
    left, right = note[0], 128 - note[2]
    assert left > 4 and abs(left - right) <= 2


def test_the_place_in_a_list_of_two_is_shown() -> None:
    """A choice between two things says which of the two is shown: without the "1/2"
    beside the title, nobody could tell the first from the second."""
    first = render(Choose("P1's die", "keep", 0, 2))
    second = render(Choose("P1's die", "keep", 1, 2))
    corner = (96, 12, 128, 24)
    assert first.crop(corner).getbbox() is not None
    assert first.crop(corner).tobytes() != second.crop(corner).tobytes()
    assert render(Choose("P1's die", "keep", 0, 1)).crop(corner).getbbox() is None


@pytest.mark.parametrize(("index", "count", "place"), [(0, 3, "1/3"), (2, 3, "3/3"), (6, 7, "7/7")])
def test_the_place_in_a_list_counts_from_one(index: int, count: int, place: str) -> None:
    """The place beside the title counts from one, as people do: the first of three rules
    reads "1/3" and the last "3/3"; counted from nought, they would read "0/3" and "2/3"."""
    shown = _ink(render(Menu("rules", "mexico", index, count)), (64, 12, 128, 24))
    alone = _ink(render(Message("x", place)), (0, 13, 64, 26))  # the same text, drawn alone
    assert shown.size == alone.size and shown.tobytes() == alone.tobytes()


def test_a_turn_shows_the_counts_single_spaced_when_that_is_what_fits() -> None:
    """A turn with no note for the foot shows everyone's count there, one space apart when
    two spaces do not fit: otherwise three players with longer names would leave the line
    empty, though one space apart they fit."""
    rows = (("Bob", "6"), ("Dmitri", "6"), ("Maximilian", "3"))
    turn = Turn("Bob", "round 2  throw 1/3", "roll, then press ROLL", "", None, rows)
    assert overflow(turn) == ()
    foot = (0, 52, 128, 64)
    assert render(turn).crop(foot).getbbox() is not None
    assert render(turn).tobytes() != render(replace(turn, standings=())).tobytes()


def test_a_long_corner_leaves_the_throw_s_player_their_name() -> None:
    """A corner too long for its half of the line is cut, not the player's name beside it:
    taking the whole line, it would cut the name to nothing, and nobody could tell whose
    throw it was."""
    result = Result("Ann", "63", LONG, "ROLL again  STOP stand")
    assert overflow(result) == (LONG,)  # the corner is cut, not the name
    assert render(result).crop((0, 0, 40, 11)).getbbox() is not None


def test_five_players_standings_go_in_columns_before_a_round_end_s_extra_line() -> None:
    """Five players with a throw on the extra line: the extra line gives way so that the
    standings go in two columns. Squeezed into one line of the smallest letters, they
    would read "Christopher 0  Robo 96  Bob..", two of the five never shown."""
    rows = (("Christopher", "0"), ("Robo", "96"), ("Bob", "600"), ("Cy", "1344"))
    rows += (("Charlotte", "159"),)
    end = RoundEnd("round 3 over", "Cy takes 1344", rows, "HAL 9000 32", "next: Robo")
    image = render(end)
    assert image.tobytes() == render(replace(end, extra="")).tobytes()
    assert image.crop((64, 27, 128, 64)).getbbox() is not None  # a second column


def test_a_game_end_s_detail_gives_way_to_its_hint() -> None:
    """Four players and the last round's detail: the detail (there only if there is room)
    gives way, and "any button: menu" stays. Kept, the detail would push the standings
    down over the place of the hint, and the hint would be left out."""
    rows = (("P1", "3"), ("P2", "2"), ("P3", "0"), ("P4", "1"))
    end = GameEnd("P1 wins!", rows, detail="last round: P2 lost 2")
    assert overflow(end) == ()
    assert render(end).tobytes() == render(replace(end, detail="")).tobytes()
    assert render(end).tobytes() != render(replace(end, hint="")).tobytes()


def test_a_message_starting_with_a_word_wider_than_the_screen_starts_below_the_title() -> None:
    """A camera's message starting with its long device path starts right below the
    title: begun one line down, under an empty line, the words after the path would be
    lost below."""
    path = "/dev/v4l/by-id/usb-046d_HD_Pro_Webcam_C920-video-index0"
    message = Message("camera", f"{path} is not there: plug the camera in", "ROLL: try again")
    assert overflow(message) == (path,)  # only the path, cut to the width
    image = render(message)
    assert image.crop((0, 13, 128, 25)).getbbox() is not None  # right below the title


def _ends_in_two_dots(image: Image.Image, top: int, bottom: int) -> bool:
    """The last two marks in rows top..bottom are dots (one pixel each): a line cut ".."."""
    band = image.crop((0, top, image.width, bottom))
    inked = [x for x in range(band.width) if band.crop((x, 0, x + 1, band.height)).getbbox()]
    last, before = inked[-1], inked[-2]
    dots = [band.crop((x, 0, x + 1, band.height)) for x in (last, before)]
    return last - before > 1 and all(ink(d) == 1 for d in dots)


def test_a_message_longer_than_the_screen_ends_in_dots_and_is_said_to_be_cut() -> None:
    """A message longer than three lines ends in ".." and is said not to fit: otherwise
    its last words would be lost with no sign, the third line ending in a whole word as if
    the message ended there, and the texts that did not fit said to be none."""
    text = (
        "not in mexico: keep both dice, then roll them again and press ROLL once they "
        "lie still in the tray; the table reads them"
    )
    message = Message("HOLD", text, "roll, then press ROLL")
    assert overflow(message)
    assert _ends_in_two_dots(render(message), 36, 51)
    short = Message("HOLD", "not in mexico: keep both dice", "roll, then press ROLL")
    assert overflow(short) == () and not _ends_in_two_dots(render(short), 13, 26)


@pytest.mark.parametrize(
    "name",
    ["Ann\nBob", "\x1b[31mRED\x1b[0m\x1b]0;title\x07", "Ann\x9b2J", "Ann\u2028Bob", "Ann\r"],
)
def test_a_name_from_a_log_reaches_the_terminal_escaped_on_its_line(name: str) -> None:
    """A game log may name a player anything. In the terminal display a line break in
    the name split the box and an ESC sequence reached the terminal (a colour, the window's
    title, the bell); each control character is written as JSON writes it, as replay does."""
    import io

    from table.hw.display import TerminalDisplay

    screen = Turn(name, "round 1  throw 1/3", "roll, then press ROLL", "", None, ((name, "0"),))
    text = render_text(screen)
    assert len(text.splitlines()) == 4  # header, player, hint, standings
    assert all(line.isprintable() for line in text.splitlines())
    out = io.StringIO()
    TerminalDisplay(out=out).show_text(text)
    shown = out.getvalue()
    assert all(line.isprintable() for line in shown.splitlines())
    assert json.dumps(name)[1:-1] in shown  # the name still there, spelt out
    assert render_text(replace(screen, player="Ann")).splitlines()[1] == "  Ann"


def _drawn_texts(screen: Screen, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts ``screen`` draws, as drawn (cut or not)."""
    from table.service import screens

    texts: list[str] = []
    clipped = screens._Canvas._clipped

    def noted(self: Any, *args: Any) -> None:
        texts.append(args[5])
        clipped(self, *args)

    monkeypatch.setattr(screens._Canvas, "_clipped", noted)
    render(screen)
    return texts


def _could_be(text: str, names: tuple[str, ...]) -> list[str]:
    """The names a drawn text could stand for: itself, or, cut ("Wil..ina", "Wilhelm..",
    "M..ne.."), each name that, as the display spells it and with its spaces left out (a
    space is hardly wider than the gap between letters), begins with the part before
    the first ".." and has the rest, less any "..", later on."""
    text = text.replace(" ", "")
    spelt = {n: drawable(n).replace(" ", "") for n in names}
    if ".." not in text:
        return [n for n in names if spelt[n] == text]
    head, _, tail = text.partition("..")
    tail = tail.removesuffix("..")
    return [n for n in names if spelt[n].startswith(head) and tail in spelt[n][len(head) :]]


WILHELMS = (
    ("Wilhelmina", "10"),
    ("Wilhelmone", "0"),
    ("Christabel", "-20"),
    ("Christobel", "0"),
    ("Evangelia", "30"),
    ("Evangelos", "-10"),
)


@pytest.mark.parametrize(
    "screen",
    [
        GameEnd("no winner", WILHELMS),
        RoundEnd("round 1", "", WILHELMS),
        GameEnd("no winner", tuple((n, "2") for n in ("Wilhelma", "Wilhelmo", "Ann", "Bo"))),
    ],
)
def test_a_name_cut_in_the_standings_stands_for_one_player(
    screen: Screen, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cut to the width its column leaves, Wilhelmone was drawn "Wilhelm.." beside
    "Wilhelmi..": the two were cut apart, so they were not seen as alike, but
    "Wilhelm.." could be either. A cut name that could be another keeps the letters it
    differs by."""
    names = tuple(n for n, _v in screen.standings)  # type: ignore[attr-defined]
    drawn = [t for t in _drawn_texts(screen, monkeypatch) if _could_be(t, names)]
    assert len(drawn) == len(names), drawn  # every name drawn, whole or cut
    for text in drawn:
        assert len(_could_be(text, names)) == 1, (text, drawn)


@pytest.mark.parametrize(
    "screen",
    [
        GameEnd(
            "no winner",
            (
                ("Maximilian M", "12 pts"),
                ("Bartholomew", "3"),
                ("Gabriel W", "-12"),
                ("Wilhelm", "+10"),
                ("Gabriela W", "3"),
                ("Wilhelmine W", "-12"),
            ),
        ),
        GameEnd(
            "no winner",
            (
                ("Marianne W", "12 pts"),
                ("Christina", "-12"),
                ("Annaliese", "-12"),
                ("Friedrich Ko", "12 pts"),
                ("Antonio M", "-12"),
                ("Mariane", "+10"),
            ),
        ),
        GameEnd(
            "no winner",
            (
                ("Gabriele W", "+10"),
                ("Josephine M", "-12"),
                ("Joseph M", "12 pts"),
                ("Bartholomeus", "3"),
                ("Friedrich M", "+10"),
                ("Alexander W", "+10"),
            ),
        ),
        GameEnd(  # alike only as the display spells them: "AEth.."
            "no winner",
            tuple(
                (n, "12 pts")
                for n in (
                    "\u00c6theldreda",
                    "AEthelwyn Ko",
                    "Bartholomeus",
                    "Maximilian M",
                    "Friedrich M",
                    "Alexander W",
                )
            ),
        ),
    ],
)
def test_a_name_cut_between_its_start_and_end_never_stands_for_two_players(
    screen: Screen, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Names the config takes, whose cut between their start and their end ("Gabri.. W",
    "M..ne", "J.. M") kept only letters another name has too, in that order: a cut that
    looked told apart and was not. Where no cut fits its room that only one name could
    be ("Joseph M" beside "Josephine M" in a sixth of the screen), the name is cut at its
    end as any text is, and each name drawn can still be its own."""
    names = tuple(n for n, _v in screen.standings)  # type: ignore[attr-defined]
    drawn = [t for t in _drawn_texts(screen, monkeypatch) if _could_be(t, names)]
    assert len(drawn) == len(names), drawn
    for text in drawn:
        if ".." in text and not text.endswith(".."):  # cut between its start and its end
            assert len(_could_be(text, names)) == 1, (text, drawn)


def test_a_hint_cut_keeps_every_letter_whose_dots_still_fit() -> None:
    """Cut, a text keeps as much as fits with its "..": here exactly the width."""
    from table.service.screens import _width

    long = "stand the HOLD of a again HOLD again dice next STOP then"
    cut = "stand the HOLD of a aga.."
    assert _width(long, 10) > 128 and _width(cut, 10) == 128  # the premise
    a, b = render(Turn("P1", "round 1", long)), render(Turn("P1", "round 1", cut))
    assert ImageChops.difference(a, b).getbbox() is None


def test_six_lives_are_six_hearts_and_seven_a_heart_and_a_number() -> None:
    assert "6" not in shown_whole(Turn("P1", "round 1", "roll", lives=6))
    assert "7" in shown_whole(Turn("P1", "round 1", "roll", lives=7))
