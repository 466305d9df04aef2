"""Files in the window: save, open (off the GUI thread), Open Recent, autosave and recovery, exports,
screenshots, and the Generate and Import SWF dialogs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import Qt

from tests.gui.helpers import answer_file_dialogs, threads_running
from workbench.engine.files import load_environment

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "sample_envs" / "default.json"
TINY = ROOT / "sample_envs" / "tiny.json"


def test_save_open_round_trip_and_bad_file(qtbot, window, tmp_path):
    """An edit marks the window modified; saving writes the document, clears the mark, retitles the window and
    adds the file to Open Recent; a bad file is refused naming the field and the file, the document kept; a good
    one opens."""
    win = window(TINY)
    win.jobs.model.setData(win.jobs.model.index(1, 5), "444")
    assert win.document.modified and win.isWindowModified() and win.windowTitle().startswith("tiny.json")
    target = tmp_path / "saved.json"
    assert win.save_to(target)
    assert not win.document.modified and not win.isWindowModified() and "saved.json" in win.windowTitle()
    assert load_environment(target) == win.document.env
    assert str(target.resolve()) in win.recent_files()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "workbench.environment", "version": 1, "nodes": [{"id": "a"}]}))
    before = win.document.env
    assert not win.open_path(bad)
    assert "$.nodes[0].performance" in win.last_error and str(bad) in win.last_error
    assert win.document.env is before and win.document.path == target
    assert win.open_path(DEFAULT) and win.document.env == load_environment(DEFAULT)


def test_save_on_a_bundled_sample_asks_for_a_file_of_the_users_own(qtbot, window, tmp_path, monkeypatch):
    """The samples come with the workbench and the default opens at every start: Save on an edited
    sample (an Enter at "Save the changes…?" saved over backfill32.json in a review) asks where to
    save, and the sample stays as it was."""
    from workbench.session import edits

    before = DEFAULT.read_bytes()
    win = window(DEFAULT)
    win.document.apply(edits.set_job(win.document.env.jobs[0].id, node_count=1))
    asked = []
    target = tmp_path / "mine.json"
    answer_file_dialogs(monkeypatch, lambda dialog: asked.append(dialog.windowTitle()) or target)
    assert win.save()
    assert asked == ["Save environment"] and DEFAULT.read_bytes() == before
    assert win.document.path == target and load_environment(target) == win.document.env
    # A file of the user's own is saved in place, without a dialog.
    win.document.apply(edits.set_job(win.document.env.jobs[0].id, node_count=2))
    assert win.save() and asked == ["Save environment"] and load_environment(target) == win.document.env


def test_the_file_dialog_shows_its_columns_whole(qtbot, tmp_path):
    """Qt's own file dialog (no native one here) opened at 632 × 408 with Size, Type and Date cut to
    "29.…KiB" and "JSO…ent": it opens at a size that holds them, each column fitted to its contents."""
    from PySide6.QtWidgets import QTreeView

    from workbench.gui.file_dialogs import DIALOG_SIZE, file_dialog

    (tmp_path / "a rather long environment name.json").write_text("{}")
    dialog = file_dialog(None, "Open environment", str(tmp_path), "Environments (*.json)")
    qtbot.addWidget(dialog)
    dialog.show()
    view = dialog.findChild(QTreeView)
    model = view.model()
    qtbot.waitUntil(lambda: model.rowCount(view.rootIndex()) == 1, timeout=5_000)
    qtbot.wait(50)
    assert (dialog.width(), dialog.height()) >= DIALOG_SIZE
    named = file_dialog(None, "Save environment", str(tmp_path), "Environments (*.json)", save=True, name="x.json")
    qtbot.addWidget(named)
    assert named.selectedFiles()[0].endswith("x.json")  # Save As offers the current name
    row = model.index(0, 0, view.rootIndex())
    for column in (1, 2, 3):
        text = model.index(row.row(), column, view.rootIndex()).data()
        assert text and view.columnWidth(column) >= view.fontMetrics().horizontalAdvance(str(text)), (column, text)


def test_exports(qtbot, window, tmp_path):
    """The chart exports as PNG and SVG and the schedule as CSV and JSON, each file in its format."""
    win = window(TINY)
    win.export_chart(tmp_path / "c.png")
    win.export_chart(tmp_path / "c.svg")
    win.export_schedule(tmp_path / "s.csv")
    win.export_schedule(tmp_path / "s.json")
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"
    assert "<svg" in (tmp_path / "c.svg").read_text()[:2000]
    assert (tmp_path / "s.csv").read_text().splitlines()[0].startswith("job,name,status,start")
    assert json.loads((tmp_path / "s.json").read_text())["windows"]


def test_autosave_written_when_modified_and_cleared_on_save(qtbot, window, tmp_path):
    """After an edit the autosave holds the edited environment and the original path; saving removes it."""
    from workbench.gui.window_files import autosave_path
    from workbench.session.document import read_autosave

    win = window(TINY)
    win.jobs.model.setData(win.jobs.model.index(0, 4), "88")
    win.write_autosave()
    env, original = read_autosave(autosave_path())
    assert env == win.document.env and original == TINY
    win.save_to(tmp_path / "x.json")
    assert not autosave_path().exists()


def test_autosave_is_built_off_the_gui_thread_and_a_save_meanwhile_wins(qtbot, window, tmp_path, monkeypatch):
    """The autosave timer builds the file's text (0.25 s at 28,000 jobs) in a worker, never on the GUI
    thread; a save that comes while it is built leaves no autosave behind."""
    import threading

    from workbench.gui.window_files import autosave_path
    from workbench.session import document
    from workbench.session.document import read_autosave

    threads = threads_running(monkeypatch, document, "environment_to_dict")
    win = window(TINY)
    win.jobs.model.setData(win.jobs.model.index(0, 4), "88")
    win.autosave_timer.timeout.emit()
    qtbot.waitUntil(autosave_path().exists, timeout=10_000)
    env, original = read_autosave(autosave_path())
    assert env == win.document.env and original == TINY
    assert threads and threading.main_thread() not in threads
    # Built, then saved before the text arrives: the late text is dropped.
    win.jobs.model.setData(win.jobs.model.index(0, 4), "89")
    win.autosave_timer.timeout.emit()
    win.save_to(tmp_path / "x.json")
    win.autosaver.thread.join(timeout=10.0)  # a guard against a hang, not a measure
    qtbot.wait(50)
    assert not autosave_path().exists()


def test_the_menus_open_a_file_off_the_gui_thread(qtbot, window, tmp_path, monkeypatch):
    """File ▸ Open and Open Recent read and check the file in a worker (0.2-0.4 s for an 8 MB
    environment), never on the GUI thread; a bad file leaves the document as it was."""
    import threading

    from workbench.gui import window_files

    threads = threads_running(monkeypatch, window_files, "load_environment")
    win = window(TINY)
    win.open_in_background(DEFAULT)
    qtbot.waitUntil(lambda: win.document.path == DEFAULT, timeout=10_000)
    assert win.document.env == load_environment(DEFAULT) and str(DEFAULT.resolve()) in win.recent_files()
    assert threads and threading.main_thread() not in threads
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "workbench.environment", "version": 1, "nodes": [{"id": "a"}]}))
    before = win.document.env
    win.open_in_background(bad)
    qtbot.waitUntil(lambda: "$.nodes[0].performance" in (win.last_error or ""), timeout=10_000)
    assert str(bad) in win.last_error and win.document.env is before and win.document.path == DEFAULT


def test_screenshot_writes_a_png(tmp_path):
    """`workbench ENV --screenshot out.png` exits 0 with a real, non-empty PNG, and says nothing on
    stderr (the offscreen platform's notes on what it lacks are not the user's business)."""
    out = tmp_path / "shot.png"
    result = subprocess.run(
        [sys.executable, "-m", "workbench", str(DEFAULT), "--strategy", "CoP", "--screenshot", str(out)],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.returncode == 0, result.stderr
    assert "propagateSizeHints" not in result.stderr, result.stderr
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_screenshot_error_is_one_line_exit_2(tmp_path):
    """`--screenshot` of a file that is not valid JSON exits with code 2 and one line saying so."""
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    result = subprocess.run(
        [sys.executable, "-m", "workbench", str(bad), "--screenshot", str(tmp_path / "x.png")],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "not valid JSON" in result.stderr


def test_generate_dialog_builds_the_preset(qtbot):
    """The Generate dialog builds the chosen preset with its seed and job count; a job count that is not a
    number is refused, naming the field, and builds nothing."""
    from workbench.engine.generate import generate
    from workbench.gui.panels.generate import GenerateDialog

    dialog = GenerateDialog()
    qtbot.addWidget(dialog)
    dialog.preset.setCurrentText("backfill32")
    dialog.seed.setValue(3)
    dialog.fields["jobs"].setText("12")
    assert dialog.build() == generate("backfill32", 3, jobs=12)
    dialog.fields["jobs"].setText("many")
    dialog._accept()
    assert "jobs" in dialog.error.text() and dialog.result_env is None


def test_csv_export_gives_the_failure_reason_its_own_column(tmp_path, window):
    """In the CSV export cost, start and end are numbers or empty; the failure reason has its own column."""
    import csv

    win = window(DEFAULT)  # CoP leaves one job without a window
    path = tmp_path / "s.csv"
    win.export_schedule(path)
    with path.open() as handle:
        rows = list(csv.DictReader(handle))
    failed = [r for r in rows if r["status"] == "failed"]
    placed = [r for r in rows if r["status"] == "placed"]
    assert failed and placed
    for row in failed:
        assert row["cost"] == row["start"] == row["end"] == "" and row["reason"]
    for row in placed:
        assert float(row["cost"]) >= 0 and float(row["end"]) > float(row["start"]) and row["reason"] == ""


def test_imported_and_generated_environments_are_unsaved_and_quit_asks(qtbot, window, monkeypatch):
    """After Import SWF or Generate the title has '*' and Quit asks first."""
    from PySide6.QtWidgets import QMessageBox

    import workbench.gui.main_window as main_window
    from workbench.engine.generate import generate

    win = window(TINY)
    answer_file_dialogs(monkeypatch, ROOT / "sample_envs" / "sample16.swf")
    monkeypatch.setattr(main_window.ImportSwfDialog, "exec", lambda dialog: dialog._accept() or 1)
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a) or QMessageBox.StandardButton.Cancel)

    class FakeGenerate:
        def __init__(self, parent):
            self.result_env = generate("vo24", 3)

        def exec(self):
            return 1

    monkeypatch.setattr(main_window, "GenerateDialog", FakeGenerate)
    for act in (win.import_swf_dialog, win.generate_dialog):
        act()
        assert win.document.modified and win.document.path is None
        assert "*" in win.windowTitle()
        win.quiet = False  # let it ask, as it would a user
        assert win.confirm_discard() is False and asked  # Cancel: the work stays
        win.quiet = True
        asked.clear()
        win.document.replace_environment(win.document.env, TINY)  # as if saved, before the next


def test_the_recovery_prompt_says_whose_work_from_when_and_what_it_replaces():
    """The autosave prompt names the environment, its file and the time,
    and says when restoring would take the place of the file asked for."""
    import datetime

    from workbench.gui.app import recovery_question

    at = datetime.datetime(2026, 11, 22, 16, 40)
    same = recovery_question("Tiny", Path("/w/tiny.json"), at, Path("/w/tiny.json"))
    assert "“Tiny”" in same and "/w/tiny.json" in same and "2026-11-22 16:40" in same
    assert "instead of" not in same
    other = recovery_question("Tiny", Path("/w/tiny.json"), at, Path("/w/other.json"))
    assert "instead of /w/other.json, which stays as it is on disk" in other
    assert "never saved" in recovery_question("", None, at, None)


def test_import_swf_dialog_offers_the_command_lines_options_with_a_preview(qtbot, tmp_path):
    """The Import SWF dialog takes the machine size from the trace's header (MaxNodes), offers the first
    N jobs, mixed performance, a grid configuration with its modification and compression, previews
    the jobs, span and offered load as the options change, and builds what `workbench import-swf`
    builds; a file it cannot read disables OK and says why."""
    from workbench.engine.io.swf import import_swf
    from workbench.gui.panels.import_swf import ImportSwfDialog

    trace = ROOT / "sample_envs" / "sample16.swf"
    dialog = ImportSwfDialog(trace)
    qtbot.addWidget(dialog)
    assert dialog.nodes.value() == 16  # the header's MaxNodes, not a fixed 128
    assert dialog.preview.text().startswith("60 jobs") and "offered load" in dialog.preview.text()
    dialog.first.setValue(5)
    assert dialog.preview.text().startswith("5 jobs")
    dialog._accept()
    env = dialog.result_env
    assert env is not None and len(env.jobs) == 5 and len(env.nodes) == 16
    assert env.jobs == import_swf(trace, 16).env.jobs[:5]
    dialog.first.setValue(0)
    dialog.mixed.setChecked(True)
    dialog.low.setValue(2)
    dialog.high.setValue(3)
    dialog._accept()
    assert {n.performance for n in dialog.result_env.nodes} <= {2.0, 3.0}
    dialog.grid.setCurrentText("m128-4")
    dialog.compress.setValue(2.0)
    assert not dialog.mixed.isEnabled() and dialog.modification.isEnabled()
    dialog._accept()
    grid_env = dialog.result_env
    assert len(grid_env.sites) == 4 and len(grid_env.nodes) == 4 * 128
    assert max(j.arrival for j in grid_env.jobs) == max(j.arrival for j in import_swf(trace, 16).env.jobs) / 2
    bad = tmp_path / "bad.swf"
    bad.write_text("; MaxNodes: 8\nthis is not a job line\n")
    broken = ImportSwfDialog(bad)
    qtbot.addWidget(broken)
    assert broken.nodes.value() == 8
    assert not broken.buttons.button(broken.buttons.StandardButton.Ok).isEnabled()


def test_the_chart_stays_on_the_schedule_and_open_recent_forgets_a_deleted_file(qtbot, window, tmp_path, monkeypatch):
    """Page Down and zooming out stop at the schedule (no scrolling past the last row, no sliver at ±10⁶);
    a recent file that is gone is dropped from Open Recent once opening it has failed."""
    import shutil

    from PySide6.QtWidgets import QMessageBox

    win = window(TINY)
    chart = win.chart
    for _ in range(30):
        qtbot.keyClick(chart, Qt.Key.Key_PageDown)
    (_x0, _x1), (y0, y1) = chart.view.viewRange()
    assert y1 <= chart.rows.count + 0.5 + 1e-6 and y0 < chart.rows.count
    chart.view.scaleBy((1e6, 1))
    (x0, x1), _ = chart.view.viewRange()
    end = max(w.end for w in win.document.result.windows)
    assert x1 - x0 <= 2 * (end - win.document.env.time.start)
    copy = tmp_path / "copy.json"
    shutil.copy(TINY, copy)
    assert win.open_path(copy)
    assert str(copy.resolve()) in win.recent_files()
    copy.unlink()
    monkeypatch.setattr(QMessageBox, "critical", lambda *a, **k: QMessageBox.StandardButton.Ok)
    assert not win.open_path(copy)
    assert str(copy.resolve()) not in win.recent_files()


def test_a_file_named_on_the_command_line_is_in_open_recent(qtbot, tmp_path, monkeypatch):
    """`workbench FILE` opened the file but left File ▸ Open Recent empty; the bundled sample a bare
    `workbench` opens is not added."""
    import shutil

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from workbench.gui.app import run_app
    from workbench.gui.main_window import MainWindow

    monkeypatch.setattr(QApplication, "exec", lambda *_: 0)  # return at once instead of running the loop
    mine = tmp_path / "mine.json"
    shutil.copy(TINY, mine)
    for path in (mine, DEFAULT):
        assert run_app(path) == 0
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, MainWindow):
                qtbot.addWidget(widget)
                widget.runner.stop()
    recent = QSettings("SlotWorkbench", "Slot Workbench").value("recent")
    assert recent in ([str(mine.resolve())], str(mine.resolve()))


def test_opening_a_file_again_shows_it_whole_whatever_the_zoom(qtbot, window, tmp_path):
    """A new document (here the same file opened again, as a user does) is shown whole once its result
    is in: the chart kept the last one's zoom, clamped to the new limits (a reviewer saw 600,000-630,000
    of the KTH trace's 30 million time units)."""
    from tests.traces import swf_environment
    from workbench.engine.io.envfile import save_environment

    path = tmp_path / "trace.json"
    save_environment(swf_environment(seed=3, jobs=200, nodes=16), path)  # an open horizon, as SWF imports have
    win = window(path)
    chart = win.chart
    end = max(w.end for w in win.document.result.windows)
    start = win.document.env.time.start
    chart.view.setXRange(start + 0.4 * (end - start), start + 0.45 * (end - start), padding=0)
    assert win.open_path(path)
    qtbot.waitUntil(lambda: win.document.result is not None and not win.runner.busy, timeout=30_000)
    qtbot.wait(50)
    (x0, x1), _ = chart.view.viewRange()
    assert x0 <= start and x1 >= end


def test_the_generate_dialog_names_its_parameters_in_words(qtbot):
    """Every preset's parameters show a label in words with an explanation (the raw name in the
    tooltip, not as the label), and the presets cite their papers by authors, not file numbers."""
    from PySide6.QtWidgets import QLabel

    from workbench.engine.generate import PRESETS
    from workbench.gui.panels.generate import GenerateDialog

    dialog = GenerateDialog()
    qtbot.addWidget(dialog)
    for name in PRESETS:
        dialog.preset.setCurrentText(name)
        assert "seed 00" not in dialog.about.text() and "Toporkov" in dialog.about.text()
        for row in range(dialog.form.rowCount()):
            label = dialog.form.itemAt(row, dialog.form.ItemRole.LabelRole).widget()
            assert isinstance(label, QLabel) and "_" not in label.text(), label.text()
            key = next(k for k, field in dialog.fields.items() if dialog.form.getWidgetPosition(field)[0] == row)
            assert key in label.toolTip() and len(label.toolTip()) > len(key) + 3
