"""A researcher's session, end to end: after every step the table, the chart, Why here?, Metrics and the
status bar describe the same document and the same result."""

from __future__ import annotations

import csv
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from tests.gui.helpers import answer_file_dialogs, wait_result
from workbench.gui.panels.import_swf import ImportSwfDialog

ROOT = Path(__file__).resolve().parents[2]
TRACE = ROOT / "sample_envs" / "sample16.swf"


def agree(win) -> None:
    """Every view tells the same story: one document, its current result, one selection."""
    doc, state = win.document, win.state
    result = doc.result
    row = win.jobs.selected_row()
    table_job = None if row is None else doc.env.jobs[row].id
    assert table_job == state.job == win.chart.selected
    if result is not None and win.showing_snapshot is None:
        assert {w.job for w in win.chart.shown_windows} == {w.job for w in result.windows}
        assert win.metrics.current is not None and win.metrics.current.placed == len(result.windows)
        assert result.strategy in win.statusBar().currentMessage() or result.strategy in win.run_status.text()
    if state.job is not None and win.why.on_screen and win.why.explanation is not None:
        assert win.why.explanation.job == state.job


def test_a_session_from_import_to_undo_keeps_every_view_in_step(qtbot, window, tmp_path, monkeypatch):
    """Import a trace through the dialog, run two strategies, find and reorder a job, step through
    cycles, compare, export, and undo everything: after each step every view agrees."""
    win = window()
    answer_file_dialogs(monkeypatch, TRACE)
    monkeypatch.setattr(ImportSwfDialog, "exec", lambda dialog: (dialog.first.setValue(30), dialog._accept())[1] or 1)
    win.import_swf_dialog()
    wait_result(qtbot, win)
    assert len(win.document.env.jobs) == 30 and win.document.result.strategy == "EASY"
    agree(win)

    win.strategy.family.setCurrentText("selector")
    win.strategy.name.setCurrentText("FirstFit")
    qtbot.waitUntil(lambda: win.document.result is not None and win.document.result.strategy == "FirstFit")
    wait_result(qtbot, win)
    agree(win)

    job = win.find_job("12")
    assert job == "12"
    wait_result(qtbot, win)
    agree(win)
    before = [j.id for j in win.document.env.jobs]
    up = next(b for b in win.jobs.findChildren(QPushButton) if b.text() == "Up")
    qtbot.mouseClick(up, Qt.MouseButton.LeftButton)
    wait_result(qtbot, win)
    after = [j.id for j in win.document.env.jobs]
    assert after.index("12") == before.index("12") - 1
    agree(win)

    for _ in range(3):
        win.cycles.step()
    snap = win.showing_snapshot
    assert snap is not None and win.chart.snapshot is snap
    assert set(snap.queue) <= {j.id for j in win.document.env.jobs if j.arrival <= snap.time + 1e-9}
    win.cycles.reset()
    wait_result(qtbot, win)
    agree(win)

    win.open_compare()
    dialog = win.compare_dialog
    dialog.set_chosen(["FirstFit", "EASY"])
    dialog.compare()
    qtbot.waitUntil(lambda: not dialog.running, timeout=30_000)
    assert list(dialog.results) == ["FirstFit", "EASY"]
    assert dialog.results["FirstFit"].windows == win.document.result.windows
    agree(win)

    win.export_chart(tmp_path / "chart.svg")
    win.export_schedule(tmp_path / "schedule.csv")
    with (tmp_path / "schedule.csv").open() as lines:
        rows = list(csv.DictReader(lines))
    assert {r["job"] for r in rows if r["status"] == "placed"} == {w.job for w in win.document.result.windows}
    assert "FirstFit" in (tmp_path / "chart.svg").read_text()

    while win.document.can_undo:
        win.undo_action.trigger()
    wait_result(qtbot, win)
    assert [j.id for j in win.document.env.jobs] == before and win.document.env.strategy.name == "EASY"
    agree(win)
