"""Settling on frame sequences built from the real labelled photos.

A scene is a real photo with its dice painted out (``cv2.inpaint``), onto which
the photo's own dice, cut out with their label boxes, are pasted where the test
wants them. Moving dice are drawn motion-blurred (the average of several
positions along their path), tumbling dice are turned, and a hand is a large
shaded skin-coloured blob with fingers. The reader is an oracle that reports the
dice where they were pasted, so these tests check the settling logic itself:
pixels that change, readings that disagree, a region far bigger than a die.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np
import pytest

from vision.dataset import default_data_dir, load_set
from vision.robustness import lit
from vision.settle import (
    SettleConfig,
    SettleEvent,
    Settler,
    SettleState,
    readings_agree,
    watch,
)
from vision.sources import load_image
from vision.types import DieReading, FrameReading, FrameStatus

MOVING, SETTLED, HAND, EMPTY = (
    SettleState.MOVING,
    SettleState.SETTLED,
    SettleState.HAND,
    SettleState.EMPTY,
)


DICE_DIR = default_data_dir()  # ../shared/data/dice, or $DICETABLE_SHARED
needs_photos = pytest.mark.skipif(
    not (DICE_DIR / "byler_d6" / "manifest.json").exists(),
    reason=f"labelled dice photos not found in {DICE_DIR}",
)


# -- scene building ------------------------------------------------------------


@dataclass(frozen=True)
class Crop:
    value: int
    image: np.ndarray  # BGR: the label box grown on every side, so its centre is the face's
    face: tuple[float, float]  # the label box's width and height


@dataclass(frozen=True)
class Placed:
    crop: int  # index into Scene.crops
    x: float  # top-left corner of the crop, pixels
    y: float
    turns: int = 0  # quarter turns (a tumbling die)


class Scene:
    """A dice-free background and the real dice cut from the same photo.

    ``grow`` widens each label box before cutting (and painting out): the webcam
    set's boxes hold only the top face, while the die's sides show beside it.
    """

    def __init__(self, set_name: str, file: str, grow: float) -> None:
        labelled = next(i for i in load_set(set_name) if i.name == file)
        photo = load_image(labelled.path)
        self.height, self.width = photo.shape[:2]
        mask = np.zeros(photo.shape[:2], np.uint8)
        crops = []
        for die in labelled.dice:
            x0, y0, x1, y1 = die.bbox
            g = grow * max(x1 - x0, y1 - y0)
            cx0, cy0 = max(round(x0 - g), 0), max(round(y0 - g), 0)
            cx1, cy1 = min(round(x1 + g), self.width), min(round(y1 + g), self.height)
            crops.append(Crop(die.value, photo[cy0:cy1, cx0:cx1].copy(), (x1 - x0, y1 - y0)))
            cv2.rectangle(mask, (cx0 - 4, cy0 - 4), (cx1 + 4, cy1 + 4), 255, -1)
        self.crops = tuple(crops)
        self.background = cv2.inpaint(photo, mask, 9, cv2.INPAINT_TELEA)
        self.die_size = float(np.median([max(c.face) for c in crops]))
        self.crop_size = float(np.median([max(c.image.shape[:2]) for c in crops]))

    def _paste(self, canvas: np.ndarray, placed: Placed) -> None:
        img = np.rot90(self.crops[placed.crop].image, placed.turns)
        h, w = img.shape[:2]
        x, y = round(placed.x), round(placed.y)
        x0, y0 = max(x, 0), max(y, 0)
        x1, y1 = min(x + w, self.width), min(y + h, self.height)
        if x1 > x0 and y1 > y0:
            canvas[y0:y1, x0:x1] = img[y0 - y : y1 - y, x0 - x : x1 - x]

    def render(
        self,
        dice: list[Placed],
        *,
        previous: list[Placed] | None = None,
        blur_steps: int = 1,
        hand: tuple[float, float] | None = None,
        noise: float = 0.0,
        gain: float = 1.0,
        seed: int = 0,
    ) -> np.ndarray:
        """One camera frame; with ``previous`` and ``blur_steps`` > 1 the dice are smeared
        along their path from ``previous`` as a camera's exposure does."""
        paths = (
            [dice]
            if previous is None or blur_steps <= 1
            else [
                [
                    replace(d, x=p.x + (d.x - p.x) * t, y=p.y + (d.y - p.y) * t)
                    for p, d in zip(previous, dice, strict=True)
                ]
                for t in np.linspace(0.0, 1.0, blur_steps)
            ]
        )
        acc = np.zeros(self.background.shape, np.float32)
        for positions in paths:
            canvas = self.background.copy()
            for placed in positions:
                self._paste(canvas, placed)
            acc += canvas
        frame = acc / len(paths)
        if hand is not None:
            frame = self._draw_hand(frame, hand)
        frame = frame * gain
        if noise:
            frame = frame + np.random.default_rng(seed).normal(0.0, noise, frame.shape)
        return np.clip(frame, 0, 255).astype(np.uint8)

    def hand_mask(self, tip: tuple[float, float]) -> np.ndarray:
        """A palm and four fingers reaching up from the bottom edge, fingertips at ``tip``."""
        # Sized from the dice: a 16 mm die against a palm about 85 mm wide.
        s = self.die_size * 85 / 16 / 40
        mask = np.zeros((self.height, self.width), np.uint8)
        tx, ty = tip
        palm = (round(tx), round(ty + 38 * s))
        cv2.ellipse(mask, palm, (round(20 * s), round(24 * s)), 0, 0, 360, 255, -1)
        for i, dx in enumerate((-13, -4.5, 4.5, 13)):
            top = ty + (6 if i in (0, 3) else 0) * s
            x = round(tx + dx * s)
            cv2.line(mask, (x, round(top)), (x, round(ty + 30 * s)), 255, round(7 * s))
        wrist = (palm[0] - round(14 * s), palm[1]), (palm[0] + round(14 * s), self.height + 10)
        cv2.rectangle(mask, *wrist, 255, -1)  # the wrist, down past the edge of the picture
        return mask

    def hand_in_die_areas(self, tip: tuple[float, float]) -> float:
        return float(np.count_nonzero(self.hand_mask(tip))) / self.die_size**2

    def _draw_hand(self, frame: np.ndarray, tip: tuple[float, float]) -> np.ndarray:
        """The hand in shaded skin colour, with soft edges."""
        s = self.die_size / 7.5
        mask = self.hand_mask(tip)
        soft = cv2.GaussianBlur(mask, (0, 0), 1.5).astype(np.float32)[..., None] / 255.0
        yy, xx = np.mgrid[0 : frame.shape[0], 0 : frame.shape[1]]
        shade = (0.85 + 0.15 * np.sin(xx / (9 * s)) * np.cos(yy / (13 * s)))[..., None]
        skin = np.array([120, 150, 205], np.float32) * shade  # B, G, R
        return np.asarray(frame * (1 - soft) + skin * soft, dtype=np.float32)

    def reading(self, dice: list[Placed]) -> FrameReading:
        """What a perfect reader would say about ``dice`` lying still."""
        found = []
        for placed in dice:
            crop = self.crops[placed.crop]
            h, w = np.rot90(crop.image, placed.turns).shape[:2]
            cx, cy = placed.x + w / 2, placed.y + h / 2
            fw, fh = crop.face if placed.turns % 2 == 0 else crop.face[::-1]
            found.append(DieReading(crop.value, (cx, cy), ((cx, cy), (fw, fh), 0.0), 0.95))
        return FrameReading(FrameStatus.OK, "", tuple(found), 10.0)


EMPTY_READING = FrameReading(FrameStatus.REROLL, "no dice found", (), 10.0)


def states(events: list[SettleEvent]) -> list[SettleState]:
    return [e.state for e in events]


def assert_counted(events: list[SettleEvent]) -> None:
    """The first rest of ``events`` is a new one: ``entered``, not ``adopted``."""
    settled = [e for e in events if e.settled]
    assert settled and settled[0].entered and not settled[0].adopted, states(events)


def adopted_change(
    scene: Scene, dice: list[Placed], change: Callable[[np.ndarray], np.ndarray]
) -> Settler:
    """A settler that saw ``dice`` lie still, then the same frames through ``change`` (a
    shadow, a lamp) for ten frames, and took the changed scene for the tray."""
    settler = Settler(SettleConfig(adopt_after=5))
    for k in range(3):
        settler.update(scene.render(dice, seed=k), scene.reading(dice))
    held = [
        settler.update(change(scene.render(dice, seed=k)), scene.reading(dice)) for k in range(10)
    ]
    assert [e.adopted for e in held if e.settled][:1] == [True], states(held)
    return settler


def hand_adopted(scene: Scene) -> tuple[Settler, list[Placed], tuple[float, float]]:
    """A settler that saw ``scene``'s dice at rest, then a hand reaching over the first
    die kept still until it was adopted (the dice's first rest under it ``adopted``):
    that settler, the dice, and where the hand's fingertip lies."""
    dice = resting(scene)
    tip = (dice[0].x, dice[0].y + 10)
    settler = Settler(SettleConfig(adopt_after=5))
    for k in range(3):
        settler.update(scene.render(dice, seed=k), scene.reading(dice))
    under = scene.reading(dice[1:])
    held = [settler.update(scene.render(dice, hand=tip), under) for _ in range(9)]
    assert [e.adopted for e in held if e.settled][:1] == [True], states(held)
    return settler, dice, tip


def assert_shift_adopted(
    settler: Settler,
    scene: Scene,
    dice: list[Placed],
    tip: tuple[float, float],
    seen: FrameReading,
) -> None:
    """The adopted hand at ``tip`` shifts 12 px right and 8 up and keeps still, ``seen``
    read under it: the dice's next rest is ``adopted``, not counted."""
    moved = scene.render(dice, hand=(tip[0] + 12, tip[1] - 8))
    events = [settler.update(moved, seen) for _ in range(5)]
    settled = [e for e in events if e.settled]
    assert settled and (settled[0].entered, settled[0].adopted) == (False, True), states(events)


