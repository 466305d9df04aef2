"""Qt panels of the workbench window; small layout helpers they share."""

from PySide6.QtWidgets import QLayout, QScrollArea, QWidget


def scrolling(layout: QLayout) -> QScrollArea:
    """``layout`` in a scroll area that resizes its content to the available width."""
    content = QWidget()
    content.setLayout(layout)
    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setWidget(content)
    return scroll
