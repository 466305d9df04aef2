"""The parts of the Gantt chart around its layers: the axis of node rows (labels, machine
headers), the view box that turns mouse gestures into the chart's edit calls, and the
lines a multi-site window's tooltip gives per machine.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Any, Protocol

import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal

from workbench.engine.model import Environment, Window
from workbench.gui.gantt.geometry import ROW_HEIGHT
from workbench.gui.numbers import number, tick_strings, time

MIN_LABEL_PIXELS = 13  # the least height of a row label


class Editable(Protocol):
    """What the view box asks of the chart it serves (``GanttChart``)."""

    editable: bool

    def begin_drag(self, point: QPointF) -> bool: ...
    @property
    def dragging(self) -> bool: ...
    def update_drag(self, point: QPointF) -> None: ...
    def finish_drag(self, point: QPointF) -> None: ...
    def clicked(self, point: QPointF) -> None: ...
    def double_clicked(self, point: QPointF) -> None: ...


def site_lines(env: Environment, window: Window, unit: str = "model") -> list[str]:
    """A grid window's machines and, when it runs on several, the overhead it carries (seed 004)."""
    if not env.site_ids:
        return []
    site = {n.id: n.site for n in env.nodes}
    counts: dict[str, int] = {}
    for node in window.nodes:
        counts[site[node]] = counts.get(site[node], 0) + 1
    names = ", ".join(f"{html.escape(env.site_name(s) or 'no site')} ({n})" for s, n in counts.items())
    if len(counts) == 1:
        return [f"on {names}"]
    base = window.length / (1.0 + window.overhead)
    return [
        f"multi-site over {len(counts)} machines: {names}",
        f"overhead {number(100 * window.overhead)} %: runs {time(window.length, unit)} instead of {time(base, unit)}",
    ]


class NumberAxis(pg.AxisItem):
    """A numeric axis whose labels come from ``numbers.tick_strings``: plain digits at every zoom, the
    same as the tables and the exported figure, never pyqtgraph's "5e+06" nor its "(x0.001)" rescaling."""

    def __init__(self, orientation: str = "bottom") -> None:
        super().__init__(orientation)
        self.enableAutoSIPrefix(False)

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return tick_strings([v * scale for v in values], spacing * scale)


class CountAxis(NumberAxis):
    """An axis of counts (a queue's length): ticks at whole numbers only, so that a short queue does
    not read 0.2 or 0.4 jobs."""

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, list[float]]]:
        levels = [
            (spacing, [v for v in values if float(v).is_integer()])
            for spacing, values in super().tickValues(minVal, maxVal, size)
            if spacing >= 1
        ]
        return levels or [(1.0, [float(v) for v in range(math.ceil(minVal), math.floor(maxVal) + 1)])]


class JobAxis(CountAxis):
    """An axis of jobs by queue position, labelled with the jobs' ids: a tick at every position
    whose label fits beside its neighbours, thinned evenly where they do not."""

    CHAR_PX = 7.0  # about a character of the tick font, with room between labels

    def __init__(self, orientation: str = "bottom") -> None:
        super().__init__(orientation)
        self.ids: list[str] = []

    def set_ids(self, ids: list[str]) -> None:
        self.ids = ids
        self.picture = None  # redraw the labels
        self.update()

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, list[float]]]:
        first, last = max(math.ceil(minVal), 0), min(math.floor(maxVal), len(self.ids) - 1)
        if last < first or size <= 0:
            return []
        widest = max(len(i) for i in self.ids[first : last + 1]) + 1
        step = max(1, math.ceil((last - first + 1) * widest * self.CHAR_PX / size))
        return [(float(step), [float(v) for v in range(first - first % step, last + 1, step) if v >= first])]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return [self.ids[int(v)] if 0 <= int(v) < len(self.ids) and float(v).is_integer() else "" for v in values]