@pytest.fixture(scope="module")
def byler() -> Scene:
    # A grey cardboard tray with four small dice (about 40 px in 640 x 640).
    return Scene("byler_d6", "IMG_20191208_112833.jpg", grow=0.15)


@pytest.fixture(scope="module")
def byler_plain() -> Scene:
    # A 5 and a 3 on grey cardboard whose lower half is too plain to measure a shake by.
    return Scene("byler_d6", "IMG_20191209_100541.jpg", grow=0.15)


@pytest.fixture(scope="module")
def matteo() -> Scene:
    # A wooden desk under a webcam, three ivory dice showing 5 (labels: top face only).
    return Scene("matteo_webcam", "train_five_25.jpg", grow=0.4)


def resting(scene: Scene) -> list[Placed]:
    """The scene's dice laid out apart from each other in the middle of the frame."""
    gap = 1.5 * scene.crop_size
    cx, cy = scene.width / 2, scene.height / 2
    n = len(scene.crops)
    return [
        Placed(i, cx + (i - (n - 1) / 2) * gap - scene.crop_size / 2, cy - scene.crop_size / 2)
        for i in range(n)
    ]


def throw(scene: Scene, frames: int, still: int) -> tuple[list[np.ndarray], list[FrameReading]]:
    """Dice flying in from the left, tumbling and smeared, slowing, then lying still."""
    end = resting(scene)
    out_frames: list[np.ndarray] = []
    readings: list[FrameReading] = []
    previous: list[Placed] | None = None
    for k in range(frames + still):
        left = max(frames - 1 - k, 0)  # frames still to fly
        travel = 6.0 * left * (left + 1) / 2  # decelerating: 6 px less each frame
        dice = [
            replace(
                d, x=d.x - travel, y=d.y + 0.4 * travel * (1 if d.crop % 2 else -1), turns=left % 4
            )
            for d in end
        ]
        out_frames.append(scene.render(dice, previous=previous, blur_steps=7, seed=k))
        readings.append(scene.reading(dice))
        previous = dice
    return out_frames, readings


# -- tests on built sequences -------------------------------------------------


@needs_photos
@pytest.mark.parametrize("which", ["byler", "matteo"])
def test_throw_is_moving_until_it_rests_then_settles_once(
    which: str, request: pytest.FixtureRequest
) -> None:
    scene: Scene = request.getfixturevalue(which)
    flying, still = 10, 6
    frames, readings = throw(scene, flying, still)
    settler = Settler(SettleConfig(consistent_frames=3))
    events = [settler.update(f, r) for f, r in zip(frames, readings, strict=True)]
    got = states(events)
    # The dice reach their resting place on frame `flying - 1`, still smeared by the
    # last bit of travel; the first sharp frame after it differs from it, so it is
    # "moving" too. Three still, agreeing readings later the throw is settled.
    first_rest = flying
    assert got[: first_rest + 1] == [MOVING] * (first_rest + 1), got
    assert got[first_rest + 1 : first_rest + 3] == [MOVING, MOVING], got
    assert got[first_rest + 3 :] == [SETTLED] * (len(got) - first_rest - 3), got
    settled = [e for e in events if e.settled]
    assert settled[0].entered and not any(e.entered for e in settled[1:])
    assert sorted(settled[0].reading.values) == sorted(c.value for c in scene.crops)
    assert all(e.motion > 0.002 for e in events[1 : first_rest + 1])
    assert all(e.motion == 0.0 for e in events[first_rest + 1 :])


@needs_photos
def test_no_settling_while_dice_move_even_if_the_readings_agree(byler: Scene) -> None:
    """The reader reports the resting dice on every frame (as a reader fooled by a
    smear could); only the moving pixels can hold the settler back."""
    frames, _ = throw(byler, 12, 0)
    fixed = byler.reading(resting(byler))
    settler = Settler()
    got = [settler.update(f, fixed).state for f in frames]
    assert SETTLED not in got[1:], got
    assert got[1:] == [MOVING] * (len(got) - 1)


@needs_photos
def test_slow_creep_is_not_settled(byler: Scene) -> None:
    """A die sliding 2 px a frame: each reading agrees with the one before, and the
    changed pixels are few, but the die travels more than the tolerance."""
    start = resting(byler)
    settler = Settler(SettleConfig(consistent_frames=4))
    got = []
    for k in range(12):
        dice = [replace(d, x=d.x + (2.0 * k if d.crop == 0 else 0.0)) for d in start]
        got.append(settler.update(byler.render(dice), byler.reading(dice)).state)
    assert SETTLED not in got, got


@needs_photos
def test_flickering_values_on_still_frames_never_settle(matteo: Scene) -> None:
    dice = resting(matteo)
    frame = matteo.render(dice)
    good = matteo.reading(dice)
    first = good.dice[0]
    other = replace(first, value=7 - (first.value or 1))
    flicker = replace(good, dice=(other, *good.dice[1:]))
    settler = Settler(SettleConfig(consistent_frames=3))
    got = [settler.update(frame, good if k % 2 else flicker).state for k in range(8)]
    assert got == [MOVING] * 8, got


@needs_photos
def test_camera_noise_and_refused_dice_still_settle(byler: Scene) -> None:
    """Sensor noise does not count as motion; a reading that refuses a die settles
    too (the table then asks for a reroll), once it is stable."""
    dice = resting(byler)
    good = byler.reading(dice)
    refused = replace(
        good,
        status=FrameStatus.REROLL,
        reason="die 1 is tilted",
        dice=(replace(good.dice[0], value=None, reason="tilted"), *good.dice[1:]),
    )
    settler = Settler(SettleConfig(consistent_frames=3))
    events = [settler.update(byler.render(dice, noise=4.0, seed=k), refused) for k in range(5)]
    assert states(events) == [MOVING, MOVING, SETTLED, SETTLED, SETTLED]
    assert events[2].reading.status is FrameStatus.REROLL
    assert max(e.motion for e in events) < 0.002


# A camera trembling (a fan, a table leaned on): the whole picture moves up to 2 px.
SHAKE = [(0, 0), (2, 0), (0, -2), (-1, 1), (1, 2), (-2, -1), (0, 1), (1, -1)]


def shaken(frame: np.ndarray, k: int) -> np.ndarray:
    """``frame`` moved by the ``k``-th step of :data:`SHAKE` (whole pixels)."""
    dx, dy = SHAKE[k % len(SHAKE)]
    shift = np.float32([[1, 0, dx], [0, 1, dy]])
    size = (frame.shape[1], frame.shape[0])
    return np.asarray(cv2.warpAffine(frame, shift, size, borderMode=cv2.BORDER_REPLICATE))


@needs_photos
def test_a_trembling_camera_over_a_plain_tray_is_no_motion_once_measured(
    byler_plain: Scene,
) -> None:
    """Two dice on cardboard too plain to measure a shake by: it is measured on the dice,
    and undone once a second of it has shown the camera trembling about its place."""
    dice = resting(byler_plain)
    frame, reading = byler_plain.render(dice), byler_plain.reading(dice)
    assert [d.value for d in reading.dice] == [5, 3]
    settler = Settler(SettleConfig(consistent_frames=3))
    events = [settler.update(shaken(frame, k), reading) for k in range(24)]
    assert states(events)[:11] == [MOVING] * 11
    assert states(events)[14:] == [SETTLED] * 10


@needs_photos
@pytest.mark.parametrize("which", ["byler", "matteo"])
def test_a_trembling_camera_is_no_motion(which: str, request: pytest.FixtureRequest) -> None:
    scene: Scene = request.getfixturevalue(which)
    dice = resting(scene)
    frame, reading = scene.render(dice), scene.reading(dice)
    settler = Settler(SettleConfig(consistent_frames=3))
    events = [settler.update(shaken(frame, k), reading) for k in range(12)]
    assert states(events) == [MOVING, MOVING] + [SETTLED] * 10
    assert max(e.motion for e in events) < 0.002


@needs_photos
@pytest.mark.parametrize("which", ["byler", "matteo"])
def test_a_flickering_lamp_is_no_motion(which: str, request: pytest.FixtureRequest) -> None:
    """The light dims by a fifth every other frame (the camera's exposure against the
    mains), scaling every level, not shifting them."""
    scene: Scene = request.getfixturevalue(which)
    dice = resting(scene)
    reading = scene.reading(dice)
    settler = Settler(SettleConfig(consistent_frames=3))
    events = [
        settler.update(scene.render(dice, gain=0.8 if k % 2 else 1.0), reading) for k in range(8)
    ]
    assert states(events) == [MOVING, MOVING] + [SETTLED] * 6
    assert max(e.motion for e in events) < 0.002


@needs_photos
def test_still_dice_read_differently_frame_after_frame_are_refused_once(byler: Scene) -> None:
    """Readings that never agree on a still tray (a die read in some frames, refused in
    others) never settle; after ``waver_after`` still frames the event says so, once,
    with the last refused reading: something for a table to show instead of waiting
    without a word. After motion, a new still stretch may say so again."""
    dice = resting(byler)
    whole = byler.reading(dice)
    short = replace(whole, status=FrameStatus.REROLL, reason="die 2 is unclear")
    settler = Settler(SettleConfig(consistent_frames=3, waver_after=10))
    frame = byler.render(dice)
    events = [settler.update(frame, short if k % 3 == 1 else whole) for k in range(30)]
    assert SETTLED not in states(events)
    told = [k for k, e in enumerate(events) if e.wavered is not None]
    assert told == [10], told  # the tenth still frame after the first
    assert events[10].wavered == short
    moved = [replace(d, x=d.x + 30) for d in dice]
    settler.update(byler.render(moved, previous=dice, blur_steps=5), whole)
    again = [settler.update(byler.render(moved), short if k % 3 else whole) for k in range(15)]
    assert [e.wavered for e in again if e.wavered is not None] == [short]


