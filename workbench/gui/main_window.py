"""The main window: the Gantt chart in the centre, docks around it, the document behind it all.

Data flows one way (docs/design.md "Layout"): a gesture becomes an edit, the
document applies it, the live runner computes the result in the background,
and the views draw it. Nothing here owns the environment.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QMessageBox,
)

from workbench.engine.errors import ValidationError, WorkbenchError
from workbench.engine.files import is_bundled_sample
from workbench.engine.model import Environment
from workbench.engine.schedule import Schedule
from workbench.engine.simulate import Snapshot
from workbench.engine.warmup import warm_in_background
from workbench.gui import palette, prepared
from workbench.gui.bridge import DocumentBridge
from workbench.gui.exports import Exports
from workbench.gui.file_dialogs import ask_file
from workbench.gui.gantt import geometry
from workbench.gui.gantt.chart import GanttChart
from workbench.gui.help import app_icon, help_actions
from workbench.gui.numbers import duration_ms
from workbench.gui.panels.compare import CompareDialog
from workbench.gui.panels.cycles import CyclesPanel
from workbench.gui.panels.env_docks import jobs_dock, nodes_dock, tasks_dock
from workbench.gui.panels.generate import GenerateDialog
from workbench.gui.panels.import_swf import ImportSwfDialog
from workbench.gui.panels.metrics import MetricsPanel
from workbench.gui.panels.run_status import RunStatus
from workbench.gui.panels.strategy import StrategyPanel
from workbench.gui.panels.why import WhyPanel
from workbench.gui.plugin_menu import PluginMenu
from workbench.gui.window_files import WindowFiles
from workbench.gui.window_layout import WindowLayout
from workbench.gui.window_timeline import WindowTimeline
from workbench.gui.workers import BackgroundCall, KernelStatus, LiveRunner, share_the_gil, stop_all_calls
from workbench.session import edits
from workbench.session.document import Document, empty_environment

AUTOSAVE_DELAY_MS = 2000


class MainWindow(WindowLayout, Exports, WindowFiles, WindowTimeline):
    def __init__(self, env: Environment | None = None, path: Path | None = None, quiet: bool = False) -> None:
        super().__init__()
        share_the_gil()
        if not quiet:
            warm_in_background()  # each kernel is loaded (or compiled) at start: not mid-gesture
        self.quiet = quiet  # no modal dialogs (tests, screenshots); errors go to last_error
        self.last_error = ""
        self.document = Document(env or empty_environment(), path)
        self.bridge = DocumentBridge(self.document)
        self.state = self.bridge.state  # the selected job and the result's status, for every view
        self.runner = LiveRunner(self.document)
        # Before the status bar's own handlers, so that they read the state after the change.
        self.runner.started.connect(self.state.run_started)
        self.runner.stopped.connect(self.state.run_stopped)
        self.settings = QSettings("SlotWorkbench", "Slot Workbench")
        self.chart = GanttChart(self)
        self.strategy = StrategyPanel(self.document)
        self.metrics = MetricsPanel(self.bridge)
        self.cycles = CyclesPanel(self.document)
        self.nodes = nodes_dock(self.document)
        self.tasks = tasks_dock(self.document)
        self.showing_snapshot: Snapshot | None = None
        self.jobs = jobs_dock(self.document, self.shown_schedule)
        self._build_timeline()  # the chart over the overview strip, Cycles mode's steps on it
        self._dock("Strategy", self.strategy, Qt.DockWidgetArea.RightDockWidgetArea)
        self._dock("Metrics", self.metrics, Qt.DockWidgetArea.RightDockWidgetArea)
        self._dock("Cycles", self.cycles, Qt.DockWidgetArea.RightDockWidgetArea, scrolls=True)
        self.why = WhyPanel(self.document)
        self._dock("Why here?", self.why, Qt.DockWidgetArea.RightDockWidgetArea)
        for dock in (self.jobs, self.nodes, self.tasks):
            self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        self.tabifyDockWidget(self.jobs, self.nodes)
        self.tabifyDockWidget(self.nodes, self.tasks)
        self.jobs.raise_()
        self.tabifyDockWidget(self.findChild(QDockWidget, "metrics"), self.findChild(QDockWidget, "cycles"))
        self.tabifyDockWidget(self.findChild(QDockWidget, "cycles"), self.findChild(QDockWidget, "why here?"))
        self.findChild(QDockWidget, "metrics").raise_()
        self.run_status = RunStatus(self.runner, self.bridge, lambda: bool(self.chart.shown_windows))
        self.statusBar().addPermanentWidget(self.run_status)
        self.autosave_timer = QTimer(self)
        self.autosave_timer.setSingleShot(True)
        self.autosave_timer.setInterval(AUTOSAVE_DELAY_MS)
        self.autosave_timer.timeout.connect(self.autosave_in_background)
        # The autosave's text (8 MB at 28,000 jobs: 0.25 s of work) is built in a worker; the GUI
        # thread only writes it, and only if no save or new document came in between.
        self.autosaver = BackgroundCall()
        self.autosaver.finished.connect(self._autosave_built)
        self.opener = BackgroundCall()
        self.opener.finished.connect(self._open_read)
        self._opening = Path()
        self.compare_dialog: CompareDialog | None = None
        self.study_dialog: Any = None
        self._failure = ""  # the status bar's message about the last failed run
        # The kernels' compile (a machine's first run), in the status bar; both go with the window.
        self.kernel_status = KernelStatus(self)
        self.kernel_status.changed.connect(self.statusBar().showMessage)
        self.kernel_status.compiling.connect(self.run_status.show_compiling)
        self._syncing_table = False
        self._display_units: dict[str, str] = {}  # View ▸ Time unit per file, for this session
        self._build_actions()
        self._connect()
        self._units_of_document(self.document.env)
        self.resize(*self.opening_size(quiet))
        self._balanced = not quiet and self.settings.value("state") is not None  # a saved layout wins
        self._start_layout()
        self.setWindowIcon(app_icon())
        if not quiet:  # screenshots and tests use the default layout, and leave the user's alone
            self._restore_layout()
        self._on_path_changed(path, False)
        self.chart.set_data(self.document.env, None, fit=True)
        self.refresh_tables()

    # ------------------------------------------------------------ layout

    def _press_cycles(self, button: Any) -> None:
        """Run ▸ Cycles: the Cycles panel's button, the panel brought to the front."""
        self.findChild(QDockWidget, "cycles").raise_()
        if button.isEnabled():
            button.click()

    def _action(self, text: str, slot: object, shortcut: object = None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut)  # type: ignore[arg-type]
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)  # type: ignore[arg-type]
        return action

    def _build_actions(self) -> None:
        keys = QKeySequence.StandardKey
        self.new_action = self._action("&New", self.new_document, keys.New)
        self.open_action = self._action("&Open…", self.open_dialog, keys.Open)
        self.save_action = self._action("&Save", self.save, keys.Save)
        self.save_as_action = self._action("Save &As…", self.save_as, keys.SaveAs)
        self.import_action = self._action("&Import SWF…", self.import_swf_dialog)
        self.generate_action = self._action("&Generate…", self.generate_dialog, QKeySequence("Ctrl+G"))
        self.undo_action = self._action("&Undo", self.document.undo, keys.Undo)
        self.redo_action = self._action("&Redo", self.document.redo, keys.Redo)
        redo_keys = QKeySequence.keyBindings(keys.Redo)
        if QKeySequence("Ctrl+Y") not in redo_keys:  # the other common Redo key, on every platform
            self.redo_action.setShortcuts([*redo_keys, QKeySequence("Ctrl+Y")])
        self.fit_action = self._action("Zoom to &fit", self.chart.fit, QKeySequence("F"))
        self.run_action = self._action("&Run", self.run_now, QKeySequence("F5"))
        self.cancel_action = self._action(
            "&Cancel run", self._escape, QKeySequence("Esc"), "Cancel the run; with none running, clear the selection"
        )
        self.compare_action = self._action("&Compare strategies…", self.open_compare, QKeySequence("Ctrl+K"))
        self.find_action = self._action(
            "&Find job…", self.find_dialog, keys.Find, "find a job by id or name, select it and show it"
        )
        quit_action = self._action("&Quit", self.close, keys.Quit)
        menu = self.menuBar().addMenu("&File")
        for action in (self.new_action, self.open_action):
            menu.addAction(action)
        self.recent_menu = menu.addMenu("Open &Recent")
        for action in (self.save_action, self.save_as_action):
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self.import_action)
        menu.addAction(self.generate_action)
        export = menu.addMenu("&Export")
        export.addAction(self._action("Chart as PNG…", lambda: self.export_chart_dialog("png")))
        export.addAction(self._action("Chart as SVG…", lambda: self.export_chart_dialog("svg")))
        export.addAction(self._action("Chart as PDF…", lambda: self.export_chart_dialog("pdf")))
        export.addAction(self._action("Schedule as CSV…", lambda: self.export_schedule_dialog("csv")))
        export.addAction(self._action("Schedule as JSON…", lambda: self.export_schedule_dialog("json")))
        export.addAction(self._action("Schedule as SWF…", lambda: self.export_schedule_dialog("swf")))
        export.addAction(
            self._action("Schedule as Batsim jobs.csv…", lambda: self.export_schedule_dialog("csv", "batsim"))
        )
        export.addAction(self._action("Jobs as a Batsim workload…", self.export_workload_dialog))
        menu.addSeparator()
        menu.addAction(quit_action)
        menu = self.menuBar().addMenu("&Edit")
        menu.addAction(self.undo_action)
        menu.addAction(self.redo_action)
        menu.addSeparator()
        menu.addAction(self.find_action)
        menu = self.menuBar().addMenu("&View")
        menu.addAction(self.fit_action)
        colour_menu = menu.addMenu("&Colour windows by")
        self.colour_group = QActionGroup(self)
        for key, text in palette.COLOUR_BY.items():
            action = QAction(text, self, checkable=True)
            action.setChecked(key == self.chart.colour_by)
            action.setData(key)
            action.triggered.connect(lambda _=False, k=key: self.chart.set_colour_by(k))
            self.colour_group.addAction(action)
            colour_menu.addAction(action)
        unit_menu = menu.addMenu("&Time unit")
        self.unit_group = QActionGroup(self)
        for key in geometry.TIME_UNITS:
            action = QAction(geometry.unit_menu_text(key), self, checkable=True)
            action.setData(key)
            action.triggered.connect(lambda _=False, k=key: self.set_time_unit(k))
            self.unit_group.addAction(action)
            unit_menu.addAction(action)
        order_menu = menu.addMenu("Sort node &rows")
        self.order_group = QActionGroup(self)
        for key, text in geometry.ROW_ORDERS.items():
            action = QAction(text, self, checkable=True)
            action.setChecked(key == "list")
            action.triggered.connect(lambda _=False, k=key: self.chart.set_row_order(k))
            self.order_group.addAction(action)
            order_menu.addAction(action)
        self.cursor_action = QAction("Time &cursor", self, checkable=True)
        self.cursor_action.setShortcut(QKeySequence("T"))
        self.cursor_action.setChecked(True)
        self.cursor_action.toggled.connect(self._set_cursor)
        menu.addAction(self.cursor_action)
        menu.addSeparator()
        for dock in self.findChildren(QDockWidget):
            menu.addAction(dock.toggleViewAction())
        menu.addAction(self._action("Reset &layout", self.reset_layout, tip="every panel back where it opens"))
        self.plugin_menu = PluginMenu(self, self.menuBar().addMenu("&Strategy"))
        menu = self.menuBar().addMenu("&Run")
        menu.addAction(self.run_action)
        menu.addAction(self.cancel_action)
        menu.addAction(self.compare_action)
        menu.addAction(self._action("&Study…", self.open_study, tip="run one of the papers' experiments"))
        menu.addSeparator()
        cycles = menu.addMenu("C&ycles")
        panel = self.cycles
        for text, button, keys in (
            ("&Step", panel.step_button, "F10"),
            ("&Back", panel.back_button, "Shift+F10"),
            ("&Play / Pause", panel.play_button, "F8"),
            ("&Reset", panel.reset_button, None),
        ):
            shortcut = QKeySequence(keys) if keys else None
            cycles.addAction(self._action(text, lambda _=False, b=button: self._press_cycles(b), shortcut))
        menu = self.menuBar().addMenu("&Help")
        self.shortcuts_action, self.about_action = help_actions(self, self.menuBar())
        menu.addAction(self.shortcuts_action)
        menu.addSeparator()
        menu.addAction(self.about_action)
        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("main_toolbar")
        for action in (
            self.open_action,
            self.save_action,
            self.undo_action,
            self.redo_action,
            self.run_action,
            self.fit_action,
            self.compare_action,
        ):
            toolbar.addAction(action)
        self._fill_recent()
        self._update_undo()

    def _connect(self) -> None:
        self._fresh_document = False  # the next environment is another document's (fit it whole)
        self.bridge.replaced.connect(lambda _env: setattr(self, "_fresh_document", True))
        self.bridge.replaced.connect(self._units_of_document)
        self.bridge.replaced.connect(lambda _env: self.overview.set_overview(None))
        for dock in (self.jobs, self.nodes, self.tasks):
            self.bridge.replaced.connect(lambda _env, d=dock: d.begin_document())
        self.bridge.environment_changed.connect(self._on_environment_changed)
        self.bridge.result_changed.connect(self._on_result_changed)
        self._jobs_after_drawing = False  # the Jobs table shows the new result once the chart is whole
        self.chart.drawn.connect(self._on_chart_drawn)
        self.bridge.path_changed.connect(self._on_path_changed)
        self.strategy.run_requested.connect(self.run_now)
        self.chart.job_clicked.connect(self._on_job_clicked)
        self.chart.task_changed.connect(self._on_task_changed)
        self.chart.task_add_requested.connect(self._on_task_add_requested)
        self.jobs.view.selectionModel().selectionChanged.connect(self._on_job_selection)
        self.jobs.model.modelReset.connect(self._select_in_table)  # a reset drops the table's selection
        self.bridge.selection_changed.connect(self.chart.set_selected)
        self.bridge.selection_changed.connect(self.why.show_job)
        self.bridge.selection_changed.connect(self._select_in_table)
        self.bridge.selection_changed.connect(self.chart.reveal_job)  # off-screen: brought into view
        self.bridge.status_changed.connect(lambda _: self._show_staleness())
        why_dock = self.findChild(QDockWidget, "why here?")
        why_dock.visibilityChanged.connect(self.why.set_on_screen)  # a tab behind another is not on screen
        self.why.ghosts_changed.connect(self.chart.set_ghosts)

    # ------------------------------------------------------------ runs

    def run_now(self) -> None:
        self.runner.run_now()

    def wait_for_result(self, timeout_ms: int | None = 60_000) -> None:
        """Block (processing events) until the pending run has delivered (screenshots, scripts);
        ``timeout_ms`` None waits as long as the run takes (a first run compiles the kernels)."""
        from PySide6.QtCore import QCoreApplication, QDeadlineTimer, QEventLoop

        deadline = QDeadlineTimer(QDeadlineTimer.ForeverConstant.Forever if timeout_ms is None else timeout_ms)
        while (self.runner.timer.isActive() or self.runner.busy) and not deadline.hasExpired():
            # Sleep until something happens: spinning would starve the worker of the GIL.
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 50)

    def _on_result_changed(self, schedule: Schedule | None, error: str | None) -> None:
        env = self.document.env
        name = env.strategy.name
        self.strategy.show_error(error)
        if error:
            self.run_status.show_result(f"{name}: error")
            self._failure = f"{name} failed: {error}"
            self.statusBar().showMessage(self._failure)
        elif schedule is not None:
            if self._failure and self.statusBar().currentMessage() == self._failure:
                self.statusBar().clearMessage()  # a later run worked: the failure no longer holds
            self._failure = ""
            prepared = ""
            if schedule.prepare_ms >= 50:
                prepared = f" (+{schedule.prepare_ms / 1000:.1f} s preparing the compiled kernels)"
            self.run_status.show_result(
                f"{name}: {len(schedule.windows)} placed, {len(schedule.unscheduled)} failed — "
                f"{duration_ms(schedule.elapsed_ms)}{prepared}"
            )
        if self.showing_snapshot is None:
            self.chart.set_data(env, schedule)
            self.metrics.show_schedule(env, schedule)
        self.show_overview(schedule)
        # The reset measures the Jobs table's columns again (in a later turn of the event loop, so the
        # window answers between drawing the result and measuring), widening the result columns to it.
        # A picture drawn a layer at a time comes first: the table follows once it is whole, so its
        # repaint is not added to the chart's (on the KTH trace, 25-50 ms each under a busy worker).
        if self.chart.drawing:
            self._jobs_after_drawing = True
        else:
            self.jobs.model.refresh()

    def _on_chart_drawn(self) -> None:
        if self._jobs_after_drawing:
            self._jobs_after_drawing = False
            self.jobs.model.refresh()

    def _set_cursor(self, on: bool) -> None:
        self.chart.show_cursor = on
        if not on:
            self.chart.cursor.setVisible(False)

    # ------------------------------------------------------------ document events

    def _on_environment_changed(self, env: Environment) -> None:
        self.showing_snapshot = None
        if self._fresh_document:  # a new or opened document: its columns are measured afresh
            self._fresh_document = False  # (not an undo back to where nothing is left to undo: the
            for dock in (self.nodes, self.tasks, self.jobs):  # zoom and the columns stay as they are)
                dock.request_fit(afresh=True)
            self.chart.fit_next()  # and the chart shows it whole, whatever the last one's zoom
        self.cycles.on_environment_changed()
        # Keep the old windows on screen until the new result arrives (marked as the previous result);
        # nothing of another document, or of a failed run.
        shown = self.state.shown
        if shown is not None and self.chart.shows(shown) and prepared.lookup(env, shown, drawing=True) is not None:
            # The same frame (an edit of a job's fields, its undo): the result is drawn as it was, from
            # what the worker prepared (at 200,000 jobs, sorting out and drawing again took 3 s).
            self.chart.set_data(env, shown)
        else:
            nodes, jobs = env.node_index, env.job_index
            kept = [w for w in self.chart.shown_windows if w.job in jobs and all(n in nodes for n in w.nodes)]
            self.chart.set_data(env, None, windows=kept if shown is not None else [])
        self._show_staleness()  # with the windows now on the chart
        if self.state.shown is None:
            self.metrics.show_schedule(env, None)
        self.refresh_tables()
        self._update_undo()
        if self.strategy.auto.isChecked():
            self.runner.request()
        if self.document.modified:
            self.autosave_timer.start()

    def _show_staleness(self) -> None:
        """The "previous result" badge and line, only over a picture that is really there."""
        self.chart.set_stale(self.state.stale and bool(self.chart.shown_windows))
        self.run_status.refresh()

    def refresh_tables(self) -> None:
        for dock in (self.nodes, self.tasks, self.jobs):
            dock.model.refresh()

    def _update_undo(self) -> None:
        doc = self.document
        self.undo_action.setEnabled(doc.can_undo)
        self.redo_action.setEnabled(doc.can_redo)
        self.undo_action.setText(f"&Undo {doc.undo_text}" if doc.can_undo else "&Undo")
        self.redo_action.setText(f"&Redo {doc.redo_text}" if doc.can_redo else "&Redo")
        # The toolbar keeps a short, steady label; the menu and tooltip name the edit.
        self.undo_action.setIconText("Undo")
        self.redo_action.setIconText("Redo")
        self.undo_action.setToolTip(f"Undo {doc.undo_text}" if doc.can_undo else "Nothing to undo")
        self.redo_action.setToolTip(f"Redo {doc.redo_text}" if doc.can_redo else "Nothing to redo")

    def _on_path_changed(self, path: Path | None, modified: bool) -> None:
        name = path.name if path else "untitled"
        # Qt shows "*" for the "[*]" placeholder while the window is modified.
        self.setWindowTitle(f"{name}[*] — {self.document.env.name or 'environment'} — Slot Workbench")
        self.setWindowModified(modified)

    # ------------------------------------------------------------ chart gestures

    def _apply(self, edit: edits.Edit) -> bool:
        try:
            self.document.apply(edit)
            return True
        except ValidationError as exc:
            self.statusBar().showMessage(f"Not applied ({edit.name}): {exc.path}: {exc.message}", 8000)
            self.chart.set_data(self.document.env, self.document.result)
            return False

    def _on_task_changed(self, task_id: str, start: float, end: float, node: str) -> None:
        task = next(t for t in self.document.env.local_tasks if t.id == task_id)
        if node == task.node and end - start != task.end - task.start:
            self._apply(edits.resize_task(task_id, start, end))
        else:
            self._apply(edits.set_task(task_id, start=start, end=end, node=node))

    def _on_task_add_requested(self, node: str, at: float) -> None:
        low, high = self.chart.view.viewRange()[0]
        length = max(1.0, round((high - low) / 30))
        self._apply(edits.add_task(node, at, at + length))

    def _on_job_clicked(self, job_id: str) -> None:
        if job_id in self.document.env.job_index:
            self.jobs.raise_()
            self.state.select(job_id)
        elif not job_id:
            self.state.select(None)

    def _escape(self) -> None:
        """Esc: cancel the run; with none running, clear the selection (and the dimming with it)."""
        if self.runner.busy:
            self.runner.stop()
        else:
            self.state.select(None)

    def _on_job_selection(self, *_: object) -> None:
        if self._syncing_table:
            return
        row = self.jobs.selected_row()
        self.state.select(self.document.env.jobs[row].id if row is not None else None)

    def _select_in_table(self, *_: object) -> None:
        """Show the selected job (the view state's) in the Jobs table, wherever sorting put its row."""
        row = self.document.env.job_index.get(self.state.job) if self.state.job is not None else None
        if row == self.jobs.selected_row():
            return
        self._syncing_table = True  # the table follows the state here: no echo back into it
        try:
            if row is None:
                self.jobs.view.clearSelection()
            else:
                self.jobs.select_source_row(row)
        finally:
            self._syncing_table = False

    # ------------------------------------------------------------ files

    def error(self, title: str, text: str) -> None:
        self.last_error = f"{title}: {text}"
        self.statusBar().showMessage(self.last_error, 10000)
        if not self.quiet:
            QMessageBox.critical(self, title, text)

    def confirm_discard(self) -> bool:
        """True when there is nothing unsaved, or the user chose to save or discard it."""
        if not self.document.modified or self.quiet:
            return True
        answer = QMessageBox.question(
            self,
            "Unsaved changes",
            "Save the changes to this environment first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def new_document(self) -> None:
        if self.confirm_discard():
            self.document.replace_environment(empty_environment(), None)
            self.chart.fit()

    def open_dialog(self) -> None:
        if not self.confirm_discard():
            return
        filters = "Environments and results (*.json *.npz);;Containers (*.npz);;JSON (*.json);;All (*)"
        name = ask_file(self, "Open environment or result", self._folder(), filters)
        if name:
            self.open_in_background(Path(name))

    def save(self) -> bool:
        path = self.document.path
        # A bundled sample is a starting point shared by every session (the default opens at each
        # start): its edits go to a file the user names, never back over it.
        if path is None or is_bundled_sample(path):
            return self.save_as()
        return self.save_to(path)

    def save_as(self) -> bool:
        current = self.document.path.name if self.document.path else ""
        filters = "JSON environment (*.json);;Container, for large environments (*.npz)"
        name = ask_file(self, "Save environment", self._folder(), filters, save=True, name=current)
        known = name.lower().endswith((".json", ".npz"))
        return bool(name) and self.save_to(Path(name if known else name + ".json"))

    def save_to(self, path: Path) -> bool:
        try:
            self.document.save(path)
        except WorkbenchError as exc:
            self.error("Cannot save", str(exc))
            return False
        self.add_recent(path)
        self.clear_autosave()
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    def import_swf_dialog(self) -> None:
        if not self.confirm_discard():
            return
        name = ask_file(
            self,
            "Import an SWF trace or a Batsim workload",
            self._folder(),
            "Traces (*.swf *.swf.gz *.json *.json.gz);;All (*)",
        )
        if not name:
            return
        dialog = ImportSwfDialog(name, self)
        if not dialog.exec() or dialog.result_env is None:
            return
        env, left_out = dialog.result_env, dialog.left_out
        self.document.replace_environment(env, None, saved=False)
        summary = f"Imported {len(env.jobs)} jobs; {len(left_out)} left out"
        self.statusBar().showMessage(summary, 10_000)
        if left_out and not self.quiet:
            shown = left_out[:40]
            more = len(left_out) - len(shown)
            QMessageBox.information(self, summary, "\n".join(shown) + (f"\n… and {more} more" if more else ""))

    def generate_dialog(self) -> None:
        if not self.confirm_discard():
            return
        dialog = GenerateDialog(self)
        if dialog.exec() and dialog.result_env is not None:
            self.document.replace_environment(dialog.result_env, None, saved=False)
            self.chart.fit()
            left_out = getattr(dialog, "left_out", [])
            if left_out:
                self.statusBar().showMessage(f"{len(left_out)} jobs left out: {left_out[0]}", 15_000)

    def open_compare(self) -> None:
        if self.compare_dialog is None:
            self.compare_dialog = CompareDialog(self.document, self)
            self.compare_dialog.set_time_unit(self.chart.time_unit)
        self.compare_dialog.show()
        self.compare_dialog.raise_()

    def open_study(self) -> None:
        from workbench.gui.panels.study import StudyDialog

        if self.study_dialog is None:
            self.study_dialog = StudyDialog(self)
        self.study_dialog.show()
        self.study_dialog.raise_()

    def _folder(self) -> str:
        return str(self.document.path.parent) if self.document.path else ""

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.confirm_discard():
            event.ignore()
            return
        self.runner.cancel()
        stop_all_calls(0.0)  # every background call cancelled; ``run_app`` waits for them once hidden
        if not self.quiet:
            self.settings.setValue("geometry", self.saveGeometry())
            self.settings.setValue("state", self.saveState())
        self.clear_autosave()
        event.accept()
