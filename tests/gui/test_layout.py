"""The window's layout: its opening size on a laptop, the right column's panels, resizes and Reset layout."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt

from workbench.engine.files import load_environment

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "sample_envs" / "default.json"
TINY = ROOT / "sample_envs" / "tiny.json"


def test_the_cycles_panel_fits_its_dock_in_a_window_of_1500_by_920(qtbot, window):
    """Below Strategy, the Cycles panel shows its controls, the step and the plot's time axis without
    scrolling; the step's lines are cut to the width, and all of them are in the tooltip."""
    from PySide6.QtWidgets import QDockWidget, QScrollArea

    win = window(DEFAULT)
    win.resize(1500, 920)
    dock = win.findChild(QDockWidget, "cycles")
    dock.raise_()
    cycles = win.cycles
    for _ in range(2):
        assert cycles.step()
    qtbot.wait(50)
    holder = dock.widget()
    assert isinstance(holder, QScrollArea) and holder.verticalScrollBar().maximum() == 0
    assert cycles.plot.height() >= cycles.plot.minimumHeight()
    info = cycles.info
    shown = info.text().split("<br>")
    assert len(shown) == 2 and all("…" in line or len(line) < 200 for line in shown)
    assert "queue (13): j" in info.full_text() and info.toolTip() == info.full_text()
    assert info.fontMetrics().horizontalAdvance(shown[1]) <= info.width()


@pytest.mark.parametrize("size", [(1366, 768), (1280, 800)])
def test_on_a_laptop_screen_the_right_column_opens_whole(qtbot, size):
    """On a short screen the tables at the bottom give the right column its height: the Strategy
    form shows Run, and the Cycles panel its plot, without a scroll bar (at 1280 × 800 it used to
    scroll by 90 px, its plot squeezed to a sliver)."""
    from PySide6.QtWidgets import QDockWidget

    from workbench.gui.main_window import MainWindow

    win = MainWindow(load_environment(DEFAULT), DEFAULT, quiet=True)
    qtbot.addWidget(win)
    win.resize(*size)
    win.show()
    strategy, cycles = win.findChild(QDockWidget, "strategy"), win.findChild(QDockWidget, "cycles")
    cycles.raise_()
    holder = cycles.widget()
    qtbot.waitUntil(lambda: holder.verticalScrollBar().maximum() == 0, timeout=5_000)
    run = win.strategy.run
    assert run.mapTo(strategy, run.rect().bottomLeft()).y() <= strategy.height()
    assert strategy.geometry().bottom() < cycles.geometry().top()  # the two docks do not overlap
    assert win.cycles.plot.height() >= win.cycles.plot.minimumHeight()
    assert win.jobs.height() >= 100  # the table keeps a few rows


def test_the_strategy_form_keeps_its_height_as_the_window_grows(qtbot, window):
    """Qt shares a window's new height among the right column's docks by their sizes: shrinking the
    window and growing it back left the Strategy form 64 px taller and the Cycles plot shorter. The
    form keeps its height, and the tabs below get what the window gains or loses."""
    from PySide6.QtWidgets import QDockWidget

    win = window(DEFAULT)
    strategy, cycles = win.findChild(QDockWidget, "strategy"), win.findChild(QDockWidget, "cycles")
    cycles.raise_()
    qtbot.waitUntil(lambda: win._opening_shares is not None, timeout=5_000)  # the opening layout is done
    qtbot.wait(50)
    before = (strategy.height(), cycles.height())
    win.resize(win.width(), win.height() - 120)
    qtbot.waitUntil(lambda: strategy.height() == before[0], timeout=5_000)
    assert cycles.height() < before[1]
    win.resize(win.width(), win.height() + 120)
    qtbot.waitUntil(lambda: cycles.height() == before[1], timeout=5_000)
    assert strategy.height() == before[0]


