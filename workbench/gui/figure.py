"""Publication figures of a schedule: PNG at a chosen DPI, SVG and PDF, on screen or headless.

The figure is painted with plain QPainter calls in the device's own coordinates
(no scaled scene, no cached pixmaps), so every SVG renderer (Qt's, librsvg,
browsers) and every PDF viewer sees the same rectangles, real text for the node
labels and the job names, and a time axis computed here from the same numbers as
the rectangles. It draws from ``gantt.geometry`` and ``palette``, like the
interactive chart, so the two cannot disagree. The title names the strategy and
the environment.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PySide6.QtCore import QMarginsF, QPointF, QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPageSize,
    QPainter,
    QPdfWriter,
    QPen,
    QTransform,
)

from workbench.engine.errors import WorkbenchError
from workbench.engine.model import Environment, Window
from workbench.engine.schedule import Schedule, WindowArrays
from workbench.gui import palette
from workbench.gui.gantt import geometry
from workbench.gui.gantt.geometry import ROW_HEIGHT
from workbench.gui.numbers import number, tick_strings, time

FORMATS = (".png", ".svg", ".pdf")
SCREEN_DPI = 96.0  # figure sizes are in pixels at this density
DEFAULT_WIDTH = 1100
MAX_DPI = 1200
MAX_PIXELS = 400_000_000  # a PNG larger than this would not fit in memory comfortably


MIN_OUTLINED_PX = 3.0  # narrower rectangles are drawn without an outline


@dataclass(frozen=True)
class Figure:
    """Everything a figure shows; ``times`` and ``rows`` select a part (default: all of it)."""

    env: Environment
    windows: Sequence[Window]
    actual_ends: Mapping[str, float]
    title: str
    subtitle: str = ""
    now: float | None = None  # a simulation step's time; None for a finished run
    colour_by: str = "job"
    times: tuple[float, float] | None = None
    rows: tuple[int, int] | None = None  # first row, one past the last
    highlight: str | None = None
    time_unit: str = "model"  # a key of geometry.TIME_UNITS
    row_order: str = "list"  # a key of geometry.ROW_ORDERS
    collapsed: frozenset[str] = frozenset()  # grid machines drawn as one lane, as on screen
    groups: Mapping[str, str] = field(default_factory=dict)  # Batch-slicer/BSF parts, for colour by batch
    extra_legend: Sequence[tuple[str, QColor]] = field(default_factory=tuple)
    # EASY at a step: the blocked head's reservation (job, start, length, nodes), outlined as on screen.
    hold: tuple[str, float, float, tuple[str, ...]] | None = None
    arrays: WindowArrays | None = None  # the windows as columns (``Schedule.arrays``), when a run made them

    @property
    def time_range(self) -> tuple[float, float]:
        if self.times is not None:
            return self.times
        return self.env.time.start, geometry.visible_end(self.env, self.windows)

    @property
    def row_range(self) -> tuple[int, int]:
        if self.rows is not None:
            return self.rows
        return 0, geometry.row_layout(self.env, self.row_order, self.collapsed).count


def figure_of(env: Environment, schedule: Schedule | None, **options: object) -> Figure:
    """A figure of a finished run, titled "STRATEGY on ENVIRONMENT" with its headline numbers."""
    name = env.name or "environment"
    if schedule is None:
        return Figure(env, (), {}, title=name, subtitle="no result", **options)  # type: ignore[arg-type]
    windows = list(schedule.windows)
    ends = {w.job: schedule.actual_end(env, w) for w in windows}
    placed, failed = len(windows), len(schedule.unscheduled)
    makespan = max((ends[w.job] for w in windows), default=env.time.start)
    unit = str(options.get("time_unit", "model"))
    subtitle = f"{placed} jobs placed, {failed} failed; makespan {time(makespan, unit)}"
    title = f"{schedule.strategy} on {name}"
    return Figure(
        env,
        windows,
        ends,
        title=title,
        subtitle=subtitle,
        groups=dict(schedule.groups),
        arrays=schedule.arrays,
        **options,  # type: ignore[arg-type]
    )


def default_height(fig: Figure) -> int:
    first, last = fig.row_range
    return int(min(max(140 + 22 * (last - first), 320), 1600))


def paint(fig: Figure, painter: QPainter, width: float, height: float) -> None:
    """Draw the figure into the rectangle (0, 0, width, height) of the painter's device."""
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
    painter.fillRect(QRectF(0, 0, width, height), QColor("#ffffff"))
    env = fig.env
    t0, t1 = fig.time_range
    if not t1 > t0:
        t1 = t0 + 1.0
    first, last = fig.row_range
    rows = max(last - first, 1)

    title_font, text_font, small_font = _font(13, bold=True), _font(10), _font(8.5)
    label_metrics = QFontMetricsF(text_font)
    layout = geometry.row_layout(env, fig.row_order, fig.collapsed)
    labels = geometry.row_labels(env, layout)[first:last]
    left = 16 + max((label_metrics.horizontalAdvance(t) for t in labels), default=40)
    right, top = 24.0, 58.0 if fig.subtitle else 40.0
    legend = palette.legend_entries([*_colouring(fig).legend, *fig.extra_legend], planned=fig.now is not None, env=env)
    legend_lines = _legend_layout(legend, width - 32, QFontMetricsF(small_font))
    bottom = 52.0 + 18 * len(legend_lines)
    plot = QRectF(left, top, max(width - left - right, 10), max(height - top - bottom, 10))
    row_px = plot.height() / rows

    def px(t: float | np.ndarray) -> float | np.ndarray:
        return plot.left() + (np.asarray(t) - t0) / (t1 - t0) * plot.width()

    def py(r: float | np.ndarray) -> float | np.ndarray:
        return plot.top() + (np.asarray(r) - first) * row_px

    # Title and subtitle.
    painter.setPen(QColor("#202020"))
    painter.setFont(title_font)
    painter.drawText(
        QRectF(16, 6, width - 32, 24), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, fig.title
    )
    if fig.subtitle:
        painter.setFont(text_font)
        painter.setPen(QColor("#505050"))
        painter.drawText(
            QRectF(16, 30, width - 32, 20), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, fig.subtitle
        )

    transform = painter.transform()  # figure units to the output's pixels (a 300 DPI PNG: 3.125)
    device_scale = transform.m11() if isinstance(transform, QTransform) else 1.0

    def rects(
        x: np.ndarray, y: np.ndarray, w: np.ndarray, h: float | np.ndarray, colour: QColor, edge: QColor | None
    ) -> None:
        """Rectangles in data coordinates (top ``y``, height ``h``), cut to the plot (no clip path:
        every renderer agrees)."""
        a, b = np.maximum(x, t0), np.minimum(x + w, t1)
        tall = np.broadcast_to(np.asarray(h, float), x.shape)
        keep = (b > a) & (y >= first) & (y < last)
        if not keep.any():
            return
        xa, xb, ya, hk = px(a[keep]), px(b[keep]), py(y[keep]), tall[keep] * row_px
        xa, xb, ya, hk = merge_slivers(xa, xb, ya, hk, device_scale)
        painter.setBrush(QBrush(colour))
        pen = QPen(edge) if edge is not None else QPen(Qt.PenStyle.NoPen)
        pen.setCosmetic(False)
        pen.setWidthF(0.8)
        # An outline on a rectangle narrower or lower than a few pixels is all outline: thousands of
        # them make a figure nearly black (and a huge SVG). Those are filled only.
        outlined = ((xb - xa) >= MIN_OUTLINED_PX) & (hk >= 4)
        bare = QPen(Qt.PenStyle.NoPen)
        for i in range(xa.size):
            painter.setPen(pen if outlined[i] else bare)
            painter.drawRect(QRectF(float(xa[i]), float(ya[i]), float(xb[i] - xa[i]), float(hk[i])))

    # Free slots, faint, as on screen.
    from workbench.engine.slots import SlotTable

    a = fig.arrays
    if a is not None:  # a compiled run's windows, as columns: no Python step per part
        part_start = a.start[a.part_window]
        table = SlotTable.from_environment(env).reserve_parts(a.part_node, part_start, part_start + a.part_length)
    else:
        table = SlotTable.from_environment(env, list(fig.windows))
    bar = layout.h  # per node: ROW_HEIGHT, or its strip of a collapsed machine's lane
    rects(
        table.start,
        layout.y[table.node] + 0.25 * bar[table.node],
        np.minimum(table.end, t1) - table.start,
        0.5 * bar[table.node],
        QColor(palette.FREE_SLOT),
        None,
    )
    for kind, colour in palette.TASK_COLOURS.items():
        at = np.array([env.node_index[t.node] for t in env.local_tasks if t.kind == kind], np.int64)
        if at.size:
            rects(
                np.array([t.start for t in env.local_tasks if t.kind == kind]),
                layout.y[at],
                np.array([t.end - t.start for t in env.local_tasks if t.kind == kind]),
                bar[at],
                QColor(colour),
                None,
            )

    parts = geometry.window_parts(env, fig.windows, fig.actual_ends, fig.now, layout.y, arrays=fig.arrays)
    colouring = _colouring(fig)
    group = colouring.group[parts.window] if parts.window.size else np.empty(0, np.int64)
    focus = (
        np.array([fig.windows[k].job == fig.highlight for k in parts.window], dtype=bool)
        if fig.highlight is not None and parts.window.size
        else np.zeros(parts.window.size, dtype=bool)
    )
    for g, colour in enumerate(colouring.colours):
        for planned in (False, True):
            pick = (group == g) & (parts.planned == planned)
            if not pick.any():
                continue
            fill = palette.planned_colour(colour) if planned else QColor(colour)
            if fig.highlight is not None:
                dim = pick & ~focus
                dim_h = bar[parts.node[dim]]
                rects(parts.x[dim], parts.y[dim], parts.width[dim], dim_h, _dimmed(fill), QColor("#c0c0c0"))
                pick = pick & focus
            edge = QColor("#606060") if planned else QColor("#202020")
            rects(parts.x[pick], parts.y[pick], parts.width[pick], bar[parts.node[pick]], fill, edge)
    scale = bar[parts.released_node] / ROW_HEIGHT
    rects(
        parts.released_x,
        parts.released_y + 0.2 * scale,
        parts.released_width,
        (ROW_HEIGHT - 0.4) * scale,
        palette.RELEASED,
        QColor("#808080"),
    )

    if fig.hold is not None:  # EASY's reservation for the blocked head, as the chart outlines it
        _job, start, length, held = fig.hold
        a, b = max(start, t0), min(start + length, t1)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(QColor(palette.HOLD), 2.0))
        for node in held:
            k = env.node_index.get(node, -1)
            row, tall = (float(layout.y[k]), float(bar[k])) if k >= 0 else (-1.0, ROW_HEIGHT)
            if b > a and first <= row < last:
                top = float(py(row)) + 0.05 * tall / ROW_HEIGHT * row_px
                painter.drawRect(
                    QRectF(float(px(a)), top, float(px(b) - px(a)), (tall - 0.1 * tall / ROW_HEIGHT) * row_px)
                )

    # Job names on every part wide enough (and a row tall enough) to hold them.
    if row_px * ROW_HEIGHT >= 11:
        painter.setFont(small_font)
        names = QFontMetricsF(small_font)
        for k in range(parts.window.size):
            a, b = max(parts.x[k], t0), min(parts.x[k] + parts.width[k], t1)
            if b <= a or not first <= parts.y[k] < last or layout.node(int(parts.y[k])) is None:
                continue  # outside, or on a collapsed machine's lane (names there would overprint)
            window = fig.windows[int(parts.window[k])]
            name = env.job(window.job).name
            box = QRectF(float(px(a)), float(py(parts.y[k])), float(px(b) - px(a)), ROW_HEIGHT * row_px)
            if names.horizontalAdvance(name) + 4 > box.width():
                continue
            colour = colouring.colours[int(group[k])]
            painter.setPen(palette.text_colour_on(colour))
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, name)

    # Lines: cycles, horizon, now.
    def vline(t: float, colour: str, style: Qt.PenStyle, w: float) -> None:
        if t0 <= t <= t1:
            pen = QPen(QColor(colour), w, style)
            painter.setPen(pen)
            x = float(px(t))
            painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()))

    for t in geometry.cycle_marks(env, t1):
        vline(t, "#7f7f7f", Qt.PenStyle.DashLine, 1.0)
    if env.time.horizon is not None:
        vline(env.time.horizon, "#404040", Qt.PenStyle.SolidLine, 1.2)
    vline(fig.now if fig.now is not None else env.time.start, "#d62728", Qt.PenStyle.SolidLine, 1.6)

    # Axes: node labels (thinned to stay legible) and round time ticks.
    painter.setPen(QPen(QColor("#404040"), 1.0))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRect(plot)
    painter.setFont(text_font)
    step = max(1, math.ceil(15 / max(row_px, 1e-9)))
    headers = [row - first for row, _ in layout.headers if first <= row < last]
    for i, text in enumerate(labels):
        if i not in headers and (i % step or any(abs(i - h) < step for h in headers)):
            continue  # thinned; a site header is always named
        box = QRectF(0, float(py(first + i)), left - 8, ROW_HEIGHT * row_px)
        painter.drawText(box, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, text)
    painter.setPen(QPen(QColor("#505050"), 1.5))
    for h in headers:  # a separator above each site (seed 004 grids)
        if h > 0:
            y_sep = float(py(first + h - (1 - ROW_HEIGHT) / 2))
            painter.drawLine(QPointF(plot.left(), y_sep), QPointF(plot.right(), y_sep))
    per = geometry.TIME_UNITS[fig.time_unit][1]
    ticks = geometry.nice_ticks(t0 / per, t1 / per, max(2, int(plot.width() / 90)))
    # Labelled as the chart's axis labels them (numbers.tick_strings), so screen and export agree.
    for tick, text in zip(ticks, tick_strings(ticks, ticks[1] - ticks[0] if len(ticks) > 1 else 1.0), strict=True):
        x = float(px(tick * per))
        painter.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 5))
        painter.drawText(QRectF(x - 50, plot.bottom() + 6, 100, 16), Qt.AlignmentFlag.AlignHCenter, text)
    painter.drawText(
        QRectF(plot.left(), plot.bottom() + 22, plot.width(), 16),
        Qt.AlignmentFlag.AlignHCenter,
        geometry.time_label(fig.time_unit),
    )

    # The key, under the axis.
    painter.setFont(small_font)
    y = plot.bottom() + 44
    for line in legend_lines:
        x = 16.0
        for (marker, text, colour), advance in line:
            _marker(painter, marker, colour, QRectF(x, y + 3, 14, 9))
            painter.setPen(QColor("#303030"))
            painter.drawText(QRectF(x + 18, y, advance, 15), Qt.AlignmentFlag.AlignVCenter, text)
            x += 18 + advance + 14
        y += 18


