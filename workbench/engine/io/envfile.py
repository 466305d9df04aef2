"""Environment files: JSON version 1 (docs/design.md "Environment file").

Loading validates everything and names the JSON path of the first mistake and
what was expected there. Saving is atomic: a temporary file in the same folder,
flushed to disk, then renamed over the target, so a crash never leaves a
half-written file. ``environment_from_dict(environment_to_dict(env)) == env``.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from workbench.engine.errors import ParameterError, ValidationError, show, text_problem
from workbench.engine.io import columns
from workbench.engine.io.atomic import write_json_atomic

# Limits of what a file may ask for (docs/formats.md, "Limits"; ``io/limits.py``): beyond them the
# loader refuses with the limit named, before anything is allocated or run.
from workbench.engine.io.limits import (  # re-exported: importers name them here
    MAX_ID,
    MAX_MAGNITUDE,
    MAX_NODE_COUNT,
    MAX_TEXT,
)
from workbench.engine.io.records import FORMAT, RECORDS, VERSION, Field
from workbench.engine.io.text import parse_json, read_text
from workbench.engine.model import (
    EPS,
    Environment,
    Job,
    LocalTask,
    Node,
    Site,
    StrategyRef,
    TimeSettings,
)

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


class Obj:
    """A JSON object being read: typed field access that names the path on error; a ``record`` of
    ``RECORDS`` gives the fields allowed and how each is checked."""

    def __init__(self, data: Any, path: str, record: Mapping[str, Field]) -> None:
        if not isinstance(data, dict):
            raise ValidationError(path, f"expected an object, got {_kind(data)}")
        self.data = data
        self.path = path
        self.record = record
        for key in data:
            if key not in record:
                raise ValidationError(self.at(key), f"unknown field; expected one of {', '.join(record)}")

    def at(self, key: str) -> str:
        return f"{self.path}.{key}" if key.isidentifier() else f"{self.path}[{show(key)}]"

    def text(self, key: str, default: str | None = None) -> str:
        """A string field: an id or keyword (short, one line), or free text (a name, a description);
        ``default`` stands in for the record's when the field is missing."""
        spec = self.record[key]
        value = self._get(key, spec.default if default is None else default, spec.required)
        if not isinstance(value, str):
            raise ValidationError(self.at(key), f"expected a string, got {_kind(value)}")
        free = spec.kind == "text"
        check_text(value, self.at(key), MAX_TEXT if free else MAX_ID, free)
        if spec.kind == "id" and not value.strip():
            raise ValidationError(self.at(key), "expected a non-empty string")
        if spec.choices and value not in spec.choices:
            raise ValidationError(self.at(key), f"expected one of {', '.join(spec.choices)}, got {show(value)}")
        return value

    def num(self, key: str) -> float | None:
        """A number field, checked against the record's bounds; None for a null one that may be."""
        spec = self.record.get(key, Field("number", "an attribute", required=True))
        value = self._get(key, spec.default, spec.required or (spec.default is None and not spec.nullable))
        if value is None and spec.nullable:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(float(value)):
            raise ValidationError(self.at(key), f"expected a finite number, got {_kind(value)}")
        value = float(value)
        if abs(value) > MAX_MAGNITUDE:
            raise ValidationError(self.at(key), f"expected a number within ±{MAX_MAGNITUDE:g}, got {value:g}")
        low, high = spec.low, spec.high
        if low is not None and (value < low or (spec.low_open and value <= low)):
            raise ValidationError(
                self.at(key), f"expected a number {'>' if spec.low_open else '≥'} {low:g}, got {value:g}"
            )
        if high is not None and value > high:
            raise ValidationError(self.at(key), f"expected a number ≤ {high:g}, got {value:g}")
        return value

    def count(self, key: str) -> int:
        """A whole number from 1 to MAX_NODE_COUNT (2.0 is read as 2)."""
        count = self._get(key, None, True)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_NODE_COUNT:
            whole = isinstance(count, float) and count.is_integer() and 1 <= count <= MAX_NODE_COUNT
            if not whole:
                expected = f"a whole number from 1 to {MAX_NODE_COUNT:,}"
                raise ValidationError(self.at(key), f"expected {expected}, got {_kind(count)}")
        return int(count)

    def const(self, key: str) -> None:
        spec = self.record[key]
        value = self._get(key, None, True)
        if isinstance(spec.value, str):
            if not isinstance(value, str):
                raise ValidationError(self.at(key), f"expected a string, got {_kind(value)}")
            check_text(value, self.at(key))
            if value != spec.value:
                raise ValidationError(self.at(key), f"expected {spec.value!r}, got {show(value)}")
        elif value != spec.value or isinstance(value, bool):
            raise ValidationError(
                self.at(key), f"expected {spec.value}, got {_kind(value)}; this workbench reads version {spec.value}"
            )

    def _get(self, key: str, default: Any, required: bool = False) -> Any:
        if key in self.data:
            return self.data[key]
        if required:
            raise ValidationError(self.at(key), "missing required field")
        return default

    def items(self, key: str) -> list[Any]:
        spec = self.record[key]
        value = self.data.get(key, [])
        if not isinstance(value, list):
            raise ValidationError(self.at(key), f"expected a list, got {_kind(value)}")
        if len(value) > spec.limit:
            raise ValidationError(self.at(key), f"{len(value)} entries; the limit is {spec.limit:,}")
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


