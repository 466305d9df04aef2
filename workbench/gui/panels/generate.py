"""Generate dialog: a random environment from a paper preset, a seed and its main parameters."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.engine.errors import WorkbenchError
from workbench.engine.generate import PARAMETER_WORDS, PRESETS, generate
from workbench.engine.model import Environment
from workbench.gui import palette
from workbench.gui.numbers import number

GENERATE_WIDTH = 520


class GenerateDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Generate environment")
        self.preset = QComboBox()
        self.preset.addItems(list(PRESETS))
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.about = QLabel()
        self.about.setWordWrap(True)
        self.setMinimumWidth(GENERATE_WIDTH)  # the title and the set-up read whole
        self.form = QFormLayout()
        self.error = QLabel()
        self.error.setStyleSheet(palette.error_style())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
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
        layout.addWidget(buttons)
        self.fields: dict[str, QLineEdit] = {}
        self.result_env: Environment | None = None
        self.preset.currentTextChanged.connect(self._on_preset)
        self._on_preset(self.preset.currentText())

    def _on_preset(self, name: str) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.fields = {}
        preset = PRESETS[name]
        self.about.setText(preset.description)
        for key, value in preset.defaults.items():
            field = QLineEdit(number(value) if isinstance(value, float) else str(value))
            label, explanation = PARAMETER_WORDS.get(key, (key, ""))
            field.setToolTip(f"{explanation} ({key})" if explanation else key)
            caption = QLabel(label)
            caption.setToolTip(field.toolTip())
            self.fields[key] = field
            self.form.addRow(caption, field)

    def values(self) -> dict[str, Any]:
        return {key: field.text() for key, field in self.fields.items()}

    def build(self) -> Environment:
        preset = PRESETS[self.preset.currentText()]
        overrides = {}
        for key, text in self.values().items():
            kind = type(preset.defaults[key])
            try:
                overrides[key] = kind(float(text)) if kind is int else kind(text)
            except ValueError:
                raise WorkbenchError(f"{key}: expected a number, got {text!r}") from None
        return generate(self.preset.currentText(), self.seed.value(), **overrides)

    def _accept(self) -> None:
        try:
            self.result_env = self.build()
        except WorkbenchError as exc:
            self.error.setText(str(exc))
            return
        self.accept()
