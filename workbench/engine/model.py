"""The immutable domain model: nodes, local tasks, jobs, windows, environments.

Everything here is a frozen dataclass. An edit builds a new ``Environment``
with ``dataclasses.replace``; the untouched tuples are shared, so that is cheap.
Time and cost are plain floats in abstract units; compare them with ``EPS``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
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
    site: str = ""  # the machine (site of a grid, seed 004) the node belongs to; "" when there are no sites

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
    site: str = ""  # the grid site it was submitted at (seed 004); "" when there are no sites


@dataclass(frozen=True)
class Site:
    """One machine of a grid (seed 004): its nodes are those whose ``site`` is this id."""

    id: str
    name: str = ""


@dataclass(frozen=True)
class Window:
    """n slots on n distinct nodes from ``start``: square, all over [start, start + length).

    A window with a "rough right edge" (seed 000 §3, Fig. 3) gives each part its own length
    in ``lengths`` (node k is reserved for lengths[k] = V / p_k); ``length`` is then the
    longest part, the job's runtime.
    """

    job: str
    start: float
    length: float
    nodes: tuple[str, ...]
    cost: float
    lengths: tuple[float, ...] = ()
    # Multi-site execution (seed 004 §3.1): the fraction p by which the runtime was stretched
    # to (1 + p)·T because the parts run on several machines; 0 on one machine.
    overhead: float = 0.0

    @property
    def end(self) -> float:
        return self.start + self.length

    @property
    def part_lengths(self) -> tuple[float, ...]:
        """How long each node is reserved (all ``length`` for a square window)."""
        return self.lengths or (self.length,) * len(self.nodes)

    def part_ends(self) -> Iterator[tuple[str, float]]:
        """(node id, end of its part) for every part."""
        return zip(self.nodes, (self.start + length for length in self.part_lengths), strict=True)

    @property
    def cpu_time(self) -> float:
        """The processor time reserved: the sum of the parts' lengths (n·T for a square window)."""
        return float(sum(self.part_lengths))


TIME_BASES = ("model", "seconds")  # what one unit of an environment's time is


@dataclass(frozen=True)
class TimeSettings:
    """The scheduling interval: ``start``, cycle length L (None: one cycle), horizon (None: unbounded),
    and what one unit of time is: ``"seconds"`` (a trace, a workload model) or ``"model"`` (abstract
    units, as in the papers' examples)."""

    start: float = 0.0
    cycle_length: float | None = None
    horizon: float | None = None
    unit: str = "model"

    @property
    def end(self) -> float:
        return math.inf if self.horizon is None else self.horizon

    @property
    def in_seconds(self) -> bool:
        return self.unit == "seconds"


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
    sites: tuple[Site, ...] = ()  # listed sites; the nodes' own site ids are listed in ``site_ids`` too

    @cached_property
    def site_ids(self) -> tuple[str, ...]:
        """Every site: the listed ones in order, then any other site a node names, by first appearance."""
        seen = dict.fromkeys(s.id for s in self.sites)
        for node in self.nodes:
            if node.site:
                seen.setdefault(node.site, None)
        return tuple(seen)

    def site_name(self, site: str) -> str:
        for s in self.sites:
            if s.id == site:
                return s.name or s.id
        return site

    @cached_property
    def node_index(self) -> dict[str, int]:
        """Node id -> position in the node list (the tie-breaking order)."""
        return {node.id: i for i, node in enumerate(self.nodes)}

    @cached_property
    def performance_descending(self) -> tuple[float, ...]:
        """Every node's performance, highest first: the k-th is the best k nodes can all reach."""
        return tuple(sorted((node.performance for node in self.nodes), reverse=True))

    @cached_property
    def job_index(self) -> dict[str, int]:
        return {job.id: i for i, job in enumerate(self.jobs)}

    def job(self, job_id: str) -> Job:
        return self.jobs[self.job_index[job_id]]

    def queue(self) -> list[Job]:
        """Jobs in queue order (``queue_key``)."""
        return in_queue_order(self, self.jobs)


def queue_key(job: Job, position: int) -> tuple[float, float, int]:
    """The queue order (docs/design.md "Job-flow schedulers"): priority, then arrival, then the job's
    position in the environment's job list."""
    return (job.priority, job.arrival, position)


def in_queue_order(env: Environment, jobs: Iterable[Job]) -> list[Job]:
    """``jobs`` (of ``env``) in queue order."""
    index = env.job_index
    return sorted(jobs, key=lambda job: queue_key(job, index[job.id]))
