"""Strategy panel: family, name, a parameter form built from the registry schema, Run, Auto-run."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.engine import registry
from workbench.engine.errors import ValidationError
from workbench.engine.params import Param
from workbench.gui import palette
from workbench.gui.panels import scrolling
from workbench.session import edits
from workbench.session.document import Document

FAMILIES = ("selector", "flow", "grid")


class StrategyPanel(QWidget):
    run_requested = Signal()

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document
        self.family = QComboBox()
        self.family.addItems(FAMILIES)
        self.name = QComboBox()
        self.help = QLabel()
        self.help.setWordWrap(True)
        self.form = QFormLayout()
        scroll = scrolling(self.form)
        self.run = QPushButton("Run  (F5)")
        self.run.clicked.connect(self.run_requested.emit)
        self.auto = QCheckBox("Auto-run after every edit")
        self.auto.setChecked(True)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(palette.error_style())
        self.error.setAlignment(Qt.AlignmentFlag.AlignLeft)
        self.error.hide()
        # Compact, for a small screen: the labels beside their lists, Run beside Auto-run. The
        # parameters scroll, and the panel does not take the height the window gains (the tabs
        # below it do: Metrics, Cycles and Why here? hold tables and plots).
        layout = QVBoxLayout(self)
        choice = QFormLayout()
        choice.addRow("Family", self.family)
        choice.addRow("Strategy", self.name)
        layout.addLayout(choice)
        layout.addWidget(self.help)
        scroll.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        layout.addWidget(scroll)  # (a stretch factor would make the panel take the height too)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run)
        buttons.addWidget(self.auto, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.error)
        self._fields: dict[str, QWidget] = {}
        self._error_key: str | None = None  # the parameter whose error the panel shows
        self.family.currentTextChanged.connect(self._on_family_changed)
        self.name.currentTextChanged.connect(self._on_name_changed)
        # The panel follows the document itself (docs/style.md point 5): an edit, undo or open shows its strategy.
        follow = self._on_environment_changed
        document.events.environment.connect(follow)
        self.destroyed.connect(lambda *_: document.events.environment.disconnect(follow))
        self._on_environment_changed()

    # ------------------------------------------------------------ document -> widgets

    def _on_environment_changed(self, *_: Any) -> None:
        ref = self.document.env.strategy
        info = registry.get(ref.name)
        for widget in (self.family, self.name):
            widget.blockSignals(True)
        self.family.setCurrentText(info.family)
        self._fill_names(info.family)
        self.name.setCurrentText(info.name)
        for widget in (self.family, self.name):
            widget.blockSignals(False)
        self.help.setText(info.description)
        shown = (info.name, ref.params)
        if shown != getattr(self, "_shown", None):  # rebuilding the form is slow: only when it changed
            self._shown = shown
            self._build_form(info.params, info.resolve(ref.params_dict()))

    def refresh(self) -> None:
        """Show the registry as it is now (a plug-in added strategies, or a reload changed them)."""
        self._shown = None
        self._on_environment_changed()

    def _fill_names(self, family: str) -> None:
        self.name.clear()
        self.name.addItems([i.name for i in registry.strategies() if i.family == family])

    def _build_form(self, params: tuple[Param, ...], values: dict[str, Any]) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self._fields = {}
        for param in params:
            widget = self._field(param, values[param.name])
            widget.setToolTip(param.help)
            self._fields[param.name] = widget
            self.form.addRow(param.name, widget)

    def _field(self, param: Param, value: Any) -> QWidget:
        if param.kind is bool:
            box = QCheckBox()
            box.setChecked(bool(value))
            box.toggled.connect(lambda checked, p=param: self._set(p.name, checked))
            return box
        if param.choices is not None:
            combo = QComboBox()
            combo.addItems(list(param.choices))
            combo.setCurrentText(str(value))
            combo.currentTextChanged.connect(lambda text, p=param: self._set(p.name, text))
            return combo
        if param.kind is int:
            spin = QSpinBox()
            spin.setRange(int(param.minimum) if param.minimum is not None else -1_000_000, 1_000_000)
            spin.setValue(int(value))
            spin.editingFinished.connect(lambda p=param, s=spin: self._set(p.name, s.value()))
            return spin
        line = QLineEdit(f"{value:g}" if isinstance(value, float) else str(value))
        line.editingFinished.connect(lambda p=param, e=line: self._set(p.name, e.text()))
        return line

    # ------------------------------------------------------------ widgets -> document

    def _on_family_changed(self, family: str) -> None:
        self.name.blockSignals(True)
        self._fill_names(family)
        self.name.blockSignals(False)
        self._on_name_changed(self.name.currentText())

    def _on_name_changed(self, name: str) -> None:
        if name and name != self.document.env.strategy.name:
            self.document.apply(edits.set_strategy(name, {}))

    def _set(self, key: str, value: Any) -> None:
        ref = self.document.env.strategy
        params = ref.params_dict()
        info = registry.get(ref.name)
        default = next(p.default for p in info.params if p.name == key)
        try:
            typed = next(p for p in info.params if p.name == key).coerce(value)
        except Exception as exc:
            self._field_error(key, str(exc))
            return
        if self._error_key == key:  # the field is right again (perhaps the value it had)
            self._field_error(None, "")
        if typed == params.get(key, default):
            return
        params[key] = typed
        try:
            self.document.apply(edits.set_strategy(ref.name, params))
        except ValidationError as exc:
            self._field_error(key, f"{exc.path}: {exc.message}")

    def _field_error(self, key: str | None, message: str) -> None:
        """Show a parameter's error (none: clear it), kept until that parameter is right again."""
        self._error_key = key
        self._say(message)

    def show_error(self, message: str | None) -> None:
        self._error_key = None
        self._say(message)

    def _say(self, message: str | None) -> None:
        """The error line, hidden when there is none (it took a line's height from the parameters)."""
        self.error.setText(f"⚠ {message}" if message else "")
        self.error.setVisible(bool(message))
