"""Numbers the user reads at trace scale: one formatter, no exponent, columns wide enough, one time unit."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt

from tests.traces import swf_environment
from workbench.engine import registry
from workbench.engine.files import load_environment
from workbench.engine.model import StrategyRef
from workbench.gui.numbers import number

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "sample_envs" / "default.json"
SHIFT = 6_650_000.25  # a quarter of a second at the scale of KTH's times: 6 digits would lose it
EXPONENT = re.compile(r"\de[+-]\d")


def trace_scale(strategy: str = "EASY", shift: float = SHIFT):
    """A 40-job SWF trace whose arrivals (and start) lie ``shift`` later, as deep into a real trace."""
    env = swf_environment(seed=5, jobs=40, nodes=16)
    jobs = tuple(replace(j, arrival=j.arrival + shift) for j in env.jobs)
    return replace(env, jobs=jobs, strategy=StrategyRef(strategy), time=replace(env.time, start=shift))


def trace_window(qtbot, env):
    """The main window on ``env``, shown, with its first result in."""
    from workbench.gui.main_window import MainWindow

    win = MainWindow(env, None, quiet=True)
    qtbot.addWidget(win)
    win.show()
    win.run_now()
    _wait(qtbot, win)
    return win


def _wait(qtbot, win):
    qtbot.waitUntil(lambda: win.document.result is not None and not win.runner.busy, timeout=30_000)


def _flush_events(qtbot):
    qtbot.wait(30)  # the column measuring runs in a later turn of the event loop


# ------------------------------------------------------------------ defect 7: one formatter, no exponent


def test_time_axes_read_plain_digits_without_si_rescaling(qtbot):
    """The chart's, Cycles' and Compare's time axes label 5000000, not 5e+06, and never add "(x0.001)"."""
    from workbench.gui.gantt.chart import GanttChart
    from workbench.gui.panels.compare import CompareDialog
    from workbench.gui.panels.cycles import CyclesPanel
    from workbench.session.document import Document

    chart = GanttChart(editable=False)
    qtbot.addWidget(chart)
    document = Document(load_environment(DEFAULT))
    cycles = CyclesPanel(document)
    qtbot.addWidget(cycles)
    compare = CompareDialog(document)
    qtbot.addWidget(compare)
    axes = [
        chart.getPlotItem().getAxis("bottom"),
        cycles.plot.getPlotItem().getAxis("bottom"),
        compare.diff_plot.getPlotItem().getAxis("left"),
    ]
    for axis in axes:
        assert axis.tickStrings([5e6, 1e7, 1.5e7], 1.0, 5e6) == ["5000000", "10000000", "15000000"]
        assert axis.tickStrings([6650000, 6650000.5], 1.0, 0.5) == ["6650000", "6650000.5"]
        assert axis.tickStrings([0.0, 0.0002, 0.0004], 1.0, 0.0002) == ["0", "0.0002", "0.0004"]
        # A second's zoom in hours: ticks 0.00005 h apart still read apart.
        assert axis.tickStrings([1851.27775, 1851.2778], 1.0, 0.00005) == ["1851.27775", "1851.2778"]
        assert not axis.autoSIPrefix
    # A short zoom near zero: pyqtgraph would rescale the axis and label it "(x0.001)".
    chart.set_data(load_environment(DEFAULT), None, fit=True)
    chart.resize(800, 400)
    chart.show()
    chart.view.setXRange(0.0, 0.002, padding=0)
    qtbot.wait(20)
    axis = chart.getPlotItem().getAxis("bottom")
    assert axis.autoSIPrefixScale == 1.0 and "x0.001" not in axis.labelString()


def test_screen_and_export_label_the_time_axis_alike(qtbot, tmp_path):
    """The exported figure's time ticks are the chart's own tick texts: 2000000 in both."""
    from workbench.gui.figure import figure_of, paint
    from workbench.gui.gantt.chart import GanttChart

    env = trace_scale()
    schedule = registry.run(env, "EASY")
    chart = GanttChart(editable=False)
    qtbot.addWidget(chart)
    chart.set_data(env, schedule, fit=True)
    fig = figure_of(env, schedule, times=(0.0, 1e7))
    texts: list[str] = []

    class Recorder:
        """A painter that keeps the texts it is asked to draw."""

        def __getattr__(self, name):
            return lambda *args, **kwargs: texts.append(args[-1]) if name == "drawText" else None

    paint(fig, Recorder(), 1100, 500)  # type: ignore[arg-type]
    axis = chart.getPlotItem().getAxis("bottom")
    assert "2000000" in texts and axis.tickStrings([2e6], 1.0, 2e6) == ["2000000"]
    assert not any(EXPONENT.search(t) for t in texts if isinstance(t, str))


def test_cycles_reads_times_at_trace_scale_in_full(qtbot):
    """Cycles says "t = 6650xxx.25", not "t = 6.65e+06", in its info line and the step's label."""
    from workbench.gui.panels.cycles import CyclesPanel
    from workbench.session.document import Document

    document = Document(trace_scale("EASY"))
    cycles = CyclesPanel(document)
    qtbot.addWidget(cycles)
    assert cycles.step() and cycles.step()
    snap = cycles.sim.snapshots[cycles.position]
    info = cycles.info.full_text()
    assert snap.time > 1e6 and f"t = {number(snap.time)}" in info and not EXPONENT.search(info)


