"""Sorting and filtering of a table as numpy work on its columns (``TableProxy``)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from fnmatch import fnmatchcase
from typing import Any

import numpy as np
from PySide6.QtCore import QAbstractProxyModel, QModelIndex, Qt

from workbench.gui.panels.table_filter import Term, parse_filter
from workbench.gui.panels.table_model import EnvTableModel, Index
from workbench.session.document import Document

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
    ranks, each column's distinct texts and numbers and the row filter's verdicts are computed once
    per model generation; a sort is one stable argsort of the ranks, a filter term one vectorised
    match (``table_filter``)."""

    def __init__(self, source: EnvTableModel) -> None:
        super().__init__()
        self.source = source
        self.terms: list[Term] = []
        self.row_filter: Callable[[Document, int], bool] | None = None  # e.g. unplaced jobs only
        self.sort_column = -1
        self.sort_order = Qt.SortOrder.AscendingOrder
        self._ranks: dict[int, np.ndarray] = {}
        self._texts: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._nums: dict[int, np.ndarray] = {}
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
            self._ranks, self._texts, self._nums, self._only = {}, {}, {}, None

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

    def _numbers(self, column: int) -> np.ndarray:
        """A column's numbers as the table shows them (a time in View ▸ Time unit); NaN where a
        cell holds no number."""
        self._fresh()
        if column not in self._nums:
            m = self.source
            spec = m.columns[column]
            shown = (m.shown_value(spec, v) for v in self._column_values(column))
            self._nums[column] = np.fromiter(
                (float(v) if isinstance(v, int | float) and not isinstance(v, bool) else math.nan for v in shown),
                dtype=np.float64,
                count=m.rowCount(),
            )
        return self._nums[column]

    def _is_id(self, column: int) -> bool:
        header = self.source.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
        return str(header).strip().lower() == "id"

    def _matches(self, term: Term, n: int) -> np.ndarray:
        """The rows one filter term keeps (before its negation)."""
        if term.op == "has":
            columns = range(self.source.columnCount()) if term.column is None else [term.column]
            found = np.zeros(n, dtype=bool)
            for c in columns:
                shown, inverse = self._column_texts(c)
                found |= (np.char.find(shown, term.text) >= 0)[inverse]
            return found
        assert term.column is not None
        if term.op == "is":
            shown, inverse = self._column_texts(term.column)
            if any(ch in term.text for ch in "*?["):
                hit = np.fromiter((fnmatchcase(t, term.text) for t in shown.tolist()), dtype=bool, count=len(shown))
            else:
                hit = shown == term.text
            if term.text.isdigit() and self._is_id(term.column):
                # "id:5" finds job j5 (the chart and Why here? call it "job 5"), never j15.
                pattern = re.compile(rf"\D*0*{int(term.text)}")
                hit |= np.fromiter((bool(pattern.fullmatch(t)) for t in shown.tolist()), dtype=bool, count=len(shown))
            return hit[inverse]
        x = self._numbers(term.column)
        above = x > term.low if term.low_open else x >= term.low
        below = x < term.high if term.high_open else x <= term.high
        return above & below  # NaN (no number) compares False: such a cell is never in a range

    def _kept(self) -> np.ndarray:
        n = self.source.rowCount()
        keep = np.ones(n, dtype=bool)
        if self.row_filter is not None:
            self._fresh()
            if self._only is None:
                doc = self.source.document
                self._only = np.fromiter((bool(self.row_filter(doc, r)) for r in range(n)), dtype=bool, count=n)
            keep &= self._only
        for term in self.terms if n else ():
            hit = self._matches(term, n)
            keep &= ~hit if term.negate else hit
        return keep

    def _recompute(self) -> None:
        n = self.source.rowCount()
        if 0 <= self.sort_column < self.source.columnCount() and n:
            rank = self.ranks(self.sort_column)
            order = np.argsort(rank if self.sort_order == Qt.SortOrder.AscendingOrder else -rank, kind="stable")
        else:
            order = np.arange(n, dtype=np.int64)
        if self.terms or self.row_filter is not None:
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
        if self.sort_column >= 0 or self.terms or self.row_filter is not None:
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
        """Show the rows that every term of ``text`` keeps (``table_filter``) and ``row_filter``
        accepts. A term that cannot be read raises ``FilterError`` and changes nothing."""
        headers = [self.source.header(c) for c in range(self.source.columnCount())]
        terms = parse_filter(text, headers)
        if row_filter is not self.row_filter:
            self._only = None
        self.terms, self.row_filter = terms, row_filter
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

