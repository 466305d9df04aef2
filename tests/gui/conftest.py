"""Shared GUI fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.engine.files import load_environment

DEFAULT = Path(__file__).resolve().parents[2] / "sample_envs" / "default.json"


@pytest.fixture(autouse=True)
def fresh_settings(qapp):
    """Each GUI test starts from, and leaves behind, empty Qt settings (recent files, window layout)
    and no autosave, so that nothing one test does is seen by the next."""
    from PySide6.QtCore import QSettings

    from workbench.gui.window_files import autosave_paths

    def clear() -> None:
        settings = QSettings("SlotWorkbench", "Slot Workbench")
        settings.clear()
        settings.sync()
        for path in autosave_paths():
            path.unlink(missing_ok=True)

    clear()
    yield
    clear()


@pytest.fixture
def window(qtbot):
    """Make a main window on an environment file, shown, with its first result in."""
    from workbench.gui.main_window import MainWindow

    def make(path: Path = DEFAULT):
        win = MainWindow(load_environment(path), path, quiet=True)
        qtbot.addWidget(win)
        win.show()
        win.run_now()
        qtbot.waitUntil(lambda: win.document.result is not None, timeout=30_000)
        return win

    return make
