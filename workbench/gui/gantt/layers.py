"""One graphics item per layer of rectangles (STYLE.md point 6).

A ``RectLayer`` keeps parallel numpy arrays (x, y, width, height, colour
group) and records them once into a ``QPicture`` with one ``drawRects`` call
per colour group, as pyqtgraph's ``BarGraphItem`` does. Panning and zooming
only replay the picture. Hit-testing is done with numpy on the same arrays.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QBrush, QColor, QPainter, QPen, QPicture


class RectLayer(pg.GraphicsObject):
    """Many rectangles drawn as one item."""

    def __init__(self, z: float = 0.0) -> None:
        super().__init__()
        self.setZValue(z)
        self._x = self._y = self._w = self._h = np.empty(0)
        self._group = np.empty(0, dtype=np.int64)
        self._brushes: list[QBrush] = []
        self._pens: list[QPen] = []
        self._picture: QPicture | None = None
        self._bounds = QRectF()

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
    ) -> None:
        """Replace every rectangle; ``group[i]`` indexes ``colours`` (and ``outline``)."""
        self.prepareGeometryChange()
        self._x, self._y = np.asarray(x, float), np.asarray(y, float)
        self._w, self._h = np.asarray(w, float), np.asarray(h, float)
        self._group = np.asarray(group, dtype=np.int64)
        self._brushes = [QBrush(c) for c in colours]
        pens = []
        for i in range(len(colours)):
            line = outline[i] if outline is not None else None
            pen = QPen(line) if line is not None else QPen(pg.mkColor(0, 0, 0, 0))
            pen.setCosmetic(True)
            pen.setWidthF(width)
            pens.append(pen)
        self._pens = pens
        self._picture = None
        if self._x.size:
            left, right = float(self._x.min()), float((self._x + self._w).max())
            top, bottom = float(self._y.min()), float((self._y + self._h).max())
            self._bounds = QRectF(left, top, right - left, bottom - top)
        else:
            self._bounds = QRectF()
        self.update()

    @property
    def count(self) -> int:
        return int(self._x.size)

    def _record(self) -> QPicture:
        picture = QPicture()
        painter = QPainter(picture)
        for g in range(len(self._brushes)):
            idx = np.nonzero(self._group == g)[0]
            if idx.size == 0:
                continue
            painter.setBrush(self._brushes[g])
            painter.setPen(self._pens[g])
            rects = [
                QRectF(float(a), float(b), float(c), float(d))
                for a, b, c, d in zip(self._x[idx], self._y[idx], self._w[idx], self._h[idx], strict=True)
            ]
            painter.drawRects(rects)
        painter.end()
        return picture

    def paint(self, painter: QPainter, *args: object) -> None:
        if self._picture is None:
            self._picture = self._record()
        self._picture.play(painter)

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
        hit = np.nonzero((self._x <= x) & (x <= self._x + self._w) & (self._y <= y) & (y <= self._y + self._h))[0]
        return int(hit[-1]) if hit.size else None
