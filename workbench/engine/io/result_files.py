"""Result files: a run's schedule written as JSON or in the container, and read back to be shown.

``schedule --out`` and the GUI's result export pick the format by the suffix (``.json`` or
``.npz``). The container keeps the environment the run was made on; a JSON result names its
environment file (``"environment"``, relative to the result when it sits beside it). Either can be
opened again (``load_result``) without running the strategy: the windows, the jobs left out and
their reasons come back as a ``Schedule``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from workbench.engine import kernels
from workbench.engine.errors import ValidationError, WorkbenchError, show
from workbench.engine.io import container
from workbench.engine.io.atomic import write_text_atomic
from workbench.engine.io.result import WORK_COUNTS, result_summary, result_text, schedule_to_dict
from workbench.engine.io.text import parse_json, read_text
from workbench.engine.metrics import BOUNDED_SLOWDOWN_THRESHOLD, window_arrays
from workbench.engine.model import Environment, Window
from workbench.engine.schedule import LazyEnds, LazyWindows, Schedule, WindowArrays

RESULT_KIND = "result"
WINDOW_COLUMNS = {
    "job": "i",
    "start": "f",
    "length": "f",
    "cost": "f",
    "actual_end": "f",
    "overhead": "f",
    "width": "i",
}


def save_result(
    env: Environment,
    schedule: Schedule,
    path: str | os.PathLike[str],
    threshold: float = BOUNDED_SLOWDOWN_THRESHOLD,
    environment: str | None = None,
) -> None:
    """Write the result of ``schedule`` on ``env`` as its suffix asks (``.json`` or ``.npz``)."""
    if container.writer_suffix(path, "a result") == container.SUFFIX:
        _save_container(env, schedule, path, threshold, environment)
        return
    if environment is not None:
        environment = _relative(environment, path)
    write_text_atomic(result_text(schedule_to_dict(env, schedule, threshold, environment)), path)


def _relative(environment: str, result: str | os.PathLike[str]) -> str:
    """The environment's path as the result should record it: relative when beside or below it."""
    env_path, folder = Path(environment).resolve(), Path(result).resolve().parent
    try:
        return str(env_path.relative_to(folder))
    except ValueError:
        return str(env_path)


def _save_container(
    env: Environment, schedule: Schedule, path: str | os.PathLike[str], threshold: float, environment: str | None
) -> None:
    summary = result_summary(env, schedule, threshold, environment)
    meta, arrays = container.environment_arrays(env)
    a = window_arrays(env, schedule)
    if isinstance(schedule.windows, LazyWindows):  # a compiled run's: square windows, still columns
        rough = np.zeros(a.start.size, dtype=np.int8)
    else:
        rough = np.fromiter((bool(w.lengths) for w in schedule.windows), dtype=np.int8, count=a.start.size)
    arrays |= {
        "windows.job": a.job_row,
        "windows.start": a.start,
        "windows.length": a.length,
        "windows.cost": a.cost,
        "windows.actual_end": a.actual,
        "windows.overhead": a.overhead,
        "windows.width": a.width,
        "windows.nodes": a.part_node,
        "windows.rough": rough,
        "windows.lengths": a.part_length[rough.astype(bool)[a.part_window]],
    }
    job_of = env.job_index
    failed = list(schedule.unscheduled)
    arrays["failed.job"] = np.array([job_of[j] for j in failed], dtype=np.int64)
    arrays["failed.reason"] = container.text_array([schedule.reasons.get(j, "") for j in failed])
    container.write_container(path, RESULT_KIND, {**meta, "result": summary}, arrays)


def load_result(
    path: str | os.PathLike[str], on_environment: Callable[[str], Environment]
) -> tuple[Environment, Schedule]:
    """The environment and schedule of a result file; ``on_environment(path)`` loads the environment
    a JSON result names (a container holds its own)."""
    if container.is_container(path):
        with container.Container(path) as box:
            if box.kind != RESULT_KIND:
                raise WorkbenchError(f"{path}: holds an {box.kind or 'unknown thing'}, not a result")
            env = container.environment_from_container(box)
            return env, _schedule_from_container(box, env)
    data = parse_json(read_text(path))
    if not isinstance(data, dict) or "windows" not in data or "strategy" not in data:
        raise ValidationError(
            "$", "not a result file (no 'strategy' and 'windows'); expected the JSON `schedule --out` writes"
        )
    named = data.get("environment")
    if not isinstance(named, str) or not named:
        raise ValidationError("$.environment", "missing: this result does not name the environment it was run on")
    where = Path(named) if Path(named).is_absolute() else Path(path).resolve().parent / named
    env = on_environment(str(where))
    return env, _schedule_from_json(data, env)


