"""The main window's files: opening (here and now, or read in a worker), the Open Recent list, the
saved window layout, and the autosave that is offered back after a crash."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QStandardPaths

from workbench.engine.errors import WorkbenchError
from workbench.engine.files import load_environment
from workbench.engine.model import Environment
from workbench.session.document import autosave_text, write_autosave_text

MAX_RECENT = 8


def autosave_path() -> Path:
    folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(folder) / "autosave.json"


def settings_list(settings: Any, key: str) -> list[str]:
    """A list of strings kept in the settings (QSettings gives a lone string for a one-item list)."""
    value = settings.value(key, [])
    if isinstance(value, str):
        value = [value]
    return [str(v) for v in value or []]


class WindowFiles:
    """A mixin of ``MainWindow``: it reads the window's document, chart, settings and menus."""

    document: Any
    chart: Any
    settings: Any
    recent_menu: Any
    opener: Any
    autosaver: Any
    autosave_timer: Any
    _opening: Path

    def open_path(self, path: Path) -> bool:
        """Open a file here and now (the tests' and scripts' way; the menus open in the background)."""
        try:
            env = load_environment(path)
        except WorkbenchError as exc:
            self._open_failed(path, str(exc))
            return False
        self._opened(path, env)
        return True

    def open_in_background(self, path: Path) -> None:
        """Open a file, reading and checking it in a worker (an 8 MB environment: 0.2-0.4 s of
        parsing); the document changes when it is read. A later open supersedes this one."""
        self.statusBar().showMessage(f"Opening {path}…")
        self.opener.start(lambda token: load_environment(path))  # a later start drops this answer
        self._opening = Path(path)

    def _open_read(self, ticket: int, env: object, error: str | None) -> None:
        # (``BackgroundCall`` delivers only the latest start's answer: no ticket to check here.)
        self.statusBar().clearMessage()
        if error is not None or not isinstance(env, Environment):
            self._open_failed(self._opening, error or "not an environment")
        else:
            self._opened(self._opening, env)

    def _open_failed(self, path: Path, message: str) -> None:
        if not Path(path).exists():  # gone: Open Recent offers it no more
            self._forget_recent(path)
        self.error("Cannot open environment", f"{path}\n\n{message}")

    def _opened(self, path: Path, env: Environment) -> None:
        self.document.replace_environment(env, Path(path))
        self.add_recent(path)
        self.chart.fit()
        self.clear_autosave()

    def recent_files(self) -> list[str]:
        return settings_list(self.settings, "recent")

    def add_recent(self, path: Path) -> None:
        items = [str(Path(path).resolve())] + [p for p in self.recent_files() if p != str(Path(path).resolve())]
        self.settings.setValue("recent", items[:MAX_RECENT])
        self._fill_recent()

    def _forget_recent(self, path: Path) -> None:
        gone = str(Path(path).resolve())
        self.settings.setValue("recent", [p for p in self.recent_files() if p != gone])
        self._fill_recent()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for item in self.recent_files():
            self.recent_menu.addAction(item, lambda p=item: self.confirm_discard() and self.open_in_background(Path(p)))
        self.recent_menu.setEnabled(bool(self.recent_files()))

    def _restore_layout(self) -> None:
        geometry = self.settings.value("geometry")
        state = self.settings.value("state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)

    def write_autosave(self) -> None:
        if self.document.modified:
            try:
                self.document.write_autosave(autosave_path())
            except WorkbenchError as exc:
                self.statusBar().showMessage(f"Autosave failed: {exc}", 5000)

    def autosave_in_background(self) -> None:
        if self.document.modified:
            env, original = self.document.env, self.document.path
            self.autosaver.start(lambda token: autosave_text(env, original))  # a later start or a stop drops it

    def _autosave_built(self, ticket: int, text: object, error: str | None) -> None:
        if not self.document.modified:
            return  # saved, opened or cleared since: this state needs no recovery file
        try:
            if error is not None:
                raise WorkbenchError(error)
            write_autosave_text(str(text), autosave_path())
        except WorkbenchError as exc:
            self.statusBar().showMessage(f"Autosave failed: {exc}", 5000)

    def clear_autosave(self) -> None:
        self.autosave_timer.stop()
        self.autosaver.stop()  # an autosave being built is dropped
        with contextlib.suppress(FileNotFoundError):
            os.unlink(autosave_path())
