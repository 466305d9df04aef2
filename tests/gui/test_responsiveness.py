"""The window at trace scale (issue 30, defect 15): what the worker prepares draws exactly what the
GUI thread would have computed; the columns fit without reading every cell; the GUI thread gets
the GIL from a busy worker at once; and (timing, reported apart) a heartbeat while a CoP run is
stepped and while a large file opens."""

from __future__ import annotations

import dataclasses
import gc
import itertools
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QObject, QRectF, QTimer
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QStyleOptionGraphicsItem, QStyleOptionViewItem

from tests.gui.helpers import python_calls
from tests.traces import swf_environment
from workbench.engine import registry
from workbench.engine.files import default_environment_path, load_environment
from workbench.engine.io.envfile import save_environment
from workbench.engine.model import StrategyRef
from workbench.gui import palette, prepared, workers
from workbench.gui.gantt import geometry
from workbench.gui.gantt.chart import GanttChart
from workbench.gui.gantt.layers import RectLayer


@pytest.fixture(scope="module")
def trace_env():
    return swf_environment(seed=11, jobs=3000, nodes=64, load=1.4)


def _shown_chart(qtbot) -> GanttChart:
    """A chart of 900 × 500 pixels, on screen."""
    chart = GanttChart()
    qtbot.addWidget(chart)
    chart.resize(900, 500)
    chart.show()
    qtbot.waitExposed(chart)
    return chart


def _rects(layer):
    """The rectangles as the layer paints them: by colour group, in order within each."""
    return [np.array(layer._sorted), np.array(layer._starts)]


@pytest.mark.parametrize("order", ["list", "performance"])
def test_a_prepared_result_draws_the_same_rectangles_without_recomputing_them(qtbot, monkeypatch, trace_env, order):
    """With the parts prepared in the worker, the chart draws the same rectangles, end and colours without
    computing them, leaves out released tails that later windows cover, and looks the same, in list and
    performance order."""
    schedule = registry.run(trace_env, "EASY")
    assert any(w.end > schedule.actual_end(trace_env, w) for w in schedule.windows)  # early ends: released tails
    plain = GanttChart()
    qtbot.addWidget(plain)
    plain.set_row_order(order)
    plain.set_data(trace_env, schedule)
    want = [_rects(plain.windows)], plain._end
    colours = plain._colouring.group
    tails = plain.released.count

    prepared.prepare(trace_env, schedule)

    def not_here(*args, **kwargs):
        raise AssertionError("the parts were prepared in the worker")

    monkeypatch.setattr(geometry, "window_parts", not_here)
    monkeypatch.setattr(geometry, "visible_end", not_here)
    monkeypatch.setattr(palette, "job_groups", not_here)  # each window's colour too
    chart = GanttChart()
    qtbot.addWidget(chart)
    chart.set_row_order(order)
    chart.set_data(trace_env, schedule)
    got = [_rects(chart.windows)], chart._end
    assert got[1] == want[1]
    assert np.array_equal(chart._colouring.group, colours)
    for mine, theirs in zip(itertools.chain(*got[0]), itertools.chain(*want[0]), strict=True):
        assert np.array_equal(mine, theirs)
    # The released tails that later windows cover whole are left out, and the picture is the same.
    assert 0 < chart.released.count < tails
    for drawn in (plain, chart):
        drawn.resize(900, 500)
        drawn.show()
        drawn.fit()
    qtbot.wait(50)
    assert plain.grab().toImage() == chart.grab().toImage()


