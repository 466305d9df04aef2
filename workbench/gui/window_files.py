"""The main window's files: opening (here and now, or read in a worker), the Open Recent list, the
saved window layout, and the autosave that is offered back after a crash."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QStandardPaths

from workbench.engine import jobarrays, registry
from workbench.engine.errors import WorkbenchError
from workbench.engine.files import load_environment
from workbench.engine.io.container import is_container
from workbench.engine.io.result_files import is_result_file, load_result
from workbench.engine.model import Environment, StrategyRef
from workbench.engine.schedule import Schedule
from workbench.engine.simulate import collection_paused
from workbench.gui.prepared import FREEZE_FROM, keep_from_collector, prepare
from workbench.session.document import (
    AUTOSAVE_CONTAINER_JOBS,
    autosave_text,
    write_autosave_container,
    write_autosave_text,
)

MAX_RECENT = 8


@dataclass(frozen=True)
class OpenedResult:
    """A result file read (in a worker): its environment, its schedule prepared for drawing, and the
    environment file the document is then saved to (None for a container, which holds its own)."""

    env: Environment
    schedule: Schedule
    environment_path: Path | None


def read_file(path: Path) -> Environment | OpenedResult:
    """What File ▸ Open reads: an environment (JSON or container), or a result (JSON or container)
    with its environment, prepared for drawing; off the GUI thread."""
    opened: Environment | OpenedResult
    # Millions of objects made, none in a cycle: a full collection meanwhile would hold the GIL for a
    # second, freezing the window.
    with collection_paused():
        opened = load_environment(path) if not is_result_file(path) else _read_result(path)
        env = opened.env if isinstance(opened, OpenedResult) else opened
        env.job_index, env.node_index  # noqa: B018 (the document's lookups by id, cached: 200,000 jobs, 40-80 ms)
        if len(env.jobs) >= FREEZE_FROM:
            keep_from_collector()  # (``prepare`` has done it for a result; this one is cheap)
    return opened


def _read_result(path: Path) -> OpenedResult:
    named: list[str] = []

    def environment(where: str) -> Environment:
        named.append(where)
        return load_environment(where)

    env, schedule = load_result(path, environment)
    with contextlib.suppress(WorkbenchError):  # the document names the result's strategy, if it is known here
        name = registry.get(schedule.strategy).name
        if name != env.strategy.name:
            env = jobarrays.share(env, replace(env, strategy=StrategyRef(name)))
    prepare(env, schedule)
    source = None if is_container(path) else Path(named[0])
    return OpenedResult(env, schedule, source)


def autosave_path() -> Path:
    folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(folder) / "autosave.json"


def autosave_paths() -> tuple[Path, Path]:
    """Where an autosave is kept: as JSON, or (a large document) in the container."""
    text = autosave_path()
    return text, text.with_suffix(".npz")


def found_autosave() -> Path | None:
    """The autosave left by a session that did not close, the newest if there are two."""
    found = [p for p in autosave_paths() if p.exists()]
    return max(found, key=lambda p: p.stat().st_mtime) if found else None


def settings_list(settings: Any, key: str) -> list[str]:
    """A list of strings kept in the settings (QSettings gives a lone string for a one-item list)."""
    value = settings.value(key, [])
    if isinstance(value, str):
        value = [value]
    return [str(v) for v in value or []]


class WindowFiles:
    """A mixin of ``MainWindow``: it reads the window's document, chart, settings and menus."""

    document: Any
    chart: Any
    settings: Any
    recent_menu: Any
    opener: Any
    autosaver: Any
    autosave_timer: Any
    runner: Any
    _opening: Path

    def open_path(self, path: Path) -> bool:
        """Open a file here and now (the tests' and scripts' way; the menus open in the background)."""
        try:
            opened = read_file(path)
        except WorkbenchError as exc:
            self._open_failed(path, str(exc))
            return False
        self._open_read(0, opened, None, Path(path))
        return True

    def open_in_background(self, path: Path) -> None:
        """Open a file, reading and checking it in a worker (an 8 MB environment: 0.2-0.4 s of
        parsing); the document changes when it is read. A later open supersedes this one."""
        self.statusBar().showMessage(f"Opening {path}…")
        self.opener.start(lambda token: read_file(path))  # a later start drops this answer
        self._opening = Path(path)

    def _open_read(self, ticket: int, opened: object, error: str | None, path: Path | None = None) -> None:
        # (``BackgroundCall`` delivers only the latest start's answer: no ticket to check here.)
        path = self._opening if path is None else path
        self.statusBar().clearMessage()
        if error is None and isinstance(opened, OpenedResult):
            self._opened_result(path, opened)
        elif error is not None or not isinstance(opened, Environment):
            self._open_failed(path, error or "not an environment")
        else:
            self._opened(path, opened)

    def _opened_result(self, path: Path, opened: OpenedResult) -> None:
        """Show a result as it was saved, without running: the environment it holds (or names) becomes
        the document, and the live run that an opened document starts is called off."""
        self.document.replace_environment(opened.env, opened.environment_path)
        self.show_opened_result(path, opened)

    def show_opened_result(self, path: Path, opened: OpenedResult) -> None:
        """Show ``opened``'s schedule as the document's result, calling off the live run."""
        schedule = opened.schedule
        self.runner.cancel()
        self.runner.busy = False
        self.document.set_result(self.document.version, schedule)
        self.add_recent(path)
        self.chart.fit()
        self.clear_autosave()
        self.statusBar().showMessage(
            f"Opened the result of {schedule.strategy} from {Path(path).name}: {len(schedule.windows):,} windows, "
            f"{len(schedule.unscheduled):,} jobs left out; not run again (F5 runs it)",
            15000,
        )

    def _open_failed(self, path: Path, message: str) -> None:
        if not Path(path).exists():  # gone: Open Recent offers it no more
            self._forget_recent(path)
        self.error("Cannot open environment", f"{path}\n\n{message}")

    def _opened(self, path: Path, env: Environment) -> None:
        self.document.replace_environment(env, Path(path))
        self.add_recent(path)
        self.chart.fit()
        self.clear_autosave()

    def recent_files(self) -> list[str]:
        return settings_list(self.settings, "recent")

    def add_recent(self, path: Path) -> None:
        items = [str(Path(path).resolve())] + [p for p in self.recent_files() if p != str(Path(path).resolve())]
        self.settings.setValue("recent", items[:MAX_RECENT])
        self._fill_recent()

    def _forget_recent(self, path: Path) -> None:
        gone = str(Path(path).resolve())
        self.settings.setValue("recent", [p for p in self.recent_files() if p != gone])
        self._fill_recent()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for item in self.recent_files():
            self.recent_menu.addAction(item, lambda p=item: self.confirm_discard() and self.open_in_background(Path(p)))
        self.recent_menu.setEnabled(bool(self.recent_files()))

    def _restore_layout(self) -> None:
        geometry = self.settings.value("geometry")
        state = self.settings.value("state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)

    def write_autosave(self) -> None:
        if self.document.modified:
            try:
                self.document.write_autosave(autosave_path())
            except WorkbenchError as exc:
                self.statusBar().showMessage(f"Autosave failed: {exc}", 5000)

    def autosave_in_background(self) -> None:
        if not self.document.modified:
            return
        env, original = self.document.env, self.document.path
        if len(env.jobs) > AUTOSAVE_CONTAINER_JOBS:  # written in the worker, in the container
            target = autosave_paths()[1]
            self.autosaver.start(lambda token: write_autosave_container(env, original, target))
        else:
            self.autosaver.start(lambda token: autosave_text(env, original))  # a later start or a stop drops it

    def _autosave_built(self, ticket: int, text: object, error: str | None) -> None:
        text_path, box_path = autosave_paths()
        if not self.document.modified:  # saved, opened or cleared since: this state needs no recovery file
            if text is None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(box_path)
            return
        try:
            if error is not None:
                raise WorkbenchError(error)
            if text is not None:
                write_autosave_text(str(text), text_path)
            with contextlib.suppress(FileNotFoundError):  # one autosave only: the one just written
                os.unlink(box_path if text is not None else text_path)
        except WorkbenchError as exc:
            self.statusBar().showMessage(f"Autosave failed: {exc}", 5000)

    def clear_autosave(self) -> None:
        self.autosave_timer.stop()
        self.autosaver.stop()  # an autosave being built is dropped
        for path in autosave_paths():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