@needs_photos
def test_values_that_waver_are_refused_and_agreeing_ones_never(byler: Scene) -> None:
    """Every reading ok but the values differ from frame to frame: the refusal says the
    dice read differently. Readings that agree settle, and nothing is said of wavering;
    nor of an empty tray, which is said to be empty."""
    dice = resting(byler)
    one = byler.reading(dice)
    other = replace(
        one, dice=(replace(one.dice[0], value=one.dice[0].value % 6 + 1), *one.dice[1:])
    )
    frame = byler.render(dice)
    settler = Settler(SettleConfig(consistent_frames=3, waver_after=8))
    events = [settler.update(frame, one if k % 2 else other) for k in range(20)]
    told = [k for k, e in enumerate(events) if e.wavered is not None]
    assert told == [9], told  # waver_after 8 is taken as 9: three times consistent_frames
    said = events[9].wavered
    assert said is not None and not said.is_ok
    assert said.reason == "the dice read differently from frame to frame"
    assert said.dice == events[9].reading.dice
    settler = Settler(SettleConfig(consistent_frames=3, waver_after=8))
    agreeing = [settler.update(frame, one) for _ in range(30)]
    assert SETTLED in states(agreeing) and all(e.wavered is None for e in agreeing)
    settler = Settler(SettleConfig(consistent_frames=3, waver_after=8))
    empty = FrameReading(FrameStatus.REROLL, "no dice seen", ())
    bare = [settler.update(byler.render([]), empty) for _ in range(30)]
    assert any(e.empty_settled for e in bare) and all(e.wavered is None for e in bare)


def test_waver_after_is_at_least_three_readings_agreeing() -> None:
    with pytest.raises(ValueError, match="waver_after"):
        SettleConfig(waver_after=0)


def rolling_bands(frame: np.ndarray, k: int, depth: float = 0.3) -> np.ndarray:
    """``frame`` under a lamp flickering faster than a rolling shutter's exposure: rows lit
    from 1 down to ``1 - depth`` and back, 3.3 bands to the frame (100 flickers a second
    at 30 frames), moved on by a third of a band at each frame ``k``."""
    rows = np.arange(frame.shape[0], dtype=np.float32)
    phase = 2 * np.pi * (3.3 * rows / frame.shape[0] + k / 3)
    light = 1.0 - depth * (0.5 + 0.5 * np.sin(phase))
    return lit(frame, np.repeat(light[:, None], frame.shape[1], axis=1))


@needs_photos
@pytest.mark.parametrize("which", ["byler", "matteo"])
def test_bands_of_a_flickering_lamp_moving_down_the_tray_are_no_motion(
    which: str, request: pytest.FixtureRequest
) -> None:
    """A lamp flickering 100 times a second, a camera taking 30 frames: the bands of light
    and shade move down the picture from frame to frame. Every pixel changes, but each row
    only in its light: the dice lying still settle. Before, the moving bands were a hand
    in the tray, or motion, for as long as the lamp was on, and no throw was counted."""
    scene: Scene = request.getfixturevalue(which)
    dice = resting(scene)
    reading = scene.reading(dice)
    settler = Settler(SettleConfig(consistent_frames=3))
    events = [
        settler.update(rolling_bands(scene.render(dice, seed=k), k), reading) for k in range(10)
    ]
    assert states(events) == [MOVING, MOVING] + [SETTLED] * 8, states(events)


@needs_photos
def test_bands_of_a_flickering_lamp_do_not_hide_a_rolling_die_or_a_hand(byler: Scene) -> None:
    """Under the moving bands a die still rolling is motion, and a hand reaching in is a
    hand: only changes of whole rows' light are forgiven."""
    start = resting(byler)
    settler = Settler(SettleConfig(consistent_frames=3))
    rolling = []
    for k in range(10):
        dice = [replace(d, x=d.x + (6.0 * k if d.crop == 0 else 0.0)) for d in start]
        frame = rolling_bands(byler.render(dice, seed=k), k)
        rolling.append(settler.update(frame, byler.reading(dice)))
    assert SETTLED not in states(rolling), states(rolling)
    settler = Settler(SettleConfig(consistent_frames=3))
    reading = byler.reading(start)
    tip = (byler.width * 0.5, byler.height * 0.55)
    frames = [byler.render(start, seed=k) for k in range(4)]
    frames += [byler.render(start, hand=tip, seed=k) for k in range(4, 8)]
    events = [settler.update(rolling_bands(f, k), reading) for k, f in enumerate(frames)]
    assert HAND in states(events[4:]), states(events)


@needs_photos
def test_a_trembling_camera_does_not_hide_a_creeping_die(byler: Scene) -> None:
    """Only a shift of the whole picture is forgiven: one die sliding 2 px a frame while
    the camera trembles by as much is still moving."""
    start = resting(byler)
    settler = Settler(SettleConfig(consistent_frames=4))
    got = []
    for k in range(12):
        dice = [replace(d, x=d.x + (2.0 * k if d.crop == 0 else 0.0)) for d in start]
        got.append(settler.update(shaken(byler.render(dice), k), byler.reading(dice)))
    assert SETTLED not in states(got), states(got)
    assert all(e.motion > 0 for e in got[1:])


@needs_photos
@pytest.mark.parametrize("which", ["byler", "matteo"])
@pytest.mark.parametrize("trembling", [False, True])
def test_hand_reaching_in_is_a_hand_not_a_throw(
    which: str, trembling: bool, request: pytest.FixtureRequest
) -> None:
    scene: Scene = request.getfixturevalue(which)
    dice = resting(scene)
    reading = scene.reading(dice)
    settler = Settler()

    def shake(frame: np.ndarray, k: int) -> np.ndarray:
        return shaken(frame, k) if trembling else frame

    settled = [settler.update(shake(scene.render(dice), k), reading) for k in range(3)]
    assert settled[-1].state is SETTLED

    # The hand comes up from the bottom edge in big steps, towards the dice.
    x = dice[0].x + scene.crop_size / 2
    tips = [(x, float(ty)) for ty in np.linspace(scene.height * 1.2, scene.height * 0.35, 6)]
    hand_events = [
        settler.update(shake(scene.render(dice, hand=tip, seed=k), k + 3), reading)
        for k, tip in enumerate(tips)
    ]
    got = states(hand_events)
    sizes = [scene.hand_in_die_areas(tip) for tip in tips]
    assert sizes[0] == 0 and sizes[-1] > 25  # out of the picture, then well in
    for state, size in zip(got, sizes, strict=True):
        # Never a throw while a hand is in; surely a hand once it is 15 dice big
        # (the settler's threshold is 10 die areas).
        if size > 0:
            assert state is not SETTLED, (got, sizes)
        if size > 15:
            assert state is HAND, (got, sizes)
    first_hand = got.index(HAND)
    assert hand_events[first_hand].entered
    assert all(e.motion > 0.01 for e, size in zip(hand_events, sizes, strict=True) if size > 1)

    # The hand takes the dice away: once it has gone, the tray is empty.
    frame = scene.render([])
    after = [settler.update(shake(frame, 0), EMPTY_READING) for _ in range(3)]
    assert states(after) == [HAND, EMPTY, EMPTY]  # the frame it leaves is one big change


@needs_photos
def test_a_first_frame_is_never_settled_even_when_one_frame_is_enough(byler: Scene) -> None:
    """The first frame after a reset has no frame before it to show whether the dice
    still move: with ``consistent_frames=1`` it must not settle a throw in flight."""
    frames, readings = throw(byler, 6, 3)
    settler = Settler(SettleConfig(consistent_frames=1))
    got = states([settler.update(f, r) for f, r in zip(frames, readings, strict=True)])
    # Frames 0-5 fly, frame 6 is the first sharp one at rest (it differs from the last
    # smeared one), frame 7 is the first still one.
    assert got == [MOVING] * 7 + [SETTLED] * 2, got


@needs_photos
def test_a_hand_on_the_first_frame_is_not_the_picture_of_the_tray(byler: Scene) -> None:
    """The table starts watching (a reset) while a hand still takes the last dice out:
    the reader sees no dice there, but a first frame shows nothing still, so it is no
    picture of the tray to hold later frames against. The throw after it settles as
    one after an empty tray does, not held as a hand where the hand once was."""
    hand = byler.render([], hand=(byler.width / 2, byler.height * 0.4))
    empty = byler.render([])
    frames, readings = throw(byler, 8, 5)

    def run(first: np.ndarray) -> list[SettleState]:
        settler = Settler()
        events = [settler.update(first, EMPTY_READING)]
        events += [settler.update(empty, EMPTY_READING) for _ in range(3)]
        events += [settler.update(f, r) for f, r in zip(frames, readings, strict=True)]
        return states(events)

    calm, got = run(empty), run(hand)
    assert calm[-2:] == [SETTLED, SETTLED], calm
    # the hand leaving is one big change; then the tray is empty, and the throw as ever
    assert got[:4] == [EMPTY, HAND, EMPTY, EMPTY], got
    assert got[4:] == calm[4:], got


@needs_photos
def test_hand_that_stops_moving_stays_a_hand(byler: Scene) -> None:
    dice = resting(byler)
    reading = byler.reading(dice)
    tip = (dice[1].x, byler.height * 0.4)
    settler = Settler()
    before = [settler.update(byler.render(dice), reading) for _ in range(3)]
    assert before[-1].state is SETTLED
    # In it comes, then it keeps still: still a hand (it differs from the last
    # settled picture), never a fresh throw.
    settler.update(byler.render(dice, hand=(tip[0], byler.height * 0.8)), reading)
    still = [settler.update(byler.render(dice, hand=tip), reading) for _ in range(6)]
    assert states(still) == [HAND] * 6
    assert [e.motion == 0.0 for e in still] == [False] + [True] * 5
    assert all(e.foreign > 0.05 for e in still)