def test_why_here_reads_times_at_trace_scale_in_full(qtbot):
    """Why here? says where the job starts, and the next best, in full: not "starts at 6.66462e+06"."""
    from workbench.gui.panels.why import WhyPanel
    from workbench.session.document import Document

    document = Document(trace_scale("CoP"))
    why = WhyPanel(document)
    qtbot.addWidget(why)
    why.show()
    why.set_on_screen(True)  # as its dock says when its tab comes to the front
    schedule = registry.run(document.env, "CoP")
    job = schedule.windows[3].job
    why.show_job(job)
    qtbot.waitUntil(lambda: why.explanation is not None, timeout=30_000)
    shown = " ".join([why.title.text(), why.summary.text(), why.notes.text()])
    cells = [why.table.item(r, c).text() for r in range(why.table.rowCount()) for c in range(why.table.columnCount())]
    assert f"placed at {number(schedule.window_of(job).start)}" in shown
    assert "starts at" in shown and not EXPONENT.search(shown) and not any(EXPONENT.search(t) for t in cells)


def test_cost_reads_the_same_in_the_table_and_the_tooltip(window):
    """The Jobs table's cost has the tooltip's four decimals (1330.0864, not 1330.086)."""
    win = window(DEFAULT)
    dock, schedule, env = win.jobs, win.document.result, win.document.env
    cost = [c.header for c in dock.model.columns].index("cost")
    checked = 0
    for row, job in enumerate(env.jobs):
        w = schedule.window_of(job.id)
        if w is None:
            continue
        text = dock.model.index(row, cost).data()
        assert text == number(w.cost)
        assert f"cost {text} of budget" in win.chart._window_tip(env, w)
        checked += number(w.cost) != number(round(w.cost, 3))
    assert checked > 0  # some cost has a fourth decimal to lose


# ------------------------------------------------------------------ defect 8: columns follow the content


def _elided(dock, column: int) -> list[str]:
    """The sampled cells of ``column`` wider than the column (drawn with "…")."""
    view = dock.view
    metrics = view.fontMetrics()
    width = view.columnWidth(column)
    rows = range(min(dock.proxy.rowCount(), 50))
    texts = [str(dock.proxy.index(r, column).data() or "") for r in rows]
    return [t for t in texts if metrics.horizontalAdvance(t) + 8 > width]


def test_jobs_table_columns_widen_for_a_new_result_and_a_new_document(qtbot):
    """A result with trace-scale times, or a new document, re-measures the columns: no "6658…"."""
    from workbench.session import edits

    win = trace_window(qtbot, trace_scale(shift=0.0))  # times of a few thousand seconds
    win.set_time_unit("seconds")  # (a trace opens in hours or days: seconds are the longest texts)
    _flush_events(qtbot)
    dock = win.jobs
    headers = [c.header for c in dock.model.columns]
    start, end = headers.index("start"), headers.index("end")
    job = win.document.env.jobs[0].id
    win.document.apply(edits.set_job(job, arrival=SHIFT))  # a new result: this job now starts at 6650000.25
    _wait(qtbot, win)
    _flush_events(qtbot)
    assert dock.model.index(0, start).data() == number(win.document.result.window_of(job).start)
    assert _elided(dock, start) == [] and _elided(dock, end) == []
    # A new document measures afresh.
    assert win.open_path(DEFAULT)
    _wait(qtbot, win)
    _flush_events(qtbot)
    assert _elided(dock, start) == [] and _elided(dock, end) == []


# ------------------------------------------------------------------ defect 11: one time unit everywhere


def _in_seconds(path, tmp_path):
    """A copy of the environment at ``path`` whose time counts seconds (as a trace's does)."""
    data = json.loads(path.read_text())
    data["time"]["unit"] = "seconds"
    out = tmp_path / f"{path.stem}_seconds.json"
    out.write_text(json.dumps(data))
    return out


def test_the_time_unit_reaches_tooltips_metrics_tables_cycles_and_the_export(qtbot, window, tmp_path):
    """View ▸ Time unit = hours: every time the user reads is in hours, or says it is in seconds."""
    win = window(_in_seconds(DEFAULT, tmp_path))
    env, schedule = win.document.env, win.document.result
    win.set_time_unit("hours")
    w = max(schedule.windows, key=lambda x: x.start)
    h = lambda t: number(t / 3600)  # noqa: E731
    tip = win.chart._window_tip(env, w)
    assert f"start {h(w.start)} h, end {h(w.end)} h, length {h(w.length)} h" in tip
    # Metrics: the flow's times and the per-job columns.
    rows = [win.metrics.flow.verticalHeaderItem(r).text() for r in range(win.metrics.flow.rowCount())]
    makespan = win.metrics.flow.item(rows.index("makespan"), 0).text()
    assert makespan == f"{h(win.metrics.current.makespan)} h"
    model = win.metrics.job_model
    assert model.headerData(1, Qt.Orientation.Horizontal) == "start (h)"
    assert model.index(0, 1).data() == h(model.rows[0].start)
    # The Jobs table: result columns and the editable arrival alike in hours.
    dock = win.jobs
    headers = [dock.model.headerData(c, Qt.Orientation.Horizontal) for c in range(dock.model.columnCount())]
    assert "start (h)" in headers and "end (h)" in headers and "arrival (h)" in headers
    row = [j.id for j in env.jobs].index(w.job)
    assert dock.model.index(row, headers.index("start (h)")).data() == h(w.start)
    # The exported figure's subtitle names its unit.
    fig = win.chart_figure()
    assert fig.time_unit == "hours" and fig.subtitle.endswith(" h")
    # Cycles: the step's time in hours, with its seconds.
    assert win.cycles.step()
    info = win.cycles.info.full_text()
    assert " h (" in info and " s)" in info
