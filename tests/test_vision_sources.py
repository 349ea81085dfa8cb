"""Frame sources: folders and videos written here, missing devices, a fake picamera2."""

from __future__ import annotations

import os
import re
import struct
import sys
import types
import zlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from conftest import RunPython

from tests.conftest import FakePicamera2, damaged_inside, fake_picamera2_module, offer_picamera2
from vision import sources
from vision.sources import (
    V4L2_CID_POWER_LINE_FREQUENCY,
    VIDEO_CHECK_AHEAD,
    VIDIOC_S_CTRL,
    CameraError,
    DeviceSource,
    FolderSource,
    FrameSource,
    ImageFilesSource,
    PiCameraSource,
    SourceExhausted,
    VideoFileSource,
    as_bgr,
    ask_power_line,
    claimed_size,
    decoded_alone,
    iter_frames,
    jpeg_cut_short,
    list_images,
    load_image,
    open_source,
    video_damage_said,
)


def _frame(level: int, h: int = 48, w: int = 64) -> np.ndarray:
    img = np.zeros((h, w, 3), np.uint8)
    img[:, :] = (level, 255 - level, 7)  # B, G, R: distinguishable channels
    return img


def _write_folder(folder: Path, names: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i, name in enumerate(names):
        assert cv2.imwrite(str(folder / name), _frame(10 * (i + 1)))


# -- folder ---------------------------------------------------------------


def test_folder_replays_images_in_natural_order_then_runs_out(tmp_path: Path) -> None:
    # frame10 written first: a plain string sort would put it before frame2.
    names = ["frame10.png", "frame2.png", "frame1.png"]
    _write_folder(tmp_path, names)
    (tmp_path / "notes.txt").write_text("not an image")
    with FolderSource(tmp_path) as src:
        assert src.name == f"folder:{tmp_path}"
        assert [p.name for p in src.files] == ["frame1.png", "frame2.png", "frame10.png"]
        frames = [src.read() for _ in range(3)]
        with pytest.raises(SourceExhausted):
            src.read()
    # frame1 was written with level 30, frame2 with 20, frame10 with 10.
    assert [int(f[0, 0, 0]) for f in frames] == [30, 20, 10]
    for f in frames:
        assert f.dtype == np.uint8 and f.shape == (48, 64, 3)
        assert tuple(int(v) for v in f[5, 5]) == (int(f[0, 0, 0]), 255 - int(f[0, 0, 0]), 7)


def test_folder_order_is_the_same_whatever_order_the_file_system_lists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Names the natural order counts alike ("shot01" and "shot1", "B" and "b") come in
    the order of their names, not in the order the file system happens to list them;
    a superscript digit among the digits ("x1²2") is no number, and no crash."""
    names = ["shot1.png", "shot01.png", "b.png", "B.png", "x1²2.png", "x12.png"]
    for name in names:
        (tmp_path / name).write_bytes(b"")
    listed = sorted(tmp_path.iterdir())
    orders = []
    for order in (listed, listed[::-1]):
        monkeypatch.setattr(Path, "iterdir", lambda self, order=order: iter(order))
        orders.append([p.name for p in list_images(tmp_path)])
    expected = ["B.png", "b.png", "shot01.png", "shot1.png", "x1²2.png", "x12.png"]
    assert orders == [expected, expected]


def test_hidden_files_in_a_folder_are_not_photos(tmp_path: Path) -> None:
    """A card written on a Mac holds ``._name.jpg`` beside each photo (AppleDouble
    metadata, no image); hidden files are not the folder's photos."""
    _write_folder(tmp_path, ["a.jpg", "b.jpg"])
    (tmp_path / "._a.jpg").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X")
    (tmp_path / ".thumb.png").write_bytes(b"")
    assert [p.name for p in list_images(tmp_path)] == ["a.jpg", "b.jpg"]
    with FolderSource(tmp_path) as src:
        assert len(list(iter_frames(src))) == 2


def test_a_photo_named_in_capitals_keeps_its_place_in_a_folder(tmp_path: Path) -> None:
    """A photo renamed in capitals (``Throw2.png`` between ``throw1`` and ``throw3``) is
    replayed in its place: sorted by character code, every capital name would come
    first, and each throw would be shown another throw's photo."""
    names = ["throw3.png", "Throw2.png", "throw1.png"]
    _write_folder(tmp_path, names)  # throw3 at level 10, Throw2 at 20, throw1 at 30
    with FolderSource(tmp_path) as src:
        levels = [int(f[0, 0, 0]) for f in iter_frames(src)]
    assert levels == [30, 20, 10]


def test_a_folder_named_like_a_photo_is_not_a_photo(tmp_path: Path) -> None:
    """A folder inside the replayed one whose name ends ``.png`` is no photo: taken for
    one, its throw would be a camera fault ("is a folder, not an image")."""
    _write_folder(tmp_path, ["a.png", "c.png"])
    (tmp_path / "b.png").mkdir()
    assert [p.name for p in list_images(tmp_path)] == ["a.png", "c.png"]
    with FolderSource(tmp_path) as src:
        assert [int(f[0, 0, 0]) for f in iter_frames(src)] == [10, 20]


def test_folder_loop_starts_over(tmp_path: Path) -> None:
    _write_folder(tmp_path, ["a.png", "b.png"])
    with FolderSource(tmp_path, loop=True) as src:
        levels = [int(src.read()[0, 0, 0]) for _ in range(5)]
    assert levels == [10, 20, 10, 20, 10]


def test_folder_grey_and_alpha_images_come_out_bgr(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "1_grey.png"), np.full((10, 12), 77, np.uint8))
    bgra = np.zeros((10, 12, 4), np.uint8)
    bgra[:] = (1, 2, 3, 128)
    cv2.imwrite(str(tmp_path / "2_alpha.png"), bgra)
    src = FolderSource(tmp_path)
    grey, alpha = src.read(), src.read()
    assert grey.shape == (10, 12, 3) and tuple(grey[0, 0]) == (77, 77, 77)
    assert alpha.shape == (10, 12, 3) and tuple(alpha[0, 0]) == (1, 2, 3)


def test_iter_frames_stops_at_the_end(tmp_path: Path) -> None:
    _write_folder(tmp_path, ["a.jpg", "b.jpg", "c.jpg"])
    with open_source(str(tmp_path)) as src:
        assert len(list(iter_frames(src))) == 3


def test_empty_folder_is_a_camera_error(tmp_path: Path) -> None:
    (tmp_path / "readme.txt").write_text("no images here")
    with pytest.raises(CameraError, match="no images in folder"):
        FolderSource(tmp_path)


def test_missing_folder_is_a_camera_error(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="no such folder"):
        open_source(f"folder:{tmp_path / 'nope'}")