@needs_photos
def test_hand_already_there_needs_the_empty_tray_as_reference(byler: Scene) -> None:
    dice = resting(byler)
    reading = byler.reading(dice)
    still_hand = byler.render(dice, hand=(dice[1].x, byler.height * 0.4))

    blind = Settler()
    blind_states = [blind.update(still_hand, reading).state for _ in range(4)]
    assert blind_states[-1] is SETTLED  # the documented limit: nothing to compare with

    seeing = Settler()
    seeing.set_reference(byler.render([]))
    events = [seeing.update(still_hand, reading) for _ in range(4)]
    assert states(events) == [HAND] * 4
    assert events[0].foreign > 0.05

    # Reference given, no hand: dice on the empty tray are not foreign, and a
    # brighter exposure (camera auto-gain) does not look like a hand either.
    calm = Settler()
    calm.set_reference(byler.render([]))
    gains = (1.0, 1.0, 1.0, 1.08, 1.08, 1.08)
    events = [calm.update(byler.render(dice, gain=g), reading) for g in gains]
    assert states(events) == [MOVING, MOVING, SETTLED, SETTLED, SETTLED, SETTLED]
    assert all(e.foreign < 0.01 for e in events)


@needs_photos
def test_a_reference_of_another_size_is_as_none_and_a_still_hand_is_seen(
    byler: Scene,
) -> None:
    """An empty tray shown at another size (another camera mode) was held against every
    frame, matched none, and so saw no hand at all: a hand reaching in over a die and
    keeping still became dice SETTLED and ``entered``, one die short. It now counts as no
    reference: frames are held against the last still picture, as without one."""
    dice = resting(byler)
    full = byler.reading(dice)
    tip = (full.dice[0].center[0], full.dice[0].center[1] - byler.die_size)
    covered = FrameReading(full.status, "", full.dice[1:])  # die 1 under the fingers
    frames = [(byler.render(dice), full)] * 4
    frames += [(byler.render(dice, hand=(tip[0], tip[1] + 30 * k)), covered) for k in (5, 4, 3)]
    frames += [(byler.render(dice, hand=(tip[0], tip[1] + 30 * k)), covered) for k in (2, 1)]
    frames += [(byler.render(dice, hand=tip), covered)] * 6
    for reference in (None, np.zeros((480, 640, 3), np.uint8)):
        settler = Settler()
        settler.set_reference(reference)
        events = [settler.update(frame, reading) for frame, reading in frames]
        assert states(events)[2:4] == [SETTLED, SETTLED]
        assert states(events)[-6:] == [HAND] * 6, reference is None
        assert not any(e.entered for e in events[4:] if e.settled)


@needs_photos
def test_a_lasting_change_is_adopted_after_a_while(byler: Scene) -> None:
    """Something big that stays (a shadow, an object) holds HAND only for
    ``adopt_after`` still frames, then the scene is the new normal."""
    dice = resting(byler)
    reading = byler.reading(dice)
    settler = Settler(SettleConfig(adopt_after=5))
    settler.set_reference(byler.render([]))
    frame = byler.render(dice, hand=(dice[1].x, byler.height * 0.4))
    got = [settler.update(frame, reading).state for _ in range(9)]
    assert got == [HAND] * 5 + [MOVING, MOVING, SETTLED, SETTLED]


@needs_photos
def test_empty_tray_is_empty(matteo: Scene) -> None:
    settler = Settler()
    frame = matteo.render([])
    events = [settler.update(frame, EMPTY_READING) for _ in range(3)]
    assert states(events) == [EMPTY] * 3
    assert [e.entered for e in events] == [True, False, False]


@needs_photos
def test_watch_reads_every_frame(byler: Scene) -> None:
    frames, readings = throw(byler, 4, 4)
    by_id = {id(f): r for f, r in zip(frames, readings, strict=True)}
    asked: list[int | None] = []

    class OracleReader:
        def read(self, frame_bgr: np.ndarray, expect: int | None = None) -> FrameReading:
            asked.append(expect)
            return by_id[id(frame_bgr)]

    events = list(watch(frames, OracleReader(), expect=4))
    assert len(events) == 8 and asked == [4] * 8
    assert states(events)[-1] is SETTLED and states(events)[3] is MOVING


# -- readings_agree, no photos needed -----------------------------------------


def _die(value: int | None, x: float, y: float, size: float = 40.0) -> DieReading:
    return DieReading(value, (x, y), ((x, y), (size, size), 0.0), 0.9)


def _frame(*dice: DieReading) -> FrameReading:
    return FrameReading(FrameStatus.OK, "", dice, 5.0)


def test_readings_agree_pairs_dice_by_position_not_order() -> None:
    a = _frame(_die(6, 100, 100), _die(3, 300, 100))
    b = _frame(_die(3, 305, 98), _die(6, 96, 104))
    assert readings_agree(a, b, 0.35)


def test_readings_disagree_on_value_count_distance_and_status() -> None:
    a = _frame(_die(6, 100, 100), _die(3, 300, 100))
    assert not readings_agree(a, _frame(_die(6, 100, 100), _die(4, 300, 100)), 0.35)
    assert not readings_agree(a, _frame(_die(6, 100, 100)), 0.35)
    # 15 px is more than 0.35 of a 40 px die
    assert not readings_agree(a, _frame(_die(6, 115, 100), _die(3, 300, 100)), 0.35)
    assert readings_agree(a, _frame(_die(6, 113, 100), _die(3, 300, 100)), 0.35)
    assert not readings_agree(a, replace(a, status=FrameStatus.REROLL), 0.35)
    refused = _frame(_die(None, 100, 100), _die(3, 300, 100))
    assert not readings_agree(a, refused, 0.35)
    assert readings_agree(refused, refused, 0.35)


def test_readings_half_a_die_apart_on_a_still_picture_never_settle() -> None:
    """With the default tolerance (0.35 of a die), a die read in two places half a die
    apart, frame after frame, is no die lying still: the reader is unsure where it is."""
    frame = _plain_tray(0)
    _square_die(frame, 100, 100)
    here, there = _frame(_die(3, 120, 120)), _frame(_die(3, 140, 120))
    settler = Settler()
    got = [settler.update(frame, here if k % 2 else there).state for k in range(8)]
    assert SETTLED not in got, got
    steady = Settler()
    assert [steady.update(frame, here).state for _ in range(4)][-1] is SETTLED


def test_readings_that_creep_on_a_still_picture_do_not_settle() -> None:
    """Each reading 8 px (0.2 of a die) on from the one before, on a picture that does
    not change: every step agrees with the last, but the stretch is held against its
    first reading, and the die has left it."""
    frame = _plain_tray(0)
    _square_die(frame, 100, 100)
    settler = Settler(SettleConfig(consistent_frames=4))
    got = [settler.update(frame, _frame(_die(3, 120 + 8 * k, 120))).state for k in range(10)]
    assert SETTLED not in got, got


def test_config_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        SettleConfig(consistent_frames=0)
    with pytest.raises(ValueError):
        SettleConfig(hand_fraction=1.5)
    with pytest.raises(ValueError):
        SettleConfig(shake_px=-1)


def test_frames_of_a_new_size_start_over() -> None:
    settler = Settler(SettleConfig(consistent_frames=2))
    reading = _frame(_die(5, 50, 50, 20))
    small = np.full((120, 160, 3), 90, np.uint8)
    big = np.full((240, 320, 3), 90, np.uint8)
    got = [settler.update(f, reading).state for f in (small, small, big, big)]
    assert got == [MOVING, SETTLED, MOVING, SETTLED]


def test_bgra_and_grey_frames_settle_as_their_bgr_picture() -> None:
    """The reader takes grey and BGRA frames; so does the settler (a 4-channel frame
    used to be measured as if it had 3: at this size it could not even be reshaped)."""
    reading = _frame(_die(5, 600, 480, 60))
    still = np.full((964, 1282, 3), 90, np.uint8)
    moved = still.copy()
    cv2.rectangle(moved, (500, 400), (700, 560), (200, 210, 220), -1)
    frames = [still, still, moved, moved, moved, moved]

    def events(convert: int | None) -> list[tuple[SettleState, float]]:
        settler = Settler()
        out = []
        for f in frames:
            shown = f if convert is None else cv2.cvtColor(f, convert)
            e = settler.update(shown, reading)
            out.append((e.state, round(e.motion, 4)))
        return out

    bgr = events(None)
    assert [s for s, _ in bgr] == [MOVING, MOVING, MOVING, MOVING, MOVING, SETTLED]
    assert events(cv2.COLOR_BGR2BGRA) == bgr
    grey = events(cv2.COLOR_BGR2GRAY)
    assert [s for s, _ in grey] == [s for s, _ in bgr]


# -- with the real pip reader ---------------------------------------------------


@needs_photos
@pytest.mark.parametrize("which", ["byler", "matteo"])
def test_real_reader_on_a_built_throw(which: str, request: pytest.FixtureRequest) -> None:
    """The table's set-up: reader and settler both shown the empty tray, then a throw.
    Whatever the reader makes of the dice, the settler must not settle while they
    fly, must not take them for a hand, and must settle on identical still frames
    exactly when the reader sees dice there."""
    reader_module = pytest.importorskip("vision.reader")
    scene: Scene = request.getfixturevalue(which)
    reader = reader_module.PipReader()
    empty = scene.render([])
    reader.set_reference(empty)
    settler = Settler(SettleConfig(consistent_frames=3))
    settler.set_reference(empty)
    flying = 8
    frames, _ = throw(scene, flying, 5)
    events = list(watch(frames, reader, settler))
    got = states(events)
    assert HAND not in got, got
    assert SETTLED not in got[1 : flying + 1], got
    last = replace(events[-1].reading, ms=0.0)
    # same frame, same reading (but for the time it took)
    assert all(replace(e.reading, ms=0.0) == last for e in events[flying:])
    if last.dice:
        assert got[flying + 3 :] == [SETTLED] * 2, got
    else:
        assert got[flying + 1 :] == [EMPTY] * 4, got


