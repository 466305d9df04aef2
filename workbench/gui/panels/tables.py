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

import numpy as np
from PySide6.QtCore import (
    QAbstractProxyModel,
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
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
    QStyleOptionViewItem,
    QTableView,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from workbench.engine.errors import ValidationError
from workbench.engine.model import Environment
from workbench.gui import palette
from workbench.gui.numbers import TIME_UNITS, full, in_unit, number, unit_suffix
from workbench.gui.workers import BackgroundCall
from workbench.session.document import Document
from workbench.session.edits import Edit

Index = QModelIndex | QPersistentModelIndex
SIZE_SAMPLE_ROWS = 50
FILTER_IN_WORKER_CELLS = 100_000  # cells of a table above which its first filter reads in a worker
MEASURED_CELLS = 3  # of a column's sampled texts, the longest few are measured (proportional fonts)
CELL_PADDING = 1  # what QTableView adds to a cell's size hint for the grid line


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
        return fmt(self._shown(spec, value))

    def _shown(self, spec: Column, value: Any) -> Any:
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
            return full(float(text) * scale)
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
            return full(self._shown(column, column.get(self.document, row)))
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
        if str(value) == full(self._shown(column, column.get(self.document, index.row()))):
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


DIGITS = "0123456789"


def sort_key(value: Any) -> tuple[Any, ...]:
    """Numbers as numbers, then text without case with a trailing number read as a number ("job 9"
    before "job 10", "9999" before "28490"), blanks last."""
    if isinstance(value, bool):
        return (0, float(value))
    if isinstance(value, int | float):
        return (0, float(value))
    text = str(value).lower()
    if text == "":
        return (2, "")
    stem = text.rstrip(DIGITS)
    return (1, stem, _trailing_number(text, stem), text)


def _trailing_number(text: str, stem: str) -> float:
    """The number that ends ``text`` after ``stem`` (-1 for none)."""
    return float(text[len(stem) :]) if len(stem) < len(text) else -1.0


def sort_ranks(values: list[Any]) -> np.ndarray:
    """Each value's dense rank in ``sort_key`` order (numbers as numbers, then text without case and
    with a trailing number read as a number, then blanks), as one integer array: a sort is then one
    numpy argsort, not a Python comparison per pair of rows."""
    n = len(values)
    kind = np.full(n, 2, dtype=np.int8)
    numbers = np.zeros(n, dtype=np.float64)
    texts: list[str] = []
    text_rows: list[int] = []
    for r, value in enumerate(values):
        if isinstance(value, int | float):  # bool is an int
            kind[r] = 0
            numbers[r] = float(value)
        else:
            text = str(value)
            if text != "":
                kind[r] = 1
                texts.append(text.lower())
                text_rows.append(r)
    rank = np.empty(n, dtype=np.int64)
    numeric = kind == 0
    distinct, inverse = np.unique(numbers[numeric], return_inverse=True)
    rank[numeric] = inverse.reshape(-1)
    offset = len(distinct)
    if texts:
        words, inverse = np.unique(np.array(texts, dtype=str), return_inverse=True)
        # In ``sort_key``'s order: by the text before a trailing number, that number, the text.
        stems = np.char.rstrip(words, DIGITS)
        trailing = np.array([_trailing_number(w, t) for w, t in zip(words.tolist(), stems.tolist(), strict=True)])
        _, stem_rank = np.unique(stems, return_inverse=True)
        place = np.empty(len(words), dtype=np.int64)
        place[np.lexsort((np.arange(len(words)), trailing, stem_rank.reshape(-1)))] = np.arange(len(words))
        rank[np.array(text_rows, dtype=np.int64)] = place[inverse.reshape(-1)] + offset
        offset += len(words)
    rank[kind == 2] = offset
    return rank


def distinct_texts(values: list[Any], show: Callable[[Any], str]) -> tuple[list[str], np.ndarray]:
    """``show`` of each distinct value, and per value the index of its text: a column of one type
    is deduplicated by numpy, any other value by value and type."""
    kinds = set(map(type, values))
    if len(kinds) == 1 and kinds <= {int, float, str}:
        kind = kinds.pop()
        try:
            distinct, found = np.unique(np.array(values, dtype=np.int64 if kind is int else kind), return_inverse=True)
        except (OverflowError, ValueError):  # an integer beyond 64 bits: the general way
            pass
        else:
            return [show(kind(v)) for v in distinct.tolist()], found.reshape(-1).astype(np.int64)
    which: dict[tuple[type, Any], int] = {}
    shown: list[str] = []
    inverse = np.empty(len(values), dtype=np.int64)
    for r, value in enumerate(values):
        key = (type(value), value)
        i = which.get(key)
        if i is None:
            which[key] = i = len(shown)
            shown.append(show(value))
        inverse[r] = i
    return shown, inverse


class TableProxy(QAbstractProxyModel):
    """Sorting and filtering of a table as numpy work on columns, not Python per row or per pair:
    the proxy shows the source rows ``rows`` (a numpy permutation of the kept rows). A column's sort
    ranks, each column's distinct texts and the row filter's verdicts are computed once per model generation;
    a sort is one stable argsort of the ranks, a filter one vectorised substring match."""

    def __init__(self, source: EnvTableModel) -> None:
        super().__init__()
        self.source = source
        self.text = ""
        self.row_filter: Callable[[Document, int], bool] | None = None  # e.g. unplaced jobs only
        self.sort_column = -1
        self.sort_order = Qt.SortOrder.AscendingOrder
        self._ranks: dict[int, np.ndarray] = {}
        self._texts: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._only: np.ndarray | None = None
        self._generation = -1
        self.rows = np.zeros(0, dtype=np.int64)  # proxy row -> source row
        self._where = np.zeros(0, dtype=np.int64)  # source row -> proxy row, or -1 (filtered out)
        self.setSourceModel(source)
        source.modelAboutToBeReset.connect(self.beginResetModel)
        source.modelReset.connect(self._on_source_reset)
        source.dataChanged.connect(self._on_data_changed)
        source.headerDataChanged.connect(self.headerDataChanged)
        for signal in (source.rowsInserted, source.rowsRemoved, source.rowsMoved, source.layoutChanged):
            signal.connect(self._rebuild)
        self._recompute()

    # ---------------------------------------------------------------- per generation
    def _fresh(self) -> None:
        if self._generation != self.source.generation:
            self._generation = self.source.generation
            self._ranks, self._texts, self._only = {}, {}, None

    def _column_values(self, column: int) -> list[Any]:
        m = self.source
        get, doc = m.columns[column].get, m.document
        return [get(doc, r) for r in range(m.rowCount())]

    def ranks(self, column: int) -> np.ndarray:
        self._fresh()
        if column not in self._ranks:
            self._ranks[column] = sort_ranks(self._column_values(column))
        return self._ranks[column]

    def _column_texts(self, column: int) -> tuple[np.ndarray, np.ndarray]:
        """A column's distinct cells as the user reads them (lower case) and, per row, which one it
        shows: a filter matches the few distinct texts, then maps the verdicts to the rows."""
        self._fresh()
        if column not in self._texts:
            self._texts[column] = self._read_texts(column)
        return self._texts[column]

    def _read_texts(self, column: int) -> tuple[np.ndarray, np.ndarray]:
        m = self.source
        spec = m.columns[column]
        shown, inverse = distinct_texts(self._column_values(column), lambda v: m.text_of(spec, v).lower())
        return np.array(shown or [""], dtype=str), inverse

    def texts_ready(self) -> bool:
        """Has every column's text been read for the model as it is now?"""
        self._fresh()
        return len(self._texts) == self.source.columnCount()

    def read_all_texts(self) -> tuple[int, dict[int, tuple[np.ndarray, np.ndarray]]]:
        """Every column's texts not yet read, for the current model generation: pure reading of the
        immutable document, so a worker thread may do it (``install_texts`` takes the answer)."""
        generation = self.source.generation
        done = set(self._texts) if self._generation == generation else set()
        return generation, {c: self._read_texts(c) for c in range(self.source.columnCount()) if c not in done}

    def install_texts(self, generation: int, texts: dict[int, tuple[np.ndarray, np.ndarray]]) -> None:
        """Keep what ``read_all_texts`` read, unless the model has changed since."""
        self._fresh()
        if generation == self._generation:
            for column, value in texts.items():
                self._texts.setdefault(column, value)

    def _kept(self) -> np.ndarray:
        n = self.source.rowCount()
        keep = np.ones(n, dtype=bool)
        if self.row_filter is not None:
            self._fresh()
            if self._only is None:
                doc = self.source.document
                self._only = np.fromiter((bool(self.row_filter(doc, r)) for r in range(n)), dtype=bool, count=n)
            keep &= self._only
        if self.text and n:
            found = np.zeros(n, dtype=bool)
            for c in range(self.source.columnCount()):
                shown, inverse = self._column_texts(c)
                found |= (np.char.find(shown, self.text) >= 0)[inverse]
            keep &= found
        return keep

    def _recompute(self) -> None:
        n = self.source.rowCount()
        if 0 <= self.sort_column < self.source.columnCount() and n:
            rank = self.ranks(self.sort_column)
            order = np.argsort(rank if self.sort_order == Qt.SortOrder.AscendingOrder else -rank, kind="stable")
        else:
            order = np.arange(n, dtype=np.int64)
        if self.text or self.row_filter is not None:
            order = order[self._kept()[order]]
        self.rows = order.astype(np.int64, copy=False)
        self._where = np.full(n, -1, dtype=np.int64)
        self._where[self.rows] = np.arange(len(self.rows), dtype=np.int64)

    def _relayout(self) -> None:
        """Recompute the rows shown, keeping the selection and the current cell on their source rows."""
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        sources = [(self.mapToSource(i).row(), i.column()) for i in old]
        self._recompute()
        new = [
            self.index(int(self._where[r]), c) if 0 <= r < len(self._where) and self._where[r] >= 0 else QModelIndex()
            for r, c in sources
        ]
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()

    # ---------------------------------------------------------------- source signals
    def _on_source_reset(self) -> None:
        self._recompute()
        self.endResetModel()

    def _rebuild(self, *_args: object) -> None:
        self.beginResetModel()
        self._recompute()
        self.endResetModel()

    def _on_data_changed(self, top_left: QModelIndex, bottom_right: QModelIndex, roles: Any = ()) -> None:
        if self.sort_column >= 0 or self.text or self.row_filter is not None:
            self._relayout()  # the edited value may move the row or hide it
        for r in range(top_left.row(), bottom_right.row() + 1):
            row = int(self._where[r]) if r < len(self._where) else -1
            if row >= 0:
                self.dataChanged.emit(self.index(row, top_left.column()), self.index(row, bottom_right.column()))

    # ---------------------------------------------------------------- sorting and filtering
    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.sort_column, self.sort_order = column, order
        self._relayout()

    def set_filter(self, text: str, row_filter: Callable[[Document, int], bool] | None = None) -> None:
        text = text.strip().lower()
        if row_filter is not self.row_filter:
            self._only = None
        self.text, self.row_filter = text, row_filter
        self._relayout()

    # ---------------------------------------------------------------- the proxy's mapping
    def mapToSource(self, proxy_index: Index) -> QModelIndex:
        if not proxy_index.isValid() or not 0 <= proxy_index.row() < len(self.rows):
            return QModelIndex()
        return self.source.index(int(self.rows[proxy_index.row()]), proxy_index.column())

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # Straight to the source's cell: the base class would call back into Python for mapToSource
        # and again for the source's data, and a repaint asks for thousands of cells.
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        return self.source.cell(int(self.rows[index.row()]), index.column(), role)

    def multiData(self, index: Index, span: Any) -> None:
        """Every role a cell's painting asks for, in one call back into Python (Qt's default asks
        ``data`` once per role: six to eight calls a cell, each waiting for the GIL while a run
        computes)."""
        valid = index.isValid() and 0 <= index.row() < len(self.rows)
        row, col = (int(self.rows[index.row()]), index.column()) if valid else (-1, -1)
        for item in span:
            value = self.source.cell(row, col, item.role()) if valid else None
            if value is None:
                item.clearData()
            else:
                item.setData(value)

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return self.source.column_flags(index.column())

    def mapFromSource(self, source_index: Index) -> QModelIndex:
        if not source_index.isValid() or not 0 <= source_index.row() < len(self._where):
            return QModelIndex()
        row = int(self._where[source_index.row()])
        return self.index(row, source_index.column()) if row >= 0 else QModelIndex()

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if parent.isValid() or not (0 <= row < len(self.rows) and 0 <= column < self.source.columnCount()):
            return QModelIndex()
        return self.createIndex(row, column)

    def parent(self, child: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        return QModelIndex()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self.source.columnCount()

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and len(self.rows) > 0

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal:
            return self.source.headerData(section, orientation, role)
        return section + 1 if role == Qt.ItemDataRole.DisplayRole else None


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
        self.reading = BackgroundCall()  # the texts of a large table, read for its first filter
        self.reading.finished.connect(self._texts_read)
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
        """Widen every column its sampled content (and its title) no longer fits.

        The sample is the rows on screen and the first SIZE_SAMPLE_ROWS; of each column's texts
        there, the delegate measures only the longest few (Qt's own ``sizeHintForColumn`` measures
        every sampled cell: 80 ms a refresh at 10,000 jobs, on every Cycles step)."""
        self._fit_timer.stop()
        rows = self.proxy.rowCount()
        if rows == 0:
            return  # nothing to measure yet: the first content measures afresh
        header = self.view.horizontalHeader()
        top = max(self.view.rowAt(0), 0)
        bottom = self.view.rowAt(self.view.viewport().height() - 1)
        bottom = rows - 1 if bottom < 0 else bottom
        sample = sorted({*range(min(rows, SIZE_SAMPLE_ROWS)), *range(top, bottom + 1)})
        option = QStyleOptionViewItem()
        self.view.initViewItemOption(option)
        delegate = self.view.itemDelegate()
        for c in range(self.model.columnCount()):
            if header.isSectionHidden(c):
                continue
            indexes = [self.proxy.index(r, c) for r in sample]
            lengths = [len(str(i.data(Qt.ItemDataRole.DisplayRole) or "")) for i in indexes]
            longest = sorted(range(len(indexes)), key=lengths.__getitem__)[-MEASURED_CELLS:]
            content = max((delegate.sizeHint(option, indexes[i]).width() for i in longest), default=0)
            need = max(content + CELL_PADDING, header.sectionSizeHint(c))
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
        """Filter by the text and the check box. The first text filter of a large table (every cell
        read once: 0.3 s at 28,000 jobs, again after each new result) reads in a worker and
        applies when done; the typing goes on meanwhile."""
        only = self._only_filter if self.only is not None and self.only.isChecked() else None
        text = self.filter.text()
        cells = self.model.rowCount() * self.model.columnCount()
        if text.strip() and cells > FILTER_IN_WORKER_CELLS and not self.proxy.texts_ready():
            if not self.reading.busy:
                # A note, not a refusal: in the muted text colour, not the message line's red.
                self.message.setText(
                    f"<span style='color:{palette.muted_text().name()}'>Filtering: reading every cell once…</span>"
                )
                self.reading.start(lambda token: self.proxy.read_all_texts())
            return
        self.proxy.set_filter(text, only)

    @property
    def filtering(self) -> bool:
        """Is a filter waiting for the table's texts?"""
        return self.reading.busy

    def _texts_read(self, _ticket: int, answer: object, error: str | None) -> None:
        self.message.clear()
        if error is not None or not isinstance(answer, tuple):
            self.message.setText(f"Filtering failed: {error}")
            return
        self.proxy.install_texts(*answer)
        self.apply_filter()  # with the texts in (or reading again, if the table changed meanwhile)

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
