"""Cycles mode in the window: stepping, the player, its plot and slider, and a step's exports."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tests.gui.helpers import saturated
from workbench.engine import registry

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "sample_envs" / "default.json"
TINY = ROOT / "sample_envs" / "tiny.json"


def test_stepping_through_cycles(qtbot, window):
    """Step forwards, back (re-reading the same snapshot), and the chart follows."""
    win = window()
    cycles = win.cycles
    live = win.run_status.text()
    assert "placed" in live
    assert cycles.step() and cycles.step() and cycles.step()
    third = cycles.sim.snapshots[cycles.position]
    assert win.chart.snapshot is third
    # The status says which step the chart shows, not the live result's summary.
    assert win.run_status.text().startswith(f"Cycles, step {third.step}: {len(third.windows)} placed")
    cycles.step_back()
    second = cycles.sim.snapshots[cycles.position]
    assert win.chart.snapshot is second and second.step == third.step - 1
    cycles.step()
    assert win.chart.snapshot is third and cycles.position == 2
    while cycles.step():
        pass
    last = cycles.sim.snapshots[-1]
    assert last.label.startswith("end") and len(last.windows) == len(win.document.result.windows)
    cycles.slider.setValue(0)  # the run's start: its last step at that time, then one back with a key
    at_start = [s for s in cycles.sim.snapshots if s.time == cycles.sim.snapshots[0].time]
    assert win.chart.snapshot is at_start[-1]
    for _ in at_start[1:]:
        cycles.slider.triggerAction(cycles.slider.SliderAction.SliderSingleStepSub)
    assert win.chart.snapshot is cycles.sim.snapshots[0]
    cycles.reset()
    assert win.chart.snapshot is None and cycles.sim is None
    assert win.run_status.text() == live


def test_a_step_early_in_a_run_without_a_horizon_keeps_the_results_frame(qtbot, window):
    """The first step of grid32 (no horizon) has placed nothing and ends near t = 0: the chart keeps the
    live result's time frame, not a zoom onto the first time unit (it stayed there for every step)."""
    win = window(ROOT / "sample_envs" / "grid32.json")
    assert win.document.env.time.horizon is None
    live = win.chart.view.viewRange()[0]
    assert live[1] - live[0] > 1000
    win.cycles.navigation.follow.setChecked(False)
    assert win.cycles.step() and not win.chart.snapshot.windows
    shown = win.chart.view.viewRange()[0]
    assert shown == pytest.approx(live)
    win.cycles.reset()
    assert win.chart.view.viewRange()[0] == pytest.approx(live)
    # Following "now" (issue 43): a window about 100 jobs' share of the run wide, not the first time
    # unit either; |◀ Reset gives the live view back.
    win.cycles.navigation.follow.setChecked(True)
    assert win.cycles.step()
    (x0, x1), _ = win.chart.view.viewRange()
    assert x0 < win.chart.snapshot.time < x1 and x1 - x0 == pytest.approx(win.chart.follow_width())
    assert x1 - x0 > 1000
    win.cycles.reset()
    assert win.chart.view.viewRange()[0] == pytest.approx(live)


def test_the_cycles_plot_counts_the_queue_in_whole_jobs_from_zero(qtbot, window):
    """grid32's queue stays empty: its axis reads 0 and 1, not -0.5 to 0.5 in tenths."""
    win = window(ROOT / "sample_envs" / "grid32.json")
    for _ in range(4):
        assert win.cycles.step()
    assert not any(len(s.queue) for s in win.cycles.sim.snapshots[: win.cycles.position + 1])
    item = win.cycles.plot.getPlotItem()
    low, high = item.vb.viewRange()[1]
    ticks = [v for _, values in item.getAxis("left").tickValues(low, high, 100) for v in values]
    assert low >= -0.06 and ticks and all(float(v).is_integer() and v >= 0 for v in ticks)


