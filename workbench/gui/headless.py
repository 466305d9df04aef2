"""Qt for scripts: painting figures with no window and, where there is no display, no screen."""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QCoreApplication


def ensure_gui_application() -> QCoreApplication:
    """The running Qt application, or a new QGuiApplication (offscreen when no display is set)."""
    app = QCoreApplication.instance()
    if app is not None:
        return app
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    return QGuiApplication([sys.argv[0] if sys.argv else "workbench"])
