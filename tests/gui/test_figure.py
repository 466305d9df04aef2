"""Publication figures (PNG/SVG/PDF), `workbench export`, and job identity (colours by id, highlighting)."""

from __future__ import annotations

import dataclasses
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF

from tests.gui.helpers import compared
from workbench.cli import main
from workbench.engine import registry
from workbench.engine.files import load_environment
from workbench.gui import palette
from workbench.gui.gantt import geometry

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "sample_envs" / "default.json"
TINY = ROOT / "sample_envs" / "tiny.json"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def app(qapp):
    return qapp


def _svg_geometry(path: Path):
    root = ET.parse(path).getroot()
    rects = [tuple(float(r.get(k)) for k in ("x", "y", "width", "height")) for r in root.iter(f"{SVG}rect")]
    lines = []
    for poly in root.iter(f"{SVG}polyline"):
        pts = [tuple(map(float, p.split(","))) for p in poly.get("points").split()]
        if len(pts) == 2:
            lines.append(pts)
    texts = ["".join(t.itertext()).strip() for t in root.iter(f"{SVG}text")]
    transforms = [g.get("transform") for g in root.iter() if g.get("transform")]
    return root, rects, lines, texts, transforms


def test_svg_is_plain_vectors_on_the_screen_time_axis(app, tmp_path):
    """The SVG export draws every window as a rect where the time axis says it is, its labels as text,
    and no bitmap."""
    from workbench.gui.figure import figure_of, save_figure

    env = load_environment(DEFAULT)
    schedule = registry.run(env, "CoP")
    out = tmp_path / "chart.svg"
    save_figure(figure_of(env, schedule), out)
    root, rects, lines, texts, transforms = _svg_geometry(out)
    assert not list(root.iter(f"{SVG}image")), "no part of the figure may be a bitmap"
    # No scaled groups (librsvg drew windows in scaled groups with non-scaling strokes as blobs).
    for t in transforms:
        a, b, c, d = map(float, re.match(r"matrix\(([^,]+),([^,]+),([^,]+),([^,]+),", t).groups())
        assert (a, b, c, d) == (1.0, 0.0, 0.0, 1.0), t
    for node in env.nodes:
        assert any(text.startswith(node.name) for text in texts), node.name
    assert "600" in texts and "0" in texts
    # The tick marks (5 px long, vertical) give the time axis; the horizon line sits on the 600 tick.
    ticks = sorted(a[0] for a, b in lines if a[0] == b[0] and abs(b[1] - a[1] - 5) < 1e-6)
    assert len(ticks) == 7  # 0, 100, ..., 600
    assert np.allclose(np.diff(ticks), ticks[1] - ticks[0])
    x_of = lambda t: ticks[0] + t / 600 * (ticks[-1] - ticks[0])  # noqa: E731
    horizon = [a[0] for a, b in lines if a[0] == b[0] and b[1] - a[1] > 100]
    assert any(abs(x - x_of(600)) < 1e-3 for x in horizon)
    # Every part of every window is a rect from its start to its actual end on that axis.
    for w in schedule.windows:
        end = schedule.actual_end(env, w)
        found = [
            r for r in rects if abs(r[0] - x_of(w.start)) < 0.01 and abs(r[2] - (x_of(end) - x_of(w.start))) < 0.01
        ]
        assert len(found) >= len(w.nodes), w.job
    title = root.find(f"{SVG}title").text
    assert title == f"CoP on {env.name}"


def test_png_dpi_and_pdf(app, tmp_path):
    """A figure saved as PNG at 192 dpi is twice the pixels of one at 96 and records its dpi; a PDF is written;
    no temporary file is left."""
    from PySide6.QtGui import QImage

    from workbench.gui.figure import figure_of, save_figure

    env = load_environment(TINY)
    fig = figure_of(env, registry.run(env, "MinCost"))
    save_figure(fig, tmp_path / "a.png", dpi=96, size=(800, 400))
    save_figure(fig, tmp_path / "b.png", dpi=192, size=(800, 400))
    a, b = QImage(str(tmp_path / "a.png")), QImage(str(tmp_path / "b.png"))
    assert (a.width(), a.height()) == (800, 400)
    assert (b.width(), b.height()) == (1600, 800)
    assert round(b.dotsPerMeterX() * 0.0254) == 192
    save_figure(fig, tmp_path / "c.pdf")
    assert (tmp_path / "c.pdf").read_bytes()[:5] == b"%PDF-"
    assert not list(tmp_path.glob(".*tmp*")), "no temporary file is left behind"