def test_a_tail_is_left_out_only_when_later_windows_cover_it_whole():
    """``geometry.uncovered_tails`` against the plain reading: node 0's tail [5, 10) is covered by
    two windows that touch (5-7, 7-12); node 1's by one that starts a hair late (5 + 1e-12); node 2's
    tail has a gap at [6, 6.5); node 3's tail has no later window; a window on another node covers
    nothing."""

    def parts(x, width, node, tails):
        tx, tw, tn = (np.array(v, dtype=float) for v in zip(*tails, strict=True))
        return geometry.Parts(
            window=np.arange(len(x)), x=np.array(x, float), y=np.array(node, float), width=np.array(width, float),
            planned=np.zeros(len(x), bool), solid_end=np.zeros(len(x)), released_x=tx, released_y=tn,
            released_width=tw, node=np.array(node), released_node=tn.astype(np.int64),
        )  # fmt: skip

    given = parts(
        x=[0, 5, 7, 0, 5 + 1e-12, 0, 5, 6.5, 0, 5],
        width=[5, 2, 5, 5, 9, 5, 1, 9, 5, 9],
        node=[0, 0, 0, 1, 1, 2, 2, 2, 3, 4],
        tails=[(5, 5, 0), (5, 5, 1), (5, 5, 2), (5, 5, 3)],
    )
    left = geometry.uncovered_tails(given)
    assert left.released_node.tolist() == [2, 3]


def test_fitting_the_columns_reads_a_sample_not_every_row(qtbot, trace_env):
    """Fitting the Jobs table's columns costs the same at 300 and 3,000 rows (a fixed sample, the
    longest few texts of each column measured), and it fits every column but the stretched last
    one exactly as Qt's own measure of the same rows would."""
    from workbench.gui.panels.env_docks import jobs_dock
    from workbench.session.document import Document

    calls = []
    for jobs in (300, 3000):
        dock = jobs_dock(Document(dataclasses.replace(trace_env, jobs=trace_env.jobs[:jobs])))
        qtbot.addWidget(dock)
        dock.resize(900, 400)
        dock.show()
        calls.append(python_calls(dock.fit_columns))
    assert calls[1] < 1.2 * calls[0] + 200, calls
    header, proxy = dock.view.horizontalHeader(), dock.proxy
    option = QStyleOptionViewItem()
    dock.view.initViewItemOption(option)
    for c in range(dock.model.columnCount() - 1):  # the last one stretches
        widest = max(dock.view.itemDelegate().sizeHint(option, proxy.index(r, c)).width() for r in range(50))
        assert header.sectionSize(c) > widest, (c, header.sectionSize(c), widest)  # no sampled text is cut


def test_the_gui_thread_takes_the_gil_from_a_busy_worker_at_once(window):
    """With CPython's default 5 ms switch interval, each of the GUI thread's thousands of callbacks
    during a repaint waited for a busy worker; the window sets 0.01 ms."""
    window()
    assert sys.getswitchinterval() == pytest.approx(1e-5)


def test_a_worker_call_spares_the_collector_what_already_exists(qtbot):
    """A background call freezes the heap it starts from (``gc.freeze``): a full collection during a
    run then walks only what the run makes. Walking a 28,000-job document held the GIL, and so
    stopped the window, for 80-115 ms in the middle of opening it."""
    gc.unfreeze()
    document = [[k] for k in range(5000)]  # containers the collector tracks
    call = workers.BackgroundCall()
    answers = []
    call.finished.connect(lambda ticket, result, error: answers.append((result, error)))
    try:
        call.start(lambda token: gc.get_freeze_count())
        qtbot.waitUntil(lambda: bool(answers), timeout=10_000)
    finally:
        gc.unfreeze()
    frozen, error = answers[0]
    assert error is None
    assert frozen >= len(document)


def test_cycles_a_worker_call_leaves_are_freed_by_the_next_call(qtbot):
    """Freezing the heap at each call must not keep for good the reference cycles that an earlier
    call left behind (a run leaves hundreds): the next call collects them before it freezes."""
    import weakref

    class Cycle:
        pass

    call = workers.BackgroundCall()
    answers = []
    call.finished.connect(lambda ticket, result, error: answers.append(error))
    left = []

    def leave_a_cycle(token):
        cycle = Cycle()
        cycle.me = cycle
        left.append(weakref.ref(cycle))

    gc.disable()  # no automatic collection on the way: only the call's own can free the cycle
    try:
        call.start(leave_a_cycle)
        qtbot.waitUntil(lambda: len(answers) == 1, timeout=10_000)
        assert left[0]() is not None
        call.start(lambda token: None)
        qtbot.waitUntil(lambda: len(answers) == 2, timeout=10_000)
        assert left[0]() is None
    finally:
        gc.enable()
        gc.unfreeze()