class NodeAxis(pg.AxisItem):
    """Left axis: node rows labelled with name, performance and price, thinned to stay legible; a
    click on a grid machine's header collapses or opens it (``header_clicked``)."""

    header_clicked = Signal(int)  # the header's row

    def __init__(self) -> None:
        super().__init__("left")
        self._labels: list[str] = []
        # Panning along time leaves this axis as it was: let Qt keep it as a pixmap.
        self.setCacheMode(self.CacheMode.DeviceCoordinateCache)

    def set_labels(self, labels: list[str], headers: set[int] | None = None) -> None:
        """One label per row; ``headers``: rows (site headers) labelled at every zoom."""
        self._labels = labels
        self._headers = sorted(headers or ())
        width = max((len(t) for t in labels), default=4)
        self.setWidth(min(24 + 7.4 * width, 300))
        self.picture = None
        self.update()

    def mouseClickEvent(self, ev: Any) -> None:
        view = self.linkedView()
        if view is not None and ev.button() == Qt.MouseButton.LeftButton:
            row = math.floor(view.mapSceneToView(ev.scenePos()).y())
            if row in getattr(self, "_headers", ()):
                ev.accept()
                self.header_clicked.emit(row)
                return
        super().mouseClickEvent(ev)

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list:
        count = len(self._labels)
        if count == 0 or size <= 0:
            return []
        minVal, maxVal = min(minVal, maxVal), max(minVal, maxVal)  # the chart's Y axis is inverted
        lo, hi = max(0, math.floor(minVal)), min(count - 1, math.ceil(maxVal))
        pixels_per_row = size / max(maxVal - minVal, 1e-9)
        step = max(1, math.ceil(MIN_LABEL_PIXELS / max(pixels_per_row, 1e-9)))
        headers = [h for h in getattr(self, "_headers", ()) if lo <= h <= hi]
        rows = [
            r + ROW_HEIGHT / 2
            for r in range(lo - lo % step, hi + 1, step)
            if 0 <= r < count and all(abs(r - h) >= step for h in headers)
        ] + [h + ROW_HEIGHT / 2 for h in headers]
        if not any(minVal <= r <= maxVal for r in rows):
            # Zoomed inside one row, off its centre: label the row in the middle of the view.
            middle = (minVal + maxVal) / 2
            rows = [middle] if 0 <= math.floor(middle) < count else []
        return [(float(step), rows)]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        out = []
        for v in values:
            row = math.floor(v)  # row r spans [r, r + 1)
            out.append(self._labels[row] if 0 <= row < len(self._labels) else "")
        return out


@dataclass
class Drag:
    task: int
    mode: str  # "move", "left", "right"
    origin: QPointF
    start: float
    end: float
    row: int


class EditViewBox(pg.ViewBox):
    """Pans and zooms as usual, except that a drag starting on a local task edits it."""

    def __init__(self, chart: Editable) -> None:
        super().__init__()
        self.chart = chart

    def mouseDragEvent(self, ev, axis=None):  # type: ignore[no-untyped-def]
        chart = self.chart
        if ev.button() == Qt.MouseButton.LeftButton and chart.editable:
            if ev.isStart():
                point = self.mapToView(ev.buttonDownPos())
                if chart.begin_drag(point):
                    ev.accept()
                    return
            if chart.dragging:
                ev.accept()
                point = self.mapToView(ev.pos())
                if ev.isFinish():
                    chart.finish_drag(point)
                else:
                    chart.update_drag(point)
                return
        super().mouseDragEvent(ev, axis)

    def wheelEvent(self, ev, axis=None):  # type: ignore[no-untyped-def]
        """The wheel zooms time; with Ctrl it zooms the rows."""
        rows = bool(ev.modifiers() & Qt.KeyboardModifier.ControlModifier)
        super().wheelEvent(ev, axis=1 if rows else 0)

    def mouseClickEvent(self, ev):  # type: ignore[no-untyped-def]
        if ev.button() == Qt.MouseButton.LeftButton:
            point = self.mapToView(ev.pos())
            if ev.double():
                self.chart.double_clicked(point)
            else:
                self.chart.clicked(point)
            ev.accept()
            return
        super().mouseClickEvent(ev)