def test_export_command_writes_each_format(tmp_path, capsys):
    """`export` writes PNG, SVG, PDF, CSV and JSON; the JSON names the strategy and the CSV has reason and cost
    columns."""
    for suffix in (".png", ".svg", ".pdf", ".csv", ".json"):
        out = tmp_path / f"x{suffix}"
        assert main(["export", str(TINY), "--strategy", "MinCost", "-o", str(out), "--dpi", "72"]) == 0
        assert out.stat().st_size > 100
    doc = json.loads((tmp_path / "x.json").read_text())
    assert doc["strategy"] == "MinCost"
    header = (tmp_path / "x.csv").read_text().splitlines()[0].split(",")
    assert "reason" in header and "cost" in header


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["-o", "{tmp}/x.gif"], "-o"),
        (["-o", "{tmp}/missing/x.png"], "-o"),
        (["-o", "{tmp}/x.png", "--dpi", "0"], "--dpi"),
        (["-o", "{tmp}/x.png", "--size", "big"], "--size"),
        (["-o", "{tmp}/x.png", "--strategy", "Nope"], "Nope"),
    ],
)
def test_export_command_bad_input_is_one_line(tmp_path, capsys, args, names):
    """An unknown suffix, a missing folder, dpi 0, a bad size or an unknown strategy is one line naming it, exit
    code 2, and no file written."""
    argv = ["export", str(TINY), *[a.replace("{tmp}", str(tmp_path)) for a in args]]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and names in err, err
    assert not any(tmp_path.iterdir())


def test_job_colour_comes_from_its_id():
    """Deleting a job recolours nothing; jobs with neighbouring numbers never share a colour."""
    env = load_environment(DEFAULT)
    schedule = registry.run(env, "CoP")
    before = palette.colour_windows(env, schedule.windows, "job", {}, None)
    colour_of = {w.job: int(g) for w, g in zip(schedule.windows, before.group, strict=True)}
    smaller = dataclasses.replace(env, jobs=env.jobs[1:])
    kept = [w for w in schedule.windows if w.job != env.jobs[0].id]
    after = palette.colour_windows(smaller, kept, "job", {}, None)
    assert all(colour_of[w.job] == int(g) for w, g in zip(kept, after.group, strict=True))
    for k in range(1, 200):
        assert palette.job_colour_index(str(k)) != palette.job_colour_index(str(k + 1))
        assert palette.job_colour_index(f"j{k}") != palette.job_colour_index(f"j{k + 1}")
    assert palette.job_colour_index("alpha") == palette.job_colour_index("alpha")  # stable hash, no salt


def test_the_keys_planned_colour_is_light_as_on_the_chart(app):
    """Rich text drops a colour's alpha: the key's "planned (light)" box was drawn in the full job
    colour. It shows the colour as it looks over the chart's white."""
    from PySide6.QtGui import QColor

    full = QColor(palette.JOB_COLOURS[0])
    html = palette.legend_html(planned=True)
    planned = re.search(r"color:(#[0-9a-f]{6})'>[^<]*</span> planned \(light\)", html).group(1)
    light = QColor(planned)
    assert planned != full.name()
    assert light.lightness() > full.lightness()
    a = palette.planned_colour(full).alphaF()
    assert abs(light.red() - (full.red() * a + 255 * (1 - a))) <= 1


def test_the_charts_key_takes_as_many_lines_as_its_width_needs(qtbot, window):
    """A narrow chart cut its one-line key at both ends ("…now ¦ cy"); it wraps instead, and a wide
    chart keeps one line."""
    win = window(DEFAULT)
    title = win.chart.getPlotItem().titleLabel
    qtbot.wait(50)
    assert "<br>" not in title.text and "horizon" in title.text
    win.resize(1000, win.height())
    qtbot.waitUntil(lambda: "<br>" in title.text, timeout=5_000)
    qtbot.wait(50)
    assert "horizon" in title.text and title.boundingRect().width() <= win.chart.width()
    # The whole key shows (the title's row is as tall as its lines), and the plot is no wider than
    # the chart: laid out over the one-line key's width, it was cut at the right.
    lines = title.text.count("<br>") + 1
    assert title.item.boundingRect().height() <= title.boundingRect().height() + 1 and lines >= 2
    view = win.chart.getPlotItem().vb.sceneBoundingRect()
    assert view.right() <= win.chart.viewport().width() + 1
    win.resize(1500, win.height())
    qtbot.waitUntil(lambda: "<br>" not in title.text, timeout=5_000)


