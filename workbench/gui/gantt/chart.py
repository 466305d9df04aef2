"""The Gantt chart: a row per node, time left to right, one batched item per layer.

Layers, bottom to top: free slots (faint), local tasks by kind, job windows
coloured per job (planned ones lighter, the released tail of an early finish
hatched), the selection outline and the drag preview. Hovering shows a
tooltip; clicking a window selects its job; local tasks are moved and resized
by dragging (snapped to whole units) and added by double-clicking an empty spot.
The chart never edits anything itself: it emits what the user asked for.
"""

from __future__ import annotations

import bisect
import dataclasses
import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QResizeEvent
from PySide6.QtWidgets import QLabel

from workbench.engine.model import Environment, Window
from workbench.engine.schedule import Schedule
from workbench.engine.simulate import Snapshot
from workbench.engine.slots import Distances, SlotTable
from workbench.gui import palette, prepared
from workbench.gui.gantt import geometry
from workbench.gui.gantt.editing import ChartEditing
from workbench.gui.gantt.focus import ChartFocus
from workbench.gui.gantt.geometry import ROW_HEIGHT
from workbench.gui.gantt.hits import ChartHits
from workbench.gui.gantt.labels import ChartLabels
from workbench.gui.gantt.layers import RectLayer, make_room_for_cached_layers
from workbench.gui.gantt.navigation import ChartNavigation
from workbench.gui.gantt.parts import Drag, EditViewBox, NodeAxis, NumberAxis
from workbench.gui.workers import BackgroundCall

FREE_HERE = 2000  # windows of a Cycles step whose free slots are taken out on the GUI thread; more: a worker
# A Cycles step of more windows draws those near the view only (a view's width either side of it and
# of "now"): on the whole KTH trace a step redrew 20,000 windows, 300 ms, and Play could not keep up.
STEP_ALL = 2000
KEY_POINTS = 8.0  # the key's font size
KEY_MARGIN = 40  # pixels the key leaves free across the chart's width
KEY_ROW = 30  # the title row's height at one line (pyqtgraph's)


# A fresh picture with more rectangles than this in its cached layers is painted a layer at a time.
STAGGER_RECTS = 150_000
STAGGER_MS = 500


