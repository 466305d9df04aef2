"""Issue 43: every number on screen names the right job and the right unit.

The document says what its time counts (``time.unit``: a trace counts seconds, a file without the
field model units); View ▸ Time unit offers only the units that time can be read in, keeps the
choice per file, and every time shown (tables, Cycles, the status bar) is in that one unit.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tests.gui.helpers import compared, wait_result
from workbench.cli import main
from workbench.engine.files import load_environment
from workbench.engine.io.envfile import environment_to_dict
from workbench.gui.numbers import number

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "sample_envs" / "default.json"
SWF = ROOT / "sample_envs" / "sample16.swf"


@pytest.fixture
def trace(tmp_path):
    """sample16.swf imported as an environment file: its time counts seconds."""
    out = tmp_path / "trace.json"
    assert main(["import-swf", str(SWF), "-o", str(out)]) == 0
    return out


def _offered(win) -> set[str]:
    return {a.data() for a in win.unit_group.actions() if a.isEnabled()}


def test_a_trace_counts_seconds_and_a_file_without_the_field_model_units(trace):
    """An imported trace counts seconds and writes the unit; a file without the field counts model units and is
    written without it."""
    env = load_environment(trace)
    assert env.time.unit == "seconds"
    assert environment_to_dict(env)["time"]["unit"] == "seconds"
    data = json.loads(DEFAULT.read_text())
    assert "unit" not in data["time"] and load_environment(DEFAULT).time.unit == "model"
    assert "unit" not in environment_to_dict(load_environment(DEFAULT))["time"]


def test_a_wrong_time_unit_in_a_file_names_the_field(tmp_path):
    """An unknown time unit in a file is refused naming $.time.unit, the message mentioning seconds."""
    data = json.loads(DEFAULT.read_text())
    data["time"]["unit"] = "fortnights"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(Exception, match=r"\$\.time\.unit") as caught:
        load_environment(bad)
    assert "seconds" in str(caught.value)


def test_the_time_unit_belongs_to_the_document(qtbot, window, trace):
    """Days chosen on a trace do not leak to a model-unit file, and come back with the trace."""
    win = window(trace)
    assert win.chart.time_unit == "hours"  # sample16's jobs arrive over some hours: see below
    assert _offered(win) == {"seconds", "minutes", "hours", "days"}
    win.set_time_unit("days")
    assert win.chart.getPlotItem().getAxis("bottom").labelText == "time (days)"
    assert win.open_path(DEFAULT)
    wait_result(qtbot, win)
    assert win.chart.time_unit == "model" and _offered(win) == {"model"}
    assert win.chart.getPlotItem().getAxis("bottom").labelText == "time (model units)"
    assert [a.data() for a in win.unit_group.actions() if a.isChecked()] == ["model"]
    win.set_time_unit("days")  # not offered for this document: nothing changes
    assert win.chart.time_unit == "model" and win.jobs.model.time_unit == "model"
    assert win.open_path(trace)
    wait_result(qtbot, win)
    assert win.chart.time_unit == "days" and win.cycles.time_unit == "days"


def test_a_document_opens_in_the_largest_unit_its_run_spans_twice():
    """Seconds are shown in the largest unit the run spans at least twice (days, hours or seconds); model time
    stays in model units."""
    from workbench.gui.numbers import default_unit

    assert default_unit("model", 1e9) == "model"
    assert default_unit("seconds", 30_000_000) == "days"  # a year of KTH: not 30,000,000 s
    assert default_unit("seconds", 3 * 3600) == "hours" and default_unit("seconds", 90) == "seconds"
    assert default_unit("seconds", 2 * 86400) == "days" and default_unit("seconds", 2 * 86400 - 1) == "hours"


def test_every_time_in_a_view_is_in_the_chosen_unit(qtbot, window, trace):
    """In days the Jobs table's arrival and start, Cycles and the status bar all read days."""
    win = window(trace)
    win.set_time_unit("days")
    model = win.jobs.model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert "arrival (d)" in headers and "start (d)" in headers
    assert not any(h.endswith("(s)") for h in headers)
    job = win.document.env.jobs[-1]
    column = headers.index("arrival (d)")
    assert model.index(len(win.document.env.jobs) - 1, column).data() == _days(job.arrival)
    # Editing the arrival in days stores seconds; leaving the cell unchanged changes nothing.
    index = model.index(len(win.document.env.jobs) - 1, column)
    assert not model.setData(index, model.data(index, Qt.ItemDataRole.EditRole))
    assert model.setData(index, "1.5")
    assert win.document.env.jobs[-1].arrival == pytest.approx(1.5 * 86400)
    win.document.undo()
    # Cycles and the status bar agree on the step's time, in days.
    while win.showing_snapshot is None or win.showing_snapshot.time <= 0:
        assert win.cycles.step()
    snap = win.showing_snapshot
    assert snap.label.startswith(f"t={number(snap.time)}:")  # the engine's label counts seconds
    message = win.statusBar().currentMessage()
    assert f"t={_days(snap.time)} d:" in message and f"t={number(snap.time)}:" not in message
    assert f"t = {_days(snap.time)} d" in win.cycles.info.full_text()


