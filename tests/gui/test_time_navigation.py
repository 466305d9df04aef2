"""Issue 43: time navigation at trace scale. On a 10,000-job Lublin–Feitelson trace (made here),
the overview strip shows the whole run and moves the chart; Cycles mode goes to a step and a time,
to the next arrival, completion and blocked head's start, and to a job's events; and the chart
follows "now" with a window narrower than the run."""

from __future__ import annotations

from dataclasses import replace

import pytest

from workbench.engine import timeline
from workbench.engine.grid.configs import lublin_environment
from workbench.engine.model import StrategyRef


@pytest.fixture(scope="module")
def big_env():
    env, _ = lublin_environment(10_000, seed=3, nodes=128)
    return replace(env, strategy=StrategyRef("EASY"))


@pytest.fixture
def win(qtbot, big_env):
    from workbench.gui.main_window import MainWindow

    w = MainWindow(big_env, None, quiet=True)
    qtbot.addWidget(w)
    w.show()
    w.run_now()
    qtbot.waitUntil(lambda: w.document.result is not None and not w.runner.busy, timeout=60_000)
    return w


def _settled(qtbot, cycles):
    qtbot.waitUntil(lambda: not cycles.computing.busy, timeout=60_000)


def _go(qtbot, cycles, text):
    cycles.navigation.target.setText(text)
    cycles.navigation.target.returnPressed.emit()
    _settled(qtbot, cycles)
    return cycles.sim.snapshots[cycles.position]


def test_the_overview_strip_shows_the_whole_run_and_moves_the_chart(qtbot, win):
    """The overview strip covers the whole run with its queue and busy share; dragging its band moves the chart
    and moving the chart moves the band; the long trace opens in days."""
    env, result = win.document.env, win.document.result
    strip = win.overview
    assert strip.isVisible() and strip.data is not None
    ends = [result.actual_ends.get(w.job, w.end) for w in result.windows]
    assert strip.data.times[-1] == pytest.approx(max(ends))
    assert strip.data.queue.max() > 0 and 0 < strip.data.busy.max() <= 1
    # Dragging the band moves the chart; moving the chart moves the band.
    a, b = env.time.start + 86400.0, env.time.start + 3 * 86400.0
    strip.region.setRegion((a, b))
    (x0, x1), _ = win.chart.view.viewRange()
    assert (x0, x1) == pytest.approx((a, b))
    win.chart.view.setXRange(a + 3600, b + 3600, padding=0)
    assert strip.region.getRegion() == pytest.approx((a + 3600, b + 3600))
    assert win.chart.time_unit == "days"  # a long trace opens in days


def test_cycles_goes_to_steps_times_jumps_and_job_events_and_the_chart_follows(qtbot, win):
    """Cycles mode goes to a step, to a time in days, back to a computed step, to the next arrival and
    completion, and to a job's arrival and start and back, the chart following now in a narrow view; a target it
    cannot read is named and nothing moves."""
    env, result, cycles = win.document.env, win.document.result, win.cycles
    snap = _go(qtbot, cycles, "#300")
    assert snap.step == 300 and win.showing_snapshot is snap
    # The chart follows "now": the step's time in view, the view far narrower than the run.
    (x0, x1), _ = win.chart.view.viewRange()
    whole = win.chart._end - env.time.start
    assert x0 < snap.time < x1 and (x1 - x0) < whole / 10
    assert win.overview.now_line.isVisible() and win.overview.now_line.value() == pytest.approx(snap.time)
    # A time, in the unit shown (days): the first step at or after it.
    t = env.time.start + 2.5 * 86400
    snap = _go(qtbot, cycles, "2.5" if env.time.start == 0 else str((t) / 86400))
    computed = cycles.sim.snapshots
    assert snap.time >= t - 1e-6 and computed[cycles.position - 1].time < t
    # Back to a step already computed: at once, no worker.
    snap = _go(qtbot, cycles, "#10")
    assert snap.step == 10
    # The next arrival and the next completion, as the live result has them.
    now = snap.time
    snap = _go_jump(qtbot, cycles, "arrival")
    assert snap.time == pytest.approx(timeline.next_time(env, result, "arrival", now))
    now = snap.time
    snap = _go_jump(qtbot, cycles, "completion")
    assert snap.time == pytest.approx(timeline.next_time(env, result, "completion", now))
    # A job's events: one that arrives later and waits; its arrival, then its start.
    job = next(j for j in env.jobs if j.arrival > snap.time + 3600 and result.window_of(j.id).start > j.arrival + 1)
    win.state.select(job.id)
    cycles.navigation.next_event.click()
    _settled(qtbot, cycles)
    arrived = cycles.sim.snapshots[cycles.position]
    assert arrived.time == pytest.approx(job.arrival) and job.id in arrived.label
    cycles.navigation.next_event.click()
    _settled(qtbot, cycles)
    assert cycles.sim.snapshots[cycles.position].time == pytest.approx(result.window_of(job.id).start)
    cycles.navigation.previous_event.click()
    _settled(qtbot, cycles)
    assert cycles.sim.snapshots[cycles.position].time == pytest.approx(job.arrival)
    # Something that cannot be gone to is named, and nothing moves.
    before = cycles.position
    cycles.navigation.target.setText("soon")
    cycles.navigation.target.returnPressed.emit()
    assert cycles.position == before and "soon" in cycles.info.full_text()


