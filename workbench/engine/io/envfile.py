"""Environment files: JSON version 1 (docs/design.md "Environment file").

Loading validates everything and names the JSON path of the first mistake and
what was expected there. Saving is atomic: a temporary file in the same folder,
flushed to disk, then renamed over the target, so a crash never leaves a
half-written file. ``environment_from_dict(environment_to_dict(env)) == env``.
"""

from __future__ import annotations

import contextlib
import glob
import gzip
import itertools
import json
import math
import os
import stat
import tempfile
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from workbench.engine.errors import ParameterError, ValidationError, WorkbenchError, show, text_problem
from workbench.engine.model import (
    EPS,
    JOB_CRITERIA,
    TASK_KINDS,
    Environment,
    Job,
    LocalTask,
    Node,
    Site,
    StrategyRef,
    TimeSettings,
)

FORMAT = "workbench.environment"
VERSION = 1

# Limits of what a file may ask for (docs/formats.md, "Environment file"): beyond them the loader
# refuses with the limit named, before anything is allocated or run.
MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_DEPTH = 32  # JSON nesting; the format itself needs 4
MAX_NODES = 100_000
MAX_ITEMS = 1_000_000  # jobs, and local tasks
MAX_NODE_COUNT = 100_000  # a job's n
MAX_ID = 256  # characters of an id
MAX_TEXT = 100_000  # characters of a name, label or description
INT_DIGITS = 18  # longer integer literals are read as floats (and then must be finite)
MAX_MAGNITUDE = 1e15  # every number: times, prices, volumes, budgets, performances, attributes


# ---------------------------------------------------------------- reading


# Checks a file's strategy (name, params) and gives its canonical name; raises ParameterError.
# The parser sits below the strategy catalogue, so the catalogue's check is handed to it
# (``workbench.engine.files`` does); without one the strategy is kept as written.
StrategyCheck = Callable[[str, Mapping[str, Any]], str]


def load_environment(path: str | os.PathLike[str], check_strategy: StrategyCheck | None = None) -> Environment:
    """Read and validate an environment file."""
    return environment_from_json(read_text(path), check_strategy)


def environment_from_json(text: str, check_strategy: StrategyCheck | None = None) -> Environment:
    """Parse and validate the text of an environment file (errors name the JSON path)."""
    return environment_from_dict(parse_json(text), check_strategy)


