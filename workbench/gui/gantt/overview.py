"""The overview strip under the chart: the whole run at a glance (the share of nodes busy, filled,
and the queue length, a line on its own scale), the chart's visible time range marked on it, and
"now" in Cycles mode. Dragging the marked range, or clicking beside it, moves the chart there, so
a year of a trace is navigated as easily as a cycle of a paper's example.

It draws ``engine.timeline.overview`` of the live result; nothing is simulated again.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QLabel

from workbench.engine.timeline import Overview
from workbench.gui import palette
from workbench.gui.gantt.parts import NumberAxis
from workbench.gui.numbers import TIME_UNITS

BUSY_COLOUR = "#D55E00"
QUEUE_COLOUR = "#0072B2"
HEIGHT = 64
GRAB_PIXELS = 6  # a drag this close to the band holds it where grabbed


class OverviewStrip(pg.PlotWidget):
    """``range_moved(start, end)``: the user dragged the marked range (or clicked beside it)."""

    range_moved = Signal(float, float)

    def __init__(self) -> None:
        super().__init__(background="w", axisItems={"bottom": NumberAxis("bottom")})
        self.setFixedHeight(HEIGHT)
        palette.style_plot(self)
        item = self.getPlotItem()
        left = item.getAxis("left")
        left.setStyle(showValues=False, tickLength=0)
        left.setPen(pg.mkPen(None))
        # The key, in the room the chart's node names take above it.
        self.key = QLabel(
            f"whole run: <span style='color:{BUSY_COLOUR}'>■ nodes busy</span><br>"
            f"<span style='color:{QUEUE_COLOUR}'>— queue</span>; drag the band",
            self,
        )
        self.key.setStyleSheet(f"color: {palette.muted_text().name()}; background: transparent;")
        self.key.move(4, 4)
        item.setMenuEnabled(False)
        item.hideButtons()
        self.getAxis("bottom").setHeight(18)
        self.view = item.vb
        self.view.setMouseEnabled(x=False, y=False)
        self.view.setYRange(0, 1.05, padding=0)
        self.busy = pg.PlotDataItem(
            stepMode="right", fillLevel=0, brush=pg.mkBrush(213, 94, 0, 90), pen=pg.mkPen(BUSY_COLOUR, width=1)
        )
        self.queue = pg.PlotDataItem(stepMode="right", pen=pg.mkPen(QUEUE_COLOUR, width=1))
        self.addItem(self.busy)
        self.addItem(self.queue)
        self.region = pg.LinearRegionItem(brush=pg.mkBrush(0, 0, 0, 22), pen=pg.mkPen("#333333", width=1))
        # The band is moved, never resized, from here (a band a pixel wide was grabbed by an edge, and a
        # drag meant to pan zoomed out): a drag anywhere on the strip carries the band with the mouse.
        self.region.setMovable(False)
        self.view.mouseDragEvent = self._drag  # type: ignore[method-assign]
        self._grab = 0.0
        self.region.setZValue(10)
        self.addItem(self.region, ignoreBounds=True)
        self.now_line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#d62728", width=1))
        self.now_line.setVisible(False)
        self.addItem(self.now_line, ignoreBounds=True)
        self.region.sigRegionChanged.connect(self._on_region)
        self.scene().sigMouseClicked.connect(self._on_click)
        self._setting = False
        self.data: Overview | None = None
        self.time_unit = "model"
        self.setToolTip(
            "The whole run: nodes busy (filled) and the queue (line, scaled to its peak).\n"
            "The shaded band is the chart's view: drag it, or click beside it, to move the chart."
        )

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), HEIGHT)

    def align(self, left_width: float, span: tuple[float, float]) -> None:
        """Line the strip's time axis up with the chart's: its left axis as wide as the chart's node
        axis, its time from the chart's start to its picture's right edge."""
        self.getPlotItem().getAxis("left").setWidth(int(left_width))
        if span[1] > span[0]:
            self.view.setXRange(*span, padding=0)

    def set_overview(self, data: Overview | None) -> None:
        """Draw a run's overview (None: nothing to show, the strip hides)."""
        self.data = data
        if data is None or len(data.times) < 2:
            self.busy.setData([], [])
            self.queue.setData([], [])
            self.hide()
            return
        self.show()
        busy, queue, peak = strip_curves(data)
        self.busy.setData(*busy)
        self.queue.setData(*queue)
        start, end = data.span
        self.view.setXRange(start, end, padding=0)
        self.queue.setToolTip(f"queue, peak {peak}")

    def set_time_unit(self, unit: str) -> None:
        self.time_unit = unit
        self.getAxis("bottom").setScale(1.0 / TIME_UNITS[unit][1])

    def show_range(self, start: float, end: float) -> None:
        """Mark the chart's visible range (the chart moved: no signal back)."""
        self._setting = True
        self.region.setRegion((start, end))
        self._setting = False

    def set_now(self, t: float | None) -> None:
        self.now_line.setVisible(t is not None)
        if t is not None:
            self.now_line.setValue(t)

    def _on_region(self) -> None:
        if not self._setting:
            start, end = self.region.getRegion()
            self.range_moved.emit(float(start), float(end))

    def _drag(self, event: Any, axis: object = None) -> None:
        """A drag on the strip moves the band, its width kept: held where it was grabbed (on the band
        or a few pixels beside it), else centred under the mouse."""
        if event.button() != Qt.MouseButton.LeftButton:
            event.ignore()
            return
        event.accept()
        x = self.view.mapSceneToView(event.scenePos()).x()
        start, end = self.region.getRegion()
        if event.isStart():
            near = GRAB_PIXELS * self.view.viewPixelSize()[0]
            self._grab = x - (start + end) / 2 if start - near <= x <= end + near else 0.0
        centre = x - self._grab
        half = (end - start) / 2
        self.region.setRegion((centre - half, centre + half))  # emits range_moved

    def _on_click(self, event: object) -> None:
        """A click beside the marked range centres the chart's view there, its width kept."""
        if getattr(event, "button", lambda: None)() != Qt.MouseButton.LeftButton:
            return
        point = self.view.mapSceneToView(event.scenePos())  # type: ignore[attr-defined]
        start, end = self.region.getRegion()
        if start <= point.x() <= end:
            return  # on the band: a drag moves it
        half = (end - start) / 2
        self.region.setRegion((point.x() - half, point.x() + half))  # emits range_moved


