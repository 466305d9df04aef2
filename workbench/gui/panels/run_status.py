"""The status bar's view of the live run: what ran, progress, and a Cancel button.

A run that is still going after half a second shows a progress bar and Cancel
(Esc); the chart keeps the last result until the new one arrives, and the label
says so while the result on screen is not the current environment's (the view
state's status, ``session/state.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

from workbench.gui.bridge import DocumentBridge
from workbench.gui.workers import LiveRunner
from workbench.session.state import RUNNING, STALE

SHOW_AFTER_MS = 500


class RunStatus(QWidget):
    """``pictured()``: is some of the previous result really on the chart? Only then does the line
    say that the chart shows it (an edit may leave none of its windows standing)."""

    def __init__(self, runner: LiveRunner, bridge: DocumentBridge, pictured: Callable[[], bool] = lambda: True) -> None:
        super().__init__()
        self.pictured = pictured
        self.runner = runner
        self.document = bridge.document
        self.state = bridge.state
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setFixedWidth(160)
        self.bar.setTextVisible(True)
        self.cancel = QToolButton()
        self.cancel.setText("Cancel")
        self.cancel.setToolTip("Stop this run (Esc); the chart keeps the last result")
        self.cancel.clicked.connect(runner.stop)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.label, self.bar, self.cancel):
            layout.addWidget(widget)
        # As tall with the progress bar hidden as shown: otherwise the status bar grew by a few pixels
        # at every run's start and shrank at its end, and so did the chart above it, which then
        # redrew every rectangle twice (a KTH-sized result: 40–80 ms each).
        self.setMinimumHeight(max(widget.sizeHint().height() for widget in (self.label, self.bar, self.cancel)))
        self.reveal = QTimer(self)
        self.reveal.setSingleShot(True)
        self.reveal.setInterval(SHOW_AFTER_MS)
        self.reveal.timeout.connect(self._show_progress)
        runner.started.connect(self._on_run_started)
        runner.progress.connect(self._on_progress_changed)
        runner.stopped.connect(self._on_run_stopped)
        bridge.status_changed.connect(self._on_status_changed)
        self._result = ""  # the live result's summary
        self._step: str | None = None  # what Cycles mode shows instead
        self._hide_progress()

    def text(self) -> str:
        return self.label.text()

    def name(self) -> str:
        return self.document.env.strategy.name

    def _on_status_changed(self, status: str) -> None:
        previous = " — the chart shows the previous result" if self.state.stale and self.pictured() else ""
        if status == RUNNING:
            self.label.setText(f"running {self.name()}…{previous}")
        elif status == STALE and previous:
            self.label.setText(f"{self.name()}: not run since the last change{previous}; Run (F5)")
        elif status == STALE:
            self.label.setText(f"{self.name()}: not run yet; Run (F5)")

    def _on_run_started(self) -> None:
        self.bar.setRange(0, 0)  # busy until the first report
        self.reveal.start()

    def refresh(self) -> None:
        """Say again what the status is (the chart's picture may have changed under it)."""
        self._on_status_changed(self.state.status)

    def _on_progress_changed(self, done: int, total: int) -> None:
        if total > 0:
            self.bar.setFormat("%p%")
            self.bar.setRange(0, total)
            self.bar.setValue(min(done, total))

    def show_compiling(self, done: int, total: int) -> None:
        """A machine's first run compiles its kernels first (tens of seconds): the bar counts them
        ("kernel 2 of 7") rather than sitting at 0 % of the run."""
        if total <= 0 or done >= total:
            self.bar.setFormat("%p%")
            self.bar.setRange(0, 0)  # the run itself reports next
            return
        self.bar.setFormat("kernel %v of %m")
        self.bar.setRange(0, total)
        self.bar.setValue(done + 1)

    def _show_progress(self) -> None:
        if self.runner.busy:
            self.bar.show()
            self.cancel.show()

    def _hide_progress(self) -> None:
        self.reveal.stop()
        self.bar.hide()
        self.cancel.hide()

    def _on_run_stopped(self) -> None:
        self._hide_progress()
        if self.state.shown is not None and self.pictured():
            self.label.setText(f"{self.name()}: cancelled — the chart shows the previous result")
        else:
            self.label.setText(f"{self.name()}: cancelled — no result yet; Run (F5) to start again")

    def show_result(self, text: str) -> None:
        self._hide_progress()
        self._result = text
        if self._step is None:
            self.label.setText(text)

    def show_step(self, text: str | None) -> None:
        """Cycles mode: say which step the chart shows (the live result's summary would mislead);
        None: back to the live result."""
        self._step = text
        self.label.setText(self._result if text is None else text)
