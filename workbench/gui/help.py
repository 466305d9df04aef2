"""Help ▸ About and Help ▸ Keyboard shortcuts, and the application icon.

The shortcut list is read from the window's own menus when it is opened, so it
can never disagree with what the keys do.
"""

from __future__ import annotations

from importlib.resources import files

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QMenu,
    QMenuBar,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

import workbench

ICON = "slot-workbench.svg"
DESKTOP_ENTRY = "slot-workbench.desktop"

# Gestures on the chart that are not menu actions.
CHART_GESTURES = [
    ("Chart", "Zoom time", "Mouse wheel"),
    ("Chart", "Zoom node rows", "Ctrl+wheel"),
    ("Chart", "Pan", "Drag on empty space"),
    ("Chart", "Move a local task / resize it", "Drag it / drag its edge"),
    ("Chart", "Add a local task", "Double-click a free slot"),
    ("Chart", "Select a job (highlights all its parts)", "Click a window"),
    ("Chart", "Pan time (further)", "Left / Right (with Shift)"),
    ("Chart", "Zoom time in / out", "+ / -"),
    ("Chart", "Scroll node rows (a page)", "Up / Down (Page Up / Page Down)"),
    ("Chart", "Fit everything", "Home"),
]


def resource(name: str) -> str:
    """The path of a file in ``resources/`` (shipped as the package ``workbench.resources``)."""
    return str(files("workbench.resources") / name)


def app_icon() -> QIcon:
    icon = QIcon(resource(ICON))
    icon.addFile(resource("slot-workbench.png"))
    return icon


PAPERS = [
    "Toporkov, Yemelyanov et al.: slot selection and co-allocation, square-window search",
    "Toporkov, Yemelyanov: backfilling with heuristic criteria, CoP and PAST",
    "Toporkov et al.: cyclic scheduling, AEP criteria, batch-slicer and BSF",
    "Toporkov et al.: forming batches of jobs, in Russian",
    "Franke, Schwiegelshohn, Yahyapour: job scheduling for computational grids",
]


def about_text() -> str:
    papers = "".join(f"<li>{p}</li>" for p in PAPERS)
    return (
        f"<h3>Slot Workbench {workbench.__version__}</h3>"
        "<p>An interactive Gantt-chart workbench for resource co-allocation in distributed computing: "
        "nodes of different performance and price, owners' local tasks, and parallel jobs placed into "
        "windows of n slots with the same start and length, within each job's budget.</p>"
        f"<p>The strategies follow these papers:</p><ul>{papers}</ul>"
        "<p>MIT licence. Built with PySide6 (Qt), pyqtgraph and NumPy.</p>"
    )


def show_about(parent: QWidget) -> QMessageBox:
    box = QMessageBox(parent)
    box.setWindowTitle("About Slot Workbench")
    box.setIconPixmap(app_icon().pixmap(96, 96))
    box.setText(about_text())
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.open()
    return box


def shortcut_rows(menubar: QMenuBar) -> list[tuple[str, str, str]]:
    """(menu, action, keys) of every menu action that has a shortcut, then the chart's gestures."""
    rows: list[tuple[str, str, str]] = []

    def walk(menu: QMenu, path: str) -> None:
        for action in menu.actions():
            sub = action.menu()
            if isinstance(sub, QMenu):
                walk(sub, f"{path} ▸ {_plain(action.text())}")
                continue
            keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts() if not _dedicated(k)]
            keys = [k for k in keys if k]
            if keys:
                rows.append((path, _plain(action.text()), ", ".join(keys)))

    for top in menubar.actions():
        menu = top.menu()
        if isinstance(menu, QMenu):
            walk(menu, _plain(top.text()))
    return rows + CHART_GESTURES


# Keys of their own on some keyboards, which Qt's standard shortcuts include ("Redo" beside
# Ctrl+Shift+Z): named in the list, they read like a word, not a key.
DEDICATED_KEYS = {
    Qt.Key.Key_Undo,
    Qt.Key.Key_Redo,
    Qt.Key.Key_Copy,
    Qt.Key.Key_Cut,
    Qt.Key.Key_Paste,
    Qt.Key.Key_Open,
    Qt.Key.Key_Save,
    Qt.Key.Key_Find,
    Qt.Key.Key_Close,
    Qt.Key.Key_New,
    Qt.Key.Key_Print,
    Qt.Key.Key_Refresh,
    Qt.Key.Key_ZoomIn,
    Qt.Key.Key_ZoomOut,
    Qt.Key.Key_Back,
    Qt.Key.Key_Forward,
}


def _dedicated(keys: QKeySequence) -> bool:
    """A lone key of its own (Redo, Copy, …), with no modifier."""
    if keys.count() != 1:
        return False
    combination = keys[0]
    return combination.keyboardModifiers() == Qt.KeyboardModifier.NoModifier and combination.key() in DEDICATED_KEYS


def _plain(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…").strip()


class ShortcutsDialog(QDialog):
    def __init__(self, menubar: QMenuBar, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        rows = shortcut_rows(menubar)
        self.table = QTableWidget(len(rows), 3, self)
        self.table.setHorizontalHeaderLabels(["Where", "What", "Keys"])
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Every menu command with a key, and the mouse gestures of the chart:"))
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(620, 520)


def help_actions(window: QWidget, menubar: QMenuBar) -> list[QAction]:
    about = QAction("&About Slot Workbench", window)
    about.setMenuRole(QAction.MenuRole.AboutRole)
    about.triggered.connect(lambda: show_about(window))
    keys = QAction("&Keyboard shortcuts", window)
    keys.setShortcut(QKeySequence("Ctrl+/"))
    keys.triggered.connect(lambda: ShortcutsDialog(menubar, window).open())
    return [keys, about]
