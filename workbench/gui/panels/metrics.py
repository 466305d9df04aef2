"""Metrics panel: the flow measures and one row per placed job."""

from __future__ import annotations

import math

from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem, QTabWidget

from workbench.engine.metrics import FlowMetrics, flow_metrics, job_metrics
from workbench.engine.model import Environment
from workbench.engine.schedule import Schedule

FLOW_ROWS: list[tuple[str, str]] = [
    ("jobs placed", "placed"),
    ("failed (Y)", "failed"),
    ("mean start", "mean_start"),
    ("mean finish", "mean_finish"),
    ("makespan", "makespan"),
    ("total cost", "total_cost"),
    ("total CPU time", "total_cpu_time"),
    ("utilisation", "utilisation"),
    ("AWRT", "awrt"),
    ("alternatives per job (N_A)", "mean_alternatives"),
]
JOB_COLUMNS = ["job", "start", "finish", "actual", "wait", "runtime", "cost", "n·T", "slowdown"]


def format_metric(key: str, value: float) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "—"
    if key == "utilisation":
        return f"{100 * value:.1f} %"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


class MetricsPanel(QTabWidget):
    def __init__(self) -> None:
        super().__init__()
        self.flow = QTableWidget(len(FLOW_ROWS), 1)
        self.flow.setHorizontalHeaderLabels(["value"])
        self.flow.setVerticalHeaderLabels([label for label, _ in FLOW_ROWS])
        self.flow.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.flow.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.jobs = QTableWidget(0, len(JOB_COLUMNS))
        self.jobs.setHorizontalHeaderLabels(JOB_COLUMNS)
        self.jobs.verticalHeader().setVisible(False)
        self.jobs.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.addTab(self.flow, "Flow")
        self.addTab(self.jobs, "Jobs")
        self.current: FlowMetrics | None = None

    def show_schedule(self, env: Environment, schedule: Schedule | None, elapsed_ms: float | None = None) -> None:
        if schedule is None:
            self.current = None
            for row in range(len(FLOW_ROWS)):
                self.flow.setItem(row, 0, QTableWidgetItem("—"))
            self.jobs.setRowCount(0)
            return
        metrics = flow_metrics(env, schedule)
        self.current = metrics
        for row, (_, key) in enumerate(FLOW_ROWS):
            self.flow.setItem(row, 0, QTableWidgetItem(format_metric(key, getattr(metrics, key))))
        per_job = job_metrics(env, schedule)
        self.jobs.setRowCount(len(per_job))
        for row, m in enumerate(per_job):
            values = [m.job, m.start, m.finish, m.actual_finish, m.wait, m.runtime, m.cost, m.cpu_time, m.slowdown]
            for col, value in enumerate(values):
                self.jobs.setItem(row, col, QTableWidgetItem(value if isinstance(value, str) else f"{value:.4g}"))
