"""The table's one event loop.

Buttons, the camera and the timer run in threads of their own and only *put*
:data:`TableEvent` values on one queue. One consumer takes them one at a time
and hands them to the pure :class:`Referee`. For every :class:`Output`, in
this order:

1. a new game creates its log (``DATA/games/<timestamp>.jsonl``) and marks it
   as the game in progress;
2. the events are appended to the log, each on disk (fsync) before the next step;
3. a finished game is marked finished (nothing to resume);
4. the screen is shown;
5. changed menu settings are saved (``DATA/settings.json``, atomic write);
6. the status goes to the notifier (systemd), the camera is told whether dice are wanted.

So whatever the display shows is already in the log: a power cut at any moment
resumes at or after what people saw. Frames are read (``vision.reader``) and
settled (``vision.settle``) only while the referee waits for dice; the first
settled reading of a still tray goes to ``Referee.on_reading``, and so does the
reading of a tray that stays still with no dice read (empty, too dark), once.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, TextIO

from PIL import Image

from table.gamelog import LogWriter, atomic_write
from table.notify import NullNotifier
from table.service import screens
from table.service.ports import (
    ButtonPress,
    Buttons,
    Camera,
    CameraFailed,
    CameraReady,
    Display,
    Frame,
    Notifier,
    Quit,
    TableEvent,
    Tick,
)
from table.service.referee import DiceWanted, Output, Referee, Settings
from table.service.resume import DataDir, Tray, Unfinished, Unusable, scaled_tray
from vision.types import IN_BANDS, FrameReading


class FrameReader(Protocol):
    def read(self, frame_bgr: Any, expect: int | None = None) -> FrameReading: ...


class SettleLike(Protocol):
    def resume(self) -> None: ...

    def update(self, frame: Any, reading: FrameReading) -> Any: ...


def vision_parts(settle_frames: int) -> tuple[FrameReader, SettleLike]:
    """The pip reader and the settler; ImportError (with what is missing) if vision is absent."""
    from vision.reader import PipReader
    from vision.settle import SettleConfig, Settler

    return PipReader(), Settler(SettleConfig(consistent_frames=settle_frames))


@dataclass(frozen=True)
class Shown:
    """The last screen on the display and when (monotonic seconds)."""

    screen: screens.Screen
    t: float


class TableLoop:
    """Owns the queue, the referee, the game log and the adapters while it runs."""

    def __init__(
        self,
        *,
        data: DataDir,
        settings: Settings,
        buttons: Buttons | None,
        display: Display,
        camera: Camera | None,
        reader: FrameReader | None = None,
        settler: SettleLike | None = None,
        notifier: Notifier | None = None,
        seed: int = 0,
        cpu_dice_by_hand: bool = False,
        tick_s: float = 5.0,
        camera_stall_s: float = 20.0,
        state_path: Path | None = None,
        errors: TextIO | None = sys.stderr,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.data = data
        self.settings = settings
        self.buttons = buttons
        self.display = display
        self.camera = camera
        self.reader = reader
        self.settler = settler
        self.notifier: Notifier = notifier if notifier is not None else NullNotifier()
        self.seed = seed
        self.cpu_dice_by_hand = cpu_dice_by_hand
        self.tick_s = tick_s
        self.camera_stall_s = camera_stall_s
        self._last_frame = clock()
        self.state_path = state_path
        self.errors = errors
        self.clock = clock
        self.queue: queue.Queue[TableEvent] = queue.Queue()
        self.referee: Referee | None = None
        self.writer: LogWriter | None = None
        self.want_dice = False
        self.shown: Shown | None = None
        self.outputs = 0
        self.frames_read = 0
        self.faults = 0
        self._fault_said = ""  # the last fault said in the journal, and how often it came
        self._fault_count = 0
        self._bands_said = False  # the journal told of a lamp's bands since the camera opened
        self.display_fault: str | None = None  # why the display last failed, until it works
        self._frame_size: tuple[int, int] | None = None  # (width, height) of the last read
        self._entry_saved: tuple[int, ...] = ()  # the mythical bids entry.json holds
        # The game in progress is over, and games/current still names it until a press
        # has taken its end off the display: cut before, the next start shows it again.
        self._end_unseen = False
        # The tray's dice remembered at the start (the last throw's, and where readings
        # not counted saw some) and the frame size they were read in, until the first
        # frame (``_tray_in``).
        self._tray_frame: Tray | None = None
        self.on_show: Callable[[screens.Screen, float], None] | None = None
        self._lock = threading.Lock()
        self._pending = 0
        self._idle = threading.Event()
        self._stopping = threading.Event()
        self._timer: threading.Thread | None = None
        self.resumed: Unfinished | None = None
        self.kept: Unusable | None = None  # the game in progress that could not be resumed
        self.quit_reason = ""

    # -- producers (any thread) ---------------------------------------------

    def put(self, event: TableEvent) -> None:
        with self._lock:
            self._pending += 1
            self._idle.clear()
        self.queue.put(event)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until every event put so far is dealt with and no dice are awaited."""
        return self._idle.wait(timeout)

    def stop(self, reason: str = "") -> None:
        self.put(Quit(reason))

    # -- boot ----------------------------------------------------------------

    def boot(self) -> Output:
        """Resume the unfinished game, if any, else start at the menu; show the first screen."""
        self.data.prepare()
        unfinished = self.data.unfinished()
        out: Output | None = None
        why: str | None = None  # why an unfinished game could not be resumed
        if isinstance(unfinished, Unusable):
            why = unfinished.brief()
            self._error(f"cannot resume the unfinished game: {unfinished.text()}")
            if unfinished.kept:
                self.kept = unfinished
        elif unfinished is not None:
            try:
                self.writer = LogWriter.reopen(unfinished.path)
                self.referee, out = Referee.boot(
                    self.settings,
                    resume=unfinished.game,
                    seed=self.seed,
                    cpu_dice_by_hand=self.cpu_dice_by_hand,
                )
                if self.referee.game is not None and out.log:
                    # CPU decisions owed at the cut: on disk before the game goes on
                    # from them, or it goes on from a game the log does not hold.
                    self.writer.append_all(out.log)
                    out = replace(out, log=())
            except OSError as exc:
                # A full disk (while the torn line is kept in .torn) or an I/O error may
                # pass: the log stays the game in progress, as one that cannot be read does.
                kept = Unusable(unfinished.path, f"{unfinished.path.name}: {exc}", kept=True)
                why = f"log kept for the next start: {exc.strerror or exc}"
                self._error(f"cannot resume the unfinished game: {kept.text()}")
                self._close_writer()
                self.kept = kept
                out = None
            except Exception as exc:  # a log we cannot go on with must not stop the table
                self._close_writer()
                why = self._cannot_play(unfinished.path, str(exc))
                out = None
            else:
                if self.referee.game is None:  # the rules could not play the log on
                    text = out.screen.text if isinstance(out.screen, screens.Message) else ""
                    self._close_writer()
                    why = self._cannot_play(unfinished.path, text)
                    out = None
                else:
                    self.resumed = unfinished
        if out is None:
            self.referee, out = Referee.boot(
                self.settings,
                seed=self.seed,
                cpu_dice_by_hand=self.cpu_dice_by_hand,
                cannot_resume=why,
            )
        # The dice of the last throw read may still lie in the tray as they fell.
        tray = self.data.load_tray()
        if tray.problem:
            self._error(f"{tray.problem}; the first throw is not checked for dice left unrolled")
        if tray.refused_problem:
            self._error(
                f"{tray.refused_problem}; the first throw is not checked for dice left "
                "where a reading not counted saw them"
            )
        assert self.referee is not None
        self.referee = self.referee.with_tray(tray.dice).with_refused(tray.refused)
        self._tray_frame = tray if (tray.dice or tray.refused) and tray.frame else None
        game = self.referee.game
        if game is not None and self.writer is not None:  # mythical bids entered before
            entry = self.data.load_entry(self.writer.path.name, game.count)
            self.referee = self.referee.with_entry(entry)
            self._entry_saved = self.referee.bids
        self.apply(out)
        self.write_state()
        return out

    # -- the consumer ----------------------------------------------------------

    def _take(self, new: Referee, out: Output) -> None:
        self.apply(out, new)

    def apply(self, out: Output, referee: Referee | None = None) -> bool:
        """Carry out one Output: log, finish, show, save settings, notify.

        ``referee`` (the state that produced ``out``) becomes the loop's only
        once ``out.log`` is on disk. When the log cannot be written nothing of
        the Output is shown, the table says why and keeps the referee as it
        was: the screen never acknowledges what the log does not hold.
        """
        self.outputs += 1
        if referee is not None and self.referee is not None:
            self._save_tray(referee)
        if out.new_game is not None:
            aside = self._set_aside_kept()
            try:
                writer = self.data.new_log(out.new_game)
            except OSError as exc:
                if aside is not None and self.kept is not None:  # still the game in progress
                    try:
                        aside.rename(self.kept.path)
                    except OSError:
                        self.kept = None
                return self._not_saved("cannot create the game log", exc)
            self.kept = None
            self._close_writer()
            self.writer = writer
            self._end_unseen = False  # games/current names the new game now
        if out.log:
            if self.writer is None:
                return self._not_saved(
                    "no game log open", f"{len(out.log)} event(s) not saved", short="no game log"
                )
            try:
                self.writer.append_all(out.log)
            except OSError as exc:
                return self._not_saved("cannot write the game log", exc)
        if referee is not None:
            self.referee = referee
            self._save_entry(referee)
        if out.game_over:
            # Its log is whole; games/current goes once the end has been seen (below):
            # a power cut while the last trick's or round's screens, or the winner, are
            # shown brought the table up at the menu, and nobody saw who won.
            self._close_writer()
            self._end_unseen = True
        elif self.referee is not None and self.referee.game is None:
            self._end_seen()  # a press took the end away: the menu is shown
        self.show(out.screen)
        if out.settings is not None:
            self.settings = out.settings
            try:
                self.data.save_settings(out.settings.to_json())
            except OSError as exc:
                self._error(f"cannot save the settings: {exc}")
        if out.status:
            self.notifier.status(out.status)
        if out.want_dice and not self.want_dice:
            self._last_frame = self.clock()  # the camera's time to deliver starts now
            if self.settler is not None:
                # the tray's last still picture is kept: dice not moved since (a reading
                # refused, then STOP and ROLL) are not counted however they read now
                self.settler.resume()
        self._want(out.want_dice)
        if out.rolled and out.want_dice:
            rolled = getattr(self.camera, "rolled", None)
            if callable(rolled):
                rolled()
        return True

    def _end_seen(self) -> None:
        """The game that ended has been seen to its end (a press left it, or the table was
        stopped on purpose): it is no longer the game in progress."""
        if not self._end_unseen:
            return
        self._end_unseen = False
        try:
            self.data.finish()
        except OSError as exc:  # the game is over all the same: its log is whole
            self._error(
                f"the game is over, but games/current cannot be removed: {exc}; "
                "the next start shows its end again"
            )

    def _save_entry(self, referee: Referee) -> None:
        """Remember the mythical bids entered so far, before the next bidder's screen is
        shown: a power cut made the players enter them all again. Not saved, the table
        goes on (they would be entered again)."""
        if referee.bids == self._entry_saved or referee.game is None or self.writer is None:
            return
        try:
            self.data.save_entry(self.writer.path.name, referee.game.count, referee.bids)
            self._entry_saved = referee.bids
        except OSError as exc:
            self._error(f"cannot save the bids entered: {exc}")

    def _save_tray(self, referee: Referee) -> None:
        """Remember where the dice of a throw just read lie, before its event is logged:
        a cut between the two then makes the table ask for them to be rolled (the throw
        was not counted), never count them again (it was). Not saved, the table goes on:
        only the first throw after a restart would not be checked. The replay camera is
        told too (``read``): it shows the next throw away from these dice."""
        assert self.referee is not None
        thrown = referee.last_roll != self.referee.last_roll
        if not thrown and referee.refused_roll == self.referee.refused_roll:
            return
        read = getattr(self.camera, "read", None)
        if thrown and callable(read):  # the replay camera shows the next throw away from these
            read()
        try:
            self.data.save_tray(referee.last_roll, self._frame_size, referee.refused_roll)
        except OSError as exc:
            self._error(f"cannot save where the dice lie: {exc}")

    def _cannot_play(self, path: Path, reason: str) -> str:
        """The unfinished game's log loaded, but cannot be played on (an option the rules
        do not allow): like a log that holds no game, it is set aside as ``.bad`` and
        the game in progress is over (if it cannot be renamed, it stays the game in
        progress for the next start). Said in the journal; what to show, returned."""
        bad = self.data.set_aside(path)
        unusable = Unusable(bad, f"{path.name}: {reason}", kept=bad == path)
        if unusable.kept:
            self.kept = unusable
        else:
            self.data.finish()
        self._error(f"cannot resume the unfinished game: {unusable.text()}")
        return unusable.brief()

    def _set_aside_kept(self) -> Path | None:
        """A new game takes the place of the one kept at boot (it could not be resumed):
        that log (or ``games/current``) is set aside as ``.unfinished``, never removed,
        and the journal says so. Where it went, if it was renamed."""
        kept = self.kept
        if kept is None:
            return None
        aside = self.data.set_aside(kept.path, ".unfinished")
        if aside == kept.path:
            self._error(
                f"a new game takes the place of {kept.path.name}, which could not be "
                f"resumed nor set aside: it stays {kept.path.name}, no longer in progress"
            )
            return None
        self._error(
            f"a new game takes the place of the unfinished game: {kept.path.name}, which "
            f"could not be resumed, is set aside as {aside.name}"
        )
        return aside

    def _want(self, flag: bool) -> None:
        self.want_dice = flag
        want = getattr(self.camera, "want", None)
        if callable(want):
            want(flag)

    def _not_saved(self, what: str, why: OSError | str, short: str = "") -> bool:
        """Nothing of an Output is shown: the journal gets the whole error (its path too),
        the display the reason in words ("No space left on device") and what to do."""
        self._error(f"{what}: {why}")
        reason = short or (why.strerror if isinstance(why, OSError) and why.strerror else str(why))
        self.show(screens.Message("cannot save", reason[:60], "not counted: try again"))
        self.notifier.status(f"cannot save the game: {reason}")
        return False

    def show(self, screen: screens.Screen) -> None:
        """Put ``screen`` on the display. A display that fails to take it (a loose I2C
        wire: "Remote I/O error") is said once in the journal and the table goes on; the
        screen is sent again at the next call or tick, and the journal says when it works
        again."""
        if self.shown is not None and self.shown.screen == screen and self.display_fault is None:
            return
        image: Image.Image = screens.render(screen)
        try:
            show_text = getattr(self.display, "show_text", None)
            if callable(show_text):
                show_text(screens.render_text(screen))
            self.display.show(image)
        except Exception as exc:
            if self.display_fault is None:
                self._error(f"display: {type(exc).__name__}: {exc} (the game goes on)")
            self.display_fault = f"{type(exc).__name__}: {exc}"
        else:
            if self.display_fault is not None:
                self._error("display: working again")
            self.display_fault = None
        t = self.clock()
        self.shown = Shown(screen, t)
        if self.on_show is not None:
            self.on_show(screen, t)

    def handle(self, event: TableEvent) -> bool:
        """Deal with one event; False when the loop should stop.

        A fault while dealing with one event (a bug, a reader that chokes on a
        frame) is reported and shown, and the table goes on with the referee as
        it was before that event: one bad moment must not end the evening.
        """
        if isinstance(event, Quit):
            self.quit_reason = event.reason
            return False
        try:
            self._handle(event)
        except Exception as exc:
            self.faults += 1
            self._fault(f"{type(event).__name__}: {type(exc).__name__}: {exc}")
            if isinstance(event, Frame) and self._reader_failed():
                return True
            self.show(screens.Message("table error", f"{type(exc).__name__}", "press a button"))
        return True

    def _reader_failed(self) -> bool:
        """The dice reader choked on a frame: the table stops reading, as when the camera
        fails, and the person may try again with ROLL. It read on, failing ten times a
        second, under "table error / press a button", and a press went to the game."""
        ref = self.referee
        if ref is None:
            return False
        try:
            self._take(*ref.on_camera_failed("could not read the dice"))
        except Exception as exc:
            self._fault(f"after a reader fault: {type(exc).__name__}: {exc}")
            return False
        return True

    def _fault(self, text: str) -> None:
        """Say a fault in the journal. The same fault again and again (every frame of a
        camera, ten a second) is said the 1st, 10th, 100th ... time, with its count."""
        if text != self._fault_said:
            self._fault_said, self._fault_count = text, 0
        self._fault_count += 1
        n = self._fault_count
        if n == 1:
            self._error(text)
        elif n == 10 ** (len(str(n)) - 1):
            self._error(f"{text} ({n} times)")

    def _handle(self, event: TableEvent) -> None:
        ref = self.referee
        assert ref is not None
        if isinstance(event, ButtonPress):
            self._take(*ref.on_press(event))
        elif isinstance(event, Frame):
            self._last_frame = self.clock()
            try:
                self._frame(ref, event)
            finally:
                done = getattr(self.camera, "frame_done", None)
                if callable(done):
                    done()
        elif isinstance(event, CameraFailed):
            self._error(f"camera: {event.reason}")
            self._take(*ref.on_camera_failed(event.reason))
        elif isinstance(event, CameraReady):
            self._error(f"camera: {event.text}")
            self._bands_said = False
        elif isinstance(event, Tick):
            if self.display_fault is not None and self.shown is not None:
                self.show(self.shown.screen)  # it may answer again (a wire pushed back)
            if self.camera_stalled():
                # A camera read that hangs cannot be undone from here: let the
                # watchdog lapse, so systemd restarts the table and it resumes.
                self.notifier.status(f"camera gave no frame for {self.camera_stall_s:.0f} s")
                return
            self.notifier.watchdog()

    def dice_wanted(self) -> DiceWanted | None:
        """What the table waits for in the tray (the referee's ``dice_wanted``)."""
        return self.referee.dice_wanted() if self.referee is not None else None

    def camera_stalled(self) -> bool:
        """Dice are wanted and the camera has delivered nothing for too long."""
        return (
            self.want_dice
            and self.camera is not None
            and self.clock() - self._last_frame > self.camera_stall_s
        )

    def _tray_in(self, ref: Referee, size: tuple[int, int]) -> Referee:
        """The first frame after a start: if the dice remembered in the tray were read
        in a frame of another size (the camera's size changed in the config), where they
        lie is scaled to this one. A held die was otherwise "moved" at every throw."""
        remembered, self._tray_frame = self._tray_frame, None
        if remembered is None:
            return ref
        saved = remembered.frame
        if saved is None or saved == size:
            return ref
        tray, refused = remembered.dice, remembered.refused
        scaled = ref
        if tray and scaled.last_roll == tray:
            scaled = scaled.with_tray(scaled_tray(tray, saved, size))
        if refused and scaled.refused_roll == refused:
            scaled = scaled.with_refused(scaled_tray(refused, saved, size))
        if scaled is not ref:
            self.referee = scaled
        return scaled

    def _frame(self, ref: Referee, frame: Frame) -> None:
        if not self.want_dice or self.reader is None:
            return
        # a stand-in reader's frames may have no shape
        shape: tuple[int, ...] = getattr(frame.image, "shape", ())
        if len(shape) >= 2:
            self._frame_size = (int(shape[1]), int(shape[0]))
            ref = self._tray_in(ref, self._frame_size)
        # the reader is told how many dice the throw has (two, or one in a mexen
        # tie-break): "saw 3 dice, expected 2" rather than a die of three judged unclear
        wanted = ref.dice_wanted()
        reading = self.reader.read(frame.image, expect=wanted.count if wanted else None)
        self.frames_read += 1
        if self.settler is None:
            settled, entered, empty = True, True, False
        else:
            verdict = self.settler.update(frame.image, reading)
            settled, entered = bool(verdict.settled), bool(verdict.entered)
            # A tray still and read as no dice (empty, too dark, blurred) for as long as
            # dice take to settle: the referee says why, once, and goes on waiting.
            empty = bool(verdict.empty_settled)
            if verdict.again:  # lying as they lay before the table stopped reading
                self._take(*ref.on_unmoved())
                return
            if verdict.adopted:  # at rest under a hand kept still
                self._take(*ref.on_obstructed())
                return
            # Still, and read differently frame after frame for a while: why not, said
            # once (a refusal, never a throw), rather than "reading..." without end.
            wavered = getattr(verdict, "wavered", None)
            if wavered is not None:
                self._read_out(ref, wavered)
                return
        if (settled and entered) or empty:
            self._read_out(ref, reading)

    def _read_out(self, ref: Referee, reading: FrameReading) -> None:
        """A reading for the referee to count or refuse. One that says dice went unseen
        in a flickering lamp's bands is told to the journal too, once a camera opening:
        the one who set the table up can mend it (the mains frequency in the config, or
        the lamp), which throwing again does not."""
        if reading.in_bands and not self._bands_said:
            self._bands_said = True
            self._error(
                f"camera: dice not read, {IN_BANDS}: set mains_hz under [camera] to the "
                "mains' frequency (50 or 60), or light the tray with another lamp"
            )
        self._take(*ref.on_reading(reading))

    def _done_one(self) -> None:
        with self._lock:
            self._pending -= 1
            if self._pending <= 0 and not self.want_dice:
                self._pending = 0
                self._idle.set()

    def _ticker(self, deadline: float | None) -> None:
        while not self._stopping.wait(self.tick_s):
            self.put(Tick(self.clock()))
            if deadline is not None and self.clock() >= deadline:
                self.put(Quit("time is up"))
                return

    def run(self, seconds: float | None = None) -> str:
        """Boot, start the adapters, and consume events until Quit; returns why it stopped."""
        if self.referee is None:
            self.boot()
        self.notifier.ready()
        with self._lock:
            if self._pending == 0 and not self.want_dice:
                self._idle.set()
        if self.camera is not None:
            self.camera.start(self.put)
        if self.buttons is not None:
            self.buttons.start(self.put)
        deadline = None if seconds is None else self.clock() + seconds
        if seconds is not None:
            self.tick_s = min(self.tick_s, max(0.05, seconds / 4))
        self._timer = threading.Thread(
            target=self._ticker, args=(deadline,), name="ticker", daemon=True
        )
        self._timer.start()
        try:
            while True:
                try:
                    event = self.queue.get(timeout=1.0)
                except queue.Empty:
                    continue
                try:
                    go_on = self.handle(event)
                finally:
                    self._done_one()
                if not go_on:
                    break
        finally:
            self.close()
        return self.quit_reason

    def write_state(self) -> None:
        """The referee's game as ``replay --json`` would print it (for tests and people)."""
        if self.state_path is None or self.referee is None:
            return
        game = self.referee.game
        obj: dict[str, Any] = {
            "mode": str(self.referee.mode),
            "resumed": self.resumed.path.name if self.resumed is not None else None,
            "log": self.writer.path.name if self.writer is not None else None,
            "events": game.count if game is not None else 0,
            "game": game.view() if game is not None else None,
        }
        try:
            atomic_write(self.state_path, (json.dumps(obj, indent=1) + "\n").encode("utf-8"))
        except OSError as exc:
            # A file for tests and people, not the game's record (the log is): a full disk
            # under it must not stop the table, nor its closing steps (the log closed, the
            # GIF written). Said with its name: the data folder may have room to spare.
            going_on = "" if self._stopping.is_set() else " (the game goes on)"
            self._error(
                f"the state file {self.state_path} was not written: {exc.strerror or exc}{going_on}"
            )

    def close(self) -> None:
        self._stopping.set()
        self.notifier.stopping()
        for part in (self.buttons, self.camera):
            if part is not None:
                try:
                    part.close()
                except Exception as exc:
                    self._error(f"closing {type(part).__name__}: {exc}")
        self.write_state()
        self._close_writer()
        if self.quit_reason:  # stopped on purpose (q, a signal, the script's end) ...
            self._end_seen()  # ... not by a fault: that and a power cut show it again
        try:
            self.display.close()
        except Exception as exc:
            self._error(f"closing the display: {exc}")

    def _close_writer(self) -> None:
        if self.writer is not None:
            try:
                self.writer.close()
            finally:
                self.writer = None

    def _error(self, text: str) -> None:
        """One line in the journal, whatever ``text`` holds: a library's error of several
        lines (OpenCV's names its source file on one and ends in a line break) was split
        into lines that no longer said whose they were."""
        if self.errors is not None:
            print(f"dicetable: {screens.escaped(text.strip())}", file=self.errors, flush=True)
