"""File dialogs whose columns read whole.

Where the platform has no native file dialog (a bare X11 or Wayland session without a desktop's
portal), Qt shows its own at about 630 × 410 px, with the Size, Type and Date columns cut to
"29.…KiB" and "JSO…ent". These dialogs open at a size that holds them, and fit those columns to their
contents once a folder is read. A native dialog, where there is one, is used as before.
"""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QFileSystemModel, QTreeView, QWidget

DIALOG_SIZE = (900, 520)


def file_dialog(
    parent: QWidget | None, title: str, folder: str, filters: str, save: bool = False, name: str = ""
) -> QFileDialog:
    """A dialog to open an existing file (or, with ``save``, to name one to write, ``name`` offered
    first), not yet shown."""
    dialog = QFileDialog(parent, title, folder, filters)
    if name:
        dialog.selectFile(name)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave if save else QFileDialog.AcceptMode.AcceptOpen)
    dialog.setFileMode(QFileDialog.FileMode.AnyFile if save else QFileDialog.FileMode.ExistingFile)
    dialog.resize(*DIALOG_SIZE)
    view = dialog.findChild(QTreeView)
    model = dialog.findChild(QFileSystemModel)
    if view is not None and model is not None:  # Qt's own dialog
        model.directoryLoaded.connect(lambda _folder: fit_columns(view))
    return dialog


def fit_columns(view: QTreeView) -> None:
    """Size, type and date as wide as their contents (the name keeps the rest)."""
    for column in range(1, view.header().count()):
        view.resizeColumnToContents(column)


def ask_file(parent: QWidget | None, title: str, folder: str, filters: str, save: bool = False, name: str = "") -> str:
    """The path the user chose, or "" if they cancelled."""
    dialog = file_dialog(parent, title, folder, filters, save, name)
    chosen = dialog.selectedFiles() if dialog.exec() else []
    return chosen[0] if chosen else ""


TITLE_ROOM = 1.25  # a window manager's title font is often larger than the application's
TITLE_BUTTONS = 140  # pixels for the title bar's icon and its close, maximise and minimise buttons


def room_for_title(dialog: QWidget) -> None:
    """Make ``dialog`` at least wide enough for its title to read whole ("Import SWF tra…" was cut)."""
    from PySide6.QtGui import QFontMetricsF

    need = QFontMetricsF(dialog.font()).horizontalAdvance(dialog.windowTitle()) * TITLE_ROOM + TITLE_BUTTONS
    dialog.setMinimumWidth(max(dialog.minimumWidth(), round(need)))