def test_a_folder_spec_as_a_person_writes_it_opens_that_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The config takes "folder: PATH" with a space after the colon and "~" for the home
    folder, as it does for table.data_dir; the camera then said "no such folder"."""
    _write_folder(tmp_path / "throws", ["a.jpg", "b.jpg"])
    monkeypatch.setenv("HOME", str(tmp_path))
    for spec in (f"folder: {tmp_path / 'throws'}", "folder:~/throws", " folder: ~/throws "):
        with open_source(spec) as src:
            assert len(list(iter_frames(src))) == 2, spec


def test_broken_image_in_folder_names_the_file(tmp_path: Path) -> None:
    _write_folder(tmp_path, ["a.png"])
    (tmp_path / "b.png").write_bytes(b"this is not a png")
    src = FolderSource(tmp_path)
    src.read()
    with pytest.raises(CameraError) as info:
        src.read()
    message = str(info.value)
    assert "b.png" in message and "not an image" in message
    assert "\n" not in message


THROW = Path(__file__).resolve().parents[1] / "table" / "data" / "frames" / "dice_63.jpg"


def test_a_jpeg_cut_short_in_a_folder_is_skipped_not_read(tmp_path: Path) -> None:
    """A photo copied in part, or still being written into the folder replayed. OpenCV
    4.10 decodes it with its lower part black (a die across the cut read from half its
    pips); OpenCV 5.1 gives no picture, said as "not an image OpenCV can read (damaged,
    another format, ...)". Either way it is now "cut short", naming the file, and the
    folder goes on to its next photo."""
    whole = THROW.read_bytes()
    cut = whole[: len(whole) * 3 // 5]
    (tmp_path / "a.jpg").write_bytes(whole)
    (tmp_path / "b.jpg").write_bytes(cut)
    (tmp_path / "c.jpg").write_bytes(whole + b"\x00" * 64)  # padding after the end: whole
    with FolderSource(tmp_path) as src:
        first = src.read()
        with pytest.raises(CameraError) as info:
            src.read()
        third = src.read()
    assert "b.jpg" in str(info.value) and "cut short" in str(info.value)
    assert np.array_equal(first, third)


@pytest.mark.parametrize("ext", [".jpg", ".tif"])
def test_a_photo_damaged_inside_in_a_folder_is_skipped_not_read(ext: str, tmp_path: Path) -> None:
    """A replayed photo with a few bytes changed decodes, grey or smeared past the damage
    (a TIFF's: a 2 read as a 1); only its decoder says so, on standard error, which the
    service cannot take from its threads. The folder gave the picture as if whole. Its
    decode in a process of its own now says it, naming the file, and the folder goes on
    to its next photo."""
    ok, encoded = cv2.imencode(ext, load_image(THROW))
    assert ok
    whole = encoded.tobytes()
    (tmp_path / f"a{ext}").write_bytes(whole)
    (tmp_path / f"b{ext}").write_bytes(damaged_inside(whole))
    (tmp_path / f"c{ext}").write_bytes(whole)
    assert cv2.imdecode(np.frombuffer(damaged_inside(whole), np.uint8), 1) is not None
    with FolderSource(tmp_path) as src:
        first = src.read()
        with pytest.raises(CameraError) as info:
            src.read()
        third = src.read()
    said = "Corrupt JPEG data" if ext == ".jpg" else "TIFF_Error "
    assert str(info.value).startswith(f"{tmp_path / f'b{ext}'}: damaged ({said}"), info.value
    assert "\n" not in str(info.value)
    assert np.array_equal(first, third)
    assert decoded_alone(tmp_path / f"a{ext}") == ""


def test_a_png_damaged_inside_is_refused_by_its_own_decode(tmp_path: Path) -> None:
    """``decoded_alone`` does not look at a PNG: its checksums fail the decode of one
    with bytes changed inside, so it is refused as unreadable, never read smeared."""
    ok, encoded = cv2.imencode(".png", load_image(THROW))
    assert ok
    (tmp_path / "a.png").write_bytes(damaged_inside(encoded.tobytes()))
    with pytest.raises(CameraError, match="not an image OpenCV can read"):
        load_image(tmp_path / "a.png")
    assert decoded_alone(tmp_path / "a.png") is None


def test_the_damage_check_imports_no_file_of_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The decode's own process would import a ``cv2.py`` lying in the current folder in
    OpenCV's stead, and say nothing of the damage."""
    (tmp_path / "a.jpg").write_bytes(damaged_inside(THROW.read_bytes()))
    (tmp_path / "cv2.py").write_text("raise SystemExit(0)\n")
    monkeypatch.chdir(tmp_path)
    assert (decoded_alone(tmp_path / "a.jpg") or "").startswith("Corrupt JPEG data")


def test_the_damage_check_finds_opencv_where_this_program_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The decode's own process ran with ``-I``, which drops PYTHONPATH and the user's
    site-packages: an OpenCV installed there (``pip install --user``) was not found, the
    process failed, and no photo was ever checked. It now imports as this program does
    (here a ``cv2`` on PYTHONPATH that says every photo is damaged)."""
    shim = tmp_path / "path"
    shim.mkdir()
    (shim / "cv2.py").write_text(
        "import sys\nsys.stderr.write('Corrupt JPEG data: said by the cv2 on the path')\n"
        "raise SystemExit(0)\n"
    )
    (tmp_path / "a.jpg").write_bytes(THROW.read_bytes())
    monkeypatch.setenv("PYTHONPATH", str(shim))
    assert decoded_alone(tmp_path / "a.jpg") == "Corrupt JPEG data: said by the cv2 on the path"


def test_a_folder_none_of_whose_photos_can_be_read_is_refused_when_opened(
    tmp_path: Path,
) -> None:
    """A folder holding only an empty ``.jpg``, text named ``.jpg`` or a damaged photo was
    opened, and then every throw said the photo's fault and came round to it again:
    a table that could never read a throw. It is now refused when opened, with the
    first photo's fault; one readable photo among them is enough."""
    (tmp_path / "a.jpg").write_bytes(b"")
    (tmp_path / "b.jpg").write_text("not a photo")
    (tmp_path / "c.jpg").write_bytes(damaged_inside(THROW.read_bytes()))
    with pytest.raises(CameraError) as info:
        FolderSource(tmp_path, loop=True)
    assert str(info.value) == (
        f"folder:{tmp_path}: no photo in the folder can be read ({tmp_path / 'a.jpg'}: "
        "file is empty)"
    )
    (tmp_path / "d.jpg").write_bytes(THROW.read_bytes())
    with FolderSource(tmp_path, loop=True) as src:
        with pytest.raises(CameraError, match="file is empty"):
            src.read()  # the photos are still read in turn, the bad ones said
        for _ in range(2):
            with pytest.raises(CameraError):
                src.read()
        assert src.read().shape == load_image(THROW).shape


def test_a_damage_check_that_cannot_run_leaves_the_photo_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No interpreter to decode in (or one that fails): not checked, the photo read as it
    was before the check; a PNG's decoder fails by itself, so it is not decoded twice."""
    (tmp_path / "a.jpg").write_bytes(damaged_inside(THROW.read_bytes()))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))
    assert decoded_alone(tmp_path / "a.jpg") is None
    with FolderSource(tmp_path) as src:
        assert src.read().shape == load_image(THROW).shape
    monkeypatch.setattr(sys, "executable", "/bin/false")
    assert decoded_alone(tmp_path / "a.jpg") is None
    _write_folder(tmp_path / "png", ["a.png"])
    assert decoded_alone(tmp_path / "png" / "a.png") is None
    os.mkfifo(tmp_path / "pipe.jpg")  # not opened: a pipe with no writer holds its reader
    assert decoded_alone(tmp_path / "pipe.jpg") is None


def test_every_cut_of_a_jpeg_is_cut_short_and_whole_ones_are_not() -> None:
    """Baseline, progressive, and with restart marks (FF D0-D7 inside the picture)."""
    image = load_image(THROW)
    for params in ([], [cv2.IMWRITE_JPEG_PROGRESSIVE, 1], [cv2.IMWRITE_JPEG_RST_INTERVAL, 2]):
        ok, encoded = cv2.imencode(".jpg", image, params)
        assert ok
        data = encoded.tobytes()
        assert not jpeg_cut_short(data)
        assert all(jpeg_cut_short(data[:k]) for k in range(2, len(data) - 1, 53))
    assert not jpeg_cut_short(b"\x89PNG\r\n\x1a\n")  # another format: the decoder's to say
    assert not jpeg_cut_short(b"\xff\xd8 garbage where a mark should be")


def test_an_end_mark_inside_a_segment_between_scans_is_not_the_end() -> None:
    """A progressive JPEG's scans may have segments between them, and a comment may hold
    the bytes FF D9. Cut after such a comment, the file was once taken as whole: only the
    first scan's end was looked for, and FF D9 anywhere after it."""
    ok, encoded = cv2.imencode(".jpg", load_image(THROW), [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
    assert ok
    data = encoded.tobytes()
    second_scan = data.index(b"\xff\xda", data.index(b"\xff\xda") + 2)
    comment = b"\xff\xfe\x00\x04\xff\xd9"
    data = data[:second_scan] + comment + data[second_scan:]
    assert cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) is not None
    assert not jpeg_cut_short(data)
    after = second_scan + len(comment)
    assert all(jpeg_cut_short(data[:k]) for k in range(second_scan, after + 300, 7))


def test_load_image_errors_are_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    for path, words in [
        (tmp_path / "missing.jpg", "no such file"),
        (empty, "file is empty"),
        (tmp_path, "folder"),
    ]:
        with pytest.raises(CameraError, match=words) as info:
            load_image(path)
        assert "\n" not in str(info.value)


@pytest.mark.skipif(not Path("/dev/fd").is_dir(), reason="no /dev/fd on this system")
def test_a_photo_given_through_a_pipe_is_read() -> None:
    """``dicetable read <(ssh pi cat photo.jpg)`` names a pipe: it cannot seek."""
    ok, png = cv2.imencode(".png", _frame(40))
    assert ok and png.size < 4096  # fits the pipe's buffer: written before it is read
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, png.tobytes())
        os.close(write_end)
        image = load_image(f"/dev/fd/{read_end}")
    finally:
        os.close(read_end)
    assert image.shape == (48, 64, 3) and int(image[0, 0, 0]) == 40


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero on this system")
def test_a_device_is_not_read_as_a_photo() -> None:
    """``/dev/zero`` never ends: it is refused, not read until memory runs out."""
    with pytest.raises(CameraError, match="not a file") as info:
        load_image("/dev/zero")
    assert "\n" not in str(info.value)


# -- video ----------------------------------------------------------------


def _write_video(path: Path, levels: list[int]) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
    assert writer.isOpened()
    for level in levels:
        writer.write(_frame(level))
    writer.release()


def test_video_file_gives_every_frame_then_runs_out(tmp_path: Path) -> None:
    path = tmp_path / "throw.avi"
    levels = [0, 60, 120, 180, 240]
    _write_video(path, levels)
    with open_source(f"video:{path}") as src:
        assert isinstance(src, VideoFileSource)
        assert src.name == f"video:{path}"
        frames = list(iter_frames(src))
        with pytest.raises(SourceExhausted):
            src.read()
    assert len(frames) == len(levels)
    for frame, level in zip(frames, levels, strict=True):
        assert frame.shape == (48, 64, 3) and frame.dtype == np.uint8
        assert abs(int(frame[24, 32, 0]) - level) <= 6  # JPEG-compressed frames


def test_video_loop_rewinds(tmp_path: Path) -> None:
    path = tmp_path / "throw.avi"
    _write_video(path, [0, 200])
    with VideoFileSource(path, loop=True) as src:
        levels = [int(src.read()[24, 32, 0]) for _ in range(5)]
    assert [round(v / 100) * 100 for v in levels] == [0, 200, 0, 200, 0]


def test_video_of_one_frame_loops(tmp_path: Path) -> None:
    """OpenCV cannot seek back in a one-frame video: it is opened again instead of
    failing with "cannot rewind video" at the second frame."""
    path = tmp_path / "still.avi"
    _write_video(path, [120])
    with VideoFileSource(path, loop=True) as src:
        levels = [int(src.read()[24, 32, 0]) for _ in range(4)]
    assert all(abs(v - 120) <= 6 for v in levels), levels


