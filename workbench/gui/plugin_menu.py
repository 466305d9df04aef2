"""Strategy ▸ Load plug-in…: strategies from the user's own Python files (docs/plugins.md).

Loaded files are remembered in the settings and loaded again at the next start, before the
environment opens (its strategy may be a plug-in's). A refusal is one line in a non-blocking
message and the status bar; nothing is lost and the built-in strategies keep working.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QMessageBox

from workbench.engine import plugins, registry
from workbench.engine.errors import WorkbenchError
from workbench.gui.file_dialogs import ask_file
from workbench.gui.window_files import settings_list
from workbench.session import edits

SETTINGS_KEY = "plugins"


def remembered(settings: QSettings) -> list[str]:
    return settings_list(settings, SETTINGS_KEY)


def load_remembered(settings: QSettings) -> list[str]:
    """Load the remembered plug-in files (and installed packages' plug-ins); the refusals, one line each.
    A file that is gone, or refused now, is forgotten: it is not tried again at every start, and
    none of its strategies is offered (Strategy ▸ Load plug-in… takes it again once it is fixed)."""
    errors = [str(e) for e in plugins.load_entry_points()]
    paths = remembered(settings)
    kept = []
    for path in paths:
        if not Path(path).is_file():
            errors.append(f"plug-in {Path(path).name}: no such file any more: {path} (forgotten)")
            continue
        try:
            plugins.load_file(path)
        except WorkbenchError as exc:
            errors.append(f"{exc} (forgotten; load it again once it is fixed)")
            continue
        kept.append(path)
    settings.setValue(SETTINGS_KEY, kept)
    return errors


def tell_refusals(window: Any, refused: list[str]) -> None:
    """The plug-ins refused at start, in the status bar and in a message that does not block (a
    user who did not look at the status bar still learns that a strategy they use is missing)."""
    if not refused:
        return
    window.statusBar().showMessage("; ".join(refused))
    window.last_error = refused[-1]
    if not window.quiet:
        box = QMessageBox(
            QMessageBox.Icon.Warning, "Plug-ins refused at start", "\n\n".join(refused), parent=window
        )
        box.open()  # not exec(): nothing waits on it


class PluginMenu:
    """The Strategy menu's plug-in actions, for the main window ``window`` (``strategy``,
    ``compare_dialog``, ``document``, ``settings``, ``quiet``, ``statusBar``)."""

    def __init__(self, window: Any, menu: QMenu) -> None:
        self.window = window
        self.load_action = QAction("Load &plug-in…", window)
        self.load_action.setStatusTip("load strategies from a Python file (workbench.api; docs/plugins.md)")
        self.load_action.triggered.connect(self.load_dialog)
        menu.addAction(self.load_action)
        self.loaded_menu = menu.addMenu("Loaded plug-ins")
        self.show_loaded()

    def load_dialog(self) -> None:
        path = ask_file(self.window, "Load plug-in", "", "Python files (*.py)")
        if path:
            self.load(path)

    def load(self, path: str | Path) -> str | None:
        """Load (or reload) ``path``; None when it worked, else the one-line refusal (also shown)."""
        current = self.window.document.env.strategy.name
        try:
            names = plugins.load_file(path)
        except WorkbenchError as exc:
            self._after_change(current)
            self._tell(str(exc), error=True)
            return str(exc)
        kept = [p for p in remembered(self.window.settings) if p != str(Path(path).resolve())]
        self.window.settings.setValue(SETTINGS_KEY, [*kept, str(Path(path).resolve())])
        self._after_change(current)
        self._tell(f"Loaded {', '.join(names)} from {Path(path).name}")
        return None

    def _after_change(self, current: str) -> None:
        """The strategy lists follow the registry; a document whose strategy went away falls back to FirstFit."""
        try:
            registry.get(current)
        except WorkbenchError:
            self.window.document.apply(edits.set_strategy("FirstFit", {}))
        self.window.strategy.refresh()
        if self.window.compare_dialog is not None:
            self.window.compare_dialog.fill_choices()
        self.show_loaded()

    def show_loaded(self) -> None:
        self.loaded_menu.clear()
        added = plugins.added()
        for key, names in added.items():
            action = self.loaded_menu.addAction(f"{Path(key).name}: {', '.join(names)}")
            action.setEnabled(False)
        self.loaded_menu.setEnabled(bool(added))

    def _tell(self, text: str, error: bool = False) -> None:
        self.window.statusBar().showMessage(text, 0 if error else 8000)
        if error:
            self.window.last_error = text
            if not self.window.quiet:
                box = QMessageBox(QMessageBox.Icon.Warning, "Plug-in refused", text, parent=self.window)
                box.open()  # not exec(): nothing waits on it
