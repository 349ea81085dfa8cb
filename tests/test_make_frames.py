"""The demo's frames (table/data/frames) can be made again from the photos they were cut
from: ``make_frames --sources`` rebuilds them from the crops SOURCES.json names, where a
fresh ``make_frames`` run would let today's reader choose other crops."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from table.hw.camera import SPOT_A, SPOT_B
from table.service.make_frames import (
    BACKGROUND,
    DEFAULT_OUT,
    JPEG_QUALITY,
    MAX_BOARD_DIFF,
    Readers,
    all_throws,
    background,
    candidates,
    choose,
    compose,
    main,
    margin,
    reads_as,
    recorded,
)
from tests.conftest import photo_like, write_manifest
from vision.compose import MARGIN, DieCrop, as_saved, ring_colour
from vision.dataset import default_data_dir, load_set
from vision.types import DieReading, FrameReading, FrameStatus

needs_photos = pytest.mark.skipif(
    not (default_data_dir() / "byler_d6" / "manifest.json").is_file(),
    reason=f"no byler_d6 photos at {default_data_dir()} (set DICETABLE_SHARED)",
)


def _make_from(sources: Path, out: Path) -> int:
    return main(["--dice", str(default_data_dir()), "--out", str(out), "--sources", str(sources)])


@needs_photos
def test_the_shipped_frames_are_made_again_from_their_sources(tmp_path: Path) -> None:
    sources = DEFAULT_OUT / "SOURCES.json"
    assert _make_from(sources, tmp_path) == 0
    shipped = sorted(DEFAULT_OUT.glob("*.jpg"))
    assert len(shipped) == 28  # 21 pairs, 6 single dice, the empty tray
    for path in shipped:
        again = cv2.imread(str(tmp_path / path.name))
        assert again is not None, path.name
        diff = np.abs(again.astype(np.int16) - cv2.imread(str(path)).astype(np.int16))
        assert int(diff.max()) <= 2, path.name  # the same crops; only the JPEG coder may differ
    assert json.loads((tmp_path / "SOURCES.json").read_text()) == json.loads(sources.read_text())


def _moved_box() -> str:
    data = json.loads((DEFAULT_OUT / "SOURCES.json").read_text())
    data["dice"]["3"]["bbox"] = [1.0, 1.0, 30.0, 30.0]
    return json.dumps(data)


def _a_box_of_three_numbers() -> str:
    data = json.loads((DEFAULT_OUT / "SOURCES.json").read_text())
    data["dice"]["1"]["bbox"] = data["dice"]["1"]["bbox"][:3]
    return json.dumps(data)


def _a_seven_for_the_six() -> str:
    data = json.loads((DEFAULT_OUT / "SOURCES.json").read_text())
    data["dice"]["7"] = data["dice"].pop("6")
    return json.dumps(data)


@needs_photos
@pytest.mark.parametrize(
    "text, words",
    [
        ("{", "cannot use"),
        (None, "cannot use"),  # no such file
        ("[]", "cannot use"),
        ("{}", "cannot use"),
        # "dice" no table of values: a list stopped with an AttributeError traceback
        ('{"dice": []}', "cannot use"),
        ('{"dice": null}', "cannot use"),
        ('{"dice": "x"}', "cannot use"),
        # a zip() ValueError traceback once compared with the photo's label of a 1
        (_a_box_of_three_numbers(), "cannot use .*the 1's bbox is not 4 numbers"),
        (_a_seven_for_the_six(), "each of 1-6"),
        (
            '{"dice": {"1": {"file": "byler_d6/images/x.jpg", "bbox": [0, 0, 9, 9]}}}',
            "each of 1-6",
        ),
        (_moved_box(), r"no labelled 3 at \[1.0, 1.0, 30.0, 30.0\]"),
    ],
)
def test_a_sources_file_that_cannot_be_followed_is_one_line(
    tmp_path: Path, text: str | None, words: str
) -> None:
    bad = tmp_path / "SOURCES.json"
    if text is not None:
        bad.write_text(text)
    with pytest.raises(SystemExit, match=words):
        _make_from(bad, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def _photos_with_manifest(tmp_path: Path, manifest: str) -> Path:
    """A dice folder whose byler_d6 holds the shared photos and ``manifest`` as its
    manifest.json."""
    dice = tmp_path / "dice"
    (dice / "byler_d6").mkdir(parents=True)
    (dice / "byler_d6" / "images").symlink_to(default_data_dir() / "byler_d6" / "images")
    (dice / "byler_d6" / "manifest.json").write_text(manifest)
    return dice


@needs_photos
@pytest.mark.parametrize(
    "text, words",
    [
        ("{", "cannot read"),
        ('{"images": [{"file": "images/IMG_20191208_111228.jpg"}]}', "not a manifest"),
    ],
)
def test_a_broken_manifest_is_one_line_when_the_crops_are_chosen(
    tmp_path: Path, text: str, words: str
) -> None:
    """Without --sources the crops are chosen from every labelled die; a manifest that
    is not the data README's stopped that with a JSONDecodeError or KeyError traceback."""
    dice = _photos_with_manifest(tmp_path, text)
    with pytest.raises(SystemExit) as info:
        main(["--dice", str(dice), "--out", str(tmp_path / "out")])
    said = str(info.value)
    assert said.startswith("make_frames: ") and "\n" not in said
    assert "manifest.json" in said and words in said
    assert not (tmp_path / "out").exists()