def test_colour_by_criterion_and_status():
    """Colouring by criterion groups windows by their job's criterion, one legend entry each; by status a window
    is planned before its start, running during it, and finished early when it ended early."""
    env = load_environment(DEFAULT)
    schedule = registry.run(env, "CoP")
    by = palette.colour_windows(env, schedule.windows, "criterion", {}, None)
    names = list(palette.CRITERION_COLOURS)
    assert [names[g] for g in by.group] == [env.job(w.job).criterion for w in schedule.windows]
    assert {text for text, _ in by.legend} == {f"criterion {env.job(w.job).criterion}" for w in schedule.windows}
    # Status at a step: planned after now, running across it, finished before it.
    w = schedule.windows[0]
    ends = {w.job: w.end}
    assert palette.colour_windows(env, [w], "status", ends, w.start - 1).legend[0][0] == "planned"
    assert palette.colour_windows(env, [w], "status", ends, w.start + 1e-3).legend[0][0] == "running"
    early = {w.job: w.start + w.length / 2}
    assert palette.colour_windows(env, [w], "status", early, None).legend[0][0] == "finished early"


def test_parts_follow_the_geometry_rules():
    """A window has a part per node and a released tail per node of a job that ended early; during a step a job
    not yet at its early end is drawn whole; nice_ticks gives round ticks."""
    env = load_environment(DEFAULT)
    schedule = registry.run(env, "CoP")
    ends = {w.job: w.start + w.length / 2 for w in schedule.windows[:3]}
    parts = geometry.window_parts(env, list(schedule.windows), ends, None)
    assert parts.x.size == sum(len(w.nodes) for w in schedule.windows)
    assert parts.released_x.size == sum(len(w.nodes) for w in schedule.windows[:3])
    # During a step, a job that has not yet reached its early end is still drawn whole.
    now = schedule.windows[0].start + 1e-3
    during = geometry.window_parts(env, list(schedule.windows), ends, now)
    assert during.solid_end[0] == schedule.windows[0].end
    assert geometry.nice_ticks(0, 600, 7) == [0, 100, 200, 300, 400, 500, 600]
    assert geometry.nice_ticks(0.5, 0.9, 4) == pytest.approx([0.5, 0.6, 0.7, 0.8, 0.9])


def test_a_rough_window_is_drawn_part_by_part():
    """Seed 000 Fig. 3: each part of a rough-edged window ends on its own, on screen and in exports; a job
    that finished early at half its runtime shows every part solid for half its own length."""
    env = load_environment(DEFAULT)
    schedule = registry.run(env, "MinCost", {"shape": "rough"})
    rough = [w for w in schedule.windows if len(set(w.part_lengths)) > 1]
    assert rough, "the default environment has nodes of several performances"
    w = rough[0]
    parts = geometry.window_parts(env, [w], {w.job: w.end}, None)
    assert parts.width == pytest.approx(np.array(w.part_lengths)) and parts.released_x.size == 0
    half = geometry.window_parts(env, [w], {w.job: w.start + w.length / 2}, None)
    assert half.width == pytest.approx(np.array(w.part_lengths) / 2)
    assert half.released_width == pytest.approx(np.array(w.part_lengths) / 2)


def test_selecting_or_hovering_a_job_highlights_all_its_parts(qtbot):
    """Selecting a job veils the chart and highlights each of its nodes; hovering another highlights that one
    while it lasts; clearing removes both; colouring by criterion keeps the rectangles in place and says so in
    the title."""
    from workbench.gui.gantt.chart import GanttChart

    env = load_environment(DEFAULT)
    schedule = registry.run(env, "CoP")
    chart = GanttChart(editable=False)
    qtbot.addWidget(chart)
    chart.set_data(env, schedule, fit=True)
    assert chart.veil.count == 0 and chart.focus.count == 0
    wide = max(schedule.windows, key=lambda w: len(w.nodes))
    chart.set_selected(wide.job)
    assert chart.veil.count == 1
    assert sorted(chart.focus.y.tolist()) == sorted(float(env.node_index[n]) for n in wide.nodes)
    other = next(w for w in schedule.windows if w.job != wide.job)
    chart.set_hovered(other.job)  # hovering wins while it lasts
    assert chart.focus.count == len(other.nodes)
    chart.set_hovered(None)
    assert chart.focus.count == len(wide.nodes)
    chart.set_selected(None)
    assert chart.veil.count == 0 and chart.focus.count == 0
    # Colouring by criterion regroups the windows without changing where they are.
    before = (chart.windows.x.copy(), chart.windows.w.copy())
    chart.set_colour_by("criterion")
    assert np.array_equal(chart.windows.x, before[0]) and np.array_equal(chart.windows.w, before[1])
    assert "criterion" in chart.getPlotItem().titleLabel.text


