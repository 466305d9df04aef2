"""Run ▸ Study…: run one of the lab's studies in the background, then show its report's figures.

The study runs through ``workbench.lab.run_study`` (a process pool, so the
window's own process stays light) from a worker thread, with progress and
Cancel; a cancelled study keeps what finished, and Start again resumes it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.file_dialogs import room_for_title
from workbench.gui.panels import scrolling
from workbench.gui.workers import BackgroundCall
from workbench.lab.catalogue import all_studies


class StudyDialog(QDialog):
    progressed = Signal(int, int)  # runs recorded, runs planned (from the worker thread)
    reporting = Signal(int, int)  # figures drawn, of how many (the report after the runs)

    def __init__(self, parent: QWidget | None = None, folder: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Run a study")
        room_for_title(self)
        self.resize(1000, 760)
        self.studies = {s.name: s for s in all_studies()}
        self.study = QComboBox()
        for name, study in self.studies.items():
            self.study.addItem(f"{name}: {study.title}", name)
        self.study.currentIndexChanged.connect(lambda _: self._on_study())
        self.reps = QSpinBox()
        self.reps.setRange(1, 100_000)
        self.workers = QSpinBox()
        self.workers.setRange(1, max(1, os.cpu_count() or 1) * 4)
        self.workers.setValue(os.cpu_count() or 1)
        self.folder = QLineEdit()
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        self.base = folder or Path.cwd() / "lab-runs"
        where = QHBoxLayout()
        where.addWidget(self.folder, 1)
        where.addWidget(browse)
        form = QFormLayout()
        form.addRow("Study", self.study)
        form.addRow("Repetitions (seeds)", self.reps)
        form.addRow("Worker processes", self.workers)
        form.addRow("Run folder", where)
        self.setup = QLabel()
        self.setup.setWordWrap(True)
        self.start_button = QPushButton("Start")
        self.start_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.open_button = QPushButton("Open report")
        self.open_button.clicked.connect(self._open_report)
        self.progress = QProgressBar()
        self.status = QLabel("")
        self.status.setWordWrap(True)
        buttons = QHBoxLayout()
        for button in (self.start_button, self.cancel_button, self.open_button):
            buttons.addWidget(button)
        buttons.addWidget(self.progress, 1)
        self.figures = QVBoxLayout()
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.setup)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(scrolling(self.figures), 1)
        self.call = BackgroundCall()
        self.call.finished.connect(self._on_finished)
        self.progressed.connect(self._on_progress)
        self.reporting.connect(self._on_reporting)
        self.report: Path | None = None
        self._show_running(False)
        self._on_study()

    @property
    def running(self) -> bool:
        return self.call.busy

    def _on_study(self) -> None:
        study = self.studies[self.study.currentData()]
        self.reps.setValue(study.reps)
        self.folder.setText(str(self.base / study.name))
        self.setup.setText(f"<b>{study.source}</b><br>{study.setup}")

    def _browse(self) -> None:
        name = QFileDialog.getExistingDirectory(self, "Run folder", self.folder.text())
        if name:
            self.folder.setText(name)

    def _show_running(self, running: bool) -> None:
        self.start_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.open_button.setEnabled(not running and self.report is not None)
        self.progress.setVisible(running)

    def start(self) -> None:
        from workbench.lab.report import write_report
        from workbench.lab.runner import run_study

        name, reps, workers = self.study.currentData(), self.reps.value(), self.workers.value()
        folder = Path(self.folder.text()).expanduser()
        self.status.setText(f"Running {name}…")
        self.progress.setRange(0, 0)
        self._show_running(True)

        def work(stop: Any) -> tuple[Any, Path | None]:
            result = run_study(name, reps, workers, None, folder, None, progress=self.progressed.emit, should_stop=stop)
            if result.stopped:
                return result, None
            return result, write_report(folder, progress=self.reporting.emit)

        self.call.start(work)

    def cancel(self) -> None:
        """Stop after the runs under way; what finished is kept, and Start resumes."""
        self.status.setText("Stopping after the runs under way…")
        self.cancel_button.setEnabled(False)
        self.call.stop()
        self._show_running(False)
        self.status.setText("Cancelled. What finished is kept in the run folder; Start resumes it.")

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setFormat("runs: %p%")
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)

    def _on_reporting(self, done: int, total: int) -> None:
        """The runs are done; the report's figures take seconds more: say so, and count them (the
        bar sat at 100 % beside "Running…" for 12 s)."""
        if self.call.busy:
            self.status.setText(f"Writing the report: figure {min(done + 1, total)} of {total}…")
            self.progress.setFormat("report: %v of %m")
            self.progress.setRange(0, total)
            self.progress.setValue(done)

    def _on_finished(self, ticket: int, result: Any, error: Any) -> None:
        if ticket != self.call.ticket:
            return
        self._show_running(False)
        if error is not None:
            self.status.setText(f"Cannot run the study: {error}")
            return
        run, report = result
        failed = f", {run.failed} failed" if run.failed else ""
        self.report = report
        self.status.setText(f"{run.recorded} of {run.planned} runs in {run.folder}{failed}. Report: {report}")
        self._show_running(False)
        self._show_figures(Path(run.folder))

    def _show_figures(self, folder: Path) -> None:
        while self.figures.count():
            item = self.figures.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        for png in sorted(folder.glob("*.png")):
            label = FittedImage(QPixmap(str(png)))
            label.setToolTip(png.name)
            self.figures.addWidget(label)

    def _open_report(self) -> None:
        if self.report is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.report.with_suffix(".html"))))


class FittedImage(QLabel):
    """A report figure scaled down to the width it is given (never up), so a wide one is seen whole."""

    def __init__(self, pixmap: QPixmap) -> None:
        super().__init__()
        self.original = pixmap
        self.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.setMinimumWidth(1)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._fit(pixmap.width())

    def _fit(self, width: int) -> None:
        shown = self.original
        if width > 0 and shown.width() > width:
            shown = shown.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
        self.setPixmap(shown)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.pixmap().width() != min(self.original.width(), event.size().width()):
            self._fit(event.size().width())