def test_the_cycles_slider_is_the_runs_timeline(qtbot, window):
    """The slider's handle stands at the step's time in the whole run (it stood at its end after every
    step, as if the run were over); dragging it back shows the last step computed by then, and the
    arrow keys go one step at a time."""
    from PySide6.QtWidgets import QSlider

    from workbench.gui.panels.cycles import TICKS

    win = window(ROOT / "sample_envs" / "grid32.json")
    cycles = win.cycles
    for _ in range(6):
        assert cycles.step()
    assert not cycles.sim.done
    result = win.document.result
    first, end = cycles.span
    assert end >= max(result.actual_ends.get(w.job, w.end) for w in result.windows)
    shown = cycles.sim.snapshots[cycles.position]
    assert cycles.slider.maximum() == TICKS
    assert cycles.slider.value() == round(TICKS * (shown.time - first) / (end - first)) < TICKS // 2
    # Back to the run's start: the last step computed at its time.
    cycles.slider.setValue(0)
    at_start = [i for i, s in enumerate(cycles.sim.snapshots) if s.time <= first]
    assert cycles.position == at_start[-1] and win.chart.snapshot is cycles.sim.snapshots[cycles.position]
    cycles.slider.triggerAction(QSlider.SliderAction.SliderSingleStepAdd)
    assert cycles.position == at_start[-1] + 1
    cycles.slider.triggerAction(QSlider.SliderAction.SliderSingleStepSub)
    assert cycles.position == at_start[-1]
    # Past the steps computed: the latest one, and the handle goes back to it.
    cycles.slider.setValue(TICKS)
    assert cycles.position == len(cycles.sim.snapshots) - 1 and cycles.slider.value() < TICKS // 2
    while cycles.step():
        pass
    assert cycles.slider.value() == TICKS and cycles.span[1] == cycles.sim.snapshots[-1].time


def test_the_cycles_plot_marks_a_few_steps_and_places_one_time_in_the_runs_frame(qtbot, window, monkeypatch):
    """A static strategy's first steps all come at t = 0: they are drawn as points at the start of the
    run's frame (a lone step drew nothing, on an axis from -0.4 to 0.4); many steps are a line."""
    from workbench.gui.panels import cycles as cycles_module

    win = window(DEFAULT)
    cycles = win.cycles
    assert cycles.step() and cycles.step()
    assert {s.time for s in cycles.sim.snapshots} == {0.0}
    assert cycles.queue_curve.opts["symbol"] == "o" and cycles.util_curve.opts["symbol"] == "o"
    low, high = cycles.plot.getPlotItem().vb.viewRange()[0]
    assert low <= 0 < 0.1 * high and high >= cycles.span[1] > 0
    # The line's own name says the cycle once.
    assert cycles.info.text().count("cycle 0") == 1
    monkeypatch.setattr(cycles_module, "MARKED_STEPS", 2)
    assert cycles.step()
    assert cycles.queue_curve.opts["symbol"] is None


def test_an_endless_runs_last_step_and_a_drag_past_the_steps_computed(qtbot, window):
    """backfill32 under CoP has no horizon: its last step comes at t = inf. Stepping to it left Step
    greyed out on "computing step 3… 100 %" (the slider's position was inf / inf); now it shows,
    at the slider's end. A drag past the steps computed shows the latest and, released, the handle
    goes back to it. Stepping back keeps the curves of the later steps, with a line at the step."""
    from workbench.gui.panels.cycles import TICKS

    win = window(ROOT / "sample_envs" / "backfill32.json")
    cycles = win.cycles
    while cycles.step():
        pass
    last = cycles.sim.snapshots[-1]
    assert cycles.sim.done and last.time == math.inf and cycles.position == len(cycles.sim.snapshots) - 1
    assert cycles.slider.value() == TICKS and cycles.step_button.isEnabled() is False
    assert "end:" in cycles.info.full_text() and win.chart.snapshot is last
    # The endless step is drawn at the run's last window's end, so the step before holds up to it
    # (drawn at the last finite time, 0, every point and the step's line sat on t = 0).
    xs, _ = cycles.queue_curve.getData()
    end = max(cycles.sim.recorder.actual.values())
    assert xs[-1] == end > xs[-2] and cycles.now_line.value() == end
    cycles.step_back()
    xs, _ = cycles.queue_curve.getData()
    assert len(xs) == len(cycles.sim.snapshots) and all(math.isfinite(x) for x in xs)
    assert cycles.now_line.value() == cycles.sim.snapshots[cycles.position].time

    win = window(ROOT / "sample_envs" / "grid32.json")
    cycles = win.cycles
    for _ in range(6):
        assert cycles.step()
    shown = cycles.slider.value()
    cycles.slider.setSliderDown(True)
    cycles.slider.setValue(TICKS)
    assert cycles.position == 5 and cycles.slider.value() == TICKS
    cycles.slider.setSliderDown(False)  # released
    assert cycles.slider.value() == shown