def test_icon_desktop_entry_about_and_shortcuts(qtbot):
    """resources/ ships the icon and the .desktop entry; Help lists every key the menus define."""
    import configparser

    from PySide6.QtWidgets import QMessageBox

    from workbench.gui.help import DESKTOP_ENTRY, ShortcutsDialog, resource, show_about
    from workbench.gui.main_window import MainWindow

    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(resource(DESKTOP_ENTRY))
    desktop = entry["Desktop Entry"]
    assert desktop["Type"] == "Application" and desktop["Exec"].startswith("workbench")
    assert desktop["Icon"] == "slot-workbench"
    win = MainWindow(load_environment(TINY), TINY, quiet=True)
    qtbot.addWidget(win)
    assert not win.windowIcon().isNull()
    assert not win.windowIcon().pixmap(64, 64).toImage().isNull()
    box = show_about(win)
    assert isinstance(box, QMessageBox) and "Slot Workbench" in box.text() and "Franke" in box.text()
    assert not box.iconPixmap().isNull()
    box.close()
    dialog = ShortcutsDialog(win.menuBar(), win)
    rows = {(dialog.table.item(r, 1).text(), dialog.table.item(r, 2).text()) for r in range(dialog.table.rowCount())}
    assert ("Run", "F5") in rows and ("Compare strategies", "Ctrl+K") in rows
    assert any(what == "Redo" and "Ctrl+Y" in keys for what, keys in rows)
    assert ("Keyboard shortcuts", "Ctrl+/") in rows


def test_why_here_hides_the_candidates_table_when_there_are_none(qtbot, window):
    """EASY starts a job where its queue rule says, with no candidates compared: the panel says so in
    words and shows no empty table (a reviewer read the empty one as a fault); CoP's shows its table."""
    from PySide6.QtWidgets import QDockWidget

    from workbench.session import edits

    win = window(DEFAULT)
    win.findChild(QDockWidget, "why here?").raise_()
    win.document.apply(edits.set_strategy("EASY", {}))
    qtbot.waitUntil(lambda: win.document.result is not None and win.document.result.strategy == "EASY", timeout=30_000)
    win.jobs.view.selectRow(win.document.env.job_index["j4"])
    qtbot.waitUntil(lambda: win.why.explanation is not None, timeout=30_000)
    assert not win.why.explanation.candidates and win.why.table.isHidden()
    assert "EASY" in win.why.title.text() + win.why.summary.text()
    win.undo_action.trigger()
    qtbot.waitUntil(lambda: win.document.result is not None and win.document.result.strategy == "CoP", timeout=30_000)
    win.why.show_job("j4")
    qtbot.waitUntil(lambda: win.why.explanation is not None and bool(win.why.explanation.candidates), timeout=30_000)
    assert not win.why.table.isHidden() and win.why.table.rowCount() > 1


def test_why_here_panel_explains_the_selected_job(qtbot, window):
    """Selecting j4 explains it in Why here?: its window starred first with its start, the other candidates
    outlined on the chart until the box is unticked; for j6, which fails, the summary names the budget and
    over-budget rows are listed."""

    win = window(DEFAULT)
    win.findChild(__import__("PySide6.QtWidgets", fromlist=["QDockWidget"]).QDockWidget, "why here?").raise_()
    win.jobs.view.selectRow(win.document.env.job_index["j4"])
    qtbot.waitUntil(lambda: win.why.explanation is not None, timeout=30_000)
    ex = win.why.explanation
    chosen = win.document.result.window_of("j4")
    assert ex.job == "j4" and ex.chosen == chosen
    assert win.why.table.item(0, 0).text().startswith("★")
    assert float(win.why.table.item(0, 1).text().split()[0]) == pytest.approx(chosen.start)
    # The other candidates are outlined on the chart (one outline for near-identical ones); unticking
    # the box removes them.
    others = [g[0] for g in win.why.shown_groups if not any(c.same_window(chosen) for c in g)]
    assert win.chart.ghosts.count == sum(len(c.nodes) for c in others) > 0
    assert win.chart.ghosts.scene() is win.chart.scene()
    win.why.show_ghosts.setChecked(False)
    assert win.chart.ghosts.count == 0
    # A failed job: the reason, and the cheapest windows its budget ruled out.
    win.jobs.view.selectRow(win.document.env.job_index["j6"])
    qtbot.waitUntil(lambda: win.why.explanation is not None and win.why.explanation.job == "j6", timeout=30_000)
    assert "budget" in win.why.summary.text()
    assert any(win.why.table.item(r, 0).text().startswith("over budget") for r in range(win.why.table.rowCount()))


