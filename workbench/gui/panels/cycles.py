"""Cycle player: step through a simulation, forwards and back, and watch the queue.

Stepping forwards past the history asks the simulator for the next snapshot in a
worker thread (one step of a saturated flow can take seconds), with its progress
shown and Reset to cancel it; stepping back only re-reads an earlier one
(snapshots never change). The slider is the run's timeline, from its start to the
live result's end: its handle stands at the step's time, not at the last step
computed so far.
"""

from __future__ import annotations

import bisect
import math
import time as time_module
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QPushButton,
    QSlider,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from workbench.engine import registry, timeline
from workbench.engine.errors import Cancelled, WorkbenchError
from workbench.engine.jobarrays import job_array, longest_run
from workbench.engine.model import EPS
from workbench.engine.simulate import Simulator, Snapshot
from workbench.gui import palette
from workbench.gui.gantt.parts import CountAxis, NumberAxis
from workbench.gui.numbers import TIME_UNITS, number, step_label, time, time_label
from workbench.gui.panels.cycles_parts import PRESS_STEP, CyclesPlot, StepInfo, first_ids, last_finite
from workbench.gui.panels.time_navigation import TimeNavigation
from workbench.gui.workers import BackgroundCall, Token
from workbench.session.document import Document

QUEUE_COLOUR = "#0072B2"
UTIL_COLOUR = "#D55E00"
TICKS = 1000  # the slider's positions over the run's time
REPORT_EVERY_S = 0.1  # a go-to's count of steps computed, at most this often
SPEEDS = (1, 2, 4, 8, 16)  # Play's steps per second; and "fastest"
BUSY_EVERY_S = 0.5  # while Play runs, the busy curve is extended at most this often
BUSY_BATCH = 500  # or once this many steps wait for it
MARKED_STEPS = 60  # up to this many steps the plot marks each one
PLOT_MIN_HEIGHT = 120  # below it the two axes' labels crowd the curves out


class CyclesPanel(QWidget):
    snapshot_shown = Signal(object)  # Snapshot
    live_requested = Signal()
    step_progress = Signal(int, int)  # done, total of the step being computed (from the worker thread)

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document
        self.sim: Simulator | None = None
        self.position = -1
        self.reset_button = QPushButton("|◀ Reset")
        self.reset_button.setToolTip("Forget the steps (cancelling one being computed) and show the live result")
        self.back_button = QPushButton("◀ Back")
        self.back_button.setToolTip("Show the step before")
        self.step_button = QPushButton("Step ▶")
        self.step_button.setToolTip("Show the next step, computing it if it is new")
        self.play_button = QPushButton("Play")
        self.play_button.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
        self.play_button.setCheckable(True)
        # Fixed speeds, not a number box: one accepted 50/s, which a trace's steps cannot be drawn at,
        # and typing 100 into it gave 10/s.
        self.speed = QComboBox()
        for per_second in SPEEDS:
            self.speed.addItem(f"{per_second}/s", per_second)
        self.speed.addItem("fastest", 0)
        self.speed.setCurrentIndex(SPEEDS.index(4))
        self.speed.setToolTip("Play's speed: steps per second (fastest: the next step as soon as one is drawn)")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 0)
        self.slider.setToolTip("The run's time: drag back to a step already computed")
        self.span: tuple[float, float] | None = None  # the slider's time frame (``_frame``)
        self._steps: tuple[list[float], list[int], list[float]] = ([], [], [])  # ``_history``
        self._busy_read = 0.0  # when ``_history`` last read busy shares (time.monotonic)
        self._plot_timer = QTimer(self)
        self._plot_timer.setSingleShot(True)
        self._plot_timer.setInterval(0)
        self._plot_timer.timeout.connect(lambda: self._plot() if self.sim is not None and self.position >= 0 else None)
        self._plotted: tuple[int, int] = (0, 0)  # steps the curves hold (queue, busy)
        self.info = StepInfo(PRESS_STEP)
        self.navigation = TimeNavigation()
        self.selected_job: Callable[[], str | None] = lambda: None  # the window's selection (set by it)
        self.plot = CyclesPlot(background="w", axisItems={"bottom": NumberAxis("bottom"), "left": CountAxis("left")})
        self.plot.setMinimumHeight(PLOT_MIN_HEIGHT)
        palette.style_plot(self.plot)
        self.time_unit = "model"  # View ▸ Time unit
        self.plot.setLabel("bottom", time_label(self.time_unit))
        # Each value holds from its event to the next (steps, not ramps); the queue on the left axis,
        # the busy share on a right axis of its own (0-100 %); the axis labels are the legend.
        self.queue_curve = self.plot.plot(pen=pg.mkPen(QUEUE_COLOUR, width=2), stepMode="right")
        self.plot.setLabel("left", "queue length", color=QUEUE_COLOUR)
        self.util_view = pg.ViewBox()
        item = self.plot.getPlotItem()
        item.showAxis("right")
        item.scene().addItem(self.util_view)
        item.getAxis("right").linkToView(self.util_view)
        item.getAxis("right").setLabel("nodes busy %", color=UTIL_COLOUR)
        self.util_view.setXLink(item)
        self.util_view.setYRange(0, 100, padding=0.05)
        self.util_view.setMouseEnabled(y=False)
        self.util_curve = pg.PlotDataItem(pen=pg.mkPen(UTIL_COLOUR, width=2), stepMode="right")
        self.util_view.addItem(self.util_curve)
        self.now_line = pg.InfiniteLine(
            angle=90, movable=False, pen=pg.mkPen("#555", width=1, style=Qt.PenStyle.DashLine)
        )
        self.now_line.setVisible(False)
        self.plot.addItem(self.now_line, ignoreBounds=True)
        item.vb.sigResized.connect(self._align_views)
        # One row of controls, two lines of text, then the plot: the panel fits the dock below
        # Strategy at 1500 × 920 (about 206 px), the plot's time axis in view.
        controls = QHBoxLayout()
        for widget in (self.reset_button, self.back_button, self.step_button, self.play_button, self.speed):
            controls.addWidget(widget)
        controls.addWidget(self.slider, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(controls)
        layout.addWidget(self.navigation)
        layout.addWidget(self.info)
        layout.addWidget(self.plot, 1)
        self.computing = BackgroundCall()  # the next snapshot, computed off the GUI thread
        self.computing.finished.connect(self._on_computed)
        self.computing.progress.connect(self._on_steps_computed)
        self.step_progress.connect(self._on_step_progress)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._on_tick)
        self.reset_button.clicked.connect(self.reset)
        self.back_button.clicked.connect(self.step_back)
        self.step_button.clicked.connect(self.request_step)
        self.play_button.toggled.connect(self._on_play_toggled)
        self.speed.currentIndexChanged.connect(lambda _: self.timer.setInterval(self.play_interval()))
        self.slider.valueChanged.connect(self._on_slider)
        self.slider.actionTriggered.connect(self._on_slider_action)
        self.slider.sliderReleased.connect(self._on_slider_released)
        self.navigation.go_to.connect(self.go_to)
        self.navigation.job_event.connect(self.job_event)
        self.navigation.jump.connect(self.jump)
        self.navigation.refused.connect(lambda text: self.info.set_lines([f"⚠ {text}"]))
        self._blank_axes()  # the first document's frame too (an empty plot read "0.000002 d")
        self._update_controls()

    # ------------------------------------------------------------ actions

    def reset(self) -> None:
        """Forget the history (cancelling a step being computed); the next Step starts a new
        simulation of the current document."""
        self.play_button.setChecked(False)
        self.computing.stop()
        self.sim = None
        self.position = -1
        self._forget_steps()
        self.slider.blockSignals(True)
        self.slider.setRange(0, 0)
        self.slider.blockSignals(False)
        self.info.set_lines([PRESS_STEP])
        self.queue_curve.setData([], [])
        self.util_curve.setData([], [])
        self.now_line.setVisible(False)
        self._blank_axes()
        self._update_controls()
        self.live_requested.emit()

    def request_step(self) -> None:
        """Step ▶ and Play: show the next snapshot; one not yet computed is computed in a worker
        thread and shown when it is ready, so the window never waits for it."""
        if self.computing.busy:
            return  # one step at a time; Play's next tick comes after it
        if self.sim is not None and self.position + 1 < len(self.sim.snapshots):
            self._show(self.position + 1)
            return
        if self.sim is None and not self._start_simulation():
            return
        sim = self.sim
        assert sim is not None
        if sim.done:
            self._at_end()
            return
        wanted = len(sim.snapshots)
        self.info.set_lines([f"computing step {wanted}…", "Reset cancels it"])
        self.step_button.setEnabled(False)

        def compute(token: Token) -> tuple[int, Snapshot | None]:
            sim.recorder.should_stop = token
            sim.recorder.progress = self.step_progress.emit
            return wanted, sim.step()

        self.computing.start(compute)

    def step(self) -> bool:
        """Show the next snapshot, computing it here if needed (scripts and tests); False at the end."""
        if self.computing.busy and self.computing.thread is not None:
            self.computing.thread.join()  # its answer, when delivered, finds the step shown
        if self.sim is None and not self._start_simulation():
            return False
        assert self.sim is not None
        if self.position + 1 >= len(self.sim.snapshots):
            try:
                snap = self.sim.step()
            except WorkbenchError as exc:
                self.info.set_lines([f"⚠ {exc}"])
                self.play_button.setChecked(False)
                return False
            if snap is None:
                self._at_end()
                return False
        self._show(self.position + 1)
        self.flush_plot()  # a script reads the plot at once
        return True

    def flush_plot(self) -> None:
        """Bring the plot up to the step shown now (it otherwise follows in the next event-loop turn)."""
        if self._plot_timer.isActive():
            self._plot_timer.stop()
            self._plot()

    def _start_simulation(self) -> bool:
        env = self.document.env
        try:
            self.sim = registry.simulator(env, env.strategy.name, env.strategy.params_dict(), explain=True)
        except WorkbenchError as exc:
            self.info.set_lines([f"⚠ {exc}"])
            return False
        self._forget_steps()
        return True

    def _forget_steps(self) -> None:
        """A new run (or none): no frame, no steps read, nothing plotted."""
        self.span = None
        self._steps = ([], [], [])
        self._plotted = (0, 0)

    def _at_end(self) -> None:
        assert self.sim is not None
        self.play_button.setChecked(False)
        if self.position >= 0:
            self._describe(self.sim.snapshots[self.position])  # now the count is known
        self._update_controls()

    def _on_computed(self, _ticket: int, answer: tuple[int, Snapshot | None] | None, error: str | None) -> None:
        if self.computing.busy or self.sim is None:
            return  # a later step, or a reset, made this answer void
        if error is not None or answer is None:
            self.info.set_lines([f"⚠ {error}"])
            self.play_button.setChecked(False)
            self._update_controls()
            return
        wanted, snap = answer
        if snap is None:
            if self.sim.snapshots and self.position < len(self.sim.snapshots) - 1:
                self._show(len(self.sim.snapshots) - 1)  # a jump past the run's end: its last step
            self._at_end()
        elif self.position != wanted:
            self._show(wanted)

    def _on_step_progress(self, done: int, total: int) -> None:
        if self.computing.busy and self.sim is not None and total > 0:
            step = len(self.sim.snapshots)
            self.info.set_lines([f"computing step {step}… {100 * done // total} %", "Reset cancels it"])

    def _on_steps_computed(self, done: int, _total: int) -> None:
        """A go-to computing its way: how many steps so far (its end is not known before)."""
        if self.computing.busy:
            self.info.set_lines([f"computing the steps: {number(done)} so far…", "Reset cancels it"])

    def step_back(self) -> None:
        self.play_button.setChecked(False)  # going back pauses, as in a media player
        if self.position > 0:
            self._show(self.position - 1)

    def _show(self, position: int, move_slider: bool = True) -> None:
        assert self.sim is not None
        self.position = position
        snap = self.sim.snapshots[position]
        if move_slider:
            self._place_slider()
        self._describe(snap)
        # The plot's curves follow in the next turn of the event loop: after a jump they read
        # thousands of new steps, and the chart of the step is painted first. Its line moves now.
        if position < len(self._steps[0]):
            self.now_line.setValue(self._drawn_at(self._steps[0][position]))
        self._plot_timer.start()
        self._update_controls()
        self.snapshot_shown.emit(snap)

    def _describe(self, snap: Snapshot) -> None:
        """Two lines, each cut to the panel's width (the step and its event; what is placed and what
        waits), and all of it in their tooltip: the time in seconds too, the ids of a batch."""
        # The number of steps is known only once the run has ended.
        of = f" of {len(self.sim.snapshots)}" if self.sim is not None and self.sim.done else ""
        cycle = f", cycle {snap.cycle}" if snap.cycle is not None else ""
        # The windows come by start: those started by now are a prefix (a sum over 20,000 took 20 ms a step,
        # a list of their starts 20 ms at 100,000).
        started = bisect.bisect_right(snap.windows, snap.time + EPS, key=lambda w: w.start)
        seconds = f" ({number(snap.time)} s)" if self.time_unit not in ("model", "seconds") else ""
        label = step_label(snap.label, snap.time, self.time_unit)
        head, sep, event = label.partition(": ")
        event = event if sep and head.startswith("t=") else label  # the time is in the first line already
        at = f"step {snap.step}{of} — t = {time(snap.time, self.time_unit)}"
        counts = f"placed {len(snap.windows)} (started {started}), failed {len(snap.failed)}"
        queue = f"queue ({number(len(snap.queue))}): {first_ids(snap.queue)}"
        batch = [f"batch ({number(len(snap.batch))}): {first_ids(snap.batch)}"] if snap.batch else []
        named = event.startswith(f"cycle {snap.cycle}")  # ("cycle 0: CoP planned …" names it)
        shown = [f"{at}{'' if named else cycle}: {event}", f"{counts}; {queue}"]
        self.info.set_lines(shown, [f"{at}{seconds}{cycle}", event, counts, queue, *batch])

    # ------------------------------------------------------------ going to a time, a step, an event

    def go_to(self, kind: str, value: float) -> None:
        """Show step ``value`` (kind "step") or the first step at or after time ``value`` (kind
        "time"), computing the steps up to it in a worker when they are new."""
        if kind == "step":
            n = int(value)
            self.advance_to(lambda k, snap: snap.step >= n, f"step {n}")  # as the panel numbers them
        else:
            tol = 1e-9 * (1.0 + abs(value))
            self.advance_to(lambda k, snap: snap.time >= value - tol, f"t = {time(value, self.time_unit)}")

    def job_event(self, forward: bool) -> None:
        """The selected job's next (or previous) event: it arrived, started, ended."""
        job, result = self.selected_job(), self.document.result
        if job is None or result is None:
            self.info.set_lines(["Select a job first (chart or Jobs table); its events come from the live result."])
            return
        now = self._now()
        t = timeline.job_event_after(self.document.env, result, job, now, forward)
        if t is None:
            which = "later" if forward else "earlier"
            self.info.set_lines([f"{job} has no {which} event than t = {time(now, self.time_unit)}"])
            return
        self.go_to("time", t)

    def jump(self, kind: str) -> None:
        """Go to the next arrival, completion, or start of the job at the head of the queue."""
        result = self.document.result
        if result is None:
            self.info.set_lines(["The jumps read the live result: Run (F5) first."])
            return
        snap = self.sim.snapshots[self.position] if self.sim is not None and self.position >= 0 else None
        head = snap.hold[0] if snap is not None and snap.hold else (snap.queue[0] if snap and snap.queue else None)
        if kind == "head" and head is None:
            self.info.set_lines(["No job waits at this step: no blocked head to go to."])
            return
        t = timeline.next_time(self.document.env, result, kind, self._now(), head)
        if t is None:
            what = timeline.JUMPS[kind].removeprefix("the ")
            self.info.set_lines([f"No {what} after t = {time(self._now(), self.time_unit)}"])
            return
        self.go_to("time", t)

    def _now(self) -> float:
        if self.sim is None or self.position < 0:
            return self.document.env.time.start - 1.0  # before the run: its first event is next
        return self.sim.snapshots[self.position].time

    def advance_to(self, reached: Callable[[int, Snapshot], bool], what: str) -> None:
        """Show the first step that ``reached(index, snapshot)`` accepts: at once if it is computed
        (backwards too), else after computing steps up to it in a worker (progress in the panel,
        Reset cancels; the window never waits). At the run's end, its last step."""
        if self.computing.busy:
            return
        self.play_button.setChecked(False)
        if self.sim is None and not self._start_simulation():
            return
        sim = self.sim
        assert sim is not None
        for k, snap in enumerate(sim.snapshots):
            if reached(k, snap):
                self._show(k)
                return
        if sim.done:
            self._show(len(sim.snapshots) - 1)
            self.info.set_lines([f"The run ends before {what}: its last step is shown.", *self.info.shown[:1]])
            return
        self.info.set_lines([f"computing the steps to {what}…", "Reset cancels it"])
        self.step_button.setEnabled(False)

        def compute(token: Token) -> tuple[int, Snapshot | None]:
            sim.recorder.should_stop = token
            sim.recorder.progress = None  # the steps counted here, not each step's own progress
            reported = time_module.perf_counter()
            while True:
                if token():
                    raise Cancelled()
                snap = sim.step()
                k = len(sim.snapshots) - 1
                if snap is None:
                    return k, None
                if reached(k, snap):
                    return k, snap
                # A count a few times a second: one a step queued thousands of signals, and the
                # window spent seconds answering them.
                if time_module.perf_counter() - reported >= REPORT_EVERY_S:
                    reported = time_module.perf_counter()
                    token.report(k, k + 1)

        self.computing.start(compute)

    # ------------------------------------------------------------ the timeline

    def _frame(self) -> tuple[float, float] | None:
        """The run's time frame: from its first step to its last once the run is done; before, to the
        live result's last end (or the horizon, or the latest step, if later). None: no frame yet."""
        sim = self.sim
        if sim is None or not sim.snapshots:
            return None
        first, last = sim.snapshots[0].time, last_finite(sim.snapshots)
        if sim.done:
            end = last
            if not math.isfinite(sim.snapshots[-1].time):  # an endless run: to its last window's end
                end = max(last, max(sim.recorder.actual.values(), default=last))
        else:
            end = max(last, self.span[1] if self.span is not None else last)
            result, horizon = self.document.result, self.document.env.time.horizon
            if self.span is None and result is not None:
                ends = [result.actual_ends.get(w.job, w.end) for w in result.windows]
                end = max(end, max(ends, default=end), horizon if horizon is not None else end)
        return (first, end)

    def _place_slider(self) -> None:
        """Put the slider's handle at the shown step's time in the run's frame. (The plot keeps to the
        steps shown: a run's last job can end far beyond its busy part, and squeeze it to a sliver.)"""
        assert self.sim is not None
        self.span = self._frame()
        self.slider.blockSignals(True)
        self.slider.setRange(0, TICKS)
        self.slider.setValue(self._tick(self.sim.snapshots[self.position].time))
        self.slider.blockSignals(False)

    def _tick(self, t: float) -> int:
        """The slider's position for time t (an endless run's last step, at t = inf, at the end); in a
        run whose steps all come at one time, the step's."""
        assert self.sim is not None
        if not math.isfinite(t):
            return TICKS
        if self.span is None or self.span[1] <= self.span[0]:
            return round(TICKS * self.position / max(len(self.sim.snapshots) - 1, 1))
        first, end = self.span
        return round(TICKS * min(max((t - first) / (end - first), 0.0), 1.0))

    def _align_views(self) -> None:
        self.util_view.setGeometry(self.plot.getPlotItem().vb.sceneBoundingRect())

    def _drawn_at(self, t: float) -> float:
        """Where the plot draws a step at time ``t``: an endless run's last step (t = inf) at its
        frame's end, its last window's."""
        if math.isfinite(t):
            return t
        assert self.sim is not None
        return self.span[1] if self.span is not None else last_finite(self.sim.snapshots)

    def _plot(self) -> None:
        """Every step computed so far, a line at the one shown (stepping back keeps the curves), the
        queue from 0. An endless run's last step (t = inf) is drawn at its frame's end, its last window's."""
        assert self.sim is not None
        times, queue, busy = self._history()
        last = self._drawn_at(math.inf)
        now = times[self.position]
        self.now_line.setValue(now if math.isfinite(now) else last)
        self.now_line.setVisible(True)
        if (len(times), len(busy)) == self._plotted:
            return  # stepping back or dragging: only the line moves
        self._plotted = (len(times), len(busy))
        drawn = np.asarray(times, dtype=np.float64)  # (a list made per step: 67 ms at 100,000 steps)
        drawn = np.where(np.isfinite(drawn), drawn, last)
        # A few steps are marked as points: one step, or steps all at one time, draw no line.
        marks = len(times) <= MARKED_STEPS
        for curve, values, colour in ((self.queue_curve, queue, QUEUE_COLOUR), (self.util_curve, busy, UTIL_COLOUR)):
            curve.setData(
                drawn[: len(values)], values, symbol="o" if marks else None, symbolSize=6, symbolBrush=colour,
                symbolPen=None,
            )  # fmt: skip
        view = self.plot.getPlotItem().vb
        top = max(max(queue, default=0), 1)
        view.setLimits(yMin=-0.05 * top)  # no queue is negative
        view.setYRange(0, top, padding=0.05)
        if drawn[0] == drawn[-1] and self.span is not None and self.span[1] > self.span[0]:
            view.setXRange(*self.span, padding=0.02)  # steps at one time: at the start of the run's frame
        else:
            view.enableAutoRange(x=True)
        self._align_views()

    def _history(self) -> tuple[list[float], list[int], list[float]]:
        """Each computed step's time, queue length and busy share, extended as steps come (the plot
        and the slider read them at every step and every drag). The busy shares come from one sort of
        the latest plan (tens of ms on a trace): while steps come one by one they are read at most
        every BUSY_EVERY_S, and the curve shows the steps read so far."""
        assert self.sim is not None
        times, queue, busy = self._steps
        for snap in self.sim.snapshots[len(times) :]:
            times.append(snap.time)
            queue.append(len(snap.queue))
        due = time_module.monotonic() - self._busy_read >= BUSY_EVERY_S or not self.play_button.isChecked()
        if len(busy) < len(times) and (due or len(times) - len(busy) >= BUSY_BATCH):
            self._busy_read = time_module.monotonic()
            new = self.sim.snapshots[len(busy) : len(times)]
            latest = self.sim.snapshots[len(times) - 1]
            shares = iter(latest.busy_fractions([s.time for s in new if math.isfinite(s.time)]))
            for snap in new:
                busy.append(100 * (float(next(shares)) if math.isfinite(snap.time) else snap.busy_fraction))
        return self._steps

    def set_time_unit(self, unit: str) -> None:
        """View ▸ Time unit: the plot's time axis, the step's time and what Go to reads."""
        self.time_unit = unit
        self.navigation.unit = unit
        self.plot.getPlotItem().getAxis("bottom").setScale(1.0 / TIME_UNITS[unit][1])
        self.plot.setLabel("bottom", time_label(unit))
        if self.sim is not None and 0 <= self.position < len(self.sim.snapshots) and not self.computing.busy:
            self._describe(self.sim.snapshots[self.position])

    def _update_controls(self) -> None:
        at_end = self.sim is not None and self.sim.done and self.position >= len(self.sim.snapshots) - 1
        if at_end and self.span is not None and self.span != self._frame():
            self._place_slider()  # the run's end is known now: the frame ends there
        self.back_button.setEnabled(self.position > 0)
        self.step_button.setEnabled(not at_end and not self.computing.busy)
        self.reset_button.setEnabled(self.sim is not None)

    # ------------------------------------------------------------ handlers

    def _on_slider(self, value: int) -> None:
        """The last step computed at or before the slider's time (a step not yet computed is not
        shown: Step computes it)."""
        if self.sim is None or not self.sim.snapshots or self.span is None:
            return
        first, end = self.span
        snapshots = self.sim.snapshots
        if self._tick(snapshots[self.position].time) == value:
            return  # the step shown is at this time (of several at one time, the one chosen)
        if end > first:
            t = first + (end - first) * value / TICKS
            times = self._history()[0]
            position = max(bisect.bisect_right(times, t + 1e-9 * (1.0 + abs(t))) - 1, 0)
        else:  # every step at one time: the slider counts the steps
            position = round(value * (len(snapshots) - 1) / TICKS)
        if position != self.position:
            self._show(position, move_slider=False)
        if not self.slider.isSliderDown():
            self._place_slider()  # a click or a key: the handle stands at the step shown

    def _on_slider_released(self) -> None:
        if self.sim is not None and self.sim.snapshots:
            self._place_slider()  # dragged past the steps computed: back to the step shown

    def _on_slider_action(self, action: int) -> None:
        """The arrow keys on the slider go one step (the mouse drags over time)."""
        add = action == QSlider.SliderAction.SliderSingleStepAdd.value
        if self.sim is None or not (add or action == QSlider.SliderAction.SliderSingleStepSub.value):
            return
        if add and self.position + 1 < len(self.sim.snapshots):
            self.position += 1
        elif not add and self.position > 0:
            self.position -= 1
        self._show(self.position)  # (the handle moves to its time, which Qt then keeps)

    def _on_play_toggled(self, playing: bool) -> None:
        # The style's media icons: a glyph such as ⏸ is missing from many fonts.
        icon = QStyle.StandardPixmap.SP_MediaPause if playing else QStyle.StandardPixmap.SP_MediaPlay
        self.play_button.setText("Pause" if playing else "Play")
        self.play_button.setIcon(self.style().standardIcon(icon))
        if playing:
            self.timer.start(self.play_interval())
        else:
            self.timer.stop()

    def play_interval(self) -> int:
        """Milliseconds between Play's steps (0: fastest; a step being computed is waited for)."""
        per_second = int(self.speed.currentData())
        return 0 if per_second <= 0 else round(1000 / per_second)

    def _on_tick(self) -> None:
        self.request_step()

    def on_environment_changed(self) -> None:
        """An edit makes the history stale: start again on the next Step."""
        if self.sim is not None:
            self.reset()
        elif not self._steps[0]:
            self._blank_axes()  # another document: its own time frame, not the last one's

    def _blank_axes(self) -> None:
        """The empty plot's axes over the document's own time (the last document's frame stayed, and
        read "0.000002 d" on a model-unit file)."""
        env = self.document.env
        start = env.time.start
        if env.time.horizon is not None:
            end = env.time.horizon
        else:
            end = float(job_array(env, "arrival").max()) if env.jobs else start
        if end <= start:
            end = start + (longest_run(env) or 1.0)
        view = self.plot.getPlotItem().vb
        view.disableAutoRange()
        view.setRange(xRange=(start, end), yRange=(0, 1), padding=0.02)
