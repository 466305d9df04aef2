"""The table of an environment's rows (nodes, local tasks or jobs) as Qt reads it.

A table is a list of ``Column`` records over the document's environment. A cell
edit becomes one document edit; a value the edit refuses (out of range, an
overlap, not a number) never reaches the model: the cell keeps its old value
and the message appears at the cell. Time columns show, and take, View ▸ Time unit.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import QComboBox, QStyledItemDelegate, QWidget

from workbench.engine.errors import ValidationError
from workbench.engine.model import Environment
from workbench.gui import palette
from workbench.gui.numbers import TIME_UNITS, full, in_unit, number, unit_suffix
from workbench.session.document import Document
from workbench.session.edits import Edit

Index = QModelIndex | QPersistentModelIndex



def fmt(value: float) -> str:
    return number(value)


def parse_float(text: str, field: str, allow_inf: bool = False) -> float:
    cleaned = text.strip().replace(",", ".")
    if allow_inf and cleaned.lower() in ("", "inf", "∞", "infinity", "none"):
        return math.inf
    try:
        value = float(cleaned)
    except ValueError:
        raise ValidationError(field, f"expected a number, got {text!r}") from None
    if math.isnan(value) or (math.isinf(value) and not allow_inf):
        raise ValidationError(field, "expected a finite number")
    return value


def parse_int(text: str, field: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ValidationError(field, f"expected a whole number, got {text!r}") from None


def parse_attributes(text: str) -> tuple[tuple[str, float], ...]:
    pairs = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise ValidationError("attributes", f"expected name=number, got {part!r}")
        pairs.append((key.strip(), parse_float(value, f"attributes.{key.strip()}")))
    return tuple(pairs)


@dataclass(frozen=True)
class Column:
    header: str
    get: Callable[[Document, int], Any]
    set: Callable[[Environment, int, str], Edit] | None = None
    choices: Callable[[Environment], list[str]] | None = None
    tip: str = ""
    time: bool = False  # a time or a duration: shown in View ▸ Time unit (an editable one names its unit)


class EnvTableModel(QAbstractTableModel):
    """Rows of the document's environment; edits go through the document."""

    refused = Signal(int, int, str)

    def __init__(self, document: Document, count: Callable[[Environment], int], columns: list[Column]) -> None:
        super().__init__()
        self.document = document
        self.count = count
        self.columns = columns
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        # Each painted cell asks for its flags: made once, not with Python enum arithmetic per cell.
        self._flags = [base | Qt.ItemFlag.ItemIsEditable if c.set else base for c in columns]
        self.colour_rows = False
        self.time_unit = "model"  # View ▸ Time unit
        self.generation = 0  # bumped at every reset: sort keys and filter masks are per generation
        self.modelAboutToBeReset.connect(self._bump)

    def _bump(self) -> None:
        self.generation += 1

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self.count(self.document.env)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal:
            if role == Qt.ItemDataRole.DisplayRole:
                return self.header(section)
            if role == Qt.ItemDataRole.ToolTipRole:
                return self.columns[section].tip or None
        return None

    def header(self, section: int) -> str:
        """A column's title; a time column names the unit it is shown, and edited, in."""
        column = self.columns[section]
        return column.header + unit_suffix(self.time_unit) if column.time else column.header

    def text(self, column: int, row: int) -> str:
        """A cell as the user reads it."""
        spec = self.columns[column]
        return self.text_of(spec, spec.get(self.document, row))

    def text_of(self, spec: Column, value: Any) -> str:
        """A column's value as the user reads it."""
        return fmt(self.shown_value(spec, value))

    def shown_value(self, spec: Column, value: Any) -> Any:
        """A time column's value in View ▸ Time unit; any other value as it is."""
        if spec.time and isinstance(value, int | float) and not isinstance(value, bool):
            return in_unit(float(value), self.time_unit)
        return value

    def _entered(self, spec: Column, text: str) -> str:
        """What the user typed into a time column, back in the document's own unit (text that is no
        number goes on as typed, for the column's own check to name)."""
        scale = TIME_UNITS[self.time_unit][1]
        if not spec.time or scale == 1.0:
            return text
        try:
            return full(float(text.strip().replace(",", ".")) * scale)
        except ValueError:
            return text

    def set_time_unit(self, unit: str) -> None:
        if unit not in TIME_UNITS or unit == self.time_unit:
            return
        self.time_unit = unit
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(self.columns) - 1)
        self.refresh()

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        return self.cell(index.row(), index.column(), role)

    def cell(self, row: int, col: int, role: int) -> Any:
        """What ``data`` gives for the cell (row, col): the proxy asks here directly."""
        column = self.columns[col]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(col, row)
        if role == Qt.ItemDataRole.EditRole:
            return full(self.shown_value(column, column.get(self.document, row)))
        if role == Qt.ItemDataRole.ToolTipRole:
            text = self.text(col, row)
            return text if len(text) > 18 else None
        if self.colour_rows and col == 0:
            colour = palette.job_colour(self.document.env.jobs[row].id)
            if role == Qt.ItemDataRole.BackgroundRole:
                return colour
            if role == Qt.ItemDataRole.ForegroundRole:
                return palette.text_colour_on(colour)
        if role == Qt.ItemDataRole.ForegroundRole and column.set is None:
            return palette.muted_text()
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        return self.column_flags(index.column())

    def column_flags(self, col: int) -> Qt.ItemFlag:
        return self._flags[col]

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        column = self.columns[index.column()]
        if role != Qt.ItemDataRole.EditRole or column.set is None:
            return False
        if str(value) == full(self.shown_value(column, column.get(self.document, index.row()))):
            return False
        self._committing = True
        try:
            self.document.apply(column.set(self.document.env, index.row(), self._entered(column, str(value))))
        except ValidationError as exc:
            self.refused.emit(index.row(), index.column(), f"{column.header}: {exc.message}")
            return False
        finally:
            self._committing = False
        self.generation += 1  # the sort keys and filter verdicts of the old values are void
        self.dataChanged.emit(index, index)
        return True

    def refresh(self) -> None:
        """Show the document anew. During a cell's own commit the reset waits for the next turn of
        the event loop: resetting under the view's open editor makes Qt warn ("commitData called
        with an editor that does not belong to this view") and can drop a Tab to the next cell."""
        if getattr(self, "_committing", False):
            if not getattr(self, "_refresh_pending", False):
                self._refresh_pending = True
                QTimer.singleShot(0, self._deferred_refresh)
            return
        self.beginResetModel()
        self.endResetModel()

    def _deferred_refresh(self) -> None:
        self._refresh_pending = False
        self.refresh()


class ChoiceDelegate(QStyledItemDelegate):
    """A combo box for columns with a fixed set of values."""

    def __init__(self, model: EnvTableModel) -> None:
        super().__init__()
        self.model = model

    def createEditor(self, parent: QWidget, option: Any, index: Index) -> QWidget:
        column = self.model.columns[index.column()]
        if column.choices is None:
            return super().createEditor(parent, option, index)
        combo = QComboBox(parent)
        combo.addItems(column.choices(self.model.document.env))
        return combo

    def setEditorData(self, editor: QWidget, index: Index) -> None:
        if isinstance(editor, QComboBox):
            editor.setCurrentText(str(index.data()))
        else:
            super().setEditorData(editor, index)

    def setModelData(self, editor: QWidget, model: Any, index: Index) -> None:
        if isinstance(editor, QComboBox):
            model.setData(index, editor.currentText())
        else:
            super().setModelData(editor, model, index)