@needs_photos
def test_a_photo_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    """A labelled photo missing from the images folder (the background, or a die's)
    stopped make_frames with a CameraError traceback."""
    shared = default_data_dir() / "byler_d6"
    dice = tmp_path / "dice"
    (dice / "byler_d6" / "images").mkdir(parents=True)
    (dice / "byler_d6" / "manifest.json").symlink_to(shared / "manifest.json")
    sources = DEFAULT_OUT / "SOURCES.json"
    with pytest.raises(SystemExit) as info:
        main(["--dice", str(dice), "--out", str(tmp_path / "out"), "--sources", str(sources)])
    said = str(info.value)
    assert said.startswith("make_frames: ") and "\n" not in said
    assert "images/IMG_" in said and "no such file" in said
    assert not (tmp_path / "out").exists()


@needs_photos
@pytest.mark.parametrize("where", ["out is a file", "a frame's name is a folder"])
def test_frames_that_cannot_be_written_are_one_line_not_success(tmp_path: Path, where: str) -> None:
    """--out naming a file stopped with a FileExistsError traceback; a frame OpenCV could
    not write was passed over in silence, and make_frames said "wrote 28 frames" and
    exited 0 without it."""
    out = tmp_path / "out"
    if where == "out is a file":
        out.write_text("")
    else:
        (out / "dice_63.jpg").mkdir(parents=True)
    with pytest.raises(SystemExit) as info:
        _make_from(DEFAULT_OUT / "SOURCES.json", out)
    said = str(info.value)
    assert said.startswith(f"make_frames: cannot write to {out}") and "\n" not in said
    if where != "out is a file":
        assert f"({out / 'dice_63.jpg'}: " in said  # the frame not written is named


