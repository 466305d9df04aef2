"""The Gantt chart: a row per node, time left to right, one batched item per layer.

Layers, bottom to top: free slots (faint), local tasks by kind, job windows
coloured per job, the selection outline. Hovering shows a tooltip; clicking a
window selects its job (``job_clicked``).
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QFont

from workbench.engine.model import Environment, Window
from workbench.engine.schedule import Schedule
from workbench.engine.selectors import slot_distances
from workbench.engine.slots import SlotTable
from workbench.gui import palette
from workbench.gui.gantt.layers import RectLayer

ROW_HEIGHT = 0.8
MAX_LABELS = 400


class NodeAxis(pg.AxisItem):
    """Left axis: one tick per node row, labelled with name, performance and price."""

    def __init__(self) -> None:
        super().__init__("left")
        self._labels: list[str] = []
        self.setStyle(tickTextOffset=6)

    def set_labels(self, labels: list[str]) -> None:
        self._labels = labels
        self.setTicks([[(i + ROW_HEIGHT / 2, text) for i, text in enumerate(labels)], []])
        width = max((len(t) for t in labels), default=4)
        self.setWidth(min(40 + 6.2 * width, 260))


class GanttChart(pg.PlotWidget):
    """Draws an environment and a schedule; emits the job under a click."""

    job_clicked = Signal(str)

    def __init__(self, parent: object = None) -> None:
        self.node_axis = NodeAxis()
        super().__init__(parent=parent, axisItems={"left": self.node_axis})
        self.setBackground("w")
        plot = self.getPlotItem()
        plot.invertY(True)
        plot.showGrid(x=True, y=False, alpha=0.25)
        plot.setLabel("bottom", "time (model units)")
        plot.setMenuEnabled(False)
        plot.hideButtons()
        self.getViewBox().setMouseEnabled(x=True, y=True)
        self.slots = RectLayer(z=0)
        self.tasks = RectLayer(z=1)
        self.windows = RectLayer(z=2)
        self.selection = RectLayer(z=3)
        for layer in (self.slots, self.tasks, self.windows, self.selection):
            self.addItem(layer)
        self._labels: list[pg.TextItem] = []
        self._lines: list[pg.InfiniteLine] = []
        self.env: Environment | None = None
        self.schedule: Schedule | None = None
        self._window_list: list[Window] = []
        self._window_rect_job: np.ndarray = np.empty(0, dtype=np.int64)
        self._table: SlotTable | None = None
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.scene().sigMouseClicked.connect(self._on_mouse_clicked)

    # ------------------------------------------------------------ drawing

    def set_data(self, env: Environment, schedule: Schedule | None) -> None:
        self.env, self.schedule = env, schedule
        index = env.node_index
        self.node_axis.set_labels([f"{n.name}  p={n.performance:g}  c={n.price:g}" for n in env.nodes])
        windows = list(schedule.windows) if schedule else []
        self._window_list = windows
        table = SlotTable.from_environment(env, windows)
        self._table = SlotTable.from_environment(env)  # slots before any window: for L_left/L_right
        end = self._visible_end(env, windows)
        slot_end = np.minimum(table.end, end)
        self.slots.set_rects(
            table.start,
            table.node + (1 - ROW_HEIGHT) / 2 + 0.25 * ROW_HEIGHT,
            slot_end - table.start,
            np.full(table.size, ROW_HEIGHT * 0.5),
            np.zeros(table.size, dtype=np.int64),
            [QColor(palette.FREE_SLOT)],
        )
        kinds = list(palette.TASK_COLOURS)
        tasks = env.local_tasks
        self.tasks.set_rects(
            np.array([t.start for t in tasks]),
            np.array([index[t.node] for t in tasks], float),
            np.array([t.end - t.start for t in tasks]),
            np.full(len(tasks), ROW_HEIGHT),
            np.array([kinds.index(t.kind) for t in tasks], dtype=np.int64),
            [QColor(palette.TASK_COLOURS[k]) for k in kinds],
        )
        self._draw_windows(env, windows)
        self._draw_lines(env)
        self.set_selected(None)
        self.fit()

    def _draw_windows(self, env: Environment, windows: list[Window]) -> None:
        index = env.node_index
        job_pos = env.job_index
        xs, ys, ws, groups, owner = [], [], [], [], []
        for k, w in enumerate(windows):
            for node_id in w.nodes:
                xs.append(w.start)
                ys.append(index[node_id])
                ws.append(w.length)
                groups.append(job_pos[w.job] % len(palette.JOB_COLOURS))
                owner.append(k)
        self._window_rect_job = np.array(owner, dtype=np.int64)
        colours = [QColor(c) for c in palette.JOB_COLOURS]
        self.windows.set_rects(
            np.array(xs),
            np.array(ys, float),
            np.array(ws),
            np.full(len(xs), ROW_HEIGHT),
            np.array(groups, dtype=np.int64),
            colours,
            [QColor("#202020")] * len(colours),
        )
        for item in self._labels:
            self.removeItem(item)
        self._labels = []
        if len(windows) > MAX_LABELS:
            return
        font = QFont()
        font.setPointSize(8)
        for w in windows:
            colour = QColor(palette.JOB_COLOURS[job_pos[w.job] % len(palette.JOB_COLOURS)])
            rows = sorted(index[n] for n in w.nodes)
            label = pg.TextItem(env.job(w.job).name, color=palette.text_colour_on(colour), anchor=(0.5, 0.5))
            label.setFont(font)
            label.setPos(w.start + w.length / 2, rows[0] + ROW_HEIGHT / 2)
            label.setZValue(4)
            self.addItem(label)
            self._labels.append(label)

    def _draw_lines(self, env: Environment) -> None:
        for line in self._lines:
            self.removeItem(line)
        self._lines = []
        t = env.time
        if t.cycle_length:
            end = t.horizon if t.horizon is not None else t.start + 20 * t.cycle_length
            k = 1
            while t.start + k * t.cycle_length < end - 1e-9 and k < 200:
                self._add_line(t.start + k * t.cycle_length, "#7f7f7f", Qt.PenStyle.DashLine)
                k += 1
        if t.horizon is not None:
            self._add_line(t.horizon, "#404040", Qt.PenStyle.SolidLine)
        self._add_line(t.start, "#d62728", Qt.PenStyle.SolidLine)

    def _add_line(self, x: float, colour: str, style: Qt.PenStyle) -> None:
        line = pg.InfiniteLine(pos=x, angle=90, pen=pg.mkPen(colour, width=1.5, style=style))
        line.setZValue(5)
        self.addItem(line)
        self._lines.append(line)

    @staticmethod
    def _visible_end(env: Environment, windows: list[Window]) -> float:
        if env.time.horizon is not None:
            return env.time.horizon
        ends = [w.end for w in windows] + [t.end for t in env.local_tasks] + [env.time.start + 1.0]
        return max(ends) * 1.05

    def fit(self) -> None:
        """Zoom to show every node and the whole scheduling interval."""
        if self.env is None:
            return
        end = self._visible_end(self.env, self._window_list)
        self.getViewBox().setRange(xRange=(self.env.time.start, end), yRange=(-0.2, len(self.env.nodes)), padding=0.02)

    def set_selected(self, job_id: str | None) -> None:
        """Outline every part of the job's window (or clear the outline)."""
        if self.env is None or job_id is None:
            self.selection.set_rects(np.empty(0), np.empty(0), np.empty(0), np.empty(0), np.empty(0), [])
            return
        index = self.env.node_index
        parts = [(w.start, index[n], w.length) for w in self._window_list if w.job == job_id for n in w.nodes]
        if not parts:
            self.selection.set_rects(np.empty(0), np.empty(0), np.empty(0), np.empty(0), np.empty(0), [])
            return
        x, y, w = (np.array(v, float) for v in zip(*parts, strict=True))
        pen = QColor(palette.HIGHLIGHT)
        self.selection.set_rects(
            x,
            y - 0.06,
            w,
            np.full(x.size, ROW_HEIGHT + 0.12),
            np.zeros(x.size, dtype=np.int64),
            [QColor(0, 0, 0, 0)],
            [pen],
        )

    # ------------------------------------------------------------ interaction

    def window_at(self, point: QPointF) -> Window | None:
        hit = self.windows.index_at(point)
        return None if hit is None else self._window_list[int(self._window_rect_job[hit])]

    def tooltip_at(self, point: QPointF) -> str:
        """What is under a point: a window, a local task, or a free slot."""
        env = self.env
        if env is None:
            return ""
        window = self.window_at(point)
        if window is not None:
            job = env.job(window.job)
            lines = [
                f"<b>{job.name}</b> ({job.id})",
                f"start {window.start:g}, end {window.end:g}, length {window.length:.4g}",
                f"cost {window.cost:.4g} of budget {'∞' if math.isinf(job.budget) else f'{job.budget:g}'}",
            ]
            if self._table is not None:
                try:
                    left, right = slot_distances(self._table, window)
                except ValueError:
                    left = right = None
                names = {n.id: n.name for n in env.nodes}
                for k, node_id in enumerate(window.nodes):
                    extra = "" if left is None else f": L_left {left[k]:.4g}, L_right {right[k]:.4g}"
                    lines.append(f"&nbsp;&nbsp;{names[node_id]}{extra}")
            return "<br>".join(lines)
        hit = self.tasks.index_at(point)
        if hit is not None:
            task = env.local_tasks[hit]
            label = f" — {task.label}" if task.label else ""
            return f"<b>{task.kind} task {task.id}</b>{label}<br>[{task.start:g}, {task.end:g}) on {task.node}"
        hit = self.slots.index_at(point)
        if hit is not None:
            s, w = self.slots._x[hit], self.slots._w[hit]
            return f"free slot [{s:g}, {s + w:g}), length {w:g}"
        return ""

    def _on_mouse_moved(self, pos: QPointF) -> None:
        point = self.getViewBox().mapSceneToView(pos)
        self.setToolTip(self.tooltip_at(point))

    def _on_mouse_clicked(self, event: object) -> None:
        point = self.getViewBox().mapSceneToView(event.scenePos())  # type: ignore[attr-defined]
        window = self.window_at(point)
        if window is not None:
            self.job_clicked.emit(window.job)