def _unique_id(obj: Obj, seen: set[str], what: str) -> str:
    ident = obj.text("id")
    if ident in seen:
        raise ValidationError(obj.at("id"), f"duplicate {what} id {show(ident)}")
    seen.add(ident)
    return ident


def _records(top: Obj, key: str) -> list[Obj]:
    """The entries of the list field ``key``, each read as its record."""
    record = RECORDS[top.record[key].item]
    return [Obj(item, f"{top.at(key)}[{i}]", record) for i, item in enumerate(top.items(key))]


def environment_from_dict(data: Any, check_strategy: StrategyCheck | None = None) -> Environment:
    """Validate a parsed JSON document and build the environment it describes."""
    top = Obj(data, "$", RECORDS["environment"])
    top.const("format")
    top.const("version")
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
        name=top.text("name"),
        description=top.text("description"),
        strategy=strategy,
        sites=tuple(sites),
    )


def _sites_from(top: Obj) -> list[Site]:
    """The optional site list (seed 004's machines of a grid); nodes and jobs name them in ``site``."""
    sites = []
    seen: set[str] = set()
    for obj in _records(top, "sites"):
        ident = _unique_id(obj, seen, "site")
        sites.append(Site(ident, obj.text("name")))
    return sites


def _site_of(obj: Obj, known: set[str] | None, what: str) -> str:
    site = obj.text("site")
    if site and known is not None and site not in known:
        listed = ", ".join(sorted(known)) or "none"
        raise ValidationError(obj.at("site"), f"no site has id {show(site)} ({what}; sites: {listed})")
    return site


def _time_from(data: Any) -> TimeSettings:
    obj = Obj(data, "$.time", RECORDS["time"])
    start = obj.num("start")
    assert start is not None
    cycle = obj.num("cycle_length")
    horizon = obj.num("horizon")
    if horizon is not None and horizon <= start:
        raise ValidationError("$.time.horizon", f"expected a number > start ({start:g}) or null, got {horizon:g}")
    return TimeSettings(start=start, cycle_length=cycle, horizon=horizon, unit=obj.text("unit"))


def _nodes_from(top: Obj, sites: set[str] | None) -> list[Node]:
    nodes = []
    seen: set[str] = set()
    for obj in _records(top, "nodes"):
        ident = _unique_id(obj, seen, "node")
        attrs = obj.data.get("attributes", {})
        if not isinstance(attrs, dict):
            raise ValidationError(obj.at("attributes"), f"expected an object of numbers, got {_kind(attrs)}")
        attr_obj = Obj(attrs, obj.at("attributes"), dict.fromkeys(attrs, Field("number", "an attribute", True)))
        for key in attrs:
            check_text(key, attr_obj.at(key))
        pairs = tuple((key, float(attr_obj.num(key) or 0.0)) for key in attrs)
        nodes.append(
            Node(
                id=ident,
                name=obj.text("name", ident),
                performance=float(obj.num("performance") or 0.0),
                price=float(obj.num("price") or 0.0),
                attributes=pairs,
                site=_site_of(obj, sites, "a node's site must be listed in $.sites"),
            )
        )
    if len(nodes) < top.record["nodes"].least:
        raise ValidationError("$.nodes", "expected at least one node")
    return nodes


def _tasks_from(top: Obj, node_ids: set[str]) -> list[LocalTask]:
    tasks = []
    seen: set[str] = set()
    for obj in _records(top, "local_tasks"):
        ident = _unique_id(obj, seen, "local task")
        node = obj.text("node")
        if node not in node_ids:
            raise ValidationError(obj.at("node"), f"no node has id {show(node)}")
        start = float(obj.num("start") or 0.0)
        end = obj.num("end")
        assert end is not None
        if end <= start:
            raise ValidationError(obj.at("end"), f"expected a number > start ({start:g}), got {end:g}")
        tasks.append(LocalTask(ident, node, start, end, obj.text("kind"), obj.text("label")))
    check_overlaps(tasks)
    return tasks


def check_overlaps(tasks: Sequence[LocalTask]) -> None:
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


