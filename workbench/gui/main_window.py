"""The main window: the Gantt chart in the centre, strategy, jobs and metrics beside it."""

from __future__ import annotations

import math
import time
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QFileDialog,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.engine import registry
from workbench.engine.errors import WorkbenchError
from workbench.engine.io.envfile import load_environment
from workbench.engine.metrics import flow_metrics
from workbench.engine.model import Environment
from workbench.engine.schedule import Schedule
from workbench.gui import palette
from workbench.gui.gantt.chart import GanttChart

JOB_COLUMNS = ["id", "name", "n", "p", "V", "budget", "arrival", "start", "end", "cost", "status"]


def _fmt(value: float) -> str:
    return "∞" if math.isinf(value) else f"{value:.4g}"


class MainWindow(QMainWindow):
    def __init__(self, env: Environment, path: Path | None = None) -> None:
        super().__init__()
        self.env = env
        self.path = path
        self.schedule: Schedule | None = None
        self.strategy = env.strategy.name
        self.params = env.strategy.params_dict()
        self.chart = GanttChart(self)
        self.setCentralWidget(self.chart)
        self._build_strategy_dock()
        self._build_jobs_dock()
        self._build_metrics_dock()
        self._build_menus()
        self.chart.job_clicked.connect(self._on_job_clicked)
        self.resize(1500, 900)
        self._update_title()

    # ------------------------------------------------------------ layout

    def _build_strategy_dock(self) -> None:
        box = QWidget()
        layout = QVBoxLayout(box)
        self.strategy_combo = QComboBox()
        for info in registry.strategies():
            self.strategy_combo.addItem(info.name)
            self.strategy_combo.setItemData(
                self.strategy_combo.count() - 1, info.description, Qt.ItemDataRole.ToolTipRole
            )
        self.strategy_combo.setCurrentText(self.strategy)
        self.strategy_combo.currentTextChanged.connect(self._on_strategy_changed)
        self.strategy_help = QLabel()
        self.strategy_help.setWordWrap(True)
        run = QPushButton("Run")
        run.setShortcut(QKeySequence("F5"))
        run.clicked.connect(self.run_strategy)
        layout.addWidget(QLabel("Strategy"))
        layout.addWidget(self.strategy_combo)
        layout.addWidget(self.strategy_help)
        layout.addWidget(run)
        layout.addStretch(1)
        dock = QDockWidget("Strategy", self)
        dock.setObjectName("strategy")
        dock.setWidget(box)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        self._on_strategy_changed(self.strategy)

    def _build_jobs_dock(self) -> None:
        self.jobs_table = QTableWidget(0, len(JOB_COLUMNS))
        self.jobs_table.setHorizontalHeaderLabels(JOB_COLUMNS)
        self.jobs_table.verticalHeader().setVisible(False)
        self.jobs_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.jobs_table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.jobs_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.jobs_table.itemSelectionChanged.connect(self._on_table_selection)
        dock = QDockWidget("Jobs", self)
        dock.setObjectName("jobs")
        dock.setWidget(self.jobs_table)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)

    def _build_metrics_dock(self) -> None:
        self.metrics_label = QLabel()
        self.metrics_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.metrics_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        dock = QDockWidget("Metrics", self)
        dock.setObjectName("metrics")
        dock.setWidget(self.metrics_label)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        open_action = QAction("&Open…", self, shortcut=QKeySequence.StandardKey.Open, triggered=self.open_dialog)
        quit_action = QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit, triggered=self.close)
        file_menu.addAction(open_action)
        file_menu.addSeparator()
        file_menu.addAction(quit_action)
        view_menu = self.menuBar().addMenu("&View")
        fit = QAction("Zoom to &fit", self, shortcut=QKeySequence("F"), triggered=self.chart.fit)
        view_menu.addAction(fit)

    # ------------------------------------------------------------ actions

    def open_dialog(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Open environment", "", "Environments (*.json)")
        if name:
            self.open_path(Path(name))

    def open_path(self, path: Path) -> bool:
        try:
            env = load_environment(path)
        except WorkbenchError as exc:
            QMessageBox.critical(self, "Cannot open environment", f"{path}\n\n{exc}")
            return False
        self.env, self.path = env, path
        self.strategy_combo.setCurrentText(env.strategy.name)
        self.params = env.strategy.params_dict()
        self._update_title()
        self.run_strategy()
        return True

    def run_strategy(self) -> None:
        began = time.perf_counter()
        try:
            self.schedule = registry.run(self.env, self.strategy, self.params)
        except WorkbenchError as exc:
            self.schedule = None
            self.statusBar().showMessage(f"{self.strategy}: error: {exc}")
            self._refresh()
            return
        wall = (time.perf_counter() - began) * 1000.0
        s = self.schedule
        self.statusBar().showMessage(
            f"{self.strategy}: {len(s.windows)} placed, {len(s.unscheduled)} failed — "
            f"{s.elapsed_ms:.1f} ms compute ({wall:.1f} ms with diagnosis)"
        )
        self._refresh()

    def _refresh(self) -> None:
        self.chart.set_data(self.env, self.schedule)
        self._fill_jobs()
        self._fill_metrics()

    def _fill_jobs(self) -> None:
        table = self.jobs_table
        table.blockSignals(True)
        table.setRowCount(len(self.env.jobs))
        schedule = self.schedule
        for row, job in enumerate(self.env.jobs):
            w = schedule.window_of(job.id) if schedule else None
            status = "placed" if w else (schedule.reasons.get(job.id, "") if schedule else "")
            values = [
                job.id,
                job.name,
                str(job.node_count),
                _fmt(job.min_performance),
                _fmt(job.volume),
                _fmt(job.budget),
                _fmt(job.arrival),
                _fmt(w.start) if w else "",
                _fmt(w.end) if w else "",
                _fmt(w.cost) if w else "",
                status,
            ]
            for col, text in enumerate(values):
                item = QTableWidgetItem(text)
                if col == 0:
                    item.setBackground(palette.job_colour(row))
                    item.setForeground(palette.text_colour_on(palette.job_colour(row)))
                if col == len(values) - 1 and not w:
                    item.setToolTip(text)
                table.setItem(row, col, item)
        table.blockSignals(False)

    def _fill_metrics(self) -> None:
        if self.schedule is None:
            self.metrics_label.setText("no result")
            return
        m = flow_metrics(self.env, self.schedule)
        rows = [
            ("jobs placed", f"{m.placed} of {m.jobs}"),
            ("failed", str(m.failed)),
            ("mean start", _fmt(m.mean_start)),
            ("mean finish", _fmt(m.mean_finish)),
            ("makespan", _fmt(m.makespan)),
            ("total cost", _fmt(m.total_cost)),
            ("utilisation", f"{100 * m.utilisation:.1f} %"),
            ("compute time", f"{self.schedule.elapsed_ms:.1f} ms"),
        ]
        html = "".join(f"<tr><td>{k}</td><td align='right'><b>{v}</b></td></tr>" for k, v in rows)
        self.metrics_label.setText(f"<table cellspacing='4'>{html}</table>")

    def _update_title(self) -> None:
        name = self.path.name if self.path else "untitled"
        self.setWindowTitle(f"{name} — {self.env.name} — Slot Workbench")

    # ------------------------------------------------------------ handlers

    def _on_strategy_changed(self, name: str) -> None:
        try:
            info = registry.get(name)
        except WorkbenchError:
            return
        if info.name != self.strategy:
            self.params = {}
        self.strategy = info.name
        self.strategy_help.setText(f"<i>{info.family}</i>: {info.description}")

    def _on_job_clicked(self, job_id: str) -> None:
        row = self.env.job_index.get(job_id)
        if row is not None:
            self.jobs_table.selectRow(row)

    def _on_table_selection(self) -> None:
        rows = {index.row() for index in self.jobs_table.selectedIndexes()}
        job_id = self.env.jobs[min(rows)].id if rows else None
        self.chart.set_selected(job_id)
