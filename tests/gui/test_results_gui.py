"""Results and containers in the window (issue 45): File ▸ Open shows a saved result as it was,
without running it again, and an environment saves to and opens from the container."""

from __future__ import annotations

from pathlib import Path

from workbench.engine import registry
from workbench.engine.files import load_environment, save_environment
from workbench.engine.io.result_files import save_result

ROOT = Path(__file__).resolve().parents[2]
BACKFILL = ROOT / "sample_envs" / "backfill32.json"
TINY = ROOT / "sample_envs" / "tiny.json"


def _count_runs(monkeypatch) -> list[object]:
    from workbench.gui import workers

    runs: list[object] = []
    real = workers.run_strategy

    def counted(env, *args, **kwargs):
        runs.append(env)
        return real(env, *args, **kwargs)

    monkeypatch.setattr(workers, "run_strategy", counted)
    return runs


def test_opening_a_result_container_shows_it_without_running(qtbot, window, tmp_path, monkeypatch):
    """The saved windows are the ones on screen, the strategy panel names the result's strategy, no run
    starts (not even after the auto-run delay), and Save asks for a name instead of writing over it."""
    env = load_environment(BACKFILL)
    schedule = registry.run(env, "FirstFit", {})
    result = tmp_path / "result.npz"
    save_result(env, schedule, result)
    win = window(TINY)
    runs = _count_runs(monkeypatch)
    win.open_in_background(result)
    qtbot.waitUntil(lambda: win.document.result is not None and win.document.env.jobs == env.jobs, timeout=20_000)
    qtbot.wait(200)  # past the live run's 10 ms delay: none may start
    assert runs == []
    assert win.document.result.windows == schedule.windows
    assert win.document.env.strategy.name == "FirstFit"
    assert win.document.path is None and not win.document.modified
    assert "not run again" in win.statusBar().currentMessage()
    assert {w.job for w in win.chart.shown_windows} == {w.job for w in schedule.windows}
    win.run_now()  # F5 runs it, as for any document
    qtbot.waitUntil(lambda: bool(runs), timeout=20_000)


def test_a_json_result_opens_with_the_environment_it_names(qtbot, window, tmp_path, monkeypatch):
    """A JSON result names its environment file; opening the result makes that file the document's."""
    env = load_environment(TINY)
    env_path = tmp_path / "env.json"
    save_environment(env, env_path)
    schedule = registry.run(env, "FirstFit", {})
    save_result(env, schedule, tmp_path / "r.json", environment=str(env_path))
    win = window(TINY)
    runs = _count_runs(monkeypatch)
    assert win.open_path(tmp_path / "r.json")
    assert win.document.path == env_path.resolve() and win.document.result.windows == schedule.windows
    qtbot.wait(100)
    assert runs == []


def test_an_environment_saves_to_and_opens_from_the_container(qtbot, window, tmp_path):
    """Save As with a .npz name writes the container; opening it gives the same document back."""
    win = window(BACKFILL)
    target = tmp_path / "saved.npz"
    assert win.save_to(target)
    assert load_environment(target) == win.document.env
    assert win.open_path(target) and win.document.env == load_environment(BACKFILL)
    assert not win.save_to(tmp_path / "saved.parquet")
    assert ".json (text) or .npz" in win.last_error and not (tmp_path / "saved.parquet").exists()


def test_the_metrics_panel_shows_a_dynamic_runs_work(qtbot, window, tmp_path):
    """Under the measures: early completions, re-checks, searches and moves of the run on screen; "—"
    for EASY, which plans each job once."""
    import dataclasses

    from workbench.engine.io.result import work_of
    from workbench.gui.panels.metrics import FLOW_ROWS, WORK_ROWS

    env = load_environment(BACKFILL)
    env = dataclasses.replace(env, jobs=tuple(dataclasses.replace(j, actual_fraction=0.5) for j in env.jobs))
    path = tmp_path / "early.json"
    save_environment(dataclasses.replace(env, strategy=dataclasses.replace(env.strategy, name="FirstFit")), path)
    win = window(path)
    work = work_of(win.document.result)
    assert work is not None and work["moves"] > 0
    shown = {key: win.metrics.flow.item(len(FLOW_ROWS) + k, 0).text() for k, (_, key, _) in enumerate(WORK_ROWS)}
    assert shown == {key: f"{value:,}" for key, value in work.items()}
    easy = tmp_path / "easy.json"
    save_environment(dataclasses.replace(env, strategy=dataclasses.replace(env.strategy, name="EASY")), easy)
    win2 = window(easy)
    assert {win2.metrics.flow.item(len(FLOW_ROWS) + k, 0).text() for k in range(len(WORK_ROWS))} == {"—"}


