"""Moving about the Gantt chart: fitting the schedule, the limits of pan and zoom, the keys, and
bringing a job's window into view (Find, or a selection made elsewhere)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent

VIEW_MARGIN = 0.25  # how far past the schedule, as a share of its span, the view may go
FOLLOW_JOBS = 100  # Cycles mode's first view around "now" spans about this many jobs' share of the run
FOLLOW_AT = 0.25  # "now" stands this far into the followed view: most of it shows what is planned


class ChartNavigation:
    """A mixin of ``GanttChart`` (listed before the plot widget, so its keys come first)."""

    view: Any
    env: Any
    rows: Any
    _window_list: Any
    _row_of: Any

    def fit(self) -> None:
        """Zoom to show every node and the whole scheduling interval."""
        if self.env is None:
            return
        end = self._end
        self._limit_view(self.env.time.start, end)
        self.view.setRange(xRange=(self.env.time.start, end), yRange=(-0.2, self.rows.count), padding=0.02)

    def _limit_view(self, start: float, end: float) -> None:
        """Pan and zoom stay near the schedule: rows from the first to the last (never past them), time
        from a little before the start to a little after the end, and at most a few times its span."""
        span = max(end - start, 1e-9)
        margin = VIEW_MARGIN * span
        self.view.setLimits(
            xMin=start - margin,
            xMax=end + margin,
            maxXRange=span + 2 * margin,
            yMin=-0.5,
            yMax=max(self.rows.count, 1) + 0.5,
            maxYRange=max(self.rows.count, 1) + 1.0,
        )

    def follow(self, t: float, width: float | None = None) -> float:
        """Keep time ``t`` ("now" in Cycles mode) in view, a quarter in from the left, at the view's
        width (the user widens it by zooming out) or ``width``; the width used. A run of a few jobs
        is shown whole and stays still. (Fitted to a year of a trace, "now" was a sliver.)"""
        if self.env is None:
            return 0.0
        start, end = self.env.time.start, self._end
        whole = max(end - start, 1e-9)
        if width is None:
            (x0, x1), _ = self.view.viewRange()
            width = x1 - x0
        jobs = max(len(self.env.jobs), 1)
        if jobs <= FOLLOW_JOBS:
            return whole  # a paper's example: the whole run is the view
        width = min(width, whole * (1 + 2 * VIEW_MARGIN))
        self.view.setXRange(t - FOLLOW_AT * width, t + (1 - FOLLOW_AT) * width, padding=0)
        return width

    def follow_width(self) -> float:
        """The width a followed view starts at: about FOLLOW_JOBS jobs' share of the run."""
        if self.env is None:
            return 0.0
        whole = max(self._end - self.env.time.start, 1e-9)
        return whole * min(1.0, FOLLOW_JOBS / max(len(self.env.jobs), 1))

    def job_extent(self, job_id: str) -> tuple[float, float, float, float] | None:
        """The job's window on the chart: (start, end, first row, last row + 1), or None when not drawn."""
        if self.env is None:
            return None
        index = self.env.node_index
        mine = [w for w in self._window_list if w.job == job_id]
        rows = [self._row_of[index[n]] for w in mine for n in w.nodes if n in index]
        if not rows:
            return None
        return min(w.start for w in mine), max(w.end for w in mine), float(min(rows)), float(max(rows)) + 1.0

    def zoom_to_job(self, job_id: str) -> bool:
        """Zoom to the job's window: its time span with a margin of half its length each side (at least a
        tenth of the shown span's worth), its rows with a few around them. False when it is not drawn."""
        extent = self.job_extent(job_id)
        if extent is None:
            return False
        start, end, top, bottom = extent
        margin = max((end - start) * 0.5, 1e-6)
        rows = max(bottom - top + 4.0, min(float(self.rows.count), 12.0))
        middle = (top + bottom) / 2
        self.view.setRange(
            xRange=(start - margin, end + margin), yRange=(middle - rows / 2, middle + rows / 2), padding=0
        )
        return True

    def reveal_job(self, job_id: str | None) -> None:
        """Bring the job's window into view when it is off-screen (keeping the zoom where it fits); a
        window already on screen stays where it is."""
        extent = self.job_extent(job_id) if job_id is not None else None
        if extent is None:
            return
        start, end, top, bottom = extent
        (x0, x1), (y0, y1) = self.view.viewRange()
        if start >= x0 and end <= x1 and top >= y0 and bottom <= y1:
            return
        width, height = x1 - x0, y1 - y0
        if end - start > width or bottom - top > height:
            self.zoom_to_job(job_id)  # type: ignore[arg-type]
            return
        if start < x0 or end > x1:
            x0 = (start + end - width) / 2
        if top < y0 or bottom > y1:
            y0 = (top + bottom - height) / 2
        self.view.setRange(xRange=(x0, x0 + width), yRange=(y0, y0 + height), padding=0)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Arrows pan (Shift: further), + and - zoom time, Page Up/Down scroll rows, Home fits."""
        key, shift = event.key(), bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        (x0, x1), (y0, y1) = self.view.viewRange()
        step_x = (x1 - x0) * (0.5 if shift else 0.1)
        rows = max(1.0, (y1 - y0) * (0.9 if key in (Qt.Key.Key_PageUp, Qt.Key.Key_PageDown) else 0.1))
        moves = {
            Qt.Key.Key_Left: (-step_x, 0.0),
            Qt.Key.Key_Right: (step_x, 0.0),
            Qt.Key.Key_Up: (0.0, -rows),
            Qt.Key.Key_Down: (0.0, rows),
            Qt.Key.Key_PageUp: (0.0, -rows),
            Qt.Key.Key_PageDown: (0.0, rows),
        }
        if key in moves:
            dx, dy = moves[key]
            self.view.setRange(xRange=(x0 + dx, x1 + dx), yRange=(y0 + dy, y1 + dy), padding=0)
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal, Qt.Key.Key_Minus):
            factor = 1.25 if key == Qt.Key.Key_Minus else 0.8
            middle, half = (x0 + x1) / 2, (x1 - x0) / 2 * factor
            self.view.setXRange(middle - half, middle + half, padding=0)
        elif key == Qt.Key.Key_Home:
            self.fit()
        else:
            super().keyPressEvent(event)  # type: ignore[misc]
            return
        event.accept()