def test_slivers_are_filled_without_an_outline(qtbot):
    """On screen as in the exported figure, a rectangle a few pixels wide gets no outline (a year of
    a trace at full view drew nearly black, and outlining was most of the paint's time); a wide one
    on tall rows keeps it."""
    layer = RectLayer()
    layer.set_rects(
        np.array([10.0, 100.0]), np.full(2, 10.0), np.array([2.0, 60.0]), np.full(2, 40.0),
        np.zeros(2, dtype=np.int64), [QColor("#ff0000")], [QColor("#000000")],
    )  # fmt: skip
    image = QImage(200, 60, QImage.Format.Format_RGB32)
    image.fill(QColor("#ffffff"))
    painter = QPainter(image)
    option = QStyleOptionGraphicsItem()
    option.exposedRect = QRectF(0, 0, 200, 60)
    layer.paint(painter, option)
    painter.end()
    sliver = {image.pixelColor(x, 30).name() for x in range(10, 12)}
    assert sliver == {"#ff0000"}
    assert image.pixelColor(100, 30).name() == "#000000"  # the wide one's left edge
    assert image.pixelColor(130, 30).name() == "#ff0000"


def _heartbeat():
    beats: list[float] = []
    timer = QTimer()
    timer.timeout.connect(lambda: beats.append(time.perf_counter()))
    timer.start(10)
    return timer, beats


def _worst_gap(beats, since):
    return max((b - a for a, b in itertools.pairwise(beats[max(since - 1, 0) :])), default=0.0)


@pytest.mark.timing
def test_stepping_a_cop_run_keeps_the_window_responsive(qtbot, window, tmp_path, trace_env):
    """Each Cycles step of CoP on a saturated 3,000-job flow: the step is computed in a worker and
    shown on the GUI thread within 100 ms, the first one too (measured at 10,000 KTH jobs: 30-76 ms a
    step, the compiled code loaded at start by ``engine/warmup.py``; before: 165 ms, at most 258)."""
    path = tmp_path / "flow.json"
    save_environment(dataclasses.replace(trace_env, strategy=StrategyRef("CoP")), path)
    win = window(path)
    timer, beats = _heartbeat()
    gaps = []
    for _ in range(8):
        began = len(beats)
        win.cycles.request_step()
        qtbot.waitUntil(lambda: not win.cycles.computing.busy, timeout=60_000)
        qtbot.wait(60)
        gaps.append(_worst_gap(beats, began))
    timer.stop()
    assert win.cycles.position == 7
    assert max(gaps) < 0.1, gaps


@pytest.mark.timing
def test_opening_a_large_file_keeps_the_window_responsive(qtbot, window, tmp_path):
    """Opening a 28,000-job environment (about 8 MB) in the background and drawing its EASY result:
    the heartbeat never waits 100 ms (measured on the KTH trace, 8.4 MB: worst gaps 46-67 ms, 74-112
    in a slow phase of the machine; 0.4-0.5 s before the GIL, collector, drawing, table, status-bar
    and layer-by-layer paint fixes; 441 ms in the issue)."""
    big = swf_environment(seed=5, jobs=28_000, nodes=100)
    path = tmp_path / "big.json"
    save_environment(dataclasses.replace(big, strategy=StrategyRef("EASY")), path)
    win = window()
    timer, beats = _heartbeat()
    qtbot.wait(50)
    began = len(beats)
    win.open_in_background(Path(path))
    qtbot.waitUntil(lambda: len(win.document.env.jobs) == 28_000, timeout=60_000)
    qtbot.waitUntil(lambda: win.document.result is not None and not win.runner.busy, timeout=60_000)
    qtbot.wait(200)
    timer.stop()
    gap = _worst_gap(beats, began)
    assert gap < 0.1, gap


