"""The chart's level of detail (issue 45): zoomed out, rectangles narrower than a pixel are drawn as
per-row strips of whole pixels, and the picture is the one every rectangle drawn alone makes."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QColor

from workbench.engine import kernels
from workbench.gui.gantt.layers import RectLayer


def _scene(rng: np.random.Generator, rows: int = 6, count: int = 400):
    """Rows of slivers (and some wide rectangles, outlined) in three colour groups, in one time span."""
    row = rng.integers(0, rows, count)
    x = np.sort(rng.uniform(0, 1000, count))
    w = np.where(rng.random(count) < 0.85, rng.uniform(0.01, 1.5, count), rng.uniform(5, 60, count))
    group = rng.integers(0, 3, count)
    return x, row.astype(float) + 0.1, w, np.full(count, 0.8), group, row


def _disjoint_scene(rng: np.random.Generator, rows: int = 6, count: int = 400):
    """``_scene``'s kind of rows, each rectangle after the one before in its row (as a node's windows
    or free slots lie): where see-through groups overlap nothing."""
    x, y, w, h, group, row = _scene(rng, rows, count)
    for r in range(rows):
        mine = np.flatnonzero(row == r)
        gaps = rng.uniform(0.0, 1.0, mine.size)
        x[mine] = np.cumsum(gaps + np.concatenate(([0.0], w[mine][:-1]))) - 3.0
    return x, y, w, h, group, row


def _picture(
    layer_args, lod: bool, width: int = 300, shift: float = 0.0, alpha: int = 255, disjoint: bool = False
) -> bytes:
    x, y, w, h, group, row = layer_args
    plot = pg.PlotWidget()
    plot.resize(width, 160)
    plot.hideAxis("left")
    plot.hideAxis("bottom")
    layer = RectLayer(disjoint_rows=disjoint)
    layer.lod_rects = 0 if lod else 10**12
    colours = [QColor(208, 64, 64, alpha), QColor(64, 160, 64, alpha), QColor(64, 64, 208, alpha)]
    layer.set_rects(x, y, w, h, group, colours, [QColor("#202020")] * 3, row=row)
    plot.addItem(layer)
    plot.setXRange(-3.3 + shift, 1010.7 + shift, padding=0)
    plot.setYRange(0, int(row.max()) + 1, padding=0)
    plot.show()
    image = plot.grab().toImage()
    plot.close()
    return bytes(image.constBits())


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(("width", "shift"), [(300, 0.0), (257, 0.37)])
@pytest.mark.parametrize("alpha", [255, 140])
@pytest.mark.parametrize("rows", [6, 97])
@pytest.mark.parametrize("disjoint", [False, True])
def test_the_level_of_detail_picture_is_the_full_one_pixel_for_pixel(
    qtbot, monkeypatch, seed, width, shift, alpha, rows, disjoint
):
    """The same pixels, whether every sliver is drawn or their rows' strips are: opaque groups read in
    one pass (a pixel shows the last group over it), see-through ones a group at a time (their
    overlaps would blend, so their scene has none). Opaque slivers in rows whose rectangles overlap
    nothing (``disjoint_rows``), none outlined (97 rows in 160 pixels), go on screen as one image
    (``RectLayer._blit``), each bar on the pixel rows it covers; otherwise, and in the scene whose
    rows overlap across groups, as each group's runs."""
    kernels.prepare((kernels.thin_cells,))  # (a paint never compiles it: the window's warm-up does)
    overlapping = alpha == 255 and not disjoint
    scene = (_scene if overlapping else _disjoint_scene)(np.random.default_rng(seed), rows, 70 * rows)
    full = _picture(scene, lod=False, width=width, shift=shift, alpha=alpha, disjoint=disjoint)
    blits = []
    real = RectLayer._blit
    monkeypatch.setattr(RectLayer, "_blit", lambda *args: blits.append(real(*args)) or blits[-1])
    assert _picture(scene, lod=True, width=width, shift=shift, alpha=alpha, disjoint=disjoint) == full
    assert any(blits) == (rows == 97 and alpha == 255 and disjoint)  # the image, where it is the rectangles'