def test_cycles_steps_from_the_run_menu_and_its_keys(qtbot, window):
    """Run ▸ Cycles: Step (F10), Back (Shift+F10), Play / Pause (F8) and Reset press the Cycles
    panel's buttons and bring it to the front; they were in no menu, with no key."""
    from PySide6.QtGui import QKeySequence
    from PySide6.QtWidgets import QMenu

    win = window(DEFAULT)
    run_menu = next(a.menu() for a in win.menuBar().actions() if a.text() == "&Run")
    cycles_menu = next(a.menu() for a in run_menu.actions() if isinstance(a.menu(), QMenu))
    actions = {a.text().replace("&", ""): a for a in cycles_menu.actions()}
    assert actions["Step"].shortcut() == QKeySequence("F10") and actions["Back"].shortcut() == QKeySequence("Shift+F10")
    assert actions["Play / Pause"].shortcut() == QKeySequence("F8")
    panel = win.cycles
    for _ in range(2):
        actions["Step"].trigger()
        qtbot.waitUntil(lambda: not panel.computing.busy, timeout=10_000)
    assert panel.position == 1
    actions["Back"].trigger()
    assert panel.position == 0
    actions["Play / Pause"].trigger()
    assert panel.play_button.isChecked()
    actions["Play / Pause"].trigger()
    assert not panel.play_button.isChecked()
    actions["Reset"].trigger()
    assert panel.sim is None


def test_cycles_mode_shows_the_step_in_the_table_and_busy_nodes_now(qtbot, window):
    """In Cycles mode the plot's utilisation is the share of nodes busy at that step
    (not a running total), and the Jobs table shows the step's windows, not the final result."""
    from dataclasses import replace

    from workbench.engine.model import StrategyRef

    win = window(TINY)
    win.document.replace_environment(replace(win.document.env, strategy=StrategyRef("EASY")), TINY)
    cycles = win.cycles
    assert cycles.step() and cycles.step()
    snap = cycles.sim.snapshots[cycles.position]
    busy = {n for w in snap.windows if w.start <= snap.time < snap.actual_ends[w.job] for n in w.nodes}
    assert snap.busy_fraction == len(busy) / len(win.document.env.nodes)
    _, ys = cycles.util_curve.getData()
    assert ys[-1] == 100 * snap.busy_fraction
    model = win.jobs.model
    start_col = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())].index("start")
    shown = {model.data(model.index(r, 0)): model.data(model.index(r, start_col)) for r in range(model.rowCount())}
    placed_now = {w.job for w in snap.windows}
    assert {j for j, start in shown.items() if start not in (None, "")} == placed_now
    cycles.reset()
    assert not win.statusBar().currentMessage().startswith("Showing step")


def test_stepping_a_saturated_flow_computes_off_the_gui_thread(qtbot):
    """Step ▶ on a saturated flow returns at once: the snapshot is computed in a worker thread (the
    panel says so, and Step waits), then shown; the steps equal the engine's own simulation."""
    from workbench.gui.main_window import MainWindow

    env = saturated(300)
    win = MainWindow(env, None, quiet=True)
    qtbot.addWidget(win)
    cycles = win.cycles
    qtbot.mouseClick(cycles.step_button, Qt.MouseButton.LeftButton)
    assert cycles.computing.busy and cycles.position == -1  # the click did not compute the step
    assert "computing step 0" in cycles.info.full_text() and not cycles.step_button.isEnabled()
    qtbot.waitUntil(lambda: cycles.position == 0, timeout=60_000)
    qtbot.mouseClick(cycles.step_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: cycles.position == 1, timeout=60_000)
    assert cycles.step_button.isEnabled() and not cycles.computing.busy
    direct = registry.simulator(env, "FirstFit", explain=True)
    first, second = direct.step(), direct.step()
    shown = cycles.sim.snapshots
    assert [s.time for s in shown[:2]] == [first.time, second.time]
    assert shown[1].windows == second.windows
    assert win.chart.snapshot is shown[1]


def test_reset_cancels_a_step_being_computed(qtbot):
    """Reset while a step of a saturated flow is computed stops the worker and shows nothing of it."""
    from workbench.gui.main_window import MainWindow

    win = MainWindow(saturated(1500), None, quiet=True)
    qtbot.addWidget(win)
    cycles = win.cycles
    qtbot.mouseClick(cycles.step_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: cycles.position == 0, timeout=60_000)  # the state before any step
    qtbot.mouseClick(cycles.step_button, Qt.MouseButton.LeftButton)  # planning 1,500 jobs
    qtbot.waitUntil(lambda: "%" in cycles.info.full_text(), timeout=60_000)  # progress while it computes
    worker = cycles.computing.thread
    qtbot.mouseClick(cycles.reset_button, Qt.MouseButton.LeftButton)
    worker.join(timeout=5.0)
    assert not worker.is_alive()
    qtbot.wait(50)
    assert cycles.sim is None and cycles.position == -1
    assert "Press Step" in cycles.info.full_text()


