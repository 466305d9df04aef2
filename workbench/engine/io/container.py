"""The binary columnar container (``.npz``) for large environments and results (docs/formats.md).

One file holds an environment's tables (nodes, local tasks, jobs) as columns and its metadata
(format, version, time settings, strategy, sites) as a JSON text; a result adds its windows, the
jobs left out, the measures and the run's work, and keeps its environment, so it can be opened
again without running. It is a NumPy ``.npz`` archive written uncompressed, so a script reads a
column with ``numpy.load(path)["jobs.volume"]``; no column holds Python objects (it is read with
``allow_pickle=False``).

Reading checks everything before building anything: the archive and its schema version, each
column's type and length, then each field's rule over whole columns (``io/columns.py``), naming
the column and row of the first mistake. The guard against hostile files is the rows a file holds
(``limits.py``) and the memory its columns need, read from the archive's directory before any
column is loaded.
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from workbench.engine import jobarrays
from workbench.engine.errors import ValidationError, WorkbenchError, show
from workbench.engine.io import columns
from workbench.engine.io.limits import MAX_ITEMS, MAX_MAGNITUDE, MAX_NODES, memory_problem
from workbench.engine.model import (
    JOB_CRITERIA,
    TASK_KINDS,
    Environment,
    LocalTask,
    Node,
)

FORMAT = "workbench.container"
VERSION = 1
SUFFIX = ".npz"
META = "meta"

# Each table's columns and their kind: f (float64), i (int64), u (text), c (a code into a list).
NODE_COLUMNS = {"id": "u", "name": "u", "performance": "f", "price": "f", "site": "u"}
TASK_COLUMNS = {"id": "u", "node": "i", "start": "f", "end": "f", "kind": "c", "label": "u"}
JOB_COLUMNS = {
    "id": "u",
    "name": "u",
    "node_count": "i",
    **dict.fromkeys(columns.NUMBERS, "f"),
    "criterion": "c",
    "user": "u",
    "site": "u",
}
CODES = {"local_tasks.kind": TASK_KINDS, "jobs.criterion": JOB_CRITERIA}
KIND_WORDS = {"f": "float64 numbers", "i": "whole numbers (int64)", "u": "text", "c": "codes (int8)"}


JSON_SUFFIX = ".json"
SUFFIXES = (JSON_SUFFIX, SUFFIX)


def is_container(path: str | os.PathLike[str]) -> bool:
    """Is ``path`` named as a container (its suffix)?"""
    return Path(path).suffix.lower() == SUFFIX


def writer_suffix(path: str | os.PathLike[str], what: str = "an environment") -> str:
    """The format a file name asks for: ``.json`` or ``.npz``; any other suffix is refused."""
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise WorkbenchError(
            f"{path}: the suffix picks the format of {what}: .json (text) or .npz (the columnar container), "
            f"not {suffix or 'none'}"
        )
    return suffix


# ---------------------------------------------------------------- writing


def text_array(values: list[str]) -> np.ndarray:
    return np.array(values, dtype=str) if values else np.zeros(0, dtype="<U1")


def environment_arrays(env: Environment) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The metadata and the columns of ``env``."""
    node_of = env.node_index
    meta = {
        "name": env.name,
        "description": env.description,
        "time": {
            "start": env.time.start,
            "cycle_length": env.time.cycle_length,
            "horizon": env.time.horizon,
            "unit": env.time.unit,
        },
        "strategy": {"name": env.strategy.name, "params": dict(env.strategy.params)},
        "sites": [[s.id, s.name] for s in env.sites],
        "attributes": [[list(pair) for pair in n.attributes] for n in env.nodes],
    }
    arrays: dict[str, np.ndarray] = {
        "nodes.id": text_array([n.id for n in env.nodes]),
        "nodes.name": text_array([n.name for n in env.nodes]),
        "nodes.performance": np.array([n.performance for n in env.nodes], dtype=np.float64),
        "nodes.price": np.array([n.price for n in env.nodes], dtype=np.float64),
        "nodes.site": text_array([n.site for n in env.nodes]),
        "local_tasks.id": text_array([t.id for t in env.local_tasks]),
        "local_tasks.node": np.array([node_of[t.node] for t in env.local_tasks], dtype=np.int64),
        "local_tasks.start": np.array([t.start for t in env.local_tasks], dtype=np.float64),
        "local_tasks.end": np.array([t.end for t in env.local_tasks], dtype=np.float64),
        "local_tasks.kind": np.array([TASK_KINDS.index(t.kind) for t in env.local_tasks], dtype=np.int8),
        "local_tasks.label": text_array([t.label for t in env.local_tasks]),
    }
    cols = columns.job_columns(env.jobs)
    for name, kind in JOB_COLUMNS.items():
        key = f"jobs.{name}"
        if kind == "u":
            arrays[key] = text_array(cols[name])
        elif kind == "c":
            code = {c: i for i, c in enumerate(JOB_CRITERIA)}
            arrays[key] = np.array([code[c] for c in cols[name]], dtype=np.int8)
        else:
            arrays[key] = np.asarray(cols[name], dtype=np.float64 if kind == "f" else np.int64)
    return meta, arrays