def _reference_thin_cells(x, w, rows, group, pick, scale, shift, first, columns, n_rows):
    """What the kernel computes, rectangle by rectangle: the pixels whose centres the thin rectangles
    cover, each holding the code (group + 1) of the last one over it, and the wide."""
    cells = np.zeros((n_rows, columns + 2), dtype=np.int16)
    wide = []
    for i in pick.tolist():
        span = w[i] * scale
        if span >= 1.0:
            wide.append(i)
            continue
        left = x[i] * scale + shift
        begin = math.ceil(left - 0.5)
        if math.ceil(left + span - 0.5) > begin and 0 <= begin - first < columns:
            cells[rows[i], begin - first + 1] = group[i] + 1
    return cells.ravel(), np.array(wide, dtype=np.int64)


@pytest.mark.parametrize("seed", range(5))
def test_the_thin_cells_kernel_equals_its_reference(seed):
    """``kernels.thin_cells`` marks the cells and lists the wide rectangles the plain loop does."""
    rng = np.random.default_rng(seed)
    n, n_rows = 5000, 7
    x, w = rng.uniform(-50, 1050, n), np.where(rng.random(n) < 0.8, rng.uniform(0, 2, n), rng.uniform(2, 40, n))
    rows = rng.integers(0, n_rows, n)
    group = rng.integers(0, 4, n)
    pick = np.sort(rng.choice(n, n // 2, replace=False))
    scale, shift = rng.uniform(0.3, 1.7), rng.uniform(-20, 20)
    first, columns = math.floor(shift) - 1, int(1000 * scale) + 3
    cells = np.zeros(n_rows * (columns + 2), dtype=np.int16)
    wide = np.empty(pick.size, dtype=np.int64)
    listed = kernels.thin_cells(x, w, rows, group, pick, False, scale, shift, first, columns, cells, wide)
    want_cells, want_wide = _reference_thin_cells(x, w, rows, group, pick, scale, shift, first, columns, n_rows)
    assert np.array_equal(cells, want_cells)
    assert np.array_equal(wide[:listed], want_wide)
    # Every rectangle, unlisted: as if each were picked.
    cells[:], every = 0, np.arange(n)
    wide = np.empty(n, dtype=np.int64)
    none = np.empty(0, np.int64)
    listed = kernels.thin_cells(x, w, rows, group, none, True, scale, shift, first, columns, cells, wide)
    want_cells, want_wide = _reference_thin_cells(x, w, rows, group, every, scale, shift, first, columns, n_rows)
    assert np.array_equal(cells, want_cells)
    assert np.array_equal(wide[:listed], want_wide)


@pytest.mark.parametrize("seed", range(3))
def test_pixel_runs_are_the_runs_of_one_code(seed):
    """``pixel_runs`` finds every maximal run of one non-zero code in each row, and nothing else."""
    from workbench.gui.gantt.geometry import pixel_runs

    rng = np.random.default_rng(seed)
    cells = rng.choice(np.array([0, 0, 1, 2, 3], dtype=np.int16), size=(6, 40))
    cells[:, 0] = cells[:, -1] = 0
    want = []
    for r in range(cells.shape[0]):
        c = 1
        while c < cells.shape[1]:
            if cells[r, c]:
                end = c
                while cells[r, end + 1] == cells[r, c]:
                    end += 1
                want.append((r, c - 1, end, int(cells[r, c])))
                c = end + 1
            else:
                c += 1
    got = list(zip(*(v.tolist() for v in pixel_runs(cells)), strict=True))
    assert got == want


def test_the_overview_curve_keeps_its_peaks_when_thinned():
    """A step curve of many steps becomes at most STRIP_BINS steps, each the highest value the full
    curve takes over it; a short curve is left as it is."""
    from workbench.gui.gantt.overview import peaks

    rng = np.random.default_rng(4)
    times = np.cumsum(rng.exponential(1.0, 50_000))
    values = rng.integers(0, 100, times.size).astype(float)
    thin_t, thin_v = peaks(times, values, bins=500)
    assert thin_t.size == 501 and thin_v.max() == values.max() and thin_t[0] == times[0] and thin_t[-1] == times[-1]
    for k in rng.integers(0, 500, 40):
        inside = (times >= thin_t[k]) & (times < thin_t[k + 1])
        holding = values[np.searchsorted(times, thin_t[k], side="right") - 1]
        assert thin_v[k] == max(values[inside].max(initial=-np.inf), holding)
    short_t, short_v = peaks(times[:800], values[:800], bins=500)
    assert np.array_equal(short_t, times[:800]) and np.array_equal(short_v, values[:800])


def _figure_image(xa, xb, ya, hk, merge: bool, scale: float) -> bytes:
    from PySide6.QtGui import QImage, QPainter

    from workbench.gui.figure import merge_slivers

    image = QImage(int(320 * scale), int(60 * scale), QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.scale(scale, scale)
    if merge:
        xa, xb, ya, hk = merge_slivers(xa, xb, ya, hk, painter.transform().m11())
    painter.setPen(pg.mkPen(None))
    painter.setBrush(QColor("#4040d0"))
    for a, b, y, h in zip(xa, xb, ya, hk, strict=True):
        painter.drawRect(pg.QtCore.QRectF(float(a), float(y), float(b - a), float(h)))
    painter.end()
    return bytes(image.constBits())


@pytest.mark.parametrize("scale", [1.0, 3.125])
def test_a_figures_slivers_merged_fill_the_same_pixels(qtbot, scale):
    """An exported figure's thousands of slivers, merged per row (``figure.merge_slivers``), fill the
    pixels they fill drawn one by one, at 96 DPI and at 300 DPI; and they are far fewer."""
    from workbench.gui import figure

    rng = np.random.default_rng(7)
    n = 3 * figure.FIGURE_LOD
    xa = rng.uniform(10, 300, n)
    xb = xa + np.where(rng.random(n) < 0.9, rng.uniform(0.01, 0.9, n) / scale, rng.uniform(1, 5, n))
    row = rng.integers(0, 5, n)
    ya, hk = 5.0 + 10.0 * row, np.full(n, 8.0)
    merged = figure.merge_slivers(xa, xb, ya, hk, scale)
    assert merged[0].size < n / 2
    assert _figure_image(xa, xb, ya, hk, True, scale) == _figure_image(xa, xb, ya, hk, False, scale)


def test_a_paint_never_waits_for_the_kernel_to_compile(qtbot, monkeypatch):
    """Before the warm-up has made ``thin_cells`` ready, a zoomed-out layer is drawn whole, not at a
    level of detail that would compile the kernel on the GUI thread."""
    monkeypatch.setattr(kernels.thin_cells, "ready", False)
    called = []
    monkeypatch.setattr(RectLayer, "_thin", lambda *args: called.append(args))
    _picture(_scene(np.random.default_rng(1)), lod=True)
    assert called == []


@pytest.mark.parametrize("seed", range(4))
def test_the_compiled_hit_test_finds_the_topmost_rectangle(seed):
    """``kernels.topmost_at`` answers as the numpy hit test does: the last rectangle holding the
    point, edges included, or none; and a layer of many rectangles asks it."""
    from PySide6.QtCore import QPointF

    from workbench.gui.gantt import layers

    kernels.prepare((kernels.topmost_at,))
    rng = np.random.default_rng(seed)
    n = 3000
    x, y = rng.integers(0, 50, n).astype(float), rng.integers(0, 20, n).astype(float)
    w, h = rng.integers(0, 6, n).astype(float), np.full(n, 0.8)
    for px, py in [*rng.uniform(-2, 56, (200, 2)).tolist(), (float(x[7]), float(y[7])), (x[9] + w[9], y[9] + 0.8)]:
        hit = np.nonzero((x <= px) & (px <= x + w) & (y <= py) & (py <= y + h))[0]
        want = int(hit[-1]) if hit.size else -1
        assert kernels.topmost_at(x, y, w, h, float(px), float(py)) == want
    layer = RectLayer()
    layer.set_rects(x, y, w, h, rng.integers(0, 3, n), [QColor("red")] * 3)
    asked = []
    real = kernels.topmost_at.__call__
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(layers, "TOPMOST_FROM", 1000)
        patch.setattr(type(kernels.topmost_at), "__call__", lambda self, *a: asked.append(1) or real(*a))
        point = QPointF(float(x[5]) + 0.01, float(y[5]) + 0.01)
        got = layer.index_at(point)
    hit = np.nonzero((x <= point.x()) & (point.x() <= x + w) & (y <= point.y()) & (point.y() <= y + h))[0]
    assert asked and got == int(hit[-1])