def test_compare_shows_per_job_start_differences(qtbot):
    """differences() gives each job's change of start between two strategies and the jobs only one placed; in
    Compare each chart names its strategy, and the bars and note show the chosen pair's differences, following a
    new choice."""
    from workbench.gui.main_window import MainWindow
    from workbench.gui.panels.compare import differences

    env = load_environment(DEFAULT)
    a, b = registry.run(env, "FirstFit"), registry.run(env, "MinCost")
    diff = differences(env, a, b)
    for job, d in zip(diff.jobs, diff.delta, strict=True):
        assert d == pytest.approx(b.window_of(job).start - a.window_of(job).start)
    assert diff.earlier + diff.later <= len(diff.jobs)
    assert set(diff.only_a) == {j.id for j in env.jobs if a.window_of(j.id) and not b.window_of(j.id)}
    win = MainWindow(env, DEFAULT, quiet=True)
    qtbot.addWidget(win)
    dialog = compared(qtbot, win, ["FirstFit", "MinCost", "CoP", "EASY"])
    assert len(dialog.charts) == 4
    # Each chart names its strategy (before the legend).
    for chart, name in zip(dialog.charts, dialog.results, strict=True):
        assert f"<b>{name}</b>" in chart.getPlotItem().titleLabel.text
    assert (dialog.diff_a.currentText(), dialog.diff_b.currentText()) == ("FirstFit", "MinCost")
    heights = dialog.diff_bars.opts["height"]
    assert np.allclose(sorted(heights), sorted(diff.delta))
    assert f"{diff.earlier} jobs start earlier" in dialog.diff_note.text()
    dialog.diff_b.setCurrentText("CoP")
    cop = differences(env, a, dialog.results["CoP"])
    assert np.allclose(sorted(dialog.diff_bars.opts["height"]), sorted(cop.delta))


def _shown_cop_chart(qtbot):
    """A 900×500 chart, shown, of CoP on the default environment."""
    from workbench.gui.gantt.chart import GanttChart

    env = load_environment(DEFAULT)
    chart = GanttChart(editable=False)
    qtbot.addWidget(chart)
    chart.resize(900, 500)
    chart.show()
    chart.set_data(env, registry.run(env, "CoP"), fit=True)
    return chart


def test_time_unit_and_cursor(qtbot, tmp_path):
    """View ▸ Time unit shows SWF seconds as hours on the axis, the cursor and exported figures."""
    from PySide6.QtCore import QPointF

    chart = _shown_cop_chart(qtbot)
    chart.set_time_unit("hours")
    axis = chart.getPlotItem().getAxis("bottom")
    assert axis.scale == pytest.approx(1 / 3600) and "hours" in axis.labelText
    assert chart.cursor_text(7200.0) == "t = 2 h"
    # Zoomed so that a pixel spans 0.5 s: hours to the 0.0001 a pixel resolves.
    assert chart.cursor_text(7200.3, 0.5) == "t = 2.0001 h"
    assert chart.cursor_text(7200.0, 20.0) == "t = 2.000 h"
    assert chart.cursor_text(458.2, 0.05) == "t = 0.1273 h"
    chart._move_cursor(QPointF(300.0, 3.0))
    assert chart.cursor.isVisible() and chart.cursor.value() == pytest.approx(300.0)
    chart.show_cursor = False
    chart._move_cursor(QPointF(310.0, 3.0))
    assert not chart.cursor.isVisible()
    # The unit belongs to the document: a trace (seconds) can be read in minutes, a model-unit file cannot.
    trace = tmp_path / "trace.json"
    assert main(["import-swf", str(ROOT / "sample_envs" / "sample16.swf"), "-o", str(trace)]) == 0
    assert main(["export", str(trace), "-o", str(tmp_path / "h.svg"), "--time-unit", "minutes"]) == 0
    _, _, _, texts, _ = _svg_geometry(tmp_path / "h.svg")
    assert "time (minutes)" in texts
    assert main(["export", str(TINY), "-o", str(tmp_path / "t.svg"), "--time-unit", "minutes"]) == 2
    assert not (tmp_path / "t.svg").exists()


