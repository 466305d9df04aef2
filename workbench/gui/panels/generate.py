"""Generate dialog: a random environment from a paper preset, a seed and its main parameters, or a
Lublin–Feitelson workload on one machine or a grid (the CLI's ``generate lublin``). The environment
is made in a worker: a large workload takes seconds, and Cancel leaves at once."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.engine.errors import WorkbenchError
from workbench.engine.generate import PARAMETER_WORDS, PRESETS, generate
from workbench.engine.grid.configs import CONFIGS, lublin_environment
from workbench.engine.model import Environment
from workbench.gui import palette
from workbench.gui.file_dialogs import room_for_title
from workbench.gui.numbers import number
from workbench.gui.workers import BackgroundCall

GENERATE_WIDTH = 520
LUBLIN = "lublin"
LUBLIN_ABOUT = (
    "Lublin–Feitelson (2003) workload model: jobs that arrive over time with their sizes and runtimes, "
    "in seconds, on one machine of identical nodes or on a grid of machines (seed 004 Table 1: "
    + ", ".join(CONFIGS)
    + "; or sizes such as 256,64,64)."
)
# (field, default, tooltip): as `workbench generate lublin`'s options
LUBLIN_FIELDS = (
    ("jobs", "10000", "number of jobs (--jobs)"),
    ("nodes", "512", "one machine of this many identical nodes (--nodes); leave empty with a grid"),
    ("grid", "", "a grid of seed 004 Table 1 (m64-18 … m512-1) or machine sizes like 256,64,64 (--grid)"),
    ("modification", "", "with a grid: split wide jobs by seed 004's modification 1, 2 or 3 (--modification)"),
)


class GenerateDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Generate environment")
        room_for_title(self)
        self.preset = QComboBox()
        self.preset.addItems([*PRESETS, LUBLIN])
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.about = QLabel()
        self.about.setWordWrap(True)
        self.setMinimumWidth(max(self.minimumWidth(), GENERATE_WIDTH))  # the set-up reads whole
        self.form = QFormLayout()
        self.error = QLabel()
        self.error.setStyleSheet(palette.error_style())
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # the model gives no fraction done: a busy bar while it works
        self.busy.setFormat("generating…")
        self.busy.hide()
        self.maker = BackgroundCall()
        self.maker.finished.connect(self._made)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        top = QFormLayout()
        top.addRow("preset", self.preset)
        top.addRow("seed", self.seed)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.about)
        layout.addLayout(self.form)
        layout.addWidget(self.error)
        layout.addWidget(self.busy)
        layout.addWidget(buttons)
        self.fields: dict[str, QLineEdit] = {}
        self.typeless = QCheckBox("one job class (the model's whole-sample fit)")
        self.result_env: Environment | None = None
        self.left_out: list[str] = []
        self.preset.currentTextChanged.connect(self._on_preset)
        self._on_preset(self.preset.currentText())

    def _on_preset(self, name: str) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)  # (deletes the check box too: made again below)
        self.fields = {}
        self.typeless = QCheckBox("one job class (the model's whole-sample fit)")
        if name == LUBLIN:
            self.about.setText(LUBLIN_ABOUT)
            for key, value, tip in LUBLIN_FIELDS:
                self._add_field(key, value, key, tip)
            self.typeless.setToolTip("every job from the whole-sample parameters (--typeless)")
            self.form.addRow("", self.typeless)
            return
        preset = PRESETS[name]
        self.about.setText(preset.description)
        for key, value in preset.defaults.items():
            label, explanation = PARAMETER_WORDS.get(key, (key, ""))
            self._add_field(key, number(value) if isinstance(value, float) else str(value), label, explanation)

    def _add_field(self, key: str, value: str, label: str, explanation: str) -> None:
        field = QLineEdit(value)
        field.setToolTip(f"{explanation} ({key})" if explanation else key)
        caption = QLabel(label)
        caption.setToolTip(field.toolTip())
        self.fields[key] = field
        self.form.addRow(caption, field)

    def values(self) -> dict[str, Any]:
        return {key: field.text() for key, field in self.fields.items()}

    def maker_call(self) -> Any:
        """The call that makes the environment, its fields read and checked here (a field that is
        not a number is named before any work starts): it returns (environment, jobs left out)."""
        seed, name = self.seed.value(), self.preset.currentText()
        if name == LUBLIN:
            jobs, nodes, grid, modification = (self.fields[k].text().strip() for k, _, _ in LUBLIN_FIELDS)
            count = _whole(jobs, "jobs")
            machines = None if grid or not nodes else _whole(nodes, "nodes")
            split = _whole(modification, "modification") if modification else None
            typed = not self.typeless.isChecked()
            return lambda: lublin_environment(count, seed, machines, grid or None, split, typed)
        preset = PRESETS[name]
        overrides = {}
        for key, text in self.values().items():
            kind = type(preset.defaults[key])
            try:
                overrides[key] = kind(float(text)) if kind is int else kind(text)
            except ValueError:
                raise WorkbenchError(f"{key}: expected a number, got {text!r}") from None
        return lambda: (generate(name, seed, **overrides), [])

    def build(self) -> Environment:
        """The environment, made here and now (tests; the dialog makes it in a worker)."""
        env, self.left_out = self.maker_call()()
        return env  # type: ignore[no-any-return]

    def _accept(self) -> None:
        self.error.setText("")
        try:
            make = self.maker_call()
        except WorkbenchError as exc:
            self.error.setText(str(exc))
            return
        self.ok.setEnabled(False)
        self.busy.show()
        self.maker.start(lambda token: make())

    def _made(self, _ticket: int, answer: object, error: str | None) -> None:
        self.busy.hide()
        self.ok.setEnabled(True)
        if error is not None or not isinstance(answer, tuple):
            self.error.setText(error or "no environment was made")
            return
        self.result_env, self.left_out = answer
        self.accept()

    def reject(self) -> None:
        self.maker.stop()  # a workload still being made is dropped
        super().reject()


def _whole(text: str, field: str) -> int:
    try:
        value = float(text)
    except ValueError:
        raise WorkbenchError(f"{field}: expected a whole number, got {text!r}") from None
    if not value.is_integer():
        raise WorkbenchError(f"{field}: expected a whole number, got {text!r}")
    return int(value)
