"""The Qt adapter of the document: its plain-callback events as Qt signals."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from workbench.session.document import Document


class DocumentBridge(QObject):
    environment_changed = Signal(object)  # Environment
    result_changed = Signal(object, object)  # Schedule | None, error | None
    path_changed = Signal(object, bool)  # Path | None, modified

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document
        document.events.environment.connect(self.environment_changed.emit)
        document.events.result.connect(self.result_changed.emit)
        document.events.path.connect(self.path_changed.emit)
