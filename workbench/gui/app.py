"""Start the GUI, or render it to a PNG headlessly (``--screenshot``)."""

from __future__ import annotations

import sys
from pathlib import Path

from workbench.engine import registry
from workbench.engine.errors import WorkbenchError
from workbench.engine.io.envfile import load_environment


def run_app(env_path: Path, strategy: str | None = None, screenshot: str | None = None) -> int:
    """Open the main window on ``env_path``; with ``screenshot``, save the window and exit.

    In screenshot mode every error is one line on stderr and exit code 2: no dialog
    ever waits for a click.
    """
    from PySide6.QtWidgets import QApplication

    from workbench.gui.main_window import MainWindow

    try:
        env = load_environment(env_path)
        if strategy:
            registry.get(strategy)
    except WorkbenchError as exc:
        if screenshot:
            print(f"workbench: error: {exc}", file=sys.stderr)
            return 2
        raise
    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("Slot Workbench")
    window = MainWindow(env, env_path)
    if strategy:
        window.strategy_combo.setCurrentText(registry.get(strategy).name)
    window.run_strategy()
    window.show()
    if screenshot:
        app.processEvents()
        window.chart.fit()
        app.processEvents()
        if not window.grab().save(screenshot):
            print(f"workbench: error: {screenshot}: cannot write the PNG", file=sys.stderr)
            return 2
        window.close()
        return 0
    return app.exec()
