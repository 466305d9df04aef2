"""`workbench bench --gui`: chart drawing and edit-to-result latency (offscreen is fine)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from workbench.engine.model import Environment, Job, LocalTask, Node, TimeSettings, Window
from workbench.engine.schedule import Schedule

Out = Callable[[str], None]


def big_environment(
    nodes: int = 1000, tasks_per_node: int = 20, window_parts: int = 20_000
) -> tuple[Environment, Schedule]:
    """``nodes`` rows, ``tasks_per_node`` local tasks each, and windows with ``window_parts`` parts in the gaps."""
    rng = np.random.default_rng(0)
    node_list = tuple(Node(f"n{i}", f"node {i:04d}", float(rng.uniform(2, 10)), 1.0) for i in range(nodes))
    tasks = []
    for i in range(nodes):
        for k in range(tasks_per_node):
            start = k * 50.0
            tasks.append(LocalTask(f"t{i}_{k}", f"n{i}", start, start + 20.0))
    width = 5
    count = window_parts // width
    jobs, windows = [], []
    for j in range(count):
        first = (j * width) % (nodes - width)
        slot = (j * width // (nodes - width)) % tasks_per_node
        start = slot * 50.0 + 25.0
        jobs.append(Job(f"j{j}", f"job {j}", width, 1.0, 20.0))
        windows.append(Window(f"j{j}", start, 20.0, tuple(f"n{first + m}" for m in range(width)), 100.0))
    env = Environment(node_list, tuple(tasks), tuple(jobs), TimeSettings(0.0, None, tasks_per_node * 50.0), "big")
    return env, Schedule("synthetic", tuple(windows))


def run_gui_bench(out: Out = print, repeats: int = 15) -> None:
    from PySide6.QtWidgets import QApplication

    from workbench.gui.gantt.chart import GanttChart

    app = QApplication.instance() or QApplication([])
    env, schedule = big_environment()
    out(
        f"Chart: {len(env.nodes)} nodes, {len(env.local_tasks)} local tasks, "
        f"{sum(len(w.nodes) for w in schedule.windows)} window parts (offscreen, 1400x900)"
    )
    firsts = []
    for _ in range(3):
        chart = GanttChart()
        chart.resize(1400, 900)
        chart.show()
        app.processEvents()
        began = time.perf_counter()
        chart.set_data(env, schedule, fit=True)
        chart.finish_drawing()
        chart.grab()  # the first paint, into an image
        firsts.append((time.perf_counter() - began) * 1000)
        chart.close()
    chart = GanttChart()
    chart.resize(1400, 900)
    chart.show()
    chart.set_data(env, schedule, fit=True)
    chart.finish_drawing()
    chart.grab()
    pans, zooms = [], []
    for k in range(repeats):
        began = time.perf_counter()
        chart.view.translateBy(x=5.0 if k % 2 else -5.0)
        chart.grab()
        pans.append((time.perf_counter() - began) * 1000)
        began = time.perf_counter()
        chart.view.scaleBy((0.9, 1.0) if k % 2 else (1 / 0.9, 1.0))
        chart.grab()
        zooms.append((time.perf_counter() - began) * 1000)
    out(f"  first draw  median {statistics.median(firsts):7.1f} ms   (target ≤ 300)")
    pan, zoom = statistics.median(pans), statistics.median(zooms)
    out(f"  pan repaint median {pan:7.1f} ms   zoom repaint median {zoom:7.1f} ms   (target ≤ 30)")
    chart.close()
    _bench_edit_latency(app, out, repeats)


def _bench_edit_latency(app: object, out: Out, repeats: int) -> None:
    """From an edit on default.json to the redrawn result under CoP."""
    from PySide6.QtCore import QCoreApplication, QEventLoop

    from workbench.engine.files import default_environment_path, load_environment
    from workbench.gui.main_window import MainWindow
    from workbench.session import edits

    path = Path(default_environment_path())
    window = MainWindow(load_environment(path), path, quiet=True)
    window.show()
    window.run_now()
    window.wait_for_result()
    drawn: list[float] = []
    window.bridge.result_changed.connect(lambda *_: drawn.append(time.perf_counter()))
    task = window.document.env.local_tasks[0]
    latencies = []
    for k in range(repeats):
        shift = 1.0 if k % 2 == 0 else -1.0
        moved = window.document.env.local_tasks[0]
        began = time.perf_counter()
        window.document.apply(edits.move_task(task.id, moved.start + shift))
        while not drawn or drawn[-1] < began:
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
        window.chart.grab()
        latencies.append((time.perf_counter() - began) * 1000)
    out(
        f"Edit on default.json to redrawn result under {window.document.env.strategy.name}: "
        f"median {statistics.median(latencies):.1f} ms (target ≤ 100; includes the 10 ms debounce)"
    )
    window.close()


def open_result_timed(path: str, heartbeat_ms: int = 5, timeout_s: float = 600.0) -> dict[str, float | str]:
    """Open the result ``path`` in a window (offscreen, File ▸ Open's way: read in a worker) and time
    it until the whole picture is drawn; the GUI thread's longest block meanwhile (a heartbeat), and
    a zoom at full view once it is drawn. ``bench --only archive`` runs it in a fresh process."""
    import itertools
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication, QTimer
    from PySide6.QtWidgets import QApplication

    from workbench.engine.files import default_environment_path, load_environment
    from workbench.engine.warmup import warm
    from workbench.gui.main_window import MainWindow
    from workbench.lab.archive_bench import peak_mb, reset_peak

    app = QApplication.instance() or QApplication([])
    warm()  # as the window's warm-up does at start (quiet windows skip it)
    start = Path(default_environment_path())
    window = MainWindow(load_environment(start), start, quiet=True)
    window.resize(1400, 900)
    window.show()
    window.run_now()
    window.wait_for_result()
    app.processEvents()
    beats: list[float] = []
    timer = QTimer()
    timer.timeout.connect(lambda: beats.append(time.perf_counter()))
    timer.start(heartbeat_ms)
    reset_peak()
    began = time.perf_counter()
    window.open_in_background(Path(path))
    loaded = lambda: window.document.path != start and window.document.result is not None  # noqa: E731
    while not (loaded() and not window.chart.drawing):  # a large picture is painted a layer at a time
        QCoreApplication.processEvents()
        if window.last_error:
            return {"error": window.last_error}
        if time.perf_counter() - began > timeout_s:
            return {"error": f"not drawn within {timeout_s:g} s"}
        time.sleep(0.001)
    window.chart.grab()  # the whole picture, painted
    seconds = time.perf_counter() - began
    worst = max((b - a for a, b in itertools.pairwise(beats)), default=0.0)
    app.processEvents()
    zoom_began = time.perf_counter()
    window.chart.view.scaleBy((0.8, 1.0))
    window.chart.grab()
    zoom = time.perf_counter() - zoom_began
    timer.stop()
    window.close()
    return {"seconds": seconds, "worst_ms": worst * 1000, "zoom_ms": zoom * 1000, "peak_mb": peak_mb()}


if __name__ == "__main__":  # `python -m workbench.gui.bench --open-result PATH`: one JSON line
    import json
    import sys

    if sys.argv[1:2] != ["--open-result"] or len(sys.argv) != 3:
        sys.exit("usage: python -m workbench.gui.bench --open-result RESULT")
    print(json.dumps(open_result_timed(sys.argv[2])))