FIGURE_LOD = 2_000  # slivers of one colour, past which they are drawn as per-row strips


def merge_slivers(
    xa: np.ndarray, xb: np.ndarray, ya: np.ndarray, hk: np.ndarray, scale: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rectangles [xa, xb) × [ya, ya + hk) in figure units, their slivers (narrower than a device
    pixel, ``scale`` pixels a unit) merged, per row, into runs of the whole pixels whose centres they
    cover: the pixels a raster fills are the same, and a trace's figure is rows × pixels, not
    millions of rectangles (a 10,000-job SVG was 14.6 MB). Fewer than ``FIGURE_LOD`` slivers, or a
    flipped scale, are left as they are."""
    thin = (xb - xa) * scale < 1.0
    if int(thin.sum()) < FIGURE_LOD or scale <= 0:
        return xa, xb, ya, hk
    left, right = xa[thin] * scale, xb[thin] * scale
    begin = np.ceil(left - 0.5)
    covered = np.ceil(right - 0.5) > begin
    top, row = np.unique(ya[thin], return_inverse=True)  # a row's rectangles share their top and height
    height = np.zeros(top.size)
    height[row] = hk[thin]
    tops = np.stack([top, height])
    first = int(begin.min()) if begin.size else 0
    columns = int(begin.max()) - first + 1 if begin.size else 1
    cells = np.zeros((tops.shape[1], columns + 2), dtype=np.int8)
    cells[row[covered], begin[covered].astype(np.int64) - first + 1] = 1
    rows, opens, closes, _ = geometry.pixel_runs(cells)
    wide = ~thin
    return (
        np.concatenate([xa[wide], (opens + first) / scale]),
        np.concatenate([xb[wide], (closes + first) / scale]),
        np.concatenate([ya[wide], tops[0, rows]]),
        np.concatenate([hk[wide], tops[1, rows]]),
    )


def _colouring(fig: Figure) -> palette.Colouring:
    return palette.colour_windows(fig.env, fig.windows, fig.colour_by, fig.actual_ends, fig.now, fig.groups)


def _dimmed(colour: QColor) -> QColor:
    """The colour seen through the chart's veil (white at VEIL's opacity over it)."""
    a = palette.VEIL.alphaF()
    mix = [round(c * (1 - a) + 255 * a) for c in (colour.red(), colour.green(), colour.blue())]
    return QColor(*mix)


def _font(points: float, bold: bool = False) -> QFont:
    font = QFont("DejaVu Sans")
    font.setStyleHint(QFont.StyleHint.SansSerif)
    font.setPixelSize(round(points * SCREEN_DPI / 72))
    font.setBold(bold)
    return font


def _legend_layout(
    entries: list[tuple[str, str, QColor]], width: float, metrics: QFontMetricsF
) -> list[list[tuple[tuple[str, str, QColor], float]]]:
    lines: list[list[tuple[tuple[str, str, QColor], float]]] = [[]]
    x = 0.0
    for entry in entries:
        advance = metrics.horizontalAdvance(entry[1])
        if lines[-1] and x + 32 + advance > width:
            lines.append([])
            x = 0.0
        lines[-1].append((entry, advance))
        x += 32 + advance
    return lines


def _marker(painter: QPainter, marker: str, colour: QColor, box: QRectF) -> None:
    if marker in ("line", "dash"):
        style = Qt.PenStyle.DashLine if marker == "dash" else Qt.PenStyle.SolidLine
        painter.setPen(QPen(colour, 2.0, style))
        painter.drawLine(QPointF(box.center().x(), box.top() - 2), QPointF(box.center().x(), box.bottom() + 2))
        return
    painter.setPen(QPen(colour, 1.0) if marker == "hollow" else QPen(Qt.PenStyle.NoPen))
    painter.setBrush(QBrush(QColor("#ffffff") if marker == "hollow" else colour))
    painter.drawRect(box)


def save_figure(fig: Figure, path: Path, dpi: float = 150.0, size: tuple[int, int] | None = None) -> None:
    """Write the figure; the suffix picks the format. Written to a temporary file, then renamed."""
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise WorkbenchError(f"{path}: a figure is .png, .svg or .pdf, not {suffix or 'no suffix'!r}")
    if not 10 <= dpi <= MAX_DPI:
        raise WorkbenchError(f"--dpi: must be between 10 and {MAX_DPI}, got {number(dpi)}")
    width, height = size if size is not None else (DEFAULT_WIDTH, default_height(fig))
    if not (100 <= width <= 20_000 and 100 <= height <= 20_000):
        raise WorkbenchError(f"--size: each side must be 100 to 20000 pixels, got {width}x{height}")
    tmp = path.with_name(f".{path.name}.tmp{suffix}")
    try:
        if suffix == ".png":
            scale = dpi / SCREEN_DPI
            pixels = QSize(round(width * scale), round(height * scale))
            if pixels.width() * pixels.height() > MAX_PIXELS:
                raise WorkbenchError(
                    f"--dpi: {pixels.width()}x{pixels.height()} pixels is too large; lower the DPI or the size"
                )
            image = QImage(pixels, QImage.Format.Format_ARGB32)
            image.setDotsPerMeterX(round(dpi / 0.0254))
            image.setDotsPerMeterY(round(dpi / 0.0254))
            painter = QPainter(image)
            painter.scale(scale, scale)
            paint(fig, painter, width, height)
            painter.end()
            if not image.save(str(tmp), "PNG"):
                raise WorkbenchError(f"{path}: cannot write the image")
        elif suffix == ".svg":
            from PySide6.QtCore import QRect
            from PySide6.QtSvg import QSvgGenerator

            generator = QSvgGenerator()
            generator.setFileName(str(tmp))
            generator.setSize(QSize(width, height))
            generator.setViewBox(QRect(0, 0, width, height))
            generator.setResolution(round(SCREEN_DPI))
            generator.setTitle(fig.title)
            generator.setDescription(fig.subtitle)
            painter = QPainter(generator)
            paint(fig, painter, width, height)
            painter.end()
        else:
            writer = QPdfWriter(str(tmp))
            writer.setResolution(round(SCREEN_DPI))
            writer.setPageSize(
                QPageSize(QSizeF(width * 72 / SCREEN_DPI, height * 72 / SCREEN_DPI), QPageSize.Unit.Point)
            )
            writer.setPageMargins(QMarginsF(0, 0, 0, 0))
            writer.setTitle(fig.title)
            writer.setCreator("Slot Workbench")
            painter = QPainter(writer)
            paint(fig, painter, width, height)
            painter.end()
        if not tmp.is_file() or tmp.stat().st_size == 0:
            raise WorkbenchError(f"{path}: cannot write the figure (is the folder writable?)")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