def _schedule_from_container(box: container.Container, env: Environment) -> Schedule:
    doc = box.meta.get("result")
    if not isinstance(doc, dict):
        raise ValidationError(f"{box.path}: meta.result", "missing: the container holds no result")
    cols = {name: box.column(f"windows.{name}", kind, None) for name, kind in WINDOW_COLUMNS.items()}
    m = cols["job"].size
    for name, values in cols.items():
        if values.size != m:
            raise ValidationError(box.path, f"column windows.{name}: {values.size:,} rows, expected {m:,}")
    job, width = cols["job"], cols["width"]
    _in_range(box.path, "windows.job", job, len(env.jobs))
    _in_range(box.path, "windows.width", width - 1, len(env.nodes))
    nodes = box.column("windows.nodes", "i", int(width.sum()))
    _in_range(box.path, "windows.nodes", nodes, len(env.nodes))
    rough = box.column("windows.rough", "c", m).astype(bool)
    lengths = box.column("windows.lengths", "f", int(width[rough].sum()))
    for name in ("start", "length", "cost", "actual_end", "overhead"):
        bad = np.flatnonzero(~np.isfinite(cols[name]))
        if bad.size:
            raise ValidationError(f"{box.path}: windows.{name}, row {int(bad[0])}", "expected a finite number")
    ids = [j.id for j in env.jobs]
    names = [n.id for n in env.nodes]
    windows: Sequence[Window]
    ends: Mapping[str, float]
    arrays: WindowArrays | None = None
    if not rough.any() and not cols["overhead"].any():  # square, on one site: columns until read
        part_window, part_length = np.empty(nodes.size, dtype=np.int64), np.empty(nodes.size)
        kernels.window_rows(width, cols["length"], part_window, part_length)
        a = WindowArrays(
            job, cols["start"], cols["length"], cols["cost"], cols["actual_end"], np.zeros(0), width, cols["overhead"],
            nodes, part_window, part_length,
        )  # fmt: skip
        windows, ends, arrays = LazyWindows(a, ids, names), LazyEnds(a, ids), a
    else:
        windows = _records(cols, rough, nodes, lengths, ids, names)
        ends = {w.job: end for w, end in zip(windows, cols["actual_end"].tolist(), strict=True)}
    failed = box.column("failed.job", "i", None)
    _in_range(box.path, "failed.job", failed, len(env.jobs))
    reasons = box.column("failed.reason", "u", failed.size).tolist()
    unscheduled = tuple(ids[j] for j in failed.tolist())
    return Schedule(
        str(doc.get("strategy", "")),
        windows,
        unscheduled,
        dict(zip(unscheduled, reasons, strict=True)),
        float(doc.get("elapsed_ms") or 0.0),
        actual_ends=ends,
        counts=_counts(doc.get("work")),
        arrays=arrays,
    )


def _records(
    cols: dict[str, np.ndarray],
    rough: np.ndarray,
    nodes: np.ndarray,
    lengths: np.ndarray,
    ids: list[str],
    names: list[str],
) -> tuple[Window, ...]:
    """The windows as records, rough right edges included."""
    node_names = [names[k] for k in nodes.tolist()]
    out, at, at_rough = [], 0, 0
    listed = (cols[x].tolist() for x in ("job", "start", "length", "cost", "overhead", "width"))
    for j, t, T, c, over, n, r in zip(*listed, rough.tolist(), strict=True):
        parts = tuple(lengths[at_rough : at_rough + n].tolist()) if r else ()
        at_rough += n if r else 0
        out.append(Window(ids[j], t, T, tuple(node_names[at : at + n]), c, parts, over))
        at += n
    return tuple(out)


def _in_range(path: str, column: str, values: np.ndarray, size: int) -> None:
    bad = np.flatnonzero((values < 0) | (values >= size))
    if bad.size:
        raise ValidationError(
            f"{path}: {column}, row {int(bad[0])}", f"expected an index from 0 to {size - 1}, got {int(values[bad[0]])}"
        )


def _schedule_from_json(data: dict[str, Any], env: Environment) -> Schedule:
    known = env.job_index
    nodes = set(env.node_index)
    windows, ends = [], {}
    items = data.get("windows")
    if not isinstance(items, list):
        raise ValidationError("$.windows", "expected a list")
    for k, w in enumerate(items):
        where = f"$.windows[{k}]"
        try:
            job, parts = w["job"], tuple(w["nodes"])
            window = Window(
                job,
                float(w["start"]),
                float(w["length"]),
                parts,
                float(w["cost"]),
                tuple(map(float, w.get("lengths", ()))),
                float(w.get("overhead", 0.0)),
            )
            end = float(w["actual_end"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValidationError(
                where, f"expected a window with job, start, length, nodes, cost and actual_end ({exc})"
            ) from None
        if job not in known:
            raise ValidationError(f"{where}.job", f"no job has id {show(job)} in the environment")
        if not set(parts) <= nodes:
            raise ValidationError(f"{where}.nodes", "names a node the environment does not have")
        windows.append(window)
        ends[job] = end
    unscheduled = tuple(str(j) for j in data.get("unscheduled") or ())
    reasons = {str(k): str(v) for k, v in (data.get("reasons") or {}).items()}
    return Schedule(
        str(data["strategy"]),
        tuple(windows),
        unscheduled,
        reasons,
        float(data.get("elapsed_ms") or 0.0),
        actual_ends=ends,
        counts=_counts(data.get("work")),
    )


def _counts(work: Any) -> dict[str, float]:
    if not isinstance(work, dict):
        return {}
    return {key: float(work[name]) for name, key in WORK_COUNTS.items() if isinstance(work.get(name), int | float)}


def is_result_file(path: str | os.PathLike[str]) -> bool:
    """Does ``path`` hold a result (a container of kind result, or a JSON file with windows)?"""
    if container.is_container(path):
        try:
            with container.Container(path) as box:
                return box.kind == RESULT_KIND
        except WorkbenchError:
            return False
    try:
        with open(path, encoding="utf-8") as handle:
            head = handle.read(4096)
    except (OSError, UnicodeDecodeError):
        return False
    return '"windows"' in head and '"strategy"' in head and '"format"' not in head