def _days(t: float) -> str:
    return number(t / 86400)


def test_per_job_differences_name_the_jobs_by_id(qtbot):
    """Compare ▸ Per-job differences: the axis reads the jobs' ids (not positions from 0) and each
    bar's tooltip names its job, both starts and the change."""
    from PySide6.QtGui import QFontMetrics

    from workbench.engine import registry
    from workbench.gui.main_window import MainWindow

    env = load_environment(DEFAULT)
    a, b = registry.run(env, "FirstFit"), registry.run(env, "MinCost")
    win = MainWindow(env, DEFAULT, quiet=True)
    qtbot.addWidget(win)
    dialog = compared(qtbot, win, ["FirstFit", "MinCost"])
    dialog.show()
    dialog.tabs.setCurrentIndex(dialog.tabs.count() - 1)
    axis = dialog.diff_axis
    ids = [j.id for j in env.jobs]
    assert axis.ids == ids
    # The bar at queue position 13 is the 14th job, and the axis labels that position with its id.
    job = env.jobs[13]
    assert axis.tickStrings([13.0], 1.0, 1.0) == [job.id]
    d = b.window_of(job.id).start - a.window_of(job.id).start
    tip = dialog.diff_tip(13.1)
    assert tip.startswith(f"{job.name} ({job.id}): ")  # as the chart's tooltips write a job
    assert (f"{number(abs(d))} {'later' if d > 0 else 'earlier'} under MinCost" in tip) or abs(d) < 1e-9
    assert f"start under FirstFit: {number(a.window_of(job.id).start)}" in tip
    assert dialog.diff_tip(13.5) == "" and dialog.diff_tip(-3.0) == ""
    # Starred cells of the table are on one line and whole ("★ 129.086" wrapped).
    table = dialog.table
    assert not table.wordWrap()
    starred = [
        (r, c)
        for r in range(table.rowCount())
        for c in range(table.columnCount())
        if table.item(r, c) is not None and table.item(r, c).text().startswith("★")
    ]
    assert starred
    bold = QFontMetrics(table.item(*starred[0]).font())
    for r, c in starred:
        assert table.columnWidth(c) >= bold.horizontalAdvance(table.item(r, c).text()), (r, c)
    # Ticks never crowd: at 20 jobs in 600 px every id fits; at 2,000 they are thinned evenly.
    assert axis.tickValues(-0.5, 19.5, 600)[0][0] == 1.0
    axis.set_ids([str(10_000 + k) for k in range(2000)])
    step, values = axis.tickValues(-0.5, 1999.5, 600)[0]
    assert step > 1 and (len(values) - 1) * 6 * 7 <= 600


def test_a_selection_is_cleared_by_esc_or_a_click_beside_every_window(qtbot, window):
    """Issue 43 defect 7: Esc with no run going, or a click on empty chart space, clears the job
    selection (and the chart's dimming of every other job); a click on a window still selects."""
    from PySide6.QtCore import QPointF

    win = window(DEFAULT)
    win.state.select("j3")
    win.cancel_action.trigger()
    assert win.state.job is None
    start, end, top, _ = win.chart.job_extent("j3")
    win.chart.clicked(QPointF((start + end) / 2, top + 0.5))
    assert win.state.job == "j3"
    last = max(w.end for w in win.document.result.windows)
    empty = QPointF(last + 100.0, top + 0.5)
    assert win.chart.window_at(empty) is None
    win.chart.clicked(empty)
    assert win.state.job is None


