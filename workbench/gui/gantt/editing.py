"""The Gantt chart's editing by hand: a click selects a job (or clears the selection), a drag moves
or resizes a local task, a double-click on an empty spot asks for a new one. The chart edits
nothing itself: it emits what the user asked for (a mixin of ``GanttChart``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor

from workbench.gui.gantt.geometry import ROW_HEIGHT
from workbench.gui.gantt.parts import Drag

EDGE_PIXELS = 6  # a press this close to a task's edge resizes it


class ChartEditing:
    """Clicks and drags (``GanttChart`` provides the attributes and the signals)."""

    env: Any
    rows: Any
    view: Any
    tasks: Any
    preview: Any
    editable: bool
    job_clicked: Any
    task_changed: Any
    task_add_requested: Any
    window_at: Any
    row_at: Any
    _drag: Any
    _row_of: Any

    def clicked(self, point: QPointF) -> None:
        """A click on a window selects its job; anywhere else it clears the selection ("")."""
        window = self.window_at(point)
        self.job_clicked.emit(window.job if window is not None else "")

    def double_clicked(self, point: QPointF) -> None:
        row = self.row_at(point)
        if not self.editable or row is None or self.env is None:
            return
        if self.tasks.index_at(point) is None and self.window_at(point) is None:
            self.task_add_requested.emit(self.env.nodes[self.rows.node_at[row]].id, float(round(point.x())))

    # ------------------------------------------------------------ dragging local tasks

    @property
    def dragging(self) -> bool:
        return self._drag is not None

    def begin_drag(self, point: QPointF) -> bool:
        hit = self.tasks.index_at(point)
        if hit is None or self.env is None:
            return False
        task = self.env.local_tasks[hit]
        if self.rows.node(int(self._row_of[self.env.node_index[task.node]])) is None:
            return False  # on a collapsed machine's lane: open the machine to edit its tasks
        edge = EDGE_PIXELS * self.view.viewPixelSize()[0]
        mode = "left" if point.x() - task.start < edge else "right" if task.end - point.x() < edge else "move"
        self._drag = Drag(hit, mode, point, task.start, task.end, int(self._row_of[self.env.node_index[task.node]]))
        self.update_drag(point)
        return True

    def _dragged(self, point: QPointF) -> tuple[float, float, int]:
        d = self._drag
        assert d is not None and self.env is not None
        dx = point.x() - d.origin.x()
        if d.mode == "move":
            start = float(round(d.start + dx))
            row = self.rows.nearest_node_row(math.floor(point.y()))
            return start, start + (d.end - d.start), d.row if row is None else row
        if d.mode == "left":
            return float(min(round(d.start + dx), d.end - 1)), d.end, d.row
        return d.start, float(max(round(d.end + dx), d.start + 1)), d.row

    def update_drag(self, point: QPointF) -> None:
        start, end, row = self._dragged(point)
        self.preview.set_rects(
            np.array([start]),
            np.array([float(row)]),
            np.array([end - start]),
            np.array([ROW_HEIGHT]),
            np.zeros(1, dtype=np.int64),
            [QColor(0, 0, 0, 40)],
            [QColor("#d62728")],
            width=2.0,
        )

    def finish_drag(self, point: QPointF) -> None:
        start, end, row = self._dragged(point)
        drag, self._drag = self._drag, None
        self.preview.clear()
        assert drag is not None and self.env is not None
        task = self.env.local_tasks[drag.task]
        node = self.env.nodes[self.rows.node_at[row]].id
        if (start, end, node) != (task.start, task.end, task.node):
            self.task_changed.emit(task.id, start, end, node)
