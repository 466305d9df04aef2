"""The main window's exports: the chart as a publication figure (PNG, SVG, PDF) of what it shows,
the schedule shown (CSV, JSON, SWF, Batsim's jobs.csv) and the jobs as a Batsim workload, each
through a save dialog that reports what went wrong."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QInputDialog

from workbench.engine.errors import WorkbenchError
from workbench.engine.io.exports import write_schedule, write_workload
from workbench.gui.figure import Figure, figure_of, save_figure
from workbench.gui.file_dialogs import ask_file
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
            "collapsed": frozenset(self.chart.collapsed),
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

    def export_schedule(self, path: Path, style: str = "workbench") -> None:
        """The schedule shown: by the suffix, CSV (``style="batsim"``: Batsim's jobs.csv), JSON or SWF."""
        schedule = self.shown_schedule()
        if schedule is None:
            raise WorkbenchError("no result to export yet: run a strategy first")
        waiting = self.showing_snapshot.queue if self.showing_snapshot is not None else ()
        write_schedule(self.document.env, schedule, path, style, waiting)

    def export_schedule_dialog(self, kind: str, style: str = "workbench") -> None:
        what = "schedule as Batsim jobs.csv" if style == "batsim" else "schedule"
        self._export_dialog(what, kind, lambda path: self.export_schedule(path, style))

    def export_workload(self, path: Path) -> None:
        """The environment's jobs as a Batsim JSON workload."""
        write_workload(self.document.env, path)

    def export_workload_dialog(self) -> None:
        self._export_dialog("jobs as a Batsim workload", "json", self.export_workload)

    def _export_dialog(self, what: str, kind: str, export: Callable[[Path], None]) -> None:
        title = f"Export {what}" if " as " in what else f"Export {what} as {kind.upper()}"
        name = ask_file(self, title, self._folder(), f"*.{kind}", save=True)
        if not name:
            return
        try:
            export(Path(name if name.endswith(f".{kind}") else f"{name}.{kind}"))
        except Exception as exc:
            self.error(f"Cannot export the {what}", str(exc))