def test_job_table_sorts_by_value_filters_and_keeps_rows_straight(qtbot, window):
    """The Jobs table sorts volumes as numbers, maps a selected row back to the environment and the chart,
    re-sorts after an edit, filters by text and by unplaced jobs, and returns to list order."""
    from PySide6.QtCore import Qt

    win = window(DEFAULT)
    dock, env = win.jobs, win.document.env
    headers = [c.header for c in dock.model.columns]
    view = dock.view
    view.sortByColumn(headers.index("V"), Qt.SortOrder.DescendingOrder)
    shown = [float(dock.proxy.index(r, headers.index("V")).data()) for r in range(dock.proxy.rowCount())]
    assert shown == sorted((j.volume for j in env.jobs), reverse=True)  # as numbers, not as text
    # Selection maps back to the environment's row, whatever the order on screen.
    view.selectRow(0)
    biggest = max(range(len(env.jobs)), key=lambda r: env.jobs[r].volume)
    assert dock.selected_row() == biggest
    assert win.chart.selected == env.jobs[biggest].id
    dock.select_source_row(3)
    assert dock.selected_row() == 3
    # An edit resets the model: the order follows the new values.
    from workbench.session import edits

    win.document.apply(edits.set_job(env.jobs[0].id, volume=100_000))
    qtbot.waitUntil(lambda: win.document.result is not None and not win.runner.busy, timeout=30_000)
    assert dock.proxy.index(0, headers.index("id")).data() == env.jobs[0].id
    # Filters: text anywhere in the row, and unplaced jobs only.
    dock.filter.setText("job 1")
    names = {dock.proxy.index(r, headers.index("name")).data() for r in range(dock.proxy.rowCount())}
    assert names == {j.name for j in win.document.env.jobs if "job 1" in j.name}
    dock.filter.setText("")
    dock.only.setChecked(True)
    result = win.document.result
    unplaced = {dock.proxy.index(r, headers.index("id")).data() for r in range(dock.proxy.rowCount())}
    assert unplaced == set(result.unscheduled) and unplaced
    view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
    dock.only.setChecked(False)
    assert [dock.proxy.index(r, 0).data() for r in range(3)] == [j.id for j in win.document.env.jobs[:3]]


def test_node_rows_sort_by_performance_or_price(qtbot, tmp_path):
    """View ▸ Sort node rows: every window part, task and label moves with its node."""
    from PySide6.QtCore import QPointF

    from workbench.gui.figure import figure_of, save_figure
    from workbench.gui.gantt.chart import GanttChart

    env = load_environment(DEFAULT)
    schedule = registry.run(env, "CoP")
    chart = GanttChart()
    qtbot.addWidget(chart)
    chart.set_data(env, schedule, fit=True)
    chart.set_row_order("performance")
    perf = [n.performance for n in env.nodes]
    by_row = sorted(range(len(perf)), key=lambda k: (-perf[k], k))
    assert chart.node_axis._labels[0].startswith(env.nodes[by_row[0]].name)
    # The parts of a window sit on the rows of its nodes.
    w = schedule.windows[0]
    rows = {float(by_row.index(env.node_index[n])) for n in w.nodes}
    drawn = {y for x, y in zip(chart.windows.x, chart.windows.y, strict=True) if x == w.start}
    assert rows <= drawn
    # A double-click adds a task to the node on that row, not to the node at that list position.
    added = []
    chart.task_add_requested.connect(lambda node, t: added.append(node))
    free_row = 0  # the fastest node: free at t = 599
    chart.double_clicked(QPointF(599.0, free_row + 0.4))
    assert added == [env.nodes[by_row[free_row]].id]
    chart.set_row_order("price")
    cheapest = min(range(len(env.nodes)), key=lambda k: (env.nodes[k].price, k))
    assert chart.node_axis._labels[0].startswith(env.nodes[cheapest].name)
    out = tmp_path / "p.svg"
    save_figure(figure_of(env, schedule, row_order="price"), out)
    _, _, _, texts, _ = _svg_geometry(out)
    labels = [t for t in texts if t.startswith("node ")]
    assert labels[0].startswith(env.nodes[cheapest].name)


