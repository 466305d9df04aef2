"""One graphics item per layer of rectangles (docs/style.md point 6).

A ``RectLayer`` keeps parallel numpy arrays (x, y, width, height, colour group).
Painting fills a QRectF buffer backed by numpy memory (pyqtgraph's
``PrimitiveArray``, as its ``BarGraphItem`` does) with only the rectangles that
intersect the exposed area, and calls ``drawRects`` once per colour group: no
Python object per rectangle. Outlines are dropped when rows, or rectangles, are only a
few pixels across, where they would only darken the picture. Hit-testing is numpy on
the same arrays; the bounds are computed once per update.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from pyqtgraph.Qt import internals
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QImage, QPainter, QPen, QPixmapCache

from workbench.engine import kernels
from workbench.gui.gantt.geometry import LayerData, layer_data, paint_order, pixel_runs

OUTLINE_MIN_PIXELS = 4.0  # a rectangle this wide, at least, gets its outline ...
# Level of detail: above this many rectangles in view, those narrower than a pixel are merged into
# per-row strips of whole pixels (``_strips``), so that a zoomed-out trace paints rows × pixels, not
# millions of slivers; the pixels filled are the same.
LOD_RECTS = 20_000
LOD_CELLS = 40_000_000  # rows × pixels of the strip raster: above it, every rectangle is drawn
OUTLINE_ROW_PIXELS = 8.0  # ... where rows are this tall: on 5-pixel rows a wide job's parts read as beads


TOPMOST_FROM = 50_000  # rectangles from which a hit test is compiled (``kernels.topmost_at``)
CACHED_PICTURES = 6  # screen-sized pictures kept at once: the cached layers, the overview, a spare


def make_room_for_cached_layers() -> int:
    """Raise Qt's pixmap cache (10 MB by default) to hold ``CACHED_PICTURES`` pictures the size of the
    screen; its limit in KB. Each cached layer keeps one picture of the view, 3.6 MB for a 1300 ×
    700 plot at one device pixel a pixel: past 10 MB the cache dropped the windows' picture as
    soon as the next layer's went in, and a repaint for anything else drew every rectangle again
    (on a 200,000-job result, a second 80 ms paint of 6 million parts where a blit was meant)."""
    screen = QGuiApplication.primaryScreen()
    ratio = screen.devicePixelRatio() if screen is not None else 1.0
    width, height = (screen.size().width(), screen.size().height()) if screen is not None else (1920, 1080)
    need = int(CACHED_PICTURES * width * height * ratio * ratio * 4 / 1024) + 10_240
    if QPixmapCache.cacheLimit() < need:
        QPixmapCache.setCacheLimit(need)
    return QPixmapCache.cacheLimit()


class RectLayer(pg.GraphicsObject):
    """Many rectangles drawn as one item."""

    def __init__(self, z: float = 0.0, disjoint_rows: bool = False) -> None:
        """``disjoint_rows``: no two rectangles of a row overlap (a node's windows, its free slots),
        so the order groups are painted in shows nowhere, and a zoomed-out paint may put every
        group's slivers on screen as one image (``_blit``)."""
        super().__init__()
        self.setZValue(z)
        self.disjoint_rows = disjoint_rows
        self._x = self._y = self._w = self._h = np.empty(0)
        self._group = np.empty(0, dtype=np.int64)
        self._sorted: tuple[np.ndarray, ...] = (np.empty(0),) * 4
        self._starts = np.zeros(1, dtype=np.int64)
        self._brushes: list[QBrush] = []
        self._pens: list[QPen] = []
        self._buffer = internals.PrimitiveArray(QRectF, 4)
        self._row = np.empty(0, dtype=np.int64)  # each sorted rectangle's row (None-like when empty)
        self._sorted_group = np.empty(0, dtype=np.int64)
        self._opaque = True  # every brush opaque: the level of detail reads every group at once
        self._row_y = self._row_h = np.empty(0)
        self._median_h = 0.0
        self.lod_rects = LOD_RECTS
        self._bounds = QRectF()
        self.setFlag(self.GraphicsItemFlag.ItemUsesExtendedStyleOption)
        self.after_paint: Callable[[], None] | None = None  # called once, after the next paint

    @property
    def x(self) -> np.ndarray:
        """Left edges of the rectangles drawn (read-only views; ``set_rects`` replaces them)."""
        return _read_only(self._x)

    @property
    def y(self) -> np.ndarray:
        return _read_only(self._y)

    @property
    def w(self) -> np.ndarray:
        return _read_only(self._w)

    @property
    def h(self) -> np.ndarray:
        return _read_only(self._h)

    def set_rects(
        self,
        x: np.ndarray,
        y: np.ndarray,
        w: np.ndarray,
        h: np.ndarray,
        group: np.ndarray,
        colours: list[QColor],
        outline: list[QColor | None] | None = None,
        width: float = 1.0,
        dashed: bool = False,
        row: np.ndarray | None = None,
    ) -> None:
        """Replace every rectangle; ``group[i]`` indexes ``colours`` (and ``outline``). ``row[i]``: the
        row (a whole number) of a layer whose rectangles in one row share their y and height; with
        it, a zoomed-out view is drawn at a level of detail (``_strips``)."""
        x, y, w, h = (np.asarray(values, float) for values in (x, y, w, h))
        group = np.asarray(group, dtype=np.int64)
        rows = np.empty(0, dtype=np.int64) if row is None else np.asarray(row, dtype=np.int64)
        # Rectangles sorted by group (``geometry.paint_order``), so each group is one contiguous run;
        # given in that order already (a prepared result), they are kept as they are (a copy of
        # 218,000 parts took up to 18 ms).
        if bool((group[1:] >= group[:-1]).all()):
            data = layer_data(x, y, w, h, group, rows)
        else:
            order = paint_order(group)
            data = layer_data(*(np.take(v, order) for v in (x, y, w, h, group)), rows[order] if rows.size else rows)
        self.set_data(data, colours, outline, width, dashed)
        self._x, self._y, self._w, self._h, self._group = x, y, w, h, group  # given order: ``index_at``'s

    def _set_style(
        self, colours: list[QColor], outline: list[QColor | None] | None, width: float, dashed: bool
    ) -> None:
        self._brushes = [QBrush(c) for c in colours]
        self._pens = []
        for i in range(len(colours)):
            line = outline[i] if outline is not None else None
            pen = QPen(line) if line is not None else QPen(Qt.PenStyle.NoPen)
            pen.setCosmetic(True)
            pen.setWidthF(width)
            if dashed and line is not None:
                pen.setStyle(Qt.PenStyle.DashLine)
            self._pens.append(pen)

    def set_data(
        self,
        data: LayerData,
        colours: list[QColor],
        outline: list[QColor | None] | None = None,
        width: float = 1.0,
        dashed: bool = False,
    ) -> None:
        """Replace every rectangle by ``data``, worked out ahead (``geometry.layer_data``): nothing to
        sort, measure or check here."""
        self.prepareGeometryChange()
        self._x, self._y, self._w, self._h = data.x, data.y, data.w, data.h
        self._group = data.group
        self._sorted = (data.x, data.y, data.w, data.h)
        self._sorted_group = data.group
        self._row, self._row_y, self._row_h = data.row, data.row_y, data.row_h
        self._median_h = data.median_h
        self._starts = np.searchsorted(data.group, np.arange(len(colours) + 1))
        self._set_style(colours, outline, width, dashed)
        # (A see-through group with no rectangle, planned windows of a finished run, does not count.)
        self._opaque = all(c.alpha() == 255 for g, c in enumerate(colours) if self._starts[g + 1] > self._starts[g])
        left, top, right, bottom = data.bounds
        self._bounds = QRectF(left, top, right - left, bottom - top) if data.x.size else QRectF()
        self.update()

    def set_outlines(
        self, x: np.ndarray, y: np.ndarray, w: np.ndarray, h: np.ndarray, colour: QColor, width: float = 1.5
    ) -> None:
        """Dashed, unfilled rectangles in one colour (candidates, reservations)."""
        group = np.zeros(np.asarray(x).size, dtype=np.int64)
        self.set_rects(x, y, w, h, group, [QColor(0, 0, 0, 0)], [colour], width=width, dashed=True)

    def clear(self) -> None:
        empty = np.empty(0)
        self.set_rects(empty, empty, empty, empty, np.empty(0, np.int64), [])

    @property
    def count(self) -> int:
        return int(self._x.size)

    def paint(self, painter: QPainter, option: object, widget: object = None) -> None:
        try:
            self._paint(painter, option)
        finally:
            call, self.after_paint = self.after_paint, None
            if call is not None:
                call()

    def _paint(self, painter: QPainter, option: object) -> None:
        if self._x.size == 0:
            return
        exposed = option.exposedRect  # type: ignore[attr-defined]
        x, y, w, h = self._sorted
        everything = exposed.contains(self._bounds)  # all in view (a full view): no test per rectangle
        if everything:
            visible = np.ones(x.size, dtype=bool)
        else:
            visible = (
                (x <= exposed.right()) & (x + w >= exposed.left()) & (y <= exposed.bottom()) & (y + h >= exposed.top())
            )
        transform = painter.transform()
        row_pixels = abs(transform.m22()) * self._median_h
        # An outline only where it can be seen around a fill: rows and rectangles a few pixels
        # across. A year of a trace at full view is mostly slivers, and outlining each one drew the
        # picture nearly black (and took most of the paint's time).
        outlined = (w * abs(transform.m11()) >= OUTLINE_MIN_PIXELS) if row_pixels >= OUTLINE_ROW_PIXELS else None
        no_pen = QPen(Qt.PenStyle.NoPen)
        lod = self._lod_frame(transform, exposed, x.size if everything else int(np.count_nonzero(visible)))
        strips: tuple[list[np.ndarray] | None, np.ndarray] | None = None
        if lod is not None and self._opaque:
            # Every group's slivers in one pass: with opaque brushes the last group painted over a
            # pixel is the one seen, and the cells keep exactly that one. They go on screen as one
            # image where they can (``_blit``), else as each group's runs of pixels.
            cells, wide = self._thin(None if everything else np.flatnonzero(visible), lod)
            # (An outline reaches past its rectangle onto the slivers beside it: then the order of
            # groups shows, and only their runs keep it.)
            blitted = outlined is None and self.disjoint_rows and self._blit(painter, cells, lod)
            strips = (None if blitted else self._runs_by_group(cells), wide)
        for g in range(len(self._brushes)):
            lo, hi = self._starts[g], self._starts[g + 1]
            painter.setBrush(self._brushes[g])
            if strips is not None:
                runs, wide = strips
                if runs is not None:
                    self._fill_runs(painter, runs[g], lod, no_pen)  # type: ignore[arg-type]
                pick = wide[np.searchsorted(wide, lo) : np.searchsorted(wide, hi)]
            else:
                pick = np.arange(lo, hi) if everything else np.nonzero(visible[lo:hi])[0] + lo
                if lod is not None and pick.size:
                    cells, pick = self._thin(pick, lod)
                    self._fill_runs(painter, self._runs_by_group(cells)[g], lod, no_pen)
            if pick.size == 0:
                continue
            if outlined is None:
                self._draw(painter, pick, no_pen)
                continue
            edged = outlined[pick]
            self._draw(painter, pick[~edged], no_pen)
            self._draw(painter, pick[edged], self._pens[g])

    def _lod_frame(self, transform: object, exposed: QRectF, shown: int) -> tuple[float, float, int, int] | None:
        """(pixels per unit, device x of 0, first and last device column in view) when this paint
        draws at a level of detail: many rectangles in view, rows known, x not flipped or sheared."""
        if shown < self.lod_rects or not self._row.size:
            return None
        if not kernels.thin_cells.ready:  # never compiled on the GUI thread: the warm-up makes it ready
            return None
        m11, m31 = transform.m11(), transform.dx()  # type: ignore[attr-defined]
        if m11 <= 0 or transform.m12() != 0 or transform.m21() != 0:  # type: ignore[attr-defined]
            return None
        first = int(np.floor(exposed.left() * m11 + m31)) - 1
        last = int(np.ceil(exposed.right() * m11 + m31)) + 1
        if (last - first + 1) * self._row_y.size > LOD_CELLS:
            return None
        return m11, m31, first, last

    def _thin(self, pick: np.ndarray | None, lod: tuple[float, float, int, int]) -> tuple[np.ndarray, np.ndarray]:
        """The rectangles of ``pick`` (None: every one) narrower than a pixel as the pixels they fill,
        a row of cells per row holding the group code (+1) of the last one over each, and the
        others. A pixel column is filled where a rectangle covers its centre (as the raster engine
        fills an unsmoothed rectangle: ``kernels.thin_cells``), so the pixels filled are the ones
        the rectangles themselves fill (``tests/gui/test_lod.py``)."""
        m11, m31, first, last = lod
        x, _, w, _ = self._sorted
        columns = last - first + 1
        cells = np.zeros(self._row_y.size * (columns + 2), dtype=np.int16)
        every = pick is None
        pick = np.empty(0, dtype=np.int64) if pick is None else pick
        wide = np.empty(x.size if every else pick.size, dtype=np.int64)
        listed = kernels.thin_cells(
            x, w, self._row, self._sorted_group, pick, every, m11, m31, first, columns, cells, wide
        )
        return cells.reshape(self._row_y.size, columns + 2), wide[:listed]

    def _runs_by_group(self, cells: np.ndarray) -> list[np.ndarray]:
        """Each group's runs of filled cells (``geometry.pixel_runs``: rows, first column less one,
        last column), each drawn as one rectangle from pixel edge to pixel edge."""
        rows, opens, closes, code = pixel_runs(cells)
        order = np.argsort(code, kind="stable")  # by group, each in row order
        bounds = np.searchsorted(code[order], np.arange(len(self._brushes) + 2))
        return [
            np.stack([v[order[bounds[g + 1] : bounds[g + 2]]] for v in (rows, opens, closes)])
            for g in range(len(self._brushes))
        ]

    def _blit(self, painter: QPainter, cells: np.ndarray, lod: tuple[float, float, int, int]) -> bool:
        """Put the filled cells on screen as one image, each in its group's colour, on the device
        pixel rows its row's bar fills (a pixel row whose centre the bar covers, as for columns),
        before the wide rectangles (rows whose rectangles overlap nothing: ``disjoint_rows``).
        Drawing 100,000 runs as rectangles took 30 ms of a zoom at 200,000 jobs; the image, a few.
        False, and nothing drawn, where the image would not be the rectangles' very pixels: an
        antialiased painter, a device of more than one pixel a pixel, bars that share a pixel row."""
        device = painter.device()
        if painter.testRenderHint(QPainter.RenderHint.Antialiasing) or device is None:
            return False
        if device.devicePixelRatioF() != 1.0:
            return False
        transform = painter.transform()
        top = self._row_y * transform.m22() + transform.dy()
        bottom = (self._row_y + self._row_h) * transform.m22() + transform.dy()
        first_row = np.ceil(np.minimum(top, bottom) - 0.5).astype(np.int64)
        past_row = np.ceil(np.maximum(top, bottom) - 0.5).astype(np.int64)
        shown = np.flatnonzero(past_row > first_row)
        if shown.size == 0:
            return True  # no bar covers a pixel row's centre: nothing to fill
        order = shown[np.argsort(first_row[shown], kind="stable")]
        if np.any(first_row[order[1:]] < past_row[order[:-1]]):
            return False
        lo, hi = int(first_row[order[0]]), int(past_row[order[-1]])
        row_of = np.full(hi - lo, -1, dtype=np.int64)  # each device pixel row's bar
        spans = past_row[order] - first_row[order]
        within = np.arange(int(spans.sum())) - np.repeat(np.cumsum(spans) - spans, spans)
        row_of[np.repeat(first_row[order] - lo, spans) + within] = np.repeat(order, spans)
        colours = np.zeros(len(self._brushes) + 1, dtype=np.uint32)
        colours[1:] = [brush.color().rgba() for brush in self._brushes]
        picture = colours[cells[row_of, 1:-1]]
        picture[row_of < 0] = 0
        height, width = picture.shape
        image = QImage(picture.data, width, height, 4 * width, QImage.Format.Format_ARGB32)
        painter.save()
        painter.resetTransform()
        painter.drawImage(QPointF(lod[2], lo), image)
        painter.restore()
        return True

    def _fill_runs(self, painter: QPainter, runs: np.ndarray, lod: tuple[float, float, int, int], pen: QPen) -> None:
        """Fill the pixel runs (``_strip_runs``: rows, first column less one, last column) with the
        brush set."""
        if not runs.shape[1]:
            return
        m11, m31, first, _ = lod
        rows, opens, closes = runs
        self._buffer.resize(rows.size)
        memory = self._buffer.ndarray()
        memory[:, 0] = (opens + first - m31) / m11
        memory[:, 1] = self._row_y[rows]
        memory[:, 2] = (closes - opens) / m11
        memory[:, 3] = self._row_h[rows]
        painter.setPen(pen)
        painter.drawRects(*self._buffer.drawargs())

    def _draw(self, painter: QPainter, pick: np.ndarray, pen: QPen) -> None:
        """One ``drawRects`` call for the sorted rectangles ``pick``."""
        if pick.size == 0:
            return
        x, y, w, h = self._sorted
        self._buffer.resize(pick.size)
        memory = self._buffer.ndarray()
        memory[:, 0], memory[:, 1], memory[:, 2], memory[:, 3] = x[pick], y[pick], w[pick], h[pick]
        painter.setPen(pen)
        painter.drawRects(*self._buffer.drawargs())

    def boundingRect(self) -> QRectF:
        return self._bounds

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange: object = None) -> tuple[float, float] | None:
        if self._x.size == 0:
            return None
        if ax == 0:
            return float(self._x.min()), float((self._x + self._w).max())
        return float(self._y.min()), float((self._y + self._h).max())

    def index_at(self, point: QPointF) -> int | None:
        """The topmost rectangle under a point in data coordinates, by numpy hit-testing."""
        x, y = point.x(), point.y()
        if self._x.size >= TOPMOST_FROM and kernels.topmost_at.ready:  # (the warm-up makes it ready)
            at = int(kernels.topmost_at(*_float64(self._x, self._y, self._w, self._h), float(x), float(y)))
            return at if at >= 0 else None
        hit = np.nonzero((self._x <= x) & (x <= self._x + self._w) & (self._y <= y) & (y <= self._y + self._h))[0]
        return int(hit[-1]) if hit.size else None


def _float64(*columns: np.ndarray) -> tuple[np.ndarray, ...]:
    """The columns as the compiled kernels take them (no copy when they are so already)."""
    return tuple(np.ascontiguousarray(c, dtype=np.float64) for c in columns)


def _read_only(values: np.ndarray) -> np.ndarray:
    view = values.view()
    view.setflags(write=False)
    return view
