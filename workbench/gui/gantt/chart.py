"""The Gantt chart: a row per node, time left to right, one batched item per layer.

Layers, bottom to top: free slots (faint), local tasks by kind, job windows
coloured per job (planned ones lighter, the released tail of an early finish
hatched), the selection outline and the drag preview. Hovering shows a
tooltip; clicking a window selects its job; local tasks are moved and resized
by dragging (snapped to whole units) and added by double-clicking an empty spot.
The chart never edits anything itself: it emits what the user asked for.
"""

from __future__ import annotations

import contextlib
import dataclasses
import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QResizeEvent
from PySide6.QtWidgets import QLabel

from workbench.engine.model import Environment, Window
from workbench.engine.schedule import Schedule
from workbench.engine.simulate import Snapshot
from workbench.engine.slots import Distances, SlotTable, window_distances
from workbench.gui import palette, prepared
from workbench.gui.gantt import geometry, tooltips
from workbench.gui.gantt.geometry import ROW_HEIGHT
from workbench.gui.gantt.layers import RectLayer
from workbench.gui.gantt.navigation import ChartNavigation
from workbench.gui.gantt.parts import Drag, EditViewBox, NodeAxis, NumberAxis
from workbench.gui.numbers import number, time
from workbench.gui.workers import BackgroundCall

MAX_LABELS = 400  # job names drawn at once (on the widest parts in view)
FREE_HERE = 2000  # windows of a Cycles step whose free slots are taken out on the GUI thread; more: a worker
LABEL_PX, LABEL_PAD = 6.5, 4  # a name's width in pixels: per character, and the margin
EDGE_PIXELS = 6
KEY_POINTS = 8.0  # the key's font size
KEY_MARGIN = 40  # pixels the key leaves free across the chart's width
KEY_ROW = 30  # the title row's height at one line (pyqtgraph's)


# A fresh picture with more rectangles than this in its cached layers is painted a layer at a time.
STAGGER_RECTS = 150_000
STAGGER_MS = 500


