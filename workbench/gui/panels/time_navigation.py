"""The Cycles panel's second row: moving through a run by time rather than one step at a time.

Go to a time (in View ▸ Time unit) or a step (``#120``); the selected job's previous or next event
(it arrived, started, ended); the next arrival, completion, or start of the job at the head of the
queue; and whether the chart follows "now". The panel (``CyclesPanel``) does the moving: it
computes the steps up to the target in a worker, with progress, and Reset cancels it.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLineEdit, QMenu, QToolButton, QWidget

from workbench.engine.timeline import JUMPS
from workbench.gui.numbers import TIME_UNITS


class GoToError(ValueError):
    """What the user typed in Go to is neither a time nor a step; the message says what is."""


def parse_go_to(text: str, unit: str) -> tuple[str, float]:
    """("step", n) for ``#n`` or ``step n``; ("time", t) for a number in ``unit`` (t in the
    document's own unit)."""
    words = text.strip().lower()
    if not words:
        raise GoToError("type a time, or a step as #120")
    if words.startswith("#") or words.startswith("step"):
        digits = words.lstrip("#").removeprefix("step").strip()
        if not digits.isdigit():
            raise GoToError(f"{text.strip()}: a step is a whole number, e.g. #120")
        return "step", float(int(digits))
    try:
        value = float(words.replace(",", ".").rstrip("smhd ").strip() or "x")
    except ValueError:
        raise GoToError(f"{text.strip()}: expected a time in {TIME_UNITS[unit][0]} or a step as #120") from None
    return "time", value * TIME_UNITS[unit][1]


class TimeNavigation(QWidget):
    """The controls; their requests go out as signals."""

    go_to = Signal(str, float)  # ("time", t) or ("step", n)
    job_event = Signal(bool)  # the selected job's next (True) or previous (False) event
    jump = Signal(str)  # a key of engine.timeline.JUMPS
    refused = Signal(str)  # what was typed cannot be gone to: why

    def __init__(self) -> None:
        super().__init__()
        self.unit = "model"
        self.target = QLineEdit()
        self.target.setPlaceholderText("Go to time or #step")
        self.target.setToolTip("A time in the unit shown (View ▸ Time unit), or a step: #120. Enter goes there.")
        self.target.setClearButtonEnabled(True)
        self.target.returnPressed.connect(self._go)
        self.previous_event = QToolButton()
        self.previous_event.setText("◀ Job")
        self.previous_event.setToolTip("The selected job's previous event (arrived, started, ended)")
        self.previous_event.clicked.connect(lambda: self.job_event.emit(False))
        self.next_event = QToolButton()
        self.next_event.setText("Job ▶")
        self.next_event.setToolTip("The selected job's next event (arrived, started, ended)")
        self.next_event.clicked.connect(lambda: self.job_event.emit(True))
        self.next_menu = QMenu(self)
        for key, text in JUMPS.items():
            action = self.next_menu.addAction(text[0].upper() + text[1:])
            action.setData(key)
            action.triggered.connect(lambda _=False, k=key: self.jump.emit(k))
        self.next_button = QToolButton()
        self.next_button.setText("Next ▸")
        self.next_button.setToolTip("Go to the next arrival, completion, or start of the blocked head")
        self.next_button.setMenu(self.next_menu)
        self.next_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.follow = QCheckBox("Follow now")
        self.follow.setChecked(True)
        self.follow.setToolTip("The chart keeps the step's time in view (zoom out to see more around it)")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.target, 1)
        for widget in (self.previous_event, self.next_event, self.next_button, self.follow):
            row.addWidget(widget)

    def _go(self) -> None:
        try:
            kind, value = parse_go_to(self.target.text(), self.unit)
        except GoToError as exc:
            self.refused.emit(str(exc))
            return
        self.go_to.emit(kind, value)