def test_a_worker_thread_does_not_hold_a_repaint_hostage(qtbot, window):
    """A count, not a time: while a pure-Python worker runs, a repaint of the Jobs table finishes
    before the worker does (with a 5 ms switch interval the repaint waited for it to end)."""
    win = window()
    done = threading.Event()

    def busy():
        x = 0
        deadline = time.perf_counter() + 2.0
        while time.perf_counter() < deadline and not done.is_set():
            x += 1

    worker = threading.Thread(target=busy)
    worker.start()
    try:
        time.sleep(0.02)
        win.jobs.view.viewport().repaint()
        assert worker.is_alive()  # the repaint did not wait out the worker's 2 s
    finally:
        done.set()
        worker.join()


def test_hovering_a_job_repaints_only_its_highlight_not_every_window(qtbot, trace_env):
    """The big layers keep their picture (a device-coordinate cache): hovering a job repaints its
    highlight and blits the rest (at 28,000 jobs: 3 ms, from 70-100 ms a mouse move)."""
    schedule = registry.run(trace_env, "EASY")
    chart = _shown_chart(qtbot)
    chart.set_data(trace_env, schedule, fit=True)
    qtbot.wait(50)  # the view takes its new range in the event loop
    chart.viewport().repaint()
    code = type(chart.windows).paint.__code__

    def layers_painted(action) -> list:
        """The layers whose paint ran during ``action()`` (Qt calls it from C++)."""
        seen = []

        def watch(frame, event, arg):
            if event == "call" and frame.f_code is code:
                seen.append(frame.f_locals["self"])

        sys.setprofile(watch)
        try:
            action()
        finally:
            sys.setprofile(None)
        return seen

    def hover_all() -> None:
        for w in schedule.windows[:3]:
            chart.set_hovered(w.job)
            chart.viewport().repaint()

    painted = layers_painted(hover_all)
    assert not any(layer is chart.windows or layer is chart.slots for layer in painted)
    assert any(layer is chart.focus or layer is chart.veil for layer in painted)  # the highlight is drawn

    def zoom() -> None:
        chart.view.scaleBy((0.5, 1.0))  # a zoom draws the windows anew
        chart.viewport().repaint()

    assert any(layer is chart.windows for layer in layers_painted(zoom))


def test_a_fresh_big_picture_is_painted_one_cached_layer_at_a_time(qtbot, monkeypatch, trace_env):
    """Above ``STAGGER_RECTS`` rectangles the windows paint first and the released tails and free
    slots each in a later paint of their own, so no paint draws them all (on KTH 35 ms idle and up
    to 80 ms beside the worker, after the result's delivery); the picture ends as the plain one."""
    from workbench.gui.gantt import chart as chart_module

    schedule = registry.run(trace_env, "EASY")
    plain = GanttChart()
    qtbot.addWidget(plain)
    plain.resize(900, 500)
    plain.show()
    plain.set_data(trace_env, schedule, fit=True)
    assert plain.released.isVisible() and plain.slots.isVisible()  # under the threshold: at once

    monkeypatch.setattr(chart_module, "STAGGER_RECTS", 100)
    painted: list[list[str]] = []
    names = {}
    real = RectLayer._paint

    def paint(layer, painter, option):
        if layer in names and layer.count:
            painted[-1].append(names[layer])
        real(layer, painter, option)

    monkeypatch.setattr(RectLayer, "_paint", paint)
    chart = _shown_chart(qtbot)
    names.update({chart.windows: "windows", chart.released: "released", chart.slots: "slots"})
    chart.set_data(trace_env, schedule, fit=True)
    assert not chart.released.isVisible() and not chart.slots.isVisible()

    class EachPaint(QObject):
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Paint:
                painted.append([])
            return False

    each = EachPaint()
    chart.viewport().installEventFilter(each)
    qtbot.waitUntil(lambda: chart.slots.isVisible() and chart.released.isVisible(), timeout=1000)
    qtbot.wait(50)
    assert [p for p in painted if p][:3] == [["windows"], ["released"], ["slots"]]
    assert chart.released.isVisible() and chart.slots.isVisible()
    assert plain.grab().toImage() == chart.grab().toImage()


