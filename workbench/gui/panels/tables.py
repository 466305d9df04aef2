"""Editable tables of nodes, local tasks and jobs.

A table is a list of ``Column`` records over the document's environment. A cell
edit becomes one document edit; a value the edit refuses (out of range, an
overlap, not a number) never reaches the model: the cell keeps its old value
and the message appears at the cell.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QStyledItemDelegate,
    QTableView,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from workbench.engine.errors import ValidationError
from workbench.engine.model import Environment
from workbench.gui import palette
from workbench.gui.numbers import TIME_UNITS, full, in_unit, number, unit_suffix
from workbench.session.document import Document
from workbench.session.edits import Edit

Index = QModelIndex | QPersistentModelIndex
SIZE_SAMPLE_ROWS = 50


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
        """A column's title; a time column names the unit it is shown in (an editable one is edited,
        and so shown, in model units, read as seconds when another unit is chosen)."""
        column = self.columns[section]
        if not column.time or self.time_unit == "model":
            return column.header
        return column.header + (" (s)" if column.set is not None else unit_suffix(self.time_unit))

    def text(self, column: int, row: int) -> str:
        """A cell as the user reads it."""
        spec = self.columns[column]
        value = spec.get(self.document, row)
        if spec.time and spec.set is None and isinstance(value, int | float) and not isinstance(value, bool):
            value = in_unit(float(value), self.time_unit)
        return fmt(value)

    def set_time_unit(self, unit: str) -> None:
        if unit not in TIME_UNITS or unit == self.time_unit:
            return
        self.time_unit = unit
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(self.columns) - 1)
        self.refresh()

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        column = self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(index.column(), index.row())
        if role == Qt.ItemDataRole.EditRole:
            return full(column.get(self.document, index.row()))
        if role == Qt.ItemDataRole.ToolTipRole:
            text = self.text(index.column(), index.row())
            return text if len(text) > 18 else None
        if self.colour_rows and index.column() == 0:
            colour = palette.job_colour(self.document.env.jobs[index.row()].id)
            if role == Qt.ItemDataRole.BackgroundRole:
                return colour
            if role == Qt.ItemDataRole.ForegroundRole:
                return palette.text_colour_on(colour)
        if role == Qt.ItemDataRole.ForegroundRole and column.set is None:
            return palette.muted_text()
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        return base | Qt.ItemFlag.ItemIsEditable if self.columns[index.column()].set else base

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        column = self.columns[index.column()]
        if role != Qt.ItemDataRole.EditRole or column.set is None:
            return False
        if str(value) == full(column.get(self.document, index.row())):
            return False
        self._committing = True
        try:
            self.document.apply(column.set(self.document.env, index.row(), str(value)))
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


def sort_key(value: Any) -> tuple[int, Any]:
    """Numbers as numbers, text without case, blanks last."""
    if isinstance(value, bool):
        return (0, float(value))
    if isinstance(value, int | float):
        return (0, float(value))
    text = str(value)
    return (2, "") if text == "" else (1, text.lower())


class TableProxy(QSortFilterProxyModel):
    """Sorting and filtering of a table without Qt reading cells through Python per comparison:
    the sort keys of a column and the filter's verdicts are computed once per model generation."""

    def __init__(self, source: EnvTableModel) -> None:
        super().__init__()
        self.setSourceModel(source)
        self.source = source
        self.text = ""
        self.row_filter: Callable[[Document, int], bool] | None = None  # e.g. unplaced jobs only
        self._keys: tuple[int, int, list[tuple[int, Any]]] | None = None
        self._mask: tuple[int, list[bool]] | None = None

    def _column_keys(self, column: int) -> list[tuple[int, Any]]:
        m = self.source
        if self._keys is None or self._keys[:2] != (m.generation, column):
            get, doc = m.columns[column].get, m.document
            self._keys = (m.generation, column, [sort_key(get(doc, r)) for r in range(m.rowCount())])
        return self._keys[2]

    def lessThan(self, left: Index, right: Index) -> bool:
        keys = self._column_keys(left.column())
        return keys[left.row()] < keys[right.row()]

    def set_filter(self, text: str, row_filter: Callable[[Document, int], bool] | None = None) -> None:
        modern = hasattr(self, "beginFilterChange")  # Qt 6.9 on; invalidateFilter() is deprecated there
        if modern:
            self.beginFilterChange()
        self.text, self.row_filter = text.strip().lower(), row_filter
        self._mask = None
        if modern:
            self.endFilterChange()
        else:  # pragma: no cover - older Qt
            self.invalidateFilter()

    def _accepted(self) -> list[bool]:
        m = self.source
        if self._mask is None or self._mask[0] != m.generation:
            doc, rows = m.document, range(m.rowCount())
            keep = [True] * m.rowCount()
            if self.row_filter is not None:
                keep = [self.row_filter(doc, r) for r in rows]
            if self.text:
                columns = range(len(m.columns))
                keep = [keep[r] and any(self.text in m.text(c, r).lower() for c in columns) for r in rows]
            self._mask = (m.generation, keep)
        return self._mask[1]

    def filterAcceptsRow(self, row: int, parent: Index) -> bool:
        if not self.text and self.row_filter is None:
            return True
        mask = self._accepted()
        return row < len(mask) and mask[row]