def _shown_ids(dock) -> list[str]:
    return [dock.proxy.index(r, 0).data() for r in range(dock.proxy.rowCount())]


def test_the_filter_reads_fields_ranges_and_negation_and_counts_its_rows(qtbot, window, trace):
    """Issue 43 defect 12: "id:X" finds the one job (a bare word still matches any cell), numbers
    compare in the unit shown, "-" negates, and the count says how many rows are left."""
    win = window(trace)
    dock, env = win.jobs, win.document.env
    total = len(env.jobs)
    ident = env.jobs[1].id  # "2" in sample16: a bare "2" also finds 12, 20, arrival 1200 …
    dock.filter.setText(ident)
    loose = _shown_ids(dock)
    assert ident in loose and len(loose) > 1
    dock.filter.setText(f"id:{ident}")
    assert _shown_ids(dock) == [ident]
    assert dock.count.text() == f"1 of {total:,}"
    # Numbers compare as numbers, in the unit the column shows.
    dock.filter.setText("n:>=4")
    assert sorted(_shown_ids(dock)) == sorted(j.id for j in env.jobs if j.node_count >= 4)
    win.set_time_unit("hours")
    dock.filter.setText("arrival:0.5..1")
    assert sorted(_shown_ids(dock)) == sorted(j.id for j in env.jobs if 1800 <= j.arrival <= 3600)
    dock.filter.setText("arr:<0.5")  # a column by the start of its title
    assert sorted(_shown_ids(dock)) == sorted(j.id for j in env.jobs if j.arrival < 1800)
    # Negation and wildcards.
    placed = {w.job for w in win.document.result.windows}
    dock.filter.setText("-status:placed")
    assert set(_shown_ids(dock)) == {j.id for j in env.jobs} - placed
    dock.filter.setText('name:"job 2"')  # quotes keep a value with a space whole
    assert [dock.proxy.index(r, 1).data() for r in range(dock.proxy.rowCount())] == ["job 2"]
    dock.filter.setText("name:job?1*")
    assert all(i.startswith("job ") for i in (dock.proxy.index(r, 1).data() for r in range(dock.proxy.rowCount())))
    # A term that cannot be read names itself and leaves the rows as they were.
    dock.filter.setText("id:1")
    before = _shown_ids(dock)
    dock.filter.setText("colour:red")
    assert "colour:red" in dock.message.text() and "the columns are id, name" in dock.message.text()
    assert _shown_ids(dock) == before
    dock.filter.setText("arrival:>soon")
    assert "expected a number" in dock.message.text()
    assert "the rows shown are the last filter's" in dock.message.text()  # not taken for its result
    dock.filter.setText("")
    assert dock.count.text() == "" and len(_shown_ids(dock)) == total and dock.message.text() == ""


def test_filter_terms_parse_as_documented():
    """Filter terms parse as documented: a negated range on a column named by a prefix in any case, an upper
    bound, a negative number read as a word; an ambiguous prefix and a range going down are refused."""
    from workbench.gui.panels.table_filter import FilterError, parse_filter

    headers = ["id", "name", "arrival (h)", "start (h)", "status"]
    (t,) = parse_filter("-ARR:2..3.5", headers)
    assert (t.column, t.op, t.low, t.high, t.negate) == (2, "..", 2.0, 3.5, True)
    (t,) = parse_filter("start:<=4", headers)
    assert (t.column, t.high, t.high_open) == (3, 4.0, False)
    (t,) = parse_filter("-5", headers)  # a negative number is a word, not a negation
    assert (t.column, t.op, t.text, t.negate) == (None, "has", "-5", False)
    with pytest.raises(FilterError, match="could be"):
        parse_filter("s:1", headers)  # start or status
    with pytest.raises(FilterError, match="down to"):
        parse_filter("id:5..1", headers)