def test_a_height_the_user_gives_the_strategy_form_is_kept_as_the_window_is_resized(qtbot, window):
    """After the user drags the line between the form and the tabs, resizes keep that height: it used
    to drift by tens of pixels at each resize, the window's gain going to the form and the Cycles plot
    squeezed behind a scroll bar (and Qt warned "all sizes need to be larger than 0")."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QDockWidget

    win = window(DEFAULT)
    strategy, metrics = win.findChild(QDockWidget, "strategy"), win.findChild(QDockWidget, "metrics")
    qtbot.wait(50)
    before = strategy.height()
    # Drag the line under the form 70 px down, as the user does: on the window itself.
    line = QPoint(strategy.geometry().center().x(), strategy.geometry().bottom() + 3)
    QTest.mousePress(win, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, line)
    for down in range(10, 80, 10):
        QTest.mouseMove(win, line + QPoint(0, down))
        qtbot.wait(20)
    QTest.mouseRelease(win, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, line + QPoint(0, 70))
    qtbot.waitUntil(lambda: strategy.height() > before + 40, timeout=5_000)
    qtbot.wait(300)  # the docks settle where the line was let go
    chosen = strategy.height()
    tabs = metrics.height()
    for change in (-60, 60, -30, 30):
        win.resize(win.width(), win.height() + change)
        qtbot.wait(30)
        qtbot.waitUntil(lambda: strategy.height() == chosen, timeout=5_000)
    assert metrics.height() == tabs
    # A window too short for the form's height squeezes it; grown again, the form gets it back (the
    # tables at the bottom may not: Qt gives the height back to the right column).
    win.resize(win.width(), win.height() - 300)
    qtbot.waitUntil(lambda: strategy.height() < chosen, timeout=5_000)
    qtbot.wait(50)
    win.resize(win.width(), win.height() + 300)
    qtbot.waitUntil(lambda: strategy.height() == chosen, timeout=5_000)


def test_reset_layout_brings_every_panel_back(qtbot, window):
    """View ▸ Reset layout: a closed panel shows again and a floating one docks where it opens."""
    from PySide6.QtWidgets import QDockWidget

    win = window(DEFAULT)
    why, jobs = win.findChild(QDockWidget, "why here?"), win.jobs
    why.close()
    jobs.setFloating(True)
    assert why.isHidden() and jobs.isFloating()
    win.reset_layout()
    qtbot.waitUntil(lambda: not why.isHidden() and not jobs.isFloating(), timeout=5_000)
    assert win.dockWidgetArea(jobs) == Qt.DockWidgetArea.BottomDockWidgetArea
    assert win.dockWidgetArea(why) == Qt.DockWidgetArea.RightDockWidgetArea


def test_the_window_opens_within_the_screen_and_play_shows_play_and_pause(qtbot, monkeypatch):
    """On a screen smaller than 1500 × 920 (a 1366 × 768 laptop) the window opens inside what the screen
    has room for, status bar and the window manager's frame included; screenshots keep the fixed
    size. The Play button shows the style's play icon, and Pause its pause icon, with plain words."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QScreen

    from workbench.gui.main_window import MainWindow

    monkeypatch.setattr(QScreen, "availableGeometry", lambda screen: QRect(0, 0, 1366, 740))
    win = MainWindow(load_environment(TINY), TINY, quiet=False)
    qtbot.addWidget(win)
    # A window manager's title bar and borders come on top (a reviewer's status bar was off-screen).
    assert win.width() <= 1366 - 16 and win.height() <= 740 - 36
    shot = MainWindow(load_environment(TINY), TINY, quiet=True)
    qtbot.addWidget(shot)
    assert (shot.width(), shot.height()) == (1500, 920)
    play = win.cycles.play_button
    assert play.text() == "Play" and not play.icon().isNull() and "▶" not in play.text()
    before = play.icon().cacheKey()
    win.cycles._on_play_toggled(True)
    assert play.text() == "Pause" and play.icon().cacheKey() != before
    win.cycles._on_play_toggled(False)