class GanttChart(ChartNavigation, pg.PlotWidget):
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
        self.setBackground("w")
        plot = self.getPlotItem()
        plot.invertY(True)
        plot.showGrid(x=False, y=False)
        self.time_unit = "model"
        plot.setLabel("bottom", geometry.time_label(self.time_unit))
        plot.setMenuEnabled(False)
        plot.hideButtons()
        self.slots = RectLayer(z=0)
        self.tasks = RectLayer(z=1)
        # The released tail of an early finish lies under the job windows: others may run there.
        self.released = RectLayer(z=1.5)
        self.windows = RectLayer(z=2)
        # A fresh picture of many rectangles is drawn one cached layer per paint, windows first (see
        # ``_draw_in_turn``); the rest are shown after the one before has painted, or after at most
        # ``STAGGER_MS`` (a layer out of view never paints).
        self._in_turn: list[RectLayer] = []
        self.drawing = False  # layers still waiting their turn (``drawn`` follows)
        self._next_layer = QTimer(self, singleShot=True, interval=0)
        self._next_layer.timeout.connect(self._show_next_layer)
        self._all_layers = QTimer(self, singleShot=True, interval=STAGGER_MS)
        self._all_layers.timeout.connect(self.finish_drawing)
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
            ready = prepared.lookup(env, schedule)
            ends = ready.actual_ends if ready is not None else None
            self._actual_ends = (
                ends if ends is not None else {w.job: schedule.actual_end(env, w) for w in schedule.windows}
            )
            self._distances = dict(schedule.distances)
            self._groups = dict(schedule.groups)
        self._draw(env, list(schedule.windows) if schedule else list(windows or []), None, fit)

    def set_snapshot(self, env: Environment, snapshot: Snapshot) -> None:
        """Draw one step of a simulation: what has run, what is planned, the current time."""
        self._schedule = None
        self._actual_ends = dict(snapshot.actual_ends)
        self._distances = dict(snapshot.schedule.distances)
        self._groups = dict(snapshot.schedule.groups)
        self._draw(env, list(snapshot.windows), snapshot, fit=False)

    def _draw(self, env: Environment, windows: list[Window], snapshot: Snapshot | None, fit: bool) -> None:
        if self.env is not None and self.env.nodes != env.nodes:
            self._needs_fit = True
        self.env, self.snapshot = env, snapshot
        self.rows = geometry.row_layout(env, self.row_order, self.collapsed)
        self._row_of = self.rows.row_of
        self.node_axis.set_labels(geometry.row_labels(env, self.rows), {row for row, _ in self.rows.headers})
        self._draw_site_lines()
        self._window_list = windows
        ready = prepared.lookup(env, self._schedule) if snapshot is None else None
        self._ready = ready
        self._end = ready.visible_end if ready is not None else geometry.visible_end(env, windows)
        if snapshot is None:
            self._live_end = self._end
        else:  # a step early in a run without a horizon ends near its start: keep the result's frame
            self._end = max(self._end, self._live_end)
        self._table = None if ready is not None else SlotTable.from_environment(env)
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
        self._in_turn = [layer for layer in order[1:] if layer.count]
        for layer in self._in_turn:
            layer.setVisible(False)
        self.windows.after_paint = self._next_layer.start
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
        height = self.rows.h[table.node]  # a node's bar: ROW_HEIGHT, or its strip of a collapsed lane
        self.slots.set_rects(
            table.start,
            self.rows.y[table.node] + ((1 - ROW_HEIGHT) / 2 + 0.25 * ROW_HEIGHT) * height / ROW_HEIGHT,
            slot_end - table.start,
            height * 0.5,
            np.zeros(table.size, dtype=np.int64),
            [QColor(palette.FREE_SLOT)],
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
        )

    def _draw_windows(self, env: Environment, windows: list[Window], snapshot: Snapshot | None) -> None:
        now = snapshot.time if snapshot is not None else None
        ready = self._ready  # set only when ``windows`` are its schedule's
        rows = self.rows
        if ready is not None:  # prepared in the worker on rows in node order: only the rows move here
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
        group = colouring.group[parts.window] if parts.window.size else np.empty(0, np.int64)
        group = np.where(parts.planned, group + count, group)
        self._window_rect_job = parts.window
        light = [palette.planned_colour(c) for c in colouring.colours]
        edge = [QColor("#202020")] * count + [QColor("#606060")] * count
        self.windows.set_rects(
            parts.x, parts.y, parts.width, rows.h[parts.node], group, colouring.colours + light, edge
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

    def _draw_labels(self, env: Environment, windows: list[Window]) -> None:
        """Forget which names were where: the parts changed (``_update_label_visibility`` places them)."""
        self._label_part = [-1] * len(self._labels)
        self._name_of = {}  # the names are made again when needed (``_name``)
        self._update_label_visibility()

    def _update_label_visibility(self, *_: object) -> None:
        """Job names on the parts in view: each in the middle of the part of its window in view, only
        where that part is wide enough for it (a name is never cut at the chart's edge) and the rows
        are tall enough to read, at most ``MAX_LABELS`` of them (the widest), reusing the text items
        (creating them is the slow part). A collapsed machine's lane stacks its nodes' parts, so names
        there would overprint: it gets none."""
        parts = getattr(self, "_parts", None)
        (x0, x1), (y0, y1) = self.view.viewRange()
        readable = self.view.height() / max(y1 - y0, 1e-9) * ROW_HEIGHT >= 11
        chosen = np.empty(0, dtype=np.int64)
        if parts is not None and readable and parts.window.size:
            per_unit = self.view.width() / max(x1 - x0, 1e-9)
            lo, hi = np.maximum(parts.x, x0), np.minimum(parts.x + parts.width, x1)
            room = (hi - lo) * per_unit
            rows = (parts.y + ROW_HEIGHT > y0) & (parts.y < y1)
            chosen = np.flatnonzero(rows & (room >= LABEL_PX * 3 + LABEL_PAD))  # a name of three characters
            if chosen.size > 4 * MAX_LABELS:
                chosen = chosen[np.argpartition(-room[chosen], 4 * MAX_LABELS)[: 4 * MAX_LABELS]]
            fits = [
                int(k) for k in chosen
                if room[k] >= LABEL_PX * len(self._name(int(parts.window[k]))) + LABEL_PAD
                and self.rows.node(int(parts.y[k])) is not None
            ]  # fmt: skip
            if len(fits) > MAX_LABELS:
                fits = sorted(fits, key=lambda k: -room[k])[:MAX_LABELS]
            chosen = np.array(sorted(fits), dtype=np.int64)
        while len(self._labels) < chosen.size:
            label = pg.TextItem("", anchor=(0.5, 0.5))
            font = QFont()
            font.setPointSize(8)
            label.setFont(font)
            label.setZValue(4)
            self.addItem(label)
            self._labels.append(label)
            self._label_part.append(-1)
        if chosen.size:
            colours = self._colouring.colours
            group = self._colouring.group
        for i, label in enumerate(self._labels):
            if i >= chosen.size:
                label.setVisible(False)
                continue
            k = int(chosen[i])
            if self._label_part[i] != k:  # a name on another part: its text and colour
                self._label_part[i] = k
                w = int(parts.window[k])
                label.setText(self._name(w), color=palette.text_colour_on(colours[int(group[w])]))
            label.setPos((max(parts.x[k], x0) + min(parts.x[k] + parts.width[k], x1)) / 2, parts.y[k] + ROW_HEIGHT / 2)
            label.setVisible(True)
        self._draw_focus_labels()

    def _name(self, w: int) -> str:
        """The name of the job of window w drawn."""
        name = self._name_of.get(w)
        if name is None:
            name = self._name_of[w] = self.env.job(self._window_list[w].job).name if self.env is not None else ""
        return name

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

    def set_selected(self, job_id: str | None) -> None:
        """Outline every part of the job's window (or clear the outline), and bring it forward."""
        self.selected = job_id
        index = self.env.node_index if self.env is not None else {}
        window = next((w for w in self._window_list if w.job == job_id), None) if job_id is not None else None
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
        k = next((i for i, w in enumerate(self._window_list) if w.job == job), None) if job is not None else None
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

    def _draw_focus_labels(self) -> None:
        """Names on the focused job's parts in full, the others dimmed with their parts."""
        focused = getattr(self, "_focused_parts", set())
        for label, k in zip(self._labels, self._label_part, strict=True):
            label.setOpacity(1.0 if not focused or k in focused else 0.35)

    # ------------------------------------------------------------ hit-testing and tooltips

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
            others = [w for w in self._window_list if w.job != window.job]
            with contextlib.suppress(ValueError):
                seen = window_distances(SlotTable.from_environment(env, others), window)
        actual = self._actual_ends.get(window.job)
        now = self.snapshot.time if self.snapshot is not None else None
        return tooltips.window_tip(env, window, self.time_unit, actual, seen, measured, now)

    def _t(self, t: float) -> str:
        """A time or a duration as the user reads it: in View ▸ Time unit, with the unit's name."""
        return time(t, self.time_unit)

    def set_time_unit(self, unit: str) -> None:
        """Show time in ``unit`` (a key of geometry.TIME_UNITS): the axis, its label and the cursor."""
        self.time_unit = unit
        axis = self.getPlotItem().getAxis("bottom")
        axis.setScale(1.0 / geometry.TIME_UNITS[unit][1])
        self.getPlotItem().setLabel("bottom", geometry.time_label(unit))

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
