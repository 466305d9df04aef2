"""Compare strategies side by side: stacked charts with linked time axes and a metrics table.

The best value of each row is marked (bold, ★). Each strategy runs with its
default parameters, except the document's own strategy, which keeps its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRect, Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QCursor, QFont
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from workbench.engine import registry
from workbench.engine.metrics import FlowMetrics
from workbench.engine.model import Environment
from workbench.engine.schedule import Schedule
from workbench.gui import palette
from workbench.gui.gantt.chart import GanttChart
from workbench.gui.gantt.parts import JobAxis, NumberAxis
from workbench.gui.numbers import TIME_UNITS, time
from workbench.gui.panels import scrolling
from workbench.gui.panels.metrics import format_metric
from workbench.gui.workers import CompareRunner
from workbench.session.document import Document

# (label, attribute, better): better is min or max
ROWS: list[tuple[str, str, str]] = [
    ("mean start", "mean_start", "min"),
    ("mean finish", "mean_finish", "min"),
    ("makespan", "makespan", "min"),
    ("total cost", "total_cost", "min"),
    ("utilisation of capacity", "utilisation", "max"),
    ("utilisation of free slots", "slot_utilisation", "max"),
    ("failures", "failed", "min"),
    ("run time", "elapsed_ms", "min"),
]
DEFAULT_CHOICE = ("FirstFit", "MinCost", "CoP")
MIN_CHART_HEIGHT = 220  # pixels: rows and job names stay readable with many strategies
CHART_PACE_MS = 20  # between the steps of drawing a comparison: each step gets painted on its own
ONLY_ONE = "#9467bd"  # the triangle of a job placed under one of the two strategies
TIP_MS = 30_000  # a per-job bar's tooltip stays this long while the mouse rests on it


def best_columns(values: list[float], better: str) -> set[int]:
    """Indices holding the best value of a row (ties all marked; NaN never best)."""
    finite = [(i, v) for i, v in enumerate(values) if not math.isnan(v)]
    if not finite:
        return set()
    target = (min if better == "min" else max)(v for _, v in finite)
    return {i for i, v in finite if abs(v - target) <= 1e-9 * max(1.0, abs(target))}


@dataclass(frozen=True)
class Differences:
    """Per-job start differences, B minus A, over the jobs both placed (in queue order)."""

    jobs: list[str]
    delta: np.ndarray
    only_a: list[str]
    only_b: list[str]

    @property
    def earlier(self) -> int:
        return int((self.delta < -1e-9).sum())

    @property
    def later(self) -> int:
        return int((self.delta > 1e-9).sum())

    def summary(self, a: str, b: str, unit: str = "model") -> str:
        same = len(self.jobs) - self.earlier - self.later
        parts = [
            f"Under {b}, {self.earlier} jobs start earlier, {self.later} later and {same} at the same time as under {a}"
        ]
        if self.jobs:
            parts.append(f"mean change {time(float(self.delta.mean()), unit)}")
        if self.only_a:
            parts.append(f"{len(self.only_a)} placed only under {a}")
        if self.only_b:
            parts.append(f"{len(self.only_b)} placed only under {b}")
        return "; ".join(parts) + "."


def differences(env: Environment, a: Schedule, b: Schedule) -> Differences:
    jobs = [j.id for j in env.jobs if a.window_of(j.id) is not None and b.window_of(j.id) is not None]
    delta = np.array([b.window_of(j).start - a.window_of(j).start for j in jobs], dtype=float)  # type: ignore[union-attr]
    only_a = [j.id for j in env.jobs if a.window_of(j.id) is not None and b.window_of(j.id) is None]
    only_b = [j.id for j in env.jobs if b.window_of(j.id) is not None and a.window_of(j.id) is None]
    return Differences(jobs, delta, only_a, only_b)


class CompareDialog(QDialog):
    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compare strategies")
        self.resize(1300, 850)
        self.document = document
        self.choices = QListWidget()
        self.fill_choices()
        self.run_button = QPushButton("Compare")
        self.run_button.clicked.connect(self.compare)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.note = QLabel("Tick two or more strategies.")
        self.note.setWordWrap(True)
        left = QVBoxLayout()
        left.addWidget(QLabel("Strategies"))
        left.addWidget(self.choices, 1)
        left.addWidget(self.run_button)
        left.addWidget(self.progress)
        left.addWidget(self.cancel_button)
        left.addWidget(self.note)
        # A scrollable stack: each chart keeps a legible height however many are compared.
        self.charts_box = QVBoxLayout()
        scroll = scrolling(self.charts_box)
        self.table = QTableWidget(len(ROWS), 0)
        self.table.setVerticalHeaderLabels([label for label, _, _ in ROWS])
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)  # a starred value stays on one line
        self.tabs = QTabWidget()
        self.tabs.addTab(scroll, "Charts")
        self.tabs.addTab(self._build_diff_tab(), "Per-job differences")
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.tabs)
        right.addWidget(self.table)
        right.setSizes([650, 200])
        layout = QHBoxLayout(self)
        side = QWidget()
        side.setLayout(left)
        side.setMaximumWidth(220)
        layout.addWidget(side)
        layout.addWidget(right, 1)
        self.charts: list[GanttChart] = []
        self.time_unit = "model"  # View ▸ Time unit, as the main window's
        self.results: dict[str, Schedule] = {}
        self.metrics: dict[str, FlowMetrics] = {}
        self.stale = False
        self.runner = CompareRunner()
        self.runner.progress.connect(self._on_progress)
        self.runner.finished.connect(self._on_finished)
        self._show_running(False)
        # Connected for the dialog's whole life: the main window reopens the same dialog.
        callback = self._on_environment_changed
        document.events.environment.connect(callback)
        self.destroyed.connect(lambda *_: document.events.environment.disconnect(callback))

    def fill_choices(self) -> None:
        """One ticked box per strategy the registry has now (plug-ins loaded since keep it current);
        the ticks already given stay."""
        items = [self.choices.item(i) for i in range(self.choices.count())]
        ticked = {item.text() for item in items if item.checkState() == Qt.CheckState.Checked}
        first = self.choices.count() == 0
        self.choices.clear()
        for info in registry.strategies():
            item = QListWidgetItem(info.name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            on = info.name in DEFAULT_CHOICE if first else info.name in ticked
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
            item.setToolTip(info.description)
            self.choices.addItem(item)

    def _build_diff_tab(self) -> QWidget:
        """evalys-style difference plot: how much later (red) or earlier (green) each job starts under B."""
        self.diff_a, self.diff_b = QComboBox(), QComboBox()
        for combo in (self.diff_a, self.diff_b):
            combo.currentIndexChanged.connect(lambda _: self._draw_diff())
        self.diff_axis = JobAxis("bottom")
        self.diff_plot = pg.PlotWidget(background="w", axisItems={"bottom": self.diff_axis, "left": NumberAxis("left")})
        palette.style_plot(self.diff_plot)
        self.diff_plot.setLabel("bottom", "job (in queue order)")
        self.diff_plot.scene().sigMouseMoved.connect(self._diff_hover)
        self.diff_plot.setLabel("left", "start under B − start under A")
        self.diff_plot.addLine(y=0, pen=pg.mkPen("#404040"))
        self.diff_bars: pg.BarGraphItem | None = None
        self._diff_at: dict[int, int] = {}  # queue position -> the bar's index in self.diff
        self._only_at: dict[int, tuple[str, str]] = {}  # queue position -> (job, the one strategy placing it)
        self._only_items: list[pg.ScatterPlotItem] = []
        self.diff_note = QLabel("")
        self.diff_note.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(QLabel("A:"))
        row.addWidget(self.diff_a, 1)
        row.addWidget(QLabel("B:"))
        row.addWidget(self.diff_b, 1)
        box = QVBoxLayout()
        box.addLayout(row)
        box.addWidget(self.diff_plot, 1)
        box.addWidget(self.diff_note)
        page = QWidget()
        page.setLayout(box)
        return page

    def _fill_diff_choices(self) -> None:
        names = list(self.results)
        for combo, pick in ((self.diff_a, 0), (self.diff_b, 1)):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(names)
            combo.setCurrentIndex(min(pick, len(names) - 1))
            combo.blockSignals(False)
        self._draw_diff()

    def _draw_diff(self) -> None:
        a, b = self.diff_a.currentText(), self.diff_b.currentText()
        if self.diff_bars is not None:
            self.diff_plot.removeItem(self.diff_bars)
            self.diff_bars = None
        for item in self._only_items:
            self.diff_plot.removeItem(item)
        self._only_items = []
        self._diff_at, self._only_at = {}, {}
        if a not in self.results or b not in self.results:
            self.diff_note.setText("")
            return
        env = self.document.env
        self.diff = differences(env, self.results[a], self.results[b])
        order = env.job_index
        x = np.array([order[j] for j in self.diff.jobs], dtype=float)
        self.diff_axis.set_ids([j.id for j in env.jobs])
        self._diff_at = {int(p): k for k, p in enumerate(x)}
        colours = [
            QColor("#2ca02c") if d < -1e-9 else QColor("#d62728") if d > 1e-9 else QColor("#808080")
            for d in self.diff.delta
        ]
        self.diff_bars = pg.BarGraphItem(x=x, height=self.diff.delta, width=0.8, brushes=colours, pen=None)
        self.diff_plot.addItem(self.diff_bars)
        # A job placed under one of the two has no difference to draw: a triangle on the axis marks
        # it (up: placed only under A; down: only under B), so the summary's count can be found.
        for jobs, symbol, under in ((self.diff.only_a, "t1", a), (self.diff.only_b, "t", b)):
            if not jobs:
                continue
            xs = [order[j] for j in jobs]
            self._only_at.update({int(x0): (j, under) for x0, j in zip(xs, jobs, strict=True)})
            marks = pg.ScatterPlotItem(x=xs, y=[0.0] * len(xs), symbol=symbol, size=9, brush=QColor(ONLY_ONE), pen=None)
            self.diff_plot.addItem(marks)
            self._only_items.append(marks)
        self.diff_plot.autoRange()
        self.diff_note.setText(
            self.diff.summary(a, b, self.time_unit)
            + " Green: starts earlier under B; red: later; grey: unchanged; a purple triangle: placed under one only."
        )

    def diff_tip(self, x: float) -> str:
        """The tooltip of the bar at queue position ``x`` (a point of the plot): the job's id and
        name, both starts and the difference; empty away from a bar."""
        k = self._diff_at.get(round(x)) if abs(x - round(x)) <= 0.4 else None
        if k is None:
            only = self._only_at.get(round(x)) if abs(x - round(x)) <= 0.4 else None
            if only is None:
                return ""
            job_id, under = only
            job = self.document.env.job(job_id)
            return f"{job.name} ({job.id}): placed only under {under}, so no difference to draw"
        env, a, b = self.document.env, self.diff_a.currentText(), self.diff_b.currentText()
        job = env.jobs[env.job_index[self.diff.jobs[k]]]
        start_a = self.results[a].window_of(job.id).start  # type: ignore[union-attr]
        start_b = self.results[b].window_of(job.id).start  # type: ignore[union-attr]
        d = float(self.diff.delta[k])
        later = "later" if d > 0 else "earlier"
        change = "the same start" if abs(d) <= 1e-9 else f"{time(abs(d), self.time_unit)} {later}"
        return (
            f"{job.name} ({job.id}): {change} under {b}\n"
            f"start under {a}: {time(start_a, self.time_unit)}; under {b}: {time(start_b, self.time_unit)}"
        )

    def _diff_hover(self, pos: object) -> None:
        if not self._diff_at and not self._only_at:
            return
        point = self.diff_plot.getPlotItem().vb.mapSceneToView(pos)
        tip = self.diff_tip(point.x())
        if tip:
            # Kept while the mouse rests on the bar (Qt's default hid it after about a second).
            QToolTip.showText(QCursor.pos(), tip, self.diff_plot, QRect(), TIP_MS)
        else:
            QToolTip.hideText()

    def chosen(self) -> list[str]:
        return [
            self.choices.item(i).text()
            for i in range(self.choices.count())
            if self.choices.item(i).checkState() == Qt.CheckState.Checked
        ]

    def set_chosen(self, names: list[str]) -> None:
        for i in range(self.choices.count()):
            item = self.choices.item(i)
            item.setCheckState(Qt.CheckState.Checked if item.text() in names else Qt.CheckState.Unchecked)

    @property
    def running(self) -> bool:
        """Running the strategies, or still adding their charts."""
        return self.runner.busy or self.drawing

    def compare(self) -> None:
        """Run the ticked strategies in the background; the window stays responsive."""
        names = self.chosen()
        if len(names) < 2:
            self.note.setText("Tick two or more strategies.")
            return
        env = self.document.env
        runs = [(name, env.strategy.params_dict() if name == env.strategy.name else {}) for name in names]
        self._show_running(True)
        self.progress.setRange(0, len(runs))
        self.progress.setValue(0)
        self.note.setText(f"Running {len(runs)} strategies…")
        self.runner.start(env, runs)

    def cancel(self) -> None:
        self.runner.stop()
        self._show_running(False)
        self.note.setText("Cancelled." + (" The charts show the previous comparison." if self.results else ""))

    def _show_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.progress.setVisible(running)
        self.cancel_button.setVisible(running)

    def _on_progress(self, done: int, total: int) -> None:
        if self.runner.busy:
            self.progress.setValue(done)

    def _on_finished(self, results: dict[str, Schedule], metrics: dict[str, FlowMetrics], errors: list[str]) -> None:
        if not self.runner.busy:
            return  # cancelled meanwhile
        self.runner.busy = False
        self._show_running(False)
        self.results, self.metrics, self.stale = results, metrics, False
        self.run_button.setText("Compare")
        self.note.setText("\n".join(errors) or f"{len(self.results)} strategies compared.")
        self._fill_table()
        self._draw_charts()

    def _on_environment_changed(self, env: object) -> None:
        if self.results and not self.stale:
            self.stale = True
            self.run_button.setText("Compare again")
            self.note.setText("⚠ Stale: the environment changed after this comparison. Compare again to update it.")

    def _draw_charts(self) -> None:
        """One chart per strategy, built over several turns of the event loop, so that four or eight
        charts of a long trace never hold up the window: a cheap placeholder per strategy first (the
        layout settles once, instead of shrinking every chart as each new one arrives), then, a turn
        each, a chart is made, filled and put in its placeholder's place; the difference plot last."""
        for chart in self.charts:
            chart.setParent(None)
            chart.deleteLater()
        while (item := self.charts_box.takeAt(0)) is not None:
            if item.widget() is not None:
                item.widget().deleteLater()
        self.charts = []
        env = self.document.env
        ends = [max((w.end for w in r.windows), default=env.time.start) for r in self.results.values()]
        x_range = (env.time.start, max(ends, default=env.time.start))
        self._steps: list[Callable[[], None]] = []
        for name, result in self.results.items():
            holder = QLabel(f"Drawing {name}…")
            holder.setAlignment(Qt.AlignmentFlag.AlignCenter)
            holder.setMinimumHeight(MIN_CHART_HEIGHT)
            self.charts_box.addWidget(holder)
            made: list[GanttChart] = []
            self._steps.append(lambda n=name, m=made: m.append(self._make_chart(n)))
            self._steps.append(lambda h=holder, r=result, m=made: self._fill_chart(m[0], h, r, x_range))
        self._steps.append(self._fill_diff_choices)
        self._generation = getattr(self, "_generation", 0) + 1
        self._next_step(self._generation)

    def _next_step(self, generation: int) -> None:
        if generation != self._generation or not self._steps:
            return
        self._steps.pop(0)()
        if self._steps:
            QTimer.singleShot(CHART_PACE_MS, lambda: self._next_step(generation))

    def _make_chart(self, name: str) -> GanttChart:
        chart = GanttChart(editable=False)
        chart.caption = name
        chart.set_time_unit(self.time_unit)
        chart.setMinimumHeight(MIN_CHART_HEIGHT)
        return chart

    def _fill_chart(self, chart: GanttChart, holder: QWidget, result: Schedule, x_range: tuple[float, float]) -> None:
        chart.set_data(self.document.env, result, fit=True)
        # The linked time axis covers every schedule, not only the first one's: each chart starts there.
        if self.charts:  # join the others where they are (the user may have zoomed meanwhile)
            chart.view.setXRange(*self.charts[0].view.viewRange()[0], padding=0)
        elif x_range[1] > x_range[0]:
            chart.view.setXRange(*x_range, padding=0.02)
        # Linked by value, not by pyqtgraph's XLink, which aligns by pixels and shifts a chart that
        # is not laid out yet.
        chart.view.sigXRangeChanged.connect(self._on_x_range)
        self.charts_box.replaceWidget(holder, chart)
        holder.deleteLater()
        self.charts.append(chart)

    def _on_x_range(self, view: pg.ViewBox, x_range: tuple[float, float]) -> None:
        if getattr(self, "_syncing", False):
            return
        self._syncing = True
        try:
            for chart in self.charts:
                if chart.view is not view:
                    chart.view.setXRange(*x_range, padding=0)
        finally:
            self._syncing = False

    @property
    def drawing(self) -> bool:
        """Charts (or the difference plot) still to be drawn from the last comparison."""
        return bool(getattr(self, "_steps", None))

    def _fill_table(self) -> None:
        names = list(self.results)
        self.table.setColumnCount(len(names))
        self.table.setHorizontalHeaderLabels(names)
        bold = QFont()
        bold.setBold(True)
        for row, (_label, key, better) in enumerate(ROWS):
            values = [self._value(name, key) for name in names]
            best = best_columns(values, better)
            for col, value in enumerate(values):
                text = format_metric(key, value, self.time_unit)
                item = QTableWidgetItem(("★ " if col in best else "") + text)
                if col in best:
                    item.setFont(bold)
                    item.setBackground(QBrush(QColor("#d9f2d9")))
                    item.setForeground(QBrush(QColor("#000000")))  # readable on a dark theme too
                self.table.setItem(row, col, item)
        self.table.resizeColumnsToContents()

    def set_time_unit(self, unit: str) -> None:
        """View ▸ Time unit: the charts, the difference plot and the table follow the main window."""
        self.time_unit = unit
        for chart in self.charts:
            chart.set_time_unit(unit)
        self.diff_plot.getPlotItem().getAxis("left").setScale(1.0 / TIME_UNITS[unit][1])
        what = "start under B − start under A"
        self.diff_plot.setLabel("left", what if unit == "model" else f"{what} ({TIME_UNITS[unit][0]})")
        if self.results:
            self._fill_table()
            self._draw_diff()

    def _value(self, name: str, key: str) -> float:
        if key == "elapsed_ms":
            return self.results[name].elapsed_ms
        return float(getattr(self.metrics[name], key))
