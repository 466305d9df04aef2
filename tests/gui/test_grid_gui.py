"""Grid environments in the window: machines grouped by site, collapsed lanes, the economic scheduler."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QPoint, QPointF, Qt

from tests.gui.helpers import compared, drawn_windows, wait_result

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "sample_envs" / "default.json"
TINY = ROOT / "sample_envs" / "tiny.json"


def grid_window(window, tmp_path, strategy):
    """A window on five jobs of 3, 4, 5, 2 and 6 nodes over machines of 4, 3 and 4 nodes, running ``strategy``."""
    from workbench.engine.grid.configs import grid_environment
    from workbench.engine.io.envfile import save_environment
    from workbench.engine.model import Environment, Job, Node

    jobs = [Job(f"j{i}", f"job {i}", n, 1.0, 40.0 + 10 * i, arrival=float(i)) for i, n in enumerate([3, 4, 5, 2, 6])]
    env, _ = grid_environment(Environment(nodes=(Node("a", "a", 1.0, 1.0),), jobs=tuple(jobs)), "4,3,4")
    path = tmp_path / "grid.json"
    save_environment(env, path)
    win = window(path)
    win.strategy.family.setCurrentText("grid")
    win.strategy.name.setCurrentText(strategy)
    return win


def test_a_grid_schedule_is_grouped_by_site(qtbot, window, tmp_path):
    """On a grid, rows are grouped by site under a header with a separator; a multi-site job keeps one colour
    across machines and its tooltip names them and the overhead; strategy panel, Compare and Cycles work."""

    win = grid_window(window, tmp_path, "Multi-site")
    wait_result(qtbot, win)
    env, result = win.document.env, win.document.result
    assert result.strategy == "Multi-site" and not result.unscheduled
    rows = win.chart.rows
    assert [row for row, _ in rows.headers] == [0, 5, 9]  # a header, then the site's nodes
    labels = win.chart.node_axis._labels
    assert labels[0].startswith("▾ machine 1 · 4 nodes") and labels[5].startswith("▾ machine 2 · 3 nodes")
    for node, row in zip(env.nodes, rows.row_of, strict=True):
        header = max(h for h, _ in rows.headers if h < row)
        assert labels[header].startswith("▾ " + env.site_name(node.site))
    assert len(win.chart._site_lines) == 2  # separators above machines 2 and 3
    drawn = drawn_windows(win)
    index = env.node_index
    want = sorted(
        (w.start, float(rows.row_of[index[n]]), result.actual_end(env, w) - w.start) for w in result.windows
        for n in w.nodes
    )  # fmt: skip
    assert drawn == want
    multi = [w for w in result.windows if w.overhead]
    assert multi, "the 6-node job fits no machine of at most 4 nodes"
    w = multi[0]
    k = win.chart._window_list.index(w)
    mine = win.chart._window_rect_job == k
    site_rows = {env.nodes[int(rows.node_at[int(y)])].site for y in win.chart.windows.y[mine]}
    assert len(site_rows) == 2 and len(set(win.chart.windows._group[mine].tolist())) == 1
    tip = win.chart._window_tip(env, w)
    assert "multi-site over 2 machines" in tip and "overhead 25 %" in tip
    win.export_chart(tmp_path / "grid.png")
    assert (tmp_path / "grid.png").read_bytes()[:4] == b"\x89PNG"
    cycles = win.cycles
    while cycles.step():
        pass
    assert len(cycles.sim.snapshots[-1].windows) == len(result.windows)
    dialog = compared(qtbot, win, ["Local", "Job sharing", "Multi-site"])
    assert list(dialog.results) == ["Local", "Job sharing", "Multi-site"]
    assert dialog.results["Local"].unscheduled  # the 5- and 6-node jobs are wider than their sites


def test_a_click_on_a_machine_header_collapses_it_to_one_lane_and_opens_it_again(qtbot, window, tmp_path):
    """Defect 19: the header's triangle does what it shows. Collapsed, a machine keeps its header row,
    its nodes' windows and tasks are drawn on it (when the machine is busy), its tasks cannot be
    dragged there, and an export shows the same rows; a second click opens it."""
    from PySide6.QtWidgets import QApplication

    from workbench.gui.gantt import geometry
    from workbench.gui.gantt.geometry import ROW_HEIGHT

    win = grid_window(window, tmp_path, "Job sharing")
    wait_result(qtbot, win)
    env, chart = win.document.env, win.chart
    before = chart.rows.count
    site = chart.rows.header_sites[1]
    members = [k for k, n in enumerate(env.nodes) if n.site == site]
    header_row = chart.rows.headers[1][0]

    def click_header() -> None:
        """A real click on the header's label, at its row's height on the left axis."""
        y = chart.view.mapViewToScene(QPointF(0, header_row + ROW_HEIGHT / 2)).y()
        x = chart.node_axis.sceneBoundingRect().center().x()
        where = chart.mapFromScene(QPointF(x, y))
        qtbot.mouseClick(chart.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(int(where.x()), int(where.y())))
        qtbot.wait(QApplication.doubleClickInterval() + 50)  # two clicks, not a double-click

    click_header()
    assert site in chart.collapsed
    rows = chart.rows
    assert rows.count == before - len(members)
    assert all(rows.row_of[k] == header_row for k in members)
    assert chart.node_axis._labels[header_row].startswith("▸ " + env.site_name(site))
    site_of = {n.id: n.site for n in env.nodes}
    parts = [n for w in win.document.result.windows for n in w.nodes if site_of[n] == site]
    assert parts
    on_lane = np.floor(chart.windows.y) == header_row
    assert int(on_lane.sum()) == len(parts)  # the machine's parts, on its lane
    # Each node keeps its own thin strip of the lane, so the lane shows how much of the machine is
    # busy (a job on 2 of 16 nodes fills 2 strips), not only whether any of it is.
    strip = ROW_HEIGHT / len(members)
    assert np.allclose(chart.windows.h[on_lane], strip)
    assert set(np.round((chart.windows.y[on_lane] - header_row) / strip, 6)) <= set(range(len(members)))
    assert np.allclose(rows.y[members], header_row + strip * np.arange(len(members)))
    task = next((t for t in env.local_tasks if site_of[t.node] == site), None)
    if task is not None:
        assert not chart.begin_drag(QPointF((task.start + task.end) / 2, header_row + ROW_HEIGHT / 2))
    figure = win.chart_figure()
    assert figure.collapsed == frozenset({site})
    assert geometry.row_layout(env, figure.row_order, figure.collapsed).count == rows.count
    click_header()
    assert site not in chart.collapsed and chart.rows.count == before


def test_the_economic_scheduler_runs_in_the_panel_the_player_and_compare(qtbot, window, tmp_path):
    """Economic is a grid strategy like the others: its MF/UF choices are in the panel, a job wider
    than every machine is co-allocated and drawn in one colour over the sites, the player steps its bookings."""

    win = grid_window(window, tmp_path, "Economic")
    env = win.document.env
    wait_result(qtbot, win)
    result = win.document.result
    assert result.strategy == "Economic" and not result.unscheduled
    wide = [w for w in result.windows if w.overhead]
    assert [w.job for w in wide] == ["j2", "j4"]  # 5 and 6 nodes: wider than every machine (4, 3, 4)
    site = {n.id: n.site for n in env.nodes}
    assert all(w.overhead == 0.25 and len({site[n] for n in w.nodes}) > 1 for w in wide)
    tip = win.chart._window_tip(win.document.env, wide[0])
    assert "multi-site over" in tip and "overhead 25 %" in tip
    # The panel offers the paper's functions by name; another one reruns the schedule.
    combo = win.strategy._fields["user_function"]
    assert [combo.itemText(i) for i in range(combo.count())] == ["UF1", "UF2", "UF3", "UF4", "UF5"]
    combo.setCurrentText("UF2")
    assert win.document.env.strategy.params_dict() == {"user_function": "UF2"}
    wait_result(qtbot, win)
    assert win.document.result is not result and win.document.result.strategy == "Economic"
    cycles = win.cycles
    while cycles.step():
        pass
    assert len(cycles.sim.snapshots[-1].windows) == len(win.document.result.windows)
    dialog = compared(qtbot, win, ["Job sharing", "Economic"])
    assert list(dialog.results) == ["Job sharing", "Economic"]
    assert dialog.results["Job sharing"].unscheduled and not dialog.results["Economic"].unscheduled