@needs_photos
@pytest.mark.parametrize("empty_tray_shown", [False, True])
def test_a_hand_that_rested_long_enough_to_be_adopted_is_gone_once_it_leaves(
    byler: Scene, empty_tray_shown: bool
) -> None:
    """A hand kept still in the tray is taken, after ``adopt_after`` frames, as part of
    the picture. When it is drawn back the tray is as it was before: no hand in it, and
    the dice lying there settle as they did, not held as a "hand" where the hand was
    until the empty place had been adopted in its turn."""
    dice = resting(byler)
    reading = byler.reading(dice)
    calm = byler.render(dice)
    with_hand = byler.render(dice, hand=(dice[1].x, byler.height * 0.4))
    settler = Settler(SettleConfig(adopt_after=5))
    if empty_tray_shown:
        settler.set_reference(byler.render([]))
    before = [settler.update(calm, reading) for _ in range(3)]
    assert states(before)[-1] is SETTLED
    resting_hand = [settler.update(with_hand, reading) for _ in range(9)]
    assert states(resting_hand)[:5] == [HAND] * 5  # then taken as the picture
    after = [settler.update(calm, reading) for _ in range(5)]
    # the frame it leaves is one big change; then the picture is still again
    assert states(after) == [HAND, MOVING, MOVING, SETTLED, SETTLED], states(after)
    assert all(e.foreign < 0.01 for e in after[1:])


@needs_photos
def test_dice_moved_under_a_hand_come_to_rest_anew(byler: Scene) -> None:
    """A hand reaches in, turns a die over and is gone between two frames, with no
    frame of dice in motion between: the dice's rest after it is a new one (``entered``),
    or the table would never take the throw."""
    dice = resting(byler)
    moved = [replace(d, x=d.x + 60.0) if d.crop == 0 else d for d in dice]
    settler = Settler(SettleConfig(consistent_frames=3))
    before = [settler.update(byler.render(dice), byler.reading(dice)) for _ in range(3)]
    assert states(before)[-1] is SETTLED and before[-1].entered
    hand = byler.render(moved, hand=(moved[0].x, byler.height * 0.4))
    under = [settler.update(hand, byler.reading(moved)) for _ in range(2)]
    assert states(under) == [HAND, HAND]
    after = [settler.update(byler.render(moved), byler.reading(moved)) for _ in range(5)]
    settled = [e for e in after if e.settled]
    assert settled and settled[0].entered, states(after)


def _read_and_refused(scene: Scene, dice: list[Placed]) -> tuple[FrameReading, FrameReading]:
    """The dice read right, and read with die 1 unclear (the throw refused)."""
    good = scene.reading(dice)
    unclear = replace(good.dice[0], value=None, reason="unclear")
    refused = replace(
        good, status=FrameStatus.REROLL, reason="die 1 is unclear", dice=(unclear, *good.dice[1:])
    )
    return good, refused


@needs_photos
def test_readings_that_waver_on_still_dice_are_no_new_coming_to_rest(byler: Scene) -> None:
    """The dice settle, and the table takes that reading: a refusal, "die 1 is unclear,
    roll again". The reader then wavers on the same still dice (a die on the edge of
    being read) and reads them all. Nobody rolled: that is SETTLED again, but no new
    coming to rest (``entered``), or the refused throw would be counted after all. Once
    the dice are thrown again, their coming to rest counts as ever."""
    dice = resting(byler)
    good, refused = _read_and_refused(byler, dice)
    settler = Settler(SettleConfig(consistent_frames=3))
    readings = [refused] * 3 + [good] * 4
    events = [
        settler.update(byler.render(dice, noise=3.0, seed=k), r) for k, r in enumerate(readings)
    ]
    assert states(events) == [MOVING, MOVING, SETTLED, MOVING, MOVING, SETTLED, SETTLED]
    assert max(e.motion for e in events) < 0.002  # the picture never moved
    assert [e.entered for e in events if e.settled] == [True, False, False]

    frames, throw_readings = throw(byler, 6, 4)
    again = [settler.update(f, r) for f, r in zip(frames, throw_readings, strict=True)]
    settled = [e for e in again if e.settled]
    assert settled and settled[0].entered and not any(e.entered for e in settled[1:])


def test_a_still_tray_read_as_no_dice_is_said_once_it_has_been_so_long_enough() -> None:
    """A tray left empty, too dark or blurred is EMPTY from its first still frame; the
    table is to say why no throw comes, but only once the tray has been still and read
    the same for ``consistent_frames`` frames (dice in flight blur a frame or two), and
    only once per still stretch."""
    settler = Settler(SettleConfig(consistent_frames=3))
    dark = np.full((120, 160, 3), 10, np.uint8)
    too_dark = FrameReading(FrameStatus.REROLL, "too dark", ())
    events = [settler.update(dark, too_dark) for _ in range(6)]
    assert states(events) == [EMPTY] * 6
    assert [e.empty_settled for e in events] == [False, False, True, False, False, False]
    # the table waits for the next throw: said again when it is still so
    settler.reset()
    events = [settler.update(dark, too_dark) for _ in range(4)]
    assert [e.empty_settled for e in events] == [False, False, True, False]
    # with one frame enough, still not on a first frame (nothing shows yet it is still)
    one = Settler(SettleConfig(consistent_frames=1))
    assert [one.update(dark, too_dark).empty_settled for _ in range(3)] == [False, True, False]
    # dice that settle are never "empty settled"
    reading = _frame(_die(5, 50, 50, 20))
    events = [settler.update(dark, reading) for _ in range(4)]
    assert not any(e.empty_settled for e in events)
    assert states(events)[-1] is SETTLED


def test_an_empty_frame_is_a_value_error_naming_it() -> None:
    """A 0 x 0 frame (no camera gives one: ``as_bgr`` refuses it) is said for what it is,
    not a ZeroDivisionError from the working size."""
    settler = Settler()
    empty = FrameReading(FrameStatus.REROLL, "picture too small", ())
    with pytest.raises(ValueError, match=r"an empty frame \(shape \(0, 0, 3\)\)"):
        settler.update(np.zeros((0, 0, 3), np.uint8), empty)


@pytest.mark.parametrize(
    ("shape", "dtype", "said"),
    [
        (
            (480, 640, 1),
            np.uint8,
            r"expected an HxW, HxWx3 or HxWx4 image, got shape \(480, 640, 1\)",
        ),
        ((1, 480, 640, 3), np.uint8, r"got shape \(1, 480, 640, 3\)"),
        ((48, 64, 3, 1), np.uint8, r"got shape \(48, 64, 3, 1\)"),
        ((480, 640, 3), np.bool_, "expected a uint8 image, got bool"),
        ((480, 640, 3), np.int64, "expected a uint8 image, got int64"),
        ((480, 640, 3), np.uint16, "expected a uint8 image, got uint16"),
        ((480, 640, 3), np.float32, "expected a uint8 image, got float32"),
    ],
)
def test_a_frame_the_settler_cannot_take_is_a_value_error_saying_why(
    shape: tuple[int, ...], dtype: type, said: str
) -> None:
    """One channel, a batch, bool or int64 frames failed deep inside OpenCV ("j <
    nimages", "func != 0"); 16-bit and float frames were taken, their values wrapped at
    256. The settler takes what the reader reads: 8-bit grey, BGR or BGRA."""
    settler = Settler()
    none = FrameReading(FrameStatus.REROLL, "no dice seen", ())
    with pytest.raises(ValueError, match=said):
        settler.update(np.zeros(shape, dtype), none)
    for ok in ((48, 64), (48, 64, 3), (48, 64, 4)):
        assert settler.update(np.zeros(ok, np.uint8), none).state is EMPTY


def _plain_tray(k: int) -> np.ndarray:
    """A plain grey tray under sensor noise: nothing on it to measure a shake by."""
    rng = np.random.default_rng(k)
    return np.clip(110 + rng.normal(0, 3, (480, 640, 3)), 0, 255).astype(np.uint8)


def _square_die(frame: np.ndarray, x: float, y: float, side: int = 40) -> None:
    x0, y0 = round(x), round(y)
    frame[y0 : y0 + side, x0 : x0 + side] = 235
    for dx, dy in ((10, 10), (30, 30), (20, 20)):
        cv2.circle(frame, (x0 + dx, y0 + dy), 4, (20, 20, 20), -1)


def test_on_a_plain_tray_something_unread_moving_is_not_taken_for_a_shake() -> None:
    """One die read and lying still, another the reader does not list creeping 2 px a
    frame: on a plain tray the creeping one's edges were all a shake could be measured
    by, and its motion was undone as the camera's."""
    read = _frame(_die(3, 120, 120, 40))
    got = []
    settler = Settler(SettleConfig(consistent_frames=3))
    for k in range(10):
        frame = _plain_tray(k)
        _square_die(frame, 100, 100)
        _square_die(frame, 400 + 2 * k, 300)
        got.append(settler.update(frame, read).state)
    assert SETTLED not in got, got


def _shaken_plain(k: int, dice: list[tuple[float, float]], by: tuple[int, int]) -> np.ndarray:
    frame = _plain_tray(k)
    for x, y in dice:
        _square_die(frame, x + by[0], y + by[1])
    return frame


def test_dice_still_on_a_plain_tray_under_a_trembling_camera_settle() -> None:
    """A felt tray has no texture to measure the camera's shake by away from the dice:
    a camera trembling by a pixel or two kept still dice MOVING for ever, and no throw
    was counted. The dice read, the same on both frames, are then what the shake is
    measured by."""
    at = [(100.0, 100.0), (400.0, 300.0)]
    read = _frame(_die(3, 120, 120), _die(3, 420, 320))
    settler = Settler(SettleConfig(consistent_frames=3))
    got = [settler.update(_shaken_plain(k, at, SHAKE[k % len(SHAKE)]), read) for k in range(20)]
    assert SETTLED in states(got[:14]), states(got)  # a second of trembling measured first
    assert states(got)[-6:] == [SETTLED] * 6


