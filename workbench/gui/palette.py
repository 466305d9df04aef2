"""Colours: a colour-blind-safe palette for jobs (Okabe-Ito, then Paul Tol's muted), greys for tasks."""

from __future__ import annotations

from PySide6.QtGui import QColor

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


def job_colour(index: int) -> QColor:
    return QColor(JOB_COLOURS[index % len(JOB_COLOURS)])


def text_colour_on(colour: QColor) -> QColor:
    """Black or white, whichever reads better on ``colour``."""
    luminance = 0.299 * colour.redF() + 0.587 * colour.greenF() + 0.114 * colour.blueF()
    return QColor("#000000") if luminance > 0.55 else QColor("#ffffff")


RELEASED = QColor(255, 255, 255, 170)  # the released tail of a job that finished early


def planned(colour: QColor) -> QColor:
    """A lighter version for windows that are reserved but have not started."""
    light = QColor(colour)
    light.setAlpha(110)
    return light


def legend_html() -> str:
    """A one-line key to the chart's colours and lines."""
    sw = "<span style='color:{}'>&#9632;</span>"
    parts = [
        f"{sw.format(TASK_COLOURS['local'])} local task",
        f"{sw.format(TASK_COLOURS['reserved'])} reserved",
        f"{sw.format(TASK_COLOURS['maintenance'])} maintenance",
        f"{sw.format('#c9d6e0')} free",
        f"{sw.format(JOB_COLOURS[0])}{sw.format(JOB_COLOURS[1])} jobs",
        "<span style='color:#808080'>&#9633;</span> released early",
        "<span style='color:#d62728'>|</span> now",
        "<span style='color:#7f7f7f'>¦</span> cycle",
        "<span style='color:#404040'>|</span> horizon",
    ]
    return "<span style='color:#333'>" + "  ".join(parts) + "</span>"
