"""The main window's layout: its opening size, the docks it opens with (balanced for the screen),
the Strategy form's height kept through window resizes, and View ▸ Reset layout.

Qt shares a window's new height among a column's docks in proportion to their sizes, which grew the
Strategy form and squeezed the Cycles plot below it at every resize. The form's height is the
user's: remembered when they let go of the line above the tabs, given back once a resize pauses.

Qt also leaves the dock areas their pixels and gives the central chart what the window gains or
loses: shrunk to 960 × 620 and grown again, the Jobs table kept one row and the chart 260 px. So
the tables' share of the height and the right column's share of the width are kept too (the
opening layout's, or the user's once they drag a line), and given back with the form's height.
"""

from __future__ import annotations

import math
import time
from typing import Any

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDockWidget, QFrame, QMainWindow, QScrollArea, QTabBar, QWidget

OPENING_SIZE = (1500, 920)  # the window at its first start, screen permitting
FRAME_ALLOWANCE = (16, 36)  # room left on the screen for a window manager's frame around it
DOCK_MIN_HEIGHT = 60  # a right-hand panel shrinks to this, and scrolls
# The right column's docks at their opening: the Strategy form and the Cycles panel without a
# scroll bar; the tables at the bottom give up height for it, down to a few rows.
RIGHT_COLUMN_HEIGHT = 450
DOCKS_SETTLE_S = 0.5  # Qt animates the docks for 200 ms after a drag of the line between two
DOCK_GAP = 12  # at most this many pixels between two docks one above the other (the line between them)
KEEP_AFTER_MS = 40  # the Strategy form gets its height back once a window resize pauses this long
BOTTOM_MIN_HEIGHT = 150
RIGHT_MIN_WIDTH = 300  # the right column narrows with the window down to this


