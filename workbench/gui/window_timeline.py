"""The main window's time: the chart with the overview strip under it, Cycles mode's steps, the unit
times are read in (View ▸ Time unit) and Edit ▸ Find job, which takes the chart to a job.

The strip shows the live result's whole run and marks the chart's view; dragging it moves the chart.
A step shown in Cycles mode is drawn on the chart, which follows its time ("Follow now"), and the
strip marks it. (A mixin of ``MainWindow``, as ``WindowFiles`` and ``WindowLayout`` are.)
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMessageBox, QVBoxLayout, QWidget

from workbench.engine import timeline
from workbench.engine.jobarrays import job_array, longest_run
from workbench.engine.model import Environment
from workbench.engine.schedule import Schedule
from workbench.engine.simulate import Snapshot
from workbench.gui import prepared
from workbench.gui.gantt.overview import OverviewStrip
from workbench.gui.numbers import default_unit, step_label, units_for
from workbench.session.state import find_job

TABLE_AFTER_MS = 60  # the Jobs table's refresh after a Cycles step (several steps: one refresh)
TABLE_PLAYING_MS = 1000  # while Play runs, at most this often (a refresh of 28,000 rows takes ~60 ms)


class WindowTimeline:
    chart: Any
    overview: OverviewStrip
    nodes: Any
    tasks: Any
    why: Any
    compare_dialog: Any
    unit_group: Any
    quiet: bool
    _display_units: dict[str, str]
    _select_in_table: Any
    cycles: Any
    document: Any
    metrics: Any
    jobs: Any
    run_status: Any
    state: Any
    showing_snapshot: Snapshot | None
    statusBar: Any
    setCentralWidget: Any

    def _build_timeline(self) -> None:
        """The chart over the overview strip, as the window's centre."""
        self.overview = OverviewStrip()
        centre = QWidget()
        column = QVBoxLayout(centre)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.chart, 1)
        column.addWidget(self.overview)
        self.setCentralWidget(centre)
        self.overview.hide()
        self._follow_width: float | None = None
        self._view_before_follow: tuple[float, float] | None = None
        self._table_timer = QTimer(self.chart)
        self._table_timer.setSingleShot(True)
        self._table_timer.setInterval(TABLE_AFTER_MS)
        self._table_timer.timeout.connect(self.jobs.model.refresh)
        self.chart.view.sigXRangeChanged.connect(self._on_chart_range)
        self.overview.range_moved.connect(lambda a, b: self.chart.view.setXRange(a, b, padding=0))
        self.cycles.selected_job = lambda: self.state.job
        self.cycles.snapshot_shown.connect(self._on_snapshot_shown)
        self.cycles.live_requested.connect(self._on_live_requested)

    def _on_chart_range(self, _view: object, x_range: tuple[float, float]) -> None:
        self.overview.show_range(*x_range)

    def show_overview(self, schedule: Schedule | None) -> None:
        """The strip of the live result (prepared in the run's worker; made here otherwise)."""
        env = self.document.env
        if schedule is None:
            self.overview.set_overview(None)
            return
        ready = prepared.lookup(env, schedule)
        self.overview.set_overview(ready.overview if ready is not None else timeline.overview(env, schedule))
        self.overview.align(self.chart.node_axis.width(), (env.time.start, self.chart._end))
        (x0, x1), _ = self.chart.view.viewRange()
        self.overview.show_range(x0, x1)

    # ------------------------------------------------------------ cycles

    def shown_schedule(self) -> Schedule | None:
        """The schedule on screen: the step shown in Cycles mode, else the live result."""
        return self.showing_snapshot.schedule if self.showing_snapshot else self.document.result

    def _on_snapshot_shown(self, snapshot: Snapshot) -> None:
        self.showing_snapshot = snapshot
        self.chart.set_snapshot(self.document.env, snapshot, self.cycles.navigation.follow.isChecked())
        if self.cycles.navigation.follow.isChecked():
            first = self._follow_width is None
            if first:  # |◀ Reset gives this view back
                self._view_before_follow = tuple(self.chart.view.viewRange()[0])
            width = self.chart.follow_width() if first else None
            self._follow_width = self.chart.follow(snapshot.time, width)
        self.overview.set_now(snapshot.time)
        self.metrics.show_schedule(self.document.env, snapshot.schedule)
        # The Jobs table follows in a later turn of the event loop (and once for a burst of steps):
        # the window paints the step first, and a step never waits for the table's reset and fit.
        # While Play runs it follows once a second, not after every step.
        if not self.cycles.play_button.isChecked():
            self._table_timer.start(TABLE_AFTER_MS)
        elif not self._table_timer.isActive():
            self._table_timer.start(TABLE_PLAYING_MS)
        label = step_label(snapshot.label, snapshot.time, self.chart.time_unit)
        self.statusBar().showMessage(f"Showing step {snapshot.step}: {label}")
        self.run_status.show_step(
            f"Cycles, step {snapshot.step}: {len(snapshot.schedule.windows)} placed so far — "
            "|◀ Reset shows the live result"
        )

    def _on_live_requested(self) -> None:
        self._table_timer.stop()
        self.showing_snapshot = None
        self._follow_width = None
        self.overview.set_now(None)
        self.chart.set_data(self.document.env, self.document.result)
        if self._view_before_follow is not None:
            self.chart.view.setXRange(*self._view_before_follow, padding=0)
            self._view_before_follow = None
        self.metrics.show_schedule(self.document.env, self.document.result)
        self.jobs.model.refresh()
        self.statusBar().clearMessage()  # "Showing step …" is no longer true
        self.run_status.show_step(None)

    # ------------------------------------------------------------ time units, find

    def set_time_unit(self, unit: str) -> None:
        """View ▸ Time unit: every time the window shows follows it (the chart, its tooltips, the
        tables, Metrics, Cycles, Why here? and the exported figure). Only the units the document's
        time can be read in are taken (a file in model units has no days)."""
        if unit not in units_for(self.document.env.time.unit) or unit == self.chart.time_unit:
            return  # (the same unit: every panel shows it already; at 200,000 jobs a reset cost 0.17 s)
        self.chart.set_time_unit(unit)
        self.overview.set_time_unit(unit)
        for dock in (self.jobs, self.nodes, self.tasks):
            dock.model.set_time_unit(unit)
        self.metrics.set_time_unit(unit)
        self.cycles.set_time_unit(unit)
        self.why.set_time_unit(unit)
        if self.compare_dialog is not None:
            self.compare_dialog.set_time_unit(unit)
        for action in self.unit_group.actions():
            action.setChecked(action.data() == unit)
        if self.document.path is not None:
            self._display_units[str(self.document.path)] = unit

    def _units_of_document(self, env: Environment) -> None:
        """Offer the time units the new document's time can be read in (its file says whether it
        counts seconds or model units) and show the one last chosen for this file, else the first."""
        offered = units_for(env.time.unit)
        for action in self.unit_group.actions():
            action.setEnabled(action.data() in offered)
            action.setToolTip(
                "" if action.data() in offered
                else "This document's time is in model units" if env.time.unit == "model"
                else "This document's time is in seconds (a trace or a workload model)"
            )
        kept = self._display_units.get(str(self.document.path)) if self.document.path is not None else None
        # The run's likely span, before any result: from the start to the last arrival plus a long job.
        last = float(job_array(env, "arrival").max()) if env.jobs else env.time.start
        span = last - env.time.start + longest_run(env)
        self.set_time_unit(kept if kept in offered else default_unit(env.time.unit, span))

    def find_dialog(self) -> None:
        """Edit ▸ Find job: ask for an id or a part of a name, then find it."""
        from PySide6.QtWidgets import QInputDialog

        text, ok = QInputDialog.getText(self, "Find job", "Job id, or a part of its name:")
        if ok:
            self.find_job(text)

    def find_job(self, text: str) -> str | None:
        """Select the job ``text`` names (its id, else a part of its name), zoom the chart to its window
        and scroll the Jobs table to its row; say so in the status bar when nothing matches."""
        job_id = find_job(self.document.env, text)
        if job_id is None:
            message = f"No job has the id “{text.strip()}” or a name containing it."
            self.statusBar().showMessage(message, 8000)
            if not self.quiet:
                QMessageBox.information(self, "Find job", message)
            return None
        self.jobs.raise_()
        self.state.select(job_id)
        self._select_in_table()
        if not self.chart.zoom_to_job(job_id):
            self.statusBar().showMessage(f"Found {job_id}; it has no window on the chart", 8000)
        else:
            self.statusBar().showMessage(f"Found {job_id}", 5000)
        return job_id