def test_a_large_document_autosaves_in_the_container_and_is_recovered(qtbot, window, tmp_path, monkeypatch):
    """Past AUTOSAVE_CONTAINER_JOBS the autosave is the container, written in the worker; it reads back
    as the edited document with its file named, and leaves no JSON autosave beside it; a save clears it."""
    import threading

    from tests.gui.helpers import threads_running
    from workbench.gui import window_files
    from workbench.gui.window_files import autosave_paths, found_autosave
    from workbench.session.document import read_autosave

    monkeypatch.setattr(window_files, "AUTOSAVE_CONTAINER_JOBS", 3)
    threads = threads_running(monkeypatch, window_files, "write_autosave_container")
    text_path, box_path = autosave_paths()
    text_path.parent.mkdir(parents=True, exist_ok=True)
    text_path.write_text("{}")  # an older, smaller autosave: replaced, not kept beside
    win = window(BACKFILL)
    win.jobs.model.setData(win.jobs.model.index(0, 4), "88")
    win.autosave_timer.timeout.emit()
    qtbot.waitUntil(lambda: box_path.exists() and not text_path.exists(), timeout=10_000)
    assert found_autosave() == box_path and threads and threading.main_thread() not in threads
    env, original = read_autosave(box_path)
    assert env == win.document.env and original == BACKFILL
    win.save_to(tmp_path / "x.npz")
    assert found_autosave() is None


def test_a_result_named_on_the_command_line_opens_once_the_window_is_up(qtbot, tmp_path, monkeypatch):
    """`workbench RESULT` puts the window on screen first and reads the result in the background (at
    200,000 jobs the reading took seconds with nothing on screen); the result is then shown as saved,
    not run again."""
    from PySide6.QtWidgets import QApplication

    from workbench.gui import app, window_files
    from workbench.gui.app import run_app
    from workbench.gui.main_window import MainWindow

    env = load_environment(BACKFILL)
    schedule = registry.run(env, "FirstFit", {})
    result = tmp_path / "result.npz"
    save_result(env, schedule, result)
    read_paths: list[Path] = []  # (the worker's: no Qt object is touched there)
    real = window_files.read_file

    def read(path):
        read_paths.append(Path(path))
        return real(path)

    monkeypatch.setattr(window_files, "read_file", read)
    opening: list[MainWindow] = []
    background = MainWindow.open_in_background

    def open_in_background(self, path):
        opening.append(self)
        assert self.isVisible() and Path(path) not in read_paths  # the window is up before the read starts
        background(self, path)

    monkeypatch.setattr(MainWindow, "open_in_background", open_in_background)
    errors: list[str] = []
    monkeypatch.setattr(MainWindow, "error", lambda self, title, text: errors.append(f"{title}: {text}"))
    monkeypatch.setattr(QApplication, "exec", lambda *_: 0)  # return at once instead of running the loop,
    monkeypatch.setattr(app, "_wait_for_workers", lambda: None)  # and leave the reading to finish
    runs = _count_runs(monkeypatch)
    assert run_app(result) == 0
    (win,) = opening
    qtbot.addWidget(win)
    qtbot.waitUntil(lambda: win.document.result is not None or bool(errors), timeout=20_000)
    assert errors == []
    assert read_paths.count(result) == 1
    assert win.document.result.windows == schedule.windows
    assert runs == []
