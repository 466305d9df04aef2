"""The open document: environment history, undo/redo, the current result, plain-callback events.

Undo and redo move along a list of immutable environments (docs/style.md point 4):
an edit appends, undo steps back. The strategy and its parameters live in the
environment, so choosing a strategy is an undoable edit too. Views subscribe
to ``events`` and never own the data.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.engine import registry
from workbench.engine.errors import ValidationError, WorkbenchError
from workbench.engine.files import environment_from_dict, load_environment, save_environment
from workbench.engine.io import container
from workbench.engine.io.atomic import write_text_atomic
from workbench.engine.io.envfile import environment_to_dict
from workbench.engine.io.text import read_text
from workbench.engine.model import Environment, TimeSettings
from workbench.engine.schedule import Schedule
from workbench.session.edits import Edit

AUTOSAVE_FORMAT = "workbench.autosave"


class Event:
    """A list of plain callbacks (the Qt bridge turns them into signals)."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[..., None]] = []

    def connect(self, callback: Callable[..., None]) -> None:
        self._callbacks.append(callback)

    def disconnect(self, callback: Callable[..., None]) -> None:
        if callback in self._callbacks:
            self._callbacks.remove(callback)

    def emit(self, *args: Any) -> None:
        for callback in list(self._callbacks):
            callback(*args)


class Events:
    def __init__(self) -> None:
        self.environment = Event()  # (env): the environment changed (edit, undo, open)
        self.result = Event()  # (schedule or None, error or None): a run finished
        self.path = Event()  # (path or None, modified): file name or saved state changed
        self.replaced = Event()  # (env): another document (new, opened, imported); then environment


class Document:
    """Current environment + history + the last result of the current strategy."""

    def __init__(self, env: Environment | None = None, path: Path | None = None) -> None:
        self.events = Events()
        self._history: list[tuple[Environment, str]] = [(env or empty_environment(), "open")]
        self._index = 0
        self._saved_index = 0
        self.path = path
        self.result: Schedule | None = None
        self.error: str | None = None
        self.version = 0  # bumps with every change, so stale results can be told apart

    # ------------------------------------------------------------ state

    @property
    def env(self) -> Environment:
        return self._history[self._index][0]

    @property
    def modified(self) -> bool:
        return self._index != self._saved_index

    @property
    def can_undo(self) -> bool:
        return self._index > 0

    @property
    def can_redo(self) -> bool:
        return self._index < len(self._history) - 1

    @property
    def undo_text(self) -> str:
        return self._history[self._index][1] if self.can_undo else ""

    @property
    def redo_text(self) -> str:
        return self._history[self._index + 1][1] if self.can_redo else ""

    # ------------------------------------------------------------ editing

    def apply(self, edit: Edit) -> Environment:
        """Apply an edit as one undoable step; a ValidationError leaves everything as it was."""
        new = edit.apply(self.env)
        if new == self.env:
            return new
        del self._history[self._index + 1 :]
        if self._saved_index > self._index:
            self._saved_index = -1  # the saved state can no longer be reached by redo
        self._history.append((new, edit.name))
        self._index += 1
        self._changed()
        return new

    def undo(self) -> None:
        if self.can_undo:
            self._index -= 1
            self._changed()

    def redo(self) -> None:
        if self.can_redo:
            self._index += 1
            self._changed()

    def _changed(self) -> None:
        self.version += 1
        self.result, self.error = None, None
        self.events.environment.emit(self.env)
        self.events.path.emit(self.path, self.modified)

    # ------------------------------------------------------------ results

    def set_result(self, version: int, schedule: Schedule | None, error: str | None = None) -> bool:
        """Store a run's result if it belongs to the current version; False if it is stale."""
        if version != self.version:
            return False
        self.result, self.error = schedule, error
        self.events.result.emit(schedule, error)
        return True

    # ------------------------------------------------------------ files

    def replace_environment(self, env: Environment, path: Path | None, saved: bool = True) -> None:
        """Start over on another environment: a fresh history. ``saved=False`` for one that exists
        only in memory (imported, generated), so that the title marks it and quitting asks first."""
        self._history = [(env, "open")]
        self._index = 0
        self._saved_index = 0 if saved else -1
        self.path = path
        self.events.replaced.emit(env)
        self._changed()

    def mark_modified(self) -> None:
        """Treat the current state as unsaved (e.g. recovered from an autosave)."""
        self._saved_index = -1
        self.events.path.emit(self.path, self.modified)

    def open(self, path: Path) -> None:
        """Load a file; on any error the current document is left untouched."""
        env = load_environment(path)
        self.replace_environment(env, Path(path))

    def save(self, path: Path | None = None) -> Path:
        target = Path(path) if path is not None else self.path
        if target is None:
            raise WorkbenchError("no file name: use Save As")
        save_environment(self.env, target)
        self.path = target
        self._saved_index = self._index
        self.events.path.emit(self.path, self.modified)
        return target

    # ------------------------------------------------------------ autosave

    def write_autosave(self, path: Path) -> None:
        """Save the unsaved state beside the user's files, for recovery after a crash."""
        write_autosave_text(autosave_text(self.env, self.path), path)


def autosave_text(env: Environment, original: Path | None) -> str:
    """An autosave's contents: the environment and the file it came from. Pure (the environment is
    immutable), so it may be built away from the GUI thread."""
    doc = {
        "format": AUTOSAVE_FORMAT,
        "path": str(original) if original else None,
        "environment": environment_to_dict(env),
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


AUTOSAVE_CONTAINER_JOBS = 20_000  # a larger document is autosaved in the container (.npz), not as JSON


def write_autosave_container(env: Environment, original: Path | None, path: Path) -> None:
    """An autosave of a large document: the container, naming the file it came from. Pure of the GUI,
    so it runs in a worker (200,000 jobs: about 0.4 s, against some 4 s as JSON text)."""
    meta, arrays = container.environment_arrays(env)
    meta["autosave_of"] = str(original) if original else None
    os.makedirs(Path(path).parent, exist_ok=True)
    container.write_container(path, "autosave", meta, arrays)


def write_autosave_text(text: str, path: Path) -> None:
    os.makedirs(Path(path).parent, exist_ok=True)
    write_text_atomic(text, path)


def read_autosave(path: Path) -> tuple[Environment, Path | None]:
    """The environment and original file of an autosave (ValidationError if it is unusable)."""
    if container.is_container(path):
        with container.Container(path) as box:
            env = container.environment_from_container(box, registry.check_strategy)
            named = box.meta.get("autosave_of")
        return env, Path(named) if isinstance(named, str) else None
    try:
        data = json.loads(read_text(path))  # the same limits as any environment file
    except (WorkbenchError, json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise ValidationError("$", f"unreadable autosave ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != AUTOSAVE_FORMAT:
        raise ValidationError("$.format", f"expected {AUTOSAVE_FORMAT!r}")
    env = environment_from_dict(data.get("environment"))
    original = data.get("path")
    return env, Path(original) if isinstance(original, str) else None


def empty_environment() -> Environment:
    """What File > New starts from: four nodes, no tasks, no jobs, one cycle of 100."""
    from workbench.engine.model import Node

    nodes = tuple(Node(f"n{i}", f"node {i}", float(2 * i), float(i)) for i in range(1, 5))
    return Environment(nodes=nodes, time=TimeSettings(0.0, 100.0, 100.0), name="untitled")