class TableDock(QDockWidget):
    """A dock with an editable table, add/delete buttons and a message line."""

    def __init__(self, title: str, model: EnvTableModel, buttons: list[tuple[str, str, Callable[[], None]]]) -> None:
        super().__init__(title)
        self.setObjectName(title.lower().replace(" ", "_"))
        self.model = model
        self.proxy = TableProxy(model)
        self.view = QTableView()
        self.view.setModel(self.proxy)
        # Click a header to sort (numbers as numbers); "List order" goes back to the environment's order.
        self.view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.view.setSortingEnabled(True)
        # Fit columns to a sample of rows: reading every cell of a 10,000-job table stalls the window.
        # (A column's width is measured over the rows the *vertical* header's precision allows.)
        self.view.horizontalHeader().setResizeContentsPrecision(SIZE_SAMPLE_ROWS)
        self.view.verticalHeader().setResizeContentsPrecision(SIZE_SAMPLE_ROWS)
        self.view.setItemDelegate(ChoiceDelegate(model))
        self.view.verticalHeader().setVisible(False)
        self.view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet(palette.error_style())
        bar = QHBoxLayout()
        for text, tip, action in buttons:
            button = QPushButton(text)
            button.setToolTip(tip)
            button.clicked.connect(action)
            bar.addWidget(button)
        bar.addStretch(1)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter rows…")
        self.filter.setClearButtonEnabled(True)
        self.filter.setMaximumWidth(260)
        self.filter.textChanged.connect(lambda _: self.apply_filter())
        bar.addWidget(self.filter)
        self.only: QCheckBox | None = None
        self._only_filter: Callable[[Document, int], bool] | None = None
        unsort = QPushButton("List order")
        unsort.setToolTip("undo the sorting: rows in the environment's own order")
        unsort.clicked.connect(lambda: self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder))
        bar.addWidget(unsort)
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(bar)
        layout.addWidget(self.view)
        layout.addWidget(self.message)
        self.setWidget(box)
        model.refused.connect(self._on_refused)
        model.modelReset.connect(self._on_reset)
        model.dataChanged.connect(lambda *_: self.message.clear())  # a valid edit: the refusal no longer holds
        model.headerDataChanged.connect(lambda *_: self.request_fit())
        # Column widths follow the content (a new result, a new document, another time unit), measured
        # in a later turn of the event loop on SIZE_SAMPLE_ROWS rows, so numbers are never cut to "66…".
        self._fit_timer = QTimer(self)
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(0)
        self._fit_timer.timeout.connect(self.fit_columns)
        self._afresh = True

    def _on_reset(self) -> None:
        self.message.clear()  # the document changed: an earlier refusal no longer applies
        self.request_fit()

    def request_fit(self, afresh: bool = False) -> None:
        """Measure the columns again soon (several requests in one turn measure once). ``afresh``
        (a new document) may also narrow them; otherwise a column only widens, keeping the user's widths."""
        self._afresh = self._afresh or afresh
        self._fit_timer.start()

    def fit_columns(self) -> None:
        """Widen every column its sampled content (and its title) no longer fits."""
        self._fit_timer.stop()
        if self.model.rowCount() == 0:
            return  # nothing to measure yet: the first content measures afresh
        header = self.view.horizontalHeader()
        for c in range(self.model.columnCount()):
            if header.isSectionHidden(c):
                continue
            need = max(self.view.sizeHintForColumn(c), header.sectionSizeHint(c))
            if self._afresh or need > header.sectionSize(c):
                header.resizeSection(c, need)
        self._afresh = False

    def add_row_filter(self, text: str, keep: Callable[[Document, int], bool]) -> None:
        """A check box that shows only the rows ``keep`` accepts (e.g. unplaced jobs)."""
        self.only = QCheckBox(text)
        self._only_filter = keep
        self.only.toggled.connect(lambda _: self.apply_filter())
        layout = self.widget().layout()
        assert isinstance(layout, QVBoxLayout)
        bar = layout.itemAt(0).layout()
        bar.insertWidget(bar.count() - 2, self.only)

    def apply_filter(self) -> None:
        only = self._only_filter if self.only is not None and self.only.isChecked() else None
        self.proxy.set_filter(self.filter.text(), only)

    def select_source_row(self, row: int) -> None:
        """Select the row of the environment's list (wherever sorting or filtering put it)."""
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if index.isValid():
            self.view.selectRow(index.row())
            self.view.scrollTo(index)  # also while the dock is hidden behind another tab
        else:
            self.view.clearSelection()

    def _on_refused(self, row: int, column: int, message: str) -> None:
        self.message.setText(message)
        rect = self.view.visualRect(self.proxy.mapFromSource(self.model.index(row, column)))
        QToolTip.showText(self.view.viewport().mapToGlobal(rect.bottomLeft()), message, self.view)

    def selected_row(self) -> int | None:
        """The selected row in the environment's list (not the view's sorted position)."""
        selection = self.view.selectionModel()
        picked = selection.selectedRows() or selection.selectedIndexes()
        rows = {self.proxy.mapToSource(i).row() for i in picked}
        return min(rows) if rows else None
