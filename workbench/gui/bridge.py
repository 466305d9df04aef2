"""The Qt adapter of the document and its view state: their plain-callback events as Qt signals."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from workbench.session.document import Document
from workbench.session.state import ViewState


class DocumentBridge(QObject):
    environment_changed = Signal(object)  # Environment
    result_changed = Signal(object, object)  # Schedule | None, error | None
    path_changed = Signal(object, bool)  # Path | None, modified
    replaced = Signal(object)  # Environment: another document (new, opened, imported), before environment_changed
    selection_changed = Signal(object)  # job id | None
    status_changed = Signal(str)  # fresh, running, stale, failed (session/state.py)

    def __init__(self, document: Document, state: ViewState | None = None) -> None:
        super().__init__()
        self.document = document
        self.state = state or ViewState(document)
        document.events.environment.connect(self.environment_changed.emit)
        document.events.result.connect(self.result_changed.emit)
        document.events.path.connect(self.path_changed.emit)
        document.events.replaced.connect(self.replaced.emit)
        self.state.selection_changed.connect(self.selection_changed.emit)
        self.state.status_changed.connect(self.status_changed.emit)
