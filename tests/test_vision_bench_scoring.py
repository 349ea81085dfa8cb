"""How vision/bench.py scores a reading against the labels: the figures it reports (dice
right, wrong, refused, missed, extra, stray, images fully right) are the project's claims,
so each rule of the scoring is pinned here on small made-up labelled images."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import write_manifest
from vision import bench
from vision.bench import Score, grown, holds, pct, report, run_set, score_image
from vision.dataset import LabelledDie, LabelledImage
from vision.types import DieReading, FrameReading, FrameStatus

BOX = (0.0, 0.0, 100.0, 100.0)  # a label whose centre is (50, 50)


def _die(value: int | None, x: float, y: float, reason: str = "") -> DieReading:
    return DieReading(value, (x, y), ((x, y), (20.0, 20.0), 0.0), 0.9, reason)


def _img(*dice: LabelledDie) -> LabelledImage:
    return LabelledImage("s", Path("a.jpg"), 300, 300, dice)


def _counts(sc: Score) -> tuple[int, ...]:
    return (sc.dice, sc.right, sc.wrong, sc.refused, sc.missed, sc.extra, sc.stray)


def test_a_label_box_grows_by_a_quarter_of_its_size_and_its_edges_hold() -> None:
    box = grown((10.0, 20.0, 30.0, 60.0))
    assert box == (7.5, 15.0, 32.5, 65.0)
    for x, y in ((7.5, 15.0), (32.5, 65.0), (7.5, 65.0), (20.0, 40.0)):
        assert holds(box, x, y), (x, y)
    for x, y in ((7.4, 40.0), (32.6, 40.0), (20.0, 14.9), (20.0, 65.1), (40.0, 20.0)):
        assert not holds(box, x, y), (x, y)


def test_a_label_takes_its_nearest_reading_and_the_other_is_extra() -> None:
    """Two readings inside one label's grown box: the nearer (by distance in x and y)
    is matched, whatever the order they are listed in; the other is extra."""
    far = _die(4, 50.0, 80.0)  # 30 px below the centre, same column
    near = _die(3, 60.0, 50.0)  # 10 px to the right, same row
    for dice in ((far, near), (near, far)):
        sc = Score()
        score_image(_img(LabelledDie(3, BOX)), dice, sc)
        assert _counts(sc) == (1, 1, 0, 0, 0, 1, 0), dice
        assert sc.wrong_notes == ["a.jpg: extra 4 at (50,80) conf 0.900"]
        assert (sc.images, sc.images_right) == (1, 0)


def test_one_reading_between_two_labels_counts_for_one_of_them() -> None:
    """A reading inside both grown boxes goes to the nearer label; the other is missed."""
    labels = (LabelledDie(2, BOX), LabelledDie(2, (110.0, 0.0, 210.0, 100.0)))
    sc = Score()
    score_image(_img(*labels), (_die(2, 102.0, 50.0),), sc)
    assert _counts(sc) == (2, 1, 0, 0, 1, 0, 0)
    assert sc.doubt_notes == ["a.jpg: missed, label 2 at (160,50)"]
    assert sc.images_right == 0


def test_each_reading_is_compared_with_the_label_it_matched() -> None:
    labels = (LabelledDie(1, BOX), LabelledDie(5, (200.0, 200.0, 260.0, 260.0)))
    sc = Score()
    score_image(_img(*labels), (_die(5, 230.0, 230.0), _die(1, 50.0, 50.0)), sc)
    assert _counts(sc) == (2, 2, 0, 0, 0, 0, 0)
    assert (sc.images, sc.images_right) == (1, 1)


@pytest.mark.parametrize(
    ("dice", "counts"),
    [
        ((_die(6, 50.0, 50.0),), (1, 0, 1, 0, 0, 0, 0)),  # wrong
        ((_die(None, 50.0, 50.0, "blurred"),), (1, 0, 0, 1, 0, 0, 0)),  # refused
        ((), (1, 0, 0, 0, 1, 0, 0)),  # missed
        ((_die(3, 50.0, 50.0), _die(2, 250.0, 250.0)), (1, 1, 0, 0, 0, 1, 0)),  # extra
        ((_die(3, 50.0, 50.0), _die(None, 250.0, 250.0, "tilted")), (1, 1, 0, 0, 0, 0, 1)),
    ],
    ids=["wrong", "refused", "missed", "extra", "stray"],
)
def test_an_image_with_anything_but_every_label_read_right_is_not_fully_right(
    dice: tuple[DieReading, ...], counts: tuple[int, ...]
) -> None:
    sc = Score()
    score_image(_img(LabelledDie(3, BOX)), dice, sc)
    assert _counts(sc) == counts
    assert (sc.images, sc.images_right) == (1, 0)
    score_image(_img(LabelledDie(3, BOX)), (_die(3, 40.0, 60.0),), sc)  # then a right one
    assert (sc.images, sc.images_right) == (2, 1)
    assert sc.dice == 2 and sc.right == counts[1] + 1


def test_refusals_are_counted_by_their_reason() -> None:
    labels = (LabelledDie(3, BOX), LabelledDie(4, (200.0, 0.0, 260.0, 60.0)))
    sc = Score()
    score_image(
        _img(*labels), (_die(None, 50.0, 50.0, "blurred"), _die(None, 230.0, 30.0, "tilted")), sc
    )
    score_image(_img(LabelledDie(3, BOX)), (_die(None, 50.0, 50.0, "blurred"),), sc)
    assert sc.refused == 3 and sc.refusals == {"blurred": 2, "tilted": 1}


def test_percentages_are_of_the_given_whole() -> None:
    assert pct(1, 3) == "1 (33.3 %)"
    assert pct(2, 2) == "2 (100.0 %)"
    assert pct(0, 0) == "0 (0.0 %)"


def test_the_report_gives_each_figure_against_its_whole(capsys: pytest.CaptureFixture[str]) -> None:
    sc = Score(
        dice=10, right=6, wrong=1, refused=2, missed=1, extra=3, stray=4, images=4, images_right=1
    )
    report("byler_d6", "heldout", sc, 0)
    assert capsys.readouterr().out.splitlines() == [
        "byler_d6 [heldout]: 4 images, 10 dice",
        "  right   6 (60.0 %)",
        "  wrong   1 (10.0 %)",
        "  refused 2 (20.0 %), missed 1 (10.0 %)",
        "  extra   3, stray refusals 4",
        "  images fully right 1 (25.0 %)",
    ]


class _Stub:
    """A reader that gives, on each read, the next of its readings (of one die each)."""

    def __init__(self, values: list[int]) -> None:
        self.values = values
        self.reads = 0

    def read(self, frame: object) -> FrameReading:
        value = self.values[self.reads % len(self.values)]
        self.reads += 1
        return FrameReading(FrameStatus.OK, "", (_die(value, 5.0, 5.0),))


def test_run_set_reads_the_held_out_images_and_scores_each_first_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = [
        {
            "file": f"images/{n}.png",
            "width": 9,
            "height": 9,
            "dice": [{"value": 2, "bbox": [0, 0, 9, 9]}],
        }
        for n in "abcde"
    ]
    write_manifest(tmp_path, entries)
    monkeypatch.setenv("DICETABLE_SHARED", str(tmp_path))
    read: list[str] = []

    def fake_read(self: LabelledImage) -> int:
        read.append(self.name)
        return 0

    monkeypatch.setattr(LabelledImage, "read", fake_read)
    stub = _Stub([2, 5])  # the first read of an image is right, the second wrong
    sc = run_set(stub, "byler_d6", "heldout", repeat=2)  # type: ignore[arg-type]
    assert read == ["b.png", "d.png"]
    assert stub.reads == 4 and sc.reads == 2
    assert (sc.images, sc.images_right, sc.dice, sc.right, sc.wrong) == (2, 2, 2, 2, 0)
    assert len(sc.ms) == len(sc.fastest_ms) == 2


@pytest.mark.parametrize(
    ("flag", "part"), [([], "heldout"), (["--tune"], "tune"), (["--calib"], "calib")]
)
def test_the_bench_measures_the_part_asked_for(
    flag: list[str], part: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    asked: list[tuple[str, str]] = []

    def fake_run_set(reader: object, set_name: str, p: str, repeat: int = 1) -> Score:
        asked.append((set_name, p))
        return Score()

    monkeypatch.setattr(bench, "run_set", fake_run_set)
    assert bench.main(["byler_d6", "matteo_webcam", "--no-big", *flag]) == 0
    assert asked == [("byler_d6", part), ("matteo_webcam", part)]
    assert f"byler_d6 [{part}]: 0 images, 0 dice" in capsys.readouterr().out
