"""The chart in the window, driven as a person would, offscreen: strategies drawn as the engine placed
them, editing with undo, labels, zoom, tooltips and numbers."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QPoint, QPointF, Qt

from tests.gui.helpers import drawn_windows, expected_windows, wait_result
from tests.support.hypothesis_strategies import examples, flows
from workbench.engine import registry
from workbench.gui.numbers import number

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "sample_envs" / "default.json"
TINY = ROOT / "sample_envs" / "tiny.json"


@pytest.mark.parametrize("strategy", ["FirstFit", "MinCost", "CoP", "PAST", "BSF"])
def test_strategies_through_the_gui_draw_the_engine_result(qtbot, window, strategy):
    """Choosing a strategy in the panel re-runs it live; the chart shows exactly the engine's windows."""
    win = window()
    panel = win.strategy
    info = registry.get(strategy)
    panel.family.setCurrentText(info.family)
    panel.name.setCurrentText(strategy)
    assert win.document.env.strategy.name == strategy
    wait_result(qtbot, win)
    direct = registry.run(win.document.env, strategy)
    assert win.document.result.windows == direct.windows
    assert drawn_windows(win) == expected_windows(win.document.env, direct)
    assert strategy in win.run_status.text()


def _task_point(win, task_id):
    env = win.document.env
    task = next(t for t in env.local_tasks if t.id == task_id)
    row = env.node_index[task.node]
    return task, QPointF((task.start + task.end) / 2, row + 0.4)


def _to_viewport(win, point):
    scene = win.chart.view.mapViewToScene(point)
    return win.chart.mapFromScene(scene)