def test_layers_waiting_their_turn_are_shown_even_if_nothing_paints(qtbot, monkeypatch, trace_env):
    """A chart that is not on screen never paints: its layers are all shown after ``STAGGER_MS``,
    and at once before a grab (a screenshot or the GUI bench)."""
    from workbench.gui.gantt import chart as chart_module

    monkeypatch.setattr(chart_module, "STAGGER_RECTS", 100)
    schedule = registry.run(trace_env, "EASY")
    chart = GanttChart()
    qtbot.addWidget(chart)
    chart.set_data(trace_env, schedule)
    assert not chart.slots.isVisible()
    qtbot.waitUntil(lambda: chart.slots.isVisible() and chart.released.isVisible(), timeout=2 * chart_module.STAGGER_MS)
    chart.set_data(trace_env, schedule)
    assert not chart.slots.isVisible()
    chart.finish_drawing()
    assert chart.slots.isVisible() and chart.released.isVisible()


def test_a_run_leaves_the_chart_its_size(qtbot, window):
    """The progress bar and Cancel appear in the status bar during a run: the bar must not grow
    (it did by 5 px, and back at the end, resizing the chart, which then redrew every rectangle)."""
    win = window()
    qtbot.wait(50)
    before = win.chart.size()
    win.run_status.bar.show()
    win.run_status.cancel.show()
    qtbot.wait(50)
    assert win.chart.size() == before


def test_the_jobs_table_shows_a_new_result_once_the_chart_is_whole(qtbot, window, monkeypatch):
    """A picture painted a layer at a time comes first; the Jobs table's reset (and repaint) follows
    when it is whole, so the two paints are not one stop of the window (on the KTH trace each took
    25-50 ms beside a busy worker)."""
    from workbench.gui.gantt import chart as chart_module

    win = window()
    monkeypatch.setattr(chart_module, "STAGGER_RECTS", 1)
    seen = []
    win.jobs.model.modelReset.connect(lambda: seen.append("table reset"))
    win.bridge.result_changed.connect(lambda *_: seen.append(f"result, chart drawing: {win.chart.drawing}"))
    win.run_now()
    qtbot.waitUntil(lambda: bool(seen) and not win.chart.drawing and not win.runner.busy, timeout=30_000)
    qtbot.wait(50)
    assert seen == ["result, chart drawing: True", "table reset"]