def test_a_go_to_being_computed_is_cancelled_by_reset(qtbot, win):
    """A go-to still being computed is cancelled by Reset, leaving no simulation and no snapshot shown."""
    cycles = win.cycles
    cycles.navigation.target.setText("#20000")
    cycles.navigation.target.returnPressed.emit()
    assert cycles.computing.busy
    cycles.reset()
    _settled(qtbot, cycles)
    assert cycles.sim is None and win.showing_snapshot is None


def _go_jump(qtbot, cycles, kind):
    cycles.navigation.jump.emit(kind)
    _settled(qtbot, cycles)
    return cycles.sim.snapshots[cycles.position]


def test_a_large_step_is_measured_and_its_free_slots_drawn_off_the_gui_thread(qtbot, win):
    """A step with thousands of windows: the Metrics panel and the chart's free slots follow from
    workers (a step or a jump waits for neither), and the Jobs table follows the step shortly."""
    from workbench.engine.metrics import flow_metrics
    from workbench.gui.gantt.chart import FREE_HERE
    from workbench.gui.panels.metrics import MEASURED_HERE

    cycles = win.cycles
    snap = _go(qtbot, cycles, "#9000")
    assert len(snap.windows) > max(FREE_HERE, MEASURED_HERE)
    expected = flow_metrics(win.document.env, snap.schedule)
    qtbot.waitUntil(lambda: win.metrics.current == expected, timeout=30_000)
    qtbot.waitUntil(
        lambda: win.chart._free_for is not None and win.chart._free_for[0][3] == win.chart._window_list,
        timeout=30_000,
    )
    headers = [c.header for c in win.jobs.model.columns]
    status = headers.index("status")
    placed = len({w.job for w in snap.windows})
    qtbot.waitUntil(
        lambda: sum(win.jobs.model.index(r, status).data() == "placed" for r in range(win.jobs.model.rowCount()))
        == placed,
        timeout=30_000,
    )


def test_a_large_step_draws_the_windows_near_the_view_and_follows_a_pan(qtbot, win):
    """Issue 43's trial: a step at #20,000 of KTH redrew every window (300 ms) and Play could not
    keep its speed. A step of thousands of windows draws those that meet the view (a view's width
    either side, and around "now"); a pan beyond them draws the windows there."""
    from workbench.gui.gantt.chart import STEP_ALL

    cycles, chart = win.cycles, win.chart
    snap = _go(qtbot, cycles, "#9000")
    assert len(snap.windows) > STEP_ALL
    qtbot.waitUntil(lambda: not chart._span_timer.isActive(), timeout=5_000)
    (x0, x1), _ = chart.view.viewRange()
    drawn = {w.job for w in chart._window_list}
    meeting = {w.job for w in snap.windows if w.start <= x1 and w.end >= x0}
    assert meeting <= drawn and len(drawn) < len(snap.windows)
    lo, hi = chart._drawn_span  # exactly the windows that meet the span drawn (found from their starts)
    assert drawn == {w.job for w in snap.windows if w.start <= hi and w.end >= lo}
    width = x1 - x0
    far = min(snap.windows, key=lambda w: w.start)  # the first window of the run, far left of "now"
    assert far.job not in drawn
    chart.view.setXRange(far.start - width / 2, far.start + width / 2, padding=0)
    qtbot.waitUntil(lambda: far.job in {w.job for w in chart._window_list}, timeout=5_000)


class _Drag:
    """A mouse drag on the strip, as pyqtgraph hands one to a view box."""

    def __init__(self, strip, x, start):
        from PySide6.QtCore import QPointF

        self._pos = strip.view.mapViewToScene(QPointF(x, 0.5))
        self._start = start

    def button(self):
        from PySide6.QtCore import Qt

        return Qt.MouseButton.LeftButton

    def scenePos(self):
        return self._pos

    def isStart(self):
        return self._start

    def accept(self):
        pass

    def ignore(self):
        pass


def test_a_drag_on_the_strip_pans_a_narrow_band_and_never_zooms(qtbot, win):
    """Issue 43's trial: with the chart zoomed to a sliver (the band a pixel wide), a drag on the
    strip from near the band towards day 250 zoomed the chart out to 135-245 d. A drag now carries
    the band, its width kept, whether it starts on it, beside it or far from it."""
    strip, chart = win.overview, win.chart
    env = win.document.env
    a = env.time.start + 10 * 86400.0
    chart.view.setXRange(a, a + 3600.0, padding=0)
    (x0, x1), _ = chart.view.viewRange()
    width = x1 - x0
    target = env.time.start + 40 * 86400.0
    strip.view.mouseDragEvent(_Drag(strip, x0, True))  # grabbed at its edge
    strip.view.mouseDragEvent(_Drag(strip, target, False))
    (y0, y1), _ = chart.view.viewRange()
    assert y1 - y0 == pytest.approx(width, rel=1e-6)
    assert y0 == pytest.approx(target, abs=width)
    assert not strip.region.movable