def parse_json(text: str) -> Any:
    """JSON text within the loader's limits (nesting, long integer literals), or an error at ``$``."""
    try:
        data = json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        raise ValidationError("$", f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise ValidationError("$", f"nested too deeply (at most {MAX_DEPTH} levels)") from None
    _check_depth(data)
    return data


def _parse_int(literal: str) -> int | float:
    # Python refuses int literals over 4300 digits; past 18 none is exact as a float anyway.
    return int(literal) if len(literal) <= INT_DIGITS else float(literal)


def _check_depth(data: Any) -> None:
    level = [(data, 0)]
    while level:
        value, depth = level.pop()
        if depth > MAX_DEPTH:
            raise ValidationError("$", f"nested too deeply (at most {MAX_DEPTH} levels)")
        if isinstance(value, dict):
            level.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            level.extend((v, depth + 1) for v in value)


def read_text(path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES, gzipped: bool = False) -> str:
    """The text of a regular UTF-8 file of at most ``limit`` bytes (a pipe or device is refused
    at once, instead of blocking); ``gzipped``: of the gzip file at ``path``, at most ``limit``
    bytes once decompressed."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise WorkbenchError(f"{path}: {kind}; expected a file")
        if info.st_size > limit:
            raise WorkbenchError(f"{path}: {info.st_size / 2**20:.0f} MiB; the limit is {limit / 2**20:.0f} MiB")
        if not gzipped:
            return Path(path).read_text(encoding="utf-8")
        with gzip.open(path, "rb") as stream:
            data = stream.read(limit + 1)
        if len(data) > limit:
            raise WorkbenchError(f"{path}: over {limit / 2**20:.0f} MiB decompressed; the limit is that")
        return data.decode("utf-8")
    except FileNotFoundError:
        raise WorkbenchError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise WorkbenchError(f"{path}: not a UTF-8 text file") from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise WorkbenchError(f"{path}: not a whole gzip file ({exc or 'it ends too soon'})") from None
    except OSError as exc:
        raise WorkbenchError(f"{path}: cannot read ({exc.strerror})") from None


class _Obj:
    """A JSON object being read: typed field access that names the path on error."""

    def __init__(self, data: Any, path: str, allowed: tuple[str, ...]) -> None:
        if not isinstance(data, dict):
            raise ValidationError(path, f"expected an object, got {_kind(data)}")
        self.data = data
        self.path = path
        for key in data:
            if key not in allowed:
                raise ValidationError(self.at(key), f"unknown field; expected one of {', '.join(allowed)}")
        self.data = data
        self.path = path

    def at(self, key: str) -> str:
        return f"{self.path}.{key}" if key.isidentifier() else f"{self.path}[{show(key)}]"

    def text(self, key: str, default: str | None = None, nonempty: bool = False, free: bool = False) -> str:
        """A string field: an id or keyword (short, one line), or ``free`` text (a name, a description)."""
        value = self._get(key, default)
        if not isinstance(value, str):
            raise ValidationError(self.at(key), f"expected a string, got {_kind(value)}")
        check_text(value, self.at(key), MAX_TEXT if free else MAX_ID, free)
        if nonempty and not value.strip():
            raise ValidationError(self.at(key), "expected a non-empty string")
        return value

    def num(
        self,
        key: str,
        default: float | None = None,
        *,
        low: float | None = None,
        low_open: bool = False,
        high: float | None = None,
        nullable: bool = False,
    ) -> float | None:
        value = self._get(key, default, nullable)
        if value is None and nullable:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(float(value)):
            raise ValidationError(self.at(key), f"expected a finite number, got {_kind(value)}")
        value = float(value)
        if abs(value) > MAX_MAGNITUDE:
            raise ValidationError(self.at(key), f"expected a number within ±{MAX_MAGNITUDE:g}, got {value:g}")
        if low is not None and (value < low or (low_open and value <= low)):
            raise ValidationError(self.at(key), f"expected a number {'>' if low_open else '≥'} {low:g}, got {value:g}")
        if high is not None and value > high:
            raise ValidationError(self.at(key), f"expected a number ≤ {high:g}, got {value:g}")
        return value

    def _get(self, key: str, default: Any, nullable: bool = False) -> Any:
        if key in self.data:
            return self.data[key]
        if default is None and not nullable:
            raise ValidationError(self.at(key), "missing required field")
        return default

    def items(self, key: str, limit: int = MAX_ITEMS) -> list[Any]:
        value = self.data.get(key, [])
        if not isinstance(value, list):
            raise ValidationError(self.at(key), f"expected a list, got {_kind(value)}")
        if len(value) > limit:
            raise ValidationError(self.at(key), f"{len(value)} entries; the limit is {limit:,}")
        return value


def check_text(value: str, where: str, limit: int = MAX_ID, free: bool = False) -> None:
    """``errors.text_problem`` as a ``ValidationError`` at ``where``."""
    problem = text_problem(value, limit, free)
    if problem is not None:
        raise ValidationError(where, problem)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"number {show(value)}"
    if isinstance(value, str):
        return f"string {show(value)}"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _unique_id(obj: _Obj, seen: set[str], what: str) -> str:
    ident = obj.text("id", nonempty=True)
    if ident in seen:
        raise ValidationError(obj.at("id"), f"duplicate {what} id {show(ident)}")
    seen.add(ident)
    return ident


def environment_from_dict(data: Any, check_strategy: StrategyCheck | None = None) -> Environment:
    """Validate a parsed JSON document and build the environment it describes."""
    top = _Obj(
        data,
        "$",
        ("format", "version", "name", "description", "time", "sites", "nodes", "local_tasks", "jobs", "strategy"),
    )
    fmt = top.text("format")
    if fmt != FORMAT:
        raise ValidationError("$.format", f"expected {FORMAT!r}, got {show(fmt)}")
    version = top._get("version", None)
    if version != VERSION or isinstance(version, bool):
        raise ValidationError("$.version", f"expected {VERSION}, got {_kind(version)}; this workbench reads version 1")
    time = _time_from(top.data.get("time", {}))
    sites = _sites_from(top)
    nodes = _nodes_from(top, {s.id for s in sites} if "sites" in top.data else None)
    node_ids = {node.id for node in nodes}
    tasks = _tasks_from(top, node_ids)
    site_ids = {s.id for s in sites} | {node.site for node in nodes if node.site}
    jobs = _jobs_from(top, site_ids)
    strategy = _strategy_from(top.data.get("strategy"), check_strategy)
    return Environment(
        nodes=tuple(nodes),
        local_tasks=tuple(tasks),
        jobs=tuple(jobs),
        time=time,
        name=top.text("name", "", free=True),
        description=top.text("description", "", free=True),
        strategy=strategy,
        sites=tuple(sites),
    )


def _sites_from(top: _Obj) -> list[Site]:
    """The optional site list (seed 004's machines of a grid); nodes and jobs name them in ``site``."""
    sites = []
    seen: set[str] = set()
    for i, item in enumerate(top.items("sites")):
        obj = _Obj(item, f"$.sites[{i}]", ("id", "name"))
        ident = _unique_id(obj, seen, "site")
        sites.append(Site(ident, obj.text("name", "", free=True)))
    return sites


def _site_of(obj: _Obj, known: set[str] | None, what: str) -> str:
    site = obj.text("site", "")
    if site and known is not None and site not in known:
        listed = ", ".join(sorted(known)) or "none"
        raise ValidationError(obj.at("site"), f"no site has id {show(site)} ({what}; sites: {listed})")
    return site


def _time_from(data: Any) -> TimeSettings:
    obj = _Obj(data, "$.time", ("start", "cycle_length", "horizon"))
    start = obj.num("start", 0.0)
    assert start is not None
    cycle = obj.num("cycle_length", nullable=True, low=0.0, low_open=True)
    horizon = obj.num("horizon", nullable=True)
    if horizon is not None and horizon <= start:
        raise ValidationError("$.time.horizon", f"expected a number > start ({start:g}) or null, got {horizon:g}")
    return TimeSettings(start=start, cycle_length=cycle, horizon=horizon)


def _nodes_from(top: _Obj, sites: set[str] | None) -> list[Node]:
    nodes = []
    seen: set[str] = set()
    for i, item in enumerate(top.items("nodes", MAX_NODES)):
        obj = _Obj(item, f"$.nodes[{i}]", ("id", "name", "performance", "price", "attributes", "site"))
        ident = _unique_id(obj, seen, "node")
        attrs = obj.data.get("attributes", {})
        if not isinstance(attrs, dict):
            raise ValidationError(obj.at("attributes"), f"expected an object of numbers, got {_kind(attrs)}")
        attr_obj = _Obj(attrs, obj.at("attributes"), tuple(attrs))
        for key in attrs:
            check_text(key, attr_obj.at(key))
        pairs = tuple((key, float(attr_obj.num(key) or 0.0)) for key in attrs)
        nodes.append(
            Node(
                id=ident,
                name=obj.text("name", ident, free=True),
                performance=float(obj.num("performance", low=0.0, low_open=True) or 0.0),
                price=float(obj.num("price", low=0.0) or 0.0),
                attributes=pairs,
                site=_site_of(obj, sites, "a node's site must be listed in $.sites"),
            )
        )
    if not nodes:
        raise ValidationError("$.nodes", "expected at least one node")
    return nodes


def _tasks_from(top: _Obj, node_ids: set[str]) -> list[LocalTask]:
    tasks = []
    seen: set[str] = set()
    for i, item in enumerate(top.items("local_tasks")):
        obj = _Obj(item, f"$.local_tasks[{i}]", ("id", "node", "start", "end", "kind", "label"))
        ident = _unique_id(obj, seen, "local task")
        node = obj.text("node")
        if node not in node_ids:
            raise ValidationError(obj.at("node"), f"no node has id {show(node)}")
        start = float(obj.num("start") or 0.0)
        end = obj.num("end")
        assert end is not None
        if end <= start:
            raise ValidationError(obj.at("end"), f"expected a number > start ({start:g}), got {end:g}")
        kind = obj.text("kind", "local")
        if kind not in TASK_KINDS:
            raise ValidationError(obj.at("kind"), f"expected one of {', '.join(TASK_KINDS)}, got {show(kind)}")
        tasks.append(LocalTask(ident, node, start, end, kind, obj.text("label", "", free=True)))
    _check_overlaps(tasks)
    return tasks


def _check_overlaps(tasks: list[LocalTask]) -> None:
    by_node: dict[str, list[tuple[float, float, int]]] = {}
    for i, task in enumerate(tasks):
        by_node.setdefault(task.node, []).append((task.start, task.end, i))
    for node, spans in by_node.items():
        spans.sort()
        for (s0, e0, i0), (s1, _e1, i1) in itertools.pairwise(spans):
            if s1 < e0 - EPS:
                first, second = sorted((i0, i1))
                raise ValidationError(
                    f"$.local_tasks[{second}]",
                    f"overlaps local task {show(tasks[first].id)} on node {show(node)} "
                    f"([{s0:g}, {e0:g}) and [{s1:g}, {tasks[i1].end:g}))",
                )


def _jobs_from(top: _Obj, sites: set[str]) -> list[Job]:
    jobs = []
    seen: set[str] = set()
    for i, item in enumerate(top.items("jobs", MAX_ITEMS)):
        jobs.append(_job_from(item, f"$.jobs[{i}]", sites, seen))
    return jobs


JOB_FIELDS = (
    "id",
    "name",
    "node_count",
    "min_performance",
    "volume",
    "budget",
    "criterion",
    "arrival",
    "priority",
    "actual_fraction",
    "user",
    "site",
)


def _job_from(item: Any, where: str, sites: set[str], seen: set[str]) -> Job:
    obj = _Obj(item, where, JOB_FIELDS)
    ident = _unique_id(obj, seen, "job")
    count = obj._get("node_count", None)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_NODE_COUNT:
        whole = isinstance(count, float) and count.is_integer() and 1 <= count <= MAX_NODE_COUNT
        if not whole:
            expected = f"a whole number from 1 to {MAX_NODE_COUNT:,}"
            raise ValidationError(obj.at("node_count"), f"expected {expected}, got {_kind(count)}")
        count = int(count)
    budget = obj.num("budget", nullable=True, low=0.0, low_open=True)
    criterion = obj.text("criterion", "finish")
    if criterion not in JOB_CRITERIA:
        raise ValidationError(obj.at("criterion"), f"expected one of {', '.join(JOB_CRITERIA)}, got {show(criterion)}")
    return Job(
        id=ident,
        name=obj.text("name", ident, free=True),
        node_count=count,
        min_performance=float(obj.num("min_performance", 0.0, low=0.0) or 0.0),
        volume=float(obj.num("volume", low=0.0, low_open=True) or 0.0),
        budget=math.inf if budget is None else budget,
        criterion=criterion,
        arrival=float(obj.num("arrival", 0.0, low=0.0) or 0.0),
        priority=float(obj.num("priority", 0.0) or 0.0),
        actual_fraction=float(obj.num("actual_fraction", 1.0, low=0.0, low_open=True, high=1.0) or 1.0),
        user=obj.text("user", ""),
        site=_site_of(obj, sites, "a job is submitted at a site that has nodes or is listed in $.sites"),
    )


def job_problem(job: Job) -> ValidationError | None:
    """Why a file could not hold ``job`` (the loader's error, its path ``$.FIELD``), or None.

    Importers call it on every job they make, so what they write always loads (docs/formats.md, "Limits")."""
    try:
        _job_from(job_to_dict(job), "$", {job.site}, set())
    except ValidationError as exc:
        return exc
    return None


def _strategy_from(data: Any, check: StrategyCheck | None) -> StrategyRef:
    if data is None:
        return StrategyRef()
    obj = _Obj(data, "$.strategy", ("name", "params"))
    name = obj.text("name", nonempty=True)
    params = obj.data.get("params", {})
    if not isinstance(params, dict):
        raise ValidationError(obj.at("params"), f"expected an object, got {_kind(params)}")
    if check is not None:
        try:
            name = check(name, params)
        except ParameterError as exc:
            where = obj.at("name") if exc.name == "strategy" else _Obj({}, obj.at("params"), ()).at(exc.name)
            raise ValidationError(where, exc.message) from None
    return StrategyRef(name, tuple(params.items()))


# ---------------------------------------------------------------- writing


def _number(value: float) -> float | int | None:
    if math.isinf(value):
        return None
    if float(value).is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def environment_to_dict(env: Environment) -> dict[str, Any]:
    """The JSON document of ``env`` (numbers that are whole are written without '.0')."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": env.name,
        "description": env.description,
        "time": {
            "start": _number(env.time.start),
            "cycle_length": None if env.time.cycle_length is None else _number(env.time.cycle_length),
            "horizon": None if env.time.horizon is None else _number(env.time.horizon),
        },
        **({"sites": [{"id": s.id, "name": s.name} for s in env.sites]} if env.sites else {}),
        "nodes": [
            {
                "id": n.id,
                "name": n.name,
                "performance": _number(n.performance),
                "price": _number(n.price),
                "attributes": {key: _number(value) for key, value in n.attributes},
                **({"site": n.site} if n.site else {}),  # optional, as for jobs
            }
            for n in env.nodes
        ],
        "local_tasks": [
            {
                "id": t.id,
                "node": t.node,
                "start": _number(t.start),
                "end": _number(t.end),
                "kind": t.kind,
                "label": t.label,
            }
            for t in env.local_tasks
        ],
        "jobs": [job_to_dict(j) for j in env.jobs],
        "strategy": {"name": env.strategy.name, "params": dict(env.strategy.params)},
    }


def job_to_dict(j: Job) -> dict[str, Any]:
    """A job's entry in ``$.jobs``."""
    return {
        "id": j.id,
        "name": j.name,
        "node_count": j.node_count,
        "min_performance": _number(j.min_performance),
        "volume": _number(j.volume),
        "budget": _number(j.budget),
        "criterion": j.criterion,
        "arrival": _number(j.arrival),
        "priority": _number(j.priority),
        "actual_fraction": _number(j.actual_fraction),
        **({"user": j.user} if j.user else {}),  # optional: files without users stay as they were
        **({"site": j.site} if j.site else {}),
    }


def save_environment(env: Environment, path: str | os.PathLike[str]) -> None:
    """Write ``env`` atomically (temporary file + rename): never a half-written file."""
    write_json_atomic(environment_to_dict(env), path)


def write_json_atomic(data: Any, path: str | os.PathLike[str], indent: int | None = 2) -> None:
    write_text_atomic(json.dumps(data, indent=indent, ensure_ascii=False) + "\n", path)


def write_text_atomic(text: str, path: str | os.PathLike[str]) -> None:
    """Write ``text`` to a temporary file beside ``path``, flush it to disk, rename it over ``path``.

    A read-only target, or one that is not a regular file, is refused (as editors do);
    temporary files a killed save left for the same target are removed first.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.exists():
        if not target.is_file():
            raise WorkbenchError(f"{target}: not a regular file; choose a file name")
        writable = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
        if not target.stat().st_mode & writable or not os.access(target, os.W_OK):
            raise WorkbenchError(f"{target}: read-only; make it writable or save under another name")
    for stale in folder.glob(f".{glob.escape(target.name)}.*.tmp"):
        with contextlib.suppress(OSError):
            stale.unlink()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise WorkbenchError(f"{target}: cannot write ({exc.strerror})") from None
    try:
        # mkstemp makes the file private; give it the target's mode (or the usual one).
        try:
            mode = target.stat().st_mode & 0o777
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise WorkbenchError(f"{target}: cannot write ({exc.strerror})") from None
        raise
