"""What several GUI tests do the same way: wait for a run, make the live run fail, answer a file dialog."""

from __future__ import annotations

import numpy as np


def wait_result(qtbot, win):
    qtbot.waitUntil(lambda: win.document.result is not None and not win.runner.busy, timeout=30_000)


def make_bsf_fail(qtbot, win):
    """Switch the window to BSF, then ask for more high-priority jobs than the batch holds (an error)."""
    win.strategy.family.setCurrentText("flow")
    win.strategy.name.setCurrentText("BSF")
    wait_result(qtbot, win)
    win.strategy._set("n_high", 99)
    qtbot.waitUntil(lambda: win.document.error is not None, timeout=30_000)


def threads_running(monkeypatch, module, name):
    """Wrap ``module.name`` so that each call notes the thread it runs on; the list of those threads."""
    import threading

    threads = []
    original = getattr(module, name)

    def watched(*args, **kwargs):
        threads.append(threading.current_thread())
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, watched)
    return threads


def python_calls(action) -> int:
    """How many Python functions run (on this thread) during ``action()``: Qt calling back into
    Python per row or per comparison shows here as tens of thousands."""
    import sys

    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(count)
    try:
        action()
    finally:
        sys.setprofile(None)
    return calls


def answer_file_dialogs(monkeypatch, answer):
    """Every file dialog (``gui.file_dialogs``) is accepted at once with ``answer``: a path, or a function
    of the dialog that gives one (it can read the dialog's title and filters)."""
    from PySide6.QtWidgets import QFileDialog

    chosen = {}

    def run(dialog):
        chosen[id(dialog)] = str(answer(dialog) if callable(answer) else answer)
        return 1

    monkeypatch.setattr(QFileDialog, "exec", run)
    monkeypatch.setattr(QFileDialog, "selectedFiles", lambda dialog: [chosen[id(dialog)]])


def drawn_windows(win):
    layer = win.chart.windows
    return sorted(zip(layer.x.tolist(), layer.y.tolist(), layer.w.tolist(), strict=True))


def expected_windows(env, schedule):
    """What ran: each part solid from its start to the job's actual end."""
    index = env.node_index
    return sorted(
        (w.start, float(index[n]), schedule.actual_end(env, w) - w.start) for w in schedule.windows for n in w.nodes
    )


def beat_rate(qtbot, period_ms, start, wait_ms):
    """Beats per second of a ``period_ms`` timer from just before ``start()`` until ``wait_ms`` after it."""
    import time

    from PySide6.QtCore import QTimer

    beats = []
    heartbeat = QTimer()
    heartbeat.timeout.connect(lambda: beats.append(1))
    heartbeat.start(period_ms)
    began = time.perf_counter()
    start()
    qtbot.wait(wait_ms)
    heartbeat.stop()
    return len(beats) / (time.perf_counter() - began)


def saturated(jobs: int):
    """backfill32 with ``jobs`` jobs queued at time 0, each really running U[0.2, 1] of its time."""
    import dataclasses

    from workbench.engine.generate import generate
    from workbench.engine.model import StrategyRef

    env = generate("backfill32", 1, jobs=jobs)
    share = np.random.default_rng(1).uniform(0.2, 1.0, size=len(env.jobs))
    moved = tuple(dataclasses.replace(j, actual_fraction=float(f)) for j, f in zip(env.jobs, share, strict=True))
    return dataclasses.replace(env, jobs=moved, strategy=StrategyRef("FirstFit"))


def compared(qtbot, win, names):
    """Compare ``names`` on the window's document, as Compare strategies does, once every run is in."""
    from workbench.gui.panels.compare import CompareDialog

    dialog = CompareDialog(win.document, win)
    qtbot.addWidget(dialog)
    dialog.set_chosen(names)
    dialog.compare()
    qtbot.waitUntil(lambda: not dialog.running, timeout=60_000)
    return dialog