def test_bare_path_to_video_opens_a_video(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    _write_video(path, [50])
    with open_source(str(path)) as src:
        assert isinstance(src, VideoFileSource)


def test_bare_path_to_image_replays_that_image(tmp_path: Path) -> None:
    path = tmp_path / "one.png"
    cv2.imwrite(str(path), _frame(90))
    with open_source(str(path)) as src:
        assert isinstance(src, ImageFilesSource)
        assert int(src.read()[0, 0, 0]) == 90
        with pytest.raises(SourceExhausted):
            src.read()


def test_a_bare_path_to_one_image_replays_it_round_and_round_when_asked(tmp_path: Path) -> None:
    """One photo given as the table's camera, with ``loop``: it is given again at every
    read, not "no more images" at the second throw."""
    path = tmp_path / "one.png"
    cv2.imwrite(str(path), _frame(90))
    with open_source(str(path), loop=True) as src:
        assert [int(src.read()[0, 0, 0]) for _ in range(3)] == [90, 90, 90]


def test_unreadable_video_is_a_camera_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00garbage" * 100)
    with pytest.raises(CameraError) as info:
        VideoFileSource(bad)
    assert "bad.mp4" in str(info.value)
    assert "\n" not in str(info.value)


def test_a_broken_video_is_one_line_without_ffmpegs_own_log(
    tmp_path: Path, run_python: RunPython
) -> None:
    """FFmpeg logs a broken file itself ("[mjpeg @ 0x...] No JPEG data found"). Its level
    is fixed when a process first opens a video, so this is checked in a fresh one."""
    broken = tmp_path / "throw.jpg"  # FFmpeg opens it as a one-picture video, finds none
    broken.write_text("not a video at all")
    code = (
        "import sys\n"
        "from vision.sources import CameraError, open_source\n"
        "try:\n"
        f"    open_source({'video:' + str(broken)!r})\n"
        "except CameraError as exc:\n"
        "    print(exc)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENCV_FFMPEG_LOGLEVEL"}
    done = run_python(code, env=env)
    assert done.stdout.startswith(f"video:{broken}: ") and done.stdout.count("\n") == 1
    assert done.stderr == ""


def test_a_video_whose_name_is_not_utf8_is_a_camera_error(
    tmp_path: Path, run_python: RunPython
) -> None:
    """OpenCV takes a file name as UTF-8 text; a name with other bytes (a file copied from
    an old camera card) stopped the whole process with a segmentation fault in
    cv2.VideoCapture. Checked in a fresh process, which such a fault would end."""
    name = os.fsdecode(b"throw\xff.avi")
    _write_video(tmp_path / "throw.avi", [50])
    (tmp_path / "throw.avi").rename(tmp_path / name)
    code = (
        "import sys\n"
        "from vision.sources import CameraError, open_source\n"
        "for spec in sys.argv[1:]:\n"
        "    try:\n"
        "        open_source(spec)\n"
        "    except CameraError as exc:\n"
        "        print(ascii(str(exc)))\n"
    )
    path = str(tmp_path / name)
    done = run_python(code, f"video:{path}", path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and all("not UTF-8" in line for line in lines), lines


def _throw_video(path: Path, fourcc: str, frames: int = 12) -> None:
    """A video of the dice photo moved 7 px a frame: each frame differs."""
    photo = cv2.resize(load_image(THROW), (160, 120))
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*fourcc), 10, (160, 120))
    assert writer.isOpened()
    for k in range(frames):
        writer.write(np.roll(photo, 7 * k, axis=1))
    writer.release()


def _decoded(path: Path) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, frame = cap.read()
        if not ok:
            cap.release()
            return frames
        frames.append(frame)


@pytest.mark.parametrize("fourcc", ["MJPG", "mp4v"])
def test_a_video_damaged_inside_gives_its_whole_frames_then_says_the_damage(
    fourcc: str, tmp_path: Path
) -> None:
    """A video with bytes zeroed inside decodes without a word to the program: the
    damaged frame smeared (and, in MPEG-4, every frame built on it). Only FFmpeg's log,
    or for motion JPEG the JPEG decoder's, says so. The frames well before the damage
    are given as filmed; from ``VIDEO_CHECK_AHEAD`` frames before the damaged one on,
    each read is a CameraError naming it; a looping video starts over whole."""
    clean = tmp_path / f"clean.{'avi' if fourcc == 'MJPG' else 'mp4'}"
    _throw_video(clean, fourcc, frames=30)
    data = bytearray(clean.read_bytes())
    if fourcc == "MJPG":  # zero four bytes three quarters into the 21st picture
        starts = [m.start() for m in re.finditer(rb"\xff\xd8\xff", bytes(data))]
        assert len(starts) == 30
        at = starts[20] + (starts[21] - starts[20]) * 3 // 4
        data[at : at + 4] = bytes(4)
    else:  # the pictures fill the file but for its last few hundred bytes
        at = len(data) * 2 // 3
        data[at : at + 64] = bytes(64)
    damaged = clean.with_name(f"damaged{clean.suffix}")
    damaged.write_bytes(bytes(data))
    whole, smeared = _decoded(clean), _decoded(damaged)
    assert len(whole) == len(smeared) == 30
    differ = [k for k in range(30) if not np.array_equal(whole[k], smeared[k])]
    assert differ and differ[0] > VIDEO_CHECK_AHEAD + 2  # OpenCV said nothing of it

    given: list[np.ndarray | str] = []
    with VideoFileSource(damaged, loop=True) as src:
        for _ in range(32):
            try:
                given.append(src.read())
            except CameraError as exc:
                given.append(str(exc))
    said = [k for k, g in enumerate(given) if isinstance(g, str)]
    assert said, "the damage was not said"
    first = said[0]
    assert 0 < first <= differ[0] - VIDEO_CHECK_AHEAD  # no smeared frame was given
    assert said == list(range(first, 30))  # from before the damaged frame to the end
    for k in [*range(first), 30, 31]:  # before it, and the video started over
        assert np.array_equal(given[k], whole[k % 30]), k
    reason = given[first]
    assert isinstance(reason, str)
    complained = first + VIDEO_CHECK_AHEAD + 1  # counted from 1
    assert reason.startswith(f"video:{damaged}: damaged at frame {complained} (")
    assert "\n" not in reason


def _motion_jpeg_with_picture_21_undecodable(tmp_path: Path) -> tuple[Path, Path]:
    """A motion JPEG video of 30 pictures, and a copy whose 21st picture's scan names
    Huffman tables defined nowhere (DC 3, AC 3): (whole, damaged)."""
    clean = tmp_path / "clean.avi"
    _throw_video(clean, "MJPG", frames=30)
    data = bytearray(clean.read_bytes())
    starts = [m.start() for m in re.finditer(rb"\xff\xd8\xff", bytes(data))]
    scan = data.index(b"\xff\xda", starts[20])
    data[scan + 6] = 0x33  # the first component's tables: DC 3, AC 3
    damaged = tmp_path / "damaged.avi"
    damaged.write_bytes(bytes(data))
    return clean, damaged


def test_a_motion_jpeg_picture_its_jpeg_decoder_refuses_is_damage_too(tmp_path: Path) -> None:
    """A picture whose scan names a Huffman table that is not there: OpenCV's JPEG decoder
    refuses it without a word, FFmpeg's draws it smeared. It was passed as whole."""
    clean, damaged = _motion_jpeg_with_picture_21_undecodable(tmp_path)
    whole, smeared = _decoded(clean), _decoded(damaged)
    assert [k for k in range(30) if not np.array_equal(whole[k], smeared[k])] == [20]
    with VideoFileSource(damaged) as src:
        given = [src.read() for _ in range(20 - VIDEO_CHECK_AHEAD)]
        with pytest.raises(CameraError, match="frame 21 .*the picture cannot be decoded"):
            src.read()
    assert all(np.array_equal(g, w) for g, w in zip(given, whole, strict=False))


def test_a_check_forbidden_to_lower_its_priority_checks_all_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service's unit filters the system calls of @resources, setpriority among them:
    os.nice raised, the check's process ended at once, and every frame was given
    unchecked. A sitecustomize makes os.nice fail as the filter does."""
    forbid = tmp_path / "forbid"
    forbid.mkdir()
    (forbid / "sitecustomize.py").write_text(
        "import errno, os\n"
        "def nice(_):\n"
        "    raise PermissionError(errno.EPERM, 'Operation not permitted')\n"
        "os.nice = nice\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(forbid), *sys.path]))
    _, damaged = _motion_jpeg_with_picture_21_undecodable(tmp_path)
    with VideoFileSource(damaged) as src:
        for _ in range(20 - VIDEO_CHECK_AHEAD):
            src.read()
        with pytest.raises(CameraError, match="frame 21 "):
            src.read()
        assert src._check is not None and not src._check.unchecked


def test_a_check_that_stands_still_is_given_up_and_the_frames_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A check slower than the reads by VIDEO_CHECK_STALL_S is given up: the frames are
    read unchecked, as without it (giving it up once ended the video as "closed")."""
    import signal

    import vision.sources

    monkeypatch.setattr(vision.sources, "VIDEO_CHECK_STALL_S", 0.3)
    path = tmp_path / "clip.mp4"
    _throw_video(path, "mp4v", frames=30)
    with VideoFileSource(path) as src:
        check = src._check
        assert check is not None and check._proc is not None
        os.kill(check._proc.pid, signal.SIGSTOP)  # the check stands still
        with check._cond:
            check.passed = -1
        with caplog.at_level("WARNING", logger="vision.sources"):
            frames = list(iter_frames(src))
        assert check.unchecked and check.damaged_at is None
    assert len(frames) == 30
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "(it stood still for 0.3 s)" in said[0], said


