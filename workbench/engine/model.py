"""The immutable domain model: nodes, local tasks, jobs, windows, environments.

Everything here is a frozen dataclass. An edit builds a new ``Environment``
with ``dataclasses.replace``; the untouched tuples are shared, so that is cheap.
Time and cost are plain floats in abstract units; compare them with ``EPS``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

EPS = 1e-9

TASK_KINDS: tuple[str, ...] = ("local", "reserved", "maintenance")

JOB_CRITERIA: tuple[str, ...] = ("start", "finish", "runtime", "cost", "proc_time")


@dataclass(frozen=True)
class Node:
    """A computing node: performance p > 0, price c >= 0 per time unit, free attributes."""

    id: str
    name: str
    performance: float
    price: float
    attributes: tuple[tuple[str, float], ...] = ()

    def attribute(self, key: str, default: float = 0.0) -> float:
        for name, value in self.attributes:
            if name == key:
                return value
        return default


@dataclass(frozen=True)
class LocalTask:
    """The owner's use of a node over [start, end); no job window may overlap it."""

    id: str
    node: str
    start: float
    end: float
    kind: str = "local"
    label: str = ""


@dataclass(frozen=True)
class Job:
    """A resource request: n nodes of performance >= p, volume V per part, budget C."""

    id: str
    name: str
    node_count: int
    min_performance: float
    volume: float
    budget: float = math.inf
    criterion: str = "finish"
    arrival: float = 0.0
    priority: float = 0.0
    actual_fraction: float = 1.0
    user: str = ""  # who submitted it (SWF's user number); optional, for grouping and colouring


@dataclass(frozen=True)
class Window:
    """n slots on n distinct nodes, all over [start, start + length)."""

    job: str
    start: float
    length: float
    nodes: tuple[str, ...]
    cost: float

    @property
    def end(self) -> float:
        return self.start + self.length


@dataclass(frozen=True)
class TimeSettings:
    """The scheduling interval: ``start``, cycle length L (None: one cycle), horizon (None: unbounded)."""

    start: float = 0.0
    cycle_length: float | None = None
    horizon: float | None = None

    @property
    def end(self) -> float:
        return math.inf if self.horizon is None else self.horizon


@dataclass(frozen=True)
class StrategyRef:
    """The strategy an environment file asks for, with its parameters."""

    name: str = "FirstFit"
    params: tuple[tuple[str, object], ...] = ()

    def params_dict(self) -> dict[str, object]:
        return dict(self.params)


@dataclass(frozen=True)
class Environment:
    """Nodes, their local schedules, the job queue and the time settings."""

    nodes: tuple[Node, ...] = ()
    local_tasks: tuple[LocalTask, ...] = ()
    jobs: tuple[Job, ...] = ()
    time: TimeSettings = field(default_factory=TimeSettings)
    name: str = ""
    description: str = ""
    strategy: StrategyRef = field(default_factory=StrategyRef)

    @cached_property
    def node_index(self) -> dict[str, int]:
        """Node id -> position in the node list (the tie-breaking order)."""
        return {node.id: i for i, node in enumerate(self.nodes)}

    @cached_property
    def job_index(self) -> dict[str, int]:
        return {job.id: i for i, job in enumerate(self.jobs)}

    def job(self, job_id: str) -> Job:
        return self.jobs[self.job_index[job_id]]

    def queue(self) -> list[Job]:
        """Jobs in queue order: priority, then arrival, then position in the job list."""
        order = sorted(
            range(len(self.jobs)),
            key=lambda i: (self.jobs[i].priority, self.jobs[i].arrival, i),
        )
        return [self.jobs[i] for i in order]