@pytest.mark.parametrize("kind", ["missing", "empty"])
def test_an_also_models_folder_without_networks_is_refused(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """--also-models naming a folder that is not there, or holds neither locator.onnx
    nor classifier.onnx (a typo), was passed over: the frames were chosen for the
    shipped reader alone, as if they had been checked with those networks too."""
    folder = tmp_path / "models"
    if kind == "empty":
        folder.mkdir()
    dice = _photos_with_manifest(tmp_path, "{")  # the choosing, if it starts, stops at once
    argv = ["--dice", str(dice), "--out", str(tmp_path / "out"), "--also-models", str(folder)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"--also-models {folder}: no locator.onnx or classifier.onnx" in err
    assert not (tmp_path / "out").exists()


def test_an_empty_out_is_refused_not_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--out "$OUT" with OUT unset wrote the 28 frames and SOURCES.json into the current
    folder (Path("") is "."), over any files of those names there."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(["--out", "", "--sources", str(DEFAULT_OUT / "SOURCES.json")])
    assert info.value.code == 2
    assert "--out: an empty path is no folder" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# -- choosing the crops anew (without --sources)


def _few_photos(tmp_path: Path) -> Path:
    """A byler_d6 folder whose manifest lists only the background photo and the photos the
    shipped frames' crops come from (each with all its labelled dice)."""
    sources = json.loads((DEFAULT_OUT / "SOURCES.json").read_text())["dice"]
    keep = {BACKGROUND} | {d["file"].removeprefix("byler_d6/") for d in sources.values()}
    manifest = json.loads((default_data_dir() / "byler_d6" / "manifest.json").read_text())
    manifest["images"] = [i for i in manifest["images"] if i["file"] in keep]
    return _photos_with_manifest(tmp_path, json.dumps(manifest))


@needs_photos
def test_candidates_stand_alone_on_a_board_like_the_background(tmp_path: Path) -> None:
    """A die is a candidate only if no other labelled die reaches into its crop and the
    board around it is close to the background's colour; the closest come first. A die
    with a neighbour in its crop would paste a piece of a second die into the frames."""
    dice = _few_photos(tmp_path)
    cands = candidates(dice)
    labels = {i.path.name: i.dice for i in load_set("byler_d6", "all", dice)}
    bg = background(dice).reshape(-1, 3).mean(axis=0)
    assert sorted(cands) == [1, 2, 3, 4, 5, 6] and all(cands.values())
    for value, crops in cands.items():
        diffs = [float(np.abs(ring_colour(c) - bg).sum()) for c in crops]
        assert diffs == sorted(diffs) and diffs[-1] < MAX_BOARD_DIFF
        for c in crops:
            assert c.value == value and c.file != BACKGROUND
            x0, y0, x1, y1 = c.bbox
            m = MARGIN * max(x1 - x0, y1 - y0)
            others = [d for d in labels[Path(c.file).name] if d.bbox != c.bbox]
            assert not any(
                d.bbox[0] < x1 + m and x0 - m < d.bbox[2] and d.bbox[1] < y1 + m
                and y0 - m < d.bbox[3]
                for d in others
            )  # fmt: skip
    # The photo of 2019-12-09 09:55:08 has a 1, a 4 and a 6 lying apart: all three stand.
    files = {v: {Path(c.file).name for c in cs} for v, cs in cands.items()}
    assert all("IMG_20191209_095508.jpg" in files[v] for v in (1, 4, 6))


@needs_photos
def test_chosen_crops_read_right_in_every_throw(tmp_path: Path) -> None:
    """The crops chosen anew make frames the reader reads right, every pair and every
    single die, and the empty board reads as no dice."""
    dice = _few_photos(tmp_path)
    log = io.StringIO()
    chosen = choose(dice, log=log)
    assert {v: c.value for v, c in chosen.items()} == {v: v for v in range(1, 7)}
    readers, bg = Readers(), background(dice)
    for throw in all_throws():
        assert reads_as(readers, compose(bg, chosen, throw), throw), throw
    said = log.getvalue().splitlines()
    assert [line.split(":")[0] for line in said[:6]] == [f"value {v}" for v in range(1, 7)]


def _fake_choosing(
    monkeypatch: pytest.MonkeyPatch,
    sure: dict[str, float],
    misread: set[str] | set[frozenset[str]],
    *,
    board_reads_empty: bool = True,
) -> None:
    """``choose`` over named stand-in crops: ``sure`` is how surely each crop ("4b": the
    second 4) is read alone (-1: misread), ``misread`` the crops no throw reads right with
    (or sets of crops misread together)."""
    import table.service.make_frames as mf

    def crop(name: str) -> DieCrop:
        img = np.zeros((1, 1, 3), np.uint8)
        return DieCrop(int(name[0]), name, (0.0, 0.0, 1.0, 1.0), img, np.ones((1, 1), np.float32))

    cands = {v: [crop(n) for n in sure if n[0] == str(v)] for v in range(1, 7)}
    monkeypatch.setattr(mf, "Readers", lambda also=None: None)
    monkeypatch.setattr(mf, "background", lambda dice_dir: np.zeros((1, 1, 3), np.uint8))
    monkeypatch.setattr(mf, "candidates", lambda dice_dir: cands)
    monkeypatch.setattr(mf, "paste", lambda base, die, center: die.file)
    monkeypatch.setattr(mf, "margin", lambda r, frame, dice: sure[frame])
    monkeypatch.setattr(
        mf, "compose", lambda bg, chosen, throw: tuple(chosen[v].file for v in throw)
    )
    together = [frozenset([m]) if isinstance(m, str) else m for m in misread]

    def reads_as(r: object, frame: object, throw: tuple[int, ...]) -> bool:
        if isinstance(frame, np.ndarray):  # the empty board
            return board_reads_empty
        assert isinstance(frame, tuple)
        return not any(m <= set(frame) for m in together)

    monkeypatch.setattr(mf, "reads_as", reads_as)


def test_a_crop_misread_in_a_throw_is_replaced_by_the_next_surest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each value starts with its surest crop alone, misread crops never taken; while a
    throw is misread, a value of that throw moves on to its next crop, the one moved least
    first. The crops of values never misread stay the surest."""
    sure = {"1a": 0.9, "2a": 0.5, "2b": 0.9, "2c": -1.0, "3a": 0.8, "4a": 0.7, "4b": 0.6}
    sure |= {"5a": 0.9, "5b": 0.4, "6a": 0.9}
    log = io.StringIO()
    _fake_choosing(monkeypatch, sure, misread={"2b", "5a"})
    chosen = choose(Path("unused"), log=log)
    assert {v: c.file for v, c in chosen.items()} == {
        1: "1a", 2: "2a", 3: "3a", 4: "4a", 5: "5b", 6: "6a",
    }  # fmt: skip
    said = log.getvalue().splitlines()
    assert "value 2: 2 of 3 crops read right alone" in said
    assert said[6].startswith("misread: [(2, 1), (5, 1), (2, 2)")


def test_of_two_values_in_a_misread_throw_the_one_moved_less_moves_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only the throw of a 4 and a 3 is misread, first with 3a and 4a, then with 3b and
    4a: the 3 moves first (both unmoved, the lower value), then the 4 (moved less)."""
    sure = {f"{v}a": 0.9 for v in range(1, 7)} | {"3b": 0.8, "3c": 0.7, "4b": 0.8, "4c": 0.7}
    misread = {frozenset({"3a", "4a"}), frozenset({"3b", "4a"})}
    log = io.StringIO()
    _fake_choosing(monkeypatch, sure, misread)
    chosen = choose(Path("unused"), log=log)
    assert (chosen[3].file, chosen[4].file) == ("3b", "4b")
    assert log.getvalue().splitlines()[6:] == ["misread: [(4, 3)]", "misread: [(4, 3)]"]


def test_a_reader_that_sees_dice_on_the_empty_board_stops_choosing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """If the reader sees dice on the empty background, no frame could be trusted: one
    line, before any crop is tried."""
    _fake_choosing(monkeypatch, {f"{v}a": 0.9 for v in range(1, 7)}, set(), board_reads_empty=False)
    with pytest.raises(SystemExit, match="the reader sees dice on the empty background"):
        choose(Path("unused"), log=io.StringIO())


class _Readers:
    """Stands in for ``Readers``: each reader's reading of any frame is given."""

    def __init__(self, *readings: FrameReading) -> None:
        self.readings = list(readings)

    def read(self, frame: object) -> list[FrameReading]:
        return self.readings


def _reading(values: tuple[int, ...], *confidences: float, ok: bool = True) -> FrameReading:
    """A reading of dice of ``values`` with ``confidences``, in order; confidences past
    the values are dice seen but not read."""
    box = ((0.0, 0.0), (1.0, 1.0), 0.0)
    dice = tuple(
        DieReading(values[i] if i < len(values) else None, (0.0, 0.0), box, c)
        for i, c in enumerate(confidences)
    )
    return FrameReading(FrameStatus.OK if ok else FrameStatus.REROLL, "", dice)


def test_margin_is_the_least_sure_die_of_every_reader_or_minus_one() -> None:
    """A frame's margin is the lowest die confidence over all readers when every one reads
    the dice (in any order given), and -1 when any reads other values or refuses."""
    frame = np.zeros((2, 2, 3), np.uint8)
    sure = _reading((6, 3), 0.9, 0.8)
    assert margin(_Readers(sure, _reading((6, 3), 0.95, 0.7)), frame, (3, 6)) == 0.7
    assert margin(_Readers(sure, _reading((6, 2), 0.99, 0.99)), frame, (6, 3)) == -1.0
    assert margin(_Readers(sure, _reading((6, 3), 0.9, 0.9, ok=False)), frame, (6, 3)) == -1.0


def test_reads_as_wants_every_reader_right_and_no_die_on_the_empty_board() -> None:
    """A throw reads right when every reader reads exactly its dice; the empty board when
    no reader sees a die at all (a refusal that still saw one is a die seen)."""
    frame = np.zeros((2, 2, 3), np.uint8)
    right = _reading((5, 5), 0.9, 0.9)
    assert reads_as(_Readers(right), frame, (5, 5))
    assert not reads_as(_Readers(right, _reading((5, 4), 0.9, 0.9)), frame, (5, 5))
    assert not reads_as(_Readers(right, _reading((5, 5), 0.9, 0.9, ok=False)), frame, (5, 5))
    assert reads_as(_Readers(_reading((), ok=False), _reading(())), frame, ())
    assert not reads_as(_Readers(_reading((), 0.4, ok=False)), frame, ())


@pytest.mark.parametrize(
    ("sure", "misread", "words"),
    [
        ({"3a": -1.0}, set(), "no crop of a 3 that the reader reads"),
        ({"6a": 0.9, "6b": 0.8}, {"6a", "6b"}, r"no crops that read right in the throw \(6, 1\)"),
    ],
)
def test_a_value_with_no_crop_that_reads_stops_choosing_with_one_line(
    monkeypatch: pytest.MonkeyPatch, sure: dict[str, float], misread: set[str], words: str
) -> None:
    """A value none of whose crops is read right alone, or whose every crop is misread in
    some throw, stops make_frames with one line naming it: never frames with a misread die."""
    full = {f"{v}a": 0.9 for v in range(1, 7)} | sure
    _fake_choosing(monkeypatch, full, misread)
    with pytest.raises(SystemExit, match=words):
        choose(Path("unused"), log=io.StringIO())


# -- drawn photos: what make_frames does with the labels, without the reader


def _uniform_photos(
    tmp_path: Path, photos: dict[str, tuple[tuple[int, int, int], list[Any]]]
) -> Path:
    """A dice folder whose byler_d6 photos are each one board colour (BGR) throughout,
    labelled with the dice given (value, box) though none is drawn: a crop's ring of board
    is exactly its photo's colour."""
    root = tmp_path / "dice"
    entries = []
    for name, (colour, dice) in photos.items():
        path = root / "byler_d6" / "images" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(path), np.full((300, 300, 3), colour, np.uint8))
        labels = [{"value": v, "bbox": list(box)} for v, box in dice]
        entries.append({"file": f"images/{name}", "width": 300, "height": 300, "dice": labels})
    return write_manifest(root, entries)


def test_a_candidate_has_no_die_in_its_crop_and_a_board_of_the_background_colour(
    tmp_path: Path,
) -> None:
    """The board a die lay on is compared with the board the frames are made on (the
    one given), colour by colour: the nearest first, a board of another colour left out.
    The crop around a die reaches out by its longer side, so a neighbour beside a tall
    die is in its crop: that die is left out, the neighbour (whose crop stays clear)
    kept."""
    board_bgr = (200, 100, 50)
    dice = _uniform_photos(
        tmp_path,
        {
            "tall.png": (board_bgr, [(2, (40, 40, 60, 80)), (5, (70, 40, 90, 60))]),
            "near.png": ((200, 100, 60), [(2, (100, 100, 140, 140))]),
            "other.png": ((120, 100, 50), [(2, (100, 100, 140, 140))]),
            "same.png": (board_bgr, [(2, (100, 100, 140, 140))]),
        },
    )
    board = np.full((30, 40, 3), board_bgr, np.uint8)
    cands = candidates(dice, board=board)
    assert {v: [c.file for c in cs] for v, cs in cands.items() if cs} == {
        2: ["images/same.png", "images/near.png"],
        5: ["images/tall.png"],
    }


def test_the_readers_read_the_frame_as_saved_with_each_other_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--also-models: each folder is a reader of its own, with the networks found there
    in place of the shipped ones (the others kept); every reader reads the frame as it
    will be read back from its JPEG file, not the picture before coding."""
    import vision.classify
    import vision.locate
    import vision.reader

    seen: list[np.ndarray] = []

    class Reader:
        def __init__(self) -> None:
            self.locator: object = "shipped locator"
            self.classifier: object = "shipped classifier"

        def read(self, frame: np.ndarray) -> str:
            seen.append(frame)
            return "read"

    monkeypatch.setattr(vision.reader, "PipReader", Reader)
    monkeypatch.setattr(vision.locate, "Locator", lambda path: ("locator", path))
    monkeypatch.setattr(vision.classify, "Classifier", lambda path: ("classifier", path))
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "classifier.onnx").write_bytes(b"")
    (b / "locator.onnx").write_bytes(b"")
    readers = Readers([a, b])
    assert [(r.locator, r.classifier) for r in readers.readers] == [
        ("shipped locator", "shipped classifier"),
        ("shipped locator", ("classifier", a / "classifier.onnx")),
        (("locator", b / "locator.onnx"), "shipped classifier"),
    ]
    frame = photo_like(60, 80)
    assert readers.read(frame) == ["read"] * 3
    saved = as_saved(frame, JPEG_QUALITY)
    assert not np.array_equal(saved, frame)
    assert all(np.array_equal(s, saved) for s in seen) and len(seen) == 3


def test_a_crop_must_read_right_at_both_places_its_value_lies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A value lies at SPOT_A, and the second die of a double at SPOT_B: a crop is read
    alone at both, misread at either is not taken, and the surest is the one whose
    weaker place is read most surely."""
    import table.service.make_frames as mf

    sure = {f"{v}a": 0.9 for v in range(1, 7)} | {"3b": 0.9, "3c": 0.9}
    _fake_choosing(monkeypatch, sure, set())
    at = {
        ("3a", SPOT_A[3]): 0.99, ("3a", SPOT_B[3]): -1.0,
        ("3b", SPOT_A[3]): 0.6, ("3b", SPOT_B[3]): 0.95,
        ("3c", SPOT_A[3]): 0.8, ("3c", SPOT_B[3]): 0.7,
    }  # fmt: skip
    monkeypatch.setattr(mf, "paste", lambda base, die, center: (die.file, center))
    monkeypatch.setattr(mf, "margin", lambda r, frame, dice: at.get(frame, 0.9))
    log = io.StringIO()
    assert choose(Path("unused"), log=log)[3].file == "3c"
    assert "value 3: 2 of 3 crops read right alone" in log.getvalue().splitlines()


def _drawn_dice(tmp_path: Path) -> tuple[Path, dict[int, tuple[float, ...]]]:
    """A dice folder of drawn photos: the background photo (an empty board) and
    ``images/row.png``, a row of dice 1-6 and a second 2 below the 3, labelled to
    0.01 px; with the six boxes of the row, by value."""
    root = tmp_path / "dice"
    images = root / "byler_d6" / "images"
    images.mkdir(parents=True)
    board = np.full((480, 640, 3), (190, 200, 205), np.uint8)
    cv2.imwrite(str(root / "byler_d6" / BACKGROUND), board)
    boxes = {v: (30.04 + 100 * (v - 1), 100.03, 72.01 + 100 * (v - 1), 142.02) for v in range(1, 7)}
    second_two = (230.04, 300.03, 272.01, 342.02)
    photo = board.copy()
    for x0, y0, x1, y1 in [*boxes.values(), second_two]:
        cv2.rectangle(photo, (int(x0), int(y0)), (int(x1), int(y1)), (250, 250, 250), -1)
    cv2.imwrite(str(images / "row.png"), photo)
    labels = [{"value": v, "bbox": list(b)} for v, b in boxes.items()]
    labels.append({"value": 2, "bbox": list(second_two)})
    write_manifest(root, [{"file": "images/row.png", "width": 640, "height": 480, "dice": labels}])
    return root, boxes


def _sources_naming(tmp_path: Path, boxes: dict[int, tuple[float, ...]], file: str) -> Path:
    """A SOURCES.json naming, for each value, ``file`` and its box rounded to 0.1 px."""
    dice = {str(v): {"file": file, "bbox": [round(x, 1) for x in b]} for v, b in boxes.items()}
    path = tmp_path / "named.json"
    path.write_text(json.dumps({"dice": dice}))
    return path


def test_recorded_crops_are_cut_at_their_labels_exact_boxes(tmp_path: Path) -> None:
    """SOURCES.json keeps each box rounded to 0.1 px; the crop is cut again at the box of
    the label it rounds, not at the rounded one (a frame cut a fraction of a pixel off is
    not the shipped frame)."""
    dice, boxes = _drawn_dice(tmp_path)
    chosen = recorded(dice, _sources_naming(tmp_path, boxes, "byler_d6/images/row.png"))
    assert {v: (c.value, c.file, c.bbox) for v, c in chosen.items()} == {
        v: (v, "images/row.png", box) for v, box in boxes.items()
    }


@pytest.mark.parametrize(
    "change, words",
    [
        ("the 3 named at the second 2", "no labelled 3 at [230.0, 300.0, 272.0, 342.0]"),
        ("the 3 in a photo not labelled", "no labelled 3 at [230.0, 100.0, 272.0, 142.0] in "),
        ("the 3 named 0.3 px off", "no labelled 3 at [230.3, 100.0, 272.0, 142.0]"),
    ],
)
def test_a_recorded_die_is_a_labelled_die_of_that_value_in_that_photo(
    tmp_path: Path, change: str, words: str
) -> None:
    """Each die SOURCES.json names must be a label of its value in the photo named, at the
    box named (to its rounding): a box of another value's die, of no labelled photo, or
    not a label's box is one line, never frames with some other die in them."""
    dice, boxes = _drawn_dice(tmp_path)
    sources = _sources_naming(tmp_path, boxes, "byler_d6/images/row.png")
    data = json.loads(sources.read_text())
    three = data["dice"]["3"]
    if change == "the 3 named at the second 2":
        three["bbox"] = [230.0, 300.0, 272.0, 342.0]
    elif change == "the 3 in a photo not labelled":
        three["file"] = "byler_d6/images/IMG_20191208_112554.jpg"
    else:
        three["bbox"][0] = 230.3
    sources.write_text(json.dumps(data))
    with pytest.raises(SystemExit) as info:
        main(["--dice", str(dice), "--out", str(tmp_path / "out"), "--sources", str(sources)])
    assert str(info.value).startswith(f"make_frames: {words}") and "\n" not in str(info.value)
    assert not (tmp_path / "out").exists()


def test_frames_made_from_sources_record_them_and_are_made_again_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """make_frames writes the 28 frames and a SOURCES.json (one JSON document, a line
    end at its end) naming the background and each die's photo and box to 0.1 px, into
    --out (made, with any folders above it); the frames made again from that SOURCES.json
    are the same files."""
    dice, boxes = _drawn_dice(tmp_path)
    out = tmp_path / "made" / "frames"
    named = _sources_naming(tmp_path, boxes, "byler_d6/images/row.png")
    assert main(["--dice", str(dice), "--out", str(out), "--sources", str(named)]) == 0
    assert capsys.readouterr().out == f"wrote 28 frames to {out}\n"
    text = (out / "SOURCES.json").read_text()
    assert text.endswith("}\n")
    written = json.loads(text)
    assert written["background"] == {"file": f"byler_d6/{BACKGROUND}", "box": [0, 0, 400, 300]}
    assert written["dice"] == json.loads(named.read_text())["dice"]
    frames = sorted(p.name for p in out.glob("*.jpg"))
    assert len(frames) == 28 and "empty.jpg" in frames and "dice_63.jpg" in frames
    again = tmp_path / "again"
    assert (
        main(["--dice", str(dice), "--out", str(again), "--sources", str(out / "SOURCES.json")])
        == 0
    )
    for name in frames:
        assert (again / name).read_bytes() == (out / name).read_bytes(), name


@pytest.mark.parametrize("made", ["nothing", "byler_d6 without manifest.json"])
def test_a_dice_folder_without_the_photos_is_one_line_and_exit_2(
    tmp_path: Path, made: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """--dice naming a folder without byler_d6's labelled photos (a wrong
    DICETABLE_SHARED) says where it looked and exits 2, writing nothing."""
    dice = tmp_path / "dice"
    if made != "nothing":
        (dice / "byler_d6" / "images").mkdir(parents=True)
    sources = str(DEFAULT_OUT / "SOURCES.json")
    assert main(["--dice", str(dice), "--out", str(tmp_path / "out"), "--sources", sources]) == 2
    assert capsys.readouterr().err == f"make_frames: no byler_d6 photos under {dice}\n"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "networks", [["locator.onnx"], ["classifier.onnx"], ["locator.onnx", "classifier.onnx"]]
)
def test_also_models_folders_reach_the_choosing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, networks: list[str]
) -> None:
    """A folder with either network (or both) is taken, and the crops are chosen to suit
    the readers made with it, each folder given."""
    import table.service.make_frames as mf

    given: list[object] = []

    def choose(dice_dir: Path, log: object = None, also_models: object = None) -> object:
        given.append(also_models)
        raise SystemExit("stopped")

    monkeypatch.setattr(mf, "choose", choose)
    folders = [tmp_path / "m1", tmp_path / "m2"]
    for folder in folders:
        folder.mkdir()
        for name in networks:
            (folder / name).write_bytes(b"")
    dice = write_manifest(tmp_path / "dice", [])
    argv = ["--dice", str(dice), "--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit, match="stopped"):
        main([*argv, "--also-models", str(folders[0]), "--also-models", str(folders[1])])
    assert given == [folders]


def test_a_frame_the_coder_cannot_make_is_one_line_and_nothing_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A frame the JPEG coder refuses stops make_frames with one line before any file
    is written: never a folder with some of the frames and the old rest."""
    import table.service.make_frames as mf

    def refuse(frame: np.ndarray, quality: int) -> bytes:
        raise ValueError("JPEG encoding failed")

    monkeypatch.setattr(mf, "encode_jpeg", refuse)
    dice, boxes = _drawn_dice(tmp_path)
    named = _sources_naming(tmp_path, boxes, "byler_d6/images/row.png")
    with pytest.raises(SystemExit, match="^make_frames: JPEG encoding failed$"):
        main(["--dice", str(dice), "--out", str(tmp_path / "out"), "--sources", str(named)])
    assert not (tmp_path / "out").exists()


def test_margin_is_one_when_every_die_is_read_with_full_confidence() -> None:
    """The lowest confidence of dice all read with confidence 1 is 1: the surest a crop
    can be, not a crop to try last."""
    frame = np.zeros((2, 2, 3), np.uint8)
    assert margin(_Readers(_reading((4,), 1.0), _reading((4,), 1.0)), frame, (4,)) == 1.0


def test_a_crop_read_right_however_unsurely_can_be_chosen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only a crop misread alone (margin -1) is never taken: one read right at the least
    confidence is still a crop that reads, better than stopping with no frames."""
    _fake_choosing(monkeypatch, {f"{v}a": 0.9 for v in range(1, 7)} | {"4a": 0.0}, set())
    assert choose(Path("unused"), log=io.StringIO())[4].file == "4a"