def test_a_read_waiting_on_the_check_ends_when_the_video_is_interrupted(
    tmp_path: Path,
) -> None:
    """The table stopping while a read waits on a check that stands still: the read
    waited out VIDEO_CHECK_STALL_S (10 s), after the camera's thread had been given up,
    and then gave an unchecked frame. Interrupted, it ends at once, as a closed source."""
    import signal
    import threading

    path = tmp_path / "clip.mp4"
    _throw_video(path, "mp4v", frames=30)
    src = VideoFileSource(path)
    check = src._check
    assert check is not None and check._proc is not None
    os.kill(check._proc.pid, signal.SIGSTOP)  # the check stands still
    try:
        with check._cond:
            check.passed = -1  # as if it had not begun
        said: list[str] = []
        ended = threading.Event()

        def read() -> None:
            try:
                src.read()
            except CameraError as exc:
                said.append(str(exc))
            ended.set()

        threading.Thread(target=read, daemon=True).start()
        assert not ended.wait(0.5)  # waiting on the check
        src.interrupt()
        assert ended.wait(5)
        assert said == [f"video:{path}: source is closed"]
    finally:
        src.close()


def test_a_whole_video_is_checked_and_given_whole(tmp_path: Path) -> None:
    """The check runs to the video's end, finds nothing, and its process is gone once
    the video is closed."""
    path = tmp_path / "clip.mp4"
    _throw_video(path, "mp4v", frames=5)
    with VideoFileSource(path) as src:
        frames = list(iter_frames(src))
        check = src._check
        assert check is not None
        assert check.damage(4) == "" and not check.unchecked
    assert len(frames) == 5
    assert check._proc is not None and check._proc.poll() is not None


def test_a_video_whose_check_cannot_run_is_read_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """No interpreter to run the check in: the video is read, unchecked, not refused,
    and the log (the service's journal) says so once."""
    path = tmp_path / "clip.mp4"
    _throw_video(path, "mp4v", frames=3)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))
    with caplog.at_level("WARNING", logger="vision.sources"), VideoFileSource(path) as src:
        assert len(list(iter_frames(src))) == 3
        assert src._check is not None and src._check.unchecked
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1, said
    assert said[0].startswith(f"video:{path}: not checked for damage (its process could not")


def test_a_check_that_ends_early_is_said_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The check's process killed (as a sandbox's system call filter kills one): the
    frames are read unchecked, and the log says so, once."""
    import signal

    path = tmp_path / "clip.mp4"
    _throw_video(path, "mp4v", frames=30)
    with caplog.at_level("WARNING", logger="vision.sources"), VideoFileSource(path) as src:
        check = src._check
        assert check is not None and check._proc is not None
        os.kill(check._proc.pid, signal.SIGKILL)
        frames = list(iter_frames(src))
        assert check.unchecked
    assert len(frames) == 30
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        f"video:{path}: not checked for damage (its process ended early, exit status -9); "
        "its frames are read as they decode"
    ]


def test_a_check_that_cannot_open_the_video_is_said_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The check's process could not open the video (its OpenCV another than this
    program's): nothing is checked, and the log (the service's journal) says so rather
    than taking the video for whole."""
    path = tmp_path / "clip.avi"
    path.write_bytes(b"\0garbage" * 100)
    check = sources.VideoCheck(path)
    try:
        with caplog.at_level("WARNING", logger="vision.sources"):
            assert check.damage(0) == ""  # waits until the check has ended
        assert check.done and check.unchecked
    finally:
        check.stop()
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        f"video:{path}: not checked for damage (its process could not open the video); "
        "its frames are read as they decode"
    ]


def test_what_ffmpeg_says_of_a_damaged_video_is_told_from_other_log_lines() -> None:
    assert video_damage_said("[OPENCV:FFMPEG:16] ac-tex damaged at 5 4") == "ac-tex damaged at 5 4"
    assert video_damage_said("[mpeg4 @ 0x55f0889cc440] Error at MB: 109") == "Error at MB: 109"
    assert video_damage_said("Corrupt JPEG data: bad Huffman code") == (
        "Corrupt JPEG data: bad Huffman code"
    )
    warn = "[ WARN:0@0.008] global cap.cpp:212 open VIDEOIO(FFMPEG): backend is ..."
    assert video_damage_said(f"{warn} | [OPENCV:FFMPEG:24] a warning | ") == ""
    assert video_damage_said(f"{warn} | [OPENCV:FFMPEG:08] stream gone") == "stream gone"


def test_missing_video_is_a_camera_error(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="no such file"):
        open_source(f"video:{tmp_path / 'gone.mp4'}")


