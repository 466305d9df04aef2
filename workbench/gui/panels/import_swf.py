"""Import SWF dialog: a trace of the Parallel Workloads Archive (or a Batsim workload) as an
environment, with every option of ``workbench import-swf`` and a preview of what it gives (jobs,
time span, offered load).

The trace is read once when the dialog opens; the preview follows every change of the options,
and the jobs kept are chosen by the engine's one selection (``trace.select_jobs``). The machine
size defaults to the trace's own (SWF's ``MaxNodes``, else ``MaxProcs``; Batsim's ``nb_res``).
"""

from __future__ import annotations

import dataclasses
import os

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.engine.errors import WorkbenchError
from workbench.engine.grid.configs import CONFIGS, MODIFICATIONS, grid_environment, machine_sizes
from workbench.engine.io.imports import import_trace
from workbench.engine.io.trace import Selection, TraceImport, select_jobs
from workbench.engine.model import Environment
from workbench.gui import palette
from workbench.gui.file_dialogs import room_for_title
from workbench.gui.numbers import number

DEFAULT_NODES = 128  # when the header names no machine size
ONE_MACHINE = "one machine"


class ImportSwfDialog(QDialog):
    """The options of ``workbench import-swf``; ``result_env`` and ``left_out`` after OK."""

    def __init__(self, path: str | os.PathLike[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = os.fspath(path)
        self.setWindowTitle(f"Import SWF trace: {os.path.basename(self.path)}")
        room_for_title(self)
        self._imports: dict[tuple[int, tuple[int, int] | None, int], TraceImport] = {}
        header = self._own_machine()
        self.nodes = QSpinBox()
        self.nodes.setRange(1, 100_000)
        self.nodes.setValue(header or DEFAULT_NODES)
        self.nodes.setToolTip("nodes of the machine" + (f" (the trace's header says {header})" if header else ""))
        self.first = QSpinBox()
        self.first.setRange(0, 1_000_000)
        self.first.setSpecialValueText("all")
        self.first.setToolTip("import only the first N jobs of the trace (all: 0)")
        self.start, self.end = QDoubleSpinBox(), QDoubleSpinBox()
        for box, special, words in ((self.start, "start", "at or after"), (self.end, "end", "before")):
            box.setRange(-1.0, 1e12)
            box.setDecimals(0)
            box.setValue(-1.0)
            box.setSpecialValueText(special)  # -1: no bound
            box.setToolTip(f"import only the jobs submitted {words} this time (trace seconds)")
        self.skip_status = QCheckBox("leave out jobs that failed or were cancelled")
        self.skip_status.setToolTip("the SWF status (field 11) 0 or 5")
        self.mixed = QCheckBox("nodes of different performance")
        self.low, self.high = QSpinBox(), QSpinBox()
        for box, value in ((self.low, 1), (self.high, 4)):
            box.setRange(1, 1_000_000)
            box.setValue(value)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setValue(1)
        self.mixed.setToolTip("each node's performance drawn from LO..HI (its price equal to it), with the seed")
        self.grid = QComboBox()
        self.grid.addItems([ONE_MACHINE, *CONFIGS])
        self.grid.setToolTip("map the trace onto a grid of several machines (Franke, Schwiegelshohn & Yahyapour)")
        self.modification = QComboBox()
        self.modification.addItems(["none", *(str(m) for m in MODIFICATIONS)])
        self.modification.setToolTip("how jobs wider than a machine are changed for the grid")
        self.compress = QDoubleSpinBox()
        self.compress.setRange(0.01, 1000.0)
        self.compress.setValue(1.0)
        self.compress.setToolTip("divide every arrival time by F: the offered load rises F-fold")
        self.preview = QLabel()
        self.preview.setWordWrap(True)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(palette.error_style())
        form = QFormLayout()
        form.addRow("nodes", self.nodes)
        form.addRow("submitted from", self.start)
        form.addRow("submitted before", self.end)
        form.addRow(self.skip_status)
        form.addRow("first jobs", self.first)
        form.addRow(self.mixed)
        form.addRow("performance from", self.low)
        form.addRow("performance to", self.high)
        form.addRow("seed", self.seed)
        form.addRow("grid", self.grid)
        form.addRow("modification", self.modification)
        form.addRow("arrivals ÷", self.compress)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.preview)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.result_env: Environment | None = None
        self.left_out: list[str] = []
        self._read: TraceImport | None = None
        try:
            self._read = self._imported(self.nodes.value(), None, 0)
        except WorkbenchError as exc:
            self.error.setText(str(exc))
        for box in (self.nodes, self.first, self.low, self.high, self.seed):
            box.valueChanged.connect(self.update_preview)
        for spin in (self.compress, self.start, self.end):
            spin.valueChanged.connect(self.update_preview)
        self.mixed.toggled.connect(self.update_preview)
        self.skip_status.toggled.connect(self.update_preview)
        self.grid.currentTextChanged.connect(self.update_preview)
        self.modification.currentTextChanged.connect(self.update_preview)
        self.update_preview()

    def build(self) -> tuple[Environment, list[str]]:
        """The environment these options give, and the trace lines or jobs left out."""
        on_grid = self.grid.currentText() != ONE_MACHINE
        mixed = self.mixed.isChecked() and not on_grid
        nodes = sum(machine_sizes(self.grid.currentText())) if on_grid else self.nodes.value()
        performance = (self.low.value(), self.high.value()) if mixed else None
        result = select_jobs(self._imported(nodes, performance, self.seed.value() if mixed else 0), self.selection())
        env, left_out = result.env, list(result.skipped)
        if on_grid:
            modification = None if self.modification.currentText() == "none" else int(self.modification.currentText())
            env, skipped = grid_environment(env, self.grid.currentText(), modification, self.compress.value())
            left_out += skipped
        elif self.compress.value() != 1.0:
            factor = self.compress.value()
            env = dataclasses.replace(
                env,
                jobs=tuple(dataclasses.replace(j, arrival=j.arrival / factor) for j in env.jobs),
                time=dataclasses.replace(env.time, start=env.time.start / factor),
            )
        return env, left_out

    def selection(self) -> Selection:
        """The jobs to keep, as ``import-swf``'s --first, --from, --to and --skip-status."""
        start, end = self.start.value(), self.end.value()
        return Selection(
            first=self.first.value() or None,
            start=None if start < 0 else start,
            end=None if end < 0 else end,
            skip_status=self.skip_status.isChecked(),
        )

    def _own_machine(self) -> int | None:
        """The machine size the trace names (its reading kept), or None when it names none or cannot be read."""
        try:
            read = import_trace(self.path)
        except WorkbenchError:
            return None  # reading it again on the default machine shows why, if it is the file
        self._imports[(len(read.nodes), None, 0)] = read
        return len(read.nodes)

    def _imported(self, nodes: int, performance: tuple[int, int] | None, seed: int) -> TraceImport:
        """The trace read for a machine of ``nodes`` (and a performance mix), each reading kept: the
        options that do not change it (the selection, grid modification, compression) reuse it."""
        key = (nodes, performance, seed)
        if key not in self._imports:
            self._imports[key] = import_trace(self.path, nodes, performance=performance, seed=seed)
        return self._imports[key]

    def update_preview(self) -> None:
        on_grid = self.grid.currentText() != ONE_MACHINE
        for box in (self.low, self.high, self.seed):
            box.setEnabled(self.mixed.isChecked() and not on_grid)
        self.mixed.setEnabled(not on_grid)
        self.nodes.setEnabled(not on_grid)
        self.modification.setEnabled(on_grid)
        if self._read is None:
            self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)
            return
        try:
            env, left_out = self.build()
        except WorkbenchError as exc:
            self.error.setText(str(exc))
            self.preview.setText("")
            self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)
            return
        self.error.setText("")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(bool(env.jobs))
        self.preview.setText(preview_text(env, len(left_out)))

    def _accept(self) -> None:
        try:
            self.result_env, self.left_out = self.build()
        except WorkbenchError as exc:
            self.error.setText(str(exc))
            return
        self.accept()


def preview_text(env: Environment, left_out: int) -> str:
    """'2,000 jobs arriving over 12.5 days on 100 nodes; offered load 0.71; 3 left out'."""
    jobs = env.jobs
    if not jobs:
        return f"no jobs; {left_out} left out"
    first = min(j.arrival for j in jobs)
    span = max(j.arrival for j in jobs) - first
    fastest = max(n.performance for n in env.nodes)
    work = sum(j.node_count * j.volume for j in jobs) / fastest
    capacity = len(env.nodes) * span
    load = f"offered load {number(work / capacity, 2)}" if capacity > 0 else "all arriving at once"
    days = span / 86_400
    when = f"{number(days, 1)} days" if days >= 1 else f"{number(span / 3600, 1)} hours"
    return f"{len(jobs):,} jobs arriving over {when} on {len(env.nodes):,} nodes; {load}; {left_out} left out"