class GanttChart(ChartNavigation, ChartLabels, ChartFocus, ChartHits, ChartEditing, pg.PlotWidget):
    """Draws an environment with a schedule or a snapshot; emits the user's gestures."""

    job_clicked = Signal(str)  # a window's job; "" for a click beside every window
    drawn = Signal()  # a picture painted a layer at a time is whole (``_draw_in_turn``)
    task_changed = Signal(str, float, float, str)  # task id, start, end, node id (one gesture)
    task_add_requested = Signal(str, float)  # node id, time

    def __init__(self, parent: object = None, editable: bool = True) -> None:
        self.node_axis = NodeAxis()
        self.node_axis.header_clicked.connect(self._on_header_clicked)
        self.time_axis = NumberAxis("bottom")
        self.view = EditViewBox(self)
        super().__init__(parent=parent, viewBox=self.view, axisItems={"left": self.node_axis, "bottom": self.time_axis})
        self.editable = editable
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # keyboard navigation (keyPressEvent)
        palette.style_plot(self)
        plot = self.getPlotItem()
        plot.invertY(True)
        plot.showGrid(x=False, y=False)
        self.time_unit = "model"
        plot.setLabel("bottom", geometry.time_label(self.time_unit))
        plot.setMenuEnabled(False)
        plot.hideButtons()
        self.slots = RectLayer(z=0, disjoint_rows=True)  # a node's free slots never overlap
        self.tasks = RectLayer(z=1)
        # The released tail of an early finish lies under the job windows: others may run there.
        self.released = RectLayer(z=1.5)
        self.windows = RectLayer(z=2, disjoint_rows=True)  # nor its windows (a schedule's rule)
        # A fresh picture of many rectangles is drawn one cached layer per paint, windows first (see
        # ``_draw_in_turn``); the rest are shown after the one before has painted, or after at most
        # ``STAGGER_MS`` (a layer out of view never paints).
        self._in_turn: list[RectLayer] = []
        self.drawing = False  # layers still waiting their turn (``drawn`` follows)
        self._next_layer = QTimer(self, singleShot=True, interval=0)
        self._next_layer.timeout.connect(self._show_next_layer)
        self._all_layers = QTimer(self, singleShot=True, interval=STAGGER_MS)
        self._all_layers.timeout.connect(self.finish_drawing)
        make_room_for_cached_layers()
        for layer in (self.slots, self.tasks, self.released, self.windows):
            # The big layers keep their picture until they or the view change: a repaint of the
            # window for anything else (a table, the status bar) blits it instead of drawing
            # 218,000 rectangles of the KTH trace again.
            layer.setCacheMode(layer.CacheMode.DeviceCoordinateCache)
        # Hovering or selecting a job dims everything else under a veil and redraws the job above it.
        self.veil = RectLayer(z=2.4)
        self.focus = RectLayer(z=2.5)
        self.selection = RectLayer(z=3)
        self.ghosts = RectLayer(z=3.5)  # Why here?: the candidate windows the strategy compared
        self.hold = RectLayer(z=3.4)  # Cycles mode: EASY's reservation for the blocked queue head
        self.preview = RectLayer(z=6)
        layers = (
            self.slots,
            self.tasks,
            self.windows,
            self.released,
            self.veil,
            self.focus,
            self.selection,
            self.ghosts,
            self.hold,
        )
        for layer in (*layers, self.preview):
            self.addItem(layer)
        # Inside the reservation's top-left corner: the time it holds is free until then, so the name
        # covers nothing (above the outline it sat on the row before, over another job's name).
        self.hold_label = pg.TextItem("", anchor=(0, 0))
        self.hold_label.setZValue(7)
        self.hold_label.setVisible(False)
        self.addItem(self.hold_label, ignoreBounds=True)
        self._labels: list[pg.TextItem] = []  # job names, each on the part ``_label_part`` says
        self._label_part: list[int] = []
        self._name_of: dict[int, str] = {}  # per window drawn, its job's name (``_name``)
        self._lines: list[pg.InfiniteLine] = []
        self.env: Environment | None = None
        self.snapshot: Snapshot | None = None
        self._window_list: list[Window] = []
        self._actual_ends: dict[str, float] = {}  # where each drawn window's job really ended
        self._ready: prepared.Prepared | None = None  # what the worker prepared of the result drawn
        self.collapsed: set[str] = set()  # grid machines shown as one lane (a click on the header)
        self._end = 0.0  # the right edge of the picture drawn
        self._live_end = 0.0  # that of the last result drawn (the steps of Cycles mode keep it)
        self._distances: dict[str, Distances] = {}  # the L_left/L_right each placement saw
        self._window_rect_job = np.empty(0, dtype=np.int64)
        self._table: SlotTable | None = None
        # The free-slot table last drawn, with the nodes, tasks, time and windows it was made from.
        self._free_for: tuple[tuple[object, ...], SlotTable] | None = None
        self._free_call = BackgroundCall()  # a large step's free slots (``_draw_slots``)
        self._free_call.finished.connect(self._free_taken)
        self._schedule: Schedule | None = None
        self._groups: dict[str, str] = {}  # Batch-slicer/BSF: the part of the batch of each job
        self._drag: Drag | None = None
        self.selected: str | None = None
        self.hovered: str | None = None
        self.caption = ""  # shown before the legend (Compare: the strategy's name)
        self._key: tuple[list[tuple[str, QColor]], bool, Environment | None] | None = None  # ``_set_key``'s
        self.row_order = "list"  # View ▸ Sort node rows
        self.rows = geometry.RowLayout(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64))
        self._row_of = self.rows.row_of
        self._site_lines: list[pg.InfiniteLine] = []
        self.colour_by = "job"
        self._needs_fit = True  # fit again once there is something to fit (an open horizon starts empty)
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        # The time cursor: a line that follows the mouse and reads out the time under it.
        self.cursor = pg.InfiniteLine(
            angle=90,
            movable=False,
            pen=pg.mkPen("#1f77b4", width=1, style=Qt.PenStyle.DotLine),
            label="",
            labelOpts={"position": 0.02, "color": "#1f77b4", "fill": (255, 255, 255, 200)},
        )
        self.cursor.setZValue(7)
        self.cursor.setVisible(False)
        self.addItem(self.cursor, ignoreBounds=True)
        self.show_cursor = True
        self.view.sigRangeChanged.connect(self._update_label_visibility)
        self.view.sigResized.connect(self._update_label_visibility)  # rows grow or shrink with the widget
        self._drawn_span = (-math.inf, math.inf)  # the times a Cycles step's windows were drawn for
        self._span_timer = QTimer(self)  # the view left them: the step is drawn again for the new view
        self._span_timer.setSingleShot(True)
        self._span_timer.setInterval(30)
        self._span_timer.timeout.connect(self._redraw_step)
        self.view.sigXRangeChanged.connect(self._on_x_range)
        # In a corner while the windows drawn are an earlier environment's result.
        self.stale_note = QLabel("previous result", self)
        self.stale_note.setToolTip("The environment changed since this result: the new one is on its way (or Run, F5)")
        self.stale_note.setStyleSheet("background: rgba(255, 243, 205, 230); color: #5c4400; padding: 2px 6px;")
        self.stale_note.adjustSize()
        self.stale_note.hide()

    def set_stale(self, stale: bool) -> None:
        """Say (or stop saying) that the windows drawn are not the current environment's result."""
        self.stale_note.setVisible(stale)
        self._place_stale_note()

    def _place_stale_note(self) -> None:
        # The bottom-left corner, under the node names and beside the time axis: the legend has the top.
        self.stale_note.move(6, max(0, self.height() - self.stale_note.height() - 6))

    def resizeEvent(self, event: QResizeEvent) -> None:
        # The key first, for the new width: the title's width is the plot's least, and a plot laid
        # out over the old one's stayed wider than the window (cut at the right) until the next resize.
        closed = getattr(self, "plotItem", None) is None  # (pyqtgraph lets it go on close)
        if getattr(self, "_key", None) is not None and not closed and event.size().width() != event.oldSize().width():
            self._set_key()  # the key takes as many lines as the width needs
        super().resizeEvent(event)
        if hasattr(self, "stale_note"):  # pyqtgraph resizes during its own __init__
            self._place_stale_note()

    def _set_key(self) -> None:
        """The title line: the caption (Compare's strategy), then the key to colours and lines,
        wrapped to the chart's width (as many lines as it takes, the title's row as tall)."""
        assert self._key is not None
        entries, planned, env = self._key
        item = self.getPlotItem()
        caption = f"<b>{html.escape(self.caption)}</b>&nbsp;&nbsp;" if self.caption else ""
        font = QFont(self.font())
        font.setPointSizeF(KEY_POINTS)
        named = QFontMetricsF(font).horizontalAdvance(self.caption) + 12 if self.caption else 0.0
        # The title is centred over the plot, right of the node names; a title wider than that
        # would widen the plot past the window.
        room = self.width() - item.getAxis("left").width() - KEY_MARGIN
        budget = room - named
        for _ in range(3):  # the rich text's width is what counts: measured, and the budget cut by the excess
            title = caption + palette.legend_html(entries, planned=planned, env=env, width=budget, font=font)
            if title != item.titleLabel.text:
                self.setTitle(title, size=f"{KEY_POINTS:g}pt")
            excess = item.titleLabel.item.boundingRect().width() - room
            if excess <= 0:
                break
            budget -= excess + 8
        lines = item.titleLabel.text.count("<br>") + 1
        tall = max(KEY_ROW, math.ceil(lines * QFontMetricsF(font).lineSpacing()) + 8)
        item.titleLabel.setMaximumHeight(tall)
        item.layout.setRowFixedHeight(0, tall)
        # The key is centred: a shorter one left both ends of the last one on screen under a window
        # manager (seen after leaving Cycles mode's longer key), so the view repaints whole (the big
        # layers blit their caches).
        self.viewport().update()

    def shows(self, schedule: Schedule) -> bool:
        """Is ``schedule`` what the chart draws now, all its windows (not a step, nor a part kept)?"""
        return self.snapshot is None and self._schedule is schedule

    @property
    def shown_windows(self) -> list[Window]:
        """The windows the chart draws now (the last ``set_data``'s)."""
        return self._window_list

    # ------------------------------------------------------------ drawing

    def set_data(
        self, env: Environment, schedule: Schedule | None, fit: bool = False, windows: list[Window] | None = None
    ) -> None:
        """Draw ``env`` and a result (None: only the environment, or the ``windows`` given, which keep
        the actual ends they were drawn with)."""
        self._schedule = schedule
        if schedule is not None:
            ready = prepared.lookup(env, schedule, drawing=True)
            ends = ready.actual_ends if ready is not None else None
            self._actual_ends = (
                ends if ends is not None else {w.job: schedule.actual_end(env, w) for w in schedule.windows}
            )
            self._distances = dict(schedule.distances)
            self._groups = dict(schedule.groups)
        self._draw(env, list(schedule.windows) if schedule else list(windows or []), None, fit)

    def set_snapshot(self, env: Environment, snapshot: Snapshot, following: bool = False) -> None:
        """Draw one step of a simulation: what has run, what is planned, the current time.
        ``following``: the view is about to follow "now" there (draw around it, not the old view)."""
        self._schedule = None
        self._actual_ends = dict(snapshot.actual_ends)
        self._distances = dict(snapshot.schedule.distances)
        self._groups = dict(snapshot.schedule.groups)
        self._draw(env, self._near_view(snapshot, following), snapshot, fit=False)

    def _near_view(self, snapshot: Snapshot, following: bool = False) -> list[Window]:
        """The step's windows that meet the view, a view's width either side of it and of "now" (where
        Cycles mode's view follows; ``following``: around "now" only, the view goes there); every
        window of a small step."""
        windows = snapshot.windows
        if len(windows) <= STEP_ALL:
            self._drawn_span = (-math.inf, math.inf)
            return list(windows)
        (x0, x1), _ = self.view.viewRange()
        width = max(x1 - x0, 1e-9)
        if following:  # a jump far from the view drew both ends and all between them
            x0 = x1 = snapshot.time
        lo = min(x0, snapshot.time - width) - width
        hi = max(x1, snapshot.time + width) + width
        self._drawn_span = (lo, hi)
        # The windows come by start, and none is longer than ``longest``: only those starting in
        # [lo - longest, hi] can meet the span (a pass over every window took 80 ms at 100,000).
        reach = lo - snapshot.longest - 1e-9 * (1.0 + abs(lo))
        first = bisect.bisect_left(windows, reach, key=lambda w: w.start)
        last = bisect.bisect_right(windows, hi, key=lambda w: w.start)
        return [w for w in windows[first:last] if w.end >= lo]  # a window ends (actually) by w.end

    def _on_x_range(self, _view: object, x_range: tuple[float, float]) -> None:
        """Draw the step again when the view leaves the times drawn, or narrows far inside them (the
        first step of a followed view was drawn for the whole run)."""
        if self.snapshot is None or len(self.snapshot.windows) <= STEP_ALL:
            return
        lo, hi = self._drawn_span
        width = max(x_range[1] - x_range[0], 1e-9)
        if x_range[0] < lo or x_range[1] > hi or hi - lo > 8 * width:
            self._span_timer.start()

    def _redraw_step(self) -> None:
        if self.snapshot is not None and self.env is not None:
            self._draw(self.env, self._near_view(self.snapshot), self.snapshot, fit=False)

    def _draw(self, env: Environment, windows: list[Window], snapshot: Snapshot | None, fit: bool) -> None:
        if self.env is not None and self.env.nodes != env.nodes:
            self._needs_fit = True
        self.env, self.snapshot = env, snapshot
        self.rows = geometry.row_layout(env, self.row_order, self.collapsed)
        self._row_of = self.rows.row_of
        self.node_axis.set_labels(geometry.row_labels(env, self.rows), {row for row, _ in self.rows.headers})
        # The axis's new width applied now, not by a posted layout request after the next paint: that
        # paint would draw every layer at the old width and the next one all again (200,000 jobs:
        # two paints of 80 ms where one was meant).
        self.getPlotItem().layout.activate()
        self._draw_site_lines()
        self._window_list = windows
        ready = prepared.lookup(env, self._schedule, drawing=True) if snapshot is None else None
        self._ready = ready
        self._end = ready.visible_end if ready is not None else geometry.visible_end(env, windows)
        if snapshot is None:
            self._live_end = self._end
        else:  # a step early in a run without a horizon ends near its start: keep the result's frame
            self._end = max(self._end, self._live_end)
        self._table = None if ready is not None else SlotTable.from_environment(env)
        default = ready is not None and self._default_rows(env)
        if default and ready is not None and ready.slot_layer is not None:  # worked out in the worker
            self._free_for = ((env.nodes, env.local_tasks, env.time, windows), ready.free)
            self.slots.set_data(ready.slot_layer, [QColor(palette.free_slot())])
        else:
            self._draw_slots(env, windows, ready.free if ready is not None else None)
        self._draw_tasks(env)
        self._draw_windows(env, windows, snapshot)
        self._draw_lines(env, snapshot)
        self.set_selected(self.selected)
        self._limit_view(env.time.start, self._end)
        if fit or self._needs_fit:
            self.fit()
            self._needs_fit = env.time.horizon is None and not windows
        if snapshot is None:
            self._draw_in_turn()
        else:  # Cycles mode: Play steps several times a second, and the lower layers would flicker
            self.finish_drawing()

    def fit_next(self) -> None:
        """Show the next picture whole (and the one after, while it has no windows yet): another
        document is on its way, and the zoom of the last one means nothing for it."""
        self._needs_fit = True

    def _draw_in_turn(self) -> None:
        """Above ``STAGGER_RECTS`` rectangles, paint the cached layers one at a time, windows first.

        Each cached layer draws all its rectangles into its cache on the first paint after a change:
        on the whole KTH trace 218,000 window parts, 142,000 released tails and 65,000 free slots,
        together 35 ms idle and up to 80 ms while the worker still computes, on top of the result's
        delivery. Hiding the lower layers and showing each once the one before has painted keeps
        every paint to one layer's share; the picture is whole a few frames later. (Only for a
        result: the steps of Cycles mode are drawn whole.)
        """
        self.finish_drawing()
        order = (self.windows, self.tasks, self.released, self.slots)
        if sum(layer.count for layer in order) < STAGGER_RECTS:
            return
        # The windows too wait for the next turn of the event loop: the paint that shows them then
        # comes apart from the work of handing the result over (at 200,000 jobs about 80 ms each).
        self._in_turn = [layer for layer in order if layer.count]
        for layer in self._in_turn:
            layer.setVisible(False)
        self._next_layer.start()
        self._all_layers.start()
        self.drawing = True

    def _show_next_layer(self) -> None:
        """Show the next layer waiting its turn, or, once the last one has painted, say so."""
        if not self._in_turn:
            self.finish_drawing()
            return
        layer = self._in_turn.pop(0)
        layer.after_paint = self._next_layer.start
        layer.setVisible(True)

    def finish_drawing(self) -> None:
        """Show every layer still waiting its turn (before a grab of the picture, or when time is up)."""
        self._all_layers.stop()
        self._next_layer.stop()
        for layer in (self.windows, *self._in_turn):
            layer.after_paint = None
            layer.setVisible(True)
        self._in_turn = []
        if self.drawing:
            self.drawing = False
            self.drawn.emit()

    def _draw_site_lines(self) -> None:
        """A separator above each site's header row (seed 004 grids)."""
        for line in self._site_lines:
            self.removeItem(line)
        self._site_lines = []
        for row, _ in self.rows.headers:
            if row == 0:
                continue
            line = pg.InfiniteLine(pos=row - (1 - ROW_HEIGHT) / 2, angle=0, pen=pg.mkPen("#505050", width=1.5))
            line.setZValue(5)
            self.addItem(line, ignoreBounds=True)
            self._site_lines.append(line)

    def _default_rows(self, env: Environment) -> bool:
        """Is each node drawn on its own row, in node order (the rows a prepared layer assumes)?"""
        return not env.site_ids and self.row_order == "list"

    def _draw_slots(self, env: Environment, windows: list[Window], free: SlotTable | None = None) -> None:
        """The free slots, faint: ``free`` when the worker prepared them, else computed here."""
        key = (env.nodes, env.local_tasks, env.time, list(windows))
        last = self._free_for
        if free is not None:
            table = free
        elif last is not None and last[0] == key:
            # Same nodes, tasks, time and windows as the table last drawn (an edit of a job's request keeps
            # the old windows on screen until its result arrives): no need to take them out again.
            table = last[1]
        elif self.snapshot is not None and len(windows) > FREE_HERE:
            # A step of a trace (9,000 windows: 100 ms to take out): in a worker; the slots drawn
            # before stay until it answers, so a step or a jump never waits for this faint layer.
            base = self._table or SlotTable.from_environment(env)
            self._free_call.start(lambda token: (key, base.reserve(windows)))
            return
        else:
            table = (self._table or SlotTable.from_environment(env)).reserve(windows)
        self._free_for = (key, table)
        slot_end = np.minimum(table.end, self._end)
        # A node's bar: ROW_HEIGHT, or its strip of a collapsed lane.
        top, height = geometry.slot_bars(self.rows.y[table.node], self.rows.h[table.node])
        self.slots.set_rects(
            table.start,
            top,
            slot_end - table.start,
            height,
            np.zeros(table.size, dtype=np.int64),
            [QColor(palette.free_slot())],
            row=table.node,
        )

    def _free_taken(self, ticket: int, answer: object, error: str | None) -> None:
        """The free slots of a large step, taken out in the worker: drawn if still the step shown."""
        if ticket != self._free_call.ticket or error is not None or not isinstance(answer, tuple) or self.env is None:
            return
        key, table = answer
        if key[3] == list(self._window_list) and key[0] == self.env.nodes:
            self._free_for = (key, table)
            self._draw_slots(self.env, self._window_list, table)

    def _draw_tasks(self, env: Environment) -> None:
        index = env.node_index
        kinds = list(palette.TASK_COLOURS)
        tasks = env.local_tasks
        at = np.fromiter((index[t.node] for t in tasks), np.int64, len(tasks))
        self.tasks.set_rects(
            np.fromiter((t.start for t in tasks), float, len(tasks)),
            self.rows.y[at],
            np.fromiter((t.end - t.start for t in tasks), float, len(tasks)),
            self.rows.h[at],
            np.fromiter((kinds.index(t.kind) for t in tasks), np.int64, len(tasks)),
            [QColor(palette.TASK_COLOURS[k]) for k in kinds],
            row=at,
        )

    def _draw_windows(self, env: Environment, windows: list[Window], snapshot: Snapshot | None) -> None:
        now = snapshot.time if snapshot is not None else None
        ready = self._ready  # set only when ``windows`` are its schedule's
        rows = self.rows
        default = ready is not None and ready.window_layer is not None and self._default_rows(env)
        if default and ready is not None:  # prepared in the worker on these very rows
            parts = ready.parts
        elif ready is not None:  # prepared in the worker on rows in node order: only the rows move here
            parts = dataclasses.replace(
                ready.parts, y=rows.y[ready.parts.node], released_y=rows.y[ready.parts.released_node]
            )
        else:
            parts = geometry.window_parts(env, windows, self._actual_ends, now, rows.y)
        colouring = palette.colour_windows(
            env, windows, self.colour_by, self._actual_ends, now, self._groups, ready.by_job if ready else None
        )
        self._parts, self._colouring = parts, colouring
        count = len(colouring.colours)
        self._window_rect_job = parts.window
        light = [palette.planned_colour(c) for c in colouring.colours]
        edge = [QColor("#202020")] * count + [QColor("#606060")] * count
        if default and ready is not None and ready.window_layer is not None and self.colour_by == "job":
            self.windows.set_data(ready.window_layer, colouring.colours + light, edge)
        else:
            group = colouring.group[parts.window] if parts.window.size else np.empty(0, np.int64)
            group = np.where(parts.planned, group + count, group)
            self.windows.set_rects(
                parts.x, parts.y, parts.width, rows.h[parts.node], group, colouring.colours + light, edge,
                row=parts.node,
            )
        scale = rows.h[parts.released_node] / ROW_HEIGHT
        self.released.set_rects(
            parts.released_x,
            parts.released_y + 0.2 * scale,
            parts.released_width,
            (ROW_HEIGHT - 0.4) * scale,
            np.zeros(parts.released_x.size, dtype=np.int64),
            [palette.RELEASED],
            [QColor("#808080")],
            row=parts.released_node,
        )
        self._draw_hold(env, snapshot)
        extra = [("head's reservation", QColor(palette.HOLD))] if snapshot is not None and snapshot.hold else []
        self._key = ([*colouring.legend, *extra], snapshot is not None, env)
        self._set_key()
        self._draw_labels(env, windows)

    def _draw_hold(self, env: Environment, snapshot: Snapshot | None) -> None:
        """EASY's reservation for the blocked head at this step, outlined where and when it is held."""
        hold = snapshot.hold if snapshot is not None else None
        self.hold_label.setVisible(hold is not None)
        if hold is None:
            self.hold.clear()
            return
        job_id, start, length, nodes = hold
        name = env.job(job_id).name if job_id in env.job_index else job_id
        self.hold_label.setText(f"{name}: reserved", color=palette.HOLD)
        at = np.array([env.node_index[n] for n in nodes if n in env.node_index], np.int64)
        rows, height = self.rows.y[at], self.rows.h[at]
        size = np.full(rows.size, 1.0)
        self.hold.set_outlines(
            start * size,
            rows + 0.05 * height / ROW_HEIGHT,
            length * size,
            height - 0.1 * height / ROW_HEIGHT,
            QColor(palette.HOLD),
            2.0,
        )
        self.hold_label.setPos(start, float(rows.min()) if rows.size else 0.0)

    def toggle_site(self, site: str) -> None:
        """Collapse a grid machine to one lane (its header row), or open it again (a click on its header)."""
        self.collapsed ^= {site}
        if self.env is not None:
            self._draw(self.env, self._window_list, self.snapshot, fit=False)
            self.view.setYRange(-0.2, self.rows.count, padding=0.02)

    def _on_header_clicked(self, row: int) -> None:
        site = self.rows.site_at(row)
        if site is not None:
            self.toggle_site(site)

    def set_row_order(self, order: str) -> None:
        """View ▸ Sort node rows: the environment's order, or by performance or price."""
        if order == self.row_order:
            return
        self.row_order = order
        if self.env is not None:
            self._draw(self.env, self._window_list, self.snapshot, fit=False)

    def set_colour_by(self, mode: str) -> None:
        """View ▸ Colour windows by: job, criterion, status or cycle."""
        if mode == self.colour_by:
            return
        self.colour_by = mode
        if self.env is not None:
            self._draw_windows(self.env, self._window_list, self.snapshot)
            self._draw_focus()

    def _draw_lines(self, env: Environment, snapshot: Snapshot | None) -> None:
        now = snapshot.time if snapshot is not None else env.time.start
        key = (env.time, now, self._end if env.time.horizon is None else None)
        if key == getattr(self, "_lines_key", None):
            return
        self._lines_key = key
        for line in self._lines:
            self.removeItem(line)
        self._lines = []
        for x in geometry.cycle_marks(env, self._end):
            self._add_line(x, "#7f7f7f", Qt.PenStyle.DashLine)
        if env.time.horizon is not None:
            self._add_line(env.time.horizon, "#404040", Qt.PenStyle.SolidLine)
        self._add_line(now, "#d62728", Qt.PenStyle.SolidLine, width=2.0)

    def _add_line(self, x: float, colour: str, style: Qt.PenStyle, width: float = 1.5) -> None:
        line = pg.InfiniteLine(pos=x, angle=90, pen=pg.mkPen(colour, width=width, style=style))
        line.setZValue(5)
        self.addItem(line)
        self._lines.append(line)

    def set_time_unit(self, unit: str) -> None:
        """Show time in ``unit`` (a key of geometry.TIME_UNITS): the axis, its label and the cursor."""
        self.time_unit = unit
        axis = self.getPlotItem().getAxis("bottom")
        axis.setScale(1.0 / geometry.TIME_UNITS[unit][1])
        self.getPlotItem().setLabel("bottom", geometry.time_label(unit))
