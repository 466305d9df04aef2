"""Edits: pure functions Environment -> Environment (docs/style.md point 4).

Every change a user makes is an ``Edit``: a name for the Undo menu and a pure
function. ``apply`` validates what it builds and raises ``ValidationError``
naming the field, so the model never holds a bad value (the GUI shows the
message where the user typed it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from workbench.engine import registry
from workbench.engine.errors import ParameterError, ValidationError, text_problem
from workbench.engine.io.limits import MAX_ID, MAX_TEXT
from workbench.engine.model import (
    EPS,
    JOB_CRITERIA,
    TASK_KINDS,
    Environment,
    Job,
    LocalTask,
    Node,
    StrategyRef,
    TimeSettings,
)


@dataclass(frozen=True)
class Edit:
    """A named, pure change of the environment."""

    name: str
    apply: Callable[[Environment], Environment]


# ------------------------------------------------------------------ checks


def _positive(value: float, field: str, allow_zero: bool = False) -> None:
    if not isinstance(value, int | float) or not math.isfinite(value):
        raise ValidationError(field, "expected a finite number")
    if value < 0 or (value == 0 and not allow_zero):
        raise ValidationError(field, f"must be {'≥' if allow_zero else '>'} 0, got {value:g}")


def _text(value: str, field: str, free: bool = False) -> None:
    """The same rule as for files (errors.text_problem): valid Unicode, bounded, no control characters."""
    problem = text_problem(value, MAX_TEXT if free else MAX_ID, free)
    if problem is not None:
        raise ValidationError(field, problem)


def check_node(node: Node, env: Environment) -> None:
    _text(node.id, "id")
    _text(node.name, "name", free=True)
    if not node.id.strip():
        raise ValidationError("id", "must not be empty")
    _positive(node.performance, "performance")
    _positive(node.price, "price", allow_zero=True)
    for key, value in node.attributes:
        if not key.strip():
            raise ValidationError("attributes", "attribute names must not be empty")
        if not math.isfinite(value):
            raise ValidationError(f"attributes.{key}", "expected a finite number")


def check_task(task: LocalTask, env: Environment) -> None:
    _text(task.id, "id")
    _text(task.label, "label", free=True)
    if task.node not in env.node_index:
        raise ValidationError("node", f"no node has id {task.node!r}")
    if not (math.isfinite(task.start) and math.isfinite(task.end)):
        raise ValidationError("start", "expected finite times")
    if task.end <= task.start + EPS:
        raise ValidationError(
            "end", f"a task must end after it starts; this one would run from {task.start:g} to {task.end:g}"
        )
    if task.kind not in TASK_KINDS:
        raise ValidationError("kind", f"expected one of {', '.join(TASK_KINDS)}")
    for other in env.local_tasks:
        if (
            other.id != task.id
            and other.node == task.node
            and other.start < task.end - EPS
            and task.start < other.end - EPS
        ):
            raise ValidationError(
                "start", f"overlaps local task {other.id} [{other.start:g}, {other.end:g}) on {task.node}"
            )


def check_job(job: Job, env: Environment) -> None:
    _text(job.id, "id")
    _text(job.name, "name", free=True)
    _text(job.user, "user")
    if not job.id.strip():
        raise ValidationError("id", "must not be empty")
    if not isinstance(job.node_count, int) or job.node_count < 1:
        raise ValidationError("node_count", f"must be a whole number ≥ 1, got {job.node_count}")
    if job.node_count > len(env.nodes):
        raise ValidationError("node_count", f"is {job.node_count}; the environment has only {len(env.nodes)} nodes")
    _positive(job.min_performance, "min_performance", allow_zero=True)
    _positive(job.volume, "volume")
    if not job.budget > 0:
        raise ValidationError("budget", f"must be > 0 (or ∞), got {job.budget:g}")
    if job.criterion not in JOB_CRITERIA:
        raise ValidationError("criterion", f"expected one of {', '.join(JOB_CRITERIA)}")
    _positive(job.arrival, "arrival", allow_zero=True)
    if not math.isfinite(job.priority):
        raise ValidationError("priority", "expected a finite number")
    if not 0 < job.actual_fraction <= 1:
        raise ValidationError("actual_fraction", f"must be in (0, 1], got {job.actual_fraction:g}")


def check_time(time: TimeSettings) -> None:
    if not math.isfinite(time.start):
        raise ValidationError("start", "expected a finite number")
    if time.cycle_length is not None and not time.cycle_length > 0:
        raise ValidationError("cycle_length", f"must be > 0 or empty, got {time.cycle_length:g}")
    if time.horizon is not None and time.horizon <= time.start:
        raise ValidationError("horizon", f"must be > start ({time.start:g}) or empty, got {time.horizon:g}")


def _new_id(prefix: str, taken: set[str]) -> str:
    k = len(taken) + 1
    while f"{prefix}{k}" in taken:
        k += 1
    return f"{prefix}{k}"


def _index(items: tuple[Any, ...], ident: str, what: str) -> int:
    for i, item in enumerate(items):
        if item.id == ident:
            return i
    raise ValidationError("id", f"no {what} has id {ident!r}")


def _updated(
    env: Environment, field: str, ident: str, what: str, check: Callable[[Any, Environment], None], **fields: Any
) -> Environment:
    """``env`` with one node, task or job changed (and checked)."""
    items = getattr(env, field)
    lookup = _LOOKUPS.get(field)
    i = getattr(env, lookup).get(ident, -1) if lookup is not None else -1
    i = i if i >= 0 else _index(items, ident, what)
    item = replace(items[i], **fields)
    check(item, env)
    changes: dict[str, Any] = {field: (*items[:i], item, *items[i + 1 :])}
    new = replace(env, **changes)
    if lookup is not None and item.id == ident:  # the same ids in the same places: the lookup holds
        new.__dict__[lookup] = getattr(env, lookup)  # (a cached property, kept as it keeps itself)
    return new


_LOOKUPS = {"jobs": "job_index", "nodes": "node_index"}  # a field's lookup by id (``Environment``)


def _without(env: Environment, field: str, ident: str, what: str) -> Environment:
    items = getattr(env, field)
    i = _index(items, ident, what)
    changes: dict[str, Any] = {field: items[:i] + items[i + 1 :]}
    return replace(env, **changes)


# ------------------------------------------------------------------ local tasks


def add_task(node: str, start: float, end: float, kind: str = "local", label: str = "") -> Edit:
    def apply(env: Environment) -> Environment:
        task = LocalTask(_new_id("t", {t.id for t in env.local_tasks}), node, float(start), float(end), kind, label)
        check_task(task, env)
        return replace(env, local_tasks=(*env.local_tasks, task))

    return Edit(f"add task on {node}", apply)


def set_task(task_id: str, **fields: Any) -> Edit:
    """Change fields of a local task (start, end, node, kind, label)."""

    def apply(env: Environment) -> Environment:
        return _updated(env, "local_tasks", task_id, "local task", check_task, **fields)

    what = "move" if set(fields) <= {"start", "end", "node"} else "edit"
    return Edit(f"{what} task {task_id}", apply)


def move_task(task_id: str, start: float, node: str | None = None) -> Edit:
    """Move a task to a new start (and node), keeping its length."""

    def apply(env: Environment) -> Environment:
        task = env.local_tasks[_index(env.local_tasks, task_id, "local task")]
        return set_task(task_id, start=start, end=start + (task.end - task.start), node=node or task.node).apply(env)

    return Edit(f"move task {task_id}", apply)


def resize_task(task_id: str, start: float, end: float) -> Edit:
    edit = set_task(task_id, start=start, end=end)
    return Edit(f"resize task {task_id}", edit.apply)


def delete_task(task_id: str) -> Edit:
    def apply(env: Environment) -> Environment:
        return _without(env, "local_tasks", task_id, "local task")

    return Edit(f"delete task {task_id}", apply)


# ------------------------------------------------------------------ nodes


def add_node(performance: float = 4.0, price: float = 1.0, name: str | None = None) -> Edit:
    def apply(env: Environment) -> Environment:
        ident = _new_id("n", {n.id for n in env.nodes})
        node = Node(ident, name or f"node {ident[1:]}", float(performance), float(price))
        check_node(node, env)
        return replace(env, nodes=(*env.nodes, node))

    return Edit("add node", apply)


def set_node(node_id: str, **fields: Any) -> Edit:
    def apply(env: Environment) -> Environment:
        return _updated(env, "nodes", node_id, "node", check_node, **fields)

    return Edit(f"edit node {node_id}", apply)


def delete_node(node_id: str) -> Edit:
    """Delete a node and its local tasks; jobs wider than what is left are refused."""

    def apply(env: Environment) -> Environment:
        i = _index(env.nodes, node_id, "node")
        if len(env.nodes) == 1:
            raise ValidationError("nodes", "an environment needs at least one node")
        out = replace(
            env,
            nodes=env.nodes[:i] + env.nodes[i + 1 :],
            local_tasks=tuple(t for t in env.local_tasks if t.node != node_id),
        )
        for job in out.jobs:
            if job.node_count > len(out.nodes):
                raise ValidationError(
                    "nodes", f"job {job.id} needs {job.node_count} nodes; only {len(out.nodes)} would be left"
                )
        return out

    return Edit(f"delete node {node_id}", apply)


# ------------------------------------------------------------------ jobs


def add_job(node_count: int = 1, volume: float = 100.0, budget: float = math.inf) -> Edit:
    def apply(env: Environment) -> Environment:
        ident = _new_id("j", {j.id for j in env.jobs})
        job = Job(ident, f"job {ident[1:]}", node_count, 0.0, float(volume), budget, arrival=env.time.start)
        check_job(job, env)
        return replace(env, jobs=(*env.jobs, job))

    return Edit("add job", apply)


# How a field is called where a person reads it (the Undo menu, messages).
FIELD_LABELS = {
    "node_count": "number of nodes",
    "min_performance": "minimum performance",
    "actual_fraction": "actual fraction",
    "cycle_length": "cycle length",
}


def set_job(job_id: str, **fields: Any) -> Edit:
    def apply(env: Environment) -> Environment:
        return _updated(env, "jobs", job_id, "job", check_job, **fields)

    names = ", ".join(FIELD_LABELS.get(f, f) for f in sorted(fields))
    return Edit(f"set {names} of {job_id}", apply)


def delete_job(job_id: str) -> Edit:
    def apply(env: Environment) -> Environment:
        return _without(env, "jobs", job_id, "job")

    return Edit(f"delete job {job_id}", apply)


def reorder_job(job_id: str, position: int) -> Edit:
    """Move a job to ``position`` in the job list (which breaks ties in the queue order)."""

    def apply(env: Environment) -> Environment:
        i = _index(env.jobs, job_id, "job")
        jobs = list(env.jobs)
        job = jobs.pop(i)
        jobs.insert(max(0, min(position, len(jobs))), job)
        return replace(env, jobs=tuple(jobs))

    return Edit(f"reorder job {job_id}", apply)


# ------------------------------------------------------------------ time, strategy, description


def set_time(start: float, cycle_length: float | None, horizon: float | None) -> Edit:
    def apply(env: Environment) -> Environment:
        time = TimeSettings(float(start), cycle_length, horizon, env.time.unit)
        check_time(time)
        return replace(env, time=time)

    return Edit("change time settings", apply)


def set_strategy(name: str, params: Mapping[str, Any] | None = None) -> Edit:
    """Choose the strategy and its parameters (checked against the registry schema)."""

    def apply(env: Environment) -> Environment:
        try:
            info = registry.get(name)
            info.resolve(params or {})
        except ParameterError as exc:
            raise ValidationError(exc.name, exc.message) from None
        return replace(env, strategy=StrategyRef(info.name, tuple((params or {}).items())))

    return Edit(f"strategy {name}", apply)