def test_closed_source_refuses_to_read(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    _write_video(path, [50, 60])
    src = VideoFileSource(path)
    src.read()
    src.close()
    src.close()  # twice is fine
    with pytest.raises(CameraError, match="closed"):
        src.read()


@pytest.mark.parametrize("check_damage", [True, False])
def test_a_video_closed_before_its_first_read_refuses_to_read(
    tmp_path: Path, check_damage: bool
) -> None:
    """The first frame is read when the video opens (a broken file fails then): once
    closed, the video gives no frame, that one included, whether or not it is checked
    for damage."""
    path = tmp_path / "clip.avi"
    _write_video(path, [50, 60])
    src = VideoFileSource(path, check_damage=check_damage)
    src.close()
    with pytest.raises(CameraError, match="closed"):
        src.read()


# -- usb ------------------------------------------------------------------


def test_missing_usb_device_path_is_a_camera_error() -> None:
    with pytest.raises(CameraError, match=r"no camera at /dev/video97 \(is it plugged in\?\)"):
        open_source("usb:/dev/video97")


def test_missing_usb_device_index_is_a_camera_error() -> None:
    with pytest.raises(CameraError) as info:
        DeviceSource(97)
    assert str(info.value).startswith("usb:97: cannot open camera")


class _Capture:
    """A stand-in for ``cv2.VideoCapture``: gives ``script``'s frames (None: a frame not
    delivered), remembers what it was asked and whether it was let go."""

    made: list[_Capture] = []
    script: list[Any] = []
    opens = True
    seeks = True

    def __init__(self, device: Any) -> None:
        self.device = device
        self.frames = list(_Capture.script)
        self.asked: dict[int, float] = {}
        self.released = False
        _Capture.made.append(self)

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return _Capture.opens

    def set(self, prop: int, value: float) -> bool:
        self.asked[prop] = value
        if prop == cv2.CAP_PROP_POS_FRAMES and _Capture.seeks:
            self.frames = list(_Capture.script)
        return True

    def grab(self) -> bool:
        return True

    def read(self) -> tuple[bool, Any]:
        frame = self.frames.pop(0) if self.frames else None
        if frame is not None and cv2.CAP_PROP_FRAME_WIDTH in self.asked:  # as the driver
            width = int(self.asked[cv2.CAP_PROP_FRAME_WIDTH])
            frame = cv2.resize(frame, (width, int(self.asked[cv2.CAP_PROP_FRAME_HEIGHT])))
        return frame is not None, frame

    def release(self) -> None:
        self.released = True


@pytest.fixture
def capture(monkeypatch: pytest.MonkeyPatch) -> type[_Capture]:
    monkeypatch.setattr(_Capture, "made", [])
    monkeypatch.setattr(_Capture, "script", [_frame(33)] * 3)
    monkeypatch.setattr(_Capture, "opens", True)
    monkeypatch.setattr(_Capture, "seeks", True)
    monkeypatch.setattr(cv2, "VideoCapture", _Capture)
    return _Capture


def test_usb_source_reads_through_videocapture(capture: type[_Capture]) -> None:
    capture.script = [_frame(33), None, None]
    src = open_source("usb:2")
    assert isinstance(src, DeviceSource) and src.name == "usb:2"
    assert [c.device for c in capture.made] == [2]
    assert int(src.read()[0, 0, 0]) == 33
    with pytest.raises(CameraError, match="stopped sending frames"):
        src.read()


def test_the_power_line_request_is_v4l2s_set_control() -> None:
    """VIDIOC_S_CTRL is _IOWR('V', 28, struct v4l2_control): read and write (3) in the top
    two bits, the struct's 8 bytes, 'V', 28; the control is V4L2_CID_BASE (0x00980900) + 24."""
    assert (3 << 30) | (8 << 16) | (ord("V") << 8) | 28 == VIDIOC_S_CTRL
    assert V4L2_CID_POWER_LINE_FREQUENCY == 0x00980900 + 24


@pytest.mark.parametrize(("hz", "value"), [(50, 1), (60, 2)])
def test_a_webcam_is_asked_to_filter_the_mains_flicker(
    monkeypatch: pytest.MonkeyPatch, hz: int, value: int
) -> None:
    """``ask_power_line`` sets V4L2's power_line_frequency (1 for 50 Hz, 2 for 60) on the
    device, as ``v4l2-ctl -c power_line_frequency=N`` does, and lets the device go."""
    asked: list[tuple[int, int, bytes]] = []
    closed: list[int] = []
    monkeypatch.setattr(sources.os, "open", lambda path, flags: 41)
    monkeypatch.setattr(sources.os, "close", closed.append)
    monkeypatch.setattr("fcntl.ioctl", lambda fd, request, arg: asked.append((fd, request, arg)))
    assert ask_power_line("/dev/video0", hz)
    assert asked == [(41, 0xC008561C, struct.pack("=Ii", 0x00980918, value))]
    assert closed == [41]


def test_a_device_without_the_flicker_control_keeps_its_own(tmp_path: Path) -> None:
    """A file that is no V4L2 device (the ioctl fails: ENOTTY), a missing one, and a
    frequency that is no mains's: nothing set, nothing raised."""
    plain = tmp_path / "video9"
    plain.write_bytes(b"")
    assert not ask_power_line(str(plain), 50)
    assert not ask_power_line(str(tmp_path / "absent"), 50)
    assert not ask_power_line(str(plain), 55)


@pytest.mark.parametrize(
    ("spec", "mains_hz", "path"),
    [("usb:2", 60, "/dev/video2"), ("usb:/dev/video0", 50, "/dev/video0"), ("usb:2", None, None)],
)
def test_a_webcam_opened_with_the_mains_asks_its_device(
    capture: type[_Capture],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    spec: str,
    mains_hz: int | None,
    path: str | None,
) -> None:
    asked: list[tuple[str, int]] = []

    def ask(where: str, hz: int) -> bool:
        asked.append((where, hz))
        return True

    monkeypatch.setattr(sources, "ask_power_line", ask)
    monkeypatch.setattr(sources.Path, "exists", lambda self: True)  # /dev/video0 here or not
    with open_source(spec, mains_hz=mains_hz) as src:
        assert isinstance(src, DeviceSource) and src.power_line is (path is not None)
    assert asked == ([] if path is None or mains_hz is None else [(path, mains_hz)])


@pytest.mark.parametrize(
    ("mains_hz", "took", "said"),
    [
        (50, True, "flicker filter for 50 Hz mains"),
        (60, False, "its own flicker filter (it took no 60 Hz setting)"),
        (None, False, "its own flicker filter"),
    ],
)
def test_a_webcam_says_how_its_flicker_filter_was_set(
    capture: type[_Capture],
    monkeypatch: pytest.MonkeyPatch,
    mains_hz: int | None,
    took: bool,
    said: str,
) -> None:
    """What the journal is told of a webcam opened: whether it took the mains' filter."""
    monkeypatch.setattr(sources, "ask_power_line", lambda where, hz: took)
    with open_source("usb:1", mains_hz=mains_hz) as src:
        assert isinstance(src, DeviceSource) and src.settings() == said


# -- picamera -------------------------------------------------------------


def test_picamera2_is_imported_only_when_that_source_opens(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    FakePicamera2.instances.clear()
    imported: list[str] = []
    real_import = __import__

    def spying_import(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "picamera2":
            imported.append(name)
            return fake_picamera2_module()
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr("builtins.__import__", spying_import)
    _write_folder(tmp_path, ["a.png"])
    with open_source(str(tmp_path)) as src:
        src.read()
    assert imported == []  # other sources never touch picamera2

    with open_source("picamera:320x240") as cam:
        assert imported == ["picamera2"]
        assert isinstance(cam, PiCameraSource) and cam.name == "picamera"
        frame = cam.read()
    assert frame.shape == (240, 320, 3) and frame.dtype == np.uint8
    assert tuple(int(v) for v in frame[0, 0]) == (11, 22, 33)
    (fake,) = FakePicamera2.instances
    assert fake.config["main"] == {"size": (320, 240), "format": "RGB888"}
    assert fake.calls == ["configure", "start", "stop", "close"]


@pytest.mark.parametrize(
    ("asked", "offered", "sent"),
    [
        (0.0, {"Sharpness": (0.0, 16.0, 1.0)}, 0.0),
        (2.5, {"Sharpness": (0.0, 16.0, 1.0)}, 2.5),
        (16.0, {"Sharpness": (0.0, 8.0, 1.0)}, 8.0),  # kept within what it offers
        (0.0, {"Sharpness": (0.5, 8.0, 1.0)}, 0.5),
        (0.0, {}, None),  # a camera without the control keeps its own
        (0.0, {"Sharpness": None}, None),
        (0.0, {"Sharpness": ("a", "b", "c")}, None),
        (0.0, {"Sharpness": (float("nan"), 8.0, 1.0)}, None),
        (None, {"Sharpness": (0.0, 16.0, 1.0)}, None),  # not asked: the camera's own
    ],
)
def test_picamera_sharpness_is_asked_of_the_camera_within_its_range(
    monkeypatch: pytest.MonkeyPatch,
    asked: float | None,
    offered: dict[str, Any],
    sent: float | None,
) -> None:
    """``camera.sharpness`` goes to libcamera as its ``Sharpness`` control when the
    camera is configured; a camera that does not offer it, or offers it in a way not
    understood, opens all the same with its own."""

    offer_picamera2(monkeypatch, offered)
    with open_source("picamera:64x48", sharpness=asked) as cam:
        assert isinstance(cam, PiCameraSource) and cam.sharpness == sent
        assert cam.read().shape == (48, 64, 3)
    (fake,) = FakePicamera2.instances
    assert fake.config.get("controls") == (None if sent is None else {"Sharpness": sent})


FLICKER = {"AeFlickerMode": (0, 2, 0), "AeFlickerPeriod": (100, 1000000, 0)}


@pytest.mark.parametrize(
    ("mains_hz", "offered", "period"),
    [
        (50, FLICKER, 10000),  # lamps flicker 100 times a second
        (60, FLICKER, 8333),
        (None, FLICKER, None),  # not asked: the camera's own
        (0, FLICKER, None),
        (50, {"AeFlickerMode": (0, 2, 0)}, None),  # a camera without both keeps its own
        (50, {"AeFlickerPeriod": (100, 1000000, 0)}, None),
        (50, {}, None),
        (50, None, None),  # a camera_controls that cannot be asked
    ],
)
def test_picamera_keeps_exposures_to_whole_flickers_of_the_mains(
    monkeypatch: pytest.MonkeyPatch,
    mains_hz: int | None,
    offered: dict[str, Any] | None,
    period: int | None,
) -> None:
    """``camera.mains_hz`` asks libcamera for manual flicker avoidance (``AeFlickerMode``
    1, its ``FlickerManual``) at half the mains' period, in microseconds, when the camera
    offers both controls; otherwise the camera opens all the same with its own."""

    offer_picamera2(monkeypatch, offered)
    with open_source("picamera:64x48", mains_hz=mains_hz) as cam:
        assert isinstance(cam, PiCameraSource) and cam.flicker_period == period
        assert cam.read().shape == (48, 64, 3)
    (fake,) = FakePicamera2.instances
    wanted = None if period is None else {"AeFlickerMode": 1, "AeFlickerPeriod": period}
    assert fake.config.get("controls") == wanted


@pytest.mark.parametrize(
    ("offered", "mains_hz", "sharpness", "said"),
    [
        (
            {"Sharpness": (0.0, 16.0, 1.0), **FLICKER},
            50,
            0.0,
            "exposure in whole flickers of 10000 us (50 Hz mains); sharpness 0",
        ),
        (
            {},
            60,
            0.0,
            "its own exposure (it offers no flicker control for 60 Hz); its own sharpening",
        ),
        (FLICKER, None, None, "its own exposure; its own sharpening"),
    ],
)
def test_the_pi_camera_says_how_it_was_set_up(
    monkeypatch: pytest.MonkeyPatch,
    offered: dict[str, Any],
    mains_hz: int | None,
    sharpness: float | None,
    said: str,
) -> None:
    """What the journal is told of the Pi camera opened: the controls it took."""
    offer_picamera2(monkeypatch, offered)
    with open_source("picamera", sharpness=sharpness, mains_hz=mains_hz) as cam:
        assert isinstance(cam, PiCameraSource) and cam.settings() == said


def test_picamera_takes_sharpness_and_flicker_together(monkeypatch: pytest.MonkeyPatch) -> None:
    offer_picamera2(monkeypatch, {"Sharpness": (0.0, 16.0, 1.0), **FLICKER})
    with open_source("picamera", sharpness=0.0, mains_hz=50):
        pass
    (fake,) = FakePicamera2.instances
    assert fake.config["main"]["size"] == (1280, 960)
    assert fake.config["controls"] == {
        "Sharpness": 0.0,
        "AeFlickerMode": 1,
        "AeFlickerPeriod": 10000,
    }


def test_picamera_module_missing_is_a_camera_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # makes "import picamera2" fail
    with pytest.raises(CameraError, match="picamera2 module is missing"):
        open_source("picamera")


def test_picamera2_that_fails_to_load_is_a_camera_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """picamera2 is there but breaks as it loads (Raspberry Pi OS's build against the
    venv's newer numpy raises ValueError): the camera thread only catches CameraError."""
    real_import = __import__

    def broken_import(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "picamera2":
            raise ValueError(
                "numpy.dtype size changed, may indicate binary incompatibility.\n"
                "Expected 96 from C header, got 88 from PyObject"
            )
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    monkeypatch.setattr("builtins.__import__", broken_import)
    with pytest.raises(CameraError, match="picamera2 module cannot be loaded") as info:
        open_source("picamera")
    assert "\n" not in str(info.value) and "numpy.dtype size changed" in str(info.value)


@pytest.mark.parametrize(
    "fault",
    [
        IndexError("list index out of range"),  # no camera on the ribbon at all
        RuntimeError("Camera __init__ sequence did not complete."),  # found, not answering
    ],
)
def test_picamera_without_camera_is_a_camera_error(
    fault: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    """picamera2 says a camera missing or not answering with an IndexError or a
    RuntimeError: either is "no camera found", not a fault the table cannot name."""
    module = types.ModuleType("picamera2")

    def no_camera() -> None:
        raise fault

    module.Picamera2 = no_camera  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    with pytest.raises(CameraError, match="no camera found") as info:
        open_source("picamera")
    assert "\n" not in str(info.value)


def test_an_empty_picture_from_a_camera_is_a_camera_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A driver handing back a 0 x 0 array: one camera fault, not a ZeroDivisionError in
    the settler on every frame."""

    class EmptyPicamera2(FakePicamera2):
        def capture_array(self, stream: str = "main") -> np.ndarray:
            return np.zeros((0, 0, 3), np.uint8)

    module = types.ModuleType("picamera2")
    module.Picamera2 = EmptyPicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    with open_source("picamera:64x48") as cam, pytest.raises(CameraError) as info:
        cam.read()
    assert str(info.value) == "picamera: an empty picture (shape (0, 0, 3))"
    for shape in ((0, 5), (5, 0, 3), (3, 3, 0)):
        with pytest.raises(CameraError, match="an empty picture"):
            as_bgr(np.zeros(shape, np.uint8), "x")


def test_picamera_source_satisfies_the_protocol(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2_module())
    cam = PiCameraSource(size=(64, 48))
    assert isinstance(cam, FrameSource)
    cam.close()
    with pytest.raises(CameraError, match="closed"):
        cam.read()


# -- spec parsing ---------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("", "no camera given"),
        ("   ", "no camera given"),
        ("webcam:0", "unknown camera 'webcam:0'"),
        ("usb:", "give a device"),
        ("picamera:big", "size must look like 1280x960"),
        ("/no/such/thing", "no such file or folder"),
        # "²" passes str.isdigit, not int(): it stopped open_source with a ValueError
        ("usb:\u00b2", "no camera at \u00b2"),
        ("\u00b2", "no such file or folder"),
        # OpenCV takes the index as a C int: a bigger one raised its own cv2.error
        ("usb:2147483648", "no camera at index 2147483648"),
        ("usb:99999999999999999999", "no camera at index 9999"),
        # no path: it opened the current folder ("folder:" is "folder:.")
        ("folder:", "give a path, e.g. folder:"),
        ("video:  ", "give a path, e.g. video:"),
        # Path.expanduser raised RuntimeError for a ~name of no user
        ("folder:~nosuchuser-dicetable/x", "~nosuchuser-dicetable is the home of no user here"),
        ("video:~nosuchuser-dicetable", "~nosuchuser-dicetable is the home of no user here"),
    ],
)
def test_bad_specs_say_what_to_write(spec: str, words: str) -> None:
    with pytest.raises(CameraError, match=words) as info:
        open_source(spec)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("kind", ["folder:", "video:", "usb:/dev/", ""])
def test_a_path_too_long_to_look_at_is_a_camera_error(kind: str, tmp_path: Path) -> None:
    """The OS refuses even to look at a name longer than the file system allows
    (ENAMETOOLONG): one line for people, as for a path that is not there."""
    spec = f"{kind}{tmp_path / ('x' * 300)}" if kind != "usb:/dev/" else kind + "v" * 300
    with pytest.raises(CameraError, match=r"cannot open \(") as info:
        open_source(spec)
    assert "\n" not in str(info.value)
    with pytest.raises(CameraError, match=r"cannot open \("):
        load_image(tmp_path / ("x" * 300 + ".jpg"))


def test_usb_source_drops_the_frames_its_driver_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """A webcam's driver keeps frames while nobody reads; after a pause they show the
    tray as it was (the last throw). drop_stale throws them away, so the next read is
    a frame taken now."""
    from vision.sources import STALE_FRAMES

    class BufferingCapture:
        def __init__(self, device: Any) -> None:
            self.kept = [_frame(10 + i) for i in range(4)]  # from before the pause

        def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
            return True

        def set(self, prop: int, value: float) -> bool:
            return True

        def _next(self) -> Any:
            return self.kept.pop(0) if self.kept else _frame(99)  # 99: taken now

        def grab(self) -> bool:
            self._next()
            return True

        def read(self) -> tuple[bool, Any]:
            return True, self._next()

        def release(self) -> None:
            pass

    monkeypatch.setattr(cv2, "VideoCapture", BufferingCapture)
    with open_source("usb:0") as src:
        assert int(src.read()[0, 0, 0]) == 10  # without dropping: an old frame
    assert STALE_FRAMES >= 4
    with open_source("usb:0") as src:
        assert isinstance(src, DeviceSource)
        src.drop_stale()
        assert int(src.read()[0, 0, 0]) == 99
    with pytest.raises(CameraError, match="source is closed"):
        src.drop_stale()


def test_usb_driver_error_is_a_camera_error(monkeypatch: pytest.MonkeyPatch) -> None:
    class BrokenCapture:
        def __init__(self, device: Any) -> None:
            pass

        def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
            return True

        def read(self) -> tuple[bool, Any]:
            raise cv2.error("VIDIOC_DQBUF: No such device")

        def release(self) -> None:
            pass

    monkeypatch.setattr(cv2, "VideoCapture", BrokenCapture)
    with open_source("usb:0") as src, pytest.raises(CameraError, match="capture failed") as info:
        src.read()
    assert str(info.value) == "usb:0: capture failed [VIDIOC_DQBUF: No such device]"


def test_a_photo_opencv_cannot_decode_says_so_without_its_warnings(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """OpenCV's decoders write warnings straight to stderr ("[ WARN:0@..."), which would
    break dicetable read's one line per image: they are kept quiet, the error said once."""
    path = tmp_path / "f32.tiff"
    assert cv2.imwrite(str(path), np.zeros((16, 16, 3), np.float32))
    with pytest.raises(CameraError, match="not an image OpenCV can read"):
        load_image(path)
    assert "WARN" not in capfd.readouterr().err


def _png_claiming(width: int, height: int) -> bytes:
    """A well-formed PNG of ``width`` x ``height`` black pixels, a few hundred bytes:
    zlib packs the rows of zeros."""
    raw = zlib.compressobj(9)
    row = b"\x00" * (1 + width)  # filter byte, then grey pixels
    body = b"".join(raw.compress(row) for _ in range(min(height, 64))) + raw.flush()

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data).to_bytes(4, "big")
        return len(data).to_bytes(4, "big") + kind + data + crc

    ihdr = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 0, 0, 0, 0])
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def test_a_file_bigger_than_any_photo_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A regular file was read whole before anything was asked of it: ``dicetable read``
    given a video of several GB by mistake took that much memory (a Pi has 1-8 GB). A file
    bigger than MAX_FILE_BYTES is refused from its size alone, without reading it."""
    import vision.sources as sources

    # a photo within the pixel limit, 3 bytes a pixel uncompressed, still fits
    assert sources.MAX_FILE_BYTES >= 3 * sources.MAX_IMAGE_PIXELS
    # a 300 MB file (sparse: no disk taken) is refused as it is: at the 1 GB the limit
    # was, it was read whole, and a 1 GB Pi went under
    sparse = tmp_path / "video.jpg"
    with sparse.open("wb") as f:
        f.truncate(300 << 20)
    with pytest.raises(CameraError, match=r"video\.jpg: 300 MB, more than any photo"):
        load_image(sparse)
    monkeypatch.setattr(sources, "MAX_FILE_BYTES", 1000)
    big = tmp_path / "throw.jpg"
    big.write_bytes(cv2.imencode(".png", _frame(200))[1].tobytes().ljust(1001, b"\0"))

    def unread(self: Path) -> bytes:
        raise AssertionError(f"{self} was read")

    monkeypatch.setattr(Path, "read_bytes", unread)
    with pytest.raises(CameraError, match=r"throw\.jpg: 1001 bytes, more than any photo"):
        load_image(big)


def test_a_photo_claiming_a_huge_size_is_refused_before_decoding(tmp_path: Path) -> None:
    """OpenCV decodes up to a gigapixel: a small PNG or JPEG whose header claims 40000 x
    40000 was decoded into gigabytes before the reader could shrink it. The header is read
    first, and anything over MAX_IMAGE_PIXELS is one line of error."""
    png = tmp_path / "huge.png"
    png.write_bytes(_png_claiming(40000, 40000))
    assert png.stat().st_size < 10_000
    with pytest.raises(CameraError, match=r"huge\.png: says it is 40000 x 40000 pixels"):
        load_image(png)
    ok, jpg = cv2.imencode(".jpg", _frame(40))
    data = bytearray(jpg.tobytes())
    sof = next(i for i in range(2, len(data) - 1) if data[i] == 0xFF and data[i + 1] == 0xC0)
    data[sof + 5 : sof + 9] = (60000).to_bytes(2, "big") + (50000).to_bytes(2, "big")
    big_jpg = tmp_path / "huge.jpg"
    big_jpg.write_bytes(bytes(data))
    with pytest.raises(CameraError, match=r"50000 x 60000 pixels, more than 64 megapixels"):
        load_image(big_jpg)
    # 100 kB of colour profiles (APP2 segments) before the frame header, as phones write
    app2 = b"".join(b"\xff\xe2" + (65000).to_bytes(2, "big") + bytes(64998) for _ in range(2))
    profiled = tmp_path / "profiled.jpg"
    profiled.write_bytes(bytes(data[:2]) + app2 + bytes(data[2:]))
    with pytest.raises(CameraError, match=r"50000 x 60000 pixels"):
        load_image(profiled)
    ok, tif = cv2.imencode(".tiff", _frame(40))
    tiff = bytearray(tif.tobytes())
    order = "little" if tiff[:2] == b"II" else "big"
    at = int.from_bytes(tiff[4:8], order)
    for i in range(int.from_bytes(tiff[at : at + 2], order)):
        entry = at + 2 + 12 * i
        if int.from_bytes(tiff[entry : entry + 2], order) in (256, 257):  # width, length
            tiff[entry + 2 : entry + 12] = (
                (4).to_bytes(2, order) + (1).to_bytes(4, order) + (30000).to_bytes(4, order)
            )  # a LONG of 30000
    (tmp_path / "huge.tiff").write_bytes(bytes(tiff))
    with pytest.raises(CameraError, match=r"30000 x 30000 pixels"):
        load_image(tmp_path / "huge.tiff")


def test_a_gif_claiming_a_huge_size_is_refused_before_decoding(tmp_path: Path) -> None:
    """29 bytes of GIF claiming 30000 x 30000 were decoded into 8 GB, in 12 s."""
    w = h = (30000).to_bytes(2, "little")
    gif = tmp_path / "huge.jpg"  # named as a photo: folder sources and --frames take it
    gif.write_bytes(b"GIF89a" + w + h + b"\0\0\0,\0\0\0\0" + w + h + b"\x00\x02\x02D\x01\x00;")
    with pytest.raises(CameraError, match=r"huge\.jpg: says it is 30000 x 30000 pixels"):
        load_image(gif)


def test_opencv_itself_decodes_no_more_pixels_than_the_reader_takes(
    run_python: RunPython,
) -> None:
    """Formats whose header ``claimed_size`` does not read (PGM, HDR, JPEG 2000 ...) are
    held by OpenCV's own limit, which importing ``vision`` lowers from a gigapixel to
    MAX_IMAGE_PIXELS before cv2 is imported: a PGM header claiming 20000 x 20000 (400
    megapixels) is refused by the decoder instead of being given 400 MB."""
    code = (
        "import vision, cv2, numpy as np\n"
        "pgm = b'P5\\n20000 20000\\n255\\n' + bytes(100)\n"
        "try:\n"
        "    cv2.imdecode(np.frombuffer(pgm, np.uint8), cv2.IMREAD_COLOR)\n"
        "    print('decoded')\n"
        "except cv2.error as exc:\n"
        "    print('refused', 'CV_IO_MAX_IMAGE_PIXELS' in str(exc))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENCV_IO_MAX_IMAGE_PIXELS"}
    out = run_python(code, env=env)
    assert out.stdout.strip() == "refused True", out.stderr
    # a smaller limit set by whoever runs the table stays
    out = run_python(
        "import vision, os; print(os.environ['OPENCV_IO_MAX_IMAGE_PIXELS'])",
        env={**env, "OPENCV_IO_MAX_IMAGE_PIXELS": "1000000"},
    )
    assert out.stdout.strip() == "1000000"


@pytest.mark.parametrize("ext", [".png", ".jpg", ".bmp", ".webp", ".tiff"])
def test_the_claimed_size_of_an_ordinary_photo_is_its_size(ext: str, tmp_path: Path) -> None:
    frame = _frame(40)[:37, :53]
    ok, data = cv2.imencode(ext, frame)
    assert ok and claimed_size(data.tobytes()) == (53, 37)
    path = tmp_path / f"small{ext}"
    path.write_bytes(data.tobytes())
    assert load_image(path).shape[:2] == (37, 53)
    small = tmp_path / "ok.png"
    small.write_bytes(_png_claiming(300, 20))
    assert load_image(small).shape == (20, 300, 3)


def test_a_link_to_nothing_is_said_to_be_one(tmp_path: Path) -> None:
    """A symbolic link whose target is gone, or that links round in a loop, is not
    "no such file": the name is there, and the person looking sees it."""
    (tmp_path / "gone.jpg").symlink_to(tmp_path / "deleted.jpg")
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    said = "a link that leads to nothing (its target is gone, or links go round)"
    for attempt in (
        lambda: load_image(tmp_path / "gone.jpg"),
        lambda: load_image(tmp_path / "a"),
        lambda: open_source(f"folder:{tmp_path / 'a'}"),
        lambda: open_source(f"video:{tmp_path / 'gone.jpg'}"),
        lambda: open_source(str(tmp_path / "a")),
    ):
        with pytest.raises(CameraError, match="a link that leads to nothing") as info:
            attempt()
        assert said in str(info.value)
    with pytest.raises(CameraError, match="no such file"):
        load_image(tmp_path / "never.jpg")


# -- what a person at the table, or running dicetable read, would notice --------------


def test_frames_taken_from_a_camera_that_stops_say_so(capture: type[_Capture]) -> None:
    """``iter_frames`` ends quietly at the end of a video or a folder; a webcam pulled
    out while its frames are taken says so ("stopped sending"): ending as quietly, it
    would look as if the throw were over."""
    capture.script = [_frame(33)]
    taken: list[np.ndarray] = []
    with open_source("usb:0") as src, pytest.raises(CameraError, match="stopped sending"):
        taken.extend(iter_frames(src))
    assert len(taken) == 1


def test_a_16_bit_picture_keeps_its_brightness() -> None:
    """A camera giving 16 bits a channel: its low byte alone is noise, the picture a
    mess of speckles the reader finds no dice in. The high byte is the picture."""
    grey = np.arange(0, 65536, 256, dtype=np.uint16).reshape(16, 16) + 0x7F
    out = as_bgr(grey, "picamera")
    assert out.dtype == np.uint8 and out.shape == (16, 16, 3)
    assert np.array_equal(out[:, :, 0], np.arange(256, dtype=np.uint8).reshape(16, 16))
    colour = np.full((4, 4, 3), 0x12AB, np.uint16)
    assert int(as_bgr(colour, "picamera")[0, 0, 1]) == 0x12


def test_a_socket_is_not_read_as_a_photo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A socket named like a photo is no file: said so, as a device is, rather than
    "cannot open (No such device or address)"."""
    import socket

    monkeypatch.chdir(tmp_path)  # a short name: a socket's path has a small limit
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind("throw.jpg")
        with pytest.raises(CameraError, match=r"throw\.jpg: not a file \(a device or a socket\)"):
            load_image(tmp_path / "throw.jpg")
    finally:
        sock.close()


@pytest.mark.skipif(not Path("/dev/fd").is_dir(), reason="no /dev/fd on this system")
@pytest.mark.parametrize("over", [1, 2])
def test_a_photo_piped_past_the_limit_is_refused_not_read_short(
    over: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pipe gives more than MAX_PIPED_BYTES: refused, however little more. Read up to
    the limit and taken, it would be the photo cut short, its end missing."""
    import vision.sources as sources

    ok, png = cv2.imencode(".png", _frame(40))
    data = png.tobytes()
    assert ok and len(data) < 4096  # fits the pipe's buffer: written before it is read
    monkeypatch.setattr(sources, "MAX_PIPED_BYTES", len(data) - over)
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)
        os.close(write_end)
        with pytest.raises(CameraError, match="from a pipe"):
            load_image(f"/dev/fd/{read_end}")
    finally:
        os.close(read_end)


def test_a_photo_just_past_the_pixel_limit_is_refused_and_one_at_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MAX_IMAGE_PIXELS is where refusing starts: a header claiming a little more is
    refused by its header, not decoded into that much memory."""
    import vision.sources as sources

    monkeypatch.setattr(sources, "MAX_IMAGE_PIXELS", 200 * 50)
    at_limit, past = tmp_path / "at.png", tmp_path / "past.png"
    at_limit.write_bytes(_png_claiming(200, 50))
    past.write_bytes(_png_claiming(201, 50))
    assert load_image(at_limit).shape == (50, 200, 3)
    with pytest.raises(CameraError, match=r"past\.png: says it is 201 x 50 pixels"):
        load_image(past)


def test_a_jpeg_with_its_huffman_tables_before_its_frame_header_has_its_own_size(
    tmp_path: Path,
) -> None:
    """Some cameras write the Huffman tables (DHT) before the frame header (SOF): the size
    is still read from the frame header; taken from the tables' bytes, it would be a size
    the photo does not have."""
    ok, enc = cv2.imencode(".jpg", _frame(40)[:37, :53])
    data = enc.tobytes()
    dht = data.index(b"\xff\xc4")
    assert ok and data.index(b"\xff\xc0") < dht  # OpenCV writes them after the frame
    end = dht + 2 + int.from_bytes(data[dht + 2 : dht + 4], "big")
    moved = data[:2] + data[dht:end] + data[2:dht] + data[end:]
    assert claimed_size(moved) == (53, 37)
    path = tmp_path / "tables_first.jpg"
    path.write_bytes(moved)
    assert load_image(path).shape == (37, 53, 3)


def _big_endian_tiff(width: int, height: int, level: int) -> bytes:
    """An uncompressed grey TIFF in Motorola byte order ("MM"), its sizes SHORTs, as
    scanners and older Macs write: a SHORT's two bytes come first in its 4-byte field."""
    entries = [  # tag, type (3 SHORT, 4 LONG), value
        (256, 3, width),
        (257, 3, height),
        (258, 3, 8),
        (259, 3, 1),
        (262, 3, 1),
        (273, 4, 8 + 2 + 12 * 9 + 4),
        (277, 3, 1),
        (278, 3, height),
        (279, 4, width * height),
    ]
    ifd = len(entries).to_bytes(2, "big")
    for tag, kind, value in entries:
        field = value.to_bytes(2, "big") + b"\0\0" if kind == 3 else value.to_bytes(4, "big")
        ifd += tag.to_bytes(2, "big") + kind.to_bytes(2, "big") + (1).to_bytes(4, "big") + field
    return b"MM\x00*" + (8).to_bytes(4, "big") + ifd + bytes(4) + bytes([level]) * (width * height)


def test_a_big_endian_tiff_is_read_at_its_size(tmp_path: Path) -> None:
    """A TIFF in Motorola byte order with its sizes as SHORTs is read at its size: read
    with the two padding bytes, 53 x 37 would become 3473408 x 2424832, and the photo
    would be refused as more than 64 megapixels."""
    path = tmp_path / "scan.tif"
    path.write_bytes(_big_endian_tiff(53, 37, 90))
    assert claimed_size(path.read_bytes()) == (53, 37)
    image = load_image(path)
    assert image.shape == (37, 53, 3) and int(image[5, 5, 0]) == 90


def test_a_folder_of_photos_closed_gives_no_more_photos(tmp_path: Path) -> None:
    """As a camera or a video closed: a closed source gives no frame."""
    _write_folder(tmp_path, ["a.png", "b.png"])
    for src in (FolderSource(tmp_path), open_source(str(tmp_path / "a.png"))):
        src.close()
        with pytest.raises(CameraError, match="source is closed"):
            src.read()


def test_a_file_given_as_a_folder_is_said_to_be_no_folder(tmp_path: Path) -> None:
    """``folder:`` naming a photo is said to be no folder: "cannot list (Not a
    directory)" would read as if the folder were there and could not be read."""
    _write_folder(tmp_path, ["a.png"])
    with pytest.raises(CameraError, match=r"a\.png: not a folder$"):
        open_source(f"folder:{tmp_path / 'a.png'}")


def test_a_folder_that_cannot_be_listed_is_a_camera_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder the table may not read (left by a copy as root) is a camera error, said
    in one line: a bare PermissionError would be said by the camera's thread as a driver
    fault."""
    _write_folder(tmp_path, ["a.png"])

    def denied(self: Path) -> Any:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "iterdir", denied)
    with pytest.raises(CameraError, match=r"cannot list \(Permission denied\)") as info:
        open_source(f"folder:{tmp_path}")
    assert str(info.value).startswith(f"folder:{tmp_path}: ")


def test_a_webcam_closed_is_let_go(capture: type[_Capture]) -> None:
    """A webcam closed but not released stays busy: opened again at the next ROLL, or by
    the next run, it is "in use"."""
    with open_source("usb:0") as src:
        src.read()
    (cam,) = capture.made
    assert cam.released


def test_a_webcam_or_video_that_cannot_be_opened_is_let_go(
    capture: type[_Capture], tmp_path: Path
) -> None:
    """A device OpenCV half opened, or a video it opened but could read no frame of, is
    let go: otherwise it would be held for as long as the error was kept."""
    capture.opens = False
    with pytest.raises(CameraError, match="cannot open camera"):
        open_source("usb:0")
    capture.opens, capture.script = True, []
    clip = tmp_path / "clip.avi"
    clip.write_bytes(b"\0" * 16)
    with pytest.raises(CameraError, match="video has no readable frames"):
        open_source(f"video:{clip}")
    assert len(capture.made) == 2 and all(c.released for c in capture.made)


def test_a_looping_video_holds_one_file_open(capture: type[_Capture], tmp_path: Path) -> None:
    """A video of one frame is opened again at each loop (OpenCV cannot seek back in
    it): the file opened before is let go each time, not kept open loop after loop."""
    capture.script, capture.seeks = [_frame(60)], False
    clip = tmp_path / "still.avi"
    clip.write_bytes(b"\0" * 16)
    with VideoFileSource(clip, loop=True) as src:
        levels = [int(src.read()[0, 0, 0]) for _ in range(4)]
        assert levels == [60] * 4
        assert len(capture.made) == 4
        assert [c.released for c in capture.made] == [True, True, True, False]
    assert capture.made[-1].released


def test_a_webcam_is_asked_for_the_size_given(capture: type[_Capture]) -> None:
    """``camera.width`` x ``camera.height`` = 1280 x 960 asks the webcam for 1280 x 960:
    asked for 1280 x 1280, it would give frames of another shape than the config's, dice
    of another size."""
    with DeviceSource("0", size=(1280, 960)) as src:
        assert src.read().shape == (960, 1280, 3)
    (cam,) = capture.made
    assert cam.asked == {cv2.CAP_PROP_FRAME_WIDTH: 1280, cv2.CAP_PROP_FRAME_HEIGHT: 960}


def test_a_webcam_that_drops_one_frame_is_not_taken_for_unplugged(
    capture: type[_Capture],
) -> None:
    """A webcam may drop a frame while it adjusts its exposure: one frame missed is not
    "camera stopped sending frames (unplugged?)", which would cost a ROLL; two missed in
    a row are."""
    capture.script = [_frame(10), None, _frame(20), None, None]
    with open_source("usb:0") as src:
        assert int(src.read()[0, 0, 0]) == 10
        assert int(src.read()[0, 0, 0]) == 20
        with pytest.raises(CameraError, match="stopped sending frames"):
            src.read()


class _StartFails(FakePicamera2):
    """A Pi camera that is found but will not start (a libcamera fault); letting go of it
    fails too."""

    def start(self) -> None:
        raise RuntimeError(
            "Failed to start camera: pipeline handler in use by another process\n"
            + "libcamera detail " * 20
        )

    def close(self) -> None:
        super().close()
        raise RuntimeError("Camera __del__ failed")


def test_a_pi_camera_that_will_not_start_is_let_go_and_said_in_one_short_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Pi camera that fails to start is let go, and why is said in one short line: left
    acquired, it would be "in use" at every later try (the display's "ROLL: try again"
    never working), and a libcamera message of several lines and hundreds of characters
    would be the line shown."""
    module = types.ModuleType("picamera2")
    module.Picamera2 = _StartFails  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    monkeypatch.setattr(FakePicamera2, "instances", [])
    with pytest.raises(CameraError, match=r"^picamera: cannot start camera \[") as info:
        open_source("picamera")
    (cam,) = FakePicamera2.instances
    assert cam.calls == ["configure", "close"]
    said = str(info.value)
    assert "\n" not in said and len(said) < 120 and said.endswith("...]")
    assert "pipeline handler in use" in said


@pytest.mark.parametrize("size", ["0x960", "1280x0", "0x0"])
def test_a_pi_camera_size_of_nothing_is_refused(size: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """picamera:0x960 is refused, naming the size: handed to libcamera, its error would
    say nothing of the size."""
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2_module())
    monkeypatch.setattr(FakePicamera2, "instances", [])
    with pytest.raises(CameraError, match="size must look like 1280x960"):
        open_source(f"picamera:{size}")
    assert FakePicamera2.instances == []


@pytest.mark.parametrize("spec", ["picamera", "PiCamera", " PICAMERA "])
def test_the_pi_camera_however_written_opens_at_the_tables_size(
    spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "PiCamera", in capitals or not, is the Pi camera, not a file name ("no such file
    or folder"); opened without a size, it gives frames of the config's default camera
    size."""
    from table.service.config import CameraConfig

    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2_module())
    default = CameraConfig()
    with open_source(spec) as cam:
        assert isinstance(cam, PiCameraSource)
        assert cam.read().shape == (default.height, default.width, 3)


def test_a_bare_dev_video_path_is_a_webcam() -> None:
    """``/dev/video2`` (as ``v4l2-ctl --list-devices`` prints it) is the webcam there:
    a missing one is said as a webcam not plugged in, not as a file not found."""
    with pytest.raises(CameraError, match=r"usb:/dev/video97: no camera at /dev/video97"):
        open_source("/dev/video97")


def test_a_photo_named_in_capitals_is_a_photo(tmp_path: Path) -> None:
    """Cameras name their photos DSC_0001.JPG: given alone, such a name is read as a
    photo, not opened as a video."""
    path = tmp_path / "DSC_0001.JPG"
    assert cv2.imwrite(str(path.with_suffix(".jpg")), _frame(90))
    path.with_suffix(".jpg").rename(path)
    with open_source(str(path)) as src:
        assert isinstance(src, ImageFilesSource) and src.name == f"image:{path}"
        assert abs(int(src.read()[0, 0, 0]) - 90) <= 3
        with pytest.raises(SourceExhausted):
            src.read()


@pytest.mark.parametrize("spec", ["c:photos", "C:\\photos\\throw1"])
def test_one_letter_before_a_colon_is_a_path(spec: str) -> None:
    """A drive letter (``C:\\photos``, copied from another machine) or a file named
    ``c:photos`` is a path not there, not an unknown kind of camera."""
    with pytest.raises(CameraError, match="no such file or folder") as info:
        open_source(spec)
    assert "unknown camera" not in str(info.value)


def test_a_folder_spec_replays_round_and_round_when_asked(tmp_path: Path) -> None:
    """``folder:PATH`` with ``loop``: the table's camera replays the photos again after
    the last, rather than saying "no more images" at the end of the folder."""
    _write_folder(tmp_path, ["a.png", "b.png"])
    with open_source(f"folder:{tmp_path}", loop=True) as src:
        levels = [int(src.read()[0, 0, 0]) for _ in range(5)]
    assert levels == [10, 20, 10, 20, 10]