def test_a_new_document_starts_its_tables_unsorted_unfiltered_at_the_top(qtbot, window, trace):
    """Issue 43 defect 11: the last document's sort, filter and scroll do not carry over."""
    win = window(trace)
    win.resize(900, 500)
    dock = win.jobs
    dock.view.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    dock.only.setChecked(True) if dock.only is not None else None
    dock.filter.setText("job")
    dock.view.scrollToBottom()
    assert win.open_path(DEFAULT)
    wait_result(qtbot, win)
    qtbot.wait(10)
    env = win.document.env
    assert dock.filter.text() == "" and (dock.only is None or not dock.only.isChecked())
    assert dock.view.horizontalHeader().sortIndicatorSection() == -1 or dock.proxy.sort_column == -1
    assert _shown_ids(dock) == [j.id for j in env.jobs]
    assert dock.view.verticalScrollBar().value() == 0
    assert dock.count.text() == ""


def test_the_colour_key_says_job_colours_repeat_by_id():
    """Issue 43 defect 8: 16 colours by id, so jobs 1 and 17 share one; the key must not claim "a
    colour each", and the colour is the id's, the same under every strategy."""
    from workbench.engine import registry
    from workbench.gui import palette

    env = load_environment(DEFAULT)
    ids = [j.id for j in env.jobs]
    assert palette.job_colour_index(ids[0]) == palette.job_colour_index(ids[16])  # j1 and j17
    first = registry.run(env, "FirstFit")
    colouring = palette.colour_windows(env, list(first.windows), "job", {}, None)
    ((label, _),) = colouring.legend
    assert "each" not in label and "by id" in label and "repeating" in label
    other = registry.run(env, "MinCost")
    again = palette.colour_windows(env, list(other.windows), "job", {}, None)
    by_job = dict(zip((w.job for w in first.windows), colouring.group.tolist(), strict=True))
    assert all(by_job.get(w.job, g) == g for w, g in zip(other.windows, again.group.tolist(), strict=True))


def test_generate_offers_the_lublin_workload_on_a_grid_as_the_cli_does(qtbot):
    """Issue 43 defect 10: Generate ▸ lublin with a grid and a modification makes in a worker what
    `workbench generate lublin --grid` makes; a field that is no number is named at once."""
    from workbench.engine.grid.configs import lublin_environment
    from workbench.gui.panels.generate import GenerateDialog

    dialog = GenerateDialog()
    qtbot.addWidget(dialog)
    dialog.preset.setCurrentText("lublin")
    assert set(dialog.fields) == {"jobs", "nodes", "grid", "modification"} and "m64-18" in dialog.about.text()
    dialog.seed.setValue(4)
    dialog.fields["jobs"].setText("many")
    dialog._accept()
    assert "jobs" in dialog.error.text() and "many" in dialog.error.text() and dialog.result_env is None
    dialog.fields["jobs"].setText("300")
    dialog.fields["grid"].setText("m64-8")
    dialog.fields["modification"].setText("2")
    dialog._accept()
    qtbot.waitUntil(lambda: dialog.result_env is not None, timeout=30_000)
    expected, left_out = lublin_environment(300, 4, None, "m64-8", 2)
    assert dialog.result_env == expected and dialog.left_out == left_out
    assert len(dialog.result_env.site_ids) == 8 and dialog.result_env.time.unit == "seconds"
    dialog.fields["grid"].setText("m7")
    dialog._accept()
    qtbot.waitUntil(lambda: dialog.error.text() != "", timeout=30_000)
    assert "m7" in dialog.error.text()


def test_the_layout_comes_back_after_the_window_shrinks_and_grows(qtbot, window):
    """Issue 43 defect 9: shrunk to 960×620 and grown again, the Jobs table and the chart get back
    their opening sizes (the table had kept about one row), the chart's plot stays usable while
    small, and View ▸ Reset layout restores the opening layout."""
    win = window(DEFAULT)
    qtbot.wait(150)
    opening = (win.jobs.height(), win.chart.width())
    win.resize(960, 620)
    qtbot.wait(150)
    assert win.chart.getPlotItem().vb.width() >= 400  # was 246: the right column kept its 504 px
    win.resize(1500, 920)
    qtbot.wait(150)
    assert abs(win.jobs.height() - opening[0]) <= 2 and abs(win.chart.width() - opening[1]) <= 2
    win.resize(960, 620)
    qtbot.wait(150)
    win.resize(1500, 920)
    qtbot.wait(50)
    win.reset_layout()
    qtbot.wait(150)
    assert abs(win.jobs.height() - opening[0]) <= 2 and abs(win.chart.width() - opening[1]) <= 2