def test_a_cycles_step_is_drawn_whole(qtbot, monkeypatch, trace_env):
    """Play steps several times a second: a step's picture is never drawn a layer at a time (the
    free slots and released tails would flicker), whatever its size."""
    from workbench.gui.gantt import chart as chart_module

    monkeypatch.setattr(chart_module, "STAGGER_RECTS", 1)
    sim = registry.simulator(trace_env, "EASY", {}, history=True)
    sim.run()
    step = sim.snapshots[len(sim.snapshots) // 2]
    chart = GanttChart()
    qtbot.addWidget(chart)
    chart.set_snapshot(trace_env, step)
    assert chart.windows.count and chart.slots.count
    assert chart.slots.isVisible() and chart.released.isVisible() and not chart.drawing


def test_a_new_key_repaints_the_whole_view(qtbot):
    """The chart's key is centred above it: after Cycles mode's longer key, a shorter one left both
    ends of the old one on screen under a window manager ("■ local ■ local task … horizon horizon").
    A change of the key repaints the whole view (the big layers blit their caches)."""
    from PySide6.QtGui import QRegion

    env = load_environment(default_environment_path())
    sim = registry.simulator(env, "EASY", {}, history=True)
    sim.run()
    chart = _shown_chart(qtbot)
    chart.set_snapshot(env, sim.snapshots[1])
    qtbot.wait(100)
    regions = []

    class Paints(QObject):
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Paint:
                regions.append(QRegion(event.region()))
            return False

    paints = Paints()
    chart.viewport().installEventFilter(paints)
    chart.set_data(env, registry.run(env, "EASY"))  # the key loses "planned (light)"
    qtbot.waitUntil(lambda: bool(regions), timeout=5000)
    qtbot.wait(50)
    painted = QRegion()
    for region in regions:
        painted = painted.united(region)
    assert QRegion(chart.viewport().rect()).subtracted(painted).isEmpty()


def test_a_new_documents_rows_paint_the_windows_once(qtbot, monkeypatch, trace_env):
    """Rows whose labels need another width: the axis takes it before the next paint, so the windows
    are drawn once at the new width, not once at the old one and again (at 200,000 jobs each paint
    of the windows took 80 ms). The big layers' pictures all fit in Qt's pixmap cache, too: past its
    10 MB default it dropped the windows' picture when the next layer's went in."""
    from PySide6.QtGui import QPixmapCache

    from workbench.gui.gantt import layers

    schedule = registry.run(trace_env, "EASY")
    chart = _shown_chart(qtbot)
    small = load_environment(default_environment_path())
    chart.set_data(small, registry.run(small, "FirstFit"), fit=True)
    qtbot.wait(50)
    painted = []
    real = RectLayer._paint

    def paint(layer, painter, option):
        if layer is chart.windows:
            painted.append(painter.transform().m11())
        real(layer, painter, option)

    monkeypatch.setattr(RectLayer, "_paint", paint)
    before = chart.getPlotItem().getAxis("left").width()
    chart.set_data(trace_env, schedule, fit=True)
    chart.viewport().repaint()  # a paint before the event loop's next turn (as in a result's delivery)
    qtbot.wait(100)
    assert chart.getPlotItem().getAxis("left").width() != before  # the labels need another width
    assert len(painted) == 1
    screen = chart.screen()
    pixels = screen.size().width() * screen.size().height() * screen.devicePixelRatio() ** 2
    assert QPixmapCache.cacheLimit() >= layers.CACHED_PICTURES * pixels * 4 / 1024


def test_an_edit_and_its_undo_keep_the_zoom_and_redraw_nothing_of_the_result(qtbot, window, monkeypatch):
    """Undoing the one edit there was used to count as a new document: the chart fitted the whole run
    again, losing the user's zoom. An edit of a job's fields (and its undo) leaves nodes, tasks and
    ids as they were, so the result on screen is drawn from what the worker prepared, not laid out
    again on the GUI thread (200,000 jobs: 3 s)."""
    from workbench.session import edits

    win = window()
    win.chart.view.setRange(xRange=(5.0, 9.0), padding=0)
    qtbot.wait(20)
    zoom = win.chart.view.viewRange()[0]
    laid_out = []
    real = geometry.window_parts
    monkeypatch.setattr(geometry, "window_parts", lambda *a, **k: laid_out.append(1) or real(*a, **k))
    job = win.document.env.jobs[0]
    win.document.apply(edits.set_job(job.id, priority=job.priority + 1))
    assert win.state.stale and len(win.chart.shown_windows) == len(win.state.shown.windows)
    win.document.undo()
    assert not win.document.can_undo
    assert laid_out == []  # drawn from the prepared result both times
    assert win.chart.view.viewRange()[0] == pytest.approx(zoom)
    qtbot.waitUntil(lambda: win.document.result is not None, timeout=30_000)
    qtbot.wait(50)
    assert win.chart.view.viewRange()[0] == pytest.approx(zoom)


def test_an_edit_of_a_jobs_fields_keeps_the_lookup_by_id():
    """``edits.set_job`` leaves every id where it was, so the new environment keeps the old one's
    lookup (a 200,000-job dict made again at each edit); a changed id makes a new one."""
    from workbench.session import edits

    env = load_environment(default_environment_path())
    job = env.jobs[1]
    changed = edits.set_job(job.id, priority=job.priority + 2).apply(env)
    assert changed.job_index is env.job_index and changed.job(job.id).priority == job.priority + 2
    renamed = edits.set_job(job.id, id="renamed").apply(env)
    assert renamed.job_index is not env.job_index
    assert renamed.job_index == {j.id: i for i, j in enumerate(renamed.jobs)} and "renamed" in renamed.job_index
