"""One selection and one result status for every view: they survive runs, end with the document,
and say when what is on screen is not the current document's."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QPushButton

from tests.gui.helpers import answer_file_dialogs, make_bsf_fail, wait_result
from workbench.gui.panels.import_swf import ImportSwfDialog

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "sample_envs" / "default.json"
TINY = ROOT / "sample_envs" / "tiny.json"
BACKFILL = ROOT / "sample_envs" / "backfill32.json"
SWF = ROOT / "sample_envs" / "sample16.swf"


def selected_job(win):
    row = win.jobs.selected_row()
    return None if row is None else win.document.env.jobs[row].id


def button(dock, text):
    return next(b for b in dock.findChildren(QPushButton) if b.text() == text)


def test_up_keeps_moving_the_same_job_after_every_run(qtbot, window):
    """Up three times on j5, each time after the run finished: j5 climbs three places, and the
    Jobs table, the chart and the selection still hold j5 after each run."""
    win = window(TINY)
    win.jobs.select_source_row(win.document.env.job_index["j5"])
    for _ in range(3):
        qtbot.mouseClick(button(win.jobs, "Up"), Qt.MouseButton.LeftButton)
        wait_result(qtbot, win)
        assert selected_job(win) == "j5" and win.chart.selected == "j5"
    assert [j.id for j in win.document.env.jobs] == ["j1", "j5", "j2", "j3", "j4", "j6"]
    qtbot.mouseClick(button(win.jobs, "Down"), Qt.MouseButton.LeftButton)
    wait_result(qtbot, win)
    assert [j.id for j in win.document.env.jobs] == ["j1", "j2", "j5", "j3", "j4", "j6"]
    assert selected_job(win) == "j5"


def test_opening_or_importing_clears_the_selection_everywhere(qtbot, window, monkeypatch, tmp_path):
    """j4 selected, then another document (with its own j4, or imported, or new): no view keeps j4."""
    win = window(DEFAULT)
    for replace in (
        lambda: win.open_path(BACKFILL),  # a document that has a j4 of its own
        lambda: win.import_swf_dialog(),
        lambda: win.new_document(),
    ):
        win.jobs.select_source_row(win.document.env.job_index["j4"])
        win.chart.set_selected("j4")  # as a click on the chart leaves it, whatever the table does
        answer_file_dialogs(monkeypatch, SWF)
        monkeypatch.setattr(ImportSwfDialog, "exec", lambda dialog: dialog._accept() or 1)
        replace()
        qtbot.waitUntil(lambda: not win.runner.busy and not win.runner.timer.isActive(), timeout=30_000)
        assert win.chart.selected is None and win.chart.veil.count == 0
        assert win.jobs.selected_row() is None
        assert win.why.job_id is None
        assert win.chart_figure().highlight is None
        win.open_path(DEFAULT)
        wait_result(qtbot, win)


def raise_dock(win, name):
    win.findChild(QDockWidget, name).raise_()


def test_why_here_works_only_while_it_is_visible(qtbot, window):
    """A job click with Why here? behind another tab computes nothing and outlines nothing; showing
    the panel explains the current job and outlines its candidates, hiding it removes the outlines."""
    win = window(DEFAULT)
    assert win.why.visibleRegion().isEmpty()  # Metrics is the tab in front (Qt still calls Why here? visible)
    win.jobs.select_source_row(win.document.env.job_index["j4"])
    qtbot.wait(50)
    assert win.why.call.thread is None and win.chart.ghosts.count == 0  # no call started
    raise_dock(win, "why here?")
    qtbot.waitUntil(lambda: win.why.explanation is not None, timeout=30_000)
    assert win.why.explanation.job == "j4" and win.chart.ghosts.count > 0
    raise_dock(win, "metrics")
    assert win.chart.ghosts.count == 0
    last = win.why.call.thread
    win.jobs.select_source_row(win.document.env.job_index["j6"])
    qtbot.wait(50)
    assert win.why.call.thread is last and win.chart.ghosts.count == 0
    raise_dock(win, "why here?")
    qtbot.waitUntil(lambda: win.why.explanation is not None and win.why.explanation.job == "j6", timeout=30_000)
    assert win.chart.ghosts.count > 0


def test_a_result_that_is_not_the_current_documents_is_marked_stale(qtbot, window):
    """While another strategy runs, the status bar and Metrics say the result on screen is the
    previous one; the mark goes when the new result arrives."""
    win = window(TINY)
    win.strategy.auto.setChecked(False)  # the edit's run waits for F5: the previous result stays on screen
    win.strategy.name.setCurrentText("MinCost")
    assert "previous result" in win.run_status.text()
    assert win.state.status == "stale"
    assert win.metrics.stale_note.isVisibleTo(win.metrics)
    assert win.chart.stale_note.isVisibleTo(win.chart)
    win.run_now()
    assert win.state.status == "running" and "previous result" in win.run_status.text()
    wait_result(qtbot, win)
    assert "previous result" not in win.run_status.text()
    assert win.state.status == "fresh"
    assert not win.metrics.stale_note.isVisibleTo(win.metrics)
    assert not win.chart.stale_note.isVisibleTo(win.chart)


def test_an_import_shows_no_numbers_of_the_previous_document(qtbot, window, monkeypatch):
    """After an import the Metrics panel shows nothing of the document before until its own run."""
    win = window(DEFAULT)
    win.strategy.auto.setChecked(False)
    answer_file_dialogs(monkeypatch, SWF)
    monkeypatch.setattr(ImportSwfDialog, "exec", lambda dialog: dialog._accept() or 1)
    win.import_swf_dialog()
    assert win.metrics.current is None and win.chart.shown_windows == []
    assert win.state.status == "stale"


def test_a_later_success_clears_the_failure_message(qtbot, window):
    """BSF fails (n_high too large); undo runs it again and succeeds: the failure line goes."""
    win = window(TINY)
    make_bsf_fail(qtbot, win)
    assert "BSF failed" in win.statusBar().currentMessage()
    win.undo_action.trigger()
    wait_result(qtbot, win)
    assert "failed" not in win.statusBar().currentMessage()