def test_run_times_and_means_read_as_people_write_them():
    """Issue 43 cosmetics: "79553.1 ms" and "mean start 15209985.4307" (seconds)."""
    from workbench.gui.numbers import duration_ms, mean_time
    from workbench.gui.panels.metrics import format_metric

    assert duration_ms(33.26) == "33.3 ms" and duration_ms(7955.3) == "8.0 s"
    assert duration_ms(79553.1) == "1 min 20 s" and duration_ms(125_400) == "2 min 5 s"
    assert format_metric("elapsed_ms", 79553.1) == "1 min 20 s"
    assert format_metric("mean_start", 15209985.4307, "seconds") == "15209985 s"
    assert format_metric("mean_start", 15209985.4307, "days") == "176.041 d"
    assert format_metric("mean_wait", 129.08614, "model") == "129.086"
    assert mean_time(0.000123456, "model") == "0.0001"
    assert format_metric("makespan", 600.25, "model") == "600.25"  # not a mean: every digit it has


def test_an_empty_file_is_called_empty(qtbot, window, tmp_path):
    """Issue 43 cosmetics: an empty file gave json's "Expecting value"."""
    empty = tmp_path / "empty.json"
    empty.write_text("\n")
    with pytest.raises(Exception, match="the file is empty") as caught:
        load_environment(empty)
    assert "Expecting value" not in str(caught.value)
    win = window(DEFAULT)
    assert not win.open_path(empty)
    assert "the file is empty" in win.last_error and "empty.json" in win.last_error


def test_dialog_titles_have_room_to_read_whole(qtbot, tmp_path):
    """Issue 43 cosmetics: "Import SWF tra…": each dialog is at least as wide as its title."""
    from PySide6.QtGui import QFontMetricsF

    from workbench.gui.panels.generate import GenerateDialog
    from workbench.gui.panels.import_swf import ImportSwfDialog

    long_name = tmp_path / "KTH-SP2-1996-2.1-cln-with-a-long-name.swf"
    long_name.write_bytes(SWF.read_bytes())
    for dialog in (ImportSwfDialog(str(long_name)), GenerateDialog()):
        qtbot.addWidget(dialog)
        title = QFontMetricsF(dialog.font()).horizontalAdvance(dialog.windowTitle())
        assert dialog.minimumWidth() >= title + 100, dialog.windowTitle()


def test_five_digit_ids_read_whole_and_a_long_reason_does_not_widen_its_column(qtbot, window, tmp_path):
    """Issue 43 cosmetics: ids measured on the first rows only were cut ("23…") further down, and a
    long failure reason made the status column so wide that a scroll bar hid a row."""
    from dataclasses import replace as with_

    from workbench.engine.io.envfile import save_environment

    env = load_environment(DEFAULT)
    jobs = list(env.jobs)
    jobs[-1] = with_(jobs[-1], id="23456", budget=1.0)  # cannot be afforded: a failure with its reason
    path = tmp_path / "ids.json"
    save_environment(with_(env, jobs=tuple(jobs)), path)
    win = window(path)
    win.resize(1500, 920)
    qtbot.wait(50)
    dock = win.jobs
    dock.fit_columns()
    view, metrics = dock.view, dock.view.fontMetrics()
    assert view.columnWidth(0) >= metrics.horizontalAdvance("23456") + 6
    status = [c.header for c in dock.model.columns].index("status")
    reason = dock.proxy.index(dock.proxy.rowCount() - 1, status).data()
    assert reason and reason != "placed"
    # A reason as long as a strategy may write: cut in the cell, whole in the tooltip, no scroll bar.
    long_reason = "no window: " + "the nodes of that level are all held by earlier jobs; " * 6
    win.document.result.reasons["23456"] = long_reason
    dock.model.refresh()
    dock.fit_columns()
    qtbot.wait(20)
    assert view.horizontalHeader().length() <= view.viewport().width()
    assert view.horizontalScrollBar().maximum() == 0
    assert dock.proxy.index(dock.proxy.rowCount() - 1, status).data(Qt.ItemDataRole.ToolTipRole) == long_reason