def test_dragging_a_local_task_is_one_undoable_edit_that_reruns(qtbot, window):
    """A mouse drag moves the task by whole units; the strategy re-runs; undo and redo restore it."""
    win = window(TINY)
    win.chart.view.setRange(xRange=(0, 100), yRange=(-0.2, 6), padding=0)
    qtbot.wait(50)
    task, centre = _task_point(win, "t2")  # alpha, [60, 75)
    before = win.document.env
    old_result = win.document.result
    start = _to_viewport(win, centre)
    end = _to_viewport(win, QPointF(centre.x() + 12.3, centre.y()))
    viewport = win.chart.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for k in range(1, 11):
        qtbot.mouseMove(viewport, QPoint(start.x() + (end.x() - start.x()) * k // 10, start.y()))
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)
    moved = next(t for t in win.document.env.local_tasks if t.id == "t2")
    assert moved.start != task.start and moved.start == round(moved.start)
    assert moved.end - moved.start == task.end - task.start
    assert win.document.undo_text == "move task t2" and win.undo_action.text() == "&Undo move task t2"
    wait_result(qtbot, win)
    assert win.document.result is not old_result
    assert win.document.result.windows == registry.run(win.document.env, "FirstFit").windows
    win.undo_action.trigger()
    assert win.document.env is before
    wait_result(qtbot, win)
    assert win.document.result.windows == old_result.windows
    win.redo_action.trigger()
    assert next(t for t in win.document.env.local_tasks if t.id == "t2").start == moved.start


def test_double_click_adds_a_task_and_a_refused_drag_changes_nothing(qtbot, window):
    """A double-click request adds a local task; a drag that would put a task over another is refused, the
    environment unchanged and the status bar saying it overlaps."""
    win = window(TINY)
    count = len(win.document.env.local_tasks)
    win.chart.task_add_requested.emit("n3", 20.0)
    assert len(win.document.env.local_tasks) == count + 1
    before = win.document.env
    win.chart.task_changed.emit("t1", 50.0, 70.0, "n1")  # onto t2 of alpha: overlaps
    assert win.document.env is before and "overlaps" in win.statusBar().currentMessage()


def test_editing_a_budget_in_the_jobs_table(qtbot, window):
    """A valid budget is applied and re-run; an out-of-range one is refused at the cell."""
    win = window(TINY)
    model = win.jobs.model
    col = [c.header for c in model.columns].index("budget")
    index = model.index(0, col)
    assert model.setData(index, "777")
    assert win.document.env.jobs[0].budget == 777.0
    wait_result(qtbot, win)
    before = win.document.env
    for bad in ("-5", "abc", "0"):
        assert not model.setData(index, bad)
        assert win.document.env is before
        assert "budget" in win.jobs.message.text()
    assert model.setData(index, "∞") and win.document.env.jobs[0].budget == float("inf")
    n_col = [c.header for c in model.columns].index("n")
    assert not model.setData(model.index(0, n_col), "99")
    assert "environment has only 6 nodes" in win.jobs.message.text()


def test_job_names_go_on_the_widest_parts_in_view_and_never_past_the_charts_edge(qtbot, window, monkeypatch):
    """A schedule with more parts than names drawn at once still shows names where the user zooms in
    (it showed none at all); each name sits in the middle of the part of its window in view."""
    from workbench.gui.gantt import labels as labels_module

    monkeypatch.setattr(labels_module, "MAX_LABELS", 3)
    win = window(DEFAULT)
    chart = win.chart
    parts = chart._parts
    assert parts.window.size > 3
    first = int(np.argmax(parts.width))  # a wide part: cut it at the left edge
    x, width = float(parts.x[first]), float(parts.width[first])
    chart.view.setRange(xRange=(x + width / 3, x + width / 3 + 4 * width), padding=0)
    qtbot.wait(10)
    (x0, x1), _ = chart.view.viewRange()
    shown = [(label, k) for label, k in zip(chart._labels, chart._label_part, strict=True) if label.isVisible()]
    assert 0 < len(shown) <= 3
    for label, k in shown:
        lo, hi = max(parts.x[k], x0), min(parts.x[k] + parts.width[k], x1)
        assert label.pos().x() == pytest.approx((lo + hi) / 2)
        assert label.toPlainText() == win.document.env.job(chart.shown_windows[int(parts.window[k])].job).name
    # The widest in view: no part left without its name has more room than one that got it.
    (_, _), (y0, y1) = chart.view.viewRange()
    per_unit = chart.view.width() / (x1 - x0)
    room = (np.minimum(parts.x + parts.width, x1) - np.maximum(parts.x, x0)) * per_unit
    names = [win.document.env.job(chart.shown_windows[int(w)].job).name for w in parts.window]
    fits = [
        k for k in range(parts.window.size)
        if parts.y[k] + 1 > y0 and parts.y[k] < y1 and room[k] >= 6.5 * len(names[k]) + 4
    ]  # fmt: skip
    labelled = {k for _, k in shown}
    assert len(fits) > 3 and min(room[k] for k in labelled) >= max(room[k] for k in fits if k not in labelled)
    # With room for every name, the widest part, cut by the left edge, has its name in its part in view.
    monkeypatch.setattr(labels_module, "MAX_LABELS", 400)
    chart._update_label_visibility()
    at = {k: label for label, k in zip(chart._labels, chart._label_part, strict=True) if label.isVisible()}
    assert parts.x[first] < x0 and first in at
    assert at[first].pos().x() == pytest.approx((x0 + min(parts.x[first] + parts.width[first], x1)) / 2)


def test_dragging_an_edge_resizes_and_tooltips_describe_what_is_under_the_mouse(qtbot, window):
    """Dragging a task's right edge resizes it as an undoable edit; tooltips describe the local task, a job's
    window (its name, L_left and cost) and a free slot or task under the mouse."""
    win = window(TINY)
    chart = win.chart
    chart.view.setRange(xRange=(0, 100), yRange=(-0.2, 6), padding=0)
    qtbot.wait(20)
    task, _ = _task_point(win, "t2")  # alpha, [60, 75)
    edge = QPointF(task.end - 0.05, 0.4)
    assert chart.begin_drag(edge) and chart._drag.mode == "right"
    chart.finish_drag(QPointF(task.end + 4.6, 0.4))
    resized = next(t for t in win.document.env.local_tasks if t.id == "t2")
    assert (resized.start, resized.end) == (60.0, 80.0)
    assert win.document.undo_text == "resize task t2"
    assert "local task t2" in chart.tooltip_at(QPointF(70, 0.4)) and "[60, 80)" in chart.tooltip_at(QPointF(70, 0.4))
    wait_result(qtbot, win)
    w = win.document.result.windows[0]
    row = win.document.env.node_index[w.nodes[0]]
    tip = chart.tooltip_at(QPointF(w.start + w.length / 2, row + 0.4))
    assert win.document.env.job(w.job).name in tip and "L_left" in tip and "cost" in tip
    free = chart.tooltip_at(QPointF(99.5, 5.4))
    assert free.startswith("free slot") or "task" in free


def test_jobs_up_and_down_move_the_selected_job(qtbot, window):
    """The Up/Down buttons reorder the job list (one undoable edit)."""
    from PySide6.QtWidgets import QPushButton

    win = window(TINY)
    dock = win.jobs
    before = [j.id for j in win.document.env.jobs]
    dock.view.selectRow(1)
    up = next(b for b in dock.findChildren(QPushButton) if b.text() == "Up")
    qtbot.mouseClick(up, Qt.MouseButton.LeftButton)
    assert [j.id for j in win.document.env.jobs] == [before[1], before[0], *before[2:]]
    down = next(b for b in dock.findChildren(QPushButton) if b.text() == "Down")
    qtbot.mouseClick(down, Qt.MouseButton.LeftButton)  # the moved job is still selected
    assert [j.id for j in win.document.env.jobs] == before
    win.document.undo()
    assert [j.id for j in win.document.env.jobs] == [before[1], before[0], *before[2:]]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=list(HealthCheck))