def _jobs_from(top: Obj, sites: set[str]) -> tuple[Job, ...]:
    """The jobs, checked column by column (``io/columns.py``); a failing row is read again as a
    record, so the message is the record check's own."""
    items = top.items("jobs")
    cols = _job_columns(items)
    if cols is None:
        return _jobs_one_by_one(top, sites)
    rows: list[int] = []

    def where(row: int, column: str) -> str:
        rows.append(row)
        return columns.json_where(row, column)

    try:
        columns.check_job_columns(cols, where, sites)
    except ValidationError:
        _job_from(Obj(items[rows[-1]], f"$.jobs[{rows[-1]}]", RECORDS["job"]), sites, set())
        raise
    return columns.jobs_from_columns(cols)


_JOB_KEYS = frozenset(RECORDS["job"])
_NUMBER_TYPES = {int, float}
_DEFAULTS = {"min_performance": 0.0, "arrival": 0.0, "priority": 0.0, "actual_fraction": 1.0, "volume": None}


def _job_columns(items: list[Any]) -> dict[str, Any] | None:
    """The job records' fields as columns, or None when any record or field is not of its plain
    type (then the record check finds and names it)."""
    if not all(type(d) is dict and d.keys() <= _JOB_KEYS for d in items):
        return None
    ids = [d.get("id") for d in items]
    cols: dict[str, Any] = {"id": ids, "name": [d.get("name", i) for d, i in zip(items, ids, strict=True)]}
    for key in ("criterion", "user", "site"):
        cols[key] = [d.get(key, RECORDS["job"][key].default) for d in items]
    if any(not set(map(type, cols[key])) <= {str} for key in ("id", "name", "criterion", "user", "site")):
        return None
    count = [d.get("node_count") for d in items]
    if not set(map(type, count)) <= _NUMBER_TYPES:
        return None
    counts = np.array(count, dtype=np.float64)
    if not np.all(np.isfinite(counts) & (counts == np.floor(counts))):
        return None
    cols["node_count"] = np.clip(counts, -1, 2**62).astype(np.int64)
    for key, default in _DEFAULTS.items():
        values = [d.get(key, default) for d in items]
        if not set(map(type, values)) <= _NUMBER_TYPES:
            return None
        cols[key] = np.array(values, dtype=np.float64)
    budget = [d.get("budget") for d in items]
    if not set(map(type, budget)) <= {int, float, type(None)} or any(
        type(b) is float and not math.isfinite(b) for b in budget
    ):
        return None  # (JSON's NaN and Infinity literals are refused by the record check)
    cols["budget"] = np.array([math.inf if b is None else b for b in budget], dtype=np.float64)
    return cols


def _jobs_one_by_one(top: Obj, sites: set[str]) -> tuple[Job, ...]:
    jobs = []
    seen: set[str] = set()
    for obj in _records(top, "jobs"):
        jobs.append(_job_from(obj, sites, seen))
    return tuple(jobs)


def _job_from(obj: Obj, sites: set[str], seen: set[str]) -> Job:
    ident = _unique_id(obj, seen, "job")
    count = obj.count("node_count")
    budget = obj.num("budget")
    criterion = obj.text("criterion")
    return Job(
        id=ident,
        name=obj.text("name", ident),
        node_count=count,
        min_performance=float(obj.num("min_performance") or 0.0),
        volume=float(obj.num("volume") or 0.0),
        budget=math.inf if budget is None else budget,
        criterion=criterion,
        arrival=float(obj.num("arrival") or 0.0),
        priority=float(obj.num("priority") or 0.0),
        actual_fraction=float(obj.num("actual_fraction") or 1.0),
        user=obj.text("user"),
        site=_site_of(obj, sites, "a job is submitted at a site that has nodes or is listed in $.sites"),
    )


def job_problem(job: Job) -> ValidationError | None:
    """Why a file could not hold ``job`` (the loader's error, its path ``$.FIELD``), or None.

    Importers call it on every job they make, so what they write always loads (docs/formats.md, "Limits")."""
    try:
        _job_from(Obj(job_to_dict(job), "$", RECORDS["job"]), {job.site}, set())
    except ValidationError as exc:
        return exc
    return None


def _strategy_from(data: Any, check: StrategyCheck | None) -> StrategyRef:
    if data is None:
        return StrategyRef()
    obj = Obj(data, "$.strategy", RECORDS["strategy"])
    name = obj.text("name")
    params = obj.data.get("params", {})
    if not isinstance(params, dict):
        raise ValidationError(obj.at("params"), f"expected an object, got {_kind(params)}")
    if check is not None:
        try:
            name = check(name, params)
        except ParameterError as exc:
            where = obj.at("name") if exc.name == "strategy" else Obj({}, obj.at("params"), {}).at(exc.name)
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
            **({"unit": env.time.unit} if env.time.in_seconds else {}),  # missing reads as model units
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