def test_the_study_dialog_says_when_the_runs_are_done_and_the_report_is_being_drawn(qtbot, monkeypatch, tmp_path):
    """Issue 43 defect 4: the bar sat at 100 % beside "Running…" for 12 s while the report's figures
    were drawn. The report is now a phase of its own, counted by figure."""
    import threading

    from workbench.gui.panels.study import StudyDialog
    from workbench.lab import report, runner

    seen: list[tuple[str, str, int, int]] = []
    figure_drawn = threading.Event()
    go_on = threading.Event()

    class Run:
        stopped, recorded, planned, failed = False, 4, 4, 0
        folder = tmp_path

    def fake_run(name, reps, workers, dask, folder, overrides, progress=None, should_stop=None):
        for k in range(5):
            progress(k, 4)
        return Run()

    def fake_report(folder, target=None, progress=None):
        progress(0, 3)
        figure_drawn.set()
        go_on.wait(10)
        progress(2, 3)
        return tmp_path / "report.md"

    monkeypatch.setattr(runner, "run_study", fake_run)
    monkeypatch.setattr(report, "write_report", fake_report)
    dialog = StudyDialog(folder=tmp_path)
    qtbot.addWidget(dialog)
    dialog.start()
    qtbot.waitUntil(figure_drawn.is_set, timeout=10_000)
    qtbot.waitUntil(lambda: "Writing the report" in dialog.status.text(), timeout=10_000)
    seen.append((dialog.status.text(), dialog.progress.text(), dialog.progress.value(), dialog.progress.maximum()))
    go_on.set()
    qtbot.waitUntil(lambda: not dialog.call.busy, timeout=10_000)
    status, bar, value, maximum = seen[0]
    assert status == "Writing the report: figure 1 of 3…" and (value, maximum) == (0, 3)
    assert "report" in bar and "100" not in bar
    assert "Report:" in dialog.status.text()


def test_the_previous_result_badge_only_over_a_picture_and_the_bar_counts_a_compile(qtbot, window):
    """Issue 43 defect 4: an empty chart carried a "previous result" badge and the status bar said
    the chart showed it; and a first run's compile sat at 0 %."""
    from workbench.session import edits

    win = window(DEFAULT)
    win.strategy.auto.setChecked(False)
    first = win.document.env.jobs[0].id
    win.document.apply(edits.delete_job(first))  # some windows stay: a previous result is pictured
    assert win.state.stale and win.chart.shown_windows
    assert not win.chart.stale_note.isHidden() and "previous result" in win.run_status.text()
    for job in list(win.document.env.jobs):
        win.document.apply(edits.delete_job(job.id))
    assert win.state.stale and not win.chart.shown_windows
    assert win.chart.stale_note.isHidden() and "previous result" not in win.run_status.text()
    # A compile: the bar counts kernels, then the run's own progress takes over.
    status = win.run_status
    status.show_compiling(1, 7)
    assert status.bar.text() == "kernel 2 of 7"
    status._on_progress_changed(50, 100)
    assert status.bar.text() == "50%"


def test_under_a_dark_palette_the_plots_are_dark_too(qtbot, qapp):
    """Issue 43 cosmetics: under a dark palette the chart stayed a white block."""
    from PySide6.QtGui import QColor, QPalette

    from workbench.gui.main_window import MainWindow

    light = qapp.palette()
    dark = QPalette(light)
    for role, colour in (
        (QPalette.ColorRole.Window, "#2b2b2b"),
        (QPalette.ColorRole.Base, "#1f1f1f"),
        (QPalette.ColorRole.Text, "#e0e0e0"),
        (QPalette.ColorRole.WindowText, "#e0e0e0"),
    ):
        dark.setColor(role, QColor(colour))
    qapp.setPalette(dark)
    try:
        win = MainWindow(load_environment(DEFAULT), DEFAULT, quiet=True)
        qtbot.addWidget(win)
        for plot in (win.chart, win.overview, win.cycles.plot):
            assert plot.backgroundBrush().color().lightnessF() < 0.3, plot
        axis = win.chart.getPlotItem().getAxis("bottom")
        assert axis.textPen().color().lightnessF() > 0.6
    finally:
        qapp.setPalette(light)
    win2 = MainWindow(load_environment(DEFAULT), DEFAULT, quiet=True)
    qtbot.addWidget(win2)
    assert win2.chart.backgroundBrush().color().lightnessF() > 0.9