def test_on_a_plain_tray_two_dice_sliding_together_are_moving() -> None:
    """Measured on the dice, two dice sliding side by side (the tray pushed, or dice
    slowing down together) look like a shake: they are not undone as one, nor
    when they slide half a pixel a frame, since their shifts add up."""
    read_at = [(120.0, 120.0), (420.0, 320.0)]
    for step in (0.5, 1.0, 2.0, 3.0):
        settler = Settler(SettleConfig(consistent_frames=3))
        got = []
        for k in range(20):
            at = [(x - 20 + step * k, y - 20) for x, y in read_at]
            frame = _shaken_plain(k, at, (0, 0))
            read = _frame(*(_die(3, x + 20, y + 20) for x, y in at))
            got.append(settler.update(frame, read).state)
        assert SETTLED not in got, (step, got)


def test_on_a_plain_tray_a_trembling_camera_does_not_hide_one_die_creeping() -> None:
    """Measured on the dice, a shake is what moves them all alike: one die creeping 2 px
    a frame while the other lies still is moving, trembling camera or not."""
    read = _frame(_die(3, 120, 120), _die(3, 420, 320))
    for trembling in (False, True):
        settler = Settler(SettleConfig(consistent_frames=3))
        got = []
        for k in range(12):
            by = SHAKE[k % len(SHAKE)] if trembling else (0, 0)
            frame = _shaken_plain(k, [(100.0, 100.0)], by)
            _square_die(frame, 400 + 2 * k + by[0], 300 + by[1])
            got.append(settler.update(frame, read).state)
        assert SETTLED not in got, (trembling, got)


def test_a_hand_drifting_over_a_plain_tray_with_no_dice_is_motion() -> None:
    """No dice read: nothing to settle, and a hand's own edges are no camera shake."""
    settler = Settler()
    got = []
    for k in range(10):
        frame = _plain_tray(k)
        cv2.ellipse(frame, (430 - 3 * k, 330), (110, 160), 20, 0, 360, (120, 150, 215), -1)
        got.append(settler.update(frame, EMPTY_READING).state)
    assert EMPTY not in got[1:], got


@needs_photos
def test_dice_refused_then_read_after_a_pause_with_nothing_moved_are_no_new_rest(
    byler: Scene,
) -> None:
    """The dice settle and their reading is refused ("die 1 is unclear"); the table
    stops looking (STOP), then looks again (ROLL) with nobody having touched them, and
    now reads them all. After a reset they were a new rest, and the refused throw was
    counted; after ``resume`` the tray is held against its last still picture: SETTLED,
    not ``entered``, but ``again`` (the table says why nothing counts)."""
    dice = resting(byler)
    good, refused = _read_and_refused(byler, dice)
    settler = Settler(SettleConfig(consistent_frames=3))
    before = [settler.update(byler.render(dice, noise=3.0, seed=k), refused) for k in range(3)]
    assert states(before)[-1] is SETTLED and before[-1].entered
    settler.resume()
    after = [settler.update(byler.render(dice, noise=3.0, seed=10 + k), good) for k in range(5)]
    assert states(after) == [MOVING, MOVING, SETTLED, SETTLED, SETTLED]
    assert [(e.entered, e.again) for e in after if e.settled] == [
        (False, True),
        (False, False),
        (False, False),
    ]
    # thrown again: a new rest, as ever
    frames, throw_readings = throw(byler, 6, 4)
    thrown = [settler.update(f, r) for f, r in zip(frames, throw_readings, strict=True)]
    settled = [e for e in thrown if e.settled]
    assert settled and settled[0].entered and not any(e.again for e in settled)


@needs_photos
def test_dice_moved_while_the_frames_paused_come_to_rest_anew(byler: Scene) -> None:
    """Thrown while the table was not looking: the first frame after ``resume`` is not
    the last still picture, so the rest is new (``entered``), as after a reset."""
    dice = resting(byler)
    settler = Settler(SettleConfig(consistent_frames=3))
    for k in range(3):
        settler.update(byler.render(dice, seed=k), byler.reading(dice))
    moved = [replace(d, x=d.x + 60.0) if d.crop == 0 else d for d in dice]
    settler.resume()
    after = [settler.update(byler.render(moved, seed=k), byler.reading(moved)) for k in range(4)]
    settled = [e for e in after if e.settled]
    assert settled and settled[0].entered and not settled[0].again


