"""The chart's level of detail (``gui/gantt/layers.py``): which pixels of each row the slivers of a
zoomed-out picture fill, in one pass over them.

A trace of 200,000 jobs has millions of window parts; at full view nearly all are narrower than a
pixel. Working that out in numpy took a dozen passes over them (about 200 ms a repaint); here it is
one. ``tests/gui/test_lod.py`` holds it to the numpy it replaced.
"""

from __future__ import annotations

import math

import numpy as np

from workbench.engine.kernels.jit import compiled


@compiled
def thin_cells(
    x: np.ndarray,
    w: np.ndarray,
    rows: np.ndarray,
    group: np.ndarray,
    pick: np.ndarray,
    every: bool,
    scale: float,
    shift: float,
    first: int,
    columns: int,
    cells: np.ndarray,
    wide: np.ndarray,
) -> int:
    """For each rectangle ``pick[k]`` (with ``every``, each rectangle: a full view need not list
    millions): narrower than a pixel (``w * scale < 1``), mark the pixel column
    whose centre it covers, if any, in ``cells`` (rows of ``columns + 2``, column ``c`` of the view at
    ``c - first + 1``) with its ``group`` + 1 (a later rectangle's over an earlier one's, as a
    later one is painted over); wider, list it in ``wide``. The count listed in ``wide``."""
    width = columns + 2
    listed = 0
    for k in range(x.size if every else pick.size):
        i = k if every else pick[k]
        span = w[i] * scale
        if span >= 1.0:
            wide[listed] = i
            listed += 1
            continue
        left = x[i] * scale + shift
        begin = math.ceil(left - 0.5)
        if math.ceil(left + span - 0.5) > begin:
            column = int(begin) - first
            if 0 <= column < columns:
                cells[rows[i] * width + column + 1] = group[i] + 1
    return listed


@compiled
def topmost_at(x: np.ndarray, y: np.ndarray, w: np.ndarray, h: np.ndarray, px: float, py: float) -> int:
    """The last rectangle (the one painted on top) holding the point (``px``, ``py``), edges included;
    -1 for none. From the last one back, so a hit ends the scan: a mouse move over 6 million window
    parts read four numpy passes of every one (60-100 ms a move)."""
    for i in range(x.size - 1, -1, -1):
        if x[i] <= px <= x[i] + w[i] and y[i] <= py <= y[i] + h[i]:
            return i
    return -1
