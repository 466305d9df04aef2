"""Edit ▸ Find job, and the chart and the Jobs table following each other's selection."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF
from PySide6.QtGui import QKeySequence

from workbench.engine.files import load_environment
from workbench.session.state import find_job

SAMPLES = Path(__file__).resolve().parents[2] / "sample_envs"
BACKFILL = SAMPLES / "backfill32.json"
GRID = SAMPLES / "grid32.json"


def _row_visible(win, job_id: str) -> bool:
    view = win.jobs.view
    row = win.document.env.job_index[job_id]
    rect = view.visualRect(win.jobs.proxy.mapFromSource(win.jobs.model.index(row, 0)))
    return rect.isValid() and view.viewport().rect().contains(rect.center())


def _window_in_view(win, job_id: str) -> bool:
    start, end, top, bottom = win.chart.job_extent(job_id)
    (x0, x1), (y0, y1) = win.chart.view.viewRange()
    return x0 <= start and end <= x1 and y0 <= top and bottom <= y1


def test_find_job_takes_the_exact_id_first_then_a_part_of_the_name():
    """find_job takes an exact id before a name holding the text, matches names ignoring case and surrounding
    spaces, and finds nothing for an unknown or blank text."""
    env = load_environment(GRID)  # ids "1" … "120", names "job 1" …
    assert find_job(env, "7") == "7"  # the id, not "job 17"'s name
    assert find_job(env, " JOB 11 ") == "11"  # case-insensitive, the first name holding it
    assert find_job(env, "nothing like it") is None
    assert find_job(env, "  ") is None


def test_find_job_selects_zooms_to_its_window_and_scrolls_the_table(qtbot, window):
    """Finding a job by name selects it, scrolls its table row into view, and zooms the chart to its window."""
    win = window(BACKFILL)
    win.resize(900, 600)
    last = win.document.env.jobs[-1].id
    win.jobs.view.scrollToTop()
    assert win.find_job(last.upper().replace("J", "job ")) == last  # "job 50" by its name
    assert win.state.job == last
    assert win.jobs.selected_row() == win.document.env.job_index[last]
    assert _row_visible(win, last)
    start, end, _, _ = win.chart.job_extent(last)
    (x0, x1), _ = win.chart.view.viewRange()
    assert _window_in_view(win, last)
    assert x1 - x0 < 4 * (end - start)  # zoomed to it, not the whole schedule


def test_find_job_says_when_nothing_matches(window):
    """Finding nothing says so in the status bar and keeps the selection."""
    win = window(BACKFILL)
    win.state.select("j3")
    assert win.find_job("no such job") is None
    assert "no such job" in win.statusBar().currentMessage()
    assert win.state.job == "j3"  # the selection stays


def test_find_is_in_the_edit_menu_with_ctrl_f_and_in_the_shortcut_list(window):
    """Find job is in the Edit menu with Ctrl+F and is listed among the shortcuts."""
    from workbench.gui.help import shortcut_rows

    win = window(BACKFILL)
    assert win.find_action.shortcut() == QKeySequence("Ctrl+F")
    edit = next(a.menu() for a in win.menuBar().actions() if a.text() == "&Edit")
    assert win.find_action in edit.actions()
    rows = shortcut_rows(win.menuBar())
    assert any("Find job" in action and "F" in keys for _, action, keys in rows)


def test_a_job_clicked_on_the_chart_scrolls_the_table_to_its_row(qtbot, window):
    """A job clicked on the chart is selected and its table row scrolled into view."""
    win = window(BACKFILL)
    win.resize(900, 600)
    last = win.document.env.jobs[-1].id
    win.jobs.view.scrollToTop()
    start, end, top, _ = win.chart.job_extent(last)
    win.chart.zoom_to_job(last)
    win.chart.clicked(QPointF((start + end) / 2, top + 0.5))  # a point in view coordinates
    assert win.state.job == last
    assert _row_visible(win, last)


def test_a_job_selected_in_the_table_comes_into_view_on_the_chart(qtbot, window):
    """A job selected in the table is brought into view on the chart; selecting jobs already on screen leaves
    the view as it is."""
    win = window(BACKFILL)
    first, last = win.document.env.jobs[0].id, win.document.env.jobs[-1].id
    win.chart.zoom_to_job(first)
    assert not _window_in_view(win, last)
    win.jobs.select_source_row(win.document.env.job_index[last])
    assert win.state.job == last
    assert _window_in_view(win, last)
    shown = win.chart.view.viewRange()
    win.jobs.select_source_row(win.document.env.job_index[first])  # on screen too: the view stays
    win.jobs.select_source_row(win.document.env.job_index[last])
    assert win.chart.view.viewRange() == shown


def test_find_a_failed_job_selects_it_and_says_it_has_no_window(window):
    """Finding a job that failed selects it in the table and says in the status bar that it has no window."""
    win = window(SAMPLES / "default.json")  # j6 fails its budget under CoP
    assert win.document.result.window_of("j6") is None
    assert win.find_job("j6") == "j6"
    assert win.state.job == "j6" and win.jobs.selected_row() == win.document.env.job_index["j6"]
    assert "no window" in win.statusBar().currentMessage()