def test_the_cycles_plot_takes_the_new_documents_time_frame(qtbot, window, trace):
    """Issue 43 cosmetics: after a trace, the Cycles plot of a model-unit file kept the trace's axes."""
    win = window(trace)
    assert win.cycles.step() and win.cycles.step()
    assert win.open_path(DEFAULT)
    wait_result(qtbot, win)
    (x0, x1), _ = win.cycles.plot.getPlotItem().vb.viewRange()
    env = win.document.env
    assert x0 <= env.time.start + 1 and abs(x1 - env.time.horizon) < 0.05 * env.time.horizon
    assert win.cycles.plot.getPlotItem().getAxis("bottom").labelText == "time (model units)"


def test_id_with_a_number_finds_the_job_the_chart_calls_by_it(qtbot, window):
    """Issue 43's trial: on default.json "id:5" found nothing (the ids are "j5" while the chart and
    Why here? say "job 5"). A number after "id:" finds the id ending in that number, never j15."""
    win = window()
    dock = win.jobs
    dock.filter.setText("id:5")
    assert _shown_ids(dock) == ["j5"]
    dock.filter.setText("id:j5")
    assert _shown_ids(dock) == ["j5"]
    dock.filter.setText("id:15")
    assert _shown_ids(dock) == ["j15"]


def test_the_volume_is_shown_in_the_time_unit_and_cost_says_what_it_counts(qtbot, window, trace):
    """Issue 43's trial: in days the Jobs table showed V 53940 (seconds) beside arrival 6.94 (d). V
    is a part's length on a node of performance 1: it follows View ▸ Time unit like the times."""
    win = window(trace)
    win.set_time_unit("hours")
    model = win.jobs.model
    headers = [model.header(c) for c in range(model.columnCount())]
    v = headers.index("V (h)")
    job = win.document.env.jobs[0]
    assert float(model.text(v, 0).replace(",", "")) == pytest.approx(job.volume / 3600, rel=1e-3)
    cost = headers.index("cost")
    assert "time unit" in model.headerData(cost, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)


def test_the_empty_cycles_plot_spans_the_first_documents_own_time(qtbot, window, trace):
    """Issue 43's trial: opened on a trace, the Cycles plot before any step read "0.000002 …
    0.00001" days (pyqtgraph's default frame of one second). It spans the document's arrivals."""
    win = window(trace)
    env = win.document.env
    low, high = win.cycles.plot.getPlotItem().vb.viewRange()[0]
    last = max(j.arrival for j in env.jobs)
    assert low <= env.time.start + 1e-9 and high >= last - 1e-9 and high - low < 2 * (last - env.time.start) + 10


def test_jobs_that_name_no_least_performance_open_without_a_crash(qtbot, window, tmp_path):
    """A job may leave out ``min_performance`` (0: any node will do). Opening such a file whose jobs all
    arrive at the start divided by that 0 twice (the time unit's span, the empty Cycles plot) and
    raised; the longest run is now the volume on the slowest node."""
    from workbench.engine.jobarrays import longest_run

    path = tmp_path / "any_speed.json"
    path.write_text(json.dumps({
        "format": "workbench.environment",
        "version": 1,
        "nodes": [{"id": "slow", "performance": 2, "price": 1}, {"id": "fast", "performance": 8, "price": 3}],
        "jobs": [{"id": "a", "node_count": 1, "volume": 40}, {"id": "b", "node_count": 2, "volume": 10}],
    }))  # fmt: skip
    win = window()
    assert win.open_path(path)
    wait_result(qtbot, win)
    assert longest_run(win.document.env) == 20.0  # job a on the slow node
    low, high = win.cycles.plot.getPlotItem().vb.viewRange()[0]
    assert math.isfinite(low) and math.isfinite(high) and high > low
    assert win.document.result is not None and len(win.document.result.windows) == 2
