"""File ▸ Export's SWF and Batsim formats, and the Import dialog's job selection (docs/formats.md)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from tests.gui.helpers import answer_file_dialogs
from workbench.engine import registry
from workbench.engine.io.batsim import environment_to_batsim, schedule_to_batsim_csv
from workbench.engine.io.swf import import_swf, schedule_to_swf
from workbench.engine.io.trace import Selection, select_jobs

ROOT = Path(__file__).resolve().parents[2]
TRACE = ROOT / "sample_envs" / "sample16.swf"


def export_menu(win):
    file_menu = next(a.menu() for a in win.menuBar().actions() if a.text() == "&File")
    export = next(a.menu() for a in file_menu.actions() if a.text() == "&Export")
    return {action.text(): action for action in export.actions()}


def test_file_export_writes_swf_batsim_jobs_csv_and_a_batsim_workload(qtbot, window, tmp_path, monkeypatch):
    """Each new File ▸ Export entry asks for a file (the save dialog stubbed) and writes what the engine
    writes for the schedule on screen: SWF, Batsim's jobs.csv (the workbench's CSV stays the plain
    CSV entry) and the environment as a Batsim workload."""
    win = window()
    schedule = win.document.result
    env = win.document.env
    assert schedule is not None
    asked = []

    def save_as(dialog):
        assert dialog.acceptMode() == dialog.AcceptMode.AcceptSave
        asked.append((dialog.windowTitle(), dialog.nameFilters()[0]))
        return tmp_path / f"out{len(asked)}"  # no suffix: the export adds the pattern's

    answer_file_dialogs(monkeypatch, save_as)
    actions = export_menu(win)
    actions["Schedule as SWF…"].trigger()
    actions["Schedule as Batsim jobs.csv…"].trigger()
    actions["Jobs as a Batsim workload…"].trigger()
    actions["Schedule as CSV…"].trigger()
    assert [pattern for _, pattern in asked] == ["*.swf", "*.csv", "*.json", "*.csv"]
    assert asked[1][0] == "Export schedule as Batsim jobs.csv"
    assert (tmp_path / "out1.swf").read_text() == schedule_to_swf(env, schedule)
    assert (tmp_path / "out2.csv").read_text() == schedule_to_batsim_csv(env, schedule)
    assert json.loads((tmp_path / "out3.json").read_text()) == environment_to_batsim(env)
    with (tmp_path / "out4.csv").open() as rows:
        assert next(csv.reader(rows))[0] == "job"


def test_an_export_that_fails_says_why(qtbot, window, tmp_path, monkeypatch):
    """A folder that does not exist is reported through the window's error, naming the file."""
    win = window()
    errors = []
    monkeypatch.setattr(win, "error", lambda title, text: errors.append((title, text)))
    target = tmp_path / "missing" / "s.swf"
    answer_file_dialogs(monkeypatch, target)
    export_menu(win)["Schedule as SWF…"].trigger()
    assert errors and errors[0][0] == "Cannot export the schedule" and "missing" in errors[0][1]


def test_import_dialog_selects_jobs_as_the_command_line_does(qtbot, tmp_path):
    """The dialog's from/to, skip-status and first N give the engine's selection of the same trace;
    a Batsim workload opens in the same dialog with its nb_res as the machine."""
    from workbench.engine.io.batsim import environment_to_batsim
    from workbench.gui.panels.import_swf import ImportSwfDialog

    dialog = ImportSwfDialog(TRACE)
    qtbot.addWidget(dialog)
    assert dialog.selection() == Selection()
    dialog.start.setValue(1000)
    dialog.end.setValue(20000)
    dialog.skip_status.setChecked(True)
    dialog.first.setValue(4)
    assert dialog.selection() == Selection(first=4, start=1000, end=20000, skip_status=True)
    assert dialog.preview.text().startswith("4 jobs")
    dialog._accept()
    expected = select_jobs(import_swf(TRACE), Selection(first=4, start=1000, end=20000, skip_status=True))
    assert dialog.result_env == expected.env
    dialog.end.setValue(500)  # before --from: the engine's error, and OK is off
    assert "--to: expected a time after --from" in dialog.error.text()
    assert not dialog.buttons.button(dialog.buttons.StandardButton.Ok).isEnabled()
    workload = tmp_path / "w.json"
    workload.write_text(json.dumps(environment_to_batsim(import_swf(TRACE, 12, selection=Selection(first=10)).env)))
    batsim = ImportSwfDialog(workload)
    qtbot.addWidget(batsim)
    assert batsim.nodes.value() == 12 and batsim.preview.text().startswith("10 jobs")
    batsim._accept()
    assert [j.id for j in batsim.result_env.jobs] == [str(k) for k in range(1, 11)]
    assert registry.run(batsim.result_env, "EASY").windows
