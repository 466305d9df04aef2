"""The Gantt chart's job names: on the widest parts in view, at most MAX_LABELS at once, never cut at
the chart's edge (a mixin of ``GanttChart``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFont

from workbench.engine.model import Environment, Window
from workbench.gui import palette
from workbench.gui.gantt.geometry import ROW_HEIGHT

MAX_LABELS = 400  # job names drawn at once (on the widest parts in view)
LABEL_PX, LABEL_PAD = 6.5, 4  # a name's width in pixels: per character, and the margin


class ChartLabels:
    """Job names on the chart's windows (``GanttChart`` provides the attributes)."""

    env: Any
    rows: Any
    view: Any
    addItem: Any
    _colouring: Any
    _window_list: list[Window]
    _labels: list[Any]
    _label_part: list[int]
    _name_of: Any
    _draw_focus_labels: Any

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
            # The rows in view first (a few of hundreds): the rest reads only their parts (at 6 million
            # parts the whole arrays took 0.7 s a zoom).
            near = np.flatnonzero((parts.y + ROW_HEIGHT > y0) & (parts.y < y1))
            x, width = parts.x[near], parts.width[near]
            room = (np.minimum(x + width, x1) - np.maximum(x, x0)) * per_unit
            wide = room >= LABEL_PX * 3 + LABEL_PAD  # a name of three characters
            near, room = near[wide], room[wide]
            if near.size > 4 * MAX_LABELS:
                best = np.argpartition(-room, 4 * MAX_LABELS)[: 4 * MAX_LABELS]
                near, room = near[best], room[best]
            fits = [
                (float(r), int(k)) for k, r in zip(near, room, strict=True)
                if r >= LABEL_PX * len(self._name(int(parts.window[k]))) + LABEL_PAD
                and self.rows.node(int(parts.y[k])) is not None
            ]  # fmt: skip
            if len(fits) > MAX_LABELS:
                fits = sorted(fits, key=lambda f: -f[0])[:MAX_LABELS]
            chosen = np.array(sorted(k for _, k in fits), dtype=np.int64)
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