Curves = tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray], int]


def strip_curves(data: Overview) -> Curves:
    """The strip's busy and queue curves (``peaks``), the queue scaled by its peak, and that peak;
    worked out once per run, in the worker that prepares it (``prepared.prepare``), so that the GUI
    thread only draws them (at 200,000 jobs, 20 ms of handing a result over)."""
    got: Curves | None = data.__dict__.get("_strip_curves")  # kept with the run's overview (immutable)
    if got is None:
        peak = max(int(data.queue.max()), 1) if len(data.queue) else 1
        got = (peaks(data.times, data.busy), peaks(data.times, data.queue / peak), peak)
        data.__dict__["_strip_curves"] = got
    return got


STRIP_BINS = 4000  # a run's curve is drawn with at most this many steps (the strip is a few thousand pixels)


def peaks(times: np.ndarray, values: np.ndarray, bins: int = STRIP_BINS) -> tuple[np.ndarray, np.ndarray]:
    """A step curve (each value holds until the next time) of more than ``2 * bins`` steps as ``bins``
    steps of equal width, each the highest value the curve takes in it: at 200,000 jobs the full
    curve's fill took 250 ms a repaint, and at the strip's width the peaks draw the same outline."""
    if times.size <= 2 * bins:
        return times, values
    edges = np.linspace(float(times[0]), float(times[-1]), bins + 1)
    highest = np.full(bins, -np.inf)
    np.maximum.at(highest, np.clip(np.searchsorted(edges, times, side="right") - 1, 0, bins - 1), values)
    holding = values[np.clip(np.searchsorted(times, edges[:-1], side="right") - 1, 0, times.size - 1)]
    return np.append(edges[:-1], times[-1]), np.append(np.maximum(highest, holding), values[-1])
