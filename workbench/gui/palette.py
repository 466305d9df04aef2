"""Colours: a colour-blind-safe palette for jobs (Okabe-Ito, then Paul Tol's muted), greys for tasks.

A job's colour comes from its id, never from its position in a list, so deleting
or reordering jobs recolours nothing. Ids that end in a number (SWF job numbers,
``j17``) take the palette in turn by that number, so jobs with neighbouring ids,
which tend to be neighbours on the chart, never share a colour; other ids are
hashed (CRC-32, the same on every run and machine).
"""

from __future__ import annotations

import functools
import math
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from PySide6.QtGui import QColor, QFont, QFontMetricsF

from workbench.engine.model import EPS, Environment, Window

JOB_COLOURS = [
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#332288",
    "#88CCEE",
    "#44AA99",
    "#117733",
    "#999933",
    "#DDCC77",
    "#CC6677",
    "#882255",
    "#AA4499",
]

TASK_COLOURS = {
    "local": "#9a9a9a",
    "reserved": "#5b6770",
    "maintenance": "#b07a4f",
}

FREE_SLOT = "#eef3f7"
HIGHLIGHT = "#000000"
GHOST = "#d62728"  # Why here?: outlines of the candidates a strategy compared
HOLD = "#E4007C"  # EASY: the blocked head's reservation (a magenta no job colour comes near)


_TRAILING_NUMBER = re.compile(r"(\d{1,15})$")


@functools.lru_cache(maxsize=1 << 16)
def job_colour_index(job_id: str) -> int:
    """The palette entry of a job, from its id alone (kept: a 28,000-job chart asks for every one)."""
    match = _TRAILING_NUMBER.search(job_id)
    key = int(match.group(1)) if match else zlib.crc32(job_id.encode("utf-8"))
    return key % len(JOB_COLOURS)


def job_groups(windows: Sequence[Window]) -> np.ndarray:
    """Each window's palette entry under Colour by ▸ Job (no Qt: the worker prepares it)."""
    return np.fromiter((job_colour_index(w.job) for w in windows), np.int64, len(windows))


def job_colour(job_id: str) -> QColor:
    return QColor(JOB_COLOURS[job_colour_index(job_id)])


# What the windows can be coloured by (View ▸ Colour windows by).
COLOUR_BY = {
    "job": "Job",
    "criterion": "Criterion",
    "status": "Status",
    "batch": "Batch and slice",
    "user": "User",
}
CRITERION_COLOURS = {
    "start": "#0072B2",
    "finish": "#E69F00",
    "runtime": "#009E73",
    "cost": "#CC79A7",
    "proc_time": "#D55E00",
}
STATUS_COLOURS = {
    "ran its whole window": "#0072B2",
    "finished early": "#56B4E9",
    "running": "#009E73",
    "planned": "#E69F00",
}


@dataclass(frozen=True)
class Colouring:
    """A colour group per window, the colours, and the legend entries that explain them."""

    group: np.ndarray
    colours: list[QColor]
    legend: list[tuple[str, QColor]]


def colour_windows(
    env: Environment,
    windows: Sequence[Window],
    mode: str,
    actual_ends: Mapping[str, float],
    now: float | None,
    groups: Mapping[str, str] | None = None,
    by_job: np.ndarray | None = None,
) -> Colouring:
    """Colour groups for ``windows`` under a View ▸ Colour by ``mode`` (a key of COLOUR_BY);
    ``by_job``: ``job_groups(windows)`` when the worker prepared it."""
    if mode == "criterion":
        names = list(CRITERION_COLOURS)
        group = [names.index(env.job(w.job).criterion) for w in windows]
        colours = [QColor(c) for c in CRITERION_COLOURS.values()]
        used = sorted(set(group))
        return Colouring(np.array(group, np.int64), colours, [(f"criterion {names[g]}", colours[g]) for g in used])
    if mode == "status":
        names = list(STATUS_COLOURS)
        group = [names.index(_status(w, actual_ends.get(w.job, w.end), now)) for w in windows]
        colours = [QColor(c) for c in STATUS_COLOURS.values()]
        return Colouring(np.array(group, np.int64), colours, [(names[g], colours[g]) for g in sorted(set(group))])
    colours = [QColor(c) for c in JOB_COLOURS]
    if mode in ("batch", "user"):
        if mode == "batch":
            labels = [_batch_label(env, w, groups) for w in windows]
        else:
            labels = [f"user {env.job(w.job).user}" if env.job(w.job).user else "no user" for w in windows]
        order = {label: k for k, label in enumerate(sorted(set(labels), key=_natural))}
        group = [order[label] % len(colours) for label in labels]
        legend = [(label, colours[k % len(colours)]) for label, k in list(order.items())[:8]]
        if len(order) > 8:
            legend.append((f"… {len(order)} in all", QColor("#ffffff")))
        return Colouring(np.array(group, np.int64), colours, legend)
    group = job_groups(windows) if by_job is None else by_job
    # 16 colours by the id's number: the same job has the same colour under every strategy (so
    # Compare's charts read alike), and jobs 1 and 17 share one. The key says so; a window's label
    # and tooltip name its job.
    return Colouring(group, colours, [(f"jobs: {len(colours)} colours by id, repeating", colours[0])])


def _batch_label(env: Environment, window: Window, groups: Mapping[str, str] | None) -> str:
    """The batch a window was placed in: its cycle (with cycles) and its slice or part (Batch-slicer, BSF)."""
    parts = []
    if env.time.cycle_length:
        parts.append(f"cycle {math.floor((window.start - env.time.start) / env.time.cycle_length + EPS) + 1}")
    if groups and window.job in groups:
        parts.append(groups[window.job])
    return ", ".join(parts) or "one batch"


