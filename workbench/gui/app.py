"""Start the GUI, or render it to a PNG headlessly (``--screenshot``)."""

from __future__ import annotations

import datetime
import sys
from dataclasses import replace
from pathlib import Path

from workbench.engine import registry
from workbench.engine.errors import WorkbenchError
from workbench.engine.files import is_bundled_sample
from workbench.engine.model import StrategyRef


def run_app(env_path: Path, strategy: str | None = None, screenshot: str | None = None) -> int:
    """Open the main window on ``env_path``; with ``screenshot``, save the window and exit.

    In screenshot mode every error is one line on stderr and exit code 2: no dialog
    ever waits for a click.
    """
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication, QMessageBox

    from workbench.engine.io.result_files import is_result_file
    from workbench.gui.help import app_icon
    from workbench.gui.main_window import MainWindow
    from workbench.gui.plugin_menu import load_remembered, tell_refusals
    from workbench.gui.window_files import OpenedResult, found_autosave, read_file
    from workbench.session.document import read_autosave

    if screenshot:
        _quiet_offscreen_platform()
        _load_drawing_kernels()
    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setOrganizationName("SlotWorkbench")
    app.setApplicationName("Slot Workbench")
    app.setDesktopFileName("slot-workbench")  # the taskbar matches the window to resources/slot-workbench.desktop
    app.setWindowIcon(app_icon())
    env, path, problem = None, env_path, ""
    refused = [] if screenshot else load_remembered(QSettings("SlotWorkbench", "Slot Workbench"))
    opened = None
    # A result is read in the background after the window is up (200,000 jobs: seconds of reading and
    # laying out, which used to pass before anything was on screen); a screenshot waits for it here.
    later = not screenshot and not strategy and is_result_file(env_path)
    try:
        read = None if later else read_file(env_path)  # an environment, or a result shown as it was saved
        if isinstance(read, OpenedResult):
            opened, env, path = read, read.env, read.environment_path
        elif read is not None:
            env = read
        else:
            path = None
        if strategy and env is not None:
            env = replace(env, strategy=StrategyRef(registry.get(strategy).name))
    except WorkbenchError as exc:
        if screenshot:
            print(f"workbench: error: {exc}", file=sys.stderr)
            return 2
        problem, path = f"{env_path}\n\n{exc}", None
    window = MainWindow(env, path, quiet=bool(screenshot))
    window.show()
    if path is not None and not screenshot and not is_bundled_sample(path):
        window.add_recent(path)  # named on the command line: File ▸ Open Recent offers it too
    tell_refusals(window, refused)
    if problem:
        QMessageBox.critical(window, "Cannot open environment", problem)
    left = None if screenshot else found_autosave()
    if left is not None:
        _offer_autosave(window, read_autosave, left)
    if later:
        window.open_in_background(env_path)
    elif opened is not None and not strategy:
        window.show_opened_result(env_path, opened)
    else:
        window.run_now()
    if screenshot:
        window.wait_for_result(None)  # the run it pictures, however long (a first run compiles the kernels)
        if window.document.error:
            print(f"workbench: error: {window.document.error}", file=sys.stderr)
            return 2
        if window.runner.busy or window.document.result is None:
            print("workbench: error: the run did not finish; no picture was saved", file=sys.stderr)
            return 2
        app.processEvents()
        window.chart.fit()
        window.chart.finish_drawing()
        app.processEvents()
        if not window.grab().save(screenshot):
            print(f"workbench: error: {screenshot}: cannot write the PNG", file=sys.stderr)
            return 2
        window.close()
        _wait_for_workers()
        return 0
    code = app.exec()
    _wait_for_workers()
    return code


def _load_drawing_kernels() -> None:
    """A screenshot skips the window's warm-up; the chart's level of detail is loaded here when its
    machine code is on disk (a load, never a compile: without it the picture is drawn whole)."""
    from workbench.engine import kernels

    if all(entry.saved() for entry in kernels.DRAWING):
        kernels.prepare(kernels.DRAWING)


WORKER_WAIT = 5.0  # seconds a closed window waits for its cancelled background calls


def _wait_for_workers() -> None:
    """The window is gone: cancel its background calls and wait (a bounded time) for their threads,
    so that none is inside compiled code when the interpreter shuts down (the command then waits
    for any compiled call still under way, ``cli.exit_safely``)."""
    from workbench.gui.workers import stop_all_calls

    stop_all_calls(WORKER_WAIT)


def _offer_autosave(window: object, read: object, path: Path) -> None:
    """After a crash: offer the unsaved work found in the autosave."""
    from PySide6.QtWidgets import QMessageBox

    from workbench.gui.main_window import MainWindow

    assert isinstance(window, MainWindow)
    try:
        env, original = read(path)  # type: ignore[operator]
    except WorkbenchError:
        path.unlink(missing_ok=True)
        return
    saved_at = datetime.datetime.fromtimestamp(path.stat().st_mtime)
    answer = QMessageBox.question(
        window,
        "Recover unsaved work",
        recovery_question(env.name, original, saved_at, window.document.path),
    )
    if answer == QMessageBox.StandardButton.Yes:
        window.document.replace_environment(env, original)
        window.document.mark_modified()
    else:
        path.unlink(missing_ok=True)


def recovery_question(name: str, original: Path | None, saved_at: datetime.datetime, opening: Path | None) -> str:
    """What the recovery prompt says: whose work, from when, and what restoring it replaces."""
    what = f"“{name}”" if name else "an untitled environment"
    where = f" (from {original})" if original else " (never saved to a file)"
    text = f"Slot Workbench found unsaved changes to {what}{where}, autosaved {saved_at:%Y-%m-%d %H:%M}. "
    if opening is not None and opening != original:
        text += f"Restoring shows them instead of {opening}, which stays as it is on disk. "
    return text + "Restore them?"


# What the offscreen platform plugin says about window-manager calls it cannot serve: nothing the
# user of ``--screenshot`` can act on (the picture is right), so it is not printed.
OFFSCREEN_NOISE = ("This plugin does not support",)


def _quiet_offscreen_platform() -> None:
    """Let Qt's messages through to stderr, but for the offscreen plugin's notes on what it lacks."""
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    def handler(kind: QtMsgType, context: object, message: str) -> None:
        if not message.startswith(OFFSCREEN_NOISE):
            print(message, file=sys.stderr)

    qInstallMessageHandler(handler)
