"""Editable tables of nodes, local tasks and jobs: the dock around a table (its buttons, filter,
match count and message line). The model is ``table_model``, the sorting and filtering proxy
``table_proxy``.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QStyleOptionViewItem,
    QTableView,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from workbench.gui import palette
from workbench.gui.panels.table_filter import FilterError
from workbench.gui.panels.table_model import ChoiceDelegate, EnvTableModel
from workbench.gui.panels.table_proxy import TableProxy
from workbench.gui.workers import BackgroundCall
from workbench.session.document import Document

SIZE_SAMPLE_ROWS = 50
FILTER_IN_WORKER_CELLS = 100_000  # cells of a table above which its first filter reads in a worker
MEASURED_CELLS = 3  # of a column's sampled texts, the longest few are measured (proportional fonts)
CELL_PADDING = 1  # what QTableView adds to a cell's size hint for the grid line
MAX_COLUMN_WIDTH = 420  # pixels a column widens to for its content at most


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
        self.filter.setToolTip(
            "Words found in any cell; column:value for a whole cell (* and ? as wildcards);\n"
            "column:>5, <=, or 10..20 for numbers (a time in the unit shown); -term for the rows it does not keep.\n"
            "E.g. id:2906, user:7 status:*budget*, arrival:1..2, -status:placed"
        )
        self.filter.textChanged.connect(lambda _: self.apply_filter())
        self.count = QLabel("")  # "12 of 28,490" while a filter is on
        self.count.setToolTip("rows shown of the table's rows")
        self.reading = BackgroundCall()  # the texts of a large table, read for its first filter
        self.reading.finished.connect(self._texts_read)
        bar.addWidget(self.filter)
        bar.addWidget(self.count)
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
        for signal in (self.proxy.modelReset, self.proxy.layoutChanged):
            signal.connect(self._show_count)
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
        self._to_top = False

    def _on_reset(self) -> None:
        self.message.clear()  # the document changed: an earlier refusal no longer applies
        self.request_fit()
        if self._to_top:
            self._to_top = False
            self.view.scrollToTop()

    def begin_document(self) -> None:
        """Another document comes in: its rows in their own order from the first, no sort, filter
        or scroll position of the last one (its job 16 at the top, job 15 hidden above it)."""
        self.filter.blockSignals(True)
        self.filter.clear()
        self.filter.blockSignals(False)
        if self.only is not None:
            self.only.blockSignals(True)
            self.only.setChecked(False)
            self.only.blockSignals(False)
        self.view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.proxy.terms, self.proxy.row_filter, self.proxy.sort_column = [], None, -1
        self._to_top = True  # once the new rows are in

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
        # The first rows, the last (a trace's ids grow to five digits down the list: "23…") and those on screen.
        ends = (*range(min(rows, SIZE_SAMPLE_ROWS)), *range(max(0, rows - SIZE_SAMPLE_ROWS), rows))
        sample = sorted({*ends, *range(top, bottom + 1)})
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
            # A long text (a failure's reason) is cut with "…" and read whole in its tooltip: a column
            # as wide as it pushed the table into a horizontal scroll bar that hid a row.
            need = max(min(content + CELL_PADDING, MAX_COLUMN_WIDTH), header.sectionSizeHint(c))
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
        bar.insertWidget(bar.count() - 3, self.only)  # before the filter, its count and "List order"

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
        try:
            self.proxy.set_filter(text, only)
        except FilterError as exc:
            # The rows stay as the last filter that could be read left them: say so, and whole.
            self.message.setText(f"Filter: {exc} (the rows shown are the last filter's)")
            self.message.setToolTip(f"{exc}\nThe rows shown are those the last filter that could be read kept.")
            return
        if self.message.text().startswith("Filter: "):
            self.message.clear()

    def _show_count(self) -> None:
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        self.count.setText(f"{shown:,} of {total:,}" if self.proxy.terms or self.proxy.row_filter else "")

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