def test_the_cycles_plot_draws_steps_on_two_axes_without_a_legend_over_the_curves(qtbot, window):
    """The queue length and the busy share hold from one event to the next (steps, not ramps that never
    happened), each on an axis of its own (the busy share 0-100 % on the right, so a trace's few
    percent are not flattened by a queue of thousands), named on their axes rather than in a legend
    drawn over the data."""
    win = window(DEFAULT)
    cycles = win.cycles
    for _ in range(4):
        cycles.step()
    item = cycles.plot.getPlotItem()
    assert cycles.util_curve.getViewBox() is cycles.util_view and cycles.util_view is not item.vb
    assert item.getAxis("right").isVisible() and "busy" in item.getAxis("right").labelText
    assert "queue" in item.getAxis("left").labelText and item.legend is None
    xs, ys = cycles.queue_curve.getData()
    assert len(xs) == len(ys) == cycles.position + 1 >= 2
    # Each step's value holds from its time to the next step's: the line turns at (next time, this
    # value). (pyqtgraph's "left" held each value over the interval before its time: the queue of
    # 13 after the plan at t = 0 read 0 up to the end at 600.)
    for curve in (cycles.queue_curve, cycles.util_curve):
        xs, ys = curve.getData()
        path = curve.curve.getPath()
        corners = {(round(path.elementAt(k).x, 6), round(path.elementAt(k).y, 6)) for k in range(path.elementCount())}
        turns = [(xs[i + 1], ys[i]) for i in range(len(xs) - 1) if xs[i] < xs[i + 1] and ys[i] != ys[i + 1]]
        assert turns and all((round(x, 6), round(y, 6)) in corners for x, y in turns), (turns, corners)
    # The panel is no taller than its dock or its own minimum (pyqtgraph's 480 px hint made it twice
    # the dock's height, the time axis far below the fold).
    cycles.parentWidget().parentWidget().raise_()
    qtbot.wait(10)
    assert cycles.height() <= max(cycles.minimumSizeHint().height(), cycles.parentWidget().height())


def test_a_step_export_names_the_strategy_and_outlines_easys_reservation(qtbot, window, tmp_path):
    """A figure exported in Cycles mode is titled with the strategy, as a finished run's is, and draws
    EASY's reservation for the blocked head, as the chart does at that step."""
    from dataclasses import replace

    from workbench.engine.model import StrategyRef
    from workbench.gui import palette

    win = window(TINY)
    win.document.replace_environment(replace(win.document.env, strategy=StrategyRef("EASY")), TINY)
    qtbot.waitUntil(lambda: win.document.result is not None and not win.runner.busy, timeout=30_000)
    cycles = win.cycles
    while True:
        cycles.step()
        snap = win.showing_snapshot
        assert snap is not None
        if snap.hold is not None:
            break
    fig = win.chart_figure()
    assert fig.title.startswith("EASY on ") and fig.hold == snap.hold
    out = tmp_path / "step.svg"
    win.export_chart(out)
    assert palette.HOLD.lower() in out.read_text().lower()


def test_a_step_csv_lists_the_jobs_that_wait(qtbot, window, tmp_path):
    """The schedule exported at a simulation step has a row for every job that has arrived and waits for
    a window then (status "waiting"), besides the placed and the failed ones."""
    import csv
    from dataclasses import replace

    from workbench.engine.model import StrategyRef

    win = window(TINY)
    win.document.replace_environment(replace(win.document.env, strategy=StrategyRef("EASY")), TINY)
    qtbot.waitUntil(lambda: win.document.result is not None and not win.runner.busy, timeout=30_000)
    while True:
        win.cycles.step()
        snap = win.showing_snapshot
        assert snap is not None
        waiting = [j for j in snap.queue if snap.schedule.window_of(j) is None]
        if waiting:
            break
    out = tmp_path / "step.csv"
    win.export_schedule(out)
    with out.open() as lines:
        rows = list(csv.DictReader(lines))
    assert {r["job"] for r in rows if r["status"] == "waiting"} == set(waiting)