def write_container(
    path: str | os.PathLike[str], kind: str, meta: dict[str, Any], arrays: dict[str, np.ndarray]
) -> None:
    """Write ``arrays`` and ``meta`` (with the format, version and kind) atomically to ``path``."""
    from workbench.engine.io.atomic import write_bytes_atomic

    head = {"format": FORMAT, "version": VERSION, "kind": kind, **meta}
    text = json.dumps(head, ensure_ascii=False, allow_nan=True)
    payload = {META: np.frombuffer(text.encode("utf-8"), dtype=np.uint8), **arrays}

    def write(handle: BinaryIO) -> None:
        np.savez(handle, **payload)  # type: ignore[arg-type]  # (numpy's stub types the keywords)

    write_bytes_atomic(write, path)


def save_environment_container(env: Environment, path: str | os.PathLike[str]) -> None:
    meta, arrays = environment_arrays(env)
    write_container(path, "environment", meta, arrays)


# ---------------------------------------------------------------- reading


class Container:
    """An open container: its metadata read and checked, its columns read on request."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        try:
            info = os.stat(path)
        except FileNotFoundError:
            raise WorkbenchError(f"{path}: no such file") from None
        except OSError as exc:
            raise WorkbenchError(f"{path}: cannot read ({exc.strerror})") from None
        if not os.path.isfile(path):
            raise WorkbenchError(f"{path}: not a regular file; expected a file")
        try:
            with zipfile.ZipFile(path) as archive:
                sizes = {i.filename.removesuffix(".npy"): i.file_size for i in archive.infolist()}
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
            raise WorkbenchError(f"{path}: not a whole container ({exc}); was it cut short?") from None
        problem = memory_problem(sum(sizes.values()), f"its {info.st_size / 2**20:,.0f} MiB")
        if problem:
            raise WorkbenchError(f"{path}: {problem}")
        self.sizes = sizes
        try:
            self._npz = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise WorkbenchError(f"{path}: not a whole container ({exc})") from None
        try:
            self.meta = self._meta(sizes)
        except WorkbenchError:
            self._npz.close()
            raise
        self.kind = str(self.meta.get("kind", ""))

    def _meta(self, sizes: dict[str, int]) -> dict[str, Any]:
        path = self.path
        if META not in sizes:
            raise WorkbenchError(f"{path}: not a workbench container (no '{META}' entry); expected {FORMAT}")
        try:
            meta = json.loads(bytes(self._read(META)).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise WorkbenchError(f"{path}: its '{META}' entry is not JSON ({exc})") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            found = meta.get("format") if isinstance(meta, dict) else meta
            raise WorkbenchError(f"{path}: not a workbench container (format {show(found)})")
        if meta.get("version") != VERSION:
            raise WorkbenchError(
                f"{path}: container version {show(meta.get('version'))}; this workbench reads version {VERSION}"
            )
        return meta

    def _read(self, key: str) -> np.ndarray:
        try:
            return self._npz[key]
        except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as exc:
            raise WorkbenchError(f"{self.path}: column {key} cannot be read ({exc}); was the file cut short?") from None

    def column(self, key: str, kind: str, rows: int | None) -> np.ndarray:
        """Column ``key``, checked to be 1-D, of ``kind`` and (when given) ``rows`` long."""
        if key not in self.sizes:
            raise ValidationError(self.path, f"column {key} is missing")
        values = self._read(key)
        expected = {"f": "f", "i": "iu", "u": "U", "c": "iu"}[kind]
        if values.ndim != 1 or values.dtype.kind not in expected:
            raise ValidationError(
                self.path, f"column {key}: expected {KIND_WORDS[kind]}, got {values.dtype} of shape {values.shape}"
            )
        if rows is not None and values.size != rows:
            raise ValidationError(self.path, f"column {key}: {values.size:,} rows, expected {rows:,}")
        return values

    def close(self) -> None:
        self._npz.close()

    def __enter__(self) -> Container:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _row_where(path: str, table: str) -> Callable[[int, str], str]:
    return lambda row, column: f"{path}: {table}.{column}, row {row}"


def _codes(box: Container, key: str, rows: int) -> list[str]:
    words = CODES[key]
    codes = box.column(key, "c", rows)
    bad = np.flatnonzero((codes < 0) | (codes >= len(words)))
    if bad.size:
        raise ValidationError(
            f"{box.path}: {key}, row {int(bad[0])}",
            f"expected a code from 0 to {len(words) - 1}, got {int(codes[bad[0]])}",
        )
    return [words[c] for c in codes.tolist()]


def _count(box: Container, table: str, limit: int) -> int:
    rows = int(box.sizes.get(f"{table}.id", 0) and box._read(f"{table}.id").size)
    if rows > limit:
        raise ValidationError(f"{box.path}: {table}", f"{rows:,} rows; the limit is {limit:,}")
    return rows


def environment_from_container(box: Container, check_strategy: Any = None) -> Environment:
    """The environment a container holds, every column checked first (nothing is built half)."""
    from workbench.engine.io import envfile

    path, meta = box.path, box.meta
    n_nodes = _count(box, "nodes", MAX_NODES)
    if n_nodes < 1:
        raise ValidationError(f"{path}: nodes", "expected at least one node")
    node_cols = {name: box.column(f"nodes.{name}", kind, n_nodes) for name, kind in NODE_COLUMNS.items()}
    n_tasks, n_jobs = _count(box, "local_tasks", MAX_ITEMS), _count(box, "jobs", MAX_ITEMS)
    task_cols = {
        name: box.column(f"local_tasks.{name}", kind, n_tasks) for name, kind in TASK_COLUMNS.items() if kind != "c"
    }
    kinds = _codes(box, "local_tasks.kind", n_tasks)
    job_cols: dict[str, Any] = {}
    for name, kind in JOB_COLUMNS.items():
        if kind == "c":
            job_cols[name] = _codes(box, f"jobs.{name}", n_jobs)
        else:
            values = box.column(f"jobs.{name}", kind, n_jobs)
            job_cols[name] = values.tolist() if kind == "u" else values
    # The document: the same records as the JSON file's, nodes and tasks through its own checks.
    attributes = meta.get("attributes") or [[] for _ in range(n_nodes)]
    if not isinstance(attributes, list) or len(attributes) != n_nodes:
        raise ValidationError(f"{path}: meta.attributes", f"expected a list of {n_nodes:,} entries, one per node")
    doc = {
        "format": envfile.FORMAT,
        "version": envfile.VERSION,
        "name": meta.get("name", ""),
        "description": meta.get("description", ""),
        "time": meta.get("time", {}),
        "nodes": [
            {
                "id": i,
                "name": nm,
                "performance": p,
                "price": c,
                "attributes": dict(a) if isinstance(a, list) else a,
                **({"site": s} if s else {}),
            }
            for i, nm, p, c, s, a in zip(
                node_cols["id"].tolist(),
                node_cols["name"].tolist(),
                node_cols["performance"].tolist(),
                node_cols["price"].tolist(),
                node_cols["site"].tolist(),
                attributes,
                strict=True,
            )
        ],
        "strategy": meta.get("strategy"),
    }
    if meta.get("sites"):
        doc["sites"] = [{"id": s[0], "name": s[1]} for s in meta["sites"] if isinstance(s, list) and len(s) == 2]
    try:
        shell = envfile.environment_from_dict(doc, check_strategy)
    except ValidationError as exc:  # a node's row, or the metadata's field, as the JSON file's path
        raise ValidationError(f"{path}: {exc.path}", exc.message) from None
    node_index = task_cols["node"]
    bad = np.flatnonzero((node_index < 0) | (node_index >= n_nodes))
    if bad.size:
        raise ValidationError(
            f"{path}: local_tasks.node, row {int(bad[0])}", f"no node has index {int(node_index[bad[0]])}"
        )
    tasks = _tasks(path, task_cols, kinds, shell.nodes)
    sites = set(shell.site_ids)
    columns.check_job_columns(job_cols, _row_where(path, "jobs"), sites)
    jobs = columns.jobs_from_columns(job_cols)
    from dataclasses import replace

    env = replace(shell, local_tasks=tasks, jobs=jobs)
    jobarrays.seed(env, job_cols)  # the columns the jobs were made from, kept for the run and measures
    return env


def _tasks(path: str, cols: dict[str, np.ndarray], kinds: list[str], nodes: tuple[Node, ...]) -> tuple[LocalTask, ...]:
    from workbench.engine.io.envfile import check_overlaps

    where = _row_where(path, "local_tasks")
    ids = cols["id"].tolist()
    labels = cols["label"].tolist()
    columns.check_text_column(ids, "id", where)
    columns.check_text_column(labels, "label", where, free=True)
    columns.check_unique(ids, where, "local task")
    start, end = cols["start"], cols["end"]
    for name, values in (("start", start), ("end", end)):
        bad = np.flatnonzero(~np.isfinite(values) | (np.abs(values) > MAX_MAGNITUDE))
        if bad.size:
            raise ValidationError(where(int(bad[0]), name), f"expected a finite number, got {float(values[bad[0]])}")
    bad = np.flatnonzero(end <= start)
    if bad.size:
        i = int(bad[0])
        raise ValidationError(where(i, "end"), f"expected a number > start ({start[i]:g}), got {end[i]:g}")
    node_ids = [n.id for n in nodes]
    tasks = tuple(
        LocalTask(i, node_ids[k], s, e, kind, label)
        for i, k, s, e, kind, label in zip(
            ids, cols["node"].tolist(), start.tolist(), end.tolist(), kinds, labels, strict=True
        )
    )
    check_overlaps(tasks)
    return tasks


def load_environment_container(path: str | os.PathLike[str], check_strategy: Any = None) -> Environment:
    """Read and check the environment of a container (an environment's or a result's)."""
    with Container(path) as box:
        return environment_from_container(box, check_strategy)