def _natural(label: str) -> list[object]:
    """Sort "cycle 10" after "cycle 9"."""
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", label)]


def _status(window: Window, actual_end: float, now: float | None) -> str:
    if now is not None and window.start > now + EPS:
        return "planned"
    if now is not None and actual_end > now + EPS:
        return "running"
    return "finished early" if actual_end < window.end - EPS else "ran its whole window"


def text_colour_on(colour: QColor) -> QColor:
    """Black or white, whichever reads better on ``colour``."""
    luminance = 0.299 * colour.redF() + 0.587 * colour.greenF() + 0.114 * colour.blueF()
    return QColor("#000000") if luminance > 0.55 else QColor("#ffffff")


def dark_theme() -> bool:
    """Whether the system theme draws light text on dark windows."""
    from PySide6.QtGui import QGuiApplication, QPalette

    return QGuiApplication.palette().color(QPalette.ColorRole.Window).lightnessF() < 0.5


DARK_BACKGROUND = "#1e2226"  # plots under a dark theme (a white block in a dark window glared)
DARK_FOREGROUND = "#c8ccd0"
DARK_FREE_SLOT = "#2c3946"


def plot_background() -> str:
    return DARK_BACKGROUND if dark_theme() else "w"


def free_slot() -> str:
    """The free slots' faint colour, on the theme's plot background."""
    return DARK_FREE_SLOT if dark_theme() else FREE_SLOT


def style_plot(plot: Any) -> None:
    """A pyqtgraph PlotWidget in the theme: its background, and under a dark one light axes and
    labels (the exported figure stays on white: ``figure.py``)."""
    import pyqtgraph as pg

    plot.setBackground(plot_background())
    if not dark_theme():
        return
    for name in ("left", "bottom", "right", "top"):
        axis = plot.getPlotItem().getAxis(name)
        axis.setPen(pg.mkPen(DARK_FOREGROUND))
        axis.setTextPen(pg.mkPen(DARK_FOREGROUND))


def error_style() -> str:
    """A style sheet for error text that reads on light and on dark themes."""
    return "color: #ff8a80" if dark_theme() else "color: #b00020"


def muted_text() -> QColor:
    """Text that is shown but cannot be edited: the theme's text colour, a third of the way to its background."""
    from PySide6.QtGui import QGuiApplication, QPalette

    pal = QGuiApplication.palette()
    text, base = pal.color(QPalette.ColorRole.Text), pal.color(QPalette.ColorRole.Base)
    mix = [round(a + (b - a) * 0.35) for a, b in zip(text.getRgb()[:3], base.getRgb()[:3], strict=True)]
    return QColor(*mix)


RELEASED = QColor(255, 255, 255, 170)  # the released tail of a job that finished early


def planned_colour(colour: QColor) -> QColor:
    """A lighter version for windows that are reserved but have not started."""
    light = QColor(colour)
    light.setAlpha(110)
    return light


VEIL = QColor(255, 255, 255, 175)  # over everything but the hovered or selected job


def legend_entries(
    jobs: Sequence[tuple[str, QColor]], planned: bool, env: Environment | None = None
) -> list[tuple[str, str, QColor]]:
    """(marker, text, colour) of every key entry: tasks, slots, the window colouring, the lines.

    With ``env``, only the task kinds it has, and the cycle and horizon lines only if it has them.
    """
    kinds = {t.kind for t in env.local_tasks} if env is not None else set(TASK_COLOURS)
    out = [
        ("box", f"{kind} task" if kind == "local" else kind, QColor(c))
        for kind, c in TASK_COLOURS.items()
        if kind in kinds
    ]
    out.append(("box", "free", QColor("#c9d6e0")))
    out += [("box", text, colour) for text, colour in jobs]
    if planned:
        out.append(("box", "planned (light)", planned_colour(QColor(JOB_COLOURS[0]))))
    out += [("hollow", "released early", QColor("#808080")), ("line", "now", QColor("#d62728"))]
    if env is None or env.time.cycle_length:
        out.append(("dash", "cycle", QColor("#7f7f7f")))
    if env is None or env.time.horizon is not None:
        out.append(("line", "horizon", QColor("#404040")))
    return out


def _on_white(colour: QColor) -> str:
    """The colour as it shows over the chart's white, opaque (rich text drops a colour's alpha, so
    the light "planned" key showed in the full colour)."""
    a = colour.alphaF()
    return QColor(*(round(v * a + 255 * (1 - a)) for v in (colour.red(), colour.green(), colour.blue()))).name()


def legend_html(
    jobs: Sequence[tuple[str, QColor]] = (),
    planned: bool = False,
    env: Environment | None = None,
    width: float = math.inf,
    font: QFont | None = None,
) -> str:
    """A key to the chart's colours and lines: one line, or as many as it takes to fit ``width``
    pixels in ``font`` (a narrow window cut a one-line key at both ends)."""
    glyph = {"box": "&#9632;", "hollow": "&#9633;", "line": "|", "dash": "¦"}
    plain = {"box": "\u25a0", "hollow": "\u25a1", "line": "|", "dash": "¦"}
    entries = legend_entries(jobs, planned, env)
    metrics = QFontMetricsF(font or QFont())
    lines: list[list[str]] = [[]]
    used = 0.0
    for m, text, c in entries:
        part = f"<span style='color:{_on_white(c)}'>{glyph[m]}</span> {text}"
        wide = metrics.horizontalAdvance(f"{plain[m]} {text}  ")
        if lines[-1] and used + wide > width:
            lines.append([])
            used = 0.0
        lines[-1].append(part)
        used += wide
    ink = DARK_FOREGROUND if dark_theme() else "#333"  # the key is drawn on the chart's background
    return f"<span style='color:{ink}'>" + "<br>".join("  ".join(line) for line in lines) + "</span>"
