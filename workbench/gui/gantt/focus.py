"""The Gantt chart's selection and focus: the selected (or hovered) job's parts outlined, the others
dimmed, and Why here?'s candidates outlined (a mixin of ``GanttChart``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QEvent
from PySide6.QtGui import QColor

from workbench.engine.model import Window
from workbench.gui import palette
from workbench.gui.gantt.geometry import ROW_HEIGHT


class ChartFocus:
    """Selection, hover and the candidates' outlines (``GanttChart`` provides the attributes)."""

    env: Any
    rows: Any
    cursor: Any
    focus: Any
    ghosts: Any
    selection: Any
    veil: Any
    selected: str | None
    hovered: str | None
    _end: float
    _colouring: Any
    _window_list: list[Window]
    _labels: list[Any]
    _label_part: list[int]
    _focused_parts: Any

    def set_selected(self, job_id: str | None) -> None:
        """Outline every part of the job's window (or clear the outline), and bring it forward."""
        self.selected = job_id
        index = self.env.node_index if self.env is not None else {}
        k = self._position_of(job_id) if job_id is not None else None
        window = self._window_list[k] if k is not None else None
        parts = [(window.start, index[n], window.length) for n in window.nodes] if window is not None else []
        if not parts:
            self.selection.clear()
        else:
            x, at, w = (np.array(v, float) for v in zip(*parts, strict=True))
            y, height = self.rows.y[at.astype(np.int64)], self.rows.h[at.astype(np.int64)]
            self.selection.set_rects(
                x,
                y - 0.06,
                w,
                height + 0.12,
                np.zeros(x.size, dtype=np.int64),
                [QColor(0, 0, 0, 0)],
                [QColor(palette.HIGHLIGHT)],
                width=2.5,
            )
        self._draw_focus()

    # ------------------------------------------------------------ keyboard navigation

    def set_ghosts(self, windows: list[tuple[float, float, tuple[str, ...]]]) -> None:
        """Dashed outlines of candidate windows (start, length, node ids); [] clears them."""
        if self.env is None or not windows:
            self.ghosts.clear()
            return
        index = self.env.node_index
        parts = [(s, index[n], length) for s, length, nodes in windows for n in nodes if n in index]
        if not parts:
            self.ghosts.clear()
            return
        x, at, w = (np.array(v, float) for v in zip(*parts, strict=True))
        y, height = self.rows.y[at.astype(np.int64)], self.rows.h[at.astype(np.int64)]
        self.ghosts.set_outlines(x, y + 0.1 * height / ROW_HEIGHT, w, height * 0.75, QColor(palette.GHOST), 1.6)

    def leaveEvent(self, event: QEvent) -> None:
        """The mouse has left the chart: the time cursor and the hover highlight go with it."""
        self.cursor.setVisible(False)
        self.set_hovered(None)
        super().leaveEvent(event)

    def set_hovered(self, job_id: str | None) -> None:
        if job_id != self.hovered:
            self.hovered = job_id
            self._draw_focus()

    @property
    def focused(self) -> str | None:
        """The job drawn in full colour over the dimmed rest: the hovered one, else the selected one."""
        return self.hovered or self.selected

    def _draw_focus(self) -> None:
        job = self.focused
        parts = getattr(self, "_parts", None)
        # The job's window, then its parts by one comparison: hovering runs this on every job change.
        k = self._position_of(job) if job is not None else None
        mine = np.flatnonzero(parts.window == k) if parts is not None and k is not None else np.empty(0, np.int64)
        self._focused_parts = set(mine.tolist())
        self._draw_focus_labels()
        if self.env is None or mine.size == 0:
            self.veil.clear()
            self.focus.clear()
            return
        end = self._end
        left = min(self.env.time.start, float(parts.x.min()))
        self.veil.set_rects(
            np.array([left]),
            np.array([-1.0]),
            np.array([end - left]),
            np.array([self.rows.count + 2.0]),
            np.zeros(1, np.int64),
            [palette.VEIL],
        )
        colours = self._colouring.colours
        group = self._colouring.group[parts.window[mine]]
        self.focus.set_rects(
            parts.x[mine],
            parts.y[mine],
            parts.width[mine],
            self.rows.h[parts.node[mine]],
            np.arange(mine.size),
            [colours[int(g)] for g in group],
            [QColor(palette.HIGHLIGHT)] * mine.size,
        )

    def _position_of(self, job: str) -> int | None:
        """Where ``job``'s window is in the chart's list (its first, as a scan would find it): a map
        made once per list, as a scan of 200,000 windows took 15 ms of every hover."""
        windows = self._window_list
        made = getattr(self, "_positions", None)
        if made is None or made[0] is not windows:
            made = self._positions = (windows, {w.job: i for i, w in reversed(list(enumerate(windows)))})
        return made[1].get(job)

    def _draw_focus_labels(self) -> None:
        """Names on the focused job's parts in full, the others dimmed with their parts."""
        focused = getattr(self, "_focused_parts", set())
        for label, k in zip(self._labels, self._label_part, strict=True):
            label.setOpacity(1.0 if not focused or k in focused else 0.35)