@given(env=flows(max_jobs=10, max_nodes=5), name=st.sampled_from(["FirstFit", "CoP", "EASY", "BSF"]))
def test_drawn_solid_rectangles_never_overlap_on_a_node(chart, env, name):
    """Whatever ran early, solid rectangles never share a node at once,
    in the final picture and at every step of the simulation."""
    sim = registry.simulator(env, name)
    while not sim.done:
        snap = sim.step()
        if snap is not None:
            chart.set_snapshot(env, snap)
            _assert_no_overlap(chart)
    chart.set_data(env, sim.result())
    _assert_no_overlap(chart)


def _assert_no_overlap(chart):
    layer = chart.windows
    by_row = {}
    for x, y, w in zip(layer.x.tolist(), layer.y.tolist(), layer.w.tolist(), strict=True):
        by_row.setdefault(y, []).append((x, x + w))
    for spans in by_row.values():
        spans.sort()
        for (_, e0), (s1, _) in itertools.pairwise(spans):
            assert s1 >= e0 - 1e-9


@pytest.fixture(scope="module")
def chart(qapp):
    from workbench.gui.gantt.chart import GanttChart

    return GanttChart()


def test_deep_zoom_keeps_the_node_label_and_the_wheel_zooms_time_only(qtbot, window):
    """Zoomed inside one row, the row keeps its label; the wheel zooms time,
    Ctrl+wheel the rows."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QGraphicsSceneWheelEvent

    win = window(TINY)
    axis = win.chart.node_axis
    ticks = axis.tickValues(3.0, 3.3, 400)
    values = [v for _, group in ticks for v in group if 3.0 <= v <= 3.3]
    assert values and axis.tickStrings(values, 1, 1) == [axis._labels[3]]

    view = win.chart.view
    view.setRange(xRange=(0, 100), yRange=(0, 6), padding=0)

    def wheel(modifiers):
        event = QGraphicsSceneWheelEvent(QEvent.Type.GraphicsSceneWheel)
        event.setDelta(120)
        event.setModifiers(modifiers)
        event.setPos(view.boundingRect().center())
        event.setScenePos(view.mapToScene(view.boundingRect().center()))
        view.wheelEvent(event)
        return view.viewRange()

    (x0, x1), (y0, y1) = view.viewRange()
    (a0, a1), (b0, b1) = wheel(Qt.KeyboardModifier.NoModifier)
    assert a1 - a0 < x1 - x0 and (b0, b1) == (y0, y1)
    (c0, c1), (d0, d1) = wheel(Qt.KeyboardModifier.ControlModifier)
    assert (c0, c1) == (a0, a1) and d1 - d0 < b1 - b0


def test_ctrl_y_redoes(window):
    """Ctrl+Y redoes, beside the platform's own Redo key."""
    from PySide6.QtGui import QKeySequence

    win = window(TINY)
    assert QKeySequence("Ctrl+Y") in win.redo_action.shortcuts()


def test_numbers_read_the_same_everywhere_and_editing_keeps_every_digit(window):
    """Numbers show no scientific notation, four decimals at most, ∞ for no budget;
    the editor shows the full value, so an untouched cell changes nothing."""
    from workbench.gui.numbers import full, number

    assert [number(v) for v in (29820.0, 1285250.0, 38.21434523, 0.619891, 2.0, float("inf"), -0.0)] == [
        "29820",
        "1285250",
        "38.2143",
        "0.6199",
        "2",
        "∞",
        "0",
    ]
    assert full(38.21434523) == "38.21434523" and full(2.0) == "2"
    win = window(DEFAULT)
    model = win.jobs.model
    for r in range(model.rowCount()):
        for c in range(model.columnCount()):
            text = model.data(model.index(r, c))
            assert "e+" not in str(text) and "e-" not in str(text)
    version = win.document.version
    index = model.index(0, 3)  # an editable number, written back unchanged
    assert model.setData(index, model.data(index, Qt.ItemDataRole.EditRole), Qt.ItemDataRole.EditRole) is False
    assert win.document.version == version


