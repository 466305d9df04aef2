"""Metrics panel: the flow measures and one row per placed job.

While the numbers are an earlier environment's (an edit's run is pending), a note in the tab bar's
corner says so (the view state's status, ``session/state.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QHeaderView, QLabel, QTableView, QTableWidget, QTableWidgetItem, QTabWidget

from workbench.engine.io.result import work_of
from workbench.engine.metrics import FlowMetrics, JobMetrics, definition, flow_metrics, job_rows, window_arrays
from workbench.engine.model import Environment
from workbench.engine.schedule import Schedule
from workbench.gui import prepared
from workbench.gui.bridge import DocumentBridge
from workbench.gui.numbers import TIME_UNITS, duration_ms, in_unit, mean_time, number, time, unit_suffix
from workbench.gui.workers import BackgroundCall

FLOW_ROWS: list[tuple[str, str]] = [
    ("jobs placed", "placed"),
    ("failed (Y)", "failed"),
    ("mean start", "mean_start"),
    ("mean finish", "mean_finish"),
    ("mean wait", "mean_wait"),
    ("mean response", "mean_response"),
    ("mean slowdown", "mean_slowdown"),
    ("mean bounded slowdown (τ = 10)", "mean_bounded_slowdown"),
    ("makespan", "makespan"),
    ("total cost", "total_cost"),
    ("total CPU time", "total_cpu_time"),
    ("utilisation of capacity", "utilisation"),
    ("utilisation of free slots", "slot_utilisation"),
    ("AWRT", "awrt"),
    ("alternatives per job (N_A)", "mean_alternatives"),
]
# What a dynamic run had to do (``result.work_of``): shown under the measures; "—" for a strategy that
# plans each job once.
WORK_ROWS: list[tuple[str, str, str]] = [
    ("early completions", "early", "jobs that ended before their reserved end: each one plans the queue again"),
    ("re-checks", "checks", "waiting jobs searched again after a freed gap cleared their certificate"),
    ("window searches", "searches", "window searches in all: arrivals, re-checks and moves"),
    ("moves", "moves", "reservations moved earlier"),
]
JOB_COLUMNS = [
    "job",
    "start",
    "finish",
    "actual",
    "wait",
    "response",
    "runtime",
    "cost",
    "n·T",
    "slowdown",
    "bounded slowdown",
]
# The measures that are times (or node-times), shown in View ▸ Time unit.
TIME_KEYS = frozenset(
    {"mean_start", "mean_finish", "mean_wait", "mean_response", "makespan", "total_cpu_time", "awrt"}
    | {"start", "finish", "actual_finish", "wait", "runtime", "cpu_time", "response"}
)

MEAN_KEYS = frozenset({"mean_start", "mean_finish", "mean_wait", "mean_response", "awrt"})


def format_metric(key: str, value: float, unit: str = "model") -> str:
    if isinstance(value, float) and math.isnan(value):
        return "—"
    if key in ("utilisation", "slot_utilisation"):
        return f"{100 * value:.1f} %"
    if key == "elapsed_ms":
        return duration_ms(value)
    if key in TIME_KEYS:
        if key == "total_cpu_time" and unit != "model":  # nodes × time
            return f"{number(in_unit(value, unit))} node·{TIME_UNITS[unit][2]}"
        return mean_time(value, unit) if key in MEAN_KEYS else time(value, unit)
    return number(value)


class JobMetricsModel(QAbstractTableModel):
    """One row per placed job, read on demand (a flow may have tens of thousands)."""

    FIELDS = (
        "job",
        "start",
        "finish",
        "actual_finish",
        "wait",
        "response",
        "runtime",
        "cost",
        "cpu_time",
        "slowdown",
        "bounded_slowdown",
    )

    def __init__(self) -> None:
        super().__init__()
        self.rows: Sequence[JobMetrics] = []
        self.time_unit = "model"  # View ▸ Time unit

    def set_rows(self, rows: Sequence[JobMetrics]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return len(JOB_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            timed = self.FIELDS[section] in TIME_KEYS
            return JOB_COLUMNS[section] + (unit_suffix(self.time_unit) if timed else "")
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        field = self.FIELDS[index.column()]
        value = getattr(self.rows[index.row()], field)
        if isinstance(value, str):
            return value
        return number(in_unit(value, self.time_unit) if field in TIME_KEYS else value)

    def set_time_unit(self, unit: str) -> None:
        self.beginResetModel()
        self.time_unit = unit
        self.endResetModel()
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(JOB_COLUMNS) - 1)


MEASURED_HERE = 2000  # windows of a schedule measured on the GUI thread; more go to a worker


def _measure(env: Environment, schedule: Schedule) -> tuple[FlowMetrics, Sequence[JobMetrics]]:
    columns = window_arrays(env, schedule)
    return flow_metrics(env, schedule, arrays=columns), job_rows(env, schedule, arrays=columns)


class MetricsPanel(QTabWidget):
    def __init__(self, bridge: DocumentBridge | None = None) -> None:
        super().__init__()
        self.bridge = bridge
        self.flow = QTableWidget(len(FLOW_ROWS) + len(WORK_ROWS), 1)
        self.flow.setHorizontalHeaderLabels(["value"])
        self.flow.setVerticalHeaderLabels([label for label, _ in FLOW_ROWS] + [label for label, _, _ in WORK_ROWS])
        for row, (_, key) in enumerate(FLOW_ROWS):  # each row's definition (docs/metrics.md) as its tooltip
            self.flow.verticalHeaderItem(row).setToolTip(definition(key).text())
        for row, (_, _, text) in enumerate(WORK_ROWS, start=len(FLOW_ROWS)):
            self.flow.verticalHeaderItem(row).setToolTip(f"the run's work: {text}")
        self.work: dict[str, int] | None = None
        self.flow.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.flow.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.job_model = JobMetricsModel()
        self.jobs = QTableView()
        self.jobs.setModel(self.job_model)
        self.jobs.verticalHeader().setVisible(False)
        self.addTab(self.flow, "Flow")
        self.addTab(self.jobs, "Jobs")
        self.current: FlowMetrics | None = None
        self.stale_note = QLabel("previous result")
        self.stale_note.setToolTip("These are the numbers before the last change; the new ones are on their way")
        self.stale_note.setStyleSheet("color: #8a5a00; font-style: italic; padding-right: 4px;")
        self.setCornerWidget(self.stale_note, Qt.Corner.TopRightCorner)
        self.stale_note.hide()
        if bridge is not None:
            bridge.status_changed.connect(self._on_status_changed)
        self.measuring = BackgroundCall()
        self.measuring.finished.connect(self._measured)

        self.time_unit = "model"  # View ▸ Time unit

    def _on_status_changed(self, _status: str) -> None:
        assert self.bridge is not None
        self.stale_note.setVisible(self.bridge.state.stale and self.current is not None)

    def set_time_unit(self, unit: str) -> None:
        self.time_unit = unit
        self.job_model.set_time_unit(unit)
        if self.current is not None:
            self._show_flow(self.current)

    def _show_flow(self, metrics: FlowMetrics) -> None:
        for row, (_, key) in enumerate(FLOW_ROWS):
            self.flow.setItem(row, 0, QTableWidgetItem(format_metric(key, getattr(metrics, key), self.time_unit)))
        self._show_work()

    def _show_work(self) -> None:
        for row, (_, key, _) in enumerate(WORK_ROWS, start=len(FLOW_ROWS)):
            text = f"{self.work[key]:,}" if self.work is not None else "—"
            self.flow.setItem(row, 0, QTableWidgetItem(text))

    def show_schedule(self, env: Environment, schedule: Schedule | None, elapsed_ms: float | None = None) -> None:
        self.measuring.stop()  # an answer for an earlier schedule would no longer hold
        self.work = None if schedule is None else work_of(schedule)
        if schedule is None:
            self.current = None
            for row in range(self.flow.rowCount()):
                self.flow.setItem(row, 0, QTableWidgetItem("—"))
            self.job_model.set_rows([])
            return
        ready = prepared.lookup(env, schedule)
        if ready is not None:
            self._show_measured(ready.metrics, ready.jobs)
            return
        if len(schedule.windows) <= MEASURED_HERE:
            self._show_measured(*_measure(env, schedule))
            return
        # A step of a trace in Cycles mode (9,000 windows: 150 ms): measured in a worker, the last
        # step asked for only, so that stepping and jumping never wait for it.
        self.measuring.start(lambda token: _measure(env, schedule))

    def _measured(self, ticket: int, answer: object, error: str | None) -> None:
        if ticket == self.measuring.ticket and error is None and isinstance(answer, tuple):
            self._show_measured(*answer)

    def _show_measured(self, metrics: FlowMetrics, jobs: Sequence[JobMetrics]) -> None:
        self.current = metrics
        self._show_flow(metrics)
        self.job_model.set_rows(jobs)