def test_editing_a_cell_with_tab_gives_no_qt_warning(qtbot, qtlog, window):
    """Editing a Jobs cell and leaving it with Return or Tab changes the job and logs no Qt warning
    ("commitData called with an editor that does not belong to this view")."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QLineEdit

    win = window(TINY)
    view = win.jobs.view
    headers = [c.header for c in win.jobs.model.columns]
    for row, text, key in ((0, "77", Qt.Key.Key_Return), (1, "55", Qt.Key.Key_Tab)):
        index = view.model().index(row, headers.index("V"))
        view.setCurrentIndex(index)
        view.edit(index)
        # The editor just opened (the previous one may linger until its deferred deletion).
        editor = next(e for e in view.findChildren(QLineEdit) if e.isVisible())
        editor.selectAll()
        qtbot.keyClicks(editor, text)
        qtbot.keyClick(editor, key)
        qtbot.waitUntil(lambda r=row, t=text: win.document.env.jobs[r].volume == float(t), timeout=5000)
    assert not [r for r in qtlog.records if "commitData" in r.message]


def test_cycles_mode_draws_easys_reservation_and_batches(qtbot):
    """A snapshot with EASY's blocked head outlines its reservation on its nodes, titled and labelled in the
    outline's top-left corner, and a later one without it clears both; colouring by batch gives Batch-slicer's
    slices their own legend entries."""
    from workbench.engine.io.swf import import_swf
    from workbench.gui.gantt.chart import GanttChart

    env = import_swf(ROOT / "sample_envs" / "sample16.swf", 16).env
    sim = registry.simulator(env, "EASY", {}, history=True)
    sim.run()
    snap = next(s for s in sim.snapshots if s.hold is not None)
    chart = GanttChart(editable=False)
    qtbot.addWidget(chart)
    chart.set_snapshot(env, snap)
    _job, start, length, nodes = snap.hold
    assert chart.hold.count == len(nodes) and chart.hold.scene() is chart.scene()
    assert set(chart.hold.x.tolist()) == {start} and set(chart.hold.w.tolist()) == {length}
    assert "head's reservation" in chart.getPlotItem().titleLabel.text
    assert chart.hold_label.isVisible() and env.job(_job).name in chart.hold_label.textItem.toPlainText()
    # The name sits in the outline's top-left corner, not on the row above it.
    chart.resize(900, 500)
    chart.show()
    qtbot.wait(20)
    top = float(chart.rows.y[[env.node_index[n] for n in nodes]].min())
    corner = chart.view.mapViewToScene(QPointF(start, top))
    label = chart.hold_label.sceneBoundingRect()
    assert label.top() >= corner.y() - 1 and label.left() >= corner.x() - 1
    later = next(s for s in sim.snapshots if s.hold is None and s.step > snap.step)
    chart.set_snapshot(env, later)
    assert chart.hold.count == 0 and not chart.hold_label.isVisible()
    # Colour by batch and slice: Batch-slicer's slices get their own colours and legend entries.
    vo = load_environment(DEFAULT)
    sliced = registry.run(vo, "Batch-slicer", {"slices": 3})
    chart.set_colour_by("batch")
    chart.set_data(vo, sliced, fit=True)
    legend = {text for text, _ in chart._colouring.legend}
    assert {"cycle 1, slice 1 of 3", "cycle 1, slice 2 of 3"} <= legend


def test_keyboard_navigation_of_the_chart(qtbot):
    """Right pans the chart by a tenth of the view, Shift+Left by half, minus zooms out by a quarter, Page Down
    moves the rows by a page less one row, and Home shows the whole schedule."""
    from PySide6.QtCore import Qt

    chart = _shown_cop_chart(qtbot)
    chart.view.setRange(xRange=(100, 200), yRange=(0, 10), padding=0)
    qtbot.keyClick(chart, Qt.Key.Key_Right)
    assert chart.view.viewRange()[0] == pytest.approx([110, 210])
    qtbot.keyClick(chart, Qt.Key.Key_Left, Qt.KeyboardModifier.ShiftModifier)
    assert chart.view.viewRange()[0] == pytest.approx([60, 160])
    qtbot.keyClick(chart, Qt.Key.Key_Minus)
    assert chart.view.viewRange()[0] == pytest.approx([47.5, 172.5])
    qtbot.keyClick(chart, Qt.Key.Key_PageDown)
    assert chart.view.viewRange()[1] == pytest.approx([9, 19])
    qtbot.keyClick(chart, Qt.Key.Key_Home)
    assert chart.view.viewRange()[0][1] >= 600


def test_colour_by_user():
    """Colouring by user gives each user's windows one colour, different users different colours, and a legend
    entry per user."""
    import dataclasses

    env = load_environment(DEFAULT)
    jobs = tuple(dataclasses.replace(j, user=str(k % 3)) for k, j in enumerate(env.jobs))
    env = dataclasses.replace(env, jobs=jobs)
    schedule = registry.run(env, "CoP")
    colouring = palette.colour_windows(env, schedule.windows, "user", {}, None)
    by_user = {}
    for w, g in zip(schedule.windows, colouring.group, strict=True):
        by_user.setdefault(env.job(w.job).user, set()).add(int(g))
    assert all(len(groups) == 1 for groups in by_user.values())  # one colour per user
    assert len({next(iter(g)) for g in by_user.values()}) == len(by_user)  # and users differ
    assert {text for text, _ in colouring.legend} == {f"user {u}" for u in by_user}


def test_a_wide_windows_tooltip_stays_short_and_says_it_finished_early():
    """A job on 84 nodes lists at most a dozen of them and counts the rest, so its tooltip fits on the
    screen; a job that ended early says so on the results chart too, not only in Cycles mode."""
    from workbench.engine.model import Environment, Job, Node, TimeSettings, Window
    from workbench.gui.gantt import tooltips

    nodes = tuple(Node(f"n{i}", f"node {i:02d}", 1.0, 1.0) for i in range(84))
    job = Job("j", "wide job", 84, 1.0, 840.0, actual_fraction=0.5)
    env = Environment(nodes, (), (job,), TimeSettings(0.0, None, None), "wide")
    window = Window("j", 0.0, 10.0, tuple(n.id for n in nodes), 840.0)
    tip = tooltips.window_tip(env, window, "model", 5.0, None, True)
    assert tip.count("<br>") < 25 and "… and 72 more nodes" in tip
    assert "Finished early at 5" in tip
    whole = tooltips.window_tip(env, window, "model", 10.0, None, True)
    assert "inished early" not in whole
    # At a step of Cycles mode, an early finish is told once the step's time has reached it, not before
    # (a reviewer saw "finished early at 815813" on a job still running at the step).
    assert "inished early" not in tooltips.window_tip(env, window, "model", 5.0, None, True, now=3.0)
    assert "Finished early at 5" in tooltips.window_tip(env, window, "model", 5.0, None, True, now=7.0)


def test_an_export_of_thousands_of_narrow_windows_is_not_all_outline(tmp_path):
    """Windows narrower than a few pixels are filled without an outline, so a figure of a long trace
    shows its colours rather than a black mass of edges (and its SVG stays small)."""
    from PySide6.QtGui import QImage

    from workbench.engine.model import Environment, Job, Node, TimeSettings, Window
    from workbench.gui.figure import Figure, save_figure

    nodes = tuple(Node(f"n{i}", f"node {i}", 1.0, 1.0) for i in range(10))
    jobs, windows = [], []
    for k in range(20_000):  # each row packed with 2,000 windows of one time unit
        jobs.append(Job(f"j{k}", f"j{k}", 1, 1.0, 1.0))
        windows.append(Window(f"j{k}", float(k // 10), 1.0, (f"n{k % 10}",), 1.0))
    env = Environment(nodes, (), tuple(jobs), TimeSettings(0.0, None, None), "narrow")
    fig = Figure(env, windows, {w.job: w.end for w in windows}, "narrow")
    out = tmp_path / "narrow.png"
    save_figure(fig, out, dpi=100, size=(900, 500))
    image = QImage(str(out))
    dark = total = 0
    for x in range(100, 850, 7):
        for y in range(120, 450, 7):
            colour = image.pixelColor(x, y)
            total += 1
            dark += colour.lightness() < 60
    assert dark / total < 0.2


def test_the_head_reservations_colour_is_no_jobs_colour(app):
    """Issue 43's trial: the key's "head's reservation" swatch (purple) matched job colours of the
    16-colour palette. It is a colour far from every one of them (and from the Why here? outlines)."""
    from PySide6.QtGui import QColor

    def distance(a: str, b: str) -> float:
        x, y = QColor(a), QColor(b)
        return ((x.red() - y.red()) ** 2 + (x.green() - y.green()) ** 2 + (x.blue() - y.blue()) ** 2) ** 0.5

    others = [*palette.JOB_COLOURS, palette.GHOST, palette.HIGHLIGHT]
    assert min(distance(palette.HOLD, c) for c in others) > 80