class WindowLayout(QMainWindow):
    """The main window's base: its layout. ``_start_layout`` sets it up once the docks exist (and
    the Jobs dock, ``jobs``, with them)."""

    jobs: QDockWidget
    _balanced: bool
    _strategy_height = 0  # the Strategy dock's height as the user (or the opening layout) left it
    _shares: tuple[float, float] | None = None  # the tables' share of the height, the right column's of the width
    _opening_shares: tuple[float, float] | None = None  # View ▸ Reset layout's
    _released: tuple[float, int] = (-math.inf, 0)  # when a button was last released on the window, its height

    def _start_layout(self) -> None:
        """Follow the Strategy dock's height (``eventFilter``); the line between two docks is
        dragged on the window itself."""
        self.installEventFilter(self)
        self.findChild(QDockWidget, "strategy").installEventFilter(self)
        # Once a resize pauses (a window manager may lay the docks out after the resize event).
        self._keep_timer = QTimer(self)
        self._keep_timer.setSingleShot(True)
        self._keep_timer.setInterval(KEEP_AFTER_MS)
        self._keep_timer.timeout.connect(self._keep_strategy_height)
        self.default_layout = self.saveState()  # View ▸ Reset layout

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if not getattr(self, "_balanced", True):
            self._balanced = True
            QTimer.singleShot(0, self.balance_right_column)
        elif not self._strategy_height:  # a saved layout: the form's height is the user's
            QTimer.singleShot(0, self._remember_strategy_height)

    def eventFilter(self, watched: Any, event: Any) -> bool:
        """A mouse button released on the window itself (not on a panel): the end of a drag of the
        line between two docks, perhaps the one under the Strategy form. Its height then, once the
        docks have moved there, is the user's choice."""
        if watched is self and event.type() == QEvent.Type.MouseButtonRelease:
            self._released = (time.monotonic(), self.height())
            QTimer.singleShot(0, self._remember_if_settling)
        elif event.type() == QEvent.Type.Resize:
            self._remember_if_settling()
        return super().eventFilter(watched, event)

    def _remember_if_settling(self) -> None:
        """The docks may still be moving to where the line was let go (Qt animates them): remember
        the form's height, unless the window has changed its height since."""
        at, height = self._released
        if time.monotonic() - at < DOCKS_SETTLE_S and self.height() == height:
            self._remember_strategy_height()

    def _remember_strategy_height(self) -> None:
        dock = self.findChild(QDockWidget, "strategy")
        if dock is not None and not dock.isFloating() and dock.isVisible():
            self._strategy_height = dock.height()
        self._remember_shares()

    def _remember_shares(self) -> None:
        """The tables' share of the window's height and the right column's of its width, as they are."""
        strategy = self.findChild(QDockWidget, "strategy")
        if self.jobs.isFloating() or not self.jobs.isVisible() or strategy is None or strategy.isFloating():
            self._shares = None  # the user has made another layout: theirs stays as Qt keeps it
            return
        # The bottom area's height is the table's and its tab bar's: resizeDocks sets that.
        bottom = self.jobs.height() + self._tab_bar_under(self.jobs)
        self._shares = (bottom / max(self.height(), 1), strategy.width() / max(self.width(), 1))

    def _keep_shares(self) -> None:
        """Give the tables and the right column their shares of the resized window."""
        strategy = self.findChild(QDockWidget, "strategy")
        if self._shares is None or strategy is None or strategy.isFloating() or not self.jobs.isVisible():
            return
        tall, wide = self._shares
        self.resizeDocks([self.jobs], [max(BOTTOM_MIN_HEIGHT, round(tall * self.height()))], Qt.Orientation.Vertical)
        self.resizeDocks([strategy], [max(RIGHT_MIN_WIDTH, round(wide * self.width()))], Qt.Orientation.Horizontal)

    def resizeEvent(self, event: Any) -> None:
        """Qt shares a window's new height among the right column's docks in proportion to their
        sizes, so growing the window grew the Strategy form too: the tabs below get what the
        window gains or loses, and the form keeps the height the user left it (a short window may
        squeeze it; grown again, the form gets it back)."""
        super().resizeEvent(event)
        if event.oldSize() != event.size() and event.oldSize().isValid():
            self._released = (-math.inf, 0)  # what the docks do from now on is the window's doing
            if self._strategy_height or self._shares is not None:
                self._keep_timer.start()

    def _keep_strategy_height(self) -> None:
        self._keep_shares()
        QTimer.singleShot(0, self._keep_form_height)  # once the tables have their height

    def _keep_form_height(self) -> None:
        strategy = self.findChild(QDockWidget, "strategy")
        if strategy is None or strategy.isFloating() or not strategy.isVisible() or self.tabifiedDockWidgets(strategy):
            return  # not the form over the tabs (the user moved it)
        # The tab shown right under it (Metrics, Cycles or Why here?: Qt moves the others out of sight).
        shown = [
            dock
            for name in ("metrics", "cycles", "why here?")
            if (dock := self.findChild(QDockWidget, name)) is not None
            and dock.isVisible()
            and not dock.isFloating()
            and dock.x() == strategy.x()
            and 0 <= dock.y() - strategy.geometry().bottom() <= DOCK_GAP
        ]
        if shown:
            total = strategy.height() + shown[0].height()
            self._set_height([strategy, shown[0]], min(self._strategy_height, total - DOCK_MIN_HEIGHT))

    def _set_height(self, docks: list[QDockWidget], height: int) -> int:
        """Make the first of two docks ``height`` tall (within what they have together), the second
        the rest; the height asked for. ``resizeDocks`` sets the second's size as that of its tab
        group, tab bar included, and shares any difference by the sizes' weights: so the tab bar
        is counted in, and the sizes add up to the space the two have."""
        total = sum(d.height() for d in docks) + self._tab_bar_under(docks[1])
        asked = max(1, min(height, total - 1))
        self.resizeDocks(docks, [asked, total - asked], Qt.Orientation.Vertical)
        return asked

    def _tab_bar_under(self, dock: QDockWidget) -> int:
        """The height of the tab bar right under ``dock`` (a tabbed group's), 0 for none."""
        below = dock.geometry().bottom() + 1
        # One bar: after restoreState Qt keeps the old tab bars, in the same place, as well.
        return max(
            (
                bar.height()
                for bar in self.findChildren(QTabBar)
                if bar.parent() is self and bar.isVisible() and bar.x() == dock.x() and abs(bar.y() - below) <= 2
            ),
            default=0,
        )

    def reset_layout(self) -> None:
        """View ▸ Reset layout: every dock where a window opens with, shown, at the opening's shares
        of the window (the tables' height, the right column's width), the right column balanced."""
        self.restoreState(self.default_layout)
        for dock in self.findChildren(QDockWidget):
            dock.show()
        self.findChild(QDockWidget, "metrics").raise_()
        self.jobs.raise_()
        self._shares = self._opening_shares
        QTimer.singleShot(0, self._reset_sizes)

    def _reset_sizes(self) -> None:
        if self._opening_shares is None:
            self.balance_right_column()
            return
        self._keep_shares()
        strategy, metrics = self.findChild(QDockWidget, "strategy"), self.findChild(QDockWidget, "metrics")
        QTimer.singleShot(0, lambda: self._balance(strategy, metrics))

    def balance_right_column(self) -> None:
        """The layout a window opens with, unless the user's saved one: on a short screen the tables
        at the bottom give the right column what its panels need (the Strategy form and the Cycles
        plot without a scroll bar, down to 1366 × 768); then the tabs under the strategy (Metrics,
        Cycles, Why here?), which hold tables and plots, get three fifths of the right column, so
        that Why here? shows its candidates, not only its header (the form gets at least what it
        needs)."""
        strategy, metrics = self.findChild(QDockWidget, "strategy"), self.findChild(QDockWidget, "metrics")
        short = RIGHT_COLUMN_HEIGHT - strategy.height() - metrics.height()
        if short > 0 and self.jobs.isVisible() and not self.jobs.isFloating():
            # One dock in its area: the size asked for is the area's, its tab bar included.
            area = self.statusBar().y() - self.jobs.y()
            self.resizeDocks([self.jobs], [max(BOTTOM_MIN_HEIGHT, area - short)], Qt.Orientation.Vertical)
        QTimer.singleShot(0, lambda: self._balance(strategy, metrics))

    def _balance(self, strategy: QDockWidget, metrics: QDockWidget) -> None:
        room = strategy.height() + metrics.height() + self._tab_bar_under(metrics)
        self._strategy_height = self._set_height([strategy, metrics], room * 2 // 5)
        QTimer.singleShot(0, self._remember_opening)

    def _remember_opening(self) -> None:
        """Once the balanced docks have settled: the form's height as Qt made it (the height asked
        for can differ by a tab bar's height), and the shares of the opening layout."""
        strategy = self.findChild(QDockWidget, "strategy")
        if strategy is not None and strategy.isVisible() and not strategy.isFloating():
            self._strategy_height = strategy.height()
        self._remember_shares()
        if self._opening_shares is None:
            self._opening_shares = self._shares

    def opening_size(self, fixed: bool) -> tuple[int, int]:
        """1500 × 920, or what the screen has room for (a 1366 × 768 laptop): screenshots and tests
        (``fixed``) always get the same size; a user's saved geometry, when there is one, wins."""
        width, height = OPENING_SIZE
        screen = self.screen() or QGuiApplication.primaryScreen()
        if fixed or screen is None:
            return width, height
        room = screen.availableGeometry()
        # The window manager's frame (title bar, borders) comes on top of the size asked for: on a
        # screen without room to spare it pushed the status bar off the bottom.
        spare_width, spare_height = FRAME_ALLOWANCE
        return min(width, room.width() - spare_width), min(height, room.height() - spare_height)

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea, scrolls: bool = False) -> QDockWidget:
        """A dock for a panel; with ``scrolls`` the panel scrolls inside it, so that the dock can shrink
        on a small screen (the Cycles panel: its plot asks for a tall dock)."""
        dock = QDockWidget(title, self)
        dock.setObjectName(title.lower())
        if scrolls:
            holder = QScrollArea()
            holder.setWidgetResizable(True)
            holder.setFrameShape(QFrame.Shape.NoFrame)
            holder.setWidget(widget)
            holder.setMinimumHeight(DOCK_MIN_HEIGHT)
            widget = holder
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock
