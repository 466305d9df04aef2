"""The Cycles panel's parts: its plot, its two-line description and the helpers they share."""

from __future__ import annotations

import html
import math

import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QLabel

from workbench.engine.simulate import Snapshot
from workbench.gui.numbers import number


def last_finite(snapshots: list[Snapshot]) -> float:
    """The latest finite time of the steps (an endless run ends at t = inf)."""
    for snap in reversed(snapshots):
        if math.isfinite(snap.time):
            return snap.time
    return 0.0


SHOWN_IDS = 20  # a saturated queue holds thousands of jobs: a label lists the first few
PRESS_STEP = "Press Step to start a simulation of the current strategy."


def first_ids(ids: tuple[str, ...]) -> str:
    """The first ``SHOWN_IDS`` ids and how many more (— for none)."""
    if not ids:
        return "—"
    more = len(ids) - SHOWN_IDS
    return ", ".join(ids[:SHOWN_IDS]) + (f" … and {number(more)} more" if more > 0 else "")


class CyclesPlot(pg.PlotWidget):
    """The Cycles plot, asking for no more height than its minimum: the dock scrolls the panel, and
    pyqtgraph's own hint (480 px) made the panel twice the dock's height, the time axis far below."""

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self.minimumHeight())


class StepInfo(QLabel):
    """The step's description: a few lines, each cut to the width with an ellipsis (the first in
    bold), so that the panel keeps its height; every line, and more, in the tooltip."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.setTextFormat(Qt.TextFormat.RichText)
        self.shown: list[str] = []
        self.every: list[str] = []
        self.set_lines([text])

    def set_lines(self, shown: list[str], every: list[str] | None = None) -> None:
        """Show the lines ``shown``; the tooltip, and ``full_text``, hold ``every`` line (the shown ones
        if None)."""
        self.shown = shown
        self.every = shown if every is None else every
        self.setToolTip("\n".join(self.every))
        self._fit()

    def full_text(self) -> str:
        return "\n".join(self.every)

    def sizeHint(self) -> QSize:
        return QSize(200, self.fontMetrics().lineSpacing() * 2 + 2)

    def minimumSizeHint(self) -> QSize:
        return QSize(50, self.sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        width = max(self.width() - 2, 40)
        metrics = self.fontMetrics()
        bold = self.font()
        bold.setBold(True)
        lines = []
        for i, line in enumerate(self.shown[:2]):
            fm = QFontMetrics(bold) if i == 0 else metrics
            text = html.escape(fm.elidedText(line, Qt.TextElideMode.ElideRight, width))
            lines.append(f"<b>{text}</b>" if i == 0 else text)
        super().setText("<br>".join(lines))