@needs_photos
def test_resume_with_no_still_picture_or_a_new_size_is_a_reset(byler: Scene) -> None:
    dice = resting(byler)
    frames = [byler.render(dice, seed=k) for k in range(4)]
    fresh = Settler(SettleConfig(consistent_frames=3))
    fresh.resume()  # nothing seen still yet
    events = [fresh.update(f, byler.reading(dice)) for f in frames]
    assert [(e.entered, e.again) for e in events if e.settled] == [(True, False), (False, False)]
    # the last still picture was of another size (the camera's size changed)
    settler = Settler(SettleConfig(consistent_frames=3))
    small = [f[: f.shape[0] // 2] for f in frames]
    for f in small[:3]:
        settler.update(f, byler.reading([]))
    settler.resume()
    events = [settler.update(f, byler.reading(dice)) for f in frames]
    assert [(e.entered, e.again) for e in events if e.settled] == [(True, False), (False, False)]


@needs_photos
def test_a_hand_after_a_pause_makes_the_next_rest_new(byler: Scene) -> None:
    """The tray as it was after ``resume``, then a hand in it: whatever it did, the
    dice's next rest is a new one."""
    dice = resting(byler)
    settler = Settler(SettleConfig(consistent_frames=3))
    for k in range(3):
        settler.update(byler.render(dice, seed=k), byler.reading(dice))
    settler.resume()
    settler.update(byler.render(dice, seed=5), byler.reading(dice))
    hand = byler.render(dice, hand=(dice[0].x, byler.height * 0.4))
    assert settler.update(hand, byler.reading(dice)).state is HAND
    after = [settler.update(byler.render(dice, seed=9 + k), byler.reading(dice)) for k in range(4)]
    settled = [e for e in after if e.settled]
    assert settled and settled[0].entered and not settled[0].again


@needs_photos
def test_dice_at_rest_under_a_hand_kept_still_until_adopted_are_no_throw(byler: Scene) -> None:
    """A hand reaches in and rests, fingers over a die, until the settler takes the
    scene for its new base (``adopt_after``). The dice then lay still in the new base and
    were SETTLED and ``entered`` with the hand still there, a die under it unread or
    read wrong. That rest is now ``adopted``, not ``entered``; once the hand is drawn
    back, the dice's next rest is a new one."""
    dice = resting(byler)
    reading = byler.reading(dice)
    under = byler.reading(dice[1:])  # the hand covers the first die
    calm = byler.render(dice)
    with_hand = byler.render(dice, hand=(dice[0].x, dice[0].y + 10))
    settler = Settler(SettleConfig(adopt_after=5))
    before = [settler.update(byler.render(dice, seed=k), reading) for k in range(3)]
    assert states(before)[-1] is SETTLED
    held = [settler.update(with_hand, under) for _ in range(9)]
    assert states(held)[:5] == [HAND] * 5
    settled = [e for e in held if e.settled]
    assert settled, states(held)
    assert [(e.entered, e.adopted) for e in settled] == [(False, True)] + [(False, False)] * (
        len(settled) - 1
    )
    after = [settler.update(calm, reading) for _ in range(5)]
    assert_counted(after)


@needs_photos
@pytest.mark.parametrize(("which", "share"), [("matteo", 0.34), ("byler", 0.5)])
def test_throws_after_a_lasting_shadow_was_adopted_are_counted(
    which: str, share: float, request: pytest.FixtureRequest
) -> None:
    """A shadow that stays (a part of the tray darkened for good) is a hand kept still
    until it is adopted as the tray; the first rest after that is ``adopted``. Every
    throw after it must be a new rest. A change that kept the flag through motions near
    what the frame showed against the base from before the adoption made every later
    rest ``adopted``: held against that base, the level matching made most of the frame
    differ, and the table refused every throw while the shadow stayed."""
    scene: Scene = request.getfixturevalue(which)
    dice = resting(scene)

    def shaded(frame: np.ndarray) -> np.ndarray:
        frame = frame.copy()
        x = int(frame.shape[1] * share)
        frame[:, :x] = (frame[:, :x] * 0.55).astype(np.uint8)
        return frame

    settler = Settler(SettleConfig(adopt_after=5))
    for k in range(3):
        settler.update(scene.render(dice, seed=k), scene.reading(dice))
    shadow = [
        settler.update(shaded(scene.render(dice, seed=k)), scene.reading(dice)) for k in range(10)
    ]
    assert [e.adopted for e in shadow if e.settled][:1] == [True], states(shadow)
    for _ in range(3):
        frames, readings = throw(scene, 10, 6)
        events = [settler.update(shaded(f), r) for f, r in zip(frames, readings, strict=True)]
        assert_counted(events)


@needs_photos
def test_a_shadow_fallen_while_the_frames_paused_is_no_hand(byler: Scene) -> None:
    """Someone leans over the tray (a shadow on a third of it) while the table is not
    reading, and the dice are thrown. Held against the still picture from before the
    pause, the shadow was a hand kept still: HAND for ``adopt_after`` frames, then the
    throw refused as "something in the tray". After ``resume`` only the first frame is
    held against that picture; the throw settles as after a reset."""
    dice = resting(byler)
    settler = Settler(SettleConfig(consistent_frames=3))
    for k in range(3):
        settler.update(byler.render(dice, seed=k), byler.reading(dice))
    moved = [replace(d, x=d.x + 60.0) if d.crop == 0 else d for d in dice]
    shadowed = byler.render(moved)
    third = shadowed.shape[1] // 3
    shadowed[:, :third] = (shadowed[:, :third] * 0.55).astype(np.uint8)
    settler.resume()
    after = [settler.update(shadowed, byler.reading(moved)) for _ in range(5)]
    assert HAND not in states(after)
    assert_counted(after)


@needs_photos
@pytest.mark.parametrize("which", ["byler", "matteo"])
@pytest.mark.parametrize("shift", [(6, 4), (12, -8), (-20, 0)])
def test_an_adopted_hand_shifted_a_little_is_still_a_hand_over_the_dice(
    which: str, shift: tuple[int, int], request: pytest.FixtureRequest
) -> None:
    """A hand rests over a die until it is adopted, then shifts a few pixels and keeps
    still again. The motion lay only along the hand's outline, where it was adopted;
    the dice's next rest was ``entered`` with the fingers still over a die (a 2 with a
    pip covered reads as a 1). It is ``adopted`` again, every time the hand shifts so;
    once the hand is drawn back, the next rest is a new one."""
    scene: Scene = request.getfixturevalue(which)
    settler, dice, tip = hand_adopted(scene)
    reading = scene.reading(dice)
    under = scene.reading(dice[1:])
    for step in (1, 2):
        moved = (tip[0] + step * shift[0], tip[1] + step * shift[1])
        frame = scene.render(dice, hand=moved)
        again = [settler.update(frame, under) for _ in range(5)]
        assert HAND not in states(again), states(again)
        settled = [e for e in again if e.settled]
        assert settled, states(again)
        assert (settled[0].entered, settled[0].adopted) == (False, True), states(again)
    after = [settler.update(scene.render(dice), reading) for _ in range(5)]
    assert_counted(after)


@needs_photos
@pytest.mark.parametrize("which", ["byler", "matteo"])
def test_a_throw_beside_an_adopted_hand_is_counted(
    which: str, request: pytest.FixtureRequest
) -> None:
    """The hand adopted as part of the tray stays where it rests, and the dice are
    thrown again past its fingertips: the motion lies far from the hand's outline too,
    so the dice's rest is a new one, not one under the hand."""
    scene: Scene = request.getfixturevalue(which)
    settler, dice, tip = hand_adopted(scene)
    frames, readings = throw(scene, 10, 6)
    events = [
        settler.update(
            np.clip(scene._draw_hand(f.astype(np.float32), tip), 0, 255).astype(np.uint8), r
        )
        for f, r in zip(frames, readings, strict=True)
    ]
    assert_counted(events)


@needs_photos
def test_an_adopted_hand_over_the_far_dice_shifted_further_is_still_a_hand(byler: Scene) -> None:
    """The hand rests over the right-hand dice and shifts 24 px up and to the right. The
    gaps between its fingers, a few pixels wide, lie deeper in than the outline's band;
    they change too, a little, and must not count as motion elsewhere."""
    dice = resting(byler)
    tip = (426.0, 324.0)
    mask_at = byler.hand_mask

    def seen(t: tuple[float, float]) -> FrameReading:  # the dice whose centre is in view
        m = mask_at(t)
        half = byler.crop_size / 2
        return byler.reading([d for d in dice if m[int(d.y + half), int(d.x + half)] == 0])

    settler = Settler(SettleConfig(adopt_after=5))
    for k in range(3):
        settler.update(byler.render(dice, seed=k), byler.reading(dice))
    held = [settler.update(byler.render(dice, hand=tip), seen(tip)) for _ in range(9)]
    assert [e.adopted for e in held if e.settled][:1] == [True], states(held)
    moved = (tip[0] + 13.1, tip[1] - 19.8)
    again = [settler.update(byler.render(dice, hand=moved), seen(moved)) for _ in range(6)]
    settled = [e for e in again if e.settled]
    assert settled and (settled[0].entered, settled[0].adopted) == (False, True), states(again)


@needs_photos
def test_dice_thrown_within_a_lasting_shadow_are_counted(byler: Scene) -> None:
    """The dice lie in the shaded half of the tray when the shadow is adopted, and are
    thrown again within it, falling in from above. An outline taken with the dice as holes
    in the shadow ringed every die, and the throw's motion lay in those rings: the rest
    was ``adopted``, not counted."""
    c = byler.crop_size

    def shaded(frame: np.ndarray) -> np.ndarray:
        frame = frame.copy()
        x = frame.shape[1] // 2
        frame[:, :x] = (frame[:, :x] * 0.55).astype(np.uint8)
        return frame

    rest = [Placed(i, 38 + (i % 2) * 1.6 * c, 160 + (i // 2) * 1.6 * c) for i in range(4)]
    land = [replace(d, x=d.x + 20, y=d.y + 192) for d in rest]
    settler = adopted_change(byler, rest, shaded)
    events, previous = [], None
    for k in range(16):  # falling from above, 5 px less each frame, then still
        left = max(9 - k, 0)
        falling = [replace(d, y=d.y - 5.0 * left * (left + 1) / 2, turns=left % 4) for d in land]
        frame = byler.render(falling, previous=previous, blur_steps=7, seed=k)
        events.append(settler.update(shaded(frame), byler.reading(falling)))
        previous = falling
    assert_counted(events)


@needs_photos
@pytest.mark.parametrize(("which", "gain"), [("byler_plain", 1.1), ("byler", 0.9)])
def test_throws_beside_an_adopted_hand_after_the_exposure_changed_are_counted(
    which: str, gain: float, request: pytest.FixtureRequest
) -> None:
    """The camera's exposure moves by a tenth when the hand comes in, and stays so. Held
    against the base from before, without the levels matched, the whole tray differed,
    and the adopted outline ringed every die: short throws of the dice beside the hand
    were all ``adopted``."""
    scene: Scene = request.getfixturevalue(which)
    dice = resting(scene)
    c = scene.crop_size
    tip = (dice[0].x + c / 2, dice[0].y + 10)
    hand = scene.hand_mask(tip)

    def exposed(frame: np.ndarray) -> np.ndarray:
        return np.clip(frame.astype(np.float32) * gain, 0, 255).astype(np.uint8)

    def with_hand(frame: np.ndarray) -> np.ndarray:
        return np.clip(scene._draw_hand(frame.astype(np.float32), tip), 0, 255).astype(np.uint8)

    def seen(ds: list[Placed]) -> FrameReading:
        return scene.reading([d for d in ds if hand[int(d.y + c / 2), int(d.x + c / 2)] == 0])

    settler = Settler(SettleConfig(adopt_after=5))
    for k in range(3):
        settler.update(scene.render(dice, seed=k), scene.reading(dice))
    held = [settler.update(exposed(scene.render(dice, hand=tip)), seen(dice)) for _ in range(9)]
    assert [e.adopted for e in held if e.settled][:1] == [True], states(held)
    for ox, oy, ux, uy, flying, step in [
        (0.3, -1.6, 0.6, -0.8, 6, 3.0),
        (-0.4, -2.4, -1.0, 0.0, 5, 3.0),
        (0.5, -1.8, 0.0, 1.0, 6, 2.5),
    ]:
        end = [replace(d, x=d.x + ox * c, y=d.y + oy * c) for d in dice]
        events, previous = [], None
        for k in range(flying + 6):
            left = max(flying - 1 - k, 0)
            travel = step * left * (left + 1) / 2
            ds = [replace(d, x=d.x - ux * travel, y=d.y - uy * travel, turns=left % 4) for d in end]
            frame = scene.render(ds, previous=previous, blur_steps=7, seed=k)
            events.append(settler.update(exposed(with_hand(frame)), scene.reading(ds)))
            previous = ds
        assert_counted(events)


@needs_photos
@pytest.mark.parametrize("which", ["byler", "matteo"])
@pytest.mark.parametrize("along", [(0.0, 1.0), (1.0, 0.0), (0.7, 0.7)])
def test_a_die_nudged_by_the_edge_of_a_lasting_shadow_is_counted(
    which: str, along: tuple[float, float], request: pytest.FixtureRequest
) -> None:
    """A round shadow lies still with its edge across a die, and is adopted. The die is
    nudged half a die or so along that edge, the others lie still: all the motion lies
    within a die's size of the adopted outline, but none of it is the outline moving.
    The rest came out ``adopted`` ("take it out", with nothing to take out); it is a
    new rest."""
    scene: Scene = request.getfixturevalue(which)
    dice = resting(scene)
    c = scene.crop_size
    cx, cy = dice[0].x + c / 2, dice[0].y + c / 2
    radius = 2.5 * c
    shade = np.zeros((scene.height, scene.width), np.float32)
    cv2.circle(shade, (round(cx - radius), round(cy)), round(radius), 1.0, -1)
    shade = cv2.GaussianBlur(shade, (0, 0), 3)[..., None]

    def shaded(frame: np.ndarray) -> np.ndarray:
        return (frame.astype(np.float32) * (1 - 0.35 * shade)).astype(np.uint8)

    settler = adopted_change(scene, dice, shaded)
    events, previous = [], dice
    for k in range(10):
        t = 1 - (1 - min(1.0, (k + 1) / 4)) ** 2  # four frames rolling, slowing, then still
        step = 0.6 * c * t
        now = [replace(dice[0], x=dice[0].x + along[0] * step, y=dice[0].y + along[1] * step)]
        now += dice[1:]
        frame = scene.render(now, previous=previous, blur_steps=5, seed=k)
        events.append(settler.update(shaded(frame), scene.reading(now)))
        previous = now
    assert_counted(events)


@needs_photos
@pytest.mark.parametrize("shake", [1, 2])
def test_an_adopted_hand_shifted_while_the_camera_shakes_is_still_a_hand(
    byler: Scene, shake: int
) -> None:
    """The camera trembles by a pixel or two on the frame where the adopted hand shifts.
    Held with no shake undone, every edge in the tray changed, away from the hand's
    outline too, and the hand's shift was taken for a throw."""
    settler, dice, tip = hand_adopted(byler)
    under = byler.reading(dice[1:])
    moved = (tip[0] + 19.6, tip[1] + 3.8)
    trembling = np.roll(byler.render(dice, hand=moved), shake, axis=1)
    again = [settler.update(trembling, under)]
    again += [settler.update(byler.render(dice, hand=moved), under) for _ in range(6)]
    settled = [e for e in again if e.settled]
    assert settled and (settled[0].entered, settled[0].adopted) == (False, True), states(again)


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("side", [float("nan"), float("inf"), 1e6])
def test_an_absurd_die_size_while_something_is_adopted_is_no_failure(side: float) -> None:
    """A reading whose die size is not a number, or absurdly large, while a still change
    is adopted: the settler takes a band a die's size wide around it. That width is
    capped at an eighth of the picture; it raised (NaN, infinity), or took minutes."""
    tray = np.full((240, 320, 3), 120, np.uint8)
    hand = tray.copy()
    hand[50:240, 60:300] = 200
    box = ((-3000.0, -3000.0), (side, side), 0.0)
    odd = FrameReading(FrameStatus.OK, "", (DieReading(3, (-3000.0, -3000.0), box, 0.9),), 1.0)
    settler = Settler(SettleConfig(adopt_after=2))
    events = [settler.update(f, odd) for f in [tray] * 3 + [hand] * 5]
    assert HAND in states(events)


@needs_photos
@pytest.mark.parametrize("which", ["byler", "matteo"])
def test_an_adopted_hand_still_there_after_a_pause_and_shifted_is_still_a_hand(
    which: str, request: pytest.FixtureRequest
) -> None:
    """A hand is adopted over a die; the table stops reading (STOP) and reads again
    (ROLL) with the hand where it was: the first frame is the last still picture, so the
    dice's rest is ``again``. Then the hand shifts a little. ``resume`` had forgotten the
    adoption with everything else, and that rest was ``entered``, a die still under the
    fingers. What was adopted is kept when the tray is found as it was: the rest is
    ``adopted``; once the hand is drawn back, the next rest is counted."""
    scene: Scene = request.getfixturevalue(which)
    settler, dice, tip = hand_adopted(scene)
    reading = scene.reading(dice)
    under = scene.reading(dice[1:])
    settler.resume()
    paused = [settler.update(scene.render(dice, hand=tip), under) for _ in range(4)]
    assert [(e.again, e.adopted) for e in paused if e.settled][:1] == [(True, False)]
    assert_shift_adopted(settler, scene, dice, tip, under)
    assert_counted([settler.update(scene.render(dice), reading) for _ in range(5)])


@needs_photos
def test_an_adopted_hand_is_forgotten_when_the_tray_changed_during_a_pause(byler: Scene) -> None:
    """The hand adopted over a die is drawn back and the dice thrown while the table is
    not reading: the first frame after ``resume`` is not the last still picture, and
    what was adopted is forgotten with it. The dice's rest is counted."""
    settler, dice, tip = hand_adopted(byler)
    settler.resume()
    moved = [replace(d, x=d.x + 60.0) if d.crop == 0 else d for d in dice]
    assert_counted([settler.update(byler.render(moved), byler.reading(moved)) for _ in range(5)])


@needs_photos
@pytest.mark.parametrize("which", ["byler", "matteo"])
def test_an_adopted_hand_shifted_while_the_frames_paused_is_still_a_hand(
    which: str, request: pytest.FixtureRequest
) -> None:
    """The hand adopted over a die shifts a little while the table is not reading (a
    STOP, then ROLL). The first frame after ``resume`` differs from the last still
    picture only along the hand's outline: the dice's rest is ``adopted``, not counted
    with a die under the fingers."""
    scene: Scene = request.getfixturevalue(which)
    settler, dice, tip = hand_adopted(scene)
    under = scene.reading(dice[1:])
    settler.resume()
    assert_shift_adopted(settler, scene, dice, tip, under)
    assert_counted([settler.update(scene.render(dice), scene.reading(dice)) for _ in range(5)])


@needs_photos
@pytest.mark.parametrize("between", [0, 1])
def test_a_second_pause_before_anything_lay_still_keeps_the_first_ones_picture(
    byler: Scene, between: int
) -> None:
    """STOP and ROLL-DONE twice in a row, with no frame or one frame between: nothing
    lay still since the first pause, and ``resume`` had nothing to hold the next frame
    against. The unmoved dice, a hand adopted over one of them, were a new rest,
    counted. The first pause's picture holds until something lies still again."""
    settler, dice, tip = hand_adopted(byler)
    under = byler.reading(dice[1:])
    settler.resume()
    for _ in range(between):
        settler.update(byler.render(dice, hand=tip), under)
    settler.resume()
    paused = [settler.update(byler.render(dice, hand=tip), under) for _ in range(4)]
    assert [(e.entered, e.again) for e in paused if e.settled][:1] == [(False, True)]
    assert_shift_adopted(settler, byler, dice, tip, under)


@needs_photos
def test_a_die_rethrown_beside_an_adopted_hand_that_shifted_during_a_pause_waits_for_it(
    byler: Scene,
) -> None:
    """While the table is not reading, a die beside the adopted hand is thrown again and
    the hand shifts a little. The frames show only the end: the change lies along the
    hand's outline, as a hand shifting in place. The rest is ``adopted`` ("take it
    out"), a hand still over a die; once the hand is drawn back the dice are counted."""
    settler, dice, tip = hand_adopted(byler)
    settler.resume()
    rerolled = [dice[0], replace(dice[1], crop=dice[2].crop), *dice[2:]]
    assert byler.reading(rerolled[1:]).dice[0].value != byler.reading(dice[1:]).dice[0].value
    moved = byler.render(rerolled, hand=(tip[0] + 12, tip[1] - 8))
    after = [settler.update(moved, byler.reading(rerolled[1:])) for _ in range(5)]
    settled = [e for e in after if e.settled]
    assert settled and (settled[0].entered, settled[0].adopted) == (False, True), states(after)
    gone = [settler.update(byler.render(rerolled), byler.reading(rerolled)) for _ in range(5)]
    assert_counted(gone)


def _paused_twice(scene: Scene, between: Callable[[Settler, list[Placed]], None]) -> SettleEvent:
    """Dice at rest, a pause, ``between`` shown, a second pause before anything lay
    still, then the dice as they lay at first: the first rest after that."""
    dice = resting(scene)
    settler = Settler(SettleConfig(consistent_frames=3))
    for k in range(3):
        settler.update(scene.render(dice, seed=k), scene.reading(dice))
    settler.resume()
    between(settler, dice)
    settler.resume()
    after = [settler.update(scene.render(dice, seed=9 + k), scene.reading(dice)) for k in range(4)]
    settled = [e for e in after if e.settled]
    assert settled, states(after)
    return settled[0]


@needs_photos
def test_what_was_seen_between_two_pauses_makes_the_next_rest_new(byler: Scene) -> None:
    """A hand, dice flying, or frames of another size between two pauses: the picture
    from before the first pause no longer holds, and the dice's next rest is new, as
    after one pause. Nothing seen between them: it still holds (``again``)."""

    def hand(settler: Settler, dice: list[Placed]) -> None:
        settler.update(byler.render(dice, seed=5), byler.reading(dice))
        frame = byler.render(dice, hand=(dice[0].x, byler.height * 0.4))
        assert settler.update(frame, byler.reading(dice)).state is HAND

    def flying(settler: Settler, dice: list[Placed]) -> None:
        frames, readings = throw(byler, 8, 0)
        for f, r in list(zip(frames, readings, strict=True))[:3]:
            settler.update(f, r)

    def resized(settler: Settler, dice: list[Placed]) -> None:
        f = byler.render(dice, seed=4)
        settler.update(f[: f.shape[0] // 2], byler.reading([]))

    def still(settler: Settler, dice: list[Placed]) -> None:
        settler.update(byler.render(dice, seed=4), byler.reading(dice))

    for between in (hand, flying, resized):
        first = _paused_twice(byler, between)
        assert (first.entered, first.again) == (True, False), between.__name__
    first = _paused_twice(byler, still)
    assert (first.entered, first.again) == (False, True)


@needs_photos
def test_an_adopted_hand_shifted_between_two_pauses_is_still_a_hand(byler: Scene) -> None:
    """The hand adopted over a die shifts in place between two pauses, before anything
    lay still: only what was adopted moved, so the picture from before the first pause
    still holds, and the dice's rest is ``adopted``, not counted under the fingers."""
    settler, dice, tip = hand_adopted(byler)
    under = byler.reading(dice[1:])
    settler.resume()
    settler.update(byler.render(dice, hand=tip), under)
    moved = byler.render(dice, hand=(tip[0] + 12, tip[1] - 8))
    assert not settler.update(moved, under).settled
    settler.resume()
    after = [settler.update(moved, under) for _ in range(5)]
    settled = [e for e in after if e.settled]
    assert settled and (settled[0].entered, settled[0].adopted) == (False, True), states(after)


@needs_photos
def test_a_hand_adopted_before_a_pause_and_drawn_back_after_a_throw_is_no_hand(
    byler: Scene,
) -> None:
    """The adopted hand stays over a die while another die is thrown during a pause; the
    rest is counted (and refused by the table: a die under the hand is not seen), and
    the table reads on. The hand is then drawn back. ``resume`` had kept only the empty-tray
    reference of the tray from before the hand, so the tray without it was a hand kept
    still: HAND, then adopted, "take it out" with nothing in the tray. The tray from
    before the hand is kept now: the hand drawn back is gone, and the dice are read."""
    settler, dice, tip = hand_adopted(byler)
    settler.resume()
    thrown = [dice[0], replace(dice[1], x=dice[1].x + 40.0, y=dice[1].y + 90.0), *dice[2:]]
    with_hand = byler.render(thrown, hand=tip)
    first = [settler.update(with_hand, byler.reading(thrown[1:])) for _ in range(4)]
    assert_counted(first)
    drawn_back = [settler.update(byler.render(thrown), byler.reading(thrown)) for _ in range(6)]
    assert HAND not in states(drawn_back)[1:], states(drawn_back)
    assert_counted(drawn_back)
