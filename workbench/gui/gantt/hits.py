"""The Gantt chart's hit tests and what the pointer reads: the window, task or free slot under a
point, its tooltip, and the time cursor (a mixin of ``GanttChart``)."""

from __future__ import annotations

import contextlib
import math
from typing import Any

from PySide6.QtCore import QPointF

from workbench.engine.model import Environment, Window
from workbench.engine.slots import Distances, SlotTable, distances_around, window_distances
from workbench.gui import prepared
from workbench.gui.gantt import geometry, tooltips
from workbench.gui.gantt.geometry import ROW_HEIGHT
from workbench.gui.numbers import number, time

MEASURED_UP_TO = 20_000  # a Cycles step's windows beyond which a tooltip measures no distances


class ChartHits:
    """Hit tests, tooltips and the time cursor (``GanttChart`` provides the attributes)."""

    env: Any
    rows: Any
    view: Any
    cursor: Any
    slots: Any
    tasks: Any
    windows: Any
    snapshot: Any
    editable: bool
    show_cursor: bool
    time_unit: str
    setToolTip: Any
    set_hovered: Any
    _actual_ends: Any
    _distances: Any
    _window_list: list[Window]
    _schedule: Any
    _last_measured: tuple[Any, Distances | None] = (None, None)
    _window_rect_job: Any

    def window_at(self, point: QPointF) -> Window | None:
        hit = self.windows.index_at(point)
        return None if hit is None else self._window_list[int(self._window_rect_job[hit])]

    def row_at(self, point: QPointF) -> int | None:
        row = math.floor(point.y())
        if self.env is None or self.rows.node(row) is None or point.y() - row > ROW_HEIGHT:
            return None
        return row

    def tooltip_at(self, point: QPointF) -> str:
        """What is under a point: a window, a local task, or a free slot (``gantt/tooltips.py``)."""
        env = self.env
        if env is None:
            return ""
        window = self.window_at(point)
        if window is not None:
            return self._window_tip(env, window)
        hit = self.tasks.index_at(point)
        if hit is not None:
            return tooltips.task_tip(env.local_tasks[hit], self.time_unit, self.editable)
        hit = self.slots.index_at(point)
        if hit is not None:
            return tooltips.slot_tip(float(self.slots.x[hit]), float(self.slots.w[hit]), self.time_unit, self.editable)
        return ""

    def _window_tip(self, env: Environment, window: Window) -> str:
        seen = self._distances.get(window.job)
        measured = seen is None
        if measured:  # the strategy kept none: measure them on the picture, among the other windows
            seen = self._measured(env, window)
        actual = self._actual_ends.get(window.job)
        now = self.snapshot.time if self.snapshot is not None else None
        return tooltips.window_tip(env, window, self.time_unit, actual, seen, measured, now)

    def _measured(self, env: Environment, window: Window) -> Distances | None:
        """L_left and L_right of ``window`` among the other windows of the picture: on a result, read
        from the free slots the worker prepared (``distances_around``); on a Cycles step, from a table
        of the other windows, made only up to ``MEASURED_UP_TO`` windows (none past it: the tooltip
        lists the nodes alone rather than hold the window for seconds)."""
        ready = prepared.lookup(env, self._schedule, drawing=True) if self.snapshot is None else None
        with contextlib.suppress(ValueError):
            if ready is not None:
                # The pointer moves over a window many times: keep the last answer.
                key = (id(ready), window.job)
                if self._last_measured[0] != key:
                    self._last_measured = (key, distances_around(ready.free, window))
                return self._last_measured[1]
            if len(self._window_list) <= MEASURED_UP_TO:
                others = [w for w in self._window_list if w.job != window.job]
                return window_distances(SlotTable.from_environment(env, others), window)
        return None

    def _t(self, t: float) -> str:
        """A time or a duration as the user reads it: in View ▸ Time unit, with the unit's name."""
        return time(t, self.time_unit)

    def cursor_text(self, t: float, per_pixel: float | None = None) -> str:
        """The cursor's time; with ``per_pixel`` (the time a pixel spans), to as many decimals as a
        pixel resolves, every one kept, so that the label neither jitters in width nor shows
        digits the pointer cannot choose."""

        def shown(value: float, step: float | None) -> str:
            if step is None or not step > 0:
                return number(value)
            return f"{value:.{min(max(math.ceil(-math.log10(step)), 0), 4)}f}"

        _, scale, short = geometry.TIME_UNITS[self.time_unit]
        step = per_pixel / scale if per_pixel is not None else None
        return f"t = {shown(geometry.in_unit(t, self.time_unit), step)}" + (f" {short}" if short else "")

    def _move_cursor(self, point: QPointF) -> None:
        inside = self.view.sceneBoundingRect().contains(self.view.mapViewToScene(point))
        self.cursor.setVisible(self.show_cursor and inside)
        if self.cursor.isVisible():
            self.cursor.setValue(point.x())
            (x0, x1), _ = self.view.viewRange()
            self.cursor.label.setFormat(self.cursor_text(point.x(), (x1 - x0) / max(self.view.width(), 1.0)))
            # The time reads at the end of the line away from the pointer: over the rows the user
            # is looking at it would cover their names. (Along the line 0 is the lowest y, the top
            # row in this chart's inverted y.)
            top = 0.02 if self.view.yInverted() else 0.98
            in_top_half = self.view.mapViewToScene(point).y() < self.view.sceneBoundingRect().center().y()
            self.cursor.label.setPosition(1.0 - top if in_top_half else top)

    def _on_mouse_moved(self, pos: QPointF) -> None:
        point = self.view.mapSceneToView(pos)
        self._move_cursor(point)
        window = self.window_at(point)
        self.set_hovered(window.job if window is not None else None)
        self.setToolTip(self.tooltip_at(point))
