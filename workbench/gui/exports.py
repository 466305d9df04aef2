"""The main window's exports: the chart as a publication figure (PNG, SVG, PDF) of what it shows,
and the schedule shown (CSV or JSON), each through a save dialog that reports what went wrong."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog, QInputDialog

from workbench.engine.errors import WorkbenchError
from workbench.engine.io.envfile import write_json_atomic, write_text_atomic
from workbench.engine.io.result import schedule_to_csv, schedule_to_dict
from workbench.gui.figure import Figure, figure_of, save_figure
from workbench.gui.numbers import step_label


class Exports:
    """A mixin of ``MainWindow``: it reads the window's document, chart, state and shown snapshot."""

    document: Any
    chart: Any
    state: Any
    showing_snapshot: Any
    quiet: bool
    error: Callable[[str, str], None]
    shown_schedule: Callable[[], Any]
    _folder: Callable[[], str]

    def chart_figure(self) -> Figure:
        """A figure of what the chart shows: the same time span and rows, colours and highlight."""
        env = self.document.env
        (x0, x1), (y0, y1) = self.chart.view.viewRange()
        rows = (max(0, math.floor(min(y0, y1))), min(self.chart.rows.count, math.ceil(max(y0, y1))))
        options: dict[str, Any] = {
            "colour_by": self.chart.colour_by,
            "times": (x0, x1),
            "rows": rows if rows[1] > rows[0] else None,
            "highlight": self.state.job,
            "time_unit": self.chart.time_unit,
            "row_order": self.chart.row_order,
        }
        snap = self.showing_snapshot
        if snap is None:
            return figure_of(env, self.document.result, **options)
        fig = figure_of(env, snap.schedule, **options)
        name = env.name or "untitled environment"
        return replace(
            fig,
            windows=list(snap.windows),
            actual_ends=dict(snap.actual_ends),
            now=snap.time,
            title=f"{env.strategy.name} on {name}",
            subtitle=f"step {snap.step}: {step_label(snap.label, snap.time, self.chart.time_unit)}",
            hold=snap.hold,
        )

    def export_chart(self, path: Path, dpi: float = 150.0) -> None:
        """The chart as a publication figure: PNG at ``dpi``, SVG or PDF (the suffix decides)."""
        save_figure(self.chart_figure(), path, dpi=dpi)

    def export_chart_dialog(self, kind: str) -> None:
        dpi = 150
        if kind == "png" and not self.quiet:
            dpi, ok = QInputDialog.getInt(self, "Export chart as PNG", "Resolution (dots per inch):", 150, 30, 1200, 10)
            if not ok:
                return
        self._export_dialog("chart", kind, lambda path: self.export_chart(path, dpi))

    def export_schedule(self, path: Path) -> None:
        schedule = self.shown_schedule()
        if schedule is None:
            raise WorkbenchError("no result to export yet: run a strategy first")
        env = self.document.env
        if path.suffix.lower() == ".csv":
            waiting = self.showing_snapshot.queue if self.showing_snapshot is not None else ()
            write_text_atomic(schedule_to_csv(env, schedule, waiting), path)
        else:
            write_json_atomic(schedule_to_dict(env, schedule), path)

    def export_schedule_dialog(self, kind: str) -> None:
        self._export_dialog("schedule", kind, self.export_schedule)

    def _export_dialog(self, what: str, kind: str, export: Callable[[Path], None]) -> None:
        name, _ = QFileDialog.getSaveFileName(self, f"Export {what} as {kind.upper()}", self._folder(), f"*.{kind}")
        if not name:
            return
        try:
            export(Path(name if name.endswith(f".{kind}") else f"{name}.{kind}"))
        except Exception as exc:
            self.error(f"Cannot export the {what}", str(exc))
