"""Cycle player: step through a simulation, forwards and back, and watch the queue.

Stepping forwards past the history asks the simulator for the next snapshot;
stepping back only re-reads an earlier one (snapshots never change).
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.engine import registry
from workbench.engine.errors import WorkbenchError
from workbench.engine.simulate import Simulator, Snapshot
from workbench.session.document import Document


class CyclesPanel(QWidget):
    snapshot_shown = Signal(object)  # Snapshot
    live_requested = Signal()

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document
        self.sim: Simulator | None = None
        self.position = -1
        self.reset_button = QPushButton("|◀ Reset")
        self.back_button = QPushButton("◀ Step back")
        self.step_button = QPushButton("Step ▶")
        self.play_button = QPushButton("▶▶ Play")
        self.play_button.setCheckable(True)
        self.speed = QSpinBox()
        self.speed.setRange(1, 50)
        self.speed.setValue(4)
        self.speed.setSuffix(" steps/s")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 0)
        self.info = QLabel("Press Step to start a simulation of the current strategy.")
        self.info.setWordWrap(True)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setMinimumHeight(110)
        self.plot.addLegend(offset=(5, 5))
        self.plot.setLabel("bottom", "time")
        self.queue_curve = self.plot.plot(pen=pg.mkPen("#0072B2", width=2), name="queue length")
        self.util_curve = self.plot.plot(pen=pg.mkPen("#D55E00", width=2), name="nodes busy %")
        buttons = QHBoxLayout()
        for widget in (self.reset_button, self.back_button, self.step_button, self.play_button, self.speed):
            buttons.addWidget(widget)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.slider)
        layout.addWidget(self.info)
        layout.addWidget(self.plot, 1)
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._on_tick)
        self.reset_button.clicked.connect(self.reset)
        self.back_button.clicked.connect(self.step_back)
        self.step_button.clicked.connect(self.step)
        self.play_button.toggled.connect(self._on_play_toggled)
        self.speed.valueChanged.connect(lambda v: self.timer.setInterval(int(1000 / v)))
        self.slider.valueChanged.connect(self._on_slider)
        self._update_controls()

    # ------------------------------------------------------------ actions

    def reset(self) -> None:
        """Forget the history; the next Step starts a new simulation of the current document."""
        self.play_button.setChecked(False)
        self.sim = None
        self.position = -1
        self.slider.blockSignals(True)
        self.slider.setRange(0, 0)
        self.slider.blockSignals(False)
        self.info.setText("Press Step to start a simulation of the current strategy.")
        self.queue_curve.setData([], [])
        self.util_curve.setData([], [])
        self._update_controls()
        self.live_requested.emit()

    def step(self) -> bool:
        """Show the next snapshot (computing it if needed); False at the end."""
        if self.sim is None:
            env = self.document.env
            try:
                self.sim = registry.simulator(env, env.strategy.name, env.strategy.params_dict(), explain=True)
            except WorkbenchError as exc:
                self.info.setText(f"⚠ {exc}")
                return False
        if self.position + 1 >= len(self.sim.snapshots):
            try:
                snap = self.sim.step()
            except WorkbenchError as exc:
                self.info.setText(f"⚠ {exc}")
                self.play_button.setChecked(False)
                return False
            if snap is None:
                self.play_button.setChecked(False)
                self._describe(self.sim.snapshots[self.position])  # now the count is known
                self._update_controls()
                return False
        self._show(self.position + 1)
        return True

    def step_back(self) -> None:
        self.play_button.setChecked(False)  # going back pauses, as in a media player
        if self.position > 0:
            self._show(self.position - 1)

    def _show(self, position: int) -> None:
        assert self.sim is not None
        self.position = position
        snap = self.sim.snapshots[position]
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(self.sim.snapshots) - 1)
        self.slider.setValue(position)
        self.slider.blockSignals(False)
        self._describe(snap)
        self._plot()
        self._update_controls()
        self.snapshot_shown.emit(snap)

    def _describe(self, snap: Snapshot) -> None:
        # The number of steps is known only once the run has ended.
        of = f" of {len(self.sim.snapshots)}" if self.sim is not None and self.sim.done else ""
        cycle = f", cycle {snap.cycle}" if snap.cycle is not None else ""
        started = sum(1 for w in snap.windows if snap.started(w.job))
        lines = [
            f"<b>step {snap.step}{of}</b> — t = {snap.time:g}{cycle}",
            snap.label,
            f"placed {len(snap.windows)} (started {started}), failed {len(snap.failed)}",
            f"queue: {', '.join(snap.queue) or '—'}",
        ]
        if snap.batch:
            lines.append(f"batch: {', '.join(snap.batch)}")
        self.info.setText("<br>".join(lines))

    def _plot(self) -> None:
        assert self.sim is not None
        shown = self.sim.snapshots[: self.position + 1]
        times = [s.time for s in shown]
        self.queue_curve.setData(times, [len(s.queue) for s in shown])
        self.util_curve.setData(times, [100 * s.busy_fraction for s in shown])

    def _update_controls(self) -> None:
        at_end = self.sim is not None and self.sim.done and self.position >= len(self.sim.snapshots) - 1
        self.back_button.setEnabled(self.position > 0)
        self.step_button.setEnabled(not at_end)
        self.reset_button.setEnabled(self.sim is not None)

    # ------------------------------------------------------------ handlers

    def _on_slider(self, value: int) -> None:
        if self.sim is not None and 0 <= value < len(self.sim.snapshots):
            self._show(value)

    def _on_play_toggled(self, playing: bool) -> None:
        self.play_button.setText("Pause" if playing else "▶▶ Play")  # ⏸ is missing from many fonts
        if playing:
            self.timer.start(int(1000 / self.speed.value()))
        else:
            self.timer.stop()

    def _on_tick(self) -> None:
        if not self.step():
            self.play_button.setChecked(False)

    def on_environment_changed(self) -> None:
        """An edit makes the history stale: start again on the next Step."""
        if self.sim is not None:
            self.reset()