def test_undo_text_edit_names_title_mark_and_step_controls(qtbot, window):
    """Stable Undo text in the toolbar, readable edit names, the title's
    modified mark through Qt, a Pause label that renders, Step back pauses, an honest step count,
    and a task-time message that reads right whichever field was edited."""
    from workbench.engine.errors import ValidationError
    from workbench.session import edits

    win = window(TINY)
    win.document.apply(edits.set_job(win.document.env.jobs[0].id, node_count=1))
    assert win.undo_action.iconText() == "Undo"
    assert "node_count" not in win.undo_action.text() and "nodes" in win.undo_action.text()
    assert "[*]" in win.windowTitle() and win.isWindowModified()
    cycles = win.cycles
    cycles.play_button.setChecked(True)
    assert "⏸" not in cycles.play_button.text() and "Pause" in cycles.play_button.text()
    cycles.play_button.setChecked(False)
    assert cycles.step() and cycles.step()
    cycles.play_button.setChecked(True)
    cycles.step_back()
    assert not cycles.play_button.isChecked()
    assert " of " not in cycles.info.full_text().split(" — ")[0] or cycles.sim.done
    while cycles.step():
        pass
    head = cycles.info.full_text().split(" — ")[0]
    assert head == f"step {len(cycles.sim.snapshots)} of {len(cycles.sim.snapshots)}"
    task = win.document.env.local_tasks[0]
    with pytest.raises(ValidationError) as info:
        win.document.apply(edits.set_task(task.id, start=task.end + 5))
    assert "must end after it starts" in info.value.message and "must be > start" not in info.value.message


def test_tooltips_show_the_distances_the_strategy_saw(window):
    """A window's tooltip gives the distances its placement saw (for job 4 under CoP on default.json,
    not L_left 155 on node 08, whose free slot to the left is [132.216, 155)), and, where a strategy
    keeps none, those of the picture."""
    from workbench.engine.slots import SlotTable, window_distances

    win = window(DEFAULT)
    env, schedule = win.document.env, win.document.result
    w = schedule.window_of("j4")
    tip = win.chart._window_tip(env, w)
    assert "when the strategy placed it" in tip
    left, right = schedule.distances["j4"]
    for k, node_id in enumerate(w.nodes):
        name = env.nodes[env.node_index[node_id]].name
        assert f"{name}: L_left {number(left[k])}, L_right {number(right[k])}" in tip
    assert "L_left 155," not in tip
    # EASY keeps no distances: the tooltip measures them among the windows drawn.
    easy = registry.run(env, "EASY", explain=True)
    win.chart.set_data(env, easy)
    w = easy.windows[0]
    tip = win.chart._window_tip(env, w)
    others = [x for x in easy.windows if x.job != w.job]
    left, right = window_distances(SlotTable.from_environment(env, others), w)
    assert "in this picture" in tip and f"L_left {number(left[0])}, L_right {number(right[0])}" in tip


def test_the_time_cursors_label_stays_away_from_the_rows_under_the_pointer(qtbot, window):
    """On the top rows the cursor's time reads at the bottom of the chart (it covered their names),
    elsewhere at the top."""
    win = window(DEFAULT)
    chart = win.chart
    rect = chart.view.sceneBoundingRect()
    (x0, x1), _ = chart.view.viewRange()
    for scene_y in (rect.top() + 5, rect.bottom() - 5):
        point = chart.view.mapSceneToView(QPointF(rect.center().x(), scene_y))
        chart._move_cursor(QPointF((x0 + x1) / 2, point.y()))
        qtbot.wait(5)
        label = chart.cursor.label.sceneBoundingRect()
        assert chart.cursor.isVisible() and "t = " in chart.cursor.label.toPlainText()
        assert abs(label.center().y() - scene_y) > rect.height() / 2, (scene_y, label)


def test_the_time_cursor_and_the_hover_highlight_leave_with_the_mouse(qtbot, window):
    """Hovering a window shows the time cursor and dims the rest; when the mouse leaves the chart both go."""
    from PySide6.QtCore import QEvent

    win = window(DEFAULT)
    chart = win.chart
    job = win.document.result.windows[0].job
    chart.cursor.setVisible(True)
    chart.set_hovered(job)
    assert chart.veil.count > 0
    chart.leaveEvent(QEvent(QEvent.Type.Leave))
    assert not chart.cursor.isVisible() and chart.hovered is None and chart.veil.count == 0
